//! Property tests: canonicalization preserves values (checked against a naive tree
//! evaluator written independently of the library), printing round-trips,
//! substitution composes, and static checks never contradict evaluation.

use std::collections::HashMap;

use autofuse_symbolic::{Expr, Relation, ShapeEnv, SymbolInfo, Tri};
use proptest::prelude::*;

const NAMES: [&str; 3] = ["s0", "s1", "s2"];

/// An expression tree exactly as written, before any canonicalization.
#[derive(Debug, Clone)]
enum Tree {
    Const(i64),
    Sym(usize),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    FloorDiv(Box<Tree>, Box<Tree>),
    CeilDiv(Box<Tree>, Box<Tree>),
    Mod(Box<Tree>, Box<Tree>),
    Min(Box<Tree>, Box<Tree>),
    Max(Box<Tree>, Box<Tree>),
    Align(Box<Tree>, Box<Tree>),
}

/// Trees with small constants, where every value is representable.
fn tree() -> impl Strategy<Value = Tree> {
    tree_with((-6i64..=6).boxed())
}

/// Trees whose constants include the `i64` extremes, to drive the overflow paths.
fn extreme_tree() -> impl Strategy<Value = Tree> {
    tree_with(
        prop_oneof![
            any::<i64>(),
            Just(i64::MIN),
            Just(i64::MAX),
            Just(1i64 << 62),
            -3i64..=3,
        ]
        .boxed(),
    )
}

