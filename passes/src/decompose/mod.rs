//! `--decompose`: expands composite `ascend` ops into primitives.
//!
//! Expansions (numerically careful forms):
//! - `softmax(x)` = e / sum(e) with e = exp(x - max(x)) (the row max keeps exp finite);
//! - `log_softmax(x)` = (x - max) - log(sum(exp(x - max)));
//! - `layer_norm(x, g, b)` = (x - mean) / sqrt(mean((x - mean)^2) + eps) * g + b over the
//!   axes [axis, rank);
//! - `rms_norm(x, g)` = x / sqrt(mean(x^2) + eps) * g;
//! - `gelu` erf form 0.5*x*(1 + erf(x/sqrt(2))), tanh form
//!   0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)));
//! - `silu(x)` = x*sigmoid(x), `swish(x)` = x*sigmoid(beta*x), `swiglu(g, u)` = silu(g)*u;
//! - `clip(x, lo, hi)` = minimum(maximum(x, lo), hi);
//! - `reduce_mean` = reduce_sum / N when N (the reduced element count) is static. With
//!   a symbolic N it stays `reduce_mean`, a primitive of AscIR (`ascir.mean`), because a
//!   constant op cannot hold a symbol.
//!
//! - `pow(x, c)` with a constant exponent (an `ascend.constant` splat, possibly through a
//!   `cast`) of 1, 2, 3, 4, 0.5, -0.5, -1 or -2 on a float `x` becomes products, `sqrt`
//!   and a division (exact forms). Any other float `pow` (a tensor exponent, another
//!   constant) becomes `exp(y * log(b))` with NumPy's signs, NaNs and special values,
//!   and products by binary exponentiation for integral `|y| < 32` (exact integer
//!   powers); float `mod` becomes `x - floor(x / y) * y` with the product's rounding
//!   error recovered, sign corrections and NumPy's infinite-divisor rule (see
//!   [`float_pow`], [`float_mod`]). AscIR has no pow or float mod instruction: a kernel
//!   holding one would run in the interpreter.
//!
//! - `pad` in constant mode with static pads on two or more axes becomes a chain of pads
//!   on one axis each, innermost first (`--lower-to-ascir` lowers a one-axis pad).
//! - `gather_nd(data, indices)` with index tuples of a static length `k` becomes a
//!   `gather` along axis 0 of `data` reshaped to [prod(leading b + k dims), rest..] by the
//!   linear index sum_j norm(indices[.., j]) * stride_j (+ the batch position times the
//!   indexed block for `batch_dims` b > 0), each inner component made non-negative by
//!   adding its dim where it is negative (the outermost one, without batch dims, by the
//!   gather's own rule); symbolic dims enter as one-element `range`s starting at the
//!   dim; int64 indices are computed in int32 (valid ones fit). The gather then fuses
//!   and lowers like any other.
//! - a `gather` of bool data (a padding mask picked by position; also the one a
//!   `gather_nd` becomes) gathers the data cast to i32 and casts the result back to
//!   bool (exact: 0 and 1), because the lowering gathers no bool (AF-LW003) and the
//!   gather would stay a boundary op.
//!
//! - `pad` in edge, reflect or wrap mode with static non-negative pads becomes, axis by
//!   axis, a concat chain of the operand and slices of it (each output position is a
//!   copy of the input position the mode maps it to; consecutive positions are one
//!   slice, a repeated border a one-element slice and `broadcast_to`); symbolic extents
//!   in edge mode; at most 16 pieces per axis (longer reflections stay `pad`).
//! - `slice` with a step k > 1 on the static innermost axis becomes contiguous data
//!   movement: the groups of k elements from the start's group (a slice; zeros padded
//!   after when the axis ends inside the last group) reshaped to [count, k], the one
//!   column the start falls in, reshaped back (the lowering copies rows, not strided
//!   elements).
//! - `concat` with an operand of static extent 0 along the axis becomes its other
//!   operand (its empty producer, now unused, is erased).
//! - `matmul` whose contraction size `k` and result columns `n` are static and small
//!   (`k <= vectorize-matmul-max-k`, default 32 as GE's `max_k_for_vectorize_mm`;
//!   `n <= vectorize-matmul-max-n`, default 64) on f32/f16/bf16 becomes a broadcast
//!   multiply and a `reduce_sum` over `k`, laid out so that no operand is transposed:
//!   A[.., m, 1, k] * B[.., 1, n, k] summed over the innermost axis when `transpose_b`,
//!   A[.., m, k, 1] * B[.., 1, k, n] summed over axis -2 when not, and
//!   A[.., k, m, 1] * B[.., k, 1, n] summed over axis -3 for `transpose_a` alone (both
//!   transposed: A is transposed first). Batch dims broadcast as the matmul's do.
//!   f16/bf16 operands are cast to f32 and the sum cast back once, as the cube
//!   accumulates. Symbolic `k` or `n`, sizes over the bounds, integer types, or
//!   `vectorize-matmul-max-k=0` keep the boundary op with remark `AF-DC001`.
//!   Why these bounds (chip model of `ascend910b`): per result element the vector form
//!   costs `k` products and `k` sums, `2*4*k` bytes at 256 B/cycle = `k/32` cycles,
//!   while the cube path writes and re-reads every result element through GM
//!   (8 B at ~18 B/cycle ~ 0.44 cycles) plus the operands' share and a kernel launch
//!   (~5550 cycles): the vector form is no slower up to `k` ~ 32. `n` bounds the UB
//!   working set: the `n*k` tile of B and of the products each take `4*n*k` bytes,
//!   8 KiB at 64*32, under double buffering ~32 KiB of the 188 KiB UB, which leaves the
//!   rest to the ops fused around it.
//! - a `cast` of f32/bf16 to int8/uint8 (no vector conversion) clamps to the byte's range
//!   in f32, truncates to int32 and narrows (the saturating cast, exactly).
//! - `isnan`, `isfinite` and `sign` of floats become IEEE comparisons (AscIR has no
//!   instruction of their own): `x != x`, `(x - x) == 0`, and `(x > 0) - (x < 0)` with
//!   NaN kept where `x` is NaN.
//!
//! Division and `sqrt` are used instead of `rsqrt`/`reciprocal`, which are approximate on
//! the device. Normalizations (softmax, log_softmax, layer_norm, rms_norm) of f16/bf16
//! tensors compute in f32 between two casts.
//!
//! Preconditions: the module verifies. Postconditions: no composite op remains except
//! `reduce_mean` over symbolic extents; results keep their types and uses; new ops carry
//! the composite's location.

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_ascend::shape::{normalize_axis, ShapeError};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, Graph, Node, TensorType, ValueDef};
use autofuse_mlir::builder::{Emitter, Typed};
use autofuse_mlir::extract::ExtractedGraph;
use autofuse_mlir::registry::{lookup, Category};
use autofuse_mlir::{diagnostics, extract, raw};
use melior::ir::{operation::OperationLike, operation::OperationResult, OperationRef};
use std::collections::BTreeMap;

pub const PASS: PassInfo = PassInfo {
    argument: "decompose",
    summary: "Expand composite ops (softmax, layer_norm, rms_norm, gelu, silu, ...) into primitives",
    description: "Rewrites every composite ascend op into primitive ops with numerically careful forms \
                  (softmax subtracts the row max; divisions and sqrt instead of approximate rsqrt). \
                  reduce_mean becomes reduce_sum and a division when the reduced extent is static. \
                  pow with a constant exponent of 1, 2, 3, 4, 0.5, -0.5, -1 or -2 on floats becomes \
                  products, sqrt and a division; other float pows become exp(y * log|x|) with \
                  NumPy's signs and special values (binary exponentiation for integral |y| < 32), \
                  float mod x - floor(x / y) * y with the product's rounding error recovered \
                  (AscIR translates neither). A constant pad on \
                  several axes becomes a chain of one-axis pads; an edge, reflect or wrap pad becomes \
                  concats of slices of its operand (the positions its mode maps to); a concat \
                  with an empty operand becomes the other; a slice stepping through the innermost \
                  axis becomes a reshape to [count, step] and a one-column slice. gather_nd with a static index-tuple \
                  length becomes a gather of the flattened indexed dims by the linear index. \
                  A gather of bool data gathers it cast to i32 and casts back (the lowering gathers \
                  no bool). \
                  A matmul with static contraction size k <= vectorize-matmul-max-k and static \
                  result columns n <= vectorize-matmul-max-n (f32, f16/bf16 accumulated in f32) \
                  becomes a broadcast multiply and a reduce_sum over k, which fuse with their \
                  neighbours; other matmuls stay boundary ops with remark AF-DC001. isnan, isfinite \
                  and sign of floats become IEEE comparisons (x != x; (x - x) == 0; (x > 0) - (x < 0), \
                  NaN kept). A cast of f32/bf16 to int8/uint8 clamps, truncates to int32 and narrows.",
    options: &[
        OptionInfo {
            name: "vectorize-matmul-max-k",
            kind: "usize",
            default: "32",
            help: "rewrite a matmul with static contraction size k <= this (and n <= vectorize-matmul-max-n) \
                   into a broadcast multiply and a reduce_sum, which fuse; 0 keeps every matmul",
        },
        OptionInfo {
            name: "vectorize-matmul-max-n",
            kind: "usize",
            default: "64",
            help: "largest static number of result columns n of a vectorized matmul",
        },
        OptionInfo {
            name: "remarks",
            kind: "bool",
            default: "true",
            help: "emit a remark (AF-DC001) for every matmul kept as a boundary op",
        },
    ],
    run,
};

/// The reason codes of this pass, documented in `docs/fusion.md`.
pub const REASON_CODES: &[(&str, &str)] = &[("AF-DC001", "matmul-not-vectorized")];

/// The bounds of the matmul vectorization (pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulGate {
    pub max_k: usize,
    pub max_n: usize,
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let body = extract::module_body(module).ok_or(())?;
    let gate = MatmulGate {
        max_k: diagnostics::or_error(
            module.location(),
            options.get_usize("vectorize-matmul-max-k", 32),
        )?,
        max_n: diagnostics::or_error(
            module.location(),
            options.get_usize("vectorize-matmul-max-n", 64),
        )?,
    };
    let remarks = diagnostics::or_error(module.location(), options.get_bool("remarks", true))?;
    let mut decomposer = Decomposer {
        gate,
        remarks,
        ok: true,
        expanded: 0,
        vectorized: 0,
        dead_transposes: Vec::new(),
    };
    for func in extract::functions(body) {
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        decomposer.decompose_function(&extracted);
    }
    // Transposes folded into vectorized matmuls go once nothing reads them.
    for transpose in decomposer.dead_transposes {
        if transpose
            .results()
            .all(|r| !autofuse_mlir::raw::has_uses(r.into()))
        {
            raw::erase_op(transpose);
        }
    }
    statistics::add(
        PASS.argument,
        "expanded",
        "Number of composite ops expanded and constant-exponent pows reduced",
        decomposer.expanded,
    );
    statistics::add(
        PASS.argument,
        "vectorized-matmuls",
        "Number of matmuls rewritten into a broadcast multiply and a reduce_sum",
        decomposer.vectorized,
    );
    if decomposer.ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The rewrite this pass gives one op (see the module doc), decided from the graph
