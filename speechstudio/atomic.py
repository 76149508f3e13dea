"""One way to write a file (or a folder) so that readers see the old content or the new, never half of it.

Every writer of user files (transcripts, speech audio, recordings, dictation text, JSON state)
goes through :func:`atomic_path`, or its shortcuts :func:`atomic_write_bytes`,
:func:`atomic_write_text` and :func:`atomic_write_json`. The guarantees, in order:

1. The new content goes to a temporary file in the target's own folder (``.<name>.<random>.part``),
   so the final rename never crosses file systems.
2. The temporary file is flushed and ``fsync``-ed before the rename, then renamed with
   ``os.replace`` (atomic on POSIX and on Windows for files), then the folder is ``fsync``-ed
   so the rename itself survives a power cut (POSIX; folders cannot be opened on Windows).
3. On any failure (disk full, an exception in the caller's writer, Ctrl+C) the temporary file is
   removed and the target keeps its previous content, or stays absent.
4. A target that exists keeps its permission bits; a new file gets ``0666`` minus the umask
   (``mkstemp`` alone would leave it ``0600``).
5. A target that is a symbolic link is never replaced by a file: the write goes to the file the
   link points to (the link stays). A link whose target folder does not exist raises.
6. ``overwrite=False`` refuses to replace an existing file (:class:`OutputExistsError`), also when
   the file appears while we write: the final step is a hard link, which fails if the name is
   taken (file systems without hard links fall back to a check just before ``os.replace``).

Folders (a voice, an imported model, an exported checkpoint) go through :func:`atomic_folder`
(or :func:`install_folder` for a folder built elsewhere): built under a hidden temporary name
next to the target (``.<name>.<random>.partial``), every file ``fsync``-ed, an existing target
moved aside to a hidden name, the new folder renamed into place, then the old one removed; on
any failure the temporary folder is removed and the target is as it was.

The same recipe as ``python-atomicwrites`` and the ``fsync`` discipline described in
"Files are hard" (Dan Luu, 2015) and LWN's "ext4 and data loss" (2009).
"""
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

__all__ = ["OutputExistsError", "OutputWriteError", "atomic_folder", "atomic_path", "atomic_write_bytes",
           "atomic_write_json", "atomic_write_text", "install_folder",
           "check_destination", "check_folder_destination", "new_file_mode", "resolve_target", "write_error"]


class OutputExistsError(UsageError):
    """The output file exists and replacing it was not asked for (``--overwrite``)."""


class OutputWriteError(UsageError):
    """The output cannot be written (folder missing or not writable, read-only file, disk full):
    a one-line reason naming the path; the CLI exits with status 2."""


def _why(e: Exception) -> str:
    text = getattr(e, "strerror", None) or str(e)
    return text.splitlines()[0] if text else type(e).__name__


