//! Executing a whole module with the reference interpreters: `ascend` ops by the Ascend
//! IR interpreter, calls of AscGraphs by the AscIR interpreter, calls of other graph
//! functions recursively. This is the oracle side of the differential tests and of
//! `autofuse-opt --interpret`; `autofuse-run` walks graphs the same way with its kernels
//! on the emulation (`Program::run_with`).

use autofuse_ascend::interp;
use autofuse_ascend::interp::{bind_symbols, run_node};
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::interp as ascir_interp;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, Graph, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_mlir::extract;
use autofuse_passes::pipeline;
use melior::ir::{operation::OperationLike, BlockRef, Module};
use melior::pass::PassManager;
use std::collections::HashMap;

/// Every function of a module, as graphs and AscGraphs.
#[derive(Default)]
pub struct Program {
    pub graphs: HashMap<String, Graph>,
    pub kernels: HashMap<String, AscGraph>,
    /// Function names in module order.
    pub order: Vec<String>,
    /// Graph functions that are launches of several loop groups (`ascir.launch`).
    pub launches: std::collections::HashSet<String>,
    /// Every `ascend.parameter`: its graph, node index and source location (for
    /// located errors about its weight file).
    pub parameters: Vec<(String, usize, String)>,
}

impl Program {
    pub fn from_module(body: BlockRef) -> Result<Program, String> {
        let mut program = Program::default();
        for func in extract::functions(body) {
            let attrs = extract::read_attributes(&func);
            let Some(extracted) = extract::extract_function(func) else {
                continue;
            };
            let name = extracted.graph.name.clone();
            if attrs.contains_key("ascir.axes") {
                let kernel = AscGraph::from_graph(&extracted.graph, &attrs)
                    .map_err(|e| format!("AscGraph @{name}: {e}"))?;
                program.kernels.insert(name.clone(), kernel);
            } else {
                if attrs.contains_key("ascir.launch") {
                    program.launches.insert(name.clone());
                }
                for (index, node) in extracted.graph.nodes.iter().enumerate() {
                    if node.op == "ascend.parameter" {
                        let location = extract::location_text(extracted.ops[index].location());
                        program
                            .parameters
                            .push((name.clone(), index, location_prefix(&location)));
                    }
                }
                program.graphs.insert(name.clone(), extracted.graph);
            }
            program.order.push(name);
        }
        Ok(program)
    }

    /// Makes the weight files of every `ascend.parameter` absolute: relative paths are
    /// relative to `base`, the directory of the IR file (the current directory for IR
    /// read from standard input).
    pub fn resolve_weight_files(&mut self, base: &std::path::Path) {
        for graph in self.graphs.values_mut() {
            for node in &mut graph.nodes {
                if node.op != "ascend.parameter" {
                    continue;
                }
                if let Some(AttrValue::Str(file)) = node.attrs.get_mut("file") {
                    *file = autofuse_ir::weights::resolve(file, Some(base))
                        .to_string_lossy()
                        .into_owned();
                }
            }
        }
    }

    /// Checks that every weight file exists and holds the bytes its parameters read
    /// (after [`Program::resolve_weight_files`]); the error names the parameter's
    /// location, the file and the bytes wanted.
    pub fn verify_weight_files(&self) -> Result<(), String> {
        for (graph, index, location) in &self.parameters {
            let Some(node) = self.graphs.get(graph).and_then(|g| g.nodes.get(*index)) else {
                continue;
            };
            let ty = self.graphs[graph].ty(node.results[0]);
            let file = node.attr("file").and_then(AttrValue::as_str);
            let offset = node
                .attr("offset")
                .and_then(AttrValue::as_int)
                .and_then(|o| u64::try_from(o).ok());
            let bytes = ty.and_then(|ty| {
                ty.dims
                    .iter()
                    .map(|d| d.as_const().and_then(|n| usize::try_from(n).ok()))
                    .try_fold(ty.dtype.bytes(), |acc, d| acc.checked_mul(d?))
            });
            let checked = match (file, offset, bytes) {
                (Some(file), Some(offset), Some(bytes)) => {
                    autofuse_ir::weights::byte_range(std::path::Path::new(file), offset, bytes)
                        .map(|_| ())
                }
                _ => Err(
                    "a parameter needs a file, a non-negative offset and a static shape"
                        .to_string(),
                ),
            };
            checked.map_err(|e| format!("{location}: {e}"))?;
        }
        Ok(())
    }

