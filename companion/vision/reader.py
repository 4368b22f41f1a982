"""The card reader: the recognizer's second stage, which names the symbol in a card's crop.

The detector finds where cards are; the reader looks at each found box (grown a little and
stretched to a square, exactly as in training, see `crops.crop_square`) and says which
symbol it shows, or "none". A small classifier on a big, centred card generalises to real
photos far better than the detector's own 57-way class guess, and its classes (symbols, not
colours) pool every colour's examples. The colour comes from the colour reader (colour.py),
which loads through this same class.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from companion.vision.crops import NONE, READER_SIZE, SYMBOL_CLASSES
from companion.vision.models import MODEL_STEM, MODELS_DIR, _offline
from companion.errors import InputFileError
from companion.vision.finder import calm_onnx_session, check_weights, load_yolo

READER_STEM = f"{MODEL_STEM}-reader"
COLOUR_STEM = f"{MODEL_STEM}-colour"
THEMED_STEM = f"{MODEL_STEM}-themed"  # themed decks' cards by whole name (crops.THEMED_CLASSES)


def default_reader_weights(stem: str = READER_STEM) -> Path | None:
    """The reader shipped in models/ (ONNX preferred), or None when there is none."""
    for suffix in (".onnx", ".pt"):
        path = MODELS_DIR / f"{stem}{suffix}"
        if path.exists():
            return path
    return None


class CardReader:
    """Names the symbol of the card in each crop: `read(crops) -> [(symbol, probability)]`.

    Each crop is read as it is and turned half a turn (`turns`, in quarter turns), and the
    reads are averaged: the reader learned that a turned card is the same card, and two
    views outvote one view's slip (measured on the real photos: 2.8x fewer misreads on the
    classic set, a sixth fewer on the webcam set; see models/HISTORY.md)."""

    def __init__(self, weights: str | Path, turns: Sequence[int] = (0, 2), classes: Sequence[str] = SYMBOL_CLASSES,
                 size: int = READER_SIZE, what: str = "card reader") -> None:
        self.path = Path(weights)
        self.turns = tuple(turns) or (0,)
        self.size = size
        if not self.path.exists():  # a file that cannot be used: exit 2, as a missing card model
            raise InputFileError(f"{what} not found: {self.path}")
        check_weights(self.path)  # a folder or a wrong file: said before ultralytics is imported
        self._session: Any = None
        self._model: Any = None
        if self.path.suffix == ".onnx":
            # No busy-waiting workers: the camera, page and referee share these cores.
            self._session = calm_onnx_session(self.path)
            self._input = self._session.get_inputs()[0].name
            meta = self._session.get_modelmeta().custom_metadata_map
            names = ast.literal_eval(meta["names"]) if "names" in meta else dict(enumerate(classes))
            shape = self._session.get_inputs()[0].shape
            self._batch = shape[0] if isinstance(shape[0], int) else None
        else:  # PyTorch weights: training and bench tools only (the table runs the .onnx)
            from companion.vision.training_stack import require_training

            require_training(f"reading the PyTorch {what} {self.path.name}")
            _offline()
            self._model = load_yolo(self.path, "classify")
            names = self._model.names
        self.names = [names[i] for i in range(len(names))]
        unknown = [n for n in self.names if n not in classes]
        if unknown:
            raise InputFileError(f"{self.path.name} is not a {what} (unknown classes {unknown[:3]})")

    def read(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        """For each BGR crop (already square, `size`), the best class and its probability."""
        probs = self.probabilities(crops)
        return [(self.names[int(k)], float(p[k])) for k, p in zip(probs.argmax(axis=1), probs)]

    def probabilities(self, crops: Sequence[np.ndarray], turns: Sequence[int] | None = None) -> np.ndarray:
        """For each crop, the probability of each of `names` (one row per crop), the mean of
        its views turned by `turns` (quarter turns; default `self.turns`)."""
        turns = tuple(turns or self.turns)
        if not len(crops):
            return np.zeros((0, len(self.names)), np.float32)
        views = [np.ascontiguousarray(np.rot90(c, k)) for k in turns for c in crops]
        if self._session is not None:
            probs = self._run_onnx(views)
        else:
            results: Any = self._model.predict(views, imgsz=self.size, verbose=False, device="cpu")
            probs = np.stack([r.probs.data.cpu().numpy() for r in results])
        return probs.reshape(len(turns), len(crops), -1).mean(axis=0)

    def _run_onnx(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        # ultralytics' classify input: RGB, 0..1, no mean/std normalisation.
        batch = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2RGB) for c in crops]).astype(np.float32) / 255.0
        batch = np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        if self._batch is None:
            return self._session.run(None, {self._input: batch})[0]
        # A fixed-batch export runs one crop at a time.
        return np.concatenate([self._session.run(None, {self._input: batch[i:i + 1]})[0] for i in range(len(batch))])


__all__ = ["CardReader", "default_reader_weights", "NONE", "READER_STEM", "COLOUR_STEM", "THEMED_STEM"]
