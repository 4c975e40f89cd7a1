//! Host tensors for the reference interpreters: a dtype, a shape and the values in
//! row-major (C) order.
//!
//! Conventions:
//! - Every value is held as an `f64`. That is exact for every supported dtype: f32, f16
//!   and bf16 values are f64 values, and so are all i32/i16/i8/u8 values and bools (0 or
//!   1). **i64 is exact only within ±2^53**; larger i64 values lose their low bits. The
//!   interpreters do integer arithmetic in `i64` (see `interp`), so only values that are
//!   stored beyond 2^53 are affected.
//! - The values of a tensor are always representable in its dtype; [`round_to_dtype`]
//!   is what makes them so: f32 rounds to nearest even, f16 and bf16 round to nearest
//!   even directly from the f64 value (one rounding, no detour through f32), integers
//!   truncate toward zero and then wrap like two's complement to their width (that is
//!   what integer overflow does on the device), bool is `value != 0`.
//! - `.npy` files are NumPy format 1.0 (2.0 for headers over 64 KiB), little-endian, C
//!   order, with dtypes `<f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1`. bf16 has no NumPy dtype: it
//!   is written as `<f4` holding the (exactly representable) bf16 values, and read back
//!   with [`Tensor::from_npy_as`]`(.., DType::BF16)`, which rounds the f32 values to bf16.
//! - Random tensors come from a seeded SplitMix64 stream, so a seed names the same data
//!   on every machine.

use crate::graph::{DType, Dim, TensorType};
use std::path::Path;

