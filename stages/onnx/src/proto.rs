//! The ONNX protobuf messages the importer reads, declared by hand for `prost`.
//!
//! Field numbers follow `onnx/onnx.proto` (proto2; the numbers are the wire format, so
//! the names here are free). Only what the importer needs is declared with its real
//! type; fields it never reads are left out (protobuf decoders skip unknown fields) or
//! kept as raw bytes when the importer must know they are present (non-tensor types,
//! sparse initializers). No `protoc` is involved: `prost`'s derive macros generate the
//! decoders. Repeated numeric fields accept both packed and unpacked encodings, as
//! protobuf requires (ONNX writes `float_data` packed and `AttributeProto.floats`
//! unpacked).

// The derive macros generate the docs-free items; the field comments carry the tags.
#![allow(clippy::derive_partial_eq_without_eq)]

/// `message ModelProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// `int64 ir_version = 1`
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// `repeated OperatorSetIdProto opset_import = 8`
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// `string producer_name = 2`
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// `string producer_version = 3`
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// `string domain = 4`
    #[prost(string, tag = "4")]
    pub domain: String,
    /// `int64 model_version = 5`
    #[prost(int64, tag = "5")]
    pub model_version: i64,
    /// `string doc_string = 6`
    #[prost(string, tag = "6")]
    pub doc_string: String,
    /// `GraphProto graph = 7`
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// `repeated StringStringEntryProto metadata_props = 14`
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
    /// `repeated FunctionProto functions = 25` (model-local functions; only their
    /// names are read, to say that calls of them stay boundary ops).
    #[prost(message, repeated, tag = "25")]
    pub functions: Vec<FunctionProto>,
}

/// `message OperatorSetIdProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// `string domain = 1` ("" and "ai.onnx" are the default domain)
    #[prost(string, tag = "1")]
    pub domain: String,
    /// `int64 version = 2`
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `message StringStringEntryProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// `string key = 1`
    #[prost(string, tag = "1")]
    pub key: String,
    /// `string value = 2`
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `message FunctionProto` (only its identity).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionProto {
    /// `string name = 1`
    #[prost(string, tag = "1")]
    pub name: String,
    /// `string domain = 10`
    #[prost(string, tag = "10")]
    pub domain: String,
}

/// `message GraphProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// `repeated NodeProto node = 1`
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// `string name = 2`
    #[prost(string, tag = "2")]
    pub name: String,
    /// `repeated TensorProto initializer = 5`
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// `repeated SparseTensorProto sparse_initializer = 15` (kept raw: refused)
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub sparse_initializer: Vec<Vec<u8>>,
    /// `string doc_string = 10`
    #[prost(string, tag = "10")]
    pub doc_string: String,
    /// `repeated ValueInfoProto input = 11`
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// `repeated ValueInfoProto output = 12`
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
    /// `repeated ValueInfoProto value_info = 13`
    #[prost(message, repeated, tag = "13")]
    pub value_info: Vec<ValueInfoProto>,
}

/// `message NodeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// `repeated string input = 1` ("" marks an absent optional input)
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// `repeated string output = 2`
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// `string name = 3`
    #[prost(string, tag = "3")]
    pub name: String,
    /// `string op_type = 4`
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// `string domain = 7`
    #[prost(string, tag = "7")]
    pub domain: String,
    /// `string overload = 8`
    #[prost(string, tag = "8")]
    pub overload: String,
    /// `repeated AttributeProto attribute = 5`
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// `string doc_string = 6`
    #[prost(string, tag = "6")]
    pub doc_string: String,
}

/// `enum AttributeProto.AttributeType`.
pub mod attribute_type {
    pub const UNDEFINED: i32 = 0;
    pub const FLOAT: i32 = 1;
    pub const INT: i32 = 2;
    pub const STRING: i32 = 3;
    pub const TENSOR: i32 = 4;
    pub const GRAPH: i32 = 5;
    pub const FLOATS: i32 = 6;
    pub const INTS: i32 = 7;
    pub const STRINGS: i32 = 8;
    pub const TENSORS: i32 = 9;
    pub const GRAPHS: i32 = 10;
    pub const SPARSE_TENSOR: i32 = 11;
    pub const SPARSE_TENSORS: i32 = 12;
    pub const TYPE_PROTO: i32 = 13;
    pub const TYPE_PROTOS: i32 = 14;
}

