"""Writing an ultralytics classification folder from generated scenes, on several processes.

The colour reader's and the themed reader's data are both crops cut from batches of freshly
generated scenes; this writes them (train/<class>/, val/<class>/) the same way for any number of
processes: scenes in chunks of 200, each chunk drawn by `batch(seed, start, count, *extra)`, the
crops saved in chunk order with a seeded train/val split.
"""
from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

CHUNK = 200  # scenes a process draws at a time


def write_class_folder(out: Path, classes: Sequence[str], scenes: int, seed: int,
                       batch: Callable[..., list[tuple[str, bytes]]], extra: Sequence[Any] = (),
                       val_share: float = 0.06, jobs: int = 1,
                       progress: Callable[[int], None] | None = None) -> Path:
    """Write the (class, JPEG bytes) crops of `scenes` scenes into `out`; returns `out`."""
    out = Path(out)
    for split in ("train", "val"):
        for cls in classes:
            (out / split / cls).mkdir(parents=True, exist_ok=True)
    starts = list(range(0, scenes, CHUNK))
    sizes = [min(CHUNK, scenes - s) for s in starts]
    n = 0
    split_rnd = random.Random(seed)

    def save(crops: list[tuple[str, bytes]]) -> None:
        nonlocal n
        for label, data in crops:
            split = "val" if split_rnd.random() < val_share else "train"
            (out / split / label / f"{n:07d}.jpg").write_bytes(data)
            n += 1
        if progress:
            progress(n)

    args = [[seed] * len(starts), starts, sizes, *([value] * len(starts) for value in extra)]
    if jobs <= 1:
        for crops in map(batch, *args):
            save(crops)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for crops in pool.map(batch, *args):
                save(crops)
    return out


__all__ = ["write_class_folder", "CHUNK"]
