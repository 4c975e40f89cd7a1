//! Derived symbols: names that stand for an expression over other symbols, computed
//! rather than given (the `ascend` dialect records them in `ascend.derived_symbols`,
//! see `dialects/ascend/src/derived.rs`).

use crate::Expr;
use std::collections::{BTreeSet, HashMap};

/// The attribute name in messages.
const ATTRIBUTE: &str = "ascend.derived_symbols";

/// The derived symbols of one graph function, in definition order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DerivedSymbols {
    definitions: Vec<(String, Expr)>,
}

impl DerivedSymbols {
    /// Reads the entries of an `ascend.derived_symbols` attribute. `arguments` are the
    /// symbols of the function's argument types: a derived name must not be one of them,
    /// must be defined once, and its definition may use only them and earlier names.
    pub fn parse(entries: &[&str], arguments: &BTreeSet<String>) -> Result<DerivedSymbols, String> {
        let mut derived = DerivedSymbols::default();
        for entry in entries {
            let (name, definition) = entry.split_once('=').ok_or_else(|| {
                format!("{ATTRIBUTE}: entry '{entry}' must look like 'd0 = s0 + s1'")
            })?;
            let name = name.trim();
            if Expr::try_symbol(name).is_err() {
                return Err(format!("{ATTRIBUTE}: '{name}' is not a symbol name"));
            }
            if arguments.contains(name) {
                return Err(format!(
                    "{ATTRIBUTE}: '{name}' is a symbol of the arguments, it cannot be derived"
                ));
            }
            if derived.definition(name).is_some() {
                return Err(format!("{ATTRIBUTE}: '{name}' is defined twice"));
            }
            let expr = Expr::parse(definition.trim())
                .map_err(|e| format!("{ATTRIBUTE}: definition of '{name}': {e}"))?;
            if let Some(unknown) = expr
                .symbols()
                .into_iter()
                .find(|s| !arguments.contains(s) && derived.definition(s).is_none())
            {
                return Err(format!(
                    "{ATTRIBUTE}: definition of '{name}' uses '{unknown}', which is neither an argument symbol nor derived before it"
                ));
            }
            derived.push(name, expr);
        }
        Ok(derived)
    }

    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty()
    }

    /// Adds a definition after the others.
    pub fn push(&mut self, name: &str, definition: Expr) {
        self.definitions.push((name.to_owned(), definition));
    }

    /// The definition of `name`, if it is derived.
    pub fn definition(&self, name: &str) -> Option<&Expr> {
        self.definitions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
    }

    /// (name, definition) in definition order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Expr)> {
        self.definitions.iter().map(|(n, e)| (n.as_str(), e))
    }

    /// The attribute's entries, `name = expression`.
    pub fn entries(&self) -> Vec<String> {
        self.definitions
            .iter()
            .map(|(n, e)| format!("{n} = {e}"))
            .collect()
    }

    /// Computes every derived symbol from the bound ones, in definition order. A derived
    /// symbol that already has a value (bound from a tensor's shape) must equal its
    /// definition's value.
    pub fn evaluate(&self, symbols: &mut HashMap<String, i64>) -> Result<(), String> {
        for (name, definition) in &self.definitions {
            let value = definition
                .eval_map(symbols)
                .map_err(|e| format!("derived symbol {name} = {definition}: {e}"))?;
            match symbols.get(name) {
                Some(&bound) if bound != value => {
                    return Err(format!(
                        "derived symbol {name} = {definition} is {value}, but a shape gives {bound}"
                    ))
                }
                _ => {
                    symbols.insert(name.clone(), value);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_and_evaluates_in_definition_order() {
        let d = DerivedSymbols::parse(
            &["d0 = s0 + s1", "d1 = d0 + s2"],
            &args(&["s0", "s1", "s2"]),
        )
        .unwrap();
        assert_eq!(d.entries(), vec!["d0 = s0+s1", "d1 = d0+s2"]);
        let mut values: HashMap<String, i64> = [("s0", 2), ("s1", 3), ("s2", 5)]
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        d.evaluate(&mut values).unwrap();
        assert_eq!(values["d0"], 5);
        assert_eq!(values["d1"], 10);
    }

    #[test]
    fn refuses_malformed_definitions() {
        let a = args(&["s0", "s1"]);
        for (entries, wanted) in [
            (vec!["d0 s0"], "must look like"),
            (vec!["s0 = s1"], "cannot be derived"),
            (vec!["d0 = s0", "d0 = s1"], "defined twice"),
            (vec!["d0 = d1 + s0", "d1 = s1"], "uses 'd1'"),
            (vec!["d0 = s0 +"], "definition of 'd0'"),
            (vec!["0d = s0"], "not a symbol name"),
        ] {
            let error = DerivedSymbols::parse(&entries, &a).unwrap_err();
            assert!(error.contains(wanted), "{entries:?}: {error}");
        }
    }

    #[test]
    fn a_bound_value_must_match_the_definition() {
        let d = DerivedSymbols::parse(&["d0 = s0 + s1"], &args(&["s0", "s1"])).unwrap();
        let mut values: HashMap<String, i64> = [("s0", 2), ("s1", 3), ("d0", 6)]
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        let error = d.evaluate(&mut values).unwrap_err();
        assert!(error.contains("is 5, but a shape gives 6"), "{error}");
        values.remove("s1");
        values.remove("d0");
        assert!(
            d.evaluate(&mut values).is_err(),
            "an unbound symbol is an error"
        );
    }
}
