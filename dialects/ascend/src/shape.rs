//! Result types of `ascend` ops from their operand types and attributes.
//!
//! One set of rules serves two clients: the verifier (checks declared result types) and
//! `--infer-symbolic-shapes` (computes them). Decisions that depend on a symbol's value
//! (is `s1` equal to `s3`? is `s2` 1?) go through the `ShapeEnv`: decided statically when
//! possible, otherwise by the symbols' hints with an `expect` guard recorded, or, with no
//! hint, by assuming the dims are equal under an `assert` guard, as GE does.

use crate::ops::lookup;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::catalogue::Category;
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use std::collections::BTreeMap;

/// Why result types cannot be computed; the message is shown at the op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError(pub String);

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(message: impl Into<String>) -> Result<T, ShapeError> {
    Err(ShapeError(message.into()))
}

/// Inputs of one shape computation.
pub struct OpShapeQuery<'a> {
    pub op: &'a str,
    pub operands: &'a [TensorType],
    pub attrs: &'a BTreeMap<String, AttrValue>,
    /// The declared result types (their dtype and, for ops whose shape the result type
    /// defines, their dims).
    pub declared: &'a [TensorType],
}

impl OpShapeQuery<'_> {
    fn attr(&self, name: &str) -> Result<&AttrValue, ShapeError> {
        self.attrs
            .get(name)
            .ok_or_else(|| ShapeError(format!("missing attribute '{name}'")))
    }

    fn int_attr(&self, name: &str) -> Result<i64, ShapeError> {
        self.attr(name)?
            .as_int()
            .ok_or_else(|| ShapeError(format!("attribute '{name}' must be an integer")))
    }

    fn ints_attr(&self, name: &str) -> Result<Vec<i64>, ShapeError> {
        self.attr(name)?
            .as_ints()
            .ok_or_else(|| ShapeError(format!("attribute '{name}' must be an array of integers")))
    }

    /// An array attribute of integers and shape-expression strings.
    fn exprs_attr(&self, name: &str) -> Result<Vec<Expr>, ShapeError> {
        self.attr(name)?.as_exprs().ok_or_else(|| {
            ShapeError(format!(
                "attribute '{name}' must be an array of integers or shape expressions"
            ))
        })
    }

    fn operand(&self, index: usize) -> Result<&TensorType, ShapeError> {
        self.operands
            .get(index)
            .ok_or_else(|| ShapeError(format!("expected operand #{index}")))
    }

    fn declared_dtype(&self, index: usize) -> Result<DType, ShapeError> {
        self.declared
            .get(index)
            .map(|t| t.dtype)
            .ok_or_else(|| ShapeError(format!("expected result #{index}")))
    }
}

/// Normalizes an axis in `[-rank, rank)` to `[0, rank)`.
pub fn normalize_axis(axis: i64, rank: usize) -> Result<usize, ShapeError> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

fn one() -> Expr {
    Expr::constant(1)
}

