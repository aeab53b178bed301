// process_groups: the process groups compiled graphs communicate through.
//
// A collective node names its group by a handle, a small integer: the node
// hash, the module text and both compile caches carry the handle, never a
// pointer, and the runtime call hands it back to us (collective_runner.h).
// The table keeps every group alive for the process's life: a graph
// compiled for it may run again.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <string>

namespace c10d {
class ProcessGroup;
}

namespace ltc_mlir {
namespace backend {

// The handle of `group` (registered on first use).
int64_t GroupHandle(const c10::intrusive_ptr<c10d::ProcessGroup>& group);
// The group of a handle; throws for unknown handles.
c10::intrusive_ptr<c10d::ProcessGroup> GroupOf(int64_t handle);
// The group `_c10d_functional` ops name by string (their `Any group_name`:
// a registered group name or a ProcessGroup object).
c10::intrusive_ptr<c10d::ProcessGroup> ResolveGroup(const std::string& name);

}  // namespace backend
}  // namespace ltc_mlir
