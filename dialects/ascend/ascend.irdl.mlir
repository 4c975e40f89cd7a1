// Generated from dialects/ascend/src/ops.rs by `autofuse-opt --emit-irdl`; do not edit.
irdl.dialect @ascend {
  irdl.attribute @dims {
    %0 = irdl.base "#builtin.array"
    irdl.parameters(dims: %0)
  }
  irdl.operation @abs {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @neg {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @exp {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @log {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @sqrt {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @rsqrt {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @reciprocal {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @relu {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @sigmoid {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @tanh {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @erf {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @sign {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @floor {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @ceil {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @round {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @sin {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @cos {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @square {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @logical_not {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @isnan {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @isfinite {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @bitwise_not {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @add {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @sub {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @mul {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @div {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @pow {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @maximum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @minimum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @floor_div {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @mod {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @logical_and {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @logical_or {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @logical_xor {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @bitwise_and {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @eq {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @ne {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @lt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @le {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @gt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @ge {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
  }
  irdl.operation @reduce_sum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_mean {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_max {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_min {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_prod {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_any {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @reduce_all {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2, "keep_dims" = %3 }
  }
  irdl.operation @leaky_relu {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.float"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "alpha" = %2 }
  }
  irdl.operation @select {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.any
    irdl.operands(cond: %0, on_true: %1, on_false: %2)
    irdl.results(y: %3)
  }
  irdl.operation @cast {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @broadcast_to {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @reshape {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @squeeze {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2 }
  }
  irdl.operation @unsqueeze {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axes" = %2 }
  }
  irdl.operation @transpose {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "perm" = %2 }
  }
  irdl.operation @concat {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "axis" = %3 }
  }
  irdl.operation @slice {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base "#builtin.array"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "starts" = %2, "ends" = %3, "axes" = %4, "steps" = %5 }
  }
  irdl.operation @gather {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    irdl.operands(data: %0, indices: %1)
    irdl.results(y: %2)
    irdl.attributes { "axis" = %3 }
  }
  irdl.operation @gather_elements {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    irdl.operands(data: %0, indices: %1)
    irdl.results(y: %2)
    irdl.attributes { "axis" = %3 }
  }
  irdl.operation @gather_nd {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    irdl.operands(data: %0, indices: %1)
    irdl.results(y: %2)
    irdl.attributes { "batch_dims" = %3 }
  }
  irdl.operation @pad {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.float"
    %4 = irdl.base "#builtin.string"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "pads" = %2, "value" = %3, "mode" = %4 }
  }
  irdl.operation @cumsum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axis" = %2, "exclusive" = %3, "reverse" = %4 }
  }
  irdl.operation @softmax {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axis" = %2 }
  }
  irdl.operation @log_softmax {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "axis" = %2 }
  }
  irdl.operation @layer_norm {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.any
    %4 = irdl.base "#builtin.integer"
    %5 = irdl.base "#builtin.float"
    irdl.operands(x: %0, gamma: %1, beta: %2)
    irdl.results(y: %3)
    irdl.attributes { "axis" = %4, "epsilon" = %5 }
  }
  irdl.operation @rms_norm {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.float"
    irdl.operands(x: %0, gamma: %1)
    irdl.results(y: %2)
    irdl.attributes { "axis" = %3, "epsilon" = %4 }
  }
  irdl.operation @gelu {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.string"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "approximate" = %2 }
  }
  irdl.operation @silu {
    %0 = irdl.any
    %1 = irdl.any
    irdl.operands(x: %0)
    irdl.results(y: %1)
  }
  irdl.operation @swish {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.float"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "beta" = %2 }
  }
  irdl.operation @swiglu {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.operands(gate: %0, up: %1)
    irdl.results(y: %2)
  }
  irdl.operation @clip {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.any
    irdl.operands(x: %0, min: %1, max: %2)
    irdl.results(y: %3)
  }
  irdl.operation @matmul {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.integer"
    %4 = irdl.base "#builtin.integer"
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "transpose_a" = %3, "transpose_b" = %4 }
  }
  irdl.operation @conv {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base "#builtin.array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(x: %0, w: %1)
    irdl.results(y: %2)
    irdl.attributes { "strides" = %3, "dilations" = %4, "pads" = %5, "groups" = %6 }
  }
  irdl.operation @conv_transpose {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base "#builtin.array"
    %6 = irdl.base "#builtin.array"
    %7 = irdl.base "#builtin.integer"
    irdl.operands(x: %0, w: %1)
    irdl.results(y: %2)
    irdl.attributes { "strides" = %3, "dilations" = %4, "pads" = %5, "output_padding" = %6, "groups" = %7 }
  }
  irdl.operation @max_pool {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base "#builtin.array"
    %6 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "kernel_shape" = %2, "strides" = %3, "dilations" = %4, "pads" = %5, "ceil_mode" = %6 }
  }
  irdl.operation @avg_pool {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base "#builtin.array"
    %6 = irdl.base "#builtin.integer"
    %7 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "kernel_shape" = %2, "strides" = %3, "dilations" = %4, "pads" = %5, "ceil_mode" = %6, "count_include_pad" = %7 }
  }
  irdl.operation @constant {
    %0 = irdl.any
    %1 = irdl.any
    irdl.results(y: %0)
    irdl.attributes { "value" = %1 }
  }
  irdl.operation @parameter {
    %0 = irdl.any
    %1 = irdl.base "#builtin.string"
    %2 = irdl.base "#builtin.integer"
    irdl.results(y: %0)
    irdl.attributes { "file" = %1, "offset" = %2 }
  }
  irdl.operation @symbolic_constant {
    %0 = irdl.any
    %1 = irdl.base "#builtin.array"
    irdl.results(y: %0)
    irdl.attributes { "values" = %1 }
  }
  irdl.operation @range {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    irdl.results(y: %0)
    irdl.attributes { "start" = %1, "delta" = %2 }
  }
}
