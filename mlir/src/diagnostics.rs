//! One ordered stream of diagnostics for a tool run.
//!
//! The MLIR C API can only emit errors, but our passes also emit warnings, remarks and
//! notes (fusion decisions are remarks). So every diagnostic, whether MLIR's own (caught
//! by a context handler) or ours (`emit`), lands in its context's list in emission
//! order. Drivers drain their context's list after each input chunk to print it or to
//! match it against `expected-*` annotations.

use melior::{diagnostic::DiagnosticSeverity, ir::Location, Context, ContextRef};
use std::fmt;
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        }
    }
}

/// A source position resolved from an MLIR location (the first file:line:col inside a
/// fused, named or call-site location).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePos {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    pub pos: Option<SourcePos>,
    /// The location as MLIR prints it, used when it has no file position.
    pub location_text: String,
    pub message: String,
    pub notes: Vec<Diag>,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pos {
            Some(pos) => write!(f, "{}:{}:{}: ", pos.file, pos.line, pos.column)?,
            None => write!(f, "{}: ", self.location_text)?,
        }
        write!(f, "{}: {}", self.severity.as_str(), self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// Diagnostics of every live context, each tagged with its context. One process may
/// run several contexts at once (tests, the library API on several threads), and a
/// context's passes emit from its own thread pool, so neither one list nor one per
/// thread would keep them apart; the context is what a diagnostic belongs to.
static STREAM: Mutex<Vec<(ContextKey, Diag)>> = Mutex::new(Vec::new());

/// The identity of a context while it lives (its address).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ContextKey(usize);

/// What diagnostics are kept apart by: a context, owned or referenced.
pub trait DiagnosticContext {
    fn diagnostic_key(&self) -> ContextKey;
}

impl DiagnosticContext for Context {
    fn diagnostic_key(&self) -> ContextKey {
        ContextKey(self.to_raw().ptr as usize)
    }
}

impl DiagnosticContext for ContextRef<'_> {
    fn diagnostic_key(&self) -> ContextKey {
        // SAFETY: the reference is only read here, while `self` keeps the context alive.
        unsafe { self.to_ref() }.diagnostic_key()
    }
}

impl<T: DiagnosticContext + ?Sized> DiagnosticContext for &T {
    fn diagnostic_key(&self) -> ContextKey {
        (**self).diagnostic_key()
    }
}

fn with_stream<T>(f: impl FnOnce(&mut Vec<(ContextKey, Diag)>) -> T) -> T {
    match STREAM.lock() {
        Ok(mut stream) => f(&mut stream),
        Err(poisoned) => f(&mut poisoned.into_inner()),
    }
}

fn push(key: ContextKey, diag: Diag) {
    with_stream(|stream| stream.push((key, diag)));
}

/// Takes every diagnostic `context` has emitted so far, in emission order.
pub fn drain(context: impl DiagnosticContext) -> Vec<Diag> {
    let key = context.diagnostic_key();
    with_stream(|stream| {
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(stream)
            .into_iter()
            .partition(|(k, _)| *k == key);
        *stream = others;
        mine.into_iter().map(|(_, diag)| diag).collect()
    })
}

/// Whether `context` has emitted an error since its last `drain`.
pub fn has_errors(context: impl DiagnosticContext) -> bool {
    let key = context.diagnostic_key();
    with_stream(|stream| {
        stream
            .iter()
            .any(|(k, d)| *k == key && d.severity == Severity::Error)
    })
}

/// Resolves the first file position inside a location.
pub fn source_pos(location: Location) -> Option<SourcePos> {
    if location.is_file_line_col_range() {
        return Some(SourcePos {
            file: location
                .file_line_col_range_filename()
                .as_string_ref()
                .as_str()
                .ok()?
                .to_string(),
            line: location.file_line_col_range_start_line(),
            column: location.file_line_col_range_start_column(),
        });
    }
    if location.is_fused() {
        return (0..location.fused_num_locations())
            .find_map(|index| source_pos(location.fused_location(index)));
    }
    if location.is_name() {
        return source_pos(location.name_child_location());
    }
    if location.is_call_site() {
        return source_pos(location.call_site_caller());
    }
    None
}

fn key_of(location: Location) -> ContextKey {
    location.context().diagnostic_key()
}

