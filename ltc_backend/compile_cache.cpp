#include "ltc_backend/compile_cache.h"

#include "ltc_backend/config.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <utime.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace ltc_mlir {
namespace backend {
namespace {

constexpr const char* kMagic = "ltc_mlir compiled graph v1";
bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

// Writes to a private temporary name, then renames: readers in other
// processes see the whole file or nothing.
bool WriteAtomically(const std::string& path, const std::string& data, std::string& why) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    why = std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  int write_errno = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) write_errno = write_errno ? write_errno : errno;
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    write_errno = errno;
  }
  if (!ok) {
    why = std::strerror(write_errno ? write_errno : EIO);
    std::remove(tmp.c_str());
  }
  return ok;
}

const char* KindName(ValueKind k) {
  switch (k) {
    case ValueKind::Tensor: return "tensor";
    case ValueKind::Int: return "int";
    case ValueKind::Float: return "float";
  }
  return "tensor";
}

bool ParseKind(const std::string& s, ValueKind& k) {
  if (s == "tensor") k = ValueKind::Tensor;
  else if (s == "int") k = ValueKind::Int;
  else if (s == "float") k = ValueKind::Float;
  else return false;
  return true;
}

// Messages are one line each: newlines and backslashes escaped.
std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s;
}

// Comma-separated integers >= `min` ("" is none).
bool ParseInts(const std::string& text, std::vector<int64_t>& values, int64_t min = 0) {
  values.clear();
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    char* end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < min) return false;
    values.push_back(v);
  }
  return true;
}

// "<kind> <dtype> <shape>[ overwrites=<inputs>]".
std::string DescribeValue(const ValueDesc& d) {
  std::string s = std::string(KindName(d.kind)) + " " + (d.dtype.empty() ? "-" : d.dtype) + " " +
                  (d.shape.empty() ? "-" : JoinInts(d.shape));
  if (!d.overwritableInputs.empty()) s += " overwrites=" + JoinInts(d.overwritableInputs);
  return s;
}

bool ParseValue(std::istringstream& in, ValueDesc& d) {
  std::string kind, dtype, shape, extra;
  if (!(in >> kind >> dtype >> shape) || !ParseKind(kind, d.kind)) return false;
  d.dtype = dtype == "-" ? "" : dtype;
  d.shape.clear();
  // -1: a size given per call (code for every batch size).
  if (shape != "-" && !ParseInts(shape, d.shape, /*min=*/-1)) return false;
  d.overwritableInputs.clear();
  if (!(in >> extra)) return true;
  const std::string prefix = "overwrites=";
  return extra.rfind(prefix, 0) == 0 && ParseInts(extra.substr(prefix.size()), d.overwritableInputs) &&
         !(in >> extra);
}

std::string Manifest(const std::string& key, const CachedGraph& g) {
  std::ostringstream os;
  os << kMagic << "\nkey " << key << "\nobject_sha256 " << sha256Hex(g.object)
     << "\nobject_bytes " << g.object.size() << "\n";
  for (const ValueDesc& d : g.inputs) os << "input " << DescribeValue(d) << "\n";
  for (const ValueDesc& d : g.outputs) os << "output " << DescribeValue(d) << "\n";
  for (const std::string& m : g.check_messages) os << "check " << Escape(m) << "\n";
  os << "end\n";
  return os.str();
}

// Fills everything but the object; returns the expected checksum and size.
bool ParseManifest(const std::string& text, const std::string& key, CachedGraph& g,
                   std::string& sha, size_t& bytes) {
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != kMagic) return false;
  bool ended = false, keyed = false;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string field;
    in >> field;
    if (field == "key") {
      std::string k;
      in >> k;
      keyed = k == key;
    } else if (field == "object_sha256") {
      in >> sha;
    } else if (field == "object_bytes") {
      in >> bytes;
    } else if (field == "input" || field == "output") {
      ValueDesc d;
      if (!ParseValue(in, d)) return false;
      (field == "input" ? g.inputs : g.outputs).push_back(std::move(d));
    } else if (field == "check") {
      g.check_messages.push_back(Unescape(line.size() > 6 ? line.substr(6) : ""));
    } else if (field == "end") {
      ended = true;
      break;
    } else {
      return false;
    }
  }
  return ended && keyed && sha.size() == 64;
}

