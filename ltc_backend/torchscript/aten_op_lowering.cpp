// aten_op_lowering: the IR node behind MakeAtenOpNode (boundary.h) and its
// TorchScript lowering. An AtenOpNode records an ATen op's schema, its tensor
// arguments as operands and everything else as constants
// (lazy_kernels/aten_op_node.h); its Lower emits the op as an ordinary
// builtin call, so the emitter sees a normal aten:: node.
#include <torch/csrc/lazy/core/hash.h>
#include <torch/csrc/lazy/core/ir_builder.h>
#include <torch/csrc/lazy/ts_backend/ts_node.h>
#include <torch/csrc/lazy/ts_backend/ts_node_lowering.h>

#include <sstream>

#include "ltc_backend/torchscript/boundary.h"
#include "ltc_backend/torchscript/torch_mlir_emitter.h"

namespace ltc_mlir {
namespace backend {
namespace {

using torch::lazy::hash_t;
using Kind = AtenOpArg::Kind;

hash_t HashConstant(const c10::IValue& v) {
  if (v.isNone()) return torch::lazy::Hash(std::string("None"));
  if (v.isBool()) return torch::lazy::Hash(v.toBool());
  if (v.isInt()) return torch::lazy::Hash(v.toInt());
  if (v.isDouble()) return torch::lazy::Hash(v.toDouble());
  if (v.isString()) return torch::lazy::Hash(v.toStringRef());
  if (v.isDevice()) return torch::lazy::Hash(v.toDevice());
  if (v.isList()) {
    hash_t h = torch::lazy::Hash(static_cast<int64_t>(v.toListRef().size()));
    for (const c10::IValue& e : v.toListRef()) h = torch::lazy::HashCombine(h, HashConstant(e));
    return h;
  }
  TORCH_CHECK(false, "ltc_mlir: AtenOpNode cannot take a constant of kind ", v.tagKind());
}

hash_t HashArgs(const c10::OperatorHandle& op, const std::vector<AtenOpArg>& args) {
  hash_t h = torch::lazy::Hash(op.operator_name().overload_name);
  for (const AtenOpArg& arg : args) {
    h = torch::lazy::HashCombine(h, torch::lazy::Hash(static_cast<int64_t>(arg.kind)));
    if (arg.kind == Kind::kOperandList)
      h = torch::lazy::HashCombine(h, torch::lazy::Hash(static_cast<int64_t>(arg.num_operands)));
    if (arg.kind == Kind::kOptionalOperandList)
      for (bool present : arg.present) h = torch::lazy::HashCombine(h, torch::lazy::Hash(present));
    if (arg.kind == Kind::kConstant) h = torch::lazy::HashCombine(h, HashConstant(arg.constant));
  }
  return h;
}

// The graph runs on host buffers: a lazy device argument (a factory's
// `device=`) is lowered as None, i.e. the default (CPU) device.
c10::IValue LoweredConstant(const c10::IValue& v) {
  if (v.isDevice() && v.toDevice().is_lazy()) return c10::IValue();
  return v;
}

class AtenOpNode : public torch::lazy::TsNode {
 public:
  AtenOpNode(c10::OperatorHandle op, torch::lazy::OpList operands, std::vector<AtenOpArg> args,
             std::vector<torch::lazy::Shape> shapes);

  torch::lazy::TSOpVector Lower(std::shared_ptr<torch::jit::GraphFunction> function,
                                torch::lazy::TSLoweringContext* loctx) const override;
  std::string ToString() const override;

