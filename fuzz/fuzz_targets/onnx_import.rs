//! Fuzz target: the ONNX importer, structure-aware. Inputs are serialized `ModelProto`s;
//! the custom mutator decodes one, edits the decoded model (operator types, input and
//! output names, attributes, dims, element types, initializer data and shapes; drops,
//! duplicates and reorders nodes), and encodes it again, so that mutants get past
//! protobuf decoding into the importer. Inputs that do not decode are mutated as bytes.
//! Any model may be rejected with an error; none may panic (also inside a converter,
//! where the importer turns the panic into an error), abort or hang.
#![no_main]

use autofuse::onnx::proto::{
    AttributeProto, DimValue, Dimension, ModelProto, NodeProto, TensorProto, TypeValue,
    ValueInfoProto,
};
use autofuse::onnx::{import_bytes, ops::FAMILIES, UNCHECKED_DEFECT};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use prost::Message;

fuzz_target!(|data: &[u8]| {
    match import_bytes(data, None) {
        Ok(imported) => {
            let _ = imported.summary.render();
        }
        // The importer turns a converter's panic into this error so that users see a
        // located diagnostic; for the fuzzer it is still a defect to find.
        Err(error) => assert!(!error.0.contains(UNCHECKED_DEFECT), "{error}"),
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = Rng(u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Mostly structural edits; sometimes plain byte mutation, which also reaches the
    // protobuf decoder's error paths.
    if rng.below(16) != 0 {
        if let Ok(mut model) = ModelProto::decode(&data[..size]) {
            for _ in 0..1 + rng.below(3) {
                mutate(&mut model, &mut rng);
            }
            let encoded = model.encode_to_vec();
            if encoded.len() <= max_size {
                data[..encoded.len()].copy_from_slice(&encoded);
                return encoded.len();
            }
        }
    }
    fuzzer_mutate(data, size, max_size)
});

/// xorshift64*, seeded by libFuzzer (so that mutations replay).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
    fn int(&mut self) -> i64 {
        const INTERESTING: &[i64] = &[
            0,
            1,
            -1,
            2,
            3,
            4,
            -2,
            7,
            8,
            16,
            64,
            255,
            256,
            65535,
            65536,
            1 << 31,
            -(1 << 31),
            (1 << 31) - 1,
            1 << 32,
            1 << 40,
            1 << 62,
            i64::MAX,
            i64::MIN,
        ];
        match self.below(4) {
            0 => self.next() as i64,
            1 => self.below(10) as i64 - 3,
            _ => *self.pick(INTERESTING).unwrap_or(&0),
        }
    }
    fn float(&mut self) -> f32 {
        const INTERESTING: &[f32] = &[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e-5,
            1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::MAX,
        ];
        match self.below(3) {
            0 => f32::from_bits(self.next() as u32),
            _ => *self.pick(INTERESTING).unwrap_or(&0.0),
        }
    }
}

/// Attribute names the importer reads.
const ATTRIBUTE_NAMES: &[&str] = &[
    "axis",
    "axes",
    "alpha",
    "beta",
    "value",
    "starts",
    "ends",
    "steps",
    "mode",
    "pads",
    "perm",
    "epsilon",
    "keepdims",
    "split",
    "to",
    "transA",
    "transB",
    "num_outputs",
    "start",
    "end",
    "delta",
    "value_int",
    "value_ints",
    "value_float",
    "value_floats",
    "batch_dims",
    "approximate",
    "noop_with_empty_axes",
    "stash_type",
    "exclusive",
    "reverse",
    "upper",
    "k",
    "blocksize",
    "dtype",
    "min",
    "max",
    "lambd",
    "gamma",
    "num_groups",
    "p",
    "bias",
];

/// ONNX element types (`TensorProto.DataType`), valid and not.
const ELEMENT_TYPES: &[i32] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 23, 99, -1,
];

fn op_types() -> Vec<&'static str> {
    let mut ops: Vec<&str> = FAMILIES
        .iter()
        .flat_map(|(_, ops)| ops.iter().copied())
        .collect();
    ops.extend(["Constant", "Shape", "Identity", "Loop", "If", "Unknown"]);
    ops
}

/// Every value name of the graph (inputs, outputs, initializers, node outputs).
fn value_names(model: &ModelProto) -> Vec<String> {
    let Some(graph) = &model.graph else {
        return Vec::new();
    };
    let mut names: Vec<String> = graph.input.iter().map(|v| v.name.clone()).collect();
    names.extend(graph.output.iter().map(|v| v.name.clone()));
    names.extend(graph.initializer.iter().map(|t| t.name.clone()));
    names.extend(graph.node.iter().flat_map(|n| n.output.iter().cloned()));
    names
}

fn random_name(rng: &mut Rng, names: &[String]) -> String {
    match rng.below(8) {
        0 => String::new(),
        1 => format!("fuzz{}", rng.below(4)),
        _ => rng.pick(names).cloned().unwrap_or_default(),
    }
}

