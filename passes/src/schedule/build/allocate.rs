//! GE's `BufQueAllocator::AllocBufQue`: queues for loads (VECIN) and stores (VECOUT),
//! double buffered; VECCALC slots for the values the vector unit computes, reused by
//! lifetime in node order; the extra buffers (work, mask, scratch, part); and the check
//! that they fit the TPipe's buffer limit.

use super::refuse;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::*;
use autofuse_ir::graph::DType;

/// Queue, slot and extra-buffer assignment (lifetimes in node order).
pub(super) fn allocate(
    schedule: &mut Schedule,
    graph: &AscGraph,
    chip: &ChipProfile,
) -> Result<(), String> {
    let mut alloc = Allocator::new(schedule, graph);
    alloc.assign_queues(chip);
    alloc.mark_direct_stores()?;
    alloc.read_loads_from_queues();
    let staging = alloc.direct_store_staging();
    let reusable = alloc.reusable_load_tensors();
    alloc.assign_slots(&reusable, staging);
    alloc.mark_extras();
    alloc.check_buffer_budget(chip)
}

/// What the allocation steps share.
struct Allocator<'a> {
    s: &'a mut Schedule,
    graph: &'a AscGraph,
    /// Per value: the last node that reads it (stores count as a use at their own
    /// position).
    last_use: Vec<usize>,
    loads: Vec<usize>,
    stores: Vec<usize>,
}

/// The VECIN tensors of loads that values may be computed over.
struct ReusableLoads {
    /// Per node: loaded and computed per chunk of every split-reduction case (true in
    /// kernels without such cases).
    per_chunk: Vec<bool>,
    /// The queue tensors.
    tensors: Vec<Place>,
}

/// Where an elementwise value that may write over an operand goes.
enum InPlace {
    /// The slot of an operand that dies at the value.
    Slot(usize),
    /// The load tensor of the operand (a node) that dies at the value.
    LoadTensor(usize),
    /// Neither.
    None,
}

