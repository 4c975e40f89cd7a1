//! autofuse-ir: what every dialect and pass shares, independent of MLIR: the machinery of
//! the op catalogue (each dialect keeps its own rows), the attribute and type text reader,
//! tensor types and the in-memory graph model, and host tensors for the interpreters.

pub mod attr;
pub mod catalogue;
pub mod graph;
pub mod hostmem;
pub mod tensor;
pub mod weights;
