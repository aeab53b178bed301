#include "ltc_backend/backend_impl.h"

#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/core/config.h>
#include <torch/csrc/lazy/core/internal_ops/ltc_ops.h>
#include <torch/csrc/lazy/core/lazy_graph_executor.h>
#include <torch/csrc/lazy/core/metrics.h>

#include <ATen/ExpandUtils.h>
#include <ATen/core/Reduction.h>

#include <chrono>
#include <mutex>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/collectives/c10d_kernels.h"
#include "ltc_backend/collectives/collective_op.h"
#include "ltc_backend/collectives/collective_runner.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/derived_bases.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/eager_layout.h"
#include "ltc_backend/graph_compiler.h"
#include "ltc_backend/graph_runner.h"
#include "ltc_backend/inplace_write_kernels.h"
#include "ltc_backend/lazy_kernels/collectives_guard.h"
#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/pipelined_execution.h"
#include "ltc_backend/sync_trace.h"
#include "ltc_backend/torchscript/boundary.h"
#include "ltc_backend/view_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using torch::lazy::BackendDataPtr;
using torch::lazy::BackendDevice;
using torch::lazy::ComputationPtr;

class MlirBackendImpl : public torch::lazy::BackendImplInterface {
 public:
  MlirBackendImpl() : ts_(TorchScriptBackendServices()) {}

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
  // LTC asks this for every node of the post-order of each sync (after
  // MlirGraphExecutor::ShouldSyncTensor for every root): recorded to check
  // the cached computation's wiring (sync_trace.h).
  BackendDataPtr GetComputationDataFromNode(const torch::lazy::Node* node) const override {
    BackendDataPtr data = ts_->GetComputationDataFromNode(node);
    TracePostOrderNode(node, data);
    return data;
  }
  at::Tensor MakeTensorFromComputationData(
      const BackendDataPtr data, std::optional<at::ScalarType> logical_scalar_type) const override {
    // A value read back to the host (.item(), .cpu()) ends the sync that
    // computed it: that sync's error is raised here, once.
    WaitUntilComputed(*data);
    RaisePendingError();
    CheckComputed(*data, "this tensor");
    return ts_->MakeTensorFromComputationData(data, logical_scalar_type);
  }

  std::unique_ptr<torch::lazy::LoweringContext> CreateLoweringContext(
      const std::string& name, BackendDevice device,
      c10::ArrayRef<const torch::lazy::Node*> post_order,
      torch::lazy::Util::EmissionMap emit_status) const override {
    FreezeSyncTrace();
    return MakeLoweringContext(name, std::move(device), post_order, std::move(emit_status));
  }
  std::unique_ptr<torch::lazy::LoweringContext> CreateLoweringContext(
      const std::string& name, BackendDevice device) const override {
    return MakeLoweringContext(name, std::move(device));
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
    comp = ForThisWiring(std::move(comp), arguments.size(), device);
    return RunComputation(std::move(comp), arguments, device, /*allow_pipeline=*/true);
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
  // The computation for the graph this sync traced: `comp` when LTC's cache
  // gave the one compiled for the same wiring, else a variant compiled from
  // the trace (kept in comp). Without a usable trace (LTC's thread pool runs
  // the computation on another thread), `comp`.
  std::shared_ptr<MlirComputation> ForThisWiring(std::shared_ptr<MlirComputation> comp,
                                                 size_t num_arguments,
                                                 const BackendDevice& device) const {
    SyncTrace trace = TakeSyncTrace();
    if (!comp->wiring || trace.roots.size() != comp->result_shapes().size()) return comp;
    std::vector<torch::lazy::Output> roots;
    for (const torch::lazy::Value& v : trace.roots) roots.emplace_back(v.node.get(), v.index);
    std::vector<const torch::lazy::Node*> post_order(trace.post_order.begin(),
                                                     trace.post_order.end());
    std::optional<DagWiring> wiring = DagFingerprint(post_order, roots, trace.data_handles);
    if (!wiring || *wiring == *comp->wiring) return comp;
    std::lock_guard<std::mutex> lock(comp->variants_mutex);
    for (const auto& variant : comp->variants)
      if (variant.first == *wiring) return variant.second;
    std::unique_ptr<torch::lazy::LoweringContext> ctx =
        MakeLoweringContext("SyncTensorsGraph", device, trace.post_order, {});
    for (const torch::lazy::Output& root : roots) ctx->AddResult(root);
    auto variant = std::dynamic_pointer_cast<MlirComputation>(ctx->Build());
    if (!variant || static_cast<size_t>(variant->parameters_size()) != num_arguments)
      return comp;
    CompileComputation(*variant);
    comp->variants.emplace_back(*wiring, variant);
    return variant;
  }

  torch::lazy::BackendImplInterface* ts_;
};

// LTC's graph executor, which asks ShouldSyncTensor for every root of a
// sync, in order: recorded for the wiring check (sync_trace.h). A live sync
// (mark_step) leaves out the bases it can derive from their views
// (derived_bases.h).
class MlirGraphExecutor : public torch::lazy::LazyGraphExecutor {
 public:
  void SyncLiveTensorsGraph(const torch::lazy::BackendDevice* device,
                            c10::ArrayRef<std::string> devices, bool wait) override {
    std::vector<torch::lazy::LazyTensorPtr> tensors = GetLiveTensors(device);
    live_sync_plan_ = DerivedBasePlan::Make(tensors);
    in_live_sync_ = true;
    try {
      SyncTensorsGraph(&tensors, devices, wait, /*sync_ltc_data=*/true);
    } catch (...) {
      in_live_sync_ = false;
      live_sync_plan_ = DerivedBasePlan();
      throw;
    }
    in_live_sync_ = false;
    DerivedBasePlan plan = std::move(live_sync_plan_);
    live_sync_plan_ = DerivedBasePlan();
    plan.Rederive();
  }

