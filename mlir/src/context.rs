//! Context creation: every context the project creates has all upstream dialects
//! registered, all upstream passes registered, and the `ascend`, `ascir` and `tiling`
//! dialects loaded from the IRDL generated out of the op catalogue.

use crate::diagnostics;
use melior::{
    dialect::DialectRegistry,
    ir::Module,
    utility::{load_irdl_dialects, register_all_dialects, register_all_passes},
    Context,
};
use std::sync::OnceLock;

/// The IRDL text of the three dialects, generated once per process.
pub fn irdl_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(crate::irdl::all_irdl)
}

/// Creates a context with every dialect the project uses, and routes its diagnostics
/// into the project's diagnostic stream (see `diagnostics`).
pub fn create_context() -> Context {
    register_all_passes();
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    // Only the dialects every module uses are loaded eagerly; the parser and the pass
    // manager load other registered dialects on first use. Loading all ~50 upstream
    // dialects made every attribute print (which builds an AsmState over the sorted list
    // of loaded dialects) several times slower.
    for namespace in ["builtin", "func", "irdl"] {
        context.get_or_load_dialect(namespace);
    }
    diagnostics::attach(&context);
    let Some(irdl) = Module::parse(&context, irdl_source()) else {
        // The IRDL is generated from a table compiled into this binary and checked by the
        // test suite; failing here means the binary itself is broken.
        panic!("internal error: the generated IRDL of the autofuse dialects does not parse");
    };
    if !load_irdl_dialects(&irdl) {
        panic!("internal error: the generated IRDL of the autofuse dialects does not load");
    }
    // Dynamic dialects keep referring to their IRDL definitions, so the module must live
    // as long as the context; contexts live for the whole run of a tool.
    std::mem::forget(irdl);
    context
}
