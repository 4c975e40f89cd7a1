//! Unit tests of the Resize converter (`ops_resize.rs`), run through the reference
//! interpreters (before and after the lowering pipeline) against hand-computed values.

use super::proto::{data_type as dt, AttributeProto, TensorProto};
use super::tests::{
    af, ai, aints, assert_close, astr, import_err, imported, model, node, run_single, t, vi, D,
    MLIR,
};
use autofuse_ir::graph::DType;

fn floats(name: &str, v: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![v.len() as i64],
        data_type: dt::FLOAT,
        float_data: v.to_vec(),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![v.len() as i64],
        data_type: dt::INT64,
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

fn dims(v: &[i64]) -> Vec<D> {
    v.iter().map(|&d| D::V(d)).collect()
}

/// One Resize node (opset 19) on an f32 input `x` of shape `x_dims`; `operands` names
/// roi, scales and sizes ("" when absent), `inits` holds them.
fn resize_model(
    x_dims: &[i64],
    y_dims: &[i64],
    operands: [&str; 3],
    inits: Vec<TensorProto>,
    attrs: Vec<AttributeProto>,
) -> super::proto::ModelProto {
    let inputs = ["x", operands[0], operands[1], operands[2]];
    // Trailing absent operands are left out.
    let used = inputs.iter().rposition(|s| !s.is_empty()).unwrap() + 1;
    model(
        19,
        vec![node("Resize", &inputs[..used], &["y"], attrs)],
        vec![vi("x", dt::FLOAT, &dims(x_dims))],
        vec![vi("y", dt::FLOAT, &dims(y_dims))],
        inits,
    )
}

#[test]
fn nearest_upsamples_by_two_asymmetric() {
    let _lock = MLIR.lock();
    // x_ori = y / 2: 0, 0.5, 1, 1.5; round_prefer_floor takes 0, 0, 1, 1 on both axes.
    let m = resize_model(
        &[1, 1, 2, 2],
        &[1, 1, 4, 4],
        ["", "scales", ""],
        vec![floats("scales", &[1., 1., 2., 2.])],
        vec![
            astr("mode", "nearest"),
            astr("coordinate_transformation_mode", "asymmetric"),
        ],
    );
    let x = t(DType::F32, &[1, 1, 2, 2], &[1., 2., 3., 4.]);
    let out = run_single(&m, &[x]);
    #[rustfmt::skip]
    let expected = [
        1., 1., 2., 2.,
        1., 1., 2., 2.,
        3., 3., 4., 4.,
        3., 3., 4., 4.,
    ];
    assert_close(&out[0], &[1, 1, 4, 4], &expected);
    // round_prefer_ceil on one axis: 0, 0.5 -> 1, 1, 1.5 -> 2 clamped to 1.
    let m = resize_model(
        &[2],
        &[4],
        ["", "scales", ""],
        vec![floats("scales", &[2.])],
        vec![
            astr("mode", "nearest"),
            astr("coordinate_transformation_mode", "asymmetric"),
            astr("nearest_mode", "round_prefer_ceil"),
        ],
    );
    let out = run_single(&m, &[t(DType::F32, &[2], &[1., 2.])]);
    assert_close(&out[0], &[4], &[1., 2., 2., 2.]);
}

#[test]
fn linear_half_pixel_downsamples_a_1x1x2x4() {
    let _lock = MLIR.lock();
    // Scale 0.6: H 2 -> 1, x_ori = 0.5 / 0.6 - 0.5 = 1/3 (rows 0 and 1 weighted 2/3,
    // 1/3): [7/3, 10/3, 13/3, 16/3]. W 4 -> 2: x_ori 1/3 (cols 0, 1 weighted 2/3, 1/3)
    // gives 24/9, and x_ori 2 (an integer) takes col 2: 13/3.
    let m = resize_model(
        &[1, 1, 2, 4],
        &[1, 1, 1, 2],
        ["", "scales", ""],
        vec![floats("scales", &[1., 1., 0.6, 0.6])],
        vec![astr("mode", "linear")],
    );
    let x = t(DType::F32, &[1, 1, 2, 4], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let out = run_single(&m, &[x]);
    assert_close(&out[0], &[1, 1, 1, 2], &[24. / 9., 13. / 3.]);
}

#[test]
fn cubic_upsamples_one_axis() {
    let _lock = MLIR.lock();
    // Asymmetric, scale 2: x_ori = y / 2. At integers the coefficients are [0, 0, 1, 0]
    // (the source itself); at k + 0.5 with A = -0.75 they are [A/8, 1/2 - A/8,
    // 1/2 - A/8, A/8] = [-0.09375, 0.59375, 0.59375, -0.09375] on k-1 .. k+2, clamped
    // to the edges: y = 1 reads [1, 1, 2, 4] -> 1.3125, y = 3 [1, 2, 4, 8] -> 2.71875,
    // y = 5 [2, 4, 8, 8] -> 6.1875, y = 7 [4, 8, 8, 8] -> 8.375.
    let m = resize_model(
        &[4],
        &[8],
        ["", "scales", ""],
        vec![floats("scales", &[2.])],
        vec![
            astr("mode", "cubic"),
            astr("coordinate_transformation_mode", "asymmetric"),
        ],
    );
    let out = run_single(&m, &[t(DType::F32, &[4], &[1., 2., 4., 8.])]);
    assert_close(
        &out[0],
        &[8],
        &[1., 1.3125, 2., 2.71875, 4., 6.1875, 8., 8.375],
    );
    // exclude_outside at y = 1: the tap at -1 drops and the others are renormalized
    // by 1.09375: (0.59375 * 1 + 0.59375 * 2 - 0.09375 * 4) / 1.09375 = 1.40625 / 1.09375.
    let m = resize_model(
        &[4],
        &[8],
        ["", "scales", ""],
        vec![floats("scales", &[2.])],
        vec![
            astr("mode", "cubic"),
            astr("coordinate_transformation_mode", "asymmetric"),
            ai("exclude_outside", 1),
        ],
    );
    let out = run_single(&m, &[t(DType::F32, &[4], &[1., 2., 4., 8.])]);
    assert!(
        (out[0].data[1] - 1.40625 / 1.09375).abs() < 1e-5,
        "{:?}",
        out[0].data
    );
}

#[test]
fn tf_crop_and_resize_extrapolates_outside_the_input() {
    let _lock = MLIR.lock();
    // Axis 1 only (axes), roi [0.5, 1.5] of 4 positions, 3 outputs: x_ori = 1.5 y + 1.5
    // = 1.5 (between positions 1 and 2), 3 (position 3), 4.5 (outside: 10).
    let m = resize_model(
        &[2, 4],
        &[2, 3],
        ["roi", "", "sizes"],
        vec![floats("roi", &[0.5, 1.5]), ints("sizes", &[3])],
        vec![
            astr("mode", "linear"),
            astr("coordinate_transformation_mode", "tf_crop_and_resize"),
            af("extrapolation_value", 10.),
            aints("axes", &[-1]),
        ],
    );
    let x = t(DType::F32, &[2, 4], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let out = run_single(&m, &[x]);
    assert_close(&out[0], &[2, 3], &[2.5, 4., 10., 6.5, 8., 10.]);
}

#[test]
fn antialiased_linear_widens_the_filter_when_downsampling() {
    let _lock = MLIR.lock();
    // Scale 0.5: the triangle filter is stretched to 4 taps at (i - ratio) * 0.5. Both
    // outputs have ratio 0.5 (x_ori 0.5 and 2.5): 1 - |[-0.75, -0.25, 0.25, 0.75]|
    // normalized = [0.125, 0.375, 0.375, 0.125], on [-1, 0, 1, 2] -> [1, 1, 2, 4]
    // (1.75) and [1, 2, 3, 4] -> [2, 4, 8, 8] (5.75).
    let m = resize_model(
        &[4],
        &[2],
        ["", "scales", ""],
        vec![floats("scales", &[0.5])],
        vec![astr("mode", "linear"), ai("antialias", 1)],
    );
    let out = run_single(&m, &[t(DType::F32, &[4], &[1., 2., 4., 8.])]);
    assert_close(&out[0], &[2], &[1.75, 5.75]);
}

#[test]
fn half_precision_computes_in_f32() {
    let _lock = MLIR.lock();
    // Linear, align_corners, 2 -> 3: the middle output is the mean.
    let mut m = resize_model(
        &[2],
        &[3],
        ["", "", "sizes"],
        vec![ints("sizes", &[3])],
        vec![
            astr("mode", "linear"),
            astr("coordinate_transformation_mode", "align_corners"),
        ],
    );
    let g = m.graph.as_mut().unwrap();
    g.input[0] = vi("x", dt::FLOAT16, &dims(&[2]));
    g.output[0] = vi("y", dt::FLOAT16, &dims(&[3]));
    let out = run_single(&m, &[t(DType::F16, &[2], &[1., 2.])]);
    assert_eq!(out[0].dtype, DType::F16);
    assert_close(&out[0], &[3], &[1., 1.5, 2.]);
}

#[test]
fn a_dynamic_resized_axis_stays_a_boundary_call() {
    let mut m = resize_model(
        &[4],
        &[8],
        ["", "scales", ""],
        vec![floats("scales", &[2.])],
        vec![],
    );
    let g = m.graph.as_mut().unwrap();
    g.input[0] = vi("x", dt::FLOAT, &[D::P("n")]);
    g.output[0] = vi("y", dt::FLOAT, &[D::A]);
    let text = imported(&m);
    assert!(text.contains("func.call"), "{text}");
    assert!(!text.contains("ascend.gather"), "{text}");
}

#[test]
fn a_dynamic_axis_of_scale_one_is_left_alone() {
    let _lock = MLIR.lock();
    // [n, 2] with scales [1, 2] (nearest, asymmetric): only axis 1 is resampled.
    let mut m = resize_model(
        &[1, 2],
        &[1, 4],
        ["", "scales", ""],
        vec![floats("scales", &[1., 2.])],
        vec![astr("coordinate_transformation_mode", "asymmetric")],
    );
    let g = m.graph.as_mut().unwrap();
    g.input[0] = vi("x", dt::FLOAT, &[D::P("n"), D::V(2)]);
    g.output[0] = vi("y", dt::FLOAT, &[D::P("n"), D::V(4)]);
    let out = run_single(&m, &[t(DType::F32, &[2, 2], &[1., 2., 3., 4.])]);
    assert_close(&out[0], &[2, 4], &[1., 1., 2., 2., 3., 3., 4., 4.]);
}

#[test]
fn resize_refuses_scales_and_sizes_together() {
    let m = resize_model(
        &[4],
        &[8],
        ["", "scales", "sizes"],
        vec![floats("scales", &[2.]), ints("sizes", &[8])],
        vec![],
    );
    let e = import_err(&m);
    assert!(e.contains("scales or sizes, not both"), "{e}");
}
