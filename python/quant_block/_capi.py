"""ctypes declarations of libQuantBlockCAPI.so: the core MLIR C API it
exports and quant-block's own (include/quant-block-c/*.h).

The library is found, in order, at $QUANT_BLOCK_CAPI_LIBRARY; beside the
package as installed or staged by CMake (<root>/python/quant_block and
<root>/lib/libQuantBlockCAPI.so, which is both the build tree and an
installed prefix); in $QUANT_BLOCK_BINARY_DIR/lib; and in build/lib of the
source checkout. It is loaded on first use, so that `quant_block.reference`
and `quant_block.webnn` work without it.
"""

import ctypes
import os

LIBRARY_NAME = "libQuantBlockCAPI.so"

_here = os.path.dirname(os.path.abspath(__file__))


def candidate_paths():
    """Where the library is looked for, in order."""
    paths = []
    if os.environ.get("QUANT_BLOCK_CAPI_LIBRARY"):
        paths.append(os.environ["QUANT_BLOCK_CAPI_LIBRARY"])
    paths.append(os.path.join(_here, "..", "..", "lib", LIBRARY_NAME))
    if os.environ.get("QUANT_BLOCK_BINARY_DIR"):
        paths.append(os.path.join(os.environ["QUANT_BLOCK_BINARY_DIR"], "lib",
                                  LIBRARY_NAME))
    paths.append(os.path.join(_here, "..", "..", "build", "lib", LIBRARY_NAME))
    return [os.path.normpath(path) for path in paths]


class StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    @staticmethod
    def of(text):
        data = text.encode() if isinstance(text, str) else bytes(text)
        buffer = ctypes.create_string_buffer(data, len(data))
        ref = StringRef(ctypes.cast(buffer, ctypes.c_void_p), len(data))
        ref._buffer = buffer  # Keeps the bytes alive as long as the ref.
        return ref

    def __str__(self):
        return ctypes.string_at(self.data, self.length).decode()


def _handle(name):
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


Context = _handle("MlirContext")
DialectRegistry = _handle("MlirDialectRegistry")
Module = _handle("MlirModule")
Operation = _handle("MlirOperation")
Attribute = _handle("MlirAttribute")
Type = _handle("MlirType")
Location = _handle("MlirLocation")
OpPrintingFlags = _handle("MlirOpPrintingFlags")
PassManager = _handle("MlirPassManager")
OpPassManager = _handle("MlirOpPassManager")
Executable = _handle("MlirQuantBlockExecutable")
Function = _handle("MlirQuantBlockFunction")
Results = _handle("MlirQuantBlockResults")
GGUFFile = _handle("MlirQuantBlockGGUFFile")


class LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


class ElementType(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_char), ("size", ctypes.c_int32)]


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rank", ctypes.c_ssize_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("element_type", ElementType)]


class CPUTarget(ctypes.Structure):
    _fields_ = [("avx512f", ctypes.c_bool), ("avx512_vnni", ctypes.c_bool),
                ("amx_int8", ctypes.c_bool), ("amx_bf16", ctypes.c_bool),
                ("f16c", ctypes.c_bool),
                ("vector_bits", ctypes.c_int64)]


class CompileOptions(ctypes.Structure):
    _fields_ = [("quantized_as_parts", ctypes.c_bool),
                ("num_libraries", ctypes.c_ssize_t),
                ("libraries", ctypes.POINTER(StringRef)),
                ("reuse_buffers", ctypes.c_bool)]


# void (*)(MlirStringRef, void *)
StringCallback = ctypes.CFUNCTYPE(None, StringRef, ctypes.c_void_p)
# MlirLogicalResult (*)(MlirDiagnostic, void *): a one-byte struct comes back
# in a register exactly like an int8 (ctypes callbacks cannot return structs).
DiagnosticHandler = ctypes.CFUNCTYPE(ctypes.c_int8, ctypes.c_void_p,
                                     ctypes.c_void_p)