/// Broadcasts two dims (numpy rules) under the env.
pub fn broadcast_dim(a: &Dim, b: &Dim, env: &mut ShapeEnv) -> Result<Dim, ShapeError> {
    let (Some(x), Some(y)) = (a.expr(), b.expr()) else {
        // An unassigned dynamic dim: only a static 1 on the other side is known to yield it.
        return Ok(match (a.as_const(), b.as_const()) {
            (Some(1), _) => b.clone(),
            (_, Some(1)) => a.clone(),
            _ => Dim::Unknown,
        });
    };
    if x == y {
        return Ok(a.clone());
    }
    if x.as_const() == Some(1) {
        return Ok(b.clone());
    }
    if y.as_const() == Some(1) {
        return Ok(a.clone());
    }
    match env.static_check(x, Relation::Eq, y) {
        Tri::True => return Ok(a.clone()),
        Tri::False => {
            // Unequal: legal only if one side is 1.
            if env.static_check(x, Relation::Eq, &one()) == Tri::False
                && env.static_check(y, Relation::Eq, &one()) == Tri::False
            {
                return err(format!("dims '{x}' and '{y}' cannot be broadcast together"));
            }
        }
        Tri::Unknown => {}
    }
    let hinted = env.hint_eval(x).zip(env.hint_eval(y));
    match hinted {
        Some((hx, hy)) if hx == hy => {
            env.expect(x, Relation::Eq, y)
                .map_err(|e| ShapeError(e.to_string()))?;
            Ok(a.clone())
        }
        Some((1, _)) => {
            env.expect(x, Relation::Eq, &one())
                .map_err(|e| ShapeError(e.to_string()))?;
            Ok(b.clone())
        }
        Some((_, 1)) => {
            env.expect(y, Relation::Eq, &one())
                .map_err(|e| ShapeError(e.to_string()))?;
            Ok(a.clone())
        }
        Some((hx, hy)) => err(format!(
            "dims '{x}' and '{y}' cannot be broadcast together (hints {hx} and {hy})"
        )),
        None => {
            // No hints: strict broadcasting, the dims must be equal at run time.
            env.assert_rel(x, Relation::Eq, y)
                .map_err(|e| ShapeError(e.to_string()))?;
            Ok(a.clone())
        }
    }
}

/// Broadcast shape of several operands.
pub fn broadcast_shapes(shapes: &[&[Dim]], env: &mut ShapeEnv) -> Result<Vec<Dim>, ShapeError> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![Dim::constant(1); rank];
    for shape in shapes {
        let offset = rank - shape.len();
        for (i, dim) in shape.iter().enumerate() {
            out[offset + i] = broadcast_dim(&out[offset + i], dim, env)?;
        }
    }
    Ok(out)
}

fn require_float(ty: &TensorType, op: &str) -> Result<(), ShapeError> {
    if ty.dtype.is_float() {
        Ok(())
    } else {
        err(format!(
            "'{op}' requires a floating-point operand, got {}",
            ty.dtype
        ))
    }
}

/// The reduced shape.
pub fn reduce_dims(dims: &[Dim], axes: &[usize], keep_dims: bool) -> Vec<Dim> {
    dims.iter()
        .enumerate()
        .filter_map(|(i, d)| {
            if axes.contains(&i) {
                keep_dims.then(|| Dim::constant(1))
            } else {
                Some(d.clone())
            }
        })
        .collect()
}

/// Normalized, sorted, deduplicated axes of a reduction (empty `axes` = all axes).
pub fn reduce_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, ShapeError> {
    if axes.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut out = axes
        .iter()
        .map(|&a| normalize_axis(a, rank))
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_unstable();
    let before = out.len();
    out.dedup();
    if out.len() != before {
        return err("reduction axes must be distinct");
    }
    Ok(out)
}

fn same_elements(a: &[Dim], b: &[Dim], env: &mut ShapeEnv) -> Result<(), ShapeError> {
    let count = |dims: &[Dim]| {
        dims.iter()
            .try_fold(one(), |acc, d| Some(acc * d.expr()?.clone()))
    };
    if let (Some(x), Some(y)) = (count(a), count(b)) {
        if env.static_check(&x, Relation::Eq, &y) == Tri::False {
            return err(format!(
                "reshape changes the element count from '{x}' to '{y}'"
            ));
        }
        if x != y {
            env.assert_rel(&x, Relation::Eq, &y)
                .map_err(|e| ShapeError(format!("reshape element counts: {e}")))?;
        }
    }
    Ok(())
}

