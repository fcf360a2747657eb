//===- MLIRHeaders.cpp - the target that compiles MLIRHeaders.h ----------===//
//
// CMake precompiles a header for a target that has sources; the other
// targets reuse this one's (REUSE_FROM, cmake/modules/AddQuantBlock.cmake).
//
//===----------------------------------------------------------------------===//
