//===- codegen_parts_test.cpp - objects of a graph split for codegen ------===//
//
// A module compiled on several threads is split into parts, each its own
// object that the JIT allocates on its own. A part must reach the data of
// another part (LLVM's private constants, promoted to globals) through the
// GOT: a PC-relative reference (R_X86_64_PC32) only links when the two
// allocations happen to lie within 2 GB of each other, and BERT's graphs
// failed to load now and then with "out of range of Delta32 fixup".
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "Compiler/JitSupport.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

namespace {

// Two large functions (so that the module is split) reading one private
// constant table at a variable index.
std::string moduleText() {
  std::string text =
      "@0 = private unnamed_addr constant [8 x float] [float 1.0, float 2.0, "
      "float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0]\n";
  for (int f = 0; f < 2; ++f) {
    text += "define float @part" + std::to_string(f) + "(i64 %i, float %x) {\n";
    text += "  %p = getelementptr [8 x float], ptr @0, i64 0, i64 %i\n";
    text += "  %v0 = load volatile float, ptr %p\n";
    // A chain of distinct constants, so that no pass shortens or merges it.
    for (int k = 1; k < 3000; ++k)
      text += "  %v" + std::to_string(k) + " = " + (k % 2 ? "fmul" : "fadd") + " float %v" +
              std::to_string(k - 1) + ", " + std::to_string(f * 3000 + k) + ".0\n";
    text += "  %r = fmul float %v2999, %x\n  ret float %r\n}\n";
  }
  return text;
}

TEST(CodegenParts, CrossPartDataGoesThroughTheGot) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  setenv("LTC_MLIR_COMPILE_THREADS", "2", /*overwrite=*/1);
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(moduleText(), diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  ltc_mlir::detail::CodegenOptions options;
  options.optLevel = 1;
  options.features = ltc_mlir::detail::jitTargetFeatures("");
  options.exportedSymbols = {"part0", "part1"};
  std::vector<std::string> objects;
  std::string error;
  ASSERT_TRUE(ltc_mlir::detail::compileToObjects(std::move(module), options, objects, error))
      << error;
  unsetenv("LTC_MLIR_COMPILE_THREADS");
  ASSERT_EQ(objects.size(), 2u) << "the module was not split";

  int crossPartReferences = 0;
  for (const std::string &object : objects) {
    auto parsed = llvm::object::ObjectFile::createObjectFile(
        llvm::MemoryBufferRef(object, "part"));
    ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
    const auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(parsed->get());
    ASSERT_NE(elf, nullptr);
    for (const llvm::object::SectionRef &section : elf->sections()) {
      for (const llvm::object::RelocationRef &relocation : section.relocations()) {
        llvm::object::symbol_iterator symbol = relocation.getSymbol();
        if (symbol == elf->symbol_end())
          continue;
        llvm::Expected<llvm::StringRef> name = symbol->getName();
        llvm::Expected<llvm::object::section_iterator> where = symbol->getSection();
        if (!name || !where || !name->starts_with("ltc_mlir_local_"))
          continue;
        if (*where != elf->section_end())
          continue;  // defined in this part: a local reference is fine
        ++crossPartReferences;
        EXPECT_NE(relocation.getType(), llvm::ELF::R_X86_64_PC32)
            << name->str() << " is read PC-relative from another part";
      }
    }
  }
  EXPECT_GE(crossPartReferences, 1) << "no part reads the constant of another";
}

}  // namespace
