//===- Profiler.h - Kernel timing with CUDA events --------------*- C++ -*-===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// With QUANT_BLOCK_CUDA_PROFILE=1 in the environment, every kernel launch is
// bracketed by two timing events on its stream, and at exit the GPU time of
// each launch is printed on stderr, one line per kernel:
//
//   quant-block-cuda-profile: kernel=<name> launches=<n> times_ms=<t1>,<t2>...
//
// This times the kernels alone, whatever host code the pipeline put around
// them (copies, allocations), which is what a memory-bandwidth benchmark of
// the kernels needs (bench/gpu). Off by default: the events cost a little per
// launch.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_CUDA_PROFILER_H
#define QUANT_BLOCK_LIB_RUNTIME_CUDA_PROFILER_H

#include "CudaDriver.h"

namespace quant_block::cuda_runtime {

/// Whether QUANT_BLOCK_CUDA_PROFILE asks for kernel timings (and the driver
/// can time events).
bool isProfiling(const CudaDriver &cuda);

/// Remembers the kernel name of a function handle of `module`, for the
/// report; kernels of the same name in other modules get `#2`, `#3`, ....
void nameFunction(CUfunction function, CUmodule module, const char *name);

/// Brackets a launch: `beginLaunch` records a start event on `stream` and
/// returns it, `endLaunch` records the stop event and queues the pair.
CUevent beginLaunch(const CudaDriver &cuda, CUstream stream,
                    const char *entryPoint);
void endLaunch(const CudaDriver &cuda, CUfunction function, CUstream stream,
               CUevent start, const char *entryPoint);

/// Turns the queued launches whose events completed into times; called after
/// each synchronization, so that no event outlives the run.
void collectTimings(const CudaDriver &cuda, const char *entryPoint);

} // namespace quant_block::cuda_runtime

#endif // QUANT_BLOCK_LIB_RUNTIME_CUDA_PROFILER_H
