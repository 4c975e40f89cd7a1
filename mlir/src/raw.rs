//! The only place that calls the MLIR C API directly (through `mlir-sys`), for what
//! melior does not wrap. Each function is a small safe wrapper with the C API's
//! contract checked on the Rust side.

use melior::{
    ir::{Operation, Type, Value, ValueLike},
    Context,
};
use mlir_sys::{mlirOperationCreateParse, mlirValueReplaceAllUsesOfWith, MlirStringRef};

fn string_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: bytes.as_ptr().cast(),
        length: bytes.len(),
    }
}

/// Parses one top-level operation from `source` (text or bytecode), naming the buffer
/// `source_name` so that locations read `source_name:line:col`. Errors go to the
/// context's diagnostic handler; `None` on failure.
pub fn parse_operation<'c>(
    context: &'c Context,
    source: &[u8],
    source_name: &str,
) -> Option<Operation<'c>> {
    // SAFETY: both string refs point to live buffers for the duration of the call; the
    // C API copies what it keeps. A null result is checked before wrapping.
    unsafe {
        let raw = mlirOperationCreateParse(
            context.to_raw(),
            string_ref(source),
            string_ref(source_name.as_bytes()),
        );
        if raw.ptr.is_null() {
            None
        } else {
            Some(Operation::from_raw(raw))
        }
    }
}

/// A deep copy of `module` in the same context (MLIR's operation clone): a snapshot of
/// a compile between two pipeline runs.
pub fn clone_module<'c>(module: &melior::ir::Module<'c>) -> Option<melior::ir::Module<'c>> {
    // SAFETY: the clone is a new operation owned by the returned module, in the context
    // of the original.
    let copy = unsafe {
        melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(
            module.as_operation().to_raw(),
        ))
    };
    melior::ir::Module::from_operation(copy)
}

/// Redirects every use of `old` to `new`.
pub fn replace_all_uses(old: Value, new: Value) {
    // SAFETY: both values are live (borrowed) IR values of the same context.
    unsafe { mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// Makes operand `index` of `op` read `value` (melior wraps this for owned operations
/// only, not for the references a walk yields). Out-of-range indices are ignored.
pub fn set_operand<'c, 'a>(
    op: melior::ir::OperationRef<'c, 'a>,
    index: usize,
    value: Value<'c, 'a>,
) {
    use melior::ir::operation::OperationLike;
    if index >= op.operand_count() {
        return;
    }
    // SAFETY: `op` and `value` are live IR of the same context and the index is in range.
    unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), index as isize, value.to_raw()) }
}

/// Appends an upstream pass pipeline element (`canonicalize{max-iterations=2}`) to a pass
/// manager; the error text of MLIR's parser on failure.
pub fn add_upstream_pipeline(
    manager: &melior::pass::OperationPassManager,
    element: &str,
) -> Result<(), String> {
    unsafe extern "C" fn collect(text: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the `String` passed below; `text` is valid for this call.
        unsafe {
            let out = &mut *(data as *mut String);
            let bytes = std::slice::from_raw_parts(text.data as *const u8, text.length);
            out.push_str(&String::from_utf8_lossy(bytes));
        }
    }
    let mut message = String::new();
    // SAFETY: the manager is live; the element text outlives the call; `collect` only
    // writes into `message`.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            string_ref(element.as_bytes()),
            Some(collect),
            &mut message as *mut String as *mut std::ffi::c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else {
        Err(if message.is_empty() {
            format!("cannot add pass '{element}'")
        } else {
            message
        })
    }
}

/// Turns on MLIR's pass timing report (printed when the pass manager is destroyed).
pub fn enable_timing(manager: &melior::pass::PassManager) {
    // SAFETY: the manager is live.
    unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) }
}

/// Turns on MLIR's pass statistics report (list display).
pub fn enable_statistics(manager: &melior::pass::PassManager) {
    // SAFETY: the manager is live.
    unsafe {
        mlir_sys::mlirPassManagerEnableStatistics(
            manager.to_raw(),
            mlir_sys::MlirPassDisplayMode_MLIR_PASS_DISPLAY_MODE_LIST,
        )
    }
}

/// Parses a type in the context of `anchor` (any op of that context).
pub fn parse_type_near<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    text: &str,
) -> Option<Type<'c>> {
    // SAFETY: the context reference comes from a live op and is only used while that op
    // (and so its context) is alive.
    // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
    let context_ref = anchor.context();
    let context = unsafe { context_ref.to_ref() };
    Type::parse(context, text)
}