    /// The first graph function that is not a kernel or a launch (the usual entry point).
    pub fn default_entry(&self) -> Option<&str> {
        self.order
            .iter()
            .find(|n| self.graphs.contains_key(*n) && !self.launches.contains(*n))
            .map(String::as_str)
    }

    /// Graph function `name`.
    pub fn graph(&self, name: &str) -> Result<&Graph, String> {
        self.graphs
            .get(name)
            .ok_or_else(|| format!("no graph function @{name}"))
    }

    /// Runs graph function `entry` on `inputs` with the interpreters.
    pub fn run(&self, entry: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
        self.run_with(entry, inputs, &mut |_, _, _| Ok(None))
    }

    /// Runs graph function `entry` on `inputs`: `ascend` ops by the Ascend IR
    /// interpreter, kernel calls through `hook` (the AscIR interpreter when it declines),
    /// calls of launches through `hook` (their body when it declines), calls of other
    /// graph functions recursively with the same hook.
    pub fn run_with(
        &self,
        entry: &str,
        inputs: &[Tensor],
        hook: &mut KernelHook,
    ) -> Result<Vec<Tensor>, String> {
        let graph = self.graph(entry)?;
        let symbols = bind_symbols(graph, inputs).map_err(|e| e.to_string())?;
        let mut values: Vec<Option<Tensor>> = vec![None; graph.values.len()];
        for (&arg, t) in graph.arguments.iter().zip(inputs) {
            values[arg] = Some(t.clone());
        }
        // Each value is dropped at its last use (moved into that op's operands), so a
        // run holds the values that are still needed, not every value of the graph:
        // at real model sizes the weights and activations would not fit otherwise.
        let mut uses_left = vec![0usize; graph.values.len()];
        for &v in graph.nodes.iter().flat_map(|n| &n.operands) {
            if let Some(count) = uses_left.get_mut(v) {
                *count += 1;
            }
        }
        for &v in &graph.outputs {
            if let Some(count) = uses_left.get_mut(v) {
                *count += 1;
            }
        }
        for node in &graph.nodes {
            let operands: Vec<Tensor> = node
                .operands
                .iter()
                .map(|&v| {
                    let last = uses_left.get_mut(v).map(|count| {
                        *count -= 1;
                        *count == 0
                    });
                    let taken = if last == Some(true) {
                        values.get_mut(v).and_then(Option::take)
                    } else {
                        value_of(&values, v)
                    };
                    taken.ok_or_else(|| format!("'{}': operand used before definition", node.op))
                })
                .collect::<Result<_, _>>()?;
            if node.op == "func.call" {
                // Kernel and launch results are allocated by the hook, the AscIR
                // interpreter or the callee: check they fit host memory first.
                for (i, &r) in node.results.iter().enumerate() {
                    if let Some(shape) = graph.ty(r).and_then(|t| concrete_shape(t, &symbols).ok())
                    {
                        autofuse_ir::hostmem::check_shape(
                            &format!("result #{i} of '{}' (op #{})", node.op, node.op_index),
                            &shape,
                        )?;
                    }
                }
            }
            let outs = if node.op == "func.call" {
                let callee = node
                    .attr("callee")
                    .and_then(AttrValue::as_symbol)
                    .ok_or_else(|| "func.call without a callee".to_string())?;
                if let Some(kernel) = self.kernels.get(callee) {
                    match hook(callee, &operands, &symbols)? {
                        Some(outs) => outs,
                        None => ascir_interp::run_with_symbols(kernel, &operands, &symbols)
                            .map_err(|e| e.to_string())?,
                    }
                } else if self
                    .graphs
                    .get(callee)
                    .is_some_and(|g| !g.nodes.is_empty() || !g.outputs.is_empty())
                {
                    // A launch goes to the hook first (one launch on the emulation);
                    // declined, its body calls the groups one by one.
                    let launched = if self.launches.contains(callee) {
                        hook(callee, &operands, &symbols)?
                    } else {
                        None
                    };
                    match launched {
                        Some(outs) => outs,
                        None => self.run_with(callee, &operands, hook)?,
                    }
                } else {
                    return Err(format!(
                        "call of @{callee}: an external function the interpreter cannot run"
                    ));
                }
            } else {
                let refs: Vec<&Tensor> = operands.iter().collect();
                let result_types: Vec<_> = node
                    .results
                    .iter()
                    .filter_map(|&r| graph.ty(r).cloned())
                    .collect();
                run_node(&node.op, &node.attrs, &refs, &result_types, &symbols)
                    .map_err(|e| e.at_op(node.op_index))
                    .map_err(|e: interp::InterpError| e.to_string())?
            };
            for (&r, t) in node.results.iter().zip(outs) {
                values[r] = Some(t);
            }
        }
        graph
            .outputs
            .iter()
            .map(|&v| value_of(&values, v).ok_or_else(|| "output never defined".to_string()))
            .collect()
    }
}

