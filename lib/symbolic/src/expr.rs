//! Canonical form of symbolic integer expressions and the constructors that keep it.
//!
//! An [`Expr`] is a polynomial with `i64` coefficients whose variables are *atoms*:
//! symbols and the non-polynomial operations (floor/ceil division, floor modulo, min,
//! max, align) applied to canonical arguments. Every constructor re-establishes the
//! canonical form, so derived structural equality and ordering are meaningful.
//!
//! Coefficient arithmetic is checked. When an exact result does not fit in `i64` the
//! operation is kept unevaluated as an opaque `Add`/`Mul`/`Neg` atom instead of
//! panicking; evaluating such an expression reports the overflow (or succeeds when
//! the concrete values fit).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::{Add, Mul, Neg, Sub};
use std::sync::Arc;

use crate::eval::{align_i64, ceil_div_i64, floor_div_i64, mod_i64};
use crate::parse::ParseError;

/// The most terms a product of sums is expanded into (see `Expr::mul_terms`).
pub(crate) const MAX_EXPANDED_TERMS: usize = 4096;

/// A symbolic integer expression in canonical form.
///
/// Build one with [`Expr::constant`], [`Expr::symbol`], [`Expr::parse`] and the
/// arithmetic operators / methods. `Display` prints text that [`Expr::parse`] turns
/// back into an equal `Expr`.
///
/// Note: `Expr` implements [`Ord`], whose by-value `min`/`max` win method lookup on an
/// owned receiver; call the symbolic versions as `Expr::min(&a, &b)` or `(&a).min(&b)`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Expr {
    /// Monomial -> non-zero coefficient. The constant term uses the empty monomial.
    /// Shared: expressions are immutable and cloned far more often than built (every
    /// view of every node holds several), so a clone is a reference count.
    pub(crate) terms: Arc<BTreeMap<Monomial, i64>>,
}

/// A product of atoms with positive exponents, sorted by atom, atoms unique.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct Monomial(pub(crate) Vec<(Atom, u32)>);

/// A variable of the polynomial: a symbol or a non-polynomial operation.
///
/// The variant order is part of the canonical order (symbols sort before calls).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) enum Atom {
    Sym(String),
    FloorDiv(Expr, Expr),
    CeilDiv(Expr, Expr),
    Mod(Expr, Expr),
    Align(Expr, Expr),
    /// At least two arguments, sorted and deduplicated.
    Min(Vec<Expr>),
    /// At least two arguments, sorted and deduplicated.
    Max(Vec<Expr>),
    /// `a + b` whose coefficients overflowed; operands sorted.
    Add(Expr, Expr),
    /// `a * b` whose coefficients overflowed; operands sorted.
    Mul(Expr, Expr),
    /// `-a` whose coefficients overflowed.
    Neg(Expr),
}

/// Which division-like operation a [`Expr::divide`] call builds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DivKind {
    Floor,
    Ceil,
    Mod,
    Align,
}

impl DivKind {
    fn atom(self, num: Expr, den: Expr) -> Atom {
        match self {
            DivKind::Floor => Atom::FloorDiv(num, den),
            DivKind::Ceil => Atom::CeilDiv(num, den),
            DivKind::Mod => Atom::Mod(num, den),
            DivKind::Align => Atom::Align(num, den),
        }
    }

    fn fold(self, num: i64, den: i64) -> Option<i64> {
        match self {
            DivKind::Floor => floor_div_i64(num, den),
            DivKind::Ceil => ceil_div_i64(num, den),
            DivKind::Mod => mod_i64(num, den),
            DivKind::Align => align_i64(num, den),
        }
    }
}

/// `num = den * quotient + factor * rest` and `den = factor * reduced_den`, where no
/// term of `rest` is divisible by `reduced_den`, `rest` and `reduced_den` share no
/// common factor and `reduced_den` has a positive leading coefficient.
struct DivParts {
    quotient: Expr,
    rest: Expr,
    reduced_den: Expr,
    factor: Expr,
}

