"""The finder's own inference: the exported YOLO detector run on onnxruntime with numpy/OpenCV
pre- and post-processing, so the table's runtime never imports PyTorch or ultralytics.

What it reproduces from ultralytics' predict path for an ONNX export (read from
ultralytics 8.4's `LetterBox`, `BasePredictor.preprocess`, `non_max_suppression` and
`scale_boxes`; reimplemented, not copied):

- **letterbox**: scale by min(target / side) (upscaling allowed), each side rounded, resized
  with bilinear interpolation, grey 114 borders split around the picture (the odd pixel
  going bottom/right: `round(pad / 2 -/+ 0.1)`). A fixed-size export gets the full square;
  a dynamic one the smallest stride multiple (ultralytics' `rect` predict).
- **input**: BGR -> RGB, HWC -> NCHW, float32 / 255.
- **output** of the YOLO11 detect head, `(1, 4 + classes, anchors)`: centre x, centre y,
  width, height in input pixels, then each class's sigmoid score.
- **decode**: candidates whose best class score > conf; box to corners; greedy NMS by
  descending score, dropping boxes whose IoU with a kept one is > iou (per class by
  offsetting each class's boxes far apart, or all together with `agnostic`); at most
  `max_det`.
- **back to the frame**: minus the padding, divided by each axis's scale, clipped.

`tests/vision/test_finder.py` checks it against ultralytics itself on fixed frames.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError, InputFileError

PAD_VALUE = 114  # ultralytics' letterbox grey
_CLASS_OFFSET = 7680.0  # per-class NMS: boxes of different classes this far apart never overlap
_MAX_NMS = 30000  # candidates kept for NMS at most, surest first
ONNX_THREADS: int | None = None  # threads per onnxruntime session (None: every core); bench-vision sets it


def calm_onnx_session(path: Path) -> Any:
    """An onnxruntime CPU session whose idle workers sleep instead of spinning.

    By default onnxruntime's workers busy-wait between runs; on a Pi (or here) the camera, web
    server and referee share the cores, and spinning workers starved them: measured 18 ms
    instead of 31-37 ms per 256x256 run on a busy 2-core CPU.
    """
    import onnxruntime  # type: ignore[import-untyped]

    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.intra_op_num_threads = ONNX_THREADS or os.cpu_count() or 1
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own InvalidProtobuf, Fail, NoSuchFile: a file that is no model
        raise InputFileError(f"cannot load {path}: not an ONNX model ({type(exc).__name__})") from None


def check_weights(path: Path) -> None:
    """A one-line error (a file that cannot be used: exit 2) unless `path` is a file named as
    weights are. Checked before ultralytics is imported: importing it for a wrong file printed
    its settings banner and wrote ~/.config/Ultralytics/settings.json before failing."""
    if not path.is_file():
        raise InputFileError(f"cannot load {path}: not a file")
    if path.suffix not in (".onnx", ".pt"):  # ultralytics would take it and fail only at the first picture
        raise InputFileError(f"cannot load {path}: weights are a .onnx or .pt file")


def load_yolo(path: Path, task: str) -> Any:
    """ultralytics' YOLO on `path` (PyTorch weights), or one line when the file is no such weights."""
    check_weights(path)
    if path.suffix != ".pt":
        raise InputFileError(f"cannot load {path}: weights are a .onnx or .pt file")
    from ultralytics import YOLO  # (seconds to import: only for a file worth trying)

    try:
        return YOLO(str(path), task=task)
    except Exception as exc:  # TypeError, RuntimeError, unpickling errors: whatever the file was
        raise InputFileError(f"cannot load {path}: not ultralytics weights ({type(exc).__name__})") from None


@dataclass(frozen=True)
class Letterboxed:
    """A frame fitted into the model's input: the padded picture and how to map boxes back."""

    image: np.ndarray  # HxWx3 uint8, the model's input size
    gain: tuple[float, float]  # x, y scale from the frame to the resized picture
    pad: tuple[int, int]  # left, top border in pixels


