// Generated from dialects/ascir/src/ops.rs by `autofuse-opt --emit-irdl`; do not edit.
irdl.dialect @ascir {
  irdl.attribute @axis {
    %0 = irdl.base "#builtin.integer"
    %1 = irdl.base "#builtin.string"
    %2 = irdl.base "#builtin.string"
    %3 = irdl.base "#builtin.string"
    %4 = irdl.base "#builtin.array"
    irdl.parameters(id: %0, name: %1, size: %2, kind: %3, from: %4)
  }
  irdl.attribute @view {
    %0 = irdl.base "#builtin.array"
    %1 = irdl.base "#builtin.array"
    %2 = irdl.base "#builtin.array"
    irdl.parameters(axis: %0, repeats: %1, strides: %2)
  }
  irdl.operation @data {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "index" = %2, "view" = %3 }
  }
  irdl.operation @output {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "index" = %2, "view" = %3 }
  }
  irdl.operation @workspace {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.integer"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "index" = %2, "view" = %3 }
  }
  irdl.operation @scalar {
    %0 = irdl.any
    %1 = irdl.base "#builtin.string"
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.results(y: %0)
    irdl.attributes { "value" = %1, "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @arange {
    %0 = irdl.any
    %1 = irdl.base "#builtin.string"
    %2 = irdl.base "#builtin.string"
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.results(y: %0)
    irdl.attributes { "start" = %1, "delta" = %2, "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @load {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    %4 = irdl.base "#builtin.string"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3, "offset" = %4 }
  }
  irdl.operation @store {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    %4 = irdl.base "#builtin.string"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3, "offset" = %4 }
  }
  irdl.operation @broadcast {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @abs {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @neg {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @exp {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @log {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @sqrt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @rsqrt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @reciprocal {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @relu {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @sigmoid {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @tanh {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @erf {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @sign {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @floor {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @ceil {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @round {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @sin {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @cos {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @square {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @logical_not {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @isnan {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @isfinite {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @bitwise_not {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @add {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @sub {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @mul {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @div {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @pow {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @maximum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @minimum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @floor_div {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @mod {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @logical_and {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @logical_or {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @logical_xor {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @bitwise_and {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @eq {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @ne {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @lt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @le {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @gt {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @ge {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @leaky_relu {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    %4 = irdl.base "#builtin.float"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3, "alpha" = %4 }
  }
  irdl.operation @cast {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @select {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.any
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base @ascir::@view
    irdl.operands(cond: %0, on_true: %1, on_false: %2)
    irdl.results(y: %3)
    irdl.attributes { "sched_axis" = %4, "view" = %5 }
  }
  irdl.operation @where {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.any
    %4 = irdl.base "#builtin.array"
    %5 = irdl.base @ascir::@view
    irdl.operands(cond: %0, on_true: %1, on_false: %2)
    irdl.results(y: %3)
    irdl.attributes { "sched_axis" = %4, "view" = %5 }
  }
  irdl.operation @sum {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @mean {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @max {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @min {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @prod {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @any {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @all {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @transpose {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3 }
  }
  irdl.operation @concat {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    irdl.operands(lhs: %0, rhs: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4 }
  }
  irdl.operation @extract_slice {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    %4 = irdl.base "#builtin.integer"
    %5 = irdl.base "#builtin.string"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3, "axis" = %4, "offset" = %5 }
  }
  irdl.operation @split {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.base "#builtin.array"
    %3 = irdl.base @ascir::@view
    %4 = irdl.base "#builtin.integer"
    irdl.operands(x: %0)
    irdl.results(y: %1)
    irdl.attributes { "sched_axis" = %2, "view" = %3, "index" = %4 }
  }
  irdl.operation @gather {
    %0 = irdl.any
    %1 = irdl.any
    %2 = irdl.any
    %3 = irdl.base "#builtin.array"
    %4 = irdl.base @ascir::@view
    %5 = irdl.base "#builtin.integer"
    irdl.operands(params: %0, indices: %1)
    irdl.results(y: %2)
    irdl.attributes { "sched_axis" = %3, "view" = %4, "axis" = %5 }
  }
  irdl.operation @fill {
    %0 = irdl.any
    %1 = irdl.base "#builtin.array"
    %2 = irdl.base @ascir::@view
    %3 = irdl.base "#builtin.string"
    irdl.results(y: %0)
    irdl.attributes { "sched_axis" = %1, "view" = %2, "value" = %3 }
  }
}
