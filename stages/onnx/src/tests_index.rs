//! Unit tests of the index and loss converters (`ops_index.rs`): ArgMax, ArgMin,
//! Hardmax, OneHot, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, run through
//! the reference interpreters (before and after the lowering pipeline) against
//! hand-computed values.

use super::proto::{data_type as dt, AttributeProto, TensorProto};
use super::tests::{ai, assert_close, astr, import_err, model, node, run_single, t, vi, D, MLIR};
use autofuse_ir::graph::DType;

fn scalar_i64(name: &str, v: i64) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![],
        data_type: dt::INT64,
        int64_data: vec![v],
        ..Default::default()
    }
}

/// One `op` node of opset `opset` on a [2, 4] f32 input `x` with output `y`.
fn arg_model(
    op: &str,
    opset: i64,
    attrs: Vec<AttributeProto>,
    out: &[i64],
) -> super::proto::ModelProto {
    let out_dims: Vec<D> = out.iter().map(|&d| D::V(d)).collect();
    model(
        opset,
        vec![node(op, &["x"], &["y"], attrs)],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(4)])],
        vec![vi("y", dt::INT64, &out_dims)],
        vec![],
    )
}

#[test]
fn arg_max_and_min_pick_the_first_or_last_of_ties() {
    let _lock = MLIR.lock();
    // Row 0 has its maximum 3 at 1 and 2 and its minimum 1 at 0 and 3;
    // row 1 has its maximum 5 at 3 and its minimum 1 at 2.
    let x = t(DType::F32, &[2, 4], &[1., 3., 3., 1., 2., 2., 1., 5.]);
    for (op, last, expected) in [
        ("ArgMax", 0, [1., 3.]),
        ("ArgMax", 1, [2., 3.]),
        ("ArgMin", 0, [0., 2.]),
        ("ArgMin", 1, [3., 2.]),
    ] {
        let m = arg_model(
            op,
            13,
            vec![ai("axis", 1), ai("select_last_index", last)],
            &[2, 1],
        );
        let out = run_single(&m, std::slice::from_ref(&x));
        assert_eq!(out[0].dtype, DType::I64, "{op}");
        assert_close(&out[0], &[2, 1], &expected);
    }
    // keepdims = 0 along axis 0 (the default axis): per column, the larger row.
    let m = arg_model("ArgMax", 13, vec![ai("keepdims", 0)], &[4]);
    let out = run_single(&m, std::slice::from_ref(&x));
    assert_close(&out[0], &[4], &[1., 0., 0., 1.]);
    // A negative axis, opset 11.
    let m = arg_model("ArgMin", 11, vec![ai("axis", -1), ai("keepdims", 0)], &[2]);
    let out = run_single(&m, &[x]);
    assert_close(&out[0], &[2], &[0., 2.]);
}

#[test]
fn arg_max_and_min_treat_nan_as_the_extreme() {
    let _lock = MLIR.lock();
    // numpy: argmax and argmin of a row holding NaN are the first NaN (the last with
    // select_last_index); the row without NaN is unaffected.
    let x = t(
        DType::F32,
        &[2, 4],
        &[1., f64::NAN, 5., f64::NAN, 4., -1., 7., 0.],
    );
    for (op, last, expected) in [
        ("ArgMax", 0, [1., 2.]),
        ("ArgMax", 1, [3., 2.]),
        ("ArgMin", 0, [1., 1.]),
    ] {
        let m = arg_model(
            op,
            13,
            vec![
                ai("axis", 1),
                ai("keepdims", 0),
                ai("select_last_index", last),
            ],
            &[2],
        );
        let out = run_single(&m, std::slice::from_ref(&x));
        assert_close(&out[0], &[2], &expected);
    }
}

#[test]
fn arg_max_refuses_an_axis_out_of_range() {
    let m = arg_model("ArgMax", 13, vec![ai("axis", 2)], &[2, 1]);
    let e = import_err(&m);
    assert!(e.contains("axis 2 is out of range"), "{e}");
}

