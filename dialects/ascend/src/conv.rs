//! Convolution and pooling of the `ascend` dialect: `conv`, `conv_transpose`, `max_pool`
//! and `avg_pool`, boundary ops like `matmul` (never fused; the runner executes them
//! between kernels). Their shape rules (with symbolic dims) and their reference
//! semantics are here; `shape::infer` and `interp::kernel` dispatch to them.
//!
//! Layout is ONNX's: `x` is `[N, C, d1..dn]`; `conv` weights are `[M, C/groups,
//! k1..kn]`, `conv_transpose` weights `[C, M/groups, k1..kn]`. `pads` holds the padding
//! before every spatial axis, then the padding after every spatial axis, as integers or
//! shape expressions (what `auto_pad` yields on symbolic dims). Bias is not an operand:
//! the importer adds it with a broadcast `add`, which fuses into the following kernel.
//!
//! Spatial output sizes (per axis, `eff = dilation*(k-1) + 1`):
//! - conv and the pools: `floor((d + pad_begin + pad_end - eff) / stride) + 1`
//!   (`ceil` with `ceil_mode`, after which a window that would start in the end padding
//!   is dropped, as ONNX and PyTorch do);
//! - conv_transpose: `stride*(d-1) + output_padding + eff - pad_begin - pad_end`.
//!
//! The interpreter computes a convolution as im2col followed by one `dgemm` per batch and
//! group (f64, rounded once to the result dtype); the transposed convolution as one
//! `dgemm` per batch and group followed by col2im; the pools directly. Max pooling
//! ignores padding and propagates NaN; average pooling divides by the taps inside the
//! input, or with `count_include_pad` by the taps inside the padded input.

use crate::shape::{OpShapeQuery, ShapeError};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_ir::tensor::{round_to_dtype, strides_of, Tensor};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use std::collections::{BTreeMap, HashMap};

/// The ops of this module (names without `ascend.`).
pub const OPS: &[&str] = &["conv", "conv_transpose", "max_pool", "avg_pool"];

type Attrs = BTreeMap<String, AttrValue>;

fn get<'a>(attrs: &'a Attrs, name: &str) -> Result<&'a AttrValue, String> {
    attrs
        .get(name)
        .ok_or_else(|| format!("missing attribute '{name}'"))
}

/// An array attribute of `n` integers, each at least `min`.
fn ints(attrs: &Attrs, name: &str, n: usize, min: i64) -> Result<Vec<i64>, String> {
    let v = get(attrs, name)?
        .as_ints()
        .ok_or_else(|| format!("attribute '{name}' must be an array of integers"))?;
    if v.len() != n {
        return Err(format!(
            "attribute '{name}' has {} values for {n} spatial axes",
            v.len()
        ));
    }
    if let Some(bad) = v.iter().find(|&&x| x < min) {
        return Err(format!("attribute '{name}' holds {bad}, must be >= {min}"));
    }
    Ok(v)
}

fn flag(attrs: &Attrs, name: &str) -> Result<bool, String> {
    get(attrs, name)?
        .as_bool()
        .ok_or_else(|| format!("attribute '{name}' must be a bool"))
}

fn groups(attrs: &Attrs) -> Result<i64, String> {
    match get(attrs, "groups")?.as_int() {
        Some(g) if g >= 1 => Ok(g),
        _ => Err("attribute 'groups' must be an integer >= 1".into()),
    }
}

/// The `2n` pads as expressions; constant ones must be >= 0.
fn pad_exprs(attrs: &Attrs, n: usize) -> Result<Vec<Expr>, String> {
    let pads = get(attrs, "pads")?.as_exprs().ok_or_else(|| {
        "attribute 'pads' must be an array of integers or shape expressions".to_string()
    })?;
    if pads.len() != 2 * n {
        return Err(format!(
            "attribute 'pads' has {} values for {n} spatial axes (one before and one after each)",
            pads.len()
        ));
    }
    if let Some(bad) = pads.iter().find(|p| p.as_const().is_some_and(|v| v < 0)) {
        return Err(format!("attribute 'pads' holds {bad}, must be >= 0"));
    }
    Ok(pads)
}

