//! Progress of the long steps of a tool run (import, compile pipeline, kernel build,
//! each shape run), on stderr so that stdout stays the result.
//!
//! When stderr is a terminal, each step is a spinner with its elapsed time (indicatif),
//! cleared when the step ends, so the screen keeps only the result. Otherwise (a log, a
//! pipe, CI) each step is one plain line `tool: step...` when it starts, so logs stay
//! readable and show where a long run is. `--quiet` (or `AUTOFUSE_PROGRESS=off`) prints
//! nothing; `AUTOFUSE_PROGRESS=plain` forces the plain lines on a terminal too.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Off,
    Plain,
    Spinner,
}

/// The progress reporter of one tool run.
pub struct Progress {
    tool: &'static str,
    mode: Mode,
}

impl Progress {
    /// Spinner on a terminal, plain lines otherwise, nothing when `quiet`.
    pub fn new(tool: &'static str, quiet: bool) -> Progress {
        let forced = std::env::var("AUTOFUSE_PROGRESS").unwrap_or_default();
        let mode = match forced.as_str() {
            _ if quiet => Mode::Off,
            "off" | "0" => Mode::Off,
            "plain" => Mode::Plain,
            _ if std::io::stderr().is_terminal() => Mode::Spinner,
            _ => Mode::Plain,
        };
        Progress { tool, mode }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Runs `work` as the step `what`, shown while it runs.
    pub fn step<T>(&self, what: &str, work: impl FnOnce() -> T) -> T {
        match self.mode {
            Mode::Off => work(),
            Mode::Plain => {
                eprintln!("{}: {what}...", self.tool);
                work()
            }
            Mode::Spinner => {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) =
                    ProgressStyle::with_template("{spinner} {prefix}: {msg} [{elapsed}]")
                {
                    bar.set_style(style);
                }
                bar.set_prefix(self.tool);
                bar.set_message(what.to_string());
                bar.enable_steady_tick(Duration::from_millis(120));
                let result = work();
                bar.finish_and_clear();
                result
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_is_silent_and_runs_the_step() {
        let p = Progress::new("t", true);
        assert_eq!(p.mode(), Mode::Off);
        assert_eq!(p.step("work", || 41 + 1), 42);
    }
}
