//! One node's block in a stage's Compute: `emit_node` decides whether the node runs on
//! the vector unit and orders it after the writes it reads, then dispatches by node kind
//! (and an elementwise op by op family) to one emitter per Ascend C API call family.

use super::{buffer_of, cx, red_kind, Buffer, Ctx, PendingVectorWrites};
use crate::{gm_type, ub_type};
use autofuse_ascir::graph::{ArangeTerm, AscNode};
use autofuse_ascir::kernel::{cast_direct, float_attr, NodeInfo, NodeKind, Place, Schedule};
use autofuse_ir::graph::DType;
use autofuse_symbolic::Expr;

/// The lines of node `n` in its stage's Compute block: nothing for a value that lives in
/// GM or that its readers absorb, `v<n>` naming the queue tensor of a load used in place,
/// else the node's source comment, a barrier when it reads a pending vector write, its
/// element count `n<n>` and its API calls.
pub(super) fn emit_node(
    ctx: &Ctx,
    n: usize,
    pending: &mut PendingVectorWrites,
) -> Result<Vec<String>, String> {
    let s = ctx.s;
    let info = &s.nodes[n];
    if !is_vector(info) {
        if info.kind == NodeKind::Load {
            // Non-bool loads are used straight from their queue tensor.
            let t = ub_type(info.dtype);
            return Ok(vec![format!("LocalTensor<{t}> v{n} = r{n};")]);
        }
        return Ok(Vec::new());
    }
    // An absorbed scalar's readers use the tensor-scalar API forms with its value; an
    // absorbed broadcast's readers read its source through repeat strides.
    if s.absorbed_scalar(n) || s.absorbed_broadcast(n) {
        return Ok(Vec::new());
    }
    let mut e = NodeEmitter::new(ctx, n);
    e.lines.push(ctx.comment(n));
    e.order_after_pending_writes(pending);
    e.lines.push(format!(
        "[[maybe_unused]] const int32_t {} = static_cast<int32_t>(af::Elems(x{n}, kAlign));",
        e.count
    ));
    e.emit_kind()?;
    Ok(scope_temporaries(e.lines, e.t, n))
}

/// Whether a node computes on the vector unit: data and output are GM, non-bool loads
/// are used from their queue tensor (a transposed load is transposed in UB), and direct
/// stores were written by their producer.
fn is_vector(info: &NodeInfo) -> bool {
    !matches!(info.kind, NodeKind::Data { .. } | NodeKind::Output { .. })
        && (info.kind != NodeKind::Load || info.dtype == DType::Bool || info.transpose)
        && (info.kind != NodeKind::Store || !info.direct)
}

/// Scoped temporaries (mk, one, staged, larger, sel_*) must not collide between nodes:
/// a block declaring one is wrapped in braces, with the value's declaration and the
/// comment kept outside so that later nodes see the value.
fn scope_temporaries(lines: Vec<String>, t: &str, n: usize) -> Vec<String> {
    let needs_scope = lines.iter().any(|x| {
        x.starts_with("LocalTensor<uint8_t> mk")
            || x.starts_with("LocalTensor<float> staged")
            || x.starts_with("LocalTensor<int32_t> larger")
            || x.starts_with("const uint32_t sel_off")
            || x.contains(" one = ")
    });
    if !needs_scope {
        return lines;
    }
    let (decls, body): (Vec<String>, Vec<String>) = lines
        .into_iter()
        .partition(|x| x.starts_with(&format!("LocalTensor<{t}> v{n} ")) || x.starts_with("//"));
    let mut out = decls;
    out.push("{".into());
    out.extend(body.into_iter().map(|x| format!("    {x}")));
    out.push("}".into());
    out
}

/// The block of one vector node under construction: what its emitters share.
struct NodeEmitter<'a> {
    ctx: &'a Ctx<'a>,
    n: usize,
    info: &'a NodeInfo,
    node: &'a AscNode,
    /// The UB element type of the node's value.
    t: &'static str,
    /// The variable holding the node's element count.
    count: String,
    lines: Vec<String>,
}

impl<'a> NodeEmitter<'a> {
    fn new(ctx: &'a Ctx<'a>, n: usize) -> Self {
        let info = &ctx.s.nodes[n];
        NodeEmitter {
            ctx,
            n,
            info,
            node: &ctx.input.graph.nodes[n],
            t: ub_type(info.dtype),
            count: format!("n{n}"),
            lines: Vec::new(),
        }
    }

    fn push(&mut self, line: String) {
        self.lines.push(line);
    }

    fn barrier(&mut self) {
        self.lines.push("PipeBarrier<PIPE_V>();".into());
    }

    /// The node's operand `i`.
    fn operand(&self, i: usize) -> Result<usize, String> {
        self.node
            .operands
            .get(i)
            .copied()
            .ok_or_else(|| format!("node {} misses operand #{i}", self.n))
    }

    /// The value variable of operand `i`.
    fn operand_value(&self, i: usize) -> Result<String, String> {
        self.operand(i).map(|x| format!("v{x}"))
    }

    /// The variable of the node's own value, declared first when it needs a declaration.
    fn value(&mut self) -> String {
        value_decl(self.ctx, self.n, &mut self.lines)
    }