/// `file:line:col` (or the name) of a printed location `loc(...)`, for messages.
fn location_prefix(location: &str) -> String {
    let inner = location
        .strip_prefix("loc(")
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or(location);
    match inner.strip_prefix('"').and_then(|l| l.split_once('"')) {
        Some((name, rest)) => format!("{name}{rest}"),
        None => inner.to_string(),
    }
}

/// The tensor computed for value `v` so far, if any.
fn value_of(values: &[Option<Tensor>], v: usize) -> Option<Tensor> {
    values.get(v).cloned().flatten()
}

/// How a kernel call runs under [`Program::run_with`]: given the callee, its operands
/// and the graph's symbol values, the outputs, or `None` to let the AscIR interpreter
/// run the kernel.
pub type KernelHook<'h> =
    dyn FnMut(&str, &[Tensor], &HashMap<String, i64>) -> Result<Option<Vec<Tensor>>, String> + 'h;

/// Runs a textual pipeline (our passes and upstream ones) on a module; the
/// diagnostics are returned as text on failure.
pub fn run_pipeline(module: &mut Module, pipeline_text: &str) -> Result<(), String> {
    let context = module.context();
    autofuse_mlir::diagnostics::drain(context);
    // SAFETY: the context outlives this function's pass manager.
    let manager = PassManager::new(unsafe { context.to_ref() });
    pipeline::add_pipeline(&manager.as_operation_pass_manager(), pipeline_text)?;
    let ran = manager.run(module).is_ok();
    let diags = autofuse_mlir::diagnostics::drain(module.context());
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == autofuse_mlir::diagnostics::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if ran && errors.is_empty() {
        Ok(())
    } else {
        Err(if errors.is_empty() {
            "pass pipeline failed".to_string()
        } else {
            errors.join("\n")
        })
    }
}

/// The tools' one comparison (IEEE semantics for NaN and infinities, dtype-aware
/// tolerance for finite values): see [`crate::comparison`].
pub use crate::comparison::compare;

/// Reads one `.npy` file per argument of `graph`, in the argument's dtype.
pub fn read_inputs(graph: &Graph, files: &[&String]) -> Result<Vec<Tensor>, String> {
    if files.len() != graph.arguments.len() {
        return Err(format!(
            "@{} takes {} inputs but {} --input files were given",
            graph.name,
            graph.arguments.len(),
            files.len()
        ));
    }
    files
        .iter()
        .zip(&graph.arguments)
        .map(|(path, &arg)| {
            let dtype = graph
                .ty(arg)
                .map(|t| t.dtype)
                .ok_or("argument without a tensor type")?;
            Tensor::read_npy_as(path, dtype).map_err(|e| format!("{path}: {e}"))
        })
        .collect()
}

