//! Parser for the textual expression syntax, the inverse of `Expr`'s `Display`.
//!
//! Grammar (whitespace insignificant):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*          '/' is floor division
//! unary   := '-' unary | primary
//! primary := INT | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
//! ```
//!
//! Calls: `floor(a/b)`, `ceil(a/b)` (the argument must end in a division),
//! `mod(a, b)`, `align(a, b)`, `min(a, ...)`, `max(a, ...)`.
//!
//! Text is first parsed into a small syntax tree (sums and products kept flat so long
//! chains do not recurse) and then converted with the canonicalizing constructors.

use std::fmt;
use std::str::FromStr;

use crate::expr::{Expr, MAX_EXPANDED_TERMS};

/// Nesting limit for parentheses, unary minus and calls; keeps recursion bounded on
/// hostile input.
const MAX_DEPTH: usize = 200;

/// A syntax error with the byte offset where it was detected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the parsed text.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            offset,
            message: message.into(),
        }
    }

    /// The same error for text that was embedded `by` bytes into a larger string.
    pub(crate) fn shifted(mut self, by: usize) -> ParseError {
        self.offset += by;
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Int(u64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    offset: usize,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Int(v) => format!("integer {v}"),
        Tok::Ident(name) => format!("name '{name}'"),
        Tok::Plus => "'+'".into(),
        Tok::Minus => "'-'".into(),
        Tok::Star => "'*'".into(),
        Tok::Slash => "'/'".into(),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::End => "end of input".into(),
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let tok = match b {
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' => Tok::Star,
            b'/' => Tok::Slash,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'0'..=b'9' => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if i < bytes.len() && is_ident_byte(bytes[i]) {
                    let mut j = i;
                    while j < bytes.len() && is_ident_byte(bytes[j]) {
                        j += 1;
                    }
                    return Err(ParseError::new(
                        start,
                        format!(
                            "invalid name '{}': names must start with a letter or '_'",
                            &text[start..j]
                        ),
                    ));
                }
                let digits = &text[start..i];
                let value = digits.parse::<u64>().map_err(|_| {
                    ParseError::new(start, format!("integer literal {digits} is out of range"))
                })?;
                out.push(Token {
                    tok: Tok::Int(value),
                    offset: start,
                });
                continue;
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                while i < bytes.len() && is_ident_byte(bytes[i]) {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(text[start..i].to_owned()),
                    offset: start,
                });
                continue;
            }
            _ => {
                // Only ASCII has been consumed so far, so `start` is a char boundary.
                let ch = text[start..].chars().next().unwrap_or('?');
                return Err(ParseError::new(
                    start,
                    format!("unexpected character '{ch}'"),
                ));
            }
        };
        out.push(Token { tok, offset: start });
        i += 1;
    }
    out.push(Token {
        tok: Tok::End,
        offset: text.len(),
    });
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProdOp {
    Mul,
    Div,
}

