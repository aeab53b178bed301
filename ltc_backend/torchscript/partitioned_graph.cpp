// partitioned_graph: a graph holding ops the compiler cannot lower runs as
// native segments (maximal runs of lowerable ops, compiled like whole
// graphs) with only the other ops run by ATen's CPU kernels, one by one.
//
// Segments are runs of consecutive nodes in the graph's topological order,
// so no path leaves a segment and comes back into it: each one can run as a
// unit once its inputs exist. Constants and list constructions are copied
// into every segment that uses them. Values cross between segments and ATen
// ops as at::Tensors, without copies.
#include <ATen/Functions.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/config.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/graph_compiler.h"
#include "ltc_backend/graph_runner.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/torchscript/boundary.h"
#include "ltc_backend/torchscript/torch_mlir_emitter.h"
#include "ltc_backend/torchscript/torchscript_graph.h"
#include "ltc_mlir/runtime/openmp.h"

namespace ltc_mlir {
namespace backend {

struct NativeSegment {
  std::string name;
  std::shared_ptr<runtime::Executable> executable;
  std::vector<const torch::jit::Value*> inputs;   // values of the full graph
  std::vector<const torch::jit::Value*> outputs;  // idem, one per segment output
  std::vector<OutputRef> output_refs;             // segment output -> result/input
  std::vector<torch::lazy::Shape> result_shapes;  // per function result
  bool rng_seed_input = false;
  std::vector<size_t> input_order;  // function argument -> index in `inputs`
};

struct PartitionedGraph {
  // In execution order: a segment index (>= 0), or -1 - i for ATen node i.
  std::vector<int64_t> steps;
  std::vector<NativeSegment> segments;
  std::vector<const torch::jit::Node*> aten_nodes;
  std::vector<torch::jit::Operation> aten_operations;
  int64_t native_op_count = 0, total_op_count = 0;
};

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Nodes copied into every segment that uses them instead of splitting.
bool IsFree(const Node* n) {
  return n->kind() == c10::prim::Constant || n->kind() == c10::prim::ListConstruct;
}

// "torch.aten.topk.default" / "aten::topk" -> "aten::topk".
std::string OpKind(const std::string& name) {
  std::string s = name;
  if (s.rfind("torch.aten.", 0) == 0) {
    s = s.substr(11);
    return "aten::" + s.substr(0, s.find('.'));
  }
  return s.substr(0, s.find('.'));
}

bool DtypeSupported(const Value* v) {
  auto t = v->type()->cast<c10::TensorType>();
  if (!t || !t->scalarType()) return true;
  return !DtypeName(*t->scalarType()).empty();
}

bool MustRunInAten(const Node* n, const std::set<std::string>& unsupported) {
  if (IsFree(n)) return false;
  if (!n->kind().is_aten()) return true;
  if (unsupported.count(n->kind().toQualString())) return true;
  for (const Value* v : n->inputs())
    if (!DtypeSupported(v)) return true;
  for (const Value* v : n->outputs())
    if (!DtypeSupported(v)) return true;
  return false;
}

// Whether `v` is needed outside the run `in_run`: by another node, by the
// graph's outputs, or through a free node (a list) that is.
bool UsedOutside(const Value* v, const std::set<const Node*>& in_run, const Value* graph_return) {
  for (const torch::jit::Use& use : v->uses()) {
    const Node* user = use.user;
    if (user->kind() == c10::prim::Return) return true;
    if (IsFree(user)) {
      for (const Value* out : user->outputs())
        if (UsedOutside(out, in_run, graph_return)) return true;
      continue;
    }
    if (!in_run.count(user)) return true;
  }
  return false;
}

struct Run {
  std::vector<const Node*> nodes;
  std::vector<const Value*> outputs;
};

// Runs of consecutive lowerable nodes. A run whose value is needed outside
// but is not a tensor (an int from aten::size) cannot return it: its
// producer then runs in ATen too, and the runs are formed again.
bool FormRuns(const torch::jit::Graph& graph, std::set<const Node*>& aten, std::vector<Run>& runs) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    runs.clear();
    Run current;
    auto close = [&] {
      if (!current.nodes.empty()) runs.push_back(std::move(current));
      current = Run();
    };
    for (const Node* n : graph.nodes()) {
      if (IsFree(n)) continue;
      if (aten.count(n)) {
        close();
        continue;
      }
      current.nodes.push_back(n);
    }
    close();
    bool changed = false;
    for (Run& run : runs) {
      std::set<const Node*> in_run(run.nodes.begin(), run.nodes.end());
      for (const Node* n : run.nodes) {
        for (const Value* v : n->outputs()) {
          if (!UsedOutside(v, in_run, graph.return_node()->input(0))) continue;
          auto t = v->type()->cast<c10::TensorType>();
          if (!t || !t->scalarType() || !t->sizes().concrete_sizes()) {
            aten.insert(n);
            changed = true;
            break;
          }
          run.outputs.push_back(v);
        }
      }
    }
    if (!changed) return true;
  }
  return false;
}