#[test]
fn hardmax_marks_the_first_maximum_and_flattens_before_opset_13() {
    let _lock = MLIR.lock();
    // [[[1, 4], [4, 2]]]: along the last axis each row has its own maximum; flattened
    // at axis 1 (opset 11) the four values have one first maximum, at flat index 1.
    let x = t(DType::F32, &[1, 2, 2], &[1., 4., 4., 2.]);
    for (opset, expected) in [(13, [0., 1., 1., 0.]), (11, [0., 1., 0., 0.])] {
        let m = model(
            opset,
            vec![node("Hardmax", &["x"], &["y"], vec![])],
            vec![vi("x", dt::FLOAT, &[D::V(1), D::V(2), D::V(2)])],
            vec![vi("y", dt::FLOAT, &[D::V(1), D::V(2), D::V(2)])],
            vec![],
        );
        let out = run_single(&m, std::slice::from_ref(&x));
        assert_close(&out[0], &[1, 2, 2], &expected);
    }
    // Ties along axis 0: the first row wins.
    let m = model(
        13,
        vec![node("Hardmax", &["x"], &["y"], vec![ai("axis", 0)])],
        vec![vi("x", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(3)])],
        vec![],
    );
    let x = t(DType::F32, &[2, 3], &[3., 0., -1., 3., 2., -2.]);
    let out = run_single(&m, &[x]);
    assert_close(&out[0], &[2, 3], &[1., 0., 1., 0., 1., 0.]);
}

#[test]
fn one_hot_counts_negative_indices_from_depth_and_drops_out_of_range_ones() {
    let _lock = MLIR.lock();
    // depth 4, values [off, on] = [2, 7]: -1 -> 3, -4 -> 0; 5, -5 and +-2^40 are out of
    // range (all off).
    let big = (1i64 << 40) as f64;
    let indices = t(DType::I64, &[8], &[-1., 0., 3., 5., -4., -5., big, -big]);
    let values = t(DType::F32, &[2], &[2., 7.]);
    let m = model(
        11,
        vec![node("OneHot", &["i", "depth", "v"], &["y"], vec![])],
        vec![
            vi("i", dt::INT64, &[D::V(8)]),
            vi("v", dt::FLOAT, &[D::V(2)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(8), D::V(4)])],
        vec![scalar_i64("depth", 4)],
    );
    let out = run_single(&m, &[indices, values]);
    #[rustfmt::skip]
    let expected = [
        2., 2., 2., 7.,
        7., 2., 2., 2.,
        2., 2., 2., 7.,
        2., 2., 2., 2.,
        7., 2., 2., 2.,
        2., 2., 2., 2.,
        2., 2., 2., 2.,
        2., 2., 2., 2.,
    ];
    assert_close(&out[0], &[8, 4], &expected);
}

#[test]
fn one_hot_truncates_float_indices_and_inserts_the_axis() {
    let _lock = MLIR.lock();
    // Float indices truncate toward zero: 1.7 -> 1, -1.2 -> -1 -> 3 (depth 4). Axis 0:
    // the output is [depth, 2], one column per index.
    let m = model(
        11,
        vec![node(
            "OneHot",
            &["i", "depth", "v"],
            &["y"],
            vec![ai("axis", 0)],
        )],
        vec![
            vi("i", dt::FLOAT, &[D::V(2)]),
            vi("v", dt::FLOAT, &[D::V(2)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(4), D::V(2)])],
        vec![scalar_i64("depth", 4)],
    );
    let out = run_single(
        &m,
        &[
            t(DType::F32, &[2], &[1.7, -1.2]),
            t(DType::F32, &[2], &[0., 1.]),
        ],
    );
    assert_close(&out[0], &[4, 2], &[0., 0., 1., 0., 0., 0., 0., 1.]);
}

#[test]
fn one_hot_refuses_values_that_are_not_a_pair() {
    let m = model(
        11,
        vec![node("OneHot", &["i", "depth", "v"], &["y"], vec![])],
        vec![
            vi("i", dt::INT64, &[D::V(2)]),
            vi("v", dt::FLOAT, &[D::V(3)]),
        ],
        vec![vi("y", dt::FLOAT, &[D::V(2), D::V(4)])],
        vec![scalar_i64("depth", 4)],
    );
    let e = import_err(&m);
    assert!(e.contains("two elements"), "{e}");
}

