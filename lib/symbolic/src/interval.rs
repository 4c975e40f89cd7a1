//! Conservative integer interval arithmetic over canonical expressions.
//!
//! Used by `ShapeEnv` to bound expressions from symbol ranges. Every operation
//! over-approximates: the true value of an expression (when it evaluates without
//! error) always lies inside the computed interval. Bounds are `i128` with explicit
//! infinities so that intermediate results near the `i64` limits stay exact; any
//! `i128` overflow widens the result to the whole line.

use crate::expr::{Atom, Expr};

/// An extended integer: a finite value or an infinity.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Ext {
    NegInf,
    Fin(i128),
    PosInf,
}

impl Ext {
    fn add(self, o: Ext) -> Option<Ext> {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_add(b).map(Ext::Fin),
            (Ext::NegInf, Ext::PosInf) | (Ext::PosInf, Ext::NegInf) => None,
            (Ext::NegInf, _) | (_, Ext::NegInf) => Some(Ext::NegInf),
            (Ext::PosInf, _) | (_, Ext::PosInf) => Some(Ext::PosInf),
        }
    }

    fn signum(self) -> i128 {
        match self {
            Ext::NegInf => -1,
            Ext::Fin(a) => a.signum(),
            Ext::PosInf => 1,
        }
    }

    /// Product where `0 * inf == 0`, which is right for bounds of finite values.
    fn mul(self, o: Ext) -> Option<Ext> {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => a.checked_mul(b).map(Ext::Fin),
            _ => Some(match self.signum() * o.signum() {
                0 => Ext::Fin(0),
                s if s > 0 => Ext::PosInf,
                _ => Ext::NegInf,
            }),
        }
    }

    fn neg(self) -> Option<Ext> {
        match self {
            Ext::NegInf => Some(Ext::PosInf),
            Ext::PosInf => Some(Ext::NegInf),
            Ext::Fin(a) => a.checked_neg().map(Ext::Fin),
        }
    }
}

/// Floor division of finite values by a positive divisor.
fn floor_div_pos(a: i128, b: i128) -> i128 {
    a.div_euclid(b)
}

/// A closed interval `[lo, hi]`; empty when `lo > hi` (contradictory assumptions).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Interval {
    pub(crate) lo: Ext,
    pub(crate) hi: Ext,
}

impl Interval {
    pub(crate) const FULL: Interval = Interval {
        lo: Ext::NegInf,
        hi: Ext::PosInf,
    };

    pub(crate) fn point(v: i128) -> Interval {
        Interval {
            lo: Ext::Fin(v),
            hi: Ext::Fin(v),
        }
    }

    pub(crate) fn new(lo: Ext, hi: Ext) -> Interval {
        Interval { lo, hi }
    }

