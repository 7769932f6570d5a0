"""The build backend's one compile per checkout (engine/_build/backend.py): a second install takes a
module of the source tree that is up to date and built with the same settings, and compiles it
again when its C source or header is newer or the settings changed. No compiler runs here: the
compiling step is replaced by one that records its calls."""
import os
import time

import pytest
from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext

from engine._build import backend


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A source tree with one module's C source and header, and its compiled file in place."""
    monkeypatch.chdir(tmp_path)
    core = tmp_path / "engine" / "_core"
    core.mkdir(parents=True)
    (core / "m.pyx").write_text("# Cython")
    (core / "m.c").write_text("/* C */")
    (core / "m.h").write_text("/* header */")
    ext = Extension("engine._core.m", ["engine/_core/m.c"], depends=["engine/_core/m.h"])
    command = backend._reusing_build_ext()(Distribution({"name": "x", "ext_modules": [ext]}))
    command.build_lib, command.build_temp = str(tmp_path / "lib"), str(tmp_path / "tmp")
    command.ensure_finalized()
    compiled = []
    monkeypatch.setattr(build_ext, "build_extension", lambda self, e: compiled.append(e.name))
    in_tree = core / os.path.basename(command.get_ext_filename(command.get_ext_fullname(ext.name)))
    in_tree.write_bytes(b"built")
    later = time.time() + 10
    os.utime(in_tree, (later, later))
    monkeypatch.setitem(backend._SETTINGS, "stamp", "the settings\n")
    monkeypatch.setitem(backend._SETTINGS, "reuse", True)     # extensions()' verdict: same settings, all up to date
    (core / "build_stamp.txt").write_text("the settings\n")
    return command, ext, in_tree, compiled


def test_an_up_to_date_module_built_with_the_same_settings_is_taken_not_compiled(checkout):
    command, ext, in_tree, compiled = checkout
    command.build_extension(ext)
    assert compiled == []
    assert open(command.get_ext_fullpath(ext.name), "rb").read() == b"built"


@pytest.mark.parametrize("change", ["source", "header", "settings", "no module", "force"])
def test_a_newer_source_or_header_other_settings_or_no_module_compiles(checkout, change):
    command, ext, in_tree, compiled = checkout
    if change in ("source", "header"):
        path = "engine/_core/m.pyx" if change == "source" else "engine/_core/m.h"
        later = os.path.getmtime(in_tree) + 10
        os.utime(path, (later, later))
    elif change == "settings":
        backend._SETTINGS["reuse"] = False
    elif change == "no module":
        in_tree.unlink()
    else:
        command.force = True
    command.build_extension(ext)
    assert compiled == ["engine._core.m"]


def test_the_generated_c_files_do_not_count():
    """pip cythonizes in a fresh build environment: the C files it writes are newer than any module,
    and must not make a module out of date (they are generated from the sources that do count)."""
    assert all(path.endswith((".pyx", ".pxd", ".h")) for path in backend.core_sources())
    assert "engine/_core/algorithms.pyx" in backend.core_sources()


def test_up_to_date_compares_with_every_input():
    assert not backend.up_to_date("no such file", [])
    assert backend.up_to_date(backend.__file__, [])
    assert backend.up_to_date(backend.__file__, ["no such input"])
