// foreach kernels: torch._foreach_* ops of lazy tensors as one per-tensor op
// per element, under functionalization.
//
// The multi-tensor optimizers (SGD, Adam, AdamW ... with foreach=True) call
// _foreach_mul_, _foreach_add_, _foreach_addcdiv_ and friends. This guards
// against a Functionalize kernel that runs them on meta tensors, where they
// have no kernel ("Could not run 'aten::_foreach_add_.List' with arguments
// from the 'Meta' backend"). On torch 2.14 the _foreach_* ops have
// CompositeExplicitAutograd kernels, and the TS backend records them as
// per-tensor lazy ops without this file.
//
// Here each _foreach_<op>[_].<overload> runs, at the Functionalize key,
// <op>[_] on every element: Tensor[] arguments give their i-th tensor,
// Scalar[] their i-th scalar, other arguments pass as they are, and the
// per-tensor op's own defaults fill the rest (add_.Scalar's alpha). The
// per-tensor op is the one whose overload matches: List -> Tensor,
// Scalar and ScalarList -> Scalar, falling back to the default overload
// (addcmul_, maximum). The calls are traced like any lazy op: the whole
// optimizer step still compiles into the step's graph, without the Python
// loop of the single-tensor optimizers.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <string>
#include <vector>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

const char kForeachPrefix[] = "aten::_foreach_";

// The per-tensor op of a foreach op named `base`, if its arguments line up.
std::optional<c10::OperatorHandle> FindPerTensorOp(const c10::OperatorHandle& foreach,
                                                   const std::string& base) {
  const c10::OperatorName& name = foreach.operator_name();
  std::vector<std::string> overloads;
  const std::string& overload = name.overload_name;
  if (overload == "List") overloads.push_back("Tensor");
  if (overload == "Scalar" || overload == "ScalarList") overloads.push_back("Scalar");
  overloads.push_back("");
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  for (const std::string& candidate : overloads) {
    std::optional<c10::OperatorHandle> op = dispatcher.findSchema({base, candidate});
    if (!op) continue;
    const auto& per_args = op->schema().arguments();
    const auto& args = foreach.schema().arguments();
    if (per_args.size() < args.size()) continue;
    bool fits = true;
    for (size_t j = 0; j < per_args.size() && fits; ++j) {
      if (j >= args.size()) {
        fits = per_args[j].default_value().has_value();
        continue;
      }
      c10::TypeKind kind = args[j].type()->kind();
      c10::TypeKind per_kind = per_args[j].type()->kind();
      if (kind == c10::TypeKind::ListType) {
        c10::TypeKind element = args[j].type()->containedType(0)->kind();
        fits = element == per_kind;
      } else {
        fits = kind == per_kind;
      }
    }
    if (fits) return op;
  }
  return std::nullopt;
}

struct PerTensor {
  c10::OperatorHandle op;
  bool copy_back;  // an out-of-place op for an in-place foreach op
};

std::optional<PerTensor> PerTensorOp(const c10::OperatorHandle& foreach) {
  std::string base = "aten::" + foreach.operator_name().name.substr(sizeof(kForeachPrefix) - 1);
  if (std::optional<c10::OperatorHandle> op = FindPerTensorOp(foreach, base))
    return PerTensor{*op, false};
  // _foreach_maximum_ has no maximum_: maximum, then copy_ into self.
  if (base.back() != '_') return std::nullopt;
  base.pop_back();
  if (std::optional<c10::OperatorHandle> op = FindPerTensorOp(foreach, base))
    return PerTensor{*op, true};
  return std::nullopt;
}

class ForeachAsLoop final : public c10::OperatorKernel {
 public:
  explicit ForeachAsLoop(PerTensor per_tensor)
      : per_tensor_(std::move(per_tensor.op)), copy_back_(per_tensor.copy_back) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    const auto& args = op.schema().arguments();
    const size_t n = args.size();
    std::vector<c10::IValue> in(stack->end() - n, stack->end());
    torch::jit::drop(*stack, n);
    size_t length = 0;
    std::optional<size_t> first_list;
    for (size_t j = 0; j < n; ++j) {
      if (!in[j].isList()) continue;
      size_t size = in[j].toListRef().size();
      if (!first_list) {
        first_list = j;
        length = size;
      }
      // eager's messages
      bool tensors = args[j].type()->containedType(0)->kind() == c10::TypeKind::TensorType;
      TORCH_CHECK(size == length || !tensors,
                  "Tensor lists must have the same number of tensors, got ", length, " and ",
                  size);
      TORCH_CHECK(size == length, "Tensor list must have same number of elements as scalar list.");
    }
    TORCH_CHECK(length > 0 || !first_list || n == 0, OperatorFullName(op),
                ": Tensor list must have at least one tensor.");
    const auto& per_args = per_tensor_.schema().arguments();
    // Below autograd: the foreach op's own autograd and ADInplaceOrView
    // kernels have run.
    c10::DispatchKeySet below = keys & c10::after_autograd_keyset;
    std::vector<at::Tensor> results;
    for (size_t i = 0; i < length; ++i) {
      torch::jit::Stack call;
      for (size_t j = 0; j < per_args.size(); ++j) {
        if (j < n)
          call.push_back(in[j].isList() ? in[j].toListRef()[i] : in[j]);
        else
          call.push_back(*per_args[j].default_value());
      }
      per_tensor_.redispatchBoxed(below, &call);
      if (copy_back_) {
        torch::jit::Stack copy{in[0].toListRef()[i], call.at(0), false};
        CopyOp().redispatchBoxed(below, &copy);
      } else if (!op.schema().returns().empty()) {
        results.push_back(call.at(0).toTensor());
      }
    }
    if (!op.schema().returns().empty()) stack->emplace_back(c10::List<at::Tensor>(results));
  }

 private:
  static const c10::OperatorHandle& CopyOp() {
    static const c10::OperatorHandle copy =
        c10::Dispatcher::singleton().findSchemaOrThrow("aten::copy_", "");
    return copy;
  }

  c10::OperatorHandle per_tensor_;
  bool copy_back_;
};

}  // namespace

size_t RegisterForeachKernels() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  QuietWarnings quiet;  // one "overriding a previously registered kernel" per op
  size_t registered = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (op.operator_name().name.rfind(kForeachPrefix, 0) != 0) return;
    // .out variants are what functionalization itself produces from these.
    const std::string& overload = op.operator_name().overload_name;
    if (overload == "out" || (overload.size() > 4 && overload.compare(overload.size() - 4, 4, "_out") == 0))
      return;
    std::optional<PerTensor> per_tensor = PerTensorOp(op);
    if (!per_tensor) return;
    lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                std::make_unique<ForeachAsLoop>(*per_tensor)));
    ++registered;
  });
  return registered;
}

}  // namespace backend
}  // namespace ltc_mlir
