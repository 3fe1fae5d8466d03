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
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;

void kiln::initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::Error kiln::translateToLLVMIR(const CompiledProgram &program,
                                    NativeProgram &native) {
  llvm::LLVMContext &llvmContext = native.context;
  std::unique_ptr<llvm::TargetMachine> &machine = native.machine;
  std::unique_ptr<llvm::Module> &module = native.module;
  initializeNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return llvm::createStringError("cannot describe the host CPU: " +
                                   llvm::toString(builder.takeError()));
  // A shared object needs position-independent code in the small model.
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto created = builder->createTargetMachine();
  if (!created)
    return llvm::createStringError("cannot create a target machine: " +
                                   llvm::toString(created.takeError()));
  machine = std::move(*created);
  module = translateModuleToLLVMIR(*program.module, llvmContext);
  if (!module)
    return llvm::createStringError("translation to LLVM IR failed");
  module->setDataLayout(machine->createDataLayout());
  module->setTargetTriple(machine->getTargetTriple());
  if (llvm::Error failure = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, machine.get())(module.get()))
    return llvm::createStringError("LLVM optimization failed: " +
                                   llvm::toString(std::move(failure)));
  // The manifest names the features the code was compiled for that the
  // runtime can check, so that a CPU without them refuses the artifact.
  // LLVM emits AMX instructions only for their intrinsics: code that calls
  // none needs no AMX (nor the tile data permission the loader asks for).
  runtime::Manifest manifest = program.manifest;
  bool amx = llvm::any_of(module->functions(), [](const llvm::Function &f) {
    return f.isIntrinsic() && (f.getName().starts_with("llvm.x86.tile") ||
                               f.getName().starts_with("llvm.x86.tdp"));
  });
  llvm::SmallVector<llvm::StringRef> features;
  llvm::StringRef(machine->getTargetFeatureString()).split(features, ',');
  for (llvm::StringRef feature : features)
    if (feature.consume_front("+") &&
        llvm::is_contained(runtime::cpuFeaturesTheRuntimeChecks(), feature) &&
        (amx || !feature.starts_with("amx-")))
      manifest.cpuFeatures.push_back(feature.str());
  auto *text = llvm::ConstantDataArray::getString(
      llvmContext, runtime::serializeManifest(manifest), /*AddNull=*/true);
  new llvm::GlobalVariable(*module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           KILN_MANIFEST_SYMBOL);
  return llvm::Error::success();
}

llvm::Error kiln::emitMachineCode(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  llvm::raw_pwrite_stream &os, bool assembly) {
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  assembly ? llvm::CodeGenFileType::AssemblyFile
                                           : llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit this file type");
  passes.run(module);
  return llvm::Error::success();
}

namespace {
/// The linker of artifacts: $KILN_LLD if set, else the ld.lld of the LLVM
/// Kiln was built with (Debian's ld.lld-22), else any ld.lld on PATH.
llvm::Expected<std::string> findLinker() {
  if (std::optional<std::string> fromEnvironment =
          llvm::sys::Process::GetEnv("KILN_LLD"))
    return *fromEnvironment;
  for (std::string name : {"ld.lld-" + std::to_string(LLVM_VERSION_MAJOR),
                           std::string("ld.lld")})
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name))
      return *found;
  return llvm::createStringError(
      "cannot find ld.lld to link the artifact (install lld or set KILN_LLD)");
}
} // namespace

llvm::Error kiln::writeArtifact(const CompiledProgram &program,
                                llvm::StringRef path, llvm::StringRef linker) {
  std::string lld = linker.str();
  if (lld.empty()) {
    llvm::Expected<std::string> found = findLinker();
    if (!found)
      return found.takeError();
    lld = *found;
  }
  NativeProgram native;
  if (llvm::Error failure = translateToLLVMIR(program, native))
    return failure;
  llvm::SmallString<128> object;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kiln", "o", fd, object))
    return llvm::createStringError("cannot create a temporary object file: " +
                                   ec.message());
  llvm::FileRemover removeObject(object);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (llvm::Error failure =
            emitMachineCode(*native.module, *native.machine, os, false))
      return failure;
  }
  std::string linkError;
  // -Bsymbolic: the program's calls of its own functions bind to them, not
  // to a library's function of the same name loaded earlier (a kiln
  // function named `step` called libc's regex `step`). The builtins define
  // the library calls the code makes, as clang links them.
  llvm::StringRef args[] = {lld,  "-shared", "-Bsymbolic",         "-o",
                            path, object,    KILN_BUILTINS_ARCHIVE};
  int code = llvm::sys::ExecuteAndWait(lld, args, std::nullopt, {}, 0, 0,
                                       &linkError);
  if (code != 0)
    return llvm::createStringError("linking " + path.str() + " with " + lld +
                                   " failed" +
                                   (linkError.empty() ? "" : ": " + linkError));
  return llvm::Error::success();
}
