//! Lowering of one `ascend` op to an AscGraph in hint form (GE's conventions).
//!
//! The loop nest is the op's iteration space: the result shape for elementwise ops, the
//! input shape for reductions (reduced axes stay, with repeat 1 and stride 0 in the
//! result view). Each operand is read by `data` + `load` with its GM view aligned to the
//! loop axes (numpy broadcasting: missing or size-1 dims get repeat 1, stride 0), then
//! expanded by explicit single-axis `broadcast` nodes, one per broadcast axis. Casts are
//! inserted where the chip cannot compute a dtype: bf16 arithmetic goes through f32 and
//! f16 reductions accumulate in f32; int8/uint8/int16 ops compute in a wider type and
//! narrow back with the integer semantics (`SmallInt`). The result is `store`d with its GM view and returned
//! through `output`. A transpose is a `load` with permuted GM strides (one that swaps
//! the two innermost axes is transposed in UB by the kernel); a binary concat loads each input with its own extent on the concat axis
//! and joins them with `ascir.concat` (the result's loop nest covers the whole axis).

use autofuse_ascend::shape::reduce_axes;
use autofuse_ascir::graph::{ArangeTerm, AscGraph, AscNode, Axis, AxisKind, View};
use autofuse_ir::attr::{quote, AttrValue};
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_mlir::registry::{lookup, Category, OpSpec};
use autofuse_symbolic::Expr;
use std::collections::{BTreeMap, BTreeSet};

/// Why an op stays a graph op; `code` is a stable reason code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLowered {
    pub code: &'static str,
    pub reason: String,
}

fn refuse<T>(code: &'static str, reason: impl Into<String>) -> Result<T, NotLowered> {
    Err(NotLowered {
        code,
        reason: reason.into(),
    })
}

/// An operand computed by an `ascend.range` (a function of the shape symbols alone).
/// The kernel that reads it computes it where it reads it, as an `ascir.arange` under
/// the read's view, instead of loading it from GM: the range costs neither a kernel nor
/// GM traffic, whatever view (broadcast, reshape, transpose) the consumer reads it
/// through (XLA duplicates iota into its consumers for the same reason).
#[derive(Clone, Debug, PartialEq)]
pub struct InlinedRange {
    pub start: ArangeTerm,
    pub delta: ArangeTerm,
}

impl InlinedRange {
    /// The start and step of an `ascend.range` (numbers or shape expressions).
    pub fn from_range_attrs(attrs: &BTreeMap<String, AttrValue>) -> Option<InlinedRange> {
        let term = |name: &str| -> Option<ArangeTerm> {
            let attr = attrs.get(name)?;
            match attr.as_float() {
                Some(v) => Some(ArangeTerm::Number(v)),
                None => attr.as_expr().map(ArangeTerm::Expr),
            }
        };
        Some(InlinedRange {
            start: term("start")?,
            delta: term("delta")?,
        })
    }

    fn attrs(&self) -> Vec<(String, String)> {
        vec![
            ("start".into(), quote(&self.start.text())),
            ("delta".into(), quote(&self.delta.text())),
        ]
    }
}

/// Element types an `ascir.arange` computes in (those of `CreateVecIndex`, `Muls` and
/// `Adds`).
pub fn arange_computable(dtype: DType) -> bool {
    matches!(dtype, DType::I32 | DType::F32 | DType::F16)
}

/// Reason codes of `--lower-to-ascir` remarks.
pub const REASON_CODES: &[(&str, &str)] = &[
    (
        "AF-LW001",
        "unsupported-op: no AscIR lowering for this op yet",
    ),
    (
        "AF-LW002",
        "boundary: the op runs as a library kernel (matmul, conv, conv_transpose, pooling) and is never fused",
    ),
    (
        "AF-LW003",
        "unsupported-dtype: the chip cannot compute the op in this element type",
    ),
    (
        "AF-LW004",
        "unknown-shape: a dynamic dim has no symbol (run --infer-symbolic-shapes first)",
    ),
    (
        "AF-LW005",
        "disabled: the `disable` option of --lower-to-ascir names the op",
    ),
];

/// What kind of kernel an op makes (the prefix of kernel names).
pub fn kernel_kind(op: &str) -> &'static str {
    match lookup(op).map(|s| s.category) {
        Some(Category::Reduce) | Some(Category::Composite) => "reduce",
        _ => "pointwise",
    }
}

/// `reduce_sum` -> `ReduceSum`.
pub fn camel_name(op: &str) -> String {
    let short = op.split_once('.').map_or(op, |(_, n)| n);
    short
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn ascir_reduce(op: &str) -> Option<&'static str> {
    Some(match op {
        "reduce_sum" => "sum",
        "reduce_mean" => "mean",
        "reduce_max" => "max",
        "reduce_min" => "min",
        "reduce_prod" => "prod",
        "reduce_any" => "any",
        "reduce_all" => "all",
        _ => return None,
    })
}

/// Element types a v1-chip (Ascend 910B) vector unit computes an op in, after the casts
/// this lowering inserts (bf16 -> f32).
fn computable(op: &str, dtype: DType) -> bool {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => true,
        DType::I32 => matches!(
            op,
            "add"
                | "sub"
                | "mul"
                | "maximum"
                | "minimum"
                | "abs"
                | "relu"
                | "neg"
                | "eq"
                | "ne"
                | "lt"
                | "le"
                | "gt"
                | "ge"
                | "select"
                | "cast"
                | "broadcast_to"
                | "reshape"
                | "squeeze"
                | "unsqueeze"
                | "transpose"
                | "concat"
                | "slice"
                | "pad"
                | "reduce_sum"
                | "reduce_max"
                | "reduce_min"
                | "reduce_prod"
                | "bitwise_and"
                | "bitwise_not"
        ),
        // int16 bitwise ops are And/Not themselves; the rest of int16 arithmetic goes
        // through a wider type (`SmallInt`).
        DType::I16 => matches!(
            op,
            "bitwise_and"
                | "bitwise_not"
                | "cast"
                | "broadcast_to"
                | "reshape"
                | "squeeze"
                | "unsqueeze"
                | "slice"
        ),
        DType::Bool => matches!(
            op,
            "logical_and"
                | "logical_or"
                | "logical_not"
                | "logical_xor"
                | "select"
                | "cast"
                | "reduce_any"
                | "reduce_all"
                | "broadcast_to"
                | "reshape"
                | "squeeze"
                | "unsqueeze"
                | "transpose"
                | "concat"
                | "slice"
                | "eq"
                | "ne"
        ),
        // A select of int64 data only moves bits (emitted bitwise, see
        // `autofuse_ascir::kernel::int_select`).
        DType::I64 => matches!(
            op,
            "cast" | "broadcast_to" | "reshape" | "squeeze" | "unsqueeze" | "slice" | "select"
        ),
        _ => matches!(
            op,
            "cast" | "broadcast_to" | "reshape" | "squeeze" | "unsqueeze" | "slice"
        ),
    }
}

/// How an op on a small integer type (i8, u8, i16) is computed: the v1 chip's vector
/// unit has no 8-bit arithmetic, `Compare` only on half/float (int32 EQ), `Select` only
/// on half/float, and int16 only partly (`ascendc_api.md` 4.2, 4.5), so such ops run in
/// a wider type whose results are exact and are narrowed back with the integer
/// semantics of the op (the `ascend` interpreter's: wrap to the width, `div` truncates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SmallInt {
    /// In the float type that holds every value of the type exactly ([`exact_float`]):
    /// compares give a bool, and max/min/select give one of their operands, so
    /// narrowing the result back is exact.
    Exact,
    /// In int32, exact modulo 2^32 (any sum, difference or product of two 16-bit
    /// values has the right low bits), then wrapped to the type's width ([`Builder::wrap_int`]).
    Wrapping,
    /// `floor_div` and `mod` (floor-based: the remainder has the divisor's sign): the
    /// f32 quotient floored (exact, as for `Truncating`); `floor_div` is it as int32,
    /// wrapped; `mod` is `a - q * b` in f32 (exact: every term is below 2^17), which
    /// the type holds.
    Floor { modulo: bool },
    /// Bitwise ops on 8-bit types: in int16 (sign- or zero-extended exactly through
    /// f16), where `And`/`Not` exist; the low byte is the result, and the int16 result
    /// is its extension (for uint8 after `& 0xff`), so narrowing back through f16 is
    /// exact.
    Bits,
    /// Integer division: the f32 quotient of the exact f32 operands, truncated to int32,
    /// then wrapped (`-128 / -1` is `-128` in i8). For operands below 2^16 in magnitude
    /// the f32 quotient never rounds across an integer: a non-integral `a / b` is at
    /// least `1 / |b| >= q / 2^16` from the nearest integer `q`, far more than its
    /// rounding error `q * 2^-24`.
    Truncating,
}