/// A NegativeLogLikelihoodLoss (or SoftmaxCrossEntropyLoss) model: input `x` of
/// `dims`, i64 `target` of `dims` without axis 1, optional f32 `w` of [C].
fn loss_model(
    op: &str,
    dims: &[i64],
    weighted: bool,
    attrs: Vec<AttributeProto>,
    out: &[i64],
    log_prob: bool,
) -> super::proto::ModelProto {
    let x_dims: Vec<D> = dims.iter().map(|&d| D::V(d)).collect();
    let t_dims: Vec<D> = dims
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 1)
        .map(|(_, &d)| D::V(d))
        .collect();
    let mut inputs = vec![
        vi("x", dt::FLOAT, &x_dims),
        vi("target", dt::INT64, &t_dims),
    ];
    let mut names = vec!["x", "target"];
    if weighted {
        inputs.push(vi("w", dt::FLOAT, &[D::V(dims[1])]));
        names.push("w");
    }
    let out_dims: Vec<D> = out.iter().map(|&d| D::V(d)).collect();
    let mut outputs = vec![vi("loss", dt::FLOAT, &out_dims)];
    let mut out_names = vec!["loss"];
    if log_prob {
        outputs.push(vi("log_prob", dt::FLOAT, &x_dims));
        out_names.push("log_prob");
    }
    model(
        if op == "SoftmaxCrossEntropyLoss" {
            13
        } else {
            22
        },
        vec![node(op, &names, &out_names, attrs)],
        inputs,
        outputs,
        vec![],
    )
}

#[test]
fn nll_loss_picks_the_target_class_with_weights_and_reductions() {
    let _lock = MLIR.lock();
    // x = [[-1, -2, -3], [-4, -5, -6]], target [2, 0], weight [0.5, 1, 2]:
    // picked -x = [3, 4]; weighted [6, 2] (weights 2 and 0.5).
    let x = t(DType::F32, &[2, 3], &[-1., -2., -3., -4., -5., -6.]);
    let target = t(DType::I64, &[2], &[2., 0.]);
    let w = t(DType::F32, &[3], &[0.5, 1., 2.]);
    // (reduction, weighted, attributes, output shape, expected)
    type Case<'a> = (&'a str, bool, Vec<AttributeProto>, &'a [usize], &'a [f64]);
    let cases: [Case; 9] = [
        ("none", false, vec![], &[2], &[3., 4.]),
        ("none", true, vec![], &[2], &[6., 2.]),
        ("sum", true, vec![], &[], &[8.]),
        // mean: the weighted sum over the sum of the applied weights, 8 / 2.5.
        ("mean", true, vec![], &[], &[3.2]),
        ("mean", false, vec![], &[], &[3.5]),
        // ignore_index 2: the first element contributes 0 and no weight.
        ("none", true, vec![ai("ignore_index", 2)], &[2], &[0., 2.]),
        ("mean", true, vec![ai("ignore_index", 2)], &[], &[4.]),
        ("mean", false, vec![ai("ignore_index", 2)], &[], &[4.]),
        // An ignore_index no target has changes nothing.
        ("sum", false, vec![ai("ignore_index", 7)], &[], &[7.]),
    ];
    for (reduction, weighted, mut attrs, shape, expected) in cases {
        attrs.push(astr("reduction", reduction));
        let out: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let m = loss_model(
            "NegativeLogLikelihoodLoss",
            &[2, 3],
            weighted,
            attrs,
            &out,
            false,
        );
        let mut inputs = vec![x.clone(), target.clone()];
        if weighted {
            inputs.push(w.clone());
        }
        let got = run_single(&m, &inputs);
        assert_close(&got[0], shape, expected);
    }
}