/// Whether `name` is a valid symbol name: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_valid_symbol_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Monomial {
    pub(crate) fn one() -> Monomial {
        Monomial(Vec::new())
    }

    pub(crate) fn is_one(&self) -> bool {
        self.0.is_empty()
    }

    fn of(atom: Atom) -> Monomial {
        Monomial(vec![(atom, 1)])
    }

    /// Product of two monomials; `None` if an exponent overflows.
    fn mul(&self, other: &Monomial) -> Option<Monomial> {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    out.push(b[j].clone());
                    j += 1;
                }
                Ordering::Equal => {
                    out.push((a[i].0.clone(), a[i].1.checked_add(b[j].1)?));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Some(Monomial(out))
    }

    fn exponent_of(&self, atom: &Atom) -> u32 {
        self.0
            .binary_search_by(|(a, _)| a.cmp(atom))
            .map_or(0, |k| self.0[k].1)
    }

    /// Whether `self` divides `other` exponent-wise.
    pub(crate) fn divides(&self, other: &Monomial) -> bool {
        self.0.iter().all(|(a, e)| other.exponent_of(a) >= *e)
    }

    /// `self / by`; callers make sure `by` divides `self`.
    pub(crate) fn div(&self, by: &Monomial) -> Monomial {
        Monomial(
            self.0
                .iter()
                .filter_map(|(a, e)| {
                    let rest = e.saturating_sub(by.exponent_of(a));
                    (rest > 0).then(|| (a.clone(), rest))
                })
                .collect(),
        )
    }

    /// Greatest common monomial divisor.
    fn gcd(&self, other: &Monomial) -> Monomial {
        Monomial(
            self.0
                .iter()
                .filter_map(|(a, e)| {
                    let common = (*e).min(other.exponent_of(a));
                    (common > 0).then(|| (a.clone(), common))
                })
                .collect(),
        )
    }
}

impl Expr {
    pub(crate) fn zero() -> Expr {
        Expr {
            terms: Arc::new(BTreeMap::new()),
        }
    }

    /// The integer constant `value`.
    pub fn constant(value: i64) -> Expr {
        // Small constants (zero strides, unit sizes, dtype widths) are built very often:
        // they share one allocation each.
        const SMALL: std::ops::RangeInclusive<i64> = -1..=8;
        static SMALL_CONSTANTS: std::sync::LazyLock<Vec<Expr>> = std::sync::LazyLock::new(|| {
            SMALL.map(|v| Expr::from_term(Monomial::one(), v)).collect()
        });
        if SMALL.contains(&value) {
            return SMALL_CONSTANTS[(value - SMALL.start()) as usize].clone();
        }
        Expr::from_term(Monomial::one(), value)
    }

    /// The symbol `name`.
    ///
    /// # Panics
    /// If `name` is not of the form `[A-Za-z_][A-Za-z0-9_]*`; such a name could not be
    /// printed back as parseable text or C. Use [`Expr::try_symbol`] for names that come
    /// from user input.
    pub fn symbol(name: &str) -> Expr {
        assert!(
            is_valid_symbol_name(name),
            "invalid symbol name {name:?}: expected [A-Za-z_][A-Za-z0-9_]*"
        );
        Expr::sym_unchecked(name)
    }

    /// The symbol `name`, or an error if it is not a valid name.
    pub fn try_symbol(name: &str) -> Result<Expr, ParseError> {
        if is_valid_symbol_name(name) {
            Ok(Expr::sym_unchecked(name))
        } else {
            Err(ParseError::new(
                0,
                format!("invalid symbol name '{name}': expected [A-Za-z_][A-Za-z0-9_]*"),
            ))
        }
    }

    pub(crate) fn sym_unchecked(name: &str) -> Expr {
        Expr::from_atom(Atom::Sym(name.to_owned()))
    }

    pub(crate) fn from_atom(atom: Atom) -> Expr {
        Expr::from_term(Monomial::of(atom), 1)
    }

    pub(crate) fn from_term(mono: Monomial, coef: i64) -> Expr {
        let mut terms = BTreeMap::new();
        if coef != 0 {
            terms.insert(mono, coef);
        }
        Expr {
            terms: Arc::new(terms),
        }
    }