/// One structural edit of `model`.
fn mutate(model: &mut ModelProto, rng: &mut Rng) {
    let names = value_names(model);
    let ops = op_types();
    if rng.below(40) == 0 {
        match model.opset_import.first_mut() {
            Some(opset) => opset.version = rng.below(25) as i64,
            None => model.opset_import.clear(),
        }
        return;
    }
    let graph = model.graph.get_or_insert_with(Default::default);
    let nodes = graph.node.len();
    match rng.below(14) {
        0 => {
            if let Some(node) = nth_node(graph, rng) {
                node.op_type = rng.pick(&ops).copied().unwrap_or("Add").to_string();
            }
        }
        1 => {
            let name = random_name(rng, &names);
            if let Some(node) = nth_node(graph, rng) {
                edit_names(&mut node.input, name, rng);
            }
        }
        2 => {
            let name = random_name(rng, &names);
            if let Some(node) = nth_node(graph, rng) {
                edit_names(&mut node.output, name, rng);
            }
        }
        3 if nodes > 0 => {
            graph.node.remove(rng.below(nodes));
        }
        4 if nodes > 0 => {
            let copy = graph.node[rng.below(nodes)].clone();
            graph.node.insert(rng.below(nodes + 1), copy);
        }
        5 if nodes > 1 => {
            let (a, b) = (rng.below(nodes), rng.below(nodes));
            graph.node.swap(a, b);
        }
        6 | 7 => {
            if let Some(node) = nth_node(graph, rng) {
                mutate_attributes(node, rng);
            }
        }
        8 => {
            let infos = match rng.below(3) {
                0 => &mut graph.input,
                1 => &mut graph.output,
                _ => &mut graph.value_info,
            };
            if !infos.is_empty() {
                let i = rng.below(infos.len());
                mutate_value_info(&mut infos[i], rng, &names);
            }
        }
        9 | 10 if !graph.initializer.is_empty() => {
            let i = rng.below(graph.initializer.len());
            let name = random_name(rng, &names);
            mutate_tensor(&mut graph.initializer[i], rng, name);
        }
        11 => match rng.below(6) {
            0 if !graph.input.is_empty() => {
                graph.input.remove(rng.below(graph.input.len()));
            }
            1 if !graph.output.is_empty() => {
                graph.output.remove(rng.below(graph.output.len()));
            }
            2 if !graph.initializer.is_empty() => {
                graph.initializer.remove(rng.below(graph.initializer.len()));
            }
            3 if !graph.input.is_empty() => {
                let copy = graph.input[rng.below(graph.input.len())].clone();
                graph.input.push(copy);
            }
            4 if !graph.initializer.is_empty() => {
                let copy = graph.initializer[rng.below(graph.initializer.len())].clone();
                graph.initializer.push(copy);
            }
            _ => {
                let name = random_name(rng, &names);
                graph.output.push(ValueInfoProto {
                    name,
                    ..Default::default()
                });
            }
        },
        12 if nodes > 1 => {
            // An attribute of one node copied onto another.
            let from = rng.below(nodes);
            if let Some(attr) = rng.pick(&graph.node[from].attribute).cloned() {
                let to = rng.below(nodes);
                graph.node[to].attribute.push(attr);
            }
        }
        _ => {
            // A new node over existing values.
            let op = rng.pick(&ops).copied().unwrap_or("Add").to_string();
            let input = (0..rng.below(4))
                .map(|_| random_name(rng, &names))
                .collect();
            let output = vec![format!("fuzz_out{}", rng.below(8))];
            graph.node.insert(
                rng.below(nodes + 1),
                NodeProto {
                    input,
                    output,
                    op_type: op,
                    ..Default::default()
                },
            );
        }
    }
}

fn nth_node<'g>(
    graph: &'g mut autofuse::onnx::proto::GraphProto,
    rng: &mut Rng,
) -> Option<&'g mut NodeProto> {
    if graph.node.is_empty() {
        None
    } else {
        let i = rng.below(graph.node.len());
        graph.node.get_mut(i)
    }
}

fn edit_names(list: &mut Vec<String>, name: String, rng: &mut Rng) {
    match rng.below(4) {
        0 => list.push(name),
        1 if !list.is_empty() => {
            list.remove(rng.below(list.len()));
        }
        _ if !list.is_empty() => {
            let i = rng.below(list.len());
            list[i] = name;
        }
        _ => list.push(name),
    }
}

fn mutate_attributes(node: &mut NodeProto, rng: &mut Rng) {
    if node.attribute.is_empty() || rng.below(4) == 0 {
        let name = rng
            .pick(ATTRIBUTE_NAMES)
            .copied()
            .unwrap_or("axis")
            .to_string();
        let mut attr = AttributeProto {
            name,
            ..Default::default()
        };
        set_attribute_value(&mut attr, rng);
        node.attribute.push(attr);
        return;
    }
    let i = rng.below(node.attribute.len());
    match rng.below(6) {
        0 => {
            node.attribute.remove(i);
        }
        1 => {
            node.attribute[i].name = rng.pick(ATTRIBUTE_NAMES).copied().unwrap_or("axis").into();
        }
        2 => {
            let name = format!("fuzz{}", rng.below(4));
            if let Some(t) = node.attribute[i].t.as_mut() {
                mutate_tensor(t, rng, name);
            } else {
                set_attribute_value(&mut node.attribute[i], rng);
            }
        }
        _ => set_attribute_value(&mut node.attribute[i], rng),
    }
}

