"""The finder on onnxruntime (companion/vision/finder.py): it reads frames as ultralytics does, and
the table's commands run where PyTorch and ultralytics are not installed at all."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.vision.models import MODELS_DIR, MODEL_STEM
from companion.vision.finder import Found, OnnxFinder, decode, letterbox, nms, to_frame

REPO = Path(__file__).resolve().parents[2]
FINDER_ONNX = MODELS_DIR / f"{MODEL_STEM}.onnx"
FINDER_PT = MODELS_DIR / f"{MODEL_STEM}.pt"
needs_export = pytest.mark.skipif(not FINDER_ONNX.exists(), reason="no ONNX finder in models/")
# How the detector asks for boxes: with its reader (weak boxes, class-agnostic, at most ten)
# and alone (the model's own threshold, per class).
ASKS = [pytest.param(0.05, True, 10, id="with-reader"), pytest.param(0.25, False, 300, id="alone")]


# -- pre- and post-processing -------------------------------------------------------------------


def test_letterbox_fits_a_wide_frame_into_the_square_with_grey_bands_and_maps_boxes_back() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[100:300, 200:400] = 255  # a white card
    boxed = letterbox(frame, (256, 256))
    assert boxed.image.shape == (256, 256, 3)
    assert boxed.pad == (0, 32) and boxed.gain == (0.4, 0.4)
    assert (boxed.image[:32] == 114).all() and (boxed.image[-32:] == 114).all()  # grey bands above and below
    ys, xs = np.nonzero(boxed.image[:, :, 0] > 200)
    card = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
    back = to_frame(Found(card, np.ones(1, np.float32), np.zeros(1, np.int64)), boxed, frame.shape)
    assert back.boxes[0] == pytest.approx([200, 100, 400, 300], abs=2.5)  # within one input pixel


def test_letterbox_for_a_dynamic_export_pads_only_to_the_stride() -> None:
    boxed = letterbox(np.zeros((480, 640, 3), np.uint8), (256, 256), stride=32, rect=True)
    assert boxed.image.shape == (192, 256, 3) and boxed.pad == (0, 0)


def test_boxes_outside_the_frame_are_clipped_to_it() -> None:
    boxed = letterbox(np.zeros((480, 640, 3), np.uint8), (256, 256))
    found = Found(np.array([[-10, 0, 300, 256]], np.float32), np.ones(1, np.float32), np.zeros(1, np.int64))
    assert to_frame(found, boxed, (480, 640, 3)).boxes[0].tolist() == [0, 0, 640, 480]


def _head(boxes: list[tuple[float, float, float, float, int, float]], classes: int = 3) -> np.ndarray:
    """A detect head's raw output (4 + classes, anchors) holding these (cx, cy, w, h, class, score)."""
    out = np.zeros((4 + classes, len(boxes)), np.float32)
    for k, (cx, cy, w, h, c, score) in enumerate(boxes):
        out[:4, k] = cx, cy, w, h
        out[4 + c, k] = score
    return out


def test_two_overlapping_boxes_of_different_cards_both_stay_unless_nms_is_class_agnostic() -> None:
    head = _head([(100, 100, 50, 80, 0, 0.9), (104, 102, 50, 80, 1, 0.6), (300, 100, 50, 80, 2, 0.02)])
    per_class = decode(head, conf=0.05, iou=0.5)
    assert per_class.classes.tolist() == [0, 1]  # the 0.02 box is under the threshold
    assert per_class.boxes[0].tolist() == [75, 60, 125, 140]  # centre and size to corners
    assert decode(head, conf=0.05, iou=0.5, agnostic=True).classes.tolist() == [0]


