//! Building a `func.func` from a structured description (`autofuse_ascir::graph::FuncSpec`)
//! through the C API, instead of printing it and running MLIR's parser over the text.
//!
//! Kernels repeat the same few attribute and type texts thousands of times (views,
//! `sched_axis`, tensor types), so each distinct text is parsed once per `SpecCache`;
//! callers keep one cache for a whole pass run. A function is built detached and only
//! appended to the block once complete, so a failure leaves the block unchanged.
//!
//! Preconditions: every text in the spec is what `FuncSpec::to_mlir` would print (MLIR
//! attribute, type and `loc(...)` syntax); operands refer to function arguments or to
//! earlier ops.
//! Postconditions: on success the block ends with a `func.func` that prints as the
//! parsed `FuncSpec::to_mlir` text would, except for the locations the text leaves out
//! (the function, its arguments, its return and ops without `loc`), which are the
//! location the caller passes. On failure an error naming the function and the text or
//! op at fault, the block unchanged; nothing panics. Texts that do not parse also put
//! MLIR's own parse error in the diagnostic stream.

use autofuse_ascir::graph::{FuncSpec, OperandSpec};
use melior::ir::{
    attribute::{AttributeLike, StringAttribute, TypeAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    r#type::FunctionType,
    Attribute, Block, BlockRef, Identifier, Location, OperationRef, Region, RegionLike, Type,
    Value,
};
use melior::ContextRef;
use mlir_sys::MlirStringRef;
use std::collections::HashMap;
use std::marker::PhantomData;

/// Why a function could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BuildError {
    pub message: String,
}

fn error(message: String) -> BuildError {
    BuildError { message }
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Attributes, types, locations and identifiers of one context, by their text.
pub struct SpecCache<'c> {
    context: mlir_sys::MlirContext,
    attributes: HashMap<String, Attribute<'c>>,
    types: HashMap<String, Type<'c>>,
    locations: HashMap<String, Location<'c>>,
    identifiers: HashMap<String, Identifier<'c>>,
    _context: PhantomData<ContextRef<'c>>,
}

impl<'c> SpecCache<'c> {
    /// An empty cache for the context of `anchor` (any op of that context).
    pub fn new<'a>(anchor: &impl OperationLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
        let context_ref = anchor.context();
        // SAFETY: only the raw handle is kept; the context outlives 'c, the lifetime of
        // everything this cache hands out.
        let context = unsafe { context_ref.to_ref() }.to_raw();
        SpecCache {
            context,
            attributes: HashMap::new(),
            types: HashMap::new(),
            locations: HashMap::new(),
            identifiers: HashMap::new(),
            _context: PhantomData,
        }
    }

    /// The attribute `text` parses to.
    pub fn attribute(&mut self, text: &str) -> Result<Attribute<'c>, BuildError> {
        if let Some(&attribute) = self.attributes.get(text) {
            return Ok(attribute);
        }
        // SAFETY: the context is live for 'c; the string ref points to `text` for the
        // duration of the call; a null result (parse failure) is checked.
        let attribute = unsafe {
            Attribute::from_option_raw(mlir_sys::mlirAttributeParseGet(
                self.context,
                string_ref(text),
            ))
        }
        .ok_or_else(|| error(format!("the attribute '{text}' does not parse")))?;
        self.attributes.insert(text.to_string(), attribute);
        Ok(attribute)
    }

    /// The type `text` parses to.
    pub fn r#type(&mut self, text: &str) -> Result<Type<'c>, BuildError> {
        if let Some(&ty) = self.types.get(text) {
            return Ok(ty);
        }
        // SAFETY: as for attributes.
        let ty = unsafe {
            Type::from_option_raw(mlir_sys::mlirTypeParseGet(self.context, string_ref(text)))
        }
        .ok_or_else(|| error(format!("the type '{text}' does not parse")))?;
        self.types.insert(text.to_string(), ty);
        Ok(ty)
    }

    /// The location `text` (`loc(...)`, as MLIR prints locations) parses to.
    pub fn location(&mut self, text: &str) -> Result<Location<'c>, BuildError> {
        if let Some(&location) = self.locations.get(text) {
            return Ok(location);
        }
        // MLIR's attribute parser reads `loc(...)` as a location attribute; anything else
        // that parses is not a location and must not reach `mlirLocationFromAttribute`.
        let attribute = self.attribute(text)?;
        // SAFETY: the attribute is live; the conversion is only done for location
        // attributes, which is the C API's precondition.
        let location = unsafe {
            if !mlir_sys::mlirAttributeIsALocation(attribute.to_raw()) {
                return Err(error(format!("'{text}' is not a location")));
            }
            Location::from_raw(mlir_sys::mlirLocationFromAttribute(attribute.to_raw()))
        };
        self.locations.insert(text.to_string(), location);
        Ok(location)
    }

    fn identifier(&mut self, name: &str) -> Identifier<'c> {
        if let Some(&identifier) = self.identifiers.get(name) {
            return identifier;
        }
        // SAFETY: the context is live for 'c; the name is copied into the context.
        let identifier = unsafe {
            Identifier::from_raw(mlir_sys::mlirIdentifierGet(self.context, string_ref(name)))
        };
        self.identifiers.insert(name.to_string(), identifier);
        identifier
    }

    /// Named attributes from (name, text) pairs; a name given twice is refused as the
    /// parser refuses it in an attribute dictionary.
    fn named(
        &mut self,
        attrs: &[(String, String)],
    ) -> Result<Vec<(Identifier<'c>, Attribute<'c>)>, BuildError> {
        let mut named = Vec::with_capacity(attrs.len());
        for (i, (name, text)) in attrs.iter().enumerate() {
            if attrs[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(error(format!("the attribute '{name}' is given twice")));
            }
            named.push((self.identifier(name), self.attribute(text)?));
        }
        Ok(named)
    }
}

