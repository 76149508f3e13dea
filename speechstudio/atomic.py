"""Write a file or folder so readers see the old content or the new, never half (python-atomicwrites; Dan Luu, "Files
are hard"): a temporary in the target's folder, fsync, ``os.replace``, fsync of the folder; ``overwrite=False``
commits by hard link (:class:`OutputExistsError`). Folders: built aside, renamed in."""
from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from speechstudio.errors import UsageError


class OutputExistsError(UsageError):
    """The output file exists and replacing it was not asked for (``--overwrite``)."""


class OutputWriteError(UsageError):
    """The output cannot be written (folder missing or not writable, read-only file, disk full):
    a one-line reason naming the path; the CLI exits with status 2."""


def short_name(name: str, room: int, tag: str = "") -> str:
    """``name`` when it fits ``room`` bytes (UTF-8), else its stem cut on a character, then ``tag``, then its
    extension, ``room`` bytes in all (file systems take 255-byte names: ext4, XFS, Btrfs)."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= room:
        return name
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    cut = room - len((tag + dot + ext).encode("utf-8", "surrogateescape"))
    return stem.encode("utf-8", "surrogateescape")[:max(cut, 1)].decode("utf-8", "ignore") + tag + dot + ext


def write_reason(exc: OSError) -> str:
    """Why a write failed, in a few words: ``"disk full"`` (ENOSPC), else the error's own text."""
    return "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))


def _why(e: Exception) -> str:
    text = getattr(e, "strerror", None) or str(e)
    return text.splitlines()[0] if text else type(e).__name__


def probe_write(folder: Path) -> None:
    """Create and remove a temporary file in ``folder``; raises ``OSError`` when it cannot."""
    fd, name = tempfile.mkstemp(prefix=".speechstudio-write-test-", suffix=".part", dir=folder)
    os.close(fd)
    os.unlink(name)


