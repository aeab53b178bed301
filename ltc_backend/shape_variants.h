// shape_variants: cheap new shapes. Every new input shape of a graph is a
// new module to compile (shapes are static). A graph whose structure (its
// module with sizes and integer constants erased) already compiled natively
// in `limit` shapes runs a new shape through the TorchScript fallback the
// first time it appears, and compiles it when it recurs: a loop over many
// batch sizes pays `limit` compiles, a shape that repeats (an epoch's last,
// smaller batch) is native from its second run. Small graphs (under
// kMinOpsToDefer ops) compile quickly and are never deferred.
#pragma once

#include <cstdint>
#include <string>

namespace ltc_mlir {
namespace backend {

constexpr int kDefaultShapeVariantLimit = 2;
constexpr int kMinOpsToDefer = 32;  // an MLP training step has 39-61

// LTC_MLIR_SHAPE_VARIANTS (default 2; 0: compile every shape at once) or
// ltc_mlir.set_shape_variant_limit(). Throws c10::ValueError for a malformed
// variable (checked by init()).
int GetShapeVariantLimit();
void SetShapeVariantLimit(int limit);
void CheckShapeVariantEnvironment();

// The module text with tensor sizes and integer constants erased.
std::string ShapeGenericKey(const std::string& module_text);

// Whether the (canonical) module `text` should run through the fallback
// instead of compiling now. Counts the sighting.
bool ShouldDeferCompile(const std::string& text, const std::string& text_hash);

// A module compiled (or loaded) natively: one more shape of its structure.
void RecordNativeVariant(const std::string& text);

// Forgets the structures and sightings (tests).
void ResetShapeVariants();

}  // namespace backend
}  // namespace ltc_mlir