def test_nms_keeps_the_surest_of_each_overlapping_group_and_max_det_the_surest() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [40, 40, 50, 50]], np.float32)
    scores = np.array([0.5, 0.9, 0.7, 0.6], np.float32)
    assert nms(boxes, scores, 0.5).tolist() == [1, 2, 3]
    assert nms(boxes, scores, 0.95).tolist() == [1, 2, 3, 0]  # IoU 0.82: both kept at a looser threshold, surest first
    head = _head([(5, 5, 10, 10, 0, 0.5), (50, 50, 10, 10, 0, 0.9), (90, 90, 10, 10, 0, 0.7)])
    assert decode(head, conf=0.1, iou=0.5, max_det=2).scores.tolist() == pytest.approx([0.9, 0.7])


def test_a_model_that_is_not_a_yolo_detector_export_is_one_clear_error(tmp_path: Path) -> None:
    from companion.errors import CompanionError

    reader = MODELS_DIR / f"{MODEL_STEM}-reader.onnx"
    if not reader.exists():
        pytest.skip("no reader export to try")
    with pytest.raises(CompanionError, match="classify model, not a card detector"):
        OnnxFinder(reader)


@needs_export
def test_a_fixed_size_export_refuses_another_input_size() -> None:
    from companion.errors import CompanionError

    with pytest.raises(CompanionError, match="exported for 256x256 input, not 320"):
        OnnxFinder(FINDER_ONNX, imgsz=320)


# -- the same boxes as ultralytics -------------------------------------------------------------------


def _fixed_frames() -> list[np.ndarray]:
    """Rendered table scenes (seeded), frames of the bundled demo video, and odd shapes."""
    from companion.synth.scenes import FaceBank, make_scene

    rng = np.random.default_rng(11)
    bank = FaceBank(variants=1)
    frames = [cv2.resize(make_scene(rng, bank)[0], (640, 480)) for _ in range(8)]
    video = cv2.VideoCapture(str(REPO / "companion" / "data" / "demo" / "demo.mp4"))
    for index in (30, 140, 260, 400, 610, 830):
        video.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, frame = video.read()
        if ok:
            frames.append(frame)
    video.release()
    frames.append(cv2.resize(frames[0], (333, 517)))  # portrait, odd sizes: uneven padding
    frames.append(frames[9][100:260, 200:560].copy())  # a zone's crop, as the watcher hands it
    return frames


def _match(ours: Found, names: list[str], theirs: Any, their_names: dict, skip_near: float | None = None) -> None:
    """Every box of ours is one of theirs (same card name, corners within 1 px) and back.
    `skip_near`: boxes scored within 0.01 of it may be on one side only (a score a hair either
    side of the threshold in another runtime's arithmetic)."""
    xyxy, confs, classes = theirs.xyxy.numpy(), theirs.conf.numpy(), theirs.cls.numpy().astype(int)
    pairs_ours = [(names[int(k)], b, s) for b, s, k in zip(ours.boxes, ours.scores, ours.classes)]
    pairs_theirs = [(their_names[int(k)], b, s) for b, s, k in zip(xyxy, confs, classes)]
    for mine, other in ((pairs_ours, pairs_theirs), (pairs_theirs, pairs_ours)):
        for name, box, score in mine:
            if skip_near is not None and score < skip_near + 0.01:
                continue
            assert any(n == name and np.abs(b - box).max() <= 1.0 for n, b, _ in other), \
                f"{name} at {box.round(1).tolist()} ({score:.3f}) has no match in {[(n, b.round(1).tolist()) for n, b, _ in other]}"


@pytest.fixture(scope="module")
def ultralytics_models() -> tuple[Any, Any]:
    pytest.importorskip("ultralytics", reason="the [train] extra is not installed")
    from companion.vision.models import _offline

    _offline()
    from ultralytics import YOLO

    if not (FINDER_ONNX.exists() and FINDER_PT.exists()):
        pytest.skip("the finder's .onnx and .pt are not both in models/")
    return YOLO(str(FINDER_ONNX), task="detect"), YOLO(str(FINDER_PT), task="detect")