    /// The position of normalized axis `axis` among the tile's axes; `what` names the
    /// node's op when the axis is split instead.
    fn tile_dim(&self, axis: usize, what: &str) -> Result<usize, String> {
        self.ctx
            .case
            .in_tile
            .iter()
            .position(|&k| k == axis)
            .ok_or_else(|| format!("{what} node {}: its axis is split", self.n))
    }

    /// A `PipeBarrier<PIPE_V>` when the node reads a buffer the vector unit wrote since
    /// the last one (an absorbed broadcast is read where its source lives; an absorbed
    /// scalar is no read), then its own write recorded.
    fn order_after_pending_writes(&mut self, pending: &mut PendingVectorWrites) {
        let s = self.ctx.s;
        let g = self.ctx.input.graph;
        let read_of = |a: usize| {
            if s.absorbed_broadcast(a) {
                g.nodes[a]
                    .operands
                    .first()
                    .and_then(|&src| buffer_of(s, src))
            } else {
                buffer_of(s, a)
            }
        };
        let reads: Vec<Option<Buffer>> = self
            .node
            .operands
            .iter()
            .filter(|&&a| !s.absorbed_scalar(a))
            .map(|&a| read_of(a))
            .collect();
        if pending.orders_read_of(&reads) {
            self.barrier();
        }
        pending.record(buffer_of(s, self.n));
    }

    /// One emitter per node kind.
    fn emit_kind(&mut self) -> Result<(), String> {
        let info = self.info;
        match &info.kind {
            NodeKind::Load if info.transpose => self.transposed_load(),
            NodeKind::Load => self.bool_load(),
            NodeKind::Store => self.store()?,
            NodeKind::Scalar { value } => self.duplicate(*value),
            NodeKind::Arange { start, delta } => self.arange(start, delta),
            NodeKind::Broadcast => self.broadcast()?,
            NodeKind::Gather {
                bound,
                index_stride,
            } => self.gather(bound, index_stride)?,
            NodeKind::ExtractSlice { axis, start } => self.extract_slice(*axis, start)?,
            NodeKind::Concat { axis } => self.concat(*axis)?,
            NodeKind::Reduce { op, reduced } => self.reduce(op, reduced)?,
            NodeKind::Cast => self.cast()?,
            NodeKind::Elementwise { op } => self.elementwise(op)?,
            NodeKind::Data { .. } | NodeKind::Output { .. } => {}
        }
        Ok(())
    }

    /// The source block [rows = innermost extent, columns = the other] back to the tile
    /// layout: Transpose NCHW2NHWC with n = 1, c = rows, h*w = columns.
    fn transposed_load(&mut self) {
        let n = self.n;
        let v = self.value();
        self.push(format!(
            "af::TransposeBlock({v}, r{n}, scratch.Get<uint8_t>(), x{n}, kAlign);"
        ));
    }

    /// Bool: u8 in GM -> half 0/1 in UB.
    fn bool_load(&mut self) {
        let n = self.n;
        let v = self.value();
        self.push(format!(
            "Cast({v}, r{n}, RoundMode::CAST_NONE, static_cast<uint32_t>({}));",
            self.count
        ));
    }

    /// The stored value converted into the store's VECOUT tensor (half 0/1 to u8 for
    /// bool).
    fn store(&mut self) -> Result<(), String> {
        let (n, count) = (self.n, self.count.clone());
        let src = self.operand(0)?;
        let from = self.ctx.s.nodes[src].dtype;
        let staging = self.ctx.store_tensor(n);
        if self.info.dtype == DType::Bool {
            self.push(format!(
                "Cast({staging}, v{src}, RoundMode::CAST_NONE, static_cast<uint32_t>({count}));"
            ));
        } else {
            self.lines.extend(cast_lines(
                from,
                self.info.dtype,
                &staging,
                &format!("v{src}"),
                &count,
            ));
        }
        Ok(())
    }

    /// A fill: `Duplicate` of the scalar.
    fn duplicate(&mut self, value: f64) {
        let v = self.value();
        self.push(format!(
            "Duplicate({v}, {}, {});",
            scalar(self.t, &float_literal(value)),
            self.count
        ));
    }

    /// An inlined range: `af::ArangeBox` over the node's offset strides, accumulated in
    /// int64 for int32 values and in float otherwise.
    fn arange(&mut self, start: &ArangeTerm, delta: &ArangeTerm) {
        let (ctx, n, t) = (self.ctx, self.n, self.t);
        let v = self.value();
        let acc = if self.info.dtype == DType::I32 {
            "int64_t"
        } else {
            "float"
        };
        let term = |term: &ArangeTerm| match term {
            ArangeTerm::Number(value) if acc == "int64_t" => {
                format!("static_cast<int64_t>({})", *value as i64)
            }
            ArangeTerm::Number(value) => format!("{value:?}f"),
            ArangeTerm::Expr(e) => format!("static_cast<{acc}>({})", cx(ctx.s, e)),
        };
        self.push(format!(
            "const int64_t as{n}[{}] = {{{}}};",
            ctx.rank(),
            ctx.strides_of(n)
        ));
        self.push(format!(
            "af::ArangeBox<{t}, {acc}>({v}, x{n}, as{n}, {}, {}, {}, kAlign);",
            ctx.base_of(n),
            term(start),
            term(delta)
        ));
    }

