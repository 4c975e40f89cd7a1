//! `ShapeEnv`: declarations, bounds, static checks, expect/assert recording and
//! simplification by asserted equalities; `Guard` text round trips.

use autofuse_symbolic::{Expr, Guard, GuardError, GuardKind, Relation, ShapeEnv, SymbolInfo, Tri};

fn p(text: &str) -> Expr {
    match Expr::parse(text) {
        Ok(e) => e,
        Err(err) => panic!("{text:?} should parse: {err}"),
    }
}

fn check(env: &ShapeEnv, lhs: &str, rel: Relation, rhs: &str) -> Tri {
    env.static_check(&p(lhs), rel, &p(rhs))
}

fn guard_texts(env: &ShapeEnv) -> Vec<String> {
    env.guards().iter().map(ToString::to_string).collect()
}

#[test]
fn declarations() {
    let mut env = ShapeEnv::new();
    env.declare(SymbolInfo::new("s1").with_hint(7));
    env.declare(SymbolInfo::new("s0"));
    env.declare(SymbolInfo::new("s1").with_range(2, Some(9)));
    let names: Vec<&str> = env.symbols().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["s1", "s0"]);
    let s1 = env.info("s1").cloned();
    assert_eq!(
        s1,
        Some(SymbolInfo {
            name: "s1".into(),
            hint: None,
            min: 2,
            max: Some(9)
        })
    );
    assert_eq!(env.info("s0").map(|i| i.min), Some(1));
    assert!(env.info("nope").is_none());
    env.set_hint("s1", 5);
    env.set_hint("fresh", 3);
    assert_eq!(env.info("s1").and_then(|i| i.hint), Some(5));
    assert_eq!(
        env.info("fresh").map(|i| (i.min, i.hint)),
        Some((1, Some(3)))
    );
}

#[test]
fn hint_evaluation() {
    let mut env = ShapeEnv::new();
    env.set_hint("s0", 6);
    env.set_hint("s1", 4);
    assert_eq!(env.hint_eval(&p("ceil(s0/s1)*s1")), Some(8));
    assert_eq!(env.hint_eval(&p("s0+s2")), None);
    env.declare(SymbolInfo::new("s2"));
    assert_eq!(env.hint_eval(&p("s0+s2")), None);
}

#[test]
fn bounds_from_ranges() {
    let mut env = ShapeEnv::new();
    assert_eq!(env.bounds(&p("s0")), (Some(1), None));
    assert_eq!(env.bounds(&p("s0-1")), (Some(0), None));
    assert_eq!(env.bounds(&p("-s0")), (None, Some(-1)));
    assert_eq!(env.bounds(&p("s0*s1")), (Some(1), None));
    assert_eq!(env.bounds(&p("floor(s0/s1)")), (Some(0), None));
    env.declare(SymbolInfo::new("a").with_range(2, Some(8)));
    env.declare(SymbolInfo::new("b").with_range(3, Some(5)));
    assert_eq!(env.bounds(&p("2*a+1")), (Some(5), Some(17)));
    assert_eq!(env.bounds(&p("a-b")), (Some(-3), Some(5)));
    assert_eq!(env.bounds(&p("a*b")), (Some(6), Some(40)));
    assert_eq!(env.bounds(&p("floor(a/b)")), (Some(0), Some(2)));
    assert_eq!(env.bounds(&p("ceil(a/b)")), (Some(1), Some(3)));
    assert_eq!(env.bounds(&p("mod(s0, b)")), (Some(0), Some(4)));
    assert_eq!(env.bounds(&p("mod(a, 16)")), (Some(2), Some(8)));
    assert_eq!(env.bounds(&p("min(a, b)")), (Some(2), Some(5)));
    assert_eq!(env.bounds(&p("max(a, b)")), (Some(3), Some(8)));
    assert_eq!(env.bounds(&p("align(a, 4)")), (Some(4), Some(8)));
    assert_eq!(env.bounds(&p("floor(a/(b-4))")), (None, None));
}

