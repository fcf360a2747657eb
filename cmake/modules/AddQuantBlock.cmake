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
  set_property(GLOBAL APPEND PROPERTY QUANT_BLOCK_LIBS ${name})
endfunction()