// ---------------------------------------------------------------------------------
// Shape rules
// ---------------------------------------------------------------------------------

/// Result types of the ops of this module.
pub fn infer(
    query: &OpShapeQuery,
    env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, ShapeError> {
    infer_inner(query, env, name).map_err(ShapeError)
}

fn operand<'a>(query: &'a OpShapeQuery, i: usize) -> Result<&'a TensorType, String> {
    query
        .operands
        .get(i)
        .ok_or_else(|| format!("expected operand #{i}"))
}

/// The result type of `name`: the batch dim, then the channels and spatial sizes of the
/// op's rule.
fn infer_inner(
    query: &OpShapeQuery,
    env: &mut ShapeEnv,
    name: &str,
) -> Result<Vec<TensorType>, String> {
    let x = operand(query, 0)?;
    if x.rank() < 3 {
        return Err(format!(
            "{name} input must have rank >= 3 ([N, C, spatial...]), not {}",
            x.rank()
        ));
    }
    let n = x.rank() - 2;
    let attrs = query.attrs;
    let geometry = Geometry {
        x,
        n,
        strides: ints(attrs, "strides", n, 1)?,
        dilations: ints(attrs, "dilations", n, 1)?,
        pads: pad_exprs(attrs, n)?,
    };
    let dtype = query.declared.first().map_or(x.dtype, |t| t.dtype);
    if dtype != x.dtype {
        return Err(format!(
            "{name} result element type {dtype} differs from the input's {}",
            x.dtype
        ));
    }
    let mut dims = vec![x.dims[0].clone()];
    match name {
        "conv" | "conv_transpose" => {
            let weights = Weights::of(query, x, name)?;
            if name == "conv" {
                dims.extend(geometry.conv_dims(&weights, env)?);
            } else {
                dims.extend(geometry.conv_transpose_dims(&weights, attrs, env)?);
            }
        }
        "max_pool" | "avg_pool" => dims.extend(geometry.pool_dims(attrs, name, env)?),
        _ => return Err(format!("no shape rule for '{name}'")),
    }
    Ok(vec![TensorType::new(dtype, dims)])
}

/// The weights of a conv or conv_transpose (operand 1), checked against the input `x`,
/// with the `groups` attribute and the static kernel extents.
struct Weights<'a> {
    w: &'a TensorType,
    groups: i64,
    kernel: Vec<i64>,
}

impl<'a> Weights<'a> {
    fn of(query: &'a OpShapeQuery, x: &TensorType, name: &str) -> Result<Self, String> {
        let n = x.rank() - 2;
        let w = operand(query, 1)?;
        if !x.dtype.is_float() {
            return Err(format!("{name} takes floats, not {}", x.dtype));
        }
        if w.dtype != x.dtype {
            return Err(format!(
                "{name} weights are {}, the input {}",
                w.dtype, x.dtype
            ));
        }
        if w.rank() != x.rank() {
            return Err(format!(
                "{name} kernel rank {} does not match input rank {} (weights are [{}, \
                 spatial...] with {n} spatial axes)",
                w.rank(),
                x.rank(),
                if name == "conv" {
                    "M, C/groups"
                } else {
                    "C, M/groups"
                }
            ));
        }
        let groups = groups(query.attrs)?;
        let kernel = w.dims[2..]
            .iter()
            .map(|d| d.as_const().filter(|&k| k >= 1))
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(|| {
                format!("{name} kernel spatial dims must be static and >= 1, not {w}")
            })?;
        Ok(Weights { w, groups, kernel })
    }
}

/// The input `x` of a windowed op and the attributes every one has: the strides,
/// dilations and pads of its `n` spatial axes. The methods give the result dims after
/// the batch dim: channels, then spatial.
struct Geometry<'a> {
    x: &'a TensorType,
    n: usize,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Vec<Expr>,
}

