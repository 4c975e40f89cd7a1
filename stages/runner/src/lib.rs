//! Compiling translated kernels with g++ against the CPU emulation (`sim/include`) and
//! running whole graphs: fused kernels on the emulation, everything else (boundary ops,
//! kernels that could not be scheduled or tiled) by the reference interpreters.
//!
//! - [`prepare_module`] runs the pipeline ([`FRONT_PIPELINE`], then `[fuse,]schedule,
//!   auto-tiling`) and translates every impl-form kernel
//!   under a content-hash name (`afk_<hash>`), so identical kernels of different graphs
//!   share one compiled instance.
//! - [`build`] writes one C++ driver for a set of kernels (each kernel, its host tiling
//!   function and a launcher stub reading inputs from files, calling the host tiling
//!   function, launching with `ascendc_sim::launch`, writing outputs and GM byte counts)
//!   and compiles it once, cached under the cache directory by the hash of every source
//!   it depends on (the sim headers included).
//! - [`execute`] runs the entry graph for concrete inputs; each kernel launch is one
//!   process run of the driver, so one compile serves every shape (dynamic shapes).
//!
//! An emulation violation (exit status 3) is an error naming kernel, API and line.

pub mod child;
pub mod comparison;
pub mod dump_fusion;
pub mod execute;
pub mod library;
pub mod npu;
pub mod report;
pub mod symbols;
pub mod trace;
pub mod vendor;

use autofuse_ascend::interp::bind_symbols;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::interp as ascir_interp;
use autofuse_ascir::kernel::Schedule;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, Graph, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_mlir::diagnostics::{self, Severity};
use autofuse_mlir::{extract, raw};
use autofuse_passes::auto_tiling::solver::solve;
use autofuse_passes::schedule::build::BuildSchedule;
use autofuse_passes::schedule::{chip_of, form_of, read_hint_graph, RecordIndex};
use autofuse_passes::{pipeline, registry};
use autofuse_symbolic::Expr;
use autofuse_target_ascendc::launch::{translate_launch, wiring, LaunchGroup, Wiring};
use autofuse_target_ascendc::{translate_kernel, KernelInput, KernelSources};
use autofuse_tiling::tiling as tiling_solver;
use autofuse_tiling::tiling::{Tiling, TilingModel};
use execute::Program;
use melior::ir::{operation::OperationLike, Module};
use melior::pass::PassManager;
use report::bytes_of;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of the pipeline and the build.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub target: String,
    pub ub_bytes: u64,
    pub cores: u64,
    /// Include `fuse` when the pass is registered.
    pub fuse: bool,
    /// Include `group-launches` (with `fuse`): kernels that follow each other run as one
    /// launch of several loop groups.
    pub group_launches: bool,
    pub cache_dir: PathBuf,
    pub sim_include: PathBuf,
    pub cxx: String,
    /// The directory relative weight files (`ascend.parameter`) are taken from: the IR
    /// file's or the ONNX model's directory; `None` is the current directory.
    pub weights_dir: Option<PathBuf>,
}

impl RunOptions {
    /// Defaults: 910B, fusion on, cache in `$AUTOFUSE_CACHE_DIR` or
    /// `<repo>/target/autofuse-cache`, `$AUTOFUSE_SIM_INCLUDE` or the repo's `sim/include`.
    pub fn new(repo: &Path) -> RunOptions {
        let cache_dir = std::env::var_os("AUTOFUSE_CACHE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo.join("target").join("autofuse-cache"));
        RunOptions {
            target: autofuse_ascir::chip::DEFAULT_TARGET.into(),
            ub_bytes: 0,
            cores: 0,
            fuse: true,
            group_launches: true,
            cache_dir,
            // An installed PyTorch package carries the headers (python/, docs/pytorch.md).
            sim_include: std::env::var_os("AUTOFUSE_SIM_INCLUDE")
                .map(PathBuf::from)
                .unwrap_or_else(|| repo.join("sim").join("include")),
            cxx: std::env::var("CXX").unwrap_or_else(|_| "g++".into()),
            weights_dir: None,
        }
    }

    pub fn chip(&self) -> Result<ChipProfile, String> {
        ChipProfile::lookup(&self.target)?.with_overrides(self.ub_bytes, self.cores)
    }

    /// The compile pipeline text.
    pub fn pipeline(&self) -> String {
        let (fuse, rest) = self.pipeline_after_front(None);
        match fuse {
            Some(fuse) => format!("{FRONT_PIPELINE},{fuse},{rest}"),
            None => format!("{FRONT_PIPELINE},{rest}"),
        }
    }

    /// The compile pipeline after [`FRONT_PIPELINE`], in two parts: `fuse` when fusion
    /// is on (writing its JSON report to `report` when given), and the passes after it.
    pub fn pipeline_after_front(&self, report: Option<&Path>) -> (Option<String>, String) {
        let mut fuse = None;
        if self.fuse && registry::lookup("fuse").is_some() {
            // Fusion builds only kernels the schedule can express on this chip (AF-NF011).
            let mut text = format!("fuse{{target={}", self.target);
            if let Some(report) = report {
                let _ = write!(text, " report={}", report.display());
            }
            text.push('}');
            fuse = Some(text);
        }
        let mut p = String::new();
        if registry::lookup("sink-constants").is_some() {
            p.push_str("sink-constants,");
        }
        let mut opts = format!("target={}", self.target);
        if self.ub_bytes != 0 {
            let _ = write!(opts, " ub-bytes={}", self.ub_bytes);
        }
        if self.cores != 0 {
            let _ = write!(opts, " cores={}", self.cores);
        }
        let _ = write!(p, "schedule{{{opts}}},auto-tiling{{remarks=false}}");
        if self.fuse && self.group_launches {
            p.push_str(",group-launches");
        }
        (fuse, p)
    }
}

/// The passes before fusion: symbolic shapes, the graph rewrites and the lowering of
/// every fusable op to a one-op kernel. The compiled module, the unfused module of the
/// byte counts and `--dump-fusion` all start with them.
pub const FRONT_PIPELINE: &str =
    "infer-symbolic-shapes,fold-matmul-operands,decompose,narrow-index-types,lower-to-ascir";

/// [`FRONT_PIPELINE`] in its two steps: the symbolic shapes (the reference graph is the
/// module after them), then the rewrites and the lowering.
const SHAPES_PIPELINE: &str = "infer-symbolic-shapes";
const LOWERING_PIPELINE: &str = "fold-matmul-operands,decompose,narrow-index-types,lower-to-ascir";

/// A kernel ready to be built.
#[derive(Clone, Debug)]
pub struct PreparedKernel {
    /// Name in the module (`autofuse_pointwise_0_Add`).
    pub name: String,
    /// C symbol in the driver (`afk_<hash>`).
    pub symbol: String,
    pub graph: AscGraph,
    pub schedule: Schedule,
    pub model: TilingModel,
    pub chip: ChipProfile,
    pub static_tiling: Option<Tiling>,
    /// Sources under the hashed symbol (built into the driver).
    pub sources: KernelSources,
}

/// A launch of several loop groups (`ascir.launch`) ready to be built: its groups are
/// prepared kernels of the same module.
#[derive(Clone, Debug)]
pub struct PreparedLaunch {
    /// Name in the module (`autofuse_launch_0`).
    pub name: String,
    /// C symbol in the driver (`afl_<hash>`).
    pub symbol: String,
    /// The groups' kernel names in the module, in order.
    pub groups: Vec<String>,
    pub wiring: Wiring,
    /// The launch's symbols (every group's, in order of first appearance).
    pub symbols: Vec<String>,
    /// Per group: its tiling fields and their C names (the driver prints them).
    pub group_fields: Vec<Vec<(String, String)>>,
    pub sources: KernelSources,
}

impl PreparedLaunch {
    /// The chip the launch was scheduled for: its first group's (the module's when the
    /// group is not a prepared kernel).
    pub fn chip<'m>(&self, module: &'m PreparedModule) -> &'m ChipProfile {
        self.groups
            .first()
            .and_then(|g| module.kernels.get(g))
            .map(|k| &k.chip)
            .unwrap_or(&module.chip)
    }
}

/// A compiled module: its kernels, the graphs, and why some kernels are interpreted.
pub struct PreparedModule {
    pub program: Program,
    pub kernels: HashMap<String, PreparedKernel>,
    /// Launches of several loop groups whose groups are all prepared kernels.
    pub launches: HashMap<String, PreparedLaunch>,
    /// Kernel name -> why it runs in the interpreter.
    pub interpreted: Vec<(String, String)>,
    /// The reference (symbolized Ascend IR graph).
    pub reference: Program,
    /// The module without fusion, for the unfused byte count.
    pub unfused: Program,
    pub chip: ChipProfile,
    /// Remarks and warnings of the pipeline.
    pub remarks: Vec<String>,
    /// `ascend.guards` of each graph function (e.g. `assert(s0 == s2)`).
    pub guards: HashMap<String, Vec<String>>,
}

