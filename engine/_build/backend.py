"""In-tree PEP 517 build backend: setuptools plus the Cython extensions.

The project layout has no setup.py, so this thin wrapper around setuptools'
own backend declares the compiled modules and sets the Cython compiler
directives in this one place. ``ENGINE_CYTHON_DEBUG=1`` at build time turns
bounds checking, wrap-around and initialisation checks back on, for a checked
test build (``ENGINE_CYTHON_DEBUG=1 pip install -e .``).

OpenMP. The histogram kernels and the per-feature split search run in OpenMP
threads (``prange``). Whether the compiler has OpenMP is found out at build
time by compiling and linking a tiny program with ``-fopenmp``; without it
(or with ``ENGINE_NO_OPENMP=1``) the same sources build without the flag,
``prange`` becomes a plain loop, and ``engine._core.OPENMP`` is False (the
estimators then warn that ``n_jobs`` has no effect). The result is recorded in
``engine/_core/openmp_config.h``, which the compiled modules include.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import build_meta as _setuptools_backend
from setuptools.build_meta import *  # noqa: F401,F403  (re-export the PEP 517 hooks)

# The compiled core: engine/_core/<name>.pyx -> engine._core.<name>.
CORE_PACKAGE = "engine._core"
COMPILED_MODULES = ["tree_store", "grower_base", "grower", "binning", "histogram",
                    "binned_samples", "hist_sums", "hist_split", "hist_grower", "losses",
                    "fit_state", "split_targets", "leaves", "updates", "prediction", "held_out",
                    "algorithms", "testing", "stagewise"]
# C headers a module includes (listed so a change rebuilds it and sdists ship them).
HEADERS = {"grower": ["engine/_core/scan_kernels.h"],
           "histogram": ["engine/_core/openmp_shim.h", "engine/_core/hist_kernels.h"],
           "hist_grower": ["engine/_core/hist_kernels.h"],
           "updates": ["engine/_core/exp_kernels.h", "engine/_core/logistic_kernels.h"],
           "losses": ["engine/_core/logistic_kernels.h"],
           "held_out": ["engine/_core/logistic_kernels.h"],
           "split_targets": ["engine/_core/projection_kernels.h"]}
OPENMP_CONFIG = "engine/_core/openmp_config.h"
# Extra flags per module. The histogram kernels and the histogram grower's
# loops over a node's samples copy or sum short rows of targets per sample;
# without this gcc turns those loops into memcpy/memset calls.
_NO_LOOP_PATTERNS = ["-fno-tree-loop-distribute-patterns"]
MODULE_FLAGS = {name: _NO_LOOP_PATTERNS
                for name in ("histogram", "binned_samples", "hist_sums", "hist_split", "hist_grower")}

_OPENMP_PROBE = r"""
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    return n > 0 ? 0 : 1;
}
"""


def compiler_directives():
    debug = os.environ.get("ENGINE_CYTHON_DEBUG", "") not in ("", "0")
    return {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "initializedcheck": debug,
        "nonecheck": False,          # self is never None; nogil methods cannot check it
        "cdivision": True,
        "embedsignature": True,
    }


def openmp_flag():
    """'-fopenmp' when the C compiler compiles, links and runs an OpenMP program, else None."""
    if os.environ.get("ENGINE_NO_OPENMP", "") not in ("", "0"):
        return None
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cc = cc.split()
    if shutil.which(cc[0]) is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        exe = os.path.join(tmp, "probe")
        with open(src, "w") as fh:
            fh.write(_OPENMP_PROBE)
        try:
            subprocess.run(cc + ["-fopenmp", src, "-o", exe], check=True, capture_output=True,
                           timeout=120)
            subprocess.run([exe], check=True, capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
    return "-fopenmp"


def write_openmp_config(enabled):
    text = ("/* Written by engine/_build/backend.py at build time: whether OpenMP was found. */\n"
            f"#define ENGINE_OPENMP {1 if enabled else 0}\n")
    old = open(OPENMP_CONFIG).read() if os.path.exists(OPENMP_CONFIG) else None
    if old != text:
        with open(OPENMP_CONFIG, "w") as fh:
            fh.write(text)


def extensions():
    from Cython.Build import cythonize
    from setuptools import Extension

    debug = os.environ.get("ENGINE_CYTHON_DEBUG", "") not in ("", "0")
    # Reassociation lets gcc vectorise the sums over outputs in the split
    # search; it only changes rounding, never the algorithm.
    fast = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-fassociative-math",
            "-fno-signed-zeros"]
    flags = ["-O0", "-g"] if debug else fast
    omp = openmp_flag()
    write_openmp_config(omp is not None)
    if omp is None:
        print("engine build: no OpenMP found; the engine runs on one thread", file=sys.stderr)
    omp_flags = [omp] if omp else []
    modules = [
        Extension(f"{CORE_PACKAGE}.{name}", [f"engine/_core/{name}.pyx"],
                  extra_compile_args=flags + MODULE_FLAGS.get(name, []) + omp_flags,
                  extra_link_args=omp_flags,
                  depends=HEADERS.get(name, []))
        for name in COMPILED_MODULES
    ]
    return cythonize(modules, compiler_directives=compiler_directives(), quiet=True)


class _Backend(_setuptools_backend._BuildMetaBackend):
    def run_setup(self, setup_script="setup.py"):
        from setuptools import setup

        setup(ext_modules=extensions())


_BACKEND = _Backend()
get_requires_for_build_wheel = _BACKEND.get_requires_for_build_wheel
get_requires_for_build_sdist = _BACKEND.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _BACKEND.prepare_metadata_for_build_wheel
build_wheel = _BACKEND.build_wheel
build_sdist = _BACKEND.build_sdist
get_requires_for_build_editable = _BACKEND.get_requires_for_build_editable
prepare_metadata_for_build_editable = _BACKEND.prepare_metadata_for_build_editable
build_editable = _BACKEND.build_editable
