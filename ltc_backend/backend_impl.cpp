#include "ltc_backend/backend_impl.h"

#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/core/metrics.h>
#include <torch/csrc/lazy/ts_backend/ts_backend_impl.h>

#include <chrono>
#include <mutex>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/eager_layout.h"
#include "ltc_backend/graph_compiler.h"
#include "ltc_backend/graph_runner.h"
#include "ltc_backend/inplace_update_flush.h"
#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/lowering_context.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/variable_hooks.h"
#include "ltc_backend/view_kernels.h"

// LTC's code-generated Lazy kernels; exported by libtorch_cpu but declared in
// no header torch 1.13 ships.
namespace at {
void RegisterTorchScriptLazyNativeFunctions();
void RegisterTorchScriptAutogradLazyNativeFunctions();
}  // namespace at

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
    // as_strided needs the layout eager would keep (see eager_layout.h).
    std::vector<int64_t> host_strides = PreservedPermutedStrides(tensor);
    if (!host_strides.empty())
      return std::make_shared<HostLayoutData>(copy, shape, device, std::move(host_strides));
    return std::make_shared<MlirData>(copy, shape, device);
  }
  BackendDataPtr MakeComputationDataFromScalar(const at::Scalar& scalar,
                                               const BackendDevice& device) const override {
    return ts_->MakeComputationDataFromScalar(scalar, device);
  }
  BackendDataPtr CreateDataPlaceholder(const BackendDevice& device,
                                       const torch::lazy::Shape& shape) const override {
    return std::make_shared<MlirData>(shape, device);
  }
  BackendDataPtr GetComputationDataFromNode(torch::lazy::Node* node) const override {
    return ts_->GetComputationDataFromNode(node);
  }
  at::Tensor MakeTensorFromComputationData(
      const BackendDataPtr data, c10::optional<at::ScalarType> logical_scalar_type) const override {
    // A value read back to the host (.item(), .cpu()) ends the sync that
    // computed it: that sync's error is raised here, once.
    RaisePendingError();
    CheckComputed(*data, "this tensor");
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
      CompileComputation(*comp);
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
    std::vector<BackendDataPtr> results = RunReportingErrorsAtSync(*comp, device, [&] {
      return comp->is_native() ? RunNative(*comp, arguments, device)
                               : RunFallback(*comp, arguments, device);
    });
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
  torch::lazy::BackendImplInterface* ts_;
};

}  // namespace

void InitBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    // LTC's lazy ATen kernels (what InitTorchScriptBackend registers), with
    // our eager fallback in place of the TS backend's (lazy_kernels.h). Not
    // idempotent: skipped when torch._lazy.ts_backend.init() already ran,
    // and then the TS fallback stays.
    if (!torch::lazy::hasBackend()) {
      at::RegisterTorchScriptLazyNativeFunctions();
      at::RegisterTorchScriptAutogradLazyNativeFunctions();
      RegisterLazyEagerFallback();
    }
    static MlirBackendImpl* impl = new MlirBackendImpl();  // lives until exit
    static torch::lazy::BackendRegistrar registrar(impl);
    // Our kernels for torch 1.13 lazy bugs, then the device check in front of
    // every Lazy kernel (ours included).
    RegisterSplitKernels();
    RegisterBatchNormKernel();
    RegisterPromotingKernels();
    RegisterZeroTensorKernel();
    RegisterStorageOps();
    RegisterToLazyGuard();
    RegisterViewKernels();
    InstallVariableHooks();
    // Ops torch 1.13 has no Lazy kernel for, kept in the graph
    // (docs/adding_an_op.md): ReLU6 (hardtanh_, functionalized to hardtanh),
    // the backward ops of MobileNetV3's hard activations, where.self
    // (torch.where, and the backward of maximum/minimum, e.g. OPT's
    // torch.max(scores, finfo.min)).
    for (const char* op : {"hardtanh", "hardtanh_backward", "hardswish",
                           "hardswish_backward", "hardsigmoid_backward", "where.self"})
      RegisterAtenOpKernel(op);
    // Common ops of real models (where's Scalar overloads decompose into
    // where.self; mish's backward into sigmoid/softplus/tanh); elu,
    // leaky_relu, softplus, gelu and masked_fill have LTC kernels.
    for (const char* op : {"sin", "erf", "round", "round.decimals",
                           "mish", "mse_loss", "mse_loss_backward", "eye", "eye.m",
                           "logical_and", "logical_or", "logical_xor", "logical_not",
                           "bitwise_not"})
      RegisterAtenOpKernel(op);
    RegisterOneHotKernel();
    RegisterInplaceUpdateFlush();
    InstallMutationGuard();
    InstallLazyDeviceGuard();
  });
}

}  // namespace backend
}  // namespace ltc_mlir