/// Parses `attr_text` and sets it as attribute `name` of `op`; false if it does not parse.
pub fn set_attribute_text<'c: 'a, 'a>(
    op: &impl melior::ir::operation::OperationLike<'c, 'a>,
    name: &str,
    attr_text: &str,
) -> bool {
    // SAFETY: as above; the attribute is created in the op's own context, and
    // `mlirOperationSetAttributeByName` only needs the op, a name and a live attribute.
    unsafe {
        // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
        let context_ref = op.context();
        let context = context_ref.to_ref();
        let Some(attr) = melior::ir::Attribute::parse(context, attr_text) else {
            return false;
        };
        mlir_sys::mlirOperationSetAttributeByName(
            op.to_raw(),
            string_ref(name.as_bytes()),
            melior::ir::attribute::AttributeLike::to_raw(&attr),
        );
    }
    true
}

/// Whether any op reads `value`.
pub fn has_uses(value: Value) -> bool {
    // SAFETY: the value is live; the first use is only tested for null, never followed.
    unsafe { !mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// Removes an op from its block and destroys it. Its results must have no uses left.
pub fn erase_op<'c, 'a>(op: melior::ir::OperationRef<'c, 'a>) {
    // SAFETY: the op is live and owned by its block; removing it transfers ownership to
    // us, and destroying it frees it. Callers redirected all uses first.
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
        mlir_sys::mlirOperationDestroy(op.to_raw());
    }
}

/// Parses `text` (one or more top-level ops) in the context of `anchor` and moves the
/// ops to the end of `block`. Parse errors go to the diagnostic stream; false on failure.
pub fn append_parsed<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    block: melior::ir::BlockRef<'c, 'a>,
    text: &str,
    source_name: &str,
) -> bool {
    use melior::ir::block::BlockLike;
    // SAFETY: every op handed over is detached and owned by nobody; `block` takes it.
    parse_detached(anchor, text, source_name, |raw_op| unsafe {
        block.append_operation(Operation::from_raw(raw_op));
    })
}

/// Parses `text` (top-level ops) in the context of `anchor` and moves only its last op to
/// the end of `block`; the ops before it are context the parser's verifier needs (e.g.
/// private declarations of the functions the last op calls) and are dropped. Parse
/// errors go to the diagnostic stream; false on failure.
pub fn append_last_parsed<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    block: melior::ir::BlockRef<'c, 'a>,
    text: &str,
    source_name: &str,
) -> bool {
    use melior::ir::block::BlockLike;
    let mut last = None;
    let parsed = parse_detached_each(anchor, text, source_name, |raw_op, is_last| {
        if is_last {
            last = Some(raw_op);
        } else {
            // SAFETY: the op was detached from the temporary module and is owned by
            // nobody: destroying it frees it.
            unsafe { mlir_sys::mlirOperationDestroy(raw_op) };
        }
    });
    match (parsed, last) {
        (true, Some(raw_op)) => {
            // SAFETY: the detached op is owned by nobody; `block` takes it.
            unsafe { block.append_operation(Operation::from_raw(raw_op)) };
            true
        }
        _ => false,
    }
}

/// Parses `text` (one or more top-level ops) in the context of `anchor` and inserts the
/// ops right after `anchor`, in order, in `anchor`'s block. Parse errors go to the
/// diagnostic stream; false on failure or when `anchor` is in no block.
pub fn insert_parsed_after<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    text: &str,
    source_name: &str,
) -> bool {
    // SAFETY: `anchor` is a live op; each op handed over is detached and owned by nobody,
    // and the block takes ownership of it.
    unsafe {
        let block = mlir_sys::mlirOperationGetBlock(anchor.to_raw());
        if block.ptr.is_null() {
            return false;
        }
        let mut after = anchor.to_raw();
        parse_detached(anchor, text, source_name, |raw_op| {
            mlir_sys::mlirBlockInsertOwnedOperationAfter(block, after, raw_op);
            after = raw_op;
        })
    }
}

/// Parses `text` in the context of `anchor` into a temporary module and hands every
/// top-level op, in order and detached from that module, to `place`, which must give it
/// an owner before the temporary module is dropped. False if the text does not parse.
fn parse_detached<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    text: &str,
    source_name: &str,
    mut place: impl FnMut(mlir_sys::MlirOperation),
) -> bool {
    parse_detached_each(anchor, text, source_name, |op, _| place(op))
}

/// Parses `text` as a module and hands each top-level op, detached, to `place` with
/// whether it is the last one.
fn parse_detached_each<'c: 'a, 'a>(
    anchor: &impl melior::ir::operation::OperationLike<'c, 'a>,
    text: &str,
    source_name: &str,
    mut place: impl FnMut(mlir_sys::MlirOperation, bool),
) -> bool {
    use melior::ir::{block::BlockLike, operation::OperationLike};
    // SAFETY: the context outlives the ops parsed into it; each op is detached from the
    // temporary module before `place` takes it and before that module is dropped.
    unsafe {
        // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
        let context_ref = anchor.context();
        let context = context_ref.to_ref();
        let Some(parsed) = crate::parse::parse_module(context, text.as_bytes(), source_name) else {
            return false;
        };
        let mut ops = Vec::new();
        let mut next = parsed.body().first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            ops.push(op.to_raw());
        }
        let count = ops.len();
        for (index, raw_op) in ops.into_iter().enumerate() {
            mlir_sys::mlirOperationRemoveFromParent(raw_op);
            place(raw_op, index + 1 == count);
        }
    }
    true
}