/// before the function is rewritten.
enum Rewrite {
    /// `isnan`, `isfinite` or `sign` of a float.
    FloatTest,
    /// A cast of f32/bf16 to this byte type.
    ByteCast(DType),
    /// A matmul, vectorized when the gate lets it.
    Matmul,
    GatherNd,
    /// A gather of bool data.
    BoolGather,
    StridedSlice(StridedPlan),
    /// A concat with an empty operand: the operand kept.
    EmptyConcat(usize),
    BorderPad(BorderMode, Vec<PaddedAxis>),
    /// A constant pad of several axes, one (axis, before, after) per padded axis.
    SplitPad(Vec<(usize, i64, i64)>),
    /// A float `pow` (with its constant exponent, if any) or `mod`.
    FloatBinary(Option<f64>),
    /// A `pow` of another type with a constant exponent.
    ReducePow(f64),
    /// Any other composite op.
    Composite,
}

/// The rewrite of `node`, if it has one; where several apply, the first listed in
/// [`Rewrite`] wins.
fn rewrite_of(graph: &Graph, node: &Node) -> Option<Rewrite> {
    let exponent = match node.op.as_str() {
        "ascend.pow" => constant_exponent(graph, node),
        _ => None,
    };
    let pad_axes = match node.op.as_str() {
        "ascend.pad" => multi_axis_pad(node),
        _ => None,
    };
    let is_gather_nd = node.op == "ascend.gather_nd";
    let is_bool_gather =
        node.op == "ascend.gather" && operand_dtype_of(graph, node) == Some(DType::Bool);
    let strided = match node.op.as_str() {
        "ascend.slice" => strided_innermost(graph, node),
        _ => None,
    };
    let kept_concat_operand = match node.op.as_str() {
        "ascend.concat" => concat_of_empty(graph, node),
        _ => None,
    };
    let border = match node.op.as_str() {
        "ascend.pad" => border_pad_axes(node),
        _ => None,
    };
    let is_matmul = node.op == "ascend.matmul";
    // pow and mod of floats that no exact form above covers.
    let float_binary = matches!(node.op.as_str(), "ascend.pow" | "ascend.mod")
        && node
            .results
            .first()
            .and_then(|&v| graph.ty(v))
            .is_some_and(|t| t.dtype.is_float());
    let operand_dtype = node
        .operands
        .first()
        .and_then(|&v| graph.ty(v))
        .map(|t| t.dtype);
    let result_dtype = node
        .results
        .first()
        .and_then(|&v| graph.ty(v))
        .map(|t| t.dtype);
    let is_float_test = matches!(
        node.op.as_str(),
        "ascend.isnan" | "ascend.isfinite" | "ascend.sign"
    ) && operand_dtype.is_some_and(DType::is_float);
    // A cast of f32/bf16 to a byte type, with the byte type it makes.
    let byte_cast_to = result_dtype.filter(|to| {
        node.op == "ascend.cast"
            && matches!(operand_dtype, Some(DType::F32 | DType::BF16))
            && matches!(to, DType::I8 | DType::U8)
    });
    Some(if is_float_test {
        Rewrite::FloatTest
    } else if let Some(to) = byte_cast_to {
        Rewrite::ByteCast(to)
    } else if is_matmul {
        Rewrite::Matmul
    } else if is_gather_nd {
        Rewrite::GatherNd
    } else if is_bool_gather {
        Rewrite::BoolGather
    } else if let Some(plan) = strided {
        Rewrite::StridedSlice(plan)
    } else if let Some(kept) = kept_concat_operand {
        Rewrite::EmptyConcat(kept)
    } else if let Some((mode, axes)) = border {
        Rewrite::BorderPad(mode, axes)
    } else if let Some(axes) = pad_axes {
        Rewrite::SplitPad(axes)
    } else if float_binary {
        Rewrite::FloatBinary(exponent)
    } else if let Some(c) = exponent {
        Rewrite::ReducePow(c)
    } else if lookup(&node.op).map(|s| s.category) == Some(Category::Composite) {
        Rewrite::Composite
    } else {
        return None;
    })
}

/// The state of one run: the options, the counts and outcome it reports, and the
/// transposes folded into vectorized matmuls (erased at the end if nothing reads them).
struct Decomposer<'c, 'a> {
    gate: MatmulGate,
    remarks: bool,
    ok: bool,
    expanded: u64,
    vectorized: u64,
    dead_transposes: Vec<OperationRef<'c, 'a>>,
}

impl<'c: 'a, 'a> Decomposer<'c, 'a> {
    /// Rewrites every op of one function that has a rewrite, each before itself.
    fn decompose_function(&mut self, extracted: &ExtractedGraph<'c, 'a>) {
        let graph = &extracted.graph;
        for (node, op) in graph.nodes.iter().zip(&extracted.ops) {
            let Some(rewrite) = rewrite_of(graph, node) else {
                continue;
            };
            let operands: Option<Vec<TensorType>> = node
                .operands
                .iter()
                .map(|v| graph.ty(*v).cloned())
                .collect();
            let Some(operand_types) = operands else {
                continue;
            };
            let Some(mut emitter) = Emitter::before(*op) else {
                continue;
            };
            let inputs: Vec<Typed> = op
                .operands()
                .zip(operand_types)
                .map(|(value, ty)| Typed { value, ty })
                .collect();
            match self.rewrite(&mut emitter, extracted, (node, op), &inputs, &rewrite) {
                Ok(None) => {}
                Ok(Some(result)) => {
                    let erase_producers = matches!(rewrite, Rewrite::EmptyConcat(_));
                    replace_op(op, &result, erase_producers);
                    self.expanded += 1;
                }
                Err(e) => {
                    diagnostics::error(op.location(), format!("cannot decompose: {e}"));
                    self.ok = false;
                }
            }
        }
    }

    /// The value that replaces the op's result, built with `e` (the op's `inputs` are
    /// its operands); `None` leaves the op in place.
    fn rewrite(
        &mut self,
        e: &mut Emitter<'c, 'a>,
        extracted: &ExtractedGraph<'c, 'a>,
        (node, op): (&Node, &OperationRef<'c, 'a>),
        inputs: &[Typed<'c, 'a>],
        rewrite: &Rewrite,
    ) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
        let result = || node.results.first().and_then(|&r| extracted.graph.ty(r));
        match rewrite {
            Rewrite::FloatTest => float_test(e, node.short_name(), &inputs[0]),
            Rewrite::ByteCast(to) => byte_cast(e, &inputs[0], *to),
            Rewrite::Matmul => self.matmul(e, extracted, (node, op), inputs),
            Rewrite::GatherNd => gather_nd(e, inputs, &node.attrs),
            Rewrite::BoolGather => {
                let axis = int_attr(&node.attrs, "axis")?;
                gather(e, &inputs[0], &inputs[1], &format!("{axis} : i64")).map(Some)
            }
            Rewrite::StridedSlice(plan) => strided_slice(e, &inputs[0], plan),
            Rewrite::EmptyConcat(kept) => Ok(inputs.get(*kept).cloned()),
            Rewrite::BorderPad(mode, axes) => border_pad(e, &inputs[0], *mode, axes),
            Rewrite::SplitPad(axes) => split_pad(e, &inputs[0], axes, &node.attrs),
            Rewrite::FloatBinary(exponent) => {
                float_binary(e, node.op.as_str(), inputs, *exponent, result())
            }
            Rewrite::ReducePow(c) => reduce_pow(e, &inputs[0], *c, result()),
            Rewrite::Composite => expand(e, node.short_name(), inputs, &node.attrs),
        }
    }

    /// A matmul vectorized when [`matmul_form`] lets it (a transpose of the two
    /// innermost axes feeding an operand folded into the matmul's transpose flag, and
    /// erased later if nothing else reads it); otherwise it stays a boundary op, with
    /// remark AF-DC001.
    fn matmul(
        &mut self,
        e: &mut Emitter<'c, 'a>,
        extracted: &ExtractedGraph<'c, 'a>,
        (node, op): (&Node, &OperationRef<'c, 'a>),
        inputs: &[Typed<'c, 'a>],
    ) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
        let graph = &extracted.graph;
        let result = node.results.first().and_then(|&r| graph.ty(r));
        let FoldedMatmul {
            attrs,
            inputs,
            transposes: folded,
        } = fold_operand_transposes(extracted, node, inputs);
        let form = match (inputs.first(), inputs.get(1), result) {
            (Some(a), Some(b), Some(result)) => {
                matmul_form(&a.ty, &b.ty, result, &attrs, self.gate)
            }
            _ => Err("its operand or result types are unknown".to_string()),
        };
        match form {
            Ok(form) => {
                let r = vectorize_matmul(e, &inputs, form, result);
                if matches!(r, Ok(Some(_))) {
                    self.vectorized += 1;
                    for transpose in folded {
                        if !self.dead_transposes.contains(&transpose) {
                            self.dead_transposes.push(transpose);
                        }
                    }
                }
                r
            }
            Err(reason) => {
                if self.remarks {
                    diagnostics::remark(
                        op.location(),
                        format!(
                            "AF-DC001 matmul-not-vectorized: the matmul stays a \
                             boundary op (library kernel): {reason}"
                        ),
                    );
                }
                Ok(None)
            }
        }
    }
}

/// A matmul's attributes and inputs after [`fold_operand_transposes`], and the
/// transposes it folded.
struct FoldedMatmul<'c, 'a> {
    attrs: BTreeMap<String, AttrValue>,
    inputs: Vec<Typed<'c, 'a>>,
    transposes: Vec<OperationRef<'c, 'a>>,
}

