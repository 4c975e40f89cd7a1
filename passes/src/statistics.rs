//! Pass statistics of autofuse passes.
//!
//! External passes cannot declare MLIR statistics through the C API, so passes record
//! counters here and `autofuse-opt --mlir-pass-statistics` prints them after MLIR's own
//! report, in the same layout.

use std::sync::Mutex;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statistic {
    pub pass: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub value: u64,
}

static STATS: Mutex<Vec<Statistic>> = Mutex::new(Vec::new());

/// Adds `value` to a counter of a pass.
pub fn add(pass: &'static str, name: &'static str, description: &'static str, value: u64) {
    let mut stats = STATS.lock().unwrap_or_else(|p| p.into_inner());
    match stats.iter_mut().find(|s| s.pass == pass && s.name == name) {
        Some(stat) => stat.value += value,
        None => stats.push(Statistic {
            pass,
            name,
            description,
            value,
        }),
    }
}

/// Takes all counters recorded so far.
pub fn drain() -> Vec<Statistic> {
    std::mem::take(&mut *STATS.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Formats counters like MLIR's `--mlir-pass-statistics` list display.
pub fn report(stats: &[Statistic]) -> String {
    if stats.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "===-------------------------------------------------------------------------===\n\
         \x20                       ... autofuse pass statistics report ...\n\
         ===-------------------------------------------------------------------------===\n",
    );
    let mut passes: Vec<&'static str> = stats.iter().map(|s| s.pass).collect();
    passes.dedup();
    for pass in passes {
        out.push_str(&format!("'{pass}'\n"));
        for s in stats.iter().filter(|s| s.pass == pass) {
            out.push_str(&format!("  ({}) {} - {}\n", s.value, s.name, s.description));
        }
    }
    out
}