fn small_int(op: &str, dtype: DType) -> Option<SmallInt> {
    if !matches!(dtype, DType::I8 | DType::U8 | DType::I16) {
        return None;
    }
    Some(match op {
        "bitwise_and" | "bitwise_not" if dtype != DType::I16 => SmallInt::Bits,
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "maximum" | "minimum" | "select" => {
            SmallInt::Exact
        }
        "add" | "sub" | "mul" | "neg" | "abs" => SmallInt::Wrapping,
        "div" => SmallInt::Truncating,
        "floor_div" => SmallInt::Floor { modulo: false },
        "mod" => SmallInt::Floor { modulo: true },
        _ => return None,
    })
}

/// The float type that holds every value of a small integer type exactly and that the
/// chip casts it to and from directly: i8/u8 <-> f16 (11 significant bits), i16 <-> f32.
fn exact_float(dtype: DType) -> DType {
    match dtype {
        DType::I16 => DType::F32,
        _ => DType::F16,
    }
}

fn known_dims(ty: &TensorType) -> Result<Vec<Expr>, NotLowered> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Known(e) => Ok(e.clone()),
            Dim::Unknown => refuse(
                "AF-LW004",
                "a dynamic dim has no symbol; run --infer-symbolic-shapes first",
            ),
        })
        .collect()
}

/// Row-major strides of a GM tensor of `dims`.
fn gm_strides(dims: &[Expr]) -> Vec<Expr> {
    let mut strides = vec![Expr::constant(1); dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].clone() * dims[i + 1].clone();
    }
    strides
}

/// The GM view of an operand of `dims` read under a loop nest of `loop_dims`.
fn aligned_view(axis: &[i64], loop_dims: &[Expr], dims: &[Expr]) -> View {
    let offset = loop_dims.len() - dims.len().min(loop_dims.len());
    let strides = gm_strides(dims);
    let mut repeats = Vec::new();
    let mut view_strides = Vec::new();
    for (i, loop_dim) in loop_dims.iter().enumerate() {
        match i
            .checked_sub(offset)
            .and_then(|j| dims.get(j).map(|d| (j, d)))
        {
            Some((j, d)) if !(d.as_const() == Some(1) && loop_dim.as_const() != Some(1)) => {
                repeats.push(loop_dim.clone());
                view_strides.push(strides[j].clone());
            }
            _ => {
                repeats.push(Expr::constant(1));
                view_strides.push(Expr::constant(0));
            }
        }
    }
    View {
        axis: axis.to_vec(),
        repeats,
        strides: view_strides,
    }
}

struct Builder {
    axis: Vec<i64>,
    loop_dims: Vec<Expr>,
    nodes: Vec<AscNode>,
    loc: Option<String>,
    /// Per operand of the op: the range the kernel computes in place of loading it.
    inlined: Vec<Option<InlinedRange>>,
    /// Small integer loads are cast to their exact float type before they are
    /// broadcast (the chip broadcasts only 16- and 32-bit elements).
    widen_loads: bool,
}

impl Builder {
    fn push(
        &mut self,
        op: &str,
        operands: Vec<usize>,
        dtype: DType,
        view: View,
        attrs: Vec<(String, String)>,
    ) -> usize {
        self.nodes.push(AscNode {
            op: op.to_string(),
            operands,
            dtype,
            view,
            attrs,
            index: None,
            loc: self.loc.clone(),
        });
        self.nodes.len() - 1
    }

    /// `store` of `value` with the result's GM view, returned as kernel output 0.
    fn store_output(&mut self, value: usize, dtype: DType, view: View) {
        let stored = self.push(
            "store",
            vec![value],
            dtype,
            view.clone(),
            vec![("offset".into(), "\"0\"".into())],
        );
        self.nodes.push(AscNode {
            op: "output".into(),
            operands: vec![stored],
            dtype,
            view,
            attrs: Vec::new(),
            index: Some(0),
            loc: self.loc.clone(),
        });
    }

    fn cast(&mut self, node: usize, dtype: DType) -> usize {
        if self.nodes[node].dtype == dtype {
            return node;
        }
        let view = self.nodes[node].view.clone();
        self.push("cast", vec![node], dtype, view, Vec::new())
    }

    /// A compile-time scalar of `dtype` over the whole loop nest.
    fn scalar(&mut self, dtype: DType, value: f64) -> usize {
        let view = View::contiguous(self.axis.clone(), self.loop_dims.clone());
        self.push(
            "scalar",
            Vec::new(),
            dtype,
            view,
            vec![("value".into(), quote(&format!("{value:?}")))],
        )
    }

    /// `lhs <op> rhs` in `dtype` over the whole loop nest.
    fn binary(&mut self, op: &str, lhs: usize, rhs: usize, dtype: DType) -> usize {
        let view = View::contiguous(self.axis.clone(), self.loop_dims.clone());
        self.push(op, vec![lhs, rhs], dtype, view, Vec::new())
    }

    /// A small integer value (i8, u8, i16) converted exactly to `to` (its exact float
    /// type, f32 or i32), one direct Cast per step.
    fn widen_int(&mut self, node: usize, to: DType) -> usize {
        let dtype = self.nodes[node].dtype;
        let exact = if matches!(dtype, DType::I8 | DType::U8 | DType::I16) {
            self.cast(node, exact_float(dtype))
        } else {
            node
        };
        self.cast(exact, to)
    }

    /// An int32 value wrapped to the small integer type `dtype` (two's complement, as
    /// the `ascend` interpreter's integer arithmetic): `t = v * 2^(32-w)` keeps the low
    /// `w` bits at the top (int32 multiplication wraps), `t` is exact in f32 (at most `w`
    /// significant bits) and `t * 2^-(32-w)` is the signed `w`-bit value `s`; unsigned
    /// types add 2^w to negative `s` (`s - 2^w * floor(s / 2^w)`). Every step is exact.
    fn wrap_int(&mut self, value: usize, dtype: DType) -> usize {
        let width = match dtype {
            DType::I16 => 16,
            _ => 8,
        };
        let shift = f64::from(1u32 << (32 - width));
        let up = self.scalar(DType::I32, shift);
        let top = self.binary("mul", value, up, DType::I32);
        let top = self.cast(top, DType::F32);
        let down = self.scalar(DType::F32, 1.0 / shift);
        let mut signed = self.binary("mul", top, down, DType::F32);
        if dtype == DType::U8 {
            let modulus = f64::from(1u32 << width);
            let inverse = self.scalar(DType::F32, 1.0 / modulus);
            let scaled = self.binary("mul", signed, inverse, DType::F32);
            let view = self.nodes[scaled].view.clone();
            let wraps = self.push("floor", vec![scaled], DType::F32, view, Vec::new());
            let m = self.scalar(DType::F32, modulus);
            let offset = self.binary("mul", wraps, m, DType::F32);
            signed = self.binary("sub", signed, offset, DType::F32);
        }
        let exact = self.cast(signed, exact_float(dtype));
        self.cast(exact, dtype)
    }

    /// The kernel input an operand of the op is bound to: inlined ranges take none.
    fn input_index(&self, operand: usize) -> usize {
        self.inlined[..operand.min(self.inlined.len())]
            .iter()
            .filter(|r| r.is_none())
            .count()
    }

    /// An inlined range read under `gm_view` (the element offsets the read visits).
    fn arange(&mut self, operand: usize, dtype: DType, gm_view: View) -> Option<usize> {
        let range = self.inlined.get(operand)?.clone()?;
        Some(self.push("arange", Vec::new(), dtype, gm_view, range.attrs()))
    }

    /// data + load of a GM view that covers the whole loop nest (no broadcasts).
    fn read_view(&mut self, operand: usize, dtype: DType, gm_view: View) -> usize {
        self.read_view_at(operand, dtype, gm_view, &Expr::constant(0))
    }

    /// [`Builder::read_view`] starting `offset` elements into the operand (a slice).
    fn read_view_at(
        &mut self,
        operand: usize,
        dtype: DType,
        gm_view: View,
        offset: &Expr,
    ) -> usize {
        if let Some(computed) = self.arange(operand, dtype, gm_view.clone()) {
            return computed;
        }
        let index = self.input_index(operand);
        self.nodes.push(AscNode {
            op: "data".into(),
            operands: Vec::new(),
            dtype,
            view: gm_view.clone(),
            attrs: Vec::new(),
            index: Some(index),
            loc: self.loc.clone(),
        });
        let data = self.nodes.len() - 1;
        let load_view = View::contiguous(self.axis.clone(), gm_view.repeats);
        self.push(
            "load",
            vec![data],
            dtype,
            load_view,
            vec![("offset".into(), quote(&offset.to_string()))],
        )
    }

