//! The one argument layer for `--symbols` (`autofuse-opt --interpret`, `autofuse-run`).
//!
//! A `--symbols` value is `name=value,name=value`. It is checked against the entry
//! graph's symbols (those of its argument types, after `infer-symbolic-shapes`):
//! - a malformed entry (no `=`, an empty name), a value that is not a positive integer
//!   (zero, negative, not an integer, too large), a name given twice, a name that is not
//!   a symbol of the entry graph, and a symbol of the entry graph left without a value
//!   (when no guard of the graph equates it with a given one) are errors naming the
//!   symbol: command-line misuse, exit 2;
//! - only when no `--symbols` is given at all (and no input files bind the shapes) do
//!   the symbols take the documented default, [`DEFAULT_SYMBOL_VALUE`].

use autofuse_ir::graph::{Dim, Graph};
use std::collections::HashMap;

/// The value of every symbol when no `--symbols` is given (and of `?` dims, which have
/// no symbol).
pub const DEFAULT_SYMBOL_VALUE: i64 = 4;

/// Parses one `--symbols` value into (name, value) pairs in order, refusing malformed
/// entries, values that are not positive integers and duplicate names.
pub fn parse_assignments(text: &str) -> Result<Vec<(String, i64)>, String> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for pair in text.split(',') {
        let pair = pair.trim();
        if pair.is_empty() {
            return Err(format!(
                "--symbols '{text}': an empty entry (write name=value pairs separated by commas, e.g. s0=4,s1=128)"
            ));
        }
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("--symbols entry '{pair}' must look like s0=4"))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(format!("--symbols entry '{pair}' has no symbol name"));
        }
        let parsed: i64 = value.parse().map_err(|_| {
            format!("--symbols: symbol '{name}' needs a positive integer, got '{value}'")
        })?;
        if parsed <= 0 {
            return Err(format!(
                "--symbols: symbol '{name}' needs a positive integer, got {parsed}"
            ));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(format!("--symbols: symbol '{name}' is given twice"));
        }
        out.push((name.to_string(), parsed));
    }
    Ok(out)
}

/// A `--symbols` value, `s0=64,s1=8`, as symbol values, with the checks of
/// [`parse_assignments`] (positive integers, no duplicates).
pub fn parse_symbol_values(text: &str) -> Result<HashMap<String, i64>, String> {
    parse_assignments(text).map(|pairs| pairs.into_iter().collect())
}

/// The symbols of `graph`'s argument types, sorted (`s0`, `s1`, ... and names such as
/// `batch`).
pub fn graph_symbols(graph: &Graph) -> Vec<String> {
    let mut names: Vec<String> = graph
        .arguments
        .iter()
        .filter_map(|&a| graph.ty(a))
        .flat_map(|t| t.dims.iter())
        .filter_map(|d| match d {
            Dim::Known(e) => Some(e.symbols()),
            Dim::Unknown => None,
        })
        .flatten()
        .map(|s| s.to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Binds one `--symbols` value for a graph whose symbols are `known`: every name must be
/// one of them, and every one of them must get a value, from `text` or from `complete`
/// (which derives values from the given ones, e.g. by the graph's guards).
pub fn bind(
    text: &str,
    known: &[String],
    complete: &dyn Fn(&mut HashMap<String, i64>),
) -> Result<HashMap<String, i64>, String> {
    let pairs = parse_assignments(text)?;
    for (name, _) in &pairs {
        if !known.contains(name) {
            return Err(format!(
                "--symbols: '{name}' is not a symbol of the entry graph ({})",
                describe(known)
            ));
        }
    }
    let mut values: HashMap<String, i64> = pairs.into_iter().collect();
    complete(&mut values);
    let missing: Vec<&String> = known.iter().filter(|s| !values.contains_key(*s)).collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|s| format!("'{s}'")).collect();
        return Err(format!(
            "--symbols '{text}': no value for symbol {} of the entry graph ({})",
            names.join(", "),
            describe(known)
        ));
    }
    Ok(values)
}

fn describe(known: &[String]) -> String {
    if known.is_empty() {
        "it has no symbols".to_string()
    } else {
        format!("its symbols: {}", known.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        vec!["s0".into(), "s1".into()]
    }

    #[test]
    fn values_bind_every_symbol_once() {
        let v = bind("s0=3, s1=301", &known(), &|_| {}).unwrap();
        assert_eq!(v["s0"], 3);
        assert_eq!(v["s1"], 301);
    }

    #[test]
    fn bad_values_are_errors_naming_the_symbol() {
        for (text, needle) in [
            ("s0=3,s0=4", "'s0' is given twice"),
            ("s0=3,s1=4,s2=5", "'s2' is not a symbol"),
            ("s0=3", "no value for symbol 's1'"),
            ("s0=0,s1=1", "'s0' needs a positive integer, got 0"),
            ("s0=-2,s1=1", "'s0' needs a positive integer"),
            ("s0=1.5,s1=1", "'s0' needs a positive integer, got '1.5'"),
            (
                "s0=99999999999999999999,s1=1",
                "'s0' needs a positive integer",
            ),
            ("s0", "must look like s0=4"),
            ("=3", "no symbol name"),
            ("s0=1,,s1=2", "empty entry"),
        ] {
            let err = bind(text, &known(), &|_| {}).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn completion_fills_equated_symbols() {
        let v = bind("s0=7", &known(), &|m| {
            if let Some(&x) = m.get("s0") {
                m.insert("s1".into(), x);
            }
        })
        .unwrap();
        assert_eq!(v["s1"], 7);
    }
}
