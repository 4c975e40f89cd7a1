//! The device kernel `<kernel>.cpp`: one `__aicore__` function per tiling case and the
//! `extern "C" __global__ __aicore__` entry that selects the case by tiling key.
//!
//! A case function declares the GM tensors, the TPipe with its queues and TBufs (sizes
//! from the tiling data), then loops over this block's tiles: the tile index splits into
//! the looped-axis positions and the chunk of the split axis; per tile it runs the
//! canonical three stages (ascendc_api.md §2.7): CopyIn (AllocTensor, LoadBox =
//! DataCopyPad, EnQue), Compute (DeQue, one block of vector API calls per AscIR node,
//! EnQue results, FreeTensor inputs), CopyOut (DeQue, StoreBox, FreeTensor). Every
//! node's block carries a comment naming the AscIR op, the source op and its location.
//!
//! Preconditions: see `super`. Postconditions: only APIs of the sheet are called, with
//! UB operands at 32-byte aligned offsets (row pitches are multiples of 32 bytes).

mod node;

use super::{gm_type, short_loc, ub_type, CNames, KernelInput};
use autofuse_ascir::kernel::{
    Case, NodeKind, Place, Position, Schedule, ROW_CACHE_SLOT_EXTRA_BYTES,
};
use autofuse_ir::graph::Dim;
use autofuse_symbolic::Expr;
use autofuse_tiling::tiling::{row_cache_field, ROW_CACHE_BUFFER};
use node::{emit_node, scalar};
use std::fmt::Write;

struct Ctx<'a> {
    input: &'a KernelInput<'a>,
    s: &'a Schedule,
    case: &'a Case,
}

fn cx(s: &Schedule, e: &Expr) -> String {
    CNames::new(&s.symbols).expr(e)
}

impl Ctx<'_> {
    fn axis(&self, k: usize) -> &str {
        &self.s.axes[k].name
    }

    /// The raw queue tensor of store `n`: `s<n>`, or `st<n>` when a symbol of the kernel
    /// is named `s<n>` (the tensor would shadow the symbol in the store's GM offsets).
    fn store_tensor(&self, n: usize) -> String {
        let name = format!("s{n}");
        if self.s.symbols.contains(&name) {
            format!("st{n}")
        } else {
            name
        }
    }

    fn rank(&self) -> usize {
        self.case.in_tile.len()
    }

    /// Extents of node `n`'s box, as C++ expressions.
    fn box_of(&self, n: usize) -> String {
        self.box_items(n).join(", ")
    }

    /// Extents of node `n`'s box, one C++ expression per in-tile axis.
    fn box_items(&self, n: usize) -> Vec<String> {
        self.case
            .in_tile
            .iter()
            .map(|&k| match &self.s.nodes[n].partial[k] {
                // A fill of a split concat axis fills the tile (it may be two parts).
                Some(_)
                    if Some(k) == self.case.split
                        && matches!(self.s.nodes[n].kind, NodeKind::Scalar { .. }) =>
                {
                    format!("e_{}", self.axis(k))
                }
                // A part of a split concat axis: its rows in this tile (maybe none).
                Some(part) if Some(k) == self.case.split => format!(
                    "af_overlap(o_{a}, e_{a}, {}, {})",
                    cx(self.s, &self.s.nodes[n].part_start),
                    cx(self.s, part),
                    a = self.axis(k)
                ),
                // A part of a concat axis that is whole in every tile.
                Some(part) => cx(self.s, part),
                None if self.s.nodes[n].full[k] => format!("e_{}", self.axis(k)),
                None => "1".into(),
            })
            .collect()
    }

    /// The boxes of concat `n`'s two operands as its use of them sees them, when the tile
    /// splits the concat axis `axis`: the concat's box with each operand's rows in the
    /// tile (the first from where the concat starts, the second after the first's part).
    fn concat_use_boxes(&self, n: usize, axis: usize) -> Result<(String, String), String> {
        let g = self.input.graph;
        let part = |i: usize| -> Result<Expr, String> {
            g.nodes[n]
                .operands
                .get(i)
                .and_then(|&o| self.s.nodes.get(o))
                .and_then(|x| x.partial.get(axis).cloned().flatten())
                .ok_or_else(|| format!("concat node {n}: operand #{i} is not a part of its axis"))
        };
        let start = self.s.nodes[n].part_start.clone();
        let (len_a, len_b) = (part(0)?, part(1)?);
        let a = self.axis(axis);
        let with_rows = |from: &Expr, len: &Expr| -> String {
            let items: Vec<String> = self
                .case
                .in_tile
                .iter()
                .zip(self.box_items(n))
                .map(|(&k, item)| {
                    if k == axis {
                        format!(
                            "af_overlap(o_{a}, e_{a}, {}, {})",
                            cx(self.s, from),
                            cx(self.s, len)
                        )
                    } else {
                        item
                    }
                })
                .collect();
            items.join(", ")
        };
        let second = start.clone() + len_a.clone();
        Ok((with_rows(&start, &len_a), with_rows(&second, &len_b)))
    }

    /// GM strides of node `n` over the in-tile axes.
    fn strides_of(&self, n: usize) -> String {
        let items: Vec<String> = self
            .case
            .in_tile
            .iter()
            .map(|&k| {
                if self.s.nodes[n].full[k] {
                    cx(self.s, &self.s.nodes[n].gm_strides[k])
                } else {
                    "0".into()
                }
            })
            .collect();
        items.join(", ")
    }

    /// GM element offset of node `n`'s tile origin (looped axes and the split axis).
    fn base_of(&self, n: usize) -> String {
        let mut terms = Vec::new();
        let inner = self.case.inner_block.as_ref().map(|(b, _)| *b);
        for &k in self
            .case
            .looped
            .iter()
            .chain(self.case.split.iter())
            .chain(inner.iter())
        {
            let info = &self.s.nodes[n];
            if info.partial[k].is_some() && info.gm_strides[k] != Expr::constant(0) {
                // The first row of the part in this tile, counted from the part's start.
                let start = cx(self.s, &info.part_start);
                terms.push(format!(
                    "(af_max(o_{a}, {start}) - ({start})) * ({})",
                    cx(self.s, &info.gm_strides[k]),
                    a = self.axis(k)
                ));
            } else if info.full[k] && info.gm_strides[k] != Expr::constant(0) {
                terms.push(format!(
                    "o_{} * ({})",
                    self.axis(k),
                    cx(self.s, &info.gm_strides[k])
                ));
            }
        }
        if terms.is_empty() {
            "0".into()
        } else {
            terms.join(" + ")
        }
    }

    /// GM element offset of load `n`'s tile origin in the tensor its `data` node binds.
    fn load_base(&self, n: usize, data: usize) -> String {
        let base = self.base_of(data);
        let offset = &self.s.nodes[n].gm_offset;
        if *offset == Expr::constant(0) {
            base
        } else if base == "0" {
            format!("({})", cx(self.s, offset))
        } else {
            format!("({}) + {base}", cx(self.s, offset))
        }
    }

    fn comment(&self, n: usize) -> String {
        let node = &self.input.graph.nodes[n];
        let loc = node
            .loc
            .as_deref()
            .map(short_loc)
            .map(|l| format!("  (source op at {l})"))
            .unwrap_or_default();
        format!("// %{n} = ascir.{}{loc}", node.op)
    }
}