    /// data + load + single-axis broadcasts up to the full loop nest.
    fn read(
        &mut self,
        operand: usize,
        ty: &TensorType,
        dims: &[Expr],
        view_dims: Option<&[Expr]>,
    ) -> usize {
        let gm_view = match view_dims {
            // A reshape reads the operand's bytes under the result's shape.
            Some(reshaped) => aligned_view(&self.axis, &self.loop_dims, reshaped),
            None => aligned_view(&self.axis, &self.loop_dims, dims),
        };
        if self.inlined.get(operand).is_some_and(Option::is_some) {
            // Computed over the whole loop nest: broadcast axes repeat with offset
            // stride 0, so no broadcast nodes follow.
            let mut view = gm_view.clone();
            view.repeats = self.loop_dims.clone();
            if let Some(computed) = self.arange(operand, ty.dtype, view) {
                return computed;
            }
        }
        let index = self.input_index(operand);
        self.nodes.push(AscNode {
            op: "data".into(),
            operands: Vec::new(),
            dtype: ty.dtype,
            view: gm_view.clone(),
            attrs: Vec::new(),
            index: Some(index),
            loc: self.loc.clone(),
        });
        let data = self.nodes.len() - 1;
        let load_view = View::contiguous(self.axis.clone(), gm_view.repeats.clone());
        let mut current = self.push(
            "load",
            vec![data],
            ty.dtype,
            load_view,
            vec![("offset".into(), "\"0\"".into())],
        );
        if self.widen_loads && matches!(ty.dtype, DType::I8 | DType::U8 | DType::I16) {
            current = self.cast(current, exact_float(ty.dtype));
        }
        for i in 0..self.loop_dims.len() {
            let repeats = self.nodes[current].view.repeats.clone();
            if repeats[i].as_const() == Some(1) && self.loop_dims[i].as_const() != Some(1) {
                let mut expanded = repeats;
                expanded[i] = self.loop_dims[i].clone();
                let view = View::contiguous(self.axis.clone(), expanded);
                let dtype = self.nodes[current].dtype;
                current = self.push("broadcast", vec![current], dtype, view, Vec::new());
            }
        }
        current
    }
}

/// Lowers one op. `operand_types`/`result_types` are its (symbolized) types, `loc` the
/// MLIR location text of the op, `name` the kernel name to give.
pub fn lower_op(
    op: &str,
    attrs: &BTreeMap<String, AttrValue>,
    operand_types: &[TensorType],
    result_types: &[TensorType],
    loc: Option<String>,
    name: &str,
) -> Result<AscGraph, NotLowered> {
    lower_op_with(op, attrs, operand_types, result_types, loc, name, &[])
}

/// [`lower_op`] with some operands computed by the kernel itself: `inlined[i]` is the
/// range operand `i` holds (it then becomes no kernel input; the kernel's inputs are the
/// other operands, in order).
pub fn lower_op_with(
    op: &str,
    attrs: &BTreeMap<String, AttrValue>,
    operand_types: &[TensorType],
    result_types: &[TensorType],
    loc: Option<String>,
    name: &str,
    inlined: &[Option<InlinedRange>],
) -> Result<AscGraph, NotLowered> {
    let Some(spec) = lookup(op) else {
        return refuse("AF-LW001", format!("'{op}' is not an ascend op"));
    };
    if spec.name == "range" {
        return lower_range(attrs, result_types, loc, name);
    }
    if let Route::Gather { per_element } = route(spec)? {
        return lower_gather(
            attrs,
            operand_types,
            result_types,
            (loc, name, per_element),
            inlined,
        );
    }
    let op = LoopOp::new(spec, attrs, operand_types, result_types)?;
    let mut b = op.builder(loc, inlined);
    let value = match (op.short, op.category) {
        ("transpose", _) => op.lower_transpose(&mut b)?,
        ("slice", _) => op.lower_slice(&mut b)?,
        ("pad", _) => op.lower_pad(&mut b)?,
        ("concat", _) => op.lower_concat(&mut b)?,
        (_, Category::Layout) => op.lower_view(&mut b),
        (_, Category::Cast) => op.lower_cast(&mut b),
        (_, Category::Reduce | Category::Composite) => op.lower_reduce(&mut b)?,
        _ => match op.small {
            Some(plan) => op.lower_small_int(&mut b, plan),
            None => op.lower_elementwise(&mut b),
        },
    };
    op.store(&mut b, value);
    Ok(op.kernel(b, name))
}

/// Which lowering an op takes (`range` aside).
enum Route {
    /// One loop nest over the op's iteration space ([`LoopOp`]).
    LoopNest,
    /// [`lower_gather`]; `per_element` for `gather_elements`.
    Gather { per_element: bool },
}

/// The lowering of an op of `spec`, or why it stays a graph op.
fn route(spec: &OpSpec) -> Result<Route, NotLowered> {
    let short = spec.name;
    match spec.category {
        Category::Unary
        | Category::Binary
        | Category::Compare
        | Category::Select
        | Category::Cast
        | Category::Reduce => Ok(Route::LoopNest),
        Category::Layout
            if matches!(
                short,
                "broadcast_to" | "reshape" | "squeeze" | "unsqueeze" | "transpose"
            ) =>
        {
            Ok(Route::LoopNest)
        }
        Category::Composite if short == "reduce_mean" => Ok(Route::LoopNest),
        Category::Structural if matches!(short, "concat" | "slice" | "pad") => Ok(Route::LoopNest),
        Category::Structural if matches!(short, "gather" | "gather_elements") => {
            Ok(Route::Gather {
                per_element: short == "gather_elements",
            })
        }
        Category::Boundary => {
            let why = match short {
                "max_pool" | "avg_pool" => " (strided windows do not map to AscIR loops)",
                _ => "",
            };
            refuse(
                "AF-LW002",
                format!("'{short}' is a boundary op and runs as a library kernel{why}"),
            )
        }
        Category::Constant => refuse("AF-LW001", "constants stay graph values (kernel inputs)"),
        Category::Composite => refuse(
            "AF-LW001",
            format!("composite '{short}' must be decomposed first (--decompose)"),
        ),
        _ => refuse("AF-LW001", format!("no AscIR lowering for '{short}' yet")),
    }
}

/// Refuses an op the vector unit of ascend910b cannot compute: `compute_input` (the
/// dtype it computes in) neither computable after this lowering's casts nor a small
/// integer computed in a wider type (`small`), or a 64-bit integer `result`.
fn check_computable(
    short: &str,
    compute_input: DType,
    small: bool,
    result: DType,
) -> Result<(), NotLowered> {
    if !computable(short, compute_input) && !small {
        return refuse(
            "AF-LW003",
            format!(
                "'{short}' on {compute_input} is not computable on the vector unit of ascend910b"
            ),
        );
    }
    // The vector unit has no 64-bit integer arithmetic: 64-bit results stay outside
    // kernels (`--narrow-index-types` first makes index arithmetic 32-bit where it
    // fits), except a cast from int32 or f32, which is one Cast before its store, and
    // views, which only move data (GM -> UB -> GM, or into a narrowing cast).
    let widening_cast = short == "cast" && matches!(compute_input, DType::I32 | DType::F32);
    let view = matches!(
        short,
        "slice" | "reshape" | "squeeze" | "unsqueeze" | "select"
    );
    if matches!(result, DType::I64) && !widening_cast && !view {
        return refuse(
            "AF-LW003",
            format!("'{short}' produces i64, which the vector unit of ascend910b does not compute"),
        );
    }
    Ok(())
}

/// An op lowered over one loop nest (every lowered op but ranges and gathers): its
/// checked types, the dtype it computes in, and the loop nest. Each `lower_*` method
/// reads the operands of one op family and computes its value.
struct LoopOp<'a> {
    /// The op's name without its dialect (`add`).
    short: &'static str,
    category: Category,
    attrs: &'a BTreeMap<String, AttrValue>,
    operand_types: &'a [TensorType],
    result: &'a TensorType,
    operand_dims: Vec<Vec<Expr>>,
    result_dims: Vec<Expr>,
    /// The dtype the op computes in, before this lowering's casts.
    compute_input: DType,
    /// How a small integer op computes in a wider type.
    small: Option<SmallInt>,
    is_reduce: bool,
    /// The iteration space: the result's dims, the operand's for a reduction.
    loop_dims: Vec<Expr>,
    axis: Vec<i64>,
}