/// The shape of `ty` when its symbols take `symbols`' values; a symbol without a value
/// and an unknown dim stand for 4, and a negative size for 0.
pub fn concrete_shape(
    ty: &TensorType,
    symbols: &HashMap<String, i64>,
) -> Result<Vec<usize>, String> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Known(e) => e
                .eval(&|name| Some(*symbols.get(name).unwrap_or(&4)))
                .map(|v| v.max(0) as usize)
                .map_err(|err| err.to_string()),
            Dim::Unknown => Ok(4),
        })
        .collect()
}

/// Random tensors of `types` under `symbols` (see [`concrete_shape`]); tensor `i` is
/// drawn with seed `seed + i`, so that one seed names one set of inputs.
pub fn random_tensors(
    types: &[TensorType],
    symbols: &HashMap<String, i64>,
    seed: u64,
) -> Result<Vec<Tensor>, String> {
    types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            Tensor::random(ty.dtype, concrete_shape(ty, symbols)?, seed + i as u64)
                .map_err(|e| format!("argument #{i} ({ty}): {e}"))
        })
        .collect()
}

/// Random inputs of `graph` (see [`random_tensors`]), except that an integer argument
/// used as the indices of `ascend.gather` (or `gather_elements`) draws from the whole index range of its table
/// axis, `[-rows, rows)` (negative ids wrap; for `gather_nd`, the smallest indexed dim): ids spread like token ids over a vocabulary
/// instead of the 16 small integers of `Tensor::random`, so lookups repeat only as often
/// as chance makes them. With several such uses, the smallest table decides.
pub fn random_inputs(
    graph: &Graph,
    symbols: &HashMap<String, i64>,
    seed: u64,
) -> Result<Vec<Tensor>, String> {
    let types = argument_types(graph)?;
    let mut inputs = random_tensors(&types, symbols, seed)?;
    for (i, &arg) in graph.arguments.iter().enumerate() {
        if types[i].dtype.is_float() {
            continue;
        }
        let rows = graph
            .nodes
            .iter()
            .filter(|n| {
                matches!(
                    n.op.as_str(),
                    "ascend.gather" | "ascend.gather_elements" | "ascend.gather_nd"
                ) && n.operands.get(1) == Some(&arg)
            })
            .filter_map(|n| {
                let table = graph.ty(*n.operands.first()?)?;
                let shape = concrete_shape(table, symbols).ok()?;
                if n.op == "ascend.gather_nd" {
                    // Every component of an index tuple within the smallest indexed dim.
                    let tuple = graph.ty(*n.operands.get(1)?)?.dims.last()?.as_const()?;
                    let batch = n.attr("batch_dims").and_then(|a| a.as_int()).unwrap_or(0);
                    let from = usize::try_from(batch).ok()?;
                    let to = from + usize::try_from(tuple).ok()?;
                    return shape.get(from..to)?.iter().copied().min();
                }
                let axis = n.attr("axis").and_then(|a| a.as_int()).unwrap_or(0);
                let axis = if axis < 0 {
                    axis + shape.len() as i64
                } else {
                    axis
                };
                shape.get(usize::try_from(axis).ok()?).copied()
            })
            .min();
        if let Some(rows) = rows.filter(|&r| r > 0) {
            inputs[i] = Tensor::random_uniform(
                types[i].dtype,
                concrete_shape(&types[i], symbols)?,
                seed + i as u64,
                -(rows as f64),
                rows as f64,
            )
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(inputs)
}

/// The argument types of `graph`, for [`random_tensors`].
pub fn argument_types(graph: &Graph) -> Result<Vec<TensorType>, String> {
    graph
        .arguments
        .iter()
        .map(|&arg| {
            graph
                .ty(arg)
                .cloned()
                .ok_or_else(|| format!("@{}: argument without a tensor type", graph.name))
        })
        .collect()
}