#[test]
fn static_checks_from_constants_difference_and_ranges() {
    let mut env = ShapeEnv::new();
    assert_eq!(check(&env, "2", Relation::Lt, "3"), Tri::True);
    assert_eq!(check(&env, "s0*s1", Relation::Eq, "s1*s0"), Tri::True);
    assert_eq!(check(&env, "s0+1", Relation::Gt, "s0"), Tri::True);
    assert_eq!(check(&env, "s0", Relation::Eq, "s0+1"), Tri::False);
    assert_eq!(check(&env, "s0", Relation::Ge, "1"), Tri::True);
    assert_eq!(check(&env, "s0", Relation::Lt, "1"), Tri::False);
    assert_eq!(check(&env, "s0", Relation::Ne, "0"), Tri::True);
    assert_eq!(check(&env, "2*s0", Relation::Ge, "s0+1"), Tri::True);
    assert_eq!(check(&env, "s0", Relation::Eq, "s1"), Tri::Unknown);
    assert_eq!(check(&env, "s0", Relation::Le, "16"), Tri::Unknown);
    env.declare(SymbolInfo::new("s0").with_range(1, Some(16)));
    env.declare(SymbolInfo::new("s1").with_range(32, Some(64)));
    assert_eq!(check(&env, "s0", Relation::Le, "16"), Tri::True);
    assert_eq!(check(&env, "s0", Relation::Lt, "s1"), Tri::True);
    assert_eq!(check(&env, "s1", Relation::Le, "s0"), Tri::False);
    assert_eq!(check(&env, "floor(s0/s1)", Relation::Eq, "0"), Tri::True);
    assert_eq!(check(&env, "mod(s0, s1)", Relation::Le, "16"), Tri::True);
    // Divisor multiples of divisions are related to their dividend.
    assert_eq!(check(&env, "align(s2, 32)", Relation::Ge, "s2"), Tri::True);
    assert_eq!(
        check(&env, "align(s2, 32)", Relation::Lt, "s2+32"),
        Tri::True
    );
    assert_eq!(check(&env, "4*ceil(s2/4)", Relation::Ge, "s2"), Tri::True);
    assert_eq!(check(&env, "2*floor(s2/2)", Relation::Le, "s2"), Tri::True);
    assert_eq!(
        check(&env, "s3*floor(s2/s3)", Relation::Le, "s2"),
        Tri::True
    );
    assert_eq!(check(&env, "align(s2, s3)", Relation::Ge, "s2"), Tri::True);
    assert_eq!(
        check(&env, "2*floor(s2/2)", Relation::Eq, "s2"),
        Tri::Unknown
    );
    // Hints never prove anything.
    env.set_hint("s2", 3);
    assert_eq!(check(&env, "s2", Relation::Eq, "3"), Tri::Unknown);
}

#[test]
fn expect_records_hinted_outcome() {
    let mut env = ShapeEnv::new();
    env.set_hint("s0", 4);
    env.set_hint("s1", 4);
    env.set_hint("s2", 8);
    let (s0, s1, s2) = (p("s0"), p("s1"), p("s2"));

    assert_eq!(env.expect(&s0, Relation::Eq, &s1), Ok(true));
    assert_eq!(guard_texts(&env), ["expect(s0 == s1)"]);
    // False under hints: the negation is recorded, which here is the same guard.
    assert_eq!(env.expect(&s0, Relation::Ne, &s1), Ok(false));
    assert_eq!(guard_texts(&env), ["expect(s0 == s1)"]);
    assert_eq!(env.expect(&s2, Relation::Lt, &s0), Ok(false));
    assert_eq!(guard_texts(&env), ["expect(s0 == s1)", "expect(s2 >= s0)"]);
    // Statically decided: nothing recorded.
    assert_eq!(env.expect(&s0, Relation::Ge, &p("1")), Ok(true));
    assert_eq!(env.expect(&s0, Relation::Gt, &(&s0 + 1)), Ok(false));
    assert_eq!(env.guards().len(), 2);
    assert!(env.guards().iter().all(|g| g.kind == GuardKind::Expect));
    // Expect guards are not facts.
    assert_eq!(env.static_check(&s0, Relation::Eq, &s1), Tri::Unknown);

    let missing = env.expect(&s0, Relation::Lt, &p("s9"));
    assert_eq!(
        missing,
        Err(GuardError::NoHint(Guard::new(
            GuardKind::Expect,
            &s0,
            Relation::Lt,
            &p("s9")
        )))
    );
    let message = missing.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("expect(s0 < s9)"), "{message}");
    assert_eq!(env.guards().len(), 2);
}

