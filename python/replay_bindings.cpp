// The bindings of torch.compile(backend="ltc_mlir"): graphs built once from
// lazy tensors and replayed on host tensors (ltc_backend/replay_graph.h).
#include "python/replay_bindings.h"

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "ltc_backend/replay_graph.h"

namespace py = pybind11;

namespace ltc_mlir {

void RegisterReplayBindings(py::module_& m) {
  using backend::ReplayGraph;
  py::class_<ReplayGraph, std::shared_ptr<ReplayGraph>>(m, "_ReplayGraph")
      .def("run", &backend::RunReplayGraph,
           "Run the graph on host tensors like those it was built from.")
      .def_property_readonly("name", &backend::ReplayGraphName)
      .def_property_readonly("kind", &backend::ReplayGraphKind)
      .def_property_readonly("fallback_ops", &backend::ReplayGraphFallbackOps)
      .def("__repr__", &backend::DescribeReplayGraph);
  m.def("_make_replay_inputs", &backend::MakeReplayInputs,
        "Fresh lazy tensors holding copies of host tensors, one data each.");
  m.def("_replay_input_handles", &backend::ReplayInputHandles,
        "The data handles of lazy inputs made by _make_replay_inputs, before "
        "a graph runs on them.");
  m.def("_build_replay_graph", &backend::BuildReplayGraph,
        "Compile the graph computing lazy `outputs` from lazy `inputs` "
        "(made by _make_replay_inputs, with `handles` before the graph ran); "
        "inputs the graph wrote to are written back by each run.",
        py::arg("inputs"), py::arg("outputs"), py::arg("handles"));
}

}  // namespace ltc_mlir
