//===- Artifact.cpp - LLVM IR, machine code and shared objects ------------===//
#include "Compiler.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;

namespace kiln::runtime {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

kiln_status_t translateToLLVMIR(const CompiledProgram &program,
                                NativeProgram &native) {
  llvm::LLVMContext &llvmContext = native.context;
  std::unique_ptr<llvm::TargetMachine> &machine = native.machine;
  std::unique_ptr<llvm::Module> &module = native.module;
  initializeNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return error("cannot describe the host CPU: " +
                 llvm::toString(builder.takeError()));
  // A shared object needs position-independent code in the small model.
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto created = builder->createTargetMachine();
  if (!created)
    return error("cannot create a target machine: " +
                 llvm::toString(created.takeError()));
  machine = std::move(*created);
  module = translateModuleToLLVMIR(*program.module, llvmContext);
  if (!module)
    return error("translation to LLVM IR failed");
  module->setDataLayout(machine->createDataLayout());
  module->setTargetTriple(machine->getTargetTriple());
  if (llvm::Error failure = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, machine.get())(module.get()))
    return error("LLVM optimization failed: " +
                 llvm::toString(std::move(failure)));
  auto *text = llvm::ConstantDataArray::getString(
      llvmContext, serializeManifest(program.manifest), /*AddNull=*/true);
  new llvm::GlobalVariable(*module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           "kiln_manifest");
  return nullptr;
}

kiln_status_t emitMachineCode(llvm::Module &module,
                              llvm::TargetMachine &machine,
                              llvm::raw_pwrite_stream &os, bool assembly) {
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  assembly ? llvm::CodeGenFileType::AssemblyFile
                                           : llvm::CodeGenFileType::ObjectFile))
    return error("the target cannot emit this file type");
  passes.run(module);
  return nullptr;
}

kiln_status_t writeArtifact(const CompiledProgram &program, const char *path) {
  NativeProgram native;
  if (kiln_status_t status = translateToLLVMIR(program, native))
    return status;
  llvm::SmallString<128> object;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kiln", "o", fd, object))
    return error("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removeObject(object);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (kiln_status_t status =
            emitMachineCode(*native.module, *native.machine, os, false))
      return status;
  }
  std::string linkError;
  llvm::StringRef args[] = {KILN_LLD, "-shared", "-o", path, object};
  int code = llvm::sys::ExecuteAndWait(KILN_LLD, args, std::nullopt, {}, 0, 0,
                                       &linkError);
  if (code != 0)
    return error(std::string("linking ") + path + " with " + KILN_LLD +
                 " failed" + (linkError.empty() ? "" : ": " + linkError));
  return nullptr;
}

} // namespace kiln::runtime