void RemoveEntry(const std::string& dir, const std::string& key) {
  std::remove((dir + "/" + key + ".manifest").c_str());
  std::remove((dir + "/" + key + ".o").c_str());
}

// Removes the least recently used entries (manifest mtime, refreshed on
// every hit) until the directory holds at most 3/4 of the limit.
void EvictIfOverLimit(const std::string& dir, int64_t max_bytes) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  struct Entry { std::string key; int64_t bytes = 0; int64_t used = 0; };
  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
  int64_t total = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    bool manifest = name.size() > 9 && name.compare(name.size() - 9, 9, ".manifest") == 0;
    bool object = name.size() > 2 && name.compare(name.size() - 2, 2, ".o") == 0;
    if (!manifest && !object) continue;
    struct stat st;
    if (::stat((dir + "/" + name).c_str(), &st) != 0) continue;
    std::string key = name.substr(0, name.size() - (manifest ? 9 : 2));
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, entries.size()).first;
      entries.push_back({key});
    }
    Entry& entry = entries[it->second];
    entry.bytes += st.st_size;
    if (manifest) entry.used = st.st_mtime;
    total += st.st_size;
  }
  ::closedir(d);
  if (total <= max_bytes) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes / 4 * 3) break;
    RemoveEntry(dir, e.key);
    total -= e.bytes;
  }
}

}  // namespace

std::optional<CachedGraph> LoadCachedGraph(const std::string& dir, const std::string& key,
                                           std::string& warning) {
  const std::string manifest_path = dir + "/" + key + ".manifest";
  std::string text;
  if (!ReadFile(manifest_path, text)) return std::nullopt;  // a plain miss
  CachedGraph g;
  std::string sha;
  size_t bytes = 0;
  std::string problem;
  if (!ParseManifest(text, key, g, sha, bytes)) {
    problem = "unreadable manifest";
  } else if (!ReadFile(dir + "/" + key + ".o", g.object)) {
    problem = "missing object file";
  } else if (g.object.size() != bytes || sha256Hex(g.object) != sha) {
    problem = "object checksum mismatch (truncated or corrupt)";
  }
  if (!problem.empty()) {
    warning = "ltc_mlir: compile cache entry " + manifest_path + " is damaged (" + problem +
              "); it was removed and the graph is compiled again";
    RemoveEntry(dir, key);
    return std::nullopt;
  }
  ::utime(manifest_path.c_str(), nullptr);  // recently used: evicted last
  return g;
}

void StoreCachedGraph(const std::string& dir, const std::string& key, const CachedGraph& graph,
                      std::string& warning) {
  std::string why;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    // Parent directories (~/.cache) may be missing too.
    for (size_t i = 1; i <= dir.size(); ++i)
      if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  }
  // The object first: a manifest is only ever visible with its object.
  if (!WriteAtomically(dir + "/" + key + ".o", graph.object, why) ||
      !WriteAtomically(dir + "/" + key + ".manifest", Manifest(key, graph), why)) {
    std::remove((dir + "/" + key + ".o").c_str());
    warning = "ltc_mlir: cannot write to the compile cache " + dir + " (" + why +
              "): compiled graphs are not kept for later processes. Free space, or set "
              "LTC_MLIR_CACHE_DIR (ltc_mlir.set_cache_dir()) to a writable directory, or to "
              "\"\" to disable the cache";
    return;
  }
  EvictIfOverLimit(dir, GetCacheMaxBytes());
}

}  // namespace backend
}  // namespace ltc_mlir
