//! The in-memory form of one AscGraph (a `func.func` carrying `ascir.axes`), both
//! directions: built by `--lower-to-ascir` and described as a `FuncSpec` (the texts of
//! its types, attributes and locations, op by op), which is printed to MLIR text or
//! built in place by `autofuse_mlir::build`; and read back from an extracted function
//! for the AscIR interpreter and later passes.
//!
//! Conventions (GE's hint form): every node shares one loop nest (`sched_axis` = all
//! axes); every value has a view over those axes: `repeats` (extent, 1 = broadcast or
//! reduced) and `strides` (0 = broadcast or reduced). Values computed in UB have the
//! contiguous strides of their repeats; GM tensors have the strides of their layout.

use autofuse_ir::attr::{quote, AttrValue};
use autofuse_ir::graph::{DType, Graph, TensorType, ValueDef};
use autofuse_symbolic::Expr;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisKind {
    Original,
    BlockOuter,
    BlockInner,
    TileOuter,
    TileInner,
    Merged,
}

impl AxisKind {
    pub fn name(self) -> &'static str {
        match self {
            AxisKind::Original => "original",
            AxisKind::BlockOuter => "block_outer",
            AxisKind::BlockInner => "block_inner",
            AxisKind::TileOuter => "tile_outer",
            AxisKind::TileInner => "tile_inner",
            AxisKind::Merged => "merged",
        }
    }

    pub fn from_name(name: &str) -> Option<AxisKind> {
        [
            AxisKind::Original,
            AxisKind::BlockOuter,
            AxisKind::BlockInner,
            AxisKind::TileOuter,
            AxisKind::TileInner,
            AxisKind::Merged,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    pub id: i64,
    pub name: String,
    pub size: Expr,
    pub kind: AxisKind,
    pub from: Vec<i64>,
}

/// The view of a value over the graph's axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub axis: Vec<i64>,
    pub repeats: Vec<Expr>,
    pub strides: Vec<Expr>,
}

impl View {
    /// Contiguous (row-major) strides of `repeats`; stride 0 where the repeat is 1, as GE
    /// writes broadcast and reduced axes.
    pub fn contiguous(axis: Vec<i64>, repeats: Vec<Expr>) -> View {
        let mut strides = vec![Expr::constant(0); repeats.len()];
        let mut running = Expr::constant(1);
        for i in (0..repeats.len()).rev() {
            if repeats[i].as_const() == Some(1) {
                strides[i] = Expr::constant(0);
            } else {
                strides[i] = running.clone();
                running = running * repeats[i].clone();
            }
        }
        View {
            axis,
            repeats,
            strides,
        }
    }