    /// A broadcast materialized in UB: `af::BroadcastBox`.
    fn broadcast(&mut self) -> Result<(), String> {
        let (n, t) = (self.n, self.t);
        let a = self.operand(0)?;
        let v = self.value();
        let blocks = if self.ctx.s.extras.scratch {
            format!("scratch.Get<{t}>(), t.scratch_size")
        } else {
            format!("{v}, 0")
        };
        self.push(format!(
            "af::BroadcastBox({v}, v{a}, x{n}, x{a}, kAlign, {blocks});"
        ));
        Ok(())
    }

    /// Rows of a table picked by an index tile: `af::GatherRows`, from GM or from the
    /// table the case keeps in UB, through the gather's row cache when it has one.
    fn gather(&mut self, bound: &Expr, index_stride: &Expr) -> Result<(), String> {
        let (ctx, n) = (self.ctx, self.n);
        let s = ctx.s;
        let (table, indices) = (self.operand(0)?, self.operand(1)?);
        let NodeKind::Data { input } = s.nodes[table].kind else {
            return Err(format!("gather {n} does not read a kernel input"));
        };
        let v = self.value();
        self.push(format!(
            "const int64_t gs{n}[{}] = {{{}}};",
            ctx.rank(),
            ctx.strides_of(table)
        ));
        let source = if ctx.case.ub_tables.contains(&n) {
            // The table kept in UB by this case (emit_table_loads).
            format!(
                "table.Get<uint8_t>()[static_cast<uint32_t>({})].ReinterpretCast<{}>()",
                cx(ctx.s, &s.table_offset(ctx.case, input)),
                gm_type(s.inputs[input].dtype)
            )
        } else {
            format!("gm_in{input}")
        };
        let cache = if s.row_caches(ctx.case).iter().any(|r| r.node == n) {
            format!(", rc{n}")
        } else {
            String::new()
        };
        self.push(format!(
            "af::GatherRows({v}, {source}, v{indices}, {}, x{n}, x{indices}, gs{n}, {}, {}, kAlign{cache});",
            ctx.base_of(table),
            cx(ctx.s, bound),
            cx(ctx.s, index_stride)
        ));
        Ok(())
    }

    /// `af::ExtractSliceBox`: the part of the operand's tile from `start` along `axis`.
    fn extract_slice(&mut self, axis: usize, start: &Expr) -> Result<(), String> {
        let n = self.n;
        let a = self.operand(0)?;
        let dim = self.tile_dim(axis, "extract_slice")?;
        let v = self.value();
        self.push(format!(
            "af::ExtractSliceBox({v}, v{a}, x{n}, x{a}, {dim}, {}, kAlign);",
            cx(self.ctx.s, start)
        ));
        Ok(())
    }

    /// `af::ConcatBox` of the two operands along `axis`; when the tile splits that axis,
    /// with the boxes of the operands' rows in this tile.
    fn concat(&mut self, axis: usize) -> Result<(), String> {
        let (ctx, n) = (self.ctx, self.n);
        let (a, b) = (self.operand(0)?, self.operand(1)?);
        let dim = self.tile_dim(axis, "concat")?;
        let v = self.value();
        if ctx.case.split == Some(axis) {
            // Each operand's rows in this tile, from where its use starts: a fill
            // (maybe two parts) holds a whole tile.
            let (box_a, box_b) = ctx.concat_use_boxes(n, axis)?;
            self.push(format!(
                "const int64_t xu{n}a[{r}] = {{{box_a}}};\nconst int64_t xu{n}b[{r}] = {{{box_b}}};",
                r = ctx.rank()
            ));
            self.push(format!(
                "af::ConcatBox({v}, v{a}, v{b}, x{n}, xu{n}a, xu{n}b, {dim}, kAlign);"
            ));
        } else {
            self.push(format!(
                "af::ConcatBox({v}, v{a}, v{b}, x{n}, x{a}, x{b}, {dim}, kAlign);"
            ));
        }
        Ok(())
    }

    /// A reduction within the tile: `af::ReduceBox`; a mean then scales the sum by the
    /// reduced element count (`Muls`).
    fn reduce(&mut self, op: &str, reduced: &[usize]) -> Result<(), String> {
        let (ctx, n, t) = (self.ctx, self.n, self.t);
        let a = self.operand(0)?;
        let v = self.value();
        let kind = red_kind(op);
        let work = if ctx.s.extras.work {
            format!("work.Get<{t}>(), t.work_size")
        } else {
            format!("{v}, 0")
        };
        let rows = if ctx.s.extras.scratch {
            format!("scratch.Get<{t}>()")
        } else {
            v.clone()
        };
        self.push(format!(
            "af::ReduceBox<af::Red::{kind}, {t}>({v}, v{a}, {work}, {rows}, x{a}, x{n}, kAlign);"
        ));
        if op == "mean" {
            let n_expr: Vec<String> = reduced
                .iter()
                .map(|&k| format!("size_{}", ctx.axis(k)))
                .collect();
            self.barrier();
            self.push(format!(
                "Muls({v}, {v}, {}, {});",
                scalar(
                    t,
                    &format!("1.0f / static_cast<float>({})", n_expr.join(" * "))
                ),
                self.count
            ));
        }
        Ok(())
    }

