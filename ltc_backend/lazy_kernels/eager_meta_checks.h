// eager_meta_checks: calls on meta tensors that raise what eager raises.
//
// Some of our kernels run an op on meta tensors first, so that a bad call
// fails with eager's error before anything is recorded (out_argument_checks.cpp).
// `import torch` puts Python Meta kernels (torch/_meta_registrations.py,
// torch._refs; written for symbolic shapes) in front of torch's C++ ones for
// about a thousand aten ops. They word errors their own way ("Attempting to
// cast from torch.float32 to out tensor with dtype torch.int64, but this
// can't be cast because it is not safe!" where eager says "result type Float
// can't be cast to the desired output type Long"; a RuntimeError where
// torch.cat raises a TypeError).
//
// While an EagerMetaChecks lives on a thread, those ops call torch's C++
// Meta kernel again (the checks eager's CPU kernels make), nested calls
// included; everywhere else the Python kernel runs as before.
#pragma once

#include <cstddef>

namespace ltc_mlir {
namespace backend {

class EagerMetaChecks {
 public:
  EagerMetaChecks();
  ~EagerMetaChecks();
  EagerMetaChecks(const EagerMetaChecks&) = delete;
  EagerMetaChecks& operator=(const EagerMetaChecks&) = delete;
};

}  // namespace backend
}  // namespace ltc_mlir