impl<'a> Allocator<'a> {
    fn new(s: &'a mut Schedule, graph: &'a AscGraph) -> Allocator<'a> {
        let count = s.nodes.len();
        // Last use of each value (stores count as a use at their own position).
        let mut last_use = vec![0usize; count];
        for (n, node) in graph.nodes.iter().enumerate() {
            for &o in &node.operands {
                if o < count {
                    last_use[o] = last_use[o].max(n);
                }
            }
        }
        // A reader of an absorbed broadcast reads the broadcast's source.
        for n in 0..count {
            if s.absorbed_broadcast(n) {
                if let Some(&src) = graph.nodes[n].operands.first() {
                    last_use[src] = last_use[src].max(last_use[n]);
                }
            }
        }
        let loads: Vec<usize> = (0..count)
            .filter(|&n| s.nodes[n].kind == NodeKind::Load)
            .collect();
        let stores: Vec<usize> = (0..count)
            .filter(|&n| s.nodes[n].kind == NodeKind::Store)
            .collect();
        Allocator {
            s,
            graph,
            last_use,
            loads,
            stores,
        }
    }

    /// A VECIN queue member per load (its raw tensor) and a VECOUT member per store
    /// (its value), spread round-robin over at most the chip's queues per position;
    /// double buffered unless that exceeds the position's buffer budget.
    fn assign_queues(&mut self, chip: &ChipProfile) {
        let max_q = chip.max_queues_per_position.max(1) as usize;
        let per_pos_buffers = chip.max_queue_buffers_per_position;
        let s = &mut *self.s;
        for (position, members) in [
            (Position::VecIn, &self.loads),
            (Position::VecOut, &self.stores),
        ] {
            if members.is_empty() {
                continue;
            }
            let queues = members.len().min(max_q);
            let first = s.queues.len();
            for _ in 0..queues {
                s.queues.push(Queue {
                    position,
                    count: 2,
                    members: Vec::new(),
                });
            }
            // Spread round-robin: each queue gets members in node order.
            for (i, &n) in members.iter().enumerate() {
                let q = first + i % queues;
                let member = s.queues[q].members.len();
                s.queues[q].members.push(n);
                let place = Place::Queue { queue: q, member };
                if position == Position::VecIn {
                    s.nodes[n].raw = place;
                } else {
                    s.nodes[n].value = place;
                }
            }
            if queues as u64 * 2 > per_pos_buffers {
                for q in &mut s.queues[first..] {
                    q.count = 1;
                }
            }
        }
    }

    /// Direct stores: a compute producer, not bool, stored once, computes straight into
    /// the store's queue member.
    fn mark_direct_stores(&mut self) -> Result<(), String> {
        let s = &mut *self.s;
        let count = s.nodes.len();
        let mut stored_once = vec![false; count];
        for &st in &self.stores {
            let Some(&p) = self.graph.nodes[st].operands.first() else {
                return refuse(format!("store {st} without operand"));
            };
            let producer = &s.nodes[p];
            let computes = matches!(
                producer.kind,
                NodeKind::Elementwise { .. }
                    | NodeKind::Cast
                    | NodeKind::Reduce { .. }
                    | NodeKind::Broadcast
                    | NodeKind::Scalar { .. }
                    | NodeKind::Arange { .. }
                    | NodeKind::Concat { .. }
                    | NodeKind::ExtractSlice { .. }
            );
            // Only a value used by nothing but its store may live in the store's queue
            // (a split-reduction pass may recompute it without the store).
            let only_use = (0..count).filter(|&x| s.operands[x].contains(&p)).count() == 1;
            if computes
                && producer.dtype != DType::Bool
                && !stored_once[p]
                && only_use
                && !s.persistent[p]
            {
                stored_once[p] = true;
                s.nodes[st].direct = true;
                s.nodes[p].value = s.nodes[st].value;
            }
        }
        Ok(())
    }

    /// Loads of non-bool values are used straight from their queue tensor (except
    /// transposing loads: `Transpose` writes a VECCALC slot).
    fn read_loads_from_queues(&mut self) {
        for &l in &self.loads {
            let load = &mut self.s.nodes[l];
            if load.dtype != DType::Bool && !load.transpose {
                load.value = load.raw;
            }
        }
    }

    /// Staging tensors of direct stores free for values computed before their
    /// producer: (producer, occupant and its last use). The VECOUT tensor is taken
    /// (AllocTensor) when the tile's compute starts, so a chain of elementwise values
    /// of the stored value's box and type can be computed in it up to the producer,
    /// which then writes over the last of them in place: one VECCALC slot fewer (a
    /// tile-sized buffer). Not in kernels with split-reduction cases (their passes
    /// compute in several stages) nor across tiling groups.
    fn direct_store_staging(&self) -> Vec<(usize, Option<(usize, usize)>)> {
        let s = &*self.s;
        if s.cases.iter().any(|c| c.reduce_split) {
            Vec::new()
        } else {
            self.stores
                .iter()
                .filter(|&&st| s.nodes[st].direct)
                .filter_map(|&st| self.graph.nodes[st].operands.first().map(|&p| (p, None)))
                .collect()
        }
    }

    /// VECIN tensors a value may be computed over once the value it holds dies: loads
    /// read straight from their queue in every tile of every case (not hoisted or
    /// resident, not transposed, not bool). The queue frees the tensor after the
    /// tile's (or chunk's) compute whatever it holds. In kernels with split-reduction
    /// cases only loads and values that vary along the split reduced axis of every
    /// such case and are no accumulator or final: those are loaded and computed per
    /// chunk, in every pass that reads them, in node order.
    fn reusable_load_tensors(&self) -> ReusableLoads {
        let s = &*self.s;
        let count = s.nodes.len();
        let in_hoist: Vec<usize> = s.cases.iter().flat_map(|c| s.in_hoist(c)).collect();
        let plans: Vec<SplitPlan> = s
            .cases
            .iter()
            .filter(|c| c.reduce_split)
            .filter_map(|c| s.split_plan(c))
            .collect();
        let every_plan = plans.len() == s.cases.iter().filter(|c| c.reduce_split).count();
        let per_chunk: Vec<bool> = (0..count)
            .map(|x| {
                every_plan
                    && !s.persistent[x]
                    && plans.iter().all(|p| p.varies.get(x) == Some(&true))
            })
            .collect();
        let tensors: Vec<Place> = self
            .loads
            .iter()
            .filter(|&&l| {
                let load = &s.nodes[l];
                !load.transpose
                    && load.dtype != DType::Bool
                    && load.value == load.raw
                    && matches!(load.raw, Place::Queue { .. })
                    && !in_hoist.contains(&l)
                    && per_chunk[l]
            })
            .map(|&l| s.nodes[l].raw)
            .collect();
        ReusableLoads { per_chunk, tensors }
    }

    /// VECCALC slots by lifetime, in node order: a value that needs one writes in
    /// place over an operand that dies at it (its slot, or the load tensor holding it),
    /// else into a direct store's staging tensor, else into a free slot (one whose
    /// values had its extent and element size first) or a new one. Values that live
    /// across chunks and passes get slots of their own.
    fn assign_slots(
        &mut self,
        reusable: &ReusableLoads,
        mut staging: Vec<(usize, Option<(usize, usize)>)>,
    ) {
        let mut pool = SlotPool::default();
        for n in 0..self.s.nodes.len() {
            pool.release_dead_before(n);
            if !self.needs_slot(n) {
                continue;
            }
            if self.s.persistent[n] {
                // Lives across chunks and passes: a slot of its own.
                let slot = pool.own(n);
                self.s.nodes[n].value = Place::Slot { slot };
                continue;
            }
            let slot = match self.in_place(n, &mut pool, reusable) {
                InPlace::LoadTensor(o) => {
                    self.s.nodes[n].value = self.s.nodes[o].value;
                    continue;
                }
                InPlace::Slot(slot) => slot,
                InPlace::None => {
                    if let Some(place) = staging_place(self.s, n, &self.last_use, &mut staging) {
                        self.s.nodes[n].value = place;
                        continue;
                    }
                    pool.free_slot_for(&self.s.nodes, n)
                }
            };
            pool.occupy(slot, n, self.last_use[n].max(n));
            self.s.nodes[n].value = Place::Slot { slot };
        }
        self.s.slots = pool.members;
    }

    /// Whether node `n` computes a value the vector unit keeps in a VECCALC slot (not
    /// placed yet, not absorbed into its readers).
    fn needs_slot(&self, n: usize) -> bool {
        let s = &*self.s;
        s.nodes[n].value == Place::None
            && !s.absorbed_scalar(n)
            && !s.absorbed_broadcast(n)
            && matches!(
                s.nodes[n].kind,
                NodeKind::Load
                    | NodeKind::Elementwise { .. }
                    | NodeKind::Cast
                    | NodeKind::Reduce { .. }
                    | NodeKind::Broadcast
                    | NodeKind::Scalar { .. }
                    | NodeKind::Arange { .. }
                    | NodeKind::Concat { .. }
                    | NodeKind::ExtractSlice { .. }
                    | NodeKind::Gather { .. }
            )
    }

    /// In place over an operand that dies at `n` (same extent and element type): its
    /// slot (taken over from `pool`), else the load tensor holding it.
    fn in_place(&self, n: usize, pool: &mut SlotPool, reusable: &ReusableLoads) -> InPlace {
        let s = &*self.s;
        let last_use = &self.last_use;
        let NodeKind::Elementwise { op } = &s.nodes[n].kind else {
            return InPlace::None;
        };
        if !writes_in_place(op, s.nodes[n].dtype) {
            return InPlace::None;
        }
        let same_box = |o: usize| {
            last_use[o] == n
                && s.nodes[o].full == s.nodes[n].full
                && s.nodes[o].partial == s.nodes[n].partial
                && ub_dtype(s.nodes[o].dtype) == ub_dtype(s.nodes[n].dtype)
        };
        let operands = &self.graph.nodes[n].operands;
        for &o in operands {
            if !same_box(o) {
                continue;
            }
            if let Place::Slot { slot } = s.nodes[o].value {
                // Still live: take it over.
                if pool.take_over(slot) {
                    return InPlace::Slot(slot);
                }
            }
        }
        let over_load = operands.iter().copied().find(|&o| {
            same_box(o)
                && reusable.per_chunk[n]
                && reusable.tensors.contains(&s.nodes[o].value)
                && tiling_group(s, o) == tiling_group(s, n)
        });
        over_load.map_or(InPlace::None, InPlace::LoadTensor)
    }

    /// The extra buffers the ops need: work (reductions of the innermost axis),
    /// scratch, mask (compares, selects, bool casts) and part (split reductions).
    fn mark_extras(&mut self) {
        let s = &mut *self.s;
        let graph = self.graph;
        for (n, info) in s.nodes.iter().enumerate() {
            let operand_dtype = graph.nodes[n]
                .operands
                .first()
                .map(|&o| graph.nodes[o].dtype);
            match &info.kind {
                NodeKind::Reduce { reduced, .. } => {
                    let last = s.axes.len() - 1;
                    if reduced.contains(&last) {
                        s.extras.work = true;
                        if reduced.len() > 1 {
                            s.extras.scratch = true;
                        }
                    } else if !reduced.is_empty() {
                        // af::TreeCombineRows: half of an output row's source rows.
                        s.extras.work = true;
                    }
                    if matches!(info.kind, NodeKind::Reduce { ref op, .. } if op == "mean") {
                        // Muls by 1/N needs nothing extra.
                    }
                }
                NodeKind::Elementwise { op } => {
                    if compare_supported(op) || matches!(op.as_str(), "select" | "where") {
                        s.extras.mask = true;
                    }
                    if scratch_factor(&info.kind, info.dtype, operand_dtype) > 0 {
                        s.extras.scratch = true;
                    }
                }
                NodeKind::Cast => {
                    let from = operand_dtype.unwrap_or(info.dtype);
                    if info.dtype == DType::Bool || from == DType::Bool {
                        s.extras.mask = true;
                    }
                    if scratch_factor(&info.kind, info.dtype, operand_dtype) > 0 {
                        s.extras.scratch = true;
                    }
                }
                NodeKind::Load if info.transpose => s.extras.scratch = true,
                NodeKind::Store if !info.direct && info.dtype == DType::Bool => {}
                _ => {}
            }
        }
        s.extras.part = s.cases.iter().any(|c| c.reduce_split);
    }

    /// Counts the buffers, adding the scratch buffer where splats use one, and refuses
    /// more than the chip's TPipe holds.
    fn check_buffer_budget(&mut self, chip: &ChipProfile) -> Result<(), String> {
        let s = &mut *self.s;
        let mut buffers = buffer_count(&s.queues, s.slots.len(), &s.extras) + u64::from(s.hoists());
        // An absorbed splat reads Brcb blocks of its row scalars from the scratch buffer.
        let absorbed_splat = (0..s.nodes.len()).any(|n| {
            s.absorbed_broadcast(n)
                && s.operands[n]
                    .first()
                    .is_some_and(|&src| s.nodes[src].full.last() == Some(&false))
        });
        if absorbed_splat && !s.extras.scratch {
            s.extras.scratch = true;
            buffers += 1;
        }
        if !s.extras.scratch && buffers < chip.max_buffers {
            // Row splats take a constant number of calls with a scratch buffer of
            // blocks (af::SplatRows); without a free buffer they go row by row.
            let operands: Vec<Vec<usize>> = self
                .graph
                .nodes
                .iter()
                .map(|n| n.operands.clone())
                .collect();
            let splats = (0..s.nodes.len()).any(|n| {
                s.nodes[n].kind == NodeKind::Broadcast
                    && s.cases.iter().any(|case| s.splats_rows(case, n, &operands))
            });
            if splats {
                s.extras.scratch = true;
                buffers += 1;
            }
        }
        if buffers > chip.max_buffers {
            return refuse(format!(
                "{buffers} buffers exceed the TPipe limit of {}",
                chip.max_buffers
            ));
        }
        Ok(())
    }
}

