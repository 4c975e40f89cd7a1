//! ONNX element types and tensor payloads: mapping `TensorProto.DataType` codes to the
//! compiler's dtypes, and decoding initializers and constant attributes (typed fields,
//! `raw_data`, or external data files next to the model) into values.
//!
//! Every length and offset is checked against what is actually present before anything
//! is allocated, so a hostile file cannot make the importer allocate what the dims
//! claim, read outside a data file, or panic.

use super::proto::{data_type as dt, TensorProto, DATA_LOCATION_EXTERNAL};
use autofuse_ir::graph::DType;
use std::path::{Path, PathBuf};

/// The compiler dtype of an ONNX element type code, or the reason it has none.
pub fn dtype_of(code: i32) -> Result<DType, String> {
    Ok(match code {
        dt::FLOAT => DType::F32,
        dt::FLOAT16 => DType::F16,
        dt::BFLOAT16 => DType::BF16,
        dt::INT64 => DType::I64,
        dt::INT32 => DType::I32,
        dt::INT16 => DType::I16,
        dt::INT8 => DType::I8,
        dt::UINT8 => DType::U8,
        dt::BOOL => DType::Bool,
        other => {
            return Err(format!(
                "unsupported element type {} (supported: FLOAT, FLOAT16, BFLOAT16, INT64, INT32, \
                 INT16, INT8, UINT8, BOOL)",
                dt::name(other)
            ))
        }
    })
}

/// The ONNX element type code of a dtype (for `CastLike` and tests).
pub fn code_of(dtype: DType) -> i32 {
    match dtype {
        DType::F32 => dt::FLOAT,
        DType::F16 => dt::FLOAT16,
        DType::BF16 => dt::BFLOAT16,
        DType::I64 => dt::INT64,
        DType::I32 => dt::INT32,
        DType::I16 => dt::INT16,
        DType::I8 => dt::INT8,
        DType::U8 => dt::UINT8,
        DType::Bool => dt::BOOL,
    }
}

