//! The second, independent model of Ascend C: generated kernels compiled against the
//! vendor's own API implementation (the CANN Ascend C headers, `ascendc/include`) in
//! their CPU-debug configuration for the 910B vector core, over autofuse's model of the
//! compiler builtins, the ISA intrinsics and tikicpulib (`sim/vendor/include`).
//!
//! - [`VendorHeaders::locate`] finds `ascendc/include` under a CANN installation or a
//!   folder holding it (`--vendor-headers ROOT`, `$AUTOFUSE_VENDOR_HEADERS`).
//! - [`check_kernels`] compiles every kernel with `-fsyntax-only` and reports the first
//!   error as kernel, line and API.
//! - [`toolchain`] is the [`run::Toolchain`] that builds the same driver as the
//!   emulation's on this path, so [`run::execute`] runs a graph on it unchanged.

use crate as run;
use crate::{PreparedKernel, RunOptions, Toolchain};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that names the headers when `--vendor-headers` is absent.
pub const ENV: &str = "AUTOFUSE_VENDOR_HEADERS";

/// The vendor headers' `ascendc/include` folder and autofuse's shim next to it.
#[derive(Clone, Debug)]
pub struct VendorHeaders {
    /// The folder holding `basic_api/` and `highlevel_api/`.
    pub include: PathBuf,
    /// `sim/vendor/include`: the builtins, tikicpulib and ISA model.
    pub shim: PathBuf,
}

/// Where `ascendc/include` may sit below ROOT: the folder itself, a copy of it
/// (`ROOT/ascendc/include`, this repository's `../shared/vendor/cann-8.1.RC1`), or a
/// CANN toolkit (`$ASCEND_HOME_PATH/<arch>-linux/ascendc/include`,
/// `.../compiler/ascendc/include`, with or without `latest/`).
fn candidates(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf(), root.join("ascendc").join("include")];
    for base in [root.to_path_buf(), root.join("latest")] {
        for arch in ["aarch64-linux", "x86_64-linux", "compiler", "tools"] {
            out.push(base.join(arch).join("ascendc").join("include"));
        }
        out.push(base.join("ascendc").join("include"));
    }
    out
}

impl VendorHeaders {
    /// Finds the headers under `root`; the error names every place looked at.
    pub fn locate(root: &Path, repo: &Path) -> Result<VendorHeaders, String> {
        let list = candidates(root);
        for c in &list {
            if c.join("basic_api").join("kernel_operator.h").is_file()
                && c.join("highlevel_api").is_dir()
            {
                return Ok(VendorHeaders {
                    include: c.clone(),
                    shim: repo.join("sim").join("vendor").join("include"),
                });
            }
        }
        let looked: Vec<String> = list.iter().map(|p| p.display().to_string()).collect();
        Err(format!(
            "no Ascend C headers (basic_api/kernel_operator.h and highlevel_api/) under {}; looked in:\n  {}",
            root.display(),
            looked.join("\n  ")
        ))
    }

    /// The include folders, shim first (fact sheet 7; the vendor README's CPU-debug
    /// configuration).
    pub fn includes(&self) -> Vec<PathBuf> {
        let b = self.include.join("basic_api");
        let h = self.include.join("highlevel_api");
        vec![
            self.shim.clone(),
            b.clone(),
            b.join("impl"),
            b.join("interface"),
            b.join("impl").join("dav_c220"),
            h.clone(),
            h.join("impl"),
            h.join("lib"),
        ]
    }
}

/// The CPU-debug configuration of the dav_c220 vector core (910B/910_93).
pub const DEFINES: [&str; 4] = [
    "-DASCENDC_CPU_DEBUG=1",
    "-D__CCE_AICORE__=220",
    "-D__DAV_C220_VEC__=1",
    "-DAF_VENDOR_PATH=1",
];

/// The optimisation flag of the vendor-path drivers: `$AUTOFUSE_VENDOR_CXX_OPT`, else
/// `-O1`. Not `$AUTOFUSE_CXX_OPT`: the vendor's API code runs unoptimised many times
/// slower over the ISA model (a real export's kernels take minutes at `-O0`), so a
/// test command that builds the emulation's drivers at `-O0` keeps this one at `-O1`.
pub fn optimisation_flag() -> String {
    std::env::var("AUTOFUSE_VENDOR_CXX_OPT")
        .ok()
        .filter(|flag| !flag.trim().is_empty())
        .unwrap_or_else(|| "-O1".into())
}

