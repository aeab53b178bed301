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
