//! The nodes over the normalized axes and GE's TilingGroup: the axes each node reduces
//! (the R group; the rest is the Y group), the first concat axis (where the N group
//! starts), the loads that transpose in UB (the X group), and the checks that refuse
//! what the schedule cannot express.

use super::axes::{is_gm, HintViews, NormAxes};
use super::{c, refuse, Kernel};
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::*;
use autofuse_ir::graph::DType;
use autofuse_symbolic::Expr;

/// Every node's info over the normalized axes `norm`, from its hint view `views`: full
/// and partial per axis, GM strides (of the innermost merged hint axis), and its kind
/// with axis positions normalized.
pub(super) fn node_infos(
    graph: &AscGraph,
    views: &HintViews,
    norm: &NormAxes,
) -> Result<Vec<NodeInfo>, String> {
    let mut nodes = Vec::new();
    for (n, node) in graph.nodes.iter().enumerate() {
        let mut full = Vec::new();
        let mut partial = Vec::new();
        let mut strides = Vec::new();
        if norm.scalar {
            full.push(false);
            partial.push(None);
            strides.push(c(0));
        }
        for g in &norm.groups {
            let inner = *g.last().unwrap_or(&0);
            full.push(views.full[n][g[0]]);
            partial.push(views.partial[n][g[0]].clone());
            strides.push(if is_gm(node) && views.full[n][g[0]] {
                node.view.strides[inner].clone()
            } else {
                c(0)
            });
        }
        let mut kind = node_kind(graph, n)?;
        if let NodeKind::ExtractSlice { axis, .. } = &mut kind {
            // Hint position -> normalized axis (it is a concat axis: never merged).
            *axis = norm
                .of_hint(*axis)
                .ok_or_else(|| format!("extract_slice node {n} takes a dropped axis"))?;
        }
        if let NodeKind::Concat { axis } = &mut kind {
            // Hint position -> normalized axis (concat axes are never merged).
            *axis = norm
                .of_hint(*axis)
                .ok_or_else(|| format!("concat node {n} concatenates a dropped axis"))?;
        }
        let gm_offset = match node.op.as_str() {
            "load" => node.gm_offset().map_err(|e| format!("load {n}: {e}"))?,
            _ => c(0),
        };
        nodes.push(NodeInfo {
            kind,
            full,
            partial,
            gm_strides: strides,
            gm_offset,
            part_start: c(0),
            dtype: node.dtype,
            value: Place::None,
            raw: Place::None,
            direct: false,
            transpose: false,
            loc: node.loc.clone(),
        });
    }
    Ok(nodes)
}

/// What node `n` of `graph` does; axis positions are hint positions. Refuses ops the
/// schedule does not handle.
fn node_kind(graph: &AscGraph, n: usize) -> Result<NodeKind, String> {
    let node = &graph.nodes[n];
    let op = node.op.as_str();
    Ok(match op {
        "data" => NodeKind::Data {
            input: node.index.unwrap_or(0),
        },
        "output" => NodeKind::Output {
            index: node.index.unwrap_or(0),
        },
        "load" => NodeKind::Load,
        "store" => {
            if node.gm_offset()? != c(0) {
                return refuse("stores with a non-zero offset are not scheduled");
            }
            NodeKind::Store
        }
        "broadcast" => NodeKind::Broadcast,
        "cast" => NodeKind::Cast,
        "arange" => {
            let (start, delta) = node.arange_terms()?;
            NodeKind::Arange { start, delta }
        }
        "scalar" | "fill" => {
            let value = attr_text(node, "value")
                .and_then(|v| v.trim_matches('"').parse::<f64>().ok())
                .ok_or_else(|| format!("{op} node {n} without a numeric value"))?;
            NodeKind::Scalar { value }
        }
        r if REDUCE_OPS.contains(&r) => NodeKind::Reduce {
            op: r.to_string(),
            reduced: Vec::new(),
        },
        "concat" => NodeKind::Concat {
            // The hint position; `build` turns it into the normalized axis.
            axis: graph
                .concat_axis(n)
                .ok_or_else(|| format!("concat node {n} has malformed views"))?,
        },
        "extract_slice" => {
            let axis = attr_text(node, "axis")
                .and_then(|v| v.split(':').next())
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&a| a < node.view.repeats.len())
                .ok_or_else(|| format!("extract_slice node {n} without a valid 'axis'"))?;
            NodeKind::ExtractSlice {
                axis,
                start: node.gm_offset()?,
            }
        }
        "gather" => {
            let (bound, index_stride) = graph.gather_geometry(n)?;
            if !matches!(
                node.dtype,
                DType::F32 | DType::F16 | DType::BF16 | DType::I32
            ) {
                return refuse(format!("a gather of {} is not scheduled", node.dtype));
            }
            NodeKind::Gather {
                bound,
                index_stride,
            }
        }
        "workspace" | "transpose" | "split" => {
            return refuse(format!("ascir.{op} is not scheduled yet"))
        }
        other => NodeKind::Elementwise {
            op: other.to_string(),
        },
    })
}