#[test]
fn assert_records_and_rejects() {
    let mut env = ShapeEnv::new();
    env.set_hint("s0", 4);
    env.set_hint("s1", 4);
    let (s0, s1) = (p("s0"), p("s1"));

    let violated = env.assert_rel(&s0, Relation::Lt, &p("1"));
    assert!(matches!(violated, Err(GuardError::Violated(_))));
    assert!(violated
        .err()
        .is_some_and(|e| e.to_string().contains("assert(s0 < 1)")));
    assert_eq!(env.assert_rel(&s0, Relation::Ge, &p("1")), Ok(()));
    assert!(env.guards().is_empty());
    // Contradicted by hints.
    assert!(matches!(
        env.assert_rel(&s0, Relation::Gt, &s1),
        Err(GuardError::Violated(_))
    ));
    assert!(env.guards().is_empty());
    // Unknown and consistent with hints: recorded.
    assert_eq!(env.assert_rel(&s1, Relation::Eq, &p("s3")), Ok(()));
    assert_eq!(guard_texts(&env), ["assert(s1 == s3)"]);
    assert_eq!(env.guards()[0].kind, GuardKind::Assert);
    // ...and now used: s3 is rewritten to s1.
    assert_eq!(env.simplify(&p("s3*2+s1")), p("3*s1"));
    assert_eq!(env.static_check(&p("s3"), Relation::Eq, &s1), Tri::True);
    assert_eq!(env.hint_eval(&p("s3")), Some(4));
    // The same assert again is statically true: not recorded twice.
    assert_eq!(env.assert_rel(&p("s3"), Relation::Eq, &s1), Ok(()));
    assert_eq!(env.guards().len(), 1);
}

#[test]
fn asserted_equalities_rewrite_larger_side() {
    let mut env = ShapeEnv::new();
    assert_eq!(
        env.assert_rel(&p("s0*s1"), Relation::Eq, &p("4*s2")),
        Ok(())
    );
    assert_eq!(guard_texts(&env), ["assert(s0*s1 == 4*s2)"]);
    assert_eq!(env.simplify(&p("8*s2+1")), p("2*s0*s1+1"));
    assert_eq!(env.simplify(&p("s2")), p("s2"));
    assert_eq!(
        env.static_check(&p("s0*s1"), Relation::Eq, &p("4*s2")),
        Tri::True
    );
    assert_eq!(env.simplify(&p("floor(12*s2/s0)")), p("3*s1"));

    // A constant multiple is normalized: 4*s4 == 32 rewrites s4 itself.
    assert_eq!(env.assert_rel(&p("4*s4"), Relation::Eq, &p("32")), Ok(()));
    assert_eq!(env.simplify(&p("s4+s5")), p("s5+8"));
    assert_eq!(env.bounds(&p("s4")), (Some(8), Some(8)));

    // A non-linear constant multiple: 4*m*n == 8*k rewrites m*n to 2*k.
    assert_eq!(
        env.assert_rel(&p("4*m*n"), Relation::Eq, &p("8*k*k")),
        Ok(())
    );
    assert_eq!(env.simplify(&p("m*n*j")), p("2*j*k*k"));

    // Solvable for a symbol: the largest linear symbol is replaced.
    assert_eq!(env.assert_rel(&p("a+b"), Relation::Eq, &p("c+d")), Ok(()));
    assert_eq!(env.simplify(&p("d")), p("a+b-c"));
    assert_eq!(env.simplify(&p("2*c+2*d+1")), p("2*a+2*b+1"));
    assert_eq!(env.simplify(&p("c+1")), p("c+1"));

    // `v -> u*v` would rewrite its own result forever: kept as a fact, not a rewrite.
    assert_eq!(env.assert_rel(&p("v"), Relation::Eq, &p("u*v")), Ok(()));
    assert_eq!(env.simplify(&p("v+1")), p("v+1"));
    assert_eq!(
        env.static_check(&p("u*v"), Relation::Eq, &p("v")),
        Tri::True
    );
}

