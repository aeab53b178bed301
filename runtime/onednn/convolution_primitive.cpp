// oneDNN's convolution primitives for one (piece of a) convolution, inside
// libltc_mlir_onednn (see onednn_entry_points.h for why oneDNN lives in its
// own library). One primitive and its reorders per shape, parameters and
// operand strides, created on first use and cached for the process.
#include "onednn_entry_points.h"

#include "convolution_operands.h"
#include "gomp_threads.h"
#include "pooled.h"

#include <dnnl.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace {

using namespace convolution;


using dnnl::memory;

const dnnl::engine &cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::dims stridesOf(const int64_t *strides, int rank) {
  return memory::dims(strides, strides + rank);
}

/// The user's (strided) layout of each of src, weights, dst; the weights
/// of a grouped convolution as [G, F/G, C/G, KH, KW].
struct UserDescs {
  memory::desc operand[3];
  memory::desc bias;
};

UserDescs userDescs(const Operands &o, const Params &p) {
  UserDescs d;
  auto dims4 = [](const Tensor4 *t) {
    return memory::dims(t->sizes, t->sizes + 4);
  };
  d.operand[0] = memory::desc(dims4(o.src), memory::data_type::f32,
                              stridesOf(o.src->strides, 4));
  const Tensor4 *w = o.weights;
  if (p.groups == 1) {
    d.operand[1] = memory::desc(dims4(w), memory::data_type::f32,
                                stridesOf(w->strides, 4));
  } else {
    int64_t fg = w->sizes[0] / p.groups;
    d.operand[1] = memory::desc(
        {p.groups, fg, w->sizes[1], w->sizes[2], w->sizes[3]},
        memory::data_type::f32,
        {w->strides[0] * fg, w->strides[0], w->strides[1], w->strides[2],
         w->strides[3]});
  }
  d.operand[2] = memory::desc(dims4(o.dst), memory::data_type::f32,
                              stridesOf(o.dst->strides, 4));
  if (o.bias && o.bias->sizes[0] > 0)
    d.bias = memory::desc({o.bias->sizes[0]}, memory::data_type::f32,
                          {o.bias->strides[0]});
  return d;
}

/// The primitive of one convolution and the reorders between the user's
/// layouts and the ones it computes in.
struct Plan {
  bool ok = false;
  dnnl::primitive convolution;
  memory::desc user[3], inner[3], bias, scratchpad;
  dnnl::reorder reorder[3]; // user -> inner for inputs, inner -> user for the output
  bool needsReorder[3] = {false, false, false};
  int output = 0;   // which of src (0), weights (1), dst (2) is written
  int argument[3];  // DNNL_ARG_* of src, weights, dst
};

memory::desc anyLayout(const memory::desc &d) {
  return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
}

std::shared_ptr<Plan> createPlan(Kind kind, const Operands &o, const Params &p) {
  auto plan = std::make_shared<Plan>();
  try {
    const dnnl::engine &engine = cpuEngine();
    UserDescs user = userDescs(o, p);
    memory::dims strides = {p.stride[0], p.stride[1]};
    memory::dims dilates = {p.dilation[0] - 1, p.dilation[1] - 1};
    memory::dims padding = {p.padding[0], p.padding[1]};
    memory::desc src = anyLayout(user.operand[0]);
    memory::desc weights = anyLayout(user.operand[1]);
    memory::desc dst = anyLayout(user.operand[2]);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::prop_kind propKind = kind == Kind::Forward
                                   ? dnnl::prop_kind::forward_inference
                                   : dnnl::prop_kind::forward_training;
    dnnl::convolution_forward::desc forward(
        propKind, dnnl::algorithm::convolution_direct, src, weights,
        kind == Kind::Forward ? user.bias : memory::desc(), dst, strides,
        dilates, padding, padding);
    dnnl::convolution_forward::primitive_desc forwardPd(forward, attr, engine);
    if (kind == Kind::Forward) {
      plan->convolution = dnnl::convolution_forward(forwardPd);
      plan->inner[0] = forwardPd.src_desc();
      plan->inner[1] = forwardPd.weights_desc();
      plan->inner[2] = forwardPd.dst_desc();
      plan->scratchpad = forwardPd.scratchpad_desc();
      plan->output = 2;
      plan->argument[0] = DNNL_ARG_SRC;
      plan->argument[1] = DNNL_ARG_WEIGHTS;
      plan->argument[2] = DNNL_ARG_DST;
      plan->bias = user.bias;
    } else if (kind == Kind::BackwardData) {
      dnnl::convolution_backward_data::desc desc(
          dnnl::algorithm::convolution_direct, src, weights, dst, strides,
          dilates, padding, padding);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr, engine,
                                                         forwardPd);
      plan->convolution = dnnl::convolution_backward_data(pd);
      plan->inner[0] = pd.diff_src_desc();
      plan->inner[1] = pd.weights_desc();
      plan->inner[2] = pd.diff_dst_desc();
      plan->scratchpad = pd.scratchpad_desc();
      plan->output = 0;
      plan->argument[0] = DNNL_ARG_DIFF_SRC;
      plan->argument[1] = DNNL_ARG_WEIGHTS;
      plan->argument[2] = DNNL_ARG_DIFF_DST;
    } else {
      dnnl::convolution_backward_weights::desc desc(
          dnnl::algorithm::convolution_direct, src, weights, memory::desc(),
          dst, strides, dilates, padding, padding);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, engine,
                                                            forwardPd);
      plan->convolution = dnnl::convolution_backward_weights(pd);
      plan->inner[0] = pd.src_desc();
      plan->inner[1] = pd.diff_weights_desc();
      plan->inner[2] = pd.diff_dst_desc();
      plan->scratchpad = pd.scratchpad_desc();
      plan->output = 1;
      plan->argument[0] = DNNL_ARG_SRC;
      plan->argument[1] = DNNL_ARG_DIFF_WEIGHTS;
      plan->argument[2] = DNNL_ARG_DIFF_DST;
    }
    for (int i = 0; i < 3; ++i) {
      plan->user[i] = user.operand[i];
      if (plan->inner[i] == plan->user[i])
        continue;
      plan->needsReorder[i] = true;
      plan->reorder[i] =
          i == plan->output
              ? dnnl::reorder(dnnl::reorder::primitive_desc(
                    engine, plan->inner[i], engine, plan->user[i]))
              : dnnl::reorder(dnnl::reorder::primitive_desc(
                    engine, plan->user[i], engine, plan->inner[i]));
    }
    plan->ok = true;
  } catch (const dnnl::error &) {
    plan->ok = false; // computed by referenceConvolution
  }
  return plan;
}

