// .npy format versions 1.0, 2.0 and 3.0 are read; results are written as
// version 1.0 with the data 64-byte aligned, as numpy writes them; empty
// arrays and dynamic dimensions of size 0 work.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; from numpy.lib import format as f; x = np.arange(6, dtype=np.float32).reshape(2, 3); [f.write_array(open('%t/x%%d.npy' %% v, 'wb'), x, version=(v, 0)) for v in (1, 2, 3)]; np.save('%t/empty.npy', np.zeros((0, 3), np.float32))"
// RUN: quant-run %s -e twice -i %t/x1.npy | FileCheck %s
// RUN: quant-run %s -e twice -i %t/x2.npy | FileCheck %s
// RUN: quant-run %s -e twice -i %t/x3.npy | FileCheck %s
// CHECK: result #0 of @twice: tensor<?x3xf32> as <f4 (2, 3) = [0, 2, 4, 6, 8, 10]

// RUN: quant-run %s -e twice -i %t/empty.npy | FileCheck %s --check-prefix=EMPTY
// EMPTY: result #0 of @twice: tensor<?x3xf32> as <f4 (0, 3) = []

// RUN: quant-run %s -e twice -i %t/x2.npy -o %t/y.npy
// RUN: %python -c "import numpy as np; from numpy.lib import format as f; h = open('%t/y.npy', 'rb'); print(f.read_magic(h), f.read_array_header_1_0(h), h.tell() %% 64, np.load('%t/y.npy').tolist())" | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: (1, 0) ((2, 3), False, dtype('float32')) 0 {{\[\[}}0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]

func.func @twice(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = arith.addf %x, %x : tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