    /// The value of a constant expression.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self
                .terms
                .iter()
                .next()
                .and_then(|(m, c)| m.is_one().then_some(*c)),
            _ => None,
        }
    }

    /// The name of an expression that is exactly one symbol.
    pub fn as_symbol(&self) -> Option<&str> {
        match self.single_atom() {
            Some(Atom::Sym(name)) => Some(name),
            _ => None,
        }
    }

    /// Whether the expression is an integer constant.
    pub fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    fn is_one(&self) -> bool {
        self.as_const() == Some(1)
    }

    /// The only term, if the polynomial has exactly one.
    pub(crate) fn single_term(&self) -> Option<(&Monomial, i64)> {
        if self.terms.len() == 1 {
            self.terms.iter().next().map(|(m, c)| (m, *c))
        } else {
            None
        }
    }

    /// The atom, if the expression is exactly one atom with coefficient and exponent 1.
    pub(crate) fn single_atom(&self) -> Option<&Atom> {
        match self.single_term() {
            Some((m, 1)) if m.0.len() == 1 && m.0[0].1 == 1 => Some(&m.0[0].0),
            _ => None,
        }
    }

    fn leading_coef(&self) -> i64 {
        self.terms.values().next().copied().unwrap_or(0)
    }

    /// The names of all symbols occurring anywhere in the expression.
    pub fn symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    /// Adds the names of the expression's symbols to `out` (no allocation for names
    /// already there).
    pub fn collect_symbols(&self, out: &mut BTreeSet<String>) {
        for mono in self.terms.keys() {
            for (atom, _) in &mono.0 {
                match atom {
                    Atom::Sym(name) => {
                        if !out.contains(name) {
                            out.insert(name.clone());
                        }
                    }
                    _ => atom.args().for_each(|a| a.collect_symbols(out)),
                }
            }
        }
    }

    // ----------------------------------------------------------------- arithmetic

    /// `self + sign * rhs` on coefficients; `None` if a coefficient leaves `i64`.
    fn combine(&self, rhs: &Expr, sign: i128) -> Option<Expr> {
        let mut terms = (*self.terms).clone();
        for (m, &c) in rhs.terms.iter() {
            let old = i128::from(terms.get(m).copied().unwrap_or(0));
            let new = i64::try_from(old + sign * i128::from(c)).ok()?;
            if new == 0 {
                terms.remove(m);
            } else {
                terms.insert(m.clone(), new);
            }
        }
        Some(Expr {
            terms: Arc::new(terms),
        })
    }

    fn scale(&self, k: i64) -> Option<Expr> {
        if k == 0 {
            return Some(Expr::zero());
        }
        let mut terms = BTreeMap::new();
        for (m, &c) in self.terms.iter() {
            terms.insert(m.clone(), c.checked_mul(k)?);
        }
        Some(Expr {
            terms: Arc::new(terms),
        })
    }

    fn checked_neg(&self) -> Option<Expr> {
        self.scale(-1)
    }

    fn mul_terms(&self, rhs: &Expr) -> Option<Expr> {
        if let Some(k) = self.as_const() {
            return rhs.scale(k);
        }
        if let Some(k) = rhs.as_const() {
            return self.scale(k);
        }
        // Expanding a product of sums multiplies their term counts: past the limit the
        // product stays an opaque `Mul` (as on overflow), so `(a+b+1)*(c+d+1)*...` costs
        // linear, not exponential, time and memory.
        if self.terms.len().saturating_mul(rhs.terms.len()) > MAX_EXPANDED_TERMS {
            return None;
        }
        // i128 accumulation makes overflow detection independent of term order.
        let mut acc: BTreeMap<Monomial, i128> = BTreeMap::new();
        for (ma, &ca) in self.terms.iter() {
            for (mb, &cb) in rhs.terms.iter() {
                let slot = acc.entry(ma.mul(mb)?).or_insert(0);
                *slot = slot.checked_add(i128::from(ca) * i128::from(cb))?;
            }
        }
        let mut terms = BTreeMap::new();
        for (m, c) in acc {
            if c != 0 {
                terms.insert(m, i64::try_from(c).ok()?);
            }
        }
        Some(Expr {
            terms: Arc::new(terms),
        })
    }

    fn opaque_pair(a: &Expr, b: &Expr) -> (Expr, Expr) {
        if a <= b {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        }
    }

    /// The number of terms (monomials with their coefficients) of the polynomial: the
    /// length of its printed sum.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// The number of nodes the printed tree of this expression has (terms, atoms and the
    /// arguments of every operation, each shared subexpression counted where it
    /// prints), or `None` once that number passes `budget`. Printing is linear in this
    /// count; the walk stops at the budget, so the call is O(budget) at most.
    pub fn printed_nodes_within(&self, budget: usize) -> Option<usize> {
        let mut remaining = budget;
        self.spend_printed_nodes(&mut remaining)?;
        Some(budget - remaining)
    }

    fn spend_printed_nodes(&self, remaining: &mut usize) -> Option<()> {
        for mono in self.terms.keys() {
            *remaining = remaining.checked_sub(1)?;
            for (atom, _) in &mono.0 {
                *remaining = remaining.checked_sub(1)?;
                for arg in atom.args() {
                    arg.spend_printed_nodes(remaining)?;
                }
            }
        }
        Some(())
    }

    /// `*self = self + sign * rhs` (`sign` 1 or -1), in place when `self` is not shared:
    /// a sum of n terms is accumulated in O(n log n), not O(n^2) copies of the terms.
    /// The result is that of [`Expr::add_expr`] / [`Expr::sub_expr`].
    pub(crate) fn accumulate(&mut self, rhs: &Expr, sign: i128) {
        let fits = rhs.terms.iter().all(|(m, &c)| {
            let old = i128::from(self.terms.get(m).copied().unwrap_or(0));
            i64::try_from(old + sign * i128::from(c)).is_ok()
        });
        if !fits {
            *self = if sign < 0 {
                self.sub_expr(rhs)
            } else {
                self.add_expr(rhs)
            };
            return;
        }
        let terms = Arc::make_mut(&mut self.terms);
        for (m, &c) in rhs.terms.iter() {
            let old = i128::from(terms.get(m).copied().unwrap_or(0));
            // Checked above; a coefficient that would not fit is never written.
            let new = i64::try_from(old + sign * i128::from(c)).unwrap_or(0);
            if new == 0 {
                terms.remove(m);
            } else {
                terms.insert(m.clone(), new);
            }
        }
    }

    pub(crate) fn add_expr(&self, rhs: &Expr) -> Expr {
        self.combine(rhs, 1).unwrap_or_else(|| {
            let (a, b) = Expr::opaque_pair(self, rhs);
            Expr::from_atom(Atom::Add(a, b))
        })
    }

    pub(crate) fn sub_expr(&self, rhs: &Expr) -> Expr {
        self.combine(rhs, -1)
            .unwrap_or_else(|| self.add_expr(&rhs.neg_expr()))
    }

    pub(crate) fn neg_expr(&self) -> Expr {
        self.checked_neg()
            .unwrap_or_else(|| Expr::from_atom(Atom::Neg(self.clone())))
    }

    pub(crate) fn mul_expr(&self, rhs: &Expr) -> Expr {
        self.mul_terms(rhs).unwrap_or_else(|| {
            let (a, b) = Expr::opaque_pair(self, rhs);
            Expr::from_atom(Atom::Mul(a, b))
        })
    }

    fn pow_expr(&self, exp: u32) -> Expr {
        let mut out = Expr::constant(1);
        for _ in 0..exp {
            out = out.mul_expr(self);
        }
        out
    }

    // ------------------------------------------------------------------- division

    /// Every coefficient divided by `k` and every monomial by `mono`; callers make sure
    /// the division is exact.
    fn div_exact_term(&self, mono: &Monomial, k: i64) -> Option<Expr> {
        let mut terms = BTreeMap::new();
        for (m, &c) in self.terms.iter() {
            terms.insert(m.div(mono), c.checked_div(k)?);
        }
        Some(Expr {
            terms: Arc::new(terms),
        })
    }

    /// `q` with `self == q * den` for a multi-term `den`, if there is one.
    fn exact_multiple_of(&self, den: &Expr) -> Option<i64> {
        if self.terms.len() != den.terms.len() {
            return None;
        }
        let (m0, &d0) = den.terms.iter().next()?;
        let n0 = *self.terms.get(m0)?;
        if n0.checked_rem(d0)? != 0 {
            return None;
        }
        let q = n0.checked_div(d0)?;
        for (m, &d) in den.terms.iter() {
            if self.terms.get(m).copied() != Some(d.checked_mul(q)?) {
                return None;
            }
        }
        Some(q)
    }

    /// Pulls the exactly divisible part out of `self / den` and cancels common factors.
    ///
    /// Sound for floor/ceil division, floor modulo and align because `den * X` is an
    /// integer multiple of `den` and a non-zero common factor cancels in the real
    /// quotient. `None` when nothing can be said (zero divisor, coefficient overflow).
    fn split_division(&self, den: &Expr) -> Option<DivParts> {
        if den.is_zero() {
            return None;
        }
        let (quotient, rest) = if let Some((dm, dk)) = den.single_term() {
            let mut q = BTreeMap::new();
            let mut r = BTreeMap::new();
            for (m, &c) in self.terms.iter() {
                if dm.divides(m) && c.checked_rem(dk) == Some(0) {
                    q.insert(m.div(dm), c.checked_div(dk)?);
                } else {
                    r.insert(m.clone(), c);
                }
            }
            (Expr { terms: Arc::new(q) }, Expr { terms: Arc::new(r) })
        } else if let Some(q) = self.exact_multiple_of(den) {
            (Expr::constant(q), Expr::zero())
        } else {
            (Expr::zero(), self.clone())
        };
        if rest.is_zero() {
            return Some(DivParts {
                quotient,
                rest,
                reduced_den: den.clone(),
                factor: Expr::constant(1),
            });
        }
        let mut g_int = 0u64;
        let mut g_mono: Option<Monomial> = None;
        for (m, &c) in rest.terms.iter().chain(den.terms.iter()) {
            g_int = gcd_u64(g_int, c.unsigned_abs());
            g_mono = Some(match g_mono {
                None => m.clone(),
                Some(g) => g.gcd(m),
            });
        }
        // A common factor of 2^63 does not fit an i64 coefficient; leave it uncancelled.
        let g_int = i64::try_from(g_int).unwrap_or(1);
        let g_mono = g_mono.unwrap_or_else(Monomial::one);
        let mut rest = rest.div_exact_term(&g_mono, g_int)?;
        let mut reduced_den = den.div_exact_term(&g_mono, g_int)?;
        let mut factor = Expr::from_term(g_mono, g_int);
        if reduced_den.leading_coef() < 0 {
            rest = rest.checked_neg()?;
            reduced_den = reduced_den.checked_neg()?;
            factor = factor.checked_neg()?;
        }
        Some(DivParts {
            quotient,
            rest,
            reduced_den,
            factor,
        })
    }

    /// The operation applied to an already reduced numerator/divisor pair.
    fn div_core(kind: DivKind, num: Expr, den: Expr) -> Expr {
        if num.is_zero() {
            return Expr::zero();
        }
        if den.is_one() {
            return if kind == DivKind::Mod {
                Expr::zero()
            } else {
                num
            };
        }
        if let (Some(n), Some(d)) = (num.as_const(), den.as_const()) {
            if let Some(v) = kind.fold(n, d) {
                return Expr::constant(v);
            }
        }
        if let Some(merged) = Expr::merge_nested_division(kind, &num, &den) {
            return merged;
        }
        Expr::from_atom(kind.atom(num, den))
    }

    /// `floor(floor(a / b) / c)` as `floor(a / (b * c))`, and the same for ceil, when `b`
    /// and `c` are positive constants (true for integer `a`: both sides count the whole
    /// multiples of `b * c` in `a`). A chain of strided windows (convolutions, pools)
    /// writes its output size nested; a front end (sympy) writes it merged, and the two
    /// must be the same dim.
    fn merge_nested_division(kind: DivKind, num: &Expr, den: &Expr) -> Option<Expr> {
        let outer = den.as_const().filter(|&c| c > 0)?;
        let (inner_num, inner_den) = match (kind, num.single_atom()?) {
            (DivKind::Floor, Atom::FloorDiv(a, b)) | (DivKind::Ceil, Atom::CeilDiv(a, b)) => (a, b),
            _ => return None,
        };
        let inner = inner_den.as_const().filter(|&b| b > 0)?;
        let merged = Expr::constant(inner.checked_mul(outer)?);
        Some(inner_num.divide(&merged, kind))
    }

    fn divide(&self, den: &Expr, kind: DivKind) -> Expr {
        if let (Some(n), Some(d)) = (self.as_const(), den.as_const()) {
            if let Some(v) = kind.fold(n, d) {
                return Expr::constant(v);
            }
        }
        let Some(parts) = self.split_division(den) else {
            // Kept verbatim so that evaluation reports the division by zero / overflow.
            return Expr::from_atom(kind.atom(self.clone(), den.clone()));
        };
        let core = Expr::div_core(kind, parts.rest, parts.reduced_den);
        match kind {
            DivKind::Floor | DivKind::Ceil => parts.quotient.add_expr(&core),
            DivKind::Mod => parts.factor.mul_expr(&core),
            DivKind::Align => den
                .mul_expr(&parts.quotient)
                .add_expr(&parts.factor.mul_expr(&core)),
        }
    }

    /// Floor division `floor(self / rhs)`.
    ///
    /// Simplification assumes the divisor is non-zero (as tensor sizes are); a literal
    /// zero divisor is kept so that evaluation reports it.
    pub fn floor_div(&self, rhs: &Expr) -> Expr {
        self.divide(rhs, DivKind::Floor)
    }

    /// Ceiling division `ceil(self / rhs)`.
    pub fn ceil_div(&self, rhs: &Expr) -> Expr {
        self.divide(rhs, DivKind::Ceil)
    }

    /// Floor modulo: `self - rhs * floor(self / rhs)`, with the sign of the divisor.
    pub fn modulo(&self, rhs: &Expr) -> Expr {
        self.divide(rhs, DivKind::Mod)
    }

    /// `self` rounded up to a multiple of `rhs`: `ceil(self / rhs) * rhs`.
    pub fn align(&self, rhs: &Expr) -> Expr {
        self.divide(rhs, DivKind::Align)
    }

    // ----------------------------------------------------------------- min / max

    /// Symbolic minimum of two expressions.
    pub fn min(&self, rhs: &Expr) -> Expr {
        Expr::min_max(vec![self.clone(), rhs.clone()], true)
    }

    /// Symbolic maximum of two expressions.
    pub fn max(&self, rhs: &Expr) -> Expr {
        Expr::min_max(vec![self.clone(), rhs.clone()], false)
    }

    /// Minimum of any number of expressions; `None` for an empty list.
    pub fn min_of(args: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        let args: Vec<Expr> = args.into_iter().collect();
        (!args.is_empty()).then(|| Expr::min_max(args, true))
    }

    /// Maximum of any number of expressions; `None` for an empty list.
    pub fn max_of(args: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        let args: Vec<Expr> = args.into_iter().collect();
        (!args.is_empty()).then(|| Expr::min_max(args, false))
    }

    /// Canonical n-ary min (`is_min`) or max; `args` must not be empty.
    fn min_max(args: Vec<Expr>, is_min: bool) -> Expr {
        let mut flat = Vec::with_capacity(args.len());
        for arg in args {
            match arg.single_atom() {
                Some(Atom::Min(inner)) if is_min => flat.extend(inner.iter().cloned()),
                Some(Atom::Max(inner)) if !is_min => flat.extend(inner.iter().cloned()),
                _ => flat.push(arg),
            }
        }
        let mut folded: Option<i64> = None;
        let mut items = Vec::with_capacity(flat.len());
        for arg in flat {
            match arg.as_const() {
                Some(c) => {
                    folded = Some(match folded {
                        None => c,
                        Some(k) if is_min => k.min(c),
                        Some(k) => k.max(c),
                    });
                }
                None => items.push(arg),
            }
        }
        items.extend(folded.map(Expr::constant));
        // Constant last reads naturally (`min(s0, 128)`); any fixed order is canonical.
        items.sort_by(|a, b| (a.is_const(), a).cmp(&(b.is_const(), b)));
        items.dedup();
        // Of arguments that differ by a constant only the extreme one can matter.
        let mut keep = vec![true; items.len()];
        for i in 0..items.len() {
            for j in 0..items.len() {
                if i == j || !keep[i] || !keep[j] {
                    continue;
                }
                if let Some(c) = items[i].sub_expr(&items[j]).as_const() {
                    if (is_min && c > 0) || (!is_min && c < 0) {
                        keep[i] = false;
                    }
                }
            }
        }
        let mut kept: Vec<Expr> = items
            .into_iter()
            .zip(keep)
            .filter_map(|(e, k)| k.then_some(e))
            .collect();
        match kept.len() {
            0 => Expr::zero(),
            1 => kept.pop().unwrap_or_else(Expr::zero),
            _ if is_min => Expr::from_atom(Atom::Min(kept)),
            _ => Expr::from_atom(Atom::Max(kept)),
        }
    }

    // --------------------------------------------------------------- rebuilding

    /// Rebuilds the polynomial with each atom replaced by `f(atom)`, re-canonicalizing.
    pub(crate) fn rebuild(&self, f: &mut dyn FnMut(&Atom) -> Expr) -> Expr {
        let mut acc = Expr::zero();
        for (mono, &c) in self.terms.iter() {
            let mut term = Expr::constant(c);
            for (atom, exp) in &mono.0 {
                term = term.mul_expr(&f(atom).pow_expr(*exp));
            }
            acc = acc.add_expr(&term);
        }
        acc
    }

    /// The same value with divisor multiples of divisions spelled through modulo:
    /// `b*q*floor(a/b) -> q*(a - mod(a, b))`, `b*q*ceil(a/b) -> q*(a + mod(-a, b))`,
    /// `align(a, b) -> a + mod(-a, b)` (exact for non-zero `b`).
    ///
    /// Not canonical, but interval bounds of the result keep the dependency between
    /// `a` and the division, so `align(s0, 32) - s0` is seen to lie in `[0, 31]`.
    pub(crate) fn divisions_as_modulo(&self) -> Expr {
        let has_division = |mono: &Monomial| {
            mono.0.iter().any(|(atom, _)| {
                matches!(
                    atom,
                    Atom::Align(..) | Atom::FloorDiv(..) | Atom::CeilDiv(..)
                )
            })
        };
        // Most sizes hold no division: the rewrite would rebuild them term by term.
        if !self.terms.keys().any(has_division) {
            return self.clone();
        }
        let mut acc = Expr::zero();
        for (mono, &coef) in self.terms.iter() {
            acc.accumulate(&Expr::term_as_modulo(mono, coef), 1);
        }
        acc
    }

    fn term_as_modulo(mono: &Monomial, coef: i64) -> Expr {
        for (atom, _) in &mono.0 {
            let single = Monomial::of(atom.clone());
            let cofactor = Expr::from_term(mono.div(&single), coef);
            let rewritten = match atom {
                Atom::Align(a, b) => Some(cofactor.mul_expr(&a.add_expr(&a.neg_expr().modulo(b)))),
                Atom::FloorDiv(a, b) => cofactor
                    .exact_quotient(b)
                    .map(|q| q.mul_expr(&a.sub_expr(&a.modulo(b)))),
                Atom::CeilDiv(a, b) => cofactor
                    .exact_quotient(b)
                    .map(|q| q.mul_expr(&a.add_expr(&a.neg_expr().modulo(b)))),
                _ => None,
            };
            if let Some(e) = rewritten {
                return e;
            }
        }
        Expr::from_term(mono.clone(), coef)
    }

    /// `self / den` for a single-term `self` exactly divisible by a single-term `den`.
    fn exact_quotient(&self, den: &Expr) -> Option<Expr> {
        let (m, c) = self.single_term()?;
        let (dm, dk) = den.single_term()?;
        if !dm.divides(m) || c.checked_rem(dk)? != 0 {
            return None;
        }
        Some(Expr::from_term(m.div(dm), c.checked_div(dk)?))
    }

    /// Replaces symbols by expressions; the result is re-canonicalized.
    pub fn substitute(&self, map: &HashMap<String, Expr>) -> Expr {
        self.rebuild(&mut |atom| match atom {
            Atom::Sym(name) => map
                .get(name)
                .cloned()
                .unwrap_or_else(|| Expr::from_atom(atom.clone())),
            other => other.map_args(&mut |arg| arg.substitute(map)),
        })
    }
}

