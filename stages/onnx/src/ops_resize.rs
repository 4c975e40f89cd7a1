//! The converter of `Resize` (opsets 10 to 19) as an exact separable resampling.
//!
//! Resampling one axis is linear in the input: every output position `i` reads a few
//! source positions `idx[i][k]` (the taps) with weights `w[i][k]`, and both depend only
//! on the static sizes, the scales (or sizes), `roi` and the attributes. They are
//! computed at import time, following the ONNX reference (`op_resize.py`): the source
//! coordinate of the coordinate transformation mode, its floor and ratio, the filter
//! coefficients (nearest, linear, cubic, antialiased linear and cubic when downsampling),
//! the window of neighbours with edge clamping, `exclude_outside`, and for
//! `tf_crop_and_resize` the positions outside the input (their value is
//! `extrapolation_value`). In the graph each resized axis (in the reference's order) is
//! then, per tap `k`, a `gather` of the constant indices `idx[:, k]` along the axis times
//! a constant weight column shaped to broadcast along it, summed over the taps. Nearest
//! has one tap of weight 1 (a plain `gather`, exact for any dtype); weights equal to 1
//! are not multiplied, taps whose weights are all 0 are dropped; extrapolated positions
//! are a `select` of a constant mask. Linear and cubic compute in f32 (half-precision
//! inputs are cast in and out); integer inputs are refused for them.

use super::data::Values;
use super::emit::{Builder, Val, A};
use super::ops::input;
use super::ops::NodeCtx;
use super::ops::{invalid, unsupported};
use super::proto::attribute_type as at;
use super::{Converted, Fail};
use autofuse_ir::graph::DType;

// ---------------------------------------------------------------------------------
// Reading the node
// ---------------------------------------------------------------------------------

fn attr<'a>(c: &'a NodeCtx, name: &str) -> Option<&'a super::proto::AttributeProto> {
    c.node.attribute.iter().find(|a| a.name == name)
}

fn int_attr(c: &NodeCtx, name: &str, default: i64) -> Result<i64, Fail> {
    match attr(c, name) {
        None => Ok(default),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::INT => Ok(a.i),
        Some(_) => invalid(format!("attribute '{name}' must be an INT")),
    }
}

fn float_attr(c: &NodeCtx, name: &str, default: f64) -> Result<f64, Fail> {
    match attr(c, name) {
        None => Ok(default),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::FLOAT => Ok(a.f as f64),
        Some(_) => invalid(format!("attribute '{name}' must be a FLOAT")),
    }
}

fn string_attr(c: &NodeCtx, name: &str, default: &str) -> Result<String, Fail> {
    match attr(c, name) {
        None => Ok(default.to_string()),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::STRING => {
            Ok(String::from_utf8_lossy(&a.s).into_owned())
        }
        Some(_) => invalid(format!("attribute '{name}' must be a STRING")),
    }
}

fn ints_attr(c: &NodeCtx, name: &str) -> Result<Option<Vec<i64>>, Fail> {
    match attr(c, name) {
        None => Ok(None),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::INTS => Ok(Some(a.ints.clone())),
        Some(_) => invalid(format!("attribute '{name}' must be INTS")),
    }
}

/// The values of an optional operand known at import time: `None` when absent or
/// empty (writers pass empty `roi`/`scales` tensors for "not given").
fn known_operand(c: &NodeCtx, i: usize, what: &str) -> Result<Option<Vec<f64>>, Fail> {
    let Some(v) = input(c, i) else {
        return Ok(None);
    };
    if v.static_shape().is_some_and(|s| s.contains(&0)) {
        return Ok(None);
    }
    match &v.known {
        Some(values) if values.is_empty() => Ok(None),
        Some(values) => Ok(Some(values.as_f64())),
        None => unsupported(format!("Resize {what} is not a constant")),
    }
}