#[derive(Debug)]
enum Ast {
    Num(u64, usize),
    Sym(String),
    Neg(Box<Ast>),
    /// `(negated, operand)`; the first operand is never negated.
    Sum(Vec<(bool, Ast)>),
    /// `(operator, operand)`; the first operator is ignored.
    Product(Vec<(ProdOp, Ast)>),
    Call(String, Vec<(usize, Ast)>, usize),
    /// A parenthesized expression; kept so a negation is never pushed into it.
    Group(Box<Ast>),
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.tok != Tok::End {
            self.pos += 1;
        }
        t
    }

    fn enter(&mut self, offset: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                offset,
                format!("expression nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Ast, ParseError> {
        let first = self.term()?;
        let mut items = vec![(false, first)];
        loop {
            let negated = match self.peek().tok {
                Tok::Plus => false,
                Tok::Minus => true,
                _ => break,
            };
            self.bump();
            items.push((negated, self.term()?));
        }
        Ok(if items.len() == 1 {
            items.pop().map_or(Ast::Sum(Vec::new()), |(_, a)| a)
        } else {
            Ast::Sum(items)
        })
    }

    fn term(&mut self) -> Result<Ast, ParseError> {
        let first = self.unary()?;
        let mut items = vec![(ProdOp::Mul, first)];
        loop {
            let op = match self.peek().tok {
                Tok::Star => ProdOp::Mul,
                Tok::Slash => ProdOp::Div,
                _ => break,
            };
            self.bump();
            items.push((op, self.unary()?));
        }
        Ok(if items.len() == 1 {
            items.pop().map_or(Ast::Product(Vec::new()), |(_, a)| a)
        } else {
            Ast::Product(items)
        })
    }

    fn unary(&mut self) -> Result<Ast, ParseError> {
        if self.peek().tok == Tok::Minus {
            let offset = self.bump().offset;
            self.enter(offset)?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Ast::Neg(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Ast, ParseError> {
        let t = self.bump();
        match t.tok {
            Tok::Int(v) => Ok(Ast::Num(v, t.offset)),
            Tok::Ident(name) => {
                if self.peek().tok != Tok::LParen {
                    return Ok(Ast::Sym(name));
                }
                self.bump();
                self.enter(t.offset)?;
                let mut args = Vec::new();
                if self.peek().tok != Tok::RParen {
                    loop {
                        let arg_offset = self.peek().offset;
                        args.push((arg_offset, self.expr()?));
                        match self.peek().tok {
                            Tok::Comma => {
                                self.bump();
                            }
                            Tok::RParen => break,
                            ref other => {
                                return Err(ParseError::new(
                                    self.peek().offset,
                                    format!(
                                        "expected ',' or ')' in call to {name}, found {}",
                                        describe(other)
                                    ),
                                ))
                            }
                        }
                    }
                }
                self.bump();
                self.depth -= 1;
                Ok(Ast::Call(name, args, t.offset))
            }
            Tok::LParen => {
                self.enter(t.offset)?;
                let inner = self.expr()?;
                if self.peek().tok != Tok::RParen {
                    return Err(ParseError::new(
                        self.peek().offset,
                        format!(
                            "expected ')' to close '(' at offset {}, found {}",
                            t.offset,
                            describe(&self.peek().tok)
                        ),
                    ));
                }
                self.bump();
                self.depth -= 1;
                Ok(Ast::Group(Box::new(inner)))
            }
            other => Err(ParseError::new(
                t.offset,
                format!("expected an operand, found {}", describe(&other)),
            )),
        }
    }
}

/// Whether negating `ast` can be pushed into a leading integer literal, which is how
/// `-9223372036854775808` (and `a-9223372036854775808*b`) stay representable.
/// Parenthesized operands are excluded so that printed overflow atoms such as
/// `-((2)*(9223372036854775807))` re-parse to the same structure.
fn literal_headed(ast: &Ast) -> bool {
    match ast {
        Ast::Num(..) => true,
        Ast::Product(items) => {
            items.iter().skip(1).all(|(op, _)| *op == ProdOp::Mul)
                && items.first().is_some_and(|(_, a)| literal_headed(a))
        }
        _ => false,
    }
}

/// The expression inside any number of redundant parentheses.
fn ungroup(mut ast: &Ast) -> &Ast {
    while let Ast::Group(inner) = ast {
        ast = inner;
    }
    ast
}

fn convert(ast: &Ast) -> Result<Expr, ParseError> {
    match ast {
        Ast::Num(v, offset) => i64::try_from(*v)
            .map(Expr::constant)
            .map_err(|_| ParseError::new(*offset, format!("integer literal {v} is out of range"))),
        Ast::Sym(name) => Ok(Expr::sym_unchecked(name)),
        Ast::Neg(inner) => convert_negated(inner),
        Ast::Sum(items) => {
            let mut acc = Expr::zero();
            for (negated, item) in items {
                match (*negated, literal_headed(item)) {
                    (false, _) => acc.accumulate(&convert(item)?, 1),
                    (true, true) => acc.accumulate(&convert_negated(item)?, 1),
                    (true, false) => acc.accumulate(&convert(item)?, -1),
                }
            }
            Ok(acc)
        }
        Ast::Product(items) => convert_product(items),
        Ast::Call(name, args, offset) => convert_call(name, args, *offset),
        Ast::Group(inner) => convert(inner),
    }
}

fn convert_negated(ast: &Ast) -> Result<Expr, ParseError> {
    match ast {
        Ast::Num(v, offset) => {
            let value = -i128::from(*v);
            i64::try_from(value).map(Expr::constant).map_err(|_| {
                ParseError::new(*offset, format!("integer literal -{v} is out of range"))
            })
        }
        Ast::Product(items) if literal_headed(ast) => {
            let mut acc = match items.first() {
                Some((_, head)) => convert_negated(head)?,
                None => Expr::zero(),
            };
            for (_, item) in items.iter().skip(1) {
                acc = acc.mul_expr(&convert(item)?);
            }
            Ok(acc)
        }
        _ => Ok(convert(ast)?.neg_expr()),
    }
}

fn convert_product(items: &[(ProdOp, Ast)]) -> Result<Expr, ParseError> {
    let mut acc = Expr::constant(1);
    for (i, (op, item)) in items.iter().enumerate() {
        let value = convert(item)?;
        acc = match (i, op) {
            (0, _) => value,
            (_, ProdOp::Mul) => {
                // A product of sums multiplies their term counts: `(a+b+1)*(c+d+1)*...`
                // would expand exponentially; a text that large is refused.
                if acc.term_count().saturating_mul(value.term_count()) > MAX_EXPANDED_TERMS {
                    return Err(ParseError::new(
                        0,
                        format!("the product expands to more than {MAX_EXPANDED_TERMS} terms"),
                    ));
                }
                acc.mul_expr(&value)
            }
            (_, ProdOp::Div) => acc.floor_div(&value),
        };
    }
    Ok(acc)
}

fn expect_arity(
    name: &str,
    args: &[(usize, Ast)],
    offset: usize,
    ok: bool,
    wanted: &str,
) -> Result<(), ParseError> {
    if ok {
        Ok(())
    } else {
        Err(ParseError::new(
            offset,
            format!("{name} expects {wanted}, found {}", args.len()),
        ))
    }
}

fn convert_call(name: &str, args: &[(usize, Ast)], offset: usize) -> Result<Expr, ParseError> {
    match name {
        "floor" | "ceil" => {
            expect_arity(name, args, offset, args.len() == 1, "1 argument")?;
            let (arg_offset, arg) = &args[0];
            let arg = ungroup(arg);
            let division = match arg {
                Ast::Product(items) if items.last().is_some_and(|(op, _)| *op == ProdOp::Div) => {
                    Some(items)
                }
                _ => None,
            };
            let Some(items) = division else {
                return Err(ParseError::new(
                    *arg_offset,
                    format!("{name} expects an argument of the form a/b"),
                ));
            };
            let (last, init) = match items.split_last() {
                Some(split) => split,
                None => return Err(ParseError::new(*arg_offset, "empty division")),
            };
            let num = convert_product(init)?;
            let den = convert(&last.1)?;
            Ok(if name == "floor" {
                num.floor_div(&den)
            } else {
                num.ceil_div(&den)
            })
        }
        "mod" | "align" => {
            expect_arity(name, args, offset, args.len() == 2, "2 arguments")?;
            let a = convert(&args[0].1)?;
            let b = convert(&args[1].1)?;
            Ok(if name == "mod" {
                a.modulo(&b)
            } else {
                a.align(&b)
            })
        }
        "min" | "max" => {
            expect_arity(name, args, offset, !args.is_empty(), "at least 1 argument")?;
            let values = args
                .iter()
                .map(|(_, a)| convert(a))
                .collect::<Result<Vec<_>, _>>()?;
            let folded = if name == "min" {
                Expr::min_of(values)
            } else {
                Expr::max_of(values)
            };
            folded.ok_or_else(|| ParseError::new(offset, format!("{name} needs arguments")))
        }
        _ => Err(ParseError::new(
            offset,
            format!("unknown function '{name}' (expected floor, ceil, mod, min, max or align)"),
        )),
    }
}

/// Most texts that passes parse repeat (the same view entries in every kernel), so
/// successful parses are remembered per thread, up to this many texts.
const PARSE_MEMO_LIMIT: usize = 1 << 16;

/// The printed nodes any parsed expression may have, beside 64 per byte of its text:
/// room for the largest product of sums the parser expands (4096 terms of a few atoms).
const PRINTED_NODES_BASE: usize = 32_768;

thread_local! {
    static PARSE_MEMO: std::cell::RefCell<crate::TextMemo<Expr>> =
        std::cell::RefCell::new(crate::TextMemo::new(PARSE_MEMO_LIMIT));
}

impl Expr {
    /// Parses the textual syntax (see the crate README); the result is canonical.
    pub fn parse(text: &str) -> Result<Expr, ParseError> {
        if let Some(known) = PARSE_MEMO.with(|memo| memo.borrow().get(text)) {
            return Ok(known);
        }
        let parsed = Expr::parse_uncached(text)?;
        PARSE_MEMO.with(|memo| memo.borrow_mut().insert(text, parsed.clone()));
        Ok(parsed)
    }

    /// [`Expr::parse`] without the per-thread memo: always runs the parser (for
    /// measuring it, and for callers that parse each text once).
    pub fn parse_uncached(text: &str) -> Result<Expr, ParseError> {
        let mut parser = Parser {
            toks: tokenize(text)?,
            pos: 0,
            depth: 0,
        };
        let ast = parser.expr()?;
        let rest = parser.peek();
        match rest.tok {
            Tok::End => {
                let expr = convert(&ast)?;
                // Canonical forms can repeat a subexpression in several places (a
                // division distributed over a sum), so a short text may denote a
                // tree whose printed form is exponentially longer; every pass that
                // prints or walks it would pay that. Any text the printer wrote has at
                // least one byte per node, so printed IR always parses.
                let budget = PRINTED_NODES_BASE.saturating_add(text.len().saturating_mul(64));
                if expr.printed_nodes_within(budget).is_none() {
                    return Err(ParseError::new(
                        0,
                        format!(
                            "the expression's canonical form prints as more than {budget} \
                             nodes (its subexpressions repeat); write it with fewer nested \
                             divisions of sums"
                        ),
                    ));
                }
                Ok(expr)
            }
            Tok::RParen => Err(ParseError::new(rest.offset, "unmatched ')'")),
            ref other => Err(ParseError::new(
                rest.offset,
                format!("expected an operator, found {}", describe(other)),
            )),
        }
    }
}

impl FromStr for Expr {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Expr, ParseError> {
        Expr::parse(s)
    }
}