impl Atom {
    /// The argument expressions of the atom, in order (none for a symbol).
    pub(crate) fn args(&self) -> impl Iterator<Item = &Expr> {
        let (first, second, list): (Option<&Expr>, Option<&Expr>, &[Expr]) = match self {
            Atom::Sym(_) => (None, None, &[]),
            Atom::FloorDiv(a, b)
            | Atom::CeilDiv(a, b)
            | Atom::Mod(a, b)
            | Atom::Align(a, b)
            | Atom::Add(a, b)
            | Atom::Mul(a, b) => (Some(a), Some(b), &[]),
            Atom::Neg(a) => (Some(a), None, &[]),
            Atom::Min(args) | Atom::Max(args) => (None, None, args),
        };
        first.into_iter().chain(second).chain(list)
    }

    /// Rebuilds the atom from its arguments mapped through `f`, re-canonicalizing.
    pub(crate) fn map_args(&self, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
        match self {
            Atom::Sym(_) => Expr::from_atom(self.clone()),
            Atom::FloorDiv(a, b) => f(a).floor_div(&f(b)),
            Atom::CeilDiv(a, b) => f(a).ceil_div(&f(b)),
            Atom::Mod(a, b) => f(a).modulo(&f(b)),
            Atom::Align(a, b) => f(a).align(&f(b)),
            Atom::Min(args) => Expr::min_max(args.iter().map(&mut *f).collect(), true),
            Atom::Max(args) => Expr::min_max(args.iter().map(&mut *f).collect(), false),
            Atom::Add(a, b) => f(a).add_expr(&f(b)),
            Atom::Mul(a, b) => f(a).mul_expr(&f(b)),
            Atom::Neg(a) => f(a).neg_expr(),
        }
    }
}

