"""What training needs and the table does not: PyTorch and ultralytics, from the `[train]` extra.

The runtime (run, watch, recognize, eval-photos, the page) reads every frame through the ONNX
exports on onnxruntime; only training, exporting and PyTorch weights need the heavy stack, so
a table installs without it and those commands say in one line how to get it.
"""
from __future__ import annotations

import importlib.util

from companion.errors import CompanionError

INSTALL = "pip install -e '.[train]'"


class TrainingStackMissing(CompanionError):
    exit_code = 2


def importable(name: str) -> bool:
    """Whether `name` can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def require_training(what: str) -> None:
    """Raise a one-line error naming the install command when torch or ultralytics is missing
    (checked without importing them)."""
    missing = [name for name in ("torch", "ultralytics") if not importable(name)]
    if missing:
        raise TrainingStackMissing(f"{what} needs {' and '.join(missing)}, which the table's install leaves out: "
                                   f"{INSTALL}")