    /// A type conversion (`cast_lines`): direct, or staged through f32 in `scratch`.
    fn cast(&mut self) -> Result<(), String> {
        let count = self.count.clone();
        let a = self.operand(0)?;
        let from = self.ctx.s.nodes[a].dtype;
        let v = self.value();
        let to = self.info.dtype;
        if from == DType::Bool || to == DType::Bool {
            self.push("LocalTensor<uint8_t> mk = mask.Get<uint8_t>();".into());
        }
        if cast_direct(from, to) {
            self.lines
                .extend(cast_lines(from, to, &v, &format!("v{a}"), &count));
        } else {
            self.push("LocalTensor<float> staged = scratch.Get<float>();".into());
            self.lines.extend(cast_lines(
                from,
                DType::F32,
                "staged",
                &format!("v{a}"),
                &count,
            ));
            self.barrier();
            self.lines
                .extend(cast_lines(DType::F32, to, &v, "staged", &count));
        }
        Ok(())
    }

    /// One emitter per family of elementwise ops that maps to one family of API calls.
    fn elementwise(&mut self, op: &str) -> Result<(), String> {
        let v = self.value();
        match op {
            "abs" | "neg" => self.sign(op, &v),
            "exp" | "log" | "sqrt" | "relu" | "square" => self.unary(op, &v),
            "rsqrt" | "reciprocal" => self.exact_reciprocal(op, &v),
            "floor" | "ceil" | "round" => self.round(op, &v),
            "sigmoid" | "tanh" | "erf" | "sin" | "cos" => self.activation(op, &v),
            "logical_not" => self.logical_not(&v),
            "add" | "sub" | "mul" | "div" | "maximum" | "minimum" => self.arithmetic(op, &v),
            "logical_and" | "logical_or" => self.binary(op, &v),
            "bitwise_and" | "bitwise_not" => self.bitwise(op, &v),
            "logical_xor" => self.logical_xor(&v),
            "leaky_relu" => self.leaky_relu(&v),
            "eq" | "ne" | "lt" | "le" | "gt" | "ge" => self.compare(op, &v),
            "select" | "where" => self.select(&v),
            other => Err(format!("no Ascend C lowering for ascir.{other}")),
        }
    }

    /// `abs` and `neg`: `Abs`, `Muls` by -1. Abs has no int32 form: |x| = max(-x, x)
    /// (wraps at INT32_MIN as the device's integer arithmetic does).
    fn sign(&mut self, op: &str, v: &str) -> Result<(), String> {
        let (t, count) = (self.t, self.count.clone());
        match op {
            "abs" if self.info.dtype == DType::I32 => {
                let x = self.operand_value(0)?;
                self.push(format!("Muls({v}, {x}, {}, {count});", scalar(t, "-1")));
                self.barrier();
                self.push(format!("Max({v}, {v}, {x}, {count});"));
            }
            "abs" => {
                let x = self.operand_value(0)?;
                self.push(format!("Abs({v}, {x}, {count});"));
            }
            _ => {
                let x = self.operand_value(0)?;
                self.push(format!("Muls({v}, {x}, {}, {count});", scalar(t, "-1")));
            }
        }
        Ok(())
    }

    /// Unary vector instructions: `Exp`, `Ln`, `Sqrt`, `Relu`, and `square` as `Mul`.
    fn unary(&mut self, op: &str, v: &str) -> Result<(), String> {
        let count = self.count.clone();
        let x = self.operand_value(0)?;
        let line = match op {
            "exp" => format!("Exp({v}, {x}, {count});"),
            "log" => format!("Ln({v}, {x}, {count});"),
            "sqrt" => format!("Sqrt({v}, {x}, {count});"),
            "relu" => format!("Relu({v}, {x}, {count});"),
            _ => format!("Mul({v}, {x}, {x}, {count});"),
        };
        self.push(line);
        Ok(())
    }

    /// `rsqrt` and `reciprocal` as an exact `Div` of a `Duplicate`d one (Reciprocal and
    /// Rsqrt are approximate on the device).
    fn exact_reciprocal(&mut self, op: &str, v: &str) -> Result<(), String> {
        let (t, count) = (self.t, self.count.clone());
        self.push(format!("LocalTensor<{t}> one = scratch.Get<{t}>();"));
        self.push(format!("Duplicate(one, {}, {count});", scalar(t, "1")));
        if op == "rsqrt" {
            let x = self.operand_value(0)?;
            self.push(format!("Sqrt({v}, {x}, {count});"));
            self.barrier();
            self.push(format!("Div({v}, one, {v}, {count});"));
        } else {
            self.barrier();
            let x = self.operand_value(0)?;
            self.push(format!("Div({v}, one, {x}, {count});"));
        }
        Ok(())
    }

    /// `floor`, `ceil`, `round`: a float -> float `Cast` rounds to an integral value with
    /// the mode (ascendc_api.md 4.4); half has no half -> half Cast, so it rounds in f32
    /// (exact: every half value and its rounding are f32 values).
    fn round(&mut self, op: &str, v: &str) -> Result<(), String> {
        let count = self.count.clone();
        let mode = match op {
            "floor" => "CAST_FLOOR",
            "ceil" => "CAST_CEIL",
            _ => "CAST_RINT",
        };
        let x = self.operand_value(0)?;
        let cast = |dst: &str, src: &str, mode: &str| {
            format!("Cast({dst}, {src}, RoundMode::{mode}, static_cast<uint32_t>({count}));")
        };
        if self.info.dtype == DType::F32 {
            self.push(cast(v, &x, mode));
        } else {
            self.push("LocalTensor<float> staged = scratch.Get<float>();".into());
            self.push(cast("staged", &x, "CAST_NONE"));
            self.barrier();
            self.push(cast("staged", "staged", mode));
            self.barrier();
            self.push(cast(v, "staged", "CAST_NONE"));
        }
        Ok(())
    }