impl From<i64> for Expr {
    fn from(value: i64) -> Expr {
        Expr::constant(value)
    }
}

macro_rules! expr_binop {
    ($trait:ident, $method:ident, $imp:ident) => {
        impl $trait<Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                self.$imp(&rhs)
            }
        }
        impl $trait<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                self.$imp(rhs)
            }
        }
        impl $trait<Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                self.$imp(&rhs)
            }
        }
        impl $trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                self.$imp(rhs)
            }
        }
        impl $trait<i64> for Expr {
            type Output = Expr;
            fn $method(self, rhs: i64) -> Expr {
                self.$imp(&Expr::constant(rhs))
            }
        }
        impl $trait<i64> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: i64) -> Expr {
                self.$imp(&Expr::constant(rhs))
            }
        }
    };
}

expr_binop!(Add, add, add_expr);
expr_binop!(Sub, sub, sub_expr);
expr_binop!(Mul, mul, mul_expr);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.neg_expr()
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.neg_expr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str) -> Expr {
        Expr::symbol(name)
    }

    #[test]
    fn monomial_division_and_gcd() {
        let a = (s("a") * s("a") * s("b")).terms.keys().next().cloned();
        let b = (s("a") * s("b")).terms.keys().next().cloned();
        let (Some(a), Some(b)) = (a, b) else {
            panic!("single-term products must have one monomial");
        };
        assert!(b.divides(&a));
        assert!(!a.divides(&b));
        assert_eq!(a.div(&b), Monomial::of(Atom::Sym("a".into())));
        assert_eq!(a.gcd(&b), b);
    }

    /// A product of 12 sums of 3 terms would expand into 3^12 = 531441 terms (hostile
    /// shapes made the compiler hang); past `MAX_EXPANDED_TERMS` it stays opaque.
    #[test]
    fn products_of_sums_expand_to_a_bounded_number_of_terms() {
        let mut product = Expr::constant(1);
        for i in 0..12 {
            product = product * (s(&format!("a{i}")) + s(&format!("b{i}")) + 1);
            assert!(product.terms.len() <= MAX_EXPANDED_TERMS);
        }
        let values: HashMap<String, i64> = (0..12)
            .flat_map(|i| [(format!("a{i}"), 1), (format!("b{i}"), 2)])
            .collect();
        assert_eq!(product.eval_map(&values).ok(), Some(4i64.pow(12)));
    }

    /// Two stride-2 windows after a stride-2 window: the nested and the merged sizes
    /// are one expression, checked against integer division for every small value.
    #[test]
    fn nested_floor_and_ceil_divisions_by_constants_merge() {
        let x = s("x") - 1;
        let nested = x
            .floor_div(&Expr::constant(4))
            .floor_div(&Expr::constant(2));
        assert_eq!(nested, x.floor_div(&Expr::constant(8)));
        let nested_ceil = x.ceil_div(&Expr::constant(3)).ceil_div(&Expr::constant(5));
        assert_eq!(nested_ceil, x.ceil_div(&Expr::constant(15)));
        for v in -40i64..40 {
            let values: HashMap<String, i64> = [("x".to_string(), v)].into_iter().collect();
            let want = ((v - 1).div_euclid(4)).div_euclid(2);
            assert_eq!(nested.eval_map(&values).ok(), Some(want), "x = {v}");
            let up = |a: i64, b: i64| -((-a).div_euclid(b));
            assert_eq!(
                nested_ceil.eval_map(&values).ok(),
                Some(up(up(v - 1, 3), 5)),
                "x = {v}"
            );
        }
        // A symbolic inner divisor stays nested (its sign is unknown).
        let kept = s("x").floor_div(&s("y")).floor_div(&Expr::constant(2));
        assert_ne!(kept, s("x").floor_div(&(s("y") * 2)));
    }

    #[test]
    fn coefficient_overflow_becomes_opaque_not_panic() {
        let big = Expr::constant(i64::MAX);
        let sum = &big + 1;
        assert!(!sum.is_const());
        assert!(matches!(sum.single_atom(), Some(Atom::Add(_, _))));
        let prod = &big * 2;
        assert!(matches!(prod.single_atom(), Some(Atom::Mul(_, _))));
        let neg = -Expr::constant(i64::MIN);
        assert!(matches!(neg.single_atom(), Some(Atom::Neg(_))));
        // Cancellation that stays in range is still exact.
        assert_eq!(&big - &big, Expr::constant(0));
        assert_eq!(
            Expr::constant(i64::MIN) - Expr::constant(i64::MIN),
            Expr::constant(0)
        );
    }

    #[test]
    fn split_division_cancels_common_factors() {
        // floor((2*a*b + 4*a) / (6*a)) keeps no common factor and no divisible term.
        let num = s("a") * s("b") * 2 + s("a") * 4;
        let den = s("a") * 6;
        let Some(parts) = num.split_division(&den) else {
            panic!("non-zero divisor must split");
        };
        assert_eq!(parts.quotient, Expr::constant(0));
        assert_eq!(parts.rest, s("b") + 2);
        assert_eq!(parts.reduced_den, Expr::constant(3));
        assert_eq!(parts.factor, s("a") * 2);
    }
}