// ---------------------------------------------------------------------------------
// The taps, at import time
// ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Nearest {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mode {
    Nearest(Nearest),
    Linear,
    Cubic(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Coord {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfCropAndResize,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Filter {
    pub mode: Mode,
    pub coord: Coord,
    pub antialias: bool,
    pub exclude_outside: bool,
}

/// The resampling of one axis: per output position, its source indices and weights
/// (the same number of taps for every position) and whether it is extrapolated.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Taps {
    pub idx: Vec<Vec<i64>>,
    pub w: Vec<Vec<f64>>,
    pub extrapolated: Vec<bool>,
}

fn cubic(x: f64, a: f64) -> f64 {
    let x = x.abs();
    let (x2, x3) = (x * x, x * x * x);
    if x <= 1.0 {
        (a + 2.0) * x3 - (a + 3.0) * x2 + 1.0
    } else if x < 2.0 {
        a * x3 - 5.0 * a * x2 + 8.0 * a * x - 4.0 * a
    } else {
        0.0
    }
}

fn normalized(mut c: Vec<f64>) -> Vec<f64> {
    let sum: f64 = c.iter().sum();
    for v in &mut c {
        *v /= sum;
    }
    c
}

/// The filter coefficients at `ratio` in (0, 1] (the reference's `get_coeffs`).
fn coefficients(f: &Filter, ratio: f64, scale: f64) -> Vec<f64> {
    match f.mode {
        Mode::Nearest(m) => {
            if ratio.fract() == 0.0 {
                return vec![0.0, 1.0];
            }
            let lower = match m {
                Nearest::RoundPreferFloor => ratio <= 0.5,
                Nearest::RoundPreferCeil => ratio < 0.5,
                Nearest::Floor => true,
                Nearest::Ceil => false,
            };
            if lower {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        }
        Mode::Linear if f.antialias => {
            let s = scale.min(1.0);
            let start = (-1.0 / s).floor() as i64 + 1;
            let footprint = 2 - 2 * start;
            normalized(
                (start..start + footprint)
                    .map(|i| (1.0 - ((i as f64 - ratio) * s).abs()).clamp(0.0, 1.0))
                    .collect(),
            )
        }
        Mode::Linear => vec![1.0 - ratio, ratio],
        Mode::Cubic(a) if f.antialias => {
            let s = scale.min(1.0);
            let start = (-2.0 / s).floor() as i64 + 1;
            let end = 2 - start;
            normalized(
                (start..end)
                    .map(|i| cubic(s * (i as f64 - ratio), a))
                    .collect(),
            )
        }
        Mode::Cubic(a) => {
            let r = ratio;
            let q = 1.0 - r;
            vec![
                ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                ((a + 2.0) * q - (a + 3.0)) * q * q + 1.0,
                ((a * (q + 1.0) - 5.0 * a) * (q + 1.0) + 8.0 * a) * (q + 1.0) - 4.0 * a,
            ]
        }
    }
}

/// The taps of resizing an axis of `input` positions to `output` positions at `scale`
/// (`roi`: this axis's start and end, as f32 like the reference's operand).
pub(crate) fn axis_taps(
    f: &Filter,
    input: usize,
    output: usize,
    scale: f64,
    roi: Option<(f32, f32)>,
) -> Taps {
    let in_w = input as f64;
    let out_w = scale * in_w;
    let mut taps = Taps {
        idx: Vec::with_capacity(output),
        w: Vec::with_capacity(output),
        extrapolated: Vec::with_capacity(output),
    };
    for i in 0..output {
        let y = i as f64;
        let mut outside = false;
        let x = match f.coord {
            Coord::AlignCorners => {
                if out_w == 1.0 {
                    0.0
                } else {
                    y * (in_w - 1.0) / (out_w - 1.0)
                }
            }
            Coord::Asymmetric => y / scale,
            Coord::TfCropAndResize => {
                let (r0, r1) = roi.unwrap_or((0.0, 1.0));
                // The reference subtracts and scales the f32 roi in f32.
                let span = r1 - r0;
                let x = if out_w == 1.0 {
                    (span * (input as f32 - 1.0) / 2.0) as f64
                } else {
                    y * span as f64 * (in_w - 1.0) / (out_w - 1.0)
                };
                let x = x + (r0 * (input as f32 - 1.0)) as f64;
                outside = x < 0.0 || x > in_w - 1.0;
                x
            }
            Coord::PytorchHalfPixel => {
                if out_w == 1.0 {
                    -0.5
                } else {
                    (y + 0.5) / scale - 0.5
                }
            }
            Coord::HalfPixel => (y + 0.5) / scale - 0.5,
            Coord::HalfPixelSymmetric => {
                let adjustment = output as f64 / out_w;
                let offset = in_w / 2.0 * (1.0 - adjustment);
                offset + (y + 0.5) / scale - 0.5
            }
        };
        let floor = x.floor();
        let ratio = if x == floor { 1.0 } else { x - floor };
        let mut w = coefficients(f, ratio, scale);
        let n = w.len() as i64;
        // The n positions nearest to x (ties to the smaller), in edge-padded coordinates.
        let pad = (n + 1) / 2;
        let xp = x + pad as f64;
        let p = xp.floor();
        let frac = xp - p;
        let p = p as i64;
        let start = if n % 2 == 0 {
            if frac == 0.0 {
                p - n / 2
            } else {
                p - n / 2 + 1
            }
        } else {
            let base = -((n - 1) / 2);
            p + if frac <= 0.5 { base } else { base + 1 }
        };
        let raw: Vec<i64> = (0..n).map(|k| start + k - pad).collect();
        if f.exclude_outside {
            for (c, &j) in w.iter_mut().zip(&raw) {
                if j < 0 || j >= input as i64 {
                    *c = 0.0;
                }
            }
            let sum: f64 = w.iter().sum();
            if sum != 0.0 {
                for c in &mut w {
                    *c /= sum;
                }
            }
        }
        if outside {
            // Extrapolated: the converter selects extrapolation_value there.
            w.iter_mut().for_each(|c| *c = 0.0);
        }
        let mut idx: Vec<i64> = raw.iter().map(|&j| j.clamp(0, input as i64 - 1)).collect();
        if let Mode::Nearest(_) = f.mode {
            // One tap: the source of weight 1.
            let k = w.iter().position(|&c| c != 0.0).unwrap_or(0);
            idx = vec![idx[k]];
            w = vec![1.0];
        }
        taps.idx.push(idx);
        taps.w.push(w);
        taps.extrapolated.push(outside);
    }
    taps
}

/// Whether resizing this axis changes nothing (the reference skips such axes).
fn is_identity(scale: f64, input: usize, output: usize, roi: Option<(f32, f32)>) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    close(scale, 1.0)
        && input == output
        && roi.is_none_or(|(r0, r1)| close(r0 as f64, 0.0) && close(r1 as f64, 1.0))
}

// ---------------------------------------------------------------------------------
// The converter
// ---------------------------------------------------------------------------------

fn op(
    b: &mut Builder,
    name: &str,
    xs: &[&Val],
    attrs: &[(&str, A)],
    dtype: DType,
) -> Result<Val, Fail> {
    Ok(b.op(name, xs, attrs, dtype, None)?)
}

fn cast(b: &mut Builder, x: &Val, dtype: DType) -> Result<Val, Fail> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    op(b, "cast", &[x], &[], dtype)
}

