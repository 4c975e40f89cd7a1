//! Unit tests of the window, crop, sequence, einsum and LRN converters (`ops_misc.rs`),
//! run through the reference interpreters (before and after the lowering pipeline)
//! against hand-computed values.

use super::proto::{data_type as dt, AttributeProto, TensorProto};
use super::tests::{
    af, ai, aints, assert_close, astr, import_err, imported, model, node, run_single, t, vi, D,
    MLIR,
};
use autofuse_ir::graph::DType;

fn ints_tensor(name: &str, dims: &[i64], v: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: dt::INT64,
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

fn dims(v: &[i64]) -> Vec<D> {
    v.iter().map(|&d| D::V(d)).collect()
}

fn window_model(op: &str, size: i64, attrs: Vec<AttributeProto>) -> super::proto::ModelProto {
    model(
        17,
        vec![node(op, &["n"], &["y"], attrs)],
        vec![],
        vec![vi("y", dt::FLOAT, &[D::V(size)])],
        vec![ints_tensor("n", &[], &[size])],
    )
}

#[test]
fn windows_match_their_cosine_sums() {
    let _lock = MLIR.lock();
    let (a, b) = (25.0 / 46.0, 21.0 / 46.0);
    for (op, periodic, size, expected) in [
        // Hann 0.5 - 0.5 cos(2 pi n / N): N = 4 (periodic size 4, symmetric size 5).
        ("HannWindow", 1, 4, vec![0., 0.5, 1., 0.5]),
        ("HannWindow", 0, 5, vec![0., 0.5, 1., 0.5, 0.]),
        // Hamming 25/46 - 21/46 cos(2 pi n / 4).
        ("HammingWindow", 1, 4, vec![a - b, a, a + b, a]),
        // Blackman 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N), N = 4.
        ("BlackmanWindow", 1, 4, vec![0., 0.34, 1., 0.34]),
        ("BlackmanWindow", 0, 3, vec![0., 1., 0.]),
    ] {
        let m = window_model(op, size, vec![ai("periodic", periodic)]);
        let out = run_single(&m, &[]);
        assert_eq!(out[0].dtype, DType::F32, "{op}");
        assert_close(&out[0], &[size as usize], &expected);
    }
}

#[test]
fn windows_refuse_integer_outputs_and_two_element_sizes() {
    // An int32 output is left to a boundary call.
    let m = window_model(
        "HannWindow",
        4,
        vec![ai("output_datatype", dt::INT32 as i64)],
    );
    assert!(imported(&m).contains("@HannWindow"));
    let m = model(
        17,
        vec![node("HannWindow", &["n"], &["y"], vec![])],
        vec![],
        vec![vi("y", dt::FLOAT, &[D::V(4)])],
        vec![ints_tensor("n", &[2], &[4, 4])],
    );
    let e = import_err(&m);
    assert!(e.contains("one element"), "{e}");
}

fn crop_model(
    x: &[i64],
    shape: &[i64],
    axes: Option<&[i64]>,
    y: &[i64],
) -> super::proto::ModelProto {
    let attrs = axes.map(|a| vec![aints("axes", a)]).unwrap_or_default();
    model(
        18,
        vec![node("CenterCropPad", &["x", "s"], &["y"], attrs)],
        vec![vi("x", dt::FLOAT, &dims(x))],
        vec![vi("y", dt::FLOAT, &dims(y))],
        vec![ints_tensor("s", &[shape.len() as i64], shape)],
    )
}

#[test]
fn center_crop_pad_crops_and_pads_around_the_center() {
    let _lock = MLIR.lock();
    let x = t(
        DType::F32,
        &[3, 4],
        &(0..12).map(f64::from).collect::<Vec<_>>(),
    );
    // Rows 3 -> 1: row 1. Columns 4 -> 7: one zero before, two after.
    let m = crop_model(&[3, 4], &[1, 7], None, &[1, 7]);
    let out = run_single(&m, std::slice::from_ref(&x));
    assert_close(&out[0], &[1, 7], &[0., 4., 5., 6., 7., 0., 0.]);
    // Only the last axis, 4 -> 2: columns 1 and 2.
    let m = crop_model(&[3, 4], &[2], Some(&[-1]), &[3, 2]);
    let out = run_single(&m, &[x]);
    assert_close(&out[0], &[3, 2], &[1., 2., 5., 6., 9., 10.]);
}

#[test]
fn center_crop_pad_refuses_mismatched_axes() {
    let m = crop_model(&[3, 4], &[1, 7], Some(&[0]), &[1, 7]);
    let e = import_err(&m);
    assert!(e.contains("2 target dims for 1 axes"), "{e}");
}

fn reverse_model(x: &[i64], time: i64, batch: i64) -> super::proto::ModelProto {
    let b = x[batch as usize];
    model(
        10,
        vec![node(
            "ReverseSequence",
            &["x", "l"],
            &["y"],
            vec![ai("time_axis", time), ai("batch_axis", batch)],
        )],
        vec![vi("x", dt::FLOAT, &dims(x)), vi("l", dt::INT64, &[D::V(b)])],
        vec![vi("y", dt::FLOAT, &dims(x))],
        vec![],
    )
}

#[test]
fn reverse_sequence_reverses_each_prefix() {
    let _lock = MLIR.lock();
    // Batch on axis 0, time on axis 1; lengths 4, 0, 2.
    let x = t(
        DType::F32,
        &[3, 4],
        &(0..12).map(f64::from).collect::<Vec<_>>(),
    );
    let lens = t(DType::I64, &[3], &[4., 0., 2.]);
    let out = run_single(&reverse_model(&[3, 4], 1, 0), &[x, lens]);
    #[rustfmt::skip]
    let expected = [
        3., 2., 1., 0.,
        4., 5., 6., 7.,
        9., 8., 10., 11.,
    ];
    assert_close(&out[0], &[3, 4], &expected);
    // Time on axis 0: column 0 (0, 2, 4, 6) reverses its first 3, column 1 only 1.
    let x = t(
        DType::F32,
        &[4, 2],
        &(0..8).map(f64::from).collect::<Vec<_>>(),
    );
    let lens = t(DType::I64, &[2], &[3., 1.]);
    let out = run_single(&reverse_model(&[4, 2], 0, 1), &[x, lens]);
    assert_close(&out[0], &[4, 2], &[4., 1., 2., 3., 0., 5., 6., 7.]);
}

#[test]
fn reverse_sequence_refuses_equal_axes() {
    let e = import_err(&reverse_model(&[3, 4], 1, 1));
    assert!(e.contains("must be 0 and 1"), "{e}");
}

fn einsum_model(eq: &str, xs: &[&[i64]], y: &[i64]) -> super::proto::ModelProto {
    let names = ["a", "b"];
    model(
        12,
        vec![node(
            "Einsum",
            &names[..xs.len()],
            &["y"],
            vec![astr("equation", eq)],
        )],
        xs.iter()
            .zip(names)
            .map(|(d, n)| vi(n, dt::FLOAT, &dims(d)))
            .collect(),
        vec![vi("y", dt::FLOAT, &dims(y))],
        vec![],
    )
}

#[test]
fn einsum_contracts_sums_and_transposes() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let w = t(DType::F32, &[3, 2], &[1., 0., 0., 1., 1., 1.]);
    // A matrix product, explicit and implicit.
    for eq in ["ij,jk->ik", "ij, jk"] {
        let m = einsum_model(eq, &[&[2, 3], &[3, 2]], &[2, 2]);
        let out = run_single(&m, &[x.clone(), w.clone()]);
        assert_close(&out[0], &[2, 2], &[4., 5., 10., 11.]);
    }
    // The same product with the output transposed.
    let m = einsum_model("ij,jk->ki", &[&[2, 3], &[3, 2]], &[2, 2]);
    let out = run_single(&m, &[x.clone(), w]);
    assert_close(&out[0], &[2, 2], &[4., 10., 5., 11.]);
    // One operand: a transpose and a row sum.
    let m = einsum_model("ij->ji", &[&[2, 3]], &[3, 2]);
    let out = run_single(&m, std::slice::from_ref(&x));
    assert_close(&out[0], &[3, 2], &[1., 4., 2., 5., 3., 6.]);
    let m = einsum_model("ij->i", &[&[2, 3]], &[2]);
    let out = run_single(&m, std::slice::from_ref(&x));
    assert_close(&out[0], &[2], &[6., 15.]);
    // j is summed in the first operand only, then an outer product with k.
    let v = t(DType::F32, &[2], &[1., 2.]);
    let m = einsum_model("ij,k->ik", &[&[2, 3], &[2]], &[2, 2]);
    let out = run_single(&m, &[x, v]);
    assert_close(&out[0], &[2, 2], &[6., 12., 15., 30.]);
    // An inner product to a scalar, and a batch via the ellipsis.
    let p = t(DType::F32, &[3], &[1., 2., 3.]);
    let q = t(DType::F32, &[3], &[4., 5., 6.]);
    let m = einsum_model("i,i", &[&[3], &[3]], &[]);
    let out = run_single(&m, &[p, q]);
    assert_close(&out[0], &[], &[32.]);
    let a = t(DType::F32, &[2, 1, 2], &[1., 2., 3., 4.]);
    let b = t(DType::F32, &[2, 2, 1], &[1., 1., 2., -1.]);
    let m = einsum_model("...ij,...jk->...ik", &[&[2, 1, 2], &[2, 2, 1]], &[2, 1, 1]);
    let out = run_single(&m, &[a, b]);
    assert_close(&out[0], &[2, 1, 1], &[3., 2.]);
}

