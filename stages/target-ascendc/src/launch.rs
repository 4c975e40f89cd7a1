//! Ascend C of one launch holding several loop groups (`ascir.launch`, formed by
//! `--group-launches`; GE's FusedAscBackend with ScheduleGroups).
//!
//! Per launch it writes, besides each group kernel's `<kernel>_tiling.h/.cpp`:
//! - `<launch>.cpp`: one namespace per group (`af_<launch>_g<i>`: the group kernel's
//!   cases and `Run`, exactly as the kernel alone would have them) and one
//!   `extern "C" __global__ __aicore__` entry that runs the groups in turn. A block runs a
//!   group only when its index is below that group's block count. A group that reads what
//!   an earlier group wrote waits at `SyncAll()` (the hardware barrier: the entry is a
//!   `KERNEL_TYPE_MIX_AIV_1_0` kernel then, as the barrier needs on A2/A3). Values only
//!   the launch reads live in its workspace, at offsets the tiling data gives.
//! - `<launch>_tiling.h/.cpp`: `TilingData` = the launch's block count (the most any
//!   group needs), its workspace size and offsets, and each group's own tiling data;
//!   the host function calls each group's tiling function with that group's symbols.

use super::{host, kernel, CNames, KernelInput, KernelSources};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, Graph, TensorType};
use autofuse_symbolic::Expr;
use std::collections::HashMap;
use std::fmt::Write;

/// Where a group's operand or result lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// The launch's input `i`.
    Input(usize),
    /// The launch's output `i` (also read by later groups).
    Output(usize),
    /// Workspace slot `i`: written by one group, read by later ones, by nobody outside.
    Workspace(usize),
}

impl Buffer {
    fn c_name(self) -> String {
        match self {
            Buffer::Input(i) => format!("in{i}"),
            Buffer::Output(i) => format!("out{i}"),
            Buffer::Workspace(i) => format!("ws{i}"),
        }
    }
}

/// How the groups of a launch connect, read from the launch function.
#[derive(Clone, Debug)]
pub struct Wiring {
    /// Per group: its kernel function, operands and results.
    pub groups: Vec<(String, Vec<Buffer>, Vec<Buffer>)>,
    /// Per group: whether a barrier precedes it.
    pub waits: Vec<bool>,
    pub inputs: Vec<TensorType>,
    pub outputs: Vec<TensorType>,
    /// The types of the workspace slots.
    pub workspace: Vec<TensorType>,
}

