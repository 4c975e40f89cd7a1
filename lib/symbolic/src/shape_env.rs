//! Reasoning about symbolic sizes under declared ranges, runtime hints and guards.
//!
//! A [`ShapeEnv`] knows each symbol's range (default `[1, +inf)`) and optional hint
//! (a typical runtime value). It answers relations three-valuedly from what is known
//! for every admissible value ([`ShapeEnv::static_check`]); when that is not enough,
//! [`ShapeEnv::expect`] specializes on the hints and records an `expect` guard the
//! generated code must check, while [`ShapeEnv::assert_rel`] records facts that later
//! checks and [`ShapeEnv::simplify`] may rely on.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use crate::expr::{Atom, Expr};
use crate::interval::{expr_interval, Ext, Interval};
use crate::parse::ParseError;

/// Three-valued truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    /// `Some(bool)` when decided.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Tri::True => Some(true),
            Tri::False => Some(false),
            Tri::Unknown => None,
        }
    }
}

impl From<bool> for Tri {
    fn from(b: bool) -> Tri {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
}

/// What is known about one symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolInfo {
    pub name: String,
    /// A typical runtime value, used only to specialize (`expect`), never to prove.
    pub hint: Option<i64>,
    /// Smallest admissible value (sizes default to 1).
    pub min: i64,
    /// Largest admissible value; `None` is unbounded.
    pub max: Option<i64>,
}

impl SymbolInfo {
    /// A symbol with range `[1, +inf)` and no hint.
    pub fn new(name: &str) -> SymbolInfo {
        SymbolInfo {
            name: name.to_owned(),
            hint: None,
            min: 1,
            max: None,
        }
    }

    pub fn with_hint(mut self, hint: i64) -> SymbolInfo {
        self.hint = Some(hint);
        self
    }

    pub fn with_range(mut self, min: i64, max: Option<i64>) -> SymbolInfo {
        self.min = min;
        self.max = max;
        self
    }
}

/// Whether a guard is checked at runtime as a specialization (`Expect`) or is a
/// precondition the caller promises (`Assert`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GuardKind {
    Assert,
    Expect,
}

impl fmt::Display for GuardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GuardKind::Assert => "assert",
            GuardKind::Expect => "expect",
        })
    }
}