@pytest.mark.parametrize("conf, agnostic, max_det", ASKS)
def test_the_onnx_finder_gives_ultralytics_boxes_and_names_on_fixed_frames(
        ultralytics_models: tuple[Any, Any], conf: float, agnostic: bool, max_det: int) -> None:
    """Ours against ultralytics' predict: on the same export exactly the same boxes, and on
    the PyTorch weights (fed the export's square input, `rect=False`: PyTorch's own predict
    pads only to the stride) the same boxes within a pixel and the same names."""
    exported, pytorch = ultralytics_models
    finder = OnnxFinder(FINDER_ONNX)
    seen = 0
    for frame in _fixed_frames():
        ours = finder.find(frame, conf, 0.5, agnostic, max_det)
        options = dict(imgsz=256, conf=conf, iou=0.5, agnostic_nms=agnostic, max_det=max_det, verbose=False,
                       device="cpu")
        same_export = exported.predict(frame, **options)[0].boxes
        assert len(same_export) == len(ours)
        _match(ours, finder.names, same_export, exported.names)
        _match(ours, finder.names, pytorch.predict(frame, rect=False, **options)[0].boxes, pytorch.names,
               skip_near=conf)
        seen += len(ours)
    assert seen >= 20  # the frames hold cards: the comparison compared something


# -- the table without PyTorch ------------------------------------------------------------------------

# Runs the CLI with torch, torchvision and ultralytics unimportable, and says at exit whether
# anything even tried to import them.
_BLOCKED_CLI = """
import atexit, runpy, sys
tried = []
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "torchvision", "ultralytics"):
            tried.append(name)
            raise ImportError(f"{name} is not installed here")
        return None
sys.meta_path.insert(0, Blocker())
atexit.register(lambda: print("tried to import:", sorted(set(tried)) or "nothing", file=sys.stderr))
sys.argv = ["uno-companion", *sys.argv[1:]]
runpy.run_module("companion.cli", run_name="__main__", alter_sys=True)
"""


def _without_torch(tmp_path: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONUNBUFFERED="1", YOLO_OFFLINE="true", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", _BLOCKED_CLI, *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=timeout)


@needs_export
@pytest.mark.slow
def test_recognize_reads_a_card_where_torch_and_ultralytics_cannot_be_imported(tmp_path: Path) -> None:
    from companion.synth.render import render_card

    table = np.full((480, 640, 3), (70, 110, 60), np.uint8)  # green felt with a red 7 on it
    face = render_card("red_7", "classic", 260)
    h, w = face.shape[:2]
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    region = table[110:110 + h, 250:250 + w].astype(np.float32)
    table[110:110 + h, 250:250 + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table)
    done = _without_torch(tmp_path, "recognize", str(photo), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["cards"][0]["card"] == "red_7"
    assert "tried to import: nothing" in done.stderr


@needs_export
@pytest.mark.slow
def test_run_demo_recognises_its_cards_where_torch_and_ultralytics_cannot_be_imported(tmp_path: Path) -> None:
    from companion.referee.store import EventStore

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _without_torch(tmp_path, "run", "--camera", "demo", "--bench", "8", "--no-gpio", "--host", "127.0.0.1",
                          "--port", str(port), "--db", str(tmp_path / "games.db"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recognised by the card model" in done.stdout and "not available in this build" not in done.stdout
    assert "tried to import: nothing" in done.stderr
    with EventStore(tmp_path / "demo.db") as store:  # the demo's own store, beside the named one
        events = store.events(store.latest_game())
    assert {"type": "flip", "card": "yellow_1"} in events  # the demo's first card, read by the model


def test_training_without_the_train_extra_says_how_to_install_it_in_one_line(tmp_path: Path) -> None:
    done = _without_torch(tmp_path, "train", "--work", str(tmp_path / "work"))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == ("uno-companion train: training needs torch and ultralytics, which the "
                                           "table's install leaves out: pip install -e '.[train]'")
    assert not (tmp_path / "work").exists()
