// --benchmark-cold: calls rotate over copies of the weight arguments (the
// inputs of at least 64 KiB) totalling 8 x the last-level cache (given here
// with --benchmark-cold-llc-mib, so the test does not depend on the host),
// the bytes moved are the weights', and after each call one read-only pass
// over a cold copy measures the read bandwidth, on the team the compiled
// code runs on (its OpenMP loops: OMP_NUM_THREADS threads; 1 without them).
// The figures depend on the machine; the fields and counts do not.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; r = np.random.default_rng(0); np.save(d + '/x.npy', r.standard_normal((1, 512)).astype(np.float32)); np.save(d + '/data.npy', r.integers(-128, 128, (256, 256), dtype=np.int8)); np.save(d + '/scales.npy', r.uniform(0.01, 0.1, (256, 16)).astype(np.float32))" %t
// RUN: quant-run %s -e gemv --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -o %t/y.npy --benchmark=3 --benchmark-cold --benchmark-cold-llc-mib=1 --bandwidth-mib=0 --benchmark-json=%t/cold.json | FileCheck %s
// CHECK:      quant-run benchmark: @gemv
// CHECK:        bytes moved:      65.54 kB (the weight arguments: packed data + scales + zero points)
// CHECK-NEXT:   cold weights:     calls rotate over 128 copies of 65.54 kB (8.39 MB, >= 8 x the 1.05 MB last-level cache)
// CHECK-NEXT:   allocator:
// CHECK-NEXT:   throughput:       {{[0-9.]+}} GB/s (bytes moved / min time)
// CHECK-NEXT:   read bandwidth:   {{[0-9.]+}} GB/s (read-only sum over a cold copy of the weights after each call, {{[0-9]+}} thread{{s?}}, fastest of 3)
// CHECK-NEXT:   read ratio:       {{[0-9.]+}} (throughput / read bandwidth; median over the calls of each call's to the next read's: {{[0-9.]+}})

// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); c = r['cold']; print(sorted(c), c['copies'], c['set_bytes'], c['llc_bytes'], r['bytes'], c['read_passes'], r['calls'], c['read_gbps'] > 0, c['paired_read_ratio'] > 0, 'read_ratio' in r)" %t/cold.json | FileCheck %s --check-prefix=JSON
// JSON: ['copies', 'llc_bytes', 'paired_read_ratio', 'read_gbps', 'read_passes', 'set_bytes', 'threads'] 128 65536 1048576 65536 3 3 True True True
// bench/table.py shows the read bandwidth, the read ratio and the paired one.
// RUN: %python %src_root/bench/table.py %t/cold.json | FileCheck %s --check-prefix=TABLE
// TABLE:      kernel       min ms  median ms  MB moved  GB/s  mem GB/s  ratio  read GB/s  read ratio  paired
// TABLE:      gemv (cold)  {{ *[0-9]+\.[0-9]{3}  +[0-9]+\.[0-9]{3}  +0\.07  +[0-9.]+  +-  +-  +[0-9]+\.[0-9]{2}  +[0-9]+\.[0-9]{3}  +[0-9]+\.[0-9]{3}$}}
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e gemv --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy --benchmark=1 --benchmark-cold --benchmark-cold-llc-mib=1 --bandwidth-mib=0 | FileCheck %s --check-prefix=THREADS
// THREADS: read bandwidth: {{[0-9.]+}} GB/s (read-only sum over a cold copy of the weights after each call, 3 threads, fastest of 1)
// RUN: quant-run %s -e gemv --pipeline='quant-block-cpu-pipeline{parallel=false}' --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy --benchmark=1 --benchmark-cold --benchmark-cold-llc-mib=1 --bandwidth-mib=0 | FileCheck %s --check-prefix=ONE
// ONE: read bandwidth: {{[0-9.]+}} GB/s (read-only sum over a cold copy of the weights after each call, 1 thread, fastest of 1)

// Without an input of at least 64 KiB there is nothing to keep cold.
// RUN: not quant-run %s -e small -i %t/x.npy --benchmark=1 --benchmark-cold 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: error: --benchmark-cold: no input of at least 64 KiB to rotate over

!w = !quant_block.tensor<256x512, #quant_block.scheme<i4 : f32, block = [1, 32]>>

func.func @gemv(%x: tensor<1x512xf32>, %w: !w) -> tensor<1x256xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x512xf32>, !w -> tensor<1x256xf32>
  return %y : tensor<1x256xf32>
}

func.func @small(%x: tensor<1x512xf32>) -> tensor<1x512xf32> {
  return %x : tensor<1x512xf32>
}