/// Collects C API print callbacks into a `Vec<u8>`: no per-piece UTF-8 check (melior's
/// `Display` does one per piece, fails on a multi-byte character split across two pieces
/// and on the raw bytes a diagnostic may quote from a corrupt input).
unsafe extern "C" fn collect_bytes(text: MlirStringRef, data: *mut std::ffi::c_void) {
    // SAFETY: `data` is the `Vec<u8>` passed by `printed`; `text` is valid for the
    // duration of the call.
    unsafe {
        let out = &mut *(data as *mut Vec<u8>);
        out.extend_from_slice(std::slice::from_raw_parts(
            text.data as *const u8,
            text.length,
        ));
    }
}

/// The bytes a C API print function hands to its callback. `print` calls the C API
/// function with the callback and its user data.
fn printed(print: impl FnOnce(mlir_sys::MlirStringCallback, *mut std::ffi::c_void)) -> Vec<u8> {
    let mut bytes: Vec<u8> = Vec::new();
    print(
        Some(collect_bytes),
        &mut bytes as *mut Vec<u8> as *mut std::ffi::c_void,
    );
    bytes
}

/// Printed bytes as text, invalid UTF-8 replaced.
fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The message of a diagnostic, never failing on invalid UTF-8.
pub fn diagnostic_text(diagnostic: &melior::diagnostic::Diagnostic) -> String {
    // melior's `Diagnostic` wraps exactly one `MlirDiagnostic` (plus a zero-sized marker)
    // and exposes no `to_raw`; the size check guards that layout assumption.
    const _: () = assert!(
        std::mem::size_of::<melior::diagnostic::Diagnostic>()
            == std::mem::size_of::<mlir_sys::MlirDiagnostic>()
    );
    // SAFETY: the diagnostic is live for the duration of the handler that passed it, and
    // its only non-zero-sized field is the raw handle.
    lossy(printed(|callback, data| unsafe {
        let raw: mlir_sys::MlirDiagnostic = std::mem::transmute_copy(diagnostic);
        mlir_sys::mlirDiagnosticPrint(raw, callback, data)
    }))
}

/// A location as MLIR prints it, never failing on invalid UTF-8.
pub fn location_text(location: melior::ir::Location) -> String {
    // SAFETY: the location is a live attribute of its context.
    lossy(printed(|callback, data| unsafe {
        mlir_sys::mlirLocationPrint(location.to_raw(), callback, data)
    }))
}

/// How many threads the context lets passes use: 1 when multithreading is disabled
/// (`--mlir-disable-threading`), else the size of its thread pool.
pub fn thread_count(op: &melior::ir::OperationRef) -> usize {
    // SAFETY: reads a property of the live context that owns `op`.
    let threads = unsafe {
        mlir_sys::mlirContextGetNumThreads(mlir_sys::mlirOperationGetContext(op.to_raw()))
    };
    (threads as usize).max(1)
}

/// The printed form of an operation, as bytes. MLIR hands the text over in many small
/// pieces; collecting them without melior's per-piece UTF-8 check is several times
/// faster on large modules, and a multi-byte character split across two pieces cannot
/// fail the print.
pub fn print_operation(
    op: &melior::ir::OperationRef,
    flags: melior::ir::operation::OperationPrintingFlags,
) -> Vec<u8> {
    // SAFETY: the operation is live; the flags are consumed by the call only.
    printed(|callback, data| unsafe {
        mlir_sys::mlirOperationPrintWithFlags(op.to_raw(), flags.to_raw(), callback, data)
    })
}

/// The printed form of an attribute (as melior's `Display`, without its per-piece UTF-8
/// check; invalid UTF-8 is replaced).
pub fn attribute_text(attr: melior::ir::Attribute) -> String {
    use melior::ir::attribute::AttributeLike;
    // SAFETY: the attribute is live storage of its context.
    lossy(printed(|callback, data| unsafe {
        mlir_sys::mlirAttributePrint(attr.to_raw(), callback, data)
    }))
}

/// The printed form of a type (see [`attribute_text`]).
pub fn type_text(ty: melior::ir::Type) -> String {
    use melior::ir::r#type::TypeLike;
    // SAFETY: the type is live storage of its context.
    lossy(printed(|callback, data| unsafe {
        mlir_sys::mlirTypePrint(ty.to_raw(), callback, data)
    }))
}