/// Gives `attr` a value of a random kind (`type` usually matching it, sometimes not).
fn set_attribute_value(attr: &mut AttributeProto, rng: &mut Rng) {
    // AttributeType: FLOAT 1, INT 2, STRING 3, TENSOR 4, GRAPH 5, FLOATS 6, INTS 7, STRINGS 8.
    let kind = rng.below(6);
    match kind {
        0 => {
            attr.r#type = 1;
            attr.f = rng.float();
        }
        1 => {
            attr.r#type = 2;
            attr.i = rng.int();
        }
        2 => {
            attr.r#type = 7;
            let n = rng.below(6);
            attr.ints = (0..n).map(|_| rng.int()).collect();
        }
        3 => {
            attr.r#type = 6;
            let n = rng.below(6);
            attr.floats = (0..n).map(|_| rng.float()).collect();
        }
        4 => {
            attr.r#type = 3;
            const STRINGS: &[&str] = &[
                "", "linear", "nearest", "constant", "reflect", "tanh", "none", "x",
            ];
            attr.s = rng.pick(STRINGS).copied().unwrap_or("").as_bytes().to_vec();
        }
        _ => {
            attr.r#type = 4;
            let mut t = attr.t.take().unwrap_or_default();
            mutate_tensor(&mut t, rng, String::new());
            attr.t = Some(t);
        }
    }
    if rng.below(10) == 0 {
        attr.r#type = rng.below(12) as i32;
    }
}

fn mutate_value_info(info: &mut ValueInfoProto, rng: &mut Rng, names: &[String]) {
    if rng.below(6) == 0 {
        info.name = random_name(rng, names);
        return;
    }
    let ty = info.r#type.get_or_insert_with(Default::default);
    let tensor = match &mut ty.value {
        Some(TypeValue::TensorType(t)) => t,
        _ => {
            ty.value = Some(TypeValue::TensorType(Default::default()));
            return;
        }
    };
    if rng.below(5) == 0 {
        tensor.elem_type = rng.pick(ELEMENT_TYPES).copied().unwrap_or(1);
        return;
    }
    if rng.below(8) == 0 {
        tensor.shape = None;
        return;
    }
    let shape = tensor.shape.get_or_insert_with(Default::default);
    let dim = Dimension {
        value: match rng.below(3) {
            0 => Some(DimValue::DimParam(format!("s{}", rng.below(3)))),
            1 => None,
            _ => Some(DimValue::DimValue(rng.int())),
        },
        ..Default::default()
    };
    match rng.below(3) {
        0 => shape.dim.push(dim),
        1 if !shape.dim.is_empty() => {
            shape.dim.pop();
        }
        _ if !shape.dim.is_empty() => {
            let i = rng.below(shape.dim.len());
            shape.dim[i] = dim;
        }
        _ => shape.dim.push(dim),
    }
}

fn mutate_tensor(t: &mut TensorProto, rng: &mut Rng, name: String) {
    match rng.below(8) {
        0 => t.data_type = rng.pick(ELEMENT_TYPES).copied().unwrap_or(1),
        1 => match rng.below(3) {
            0 => t.dims.push(rng.int()),
            1 => {
                t.dims.pop();
            }
            _ if !t.dims.is_empty() => {
                let i = rng.below(t.dims.len());
                t.dims[i] = rng.int();
            }
            _ => t.dims.clear(),
        },
        2 => {
            // The raw data mutated as bytes (shorter, longer, other values).
            let mut raw = t.raw_data.to_vec();
            let len = raw.len();
            let max = len + 64;
            raw.resize(max, 0);
            let n = fuzzer_mutate(&mut raw, len, max);
            raw.truncate(n);
            t.raw_data = raw.into();
        }
        3 => {
            // The data moved between raw_data and the typed fields.
            if !t.raw_data.is_empty() {
                t.int64_data = t.raw_data.chunks(8).map(|c| c.len() as i64).collect();
                t.raw_data = Default::default();
            } else {
                t.float_data.push(rng.float());
                t.int32_data.push(rng.int() as i32);
            }
        }
        4 => t.name = name,
        5 => {
            let len = t.raw_data.len();
            if len > 0 {
                t.raw_data = t.raw_data.slice(..rng.below(len));
            }
        }
        6 => t.int64_data.push(rng.int()),
        _ => {
            t.dims = (0..rng.below(4)).map(|_| rng.below(5) as i64).collect();
        }
    }
}