/// The kernel source.
pub fn emit(input: &KernelInput, name: &str) -> Result<String, String> {
    let s = input.schedule;
    let g = input.graph;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by autofuse-translate --mlir-to-ascendc from {}; do not edit.\n\
         // Kernel {name}: fused ops {}.",
        input.source,
        g.source_ops.join(", ")
    );
    let axes: Vec<String> = s
        .axes
        .iter()
        .map(|a| format!("{} = {}", a.name, a.size))
        .collect();
    let names = |list: &[usize]| {
        list.iter()
            .map(|&k| s.axes[k].name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "// Loop axes (normalized): {}; TilingGroup y = [{}], r = [{}].\n\
         // UB layout: rows padded to {} elements (32 bytes of the narrowest type).",
        axes.join(", "),
        names(&s.y),
        names(&s.r),
        s.align
    );
    out.push_str("#include \"kernel_operator.h\"\n#include \"af_kernel_utils.h\"\n");
    let _ = writeln!(out, "#include \"{name}_tiling.h\"\n");
    out.push_str("using namespace AscendC;\n\n");
    out.push_str(&emit_group_body(input, &format!("af_{name}"), None)?);
    // Entry.
    let params = params(input);
    let mut args: Vec<String> = params.iter().map(|p| format!("GM_ADDR {p}")).collect();
    args.push("GM_ADDR workspace".into());
    args.push("GM_ADDR tiling".into());
    let _ = writeln!(
        out,
        "extern \"C\" __global__ __aicore__ void {name}({}) {{",
        args.join(", ")
    );
    if cross_core(s) {
        out.push_str("    // SyncAll (the hardware barrier of a cross-core reduction) needs a mix kernel on A2/A3.\n    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);\n");
    } else {
        out.push_str("    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n");
    }
    if input.static_tiling.is_some() {
        let _ = writeln!(
            out,
            "    // Static shapes: the tiling was solved at compile time.\n    (void)tiling;\n    const af_{name}::TilingData& t = af_{name}::kStaticTiling;"
        );
    } else {
        let _ = writeln!(out, "    AF_GET_TILING(af_{name}::TilingData, t, tiling);");
    }
    if !cross_core(s) {
        out.push_str("    (void)workspace;\n");
    }
    let _ = writeln!(
        out,
        "    af_{name}::Run({}, t);\n}}",
        run_params(input).join(", ")
    );
    Ok(out)
}

/// Whether the kernel has a cross-core case: its `Run` and cases then take the
/// workspace (`run_params`), and a launch running it calls `SyncAll` on every block.
pub fn cross_core(s: &Schedule) -> bool {
    s.cases.iter().any(|c| c.cross_core)
}

/// The GM arguments of a kernel's `Run` and cases: its inputs and outputs, then the
/// workspace when a cross-core case writes its partials there.
pub fn run_params(input: &KernelInput) -> Vec<String> {
    let mut p = params(input);
    if cross_core(input.schedule) {
        p.push("workspace".into());
    }
    p
}

/// The namespace `af_<name>` of one kernel: a function per tiling case and `Run`, which
/// selects the case by tiling key. A standalone kernel's entry calls `Run`; a launch of
/// several loop groups (`emit_launch`) calls each group's `Run` in turn.
///
/// `namespace` names the C++ namespace; `tiling` (a launch's group) names the kernel whose
/// `TilingData` the code reads when the namespace is not that kernel's own.
pub fn emit_group_body(
    input: &KernelInput,
    namespace: &str,
    tiling: Option<&str>,
) -> Result<String, String> {
    let s = input.schedule;
    let mut out = String::new();
    let _ = writeln!(out, "namespace {namespace} {{\n");
    if let Some(kernel) = tiling {
        let _ = writeln!(out, "using TilingData = af_{kernel}::TilingData;\n");
    }
    let params = run_params(input);
    for case in &s.cases {
        let ctx = Ctx { input, s, case };
        out.push_str(&emit_case(&ctx, &params)?);
        out.push('\n');
    }
    let args: Vec<String> = params.iter().map(|p| format!("GM_ADDR {p}")).collect();
    let _ = writeln!(
        out,
        "__aicore__ inline void Run({}, const TilingData& t) {{",
        args.join(", ")
    );
    for (i, case) in s.cases.iter().enumerate() {
        let kw = if i == 0 { "if" } else { "} else if" };
        let _ = writeln!(
            out,
            // Qualified: a launch's group reads another namespace's TilingData, whose
            // own cases argument-dependent lookup would find too.
            "    {kw} (t.tiling_key == {}) {{\n        {namespace}::Case{}({}, t);",
            case.key,
            case.key,
            params.join(", ")
        );
    }
    out.push_str("    }\n}\n\n");
    let _ = writeln!(out, "}}  // namespace {namespace}\n");
    Ok(out)
}

fn params(input: &KernelInput) -> Vec<String> {
    (0..input.graph.inputs.len())
        .map(|i| format!("in{i}"))
        .chain((0..input.graph.outputs.len()).map(|i| format!("out{i}")))
        .collect()
}

fn numel(s: &Schedule, dims: &[Dim]) -> Result<String, String> {
    let mut e = Expr::constant(1);
    for d in dims {
        match d {
            Dim::Known(x) => e = e * x.clone(),
            Dim::Unknown => return Err("a kernel tensor has a dim without symbol".into()),
        }
    }
    Ok(cx(s, &e))
}

fn emit_case(ctx: &Ctx, params: &[String]) -> Result<String, String> {
    let s = ctx.s;
    let case = ctx.case;
    let mut o = String::new();
    let _ = writeln!(o, "// Case {}: {}.", case.key, describe_case(ctx));
    let args: Vec<String> = params.iter().map(|p| format!("GM_ADDR {p}")).collect();
    let _ = writeln!(
        o,
        "__aicore__ inline void Case{}({}, const TilingData& t) {{",
        case.key,
        args.join(", ")
    );
    let _ = writeln!(o, "    constexpr int64_t kAlign = {};", s.align);
    if cross_core(s) && !case.cross_core {
        o.push_str("    (void)workspace;  // only the cross-core case writes partials there\n");
    }
    o.push_str(&declare_tiling_values(ctx));
    o.push_str(&declare_gm_tensors(ctx)?);
    o.push_str(&declare_buffers(ctx));
    let chunks = match (case.split, &case.tile_var) {
        (Some(u), Some(var)) => format!("af_ceildiv(size_{}, {var})", ctx.axis(u)),
        _ => "1".into(),
    };
    let _ = writeln!(
        o,
        "    const int64_t chunks = {chunks};\n    (void)chunks;\n    const int64_t first = static_cast<int64_t>(GetBlockIdx()) * t.{bv};\n    const int64_t last = af_min(first + t.{bv}, t.tiles_total);",
        bv = case.block_var
    );
    match s.split_plan(case) {
        None => emit_all_load(ctx, &mut o)?,
        Some(plan) if case.cross_core => emit_cross_core(ctx, &plan, &mut o)?,
        Some(plan) => emit_split_reduction(ctx, &plan, &mut o)?,
    }
    o.push_str("}\n");
    Ok(o)
}

