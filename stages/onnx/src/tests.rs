//! Unit tests of the ONNX importer. Models are built in Rust with the prost messages,
//! encoded and imported from bytes (so the decoder is exercised too); the MLIR is
//! parsed and verified, and numeric tests run it through the reference interpreters
//! (before and after the lowering pipeline) against hand-computed values. The bundled
//! examples (`examples/onnx/`) are imported and run end to end against the outputs of
//! onnx's reference evaluator. A mutation test checks that no byte string panics.

use super::data::Values;
use super::proto::{
    attribute_type as at, data_type as dt, AttributeProto, DimValue, Dimension, GraphProto,
    ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto, TensorProto,
    TensorShapeProto, TypeProto, TypeTensor, TypeValue, ValueInfoProto, DATA_LOCATION_EXTERNAL,
};
use super::*;
use autofuse_ir::graph::DType;
use autofuse_ir::tensor::{SplitMix64, Tensor};
use autofuse_runner::execute::{compare, run_pipeline, Program};
use melior::ir::operation::OperationLike;
use std::sync::Mutex;

/// MLIR diagnostics go to one process-wide stream; tests that parse or run MLIR take
/// this lock so that they do not read each other's diagnostics.
pub(super) static MLIR: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------
// Building models
// ---------------------------------------------------------------------------------

/// A dim of a value info: static, named, or anonymous.
#[derive(Clone, Copy)]
pub(super) enum D {
    V(i64),
    P(&'static str),
    A,
}

pub(super) fn vi(name: &str, elem: i32, dims: &[D]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(TypeValue::TensorType(TypeTensor {
                elem_type: elem,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| Dimension {
                            value: match d {
                                D::V(v) => Some(DimValue::DimValue(*v)),
                                D::P(p) => Some(DimValue::DimParam(p.to_string())),
                                D::A => None,
                            },
                            denotation: String::new(),
                        })
                        .collect(),
                }),
            })),
            denotation: String::new(),
        }),
        doc_string: String::new(),
    }
}

fn f32s(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: dt::FLOAT,
        float_data: v.to_vec(),
        ..Default::default()
    }
}

fn i64s(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![v.len() as i64],
        data_type: dt::INT64,
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

pub(super) fn node(
    op: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: format!(
            "{}_{}",
            op.to_ascii_lowercase(),
            outputs.first().unwrap_or(&"")
        ),
        op_type: op.into(),
        attribute: attrs,
        ..Default::default()
    }
}

pub(super) fn ai(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: at::INT,
        i: v,
        ..Default::default()
    }
}

pub(super) fn af(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: at::FLOAT,
        f: v,
        ..Default::default()
    }
}

pub(super) fn aints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: at::INTS,
        ints: v.to_vec(),
        ..Default::default()
    }
}

pub(super) fn astr(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: at::STRING,
        s: v.as_bytes().to_vec(),
        ..Default::default()
    }
}

pub(super) fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    inits: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            initializer: inits,
            input: inputs,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn import(m: &ModelProto) -> Result<Imported, ImportError> {
    import_bytes(&m.encode_to_vec(), None)
}

pub(super) fn imported(m: &ModelProto) -> String {
    match import(m) {
        Ok(i) => i.mlir,
        Err(e) => panic!("import failed: {e}"),
    }
}

pub(super) fn import_err(m: &ModelProto) -> String {
    match import(m) {
        Ok(i) => panic!("expected an import error, got:\n{}", i.mlir),
        Err(e) => e.0,
    }
}

