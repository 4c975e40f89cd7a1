//! The host-memory check made before every tensor-sized host allocation (interpreter
//! values, random inputs, `.npy` loads, emulated kernel buffers).
//!
//! A shape can fit an integer and not memory: `tensor<1099511627776xf32>` holds 8 TiB
//! as host `f64` values. Allocating it aborts the process ("memory allocation of N bytes
//! failed") or gets it OOM-killed after a long time. Every allocation whose size comes
//! from a shape therefore goes through [`check`] (or [`filled`], which checks and then
//! reserves with `try_reserve_exact`), which compares the bytes, computed with checked
//! arithmetic, with a limit:
//!
//! - `AUTOFUSE_MAX_HOST_BYTES` (bytes; a `K`, `M`, `G` or `T` suffix multiplies by
//!   1024^n), when set;
//! - else `MemAvailable` of `/proc/meminfo`;
//! - else no limit (the allocation itself may still fail, and is then an error too
//!   where `try_reserve` is used).
//!
//! The limit is per allocation. What the run holds already is counted by the system:
//! an allocation of [`RECHECK_BYTES`] or more must also fit `MemAvailable` read again
//! at that moment, so a run whose tensors each fit the limit but not all together is
//! refused at the tensor that no longer fits, with an error, before the machine pages
//! or kills the process. Smaller allocations skip the re-read (it costs a file read;
//! together they stay far below what the large ones are checked against).

use std::sync::OnceLock;

/// The environment variable that overrides the host-memory limit.
pub const ENV: &str = "AUTOFUSE_MAX_HOST_BYTES";