/// A matmul whose operands a transpose of the two innermost axes produces reads that
/// transpose's source instead, with the matmul's transpose flag for it flipped.
fn fold_operand_transposes<'c, 'a>(
    extracted: &ExtractedGraph<'c, 'a>,
    node: &Node,
    inputs: &[Typed<'c, 'a>],
) -> FoldedMatmul<'c, 'a> {
    let mut attrs = node.attrs.clone();
    let mut inputs = inputs.to_vec();
    let mut folded = Vec::new();
    for (i, flag) in [(0, "transpose_a"), (1, "transpose_b")] {
        let source = node
            .operands
            .get(i)
            .and_then(|&v| innermost_swap(&extracted.graph, &extracted.ops, v));
        if let (Some((typed, transpose)), Some(slot)) = (source, inputs.get_mut(i)) {
            *slot = typed;
            let on = attrs
                .get(flag)
                .and_then(AttrValue::as_bool)
                .unwrap_or(false);
            attrs.insert(flag.to_string(), AttrValue::Bool(!on));
            folded.push(transpose);
        }
    }
    FoldedMatmul {
        attrs,
        inputs,
        transposes: folded,
    }
}

/// A float `pow` (`op`) or `mod` of `inputs`: a constant exponent with an exact form
/// is reduced ([`reduce_pow`]); otherwise [`float_pow`] or [`float_mod`].
fn float_binary<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    op: &str,
    inputs: &[Typed<'c, 'a>],
    exponent: Option<f64>,
    result: Option<&TensorType>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let reduced = match (exponent, op) {
        (Some(c), "ascend.pow") => reduce_pow(e, &inputs[0], c, result),
        _ => Ok(None),
    };
    match (reduced, result, inputs.get(1)) {
        (Ok(None), Some(result), Some(y)) if op == "ascend.pow" => {
            float_pow(e, &inputs[0], y, result)
        }
        (Ok(None), Some(result), Some(y)) => float_mod(e, &inputs[0], y, result),
        (reduced, _, _) => reduced,
    }
}

/// Replaces the result of `op` by `result` and erases `op`; with `erase_producers` (a
/// concat rewritten to its kept operand) also the `ascend` producers of its operands
/// that nothing reads any more (its empty operand). Only there: a transpose folded into
/// a vectorized matmul is erased at the end of the run, once, and an op read twice is
/// listed once.
fn replace_op(op: &OperationRef, result: &Typed, erase_producers: bool) {
    if let Ok(old) = op.result(0) {
        raw::replace_all_uses(old.into(), result.value);
    }
    let mut producers: Vec<_> = op
        .operands()
        .filter_map(|v| OperationResult::try_from(v).ok())
        .map(|r| r.owner())
        .filter(|p| {
            p.name()
                .as_string_ref()
                .as_str()
                .is_ok_and(|n| n.starts_with("ascend."))
        })
        .collect();
    if !erase_producers {
        producers.clear();
    }
    let mut unique = Vec::new();
    for producer in producers {
        if !unique.contains(&producer) {
            unique.push(producer);
        }
    }
    raw::erase_op(*op);
    for producer in unique {
        let unused = (0..producer.result_count())
            .all(|i| producer.result(i).is_ok_and(|r| !raw::has_uses(r.into())));
        if unused {
            raw::erase_op(producer);
        }
    }
}

/// How a vectorized matmul lays out its product tensor (the three trailing axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatmulForm {
    /// [m, n, k], reduced over the innermost axis (`transpose_b`; also both transposed,
    /// with A transposed first).
    Mnk { transpose_a: bool },
    /// [m, k, n], reduced over axis -2 (neither transposed).
    Mkn,
    /// [k, m, n], reduced over axis -3 (`transpose_a` only).
    Kmn,
}

/// The source of `value` when an `ascend.transpose` that swaps the two innermost axes
/// (and keeps the others) produces it, with that transpose op.
fn innermost_swap<'c, 'a>(
    graph: &Graph,
    ops: &[OperationRef<'c, 'a>],
    value: usize,
) -> Option<(Typed<'c, 'a>, OperationRef<'c, 'a>)> {
    let ValueDef::Result { node, .. } = graph.values.get(value)?.def else {
        return None;
    };
    let producer = graph.nodes.get(node)?;
    if producer.op != "ascend.transpose" {
        return None;
    }
    let perm = producer.attrs.get("perm")?.as_ints()?;
    let r = perm.len();
    let mut swap: Vec<i64> = (0..r as i64).collect();
    if r < 2 {
        return None;
    }
    swap.swap(r - 2, r - 1);
    if perm != swap {
        return None;
    }
    let source = *producer.operands.first()?;
    let op = *ops.get(node)?;
    let typed = Typed {
        value: op.operand(0).ok()?,
        ty: graph.ty(source)?.clone(),
    };
    Some((typed, op))
}

/// Whether a matmul of these types is vectorized under `gate`, and in which layout;
/// `Err` says why it stays a boundary op.
pub fn matmul_form(
    a: &TensorType,
    b: &TensorType,
    result: &TensorType,
    attrs: &BTreeMap<String, AttrValue>,
    gate: MatmulGate,
) -> Result<MatmulForm, String> {
    if gate.max_k == 0 {
        return Err("vectorize-matmul-max-k=0 disables the vectorization".into());
    }
    let flag = |n: &str| attrs.get(n).and_then(AttrValue::as_bool).unwrap_or(false);
    let (ta, tb) = (flag("transpose_a"), flag("transpose_b"));
    let (ra, rb) = (a.rank(), b.rank());
    if ra < 2 || rb < 2 || result.rank() < 2 {
        return Err("an operand has rank < 2".into());
    }
    for (what, dtype) in [
        ("operand", a.dtype),
        ("operand", b.dtype),
        ("result", result.dtype),
    ] {
        if !matches!(dtype, DType::F32 | DType::F16 | DType::BF16) {
            return Err(format!(
                "{what} element type {dtype} (vectorized only for f32, f16 and bf16: the \
                 vector unit reduces floats only)"
            ));
        }
    }
    let k_dim = if ta { &a.dims[ra - 2] } else { &a.dims[ra - 1] };
    let n_dim = &result.dims[result.rank() - 1];
    let static_size = |what: &str, dim: &Dim| -> Result<usize, String> {
        dim.as_const()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| format!("{what} = {dim} is not static"))
    };
    let k = static_size("the contraction size k", k_dim)?;
    let n = static_size("the result columns n", n_dim)?;
    if k > gate.max_k {
        return Err(format!(
            "k = {k} exceeds vectorize-matmul-max-k={}",
            gate.max_k
        ));
    }
    if n > gate.max_n {
        return Err(format!(
            "n = {n} exceeds vectorize-matmul-max-n={}",
            gate.max_n
        ));
    }
    Ok(match (ta, tb) {
        (_, true) => MatmulForm::Mnk { transpose_a: ta },
        (false, false) => MatmulForm::Mkn,
        (true, false) => MatmulForm::Kmn,
    })
}

/// A matmul as a broadcast multiply and a `reduce_sum` over k (see the module text), in
/// f32 for f16/bf16 operands, cast to the matmul's result type.
fn vectorize_matmul<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    inputs: &[Typed<'c, 'a>],
    form: MatmulForm,
    result: Option<&TensorType>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let (Some(a), Some(b), Some(result)) = (inputs.first(), inputs.get(1), result) else {
        return Err(ShapeError(
            "matmul takes two operands and one result".into(),
        ));
    };
    let widen = |e: &mut Emitter<'c, 'a>, t: &Typed<'c, 'a>| {
        if t.ty.dtype == DType::F32 {
            Ok(t.clone())
        } else {
            e.op("ascend.cast", &[t], &[], Some(DType::F32))
        }
    };
    let mut a = widen(e, a)?;
    let b = widen(e, b)?;
    let (ra, rb) = (a.ty.rank(), b.ty.rank());
    let unsqueeze = |e: &mut Emitter<'c, 'a>, t: &Typed<'c, 'a>, axis: usize| {
        let axes = format!("[{axis}]");
        e.op("ascend.unsqueeze", &[t], &[("axes", &axes)], None)
    };
    // (axis of the new 1 in A, in B, the reduced axis counted from the end).
    let (a_axis, b_axis, from_end) = match form {
        MatmulForm::Mnk { transpose_a } => {
            if transpose_a {
                let mut perm: Vec<usize> = (0..ra).collect();
                perm.swap(ra - 2, ra - 1);
                let perm = axes_text(&perm);
                a = e.op("ascend.transpose", &[&a], &[("perm", &perm)], None)?;
            }
            (ra - 1, rb - 2, 1)
        }
        MatmulForm::Mkn => (ra, rb - 2, 2),
        MatmulForm::Kmn => (ra, rb - 1, 3),
    };
    let a3 = unsqueeze(e, &a, a_axis)?;
    let b3 = unsqueeze(e, &b, b_axis)?;
    let product = e.op("ascend.mul", &[&a3, &b3], &[], None)?;
    let axis = product.ty.rank() - from_end;
    let axes = axes_text(&[axis]);
    let sum = e.op(
        "ascend.reduce_sum",
        &[&product],
        &[("axes", &axes), ("keep_dims", "false")],
        None,
    )?;
    if sum.ty.dims != result.dims {
        return Err(ShapeError(format!(
            "internal error: the vectorized matmul has shape {} instead of {}",
            sum.ty, result
        )));
    }
    if sum.ty.dtype == result.dtype {
        return Ok(Some(sum));
    }
    e.op("ascend.cast", &[&sum], &[], Some(result.dtype))
        .map(Some)
}

/// The padded axes of a constant-mode `pad` with static pads on two or more axes, as
/// (axis, before, after), innermost first; `None` for any other pad.
fn multi_axis_pad(pad: &Node) -> Option<Vec<(usize, i64, i64)>> {
    let mode = pad.attrs.get("mode").and_then(AttrValue::as_str);
    if mode.is_some_and(|m| m != "constant") {
        return None;
    }
    let pads: Vec<i64> = pad
        .attrs
        .get("pads")?
        .as_exprs()?
        .iter()
        .map(|p| p.as_const())
        .collect::<Option<_>>()?;
    let rank = pads.len() / 2;
    let axes: Vec<(usize, i64, i64)> = (0..rank)
        .rev()
        .filter(|&k| pads[k] != 0 || pads[rank + k] != 0)
        .map(|k| (k, pads[k], pads[rank + k]))
        .collect();
    (axes.len() >= 2).then_some(axes)
}

/// A slice with a step above 1 on the innermost axis, as the decomposition needs it:
/// the other axes' slicing (starts, ends, axes, steps as attribute texts, or `None`),
/// then `count` elements from `start` every `step` of the innermost axis of static
/// extent `n`.
struct StridedPlan {
    outer: Option<[String; 4]>,
    n: i64,
    start: i64,
    step: i64,
    count: i64,
}