    /// The activation APIs that take a temporary buffer: `Sigmoid`, `Tanh`, `Erf`, `Sin`,
    /// `Cos`.
    fn activation(&mut self, op: &str, v: &str) -> Result<(), String> {
        let api = match op {
            "sigmoid" => "Sigmoid",
            "tanh" => "Tanh",
            "sin" => "Sin",
            "cos" => "Cos",
            _ => "Erf",
        };
        // Sigmoid may borrow a dead input tile as its temporary.
        let tmp = match self.ctx.s.sigmoid_tmp(self.ctx.case, self.n) {
            Some(l) => format!("r{l}.ReinterpretCast<uint8_t>()"),
            None => "scratch.Get<uint8_t>()".to_string(),
        };
        let x = self.operand_value(0)?;
        self.push(format!(
            "{api}({v}, {x}, {tmp}, static_cast<uint32_t>({}));",
            self.count
        ));
        Ok(())
    }

    /// `logical_not` of half 0/1: 1 - x (`Muls` by -1, `Adds` 1).
    fn logical_not(&mut self, v: &str) -> Result<(), String> {
        let (t, count) = (self.t, self.count.clone());
        let x = self.operand_value(0)?;
        self.push(format!("Muls({v}, {x}, {}, {count});", scalar(t, "-1.0f")));
        self.barrier();
        self.push(format!("Adds({v}, {v}, {}, {count});", scalar(t, "1.0f")));
        Ok(())
    }

    /// Binary arithmetic: the tensor-scalar API with an absorbed scalar operand, the
    /// broadcast box with an absorbed broadcast operand, else the tensor-tensor API.
    fn arithmetic(&mut self, op: &str, v: &str) -> Result<(), String> {
        if let Some((x, value)) = scalar_operand(self.ctx.s, &self.node.operands) {
            self.tensor_scalar(op, v, x, value);
            return Ok(());
        }
        if let Some(wide) = self.ctx.s.absorbed_broadcast_operand(self.n) {
            return self.broadcast_binary(op, v, wide);
        }
        self.binary(op, v)
    }

    /// `Adds`, `Muls`, `Maxs`, `Mins` of tensor `x` and the absorbed scalar `value`
    /// (sub adds the negation, div multiplies by the reciprocal).
    fn tensor_scalar(&mut self, op: &str, v: &str, x: usize, value: f64) {
        let (api, value) = match op {
            "add" => ("Adds", value),
            "sub" => ("Adds", -value),
            "div" => ("Muls", 1.0 / value),
            "mul" => ("Muls", value),
            "maximum" => ("Maxs", value),
            _ => ("Mins", value),
        };
        self.push(format!(
            "{api}({v}, v{x}, {}, {});",
            scalar(self.t, &scalar_literal(self.info.dtype, value)),
            self.count
        ));
    }

    /// `af::BinaryBroadcastBox`: the full operand with the source of the absorbed
    /// broadcast `wide`, read through repeat strides.
    fn broadcast_binary(&mut self, op: &str, v: &str, wide: usize) -> Result<(), String> {
        let (n, t) = (self.n, self.t);
        let narrow = self.ctx.input.graph.nodes[wide]
            .operands
            .first()
            .copied()
            .ok_or_else(|| format!("broadcast {wide} has no operand"))?;
        let full = if self.operand(0)? == wide {
            self.operand(1)?
        } else {
            self.operand(0)?
        };
        let kind = match op {
            "add" => "Add",
            "sub" => "Sub",
            "mul" => "Mul",
            "div" => "Div",
            "maximum" => "Max",
            _ => "Min",
        };
        let blocks = if self.ctx.s.extras.scratch {
            format!("scratch.Get<{t}>(), t.scratch_size")
        } else {
            format!("{v}, 0")
        };
        let wide_first = self.operand(0)? == wide;
        self.push(format!(
            "af::BinaryBroadcastBox<af::Bin::{kind}>({v}, v{full}, v{narrow}, {wide_first}, x{n}, x{narrow}, kAlign, {blocks});"
        ));
        Ok(())
    }

    /// The tensor-tensor API: `Add`, `Sub`, `Mul`, `Div`, `Max`, `Min` (logical and/or of
    /// half 0/1 as `Mul`/`Max`).
    fn binary(&mut self, op: &str, v: &str) -> Result<(), String> {
        let api = match op {
            "add" => "Add",
            "sub" => "Sub",
            "mul" | "logical_and" => "Mul",
            "div" => "Div",
            "maximum" | "logical_or" => "Max",
            _ => "Min",
        };
        let (a, b) = (self.operand_value(0)?, self.operand_value(1)?);
        self.push(format!("{api}({v}, {a}, {b}, {});", self.count));
        Ok(())
    }

    /// Bitwise ops on the int16 view (And/Not exist for int16 only).
    fn bitwise(&mut self, op: &str, v: &str) -> Result<(), String> {
        let lanes = format!(
            "static_cast<int32_t>({} * sizeof({}) / 2)",
            self.count, self.t
        );
        let view = |x: &str| format!("{x}.ReinterpretCast<int16_t>()");
        if op == "bitwise_not" {
            let a = self.operand_value(0)?;
            self.push(format!("Not({}, {}, {lanes});", view(v), view(&a)));
        } else {
            let (a, b) = (self.operand_value(0)?, self.operand_value(1)?);
            self.push(format!(
                "And({}, {}, {}, {lanes});",
                view(v),
                view(&a),
                view(&b)
            ));
        }
        Ok(())
    }

