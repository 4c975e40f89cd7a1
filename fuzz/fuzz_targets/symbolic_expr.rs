//! Fuzz target: the symbolic expression parser (`Expr::parse`, and `Guard::parse`), then
//! printing the parsed expression and parsing it back (it must round-trip).
#![no_main]

use autofuse_symbolic::{Expr, Guard};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(expr) = Expr::parse_uncached(text) {
        let printed = expr.to_string();
        let again = Expr::parse_uncached(&printed)
            .unwrap_or_else(|e| panic!("'{printed}' (printed from '{text}') does not parse: {e}"));
        assert_eq!(
            again, expr,
            "'{text}' printed as '{printed}' parses to another expression"
        );
    }
    let _ = Guard::parse(text);
});