impl Geometry<'_> {
    /// The spatial sizes of sliding windows of extents `kernel` (before dilation).
    fn window_dims(&self, kernel: &[i64], ceil: bool, env: &ShapeEnv) -> Result<Vec<Dim>, String> {
        let (n, pads) = (self.n, &self.pads);
        let mut dims = Vec::with_capacity(n);
        for i in 0..n {
            let eff = self.dilations[i] * (kernel[i] - 1) + 1;
            dims.push(window_out(
                &self.x.dims[2 + i],
                (&pads[i], &pads[n + i]),
                eff,
                self.strides[i],
                ceil,
                env,
                i,
            )?);
        }
        Ok(dims)
    }

    /// conv: C == (C/groups) * groups, M divisible by groups; M output channels.
    fn conv_dims(&self, weights: &Weights, env: &ShapeEnv) -> Result<Vec<Dim>, String> {
        let (w, g) = (weights.w, weights.groups);
        let per_group = &w.dims[1];
        check_channels(&self.x.dims[1], per_group, g, env, "the kernel")?;
        if let Some(m) = w.dims[0].as_const() {
            if m % g != 0 {
                return Err(format!(
                    "conv has {m} output channels, not a multiple of groups {g}"
                ));
            }
        }
        let mut dims = vec![w.dims[0].clone()];
        dims.extend(self.window_dims(&weights.kernel, false, env)?);
        Ok(dims)
    }

    /// conv_transpose: the weights' dim 0 is C, divisible by groups; (M/groups) * groups
    /// output channels and spatial sizes
    /// `stride*(d-1) + output_padding + eff - pad_begin - pad_end`, which must not be
    /// known to be below 1.
    fn conv_transpose_dims(
        &self,
        weights: &Weights,
        attrs: &Attrs,
        env: &ShapeEnv,
    ) -> Result<Vec<Dim>, String> {
        let (n, pads) = (self.n, &self.pads);
        let (w, g, kernel) = (weights.w, weights.groups, &weights.kernel);
        if let (Some(c), Some(wc)) = (self.x.dims[1].as_const(), w.dims[0].as_const()) {
            if c != wc {
                return Err(format!(
                    "conv_transpose input has {c} channels, the kernel {wc} (dim 0 of the \
                     weights)"
                ));
            }
            if c % g != 0 {
                return Err(format!(
                    "conv_transpose input has {c} channels, not a multiple of groups {g}"
                ));
            }
        }
        // Any output_padding >= 0: the importer folds an ONNX output_shape past the
        // natural size into it.
        let output_padding = ints(attrs, "output_padding", n, 0)?;
        let mut dims = vec![match w.dims[1].expr() {
            Some(e) => Dim::Known(e.clone() * g),
            None => Dim::Unknown,
        }];
        for i in 0..n {
            let Some(d) = self.x.dims[2 + i].expr() else {
                dims.push(Dim::Unknown);
                continue;
            };
            let eff = self.dilations[i] * (kernel[i] - 1) + 1;
            let out = (d.clone() - 1) * self.strides[i] + (output_padding[i] + eff)
                - pads[i].clone()
                - pads[n + i].clone();
            if env.static_check(&out, Relation::Lt, &Expr::constant(1)) == Tri::True {
                return Err(format!(
                    "conv_transpose spatial axis {i} would have size '{out}' (< 1)"
                ));
            }
            dims.push(Dim::Known(out));
        }
        Ok(dims)
    }

    /// max_pool and avg_pool: the input's channels and windows of `kernel_shape`.
    fn pool_dims(&self, attrs: &Attrs, name: &str, env: &ShapeEnv) -> Result<Vec<Dim>, String> {
        let x = self.x;
        if name == "avg_pool" && !x.dtype.is_float() {
            return Err(format!("avg_pool takes floats, not {}", x.dtype));
        }
        if x.dtype == DType::Bool {
            return Err("max_pool does not take i1".into());
        }
        let kernel = ints(attrs, "kernel_shape", self.n, 1)?;
        let ceil = flag(attrs, "ceil_mode")?;
        if name == "avg_pool" {
            flag(attrs, "count_include_pad")?;
        }
        let mut dims = vec![x.dims[1].clone()];
        dims.extend(self.window_dims(&kernel, ceil, env)?);
        Ok(dims)
    }
}

