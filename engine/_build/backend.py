"""In-tree PEP 517 build backend: setuptools plus the Cython extensions.

The project layout has no setup.py, so this thin wrapper around setuptools'
own backend declares the compiled modules and sets the Cython compiler
directives in this one place. ``ENGINE_CYTHON_DEBUG=1`` at build time turns
bounds checking, wrap-around and initialisation checks back on, for a checked
test build (``ENGINE_CYTHON_DEBUG=1 pip install -e .``).
"""
import os

from setuptools import build_meta as _setuptools_backend
from setuptools.build_meta import *  # noqa: F401,F403  (re-export the PEP 517 hooks)

# The compiled core: engine/_core/<name>.pyx -> engine._core.<name>.
CORE_PACKAGE = "engine._core"
COMPILED_MODULES = ["tree_store", "grower", "boosting_loop", "stagewise"]
# C headers a module includes (listed so a change rebuilds it and sdists ship them).
HEADERS = {"grower": ["engine/_core/scan_kernels.h"]}


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


def extensions():
    from Cython.Build import cythonize
    from setuptools import Extension

    debug = os.environ.get("ENGINE_CYTHON_DEBUG", "") not in ("", "0")
    # Reassociation lets gcc vectorise the sums over outputs in the split
    # search; it only changes rounding, never the algorithm.
    fast = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-fassociative-math",
            "-fno-signed-zeros"]
    flags = ["-O0", "-g"] if debug else fast
    modules = [
        Extension(f"{CORE_PACKAGE}.{name}", [f"engine/_core/{name}.pyx"], extra_compile_args=flags,
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
