/*===- quant-block-c/GpuRuntime.h - device buffers and copy counts -*- C
-*-===*\
|*                                                                            *|
|* Entry points that both GPU runtime libraries export beside the mgpu* ones  *|
|* (libQuantBlockCudaRuntime.so and libQuantBlockVulkanRuntime.so): device    *|
|* buffers that the caller owns across calls, for the function arguments     *|
|* marked `quant_block.device_resident` (docs/GPU.md, "Device-resident       *|
|* arguments"), and counts of the copies the runtime made, which show that a *|
|* resident argument is not copied per call.                                 *|
|*                                                                            *|
|* The runtimes are loaded at run time (dlopen, --shared-libs), so callers    *|
|* usually look these up with dlsym; this header gives their prototypes.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_C_GPURUNTIME_H
#define QUANT_BLOCK_C_GPURUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The copies a runtime made since it was loaded (or last reset), by
/// direction, as counted by its copy entry points (mgpuMemcpy, the uploads
/// and downloads below) and, on Vulkan, by the staging of host pointers that
/// a launch is given (host to device before the dispatch, device to host
/// after it). Device means memory the runtime allocated.
typedef struct QuantBlockGpuCopyStats {
  uint64_t hostToDeviceCopies;
  uint64_t hostToDeviceBytes;
  uint64_t deviceToHostCopies;
  uint64_t deviceToHostBytes;
  uint64_t deviceToDeviceCopies;
  uint64_t deviceToDeviceBytes;
} QuantBlockGpuCopyStats;

/// A device buffer of `sizeBytes` bytes (null for 0), freed with
/// quantBlockGpuFree. On a failure the runtime reports it and exits, as
/// its mgpu* entry points do.
void *quantBlockGpuAlloc(uint64_t sizeBytes);
void quantBlockGpuFree(void *buffer);

/// Synchronous copies between host memory and a device buffer.
void quantBlockGpuUpload(void *device, const void *host, uint64_t sizeBytes);
void quantBlockGpuDownload(void *host, const void *device, uint64_t sizeBytes);

void quantBlockGpuGetCopyStats(QuantBlockGpuCopyStats *stats);
void quantBlockGpuResetCopyStats(void);

/// The kernel launches (mgpuLaunchKernel, mgpuLaunchClusterKernel) and host
/// waits (mgpuStreamSynchronize, mgpuEventSynchronize) the compiled code
/// asked a runtime for since it was loaded (or last reset). On Vulkan,
/// whose launches complete before they return, a wait costs nothing but is
/// counted all the same: the counts are the compiled code's, the same on
/// both runtimes.
typedef struct QuantBlockGpuLaunchStats {
  uint64_t kernelLaunches;
  uint64_t synchronizations;
} QuantBlockGpuLaunchStats;

void quantBlockGpuGetLaunchStats(QuantBlockGpuLaunchStats *stats);
void quantBlockGpuResetLaunchStats(void);

/* With QUANT_BLOCK_GPU_COPY_STATS=1 in the environment, a runtime prints its
   counts on stderr when the process exits:
     quant-block-gpu-copies: host-to-device <n> (<bytes> bytes),
       device-to-host <n> (<bytes> bytes), device-to-device <n> (<bytes> bytes)
   (one line), and a line of its launch counts:
     quant-block-gpu-launches: kernels <n>, synchronizations <n> */

#ifdef __cplusplus
}
#endif

#endif /* QUANT_BLOCK_C_GPURUNTIME_H */
