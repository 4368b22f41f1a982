"""Pages, script, style and card pictures sent gzip-compressed to phones that accept it.

A phone at the table loads the page over the Pi's Wi-Fi, often at the edge of its reach: the
page's words (both catalogues' worth of texts for the script to use) and script are text that
shrinks to about a quarter. The live stream is never compressed (it must reach the phone event
by event), nor anything small, already compressed (the camera picture) or partial.
"""
from __future__ import annotations

import gzip
from functools import lru_cache

from flask import Response, request

TEXT_TYPES = ("text/html", "text/javascript", "text/css", "application/json", "image/svg+xml")
SMALLEST = 1024  # bytes: below one packet, compressing saves no round trip


@lru_cache(maxsize=32)
def _gzipped(body: bytes) -> bytes:
    # the same script, style and card pictures go to every phone: compressed once each
    return gzip.compress(body, compresslevel=6, mtime=0)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (and does not refuse it with q=0)."""
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().lower()
            return not (q.startswith("q=") and q[2:].strip() in ("0", "0.0", "0.00", "0.000"))
    return False


def compress(response: Response) -> Response:
    """Flask `after_request`: the body gzip-compressed where the phone accepts it and it pays."""
    response.vary.add("Accept-Encoding")
    if (response.status_code != 200 or "Content-Encoding" in response.headers
            or response.mimetype not in TEXT_TYPES or not accepts_gzip(request.headers.get("Accept-Encoding", ""))):
        return response
    if response.is_streamed and not response.direct_passthrough:
        return response  # made as it goes (a stream): sent as it is made
    response.direct_passthrough = False  # a static file's body is read here, not sent by the server from disk
    body = response.get_data()
    if len(body) < SMALLEST:
        return response
    response.set_data(_gzipped(body))
    response.headers["Content-Encoding"] = "gzip"
    return response