#[test]
fn einsum_leaves_diagonals_to_a_boundary_call_and_refuses_bad_equations() {
    let m = einsum_model("ii->i", &[&[3, 3]], &[3]);
    assert!(imported(&m).contains("@Einsum"));
    let m = einsum_model("ij,jk->ik", &[&[2, 3]], &[2, 2]);
    let e = import_err(&m);
    assert!(e.contains("2 terms for 1 inputs"), "{e}");
    let m = einsum_model("ij->ik", &[&[2, 3]], &[2, 2]);
    let e = import_err(&m);
    assert!(e.contains("bad label"), "{e}");
}

fn lrn_model(attrs: Vec<AttributeProto>) -> super::proto::ModelProto {
    model(
        13,
        vec![node("LRN", &["x"], &["y"], attrs)],
        vec![vi("x", dt::FLOAT, &dims(&[1, 3, 1, 1]))],
        vec![vi("y", dt::FLOAT, &dims(&[1, 3, 1, 1]))],
        vec![],
    )
}

#[test]
fn lrn_divides_by_the_windowed_square_sum() {
    let _lock = MLIR.lock();
    let x = t(DType::F32, &[1, 3, 1, 1], &[1., 2., 3.]);
    // size 3 (one channel each side), alpha / size = 1, beta 1, bias 1:
    // sums 1+4, 1+4+9, 4+9.
    let m = lrn_model(vec![
        ai("size", 3),
        af("alpha", 3.0),
        af("beta", 1.0),
        af("bias", 1.0),
    ]);
    let out = run_single(&m, std::slice::from_ref(&x));
    assert_close(&out[0], &[1, 3, 1, 1], &[1. / 6., 2. / 15., 3. / 14.]);
    // size 2 (the channel and the next), alpha / size = 1, beta 0.5, bias 0:
    // sums 1+4, 4+9, 9.
    let m = lrn_model(vec![
        ai("size", 2),
        af("alpha", 2.0),
        af("beta", 0.5),
        af("bias", 0.0),
    ]);
    let out = run_single(&m, &[x]);
    let expected = [1. / 5f64.sqrt(), 2. / 13f64.sqrt(), 1.];
    assert_close(&out[0], &[1, 3, 1, 1], &expected);
}

#[test]
fn lrn_needs_a_positive_size() {
    let e = import_err(&lrn_model(vec![]));
    assert!(e.contains("needs a size"), "{e}");
    let e = import_err(&lrn_model(vec![ai("size", 0)]));
    assert!(e.contains("must be positive"), "{e}");
}

/// The last line of defence of the importer: a converter that still panics on some
/// malformed model gives an invalid-model error (located by `import_node`), and the
/// panic message, not a crash.
#[test]
fn a_converter_panic_is_an_error() {
    let err = super::guarded(|| {
        let empty: Vec<i64> = Vec::new();
        let i = empty.len();
        Ok(vec![None; empty[i] as usize])
    });
    match err {
        Err(super::Fail::Invalid(message)) => {
            assert!(message.contains("index out of bounds"), "{message}");
            assert!(message.contains("please report this model"), "{message}");
        }
        _ => panic!("expected an invalid-model error"),
    }
    // A converter that returns normally is unaffected.
    assert!(matches!(super::guarded(|| Ok(vec![None])), Ok(v) if v.len() == 1));
}