/// Parses and verifies MLIR text (MLIR's verifier and autofuse's).
pub(super) fn verify(text: &str) -> Result<(), String> {
    let context = autofuse_mlir::context::create_context();
    autofuse_mlir::diagnostics::drain(&context);
    let module = autofuse_mlir::parse::parse_module(&context, text.as_bytes(), "<import>");
    let ok = module.as_ref().is_some_and(|m| {
        m.as_operation().verify() && autofuse_mlir::verify::verify_module(m.body())
    });
    let diags = autofuse_mlir::diagnostics::drain(&context);
    if ok {
        Ok(())
    } else {
        Err(diags
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// Runs the imported graph on `inputs` with the interpreters, before and after the
/// lowering pipeline; both must agree (within tolerance) and the result is returned.
fn run(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let context = autofuse_mlir::context::create_context();
    let run_module = |pipeline: Option<&str>| -> Vec<Tensor> {
        let mut module = autofuse_mlir::parse::parse_module(&context, text.as_bytes(), "<import>")
            .unwrap_or_else(|| panic!("does not parse:\n{text}"));
        if let Some(p) = pipeline {
            if let Err(e) = run_pipeline(&mut module, p) {
                panic!("pipeline '{p}' failed: {e}\n{text}");
            }
        }
        let program = Program::from_module(module.body()).unwrap();
        let entry = program.default_entry().unwrap().to_string();
        program
            .run(&entry, inputs)
            .unwrap_or_else(|e| panic!("run failed: {e}\n{text}"))
    };
    let before = run_module(None);
    let after = run_module(Some(
        "infer-symbolic-shapes,decompose,narrow-index-types,lower-to-ascir{remarks=false}",
    ));
    for (b, a) in before.iter().zip(&after) {
        compare(b, a).unwrap_or_else(|e| panic!("lowering changed the result: {e}\n{text}"));
    }
    before
}

pub(super) fn t(dtype: DType, shape: &[usize], data: &[f64]) -> Tensor {
    Tensor::new(dtype, shape.to_vec(), data.to_vec()).unwrap()
}

pub(super) fn assert_close(actual: &Tensor, shape: &[usize], expected: &[f64]) {
    assert_eq!(actual.shape, shape, "shape");
    for (i, (a, e)) in actual.data.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-5 * (1.0 + e.abs()),
            "element {i}: {a} vs {e} (all: {:?})",
            actual.data
        );
    }
    assert_eq!(actual.data.len(), expected.len());
}

// ---------------------------------------------------------------------------------
// Structure of the output
// ---------------------------------------------------------------------------------

#[test]
fn named_and_anonymous_dims_become_symbols_and_nodes_locations() {
    let _lock = MLIR.lock();
    let m = model(
        17,
        vec![
            node("Add", &["x", "y"], &["s"], vec![]),
            node("Relu", &["s"], &["r"], vec![]),
        ],
        vec![
            vi("x", dt::FLOAT, &[D::P("batch"), D::A, D::V(4)]),
            vi("y", dt::FLOAT, &[D::V(4)]),
        ],
        vec![vi("r", dt::FLOAT, &[D::P("batch"), D::A, D::V(4)])],
        vec![],
    );
    let text = imported(&m);
    assert!(
        text.contains(r#"%arg0: tensor<?x?x4xf32, #ascend.dims<["batch", "s0", "4"]>> loc("x")"#),
        "{text}"
    );
    assert!(text.contains(r#"loc("add_s"("Add"))"#), "{text}");
    assert!(text.contains(r#""ascend.relu"(%"#), "{text}");
    assert!(text.contains(r#"onnx.outputs = ["r"]"#), "{text}");
    verify(&text).unwrap();
    let out = run(
        &text,
        &[
            t(
                DType::F32,
                &[1, 2, 4],
                &[-1., 2., -3., 4., 5., -6., 7., -8.],
            ),
            t(DType::F32, &[4], &[1., 1., 1., 1.]),
        ],
    );
    assert_close(&out[0], &[1, 2, 4], &[0., 3., 0., 5., 6., 0., 8., 0.]);
}

#[test]
fn dim_params_are_sanitized_and_fresh_symbols_avoid_them() {
    let m = model(
        17,
        vec![node("Neg", &["x"], &["y"], vec![])],
        vec![vi(
            "x",
            dt::FLOAT,
            &[D::A, D::P("batch size"), D::P("s0"), D::P("2x")],
        )],
        vec![vi("y", dt::FLOAT, &[D::A, D::A, D::A, D::A])],
        vec![],
    );
    let text = imported(&m);
    // `s0` is a dim_param of the model, so the anonymous dim gets `s1`.
    assert!(
        text.contains(r#"#ascend.dims<["s1", "batch_size", "s0", "d_2x"]>"#),
        "{text}"
    );
    assert!(
        text.contains(r#"onnx.dim_params = {"batch_size" = "batch size", "d_2x" = "2x"}"#),
        "{text}"
    );
}

#[test]
fn initializers_become_constants_from_typed_raw_and_external_data() {
    let _lock = MLIR.lock();
    let dir = std::env::temp_dir().join(format!("af-onnx-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes: Vec<u8> = [10f32, 20., 30.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(dir.join("w.bin"), &bytes).unwrap();
    let raw = TensorProto {
        name: "r".into(),
        dims: vec![3],
        data_type: dt::FLOAT,
        raw_data: [1f32, 2., 3.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        ..Default::default()
    };
    let external = TensorProto {
        name: "e".into(),
        dims: vec![3],
        data_type: dt::FLOAT,
        data_location: DATA_LOCATION_EXTERNAL,
        external_data: vec![StringStringEntryProto {
            key: "location".into(),
            value: "w.bin".into(),
        }],
        ..Default::default()
    };
    let m = model(
        17,
        vec![
            node("Add", &["x", "r"], &["a"], vec![]),
            node("Add", &["a", "e"], &["b"], vec![]),
            node("Mul", &["b", "typed"], &["c"], vec![]),
        ],
        vec![vi("x", dt::FLOAT, &[D::V(3)])],
        vec![vi("c", dt::FLOAT, &[D::V(3)])],
        vec![
            raw,
            external,
            f32s("typed", &[1], &[2.0]),
            f32s("unused", &[1], &[9.0]),
        ],
    );
    let text = import_bytes(&m.encode_to_vec(), Some(&dir)).unwrap().mlir;
    assert!(text.contains(r#"loc("r")"#), "{text}");
    assert!(
        !text.contains(r#"loc("unused")"#),
        "dead constants are dropped:\n{text}"
    );
    let out = run(&text, &[t(DType::F32, &[3], &[0.5, 0.5, 0.5])]);
    assert_close(&out[0], &[3], &[23.0, 45.0, 67.0]);
    // Without the model's directory, external data is an error.
    let err = import_err(&m);
    assert!(
        err.contains("initializer 'e'") && err.contains("model's directory"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn uncovered_ops_become_boundary_calls_typed_from_the_model() {
    let _lock = MLIR.lock();
    let mut m = model(
        17,
        vec![
            node("Exp", &["x"], &["e"], vec![]),
            node("TopK", &["e", "k"], &["v", "i"], vec![ai("axis", -1)]),
            node("Neg", &["v"], &["y"], vec![]),
        ],
        vec![vi("x", dt::FLOAT, &[D::P("n"), D::V(8)])],
        vec![
            vi("y", dt::FLOAT, &[D::P("n"), D::V(2)]),
            vi("i", dt::INT64, &[D::P("n"), D::V(2)]),
        ],
        vec![i64s("k", &[2])],
    );
    m.graph.as_mut().unwrap().value_info = vec![vi("v", dt::FLOAT, &[D::P("n"), D::V(2)])];
    let result = import(&m).unwrap();
    let text = &result.mlir;
    assert!(
        text.contains("func.func private @TopK(tensor<?x8xf32, #ascend.dims<[\"n\", \"8\"]>>, tensor<1xi64>) -> (tensor<?x2xf32"),
        "{text}"
    );
    assert!(text.contains(":2 = func.call @TopK("), "{text}");
    assert!(text.contains(r#"loc("topk_v"("TopK"))"#), "{text}");
    assert_eq!(result.summary.boundary["TopK"].0, 1);
    assert!(result.summary.render().contains("TopK x1: not covered"));
    verify(text).unwrap();
    // Without the type of 'v' in the model, the import says how to fix it.
    m.graph.as_mut().unwrap().value_info.clear();
    let err = import_err(&m);
    assert!(err.contains("shape_inference"), "{err}");
}

#[test]
fn other_domains_and_local_functions_are_boundaries() {
    let mut n = node("FusedGelu", &["x"], &["y"], vec![]);
    n.domain = "com.microsoft".into();
    let m = model(
        17,
        vec![n],
        vec![vi("x", dt::FLOAT, &[D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::V(2)])],
        vec![],
    );
    let text = imported(&m);
    assert!(
        text.contains("func.call @com.microsoft.FusedGelu("),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------
// Malformed and unsupported input
// ---------------------------------------------------------------------------------

fn small_model() -> ModelProto {
    model(
        17,
        vec![node("Add", &["x", "w"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::P("n"), D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::P("n"), D::V(2)])],
        vec![f32s("w", &[2], &[1.0, 2.0])],
    )
}

#[test]
fn malformed_models_are_clear_errors() {
    let bytes = small_model().encode_to_vec();
    let err = import_bytes(&bytes[..bytes.len() - 3], None).unwrap_err().0;
    assert!(err.contains("not a valid ONNX model"), "{err}");
    let err = import_bytes(b"\xff\xff\xff", None).unwrap_err().0;
    assert!(err.contains("protobuf decoding failed"), "{err}");
    assert!(import_bytes(b"", None)
        .unwrap_err()
        .0
        .contains("the model has no graph"));

    let mut m = small_model();
    m.graph.as_mut().unwrap().node[0].input[1] = "missing".into();
    let err = import_err(&m);
    assert!(
        err.contains("input 'missing' is not a graph input"),
        "{err}"
    );

    let mut m = small_model();
    m.graph.as_mut().unwrap().node[0].input.pop();
    let err = import_err(&m);
    assert!(err.contains("missing required input #1"), "{err}");

    let mut m = small_model();
    m.graph.as_mut().unwrap().input[0] = vi("x", 99, &[D::V(2)]);
    let err = import_err(&m);
    assert!(
        err.contains("graph input 'x': unsupported element type 99"),
        "{err}"
    );

    let mut m = small_model();
    m.graph.as_mut().unwrap().input[0] = vi("x", dt::DOUBLE, &[D::V(2)]);
    assert!(import_err(&m).contains("unsupported element type DOUBLE"));

    let mut m = small_model();
    m.graph.as_mut().unwrap().input[0].r#type = Some(TypeProto {
        value: Some(TypeValue::SequenceType(vec![])),
        denotation: String::new(),
    });
    assert!(import_err(&m).contains("graph input 'x': a sequence type"));

    let mut m = small_model();
    if let Some(TypeValue::TensorType(t)) = m.graph.as_mut().unwrap().input[0]
        .r#type
        .as_mut()
        .and_then(|t| t.value.as_mut())
    {
        t.shape = None;
    }
    assert!(import_err(&m).contains("unknown rank"));

    let mut m = small_model();
    m.graph.as_mut().unwrap().output[0].name = "nowhere".into();
    assert!(import_err(&m).contains("graph output 'nowhere' is not produced"));

    let mut m = small_model();
    m.graph.as_mut().unwrap().initializer[0].float_data.pop();
    let err = import_err(&m);
    assert!(
        err.contains("initializer 'w'") && err.contains("float_data holds 1 values"),
        "{err}"
    );

    // A cycle.
    let m = model(
        17,
        vec![
            node("Neg", &["b"], &["a"], vec![]),
            node("Neg", &["a"], &["b"], vec![]),
        ],
        vec![],
        vec![vi("a", dt::FLOAT, &[D::V(1)])],
        vec![],
    );
    assert!(import_err(&m).contains("cycle"));

    // Wrongly typed attribute.
    let m = model(
        17,
        vec![node("Softmax", &["x"], &["y"], vec![af("axis", 1.0)])],
        vec![vi("x", dt::FLOAT, &[D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::V(2)])],
        vec![],
    );
    assert!(import_err(&m).contains("attribute 'axis' must be an INT"));
}

#[test]
fn nodes_may_come_in_any_order() {
    let m = model(
        17,
        vec![
            node("Neg", &["a"], &["y"], vec![]),
            node("Exp", &["x"], &["a"], vec![]),
        ],
        vec![vi("x", dt::FLOAT, &[D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::V(2)])],
        vec![],
    );
    let text = imported(&m);
    let (exp, neg) = (
        text.find("ascend.exp").unwrap(),
        text.find("ascend.neg").unwrap(),
    );
    assert!(exp < neg, "{text}");
}

/// Random mutations of valid models (byte flips, truncations, insertions, copied
/// spans) never panic; whatever still imports must verify.
#[test]
fn mutated_models_never_panic() {
    let _lock = MLIR.lock();
    let seeds: Vec<Vec<u8>> = vec![
        small_model().encode_to_vec(),
        model(
            13,
            vec![
                node("Reshape", &["x", "shape"], &["r"], vec![]),
                node("ReduceSum", &["r", "axes"], &["s"], vec![ai("keepdims", 0)]),
                node("Slice", &["s", "st", "en"], &["y"], vec![]),
            ],
            vec![vi("x", dt::FLOAT, &[D::V(2), D::V(6)])],
            vec![vi("y", dt::FLOAT, &[D::A])],
            vec![
                i64s("shape", &[0, 3, -1]),
                i64s("axes", &[2]),
                i64s("st", &[1]),
                i64s("en", &[-1]),
            ],
        )
        .encode_to_vec(),
    ];
    let mut rng = SplitMix64::new(0x5eed);
    let (mut imported_ok, mut rejected) = (0, 0);
    let context = autofuse_mlir::context::create_context();
    for round in 0..3000u64 {
        let mut bytes = seeds[(round % 2) as usize].clone();
        for _ in 0..1 + rng.next_u64() % 4 {
            let len = bytes.len().max(1);
            let at = (rng.next_u64() as usize) % len;
            match rng.next_u64() % 5 {
                0 => {
                    if let Some(b) = bytes.get_mut(at) {
                        *b ^= 1 << (rng.next_u64() % 8);
                    }
                }
                1 => bytes.truncate(at),
                2 => bytes.insert(at.min(bytes.len()), rng.next_u64() as u8),
                3 => {
                    let end = (at + 1 + (rng.next_u64() as usize) % 16).min(bytes.len());
                    let span: Vec<u8> = bytes.get(at..end).unwrap_or(&[]).to_vec();
                    let to = (rng.next_u64() as usize) % len;
                    for (i, b) in span.into_iter().enumerate() {
                        bytes.insert((to + i).min(bytes.len()), b);
                    }
                }
                _ => {
                    if let Some(b) = bytes.get_mut(at) {
                        *b = rng.next_u64() as u8;
                    }
                }
            }
        }
        let result = std::panic::catch_unwind(|| import_bytes(&bytes, None));
        match result {
            Err(_) => panic!("import panicked on mutation {round}: {bytes:?}"),
            Ok(Err(_)) => rejected += 1,
            Ok(Ok(imported)) => {
                imported_ok += 1;
                autofuse_mlir::diagnostics::drain(&context);
                let module = autofuse_mlir::parse::parse_module(
                    &context,
                    imported.mlir.as_bytes(),
                    "<mutated>",
                );
                let ok = module.as_ref().is_some_and(|m| {
                    m.as_operation().verify() && autofuse_mlir::verify::verify_module(m.body())
                });
                let diags = autofuse_mlir::diagnostics::drain(&context);
                assert!(
                    ok,
                    "mutation {round} imports but does not verify: {}\n{}",
                    diags
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    imported.mlir
                );
            }
        }
    }
    // Both outcomes must occur, or the mutations test nothing.
    assert!(
        imported_ok > 50 && rejected > 50,
        "{imported_ok} imported, {rejected} rejected"
    );
}

// ---------------------------------------------------------------------------------
// Semantics by operator and opset
// ---------------------------------------------------------------------------------

pub(super) fn run_single(m: &ModelProto, inputs: &[Tensor]) -> Vec<Tensor> {
    let text = imported(m);
    verify(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&text, inputs)
}

#[test]
fn softmax_before_opset_13_flattens_at_the_axis() {
    let _lock = MLIR.lock();
    let input = t(DType::F32, &[1, 2, 2], &[0., 0., 0., (3f64).ln()]);
    // Opset 11, axis 1: one softmax over all 4 values.
    let m11 = model(
        11,
        vec![node("Softmax", &["x"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::V(1), D::V(2), D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::V(1), D::V(2), D::V(2)])],
        vec![],
    );
    let out = run_single(&m11, std::slice::from_ref(&input));
    assert_close(&out[0], &[1, 2, 2], &[1. / 6., 1. / 6., 1. / 6., 3. / 6.]);
    // Opset 13, default axis -1: per row of 2.
    let mut m13 = m11.clone();
    m13.opset_import[0].version = 13;
    let out = run_single(&m13, &[input]);
    assert_close(&out[0], &[1, 2, 2], &[0.5, 0.5, 0.25, 0.75]);
}

#[test]
fn reductions_take_axes_from_attributes_or_inputs_by_opset() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let attr = model(
        11,
        vec![node(
            "ReduceSum",
            &["x"],
            &["y"],
            vec![aints("axes", &[1]), ai("keepdims", 0)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![vi("y", dt::FLOAT, &[D::V(2)])],
        vec![],
    );
    assert_close(
        &run_single(&attr, std::slice::from_ref(&x))[0],
        &[2],
        &[6., 15.],
    );
    let input = model(
        13,
        vec![node(
            "ReduceSum",
            &["x", "axes"],
            &["y"],
            vec![ai("keepdims", 1)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![vi("y", dt::FLOAT, &[D::V(1), D::V(3)])],
        vec![i64s("axes", &[0])],
    );
    assert_close(
        &run_single(&input, std::slice::from_ref(&x))[0],
        &[1, 3],
        &[5., 7., 9.],
    );
    // noop_with_empty_axes: identity.
    let noop = model(
        18,
        vec![node(
            "ReduceMax",
            &["x"],
            &["y"],
            vec![ai("noop_with_empty_axes", 1)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![],
    );
    assert_close(
        &run_single(&noop, std::slice::from_ref(&x))[0],
        &[2, 3],
        &x.data,
    );
    // ReduceLogSumExp is stable for large inputs.
    let lse = model(
        18,
        vec![node(
            "ReduceLogSumExp",
            &["x"],
            &["y"],
            vec![ai("keepdims", 0)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(2)])],
        vec![vi("y", dt::FLOAT, &[])],
        vec![],
    );
    let out = run_single(&lse, &[t(DType::F32, &[2], &[1000., 1000.])]);
    assert_close(&out[0], &[], &[1000. + 2f64.ln()]);
}

#[test]
fn split_and_slice_semantics() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[5], &[0., 1., 2., 3., 4.]);
    // Opset 18: num_outputs with an uneven last part.
    let split = model(
        18,
        vec![node(
            "Split",
            &["x"],
            &["a", "b"],
            vec![ai("num_outputs", 2)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(5)])],
        vec![
            vi("a", dt::FLOAT, &[D::V(3)]),
            vi("b", dt::FLOAT, &[D::V(2)]),
        ],
        vec![],
    );
    let out = run_single(&split, std::slice::from_ref(&x));
    assert_close(&out[0], &[3], &[0., 1., 2.]);
    assert_close(&out[1], &[2], &[3., 4.]);
    // Negative steps: a gather of the visited indices.
    let slice = model(
        13,
        vec![node(
            "Slice",
            &["x", "st", "en", "ax", "sp"],
            &["y"],
            vec![],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(5)])],
        vec![vi("y", dt::FLOAT, &[D::A])],
        vec![
            i64s("st", &[-1]),
            i64s("en", &[i64::MIN]),
            i64s("ax", &[0]),
            i64s("sp", &[-2]),
        ],
    );
    assert_close(
        &run_single(&slice, std::slice::from_ref(&x))[0],
        &[3],
        &[4., 2., 0.],
    );
    // Clamped positive slice.
    let slice = model(
        13,
        vec![node("Slice", &["x", "st", "en"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::V(5)])],
        vec![vi("y", dt::FLOAT, &[D::A])],
        vec![i64s("st", &[1]), i64s("en", &[i64::MAX])],
    );
    assert_close(&run_single(&slice, &[x])[0], &[4], &[1., 2., 3., 4.]);
}

#[test]
fn reshape_keeps_symbols_through_zero_and_minus_one() {
    let m = model(
        14,
        vec![node("Reshape", &["x", "shape"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::P("batch"), D::V(4), D::V(8)])],
        vec![vi("y", dt::FLOAT, &[D::P("batch"), D::V(32)])],
        vec![i64s("shape", &[0, -1])],
    );
    let text = imported(&m);
    assert!(
        text.contains(r#"-> tensor<?x32xf32, #ascend.dims<["batch", "32"]>>"#),
        "{text}"
    );
}

#[test]
fn matmul_and_gemm_follow_numpy_and_blas_semantics() {
    let _lock = MLIR.lock();
    // [2] x [2, 3] (1-D lhs) -> [3]
    let mm = model(
        13,
        vec![node("MatMul", &["a", "b"], &["y"], vec![])],
        vec![
            vi("a", dt::FLOAT, &[D::V(2)]),
            vi("b", dt::FLOAT, &[D::V(2), D::V(3)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(3)])],
        vec![],
    );
    let out = run_single(
        &mm,
        &[
            t(DType::F32, &[2], &[1., 2.]),
            t(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]),
        ],
    );
    assert_close(&out[0], &[3], &[9., 12., 15.]);
    // Batch broadcast: [2, 1, 2] x [1, 2, 1] -> [2, 1, 1]
    let mm = model(
        13,
        vec![node("MatMul", &["a", "b"], &["y"], vec![])],
        vec![
            vi("a", dt::FLOAT, &[D::V(2), D::V(1), D::V(2)]),
            vi("b", dt::FLOAT, &[D::V(1), D::V(2), D::V(1)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(1), D::V(1)])],
        vec![],
    );
    let out = run_single(
        &mm,
        &[
            t(DType::F32, &[2, 1, 2], &[1., 2., 3., 4.]),
            t(DType::F32, &[1, 2, 1], &[10., 1.]),
        ],
    );
    assert_close(&out[0], &[2, 1, 1], &[12., 34.]);
    // Gemm: alpha * A^T B + beta * C
    let gemm = model(
        13,
        vec![node(
            "Gemm",
            &["a", "b", "c"],
            &["y"],
            vec![af("alpha", 2.0), af("beta", 0.5), ai("transA", 1)],
        )],
        vec![
            vi("a", dt::FLOAT, &[D::V(2), D::V(1)]),
            vi("b", dt::FLOAT, &[D::V(2), D::V(2)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(1), D::V(2)])],
        vec![f32s("c", &[2], &[4.0, 8.0])],
    );
    let out = run_single(
        &gemm,
        &[
            t(DType::F32, &[2, 1], &[1., 2.]),
            t(DType::F32, &[2, 2], &[1., 2., 3., 4.]),
        ],
    );
    assert_close(&out[0], &[1, 2], &[2. * 7. + 2., 2. * 10. + 4.]);
}

#[test]
fn clip_by_opset_and_composed_activations() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[4], &[-2., -0.5, 0.5, 2.]);
    let clip6 = model(
        6,
        vec![node(
            "Clip",
            &["x"],
            &["y"],
            vec![af("min", -1.0), af("max", 1.0)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(4)])],
        vec![vi("y", dt::FLOAT, &[D::V(4)])],
        vec![],
    );
    assert_close(
        &run_single(&clip6, std::slice::from_ref(&x))[0],
        &[4],
        &[-1., -0.5, 0.5, 1.],
    );
    let mut clip13 = model(
        13,
        vec![node("Clip", &["x", "", "hi"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::V(4)])],
        vec![vi("y", dt::FLOAT, &[D::V(4)])],
        vec![f32s("hi", &[], &[0.0])],
    );
    assert_close(
        &run_single(&clip13, std::slice::from_ref(&x))[0],
        &[4],
        &[-2., -0.5, 0., 0.],
    );
    clip13.graph.as_mut().unwrap().node[0] = node("Elu", &["x"], &["y"], vec![af("alpha", 2.0)]);
    let e = |v: f64| if v > 0.0 { v } else { 2.0 * (v.exp() - 1.0) };
    assert_close(
        &run_single(&clip13, std::slice::from_ref(&x))[0],
        &[4],
        &x.data.iter().map(|&v| e(v)).collect::<Vec<_>>(),
    );
    clip13.graph.as_mut().unwrap().node[0] =
        node("Mod", &["x", "hi2"], &["y"], vec![ai("fmod", 1)]);
    clip13.graph.as_mut().unwrap().initializer = vec![f32s("hi2", &[], &[0.75])];
    assert_close(&run_single(&clip13, &[x])[0], &[4], &[-0.5, -0.5, 0.5, 0.5]);
}

#[test]
fn layer_norm_optional_outputs_and_constant_forms() {
    let _lock = MLIR.lock();
    let m = model(
        17,
        vec![
            node(
                "Constant",
                &[],
                &["scale"],
                vec![AttributeProto {
                    name: "value_floats".into(),
                    r#type: at::FLOATS,
                    floats: vec![1.0, 1.0],
                    ..Default::default()
                }],
            ),
            node(
                "LayerNormalization",
                &["x", "scale"],
                &["y", "mean", "inv"],
                vec![af("epsilon", 0.0)],
            ),
        ],
        vec![vi("x", dt::FLOAT, &[D::V(1), D::V(2)])],
        vec![
            vi("y", dt::FLOAT, &[D::V(1), D::V(2)]),
            vi("mean", dt::FLOAT, &[D::V(1), D::V(1)]),
            vi("inv", dt::FLOAT, &[D::V(1), D::V(1)]),
        ],
        vec![],
    );
    let out = run_single(&m, &[t(DType::F32, &[1, 2], &[1., 3.])]);
    assert_close(&out[0], &[1, 2], &[-1., 1.]);
    assert_close(&out[1], &[1, 1], &[2.]);
    assert_close(&out[2], &[1, 1], &[1.]);
}

#[test]
fn known_values_flow_through_shape_computations() {
    // Reshape target computed as exporters write it: Shape -> Gather -> Concat.
    let m = model(
        13,
        vec![
            node("Shape", &["x"], &["s"], vec![]),
            node("Gather", &["s", "zero"], &["d0"], vec![ai("axis", 0)]),
            node("Unsqueeze", &["d0", "ax0"], &["d0u"], vec![]),
            node(
                "Concat",
                &["d0u", "minus1"],
                &["target"],
                vec![ai("axis", 0)],
            ),
            node("Reshape", &["x", "target"], &["y"], vec![]),
        ],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3), D::V(4)])],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(12)])],
        vec![
            TensorProto {
                name: "zero".into(),
                data_type: dt::INT64,
                int64_data: vec![0],
                ..Default::default()
            },
            i64s("ax0", &[0]),
            i64s("minus1", &[-1]),
        ],
    );
    let text = imported(&m);
    assert!(text.contains("-> tensor<2x12xf32>"), "{text}");
    // The shape computation is dead once the reshape has its target.
    assert!(!text.contains("ascend.concat"), "{text}");
    let v = Values::I(vec![1]);
    assert_eq!(v.as_i64(), vec![1]);
}

// ---------------------------------------------------------------------------------
// The bundled real-model examples, end to end
// ---------------------------------------------------------------------------------

fn run_example(name: &str, expect_ops: &[&str]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/onnx");
    let result =
        import_file(&dir.join(format!("{name}.onnx"))).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        result.summary.boundary.is_empty(),
        "{}",
        result.summary.render()
    );
    for op in expect_ops {
        assert!(
            result.mlir.contains(op),
            "{name}: no {op}:\n{}",
            result.mlir
        );
    }
    let read = |kind: &str| -> Vec<Tensor> {
        (0..)
            .map(|i| dir.join(format!("{name}.{kind}{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| Tensor::read_npy(&p).unwrap())
            .collect()
    };
    let (inputs, expected) = (read("input"), read("output"));
    assert!(!inputs.is_empty() && !expected.is_empty());
    let context = autofuse_mlir::context::create_context();
    let mut module =
        autofuse_mlir::parse::parse_module(&context, result.mlir.as_bytes(), name).unwrap();
    let mut pipeline =
        "infer-symbolic-shapes,decompose,narrow-index-types,lower-to-ascir{remarks=false}"
            .to_string();
    if autofuse_passes::registry::lookup("fuse").is_some() {
        pipeline.push_str(",fuse{remarks=false}");
    }
    run_pipeline(&mut module, &pipeline).unwrap_or_else(|e| panic!("{name}: {e}"));
    let program = Program::from_module(module.body()).unwrap();
    assert!(
        !program.kernels.is_empty(),
        "{name}: nothing was lowered to kernels"
    );
    let entry = program.default_entry().unwrap().to_string();
    let outputs = program.run(&entry, &inputs).unwrap();
    for (e, a) in expected.iter().zip(&outputs) {
        compare(e, a).unwrap_or_else(|err| panic!("{name}: {err}"));
    }
}

#[test]
fn transformer_encoder_example_runs_end_to_end() {
    let _lock = MLIR.lock();
    run_example(
        "transformer_encoder",
        &[
            "ascend.layer_norm",
            "ascend.softmax",
            "ascend.gelu",
            "ascend.matmul",
            r#"loc("attn/softmax"("Softmax"))"#,
        ],
    );
}

#[test]
fn dlrm_interaction_example_runs_end_to_end() {
    let _lock = MLIR.lock();
    run_example(
        "dlrm_interaction",
        &[
            "ascend.gather",
            "ascend.concat",
            "ascend.reduce_sum",
            "ascend.select",
            "ascend.slice",
        ],
    );
}

// ---------------------------------------------------------------------------------
// Shape values: exporter-style shape subgraphs against onnxruntime
// ---------------------------------------------------------------------------------

/// The `(tag, inputs, expected outputs)` cases stored next to `model` as
/// `<stem>.<tag>.input<i>.npy` / `<stem>.<tag>.output<i>.npy` (onnxruntime's outputs).
fn reference_cases(dir: &Path, stem: &str) -> Vec<(String, Vec<Tensor>, Vec<Tensor>)> {
    let mut tags: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let rest = name.strip_prefix(&format!("{stem}."))?;
            let (tag, tail) = rest.split_once('.')?;
            (tail == "input0.npy").then(|| tag.to_string())
        })
        .collect();
    tags.sort();
    tags.into_iter()
        .map(|tag| {
            let read = |kind: &str| -> Vec<Tensor> {
                (0..)
                    .map(|i| dir.join(format!("{stem}.{tag}.{kind}{i}.npy")))
                    .take_while(|p| p.exists())
                    .map(|p| Tensor::read_npy(&p).unwrap())
                    .collect()
            };
            let (inputs, outputs) = (read("input"), read("output"));
            (tag, inputs, outputs)
        })
        .collect()
}

#[test]
fn shape_subgraphs_fold_and_match_onnxruntime_at_every_shape() {
    let _lock = MLIR.lock();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/Import/onnx/Inputs");
    for stem in ["shape_values", "shape_guard", "pad_symbolic"] {
        let imported = import_file(&dir.join(format!("{stem}.onnx")))
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert!(
            imported.summary.boundary.is_empty(),
            "{}",
            imported.summary.render()
        );
        // No op of the imported graph computes on a shape tensor.
        for op in ["(\"Shape\"))", "(\"Gather\"))", "(\"Concat\"))"] {
            assert!(
                !imported.mlir.contains(op),
                "{stem}: {op} left:\n{}",
                imported.mlir
            );
        }
        verify(&imported.mlir).unwrap_or_else(|e| panic!("{stem}: {e}\n{}", imported.mlir));
        let cases = reference_cases(&dir, stem);
        assert!(!cases.is_empty(), "{stem}: no reference cases");
        for (tag, inputs, expected) in cases {
            let outputs = run(&imported.mlir, &inputs);
            assert_eq!(outputs.len(), expected.len(), "{stem} {tag}");
            for (i, (e, a)) in expected.iter().zip(&outputs).enumerate() {
                compare(e, a).unwrap_or_else(|err| panic!("{stem} {tag} output {i}: {err}"));
            }
        }
    }
}

#[test]
fn dropout_in_inference_is_the_input_with_an_all_true_mask() {
    let m = model(
        22,
        vec![node("Dropout", &["x", "ratio"], &["y", "mask"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::V(3)])],
        vec![
            vi("y", dt::FLOAT, &[D::V(3)]),
            vi("mask", dt::BOOL, &[D::V(3)]),
        ],
        vec![f32s("ratio", &[], &[0.5])],
    );
    let text = imported(&m);
    assert!(!text.contains("call @Dropout"), "{text}");
    let out = run(&text, &[t(DType::F32, &[3], &[1.5, f64::NAN, -2.0])]);
    assert_eq!(out[0].data[0], 1.5);
    assert!(out[0].data[1].is_nan());
    assert_eq!(out[0].data[2], -2.0);
    assert_close(&out[1], &[3], &[1.0, 1.0, 1.0]);
}

#[test]
fn hyperbolic_functions_match_known_values() {
    // (op, input, expected): sinh(1), cosh(1), asinh(1) = ln(1 + sqrt 2),
    // acosh(2) = ln(2 + sqrt 3), atanh(0.5) = ln(3) / 2.
    let cases: [(&str, f64, f64); 5] = [
        ("Sinh", 1.0, 1.1752011936438014),
        ("Cosh", 1.0, 1.5430806348152437),
        ("Asinh", 1.0, 0.881373587019543),
        ("Acosh", 2.0, 1.3169578969248166),
        ("Atanh", 0.5, 0.5493061443340549),
    ];
    for (op, x, expected) in cases {
        let m = model(
            22,
            vec![node(op, &["x"], &["y"], vec![])],
            vec![vi("x", dt::FLOAT, &[D::V(1)])],
            vec![vi("y", dt::FLOAT, &[D::V(1)])],
            vec![],
        );
        let text = imported(&m);
        let out = run(&text, &[t(DType::F32, &[1], &[x])]);
        assert_close(&out[0], &[1], &[expected]);
    }
}

#[test]
fn rms_normalization_matches_hand_computed_values() {
    let _lock = MLIR.lock();
    // Row [1, -1]: mean square 1, rms 1. Row [3, 4]: mean square 12.5, rms
    // sqrt(12.5) = 3.5355339059327378; times the scale [1, 2].
    let m = model(
        23,
        vec![node(
            "RMSNormalization",
            &["x", "scale"],
            &["y"],
            vec![af("epsilon", 0.0)],
        )],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(2)])],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(2)])],
        vec![f32s("scale", &[2], &[1.0, 2.0])],
    );
    let out = run_single(&m, &[t(DType::F32, &[2, 2], &[1., -1., 3., 4.])]);
    assert_close(
        &out[0],
        &[2, 2],
        &[1., -2., 0.848528137423857, 2.262741699796952],
    );
    // axis 0 normalizes over all four: mean square (1 + 1 + 9 + 16) / 4 = 6.75.
    let mut m0 = m.clone();
    m0.graph.as_mut().unwrap().node[0]
        .attribute
        .push(ai("axis", 0));
    m0.graph.as_mut().unwrap().initializer[0] = f32s("scale", &[2, 2], &[1.0, 1.0, 1.0, 1.0]);
    let out = run_single(&m0, &[t(DType::F32, &[2, 2], &[1., -1., 3., 4.])]);
    let r = 6.75f64.sqrt();
    assert_close(&out[0], &[2, 2], &[1. / r, -1. / r, 3. / r, 4. / r]);
}

#[test]
fn global_pools_reduce_every_spatial_axis() {
    let _lock = MLIR.lock();
    // Channel 0 holds 1, 2, 3, 4 (mean 2.5, max 4); channel 1 -1, -5, 0, 2 (mean -1, max 2).
    let x = t(
        DType::F32,
        &[1, 2, 2, 2],
        &[1., 2., 3., 4., -1., -5., 0., 2.],
    );
    for (op, expected) in [
        ("GlobalAveragePool", [2.5, -1.0]),
        ("GlobalMaxPool", [4.0, 2.0]),
    ] {
        let m = model(
            22,
            vec![node(op, &["x"], &["y"], vec![])],
            vec![vi("x", dt::FLOAT, &[D::V(1), D::V(2), D::V(2), D::V(2)])],
            vec![vi("y", dt::FLOAT, &[D::V(1), D::V(2), D::V(1), D::V(1)])],
            vec![],
        );
        let out = run_single(&m, std::slice::from_ref(&x));
        assert_close(&out[0], &[1, 2, 1, 1], &expected);
    }
}

#[test]
fn mean_variance_normalization_matches_hand_computed_values() {
    let _lock = MLIR.lock();
    // Default axes [0, 2, 3]: channel 0 holds 0, 1, 2 (mean 1, std sqrt(2/3)); channel 1
    // is constant (deviation 0, and 0 / (0 + 1e-9) = 0).
    let m = model(
        13,
        vec![node("MeanVarianceNormalization", &["x"], &["y"], vec![])],
        vec![vi("x", dt::FLOAT, &[D::V(1), D::V(2), D::V(1), D::V(3)])],
        vec![vi("y", dt::FLOAT, &[D::V(1), D::V(2), D::V(1), D::V(3)])],
        vec![],
    );
    let x = t(DType::F32, &[1, 2, 1, 3], &[0., 1., 2., 5., 5., 5.]);
    let out = run_single(&m, &[x]);
    let z = 1.224744871391589;
    assert_close(&out[0], &[1, 2, 1, 3], &[-z, 0., z, 0., 0., 0.]);
}

#[test]
fn instance_and_batch_normalization_match_hand_computed_values() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[1, 2, 2], &[1., 3., 2., 6.]);
    let dims = [D::V(1), D::V(2), D::V(2)];
    // Instance: channel 0 [1, 3] has mean 2, variance 1; channel 1 [2, 6] mean 4,
    // variance 4; both normalize to [-1, 1], then scale [2, 0.5] and B [0, 1].
    let inst = model(
        22,
        vec![node(
            "InstanceNormalization",
            &["x", "s", "b"],
            &["y"],
            vec![af("epsilon", 0.0)],
        )],
        vec![vi("x", dt::FLOAT, &dims)],
        vec![vi("y", dt::FLOAT, &dims)],
        vec![f32s("s", &[2], &[2.0, 0.5]), f32s("b", &[2], &[0.0, 1.0])],
    );
    let out = run_single(&inst, std::slice::from_ref(&x));
    assert_close(&out[0], &[1, 2, 2], &[-2., 2., 0.5, 1.5]);
    // Batch (inference): mean [1, 2], variance [4, 16]: (x - 1) / 2 = [0, 1] and
    // (x - 2) / 4 = [0, 1]; scale [1, 2], B [0, -1].
    let inits = vec![
        f32s("s", &[2], &[1.0, 2.0]),
        f32s("b", &[2], &[0.0, -1.0]),
        f32s("mean", &[2], &[1.0, 2.0]),
        f32s("var", &[2], &[4.0, 16.0]),
    ];
    let batch = model(
        15,
        vec![node(
            "BatchNormalization",
            &["x", "s", "b", "mean", "var"],
            &["y"],
            vec![af("epsilon", 0.0)],
        )],
        vec![vi("x", dt::FLOAT, &dims)],
        vec![vi("y", dt::FLOAT, &dims)],
        inits.clone(),
    );
    let out = run_single(&batch, &[x]);
    assert_close(&out[0], &[1, 2, 2], &[0., 1., -1., 1.]);
    // Training mode is refused: a boundary call.
    let training = model(
        15,
        vec![node(
            "BatchNormalization",
            &["x", "s", "b", "mean", "var"],
            &["y"],
            vec![ai("training_mode", 1)],
        )],
        vec![vi("x", dt::FLOAT, &dims)],
        vec![vi("y", dt::FLOAT, &dims)],
        inits,
    );
    assert!(imported(&training).contains("call @BatchNormalization"));
}

#[test]
fn group_normalization_scales_per_channel_or_per_group_by_opset() {
    let _lock = MLIR.lock();
    // Two groups of two channels: [1, 3] (mean 2, variance 1) and [2, 6] (mean 4,
    // variance 4) both normalize to [-1, 1].
    let x = t(DType::F32, &[1, 4, 1], &[1., 3., 2., 6.]);
    let dims = [D::V(1), D::V(4), D::V(1)];
    let build = |opset: i64, scale: TensorProto, bias: TensorProto| {
        model(
            opset,
            vec![node(
                "GroupNormalization",
                &["x", "scale", "bias"],
                &["y"],
                vec![ai("num_groups", 2), af("epsilon", 0.0)],
            )],
            vec![vi("x", dt::FLOAT, &dims)],
            vec![vi("y", dt::FLOAT, &dims)],
            vec![scale, bias],
        )
    };
    // Opset 21: per channel.
    let m21 = build(
        21,
        f32s("scale", &[4], &[1., 2., 3., 4.]),
        f32s("bias", &[4], &[0., 0., 0., 1.]),
    );
    let out = run_single(&m21, std::slice::from_ref(&x));
    assert_close(&out[0], &[1, 4, 1], &[-1., 2., -3., 5.]);
    // Opset 18: per group.
    let m18 = build(
        18,
        f32s("scale", &[2], &[2., 3.]),
        f32s("bias", &[2], &[1., 0.]),
    );
    let out = run_single(&m18, &[x]);
    assert_close(&out[0], &[1, 4, 1], &[-1., 3., -3., 3.]);
}

#[test]
fn lp_normalization_divides_by_the_norm_and_keeps_zero_rows_zero() {
    let _lock = MLIR.lock();
    // p = 2: [3, 4] / 5; p = 1: [1, -3] / 4; a zero row stays 0 (not 0/0).
    for (p, x, expected) in [
        (2, [3., 4., 0., 0.], [0.6, 0.8, 0., 0.]),
        (1, [1., -3., 0., 0.], [0.25, -0.75, 0., 0.]),
    ] {
        let m = model(
            22,
            vec![node("LpNormalization", &["x"], &["y"], vec![ai("p", p)])],
            vec![vi("x", dt::FLOAT, &[D::V(2), D::V(2)])],
            vec![vi("y", dt::FLOAT, &[D::V(2), D::V(2)])],
            vec![],
        );
        let out = run_single(&m, &[t(DType::F32, &[2, 2], &x)]);
        assert_close(&out[0], &[2, 2], &expected);
    }
}

#[test]
fn eye_like_puts_ones_on_the_k_th_diagonal() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[2, 3], &[7.; 6]);
    // k = 1 in the input's type; k = -1 as int32.
    for (attrs, elem, expected) in [
        (vec![ai("k", 1)], dt::FLOAT, [0., 1., 0., 0., 0., 1.]),
        (
            vec![ai("k", -1), ai("dtype", dt::INT32 as i64)],
            dt::INT32,
            [0., 0., 0., 1., 0., 0.],
        ),
    ] {
        let m = model(
            22,
            vec![node("EyeLike", &["x"], &["y"], attrs)],
            vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3)])],
            vec![vi("y", elem, &[D::V(2), D::V(3)])],
            vec![],
        );
        let out = run_single(&m, std::slice::from_ref(&x));
        assert_close(&out[0], &[2, 3], &expected);
    }
}

#[test]
fn depth_to_space_and_space_to_depth_move_blocks_by_mode() {
    let _lock = MLIR.lock();
    let mode = |m: &str| AttributeProto {
        name: "mode".into(),
        r#type: at::STRING,
        s: m.as_bytes().to_vec(),
        ..Default::default()
    };
    let iota: Vec<f64> = (0..8).map(f64::from).collect();
    // DepthToSpace of 8 channels 0..7, blocksize 2: DCR reads channel
    // (row * 2 + col) * 2 + c for output channel c; CRD reads c * 4 + row * 2 + col.
    // SpaceToDepth of 2 channels of 2x2: DCR writes channel (row * 2 + col) * 2 + c,
    // CRD c * 4 + row * 2 + col (opset 28).
    let cases = [
        (
            "DepthToSpace",
            "DCR",
            [1, 8, 1, 1],
            [1, 2, 2, 2],
            [0., 2., 4., 6., 1., 3., 5., 7.],
        ),
        (
            "DepthToSpace",
            "CRD",
            [1, 8, 1, 1],
            [1, 2, 2, 2],
            [0., 1., 2., 3., 4., 5., 6., 7.],
        ),
        (
            "SpaceToDepth",
            "DCR",
            [1, 2, 2, 2],
            [1, 8, 1, 1],
            [0., 4., 1., 5., 2., 6., 3., 7.],
        ),
        (
            "SpaceToDepth",
            "CRD",
            [1, 2, 2, 2],
            [1, 8, 1, 1],
            [0., 1., 2., 3., 4., 5., 6., 7.],
        ),
    ];
    for (op, md, ins, outs, expected) in cases {
        let dims = |s: [i64; 4]| s.map(D::V);
        let m = model(
            28,
            vec![node(op, &["x"], &["y"], vec![ai("blocksize", 2), mode(md)])],
            vec![vi("x", dt::FLOAT, &dims(ins))],
            vec![vi("y", dt::FLOAT, &dims(outs))],
            vec![],
        );
        let shape: Vec<usize> = ins.iter().map(|&d| d as usize).collect();
        let out = run_single(&m, &[t(DType::F32, &shape, &iota)]);
        let oshape: Vec<usize> = outs.iter().map(|&d| d as usize).collect();
        assert_close(&out[0], &oshape, &expected);
    }
}