torch::lazy::Shape ShapeOf(const Value* v) {
  auto t = v->type()->expect<c10::TensorType>();
  return torch::lazy::Shape(*t->scalarType(), *t->sizes().concrete_sizes());
}

// Builds, emits and compiles the subgraph of one run. False if it cannot.
bool CompileSegment(const MlirComputation& comp, const Run& run, NativeSegment& seg) {
  const torch::jit::Graph& graph = JitGraphOf(comp);
  std::unordered_map<const Value*, size_t> graph_input_index;
  for (size_t i = 0; i < graph.inputs().size(); ++i) graph_input_index[graph.inputs()[i]] = i;

  auto sub = std::make_shared<torch::jit::Graph>();
  std::unordered_map<const Value*, Value*> mapped;
  std::vector<torch::lazy::Shape> input_shapes;
  bool ok = true;
  std::function<Value*(Value*)> get = [&](Value* v) -> Value* {
    auto it = mapped.find(v);
    if (it != mapped.end()) return it->second;
    Node* producer = v->node();
    if (IsFree(producer)) {
      Node* copy = sub->createClone(producer, get);
      sub->appendNode(copy);
      for (size_t i = 0; i < producer->outputs().size(); ++i)
        mapped[producer->outputs()[i]] = copy->outputs()[i];
      return mapped[v];
    }
    Value* input = sub->addInput();
    input->setType(v->type());
    auto g = graph_input_index.find(v);
    if (v->type()->cast<c10::TensorType>()) {
      if (g != graph_input_index.end()) {
        input_shapes.push_back(comp.parameter_shapes()[g->second]);
      } else {
        auto t = v->type()->cast<c10::TensorType>();
        if (!t->scalarType() || !t->sizes().concrete_sizes()) ok = false;
        input_shapes.push_back(ok ? ShapeOf(v) : torch::lazy::Shape());
      }
    } else {
      input_shapes.push_back(torch::lazy::Shape());
    }
    seg.inputs.push_back(v);
    mapped[v] = input;
    return input;
  };
  for (const Node* n : run.nodes) {
    Node* copy = sub->createClone(const_cast<Node*>(n), get);
    sub->appendNode(copy);
    for (size_t i = 0; i < n->outputs().size(); ++i) mapped[n->outputs()[i]] = copy->outputs()[i];
  }
  if (!ok) return false;
  for (const Value* v : run.outputs) {
    sub->registerOutput(mapped.at(v));
    seg.outputs.push_back(v);
  }

  auto emit_start = std::chrono::steady_clock::now();
  EmittedModule emitted = EmitTorchDialect(*sub, input_shapes);
  double emit_ms = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - emit_start).count();
  if (!emitted.unsupported_ops.empty()) return false;
  seg.name = GraphName(emitted.text);
  seg.output_refs = emitted.outputs;
  seg.rng_seed_input = emitted.rng_seed_input;
  seg.input_order = emitted.input_order;
  NativeCode code = CompileEmitted(emitted.text, seg.name, emit_ms);
  if (!code.executable) return false;
  const CompiledFunction& fn = *code.result.function;
  if (fn.inputs.size() != seg.inputs.size() + (seg.rng_seed_input ? 1 : 0)) return false;
  seg.result_shapes.assign(fn.outputs.size(), torch::lazy::Shape());
  for (size_t i = 0; i < seg.output_refs.size(); ++i) {
    const OutputRef& ref = seg.output_refs[i];
    if (ref.source == OutputSource::kResult && ref.index < fn.outputs.size())
      seg.result_shapes[ref.index] = ShapeOf(seg.outputs[i]);
  }
  seg.executable = code.executable;
  if (!code.from_disk && !code.reused) Metrics::RecordCompile(seg.name, code.result.compileTimeMs);
  return true;
}

}  // namespace