impl<'a> LoopOp<'a> {
    /// The op with its types checked: a result, dims that all have symbols, and element
    /// types the vector unit computes.
    fn new(
        spec: &OpSpec,
        attrs: &'a BTreeMap<String, AttrValue>,
        operand_types: &'a [TensorType],
        result_types: &'a [TensorType],
    ) -> Result<Self, NotLowered> {
        let short = spec.name;
        let result = result_types.first().ok_or(NotLowered {
            code: "AF-LW001",
            reason: "op without results".into(),
        })?;
        let operand_dims: Vec<Vec<Expr>> = operand_types
            .iter()
            .map(known_dims)
            .collect::<Result<_, _>>()?;
        let result_dims = known_dims(result)?;
        // Select computes in its branches' dtype.
        let compute_input = match spec.category {
            Category::Select => operand_types
                .get(1)
                .map(|t| t.dtype)
                .unwrap_or(result.dtype),
            _ => operand_types
                .first()
                .map(|t| t.dtype)
                .unwrap_or(result.dtype),
        };
        let small = small_int(short, compute_input);
        check_computable(short, compute_input, small.is_some(), result.dtype)?;
        let is_reduce = ascir_reduce(short).is_some();
        let loop_dims = if is_reduce {
            operand_dims[0].clone()
        } else {
            result_dims.clone()
        };
        let axis = (0..loop_dims.len() as i64).collect();
        Ok(LoopOp {
            short,
            category: spec.category,
            attrs,
            operand_types,
            result,
            operand_dims,
            result_dims,
            compute_input,
            small,
            is_reduce,
            loop_dims,
            axis,
        })
    }

    /// A builder over the op's loop nest; `inlined` as for [`lower_op_with`].
    fn builder(&self, loc: Option<String>, inlined: &[Option<InlinedRange>]) -> Builder {
        let mut inlined = inlined.to_vec();
        inlined.resize(self.operand_types.len(), None);
        Builder {
            axis: self.axis.clone(),
            loop_dims: self.loop_dims.clone(),
            nodes: Vec::new(),
            loc,
            inlined,
            widen_loads: self.small.is_some(),
        }
    }

    /// The contiguous view of the whole loop nest.
    fn full_view(&self) -> View {
        View::contiguous(self.axis.clone(), self.loop_dims.clone())
    }

    /// The dtype a value of `dtype` is computed in: bf16 is storage-only on the v1
    /// chip; f16 reductions accumulate in f32.
    fn upcast(&self, dtype: DType) -> DType {
        match dtype {
            DType::BF16 => DType::F32,
            DType::F16
                if self.is_reduce
                    && matches!(self.short, "reduce_sum" | "reduce_mean" | "reduce_prod") =>
            {
                DType::F32
            }
            other => other,
        }
    }

    /// Every operand loaded and broadcast to the whole loop nest.
    fn read_operands(&self, b: &mut Builder) -> Vec<usize> {
        let reshape_like = matches!(self.short, "reshape" | "squeeze" | "unsqueeze");
        let mut reads = Vec::new();
        for (index, (ty, dims)) in self
            .operand_types
            .iter()
            .zip(&self.operand_dims)
            .enumerate()
        {
            let view_dims = reshape_like.then_some(self.result_dims.as_slice());
            reads.push(b.read(index, ty, dims, view_dims));
        }
        reads
    }

    /// `broadcast_to`, `reshape`, `squeeze`, `unsqueeze`: the read of the operand is the
    /// value (a reshape reads the operand's bytes under the result's shape).
    fn lower_view(&self, b: &mut Builder) -> usize {
        self.read_operands(b)[0]
    }

    /// A transpose: one load with the operand's GM strides permuted.
    fn lower_transpose(&self, b: &mut Builder) -> Result<usize, NotLowered> {
        let (Some(ty), Some(dims)) = (self.operand_types.first(), self.operand_dims.first()) else {
            return refuse("AF-LW001", "transpose without an operand");
        };
        let perm = self
            .attrs
            .get("perm")
            .and_then(AttrValue::as_ints)
            .unwrap_or_default();
        let view = transpose_view(&self.axis, &perm, dims, &self.result_dims, ty.dtype)?;
        Ok(b.read_view(0, ty.dtype, view))
    }

    /// A slice: one load at the slice's offset with its strides.
    fn lower_slice(&self, b: &mut Builder) -> Result<usize, NotLowered> {
        let (Some(ty), Some(dims)) = (self.operand_types.first(), self.operand_dims.first()) else {
            return refuse("AF-LW001", "slice without an operand");
        };
        let (view, offset) = slice_view(&self.axis, self.attrs, dims, &self.result_dims)?;
        Ok(b.read_view_at(0, ty.dtype, view, &offset))
    }

    /// A constant pad of one axis: concat(fill, x, fill) along the padded axis, each fill
    /// a Duplicate of the pad value over its slab, x a load of the whole operand.
    fn lower_pad(&self, b: &mut Builder) -> Result<usize, NotLowered> {
        let (Some(ty), Some(dims)) = (self.operand_types.first(), self.operand_dims.first()) else {
            return refuse("AF-LW001", "pad without an operand");
        };
        let pad = constant_pad(self.attrs, dims)?;
        let axis_list = axis_ids(&self.loop_dims);
        let fill = |b: &mut Builder, extent: i64, dtype: DType| {
            let mut repeats = self.result_dims.clone();
            repeats[pad.axis] = Expr::constant(extent);
            b.push(
                "fill",
                Vec::new(),
                dtype,
                View::contiguous(axis_list.clone(), repeats),
                vec![("value".to_string(), format!("\"{:?}\"", pad.value))],
            )
        };
        let x_view = concat_operand_view(&axis_list, pad.axis, dims, &self.result_dims)?;
        let x = b.read_view(0, ty.dtype, x_view);
        let dtype = b.nodes[x].dtype;
        let mut parts = Vec::new();
        if pad.before > 0 {
            parts.push(fill(b, pad.before, dtype));
        }
        parts.push(x);
        if pad.after > 0 {
            parts.push(fill(b, pad.after, dtype));
        }
        Ok(self.join_parts(b, &parts))
    }

    /// A binary concat: each operand loaded with its own extent on the concat axis.
    fn lower_concat(&self, b: &mut Builder) -> Result<usize, NotLowered> {
        let axis = self
            .attrs
            .get("axis")
            .and_then(AttrValue::as_int)
            .unwrap_or(0);
        let axis = usize::try_from(if axis < 0 {
            axis + self.loop_dims.len() as i64
        } else {
            axis
        })
        .ok()
        .filter(|&a| a < self.loop_dims.len())
        .ok_or(NotLowered {
            code: "AF-LW001",
            reason: format!("concat axis {axis} is out of range"),
        })?;
        if self.operand_types.len() != 2 {
            return refuse("AF-LW001", "only binary concats are lowered");
        }
        let mut reads = Vec::new();
        for (index, (ty, dims)) in self
            .operand_types
            .iter()
            .zip(&self.operand_dims)
            .enumerate()
        {
            let view =
                concat_operand_view(&axis_ids(&self.loop_dims), axis, dims, &self.result_dims)?;
            reads.push(b.read_view(index, ty.dtype, view));
        }
        Ok(self.join_parts(b, &reads))
    }

    /// The parts of a concat or pad joined by binary concats, left to right; a pad's
    /// partial concat is contiguous over its own extent of the axis.
    fn join_parts(&self, b: &mut Builder, reads: &[usize]) -> usize {
        let dtype = b.nodes[reads[0]].dtype;
        let pad_axis = b.nodes.iter().find(|n| n.op == "fill").and(
            constant_pad(self.attrs, &self.operand_dims[0])
                .ok()
                .map(|p| p.axis),
        );
        let mut joined = reads[0];
        for (k, &part) in reads.iter().enumerate().skip(1) {
            let view = match pad_axis {
                Some(a) if k + 1 < reads.len() => {
                    let mut repeats = self.loop_dims.clone();
                    repeats[a] = reads[..=k].iter().fold(Expr::constant(0), |acc, &r| {
                        acc + b.nodes[r].view.repeats[a].clone()
                    });
                    View::contiguous(self.axis.clone(), repeats)
                }
                _ => self.full_view(),
            };
            joined = b.push("concat", vec![joined, part], dtype, view, Vec::new());
        }
        joined
    }

    /// A cast, through f32 where the chip has no direct conversion.
    fn lower_cast(&self, b: &mut Builder) -> usize {
        let source = self.read_operands(b)[0];
        let from = self.operand_types[0].dtype;
        let result = self.result;
        let small = |d: DType| matches!(d, DType::I8 | DType::U8 | DType::I16);
        if small(from) && !small(result.dtype) && result.dtype != DType::Bool {
            // Exact: through the float type that holds every value (`SmallInt`).
            let wide = b.widen_int(source, DType::F32);
            b.cast(wide, result.dtype)
        } else if small(result.dtype) && from == DType::I32 {
            // Integer narrowing wraps to the width (the interpreter's semantics).
            b.wrap_int(source, result.dtype)
        } else if self.operand_types[0].dtype == DType::BF16 && result.dtype != DType::F32 {
            let wide = b.cast(source, DType::F32);
            b.cast(wide, result.dtype)
        } else if result.dtype == DType::BF16 && self.operand_types[0].dtype != DType::F32 {
            let wide = b.cast(source, DType::F32);
            b.cast(wide, DType::BF16)
        } else {
            b.cast(source, result.dtype)
        }
    }

