// --benchmark: the report's fields (not its figures, which depend on the
// machine), the JSON report, --bytes and the allocator choice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-roundtrip %t
// RUN: quant-run %s -e roundtrip -i %t/x.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy --benchmark=3 --bandwidth-mib=16 --benchmark-json=%t/report.json | FileCheck %s
// CHECK:      quant-run benchmark: @roundtrip
// CHECK-NEXT:   calls:            3 timed, after 1 warm-up call
// CHECK-NEXT:   time per call:    min {{[0-9.]+}} {{s|ms|us}}, median {{[0-9.]+}} {{s|ms|us}}
// CHECK-NEXT:   bytes moved:      6.26 kB (inputs 3.19 kB + outputs 3.07 kB)
// CHECK-NEXT:   allocator:        caching (blocks freed by a call are reused by the next)
// CHECK-NEXT:   throughput:       {{[0-9.]+}} GB/s (bytes moved / min time)
// CHECK-NEXT:   memory bandwidth: {{[0-9.]+}} GB/s (copy, 1 thread, 2 x 16.78 MB in 16.78 MB pieces, best of 10 passes just before and after the calls; add-scaled {{[0-9.]+}} GB/s)
// CHECK-NEXT:   ratio:            {{[0-9.]+}} (throughput / copy bandwidth)

// The results of a benchmarked run are those of the first call.
// RUN: %python %S/Inputs/arrays.py check-roundtrip %t | FileCheck %s --check-prefix=RESULT
// RESULT: roundtrip: ok

// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print(sorted(r), r['calls'], len(r['seconds']), r['bytes'], r['allocator'], sorted(r['bandwidth']))" %t/report.json | FileCheck %s --check-prefix=JSON
// JSON: ['allocator', 'bandwidth', 'bytes', 'bytes_overridden', 'calls', 'entry', 'gbps', 'input_bytes', 'median_seconds', 'min_seconds', 'output_bytes', 'ratio', 'seconds'] 3 3 6264 caching ['add_scaled_gbps', 'buffer_bytes', 'copy_gbps', 'piece_bytes', 'repetitions', 'threads']

// bench/table.py prints reports as a table.
// RUN: %python %src_root/bench/table.py %t/report.json | FileCheck %s --check-prefix=TABLE
// TABLE:      kernel     min ms  median ms  MB moved  GB/s  mem GB/s  ratio  read GB/s  read ratio  paired
// TABLE-NEXT: ---------
// TABLE-NEXT: roundtrip  {{ *[0-9]+\.[0-9]{3}  +[0-9]+\.[0-9]{3}  +0\.01  +[0-9.]+  +[0-9.]+  +[0-9.]+  +-  +-  +-$}}

// RUN: quant-run %s -e roundtrip -i %t/x.npy -i %t/scales.npy -i %t/zero_points.npy --benchmark=2 --bytes=1000000 --bandwidth-mib=0 --benchmark-fresh-memory | FileCheck %s --check-prefix=OPTIONS
// OPTIONS:      result #0 of @roundtrip: tensor<8x96xf32> as <f4 (8, 96) = [
// OPTIONS:      quant-run benchmark: @roundtrip
// OPTIONS:        bytes moved:      1.00 MB (given with --bytes)
// OPTIONS-NEXT:   allocator:        libc malloc/free (fresh pages for large blocks every call)
// OPTIONS-NEXT:   throughput:
// OPTIONS-NOT:    memory bandwidth
// OPTIONS-NOT:    ratio

!g = !quant_block.tensor<8x96, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = i8>>

func.func @roundtrip(%x: tensor<8x96xf32>, %s: tensor<8x3xf32>, %zp: tensor<8x3xi8>) -> tensor<8x96xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<8x3xf32>) zero_points(%zp : tensor<8x3xi8>)
         : tensor<8x96xf32> -> !g
  %y = quant_block.dequantize %q : !g -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}
