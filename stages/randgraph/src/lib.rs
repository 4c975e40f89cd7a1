//! A generator of random well-typed `ascend` graphs for differential testing.
//!
//! Graphs mix elementwise ops, compares with select, cast round trips, broadcasts,
//! reductions, reshapes, transposes, concats, slices, gathers, ranges and composites,
//! and every other op of the `ascend` catalogue (`Gen::catalogue_step`), over random
//! static and symbolic shapes and random float dtypes. Result types are computed with the same shape rules the
//! verifier uses, and printed with `#ascend.dims` encodings. Values are kept in ranges
//! where every op is defined (sqrt of abs, division by 1+|y|, ...), so that differences
//! between two executions are rounding, never NaN against a number.

use autofuse_ascend::shape::{infer, OpShapeQuery};
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_ir::tensor::SplitMix64;
use autofuse_symbolic::{Expr, ShapeEnv};
use std::collections::BTreeMap;
use std::fmt::Write;

mod catalogue;

/// A generated graph: its MLIR text and how to bind its symbols at run time.
pub struct RandomGraph {
    pub text: String,
    pub inputs: Vec<TensorType>,
    /// Per input: the rows of the table it holds ids into (`Gen::embedding_step`), whose
    /// ids `random_inputs` draws from `[-rows, rows)`; None for data inputs.
    pub id_rows: Vec<Option<Dim>>,
    /// Symbol names used by the inputs.
    pub symbols: Vec<String>,
    pub dtype: DType,
}

