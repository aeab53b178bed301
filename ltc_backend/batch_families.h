// batch_families: one compile for every batch size. Graphs whose module
// texts differ only in their numbers form a family. A graph that compiles
// on its own is remembered by its family. When a graph of the family
// arrives whose numbers differ from a remembered one's only by multiples of
// one batch size (a size k*B, an integer constant k*B, a float c*B or c/B),
// the two are lowered together into generic code whose batch-dependent
// sizes are given per call (CompileOptions::otherBatchText); every later
// graph that is an instance of the pair runs that code without compiling.
// When the two lowerings cannot be merged (a size that coincides with
// another one, batch 16 next to a hidden size of 16, whose equal-typed
// buffers the lowering merges), the new graph compiles on its own and is
// remembered too, so that the next shapes can still pair. After
// kMaxGenericAttempts refusals the family compiles per shape.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

// A module text split into the numbers of its sizes and constants and the
// text around them.
struct NumberedText {
  std::vector<std::string> words;  // the text between numbers
  std::vector<std::string> numbers;
};
NumberedText SplitNumbers(const std::string& text);

// How a number of a family's module depends on its batch size B.
struct ScaledNumber {
  size_t position = 0;
  bool is_float = false;
  int64_t k = 0;        // integers: k * B
  bool over = false;    // floats: c / B (else c * B)
  double c = 0;
};

// Two texts of one family at batch sizes `first` and `second`.
struct BatchMatch {
  int64_t first = 0, second = 0;
  std::vector<ScaledNumber> scaled;
};

// Whether `a` and `b` are one graph at two batch sizes (both >= 2), and how.
std::optional<BatchMatch> MatchBatchSizes(const NumberedText& a, const NumberedText& b);

// The batch size at which `text` is an instance of the family whose first
// text is `first` (at `match.first`) and whose varying numbers are
// `match.scaled`: every other number equal, every scaled one at the same
// scale. nullopt when it is not (or B < 2).
std::optional<int64_t> InstanceBatchSize(const NumberedText& first, const BatchMatch& match,
                                         const NumberedText& text);

// A graph compiled on its own (canonical module text).
struct SingleShape {
  std::string text;
  NumberedText split;
  int refusals = 0;  // pairs with it that did not merge: pair with others first
};

// Generic code and the pair of shapes it came from.
struct GenericShapes {
  NumberedText first_split;
  BatchMatch match;
  std::shared_ptr<void> code;  // the NativeCode (graph_compiler)
};

// Why `text` is not an instance (InstanceBatchSize failed): the first
// number that does not fit, for LTC_MLIR_DEBUG.
std::string DescribeMismatch(const NumberedText& first, const BatchMatch& match,
                             const NumberedText& text);

// What the backend keeps per family (keyed by the text without numbers).
struct BatchFamily {
  std::vector<SingleShape> singles;  // newest last, at most kMaxSingles
  std::vector<GenericShapes> generics;
  int refusals = 0;                  // pairs whose lowerings did not merge
};
constexpr size_t kMaxSingles = 4;
constexpr int kMaxGenericAttempts = 3;

// LTC_MLIR_BATCH_GENERIC=0 turns families off (every shape compiles as
// before); default on. Throws c10::ValueError for another value.
bool BatchGenericEnabled();
void SetBatchGenericEnabled(bool enabled);

// The family of `structure_key`, created empty on first use. The caller
// holds BatchFamiliesMutex() while it uses the family.
std::mutex& BatchFamiliesMutex();
BatchFamily& GetBatchFamily(const std::string& structure_key);

// Forgets every family (tests).
void ResetBatchFamilies();

}  // namespace backend
}  // namespace ltc_mlir