fn strided_innermost(graph: &Graph, slice: &Node) -> Option<StridedPlan> {
    let x = graph.ty(*slice.operands.first()?)?;
    let result = graph.ty(*slice.results.first()?)?;
    let rank = x.rank();
    let last = rank.checked_sub(1)?;
    let starts = slice.attrs.get("starts")?.as_exprs()?;
    let ends = slice.attrs.get("ends")?.as_exprs()?;
    let axes = slice.attrs.get("axes")?.as_ints()?;
    let steps = slice.attrs.get("steps")?.as_ints()?;
    let inner = axes
        .iter()
        .position(|&a| normalize_axis(a, rank).ok() == Some(last))?;
    let step = *steps.get(inner)?;
    let n = x.dims[last].as_const()?;
    let count = result.dims[last].as_const()?;
    if step <= 1 || count < 1 {
        return None;
    }
    let env = autofuse_symbolic::ShapeEnv::new();
    let size = autofuse_symbolic::Expr::constant(n);
    let start = autofuse_ascend::shape::slice_bound(starts.get(inner)?, &size, &env)
        .ok()?
        .as_const()?;
    if start + (count - 1) * step >= n {
        return None;
    }
    let others: Vec<usize> = (0..axes.len()).filter(|&i| i != inner).collect();
    let outer = (!others.is_empty()).then(|| {
        let list = |f: &dyn Fn(usize) -> String| {
            format!(
                "[{}]",
                others.iter().map(|&i| f(i)).collect::<Vec<_>>().join(", ")
            )
        };
        [
            list(&|i| format!("{:?}", starts[i].to_string())),
            list(&|i| format!("{:?}", ends[i].to_string())),
            list(&|i| axes[i].to_string()),
            list(&|i| steps[i].to_string()),
        ]
    });
    Some(StridedPlan {
        outer,
        n,
        start,
        step,
        count,
    })
}

/// A slice stepping through the innermost axis (`x[..., s::k]`, the interleaved halves
/// of a rotary embedding) as contiguous data movement: the `count` groups of `k`
/// elements from the group holding `s` (a contiguous slice; when the axis ends inside
/// the last group, the elements from `s` padded with zeros after) viewed as
/// `[count, k]` (a reshape), their column `s % k` (or 0 after the pad; a slice keeping
/// one element of the innermost dim: rows of one element), reshaped back. The other
/// axes are sliced first.
fn strided_slice<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    plan: &StridedPlan,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let mut current = x.clone();
    if let Some([starts, ends, axes, steps]) = &plan.outer {
        current = e.op(
            "ascend.slice",
            &[&current],
            &[
                ("starts", starts),
                ("ends", ends),
                ("axes", axes),
                ("steps", steps),
            ],
            None,
        )?;
    }
    let rank = current.ty.rank();
    let last = rank - 1;
    // Whole groups of `k` from the group holding `start` when the axis holds them (the
    // column is then `start % k`), else the elements from `start` padded to `count * k`.
    let span = plan.count * plan.step;
    let group = plan.start / plan.step * plan.step;
    let (first, column) = if group + span <= plan.n {
        (group, plan.start - group)
    } else {
        (plan.start, 0)
    };
    let end = (first + span).min(plan.n);
    if first > 0 || end < plan.n {
        current = e.op(
            "ascend.slice",
            &[&current],
            &[
                ("starts", &format!("[{first}]")),
                ("ends", &format!("[{end}]")),
                ("axes", &format!("[{last}]")),
                ("steps", "[1]"),
            ],
            None,
        )?;
    }
    let short = first + span - end;
    if short > 0 {
        let mut pads = vec![0i64; 2 * rank];
        pads[rank + last] = short;
        current = e.op(
            "ascend.pad",
            &[&current],
            &[
                ("pads", &format!("{pads:?}")),
                ("mode", "\"constant\""),
                ("value", "0.0 : f64"),
            ],
            None,
        )?;
    }
    let mut dims = current.ty.dims.clone();
    dims[last] = Dim::constant(plan.count);
    dims.push(Dim::constant(plan.step));
    let grid_ty = TensorType::new(current.ty.dtype, dims);
    let grid = e.build("ascend.reshape", &[&current], &[], &grid_ty)?;
    let grid = Typed {
        value: grid,
        ty: grid_ty,
    };
    let column = e.op(
        "ascend.slice",
        &[&grid],
        &[
            ("starts", &format!("[{column}]")),
            ("ends", &format!("[{}]", column + 1)),
            ("axes", &format!("[{}]", last + 1)),
            ("steps", "[1]"),
        ],
        None,
    )?;
    let mut dims = column.ty.dims.clone();
    dims.pop();
    let result_ty = TensorType::new(current.ty.dtype, dims);
    let value = e.build("ascend.reshape", &[&column], &[], &result_ty)?;
    Ok(Some(Typed {
        value,
        ty: result_ty,
    }))
}

/// The operand a concat reduces to when the other one is empty along the axis (a
/// statically zero extent, as an exported split of a rotary embedding's pass-through
/// part produces when the whole head rotates): the concat is that operand.
fn concat_of_empty(graph: &Graph, concat: &Node) -> Option<usize> {
    let types: Vec<&TensorType> = concat
        .operands
        .iter()
        .map(|v| graph.ty(*v))
        .collect::<Option<_>>()?;
    let result = graph.ty(*concat.results.first()?)?;
    let [x, y] = types[..] else { return None };
    let axis = concat.attrs.get("axis").and_then(AttrValue::as_int)?;
    let axis = normalize_axis(axis, x.rank()).ok()?;
    let empty = |t: &TensorType| {
        t.dims
            .get(axis)
            .and_then(|d| d.expr())
            .and_then(|e| e.as_const())
            == Some(0)
    };
    let kept = match (empty(x), empty(y)) {
        (_, true) => 0,
        (true, false) => 1,
        (false, false) => return None,
    };
    (types[kept] == result).then_some(kept)
}

/// How a border pad maps an output position to an input position along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BorderMode {
    /// Repeat the first / last element (`clamp(j - before, 0, n - 1)`).
    Edge,
    /// Mirror without repeating the border (period `2 (n - 1)`).
    Reflect,
    /// Periodic (`(j - before) mod n`).
    Wrap,
}

impl BorderMode {
    /// The input index of position `i` (relative to the first input element, so the
    /// before-pad is negative) along an axis of static extent `n` (>= 1).
    fn source(self, i: i64, n: i64) -> i64 {
        match self {
            BorderMode::Edge => i.clamp(0, n - 1),
            BorderMode::Wrap => i.rem_euclid(n),
            BorderMode::Reflect if n == 1 => 0,
            BorderMode::Reflect => {
                let m = i.rem_euclid(2 * (n - 1));
                if m >= n {
                    2 * (n - 1) - m
                } else {
                    m
                }
            }
        }
    }
}

/// Most pieces (slices and broadcast borders) one axis of a border pad becomes; larger
/// reflections (one piece per mirrored element) stay `pad` ops.
const MAX_BORDER_PIECES: usize = 16;

/// A padded axis: (axis, before, after).
type PaddedAxis = (usize, i64, i64);

/// The mode and padded axes (axis, before, after) of an edge / reflect / wrap `pad` with
/// static, non-negative pads; `None` for any other pad.
fn border_pad_axes(pad: &Node) -> Option<(BorderMode, Vec<PaddedAxis>)> {
    let mode = match pad.attrs.get("mode").and_then(AttrValue::as_str)? {
        "edge" => BorderMode::Edge,
        "reflect" => BorderMode::Reflect,
        "wrap" => BorderMode::Wrap,
        _ => return None,
    };
    let pads: Vec<i64> = pad
        .attrs
        .get("pads")?
        .as_exprs()?
        .iter()
        .map(|p| p.as_const())
        .collect::<Option<_>>()?;
    if pads.iter().any(|&p| p < 0) {
        return None;
    }
    let rank = pads.len() / 2;
    let axes: Vec<PaddedAxis> = (0..rank)
        .rev()
        .filter(|&k| pads[k] != 0 || pads[rank + k] != 0)
        .map(|k| (k, pads[k], pads[rank + k]))
        .collect();
    (!axes.is_empty()).then_some((mode, axes))
}

/// One piece of a border-padded axis: `len` consecutive input elements from `start`, or
/// the element at `start` repeated `len` times (a broadcast).
#[derive(Clone, Debug, PartialEq)]
enum BorderPiece {
    Run(autofuse_symbolic::Expr, i64),
    Repeat(autofuse_symbolic::Expr, i64),
    /// The whole axis (the operand itself).
    Whole,
}

/// The pieces of one axis of extent `n` padded by `before` / `after` in `mode`, in
/// output order; `None` when the axis is symbolic and the mode needs its value (reflect,
/// wrap) or when it would take more than `MAX_BORDER_PIECES` pieces.
fn border_pieces(
    mode: BorderMode,
    n: &autofuse_symbolic::Expr,
    before: i64,
    after: i64,
) -> Option<Vec<BorderPiece>> {
    use autofuse_symbolic::Expr;
    let Some(size) = n.as_const() else {
        // Symbolic extent: only the edge mode maps without knowing it.
        if mode != BorderMode::Edge {
            return None;
        }
        let last = n.clone() - Expr::constant(1);
        let mut pieces = Vec::new();
        if before > 0 {
            pieces.push(BorderPiece::Repeat(Expr::constant(0), before));
        }
        pieces.push(BorderPiece::Whole);
        if after > 0 {
            pieces.push(BorderPiece::Repeat(last, after));
        }
        return Some(pieces);
    };
    if size < 1 {
        return None;
    }
    // Group the source indices of the padded regions into runs of consecutive
    // ascending elements and runs of one repeated element.
    let mut raw: Vec<(i64, i64, bool)> = Vec::new(); // (start, len, repeated)
    let push = |src: i64, raw: &mut Vec<(i64, i64, bool)>| match raw.last_mut() {
        Some((start, len, repeated)) if !*repeated && *start + *len == src => *len += 1,
        Some((start, len, repeated)) if (*repeated || *len == 1) && *start == src => {
            *len += 1;
            *repeated = true;
        }
        _ => raw.push((src, 1, false)),
    };
    for i in -before..0 {
        push(mode.source(i, size), &mut raw);
    }
    let mut pieces: Vec<BorderPiece> = Vec::new();
    let flush = |raw: &mut Vec<(i64, i64, bool)>, pieces: &mut Vec<BorderPiece>| {
        for (start, len, repeated) in raw.drain(..) {
            pieces.push(if repeated {
                BorderPiece::Repeat(Expr::constant(start), len)
            } else {
                BorderPiece::Run(Expr::constant(start), len)
            });
        }
    };
    flush(&mut raw, &mut pieces);
    pieces.push(BorderPiece::Whole);
    for i in size..size + after {
        push(mode.source(i, size), &mut raw);
    }
    flush(&mut raw, &mut pieces);
    (pieces.len() <= MAX_BORDER_PIECES).then_some(pieces)
}

