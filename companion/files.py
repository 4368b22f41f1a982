"""Writing a file whole or not at all."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator


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