def nearest_existing(path: str | os.PathLike[str]) -> Path:
    """``path`` (absolute) or its nearest parent that exists: where a missing folder would be created."""
    p = Path(path).absolute()
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def check_destination(path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
    """Fail before any work when ``path`` cannot be written. Raises ``OutputExistsError`` or
    ``OutputWriteError`` (one line naming ``path``)."""
    shown = Path(path)
    target = resolve_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        base = nearest_existing(folder)
        if os.path.lexists(base) and not base.is_dir():
            raise OutputWriteError(f"{shown}: cannot write there ({base} is a file, not a folder)")
        raise OutputWriteError(f"{shown}: output folder {folder} does not exist")
    if target.is_dir():
        raise OutputWriteError(f"{shown}: is a folder, not a file")
    if os.path.lexists(target):
        if not overwrite:
            raise _exists_error(shown)
        if not os.stat(target).st_mode & 0o222 or not os.access(target, os.W_OK):
            # no write bit for anyone (chmod a-w): protected on purpose, also from root
            raise OutputWriteError(f"{shown}: the file is read-only (make it writable to replace it)")
    try:
        probe_write(folder)
    except OSError as e:
        raise OutputWriteError(f"{shown}: cannot write in {folder} ({_why(e)})") from None


def folder_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why files cannot be written in ``folder`` (created later if missing: then in its nearest existing
    parent), one line naming the folder tried, or None when they can. A probe file, not ``os.access``
    (which says yes to root on a read-only mount)."""
    base = nearest_existing(folder)
    if not base.is_dir():
        return f"cannot write there ({base} is a file, not a folder)"
    try:
        probe_write(base)
    except OSError as e:
        return f"cannot write in {base} ({_why(e)})"
    return None


def check_folder_destination(folder: str | os.PathLike[str]) -> None:
    """Fail before any work when files cannot be written in ``folder`` (:func:`folder_problem`).
    Raises :class:`OutputWriteError` naming ``folder`` and the reason."""
    problem = folder_problem(folder)
    if problem:
        raise OutputWriteError(f"{folder}: {problem}")


def write_error(path: str | os.PathLike[str], e: Exception) -> OutputWriteError:
    """The one-line :class:`OutputWriteError` for an ``OSError`` (or an audio library's write error)
    raised while writing ``path``."""
    return OutputWriteError(f"{path}: cannot write ({_why(e)})")


# Read once at import: os.umask() both sets and gets, so calling it while other threads create files would be racy.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def new_file_mode() -> int:
    """Permission bits a newly created file gets here: ``0o666`` minus the process umask."""
    return 0o666 & ~_UMASK


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` must replace: ``path`` itself, or the file a symbolic link
    (chain) points to, so the link is kept. Relative paths stay relative when no link is involved."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:          # Windows (folders cannot be opened), or no permission to read it
        return
    with contextlib.suppress(OSError):          # some file systems (network, FUSE) refuse fsync on folders
        os.fsync(fd)
    os.close(fd)


def _exists_error(target: Path) -> OutputExistsError:
    return OutputExistsError(f"{target}: the file exists (use --overwrite to replace it)")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, overwrite: bool = True, mkdir: bool = True) -> Iterator[Path]:
    """Give a temporary path to write (in the target's folder, empty, suffix ``<target suffix>.part``);
    on a clean exit it becomes ``path`` atomically. For writers that need a path (soundfile, torch.save,
    onnx); pass ``format=`` to writers that guess from the name::

        with atomic_path("out.wav") as tmp:
            soundfile.write(tmp, audio, 22050, format="WAV")

    ``overwrite=False`` refuses an existing target (before and when committing); ``mkdir`` creates
    missing parents.

    Raises:
        OutputExistsError: ``overwrite=False`` and the target exists.
        OSError: folder missing, not writable, disk full; the target is untouched."""
    target = resolve_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    if mkdir:
        folder.mkdir(parents=True, exist_ok=True)
    if not overwrite and os.path.lexists(target):
        raise _exists_error(Path(path))
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = new_file_mode()
    # The name is chosen before the file exists, so the ``finally`` below owns it from its creation on: an
    # interrupt (Ctrl+C, SIGTERM raised as KeyboardInterrupt) landing inside ``tempfile.mkstemp`` after the
    # file was made left the ``.part`` behind (a SIGTERM mid-audiobook, under load).
    tmp = folder / f".{short_name(target.name, 230)}.{uuid.uuid4().hex[:16]}.part"   # 64 random bits: no other file's name
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        yield tmp
        with open(tmp, "rb+") as fh:        # the writer may have closed without fsync
            os.fsync(fh.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        if overwrite:
            os.replace(tmp, target)
        else:           # only where the target does not exist (no clobbering race); after a link tmp is unlinked below
            try:
                os.link(tmp, target)               # fails with EEXIST if the name was taken meanwhile
            except FileExistsError:
                raise _exists_error(Path(path)) from None
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                if os.path.lexists(target):        # no hard links here (FAT, some network shares)
                    raise _exists_error(Path(path)) from None
                os.replace(tmp, target)
        _fsync_dir(folder)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`). Returns ``Path(path)``."""
    with atomic_path(path, overwrite=overwrite) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8", *,
                      overwrite: bool = True) -> Path:
    """Write ``text`` to ``path`` atomically (``\\n`` line ends); returns ``Path(path)``.

    Raises ``OutputExistsError`` (``overwrite=False``, file exists), ``OSError`` / ``UnicodeError`` (old
    file kept)."""
    with atomic_path(path, overwrite=overwrite) as tmp:
        tmp.write_text(text, encoding=encoding, newline="\n")
    return Path(path)


def read_json_object(path: str | os.PathLike[str]) -> dict:
    """The JSON object (UTF-8) in ``path``; ``{}`` when the file is missing, unreadable, not JSON or not an object."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def atomic_write_json(path: str | os.PathLike[str], data) -> Path:
    """Write ``data`` as JSON (1-space indent, UTF-8, non-ASCII kept) to ``path`` atomically
    (:func:`atomic_write_text`). Returns ``Path(path)``."""
    return atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


# ----------------------------------------------------------------------------- folders
def install_folder(ready: str | os.PathLike[str], path: str | os.PathLike[str], *, overwrite: bool = True,
                   keep_existing=None) -> Path:
    """Put the finished folder ``ready`` at ``path`` (old one aside, new renamed in, old removed);
    ``keep_existing()`` True keeps an existing one. Raises ``OutputExistsError`` or ``OSError``."""
    ready, target = Path(ready), Path(path)
    if keep_existing is not None and target.exists() and keep_existing():
        shutil.rmtree(ready, ignore_errors=True)
        return target
    if not overwrite and os.path.lexists(target):
        raise OutputExistsError(f"{target}: the folder exists")
    for root, _dirs, files in os.walk(ready):      # every file and folder of it on disk before it is renamed in
        for f in (os.path.join(root, name) for name in files):
            if not os.path.islink(f):
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
        _fsync_dir(Path(root))
    trash = None
    if os.path.lexists(target):
        trash = target.with_name(f".{short_name(target.name, 230)}.{uuid.uuid4().hex[:8]}.removing")
        os.replace(target, trash)
    try:
        os.replace(ready, target)
    except OSError:
        if trash is not None and not os.path.lexists(target):
            os.replace(trash, target)
            trash = None
        if keep_existing is not None and target.exists() and keep_existing():
            shutil.rmtree(ready, ignore_errors=True)
            return target
        raise
    finally:
        if trash is not None:
            shutil.rmtree(trash, ignore_errors=True)
    _fsync_dir(target.parent)
    return target


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike[str], *, overwrite: bool = True, keep_existing=None) -> Iterator[Path]:
    """A new empty temporary folder that becomes ``path`` on a clean exit (:func:`install_folder`).
    Raises ``OutputExistsError`` or ``OSError`` (``path`` untouched)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not overwrite and os.path.lexists(target) and not (keep_existing is not None and keep_existing()):
        raise OutputExistsError(f"{target}: the folder exists")
    tmp = Path(tempfile.mkdtemp(prefix=f".{short_name(target.name, 230)}.", suffix=".partial", dir=target.parent))
    try:
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o777 & ~_UMASK)
        yield tmp
        install_folder(tmp, target, overwrite=overwrite, keep_existing=keep_existing)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
