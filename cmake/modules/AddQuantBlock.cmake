#===- AddQuantBlock.cmake - the project's library boilerplate --*- CMake -*-===//
#
# add_quant_block_library(name [DIALECT | CONVERSION] sources...
#                         [DEPENDS ...] [LINK_LIBS ...] [other add_mlir_library
#                         arguments])
#
# One MLIR library of the project: built like upstream's (add_mlir_library,
# or its dialect / conversion variants that also record the library in MLIR's
# global lists), installed through our own export set rather than MLIR's
# (DISABLE_INSTALL here, install(TARGETS) in cmake/modules/CMakeLists.txt
# over QUANT_BLOCK_LIBS), and usable from the installed package, whose
# consumers find the headers and the generated .inc files under
# <prefix>/include.
#
#===----------------------------------------------------------------------===//

include_guard(GLOBAL)

# quant_block_use_mlir_headers_pch(targets...)
#
# The targets compile with the precompiled MLIR headers of
# QuantBlockMLIRHeaders (top-level CMakeLists.txt) when
# QUANT_BLOCK_PRECOMPILED_HEADERS is on. Only for targets compiled with the
# MLIR flags (llvm_update_compile_flags: no exceptions): a precompiled header
# holds only for the language options it was built with (clang refuses it
# otherwise), so the runtimes, the Numerics library and the tests that keep
# exceptions on do without.
function(quant_block_use_mlir_headers_pch)
  if(NOT QUANT_BLOCK_PRECOMPILED_HEADERS)
    return()
  endif()
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM QuantBlockMLIRHeaders)
  endforeach()
endfunction()

function(add_quant_block_library name)
  cmake_parse_arguments(ARG "DIALECT;CONVERSION" "" "" ${ARGN})
  if(ARG_DIALECT)
    add_mlir_dialect_library(${name} ${ARG_UNPARSED_ARGUMENTS} DISABLE_INSTALL)
  elseif(ARG_CONVERSION)
    add_mlir_conversion_library(${name} ${ARG_UNPARSED_ARGUMENTS}
      DISABLE_INSTALL)
  else()
    add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS} DISABLE_INSTALL)
  endif()
  target_include_directories(${name} PUBLIC $<INSTALL_INTERFACE:include>)
  if(TARGET obj.${name})
    quant_block_use_mlir_headers_pch(obj.${name})
  else()
    quant_block_use_mlir_headers_pch(${name})
  endif()
  set_property(GLOBAL APPEND PROPERTY QUANT_BLOCK_LIBS ${name})
endfunction()

# add_quant_block_passes(name doc_name)
#
# The generated code of one Passes.td (in the current source directory): the
# pass declarations (Passes.h.inc, `-name <name>`), the C API's
# mlirCreate / mlirRegister functions of each pass (Passes.capi.{h,cpp}.inc,
# used by lib/CAPI), the MLIRQuantBlock<name>PassIncGen target, and the pass
# reference docs/Dialects/<doc_name>.md (kept up to date by a test).
function(add_quant_block_passes name doc_name)
  set(LLVM_TARGET_DEFINITIONS Passes.td)
  mlir_tablegen(Passes.h.inc -gen-pass-decls -name ${name})
  mlir_tablegen(Passes.capi.h.inc -gen-pass-capi-header --prefix ${name})
  mlir_tablegen(Passes.capi.cpp.inc -gen-pass-capi-impl --prefix ${name})
  add_public_tablegen_target(MLIR${name}PassIncGen)
  add_mlir_doc(Passes ${doc_name} QuantBlock/ -gen-pass-doc)
endfunction()
