"""Camera set-up for the host: the latest frame with the zones drawn, saving zone edits, and
calibrating the table's colours.

The run command hands the app in config: SNAPSHOT (a callable returning the latest BGR frame,
or None), ZONES_PATH (the zones JSON file the watcher reads), and with the card model
CALIBRATE (a callable: a BGR picture of cards -> the colour calibration it now uses) and
COLOURS_PATH (where that calibration is saved, beside the configuration).
"""
from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.errors import CompanionError
from web.api import camera_lost, refuse, table_mode
from web.inputs import cap
from web.messages import error_say
from web.security import host_required

bp = Blueprint("zones", __name__)
_COLORS = {"discard": (0, 200, 255), "draw": (255, 160, 0), "reveal": (80, 220, 80)}
_EDITOR_WIDTH = 480  # the zone editor's picture at most this wide (a busy table's picture stays about 25 KB)


def _zones() -> Any:
    from companion.vision.zones import Zones

    path = current_app.config.get("ZONES_PATH")
    if path:
        try:
            return Zones.load(path)
        except CompanionError:
            pass  # no file yet: the default layout, scaled to the frame
    frame = _frame()
    h, w = frame.shape[:2] if frame is not None else (480, 640)
    return Zones.default(w, h)


def _zone_say(message: str) -> dict:
    """The words for a refused zone (companion.vision.zones' messages name the zone in quotes)."""
    m = re.search(r"'(discard|draw|reveal)'", message)
    zone = m.group(1) if m else None
    if zone and "outside the" in message:
        return {"k": "err.zone_outside", "a": {"zone": zone}}
    if zone and message.endswith("is too small"):
        return {"k": "err.zone_small", "a": {"zone": zone}}
    if zone and "crosses itself" in message:
        return {"k": "err.zone_crossed", "a": {"zone": zone}}
    return {"k": "err.zones_bad", "a": {}}


def _frame() -> Any:
    snap = current_app.config.get("SNAPSHOT")
    return snap() if callable(snap) else None


@bp.get("/api/host/zones")
@host_required
def get_zones() -> Any:
    return jsonify(_zones().to_dict())


@bp.post("/api/host/zones")
@host_required
def save_zones() -> Any:
    if table_mode() == "demo":  # the recording's zones; saved, they would be the real table's next time
        return refuse(403, "this is the demo table: its zones and colours are the recording's", "err.demo_camera")
    from companion.vision.zones import Zones

    path = current_app.config.get("ZONES_PATH")
    if not path:
        return refuse(409, "no zones file configured (run the companion with a camera)", "err.no_camera")
    from web.inputs import BodyError, parse_object

    try:
        zones = Zones.from_dict(parse_object(request.get_data(cache=True)))
    except (BodyError, CompanionError) as exc:
        return jsonify(error=cap(str(exc)), say=_zone_say(str(exc))), 400
    frame = _frame()
    if frame is not None:
        # The page draws on the camera's picture at its own size: zones of another shape, or
        # boxes that shrink under 4 pixels on the camera's frames, would leave the camera blind
        # while it says "ok" (a stale page, a script sending a made-up frame size)
        h, w = frame.shape[:2]
        fw, fh = zones.frame
        if abs(fw * h - fh * w) > 0.02 * fw * h:
            return refuse(400, f"the zones were drawn on a {fw}x{fh} picture, not the camera's shape ({w}x{h}): "
                               "reload the page and drag the corners again", "err.zones_frame")
        try:
            Zones.from_dict(zones.scaled_to(w, h).to_dict())
        except CompanionError as exc:
            return jsonify(error=cap(str(exc)), say=_zone_say(str(exc))), 400
    if zones.overlap("discard", "reveal") > 0:
        # a card laid on the pile inside the reveal area would count as played and as shown
        return refuse(400, "the discard pile and the reveal area overlap: move them apart", "err.zones_overlap")
    try:
        zones.save(path)
    except CompanionError as exc:  # a full card, a read-only folder: one line, nothing changed
        return refuse(503, str(exc), "err.not_saved")
    saved = current_app.config.get("ZONES_SAVED")
    if callable(saved):  # the watcher picks the new zones up from the next frame
        saved()
    return jsonify(ok=True, zones=zones.to_dict())