/// Tensor values in row-major order: floats for float dtypes, integers (bool as 0/1)
/// for the others, so that 64-bit integers stay exact.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::F(v) => v.len(),
            Values::I(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every value as an integer (floats truncate), e.g. for shape inputs.
    /// The one element of a scalar (or one-element) value, `None` for any other count.
    pub fn scalar_f64(&self) -> Option<f64> {
        match self {
            Values::F(v) if v.len() == 1 => v.first().copied(),
            Values::I(v) if v.len() == 1 => v.first().map(|&x| x as f64),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Vec<i64> {
        match self {
            Values::F(v) => v.iter().map(|&x| x as i64).collect(),
            Values::I(v) => v.clone(),
        }
    }

    pub fn as_f64(&self) -> Vec<f64> {
        match self {
            Values::F(v) => v.clone(),
            Values::I(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }

    /// Values of `dtype` from interpreter data (f64 for every dtype).
    pub fn from_f64(dtype: DType, data: &[f64]) -> Values {
        if dtype.is_float() {
            Values::F(data.to_vec())
        } else {
            Values::I(data.iter().map(|&x| x as i64).collect())
        }
    }
}

/// A decoded tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorData {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub values: Values,
}

/// The element count of `dims`, refusing negative dims and overflow.
pub fn element_count(dims: &[i64]) -> Result<usize, String> {
    dims.iter().try_fold(1usize, |acc, &d| {
        let d = usize::try_from(d).map_err(|_| format!("negative dim {d}"))?;
        acc.checked_mul(d)
            .ok_or_else(|| format!("dims {dims:?} have too many elements"))
    })
}

/// Decodes `tensor`; `base_dir` is the model's directory (for external data).
pub fn decode_tensor(tensor: &TensorProto, base_dir: Option<&Path>) -> Result<TensorData, String> {
    let dtype = dtype_of(tensor.data_type)?;
    let count = element_count(&tensor.dims)?;
    let dims: Vec<usize> = tensor.dims.iter().map(|&d| d as usize).collect();
    if tensor.segment.is_some() {
        return Err("segmented tensors are not supported".into());
    }
    let values = if tensor.data_location == DATA_LOCATION_EXTERNAL {
        let bytes = read_external(tensor, base_dir, count * dtype.bytes())?;
        decode_raw(dtype, &bytes, count)?
    } else if !tensor.raw_data.is_empty() {
        decode_raw(dtype, &tensor.raw_data, count)?
    } else {
        decode_typed(tensor, dtype, count)?
    };
    Ok(TensorData {
        dtype,
        dims,
        values,
    })
}

/// Reads the bytes of an external-data tensor (see [`external_range`]).
fn read_external(
    tensor: &TensorProto,
    base_dir: Option<&Path>,
    expected: usize,
) -> Result<Vec<u8>, String> {
    let (path, offset) = external_range(tensor, base_dir, expected)?;
    let (map, range) = autofuse_ir::weights::byte_range(&path, offset, expected)?;
    Ok(map[range].to_vec())
}

/// The file and byte offset of an external-data tensor of `expected` bytes, checked
/// against the file: `location` is relative to the model's directory and may not leave
/// it; `offset` and `length` are optional.
pub fn external_range(
    tensor: &TensorProto,
    base_dir: Option<&Path>,
    expected: usize,
) -> Result<(PathBuf, u64), String> {
    let key = |k: &str| {
        tensor
            .external_data
            .iter()
            .rev()
            .find(|e| e.key == k)
            .map(|e| e.value.as_str())
    };
    let location = key("location").ok_or("external data without a 'location'")?;
    let number = |k: &str| -> Result<Option<u64>, String> {
        key(k)
            .map(|v| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("external data '{k}' is not a number: '{v}'"))
            })
            .transpose()
    };
    let offset = number("offset")?.unwrap_or(0);
    let length = number("length")?;
    let relative = Path::new(location);
    if relative.is_absolute()
        || relative
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(format!(
            "external data location '{location}' must be a relative path inside the model's directory"
        ));
    }
    let base = base_dir.ok_or_else(|| {
        format!(
            "external data '{location}' needs the model's directory (read the model from a file)"
        )
    })?;
    let path = base.join(relative);
    let size = std::fs::metadata(&path)
        .map_err(|e| format!("cannot open external data '{}': {e}", path.display()))?
        .len();
    let length = length.unwrap_or_else(|| size.saturating_sub(offset));
    if length != expected as u64 {
        return Err(format!(
            "external data '{location}' has length {length}, the tensor needs {expected} bytes"
        ));
    }
    if offset.checked_add(length).is_none_or(|end| end > size) {
        return Err(format!(
            "external data '{location}': offset {offset} + length {length} is past the end of the file ({size} bytes)"
        ));
    }
    Ok((path, offset))
}

/// Float tensors of more than this many elements are kept by reference
/// (`ascend.parameter`): folding reads only small tensors, sinking only scalars.
pub const REFERENCE_MIN_FLOAT_ELEMENTS: usize = 1024;

/// Integer and bool tensors of more than this many elements are kept by reference;
/// smaller ones stay inline, because index narrowing and the importer's shape folding
/// read their values (the bounds of gather indices, shape tables).
pub const REFERENCE_MIN_OTHER_ELEMENTS: usize = 1 << 16;

/// Whether an initializer of `count` elements of `dtype` is kept by reference.
pub fn kept_by_reference(dtype: DType, count: usize) -> bool {
    if dtype.is_float() {
        count > REFERENCE_MIN_FLOAT_ELEMENTS
    } else {
        count > REFERENCE_MIN_OTHER_ELEMENTS
    }
}

