//! Evaluation of expressions to concrete `i64` values, plus the checked integer
//! helpers that define floor/ceil division, floor modulo and align everywhere in the
//! crate (constant folding uses the same functions, so folding and evaluation agree).

use std::collections::HashMap;

use crate::expr::{Atom, Expr};

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The environment has no value for this symbol.
    #[error("unbound symbol `{0}`")]
    UnboundSymbol(String),
    /// A divisor (of floor, ceil, mod or align) evaluated to zero.
    #[error("division by zero")]
    DivisionByZero,
    /// An intermediate or final value does not fit in `i64`.
    #[error("integer overflow")]
    Overflow,
}

/// `floor(a / b)`; `None` on a zero divisor or overflow.
pub(crate) fn floor_div_i64(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// `ceil(a / b)`; `None` on a zero divisor or overflow.
pub(crate) fn ceil_div_i64(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) == (b < 0)) {
        q.checked_add(1)
    } else {
        Some(q)
    }
}

/// Floor modulo (result has the sign of `b`); `None` on a zero divisor.
pub(crate) fn mod_i64(a: i64, b: i64) -> Option<i64> {
    if b == -1 {
        // `i64::MIN % -1` traps in hardware although the remainder is 0.
        return Some(0);
    }
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        Some(r + b)
    } else {
        Some(r)
    }
}

/// `ceil(a / b) * b`; `None` on a zero divisor or overflow.
pub(crate) fn align_i64(a: i64, b: i64) -> Option<i64> {
    ceil_div_i64(a, b)?.checked_mul(b)
}

fn divide(
    a: &Expr,
    b: &Expr,
    env: &dyn Fn(&str) -> Option<i64>,
    op: fn(i64, i64) -> Option<i64>,
) -> Result<i64, EvalError> {
    let x = a.eval(env)?;
    let y = b.eval(env)?;
    if y == 0 {
        return Err(EvalError::DivisionByZero);
    }
    op(x, y).ok_or(EvalError::Overflow)
}

fn eval_atom(atom: &Atom, env: &dyn Fn(&str) -> Option<i64>) -> Result<i64, EvalError> {
    match atom {
        Atom::Sym(name) => env(name).ok_or_else(|| EvalError::UnboundSymbol(name.clone())),
        Atom::FloorDiv(a, b) => divide(a, b, env, floor_div_i64),
        Atom::CeilDiv(a, b) => divide(a, b, env, ceil_div_i64),
        Atom::Mod(a, b) => divide(a, b, env, mod_i64),
        Atom::Align(a, b) => divide(a, b, env, align_i64),
        Atom::Min(args) | Atom::Max(args) => {
            let mut best: Option<i64> = None;
            let is_min = matches!(atom, Atom::Min(_));
            for arg in args {
                let v = arg.eval(env)?;
                best = Some(match best {
                    None => v,
                    Some(b) if is_min => b.min(v),
                    Some(b) => b.max(v),
                });
            }
            best.ok_or(EvalError::Overflow)
        }
        Atom::Add(a, b) => a
            .eval(env)?
            .checked_add(b.eval(env)?)
            .ok_or(EvalError::Overflow),
        Atom::Mul(a, b) => a
            .eval(env)?
            .checked_mul(b.eval(env)?)
            .ok_or(EvalError::Overflow),
        Atom::Neg(a) => a.eval(env)?.checked_neg().ok_or(EvalError::Overflow),
    }
}

impl Expr {
    /// Evaluates with symbol values from `env`.
    ///
    /// Sums are accumulated in `i128`, so only a value that really leaves `i64` (a
    /// result, a call argument or a huge monomial) reports [`EvalError::Overflow`].
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i64>) -> Result<i64, EvalError> {
        let mut acc: i128 = 0;
        for (mono, &coef) in self.terms.iter() {
            let mut term = i128::from(coef);
            for (atom, exp) in &mono.0 {
                let v = i128::from(eval_atom(atom, env)?);
                term = v
                    .checked_pow(*exp)
                    .and_then(|p| term.checked_mul(p))
                    .ok_or(EvalError::Overflow)?;
            }
            acc = acc.checked_add(term).ok_or(EvalError::Overflow)?;
        }
        i64::try_from(acc).map_err(|_| EvalError::Overflow)
    }

    /// Evaluates with symbol values from a map.
    pub fn eval_map(&self, env: &HashMap<String, i64>) -> Result<i64, EvalError> {
        self.eval(&|name| env.get(name).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_round_towards_the_right_infinity() {
        assert_eq!(floor_div_i64(7, 2), Some(3));
        assert_eq!(floor_div_i64(-7, 2), Some(-4));
        assert_eq!(floor_div_i64(7, -2), Some(-4));
        assert_eq!(floor_div_i64(-7, -2), Some(3));
        assert_eq!(ceil_div_i64(7, 2), Some(4));
        assert_eq!(ceil_div_i64(-7, 2), Some(-3));
        assert_eq!(ceil_div_i64(7, -2), Some(-3));
        assert_eq!(floor_div_i64(i64::MIN, -1), None);
        assert_eq!(floor_div_i64(1, 0), None);
    }

    #[test]
    fn floor_mod_takes_the_sign_of_the_divisor() {
        assert_eq!(mod_i64(7, 3), Some(1));
        assert_eq!(mod_i64(-7, 3), Some(2));
        assert_eq!(mod_i64(7, -3), Some(-2));
        assert_eq!(mod_i64(-7, -3), Some(-1));
        assert_eq!(mod_i64(i64::MIN, -1), Some(0));
        assert_eq!(mod_i64(5, 0), None);
        assert_eq!(align_i64(33, 32), Some(64));
        assert_eq!(align_i64(i64::MAX, 2), None);
    }
}
