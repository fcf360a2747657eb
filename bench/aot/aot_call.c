/*===- aot_call.c - call a kernel compiled ahead of time, cold ------------===//
 *
 * Issue 10 asks that the compiled kernels be as fast when a C program calls
 * them through `llvm.emit_c_interface` (mlir-translate, opt -O3, llc) as
 * inside quant-run's JIT. bench/aot/run.sh compiles a bench/ kernel into a
 * shared library that way; this driver loads it with dlopen, reads the same
 * .npy inputs as quant-run, calls `_mlir_ciface_<entry>` and times the calls
 * the way `quant-run --benchmark-cold` does (bench/cold.h): the inputs of at
 * least 64 KiB (the weights) are copied until the copies total 8 x the
 * last-level cache, the timed calls rotate over them, the minimum counts.
 * It writes the warm-up call's result as .npy, so that a test can compare
 * the bits with quant-run's.
 *
 * The C interface: `_mlir_ciface_f(result *, arg0 *, arg1 *, ...)` where each
 * pointer is to a ranked memref descriptor {allocated, aligned, offset,
 * sizes[rank], strides[rank]}; with 64-bit pointers that is an array of
 * 3 + 2 x rank 64-bit words. The entry returns one ranked memref whose
 * buffer it allocated with malloc (freed here after each call).
 *
 * usage: aot_call LIB.so[,LIB2.so...] ENTRY CALLS LLC_BYTES RESULT OUT.npy
 *                IN.npy...
 *   RESULT: the result's .npy dtype and rank, e.g. "<f4:2"
 *
 * With several libraries (up to 4: the same entry compiled two ways, say
 * from two commits), the calls alternate between them in one process (every
 * other round in reverse order), each `CALLS` times, and each gets its own
 * line: on a shared machine whose
 * speed drifts between processes, that compares versions of a kernel far
 * more closely than separate runs (bench/README.md). OUT.npy is the first
 * library's result; the others' must have the same bits, or the driver
 * says so and fails.
 *
 * Threads: the kernels' OpenMP loops follow OMP_NUM_THREADS, and the read
 * pass after each call (bench/cold.h) runs on their team, as quant-run's
 * does: through libomp's GOMP_parallel when the library uses OpenMP, on one
 * thread otherwise.
 *
 *===----------------------------------------------------------------------===*/

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "../cold.h"

/* libomp's GOMP_parallel (libgomp's ABI) and thread queries, when the
 * kernel library uses OpenMP: the read passes run on the kernels' team. */
static void (*gompParallel)(void (*)(void *), void *, unsigned, unsigned);
static int (*ompGetThreadNum)(void), (*ompGetNumThreads)(void);

struct TeamPass {
  const char *region;
  size_t bytes;
  _Atomic uint64_t sum;
};

static void sumTeamShare(void *opaque) {
  struct TeamPass *pass = opaque;
  atomic_fetch_add(&pass->sum,
                   cold_sum_share(pass->region, pass->bytes, ompGetThreadNum(),
                                  ompGetNumThreads()));
}

/* Seconds of one read pass over `bytes` at `region`, on the kernels' team
 * (the fork and join timed, as in a call) or on one thread. */
static double readPass(const char *region, size_t bytes) {
  if (!gompParallel)
    return cold_read_pass(region, bytes, 1);
  struct TeamPass pass = {region, bytes, 0};
  double start = cold_now();
  gompParallel(sumTeamShare, &pass, 0, 0);
  double seconds = cold_now() - start;
  cold_sink += atomic_load(&pass.sum);
  return seconds;
}

enum { kMaxInputs = 6, kMaxRank = 8, kWeightBytes = 64 * 1024 };

/* One .npy array: little-endian, C order. */
struct Array {
  char descr[8]; /* e.g. "<f4", "|i1" */
  int rank;
  int64_t sizes[kMaxRank];
  size_t elementBytes, bytes;
  char *data;
};

