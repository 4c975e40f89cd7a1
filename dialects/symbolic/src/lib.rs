//! Symbolic integer expressions for tensor dimension sizes, tile sizes and tiling
//! fields, in the spirit of GE AutoFuse's SymEngine wrapper.
//!
//! * [`Expr`] is an expression over `i64` integers and named symbols, always held in a
//!   canonical polynomial form so that structural equality decides "obviously equal"
//!   (`s0*s1 == s1*s0`, `(s0+1)*2 == 2*s0+2`, `floor((4*s0)/2) == 2*s0`, ...).
//! * Its `Display` text re-parses with [`Expr::parse`]; [`Expr::to_c_expr`] renders
//!   C/C++ for generated tiling code.
//! * [`ShapeEnv`] reasons about expressions under symbol ranges, hints and recorded
//!   guards: three-valued static checks, `expect`/`assert` guard recording and
//!   simplification by asserted equalities.
//!
//! Symbols stand for positive sizes: unless declared otherwise their range is `[1, +inf)`.

mod eval;
mod expr;
mod interval;
mod parse;
mod print;
mod shape_env;

pub use eval::EvalError;
pub use expr::Expr;
pub use parse::ParseError;
pub use shape_env::{Guard, GuardError, GuardKind, Relation, ShapeEnv, SymbolInfo, Tri};
