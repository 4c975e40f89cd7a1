//! One ordered stream of diagnostics for a tool run.
//!
//! The MLIR C API can only emit errors, but our passes also emit warnings, remarks and
//! notes (fusion decisions are remarks). So every diagnostic, whether MLIR's own (caught
//! by a context handler) or ours (`emit`), lands in one process-wide list in emission
//! order. Drivers drain it after each input chunk to print it or to match it against
//! `expected-*` annotations.

use melior::{diagnostic::DiagnosticSeverity, ir::Location, Context};
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

static STREAM: Mutex<Vec<Diag>> = Mutex::new(Vec::new());

fn push(diag: Diag) {
    match STREAM.lock() {
        Ok(mut stream) => stream.push(diag),
        Err(poisoned) => poisoned.into_inner().push(diag),
    }
}

/// Takes every diagnostic emitted so far.
pub fn drain() -> Vec<Diag> {
    match STREAM.lock() {
        Ok(mut stream) => std::mem::take(&mut *stream),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    }
}

/// Whether an error has been emitted since the last `drain`.
pub fn has_errors() -> bool {
    let check = |stream: &Vec<Diag>| stream.iter().any(|d| d.severity == Severity::Error);
    match STREAM.lock() {
        Ok(stream) => check(&stream),
        Err(poisoned) => check(&poisoned.into_inner()),
    }
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
    push(make(severity, location, message.into()));
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
    push(diag);
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
pub fn error_unlocated(origin: &str, message: impl Into<String>) {
    push(Diag {
        severity: Severity::Error,
        pos: None,
        location_text: origin.to_string(),
        message: message.into(),
        notes: Vec::new(),
    });
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
    context.attach_diagnostic_handler(|diagnostic| {
        push(convert(&diagnostic));
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