/// An edge / reflect / wrap pad as, per padded axis, a concat chain of slices of the
/// operand (the mirrored or wrapped parts; a border repeated by `broadcast_to` of a
/// one-element slice) and the operand itself: every output element is a copy of the
/// input element its mode maps it to, and each piece lowers to a load at an offset, so
/// the chain fuses into one concat kernel. The modes are separable (the map of each
/// axis depends on that axis only), so padding axis by axis equals padding at once.
/// `None` (kept) when an axis cannot be cut into a few pieces.
fn border_pad<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    mode: BorderMode,
    axes: &[PaddedAxis],
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let mut plans = Vec::new();
    for &(axis, before, after) in axes {
        let Some(n) = x.ty.dims.get(axis).and_then(|d| d.expr().cloned()) else {
            return Ok(None);
        };
        let Some(pieces) = border_pieces(mode, &n, before, after) else {
            return Ok(None);
        };
        plans.push((axis, n, pieces));
    }
    let expr_list = |e: &autofuse_symbolic::Expr| format!("[{:?}]", e.to_string());
    let mut current = x.clone();
    for (axis, _n, pieces) in plans {
        let axis_text = format!("[{axis}]");
        let mut joined: Option<Typed<'c, 'a>> = None;
        for piece in &pieces {
            let part = match piece {
                BorderPiece::Whole => current.clone(),
                BorderPiece::Run(start, len) | BorderPiece::Repeat(start, len) => {
                    let width = if matches!(piece, BorderPiece::Run(..)) {
                        *len
                    } else {
                        1
                    };
                    let end = start.clone() + autofuse_symbolic::Expr::constant(width);
                    let slice = e.op(
                        "ascend.slice",
                        &[&current],
                        &[
                            ("starts", &expr_list(start)),
                            ("ends", &expr_list(&end)),
                            ("axes", &axis_text),
                            ("steps", "[1]"),
                        ],
                        None,
                    )?;
                    if matches!(piece, BorderPiece::Repeat(..)) && *len > 1 {
                        let mut dims = slice.ty.dims.clone();
                        dims[axis] = Dim::constant(*len);
                        let ty = TensorType::new(slice.ty.dtype, dims);
                        let value = e.build("ascend.broadcast_to", &[&slice], &[], &ty)?;
                        Typed { value, ty }
                    } else {
                        slice
                    }
                }
            };
            joined = Some(match joined.take() {
                None => part,
                Some(acc) => e.op(
                    "ascend.concat",
                    &[&acc, &part],
                    &[("axis", &format!("{axis} : i64"))],
                    None,
                )?,
            });
        }
        if let Some(j) = joined {
            current = j;
        }
    }
    Ok(Some(current))
}

/// A pad on several axes as a chain of pads on one axis each (innermost first), each of
/// which `--lower-to-ascir` lowers to one concat of fills and the operand.
fn split_pad<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    axes: &[(usize, i64, i64)],
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let rank = x.ty.rank();
    let value = float_attr(attrs, "value").unwrap_or(0.0);
    let value_text = format!("{value:?} : f64");
    let mut current = x.clone();
    for &(axis, before, after) in axes {
        let mut pads = vec![0i64; 2 * rank];
        pads[axis] = before;
        pads[rank + axis] = after;
        // Debug of a Vec<i64> is the attribute text: [0, 3, 0, 5].
        let pads_text = format!("{pads:?}");
        current = e.op(
            "ascend.pad",
            &[&current],
            &[
                ("pads", &pads_text),
                ("mode", "\"constant\""),
                ("value", &value_text),
            ],
            None,
        )?;
    }
    Ok(Some(current))
}

/// A value of `dtype` holding the dim `size`: a scalar constant when static, else a
/// one-element `range` starting at the dim's expression (a constant cannot hold a
/// symbol).
fn dim_value<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    size: &autofuse_symbolic::Expr,
    dtype: DType,
) -> Result<Typed<'c, 'a>, ShapeError> {
    if let Some(v) = size.as_const() {
        return e.scalar(v as f64, dtype);
    }
    let ty = TensorType::new(dtype, vec![Dim::constant(1)]);
    let start = format!("{:?}", size.to_string());
    let value = e.build(
        "ascend.range",
        &[],
        &[("start", &start), ("delta", "1 : i64")],
        &ty,
    )?;
    Ok(Typed { value, ty })
}

/// `gather_nd` as a `gather` along axis 0 of the flattened indexed dims (see the module
/// text). `None` (kept) when the index tuple length or a dim is unknown.
fn gather_nd<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    inputs: &[Typed<'c, 'a>],
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let (Some(data), Some(indices)) = (inputs.first(), inputs.get(1)) else {
        return Err(ShapeError("gather_nd takes data and indices".into()));
    };
    let batch = int_attr(attrs, "batch_dims").unwrap_or(0);
    let (r, q) = (data.ty.rank(), indices.ty.rank());
    let Some(k) = q
        .checked_sub(1)
        .and_then(|last| indices.ty.dims[last].as_const())
    else {
        return Ok(None);
    };
    let (Ok(b), Ok(k)) = (usize::try_from(batch), usize::try_from(k)) else {
        return Err(ShapeError(
            "gather_nd batch_dims and tuple length must be >= 0".into(),
        ));
    };
    if k == 0 || b + k > r || b + 1 > q {
        return Ok(None);
    }
    let dims: Option<Vec<autofuse_symbolic::Expr>> =
        data.ty.dims.iter().map(|d| d.expr().cloned()).collect();
    let Some(dims) = dims else { return Ok(None) };
    let one = autofuse_symbolic::Expr::constant(1);
    let product = |range: std::ops::Range<usize>| {
        dims[range]
            .iter()
            .fold(one.clone(), |acc, d| acc * d.clone())
    };
    // Valid components lie in [-dim, dim) and dims fit in int32, so int64 indices are
    // computed in int32 (the vector unit has no 64-bit arithmetic).
    let idx = match indices.ty.dtype {
        DType::I64 => DType::I32,
        other => other,
    };
    let last = q - 1;
    let mut linear: Option<Typed<'c, 'a>> = None;
    let mut add_term = |e: &mut Emitter<'c, 'a>, term: Typed<'c, 'a>| -> Result<(), ShapeError> {
        linear = Some(match linear.take() {
            None => term,
            Some(sum) => e.op("ascend.add", &[&sum, &term], &[], None)?,
        });
        Ok(())
    };
    // Batch positions: a range along each batch axis of the indices, shaped to broadcast.
    for i in 0..b {
        let size = dims[i].clone();
        let len = TensorType::new(idx, vec![Dim::Known(size.clone())]);
        let position = e.build(
            "ascend.range",
            &[],
            &[("start", "0 : i64"), ("delta", "1 : i64")],
            &len,
        )?;
        let mut shape = vec![Dim::constant(1); q];
        shape[i] = Dim::Known(size);
        let shaped_ty = TensorType::new(idx, shape);
        let shaped = e.build(
            "ascend.reshape",
            &[&Typed {
                value: position,
                ty: len,
            }],
            &[],
            &shaped_ty,
        )?;
        let shaped = Typed {
            value: shaped,
            ty: shaped_ty,
        };
        let stride = dim_value(e, &product(i + 1..b + k), idx)?;
        let term = e.op("ascend.mul", &[&shaped, &stride], &[], None)?;
        add_term(e, term)?;
    }
    let zero = e.scalar(0.0, idx)?;
    for j in 0..k {
        let (start, end, axes) = (
            format!("[{j}]"),
            format!("[{}]", j + 1),
            format!("[{last}]"),
        );
        let component = e.op(
            "ascend.slice",
            &[indices],
            &[
                ("starts", &start),
                ("ends", &end),
                ("axes", &axes),
                ("steps", "[1]"),
            ],
            None,
        )?;
        let component = if component.ty.dtype == idx {
            component
        } else {
            e.op("ascend.cast", &[&component], &[], Some(idx))?
        };
        // A negative component counts from the end of its dim: c + dim * (c < 0), in
        // arithmetic (the vector unit selects only floats). Without batch dims the
        // outermost one needs nothing: a negative linear index is in [-N, 0), which the
        // gather itself counts from the end of the flattened axis.
        let component = if j == 0 && b == 0 {
            component
        } else {
            let size = dim_value(e, &dims[b + j], idx)?;
            let negative = e.op("ascend.lt", &[&component, &zero], &[], Some(DType::Bool))?;
            let negative = e.op("ascend.cast", &[&negative], &[], Some(idx))?;
            let wrap = e.op("ascend.mul", &[&negative, &size], &[], None)?;
            e.op("ascend.add", &[&component, &wrap], &[], None)?
        };
        let stride = product(b + j + 1..b + k);
        let term = if stride.as_const() == Some(1) {
            component
        } else {
            let stride = dim_value(e, &stride, idx)?;
            e.op("ascend.mul", &[&component, &stride], &[], None)?
        };
        add_term(e, term)?;
    }
    let Some(linear) = linear else {
        return Ok(None);
    };
    let axes = format!("[{last}]");
    let linear = e.op("ascend.squeeze", &[&linear], &[("axes", &axes)], None)?;
    let mut flat_dims = vec![Dim::Known(product(0..b + k))];
    flat_dims.extend(data.ty.dims[b + k..].iter().cloned());
    let flat_ty = TensorType::new(data.ty.dtype, flat_dims);
    let flat = e.build("ascend.reshape", &[data], &[], &flat_ty)?;
    let flat = Typed {
        value: flat,
        ty: flat_ty,
    };
    gather(e, &flat, &linear, "0 : i64").map(Some)
}

/// `gather(data, indices)` along `axis` (attribute text); bool data is gathered as i32
/// between two casts (exact for 0 and 1), since the lowering gathers no bool (AF-LW003)
/// while a cast of bool fuses like any other op.
fn gather<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    data: &Typed<'c, 'a>,
    indices: &Typed<'c, 'a>,
    axis: &str,
) -> Result<Typed<'c, 'a>, ShapeError> {
    if data.ty.dtype != DType::Bool {
        return e.op("ascend.gather", &[data, indices], &[("axis", axis)], None);
    }
    let wide = e.op("ascend.cast", &[data], &[], Some(DType::I32))?;
    let picked = e.op("ascend.gather", &[&wide, indices], &[("axis", axis)], None)?;
    e.op("ascend.cast", &[&picked], &[], Some(DType::Bool))
}

/// The element type of `node`'s first operand.
fn operand_dtype_of(graph: &Graph, node: &Node) -> Option<DType> {
    node.operands
        .first()
        .and_then(|&v| graph.ty(v))
        .map(|t| t.dtype)
}