#[test]
fn asserted_equalities_replace_symbols_by_expressions() {
    let mut env = ShapeEnv::new();
    env.set_hint("s1", 10);
    assert_eq!(
        env.assert_rel(&p("s0"), Relation::Eq, &p("floor(s1/2)")),
        Ok(())
    );
    assert_eq!(env.simplify(&p("2*s0+1")), p("2*floor(s1/2)+1"));
    assert_eq!(env.hint_eval(&p("s0")), Some(5));
    assert_eq!(
        env.static_check(&p("s0*2"), Relation::Le, &p("s1")),
        Tri::True
    );
    // Inside call arguments too, re-canonicalizing afterwards.
    assert_eq!(env.simplify(&p("mod(4*s0, 2*floor(s1/2))")), p("0"));
    // An expression in terms of an already rewritten symbol is rewritten in turn.
    assert_eq!(env.assert_rel(&p("s2"), Relation::Eq, &p("s0+3")), Ok(()));
    assert_eq!(env.simplify(&p("s2")), p("floor(s1/2)+3"));
    assert_eq!(env.hint_eval(&p("s2")), Some(8));
}

#[test]
fn asserted_inequalities_decide_later_checks() {
    let mut env = ShapeEnv::new();
    assert_eq!(env.assert_rel(&p("s5"), Relation::Ge, &p("16")), Ok(()));
    assert_eq!(env.bounds(&p("s5")), (Some(16), None));
    assert_eq!(check(&env, "s5", Relation::Gt, "8"), Tri::True);
    assert_eq!(check(&env, "floor(s5/16)", Relation::Ge, "1"), Tri::True);

    assert_eq!(env.assert_rel(&p("a"), Relation::Gt, &p("b")), Ok(()));
    assert_eq!(check(&env, "a", Relation::Ge, "b+1"), Tri::True);
    assert_eq!(check(&env, "2*b", Relation::Lt, "2*a"), Tri::True);
    assert_eq!(check(&env, "b", Relation::Eq, "a"), Tri::False);
    assert_eq!(check(&env, "a", Relation::Gt, "b+1"), Tri::Unknown);
    // Statically contradicting an earlier assert is a violation.
    assert!(matches!(
        env.assert_rel(&p("a"), Relation::Le, &p("b")),
        Err(GuardError::Violated(_))
    ));

    env.declare(SymbolInfo::new("s7").with_range(4, Some(5)));
    assert_eq!(check(&env, "s7", Relation::Eq, "5"), Tri::Unknown);
    assert_eq!(env.assert_rel(&p("s7"), Relation::Ne, &p("4")), Ok(()));
    assert_eq!(check(&env, "s7", Relation::Eq, "4"), Tri::False);
    assert_eq!(check(&env, "s7", Relation::Eq, "5"), Tri::True);
}

#[test]
fn guard_text_round_trips() {
    for text in [
        "expect(s1 == s3)",
        "assert(s0*s1 == 4*s2)",
        "expect(floor(s0/2) >= 3)",
        "assert(s0 != 1)",
        "expect(s0 < s1+1)",
        "assert(min(a, b) <= 8)",
        "expect(s0 > -2)",
    ] {
        let guard = match Guard::parse(text) {
            Ok(g) => g,
            Err(e) => panic!("{text:?}: {e}"),
        };
        assert_eq!(guard.to_string(), text);
        assert_eq!(text.parse::<Guard>().ok(), Some(guard));
    }
    let spaced = Guard::parse("  expect ( s1*s0>=s2 ) ");
    assert_eq!(
        spaced.ok(),
        Some(Guard::new(
            GuardKind::Expect,
            &p("s0*s1"),
            Relation::Ge,
            &p("s2")
        ))
    );
}

