//===- CompilerMemory.cpp - hand back what compiling left resident --------===//
//
// The libraries are found by the addresses of functions they define
// (dladdr), not by their names, so that whatever file the program loaded
// them from (a versioned soname, a build tree) is the one advised. The
// advice is MADV_PAGEOUT, never MADV_DONTNEED: the libraries' relocated
// read-only data and their writable data are private pages that differ
// from the file, which MADV_DONTNEED would reset to the file's contents.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/CompilerMemory.h"

#include "mlir/IR/AsmState.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#if defined(__linux__)
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace mlir::quant_block::runner;

#if defined(__linux__)
/// The resolved path of the shared object that defines `address` (as
/// /proc/self/maps names it), or "" for the program itself (the compiler
/// linked statically: nothing to page out that the program does not
/// need).
static std::string sharedObjectOf(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname)
    return "";
  char *resolved = realpath(info.dli_fname, nullptr);
  if (!resolved)
    return "";
  std::string path = resolved;
  free(resolved);
  char program[4096];
  ssize_t length = readlink("/proc/self/exe", program, sizeof(program) - 1);
  if (length > 0 && path == std::string(program, length))
    return "";
  return path;
}

/// Advises every mapping of `files` (resolved paths) to be paged out;
/// returns the bytes accepted.
static uint64_t pageOutMappings(const std::set<std::string> &files) {
#ifndef MADV_PAGEOUT
  (void)files;
  return 0;
#else
  std::ifstream maps("/proc/self/maps");
  uint64_t accepted = 0;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, permissions, offset, device, inode, path;
    fields >> range >> permissions >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    if (!files.count(path))
      continue;
    char *rest = nullptr;
    uintptr_t start = std::strtoull(range.c_str(), &rest, 16);
    if (!rest || *rest != '-')
      continue;
    uintptr_t end = std::strtoull(rest + 1, nullptr, 16);
    if (end > start && madvise(reinterpret_cast<void *>(start), end - start,
                               MADV_PAGEOUT) == 0)
      accepted += end - start;
  }
  return accepted;
#endif
}
#endif

uint64_t mlir::quant_block::runner::releaseCompilerMemory() {
#if defined(__linux__)
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  std::set<std::string> files;
  // A function of libMLIR's and one of libLLVM's.
  for (const void *address :
       {reinterpret_cast<const void *>(&mlir::registerAsmPrinterCLOptions),
        reinterpret_cast<const void *>(&llvm::outs)}) {
    std::string file = sharedObjectOf(address);
    if (!file.empty())
      files.insert(file);
  }
  return files.empty() ? 0 : pageOutMappings(files);
#else
  return 0;
#endif
}
