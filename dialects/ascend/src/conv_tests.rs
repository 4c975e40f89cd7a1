//! Tests of `conv`, `conv_transpose` and the pools: the interpreter against direct
//! loops written here from the ONNX definitions (small integer data, so every sum is
//! exact in f32 whatever the summation order), and the shape rules on static and
//! symbolic dims.

use crate::interp::run_node;
use crate::shape::{infer, OpShapeQuery};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_symbolic::{Expr, ShapeEnv};
use std::collections::{BTreeMap, HashMap};

/// Deterministic small integers in [-3, 3].
fn data(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 7) as f64 - 3.0
        })
        .collect()
}

fn tensor(shape: &[usize], seed: u64) -> Tensor {
    let len = shape.iter().product();
    Tensor::new(DType::F32, shape.to_vec(), data(len, seed)).unwrap()
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::Array(v.iter().map(|&x| AttrValue::Int(x)).collect())
}

fn static_type(shape: &[usize]) -> TensorType {
    TensorType::new(
        DType::F32,
        shape.iter().map(|&d| Dim::constant(d as i64)).collect(),
    )
}

/// Row-major multi-index helpers for the direct loops.
fn index(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &d in shape {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..d).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    out
}

struct Geo<'a> {
    strides: &'a [i64],
    dilations: &'a [i64],
    pads: &'a [i64],
}

/// ONNX Conv by its definition: y[b, m, o] = sum over c in m's group and taps k of
/// x[b, c, o*s - pad + k*d] * w[m, c - group start, k].
fn direct_conv(x: &Tensor, w: &Tensor, g: &Geo, groups: usize) -> Tensor {
    let n = x.rank() - 2;
    let (batch, m, cg) = (x.shape[0], w.shape[0], w.shape[1]);
    let kernel = &w.shape[2..];
    let out_sp: Vec<usize> = (0..n)
        .map(|i| {
            let eff = g.dilations[i] * (kernel[i] as i64 - 1) + 1;
            ((x.shape[2 + i] as i64 + g.pads[i] + g.pads[n + i] - eff) / g.strides[i] + 1) as usize
        })
        .collect();
    let mut shape = vec![batch, m];
    shape.extend(&out_sp);
    let mut y = vec![0.0; shape.iter().product()];
    let mg = m / groups;
    for b in 0..batch {
        for mo in 0..m {
            let group = mo / mg;
            for o in all_indices(&out_sp) {
                let mut acc = 0.0;
                for ci in 0..cg {
                    for k in all_indices(kernel) {
                        let pos: Vec<i64> = (0..n)
                            .map(|i| {
                                o[i] as i64 * g.strides[i] - g.pads[i]
                                    + k[i] as i64 * g.dilations[i]
                            })
                            .collect();
                        if (0..n).any(|i| pos[i] < 0 || pos[i] >= x.shape[2 + i] as i64) {
                            continue;
                        }
                        let mut xi = vec![b, group * cg + ci];
                        xi.extend(pos.iter().map(|&p| p as usize));
                        let mut wi = vec![mo, ci];
                        wi.extend(&k);
                        acc += x.data[index(&x.shape, &xi)] * w.data[index(&w.shape, &wi)];
                    }
                }
                let mut yi = vec![b, mo];
                yi.extend(&o);
                y[index(&shape, &yi)] = acc;
            }
        }
    }
    Tensor::new(DType::F32, shape, y).unwrap()
}

