//! Shape values: the elements of small integer tensors computed from shapes, as symbolic
//! expressions of the graph's dims.
//!
//! Exporters write dynamic shapes as integer subgraphs (`Shape -> Gather -> Unsqueeze ->
//! Concat -> Reshape`, `Where(Equal(shape, -1), ones, shape)` before an `Expand`, the
//! limit of a `Range`). The importer evaluates these subgraphs while it imports, the way
//! GE's symbolic shape derivation does: `Shape` yields the dims' expressions, and every
//! op of the list below maps element expressions to element expressions. A consumer
//! that needs a shape (Reshape, Expand, ConstantOfShape, Slice, Split, Range, Tile)
//! then reads expressions instead of constants, and the shape subgraph itself folds to
//! nothing: the value becomes an `ascend.symbolic_constant` (host-computed from the
//! runtime symbols), which is dead unless data computation reads it.
//!
//! Arithmetic, compares and reductions combine expressions here; data movement
//! (reshape, broadcast, transpose, slice, concat, gathers) runs the reference
//! interpreter's kernel on element ids, so it cannot drift from the op's semantics.
//!
//! An op is evaluated only when every operand's elements are known and the result is
//! small and static. Comparisons are decided only when the shape env proves them for
//! every admissible value of the symbols (dims are >= 1); otherwise the op stays a real
//! op computing on the symbolic constant at run time, which is slower but never wrong.

use autofuse_ascend::interp::run_node;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_ir::tensor::{strides_of, Tensor};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use std::collections::{BTreeMap, HashMap};

/// Largest shape value the importer tracks symbolically.
pub const SHAPE_VALUE_LIMIT: usize = 4096;

/// One operand of a symbolic evaluation: its static shape and element expressions.
pub struct Operand<'a> {
    pub shape: &'a [usize],
    pub elements: &'a [Expr],
    pub dtype: DType,
}

fn c(v: i64) -> Expr {
    Expr::constant(v)
}

fn truth(b: bool) -> Expr {
    c(b as i64)
}

/// `Some(true/false)` when `a rel b` holds or fails for every value of the symbols.
fn decide(env: &ShapeEnv, a: &Expr, rel: Relation, b: &Expr) -> Option<bool> {
    match env.static_check(a, rel, b) {
        Tri::True => Some(true),
        Tri::False => Some(false),
        Tri::Unknown => None,
    }
}

/// The index into an operand of shape `from` (right-aligned, numpy broadcasting) of the
/// element at multi-index `index` of the result.
fn broadcast_source(index: &[usize], from: &[usize]) -> usize {
    let offset = index.len() - from.len();
    let strides = strides_of(from);
    from.iter()
        .enumerate()
        .map(|(i, &n)| {
            if n == 1 {
                0
            } else {
                index[offset + i] * strides[i]
            }
        })
        .sum()
}

/// Every multi-index of `shape` in row-major order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let count = autofuse_ir::tensor::shape_elements(shape).unwrap_or(0);
    let strides = strides_of(shape);
    (0..count)
        .map(|flat| {
            shape
                .iter()
                .zip(&strides)
                .map(|(&n, &s)| if n == 0 { 0 } else { (flat / s) % n })
                .collect()
        })
        .collect()
}

fn attr_ints(attrs: &BTreeMap<String, AttrValue>, name: &str) -> Option<Vec<i64>> {
    attrs.get(name)?.as_ints()
}

/// Elementwise ops with numpy broadcasting.
fn elementwise(
    operands: &[Operand],
    out_shape: &[usize],
    f: impl Fn(&[&Expr]) -> Option<Expr>,
) -> Option<Vec<Expr>> {
    indices(out_shape)
        .iter()
        .map(|index| {
            let args: Vec<&Expr> = operands
                .iter()
                .map(|o| &o.elements[broadcast_source(index, o.shape)])
                .collect();
            f(&args)
        })
        .collect()
}

