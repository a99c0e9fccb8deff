"""Atomic writes: a temp file in the same folder with the mode of the file it replaces, flushed and
fsynced, then :func:`os.replace` over the target, so a crash or Ctrl-C leaves the old file or the
new one, never half of either."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


def _current_umask() -> int:
    """The process umask, read without changing it where the OS allows (``/proc/self/status``).

    Elsewhere it falls back to setting and restoring it with :func:`os.umask` (briefly racy with other
    threads creating files).
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def new_file_mode() -> int:
    """The permission bits ``open()`` would give a new file: ``0o666`` minus the umask (0o644 under 022)."""
    return 0o666 & ~_current_umask()


def open_atomic_temp(path: Path, *, suffix: str = ".tmp") -> tuple[int, str]:
    """A temp file next to ``path`` for an atomic write, with the mode of the file it will replace, or
    (a new file) the mode a plainly created file would get.

    :func:`tempfile.mkstemp` creates files ``0600``; this sets the mode of the existing ``path`` (so
    rewriting a private ``0600`` file keeps it private), else :func:`new_file_mode` (the umask).
    Creates ``path``'s parent folders. Returns ``(fd, tmp_path)``. Prefer :func:`atomic_writer`,
    which also fsyncs, renames and cleans up.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    return fd, tmp


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable where the OS allows opening folders (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary handle whose content replaces ``path`` only when the ``with`` block ends cleanly.

    The data goes to a temp file in the same folder, is flushed and fsynced, then renamed over ``path``
    with :func:`os.replace`; on any exception (Ctrl-C included) the temp file is removed and ``path``
    is left as it was. Parent folders are created; the file keeps the mode of the file it replaces (a
    new one gets the mode a plainly created file would). A symlink is written through: its target is
    replaced and the link stays a link.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    fd, tmp = open_atomic_temp(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`) and return ``path``."""
    target = Path(path)
    with atomic_writer(target) as handle:
        handle.write(data)
    return target


def write_text_atomic(path: str | Path, text: str) -> Path:
    """:func:`write_bytes_atomic` of ``text`` encoded as UTF-8 (newlines kept as ``\\n``)."""
    return write_bytes_atomic(path, text.encode("utf-8"))