@bp.get("/api/host/camera")
@host_required
def camera_status() -> Any:
    """The camera's state for the host page: "none" (phones only), "starting", "ok", "lost"
    (with the reason: a camera that cannot be opened, or stopped sending) or "ended"; and
    `warnings`, what it sees that the host should hear about, by code with its figures
    (`VisionLoop.warnings`: the pile hidden long, cards showing no colour)."""
    status_of = current_app.config.get("CAMERA_STATUS")
    status = status_of() if callable(status_of) else None
    if status is None:
        return jsonify(state="none" if not callable(status_of) else "starting", message="", warnings={})
    warnings_of = current_app.config.get("CAMERA_WARNINGS")
    warnings = warnings_of() if callable(warnings_of) else {}
    return jsonify(state=status.state, message=str(status.message)[:200], warnings=warnings)


@bp.get("/api/camera/seen")
def camera_seen() -> Any:
    """What the camera sees that every player should hear, for the table and TV views: a card
    come to rest beside the discard pile, not on it (`beside`, its name; null when none), and
    whether the camera is lost (`lost`: the cards laid meanwhile are not counted). The player
    who missed the pile looks at the table, not at the host's phone. Nothing about the
    camera's set-up is said here."""
    warnings_of = current_app.config.get("CAMERA_WARNINGS")
    warnings = warnings_of() if callable(warnings_of) else {}
    beside = (warnings.get("beside") or {}).get("card")
    return jsonify(beside=beside, lost=camera_lost())


@bp.get("/host/snapshot.jpg")
@host_required
def snapshot() -> Any:
    import cv2
    import numpy as np

    frame = _frame()
    if frame is None:
        return jsonify(error="no camera frame yet"), 404
    image = frame.copy()
    if request.args.get("raw") and image.shape[1] > _EDITOR_WIDTH:
        # the editor's picture: phone-sized, so the host page stays light; the zones it saves name
        # this size as their frame, and are scaled to the camera's frames when used
        scale = _EDITOR_WIDTH / image.shape[1]
        image = cv2.resize(image, (_EDITOR_WIDTH, round(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    zones = _zones().scaled_to(image.shape[1], image.shape[0])
    # ?raw=1: the bare picture, for the host page's editor, which draws the zones itself
    for name, color in () if request.args.get("raw") else _COLORS.items():
        poly = zones.polygon(name)
        if poly:
            cv2.polylines(image, [np.array(poly, dtype=np.int32)], True, color, 2)
            x, y = poly[0]
            cv2.putText(image, name, (int(x) + 4, int(y) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6, color, 2)
    quality = 60 if request.args.get("raw") else 80  # the editor's picture only places boxes
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return Response(jpg.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/host/colours")
@host_required
def get_colours() -> Any:
    from companion.vision.calibration import ColourCalibration

    path = current_app.config.get("COLOURS_PATH")
    try:
        calibration = ColourCalibration.load(path) if path else None
    except CompanionError:
        calibration = None
    if calibration is None:
        return jsonify(calibration=None, swatches=None)
    return jsonify(calibration=calibration.to_dict(), swatches=calibration.swatches())


@bp.post("/api/host/colours")
@host_required
def calibrate_colours() -> Any:
    """Learn the four colours from the cards lying in the reveal area now; save them."""
    if table_mode() == "demo":  # saved beside the configuration, they would be the real table's
        return refuse(403, "this is the demo table: its zones and colours are the recording's", "err.demo_camera")
    from companion.vision.calibration import CalibrationError

    calibrate, path = current_app.config.get("CALIBRATE"), current_app.config.get("COLOURS_PATH")
    if not callable(calibrate) or not path:
        return refuse(409, "colour calibration needs a camera and the card model", "err.calibrate_camera")
    frame = _frame()
    if frame is None:
        return refuse(409, "no camera frame yet", "err.no_frame")
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = (int(v) for v in _zones().scaled_to(w, h).bbox("reveal"))
    area = frame[max(0, y1):min(h, y2), max(0, x1):min(w, x2)]
    if area.size == 0:
        return refuse(409, "the reveal area is outside the camera picture: set the zones first", "err.reveal_outside")
    try:
        calibration = calibrate(area)
    except CalibrationError as exc:  # what the host can do about it, in the page's language
        return jsonify(error=cap(str(exc)), say=error_say(str(exc))), 422
    try:
        calibration.save(path)
    except OSError as exc:
        return refuse(503, f"the calibration cannot be saved: {exc.strerror or exc}", "err.not_saved")
    return jsonify(ok=True, calibration=calibration.to_dict(), swatches=calibration.swatches())
