#include "ltc_backend/graph_runner.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Functions.h>

#include <chrono>
#include <mutex>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/collectives/collective_op.h"
#include "ltc_backend/collectives/collective_runner.h"
#include "ltc_backend/config.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/graph_compiler.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/pipelined_execution.h"
#include "ltc_backend/torchscript/boundary.h"
#include "ltc_mlir/runtime/openmp.h"

namespace ltc_mlir {
namespace backend {

using torch::lazy::BackendDataPtr;
using torch::lazy::BackendDevice;
using torch::lazy::TSData;

int64_t NextRandomSeed() {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return static_cast<int64_t>(at::check_generator<at::CPUGeneratorImpl>(gen)->random64());
}

namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::vector<BackendDataPtr> RunComputation(std::shared_ptr<MlirComputation> comp,
                                           c10::ArrayRef<BackendDataPtr> arguments,
                                           const BackendDevice& device, bool allow_pipeline,
                                           c10::ArrayRef<at::Tensor> result_buffers) {
  bool cache_hit = comp->executions.fetch_add(1) > 0;
  // A deferred new shape compiles when it runs again (shape_variants.h).
  if (cache_hit && comp->deferred) CompileDeferred(*comp);
  const bool deferred_run = comp->deferred;
  // Collectives recorded from now on start a new chain (collective_op.h).
  RestartCollectiveChain();
  const MlirComputation::Collectives& collectives = comp->collectives();
  if (PipelinedExecution()) {
    // Native graphs run on the pipeline thread (which records their
    // execution); the others on this one, after the pipeline. So do
    // graphs with collectives: the process group must see every rank's
    // collectives in program order, also those Python issues eagerly.
    if (allow_pipeline && comp->is_native() && !deferred_run && collectives.sequence.empty())
      return RunReportingErrorsAtSync(*comp, device, [&] {
        return SubmitNative(comp, arguments, device, cache_hit);
      });
    DrainPipeline();
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<BackendDataPtr> results = RunReportingErrorsAtSync(*comp, device, [&] {
    std::optional<CollectiveRun> collective_run;
    if (!collectives.sequence.empty())
      collective_run.emplace(comp->name, collectives.sequence, collectives.group);
    std::vector<BackendDataPtr> r;
    if (comp->is_native()) r = RunNative(*comp, arguments, device, result_buffers);
    else if (comp->partitioned) r = RunPartitioned(*comp, arguments, device);
    else r = RunFallback(*comp, arguments, device);
    if (collective_run) collective_run->Finish();
    return r;
  });
  if (deferred_run) {
    Metrics::RecordDeferredExecution(MsSince(start));
  } else {
    Metrics::RecordExecution(comp->is_native(), cache_hit, MsSince(start), comp->fallback_ops,
                             comp->native_op_counts);
  }
  return results;
}

PreparedRun PrepareNative(MlirComputation& comp, c10::ArrayRef<BackendDataPtr> arguments,
                          const BackendDevice& device, c10::ArrayRef<at::Tensor> result_buffers) {
  const runtime::Executable& exe = *comp.executable;
  const size_t num_seeds = comp.rng_seed_input ? 1 : 0;
  TORCH_CHECK(arguments.size() + num_seeds == exe.inputs().size(), "ltc_mlir: graph ",
              comp.name, " expects ", exe.inputs().size() - num_seeds, " arguments, got ",
              arguments.size());
  PreparedRun run;
  std::vector<at::Tensor> input_tensors(arguments.size());
  for (size_t arg = 0; arg < arguments.size(); ++arg) {
    const size_t i = comp.input_order[arg];  // arguments are numbered by first use
    CheckComputed(*arguments[i], "an input of this graph");
    auto data = std::static_pointer_cast<TSData>(arguments[i]);
    const runtime::ArgSpec& spec = exe.inputs()[arg];
    if (spec.kind == runtime::ArgKind::Int || spec.kind == runtime::ArgKind::Float) {
      TORCH_CHECK(data->scalar.has_value(), "ltc_mlir: argument ", i, " of ", comp.name,
                  " should be a scalar");
      run.inputs.push_back(spec.kind == runtime::ArgKind::Int
                               ? runtime::Arg::integer(data->scalar->toLong())
                               : runtime::Arg::floating(data->scalar->toDouble()));
      continue;
    }
    const torch::lazy::Shape& shape = comp.parameter_shapes()[i];
    at::Tensor t = data->scalar.has_value()
                       ? at::scalar_tensor(*data->scalar, at::TensorOptions().dtype(shape.scalar_type()))
                       : data->data();
    TORCH_CHECK(t.defined(), "ltc_mlir: argument ", i, " of ", comp.name, " has no data");
    if (t.scalar_type() != shape.scalar_type() || !t.is_contiguous()) {
      // Converting reads the value: it must have been computed.
      WaitUntilComputed(*arguments[i]);
      CheckComputed(*arguments[i], "an input of this graph");
      if (t.scalar_type() != shape.scalar_type()) t = t.to(shape.scalar_type());
      if (!t.is_contiguous()) t = t.contiguous();
    }
    // Generic code (batch_families.h) takes its sizes per call; it checks
    // them against its static ones.
    const bool sized = exe.hasDynamicSizes();
    TORCH_CHECK(sized || t.sizes() == c10::IntArrayRef(spec.shape), "ltc_mlir: argument ", i,
                " of ", comp.name, " has shape ", t.sizes(), ", compiled for ",
                c10::IntArrayRef(spec.shape));
    run.inputs.push_back(runtime::Arg::tensor(t.data_ptr(), sized ? t.sizes().data() : nullptr));
    input_tensors[i] = std::move(t);
  }
  if (comp.rng_seed_input) run.inputs.push_back(runtime::Arg::integer(NextRandomSeed()));
  std::vector<at::Tensor> out_tensors;
  const bool steady = comp.executions.load() > 2;
  for (size_t r = 0; r < comp.function_result_shapes.size(); ++r) {
    const torch::lazy::Shape& s = comp.function_result_shapes[r];
    // One-shot graphs allocate; graphs that repeat (a training step)
    // recycle the buffers their previous outputs released.
    if (r < result_buffers.size() && result_buffers[r].defined())
      out_tensors.push_back(result_buffers[r]);
    else
      out_tensors.push_back(steady ? comp.output_pool.Acquire(r, s)
                                   : at::empty(s.sizes(), at::TensorOptions().dtype(s.scalar_type())));
    run.outputs.push_back(runtime::Arg::tensor(
        out_tensors.back().data_ptr(),
        exe.hasDynamicSizes() ? out_tensors.back().sizes().data() : nullptr));
  }
  // LTC buffers are never written after they are produced, so a graph
  // output that repeats a result or passes an input through shares it,
  // as with the TorchScript backend.
  for (size_t i = 0; i < comp.outputs.size(); ++i) {
    const OutputRef& ref = comp.outputs[i];
    const bool from_input = ref.source == OutputSource::kInput;
    auto result = std::make_shared<MlirData>(
        from_input ? input_tensors[ref.index] : out_tensors[ref.index], comp.result_shapes()[i],
        device);
    // An input passed through is ready when that input is.
    if (from_input)
      if (auto* in = dynamic_cast<const MlirData*>(arguments[ref.index].get()))
        result->completion = in->completion;
    run.results.push_back(std::move(result));
    run.computed.push_back(!from_input);
  }
  for (at::Tensor& t : input_tensors)
    if (t.defined()) run.buffers.push_back(std::move(t));
  for (at::Tensor& t : out_tensors) run.buffers.push_back(std::move(t));
  return run;
}

void RunPrepared(MlirComputation& comp, PreparedRun& run, int threads) {
  runtime::setNumThreads(threads);
  comp.executable->run(run.inputs, run.outputs);
}

std::vector<BackendDataPtr> RunNative(MlirComputation& comp,
                                      c10::ArrayRef<BackendDataPtr> arguments,
                                      const BackendDevice& device,
                                      c10::ArrayRef<at::Tensor> result_buffers) {
  PreparedRun run = PrepareNative(comp, arguments, device, result_buffers);
  RunPrepared(comp, run, GetNumThreads());
  return std::move(run.results);
}

std::vector<BackendDataPtr> RunFallback(MlirComputation& comp,
                                        c10::ArrayRef<BackendDataPtr> arguments,
                                        const BackendDevice& device) {
  torch::jit::Stack stack;
  for (const BackendDataPtr& arg : arguments) {
    CheckComputed(*arg, "an input of this graph");
    auto data = std::static_pointer_cast<TSData>(arg);
    if (data->scalar.has_value()) stack.emplace_back(*data->scalar);
    else stack.emplace_back(data->data());
  }
  comp.graph().Interpret(stack, comp.name);
  std::vector<BackendDataPtr> results;
  for (const c10::IValue& v : stack) {
    at::Tensor t = v.toTensor();
    results.push_back(std::make_shared<MlirData>(
        t, torch::lazy::Shape(t.scalar_type(), t.sizes().vec()), device));
  }
  return results;
}

}  // namespace backend
}  // namespace ltc_mlir