impl RandomGraph {
    /// The symbol values of trial `trial` of graph `seed`: 1, odd sizes and sizes beyond
    /// one 32-byte block, varied per symbol so that different dims differ.
    pub fn trial_symbols(&self, seed: u64, trial: u64) -> std::collections::HashMap<String, i64> {
        self.symbols
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let v = match (seed + trial + i as u64) % 3 {
                    0 => 1 + (seed * 7 + trial) % 5,
                    1 => 9 + (seed * 13 + trial * 5 + i as u64) % 31,
                    _ => 33 + (seed * 3 + trial * 11) % 40,
                };
                (name.clone(), v as i64)
            })
            .collect()
    }

    /// Inputs for `symbols`: `random_tensors` with `seed`, except that id inputs draw
    /// uniformly from `[-rows, rows)` of their table (negative ids count from the end),
    /// so that lookups are valid and repeat when there are more ids than rows.
    pub fn random_inputs(
        &self,
        symbols: &std::collections::HashMap<String, i64>,
        seed: u64,
    ) -> Result<Vec<autofuse_ir::tensor::Tensor>, String> {
        let mut inputs = autofuse_runner::execute::random_tensors(&self.inputs, symbols, seed)?;
        for (i, rows) in self.id_rows.iter().enumerate() {
            let Some(rows) = rows else { continue };
            let rows = match rows {
                Dim::Known(e) => e.eval_map(symbols).map_err(|e| e.to_string())?,
                Dim::Unknown => return Err("an id input's table has an unknown row count".into()),
            };
            let shape = autofuse_runner::execute::concrete_shape(&self.inputs[i], symbols)?;
            inputs[i] = autofuse_ir::tensor::Tensor::random_uniform(
                DType::I32,
                shape,
                seed + i as u64,
                -(rows as f64),
                rows as f64,
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(inputs)
    }
}

/// A generation step that derives a new value from one of the graph's values.
type Step = fn(&mut Gen, &Val) -> Option<Val>;

struct Gen {
    rng: SplitMix64,
    body: String,
    next: usize,
    env: ShapeEnv,
    /// The graph's arguments (exact values: discontinuous ops read only these).
    args: Vec<Val>,
    /// Arguments added by steps after the data inputs: ids, with their table's rows.
    id_args: Vec<(TensorType, Dim)>,
}

#[derive(Clone)]
struct Val {
    name: String,
    ty: TensorType,
}

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Emits `op`; returns None when the shape rules reject the combination.
    fn op(
        &mut self,
        op: &str,
        operands: &[&Val],
        attrs: &[(&str, &str)],
        dtype: Option<DType>,
        declared: Option<TensorType>,
    ) -> Option<Val> {
        let mut parsed = BTreeMap::new();
        for (k, v) in attrs {
            parsed.insert(k.to_string(), autofuse_ir::attr::parse_attr(v).ok()?);
        }
        let types: Vec<TensorType> = operands.iter().map(|v| v.ty.clone()).collect();
        let declared = declared.unwrap_or_else(|| {
            TensorType::new(dtype.unwrap_or(types[0].dtype), types[0].dims.clone())
        });
        let query = OpShapeQuery {
            op,
            operands: &types,
            attrs: &parsed,
            declared: std::slice::from_ref(&declared),
        };
        let ty = infer(&query, &mut self.env).ok()?.pop()?;
        let name = format!("%v{}", self.next);
        self.next += 1;
        let args: Vec<&str> = operands.iter().map(|v| v.name.as_str()).collect();
        let arg_types: Vec<String> = types.iter().map(TensorType::to_mlir).collect();
        let attr_text = if attrs.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = attrs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!(" {{{}}}", list.join(", "))
        };
        let _ = writeln!(
            self.body,
            "  {name} = \"{op}\"({}){attr_text} : ({}) -> {}",
            args.join(", "),
            arg_types.join(", "),
            ty.to_mlir()
        );
        Some(Val { name, ty })
    }

    fn scalar(&mut self, value: f64, dtype: DType) -> Val {
        let ty = TensorType::new(dtype, Vec::new());
        let name = format!("%v{}", self.next);
        self.next += 1;
        let literal = if dtype.is_float() {
            format!("{value:.6e}")
        } else {
            format!("{}", value as i64)
        };
        let _ = writeln!(
            self.body,
            "  {name} = \"ascend.constant\"() {{value = dense<{literal}> : {}}} : () -> {}",
            ty.to_mlir(),
            ty.to_mlir()
        );
        Val { name, ty }
    }

    /// Keeps values in a safe range: x / (1 + |x|) is in (-1, 1).
    fn squash(&mut self, x: &Val) -> Option<Val> {
        let one = self.scalar(1.0, x.ty.dtype);
        let abs = self.op("ascend.abs", &[x], &[], None, None)?;
        let den = self.op("ascend.add", &[&abs, &one], &[], None, None)?;
        self.op("ascend.div", &[x, &den], &[], None, None)
    }

    /// One step of the graph's main stream: derives a value from a random value `x`
    /// (and sometimes a second one) by one of 14 kinds of op and appends it to `values`;
    /// None when the shape rules reject the draw.
    fn step(&mut self, values: &mut Vec<Val>) -> Option<()> {
        let pick = self.below(values.len() as u64) as usize;
        let x = values[pick].clone();
        let other = values[self.below(values.len() as u64) as usize].clone();
        let rank = x.ty.rank();
        let choice = self.below(14);
        let out = match choice {
            0 => self.unary_step(&x)?,
            1 => self.sqrt_or_exp_step(&x)?,
            2 | 3 => self.binary_step(&x, &other)?,
            4 => self.safe_div_step(&x, &other)?,
            5 => self.compare_select_step(&x, &other)?,
            6 => self.cast_round_trip_step(&x)?,
            7 | 8 if rank > 0 => self.reduce_step(&x)?,
            9 if rank > 0 => self.softmax_step(&x)?,
            10 if rank > 0 => self.norm_step(&x)?,
            11 => self.gelu_or_silu_step(&x)?,
            12 if rank > 0 => {
                // unsqueeze then squeeze back: exercises the view ops.
                let u = self.op("ascend.unsqueeze", &[&x], &[("axes", "[0]")], None, None)?;
                self.op("ascend.squeeze", &[&u], &[("axes", "[0]")], None, None)?
            }
            13 if rank >= 2 => self.reshape_round_trip_step(&x)?,
            _ => return None,
        };
        values.push(out);
        Some(())
    }

    /// A unary op of `x` defined everywhere.
    fn unary_step(&mut self, x: &Val) -> Option<Val> {
        let ops = [
            "ascend.abs",
            "ascend.neg",
            "ascend.relu",
            "ascend.sigmoid",
            "ascend.tanh",
            "ascend.erf",
            "ascend.square",
        ];
        let op = ops[self.below(ops.len() as u64) as usize];
        self.op(op, &[x], &[], None, None)
    }

    /// sqrt or exp of `|x|`, squashed.
    fn sqrt_or_exp_step(&mut self, x: &Val) -> Option<Val> {
        let abs = self.op("ascend.abs", &[x], &[], None, None)?;
        let op = if self.chance(50) {
            "ascend.sqrt"
        } else {
            "ascend.exp"
        };
        let v = self.op(op, &[&abs], &[], None, None)?;
        self.squash(&v)
    }

    /// A broadcasting binary op of `x` and `other`.
    fn binary_step(&mut self, x: &Val, other: &Val) -> Option<Val> {
        let ops = [
            "ascend.add",
            "ascend.sub",
            "ascend.mul",
            "ascend.maximum",
            "ascend.minimum",
        ];
        let op = ops[self.below(ops.len() as u64) as usize];
        self.op(op, &[x, other], &[], None, None)
    }

    /// `x / (1 + |other|)`: a division whose divisor is at least 1.
    fn safe_div_step(&mut self, x: &Val, other: &Val) -> Option<Val> {
        let one = self.scalar(1.0, x.ty.dtype);
        let abs = self.op("ascend.abs", &[other], &[], None, None)?;
        let den = self.op("ascend.add", &[&abs, &one], &[], None, None)?;
        self.op("ascend.div", &[x, &den], &[], None, None)
    }

    /// A compare of `x` and `other` selecting between them.
    fn compare_select_step(&mut self, x: &Val, other: &Val) -> Option<Val> {
        let ops = ["ascend.lt", "ascend.ge", "ascend.gt"];
        let op = ops[self.below(ops.len() as u64) as usize];
        let cond = self.op(op, &[x, other], &[], None, None)?;
        self.op("ascend.select", &[&cond, x, other], &[], None, None)
    }

    /// A cast of `x` to another float type and back.
    fn cast_round_trip_step(&mut self, x: &Val) -> Option<Val> {
        let via = if x.ty.dtype == DType::F32 {
            DType::F16
        } else {
            DType::F32
        };
        let narrow = self.op("ascend.cast", &[x], &[], Some(via), None)?;
        self.op("ascend.cast", &[&narrow], &[], Some(x.ty.dtype), None)
    }

    /// A reduction of `x` over one axis (kept), brought back to the full shape through
    /// an elementwise op with `x`.
    fn reduce_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        let ops = [
            "ascend.reduce_sum",
            "ascend.reduce_max",
            "ascend.reduce_min",
            "ascend.reduce_mean",
        ];
        let op = ops[self.below(ops.len() as u64) as usize];
        let axis = self.below(rank as u64);
        let axes = format!("[{axis}]");
        let r = self.op(
            op,
            &[x],
            &[("axes", &axes), ("keep_dims", "true")],
            None,
            None,
        )?;
        if op == "ascend.reduce_sum" {
            let s = self.squash(&r)?;
            self.op("ascend.add", &[x, &s], &[], None, None)
        } else {
            self.op("ascend.sub", &[x, &r], &[], None, None)
        }
    }

    /// softmax, or squashed log_softmax, of `x` along a random axis.
    fn softmax_step(&mut self, x: &Val) -> Option<Val> {
        let axis = format!("{} : i64", self.below(x.ty.rank() as u64));
        let op = if self.chance(50) {
            "ascend.softmax"
        } else {
            "ascend.log_softmax"
        };
        let v = self.op(op, &[x], &[("axis", &axis)], None, None)?;
        if op == "ascend.log_softmax" {
            self.squash(&v)
        } else {
            Some(v)
        }
    }

    /// layer_norm or rms_norm of `x` over its innermost axis, with scalar weights.
    fn norm_step(&mut self, x: &Val) -> Option<Val> {
        let axis = x.ty.rank() - 1;
        let g = self.scalar(1.5, x.ty.dtype);
        let b = self.scalar(0.25, x.ty.dtype);
        let ax = format!("{axis} : i64");
        if self.chance(50) {
            self.op(
                "ascend.layer_norm",
                &[x, &g, &b],
                &[("axis", &ax), ("epsilon", "1.0e-05 : f32")],
                None,
                None,
            )
        } else {
            self.op(
                "ascend.rms_norm",
                &[x, &g],
                &[("axis", &ax), ("epsilon", "1.0e-05 : f32")],
                None,
                None,
            )
        }
    }

    /// gelu (exact or tanh; the form is drawn either way) or silu of `x`.
    fn gelu_or_silu_step(&mut self, x: &Val) -> Option<Val> {
        let forms = ["\"none\"", "\"tanh\""];
        let form = forms[self.below(2) as usize];
        if self.chance(50) {
            self.op("ascend.gelu", &[x], &[("approximate", form)], None, None)
        } else {
            self.op("ascend.silu", &[x], &[], None, None)
        }
    }

    /// `x` reshaped with its two innermost dims merged, abs, and reshaped back.
    fn reshape_round_trip_step(&mut self, x: &Val) -> Option<Val> {
        let mut dims = x.ty.dims.clone();
        let last = dims.pop()?;
        let prev = dims.pop()?;
        let merged = match (prev.expr(), last.expr()) {
            (Some(a), Some(b)) => Dim::Known(a.clone() * b.clone()),
            _ => return None,
        };
        dims.push(merged);
        let flat = TensorType::new(x.ty.dtype, dims);
        let r = self.op("ascend.reshape", &[x], &[], None, Some(flat))?;
        let e = self.op("ascend.abs", &[&r], &[], None, None)?;
        self.op("ascend.reshape", &[&e], &[], None, Some(x.ty.clone()))
    }

    /// A transpose or concat step on `x` (drawn from its own random stream, after the
    /// rest of the graph, so the other ops of a seed stay what they were):
    /// - transpose, neg, transpose back: rank 3 keeps the innermost axis (a strided
    ///   load) or moves it outermost (`[2, 1, 0]`, `[2, 0, 1]` and back), rank 2 swaps
    ///   the two axes (moves of the innermost axis: f32/f16 UB `Transpose` of 2-D
    ///   blocks; bf16: a graph op); each fuses with the neg on one side, the other transpose stays a
    ///   graph op (a kernel holds at most one transpose);
    /// - concat of `abs(x)` and `x` (and sometimes `-x`: a chain) on any axis, the
    ///   outermost too, then relu, sometimes summed over the concat axis. The slab (the
    ///   concat axis and later dims) must be static: the parts all read `x`'s one load,
    ///   so tiles cannot split the concat axis (`docs/schedule.md`), and a symbolic slab
    ///   may outgrow UB for the large symbol values of the property test and run on the
    ///   interpreter.
    fn layout_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        if rank < 2 {
            return None;
        }
        if self.chance(50) {
            let (perm, back) = match (rank, self.below(3)) {
                (3, 0) => ("[1, 0, 2]", "[1, 0, 2]"),
                (3, 1) => ("[2, 1, 0]", "[2, 1, 0]"),
                (3, _) => ("[2, 0, 1]", "[1, 2, 0]"),
                _ => ("[1, 0]", "[1, 0]"),
            };
            let t = self.op("ascend.transpose", &[x], &[("perm", perm)], None, None)?;
            let e = self.op("ascend.neg", &[&t], &[], None, None)?;
            return self.op("ascend.transpose", &[&e], &[("perm", back)], None, None);
        }
        let axis = self.below(rank as u64) as usize;
        if x.ty.dims[axis..].iter().any(|d| d.as_const().is_none()) {
            return None;
        }
        let attr = format!("{axis} : i64");
        let a = self.op("ascend.abs", &[x], &[], None, None)?;
        let mut c = self.op("ascend.concat", &[&a, x], &[("axis", &attr)], None, None)?;
        if self.chance(40) {
            // A third part: an n-ary concat as exporters write it (a chain).
            let n = self.op("ascend.neg", &[x], &[], None, None)?;
            c = self.op("ascend.concat", &[&c, &n], &[("axis", &attr)], None, None)?;
        }
        let r = self.op("ascend.relu", &[&c], &[], None, None)?;
        if self.chance(40) {
            // A reduction over the joined axis (a norm over concatenated features).
            let axes = format!("[{axis}]");
            return self.op(
                "ascend.reduce_sum",
                &[&r],
                &[("axes", &axes), ("keep_dims", "true")],
                None,
                None,
            );
        }
        Some(r)
    }
}

