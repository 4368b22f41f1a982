"""Serve the phone page: web.server (uvicorn) in front of Flask, live streams on its loop."""
from __future__ import annotations

from flask import Flask


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000, threads: int | None = None) -> None:
    """Block serving `app`. Live streams cost no thread; `threads` serve ordinary requests."""
    from web.server import WORKERS, Server

    Server(app, host, port, workers=threads or WORKERS).serve_forever()