impl PreparedModule {
    /// Completes symbol values from the guards of `entry`: a symbol without a value that
    /// a guard equates with one that has a value gets that value.
    pub fn complete_symbols(&self, entry: &str, symbols: &mut HashMap<String, i64>) {
        let Some(guards) = self.guards.get(entry) else {
            return;
        };
        loop {
            let mut changed = false;
            for g in guards {
                let Some(inner) = g.strip_prefix("assert(").and_then(|x| x.strip_suffix(')'))
                else {
                    continue;
                };
                let Some((a, b)) = inner.split_once("==") else {
                    continue;
                };
                let (a, b) = (a.trim(), b.trim());
                match (symbols.get(a).copied(), symbols.get(b).copied()) {
                    (Some(v), None) => {
                        symbols.insert(b.to_string(), v);
                        changed = true;
                    }
                    (None, Some(v)) => {
                        symbols.insert(a.to_string(), v);
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                return;
            }
        }
    }
}

/// Runs `pipeline_text` and returns the diagnostics (errors fail).
pub fn run_pipeline_keep(module: &mut Module, pipeline_text: &str) -> Result<Vec<String>, String> {
    run_pipeline_diags(module, pipeline_text).map(|d| d.iter().map(|d| d.to_string()).collect())
}

/// [`run_pipeline_keep`] with the diagnostics as they are (severity, position, message).
pub fn run_pipeline_diags(
    module: &mut Module,
    pipeline_text: &str,
) -> Result<Vec<diagnostics::Diag>, String> {
    let context = module.context();
    diagnostics::drain(context);
    // SAFETY: the context outlives this function's pass manager.
    let manager = PassManager::new(unsafe { context.to_ref() });
    pipeline::add_pipeline(&manager.as_operation_pass_manager(), pipeline_text)?;
    let ran = manager.run(module).is_ok();
    let diags = diagnostics::drain(module.context());
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if ran && errors.is_empty() {
        Ok(diags)
    } else if errors.is_empty() {
        Err("pass pipeline failed".into())
    } else {
        Err(errors.join("\n"))
    }
}

/// FNV-1a 64-bit, a stable content hash for cache keys.
pub fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        // Separate parts so that ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Translates one kernel under its content-hash symbol.
pub fn prepare_kernel(
    name: &str,
    graph: AscGraph,
    chip: &ChipProfile,
    source: &str,
) -> Result<PreparedKernel, String> {
    let schedule = Schedule::build(&graph, chip)?;
    let model = TilingModel::new(&schedule, &Schedule::operands_of(&graph));
    let static_tiling = if schedule.symbols.is_empty() {
        Some(solve(&model, &HashMap::new(), chip)?)
    } else {
        None
    };
    let make = |symbol: &str| {
        translate_kernel(
            &KernelInput {
                graph: &graph,
                schedule: &schedule,
                model: &model,
                chip,
                static_tiling: static_tiling.as_ref(),
                source,
            },
            symbol,
        )
    };
    // The hash covers everything but the name (and the source comment).
    let canonical = translate_kernel(
        &KernelInput {
            graph: &graph,
            schedule: &schedule,
            model: &model,
            chip,
            static_tiling: static_tiling.as_ref(),
            source: "-",
        },
        "AFKERNEL",
    )?;
    let parts: Vec<&[u8]> = canonical
        .files
        .iter()
        .map(|(_, c)| c.as_bytes())
        .chain(std::iter::once(chip.name.as_bytes()))
        .collect();
    let symbol = format!("afk_{:016x}", fnv64(&parts));
    let sources = make(&symbol)?;
    Ok(PreparedKernel {
        name: name.to_string(),
        symbol,
        graph,
        schedule,
        model,
        chip: chip.clone(),
        static_tiling,
        sources,
    })
}

/// Translates a launch of the prepared `kernels` under its content-hash symbol.
pub fn prepare_launch(
    name: &str,
    wiring: Wiring,
    kernels: &HashMap<String, PreparedKernel>,
    source: &str,
) -> Result<PreparedLaunch, String> {
    let members: Vec<&PreparedKernel> = wiring
        .groups
        .iter()
        .map(|(k, _, _)| {
            kernels
                .get(k)
                .ok_or_else(|| format!("group @{k} is not translated"))
        })
        .collect::<Result<_, _>>()?;
    fn groups_of<'a>(members: &[&'a PreparedKernel], source: &'a str) -> Vec<LaunchGroup<'a>> {
        members
            .iter()
            .map(|k| LaunchGroup {
                kernel: k.symbol.clone(),
                input: KernelInput {
                    graph: &k.graph,
                    schedule: &k.schedule,
                    model: &k.model,
                    chip: &k.chip,
                    static_tiling: k.static_tiling.as_ref(),
                    source,
                },
            })
            .collect()
    }
    let groups = |source| groups_of(&members, source);
    if members.iter().any(|k| k.chip.name != members[0].chip.name) {
        return Err("its groups target different chips".into());
    }
    let symbols = autofuse_target_ascendc::launch::launch_symbols(&groups("-"));
    for ty in wiring
        .inputs
        .iter()
        .chain(&wiring.outputs)
        .chain(&wiring.workspace)
    {
        for d in &ty.dims {
            let Dim::Known(e) = d else {
                return Err("a launch value has a dim without symbol".into());
            };
            if let Some(s) = e.symbols().into_iter().find(|s| !symbols.contains(s)) {
                return Err(format!("symbol {s} of a launch value is no group's symbol"));
            }
        }
    }
    let canonical = translate_launch(&groups("-"), &wiring, "AFLAUNCH", "-")?;
    let parts: Vec<&[u8]> = canonical
        .files
        .iter()
        .map(|(_, c)| c.as_bytes())
        .chain(std::iter::once(members[0].chip.name.as_bytes()))
        .collect();
    let symbol = format!("afl_{:016x}", fnv64(&parts));
    let sources = translate_launch(&groups(source), &wiring, &symbol, source)?;
    let group_fields = members
        .iter()
        .map(|k| {
            let names = autofuse_target_ascendc::CNames::new(&k.model.symbols);
            tiling_solver::tiling_field_names(&k.model)
                .into_iter()
                .map(|(f, _)| {
                    let c = names.name(&f);
                    (f, c)
                })
                .collect()
        })
        .collect();
    Ok(PreparedLaunch {
        name: name.to_string(),
        symbol,
        groups: wiring.groups.iter().map(|(k, _, _)| k.clone()).collect(),
        wiring,
        symbols,
        group_fields,
        sources,
    })
}

/// Parses, compiles and translates a module; `text` is the `ascend` graph.
pub fn prepare_module(
    context: &melior::Context,
    text: impl AsRef<[u8]>,
    source_name: &str,
    options: &RunOptions,
) -> Result<PreparedModule, String> {
    prepare_module_with(context, text, source_name, options, false).map(|(module, _)| module)
}

/// [`prepare_module`]; with `snapshot_fusion` (and fusion on) also what `--fuse` did,
/// read from the same compile for `--dump-fusion` ([`dump_fusion::FuseSnapshot`]).
pub fn prepare_module_with(
    context: &melior::Context,
    text: impl AsRef<[u8]>,
    source_name: &str,
    options: &RunOptions,
    snapshot_fusion: bool,
) -> Result<(PreparedModule, Option<dump_fusion::FuseSnapshot>), String> {
    let chip = options.chip()?;
    // The tools' one input path: parsed and verified (MLIR's verifier with the dialects',
    // autofuse's) before any pass, so a module autofuse-opt rejects never runs.
    let Compile {
        reference,
        unfused,
        compiled,
        remarks,
        snapshot,
    } = compile(
        context,
        text.as_ref(),
        source_name,
        options,
        snapshot_fusion,
    )?;
    let mut guards = HashMap::new();
    for func in extract::functions(reference.body()) {
        let list: Vec<String> = extract::read_attributes(&func)
            .get("ascend.guards")
            .and_then(AttrValue::as_strs)
            .unwrap_or_default()
            .into_iter()
            .map(str::to_string)
            .collect();
        guards.insert(extract::function_name(&func), list);
    }
    // The generated sources name their input by file name only: the directory a module
    // sits in must not change the driver's text, and with it the build cache's key (a
    // test suite's per-run work folders otherwise rebuild every kernel on every run).
    let source_file = Path::new(source_name)
        .file_name()
        .map_or(source_name.into(), |n| n.to_string_lossy());
    let source_file = source_file.as_ref();
    let body = compiled.body();
    let mut kernels = HashMap::new();
    let mut interpreted = Vec::new();
    let index = RecordIndex::build(body);
    for func in extract::functions(body) {
        if !func.has_attribute("ascir.axes") {
            continue;
        }
        let name = extract::function_name(&func);
        if form_of(&func) != "impl" {
            let why = remarks
                .iter()
                .find(|r| r.contains(&format!("@{name} ")))
                .map(|r| r.split("remark: ").last().unwrap_or(r).to_string())
                .unwrap_or_else(|| "not scheduled".into());
            interpreted.push((name, why));
            continue;
        }
        let records = index.records(&name);
        let infeasible = records.iter().any(|(op, attrs)| {
            op == "tiling.function"
                && attrs.get("feasible").and_then(AttrValue::as_bool) == Some(false)
        });
        if infeasible {
            interpreted.push((name, "no tiling case fits UB for the static shape".into()));
            continue;
        }
        let kchip = chip_of(&func).unwrap_or_else(|| Ok(chip.clone()))?;
        let graph = read_hint_graph(&func)?;
        match prepare_kernel(&name, graph, &kchip, source_file) {
            Ok(k) => {
                kernels.insert(name, k);
            }
            Err(e) => interpreted.push((name, e)),
        }
    }
    let mut launches = HashMap::new();
    for func in extract::functions(body) {
        let attrs = extract::read_attributes(&func);
        if !attrs.contains_key("ascir.launch") {
            continue;
        }
        let name = extract::function_name(&func);
        let prepared = extract::extract_function(func)
            .ok_or_else(|| "a launch without a body".to_string())
            .and_then(|e| wiring(&e.graph, &attrs))
            .and_then(|w| prepare_launch(&name, w, &kernels, source_file));
        match prepared {
            Ok(l) => {
                launches.insert(name, l);
            }
            Err(e) => interpreted.push((name, format!("its groups run one by one: {e}"))),
        }
    }
    let weights_dir = options
        .weights_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let program_of = |module: &Module| -> Result<Program, String> {
        let mut program = Program::from_module(module.body())?;
        program.resolve_weight_files(&weights_dir);
        program.verify_weight_files()?;
        Ok(program)
    };
    let module = PreparedModule {
        program: program_of(&compiled)?,
        kernels,
        launches,
        interpreted,
        reference: program_of(&reference)?,
        unfused: program_of(&unfused)?,
        chip,
        remarks,
        guards,
    };
    Ok((module, snapshot))
}

/// The modules of one compile.
struct Compile<'c> {
    /// After the symbolic shapes: the reference graph.
    reference: Module<'c>,
    /// After [`FRONT_PIPELINE`]: the unfused module of the byte counts.
    unfused: Module<'c>,
    /// After the whole pipeline ([`RunOptions::pipeline`]).
    compiled: Module<'c>,
    /// The diagnostics of the whole pipeline (as [`run_pipeline_keep`] gives them).
    remarks: Vec<String>,
    /// What `fuse` did, when asked for and fusion is on.
    snapshot: Option<dump_fusion::FuseSnapshot>,
}

