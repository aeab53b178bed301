// The bindings of ltc_mlir.export: graph capture (ltc_backend) and the
// exporter, AOT compiler and weights loader (mlir_lowering/Export).
#include "python/export_bindings.h"

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include <unordered_set>

#include "ltc_backend/export_capture.h"
#include "ltc_mlir/Export/Export.h"

namespace py = pybind11;

namespace ltc_mlir {
namespace {

py::dict Capture(const std::vector<at::Tensor>& tensors, const std::vector<int64_t>& known_ids) {
  backend::CapturedGraph graph = backend::CaptureGraph(tensors);
  std::unordered_set<int64_t> known(known_ids.begin(), known_ids.end());
  py::dict d;
  d["text"] = graph.torch_text;
  d["unsupported_ops"] = graph.unsupported_ops;
  d["reasons"] = graph.reasons;
  py::list arguments;
  for (const backend::CapturedArgument& argument : graph.arguments) {
    py::dict a;
    a["data_id"] = argument.data_id;
    a["rng_seed"] = argument.rng_seed;
    // Values the caller cannot name (Python scalars LTC made data) are
    // handed back: they become constants.
    if (!argument.rng_seed && !known.count(argument.data_id))
      a["value"] = backend::HostValue(argument);
    arguments.append(a);
  }
  d["arguments"] = arguments;
  py::list outputs;
  for (const backend::CapturedOutput& output : graph.outputs)
    outputs.append(py::make_tuple(output.is_result, output.index, output.data_id));
  d["outputs"] = outputs;
  return d;
}

py::dict ExportModule(const py::list& entries, const std::vector<std::pair<std::string, bool>>& globals,
                      bool portable) {
  std::vector<ExportEntry> specs;
  for (const py::handle& e : entries) {
    ExportEntry entry;
    entry.name = e["name"].cast<std::string>();
    entry.torchText = e["text"].cast<std::string>();
    for (const py::handle& a : e["arguments"]) {
      ExportArgument argument;
      std::string kind = a["kind"].cast<std::string>();
      argument.kind = kind == "global"     ? ExportArgument::Kind::Global
                      : kind == "constant" ? ExportArgument::Kind::Constant
                                           : ExportArgument::Kind::Input;
      argument.name = a["name"].cast<std::string>();
      argument.constant = a["constant"].cast<std::string>();
      entry.arguments.push_back(std::move(argument));
    }
    for (const py::handle& r : e["results"]) {
      ExportResult result;
      result.returned = r["returned"].cast<bool>();
      result.storeTo = r["store_to"].cast<std::string>();
      entry.results.push_back(std::move(result));
    }
    specs.push_back(std::move(entry));
  }
  std::vector<ExportGlobal> global_specs;
  for (const auto& [name, is_mutable] : globals) global_specs.push_back({name, is_mutable});
  ExportOptions options;
  options.portable = portable;
  ExportedModule module;
  {
    py::gil_scoped_release no_gil;
    module = exportTorchGraphs(specs, global_specs, options);
  }
  py::dict d;
  d["text"] = module.text;
  d["error"] = module.error;
  py::list signatures;
  for (const ExportedSignature& s : module.entries)
    signatures.append(py::make_tuple(s.name, s.inputTypes, s.resultTypes));
  d["entries"] = signatures;
  d["global_types"] = module.globalTypes;
  d["runtime_functions"] = module.runtimeFunctions;
  d["check_messages"] = module.checkMessages;
  return d;
}

py::dict CompileExported(const std::string& text, const std::string& weights_path,
                         bool external_gemm) {
  AotOptions options;
  options.weightsPath = weights_path;
  options.externalGemm = external_gemm;
  AotResult result;
  {
    py::gil_scoped_release no_gil;
    result = compileExportedModule(text, options);
  }
  py::dict d;
  py::list objects;
  for (const std::string& object : result.objects) objects.append(py::bytes(object));
  d["objects"] = objects;
  d["error"] = result.error;
  d["compile_time_ms"] = result.compileTimeMs;
  d["target"] = result.target;
  return d;
}

py::dict LoadExported(const std::string& text, const std::string& safetensors_path) {
  LoadedModuleStats stats;
  {
    py::gil_scoped_release no_gil;
    stats = loadExportedModule(text, safetensors_path);
  }
  py::dict d;
  d["error"] = stats.error;
  d["resources"] = stats.resources;
  d["resource_bytes"] = stats.resourceBytes;
  d["mapped_bytes"] = stats.mappedBytes;
  return d;
}

}  // namespace

void RegisterExportBindings(py::module_& m) {
  m.def("_export_capture", &Capture,
        "The pending graph of lazy tensors as a torch-dialect module, without running it.");
  m.def("_data_id", &backend::DataId);
  m.def("_export_module", &ExportModule);
  m.def("_compile_exported", &CompileExported);
  m.def("_load_exported", &LoadExported);
}

}  // namespace ltc_mlir
