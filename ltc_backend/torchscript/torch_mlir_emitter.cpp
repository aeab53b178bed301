#include "ltc_backend/torchscript/torch_mlir_emitter.h"

#include "ltc_backend/config.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <set>
#include <unordered_map>

namespace ltc_mlir {
namespace backend {

std::string DtypeName(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return "f32";
    case c10::ScalarType::Double: return "f64";
    case c10::ScalarType::Half: return "f16";
    case c10::ScalarType::BFloat16: return "bf16";
    case c10::ScalarType::Long: return "si64";
    case c10::ScalarType::Int: return "si32";
    case c10::ScalarType::Short: return "si16";
    case c10::ScalarType::Char: return "si8";
    case c10::ScalarType::Byte: return "ui8";
    case c10::ScalarType::Bool: return "i1";
    default: return "";
  }
}

namespace {

// Ops that draw random numbers (Random.cpp): native_dropout and the
// functional sampling ops (bernoulli*, uniform, normal*, exponential,
// random*). Each gets an `ltc.rng_stream` and the function a seed argument.
bool IsRandomOp(const torch::jit::Node* node) {
  static const std::set<std::string> kNames = {
      "aten::native_dropout", "aten::bernoulli", "aten::uniform", "aten::normal",
      "aten::normal_functional", "aten::exponential", "aten::random"};
  return node->kind().is_aten() && kNames.count(node->kind().toQualString()) != 0;
}

std::string TensorTypeText(c10::ScalarType dtype, c10::ArrayRef<int64_t> sizes) {
  std::ostringstream os;
  os << "!torch.vtensor<[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? "," : "") << sizes[i];
  os << "]," << DtypeName(dtype) << ">";
  return os.str();
}

// MLIR float attribute text that round-trips exactly (hex for inf/nan).
std::string FloatAttrText(double v) {
  if (!std::isfinite(v)) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%016llX", (unsigned long long)bits);
    return std::string(buf) + " : f64";
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17e", v);
  return std::string(buf) + " : f64";
}

// An MLIR string attribute: printable ASCII as is, `"` and `\\` and every
// other byte as a two-digit hex escape (\XX), which MLIR's lexer accepts.
std::string StringAttrText(const std::string& v) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : v) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += '\\';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out + "\"";
}

class Emitter {
 public:
  Emitter(const torch::jit::Graph& graph,
          const std::vector<torch::lazy::Shape>& input_shapes)
      : graph_(graph), input_shapes_(input_shapes) {}