/// The limit in bytes and where it comes from (`None`: no limit known).
pub fn limit() -> Result<Option<(u64, &'static str)>, String> {
    static LIMIT: OnceLock<Result<Option<(u64, &'static str)>, String>> = OnceLock::new();
    LIMIT
        .get_or_init(|| match std::env::var(ENV) {
            Ok(text) if !text.trim().is_empty() => parse_bytes(&text)
                .map(|n| Some((n, ENV)))
                .ok_or_else(|| {
                    format!(
                        "{ENV}='{text}' is not a byte count (an integer, optionally with a K, M, G or T suffix)"
                    )
                }),
            _ => Ok(mem_available().map(|n| (n, "MemAvailable in /proc/meminfo"))),
        })
        .clone()
}

/// `123`, `64K`, `2G`, `1T` (powers of 1024; a trailing `B` or `iB` is allowed).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 10),
        (i, 'm' | 'M') => (&t[..i], 20),
        (i, 'g' | 'G') => (&t[..i], 30),
        (i, 't' | 'T') => (&t[..i], 40),
        _ => (t, 0),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The host bytes of `elements` values of `width` bytes each (`None` on overflow).
pub fn bytes_of(elements: usize, width: usize) -> Option<u64> {
    u64::try_from(elements)
        .ok()?
        .checked_mul(u64::try_from(width).ok()?)
}

/// The host bytes of a tensor of `shape` held as `f64` values (how the interpreters
/// hold every dtype), `None` on overflow.
pub fn tensor_bytes(shape: &[usize]) -> Option<u64> {
    let elements = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    bytes_of(elements, 8)
}

/// Allocations of at least this many bytes are also checked against the memory
/// available when they are made (see the module's documentation).
pub const RECHECK_BYTES: u64 = 64 << 20;

/// Checks that `bytes` (`None`: overflowed) fit the host-memory limit and, when large,
/// the memory available now; the error names `what` (the tensor: a value, argument or
/// file) and its bytes.
pub fn check(what: &str, bytes: Option<u64>) -> Result<(), String> {
    let available_now = || {
        if bytes.is_some_and(|b| b >= RECHECK_BYTES) {
            mem_available()
        } else {
            None
        }
    };
    check_against(what, bytes, limit()?, available_now)
}

/// [`check`] with the limit and the memory available now given (what the tests vary).
fn check_against(
    what: &str,
    bytes: Option<u64>,
    limit: Option<(u64, &'static str)>,
    available_now: impl FnOnce() -> Option<u64>,
) -> Result<(), String> {
    let Some(bytes) = bytes else {
        return Err(format!(
            "{what}: its size in bytes overflows a 64-bit integer; it cannot be held in host memory"
        ));
    };
    if let Some((limit, source)) = limit.filter(|&(limit, _)| bytes > limit) {
        return Err(over_limit(what, bytes, limit, source));
    }
    match available_now() {
        Some(available) if bytes > available => Err(format!(
            "{what}: needs {bytes} bytes ({}) of host memory, more than is available now: {available} bytes ({}, MemAvailable in /proc/meminfo, with what this run already holds)",
            human(bytes),
            human(available)
        )),
        _ => Ok(()),
    }
}

fn over_limit(what: &str, bytes: u64, limit: u64, source: &str) -> String {
    let from = if source == ENV {
        format!("from {ENV}")
    } else {
        format!("{source}; set {ENV} to change it")
    };
    format!(
        "{what}: needs {bytes} bytes ({}) of host memory, more than the limit of {limit} bytes ({}, {from})",
        human(bytes),
        human(limit)
    )
}

/// Checks a tensor of `shape` held as `f64` values (see [`tensor_bytes`]).
pub fn check_shape(what: &str, shape: &[usize]) -> Result<(), String> {
    check(&format!("{what} (shape {shape:?})"), tensor_bytes(shape))
}

/// A vector of `count` copies of `value`, after the limit check and a fallible
/// reservation (`try_reserve_exact`), so a size that does not fit is an error, not an
/// abort.
pub fn filled<T: Clone>(what: &str, count: usize, value: T) -> Result<Vec<T>, String> {
    let mut v = reserved(what, count)?;
    v.resize(count, value);
    Ok(v)
}

/// An empty vector with room for `count` elements, after the limit check and a
/// fallible reservation.
pub fn reserved<T>(what: &str, count: usize) -> Result<Vec<T>, String> {
    check(what, bytes_of(count, std::mem::size_of::<T>()))?;
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|e| {
        format!(
            "{what}: cannot allocate {} bytes of host memory ({e})",
            count.saturating_mul(std::mem::size_of::<T>())
        )
    })?;
    Ok(v)
}

/// `1.5 GiB`-style sizes for messages.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_byte_counts() {
        assert_eq!(parse_bytes("123"), Some(123));
        assert_eq!(parse_bytes("64K"), Some(64 << 10));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("2GiB"), Some(2 << 30));
        assert_eq!(parse_bytes("1t"), Some(1 << 40));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_bytes("99999999999999999999T"), None);
    }

    #[test]
    fn sizes_beyond_any_memory_are_errors() {
        // 2^40 f32 elements are 8 TiB as f64 values: more than any test machine has.
        let err = check_shape("argument %x", &[1 << 40]).unwrap_err();
        assert!(err.contains("argument %x"), "{err}");
        assert!(err.contains("8796093022208 bytes"), "{err}");
        let err = check_shape("v", &[usize::MAX, 2]).unwrap_err();
        assert!(err.contains("overflows"), "{err}");
        assert!(filled::<f64>("v", usize::MAX / 4, 0.0).is_err());
        assert_eq!(filled("v", 3, 1.5).unwrap(), vec![1.5; 3]);
    }

    /// Tensors that each fit the limit but not what is left once earlier ones are held:
    /// the large allocation is checked against the memory available at that moment.
    #[test]
    fn large_allocations_must_fit_the_memory_available_now() {
        let limit = Some((16u64 << 30, ENV));
        let err = check_against("value %big", Some(3 << 30), limit, || Some(2 << 30)).unwrap_err();
        assert!(
            err.contains("value %big: needs 3221225472 bytes (3.0 GiB)"),
            "{err}"
        );
        assert!(
            err.contains("more than is available now: 2147483648 bytes"),
            "{err}"
        );
        assert!(check_against("v", Some(1 << 30), limit, || Some(2 << 30)).is_ok());
        // The limit is checked first and named as the cause.
        let err = check_against("v", Some(32 << 30), limit, || Some(2 << 30)).unwrap_err();
        assert!(err.contains("from AUTOFUSE_MAX_HOST_BYTES"), "{err}");
        // No figure of available memory (another system): only the limit applies.
        assert!(check_against("v", Some(3 << 30), limit, || None).is_ok());
        // Small allocations skip the re-read: `check` never asks below the threshold.
        assert!(check("small", Some(RECHECK_BYTES - 1)).is_ok());
    }
}
