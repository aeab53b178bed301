#include "ltc_backend/batch_families.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>

namespace ltc_mlir {
namespace backend {
namespace {

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '.' ||
         c == '#' || c == '$' || c == '@' || c == '^' || c == '!';
}

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool IsInteger(const std::string& s) {
  return s.find_first_of(".eE") == std::string::npos;
}

bool Close(double x, double y) {
  return std::fabs(x - y) <= 2e-6 * std::max(std::fabs(x), std::fabs(y));
}

int EnabledFromEnvironment() {
  const char* env = std::getenv("LTC_MLIR_BATCH_GENERIC");
  if (!env) return 1;
  std::string v(env);
  TORCH_CHECK_VALUE(v == "0" || v == "1",
                    "LTC_MLIR_BATCH_GENERIC must be 0 or 1, got '", v,
                    "'. 1 (the default) compiles a graph seen at two batch sizes once for every "
                    "batch size; 0 compiles every shape on its own.");
  return v == "1";
}

std::atomic<int> enabled_override{-1};

std::map<std::string, BatchFamily>& Families() {
  static auto* families = new std::map<std::string, BatchFamily>();  // used at exit
  return *families;
}

}  // namespace

NumberedText SplitNumbers(const std::string& text) {
  NumberedText out;
  std::string word;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const bool starts = (IsDigit(c) || (c == '-' && i + 1 < text.size() && IsDigit(text[i + 1]))) &&
                        (i == 0 || !IsWordChar(text[i - 1]));
    const bool hex = starts && c == '0' && i + 1 < text.size() && (text[i + 1] == 'x');
    if (!starts || hex) {  // hex floats (inf, nan) stay words: compared exactly
      word += c;
      ++i;
      if (hex)
        while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i])))
          word += text[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && IsDigit(text[j])) ++j;
    if (j + 1 < text.size() && text[j] == '.' && IsDigit(text[j + 1])) {
      ++j;
      while (j < text.size() && IsDigit(text[j])) ++j;
    }
    if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
      size_t k = j + 1;
      if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
      if (k < text.size() && IsDigit(text[k])) {
        j = k;
        while (j < text.size() && IsDigit(text[j])) ++j;
      }
    }
    out.words.push_back(std::move(word));
    word.clear();
    out.numbers.push_back(text.substr(i, j - i));
    i = j;
  }
  out.words.push_back(std::move(word));
  return out;
}

std::optional<BatchMatch> MatchBatchSizes(const NumberedText& a, const NumberedText& b) {
  if (a.numbers.size() != b.numbers.size() || a.words != b.words) return std::nullopt;
  std::vector<size_t> differing;
  int64_t ga = 0, gb = 0;
  for (size_t i = 0; i < a.numbers.size(); ++i) {
    if (a.numbers[i] == b.numbers[i]) continue;
    differing.push_back(i);
    if (IsInteger(a.numbers[i]) != IsInteger(b.numbers[i])) return std::nullopt;
    if (!IsInteger(a.numbers[i])) continue;
    const int64_t x = std::strtoll(a.numbers[i].c_str(), nullptr, 10);
    const int64_t y = std::strtoll(b.numbers[i].c_str(), nullptr, 10);
    if (x <= 0 || y <= 0) return std::nullopt;
    ga = std::gcd(ga, x);
    gb = std::gcd(gb, y);
  }
  if (ga < 2 || gb < 2 || ga == gb) return std::nullopt;
  BatchMatch match;
  match.first = ga;
  match.second = gb;
  for (size_t i : differing) {
    ScaledNumber n;
    n.position = i;
    if (IsInteger(a.numbers[i])) {
      const int64_t x = std::strtoll(a.numbers[i].c_str(), nullptr, 10);
      const int64_t y = std::strtoll(b.numbers[i].c_str(), nullptr, 10);
      n.k = x / ga;
      if (x % ga != 0 || n.k * gb != y) return std::nullopt;
    } else {
      n.is_float = true;
      const double x = std::strtod(a.numbers[i].c_str(), nullptr);
      const double y = std::strtod(b.numbers[i].c_str(), nullptr);
      if (x != 0 && Close(x / ga * gb, y)) {
        n.c = x / ga;
      } else if (x != 0 && Close(x * ga / gb, y)) {
        n.c = x * ga;
        n.over = true;
      } else {
        return std::nullopt;
      }
    }
    match.scaled.push_back(n);
  }
  return match;
}

std::optional<int64_t> InstanceBatchSize(const NumberedText& first, const BatchMatch& match,
                                         const NumberedText& text) {
  if (first.numbers.size() != text.numbers.size() || first.words != text.words)
    return std::nullopt;
  int64_t batch = 0;
  for (const ScaledNumber& n : match.scaled) {
    if (n.is_float) continue;
    const std::string& s = text.numbers[n.position];
    if (!IsInteger(s)) return std::nullopt;
    const int64_t v = std::strtoll(s.c_str(), nullptr, 10);
    if (v <= 0 || v % n.k != 0) return std::nullopt;
    batch = v / n.k;
    break;
  }
  if (batch < 2) return std::nullopt;
  size_t next = 0;
  for (size_t i = 0; i < text.numbers.size(); ++i) {
    const std::string& s = text.numbers[i];
    if (next < match.scaled.size() && match.scaled[next].position == i) {
      const ScaledNumber& n = match.scaled[next++];
      if (n.is_float) {
        if (IsInteger(s)) return std::nullopt;
        const double v = std::strtod(s.c_str(), nullptr);
        if (!Close(n.over ? n.c / batch : n.c * batch, v)) return std::nullopt;
      } else if (!IsInteger(s) || std::strtoll(s.c_str(), nullptr, 10) != n.k * batch) {
        return std::nullopt;
      }
    } else if (s != first.numbers[i]) {
      return std::nullopt;
    }
  }
  return batch;
}

std::string DescribeMismatch(const NumberedText& first, const BatchMatch& match,
                             const NumberedText& text) {
  if (first.numbers.size() != text.numbers.size() || first.words != text.words)
    return "its module differs beyond numbers";
  size_t next = 0;
  for (size_t i = 0; i < text.numbers.size(); ++i) {
    const bool scaled = next < match.scaled.size() && match.scaled[next].position == i;
    if (scaled) ++next;
    if (!scaled && text.numbers[i] != first.numbers[i]) {
      std::string context = first.words[i].substr(first.words[i].size() > 60 ? first.words[i].size() - 60 : 0);
      return "number " + std::to_string(i) + " is " + text.numbers[i] + " where the pair has " +
             first.numbers[i] + " in both (after '..." + context + "')";
    }
  }
  return "its scaled numbers are not multiples of one batch size >= 2";
}

bool BatchGenericEnabled() {
  int v = enabled_override.load();
  return v >= 0 ? v != 0 : EnabledFromEnvironment() != 0;
}

void SetBatchGenericEnabled(bool enabled) { enabled_override = enabled ? 1 : 0; }

std::mutex& BatchFamiliesMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

BatchFamily& GetBatchFamily(const std::string& structure_key) {
  return Families()[structure_key];
}

void ResetBatchFamilies() {
  std::lock_guard<std::mutex> lock(BatchFamiliesMutex());
  Families().clear();
}

}  // namespace backend
}  // namespace ltc_mlir