impl Gen {
    /// A slice step on `x` (its own random stream, like the layout step):
    /// - rotate_half along the static innermost dim: the two parts (split at the
    ///   middle, the first part the shorter when the dim is odd), the second negated,
    ///   concatenated before the first, plus `x` (a rotary embedding's shape);
    /// - `x[1:]` (or `x[:-1]`, or every second element) along a static outer dim, or the
    ///   last element of the static innermost dim (`x[..., n-1:n]`), then abs.
    fn slice_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        if rank == 0 {
            return None;
        }
        let slice = |g: &mut Gen, x: &Val, axis: usize, start: i64, end: i64, step: i64| {
            let (starts, ends) = (format!("[{start}]"), format!("[{end}]"));
            let (axes, steps) = (format!("[{axis}]"), format!("[{step}]"));
            g.op(
                "ascend.slice",
                &[x],
                &[
                    ("starts", &starts),
                    ("ends", &ends),
                    ("axes", &axes),
                    ("steps", &steps),
                ],
                None,
                None,
            )
        };
        let last = rank - 1;
        if self.chance(50) {
            let n = x.ty.dims[last].as_const().filter(|&n| n >= 2)?;
            let h = n / 2;
            let first = slice(self, x, last, 0, h, 1)?;
            let second = slice(self, x, last, h, i64::from(i32::MAX), 1)?;
            let negated = self.op("ascend.neg", &[&second], &[], None, None)?;
            let attr = format!("{last} : i64");
            let rotated = self.op(
                "ascend.concat",
                &[&negated, &first],
                &[("axis", &attr)],
                None,
                None,
            )?;
            return self.op("ascend.add", &[&rotated, x], &[], None, None);
        }
        let axis = self.below(rank as u64) as usize;
        let n = x.ty.dims[axis].as_const().filter(|&n| n >= 2)?;
        let part = match self.below(4) {
            0 => slice(self, x, axis, 1, n, 1)?,
            1 => slice(self, x, axis, 0, -1, 1)?,
            // One element of the innermost dim: rows of one element.
            3 if axis == last && rank >= 2 => slice(self, x, axis, n - 1, n, 1)?,
            _ if axis != last => slice(self, x, axis, 0, n, 2)?,
            _ => slice(self, x, axis, -n, n, 1)?,
        };
        self.op("ascend.abs", &[&part], &[], None, None)
    }

    /// A constant pad of `x` (a random value in [-2, 2)) by 0 to 3 elements before and
    /// after one axis (a quarter of the time two axes), then squared.
    fn pad_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        if rank == 0 || !x.ty.dtype.is_float() {
            return None;
        }
        let mut pads = vec![0i64; 2 * rank];
        let axes = if rank >= 2 && self.chance(25) { 2 } else { 1 };
        for _ in 0..axes {
            let axis = self.below(rank as u64) as usize;
            pads[axis] = self.below(4) as i64;
            pads[rank + axis] = 1 + self.below(3) as i64;
        }
        let value = self.below(16) as f64 / 4.0 - 2.0;
        // Debug of a Vec<i64> is the attribute text: [0, 3, 0, 5].
        let pads_text = format!("{pads:?}");
        let value_text = format!("{value:?} : f64");
        let padded = self.op(
            "ascend.pad",
            &[x],
            &[
                ("pads", &pads_text),
                ("mode", "\"constant\""),
                ("value", &value_text),
            ],
            None,
            None,
        )?;
        self.op("ascend.mul", &[&padded, &padded], &[], None, None)
    }

    /// An embedding lookup of `x`'s rows by computed ids: `x` is the table, the ids an
    /// i32 range over its first dim counting down from `start` (so that some are
    /// negative: they count from the end), gathered along axis 0 and added to `x`. For
    /// rank 1 the gather is along the innermost axis and stays a graph op.
    fn gather_step(&mut self, x: &Val) -> Option<Val> {
        let rows = x.ty.dims.first()?.clone();
        // ids = start, start - 1, ..: within [-rows, rows) for start in [-1, rows).
        let start = match rows.as_const() {
            Some(n) => self.below(n as u64 + 1) as i64 - 1,
            None => -1,
        };
        let start = format!("{start} : i64");
        let ids = self.op(
            "ascend.range",
            &[],
            &[("start", &start), ("delta", "-1 : i64")],
            None,
            Some(TensorType::new(DType::I32, vec![rows])),
        )?;
        let picked = self.op(
            "ascend.gather",
            &[x, &ids],
            &[("axis", "0 : i64")],
            None,
            None,
        )?;
        self.op("ascend.add", &[&picked, x], &[], None, None)
    }

    /// An embedding lookup by loaded ids: a new i32 argument of 8 to 300 ids (often more
    /// than the table has rows: ids repeat, as token ids do) picks rows of `x` (rank 2 or
    /// more, so that a row is contiguous) along axis 0; the picked rows are squared. The
    /// ids are drawn from the table's whole row range (`RandomGraph::random_inputs`).
    fn embedding_step(&mut self, x: &Val) -> Option<Val> {
        if x.ty.rank() < 2 {
            return None;
        }
        let rows = x.ty.dims.first()?.clone();
        let count = 8 + self.below(293) as i64;
        let ids_ty = TensorType::new(DType::I32, vec![Dim::constant(count)]);
        let ids = Val {
            name: format!("%arg{}", self.args.len() + self.id_args.len()),
            ty: ids_ty.clone(),
        };
        let picked = self.op(
            "ascend.gather",
            &[x, &ids],
            &[("axis", "0 : i64")],
            None,
            None,
        )?;
        self.id_args.push((ids_ty, rows));
        self.op("ascend.mul", &[&picked, &picked], &[], None, None)
    }

    /// Adds a position-dependent ramp to `x` along one of its axes: an i32 range of that
    /// dim (random start and step), unsqueezed to `x`'s rank, cast to `x`'s type,
    /// scaled by 1/64 and added (what position ids and masks look like to the compiler).
    fn range_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        if rank == 0 {
            return None;
        }
        let axis = self.below(rank as u64) as usize;
        let length = x.ty.dims[axis].clone();
        let start = format!("{} : i64", self.below(7) as i64 - 3);
        let delta = format!("{} : i64", [1i64, 2, -1, 3][self.below(4) as usize]);
        let range = self.op(
            "ascend.range",
            &[],
            &[("start", &start), ("delta", &delta)],
            None,
            Some(TensorType::new(DType::I32, vec![length])),
        )?;
        let axes: Vec<String> = (0..rank)
            .filter(|&k| k != axis)
            .map(|k| k.to_string())
            .collect();
        let shaped = if axes.is_empty() {
            range
        } else {
            let axes = format!("[{}]", axes.join(", "));
            self.op(
                "ascend.unsqueeze",
                &[&range],
                &[("axes", &axes)],
                None,
                None,
            )?
        };
        let cast = self.op("ascend.cast", &[&shaped], &[], Some(x.ty.dtype), None)?;
        let scale = self.scalar(1.0 / 64.0, x.ty.dtype);
        let ramp = self.op("ascend.mul", &[&cast, &scale], &[], None, None)?;
        self.op("ascend.add", &[x, &ramp], &[], None, None)
    }
}

