"""atomic.atomic_folder / install_folder: a folder appears whole under its name or not at all, the old
one stays until the new one is complete, and nothing hidden is left beside it."""
from __future__ import annotations

import contextlib
import os
import stat

import pytest

from speechstudio.atomic import OutputExistsError, atomic_folder, install_folder


def _tree(folder) -> dict:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


class Boom(RuntimeError):
    pass


def _fill_new(tmp):
    (tmp / "sub").mkdir()
    (tmp / "a.txt").write_text("new")
    (tmp / "sub" / "b.txt").write_text("new b")


def _fail(tmp):
    (tmp / "a.txt").write_text("half")
    raise Boom("writer failed")


# (name, old folder content or None, overwrite, writer, expected error, expected folder content)
CASES = [
    ("new folder", None, True, _fill_new, None, {"a.txt": "new", "sub/b.txt": "new b"}),
    ("replaces an old folder", {"old.txt": "old"}, True, _fill_new, None, {"a.txt": "new", "sub/b.txt": "new b"}),
    ("refuses an old folder", {"old.txt": "old"}, False, _fill_new, OutputExistsError, {"old.txt": "old"}),
    ("failed writer keeps the old folder", {"old.txt": "old"}, True, _fail, Boom, {"old.txt": "old"}),
    ("failed writer leaves nothing", None, True, _fail, Boom, None),
]


@pytest.mark.parametrize("name, old, overwrite, writer, error, expected", CASES, ids=[c[0] for c in CASES])
def test_atomic_folder(tmp_path, name, old, overwrite, writer, error, expected):
    target = tmp_path / "parent" / "voice"
    if old is not None:
        target.mkdir(parents=True)
        for rel, text in old.items():
            (target / rel).write_text(text)
    with pytest.raises(error) if error else contextlib.nullcontext():
        with atomic_folder(target, overwrite=overwrite) as tmp:
            assert tmp.parent == target.parent and tmp.name.startswith(".voice.") and tmp.name.endswith(".partial")
            writer(tmp)
    assert (_tree(target) if target.exists() else None) == expected
    assert sorted(p.name for p in target.parent.iterdir()) == (["voice"] if expected is not None else [])


def test_new_folder_gets_the_umask_mode_not_0700(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    with atomic_folder(tmp_path / "m") as tmp:
        (tmp / "f").write_text("x")
    assert stat.S_IMODE((tmp_path / "m").stat().st_mode) == 0o777 & ~mask


def test_install_keeps_a_finished_copy_of_another_process(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "w.bin").write_text("theirs")
    ready = tmp_path / ".model.mine.partial"
    ready.mkdir()
    (ready / "w.bin").write_text("mine")
    assert install_folder(ready, target, keep_existing=lambda: True) == target
    assert _tree(target) == {"w.bin": "theirs"} and not ready.exists()
    ready.mkdir()
    (ready / "w.bin").write_text("mine")
    install_folder(ready, target, keep_existing=lambda: False)      # a stale copy is replaced
    assert _tree(target) == {"w.bin": "mine"} and sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_failed_rename_puts_the_old_folder_back(tmp_path, monkeypatch):
    target = tmp_path / "voice"
    target.mkdir()
    (target / "old.txt").write_text("old")
    real_replace = os.replace

    def replace(src, dst):
        if str(src).endswith(".partial"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        with atomic_folder(target) as tmp:
            (tmp / "new.txt").write_text("new")
    assert _tree(target) == {"old.txt": "old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["voice"]