    /// A reduction (or a `reduce_mean`): the input upcast, reduced over its `axes` with
    /// the reduced axes kept at repeat 1.
    fn lower_reduce(&self, b: &mut Builder) -> Result<usize, NotLowered> {
        let reads = self.read_operands(b);
        let compute = self.upcast(self.operand_types[0].dtype);
        let input = b.cast(reads[0], compute);
        let axes_list = self
            .attrs
            .get("axes")
            .and_then(AttrValue::as_ints)
            .unwrap_or_default();
        let reduced: BTreeSet<usize> = reduce_axes(&axes_list, self.loop_dims.len())
            .map_err(|e| NotLowered {
                code: "AF-LW001",
                reason: e.0,
            })?
            .into_iter()
            .collect();
        let repeats: Vec<Expr> = self
            .loop_dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if reduced.contains(&i) {
                    Expr::constant(1)
                } else {
                    d.clone()
                }
            })
            .collect();
        let view = View::contiguous(self.axis.clone(), repeats);
        let op_name = ascir_reduce(self.short).unwrap_or("sum");
        Ok(b.push(op_name, vec![input], compute, view, Vec::new()))
    }

    /// A small integer op computed in a wider type (see `SmallInt`).
    fn lower_small_int(&self, b: &mut Builder, plan: SmallInt) -> usize {
        let reads = self.read_operands(b);
        let select = self.category == Category::Select;
        let compute = match plan {
            SmallInt::Exact => exact_float(self.compute_input),
            SmallInt::Wrapping => DType::I32,
            SmallInt::Truncating | SmallInt::Floor { .. } => DType::F32,
            SmallInt::Bits => DType::I16,
        };
        let inputs: Vec<usize> = reads
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                if select && i == 0 {
                    r
                } else {
                    b.widen_int(r, compute)
                }
            })
            .collect();
        let dtype = if self.category == Category::Compare {
            DType::Bool
        } else {
            compute
        };
        let op = match plan {
            SmallInt::Floor { .. } => "div",
            _ => self.short,
        };
        let computed = b.push(op, inputs.clone(), dtype, self.full_view(), Vec::new());
        self.narrow_small_int(b, plan, computed, &inputs)
    }

    /// The result of a small integer op from `computed`, its value in the wider type
    /// (`inputs` are the widened operands), with the op's integer semantics.
    fn narrow_small_int(
        &self,
        b: &mut Builder,
        plan: SmallInt,
        computed: usize,
        inputs: &[usize],
    ) -> usize {
        let result = self.result;
        match plan {
            SmallInt::Floor { modulo } => {
                let floored = b.push(
                    "floor",
                    vec![computed],
                    DType::F32,
                    self.full_view(),
                    Vec::new(),
                );
                if modulo {
                    let product = b.binary("mul", floored, inputs[1], DType::F32);
                    let rest = b.binary("sub", inputs[0], product, DType::F32);
                    let exact = b.cast(rest, exact_float(result.dtype));
                    b.cast(exact, result.dtype)
                } else {
                    let quotient = b.cast(floored, DType::I32);
                    b.wrap_int(quotient, result.dtype)
                }
            }
            SmallInt::Exact => computed,
            SmallInt::Bits => {
                // uint8 operands are zero-extended: `~x` sets the high byte, which
                // `& 0xff` clears (int8 operands are sign-extended, and so is the
                // result of every bitwise op on them).
                let computed = if result.dtype == DType::U8 {
                    let low = b.scalar(DType::I16, 255.0);
                    b.binary("bitwise_and", computed, low, DType::I16)
                } else {
                    computed
                };
                let exact = b.cast(computed, exact_float(result.dtype));
                b.cast(exact, result.dtype)
            }
            SmallInt::Wrapping => b.wrap_int(computed, result.dtype),
            SmallInt::Truncating => {
                let quotient = b.cast(computed, DType::I32);
                b.wrap_int(quotient, result.dtype)
            }
        }
    }

    /// An elementwise op, compare or select on its upcast operands.
    fn lower_elementwise(&self, b: &mut Builder) -> usize {
        let reads = self.read_operands(b);
        let mut inputs = Vec::new();
        for (i, &r) in reads.iter().enumerate() {
            // The condition of select stays i1.
            if self.category == Category::Select && i == 0 {
                inputs.push(r);
            } else {
                let dtype = self.upcast(b.nodes[r].dtype);
                inputs.push(b.cast(r, dtype));
            }
        }
        let compute_dtype = match self.category {
            Category::Compare => DType::Bool,
            _ => self.upcast(self.result.dtype),
        };
        let mut extra = Vec::new();
        if let Some(alpha) = self.attrs.get("alpha").and_then(AttrValue::as_float) {
            extra.push(("alpha".to_string(), format!("{alpha:.17e} : f32")));
        }
        b.push(self.short, inputs, compute_dtype, self.full_view(), extra)
    }

    /// `value` cast to the result's dtype and stored with the result's GM view over the
    /// loop axes (a reduction's reduced axes keep repeat 1, stride 0).
    fn store(&self, b: &mut Builder, value: usize) {
        let value = b.cast(value, self.result.dtype);
        let store_view = if self.is_reduce {
            let keep_repeats = b.nodes[value].view.repeats.clone();
            let kept: Vec<Expr> = keep_repeats.clone();
            View {
                axis: self.axis.clone(),
                repeats: keep_repeats,
                strides: reduced_gm_strides(&kept),
            }
        } else {
            View {
                axis: self.axis.clone(),
                repeats: self.loop_dims.clone(),
                strides: gm_strides(&self.loop_dims),
            }
        };
        b.store_output(value, self.result.dtype, store_view);
    }

    /// The kernel `b` built: its size symbols (of the dims, the load offsets and the
    /// inlined ranges) and its inputs (the operands that are not inlined).
    fn kernel(&self, b: Builder, name: &str) -> AscGraph {
        let mut sizes = BTreeSet::new();
        for dims in self
            .operand_dims
            .iter()
            .chain(std::iter::once(&self.result_dims))
        {
            for d in dims {
                sizes.extend(d.symbols());
            }
        }
        for node in b.nodes.iter().filter(|n| n.op == "load") {
            if let Ok(offset) = node.gm_offset() {
                offset.collect_symbols(&mut sizes);
            }
        }
        for range in b.inlined.iter().flatten() {
            range.start.collect_symbols(&mut sizes);
            range.delta.collect_symbols(&mut sizes);
        }
        let inputs = self
            .operand_types
            .iter()
            .zip(&b.inlined)
            .filter(|(_, r)| r.is_none())
            .map(|(t, _)| t.clone())
            .collect();
        AscGraph {
            name: name.to_string(),
            axes: axis_list(&self.loop_dims),
            sizes: sizes.into_iter().collect(),
            inputs,
            outputs: vec![self.result.clone()],
            nodes: b.nodes,
            // The kernel computes its inlined ranges too (so it is never lifted back to
            // the one op, whose range operand it no longer reads).
            source_ops: b
                .inlined
                .iter()
                .flatten()
                .map(|_| camel_name("range"))
                .chain(std::iter::once(camel_name(self.short)))
                .collect(),
        }
    }
}