bool TryPartition(MlirComputation& comp, const std::vector<std::string>& unsupported,
                  const std::string& why) {
  const torch::jit::Graph& graph = JitGraphOf(comp);
  std::set<std::string> kinds;
  for (const std::string& op : unsupported) kinds.insert(OpKind(op));
  std::set<const Node*> aten;
  for (const Node* n : graph.nodes())
    if (MustRunInAten(n, kinds)) aten.insert(n);
  std::vector<Run> runs;
  if (!FormRuns(graph, aten, runs) || runs.empty()) return false;

  auto plan = std::make_shared<PartitionedGraph>();
  std::map<const Node*, int64_t> run_end;  // last node of a run -> segment
  for (const Run& run : runs) {
    NativeSegment seg;
    if (!CompileSegment(comp, run, seg)) return false;
    run_end[run.nodes.back()] = plan->segments.size();
    plan->segments.push_back(std::move(seg));
  }
  std::map<std::string, int64_t> native_counts;
  std::vector<std::string> aten_ops;
  for (const Run& run : runs)
    for (const Node* n : run.nodes) native_counts[n->kind().toQualString()]++;
  for (const Node* n : graph.nodes()) {
    if (IsFree(n)) continue;
    plan->total_op_count++;
    auto end = run_end.find(n);
    if (end != run_end.end()) plan->steps.push_back(end->second);
    if (!aten.count(n)) continue;
    plan->steps.push_back(-1 - static_cast<int64_t>(plan->aten_nodes.size()));
    plan->aten_nodes.push_back(n);
    plan->aten_operations.push_back(const_cast<Node*>(n)->getOperation());
    aten_ops.push_back(n->kind().toQualString());
  }
  for (const auto& kv : native_counts) plan->native_op_count += kv.second;

  comp.partitioned = plan;
  comp.native_op_counts.assign(native_counts.begin(), native_counts.end());
  comp.fallback_ops = aten_ops;
  std::set<std::string> blocking(aten_ops.begin(), aten_ops.end());
  std::string names;
  for (const std::string& op : blocking) names += (names.empty() ? "" : ", ") + op;
  comp.fallback_reason = comp.name + ": unsupported " + names + (why.empty() ? "" : " -- " + why) +
                         " -- partially native: " +
                         std::to_string(plan->native_op_count) + " of " +
                         std::to_string(plan->total_op_count) + " ops compiled in " +
                         std::to_string(plan->segments.size()) +
                         " segment(s), the rest run by ATen";
  Metrics::RecordFallbackGraph(comp.fallback_reason);
  TORCH_WARN("ltc_mlir: graph runs partly natively (", comp.fallback_reason, ")");
  return true;
}