/// Checks `channels == per_group * groups` where the sizes are known.
fn check_channels(
    channels: &Dim,
    per_group: &Dim,
    groups: i64,
    env: &ShapeEnv,
    what: &str,
) -> Result<(), String> {
    let (Some(c), Some(p)) = (channels.expr(), per_group.expr()) else {
        return Ok(());
    };
    let expected = p.clone() * groups;
    if env.static_check(c, Relation::Eq, &expected) == Tri::False {
        return Err(format!(
            "conv input has {c} channels, {what} expects {expected} ({p} per group x {groups} \
             groups)"
        ));
    }
    Ok(())
}

/// The size of one spatial axis of a windowed op's result.
fn window_out(
    dim: &Dim,
    (begin, end): (&Expr, &Expr),
    eff: i64,
    stride: i64,
    ceil: bool,
    env: &ShapeEnv,
    axis: usize,
) -> Result<Dim, String> {
    let Some(d) = dim.expr() else {
        return Ok(Dim::Unknown);
    };
    let span = d.clone() + begin.clone() + end.clone() - eff;
    if env.static_check(&span, Relation::Lt, &Expr::constant(0)) == Tri::True {
        return Err(format!(
            "the window of spatial axis {axis} (extent {eff} with dilation) is larger than the \
             padded size '{}'",
            d.clone() + begin.clone() + end.clone()
        ));
    }
    let s = Expr::constant(stride);
    if !ceil {
        return Ok(Dim::Known(span.floor_div(&s) + 1));
    }
    let q = span.ceil_div(&s);
    // The last window starts at q*stride - begin; one starting in the end padding is
    // dropped.
    let start = q.clone() * stride;
    let limit = d.clone() + begin.clone();
    Ok(Dim::Known(
        match env.static_check(&start, Relation::Ge, &limit) {
            Tri::True => q,
            Tri::False => q + 1,
            Tri::Unknown => {
                return Err(format!(
                    "ceil_mode on spatial axis {axis} of symbolic size '{d}': whether the last \
                     window starts in the padding depends on the size"
                ))
            }
        },
    ))
}

// ---------------------------------------------------------------------------------
// Reference semantics
// ---------------------------------------------------------------------------------