DYNAMIC_DIMENSION = -(2 ** 63)
WHOLE_DIMENSION = -1

_SIGNATURES = {
    # Core IR.
    "mlirDialectRegistryCreate": ([], DialectRegistry),
    "mlirDialectRegistryDestroy": ([DialectRegistry], None),
    "mlirContextCreateWithRegistry": ([DialectRegistry, ctypes.c_bool], Context),
    "mlirContextDestroy": ([Context], None),
    "mlirContextAttachDiagnosticHandler":
        ([Context, DiagnosticHandler, ctypes.c_void_p, ctypes.c_void_p],
         ctypes.c_uint64),
    "mlirDiagnosticGetLocation": ([ctypes.c_void_p], Location),
    "mlirDiagnosticGetSeverity": ([ctypes.c_void_p], ctypes.c_int),
    "mlirDiagnosticPrint": ([ctypes.c_void_p, StringCallback, ctypes.c_void_p],
                            None),
    "mlirDiagnosticGetNumNotes": ([ctypes.c_void_p], ctypes.c_ssize_t),
    "mlirDiagnosticGetNote": ([ctypes.c_void_p, ctypes.c_ssize_t],
                              ctypes.c_void_p),
    "mlirLocationPrint": ([Location, StringCallback, ctypes.c_void_p], None),
    "mlirModuleCreateParse": ([Context, StringRef], Module),
    "mlirModuleDestroy": ([Module], None),
    "mlirModuleGetOperation": ([Module], Operation),
    "mlirOperationPrint": ([Operation, StringCallback, ctypes.c_void_p], None),
    "mlirOperationPrintWithFlags":
        ([Operation, OpPrintingFlags, StringCallback, ctypes.c_void_p], None),
    "mlirOpPrintingFlagsCreate": ([], OpPrintingFlags),
    "mlirOpPrintingFlagsDestroy": ([OpPrintingFlags], None),
    "mlirOpPrintingFlagsEnableDebugInfo":
        ([OpPrintingFlags, ctypes.c_bool, ctypes.c_bool], None),
    "mlirOperationVerify": ([Operation], ctypes.c_bool),
    "mlirAttributeParseGet": ([Context, StringRef], Attribute),
    "mlirAttributePrint": ([Attribute, StringCallback, ctypes.c_void_p], None),
    "mlirTypePrint": ([Type, StringCallback, ctypes.c_void_p], None),
    # Passes.
    "mlirPassManagerCreate": ([Context], PassManager),
    "mlirPassManagerDestroy": ([PassManager], None),
    "mlirPassManagerGetAsOpPassManager": ([PassManager], OpPassManager),
    "mlirParsePassPipeline": ([OpPassManager, StringRef, StringCallback,
                               ctypes.c_void_p], LogicalResult),
    "mlirPassManagerRunOnOp": ([PassManager, Operation], LogicalResult),
    "mlirRegisterQuantBlockPasses": ([], None),
    "mlirQuantBlockRegisterUpstreamPasses": ([], None),
    "mlirQuantBlockRegisterAllDialects": ([DialectRegistry], None),
    # Schemes.
    "mlirAttributeIsAQuantBlockScheme": ([Attribute], ctypes.c_bool),
    "mlirQuantBlockSchemeAttrGetStorageType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetExpressedType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetBlockRank": ([Attribute], ctypes.c_ssize_t),
    "mlirQuantBlockSchemeAttrGetBlockSize": ([Attribute, ctypes.c_ssize_t],
                                             ctypes.c_int64),
    "mlirQuantBlockSchemeAttrGetScaleType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetZeroPointType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetQmin": ([Attribute], ctypes.c_int64),
    "mlirQuantBlockSchemeAttrGetQmax": ([Attribute], ctypes.c_int64),
    "mlirQuantBlockSchemeAttrGetSaturate": ([Attribute], ctypes.c_bool),
    "mlirQuantBlockSchemeAttrGetRounding": ([Attribute], ctypes.c_int),
    "mlirQuantBlockSchemeAttrGetScaleRounding": ([Attribute], ctypes.c_int),
    "mlirQuantBlockSchemeAttrHasOuter": ([Attribute], ctypes.c_bool),
    "mlirQuantBlockSchemeAttrGetRowTile": ([Attribute], ctypes.c_int64),
    "mlirQuantBlockSchemeAttrGetOuterScaleType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetOuterBlockRank": ([Attribute],
                                                  ctypes.c_ssize_t),
    "mlirQuantBlockSchemeAttrGetOuterBlockSize":
        ([Attribute, ctypes.c_ssize_t], ctypes.c_int64),
    "mlirQuantBlockSchemeAttrGetOuterMinType": ([Attribute], Type),
    "mlirQuantBlockSchemeAttrGetStandardName":
        ([Attribute, ctypes.POINTER(StringRef)], ctypes.c_bool),
    # Runner.
    "mlirQuantBlockExecutableCreate":
        ([Module, StringRef, ctypes.c_bool, StringCallback, ctypes.c_void_p],
         Executable),
    "mlirQuantBlockExecutableCreateWithLibraries":
        ([Module, StringRef, ctypes.c_bool, ctypes.c_ssize_t,
          ctypes.POINTER(StringRef), StringCallback, ctypes.c_void_p],
         Executable),
    "mlirQuantBlockExecutableCreateWithOptions":
        ([Module, StringRef, ctypes.POINTER(CompileOptions), StringCallback,
          ctypes.c_void_p], Executable),
    "mlirQuantBlockExecutableDestroy": ([Executable], None),
    "mlirQuantBlockReleaseCompilerMemory": ([], ctypes.c_uint64),
    "mlirQuantBlockResolveCPUTarget":
        ([StringRef, StringRef, ctypes.POINTER(CPUTarget), StringCallback,
          ctypes.c_void_p], ctypes.c_bool),
    "mlirQuantBlockExecutableUpload":
        ([Executable, ctypes.POINTER(Buffer), StringCallback, ctypes.c_void_p],
         ctypes.c_void_p),
    "mlirQuantBlockExecutableFreeDevice": ([Executable, ctypes.c_void_p],
                                           None),
    "mlirQuantBlockExecutableGetCopyStats":
        ([Executable, ctypes.POINTER(ctypes.c_uint64)], ctypes.c_bool),
    "mlirQuantBlockExecutableGetLaunchStats":
        ([Executable, ctypes.POINTER(ctypes.c_uint64)], ctypes.c_bool),
    "mlirQuantBlockFunctionIsArgumentDeviceResident":
        ([Function, ctypes.c_ssize_t], ctypes.c_bool),
    "mlirQuantBlockExecutableLookup":
        ([Executable, StringRef, StringCallback, ctypes.c_void_p], Function),
    "mlirQuantBlockFunctionGetNumArguments": ([Function], ctypes.c_ssize_t),
    "mlirQuantBlockFunctionGetNumResults": ([Function], ctypes.c_ssize_t),
    "mlirQuantBlockFunctionGetArgumentElementType":
        ([Function, ctypes.c_ssize_t], ElementType),
    "mlirQuantBlockFunctionGetArgumentRank": ([Function, ctypes.c_ssize_t],
                                              ctypes.c_ssize_t),
    "mlirQuantBlockFunctionGetArgumentDim":
        ([Function, ctypes.c_ssize_t, ctypes.c_ssize_t], ctypes.c_int64),
    "mlirQuantBlockFunctionGetArgumentName": ([Function, ctypes.c_ssize_t],
                                              StringRef),
    "mlirQuantBlockFunctionGetResultElementType":
        ([Function, ctypes.c_ssize_t], ElementType),
    "mlirQuantBlockFunctionGetResultRank": ([Function, ctypes.c_ssize_t],
                                            ctypes.c_ssize_t),
    "mlirQuantBlockFunctionCall":
        ([Function, ctypes.c_ssize_t, ctypes.POINTER(Buffer), StringCallback,
          ctypes.c_void_p], Results),
    "mlirQuantBlockResultsGetNum": ([Results], ctypes.c_ssize_t),
    "mlirQuantBlockResultsGet": ([Results, ctypes.c_ssize_t], Buffer),
    "mlirQuantBlockResultsDestroy": ([Results], None),
    # GGUF files (quant-block-c/GGUF.h).
    "mlirQuantBlockGGUFFileOpen": ([StringRef, StringCallback, ctypes.c_void_p],
                                   GGUFFile),
    "mlirQuantBlockGGUFFileOpenBuffer":
        ([ctypes.c_void_p, ctypes.c_size_t, StringCallback, ctypes.c_void_p],
         GGUFFile),
    "mlirQuantBlockGGUFFileClose": ([GGUFFile], None),
    "mlirQuantBlockGGUFFileGetVersion": ([GGUFFile], ctypes.c_uint32),
    "mlirQuantBlockGGUFFileGetAlignment": ([GGUFFile], ctypes.c_uint64),
    "mlirQuantBlockGGUFFileGetDataOffset": ([GGUFFile], ctypes.c_uint64),
    "mlirQuantBlockGGUFFileGetNumMetadata": ([GGUFFile], ctypes.c_ssize_t),
    "mlirQuantBlockGGUFFileGetMetadataKey": ([GGUFFile, ctypes.c_ssize_t],
                                             StringRef),
    "mlirQuantBlockGGUFFileFindMetadata": ([GGUFFile, StringRef],
                                           ctypes.c_ssize_t),
    "mlirQuantBlockGGUFFileGetMetadataType": ([GGUFFile, ctypes.c_ssize_t],
                                              ctypes.c_uint32),
    "mlirQuantBlockGGUFFileGetMetadataInteger":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.POINTER(ctypes.c_int64)],
         ctypes.c_bool),
    "mlirQuantBlockGGUFFileGetMetadataAsUnsigned":
        ([GGUFFile, ctypes.c_ssize_t], ctypes.c_uint64),
    "mlirQuantBlockGGUFFileGetMetadataFloat": ([GGUFFile, ctypes.c_ssize_t],
                                               ctypes.c_double),
    "mlirQuantBlockGGUFFileGetMetadataString": ([GGUFFile, ctypes.c_ssize_t],
                                                StringRef),
    "mlirQuantBlockGGUFFileGetMetadataArrayType":
        ([GGUFFile, ctypes.c_ssize_t], ctypes.c_uint32),
    "mlirQuantBlockGGUFFileGetMetadataArraySize":
        ([GGUFFile, ctypes.c_ssize_t], ctypes.c_uint64),
    "mlirQuantBlockGGUFFileGetMetadataArrayData":
        ([GGUFFile, ctypes.c_ssize_t], ctypes.c_void_p),
    "mlirQuantBlockGGUFFileGetMetadataArrayString":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_uint64], StringRef),
    "mlirQuantBlockGGUFFileGetNumTensors": ([GGUFFile], ctypes.c_ssize_t),
    "mlirQuantBlockGGUFFileFindTensor": ([GGUFFile, StringRef],
                                         ctypes.c_ssize_t),
    "mlirQuantBlockGGUFTensorGetName": ([GGUFFile, ctypes.c_ssize_t],
                                        StringRef),
    "mlirQuantBlockGGUFTensorGetType": ([GGUFFile, ctypes.c_ssize_t],
                                        ctypes.c_uint32),
    "mlirQuantBlockGGUFTensorGetTypeName": ([GGUFFile, ctypes.c_ssize_t],
                                            StringRef),
    "mlirQuantBlockGGUFTensorGetNumDims": ([GGUFFile, ctypes.c_ssize_t],
                                           ctypes.c_ssize_t),
    "mlirQuantBlockGGUFTensorGetNe":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t], ctypes.c_int64),
    "mlirQuantBlockGGUFTensorGetFileOffset": ([GGUFFile, ctypes.c_ssize_t],
                                              ctypes.c_uint64),
    "mlirQuantBlockGGUFTensorGetByteSize": ([GGUFFile, ctypes.c_ssize_t],
                                            ctypes.c_uint64),
    "mlirQuantBlockGGUFTensorGetData": ([GGUFFile, ctypes.c_ssize_t],
                                        ctypes.c_void_p),
    "mlirQuantBlockGGUFTensorIsSupported":
        ([GGUFFile, ctypes.c_ssize_t, StringCallback, ctypes.c_void_p],
         ctypes.c_bool),
    "mlirQuantBlockGGUFTensorGetMLIRType": ([GGUFFile, ctypes.c_ssize_t],
                                            StringRef),
    "mlirQuantBlockGGUFTensorGetScheme": ([GGUFFile, ctypes.c_ssize_t],
                                          StringRef),
    "mlirQuantBlockGGUFTensorIsWidened": ([GGUFFile, ctypes.c_ssize_t],
                                          ctypes.c_bool),
    "mlirQuantBlockGGUFTensorGetNumParts": ([GGUFFile, ctypes.c_ssize_t],
                                            ctypes.c_ssize_t),
    "mlirQuantBlockGGUFTensorGetPartRole":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t], StringRef),
    "mlirQuantBlockGGUFTensorGetPartElementType":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t], ElementType),
    "mlirQuantBlockGGUFTensorGetPartRank":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t], ctypes.c_ssize_t),
    "mlirQuantBlockGGUFTensorGetPartDim":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t, ctypes.c_ssize_t],
         ctypes.c_int64),
    "mlirQuantBlockGGUFTensorRepack":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_ssize_t, ctypes.POINTER(Buffer),
          ctypes.c_int, StringCallback, ctypes.c_void_p], ctypes.c_bool),
    "mlirQuantBlockGGUFTensorReleaseData": ([GGUFFile, ctypes.c_ssize_t],
                                            None),
    "mlirQuantBlockGGUFTensorRepackRows":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_int64, ctypes.c_int64,
          ctypes.c_ssize_t, ctypes.POINTER(Buffer), ctypes.c_int,
          StringCallback, ctypes.c_void_p], ctypes.c_bool),
    "mlirQuantBlockGGUFTensorReleaseRows":
        ([GGUFFile, ctypes.c_ssize_t, ctypes.c_int64, ctypes.c_int64], None),
    "mlirQuantBlockGGUFImport":
        ([Context, GGUFFile, ctypes.c_ssize_t, ctypes.POINTER(StringRef),
          ctypes.c_bool], Module),
}

_library = None


def library():
    """The loaded library with every function above declared."""
    global _library
    if _library is not None:
        return _library
    tried = []
    for path in candidate_paths():
        if not os.path.exists(path):
            tried.append(path)
            continue
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib.path = path
        for name, (argtypes, restype) in _SIGNATURES.items():
            function = getattr(lib, name)
            function.argtypes = argtypes
            function.restype = restype
        _library = lib
        return lib
    raise ImportError(
        f"cannot find {LIBRARY_NAME} (build quant-block, or set "
        f"QUANT_BLOCK_CAPI_LIBRARY); looked in: {', '.join(tried)}")


def printed(print_function, handle):
    """The text an mlir...Print(handle, callback, userData) function writes."""
    chunks = []
    callback = StringCallback(
        lambda text, _: chunks.append(ctypes.string_at(text.data, text.length)))
    print_function(handle, callback, None)
    return b"".join(chunks).decode()


class TextCollector:
    """An MlirStringCallback that collects what it is handed."""

    def __init__(self):
        self.chunks = []
        self.callback = StringCallback(self._append)

    def _append(self, text, _):
        self.chunks.append(ctypes.string_at(text.data, text.length))

    @property
    def text(self):
        return b"".join(self.chunks).decode()
