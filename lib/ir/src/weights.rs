//! Weights by reference: tensors that stay in the files they came in (an ONNX model's
//! `raw_data`, its external data, any little-endian binary file) and that the IR names
//! by file and byte offset (`ascend.parameter`).
//!
//! Why: a model's weights are data, not IR. Carried inline as dense attributes, every
//! pass paid for printing and parsing them (seconds per pass at real width, 14 GB for a
//! 7B model). Referenced, the IR holds a path and an offset; passes see the type and
//! never the bytes; only the executors (the interpreter, the runner) map the file.
//!
//! Files are memory-mapped on first use and shared by every reader of the process
//! (`mapped`), so reading a weight costs the pages it touches, not a copy of the file.
//! Every range is checked against the file's size before it is read: a missing,
//! truncated or short file is an error naming the file and the bytes wanted, never a
//! fault. A file must not shrink while it is mapped (as for any mapped file, the OS
//! would then stop the process on the missing pages).

use crate::graph::DType;
use crate::tensor::{shape_elements, Tensor};
use memmap2::Mmap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A mapped weight file.
pub type MappedFile = Arc<Mmap>;

/// Every file mapped by this process, by the path it was opened with.
fn open_files() -> &'static Mutex<HashMap<PathBuf, MappedFile>> {
    static FILES: OnceLock<Mutex<HashMap<PathBuf, MappedFile>>> = OnceLock::new();
    FILES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The file at `path`, mapped read-only (once per process and path).
pub fn mapped(path: &Path) -> Result<MappedFile, String> {
    let mut files = open_files().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(file) = files.get(path) {
        return Ok(file.clone());
    }
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot open weight file '{}': {e}", path.display()))?;
    let is_file = file.metadata().map(|m| m.is_file()).unwrap_or(false);
    if !is_file {
        return Err(format!(
            "weight file '{}' is not a regular file",
            path.display()
        ));
    }
    // SAFETY: the map is read-only and private to this process; the module docs state
    // the one assumption (the file does not shrink while mapped).
    let map = unsafe { Mmap::map(&file) }
        .map_err(|e| format!("cannot map weight file '{}': {e}", path.display()))?;
    let map = Arc::new(map);
    files.insert(path.to_path_buf(), map.clone());
    Ok(map)
}

/// The `length` bytes at `offset` of `file`, checked against its size.
pub fn byte_range(
    file: &Path,
    offset: u64,
    length: usize,
) -> Result<(MappedFile, std::ops::Range<usize>), String> {
    let map = mapped(file)?;
    let size = map.len();
    let start = usize::try_from(offset).ok();
    let end = start.and_then(|s| s.checked_add(length));
    match (start, end) {
        (Some(start), Some(end)) if end <= size => Ok((map, start..end)),
        _ => Err(format!(
            "weight file '{}' has {size} bytes; the weight needs bytes {offset}..{} \
             (the file is truncated or not the one the IR was made from)",
            file.display(),
            u128::from(offset) + length as u128
        )),
    }
}

/// The tensor of `dtype` and `shape` stored little-endian at `offset` of `file`.
pub fn read_tensor(
    file: &Path,
    offset: u64,
    dtype: DType,
    shape: Vec<usize>,
) -> Result<Tensor, String> {
    let count =
        shape_elements(&shape).ok_or_else(|| format!("shape {shape:?} has too many elements"))?;
    let length = count
        .checked_mul(dtype.bytes())
        .ok_or_else(|| format!("shape {shape:?} of {dtype} has too many bytes"))?;
    let (map, range) = byte_range(file, offset, length)?;
    crate::hostmem::check_shape(
        &format!("the weight at byte {offset} of '{}'", file.display()),
        &shape,
    )?;
    let data = decode_le(dtype, &map[range.clone()]);
    release_pages(&map, range);
    Ok(Tensor { dtype, shape, data })
}

/// Drops the pages of `range` from this process's resident set once they were decoded:
/// the decoded copy is what the executor holds, and a later read faults them in again
/// from the file (the page cache keeps them), so mapping a model costs no resident
/// memory beyond the tensor being read.
fn release_pages(map: &Mmap, range: std::ops::Range<usize>) {
    // SAFETY: the map is a read-only private file mapping that is never written, so
    // dropping its pages loses nothing: they are read back from the file on next use.
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, range.len())
    };
}