/// Computes one op of this module; `out` is the concrete result type.
pub fn kernel(
    name: &str,
    inputs: &[&Tensor],
    attrs: &Attrs,
    out: &TensorType,
    symbols: &HashMap<String, i64>,
) -> Result<Tensor, String> {
    let x = *inputs.first().ok_or("missing operand")?;
    if x.rank() < 3 {
        return Err(format!("{name} input must have rank >= 3"));
    }
    let n = x.rank() - 2;
    let window = Window {
        strides: ints(attrs, "strides", n, 1)?,
        dilations: ints(attrs, "dilations", n, 1)?,
        pads: pad_exprs(attrs, n)?
            .iter()
            .map(|e| {
                e.eval_map(symbols)
                    .map_err(|err| format!("pad '{e}': {err}"))
                    .and_then(|v| {
                        if v < 0 {
                            Err(format!("pad '{e}' is {v}, must be >= 0"))
                        } else {
                            Ok(v)
                        }
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let dtype = out.dtype;
    match name {
        "conv" => conv(
            x,
            inputs.get(1).ok_or("missing weights")?,
            &window,
            groups(attrs)?,
            dtype,
        ),
        "conv_transpose" => conv_transpose(
            x,
            inputs.get(1).ok_or("missing weights")?,
            &window,
            &ints(attrs, "output_padding", n, 0)?,
            groups(attrs)?,
            dtype,
        ),
        "max_pool" | "avg_pool" => {
            let kernel: Vec<usize> = ints(attrs, "kernel_shape", n, 1)?
                .iter()
                .map(|&k| k as usize)
                .collect();
            let include_pad = name == "avg_pool" && flag(attrs, "count_include_pad")?;
            pool(
                x,
                &kernel,
                &window,
                flag(attrs, "ceil_mode")?,
                (name == "max_pool", include_pad),
                dtype,
            )
        }
        other => Err(format!("no kernel for '{other}'")),
    }
}

/// The concrete window of one op.
struct Window {
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Before every spatial axis, then after every spatial axis.
    pads: Vec<i64>,
}

impl Window {
    fn rank(&self) -> usize {
        self.strides.len()
    }

    fn begin(&self, axis: usize) -> i64 {
        self.pads[axis]
    }

    fn end(&self, axis: usize) -> i64 {
        self.pads[self.rank() + axis]
    }

    fn extent(&self, axis: usize, k: usize) -> i64 {
        self.dilations[axis] * (k as i64 - 1) + 1
    }

    /// Result sizes of a windowed op (conv, pools) over `input` with `kernel`.
    fn output(&self, input: &[usize], kernel: &[usize], ceil: bool) -> Result<Vec<usize>, String> {
        (0..self.rank())
            .map(|i| {
                let d = input[i] as i64;
                let span = d + self.begin(i) + self.end(i) - self.extent(i, kernel[i]);
                if span < 0 {
                    return Err(format!(
                        "the window of spatial axis {i} is larger than the padded size {}",
                        d + self.begin(i) + self.end(i)
                    ));
                }
                let s = self.strides[i];
                let q = if ceil { (span + s - 1) / s } else { span / s };
                let out = if ceil && q * s >= d + self.begin(i) {
                    q
                } else {
                    q + 1
                };
                Ok(out as usize)
            })
            .collect()
    }
}

/// Where a window tap lands.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Tap {
    /// On the input element at this row-major spatial offset.
    Inside(usize),
    /// In the padding.
    Pad,
    /// Past the end padding (only windows of `ceil_mode` reach there).
    Beyond,
}

/// For every window tap `t` (row-major over `kernel`) and every window position `o`
/// (row-major over `positions`): where tap `t` of window `o` lands in `target`, at
/// `o*stride - pad_begin + t*dilation` per axis. Indexed `t * positions + o`.
fn taps(window: &Window, kernel: &[usize], positions: &[usize], target: &[usize]) -> Vec<Tap> {
    let n = window.rank();
    let kp: usize = kernel.iter().product();
    let pp: usize = positions.iter().product();
    let target_strides = strides_of(target);
    let mut table = Vec::with_capacity(kp * pp);
    let mut t_idx = vec![0usize; n];
    let mut o_idx = vec![0usize; n];
    for t in 0..kp {
        unravel(t, kernel, &mut t_idx);
        for o in 0..pp {
            unravel(o, positions, &mut o_idx);
            let mut tap = Tap::Inside(0);
            for j in 0..n {
                let p = o_idx[j] as i64 * window.strides[j] - window.begin(j)
                    + t_idx[j] as i64 * window.dilations[j];
                let size = target[j] as i64;
                tap = match tap {
                    Tap::Inside(off) if (0..size).contains(&p) => {
                        Tap::Inside(off + p as usize * target_strides[j])
                    }
                    Tap::Beyond => Tap::Beyond,
                    _ if p >= size + window.end(j) => Tap::Beyond,
                    _ => Tap::Pad,
                };
            }
            table.push(tap);
        }
    }
    table
}

/// The multi-index of row-major offset `flat` in `shape`.
fn unravel(mut flat: usize, shape: &[usize], out: &mut [usize]) {
    for j in (0..shape.len()).rev() {
        let d = shape[j].max(1);
        out[j] = flat % d;
        flat /= d;
    }
}

/// `c = a * b` for an `m x k` matrix `a` and a `k x n` matrix `b` given by (row, column)
/// strides, `c` row-major `m x n`.
fn gemm(
    (m, k, n): (usize, usize, usize),
    a: (&[f64], usize, usize),
    b: (&[f64], usize, usize),
    c: &mut [f64],
) -> Result<(), String> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        c[..m * n].fill(0.0);
        return Ok(());
    }
    // Bounds of what the strides reach, checked so the unsafe call cannot read past.
    let last = |(s, rs, cs): (&[f64], usize, usize), rows: usize, cols: usize| {
        (rows - 1) * rs + (cols - 1) * cs < s.len()
    };
    if !last(a, m, k) || !last(b, k, n) || c.len() < m * n {
        return Err("internal error: gemm operand out of bounds".into());
    }
    let st = |s: usize| isize::try_from(s).map_err(|_| "gemm stride overflow".to_string());
    // SAFETY: the checks above keep every element the strides reach inside the slices.
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            1.0,
            a.0.as_ptr(),
            st(a.1)?,
            st(a.2)?,
            b.0.as_ptr(),
            st(b.1)?,
            st(b.2)?,
            0.0,
            c.as_mut_ptr(),
            st(n)?,
            1,
        );
    }
    Ok(())
}

