# -*- Python -*-
# lit configuration of the quant-block test suite: FileCheck tests of the
# dialect, the passes and the conversions, and executed integration tests.

import os

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUANT_BLOCK"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quant_block_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%conformance", config.conformance_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src_root", config.quant_block_src_root))
config.substitutions.append(("%quant_block_libs", config.quant_block_lib_dir))
config.substitutions.append(("%llvm_lib_dir", config.llvm_lib_dir))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.quant_block_tools_dir, config.llvm_tools_dir]
tools = [
    "quant-opt",
    "quant-run",
    "quant-block-capi-test",
    "mlir-opt",
    "mlir-runner",
    "mlir-translate",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