#[test]
fn guard_parse_errors() {
    let offset = |text: &str| Guard::parse(text).err().map(|e| e.offset);
    assert_eq!(offset("check(s0 == 1)"), Some(0));
    assert_eq!(offset("expect s0 == 1"), Some(7));
    assert_eq!(offset("expect(s0 == 1"), Some(14));
    assert_eq!(offset("expect(s0)"), Some(7));
    assert_eq!(offset("expect(s0 = 1)"), Some(10));
    assert_eq!(offset("expect(s0 < 1 < 2)"), Some(14));
    assert_eq!(offset("expect(s0 == )"), Some(13));
    assert_eq!(offset("assert(s0 + * 1 == 2)"), Some(12));
}

#[test]
fn tri_helpers() {
    assert_eq!(Tri::from(true), Tri::True);
    assert_eq!(Tri::False.as_bool(), Some(false));
    assert_eq!(Tri::Unknown.as_bool(), None);
    assert_eq!(Relation::Le.negate(), Relation::Gt);
    assert!(Relation::Ne.holds(1, 2));
}

/// A chain of derived symbols as `--infer-symbolic-shapes` writes them for a concat chain:
/// `d0 = s0+...+s8`, then `d<k> = d<k-1> + ` eight more symbols.
fn derived_chain(links: usize) -> ShapeEnv {
    let mut env = ShapeEnv::new();
    let sum = |range: std::ops::Range<usize>| {
        range
            .map(|i| Expr::symbol(&format!("s{i}")))
            .fold(Expr::constant(0), |acc, s| acc + s)
    };
    env.define("d0", &sum(0..9));
    for k in 1..links {
        let definition = Expr::symbol(&format!("d{}", k - 1)) + sum(1 + 8 * k..9 + 8 * k);
        env.define(&format!("d{k}"), &definition);
    }
    env
}

#[test]
fn derived_symbols_have_their_definition_range() {
    let env = derived_chain(3);
    // d2 stands for 25 symbols of at least 1 each.
    assert_eq!(env.bounds(&Expr::symbol("d2")), (Some(25), None));
    assert_eq!(
        env.definition("d1").map(ToString::to_string).as_deref(),
        Some("d0+s10+s11+s12+s13+s14+s15+s16+s9")
    );
}

#[test]
fn comparisons_of_derived_symbols_unfold_their_definitions() {
    let env = derived_chain(40);
    let d = |k: usize| Expr::symbol(&format!("d{k}"));
    // Ranges alone cannot order d39 and d38; their definitions can.
    assert_eq!(env.static_check(&d(39), Relation::Gt, &d(38)), Tri::True);
    assert_eq!(env.static_check(&d(3), Relation::Lt, &d(30)), Tri::True);
    // The verifier's question: is the declared name the computed sum?
    let spelled = d(38) + Expr::symbol("s313");
    let mut sum = spelled.clone();
    for i in 314..321 {
        sum = sum + Expr::symbol(&format!("s{i}"));
    }
    assert_eq!(env.static_check(&d(39), Relation::Eq, &sum), Tri::True);
    assert_eq!(env.static_check(&d(39), Relation::Eq, &spelled), Tri::False);
    // Unrelated sizes stay undecided.
    assert_eq!(
        env.static_check(&d(5), Relation::Lt, &Expr::symbol("t")),
        Tri::Unknown
    );
}

#[test]
fn a_derived_symbol_takes_its_hint_from_the_definition() {
    let mut env = ShapeEnv::new();
    env.set_hint("s0", 3);
    env.set_hint("s1", 4);
    env.define("d0", &(Expr::symbol("s0") + Expr::symbol("s1")));
    assert_eq!(env.hint_eval(&(Expr::symbol("d0") * 2)), Some(14));
}