/// Emits the resampling of `x` along `axis` by `taps`.
fn resample(b: &mut Builder, x: &Val, axis: usize, taps: &Taps) -> Result<Val, Fail> {
    let out = taps.idx.len();
    let n = taps.idx.first().map_or(0, Vec::len);
    let rank = x.rank();
    let mut col_dims = vec![1usize; rank];
    col_dims[axis] = out;
    let input = x.ty.dims[axis].as_const().unwrap_or(-1);
    let mut acc: Option<Val> = None;
    for k in 0..n {
        let w: Vec<f64> = taps.w.iter().map(|ws| ws[k]).collect();
        if w.iter().all(|&c| c == 0.0) && (acc.is_some() || k + 1 < n) {
            continue;
        }
        let idx: Vec<i64> = taps.idx.iter().map(|is| is[k]).collect();
        let identity = out as i64 == input && idx.iter().enumerate().all(|(i, &j)| j == i as i64);
        let g = if identity {
            x.clone()
        } else {
            let idx = b.constant(DType::I32, &[out], Values::I(idx));
            op(
                b,
                "gather",
                &[x, &idx],
                &[("axis", A::I(axis as i64))],
                x.dtype(),
            )?
        };
        let term = if w.iter().all(|&c| c == 1.0) {
            g
        } else {
            let wv = b.constant(x.dtype(), &col_dims, Values::F(w));
            op(b, "mul", &[&g, &wv], &[], x.dtype())?
        };
        acc = Some(match acc {
            None => term,
            Some(a) => op(b, "add", &[&a, &term], &[], x.dtype())?,
        });
    }
    acc.ok_or_else(|| Fail::Invalid("Resize axis without taps".into()))
}