    pub fn to_mlir(&self) -> String {
        let ids: Vec<String> = self.axis.iter().map(|a| a.to_string()).collect();
        let exprs = |list: &[Expr]| {
            list.iter()
                .map(|e| quote(&e.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "#ascir.view<[{}], [{}], [{}]>",
            ids.join(", "),
            exprs(&self.repeats),
            exprs(&self.strides)
        )
    }

    pub fn from_attr(value: &AttrValue) -> Result<View, String> {
        let params = value
            .dialect_params("ascir.view")
            .ok_or_else(|| "expected #ascir.view".to_string())?;
        let axis = params
            .first()
            .and_then(AttrValue::as_ints)
            .ok_or("view axis must be integers")?;
        let parse_list = |index: usize| -> Result<Vec<Expr>, String> {
            params
                .get(index)
                .and_then(AttrValue::as_strs)
                .ok_or_else(|| "view repeats/strides must be strings".to_string())?
                .iter()
                .map(|s| Expr::parse(s).map_err(|e| format!("'{s}': {e}")))
                .collect()
        };
        Ok(View {
            axis,
            repeats: parse_list(1)?,
            strides: parse_list(2)?,
        })
    }
}

/// One AscIR node. Operands are indices of earlier nodes; `arg` names the function
/// argument of a `data` node.
#[derive(Clone, Debug)]
pub struct AscNode {
    /// Op name without the `ascir.` prefix.
    pub op: String,
    pub operands: Vec<usize>,
    pub dtype: DType,
    pub view: View,
    /// Extra attributes as (name, MLIR text).
    pub attrs: Vec<(String, String)>,
    /// For `data`/`output`: the kernel input/output index.
    pub index: Option<usize>,
    /// The MLIR location text of the source op (`loc(...)`), if any.
    pub loc: Option<String>,
}

/// The start or step of an `ascir.arange`: a number, or an expression of the kernel's
/// symbols (a range starting at a runtime length). Its attribute text is the number or
/// the expression, quoted.
#[derive(Clone, Debug, PartialEq)]
pub enum ArangeTerm {
    Number(f64),
    Expr(Expr),
}

impl ArangeTerm {
    /// Reads the (quoted or bare) attribute text.
    pub fn parse(text: &str) -> Result<ArangeTerm, String> {
        let text = text.trim().trim_matches('"');
        if let Ok(value) = text.parse::<f64>() {
            return Ok(ArangeTerm::Number(value));
        }
        Expr::parse(text)
            .map(ArangeTerm::Expr)
            .map_err(|e| format!("'{text}' is neither a number nor a shape expression: {e}"))
    }

    /// The attribute text (unquoted).
    pub fn text(&self) -> String {
        match self {
            ArangeTerm::Number(v) if v.fract() == 0.0 && v.abs() < 1e15 => {
                format!("{}", *v as i64)
            }
            ArangeTerm::Number(v) => format!("{v:?}"),
            ArangeTerm::Expr(e) => e.to_string(),
        }
    }

    pub fn value(&self, symbols: &std::collections::HashMap<String, i64>) -> Result<f64, String> {
        match self {
            ArangeTerm::Number(v) => Ok(*v),
            ArangeTerm::Expr(e) => e
                .eval_map(symbols)
                .map(|v| v as f64)
                .map_err(|e| e.to_string()),
        }
    }

    pub fn collect_symbols(&self, out: &mut std::collections::BTreeSet<String>) {
        if let ArangeTerm::Expr(e) = self {
            e.collect_symbols(out);
        }
    }
}

impl AscNode {
    /// The `(start, delta)` of an `arange` node.
    pub fn arange_terms(&self) -> Result<(ArangeTerm, ArangeTerm), String> {
        let term = |name: &str| {
            let text = self
                .attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
                .ok_or_else(|| format!("ascir.arange without '{name}'"))?;
            ArangeTerm::parse(text)
        };
        Ok((term("start")?, term("delta")?))
    }

    /// The `offset` attribute, a shape expression (absent means 0): the element where a
    /// `load`'s or `store`'s view starts in its GM tensor, or the index along its axis
    /// where an `extract_slice` part starts.
    pub fn gm_offset(&self) -> Result<Expr, String> {
        match self.attrs.iter().find(|(k, _)| k == "offset") {
            None => Ok(Expr::constant(0)),
            Some((_, text)) => {
                let inner = text.trim().trim_matches('"');
                Expr::parse(inner)
                    .map_err(|e| format!("offset '{inner}' is not a shape expression: {e}"))
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct AscGraph {
    pub name: String,
    pub axes: Vec<Axis>,
    pub sizes: Vec<String>,
    pub inputs: Vec<TensorType>,
    pub outputs: Vec<TensorType>,
    pub nodes: Vec<AscNode>,
    /// Source op names for the kernel name and provenance (`ascir.ops`).
    pub source_ops: Vec<String>,
}

impl AscGraph {
    pub fn sched_axis(&self) -> Vec<i64> {
        self.axes.iter().map(|a| a.id).collect()
    }

    /// The axis (position in the views) a `concat` node concatenates along: the first
    /// where its first operand's repeat differs from the result's. `None` when node `n`
    /// is not a well-formed binary concat.
    pub fn concat_axis(&self, n: usize) -> Option<usize> {
        let node = self.nodes.get(n).filter(|x| x.op == "concat")?;
        let [l, r] = node.operands.as_slice() else {
            return None;
        };
        let (lv, rv) = (&self.nodes.get(*l)?.view, &self.nodes.get(*r)?.view);
        let axis = (0..node.view.repeats.len())
            .find(|&k| lv.repeats.get(k) != node.view.repeats.get(k))?;
        let agree = (0..node.view.repeats.len()).all(|k| {
            k == axis
                || (lv.repeats.get(k) == node.view.repeats.get(k)
                    && rv.repeats.get(k) == node.view.repeats.get(k))
        });
        agree.then_some(axis)
    }

    /// The gathered dim's size and its row-major stride in the table of `gather` node
    /// `n` (what an index selects and how far apart the selected rows are), from the
    /// type of the kernel input its first operand binds and its `axis`.
    pub fn gather_geometry(&self, n: usize) -> Result<(Expr, Expr), String> {
        let node = self
            .nodes
            .get(n)
            .filter(|x| x.op == "gather")
            .ok_or_else(|| format!("node {n} is not a gather"))?;
        let table = node
            .operands
            .first()
            .and_then(|&t| self.nodes.get(t))
            .filter(|t| t.op == "data")
            .ok_or_else(|| format!("gather {n} does not read a kernel input"))?;
        let ty = table
            .index
            .and_then(|i| self.inputs.get(i))
            .ok_or_else(|| format!("gather {n} reads no kernel input"))?;
        let axis = node
            .attrs
            .iter()
            .find(|(k, _)| k == "axis")
            .and_then(|(_, v)| v.split(':').next()?.trim().parse::<usize>().ok())
            .filter(|&a| a < ty.rank())
            .ok_or_else(|| format!("gather {n} without a valid 'axis'"))?;
        let dim = |d: &autofuse_ir::graph::Dim| {
            d.expr()
                .cloned()
                .ok_or_else(|| format!("gather {n}: a table dim has no symbol"))
        };
        let bound = dim(&ty.dims[axis])?;
        let stride = ty.dims[axis + 1..]
            .iter()
            .try_fold(Expr::constant(1), |acc, d| Ok::<_, String>(acc * dim(d)?))?;
        Ok((bound, stride))
    }

    /// The value type MLIR shows for a node: its repeats as dims (`?` when symbolic).
    fn node_type(node: &AscNode) -> TensorType {
        TensorType::new(
            node.dtype,
            node.view
                .repeats
                .iter()
                .map(|r| match r.as_const() {
                    Some(n) => autofuse_ir::graph::Dim::constant(n),
                    None => autofuse_ir::graph::Dim::Unknown,
                })
                .collect(),
        )
    }

    /// The AscGraph as a structured `func.func` (the one description both the printer
    /// and the IR builder of `autofuse-mlir` work from).
    pub fn to_func_spec(&self) -> FuncSpec {
        let axes: Vec<String> = self
            .axes
            .iter()
            .map(|a| {
                let from: Vec<String> = a.from.iter().map(|f| f.to_string()).collect();
                format!(
                    "#ascir.axis<{}, {}, {}, {}, [{}]>",
                    a.id,
                    quote(&a.name),
                    quote(&a.size.to_string()),
                    quote(a.kind.name()),
                    from.join(", ")
                )
            })
            .collect();
        let sizes: Vec<String> = self.sizes.iter().map(|s| quote(s)).collect();
        let source_ops: Vec<String> = self.source_ops.iter().map(|s| quote(s)).collect();
        let attrs = vec![
            ("ascir.axes".to_string(), format!("[{}]", axes.join(", "))),
            ("ascir.form".to_string(), "\"hint\"".to_string()),
            (
                "ascir.ops".to_string(),
                format!("[{}]", source_ops.join(", ")),
            ),
            ("ascir.sizes".to_string(), format!("[{}]", sizes.join(", "))),
        ];
        let sched: Vec<String> = self.sched_axis().iter().map(|a| a.to_string()).collect();
        let sched = format!("[{}]", sched.join(", "));
        let mut returns = vec![None; self.outputs.len()];
        let mut ops = Vec::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            let mut attrs = Vec::with_capacity(node.attrs.len() + 2);
            let operands: Vec<OperandSpec>;
            let result_type: String;
            match node.op.as_str() {
                // A `data` node reads its kernel input whatever its operand list says.
                "data" => {
                    let index = node.index.unwrap_or(0);
                    operands = vec![OperandSpec::Arg(index)];
                    result_type = Self::node_type(node).to_mlir();
                    attrs.push(("index".to_string(), format!("{index} : i64")));
                }
                "output" => {
                    let index = node.index.unwrap_or(0);
                    operands = node.operands.iter().map(|&o| OperandSpec::Op(o)).collect();
                    result_type = self
                        .outputs
                        .get(index)
                        .map(TensorType::to_mlir)
                        .unwrap_or_default();
                    attrs.push(("index".to_string(), format!("{index} : i64")));
                    if let Some(slot) = returns.get_mut(index) {
                        *slot = Some(i);
                    }
                }
                _ => {
                    operands = node.operands.iter().map(|&o| OperandSpec::Op(o)).collect();
                    result_type = Self::node_type(node).to_mlir();
                    attrs.push(("sched_axis".to_string(), sched.clone()));
                }
            }
            attrs.push(("view".to_string(), node.view.to_mlir()));
            attrs.extend(node.attrs.iter().cloned());
            ops.push(OpSpec {
                name: format!("ascir.{}", node.op),
                operands,
                attrs,
                result_type,
                loc: node.loc.clone(),
            });
        }
        FuncSpec {
            name: self.name.clone(),
            arg_types: self.inputs.iter().map(TensorType::to_mlir).collect(),
            result_types: self.outputs.iter().map(TensorType::to_mlir).collect(),
            attrs,
            ops,
            returns,
        }
    }

    /// Prints the AscGraph as a `func.func`.
    pub fn to_mlir(&self) -> String {
        self.to_func_spec().to_mlir()
    }

    /// Reads an AscGraph from an extracted function and its attributes.
    pub fn from_graph(
        graph: &Graph,
        func_attrs: &std::collections::BTreeMap<String, AttrValue>,
    ) -> Result<AscGraph, String> {
        let axes_attr = func_attrs
            .get("ascir.axes")
            .and_then(AttrValue::as_array)
            .ok_or("missing ascir.axes")?;
        let mut axes = Vec::new();
        for a in axes_attr {
            let p = a
                .dialect_params("ascir.axis")
                .ok_or("ascir.axes must hold #ascir.axis")?;
            let size_text = p
                .get(2)
                .and_then(AttrValue::as_str)
                .ok_or("axis size must be a string")?;
            axes.push(Axis {
                id: p
                    .first()
                    .and_then(AttrValue::as_int)
                    .ok_or("axis id must be an integer")?,
                name: p
                    .get(1)
                    .and_then(AttrValue::as_str)
                    .unwrap_or("")
                    .to_string(),
                size: Expr::parse(size_text)
                    .map_err(|e| format!("axis size '{size_text}': {e}"))?,
                kind: p
                    .get(3)
                    .and_then(AttrValue::as_str)
                    .and_then(AxisKind::from_name)
                    .ok_or("bad axis kind")?,
                from: p.get(4).and_then(AttrValue::as_ints).unwrap_or_default(),
            });
        }
        let sizes = func_attrs
            .get("ascir.sizes")
            .and_then(AttrValue::as_strs)
            .unwrap_or_default()
            .into_iter()
            .map(str::to_string)
            .collect();
        let source_ops = func_attrs
            .get("ascir.ops")
            .and_then(AttrValue::as_strs)
            .unwrap_or_default()
            .into_iter()
            .map(str::to_string)
            .collect();
        let inputs: Vec<TensorType> = graph
            .arguments
            .iter()
            .map(|&a| graph.ty(a).cloned().ok_or("argument type"))
            .collect::<Result<_, _>>()?;
        let outputs: Vec<TensorType> = graph
            .outputs
            .iter()
            .map(|&o| graph.ty(o).cloned().ok_or("result type"))
            .collect::<Result<_, _>>()?;
        // Map MLIR values to node indices.
        let mut node_of_value = vec![usize::MAX; graph.values.len()];
        let mut nodes = Vec::new();
        for node in &graph.nodes {
            let op = node
                .op
                .strip_prefix("ascir.")
                .ok_or_else(|| format!("'{}' in an AscGraph", node.op))?
                .to_string();
            let view = node
                .attr("view")
                .map(View::from_attr)
                .transpose()?
                .ok_or_else(|| format!("'{op}' without a view"))?;
            let result = *node.results.first().ok_or("node without a result")?;
            let dtype = graph
                .ty(result)
                .map(|t| t.dtype)
                .ok_or("node result type")?;
            let mut index = node
                .attr("index")
                .and_then(AttrValue::as_int)
                .map(|i| i as usize);
            let mut operands = Vec::new();
            for &v in &node.operands {
                match graph.values.get(v).map(|val| val.def) {
                    Some(ValueDef::Argument(arg)) if op == "data" => index = Some(arg),
                    _ => operands.push(*node_of_value.get(v).ok_or("operand")?),
                }
            }
            let attrs = node
                .attrs
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "view" | "sched_axis" | "index"))
                .map(|(k, v)| (k.clone(), attr_text(v)))
                .collect();
            node_of_value[result] = nodes.len();
            nodes.push(AscNode {
                op,
                operands,
                dtype,
                view,
                attrs,
                index,
                loc: None,
            });
        }
        let name = graph.name.clone();
        Ok(AscGraph {
            name,
            axes,
            sizes,
            inputs,
            outputs,
            nodes,
            source_ops,
        })
    }
}

/// Re-prints an attribute value as MLIR text (for the attributes the model keeps).
fn attr_text(value: &AttrValue) -> String {
    match value {
        AttrValue::Int(i) => format!("{i} : i64"),
        AttrValue::Float(f) => format!("{f:.17e} : f32"),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Str(s) => quote(s),
        AttrValue::Other(t) => t.clone(),
        other => format!("{other:?}"),
    }
}

/// An operand of an op of a [`FuncSpec`]: a function argument or the (single) result of
/// an earlier op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandSpec {
    Arg(usize),
    Op(usize),
}

/// One op of a [`FuncSpec`], with one result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSpec {
    /// The full op name (`ascir.load`).
    pub name: String,
    pub operands: Vec<OperandSpec>,
    /// (name, MLIR attribute text), in printing order.
    pub attrs: Vec<(String, String)>,
    /// MLIR type text of the result.
    pub result_type: String,
    /// MLIR location text (`loc(...)`); `None` leaves the location to whoever builds it.
    pub loc: Option<String>,
}

/// A `func.func` with one block described by the texts of its types and attributes,
/// so that it can be printed (`to_mlir`) or built op by op without a parser run over
/// the whole function (`autofuse_mlir::build`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncSpec {
    /// The symbol name, without `@`.
    pub name: String,
    pub arg_types: Vec<String>,
    pub result_types: Vec<String>,
    /// Function attributes (name, MLIR attribute text), in printing order.
    pub attrs: Vec<(String, String)>,
    pub ops: Vec<OpSpec>,
    /// The op whose result each function result returns; `None` when no op gives that
    /// result (a malformed graph: printed as an empty operand, refused by the builder).
    pub returns: Vec<Option<usize>>,
}