std::shared_ptr<Plan> getPlan(Kind kind, const Operands &o, const Params &p) {
  std::vector<int64_t> key = {static_cast<int64_t>(kind), p.stride[0],
                              p.stride[1], p.padding[0], p.padding[1],
                              p.dilation[0], p.dilation[1], p.groups};
  for (const Tensor4 *t : {o.src, o.weights, o.dst}) {
    key.insert(key.end(), t->sizes, t->sizes + 4);
    key.insert(key.end(), t->strides, t->strides + 4);
  }
  bool hasBias = o.bias && o.bias->sizes[0] > 0;
  key.push_back(hasBias ? o.bias->strides[0] : -1);
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::shared_ptr<Plan>> plans;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Plan> &plan = plans[key];
  if (!plan)
    plan = createPlan(kind, o, p);
  return plan;
}

/// Scratch memory that only grows.
class ScratchBuffer {
public:
  ~ScratchBuffer() { std::free(data_); }
  void *get(size_t bytes) {
    if (bytes > size_) {
      std::free(data_);
      size_ = (bytes + 63) / 64 * 64;
      data_ = std::aligned_alloc(64, size_);
      if (!data_)
        size_ = 0;
    }
    return data_;
  }

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

/// What one call needs besides the plan: the blocked copies of the operands,
/// oneDNN's scratchpad and a stream.
struct Workspace {
  ScratchBuffer scratch[4];
  dnnl::stream stream{cpuEngine()};
};

using WorkspaceLease = Pooled<Workspace>;

void *operandAddress(Tensor4 *t) { return t->aligned + t->offset; }

/// Runs `plan` on the operands; false when scratch memory is missing.
bool execute(const Plan &plan, const Operands &o) {
  WorkspaceLease lease;
  ScratchBuffer *scratch = (*lease).scratch;
  dnnl::stream &stream = (*lease).stream;
  const dnnl::engine &engine = cpuEngine();
  Tensor4 *tensors[3] = {o.src, o.weights, o.dst};
  memory userMemory[3], innerMemory[3];
  for (int i = 0; i < 3; ++i) {
    userMemory[i] = memory(plan.user[i], engine, operandAddress(tensors[i]));
    innerMemory[i] = userMemory[i];
    if (plan.needsReorder[i]) {
      void *buffer = scratch[i].get(plan.inner[i].get_size());
      if (!buffer)
        return false;
      innerMemory[i] = memory(plan.inner[i], engine, buffer);
    }
  }
  std::unordered_map<int, memory> args;
  for (int i = 0; i < 3; ++i) {
    if (i != plan.output && plan.needsReorder[i])
      plan.reorder[i].execute(stream, userMemory[i], innerMemory[i]);
    args.insert({plan.argument[i], innerMemory[i]});
  }
  if (!plan.bias.is_zero())
    args.insert({DNNL_ARG_BIAS,
                 memory(plan.bias, engine, o.bias->aligned + o.bias->offset)});
  size_t scratchpadBytes = plan.scratchpad.get_size();
  if (scratchpadBytes > 0) {
    void *buffer = scratch[3].get(scratchpadBytes);
    if (!buffer)
      return false;
    args.insert({DNNL_ARG_SCRATCHPAD, memory(plan.scratchpad, engine, buffer)});
  }
  plan.convolution.execute(stream, args);
  int out = plan.output;
  if (plan.needsReorder[out])
    plan.reorder[out].execute(stream, innerMemory[out], userMemory[out]);
  stream.wait();
  return true;
}

} // namespace
} // namespace runtime
} // namespace ltc_mlir

extern "C" int ltc_mlir_onednn_convolve(int64_t kind, const void *operands,
                                        const void *params) {
  using namespace ltc_mlir::runtime;
  const auto &o = *static_cast<const convolution::Operands *>(operands);
  const auto &p = *static_cast<const convolution::Params *>(params);
  // oneDNN sizes a primitive's work split for the libgomp thread count at
  // its creation: the primitive is created inside the scope too.
  GompThreadsScope oneThread(1);
  try {
    std::shared_ptr<Plan> plan =
        getPlan(static_cast<convolution::Kind>(kind), o, p);
    return plan->ok && execute(*plan, o) ? 1 : 0;
  } catch (const dnnl::error &) {
    return 0;
  }
}