/// The case's tiling, for its heading comment: the UB split with the looped and
/// in-tile axes, and the block of the innermost axis when it has one.
fn describe_case(ctx: &Ctx) -> String {
    let case = ctx.case;
    let describe = match case.split {
        Some(u) => format!(
            "UB split of {} (tile {}), looped [{}], in tile [{}]",
            ctx.axis(u),
            case.tile_var.as_deref().unwrap_or(""),
            case.looped
                .iter()
                .map(|&k| ctx.axis(k).to_string())
                .collect::<Vec<_>>()
                .join(", "),
            case.in_tile
                .iter()
                .map(|&k| ctx.axis(k).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "one tile holding every axis".into(),
    };
    match &case.inner_block {
        Some((b, extent)) => format!(
            "{describe}; {} in blocks of {} ({})",
            ctx.axis(*b),
            cx(ctx.s, extent),
            if ctx.s.nodes.iter().any(|x| x.transpose) {
                "loads transpose in UB"
            } else {
                "concat rows cut into blocks: GM concat"
            }
        ),
        None => describe,
    }
}

/// The symbols and the tile variable as locals read from the tiling data, and the axis
/// sizes.
fn declare_tiling_values(ctx: &Ctx) -> String {
    let s = ctx.s;
    let mut o = String::new();
    let names = CNames::new(&s.symbols);
    for sym in &s.symbols {
        let _ = writeln!(
            o,
            "    [[maybe_unused]] const int64_t {c} = t.{c};",
            c = names.name(sym)
        );
    }
    for a in &s.axes {
        let _ = writeln!(
            o,
            "    [[maybe_unused]] const int64_t size_{} = {};",
            a.name,
            cx(s, &a.size)
        );
    }
    if let Some(var) = &ctx.case.tile_var {
        let _ = writeln!(o, "    const int64_t {var} = t.{var};");
    }
    o
}

/// The kernel's inputs and outputs as GM tensors.
fn declare_gm_tensors(ctx: &Ctx) -> Result<String, String> {
    let (s, g) = (ctx.s, ctx.input.graph);
    let mut o = String::new();
    for (i, ty) in g.inputs.iter().enumerate() {
        let t = gm_type(ty.dtype);
        let _ = writeln!(
            o,
            "    GlobalTensor<{t}> gm_in{i};\n    gm_in{i}.SetGlobalBuffer((__gm__ {t}*)in{i}, {});",
            numel(s, &ty.dims)?
        );
    }
    for (i, ty) in g.outputs.iter().enumerate() {
        let t = gm_type(ty.dtype);
        let _ = writeln!(
            o,
            "    GlobalTensor<{t}> gm_out{i};\n    gm_out{i}.SetGlobalBuffer((__gm__ {t}*)out{i}, {});",
            numel(s, &ty.dims)?
        );
    }
    Ok(o)
}

/// The TPipe with the queues, the slots' TBufs, the extra buffers the schedule uses
/// and the row caches, sized by the tiling data.
fn declare_buffers(ctx: &Ctx) -> String {
    let s = ctx.s;
    let mut o = String::from("    TPipe pipe;\n");
    for (q, queue) in s.queues.iter().enumerate() {
        let _ = writeln!(
            o,
            "    TQue<TPosition::{}, 1> q{q};\n    pipe.InitBuffer(q{q}, {}, t.q{q}_size);",
            queue.position.name(),
            queue.count
        );
    }
    for b in 0..s.slots.len() {
        let _ = writeln!(
            o,
            "    TBuf<TPosition::VECCALC> b{b};\n    pipe.InitBuffer(b{b}, t.b{b}_size);"
        );
    }
    for (used, name) in [
        (s.extras.work, "work"),
        (s.extras.mask, "mask"),
        (s.extras.scratch, "scratch"),
        (s.extras.part, "part"),
        (s.hoists(), "hoist"),
        (s.keeps_tables(), "table"),
        (s.has_row_caches(), ROW_CACHE_BUFFER),
    ] {
        if used {
            let _ = writeln!(
                o,
                "    TBuf<TPosition::VECCALC> {name};\n    pipe.InitBuffer({name}, t.{name}_size);"
            );
        }
    }
    o.push_str(&declare_row_caches(ctx));
    o
}

/// What one stage of a tile computes.
#[derive(Default)]
struct Stage {
    /// Nodes in node order (loads, computes, stores); accumulators are separate.
    nodes: Vec<usize>,
    /// Reductions over the split axis combined into their accumulator (chunk stages).
    accs: Vec<usize>,
    /// Means scaled after their last chunk (final stages).
    means: Vec<usize>,
    /// Whether the stage runs inside the chunk loop (`chunk` is defined).
    in_chunk: bool,
}

/// Declarations of the origins and extents of one tile: `o_<axis>`, `e_<axis>`.
fn tile_position(ctx: &Ctx, indent: &str, with_split: bool) -> String {
    let case = ctx.case;
    let mut o = String::new();
    // Transpose cases: the block of the innermost axis (fixed extent), then the looped axes.
    let inner = case.inner_block.as_ref().map(|(b, _)| *b);
    if let Some((b, extent)) = &case.inner_block {
        let a = ctx.axis(*b);
        let e = cx(ctx.s, extent);
        let _ = writeln!(
            o,
            "{indent}const int64_t o_{a} = (rest % af_ceildiv(size_{a}, {e})) * {e};\n{indent}rest /= af_ceildiv(size_{a}, {e});\n{indent}const int64_t e_{a} = af_min({e}, size_{a} - o_{a});"
        );
    }
    for &k in case.looped.iter().rev() {
        let a = ctx.axis(k);
        let _ = writeln!(
            o,
            "{indent}const int64_t o_{a} = rest % size_{a};\n{indent}rest /= size_{a};"
        );
    }
    for &k in &case.in_tile {
        let a = ctx.axis(k);
        if Some(k) == inner {
            continue;
        }
        if Some(k) == case.split {
            if with_split {
                let var = case.tile_var.as_deref().unwrap_or("1");
                let _ = writeln!(
                    o,
                    "{indent}const int64_t o_{a} = chunk * {var};\n{indent}const int64_t e_{a} = af_min({var}, size_{a} - o_{a});"
                );
            }
        } else {
            let _ = writeln!(
                o,
                "{indent}[[maybe_unused]] const int64_t e_{a} = size_{a};"
            );
        }
    }
    o
}

/// The all-load case: every tile is independent; block b takes tiles
/// [b * per, (b + 1) * per) of the merged (looped x chunk) index. The chunk varies
/// fastest, unless the case has chunk-resident loads (`Schedule::chunk_major`): then the
/// looped position does, and those loads are reloaded only when the chunk changes.
fn emit_all_load(ctx: &Ctx, o: &mut String) -> Result<(), String> {
    o.push_str(&emit_hoisted_loads(ctx)?);
    o.push_str(&emit_table_loads(ctx));
    for r in ctx.s.row_caches(ctx.case) {
        let _ = writeln!(o, "    af::ResetRowCache(rc{});", r.node);
    }
    if ctx.s.chunk_major(ctx.case) {
        o.push_str(
            "    const int64_t outer_tiles = chunks > 0 ? t.tiles_total / chunks : 0;
",
        );
        o.push_str(
            "    int64_t resident_chunk = -1;
",
        );
    } else if !ctx.s.outer_resident(ctx.case).is_empty() {
        o.push_str(
            "    int64_t resident_outer = -1;
",
        );
    }
    o.push_str(
        "    for (int64_t tile_id = first; tile_id < last; ++tile_id) {
",
    );
    if ctx.s.chunk_major(ctx.case) {
        o.push_str(
            "        int64_t rest = tile_id % outer_tiles;
",
        );
        o.push_str(
            "        const int64_t chunk = tile_id / outer_tiles;
",
        );
    } else {
        o.push_str(
            "        int64_t rest = tile_id;
",
        );
        o.push_str(
            "        const int64_t chunk = rest % chunks;
        rest /= chunks;
        (void)chunk;
",
        );
        if !ctx.s.outer_resident(ctx.case).is_empty() {
            o.push_str(
                "        const int64_t outer_pos = rest;
",
            );
        }
    }
    o.push_str(&tile_position(ctx, "        ", true));
    let stage = Stage {
        nodes: (0..ctx.s.nodes.len()).collect(),
        in_chunk: true,
        ..Stage::default()
    };
    o.push_str(&emit_stage(ctx, &stage, "        ")?);
    o.push_str("    }\n");
    Ok(())
}

/// DataCopyPad of load `n` into its place in the `hoist` buffer, declaring its box
/// `x<n>` unless the tile already has (`declare_box`).
fn hoist_load(ctx: &Ctx, n: usize, indent: &str, declare_box: bool) -> Result<String, String> {
    let s = ctx.s;
    let r = ctx.rank();
    let data = ctx.input.graph.nodes[n]
        .operands
        .first()
        .copied()
        .unwrap_or(0);
    let NodeKind::Data { input } = s.nodes[data].kind else {
        return Err(format!("load {n} does not read a kernel input"));
    };
    let t = gm_type(s.nodes[n].dtype);
    let bx = if declare_box {
        format!(
            "{indent}    const int64_t x{n}[{r}] = {{{}}};\n",
            ctx.box_of(n)
        )
    } else {
        String::new()
    };
    Ok(format!(
        "{indent}{}\n{indent}{{\n{indent}    LocalTensor<{t}> r{n} = hoist.Get<uint8_t>()[static_cast<uint32_t>({})].ReinterpretCast<{t}>();\n{bx}{indent}    const int64_t gs[{r}] = {{{}}};\n{indent}    af::LoadBox(r{n}, gm_in{input}, {}, x{n}, gs, kAlign);\n{indent}}}\n",
        ctx.comment(n),
        cx(s, &s.hoist_offset(ctx.case, n)),
        ctx.strides_of(data),
        ctx.load_base(n, data)
    ))
}

/// Loads whose view does not vary along the tile loop (`Schedule::hoisted`): once per
/// block, before the loop, into the `hoist` TBuf (DataCopyPad, then an MTE2 -> V flag
/// since no queue orders them); every tile's compute reads them from there.
fn emit_hoisted_loads(ctx: &Ctx) -> Result<String, String> {
    let s = ctx.s;
    let case = ctx.case;
    let hoisted = s.hoisted(case);
    if hoisted.is_empty() {
        return Ok(String::new());
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "    if (first >= last) return;\n    // Loads invariant along the tile loop: once per block, not once per tile.\n    {{"
    );
    for &k in &case.in_tile {
        if Some(k) != case.split {
            let a = ctx.axis(k);
            let _ = writeln!(
                o,
                "        [[maybe_unused]] const int64_t e_{a} = size_{a};"
            );
        }
    }
    for &n in &hoisted {
        o.push_str(&hoist_load(ctx, n, "        ", true)?);
    }
    o.push_str("        af::SyncAllPipes();\n    }\n");
    Ok(o)
}

/// The row caches of a case's gathers (`Schedule::row_caches`), one after the other in
/// the `rowcache` buffer with the slots the host gave them.
fn declare_row_caches(ctx: &Ctx) -> String {
    let mut o = String::new();
    let mut offset = String::from("0");
    for r in ctx.s.row_caches(ctx.case) {
        let n = r.node;
        let field = row_cache_field(n);
        let _ = writeln!(
            o,
            "    af::RowCache<{t}> rc{n} = af::MakeRowCache<{t}>({ROW_CACHE_BUFFER}.Get<uint8_t>(), {offset}, t.{field});",
            t = gm_type(ctx.s.nodes[n].dtype)
        );
        offset = format!(
            "{offset} + t.{field} * ({} + {ROW_CACHE_SLOT_EXTRA_BYTES})",
            cx(ctx.s, &r.row_bytes)
        );
    }
    o
}

/// The gather tables a case keeps in UB (`Case::ub_tables`): each copied whole into the
/// `table` buffer once per block, before the tile loop. The row copies read them on the
/// vector and scalar units, so both wait for the DMA (no queue orders it).
fn emit_table_loads(ctx: &Ctx) -> String {
    let s = ctx.s;
    let inputs = s.table_inputs(ctx.case);
    if inputs.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "    if (first >= last) return;\n    // Gather tables kept in UB: copied whole once per block; rows are picked there.\n",
    );
    for input in inputs {
        let t = gm_type(s.inputs[input].dtype);
        let _ = writeln!(
            o,
            "    af::LoadTable(table.Get<uint8_t>()[static_cast<uint32_t>({})].ReinterpretCast<{t}>(), gm_in{input}, {});",
            cx(s, &s.table_offset(ctx.case, input)),
            cx(s, &s.table_elems(input))
        );
    }
    o.push_str("    af::SyncLoadToVector();\n    af::SyncLoadToScalar();\n");
    o
}

/// The resident loads of a case, reloaded into the `hoist` buffer when the tile enters a
/// new chunk (chunk-resident, chunk-major walk) or a new looped position
/// (outer-resident, chunk-fastest walk): the vector reads of the previous copy must end
/// first (V -> MTE2), the new copy must land before the tile's compute (MTE2 -> V); no
/// queue orders either.
fn emit_chunk_reload(ctx: &Ctx, indent: &str) -> Result<String, String> {
    let (resident, position, last, why) = if ctx.s.chunk_major(ctx.case) {
        (
            ctx.s.chunk_resident(ctx.case),
            "chunk",
            "resident_chunk",
            "Loads that vary only along the split axis: once per chunk, not once per tile.",
        )
    } else {
        (
            ctx.s.outer_resident(ctx.case),
            "outer_pos",
            "resident_outer",
            "Loads that do not vary along the split axis: once per looped position, not once per tile.",
        )
    };
    if resident.is_empty() {
        return Ok(String::new());
    }
    let mut o = format!(
        "{indent}// {why}\n{indent}if ({position} != {last}) {{\n{indent}    if ({last} >= 0) af::SyncAllPipes();\n"
    );
    let inner = format!("{indent}    ");
    for &n in &resident {
        o.push_str(&hoist_load(ctx, n, &inner, false)?);
    }
    let _ = writeln!(
        o,
        "{inner}af::SyncAllPipes();\n{inner}{last} = {position};\n{indent}}}"
    );
    Ok(o)
}

/// The split-reduction case: block b takes row groups; per row group, passes over the
/// chunks of the reduced split axis (docs/tiling.md).
fn emit_split_reduction(
    ctx: &Ctx,
    plan: &autofuse_ascir::kernel::SplitPlan,
    o: &mut String,
) -> Result<(), String> {
    let u = ctx
        .case
        .split
        .ok_or("split-reduction case without split axis")?;
    let axis = ctx.axis(u).to_string();
    let _ = writeln!(
        o,
        "    // Each block takes whole row groups; the reduced axis {axis} is processed in \
         {} pass(es) over its chunks.\n    for (int64_t group = first; group < last; ++group) {{\n        int64_t rest = group;",
        plan.passes
    );
    o.push_str(&tile_position(ctx, "        ", false));
    for p in 0..plan.passes {
        let mut nodes = plan.chunk_nodes[p].clone();
        nodes.extend(&plan.chunk_stores[p]);
        nodes.sort_unstable();
        nodes.dedup();
        if !nodes.is_empty() || !plan.chunk_accs[p].is_empty() {
            let _ = writeln!(
                o,
                "        // Pass {p}: chunks of {axis}.\n        for (int64_t chunk = 0; chunk < chunks; ++chunk) {{"
            );
            let var = ctx.case.tile_var.as_deref().unwrap_or("1");
            let _ = writeln!(
                o,
                "            const int64_t o_{axis} = chunk * {var};\n            const int64_t e_{axis} = af_min({var}, size_{axis} - o_{axis});"
            );
            let stage = Stage {
                nodes,
                accs: plan.chunk_accs[p].clone(),
                means: Vec::new(),
                in_chunk: true,
            };
            o.push_str(&emit_stage(ctx, &stage, "            ")?);
            o.push_str("        }\n");
        }
        let mut nodes = plan.final_nodes[p].clone();
        nodes.extend(&plan.final_stores[p]);
        nodes.sort_unstable();
        nodes.dedup();
        if !nodes.is_empty() || !plan.final_means[p].is_empty() {
            let _ = writeln!(
                o,
                "        // After pass {p}: values computed once per row group.\n        {{"
            );
            let stage = Stage {
                nodes,
                accs: Vec::new(),
                means: plan.final_means[p].clone(),
                in_chunk: false,
            };
            o.push_str(&emit_stage(ctx, &stage, "            ")?);
            o.push_str("        }\n");
        }
    }
    o.push_str("    }\n");
    Ok(())
}

/// The `af::Red` kind an accumulator combines with.
fn red_kind(op: &str) -> &'static str {
    match op {
        "sum" | "mean" => "Sum",
        "max" | "any" => "Max",
        "min" | "all" => "Min",
        _ => "Prod",
    }
}

