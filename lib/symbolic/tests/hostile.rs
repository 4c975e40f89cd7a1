//! Hostile expression texts found by fuzzing (scripts/fuzz.sh, target symbolic_expr):
//! parsing must stay bounded in time and memory.

use autofuse_symbolic::Expr;
use std::sync::mpsc;
use std::time::Duration;

/// Parses `text` on another thread and returns its printed form, or fails the test after
/// `seconds` (the parse is left running; the test process ends with the test).
fn parse_within(text: String, seconds: u64) -> String {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let printed = Expr::parse_uncached(&text).map(|e| e.to_string());
        let _ = send.send(printed);
    });
    match receive.recv_timeout(Duration::from_secs(seconds)) {
        Ok(Ok(printed)) => printed,
        Ok(Err(e)) => panic!("does not parse: {e}"),
        Err(_) => panic!("parsing took over {seconds} s"),
    }
}

/// A product of n sums of 3 terms expands into 3^n terms: 531441 for 12 sums, an
/// unbounded hang and allocation as n grows (a 250-byte fuzz input took seconds). Such
/// a text is refused with an error.
#[test]
fn products_of_sums_too_large_to_expand_are_refused() {
    let factors: Vec<String> = (0..12)
        .map(|i| format!("(s{}+s{}+1)", 2 * i, 2 * i + 1))
        .collect();
    let text = factors.join("*");
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(Expr::parse_uncached(&text).map_err(|e| e.to_string()));
    });
    match receive.recv_timeout(Duration::from_secs(60)) {
        Ok(Err(message)) => assert!(message.contains("more than 4096 terms"), "{message}"),
        Ok(Ok(e)) => panic!("parsed into {} bytes of text", e.to_string().len()),
        Err(_) => panic!("parsing took over 60 s"),
    }
    // Products that stay within the bound still expand.
    let small = parse_within(factors[..7].join("*"), 60);
    assert!(
        small.contains("s0*s10*s12*s2*s4*s6*s8"),
        "{}",
        &small[..200]
    );
}

/// A sum of n terms is accumulated in place: it used to copy the partial sum at each
/// term (O(n^2): minutes for 50000 terms).
#[test]
fn long_sums_parse_in_near_linear_time() {
    let terms: Vec<String> = (0..50_000).map(|i| format!("{}*s{i}", i % 7 + 1)).collect();
    let printed = parse_within(terms.join(" + "), 60);
    assert!(printed.contains("s49999"));
}

/// A short text whose canonical form repeats subexpressions (divisions distributed over
/// sums) printed far longer than itself: 256 bytes of the fuzzer's printed as 205 KB
/// (72614 nodes), and deeper nesting grows exponentially. Such a text is refused; what
/// the printer writes always parses back.
#[test]
fn texts_whose_canonical_form_prints_far_longer_are_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/regressions/symbolic_expr/print-blowup"
    );
    let text = std::fs::read_to_string(path).expect("the regression input");
    match Expr::parse_uncached(&text) {
        Err(e) => assert!(e.to_string().contains("prints as more than"), "{e}"),
        Ok(e) => panic!("parsed into {} bytes of text", e.to_string().len()),
    }
    // Under the bound, a repeated form parses, and its printed text parses back.
    let moderate = "floor((s0 + floor((s1 + s2)/3))/5) * (s3 + s4 + 1) * (s5 + s6 + 1)";
    let printed = parse_within(moderate.to_string(), 60);
    assert_eq!(
        Expr::parse_uncached(&printed).expect("printed text parses"),
        Expr::parse_uncached(moderate).expect("parses")
    );
}
