// A module that calls printMemrefF32, which only libmlir_runner_utils.so
// defines, for errors.mlir.
func.func @main(%x: tensor<4xf32>) {
  %u = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