/// Parses `text` (verified before any pass) and runs the pipeline once, in steps: the
/// reference and the unfused module are copies of the module after the symbolic shapes
/// and after [`FRONT_PIPELINE`]; `fuse` writes its JSON report for `snapshot_fusion`.
fn compile<'c>(
    context: &'c melior::Context,
    text: &[u8],
    source_name: &str,
    options: &RunOptions,
    snapshot_fusion: bool,
) -> Result<Compile<'c>, String> {
    let copy = |m: &Module<'c>| raw::clone_module(m).ok_or("cannot copy the module");
    let mut module = autofuse_mlir::parse::load_module(context, text, source_name)?;
    let mut diags = run_pipeline_diags(&mut module, SHAPES_PIPELINE)?;
    let reference = copy(&module)?;
    diags.extend(run_pipeline_diags(&mut module, LOWERING_PIPELINE)?);
    let unfused = copy(&module)?;
    let report = (snapshot_fusion && options.fuse).then(dump_fusion::ReportFile::new);
    let (fuse, rest) = options.pipeline_after_front(report.as_ref().map(|r| r.path.as_path()));
    let mut snapshot = None;
    if let Some(fuse) = fuse {
        let lowering = diags.clone();
        let fused = run_pipeline_diags(&mut module, &fuse);
        let report_text = report.map(dump_fusion::ReportFile::take);
        diags.extend(fused?);
        if let Some(report_text) = report_text {
            let call_at = dump_fusion::calls_before_fusion(&unfused);
            snapshot = Some(dump_fusion::FuseSnapshot::new(
                &lowering,
                call_at,
                &report_text,
                &module,
            )?);
        }
    }
    let after = run_pipeline_diags(&mut module, &rest)?;
    if let Some(snapshot) = &mut snapshot {
        snapshot.note_schedule(&after);
    }
    diags.extend(after);
    Ok(Compile {
        reference,
        unfused,
        compiled: module,
        remarks: diags.iter().map(|d| d.to_string()).collect(),
        snapshot,
    })
}

/// The byte size of a tensor of type `ty`, as a C++ `size_t` expression.
fn bytes_c(ty: &TensorType, names: &autofuse_target_ascendc::CNames) -> Result<String, String> {
    Ok(format!(
        "static_cast<size_t>({}) * {}",
        dims_c(ty, names)?,
        ty.dtype.bytes()
    ))
}

fn dims_c(ty: &TensorType, names: &autofuse_target_ascendc::CNames) -> Result<String, String> {
    let mut e = Expr::constant(1);
    for d in &ty.dims {
        match d {
            Dim::Known(x) => e = e * x.clone(),
            Dim::Unknown => return Err("dim without symbol".into()),
        }
    }
    Ok(names.expr(&e))
}

/// The launcher stub of one kernel inside the driver.
fn launcher(k: &PreparedKernel) -> Result<String, String> {
    let sym = &k.symbol;
    let mut o = String::new();
    let _ = writeln!(o, "static int run_{sym}(const Request& rq) {{");
    let _ = writeln!(o, "    af_{sym}::TilingData t{{}};");
    let names = autofuse_target_ascendc::CNames::new(&k.schedule.symbols);
    for (i, s) in k.schedule.symbols.iter().enumerate() {
        let _ = writeln!(
            o,
            "    [[maybe_unused]] const int64_t {} = rq.sym.at({i});",
            names.name(s)
        );
    }
    if k.static_tiling.is_some() {
        let _ = writeln!(o, "    t = af_{sym}::kStaticTiling;");
    } else {
        let _ = writeln!(
            o,
            "    if ({sym}_tiling(rq.sym.data(), rq.cores, rq.ub, &t) != 0) {{\n        std::fprintf(stderr, \"tiling: no case fits UB\\n\");\n        return 4;\n    }}"
        );
    }
    let fields = tiling_solver::tiling_field_names(&k.model);
    let prints: Vec<String> = fields
        .iter()
        .map(|(f, _)| {
            format!(
                "af_field(rq, \"{f}\", static_cast<long long>(t.{}));",
                names.name(f)
            )
        })
        .collect();
    let _ = writeln!(o, "    {}", prints.join("\n    "));
    let mut args = Vec::new();
    for (i, ty) in k.graph.inputs.iter().enumerate() {
        let bytes = bytes_c(ty, &names)?;
        let _ = writeln!(
            o,
            "    ascendc_sim::GmBuffer<uint8_t> in{i}(af_gm_bytes({bytes}));\n    if (!read_file(rq.inputs.at({i}), in{i}, {bytes})) return 5;"
        );
        args.push(format!("in{i}.addr()"));
    }
    for (i, ty) in k.graph.outputs.iter().enumerate() {
        let bytes = bytes_c(ty, &names)?;
        let _ = writeln!(
            o,
            "    const size_t out{i}_bytes = {bytes};\n    ascendc_sim::GmBuffer<uint8_t> out{i}(af_gm_bytes(out{i}_bytes));\n    const auto out{i}_before = prepare_output(rq.outputs.at({i}), out{i}, out{i}_bytes);"
        );
        args.push(format!("out{i}.addr()"));
    }
    // A cross-core case writes its partials to the workspace (`workspace_bytes`).
    let ws = if fields.iter().any(|(f, _)| f == "workspace_bytes") {
        "af_gm_bytes(static_cast<size_t>(t.workspace_bytes))"
    } else {
        "32"
    };
    let _ = writeln!(
        o,
        "    ascendc_sim::GmBuffer<uint8_t> ws({ws});\n    ascendc_sim::GmBuffer<uint8_t> tiling(sizeof(t));\n    std::memcpy(tiling.data(), &t, sizeof(t));"
    );
    args.push("ws.addr()".into());
    args.push("tiling.addr()".into());
    let _ = writeln!(
        o,
        "    const ascendc_sim::LaunchStats st = ascendc_sim::launch(\"{}\", {sym}, t.block_dim, ascendc_sim::profile(rq.chip), {});",
        k.name,
        args.join(", ")
    );
    for i in 0..k.graph.outputs.len() {
        let _ = writeln!(
            o,
            "    if (!write_file(rq.outputs.at({i}), out{i}, out{i}_bytes, out{i}_before)) return 5;"
        );
    }
    let _ = writeln!(o, "    af_stats(rq, st);\n    return 0;\n}}\n");
    Ok(o)
}