/// A cross-core case (GE's RCore template, docs/schedule.md). Phase 1: block b takes
/// units (row group shares) `[first, last)`; unit `group * parts + p` reduces chunks
/// `[p * per_part, (p + 1) * per_part)` of its row group into the accumulators' slots
/// and copies them to its workspace record. `SyncAll`. Phase 2: block b combines the
/// `parts` records of row group b (if any), then runs what follows the reduction as a
/// split-reduction case does after its pass.
fn emit_cross_core(
    ctx: &Ctx,
    plan: &autofuse_ascir::kernel::SplitPlan,
    o: &mut String,
) -> Result<(), String> {
    let u = ctx.case.split.ok_or("cross-core case without split axis")?;
    let axis = ctx.axis(u).to_string();
    let accs = ctx.s.cross_core_accs(ctx.case);
    emit_cross_core_shares(ctx, plan, &axis, &accs, o)?;
    o.push_str("    // Every block's partials are in GM before any block reads them.\n    PipeBarrier<PIPE_ALL>();\n    SyncAll();\n");
    emit_cross_core_combine(ctx, plan, &accs, o)
}

/// The slot of accumulator `n`.
fn acc_slot(s: &Schedule, n: usize) -> Result<usize, String> {
    match s.nodes[n].value {
        Place::Slot { slot } => Ok(slot),
        _ => Err(format!("accumulator {n} has no slot")),
    }
}

