//! Textual pass pipelines mixing autofuse passes and upstream MLIR passes.
//!
//! Grammar (as `mlir-opt`): `anchor(element, element, ...)` where an element is
//! `pass-name{options}` or a nested `anchor(...)`. Autofuse passes are built here (the C
//! API cannot look them up by name); every other element is handed to MLIR's own
//! pipeline parser, so upstream passes and their options work unchanged.

use crate::options::PassOptions;
use crate::registry::{self, PassInfo};
use autofuse_mlir::{diagnostics, raw, verify};
use melior::{
    ir::{operation::OperationLike, r#type::TypeId, OperationRef},
    pass::{create_external, ExternalPass, OperationPassManager, RunExternalPass},
    ContextRef,
};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One parsed element of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Pass {
        name: String,
        options: String,
    },
    Nested {
        anchor: String,
        elements: Vec<Element>,
    },
}

impl fmt::Display for Element {
    /// The element as pipeline text: `name{options}` or `anchor(element,...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Pass { name, options } if options.is_empty() => write!(f, "{name}"),
            Element::Pass { name, options } => write!(f, "{name}{{{options}}}"),
            Element::Nested { anchor, elements } => {
                write!(f, "{anchor}(")?;
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// The elements of a pipeline's module level: inside `builtin.module(...)` (or
/// `any(...)`) when the text is anchored, else the elements themselves.
pub fn module_elements(elements: Vec<Element>) -> Vec<Element> {
    match elements.as_slice() {
        [Element::Nested { anchor, .. }] if anchor == "builtin.module" || anchor == "any" => {
            match elements.into_iter().next() {
                Some(Element::Nested { elements, .. }) => elements,
                _ => Vec::new(),
            }
        }
        _ => elements,
    }
}

/// Told the name of each autofuse pass as it starts (a tool's progress display).
type PassObserver = Arc<dyn Fn(&str) + Send + Sync>;

/// The observer of the running pipelines, if any.
static PASS_OBSERVER: Mutex<Option<PassObserver>> = Mutex::new(None);

/// Runs `work` with `observer` told the name of every autofuse pass that starts
/// meanwhile (upstream passes run inside MLIR and are not seen). The previous observer
/// is restored afterwards.
pub fn with_pass_observer<T>(observer: PassObserver, work: impl FnOnce() -> T) -> T {
    let previous = PASS_OBSERVER
        .lock()
        .map(|mut slot| slot.replace(observer))
        .unwrap_or(None);
    let result = work();
    if let Ok(mut slot) = PASS_OBSERVER.lock() {
        *slot = previous;
    }
    result
}

/// Tells the observer that pass `name` starts.
fn notify_pass_start(name: &str) {
    // Cloned out of the lock: the observer may take its time (it draws).
    let observer = PASS_OBSERVER.lock().ok().and_then(|slot| slot.clone());
    if let Some(observer) = observer {
        observer(name);
    }
}

/// Whether our passes run the Rust verifier after themselves (`--verify-each`).
static VERIFY_EACH: AtomicBool = AtomicBool::new(true);

pub fn set_verify_each(enabled: bool) {
    VERIFY_EACH.store(enabled, Ordering::Relaxed);
}

/// Parses `text` into elements.
pub fn parse(text: &str) -> Result<Vec<Element>, String> {
    let mut parser = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let elements = parser.list()?;
    parser.ws();
    if parser.pos != parser.s.len() {
        return Err(format!(
            "unexpected '{}' in pass pipeline at offset {}",
            &text[parser.pos..],
            parser.pos
        ));
    }
    Ok(elements)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn list(&mut self) -> Result<Vec<Element>, String> {
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.pos >= self.s.len() || self.s[self.pos] == b')' {
                return Ok(out);
            }
            out.push(self.element()?);
            self.ws();
            if self.s.get(self.pos) == Some(&b',') {
                self.pos += 1;
            } else {
                return Ok(out);
            }
        }
    }

    fn element(&mut self) -> Result<Element, String> {
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        {
            self.pos += 1;
        }
        let name = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        if name.is_empty() {
            return Err(format!(
                "expected a pass name at offset {start} of the pass pipeline"
            ));
        }
        self.ws();
        let mut options = String::new();
        if self.s.get(self.pos) == Some(&b'{') {
            let open = self.pos;
            let mut depth = 0;
            while self.pos < self.s.len() {
                match self.s[self.pos] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                self.pos += 1;
            }
            if depth != 0 {
                return Err(format!(
                    "unbalanced '{{' at offset {open} of the pass pipeline"
                ));
            }
            options = String::from_utf8_lossy(&self.s[open + 1..self.pos]).into_owned();
            self.pos += 1;
            self.ws();
        }
        if self.s.get(self.pos) == Some(&b'(') {
            self.pos += 1;
            let elements = self.list()?;
            self.ws();
            if self.s.get(self.pos) != Some(&b')') {
                return Err(format!(
                    "expected ')' closing '{name}(' in the pass pipeline"
                ));
            }
            self.pos += 1;
            return Ok(Element::Nested {
                anchor: name,
                elements,
            });
        }
        Ok(Element::Pass { name, options })
    }
}

/// Runs an autofuse pass inside MLIR's pass manager.
#[derive(Clone)]
struct Adapter {
    info: &'static PassInfo,
    options: PassOptions,
}

impl<'c> RunExternalPass<'c> for Adapter {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        notify_pass_start(self.info.argument);
        // One cache of printed attributes serves the pass and the verification after it.
        let ok = autofuse_mlir::extract::with_print_cache(|| {
            let mut ok = (self.info.run)(operation, &self.options).is_ok();
            if ok && VERIFY_EACH.load(Ordering::Relaxed) {
                if let Some(body) = autofuse_mlir::extract::module_body(operation) {
                    ok = verify::verify_module(body);
                }
            }
            ok
        });
        if !ok || diagnostics::has_errors(operation.context()) {
            pass.signal_failure();
        }
    }
}

