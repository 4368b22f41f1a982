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


def gzip_once(body: bytes) -> bytes:
    """`body` gzip-compressed."""
    return gzip.compress(body, compresslevel=6, mtime=0)


# The same script, style and card pictures go to every phone (answers with a tag): each is
# compressed once. Pages and API answers differ each time and are not kept.
gzipped = lru_cache(maxsize=32)(gzip_once)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (RFC 9110: `gzip` or `x-gzip` with a
    weight over 0; else `*` with a weight over 0)."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, *params = (p.strip() for p in part.split(";"))
        if not name:
            continue
        weight = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0  # a weight no one can read takes nothing
        weights.setdefault(name.lower(), weight)
    for name in ("gzip", "x-gzip"):
        if name in weights:
            return weights[name] > 0
    return weights.get("*", 0.0) > 0


def weak_if_range() -> None:
    """Flask `before_request`: a range asked If-Range a weak tag (a compressed answer's) gets the
    whole answer (RFC 9110: If-Range takes only a strong tag), not a piece of the plain file."""
    if request.headers.get("If-Range", "").startswith("W/"):
        request.environ.pop("HTTP_RANGE", None)


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
    response.set_data(gzipped(body) if response.get_etag()[0] else gzip_once(body))
    response.headers["Content-Encoding"] = "gzip"
    # The compressed bytes are not the file's: no ranges of them, and their tag is weak, so a
    # range asked If-Range with it gets the whole answer, not a piece of the plain file, while
    # If-None-Match (a weak comparison) still answers "unchanged".
    response.headers.pop("Accept-Ranges", None)
    tag, weak = response.get_etag()
    if tag and not weak:
        response.set_etag(tag, weak=True)
    return response
