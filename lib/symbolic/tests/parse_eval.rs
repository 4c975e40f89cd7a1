//! Parsing (including error offsets), printing round trips and evaluation errors.

use std::collections::HashMap;

use autofuse_symbolic::{EvalError, Expr, ParseError};

fn p(text: &str) -> Expr {
    match Expr::parse(text) {
        Ok(e) => e,
        Err(err) => panic!("{text:?} should parse: {err}"),
    }
}

fn err(text: &str) -> ParseError {
    match Expr::parse(text) {
        Ok(e) => panic!("{text:?} should not parse, got {e}"),
        Err(err) => err,
    }
}

fn env(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn round_trips() {
    for text in [
        "0",
        "128",
        "-5",
        "s0",
        "-s0",
        "s0*s1",
        "2*s0+s1+1",
        "s0-s1-3",
        "s0*s0*s1-7*s2",
        "ceil(s1/z1t_size)",
        "floor((4*s0+1)/s1)",
        "floor(s0/(s1*s2))",
        "floor((-s0)/2)",
        "floor((floor(s0/2)*s1)/s2)",
        "mod(s0, 8)+align(s1, 32)",
        "min(a, b, 3)*max(c, d)",
        "floor(min(a, 4)/max(b, 2))",
        "-9223372036854775808",
        "9223372036854775807*s0",
        "s0-9223372036854775808*s1",
        "floor(s0/0)",
        "mod(5, 0)",
    ] {
        let e = p(text);
        let printed = e.to_string();
        assert_eq!(p(&printed), e, "{text:?} printed as {printed:?}");
        assert_eq!(printed.parse::<Expr>().ok(), Some(e.clone()));
    }
}

#[test]
fn whitespace_and_top_level_division() {
    assert_eq!(p("  s0 *\ts1 \n+ 2 "), p("s0*s1+2"));
    assert_eq!(p("s0/s1"), p("floor(s0/s1)"));
    assert_eq!(p("s0*s1/s2"), p("floor((s0*s1)/s2)"));
    assert_eq!(p("s0/s1*s2"), p("floor(s0/s1)*s2"));
    assert_eq!(p("7/2"), Expr::constant(3));
    assert_eq!(p("--s0"), p("s0"));
    assert_eq!(p("2*-3"), Expr::constant(-6));
    assert_eq!(p("floor(s0*s1/s2)"), p("floor((s0*s1)/s2)"));
    // Names of functions are ordinary symbols when not called.
    assert_eq!(
        p("min+1").symbols().into_iter().collect::<Vec<_>>(),
        ["min"]
    );
}

#[test]
fn error_offsets() {
    let e = err("s0 + * 2");
    assert_eq!(e.offset, 5);
    assert!(e.message.contains("'*'"), "{e}");
    assert_eq!(e.to_string(), format!("offset 5: {}", e.message));

    let e = err("(s0+1");
    assert_eq!(e.offset, 5);
    assert!(e.message.contains("')'"), "{e}");

    let e = err("s0+1)");
    assert_eq!(e.offset, 4);
    assert!(e.message.contains("unmatched"), "{e}");

    let e = err("");
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("end of input"), "{e}");

    let e = err("   ");
    assert_eq!(e.offset, 3);

    let e = err("s0 + 2abc");
    assert_eq!(e.offset, 5);
    assert!(e.message.contains("2abc"), "{e}");

    let e = err("s0 + $x");
    assert_eq!(e.offset, 5);
    assert!(e.message.contains('$'), "{e}");

    let e = err("s0 s1");
    assert_eq!(e.offset, 3);

    let e = err("foo(s0)");
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("foo"), "{e}");

    let e = err("1 + floor(s0+1)");
    assert_eq!(e.offset, 10);
    assert!(e.message.contains("a/b"), "{e}");

    let e = err("mod(s0)");
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("2 arguments"), "{e}");

    let e = err("min()");
    assert_eq!(e.offset, 0);

    let e = err("max(s0, s1");
    assert_eq!(e.offset, 10);

    let e = err("9223372036854775808");
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("out of range"), "{e}");

    let e = err("1 + 99999999999999999999999");
    assert_eq!(e.offset, 4);

    let e = err("s0 + é");
    assert_eq!(e.offset, 5);
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{}s0{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = err(&deep);
    assert!(e.message.contains("nested"), "{e}");
    let ok = format!("{}s0{}", "(".repeat(50), ")".repeat(50));
    assert_eq!(p(&ok), p("s0"));
    // Long flat chains are not nesting.
    let long = vec!["s0"; 5_000].join("+");
    assert_eq!(p(&long), p("5000*s0"));
}

#[test]
fn evaluation() {
    let e = p("floor((s0+5)/s1)*s1+mod(s0, 3)-min(s0, 4)+align(s0, 8)");
    // s0 = 10, s1 = 4: floor(15/4)*4 + 1 - 4 + 16 = 12 + 1 - 4 + 16
    assert_eq!(e.eval_map(&env(&[("s0", 10), ("s1", 4)])), Ok(25));
    assert_eq!(p("floor((-7)/2)").eval_map(&env(&[])), Ok(-4));
    assert_eq!(p("ceil(s0/2)").eval_map(&env(&[("s0", -7)])), Ok(-3));
    assert_eq!(p("mod(s0, -3)").eval_map(&env(&[("s0", 7)])), Ok(-2));
    assert_eq!(p("max(a, b, c)").eval(&|n| Some(n.len() as i64 + 1)), Ok(2));
}

#[test]
fn evaluation_errors() {
    assert_eq!(
        p("s0+s1").eval_map(&env(&[("s0", 1)])),
        Err(EvalError::UnboundSymbol("s1".into()))
    );
    assert_eq!(
        p("floor(s0/s1)").eval_map(&env(&[("s0", 1), ("s1", 0)])),
        Err(EvalError::DivisionByZero)
    );
    assert_eq!(
        p("mod(s0, s1-s2)").eval_map(&env(&[("s0", 1), ("s1", 3), ("s2", 3)])),
        Err(EvalError::DivisionByZero)
    );
    assert_eq!(
        p("floor(1/0)").eval_map(&env(&[])),
        Err(EvalError::DivisionByZero)
    );
    assert_eq!(
        p("s0*s0").eval_map(&env(&[("s0", 1 << 32)])),
        Err(EvalError::Overflow)
    );
    assert_eq!(
        p("s0+1").eval_map(&env(&[("s0", i64::MAX)])),
        Err(EvalError::Overflow)
    );
    assert_eq!(
        p("floor(s0/s1)").eval_map(&env(&[("s0", i64::MIN), ("s1", -1)])),
        Err(EvalError::Overflow)
    );
    // Terms are summed in i128: terms beyond i64 that cancel are fine.
    assert_eq!(
        p("s0*s1-s0*s2+3").eval_map(&env(&[("s0", 1 << 40), ("s1", 1 << 30), ("s2", 1 << 30)])),
        Ok(3)
    );
    assert_eq!(
        p("2*s0-s0").eval_map(&env(&[("s0", i64::MAX)])),
        Ok(i64::MAX)
    );
    assert_eq!(EvalError::DivisionByZero.to_string(), "division by zero");
    assert!(EvalError::UnboundSymbol("x".into())
        .to_string()
        .contains('x'));
}
