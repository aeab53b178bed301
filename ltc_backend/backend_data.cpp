#include "ltc_backend/backend_data.h"

namespace ltc_mlir {
namespace backend {

void MlirData::Assign(const torch::lazy::BackendData& data) {
  TSData::Assign(data);
  if (const auto* mlir = dynamic_cast<const MlirData*>(&data)) {
    failure = mlir->failure;
    completion = mlir->completion;
  }
}

torch::lazy::BackendData::Handle MlirData::GetHandle() {
  at::Tensor value = data();
  // A shared buffer is never written in place (the output buffer pool
  // takes back only buffers nobody else holds), so one buffer is one value.
  if (value.defined()) return reinterpret_cast<Handle>(value.unsafeGetTensorImpl());
  return TSData::GetHandle();
}

const std::string* FailureOf(const torch::lazy::BackendData& data) {
  const auto* mlir = dynamic_cast<const MlirData*>(&data);
  if (!mlir) return nullptr;
  if (mlir->failure) return mlir->failure.get();
  if (Completion* c = mlir->completion.get()) {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->done && c->failure) return c->failure.get();
  }
  return nullptr;
}

}  // namespace backend
}  // namespace ltc_mlir