/// The launcher stub of one launch of several loop groups inside the driver.
fn launch_launcher(l: &PreparedLaunch) -> Result<String, String> {
    let sym = &l.symbol;
    let names = autofuse_target_ascendc::CNames::new(&l.symbols);
    let mut o = String::new();
    let _ = writeln!(o, "static int run_{sym}(const Request& rq) {{");
    let _ = writeln!(o, "    af_{sym}::TilingData t{{}};");
    for (i, s) in l.symbols.iter().enumerate() {
        let _ = writeln!(
            o,
            "    [[maybe_unused]] const int64_t {} = rq.sym.at({i});",
            names.name(s)
        );
    }
    let _ = writeln!(
        o,
        "    if ({sym}_tiling(rq.sym.data(), rq.cores, rq.ub, &t) != 0) {{\n        std::fprintf(stderr, \"tiling: no case fits UB\\n\");\n        return 4;\n    }}"
    );
    for (g, fields) in l.group_fields.iter().enumerate() {
        for (f, c) in fields {
            let _ = writeln!(
                o,
                "    af_field(rq, \"g{g}.{f}\", static_cast<long long>(t.g{g}.{c}));"
            );
        }
    }
    let mut args = Vec::new();
    for (i, ty) in l.wiring.inputs.iter().enumerate() {
        let bytes = bytes_c(ty, &names)?;
        let _ = writeln!(
            o,
            "    ascendc_sim::GmBuffer<uint8_t> in{i}(af_gm_bytes({bytes}));\n    if (!read_file(rq.inputs.at({i}), in{i}, {bytes})) return 5;"
        );
        args.push(format!("in{i}.addr()"));
    }
    for (i, ty) in l.wiring.outputs.iter().enumerate() {
        let bytes = bytes_c(ty, &names)?;
        let _ = writeln!(
            o,
            "    const size_t out{i}_bytes = {bytes};\n    ascendc_sim::GmBuffer<uint8_t> out{i}(af_gm_bytes(out{i}_bytes));\n    const auto out{i}_before = prepare_output(rq.outputs.at({i}), out{i}, out{i}_bytes);"
        );
        args.push(format!("out{i}.addr()"));
    }
    let _ = writeln!(
        o,
        "    ascendc_sim::GmBuffer<uint8_t> ws(af_gm_bytes(t.workspace_bytes));\n    ascendc_sim::GmBuffer<uint8_t> tiling(sizeof(t));\n    std::memcpy(tiling.data(), &t, sizeof(t));"
    );
    args.push("ws.addr()".into());
    args.push("tiling.addr()".into());
    let _ = writeln!(
        o,
        "    const ascendc_sim::LaunchStats st = ascendc_sim::launch(\"{}\", {sym}, t.block_dim, ascendc_sim::profile(rq.chip), {});",
        l.name,
        args.join(", ")
    );
    for i in 0..l.wiring.outputs.len() {
        let _ = writeln!(
            o,
            "    if (!write_file(rq.outputs.at({i}), out{i}, out{i}_bytes, out{i}_before)) return 5;"
        );
    }
    let _ = writeln!(o, "    af_stats(rq, st);\n    return 0;\n}}\n");
    Ok(o)
}

const DRIVER_PRELUDE: &str = r#"// Generated by autofuse-run: launches kernels on the CPU emulation (sim/include).
// Usage: driver <kernel> <chip> <cores> <ub_bytes> <nsym> <sym...> <nin> <in files...> <nout> <out files...>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "kernel_operator.h"
#include "af_kernel_utils.h"
#include "af_tiling_host.h"

struct Request {
    std::string chip;
    uint32_t cores = 0, ub = 0;
    std::vector<int64_t> sym;
    std::vector<std::string> inputs, outputs;
};

// The emulation's per-pipe counts and the chip model's time (pipes.h); other
// CPU libraries have none.
template <class Stats>
static void af_print_pipes(const Stats& st) {
#ifdef ASCENDC_SIM_HAS_PIPES
    std::printf("pipes cycles %.1f timeline %.1f hbm %.1f", st.cycles, st.cycles_timeline, st.cycles_hbm);
    for (const ascendc_sim::PipeCounts& p : st.pipes)
        std::printf(" %llu %llu %llu %.1f", static_cast<unsigned long long>(p.calls),
                    static_cast<unsigned long long>(p.instructions), static_cast<unsigned long long>(p.bytes),
                    p.busy_cycles);
    std::printf("\n");
#else
    (void)st;
#endif
}

// The tiling fields and the launch's counts, on standard output for the runner.
static void af_field(const Request&, const char* name, long long value) {
    std::printf("field %s %lld\n", name, value);
}

template <class Stats>
static void af_stats(const Request&, const Stats& st) {
    std::printf("stats gm_read %llu gm_read_per_core %llu gm_written %llu blocks %u ub_peak %u\n", static_cast<unsigned long long>(st.gm_bytes_read), static_cast<unsigned long long>(st.gm_bytes_read_per_core), static_cast<unsigned long long>(st.gm_bytes_written), st.blocks, st.ub_peak_bytes);
    af_print_pipes(st);
}

// GM buffers of at least one byte (empty tensors still get an address).
static size_t af_gm_bytes(size_t bytes) { return bytes == 0 ? 1 : bytes; }

static bool read_file(const std::string& path, ascendc_sim::GmBuffer<uint8_t>& buf, size_t bytes) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) { std::fprintf(stderr, "cannot open %s\n", path.c_str()); return false; }
    size_t got = bytes == 0 ? 0 : std::fread(buf.data(), 1, bytes, f);
    std::fclose(f);
    if (got != bytes) { std::fprintf(stderr, "%s: %zu bytes, expected %zu\n", path.c_str(), got, bytes); return false; }
    return true;
}

// Outputs start as 0xFF bytes (NaN of every float type, -1 of every integer): an
// element the kernel fails to write differs from any reference value. Each output is a
// file of its own, written whole (nothing to keep of it before the launch).
struct OutputBefore {};

static OutputBefore prepare_output(const std::string&, ascendc_sim::GmBuffer<uint8_t>& buf, size_t bytes) {
    if (bytes != 0) std::memset(buf.data(), 0xFF, bytes);
    return {};
}

static bool write_file(const std::string& path, ascendc_sim::GmBuffer<uint8_t>& buf, size_t bytes, const OutputBefore&) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) { std::fprintf(stderr, "cannot write %s\n", path.c_str()); return false; }
    size_t put = bytes == 0 ? 0 : std::fwrite(buf.data(), 1, bytes, f);
    std::fclose(f);
    return put == bytes;
}
"#;

const DRIVER_MAIN: &str = r#"
int main(int argc, char** argv) {
    if (argc < 7) { std::fprintf(stderr, "usage: driver <kernel> <chip> <cores> <ub> <nsym> ...\n"); return 2; }
    Request rq;
    int a = 1;
    const std::string kernel = argv[a++];
    rq.chip = argv[a++];
    rq.cores = static_cast<uint32_t>(std::strtoul(argv[a++], nullptr, 10));
    rq.ub = static_cast<uint32_t>(std::strtoul(argv[a++], nullptr, 10));
    int n = std::atoi(argv[a++]);
    for (int i = 0; i < n && a < argc; ++i) rq.sym.push_back(std::strtoll(argv[a++], nullptr, 10));
    n = a < argc ? std::atoi(argv[a++]) : 0;
    for (int i = 0; i < n && a < argc; ++i) rq.inputs.push_back(argv[a++]);
    n = a < argc ? std::atoi(argv[a++]) : 0;
    for (int i = 0; i < n && a < argc; ++i) rq.outputs.push_back(argv[a++]);
#ifdef AF_VENDOR_PATH
    // The ISA model's InitBuffer check needs the usable UB of the requested chip.
    af_vendor::set_ub_limit(rq.ub);
#endif
    for (const Entry& e : kEntries)
        if (kernel == e.name) return e.run(rq);
    std::fprintf(stderr, "unknown kernel %s\n", kernel.c_str());
    return 2;
}
"#;

/// A compiled driver.
#[derive(Clone, Debug)]
pub struct SimBuild {
    pub binary: PathBuf,
    /// Whether this call compiled it (false: cache hit).
    pub compiled: bool,
}