std::vector<torch::lazy::BackendDataPtr> RunPartitioned(
    MlirComputation& comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device) {
  const PartitionedGraph& plan = *comp.partitioned;
  const torch::jit::Graph& graph = JitGraphOf(comp);
  std::unordered_map<const Value*, c10::IValue> env;
  for (size_t i = 0; i < arguments.size(); ++i) {
    CheckComputed(*arguments[i], "an input of this graph");
    auto data = std::static_pointer_cast<torch::lazy::TSData>(arguments[i]);
    env[graph.inputs()[i]] = data->scalar.has_value() ? c10::IValue(*data->scalar)
                                                      : c10::IValue(data->data());
  }
  // Constants and lists are evaluated when first needed.
  std::function<c10::IValue(const Value*)> value = [&](const Value* v) -> c10::IValue {
    auto it = env.find(v);
    if (it != env.end()) return it->second;
    Node* producer = const_cast<Node*>(v->node());
    if (producer->kind() == c10::prim::Constant) {
      std::optional<c10::IValue> constant = torch::jit::toIValue(v);
      TORCH_CHECK(constant, "ltc_mlir: constant without a value in ", comp.name);
      return env[v] = *constant;
    }
    TORCH_CHECK(producer->kind() == c10::prim::ListConstruct,
                "ltc_mlir: internal error: ", v->debugName(), " of ", comp.name,
                " is used before it is computed");
    torch::jit::Stack stack;
    for (const Value* in : producer->inputs()) stack.push_back(value(in));
    producer->getOperation()(stack);
    return env[v] = stack.back();
  };

  runtime::setNumThreads(GetNumThreads());
  for (int64_t step : plan.steps) {
    if (step < 0) {
      const Node* n = plan.aten_nodes[-1 - step];
      torch::jit::Stack stack;
      for (const Value* in : n->inputs()) stack.push_back(value(in));
      torch::jit::Operation op = plan.aten_operations[-1 - step];
      op(stack);
      TORCH_CHECK(stack.size() == n->outputs().size(), "ltc_mlir: ", n->kind().toQualString(),
                  " returned ", stack.size(), " values, expected ", n->outputs().size());
      for (size_t i = 0; i < stack.size(); ++i) env[n->outputs()[i]] = std::move(stack[i]);
      continue;
    }
    const NativeSegment& seg = plan.segments[step];
    const runtime::Executable& exe = *seg.executable;
    std::vector<at::Tensor> input_tensors(seg.inputs.size());
    std::vector<runtime::Arg> inputs;
    for (size_t arg = 0; arg < seg.inputs.size(); ++arg) {
      const size_t i = seg.input_order[arg];
      c10::IValue iv = value(seg.inputs[i]);
      const runtime::ArgSpec& spec = exe.inputs()[arg];
      if (spec.kind == runtime::ArgKind::Int) {
        inputs.push_back(runtime::Arg::integer(iv.isTensor() ? iv.toTensor().item<int64_t>()
                                                             : iv.toScalar().toLong()));
        continue;
      }
      if (spec.kind == runtime::ArgKind::Float) {
        inputs.push_back(runtime::Arg::floating(iv.isTensor() ? iv.toTensor().item<double>()
                                                              : iv.toScalar().toDouble()));
        continue;
      }
      auto type = seg.inputs[i]->type()->expect<c10::TensorType>();
      at::Tensor t = iv.isTensor() ? iv.toTensor() : at::scalar_tensor(iv.toScalar());
      auto dtype = type->scalarType();
      if (dtype && t.scalar_type() != *dtype) t = t.to(*dtype);
      if (!t.is_contiguous()) t = t.contiguous();
      TORCH_CHECK(t.sizes() == c10::IntArrayRef(spec.shape), "ltc_mlir: segment ", seg.name,
                  " input ", i, " has shape ", t.sizes(), ", compiled for ",
                  c10::IntArrayRef(spec.shape));
      inputs.push_back(runtime::Arg::tensor(t.data_ptr()));
      input_tensors[i] = std::move(t);
    }
    if (seg.rng_seed_input) inputs.push_back(runtime::Arg::integer(NextRandomSeed()));
    std::vector<at::Tensor> out_tensors;
    std::vector<runtime::Arg> outputs;
    for (const torch::lazy::Shape& s : seg.result_shapes) {
      out_tensors.push_back(at::empty(s.sizes(), at::TensorOptions().dtype(s.scalar_type())));
      outputs.push_back(runtime::Arg::tensor(out_tensors.back().data_ptr()));
    }
    exe.run(inputs, outputs);
    for (size_t i = 0; i < seg.outputs.size(); ++i) {
      const OutputRef& ref = seg.output_refs[i];
      env[seg.outputs[i]] = ref.source == OutputSource::kInput ? input_tensors[ref.index]
                                                               : out_tensors[ref.index];
    }
  }

  std::vector<torch::lazy::BackendDataPtr> results;
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    c10::IValue v = value(graph.outputs()[i]);
    at::Tensor t = v.isTensor() ? v.toTensor() : at::scalar_tensor(v.toScalar());
    results.push_back(std::make_shared<MlirData>(t, comp.result_shapes()[i], device));
  }
  return results;
}

}  // namespace backend
}  // namespace ltc_mlir
