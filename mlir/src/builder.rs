//! Building `ascend` ops in place: a typed emitter that inserts new ops before an
//! anchor op, computing each result type with the shared shape rules.
//!
//! Values are carried together with their `TensorType` (`Typed`), so a rewrite never
//! has to re-read types from MLIR, and every op it builds is type-correct by
//! construction (the rules that verify an op also produce its result type).

use crate::raw;
use autofuse_ascend::shape::{infer, OpShapeQuery, ShapeError};
use autofuse_ir::graph::{DType, TensorType};
use autofuse_symbolic::ShapeEnv;
use melior::ir::{
    block::BlockLike, operation::OperationBuilder, operation::OperationLike, Attribute, BlockRef,
    Identifier, Location, OperationRef, Value,
};
use std::collections::BTreeMap;

/// A value and its tensor type.
#[derive(Clone)]
pub struct Typed<'c, 'a> {
    pub value: Value<'c, 'a>,
    pub ty: TensorType,
}

/// Inserts ops before `anchor` in its block.
pub struct Emitter<'c, 'a> {
    block: BlockRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    location: Location<'c>,
    env: ShapeEnv,
}

impl<'c: 'a, 'a> Emitter<'c, 'a> {
    /// An emitter inserting before `anchor`, giving new ops `anchor`'s location.
    pub fn before(anchor: OperationRef<'c, 'a>) -> Option<Self> {
        Some(Emitter {
            block: anchor.block()?,
            anchor,
            location: anchor.location(),
            env: ShapeEnv::new(),
        })
    }

    /// Builds `name(operands) {attrs}`; the result type comes from the shape rules
    /// (`result_dtype` is used for ops whose result type defines the dtype, like cast).
    pub fn op(
        &mut self,
        name: &str,
        operands: &[&Typed<'c, 'a>],
        attrs: &[(&str, &str)],
        result_dtype: Option<DType>,
    ) -> Result<Typed<'c, 'a>, ShapeError> {
        let mut parsed = BTreeMap::new();
        for (key, text) in attrs {
            let value = autofuse_ir::attr::parse_attr(text).map_err(|e| {
                ShapeError(format!("internal error: attribute '{key}' = {text}: {e}"))
            })?;
            parsed.insert(key.to_string(), value);
        }
        let operand_types: Vec<TensorType> = operands.iter().map(|t| t.ty.clone()).collect();
        let declared_dtype =
            result_dtype.unwrap_or_else(|| operand_types.first().map_or(DType::F32, |t| t.dtype));
        let declared = vec![TensorType::new(
            declared_dtype,
            operand_types
                .first()
                .map(|t| t.dims.clone())
                .unwrap_or_default(),
        )];
        let query = OpShapeQuery {
            op: name,
            operands: &operand_types,
            attrs: &parsed,
            declared: &declared,
        };
        let mut results = infer(&query, &mut self.env)?;
        let ty = results
            .pop()
            .ok_or_else(|| ShapeError(format!("'{name}' produced no result")))?;
        let value = self.build(name, operands, attrs, &ty)?;
        Ok(Typed { value, ty })
    }

    /// Builds an op whose result type is given (constants, reshapes).
    pub fn build(
        &mut self,
        name: &str,
        operands: &[&Typed<'c, 'a>],
        attrs: &[(&str, &str)],
        result: &TensorType,
    ) -> Result<Value<'c, 'a>, ShapeError> {
        let result_type = raw::parse_type_near(&self.anchor, &result.to_mlir())
            .ok_or_else(|| ShapeError(format!("internal error: cannot build type {result}")))?;
        // SAFETY: the context outlives every op of the block we insert into.
        // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
        let context_ref = self.anchor.context();
        let context = unsafe { context_ref.to_ref() };
        let mut named = Vec::new();
        for (key, text) in attrs {
            let attr = Attribute::parse(context, text)
                .ok_or_else(|| ShapeError(format!("internal error: bad attribute text {text}")))?;
            named.push((Identifier::new(context, key), attr));
        }
        let values: Vec<Value> = operands.iter().map(|t| t.value).collect();
        let op = OperationBuilder::new(name, self.location)
            .add_operands(&values)
            .add_results(&[result_type])
            .add_attributes(&named)
            .build()
            .map_err(|e| ShapeError(format!("internal error building '{name}': {e}")))?;
        let inserted = self.block.insert_operation_before(self.anchor, op);
        inserted
            .result(0)
            .map(Into::into)
            .map_err(|e| ShapeError(format!("internal error: {e}")))
    }

    /// A rank-0 constant of `dtype` (broadcasting makes it usable against any tensor).
    pub fn scalar(&mut self, value: f64, dtype: DType) -> Result<Typed<'c, 'a>, ShapeError> {
        let ty = TensorType::new(dtype, Vec::new());
        let literal = if dtype.is_float() {
            // MLIR float literals need a decimal point; 17 digits round-trip any f64.
            format!("{value:.17e}")
        } else if dtype == DType::Bool {
            (if value != 0.0 { "true" } else { "false" }).to_string()
        } else {
            format!("{}", value as i64)
        };
        let attr = format!("dense<{literal}> : {}", ty.to_mlir());
        let value = self.build("ascend.constant", &[], &[("value", &attr)], &ty)?;
        Ok(Typed { value, ty })
    }
}
