//! Every output of the tools goes through here: standard output, output files (`-o`,
//! `--report-json`, `--trace`), output directories (`--out`, `-o <dir>`).
//!
//! - Standard output is written with checked writes and flushed: a failing write (a
//!   closed pipe, a full disk, `> /dev/full`) is an error message (the tool exits 1),
//!   never a panic (`println!` panics on EPIPE/ENOSPC) and never ignored.
//! - Files and directories are written to a temporary sibling (`.<name>.tmp-<pid>`) and
//!   renamed into place only when complete, so a failure leaves no partial output and
//!   the previous output, if any, untouched until the new one is whole.
//!
//! The tools' exit codes are decided by [`Failure`]: 1 for errors (input, verification,
//! a failed write), 2 for command-line misuse.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Writes `bytes` to standard output and flushes it.
pub fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write standard output: {e}"))
}

/// Writes `bytes` to `path`, or to standard output for `-`.
pub fn write_output(path: &str, bytes: &[u8]) -> Result<(), String> {
    if path == "-" {
        write_stdout(bytes)
    } else {
        write_file_atomic(Path::new(path), bytes)
    }
}

/// The temporary sibling of `path` that is renamed into place.
fn temporary_sibling(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes a file completely under a temporary name, then renames it to `path`.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let temp = temporary_sibling(path);
    let written = std::fs::File::create(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("cannot write output file '{}': {e}", path.display())
    })
}

/// A directory of output files (`--out`, `autofuse-translate -o <dir>`) under
/// construction: written into a temporary sibling, renamed onto `dir` by
/// [`StagedDir::commit`]; dropped without a commit, it is removed.
pub struct StagedDir {
    dir: PathBuf,
    temp: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Writes `files` (path relative to the directory, contents) into a temporary
    /// sibling of `dir`.
    pub fn write(dir: &Path, files: &[(String, String)]) -> Result<StagedDir, String> {
        let staged = StagedDir {
            dir: dir.to_path_buf(),
            temp: temporary_sibling(dir),
            committed: false,
        };
        let _ = std::fs::remove_dir_all(&staged.temp);
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::create_dir_all(&staged.temp)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for (name, contents) in files {
            let path = staged.temp.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", dir.join(name).display()))?;
            }
            std::fs::write(&path, contents)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))?;
        }
        Ok(staged)
    }

    /// Puts the directory in place: renamed onto `dir` when it does not exist; into an
    /// existing directory each file is renamed (existing files of the same name are
    /// replaced, others are kept, as a plain write would).
    pub fn commit(mut self) -> Result<(), String> {
        if !self.dir.exists() {
            std::fs::rename(&self.temp, &self.dir)
                .map_err(|e| format!("cannot write {}: {e}", self.dir.display()))?;
        } else {
            move_into(&self.temp, &self.dir)?;
            let _ = std::fs::remove_dir_all(&self.temp);
        }
        self.committed = true;
        Ok(())
    }
}

/// Renames every file under `from` to the same relative path under `to`.
fn move_into(from: &Path, to: &Path) -> Result<(), String> {
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target)
                .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
            move_into(&entry.path(), &target)?;
        } else {
            std::fs::rename(entry.path(), &target)
                .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        }
    }
    Ok(())
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.temp);
        }
    }
}

/// Why a tool stopped, which decides its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Command-line misuse (a bad flag value, an unknown symbol, conflicting flags):
    /// exit 2.
    Usage(String),
    /// Anything else (bad input, verification, a failed pass, build or write): exit 1.
    Error(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Error(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::Error(message.to_string())
    }
}

/// Whether `line` starts with a source location (`file:line:col: `), i.e. is already a
/// located diagnostic that must be printed as it is.
pub fn is_located(line: &str) -> bool {
    let Some((head, _)) = line.split_once(": ") else {
        return false;
    };
    let mut parts = head.rsplitn(3, ':');
    let col = parts.next().unwrap_or("");
    let row = parts.next().unwrap_or("");
    parts.next().is_some_and(|file| !file.is_empty())
        && !col.is_empty()
        && !row.is_empty()
        && col.bytes().all(|b| b.is_ascii_digit())
        && row.bytes().all(|b| b.is_ascii_digit())
}

/// Prints an error message of `tool` on standard error: located diagnostics as they are
/// (`file:line:col: error: ...`), anything else as `tool: error: message`.
pub fn print_error(tool: &str, message: &str) {
    if is_located(message) {
        eprintln!("{message}");
    } else {
        eprintln!("{tool}: error: {message}");
    }
}

impl Failure {
    /// Prints the failure and returns the tool's exit code (2 for misuse, else 1).
    pub fn report(&self, tool: &str) -> ExitCode {
        match self {
            Failure::Usage(message) => {
                print_error(tool, message);
                ExitCode::from(2)
            }
            Failure::Error(message) => {
                print_error(tool, message);
                ExitCode::from(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_messages_are_recognized() {
        assert!(is_located("a.mlir:3:5: error: bad"));
        assert!(is_located("/x/y-z.mlir:12:1: error: bad"));
        assert!(!is_located("cannot open input file 'a.mlir': missing"));
        assert!(!is_located("--symbols: s0 given twice"));
    }

    #[test]
    fn files_are_renamed_into_place_whole() {
        let dir = std::env::temp_dir().join(format!("autofuse-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        write_file_atomic(&file, b"one").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"one");
        // A failed write leaves nothing behind.
        assert!(write_file_atomic(&dir.join("missing/b.txt"), b"x").is_err());
        let staged = StagedDir::write(&dir.join("out"), &[("k/a.cpp".into(), "x".into())]).unwrap();
        assert!(!dir.join("out").exists());
        staged.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("out/k/a.cpp")).unwrap(),
            "x"
        );
        // Dropped without a commit: no output.
        drop(StagedDir::write(&dir.join("other"), &[("a".into(), "b".into())]).unwrap());
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 2, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