/// A content hash of every file below `sim_include` (names and bytes).
pub fn sim_headers_hash(sim_include: &Path) -> Result<Vec<u8>, String> {
    let mut files = Vec::new();
    let mut stack = vec![sim_include.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut all = Vec::new();
    for f in files {
        all.extend_from_slice(f.to_string_lossy().as_bytes());
        all.extend(std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    Ok(fnv64(&[&all]).to_le_bytes().to_vec())
}

/// How a driver is compiled: the CPU emulation (`sim/include`) or the vendor's Ascend C
/// headers over autofuse's ISA model (`sim/vendor`, see [`vendor`]).
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// Compiler flags (standard, optimisation, defines).
    pub flags: Vec<String>,
    /// Include folders, in search order.
    pub includes: Vec<PathBuf>,
    /// A header g++ includes ahead of the driver (`-include`).
    pub force_include: Option<String>,
    /// Folders whose every file enters the cache key.
    pub hashed: Vec<PathBuf>,
    /// Whether to precompile the API headers.
    pub pch: bool,
    /// Cache sub-folder prefix, so that the two paths never share a binary.
    pub tag: &'static str,
    /// Link a shared object (`-shared`) instead of an executable (see [`library`]).
    pub shared: bool,
}

/// The optimisation flag of the driver compiles: `$AUTOFUSE_CXX_OPT` (e.g. `-O0`), else
/// `-O1`. `-O0` halves the compile of a driver and suits runs on a few elements (the
/// ONNX conformance cases); `-O1` keeps the emulation of large shapes fast.
pub fn optimisation_flag() -> String {
    std::env::var("AUTOFUSE_CXX_OPT")
        .ok()
        .filter(|flag| !flag.trim().is_empty())
        .unwrap_or_else(|| "-O1".into())
}

/// Extra flags of every driver compile, from `$AUTOFUSE_CXXFLAGS` (whitespace
/// separated, e.g. `-fsanitize=address,undefined -fno-sanitize-recover=all`). They are
/// part of the toolchain's flags, hence of the cache key: sanitized and plain builds
/// never share a cache entry.
pub fn extra_cxx_flags() -> Vec<String> {
    std::env::var("AUTOFUSE_CXXFLAGS")
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

impl Toolchain {
    /// The CPU emulation of `options.sim_include`.
    pub fn sim(options: &RunOptions) -> Toolchain {
        let mut flags = vec!["-std=c++20".into(), optimisation_flag(), "-w".into()];
        flags.extend(extra_cxx_flags());
        Toolchain {
            flags,
            includes: vec![options.sim_include.clone()],
            force_include: None,
            hashed: vec![options.sim_include.clone()],
            pch: true,
            tag: "",
            shared: false,
        }
    }
}

/// The driver sources of `kernels` (deduplicated by symbol): (file name, contents).
pub fn driver_files(kernels: &[&PreparedKernel]) -> Result<Vec<(String, String)>, String> {
    driver_files_with(kernels, &[])
}

/// What the driver and the library share: the kernels and launches kept (one per
/// content symbol), their source files, the `#include` lines of their sources and the
/// launcher functions.
pub(crate) struct DriverSources<'a> {
    pub kernels: Vec<&'a PreparedKernel>,
    pub launches: Vec<&'a PreparedLaunch>,
    pub files: Vec<(String, String)>,
    pub includes: String,
    pub launchers: String,
}

/// The sources of `kernels` and `launches` (a launch brings its groups' files).
pub(crate) fn driver_kernel_sources<'a>(
    kernels: &[&'a PreparedKernel],
    launches: &[&'a PreparedLaunch],
) -> Result<DriverSources<'a>, String> {
    // Kernels of equal content share a symbol; the one whose module name sorts first
    // stands for them all, whatever order the caller's (hash) map gave: the driver's
    // text, and so its cache key, must not change between runs of the same module.
    let mut seen: std::collections::BTreeMap<&str, &PreparedKernel> = Default::default();
    for k in kernels {
        let kept = seen.entry(&k.symbol).or_insert(*k);
        if k.name < kept.name {
            *kept = *k;
        }
    }
    let mut seen_launches: std::collections::BTreeMap<&str, &PreparedLaunch> = Default::default();
    for l in launches {
        let kept = seen_launches.entry(&l.symbol).or_insert(*l);
        if l.name < kept.name {
            *kept = *l;
        }
    }
    let mut includes = String::new();
    let mut files: Vec<(String, String)> = autofuse_target_ascendc::shared_files()
        .into_iter()
        .filter(|(n, _)| n.starts_with("include/"))
        .map(|(n, c)| (n.trim_start_matches("include/").to_string(), c))
        .collect();
    for k in seen.values() {
        for (name, contents) in &k.sources.files {
            if name.ends_with(".cpp") || name.ends_with(".h") {
                files.push((name.clone(), contents.clone()));
            }
        }
        let _ = writeln!(
            includes,
            "#include \"{s}.cpp\"\n#include \"{s}_tiling.cpp\"",
            s = k.symbol
        );
    }
    // A launch ships its groups' tiling files too: each file once (a group may also be a
    // kernel of the driver on its own).
    for l in seen_launches.values() {
        for (name, contents) in &l.sources.files {
            if !(name.ends_with(".cpp") || name.ends_with(".h"))
                || files.iter().any(|(n, _)| n == name)
            {
                continue;
            }
            files.push((name.clone(), contents.clone()));
            if name.ends_with(".cpp") {
                let _ = writeln!(includes, "#include \"{name}\"");
            }
        }
    }
    let mut launchers = String::new();
    for k in seen.values() {
        launchers.push_str(&launcher(k)?);
    }
    for l in seen_launches.values() {
        launchers.push_str(&launch_launcher(l)?);
    }
    Ok(DriverSources {
        kernels: seen.into_values().collect(),
        launches: seen_launches.into_values().collect(),
        files,
        includes,
        launchers,
    })
}

impl DriverSources<'_> {
    /// The C symbols of the kept kernels and launches, in entry-table order.
    pub(crate) fn symbols(&self) -> impl Iterator<Item = &String> {
        self.kernels
            .iter()
            .map(|k| &k.symbol)
            .chain(self.launches.iter().map(|l| &l.symbol))
    }

    /// The source files with the main translation unit `file`: `prelude`, the kernels'
    /// includes, the `Entry` struct `entry_struct`, the launchers, `functions`, the
    /// entry table of `entries` and `main`. The driver and the library differ only in
    /// these parts.
    pub(crate) fn assemble(
        self,
        file: &str,
        prelude: &str,
        entry_struct: &str,
        functions: &str,
        entries: &[String],
        main: &str,
    ) -> Vec<(String, String)> {
        let mut text = String::from(prelude);
        text.push_str(&self.includes);
        text.push_str(entry_struct);
        text.push_str(&self.launchers);
        text.push_str(functions);
        let _ = writeln!(
            text,
            "static const Entry kEntries[] = {{\n{}\n}};",
            entries.join("\n")
        );
        text.push_str(main);
        let mut files = self.files;
        files.push((file.into(), text));
        files.sort();
        files
    }
}

/// The driver's files for `kernels` and `launches` (a launch brings its groups' files).
pub fn driver_files_with(
    kernels: &[&PreparedKernel],
    launches: &[&PreparedLaunch],
) -> Result<Vec<(String, String)>, String> {
    let sources = driver_kernel_sources(kernels, launches)?;
    let entries: Vec<String> = sources
        .symbols()
        .map(|s| format!("    {{\"{s}\", run_{s}}},"))
        .collect();
    Ok(sources.assemble(
        "driver.cpp",
        DRIVER_PRELUDE,
        "\nstruct Entry { const char* name; int (*run)(const Request&); };\n",
        "",
        &entries,
        DRIVER_MAIN,
    ))
}

/// Builds (or finds in the cache) one driver holding `kernels` (deduplicated by symbol)
/// against the CPU emulation.
pub fn build(kernels: &[&PreparedKernel], options: &RunOptions) -> Result<SimBuild, String> {
    build_with(kernels, options, &Toolchain::sim(options))
}

/// Builds (or finds in the cache) one driver holding `kernels` with `toolchain`.
pub fn build_with(
    kernels: &[&PreparedKernel],
    options: &RunOptions,
    toolchain: &Toolchain,
) -> Result<SimBuild, String> {
    build_files(driver_files(kernels)?, options, toolchain)
}

/// Builds (or finds in the cache) one driver holding every kernel and launch of `module`
/// with `toolchain`.
pub fn build_module(
    module: &PreparedModule,
    options: &RunOptions,
    toolchain: &Toolchain,
) -> Result<SimBuild, String> {
    let kernels: Vec<&PreparedKernel> = module.kernels.values().collect();
    let launches: Vec<&PreparedLaunch> = module.launches.values().collect();
    build_files(driver_files_with(&kernels, &launches)?, options, toolchain)
}

/// Builds (or finds in the cache) one driver holding `kernels` and `launches` (each
/// deduplicated by symbol) with `toolchain`.
pub fn build_set(
    kernels: &[&PreparedKernel],
    launches: &[&PreparedLaunch],
    options: &RunOptions,
    toolchain: &Toolchain,
) -> Result<SimBuild, String> {
    build_files(driver_files_with(kernels, launches)?, options, toolchain)
}

fn build_files(
    files: Vec<(String, String)>,
    options: &RunOptions,
    toolchain: &Toolchain,
) -> Result<SimBuild, String> {
    let flags = toolchain.flags.join(" ");
    let mut headers_hash = Vec::new();
    for dir in &toolchain.hashed {
        headers_hash.extend(sim_headers_hash(dir)?);
    }
    let mut parts: Vec<&[u8]> = files
        .iter()
        .flat_map(|(n, c)| [n.as_bytes(), c.as_bytes()])
        .collect();
    parts.push(&headers_hash);
    parts.push(flags.as_bytes());
    parts.push(options.cxx.as_bytes());
    let include_text: Vec<String> = toolchain
        .includes
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let include_text = include_text.join("\n");
    parts.push(include_text.as_bytes());
    let hash = format!("{}{:016x}", toolchain.tag, fnv64(&parts));
    let dir = options.cache_dir.join(&hash);
    let binary = dir.join("driver");
    if cache_entry_valid(&dir) {
        return Ok(SimBuild {
            binary,
            compiled: false,
        });
    }
    std::fs::create_dir_all(&options.cache_dir)
        .map_err(|e| format!("{}: {e}", options.cache_dir.display()))?;
    remove_stale_staging(&options.cache_dir);
    // The entry is built in a staging folder of its own inside the cache and renamed
    // into place, complete with its stamp, only when the build succeeded: concurrent
    // builds never read each other's half-written files, and a failed, timed-out or
    // interrupted build leaves no entry (its staging folder is removed, or, when the
    // process was killed, swept by the next build: see `remove_stale_staging`).
    let staging = options.cache_dir.join(format!(
        "{STAGING_PREFIX}{}.{}.{hash}",
        std::process::id(),
        RUN_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let result = compile_driver(&files, options, toolchain, &flags, &headers_hash, &staging);
    let committed = result.and_then(|()| commit_entry(&staging, &dir));
    let _ = std::fs::remove_dir_all(&staging);
    committed?;
    Ok(SimBuild {
        binary,
        compiled: true,
    })
}

/// Staging folders of cache entries under construction: `<prefix><pid>.<n>.<hash>`.
const STAGING_PREFIX: &str = "staging.";
/// The stamp of a cache entry, written last: `driver <bytes> <fnv64 of the driver>`.
const STAMP: &str = "stamp";

/// The stamp text of a driver binary.
fn driver_stamp(binary: &Path) -> Option<String> {
    let bytes = std::fs::read(binary).ok()?;
    Some(format!(
        "driver {} {:016x}\n",
        bytes.len(),
        fnv64(&[&bytes])
    ))
}

/// Whether the cache entry `dir` is complete and intact: its stamp names the driver's
/// size and hash. A missing stamp (an entry of an older autofuse, or one cut short), a
/// truncated or modified driver makes the entry invalid: it is rebuilt.
pub fn cache_entry_valid(dir: &Path) -> bool {
    let Ok(stamp) = std::fs::read_to_string(dir.join(STAMP)) else {
        return false;
    };
    driver_stamp(&dir.join("driver")).is_some_and(|s| s == stamp)
}

/// Moves a built `staging` folder to the cache entry `dir`, replacing an invalid one.
fn commit_entry(staging: &Path, dir: &Path) -> Result<(), String> {
    if dir.exists() {
        if cache_entry_valid(dir) {
            // Another process committed the same entry meanwhile.
            return Ok(());
        }
        // An invalid entry is moved aside (atomically) before it is deleted.
        let aside = staging.with_extension("old");
        std::fs::rename(dir, &aside).map_err(|e| format!("{}: {e}", dir.display()))?;
        let _ = std::fs::remove_dir_all(&aside);
    }
    match std::fs::rename(staging, dir) {
        Ok(()) => Ok(()),
        // Another process won the race with a complete entry.
        Err(_) if cache_entry_valid(dir) => Ok(()),
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}

/// Removes staging folders whose process is gone (a build killed before it could clean
/// up after itself).
fn remove_stale_staging(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(STAGING_PREFIX)) else {
            continue;
        };
        let pid = rest.split('.').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| pid != std::process::id() && !child::alive(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Writes the driver sources into `staging/src` and compiles `staging/driver`, then
/// writes the stamp.
fn compile_driver(
    files: &[(String, String)],
    options: &RunOptions,
    toolchain: &Toolchain,
    flags: &str,
    headers_hash: &[u8],
    staging: &Path,
) -> Result<(), String> {
    let src = staging.join("src");
    autofuse_target_ascendc::write_files(&src, files)?;
    let binary = staging.join("driver");
    let pch = if toolchain.pch {
        precompiled_header(options, toolchain, flags, headers_hash)
    } else {
        None
    };
    let mut cmd = Command::new(&options.cxx);
    cmd.args(&toolchain.flags);
    if let Some(pch_dir) = &pch {
        // The precompiled header holds the forced include too.
        cmd.arg("-I").arg(pch_dir).arg("-include").arg("af_pch.h");
    } else if let Some(header) = &toolchain.force_include {
        cmd.arg("-include").arg(header);
    }
    for inc in &toolchain.includes {
        cmd.arg("-I").arg(inc);
    }
    if toolchain.shared {
        cmd.arg("-shared");
    }
    let main_file = if toolchain.shared {
        "library.cpp"
    } else {
        "driver.cpp"
    };
    cmd.arg("-I")
        .arg(&src)
        .arg(src.join(main_file))
        .arg("-o")
        .arg(&binary);
    let out = child::run(&mut cmd, child::build_timeout()?)
        .map_err(|e| format!("{} on the generated kernels: {e}", options.cxx))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // An intrinsic only the vendor path's catch-all declares (sim/vendor/include/
        // stub_fun.h) fails to link: name it rather than show the linker's noise.
        let mut unmodeled: Vec<&str> = err
            .split("af_isa::Unmodeled ")
            .skip(1)
            .filter_map(|t| t.split(['<', '(']).next())
            .collect();
        unmodeled.sort_unstable();
        unmodeled.dedup();
        if !unmodeled.is_empty() {
            return Err(format!(
                "the ISA model (sim/vendor) does not model the intrinsic(s) {} that the vendor's code calls for these kernels",
                unmodeled.join(", "),
            ));
        }
        let head: String = err.lines().take(40).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "{} failed on the generated kernels ({}):\n{head}",
            options.cxx,
            child::describe(out.status)
        ));
    }
    let stamp = driver_stamp(&binary)
        .ok_or_else(|| format!("{}: the compiler wrote no driver", binary.display()))?;
    std::fs::write(staging.join(STAMP), stamp).map_err(|e| format!("{}: {e}", staging.display()))
}

/// A precompiled header of the toolchain's API headers (built once per header version
/// and flags, in the cache), which saves a third to a half of every driver compile;
/// `None` when g++ cannot build it (the driver then compiles without it). With a
/// forced include (the vendor path) that header is the one precompiled.
fn precompiled_header(
    options: &RunOptions,
    toolchain: &Toolchain,
    flags: &str,
    headers_hash: &[u8],
) -> Option<PathBuf> {
    let key = fnv64(&[headers_hash, flags.as_bytes(), options.cxx.as_bytes()]);
    let dir = options
        .cache_dir
        .join(format!("{}pch-{key:016x}", toolchain.tag));
    if dir.join("af_pch.h.gch").exists() {
        return Some(dir);
    }
    let unique = RUN_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = options.cache_dir.join(format!(
        "{STAGING_PREFIX}{}.{unique}.pch",
        std::process::id()
    ));
    std::fs::create_dir_all(&tmp).ok()?;
    let api = toolchain
        .force_include
        .clone()
        .unwrap_or_else(|| "kernel_operator.h".into());
    let header = format!("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <string>\n#include <vector>\n#include \"{api}\"\n");
    std::fs::write(tmp.join("af_pch.h"), header).ok()?;
    let mut cmd = Command::new(&options.cxx);
    cmd.args(&toolchain.flags);
    for inc in &toolchain.includes {
        cmd.arg("-I").arg(inc);
    }
    cmd.arg("-x")
        .arg("c++-header")
        .arg(tmp.join("af_pch.h"))
        .arg("-o")
        .arg(tmp.join("af_pch.h.gch"));
    let status = child::run(&mut cmd, child::build_timeout().ok()?).map(|f| f.status);
    if !status.is_ok_and(|s| s.success()) {
        let _ = std::fs::remove_dir_all(&tmp);
        return None;
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process won the race; use its header.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    dir.join("af_pch.h.gch").exists().then_some(dir)
}

/// Raw GM bytes of a tensor in its device encoding.
pub fn encode(t: &Tensor) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.data.len() * t.dtype.bytes());
    for &v in &t.data {
        match t.dtype {
            DType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            DType::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
            DType::BF16 => out.extend_from_slice(&half::bf16::from_f64(v).to_le_bytes()),
            DType::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
            DType::I32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
            DType::I16 => out.extend_from_slice(&(v as i16).to_le_bytes()),
            DType::I8 => out.push(v as i8 as u8),
            DType::U8 => out.push(v as u8),
            DType::Bool => out.push(u8::from(v != 0.0)),
        }
    }
    out
}

/// The tensor of `dtype` and `shape` held in raw GM bytes.
pub fn decode(dtype: DType, shape: Vec<usize>, bytes: &[u8]) -> Result<Tensor, String> {
    let size = dtype.bytes();
    let count = autofuse_ir::tensor::shape_elements(&shape)
        .ok_or_else(|| format!("shape {shape:?} has too many elements"))?;
    let expected = count.checked_mul(size);
    if Some(bytes.len()) != expected {
        return Err(format!(
            "{} bytes where {} are expected",
            bytes.len(),
            expected.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
        ));
    }
    let mut data: Vec<f64> =
        autofuse_ir::hostmem::reserved(&format!("a kernel output of shape {shape:?}"), count)?;
    data.extend(bytes.chunks_exact(size).map(|c| match dtype {
        DType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        DType::F16 => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
        DType::BF16 => half::bf16::from_le_bytes([c[0], c[1]]).to_f64(),
        DType::I64 => i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64,
        DType::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        DType::I16 => i16::from_le_bytes([c[0], c[1]]) as f64,
        DType::I8 => c[0] as i8 as f64,
        DType::U8 => c[0] as f64,
        DType::Bool => f64::from(u8::from(c[0] != 0)),
    }));
    Tensor::new(dtype, shape, data).map_err(|e| e.to_string())
}

/// One kernel launch on the emulation.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub kernel: String,
    pub gm_read: u64,
    /// Distinct GM bytes each block read, summed over the blocks: what the launch must
    /// read at least with its block split (a table every block uses counts per block).
    pub gm_read_per_core: u64,
    pub gm_written: u64,
    pub blocks: u64,
    pub ub_peak: u64,
    /// Tiling fields the host function produced.
    pub fields: Vec<(String, i64)>,
    /// What the emulation counted per pipe and the chip model's time (sim path only).
    pub pipes: Option<PipeReport>,
    /// The launch's pipe timeline (Chrome trace events), when tracing was asked for.
    pub trace: Option<std::path::PathBuf>,
}