/// Decodes little-endian fixed-width data.
pub fn decode_raw(dtype: DType, bytes: &[u8], count: usize) -> Result<Values, String> {
    let width = dtype.bytes();
    if Some(bytes.len()) != count.checked_mul(width) {
        return Err(format!(
            "raw data has {} bytes, {count} {} elements need {}",
            bytes.len(),
            dtype,
            count.saturating_mul(width)
        ));
    }
    let chunks = bytes.chunks_exact(width);
    Ok(match dtype {
        DType::F32 => Values::F(
            chunks
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                .collect(),
        ),
        DType::F16 => Values::F(
            chunks
                .map(|c| f16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        DType::BF16 => Values::F(
            chunks
                .map(|c| bf16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        DType::I64 => Values::I(
            chunks
                .map(|c| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(c);
                    i64::from_le_bytes(b)
                })
                .collect(),
        ),
        DType::I32 => Values::I(
            chunks
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64)
                .collect(),
        ),
        DType::I16 => Values::I(
            chunks
                .map(|c| i16::from_le_bytes([c[0], c[1]]) as i64)
                .collect(),
        ),
        DType::I8 => Values::I(chunks.map(|c| c[0] as i8 as i64).collect()),
        DType::U8 => Values::I(chunks.map(|c| c[0] as i64).collect()),
        DType::Bool => Values::I(chunks.map(|c| i64::from(c[0] != 0)).collect()),
    })
}

/// Decodes the typed repeated fields (the field depends on the data type, see
/// `TensorProto` in onnx.proto).
fn decode_typed(tensor: &TensorProto, dtype: DType, count: usize) -> Result<Values, String> {
    let check = |field: &str, len: usize| {
        if len == count {
            Ok(())
        } else {
            Err(format!("{field} holds {len} values, the dims need {count}"))
        }
    };
    Ok(match dtype {
        DType::F32 => {
            check("float_data", tensor.float_data.len())?;
            Values::F(tensor.float_data.iter().map(|&v| v as f64).collect())
        }
        DType::I64 => {
            check("int64_data", tensor.int64_data.len())?;
            Values::I(tensor.int64_data.clone())
        }
        DType::F16 | DType::BF16 => {
            check("int32_data", tensor.int32_data.len())?;
            // Half-precision values are stored as their 16-bit patterns.
            Values::F(
                tensor
                    .int32_data
                    .iter()
                    .map(|&bits| {
                        let bits = bits as u16;
                        if dtype == DType::F16 {
                            f16_to_f64(bits)
                        } else {
                            bf16_to_f64(bits)
                        }
                    })
                    .collect(),
            )
        }
        DType::I32 | DType::I16 | DType::I8 | DType::U8 | DType::Bool => {
            check("int32_data", tensor.int32_data.len())?;
            Values::I(
                tensor
                    .int32_data
                    .iter()
                    .map(|&v| match dtype {
                        DType::I16 => v as i16 as i64,
                        DType::I8 => v as i8 as i64,
                        DType::U8 => v as u8 as i64,
                        DType::Bool => i64::from(v != 0),
                        _ => v as i64,
                    })
                    .collect(),
            )
        }
    })
}

/// The value of an IEEE half-precision bit pattern (exact in f64).
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let mant = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => mant * 2f64.powi(-24),
        31 if mant == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + mant) * 2f64.powi(exp - 25),
    }
}

/// The value of a bfloat16 bit pattern (the upper half of an f32).
pub fn bf16_to_f64(bits: u16) -> f64 {
    f32::from_bits(u32::from(bits) << 16) as f64
}

