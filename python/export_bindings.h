// The bindings of ltc_mlir.export (export_bindings.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace ltc_mlir {
void RegisterExportBindings(pybind11::module_& m);
}  // namespace ltc_mlir