/// The toolchain of the vendor path (C++17: the vendor headers are not C++20 code).
pub fn toolchain(headers: &VendorHeaders) -> Toolchain {
    let mut flags: Vec<String> = vec!["-std=c++17".into(), optimisation_flag(), "-w".into()];
    flags.extend(DEFINES.iter().map(|s| s.to_string()));
    flags.extend(super::extra_cxx_flags());
    Toolchain {
        flags,
        includes: headers.includes(),
        force_include: Some("af_vendor_launch.h".into()),
        // The ISA model includes sim's block scheduler and read sets (af_isa/isa.h).
        hashed: vec![
            headers.shim.clone(),
            headers.shim.join("../../include/ascendc_sim"),
            headers.include.join("basic_api"),
        ],
        pch: true,
        tag: "vendor-",
        shared: false,
    }
}

/// A compile error of one kernel against the vendor headers.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckError {
    pub kernel: String,
    pub line: u32,
    /// The API (or name) the error is about.
    pub api: String,
    pub message: String,
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kernel {} line {}: {}: {}",
            self.kernel, self.line, self.api, self.message
        )
    }
}

/// The identifier of the call at `column` (1-based) of `line`: the name under the
/// column, or, when g++ points at the `(` or the `>` of template arguments, the name
/// before them (namespace qualifiers dropped).
fn call_at(line: &str, column: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut pos = column.saturating_sub(1).min(chars.len().checked_sub(1)?);
    if !ident(chars[pos]) {
        // Step back over `<...>` and blanks to the name before them.
        let mut depth = 0i32;
        loop {
            let c = chars[pos];
            if c == '>' {
                depth += 1;
            } else if c == '<' {
                depth -= 1;
            } else if depth <= 0 && ident(c) {
                break;
            }
            if pos == 0 {
                return None;
            }
            pos -= 1;
        }
    }
    let mut start = pos;
    while start > 0 && ident(chars[start - 1]) {
        start -= 1;
    }
    let mut end = pos;
    while end < chars.len() && ident(chars[end]) {
        end += 1;
    }
    let name: String = chars[start..end].iter().collect();
    (!name.is_empty()).then_some(name)
}