/// Resize: reads the node into a filter and per-axis scales and sizes, then resamples
/// every axis that changes.
pub fn resize(b: &mut Builder, c: &NodeCtx) -> Converted {
    let Some(x) = input(c, 0) else {
        return invalid("missing required input #0");
    };
    if x.rank() == 0 {
        return invalid("Resize needs a tensor of rank >= 1");
    }
    // Operands: opset 10 is (X, scales); later (X, roi, scales, sizes).
    let (roi, scales, sizes) = if c.opset < 11 {
        (None, known_operand(c, 1, "scales")?, None)
    } else {
        (
            known_operand(c, 1, "roi")?,
            known_operand(c, 2, "scales")?,
            known_operand(c, 3, "sizes")?,
        )
    };
    let filter = resize_filter(c)?;
    let extrapolation = float_attr(c, "extrapolation_value", 0.0)?;
    let axes = ResizedAxes::of(c, x)?;
    let target = axes.target(c, scales.as_deref(), sizes.as_deref())?;
    let roi = axis_rois(filter.coord, roi, axes.axes.len())?;
    for (i, &a) in axes.axes.iter().enumerate() {
        let axis_roi = roi.as_ref().map(|r| r[i]);
        if axes.dynamic[a] && !is_identity(target.scale[a], 0, 0, axis_roi) {
            return axes.dynamic_axis(a);
        }
    }
    let dtype = x.dtype();
    let exact_gather = matches!(filter.mode, Mode::Nearest(_));
    if !exact_gather && !dtype.is_float() {
        return unsupported(format!("Resize {dtype:?} in linear or cubic mode"));
    }
    let mut y = if exact_gather {
        x.clone()
    } else {
        cast(b, x, DType::F32)?
    };
    for (i, &a) in axes.axes.iter().enumerate() {
        let axis_roi = roi.as_ref().map(|r| r[i]);
        let (input, output, scale) = (axes.in_dims[a], target.out_dims[a], target.scale[a]);
        if is_identity(scale, input, output, axis_roi) {
            continue;
        }
        let taps = axis_taps(&filter, input, output, scale, axis_roi);
        y = resample(b, &y, a, &taps)?;
        if taps.extrapolated.iter().any(|&e| e) {
            y = extrapolate(b, &y, a, &taps, extrapolation)?;
        }
    }
    Ok(vec![Some(cast(b, &y, dtype)?)])
}

/// The filter of the `mode`, `coordinate_transformation_mode`, `nearest_mode`,
/// `cubic_coeff_a`, `antialias` and `exclude_outside` attributes (opset 10 has the
/// asymmetric floor of its only nearest mode).
fn resize_filter(c: &NodeCtx) -> Result<Filter, Fail> {
    let opset = c.opset;
    let mode = string_attr(c, "mode", "nearest")?;
    let coord = if opset < 11 {
        "asymmetric".to_string()
    } else {
        string_attr(c, "coordinate_transformation_mode", "half_pixel")?
    };
    let nearest = if opset < 11 {
        "floor".to_string()
    } else {
        string_attr(c, "nearest_mode", "round_prefer_floor")?
    };
    let mode = match mode.as_str() {
        "nearest" => Mode::Nearest(match nearest.as_str() {
            "round_prefer_floor" => Nearest::RoundPreferFloor,
            "round_prefer_ceil" => Nearest::RoundPreferCeil,
            "floor" => Nearest::Floor,
            "ceil" => Nearest::Ceil,
            other => return invalid(format!("Resize nearest_mode '{other}' is not defined")),
        }),
        "linear" => Mode::Linear,
        "cubic" if opset >= 11 => Mode::Cubic(float_attr(c, "cubic_coeff_a", -0.75)?),
        other => return invalid(format!("Resize mode '{other}' is not defined")),
    };
    let coord = match coord.as_str() {
        "half_pixel" => Coord::HalfPixel,
        "half_pixel_symmetric" if opset >= 19 => Coord::HalfPixelSymmetric,
        "pytorch_half_pixel" => Coord::PytorchHalfPixel,
        "align_corners" => Coord::AlignCorners,
        "asymmetric" => Coord::Asymmetric,
        "tf_crop_and_resize" => Coord::TfCropAndResize,
        "tf_half_pixel_for_nn" if opset < 13 => {
            return unsupported("Resize coordinate_transformation_mode 'tf_half_pixel_for_nn'")
        }
        other => {
            return invalid(format!(
                "Resize coordinate_transformation_mode '{other}' is not defined"
            ))
        }
    };
    Ok(Filter {
        mode,
        coord,
        antialias: opset >= 18 && int_attr(c, "antialias", 0)? != 0,
        exclude_outside: opset >= 11 && int_attr(c, "exclude_outside", 0)? != 0,
    })
}