/// Phase 1 of a cross-core case: each unit reduces its share of the chunks of `axis`
/// into the accumulators `accs` and copies their partials to its workspace record.
fn emit_cross_core_shares(
    ctx: &Ctx,
    plan: &autofuse_ascir::kernel::SplitPlan,
    axis: &str,
    accs: &[usize],
    o: &mut String,
) -> Result<(), String> {
    let s = ctx.s;
    let case = ctx.case;
    let r = ctx.rank();
    let var = case.tile_var.as_deref().unwrap_or("1");
    let _ = writeln!(
        o,
        "    // Cross-core reduction: each row group's chunks of {axis} are shared by t.rcore_parts blocks;\n    \
         // each reduces its share into partials in the workspace, and after SyncAll one block per\n    \
         // row group combines them and finishes the kernel.\n    \
         const int64_t parts = t.rcore_parts;\n    \
         const int64_t per_part = parts > 0 ? af_ceildiv(chunks, parts) : 0;\n    \
         const int64_t groups = parts > 0 ? t.tiles_total / parts : 0;\n    \
         const int64_t record = {};  // workspace bytes per unit\n    \
         for (int64_t unit = first; unit < last; ++unit) {{\n        \
         const int64_t chunk0 = (unit % parts) * per_part;\n        \
         const int64_t chunk_end = af_min(chunks, chunk0 + per_part);\n        \
         int64_t rest = unit / parts;\n        (void)rest;",
        cx(s, &s.partial_bytes(case))
    );
    o.push_str(&tile_position(ctx, "        ", false));
    let _ = writeln!(
        o,
        "        // Phase 1: this block's share of the chunks of {axis}.\n        for (int64_t chunk = chunk0; chunk < chunk_end; ++chunk) {{\n            const int64_t o_{axis} = chunk * {var};\n            const int64_t e_{axis} = af_min({var}, size_{axis} - o_{axis});"
    );
    let mut nodes = plan.chunk_nodes[0].clone();
    nodes.sort_unstable();
    nodes.dedup();
    let stage = Stage {
        nodes,
        accs: plan.chunk_accs[0].clone(),
        means: Vec::new(),
        in_chunk: true,
    };
    o.push_str(&emit_stage(ctx, &stage, "            ")?);
    o.push_str("        }\n        // The partials to this unit's workspace record (after the vector unit wrote them;\n        // the next unit's vector writes wait for the copy).\n        {\n            af::SyncVectorToStore();\n");
    for &a in accs {
        let t = ub_type(s.nodes[a].dtype);
        let slot = acc_slot(s, a)?;
        let _ = writeln!(
            o,
            "            {{\n                const int64_t x{a}[{r}] = {{{}}};\n                const int64_t count = af::Elems(x{a}, kAlign);\n                GlobalTensor<{t}> ws;\n                ws.SetGlobalBuffer((__gm__ {t}*)(workspace + unit * record + {}), count);\n                const int64_t wx[1] = {{count}};\n                const int64_t wg[1] = {{1}};\n                af::StoreBox(ws, b{slot}.Get<{t}>(), 0, wx, wg, kAlign);\n            }}",
            ctx.box_of(a),
            cx(s, &s.partial_offset(case, a))
        );
    }
    o.push_str("            af::SyncStoreToVector();\n        }\n    }\n");
    Ok(())
}

/// Phase 2 of a cross-core case: block b combines the partials of row group b, in
/// batches of records per DMA, into the accumulators `accs`, then runs the final stage.
fn emit_cross_core_combine(
    ctx: &Ctx,
    plan: &autofuse_ascir::kernel::SplitPlan,
    accs: &[usize],
    o: &mut String,
) -> Result<(), String> {
    let s = ctx.s;
    let r = ctx.rank();
    let _ = writeln!(
        o,
        "    // Phase 2: block b combines the partials of row group b and finishes it.\n    for (int64_t group = static_cast<int64_t>(GetBlockIdx()); group < groups; group += static_cast<int64_t>(t.block_dim)) {{\n        int64_t rest = group;\n        (void)rest;"
    );
    o.push_str(&tile_position(ctx, "        ", false));
    let _ = writeln!(
        o,
        "        // The partials, {batch} per DMA (one strided box of records), combined in order.\n        for (int64_t p0 = 0; p0 < parts; p0 += {batch}) {{\n            const int64_t k = af_min({batch}, parts - p0);",
        batch = autofuse_ascir::kernel::CROSS_CORE_BATCH
    );
    for &a in accs {
        let t = ub_type(s.nodes[a].dtype);
        let slot = acc_slot(s, a)?;
        let NodeKind::Reduce { op, .. } = &s.nodes[a].kind else {
            return Err(format!("accumulator {a} is not a reduction"));
        };
        let _ = writeln!(
            o,
            "            {{\n                // %{a}\n                const int64_t x{a}[{r}] = {{{}}};\n                const int64_t count = af::Elems(x{a}, kAlign);\n                const int64_t stride = record / static_cast<int64_t>(sizeof({t}));\n                GlobalTensor<{t}> ws;\n                ws.SetGlobalBuffer((__gm__ {t}*)(workspace + (group * parts + p0) * record + {}), (k - 1) * stride + count);\n                LocalTensor<{t}> acc = b{slot}.Get<{t}>();\n                LocalTensor<{t}> part_v = part.Get<{t}>();\n                const int64_t wx[2] = {{k, count}};\n                const int64_t wg[2] = {{stride, 1}};\n                af::SyncVectorToLoad();\n                af::LoadBox(part_v, ws, 0, wx, wg, kAlign);\n                af::SyncLoadToVector();\n                for (int64_t j = 0; j < k; ++j) {{\n                    PipeBarrier<PIPE_V>();\n                    if (p0 + j == 0) {{\n                        DataCopy(acc, part_v, static_cast<uint32_t>(count));\n                    }} else {{\n                        af::Combine<af::Red::{}>(acc, part_v[static_cast<uint32_t>(j * count)], static_cast<int32_t>(count));\n                    }}\n                }}\n            }}",
            ctx.box_of(a),
            cx(s, &s.partial_offset(ctx.case, a)),
            red_kind(op)
        );
    }
    o.push_str("        }\n");
    let mut nodes = plan.final_nodes[0].clone();
    nodes.extend(&plan.final_stores[0]);
    nodes.sort_unstable();
    nodes.dedup();
    if !nodes.is_empty() || !plan.final_means[0].is_empty() {
        o.push_str(
            "        // After the combine: values computed once per row group.\n        {\n",
        );
        let stage = Stage {
            nodes,
            accs: Vec::new(),
            means: plan.final_means[0].clone(),
            in_chunk: false,
        };
        o.push_str(&emit_stage(ctx, &stage, "            ")?);
        o.push_str("        }\n");
    }
    o.push_str("    }\n");
    Ok(())
}

