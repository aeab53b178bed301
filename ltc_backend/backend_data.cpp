#include "ltc_backend/backend_data.h"

namespace ltc_mlir {
namespace backend {

void MlirData::Assign(const torch::lazy::BackendData& data) {
  TSData::Assign(data);
  if (const auto* mlir = dynamic_cast<const MlirData*>(&data)) failure = mlir->failure;
}

const std::string* FailureOf(const torch::lazy::BackendData& data) {
  const auto* mlir = dynamic_cast<const MlirData*>(&data);
  return mlir && mlir->failure ? mlir->failure.get() : nullptr;
}

}  // namespace backend
}  // namespace ltc_mlir
