"""Where the shipped models live (`models/` at the repository root) and how ultralytics is
kept offline when PyTorch weights are loaded. Shared by the finder, the reader and the
detector that runs them, and by training (`companion.synth.train`).
"""
from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
MODEL_STEM = "uno-cards"


def offline_ultralytics(config_dir: Path | None = None) -> None:
    """Make ultralytics work with no network (call before it first loads or trains a model):
    YOLO_OFFLINE, its settings in `config_dir` when given, settings sync off."""
    os.environ["YOLO_OFFLINE"] = "true"
    if config_dir is not None:
        config_dir.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir))
    try:
        from ultralytics import settings

        if settings.get("sync", False):
            settings.update({"sync": False})
    except Exception:  # settings file not writable: the offline env var still holds
        pass


def _offline() -> None:
    """Offline, and ultralytics' INFO chatter off stdout (kept clean for --json)."""
    import logging

    offline_ultralytics()
    logging.getLogger("ultralytics").setLevel(logging.WARNING)