/// One stage: CopyIn (the stage's loads), Compute (its nodes, accumulator updates and
/// mean scaling), CopyOut (its stores).
fn emit_stage(ctx: &Ctx, stage: &Stage, indent: &str) -> Result<String, String> {
    let mut e = StageEmitter::new(ctx, stage, indent);
    e.declare_boxes();
    if stage.in_chunk && ctx.case.split.is_some() && !ctx.case.reduce_split {
        e.o.push_str(&emit_chunk_reload(ctx, indent)?);
    }
    e.copy_in()?;
    e.compute()?;
    e.copy_out()?;
    Ok(e.o)
}

/// One stage being written: what its CopyIn, Compute and CopyOut share.
struct StageEmitter<'a> {
    ctx: &'a Ctx<'a>,
    stage: &'a Stage,
    indent: &'a str,
    /// The indent of the lines inside the stage's blocks.
    ind: String,
    /// Hoisted and chunk-resident loads: in the stage but not in their queue (loaded
    /// into the `hoist` buffer).
    hoisted: Vec<usize>,
    /// The VECIN and VECOUT queues with a member in the stage.
    vin: Vec<usize>,
    vout: Vec<usize>,
    o: String,
}

impl<'a> StageEmitter<'a> {
    fn new(ctx: &'a Ctx<'a>, stage: &'a Stage, indent: &'a str) -> Self {
        let mut e = StageEmitter {
            ctx,
            stage,
            indent,
            ind: format!("{indent}    "),
            hoisted: ctx.s.in_hoist(ctx.case),
            vin: Vec::new(),
            vout: Vec::new(),
            o: String::new(),
        };
        e.vin = e.stage_queues(Position::VecIn);
        e.vout = e.stage_queues(Position::VecOut);
        e
    }

    /// Whether node `n` is computed (or combined) by the stage from its queue tensor.
    fn in_stage(&self, n: usize) -> bool {
        (self.stage.nodes.contains(&n) || self.stage.accs.contains(&n))
            && !self.hoisted.contains(&n)
    }

    /// The queues at `position` that hold a member of the stage.
    fn stage_queues(&self, position: Position) -> Vec<usize> {
        let s = self.ctx.s;
        (0..s.queues.len())
            .filter(|&q| {
                s.queues[q].position == position
                    && s.queues[q].members.iter().any(|&n| self.in_stage(n))
            })
            .collect()
    }

    /// A queue tensor taken with `take` (AllocTensor / DeQue): a queue of one member hands
    /// out that member's tensor; a shared queue hands out one block (`block_decl`), which
    /// holds each member at its offset.
    fn member_decl(&self, q: usize, m: usize, n: usize, name: &str, take: &str) -> String {
        let s = self.ctx.s;
        let t = gm_type(s.nodes[n].dtype);
        if s.queues[q].members.len() == 1 {
            format!("LocalTensor<{t}> {name} = q{q}.{take}<{t}>();")
        } else {
            format!(
                "LocalTensor<{t}> {name} = q{q}_blk[static_cast<uint32_t>({})].ReinterpretCast<{t}>();",
                cx(s, &s.queue_offset(self.ctx.case, q, m))
            )
        }
    }

    /// A shared queue's block, taken whole with `take`.
    fn block_decl(q: usize, take: &str) -> String {
        format!("LocalTensor<uint8_t> q{q}_blk = q{q}.{take}<uint8_t>();")
    }

    /// Boxes of the stage's nodes and of the values they read (a reader of an absorbed
    /// broadcast takes the source's box), GM nodes aside.
    fn declare_boxes(&mut self) {
        let (s, g) = (self.ctx.s, self.ctx.input.graph);
        let stage = self.stage;
        let mut boxed: Vec<usize> = Vec::new();
        for &n in stage.nodes.iter().chain(&stage.accs) {
            boxed.push(n);
            for &o in &g.nodes[n].operands {
                boxed.push(o);
                if s.absorbed_broadcast(o) {
                    boxed.extend(g.nodes[o].operands.first().copied());
                }
            }
        }
        boxed.extend(stage.means.iter().copied());
        boxed.sort_unstable();
        boxed.dedup();
        let (indent, r) = (self.indent, self.ctx.rank());
        for &n in &boxed {
            if matches!(
                s.nodes[n].kind,
                NodeKind::Data { .. } | NodeKind::Output { .. }
            ) {
                continue;
            }
            let _ = writeln!(
                self.o,
                "{indent}[[maybe_unused]] const int64_t x{n}[{r}] = {{{}}};",
                self.ctx.box_of(n)
            );
        }
    }

    /// CopyIn: each VECIN queue's members allocated, the stage's loads copied in
    /// (DataCopyPad), the queue's tensor or block enqueued.
    fn copy_in(&mut self) -> Result<(), String> {
        if self.vin.is_empty() {
            return Ok(());
        }
        let indent = self.indent;
        let _ = writeln!(self.o, "{indent}// CopyIn: GM -> VECIN\n{indent}{{");
        for &q in &self.vin.clone() {
            let queue = &self.ctx.s.queues[q];
            let single = queue.members.len() == 1;
            if !single {
                let _ = writeln!(self.o, "{indent}    {}", Self::block_decl(q, "AllocTensor"));
            }
            for (m, &n) in queue.members.iter().enumerate() {
                if single || self.in_stage(n) {
                    let decl = self.member_decl(q, m, n, &format!("r{n}"), "AllocTensor");
                    let _ = writeln!(self.o, "{indent}    {decl}");
                }
                if !self.in_stage(n) {
                    continue;
                }
                self.load_box(n)?;
                if single {
                    let _ = writeln!(self.o, "{indent}    q{q}.EnQue(r{n});");
                }
            }
            if !single {
                let _ = writeln!(self.o, "{indent}    q{q}.EnQue(q{q}_blk);");
            }
        }
        let _ = writeln!(self.o, "{indent}}}");
        Ok(())
    }

