// emitted_module: what the torch-dialect emitter hands the rest of the
// backend (the module text and how the graph's outputs and inputs map to the
// function's results and arguments), free of the graph form it came from.
#pragma once

#include <c10/core/ScalarType.h>

#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

// Where graph output i comes from: function result `index`, or graph
// input `index` passed through unchanged.
enum class OutputSource { kResult, kInput };
struct OutputRef {
  OutputSource source;
  size_t index;
};

struct EmittedModule {
  std::string text;
  std::vector<OutputRef> outputs;  // one per graph output
  // Ops or constructs this emitter cannot express (e.g. "aten::_to_copy"),
  // with a reason each; non-empty means the graph must take the fallback path.
  std::vector<std::string> unsupported_ops;
  std::vector<std::string> reasons;
  // The function takes one more argument after the graph's inputs: the
  // `!torch.int {ltc.rng_seed}` of its random ops (native_dropout), a fresh
  // value from torch's CPU generator on every run.
  bool rng_seed_input = false;
  // Function argument j is graph input input_order[j] (a permutation:
  // arguments are numbered by first use, see FirstUseOrder). OutputRef
  // kInput indices stay graph input indices.
  std::vector<size_t> input_order;
};

// "f32", "si64", ... or "" when the dtype has no torch-dialect spelling.
std::string DtypeName(c10::ScalarType type);

}  // namespace backend
}  // namespace ltc_mlir
