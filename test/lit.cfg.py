# The kiln lit suite: every .mlir file under test/ is a test.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.use_default_substitutions()
# FileCheck, not and count live beside the installed LLVM, not in our build.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["kiln-opt", "kiln-run", "kiln-compile", "kiln-embed-example",
     "kiln-npz_tool", "kiln-train-mlp-example"],
    [config.kiln_tools_dir, config.llvm_tools_dir])
# kiln-run's jit cache lives in the build tree, shared by the tests (its
# entries are written atomically), never in the user's home.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.kiln_obj_root,
                                                    "test", "kiln-cache")
# numpy is installed for Debian's interpreter, not for every python3 on PATH.
config.substitutions.append(("%numpy_python", "/usr/bin/python3"))
config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
config.substitutions.append(("%kiln_lib_dir",
                             os.path.join(config.kiln_obj_root, "lib")))
# GPU compilation needs the CUDA toolkit's ptxas and libdevice; tests of it
# say REQUIRES: cuda-toolkit and are skipped (reported UNSUPPORTED) without.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
if os.path.exists(os.path.join(cuda_home, "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%ptxas", os.path.join(cuda_home, "bin",
                                                        "ptxas")))
# A sanitized build (scripts/sanitize.sh): tests that cap memory with
# ulimit (ASan reserves terabytes of address space) or load Kiln's
# libraries into an uninstrumented Python say UNSUPPORTED: asan.
# LeakSanitizer's suppressions are passed on, which lit does not do itself.
mpirun = "mpirun --oversubscribe"
if "Address" in config.kiln_sanitizer:
    config.available_features.add("asan")
    lsan_options = os.environ.get("LSAN_OPTIONS", "")
    config.environment["LSAN_OPTIONS"] = lsan_options
    # Open MPI's leaks are suppressed by library, which needs whole stacks.
    mpirun += f" -x LSAN_OPTIONS={lsan_options}:fast_unwind_on_malloc=0"
# Multi-process runs need Open MPI's launcher and Kiln's MPI library; tests
# of them say REQUIRES: mpi. Ranks may outnumber the cores, and the test
# machines run as root.
if shutil.which("mpirun") and os.path.exists(
        os.path.join(config.kiln_obj_root, "lib", "libkiln_runtime_mpi.so")):
    config.available_features.add("mpi")
    config.substitutions.append(("%mpirun", mpirun))
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
# StableHLO's interpreter tests, where the user gives a copy.
stablehlo_tests = os.environ.get("KILN_STABLEHLO_TESTS")
if stablehlo_tests and os.path.isdir(stablehlo_tests):
    config.available_features.add("stablehlo-tests")
    config.substitutions.append(("%stablehlo_tests", stablehlo_tests))
