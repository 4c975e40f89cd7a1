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
//!
//! ```
//! use autofuse_symbolic::{Expr, Relation, ShapeEnv, SymbolInfo};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let e = Expr::parse("ceil(s1/z1t_size)*z1t_size")?;
//! assert_eq!(e.to_string(), "z1t_size*ceil(s1/z1t_size)");
//! assert_eq!(e.to_c_expr("t->"), "t->z1t_size*af_ceildiv(t->s1, t->z1t_size)");
//!
//! let mut env = ShapeEnv::new();
//! env.declare(SymbolInfo::new("s0").with_hint(128));
//! assert!(env.expect(&Expr::symbol("s0"), Relation::Ge, &Expr::constant(64))?);
//! assert_eq!(env.guards()[0].to_string(), "expect(s0 >= 64)");
//! # Ok(())
//! # }
//! ```

mod derived;
mod eval;
mod expr;
mod interval;
mod memo;
mod parse;
mod print;
mod shape_env;

pub use derived::DerivedSymbols;
pub use eval::EvalError;
pub use expr::Expr;
pub use memo::TextMemo;
pub use parse::ParseError;
pub use shape_env::{Guard, GuardError, GuardKind, Relation, ShapeEnv, SymbolInfo, Tri};
