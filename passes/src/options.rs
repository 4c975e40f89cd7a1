//! Pass options as written in a pipeline (`fuse{max-rounds=3 max-inputs=8}`) or as
//! flag values (`--fuse="max-rounds=3"`), checked against the pass's declared options.

use crate::registry::PassInfo;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassOptions {
    values: BTreeMap<String, String>,
}

impl PassOptions {
    /// Parses `key=value key2=value2` (spaces or commas between entries; values may be
    /// quoted or braced) and checks every key is an option of `pass`.
    pub fn parse(pass: &PassInfo, text: &str) -> Result<PassOptions, String> {
        let mut values = BTreeMap::new();
        let names: Vec<&str> = pass.options.iter().map(|o| o.name).collect();
        for entry in split_entries(text, &names)? {
            let (key, value) = match entry.split_once('=') {
                Some((k, v)) => (k.trim(), unquote(v.trim())),
                None => (entry.trim(), "true".to_string()),
            };
            if !pass.options.iter().any(|o| o.name == key) {
                let known: Vec<&str> = pass.options.iter().map(|o| o.name).collect();
                return Err(format!(
                    "pass '{}' has no option '{key}' (options: {})",
                    pass.argument,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            if let Some(info) = pass.options.iter().find(|o| o.name == key) {
                check_value(pass, info, &value)?;
            }
            values.insert(key.to_string(), value);
        }
        Ok(PassOptions { values })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn get_usize(&self, name: &str, default: usize) -> Result<usize, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("option '{name}' expects a non-negative integer, got '{v}'")),
        }
    }

    pub fn get_bool(&self, name: &str, default: bool) -> Result<bool, String> {
        match self.get(name) {
            None => Ok(default),
            Some("true") | Some("1") => Ok(true),
            Some("false") | Some("0") => Ok(false),
            Some(v) => Err(format!("option '{name}' expects true or false, got '{v}'")),
        }
    }

    /// The options as pipeline text (`{a=1 b=2}`), empty when none are set.
    pub fn to_pipeline_text(&self) -> String {
        if self.values.is_empty() {
            return String::new();
        }
        let entries: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{{{}}}", entries.join(" "))
    }
}

/// Checks a value against its option's kind (`uint`/`unsigned`/`usize`: a non-negative
/// integer; `bool`: true, false, 1 or 0; a `target`: a known chip profile), so that a bad
/// value is refused where the options are read (the command line), not when the pass
/// runs.
fn check_value(
    pass: &PassInfo,
    info: &crate::registry::OptionInfo,
    value: &str,
) -> Result<(), String> {
    let bad = |expects: &str| {
        Err(format!(
            "option '{}' expects {expects}, got '{value}' (pass '{}')",
            info.name, pass.argument
        ))
    };
    match info.kind {
        "uint" | "unsigned" | "usize" if value.parse::<usize>().is_err() => {
            bad("a non-negative integer")
        }
        "bool" if !matches!(value, "true" | "false" | "1" | "0") => bad("true or false"),
        _ if info.name == "target" => autofuse_ascir::chip::ChipProfile::lookup(value)
            .map(|_| ())
            .map_err(|e| format!("{e} (option 'target' of pass '{}')", pass.argument)),
        _ => Ok(()),
    }
}

fn unquote(text: &str) -> String {
    let t = text.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('{', '}')] {
        if t.len() >= 2 && t.starts_with(open) && t.ends_with(close) {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}

/// Splits at whitespace, and at commas that start a new `option=` (so values such as
/// `s0=4,s1=8` keep their commas).
fn split_entries(text: &str, names: &[&str]) -> Result<Vec<String>, String> {
    let starts_option = |rest: &str| {
        names.iter().any(|n| {
            rest.trim_start()
                .strip_prefix(n)
                .is_some_and(|r| r.starts_with('=') || r.is_empty() || r.starts_with([' ', ',']))
        })
    };
    let mut entries = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (index, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '"') | (None, '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '{') => {
                depth += 1;
                current.push(c);
            }
            (None, '}') => {
                depth -= 1;
                current.push(c);
            }
            (None, c)
                if depth == 0
                    && (c.is_whitespace() || (c == ',' && starts_option(&text[index + 1..]))) =>
            {
                if !current.trim().is_empty() {
                    entries.push(std::mem::take(&mut current));
                }
                current.clear();
            }
            (None, c) => current.push(c),
        }
    }
    if quote.is_some() || depth != 0 {
        return Err(format!("unbalanced quotes or braces in options '{text}'"));
    }
    if !current.trim().is_empty() {
        entries.push(current);
    }
    Ok(entries)
}
