"""`uno-companion bench-vision`: median time per 640x480 frame, PyTorch vs exported model."""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

HELP = "time the recognizer per frame"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--threads", type=int, default=None, help="torch/onnxruntime threads (default: all cores)")
    parser.add_argument("--model", type=Path, default=None,
                        help="PyTorch weights to time, with the .onnx beside them (default: models/uno-cards.pt)")
    parser.add_argument("--export", action="store_true",
                        help="export the weights to ONNX first (offline, through ultralytics)")


def _frames(n: int):
    import numpy as np

    from companion.scenes import FaceBank, make_scene
    import cv2

    bank = FaceBank(variants=1)
    rng = np.random.default_rng(7)
    for _ in range(n):
        img, _ = make_scene(rng, bank)
        yield cv2.resize(img, (640, 480))


def time_detector(detector, frames) -> float:
    detector.detect(frames[0])  # warm-up
    times = []
    for f in frames:
        t = time.perf_counter()
        detector.detect(f)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main(args: argparse.Namespace) -> int:
    import os

    from companion.detector import MODELS_DIR, MODEL_STEM, YoloDetector
    from companion.errors import CompanionError

    if args.frames < 1:
        raise CompanionError("--frames must be at least 1")
    weights = Path(args.model) if args.model else Path(MODELS_DIR) / f"{MODEL_STEM}.pt"
    if args.export:
        from companion.train import export_onnx

        print(f"exported -> {export_onnx(weights)}")

    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
        import torch

        torch.set_num_threads(args.threads)
    frames = list(_frames(args.frames))
    print(f"{len(frames)} frames of 640x480, {os.cpu_count()} CPU cores")
    from companion.reader import READER_STEM

    for suffix in (".pt", ".onnx"):
        path = weights.with_suffix(suffix)
        if not path.exists():
            print(f"{path.name}: not found")
            continue
        # The finder and its reader in the same format: PyTorch against the export.
        reader = path.with_name(f"{READER_STEM}{suffix}")
        ms = time_detector(YoloDetector(path, reader=reader if reader.exists() else False), frames)
        label = f"{path.name} + {reader.name}" if reader.exists() else f"{path.name} (no reader)"
        print(f"{label}: median {ms:.1f} ms per frame ({1000 / ms:.0f} fps)")
    return 0
