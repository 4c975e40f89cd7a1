//! The AscIR interpreter for the hint form: executes an AscGraph node by node with its
//! views, as the oracle for lowering and fusion.
//!
//! Every UB value is a dense tensor over all graph axes whose shape is its view's
//! repeats (1 on broadcast and reduced axes). `data` nodes are GM tensors addressed by
//! their view's strides; `load` gathers a tile from GM, `store` scatters one into the GM
//! output by the store view's strides. Compute nodes reuse the per-op semantics of the
//! Ascend IR interpreter (`interp::run_node`), so both levels share one definition of
//! every operation.

use crate::graph::{AscGraph, AscNode, View};
use autofuse_ascend::interp::{run_node, InterpError};
use autofuse_ir::attr::{parse_attr, AttrValue};
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_ir::tensor::{round_to_dtype, Tensor};
use std::collections::{BTreeMap, HashMap};

fn fail<T>(graph: &AscGraph, node: usize, message: impl Into<String>) -> Result<T, InterpError> {
    Err(malformed(graph, format!("node {node}: {}", message.into())))
}

fn malformed(graph: &AscGraph, message: String) -> InterpError {
    InterpError::Malformed {
        graph: graph.name.clone(),
        message,
    }
}

fn eval_all(
    exprs: &[autofuse_symbolic::Expr],
    symbols: &HashMap<String, i64>,
) -> Result<Vec<i64>, String> {
    exprs
        .iter()
        .map(|e| {
            e.eval_map(symbols)
                .map_err(|err| format!("cannot evaluate '{e}': {err}"))
        })
        .collect()
}

/// Binds the symbols of the kernel's input types from the actual input shapes, starting
/// from `known` (the caller's symbols: a kernel whose inputs only carry `4*s1` gets `s1`
/// from the graph, as a device kernel gets it from its tiling data).
pub fn bind_kernel_symbols(
    graph: &AscGraph,
    inputs: &[Tensor],
    known: &HashMap<String, i64>,
) -> Result<HashMap<String, i64>, InterpError> {
    let mut symbols = known.clone();
    if inputs.len() != graph.inputs.len() {
        return Err(InterpError::InputCount {
            graph: graph.name.clone(),
            expected: graph.inputs.len(),
            got: inputs.len(),
        });
    }
    for (ty, tensor) in graph.inputs.iter().zip(inputs) {
        bind_type(ty, tensor, &mut symbols).map_err(|m| malformed(graph, m))?;
    }
    Ok(symbols)
}