    /// `logical_xor` of half 0/1: |a - b|.
    fn logical_xor(&mut self, v: &str) -> Result<(), String> {
        let count = self.count.clone();
        let (a, b) = (self.operand_value(0)?, self.operand_value(1)?);
        self.push(format!("Sub({v}, {a}, {b}, {count});"));
        self.barrier();
        self.push(format!("Abs({v}, {v}, {count});"));
        Ok(())
    }

    /// `LeakyRelu` with the node's `alpha` (0.01 by default).
    fn leaky_relu(&mut self, v: &str) -> Result<(), String> {
        let alpha = float_attr(self.node, "alpha").unwrap_or(0.01);
        let x = self.operand_value(0)?;
        self.push(format!(
            "LeakyRelu({v}, {x}, {}, {});",
            scalar(self.t, &format!("{alpha:?}")),
            self.count
        ));
        Ok(())
    }

    /// A comparison: `Compare` into the mask, then `Select` of half 1/0 by it. int32
    /// compares only for equality on 2201: a <= b is max(a, b) == b, a >= b is
    /// max(a, b) == a, and lt/gt/ne are those inverted.
    fn compare(&mut self, op: &str, v: &str) -> Result<(), String> {
        let count = self.count.clone();
        let x = self.operand(0)?;
        let ta = ub_type(self.ctx.s.nodes[x].dtype);
        self.push("LocalTensor<uint8_t> mk = mask.Get<uint8_t>();".into());
        let int = self.ctx.s.nodes[x].dtype == DType::I32;
        let (lhs, rhs, inverted) = match op {
            "le" | "gt" if int => ("larger".to_string(), self.operand_value(1)?, op == "gt"),
            "ge" | "lt" if int => ("larger".to_string(), self.operand_value(0)?, op == "lt"),
            _ => (
                self.operand_value(0)?,
                self.operand_value(1)?,
                int && op == "ne",
            ),
        };
        if lhs == "larger" {
            let (a, b) = (self.operand_value(0)?, self.operand_value(1)?);
            self.push("LocalTensor<int32_t> larger = scratch.Get<int32_t>();".into());
            self.push(format!("Max(larger, {a}, {b}, {count});"));
            self.barrier();
        }
        let mode = if int { "EQ" } else { cmp_mode(op) };
        self.push(format!(
            "Compare(mk, {lhs}, {rhs}, CMPMODE::{mode}, static_cast<uint32_t>(af_align({count}, 256 / sizeof({ta}))));"
        ));
        let (on, off) = if inverted {
            ("0.0f", "1.0f")
        } else {
            ("1.0f", "0.0f")
        };
        self.push(format!("Duplicate({v}, {}, {count});", scalar("half", on)));
        self.barrier();
        self.push(format!(
            "Select({v}, mk, {v}, {}, SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({count}));",
            scalar("half", off)
        ));
        Ok(())
    }

    /// `select`/`where`: bitwise for int32/int64 data (`int_select_lines`), else a
    /// `Compare` of the half 0/1 condition into the mask and `Select` (tensor-scalar
    /// with an absorbed scalar false branch).
    fn select(&mut self, v: &str) -> Result<(), String> {
        let (t, count) = (self.t, self.count.clone());
        if matches!(self.info.dtype, DType::I32 | DType::I64) {
            let lines = int_select_lines(self.ctx.s, self.n, v, t, &count)?;
            self.lines.extend(lines);
            return Ok(());
        }
        let c = self.operand(0)?;
        let x = self.operand(1)?;
        let y = self.operand(2)?;
        self.push("LocalTensor<uint8_t> mk = mask.Get<uint8_t>();".into());
        self.push(format!(
            "AF_COMPARES(mk, v{c}, {}, CMPMODE::NE, static_cast<uint32_t>(af_align({count}, 128)));",
            scalar("half", "0.0f")
        ));
        self.barrier();
        let s = self.ctx.s;
        match &s.nodes[y].kind {
            // An absorbed scalar false branch: the tensor-scalar mode.
            NodeKind::Scalar { value } if s.absorbed_scalar(y) => self.push(format!(
                "Select({v}, mk, v{x}, {}, SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({count}));",
                scalar(t, &scalar_literal(self.info.dtype, *value))
            )),
            _ => self.push(format!(
                "Select({v}, mk, v{x}, v{y}, SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<uint32_t>({count}));"
            )),
        }
        Ok(())
    }
}

