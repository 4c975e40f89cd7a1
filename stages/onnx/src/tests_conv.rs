//! Unit tests of the convolution and pooling converters (`ops_conv.rs`), run through
//! the reference interpreters (before and after the lowering pipeline) against
//! hand-computed values; outputs carry no shapes, so the converters type them.

use super::proto::{data_type as dt, AttributeProto, ModelProto, TensorProto};
use super::tests::{
    ai, aints, assert_close, astr, import_err, imported, model, node, run_single, t, vi, D, MLIR,
};
use autofuse_ir::graph::DType;

fn f32s(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: dt::FLOAT,
        float_data: v.to_vec(),
        ..Default::default()
    }
}

/// One node of `op` on input `x` (shape `x_dims`) and the given initializers; the output
/// has rank 3 and no dims.
fn one_node(
    op: &str,
    inputs: &[&str],
    x_dims: &[D],
    attrs: Vec<AttributeProto>,
    inits: Vec<TensorProto>,
) -> ModelProto {
    model(
        18,
        vec![node(op, inputs, &["y"], attrs)],
        vec![vi("x", dt::FLOAT, x_dims)],
        vec![vi("y", dt::FLOAT, &vec![D::A; x_dims.len()])],
        inits,
    )
}

#[test]
fn conv_with_bias_is_typed_without_value_info() {
    let _lock = MLIR.lock();
    // x [1, 2, 4], w [1, 2, 2], bias 0.5: y[o] = x0[o] + x0[o+1] - x1[o] + 0.5.
    let m = one_node(
        "Conv",
        &["x", "w", "b"],
        &[D::V(1), D::V(2), D::V(4)],
        vec![],
        vec![
            f32s("w", &[1, 2, 2], &[1., 1., -1., 0.]),
            f32s("b", &[1], &[0.5]),
        ],
    );
    let text = imported(&m);
    assert!(text.contains("\"ascend.conv\""), "{text}");
    assert!(text.contains("-> tensor<1x1x3xf32>"), "{text}");
    let x = t(
        DType::F32,
        &[1, 2, 4],
        &[1., 2., 3., 4., 10., 20., 30., 40.],
    );
    let y = run_single(&m, &[x]);
    assert_close(&y[0], &[1, 1, 3], &[-6.5, -14.5, -22.5]);
}

#[test]
fn same_padding_on_a_symbolic_dim_gives_symbolic_pads() {
    let _lock = MLIR.lock();
    // Sums of 3 taps with stride 2: out = ceil(t/2), total padding depends on t.
    for (mode, len, expected) in [
        ("SAME_UPPER", 5, vec![3., 9., 9.]),
        ("SAME_UPPER", 6, vec![6., 12., 11.]),
        ("SAME_LOWER", 6, vec![3., 9., 15.]),
    ] {
        let m = one_node(
            "Conv",
            &["x", "w"],
            &[D::V(1), D::V(1), D::P("t")],
            vec![astr("auto_pad", mode), aints("strides", &[2])],
            vec![f32s("w", &[1, 1, 3], &[1., 1., 1.])],
        );
        let text = imported(&m);
        assert!(text.contains("pads = [\""), "{mode}: {text}");
        let data: Vec<f64> = (1..=len).map(|v| v as f64).collect();
        let x = t(DType::F32, &[1, 1, len], &data);
        let y = run_single(&m, &[x]);
        assert_close(&y[0], &[1, 1, 3], &expected);
    }
}

#[test]
fn conv_transpose_pads_follow_output_shape() {
    let _lock = MLIR.lock();
    // x = [1, 2, 3], w = ones(3), stride 2: the unpadded result is [1, 1, 3, 2, 5, 3, 3].
    for (attrs, expected) in [
        (vec![], vec![1., 1., 3., 2., 5., 3., 3.]),
        (vec![aints("output_shape", &[5])], vec![1., 3., 2., 5., 3.]),
        (
            vec![aints("output_shape", &[6])],
            vec![1., 3., 2., 5., 3., 3.],
        ),
        (
            vec![aints("output_shape", &[6]), astr("auto_pad", "SAME_UPPER")],
            vec![1., 1., 3., 2., 5., 3.],
        ),
        (vec![aints("pads", &[2, 1])], vec![3., 2., 5., 3.]),
    ] {
        let mut attrs = attrs;
        attrs.push(aints("strides", &[2]));
        let m = one_node(
            "ConvTranspose",
            &["x", "w"],
            &[D::V(1), D::V(1), D::V(3)],
            attrs,
            vec![f32s("w", &[1, 1, 3], &[1., 1., 1.])],
        );
        let y = run_single(&m, &[t(DType::F32, &[1, 1, 3], &[1., 2., 3.])]);
        assert_close(&y[0], &[1, 1, expected.len()], &expected);
    }
}

#[test]
fn pools_convert_to_window_ops() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[1, 1, 6], &[0., 5., 1., 4., 2., 3.]);
    let attrs = || {
        vec![
            aints("kernel_shape", &[3]),
            aints("strides", &[2]),
            aints("pads", &[1, 1]),
        ]
    };
    let m = one_node(
        "MaxPool",
        &["x"],
        &[D::V(1), D::V(1), D::V(6)],
        attrs(),
        vec![],
    );
    assert!(imported(&m).contains("\"ascend.max_pool\""));
    assert_close(
        &run_single(&m, std::slice::from_ref(&x))[0],
        &[1, 1, 3],
        &[5., 5., 4.],
    );
    let m = one_node(
        "AveragePool",
        &["x"],
        &[D::V(1), D::V(1), D::V(6)],
        attrs(),
        vec![],
    );
    assert_close(
        &run_single(&m, std::slice::from_ref(&x))[0],
        &[1, 1, 3],
        &[2.5, 10. / 3., 3.],
    );
    let mut with_pad = attrs();
    with_pad.push(ai("count_include_pad", 1));
    let m = one_node(
        "AveragePool",
        &["x"],
        &[D::V(1), D::V(1), D::V(6)],
        with_pad,
        vec![],
    );
    assert_close(
        &run_single(&m, &[x])[0],
        &[1, 1, 3],
        &[5. / 3., 10. / 3., 3.],
    );
}

#[test]
fn bad_convolutions_are_located_import_errors() {
    let _lock = MLIR.lock();
    // 3 input channels, weights for 2 per group x 2 groups.
    let m = one_node(
        "Conv",
        &["x", "w"],
        &[D::V(1), D::V(3), D::V(5)],
        vec![ai("group", 2)],
        vec![f32s("w", &[2, 2, 3], &[0.; 12])],
    );
    let e = import_err(&m);
    assert!(
        e.contains("node 'conv_y' (Conv)")
            && e.contains("input has 3 channels, the weights take 4"),
        "{e}"
    );
    // A 2-D kernel for a 1-D convolution.
    let m = one_node(
        "Conv",
        &["x", "w"],
        &[D::V(1), D::V(3), D::V(5)],
        vec![],
        vec![f32s("w", &[2, 3, 3, 3], &[0.; 54])],
    );
    let e = import_err(&m);
    assert!(
        e.contains("kernel rank 4 does not match input rank 3"),
        "{e}"
    );
    // A pool without kernel_shape.
    let m = one_node(
        "MaxPool",
        &["x"],
        &[D::V(1), D::V(3), D::V(5)],
        vec![],
        vec![],
    );
    let e = import_err(&m);
    assert!(e.contains("needs attribute 'kernel_shape'"), "{e}");
}
