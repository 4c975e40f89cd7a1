//! The in-memory form of one AscGraph (a `func.func` carrying `ascir.axes`), both
//! directions: built by `--lower-to-ascir` and printed to MLIR text, and read back from
//! an extracted function for the AscIR interpreter and later passes.
//!
//! Conventions (GE's hint form): every node shares one loop nest (`sched_axis` = all
//! axes); every value has a view over those axes: `repeats` (extent, 1 = broadcast or
//! reduced) and `strides` (0 = broadcast or reduced). Values computed in UB have the
//! contiguous strides of their repeats; GM tensors have the strides of their layout.

use crate::attr::{quote, AttrValue};
use crate::graph::{DType, Graph, TensorType, ValueDef};
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

    /// The value type MLIR shows for a node: its repeats as dims (`?` when symbolic).
    fn node_type(node: &AscNode) -> TensorType {
        TensorType::new(
            node.dtype,
            node.view
                .repeats
                .iter()
                .map(|r| match r.as_const() {
                    Some(n) => crate::graph::Dim::constant(n),
                    None => crate::graph::Dim::Unknown,
                })
                .collect(),
        )
    }

    /// Prints the AscGraph as a `func.func`.
    pub fn to_mlir(&self) -> String {
        let mut out = String::new();
        let args: Vec<String> = self
            .inputs
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%arg{i}: {}", t.to_mlir()))
            .collect();
        let results: Vec<String> = self.outputs.iter().map(TensorType::to_mlir).collect();
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
        let ops: Vec<String> = self.source_ops.iter().map(|s| quote(s)).collect();
        let _ = writeln!(
            out,
            "func.func @{}({}) -> ({}) attributes {{ascir.axes = [{}], ascir.form = \"hint\", ascir.ops = [{}], ascir.sizes = [{}]}} {{",
            self.name,
            args.join(", "),
            results.join(", "),
            axes.join(", "),
            ops.join(", "),
            sizes.join(", ")
        );
        let sched: Vec<String> = self.sched_axis().iter().map(|a| a.to_string()).collect();
        let sched = format!("[{}]", sched.join(", "));
        let mut returns = vec![String::new(); self.outputs.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            let mut attrs: Vec<String> = Vec::new();
            let operands: Vec<String>;
            let operand_types: Vec<String>;
            let result_type: String;
            match node.op.as_str() {
                "data" => {
                    let index = node.index.unwrap_or(0);
                    operands = vec![format!("%arg{index}")];
                    operand_types = vec![self
                        .inputs
                        .get(index)
                        .map(TensorType::to_mlir)
                        .unwrap_or_default()];
                    result_type = Self::node_type(node).to_mlir();
                    attrs.push(format!("index = {index} : i64"));
                }
                "output" => {
                    let index = node.index.unwrap_or(0);
                    operands = node.operands.iter().map(|o| format!("%{o}")).collect();
                    operand_types = node
                        .operands
                        .iter()
                        .map(|&o| Self::node_type(&self.nodes[o]).to_mlir())
                        .collect();
                    result_type = self
                        .outputs
                        .get(index)
                        .map(TensorType::to_mlir)
                        .unwrap_or_default();
                    attrs.push(format!("index = {index} : i64"));
                    if let Some(slot) = returns.get_mut(index) {
                        *slot = format!("%{i}");
                    }
                }
                _ => {
                    operands = node.operands.iter().map(|o| format!("%{o}")).collect();
                    operand_types = node
                        .operands
                        .iter()
                        .map(|&o| Self::node_type(&self.nodes[o]).to_mlir())
                        .collect();
                    result_type = Self::node_type(node).to_mlir();
                    attrs.push(format!("sched_axis = {sched}"));
                }
            }
            attrs.push(format!("view = {}", node.view.to_mlir()));
            for (k, v) in &node.attrs {
                attrs.push(format!("{k} = {v}"));
            }
            let loc = node
                .loc
                .as_deref()
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  %{i} = \"ascir.{}\"({}) {{{}}} : ({}) -> {}{loc}",
                node.op,
                operands.join(", "),
                attrs.join(", "),
                operand_types.join(", "),
                result_type
            );
        }
        let _ = writeln!(
            out,
            "  return {} : {}",
            returns.join(", "),
            results.join(", ")
        );
        out.push_str("}\n");
        out
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