/// ONNX ConvTranspose in gather form: y[b, m, o] = sum over the input channels c of m's
/// group, taps k and input positions i with i*s - pad + k*d == o of
/// x[b, c, i] * w[c, m - group start, k].
fn direct_conv_transpose(
    x: &Tensor,
    w: &Tensor,
    g: &Geo,
    out_pad: &[i64],
    groups: usize,
) -> Tensor {
    let n = x.rank() - 2;
    let (batch, c, mg) = (x.shape[0], x.shape[1], w.shape[1]);
    let kernel = &w.shape[2..];
    let cg = c / groups;
    let m = mg * groups;
    let out_sp: Vec<usize> = (0..n)
        .map(|i| {
            let eff = g.dilations[i] * (kernel[i] as i64 - 1) + 1;
            ((x.shape[2 + i] as i64 - 1) * g.strides[i] + out_pad[i] + eff
                - g.pads[i]
                - g.pads[n + i]) as usize
        })
        .collect();
    let mut shape = vec![batch, m];
    shape.extend(&out_sp);
    let mut y = vec![0.0; shape.iter().product()];
    for b in 0..batch {
        for mo in 0..m {
            let (group, co) = (mo / mg, mo % mg);
            for o in all_indices(&out_sp) {
                let mut acc = 0.0;
                for ci in 0..cg {
                    for k in all_indices(kernel) {
                        // i = (o + pad - k*d) / s when divisible and in range.
                        let mut pos = Vec::with_capacity(n);
                        for i in 0..n {
                            let num = o[i] as i64 + g.pads[i] - k[i] as i64 * g.dilations[i];
                            if num < 0 || num % g.strides[i] != 0 {
                                break;
                            }
                            let p = num / g.strides[i];
                            if p >= x.shape[2 + i] as i64 {
                                break;
                            }
                            pos.push(p as usize);
                        }
                        if pos.len() != n {
                            continue;
                        }
                        let mut xi = vec![b, group * cg + ci];
                        xi.extend(&pos);
                        let mut wi = vec![group * cg + ci, co];
                        wi.extend(&k);
                        acc += x.data[index(&x.shape, &xi)] * w.data[index(&w.shape, &wi)];
                    }
                }
                let mut yi = vec![b, mo];
                yi.extend(&o);
                y[index(&shape, &yi)] = acc;
            }
        }
    }
    Tensor::new(DType::F32, shape, y).unwrap()
}

fn conv_attrs(g: &Geo, groups: i64) -> BTreeMap<String, AttrValue> {
    BTreeMap::from([
        ("strides".into(), ints(g.strides)),
        ("dilations".into(), ints(g.dilations)),
        ("pads".into(), ints(g.pads)),
        ("groups".into(), AttrValue::Int(groups)),
    ])
}

fn run(op: &str, inputs: &[&Tensor], attrs: &BTreeMap<String, AttrValue>, out: &[usize]) -> Tensor {
    run_node(op, attrs, inputs, &[static_type(out)], &HashMap::new())
        .unwrap()
        .remove(0)
}

fn check_conv(xs: &[usize], ws: &[usize], g: Geo, groups: usize) {
    let (x, w) = (tensor(xs, 1), tensor(ws, 2));
    let want = direct_conv(&x, &w, &g, groups);
    let got = run(
        "ascend.conv",
        &[&x, &w],
        &conv_attrs(&g, groups as i64),
        &want.shape,
    );
    assert_eq!(got.shape, want.shape);
    assert_eq!(got.data, want.data, "conv x{xs:?} w{ws:?}");
    assert!(want.data.iter().any(|&v| v != 0.0));
}

#[test]
fn conv_1d_matches_the_direct_loop() {
    // Whisper's front end: kernel 3, pad 1, then stride 2.
    let one = Geo {
        strides: &[1],
        dilations: &[1],
        pads: &[1, 1],
    };
    check_conv(&[2, 3, 10], &[4, 3, 3], one, 1);
    let two = Geo {
        strides: &[2],
        dilations: &[1],
        pads: &[1, 1],
    };
    check_conv(&[1, 4, 9], &[5, 4, 3], two, 1);
}

#[test]
fn conv_2d_with_groups_dilations_strides_and_pads_matches_the_direct_loop() {
    let g = Geo {
        strides: &[2, 1],
        dilations: &[1, 2],
        pads: &[1, 0, 2, 1],
    };
    check_conv(&[2, 6, 7, 8], &[4, 3, 3, 2], g, 2);
    // Depthwise (groups == channels), asymmetric pads.
    let g = Geo {
        strides: &[1, 2],
        dilations: &[2, 1],
        pads: &[0, 1, 1, 0],
    };
    check_conv(&[1, 4, 6, 5], &[8, 1, 2, 3], g, 4);
    // ViT's patch embedding: kernel == stride, no padding.
    let g = Geo {
        strides: &[4, 4],
        dilations: &[1, 1],
        pads: &[0, 0, 0, 0],
    };
    check_conv(&[2, 3, 8, 12], &[5, 3, 4, 4], g, 1);
}