/// Little-endian fixed-width elements of `dtype` as the interpreters hold them (f64).
/// A trailing partial element is ignored; callers size `bytes` exactly.
pub fn decode_le(dtype: DType, bytes: &[u8]) -> Vec<f64> {
    let width = dtype.bytes();
    let chunks = bytes.chunks_exact(width);
    match dtype {
        DType::F32 => chunks
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        DType::F16 => chunks
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::BF16 => chunks
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::I64 => chunks
            .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64)
            .collect(),
        DType::I32 => chunks
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        DType::I16 => chunks
            .map(|c| i16::from_le_bytes([c[0], c[1]]) as f64)
            .collect(),
        DType::I8 => chunks.map(|c| c[0] as i8 as f64).collect(),
        DType::U8 => chunks.map(|c| c[0] as f64).collect(),
        DType::Bool => chunks.map(|c| f64::from(u8::from(c[0] != 0))).collect(),
    }
}

/// `file` resolved against `base` when it is relative (IR files name weight files
/// relative to their own directory).
pub fn resolve(file: &str, base: Option<&Path>) -> PathBuf {
    let path = Path::new(file);
    match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    }
}

/// The path of `target` relative to directory `from` (both made absolute against the
/// current directory first, `..` where they part); `target` itself when no relative
/// path exists (e.g. a different drive prefix).
pub fn relative_path(from: &Path, target: &Path) -> PathBuf {
    let absolute = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|cwd| cwd.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let from = absolute(from);
    let target = absolute(target);
    let from_parts: Vec<_> = from.components().collect();
    let target_parts: Vec<_> = target.components().collect();
    if from_parts.first() != target_parts.first() {
        return target;
    }
    let common = from_parts
        .iter()
        .zip(&target_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..from_parts.len() {
        out.push("..");
    }
    for part in &target_parts[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("autofuse-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn reads_each_dtype_at_its_offset() {
        let mut bytes = vec![0xAAu8; 3];
        for v in [1.5f32, -2.0, 0.25] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&(-7i64).to_le_bytes());
        bytes.extend_from_slice(&half::f16::from_f64(0.5).to_le_bytes());
        bytes.extend_from_slice(&half::bf16::from_f64(-3.0).to_le_bytes());
        let path = temp_file("dtypes.bin", &bytes);
        let t = read_tensor(&path, 3, DType::F32, vec![3]).unwrap();
        assert_eq!(t.data, vec![1.5, -2.0, 0.25]);
        let t = read_tensor(&path, 15, DType::I64, vec![1, 1]).unwrap();
        assert_eq!((t.data, t.shape), (vec![-7.0], vec![1, 1]));
        assert_eq!(
            read_tensor(&path, 23, DType::F16, vec![]).unwrap().data,
            vec![0.5]
        );
        assert_eq!(
            read_tensor(&path, 25, DType::BF16, vec![1]).unwrap().data,
            vec![-3.0]
        );
    }

    #[test]
    fn missing_and_short_files_are_errors() {
        let path = temp_file("short.bin", &[0u8; 10]);
        let e = read_tensor(&path, 4, DType::F32, vec![2]).unwrap_err();
        assert!(
            e.contains("has 10 bytes; the weight needs bytes 4..12"),
            "{e}"
        );
        let e = read_tensor(&path, u64::MAX, DType::F32, vec![1]).unwrap_err();
        assert!(e.contains("has 10 bytes"), "{e}");
        let e = read_tensor(&path.with_extension("none"), 0, DType::F32, vec![1]).unwrap_err();
        assert!(e.contains("cannot open weight file"), "{e}");
        let e = read_tensor(&path, 0, DType::F32, vec![usize::MAX, 2]).unwrap_err();
        assert!(e.contains("too many"), "{e}");
    }

    #[test]
    fn relative_paths_walk_up_to_the_common_folder() {
        let rel = relative_path(Path::new("/a/b/c"), Path::new("/a/d/w.bin"));
        assert_eq!(rel, PathBuf::from("../../d/w.bin"));
        let rel = relative_path(Path::new("/a"), Path::new("/a/w.bin"));
        assert_eq!(rel, PathBuf::from("w.bin"));
        assert_eq!(
            resolve("w.bin", Some(Path::new("/m"))),
            PathBuf::from("/m/w.bin")
        );
        assert_eq!(
            resolve("/abs/w.bin", Some(Path::new("/m"))),
            PathBuf::from("/abs/w.bin")
        );
    }
}