/// `ascend.gather` (an embedding lookup when `axis` is 0): the loop nest is the
/// result's, `[data dims before axis] + [index dims] + [data dims after axis]`. The
/// indices are loaded as a tile over their own loop axes (repeat 1 elsewhere); the data
/// stays in GM (`data` with its strides on the outer and inner axes, stride 0 on the
/// index axes) and `ascir.gather` copies one contiguous row of the inner dims per index
/// into UB (DataCopyPad at `index * stride`; a gather along the innermost axis copies
/// single elements with the scalar unit); indices are i32 or i64 (only the scalar unit
/// reads them, so i64 needs no 64-bit vector arithmetic).
///
/// `ascend.gather_elements` (`per_element`) is the same kernel over the loop nest of
/// its indices (the data's rank): the table view has stride 0 on `axis` only, the index
/// tile is whole, and the gather picks one element per index.
fn lower_gather(
    attrs: &BTreeMap<String, AttrValue>,
    operand_types: &[TensorType],
    result_types: &[TensorType],
    (loc, name, per_element): (Option<String>, &str, bool),
    inlined: &[Option<InlinedRange>],
) -> Result<AscGraph, NotLowered> {
    let ([data_ty, index_ty], [result]) = (operand_types, result_types) else {
        return refuse(
            "AF-LW001",
            "gather takes data and indices and has one result",
        );
    };
    let mut inlined = inlined.to_vec();
    inlined.resize(2, None);
    if inlined[0].is_some() {
        return refuse("AF-LW001", "a gather from a range is not lowered");
    }
    check_gather_dtypes(data_ty.dtype, index_ty.dtype)?;
    let gather = GatherOp::new(attrs, (data_ty, index_ty, result), per_element)?;
    let (data_view, index_view) = gather.views();
    let loop_axes: Vec<i64> = (0..gather.result_dims.len() as i64).collect();
    let mut b = Builder {
        axis: loop_axes.clone(),
        loop_dims: gather.result_dims.clone(),
        nodes: Vec::new(),
        loc,
        // Computed ids (position ids: a range) are an `arange` tile, not an input.
        inlined,
        widen_loads: false,
    };
    let table = b.push("data", Vec::new(), data_ty.dtype, data_view, Vec::new());
    b.nodes[table].index = Some(0);
    // i64 indices stay i64 in UB: only the scalar unit reads them.
    let index_dtype = if b.inlined[1].is_some() {
        DType::I32
    } else {
        index_ty.dtype
    };
    let indices = b.read_view(1, index_dtype, index_view);
    let full = View::contiguous(loop_axes, gather.result_dims.clone());
    let gathered = b.push(
        "gather",
        vec![table, indices],
        data_ty.dtype,
        full.clone(),
        vec![("axis".into(), format!("{} : i64", gather.axis))],
    );
    let store_view = View {
        axis: full.axis.clone(),
        repeats: gather.result_dims.clone(),
        strides: gm_strides(&gather.result_dims),
    };
    b.store_output(gathered, result.dtype, store_view);
    Ok(gather.kernel(b, name))
}

/// Refuses gathers of element types this lowering does not serve: indices other than
/// i32 and i64, data of i64, bool or wider than 4 bytes.
fn check_gather_dtypes(data: DType, indices: DType) -> Result<(), NotLowered> {
    if !matches!(indices, DType::I32 | DType::I64) {
        return refuse(
            "AF-LW003",
            format!("gather indices of {indices} are not lowered"),
        );
    }
    if matches!(data, DType::I64 | DType::Bool) || data.bytes() > 4 {
        return refuse("AF-LW003", format!("a gather of {data} is not lowered"));
    }
    Ok(())
}

/// A gather (or `gather_elements`) whose dims and axis [`GatherOp::new`] checked.
struct GatherOp<'a> {
    data_ty: &'a TensorType,
    index_ty: &'a TensorType,
    result: &'a TensorType,
    data_dims: Vec<Expr>,
    index_dims: Vec<Expr>,
    result_dims: Vec<Expr>,
    /// The gathered axis of the data, normalized.
    axis: usize,
    per_element: bool,
}

