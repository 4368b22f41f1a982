"""The address phones join: the LAN IP (never a .local name) and a QR code of the URL."""
from __future__ import annotations

import re
import socket
from typing import Any, Mapping

import qrcode
import qrcode.image.svg


def lan_ip() -> str:
    """This machine's LAN address. A UDP socket "connect" only picks a route: no packet is sent.
    Falls back to 127.0.0.1 when there is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("10.255.255.255", 1))
            ip = sock.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    return ip if ip and not ip.startswith("0.") else "127.0.0.1"


def join_url(port: int, ip: str | None = None) -> str:
    return f"http://{ip or lan_ip()}:{port}/"


def table_url(config: Mapping[str, Any]) -> str:
    """The table's address as phones reach it (ending in /), from the app's configuration: the
    address it is bound to (`PUBLIC_URL`), else the LAN IP's on its `PORT`."""
    return config.get("PUBLIC_URL") or join_url(int(config["PORT"]))


def seat_url(base: str) -> str:
    """A player's way in: the seat page under the table's address (the table view only watches)."""
    return base.rstrip("/") + "/seat"


def qr_svg(text: str) -> str:
    """A QR code of `text` as an SVG document (drawn locally by the qrcode package): dark
    modules on white with the standard quiet zone of 4 modules, so a phone reads it on any
    page background. The SVG has no fixed size: the page sizes it."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathFillImage, border=4)
    svg = image.to_string(encoding="unicode")
    return re.sub(r'^<svg width="[^"]*" height="[^"]*"', "<svg", svg, count=1)
