//! Converters of the convolution and windowed pooling operators (issue 39): Conv,
//! ConvTranspose, MaxPool and AveragePool become the boundary ops `ascend.conv`,
//! `ascend.conv_transpose`, `ascend.max_pool` and `ascend.avg_pool`, typed by their shape
//! rules (no `value_info` needed). A bias becomes a broadcast `add` after the op, which
//! fuses with what follows. `auto_pad` is resolved here into explicit pads: `SAME_UPPER`
//! and `SAME_LOWER` on a symbolic dim with stride > 1 give pads that are shape
//! expressions (`max((ceil(d/s)-1)*s + eff - d, 0)` split in two). GlobalAveragePool and
//! GlobalMaxPool are reductions (`ops::convert`). `docs/onnx.md` describes the mappings.

use super::emit::{Builder, Val, A};
use super::ops::{input, invalid, req, reshape, unsupported, wants, NodeCtx};
use super::proto::{attribute_type as at, AttributeProto};
use super::{Converted, Fail};
use autofuse_ir::graph::Dim;
use autofuse_symbolic::Expr;

fn attr<'a>(
    c: &'a NodeCtx,
    name: &str,
    want: i32,
    what: &str,
) -> Result<Option<&'a AttributeProto>, Fail> {
    match c.node.attribute.iter().find(|a| a.name == name) {
        None => Ok(None),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == want => Ok(Some(a)),
        Some(_) => invalid(format!("attribute '{name}' must be {what}")),
    }
}

fn int_or(c: &NodeCtx, name: &str, default: i64) -> Result<i64, Fail> {
    Ok(attr(c, name, at::INT, "an INT")?.map_or(default, |a| a.i))
}

/// An INTS attribute of `n` values (`default` each when absent), each at least `min`.
fn ints_or(c: &NodeCtx, name: &str, n: usize, default: i64, min: i64) -> Result<Vec<i64>, Fail> {
    let Some(a) = attr(c, name, at::INTS, "INTS")? else {
        return Ok(vec![default; n]);
    };
    if a.ints.len() != n {
        return invalid(format!(
            "attribute '{name}' has {} values for {n} spatial axes",
            a.ints.len()
        ));
    }
    if let Some(bad) = a.ints.iter().find(|&&v| v < min) {
        return invalid(format!("attribute '{name}' holds {bad}, must be >= {min}"));
    }
    Ok(a.ints.clone())
}

fn auto_pad(c: &NodeCtx) -> Result<String, Fail> {
    let mode = attr(c, "auto_pad", at::STRING, "a STRING")?.map_or_else(
        || "NOTSET".to_string(),
        |a| String::from_utf8_lossy(&a.s).into_owned(),
    );
    match mode.as_str() {
        "NOTSET" | "VALID" | "SAME_UPPER" | "SAME_LOWER" => Ok(mode),
        other => invalid(format!("unknown auto_pad '{other}'")),
    }
}

/// The input with its spatial rank (`[N, C, spatial...]`, at least one spatial axis).
fn spatial_input<'a>(c: &'a NodeCtx, op: &str) -> Result<(&'a Val, usize), Fail> {
    let x = req(c, 0)?;
    if x.rank() < 3 {
        return invalid(format!(
            "{op} input must have rank >= 3 ([N, C, spatial...]), not {}",
            x.rank()
        ));
    }
    Ok((x, x.rank() - 2))
}

/// Window sizes from static weight dims, checked against `kernel_shape` when given.
fn weight_kernel(c: &NodeCtx, op: &str, x: &Val, w: &Val) -> Result<Vec<i64>, Fail> {
    if w.rank() != x.rank() {
        return invalid(format!(
            "{op} kernel rank {} does not match input rank {} (weights [{}, spatial...] with \
             {} spatial axes)",
            w.rank(),
            x.rank(),
            if op == "Conv" {
                "M, C/group"
            } else {
                "C, M/group"
            },
            x.rank() - 2
        ));
    }
    let Some(kernel) = w.ty.dims[2..]
        .iter()
        .map(Dim::as_const)
        .collect::<Option<Vec<i64>>>()
    else {
        return unsupported(format!(
            "{op} weights with symbolic spatial dims ({})",
            w.ty
        ));
    };
    if let Some(given) = attr(c, "kernel_shape", at::INTS, "INTS")? {
        if given.ints != kernel {
            return invalid(format!(
                "{op} kernel_shape {:?} does not match the weights' spatial dims {kernel:?}",
                given.ints
            ));
        }
    }
    Ok(kernel)
}