#[test]
fn conv_3d_matches_the_direct_loop() {
    let g = Geo {
        strides: &[1, 2, 1],
        dilations: &[1, 1, 2],
        pads: &[1, 0, 1, 0, 1, 1],
    };
    check_conv(&[1, 4, 4, 5, 6], &[6, 2, 2, 3, 2], g, 2);
}

#[test]
fn conv_transpose_matches_the_gather_form() {
    // (x shape, w shape, strides, dilations, pads, output_padding, groups)
    type Case = (
        Vec<usize>,
        Vec<usize>,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        usize,
    );
    let cases: Vec<Case> = vec![
        // 1-D, stride 2, output_padding 1.
        (
            vec![2, 3, 5],
            vec![3, 2, 3],
            vec![2],
            vec![1],
            vec![1, 0],
            vec![1],
            1,
        ),
        // 2-D with groups, dilations and asymmetric pads.
        (
            vec![1, 4, 3, 4],
            vec![4, 3, 2, 3],
            vec![2, 3],
            vec![2, 1],
            vec![1, 0, 0, 2],
            vec![0, 2],
            2,
        ),
        // 3-D.
        (
            vec![1, 2, 2, 3, 2],
            vec![2, 2, 2, 2, 3],
            vec![1, 2, 2],
            vec![1, 1, 1],
            vec![0, 1, 0, 0, 0, 1],
            vec![0, 1, 0],
            1,
        ),
    ];
    for (xs, ws, s, d, p, op, groups) in cases {
        let (x, w) = (tensor(&xs, 3), tensor(&ws, 4));
        let g = Geo {
            strides: &s,
            dilations: &d,
            pads: &p,
        };
        let want = direct_conv_transpose(&x, &w, &g, &op, groups);
        let mut attrs = conv_attrs(&g, groups as i64);
        attrs.insert("output_padding".into(), ints(&op));
        let got = run("ascend.conv_transpose", &[&x, &w], &attrs, &want.shape);
        assert_eq!(got.shape, want.shape);
        assert_eq!(got.data, want.data, "conv_transpose x{xs:?} w{ws:?}");
    }
}

fn pool_attrs(
    kernel: &[i64],
    g: &Geo,
    ceil: bool,
    include_pad: Option<bool>,
) -> BTreeMap<String, AttrValue> {
    let mut a = BTreeMap::from([
        ("kernel_shape".into(), ints(kernel)),
        ("strides".into(), ints(g.strides)),
        ("dilations".into(), ints(g.dilations)),
        ("pads".into(), ints(g.pads)),
        ("ceil_mode".into(), AttrValue::Bool(ceil)),
    ]);
    if let Some(p) = include_pad {
        a.insert("count_include_pad".into(), AttrValue::Bool(p));
    }
    a
}

#[test]
fn pools_match_hand_computed_windows() {
    // x = 0..6 as [1, 1, 6]; kernel 3, stride 2, pads 1/1:
    // windows [-1..1], [1..3], [3..5] -> taps {0,1}, {1,2,3}, {3,4,5}.
    let x = Tensor::new(DType::F32, vec![1, 1, 6], vec![0., 5., 1., 4., 2., 3.]).unwrap();
    let g = Geo {
        strides: &[2],
        dilations: &[1],
        pads: &[1, 1],
    };
    let max = run(
        "ascend.max_pool",
        &[&x],
        &pool_attrs(&[3], &g, false, None),
        &[1, 1, 3],
    );
    assert_eq!(max.data, vec![5., 5., 4.]);
    let avg = run(
        "ascend.avg_pool",
        &[&x],
        &pool_attrs(&[3], &g, false, Some(false)),
        &[1, 1, 3],
    );
    assert_eq!(avg.data, vec![2.5, (10f64 / 3.) as f32 as f64, 3.]);
    let avg = run(
        "ascend.avg_pool",
        &[&x],
        &pool_attrs(&[3], &g, false, Some(true)),
        &[1, 1, 3],
    );
    assert_eq!(
        avg.data,
        vec![(5f64 / 3.) as f32 as f64, (10f64 / 3.) as f32 as f64, 3.]
    );
    // ceil_mode: span 6+0-2 = 4, stride 3 -> ceil(4/3)+1 = 3 windows starting at 0, 3,
    // 6; the one at 6 starts past the input and is dropped: 2 windows, the second
    // [3, 4] (two taps).
    let g = Geo {
        strides: &[3],
        dilations: &[1],
        pads: &[0, 0],
    };
    let avg = run(
        "ascend.avg_pool",
        &[&x],
        &pool_attrs(&[2], &g, true, Some(false)),
        &[1, 1, 2],
    );
    assert_eq!(avg.data, vec![2.5, 3.]);
    // Dilated max: taps 0, 2, 4 then 1, 3, 5.
    let g = Geo {
        strides: &[1],
        dilations: &[2],
        pads: &[0, 0],
    };
    let max = run(
        "ascend.max_pool",
        &[&x],
        &pool_attrs(&[3], &g, false, None),
        &[1, 1, 2],
    );
    assert_eq!(max.data, vec![2., 5.]);
}

