//! Fuzz target: MLIR text (or bytecode) through the whole compiler, in process, as
//! `autofuse-opt --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule
//! --auto-tiling | autofuse-translate --mlir-to-ascendc` runs it: parse, verify, the
//! pass pipeline, then the tiling solver and the Ascend C translation of each scheduled
//! kernel. Any input may be rejected with diagnostics; none may panic, abort or hang.
#![no_main]

use autofuse_ascir::kernel::Schedule;
use autofuse_ir::attr::AttrValue;
use autofuse_mlir::{
    context::create_context, diagnostics, extract, parse::parse_module, verify::verify_module,
};
use autofuse_passes::auto_tiling::solver::solve;
use autofuse_passes::pipeline;
use autofuse_passes::schedule::build::BuildSchedule;
use autofuse_passes::schedule::{chip_of, form_of, read_hint_graph, RecordIndex};
use autofuse_tiling::tiling::TilingModel;
use autofuse::ascendc::{self, KernelInput};
use libfuzzer_sys::fuzz_target;
use melior::ir::operation::OperationLike;
use melior::pass::PassManager;
use melior::Context;
use std::collections::HashMap;

const PIPELINE: &str =
    "infer-symbolic-shapes,decompose,lower-to-ascir,fuse,schedule,auto-tiling{remarks=false}";

thread_local! {
    /// One context for the run: `create_context` keeps the IRDL module of the autofuse
    /// dialects alive for the context's life by leaking it (~150 KB), which a context
    /// per input would add up to gigabytes in a long run.
    static CONTEXT: Context = create_context();
}

fuzz_target!(|data: &[u8]| {
    CONTEXT.with(|context| {
        diagnostics::drain(context);
        pipeline::set_verify_each(true);
        if let Some(mut module) = parse_module(context, data, "fuzz.mlir") {
            if module.as_operation().verify() && verify_module(module.body()) {
                let manager = PassManager::new(context);
                manager.enable_verifier(true);
                pipeline::add_pipeline(&manager.as_operation_pass_manager(), PIPELINE)
                    .expect("the fuzzed pipeline is valid");
                if manager.run(&mut module).is_ok() && !diagnostics::has_errors(context) {
                    translate(&module);
                }
            }
        }
        diagnostics::drain(context);
    });
});

/// What `autofuse-translate --mlir-to-ascendc` does with each scheduled kernel.
fn translate(module: &melior::ir::Module) {
    let body = module.body();
    let index = RecordIndex::build(body);
    for func in extract::functions(body) {
        if !extract::read_attributes(&func).contains_key("ascir.axes") || form_of(&func) != "impl" {
            continue;
        }
        let kernel = extract::function_name(&func);
        let records = index.records(&kernel);
        let Some((_, function)) = records.iter().find(|(op, _)| op == "tiling.function") else {
            continue;
        };
        if function.get("feasible").and_then(AttrValue::as_bool) == Some(false) {
            continue;
        }
        let _ = (|| -> Result<(), String> {
            let chip = chip_of(&func).unwrap_or_else(|| Err("no recorded chip".into()))?;
            let graph = read_hint_graph(&func)?;
            let schedule = Schedule::build(&graph, &chip)?;
            let model = TilingModel::new(&schedule, &Schedule::operands_of(&graph));
            let static_tiling = if schedule.symbols.is_empty() {
                Some(solve(&model, &HashMap::new(), &chip)?)
            } else {
                None
            };
            ascendc::translate_kernel(
                &KernelInput {
                    graph: &graph,
                    schedule: &schedule,
                    model: &model,
                    chip: &chip,
                    static_tiling: static_tiling.as_ref(),
                    source: "fuzz.mlir",
                },
                &kernel,
            )?;
            Ok(())
        })();
    }
}
