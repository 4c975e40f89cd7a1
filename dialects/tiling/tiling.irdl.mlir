// Generated from dialects/tiling/src/ops.rs by `autofuse-opt --emit-irdl`; do not edit.
irdl.dialect @tiling {
  irdl.operation @group {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.array"
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.array"
    irdl.attributes { "kernel" = %0, "x" = %1, "y" = %2, "r" = %3 }
  }
  irdl.operation @split {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.integer"
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.string"
    %5 = irdl.base "#builtin.string"
    irdl.attributes { "kernel" = %0, "axis" = %1, "outer" = %2, "inner" = %3, "kind" = %4, "size_var" = %5 }
  }
  irdl.operation @case {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.integer"
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.array"
    irdl.attributes { "kernel" = %0, "key" = %1, "ub_split" = %2, "block_split" = %3 }
  }
  irdl.operation @field {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.string"
    %2 = irdl.base "#builtin.string"
    %3 = irdl.base "#builtin.string"
    irdl.attributes { "kernel" = %0, "name" = %1, "type" = %2, "expr" = %3 }
  }
  irdl.operation @buffer {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.integer"
    %2 = irdl.base "#builtin.string"
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.string"
    irdl.attributes { "kernel" = %0, "id" = %1, "position" = %2, "count" = %3, "bytes" = %4 }
  }
  irdl.operation @function {
    %0 = irdl.base "#builtin.symbol_ref"
    %1 = irdl.base "#builtin.array"
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base "#builtin.integer"
    irdl.attributes { "kernel" = %0, "symbols" = %1, "ub_bytes" = %2, "cores" = %3 }
  }
}
