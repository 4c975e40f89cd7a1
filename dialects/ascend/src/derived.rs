//! Derived symbols: names for long symbolic sizes (`ascend.derived_symbols`).
//!
//! A chain of concats over inputs of distinct dynamic dims has result dims
//! `s0 + s1 + ... + sk`: spelled in every type, the IR would grow as the square of the
//! chain. `--infer-symbolic-shapes` therefore names a result dim of more than
//! [`TERM_LIMIT`] terms by a fresh symbol and records its definition on the graph
//! function:
//!
//! ```text
//! func.func @main(...) attributes {ascend.derived_symbols = ["d0 = s0 + s1 + ... + s8",
//!                                                            "d1 = d0 + s9 + ... + s17"]}
//! ```
//!
//! Each entry is `name = expression`, in definition order; an expression uses symbols of
//! the function's argument types and derived symbols defined before it. Types then spell
//! the name (`#ascend.dims<["4", "d1 + s18"]>`). A derived symbol is never given by the
//! user (`--symbols` refuses it): every executor computes it from its definition
//! ([`DerivedSymbols::evaluate`]) once the argument symbols are bound, and a tensor whose
//! dim spells it must have that size.

pub use autofuse_symbolic::DerivedSymbols;

/// The function attribute holding the definitions.
pub const ATTRIBUTE: &str = "ascend.derived_symbols";

/// A result dim of more terms than this is named by a derived symbol. Ordinary models
/// stay far below it (their dims are products and short sums), so their IR is unchanged.
pub const TERM_LIMIT: usize = 8;