/// `message AttributeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// `string name = 1`
    #[prost(string, tag = "1")]
    pub name: String,
    /// `string ref_attr_name = 21` (only inside functions)
    #[prost(string, tag = "21")]
    pub ref_attr_name: String,
    /// `string doc_string = 13`
    #[prost(string, tag = "13")]
    pub doc_string: String,
    /// `AttributeType type = 20`
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    /// `float f = 2`
    #[prost(float, tag = "2")]
    pub f: f32,
    /// `int64 i = 3`
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// `bytes s = 4`
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// `TensorProto t = 5`
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    /// `GraphProto g = 6` (subgraphs of If/Loop/Scan; boxed: the message recurses)
    #[prost(message, optional, boxed, tag = "6")]
    pub g: Option<Box<GraphProto>>,
    /// `SparseTensorProto sparse_tensor = 22` (kept raw)
    #[prost(bytes = "vec", tag = "22")]
    pub sparse_tensor: Vec<u8>,
    /// `TypeProto tp = 14`
    #[prost(message, optional, tag = "14")]
    pub tp: Option<TypeProto>,
    /// `repeated float floats = 7`
    #[prost(float, repeated, tag = "7")]
    pub floats: Vec<f32>,
    /// `repeated int64 ints = 8`
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// `repeated bytes strings = 9`
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
    /// `repeated TensorProto tensors = 10`
    #[prost(message, repeated, tag = "10")]
    pub tensors: Vec<TensorProto>,
    /// `repeated GraphProto graphs = 11`
    #[prost(message, repeated, tag = "11")]
    pub graphs: Vec<GraphProto>,
}

/// `message ValueInfoProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// `string name = 1`
    #[prost(string, tag = "1")]
    pub name: String,
    /// `TypeProto type = 2`
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    /// `string doc_string = 3`
    #[prost(string, tag = "3")]
    pub doc_string: String,
}

/// `message TypeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// `oneof value`
    #[prost(oneof = "TypeValue", tags = "1, 4, 5, 7, 8, 9")]
    pub value: Option<TypeValue>,
    /// `string denotation = 6`
    #[prost(string, tag = "6")]
    pub denotation: String,
}

/// `TypeProto.value`: tensors are read; the other kinds are kept raw so that the
/// importer can name them in its error.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum TypeValue {
    /// `Tensor tensor_type = 1`
    #[prost(message, tag = "1")]
    TensorType(TypeTensor),
    /// `Sequence sequence_type = 4`
    #[prost(bytes, tag = "4")]
    SequenceType(Vec<u8>),
    /// `Map map_type = 5`
    #[prost(bytes, tag = "5")]
    MapType(Vec<u8>),
    /// `Opaque opaque_type = 7`
    #[prost(bytes, tag = "7")]
    OpaqueType(Vec<u8>),
    /// `SparseTensor sparse_tensor_type = 8`
    #[prost(bytes, tag = "8")]
    SparseTensorType(Vec<u8>),
    /// `Optional optional_type = 9`
    #[prost(bytes, tag = "9")]
    OptionalType(Vec<u8>),
}