/// Builds `spec` as a `func.func` and appends it to `block` (a module body). `location`
/// is the function's location, and that of its arguments, its return and every op
/// without a `loc`.
pub fn append_func<'c, 'a>(
    cache: &mut SpecCache<'c>,
    block: BlockRef<'c, 'a>,
    spec: &FuncSpec,
    location: Location<'c>,
) -> Result<OperationRef<'c, 'a>, BuildError> {
    let func = build_func(cache, spec, location)
        .map_err(|e| error(format!("@{}: {}", spec.name, e.message)))?;
    Ok(block.append_operation(func))
}

fn build_func<'c>(
    cache: &mut SpecCache<'c>,
    spec: &FuncSpec,
    location: Location<'c>,
) -> Result<melior::ir::Operation<'c>, BuildError> {
    let arg_types = spec
        .arg_types
        .iter()
        .map(|t| cache.r#type(t))
        .collect::<Result<Vec<_>, _>>()?;
    let result_types = spec
        .result_types
        .iter()
        .map(|t| cache.r#type(t))
        .collect::<Result<Vec<_>, _>>()?;
    let arguments: Vec<(Type, Location)> = arg_types.iter().map(|&t| (t, location)).collect();
    let body = Block::new(&arguments);
    {
        let mut values: Vec<Value<'c, '_>> = Vec::with_capacity(spec.ops.len());
        for (index, op) in spec.ops.iter().enumerate() {
            let in_op = |e: BuildError| error(format!("op {index} '{}': {}", op.name, e.message));
            let operands = op
                .operands
                .iter()
                .map(|&operand| match operand {
                    OperandSpec::Arg(i) => body.argument(i).ok().map(Value::from),
                    OperandSpec::Op(i) => values.get(i).copied(),
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| in_op(error("an operand is not defined before it".into())))?;
            let result_type = cache.r#type(&op.result_type).map_err(in_op)?;
            let attributes = cache.named(&op.attrs).map_err(in_op)?;
            let op_location = match &op.loc {
                Some(text) => cache.location(text).map_err(in_op)?,
                None => location,
            };
            let built = OperationBuilder::new(&op.name, op_location)
                .add_operands(&operands)
                .add_results(&[result_type])
                .add_attributes(&attributes)
                .build()
                .map_err(|e| in_op(error(e.to_string())))?;
            let built = body.append_operation(built);
            let result = built.result(0).map_err(|e| in_op(error(e.to_string())))?;
            values.push(result.into());
        }
        let returned = spec
            .returns
            .iter()
            .enumerate()
            .map(|(i, op)| {
                op.and_then(|op| values.get(op).copied())
                    .ok_or_else(|| error(format!("no op gives result {i}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ret = OperationBuilder::new("func.return", location)
            .add_operands(&returned)
            .build()
            .map_err(|e| error(format!("func.return: {e}")))?;
        body.append_operation(ret);
    }
    let region = Region::new();
    region.append_block(body);
    // SAFETY: the context is live for 'c; `ContextRef` is only a handle to it.
    let context_ref = unsafe { ContextRef::from_raw(cache.context) };
    // SAFETY: `to_ref` borrows `context_ref`, which lives until the end of this function,
    // longer than any use of `context`.
    let context = unsafe { context_ref.to_ref() };
    let function_type = FunctionType::new(context, &arg_types, &result_types);
    let mut attributes = vec![
        (
            cache.identifier("sym_name"),
            StringAttribute::new(context, &spec.name).into(),
        ),
        (
            cache.identifier("function_type"),
            TypeAttribute::new(function_type.into()).into(),
        ),
    ];
    if let Some((name, _)) = spec
        .attrs
        .iter()
        .find(|(name, _)| matches!(name.as_str(), "sym_name" | "function_type"))
    {
        return Err(error(format!("the attribute '{name}' is given twice")));
    }
    attributes.extend(cache.named(&spec.attrs)?);
    OperationBuilder::new("func.func", location)
        .add_attributes(&attributes)
        .add_regions([region])
        .build()
        .map_err(|e| error(format!("func.func: {e}")))
}
