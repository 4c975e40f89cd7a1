//! The catalogue steps of the random graph generator: the ops of the `ascend`
//! catalogue that the main and extra steps do not draw (`Gen::catalogue_step`).

use super::{Gen, Val};
use autofuse_ir::graph::{DType, Dim, TensorType};

impl Gen {
    /// An index tensor for `x` along `axis`: an i32 range over that dim counting down
    /// from -1 (so every id is valid, negative ones count from the end, for static and
    /// symbolic dims alike), shaped to `x`'s rank (size 1 on the other axes).
    fn flip_ids(&mut self, x: &Val, axis: usize) -> Option<Val> {
        let length = x.ty.dims.get(axis)?.clone();
        let ids = self.op(
            "ascend.range",
            &[],
            &[("start", "-1 : i64"), ("delta", "-1 : i64")],
            None,
            Some(TensorType::new(DType::I32, vec![length])),
        )?;
        let others: Vec<String> = (0..x.ty.rank())
            .filter(|&k| k != axis)
            .map(|k| k.to_string())
            .collect();
        if others.is_empty() {
            return Some(ids);
        }
        let axes = format!("[{}]", others.join(", "));
        self.op("ascend.unsqueeze", &[&ids], &[("axes", &axes)], None, None)
    }

    /// One op of the catalogue that the other steps do not draw (its own random stream,
    /// like the layout step), applied to `x` so that its result stays finite and
    /// continuous in `x` where rounding could differ between executions:
    /// - unary math: log / rsqrt / reciprocal of `1 + |x|`, sin, cos, leaky_relu;
    ///   floor / ceil / round / sign only of a graph argument (exact in every dtype);
    /// - compares eq / ne / le with logical and / or / xor / not, isnan / isfinite, and a
    ///   select; reduce_any / reduce_all of a mask, cast back;
    /// - clip, swish, swiglu; pow by 2 or 0.5 (of `1 + |x|`);
    /// - broadcast_to of a one-element slice, reduce_prod of values near 1, cumsum
    ///   (exclusive / reverse) of squashed values;
    /// - gather_elements and gather_nd by computed ids (a flip of an axis: ids -1, -2, ..);
    /// - edge / reflect / wrap pads of static axes (reflect and wrap by less than the
    ///   extent), edge pads of symbolic ones;
    /// - a slice with step 2 along the static innermost axis (`--decompose` makes it a
    ///   reshape and a one-column slice);
    /// - integer floor_div / mod (by 3) / bitwise_and / bitwise_not of an argument (times 4,
    ///   floored, cast to i32) and back; a matmul (boundary op) of x by its transpose,
    ///   or a convolution or pool (`window_step`);
    ///   one extent of x as a symbolic_constant, cast and added.
    pub(super) fn catalogue_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        // The guard of the window step draws from the stream: it must stay a guard.
        match self.below(20) {
            0 => self.positive_math_step(x),
            1 => {
                let op = ["ascend.sin", "ascend.cos"][self.below(2) as usize];
                self.op(op, &[x], &[], None, None)
            }
            2 => {
                let alpha = ["0.1 : f32", "0.5 : f32", "2.0 : f32"][self.below(3) as usize];
                self.op("ascend.leaky_relu", &[x], &[("alpha", alpha)], None, None)
            }
            3 => self.rounding_step(x),
            4 => self.mask_select_step(x),
            5 if rank > 0 => self.any_all_step(x),
            6 => {
                let lo = self.scalar(-0.5, x.ty.dtype);
                let hi = self.scalar(0.75, x.ty.dtype);
                self.op("ascend.clip", &[x, &lo, &hi], &[], None, None)
            }
            7 => self.swish_step(x),
            8 => self.pow_step(x),
            9 if rank > 0 => self.broadcast_slice_step(x),
            10 if rank > 0 => self.reduce_prod_step(x),
            11 if rank > 0 => self.cumsum_step(x),
            12 if rank > 0 => self.gather_elements_step(x),
            13 if rank > 0 => self.gather_nd_step(x),
            14 | 16 if rank > 0 => self.border_pad_step(x),
            15 if rank > 0 => self.strided_slice_step(x),
            17 => self.integer_step(x),
            18 if rank >= 2 && self.below(2) == 0 => self.window_step(x),
            18 if rank >= 2 => self.matmul_step(x),
            19 if rank > 0 => self.symbolic_extent_step(x),
            _ => None,
        }
    }

    /// `1 + |x|`, the positive operand of the ops defined only above 0.
    fn one_plus_abs(&mut self, x: &Val) -> Option<Val> {
        let abs = self.op("ascend.abs", &[x], &[], None, None)?;
        let o = self.scalar(1.0, x.ty.dtype);
        self.op("ascend.add", &[&abs, &o], &[], None, None)
    }

    /// log, rsqrt or reciprocal of `1 + |x|`.
    fn positive_math_step(&mut self, x: &Val) -> Option<Val> {
        let ops = ["ascend.log", "ascend.rsqrt", "ascend.reciprocal"];
        let op = ops[self.below(3) as usize];
        let p = self.one_plus_abs(x)?;
        self.op(op, &[&p], &[], None, None)
    }

    /// floor, ceil, round or sign of 4 times a graph argument. Discontinuous ops only of
    /// an argument: no rounding before them.
    fn rounding_step(&mut self, x: &Val) -> Option<Val> {
        let dtype = x.ty.dtype;
        let pick = self.below(self.args.len() as u64) as usize;
        let x = &self.args[pick].clone();
        let ops = ["ascend.floor", "ascend.ceil", "ascend.round", "ascend.sign"];
        let op = ops[self.below(4) as usize];
        let four = self.scalar(4.0, dtype);
        let scaled = self.op("ascend.mul", &[x, &four], &[], None, None)?;
        self.op(op, &[&scaled], &[], None, None)
    }

    /// Masks: compare with 0 and with x itself, combine, select.
    fn mask_select_step(&mut self, x: &Val) -> Option<Val> {
        let zero = self.scalar(0.0, x.ty.dtype);
        let ops = ["ascend.eq", "ascend.ne", "ascend.le"];
        let op = ops[self.below(3) as usize];
        let a = self.op(op, &[x, &zero], &[], None, None)?;
        let b = if self.chance(50) {
            self.op("ascend.isfinite", &[x], &[], None, None)?
        } else {
            let n = self.op("ascend.isnan", &[x], &[], None, None)?;
            self.op("ascend.logical_not", &[&n], &[], None, None)?
        };
        let ops = [
            "ascend.logical_and",
            "ascend.logical_or",
            "ascend.logical_xor",
        ];
        let op = ops[self.below(3) as usize];
        let m = self.op(op, &[&a, &b], &[], None, None)?;
        let neg = self.op("ascend.neg", &[x], &[], None, None)?;
        self.op("ascend.select", &[&m, x, &neg], &[], None, None)
    }

    /// reduce_any or reduce_all of `x > 0` over one axis, cast back and added to `x`.
    fn any_all_step(&mut self, x: &Val) -> Option<Val> {
        let dtype = x.ty.dtype;
        let zero = self.scalar(0.0, dtype);
        let m = self.op("ascend.gt", &[x, &zero], &[], None, None)?;
        let op = ["ascend.reduce_any", "ascend.reduce_all"][self.below(2) as usize];
        let axes = format!("[{}]", self.below(x.ty.rank() as u64));
        let r = self.op(
            op,
            &[&m],
            &[("axes", &axes), ("keep_dims", "true")],
            None,
            None,
        )?;
        let f = self.op("ascend.cast", &[&r], &[], Some(dtype), None)?;
        self.op("ascend.add", &[x, &f], &[], None, None)
    }

    /// swish of `x`, or swiglu of `tanh(x)` and `x`.
    fn swish_step(&mut self, x: &Val) -> Option<Val> {
        if self.chance(50) {
            let beta = ["1.0 : f32", "1.702 : f32"][self.below(2) as usize];
            self.op("ascend.swish", &[x], &[("beta", beta)], None, None)
        } else {
            let a = self.op("ascend.tanh", &[x], &[], None, None)?;
            self.op("ascend.swiglu", &[&a, x], &[], None, None)
        }
    }

    /// `1 + |x|` to the power 2 or 0.5, squashed.
    fn pow_step(&mut self, x: &Val) -> Option<Val> {
        let p = self.one_plus_abs(x)?;
        let exponent = [2.0, 0.5][self.below(2) as usize];
        let e = self.scalar(exponent, x.ty.dtype);
        let r = self.op("ascend.pow", &[&p, &e], &[], None, None)?;
        self.squash(&r)
    }

    /// `x` minus the broadcast_to of a one-element slice of its first axis.
    fn broadcast_slice_step(&mut self, x: &Val) -> Option<Val> {
        let s = self.op(
            "ascend.slice",
            &[x],
            &[
                ("starts", "[0]"),
                ("ends", "[1]"),
                ("axes", "[0]"),
                ("steps", "[1]"),
            ],
            None,
            None,
        )?;
        let b = self.op("ascend.broadcast_to", &[&s], &[], None, Some(x.ty.clone()))?;
        self.op("ascend.sub", &[x, &b], &[], None, None)
    }

    /// reduce_prod over one axis of values in (0.9, 1.1): products over up to ~70
    /// elements stay finite.
    fn reduce_prod_step(&mut self, x: &Val) -> Option<Val> {
        let dtype = x.ty.dtype;
        let q = self.squash(x)?;
        let tenth = self.scalar(0.1, dtype);
        let small = self.op("ascend.mul", &[&q, &tenth], &[], None, None)?;
        let o = self.scalar(1.0, dtype);
        let near = self.op("ascend.add", &[&small, &o], &[], None, None)?;
        let axes = format!("[{}]", self.below(x.ty.rank() as u64));
        self.op(
            "ascend.reduce_prod",
            &[&near],
            &[("axes", &axes), ("keep_dims", "true")],
            None,
            None,
        )
    }

    /// cumsum (exclusive or not, reverse or not) of squashed `x` along one axis.
    fn cumsum_step(&mut self, x: &Val) -> Option<Val> {
        let q = self.squash(x)?;
        let axis = format!("{} : i64", self.below(x.ty.rank() as u64));
        let exclusive = ["false", "true"][self.below(2) as usize];
        let reverse = ["false", "true"][self.below(2) as usize];
        self.op(
            "ascend.cumsum",
            &[&q],
            &[
                ("axis", &axis),
                ("exclusive", exclusive),
                ("reverse", reverse),
            ],
            None,
            None,
        )
    }

    /// A flip of one axis by gather_elements, added to `x`.
    fn gather_elements_step(&mut self, x: &Val) -> Option<Val> {
        let axis = self.below(x.ty.rank() as u64) as usize;
        let ids = self.flip_ids(x, axis)?;
        let ids = self.op(
            "ascend.broadcast_to",
            &[&ids],
            &[],
            None,
            Some(TensorType::new(DType::I32, x.ty.dims.clone())),
        )?;
        let attr = format!("{axis} : i64");
        let f = self.op(
            "ascend.gather_elements",
            &[x, &ids],
            &[("axis", &attr)],
            None,
            None,
        )?;
        self.op("ascend.add", &[&f, x], &[], None, None)
    }

    /// Rows of x in reverse order by gather_nd with one-component tuples, times `x`.
    fn gather_nd_step(&mut self, x: &Val) -> Option<Val> {
        let rows = x.ty.dims.first()?.clone();
        let ids = self.op(
            "ascend.range",
            &[],
            &[("start", "-1 : i64"), ("delta", "-1 : i64")],
            None,
            Some(TensorType::new(DType::I32, vec![rows])),
        )?;
        let tuples = self.op("ascend.unsqueeze", &[&ids], &[("axes", "[1]")], None, None)?;
        let f = self.op(
            "ascend.gather_nd",
            &[x, &tuples],
            &[("batch_dims", "0 : i64")],
            None,
            None,
        )?;
        self.op("ascend.mul", &[&f, x], &[], None, None)
    }

    /// An edge, reflect or wrap pad of one axis (reflect and wrap by less than a static
    /// extent; only edge for a symbolic one), then abs.
    fn border_pad_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        let axis = self.below(rank as u64) as usize;
        let mut pads = vec![0i64; 2 * rank];
        let mode = match x.ty.dims[axis].as_const() {
            Some(n) if n >= 2 => {
                let limit = (n - 1).min(3) as u64;
                pads[axis] = self.below(limit + 1) as i64;
                pads[rank + axis] = 1 + self.below(limit) as i64;
                ["\"edge\"", "\"reflect\"", "\"wrap\""][self.below(3) as usize]
            }
            _ => {
                pads[axis] = self.below(3) as i64;
                pads[rank + axis] = 1 + self.below(2) as i64;
                "\"edge\""
            }
        };
        let pads_text = format!("{pads:?}");
        let padded = self.op(
            "ascend.pad",
            &[x],
            &[("pads", &pads_text), ("mode", mode), ("value", "0.0 : f64")],
            None,
            None,
        )?;
        self.op("ascend.abs", &[&padded], &[], None, None)
    }

    /// Every second element of the static innermost axis (interleaved halves), negated.
    fn strided_slice_step(&mut self, x: &Val) -> Option<Val> {
        let last = x.ty.rank() - 1;
        let n = x.ty.dims[last].as_const().filter(|&n| n >= 2)?;
        let start = self.below(2) as i64;
        let (starts, ends, axes) = (format!("[{start}]"), format!("[{n}]"), format!("[{last}]"));
        let s = self.op(
            "ascend.slice",
            &[x],
            &[
                ("starts", &starts),
                ("ends", &ends),
                ("axes", &axes),
                ("steps", "[2]"),
            ],
            None,
            None,
        )?;
        self.op("ascend.neg", &[&s], &[], None, None)
    }

    /// Integer ops of an argument rounded to a multiple of 1/4, times 4: floor_div / mod
    /// by 3, bitwise_and with 5 / bitwise_not, cast back.
    fn integer_step(&mut self, x: &Val) -> Option<Val> {
        let dtype = x.ty.dtype;
        let pick = self.below(self.args.len() as u64) as usize;
        let x = &self.args[pick].clone();
        let four = self.scalar(4.0, dtype);
        let scaled = self.op("ascend.mul", &[x, &four], &[], None, None)?;
        let rounded = self.op("ascend.floor", &[&scaled], &[], None, None)?;
        let int = self.op("ascend.cast", &[&rounded], &[], Some(DType::I32), None)?;
        let r = match self.below(4) {
            0 | 1 => {
                let three = self.scalar(3.0, DType::I32);
                let op = ["ascend.floor_div", "ascend.mod"][self.below(2) as usize];
                self.op(op, &[&int, &three], &[], None, None)?
            }
            2 => {
                let five = self.scalar(5.0, DType::I32);
                self.op("ascend.bitwise_and", &[&int, &five], &[], None, None)?
            }
            _ => self.op("ascend.bitwise_not", &[&int], &[], None, None)?,
        };
        self.op("ascend.cast", &[&r], &[], Some(dtype), None)
    }

    /// A matmul (a boundary op) of squashed x by its transpose, squashed.
    fn matmul_step(&mut self, x: &Val) -> Option<Val> {
        let rank = x.ty.rank();
        let q = self.squash(x)?;
        let mut perm: Vec<usize> = (0..rank).collect();
        perm.swap(rank - 2, rank - 1);
        let perm = format!("{perm:?}");
        let t = self.op("ascend.transpose", &[&q], &[("perm", &perm)], None, None)?;
        let attrs = [("transpose_a", "false"), ("transpose_b", "false")];
        let m = self.op("ascend.matmul", &[&q, &t], &attrs, None, None)?;
        self.squash(&m)
    }

    /// One extent of x as a symbolic constant (a shape value), scaled, added.
    fn symbolic_extent_step(&mut self, x: &Val) -> Option<Val> {
        let dtype = x.ty.dtype;
        let axis = self.below(x.ty.rank() as u64) as usize;
        let dim = x.ty.dims[axis].expr()?.to_string();
        let values = format!("[{dim:?}]");
        let shape = TensorType::new(DType::I32, vec![Dim::constant(1)]);
        let c = self.op(
            "ascend.symbolic_constant",
            &[],
            &[("values", &values)],
            None,
            Some(shape),
        )?;
        let f = self.op("ascend.cast", &[&c], &[], Some(dtype), None)?;
        let scale = self.scalar(1.0 / 64.0, dtype);
        let ramp = self.op("ascend.mul", &[&f, &scale], &[], None, None)?;
        self.op("ascend.add", &[x, &ramp], &[], None, None)
    }

    /// A convolution, then a pool (boundary ops), over the axes from 2 on of squashed
    /// `x` read as `[N, C, spatial...]` (a rank-2 `x` gains a spatial axis of size 1),
    /// each result squashed: conv or conv_transpose with 2 output channels, kernel 2
    /// and weights 1/4 (a broadcast scalar), then max_pool or avg_pool with kernel 2;
    /// strides 1 or 2. Pads of 1 keep every window inside the padded input for any size
    /// >= 1 (conv_transpose takes none: its size 2 + s*(d-1) is never empty).
    fn window_step(&mut self, x: &Val) -> Option<Val> {
        let mut q = self.squash(x)?;
        if q.ty.rank() == 2 {
            q = self.op("ascend.unsqueeze", &[&q], &[("axes", "[2]")], None, None)?;
        }
        let n = q.ty.rank() - 2;
        let dtype = q.ty.dtype;
        let list = |v: i64| format!("{:?}", vec![v; n]);
        let strides = list(1 + self.below(2) as i64);
        let (ones, twos, zeros) = (list(1), list(2), list(0));
        let pads = format!("{:?}", vec![1; 2 * n]);
        let no_pads = format!("{:?}", vec![0; 2 * n]);
        let transpose = self.below(2) == 1;
        let (c, two) = (q.ty.dims[1].clone(), Dim::constant(2));
        let mut dims = if transpose {
            vec![c, two]
        } else {
            vec![two, c]
        };
        dims.extend(std::iter::repeat_n(Dim::constant(2), n));
        let quarter = self.scalar(0.25, dtype);
        let w_ty = TensorType::new(dtype, dims);
        let w = self.op("ascend.broadcast_to", &[&quarter], &[], None, Some(w_ty))?;
        let mut attrs = vec![
            ("strides", strides.as_str()),
            ("dilations", ones.as_str()),
            ("groups", "1 : i64"),
        ];
        let conv = if transpose {
            attrs.push(("pads", no_pads.as_str()));
            attrs.push(("output_padding", zeros.as_str()));
            self.op("ascend.conv_transpose", &[&q, &w], &attrs, None, None)?
        } else {
            attrs.push(("pads", pads.as_str()));
            self.op("ascend.conv", &[&q, &w], &attrs, None, None)?
        };
        let q = self.squash(&conv)?;
        let mut attrs = vec![
            ("kernel_shape", twos.as_str()),
            ("strides", strides.as_str()),
            ("dilations", ones.as_str()),
            ("pads", pads.as_str()),
            ("ceil_mode", "false"),
        ];
        let pool = if self.below(2) == 0 {
            self.op("ascend.max_pool", &[&q], &attrs, None, None)?
        } else {
            let include = ["false", "true"][self.below(2) as usize];
            attrs.push(("count_include_pad", include));
            self.op("ascend.avg_pool", &[&q], &attrs, None, None)?
        };
        self.squash(&pool)
    }
}
