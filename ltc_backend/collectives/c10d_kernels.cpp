// c10d_kernels: torch.distributed's collectives on lazy tensors, as graph
// nodes (collective_op.h).
//
// Functionalize-key kernels for the c10d ops (what dist.all_reduce,
// broadcast, all_gather, reduce_scatter and DDP's Reducer call). Their
// schemas mark nothing as written, so functionalization's fallback would
// hand CPU-only kernels unwrapped copies and drop the result. Ours unwraps,
// records the collective on the lazy value and writes the result into the
// caller's tensor (replace_ + commit_update: a view updates its base, as
// DDP's bucket views need), then returns an already completed Work whose
// future holds the caller's tensors (the Reducer reads the bucket from it
// and takes as_strided views of it). The communication itself happens when
// the graph runs. Non-lazy functional tensors run the op unwrapped, as
// functionalization's fallback does, and keep the in-place result.
//
// Lazy-key kernels for the functional collectives (_c10d_functional::
// all_reduce, ... : torch.distributed._functional_collectives) return the
// collective's lazy result; wait_tensor returns its argument (the result
// is complete when the graph has run).
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/library.h>

#include <string>
#include <vector>

#include "ltc_backend/collectives/c10d_kernels.h"
#include "ltc_backend/collectives/collective_op.h"
#include "ltc_backend/collectives/process_groups.h"

