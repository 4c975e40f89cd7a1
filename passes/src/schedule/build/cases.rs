//! GE's tiling cases: one per UB-split axis of the Y group (or one transpose case, or
//! one case without split), a row-block twin for long concat rows, one split-reduction
//! case per R axis; and, once the buffers are known, the cases fitted to UB and their
//! twins (gather tables in UB, reductions across cores).

use super::{c, refuse, Kernel, CONCAT_ROW_BLOCK_MAX, CONCAT_ROW_BLOCK_MIN};
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::*;
use autofuse_symbolic::Expr;

impl Kernel<'_> {
    /// The tiling cases, keys in order. Axes after the first concat axis are never
    /// split (GE's n_group). The concat axis itself may be: a tile then holds the rows
    /// of each part that fall in it, which serves concats along the outermost axis and
    /// slabs too large for one tile.
    pub(super) fn enumerate_cases(&mut self) -> Vec<Case> {
        let (r_set, n_from) = (&self.r_set, self.n_from);
        let split_concat = n_from.is_some_and(|axis| {
            r_set.get(axis) == Some(&false) && assign_part_starts(self.graph, &mut self.nodes, axis)
        });
        let splittable: Vec<usize> = self
            .y_group()
            .into_iter()
            .filter(|&u| n_from.is_none_or(|first| u < first || (u == first && split_concat)))
            .collect();
        let mut cases = Vec::new();
        if self.transposes {
            cases.push(self.transpose_case());
        } else if splittable.is_empty() {
            cases.push(self.case_for(None, 0));
        } else {
            for (key, &u) in splittable.iter().enumerate() {
                cases.push(self.case_for(Some(u), key as u32));
            }
        }
        if split_concat && !self.transposes {
            if let Some(case) = self.concat_row_block_case(cases.len() as u32) {
                cases.push(case);
            }
        }
        // Split-reduction cases, for rows too long to stay in UB (not with a concat,
        // whose axis and every later one stay whole in the tile).
        for &u in self.r_group().iter().filter(|_| n_from.is_none()) {
            let key = cases.len() as u32;
            cases.push(self.case_for(Some(u), key));
        }
        cases
    }

    /// The case with key `key` that splits axis `split` (GE's `ub_tiling_id_y`): a tile
    /// is a box whose looped axes (Y axes before the split one) have extent 1, the
    /// split axis the tile size `<u>t_size`, every later and every R axis whole; the
    /// looped axes and `zT` merge into the block axis. `None`: one tile, one block.
    fn case_for(&self, split: Option<usize>, key: u32) -> Case {
        let (axes, r_set, align) = (&self.norm.axes, &self.r_set, self.align);
        let mut in_tile = Vec::new();
        let mut looped = Vec::new();
        for (k, &reduced) in r_set.iter().enumerate() {
            match split {
                Some(u) if k < u && !reduced => looped.push(k),
                _ => in_tile.push(k),
            }
        }
        let (tile_var, tile_align, block_name) = match split {
            Some(u) => {
                let name = &axes[u].name;
                let last = in_tile.last() == Some(&u);
                let merged: String = looped
                    .iter()
                    .map(|&k| axes[k].name.as_str())
                    .chain(std::iter::once(name.as_str()))
                    .collect();
                (
                    Some(format!("{name}t_size")),
                    if last { align } else { 1 },
                    format!("{merged}T"),
                )
            }
            None => (None, 1, "zT".to_string()),
        };
        Case {
            key,
            split,
            in_tile,
            looped,
            tile_var,
            tile_align,
            block_var: format!("{block_name}b_size"),
            block_name,
            reduce_split: split.is_some_and(|u| r_set[u]),
            inner_block: None,
            ub_tables: Vec::new(),
            cross_core: false,
        }
    }

    /// The one case of a kernel whose loads transpose (GE's x_group): the
    /// second-to-last axis is split by `t`, the innermost axis in blocks of
    /// TRANSPOSE_BLOCK elements (or whole when statically smaller); every outer axis is
    /// looped.
    fn transpose_case(&self) -> Case {
        let axes = &self.norm.axes;
        let rank = axes.len();
        let mut case = self.case_for(Some(rank - 2), 0);
        let inner = &axes[rank - 1].size;
        let block = match inner.as_const() {
            Some(v) if v < TRANSPOSE_BLOCK => inner.clone(),
            _ => c(TRANSPOSE_BLOCK),
        };
        case.tile_align = self.align;
        case.inner_block = Some((rank - 1, block));
        case.block_name = format!(
            "{}{}T",
            case.block_name.trim_end_matches('T'),
            axes[rank - 1].name
        );
        case.block_var = format!("{}b_size", case.block_name);
        case
    }

    /// GE's GM-concat template, for concat rows (the axes after the concat axis) that
    /// may outgrow UB: a twin of the split-concat case whose tiles also cut the
    /// innermost axis into blocks (`inner_block`, sized by `fit_concat_row_block`), so
    /// no tile holds a whole row; every other axis is looped. Each part's rows of a
    /// block move GM -> UB -> their place in the result; rows of one part never meet a
    /// whole row of another in UB. `None` where a static row is known to fit as it is
    /// (or the kernel reduces, or the concat axis is innermost).
    fn concat_row_block_case(&self, key: u32) -> Option<Case> {
        let axes = &self.norm.axes;
        let rank = axes.len();
        let k = self
            .n_from
            .filter(|&k| k + 1 < rank && self.r_set.iter().all(|&x| !x))?;
        let row = axes[k + 1..].iter().try_fold(1i64, |acc, a| {
            a.size.as_const().map(|v| acc.saturating_mul(v))
        });
        // A static row this short fits a tile whole.
        if row.is_some_and(|elems| elems <= CONCAT_ROW_BLOCK_MIN) {
            return None;
        }
        let mut case = self.case_for(Some(k), key);
        let last = rank - 1;
        case.in_tile = vec![k, last];
        case.looped = (0..rank).filter(|&a| a != k && a != last).collect();
        case.tile_align = 1;
        case.inner_block = Some((last, c(CONCAT_ROW_BLOCK_MIN)));
        let looped_names: String = case.looped.iter().map(|&a| axes[a].name.as_str()).collect();
        case.block_name = format!("{looped_names}{}{}T", axes[k].name, axes[last].name);
        case.block_var = format!("{}b_size", case.block_name);
        Some(case)
    }
}