/// The exponent of `pow(x, c)` when `c` is one value: an `ascend.constant` whose
/// elements are all equal, possibly through casts.
fn constant_exponent(graph: &Graph, pow: &Node) -> Option<f64> {
    let mut value = *pow.operands.get(1)?;
    loop {
        let ValueDef::Result { node, .. } = graph.values.get(value)?.def else {
            return None;
        };
        let producer = graph.nodes.get(node)?;
        match producer.op.as_str() {
            "ascend.cast" => value = *producer.operands.first()?,
            "ascend.constant" => {
                let AttrValue::Dense { values, .. } = producer.attrs.get("value")? else {
                    return None;
                };
                let first = *values.first()?;
                return values.iter().all(|&v| v == first).then_some(first);
            }
            _ => return None,
        }
    }
}

/// `x^c` by products, `sqrt` and a division for the exponents that have an exact such
/// form; `None` (keep `pow`) for other exponents, non-float `x`, or when the exponent
/// broadcasts `x` to another shape.
fn reduce_pow<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    c: f64,
    result: Option<&TensorType>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    if !x.ty.dtype.is_float() || result != Some(&x.ty) {
        return Ok(None);
    }
    let square = |e: &mut Emitter<'c, 'a>| e.op("ascend.mul", &[x, x], &[], None);
    let inverse = |e: &mut Emitter<'c, 'a>, y: &Typed<'c, 'a>| {
        let one = e.scalar(1.0, x.ty.dtype)?;
        e.op("ascend.div", &[&one, y], &[], None)
    };
    Ok(Some(if c == 1.0 {
        x.clone()
    } else if c == 2.0 {
        square(e)?
    } else if c == 3.0 {
        let sq = square(e)?;
        e.op("ascend.mul", &[&sq, x], &[], None)?
    } else if c == 4.0 {
        let sq = square(e)?;
        e.op("ascend.mul", &[&sq, &sq], &[], None)?
    } else if c == 0.5 {
        e.op("ascend.sqrt", &[x], &[], None)?
    } else if c == -0.5 {
        let root = e.op("ascend.sqrt", &[x], &[], None)?;
        inverse(e, &root)?
    } else if c == -1.0 {
        inverse(e, x)?
    } else if c == -2.0 {
        let sq = square(e)?;
        inverse(e, &sq)?
    } else {
        return Ok(None);
    }))
}

fn int_attr(attrs: &BTreeMap<String, AttrValue>, name: &str) -> Result<i64, ShapeError> {
    attrs
        .get(name)
        .and_then(AttrValue::as_int)
        .ok_or_else(|| ShapeError(format!("missing integer attribute '{name}'")))
}

fn float_attr(attrs: &BTreeMap<String, AttrValue>, name: &str) -> Result<f64, ShapeError> {
    attrs
        .get(name)
        .and_then(AttrValue::as_float)
        .ok_or_else(|| ShapeError(format!("missing float attribute '{name}'")))
}

fn axes_text(axes: &[usize]) -> String {
    let list: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
    format!("[{}]", list.join(", "))
}

/// Mean over `axes` (kept dims): sum / N when N is static, else `reduce_mean`.
fn mean<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    axes: &[usize],
) -> Result<Typed<'c, 'a>, ShapeError> {
    let axes_attr = axes_text(axes);
    let attrs = [("axes", axes_attr.as_str()), ("keep_dims", "true")];
    let count = axes.iter().try_fold(1i64, |acc, &a| {
        x.ty.dims.get(a).and_then(Dim::as_const).map(|n| acc * n)
    });
    match count {
        Some(n) => {
            let sum = e.op("ascend.reduce_sum", &[x], &attrs, None)?;
            let divisor = e.scalar(n as f64, x.ty.dtype)?;
            e.op("ascend.div", &[&sum, &divisor], &[], None)
        }
        None => e.op("ascend.reduce_mean", &[x], &attrs, None),
    }
}

/// Expands one composite; `None` leaves it in place.
fn expand<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    name: &str,
    inputs: &[Typed<'c, 'a>],
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let first = inputs
        .first()
        .ok_or_else(|| ShapeError("composite without operands".into()))?;
    // Normalizations of f16/bf16 tensors compute in f32 and round once at the end, as
    // frameworks do: their statistics lose most of their bits in half precision.
    let widen = matches!(first.ty.dtype, DType::F16 | DType::BF16)
        && matches!(name, "softmax" | "log_softmax" | "layer_norm" | "rms_norm");
    let narrow_to = first.ty.dtype;
    let widened: Vec<Typed<'c, 'a>>;
    let inputs: &[Typed<'c, 'a>] = if widen {
        widened = inputs
            .iter()
            .map(|t| e.op("ascend.cast", &[t], &[], Some(DType::F32)))
            .collect::<Result<_, _>>()?;
        &widened
    } else {
        inputs
    };
    let x = &inputs[0];
    let dtype: DType = x.ty.dtype;
    let result = match name {
        "softmax" | "log_softmax" => softmax(e, name, x, attrs)?,
        "layer_norm" | "rms_norm" => normalization(e, name, inputs, attrs)?,
        "gelu" => gelu(e, x, attrs)?,
        "silu" => {
            let s = e.op("ascend.sigmoid", &[x], &[], None)?;
            e.op("ascend.mul", &[x, &s], &[], None)?
        }
        "swish" => {
            let beta = e.scalar(float_attr(attrs, "beta")?, dtype)?;
            let scaled = e.op("ascend.mul", &[x, &beta], &[], None)?;
            let s = e.op("ascend.sigmoid", &[&scaled], &[], None)?;
            e.op("ascend.mul", &[x, &s], &[], None)?
        }
        "swiglu" => {
            let up = inputs
                .get(1)
                .ok_or_else(|| ShapeError("missing 'up'".into()))?;
            let s = e.op("ascend.sigmoid", &[x], &[], None)?;
            let silu = e.op("ascend.mul", &[x, &s], &[], None)?;
            e.op("ascend.mul", &[&silu, up], &[], None)?
        }
        "clip" => {
            let (lo, hi) = match (inputs.get(1), inputs.get(2)) {
                (Some(lo), Some(hi)) => (lo, hi),
                _ => return Err(ShapeError("clip needs min and max".into())),
            };
            let lower = e.op("ascend.maximum", &[x, lo], &[], None)?;
            e.op("ascend.minimum", &[&lower, hi], &[], None)?
        }
        "reduce_mean" => match static_mean(e, x, attrs)? {
            Some(mean) => mean,
            None => return Ok(None),
        },
        other => return Err(ShapeError(format!("no decomposition for '{other}'"))),
    };
    if widen {
        return e
            .op("ascend.cast", &[&result], &[], Some(narrow_to))
            .map(Some);
    }
    Ok(Some(result))
}

/// `softmax` (`name`) or `log_softmax` of `x` along its `axis`, shifted by the row max
/// so that `exp` stays finite.
fn softmax<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    name: &str,
    x: &Typed<'c, 'a>,
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Typed<'c, 'a>, ShapeError> {
    let axis = normalize_axis(int_attr(attrs, "axis")?, x.ty.rank())?;
    let axes_attr = axes_text(&[axis]);
    let keep = [("axes", axes_attr.as_str()), ("keep_dims", "true")];
    let max = e.op("ascend.reduce_max", &[x], &keep, None)?;
    let shifted = e.op("ascend.sub", &[x, &max], &[], None)?;
    let exp = e.op("ascend.exp", &[&shifted], &[], None)?;
    let sum = e.op("ascend.reduce_sum", &[&exp], &keep, None)?;
    if name == "softmax" {
        e.op("ascend.div", &[&exp, &sum], &[], None)
    } else {
        let log = e.op("ascend.log", &[&sum], &[], None)?;
        e.op("ascend.sub", &[&shifted, &log], &[], None)
    }
}

/// `layer_norm` (`name`) of `x, gamma, beta` or `rms_norm` of `x, gamma` over the axes
/// [axis, rank), with division and `sqrt`.
fn normalization<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    name: &str,
    inputs: &[Typed<'c, 'a>],
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Typed<'c, 'a>, ShapeError> {
    let x = &inputs[0];
    let rank = x.ty.rank();
    let axis = normalize_axis(int_attr(attrs, "axis")?, rank)?;
    let axes: Vec<usize> = (axis..rank).collect();
    let eps = e.scalar(float_attr(attrs, "epsilon")?, x.ty.dtype)?;
    let gamma = inputs
        .get(1)
        .ok_or_else(|| ShapeError("missing gamma".into()))?;
    if name == "layer_norm" {
        let mu = mean(e, x, &axes)?;
        let centered = e.op("ascend.sub", &[x, &mu], &[], None)?;
        let squared = e.op("ascend.mul", &[&centered, &centered], &[], None)?;
        let var = mean(e, &squared, &axes)?;
        let shifted = e.op("ascend.add", &[&var, &eps], &[], None)?;
        let std = e.op("ascend.sqrt", &[&shifted], &[], None)?;
        let normed = e.op("ascend.div", &[&centered, &std], &[], None)?;
        let scaled = e.op("ascend.mul", &[&normed, gamma], &[], None)?;
        let beta = inputs
            .get(2)
            .ok_or_else(|| ShapeError("missing beta".into()))?;
        e.op("ascend.add", &[&scaled, beta], &[], None)
    } else {
        let squared = e.op("ascend.mul", &[x, x], &[], None)?;
        let ms = mean(e, &squared, &axes)?;
        let shifted = e.op("ascend.add", &[&ms, &eps], &[], None)?;
        let rms = e.op("ascend.sqrt", &[&shifted], &[], None)?;
        let normed = e.op("ascend.div", &[x, &rms], &[], None)?;
        e.op("ascend.mul", &[&normed, gamma], &[], None)
    }
}

/// `gelu(x)`, in its erf form or, with `approximate = "tanh"`, its tanh form.
fn gelu<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Typed<'c, 'a>, ShapeError> {
    let dtype = x.ty.dtype;
    let half = e.scalar(0.5, dtype)?;
    let one = e.scalar(1.0, dtype)?;
    let inner = match attrs.get("approximate").and_then(AttrValue::as_str) {
        Some("tanh") => {
            let cube_coeff = e.scalar(0.044715, dtype)?;
            let scale = e.scalar((2.0 / std::f64::consts::PI).sqrt(), dtype)?;
            let x2 = e.op("ascend.mul", &[x, x], &[], None)?;
            let x3 = e.op("ascend.mul", &[&x2, x], &[], None)?;
            let term = e.op("ascend.mul", &[&x3, &cube_coeff], &[], None)?;
            let sum = e.op("ascend.add", &[x, &term], &[], None)?;
            let arg = e.op("ascend.mul", &[&sum, &scale], &[], None)?;
            e.op("ascend.tanh", &[&arg], &[], None)?
        }
        _ => {
            let inv_sqrt2 = e.scalar(std::f64::consts::FRAC_1_SQRT_2, dtype)?;
            let arg = e.op("ascend.mul", &[x, &inv_sqrt2], &[], None)?;
            e.op("ascend.erf", &[&arg], &[], None)?
        }
    };
    let one_plus = e.op("ascend.add", &[&inner, &one], &[], None)?;
    let halfx = e.op("ascend.mul", &[x, &half], &[], None)?;
    e.op("ascend.mul", &[&halfx, &one_plus], &[], None)
}