/// Creates the MLIR pass object of an autofuse pass.
pub fn create_pass(info: &'static PassInfo, options: PassOptions) -> melior::pass::Pass {
    create_external(
        Adapter { info, options },
        TypeId::create(info),
        info.argument,
        info.argument,
        info.summary,
        "builtin.module",
        &[],
    )
}

/// Adds parsed elements to a pass manager anchored on `anchor`.
pub fn add_elements(
    manager: &OperationPassManager,
    anchor: &str,
    elements: &[Element],
) -> Result<(), String> {
    for element in elements {
        match element {
            Element::Nested {
                anchor: nested,
                elements,
            } => {
                let inner = manager.nested_under(nested);
                add_elements(&inner, nested, elements)?;
            }
            Element::Pass { name, options } => {
                if let Some(info) = registry::lookup(name) {
                    if anchor != "builtin.module" {
                        return Err(format!(
                            "pass '{name}' runs on 'builtin.module' and cannot be nested under '{anchor}'"
                        ));
                    }
                    let options = PassOptions::parse(info, options)?;
                    manager.add_pass(create_pass(info, options));
                } else {
                    let text = if options.is_empty() {
                        name.clone()
                    } else {
                        format!("{name}{{{options}}}")
                    };
                    raw::add_upstream_pipeline(manager, &text)?;
                }
            }
        }
    }
    Ok(())
}

/// Checks a pipeline's text without building it: its syntax, and the options of every
/// autofuse pass in it (names and values), so tools can refuse a bad pipeline as a
/// command-line error before reading any input. Upstream passes are checked by MLIR when
/// the pipeline is built.
pub fn check(text: &str) -> Result<(), String> {
    fn walk(elements: &[Element]) -> Result<(), String> {
        for element in elements {
            match element {
                Element::Nested { elements, .. } => walk(elements)?,
                Element::Pass { name, options } => {
                    if let Some(info) = registry::lookup(name) {
                        PassOptions::parse(info, options)?;
                    }
                }
            }
        }
        Ok(())
    }
    walk(&parse(text)?)
}

/// Adds a whole `--pass-pipeline` string (with or without the `builtin.module(...)`
/// anchor) to the root pass manager.
pub fn add_pipeline(root: &OperationPassManager, text: &str) -> Result<(), String> {
    add_elements(root, "builtin.module", &module_elements(parse(text)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_pipelines_with_options() {
        let parsed =
            parse("builtin.module(fuse{max-rounds=3 a='x,y'}, func.func(cse,canonicalize))")
                .unwrap();
        assert_eq!(
            parsed,
            vec![Element::Nested {
                anchor: "builtin.module".into(),
                elements: vec![
                    Element::Pass {
                        name: "fuse".into(),
                        options: "max-rounds=3 a='x,y'".into()
                    },
                    Element::Nested {
                        anchor: "func.func".into(),
                        elements: vec![
                            Element::Pass {
                                name: "cse".into(),
                                options: String::new()
                            },
                            Element::Pass {
                                name: "canonicalize".into(),
                                options: String::new()
                            },
                        ]
                    }
                ]
            }]
        );
    }

    #[test]
    fn elements_print_back_as_pipeline_text() {
        let text = "fuse{max-rounds=3 a='x,y'},func.func(cse,canonicalize),symbol-dce";
        let elements = module_elements(parse(&format!("builtin.module({text})")).unwrap());
        let printed: Vec<String> = elements.iter().map(ToString::to_string).collect();
        assert_eq!(printed.join(","), text);
        // Unanchored text is its own module level.
        assert_eq!(module_elements(parse(text).unwrap()), elements);
    }

    #[test]
    fn rejects_unbalanced_pipelines() {
        assert!(parse("builtin.module(cse").is_err());
        assert!(parse("cse{a=1").is_err());
        assert!(parse("cse)").is_err());
    }
}