impl Kernel<'_> {
    /// The first concat axis: it and every later axis stay whole in every tile (GE's
    /// n_group); kernels with a concat do not reduce a part of a concat axis. A part may
    /// be a broadcast (an edge pad's repeated border): it broadcasts within its part.
    pub(super) fn find_n_group(&mut self) -> Result<(), String> {
        let nodes = &self.nodes;
        let n_from = nodes
            .iter()
            .filter_map(|x| match x.kind {
                NodeKind::Concat { axis } => Some(axis),
                _ => None,
            })
            .min();
        if n_from.is_some()
            && nodes.iter().any(|x| {
                matches!(x.kind, NodeKind::Reduce { .. }) && x.partial.iter().any(Option::is_some)
            })
        {
            return refuse("a kernel with a concat may not reduce a part of the concat axis");
        }
        self.n_from = n_from;
        Ok(())
    }

    /// The axes each reduction reduces (GE's r_group), with the structural checks of
    /// every node's extents and of its GM rows, node by node.
    pub(super) fn find_reduced_axes(&mut self) -> Result<(), String> {
        let partials: Vec<Vec<Option<Expr>>> =
            self.nodes.iter().map(|x| x.partial.clone()).collect();
        for n in 0..self.nodes.len() {
            self.check_extents(n, &partials)?;
            if self.is_gather_table(n) {
                continue;
            }
            self.check_gm_rows(n)?;
        }
        Ok(())
    }

    /// Checks node `n`'s extents against its operands' (`partials`: every node's parts
    /// of concat axes) and records the axes a reduction reduces.
    fn check_extents(&mut self, n: usize, partials: &[Vec<Option<Expr>>]) -> Result<(), String> {
        let rank = self.norm.axes.len();
        let Kernel {
            graph,
            nodes,
            r_set,
            ..
        } = self;
        let node = &graph.nodes[n];
        let operand_full: Vec<Vec<bool>> = node
            .operands
            .iter()
            .map(|&o| nodes.get(o).map(|x| x.full.clone()).unwrap_or_default())
            .collect();
        let me = nodes[n].full.clone();
        match &mut nodes[n].kind {
            NodeKind::Reduce { reduced, .. } => {
                let Some(input) = operand_full.first() else {
                    return refuse(format!("reduction node {n} has no operand"));
                };
                for k in 0..rank {
                    if me[k] && !input[k] {
                        return refuse(format!("reduction node {n} expands an axis"));
                    }
                    if input[k] && !me[k] {
                        reduced.push(k);
                        r_set[k] = true;
                    }
                }
            }
            NodeKind::Broadcast => {
                let Some(input) = operand_full.first() else {
                    return refuse(format!("broadcast node {n} has no operand"));
                };
                if (0..rank).any(|k| input[k] && !me[k]) {
                    return refuse(format!("broadcast node {n} shrinks an axis"));
                }
            }
            NodeKind::Concat { axis } => {
                let axis = *axis;
                let [l, r] = node.operands.as_slice() else {
                    return refuse(format!("concat node {n} is not binary"));
                };
                let (pl, pr) = (&partials[*l], &partials[*r]);
                let mine = &partials[n];
                let fits = operand_full.iter().all(|f| *f == me)
                    && (0..rank).all(|k| k == axis || (pl[k] == mine[k] && pr[k] == mine[k]));
                if !fits {
                    return refuse(format!(
                        "concat node {n}: operands differ outside the concat axis"
                    ));
                }
            }
            NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Store
                if node
                    .operands
                    .iter()
                    .any(|&o| partials.get(o).is_some_and(|x| *x != partials[n])) =>
            {
                return refuse(format!(
                    "node {n} ('{}') has an operand covering another part of a concat axis",
                    node.op
                ));
            }
            NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Store => {
                if let Some(bad) = operand_full.iter().position(|f| *f != me) {
                    return refuse(format!(
                        "node {n} ('{}') has operand #{bad} with a different extent \
                             (broadcasts must be explicit nodes)",
                        node.op
                    ));
                }
            }
            NodeKind::Load
                if operand_full.first() != Some(&me)
                    || node
                        .operands
                        .first()
                        .is_some_and(|&o| partials.get(o) != partials.get(n)) =>
            {
                return refuse(format!("load {n} changes the extent of its data"));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether node `n` is a data node read only as gather tables: it is never loaded
    /// through its view (af::GatherRows copies a row per DMA where the view's innermost
    /// stride is 1 and element by element otherwise, any strides; a table kept in UB
    /// is copied whole).
    fn is_gather_table(&self, n: usize) -> bool {
        let graph = self.graph;
        matches!(self.nodes[n].kind, NodeKind::Data { .. }) && {
            let mut readers = graph
                .nodes
                .iter()
                .filter(|u| u.operands.contains(&n))
                .peekable();
            readers.peek().is_some()
                && readers.all(|u| {
                    u.op == "gather"
                        && u.operands.first() == Some(&n)
                        && !u.operands[1..].contains(&n)
                })
        }
    }

    /// Checks node `n`'s GM rows are contiguous along the innermost axis: DataCopyPad
    /// moves whole rows. A data node whose two innermost axes are swapped (stride 1 on
    /// the second-to-last) is a transposed load: rows of the source block, transposed
    /// in UB; it is marked `transpose`.
    fn check_gm_rows(&mut self, n: usize) -> Result<(), String> {
        let rank = self.norm.axes.len();
        let nodes = &mut self.nodes;
        let swapped = rank >= 2
            && matches!(nodes[n].kind, NodeKind::Data { .. })
            && nodes[n].full[rank - 1]
            && nodes[n].full[rank - 2]
            && nodes[n].gm_strides[rank - 2] == c(1)
            && nodes[n].partial[rank - 1].is_none()
            && nodes[n].partial[rank - 2].is_none();
        if swapped {
            nodes[n].transpose = true;
        } else if matches!(nodes[n].kind, NodeKind::Data { .. } | NodeKind::Store)
            && nodes[n].full[rank - 1]
            && nodes[n].gm_strides[rank - 1] != c(1)
            && nodes[n].partial[rank - 1].as_ref().and_then(Expr::as_const) != Some(1)
        {
            return refuse(format!(
                "GM view of node {n} is not contiguous along the innermost axis (stride '{}')",
                nodes[n].gm_strides[rank - 1]
            ));
        }
        Ok(())
    }

    /// Marks the loads of swapped data nodes: they transpose in UB (2-D blocks of the
    /// two innermost axes, GE's x_group). A kernel with such loads computes pointwise
    /// only, without broadcasts, on f32, f16 or bf16.
    pub(super) fn mark_transposing_loads(&mut self) -> Result<(), String> {
        let graph = self.graph;
        let nodes = &mut self.nodes;
        for n in 0..nodes.len() {
            let data = graph.nodes[n].operands.first().copied();
            if nodes[n].kind == NodeKind::Load
                && data.is_some_and(|d| nodes.get(d).is_some_and(|x| x.transpose))
            {
                nodes[n].transpose = true;
            }
        }
        let transposes = nodes
            .iter()
            .any(|x| x.transpose && x.kind == NodeKind::Load);
        if transposes {
            if self.n_from.is_some() || self.r_set.iter().any(|&x| x) {
                return refuse(
                    "a kernel whose loads transpose the innermost axis computes pointwise only",
                );
            }
            if nodes.iter().any(|x| x.kind == NodeKind::Broadcast) {
                return refuse(
                    "a kernel whose loads transpose the innermost axis may not broadcast",
                );
            }
            if let Some(bad) = nodes.iter().find(|x| {
                x.transpose
                    && x.kind == NodeKind::Load
                    && !matches!(x.dtype, DType::F32 | DType::F16 | DType::BF16)
            }) {
                return refuse(format!(
                    "a load of {} that transposes the innermost axis is not supported (Transpose \
                     is used on f32, f16 and bf16)",
                    bad.dtype
                ));
            }
        }
        self.transposes = transposes;
        Ok(())
    }

    /// The layout alignment: 32 bytes of the smallest element size, so the unit covers
    /// every UB and raw GM type. Refuses 64-bit values outside the moves that only
    /// narrow or copy them ([`WideValues`]).
    pub(super) fn choose_alignment(&mut self) -> Result<(), String> {
        let mut min_size = 4i64;
        let mut max_size = 1i64;
        for node in &self.nodes {
            let s = ub_size(node.dtype).min(gm_size(node.dtype));
            min_size = min_size.min(s);
            max_size = max_size.max(ub_size(node.dtype));
        }
        if max_size > 4 {
            let wide = WideValues(self.graph);
            let wide_elsewhere =
                (0..self.graph.nodes.len()).any(|n| wide.wide(n) && !wide.allowed(n));
            if wide_elsewhere {
                return refuse("64-bit element types are not scheduled");
            }
        }
        self.align = 32 / min_size.max(1);
        Ok(())
    }
}

/// Where a kernel may hold 64-bit values. The vector unit has no 64-bit arithmetic: a
/// kernel holds 64-bit values only where they move between GM and a 32-bit value: a
/// gather's i64 index tile (the scalar unit reads it), a load converted by one Cast
/// (int64 -> int32 or float) or copied to GM as it is, and a Cast to int64 that only a
/// store reads. A select of 64-bit data is bitwise (`int_select`): it reads its data
/// branches (loads, scalars) and its result is stored.
struct WideValues<'g>(&'g AscGraph);

impl WideValues<'_> {
    fn wide(&self, n: usize) -> bool {
        ub_size(self.0.nodes[n].dtype) > 4
    }

    fn users(&self, n: usize) -> Vec<usize> {
        let graph = self.0;
        (0..graph.nodes.len())
            .filter(|&u| graph.nodes[u].operands.contains(&n))
            .collect()
    }

    fn wide_select(&self, n: usize) -> bool {
        let node = &self.0.nodes[n];
        matches!(node.op.as_str(), "select" | "where") && self.wide(n)
    }

    /// `n` is a data branch of the wide select `u`.
    fn select_branch(&self, n: usize, u: usize) -> bool {
        self.wide_select(u) && self.0.nodes[u].operands.first() != Some(&n)
    }

    /// `u` reads the wide load `load` into something 32-bit, or stores it as it is.
    fn narrowing_read(&self, load: usize, u: usize) -> bool {
        let graph = self.0;
        let user = &graph.nodes[u];
        (user.op == "gather" && user.operands.get(1) == Some(&load))
            || self.select_branch(load, u)
            || user.op == "store"
            || (user.op == "cast"
                && !self.wide(u)
                && cast_supported(graph.nodes[load].dtype, user.dtype))
    }

    fn load_ok(&self, l: usize) -> bool {
        let readers = self.users(l);
        self.0.nodes[l].op == "load"
            && !readers.is_empty()
            && readers.iter().all(|&u| self.narrowing_read(l, u))
    }

    /// `p` is a cast of a 32-bit value to a wide type that only stores read.
    fn producer_ok(&self, p: usize) -> bool {
        let graph = self.0;
        let from = &graph.nodes[p];
        from.op == "cast"
            && from.operands.first().is_some_and(|&o| !self.wide(o))
            && cast_direct(graph.nodes[from.operands[0]].dtype, from.dtype)
            && self.users(p).iter().all(|&u| graph.nodes[u].op == "store")
    }

    /// Whether node `n` may hold or move a wide value.
    fn allowed(&self, n: usize) -> bool {
        let graph = self.0;
        let node = &graph.nodes[n];
        match node.op.as_str() {
            "data" => {
                let readers = self.users(n);
                !readers.is_empty()
                    && readers.iter().all(|&l| match graph.nodes[l].op.as_str() {
                        "load" => self.load_ok(l),
                        "gather" => graph.nodes[l].operands.first() == Some(&n),
                        _ => false,
                    })
            }
            "load" => self.load_ok(n),
            "cast" => self.producer_ok(n),
            "select" | "where" => node.operands.iter().skip(1).all(|&o| {
                let branch = &graph.nodes[o];
                (branch.op == "load" && self.load_ok(o)) || branch.op == "scalar"
            }),
            "scalar" => {
                let readers = self.users(n);
                !readers.is_empty() && readers.iter().all(|&u| self.select_branch(n, u))
            }
            "store" => node.operands.first().is_some_and(|&p| {
                self.producer_ok(p) || (self.wide(p) && self.load_ok(p)) || self.wide_select(p)
            }),
            "output" => node
                .operands
                .first()
                .is_some_and(|&st| graph.nodes[st].op == "store"),
            _ => false,
        }
    }
}