/// Computes the result types of one op. `declared` supplies the result dtypes and, for
/// ops whose shape is given by the result type (reshape, broadcast_to, split, boundary
/// ops), the result dims.
pub fn infer(query: &OpShapeQuery, env: &mut ShapeEnv) -> Result<Vec<TensorType>, ShapeError> {
    let Some(spec) = lookup(query.op) else {
        return err(format!("unknown op '{}'", query.op));
    };
    let name = spec.name;
    let single = |ty: TensorType| Ok(vec![ty]);
    match spec.category {
        Category::Unary => {
            let x = query.operand(0)?;
            match name {
                "logical_not" if x.dtype != DType::Bool => err("'logical_not' requires i1"),
                "isnan" | "isfinite" => {
                    require_float(x, name)?;
                    single(TensorType::new(DType::Bool, x.dims.clone()))
                }
                "bitwise_not" if !x.dtype.is_int() && x.dtype != DType::Bool => {
                    err("'bitwise_not' requires an integer operand")
                }
                "exp" | "log" | "sqrt" | "rsqrt" | "reciprocal" | "sigmoid" | "tanh" | "erf"
                | "sin" | "cos" | "floor" | "ceil" | "round" | "leaky_relu" => {
                    require_float(x, name)?;
                    single(x.clone())
                }
                _ => single(x.clone()),
            }
        }
        Category::Binary | Category::Compare => {
            let (l, r) = (query.operand(0)?, query.operand(1)?);
            if l.dtype != r.dtype {
                return err(format!(
                    "operand element types differ ({} vs {}); insert an ascend.cast",
                    l.dtype, r.dtype
                ));
            }
            if name.starts_with("logical_") && l.dtype != DType::Bool {
                return err(format!("'{name}' requires i1 operands"));
            }
            if name == "bitwise_and" && !(l.dtype.is_int() || l.dtype == DType::Bool) {
                return err("'bitwise_and' requires integer operands");
            }
            if name == "pow" {
                require_float(l, name)?;
            }
            let dims = broadcast_shapes(&[&l.dims, &r.dims], env)?;
            let dtype = if spec.category == Category::Compare {
                DType::Bool
            } else {
                l.dtype
            };
            single(TensorType::new(dtype, dims))
        }
        Category::Select => {
            let (c, t, f) = (query.operand(0)?, query.operand(1)?, query.operand(2)?);
            if c.dtype != DType::Bool {
                return err("the condition of 'select' must be i1");
            }
            if t.dtype != f.dtype {
                return err(format!(
                    "'select' branches have different element types ({} vs {})",
                    t.dtype, f.dtype
                ));
            }
            let dims = broadcast_shapes(&[&c.dims, &t.dims, &f.dims], env)?;
            single(TensorType::new(t.dtype, dims))
        }
        Category::Cast => {
            let x = query.operand(0)?;
            single(TensorType::new(query.declared_dtype(0)?, x.dims.clone()))
        }
        Category::Reduce => reduce(query, env, name),
        Category::Composite => composite(query, env, name),
        Category::Layout => layout(query, env, name),
        Category::Structural => structural(query, env, name),
        Category::Boundary if crate::conv::OPS.contains(&name) => {
            crate::conv::infer(query, env, name)
        }
        Category::Boundary => boundary(query, name),
        Category::Constant => constant(query, name),
        _ => err(format!("'{}' is not an ascend graph op", query.op)),
    }
}

