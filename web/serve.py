"""Serve the phone page with waitress: one process, a thread per live phone plus spares."""
from __future__ import annotations

from flask import Flask


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000, threads: int | None = None) -> None:
    """Block serving `app`. Each open page holds one thread for its live stream, so threads
    default to the most players (10) plus 8 for ordinary requests."""
    from waitress import serve as waitress_serve

    waitress_serve(app, host=host, port=port, threads=threads or 18, channel_timeout=300)
