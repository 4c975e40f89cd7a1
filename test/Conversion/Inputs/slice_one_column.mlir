func.func @column(%x: tensor<?x10x5xf32>, %y: tensor<?x10x1xf32>) -> tensor<?x10x1xf32> {
  %0 = "ascend.slice"(%x) {starts = [3], ends = [4], axes = [2], steps = [1]} : (tensor<?x10x5xf32>) -> tensor<?x10x1xf32>
  %1 = "ascend.exp"(%0) : (tensor<?x10x1xf32>) -> tensor<?x10x1xf32>
  %2 = "ascend.add"(%1, %y) : (tensor<?x10x1xf32>, tensor<?x10x1xf32>) -> tensor<?x10x1xf32>
  return %2 : tensor<?x10x1xf32>
}