/// GE's RCore template: beside every split-reduction case whose pass structure allows
/// it (`Schedule::cross_core_ok`: one pass, every store after the reduction), a twin
/// with a new key that splits the reduced axis across cores too (`Case::cross_core`).
/// The twin pays off when the row groups are fewer than the cores (a column sum, a
/// reduction over every axis); the tiling solver weighs it against the one-core-per-
/// row-group case at run time, and refuses it when fewer than two blocks could share
/// a row group. Not added when the row groups are known to fill half the cores.
pub(super) fn add_cross_core_cases(schedule: &mut Schedule, chip: &ChipProfile) {
    let cores = chip.vector_cores.min(i64::MAX as u64) as i64;
    if cores < 2 {
        return;
    }
    let twins: Vec<Case> = schedule
        .cases
        .iter()
        .filter(|case| schedule.cross_core_ok(case))
        .filter(|case| {
            schedule
                .outer_expr(case)
                .as_const()
                .is_none_or(|groups| groups * 2 <= cores)
        })
        .cloned()
        .collect();
    for mut twin in twins {
        twin.key = schedule.cases.len() as u32;
        twin.cross_core = true;
        schedule.cases.push(twin);
    }
}

/// The case steps of `build` after the buffers are allocated.
pub(super) trait FitCases {
    fn fit_transpose_block(&mut self, chip: &ChipProfile) -> Result<(), String>;
    fn add_table_in_ub_cases(&mut self, chip: &ChipProfile);
    fn fit_concat_row_block(&mut self, chip: &ChipProfile);
    fn check_concat_slabs_fit(&self, chip: &ChipProfile) -> Result<(), String>;
}

