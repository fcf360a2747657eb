/*===- quant-block-c/QuantBlock.h - quant_block C API -------------*- C -*-===*\
|*                                                                            *|
|* The C API of the quant_block dialect, in the conventions of mlir-c         *|
|* (mlir-c/Dialect/Quant.h): a dialect handle, `mlir...IsA...` predicates,    *|
|* `...Get` constructors and one getter per field. libQuantBlockCAPI.so       *|
|* also exports the core MLIR C API (mlirContextCreate, mlirAttributeParseGet,*|
|* ...), so a C or Python (ctypes) client needs only that one library.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_C_QUANTBLOCK_H
#define QUANT_BLOCK_C_QUANTBLOCK_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(QuantBlock, quant_block);

/// Zero-point domains (torchao's ZeroPointDomain).
typedef enum {
  MlirQuantBlockZeroPointNone = 0,
  MlirQuantBlockZeroPointInt = 1,
  MlirQuantBlockZeroPointFloat = 2,
} MlirQuantBlockZeroPointDomain;

/// Rounding of scaled values to storage values (the scheme's `rounding`).
typedef enum {
  MlirQuantBlockRoundingHalfToEven = 0,
  MlirQuantBlockRoundingHalfAwayFromZero = 1,
  MlirQuantBlockRoundingTowardZero = 2,
} MlirQuantBlockRoundingMode;

/// Rounding of an MX shared exponent (the scheme's `scale_rounding`).
typedef enum {
  MlirQuantBlockScaleRoundingFloor = 0,
  MlirQuantBlockScaleRoundingCeil = 1,
  MlirQuantBlockScaleRoundingHalfToEven = 2,
} MlirQuantBlockScaleRoundingMode;

/// Block entry covering the whole dimension (`*` in the IR syntax).
#define MLIR_QUANT_BLOCK_WHOLE_DIMENSION ((int64_t)-1)

//===----------------------------------------------------------------------===//
// #quant_block.scheme
//===----------------------------------------------------------------------===//

/// True if `attr` is a #quant_block.scheme.
MLIR_CAPI_EXPORTED bool mlirAttributeIsAQuantBlockScheme(MlirAttribute attr);

/// Builds a scheme with the defaults for everything else (full storage
/// range, half-to-even, saturating, floor scale rounding, no outer scale).
/// `zeroPointType` may be null (no zero point). Returns a null attribute and
/// emits a diagnostic on the context when the scheme is invalid.
MLIR_CAPI_EXPORTED MlirAttribute mlirQuantBlockSchemeAttrGet(
    MlirContext ctx, MlirType storageType, MlirType expressedType,
    intptr_t blockRank, const int64_t *blockShape, MlirType scaleType,
    MlirType zeroPointType);

/// The named OCP MX / NVFP4 scheme `name` ("mxfp4", "nvfp4", ...) expressing
/// `expressedType`, or a null attribute if the name is unknown.
MLIR_CAPI_EXPORTED MlirAttribute mlirQuantBlockSchemeAttrGetNamed(
    MlirContext ctx, MlirStringRef name, MlirType expressedType);

MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetStorageType(MlirAttribute scheme);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetExpressedType(MlirAttribute scheme);
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockSchemeAttrGetBlockRank(MlirAttribute scheme);
/// Block size at `pos`, or MLIR_QUANT_BLOCK_WHOLE_DIMENSION.
MLIR_CAPI_EXPORTED int64_t
mlirQuantBlockSchemeAttrGetBlockSize(MlirAttribute scheme, intptr_t pos);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetScaleType(MlirAttribute scheme);
/// Null when the scheme has no zero point.
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetZeroPointType(MlirAttribute scheme);
MLIR_CAPI_EXPORTED MlirQuantBlockZeroPointDomain
mlirQuantBlockSchemeAttrGetZeroPointDomain(MlirAttribute scheme);
MLIR_CAPI_EXPORTED int64_t
mlirQuantBlockSchemeAttrGetQmin(MlirAttribute scheme);
MLIR_CAPI_EXPORTED int64_t
mlirQuantBlockSchemeAttrGetQmax(MlirAttribute scheme);
MLIR_CAPI_EXPORTED bool
mlirQuantBlockSchemeAttrGetSaturate(MlirAttribute scheme);
MLIR_CAPI_EXPORTED MlirQuantBlockRoundingMode
mlirQuantBlockSchemeAttrGetRounding(MlirAttribute scheme);
MLIR_CAPI_EXPORTED MlirQuantBlockScaleRoundingMode
mlirQuantBlockSchemeAttrGetScaleRounding(MlirAttribute scheme);
MLIR_CAPI_EXPORTED bool mlirQuantBlockSchemeAttrHasOuter(MlirAttribute scheme);
/// The outer (second-level) scale: its element type (null when the scheme
/// has none), its block shape over the scale tensor (rank 0: one outer scale
/// for the whole tensor) and the type of the outer mins (null when none).
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetOuterScaleType(MlirAttribute scheme);
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockSchemeAttrGetOuterBlockRank(MlirAttribute scheme);
/// Outer block size at `pos`, or MLIR_QUANT_BLOCK_WHOLE_DIMENSION.
MLIR_CAPI_EXPORTED int64_t
mlirQuantBlockSchemeAttrGetOuterBlockSize(MlirAttribute scheme, intptr_t pos);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockSchemeAttrGetOuterMinType(MlirAttribute scheme);
/// The row tile of the row-tiled layout (`row_tile = R`, docs/Packing.md),
/// or 0 for the row-major layout.
MLIR_CAPI_EXPORTED int64_t
mlirQuantBlockSchemeAttrGetRowTile(MlirAttribute scheme);
/// The scheme with another row tile (0: row-major); null (and a diagnostic)
/// if that is not a valid scheme.
MLIR_CAPI_EXPORTED MlirAttribute
mlirQuantBlockSchemeAttrWithRowTile(MlirAttribute scheme, int64_t rowTile);
/// Writes the standard name ("mxfp4", ...) into `name` and returns true if
/// the scheme is exactly a named one.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockSchemeAttrGetStandardName(MlirAttribute scheme,
                                        MlirStringRef *name);

//===----------------------------------------------------------------------===//
// !quant_block.tensor
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool mlirTypeIsAQuantBlockTensor(MlirType type);

/// Builds a quantized tensor type; null (and a diagnostic) if invalid.
MLIR_CAPI_EXPORTED MlirType mlirQuantBlockTensorTypeGet(MlirContext ctx,
                                                        intptr_t rank,
                                                        const int64_t *shape,
                                                        MlirAttribute scheme);
MLIR_CAPI_EXPORTED MlirAttribute
mlirQuantBlockTensorTypeGetScheme(MlirType type);
/// tensor<shape x storage>, tensor<ceil(shape / block) x scale>, and the zero
/// points type (null when the scheme has none).
MLIR_CAPI_EXPORTED MlirType mlirQuantBlockTensorTypeGetDataType(MlirType type);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockTensorTypeGetScalesType(MlirType type);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockTensorTypeGetZeroPointsType(MlirType type);
/// The lowered parts a compiled function takes or returns for a value of
/// this type (docs/Packing.md, "Lowered tensors"): packed i8 data, scales,
/// then zero points, outer scales and outer mins where present, with
/// unsigned integer element types signless, in the row-tiled shapes where
/// the scheme has a row tile. 0 parts (and a null type) when the type has
/// no lowering.
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockTensorTypeGetNumLoweredParts(MlirType type);
MLIR_CAPI_EXPORTED MlirType
mlirQuantBlockTensorTypeGetLoweredPartType(MlirType type, intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif // QUANT_BLOCK_C_QUANTBLOCK_H