/// The axes a Resize node resizes (all, or from opset 18 the listed ones) with their
/// input sizes. A dynamic axis (size 0 here) is only allowed unchanged (scale 1, whole
/// roi): it is skipped.
struct ResizedAxes<'a> {
    x: &'a Val,
    axes: Vec<usize>,
    in_dims: Vec<usize>,
    dynamic: Vec<bool>,
}

/// The scale and the output size of every axis (1 and the input size for the axes
/// not resized).
struct Target {
    scale: Vec<f64>,
    out_dims: Vec<usize>,
}

impl<'a> ResizedAxes<'a> {
    /// Reads and checks the `axes` attribute and the static sizes of those axes.
    fn of(c: &NodeCtx, x: &'a Val) -> Result<Self, Fail> {
        let rank = x.rank();
        let listed = if c.opset >= 18 {
            ints_attr(c, "axes")?
        } else {
            None
        };
        let axes: Vec<usize> = match listed {
            None => (0..rank).collect(),
            Some(list) => {
                let mut out = Vec::with_capacity(list.len());
                for a in list {
                    let r = rank as i64;
                    if a < -r || a >= r {
                        return invalid(format!("Resize axis {a} is out of range for rank {r}"));
                    }
                    let a = if a < 0 { a + r } else { a } as usize;
                    if out.contains(&a) {
                        return invalid(format!("Resize axis {a} is repeated"));
                    }
                    out.push(a);
                }
                out
            }
        };
        let mut in_dims = vec![0usize; rank];
        let mut dynamic = vec![false; rank];
        for &a in &axes {
            match x.ty.dims[a].as_const() {
                Some(d) if d > 0 => in_dims[a] = d as usize,
                Some(_) => return unsupported("Resize of an empty axis"),
                None => dynamic[a] = true,
            }
        }
        Ok(ResizedAxes {
            x,
            axes,
            in_dims,
            dynamic,
        })
    }

    /// The refusal of resizing dynamic axis `a`.
    fn dynamic_axis<T>(&self, a: usize) -> Result<T, Fail> {
        unsupported(format!("Resize of a dynamic axis ({})", self.x.ty.dims[a]))
    }

    /// The target of the resized axes from `scales` or `sizes` (exactly one given).
    fn target(
        &self,
        c: &NodeCtx,
        scales: Option<&[f64]>,
        sizes: Option<&[f64]>,
    ) -> Result<Target, Fail> {
        let mut target = Target {
            scale: vec![1.0f64; self.x.rank()],
            out_dims: self.in_dims.clone(),
        };
        match (scales, sizes) {
            (Some(_), Some(_)) => return invalid("Resize takes scales or sizes, not both"),
            (None, None) => return invalid("Resize needs scales or sizes"),
            (Some(s), None) => self.scale_by(&mut target, s)?,
            (None, Some(s)) => self.size_to(&mut target, c, s)?,
        }
        let axes = &self.axes;
        if axes
            .iter()
            .any(|&a| !self.dynamic[a] && target.out_dims[a] == 0)
        {
            return unsupported("Resize to an empty axis");
        }
        if axes.iter().any(|&a| target.out_dims[a] > i32::MAX as usize) {
            return unsupported("Resize to an axis beyond 2^31 positions");
        }
        Ok(target)
    }