  EmittedModule Run() {
    std::ostringstream sig;
    module_.input_order = FirstUseOrder();
    size_t index = 0;
    for (size_t graph_index : module_.input_order) {
      const torch::jit::Value* input = graph_.inputs()[graph_index];
      std::string name = "%arg" + std::to_string(index);
      std::string type;
      const c10::TypePtr& t = input->type();
      if (t->kind() == c10::TypeKind::IntType) {
        type = "!torch.int";
      } else if (t->kind() == c10::TypeKind::FloatType) {
        type = "!torch.float";
      } else if (t->cast<c10::TensorType>() && graph_index < input_shapes_.size()) {
        const torch::lazy::Shape& s = input_shapes_[graph_index];
        if (!CheckDtype(s.scalar_type(), "graph input")) type = "none";
        else type = TensorTypeText(s.scalar_type(), s.sizes());
      } else {
        Unsupported("input of type " + t->str(), "graph inputs must be tensors, int or float");
        type = "none";
      }
      sig << (index ? ", " : "") << name << ": " << type;
      Bind(input, name, type);
      ++index;
    }
    // Random ops draw from a counter-based generator keyed by a seed the
    // backend passes on every run (a last function argument, see
    // EmittedModule::rng_seed_input) and each op's stream number.
    for (const torch::jit::Node* node : graph_.nodes())
      if (IsRandomOp(node)) module_.rng_seed_input = true;
    if (module_.rng_seed_input)
      sig << (index ? ", " : "") << "%rng_seed: !torch.int {ltc.rng_seed}";
    for (const torch::jit::Node* node : graph_.nodes()) EmitNode(node);

    // Outputs that are graph inputs, or repeat an earlier output, are not
    // returned by the function: the backend hands back the same buffer.
    // (Fewer copies, and each returned value gets its own out-param.)
    std::ostringstream results, result_types;
    bool first = true;
    std::unordered_map<const torch::jit::Value*, size_t> returned;
    std::unordered_map<const torch::jit::Value*, size_t> input_index;
    for (size_t i = 0; i < graph_.inputs().size(); ++i) input_index[graph_.inputs()[i]] = i;
    for (const torch::jit::Value* out : graph_.outputs()) {
      auto in = input_index.find(out);
      if (in != input_index.end()) {
        module_.outputs.push_back({OutputSource::kInput, in->second});
        continue;
      }
      auto seen = returned.find(out);
      if (seen != returned.end()) {
        module_.outputs.push_back({OutputSource::kResult, seen->second});
        continue;
      }
      size_t index = returned.size();
      returned[out] = index;
      module_.outputs.push_back({OutputSource::kResult, index});
      results << (first ? "" : ", ") << Name(out);
      result_types << (first ? "" : ", ") << Type(out);
      first = false;
    }
    std::ostringstream os;
    os << "module {\n  func.func @forward(" << sig.str() << ") -> ("
       << result_types.str() << ") {\n"
       << body_.str() << "    return";
    if (!first) os << " " << results.str() << " : " << result_types.str();
    os << "\n  }\n}\n";
    module_.text = os.str();
    return std::move(module_);
  }

 private:
  // Graph inputs in the order the body first reads them (then those only
  // returned, then unused ones). LTC numbers a graph's inputs by when their
  // data was first seen, so the same step can arrive with its parameters
  // permuted (a model's first step reads the tensors moved to the device,
  // later steps the previous step's results); numbering the arguments by
  // use makes such graphs the same text, compiled once.
  std::vector<size_t> FirstUseOrder() const {
    std::unordered_map<const torch::jit::Value*, size_t> position;
    for (size_t i = 0; i < graph_.inputs().size(); ++i) position[graph_.inputs()[i]] = i;
    std::vector<size_t> order;
    std::vector<bool> placed(graph_.inputs().size(), false);
    auto use = [&](const torch::jit::Value* v) {
      auto it = position.find(v);
      if (it != position.end() && !placed[it->second]) {
        placed[it->second] = true;
        order.push_back(it->second);
      }
    };
    std::vector<const torch::jit::Node*> stack;
    for (const torch::jit::Node* node : graph_.nodes()) {
      // Inputs read inside nested blocks count where their node is.
      stack.assign(1, node);
      while (!stack.empty()) {
        const torch::jit::Node* n = stack.back();
        stack.pop_back();
        for (const torch::jit::Value* in : n->inputs()) use(in);
        for (const torch::jit::Block* b : n->blocks())
          for (auto it = b->nodes().rbegin(); it != b->nodes().rend(); ++it) stack.push_back(*it);
      }
    }
    for (const torch::jit::Value* out : graph_.outputs()) use(out);
    for (size_t i = 0; i < placed.size(); ++i)
      if (!placed[i]) order.push_back(i);
    return order;
  }

  void Unsupported(const std::string& what, const std::string& why) {
    module_.unsupported_ops.push_back(what);
    module_.reasons.push_back(what + ": " + why);
  }

  bool CheckDtype(c10::ScalarType dtype, const std::string& where) {
    if (!DtypeName(dtype).empty()) return true;
    Unsupported(where, std::string("dtype ") + c10::toString(dtype) +
                           " is not supported by the native compiler");
    return false;
  }