/// Integer division truncating toward zero (ONNX `Div` on integers), where the signs
/// are known.
fn int_div(env: &ShapeEnv, a: &Expr, b: &Expr) -> Option<Expr> {
    if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
        return (y != 0).then(|| c(x.wrapping_div(y)));
    }
    let zero = c(0);
    let a_nonneg = decide(env, a, Relation::Ge, &zero)?;
    let b_pos = decide(env, b, Relation::Gt, &zero)?;
    (a_nonneg && b_pos).then(|| a.floor_div(b))
}

/// `fmod = 0` integer modulo (the sign of the divisor), for a positive divisor.
fn int_mod(env: &ShapeEnv, a: &Expr, b: &Expr) -> Option<Expr> {
    if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
        return (y != 0)
            .then(|| c(x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 }));
    }
    decide(env, b, Relation::Gt, &c(0))?.then(|| a.modulo(b))
}

/// Data movement: which element of the `data` operands each result element is. The
/// reference interpreter's own kernel runs on tensors of element ids (the other operands,
/// such as gather indices, must be constants), so these ops have exactly its semantics.
fn moved(
    op: &str,
    operands: &[Operand],
    attrs: &BTreeMap<String, AttrValue>,
    out_shape: &[usize],
    data: &[usize],
) -> Option<Vec<Expr>> {
    let mut pool: Vec<&Expr> = Vec::new();
    let mut tensors = Vec::with_capacity(operands.len());
    for (k, o) in operands.iter().enumerate() {
        let values: Vec<f64> = if data.contains(&k) {
            let first = pool.len();
            pool.extend(o.elements);
            (first..pool.len()).map(|id| id as f64).collect()
        } else {
            o.elements
                .iter()
                .map(|e| e.as_const().map(|v| v as f64))
                .collect::<Option<_>>()?
        };
        let dtype = if data.contains(&k) {
            DType::I64
        } else {
            o.dtype
        };
        tensors.push(Tensor::new(dtype, o.shape.to_vec(), values).ok()?);
    }
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let result = TensorType::new(
        DType::I64,
        out_shape.iter().map(|&n| Dim::constant(n as i64)).collect(),
    );
    let out = run_node(op, attrs, &refs, &[result], &HashMap::new()).ok()?;
    out.first()?
        .data
        .iter()
        .map(|&id| pool.get(id as usize).map(|e| (*e).clone()))
        .collect()
}

