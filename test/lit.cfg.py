# lit configuration for Tether's tool tests (one test file per behaviour,
# like clang-tidy's: the RUN line, the input and the CHECK lines together).
import os
import shutil
import sys

import lit.formats

config.name = "Tether"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".test", ".yml", ".yaml", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "lit.site.cfg.py.in", "unit", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tether_obj_root, "test")

# Tools: built ones by path; FileCheck and not from llvm-16's bindir.
config.environment["PATH"] = os.pathsep.join(
    [config.tether_tools_dir, config.tether_worker_dir, config.llvm_bindir,
     config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR", "LANG", "LC_ALL", "TETHER_TEST_REDIS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# %libtether_flags: the compiler flags a checked file needs to see libtether
# (`tether check FILE -- %libtether_flags`).
config.substitutions.append(("%libtether_flags", "-std=c++20 -I" + os.path.join(
    config.tether_src_root, "lib", "context", "include")))
# %check_tether FILE CHECKS TMP [-- TETHER-OPTIONS] [-- COMPILER-ARGS]: one
# check's test in one RUN line (test/check/Inputs/check_tether.py says how).
config.substitutions.append(("%check_tether", " ".join([
    sys.executable, os.path.join(config.tether_src_root, "test", "check", "Inputs", "check_tether.py"),
    "--tether", os.path.join(config.tether_tools_dir, "tether"),
    "--include", os.path.join(config.tether_src_root, "lib", "context", "include"),
    "--filecheck", os.path.join(config.llvm_bindir, "FileCheck")])))
config.substitutions.append(("%tether-worker", os.path.join(config.tether_worker_dir, "tether-worker")))
config.substitutions.append(("%tether", os.path.join(config.tether_tools_dir, "tether")))
config.substitutions.append(("%testbin", config.tether_test_bin_dir))
config.substitutions.append(("%srcroot", config.tether_src_root))
config.substitutions.append(("%shared", os.path.normpath(os.path.join(config.tether_src_root, "..", "shared"))))
# The python running lit (Debian's /usr/bin/python3, with python3-jsonschema and
# python3-psutil from apt), not whatever python3 comes first on PATH.
config.substitutions.append(("%python", sys.executable))

# The shared corpus of real Vela pipelines lives beside the repository
# (../shared), as CI lays it out; tests that read it require it.
if os.path.isfile(os.path.join(config.tether_src_root, "..", "shared", "data", "vela-pipelines", "MANIFEST.md")):
    config.available_features.add("vela-corpus")

# The clang-tidy plugin form of the checker (lib/check/src/tidy_module.cpp).
config.substitutions.append(("%tidyplugin", os.path.join(config.tether_obj_root, "lib", "libTetherTidy.so")))
if os.path.isfile(os.path.join(config.tether_obj_root, "lib", "libTetherTidy.so")):
    config.available_features.add("tether-tidy")

# root writes where others are refused (access(2) says yes to it), so a few
# tests reach an error past the up-front checks only as root.
if os.geteuid() == 0:
    config.available_features.add("root")

for feature in config.tether_features:
    config.available_features.add(feature)
for prog, feature in [("chromium", "chromium"), ("dot", "graphviz"), ("redis-server", "redis"),
                      ("bwrap", "bwrap"), ("clang++-16", "clang16"), ("clang-tidy-16", "clang-tidy16")]:
    if shutil.which(prog):
        config.available_features.add(feature)