 private:
  c10::OperatorHandle op_;
  std::vector<AtenOpArg> args_;
};

AtenOpNode::AtenOpNode(c10::OperatorHandle op, torch::lazy::OpList operands,
                       std::vector<AtenOpArg> args, std::vector<torch::lazy::Shape> shapes)
    // The shapes parameter is an rvalue reference: size() is read before any move.
    : TsNode(torch::lazy::OpKind(c10::Symbol::fromQualString(op.operator_name().name)),
             operands, std::move(shapes), shapes.size(), HashArgs(op, args)),
      op_(std::move(op)),
      args_(std::move(args)) {}

torch::lazy::TSOpVector AtenOpNode::Lower(std::shared_ptr<torch::jit::GraphFunction> function,
                                          torch::lazy::TSLoweringContext* loctx) const {
  const auto& schema_args = op_.schema().arguments();
  std::vector<torch::jit::NamedValue> positional;
  std::vector<torch::jit::NamedValue> keyword;
  for (size_t i = 0; i < args_.size(); ++i) {
    const AtenOpArg& arg = args_[i];
    torch::jit::Value* value = nullptr;
    if (arg.kind == Kind::kOperand) {
      value = loctx->GetOutputOp(operand(arg.first_operand));
    } else if (arg.kind == Kind::kOperandList) {
      std::vector<torch::jit::Value*> elements;
      for (size_t j = 0; j < arg.num_operands; ++j)
        elements.push_back(loctx->GetOutputOp(operand(arg.first_operand + j)));
      torch::jit::Graph* graph = function->graph().get();
      value = graph->insertNode(graph->createList(c10::TensorType::get(), elements))->output();
    } else if (arg.kind == Kind::kOptionalOperandList) {
      // Typed Tensor?[] so that the schema with `Tensor?[]` matches (a
      // Tensor[] would pick index.Tensor_hacked_twin).
      torch::jit::Graph* graph = function->graph().get();
      std::vector<torch::jit::Value*> elements;
      size_t next = arg.first_operand;
      for (bool present : arg.present)
        elements.push_back(present ? loctx->GetOutputOp(operand(next++))
                                   : graph->insertConstant(c10::IValue()));
      value = graph->insertNode(graph->createList(c10::OptionalType::ofTensor(), elements))
                  ->output();
    }
    const std::string& name = schema_args[i].name();
    if (!schema_args[i].kwarg_only()) {
      positional.push_back(value ? torch::jit::NamedValue(value)
                                 : torch::jit::NamedValue(LoweredConstant(arg.constant)));
    } else {
      keyword.push_back(value ? torch::jit::NamedValue(name, value)
                              : torch::jit::NamedValue(name, LoweredConstant(arg.constant)));
    }
  }
  torch::lazy::TSOpVector outputs =
      torch::lazy::LowerTSBuiltin(function, op().op, positional, keyword);
  // TorchScript picks the first overload the argument types match: with a
  // None for `float? scales`, upsample_nearest1d(self, output_size, None)
  // also matches upsample_nearest1d.vec (int[]?, float[]?). The node keeps
  // the overload it was recorded with, for the emitter (kOverloadAttr), when
  // its arguments match that one too (a Scalar recorded as a tensor input
  // keeps the Tensor overload TorchScript picks).
  torch::jit::Node* node = outputs.empty() ? nullptr : outputs.front()->node();
  const std::string& overload = op_.operator_name().overload_name;
  if (node && node->kind() == op().op) {
    const c10::FunctionSchema* matched = node->maybeSchema();
    if (matched && matched->overload_name() != overload && node->matches(op_.schema()))
      node->s_(c10::Symbol::attr(kOverloadAttr), overload);
  }
  return outputs;
}

std::string AtenOpNode::ToString() const {
  std::stringstream ss;
  ss << TsNode::ToString();
  if (!op_.operator_name().overload_name.empty())
    ss << ", overload=" << op_.operator_name().overload_name;
  const auto& schema_args = op_.schema().arguments();
  for (size_t i = 0; i < args_.size(); ++i)
    if (args_[i].kind == Kind::kConstant)
      ss << ", " << schema_args[i].name() << "=" << args_[i].constant;
  return ss.str();
}

}  // namespace

torch::lazy::NodePtr MakeAtenOpNode(const c10::OperatorHandle& op, torch::lazy::OpList operands,
                                    std::vector<AtenOpArg> args,
                                    std::vector<torch::lazy::Shape> shapes) {
  return torch::lazy::MakeNode<AtenOpNode>(op, operands, std::move(args), std::move(shapes));
}

}  // namespace backend
}  // namespace ltc_mlir
