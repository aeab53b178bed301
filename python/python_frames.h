#pragma once

namespace ltc_mlir {
// Makes LTC's debug metadata record Python frames (see python_frames.cpp).
void InstallPythonFrameGetter();
}  // namespace ltc_mlir