def letterbox(frame: np.ndarray, size: tuple[int, int], stride: int = 32, rect: bool = False) -> Letterboxed:
    """`frame` scaled to fit `size` (height, width) keeping its proportions, and padded with grey:
    to the full size, or (`rect`) only to the next multiple of `stride`."""
    h, w = frame.shape[:2]
    r = min(size[0] / h, size[1] / w)
    new_w, new_h = max(round(w * r), 1), max(round(h * r), 1)
    dw, dh = size[1] - new_w, size[0] - new_h
    if rect:
        dw, dh = dw % stride, dh % stride
    top, bottom = round(dh / 2 - 0.1), round(dh / 2 + 0.1)
    left, right = round(dw / 2 - 0.1), round(dw / 2 + 0.1)
    img = frame if (w, h) == (new_w, new_h) else cv2.resize(frame, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    img = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    return Letterboxed(img, (new_w / w, new_h / h), (left, top))


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes (x1, y1, x2, y2) kept by greedy non-maximum suppression, surest
    first: each box drops every later one overlapping it by IoU > `iou`."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes.T
    areas = (x2 - x1) * (y2 - y1)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        inter = (np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
                 * np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None))
        with np.errstate(invalid="ignore", divide="ignore"):
            overlap = inter / (areas[i] + areas[rest] - inter)
        order = rest[~(overlap > iou)]  # a degenerate box (NaN overlap) is kept, as torchvision does
    return np.array(keep, dtype=np.int64)


@dataclass(frozen=True)
class Found:
    """The finder's boxes in frame pixels, surest first."""

    boxes: np.ndarray  # (n, 4) float32 x1, y1, x2, y2
    scores: np.ndarray  # (n,) float32
    classes: np.ndarray  # (n,) int64

    def __len__(self) -> int:
        return len(self.scores)


def decode(output: np.ndarray, conf: float, iou: float, agnostic: bool = False, max_det: int = 300) -> Found:
    """The detect head's raw output `(4 + classes, anchors)` (one image) as boxes in the
    model's input pixels: best class per anchor above `conf`, then NMS."""
    pred = output.T  # anchors x (4 + classes)
    scores_all = pred[:, 4:]
    classes = scores_all.argmax(axis=1)
    scores = scores_all[np.arange(len(pred)), classes]
    keep = scores > conf
    pred, scores, classes = pred[keep], scores[keep], classes[keep]
    if len(scores) > _MAX_NMS:
        top = np.argsort(-scores, kind="stable")[:_MAX_NMS]
        pred, scores, classes = pred[top], scores[top], classes[top]
    cx, cy, bw, bh = pred[:, 0], pred[:, 1], pred[:, 2] / 2, pred[:, 3] / 2
    boxes = np.stack([cx - bw, cy - bh, cx + bw, cy + bh], axis=1)
    offset = 0.0 if agnostic else _CLASS_OFFSET
    kept = nms(boxes + (classes[:, None] * offset).astype(boxes.dtype), scores, iou)[:max_det]
    return Found(boxes[kept], scores[kept], classes[kept].astype(np.int64))


def to_frame(found: Found, boxed: Letterboxed, frame_shape: tuple[int, ...]) -> Found:
    """Boxes from the letterboxed input back to the frame's pixels, clipped to the frame."""
    boxes = found.boxes.copy()
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] - boxed.pad[0]) / boxed.gain[0]
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] - boxed.pad[1]) / boxed.gain[1]
    h, w = frame_shape[:2]
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
    return Found(boxes, found.scores, found.classes)


def _metadata(session: Any, path: Path) -> dict[str, Any]:
    """The export's metadata ultralytics writes: task, class names, input size, stride."""
    meta = session.get_modelmeta().custom_metadata_map
    try:
        names = ast.literal_eval(meta["names"])
        imgsz = ast.literal_eval(meta.get("imgsz", "None"))
        stride = int(meta.get("stride", 32))
    except (KeyError, ValueError, SyntaxError):
        raise InputFileError(f"{path.name} has no YOLO export metadata (class names): export it again "
                             "with `uno-companion bench-vision --export`") from None
    if meta.get("task", "detect") != "detect":
        raise InputFileError(f"{path.name} is a {meta['task']} model, not a card detector")
    return {"names": names, "imgsz": imgsz, "stride": stride}