/// Why a tensor could not be built, read or written.
#[derive(Debug, thiserror::Error)]
pub enum TensorError {
    #[error("shape {shape:?} has {expected} elements but {got} values were given")]
    Length {
        shape: Vec<usize>,
        expected: usize,
        got: usize,
    },
    #[error("shape {0:?} has too many elements")]
    TooLarge(Vec<usize>),
    /// The tensor does not fit the host-memory limit (`crate::hostmem`).
    #[error("{0}")]
    HostMemory(String),
    #[error("malformed .npy data: {0}")]
    Npy(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// A dense tensor; see the module docs for how values are held.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

/// Number of elements of a shape, or `None` on overflow.
pub fn shape_elements(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Row-major strides (in elements) of a shape.
pub fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

impl Tensor {
    /// A tensor from row-major values; each value is rounded to `dtype`.
    pub fn new(dtype: DType, shape: Vec<usize>, data: Vec<f64>) -> Result<Tensor, TensorError> {
        let expected =
            shape_elements(&shape).ok_or_else(|| TensorError::TooLarge(shape.clone()))?;
        if expected != data.len() {
            return Err(TensorError::Length {
                shape,
                expected,
                got: data.len(),
            });
        }
        let data = data.into_iter().map(|v| round_to_dtype(v, dtype)).collect();
        Ok(Tensor { dtype, shape, data })
    }

    /// A tensor with every element equal to `value` (rounded to `dtype`).
    pub fn full(dtype: DType, shape: Vec<usize>, value: f64) -> Result<Tensor, TensorError> {
        let count = shape_elements(&shape).ok_or_else(|| TensorError::TooLarge(shape.clone()))?;
        let data = crate::hostmem::filled(
            &format!("a {dtype} tensor of shape {shape:?}"),
            count,
            round_to_dtype(value, dtype),
        )
        .map_err(TensorError::HostMemory)?;
        Ok(Tensor { dtype, shape, data })
    }

    pub fn zeros(dtype: DType, shape: Vec<usize>) -> Result<Tensor, TensorError> {
        Tensor::full(dtype, shape, 0.0)
    }

    /// A rank-0 tensor.
    pub fn scalar(dtype: DType, value: f64) -> Tensor {
        Tensor {
            dtype,
            shape: Vec::new(),
            data: vec![round_to_dtype(value, dtype)],
        }
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn num_elements(&self) -> usize {
        self.data.len()
    }

    pub fn strides(&self) -> Vec<usize> {
        strides_of(&self.shape)
    }

    /// The static tensor type of this tensor.
    pub fn ty(&self) -> TensorType {
        TensorType::new(
            self.dtype,
            self.shape
                .iter()
                .map(|&d| Dim::constant(i64::try_from(d).unwrap_or(i64::MAX)))
                .collect(),
        )
    }

    /// Flat offset of a multi-index, or `None` if its rank or any index is out of range.
    pub fn offset(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut offset = 0;
        for (&i, &d) in index.iter().zip(&self.shape) {
            if i >= d {
                return None;
            }
            offset = offset * d + i;
        }
        Some(offset)
    }

    pub fn get(&self, index: &[usize]) -> Option<f64> {
        self.offset(index).map(|o| self.data[o])
    }

    /// Sets one element (rounded to the dtype); `false` if the index is out of range.
    pub fn set(&mut self, index: &[usize], value: f64) -> bool {
        match self.offset(index) {
            Some(o) => {
                self.data[o] = round_to_dtype(value, self.dtype);
                true
            }
            None => false,
        }
    }

    /// NumPy's `allclose` with `equal_nan=True`: same dtype and shape, and every
    /// `|a - b| <= atol + rtol * |b|` (infinities must match exactly).
    pub fn allclose(&self, other: &Tensor, rtol: f64, atol: f64) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && self.data.iter().zip(&other.data).all(|(&a, &b)| {
                (a.is_nan() && b.is_nan())
                    || a == b
                    || (a.is_finite() && b.is_finite() && (a - b).abs() <= atol + rtol * b.abs())
            })
    }

    /// Uniform random data from `seed`: floats in [-2, 2) rounded to the dtype (so f16 and
    /// bf16 may round up to 2.0), signed integers in [-8, 8), u8 in [0, 16), bool 0 or 1.
    /// Small integers keep products and sums of test data away from overflow.
    pub fn random(dtype: DType, shape: Vec<usize>, seed: u64) -> Result<Tensor, TensorError> {
        let (low, high) = match dtype {
            DType::F32 | DType::F16 | DType::BF16 => (-2.0, 2.0),
            DType::U8 => (0.0, 16.0),
            DType::Bool => (0.0, 2.0),
            _ => (-8.0, 8.0),
        };
        Tensor::random_uniform(dtype, shape, seed, low, high)
    }

    /// Uniform random data in [low, high) from `seed`: floats are rounded to the dtype,
    /// integer dtypes (and bool) take the floor, so `[-8, 8)` gives the integers -8..=7.
    pub fn random_uniform(
        dtype: DType,
        shape: Vec<usize>,
        seed: u64,
        low: f64,
        high: f64,
    ) -> Result<Tensor, TensorError> {
        let count = shape_elements(&shape).ok_or_else(|| TensorError::TooLarge(shape.clone()))?;
        let mut data = crate::hostmem::reserved(
            &format!("a random {dtype} tensor of shape {shape:?}"),
            count,
        )
        .map_err(TensorError::HostMemory)?;
        let mut rng = SplitMix64::new(seed);
        data.extend((0..count).map(|_| {
            let v = low + (high - low) * rng.next_f64();
            let v = if dtype.is_float() { v } else { v.floor() };
            round_to_dtype(v, dtype)
        }));
        Ok(Tensor { dtype, shape, data })
    }

    /// The `.npy` encoding of this tensor (see the module docs for bf16).
    pub fn to_npy(&self) -> Vec<u8> {
        let shape = match self.shape.as_slice() {
            [] => "()".to_string(),
            [d] => format!("({d},)"),
            dims => format!(
                "({})",
                dims.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
            npy_descr(self.dtype)
        );
        // Version 1.0 has a 2-byte header length; bigger headers need 2.0 (4 bytes).
        let (version, prefix) = if header.len() + 11 <= 65535 {
            (1u8, 10)
        } else {
            (2u8, 12)
        };
        // NumPy pads the header with spaces and a newline so the data is 64-byte aligned.
        let total = (prefix + header.len() + 1).div_ceil(64) * 64;
        while prefix + header.len() + 1 < total {
            header.push(' ');
        }
        header.push('\n');
        let mut out = Vec::with_capacity(total + self.data.len() * 4);
        out.extend_from_slice(b"\x93NUMPY");
        out.push(version);
        out.push(0);
        if version == 1 {
            out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(header.as_bytes());
        for &v in &self.data {
            match self.dtype {
                DType::F32 | DType::BF16 => out.extend_from_slice(&(v as f32).to_le_bytes()),
                // `v` is an f16 value, so this conversion is exact.
                DType::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
                DType::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
                DType::I32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
                DType::I16 => out.extend_from_slice(&(v as i16).to_le_bytes()),
                DType::I8 => out.push(v as i8 as u8),
                DType::U8 => out.push(v as u8),
                DType::Bool => out.push(u8::from(v != 0.0)),
            }
        }
        out
    }

    /// Decodes `.npy` data; the dtype comes from the file (`<f4` reads as f32).
    pub fn from_npy(bytes: &[u8]) -> Result<Tensor, TensorError> {
        let (descr, shape, data) = parse_npy(bytes)?;
        let dtype = match descr.as_str() {
            "f4" => DType::F32,
            "f2" => DType::F16,
            "i8" => DType::I64,
            "i4" => DType::I32,
            "i2" => DType::I16,
            "i1" => DType::I8,
            "u1" => DType::U8,
            "b1" => DType::Bool,
            other => {
                return Err(TensorError::Npy(format!(
                    "unsupported dtype '{other}' (supported: <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1)"
                )))
            }
        };
        decode_npy_data(dtype, shape, data)
    }

    /// Decodes `.npy` data that must hold `dtype` (bf16: an `<f4` file, rounded to bf16).
    pub fn from_npy_as(bytes: &[u8], dtype: DType) -> Result<Tensor, TensorError> {
        let (descr, shape, data) = parse_npy(bytes)?;
        let want = npy_descr(dtype);
        if want.get(1..) != Some(descr.as_str()) {
            return Err(TensorError::Npy(format!(
                "expected dtype '{want}' for {dtype}, the file has '{descr}'"
            )));
        }
        let mut t = decode_npy_data(
            if dtype == DType::BF16 {
                DType::F32
            } else {
                dtype
            },
            shape,
            data,
        )?;
        if dtype == DType::BF16 {
            t.dtype = DType::BF16;
            for v in &mut t.data {
                *v = round_to_dtype(*v, DType::BF16);
            }
        }
        Ok(t)
    }

    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<(), TensorError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_npy()).map_err(|source| TensorError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor, TensorError> {
        Tensor::from_npy(&read_file(path.as_ref())?)
    }

    pub fn read_npy_as(path: impl AsRef<Path>, dtype: DType) -> Result<Tensor, TensorError> {
        Tensor::from_npy_as(&read_file(path.as_ref())?, dtype)
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, TensorError> {
    std::fs::read(path).map_err(|source| TensorError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// The NumPy dtype string a dtype is stored as.
pub fn npy_descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 | DType::BF16 => "<f4",
        DType::F16 => "<f2",
        DType::I64 => "<i8",
        DType::I32 => "<i4",
        DType::I16 => "<i2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::Bool => "|b1",
    }
}

fn npy_err<T>(message: impl Into<String>) -> Result<T, TensorError> {
    Err(TensorError::Npy(message.into()))
}

/// Splits `.npy` bytes into (dtype code without byte order, shape, data bytes).
fn parse_npy(bytes: &[u8]) -> Result<(String, Vec<usize>, &[u8]), TensorError> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return npy_err("missing the \\x93NUMPY magic");
    }
    let (header_len, start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            let Some(len) = bytes.get(8..12) else {
                return npy_err("truncated header length");
            };
            (
                u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize,
                12,
            )
        }
        v => return npy_err(format!("unsupported format version {v}")),
    };
    let Some(header) = start
        .checked_add(header_len)
        .and_then(|end| bytes.get(start..end))
    else {
        return npy_err("truncated header");
    };
    let header =
        std::str::from_utf8(header).map_err(|_| TensorError::Npy("header is not text".into()))?;
    let dict = parse_header(header)?;
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (key, value) in dict {
        match (key.as_str(), value) {
            ("descr", HeaderValue::Str(s)) => descr = Some(s),
            ("fortran_order", HeaderValue::Bool(b)) => fortran = Some(b),
            ("shape", HeaderValue::Tuple(t)) => shape = Some(t),
            (k, _) => return npy_err(format!("unexpected header entry '{k}'")),
        }
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return npy_err("header lacks descr, fortran_order or shape");
    };
    if fortran {
        return npy_err("Fortran-order data is not supported");
    }
    let code = match descr.as_bytes().first() {
        Some(b'<') | Some(b'|') => descr[1..].to_string(),
        Some(b'>') => return npy_err(format!("big-endian dtype '{descr}' is not supported")),
        _ => return npy_err(format!("dtype '{descr}' has no byte-order mark")),
    };
    Ok((code, shape, &bytes[start + header_len..]))
}

fn decode_npy_data(dtype: DType, shape: Vec<usize>, data: &[u8]) -> Result<Tensor, TensorError> {
    let count = shape_elements(&shape).ok_or_else(|| TensorError::TooLarge(shape.clone()))?;
    let width = dtype.bytes();
    if Some(data.len()) != count.checked_mul(width) {
        return npy_err(format!(
            "shape {shape:?} of {dtype} needs {} data bytes, found {}",
            count.saturating_mul(width),
            data.len()
        ));
    }
    let mut values = crate::hostmem::reserved(
        &format!("the .npy data of shape {shape:?} ({dtype})"),
        count,
    )
    .map_err(TensorError::HostMemory)?;
    values.extend(data.chunks_exact(width).map(|c| {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(c);
        match dtype {
            DType::F32 | DType::BF16 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
            DType::I64 => i64::from_le_bytes(b) as f64,
            DType::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DType::I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
            DType::I8 => b[0] as i8 as f64,
            DType::U8 => b[0] as f64,
            DType::Bool => f64::from(u8::from(b[0] != 0)),
        }
    }));
    Ok(Tensor {
        dtype,
        shape,
        data: values,
    })
}

enum HeaderValue {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// Parses the Python dict literal of a `.npy` header (only what NumPy writes there).
fn parse_header(text: &str) -> Result<Vec<(String, HeaderValue)>, TensorError> {
    let s = text.trim().as_bytes();
    let mut pos = 0;
    let ws = |pos: &mut usize| {
        while *pos < s.len() && s[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    };
    let string = |pos: &mut usize| -> Result<String, TensorError> {
        let quote = s[*pos];
        let start = *pos + 1;
        let Some(len) = s[start..].iter().position(|&c| c == quote) else {
            return npy_err("unterminated string in header");
        };
        *pos = start + len + 1;
        Ok(String::from_utf8_lossy(&s[start..start + len]).into_owned())
    };
    if s.first() != Some(&b'{') {
        return npy_err("header is not a dict");
    }
    pos += 1;
    let mut entries = Vec::new();
    loop {
        ws(&mut pos);
        match s.get(pos) {
            Some(b'}') => break,
            Some(b'\'') | Some(b'"') => {}
            _ => return npy_err("expected a key in the header"),
        }
        let key = string(&mut pos)?;
        ws(&mut pos);
        if s.get(pos) != Some(&b':') {
            return npy_err("expected ':' in the header");
        }
        pos += 1;
        ws(&mut pos);
        let value = match s.get(pos) {
            Some(b'\'') | Some(b'"') => HeaderValue::Str(string(&mut pos)?),
            Some(b'(') => {
                let Some(len) = s[pos..].iter().position(|&c| c == b')') else {
                    return npy_err("unterminated shape tuple");
                };
                let inner = String::from_utf8_lossy(&s[pos + 1..pos + len]).into_owned();
                pos += len + 1;
                let dims = inner
                    .split(',')
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(|d| {
                        d.trim_end_matches('L')
                            .parse::<usize>()
                            .map_err(|_| TensorError::Npy(format!("bad dimension '{d}'")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                HeaderValue::Tuple(dims)
            }
            _ if s[pos..].starts_with(b"True") => {
                pos += 4;
                HeaderValue::Bool(true)
            }
            _ if s[pos..].starts_with(b"False") => {
                pos += 5;
                HeaderValue::Bool(false)
            }
            _ => return npy_err(format!("unsupported value for header key '{key}'")),
        };
        entries.push((key, value));
        ws(&mut pos);
        match s.get(pos) {
            Some(b',') => pos += 1,
            Some(b'}') => {}
            _ => return npy_err("expected ',' or '}' in the header"),
        }
    }
    Ok(entries)
}

/// Rounds `value` to the nearest value of a binary floating-point format with
/// `fraction_bits` explicit significand bits, minimum normal exponent `emin` and
/// largest finite value `max`, ties to even, overflowing to infinity.
///
/// This is done here rather than with `half::{f16,bf16}::from_f64` because those
/// truncate the low 32 bits of the f64 significand before rounding, which turns values
/// just above a halfway point into ties (1 + 2^-11 + 2^-30 would round to 1.0 in f16).
fn round_to_format(value: f64, fraction_bits: i32, emin: i32, max: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let a = value.abs();
    // floor(log2(a)) from the bits; f64 subnormals are far below every target format.
    let exp = ((a.to_bits() >> 52) as i32 - 1023).max(-1022);
    let quantum = 2f64.powi(exp.max(emin) - fraction_bits);
    // Scaling by a power of two is exact, so this is the only rounding.
    let r = (a / quantum).round_ties_even() * quantum;
    let r = if r > max { f64::INFINITY } else { r };
    r.copysign(value)
}

/// Rounds or wraps `value` to a value of `dtype` (see the module docs). Integer dtypes
/// truncate toward zero and wrap modulo 2^width; non-finite values become 0 there.
pub fn round_to_dtype(value: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => value as f32 as f64,
        DType::F16 => round_to_format(value, 10, -14, 65504.0),
        DType::BF16 => round_to_format(value, 7, -126, (2.0 - 2f64.powi(-7)) * 2f64.powi(127)),
        DType::Bool => f64::from(u8::from(value != 0.0)),
        DType::I64 => wrap_float(value, 64, true),
        DType::I32 => wrap_float(value, 32, true),
        DType::I16 => wrap_float(value, 16, true),
        DType::I8 => wrap_float(value, 8, true),
        DType::U8 => wrap_float(value, 8, false),
    }
}

fn wrap_float(value: f64, bits: i32, signed: bool) -> f64 {
    if !value.is_finite() {
        return 0.0;
    }
    let v = value.trunc();
    let modulus = 2f64.powi(bits);
    let (low, high) = if signed {
        (-modulus / 2.0, modulus / 2.0)
    } else {
        (0.0, modulus)
    };
    if (low..high).contains(&v) {
        return v;
    }
    // Out of range: fmod of integer-valued f64s is exact; so is adding the modulus to a
    // negative remainder (for 64 bits, |v| >= 2^63 makes it a multiple of 2^11, which
    // every f64 below 2^64 can hold) and the final subtraction (Sterbenz).
    let r = v.rem_euclid(modulus);
    if signed && r >= modulus / 2.0 {
        r - modulus
    } else {
        r
    }
}

/// Wraps an exact integer result to an integer dtype (two's complement) or to bool.
/// Float dtypes round the (possibly inexact beyond 2^53) value.
pub fn wrap_i64(value: i64, dtype: DType) -> f64 {
    match dtype {
        DType::I64 => value as f64,
        DType::I32 => value as i32 as f64,
        DType::I16 => value as i16 as f64,
        DType::I8 => value as i8 as f64,
        DType::U8 => value as u8 as f64,
        DType::Bool => f64::from(u8::from(value != 0)),
        _ => round_to_dtype(value as f64, dtype),
    }
}

/// Converts one value of dtype `from` to dtype `to`, as `ascend.cast` does:
/// - anything to bool is `value != 0` (NaN is true);
/// - float to integer truncates toward zero and saturates to the integer range, NaN
///   gives 0 (the device's saturating conversion; plain wrapping would be meaningless
///   for out-of-range floats);
/// - integer to integer wraps (two's complement), integer to float rounds to nearest
///   even, float to float rounds to nearest even.
pub fn cast_value(value: f64, from: DType, to: DType) -> f64 {
    if to == DType::Bool {
        return f64::from(u8::from(value != 0.0));
    }
    if from.is_float() && to.is_int() {
        // Rust's float-to-int `as` truncates, saturates and maps NaN to 0.
        return match to {
            DType::I64 => value as i64 as f64,
            DType::I32 => value as i32 as f64,
            DType::I16 => value as i16 as f64,
            DType::I8 => value as i8 as f64,
            _ => value as u8 as f64,
        };
    }
    round_to_dtype(value, to)
}

/// A SplitMix64 stream (Steele, Lea and Flood): tiny, fast and fully determined by its
/// seed, which is all test data needs.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_rounds_to_nearest_even() {
        // numpy: float(np.float16(1/3)) == 0.333251953125
        assert_eq!(round_to_dtype(1.0 / 3.0, DType::F16), 0.333251953125);
        // Halfway between 1 and 1 + 2^-10: ties to even (1.0); just above: rounds up.
        assert_eq!(round_to_dtype(1.0 + 2f64.powi(-11), DType::F16), 1.0);
        assert_eq!(
            round_to_dtype(1.0 + 3.0 * 2f64.powi(-11), DType::F16),
            1.0 + 2.0 * 2f64.powi(-10)
        );
        assert_eq!(
            round_to_dtype(1.0 + 2f64.powi(-11) + 2f64.powi(-30), DType::F16),
            1.0009765625
        );
        // Overflow: 65519.99 rounds to the max 65504, 65520 is the tie that goes to inf.
        assert_eq!(round_to_dtype(65519.99, DType::F16), 65504.0);
        assert_eq!(round_to_dtype(65520.0, DType::F16), f64::INFINITY);
        assert_eq!(round_to_dtype(-1e6, DType::F16), f64::NEG_INFINITY);
        // Subnormals: 2^-25 is half the smallest subnormal (tie to 0); 3*2^-25 -> 2^-23.
        assert_eq!(round_to_dtype(2f64.powi(-25), DType::F16), 0.0);
        assert_eq!(
            round_to_dtype(3.0 * 2f64.powi(-25), DType::F16),
            2f64.powi(-23)
        );
        assert_eq!(
            round_to_dtype(2f64.powi(-25) + 2f64.powi(-40), DType::F16),
            2f64.powi(-24)
        );
        assert!(round_to_dtype(f64::NAN, DType::F16).is_nan());
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1.00390625 = 1 + 2^-8 is the tie between 1.0 and 1.0078125: even is 1.0.
        assert_eq!(round_to_dtype(1.00390625, DType::BF16), 1.0);
        // 1.01171875 = 1 + 3*2^-8 ties between 1.0078125 and 1.015625: even is 1.015625.
        assert_eq!(round_to_dtype(1.01171875, DType::BF16), 1.015625);
        // Above the tie rounds up (a detour through f32 would make this a tie).
        assert_eq!(
            round_to_dtype(1.0 + 2f64.powi(-8) + 2f64.powi(-40), DType::BF16),
            1.0078125
        );
        // 3e38 / 2^120 = 225.7..., so the nearest bf16 is 226 * 2^120.
        assert_eq!(round_to_dtype(3.0e38, DType::BF16), 226.0 * 2f64.powi(120));
        assert_eq!(round_to_dtype(3.5e38, DType::BF16), f64::INFINITY);
    }

    #[test]
    fn f32_and_integers_round_or_wrap() {
        assert_eq!(round_to_dtype(0.1, DType::F32), 0.1f32 as f64);
        assert_eq!(round_to_dtype(200.0, DType::I8), -56.0);
        assert_eq!(round_to_dtype(-1.0, DType::U8), 255.0);
        assert_eq!(round_to_dtype(256.0 + 7.0, DType::U8), 7.0);
        assert_eq!(round_to_dtype(2f64.powi(31), DType::I32), -(2f64.powi(31)));
        assert_eq!(round_to_dtype(3.7, DType::I32), 3.0);
        assert_eq!(round_to_dtype(-3.7, DType::I16), -3.0);
        assert_eq!(round_to_dtype(2f64.powi(63), DType::I64), -(2f64.powi(63)));
        assert_eq!(round_to_dtype(f64::NAN, DType::I32), 0.0);
        assert_eq!(round_to_dtype(-1.0, DType::I64), -1.0);
        assert_eq!(
            round_to_dtype(-(2f64.powi(63)), DType::I64),
            -(2f64.powi(63))
        );
        assert_eq!(
            round_to_dtype(-(2f64.powi(64)) - 4096.0, DType::I64),
            -4096.0
        );
        assert_eq!(round_to_dtype(1e20, DType::I32), 1661992960.0);
        assert_eq!(round_to_dtype(-0.5, DType::Bool), 1.0);
        assert_eq!(round_to_dtype(0.0, DType::Bool), 0.0);
        assert_eq!(
            wrap_i64(i64::from(i32::MAX) + 1, DType::I32),
            i32::MIN as f64
        );
        assert_eq!(wrap_i64(300, DType::U8), 44.0);
    }

    #[test]
    fn casts_truncate_saturate_and_round() {
        assert_eq!(cast_value(3.7, DType::F32, DType::I32), 3.0);
        assert_eq!(cast_value(-3.7, DType::F32, DType::I32), -3.0);
        assert_eq!(cast_value(1e10, DType::F32, DType::I32), i32::MAX as f64);
        assert_eq!(cast_value(-1e10, DType::F32, DType::I8), -128.0);
        assert_eq!(cast_value(-3.7, DType::F32, DType::U8), 0.0);
        assert_eq!(cast_value(f64::NAN, DType::F32, DType::I32), 0.0);
        assert_eq!(cast_value(300.0, DType::I32, DType::U8), 44.0);
        assert_eq!(cast_value(16777217.0, DType::I32, DType::F32), 16777216.0);
        assert_eq!(cast_value(2049.0, DType::I32, DType::F16), 2048.0);
        assert_eq!(cast_value(0.1, DType::F32, DType::F16), 0.0999755859375);
        assert_eq!(cast_value(f64::NAN, DType::F32, DType::Bool), 1.0);
        assert_eq!(cast_value(-2.0, DType::I32, DType::Bool), 1.0);
        assert_eq!(cast_value(1.0, DType::Bool, DType::F16), 1.0);
    }

    #[test]
    fn construction_and_indexing() {
        let mut t = Tensor::new(DType::I32, vec![2, 3], (0..6).map(f64::from).collect()).unwrap();
        assert_eq!(t.num_elements(), 6);
        assert_eq!(t.strides(), vec![3, 1]);
        assert_eq!(t.get(&[1, 2]), Some(5.0));
        assert_eq!(t.get(&[2, 0]), None);
        assert_eq!(t.get(&[0]), None);
        assert!(t.set(&[0, 1], 2.9));
        assert_eq!(t.get(&[0, 1]), Some(2.0));
        assert!(matches!(
            Tensor::new(DType::F32, vec![2, 2], vec![1.0]),
            Err(TensorError::Length {
                expected: 4,
                got: 1,
                ..
            })
        ));
        let s = Tensor::scalar(DType::F16, 1.0 / 3.0);
        assert_eq!(s.rank(), 0);
        assert_eq!(s.get(&[]), Some(0.333251953125));
        assert_eq!(
            Tensor::zeros(DType::U8, vec![0, 4]).unwrap().num_elements(),
            0
        );
    }

    #[test]
    fn random_data_is_deterministic_and_in_range() {
        let a = Tensor::random(DType::F32, vec![64], 7).unwrap();
        let b = Tensor::random(DType::F32, vec![64], 7).unwrap();
        let c = Tensor::random(DType::F32, vec![64], 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.data.iter().all(|&v| (-2.0..2.0).contains(&v)));
        let h = Tensor::random(DType::F16, vec![256], 1).unwrap();
        assert!(h.data.iter().all(|&v| v == round_to_dtype(v, DType::F16)));
        let i = Tensor::random(DType::I8, vec![256], 3).unwrap();
        assert!(i
            .data
            .iter()
            .all(|&v| (-8.0..8.0).contains(&v) && v.fract() == 0.0));
        assert!(i.data.contains(&-8.0) && i.data.contains(&7.0));
        let u = Tensor::random(DType::U8, vec![256], 3).unwrap();
        assert!(u.data.iter().all(|&v| (0.0..16.0).contains(&v)));
        let p = Tensor::random(DType::Bool, vec![256], 3).unwrap();
        assert!(p.data.contains(&0.0) && p.data.contains(&1.0));
        assert!(p.data.iter().all(|&v| v == 0.0 || v == 1.0));
        // SplitMix64 reference: the first output for seed 0 (from the published algorithm).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn npy_round_trips_every_dtype() {
        for (i, dtype) in DType::ALL.into_iter().enumerate() {
            let t = Tensor::random(dtype, vec![3, 2, 5], i as u64).unwrap();
            let bytes = t.to_npy();
            // The data starts on a 64-byte boundary, as NumPy writes it.
            let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!((10 + header_len) % 64, 0, "{dtype}");
            let width = if dtype == DType::BF16 {
                4
            } else {
                dtype.bytes()
            };
            assert_eq!(bytes.len(), 10 + header_len + 30 * width, "{dtype}");
            let back = Tensor::from_npy_as(&bytes, dtype).unwrap();
            assert_eq!(back, t, "{dtype}");
            if dtype != DType::BF16 {
                assert_eq!(Tensor::from_npy(&bytes).unwrap(), t, "{dtype}");
            }
        }
        let scalar = Tensor::scalar(DType::I64, -5.0);
        assert_eq!(Tensor::from_npy(&scalar.to_npy()).unwrap(), scalar);
        let empty = Tensor::zeros(DType::F16, vec![0, 3]).unwrap();
        assert_eq!(Tensor::from_npy(&empty.to_npy()).unwrap(), empty);
    }

    #[test]
    fn npy_reads_numpy_bytes() {
        // np.save of np.array([[1, -2, 3]], dtype=np.int16), byte for byte.
        let mut bytes = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        let mut header = "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 3), }".to_string();
        while header.len() < 0x75 {
            header.push(' ');
        }
        header.push('\n');
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[1, 0, 0xfe, 0xff, 3, 0]);
        let t = Tensor::from_npy(&bytes).unwrap();
        assert_eq!(t.dtype, DType::I16);
        assert_eq!(t.shape, vec![1, 3]);
        assert_eq!(t.data, vec![1.0, -2.0, 3.0]);
        assert_eq!(t.to_npy(), bytes);
    }

    #[test]
    fn npy_rejects_what_it_cannot_read() {
        let t = Tensor::new(DType::F32, vec![2], vec![1.0, 2.0]).unwrap();
        let bytes = t.to_npy();
        assert!(Tensor::from_npy(&bytes[..bytes.len() - 1]).is_err());
        assert!(Tensor::from_npy(b"NUMPY").is_err());
        assert!(Tensor::from_npy_as(&bytes, DType::F16).is_err());
        let swap = |from: &str, to: &str| {
            let text = String::from_utf8_lossy(&bytes).replace(from, to);
            Tensor::from_npy(text.as_bytes()).map(|_| ())
        };
        assert!(swap("<f4", ">f4").is_err());
        assert!(swap("<f4", "<f8").is_err());
        assert!(swap("False", "True ").is_err());
    }

    #[test]
    fn bf16_travels_as_f32_npy() {
        let t = Tensor::new(DType::BF16, vec![2], vec![1.00390625, 3.0]).unwrap();
        let bytes = t.to_npy();
        assert!(String::from_utf8_lossy(&bytes).contains("'<f4'"));
        let as_f32 = Tensor::from_npy(&bytes).unwrap();
        assert_eq!(as_f32.dtype, DType::F32);
        assert_eq!(as_f32.data, vec![1.0, 3.0]);
        let back = Tensor::from_npy_as(&bytes, DType::BF16).unwrap();
        assert_eq!(back, t);
        // f32 data that is not bf16-exact is rounded on the way in.
        let f = Tensor::new(DType::F32, vec![1], vec![1.01171875]).unwrap();
        assert_eq!(
            Tensor::from_npy_as(&f.to_npy(), DType::BF16).unwrap().data,
            vec![1.015625]
        );
    }

    #[test]
    fn npy_files_round_trip() {
        let dir = std::env::temp_dir().join(format!("autofuse-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.npy");
        let t = Tensor::random(DType::F16, vec![4, 4], 11).unwrap();
        t.write_npy(&path).unwrap();
        assert_eq!(Tensor::read_npy(&path).unwrap(), t);
        assert_eq!(Tensor::read_npy_as(&path, DType::F16).unwrap(), t);
        assert!(matches!(
            Tensor::read_npy(dir.join("missing.npy")),
            Err(TensorError::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn allclose_follows_numpy() {
        let a = Tensor::new(DType::F32, vec![3], vec![1.0, f64::NAN, f64::INFINITY]).unwrap();
        let b = Tensor::new(DType::F32, vec![3], vec![1.000001, f64::NAN, f64::INFINITY]).unwrap();
        assert!(a.allclose(&b, 1e-5, 0.0));
        assert!(!a.allclose(&b, 1e-8, 0.0));
        let c = Tensor::new(DType::F32, vec![3], vec![1.0, f64::NAN, f64::NEG_INFINITY]).unwrap();
        assert!(!a.allclose(&c, 1.0, 1.0));
    }
}