  void Bind(const torch::jit::Value* v, std::string name, std::string type) {
    names_[v] = {std::move(name), std::move(type)};
  }
  const std::string& Name(const torch::jit::Value* v) { return Lookup(v).first; }
  const std::string& Type(const torch::jit::Value* v) { return Lookup(v).second; }
  const std::pair<std::string, std::string>& Lookup(const torch::jit::Value* v) {
    auto it = names_.find(v);
    if (it == names_.end()) {
      // A value produced by a construct we did not emit (already reported
      // as unsupported): keep going so that every unsupported op is named.
      it = names_.emplace(v, std::make_pair("%undef" + std::to_string(next_++),
                                            std::string("none"))).first;
    }
    return it->second;
  }

  std::string Fresh() { return "%" + std::to_string(next_++); }

  // Emits `%r = "op"(...)`, or `%r:N = ...` for N > 1 results (then the
  // results are named %r#0 ... %r#N-1).
  std::string EmitOp(const std::string& op, const std::vector<std::string>& operands,
                     const std::vector<std::string>& operand_types,
                     const std::string& attrs, const std::string& result_type,
                     size_t num_results = 1) {
    std::string r = Fresh();
    body_ << "    " << r;
    if (num_results != 1) body_ << ":" << num_results;
    body_ << " = \"" << op << "\"(";
    for (size_t i = 0; i < operands.size(); ++i) body_ << (i ? ", " : "") << operands[i];
    body_ << ")";
    if (!attrs.empty()) body_ << " {" << attrs << "}";
    body_ << " : (";
    for (size_t i = 0; i < operand_types.size(); ++i)
      body_ << (i ? ", " : "") << operand_types[i];
    body_ << ") -> " << result_type << "\n";
    return r;
  }

  void EmitConstant(const torch::jit::Node* node) {
    const torch::jit::Value* out = node->output();
    std::optional<c10::IValue> iv = torch::jit::toIValue(out);
    if (!iv) return Unsupported("prim::Constant", "constant without a value");
    if (iv->isNone()) {
      Bind(out, EmitOp("torch.constant.none", {}, {}, "", "!torch.none"), "!torch.none");
    } else if (iv->isBool()) {
      Bind(out, EmitOp("torch.constant.bool", {}, {}, std::string("value = ") +
                       (iv->toBool() ? "true" : "false"), "!torch.bool"), "!torch.bool");
    } else if (iv->isInt()) {
      Bind(out, EmitInt(iv->toInt()), "!torch.int");
    } else if (iv->isDouble()) {
      Bind(out, EmitOp("torch.constant.float", {}, {},
                       "value = " + FloatAttrText(iv->toDouble()), "!torch.float"),
           "!torch.float");
    } else if (iv->isIntList()) {
      std::vector<std::string> elems, types;
      for (int64_t v : iv->toIntVector()) {
        elems.push_back(EmitInt(v));
        types.push_back("!torch.int");
      }
      Bind(out, EmitOp("torch.prim.ListConstruct", elems, types, "", "!torch.list<int>"),
           "!torch.list<int>");
    } else if (iv->isBoolList()) {
      std::vector<std::string> elems, types;
      for (bool v : iv->toBoolList()) {
        elems.push_back(EmitOp("torch.constant.bool", {}, {},
                               std::string("value = ") + (v ? "true" : "false"),
                               "!torch.bool"));
        types.push_back("!torch.bool");
      }
      Bind(out, EmitOp("torch.prim.ListConstruct", elems, types, "", "!torch.list<bool>"),
           "!torch.list<bool>");
    } else if (iv->isString()) {
      Bind(out, EmitOp("torch.constant.str", {}, {},
                       "value = " + StringAttrText(iv->toStringRef()), "!torch.str"),
           "!torch.str");
    } else if (iv->isTensor()) {
      EmitTensorLiteral(out, iv->toTensor());
    } else {
      // Devices, layouts: nothing in the dialect takes them.
      Unsupported("prim::Constant", "constant of type " + out->type()->str());
    }
  }

