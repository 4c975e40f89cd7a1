// RUN: %autofuse-opt %s --split-input-file --verify-diagnostics
// IRDL constraints of tiling records are enforced with located errors.

// The kernel must be a symbol reference.
// expected-error@+1 {{expected base attribute 'builtin.symbol_ref' but got 'builtin.string'}}
"tiling.group"() {kernel = "k", x = [], y = [0], r = []} : () -> ()

// -----

// Every attribute is required.
// expected-error@+1 {{attribute "size_var" is expected but not provided}}
"tiling.split"() {kernel = @k, axis = 0, outer = 2, inner = 3, kind = "tile"} : () -> ()

// -----

// Records have no operands.
func.func @f(%x: i64) {
  // expected-error@+1 {{op expects exactly 0 operands, but got 1}}
  "tiling.case"(%x) {kernel = @k, key = 0, ub_split = [0], block_split = []} : (i64) -> ()
  return
}