impl FitCases for Schedule {
    /// GE's two gather templates: beside every case that reads gather tables from GM
    /// (one DMA per picked row), a twin with a new key that copies the tables whole into
    /// UB once per block and picks rows there (one UB -> UB copy per row). Tables of a
    /// known size qualify while together they take at most half of UB; a table of
    /// symbolic size always does, since the host tiling function refuses the twin at run
    /// time when its smallest tile does not fit and keeps the GM case. Split-reduction
    /// cases keep their tables in GM (they reload per pass).
    fn add_table_in_ub_cases(&mut self, chip: &ChipProfile) {
        let mut gathers: Vec<(usize, Option<i64>)> = (0..self.nodes.len())
            .filter(|&n| matches!(self.nodes[n].kind, NodeKind::Gather { .. }))
            .filter_map(|g| {
                let input = self.gather_table_input(g)?;
                let table = &self.inputs[input];
                if table.dims.iter().any(|d| d.expr().is_none()) {
                    return None;
                }
                let bytes = self
                    .table_elems(input)
                    .as_const()
                    .map(|e| (e + self.align) * ub_size(table.dtype));
                Some((g, bytes))
            })
            .collect();
        gathers.sort_by_key(|&(_, bytes)| bytes.unwrap_or(0));
        let budget = (chip.ub_usable / 2) as i64;
        let mut used = 0i64;
        let mut chosen = Vec::new();
        for (g, bytes) in gathers {
            match bytes {
                Some(b) if used + b > budget => {}
                Some(b) => {
                    used += b;
                    chosen.push(g);
                }
                None => chosen.push(g),
            }
        }
        let buffers =
            buffer_count(&self.queues, self.slots.len(), &self.extras) + u64::from(self.hoists());
        if chosen.is_empty() || buffers + 1 > chip.max_buffers {
            return;
        }
        chosen.sort_unstable();
        let twins: Vec<Case> = self
            .cases
            .iter()
            .filter(|case| !case.reduce_split)
            .cloned()
            .collect();
        for mut twin in twins {
            twin.key = self.cases.len() as u32;
            twin.ub_tables = chosen.clone();
            self.cases.push(twin);
        }
    }

    /// The innermost block of a transpose case: TRANSPOSE_BLOCK elements, or 32, 16, 8
    /// (multiples of the layout alignment) when the smallest tile would take more than
    /// half of the chip's UB (the `Transpose` temporary alone is `(c + 2) * 512` bytes).
    /// Refuses the kernel when not even the smallest block fits, rather than hand the
    /// tiling an infeasible kernel (only a shrunken `ub-bytes` does that).
    fn fit_transpose_block(&mut self, chip: &ChipProfile) -> Result<(), String> {
        let Some(case) = self.cases.first().cloned() else {
            return Ok(());
        };
        let Some((b, _)) = case.inner_block.clone() else {
            return Ok(());
        };
        let inner = self.axes[b].size.clone();
        let ub = chip.ub_usable as i64;
        let mut fitting: Option<(Case, i64)> = None;
        for block in [TRANSPOSE_BLOCK, 32, 16, 8] {
            if block % self.align != 0 {
                continue;
            }
            let extent = match inner.as_const() {
                Some(v) if v < block => inner.clone(),
                _ => c(block),
            };
            let mut trial = case.clone();
            trial.inner_block = Some((b, extent));
            let Some(bytes) = self.smallest_tile_ub(&trial) else {
                return Ok(());
            };
            if bytes <= ub && fitting.is_none() {
                fitting = Some((trial.clone(), bytes));
            }
            if bytes * 2 <= ub {
                fitting = Some((trial, bytes));
                break;
            }
        }
        match fitting {
            Some((trial, _)) => {
                self.cases[0] = trial;
                Ok(())
            }
            None => refuse(format!(
                "the smallest tile of this transposing kernel does not fit the {} bytes of UB of {}",
                ub, chip.name
            )),
        }
    }

    /// The row block of a concat case that cuts rows (`inner_block`): the largest power
    /// of two elements whose one-row tile fits UB (a static row shorter than that is its
    /// own block). The case serves rows longer than a tile holds, where a tile is one
    /// row block anyway; longer blocks mean fewer DMA heads per byte.
    fn fit_concat_row_block(&mut self, chip: &ChipProfile) {
        let ub = chip.ub_usable as i64;
        for i in 0..self.cases.len() {
            let Some((b, _)) = self.cases[i].inner_block.clone() else {
                continue;
            };
            if self.nodes.iter().any(|x| x.transpose) {
                continue;
            }
            let row = self.axes[b].size.as_const();
            // Down to one 32-byte block when UB is small (a `ub-bytes` override).
            let mut chosen = c(self.align);
            let mut block = CONCAT_ROW_BLOCK_MAX;
            while block >= self.align {
                let extent = match row {
                    Some(v) if v < block => c(v),
                    _ => c(block),
                };
                let mut trial = self.cases[i].clone();
                trial.inner_block = Some((b, extent.clone()));
                if self
                    .smallest_tile_ub(&trial)
                    .is_some_and(|bytes| bytes <= ub)
                {
                    chosen = extent;
                    break;
                }
                block /= 2;
            }
            self.cases[i].inner_block = Some((b, chosen));
        }
        // A static row that is one block is what the split-concat case already tiles.
        let whole_row_twins: Vec<usize> = (0..self.cases.len())
            .filter(|&i| {
                self.cases[i]
                    .inner_block
                    .as_ref()
                    .is_some_and(|(b, extent)| {
                        !self.nodes.iter().any(|x| x.transpose) && *extent == self.axes[*b].size
                    })
            })
            .collect();
        for i in whole_row_twins.into_iter().rev() {
            self.cases.remove(i);
        }
        for (key, case) in self.cases.iter_mut().enumerate() {
            case.key = key as u32;
        }
    }

