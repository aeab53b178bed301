#include "ltc_backend/shape_variants.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>

namespace ltc_mlir {
namespace backend {
namespace {

int LimitFromEnvironment() {
  const char* env = std::getenv("LTC_MLIR_SHAPE_VARIANTS");
  if (!env) return kDefaultShapeVariantLimit;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  TORCH_CHECK_VALUE(end != env && *end == '\0' && n >= 0 && n <= 1000000,
                    "LTC_MLIR_SHAPE_VARIANTS must be a non-negative integer, got '", env,
                    "'. It is how many input shapes of one graph compile at first sight "
                    "(later new shapes run through the fallback until they recur); 0 compiles "
                    "every shape at once.");
  return static_cast<int>(n);
}

std::atomic<int> limit_override{-1};

struct State {
  std::mutex mu;
  std::map<std::string, int> native_variants;  // generic key -> shapes compiled
  std::map<std::string, int> sightings;        // module hash -> times deferred
};

State& GetState() {
  static State* s = new State();  // never destroyed: used at exit
  return *s;
}

int CountOps(const std::string& text) {
  int n = 0;
  for (size_t at = text.find("\"torch.aten."); at != std::string::npos;
       at = text.find("\"torch.aten.", at + 1))
    ++n;
  return n;
}

}  // namespace

int GetShapeVariantLimit() {
  int v = limit_override.load();
  return v >= 0 ? v : LimitFromEnvironment();
}

void SetShapeVariantLimit(int limit) { limit_override = limit < 0 ? 0 : limit; }

void CheckShapeVariantEnvironment() { (void)LimitFromEnvironment(); }

std::string ShapeGenericKey(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  static const std::string kTensor = "vtensor<[";
  static const std::string kValue = "value = ";
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, kTensor.size(), kTensor) == 0) {
      out += kTensor;
      i += kTensor.size();
      while (i < text.size() && text[i] != ']') {  // sizes: keep the rank only
        if (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-') {
          while (i < text.size() &&
                 (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-'))
            ++i;
          out += '?';
        } else {
          out += text[i++];
        }
      }
      continue;
    }
    if (text.compare(i, kValue.size(), kValue) == 0) {
      // An integer attribute ("value = 64 : i64"): view sizes, dims.
      size_t j = i + kValue.size();
      if (j < text.size() && text[j] == '-') ++j;
      size_t digits = j;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j > digits && text.compare(j, 6, " : i64") == 0) {
        out += "value = ?";
        i = j;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

bool ShouldDeferCompile(const std::string& text, const std::string& text_hash) {
  int limit = GetShapeVariantLimit();
  if (limit == 0 || CountOps(text) < kMinOpsToDefer) return false;
  std::string key = ShapeGenericKey(text);
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  auto known = s.native_variants.find(key);
  if (known == s.native_variants.end() || known->second < limit) return false;
  // Seen before (its deferred graph ran, or LTC hashed it anew): it recurs.
  return s.sightings[text_hash]++ == 0;
}

void RecordNativeVariant(const std::string& text) {
  std::string key = ShapeGenericKey(text);
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.native_variants[key]++;
}

void ResetShapeVariants() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.native_variants.clear();
  s.sightings.clear();
}

}  // namespace backend
}  // namespace ltc_mlir