/// Evaluates `op` (full name, `ascend.<op>`) on symbolic operands. `None` when the op
/// is not a shape computation or a needed fact is not provable.
pub fn evaluate(
    op: &str,
    operands: &[Operand],
    attrs: &BTreeMap<String, AttrValue>,
    out_dtype: DType,
    out_shape: &[usize],
    env: &ShapeEnv,
) -> Option<Vec<Expr>> {
    let name = op.strip_prefix("ascend.")?;
    let count = autofuse_ir::tensor::shape_elements(out_shape)?;
    if count > SHAPE_VALUE_LIMIT {
        return None;
    }
    let integral = |d: DType| !d.is_float();
    let cmp = |rel: Relation| {
        elementwise(operands, out_shape, |a| {
            Some(truth(decide(env, a[0], rel, a[1])?))
        })
    };
    let is_true = |e: &Expr| decide(env, e, Relation::Ne, &c(0));
    let result = match name {
        "add" => elementwise(operands, out_shape, |a| Some(a[0].clone() + a[1].clone())),
        "sub" => elementwise(operands, out_shape, |a| Some(a[0].clone() - a[1].clone())),
        "mul" => elementwise(operands, out_shape, |a| Some(a[0].clone() * a[1].clone())),
        "div" if integral(out_dtype) => {
            elementwise(operands, out_shape, |a| int_div(env, a[0], a[1]))
        }
        "floor_div" if integral(out_dtype) => elementwise(operands, out_shape, |a| {
            decide(env, a[1], Relation::Gt, &c(0))?.then(|| a[0].floor_div(a[1]))
        }),
        "mod" if integral(out_dtype) => {
            elementwise(operands, out_shape, |a| int_mod(env, a[0], a[1]))
        }
        "maximum" => elementwise(operands, out_shape, |a| Some(Expr::max(a[0], a[1]))),
        "minimum" => elementwise(operands, out_shape, |a| Some(Expr::min(a[0], a[1]))),
        "neg" => elementwise(operands, out_shape, |a| Some(-a[0].clone())),
        "abs" => elementwise(operands, out_shape, |a| {
            if decide(env, a[0], Relation::Ge, &c(0))? {
                Some(a[0].clone())
            } else {
                Some(-a[0].clone())
            }
        }),
        "eq" => cmp(Relation::Eq),
        "ne" => cmp(Relation::Ne),
        "lt" => cmp(Relation::Lt),
        "le" => cmp(Relation::Le),
        "gt" => cmp(Relation::Gt),
        "ge" => cmp(Relation::Ge),
        "logical_not" => elementwise(operands, out_shape, |a| Some(truth(!is_true(a[0])?))),
        "logical_and" => elementwise(operands, out_shape, |a| {
            Some(truth(is_true(a[0])? && is_true(a[1])?))
        }),
        "logical_or" => elementwise(operands, out_shape, |a| {
            Some(truth(is_true(a[0])? || is_true(a[1])?))
        }),
        "logical_xor" => elementwise(operands, out_shape, |a| {
            Some(truth(is_true(a[0])? != is_true(a[1])?))
        }),
        "select" => elementwise(operands, out_shape, |a| {
            Some(if is_true(a[0])? {
                a[1].clone()
            } else {
                a[2].clone()
            })
        }),
        "cast" => {
            let x = operands.first()?;
            match out_dtype {
                DType::Bool => x
                    .elements
                    .iter()
                    .map(|e| Some(truth(is_true(e)?)))
                    .collect(),
                // Shape values are integers: any integer or float type holds them
                // exactly (below 2^24 for f32, which dims are).
                DType::F32 => Some(x.elements.to_vec()),
                d if integral(d) && integral(x.dtype) => Some(x.elements.to_vec()),
                _ => None,
            }
        }
        "reshape" | "squeeze" | "unsqueeze" | "broadcast_to" | "transpose" | "slice" | "gather"
        | "gather_nd" | "gather_elements" => moved(op, operands, attrs, out_shape, &[0]),
        "concat" => moved(op, operands, attrs, out_shape, &[0, 1]),
        "reduce_sum" | "reduce_prod" | "reduce_max" | "reduce_min" => {
            let x = operands.first()?;
            let rank = x.shape.len();
            let axes =
                autofuse_ascend::shape::reduce_axes(&attr_ints(attrs, "axes")?, rank).ok()?;
            let keep = attrs.get("keep_dims")?.as_bool()?;
            let mut acc: Vec<Option<Expr>> = vec![None; count];
            let kept: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
            let out_strides = strides_of(out_shape);
            for (flat, index) in indices(x.shape).iter().enumerate() {
                let target: usize = if keep {
                    index
                        .iter()
                        .enumerate()
                        .map(|(i, &v)| {
                            if axes.contains(&i) {
                                0
                            } else {
                                v * out_strides[i]
                            }
                        })
                        .sum()
                } else {
                    kept.iter()
                        .enumerate()
                        .map(|(o, &i)| index[i] * out_strides[o])
                        .sum()
                };
                let e = &x.elements[flat];
                acc[target] = Some(match acc[target].take() {
                    None => e.clone(),
                    Some(a) => match name {
                        "reduce_sum" => a + e.clone(),
                        "reduce_prod" => a * e.clone(),
                        "reduce_max" => Expr::max(&a, e),
                        _ => Expr::min(&a, e),
                    },
                });
            }
            acc.into_iter()
                .map(|a| {
                    Some(a.unwrap_or_else(|| match name {
                        "reduce_prod" => c(1),
                        _ => c(0),
                    }))
                })
                .collect()
        }
        _ => None,
    }?;
    (result.len() == count).then_some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str) -> Expr {
        Expr::symbol(name)
    }

    fn run(
        op: &str,
        operands: &[(&[usize], Vec<Expr>)],
        attrs: &[(&str, AttrValue)],
        out_dtype: DType,
        out_shape: &[usize],
    ) -> Option<Vec<String>> {
        let ops: Vec<Operand> = operands
            .iter()
            .map(|(shape, elements)| Operand {
                shape,
                elements,
                dtype: DType::I64,
            })
            .collect();
        let attrs: BTreeMap<String, AttrValue> = attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        evaluate(op, &ops, &attrs, out_dtype, out_shape, &ShapeEnv::new())
            .map(|v| v.iter().map(|e| e.to_string()).collect())
    }

    fn ints(v: &[i64]) -> AttrValue {
        AttrValue::Array(v.iter().map(|&x| AttrValue::Int(x)).collect())
    }

    #[test]
    fn gathers_and_concats_dims() {
        let shape = vec![sym("batch"), sym("seq"), c(64)];
        let picked = run(
            "ascend.gather",
            &[(&[3], shape.clone()), (&[1], vec![c(-2)])],
            &[("axis", AttrValue::Int(0))],
            DType::I64,
            &[1],
        );
        assert_eq!(picked, Some(vec!["seq".to_string()]));
        let joined = run(
            "ascend.concat",
            &[(&[2], shape[..2].to_vec()), (&[2], vec![c(4), c(-1)])],
            &[("axis", AttrValue::Int(0))],
            DType::I64,
            &[4],
        )
        .unwrap();
        assert_eq!(joined, ["batch", "seq", "4", "-1"]);
    }

    #[test]
    fn arithmetic_keeps_expressions() {
        let got = run(
            "ascend.mul",
            &[(&[2], vec![sym("batch"), sym("seq")]), (&[], vec![c(2)])],
            &[],
            DType::I64,
            &[2],
        )
        .unwrap();
        assert_eq!(got, ["2*batch", "2*seq"]);
        let div = run(
            "ascend.div",
            &[(&[], vec![sym("seq") * 8]), (&[], vec![c(4)])],
            &[],
            DType::I64,
            &[],
        )
        .unwrap();
        assert_eq!(div, ["2*seq"]);
    }

    #[test]
    fn comparisons_decide_only_what_holds_for_every_dim() {
        // Dims are at least 1, so a dim is never -1: exporters' Where(Equal(shape, -1)).
        let eq = run(
            "ascend.eq",
            &[(&[2], vec![sym("batch"), c(-1)]), (&[], vec![c(-1)])],
            &[],
            DType::Bool,
            &[2],
        );
        assert_eq!(eq, Some(vec!["0".to_string(), "1".to_string()]));
        // seq == 1 depends on the run: not evaluated.
        let open = run(
            "ascend.eq",
            &[(&[], vec![sym("seq")]), (&[], vec![c(1)])],
            &[],
            DType::Bool,
            &[],
        );
        assert_eq!(open, None);
        let picked = run(
            "ascend.select",
            &[
                (&[2], vec![c(0), c(1)]),
                (&[], vec![c(1)]),
                (&[2], vec![sym("batch"), c(-1)]),
            ],
            &[],
            DType::I64,
            &[2],
        )
        .unwrap();
        assert_eq!(picked, ["batch", "1"]);
    }

    #[test]
    fn reductions_slices_and_casts() {
        let prod = run(
            "ascend.reduce_prod",
            &[(&[2], vec![sym("batch"), sym("seq")])],
            &[("axes", ints(&[0])), ("keep_dims", AttrValue::Bool(false))],
            DType::I64,
            &[],
        )
        .unwrap();
        assert_eq!(prod, ["batch*seq"]);
        let tail = run(
            "ascend.slice",
            &[(&[3], vec![sym("batch"), sym("seq"), c(64)])],
            &[
                ("starts", ints(&[1])),
                ("ends", ints(&[i64::MAX])),
                ("axes", ints(&[0])),
                ("steps", ints(&[1])),
            ],
            DType::I64,
            &[2],
        )
        .unwrap();
        assert_eq!(tail, ["seq", "64"]);
        let float = run(
            "ascend.cast",
            &[(&[], vec![sym("seq")])],
            &[],
            DType::F32,
            &[],
        );
        assert_eq!(float, Some(vec!["seq".to_string()]));
        let half = run(
            "ascend.cast",
            &[(&[], vec![sym("seq")])],
            &[],
            DType::F16,
            &[],
        );
        assert_eq!(half, None);
    }
}