    /// Output sizes from per-axis scales (rounded down).
    fn scale_by(&self, target: &mut Target, s: &[f64]) -> Result<(), Fail> {
        let m = self.axes.len();
        if s.len() != m {
            return invalid(format!(
                "Resize scales hold {} values for {m} axes",
                s.len()
            ));
        }
        for (&a, &v) in self.axes.iter().zip(s) {
            if !(v > 0.0 && v.is_finite()) {
                return invalid(format!("Resize scale {v} is not positive"));
            }
            if self.dynamic[a] && v != 1.0 {
                return self.dynamic_axis(a);
            }
            target.scale[a] = v;
            target.out_dims[a] = (v * self.in_dims[a] as f64).floor() as usize;
        }
        Ok(())
    }

    /// Scales from output sizes, then (from opset 18) one common scale when
    /// `keep_aspect_ratio_policy` asks to keep the aspect ratio.
    fn size_to(&self, target: &mut Target, c: &NodeCtx, s: &[f64]) -> Result<(), Fail> {
        let axes = &self.axes;
        let m = axes.len();
        if let Some(&a) = axes.iter().find(|&&a| self.dynamic[a]) {
            return self.dynamic_axis(a);
        }
        if s.len() != m {
            return invalid(format!("Resize sizes hold {} values for {m} axes", s.len()));
        }
        for (&a, &v) in axes.iter().zip(s) {
            if v < 0.0 {
                return invalid(format!("Resize size {v} is negative"));
            }
            target.scale[a] = v / self.in_dims[a] as f64;
            target.out_dims[a] = v as usize;
        }
        let policy = if c.opset >= 18 {
            string_attr(c, "keep_aspect_ratio_policy", "stretch")?
        } else {
            "stretch".to_string()
        };
        let pick = match policy.as_str() {
            "stretch" => None,
            "not_larger" => Some(f64::min as fn(f64, f64) -> f64),
            "not_smaller" => Some(f64::max as fn(f64, f64) -> f64),
            other => {
                return invalid(format!(
                    "Resize keep_aspect_ratio_policy '{other}' is not defined"
                ))
            }
        };
        if let Some(pick) = pick {
            let s = axes
                .iter()
                .map(|&a| target.scale[a])
                .reduce(pick)
                .unwrap_or(1.0);
            for &a in axes {
                target.scale[a] = s;
                target.out_dims[a] = (s * self.in_dims[a] as f64 + 0.5) as usize;
            }
        }
        Ok(())
    }
}

/// roi as (start, end) per resized axis (`m` of them): the starts then the ends of
/// the operand. Only tf_crop_and_resize reads it, and needs it.
fn axis_rois(
    coord: Coord,
    roi: Option<Vec<f64>>,
    m: usize,
) -> Result<Option<Vec<(f32, f32)>>, Fail> {
    match (coord, roi) {
        (Coord::TfCropAndResize, None) => invalid("Resize tf_crop_and_resize needs roi"),
        (Coord::TfCropAndResize, Some(r)) => {
            if r.len() != 2 * m {
                return invalid(format!("Resize roi holds {} values for {m} axes", r.len()));
            }
            Ok(Some(
                (0..m).map(|i| (r[i] as f32, r[m + i] as f32)).collect(),
            ))
        }
        _ => Ok(None),
    }
}

/// `y` with `extrapolation` at the positions along `axis` that `taps` extrapolates.
fn extrapolate(
    b: &mut Builder,
    y: &Val,
    axis: usize,
    taps: &Taps,
    extrapolation: f64,
) -> Result<Val, Fail> {
    let mut dims = vec![1usize; y.rank()];
    dims[axis] = taps.extrapolated.len();
    let mask = taps.extrapolated.iter().map(|&e| e as i64).collect();
    let mask = b.constant(DType::Bool, &dims, Values::I(mask));
    let fill = b.scalar(y.dtype(), extrapolation);
    op(b, "select", &[&mask, &fill, y], &[], y.dtype())
}
