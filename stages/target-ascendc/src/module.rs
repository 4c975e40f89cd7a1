//! The Ascend C of a whole module (`autofuse-translate --mlir-to-ascendc`) and the
//! tiling evaluation of its kernels (`--evaluate-tiling`).
//!
//! The module comes after `--schedule --auto-tiling`: every impl-form AscGraph with its
//! `tiling.function` record is a kernel. Kernels left in hint form or marked infeasible
//! are skipped with a note; a kernel without a tiling record, or one that fails to
//! schedule, solve or translate, is an error, and every error of the module is reported
//! together (one line each, in module order).
//!
//! Launches of several loop groups (`ascir.launch`, formed by `--group-launches`) are
//! translated as one directory each, and their group kernels are not translated alone.

use super::launch::{self, LaunchGroup};
use super::{shared_files, top_cmake, translate_kernel, KernelInput};
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::Schedule;
use autofuse_ir::attr::AttrValue;
use autofuse_mlir::extract;
use autofuse_passes::auto_tiling::solver::solve;
use autofuse_passes::schedule::build::BuildSchedule;
use autofuse_passes::schedule::{chip_of, form_of, read_hint_graph, RecordIndex};
use autofuse_tiling::tiling::{Tiling, TilingModel};
use melior::ir::{BlockRef, Module, OperationRef};
use std::collections::{HashMap, HashSet};

/// Which kernels of a module to take, and how generated sources name their origin.
pub struct Selection<'a> {
    /// Only the AscGraph of this name (`--kernel`); every one when `None`.
    pub only: Option<&'a str>,
    /// The source file the module came from, for the generated files' header comments.
    pub source: &'a str,
}

/// Translates every selected kernel and launch of `module` to Ascend C: the files
/// (path relative to the output directory, contents) of one directory per kernel or
/// launch, the shared `include/` and `cmake/` files, a top-level `CMakeLists.txt` and the
/// module itself as `graph.mlir`. `note` receives why a kernel was skipped (and that the
/// module has none), as it happens.
pub fn translate_module(
    module: &Module,
    selection: &Selection,
    note: &mut dyn FnMut(&str),
) -> Result<Vec<(String, String)>, String> {
    let body = module.body();
    let kernels = prepare_kernels(body, selection.only, None, note);
    let mut translation = Translation {
        files: Vec::new(),
        kernel_dirs: Vec::new(),
        errors: kernels.errors,
    };
    let in_launch = translation.add_launches(body, &kernels.prepared, selection.source);
    for kernel in kernels.order.iter().filter(|k| !in_launch.contains(*k)) {
        translation.add_kernel(kernel, &kernels.prepared[kernel], selection.source);
    }
    check_selection(body, selection.only, kernels.found, note)?;
    if !translation.errors.is_empty() {
        return Err(translation.errors.join("\n"));
    }
    let mut files = translation.files;
    files.extend(shared_files());
    files.push(("CMakeLists.txt".into(), top_cmake(&translation.kernel_dirs)));
    files.push(("graph.mlir".into(), module.as_operation().to_string()));
    Ok(files)
}

/// The solved tiling of every selected kernel of `module` for the symbol values
/// `symbols` (static kernels at their own shape): per kernel the case, tile size, block
/// dim, UB bytes used out of capacity and the estimated cycles per pipe. `note` receives
/// why a kernel was skipped, as it happens.
pub fn evaluate_tiling(
    module: &Module,
    selection: &Selection,
    symbols: &HashMap<String, i64>,
    note: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let body = module.body();
    let kernels = prepare_kernels(body, selection.only, Some(symbols), note);
    check_selection(body, selection.only, kernels.found, note)?;
    if !kernels.errors.is_empty() {
        return Err(kernels.errors.join("\n"));
    }
    Ok(kernels.report)
}

/// A scheduled kernel ready to translate.
struct Prepared {
    graph: AscGraph,
    schedule: Schedule,
    model: TilingModel,
    static_tiling: Option<Tiling>,
    chip: ChipProfile,
}

impl Prepared {
    fn input<'a>(&'a self, source: &'a str) -> KernelInput<'a> {
        KernelInput {
            graph: &self.graph,
            schedule: &self.schedule,
            model: &self.model,
            chip: &self.chip,
            static_tiling: self.static_tiling.as_ref(),
            source,
        }
    }
}

/// The kernels of a module, read and scheduled.
struct Kernels {
    /// AscGraphs selected, translatable or not.
    found: usize,
    prepared: HashMap<String, Prepared>,
    /// The prepared kernels in module order.
    order: Vec<String>,
    /// The tiling evaluation of every prepared kernel, when asked for.
    report: String,
    errors: Vec<String>,
}

/// Reads, schedules and (for a static shape) solves every selected AscGraph of `body`
/// in module order; with `evaluate`, also solves each for those symbol values and
/// reports the tiling.
fn prepare_kernels(
    body: BlockRef,
    only: Option<&str>,
    evaluate: Option<&HashMap<String, i64>>,
    note: &mut dyn FnMut(&str),
) -> Kernels {
    let mut kernels = Kernels {
        found: 0,
        prepared: HashMap::new(),
        order: Vec::new(),
        report: String::new(),
        errors: Vec::new(),
    };
    let index = RecordIndex::build(body);
    for func in extract::functions(body) {
        if !extract::read_attributes(&func).contains_key("ascir.axes") {
            continue;
        }
        let kernel = extract::function_name(&func);
        if only.is_some_and(|o| o != kernel) {
            continue;
        }
        kernels.found += 1;
        if form_of(&func) != "impl" {
            note(&format!("@{kernel} is not scheduled (hint form); skipped"));
            continue;
        }
        let records = index.records(&kernel);
        let Some((_, function)) = records.iter().find(|(op, _)| op == "tiling.function") else {
            kernels.errors.push(format!(
                "@{kernel} has no tiling.function: run --auto-tiling first"
            ));
            continue;
        };
        if function.get("feasible").and_then(AttrValue::as_bool) == Some(false) {
            note(&format!("@{kernel}: no tiling case fits UB; skipped"));
            continue;
        }
        let result = prepare(&func).and_then(|prepared| {
            if let Some(symbols) = evaluate {
                kernels.report.push_str(&evaluate_one(&prepared, symbols)?);
            }
            Ok(prepared)
        });
        match result {
            Ok(prepared) => {
                kernels.order.push(kernel.clone());
                kernels.prepared.insert(kernel, prepared);
            }
            Err(e) => kernels.errors.push(format!("@{kernel}: {e}")),
        }
    }
    kernels
}