    /// A concat kernel's tiles hold whole slabs (the concat axis and later axes), so its
    /// smallest tile has a fixed size when the slab is static: refuse the kernel when no
    /// case's smallest tile fits the chip's UB (only a shrunken `ub-bytes` does that to a
    /// kernel `--lower-to-ascir` built), rather than hand the tiling an infeasible kernel.
    fn check_concat_slabs_fit(&self, chip: &ChipProfile) -> Result<(), String> {
        let mut smallest: Option<i64> = None;
        for case in &self.cases {
            // Symbolic slabs are decided at run time by the tiling function.
            let Some(bytes) = self.smallest_tile_ub(case) else {
                return Ok(());
            };
            smallest = Some(smallest.map_or(bytes, |m: i64| m.min(bytes)));
        }
        match smallest {
            Some(bytes) if bytes > chip.ub_usable as i64 => refuse(format!(
                "the smallest tile of this concat kernel (whole concat slabs) needs {bytes} bytes \
                 of UB, {} has {}",
                chip.name, chip.ub_usable
            )),
            _ => Ok(()),
        }
    }
}

/// Where each part of the concats along normalized `axis` starts in the result of the
/// outermost one (`NodeInfo::part_start`), for tiles that split the concat axis. False
/// when such a tile cannot be computed: a node covering a part is not a load, a
/// broadcast, an elementwise op, a cast, a fill or a concat (an extract_slice or a gather needs the
/// whole axis), or one value other than a fill is a part at two places (`concat(x, x)`
/// loads `x` once). A fill may be (a symmetric pad's two fills are one value after CSE):
/// it fills a whole tile, and each concat takes the rows its use needs.
fn assign_part_starts(graph: &AscGraph, nodes: &mut [NodeInfo], axis: usize) -> bool {
    let mut start: Vec<Option<Expr>> = vec![None; nodes.len()];
    // Consumers come after their operands: walk back from the outermost concat.
    for n in (0..nodes.len()).rev() {
        let info = &nodes[n];
        let is_concat = matches!(info.kind, NodeKind::Concat { .. });
        let Some(partial) = info.partial.get(axis) else {
            return false;
        };
        if partial.is_none() && !is_concat {
            continue;
        }
        let computable = !info.transpose
            && matches!(
                info.kind,
                NodeKind::Data { .. }
                    | NodeKind::Load
                    | NodeKind::Broadcast
                    | NodeKind::Elementwise { .. }
                    | NodeKind::Cast
                    | NodeKind::Scalar { .. }
                    | NodeKind::Concat { .. }
            );
        if !computable {
            return false;
        }
        let mine = match (&start[n], partial) {
            (Some(s), _) => s.clone(),
            (None, None) => c(0),
            // A part that no concat of this axis reads.
            (None, Some(_)) => return false,
        };
        let operands = &graph.nodes[n].operands;
        let mut parts = Vec::new();
        if is_concat {
            let mut at = mine;
            for &o in operands {
                let Some(Some(len)) = nodes.get(o).map(|x| x.partial[axis].clone()) else {
                    return false;
                };
                parts.push((o, at.clone()));
                at = at + len;
            }
        } else {
            for &o in operands {
                if nodes.get(o).is_some_and(|x| x.partial[axis].is_some()) {
                    parts.push((o, mine.clone()));
                }
            }
        }
        for (o, s) in parts {
            match &start[o] {
                Some(_) if matches!(nodes[o].kind, NodeKind::Scalar { .. }) => {}
                Some(prev) if *prev != s => return false,
                _ => start[o] = Some(s),
            }
        }
    }
    for (info, s) in nodes.iter_mut().zip(start) {
        if let Some(s) = s {
            info.part_start = s;
        }
    }
    true
}