class OnnxFinder:
    """The exported detector on onnxruntime: `find(frame, ...)` gives its boxes in frame pixels."""

    def __init__(self, path: str | Path, imgsz: int | None = None) -> None:
        self.path = Path(path)
        self.session = calm_onnx_session(self.path)
        meta = _metadata(self.session, self.path)
        names = meta["names"]
        self.names: list[str] = [names[i] for i in range(len(names))] if isinstance(names, dict) else list(names)
        self.stride: int = meta["stride"]
        model_input = self.session.get_inputs()[0]
        self._input = model_input.name
        height, width = model_input.shape[2:4]
        rows = self.session.get_outputs()[0].shape[1]
        if isinstance(rows, int) and rows != 4 + len(self.names):  # an export with NMS inside: (1, max_det, 6)
            raise InputFileError(f"{self.path.name} does not give the raw YOLO detect output (4 box rows and "
                                 f"{len(self.names)} class rows); export it again without NMS")
        # A fixed-size export takes exactly its size, padded square; a dynamic one takes the size
        # asked (a stride multiple) padded only to the stride, as ultralytics' rect predict does.
        self.fixed = isinstance(height, int) and isinstance(width, int)
        if self.fixed:
            if imgsz is not None and imgsz not in (height, width):
                raise CompanionError(f"{self.path.name} was exported for {width}x{height} input, not {imgsz}: "
                                     "leave imgsz unset or export it again at that size")
            self.size: tuple[int, int] = (int(height), int(width))
        else:
            trained = meta["imgsz"] or 640
            side = imgsz or (trained if isinstance(trained, int) else max(trained))
            side = int(np.ceil(side / self.stride) * self.stride)
            self.size = (side, side)

    @property
    def imgsz(self) -> int:
        return max(self.size)

    def find(self, frame: np.ndarray, conf: float, iou: float, agnostic: bool = False, max_det: int = 300) -> Found:
        """The boxes in a BGR frame above `conf` after NMS at `iou`, surest first."""
        boxed = letterbox(frame, self.size, self.stride, rect=not self.fixed)
        blob = cv2.cvtColor(boxed.image, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None]
        blob = np.ascontiguousarray(blob, dtype=np.float32) / np.float32(255)
        output = self.session.run(None, {self._input: blob})[0]
        return to_frame(decode(output[0], conf, iou, agnostic, max_det), boxed, frame.shape)


class UltralyticsFinder:
    """PyTorch weights (`.pt`) through ultralytics' own predict: for training and the bench
    tools, which have `pip install -e '.[train]'`. Same `find` as `OnnxFinder`."""

    def __init__(self, path: str | Path, imgsz: int | None = None) -> None:
        from companion.vision.training_stack import require_training

        require_training(f"reading the PyTorch weights {Path(path).name}")
        from companion.vision.models import _offline

        _offline()
        self.path = Path(path)
        self.model = load_yolo(self.path, "detect")
        names = self.model.names
        self.names = [names[i] for i in range(len(names))] if isinstance(names, dict) else list(names)
        self.imgsz = imgsz or self._trained_size()

    def _trained_size(self) -> int:
        try:
            args = getattr(self.model, "overrides", {}) or {}
            size = args.get("imgsz") or self.model.ckpt.get("train_args", {}).get("imgsz")  # type: ignore[union-attr]
            return int(size if isinstance(size, int) else size[0])
        except Exception:
            return 256

    def find(self, frame: np.ndarray, conf: float, iou: float, agnostic: bool = False, max_det: int = 300) -> Found:
        results: Any = self.model.predict(frame, imgsz=self.imgsz, conf=conf, iou=iou, agnostic_nms=agnostic,
                                          max_det=max_det, verbose=False, device="cpu")
        boxes: Any = results[0].boxes
        if boxes is None or not len(boxes):
            return Found(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))
        return Found(boxes.xyxy.cpu().numpy(), boxes.conf.cpu().numpy(), boxes.cls.cpu().numpy().astype(np.int64))


def open_finder(path: str | Path, imgsz: int | None = None) -> OnnxFinder | UltralyticsFinder:
    """The finder for these weights: an ONNX export on onnxruntime, else PyTorch weights."""
    check_weights(Path(path))  # before the PyTorch path imports ultralytics
    return OnnxFinder(path, imgsz) if Path(path).suffix == ".onnx" else UltralyticsFinder(path, imgsz)


__all__ = ["OnnxFinder", "UltralyticsFinder", "open_finder", "letterbox", "decode", "nms", "to_frame", "Found",
           "Letterboxed", "calm_onnx_session", "check_weights"]
