// config: process-wide settings, from the environment or Python:
// dump dir (LTC_MLIR_DUMP_DIR), reproducer dir (LTC_MLIR_REPRODUCER_DIR),
// thread count (LTC_MLIR_NUM_THREADS).
#pragma once

#include <string>

namespace ltc_mlir {
namespace backend {

void SetDumpDir(const std::string& dir);  // "" disables dumps
std::string GetDumpDir();

// Where compiler failures leave a reproducer; default
// /tmp/ltc_mlir_reproducers, "" disables them.
void SetReproducerDir(const std::string& dir);
std::string GetReproducerDir();
// Reproducers kept in that directory (the newest).
constexpr unsigned kMaxReproducers = 100;

// LTC_MLIR_NUM_THREADS when set, else torch.get_num_threads().
int GetNumThreads();

// Throws c10::ValueError naming the variable, its value and what is
// accepted if an LTC_MLIR_* variable is malformed (called by init()).
void CheckEnvironment();

}  // namespace backend
}  // namespace ltc_mlir
