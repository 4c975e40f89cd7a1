//! Unit tests of the converters of `ops_attention`: tiny models built with the prost
//! messages, imported, verified and run by the reference interpreters (before and
//! after the lowering pipeline), compared with hand-computed values.

use super::proto::{data_type as dt, ModelProto, NodeProto, ValueInfoProto};
use super::tests::{ai, assert_close, astr, node, run_single, t, D, MLIR};
use autofuse_ir::graph::DType;
use autofuse_ir::tensor::Tensor;

/// A value info with static dims.
fn vi(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    let dims: Vec<D> = dims.iter().map(|&d| D::V(d)).collect();
    super::tests::vi(name, elem, &dims)
}

/// A model of one node.
fn model(
    opset: i64,
    n: NodeProto,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
) -> ModelProto {
    super::tests::model(opset, vec![n], inputs, outputs, Vec::new())
}

/// Imports (the node must not become a boundary call), verifies, and runs before and
/// after lowering (both must agree).
fn run_model(m: &ModelProto, inputs: &[Tensor]) -> Vec<Tensor> {
    let _lock = MLIR.lock();
    let text = super::tests::imported(m);
    assert!(
        !text.contains("func.call"),
        "the node became a boundary call:\n{text}"
    );
    run_single(m, inputs)
}

fn assert_exact(actual: &Tensor, dtype: DType, expected: &[f64]) {
    assert_eq!(actual.dtype, dtype);
    assert_eq!(actual.data, expected);
}

#[test]
fn causal_attention_matches_a_hand_computed_softmax() {
    // One head of size 1 (scale 1), two queries and keys. Scores q_i * k_j with q = 1
    // and k = [0, ln 3]; causal: query 0 sees key 0 only, query 1 sees
    // softmax([0, ln 3]) = [1/4, 3/4]. With v = [2, 6]: y = [2, 0.5 + 4.5].
    let m = model(
        23,
        node(
            "Attention",
            &["q", "k", "v"],
            &["y", "", "", "p"],
            vec![ai("is_causal", 1), ai("qk_matmul_output_mode", 3)],
        ),
        vec![
            vi("q", dt::FLOAT, &[1, 1, 2, 1]),
            vi("k", dt::FLOAT, &[1, 1, 2, 1]),
            vi("v", dt::FLOAT, &[1, 1, 2, 1]),
        ],
        vec![
            vi("y", dt::FLOAT, &[1, 1, 2, 1]),
            vi("p", dt::FLOAT, &[1, 1, 2, 2]),
        ],
    );
    let inputs = [
        t(DType::F32, &[1, 1, 2, 1], &[1.0, 1.0]),
        t(DType::F32, &[1, 1, 2, 1], &[0.0, 3f64.ln()]),
        t(DType::F32, &[1, 1, 2, 1], &[2.0, 6.0]),
    ];
    let out = run_model(&m, &inputs);
    assert_close(&out[0], &[1, 1, 2, 1], &[2.0, 5.0]);
    assert_close(&out[1], &[1, 1, 2, 2], &[1.0, 0.0, 0.25, 0.75]);
}

#[test]
fn attention_bool_mask_gqa_and_fully_masked_rows() {
    // Two query heads share one kv head; scale 1/sqrt(1). The bool mask lets query 0
    // see both keys (equal scores -> mean of v) and masks every key of query 1, whose
    // output is 0 by the fully-masked-row rule.
    let m = model(
        23,
        node("Attention", &["q", "k", "v", "mask"], &["y"], vec![]),
        vec![
            vi("q", dt::FLOAT, &[1, 2, 2, 1]),
            vi("k", dt::FLOAT, &[1, 1, 2, 1]),
            vi("v", dt::FLOAT, &[1, 1, 2, 1]),
            vi("mask", dt::BOOL, &[2, 2]),
        ],
        vec![vi("y", dt::FLOAT, &[1, 2, 2, 1])],
    );
    let inputs = [
        t(DType::F32, &[1, 2, 2, 1], &[0.0, 1.0, 5.0, 1.0]),
        t(DType::F32, &[1, 1, 2, 1], &[1.0, 1.0]),
        t(DType::F32, &[1, 1, 2, 1], &[2.0, 6.0]),
        t(DType::Bool, &[2, 2], &[1.0, 1.0, 0.0, 0.0]),
    ];
    let out = run_model(&m, &inputs);
    assert_close(&out[0], &[1, 2, 2, 1], &[4.0, 0.0, 4.0, 0.0]);
}

#[test]
fn quantize_rounds_ties_to_even_and_saturates() {
    // x / 2 = [0.5, 1.5, 2.5, -1.5, 500, -500, -0.5] rounds half to even to
    // [0, 2, 2, -2, 500, -500, -0], + 1 and saturated to int8.
    let m = model(
        21,
        node("QuantizeLinear", &["x", "s", "z"], &["y"], vec![]),
        vec![
            vi("x", dt::FLOAT, &[7]),
            vi("s", dt::FLOAT, &[]),
            vi("z", dt::INT8, &[]),
        ],
        vec![vi("y", dt::INT8, &[7])],
    );
    let inputs = [
        t(
            DType::F32,
            &[7],
            &[1.0, 3.0, 5.0, -3.0, 1000.0, -1000.0, -1.0],
        ),
        t(DType::F32, &[], &[2.0]),
        t(DType::I8, &[], &[1.0]),
    ];
    let out = run_model(&m, &inputs);
    assert_exact(
        &out[0],
        DType::I8,
        &[1.0, 3.0, 3.0, -1.0, 127.0, -128.0, 1.0],
    );
    // uint8 without a zero point: ties to even, negatives and overflow saturate.
    let m = model(
        21,
        node("QuantizeLinear", &["x", "s"], &["y"], vec![]),
        vec![vi("x", dt::FLOAT, &[6]), vi("s", dt::FLOAT, &[])],
        vec![vi("y", dt::UINT8, &[6])],
    );
    let inputs = [
        t(DType::F32, &[6], &[0.5, 1.5, 254.5, -1.5, 300.0, 3.49]),
        t(DType::F32, &[], &[1.0]),
    ];
    let out = run_model(&m, &inputs);
    assert_exact(&out[0], DType::U8, &[0.0, 2.0, 254.0, 0.0, 255.0, 3.0]);
}