namespace ltc_mlir {
namespace backend {
namespace {

namespace fz = at::functionalization::impl;
using c10::IValue;
using torch::jit::Stack;

class CompletedWork : public c10d::Work {
 public:
  CompletedWork(std::vector<at::Tensor> result, c10d::OpType type)
      : Work(-1, type), result_(std::move(result)) {
    future_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors());
    future_->markCompleted(IValue(c10::List<at::Tensor>(result_)));
  }
  bool isCompleted() override { return true; }
  bool isSuccess() const override { return true; }
  bool wait(std::chrono::milliseconds) override { return true; }
  std::vector<at::Tensor> result() override { return result_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  std::vector<at::Tensor> result_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

IValue Completed(std::vector<at::Tensor> result, c10d::OpType type) {
  c10::intrusive_ptr<c10d::Work> work = c10::make_intrusive<CompletedWork>(std::move(result), type);
  return IValue(work);
}

void ForEachTensor(const IValue& v, const std::function<void(const at::Tensor&)>& fn) {
  if (v.isTensor()) {
    fn(v.toTensor());
  } else if (v.isList()) {
    for (const IValue& e : v.toListRef()) ForEachTensor(e, fn);
  }
}

// All tensor arguments are lazy functional tensors (true), none are (false);
// a mix raises.
bool AllLazy(const c10::OperatorHandle& op, const Stack& stack, size_t n) {
  size_t lazy = 0, other = 0;
  for (size_t i = stack.size() - n; i < stack.size(); ++i)
    ForEachTensor(stack[i], [&](const at::Tensor& t) {
      if (!t.defined()) return;
      (t.device().is_lazy() && fz::isFunctionalTensor(t) ? lazy : other)++;
    });
  TORCH_CHECK(lazy == 0 || other == 0, "ltc_mlir: ", op.schema().name(),
              " got lazy and non-lazy tensors; move them all to the lazy device (or all to the "
              "CPU)");
  return lazy > 0;
}

IValue Unwrapped(const IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || !fz::isFunctionalTensor(t)) return v;
    fz::sync(t);
    return fz::from_functional_tensor(t);
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(Unwrapped(t).toTensor());
    return out;
  }
  if (v.isList()) {
    c10::impl::GenericList out(v.toList().elementType());
    for (const IValue& e : v.toListRef()) out.push_back(Unwrapped(e));
    return out;
  }
  return v;
}

// Functionalization's fallback, keeping the in-place result: the kernel
// below writes into the tensors the wrappers hold.
void RunUnwrapped(const c10::OperatorHandle& op, Stack* stack) {
  const size_t n = op.schema().arguments().size();
  Stack inner(stack->end() - n, stack->end());
  for (IValue& v : inner) v = Unwrapped(v);
  Stack args(stack->end() - n, stack->end());
  {
    c10::impl::ExcludeDispatchKeyGuard guard(c10::DispatchKey::Functionalize);
    op.callBoxed(&inner);
  }
  torch::jit::drop(*stack, n);
  // The c10d ops return their (written) tensor arguments, then the Work.
  const auto& returns = op.schema().returns();
  for (size_t r = 0; r < returns.size(); ++r) {
    if (r + 1 == returns.size()) {
      stack->push_back(inner.back());
      continue;
    }
    stack->push_back(args[0]);
  }
}

at::Tensor Inner(const at::Tensor& wrapper) {
  fz::sync(wrapper);
  return fz::from_functional_tensor(wrapper);
}

void Assign(const at::Tensor& wrapper, const at::Tensor& value) {
  TORCH_CHECK(wrapper.sizes() == value.sizes(), "ltc_mlir: a collective's result has shape ",
              value.sizes(), " but its output tensor has shape ", wrapper.sizes());
  at::Tensor v = value.scalar_type() == wrapper.scalar_type() ? value
                                                               : value.to(wrapper.scalar_type());
  fz::replace_(wrapper, v);
  fz::commit_update(wrapper);
  fz::sync(wrapper);
}

c10::intrusive_ptr<c10d::ProcessGroup> GroupArg(const IValue& v) {
  if (v.isString()) return ResolveGroup(v.toStringRef());
  return v.toCustomClass<c10d::ProcessGroup>();
}

int64_t ReduceOpArg(const IValue& v) {
  return static_cast<int64_t>(v.toCustomClass<c10d::ReduceOp>()->op_);
}

// The `i`th of `world` equal pieces of `gathered` along dim 0, shaped like `like`.
at::Tensor Piece(const at::Tensor& gathered, int64_t i, const at::Tensor& like) {
  if (like.dim() == 0) return at::select_copy(gathered, 0, i);
  const int64_t rows = like.size(0);
  return at::slice_copy(gathered, 0, i * rows, (i + 1) * rows);
}

at::Tensor Concatenated(const std::vector<at::Tensor>& pieces) {
  if (!pieces.empty() && pieces[0].dim() == 0) return at::stack(pieces);
  return at::cat(pieces);
}

// One boxed kernel per op: `body` gets the unwrapped-free stack (arguments
// still on it) when every tensor is lazy and leaves the results.
using Body = void (*)(const c10::OperatorHandle&, Stack*);

template <Body body>
void Kernel(const c10::OperatorHandle& op, c10::DispatchKeySet, Stack* stack) {
  const size_t n = op.schema().arguments().size();
  if (!AllLazy(op, *stack, n)) return RunUnwrapped(op, stack);
  at::AutoDispatchBelowADInplaceOrView below;
  body(op, stack);
}

// All-reduces each of `tensors` (a Tensor[]) in place; returns them.
std::vector<at::Tensor> AllReduceEach(const IValue& tensors, const IValue& group_arg,
                                      const IValue& reduce_op_arg) {
  auto group = GroupArg(group_arg);
  const int64_t reduce_op = ReduceOpArg(reduce_op_arg);
  std::vector<at::Tensor> written = tensors.toTensorVector();
  for (const at::Tensor& t : written)
    Assign(t, RecordCollective(Collective::kAllReduce, Inner(t), group, reduce_op, 0));
  return written;
}

// allreduce_(Tensor[] tensors, ProcessGroup, ReduceOp, Tensor? sparse_indices,
//            bool async_op, int timeout) -> (Tensor[], Work)
void AllReduce(const c10::OperatorHandle& op, Stack* stack) {
  Stack args(stack->end() - 6, stack->end());
  TORCH_CHECK_NOT_IMPLEMENTED(args[3].isNone(), "ltc_mlir: sparse all_reduce of lazy tensors");
  std::vector<at::Tensor> written = AllReduceEach(args[0], args[1], args[2]);
  torch::jit::drop(*stack, 6);
  stack->push_back(args[0]);
  stack->push_back(Completed(written, c10d::OpType::ALLREDUCE));
}

// allreduce_coalesced_(Tensor[] tensors, ProcessGroup, ReduceOp, bool async_op,
//                      int timeout) -> Work
void AllReduceCoalesced(const c10::OperatorHandle& op, Stack* stack) {
  Stack args(stack->end() - 5, stack->end());
  std::vector<at::Tensor> written = AllReduceEach(args[0], args[1], args[2]);
  torch::jit::drop(*stack, 5);
  stack->push_back(Completed(written, c10d::OpType::ALLREDUCE_COALESCED));
}

// broadcast_(Tensor[] tensors, ProcessGroup, int root_rank, int root_tensor,
//            bool async_op, int timeout) -> (Tensor[], Work)
void Broadcast(const c10::OperatorHandle& op, Stack* stack) {
  Stack args(stack->end() - 6, stack->end());
  auto group = GroupArg(args[1]);
  std::vector<at::Tensor> tensors = args[0].toTensorVector();
  TORCH_CHECK_NOT_IMPLEMENTED(args[3].toInt() == 0 && tensors.size() == 1,
                              "ltc_mlir: broadcast of several tensors per rank");
  Assign(tensors[0],
         RecordCollective(Collective::kBroadcast, Inner(tensors[0]), group, 0, args[2].toInt()));
  torch::jit::drop(*stack, 6);
  stack->push_back(args[0]);
  stack->push_back(Completed(tensors, c10d::OpType::BROADCAST));
}

// allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ProcessGroup,
//            bool async_op, int timeout) -> (Tensor[][], Work)
void AllGather(const c10::OperatorHandle& op, Stack* stack) {
  Stack args(stack->end() - 5, stack->end());
  auto group = GroupArg(args[2]);
  std::vector<at::Tensor> inputs = args[1].toTensorVector();
  auto outputs = args[0].toList();
  TORCH_CHECK_NOT_IMPLEMENTED(inputs.size() == 1 && outputs.size() == 1,
                              "ltc_mlir: all_gather of several tensors per rank");
  std::vector<at::Tensor> outs = outputs.get(0).toTensorVector();
  TORCH_CHECK(static_cast<int64_t>(outs.size()) == group->getSize(), "ltc_mlir: all_gather needs ",
              group->getSize(), " output tensors (one per rank), got ", outs.size());
  at::Tensor in = Inner(inputs[0]);
  at::Tensor gathered = RecordCollective(Collective::kAllGather, in, group, 0, 0);
  for (size_t i = 0; i < outs.size(); ++i) Assign(outs[i], Piece(gathered, i, in));
  torch::jit::drop(*stack, 5);
  stack->push_back(args[0]);
  stack->push_back(Completed(outs, c10d::OpType::ALLGATHER));
}

// _allgather_base_(Tensor output, Tensor input, ProcessGroup, bool async_op,
//                  int timeout) -> (Tensor, Work)
// _reduce_scatter_base_(Tensor output, Tensor input, ProcessGroup, ReduceOp,
//                       bool async_op, int timeout) -> (Tensor, Work)
template <Collective kind>
void SingleTensor(const c10::OperatorHandle& op, Stack* stack) {
  const size_t n = op.schema().arguments().size();
  Stack args(stack->end() - n, stack->end());
  at::Tensor out = args[0].toTensor();
  const int64_t reduce_op = kind == Collective::kReduceScatter ? ReduceOpArg(args[3]) : 0;
  at::Tensor result =
      RecordCollective(kind, Inner(args[1].toTensor()), GroupArg(args[2]), reduce_op, 0);
  Assign(out, result.numel() == out.numel() ? at::view_copy(result, out.sizes()) : result);
  torch::jit::drop(*stack, n);
  stack->push_back(out);
  stack->push_back(Completed({out}, kind == Collective::kAllGather
                                        ? c10d::OpType::_ALLGATHER_BASE
                                        : c10d::OpType::_REDUCE_SCATTER_BASE));
}

// reduce_scatter_(Tensor[] output_tensors, Tensor[][] input_tensors,
//                 ProcessGroup, ReduceOp, bool async_op, int timeout) -> (Tensor[], Work)
void ReduceScatter(const c10::OperatorHandle& op, Stack* stack) {
  Stack args(stack->end() - 6, stack->end());
  auto group = GroupArg(args[2]);
  std::vector<at::Tensor> outs = args[0].toTensorVector();
  auto inputs = args[1].toList();
  TORCH_CHECK_NOT_IMPLEMENTED(outs.size() == 1 && inputs.size() == 1,
                              "ltc_mlir: reduce_scatter of several tensors per rank");
  std::vector<at::Tensor> pieces;
  for (const at::Tensor& t : inputs.get(0).toTensorVector()) pieces.push_back(Inner(t));
  TORCH_CHECK(static_cast<int64_t>(pieces.size()) == group->getSize(),
              "ltc_mlir: reduce_scatter needs ", group->getSize(),
              " input tensors (one per rank), got ", pieces.size());
  at::Tensor reduced = RecordCollective(Collective::kReduceScatter, Concatenated(pieces), group,
                                        ReduceOpArg(args[3]), 0);
  Assign(outs[0], pieces[0].dim() == 0 ? at::view_copy(reduced, c10::IntArrayRef{}) : reduced);
  torch::jit::drop(*stack, 6);
  stack->push_back(args[0]);
  stack->push_back(Completed(outs, c10d::OpType::REDUCE_SCATTER));
}

// ---- _c10d_functional, on unwrapped lazy tensors (Lazy key) ----

int64_t ReduceOpNamed(const std::string& name) {
  static const std::pair<const char*, c10d::ReduceOp::RedOpType> kOps[] = {
      {"sum", c10d::ReduceOp::SUM}, {"avg", c10d::ReduceOp::AVG},
      {"product", c10d::ReduceOp::PRODUCT}, {"min", c10d::ReduceOp::MIN},
      {"max", c10d::ReduceOp::MAX}, {"band", c10d::ReduceOp::BAND},
      {"bor", c10d::ReduceOp::BOR}, {"bxor", c10d::ReduceOp::BXOR}};
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [n, op] : kOps)
    if (lower == n) return static_cast<int64_t>(op);
  TORCH_CHECK_NOT_IMPLEMENTED(false, "ltc_mlir: reduce op '", name,
                              "' is not supported on lazy tensors");
  __builtin_unreachable();
}

void FunctionalAllReduce(const c10::OperatorHandle&, Stack* stack) {
  Stack args(stack->end() - 3, stack->end());
  at::Tensor r = RecordCollective(Collective::kAllReduce, args[0].toTensor(), GroupArg(args[2]),
                                  ReduceOpNamed(args[1].toStringRef()), 0);
  torch::jit::drop(*stack, 3);
  stack->push_back(r);
}

void FunctionalAllReduceCoalesced(const c10::OperatorHandle&, Stack* stack) {
  Stack args(stack->end() - 3, stack->end());
  auto group = GroupArg(args[2]);
  const int64_t op = ReduceOpNamed(args[1].toStringRef());
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : args[0].toTensorVector())
    out.push_back(RecordCollective(Collective::kAllReduce, t, group, op, 0));
  torch::jit::drop(*stack, 3);
  stack->push_back(c10::List<at::Tensor>(out));
}

