//! `--verify-diagnostics`: matching emitted diagnostics against `expected-*` comments.
//!
//! Syntax (as MLIR's): `// expected-error {{substring}}`, `expected-warning`,
//! `expected-remark`, `expected-note`; `-re` variants whose `{{...}}` is a regex;
//! `@+N` / `@-N` relative lines, `@above`, `@below`, `@unknown` for diagnostics without a
//! file position; an optional count (`expected-remark 2 {{...}}`). Chunks keep the line
//! numbers of the original file, so line arithmetic is done on absolute lines.

use autofuse_mlir::diagnostics::{Diag, Severity};
use regex::Regex;

#[derive(Clone, Debug)]
pub struct Expectation {
    pub severity: Severity,
    /// `None` for `@unknown`.
    pub line: Option<usize>,
    pub matcher: Matcher,
    pub text: String,
    pub count: usize,
    /// Line of the comment, for messages.
    pub written_at: usize,
}

#[derive(Clone, Debug)]
pub enum Matcher {
    Substring(String),
    Regex(Regex),
}

impl Matcher {
    fn matches(&self, message: &str) -> bool {
        match self {
            Matcher::Substring(s) => message.contains(s.as_str()),
            Matcher::Regex(r) => r.is_match(message),
        }
    }
}

fn pattern() -> Regex {
    // expected-<kind>[-re][@<where>] [count] {{text}}
    Regex::new(r"expected-(error|warning|remark|note)(-re)?(@(above|below|unknown|[+-]\d+))?\s*(\d+)?\s*\{\{(.*?)\}\}\s*$")
        .unwrap_or_else(|_| unreachable!("the expectation pattern is a valid regex"))
}

/// Turns the body of an `expected-*-re` into a regex: `{{...}}` parts are regex,
/// everything else literal.
fn regex_of(text: &str) -> Result<Regex, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&regex::escape(&rest[..start]));
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| format!("unterminated '{{{{' in '{text}'"))?;
        out.push_str(&after[..end]);
        rest = &after[end + 2..];
    }
    out.push_str(&regex::escape(rest));
    Regex::new(&out).map_err(|e| format!("invalid regex in expected-*-re: {e}"))
}

/// Collects the expectations written in a chunk (lines are absolute, 1-based, starting
/// at `first_line`).
pub fn parse_expectations(chunk: &str, first_line: usize) -> Result<Vec<Expectation>, String> {
    let re = pattern();
    let mut out = Vec::new();
    let lines: Vec<&str> = chunk.lines().collect();
    for (offset, line) in lines.iter().enumerate() {
        let here = first_line + offset;
        let Some(comment_at) = line.find("//") else {
            continue;
        };
        let comment = &line[comment_at..];
        let Some(caps) = re.captures(comment) else {
            if comment.contains("expected-") && comment.contains("{{") {
                return Err(format!("line {here}: malformed expected-* annotation"));
            }
            continue;
        };
        let severity = match &caps[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "remark" => Severity::Remark,
            _ => Severity::Note,
        };
        let text = caps[6].to_string();
        let matcher = if caps.get(2).is_some() {
            Matcher::Regex(regex_of(&text)?)
        } else {
            Matcher::Substring(text.clone())
        };
        let line_of = |what: &str| -> Result<Option<usize>, String> {
            Ok(match what {
                "" => Some(here),
                "unknown" => None,
                "above" => Some(
                    (first_line..here)
                        .rev()
                        .find(|l| !is_comment_only(lines[l - first_line]))
                        .ok_or_else(|| format!("line {here}: no code line above"))?,
                ),
                "below" => Some(
                    (here + 1..first_line + lines.len())
                        .find(|l| !is_comment_only(lines[l - first_line]))
                        .ok_or_else(|| format!("line {here}: no code line below"))?,
                ),
                rel => {
                    let delta: i64 = rel
                        .parse()
                        .map_err(|_| format!("line {here}: bad offset '{rel}'"))?;
                    let target = here as i64 + delta;
                    if target < 1 {
                        return Err(format!(
                            "line {here}: offset '{rel}' points before the file"
                        ));
                    }
                    Some(target as usize)
                }
            })
        };
        let line_target = line_of(caps.get(4).map_or("", |m| m.as_str()))?;
        let count = caps.get(5).map_or(Ok(1), |m| {
            m.as_str().parse().map_err(|_| "bad count".to_string())
        })?;
        out.push(Expectation {
            severity,
            line: line_target,
            matcher,
            text,
            count,
            written_at: here,
        });
    }
    Ok(out)
}

fn is_comment_only(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with("//")
}

/// Flattens diagnostics with their notes (notes are matched like any diagnostic).
/// MLIR's "see current operation" notes are dropped, as `mlir-opt` does not attach them
/// under `--verify-diagnostics`.
fn flatten(diags: &[Diag]) -> Vec<&Diag> {
    let mut out = Vec::new();
    for d in diags {
        if d.severity == Severity::Note && d.message.starts_with("see current operation") {
            continue;
        }
        out.push(d);
        out.extend(flatten(&d.notes));
    }
    out
}

/// Matches diagnostics against expectations; returns the problems (empty = success).
/// `only_expected`: unexpected diagnostics are not an error.
pub fn check(
    diags: &[Diag],
    expectations: &mut [Expectation],
    file: &str,
    only_expected: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for diag in flatten(diags) {
        let line = diag.pos.as_ref().filter(|p| p.file == file).map(|p| p.line);
        let found = expectations.iter_mut().find(|e| {
            e.count > 0
                && e.severity == diag.severity
                && e.line == line
                && e.matcher.matches(&diag.message)
        });
        match found {
            Some(e) => e.count -= 1,
            None if only_expected => {}
            None => problems.push(format!("unexpected {}", diag)),
        }
    }
    for e in expectations.iter().filter(|e| e.count > 0) {
        let place = match e.line {
            Some(l) => format!("line {l}"),
            None => "an unknown location".to_string(),
        };
        problems.push(format!(
            "{file}:{}: error: expected {} \"{}\" at {place} was not produced",
            e.written_at,
            e.severity.as_str(),
            e.text
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_relative_and_counted_expectations() {
        let chunk = "%0 = x\n// expected-error@-1 {{bad thing}}\n// expected-remark-re@+1 2 {{fused {{[0-9]+}} ops}}\n%1 = y\n";
        let e = parse_expectations(chunk, 10).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].line, Some(10));
        assert_eq!(e[1].line, Some(13));
        assert_eq!(e[1].count, 2);
        assert!(e[1].matcher.matches("fused 12 ops"));
        assert!(!e[1].matcher.matches("fused many ops"));
    }

    #[test]
    fn above_and_below_skip_comment_lines() {
        let chunk = "a\n// c\n// expected-note@above {{n}}\n// expected-note@below {{m}}\n\nb\n";
        let e = parse_expectations(chunk, 1).unwrap();
        assert_eq!(e[0].line, Some(1));
        assert_eq!(e[1].line, Some(6));
    }

    #[test]
    fn malformed_annotation_is_an_error() {
        assert!(parse_expectations("// expected-eror {{x}}", 1).is_err());
    }
}
