//===- EntrySignature.h - what quant-run passes to an entry -----*- C++ -*-===//
//
// quant-run reads the entry function's signature BEFORE lowering, while it
// still says "tensor<?x4096xf32>" rather than "ptr, ptr, i64, ...": that is
// where the element types, the ranks and the static dimensions are, and so
// the only place to check .npy inputs against and to give results a dtype.
// This file maps each argument and result to a boundary value (a dense
// memref descriptor or a scalar) and each element type to a numpy dtype.
//
// A !quant_block.tensor argument or result is refused by default: the entry
// is meant to take plain tensors and build quantized values inside with
// quant_block.pack. With `quantizedAsParts`, it is instead passed as the
// parts --convert-quant-block-to-linalg lowers it to (packed data, scales,
// zero points, ...; docs/Packing.md), one .npy file each: the form in which
// packed sub-byte weights exist outside the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_ENTRYSIGNATURE_H
#define QUANT_BLOCK_RUNNER_ENTRYSIGNATURE_H

#include "quant-block/Runner/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Types.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::quant_block::runner {

/// One argument or result of the entry function as it crosses the boundary:
/// a ranked tensor or memref becomes a memref descriptor (allocated pointer,
/// aligned pointer, offset, sizes, strides), anything else is a scalar.
struct BoundaryValue {
  /// "argument #1 of @main", or with a part, "argument #1 of @main (the
  /// scales of !quant_block.tensor<...>)", for messages.
  std::string name;
  /// The position of the function argument or result it belongs to (a
  /// quantized tensor passed as parts is several values of one position).
  unsigned position = 0;
  /// The type this value has at the boundary: the type in the signature, or
  /// the lowered type of one part of a quantized tensor.
  Type type;
  /// The element type (the type itself for a scalar).
  Type elementType;
  /// True for ranked tensors and memrefs.
  bool isShaped = false;
  /// The dimensions, ShapedType::kDynamic where the signature leaves them
  /// open; empty for scalars (which are 0-d arrays in .npy files).
  llvm::SmallVector<int64_t> shape;
  /// The dtype of the .npy files for this value.
  NpyDType dtype;
  /// The argument is marked `quant_block.device_resident`: the caller
  /// passes a device buffer of the GPU runtime (quantBlockGpuAlloc), filled
  /// once and kept across calls (every part of a quantized argument).
  bool deviceResident = false;
  /// Signless integers carry no signedness, so either numpy kind of their
  /// size is accepted (a packed-int4 byte array is naturally uint8).
  bool acceptsEitherSignedness = false;

  int64_t getRank() const { return shape.size(); }
  /// How many LLVM arguments the value becomes after lowering.
  unsigned getNumLLVMArguments() const {
    return isShaped ? 3 + 2 * getRank() : 1;
  }
  /// The accepted dtypes, as error messages show them: "f32 (<f4)",
  /// "i8 (|i1 or |u1)", "bf16 (<u2 holding the bf16 bit patterns)".
  std::string describeDType() const;
};

/// The entry function's arguments and results, as they cross the boundary
/// (a quantized tensor passed as parts is one value per part).
struct EntrySignature {
  std::string name;
  llvm::SmallVector<BoundaryValue> arguments;
  llvm::SmallVector<BoundaryValue> results;

  /// How many LLVM arguments the lowered function takes.
  unsigned getNumLLVMArguments() const;
};

/// The numpy dtype that holds elements of `type`, or std::nullopt when
/// quant-run cannot pass such elements (sub-byte integers and floats, whose
/// memory form is the lowering's choice). bf16 and the 8-bit float types
/// travel as their bit patterns (uint16, uint8).
std::optional<NpyDType> getNpyDType(Type type);

/// Finds the func.func `name` in `module` and describes its signature. Fails
/// with a message that names the rule when the function is missing, is only a
/// declaration, or has an argument or result quant-run cannot pass
/// (quantized tensors among them, unless `quantizedAsParts`).
llvm::Expected<EntrySignature>
inspectEntryFunction(ModuleOp module, llvm::StringRef name,
                     bool quantizedAsParts = false);

/// Checks input #`index` (`array`, read from `fileName`) against boundary
/// argument #`index` of `signature`: dtype, rank and every static dimension.
llvm::Error checkInput(const EntrySignature &signature, unsigned index,
                       const NpyArray &array, llvm::StringRef fileName);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_ENTRYSIGNATURE_H
