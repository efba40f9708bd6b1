"""Output files: written whole or not at all, and only as a new or a regular file that is no input.

Every file a command writes (an annotated photo, an audit report and its image, an archive's tables) goes
through ``write_atomic``: a temporary file in the same folder, with the user's umask, then a rename. Before
anything is written, ``check_outputs`` refuses (OutputError, exit 8) a target that is a symbolic link, a folder,
a FIFO, a device or a socket, one that is an input of the same command, and two outputs of one command that are
the same file; a refused target is left as it was. A command with several outputs checks them all first, so
that a refusal leaves nothing behind.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Union

from mjtable.errors import OutputError, shown

PathLike = Union[str, os.PathLike]


def _what(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _same(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name one file (a hard link or a symbolic link to it included), existing or not."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(outputs: Iterable[PathLike], inputs: Iterable[PathLike] = ()) -> None:
    """Refuse, before anything is written, an output that could not be written whole as a new or a regular
    file, that is an input of the command, or that is another of its outputs."""
    outputs, inputs = [_named(p) for p in outputs], [Path(p) for p in inputs if p is not None]
    for n, p in enumerate(outputs):
        try:
            mode = os.lstat(p).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as e:
            raise OutputError(f"cannot write {shown(p)}: {e.strerror or e}") from None
        if mode is not None and not stat.S_ISREG(mode):
            raise OutputError(f"cannot write {shown(p)}: it is {_what(mode)}; an output is a new or a regular "
                              f"file (left as it was)")
        folder = p.parent if str(p.parent) else Path(".")
        if not folder.is_dir():
            raise OutputError(f"cannot write {shown(p)}: folder {shown(folder)} does not exist")
        try:
            longest = os.pathconf(folder, "PC_NAME_MAX")
        except (OSError, ValueError):
            longest = 255
        if len(os.fsencode(_temporary(p.name, "x" * 8))) > longest:
            raise OutputError(f"cannot write {shown(p)}: its name is too long for the folder (at most "
                              f"{longest - len(_temporary('', 'x' * 8))} bytes)")
        if any(_same(p, i) for i in inputs):
            raise OutputError(f"cannot write {shown(p)}: it is an input of this command (not written over)")
        if any(_same(p, q) for q in outputs[:n]):
            raise OutputError(f"cannot write {shown(p)}: this command writes another output there")


def _named(path: PathLike) -> Path:
    """An output's path; OutputError for a name that is empty or ends in a separator (``Path`` would drop it, and
    "out.png/" would write over the file out.png, or make a file of a folder that was meant)."""
    text = os.fspath(path)
    if not text:
        raise OutputError("cannot write '': an output needs a file name")
    if text.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        raise OutputError(f"cannot write {shown(text)}: it names a folder; an output is a new or a regular file")
    return Path(text)


def _temporary(name: str, random: str) -> str:
    """The name of write_atomic's temporary file for an output called ``name`` (tempfile.mkstemp's form)."""
    return f".{name}.{random}.tmp"


def write_atomic(path: PathLike, data: Union[bytes, Callable], inputs: Iterable[PathLike] = (),
                 fsync: bool = False) -> None:
    """Write ``data`` (bytes, or a function that writes into the open binary file) to ``path`` via a temporary
    file in the same folder and a rename, after ``check_outputs``. ``fsync``: the file and the folder reach the
    disk before this returns."""
    check_outputs([path], inputs)
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise OutputError(f"cannot write {shown(p)}: {e.strerror or e}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())    # as open() would create it (mkstemp makes it 0600)
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, p)                  # a link planted meanwhile is replaced itself, never written through
        if fsync:
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except BaseException as e:             # nothing half-written is left behind, whatever stopped it
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"cannot write {shown(p)}: {e.strerror or e}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
