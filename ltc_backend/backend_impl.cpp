#include "ltc_backend/backend_impl.h"

#include <ATen/Functions.h>
#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/core/metrics.h>
#include <torch/csrc/lazy/ts_backend/ts_backend_impl.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "ltc_backend/computation.h"
#include "ltc_backend/config.h"
#include "ltc_backend/lowering_context.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/torch_mlir_emitter.h"
#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

namespace ltc_mlir {
namespace backend {
namespace {

using torch::lazy::BackendDataPtr;
using torch::lazy::BackendDevice;
using torch::lazy::ComputationPtr;
using torch::lazy::TSData;

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// "torch.aten.add.Tensor" / "aten::add" -> "aten::add": the key users see.
std::string OpKey(const std::string& name) {
  std::string s = name;
  if (s.rfind("torch.aten.", 0) == 0) {
    s = s.substr(11);
    s = "aten::" + s.substr(0, s.find('.'));
  }
  return s;
}

std::vector<std::string> GraphOps(const torch::jit::Graph& graph) {
  std::vector<std::string> ops;
  for (const torch::jit::Node* n : graph.nodes())
    if (n->kind().is_aten()) ops.push_back(n->kind().toQualString());
  return ops;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

runtime::ArgKind ToRuntimeKind(ValueKind k) {
  switch (k) {
    case ValueKind::Tensor: return runtime::ArgKind::Tensor;
    case ValueKind::Int: return runtime::ArgKind::Int;
    case ValueKind::Float: return runtime::ArgKind::Float;
  }
  return runtime::ArgKind::Tensor;
}

// The compiled signature must be exactly what LTC will pass and expect.
std::string CheckSignature(const CompiledFunction& fn, const MlirComputation& comp) {
  const auto& graph = *comp.graph();
  if (fn.inputs.size() != graph.inputs().size())
    return "compiled function takes " + std::to_string(fn.inputs.size()) +
           " inputs, the graph has " + std::to_string(graph.inputs().size());
  if (comp.outputs.size() != comp.result_shapes().size())
    return "graph has " + std::to_string(comp.outputs.size()) + " outputs, LTC expects " +
           std::to_string(comp.result_shapes().size());
  for (size_t i = 0; i < comp.outputs.size(); ++i) {
    const OutputRef& ref = comp.outputs[i];
    const torch::lazy::Shape& s = comp.result_shapes()[i];
    const std::vector<ValueDesc>& from = ref.source == OutputSource::kResult ? fn.outputs : fn.inputs;
    if (ref.index >= from.size())
      return "output " + std::to_string(i) + " refers to a missing value";
    const ValueDesc& d = from[ref.index];
    if (d.kind != ValueKind::Tensor || d.dtype != DtypeName(s.scalar_type()) ||
        d.shape != s.sizes().vec())
      return "output " + std::to_string(i) + " does not match LTC's shape " + s.to_string();
  }
  return "";
}

class MlirBackendImpl : public torch::lazy::BackendImplInterface {
 public:
  MlirBackendImpl() : ts_(torch::lazy::GetTSBackendImpl()) {}

  void PrepareToExit() const override { ts_->PrepareToExit(); }
  void SetRngSeed(size_t seed) const override { ts_->SetRngSeed(seed); }
  const torch::lazy::IrBuilder* GetIrBuilder() const override { return ts_->GetIrBuilder(); }

  BackendDataPtr MakeComputationDataFromTensor(const at::Tensor& tensor,
                                               const torch::lazy::Shape& shape,
                                               const BackendDevice& device) const override {
    // One copy into a contiguous host buffer: the compiled code and the
    // runtime assume dense row-major storage.
    at::Tensor copy = tensor.to(at::TensorOptions().device(at::kCPU).dtype(tensor.scalar_type()),
                                /*non_blocking=*/false, /*copy=*/true,
                                at::MemoryFormat::Contiguous);
    return std::make_shared<TSData>(copy, shape, device);
  }
  BackendDataPtr MakeComputationDataFromScalar(const at::Scalar& scalar,
                                               const BackendDevice& device) const override {
    return ts_->MakeComputationDataFromScalar(scalar, device);
  }
  BackendDataPtr CreateDataPlaceholder(const BackendDevice& device,
                                       const torch::lazy::Shape& shape) const override {
    return ts_->CreateDataPlaceholder(device, shape);
  }
  BackendDataPtr GetComputationDataFromNode(torch::lazy::Node* node) const override {
    return ts_->GetComputationDataFromNode(node);
  }
  at::Tensor MakeTensorFromComputationData(
      const BackendDataPtr data, c10::optional<at::ScalarType> logical_scalar_type) const override {
    return ts_->MakeTensorFromComputationData(data, logical_scalar_type);
  }

  std::unique_ptr<torch::lazy::LoweringContext> CreateLoweringContext(
      const std::string& name, BackendDevice device,
      c10::ArrayRef<torch::lazy::Node*> post_order,
      torch::lazy::Util::EmissionMap emit_status) const override {
    return std::make_unique<MlirLoweringContext>(name, std::move(device), post_order,
                                                 std::move(emit_status));
  }
  std::unique_ptr<torch::lazy::LoweringContext> CreateLoweringContext(
      const std::string& name, BackendDevice device) const override {
    return std::make_unique<MlirLoweringContext>(name, std::move(device));
  }

  std::vector<std::string> GetCompilationDevices(
      const std::string& device, c10::ArrayRef<std::string> devices) const override {
    return ts_->GetCompilationDevices(device, devices);
  }

  std::vector<ComputationPtr> Compile(std::vector<ComputationPtr> instances) const override {
    for (const ComputationPtr& c : instances) {
      auto comp = std::dynamic_pointer_cast<MlirComputation>(c);
      TORCH_CHECK(comp, "ltc_mlir: Compile() got a computation from another backend");
      CompileOne(*comp);
    }
    return instances;
  }

  std::vector<BackendDataPtr> ExecuteComputation(ComputationPtr computation,
                                                 c10::ArrayRef<BackendDataPtr> arguments,
                                                 const BackendDevice& device) const override {
    auto comp = std::dynamic_pointer_cast<MlirComputation>(computation);
    TORCH_CHECK(comp, "ltc_mlir: ExecuteComputation() got a computation from another backend");
    bool cache_hit = comp->executions.fetch_add(1) > 0;
    auto start = std::chrono::steady_clock::now();
    std::vector<BackendDataPtr> results = comp->is_native()
                                              ? RunNative(*comp, arguments, device)
                                              : RunFallback(*comp, arguments, device);
    Metrics::RecordExecution(comp->is_native(), cache_hit, MsSince(start), comp->fallback_ops);
    return results;
  }

  std::shared_ptr<torch::lazy::BackendDeviceType> GetDefaultDeviceType() const override {
    return ts_->GetDefaultDeviceType();
  }
  void SetDefaultDeviceType(int8_t type) override { ts_->SetDefaultDeviceType(type); }
  int64_t GetDefaultDeviceOrdinal() const override { return ts_->GetDefaultDeviceOrdinal(); }
  void SetDefaultDeviceOrdinal(int64_t ordinal) override { ts_->SetDefaultDeviceOrdinal(ordinal); }
  at::DeviceType EagerFallbackDeviceType() const override { return at::kCPU; }
  std::vector<BackendDevice> GetBackendDevices() const override {
    return ts_->GetBackendDevices();
  }
  BackendDevice GetBackendDevice(c10::Device device) const override {
    return ts_->GetBackendDevice(device);
  }
  std::string CreateMetricReport() const override { return Metrics::Report(); }
  std::string GetComputationBackendText(const ComputationPtr computation) const override {
    return computation->to_string();
  }

 private:
  void FallBack(MlirComputation& comp, const std::string& why,
                const std::vector<std::string>& blocking_ops) const {
    // Every op of the graph runs in TorchScript: that is what fallback_ops
    // counts per execution. The reason names the ops that blocked it.
    comp.fallback_ops = GraphOps(*comp.graph());
    std::vector<std::string> blocking;
    for (const std::string& op : blocking_ops) blocking.push_back(OpKey(op));
    std::sort(blocking.begin(), blocking.end());
    blocking.erase(std::unique(blocking.begin(), blocking.end()), blocking.end());
    std::string text = blocking.empty() ? "" : "unsupported " + Join(blocking, ", ");
    if (!why.empty()) text += (text.empty() ? "" : " -- ") + why;
    comp.fallback_reason = comp.name + ": " + text;
    if (comp.fallback_ops.empty() && !blocking.empty()) comp.fallback_ops = blocking;
    Metrics::RecordFallbackGraph(comp.fallback_reason);
    TORCH_WARN("ltc_mlir: graph runs through the TorchScript fallback (", comp.fallback_reason,
               ")");
  }

  void CompileOne(MlirComputation& comp) const {
    EmittedModule emitted = EmitTorchDialect(*comp.graph(), comp.parameter_shapes());
    comp.torch_dialect = emitted.text;
    comp.outputs = emitted.outputs;
    char name[32];
    std::snprintf(name, sizeof(name), "graph_%016zx", std::hash<std::string>()(emitted.text));
    comp.name = name;
    if (!emitted.unsupported_ops.empty())
      return FallBack(comp, Join(emitted.reasons, "; "), emitted.unsupported_ops);

    CompileOptions options;
    options.dumpDir = GetDumpDir();
    options.dumpName = comp.name;
    options.symbolResolver = [](const std::string& symbol) {
      if (void* address = runtime::resolveRuntimeSymbol(symbol)) return address;
      return runtime::resolveOpenMPSymbol(symbol);
    };
    CompileResult result = compileTorchModule(emitted.text, options);
    if (!result.function) {
      // Unsupported ops are named by FallBack; other errors keep their text.
      std::string why = result.unsupportedOps.empty() ? result.error : "";
      if (why.size() > 2000) why = why.substr(0, 2000) + "...";
      if (!result.reproducerPath.empty())
        why += std::string(why.empty() ? "" : " ") + "[reproducer: " + result.reproducerPath + "]";
      return FallBack(comp, why, result.unsupportedOps);
    }
    std::string mismatch = CheckSignature(*result.function, comp);
    if (!mismatch.empty()) return FallBack(comp, "internal error: " + mismatch, {});

    std::vector<runtime::ArgSpec> inputs, outputs;
    for (const ValueDesc& d : result.function->inputs)
      inputs.push_back({ToRuntimeKind(d.kind), d.shape});
    for (const ValueDesc& d : result.function->outputs)
      outputs.push_back({ToRuntimeKind(d.kind), d.shape});
    comp.executable = std::make_shared<runtime::Executable>(
        result.function->entry, std::move(inputs), std::move(outputs), result.function,
        result.function->checkMessages);
    Metrics::RecordCompile(comp.name, result.compileTimeMs);
  }

  std::vector<BackendDataPtr> RunNative(MlirComputation& comp,
                                        c10::ArrayRef<BackendDataPtr> arguments,
                                        const BackendDevice& device) const {
    const runtime::Executable& exe = *comp.executable;
    TORCH_CHECK(arguments.size() == exe.inputs().size(), "ltc_mlir: graph ", comp.name,
                " expects ", exe.inputs().size(), " arguments, got ", arguments.size());
    std::vector<at::Tensor> keep_alive;
    std::map<size_t, at::Tensor> keep_alive_by_input;  // input index -> buffer passed
    std::vector<runtime::Arg> inputs;
    for (size_t i = 0; i < arguments.size(); ++i) {
      auto data = std::static_pointer_cast<TSData>(arguments[i]);
      const runtime::ArgSpec& spec = exe.inputs()[i];
      if (spec.kind == runtime::ArgKind::Int || spec.kind == runtime::ArgKind::Float) {
        TORCH_CHECK(data->scalar.has_value(), "ltc_mlir: argument ", i, " of ", comp.name,
                    " should be a scalar");
        inputs.push_back(spec.kind == runtime::ArgKind::Int
                             ? runtime::Arg::integer(data->scalar->toLong())
                             : runtime::Arg::floating(data->scalar->toDouble()));
        continue;
      }
      const torch::lazy::Shape& shape = comp.parameter_shapes()[i];
      at::Tensor t = data->scalar.has_value()
                         ? at::scalar_tensor(*data->scalar, at::TensorOptions().dtype(shape.scalar_type()))
                         : data->data();
      TORCH_CHECK(t.defined(), "ltc_mlir: argument ", i, " of ", comp.name, " has no data");
      if (t.scalar_type() != shape.scalar_type()) t = t.to(shape.scalar_type());
      if (!t.is_contiguous()) t = t.contiguous();
      TORCH_CHECK(t.sizes() == c10::IntArrayRef(spec.shape), "ltc_mlir: argument ", i, " of ",
                  comp.name, " has shape ", t.sizes(), ", compiled for ", c10::IntArrayRef(spec.shape));
      inputs.push_back(runtime::Arg::tensor(t.data_ptr()));
      keep_alive_by_input[i] = t;
      keep_alive.push_back(std::move(t));
    }
    std::vector<at::Tensor> out_tensors;
    std::vector<runtime::Arg> outputs;
    const bool steady = comp.executions.load() > 2;
    for (const runtime::ArgSpec& spec : exe.outputs()) {
      (void)spec;
      size_t r = out_tensors.size();
      // The shape of result r is that of the first graph output it feeds.
      for (size_t i = 0; i < comp.outputs.size(); ++i) {
        if (comp.outputs[i].source == OutputSource::kResult && comp.outputs[i].index == r) {
          const torch::lazy::Shape& s = comp.result_shapes()[i];
          // One-shot graphs allocate; graphs that repeat (a training step)
          // recycle the buffers their previous outputs released.
          out_tensors.push_back(steady ? comp.output_pool.Acquire(r, s)
                                       : at::empty(s.sizes(),
                                                   at::TensorOptions().dtype(s.scalar_type())));
          break;
        }
      }
      TORCH_CHECK(out_tensors.size() == r + 1, "ltc_mlir: result ", r, " of ", comp.name,
                  " feeds no graph output");
      outputs.push_back(runtime::Arg::tensor(out_tensors.back().data_ptr()));
    }
    runtime::setNumThreads(GetNumThreads());
    exe.run(inputs, outputs);
    // LTC buffers are never written after they are produced, so a graph
    // output that repeats a result or passes an input through shares it,
    // as with the TorchScript backend.
    std::vector<BackendDataPtr> results;
    for (size_t i = 0; i < comp.outputs.size(); ++i) {
      const OutputRef& ref = comp.outputs[i];
      if (ref.source == OutputSource::kInput) {
        results.push_back(std::make_shared<TSData>(keep_alive_by_input.at(ref.index),
                                                   comp.result_shapes()[i], device));
      } else {
        results.push_back(
            std::make_shared<TSData>(out_tensors[ref.index], comp.result_shapes()[i], device));
      }
    }
    return results;
  }

  std::vector<BackendDataPtr> RunFallback(MlirComputation& comp,
                                          c10::ArrayRef<BackendDataPtr> arguments,
                                          const BackendDevice& device) const {
    torch::jit::Stack stack;
    for (const BackendDataPtr& arg : arguments) {
      auto data = std::static_pointer_cast<TSData>(arg);
      if (data->scalar.has_value()) stack.emplace_back(*data->scalar);
      else stack.emplace_back(data->data());
    }
    comp.fallback_executor().run(stack);
    std::vector<BackendDataPtr> results;
    for (const c10::IValue& v : stack) {
      at::Tensor t = v.toTensor();
      results.push_back(std::make_shared<TSData>(
          t, torch::lazy::Shape(t.scalar_type(), t.sizes().vec()), device));
    }
    return results;
  }

  torch::lazy::BackendImplInterface* ts_;
};

}  // namespace

void InitBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Registers the lazy ATen kernels, the boxed eager fallback for ops
    // without a lazy kernel, and the TS IR builder we share. It is not
    // idempotent: skip it when torch._lazy.ts_backend.init() already ran.
    if (!torch::lazy::hasBackend()) torch::lazy::InitTorchScriptBackend();
    static MlirBackendImpl* impl = new MlirBackendImpl();  // lives until exit
    static torch::lazy::BackendRegistrar registrar(impl);
  });
}

}  // namespace backend
}  // namespace ltc_mlir