/// The variable holding node `n`'s value, declaring it when it lives in a slot.
fn value_decl(ctx: &Ctx, n: usize, lines: &mut Vec<String>) -> String {
    let info = &ctx.s.nodes[n];
    let t = ub_type(info.dtype);
    match info.value {
        Place::Slot { slot } => {
            lines.push(format!("LocalTensor<{t}> v{n} = b{slot}.Get<{t}>();"));
        }
        Place::Queue { .. } => {
            // A direct producer writes into its store's staging tensor, and so do the
            // values the schedule computes there before it (`staging_place`).
            if let Some(store) = ctx
                .input
                .graph
                .nodes
                .iter()
                .enumerate()
                .find(|(i, x)| {
                    x.op == "store"
                        && ctx.s.nodes[*i].direct
                        && x.operands
                            .first()
                            .is_some_and(|&p| ctx.s.nodes[p].value == info.value)
                })
                .map(|(i, _)| i)
            {
                lines.push(format!(
                    "LocalTensor<{t}> v{n} = {};",
                    ctx.store_tensor(store)
                ));
            } else if let Some(load) = (0..n).find(|&l| {
                ctx.s.nodes[l].kind == NodeKind::Load && ctx.s.nodes[l].raw == info.value
            }) {
                // Computed over a load's VECIN tensor whose value died (the schedule's
                // in-place placement).
                lines.push(format!("LocalTensor<{t}> v{n} = r{load};"));
            }
        }
        Place::None => {}
    }
    format!("v{n}")
}

fn cmp_mode(op: &str) -> &'static str {
    match op {
        "lt" => "LT",
        "le" => "LE",
        "gt" => "GT",
        "ge" => "GE",
        "eq" => "EQ",
        _ => "NE",
    }
}

/// The tensor operand and the value of a binary op one of whose operands is an absorbed
/// scalar ([`Schedule::absorbed_scalar`]).
fn scalar_operand(s: &Schedule, operands: &[usize]) -> Option<(usize, f64)> {
    let [a, b] = operands else {
        return None;
    };
    let value = |n: usize| match s.nodes[n].kind {
        NodeKind::Scalar { value } if s.absorbed_scalar(n) => Some(value),
        _ => None,
    };
    match (value(*a), value(*b)) {
        (None, Some(v)) => Some((*a, v)),
        (Some(v), None) => Some((*b, v)),
        _ => None,
    }
}

/// A select of int32/int64 data (`autofuse_ascir::kernel::int_select`), bitwise:
/// `v = (x & m) | (y & ~m)` on the int16 view of the values, with `m` the condition
/// (half 0/1) as an all-ones/all-zeros element: `Cast` to int32 (TRUNC; 0 or 1),
/// `Muls` by -1, and for int64 a `Cast` int32 -> int64 (sign extension). The scratch
/// holds three values (four for int64), each starting on a 32-byte block: `A` the mask
/// (then `x & m`), `B` its complement (then `y & ~m`), `C` the int32 condition or an
/// absorbed scalar branch (a `Duplicate` of int32; for int64 staged as int32 in `D`
/// and widened by a Cast). Both branches may be scalars: `C` holds one, then the other.
/// `v` is written last, so it may share its buffer with `x` or `y`.
fn int_select_lines(
    s: &Schedule,
    n: usize,
    v: &str,
    t: &str,
    count: &str,
) -> Result<Vec<String>, String> {
    let operands = s
        .operands
        .get(n)
        .filter(|o| o.len() == 3)
        .ok_or_else(|| format!("select {n} does not have three operands"))?;
    let wide = s.nodes[n].dtype == DType::I64;
    let lanes = if wide { 4 } else { 2 };
    let mut l = vec![
        format!("const uint32_t sel_off = af_align({count}, 32 / sizeof({t}));"),
        format!("LocalTensor<{t}> sel_a = scratch.Get<{t}>();"),
        format!("LocalTensor<{t}> sel_b = sel_a[sel_off];"),
        format!("LocalTensor<{t}> sel_c = sel_a[2 * sel_off];"),
        format!("const int32_t sel_lanes = {lanes} * {count};"),
    ];
    if wide {
        l.push(
            "LocalTensor<int32_t> sel_d = sel_a[3 * sel_off].ReinterpretCast<int32_t>();".into(),
        );
    }
    let barrier = "PipeBarrier<PIPE_V>();".to_string();
    // The condition as int32 0/-1: in A itself for int32 data, in C for int64.
    let c32 = if wide {
        "sel_c.ReinterpretCast<int32_t>()"
    } else {
        "sel_a"
    };
    l.push(format!(
        "Cast({c32}, v{}, RoundMode::CAST_TRUNC, static_cast<uint32_t>({count}));",
        operands[0]
    ));
    l.push(barrier.clone());
    l.push(format!(
        "Muls({c32}, {c32}, static_cast<int32_t>(-1), {count});"
    ));
    l.push(barrier.clone());
    if wide {
        l.push(format!(
            "Cast(sel_a, {c32}, RoundMode::CAST_NONE, static_cast<uint32_t>({count}));"
        ));
        l.push(barrier.clone());
    }
    let i16 = |name: &str| format!("{name}.ReinterpretCast<int16_t>()");
    l.push(format!(
        "Not({}, {}, sel_lanes);",
        i16("sel_b"),
        i16("sel_a")
    ));
    l.push(barrier.clone());
    // Each branch is masked into its area: a tensor is read in place, an absorbed
    // scalar is materialized in C first.
    for (o, area) in [(operands[1], "sel_a"), (operands[2], "sel_b")] {
        let source = match s.nodes[o].kind {
            NodeKind::Scalar { value } if s.absorbed_scalar(o) => {
                let value = value as i64;
                if wide {
                    l.push(format!(
                        "Duplicate(sel_d, static_cast<int32_t>({value}), {count});"
                    ));
                    l.push(barrier.clone());
                    l.push(format!(
                        "Cast(sel_c, sel_d, RoundMode::CAST_NONE, static_cast<uint32_t>({count}));"
                    ));
                } else {
                    l.push(format!(
                        "Duplicate(sel_c, static_cast<int32_t>({value}), {count});"
                    ));
                }
                l.push(barrier.clone());
                "sel_c".to_string()
            }
            _ => format!("v{o}"),
        };
        l.push(format!(
            "And({}, {}, {}, sel_lanes);",
            i16(area),
            i16(&source),
            i16(area)
        ));
        l.push(barrier.clone());
    }
    l.push(format!(
        "Or({}, {}, {}, sel_lanes);",
        i16(v),
        i16("sel_a"),
        i16("sel_b")
    ));
    Ok(l)
}

