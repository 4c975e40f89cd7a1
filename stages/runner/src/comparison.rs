//! The one numeric comparison of the tools: an expected tensor (the reference
//! interpreter's, or an `--expect` file such as onnxruntime's) against an actual one (the
//! emulation's, the vendor path's). Every check of `autofuse-run` and of the benches goes
//! through [`compare_tensors`] or [`compare_outputs`].
//!
//! Semantics (IEEE, element by element):
//! - shapes and dtypes must be equal;
//! - a NaN matches only a NaN;
//! - an infinity matches only the same-signed infinity (a finite value never matches a
//!   non-finite one, whatever the tolerance: `inf - x` is `inf`, and a tolerance scaled by
//!   an infinite reference would be infinite too, so no error bound can decide it);
//! - finite values match within a dtype-aware tolerance: `|e - a| <= atol + rtol * |e|`
//!   with `rtol` 1e-4 (f32), 1e-2 (f16), 4e-2 (bf16), 0 (integers and bool), and `atol =
//!   rtol * max |e|` over the finite expected values (low-precision graphs round after
//!   every op, so errors scale with the magnitudes inside the computation).
//!
//! The maximum error reported is over the finite pairs only; a failure always says what
//! failed (shape, dtype, non-finite mismatch, tolerance) and how many elements.

use autofuse_ir::graph::DType;
use autofuse_ir::tensor::Tensor;

/// The relative tolerance of a dtype (0 for exact types).
pub fn relative_tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F32 => 1e-4,
        DType::F16 => 1e-2,
        DType::BF16 => 4e-2,
        _ => 0.0,
    }
}

/// The result of comparing one expected tensor with one actual tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorComparison {
    /// The largest `|e - a|` over pairs of finite values (0 when none differ).
    pub max_error: f64,
    /// Elements that do not match (0 when the shapes or dtypes differ: see `structural`).
    pub mismatches: usize,
    /// Elements compared.
    pub elements: usize,
    /// A shape or dtype mismatch, which makes the elements incomparable.
    pub structural: Option<String>,
    /// The first mismatching element, described.
    pub first: Option<String>,
}

impl TensorComparison {
    pub fn passed(&self) -> bool {
        self.structural.is_none() && self.mismatches == 0
    }

    /// Why the comparison failed (`None` when it passed).
    pub fn reason(&self) -> Option<String> {
        if let Some(s) = &self.structural {
            return Some(s.clone());
        }
        if self.mismatches == 0 {
            return None;
        }
        Some(format!(
            "{} of {} element(s) differ; first: {}",
            self.mismatches,
            self.elements,
            self.first.as_deref().unwrap_or("?")
        ))
    }
}

/// Whether one expected element matches one actual element; `Err` describes a mismatch.
/// `tolerance` is the bound for finite pairs.
fn element_matches(e: f64, a: f64, tolerance: f64) -> Result<(), String> {
    if e.is_nan() || a.is_nan() {
        return if e.is_nan() && a.is_nan() {
            Ok(())
        } else {
            Err(format!("expected {e}, got {a} (a NaN matches only a NaN)"))
        };
    }
    if e.is_infinite() || a.is_infinite() {
        return if e == a {
            Ok(())
        } else {
            Err(format!(
                "expected {e}, got {a} (an infinity matches only the same infinity)"
            ))
        };
    }
    let err = (e - a).abs();
    if err <= tolerance {
        Ok(())
    } else {
        Err(format!(
            "expected {e}, got {a}, error {err:.3e} > tolerance {tolerance:.3e}"
        ))
    }
}

/// Compares `actual` with `expected` (see the module documentation).
pub fn compare_tensors(expected: &Tensor, actual: &Tensor) -> TensorComparison {
    let mut result = TensorComparison {
        max_error: 0.0,
        mismatches: 0,
        elements: expected.data.len(),
        structural: None,
        first: None,
    };
    if expected.shape != actual.shape {
        result.structural = Some(format!(
            "shape {:?} where {:?} was expected",
            actual.shape, expected.shape
        ));
        return result;
    }
    if expected.dtype != actual.dtype {
        result.structural = Some(format!(
            "dtype {} where {} was expected",
            actual.dtype, expected.dtype
        ));
        return result;
    }
    if expected.data.len() != actual.data.len() {
        result.structural = Some(format!(
            "{} elements where {} were expected",
            actual.data.len(),
            expected.data.len()
        ));
        return result;
    }
    let rtol = relative_tolerance(expected.dtype);
    let scale = expected.data.iter().fold(
        1.0f64,
        |m, v| if v.is_finite() { m.max(v.abs()) } else { m },
    );
    let atol = rtol * scale;
    for (i, (&e, &a)) in expected.data.iter().zip(&actual.data).enumerate() {
        if e.is_finite() && a.is_finite() {
            result.max_error = result.max_error.max((e - a).abs());
        }
        if let Err(why) = element_matches(e, a, atol + rtol * e.abs()) {
            result.mismatches += 1;
            if result.first.is_none() {
                result.first = Some(format!("element {i}: {why}"));
            }
        }
    }
    result
}

/// Dtype-aware comparison of an expected and an actual tensor: the largest absolute
/// error over finite pairs, or why they differ.
pub fn compare(expected: &Tensor, actual: &Tensor) -> Result<f64, String> {
    let c = compare_tensors(expected, actual);
    match c.reason() {
        None => Ok(c.max_error),
        Some(why) => Err(why),
    }
}