/// The pipes of a launch, summed over blocks: index 0 S, 1 V, 2 MTE2, 3 MTE3.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PipeReport {
    /// The chip model's kernel time: the larger of the timeline and the HBM bound.
    pub cycles: f64,
    /// When the last core's last instruction ends (waves and barriers included).
    pub cycles_timeline: f64,
    /// GM bytes over the bandwidth all cores share.
    pub cycles_hbm: f64,
    pub pipes: [PipeCount; 4],
}

/// One pipe's API calls, instructions (vector repeats; one per DMA or scalar access),
/// bytes (GM for MTE2/MTE3, UB operands for V and S) and busy cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PipeCount {
    pub calls: u64,
    pub instructions: u64,
    pub bytes: u64,
    pub busy_cycles: f64,
}

impl PipeReport {
    /// Names of the pipes in the order of [`PipeReport::pipes`].
    pub const NAMES: [&'static str; 4] = ["S", "V", "MTE2", "MTE3"];

    /// Parses the driver's `pipes cycles C timeline T hbm H (calls instr bytes busy) x4` line.
    fn parse(words: &[&str]) -> Option<PipeReport> {
        if words.len() != 7 + 16
            || words[1] != "cycles"
            || words[3] != "timeline"
            || words[5] != "hbm"
        {
            return None;
        }
        let f = |w: &str| w.parse::<f64>().ok();
        let u = |w: &str| w.parse::<u64>().ok();
        let mut r = PipeReport {
            cycles: f(words[2])?,
            cycles_timeline: f(words[4])?,
            cycles_hbm: f(words[6])?,
            ..PipeReport::default()
        };
        for (i, p) in r.pipes.iter_mut().enumerate() {
            let w = &words[7 + 4 * i..11 + 4 * i];
            *p = PipeCount {
                calls: u(w[0])?,
                instructions: u(w[1])?,
                bytes: u(w[2])?,
                busy_cycles: f(w[3])?,
            };
        }
        Some(r)
    }
}

/// Where launches write their pipe timelines (`autofuse-run --trace`); None: no tracing.
static TRACE_DIR: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Whether launches on the emulation check the ordering of pipes: on unless
/// `autofuse-run --no-sync-check` or `AUTOFUSE_SYNC_CHECK=0` turns it off (to look at
/// the results of a kernel the check stops).
static SYNC_CHECK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns the emulation's pipe-ordering check on or off for later launches.
pub fn set_sync_check(on: bool) {
    SYNC_CHECK.store(on, std::sync::atomic::Ordering::Relaxed);
}

fn sync_check() -> bool {
    SYNC_CHECK.load(std::sync::atomic::Ordering::Relaxed)
        && !std::env::var("AUTOFUSE_SYNC_CHECK").is_ok_and(|v| v == "0")
}

/// Makes every later launch on the emulation write its timeline into `dir`.
pub fn set_trace_dir(dir: Option<std::path::PathBuf>) {
    if let Ok(mut d) = TRACE_DIR.lock() {
        *d = dir;
    }
}

static RUN_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Launches kernel `k` of `build` on `inputs`, with graph-level symbol values `known`.
pub fn launch(
    build: &SimBuild,
    k: &PreparedKernel,
    inputs: &[Tensor],
    known: &HashMap<String, i64>,
) -> Result<(Vec<Tensor>, Launch), String> {
    let symbols =
        ascir_interp::bind_kernel_symbols(&k.graph, inputs, known).map_err(|e| e.to_string())?;
    let values: Vec<i64> = k
        .schedule
        .symbols
        .iter()
        .map(|s| {
            symbols
                .get(s)
                .copied()
                .ok_or_else(|| format!("@{}: no value for symbol {s}", k.name))
        })
        .collect::<Result<_, _>>()?;
    // Solve in Rust too: host and compiler must agree.
    let expected = solve(&k.model, &symbols, &k.chip)?;
    let want: Vec<(String, i64)> = expected
        .fields(&k.model)
        .into_iter()
        .map(|(f, _, v)| (f, v))
        .collect();
    invoke(
        build,
        &k.name,
        &k.symbol,
        &k.chip,
        &values,
        inputs,
        &k.graph.outputs,
        &symbols,
        &want,
    )
}

/// Launches launch `l` of `build` (its groups in `module`) on `inputs`; `None` when a
/// group has no tiling for these shapes (the groups then run one by one).
pub fn run_launch(
    build: &SimBuild,
    l: &PreparedLaunch,
    module: &PreparedModule,
    inputs: &[Tensor],
    known: &HashMap<String, i64>,
) -> Result<Option<(Vec<Tensor>, Launch)>, String> {
    let mut symbols = known.clone();
    let mut want = Vec::new();
    let mut chip = None;
    for (g, (kernel, operands, _)) in l.wiring.groups.iter().enumerate() {
        let k = module
            .kernels
            .get(kernel)
            .ok_or_else(|| format!("group @{kernel} is not prepared"))?;
        chip.get_or_insert(&k.chip);
        // Symbols a group binds from the launch's own inputs (intermediate shapes follow
        // from the same symbols).
        for (ty, b) in k.graph.inputs.iter().zip(operands) {
            if let autofuse_target_ascendc::launch::Buffer::Input(i) = b {
                if let Some(t) = inputs.get(*i) {
                    for (d, &n) in ty.dims.iter().zip(&t.shape) {
                        if let Dim::Known(e) = d {
                            if let Some(name) = e.as_symbol() {
                                symbols.entry(name.to_string()).or_insert(n as i64);
                            }
                        }
                    }
                }
            }
        }
        let Ok(tiling) = solve(&k.model, &symbols, &k.chip) else {
            return Ok(None);
        };
        want.extend(
            tiling
                .fields(&k.model)
                .into_iter()
                .map(|(f, _, v)| (format!("g{g}.{f}"), v)),
        );
    }
    let chip = chip.ok_or("a launch without groups")?;
    let values: Vec<i64> = l
        .symbols
        .iter()
        .map(|s| {
            symbols
                .get(s)
                .copied()
                .ok_or_else(|| format!("@{}: no value for symbol {s}", l.name))
        })
        .collect::<Result<_, _>>()?;
    invoke(
        build,
        &l.name,
        &l.symbol,
        chip,
        &values,
        inputs,
        &l.wiring.outputs,
        &symbols,
        &want,
    )
    .map(Some)
}

/// Runs one entry of the driver and reads its outputs; `want` = the tiling fields the
/// compiler's solver chose, which the host function must reproduce.
#[allow(clippy::too_many_arguments)]
fn invoke(
    build: &SimBuild,
    name: &str,
    symbol: &str,
    chip: &ChipProfile,
    values: &[i64],
    inputs: &[Tensor],
    output_types: &[TensorType],
    symbols: &HashMap<String, i64>,
    want: &[(String, i64)],
) -> Result<(Vec<Tensor>, Launch), String> {
    let id = RUN_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("autofuse-run-{}-{id}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = (|| {
        let mut cmd = Command::new(&build.binary);
        cmd.arg(symbol)
            .arg(chip.sim_profile())
            .arg(chip.vector_cores.to_string())
            .arg(chip.ub_usable.to_string())
            .arg(values.len().to_string());
        for v in values {
            cmd.arg(v.to_string());
        }
        cmd.arg(inputs.len().to_string());
        for (i, t) in inputs.iter().enumerate() {
            let p = dir.join(format!("in{i}.bin"));
            std::fs::write(&p, encode(t)).map_err(|e| format!("{}: {e}", p.display()))?;
            cmd.arg(&p);
        }
        cmd.arg(output_types.len().to_string());
        for i in 0..output_types.len() {
            cmd.arg(dir.join(format!("out{i}.bin")));
        }
        cmd.env(
            "ASCENDC_SIM_COSTS",
            format!(
                "{} {} {} {} {} {}",
                chip.mte2_bytes_per_cycle,
                chip.mte3_bytes_per_cycle,
                chip.dma_head_cycles,
                chip.vec_bytes_per_cycle,
                chip.vec_head_cycles,
                chip.sync_all_cycles
            ),
        );
        if !sync_check() {
            cmd.env("ASCENDC_SIM_SYNC_CHECK", "0");
        }
        let trace_dir = TRACE_DIR.lock().ok().and_then(|d| d.clone());
        let trace = trace_dir.map(|d| d.join(format!("launch-{id}.json")));
        match &trace {
            Some(t) => cmd.env("ASCENDC_SIM_TRACE", t),
            None => cmd.env_remove("ASCENDC_SIM_TRACE"),
        };
        let out = child::run(&mut cmd, child::kernel_timeout()?).map_err(|e| match e {
            child::RunError::Spawn(e) => format!("cannot run {}: {e}", build.binary.display()),
            e => format!("kernel {name} ({symbol}) on the emulation: {e}"),
        })?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A sanitizer report (AUTOFUSE_CXXFLAGS=-fsanitize=...) fails the run even when
        // the sanitizer was told to recover and the driver exited 0.
        if let Some(report) = sanitizer_report(&stderr) {
            return Err(format!(
                "kernel {name} ({symbol}): a sanitizer report on the emulation ({}): {report}",
                child::describe(out.status)
            ));
        }
        if !out.status.success() {
            // The vendor path's own checks report on stdout ([ERROR] / [ASSERT] lines).
            let logged: Vec<&str> = stdout
                .lines()
                .filter(|l| l.starts_with("[ERROR]") || l.starts_with("[ASSERT]"))
                .collect();
            let mut why = stderr.trim().to_string();
            if !logged.is_empty() {
                why = format!("{why} {}", logged.join(" | "));
            }
            return Err(format!(
                "kernel {name} ({symbol}) failed on the emulation ({}): {}",
                child::describe(out.status),
                why.trim()
            ));
        }
        let mut launch = Launch {
            kernel: name.to_string(),
            trace: trace.filter(|t| t.exists()),
            ..Launch::default()
        };
        for line in stdout.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["field", name, value] => launch
                    .fields
                    .push((name.to_string(), value.parse().unwrap_or(-1))),
                ["stats", "gm_read", r, "gm_read_per_core", p, "gm_written", w, "blocks", b, "ub_peak", u] =>
                {
                    launch.gm_read = r.parse().unwrap_or(0);
                    launch.gm_read_per_core = p.parse().unwrap_or(0);
                    launch.gm_written = w.parse().unwrap_or(0);
                    launch.blocks = b.parse().unwrap_or(0);
                    launch.ub_peak = u.parse().unwrap_or(0);
                }
                ["pipes", ..] => launch.pipes = PipeReport::parse(&words),
                _ => {}
            }
        }
        // Host tiling == compiler tiling.
        for (field, value) in want {
            let got = launch.fields.iter().find(|(n, _)| n == field).map(|x| x.1);
            if got != Some(*value) {
                return Err(format!(
                    "kernel {name}: host tiling field {field} = {got:?}, the compiler's solver says {value}"
                ));
            }
        }
        let mut outputs = Vec::new();
        for (i, ty) in output_types.iter().enumerate() {
            let shape: Vec<usize> = ty
                .dims
                .iter()
                .map(|d| match d {
                    Dim::Known(e) => e
                        .eval_map(symbols)
                        .map(|v| v.max(0) as usize)
                        .map_err(|err| err.to_string()),
                    Dim::Unknown => Err("output dim without symbol".to_string()),
                })
                .collect::<Result<_, _>>()?;
            let p = dir.join(format!("out{i}.bin"));
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            outputs.push(
                decode(ty.dtype, shape, &bytes)
                    .map_err(|e| format!("kernel {name} output {i}: {e}"))?,
            );
        }
        Ok((outputs, launch))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The first lines of an AddressSanitizer, UndefinedBehaviorSanitizer or
/// LeakSanitizer report in a driver's stderr.
pub fn sanitizer_report(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let first = lines.iter().position(|l| {
        l.contains("ERROR: AddressSanitizer")
            || l.contains("ERROR: LeakSanitizer")
            || l.contains("runtime error:")
            || l.contains("SUMMARY: UndefinedBehaviorSanitizer")
    })?;
    Some(
        lines[first..]
            .iter()
            .take(12)
            .copied()
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// GM traffic of one graph run.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    /// Measured by the emulation over every kernel launch.
    pub measured: u64,
    /// Kernel inputs + outputs of the same graph without fusion.
    pub unfused: u64,
    /// Graph inputs + outputs, each moved once.
    pub minimum: u64,
    /// Kernels run by the interpreter (their traffic is not measured).
    pub interpreted_calls: usize,
}

/// Bytes moved by the kernel calls of `graph` (operands + results), given symbol values.
fn call_bytes(program: &Program, graph: &Graph, symbols: &HashMap<String, i64>) -> u64 {
    let mut total = 0;
    for node in &graph.nodes {
        if node.op != "func.call" {
            continue;
        }
        let callee = node
            .attr("callee")
            .and_then(AttrValue::as_symbol)
            .unwrap_or("");
        if !program.kernels.contains_key(callee) {
            continue;
        }
        for &v in node.operands.iter().chain(&node.results) {
            if let Some(ty) = graph.ty(v) {
                total += bytes_of(ty, symbols);
            }
        }
    }
    total
}

/// Result of one graph run.
pub struct GraphRun {
    pub outputs: Vec<Tensor>,
    pub launches: Vec<Launch>,
    pub traffic: Traffic,
    /// Kernel calls the interpreter ran instead of the emulation, and why.
    pub notes: Vec<String>,
}

/// A byte count for reports: bytes, KiB from 10 KiB, MiB from 10 MiB.
pub fn human_bytes(bytes: u64) -> String {
    if bytes >= 10 * 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 10 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

/// Every kernel symbol of `module` mapped to one build.
pub fn builds_for(module: &PreparedModule, build: &SimBuild) -> HashMap<String, SimBuild> {
    module
        .kernels
        .values()
        .map(|k| k.symbol.clone())
        .chain(module.launches.values().map(|l| l.symbol.clone()))
        .map(|symbol| (symbol, build.clone()))
        .collect()
}

/// Runs `entry` of a prepared module: kernels on the emulation (the driver that holds
/// each kernel symbol in `builds`), everything else by the interpreters. A kernel whose
/// tiling has no feasible case for the shapes at hand runs in the interpreter, noted.
pub fn execute(
    module: &PreparedModule,
    builds: &HashMap<String, SimBuild>,
    entry: &str,
    inputs: &[Tensor],
) -> Result<GraphRun, String> {
    let mut launches = Vec::new();
    let mut notes = Vec::new();
    let mut traffic = Traffic::default();
    let outputs = {
        let mut hook = |callee: &str, operands: &[Tensor], symbols: &HashMap<String, i64>| {
            if let Some(l) = module.launches.get(callee) {
                let build = builds
                    .get(&l.symbol)
                    .ok_or_else(|| format!("launch {} ({}) is in no build", l.name, l.symbol))?;
                return match run_launch(build, l, module, operands, symbols)? {
                    Some((outs, launch)) => {
                        traffic.measured += launch.gm_read + launch.gm_written;
                        launches.push(launch);
                        Ok(Some(outs))
                    }
                    // A group has no tiling for these shapes: the groups run one by one.
                    None => Ok(None),
                };
            }
            if module.program.graphs.contains_key(callee) {
                return Ok(None);
            }
            let Some(k) = module.kernels.get(callee) else {
                traffic.interpreted_calls += 1;
                return Ok(None);
            };
            let values = ascir_interp::bind_kernel_symbols(&k.graph, operands, symbols)
                .map_err(|e| e.to_string())?;
            if let Err(why) = solve(&k.model, &values, &k.chip) {
                // No tiling fits these shapes (a reduction row longer than UB).
                notes.push(format!("{}: interpreted for these shapes: {why}", k.name));
                traffic.interpreted_calls += 1;
                return Ok(None);
            }
            let build = builds
                .get(&k.symbol)
                .ok_or_else(|| format!("kernel {} ({}) is in no build", k.name, k.symbol))?;
            let (outs, launch) = launch(build, k, operands, symbols)?;
            traffic.measured += launch.gm_read + launch.gm_written;
            launches.push(launch);
            Ok(Some(outs))
        };
        module.program.run_with(entry, inputs, &mut hook)?
    };
    let graph = module
        .program
        .graphs
        .get(entry)
        .ok_or_else(|| format!("no graph function @{entry}"))?;
    let symbols = bind_symbols(graph, inputs).map_err(|e| e.to_string())?;
    if let Some(unfused) = module.unfused.graphs.get(entry) {
        traffic.unfused = call_bytes(&module.unfused, unfused, &symbols);
    }
    traffic.minimum = graph
        .arguments
        .iter()
        .chain(&graph.outputs)
        .filter_map(|&v| graph.ty(v))
        .map(|t| bytes_of(t, &symbols))
        .sum();
    Ok(GraphRun {
        outputs,
        launches,
        traffic,
        notes,
    })
}

/// The repository root (two levels above this crate's manifest, `stages/runner`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_pipeline_is_its_two_steps() {
        assert_eq!(
            FRONT_PIPELINE,
            format!("{SHAPES_PIPELINE},{LOWERING_PIPELINE}")
        );
    }

    #[test]
    fn the_pipeline_is_its_parts_joined() {
        let mut options = RunOptions::new(Path::new("."));
        let (fuse, rest) = options.pipeline_after_front(Some(Path::new("r.json")));
        assert_eq!(
            fuse.as_deref(),
            Some("fuse{target=ascend910b report=r.json}")
        );
        assert_eq!(
            options.pipeline(),
            format!("{FRONT_PIPELINE},fuse{{target=ascend910b}},{rest}")
        );
        options.fuse = false;
        let (fuse, rest) = options.pipeline_after_front(None);
        assert_eq!(fuse, None);
        assert_eq!(options.pipeline(), format!("{FRONT_PIPELINE},{rest}"));
        assert!(!rest.contains("group-launches"));
    }
}