/// Explicit pads (before each spatial axis, then after each) of a windowed op from
/// `pads` and `auto_pad`.
fn window_pads(
    c: &NodeCtx,
    x: &Val,
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Result<Vec<Expr>, Fail> {
    let n = kernel.len();
    let mode = auto_pad(c)?;
    match mode.as_str() {
        "NOTSET" => Ok(ints_or(c, "pads", 2 * n, 0, 0)?
            .into_iter()
            .map(Expr::constant)
            .collect()),
        "VALID" => Ok(vec![Expr::constant(0); 2 * n]),
        _ => {
            // Output size ceil(d/s); total padding max((out-1)*s + eff - d, 0), the odd
            // element at the end (SAME_UPPER) or the beginning (SAME_LOWER).
            let mut begin = Vec::with_capacity(n);
            let mut end = Vec::with_capacity(n);
            for i in 0..n {
                let eff = dilations[i] * (kernel[i] - 1) + 1;
                let s = strides[i];
                let total = if s == 1 {
                    Expr::constant(eff - 1)
                } else {
                    let Some(d) = x.ty.dims[2 + i].expr() else {
                        return unsupported("auto_pad SAME on a dim without a symbol");
                    };
                    let last = (d.ceil_div(&Expr::constant(s)) - 1) * s + eff - d.clone();
                    match last.as_const() {
                        Some(v) => Expr::constant(v.max(0)),
                        None => Expr::max(&last, &Expr::constant(0)),
                    }
                };
                let half = total.floor_div(&Expr::constant(2));
                let rest = total.clone() - half.clone();
                if mode == "SAME_UPPER" {
                    begin.push(half);
                    end.push(rest);
                } else {
                    begin.push(rest);
                    end.push(half);
                }
            }
            begin.extend(end);
            Ok(begin)
        }
    }
}

/// Adds a per-channel bias `[M]` to `y` (`[N, M, spatial...]`).
fn add_bias(b: &mut Builder, y: Val, bias: Option<&Val>, op: &str) -> Converted {
    let Some(bias) = bias else {
        return Ok(vec![Some(y)]);
    };
    if bias.rank() != 1 {
        return invalid(format!("{op} bias must be 1-D, not {}", bias.ty));
    }
    if let (Some(m), Some(n)) = (y.ty.dims[1].as_const(), bias.ty.dims[0].as_const()) {
        if m != n {
            return invalid(format!("{op} bias has {n} values for {m} output channels"));
        }
    }
    let mut dims = vec![bias.ty.dims[0].clone()];
    dims.extend(std::iter::repeat_n(Dim::constant(1), y.rank() - 2));
    let column = reshape(b, bias, dims)?;
    let out = b.op("add", &[&y, &column], &[], y.dtype(), None)?;
    Ok(vec![Some(out)])
}

fn require_float(x: &Val, op: &str) -> Result<(), Fail> {
    if x.dtype().is_float() {
        Ok(())
    } else {
        unsupported(format!("{op} on {}", x.dtype()))
    }
}

/// Conv: `ascend.conv` and a bias `add`.
pub(super) fn conv(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, n) = spatial_input(c, "Conv")?;
    let w = req(c, 1)?;
    require_float(x, "Conv")?;
    let kernel = weight_kernel(c, "Conv", x, w)?;
    let group = int_or(c, "group", 1)?;
    if group < 1 {
        return invalid(format!("Conv group {group} must be >= 1"));
    }
    if let (Some(ch), Some(per)) = (x.ty.dims[1].as_const(), w.ty.dims[1].as_const()) {
        if ch != per * group {
            return invalid(format!(
                "Conv input has {ch} channels, the weights take {} ({per} per group x {group} \
                 groups)",
                per * group
            ));
        }
    }
    if let Some(m) = w.ty.dims[0].as_const() {
        if m % group != 0 {
            return invalid(format!(
                "Conv has {m} output channels, not a multiple of group {group}"
            ));
        }
    }
    let strides = ints_or(c, "strides", n, 1, 1)?;
    let dilations = ints_or(c, "dilations", n, 1, 1)?;
    let pads = window_pads(c, x, &kernel, &strides, &dilations)?;
    let y = b.op(
        "conv",
        &[x, w],
        &[
            ("strides", A::Ints(strides)),
            ("dilations", A::Ints(dilations)),
            ("pads", A::Exprs(pads)),
            ("groups", A::I(group)),
        ],
        x.dtype(),
        None,
    )?;
    add_bias(b, y, input(c, 2), "Conv")
}

