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

One compile per checkout. pip builds in a fresh temporary folder every time, so a second
``pip install -e .`` (the test command after the app's, with other extras) would compile the
unchanged core again (about four minutes on two cores). The editable install leaves every module
in the source tree (``engine/_core/<name>.*.so``); when every module there is newer than every core
source (.pyx, .pxd, .h) and was built with the same settings (Cython directives, C flags, OpenMP,
Cython version: ``engine/_core/build_stamp.txt``, written after a successful build), the build
neither cythonizes nor compiles: the build_ext below takes those files. Otherwise it builds as
before, and a change of settings regenerates the C sources too.
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
BUILD_STAMP = "engine/_core/build_stamp.txt"
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


def build_settings(flags, omp_flags):
    """The text of the build stamp: what a compiled module depends on besides its sources."""
    import Cython

    return (f"cython {Cython.__version__}\ndirectives {sorted(compiler_directives().items())}\n"
            f"flags {flags} {MODULE_FLAGS}\nopenmp {omp_flags}\n")


def read_stamp():
    return open(BUILD_STAMP).read() if os.path.exists(BUILD_STAMP) else None


def up_to_date(target, inputs):
    """True when ``target`` exists and is at least as new as every file of ``inputs``."""
    if not os.path.exists(target):
        return False
    newest = max((os.path.getmtime(f) for f in inputs if os.path.exists(f)), default=0.0)
    return os.path.getmtime(target) >= newest


def core_sources():
    """Every source of the compiled core (.pyx, .pxd, .h): what an up-to-date module is newer than. Not
    the generated C files: pip cythonizes in a fresh build environment, whose Cython includes are newer
    than any C file, so cythonize would write them all again and make every module look out of date."""
    core = CORE_PACKAGE.replace(".", "/")
    return [os.path.join(core, f) for f in sorted(os.listdir(core)) if f.endswith((".pyx", ".pxd", ".h"))]


def in_tree_module(name):
    """The compiled file of engine._core.<name> in the source tree (where an editable install puts it)."""
    return os.path.join(CORE_PACKAGE.replace(".", "/"), name + sysconfig.get_config_var("EXT_SUFFIX"))


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
    _SETTINGS["stamp"] = build_settings(flags, omp_flags)
    stamp = read_stamp()
    # other settings than the last build's: regenerate the C sources too (cythonize alone would keep
    # them, being newer than the .pyx); no stamp yet (a fresh checkout): cythonize as usual, once
    # (pip calls this for its requirements and again for the build)
    changed = stamp is not None and stamp != _SETTINGS["stamp"]
    sources = core_sources()
    _SETTINGS["reuse"] = stamp == _SETTINGS["stamp"] and all(
        up_to_date(in_tree_module(name), sources) and os.path.exists(f"engine/_core/{name}.c")
        for name in COMPILED_MODULES)
    modules = [
        Extension(f"{CORE_PACKAGE}.{name}", [f"engine/_core/{name}.{'c' if _SETTINGS['reuse'] else 'pyx'}"],
                  extra_compile_args=flags + MODULE_FLAGS.get(name, []) + omp_flags,
                  extra_link_args=omp_flags,
                  depends=HEADERS.get(name, []))
        for name in COMPILED_MODULES
    ]
    if _SETTINGS["reuse"]:      # every module up to date: neither cythonize nor compile
        return modules
    return cythonize(modules, compiler_directives=compiler_directives(), quiet=True, force=changed)


_SETTINGS = {"stamp": None, "reuse": False}    # this build's stamp text and verdict, set by extensions()


def _reusing_build_ext():
    """setuptools' build_ext, keeping a module of the source tree that is up to date (module doc)."""
    from setuptools.command.build_ext import build_ext

    class ReusingBuildExt(build_ext):
        def build_extension(self, ext):
            filename = os.path.basename(self.get_ext_filename(self.get_ext_fullname(ext.name)))
            in_tree = os.path.join(*ext.name.split(".")[:-1], filename)
            target = self.get_ext_fullpath(ext.name)
            if _SETTINGS["reuse"] and not self.force and up_to_date(in_tree, core_sources()):
                if os.path.abspath(in_tree) != os.path.abspath(target):
                    self.mkpath(os.path.dirname(target))
                    shutil.copy2(in_tree, target)
                return
            super().build_extension(ext)

        def run(self):
            super().run()
            if read_stamp() != _SETTINGS["stamp"]:
                with open(BUILD_STAMP, "w") as fh:
                    fh.write(_SETTINGS["stamp"])
    return ReusingBuildExt


class _Backend(_setuptools_backend._BuildMetaBackend):
    def run_setup(self, setup_script="setup.py"):
        from setuptools import setup

        setup(ext_modules=extensions(), cmdclass={"build_ext": _reusing_build_ext()})


_BACKEND = _Backend()
get_requires_for_build_wheel = _BACKEND.get_requires_for_build_wheel
get_requires_for_build_sdist = _BACKEND.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _BACKEND.prepare_metadata_for_build_wheel
build_wheel = _BACKEND.build_wheel
build_sdist = _BACKEND.build_sdist
get_requires_for_build_editable = _BACKEND.get_requires_for_build_editable
prepare_metadata_for_build_editable = _BACKEND.prepare_metadata_for_build_editable
build_editable = _BACKEND.build_editable