/// Generates a random graph from `seed` with at most `max_ops` generation steps.
pub fn generate(seed: u64, max_ops: usize) -> RandomGraph {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        body: String::new(),
        next: 0,
        env: ShapeEnv::new(),
        args: Vec::new(),
        id_args: Vec::new(),
    };
    let rank = 1 + g.below(3) as usize;
    let dtype = match g.below(10) {
        0..=5 => DType::F32,
        6..=8 => DType::F16,
        _ => DType::BF16,
    };
    let mut symbols = Vec::new();
    let full: Vec<Dim> = (0..rank)
        .map(|i| {
            if g.chance(50) {
                let name = format!("s{i}");
                symbols.push(name.clone());
                Dim::Known(Expr::symbol(&name))
            } else {
                Dim::constant(1 + g.below(9) as i64)
            }
        })
        .collect();
    let input_count = 1 + g.below(3) as usize;
    let mut inputs = Vec::new();
    for i in 0..input_count {
        // Later inputs may broadcast: drop leading dims or set some to 1.
        let mut dims = full.clone();
        if i > 0 && g.chance(50) {
            let drop = g.below(rank as u64) as usize;
            dims.drain(..drop);
            for d in dims.iter_mut() {
                if g.chance(30) {
                    *d = Dim::constant(1);
                }
            }
        }
        inputs.push(TensorType::new(dtype, dims));
    }
    let mut values: Vec<Val> = inputs
        .iter()
        .enumerate()
        .map(|(i, ty)| Val {
            name: format!("%arg{i}"),
            ty: ty.clone(),
        })
        .collect();
    g.args = values.clone();
    // The first value has the full shape; make sure later ones broadcast against it.
    let steps = 1 + g.below(max_ops.max(1) as u64) as usize;
    let mut attempts = 0;
    let mut done = 0;
    while done < steps && attempts < steps * 8 {
        attempts += 1;
        if g.step(&mut values).is_some() {
            done += 1;
        }
    }
    // Outputs: the last value, and sometimes another intermediate one.
    let mut outputs = vec![values.len() - 1];
    if values.len() > input_count + 1 && g.chance(40) {
        outputs.push(input_count + g.below((values.len() - input_count - 1) as u64) as usize);
    }
    // Each extra step draws from its own stream (seeded from the graph's), so adding one
    // leaves the others' graphs as they were.
    let extra_steps: [(u64, u64, Step); 9] = [
        // Half also return a transpose or concat of one of their values.
        (0x7a3c_91e5_0f1d_2b47, 50, Gen::layout_step),
        // A third a value plus a ramp computed from a range of one of its dims.
        (0x3f6d_0b2c_95a1_e847, 33, Gen::range_step),
        // A quarter slices of one of their values.
        (0x51ce_d00d_6a2b_1c93, 25, Gen::slice_step),
        // A fifth a gather of one of their values by computed ids.
        (0x0ea7_be11_2c4d_9a61, 20, Gen::gather_step),
        // A fifth a constant pad of one of their values, squared.
        (0x9ad0_c0de_77e1_3b25, 20, Gen::pad_step),
        // A fifth an embedding lookup of one of their values by loaded ids.
        (0x1d5e_a11c_e0b7_4f29, 20, Gen::embedding_step),
        // Three draws of the rest of the catalogue, 60% each.
        (0x6c1b_a7f3_d2e0_4859, 60, Gen::catalogue_step),
        (0x2d95_4e0b_c8a7_13f6, 60, Gen::catalogue_step),
        (0x48e3_1f07_b5c9_d26a, 60, Gen::catalogue_step),
    ];
    for (salt, percent, step) in extra_steps {
        g.rng = SplitMix64::new(seed ^ salt);
        if g.chance(percent) {
            let x = values[g.below(values.len() as u64) as usize].clone();
            if let Some(v) = step(&mut g, &x) {
                values.push(v);
                outputs.push(values.len() - 1);
            }
        }
    }
    let mut id_rows: Vec<Option<Dim>> = vec![None; inputs.len()];
    for (ty, rows) in std::mem::take(&mut g.id_args) {
        inputs.push(ty);
        id_rows.push(Some(rows));
    }
    let args: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%arg{i}: {}", t.to_mlir()))
        .collect();
    let result_types: Vec<String> = outputs.iter().map(|&o| values[o].ty.to_mlir()).collect();
    let result_names: Vec<String> = outputs.iter().map(|&o| values[o].name.clone()).collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "func.func @main({}) -> ({}) {{",
        args.join(", "),
        result_types.join(", ")
    );
    text.push_str(&g.body);
    let _ = writeln!(
        text,
        "  return {} : {}",
        result_names.join(", "),
        result_types.join(", ")
    );
    text.push_str("}\n");
    RandomGraph {
        text,
        inputs,
        id_rows,
        symbols,
        dtype,
    }
}