    /// The DMA of load `n` from its kernel input into its VECIN tensor `r<n>`.
    fn load_box(&mut self, n: usize) -> Result<(), String> {
        let (ctx, indent, r) = (self.ctx, self.indent, self.ctx.rank());
        let data = ctx.input.graph.nodes[n]
            .operands
            .first()
            .copied()
            .unwrap_or(0);
        let NodeKind::Data { input } = ctx.s.nodes[data].kind else {
            return Err(format!("load {n} does not read a kernel input"));
        };
        // A transposed load copies the source block: the tile's two innermost axes
        // swapped (rows of the source are columns of the tile), transposed in Compute.
        let api = if ctx.s.nodes[n].transpose {
            "LoadBoxSwapped"
        } else {
            "LoadBox"
        };
        let _ = writeln!(
            self.o,
            "{indent}    {}\n{indent}    {{\n{indent}        const int64_t gs[{r}] = {{{}}};\n{indent}        af::{api}(r{n}, gm_in{input}, {}, x{n}, gs, kAlign);\n{indent}    }}",
            ctx.comment(n),
            ctx.strides_of(data),
            ctx.load_base(n, data)
        );
        Ok(())
    }

    /// Compute: the tensors the vector unit reads and writes, the mean scaling, each
    /// node's (or accumulator's) block in node order, then VECOUT enqueued and VECIN
    /// freed.
    fn compute(&mut self) -> Result<(), String> {
        let indent = self.indent;
        let _ = writeln!(self.o, "{indent}// Compute: vector unit\n{indent}{{");
        self.declare_queue_tensors();
        self.declare_hoisted_loads();
        let earlier = self.declare_earlier_values();
        // A stage's first vector call needs no PipeBarrier<PIPE_V> when it reads only
        // queue tensors (DeQue orders MTE2 before V) and hoisted loads
        // (SyncLoadToVector); a value an earlier stage or the previous tile wrote with
        // the vector unit (an earlier-stage value, an accumulator) must be ordered after
        // that write.
        let mut pending = PendingVectorWrites::default();
        if !earlier.is_empty() || !self.stage.accs.is_empty() {
            pending.unknown = true;
        }
        self.scale_means(&mut pending);
        self.compute_nodes(&mut pending)?;
        self.release_queue_tensors();
        let _ = writeln!(self.o, "{indent}}}");
        Ok(())
    }

    /// VECIN members this stage reads, and every VECOUT member (a shared block is
    /// allocated whole).
    fn declare_queue_tensors(&mut self) {
        let s = self.ctx.s;
        let ind = self.ind.clone();
        let taken: Vec<(usize, &str, bool)> = self
            .vin
            .iter()
            .map(|&q| (q, "DeQue", true))
            .chain(self.vout.iter().map(|&q| (q, "AllocTensor", false)))
            .collect();
        for (q, take, only_read) in taken {
            let queue = &s.queues[q];
            if queue.members.len() != 1 {
                let _ = writeln!(self.o, "{ind}{}", Self::block_decl(q, take));
            }
            for (m, &n) in queue.members.iter().enumerate() {
                if queue.members.len() != 1 && only_read && !self.in_stage(n) {
                    continue;
                }
                let name = if only_read {
                    format!("r{n}")
                } else {
                    self.ctx.store_tensor(n)
                };
                let decl = self.member_decl(q, m, n, &name, take);
                let _ = writeln!(self.o, "{ind}{decl}");
            }
        }
    }

    /// Hoisted and chunk-resident loads of the stage: in the `hoist` buffer.
    fn declare_hoisted_loads(&mut self) {
        let (s, case) = (self.ctx.s, self.ctx.case);
        let ind = &self.ind;
        for &n in self.hoisted.iter().filter(|n| self.stage.nodes.contains(n)) {
            let t = gm_type(s.nodes[n].dtype);
            let _ = writeln!(
                self.o,
                "{ind}LocalTensor<{t}> r{n} = hoist.Get<uint8_t>()[static_cast<uint32_t>({})].ReinterpretCast<{t}>();",
                cx(s, &s.hoist_offset(case, n))
            );
        }
    }

    /// Values computed by earlier stages (accumulators, finals) that this stage reads,
    /// declared from their slots; returns them.
    fn declare_earlier_values(&mut self) -> Vec<usize> {
        let (s, g) = (self.ctx.s, self.ctx.input.graph);
        let stage = self.stage;
        let mut earlier: Vec<usize> = stage
            .nodes
            .iter()
            .chain(&stage.accs)
            .flat_map(|&n| g.nodes[n].operands.iter().copied())
            // A reader of an absorbed broadcast reads the broadcast's source.
            .flat_map(|x| {
                let source = s
                    .absorbed_broadcast(x)
                    .then(|| g.nodes[x].operands.first().copied())
                    .flatten();
                std::iter::once(x).chain(source)
            })
            .chain(stage.means.iter().copied())
            .filter(|&x| s.persistent[x] && !stage.nodes.contains(&x))
            .collect();
        earlier.sort_unstable();
        earlier.dedup();
        let ind = &self.ind;
        for &x in &earlier {
            if let Place::Slot { slot } = s.nodes[x].value {
                let t = ub_type(s.nodes[x].dtype);
                let _ = writeln!(self.o, "{ind}LocalTensor<{t}> v{x} = b{slot}.Get<{t}>();");
            }
        }
        earlier
    }

    /// Means are scaled before the stage's nodes, which may read them (e.g. a cast of a
    /// bf16/f16 mean accumulated in f32 is a final of this stage).
    fn scale_means(&mut self, pending: &mut PendingVectorWrites) {
        let s = self.ctx.s;
        let ind = &self.ind;
        for &n in &self.stage.means {
            let t = ub_type(s.nodes[n].dtype);
            let NodeKind::Reduce { reduced, .. } = &s.nodes[n].kind else {
                continue;
            };
            let sizes: Vec<String> = reduced
                .iter()
                .map(|&k| format!("size_{}", self.ctx.axis(k)))
                .collect();
            let _ = writeln!(
                self.o,
                "{ind}// %{n}: the mean divides the accumulated sum once.\n{ind}PipeBarrier<PIPE_V>();\n{ind}Muls(v{n}, v{n}, {}, static_cast<int32_t>(af::Elems(x{n}, kAlign)));",
                scalar(t, &format!("1.0f / static_cast<float>({})", sizes.join(" * ")))
            );
            pending.clear();
            pending.record(buffer_of(s, n));
        }
    }

    /// Each node's block (`emit_node`) or accumulator update (`accumulate`), in node
    /// order.
    fn compute_nodes(&mut self, pending: &mut PendingVectorWrites) -> Result<(), String> {
        let stage = self.stage;
        let mut order: Vec<usize> = stage.nodes.iter().chain(&stage.accs).copied().collect();
        order.sort_unstable();
        for n in order {
            let lines = if stage.accs.contains(&n) {
                accumulate(self.ctx, n, pending)?
            } else {
                emit_node(self.ctx, n, pending)?
            };
            for l in lines {
                let _ = writeln!(self.o, "{}{l}", self.ind);
            }
        }
        Ok(())
    }

    /// The VECOUT tensors (or blocks) enqueued for CopyOut, the VECIN ones freed.
    fn release_queue_tensors(&mut self) {
        let s = self.ctx.s;
        let ind = &self.ind;
        for &q in &self.vout {
            let queue = &s.queues[q];
            if queue.members.len() == 1 {
                let _ = writeln!(
                    self.o,
                    "{ind}q{q}.EnQue({});",
                    self.ctx.store_tensor(queue.members[0])
                );
            } else {
                let _ = writeln!(self.o, "{ind}q{q}.EnQue(q{q}_blk);");
            }
        }
        for &q in &self.vin {
            let queue = &s.queues[q];
            if queue.members.len() == 1 {
                let _ = writeln!(self.o, "{ind}q{q}.FreeTensor(r{});", queue.members[0]);
            } else {
                let _ = writeln!(self.o, "{ind}q{q}.FreeTensor(q{q}_blk);");
            }
        }
    }