/// VECCALC slots while values are placed in node order.
#[derive(Default)]
struct SlotPool {
    /// The values of each slot.
    members: Vec<Vec<usize>>,
    /// Slots whose values died.
    free: Vec<usize>,
    /// Slots holding a live value, with its last use.
    live_until: Vec<(usize, usize)>,
}

impl SlotPool {
    /// Releases the slots whose value died before node `n`.
    fn release_dead_before(&mut self, n: usize) {
        let mut i = 0;
        while i < self.live_until.len() {
            if self.live_until[i].1 < n {
                self.free.push(self.live_until[i].0);
                self.live_until.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// A new slot that only `n` uses.
    fn own(&mut self, n: usize) -> usize {
        self.members.push(vec![n]);
        self.members.len() - 1
    }

    /// Takes over `slot` when it holds a live value (which dies at the taker).
    fn take_over(&mut self, slot: usize) -> bool {
        match self.live_until.iter().position(|&(s, _)| s == slot) {
            Some(pos) => {
                self.live_until.swap_remove(pos);
                true
            }
            None => false,
        }
    }

    /// A free slot for node `n`, preferring one whose members have its extent and
    /// element size; a new slot when none is free.
    fn free_slot_for(&mut self, nodes: &[NodeInfo], n: usize) -> usize {
        let (members, free) = (&mut self.members, &mut self.free);
        let same = free.iter().position(|&s| {
            members[s].iter().all(|&m| {
                nodes[m].full == nodes[n].full && ub_size(nodes[m].dtype) == ub_size(nodes[n].dtype)
            })
        });
        match same.or(if free.is_empty() { None } else { Some(0) }) {
            Some(i) => free.swap_remove(i),
            None => {
                members.push(Vec::new());
                members.len() - 1
            }
        }
    }

    /// Puts `n` in `slot` until its last use `until`.
    fn occupy(&mut self, slot: usize, n: usize, until: usize) {
        self.members[slot].push(n);
        self.live_until.push((slot, until));
    }
}

/// The tiling group of node `n` (`None` outside grouped kernels).
fn tiling_group(s: &Schedule, n: usize) -> Option<&str> {
    s.node_groups.get(n).and_then(|g| g.as_deref())
}

/// The staging tensor of a direct store that value `n` may live in: `n` is an
/// elementwise value (no compare), a cast or the tile layout of a transposing load
/// computed before the store's producer `p`, with `p`'s box and UB type, dead before
/// `p` (or read last by `p` when `p` writes in place), and the tensor is free at `n`
/// (its occupant died before `n`, or is an operand that dies at `n` and `n` writes in
/// place).
fn staging_place(
    s: &Schedule,
    n: usize,
    last_use: &[usize],
    staging: &mut [(usize, Option<(usize, usize)>)],
) -> Option<Place> {
    let writes_over_operand = |x: usize| matches!(&s.nodes[x].kind, NodeKind::Elementwise { op } if writes_in_place(op, s.nodes[x].dtype));
    let info = &s.nodes[n];
    let in_place = writes_over_operand(n);
    // A transposing load's `Transpose` reads its raw queue tensor only.
    let transposed = info.kind == NodeKind::Load && info.transpose;
    if !(in_place || transposed || info.kind == NodeKind::Cast) || info.dtype == DType::Bool {
        return None;
    }
    for (p, occupant) in staging.iter_mut() {
        let p = *p;
        let target = &s.nodes[p];
        let fits = n < p
            && target.full == info.full
            && target.partial == info.partial
            && ub_dtype(target.dtype) == ub_dtype(info.dtype)
            && s.node_groups.get(n) == s.node_groups.get(p)
            && (last_use[n] < p || (last_use[n] == p && writes_over_operand(p)));
        // The occupant may be an operand that dies at `n` when `n` writes in place
        // (a cast never does: its narrow and wide elements do not line up).
        let free = match *occupant {
            None => true,
            Some((_, dies)) => dies < n || (dies == n && in_place),
        };
        if fits && free && matches!(target.value, Place::Queue { .. }) {
            *occupant = Some((n, last_use[n].max(n)));
            return Some(target.value);
        }
    }
    None
}