fn conv(x: &Tensor, w: &Tensor, window: &Window, groups: i64, dtype: DType) -> KResult {
    let n = window.rank();
    if w.rank() != n + 2 {
        return Err(format!(
            "kernel rank {} does not match input rank {}",
            w.rank(),
            x.rank()
        ));
    }
    let groups = groups as usize;
    let (batch, c) = (x.shape[0], x.shape[1]);
    let (m, cg) = (w.shape[0], w.shape[1]);
    if cg * groups != c {
        return Err(format!(
            "input has {c} channels, the kernel expects {} ({cg} per group x {groups} groups)",
            cg * groups
        ));
    }
    if m % groups != 0 {
        return Err(format!(
            "{m} output channels are not a multiple of groups {groups}"
        ));
    }
    let (input, kernel) = (&x.shape[2..], &w.shape[2..]);
    let output = window.output(input, kernel, false)?;
    let (pin, kp, pout): (usize, usize, usize) = (
        input.iter().product(),
        kernel.iter().product(),
        output.iter().product(),
    );
    let table = taps(window, kernel, &output, input);
    let (mg, kk) = (m / groups, cg * kp);
    let mut shape = vec![batch, m];
    shape.extend(&output);
    let mut out = vec![0.0; batch * m * pout];
    let mut col = vec![0.0; kk * pout];
    for b in 0..batch {
        for g in 0..groups {
            // im2col: row (ci, t), column o.
            for ci in 0..cg {
                let base = (b * c + g * cg + ci) * pin;
                for t in 0..kp {
                    let row = &mut col[(ci * kp + t) * pout..][..pout];
                    for (o, v) in row.iter_mut().enumerate() {
                        *v = match table[t * pout + o] {
                            Tap::Inside(off) => x.data[base + off],
                            _ => 0.0,
                        };
                    }
                }
            }
            let weights = &w.data[g * mg * kk..];
            let block = &mut out[(b * m + g * mg) * pout..][..mg * pout];
            gemm((mg, kk, pout), (weights, kk, 1), (&col, pout, 1), block)?;
        }
    }
    Ok(rounded(dtype, shape, out))
}

