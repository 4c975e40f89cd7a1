func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "ascend.abs"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