void FunctionalAllGather(const c10::OperatorHandle&, Stack* stack) {
  Stack args(stack->end() - 3, stack->end());
  auto group = GroupArg(args[2]);
  TORCH_CHECK(args[1].toInt() == group->getSize(), "ltc_mlir: all_gather_into_tensor: group_size ",
              args[1].toInt(), " is not the group's size ", group->getSize());
  at::Tensor r = RecordCollective(Collective::kAllGather, args[0].toTensor(), group, 0, 0);
  torch::jit::drop(*stack, 3);
  stack->push_back(r);
}

void FunctionalReduceScatter(const c10::OperatorHandle&, Stack* stack) {
  Stack args(stack->end() - 4, stack->end());
  auto group = GroupArg(args[3]);
  TORCH_CHECK(args[2].toInt() == group->getSize(), "ltc_mlir: reduce_scatter_tensor: group_size ",
              args[2].toInt(), " is not the group's size ", group->getSize());
  at::Tensor r = RecordCollective(Collective::kReduceScatter, args[0].toTensor(), group,
                                  ReduceOpNamed(args[1].toStringRef()), 0);
  torch::jit::drop(*stack, 4);
  stack->push_back(r);
}

void FunctionalBroadcast(const c10::OperatorHandle&, Stack* stack) {
  Stack args(stack->end() - 3, stack->end());
  at::Tensor r = RecordCollective(Collective::kBroadcast, args[0].toTensor(), GroupArg(args[2]), 0,
                                  args[1].toInt());
  torch::jit::drop(*stack, 3);
  stack->push_back(r);
}