/// The first error of g++'s output for `file` (a kernel source named `kernel`): the
/// kernel line it arises from (the error itself, or the "required from here" note of
/// a template instantiated from the kernel) and the API called there.
pub fn first_error(stderr: &str, file: &str, source: &str, kernel: &str) -> Option<CheckError> {
    let lines: Vec<&str> = stderr.lines().collect();
    let err_at = lines.iter().position(|l| l.contains(": error: "))?;
    let message = lines[err_at]
        .split(": error: ")
        .nth(1)
        .unwrap_or("")
        .trim()
        .to_string();
    // The kernel location: the error line when it is in the kernel file, else the
    // innermost "required from" / "In instantiation" line pointing into it, searching
    // the lines before the error (g++ prints the instantiation chain first).
    let located = |l: &str| -> Option<(u32, usize)> {
        let pos = l.find(file)?;
        let tail = &l[pos + file.len()..];
        let mut parts = tail.trim_start_matches(':').split(':');
        let line = parts.next()?.trim().parse().ok()?;
        let col = parts
            .next()
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or(1);
        Some((line, col))
    };
    let mut at = located(lines[err_at]);
    if at.is_none() {
        for l in lines[..err_at].iter().rev() {
            if let Some(x) = located(l) {
                at = Some(x);
                break;
            }
        }
    }
    let (line, col) = at.unwrap_or((0, 1));
    let text = source
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let quoted = message
        .split(['‘', '\''])
        .nth(1)
        .map(|q| {
            q.split(['’', '\'', '(', '<'])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .filter(|q| !q.is_empty());
    let api = call_at(text, col)
        .or(quoted)
        .unwrap_or_else(|| "?".to_string());
    Some(CheckError {
        kernel: kernel.to_string(),
        line,
        api,
        message,
    })
}

/// Compiles every kernel of `kernels` against the vendor headers (`-fsyntax-only`, the
/// vendor's CPU-debug configuration).  Each kernel's verdict is cached under the
/// hash of its sources and the headers, so a rerun costs nothing.
pub fn check_kernels(
    kernels: &[&PreparedKernel],
    options: &RunOptions,
    headers: &VendorHeaders,
) -> Result<usize, CheckError> {
    let tc = toolchain(headers);
    let shared: Vec<(String, String)> = autofuse_target_ascendc::shared_files()
        .into_iter()
        .filter(|(n, _)| n.starts_with("include/"))
        .map(|(n, c)| (n.trim_start_matches("include/").to_string(), c))
        .collect();
    let mut headers_hash = Vec::new();
    for dir in &tc.hashed {
        headers_hash.extend(run::sim_headers_hash(dir).unwrap_or_default());
    }
    let mut checked = 0;
    let mut names: Vec<&&PreparedKernel> = kernels.iter().collect();
    names.sort_by(|a, b| a.name.cmp(&b.name));
    for k in names {
        let cpp = format!("{}.cpp", k.symbol);
        let mut parts: Vec<&[u8]> = vec![cpp.as_bytes()];
        for (n, c) in shared.iter().chain(k.sources.files.iter()) {
            parts.push(n.as_bytes());
            parts.push(c.as_bytes());
        }
        parts.push(&headers_hash);
        let flags = tc.flags.join(" ");
        parts.push(flags.as_bytes());
        let key = format!("vendor-check-{:016x}", run::fnv64(&parts));
        let stamp = options.cache_dir.join(&key).join("ok");
        if stamp.exists() {
            checked += 1;
            continue;
        }
        let dir = options.cache_dir.join(&key);
        let fail = |message: String| CheckError {
            kernel: k.name.clone(),
            line: 0,
            api: "-".into(),
            message,
        };
        let mut files = shared.clone();
        files.extend(k.sources.files.iter().cloned());
        autofuse_target_ascendc::write_files(&dir, &files).map_err(fail)?;
        let mut cmd = Command::new(&options.cxx);
        cmd.args(&tc.flags).arg("-fsyntax-only");
        for inc in &tc.includes {
            cmd.arg("-I").arg(inc);
        }
        cmd.arg("-I").arg(&dir).arg(dir.join(&cpp));
        let timeout = run::child::build_timeout().map_err(fail)?;
        let out = run::child::run(&mut cmd, timeout)
            .map_err(|e| fail(format!("{}: {e}", options.cxx)))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let source = k.sources.file(&cpp).unwrap_or("");
            return Err(
                first_error(&stderr, &cpp, source, &k.name).unwrap_or_else(|| {
                    fail(format!(
                        "g++ failed: {}",
                        stderr.lines().take(5).collect::<Vec<_>>().join(" | ")
                    ))
                }),
            );
        }
        std::fs::write(&stamp, b"").map_err(|e| fail(format!("{}: {e}", stamp.display())))?;
        checked += 1;
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_names_kernel_line_and_api() {
        let source = "#include \"kernel_operator.h\"\nvoid f() {\n    Add(a, b, 3, 4, 5);\n}\n";
        let stderr = "afk_1.cpp: In function 'void f()':\nafk_1.cpp:3:8: error: no matching function for call to 'Add(int&, int&, int, int, int)'\n";
        let e = first_error(stderr, "afk_1.cpp", source, "k0").unwrap();
        assert_eq!(e.kernel, "k0");
        assert_eq!(e.line, 3);
        assert_eq!(e.api, "Add");
        assert!(e.message.contains("no matching function"));
    }

    #[test]
    fn first_error_follows_the_instantiation_into_the_kernel() {
        let source = "a\nb\n    Sigmoid<float>(x, y, 7);\n";
        let stderr = "afk_2.cpp:3:19:   required from here\n/v/impl.h:10:5: error: static assertion failed: dtype\n";
        let e = first_error(stderr, "afk_2.cpp", source, "k1").unwrap();
        assert_eq!(e.line, 3);
        assert_eq!(e.api, "Sigmoid");
    }

    #[test]
    fn locate_refuses_a_folder_without_headers() {
        let dir = std::env::temp_dir().join(format!("af-vendor-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = VendorHeaders::locate(&dir, Path::new("/repo")).unwrap_err();
        assert!(e.contains("no Ascend C headers"), "{e}");
        assert!(e.contains("aarch64-linux"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