def _probe(folder: Path) -> None:
    """Create and remove a temporary file in ``folder``; raises ``OSError`` when it cannot."""
    fd, name = tempfile.mkstemp(prefix=".speechstudio-write-test-", suffix=".part", dir=folder)
    os.close(fd)
    os.unlink(name)


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def check_destination(path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
    """Fail before any work (before a model loads) when the file ``path`` cannot be written.

    Checks that the folder exists and is a folder, that a file can be created in it (a probe
    file, created and removed: the only test that sees read-only mounts, ACLs and quotas), that
    ``path`` is not a folder, that an existing file may be replaced (``overwrite``) and is not
    read-only (not writable by this user, or write-protected for everyone with ``chmod a-w``: then
    refused even to root, as ``rm`` asks before removing a write-protected file). A disk that
    fills up can only be seen while writing (:class:`OutputWriteError` from the writer).

    Raises:
        OutputExistsError: ``overwrite=False`` and ``path`` exists.
        OutputWriteError: any other reason, one line naming ``path``.
    """
    shown = Path(path)
    target = resolve_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        base = _nearest_existing(folder)
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
        _probe(folder)
    except OSError as e:
        raise OutputWriteError(f"{shown}: cannot write in {folder} ({_why(e)})") from None


def check_folder_destination(folder: str | os.PathLike[str]) -> None:
    """Fail before any work when files cannot be written in ``folder`` (created later if missing:
    then its nearest existing parent must be a writable folder). Raises :class:`OutputWriteError`."""
    folder = Path(folder)
    base = _nearest_existing(folder)
    if not base.is_dir():
        raise OutputWriteError(f"{folder}: cannot write there ({base} is a file, not a folder)")
    try:
        _probe(base)
    except OSError as e:
        raise OutputWriteError(f"{folder}: cannot write in {base} ({_why(e)})") from None


def write_error(path: str | os.PathLike[str], e: Exception) -> OutputWriteError:
    """The one-line :class:`OutputWriteError` for an ``OSError`` (or an audio library's write error)
    raised while writing ``path``."""
    return OutputWriteError(f"{path}: cannot write ({_why(e)})")


def _read_umask() -> int:
    # Read once at import: os.umask() both sets and gets, so calling it while other threads
    # create files would be racy.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def new_file_mode() -> int:
    """Permission bits a newly created file gets here: ``0o666`` minus the process umask."""
    return 0o666 & ~_UMASK


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` must replace: ``path`` itself, or the file a symbolic link
    (chain) points to, so the link is kept. Relative paths stay relative when no link is involved."""
    p = Path(path)
    if p.is_symlink():
        return Path(os.path.realpath(p))
    return p


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:          # Windows (folders cannot be opened), or no permission to read it
        return
    try:
        os.fsync(fd)
    except OSError:          # some file systems (network, FUSE) refuse fsync on folders
        pass
    finally:
        os.close(fd)


def _exists_error(target: Path) -> OutputExistsError:
    return OutputExistsError(f"{target}: the file exists (use --overwrite to replace it)")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, overwrite: bool = True, mkdir: bool = True) -> Iterator[Path]:
    """Give a temporary path to write; on a clean exit it becomes ``path`` atomically.

    For writers that need a path rather than a file object (soundfile, torch.save, onnx)::

        with atomic_path("out.wav") as tmp:
            soundfile.write(tmp, audio, 22050, format="WAV")

    The temporary file exists (empty, mode 0600) when the block starts; the writer may
    overwrite or truncate it. Its name ends with the target's suffix plus ``.part`` so format
    sniffing by extension is not fooled; pass ``format=`` to writers that guess from the name.

    Args:
        path: the target file (a symbolic link is followed, see the module docstring).
        overwrite: ``False`` refuses to replace an existing target (checked before the block
            runs and again, race-free where hard links exist, when committing).
        mkdir: create the target's missing parent folders.

    Yields:
        The temporary file's path (in the target's folder).

    Raises:
        OutputExistsError: ``overwrite=False`` and the target exists.
        OSError: the folder is missing (``mkdir=False``), not writable, or the disk is full; the
            temporary file is removed and the target is untouched.
    """
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
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=folder)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:        # the writer may have closed without fsync
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, mode)
        except OSError:
            pass
        if overwrite:
            os.replace(tmp, target)
        else:
            _commit_new(tmp, target, Path(path))
        _fsync_dir(folder)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _commit_new(tmp: Path, target: Path, shown: Path) -> None:
    """Put ``tmp`` at ``target`` only if ``target`` does not exist (no clobbering race)."""
    try:
        os.link(tmp, target)               # fails with EEXIST if the name was taken meanwhile
    except FileExistsError:
        raise _exists_error(shown) from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(target):        # no hard links here (FAT, some network shares)
            raise _exists_error(shown) from None
        os.replace(tmp, target)
    # after a successful link, the finally in atomic_path unlinks tmp, leaving only target


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`). Returns ``Path(path)``."""
    with atomic_path(path, overwrite=overwrite) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8", *,
                      overwrite: bool = True) -> Path:
    """Write ``text`` to ``path`` atomically, ``\\n`` line ends on every platform.

    Returns:
        ``Path(path)``.

    Raises:
        OutputExistsError: ``overwrite=False`` and the file exists.
        OSError / UnicodeError: writing failed; nothing partial is left, the old file is kept.
    """
    with atomic_path(path, overwrite=overwrite) as tmp:
        with open(tmp, "w", encoding=encoding, newline="\n") as fh:
            fh.write(text)
    return Path(path)


def atomic_write_json(path: str | os.PathLike[str], data) -> Path:
    """Write ``data`` as JSON (1-space indent, UTF-8, non-ASCII kept) to ``path`` atomically
    (:func:`atomic_write_text`). Returns ``Path(path)``."""
    return atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


# ----------------------------------------------------------------------------- folders
def _fsync_tree(folder: Path) -> None:
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(Path(root))


def install_folder(ready: str | os.PathLike[str], path: str | os.PathLike[str], *, overwrite: bool = True,
                   keep_existing=None) -> Path:
    """Put the finished folder ``ready`` (on the same file system) at ``path`` and return ``Path(path)``.

    Its files are ``fsync``-ed; an existing ``path`` is renamed to a hidden name, ``ready`` renamed
    into place, the old folder removed (a reader sees the old folder or the new, and a crash leaves
    at worst a hidden leftover, never a half folder under the name). ``keep_existing()``: called when
    ``path`` exists or appears meanwhile; True keeps that folder (another process made the same one)
    and removes ``ready``.

    Raises:
        OutputExistsError: ``overwrite=False`` and ``path`` exists (``ready`` is left as it is).
        OSError: a rename failed; the old folder is put back.
    """
    ready, target = Path(ready), Path(path)
    if keep_existing is not None and target.exists() and keep_existing():
        shutil.rmtree(ready, ignore_errors=True)
        return target
    if not overwrite and os.path.lexists(target):
        raise OutputExistsError(f"{target}: the folder exists")
    _fsync_tree(ready)
    trash = None
    if os.path.lexists(target):
        trash = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.removing")
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
    """Give a new empty temporary folder to fill; on a clean exit it becomes ``path`` atomically
    (:func:`install_folder`)::

        with atomic_folder(voices_dir() / name) as tmp:
            shutil.copyfile(src, tmp / "voice.onnx")

    The temporary folder is a hidden sibling of ``path`` (``.<name>.<random>.partial``, same file
    system, mode ``0777`` minus the umask). ``overwrite=False`` refuses an existing ``path`` before
    the block runs and again when committing. Missing parent folders are created.

    Raises:
        OutputExistsError: ``overwrite=False`` and ``path`` exists.
        OSError: the folder cannot be written or renamed; the temporary folder is removed and
            ``path`` is untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not overwrite and os.path.lexists(target) and not (keep_existing is not None and keep_existing()):
        raise OutputExistsError(f"{target}: the folder exists")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o777 & ~_UMASK)
        yield tmp
        install_folder(tmp, target, overwrite=overwrite, keep_existing=keep_existing)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