/// The comparison of every output of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputsComparison {
    /// The largest error over the finite pairs of every output.
    pub max_error: f64,
    /// One line per failing output (or a count mismatch).
    pub failures: Vec<String>,
}

impl OutputsComparison {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// `max error 1.234e-5: PASS`, or on failure `max error 0.000e0 over finite values:
    /// FAIL (1 output mismatch(es))`: the error figure covers finite pairs only, and the
    /// mismatches (listed by [`OutputsComparison::failures`]) say what failed, so a
    /// non-finite or shape mismatch is never a bare `max error 0: FAIL`.
    pub fn verdict(&self) -> String {
        if self.passed() {
            return format!("max error {}: PASS", self.error_figure());
        }
        format!(
            "max error {}: FAIL ({} output mismatch(es))",
            self.error_figure(),
            self.failures.len()
        )
    }

    /// The error figure of [`OutputsComparison::verdict`]: `1.234e-5`, or on failure
    /// `1.234e-5 over finite values`.
    pub fn error_figure(&self) -> String {
        if self.passed() {
            format!("{:.3e}", self.max_error)
        } else {
            format!("{:.3e} over finite values", self.max_error)
        }
    }
}

/// Compares every output; `name(i)` is appended to `output #i differs` in failure lines
/// (e.g. ` from FILE`, or empty).
pub fn compare_outputs(
    expected: &[Tensor],
    actual: &[Tensor],
    name: &dyn Fn(usize) -> String,
) -> OutputsComparison {
    let mut out = OutputsComparison {
        max_error: 0.0,
        failures: Vec::new(),
    };
    if expected.len() != actual.len() {
        out.failures.push(format!(
            "{} output(s) where {} were expected",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        let c = compare_tensors(e, a);
        out.max_error = out.max_error.max(c.max_error);
        if let Some(why) = c.reason() {
            out.failures
                .push(format!("output #{i} differs{}: {why}", name(i)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dtype: DType, data: &[f64]) -> Tensor {
        Tensor {
            dtype,
            shape: vec![data.len()],
            data: data.to_vec(),
        }
    }

    #[test]
    fn infinity_matches_only_the_same_infinity() {
        let inf = f64::INFINITY;
        let e = t(DType::F32, &[inf, 1.0]);
        assert!(compare_tensors(&e, &t(DType::F32, &[inf, 1.0])).passed());
        let finite = compare_tensors(&e, &t(DType::F32, &[5.0, 1.0]));
        assert!(!finite.passed());
        assert_eq!(finite.mismatches, 1);
        assert!(finite.first.unwrap().contains("infinity"));
        assert!(!compare_tensors(&e, &t(DType::F32, &[-inf, 1.0])).passed());
        assert!(!compare_tensors(&e, &t(DType::F32, &[f64::NAN, 1.0])).passed());
        // A finite reference never accepts an infinity either.
        assert!(!compare_tensors(&t(DType::F32, &[1.0]), &t(DType::F32, &[inf])).passed());
    }

    #[test]
    fn nan_matches_only_nan() {
        let nan = f64::NAN;
        assert!(compare_tensors(&t(DType::F32, &[nan]), &t(DType::F32, &[nan])).passed());
        assert!(!compare_tensors(&t(DType::F32, &[nan]), &t(DType::F32, &[0.0])).passed());
        assert!(!compare_tensors(&t(DType::F32, &[0.0]), &t(DType::F32, &[nan])).passed());
    }

    #[test]
    fn finite_values_use_the_dtype_tolerance() {
        let e = t(DType::F32, &[1.0, 2.0]);
        let c = compare_tensors(&e, &t(DType::F32, &[1.00001, 2.0]));
        assert!(c.passed());
        assert!(c.max_error > 0.0);
        assert!(!compare_tensors(&e, &t(DType::F32, &[1.1, 2.0])).passed());
        assert!(compare_tensors(&t(DType::F16, &[1.0]), &t(DType::F16, &[1.005])).passed());
        assert!(!compare_tensors(&t(DType::I32, &[1.0]), &t(DType::I32, &[2.0])).passed());
    }

    #[test]
    fn structure_mismatches_are_named() {
        let e = t(DType::F32, &[1.0, 2.0]);
        let c = compare_tensors(&e, &t(DType::F32, &[1.0]));
        assert!(c.reason().unwrap().contains("shape"));
        let c = compare_tensors(&e, &t(DType::F16, &[1.0, 2.0]));
        assert!(c.reason().unwrap().contains("dtype"));
    }

    #[test]
    fn verdicts_say_what_failed() {
        let inf = f64::INFINITY;
        let r = compare_outputs(&[t(DType::F32, &[inf])], &[t(DType::F32, &[0.0])], &|_| {
            String::new()
        });
        assert!(!r.passed());
        let v = r.verdict();
        assert!(v.contains("FAIL (1 output mismatch(es))"), "{v}");
        assert!(r.failures[0].contains("infinity"), "{:?}", r.failures);
        let r = compare_outputs(&[t(DType::F32, &[1.0])], &[], &|_| String::new());
        assert!(r.failures[0].contains("0 output(s) where 1 were expected"));
        let r = compare_outputs(&[t(DType::F32, &[1.0])], &[t(DType::F32, &[1.0])], &|_| {
            String::new()
        });
        assert_eq!(r.verdict(), "max error 0.000e0: PASS");
    }
}