/// A C++ literal of `value` for an element of `dtype` (integers without a fraction).
fn scalar_literal(dtype: DType, value: f64) -> String {
    if dtype.is_int() {
        format!("{}", value as i64)
    } else {
        float_literal(value)
    }
}

/// A C++ expression of the float `value`; infinities and NaN (a pad of -inf, a mask
/// fill) through the compiler builtins both g++ and the device compiler know.
fn float_literal(value: f64) -> String {
    if value.is_nan() {
        "__builtin_nanf(\"\")".to_string()
    } else if value == f64::INFINITY {
        "__builtin_inff()".to_string()
    } else if value == f64::NEG_INFINITY {
        "(-__builtin_inff())".to_string()
    } else {
        format!("{value:?}")
    }
}

pub(super) fn scalar(t: &str, value: &str) -> String {
    format!("static_cast<{t}>({value})")
}

/// Lines converting `src` (UB type of `from`) into `dst` (UB type of `to`), `count`
/// elements; `scratch` names a float staging tensor when the pair is not direct.
fn cast_lines(from: DType, to: DType, dst: &str, src: &str, count: &str) -> Vec<String> {
    let (tf, tt) = (ub_type(from), ub_type(to));
    let mut l = Vec::new();
    let cast = |mode: &str| {
        format!("Cast({dst}, {src}, RoundMode::{mode}, static_cast<uint32_t>({count}));")
    };
    match (from, to) {
        _ if ub_type(from) == ub_type(to) && from != DType::Bool && to != DType::Bool
            || from == to =>
        {
            l.push(format!(
                "DataCopy({dst}, {src}, static_cast<uint32_t>({count}));"
            ))
        }
        (DType::Bool, DType::F16) => l.push(format!(
            "DataCopy({dst}, {src}, static_cast<uint32_t>({count}));"
        )),
        (DType::F16, DType::F32) | (DType::BF16, DType::F32) | (DType::Bool, DType::F32) => {
            l.push(cast("CAST_NONE"))
        }
        (DType::F32, DType::F16) | (DType::F32, DType::BF16) | (DType::I32, DType::F32) => {
            l.push(cast("CAST_RINT"))
        }
        (DType::F32, DType::I32) | (DType::F16, DType::I32) | (DType::Bool, DType::I32) => {
            l.push(cast("CAST_TRUNC"))
        }
        // int32 <-> int64 (vconv_s322s64 / vconv_s642s32) take no round mode.
        (DType::I64, DType::I32) | (DType::I32, DType::I64) => l.push(cast("CAST_NONE")),
        (DType::F32, DType::I64) => l.push(cast("CAST_TRUNC")),
        // Small integers to and from the float type that holds them exactly
        // (int8/uint8 -> half: NONE only; half -> int8/uint8 and float -> int16 take a
        // rounding mode; the values are integral, so TRUNC is exact).
        (DType::I8 | DType::U8, DType::F16) | (DType::I16, DType::F32) => l.push(cast("CAST_NONE")),
        (DType::F16, DType::I8 | DType::U8) | (DType::F32, DType::I16) => {
            l.push(cast("CAST_TRUNC"))
        }
        // int8/uint8 values between f16 and int16 (the 8-bit bitwise ops).
        (DType::F16, DType::I16) => l.push(cast("CAST_TRUNC")),
        (DType::I16, DType::F16) => l.push(cast("CAST_NONE")),
        (DType::I64, DType::F32) => l.push(cast("CAST_RINT")),
        (DType::F32 | DType::F16, DType::Bool) => {
            l.push(format!(
                "AF_COMPARES(mk, {src}, {}, CMPMODE::NE, static_cast<uint32_t>(af_align({count}, 256 / sizeof({tf}))));",
                scalar(tf, "0")
            ));
            l.push(format!(
                "Duplicate({dst}, {}, {count});",
                scalar("half", "1.0f")
            ));
            l.push("PipeBarrier<PIPE_V>();".into());
            l.push(format!(
                "Select({dst}, mk, {dst}, {}, SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({count}));",
                scalar("half", "0.0f")
            ));
        }
        (DType::I32, DType::Bool) => {
            l.push(format!(
                "AF_COMPARES(mk, {src}, {}, CMPMODE::EQ, static_cast<uint32_t>(af_align({count}, 64)));",
                scalar("int32_t", "0")
            ));
            l.push(format!(
                "Duplicate({dst}, {}, {count});",
                scalar("half", "0.0f")
            ));
            l.push("PipeBarrier<PIPE_V>();".into());
            l.push(format!(
                "Select({dst}, mk, {dst}, {}, SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({count}));",
                scalar("half", "1.0f")
            ));
        }
        _ => {
            let _ = tt;
            l.push(format!("// unsupported cast {from} -> {to}"));
        }
    }
    l
}
