//===- TorchTypes.cpp - torch dialect types -------------------------------===//
//
// Syntax: `!torch.vtensor<[2,3],f32>`, `!torch.vtensor<[],f64>` (0-dim),
// `!torch.int`, `!torch.float`, `!torch.bool`, `!torch.none` and
// `!torch.list<int>` / `!torch.list<vtensor<[2],f32>>`. List elements that are
// torch types print without the `!torch.` prefix; both forms parse.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_TYPEDEF_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.cpp.inc"

namespace ltc_mlir::torch {

void TorchDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.cpp.inc"
      >();
}

bool isSupportedDtype(Type dtype) {
  if (!dtype)
    return false;
  if (dtype.isF16() || dtype.isBF16() || dtype.isF32() || dtype.isF64())
    return true;
  auto intType = llvm::dyn_cast<IntegerType>(dtype);
  if (!intType)
    return false;
  unsigned width = intType.getWidth();
  if (intType.isSigned())
    return width == 8 || width == 16 || width == 32 || width == 64;
  if (intType.isUnsigned())
    return width == 8;
  // Signless only for bool: ATen ints are signed, so `i32` would be ambiguous.
  return width == 1;
}

//===----------------------------------------------------------------------===//
// ValueTensorType
//===----------------------------------------------------------------------===//

LogicalResult
ValueTensorType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> sizes, Type dtype) {
  for (auto [dim, size] : llvm::enumerate(sizes))
    if (size < 0)
      return emitError() << "vtensor size of dim " << dim << " is " << size
                         << ", but sizes must be static and non-negative";
  if (!isSupportedDtype(dtype))
    return emitError() << "unsupported vtensor dtype " << dtype
                       << " (expected f16, bf16, f32, f64, si8, si16, si32, "
                          "si64, ui8 or i1)";
  return success();
}

Type ValueTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> sizes;
  Type dtype;
  auto parseSize = [&]() -> ParseResult {
    int64_t size;
    if (parser.parseInteger(size))
      return failure();
    sizes.push_back(size);
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseSize,
                                     " in vtensor sizes") ||
      parser.parseComma() || parser.parseType(dtype) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    sizes, dtype);
}

void ValueTensorType::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleave(getSizes(), printer.getStream(), ",");
  printer << "]," << getDtype() << ">";
}

int64_t ValueTensorType::getNumElements() const {
  int64_t n = 1;
  for (int64_t size : getSizes())
    n *= size;
  return n;
}

RankedTensorType ValueTensorType::toBuiltinTensor() const {
  Type elementType = getDtype();
  // Builtin arith/linalg want signless integers; the sign lives in the ops.
  if (auto intType = llvm::dyn_cast<IntegerType>(elementType))
    if (!intType.isSignless())
      elementType = IntegerType::get(getContext(), intType.getWidth());
  return RankedTensorType::get(getSizes(), elementType);
}

//===----------------------------------------------------------------------===//
// ListType
//===----------------------------------------------------------------------===//

Type ListType::parse(AsmParser &parser) {
  Type elementType;
  if (parser.parseLess())
    return {};
  // `none` would parse as the builtin NoneType: in a torch list it means
  // !torch.none. Other bare torch mnemonics (`int`, `vtensor<...>`) are not
  // builtin types, so parseOptionalType leaves them for the torch parser.
  if (succeeded(parser.parseOptionalKeyword("none"))) {
    elementType = NoneType::get(parser.getContext());
  } else {
    OptionalParseResult builtin = parser.parseOptionalType(elementType);
    if (builtin.has_value()) {
      if (failed(*builtin))
        return {};
    } else {
      StringRef mnemonic;
      OptionalParseResult result =
          generatedTypeParser(parser, &mnemonic, elementType);
      if (!result.has_value() || failed(*result)) {
        parser.emitError(parser.getCurrentLocation(),
                         "expected a list element type");
        return {};
      }
    }
  }
  if (parser.parseGreater())
    return {};
  return ListType::get(parser.getContext(), elementType);
}

void ListType::print(AsmPrinter &printer) const {
  printer << "<";
  Type elementType = getElementType();
  if (llvm::isa<TorchDialect>(elementType.getDialect()))
    (void)generatedTypePrinter(elementType, printer);
  else
    printer << elementType;
  printer << ">";
}

} // namespace ltc_mlir::torch
