"""One module per `uno-companion` command (see companion/cli.py)."""
from __future__ import annotations

import os


def quiet_opencv() -> None:
    """OpenCV's and FFmpeg's own logs (a dozen lines for each try of a camera that cannot be
    opened, "moov atom not found") stay quiet: the command says the camera's state in one line.
    Call it before cv2 is first imported: OpenCV reads these once."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    os.environ.setdefault("OPENCV_VIDEOIO_DEBUG", "0")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
