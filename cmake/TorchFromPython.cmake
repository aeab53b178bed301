# Finds the torch installed for LTC_MLIR_PYTHON and defines the imported
# target `torch` the way torch.utils.cpp_extension.CppExtension links a CPU
# extension: torch's headers, libc10 + libtorch_cpu + libtorch, torch's C++
# ABI flag. torch's own CMake config is not used: the PyPI wheel is a CUDA
# build whose config looks for a CUDA toolkit that a CPU machine lacks.
# Also defines LTC_MLIR_TORCH_PYTHON_LIBRARY (libtorch_python, for the
# Python extension) and LTC_MLIR_TORCH_VERSION.
execute_process(
  COMMAND ${LTC_MLIR_PYTHON} -c [[
import os, torch
root = os.path.dirname(torch.__file__)
print(torch.__version__.split('+')[0])
print(os.path.join(root, 'include'))
print(os.path.join(root, 'lib'))
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
]]
  OUTPUT_VARIABLE _torch_info RESULT_VARIABLE _torch_status
  ERROR_VARIABLE _torch_error OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _torch_status EQUAL 0)
  message(FATAL_ERROR "ltc_mlir: ${LTC_MLIR_PYTHON} cannot import torch (${_torch_error}). "
                      "Run scripts/setup_venv.sh, or pass -DLTC_MLIR_PYTHON=<python with torch 2.14>.")
endif()
string(REPLACE "\n" ";" _torch_info "${_torch_info}")
list(GET _torch_info 0 LTC_MLIR_TORCH_VERSION)
list(GET _torch_info 1 _torch_include)
list(GET _torch_info 2 _torch_lib)
list(GET _torch_info 3 _torch_cxx11_abi)
if(LTC_MLIR_TORCH_VERSION VERSION_LESS 2.14)
  message(FATAL_ERROR "ltc_mlir needs torch 2.14; ${LTC_MLIR_PYTHON} has ${LTC_MLIR_TORCH_VERSION}")
endif()
message(STATUS "ltc_mlir: torch ${LTC_MLIR_TORCH_VERSION} from ${_torch_lib}")

add_library(torch INTERFACE IMPORTED GLOBAL)
set_target_properties(torch PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_torch_include};${_torch_include}/torch/csrc/api/include"
  INTERFACE_COMPILE_DEFINITIONS "_GLIBCXX_USE_CXX11_ABI=${_torch_cxx11_abi}"
  INTERFACE_LINK_LIBRARIES
    "${_torch_lib}/libtorch.so;${_torch_lib}/libtorch_cpu.so;${_torch_lib}/libc10.so"
  # The libraries are found next to ours at run time through torch's own
  # import; the rpath serves C++ tests and tools that load them directly.
  INTERFACE_LINK_OPTIONS "-Wl,-rpath,${_torch_lib}")
set(LTC_MLIR_TORCH_PYTHON_LIBRARY "${_torch_lib}/libtorch_python.so")