static void *allocate(size_t bytes) {
  void *data = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!data) {
    fprintf(stderr, "aot_call: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return data;
}

/* Reads a version 1-3 .npy file; exits with a message on anything else. */
static void readNpy(const char *path, struct Array *array) {
  FILE *file = fopen(path, "rb");
  unsigned char prefix[10];
  if (!file || fread(prefix, 1, 8, file) != 8 ||
      memcmp(prefix, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "aot_call: %s is not a .npy file\n", path);
    exit(1);
  }
  size_t lengthBytes = prefix[6] == 1 ? 2 : 4;
  unsigned char length[4] = {0};
  if (fread(length, 1, lengthBytes, file) != lengthBytes) {
    fprintf(stderr, "aot_call: %s: truncated header\n", path);
    exit(1);
  }
  size_t headerBytes =
      length[0] | length[1] << 8 | length[2] << 16 | (size_t)length[3] << 24;
  char *header = calloc(headerBytes + 1, 1);
  if (fread(header, 1, headerBytes, file) != headerBytes) {
    fprintf(stderr, "aot_call: %s: truncated header\n", path);
    exit(1);
  }
  char *descr = strstr(header, "'descr':");
  char *shape = strstr(header, "'shape':");
  if (!descr || !shape || strstr(header, "'fortran_order': True")) {
    fprintf(stderr, "aot_call: %s: not a C-order array: %s\n", path, header);
    exit(1);
  }
  if (sscanf(descr, "'descr': '%7[^']'", array->descr) != 1 ||
      (array->descr[0] != '<' && array->descr[0] != '|')) {
    fprintf(stderr, "aot_call: %s: unsupported dtype in %s\n", path, header);
    exit(1);
  }
  array->elementBytes = (size_t)atoi(array->descr + 2);
  array->rank = 0;
  array->bytes = array->elementBytes;
  for (char *p = strchr(shape, '(') + 1; *p && *p != ')';) {
    char *end;
    long long size = strtoll(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    if (array->rank == kMaxRank) {
      fprintf(stderr, "aot_call: %s: rank above %d\n", path, kMaxRank);
      exit(1);
    }
    array->sizes[array->rank++] = size;
    array->bytes *= (size_t)size;
    p = end;
  }
  array->data = allocate(array->bytes);
  if (fread(array->data, 1, array->bytes, file) != array->bytes) {
    fprintf(stderr, "aot_call: %s: truncated data\n", path);
    exit(1);
  }
  free(header);
  fclose(file);
}

/* The descriptor of `array` with data at `data` (identity layout). */
static void describe(const struct Array *array, char *data, int64_t *words) {
  words[0] = (int64_t)(intptr_t)data;
  words[1] = (int64_t)(intptr_t)data;
  words[2] = 0;
  int64_t stride = 1;
  for (int d = array->rank - 1; d >= 0; --d) {
    words[3 + d] = array->sizes[d];
    words[3 + array->rank + d] = stride;
    stride *= array->sizes[d];
  }
}

typedef void (*Entry)();

static void call(Entry entry, int64_t *result, int64_t inputs[][3 + 2 * 8],
                 int count) {
  switch (count) {
  case 1:
    entry(result, inputs[0]);
    break;
  case 2:
    entry(result, inputs[0], inputs[1]);
    break;
  case 3:
    entry(result, inputs[0], inputs[1], inputs[2]);
    break;
  case 4:
    entry(result, inputs[0], inputs[1], inputs[2], inputs[3]);
    break;
  case 5:
    entry(result, inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]);
    break;
  default:
    entry(result, inputs[0], inputs[1], inputs[2], inputs[3], inputs[4],
          inputs[5]);
    break;
  }
}

/* Writes the result, of .npy dtype `descr`, as a version 1 .npy file. */
static void writeNpy(const char *path, const int64_t *result, int rank,
                     const char *descr, size_t elementBytes) {
  char header[256];
  int length =
      snprintf(header, sizeof(header),
               "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  size_t count = 1;
  for (int d = 0; d < rank; ++d) {
    length += snprintf(header + length, sizeof(header) - length, "%lld,%s",
                       (long long)result[3 + d], d + 1 < rank ? " " : "");
    count *= (size_t)result[3 + d];
  }
  length += snprintf(header + length, sizeof(header) - length, "), }");
  while ((10 + length + 1) % 64 != 0)
    header[length++] = ' ';
  header[length++] = '\n';
  FILE *file = fopen(path, "wb");
  unsigned char prefix[10] = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              (unsigned char)(length & 0xff),
                              (unsigned char)(length >> 8)};
  const char *data =
      (const char *)(intptr_t)result[1] + (size_t)result[2] * elementBytes;
  if (!file || fwrite(prefix, 1, 10, file) != 10 ||
      fwrite(header, 1, (size_t)length, file) != (size_t)length ||
      fwrite(data, elementBytes, count, file) != count) {
    fprintf(stderr, "aot_call: cannot write %s\n", path);
    exit(1);
  }
  fclose(file);
}

/* Code compiled with x86-amx uses AMX tiles, whose state Linux enables only
 * for a process that asks (arch_prctl ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA), as quant-run does; harmless for other code, refused
 * on kernels and CPUs without AMX. */
static void requestAmxTileData(void) {
#if defined(__linux__) && defined(__x86_64__)
  syscall(SYS_arch_prctl, 0x1023, 18);
#endif
}

int main(int argc, char **argv) {
  requestAmxTileData();
  if (argc < 8 || argc - 7 > kMaxInputs) {
    fprintf(stderr,
            "usage: %s LIB.so ENTRY CALLS LLC_BYTES DTYPE:RANK OUT.npy "
            "IN.npy... (1 to %d inputs)\n",
            argv[0], kMaxInputs);
    return 2;
  }
  const char *entryName = argv[2];
  int calls = atoi(argv[3]);
  double llc = atof(argv[4]);
  char resultDescr[8];
  int resultRank;
  if (sscanf(argv[5], "%7[^:]:%d", resultDescr, &resultRank) != 2 ||
      (resultDescr[0] != '<' && resultDescr[0] != '|') || resultRank < 0 ||
      resultRank > kMaxRank) {
    fprintf(stderr, "aot_call: result '%s' is not DTYPE:RANK (e.g. <f4:2)\n",
            argv[5]);
    return 2;
  }
  enum { kMaxLibraries = 4 };
  char *libraryNames[kMaxLibraries];
  Entry entries[kMaxLibraries];
  int libraryCount = 0;
  char symbol[256];
  snprintf(symbol, sizeof(symbol), "_mlir_ciface_%s", entryName);
  for (char *name = strtok(argv[1], ","); name; name = strtok(NULL, ",")) {
    if (libraryCount == kMaxLibraries) {
      fprintf(stderr, "aot_call: more than %d libraries\n", kMaxLibraries);
      return 2;
    }
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      fprintf(stderr, "aot_call: %s\n", dlerror());
      return 1;
    }
    Entry entry = (Entry)dlsym(library, symbol);
    if (!entry) {
      fprintf(
          stderr,
          "aot_call: no %s in %s (compile with --llvm-request-c-wrappers)\n",
          symbol, name);
      return 1;
    }
    /* dlsym on the library's handle searches its dependencies too: libomp,
     * where the kernels have OpenMP loops. */
    if (libraryCount == 0) {
      *(void **)&gompParallel = dlsym(library, "GOMP_parallel");
      *(void **)&ompGetThreadNum = dlsym(library, "omp_get_thread_num");
      *(void **)&ompGetNumThreads = dlsym(library, "omp_get_num_threads");
      if (!ompGetThreadNum || !ompGetNumThreads)
        gompParallel = NULL;
    }
    libraryNames[libraryCount] = name;
    entries[libraryCount++] = entry;
  }
  if (libraryCount == 0) {
    fprintf(stderr, "aot_call: no library given\n");
    return 2;
  }

  int count = argc - 7;
  struct Array arrays[kMaxInputs];
  size_t weightBytes = 0;
  for (int i = 0; i < count; ++i) {
    readNpy(argv[7 + i], &arrays[i]);
    if (arrays[i].bytes >= kWeightBytes)
      weightBytes += arrays[i].bytes;
  }
  /* Each copy of the weights is one region (the inputs at 64-byte aligned
   * offsets), the unit of the read-bandwidth measurement; the first copy
   * holds the inputs as read, and the small inputs (activations) are never
   * copied. */
  size_t regionBytes = 0, offsets[kMaxInputs];
  for (int i = 0; i < count; ++i)
    if (arrays[i].bytes >= kWeightBytes) {
      offsets[i] = regionBytes;
      regionBytes += (arrays[i].bytes + 63) / 64 * 64;
    }
  int copies = weightBytes ? cold_copies(weightBytes, llc) : 1;
  char **regions = malloc(sizeof(char *) * (size_t)copies);
  for (int c = 0; c < copies; ++c) {
    regions[c] = allocate(regionBytes);
    for (int i = 0; i < count; ++i)
      if (arrays[i].bytes >= kWeightBytes)
        memcpy(regions[c] + offsets[i], arrays[i].data, arrays[i].bytes);
  }
  /* The data of input i in copy c. */
#define INPUT_DATA(c, i)                                                       \
  (arrays[i].bytes >= kWeightBytes ? regions[c] + offsets[i] : arrays[i].data)

  int64_t inputs[kMaxInputs][3 + 2 * kMaxRank];
  int64_t result[3 + 2 * kMaxRank];
  /* Warm-up on the last copy; the first library's result is the one
   * written, the others' must have its bits. */
  size_t resultBytes = (size_t)atoi(resultDescr + 2);
  for (int i = 0; i < count; ++i)
    describe(&arrays[i], INPUT_DATA(copies - 1, i), inputs[i]);
  call(entries[0], result, inputs, count);
  writeNpy(argv[6], result, resultRank, resultDescr, resultBytes);
  size_t resultCount = 1;
  for (int d = 0; d < resultRank; ++d)
    resultCount *= (size_t)result[3 + d];
  char *firstResult = malloc(resultCount * resultBytes + 1);
  memcpy(firstResult,
         (char *)(intptr_t)result[1] + result[2] * (int64_t)resultBytes,
         resultCount * resultBytes);
  free((void *)(intptr_t)result[0]);
  for (int l = 1; l < libraryCount; ++l) {
    call(entries[l], result, inputs, count);
    int same =
        memcmp(firstResult,
               (char *)(intptr_t)result[1] + result[2] * (int64_t)resultBytes,
               resultCount * resultBytes) == 0;
    free((void *)(intptr_t)result[0]);
    if (!same) {
      fprintf(stderr, "aot_call: %s gives other bits than %s\n",
              libraryNames[l], libraryNames[0]);
      return 1;
    }
  }
  free(firstResult);

  /* The calls from the first copy (evicted by the later ones), the
   * libraries in turn, each call followed by a read pass over a cold copy
   * (bench/cold.h). */
  if (weightBytes)
    cold_evict(regions, copies, regionBytes);
  double *seconds = malloc(sizeof(double) * 2 * (size_t)(calls * libraryCount));
  double *ratios = malloc(sizeof(double) * (size_t)calls);
  for (int call_ = 0; call_ < calls; ++call_)
    for (int turn = 0; turn < libraryCount; ++turn) {
      /* Every other round in reverse order (A B, B A, ...): no library
       * always follows the same one. */
      int l = call_ % 2 ? libraryCount - 1 - turn : turn;
      int index = call_ * libraryCount + turn, c = index % copies;
      for (int i = 0; i < count; ++i)
        describe(&arrays[i], INPUT_DATA(c, i), inputs[i]);
      double start = cold_now();
      call(entries[l], result, inputs, count);
      /* Library l's calls, then its read passes. */
      double *callSeconds = seconds + 2 * (size_t)(l * calls);
      callSeconds[call_] = cold_now() - start;
      free((void *)(intptr_t)result[0]);
      callSeconds[calls + call_] =
          weightBytes
              ? readPass(regions[cold_read_copy(index, copies)], regionBytes)
              : 0;
    }
  for (int l = 0; l < libraryCount; ++l) {
    double *callSeconds = seconds + 2 * (size_t)(l * calls);
    double *readSeconds = callSeconds + calls;
    double best = 1e30, bestRead = 1e30;
    for (int i = 0; i < calls; ++i) {
      if (callSeconds[i] < best)
        best = callSeconds[i];
      if (readSeconds[i] < bestRead)
        bestRead = readSeconds[i];
    }
    double gbps = weightBytes / best / 1e9;
    double read = weightBytes ? regionBytes / bestRead / 1e9 : 0;
    char label[300] = "";
    if (libraryCount > 1)
      snprintf(label, sizeof(label), " (%s)", libraryNames[l]);
    printf("aot %s%s: %d calls, cold (%d copies of %.2f MB): min %.3f ms, "
           "%.2f GB/s, read %.2f GB/s (%s), read ratio %.3f, paired %.3f\n",
           entryName, label, calls, copies, weightBytes / 1e6, best * 1e3, gbps,
           read, gompParallel ? "the OpenMP team" : "1 thread",
           read > 0 ? gbps / read : 0.0,
           weightBytes
               ? cold_paired_ratio(callSeconds, readSeconds, ratios, calls) *
                     weightBytes / regionBytes
               : 0.0);
  }
  free(seconds);
  free(ratios);
  return 0;
}