    /// CopyOut: each VECOUT queue dequeued, the stage's stores copied out (StoreBox),
    /// the tensor or block freed.
    fn copy_out(&mut self) -> Result<(), String> {
        if self.vout.is_empty() {
            return Ok(());
        }
        let (s, indent, ind) = (self.ctx.s, self.indent, self.ind.clone());
        let _ = writeln!(self.o, "{indent}// CopyOut: VECOUT -> GM\n{indent}{{");
        for &q in &self.vout.clone() {
            let queue = &s.queues[q];
            let single = queue.members.len() == 1;
            if single {
                let n = queue.members[0];
                let decl = self.member_decl(q, 0, n, &self.ctx.store_tensor(n), "DeQue");
                let _ = writeln!(self.o, "{ind}{decl}");
            } else {
                let _ = writeln!(self.o, "{ind}{}", Self::block_decl(q, "DeQue"));
            }
            for (m, &n) in queue.members.iter().enumerate() {
                if !self.in_stage(n) {
                    continue;
                }
                if !single {
                    let decl = self.member_decl(q, m, n, &self.ctx.store_tensor(n), "DeQue");
                    let _ = writeln!(self.o, "{ind}{decl}");
                }
                self.store_box(n)?;
            }
            if single {
                let _ = writeln!(
                    self.o,
                    "{ind}q{q}.FreeTensor({});",
                    self.ctx.store_tensor(queue.members[0])
                );
            } else {
                let _ = writeln!(self.o, "{ind}q{q}.FreeTensor(q{q}_blk);");
            }
        }
        let _ = writeln!(self.o, "{indent}}}");
        Ok(())
    }

    /// The DMA of store `n` from its VECOUT tensor into its kernel output; a store that
    /// does not vary along a looped or split axis writes once.
    fn store_box(&mut self, n: usize) -> Result<(), String> {
        let (ctx, ind, r) = (self.ctx, &self.ind, self.ctx.rank());
        let case = ctx.case;
        let output = ctx
            .input
            .graph
            .nodes
            .iter()
            .find(|x| x.op == "output" && x.operands.first() == Some(&n))
            .and_then(|x| x.index)
            .ok_or_else(|| format!("store {n} feeds no output"))?;
        let info = &ctx.s.nodes[n];
        let guards: Vec<String> = case
            .looped
            .iter()
            .chain(case.split.iter().filter(|_| self.stage.in_chunk))
            .filter(|&&k| !info.full[k])
            .map(|&k| format!("o_{} == 0", ctx.axis(k)))
            .collect();
        let call = format!(
            "{{\n{ind}    const int64_t gs[{r}] = {{{}}};\n{ind}    af::StoreBox(gm_out{output}, {}, {}, x{n}, gs, kAlign);\n{ind}}}",
            ctx.strides_of(n),
            ctx.store_tensor(n),
            ctx.base_of(n)
        );
        let _ = writeln!(self.o, "{ind}{}", ctx.comment(n));
        if guards.is_empty() {
            let _ = writeln!(self.o, "{ind}{call}");
        } else {
            let _ = writeln!(self.o, "{ind}if ({}) {call}", guards.join(" && "));
        }
        Ok(())
    }
}

/// The chunk's partial reduction of accumulator `n`, combined into its slot.
fn accumulate(
    ctx: &Ctx,
    n: usize,
    pending: &mut PendingVectorWrites,
) -> Result<Vec<String>, String> {
    let s = ctx.s;
    let info = &s.nodes[n];
    let t = ub_type(info.dtype);
    let NodeKind::Reduce { op, .. } = &info.kind else {
        return Err(format!("node {n} is not a reduction"));
    };
    let a = ctx.input.graph.nodes[n]
        .operands
        .first()
        .copied()
        .ok_or_else(|| format!("reduction {n} without operand"))?;
    let kind = match op.as_str() {
        "sum" | "mean" => "Sum",
        "max" | "any" => "Max",
        "min" | "all" => "Min",
        _ => "Prod",
    };
    let Place::Slot { slot } = info.value else {
        return Err(format!("accumulator {n} has no slot"));
    };
    let work = if s.extras.work {
        format!("work.Get<{t}>(), t.work_size")
    } else {
        "part_v, 0".to_string()
    };
    let rows = if s.extras.scratch {
        format!("scratch.Get<{t}>()")
    } else {
        "part_v".to_string()
    };
    let mut l = vec![format!("{}, accumulated over the chunks", ctx.comment(n))];
    // The accumulator itself is read (Combine) after the partial reduction and an
    // explicit barrier, so only the operand decides.
    if pending.orders_read_of(&[buffer_of(s, a)]) {
        l.push("PipeBarrier<PIPE_V>();".into());
    }
    pending.record(buffer_of(s, n));
    l.push(format!("LocalTensor<{t}> v{n} = b{slot}.Get<{t}>();"));
    l.push("{".into());
    l.push(format!("    LocalTensor<{t}> part_v = part.Get<{t}>();"));
    l.push(format!(
        "    af::ReduceBox<af::Red::{kind}, {t}>(part_v, v{a}, {work}, {rows}, x{a}, x{n}, kAlign);"
    ));
    l.push("    PipeBarrier<PIPE_V>();".into());
    l.push(format!(
        "    const int32_t count = static_cast<int32_t>(af::Elems(x{n}, kAlign));"
    ));
    // A cross-core unit starts at the first chunk of its share.
    l.push(if ctx.case.cross_core {
        "    if (chunk == chunk0) {".into()
    } else {
        "    if (chunk == 0) {".into()
    });
    l.push(format!(
        "        DataCopy(v{n}, part_v, static_cast<uint32_t>(count));"
    ));
    l.push("    } else {".into());
    l.push(format!(
        "        af::Combine<af::Red::{kind}>(v{n}, part_v, count);"
    ));
    l.push("    }".into());
    l.push("}".into());
    Ok(l)
}

/// The UB buffer a node's value lives in, as far as vector ordering is concerned.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Buffer {
    Slot(usize),
    Queue(usize),
}

/// `None` when the value has no buffer of its own (GM, or a tensor another value's
/// declaration names): callers treat that as possibly any buffer.
fn buffer_of(s: &Schedule, n: usize) -> Option<Buffer> {
    match s.nodes[n].value {
        Place::Slot { slot } => Some(Buffer::Slot(slot)),
        Place::Queue { queue, .. } => Some(Buffer::Queue(queue)),
        Place::None => None,
    }
}

/// Buffers the vector unit wrote since the stage's last `PipeBarrier<PIPE_V>`. A
/// vector instruction may read its operands before an earlier one has written them
/// (ascendc_api.md section 5), so a read of one of these needs the barrier; writes
/// after writes and after reads keep issue order on the pipe and need none. The
/// emulation's pipe check (on in every `autofuse-run` launch) verifies every choice.
#[derive(Default)]
struct PendingVectorWrites {
    buffers: std::collections::BTreeSet<Buffer>,
    /// A write whose buffer is not known (or earlier stages' writes): any read waits.
    unknown: bool,
}

impl PendingVectorWrites {
    /// Whether reading `reads` needs a barrier first; clears the set when it does.
    fn orders_read_of(&mut self, reads: &[Option<Buffer>]) -> bool {
        let empty = self.buffers.is_empty() && !self.unknown;
        let hit = !empty
            && (self.unknown
                || reads
                    .iter()
                    .any(|r| r.is_none_or(|b| self.buffers.contains(&b))));
        if hit {
            self.clear();
        }
        hit
    }
    fn record(&mut self, written: Option<Buffer>) {
        match written {
            Some(b) => {
                self.buffers.insert(b);
            }
            None => self.unknown = true,
        }
    }
    fn clear(&mut self) {
        self.buffers.clear();
        self.unknown = false;
    }
}