#[cfg(test)]
mod tests {
    use super::generate;

    /// The differential and end-to-end tests see transposes of both kinds (keeping and
    /// moving the innermost axis), concats, ranges, slices, gathers and pads.
    #[test]
    fn graphs_include_transposes_concats_and_ranges() {
        let texts: Vec<String> = (0..200).map(|seed| generate(seed, 6).text).collect();
        let count = |needle: &str| texts.iter().filter(|t| t.contains(needle)).count();
        assert!(count("perm = [1, 0, 2]") >= 5, "too few lowered transposes");
        assert!(
            count("perm = [2, 1, 0]") >= 3 && count("perm = [2, 0, 1]") >= 3,
            "too few transposes that move the innermost axis outermost"
        );
        assert!(
            count("perm = [1, 0]}") >= 5,
            "too few innermost-moving transposes"
        );
        assert!(count("\"ascend.concat\"") >= 10, "too few concats");
        assert!(count("\"ascend.range\"") >= 30, "too few ranges");
        assert!(count("\"ascend.slice\"") >= 20, "too few slices");
        assert!(
            texts.iter().any(|t| t
                .lines()
                .any(|l| l.contains("\"ascend.slice\"") && l.contains("x1xf"))),
            "no slice keeps one element of the innermost dim"
        );
        assert!(count("\"ascend.gather\"") >= 10, "too few gathers");
        assert!(count("\"ascend.pad\"") >= 10, "too few pads");
        // Embedding lookups by ids the graph receives (an i32 argument), with a table of
        // rank 2 or more: the row cache's case.
        let by_loaded_ids = texts
            .iter()
            .filter(|t| {
                t.lines()
                    .any(|l| l.contains("\"ascend.gather\"") && l.contains(", %arg"))
            })
            .count();
        assert!(by_loaded_ids >= 10, "too few gathers by loaded ids");
    }