impl FuncSpec {
    /// The type text of an operand (what the value was declared with).
    pub fn operand_type(&self, operand: OperandSpec) -> &str {
        match operand {
            OperandSpec::Arg(i) => self.arg_types.get(i),
            OperandSpec::Op(i) => self.ops.get(i).map(|op| &op.result_type),
        }
        .map_or("", String::as_str)
    }

    /// Prints the function in MLIR's generic op form for the body, one op per line.
    pub fn to_mlir(&self) -> String {
        let mut out = String::new();
        let args: Vec<String> = self
            .arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%arg{i}: {t}"))
            .collect();
        let attrs: Vec<String> = self
            .attrs
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let results = self.result_types.join(", ");
        let _ = writeln!(
            out,
            "func.func @{}({}) -> ({results}) attributes {{{}}} {{",
            self.name,
            args.join(", "),
            attrs.join(", ")
        );
        let operand_name = |operand: &OperandSpec| match operand {
            OperandSpec::Arg(i) => format!("%arg{i}"),
            OperandSpec::Op(i) => format!("%{i}"),
        };
        for (i, op) in self.ops.iter().enumerate() {
            let operands: Vec<String> = op.operands.iter().map(operand_name).collect();
            let operand_types: Vec<&str> =
                op.operands.iter().map(|&o| self.operand_type(o)).collect();
            let attrs: Vec<String> = op.attrs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let loc = op
                .loc
                .as_deref()
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  %{i} = \"{}\"({}) {{{}}} : ({}) -> {}{loc}",
                op.name,
                operands.join(", "),
                attrs.join(", "),
                operand_types.join(", "),
                op.result_type
            );
        }
        let returns: Vec<String> = self
            .returns
            .iter()
            .map(|r| r.map(|i| format!("%{i}")).unwrap_or_default())
            .collect();
        let _ = writeln!(out, "  return {} : {results}", returns.join(", "));
        out.push_str("}\n");
        out
    }
}
