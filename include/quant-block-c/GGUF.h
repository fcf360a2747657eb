/*===- quant-block-c/GGUF.h - GGUF files from C -------------------*- C -*-===*\
|*                                                                            *|
|* Opens a GGUF file (memory-mapped and validated: a hostile file is an error *|
|* naming the field, never a crash), reads its metadata and tensor infos,     *|
|* describes each tensor's quant_block type and parts, repacks a tensor's     *|
|* ggml blocks into caller-owned part buffers, and imports the file as a      *|
|* module (quant-block/Target/GGUF). Failures return null / false and hand    *|
|* the reason to an MlirStringCallback.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_C_GGUF_H
#define QUANT_BLOCK_C_GGUF_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "quant-block-c/Runner.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open GGUF file.
typedef struct MlirQuantBlockGGUFFile {
  void *ptr;
} MlirQuantBlockGGUFFile;

/// Opens and validates `path`; null (and `onError` told why) on failure.
MLIR_CAPI_EXPORTED MlirQuantBlockGGUFFile mlirQuantBlockGGUFFileOpen(
    MlirStringRef path, MlirStringCallback onError, void *userData);
/// The same over bytes in memory (copied).
MLIR_CAPI_EXPORTED MlirQuantBlockGGUFFile mlirQuantBlockGGUFFileOpenBuffer(
    const void *data, size_t size, MlirStringCallback onError, void *userData);
MLIR_CAPI_EXPORTED void mlirQuantBlockGGUFFileClose(MlirQuantBlockGGUFFile f);

static inline bool mlirQuantBlockGGUFFileIsNull(MlirQuantBlockGGUFFile f) {
  return !f.ptr;
}

MLIR_CAPI_EXPORTED uint32_t
mlirQuantBlockGGUFFileGetVersion(MlirQuantBlockGGUFFile f);
MLIR_CAPI_EXPORTED uint64_t
mlirQuantBlockGGUFFileGetAlignment(MlirQuantBlockGGUFFile f);
MLIR_CAPI_EXPORTED uint64_t
mlirQuantBlockGGUFFileGetDataOffset(MlirQuantBlockGGUFFile f);

//===--------------------------------------------------------------------===//
// Metadata. Value types are gguf.h's `enum gguf_type` (0 UINT8 ... 12
// FLOAT64, 8 STRING, 9 ARRAY).
//===--------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFFileGetNumMetadata(MlirQuantBlockGGUFFile f);
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFFileGetMetadataKey(MlirQuantBlockGGUFFile f, intptr_t pos);
/// The index of `key`, or -1.
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFFileFindMetadata(MlirQuantBlockGGUFFile f, MlirStringRef key);
MLIR_CAPI_EXPORTED uint32_t
mlirQuantBlockGGUFFileGetMetadataType(MlirQuantBlockGGUFFile f, intptr_t pos);
/// Scalars: an integer or bool as int64 (false for UINT64 values above
/// INT64_MAX: read them with ...AsUnsigned), floats as double, a string.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockGGUFFileGetMetadataInteger(MlirQuantBlockGGUFFile f, intptr_t pos,
                                         int64_t *value);
MLIR_CAPI_EXPORTED uint64_t mlirQuantBlockGGUFFileGetMetadataAsUnsigned(
    MlirQuantBlockGGUFFile f, intptr_t pos);
MLIR_CAPI_EXPORTED double
mlirQuantBlockGGUFFileGetMetadataFloat(MlirQuantBlockGGUFFile f, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFFileGetMetadataString(MlirQuantBlockGGUFFile f, intptr_t pos);
/// Arrays: element type, size, the raw little-endian elements of a numeric
/// or bool array (count * element size bytes, in the mapping), and string
/// element `i` of a string array.
MLIR_CAPI_EXPORTED uint32_t mlirQuantBlockGGUFFileGetMetadataArrayType(
    MlirQuantBlockGGUFFile f, intptr_t pos);
MLIR_CAPI_EXPORTED uint64_t mlirQuantBlockGGUFFileGetMetadataArraySize(
    MlirQuantBlockGGUFFile f, intptr_t pos);
MLIR_CAPI_EXPORTED const void *
mlirQuantBlockGGUFFileGetMetadataArrayData(MlirQuantBlockGGUFFile f,
                                           intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef mlirQuantBlockGGUFFileGetMetadataArrayString(
    MlirQuantBlockGGUFFile f, intptr_t pos, uint64_t i);

//===--------------------------------------------------------------------===//
// Tensors.
//===--------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFFileGetNumTensors(MlirQuantBlockGGUFFile f);
/// The index of tensor `name`, or -1.
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFFileFindTensor(MlirQuantBlockGGUFFile f, MlirStringRef name);
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFTensorGetName(MlirQuantBlockGGUFFile f, intptr_t tensor);
/// ggml's type id and name ("Q4_K").
MLIR_CAPI_EXPORTED uint32_t
mlirQuantBlockGGUFTensorGetType(MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFTensorGetTypeName(MlirQuantBlockGGUFFile f, intptr_t tensor);
/// ggml's dimensions (ne[0] is the row length; the row-major shape is ne
/// reversed).
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFTensorGetNumDims(MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED int64_t mlirQuantBlockGGUFTensorGetNe(
    MlirQuantBlockGGUFFile f, intptr_t tensor, intptr_t dim);
/// Offset in the file and size in bytes of the tensor's data.
MLIR_CAPI_EXPORTED uint64_t mlirQuantBlockGGUFTensorGetFileOffset(
    MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED uint64_t
mlirQuantBlockGGUFTensorGetByteSize(MlirQuantBlockGGUFFile f, intptr_t tensor);
/// The tensor's bytes in the mapping (ggml's blocks).
MLIR_CAPI_EXPORTED const void *
mlirQuantBlockGGUFTensorGetData(MlirQuantBlockGGUFFile f, intptr_t tensor);

/// The quant_block form of a tensor. False (and `onError` told why: the
/// type quant_block cannot express) for unsupported types.
MLIR_CAPI_EXPORTED bool
mlirQuantBlockGGUFTensorIsSupported(MlirQuantBlockGGUFFile f, intptr_t tensor,
                                    MlirStringCallback onError, void *userData);
/// Its MLIR type text and scheme text (empty for plain tensors); whether the
/// codes are stored wider than in the file.
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFTensorGetMLIRType(MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED MlirStringRef
mlirQuantBlockGGUFTensorGetScheme(MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED bool
mlirQuantBlockGGUFTensorIsWidened(MlirQuantBlockGGUFFile f, intptr_t tensor);
/// Its parts, in the order a compiled function takes them: role ("data",
/// "scales", "zero_points", "outer_scales", "outer_mins"), element type,
/// rank and shape.
MLIR_CAPI_EXPORTED intptr_t
mlirQuantBlockGGUFTensorGetNumParts(MlirQuantBlockGGUFFile f, intptr_t tensor);
MLIR_CAPI_EXPORTED MlirStringRef mlirQuantBlockGGUFTensorGetPartRole(
    MlirQuantBlockGGUFFile f, intptr_t tensor, intptr_t part);
MLIR_CAPI_EXPORTED MlirQuantBlockElementType
mlirQuantBlockGGUFTensorGetPartElementType(MlirQuantBlockGGUFFile f,
                                           intptr_t tensor, intptr_t part);
MLIR_CAPI_EXPORTED intptr_t mlirQuantBlockGGUFTensorGetPartRank(
    MlirQuantBlockGGUFFile f, intptr_t tensor, intptr_t part);
MLIR_CAPI_EXPORTED int64_t mlirQuantBlockGGUFTensorGetPartDim(
    MlirQuantBlockGGUFFile f, intptr_t tensor, intptr_t part, intptr_t dim);

/// Repacks the tensor into `numParts` dense buffers (one per part, each of
/// the part's size; shapes are checked) using up to `numThreads` threads.
MLIR_CAPI_EXPORTED bool mlirQuantBlockGGUFTensorRepack(
    MlirQuantBlockGGUFFile f, intptr_t tensor, intptr_t numParts,
    const MlirQuantBlockBuffer *parts, int numThreads,
    MlirStringCallback onError, void *userData);

/// Drops the tensor's pages of the mapped file from the process's resident
/// set (after repacking it; they stay in the page cache).
MLIR_CAPI_EXPORTED void
mlirQuantBlockGGUFTensorReleaseData(MlirQuantBlockGGUFFile f, intptr_t tensor);

/// Repacks rows [rowBegin, rowEnd) of the tensor (a row: the elements of
/// its last dimension, the leading dimensions flattened) into `numParts`
/// dense rank-2 buffers, [rowEnd - rowBegin, the part's last dimension]
/// each. With mlirQuantBlockGGUFTensorReleaseRows after each chunk, a
/// loader that converts a tensor chunk by chunk (into a layout of its own)
/// never holds the file's pages and a whole copy of a large tensor at once.
MLIR_CAPI_EXPORTED bool mlirQuantBlockGGUFTensorRepackRows(
    MlirQuantBlockGGUFFile f, intptr_t tensor, int64_t rowBegin, int64_t rowEnd,
    intptr_t numParts, const MlirQuantBlockBuffer *parts, int numThreads,
    MlirStringCallback onError, void *userData);

/// Drops the whole pages of rows [rowBegin, rowEnd) of the tensor's bytes
/// from the resident set (pages shared with other rows stay until
/// mlirQuantBlockGGUFTensorReleaseData).
MLIR_CAPI_EXPORTED void
mlirQuantBlockGGUFTensorReleaseRows(MlirQuantBlockGGUFFile f, intptr_t tensor,
                                    int64_t rowBegin, int64_t rowEnd);

/// Imports the tensors named in `names` (all when `numNames` is 0) as a
/// module of one function per tensor; null on failure, with the diagnostics
/// reported to the context's handler. `skipUnsupported` leaves out tensors
/// quant_block cannot express, with a warning each.
MLIR_CAPI_EXPORTED MlirModule mlirQuantBlockGGUFImport(
    MlirContext context, MlirQuantBlockGGUFFile f, intptr_t numNames,
    const MlirStringRef *names, bool skipUnsupported);

#ifdef __cplusplus
}
#endif

#endif // QUANT_BLOCK_C_GGUF_H