/// Reads the wiring of a launch function (`ascir.launch`): its body calls the group
/// kernels in order.
pub fn wiring(
    launch: &Graph,
    attrs: &std::collections::BTreeMap<String, AttrValue>,
) -> Result<Wiring, String> {
    let waits: Vec<bool> = match attrs.get("ascir.launch_waits") {
        Some(AttrValue::Array(items)) => items
            .iter()
            .map(|w| w.as_bool().ok_or("ascir.launch_waits holds a non-bool"))
            .collect::<Result<_, _>>()?,
        _ => return Err("a launch without ascir.launch_waits".into()),
    };
    let mut slot: HashMap<usize, Buffer> = HashMap::new();
    for (i, &a) in launch.arguments.iter().enumerate() {
        slot.insert(a, Buffer::Input(i));
    }
    for (i, &o) in launch.outputs.iter().enumerate() {
        if slot.contains_key(&o) {
            return Err("a launch returns one of its arguments or one value twice".into());
        }
        slot.insert(o, Buffer::Output(i));
    }
    let mut workspace = Vec::new();
    let mut groups = Vec::new();
    for node in &launch.nodes {
        let callee = node
            .attr("callee")
            .and_then(AttrValue::as_symbol)
            .filter(|_| node.op == "func.call")
            .ok_or_else(|| format!("a launch holds '{}', not only kernel calls", node.op))?;
        let operands = node
            .operands
            .iter()
            .map(|v| {
                slot.get(v)
                    .copied()
                    .ok_or_else(|| format!("@{callee} reads a value no earlier group wrote"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut results = Vec::new();
        for &r in &node.results {
            let buffer = match slot.get(&r) {
                Some(&b) => b,
                None => {
                    let ty = launch
                        .ty(r)
                        .cloned()
                        .ok_or("a workspace value without a tensor type")?;
                    workspace.push(ty);
                    let b = Buffer::Workspace(workspace.len() - 1);
                    slot.insert(r, b);
                    b
                }
            };
            results.push(buffer);
        }
        groups.push((callee.to_string(), operands, results));
    }
    if groups.len() != waits.len() {
        return Err(format!(
            "the launch calls {} kernels but ascir.launch_waits has {} entries",
            groups.len(),
            waits.len()
        ));
    }
    let types = |values: &[usize]| -> Result<Vec<TensorType>, String> {
        values
            .iter()
            .map(|&v| {
                launch
                    .ty(v)
                    .cloned()
                    .ok_or("a launch value without a tensor type".into())
            })
            .collect()
    };
    Ok(Wiring {
        groups,
        waits,
        inputs: types(&launch.arguments)?,
        outputs: types(&launch.outputs)?,
        workspace,
    })
}

/// One group of a launch: the kernel's translation input under its C name.
pub struct LaunchGroup<'a> {
    pub kernel: String,
    pub input: KernelInput<'a>,
}

/// The symbols of a launch: every group's, in order of first appearance.
pub fn launch_symbols(groups: &[LaunchGroup]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in groups {
        for s in &g.input.model.symbols {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
    }
    out
}

fn bytes_expr(ty: &TensorType) -> Result<Expr, String> {
    let mut e = Expr::constant(ty.dtype.bytes() as i64);
    for d in &ty.dims {
        match d {
            Dim::Known(x) => e = e * x.clone(),
            Dim::Unknown => return Err("a workspace value has a dim without symbol".into()),
        }
    }
    Ok(e)
}

/// Translates one launch under the C symbol `name`.
pub fn translate_launch(
    groups: &[LaunchGroup],
    wiring: &Wiring,
    name: &str,
    source: &str,
) -> Result<KernelSources, String> {
    if groups.len() != wiring.groups.len() || groups.is_empty() {
        return Err("the launch's groups and its wiring differ".into());
    }
    let launch = Launch::new(groups, wiring, name);
    let mut files = vec![(format!("{name}.cpp"), launch.kernel_source(source)?)];
    files.push((format!("{name}_tiling.h"), launch.tiling_header()));
    files.push((format!("{name}_tiling.cpp"), launch.tiling_source()?));
    launch.add_group_tiling_and_build(&mut files)?;
    Ok(KernelSources {
        name: name.to_string(),
        files,
        inputs: wiring.inputs.len(),
        outputs: wiring.outputs.len(),
    })
}

/// One launch being translated: what its files share.
struct Launch<'a> {
    groups: &'a [LaunchGroup<'a>],
    wiring: &'a Wiring,
    name: &'a str,
    symbols: Vec<String>,
    barriers: usize,
    /// Groups with a cross-core case: their partials take a workspace region of their
    /// own, and their SyncAll must be reached by every block of the launch.
    cross: Vec<bool>,
    /// Whether any block waits at a SyncAll (a barrier between groups or a cross-core
    /// case): the entry is a mix kernel then.
    syncs: bool,
}

impl<'a> Launch<'a> {
    fn new(groups: &'a [LaunchGroup<'a>], wiring: &'a Wiring, name: &'a str) -> Self {
        let barriers = wiring.waits.iter().filter(|&&w| w).count();
        let cross: Vec<bool> = groups
            .iter()
            .map(|g| kernel::cross_core(g.input.schedule))
            .collect();
        let syncs = barriers > 0 || cross.iter().any(|&c| c);
        Launch {
            groups,
            wiring,
            name,
            symbols: launch_symbols(groups),
            barriers,
            cross,
            syncs,
        }
    }

    /// `<launch>.cpp`: each group's namespace, then the entry that runs them.
    fn kernel_source(&self, source: &str) -> Result<String, String> {
        let (name, groups) = (self.name, self.groups);
        let mut k = String::new();
        let members: Vec<String> = groups.iter().map(|g| g.kernel.clone()).collect();
        let _ = writeln!(
            k,
            "// Generated by autofuse-translate --mlir-to-ascendc from {source}; do not edit.\n\
             // Launch {name}: {} loop groups ({}) with {} cross-core barrier(s).",
            groups.len(),
            members.join(", "),
            self.barriers
        );
        k.push_str("#include \"kernel_operator.h\"\n#include \"af_kernel_utils.h\"\n");
        let _ = writeln!(k, "#include \"{name}_tiling.h\"\n");
        k.push_str("using namespace AscendC;\n\n");
        for (i, g) in groups.iter().enumerate() {
            let _ = writeln!(
                k,
                "// Group {i}: kernel {} (fused ops {}).",
                g.kernel,
                g.input.graph.source_ops.join(", ")
            );
            k.push_str(&kernel::emit_group_body(
                &g.input,
                &format!("af_{name}_g{i}"),
                Some(&g.kernel),
            )?);
        }
        k.push_str(&self.entry());
        Ok(k)
    }

    /// The `extern "C"` entry: the workspace slots, then each group's run on the blocks
    /// it needs, after a SyncAll when it reads what earlier groups wrote.
    fn entry(&self) -> String {
        let (name, wiring) = (self.name, self.wiring);
        let mut k = String::new();
        let mut args: Vec<String> = (0..wiring.inputs.len())
            .map(|i| format!("GM_ADDR in{i}"))
            .chain((0..wiring.outputs.len()).map(|i| format!("GM_ADDR out{i}")))
            .collect();
        args.push("GM_ADDR workspace".into());
        args.push("GM_ADDR tiling".into());
        let _ = writeln!(
            k,
            "extern \"C\" __global__ __aicore__ void {name}({}) {{",
            args.join(", ")
        );
        if self.syncs {
            k.push_str(
                "    // SyncAll (the hardware barrier) needs a mix kernel on A2/A3.\n    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);\n",
            );
        } else {
            k.push_str("    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n");
        }
        let _ = writeln!(k, "    AF_GET_TILING(af_{name}::TilingData, t, tiling);");
        if wiring.workspace.is_empty() && !self.cross.iter().any(|&c| c) {
            k.push_str("    (void)workspace;\n");
        }
        for i in 0..wiring.workspace.len() {
            let _ = writeln!(k, "    GM_ADDR ws{i} = workspace + t.ws{i}_offset;");
        }
        k.push_str("    const int64_t block = GetBlockIdx();\n");
        for i in 0..wiring.groups.len() {
            self.group_run(i, &mut k);
        }
        k.push_str("}\n");
        k
    }

    /// Group `i` in the entry: its `Run` on the blocks below its block count; with a
    /// cross-core case, the other blocks meet its SyncAll.
    fn group_run(&self, i: usize, k: &mut String) {
        let (kernel_name, operands, results) = &self.wiring.groups[i];
        if self.wiring.waits[i] {
            let _ = writeln!(
                k,
                "    // Group {i} reads what earlier groups wrote to GM: every block waits for all.\n    SyncAll();"
            );
        }
        let mut buffers: Vec<String> = operands.iter().chain(results).map(|b| b.c_name()).collect();
        if self.cross[i] {
            buffers.push(format!("workspace + t.g{i}_ws_offset"));
        }
        let _ = writeln!(
            k,
            "    if (block < static_cast<int64_t>(t.g{i}.block_dim)) {{  // @{kernel_name}\n        af_{}_g{i}::Run({}, t.g{i});",
            self.name,
            buffers.join(", ")
        );
        if self.cross[i] {
            // The cross-core case's blocks meet at one SyncAll; so must the others.
            let keys: Vec<String> = self.groups[i]
                .input
                .schedule
                .cases
                .iter()
                .filter(|c| c.cross_core)
                .map(|c| format!("t.g{i}.tiling_key == {}", c.key))
                .collect();
            let _ = writeln!(
                k,
                "    }} else if ({}) {{\n        SyncAll();  // the cross-core case's barrier, met by every block",
                keys.join(" || ")
            );
        }
        k.push_str("    }\n");
        if i + 1 < self.wiring.groups.len() {
            k.push_str("    af::EndLoopGroup();\n");
        }
    }

    /// `<launch>_tiling.h`: the launch's `TilingData` (block count, workspace layout and
    /// each group's tiling data) and the host function's prototype.
    fn tiling_header(&self) -> String {
        let name = self.name;
        let mut h = String::new();
        let _ = writeln!(
            h,
            "// Generated by autofuse-translate: tiling data of launch {name}; do not edit.\n\
             #pragma once\n\n#include <cstdint>\n"
        );
        for g in self.groups {
            let _ = writeln!(h, "#include \"{}_tiling.h\"", g.kernel);
        }
        let _ = writeln!(
            h,
            "\nnamespace af_{name} {{\n\nstruct TilingData {{\n    uint32_t block_dim;  // the most blocks any group needs\n    uint32_t groups;\n    uint64_t workspace_bytes;  // what the launch's workspace argument must hold"
        );
        for i in 0..self.wiring.workspace.len() {
            let _ = writeln!(h, "    uint64_t ws{i}_offset;");
        }
        for (i, _) in self.cross.iter().enumerate().filter(|(_, &c)| c) {
            let _ = writeln!(
                h,
                "    uint64_t g{i}_ws_offset;  // group {i}'s cross-core partials"
            );
        }
        for (i, g) in self.groups.iter().enumerate() {
            let _ = writeln!(h, "    af_{}::TilingData g{i};", g.kernel);
        }
        let _ = writeln!(
            h,
            "}};\n\n}}  // namespace af_{name}\n\n\
             // Host tiling: symbols in the order [{}]; returns 0, or 1 when a group has no case that fits UB.\n\
             extern \"C\" int {name}_tiling(const int64_t* symbols, uint32_t cores, uint32_t ub_bytes,\n\
             {pad}af_{name}::TilingData* out);",
            self.symbols.join(", "),
            pad = " ".repeat(name.len() + 22)
        );
        h
    }

    /// `<launch>_tiling.cpp`: each group's tiling (its kernel's solver, or its static
    /// tiling), the launch's block count, and the workspace layout.
    fn tiling_source(&self) -> Result<String, String> {
        let name = self.name;
        let names = CNames::new(&self.symbols);
        let mut c = String::new();
        let _ = writeln!(
            c,
            "// Generated by autofuse-translate: host tiling function of launch {name}; do not edit.\n\
             // Each group keeps its own tiling (its kernel's solver); the launch adds the block count\n\
             // and the workspace layout.\n#include \"{name}_tiling.h\"\n\n\
             extern \"C\" int {name}_tiling(const int64_t* sym, uint32_t cores, uint32_t ub_bytes, af_{name}::TilingData* out) {{\n\
             \x20   (void)sym;\n    (void)cores;\n    (void)ub_bytes;\n    *out = af_{name}::TilingData{{}};\n    out->groups = {};",
            self.groups.len()
        );
        for (i, s) in self.symbols.iter().enumerate() {
            let _ = writeln!(
                c,
                "    [[maybe_unused]] const int64_t {} = sym[{i}];",
                names.name(s)
            );
        }
        for (i, g) in self.groups.iter().enumerate() {
            if g.input.static_tiling.is_some() {
                let _ = writeln!(c, "    out->g{i} = af_{}::kStaticTiling;", g.kernel);
            } else {
                let list: Vec<String> = g
                    .input
                    .model
                    .symbols
                    .iter()
                    .map(|s| names.name(s))
                    .collect();
                let _ = writeln!(
                    c,
                    "    {{\n        const int64_t group_sym[] = {{{}}};\n        if ({}_tiling(group_sym, cores, ub_bytes, &out->g{i}) != 0) return 1;\n    }}",
                    list.join(", "),
                    g.kernel
                );
            }
            let _ = writeln!(
                c,
                "    if (out->g{i}.block_dim > out->block_dim) out->block_dim = out->g{i}.block_dim;"
            );
        }
        c.push_str(&self.workspace_layout(&names)?);
        c.push_str("    out->workspace_bytes = workspace;\n    return 0;\n}\n");
        Ok(c)
    }

    /// The host code placing the workspace slots, then the cross-core groups' partials,
    /// each at a 32-byte aligned offset.
    fn workspace_layout(&self, names: &CNames) -> Result<String, String> {
        let mut c = String::from("    uint64_t workspace = 0;\n");
        for (i, ty) in self.wiring.workspace.iter().enumerate() {
            let bytes = names.expr(&bytes_expr(ty)?);
            let _ = writeln!(
                c,
                "    out->ws{i}_offset = workspace;\n    workspace += (static_cast<uint64_t>({bytes}) + 31) / 32 * 32;"
            );
        }
        for (i, _) in self.cross.iter().enumerate().filter(|(_, &c)| c) {
            let _ = writeln!(
                c,
                "    out->g{i}_ws_offset = workspace;\n    workspace += (static_cast<uint64_t>(out->g{i}.workspace_bytes) + 31) / 32 * 32;"
            );
        }
        if self.syncs {
            c.push_str("    // A mix kernel needs a workspace of at least one block.\n    if (workspace == 0) workspace = 32;\n");
        }
        Ok(c)
    }

    /// The groups' own tiling files (once per kernel) and the launch's CMakeLists.txt,
    /// which builds every tiling source.
    fn add_group_tiling_and_build(&self, files: &mut Vec<(String, String)>) -> Result<(), String> {
        let name = self.name;
        let mut tiling_sources = vec![format!("{name}_tiling.cpp")];
        for g in self.groups {
            let (gh, gc) = host::emit(&g.input, &g.kernel)?;
            let header = format!("{}_tiling.h", g.kernel);
            if !files.iter().any(|(n, _)| n == &header) {
                files.push((header, gh));
                files.push((format!("{}_tiling.cpp", g.kernel), gc));
                tiling_sources.push(format!("{}_tiling.cpp", g.kernel));
            }
        }
        let tiling_list: Vec<String> = tiling_sources
            .iter()
            .map(|f| format!("${{CMAKE_CURRENT_LIST_DIR}}/{f}"))
            .collect();
        files.push((
            "CMakeLists.txt".into(),
            format!(
                "# Generated by autofuse-translate: builds launch {name} ({} loop groups) with the CANN toolchain.\n\
                 # Configure with ASCEND_HOME_PATH set (source <CANN>/set_env.sh); see cmake/autofuse_ascendc.cmake.\n\
                 cmake_minimum_required(VERSION 3.16)\n\
                 project({name} LANGUAGES CXX)\n\
                 include(${{CMAKE_CURRENT_LIST_DIR}}/../cmake/autofuse_ascendc.cmake)\n\
                 autofuse_add_kernel({name}\n    KERNEL ${{CMAKE_CURRENT_LIST_DIR}}/{name}.cpp\n    TILING {}\n    INCLUDE ${{CMAKE_CURRENT_LIST_DIR}}/../include)\n",
                self.groups.len(),
                tiling_list.join(" ")
            ),
        ));
        Ok(())
    }
}