fn reduce(
    query: &OpShapeQuery,
    _env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, ShapeError> {
    let x = query.operand(0)?;
    let axes = reduce_axes(&query.ints_attr("axes")?, x.rank())?;
    let keep = query
        .attr("keep_dims")?
        .as_bool()
        .ok_or_else(|| ShapeError("attribute 'keep_dims' must be a bool".into()))?;
    if matches!(name, "reduce_any" | "reduce_all") && x.dtype != DType::Bool {
        return err(format!("'{name}' requires i1"));
    }
    if name == "reduce_mean" {
        require_float(x, name)?;
    }
    Ok(vec![TensorType::new(
        x.dtype,
        reduce_dims(&x.dims, &axes, keep),
    )])
}

fn composite(
    query: &OpShapeQuery,
    env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, ShapeError> {
    let x = query.operand(0)?;
    match name {
        "reduce_mean" => reduce(query, env, name),
        "softmax" | "log_softmax" => {
            require_float(x, name)?;
            normalize_axis(query.int_attr("axis")?, x.rank())?;
            Ok(vec![x.clone()])
        }
        "layer_norm" | "rms_norm" => {
            require_float(x, name)?;
            let axis = normalize_axis(query.int_attr("axis")?, x.rank())?;
            query
                .attr("epsilon")?
                .as_float()
                .ok_or_else(|| ShapeError("attribute 'epsilon' must be a float".into()))?;
            let normalized = &x.dims[axis..];
            for (i, param) in query.operands.iter().enumerate().skip(1) {
                if param.dtype != x.dtype {
                    return err(format!("operand #{i} must have element type {}", x.dtype));
                }
                // gamma/beta broadcast against the normalized dims.
                let joined = broadcast_shapes(&[normalized, &param.dims], env)?;
                if joined.len() != normalized.len() {
                    return err(format!(
                        "operand #{i} has rank {} but only {} axes are normalized",
                        param.rank(),
                        normalized.len()
                    ));
                }
            }
            Ok(vec![x.clone()])
        }
        "gelu" => {
            require_float(x, name)?;
            match query.attr("approximate")?.as_str() {
                Some("none") | Some("tanh") => Ok(vec![x.clone()]),
                _ => err("attribute 'approximate' must be \"none\" or \"tanh\""),
            }
        }
        "silu" | "swish" => {
            require_float(x, name)?;
            Ok(vec![x.clone()])
        }
        "swiglu" | "clip" => {
            require_float(x, name)?;
            let shapes: Vec<&[Dim]> = query.operands.iter().map(|t| t.dims.as_slice()).collect();
            if query.operands.iter().any(|t| t.dtype != x.dtype) {
                return err(format!(
                    "all operands of '{name}' must have element type {}",
                    x.dtype
                ));
            }
            let dims = broadcast_shapes(&shapes, env)?;
            Ok(vec![TensorType::new(x.dtype, dims)])
        }
        _ => err(format!("no shape rule for composite '{name}'")),
    }
}

/// The layout ops (broadcast_to, reshape, squeeze, unsqueeze, transpose): each keeps
/// its operand's element type.
fn layout(
    query: &OpShapeQuery,
    env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, ShapeError> {
    let x = query.operand(0)?;
    let declared = query
        .declared
        .first()
        .ok_or_else(|| ShapeError("expected one result".into()))?;
    if declared.dtype != x.dtype {
        return err(format!(
            "'{name}' must keep the element type ({} vs {})",
            x.dtype, declared.dtype
        ));
    }
    let dims = match name {
        "broadcast_to" => broadcast_to_dims(x, declared, env)?,
        "reshape" => reshape_dims(x, declared, env)?,
        "squeeze" => squeeze_dims(query, x, env)?,
        "unsqueeze" => unsqueeze_dims(query, x)?,
        "transpose" => transpose_dims(query, x)?,
        _ => return err(format!("no shape rule for '{name}'")),
    };
    Ok(vec![TensorType::new(x.dtype, dims)])
}

/// broadcast_to: the declared dims, joined with `x`'s right-aligned non-unit dims.
fn broadcast_to_dims(
    x: &TensorType,
    declared: &TensorType,
    env: &mut ShapeEnv,
) -> Result<Vec<Dim>, ShapeError> {
    if declared.rank() < x.rank() {
        return err("broadcast_to cannot lower the rank");
    }
    let offset = declared.rank() - x.rank();
    let mut dims = declared.dims.clone();
    for (i, d) in x.dims.iter().enumerate() {
        let target = &declared.dims[offset + i];
        if d.as_const() == Some(1) {
            continue;
        }
        let joined = broadcast_dim(d, target, env)?;
        if let (Some(j), Some(t)) = (joined.expr(), target.expr()) {
            if env.static_check(j, Relation::Eq, t) == Tri::False {
                return err(format!(
                    "dim {i} of size '{d}' cannot be broadcast to '{target}'"
                ));
            }
        }
        dims[offset + i] = joined;
    }
    Ok(dims)
}

/// reshape: the declared dims, one unknown dim determined by the element count (like
/// -1 in numpy); the element counts must be equal.
fn reshape_dims(
    x: &TensorType,
    declared: &TensorType,
    env: &mut ShapeEnv,
) -> Result<Vec<Dim>, ShapeError> {
    let mut dims = declared.dims.clone();
    let unknown: Vec<usize> = (0..dims.len())
        .filter(|&i| dims[i] == Dim::Unknown)
        .collect();
    if let [slot] = unknown.as_slice() {
        let total = x
            .dims
            .iter()
            .try_fold(one(), |acc, d| Some(acc * d.expr()?.clone()));
        let known = dims
            .iter()
            .filter_map(|d| d.expr().cloned())
            .fold(one(), |acc, e| acc * e);
        if let Some(total) = total {
            // The known dims must divide the element count.
            let remainder = total.modulo(&known);
            if env.static_check(&remainder, Relation::Eq, &Expr::constant(0)) == Tri::False {
                return err(format!(
                    "reshape: '{known}' does not divide the element count '{total}'"
                ));
            }
            if remainder.as_const() != Some(0) {
                env.assert_rel(&remainder, Relation::Eq, &Expr::constant(0))
                    .map_err(|e| ShapeError(format!("reshape: {e}")))?;
            }
            dims[*slot] = Dim::Known(total.floor_div(&known));
            // Equal element counts hold by construction under the guard above.
            return Ok(dims);
        }
    }
    same_elements(&x.dims, &dims, env)?;
    Ok(dims)
}

/// squeeze: `x`'s dims without the `axes`, which must be 1 (asserted when symbolic).
fn squeeze_dims(
    query: &OpShapeQuery,
    x: &TensorType,
    env: &mut ShapeEnv,
) -> Result<Vec<Dim>, ShapeError> {
    let axes = query
        .ints_attr("axes")?
        .iter()
        .map(|&a| normalize_axis(a, x.rank()))
        .collect::<Result<Vec<_>, _>>()?;
    for &a in &axes {
        match x.dims[a].as_const() {
            Some(1) => {}
            Some(n) => return err(format!("cannot squeeze axis {a} of size {n}")),
            None => {
                if let Some(e) = x.dims[a].expr() {
                    env.assert_rel(e, Relation::Eq, &one())
                        .map_err(|e| ShapeError(format!("squeeze: {e}")))?;
                }
            }
        }
    }
    Ok(x.dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, d)| d.clone())
        .collect())
}

/// unsqueeze: `x`'s dims with a 1 inserted at each of the (distinct) result `axes`.
fn unsqueeze_dims(query: &OpShapeQuery, x: &TensorType) -> Result<Vec<Dim>, ShapeError> {
    let out_rank = x.rank() + query.ints_attr("axes")?.len();
    let mut axes = query
        .ints_attr("axes")?
        .iter()
        .map(|&a| normalize_axis(a, out_rank))
        .collect::<Result<Vec<_>, _>>()?;
    axes.sort_unstable();
    axes.dedup();
    if axes.len() + x.rank() != out_rank {
        return err("unsqueeze axes must be distinct");
    }
    let mut source = x.dims.iter();
    Ok((0..out_rank)
        .map(|i| {
            if axes.contains(&i) {
                Dim::constant(1)
            } else {
                source.next().cloned().unwrap_or(Dim::constant(1))
            }
        })
        .collect())
}

/// transpose: `x`'s dims permuted by `perm`, which must be a permutation of its axes.
fn transpose_dims(query: &OpShapeQuery, x: &TensorType) -> Result<Vec<Dim>, ShapeError> {
    let perm = query.ints_attr("perm")?;
    let mut seen = vec![false; x.rank()];
    if perm.len() != x.rank() {
        return err(format!(
            "perm has {} entries for rank {}",
            perm.len(),
            x.rank()
        ));
    }
    for &p in &perm {
        let Some(slot) = usize::try_from(p).ok().and_then(|p| seen.get_mut(p)) else {
            return err(format!("perm entry {p} is out of range"));
        };
        if *slot {
            return err(format!(
                "perm entry {p} repeats; perm must be a permutation"
            ));
        }
        *slot = true;
    }
    Ok(perm.iter().map(|&p| x.dims[p as usize].clone()).collect())
}

fn structural(
    query: &OpShapeQuery,
    env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, ShapeError> {
    match name {
        "concat" => {
            let first = query.operand(0)?;
            let axis = normalize_axis(query.int_attr("axis")?, first.rank())?;
            let mut dims = first.dims.clone();
            for (i, t) in query.operands.iter().enumerate().skip(1) {
                if t.dtype != first.dtype || t.rank() != first.rank() {
                    return err(format!(
                        "concat operand #{i} differs in element type or rank"
                    ));
                }
                for (d, (a, b)) in dims.iter_mut().zip(&t.dims).enumerate() {
                    if d == axis {
                        *a = match (a.expr(), b.expr()) {
                            (Some(x), Some(y)) => Dim::Known(x.clone() + y.clone()),
                            _ => Dim::Unknown,
                        };
                    } else if let (Some(x), Some(y)) = (a.expr(), b.expr()) {
                        if env.static_check(x, Relation::Eq, y) == Tri::False {
                            return err(format!(
                                "concat operand #{i} has size '{y}' in dim {d}, expected '{x}'"
                            ));
                        }
                    }
                }
            }
            Ok(vec![TensorType::new(first.dtype, dims)])
        }
        "slice" => {
            let x = query.operand(0)?;
            let starts = query.exprs_attr("starts")?;
            let ends = query.exprs_attr("ends")?;
            let axes = query.ints_attr("axes")?;
            let steps = query.ints_attr("steps")?;
            if starts.len() != axes.len() || ends.len() != axes.len() || steps.len() != axes.len() {
                return err("starts, ends, axes and steps must have the same length");
            }
            let mut dims = x.dims.clone();
            for i in 0..axes.len() {
                let axis = normalize_axis(axes[i], x.rank())?;
                if steps[i] <= 0 {
                    return err("slice steps must be positive");
                }
                let Some(size) = x.dims[axis].expr() else {
                    return err(format!("slice of dim {axis} of unknown size"));
                };
                dims[axis] = Dim::Known(slice_extent(&starts[i], &ends[i], steps[i], size, env)?);
            }
            Ok(vec![TensorType::new(x.dtype, dims)])
        }
        "gather" => {
            let (data, indices) = (query.operand(0)?, query.operand(1)?);
            if !matches!(indices.dtype, DType::I32 | DType::I64) {
                return err("gather indices must be i32 or i64");
            }
            let axis = normalize_axis(query.int_attr("axis")?, data.rank())?;
            let mut dims = data.dims[..axis].to_vec();
            dims.extend(indices.dims.iter().cloned());
            dims.extend(data.dims[axis + 1..].iter().cloned());
            Ok(vec![TensorType::new(data.dtype, dims)])
        }
        "gather_elements" => {
            let (data, indices) = (query.operand(0)?, query.operand(1)?);
            if !matches!(indices.dtype, DType::I32 | DType::I64) {
                return err("gather_elements indices must be i32 or i64");
            }
            if indices.rank() != data.rank() {
                return err("gather_elements indices must have the rank of data");
            }
            normalize_axis(query.int_attr("axis")?, data.rank())?;
            Ok(vec![TensorType::new(data.dtype, indices.dims.clone())])
        }
        "gather_nd" => {
            let (data, indices) = (query.operand(0)?, query.operand(1)?);
            if !matches!(indices.dtype, DType::I32 | DType::I64) {
                return err("gather_nd indices must be i32 or i64");
            }
            let batch = usize::try_from(query.int_attr("batch_dims")?)
                .map_err(|_| ShapeError("batch_dims must be >= 0".into()))?;
            let Some(last) = indices.dims.last() else {
                return err("gather_nd indices must have rank >= 1");
            };
            let Some(k) = last.as_const().and_then(|k| usize::try_from(k).ok()) else {
                return err("the last dim of gather_nd indices must be static");
            };
            if batch >= indices.rank() || batch + k > data.rank() {
                return err(format!(
                    "gather_nd: index tuples of {k} with {batch} batch dims for data of rank {}",
                    data.rank()
                ));
            }
            let mut dims = indices.dims[..indices.rank() - 1].to_vec();
            dims.extend(data.dims[batch + k..].iter().cloned());
            Ok(vec![TensorType::new(data.dtype, dims)])
        }
        "pad" => {
            let x = query.operand(0)?;
            let pads = query.exprs_attr("pads")?;
            let mode = query.attr("mode")?.as_str().unwrap_or_default();
            if !matches!(mode, "constant" | "edge" | "reflect" | "wrap") {
                return err(format!("unknown pad mode '{mode}'"));
            }
            if pads.len() != 2 * x.rank() {
                return err(format!(
                    "pad has {} pads for rank {} (one before and one after each axis)",
                    pads.len(),
                    x.rank()
                ));
            }
            let mut dims = Vec::with_capacity(x.rank());
            for (i, d) in x.dims.iter().enumerate() {
                let Some(size) = d.expr() else {
                    return err(format!("pad of dim {i} of unknown size"));
                };
                let padded = size.clone() + pads[i].clone() + pads[x.rank() + i].clone();
                if env.static_check(&padded, Relation::Lt, &Expr::constant(0)) == Tri::True {
                    return err(format!("pads crop dim {i} of size '{size}' below zero"));
                }
                dims.push(Dim::Known(padded));
            }
            Ok(vec![TensorType::new(x.dtype, dims)])
        }
        "cumsum" => {
            let x = query.operand(0)?;
            normalize_axis(query.int_attr("axis")?, x.rank())?;
            Ok(vec![x.clone()])
        }
        _ => err(format!("no shape rule for '{name}'")),
    }
}

/// Bounds at or above this are "to the end of the dim" (exporters write `INT64_MAX` or
/// `INT32_MAX`); no tensor dim reaches it.
pub const SLICE_TO_END: i64 = i32::MAX as i64;

/// One numpy-style bound clamped to `[0, size]`, symbolically: exact where the shape env
/// decides the comparison, a `min`/`max` expression where it cannot.
pub fn slice_bound(bound: &Expr, size: &Expr, env: &ShapeEnv) -> Result<Expr, ShapeError> {
    let zero = Expr::constant(0);
    if let Some(v) = bound.as_const() {
        if v >= SLICE_TO_END {
            return Ok(size.clone());
        }
        if v < 0 {
            if v <= -SLICE_TO_END {
                return Ok(zero);
            }
            let from_end = size.clone() + Expr::constant(v);
            return Ok(match env.static_check(&from_end, Relation::Ge, &zero) {
                Tri::True => from_end,
                Tri::False => zero,
                Tri::Unknown => Expr::max(&from_end, &zero),
            });
        }
    } else if env.static_check(bound, Relation::Ge, &zero) != Tri::True {
        return err(format!(
            "slice bound '{bound}' may be negative; only bounds known to be >= 0 can be symbolic"
        ));
    }
    Ok(match env.static_check(bound, Relation::Le, size) {
        Tri::True => bound.clone(),
        Tri::False => size.clone(),
        Tri::Unknown => Expr::min(bound, size),
    })
}

/// The number of elements a slice `start:end:step` (`step > 0`) takes from a dim of
/// `size`, with numpy's clamping.
pub fn slice_extent(
    start: &Expr,
    end: &Expr,
    step: i64,
    size: &Expr,
    env: &ShapeEnv,
) -> Result<Expr, ShapeError> {
    let begin = slice_bound(start, size, env)?;
    let end = slice_bound(end, size, env)?;
    let span = end.clone() - begin.clone();
    let zero = Expr::constant(0);
    let span = match env.static_check(&span, Relation::Ge, &zero) {
        Tri::True => span,
        Tri::False => zero,
        Tri::Unknown => Expr::max(&span, &zero),
    };
    Ok(if step == 1 {
        span
    } else {
        span.ceil_div(&Expr::constant(step))
    })
}

/// Constants take their type from the declaration; a `symbolic_constant` must declare
/// one static element per value, and a `range` one dim.
fn constant(query: &OpShapeQuery, name: &str) -> Result<Vec<TensorType>, ShapeError> {
    let declared = query
        .declared
        .first()
        .ok_or_else(|| ShapeError("expected one result".into()))?;
    match name {
        "symbolic_constant" => {
            let values = query.exprs_attr("values")?;
            let count: Option<i64> = declared.dims.iter().map(Dim::as_const).product();
            if count != Some(values.len() as i64) {
                return err(format!(
                    "{} values for a result of type {declared}",
                    values.len()
                ));
            }
            if declared.dtype.is_float() && declared.dtype != DType::F32 {
                return err("symbolic_constant results are integers, i1 or f32");
            }
        }
        "range" => {
            if declared.rank() != 1 {
                return err(format!("range results are 1-D, not {declared}"));
            }
            let delta = query.attr("delta")?;
            if delta.as_float() == Some(0.0) {
                return err("range delta cannot be 0");
            }
            if delta.as_float().is_none() {
                return err("range delta must be an integer or a float");
            }
            let start = query.attr("start")?;
            if start.as_float().is_none() && start.as_expr().is_none() {
                return err("range start must be a number or a shape expression");
            }
        }
        "parameter" => {
            if declared.dims.iter().any(|d| d.as_const().is_none()) {
                return err(format!(
                    "a parameter has a static shape, not {declared} (weights are stored data)"
                ));
            }
            if query.attr("offset")?.as_int().is_none_or(|o| o < 0) {
                return err("parameter offset must be a non-negative integer");
            }
            if query.attr("file")?.as_str().is_none_or(str::is_empty) {
                return err("parameter file must be a non-empty string");
            }
        }
        _ => {}
    }
    Ok(query.declared.to_vec())
}

/// Clamps numpy-style slice bounds to `[0, size]`.
pub fn slice_bounds(start: i64, end: i64, size: i64) -> (i64, i64) {
    let clamp = |v: i64| {
        let v = if v < 0 { v + size } else { v };
        v.clamp(0, size)
    };
    (clamp(start), clamp(end))
}

fn boundary(query: &OpShapeQuery, name: &str) -> Result<Vec<TensorType>, ShapeError> {
    if name != "matmul" {
        return Ok(query.declared.to_vec());
    }
    let (a, b) = (query.operand(0)?, query.operand(1)?);
    if a.rank() < 2 || b.rank() < 2 {
        return err("matmul operands must have rank >= 2");
    }
    let flag = |n: &str| {
        query
            .attrs
            .get(n)
            .and_then(AttrValue::as_bool)
            .unwrap_or(false)
    };
    let (ta, tb) = (flag("transpose_a"), flag("transpose_b"));
    let (m, ka) = if ta {
        (a.rank() - 1, a.rank() - 2)
    } else {
        (a.rank() - 2, a.rank() - 1)
    };
    let (kb, n) = if tb {
        (b.rank() - 1, b.rank() - 2)
    } else {
        (b.rank() - 2, b.rank() - 1)
    };
    if let (Some(x), Some(y)) = (a.dims[ka].as_const(), b.dims[kb].as_const()) {
        if x != y {
            return err(format!("matmul contraction sizes differ ({x} vs {y})"));
        }
    }
    // Batch dims broadcast like numpy's matmul.
    let mut env = ShapeEnv::new();
    let mut dims = broadcast_shapes(
        &[&a.dims[..a.rank() - 2], &b.dims[..b.rank() - 2]],
        &mut env,
    )?;
    dims.push(a.dims[m].clone());
    dims.push(b.dims[n].clone());
    Ok(vec![TensorType::new(
        query.declared_dtype(0).unwrap_or(a.dtype),
        dims,
    )])
}
