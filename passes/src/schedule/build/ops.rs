//! The check that every node is an op the Ascend C generator emits in its element
//! types on the chip.

use super::refuse;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::*;
use autofuse_ir::graph::DType;

/// The op check of `build`, once the cases are known.
pub(super) trait CheckOps {
    fn check_ops(&self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String>;
}

impl CheckOps for Schedule {
    /// Checks every node is emitted by the generator in its element types.
    fn check_ops(&self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String> {
        for (n, info) in self.nodes.iter().enumerate() {
            let node = &graph.nodes[n];
            let operand_dtype = node.operands.first().map(|&o| graph.nodes[o].dtype);
            match &info.kind {
                NodeKind::Elementwise { op } => check_elementwise(self, graph, chip, n, op)?,
                NodeKind::Reduce { op, .. } => {
                    let d = ub_dtype(info.dtype);
                    let ok = match op.as_str() {
                        "sum" | "mean" => matches!(d, DType::F32 | DType::F16),
                        // Products are Mul calls (and af::ProdRow's scalar tail), which
                        // int32 has too (wrapping, as ONNX integer products do).
                        "prod" => matches!(d, DType::F32 | DType::F16 | DType::I32),
                        "max" | "min" | "any" | "all" => matches!(d, DType::F32 | DType::F16),
                        _ => false,
                    };
                    if !ok {
                        return refuse(format!(
                            "reduction ascir.{op} on {} is not supported",
                            info.dtype
                        ));
                    }
                }
                NodeKind::Cast => {
                    let from = operand_dtype.unwrap_or(info.dtype);
                    if !cast_supported(from, info.dtype) {
                        return refuse(format!("cast {from} -> {} is not supported", info.dtype));
                    }
                }
                NodeKind::Broadcast => {
                    // 1-byte values broadcast as int16 pairs (af::SplatOrCopyBytes).
                    let s = ub_size(info.dtype);
                    if s != 1 && s != 2 && s != 4 {
                        return refuse(format!("broadcast of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Scalar { .. } if absorbed_scalar(&self.nodes, &self.operands, n) => {}
                NodeKind::Scalar { .. } => {
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("scalar of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Arange { .. }
                    if !crate::lower_to_ascir::lowering::arange_computable(info.dtype) =>
                {
                    return refuse(format!("arange of {} is not supported", info.dtype));
                }
                NodeKind::Concat { .. } => {
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("concat of {} is not supported", info.dtype));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Checks the elementwise op `op` of node `n`: a lowering exists and the chip has its
/// APIs on the type it computes in.
fn check_elementwise(
    s: &Schedule,
    graph: &AscGraph,
    chip: &ChipProfile,
    n: usize,
    op: &str,
) -> Result<(), String> {
    let info = &s.nodes[n];
    let node = &graph.nodes[n];
    let operand_dtype = node.operands.first().map(|&o| graph.nodes[o].dtype);
    let arith = match op {
        "select" | "where" => graph
            .nodes
            .get(node.operands.get(1).copied().unwrap_or(usize::MAX))
            .map(|x| ub_dtype(x.dtype))
            .unwrap_or(info.dtype),
        _ => ub_dtype(operand_dtype.unwrap_or(info.dtype)),
    };
    if int_select(&s.nodes, n) {
        return check_int_select(s, graph, chip, n, op);
    }
    let known = unary_supported(op)
        || binary_supported(op)
        || compare_supported(op)
        || matches!(op, "select" | "where");
    if !known {
        return refuse(format!("no Ascend C lowering for ascir.{op} yet"));
    }
    // Rounding is a float -> float Cast (f32, or f16 staged in f32).
    if matches!(op, "floor" | "ceil" | "round") && !matches!(arith, DType::F32 | DType::F16) {
        return refuse(format!("ascir.{op} on {arith} is not supported"));
    }
    if compare_supported(op) {
        let ok = matches!(arith, DType::F32 | DType::F16 | DType::I32);
        if !ok {
            return refuse(format!("ascir.{op} on {arith} is not supported"));
        }
        return Ok(());
    }
    // int32 abs is emitted as max(-x, x).
    let apis = if op == "abs" && arith == DType::I32 {
        &["Muls", "Max"][..]
    } else {
        apis_of(op)
    };
    let bitwise = matches!(op, "bitwise_and" | "bitwise_not");
    if bitwise && !matches!(arith, DType::I16 | DType::I32) {
        return refuse(format!("ascir.{op} on {arith} is not supported"));
    }
    for api in apis {
        let d = if *api == "Compares" {
            DType::F16
        } else if bitwise {
            DType::I16
        } else {
            arith
        };
        if !chip.api_supports(api, d) {
            return refuse(format!(
                "ascir.{op} needs {api} on {d}, which {} does not support",
                chip.name
            ));
        }
    }
    Ok(())
}

/// Checks a select emitted bitwise on the int16 view (see `int_select`). A scalar
/// branch the select does not absorb is a tile of its own (a Duplicate), which exists
/// for int32 only: an int64 scalar branch must be absorbed (an int32 value read only by
/// selects).
fn check_int_select(
    s: &Schedule,
    graph: &AscGraph,
    chip: &ChipProfile,
    n: usize,
    op: &str,
) -> Result<(), String> {
    let info = &s.nodes[n];
    for &o in graph.nodes[n].operands.iter().skip(1) {
        if let NodeKind::Scalar { value } = s.nodes[o].kind {
            if info.dtype == DType::I64 && !absorbed_scalar(&s.nodes, &s.operands, o) {
                return refuse(format!(
                    "a select of i64 with the scalar branch {value} (not \
                     an int32 value read only by selects) is not supported"
                ));
            }
        }
    }
    for api in ["And", "Or", "Not"] {
        if !chip.api_supports(api, DType::I16) {
            return refuse(format!(
                "ascir.{op} on {} needs {api} on int16, which {} does not \
                 support",
                info.dtype, chip.name
            ));
        }
    }
    Ok(())
}