fn conv_transpose(
    x: &Tensor,
    w: &Tensor,
    window: &Window,
    output_padding: &[i64],
    groups: i64,
    dtype: DType,
) -> KResult {
    let n = window.rank();
    if w.rank() != n + 2 {
        return Err(format!(
            "kernel rank {} does not match input rank {}",
            w.rank(),
            x.rank()
        ));
    }
    let groups = groups as usize;
    let (batch, c) = (x.shape[0], x.shape[1]);
    let (wc, mg) = (w.shape[0], w.shape[1]);
    if wc != c || c % groups != 0 {
        return Err(format!(
            "input has {c} channels, the kernel {wc} (must be equal and a multiple of groups \
             {groups})"
        ));
    }
    let (input, kernel) = (&x.shape[2..], &w.shape[2..]);
    let output = (0..n)
        .map(|i| {
            let size = (input[i] as i64 - 1) * window.strides[i]
                + output_padding[i]
                + window.extent(i, kernel[i])
                - window.begin(i)
                - window.end(i);
            usize::try_from(size).map_err(|_| format!("spatial axis {i} would have size {size}"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let (pin, kp, pout): (usize, usize, usize) = (
        input.iter().product(),
        kernel.iter().product(),
        output.iter().product(),
    );
    // Each input position is a window position over the output: tap t of input
    // position i lands at i*stride - pad_begin + t*dilation.
    let table = taps(window, kernel, input, &output);
    let (cg, m) = (c / groups, mg * groups);
    let rows = mg * kp;
    let mut shape = vec![batch, m];
    shape.extend(&output);
    let mut out = vec![0.0; batch * m * pout];
    let mut col = vec![0.0; rows * pin];
    for b in 0..batch {
        for g in 0..groups {
            // col[(co, t), i] = sum_ci w[g*cg + ci, co, t] * x[b, g*cg + ci, i]
            let weights = &w.data[g * cg * rows..];
            let xs = &x.data[(b * c + g * cg) * pin..];
            gemm((rows, cg, pin), (weights, 1, rows), (xs, pin, 1), &mut col)?;
            // col2im
            for co in 0..mg {
                let dst = &mut out[(b * m + g * mg + co) * pout..][..pout];
                for t in 0..kp {
                    let src = &col[(co * kp + t) * pin..][..pin];
                    for (i, &v) in src.iter().enumerate() {
                        if let Tap::Inside(off) = table[t * pin + i] {
                            dst[off] += v;
                        }
                    }
                }
            }
        }
    }
    Ok(rounded(dtype, shape, out))
}

fn pool(
    x: &Tensor,
    kernel: &[usize],
    window: &Window,
    ceil: bool,
    (max, include_pad): (bool, bool),
    dtype: DType,
) -> KResult {
    let input = &x.shape[2..];
    let output = window.output(input, kernel, ceil)?;
    let (pin, kp, pout): (usize, usize, usize) = (
        input.iter().product(),
        kernel.iter().product(),
        output.iter().product(),
    );
    let table = taps(window, kernel, &output, input);
    let planes = x.shape[0] * x.shape[1];
    let mut shape = x.shape[..2].to_vec();
    shape.extend(&output);
    let mut out = Vec::with_capacity(planes * pout);
    for p in 0..planes {
        let plane = &x.data[p * pin..][..pin];
        for o in 0..pout {
            let lands = (0..kp).map(|t| table[t * pout + o]);
            let v = if max {
                lands.fold(f64::NEG_INFINITY, |acc, tap| match tap {
                    Tap::Inside(off) => {
                        let v = plane[off];
                        if acc.is_nan() || v.is_nan() {
                            f64::NAN
                        } else {
                            acc.max(v)
                        }
                    }
                    _ => acc,
                })
            } else {
                let (mut sum, mut count) = (0.0, 0usize);
                for tap in lands {
                    match tap {
                        Tap::Inside(off) => {
                            sum += plane[off];
                            count += 1;
                        }
                        Tap::Pad if include_pad => count += 1,
                        _ => {}
                    }
                }
                if count == 0 {
                    f64::NAN
                } else {
                    sum / count as f64
                }
            };
            out.push(v);
        }
    }
    Ok(rounded(dtype, shape, out))
}

type KResult = Result<Tensor, String>;

fn rounded(dtype: DType, shape: Vec<usize>, mut data: Vec<f64>) -> Tensor {
    for v in data.iter_mut() {
        *v = round_to_dtype(*v, dtype);
    }
    Tensor { dtype, shape, data }
}

#[cfg(test)]
#[path = "conv_tests.rs"]
mod tests;