/// Little-endian bytes of values in `dtype` (for hex dense attributes). Half-precision
/// constants are written as decimal text instead, so only f32 and integers come here.
pub fn to_le_bytes(dtype: DType, values: &Values) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * dtype.bytes());
    match values {
        Values::F(v) => {
            for &x in v {
                out.extend_from_slice(&(x as f32).to_le_bytes());
            }
        }
        Values::I(v) => {
            for &x in v {
                match dtype {
                    DType::I64 => out.extend_from_slice(&x.to_le_bytes()),
                    DType::I32 => out.extend_from_slice(&(x as i32).to_le_bytes()),
                    DType::I16 => out.extend_from_slice(&(x as i16).to_le_bytes()),
                    _ => out.push(x as u8),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::StringStringEntryProto;

    fn tensor(data_type: i32, dims: &[i64]) -> TensorProto {
        TensorProto {
            data_type,
            dims: dims.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn decodes_typed_fields() {
        let mut t = tensor(dt::FLOAT, &[2]);
        t.float_data = vec![1.5, -2.0];
        assert_eq!(
            decode_tensor(&t, None).unwrap().values,
            Values::F(vec![1.5, -2.0])
        );
        let mut t = tensor(dt::FLOAT16, &[1]);
        t.int32_data = vec![0x3C00]; // 1.0 in f16
        assert_eq!(
            decode_tensor(&t, None).unwrap().values,
            Values::F(vec![1.0])
        );
        let mut t = tensor(dt::UINT8, &[2]);
        t.int32_data = vec![255, 7];
        assert_eq!(
            decode_tensor(&t, None).unwrap().values,
            Values::I(vec![255, 7])
        );
        let mut t = tensor(dt::INT64, &[1]);
        t.int64_data = vec![i64::MAX];
        assert_eq!(
            decode_tensor(&t, None).unwrap().values,
            Values::I(vec![i64::MAX])
        );
    }

    #[test]
    fn decodes_raw_data_and_checks_its_length() {
        let mut t = tensor(dt::INT32, &[2]);
        t.raw_data = [7i32.to_le_bytes(), (-1i32).to_le_bytes()].concat().into();
        assert_eq!(
            decode_tensor(&t, None).unwrap().values,
            Values::I(vec![7, -1])
        );
        t.raw_data.truncate(t.raw_data.len() - 1);
        let err = decode_tensor(&t, None).unwrap_err();
        assert!(err.contains("raw data has 7 bytes"), "{err}");
    }

    #[test]
    fn refuses_unsupported_types_and_bad_counts() {
        let t = tensor(dt::DOUBLE, &[1]);
        assert!(decode_tensor(&t, None)
            .unwrap_err()
            .contains("unsupported element type DOUBLE"));
        let t = tensor(99, &[1]);
        assert!(decode_tensor(&t, None)
            .unwrap_err()
            .contains("unsupported element type 99 (not an ONNX data type)"));
        let mut t = tensor(dt::FLOAT, &[3]);
        t.float_data = vec![1.0];
        assert!(decode_tensor(&t, None)
            .unwrap_err()
            .contains("float_data holds 1 values"));
        let t = tensor(dt::FLOAT, &[-1]);
        assert!(decode_tensor(&t, None)
            .unwrap_err()
            .contains("negative dim"));
        let t = tensor(dt::FLOAT, &[i64::MAX, i64::MAX]);
        assert!(decode_tensor(&t, None)
            .unwrap_err()
            .contains("too many elements"));
    }

    #[test]
    fn reads_external_data_within_the_model_directory() {
        let dir = std::env::temp_dir().join(format!("af-onnx-ext-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut bytes = vec![0xAAu8; 4];
        bytes.extend_from_slice(&2.5f32.to_le_bytes());
        bytes.extend_from_slice(&(-1.0f32).to_le_bytes());
        std::fs::write(dir.join("weights.bin"), &bytes).unwrap();
        let entry = |k: &str, v: &str| StringStringEntryProto {
            key: k.into(),
            value: v.into(),
        };
        let mut t = tensor(dt::FLOAT, &[2]);
        t.data_location = DATA_LOCATION_EXTERNAL;
        t.external_data = vec![
            entry("location", "weights.bin"),
            entry("offset", "4"),
            entry("length", "8"),
        ];
        assert_eq!(
            decode_tensor(&t, Some(&dir)).unwrap().values,
            Values::F(vec![2.5, -1.0])
        );
        // Past the end of the file.
        t.external_data[1] = entry("offset", "8");
        assert!(decode_tensor(&t, Some(&dir))
            .unwrap_err()
            .contains("past the end"));
        // Escaping the model directory.
        t.external_data[0] = entry("location", "../weights.bin");
        assert!(decode_tensor(&t, Some(&dir))
            .unwrap_err()
            .contains("relative path inside"));
        // A missing file.
        t.external_data[0] = entry("location", "missing.bin");
        assert!(decode_tensor(&t, Some(&dir))
            .unwrap_err()
            .contains("cannot open external data"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn half_precision_bit_patterns() {
        assert_eq!(f16_to_f64(0x3C00), 1.0);
        assert_eq!(f16_to_f64(0xC000), -2.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0x7BFF), 65504.0);
        assert_eq!(f16_to_f64(0x7C00), f64::INFINITY);
        assert!(f16_to_f64(0x7E00).is_nan());
        assert_eq!(bf16_to_f64(0x3F80), 1.0);
        assert_eq!(bf16_to_f64(0xC0A0), -5.0);
    }

    #[test]
    fn le_bytes_round_trip() {
        for (dtype, values) in [
            (DType::F32, Values::F(vec![1.0, -0.5])),
            (DType::I64, Values::I(vec![i64::MIN, 3])),
            (DType::I8, Values::I(vec![-128, 127])),
            (DType::U8, Values::I(vec![0, 255])),
            (DType::Bool, Values::I(vec![1, 0])),
        ] {
            let bytes = to_le_bytes(dtype, &values);
            assert_eq!(decode_raw(dtype, &bytes, values.len()).unwrap(), values);
        }
    }
}