  // LTC embeds small tensors (e.g. the 0-dim 1.0 that seeds backward).
  void EmitTensorLiteral(const torch::jit::Value* out, const at::Tensor& value) {
    constexpr int64_t kMaxLiteralElements = 1 << 20;
    if (!CheckDtype(value.scalar_type(), "tensor constant")) return;
    if (value.numel() == 0 || value.numel() > kMaxLiteralElements || value.is_sparse() ||
        value.is_quantized())
      return Unsupported("prim::Constant", "tensor constant too large or not dense");
    at::Tensor t = value.contiguous().cpu();
    std::ostringstream attr;
    attr << "value = dense<";
    if (t.scalar_type() == c10::ScalarType::Bool) {
      // Booleans as a flat list; the hex form packs i1 differently.
      attr << "[";
      const bool* data = t.data_ptr<bool>();
      for (int64_t i = 0; i < t.numel(); ++i) attr << (i ? ", " : "") << (data[i] ? "true" : "false");
      attr << "]";
      if (t.dim() != 1) {
        // A flat list only fits rank-1; other ranks use a splat or fall back.
        bool same = true;
        for (int64_t i = 1; i < t.numel(); ++i) same &= data[i] == data[0];
        if (!same) return Unsupported("prim::Constant", "non-splat boolean tensor constant of rank != 1");
        attr.str("");
        attr << "value = dense<" << (t.numel() && data[0] ? "true" : "false");
      }
    } else {
      // Raw little-endian bytes: exact for every float and integer dtype.
      static const char* hex = "0123456789ABCDEF";
      const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
      std::string h = "\"0x";
      for (size_t i = 0; i < t.nbytes(); ++i) {
        h += hex[bytes[i] >> 4];
        h += hex[bytes[i] & 15];
      }
      attr << h << "\"";
    }
    std::string builtin = "tensor<";
    for (int64_t d : t.sizes()) builtin += std::to_string(d) + "x";
    std::string dt = DtypeName(t.scalar_type());
    if (dt[0] == 's' || dt[0] == 'u') dt = "i" + dt.substr(2);  // signless
    builtin += dt + ">";
    attr << "> : " << builtin;
    std::string type = TensorTypeText(t.scalar_type(), t.sizes());
    Bind(out, EmitOp("torch.vtensor.literal", {}, {}, attr.str(), type), type);
  }

  std::string EmitInt(int64_t v) {
    return EmitOp("torch.constant.int", {}, {}, "value = " + std::to_string(v) + " : i64",
                  "!torch.int");
  }

  void EmitListConstruct(const torch::jit::Node* node) {
    std::vector<std::string> elems, types;
    for (const torch::jit::Value* in : node->inputs()) {
      elems.push_back(Name(in));
      types.push_back(Type(in));
    }
    std::string elem_type = "int";
    if (!types.empty()) {
      // A Tensor?[] (index's indices) is typed by its first tensor, not by a
      // leading None (the dialect accepts both).
      std::string representative = types[0];
      for (const std::string& t : types)
        if (t != "!torch.none") {
          representative = t;
          break;
        }
      elem_type = representative.rfind("!torch.", 0) == 0 ? representative.substr(7)
                                                          : representative;
    } else if (!node->output()->type()->cast<c10::ListType>() ||
               node->output()->type()->cast<c10::ListType>()->getElementType()->kind() !=
                   c10::TypeKind::IntType) {
      return Unsupported("prim::ListConstruct", "empty non-int list");
    }
    std::string type = "!torch.list<" + elem_type + ">";
    Bind(node->output(), EmitOp("torch.prim.ListConstruct", elems, types, "", type), type);
  }