  void UnregisterTensor(torch::lazy::LazyTensor::Data* data) override {
    DerivedBases::Get().Forget(data->unique_id);
    torch::lazy::LazyGraphExecutor::UnregisterTensor(data);
  }

 private:
  bool ShouldSyncTensor(const torch::lazy::LazyTensorPtr& tensor) const override {
    // Only a live sync leaves tensors out: a read (.cpu(), .item()) syncs
    // the tensors it names.
    if (in_live_sync_ &&
        (live_sync_plan_.Skips(*tensor) || DerivedBases::Get().IsDerived(*tensor)))
      return false;
    bool sync = tensor->GetIrValue()->op() != torch::lazy::ltc_not_supported;
    if (sync) TraceRoot(tensor->CurrentIrValue());
    return sync;
  }

  DerivedBasePlan live_sync_plan_;
  bool in_live_sync_ = false;
};

// huber_loss's result is eager's `empty_like(input)` (the elementwise loss
// computed in the promoted dtype, then cast): input's dtype, never the
// promotion with target's (f32 input, f64 target is f32), where its Meta
// shape promoted.
std::vector<torch::lazy::Shape> HuberLossShape(const c10::OperatorHandle& op,
                                               const torch::jit::Stack& stack) {
  const at::Tensor& self = BoxedArgument(op, stack, 0).toTensor();
  const at::Tensor& target = BoxedArgument(op, stack, 1).toTensor();
  TORCH_CHECK(BoxedArgument(op, stack, 3).toDouble() > 0,
              "huber_loss does not support non-positive values for delta.");
  if (BoxedArgument(op, stack, 2).toInt() != at::Reduction::None)
    return {torch::lazy::Shape(self.scalar_type(), {})};
  return {torch::lazy::Shape(self.scalar_type(), at::infer_size(self.sizes(), target.sizes()))};
}

}  // namespace

void InitBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    // LTC's lazy ATen kernels (what InitTorchScriptBackend registers), with
    // our eager fallback in place of the TS backend's (lazy_kernels.h). Not
    // idempotent: skipped when torch._lazy.ts_backend.init() already ran,
    // and then the TS fallback stays.
    if (!torch::lazy::hasBackend()) {
      RegisterTorchScriptBackendKernels();
      RegisterLazyEagerFallback();
    }
    static MlirBackendImpl* impl = new MlirBackendImpl();  // lives until exit
    static torch::lazy::BackendRegistrar registrar(impl);
    // Python numbers 0 and 1 (alpha=1, beta=0, ...) become constants of the
    // graph, as other backends do: folded by the compiler instead of read
    // from a 0-dim graph input (other numbers stay inputs: a changing
    // learning rate does not recompile).
    FLAGS_torch_lazy_handle_special_scalars = true;
    static MlirGraphExecutor* executor = new MlirGraphExecutor();
    torch::lazy::LazyGraphExecutor::Register(executor);
    // Our kernels for torch 1.13 lazy bugs, then the device check in front of
    // every Lazy kernel (ours included).
    RegisterSplitKernels();
    RegisterBatchNormKernel();
    RegisterPromotingKernels();
    RegisterZeroTensorKernel();
    RegisterZeroDimKernels();
    RegisterZeroFilledScalarEmpty();
    RegisterResizeKernel();
    RegisterStorageOps();
    RegisterToLazyGuard();
    RegisterCollectivesGuard();
    RegisterCollectiveOp();
    RegisterCollectiveKernels();
    RegisterCollectiveHandler();
    RegisterViewKernels();
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
    // Pointwise math (TorchToLinalg UnaryMath, BinaryMath, Division, Shrink,
    // Gated, SpecialFunctions) and the backward ops they need.
    for (const char* op :
         {"clamp_min.Tensor", "clamp_max", "clamp_max.Tensor", "clamp.Tensor",
          "isnan", "isinf", "isposinf", "isneginf", "signbit",
          "fmod.Tensor", "floor_divide", "rsub.Tensor", "pow.Scalar",
          "ceil", "acos", "asin", "atan", "acosh", "asinh", "atanh", "tan",
          "sinh", "cosh", "log1p", "log10", "exp2", "expm1", "erfc", "sinc",
          "sign", "angle", "logit", "logit_backward", "nan_to_num",
          "copysign.Tensor", "hypot", "atan2", "logaddexp", "logaddexp2",
          "xlogy.Tensor", "special_xlog1py", "lerp.Scalar", "lerp.Tensor",
          "heaviside", "fmax", "fmin", "bitwise_xor.Tensor",
          "softshrink", "softshrink_backward", "hardshrink",
          "hardshrink_backward", "_prelu_kernel", "_prelu_kernel_backward",
          "lgamma", "digamma", "polygamma", "erfinv", "i0", "special_i0e",
          "special_i1", "special_i1e", "special_entr", "special_ndtri",
          "special_log_ndtr", "special_erfcx"})
      RegisterAtenOpKernel(op);
    // torch.special's Bessel, Airy and zeta functions and orthogonal
    // polynomials (TorchToLinalg BesselFunctions, OrthogonalPolynomials).
    for (const char* op :
         {"special_zeta", "igamma", "igammac", "special_modified_bessel_i0", "special_modified_bessel_i1",
          "special_modified_bessel_k0", "special_modified_bessel_k1",
          "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
          "special_bessel_j0", "special_bessel_j1", "special_bessel_y0",
          "special_bessel_y1", "special_spherical_bessel_j0", "special_airy_ai",
          "special_chebyshev_polynomial_t", "special_chebyshev_polynomial_u",
          "special_chebyshev_polynomial_v", "special_chebyshev_polynomial_w",
          "special_shifted_chebyshev_polynomial_t", "special_shifted_chebyshev_polynomial_u",
          "special_shifted_chebyshev_polynomial_v", "special_shifted_chebyshev_polynomial_w",
          "special_hermite_polynomial_h", "special_hermite_polynomial_he",
          "special_laguerre_polynomial_l", "special_legendre_polynomial_p"})
      RegisterAtenOpKernel(op);
    // Shifts, gcd, lcm, nextafter (TorchToLinalg IntegerMath); the << and >>
    // operators have no Meta kernel: RegisterShiftOperatorKernels.
    for (const char* op :
         {"bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar",
          "bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar", "gcd", "lcm",
          "nextafter"})
      RegisterAtenOpKernel(op);
    // Reductions (their backward ops decompose into elementwise ops and
    // scatter.src), lowered in TorchToLinalg's Reduction/MinMax/Variance.
    for (const char* op : {"amax", "amin", "aminmax", "max", "min", "max.dim", "min.dim",
                           "argmax", "argmin", "any", "any.dim", "all", "all.dim", "prod",
                           "prod.dim_int", "nansum",
                           "var.correction", "std.correction", "var_mean.correction",
                           "std_mean.correction", "linalg_vector_norm", "norm.Scalar",
                           "norm.ScalarOpt_dim", "norm.ScalarOpt_dtype",
                           "norm.ScalarOpt_dim_dtype"})
      RegisterAtenOpKernel(op);
    // Gathers and scatters (gather's backward is scatter_add, scatter's
    // gather and scatter.value), triangles and diagonals, matrix-vector
    // products, sorting (its backward is scatter.src).
    for (const char* op : {"gather", "scatter.src", "scatter.value", "scatter.reduce",
                           "scatter.value_reduce", "scatter_add", "scatter_reduce.two",
                           "tril", "triu", "diag", "trace", "dot", "vdot", "mv",
                           "addmv", "addbmm", "baddbmm", "sort", "sort.stable", "topk",
                           "cumprod", "roll", "linalg_cross", "index_fill.int_Scalar",
                           "index_fill.int_Tensor", "index_add", "index_copy"})
      RegisterAtenOpKernel(op);
    // Reflection/replication padding (TorchToLinalg Padding); three backward
    // ops have no Meta kernel in torch 1.13: their result is shaped as self.
    for (const char* op : {"reflection_pad1d", "reflection_pad1d_backward", "reflection_pad2d",
                           "reflection_pad3d", "reflection_pad3d_backward", "replication_pad1d",
                           "replication_pad1d_backward", "replication_pad2d", "replication_pad3d"})
      RegisterAtenOpKernel(op);
    for (const char* op : {"reflection_pad2d_backward", "replication_pad2d_backward",
                           "replication_pad3d_backward"})
      RegisterAtenOpKernel(op, "self");
    // Pooling and upsampling lowered in AdaptivePooling/Upsample that LTC
    // has no kernel for (their 2-d siblings have one). With scales None the
    // 1-d ops' TorchScript nodes also match the `.vec` overload: the node
    // keeps its overload for the emitter (torch_mlir_emitter.h, kOverloadAttr).
    for (const char* op : {"adaptive_max_pool2d", "adaptive_max_pool2d_backward",
                           "upsample_nearest1d", "upsample_nearest1d_backward",
                           "upsample_linear1d", "upsample_linear1d_backward",
                           "upsample_trilinear3d", "upsample_trilinear3d_backward"})
      RegisterAtenOpKernel(op);
    // Sampling (TorchToLinalg Random; counter-based bits, a fresh seed per
    // run): the functional ops uniform_/normal_/exponential_/bernoulli_(Tensor)
    // and torch.rand/randn/normal become under functionalization. LTC has
    // kernels for bernoulli, bernoulli.p and random*. A call with an explicit
    // generator runs eagerly.
    for (const char* op : {"uniform", "normal_functional", "exponential", "bernoulli.Tensor",
                           "normal.Tensor_float", "normal.float_Tensor", "normal.Tensor_Tensor"})
      RegisterAtenOpKernel(op);
    // Pointwise losses (TorchToLinalg PointwiseLoss); their backward ops
    // without a Meta kernel are shaped as self. huber/smooth_l1's backward
    // are CompositeExplicit (zeros + the out= op): ours keeps them whole.
    for (const char* op : {"smooth_l1_loss", "binary_cross_entropy", "soft_margin_loss",
                           "soft_margin_loss_backward"})
      RegisterAtenOpKernel(op);
    RegisterAtenOpKernel("huber_loss", &HuberLossShape);
    for (const char* op : {"smooth_l1_loss_backward", "huber_loss_backward",
                           "binary_cross_entropy_backward"})
      RegisterAtenOpKernel(op, "self");
    RegisterDenseLinalgKernels();
    // median, kthvalue, mode, cummax/cummin, logcumsumexp, logsumexp, take, put.
    RegisterSelectionKernels();
    RegisterIndexingKernels();
    RegisterOneHotKernel();
    RegisterEqualKernel();
    RegisterShiftOperatorKernels();
    RegisterRot90Kernel();
    RegisterSafeSoftmaxKernel();
    RegisterRreluKernels();
    RegisterFractionalPoolKernels();
    RegisterGridSampleKernel();
    RegisterLinspaceKernels();
    RegisterSegmentReduceKernels();
    RegisterMultinomialKernel();
    RegisterLstsqKernel();
    RegisterMatrixExpKernel();
    RegisterMaskKernels();
    RegisterSearchKernels();
    RegisterExponentialKernel();
    RegisterEmbeddingBagKernel();
    RegisterSparseEmbeddingGrad();
    RegisterCtcLossKernels();
    RegisterCppMetaKernels();
    InstallEagerMetaChecks();
    RegisterPackedSequenceKernel();
    RegisterDistanceKernels();
    RegisterFrexpKernel();
    RegisterPoolingKernels();
    RegisterDecomposedKernels();
    RegisterFunctionalizedComposites();
    RegisterImplicitCompositesAtFunctionalize();
    RegisterInplaceWriteKernels();
    RegisterCompositeAutogradKernels();  // after every Lazy kernel
    InstallMutationGuard();
    InstallInferenceModeViewFix();
    InstallOutArgumentChecks();
    InstallLazyDeviceGuard();
  });
}

}  // namespace backend
}  // namespace ltc_mlir
