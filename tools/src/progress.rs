//! Progress of the long steps of a tool run (import, compile pipeline and its passes,
//! kernel build, each shape run), on stderr so that stdout stays the result.
//!
//! When stderr is a terminal, each step is a spinner with its elapsed time (indicatif),
//! cleared when the step ends, so the screen keeps only the result; a compile names the
//! pass that runs. Otherwise (a log, a pipe, CI) each step is one plain line
//! `tool: step...` when it starts, so logs stay readable and show where a long run is.
//! `AUTOFUSE_PROGRESS=plain` asks for the plain lines on a terminal too; the line of a
//! compile or a build is completed as the step goes, with the passes of a compile as
//! they start and the step's elapsed time (`tool: compiling... fuse schedule (1.2 s)`),
//! still one line a step. `--quiet` (or `AUTOFUSE_PROGRESS=off`) prints nothing.

use autofuse_passes::pipeline::with_pass_observer;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Off,
    /// Not a terminal: one line per step, when it starts.
    Plain,
    /// `AUTOFUSE_PROGRESS=plain`: one line per step; that of a compile or a build names
    /// the passes as they start and ends with the step's elapsed time.
    PlainTimed,
    /// A terminal: a spinner per step, naming the pass that runs.
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
        Progress::with_default(tool, quiet, Mode::Plain)
    }

    /// As [`Progress::new`], with `not_terminal` the mode when stderr is not a terminal
    /// and `AUTOFUSE_PROGRESS` asks for nothing (a tool that printed no progress before
    /// keeps its logs unchanged with `Mode::Off`).
    pub fn with_default(tool: &'static str, quiet: bool, not_terminal: Mode) -> Progress {
        let forced = std::env::var("AUTOFUSE_PROGRESS").unwrap_or_default();
        let mode = match forced.as_str() {
            _ if quiet => Mode::Off,
            "off" | "0" => Mode::Off,
            "plain" => Mode::PlainTimed,
            _ if std::io::stderr().is_terminal() => Mode::Spinner,
            _ => not_terminal,
        };
        Progress { tool, mode }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Runs `work` as the step `what`, shown while it runs.
    pub fn step<T>(&self, what: &str, work: impl FnOnce() -> T) -> T {
        self.run_step(what, Detail::None, work)
    }

    /// [`Progress::step`] whose plain line (`AUTOFUSE_PROGRESS=plain`) ends with the
    /// step's elapsed time.
    pub fn step_timed<T>(&self, what: &str, work: impl FnOnce() -> T) -> T {
        self.run_step(what, Detail::Time, work)
    }

    /// Runs `work` (which runs pass pipelines) as the step `what`, naming each autofuse
    /// pass as it starts (on a spinner, or on the step's line with
    /// `AUTOFUSE_PROGRESS=plain`, which ends with the elapsed time).
    pub fn step_with_passes<T>(&self, what: &str, work: impl FnOnce() -> T) -> T {
        self.run_step(what, Detail::PassesAndTime, work)
    }

    fn run_step<T>(&self, what: &str, detail: Detail, work: impl FnOnce() -> T) -> T {
        let passes = detail == Detail::PassesAndTime;
        match self.mode {
            Mode::Off => work(),
            Mode::Plain => {
                eprintln!("{}: {what}...", self.tool);
                work()
            }
            Mode::PlainTimed if detail == Detail::None => {
                eprintln!("{}: {what}...", self.tool);
                work()
            }
            Mode::PlainTimed => {
                let started = Instant::now();
                eprint!("{}: {what}...", self.tool);
                let result = if passes {
                    with_pass_observer(Arc::new(|pass: &str| eprint!(" {pass}")), work)
                } else {
                    work()
                };
                eprintln!(" ({})", elapsed_text(started.elapsed()));
                result
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
                let result = if passes {
                    let shown = bar.clone();
                    let what = what.to_string();
                    let observer = move |pass: &str| shown.set_message(format!("{what}: {pass}"));
                    with_pass_observer(Arc::new(observer), work)
                } else {
                    work()
                };
                bar.finish_and_clear();
                result
            }
        }
    }
}

/// What a step's plain line shows besides its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    None,
    Time,
    PassesAndTime,
}

/// `0.4 s`, `12.3 s`, `2 min 05 s`.
fn elapsed_text(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else {
        let whole = elapsed.as_secs();
        format!("{} min {:02} s", whole / 60, whole % 60)
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
        assert_eq!(p.step_with_passes("work", || 43), 43);
        assert_eq!(p.step_timed("work", || 44), 44);
    }

    #[test]
    fn elapsed_time_reads_in_seconds_then_minutes() {
        assert_eq!(elapsed_text(Duration::from_millis(400)), "0.4 s");
        assert_eq!(elapsed_text(Duration::from_millis(12_340)), "12.3 s");
        assert_eq!(elapsed_text(Duration::from_secs(125)), "2 min 05 s");
    }
}