    pub(crate) fn intersect(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    pub(crate) fn contains(self, v: i128) -> bool {
        self.lo <= Ext::Fin(v) && Ext::Fin(v) <= self.hi
    }

    fn or_full(v: Option<Interval>) -> Interval {
        v.unwrap_or(Interval::FULL)
    }

    pub(crate) fn add(self, o: Interval) -> Interval {
        Interval::or_full((|| {
            Some(Interval {
                lo: self.lo.add(o.lo)?,
                hi: self.hi.add(o.hi)?,
            })
        })())
    }

    pub(crate) fn neg(self) -> Interval {
        Interval::or_full((|| {
            Some(Interval {
                lo: self.hi.neg()?,
                hi: self.lo.neg()?,
            })
        })())
    }

    pub(crate) fn mul(self, o: Interval) -> Interval {
        Interval::or_full((|| {
            let corners = [
                self.lo.mul(o.lo)?,
                self.lo.mul(o.hi)?,
                self.hi.mul(o.lo)?,
                self.hi.mul(o.hi)?,
            ];
            Some(Interval {
                lo: corners.iter().copied().min()?,
                hi: corners.iter().copied().max()?,
            })
        })())
    }

    pub(crate) fn shift(self, c: i128) -> Interval {
        self.add(Interval::point(c))
    }

    pub(crate) fn scale(self, k: i128) -> Interval {
        self.mul(Interval::point(k))
    }

    fn pow(self, exp: u32) -> Interval {
        let mut out = Interval::point(1);
        for _ in 0..exp {
            out = out.mul(self);
        }
        if exp.is_multiple_of(2) && out.lo < Ext::Fin(0) {
            out.lo = Ext::Fin(0);
        }
        out
    }

    /// `{ v / k : v in self, k divides v }` rounded inwards, for `k > 0`: the values
    /// `x` with `k * x` in `self`.
    pub(crate) fn div_exact_pos(self, k: i128) -> Interval {
        let lo = match self.lo {
            // ceil(a / k) == -floor(-a / k); widening is the safe answer on overflow.
            Ext::Fin(a) => a
                .checked_neg()
                .and_then(|na| floor_div_pos(na, k).checked_neg())
                .map_or(Ext::NegInf, Ext::Fin),
            other => other,
        };
        let hi = match self.hi {
            Ext::Fin(b) => Ext::Fin(floor_div_pos(b, k)),
            other => other,
        };
        Interval { lo, hi }
    }

    fn floor_div(self, d: Interval) -> Interval {
        if d.lo >= Ext::Fin(1) {
            let Ext::Fin(c) = d.lo else {
                return Interval::FULL;
            };
            let lo = match self.lo {
                Ext::Fin(p) if p >= 0 => match d.hi {
                    Ext::Fin(dh) => Ext::Fin(floor_div_pos(p, dh)),
                    _ => Ext::Fin(0),
                },
                Ext::Fin(p) => Ext::Fin(floor_div_pos(p, c)),
                other => other,
            };
            let hi = match self.hi {
                Ext::Fin(q) if q >= 0 => Ext::Fin(floor_div_pos(q, c)),
                Ext::Fin(q) => match d.hi {
                    Ext::Fin(dh) => Ext::Fin(floor_div_pos(q, dh)),
                    _ => Ext::Fin(-1),
                },
                other => other,
            };
            Interval { lo, hi }
        } else if d.hi <= Ext::Fin(-1) {
            self.neg().floor_div(d.neg())
        } else {
            Interval::FULL
        }
    }

    fn ceil_div(self, d: Interval) -> Interval {
        self.neg().floor_div(d).neg()
    }

    fn modulo(self, d: Interval) -> Interval {
        if d.lo >= Ext::Fin(1) {
            let top = d.hi.add(Ext::Fin(-1)).unwrap_or(Ext::PosInf);
            if self.lo >= Ext::Fin(0) {
                if self.hi < d.lo {
                    // 0 <= a < b: the modulo is the identity.
                    return self;
                }
                return Interval::new(Ext::Fin(0), self.hi.min(top));
            }
            Interval::new(Ext::Fin(0), top)
        } else if d.hi <= Ext::Fin(-1) {
            self.neg().modulo(d.neg()).neg()
        } else {
            Interval::FULL
        }
    }

    fn align(self, d: Interval) -> Interval {
        if d.lo >= Ext::Fin(1) {
            // a <= align(a, b) <= a + b - 1
            let slack = d.hi.add(Ext::Fin(-1)).unwrap_or(Ext::PosInf);
            let hi = self.hi.add(slack).unwrap_or(Ext::PosInf);
            Interval::new(self.lo, hi).intersect(self.ceil_div(d).mul(d))
        } else if d.hi <= Ext::Fin(-1) {
            self.neg().align(d.neg()).neg()
        } else {
            self.ceil_div(d).mul(d)
        }
    }
}

/// Interval of `e`, with `sym` giving each symbol's range.
pub(crate) fn expr_interval(e: &Expr, sym: &dyn Fn(&str) -> Interval) -> Interval {
    let mut acc = Interval::point(0);
    for (mono, &coef) in e.terms.iter() {
        let mut term = Interval::point(i128::from(coef));
        for (atom, exp) in &mono.0 {
            term = term.mul(atom_interval(atom, sym).pow(*exp));
        }
        acc = acc.add(term);
    }
    acc
}

fn atom_interval(atom: &Atom, sym: &dyn Fn(&str) -> Interval) -> Interval {
    let iv = |e: &Expr| expr_interval(e, sym);
    match atom {
        Atom::Sym(name) => sym(name),
        Atom::FloorDiv(a, b) => iv(a).floor_div(iv(b)),
        Atom::CeilDiv(a, b) => iv(a).ceil_div(iv(b)),
        Atom::Mod(a, b) => iv(a).modulo(iv(b)),
        Atom::Align(a, b) => iv(a).align(iv(b)),
        Atom::Min(args) | Atom::Max(args) => {
            let is_min = matches!(atom, Atom::Min(_));
            let mut out: Option<Interval> = None;
            for arg in args {
                let v = iv(arg);
                out = Some(match out {
                    None => v,
                    Some(o) if is_min => Interval::new(o.lo.min(v.lo), o.hi.min(v.hi)),
                    Some(o) => Interval::new(o.lo.max(v.lo), o.hi.max(v.hi)),
                });
            }
            out.unwrap_or(Interval::FULL)
        }
        Atom::Add(a, b) => iv(a).add(iv(b)),
        Atom::Mul(a, b) => iv(a).mul(iv(b)),
        Atom::Neg(a) => iv(a).neg(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: i128, hi: i128) -> Interval {
        Interval::new(Ext::Fin(lo), Ext::Fin(hi))
    }

    fn from(lo: i128) -> Interval {
        Interval::new(Ext::Fin(lo), Ext::PosInf)
    }

    #[test]
    fn products_with_infinite_bounds() {
        assert_eq!(from(1).mul(from(1)), from(1));
        assert_eq!(iv(-2, 3).mul(from(1)), Interval::FULL);
        assert_eq!(iv(0, 0).mul(Interval::FULL), iv(0, 0));
        assert_eq!(iv(-2, 3).pow(2), iv(0, 9));
    }

    #[test]
    fn floor_division_bounds() {
        assert_eq!(iv(7, 20).floor_div(iv(2, 4)), iv(1, 10));
        assert_eq!(iv(-7, 5).floor_div(iv(2, 4)), iv(-4, 2));
        assert_eq!(from(1).floor_div(from(1)), from(0));
        assert_eq!(
            iv(-9, -3).floor_div(from(2)),
            Interval::new(Ext::Fin(-5), Ext::Fin(-1))
        );
        assert_eq!(iv(1, 5).floor_div(iv(-1, 1)), Interval::FULL);
        assert_eq!(iv(7, 20).ceil_div(iv(2, 4)), iv(2, 10));
    }

    #[test]
    fn modulo_and_align_bounds() {
        assert_eq!(iv(0, 3).modulo(iv(8, 8)), iv(0, 3));
        assert_eq!(from(0).modulo(iv(8, 16)), iv(0, 15));
        assert_eq!(iv(-5, 5).modulo(iv(-4, -2)), iv(-3, 0));
        assert_eq!(iv(1, 10).align(iv(4, 4)), iv(4, 12));
        assert_eq!(iv(10, 10).div_exact_pos(4), iv(3, 2));
        assert_eq!(iv(9, 17).div_exact_pos(4), iv(3, 4));
    }
}