impl<'a> GatherOp<'a> {
    /// The gather of `data_ty` by `index_ty` into `result`, refused unless every dim has
    /// a symbol, `axis` is in range and the result rank is what the operands give.
    fn new(
        attrs: &BTreeMap<String, AttrValue>,
        (data_ty, index_ty, result): (&'a TensorType, &'a TensorType, &'a TensorType),
        per_element: bool,
    ) -> Result<Self, NotLowered> {
        let data_dims = known_dims(data_ty)?;
        let index_dims = known_dims(index_ty)?;
        let result_dims = known_dims(result)?;
        let rank = data_dims.len();
        let axis = attrs.get("axis").and_then(AttrValue::as_int).unwrap_or(0);
        let axis = usize::try_from(if axis < 0 { axis + rank as i64 } else { axis })
            .ok()
            .filter(|&a| a < rank)
            .ok_or(NotLowered {
                code: "AF-LW001",
                reason: format!("gather axis {axis} is out of range"),
            })?;
        let expected_rank = if per_element {
            rank
        } else {
            axis + index_dims.len() + (rank - axis - 1)
        };
        if result_dims.len() != expected_rank || (per_element && index_dims.len() != rank) {
            return refuse("AF-LW001", "gather result rank does not match its operands");
        }
        let gather = GatherOp {
            data_ty,
            index_ty,
            result,
            data_dims,
            index_dims,
            result_dims,
            axis,
            per_element,
        };
        if per_element {
            gather.check_indices_fit()?;
        }
        Ok(gather)
    }

    /// Off the gathered axis a `gather_elements` index walks the data's own
    /// coordinates: its dims may not exceed the data's (known to hold only when equal or
    /// both static).
    fn check_indices_fit(&self) -> Result<(), NotLowered> {
        let (index_dims, data_dims) = (&self.index_dims, &self.data_dims);
        let fits = |k: usize| {
            index_dims[k] == data_dims[k]
                || matches!((index_dims[k].as_const(), data_dims[k].as_const()),
                    (Some(i), Some(d)) if i <= d)
        };
        if let Some(k) = (0..data_dims.len()).find(|&k| k != self.axis && !fits(k)) {
            return refuse(
                "AF-LW001",
                format!(
                    "gather_elements indices dim {k} ('{}') is not known to fit the data's ('{}')",
                    index_dims[k], data_dims[k]
                ),
            );
        }
        Ok(())
    }

    /// The GM views of the data table and of the indices over the result's loop nest:
    /// each has its own strides on the loop axes that walk its dims, and repeat 1 with
    /// stride 0 on the others (and on unit axes).
    fn views(&self) -> (View, View) {
        let loop_axes: Vec<i64> = (0..self.result_dims.len() as i64).collect();
        let strides = gm_strides(&self.data_dims);
        let index_strides = gm_strides(&self.index_dims);
        let unit = |e: &Expr| e.as_const() == Some(1);
        let (mut data_view, mut index_view) = (
            View {
                axis: loop_axes.clone(),
                repeats: Vec::new(),
                strides: Vec::new(),
            },
            View {
                axis: loop_axes.clone(),
                repeats: Vec::new(),
                strides: Vec::new(),
            },
        );
        for (k, size) in self.result_dims.iter().enumerate() {
            let (index_position, data_dim) = self.walked_dims(k);
            let (repeat, stride) = match data_dim {
                Some(d) if !unit(size) => (size.clone(), strides[d].clone()),
                _ => (Expr::constant(1), Expr::constant(0)),
            };
            data_view.repeats.push(repeat);
            data_view.strides.push(stride);
            let (repeat, stride) = match index_position {
                Some(j) if !unit(size) => (size.clone(), index_strides[j].clone()),
                _ => (Expr::constant(1), Expr::constant(0)),
            };
            index_view.repeats.push(repeat);
            index_view.strides.push(stride);
        }
        (data_view, index_view)
    }

    /// The index dim and the data dim that result axis `k` walks, if any.
    fn walked_dims(&self, k: usize) -> (Option<usize>, Option<usize>) {
        let axis = self.axis;
        if self.per_element {
            (Some(k), (k != axis).then_some(k))
        } else {
            let index_position = k.checked_sub(axis).filter(|&j| j < self.index_dims.len());
            let data_dim = match index_position {
                Some(_) => None,
                None if k < axis => Some(k),
                None => Some(k - self.index_dims.len() + 1),
            };
            (index_position, data_dim)
        }
    }

    /// The kernel `b` built: its size symbols (of the dims and an inlined index range)
    /// and its inputs (the data, and the indices unless they are a range).
    fn kernel(&self, b: Builder, name: &str) -> AscGraph {
        let mut sizes = BTreeSet::new();
        for d in self
            .data_dims
            .iter()
            .chain(&self.index_dims)
            .chain(&self.result_dims)
        {
            d.collect_symbols(&mut sizes);
        }
        let mut source_ops = vec![camel_name(if self.per_element {
            "gather_elements"
        } else {
            "gather"
        })];
        let mut inputs = vec![self.data_ty.clone()];
        match &b.inlined[1] {
            Some(range) => {
                range.start.collect_symbols(&mut sizes);
                range.delta.collect_symbols(&mut sizes);
                source_ops.insert(0, camel_name("range"));
            }
            None => inputs.push(self.index_ty.clone()),
        }
        AscGraph {
            name: name.to_string(),
            axes: axis_list(&self.result_dims),
            sizes: sizes.into_iter().collect(),
            inputs,
            outputs: vec![self.result.clone()],
            nodes: b.nodes,
            source_ops,
        }
    }
}

/// An `ascend.range` of its own (what a consumer that is no kernel reads): one `arange`
/// over the result, stored.
fn lower_range(
    attrs: &BTreeMap<String, AttrValue>,
    result_types: &[TensorType],
    loc: Option<String>,
    name: &str,
) -> Result<AscGraph, NotLowered> {
    let Some(result) = result_types.first() else {
        return refuse("AF-LW001", "range without a result");
    };
    if !arange_computable(result.dtype) {
        return refuse(
            "AF-LW003",
            format!(
                "'range' produces {}; ascir.arange computes i32, f32 and f16",
                result.dtype
            ),
        );
    }
    let range = InlinedRange::from_range_attrs(attrs).ok_or(NotLowered {
        code: "AF-LW001",
        reason: "range whose start or delta is neither a number nor a shape expression".into(),
    })?;
    let dims = known_dims(result)?;
    let axis: Vec<i64> = (0..dims.len() as i64).collect();
    let view = View {
        axis: axis.clone(),
        repeats: dims.clone(),
        strides: gm_strides(&dims),
    };
    let mut b = Builder {
        axis: axis.clone(),
        loop_dims: dims.clone(),
        nodes: Vec::new(),
        loc,
        inlined: vec![Some(range.clone())],
        widen_loads: false,
    };
    let value = b.read_view(0, result.dtype, view.clone());
    b.store_output(value, result.dtype, view);
    let mut sizes = BTreeSet::new();
    for d in &dims {
        d.collect_symbols(&mut sizes);
    }
    range.start.collect_symbols(&mut sizes);
    range.delta.collect_symbols(&mut sizes);
    Ok(AscGraph {
        name: name.to_string(),
        axes: axis_list(&dims),
        sizes: sizes.into_iter().collect(),
        inputs: Vec::new(),
        outputs: vec![result.clone()],
        nodes: b.nodes,
        source_ops: vec![camel_name("range")],
    })
}

fn axis_list(loop_dims: &[Expr]) -> Vec<Axis> {
    loop_dims
        .iter()
        .enumerate()
        .map(|(i, size)| Axis {
            id: i as i64,
            name: format!("z{i}"),
            size: size.clone(),
            kind: AxisKind::Original,
            from: Vec::new(),
        })
        .collect()
}

/// The GM view of a transpose's operand over the loop nest of its result (GE carries
/// a transpose as the strides of a load): result axis `i` walks operand dim `perm[i]`.
/// Any permutation is lowered. One that keeps the innermost non-unit dim innermost keeps
/// every GM row contiguous (a strided copy, DataCopyPad); one that moves it (f32/f16
/// and bf16 only) is loaded in source blocks and transposed in UB with the Ascend C `Transpose`
/// API, the schedule ordering the loop nest so that the operand's contiguous dim is the
/// second innermost loop (`docs/fusion.md`).
fn transpose_view(
    axis: &[i64],
    perm: &[i64],
    dims: &[Expr],
    result_dims: &[Expr],
    dtype: DType,
) -> Result<View, NotLowered> {
    let rank = dims.len();
    let perm: Vec<usize> = perm
        .iter()
        .filter_map(|&p| usize::try_from(p).ok().filter(|&p| p < rank))
        .collect();
    let mut seen = vec![false; rank];
    for &p in &perm {
        seen[p] = true;
    }
    if perm.len() != rank || result_dims.len() != rank || seen.iter().any(|s| !s) {
        return refuse(
            "AF-LW001",
            "transpose 'perm' is not a permutation of the axes",
        );
    }
    let unit = |e: &Expr| e.as_const() == Some(1);
    // The innermost non-unit operand dim, and the one the result walks innermost.
    let inner_in = (0..rank).rev().find(|&j| !unit(&dims[j]));
    let inner_out = (0..rank).rev().map(|i| perm[i]).find(|&j| !unit(&dims[j]));
    // bf16 moves as the 16-bit pattern of an f16 (a transpose only moves bits).
    if inner_in != inner_out && !matches!(dtype, DType::F32 | DType::F16 | DType::BF16) {
        return refuse(
            "AF-LW001",
            format!(
                "a transpose of {dtype} that moves the innermost axis is not lowered \
                 (the UB Transpose is used for f32, f16 and bf16 only)"
            ),
        );
    }
    let strides = gm_strides(dims);
    let mut repeats = Vec::new();
    let mut view_strides = Vec::new();
    for (&p, size) in perm.iter().zip(result_dims) {
        if unit(&dims[p]) {
            repeats.push(Expr::constant(1));
            view_strides.push(Expr::constant(0));
        } else {
            repeats.push(size.clone());
            view_strides.push(strides[p].clone());
        }
    }
    Ok(View {
        axis: axis.to_vec(),
        repeats,
        strides: view_strides,
    })
}

/// The GM view and element offset of a slice's operand over the loop nest of its
/// result (GE carries a slice as the offset and strides of a load, no kernel of its
/// own): result axis `i` walks operand dim `i` from its clamped start, `step` elements
/// at a time. The innermost non-unit dim must keep step 1 (DataCopyPad copies
/// contiguous rows); bounds may be shape expressions.
fn slice_view(
    axis: &[i64],
    attrs: &BTreeMap<String, AttrValue>,
    dims: &[Expr],
    result_dims: &[Expr],
) -> Result<(View, Expr), NotLowered> {
    let malformed = |what: &str| NotLowered {
        code: "AF-LW001",
        reason: format!("slice attribute '{what}' is missing or malformed"),
    };
    let exprs = |name: &str| {
        attrs
            .get(name)
            .and_then(AttrValue::as_exprs)
            .ok_or_else(|| malformed(name))
    };
    let (starts, ends) = (exprs("starts")?, exprs("ends")?);
    let axes = attrs
        .get("axes")
        .and_then(AttrValue::as_ints)
        .ok_or_else(|| malformed("axes"))?;
    let steps = attrs
        .get("steps")
        .and_then(AttrValue::as_ints)
        .ok_or_else(|| malformed("steps"))?;
    let rank = dims.len();
    if result_dims.len() != rank
        || [starts.len(), ends.len(), steps.len()]
            .iter()
            .any(|&n| n != axes.len())
    {
        return Err(malformed("axes"));
    }
    let env = autofuse_symbolic::ShapeEnv::new();
    let strides = gm_strides(dims);
    let mut begin = vec![Expr::constant(0); rank];
    let mut step = vec![1i64; rank];
    for (i, &a) in axes.iter().enumerate() {
        let d = usize::try_from(if a < 0 { a + rank as i64 } else { a })
            .ok()
            .filter(|&d| d < rank)
            .ok_or_else(|| malformed("axes"))?;
        if steps[i] <= 0 {
            return refuse("AF-LW001", "slices with negative steps are not lowered");
        }
        begin[d] =
            autofuse_ascend::shape::slice_bound(&starts[i], &dims[d], &env).map_err(|e| {
                NotLowered {
                    code: "AF-LW001",
                    reason: e.0,
                }
            })?;
        step[d] = steps[i];
    }
    let unit = |e: &Expr| e.as_const() == Some(1);
    // A slice that keeps one element of the operand's innermost dim (`x[..., 3:4]`) reads
    // rows of one element: its view keeps stride 1 on that unit axis, which the schedule
    // then keeps innermost.
    let one_element_rows = rank >= 2 && unit(&result_dims[rank - 1]) && !unit(&dims[rank - 1]);
    if let Some(inner) = (0..rank).rev().find(|&d| !unit(&result_dims[d])) {
        // Otherwise the innermost axis the slice keeps must walk the operand with stride
        // 1: a step there, or unit dims after it (a step on an outer axis that becomes
        // the innermost one), would copy single elements.
        let stride = strides[inner].clone() * Expr::constant(step[inner]);
        if stride.as_const() != Some(1) && !(one_element_rows && inner + 1 < rank) {
            return refuse(
                "AF-LW001",
                format!(
                    "a slice whose innermost kept axis has stride {stride} in its operand is \
                     not lowered (DataCopyPad copies contiguous rows)"
                ),
            );
        }
    }
    let mut offset = Expr::constant(0);
    let mut repeats = Vec::new();
    let mut view_strides = Vec::new();
    for d in 0..rank {
        offset = offset + begin[d].clone() * strides[d].clone();
        if unit(&result_dims[d]) {
            repeats.push(Expr::constant(1));
            let kept_row = one_element_rows && d + 1 == rank;
            view_strides.push(Expr::constant(i64::from(kept_row)));
        } else {
            repeats.push(result_dims[d].clone());
            view_strides.push(strides[d].clone() * Expr::constant(step[d]));
        }
    }
    Ok((
        View {
            axis: axis.to_vec(),
            repeats,
            strides: view_strides,
        },
        offset,
    ))
}

fn axis_ids(loop_dims: &[Expr]) -> Vec<i64> {
    (0..loop_dims.len() as i64).collect()
}

/// A pad this lowering serves: constant mode, a finite value, static non-negative pads
/// on exactly one axis (the others 0).
struct ConstantPad {
    axis: usize,
    before: i64,
    after: i64,
    value: f64,
}

fn constant_pad(
    attrs: &BTreeMap<String, AttrValue>,
    dims: &[Expr],
) -> Result<ConstantPad, NotLowered> {
    let mode = attrs
        .get("mode")
        .and_then(AttrValue::as_str)
        .unwrap_or("constant");
    if mode != "constant" {
        return refuse(
            "AF-LW001",
            format!("pad mode '{mode}' is not lowered (constant only)"),
        );
    }
    let value = attrs
        .get("value")
        .and_then(AttrValue::as_float)
        .unwrap_or(0.0);
    let rank = dims.len();
    let pads = attrs
        .get("pads")
        .and_then(AttrValue::as_exprs)
        .filter(|p| p.len() == 2 * rank)
        .ok_or(NotLowered {
            code: "AF-LW001",
            reason: "pad without one before and one after pad per axis".into(),
        })?;
    let mut padded = Vec::new();
    for k in 0..rank {
        let (Some(before), Some(after)) = (pads[k].as_const(), pads[rank + k].as_const()) else {
            return refuse(
                "AF-LW001",
                format!("pads of axis {k} are symbolic (not lowered)"),
            );
        };
        if before < 0 || after < 0 {
            return refuse("AF-LW001", "negative pads (crops) are not lowered");
        }
        if before > 0 || after > 0 {
            padded.push((k, before, after));
        }
    }
    match padded.as_slice() {
        [(axis, before, after)] => Ok(ConstantPad {
            axis: *axis,
            before: *before,
            after: *after,
            value,
        }),
        [] => refuse("AF-LW001", "a pad without padding is a copy (not lowered)"),
        _ => refuse(
            "AF-LW001",
            format!(
                "pads on {} axes are not lowered (one axis only)",
                padded.len()
            ),
        ),
    }
}

/// The GM view of a concat operand over the result's loop nest: its own extent (a part
/// of the axis) on the concat axis, the result's elsewhere, its own row-major strides.
fn concat_operand_view(
    axis_list: &[i64],
    axis: usize,
    dims: &[Expr],
    result_dims: &[Expr],
) -> Result<View, NotLowered> {
    if dims.len() != result_dims.len() {
        return refuse("AF-LW001", "concat operands must have the result's rank");
    }
    if dims[axis].as_const() == Some(0) {
        return refuse("AF-LW001", "a concat operand is empty along the axis");
    }
    let strides = gm_strides(dims);
    let mut repeats = Vec::new();
    let mut view_strides = Vec::new();
    for (i, (d, r)) in dims.iter().zip(result_dims).enumerate() {
        if i == axis {
            repeats.push(d.clone());
            view_strides.push(strides[i].clone());
        } else if d.as_const() == Some(1) {
            repeats.push(Expr::constant(1));
            view_strides.push(Expr::constant(0));
        } else {
            repeats.push(r.clone());
            view_strides.push(strides[i].clone());
        }
    }
    Ok(View {
        axis: axis_list.to_vec(),
        repeats,
        strides: view_strides,
    })
}

/// GM strides of a kept-dim reduction result: reduced axes (repeat 1) get stride 0, the
/// others the row-major strides of the remaining extents.
fn reduced_gm_strides(repeats: &[Expr]) -> Vec<Expr> {
    View::contiguous(Vec::new(), repeats.to_vec()).strides
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    #[test]
    fn binary_broadcast_gets_single_axis_broadcasts() {
        let g = lower_op(
            "ascend.add",
            &BTreeMap::new(),
            &[t(DType::F32, &["s0", "16"]), t(DType::F32, &["1", "16"])],
            &[t(DType::F32, &["s0", "16"])],
            None,
            "k",
        )
        .unwrap();
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(
            ops,
            [
                "data",
                "load",
                "data",
                "load",
                "broadcast",
                "add",
                "store",
                "output"
            ]
        );
        // The broadcast operand's GM view: repeat 1 / stride 0 on the broadcast axis.
        assert_eq!(g.nodes[2].view.repeats[0], Expr::constant(1));
        assert_eq!(g.nodes[2].view.strides[0], Expr::constant(0));
        assert_eq!(g.nodes[4].view.repeats[0], Expr::symbol("s0"));
        assert_eq!(g.sizes, vec!["s0".to_string()]);
    }

    #[test]
    fn small_integers_compute_in_a_wider_type() {
        let ops = |op: &str, dtype: DType, result: DType| -> Vec<(String, DType)> {
            let g = lower_op(
                op,
                &BTreeMap::new(),
                &[t(dtype, &["8"]), t(dtype, &["8"])],
                &[t(result, &["8"])],
                None,
                "k",
            )
            .unwrap();
            g.nodes
                .iter()
                .filter(|n| !matches!(n.op.as_str(), "data" | "load" | "store" | "output"))
                .map(|n| (n.op.clone(), n.dtype))
                .collect()
        };
        let names = |v: &[(String, DType)]| v.iter().map(|(o, _)| o.clone()).collect::<Vec<_>>();
        // i8 add: each operand i8 -> f16 -> i32, add in i32, then the wrap
        // (* 2^24 in i32, to f32, * 2^-24) and f32 -> f16 -> i8.
        let add = ops("ascend.add", DType::I8, DType::I8);
        assert_eq!(
            names(&add),
            [
                "cast", "cast", "cast", "cast", "add", "scalar", "mul", "cast", "scalar", "mul",
                "cast", "cast"
            ]
        );
        assert_eq!(add[4].1, DType::I32);
        assert_eq!(add[11].1, DType::I8);
        // u8 sub also adds 256 to negative differences (floor of s / 256).
        assert!(names(&ops("ascend.sub", DType::U8, DType::U8)).contains(&"floor".to_string()));
        // i16 compares in f32 and gives a bool directly.
        let lt = ops("ascend.lt", DType::I16, DType::Bool);
        assert_eq!(
            lt,
            [
                ("cast".to_string(), DType::F32),
                ("cast".to_string(), DType::F32),
                ("lt".to_string(), DType::Bool)
            ]
        );
    }

    #[test]
    fn reductions_keep_dims_and_accumulate_f16_in_f32() {
        let mut attrs = BTreeMap::new();
        attrs.insert("axes".into(), AttrValue::Array(vec![AttrValue::Int(1)]));
        attrs.insert("keep_dims".into(), AttrValue::Bool(false));
        let g = lower_op(
            "ascend.reduce_sum",
            &attrs,
            &[t(DType::F16, &["s0", "s1"])],
            &[t(DType::F16, &["s0"])],
            None,
            "k",
        )
        .unwrap();
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(
            ops,
            ["data", "load", "cast", "sum", "cast", "store", "output"]
        );
        let sum = &g.nodes[3];
        assert_eq!(sum.dtype, DType::F32);
        assert_eq!(
            sum.view.repeats,
            vec![Expr::symbol("s0"), Expr::constant(1)]
        );
        assert_eq!(sum.view.strides, vec![Expr::constant(1), Expr::constant(0)]);
    }

    #[test]
    fn bf16_arithmetic_goes_through_f32() {
        let g = lower_op(
            "ascend.exp",
            &BTreeMap::new(),
            &[t(DType::BF16, &["8"])],
            &[t(DType::BF16, &["8"])],
            None,
            "k",
        )
        .unwrap();
        let ops: Vec<(&str, DType)> = g.nodes.iter().map(|n| (n.op.as_str(), n.dtype)).collect();
        assert_eq!(ops[2], ("cast", DType::F32));
        assert_eq!(ops[3], ("exp", DType::F32));
        assert_eq!(ops[4], ("cast", DType::BF16));
    }

    #[test]
    fn refusals_carry_reason_codes() {
        let e = lower_op("ascend.matmul", &BTreeMap::new(), &[], &[], None, "k").unwrap_err();
        assert_eq!(e.code, "AF-LW002");
        let e = lower_op(
            "ascend.exp",
            &BTreeMap::new(),
            &[t(DType::I64, &["8"])],
            &[t(DType::I64, &["8"])],
            None,
            "k",
        )
        .unwrap_err();
        assert_eq!(e.code, "AF-LW003");
        let unknown = TensorType::new(DType::F32, vec![Dim::Unknown]);
        let e = lower_op(
            "ascend.abs",
            &BTreeMap::new(),
            std::slice::from_ref(&unknown),
            std::slice::from_ref(&unknown),
            None,
            "k",
        )
        .unwrap_err();
        assert_eq!(e.code, "AF-LW004");
    }
}