/// ConvTranspose: `ascend.conv_transpose` (pads from `output_shape` or `auto_pad`) and a
/// bias `add`.
pub(super) fn conv_transpose(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, n) = spatial_input(c, "ConvTranspose")?;
    let w = req(c, 1)?;
    require_float(x, "ConvTranspose")?;
    let kernel = weight_kernel(c, "ConvTranspose", x, w)?;
    let group = int_or(c, "group", 1)?;
    if group < 1 {
        return invalid(format!("ConvTranspose group {group} must be >= 1"));
    }
    if let (Some(ch), Some(wc)) = (x.ty.dims[1].as_const(), w.ty.dims[0].as_const()) {
        if ch != wc || ch % group != 0 {
            return invalid(format!(
                "ConvTranspose input has {ch} channels, the weights {wc} (dim 0; both must be \
                 equal and a multiple of group {group})"
            ));
        }
    }
    let strides = ints_or(c, "strides", n, 1, 1)?;
    let dilations = ints_or(c, "dilations", n, 1, 1)?;
    let mut output_padding = ints_or(c, "output_padding", n, 0, 0)?;
    for (i, &p) in output_padding.iter().enumerate() {
        if p >= strides[i].max(dilations[i]) {
            return invalid(format!(
                "ConvTranspose output_padding {p} of spatial axis {i} must be less than its \
                 stride or dilation"
            ));
        }
    }
    let mode = auto_pad(c)?;
    let output_shape = attr(c, "output_shape", at::INTS, "INTS")?.map(|a| a.ints.clone());
    let pads: Vec<Expr> = match (output_shape, mode.as_str()) {
        (None, "NOTSET") => ints_or(c, "pads", 2 * n, 0, 0)?
            .into_iter()
            .map(Expr::constant)
            .collect(),
        (None, "VALID") => vec![Expr::constant(0); 2 * n],
        (shape, _) => {
            // Total padding per axis: the natural size minus the wanted one (the wanted
            // one is output_shape, or d*stride for SAME); split as the spec says.
            let wanted: Vec<Expr> = match shape {
                Some(s) => {
                    let s = if s.len() == n + 2 { s[2..].to_vec() } else { s };
                    if s.len() != n {
                        return invalid(format!(
                            "ConvTranspose output_shape has {} values for {n} spatial axes",
                            s.len()
                        ));
                    }
                    s.into_iter().map(Expr::constant).collect()
                }
                None => (0..n)
                    .map(|i| match x.ty.dims[2 + i].expr() {
                        Some(d) => Ok(d.clone() * strides[i]),
                        None => unsupported("auto_pad SAME on a dim without a symbol"),
                    })
                    .collect::<Result<_, _>>()?,
            };
            let mut begin = Vec::with_capacity(n);
            let mut end = Vec::with_capacity(n);
            for i in 0..n {
                let Some(d) = x.ty.dims[2 + i].expr() else {
                    return unsupported("ConvTranspose on a dim without a symbol");
                };
                let eff = dilations[i] * (kernel[i] - 1) + 1;
                let total =
                    (d.clone() - 1) * strides[i] + (output_padding[i] + eff) - wanted[i].clone();
                if let Some(t) = total.as_const().filter(|&t| t < 0) {
                    // A wanted size past the natural one: the extra elements are zeros
                    // at the end, which is output padding.
                    output_padding[i] -= t;
                    begin.push(Expr::constant(0));
                    end.push(Expr::constant(0));
                    continue;
                }
                let half = total.floor_div(&Expr::constant(2));
                let rest = total.clone() - half.clone();
                if mode == "SAME_UPPER" {
                    begin.push(half);
                    end.push(rest);
                } else {
                    begin.push(rest);
                    end.push(half);
                }
            }
            begin.extend(end);
            begin
        }
    };
    let y = b.op(
        "conv_transpose",
        &[x, w],
        &[
            ("strides", A::Ints(strides)),
            ("dilations", A::Ints(dilations)),
            ("pads", A::Exprs(pads)),
            ("output_padding", A::Ints(output_padding)),
            ("groups", A::I(group)),
        ],
        x.dtype(),
        None,
    )?;
    add_bias(b, y, input(c, 2), "ConvTranspose")
}

/// MaxPool and AveragePool: `ascend.max_pool` / `ascend.avg_pool`.
pub(super) fn pool(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let (x, n) = spatial_input(c, op)?;
    let max = op == "MaxPool";
    if max && wants(c, 1) {
        return unsupported("MaxPool's Indices output");
    }
    if !max {
        require_float(x, op)?;
    }
    let Some(kernel) = attr(c, "kernel_shape", at::INTS, "INTS")? else {
        return invalid(format!("{op} needs attribute 'kernel_shape'"));
    };
    let kernel = kernel.ints.clone();
    if kernel.len() != n || kernel.iter().any(|&k| k < 1) {
        return invalid(format!(
            "{op} kernel_shape {kernel:?} must hold {n} sizes >= 1 (input rank {})",
            x.rank()
        ));
    }
    let strides = ints_or(c, "strides", n, 1, 1)?;
    let dilations = ints_or(c, "dilations", n, 1, 1)?;
    let pads = window_pads(c, x, &kernel, &strides, &dilations)?;
    let mut attrs = vec![
        ("kernel_shape", A::Ints(kernel)),
        ("strides", A::Ints(strides)),
        ("dilations", A::Ints(dilations)),
        ("pads", A::Exprs(pads)),
        ("ceil_mode", A::B(int_or(c, "ceil_mode", 0)? != 0)),
    ];
    if !max {
        attrs.push((
            "count_include_pad",
            A::B(int_or(c, "count_include_pad", 0)? != 0),
        ));
    }
    let name = if max { "max_pool" } else { "avg_pool" };
    let y = b.op(name, &[x], &attrs, x.dtype(), None)?;
    Ok(vec![Some(y)])
}
