// torch_mlir_emitter: TorchScript graph (as LTC's TS lowering builds it) ->
// torch-dialect module text, the contract between ltc_backend and
// mlir_lowering. Emits the generic op form so that the text does not depend
// on each op's custom assembly format.
#pragma once

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/lazy/core/shape.h>

#include <string>
#include <vector>

#include "ltc_backend/emitted_module.h"

namespace ltc_mlir {
namespace backend {

// The attribute an AtenOpNode's TorchScript node carries when the schema
// TorchScript matches from its argument types is not the recorded overload
// (e.g. upsample_nearest1d with scales None also matches `.vec`): its value is
// the overload name to emit ("" for the default one).
constexpr const char* kOverloadAttr = "ltc_overload";

// `input_shapes[i]` is the shape/dtype of graph input i when it is a tensor
// (LTC knows it from the BackendData). Every other tensor value must carry a
// complete TensorType (the lowering context sets them from LTC's shapes).
EmittedModule EmitTorchDialect(
    const torch::jit::Graph& graph,
    const std::vector<torch::lazy::Shape>& input_shapes);

} // namespace backend
} // namespace ltc_mlir
