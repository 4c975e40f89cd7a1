//! Rendering of expressions: the canonical parseable text (`Display`, `Debug`) and
//! C/C++ `int64_t` expressions for generated tiling code (`Expr::to_c_expr`).
//!
//! Both renderings walk the same canonical structure: non-constant terms in canonical
//! order, then the constant; coefficient first; repeated factors for exponents.

use std::fmt;

use crate::expr::{Atom, Expr, Monomial};

/// Which of the two renderings is being produced.
#[derive(Clone, Copy)]
enum Style<'a> {
    /// The syntax accepted by `Expr::parse`.
    Text,
    /// C/C++ with symbols printed by their C name.
    C(CSymbols<'a>),
}

/// How C output spells a symbol.
#[derive(Clone, Copy)]
enum CSymbols<'a> {
    /// `{prefix}{name}`.
    Prefix(&'a str),
    /// The name the function gives.
    Renamed(&'a dyn Fn(&str) -> String),
}

/// C spelling of `i64::MIN`, whose magnitude is not a valid `long long` literal.
const C_I64_MIN: &str = "(-9223372036854775807LL-1)";

impl Style<'_> {
    fn magnitude(self, value: u64, out: &mut String) {
        out.push_str(&value.to_string());
        if matches!(self, Style::C(_)) && value > i32::MAX as u64 {
            out.push_str("LL");
        }
    }

    /// Writes the sign (`+`/`-`, none for a leading positive term) and returns whether
    /// the remaining magnitude must be printed as the special `i64::MIN` spelling.
    fn sign(self, coef: i64, first: bool, out: &mut String) -> bool {
        if coef == i64::MIN && matches!(self, Style::C(_)) {
            if !first {
                out.push('+');
            }
            return true;
        }
        if coef < 0 {
            out.push('-');
        } else if !first {
            out.push('+');
        }
        false
    }

    fn expr(self, e: &Expr, out: &mut String) {
        if e.terms.is_empty() {
            out.push('0');
            return;
        }
        let mut first = true;
        let mut constant = None;
        for (mono, &coef) in e.terms.iter() {
            if mono.is_one() {
                constant = Some(coef);
                continue;
            }
            let special_min = self.sign(coef, first, out);
            if special_min {
                out.push_str(C_I64_MIN);
                out.push('*');
            } else if coef.unsigned_abs() != 1 {
                self.magnitude(coef.unsigned_abs(), out);
                out.push('*');
            }
            self.monomial(mono, out);
            first = false;
        }
        if let Some(coef) = constant {
            if self.sign(coef, first, out) {
                out.push_str(C_I64_MIN);
            } else {
                self.magnitude(coef.unsigned_abs(), out);
            }
        }
    }

    fn monomial(self, mono: &Monomial, out: &mut String) {
        let mut first = true;
        for (atom, exp) in &mono.0 {
            for _ in 0..*exp {
                if !first {
                    out.push('*');
                }
                first = false;
                self.atom(atom, out);
            }
        }
    }

    /// An operand of `/` inside `floor(...)`/`ceil(...)`: parenthesized unless it is a
    /// single primary, so that the text re-parses with the same grouping.
    fn div_operand(self, e: &Expr, out: &mut String) {
        let primary = matches!(e.as_const(), Some(c) if c >= 0) || e.single_atom().is_some();
        if primary {
            self.expr(e, out);
        } else {
            out.push('(');
            self.expr(e, out);
            out.push(')');
        }
    }

    fn call(self, name: &str, args: &[&Expr], out: &mut String) {
        out.push_str(name);
        out.push('(');
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.expr(arg, out);
        }
        out.push(')');
    }

    /// C helpers are binary, so n-ary min/max nest to the right.
    fn c_nested(self, name: &str, args: &[Expr], out: &mut String) {
        match args {
            [] => out.push('0'),
            [only] => self.expr(only, out),
            [head, tail @ ..] => {
                out.push_str(name);
                out.push('(');
                self.expr(head, out);
                out.push_str(", ");
                self.c_nested(name, tail, out);
                out.push(')');
            }
        }
    }

    fn atom(self, atom: &Atom, out: &mut String) {
        match (self, atom) {
            (Style::Text, Atom::Sym(name)) => out.push_str(name),
            (Style::C(CSymbols::Prefix(prefix)), Atom::Sym(name)) => {
                out.push_str(prefix);
                out.push_str(name);
            }
            (Style::C(CSymbols::Renamed(rename)), Atom::Sym(name)) => out.push_str(&rename(name)),
            (Style::Text, Atom::FloorDiv(a, b) | Atom::CeilDiv(a, b)) => {
                let name = if matches!(atom, Atom::FloorDiv(..)) {
                    "floor("
                } else {
                    "ceil("
                };
                out.push_str(name);
                self.div_operand(a, out);
                out.push('/');
                self.div_operand(b, out);
                out.push(')');
            }
            (Style::C(_), Atom::FloorDiv(a, b)) => self.call("af_floordiv", &[a, b], out),
            (Style::C(_), Atom::CeilDiv(a, b)) => self.call("af_ceildiv", &[a, b], out),
            (Style::Text, Atom::Mod(a, b)) => self.call("mod", &[a, b], out),
            (Style::C(_), Atom::Mod(a, b)) => self.call("af_mod", &[a, b], out),
            (Style::Text, Atom::Align(a, b)) => self.call("align", &[a, b], out),
            (Style::C(_), Atom::Align(a, b)) => self.call("af_align", &[a, b], out),
            (Style::Text, Atom::Min(args)) => {
                self.call("min", &args.iter().collect::<Vec<_>>(), out)
            }
            (Style::Text, Atom::Max(args)) => {
                self.call("max", &args.iter().collect::<Vec<_>>(), out)
            }
            (Style::C(_), Atom::Min(args)) => self.c_nested("af_min", args, out),
            (Style::C(_), Atom::Max(args)) => self.c_nested("af_max", args, out),
            // Overflowed operations: the inner parentheses make the parser redo exactly
            // the operation that overflowed, so the text re-parses to the same atom.
            (Style::Text, Atom::Add(a, b)) => {
                out.push('(');
                self.expr(a, out);
                out.push_str("+(");
                self.expr(b, out);
                out.push_str("))");
            }
            (Style::C(_), Atom::Add(a, b)) => self.binary(a, "+", b, out),
            (_, Atom::Mul(a, b)) => self.binary(a, "*", b, out),
            (_, Atom::Neg(a)) => {
                out.push_str("(-(");
                self.expr(a, out);
                out.push_str("))");
            }
        }
    }

    fn binary(self, a: &Expr, op: &str, b: &Expr, out: &mut String) {
        out.push_str("((");
        self.expr(a, out);
        out.push(')');
        out.push_str(op);
        out.push('(');
        self.expr(b, out);
        out.push_str("))");
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        Style::Text.expr(self, &mut out);
        f.write_str(&out)
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({self})")
    }
}

impl Expr {
    /// C/C++ `int64_t` expression text.
    ///
    /// Symbols print as `{symbol_prefix}{name}` (prefix `"t->"` gives `t->s0`); floor
    /// and ceil division, floor modulo, min, max and align become calls to the
    /// project's helpers `af_floordiv`, `af_ceildiv`, `af_mod`, `af_min`, `af_max` and
    /// `af_align` (always binary; n-ary min/max nest to the right). Constants outside
    /// the `int32_t` range get an `LL` suffix.
    pub fn to_c_expr(&self, symbol_prefix: &str) -> String {
        let mut out = String::new();
        Style::C(CSymbols::Prefix(symbol_prefix)).expr(self, &mut out);
        out
    }

    /// As [`Expr::to_c_expr`], with every symbol spelled `c_name(symbol)` (generated
    /// code that must keep user symbols apart from its own identifiers).
    pub fn to_c_expr_with(&self, c_name: &dyn Fn(&str) -> String) -> String {
        let mut out = String::new();
        Style::C(CSymbols::Renamed(c_name)).expr(self, &mut out);
        out
    }
}
