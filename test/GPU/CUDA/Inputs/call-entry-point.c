/*===- call-entry-point.c - Call the wrappers without MLIR ----------------===*
 *
 * Part of the quant-block project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Loads the wrapper library given as argv[1] with dlopen, as mlir-runner
 * does, and calls mgpuMemAlloc: first with zero bytes (which needs no
 * driver), then with 16 bytes. Prints what it got; the wrapper is expected
 * to end the process with its own message when there is no driver.
 *
 *===----------------------------------------------------------------------===*/

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef void *(*MemAllocFn)(uint64_t, void *, bool);

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    printf("dlopen failed: %s\n", dlerror());
    return 2;
  }
  printf("loaded\n");
  MemAllocFn memAlloc = (MemAllocFn)dlsym(library, "mgpuMemAlloc");
  if (!memAlloc) {
    printf("no mgpuMemAlloc\n");
    return 2;
  }
  printf("0 bytes: %s\n", memAlloc(0, NULL, false) ? "non-null" : "null");
  fflush(stdout);
  void *pointer = memAlloc(16, NULL, false);
  printf("16 bytes: returned %p\n", pointer);
  return 0;
}