/// A comparison between two expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Relation {
    /// The operator text: `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Ne => "!=",
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    /// The relation that holds exactly when `self` does not.
    pub fn negate(self) -> Relation {
        match self {
            Relation::Eq => Relation::Ne,
            Relation::Ne => Relation::Eq,
            Relation::Lt => Relation::Ge,
            Relation::Le => Relation::Gt,
            Relation::Gt => Relation::Le,
            Relation::Ge => Relation::Lt,
        }
    }

    /// Whether `a self b` holds.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Relation::Eq => a == b,
            Relation::Ne => a != b,
            Relation::Lt => a < b,
            Relation::Le => a <= b,
            Relation::Gt => a > b,
            Relation::Ge => a >= b,
        }
    }

    /// The values `d` with `d self 0`, as an interval (`Ne` gives the full line; its
    /// single excluded value is tracked separately).
    fn interval_against_zero(self) -> Interval {
        match self {
            Relation::Eq => Interval::point(0),
            Relation::Ne => Interval::FULL,
            Relation::Lt => Interval::new(Ext::NegInf, Ext::Fin(-1)),
            Relation::Le => Interval::new(Ext::NegInf, Ext::Fin(0)),
            Relation::Gt => Interval::new(Ext::Fin(1), Ext::PosInf),
            Relation::Ge => Interval::new(Ext::Fin(0), Ext::PosInf),
        }
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A recorded condition `kind(lhs rel rhs)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Guard {
    pub kind: GuardKind,
    pub lhs: Expr,
    pub rel: Relation,
    pub rhs: Expr,
}

impl Guard {
    pub fn new(kind: GuardKind, lhs: &Expr, rel: Relation, rhs: &Expr) -> Guard {
        Guard {
            kind,
            lhs: lhs.clone(),
            rel,
            rhs: rhs.clone(),
        }
    }

    /// Parses the `Display` text, e.g. `expect(s1 == s3)` or `assert(s0*s1 == 4*s2)`.
    pub fn parse(text: &str) -> Result<Guard, ParseError> {
        let start = text.len() - text.trim_start().len();
        let body = text.trim();
        let (kind, after_kind) = if let Some(rest) = body.strip_prefix("expect") {
            (GuardKind::Expect, rest)
        } else if let Some(rest) = body.strip_prefix("assert") {
            (GuardKind::Assert, rest)
        } else {
            return Err(ParseError::new(start, "expected 'expect(' or 'assert('"));
        };
        let args = after_kind.trim_start();
        let open = start + body.len() - args.len();
        if !args.starts_with('(') {
            return Err(ParseError::new(
                open,
                format!("expected '(' after '{kind}'"),
            ));
        }
        if args.len() < 2 || !args.ends_with(')') {
            return Err(ParseError::new(
                start + body.len(),
                format!("expected ')' closing '{kind}('"),
            ));
        }
        let close = start + body.len() - 1;
        let inner_start = open + 1;
        let inner = &text[inner_start..close];
        let Some(op_pos) = inner.find(['<', '>', '=', '!']) else {
            return Err(ParseError::new(
                inner_start,
                "expected a relation (==, !=, <, <=, >, >=)",
            ));
        };
        let two = inner.get(op_pos..op_pos + 2).unwrap_or("");
        let (rel, op_len) = match two {
            "==" => (Relation::Eq, 2),
            "!=" => (Relation::Ne, 2),
            "<=" => (Relation::Le, 2),
            ">=" => (Relation::Ge, 2),
            _ if inner[op_pos..].starts_with('<') => (Relation::Lt, 1),
            _ if inner[op_pos..].starts_with('>') => (Relation::Gt, 1),
            _ => {
                return Err(ParseError::new(
                    inner_start + op_pos,
                    "expected a relation (==, !=, <, <=, >, >=)",
                ))
            }
        };
        let rhs_start = op_pos + op_len;
        if let Some(extra) = inner[rhs_start..].find(['<', '>', '=', '!']) {
            return Err(ParseError::new(
                inner_start + rhs_start + extra,
                "a guard has exactly one relation",
            ));
        }
        let lhs = Expr::parse(&inner[..op_pos]).map_err(|e| e.shifted(inner_start))?;
        let rhs =
            Expr::parse(&inner[rhs_start..]).map_err(|e| e.shifted(inner_start + rhs_start))?;
        Ok(Guard {
            kind,
            lhs,
            rel,
            rhs,
        })
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({} {} {})", self.kind, self.lhs, self.rel, self.rhs)
    }
}

impl FromStr for Guard {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Guard, ParseError> {
        Guard::parse(s)
    }
}

/// Why a guard could not be established.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// The condition is false (statically, or for the hinted values of an assert).
    #[error("guard violated: {0}")]
    Violated(Guard),
    /// The condition is not statically decidable and some symbol has no hint.
    #[error("cannot decide {0}: not statically known and some symbol has no hint")]
    NoHint(Guard),
}

/// `diff rel 0`, from an assert.
#[derive(Debug, Clone)]
struct Fact {
    diff: Expr,
    rel: Relation,
}

/// Rewrite `from` to `to`, from an asserted equality.
#[derive(Debug, Clone)]
struct Rule {
    from: Expr,
    to: Expr,
}

/// Bound on rewrite passes in `simplify`; rule sets that keep rewriting (which the
/// occurs check makes unlikely) stop here deterministically instead of looping.
const MAX_REWRITE_PASSES: usize = 16;

impl Rule {
    /// One top-level application of the rule to the polynomial `e`.
    fn apply(&self, e: &Expr) -> Expr {
        if let Some((fm, fk)) = self.from.single_term() {
            if !e.terms.keys().any(|m| fm.divides(m)) {
                return e.clone();
            }
            let mut acc = Expr::zero();
            for (m, &c) in e.terms.iter() {
                let quotient = (fm.divides(m) && c.checked_rem(fk) == Some(0))
                    .then(|| c.checked_div(fk))
                    .flatten();
                let term = match quotient {
                    Some(q) => Expr::from_term(m.div(fm), q) * &self.to,
                    None => Expr::from_term(m.clone(), c),
                };
                acc = acc + term;
            }
            return acc;
        }
        match contained_multiple(e, &self.from) {
            Some(k) => e - &self.from * k + &self.to * k,
            None => e.clone(),
        }
    }
}

/// `k != 0` such that every term of `f` appears in `e` multiplied by `k`.
fn contained_multiple(e: &Expr, f: &Expr) -> Option<i64> {
    let (m0, &f0) = f.terms.iter().next()?;
    let e0 = *e.terms.get(m0)?;
    if e0.checked_rem(f0)? != 0 {
        return None;
    }
    let k = e0.checked_div(f0)?;
    for (m, &fc) in f.terms.iter() {
        if e.terms.get(m).copied() != Some(fc.checked_mul(k)?) {
            return None;
        }
    }
    Some(k)
}

/// `(k, c)` with `d == k * f + c` for integers `k != 0`, `c`.
fn affine_relation(d: &Expr, f: &Expr) -> Option<(i128, i128)> {
    let const_of = |e: &Expr| {
        e.terms
            .iter()
            .find(|(m, _)| m.is_one())
            .map_or(0, |(_, c)| i128::from(*c))
    };
    let nonconst = |e: &Expr| e.terms.iter().filter(|(m, _)| !m.is_one()).count();
    if nonconst(f) == 0 || nonconst(f) != nonconst(d) {
        return None;
    }
    let (m0, &f0) = f.terms.iter().find(|(m, _)| !m.is_one())?;
    let d0 = *d.terms.get(m0)?;
    if i128::from(d0) % i128::from(f0) != 0 {
        return None;
    }
    let k = i128::from(d0) / i128::from(f0);
    for (m, &fc) in f.terms.iter().filter(|(m, _)| !m.is_one()) {
        if d.terms.get(m).map(|&c| i128::from(c)) != Some(i128::from(fc) * k) {
            return None;
        }
    }
    Some((k, const_of(d) - k * const_of(f)))
}

fn rewrite_once(rules: &[Rule], e: &Expr) -> Expr {
    let has_calls = e
        .terms
        .keys()
        .any(|m| m.0.iter().any(|(a, _)| !matches!(a, Atom::Sym(_))));
    let rebuilt = if has_calls {
        e.rebuild(&mut |atom| atom.map_args(&mut |arg| rewrite_once(rules, arg)))
    } else {
        e.clone()
    };
    rules.iter().fold(rebuilt, |acc, rule| rule.apply(&acc))
}

fn rewrite(rules: &[Rule], e: &Expr) -> Expr {
    let mut cur = e.clone();
    for _ in 0..MAX_REWRITE_PASSES {
        let next = rewrite_once(rules, &cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

fn to_option(e: Ext) -> Option<i64> {
    match e {
        Ext::Fin(v) => i64::try_from(v).ok(),
        _ => None,
    }
}

/// How many definitions [`ShapeEnv::static_check`] unfolds one at a time before it
/// expands every derived symbol: sizes of neighbouring ops (the verifier's question,
/// `d1 == d0 + s9 + ...`) cancel within them.
const UNFOLD_STEPS: usize = 2;

/// Symbol ranges, hints and recorded guards.
#[derive(Debug, Clone, Default)]
pub struct ShapeEnv {
    infos: Vec<SymbolInfo>,
    index: HashMap<String, usize>,
    guards: Vec<Guard>,
    facts: Vec<Fact>,
    rules: Vec<Rule>,
    /// Derived symbols (see [`ShapeEnv::define`]) -> (definition order, definition over
    /// symbols declared before them).
    definitions: HashMap<String, (usize, Expr)>,
    /// Derived symbols -> their definition with every derived symbol expanded, built on
    /// first need from the expansions of the symbols it uses: comparisons that the last
    /// definitions do not decide pay one substitution, not a walk down the chain, and
    /// graphs whose comparisons never need them (the verifier's) never build them.
    expansions: RefCell<HashMap<String, Expr>>,
    /// Derived symbols -> their value at the probe point ([`ShapeEnv::probe_eval`]),
    /// built on first need in definition order.
    probes: RefCell<HashMap<String, i64>>,
}

impl ShapeEnv {
    pub fn new() -> ShapeEnv {
        ShapeEnv::default()
    }

    /// Declares a symbol, replacing any earlier declaration of the same name.
    pub fn declare(&mut self, info: SymbolInfo) {
        match self.index.get(&info.name) {
            Some(&i) => self.infos[i] = info,
            None => {
                self.index.insert(info.name.clone(), self.infos.len());
                self.infos.push(info);
            }
        }
    }

    /// Declares `name` as a derived symbol: a name for `definition` (a long sum, so that
    /// types spell one symbol instead of its terms). Its range is the definition's
    /// bounds (at least 0: it names a size), its hint the definition's value under the
    /// hints; comparisons that its range leaves undecided are retried with definitions
    /// unfolded ([`ShapeEnv::static_check`]). The definition's symbols must be declared
    /// (or defined) before it; the cost is the definition's length, never the length of
    /// the sum it stands for.
    pub fn define(&mut self, name: &str, definition: &Expr) {
        let (min, max) = self.bounds(definition);
        let hint = self.hint_eval(definition);
        self.declare(SymbolInfo {
            name: name.to_owned(),
            hint,
            min: min.unwrap_or(0).max(0),
            max,
        });
        let order = self.definitions.len();
        self.definitions
            .insert(name.to_owned(), (order, definition.clone()));
        self.probes.get_mut().clear();
    }

    /// The definition of a derived symbol ([`ShapeEnv::define`]).
    pub fn definition(&self, name: &str) -> Option<&Expr> {
        self.definitions.get(name).map(|(_, e)| e)
    }

    /// The derived symbol of `e` defined last, with its definition.
    fn latest_derived(&self, e: &Expr) -> Option<(String, &Expr)> {
        e.symbols()
            .into_iter()
            .filter_map(|s| self.definitions.get(&s).map(|(order, d)| (*order, s, d)))
            .max_by_key(|(order, _, _)| *order)
            .map(|(_, s, d)| (s, d))
    }

    pub fn info(&self, name: &str) -> Option<&SymbolInfo> {
        self.index.get(name).map(|&i| &self.infos[i])
    }

    /// Declared symbols in declaration order.
    pub fn symbols(&self) -> impl Iterator<Item = &SymbolInfo> {
        self.infos.iter()
    }

    /// Sets the hint of `name`, declaring it with the default range if needed.
    pub fn set_hint(&mut self, name: &str, hint: i64) {
        match self.index.get(name) {
            Some(&i) => self.infos[i].hint = Some(hint),
            None => self.declare(SymbolInfo::new(name).with_hint(hint)),
        }
    }

    /// Guards recorded so far, in recording order.
    pub fn guards(&self) -> &[Guard] {
        &self.guards
    }

    /// Value of `e` under the hints; `None` if a needed hint is missing (even after
    /// applying asserted equalities) or evaluation fails.
    pub fn hint_eval(&self, e: &Expr) -> Option<i64> {
        let env = |name: &str| self.info(name).and_then(|i| i.hint);
        e.eval(&env)
            .ok()
            .or_else(|| self.simplify(e).eval(&env).ok())
    }

    /// Rewrites `e` with the asserted equalities.
    ///
    /// An equality in which some symbol occurs only linearly with coefficient ±1 is
    /// solved for the largest such symbol (`s1 == s3` replaces `s3` by `s1`,
    /// `s0 == floor(s1/2)` replaces `s0`); otherwise the larger canonical side is
    /// replaced by the smaller one (`s0*s1 == 4*s2` rewrites multiples of `4*s2`).
    pub fn simplify(&self, e: &Expr) -> Expr {
        if self.rules.is_empty() {
            e.clone()
        } else {
            rewrite(&self.rules, e)
        }
    }

    /// Range of a symbol from its declaration and asserted affine bounds on it.
    fn symbol_range(&self, name: &str) -> Interval {
        let mut range = match self.info(name) {
            Some(info) => Interval::new(
                Ext::Fin(i128::from(info.min)),
                info.max.map_or(Ext::PosInf, |m| Ext::Fin(i128::from(m))),
            ),
            None => Interval::new(Ext::Fin(1), Ext::PosInf),
        };
        let sym = Expr::sym_unchecked(name);
        for fact in &self.facts {
            // fact: k*sym + c rel 0  =>  k*sym in rel-interval - c
            if let Some((k, c)) = affine_relation(&fact.diff, &sym) {
                let scaled = fact.rel.interval_against_zero().shift(-c);
                let bound = if k > 0 {
                    scaled.div_exact_pos(k)
                } else {
                    scaled.neg().div_exact_pos(-k)
                };
                range = range.intersect(bound);
            }
        }
        range
    }

    fn interval(&self, e: &Expr) -> Interval {
        let sym = |name: &str| self.symbol_range(name);
        expr_interval(e, &sym)
    }

    /// Conservative bounds of `e` from the symbol ranges and asserted facts
    /// (`None` = unbounded on that side). Undeclared symbols range over `[1, +inf)`.
    pub fn bounds(&self, e: &Expr) -> (Option<i64>, Option<i64>) {
        let mut iv = self.interval(e);
        if !self.rules.is_empty() {
            iv = iv.intersect(self.interval(&self.simplify(e)));
        }
        (to_option(iv.lo), to_option(iv.hi))
    }

    /// Decides `lhs rel rhs` for every admissible value of the symbols, if possible.
    ///
    /// Uses constant folding, the canonical difference `lhs - rhs`, interval bounds
    /// from symbol ranges (also of the difference with `b*floor(a/b)`, `b*ceil(a/b)`
    /// and `align(a, b)` spelled through `mod`), and recorded asserts (equalities via [`ShapeEnv::simplify`],
    /// other relations when `lhs - rhs` is an affine image of an asserted difference).
    /// Never uses hints.
    pub fn static_check(&self, lhs: &Expr, rel: Relation, rhs: &Expr) -> Tri {
        let decided = self.static_check_as_written(lhs, rel, rhs);
        if decided != Tri::Unknown || self.definitions.is_empty() {
            return decided;
        }
        // A derived symbol's range forgets how it relates to the other symbols
        // (`d1 = d0 + s9` is larger than `d0`): unfold the difference's latest derived
        // symbols, one definition at a time, for a few steps; neighbouring sizes cancel
        // there (`d1 - d0` -> `s9`), so only sizes far apart pay for the whole sum.
        self.static_check_unfolded(&(lhs - rhs), rel)
    }

    /// Decides `diff rel 0` with derived symbols unfolded: the latest ones first, then
    /// all at once.
    fn static_check_unfolded(&self, diff: &Expr, rel: Relation) -> Tri {
        let zero = Expr::constant(0);
        let mut diff = diff.clone();
        for _ in 0..UNFOLD_STEPS {
            let Some((name, definition)) = self.latest_derived(&diff) else {
                return Tri::Unknown;
            };
            diff = diff.substitute(&HashMap::from([(name, definition.clone())]));
            let verdict = self.static_check_as_written(&diff, rel, &zero);
            if verdict != Tri::Unknown {
                return verdict;
            }
        }
        // Sizes far apart in the chain: expand every derived symbol at once.
        let expanded = self.expand(&diff);
        if expanded == diff {
            return Tri::Unknown;
        }
        self.static_check_as_written(&expanded, rel, &zero)
    }

    /// `e` with every derived symbol replaced by its full expansion.
    fn expand(&self, e: &Expr) -> Expr {
        let used: HashMap<String, Expr> = e
            .symbols()
            .into_iter()
            .filter(|s| self.definitions.contains_key(s))
            .map(|s| {
                let expansion = self.expansion(&s);
                (s, expansion)
            })
            .collect();
        if used.is_empty() {
            e.clone()
        } else {
            e.substitute(&used)
        }
    }

    /// The value of `e` at one point the symbols' ranges allow: every symbol one above
    /// the low end of its range (kept within its high end), a derived symbol the value
    /// of its definition there. `None` where `e` cannot be evaluated (an unknown symbol,
    /// an overflow). It decides nothing: a caller uses it to propose an order of sizes
    /// cheaply, then confirms the order with static checks of neighbours, which cancel
    /// derived symbols after an unfolding or two where comparing sizes far apart in a
    /// chain of definitions would expand the whole chain.
    pub fn probe_eval(&self, e: &Expr) -> Option<i64> {
        if !self.definitions.is_empty() && self.probes.borrow().is_empty() {
            let mut ordered: Vec<(&usize, &String, &Expr)> = self
                .definitions
                .iter()
                .map(|(n, (o, d))| (o, n, d))
                .collect();
            ordered.sort_by_key(|(o, _, _)| **o);
            for (_, name, definition) in ordered {
                let value = definition.eval(&|n: &str| self.probe_value(n)).ok()?;
                self.probes.borrow_mut().insert(name.clone(), value);
            }
        }
        e.eval(&|n: &str| self.probe_value(n)).ok()
    }

    fn probe_value(&self, name: &str) -> Option<i64> {
        if self.definitions.contains_key(name) {
            return self.probes.borrow().get(name).copied();
        }
        let range = self.symbol_range(name);
        let low = match range.lo {
            Ext::Fin(l) => l.checked_add(1)?,
            _ => 2,
        };
        let value = match range.hi {
            Ext::Fin(h) if h < low => h,
            _ => low,
        };
        i64::try_from(value).ok()
    }

    /// The full expansion of derived symbol `name`, memoized. Missing expansions are
    /// built oldest first, each from the expansions of the earlier derived symbols its
    /// definition uses, so each costs one substitution.
    fn expansion(&self, name: &str) -> Expr {
        if let Some(known) = self.expansions.borrow().get(name) {
            return known.clone();
        }
        let Some((order, definition)) = self.definitions.get(name) else {
            return Expr::sym_unchecked(name);
        };
        // Build the missing expansions in definition order, so each one finds those
        // of its definition's symbols already made.
        let mut missing: Vec<(usize, &str, &Expr)> = self
            .definitions
            .iter()
            .filter(|(n, (o, _))| o <= order && !self.expansions.borrow().contains_key(*n))
            .map(|(n, (o, d))| (*o, n.as_str(), d))
            .collect();
        missing.sort_by_key(|(o, _, _)| *o);
        for (_, n, d) in missing {
            let used: HashMap<String, Expr> = d
                .symbols()
                .into_iter()
                .filter_map(|s| {
                    let known = self.expansions.borrow().get(&s).cloned();
                    known.map(|x| (s, x))
                })
                .collect();
            let expanded = if used.is_empty() {
                d.clone()
            } else {
                d.substitute(&used)
            };
            self.expansions.borrow_mut().insert(n.to_owned(), expanded);
        }
        self.expansions
            .borrow()
            .get(name)
            .cloned()
            .unwrap_or_else(|| definition.clone())
    }

    /// [`ShapeEnv::static_check`] with derived symbols as plain symbols of their range.
    fn static_check_as_written(&self, lhs: &Expr, rel: Relation, rhs: &Expr) -> Tri {
        let raw = lhs - rhs;
        let diff = self.simplify(&raw);
        if let Some(c) = diff.as_const() {
            return Tri::from(rel.holds(c, 0));
        }
        let mut iv = self
            .interval(&raw)
            .intersect(self.interval(&diff))
            .intersect(self.interval(&diff.divisions_as_modulo()));
        let mut excluded = Vec::new();
        for fact in &self.facts {
            let f = self.simplify(&fact.diff);
            if let Some((k, c)) = affine_relation(&diff, &f) {
                iv = iv.intersect(fact.rel.interval_against_zero().scale(k).shift(c));
                if fact.rel == Relation::Ne {
                    excluded.push(c);
                }
            }
        }
        decide(iv, &excluded, rel)
    }

    /// Specializes on hints: returns whether `lhs rel rhs` holds.
    ///
    /// A statically decided relation is returned without recording anything.
    /// Otherwise the hints decide, and a `Guard{Expect}` of the relation (or of its
    /// negation when the hints say it is false) is recorded. Fails with
    /// [`GuardError::NoHint`] when undecidable without hints.
    pub fn expect(&mut self, lhs: &Expr, rel: Relation, rhs: &Expr) -> Result<bool, GuardError> {
        if let Some(b) = self.static_check(lhs, rel, rhs).as_bool() {
            return Ok(b);
        }
        let (Some(a), Some(b)) = (self.hint_eval(lhs), self.hint_eval(rhs)) else {
            return Err(GuardError::NoHint(Guard::new(
                GuardKind::Expect,
                lhs,
                rel,
                rhs,
            )));
        };
        let holds = rel.holds(a, b);
        let recorded = if holds { rel } else { rel.negate() };
        self.push_guard(Guard::new(GuardKind::Expect, lhs, recorded, rhs));
        Ok(holds)
    }

    /// Records `lhs rel rhs` as a precondition.
    ///
    /// Statically false or contradicted by the hints: [`GuardError::Violated`].
    /// Statically true: nothing recorded. Otherwise a `Guard{Assert}` is recorded and
    /// later [`ShapeEnv::static_check`]s may use it; an asserted equality also becomes
    /// a rewrite for [`ShapeEnv::simplify`].
    pub fn assert_rel(&mut self, lhs: &Expr, rel: Relation, rhs: &Expr) -> Result<(), GuardError> {
        let guard = Guard::new(GuardKind::Assert, lhs, rel, rhs);
        match self.static_check(lhs, rel, rhs) {
            Tri::True => return Ok(()),
            Tri::False => return Err(GuardError::Violated(guard)),
            Tri::Unknown => {}
        }
        if let (Some(a), Some(b)) = (self.hint_eval(lhs), self.hint_eval(rhs)) {
            if !rel.holds(a, b) {
                return Err(GuardError::Violated(guard));
            }
        }
        self.probes.get_mut().clear();
        self.facts.push(Fact {
            diff: self.simplify(&(lhs - rhs)),
            rel,
        });
        if rel == Relation::Eq {
            self.add_equality(lhs, rhs);
        }
        self.push_guard(guard);
        Ok(())
    }

    fn push_guard(&mut self, guard: Guard) {
        if !self.guards.contains(&guard) {
            self.guards.push(guard);
        }
    }

    fn add_equality(&mut self, lhs: &Expr, rhs: &Expr) {
        let l = self.simplify(lhs);
        let r = self.simplify(rhs);
        if l == r {
            return;
        }
        let rule = match solve_for_symbol(&(&l - &r)) {
            Some(rule) => rule,
            None => larger_to_smaller(l, r),
        };
        if rule.from.is_const() {
            return;
        }
        // Occurs check: a rule that rewrites its own right-hand side would never stop.
        if rewrite_once(std::slice::from_ref(&rule), &rule.to) != rule.to {
            return;
        }
        self.rules.push(rule);
    }
}

/// `x -> e` from `diff == 0` when a symbol `x` occurs only as a linear term with
/// coefficient ±1; the largest such name is chosen so the result is deterministic.
fn solve_for_symbol(diff: &Expr) -> Option<Rule> {
    let mut best: Option<(&str, i64)> = None;
    for (mono, &coef) in diff.terms.iter() {
        let [(Atom::Sym(name), 1)] = mono.0.as_slice() else {
            continue;
        };
        if (coef == 1 || coef == -1) && best.is_none_or(|(b, _)| name.as_str() > b) {
            let x = Expr::sym_unchecked(name);
            let rest = diff - &x * coef;
            if !rest.symbols().contains(name.as_str()) {
                best = Some((name, coef));
            }
        }
    }
    let (name, coef) = best?;
    let x = Expr::sym_unchecked(name);
    // coef*x + rest == 0 with coef = ±1  =>  x == -coef*rest
    let rest = diff - &x * coef;
    Some(Rule {
        from: x,
        to: rest * (-coef),
    })
}

/// The larger canonical side rewritten to the smaller one, with a single-term left
/// side normalized to a positive (and, where exact, unit) coefficient.
fn larger_to_smaller(l: Expr, r: Expr) -> Rule {
    let (mut from, mut to) = if l > r { (l, r) } else { (r, l) };
    if from.single_term().is_some_and(|(_, k)| k < 0) {
        from = -from;
        to = -to;
    }
    // `4*s*t == 8*u` is more useful as `s*t -> 2*u`.
    if let Some((fm, fk)) = from.single_term() {
        if fk > 1 && to.terms.values().all(|c| c % fk == 0) {
            let fm = fm.clone();
            to = to.floor_div(&Expr::constant(fk));
            from = Expr::from_term(fm, 1);
        }
    }
    Rule { from, to }
}

/// Decides `d rel 0` from an interval for `d` and values `d` is known to differ from.
fn decide(mut iv: Interval, excluded: &[i128], rel: Relation) -> Tri {
    for _ in 0..=excluded.len() {
        let mut changed = false;
        if let Ext::Fin(lo) = iv.lo {
            if excluded.contains(&lo) {
                iv.lo = Ext::Fin(lo + 1);
                changed = true;
            }
        }
        if let Ext::Fin(hi) = iv.hi {
            if excluded.contains(&hi) {
                iv.hi = Ext::Fin(hi - 1);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let fin = |v: i128| Ext::Fin(v);
    match rel {
        Relation::Eq | Relation::Ne => {
            let eq = if iv.lo == fin(0) && iv.hi == fin(0) {
                Tri::True
            } else if !iv.contains(0) || excluded.contains(&0) {
                Tri::False
            } else {
                Tri::Unknown
            };
            match (rel, eq) {
                (Relation::Ne, Tri::True) => Tri::False,
                (Relation::Ne, Tri::False) => Tri::True,
                _ => eq,
            }
        }
        Relation::Lt if iv.hi <= fin(-1) => Tri::True,
        Relation::Lt if iv.lo >= fin(0) => Tri::False,
        Relation::Le if iv.hi <= fin(0) => Tri::True,
        Relation::Le if iv.lo >= fin(1) => Tri::False,
        Relation::Gt if iv.lo >= fin(1) => Tri::True,
        Relation::Gt if iv.hi <= fin(0) => Tri::False,
        Relation::Ge if iv.lo >= fin(0) => Tri::True,
        Relation::Ge if iv.hi <= fin(-1) => Tri::False,
        _ => Tri::Unknown,
    }
}