fn bind_type(
    ty: &TensorType,
    tensor: &Tensor,
    symbols: &mut HashMap<String, i64>,
) -> Result<(), String> {
    if ty.rank() != tensor.shape.len() {
        return Err(format!(
            "input of rank {} where {} is expected",
            tensor.shape.len(),
            ty
        ));
    }
    for (dim, &actual) in ty.dims.iter().zip(&tensor.shape) {
        if let Dim::Known(expr) = dim {
            if let Some(name) = expr.as_symbol() {
                match symbols.insert(name.to_string(), actual as i64) {
                    Some(previous) if previous != actual as i64 => {
                        return Err(format!("symbol {name} is {previous} and {actual}"));
                    }
                    _ => {}
                }
            }
        }
    }
    for (dim, &actual) in ty.dims.iter().zip(&tensor.shape) {
        if let Dim::Known(expr) = dim {
            if let Ok(value) = expr.eval_map(symbols) {
                if value != actual as i64 {
                    return Err(format!(
                        "dim '{expr}' is {value} but the input has {actual}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The values of a `gather` node over `shape`: element `p` is the table element at
/// `offset(p) + row * index_stride`, where `row` is the index tile at `p` (its unit axes
/// at 0), negative rows counting from `bound` (`offset` is the table view's element
/// offset of an index, which each interpreter derives from its own view of the tile).
pub fn gather_tile(
    dtype: autofuse_ir::graph::DType,
    shape: &[usize],
    table: &Tensor,
    indices: &Tensor,
    (bound, index_stride): (i64, i64),
    offset: impl Fn(&[usize]) -> i64,
) -> Result<Tensor, String> {
    let mut out = Tensor::zeros(dtype, shape.to_vec()).map_err(|e| e.to_string())?;
    let mut error = None;
    for_each_index(shape, |idx| {
        let at: Vec<usize> = idx
            .iter()
            .zip(&indices.shape)
            .map(|(&i, &s)| if s == 1 { 0 } else { i })
            .collect();
        let raw = indices.get(&at).unwrap_or(0.0) as i64;
        let row = if raw < 0 { raw + bound } else { raw };
        if !(0..bound).contains(&row) {
            error = Some(format!(
                "gather index {raw} is out of range [-{bound}, {bound})"
            ));
            return;
        }
        let at = offset(idx) + row * index_stride;
        match usize::try_from(at).ok().and_then(|o| table.data.get(o)) {
            Some(&v) => {
                out.set(idx, v);
            }
            None => error = Some(format!("gather reads GM element {at}")),
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The values of an `extract_slice` node over `shape`: its operand from `start` along
/// `axis`.
pub fn extract_slice_tile(
    dtype: autofuse_ir::graph::DType,
    shape: &[usize],
    input: &Tensor,
    axis: usize,
    start: usize,
) -> Result<Tensor, String> {
    let mut out = Tensor::zeros(dtype, shape.to_vec()).map_err(|e| e.to_string())?;
    let mut error = None;
    for_each_index(shape, |idx| {
        let mut src = idx.to_vec();
        src[axis] += start;
        match input.get(&src) {
            Some(v) => {
                out.set(idx, v);
            }
            None => error = Some("extract_slice reads past its operand".to_string()),
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The values of an `arange` node over `shape`: `start + delta * offset(index)`, rounded
/// to its element type (`offset` is the element offset of an index in the range, which
/// each interpreter derives from its own view of the tile).
pub fn arange_tile(
    node: &AscNode,
    symbols: &HashMap<String, i64>,
    shape: &[usize],
    offset: impl Fn(&[usize]) -> i64,
) -> Result<Tensor, String> {
    let (start, delta) = node.arange_terms()?;
    let (start, delta) = (start.value(symbols)?, delta.value(symbols)?);
    let mut tile = Tensor::zeros(node.dtype, shape.to_vec()).map_err(|e| e.to_string())?;
    for_each_index(shape, |idx| {
        let value = start + delta * offset(idx) as f64;
        tile.set(idx, round_to_dtype(value, node.dtype));
    });
    Ok(tile)
}

/// Calls `f` with every multi-index of `shape`, in row-major order (none when a dim
/// is 0).
pub fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        f(&index);
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

fn gm_offset(index: &[usize], strides: &[i64]) -> i64 {
    index.iter().zip(strides).map(|(&i, &s)| i as i64 * s).sum()
}

/// Runs an AscGraph on its GM inputs.
pub fn run(graph: &AscGraph, inputs: &[Tensor]) -> Result<Vec<Tensor>, InterpError> {
    run_with_symbols(graph, inputs, &HashMap::new())
}

/// Runs an AscGraph on its GM inputs with symbol values known from the caller.
pub fn run_with_symbols(
    graph: &AscGraph,
    inputs: &[Tensor],
    known: &HashMap<String, i64>,
) -> Result<Vec<Tensor>, InterpError> {
    let symbols = bind_kernel_symbols(graph, inputs, known)?;
    let mut run = Run {
        graph,
        symbols,
        values: vec![None; graph.nodes.len()],
    };
    let mut outputs: Vec<Option<Tensor>> = vec![None; graph.outputs.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        let shape = run.extent(&node.view, n)?;
        // Every node's value must fit host memory before it is allocated.
        autofuse_ir::hostmem::check_shape(&format!("its value ({})", node.op), &shape)
            .or_else(|m| fail(graph, n, m))?;
        let result = match node.op.as_str() {
            "data" => {
                let index = node.index.unwrap_or(0);
                match inputs.get(index) {
                    Some(t) => t.clone(),
                    None => return fail(graph, n, format!("no kernel input #{index}")),
                }
            }
            "load" => run.load(n, node, &shape)?,
            "broadcast" => run.broadcast(n, node, &shape)?,
            "gather" => run.gather(n, node, &shape)?,
            "extract_slice" => run.extract_slice(n, node, &shape)?,
            "store" => run.operand(n, node, 0)?.clone(),
            "output" => {
                let (index, gm) = run.output(n, node)?;
                outputs[index] = Some(gm.clone());
                gm
            }
            "arange" => {
                let strides =
                    eval_all(&node.view.strides, &run.symbols).or_else(|m| fail(graph, n, m))?;
                arange_tile(node, &run.symbols, &shape, |idx| gm_offset(idx, &strides))
                    .or_else(|m| fail(graph, n, m))?
            }
            "scalar" | "fill" => run.fill(n, node, &shape)?,
            op => run.compute(n, node, op, &shape)?,
        };
        run.values[n] = Some(result);
    }
    outputs
        .into_iter()
        .enumerate()
        .map(|(i, o)| o.ok_or_else(|| malformed(graph, format!("never writes output #{i}"))))
        .collect()
}

/// One run of a graph: the bound symbols and the value of every node run so far. The
/// methods compute the value of node `n` (`node`) over its view's extent `shape`.
struct Run<'a> {
    graph: &'a AscGraph,
    symbols: HashMap<String, i64>,
    values: Vec<Option<Tensor>>,
}

impl Run<'_> {
    /// The extent of `view` at the bound symbols (negative repeats as 0).
    fn extent(&self, view: &View, node: usize) -> Result<Vec<usize>, InterpError> {
        eval_all(&view.repeats, &self.symbols)
            .map(|v| v.into_iter().map(|x| x.max(0) as usize).collect())
            .or_else(|m| fail(self.graph, node, m))
    }

    /// The value of operand `k` of node `n`.
    fn operand(&self, n: usize, node: &AscNode, k: usize) -> Result<&Tensor, InterpError> {
        node.operands
            .get(k)
            .and_then(|&o| self.values.get(o))
            .and_then(|v| v.as_ref())
            .ok_or_else(|| malformed(self.graph, format!("node {n}: missing operand #{k}")))
    }

    /// A `load`: the tile gathered from its GM operand by that operand's view strides,
    /// from the node's `offset`.
    fn load(&self, n: usize, node: &AscNode, shape: &[usize]) -> Result<Tensor, InterpError> {
        let (graph, symbols) = (self.graph, &self.symbols);
        let source_node = node.operands.first().copied().unwrap_or(usize::MAX);
        let gm = self.operand(n, node, 0)?;
        let gm_view = &graph.nodes[source_node].view;
        let strides = eval_all(&gm_view.strides, symbols).or_else(|m| fail(graph, n, m))?;
        let offset = node
            .attrs
            .iter()
            .find(|(k, _)| k == "offset")
            .and_then(|(_, v)| parse_attr(v).ok())
            .and_then(|v| {
                v.as_str()
                    .and_then(|s| autofuse_symbolic::Expr::parse(s).ok())
            })
            .map(|e| e.eval_map(symbols).unwrap_or(0))
            .unwrap_or(0);
        let mut tile = Tensor::zeros(node.dtype, shape.to_vec())
            .map_err(|e| malformed(graph, e.to_string()))?;
        let mut error = None;
        for_each_index(shape, |idx| {
            let at = offset + gm_offset(idx, &strides);
            match usize::try_from(at).ok().and_then(|a| gm.data.get(a)) {
                Some(&v) => {
                    tile.set(idx, v);
                }
                None => error = Some(format!("load reads GM element {at} of {}", gm.data.len())),
            }
        });
        if let Some(message) = error {
            return fail(graph, n, message);
        }
        Ok(tile)
    }

    /// A `broadcast`: its operand repeated along the operand's unit axes.
    fn broadcast(&self, n: usize, node: &AscNode, shape: &[usize]) -> Result<Tensor, InterpError> {
        let input = self.operand(n, node, 0)?;
        let mut out = Tensor::zeros(node.dtype, shape.to_vec())
            .map_err(|e| malformed(self.graph, e.to_string()))?;
        for_each_index(shape, |idx| {
            let src: Vec<usize> = idx
                .iter()
                .zip(&input.shape)
                .map(|(&i, &s)| if s == 1 { 0 } else { i })
                .collect();
            if let Some(v) = input.get(&src) {
                out.set(idx, v);
            }
        });
        Ok(out)
    }

    /// A `gather`: operand 0 is the GM table (a data node), 1 the index tile; the
    /// table's view gives the strides of the outer and inner axes (0 on index axes).
    fn gather(&self, n: usize, node: &AscNode, shape: &[usize]) -> Result<Tensor, InterpError> {
        let (graph, symbols) = (self.graph, &self.symbols);
        let table = self.operand(n, node, 0)?;
        let indices = self.operand(n, node, 1)?;
        let table_node = node.operands.first().copied().unwrap_or(usize::MAX);
        let table_view = &graph.nodes[table_node].view;
        let strides = eval_all(&table_view.strides, symbols).or_else(|m| fail(graph, n, m))?;
        let (bound, index_stride) = graph
            .gather_geometry(n)
            .and_then(|(b, s)| {
                Ok((
                    b.eval_map(symbols).map_err(|e| e.to_string())?,
                    s.eval_map(symbols).map_err(|e| e.to_string())?,
                ))
            })
            .map_err(|m| malformed(graph, m))?;
        match gather_tile(
            node.dtype,
            shape,
            table,
            indices,
            (bound, index_stride),
            |idx| gm_offset(idx, &strides),
        ) {
            Ok(out) => Ok(out),
            Err(message) => fail(graph, n, message),
        }
    }

    /// An `extract_slice`: its operand from the node's GM offset along its `axis`.
    fn extract_slice(
        &self,
        n: usize,
        node: &AscNode,
        shape: &[usize],
    ) -> Result<Tensor, InterpError> {
        let graph = self.graph;
        let input = self.operand(n, node, 0)?;
        let axis = node
            .attrs
            .iter()
            .find(|(k, _)| k == "axis")
            .and_then(|(_, v)| v.split(':').next()?.trim().parse::<usize>().ok())
            .filter(|&a| a < shape.len())
            .ok_or_else(|| malformed(graph, format!("node {n}: extract_slice without 'axis'")))?;
        let start = node
            .gm_offset()
            .and_then(|e| e.eval_map(&self.symbols).map_err(|e| e.to_string()))
            .map_err(|e| malformed(graph, format!("node {n}: {e}")))?;
        let start = usize::try_from(start)
            .map_err(|_| malformed(graph, format!("node {n}: starts at {start}")))?;
        match extract_slice_tile(node.dtype, shape, input, axis, start) {
            Ok(out) => Ok(out),
            Err(message) => fail(graph, n, message),
        }
    }

    /// An `output`: the GM tensor of kernel output `index` that the stored tile is
    /// scattered into by the store view's strides; with `index`.
    fn output(&self, n: usize, node: &AscNode) -> Result<(usize, Tensor), InterpError> {
        let (graph, symbols) = (self.graph, &self.symbols);
        let stored = self.operand(n, node, 0)?;
        let index = node.index.unwrap_or(0);
        let Some(out_ty) = graph.outputs.get(index) else {
            return fail(graph, n, format!("no kernel output #{index}"));
        };
        let dims: Vec<usize> = out_ty
            .dims
            .iter()
            .map(|d| match d {
                Dim::Known(e) => e
                    .eval_map(symbols)
                    .map(|v| v.max(0) as usize)
                    .map_err(|err| err.to_string()),
                Dim::Unknown => Err("output dim without symbol".to_string()),
            })
            .collect::<Result<_, _>>()
            .or_else(|m| fail(graph, n, m))?;
        let store_node = node.operands.first().copied().unwrap_or(usize::MAX);
        let store_view = &graph.nodes[store_node].view;
        let strides = eval_all(&store_view.strides, symbols).or_else(|m| fail(graph, n, m))?;
        let mut gm =
            Tensor::zeros(out_ty.dtype, dims).map_err(|e| malformed(graph, e.to_string()))?;
        let mut error = None;
        let tile_shape = stored.shape.clone();
        for_each_index(&tile_shape, |idx| {
            let at = gm_offset(idx, &strides);
            match usize::try_from(at).ok().filter(|&a| a < gm.data.len()) {
                Some(a) => gm.data[a] = stored.get(idx).unwrap_or(0.0),
                None => error = Some(format!("store writes GM element {at} of {}", gm.data.len())),
            }
        });
        if let Some(message) = error {
            return fail(graph, n, message);
        }
        Ok((index, gm))
    }

    /// A `scalar` or `fill`: its `value` over the whole extent.
    fn fill(&self, n: usize, node: &AscNode, shape: &[usize]) -> Result<Tensor, InterpError> {
        let value = node
            .attrs
            .iter()
            .find(|(k, _)| k == "value")
            .and_then(|(_, v)| parse_attr(v).ok())
            .and_then(|v| v.as_str().and_then(|s| s.parse::<f64>().ok()))
            .ok_or_else(|| malformed(self.graph, format!("node {n}: bad scalar value")))?;
        Tensor::full(node.dtype, shape.to_vec(), value)
            .map_err(|e| malformed(self.graph, e.to_string()))
    }

    /// A compute node `op`, run by the Ascend IR interpreter as the graph-level op of
    /// the same semantics (reductions over the axes the view reduces, `where` as
    /// `select`, a concat along its axis).
    fn compute(
        &self,
        n: usize,
        node: &AscNode,
        op: &str,
        shape: &[usize],
    ) -> Result<Tensor, InterpError> {
        let graph = self.graph;
        let operands: Vec<&Tensor> = (0..node.operands.len())
            .map(|k| self.operand(n, node, k))
            .collect::<Result<_, _>>()?;
        let result_ty = TensorType::new(
            node.dtype,
            shape.iter().map(|&d| Dim::constant(d as i64)).collect(),
        );
        let mut attrs: BTreeMap<String, AttrValue> = node
            .attrs
            .iter()
            .filter_map(|(k, v)| parse_attr(v).ok().map(|a| (k.clone(), a)))
            .collect();
        let ascend_op = match op {
            "sum" | "mean" | "max" | "min" | "prod" | "any" | "all" => {
                // Reduced axes: result repeat 1 where the input's is not.
                let input = operands
                    .first()
                    .copied()
                    .ok_or_else(|| malformed(graph, "reduction without input".into()))?;
                let axes: Vec<AttrValue> = shape
                    .iter()
                    .zip(&input.shape)
                    .enumerate()
                    .filter(|(_, (&o, &i))| o == 1 && i != 1)
                    .map(|(a, _)| AttrValue::Int(a as i64))
                    .collect();
                // Reduced axes of extent 1 at run time reduce nothing (an empty
                // `axes` would mean "all axes" to the graph-level op).
                if axes.is_empty() {
                    return Ok(input.clone());
                }
                attrs.insert("axes".into(), AttrValue::Array(axes));
                attrs.insert("keep_dims".into(), AttrValue::Bool(true));
                format!("ascend.reduce_{op}")
            }
            "where" => "ascend.select".to_string(),
            "concat" => {
                let axis = graph
                    .concat_axis(n)
                    .ok_or_else(|| malformed(graph, format!("node {n}: malformed concat")))?;
                attrs.insert("axis".into(), AttrValue::Int(axis as i64));
                "ascend.concat".to_string()
            }
            other => format!("ascend.{other}"),
        };
        let mut results = run_node(&ascend_op, &attrs, &operands, &[result_ty], &self.symbols)?;
        if results.is_empty() {
            return fail(graph, n, "node produced no value");
        }
        Ok(results.swap_remove(0))
    }
}