/// Schedules the AscGraph of `func` for its recorded chip and builds its tiling model;
/// a static kernel's tiling is solved once here.
fn prepare(func: &OperationRef) -> Result<Prepared, String> {
    let chip = chip_of(func).unwrap_or_else(|| Err("no recorded chip".into()))?;
    let graph = read_hint_graph(func)?;
    let schedule = Schedule::build(&graph, &chip)?;
    let model = TilingModel::new(&schedule, &Schedule::operands_of(&graph));
    let static_tiling = if schedule.symbols.is_empty() {
        Some(solve(&model, &HashMap::new(), &chip)?)
    } else {
        None
    };
    Ok(Prepared {
        graph,
        schedule,
        model,
        static_tiling,
        chip,
    })
}

/// The tiling report of one kernel: its static tiling, or the one solved for `symbols`.
fn evaluate_one(prepared: &Prepared, symbols: &HashMap<String, i64>) -> Result<String, String> {
    let tiling = match &prepared.static_tiling {
        Some(t) => t.clone(),
        None => solve(&prepared.model, symbols, &prepared.chip)?,
    };
    Ok(tiling.report(&prepared.model))
}

/// The files of a translation so far, and its errors.
struct Translation {
    files: Vec<(String, String)>,
    /// Directories of kernels and launches, in the order they were translated.
    kernel_dirs: Vec<String>,
    errors: Vec<String>,
}

impl Translation {
    /// Translates every launch of several loop groups in `body`; returns the kernels
    /// that are groups of a translated launch.
    fn add_launches(
        &mut self,
        body: BlockRef,
        prepared: &HashMap<String, Prepared>,
        source: &str,
    ) -> HashSet<String> {
        let mut in_launch = HashSet::new();
        for func in extract::functions(body) {
            let attrs = extract::read_attributes(&func);
            if !attrs.contains_key("ascir.launch") {
                continue;
            }
            let launch = extract::function_name(&func);
            let result = extract::extract_function(func)
                .ok_or_else(|| "a launch without a body".to_string())
                .and_then(|extracted| launch::wiring(&extracted.graph, &attrs))
                .and_then(|wiring| self.add_launch(&launch, &wiring, prepared, source));
            match result {
                Ok(groups) => in_launch.extend(groups),
                Err(e) => self.errors.push(format!("@{launch}: {e}")),
            }
        }
        in_launch
    }

    /// Translates the launch `launch` wired as `wiring`; returns its group kernels.
    fn add_launch(
        &mut self,
        launch: &str,
        wiring: &launch::Wiring,
        prepared: &HashMap<String, Prepared>,
        source: &str,
    ) -> Result<Vec<String>, String> {
        let mut groups = Vec::new();
        for (kernel, _, _) in &wiring.groups {
            let p = prepared.get(kernel).ok_or_else(|| {
                format!("group @{kernel} is not a scheduled kernel with a feasible tiling")
            })?;
            groups.push(LaunchGroup {
                kernel: kernel.clone(),
                input: p.input(source),
            });
        }
        let sources = launch::translate_launch(&groups, wiring, launch, source)?;
        for (f, c) in sources.files {
            self.files.push((format!("{launch}/{f}"), c));
        }
        self.kernel_dirs.push(launch.to_string());
        Ok(wiring.groups.iter().map(|(k, _, _)| k.clone()).collect())
    }

    /// Translates one kernel into its own directory.
    fn add_kernel(&mut self, kernel: &str, prepared: &Prepared, source: &str) {
        match translate_kernel(&prepared.input(source), kernel) {
            Ok(sources) => {
                for (f, c) in sources.files {
                    self.files.push((format!("{kernel}/{f}"), c));
                }
                self.kernel_dirs.push(kernel.to_string());
            }
            Err(e) => self.errors.push(format!("@{kernel}: {e}")),
        }
    }
}

/// Fails when `only` names no AscGraph of `body` (listing those it has); notes a
/// module without any AscGraph.
fn check_selection(
    body: BlockRef,
    only: Option<&str>,
    found: usize,
    note: &mut dyn FnMut(&str),
) -> Result<(), String> {
    if let Some(kernel) = only.filter(|_| found == 0) {
        let mut available: Vec<String> = extract::functions(body)
            .into_iter()
            .filter(|f| extract::read_attributes(f).contains_key("ascir.axes"))
            .map(|f| format!("@{}", extract::function_name(&f)))
            .collect();
        available.sort();
        return Err(format!(
            "--kernel {kernel}: the module has no AscGraph @{kernel} (available: {})",
            if available.is_empty() {
                "none".to_string()
            } else {
                available.join(", ")
            }
        ));
    }
    if found == 0 {
        note("the module has no AscGraph");
    }
    Ok(())
}