/// `reduce_mean` of `x` as `reduce_sum / N` when N, the reduced element count, is
/// static; `None` (it stays `reduce_mean`) when it is symbolic.
fn static_mean<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    attrs: &BTreeMap<String, AttrValue>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let axes_list = attrs
        .get("axes")
        .and_then(AttrValue::as_ints)
        .unwrap_or_default();
    let axes = autofuse_ascend::shape::reduce_axes(&axes_list, x.ty.rank())?;
    let keep = attrs
        .get("keep_dims")
        .and_then(AttrValue::as_bool)
        .unwrap_or(false);
    let count = axes.iter().try_fold(1i64, |acc, &a| {
        x.ty.dims.get(a).and_then(Dim::as_const).map(|n| acc * n)
    });
    let Some(n) = count else { return Ok(None) };
    let axes_attr = axes_text(&axes);
    let keep_attr = if keep { "true" } else { "false" };
    let sum = e.op(
        "ascend.reduce_sum",
        &[x],
        &[("axes", &axes_attr), ("keep_dims", keep_attr)],
        None,
    )?;
    let divisor = e.scalar(n as f64, x.ty.dtype)?;
    e.op("ascend.div", &[&sum, &divisor], &[], None).map(Some)
}

/// A cast of f32 or bf16 to int8/uint8, which the vector unit has no conversion for:
/// clamped to the byte's range in f32 (the cast saturates), truncated to int32 (exact
/// there) and narrowed to the byte, which now holds the value. NaN clamps or converts
/// to 0, as the saturating cast gives it.
fn byte_cast<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    to: DType,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let (lo, hi) = if to == DType::U8 {
        (0.0, 255.0)
    } else {
        (-128.0, 127.0)
    };
    let wide = cast_to(e, x, DType::F32)?;
    let lo = e.scalar(lo, DType::F32)?;
    let hi = e.scalar(hi, DType::F32)?;
    let above = e.op("ascend.maximum", &[&wide, &lo], &[], None)?;
    let clamped = e.op("ascend.minimum", &[&above, &hi], &[], None)?;
    let truncated = e.op("ascend.cast", &[&clamped], &[], Some(DType::I32))?;
    e.op("ascend.cast", &[&truncated], &[], Some(to)).map(Some)
}

/// `isnan`, `isfinite` and `sign` of a float tensor by IEEE comparisons, which the
/// vector unit has (Compare, Select), where AscIR has no instruction of their own:
/// `isnan(x) = x != x`; `isfinite(x) = (x - x) == 0` (inf - inf and NaN - NaN are NaN);
/// `sign(x) = (x > 0) - (x < 0)`, and NaN where `x` is NaN (`x` itself).
fn float_test<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    name: &str,
    x: &Typed<'c, 'a>,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    let dtype = x.ty.dtype;
    let result = match name {
        "isnan" => e.op("ascend.ne", &[x, x], &[], None)?,
        "isfinite" => {
            let difference = e.op("ascend.sub", &[x, x], &[], None)?;
            let zero = e.scalar(0.0, dtype)?;
            e.op("ascend.eq", &[&difference, &zero], &[], None)?
        }
        "sign" => {
            let zero = e.scalar(0.0, dtype)?;
            let positive = e.op("ascend.gt", &[x, &zero], &[], None)?;
            let negative = e.op("ascend.lt", &[x, &zero], &[], None)?;
            let positive = e.op("ascend.cast", &[&positive], &[], Some(dtype))?;
            let negative = e.op("ascend.cast", &[&negative], &[], Some(dtype))?;
            let sign = e.op("ascend.sub", &[&positive, &negative], &[], None)?;
            let nan = e.op("ascend.ne", &[x, x], &[], None)?;
            e.op("ascend.select", &[&nan, x, &sign], &[], None)?
        }
        other => return Err(ShapeError(format!("no IEEE form for '{other}'"))),
    };
    Ok(Some(result))
}

/// `v` as `dtype`: itself when it has that type, else one `cast`.
fn cast_to<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    v: &Typed<'c, 'a>,
    dtype: DType,
) -> Result<Typed<'c, 'a>, ShapeError> {
    if v.ty.dtype == dtype {
        Ok(v.clone())
    } else {
        e.op("ascend.cast", &[v], &[], Some(dtype))
    }
}

/// Exponents `|y|` below this, when integral, take the product path of [`float_pow`].
const POW_PRODUCT_BITS: usize = 5;

/// `pow(x, y)` of floats with a tensor exponent, as NumPy defines it, by `exp`, `log`,
/// products and selects (AscIR has no pow instruction):
/// - an integral `y` with `|y| < 2^POW_PRODUCT_BITS` multiplies `|x|` by binary
///   exponentiation (one select per exponent bit; exact for the integer powers that
///   fit the float format, e.g. `2^5 = 32`, which `exp(5 ln 2)` misses by an ulp and a
///   cast to an integer would then truncate), inverted for a negative `y`; `x^0 = 1`,
///   also for a NaN or zero `x`;
/// - any other `y`: `exp(y * log(b))` with `b = |x|` for an integral `y` and `b = x`
///   otherwise, so that a negative base with a fractional exponent is NaN (the log of a
///   negative number) and 0 and inf bases give 0 or inf by the signs of `log(0) = -inf`;
/// - a negative `x` with an odd integral `y` negates the magnitude; `1^y = 1` for every
///   `y` (NaN and inf too).
///
/// f16 and bf16 compute in f32 between two casts.
fn float_pow<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    y: &Typed<'c, 'a>,
    result: &TensorType,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    if !result.dtype.is_float() || !x.ty.dtype.is_float() || !y.ty.dtype.is_float() {
        return Ok(None);
    }
    let f = DType::F32;
    let (x, y) = (cast_to(e, x, f)?, cast_to(e, y, f)?);
    let zero = e.scalar(0.0, f)?;
    let one = e.scalar(1.0, f)?;
    let half = e.scalar(0.5, f)?;
    let two = e.scalar(2.0, f)?;
    let y_floor = e.op("ascend.floor", &[&y], &[], None)?;
    let integral = e.op("ascend.eq", &[&y_floor, &y], &[], None)?;
    let y_half = e.op("ascend.mul", &[&y, &half], &[], None)?;
    let y_half_floor = e.op("ascend.floor", &[&y_half], &[], None)?;
    let half_fractional = e.op("ascend.ne", &[&y_half_floor, &y_half], &[], None)?;
    let odd = e.op(
        "ascend.logical_and",
        &[&integral, &half_fractional],
        &[],
        None,
    )?;
    let magnitude_x = e.op("ascend.abs", &[&x], &[], None)?;
    let magnitude_y = e.op("ascend.abs", &[&y], &[], None)?;
    // Product path: bits of |y| from the lowest, the base squared each step.
    let mut product = one.clone();
    let mut base = magnitude_x.clone();
    let mut rest = magnitude_y.clone();
    for bit in 0..POW_PRODUCT_BITS {
        let halved = e.op("ascend.mul", &[&rest, &half], &[], None)?;
        let next = e.op("ascend.floor", &[&halved], &[], None)?;
        let doubled = e.op("ascend.mul", &[&next, &two], &[], None)?;
        let set = e.op("ascend.ne", &[&doubled, &rest], &[], None)?;
        let multiplied = e.op("ascend.mul", &[&product, &base], &[], None)?;
        product = e.op("ascend.select", &[&set, &multiplied, &product], &[], None)?;
        if bit + 1 < POW_PRODUCT_BITS {
            base = e.op("ascend.mul", &[&base, &base], &[], None)?;
            rest = next;
        }
    }
    let negative_y = e.op("ascend.lt", &[&y, &zero], &[], None)?;
    let inverse = e.op("ascend.div", &[&one, &product], &[], None)?;
    let product = e.op(
        "ascend.select",
        &[&negative_y, &inverse, &product],
        &[],
        None,
    )?;
    let bound = e.scalar((1u64 << POW_PRODUCT_BITS) as f64, f)?;
    let small = e.op("ascend.lt", &[&magnitude_y, &bound], &[], None)?;
    let by_products = e.op("ascend.logical_and", &[&integral, &small], &[], None)?;
    // Logarithm path.
    let log_base = e.op("ascend.select", &[&integral, &magnitude_x, &x], &[], None)?;
    let log = e.op("ascend.log", &[&log_base], &[], None)?;
    let scaled = e.op("ascend.mul", &[&y, &log], &[], None)?;
    let by_logs = e.op("ascend.exp", &[&scaled], &[], None)?;
    let magnitude = e.op(
        "ascend.select",
        &[&by_products, &product, &by_logs],
        &[],
        None,
    )?;
    let negative_x = e.op("ascend.lt", &[&x, &zero], &[], None)?;
    let flips = e.op("ascend.logical_and", &[&negative_x, &odd], &[], None)?;
    let negated = e.op("ascend.neg", &[&magnitude], &[], None)?;
    let signed = e.op("ascend.select", &[&flips, &negated, &magnitude], &[], None)?;
    let unit_base = e.op("ascend.eq", &[&x, &one], &[], None)?;
    let value = e.op("ascend.select", &[&unit_base, &one, &signed], &[], None)?;
    cast_to(e, &value, result.dtype).map(Some)
}