fn tree_with(constants: BoxedStrategy<i64>) -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        constants.prop_map(Tree::Const),
        (0usize..3).prop_map(Tree::Sym),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let pair = || (inner.clone(), inner.clone());
        let b = Box::new;
        prop_oneof![
            pair().prop_map(move |(x, y)| Tree::Add(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Sub(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Mul(b(x), b(y))),
            inner.clone().prop_map(move |x| Tree::Neg(b(x))),
            pair().prop_map(move |(x, y)| Tree::FloorDiv(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::CeilDiv(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Mod(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Min(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Max(b(x), b(y))),
            pair().prop_map(move |(x, y)| Tree::Align(b(x), b(y))),
            // Arguments differing by a constant exercise min/max pruning.
            (inner.clone(), -3i64..=3, any::<bool>()).prop_map(move |(x, c, is_min)| {
                let shifted = Tree::Add(b(x.clone()), b(Tree::Const(c)));
                if is_min {
                    Tree::Min(b(x), b(shifted))
                } else {
                    Tree::Max(b(shifted), b(x))
                }
            }),
        ]
    })
}

/// Builds the library expression through the public operators and methods.
fn build(t: &Tree) -> Expr {
    match t {
        Tree::Const(c) => Expr::constant(*c),
        Tree::Sym(i) => Expr::symbol(NAMES[*i]),
        Tree::Add(a, b) => build(a) + build(b),
        Tree::Sub(a, b) => build(a) - build(b),
        Tree::Mul(a, b) => &build(a) * &build(b),
        Tree::Neg(a) => -build(a),
        Tree::FloorDiv(a, b) => build(a).floor_div(&build(b)),
        Tree::CeilDiv(a, b) => build(a).ceil_div(&build(b)),
        Tree::Mod(a, b) => build(a).modulo(&build(b)),
        Tree::Min(a, b) => Expr::min(&build(a), &build(b)),
        Tree::Max(a, b) => Expr::max(&build(a), &build(b)),
        Tree::Align(a, b) => build(a).align(&build(b)),
    }
}

/// Floor division by the textbook route: shift the dividend down to a multiple of a
/// positive divisor, flipping signs first for a negative one.
fn naive_floor(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    if b < 0 {
        return naive_floor(a.checked_neg()?, b.checked_neg()?);
    }
    a.checked_sub(a.rem_euclid(b))?.checked_div(b)
}

/// Direct evaluation of the tree as written; `None` on division by zero or overflow.
fn naive(t: &Tree, vals: &[i64; 3]) -> Option<i64> {
    let two = |a: &Tree, b: &Tree| Some((naive(a, vals)?, naive(b, vals)?));
    match t {
        Tree::Const(c) => Some(*c),
        Tree::Sym(i) => Some(vals[*i]),
        Tree::Add(a, b) => two(a, b).and_then(|(x, y)| x.checked_add(y)),
        Tree::Sub(a, b) => two(a, b).and_then(|(x, y)| x.checked_sub(y)),
        Tree::Mul(a, b) => two(a, b).and_then(|(x, y)| x.checked_mul(y)),
        Tree::Neg(a) => naive(a, vals)?.checked_neg(),
        Tree::FloorDiv(a, b) => two(a, b).and_then(|(x, y)| naive_floor(x, y)),
        Tree::CeilDiv(a, b) => {
            two(a, b).and_then(|(x, y)| naive_floor(x.checked_neg()?, y)?.checked_neg())
        }
        Tree::Mod(a, b) => {
            two(a, b).and_then(|(x, y)| x.checked_sub(y.checked_mul(naive_floor(x, y)?)?))
        }
        Tree::Min(a, b) => two(a, b).map(|(x, y)| x.min(y)),
        Tree::Max(a, b) => two(a, b).map(|(x, y)| x.max(y)),
        Tree::Align(a, b) => two(a, b).and_then(|(x, y)| {
            naive_floor(x.checked_neg()?, y)?
                .checked_neg()?
                .checked_mul(y)
        }),
    }
}

fn env_of(vals: &[i64; 3]) -> HashMap<String, i64> {
    NAMES
        .iter()
        .zip(vals)
        .map(|(n, v)| (n.to_string(), *v))
        .collect()
}

fn relation() -> impl Strategy<Value = Relation> {
    prop_oneof![
        Just(Relation::Eq),
        Just(Relation::Ne),
        Just(Relation::Lt),
        Just(Relation::Le),
        Just(Relation::Gt),
        Just(Relation::Ge),
    ]
}

/// `(min, max)` per symbol, all ranges starting at 1 or above like sizes do.
fn ranges() -> impl Strategy<Value = [(i64, Option<i64>); 3]> {
    let one = (1i64..=6, proptest::option::of(0i64..=10))
        .prop_map(|(lo, width)| (lo, width.map(|w| lo + w)));
    [one.clone(), one.clone(), one]
}

/// Points inside the ranges (unbounded ranges sampled up to `min + 20`).
fn point_in(ranges: &[(i64, Option<i64>); 3], offsets: &[i64; 3]) -> [i64; 3] {
    let mut out = [0; 3];
    for i in 0..3 {
        let (lo, hi) = ranges[i];
        let v = lo + offsets[i];
        out[i] = hi.map_or(v, |h| v.min(h));
    }
    out
}

fn declare_ranges(env: &mut ShapeEnv, ranges: &[(i64, Option<i64>); 3]) {
    for (name, (lo, hi)) in NAMES.iter().zip(ranges) {
        env.declare(SymbolInfo::new(name).with_range(*lo, *hi));
    }
}

/// Asserts that a decided static check agrees with evaluation at `point`.
fn agrees(verdict: Tri, lhs: &Expr, rel: Relation, rhs: &Expr, point: &[i64; 3]) -> bool {
    let env = env_of(point);
    match (lhs.eval_map(&env), rhs.eval_map(&env)) {
        (Ok(a), Ok(b)) => match verdict {
            Tri::True => rel.holds(a, b),
            Tri::False => !rel.holds(a, b),
            Tri::Unknown => true,
        },
        _ => true,
    }
}

proptest! {
    #[test]
    fn canonical_form_preserves_value(t in tree(), vals in [1i64..=12, 1i64..=12, 1i64..=12]) {
        if let Some(expected) = naive(&t, &vals) {
            let e = build(&t);
            prop_assert_eq!(e.eval_map(&env_of(&vals)), Ok(expected), "tree {:?} canonical {}", t, e);
        }
    }

    #[test]
    fn display_parse_round_trip(t in tree(), vals in [1i64..=12, 1i64..=12, 1i64..=12]) {
        let e = build(&t);
        let text = e.to_string();
        let back = Expr::parse(&text);
        prop_assert_eq!(back.as_ref().ok(), Some(&e), "text {:?}", text);
        let env = env_of(&vals);
        prop_assert_eq!(back.map(|b| b.eval_map(&env)).ok(), Some(e.eval_map(&env)));
    }

    #[test]
    fn substitute_composes_with_eval(
        t in tree(),
        images in [tree(), tree(), tree()],
        vals in [1i64..=6, 1i64..=6, 1i64..=6],
    ) {
        let e = build(&t);
        let map: HashMap<String, Expr> =
            NAMES.iter().zip(&images).map(|(n, img)| (n.to_string(), build(img))).collect();
        let env = env_of(&vals);
        let mut composed = [0i64; 3];
        for (slot, name) in composed.iter_mut().zip(NAMES) {
            match map[name].eval_map(&env) {
                Ok(v) => *slot = v,
                Err(_) => return Ok(()),
            }
        }
        let direct = e.eval_map(&env_of(&composed));
        let substituted = e.substitute(&map).eval_map(&env);
        if let Ok(v) = direct {
            prop_assert!(
                substituted == Ok(v) || substituted == Err(autofuse_symbolic::EvalError::Overflow),
                "{} with {:?}: direct {} substituted {:?}", e, map, v, substituted
            );
        }
    }

    #[test]
    fn static_check_never_contradicts_evaluation(
        rs in ranges(),
        lhs in tree(),
        rhs in tree(),
        rel in relation(),
        offsets in proptest::collection::vec([0i64..=20, 0i64..=20, 0i64..=20], 12),
    ) {
        let mut env = ShapeEnv::new();
        declare_ranges(&mut env, &rs);
        let (l, r) = (build(&lhs), build(&rhs));
        let verdict = env.static_check(&l, rel, &r);
        for off in &offsets {
            let point = point_in(&rs, off);
            prop_assert!(agrees(verdict, &l, rel, &r, &point),
                "{} {} {} judged {:?} at {:?}", l, rel, r, verdict, point);
        }
    }

    #[test]
    fn static_check_sound_under_asserts(
        rs in ranges(),
        fact in (0usize..3, 0usize..3, -3i64..=3, relation()),
        lhs in tree(),
        rhs in tree(),
        rel in relation(),
        offsets in proptest::collection::vec([0i64..=20, 0i64..=20, 0i64..=20], 24),
    ) {
        let mut env = ShapeEnv::new();
        declare_ranges(&mut env, &rs);
        let (i, j, c, fact_rel) = fact;
        let fact_lhs = Expr::symbol(NAMES[i]);
        let fact_rhs = Expr::symbol(NAMES[j]) + c;
        if env.assert_rel(&fact_lhs, fact_rel, &fact_rhs).is_err() {
            return Ok(());
        }
        let (l, r) = (build(&lhs), build(&rhs));
        let verdict = env.static_check(&l, rel, &r);
        for off in &offsets {
            let point = point_in(&rs, off);
            let fact_holds = fact_rel.holds(point[i], point[j] + c);
            if fact_holds {
                prop_assert!(agrees(verdict, &l, rel, &r, &point),
                    "assuming {} {} {}: {} {} {} judged {:?} at {:?}",
                    fact_lhs, fact_rel, fact_rhs, l, rel, r, verdict, point);
            }
        }
    }

    #[test]
    fn bounds_contain_every_value(
        rs in ranges(),
        t in tree(),
        offsets in proptest::collection::vec([0i64..=20, 0i64..=20, 0i64..=20], 12),
    ) {
        let mut env = ShapeEnv::new();
        declare_ranges(&mut env, &rs);
        let e = build(&t);
        let (lo, hi) = env.bounds(&e);
        for off in &offsets {
            let point = point_in(&rs, off);
            if let Ok(v) = e.eval_map(&env_of(&point)) {
                prop_assert!(lo.is_none_or(|l| l <= v) && hi.is_none_or(|h| v <= h),
                    "{} = {} at {:?} outside {:?}", e, v, point, (lo, hi));
            }
        }
    }
}

proptest! {
    /// Overflowing constant arithmetic never panics anywhere, and even the opaque
    /// forms it leaves behind print and re-parse exactly.
    #[test]
    fn extreme_constants_never_panic_and_round_trip(
        t in extreme_tree(),
        vals in (any::<i64>(), 1i64..=4, 1i64..=4),
    ) {
        let e = build(&t);
        let text = e.to_string();
        prop_assert_eq!(Expr::parse(&text).ok(), Some(e.clone()), "text {:?}", text);
        let _ = e.to_c_expr("t->");
        let _ = e.eval_map(&env_of(&[vals.0, vals.1, vals.2]));
        let mut env = ShapeEnv::new();
        let _ = env.bounds(&e);
        let s0 = Expr::symbol("s0");
        let _ = env.static_check(&e, Relation::Lt, &s0);
        let _ = env.assert_rel(&e, Relation::Eq, &s0);
        let _ = env.simplify(&e);
    }

    /// Arbitrary text is rejected with an error value, never a panic, and the error
    /// offset points inside the text.
    #[test]
    fn parser_never_panics(text in "[-+*/(), 0-9a-z_<>=!é]{0,40}") {
        if let Err(e) = Expr::parse(&text) {
            prop_assert!(e.offset <= text.len());
        }
        if let Err(e) = autofuse_symbolic::Guard::parse(&text) {
            prop_assert!(e.offset <= text.len());
        }
        let guarded = format!("expect({text})");
        if let Err(e) = autofuse_symbolic::Guard::parse(&guarded) {
            prop_assert!(e.offset <= guarded.len());
        }
    }
}

/// The soundness properties above would pass vacuously if `static_check` never
/// decided; make sure it decides a healthy share of random cases.
#[test]
fn static_check_decides_often() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = (ranges(), tree(), tree(), relation());
    let mut decided = 0;
    for _ in 0..300 {
        let Ok(value) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (rs, lhs, rhs, rel) = value.current();
        let mut env = ShapeEnv::new();
        declare_ranges(&mut env, &rs);
        if env.static_check(&build(&lhs), rel, &build(&rhs)) != Tri::Unknown {
            decided += 1;
        }
    }
    assert!(
        decided >= 100,
        "only {decided} of 300 random checks were decided"
    );
}
