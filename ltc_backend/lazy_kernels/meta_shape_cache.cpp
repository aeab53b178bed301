#include "ltc_backend/lazy_kernels/meta_shape_cache.h"

#include <c10/util/hash.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "ltc_backend/metrics.h"

namespace ltc_mlir {
namespace backend {
namespace {

// Bounded so that arguments that change every call (a Scalar following a
// schedule) cannot grow it without limit: when full it starts over.
constexpr size_t kMaxEntries = 4096;

// Tags of the key's argument encodings.
enum Tag : int64_t {
  kUndefinedTensor = 1, kTensor, kTensorList, kOptionalTensorList, kNone, kBool,
  kInt, kDouble, kComplex, kIntList, kDoubleList, kBoolList, kString, kDevice,
};

int64_t Bits(double d) {
  int64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

bool AppendTensor(const at::Tensor& t, std::vector<int64_t>& key) {
  if (!t.defined()) {
    key.push_back(kUndefinedTensor);
    return true;
  }
  // A wrapped Python number reaches the meta kernel as itself (its value is
  // visible there); symbolic sizes have no fixed value to key on.
  if (t.unsafeGetTensorImpl()->is_wrapped_number() ||
      t.unsafeGetTensorImpl()->has_symbolic_sizes_strides())
    return false;
  key.push_back(kTensor);
  key.push_back(static_cast<int64_t>(t.scalar_type()));
  key.push_back(t.dim());
  for (int64_t size : t.sizes()) key.push_back(size);
  return true;
}

// Appends `v`'s encoding; false when `v` cannot be keyed.
bool AppendArgument(const c10::IValue& v, std::vector<int64_t>& key) {
  if (v.isTensor()) return AppendTensor(v.toTensor(), key);
  if (v.isTensorList() || v.isOptionalTensorList()) {
    key.push_back(v.isTensorList() ? kTensorList : kOptionalTensorList);
    key.push_back(static_cast<int64_t>(v.toListRef().size()));
    for (const c10::IValue& e : v.toListRef()) {
      if (e.isNone()) {
        key.push_back(kNone);
      } else if (!e.isTensor() || !AppendTensor(e.toTensor(), key)) {
        return false;
      }
    }
    return true;
  }
  if (v.isNone()) {
    key.push_back(kNone);
  } else if (v.isBool()) {
    key.insert(key.end(), {kBool, v.toBool()});
  } else if (v.isInt()) {
    key.insert(key.end(), {kInt, v.toInt()});
  } else if (v.isSymInt()) {
    if (v.toSymInt().is_symbolic()) return false;
    key.insert(key.end(), {kInt, v.toSymInt().expect_int()});
  } else if (v.isDouble()) {
    key.insert(key.end(), {kDouble, Bits(v.toDouble())});
  } else if (v.isComplexDouble()) {
    c10::complex<double> c = v.toComplexDouble();
    key.insert(key.end(), {kComplex, Bits(c.real()), Bits(c.imag())});
  } else if (v.isIntList()) {
    key.push_back(kIntList);
    key.push_back(static_cast<int64_t>(v.toListRef().size()));
    for (const c10::IValue& e : v.toListRef()) {
      if (!e.isInt()) return false;
      key.push_back(e.toInt());
    }
  } else if (v.isDoubleList()) {
    key.push_back(kDoubleList);
    key.push_back(static_cast<int64_t>(v.toListRef().size()));
    for (const c10::IValue& e : v.toListRef()) key.push_back(Bits(e.toDouble()));
  } else if (v.isBoolList()) {
    key.push_back(kBoolList);
    key.push_back(static_cast<int64_t>(v.toListRef().size()));
    for (const c10::IValue& e : v.toListRef()) key.push_back(e.toBool());
  } else if (v.isString()) {
    const std::string& s = v.toStringRef();
    key.push_back(kString);
    key.push_back(static_cast<int64_t>(s.size()));
    for (unsigned char c : s) key.push_back(c);
  } else if (v.isDevice()) {
    key.insert(key.end(), {kDevice, static_cast<int64_t>(v.toDevice().type()),
                           v.toDevice().index()});
  } else {
    return false;  // generators, objects, lists of anything else
  }
  return true;
}

struct Key {
  c10::OperatorName op;
  std::vector<int64_t> args;
  bool operator==(const Key& other) const { return op == other.op && args == other.args; }
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = std::hash<c10::OperatorName>()(k.op);
    for (int64_t v : k.args) h = c10::hash_combine(h, std::hash<int64_t>()(v));
    return h;
  }
};

struct Cache {
  std::mutex mu;
  std::unordered_map<Key, std::vector<torch::lazy::Shape>, KeyHash> entries;
};

Cache& TheCache() {
  static auto* cache = new Cache();  // used until exit
  return *cache;
}

}  // namespace

std::vector<torch::lazy::Shape> CachedMetaShapes(
    const c10::OperatorHandle& op, const torch::jit::Stack& stack,
    const std::function<std::vector<torch::lazy::Shape>()>& probe) {
  const size_t n = op.schema().arguments().size();
  Key key{op.operator_name(), {}};
  key.args.reserve(8 * n);
  for (size_t i = 0; i < n; ++i)
    if (!AppendArgument(stack[stack.size() - n + i], key.args)) {
      Metrics::RecordMetaShapeLookup(/*hit=*/false);
      return probe();
    }
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) {
      Metrics::RecordMetaShapeLookup(/*hit=*/true);
      return it->second;
    }
  }
  Metrics::RecordMetaShapeLookup(/*hit=*/false);
  std::vector<torch::lazy::Shape> shapes = probe();  // may throw: nothing cached
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.entries.size() >= kMaxEntries) cache.entries.clear();
  cache.entries.emplace(std::move(key), shapes);
  return shapes;
}

}  // namespace backend
}  // namespace ltc_mlir
