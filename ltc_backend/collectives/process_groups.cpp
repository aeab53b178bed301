#include "ltc_backend/collectives/process_groups.h"

#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/GroupRegistry.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <mutex>
#include <vector>

namespace ltc_mlir {
namespace backend {
namespace {

std::mutex table_mutex;
std::vector<c10::intrusive_ptr<c10d::ProcessGroup>>& Table() {
  static auto* table = new std::vector<c10::intrusive_ptr<c10d::ProcessGroup>>();
  return *table;
}

}  // namespace

int64_t GroupHandle(const c10::intrusive_ptr<c10d::ProcessGroup>& group) {
  TORCH_CHECK(group, "ltc_mlir: a collective without a process group");
  std::lock_guard<std::mutex> lock(table_mutex);
  auto& table = Table();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].get() == group.get()) return static_cast<int64_t>(i);
  table.push_back(group);
  return static_cast<int64_t>(table.size() - 1);
}

c10::intrusive_ptr<c10d::ProcessGroup> GroupOf(int64_t handle) {
  std::lock_guard<std::mutex> lock(table_mutex);
  auto& table = Table();
  TORCH_CHECK(handle >= 0 && handle < static_cast<int64_t>(table.size()),
              "ltc_mlir: a compiled graph names process group ", handle,
              ", which this process does not have (a graph cached by another program?)");
  return table[handle];
}

c10::intrusive_ptr<c10d::ProcessGroup> ResolveGroup(const std::string& name) {
  return c10d::resolve_process_group(name);
}

}  // namespace backend
}  // namespace ltc_mlir
