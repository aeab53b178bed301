// config: process-wide settings (dump dir, thread count), from the
// environment (LTC_MLIR_DUMP_DIR, LTC_MLIR_NUM_THREADS) or Python.
#pragma once

#include <string>

namespace ltc_mlir {
namespace backend {

void SetDumpDir(const std::string& dir);  // "" disables dumps
std::string GetDumpDir();
// LTC_MLIR_NUM_THREADS when set, else torch.get_num_threads().
int GetNumThreads();

}  // namespace backend
}  // namespace ltc_mlir