    /// The ids of an embedding lookup are drawn within its table's rows, and repeat
    /// when there are more ids than rows.
    #[test]
    fn loaded_ids_stay_within_their_table() {
        let graph = (0..200)
            .map(|seed| generate(seed, 6))
            .find(|g| g.id_rows.iter().any(Option::is_some))
            .expect("some graph looks rows up by loaded ids");
        let symbols = graph.trial_symbols(3, 1);
        let inputs = graph.random_inputs(&symbols, 17).expect("inputs");
        for (i, rows) in graph.id_rows.iter().enumerate() {
            let Some(autofuse_ir::graph::Dim::Known(rows)) = rows else {
                continue;
            };
            let rows = rows.eval_map(&symbols).expect("rows") as f64;
            let ids = &inputs[i].data;
            assert!(ids
                .iter()
                .all(|&v| v >= -rows && v < rows && v.fract() == 0.0));
        }
    }

    /// Every op of the `ascend` catalogue is drawn by some graph of the first 300 seeds
    /// (the catalogue's list, so an op added without a generator step fails here), and
    /// the border pad modes and innermost strided slices appear.
    #[test]
    fn graphs_draw_every_catalogue_op() {
        let texts: Vec<String> = (0..300).map(|seed| generate(seed, 6).text).collect();
        let all = texts.join("\n");
        let missing: Vec<&str> = autofuse_ascend::ops::ops()
            .map(|spec| spec.name)
            // A parameter reads a weight file; random graphs are text without files, so
            // parameters are covered by the weight tests (test/Import/onnx/weights*.test,
            // the real-size test) instead.
            .filter(|&name| name != "parameter")
            .filter(|name| !all.contains(&format!("\"ascend.{name}\"")))
            .collect();
        assert!(missing.is_empty(), "ops never drawn: {missing:?}");
        for mode in ["edge", "reflect", "wrap"] {
            assert!(
                all.contains(&format!("mode = \"{mode}\"")),
                "no {mode} pad drawn"
            );
        }
        assert!(
            all.lines()
                .any(|l| l.contains("\"ascend.slice\"") && l.contains("steps = [2]")),
            "no strided slice drawn"
        );
    }
}
