"""Writing files: a file whole or not at all, and a folder checked before the work."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from companion.errors import InputFileError, UsageError


@contextmanager
def written_whole(path: Path, suffix: str = ".tmp") -> Iterator[IO[str]]:
    """A text file opened beside `path` that takes its place once it is written: a crash or a
    power cut leaves the old file or the new one, never half of one, and a failed write (a
    full disk, `path` a folder, Ctrl-C) leaves nothing behind."""
    tmp = path.with_name(path.name + suffix)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def writable_folder(path: Path, option: str, keep: bool = True) -> Path:
    """`path` made a folder to write into, or a one-line error (exit 2) naming `option`.

    Called before the command's work, so a folder that cannot be written (`/proc/x`, a file's
    name, a read-only card) is said at once and not after minutes of evaluating. `keep=False`
    only tries: the folders it made are removed again, so a later mistake leaves nothing."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file: name a folder")
    made: list[Path] = []
    above = path
    while not above.exists() and above.parent != above:
        made.append(above)
        above = above.parent

    def remove_made() -> None:
        for folder in made:  # deepest first
            try:
                folder.rmdir()
            except OSError:
                pass

    try:
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        remove_made()  # nothing left behind by a failed try
        raise InputFileError(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None
    if not keep:
        remove_made()
    return path
