//===- MemRefMarshaling.h - arguments and results of a packed call -*- C++ -*-//
//
// mlir::ExecutionEngine wraps every function `f` of the LLVM module in
// `void _mlir_f(void **args)`: args[i] points to the i-th argument of the
// LLVM function and, when it returns a value, args[n] points to where the
// value is stored (upstream `packFunctionArguments` in
// mlir/lib/ExecutionEngine/ExecutionEngine.cpp). After --convert-func-to-llvm
// (without llvm.emit_c_interface or bare pointers), a memref argument of
// rank r is 3 + 2r LLVM arguments,
//
//   allocated ptr, aligned ptr, i64 offset, i64 sizes[r], i64 strides[r],
//
// and the results are returned as one value: a memref descriptor struct
// {ptr, ptr, i64, [r x i64], [r x i64]} or a scalar for one result, an LLVM
// struct of those for several. PackedCall builds the argument array and the
// result storage (with LLVM's natural struct layout: each field aligned to
// its own alignment) and reads and frees the results.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_MEMREFMARSHALING_H
#define QUANT_BLOCK_RUNNER_MEMREFMARSHALING_H

#include "quant-block/Runner/EntrySignature.h"
#include "quant-block/Runner/Npy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlir::quant_block::runner {

/// A strided view of memory, as a memref descriptor describes it.
struct MemRefView {
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> strides;
};

/// Copies the elements of `view` (`elementSize` bytes each) to
/// `destination`, densely and in row-major order, honouring the view's offset
/// and strides.
void copyToDense(const MemRefView &view, unsigned elementSize,
                 char *destination);

/// The argument array and result storage of calls to one entry function.
class PackedCall {
public:
  explicit PackedCall(const EntrySignature &signature);

  /// Passes `array` as argument #`index`: a dense row-major memref over its
  /// buffer (which must outlive the calls), or the 0-d array's value for a
  /// scalar. The array has been checked against the signature.
  void setArgument(unsigned index, const NpyArray &array);

  /// Passes the dense row-major elements at `data` with dimensions `shape`
  /// as argument #`index` (for a scalar, the value at `data`). The memory
  /// must outlive the calls.
  void setDenseArgument(unsigned index, const void *data,
                        llvm::ArrayRef<int64_t> shape);

  /// The `void **` to hand to the `_mlir_<entry>` wrapper. The results of the
  /// previous call are forgotten: free them first (freeResults).
  void **prepare();

  /// Reads memref result #`index` of the last call.
  MemRefView getMemRefResult(unsigned index) const;

  /// Copies result #`index` of the last call into a dense array with the
  /// result's dtype (a 0-d array for a scalar).
  llvm::Expected<NpyArray> copyResult(unsigned index) const;

  /// Frees the buffers of the memref results of the last call: the compiled
  /// code malloc'ed them and handed their ownership to the caller (freed
  /// with cachingFree, which suits both libc's and the caching malloc). A
  /// buffer is freed once even when several results share it, and never when it
  /// is an argument's or a memref.get_global's (whose descriptor carries
  /// 0xdeadbeef as its allocated pointer).
  void freeResults();

private:
  const EntrySignature &signature;
  /// One 8-byte slot per LLVM argument; args[i] points to slot i.
  std::vector<uint64_t> argumentSlots;
  /// The first slot of each entry argument.
  llvm::SmallVector<unsigned> firstSlot;
  /// The byte offset of each result in the result storage.
  llvm::SmallVector<size_t> resultOffsets;
  std::vector<uint64_t> resultStorage;
  std::vector<void *> packed;
};

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_MEMREFMARSHALING_H
