"""`uno-companion bench-vision`: median time per 640x480 frame for the recognizer as the table
runs it (finder, card reader and colour reader as ONNX exports on onnxruntime), and, where the
`[train]` extra is installed, the same models' PyTorch weights through ultralytics."""
from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

HELP = "time the recognizer per frame"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime (and torch) threads (default: all cores)")
    parser.add_argument("--model", type=Path, default=None,
                        help="the finder's weights to time, .onnx and/or .pt of the same name (default: models/uno-cards)")
    parser.add_argument("--light", default="none", metavar="SHIFT",
                        help="the frames through one camera shift of eval-photos (e.g. 2700K, 2200K), read by a "
                             "recognizer made as `run` makes it (one camera, one light: a light taken off is "
                             "remembered); prints the finder's looks a frame too (default: none, as they are)")
    parser.add_argument("--export", action="store_true",
                        help="export --model's .pt weights to ONNX beside them first (offline, through ultralytics: needs "
                             "the [train] extra; not the shipped model, whose ONNX file is the one measured)")


def _frames(n: int) -> Iterator[np.ndarray]:
    import cv2

    from companion.synth.scenes import FaceBank, make_scene

    bank = FaceBank(variants=1)
    rng = np.random.default_rng(7)
    for _ in range(n):
        img, _ = make_scene(rng, bank)
        yield cv2.resize(img, (640, 480))


def time_detector(detector: Any, frames: Sequence[np.ndarray]) -> float:
    """Median milliseconds of `detector.detect` per frame, after one warm-up frame."""
    detector.detect(frames[0])
    times = []
    for f in frames:
        t = time.perf_counter()
        detector.detect(f)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def counting_looks(detector: Any) -> list[int]:
    """Count the finder's looks at `detector`'s frames (a second look at a warm or hazy frame
    doubles its cost); the returned list grows by one per look."""
    looks: list[int] = []
    find = detector._find

    def counted(frame: np.ndarray) -> Any:
        looks.append(1)
        return find(frame)

    detector._find = counted
    return looks


def main(args: argparse.Namespace) -> int:
    from companion.vision import finder
    from companion.vision.detector import MODEL_STEM, MODELS_DIR, YoloDetector
    from companion.errors import InputFileError, UsageError
    from companion.vision.reader import READER_STEM
    from companion.vision.training_stack import INSTALL, importable, require_training

    if args.frames < 1:
        raise UsageError("--frames must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    weights = Path(args.model) if args.model else Path(MODELS_DIR) / f"{MODEL_STEM}.pt"
    if args.model and not any(weights.with_suffix(x).is_file() for x in (".onnx", ".pt")):
        raise InputFileError(f"no model {weights} (neither {weights.with_suffix('.onnx').name} "
                             f"nor {weights.with_suffix('.pt').name} is there)")
    if args.export:
        if weights.resolve().parent == Path(MODELS_DIR).resolve():
            # the export is written beside the weights: the shipped, measured ONNX model would be
            # replaced by a new export without a word (and the figures then timed on that)
            raise UsageError(f"--export writes the ONNX file beside the weights: for the shipped model that "
                             f"replaces {weights.with_suffix('.onnx')}; name a model you trained with --model")
        require_training("--export")
        from companion.synth.train import export_onnx

        print(f"exported -> {export_onnx(weights.with_suffix('.pt'))}")
    if args.threads:
        finder.ONNX_THREADS = args.threads
    torch_ready = importable("torch") and importable("ultralytics")
    if args.threads and torch_ready and weights.with_suffix(".pt").exists():
        import torch

        torch.set_num_threads(args.threads)
    from companion.vision.photometric import camera_shift

    shift = camera_shift(args.light)  # an unknown shift: one line, before any work
    frames = [shift(f) for f in _frames(args.frames)]
    light = "" if args.light == "none" else f", through {args.light} (light remembered, as `run` does)"
    print(f"{len(frames)} frames of 640x480{light}, {os.cpu_count()} CPU cores, "
          f"{args.threads or os.cpu_count()} threads")
    for suffix, label in ((".onnx", "onnxruntime"), (".pt", "PyTorch (ultralytics)")):
        path = weights.with_suffix(suffix)
        if not path.exists():
            print(f"{label}: {path.name} not found")
            continue
        if suffix == ".pt" and not torch_ready:
            print(f"{label}: not timed, needs torch and ultralytics: {INSTALL}")
            continue
        # The finder and its reader in the same format; the colour reader is the shipped ONNX one.
        reader = path.with_name(f"{READER_STEM}{suffix}")
        detector = YoloDetector(path, reader=reader if reader.exists() else False,
                                remember_light=args.light != "none")
        looks = counting_looks(detector)
        ms = time_detector(detector, frames)
        models = f"{path.name} + {reader.name}" if reader.exists() else f"{path.name} (no reader)"
        print(f"{label}, {models}: median {ms:.1f} ms per frame ({1000 / ms:.0f} fps), "
              f"{len(looks) / (len(frames) + 1):.2f} finder looks a frame")
    return 0