#[test]
fn nll_loss_over_spatial_dims_and_a_negative_ignore_index() {
    let _lock = MLIR.lock();
    // [N=1, C=2, d=3]: classes [[-1, -2, -3], [-4, -5, -6]], targets [1, 0, 1] pick
    // -4, -2, -6 -> loss [[4, 2, 6]], mean 4 (default reduction).
    let x = t(DType::F32, &[1, 2, 3], &[-1., -2., -3., -4., -5., -6.]);
    let target = t(DType::I64, &[1, 3], &[1., 0., 1.]);
    let m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[1, 2, 3],
        false,
        vec![astr("reduction", "none")],
        &[1, 3],
        false,
    );
    let out = run_single(&m, &[x.clone(), target.clone()]);
    assert_close(&out[0], &[1, 3], &[4., 2., 6.]);
    let m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[1, 2, 3],
        false,
        vec![],
        &[],
        false,
    );
    let out = run_single(&m, &[x, target]);
    assert_close(&out[0], &[], &[4.]);
    // ignore_index -1 with weights [2, 3]: x = [[-1, -2], [-3, -4], [-5, -6]], targets
    // [0, -1, 1] -> losses [2, 0, 18], applied weights [2, 0, 3], mean 20 / 5.
    let m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[3, 2],
        true,
        vec![ai("ignore_index", -1)],
        &[],
        false,
    );
    let out = run_single(
        &m,
        &[
            t(DType::F32, &[3, 2], &[-1., -2., -3., -4., -5., -6.]),
            t(DType::I64, &[3], &[0., -1., 1.]),
            t(DType::F32, &[2], &[2., 3.]),
        ],
    );
    assert_close(&out[0], &[], &[4.]);
    // An ignore_index beyond the classes that a target has: 9 with C = 2 (the i64
    // targets are converted by a gather from a table that covers it).
    let m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[3, 2],
        false,
        vec![ai("ignore_index", 9), astr("reduction", "none")],
        &[3],
        false,
    );
    let text = super::tests::imported(&m);
    assert!(text.contains("\"ascend.gather\""), "{text}");
    let out = run_single(
        &m,
        &[
            t(DType::F32, &[3, 2], &[-1., -2., -3., -4., -5., -6.]),
            t(DType::I64, &[3], &[1., 9., 0.]),
        ],
    );
    assert_close(&out[0], &[3], &[2., 0., 5.]);
}

#[test]
fn softmax_cross_entropy_is_nll_of_log_softmax_with_the_log_prob_output() {
    let _lock = MLIR.lock();
    // Rows [0, ln 3] and [ln 3, 0]: probabilities [1/4, 3/4] and [3/4, 1/4].
    let l3 = 3f64.ln();
    let x = t(DType::F32, &[2, 2], &[0., l3, l3, 0.]);
    let (q, tq) = ((0.25f64).ln(), (0.75f64).ln());
    // Targets [1, 1]: losses [-ln 3/4, -ln 1/4].
    let target = t(DType::I64, &[2], &[1., 1.]);
    let m = loss_model(
        "SoftmaxCrossEntropyLoss",
        &[2, 2],
        false,
        vec![astr("reduction", "none")],
        &[2],
        true,
    );
    let out = run_single(&m, &[x.clone(), target.clone()]);
    assert_close(&out[0], &[2], &[-tq, -q]);
    assert_close(&out[1], &[2, 2], &[q, tq, tq, q]);
    // Mean with ignore_index 1 on targets [1, 0]: only the second row counts, -ln 3/4.
    let m = loss_model(
        "SoftmaxCrossEntropyLoss",
        &[2, 2],
        false,
        vec![ai("ignore_index", 1)],
        &[],
        false,
    );
    let out = run_single(&m, &[x.clone(), t(DType::I64, &[2], &[1., 0.])]);
    assert_close(&out[0], &[], &[-tq]);
    // Sum with weights [1, 2]: 2 * (-ln 3/4) + 2 * (-ln 1/4).
    let m = loss_model(
        "SoftmaxCrossEntropyLoss",
        &[2, 2],
        true,
        vec![astr("reduction", "sum")],
        &[],
        false,
    );
    let out = run_single(&m, &[x, target, t(DType::F32, &[2], &[1., 2.])]);
    assert_close(&out[0], &[], &[-2. * tq - 2. * q]);
}

#[test]
fn losses_refuse_bad_ranks_and_reductions() {
    // A target of the input's rank.
    let mut m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[2, 3],
        false,
        vec![],
        &[],
        false,
    );
    m.graph.as_mut().unwrap().input[1] = vi("target", dt::INT64, &[D::V(2), D::V(3)]);
    let e = import_err(&m);
    assert!(e.contains("the target must have rank 1"), "{e}");
    let m = loss_model(
        "NegativeLogLikelihoodLoss",
        &[2, 3],
        false,
        vec![astr("reduction", "max")],
        &[],
        false,
    );
    let e = import_err(&m);
    assert!(e.contains("unknown reduction 'max'"), "{e}");
}