/// `mod(x, y)` of floats as NumPy's `np.mod` (Python's `%`: the result takes the
/// divisor's sign) by `x - floor(x / y) * y` in f32 (the product's rounding error
/// recovered exactly), with two corrections for a
/// quotient that rounded across an integer (a result of the wrong sign gets `y`
/// added; one as large as `y` gets it subtracted), and NumPy's convention for an
/// infinite divisor and a finite `x`: `x` when `x` is 0 or has the divisor's sign, else
/// the divisor. A zero divisor gives NaN (`x / 0` is inf or NaN). f16 and bf16 compute
/// in f32 between two casts.
fn float_mod<'c, 'a>(
    e: &mut Emitter<'c, 'a>,
    x: &Typed<'c, 'a>,
    y: &Typed<'c, 'a>,
    result: &TensorType,
) -> Result<Option<Typed<'c, 'a>>, ShapeError> {
    if !result.dtype.is_float() || !x.ty.dtype.is_float() || !y.ty.dtype.is_float() {
        return Ok(None);
    }
    let f = DType::F32;
    let (x, y) = (cast_to(e, x, f)?, cast_to(e, y, f)?);
    let zero = e.scalar(0.0, f)?;
    let quotient = e.op("ascend.div", &[&x, &y], &[], None)?;
    let whole = e.op("ascend.floor", &[&quotient], &[], None)?;
    // x - whole * y with the product's rounding error put back (Dekker's two-product
    // with the f32 split constant 2^12 + 1): x and the rounded product are within a
    // factor of two of each other, so their difference is exact, and the remainder is
    // rounded once. Without it 0.3f mod 0.1f gives 0 (0.3f / 0.1f rounds up to 3 and
    // 3 * 0.1f rounds to 0.3f) where it is 0.0999999.
    let taken = e.op("ascend.mul", &[&whole, &y], &[], None)?;
    let split = e.scalar(4097.0, f)?;
    let mut halves = Vec::new();
    for v in [&whole, &y] {
        let scaled = e.op("ascend.mul", &[v, &split], &[], None)?;
        let excess = e.op("ascend.sub", &[&scaled, v], &[], None)?;
        let high = e.op("ascend.sub", &[&scaled, &excess], &[], None)?;
        let low = e.op("ascend.sub", &[v, &high], &[], None)?;
        halves.push((high, low));
    }
    let ((whole_high, whole_low), (y_high, y_low)) = (halves[0].clone(), halves[1].clone());
    let high_product = e.op("ascend.mul", &[&whole_high, &y_high], &[], None)?;
    let error = e.op("ascend.sub", &[&high_product, &taken], &[], None)?;
    let cross_a = e.op("ascend.mul", &[&whole_high, &y_low], &[], None)?;
    let error = e.op("ascend.add", &[&error, &cross_a], &[], None)?;
    let cross_b = e.op("ascend.mul", &[&whole_low, &y_high], &[], None)?;
    let error = e.op("ascend.add", &[&error, &cross_b], &[], None)?;
    let low_product = e.op("ascend.mul", &[&whole_low, &y_low], &[], None)?;
    let error = e.op("ascend.add", &[&error, &low_product], &[], None)?;
    let difference = e.op("ascend.sub", &[&x, &taken], &[], None)?;
    let remainder = e.op("ascend.sub", &[&difference, &error], &[], None)?;
    let negative_y = e.op("ascend.lt", &[&y, &zero], &[], None)?;
    // The remainder's sign must be the divisor's (or it is 0).
    let negative_r = e.op("ascend.lt", &[&remainder, &zero], &[], None)?;
    let nonzero = e.op("ascend.ne", &[&remainder, &zero], &[], None)?;
    let sign_differs = e.op("ascend.logical_xor", &[&negative_r, &negative_y], &[], None)?;
    let below = e.op("ascend.logical_and", &[&nonzero, &sign_differs], &[], None)?;
    let raised = e.op("ascend.add", &[&remainder, &y], &[], None)?;
    let remainder = e.op("ascend.select", &[&below, &raised, &remainder], &[], None)?;
    // ... and its magnitude below the divisor's.
    let magnitude_r = e.op("ascend.abs", &[&remainder], &[], None)?;
    let magnitude_y = e.op("ascend.abs", &[&y], &[], None)?;
    let whole_divisor = e.op("ascend.ge", &[&magnitude_r, &magnitude_y], &[], None)?;
    let lowered = e.op("ascend.sub", &[&remainder, &y], &[], None)?;
    let remainder = e.op(
        "ascend.select",
        &[&whole_divisor, &lowered, &remainder],
        &[],
        None,
    )?;
    // An infinite divisor (y - y is NaN, y == y) with a finite x.
    let y_difference = e.op("ascend.sub", &[&y, &y], &[], None)?;
    let y_finite = e.op("ascend.eq", &[&y_difference, &zero], &[], None)?;
    let y_number = e.op("ascend.eq", &[&y, &y], &[], None)?;
    let y_not_finite = e.op("ascend.logical_not", &[&y_finite], &[], None)?;
    let y_infinite = e.op("ascend.logical_and", &[&y_not_finite, &y_number], &[], None)?;
    let x_difference = e.op("ascend.sub", &[&x, &x], &[], None)?;
    let x_finite = e.op("ascend.eq", &[&x_difference, &zero], &[], None)?;
    let by_convention = e.op("ascend.logical_and", &[&y_infinite, &x_finite], &[], None)?;
    let negative_x = e.op("ascend.lt", &[&x, &zero], &[], None)?;
    let signs_differ = e.op("ascend.logical_xor", &[&negative_x, &negative_y], &[], None)?;
    let x_zero = e.op("ascend.eq", &[&x, &zero], &[], None)?;
    let signs_agree = e.op("ascend.logical_not", &[&signs_differ], &[], None)?;
    let keeps_x = e.op("ascend.logical_or", &[&x_zero, &signs_agree], &[], None)?;
    let conventional = e.op("ascend.select", &[&keeps_x, &x, &y], &[], None)?;
    let value = e.op(
        "ascend.select",
        &[&by_convention, &conventional, &remainder],
        &[],
        None,
    )?;
    cast_to(e, &value, result.dtype).map(Some)
}

#[cfg(test)]
mod border_tests {
    use super::{border_pieces, BorderMode, BorderPiece};
    use autofuse_symbolic::Expr;

    /// The source index of every output position, against numpy's `np.pad` of
    /// `np.arange(n)` (values written down from numpy, not from this code).
    #[test]
    fn source_indices_match_numpy() {
        let map = |mode: BorderMode, n: i64, before: i64, after: i64| -> Vec<i64> {
            (-before..n + after).map(|i| mode.source(i, n)).collect()
        };
        // np.pad(np.arange(5), (3, 3), 'reflect')
        assert_eq!(
            map(BorderMode::Reflect, 5, 3, 3),
            [3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1]
        );
        // np.pad(np.arange(3), (4, 4), 'wrap')
        assert_eq!(
            map(BorderMode::Wrap, 3, 4, 4),
            [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
        );
        // np.pad(np.arange(5), (4, 4), 'edge')
        assert_eq!(
            map(BorderMode::Edge, 5, 4, 4),
            [0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4]
        );
        // np.pad(np.arange(3), (5, 0), 'reflect'): reflects past the other end.
        assert_eq!(map(BorderMode::Reflect, 3, 5, 0), [1, 0, 1, 2, 1, 0, 1, 2]);
        assert_eq!(map(BorderMode::Reflect, 1, 2, 2), [0, 0, 0, 0, 0]);
    }

    #[test]
    fn pieces_group_runs_and_repeats() {
        let c = Expr::constant;
        assert_eq!(
            border_pieces(BorderMode::Edge, &c(5), 3, 1),
            Some(vec![
                BorderPiece::Repeat(c(0), 3),
                BorderPiece::Whole,
                BorderPiece::Run(c(4), 1),
            ])
        );
        assert_eq!(
            border_pieces(BorderMode::Wrap, &c(3), 4, 2),
            Some(vec![
                BorderPiece::Run(c(2), 1),
                BorderPiece::Run(c(0), 3),
                BorderPiece::Whole,
                BorderPiece::Run(c(0), 2),
            ])
        );
        // Symbolic extents: edge only.
        let s = Expr::symbol("s0");
        assert!(border_pieces(BorderMode::Reflect, &s, 1, 1).is_none());
        assert_eq!(
            border_pieces(BorderMode::Edge, &s, 0, 2),
            Some(vec![
                BorderPiece::Whole,
                BorderPiece::Repeat(s.clone() - c(1), 2)
            ])
        );
        // A reflection of more than 16 single elements stays a pad.
        assert!(border_pieces(BorderMode::Reflect, &c(40), 20, 0).is_none());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/fusion.md lists every reason code of this pass with its slug.
    #[test]
    fn every_reason_code_is_documented() {
        crate::registry::assert_reason_codes_documented(REASON_CODES.iter().copied());
    }

    fn ty(dtype: DType, dims: &[i64]) -> TensorType {
        TensorType::new(dtype, dims.iter().map(|&d| Dim::constant(d)).collect())
    }

    fn flags(ta: bool, tb: bool) -> BTreeMap<String, AttrValue> {
        BTreeMap::from([
            ("transpose_a".to_string(), AttrValue::Bool(ta)),
            ("transpose_b".to_string(), AttrValue::Bool(tb)),
        ])
    }

    const GATE: MatmulGate = MatmulGate {
        max_k: 32,
        max_n: 64,
    };

    #[test]
    fn the_gate_takes_k_from_the_transposed_operand() {
        let a = ty(DType::F32, &[40, 3]);
        let b = ty(DType::F32, &[40, 5]);
        let r = ty(DType::F32, &[3, 5]);
        // k = 40 (rows of A^T), not 3.
        let e = matmul_form(&a, &b, &r, &flags(true, false), GATE).unwrap_err();
        assert!(
            e.contains("k = 40 exceeds vectorize-matmul-max-k=32"),
            "{e}"
        );
        let ok = MatmulGate { max_k: 40, ..GATE };
        assert_eq!(
            matmul_form(&a, &b, &r, &flags(true, false), ok),
            Ok(MatmulForm::Kmn)
        );
    }

    #[test]
    fn the_gate_picks_a_form_without_transposes_and_refuses_by_reason() {
        let a = ty(DType::F16, &[2, 4, 8]);
        let b = ty(DType::F16, &[2, 6, 8]);
        let r = ty(DType::F16, &[2, 4, 6]);
        assert_eq!(
            matmul_form(&a, &b, &r, &flags(false, true), GATE),
            Ok(MatmulForm::Mnk { transpose_a: false })
        );
        let off = MatmulGate { max_k: 0, ..GATE };
        assert!(matmul_form(&a, &b, &r, &flags(false, true), off)
            .unwrap_err()
            .contains("disables"));
        let narrow = MatmulGate { max_n: 5, ..GATE };
        assert!(matmul_form(&a, &b, &r, &flags(false, true), narrow)
            .unwrap_err()
            .contains("n = 6 exceeds vectorize-matmul-max-n=5"));
        let ints = ty(DType::I8, &[2, 4, 8]);
        assert!(matmul_form(&ints, &b, &r, &flags(false, true), GATE)
            .unwrap_err()
            .contains("element type i8"));
    }
}