  // Some TS lowerings build helper nodes LTC has no shape for (e.g. the
  // aten::expand before the clone of a scalar expand); derive the few we meet
  // from their operands.
  static c10::TensorTypePtr InferType(const torch::jit::Node* node) {
    if (node->inputs().empty()) return nullptr;
    auto in = node->input(0)->type()->cast<c10::TensorType>();
    if (!in || !in->sizes().concrete_sizes() || !in->scalarType()) return nullptr;
    std::vector<int64_t> in_sizes = *in->sizes().concrete_sizes();
    const c10::Symbol k = node->kind();
    std::vector<int64_t> sizes;
    if (k == c10::aten::clone || k == c10::aten::detach || k == c10::aten::contiguous) {
      sizes = in_sizes;
    } else if (k == c10::aten::expand || k == c10::aten::expand_copy) {
      std::optional<c10::IValue> list = torch::jit::toIValue(node->input(1));
      if (!list || !list->isIntList()) return nullptr;
      sizes = list->toIntVector();
      size_t lead = sizes.size() - std::min(sizes.size(), in_sizes.size());
      for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == -1) {
          if (i < lead) return nullptr;
          sizes[i] = in_sizes[i - lead];
        }
    } else {
      return nullptr;
    }
    return c10::TensorType::createContiguous(*in->scalarType(), c10::kCPU, sizes);
  }

  // torch's LTC shape functions type batch norm's statistics and parameter
  // gradients wrongly: native_batch_norm's save_mean/save_invstd get the
  // default dtype (f32) when running_mean is None, and UNKNOWN_SCALAR[0] when
  // the optional holds an undefined tensor (F.instance_norm passes one);
  // native_batch_norm_backward's grad_weight/grad_bias get the default
  // dtype. Eager (and the TorchScript fallback) computes them in the dtype of
  // the parameters when it differs from the input's (bf16 input, f32
  // parameters), else in the input's: an f64 batch norm would be rounded to
  // f32 in between. Values the graph returns keep LTC's type (the caller
  // allocates them by it).
  static c10::TensorTypePtr CorrectBatchNormType(const torch::jit::Node* node,
                                                 const torch::jit::Value* out) {
    const bool forward = node->kind() == c10::aten::native_batch_norm &&
                         node->inputs().size() == 8;
    const bool backward = node->kind() == c10::aten::native_batch_norm_backward &&
                          node->inputs().size() == 10;
    if ((!forward && !backward) || out == node->output(0)) return nullptr;
    for (const torch::jit::Use& use : out->uses())
      if (use.user->kind() == c10::prim::Return) return nullptr;
    auto tt = out->type()->cast<c10::TensorType>();
    auto in = node->input(forward ? 0 : 1)->type()->cast<c10::TensorType>();
    if (!tt || !in || !in->scalarType() || !in->sizes().concrete_sizes() ||
        in->sizes().concrete_sizes()->size() < 2)
      return nullptr;
    c10::ScalarType dtype = *in->scalarType();
    for (size_t i : forward ? std::vector<size_t>{1, 2, 3, 4} : std::vector<size_t>{2, 3, 4}) {
      auto param = node->input(i)->type()->cast<c10::TensorType>();
      if (param && param->scalarType() && *param->scalarType() != dtype &&
          !DtypeName(*param->scalarType()).empty()) {
        dtype = *param->scalarType();
        break;
      }
    }
    std::vector<int64_t> sizes;
    if (!IsUndefinedTensor(out)) {
      sizes = *tt->sizes().concrete_sizes();
      if (*tt->scalarType() == dtype) return nullptr;
    } else {
      std::optional<c10::IValue> training = torch::jit::toIValue(node->input(forward ? 5 : 7));
      if (!training || !training->isBool() || !training->toBool()) return nullptr;
      sizes = {(*in->sizes().concrete_sizes())[1]};
    }
    return c10::TensorType::createContiguous(dtype, c10::kCPU, sizes);
  }

  // A tensor output without a known dtype or shape.
  static bool IsUndefinedTensor(const torch::jit::Value* out) {
    auto tt = out->type()->cast<c10::TensorType>();
    return tt && (!tt->scalarType() || !tt->sizes().concrete_sizes() ||
                  DtypeName(*tt->scalarType()).empty());
  }

  // Type text of a node output: tensors need the complete type LTC gave them.
  bool ResultType(const torch::jit::Node* node, const torch::jit::Value* out,
                  std::string* type) {
    if (auto tt = out->type()->cast<c10::TensorType>()) {
      if (!tt->sizes().concrete_sizes() || !tt->scalarType()) {
        if (c10::TensorTypePtr inferred = node->outputs().size() == 1 ? InferType(node) : nullptr) {
          const_cast<torch::jit::Value*>(out)->setType(inferred);
          tt = inferred;
        }
      }
      auto sizes = tt->sizes().concrete_sizes();
      auto dtype = tt->scalarType();
      if (!sizes || !dtype) {
        Unsupported(node->kind().toQualString(), "result shape unknown");
        return false;
      }
      if (!CheckDtype(*dtype, node->kind().toQualString())) return false;
      *type = TensorTypeText(*dtype, *sizes);
      return true;
    }
    switch (out->type()->kind()) {
      case c10::TypeKind::IntType: *type = "!torch.int"; return true;
      case c10::TypeKind::FloatType: *type = "!torch.float"; return true;
      case c10::TypeKind::BoolType: *type = "!torch.bool"; return true;
      case c10::TypeKind::NumberType:
        // ScalarImplicit(t): LTC passes a Python number as a 0-dim tensor
        // (graph input) where the op wants a Scalar; its kind is the
        // tensor's: float for floating dtypes, else int.
        if (node->kind() == c10::aten::ScalarImplicit) {
          auto in = node->input(0)->type()->cast<c10::TensorType>();
          if (in && in->scalarType()) {
            *type = c10::isFloatingType(*in->scalarType()) ? "!torch.float" : "!torch.int";
            return true;
          }
        }
        [[fallthrough]];
      default:
        Unsupported(node->kind().toQualString(),
                    "result of type " + out->type()->str());
        return false;
    }
  }

  void EmitAten(const torch::jit::Node* node) {
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema) return Unsupported(node->kind().toQualString(), "no schema");
    std::string name = schema->name();  // "aten::add"
    if (IsOpDisabled(name))
      return Unsupported(name, "disabled by LTC_MLIR_DISABLE_OPS / ltc_mlir.set_disabled_ops()");
    const std::string ns = name.substr(0, name.find("::"));
    std::string base = name.substr(name.find("::") + 2);
    // On value tensors a view and its *_copy variant mean the same thing; LTC
    // still emits a few plain views (e.g. the expand of a scalar expand).
    static const std::set<std::string> kViews = {"expand", "view", "permute", "t",
                                                 "transpose", "unsqueeze", "squeeze",
                                                 "detach", "as_strided"};
    if (kViews.count(base)) base += "_copy";
    std::string op = "torch." + ns + "." + base;
    std::string overload = schema->overload_name();
    // An AtenOpNode whose arguments also match an earlier overload says which
    // one it is (kOverloadAttr).
    const c10::Symbol overload_attr = c10::Symbol::attr(backend::kOverloadAttr);
    if (node->hasAttribute(overload_attr)) overload = node->s(overload_attr);
    if (!overload.empty()) op += "." + overload;
    std::vector<std::string> operands, types;
    for (const torch::jit::Value* in : node->inputs()) {
      operands.push_back(Name(in));
      types.push_back(Type(in));
    }
    // LTC records torch.arange as arange.start_out(start, end, step, out)
    // with an empty `out` whose dtype is the result's. The dialect has no
    // out= ops: emit the functional arange.start_step with that dtype.
    if (base == "arange" && schema->overload_name() == "start_out" &&
        node->inputs().size() == 4 && node->outputs().size() == 1) {
      auto tt = node->output()->type()->cast<c10::TensorType>();
      if (!tt || !tt->scalarType())
        return Unsupported(node->kind().toQualString(), "result dtype unknown");
      op = "torch.aten.arange.start_step";
      operands.resize(3);
      types.resize(3);
      operands.push_back(EmitInt(static_cast<int64_t>(*tt->scalarType())));
      types.push_back("!torch.int");
      for (int i = 0; i < 3; ++i) {  // layout, device, pin_memory
        operands.push_back(EmitOp("torch.constant.none", {}, {}, "", "!torch.none"));
        types.push_back("!torch.none");
      }
    }
    std::vector<std::string> result_types;
    for (const torch::jit::Value* out : node->outputs()) {
      std::string t;
      if (c10::TensorTypePtr corrected = CorrectBatchNormType(node, out))
        const_cast<torch::jit::Value*>(out)->setType(corrected);
      if (node->outputs().size() > 1 && out->uses().empty() && IsUndefinedTensor(out)) {
        // An output ATen leaves undefined (e.g. native_layer_norm_backward's
        // grad_bias when there is no bias): LTC gives it no dtype. Nothing
        // reads it, so any type does; the lowering fills it with zeros.
        result_types.push_back("!torch.vtensor<[0],f32>");
        continue;
      }
      if (!ResultType(node, out, &t)) return;
      result_types.push_back(t);
    }
    std::string result_type = result_types.size() == 1 ? result_types[0] : "(";
    if (result_types.size() != 1) {
      for (size_t i = 0; i < result_types.size(); ++i)
        result_type += (i ? ", " : "") + result_types[i];
      result_type += ")";
    }
    std::string attrs;
    if (IsRandomOp(node))
      attrs = "ltc.rng_stream = " + std::to_string(next_stream_++) + " : i64";
    if (ns == "ltc_mlir" && base == "collective") attrs = CollectiveAttrs(node);
    std::string r = EmitOp(op, operands, types, attrs, result_type, result_types.size());
    if (node->outputs().size() == 1) {
      Bind(node->output(), r, result_types[0]);
    } else {
      for (size_t i = 0; i < node->outputs().size(); ++i)
        Bind(node->outputs()[i], r + "#" + std::to_string(i), result_types[i]);
    }
  }

  // A collective (ltc_backend/collectives) says how the process group reads
  // its bytes (ltc.dtype) and, for LTC_MLIR_DEBUG's cross-rank check, what
  // it is (ltc.collective: kind, group, reduce op, root).
  static std::string CollectiveAttrs(const torch::jit::Node* node) {
    auto tt = node->output()->type()->cast<c10::TensorType>();
    std::string what;
    for (size_t i = 2; i < node->inputs().size(); ++i) {
      std::optional<c10::IValue> v = torch::jit::toIValue(node->input(i));
      what += (i > 2 ? " " : "") + (v && v->isInt() ? std::to_string(v->toInt()) : "?");
    }
    return "ltc.collective = \"" + what + "\", ltc.dtype = " +
           std::to_string(tt && tt->scalarType() ? static_cast<int>(*tt->scalarType()) : -1) +
           " : i64";
  }

  void EmitNode(const torch::jit::Node* node) {
    const c10::Symbol kind = node->kind();
    if (kind == c10::prim::Constant) return EmitConstant(node);
    if (kind == c10::prim::ListConstruct) return EmitListConstruct(node);
    if (kind.is_aten() || kind.ns() == c10::Symbol::fromQualString("namespaces::ltc_mlir"))
      return EmitAten(node);
    Unsupported(kind.toQualString(), "not an ATen op");
  }

  const torch::jit::Graph& graph_;
  const std::vector<torch::lazy::Shape>& input_shapes_;
  std::unordered_map<const torch::jit::Value*, std::pair<std::string, std::string>> names_;
  std::ostringstream body_;
  EmittedModule module_;
  int next_ = 0;
  int next_stream_ = 0;
};

}  // namespace

EmittedModule EmitTorchDialect(const torch::jit::Graph& graph,
                               const std::vector<torch::lazy::Shape>& input_shapes) {
  return Emitter(graph, input_shapes).Run();
}

}  // namespace backend
}  // namespace ltc_mlir