fn make(severity: Severity, location: Location, message: String) -> Diag {
    Diag {
        severity,
        pos: source_pos(location),
        location_text: crate::raw::location_text(location),
        message,
        notes: Vec::new(),
    }
}

/// Emits a diagnostic of ours at an MLIR location.
pub fn emit(severity: Severity, location: Location, message: impl Into<String>) {
    push(key_of(location), make(severity, location, message.into()));
}

/// Emits a diagnostic with notes at other locations.
pub fn emit_with_notes(
    severity: Severity,
    location: Location,
    message: impl Into<String>,
    notes: Vec<(Location, String)>,
) {
    let mut diag = make(severity, location, message.into());
    diag.notes = notes
        .into_iter()
        .map(|(loc, msg)| make(Severity::Note, loc, msg))
        .collect();
    push(key_of(location), diag);
}

pub fn error(location: Location, message: impl Into<String>) {
    emit(Severity::Error, location, message);
}

pub fn remark(location: Location, message: impl Into<String>) {
    emit(Severity::Remark, location, message);
}

pub fn warning(location: Location, message: impl Into<String>) {
    emit(Severity::Warning, location, message);
}

/// Emits an error with no location (for tool-level problems such as a missing file).
pub fn error_unlocated(context: impl DiagnosticContext, origin: &str, message: impl Into<String>) {
    push(
        context.diagnostic_key(),
        Diag {
            severity: Severity::Error,
            pos: None,
            location_text: origin.to_string(),
            message: message.into(),
            notes: Vec::new(),
        },
    );
}

fn convert(diagnostic: &melior::diagnostic::Diagnostic) -> Diag {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Remark => Severity::Remark,
        DiagnosticSeverity::Note => Severity::Note,
    };
    let mut diag = make(
        severity,
        diagnostic.location(),
        crate::raw::diagnostic_text(diagnostic),
    );
    diag.notes = (0..diagnostic.note_count())
        .filter_map(|index| diagnostic.note(index).ok())
        .map(|note| convert(&note))
        .collect();
    diag
}

/// Routes a context's own diagnostics into the stream.
pub fn attach(context: &Context) {
    let key = context.diagnostic_key();
    context.attach_diagnostic_handler(move |diagnostic| {
        push(key, convert(&diagnostic));
        true
    });
}

/// Turns a `Result` with a message into a pass result, reporting the message as an
/// error at `location` (the shape of every option check in a pass). The error is `()`
/// because the message has already been emitted; pass bodies return `Result<_, ()>`.
#[allow(clippy::result_unit_err)]
pub fn or_error<T>(location: Location, result: Result<T, String>) -> Result<T, ()> {
    result.map_err(|message| error(location, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::create_context;

    /// Two contexts on two threads: each drains exactly its own diagnostics, never the
    /// other's (a process-wide list handed one thread's errors to the other).
    #[test]
    fn contexts_on_two_threads_keep_their_diagnostics_apart() {
        // Both threads emit before either drains, every round.
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let worker = |name: &'static str| {
            let barrier = barrier.clone();
            move || {
                let context = create_context();
                let location = Location::new(&context, name, 1, 1);
                // Checked after the rounds, so that a failing thread never leaves the
                // other waiting at the barrier.
                let mut drained = Vec::new();
                for round in 0..50 {
                    error(location, format!("{name} {round}"));
                    barrier.wait();
                    drained.push(drain(&context));
                    barrier.wait();
                }
                for (round, diags) in drained.iter().enumerate() {
                    let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
                    assert_eq!(messages, [format!("{name} {round}")], "round {round}");
                }
                assert!(!has_errors(&context));
            }
        };
        let first = std::thread::spawn(worker("first.mlir"));
        let second = std::thread::spawn(worker("second.mlir"));
        first.join().expect("the first context's thread");
        second.join().expect("the second context's thread");
    }

    #[test]
    fn unlocated_errors_belong_to_the_context_given() {
        let mine = create_context();
        let other = create_context();
        error_unlocated(&mine, "tool", "missing file");
        assert!(has_errors(&mine));
        assert!(!has_errors(&other));
        assert!(drain(&other).is_empty());
        let diags = drain(&mine);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].to_string(), "tool: error: missing file");
    }
}