/// `message TypeProto.Tensor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeTensor {
    /// `int32 elem_type = 1` (a `TensorProto.DataType`)
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// `TensorShapeProto shape = 2` (absent: the rank is unknown)
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `message TensorShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// `repeated Dimension dim = 1`
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `message TensorShapeProto.Dimension`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// `oneof value`
    #[prost(oneof = "DimValue", tags = "1, 2")]
    pub value: Option<DimValue>,
    /// `string denotation = 3`
    #[prost(string, tag = "3")]
    pub denotation: String,
}

/// `TensorShapeProto.Dimension.value`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum DimValue {
    /// `int64 dim_value = 1`
    #[prost(int64, tag = "1")]
    DimValue(i64),
    /// `string dim_param = 2`
    #[prost(string, tag = "2")]
    DimParam(String),
}

/// `enum TensorProto.DataType`.
pub mod data_type {
    pub const UNDEFINED: i32 = 0;
    pub const FLOAT: i32 = 1;
    pub const UINT8: i32 = 2;
    pub const INT8: i32 = 3;
    pub const UINT16: i32 = 4;
    pub const INT16: i32 = 5;
    pub const INT32: i32 = 6;
    pub const INT64: i32 = 7;
    pub const STRING: i32 = 8;
    pub const BOOL: i32 = 9;
    pub const FLOAT16: i32 = 10;
    pub const DOUBLE: i32 = 11;
    pub const UINT32: i32 = 12;
    pub const UINT64: i32 = 13;
    pub const COMPLEX64: i32 = 14;
    pub const COMPLEX128: i32 = 15;
    pub const BFLOAT16: i32 = 16;
    pub const FLOAT8E4M3FN: i32 = 17;
    pub const FLOAT8E4M3FNUZ: i32 = 18;
    pub const FLOAT8E5M2: i32 = 19;
    pub const FLOAT8E5M2FNUZ: i32 = 20;
    pub const UINT4: i32 = 21;
    pub const INT4: i32 = 22;
    pub const FLOAT4E2M1: i32 = 23;
    pub const FLOAT8E8M0: i32 = 24;
    pub const UINT2: i32 = 25;
    pub const INT2: i32 = 26;

    /// The spec's name of a data type, for messages.
    pub fn name(code: i32) -> String {
        let known = [
            "UNDEFINED",
            "FLOAT",
            "UINT8",
            "INT8",
            "UINT16",
            "INT16",
            "INT32",
            "INT64",
            "STRING",
            "BOOL",
            "FLOAT16",
            "DOUBLE",
            "UINT32",
            "UINT64",
            "COMPLEX64",
            "COMPLEX128",
            "BFLOAT16",
            "FLOAT8E4M3FN",
            "FLOAT8E4M3FNUZ",
            "FLOAT8E5M2",
            "FLOAT8E5M2FNUZ",
            "UINT4",
            "INT4",
            "FLOAT4E2M1",
            "FLOAT8E8M0",
            "UINT2",
            "INT2",
        ];
        usize::try_from(code)
            .ok()
            .and_then(|i| known.get(i))
            .map_or_else(
                || format!("{code} (not an ONNX data type)"),
                |n| n.to_string(),
            )
    }
}

/// `message TensorProto.Segment`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Segment {
    /// `int64 begin = 1`
    #[prost(int64, tag = "1")]
    pub begin: i64,
    /// `int64 end = 2`
    #[prost(int64, tag = "2")]
    pub end: i64,
}

/// `enum TensorProto.DataLocation`: `DEFAULT = 0`, `EXTERNAL = 1`.
pub const DATA_LOCATION_EXTERNAL: i32 = 1;

/// `message TensorProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// `repeated int64 dims = 1`
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// `int32 data_type = 2`
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// `Segment segment = 3` (split tensors; refused)
    #[prost(message, optional, tag = "3")]
    pub segment: Option<Segment>,
    /// `repeated float float_data = 4 [packed = true]` (FLOAT, COMPLEX64)
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// `repeated int32 int32_data = 5 [packed = true]` (INT32, INT16, INT8, UINT16,
    /// UINT8, BOOL, FLOAT16 and BFLOAT16 as bit patterns, FLOAT8*)
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// `repeated bytes string_data = 6`
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_data: Vec<Vec<u8>>,
    /// `repeated int64 int64_data = 7 [packed = true]` (INT64)
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// `string name = 8`
    #[prost(string, tag = "8")]
    pub name: String,
    /// `string doc_string = 12`
    #[prost(string, tag = "12")]
    pub doc_string: String,
    /// `bytes raw_data = 9` (little-endian, fixed width)
    #[prost(bytes = "bytes", tag = "9")]
    pub raw_data: bytes::Bytes,
    /// `repeated StringStringEntryProto external_data = 13` (`location`, `offset`,
    /// `length`, `checksum`)
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// `DataLocation data_location = 14`
    #[prost(int32, tag = "14")]
    pub data_location: i32,
    /// `repeated double double_data = 10 [packed = true]` (DOUBLE, COMPLEX128)
    #[prost(double, repeated, tag = "10")]
    pub double_data: Vec<f64>,
    /// `repeated uint64 uint64_data = 11 [packed = true]` (UINT32, UINT64)
    #[prost(uint64, repeated, tag = "11")]
    pub uint64_data: Vec<u64>,
}
