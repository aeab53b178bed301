// The bindings of torch.compile(backend="ltc_mlir") (replay_bindings.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace ltc_mlir {
void RegisterReplayBindings(pybind11::module_& m);
}  // namespace ltc_mlir