#[test]
fn max_pool_propagates_nan() {
    let x = Tensor::new(DType::F32, vec![1, 1, 4], vec![1., f64::NAN, 2., 3.]).unwrap();
    let g = Geo {
        strides: &[2],
        dilations: &[1],
        pads: &[0, 0],
    };
    let max = run(
        "ascend.max_pool",
        &[&x],
        &pool_attrs(&[2], &g, false, None),
        &[1, 1, 2],
    );
    assert!(max.data[0].is_nan());
    assert_eq!(max.data[1], 3.);
}

fn sym(name: &str) -> Dim {
    Dim::Known(Expr::symbol(name))
}

fn shape_of(
    op: &str,
    operands: &[TensorType],
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<TensorType, String> {
    let declared = [TensorType::new(DType::F32, vec![])];
    infer(
        &OpShapeQuery {
            op,
            operands,
            attrs,
            declared: &declared,
        },
        &mut ShapeEnv::new(),
    )
    .map(|mut v| v.remove(0))
    .map_err(|e| e.0)
}

fn dims_text(t: &TensorType) -> Vec<String> {
    t.dims.iter().map(|d| d.to_string()).collect()
}

#[test]
fn conv_shape_rule_static_and_symbolic() {
    let g = Geo {
        strides: &[2, 3],
        dilations: &[1, 2],
        pads: &[1, 0, 1, 2],
    };
    let x = static_type(&[2, 6, 11, 13]);
    let w = static_type(&[8, 3, 3, 4]);
    let t = shape_of("ascend.conv", &[x, w.clone()], &conv_attrs(&g, 2)).unwrap();
    // (11+2-3)/2+1 = 6; (13+2-7)/3+1 = 3 (floor of 8/3 is 2).
    assert_eq!(dims_text(&t), ["2", "8", "6", "3"]);
    let xs = TensorType::new(
        DType::F32,
        vec![sym("b"), Dim::constant(6), sym("h"), sym("w")],
    );
    let t = shape_of("ascend.conv", &[xs, w], &conv_attrs(&g, 2)).unwrap();
    fn env(name: &'static str, v: i64) -> impl Fn(&str) -> Option<i64> {
        move |s: &str| (s == name).then_some(v)
    }
    let oh = t.dims[2].expr().unwrap();
    let ow = t.dims[3].expr().unwrap();
    // The expressions evaluate to the direct formula at several sizes.
    for n in 7..20 {
        assert_eq!(
            oh.eval(&env("h", n)).unwrap(),
            (n + 2 - 3).div_euclid(2) + 1,
            "{oh}"
        );
        assert_eq!(
            ow.eval(&env("w", n)).unwrap(),
            (n + 2 - 7).div_euclid(3) + 1,
            "{ow}"
        );
    }
    assert!(oh.symbols().contains("h") && ow.symbols().contains("w"));
    assert_eq!(t.dims[0].to_string(), "b");
}

#[test]
fn conv_transpose_and_pool_shape_rules() {
    let g = Geo {
        strides: &[2],
        dilations: &[1],
        pads: &[1, 0],
    };
    let mut attrs = conv_attrs(&g, 1);
    attrs.insert("output_padding".into(), ints(&[1]));
    let x = TensorType::new(
        DType::F32,
        vec![Dim::constant(1), Dim::constant(3), sym("t")],
    );
    let w = static_type(&[3, 5, 4]);
    let t = shape_of("ascend.conv_transpose", &[x.clone(), w], &attrs).unwrap();
    let o = t.dims[2].expr().unwrap();
    for n in 1..9 {
        assert_eq!(
            o.eval(&|s: &str| (s == "t").then_some(n)).unwrap(),
            2 * (n - 1) + 1 + 4 - 1
        );
    }
    assert_eq!(t.dims[1].to_string(), "5");
    // Pools keep the channels; ceil_mode on a static dim.
    let attrs = pool_attrs(
        &[3],
        &Geo {
            strides: &[2],
            dilations: &[1],
            pads: &[0, 0],
        },
        true,
        Some(true),
    );
    let t = shape_of("ascend.avg_pool", &[static_type(&[1, 3, 8])], &attrs).unwrap();
    // ceil((8-3)/2)+1 = 4; the last window starts at 6 < 8: kept.
    assert_eq!(dims_text(&t), ["1", "3", "4"]);
    // On a symbolic dim the last window never starts in the padding here (stride 2 <
    // kernel 3), so the size is ceil((t-3)/2)+1.
    let t = shape_of("ascend.avg_pool", std::slice::from_ref(&x), &attrs).unwrap();
    let o = t.dims[2].expr().unwrap();
    for n in 3..12 {
        assert_eq!(
            o.eval(&|s: &str| (s == "t").then_some(n)).unwrap(),
            (n - 3 + 1) / 2 + 1
        );
    }
    // With stride 3 > kernel 2 it depends on the size (6 -> 2 windows, 7 -> 3): a
    // clear error, not a guess.
    let attrs = pool_attrs(
        &[2],
        &Geo {
            strides: &[3],
            dilations: &[1],
            pads: &[0, 0],
        },
        true,
        Some(true),
    );
    let e = shape_of("ascend.avg_pool", &[x], &attrs).unwrap_err();
    assert!(e.contains("ceil_mode"), "{e}");
}

#[test]
fn bad_conv_operands_are_errors() {
    let g = Geo {
        strides: &[1, 1],
        dilations: &[1, 1],
        pads: &[0, 0, 0, 0],
    };
    // 6 channels, kernel 4 per group x 2 groups.
    let e = shape_of(
        "ascend.conv",
        &[static_type(&[1, 6, 5, 5]), static_type(&[4, 4, 3, 3])],
        &conv_attrs(&g, 2),
    )
    .unwrap_err();
    assert!(
        e.contains("has 6 channels") && e.contains("expects 8"),
        "{e}"
    );
    // Kernel rank 3 for a 2-D convolution.
    let e = shape_of(
        "ascend.conv",
        &[static_type(&[1, 6, 5, 5]), static_type(&[4, 6, 3])],
        &conv_attrs(&g, 1),
    )
    .unwrap_err();
    assert!(
        e.contains("kernel rank 3 does not match input rank 4"),
        "{e}"
    );
    // Output channels not divisible by groups.
    let e = shape_of(
        "ascend.conv",
        &[static_type(&[1, 6, 5, 5]), static_type(&[5, 3, 3, 3])],
        &conv_attrs(&g, 2),
    )
    .unwrap_err();
    assert!(e.contains("not a multiple of groups 2"), "{e}");
    // A window larger than the padded input.
    let e = shape_of(
        "ascend.conv",
        &[static_type(&[1, 6, 2, 5]), static_type(&[4, 6, 3, 3])],
        &conv_attrs(&g, 1),
    )
    .unwrap_err();
    assert!(e.contains("larger than the padded size"), "{e}");
    // The interpreter rejects the same operands (it runs the shape rule first).
    let (x, w) = (tensor(&[1, 6, 5, 5], 1), tensor(&[4, 4, 3, 3], 2));
    let e = run_node(
        "ascend.conv",
        &conv_attrs(&g, 2),
        &[&x, &w],
        &[static_type(&[1, 4, 3, 3])],
        &HashMap::new(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("channels"), "{e}");
}
