# lit configuration for ltc_mlir's FileCheck tests (dialect, passes, pipelines).
import os
import lit.formats

config.name = "ltc_mlir"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ltc_mlir_obj_root, "tests", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.environment["PATH"] = os.pathsep.join(
    [config.ltc_mlir_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