#[test]
fn dequantize_per_axis_uses_the_scale_and_zero_point_of_each_channel() {
    // Axis 1 of [2, 3]: scales [0.5, 2, 0.25], zero points [0, 1, -2].
    let m = model(
        21,
        node(
            "DequantizeLinear",
            &["x", "s", "z"],
            &["y"],
            vec![ai("axis", 1)],
        ),
        vec![
            vi("x", dt::INT8, &[2, 3]),
            vi("s", dt::FLOAT, &[3]),
            vi("z", dt::INT8, &[3]),
        ],
        vec![vi("y", dt::FLOAT, &[2, 3])],
    );
    let inputs = [
        t(DType::I8, &[2, 3], &[0.0, 10.0, -10.0, 5.0, 1.0, -128.0]),
        t(DType::F32, &[3], &[0.5, 2.0, 0.25]),
        t(DType::I8, &[3], &[0.0, 1.0, -2.0]),
    ];
    let out = run_model(&m, &inputs);
    // [(0-0)*0.5, (10-1)*2, (-10+2)*0.25; (5-0)*0.5, (1-1)*2, (-128+2)*0.25]
    assert_close(&out[0], &[2, 3], &[0.0, 18.0, -2.0, 2.5, 0.0, -31.5]);
}

#[test]
fn inverse_trigonometric_functions_match_known_values() {
    let pi = std::f64::consts::PI;
    let cases: [(&str, Vec<f64>, Vec<f64>); 3] = [
        (
            "Atan",
            vec![1.0, -1.0, 0.0, 1e-6, 1e6, 0.5],
            vec![
                pi / 4.0,
                -pi / 4.0,
                0.0,
                1e-6,
                pi / 2.0 - 1e-6,
                0.4636476090008061,
            ],
        ),
        (
            "Asin",
            vec![0.5, -1.0, 0.0, 1.0, 1e-6],
            vec![pi / 6.0, -pi / 2.0, 0.0, pi / 2.0, 1e-6],
        ),
        (
            "Acos",
            vec![0.5, -1.0, 0.0, 1.0, -0.5],
            vec![pi / 3.0, pi, pi / 2.0, 0.0, 2.0 * pi / 3.0],
        ),
    ];
    for (op, x, expected) in cases {
        let n = x.len() as i64;
        let m = model(
            22,
            node(op, &["x"], &["y"], vec![]),
            vec![vi("x", dt::FLOAT, &[n])],
            vec![vi("y", dt::FLOAT, &[n])],
        );
        let out = run_model(&m, &[t(DType::F32, &[x.len()], &x)]);
        assert_close(&out[0], &[x.len()], &expected);
    }
}

#[test]
fn cumprod_and_bitshift_match_hand_computed_values() {
    let m = model(
        26,
        node("CumProd", &["x", "axis"], &["y"], vec![ai("exclusive", 1)]),
        vec![vi("x", dt::INT32, &[5]), vi("axis", dt::INT32, &[])],
        vec![vi("y", dt::INT32, &[5])],
    );
    // The axis is a graph input here, so the node stays a boundary call: use a
    // constant axis instead.
    let mut m = m;
    let g = m.graph.as_mut().unwrap();
    g.input.truncate(1);
    g.initializer.push(super::proto::TensorProto {
        name: "axis".into(),
        data_type: dt::INT32,
        int32_data: vec![0],
        ..Default::default()
    });
    let out = run_model(&m, &[t(DType::I32, &[5], &[2.0, 3.0, -1.0, 4.0, 5.0])]);
    assert_exact(&out[0], DType::I32, &[1.0, 2.0, 6.0, -6.0, -24.0]);

    let shift = |direction: &str, x: &[f64], k: &[f64]| -> Vec<f64> {
        let n = x.len() as i64;
        let m = model(
            28,
            node(
                "BitShift",
                &["x", "k"],
                &["y"],
                vec![astr("direction", direction)],
            ),
            vec![vi("x", dt::INT8, &[n]), vi("k", dt::INT8, &[n])],
            vec![vi("y", dt::INT8, &[n])],
        );
        let out = run_model(
            &m,
            &[t(DType::I8, &[x.len()], x), t(DType::I8, &[x.len()], k)],
        );
        out[0].data.clone()
    };
    // Right: arithmetic (floor) for negatives, sign fill beyond the width.
    assert_eq!(
        shift(
            "RIGHT",
            &[-7.0, 7.0, -128.0, -1.0, 5.0],
            &[1.0, 1.0, 7.0, 9.0, -1.0]
        ),
        vec![-4.0, 3.0, -1.0, -1.0, 0.0]
    );
    // Left: wraps in two's complement, 0 beyond the width.
    assert_eq!(
        shift("LEFT", &[3.0, 1.0, 65.0, 1.0], &[2.0, 7.0, 1.0, 8.0]),
        vec![12.0, -128.0, -126.0, 0.0]
    );
}