void WaitTensor(const c10::OperatorHandle&, Stack*) {}  // the argument is the result

template <Body body>
void LazyKernel(const c10::OperatorHandle& op, c10::DispatchKeySet, Stack* stack) {
  body(op, stack);
}

}  // namespace

void RegisterCollectiveKernels() {
  static torch::Library* c10d = new torch::Library(
      torch::Library::IMPL, "c10d", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  c10d->impl("allreduce_", torch::CppFunction::makeFromBoxedFunction<&Kernel<&AllReduce>>());
  c10d->impl("allreduce_coalesced_",
             torch::CppFunction::makeFromBoxedFunction<&Kernel<&AllReduceCoalesced>>());
  c10d->impl("broadcast_", torch::CppFunction::makeFromBoxedFunction<&Kernel<&Broadcast>>());
  c10d->impl("allgather_", torch::CppFunction::makeFromBoxedFunction<&Kernel<&AllGather>>());
  c10d->impl("_allgather_base_", torch::CppFunction::makeFromBoxedFunction<
                                     &Kernel<&SingleTensor<Collective::kAllGather>>>());
  c10d->impl("reduce_scatter_",
             torch::CppFunction::makeFromBoxedFunction<&Kernel<&ReduceScatter>>());
  c10d->impl("_reduce_scatter_base_", torch::CppFunction::makeFromBoxedFunction<
                                          &Kernel<&SingleTensor<Collective::kReduceScatter>>>());

  static torch::Library* funcol = new torch::Library(
      torch::Library::IMPL, "_c10d_functional", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  funcol->impl("all_reduce",
               torch::CppFunction::makeFromBoxedFunction<&LazyKernel<&FunctionalAllReduce>>());
  funcol->impl("all_reduce_coalesced", torch::CppFunction::makeFromBoxedFunction<
                                           &LazyKernel<&FunctionalAllReduceCoalesced>>());
  funcol->impl("all_gather_into_tensor",
               torch::CppFunction::makeFromBoxedFunction<&LazyKernel<&FunctionalAllGather>>());
  funcol->impl("reduce_scatter_tensor",
               torch::CppFunction::makeFromBoxedFunction<&LazyKernel<&FunctionalReduceScatter>>());
  funcol->impl("broadcast",
               torch::CppFunction::makeFromBoxedFunction<&LazyKernel<&FunctionalBroadcast>>());
  funcol->impl("wait_tensor", torch::CppFunction::makeFromBoxedFunction<&LazyKernel<&WaitTensor>>());
}

}  // namespace backend
}  // namespace ltc_mlir
