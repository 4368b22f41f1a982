"""The real-card bench's pieces: cut-outs found in photos, texture surfaces, the video maker
and `bench-watch --real`'s errors, on small synthetic stand-ins for the real data."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import companion.synth.realvideo as realvideo
from companion.cli import main as cli
from companion.synth.realvideo import (
    BORDER,
    RealFaces,
    cut_photo_set,
    find_card_quad,
    make_real_video,
    surface_bands,
    warp_card,
)
from companion.synth.render import render_card
from companion.synth.tablevideo import Step
from companion.vision.zones import Zones


def _real_card(name: str, height: int = 300) -> np.ndarray:
    """A rendered face with a real card's wider white border (BGRA)."""
    face = render_card(name, "classic", height)
    h, w = face.shape[:2]
    pad = int(round((BORDER - 0.045) * w / (1 - 2 * BORDER)))  # render's border is 0.045 of the width
    card = np.full((h + 2 * pad, w + 2 * pad, 3), 248, np.uint8)
    a = face[..., 3:] / 255.0
    card[pad:pad + h, pad:pad + w] = (face[..., :3] * a + card[pad:pad + h, pad:pad + w] * (1 - a)).astype(np.uint8)
    return np.dstack([card, realvideo._rounded_alpha(*card.shape[:2])])


def _texture(h: int = 480, w: int = 640, seed: int = 0) -> np.ndarray:
    """A wood-like table: brown stripes with grain noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = 0.5 + 0.5 * np.sin((x * 0.8 + y * 0.3) / 6.0 + 3 * cv2.resize(rng.random((6, 8)).astype(np.float32), (w, h)))
    base = np.array([60, 100, 150], np.float32)
    return np.clip(base * (0.75 + 0.35 * grain[..., None]) + rng.normal(0, 4, (h, w, 1)), 0, 255).astype(np.uint8)


QUAD = np.float32([[260, 120], [400, 140], [375, 360], [228, 335]])  # a card seen a little aslant


def _photo(name: str, quad: np.ndarray = QUAD, finger: bool = False) -> np.ndarray:
    card = _real_card(name)
    h, w = card.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]), quad)
    warped = cv2.warpPerspective(card, m, (640, 480))
    a = warped[..., 3:] / 255.0
    photo = (warped[..., :3] * a + _texture() * (1 - a)).astype(np.uint8)
    if finger:  # a thumb across the card's left edge
        cv2.ellipse(photo, (235, 240), (38, 16), 10, 0, 360, (120, 150, 205), -1)
    return photo


def _same_card(cut: np.ndarray, card: np.ndarray) -> float:
    """Mean grey difference between a cut-out and the card (either way up)."""
    a = cv2.resize(cut[..., :3], (100, 155), interpolation=cv2.INTER_AREA).astype(np.float32)
    b = cv2.resize(card[..., :3], (100, 155), interpolation=cv2.INTER_AREA).astype(np.float32)
    return min(float(np.abs(a - b).mean()), float(np.abs(a[::-1, ::-1] - b).mean()))


def test_a_card_warped_onto_a_table_is_found_and_cut_out_flat():
    photo = _photo("blue_5")
    quad = find_card_quad(photo, "blue_5")
    assert quad is not None
    dist = min(np.abs(np.roll(quad, r, 0) - QUAD).max() for r in (0, 2))  # either way up
    assert dist < 6  # pixels, on a card 225 pixels tall
    cut = warp_card(photo, quad)
    assert cut.shape[2] == 4 and abs(cut.shape[1] / cut.shape[0] - 56 / 87) < 0.01
    card = _real_card("blue_5")
    assert _same_card(cut, card) < 12
    # the measure can tell: the same cut a tenth of a card's width aside differs much more
    assert _same_card(warp_card(photo, quad + np.float32([15, 0])), card) > 2 * _same_card(cut, card)


def test_no_cut_out_when_a_finger_covers_the_border_or_the_card_is_cut_off():
    assert find_card_quad(_photo("green_3", finger=True), "green_3") is None
    off_edge = QUAD + np.float32([260, 0])  # the right-hand corners leave the picture
    assert find_card_quad(_photo("green_3", off_edge), "green_3") is None
    assert find_card_quad(_photo("green_3"), "green_3") is not None


def test_photo_sets_are_cut_once_and_cached(tmp_path, monkeypatch):
    root = tmp_path / "photos" / "set-x"
    for name, finger in (("red_7", False), ("blue_2", False), ("blue_2", True)):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{len(list(folder.iterdir()))}.jpg"), _photo(name, finger=finger))
    cuts = cut_photo_set(root, tmp_path / "work")
    assert (cuts.photos, cuts.usable) == (3, 2)
    assert sorted(cuts.files) == ["blue_2", "red_7"]
    monkeypatch.setattr(realvideo, "find_card_quad", lambda *a: pytest.fail("the cache was not used"))
    again = cut_photo_set(root, tmp_path / "work")
    assert again.files == cuts.files
    face = RealFaces([again], seed=1)("red_7", "classic", 110)
    assert face.shape == (110, 71, 4)


def _composites(tmp_path):
    """A one-image composites folder: a texture with a fan of cards in its top-left corner."""
    root = tmp_path / "composites"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    img = _texture(416, 416, seed=3)
    cv2.rectangle(img, (20, 20), (140, 170), (0, 0, 255), -1)  # "the fan"
    cv2.imwrite(str(root / "images" / "t.jpg"), img)
    (root / "labels" / "t.txt").write_text("7 0.07 0.07 0.05 0.06\n")  # one corner index at (29, 29)
    return root


def test_surfaces_keep_clear_of_the_fan_of_cards(tmp_path):
    ((image, band),) = surface_bands(_composites(tmp_path))
    x0, y0, x1, y1 = band
    img = cv2.imread(str(image))[y0:y1, x0:x1]
    assert min(x1 - x0, y1 - y0) >= 80
    assert not np.any((img[..., 2] > 200) & (img[..., 0] < 60))  # no red of the fan in it
    table = realvideo.table_surface(image, band, 640, 480, seed=0)
    assert table.shape == (480, 640, 3)


def test_real_video_maker_writes_a_video_and_its_truth(tmp_path):
    (image, band), = surface_bands(_composites(tmp_path))
    steps = [
        Step("none", lines=[{"type": "game", "players": ["Ann", "Bob", "Cleo"]}]),
        Step("flip", seat=0, card="red_3", lines=[{"type": "flip", "card": "red_3"}]),
        Step("play", seat=1, card="red_3", style="hover", lines=[{"type": "play", "card": "red_3"}]),
        Step("play", seat=2, card="red_7", style="crooked", lines=[{"type": "play", "card": "red_7"}]),
        Step("take_back", seat=2, lines=[{"type": "take_back"}]),
    ]

    def faces(name: str, design: str, height: int) -> np.ndarray:  # a stand-in for the cut-outs
        return cv2.resize(_real_card(name), (int(round(height * 56 / 87)), height))

    out = tmp_path / "clip.mp4"
    truth = make_real_video(out, steps, faces, (image, band), seed=5)
    assert [json.loads(line) for line in (tmp_path / "clip.jsonl").read_text().splitlines()] == truth
    seen = [line for line in truth if line["type"] in ("flip", "play", "take_back")]
    assert [(line["type"], line.get("card")) for line in seen] == [
        ("flip", "red_3"), ("play", "red_3"), ("play", "red_7"), ("take_back", None)]
    cap = cv2.VideoCapture(str(out))
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, first = cap.read()
    assert ok and first.shape == (480, 640, 3)
    for line in seen:
        assert line["t_land"] <= line["t"] <= frames / 10.0
    # held at the pile's edge a second or more: laid well after the flip came to rest
    assert seen[1]["t_land"] - seen[0]["t"] >= 1.5
    # crooked: far off the pile's centre, still on the discard zone
    x0, y0, x1, y1 = Zones.default().bbox("discard")
    bx0, by0, bx1, by1 = seen[2]["box"]
    centre = ((bx0 + bx1) / 2, (by0 + by1) / 2)
    assert np.hypot(centre[0] - (x0 + x1) / 2, centre[1] - (y0 + y1) / 2) > 30
    assert x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1
    # the table is the texture: the frame's top-right corner (no card, no hand) matches it
    table = realvideo.table_surface(image, band, 640, 480, seed=5)
    assert np.abs(first[10:60, 560:630].astype(int) - table[10:60, 560:630]).mean() < 25


def test_bench_watch_real_says_in_one_line_when_the_photos_are_missing(tmp_path, capsys, monkeypatch):
    assert cli(["bench-watch", "--real", "--photos", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "real photos not found" in err and "--photos" in err
    monkeypatch.setattr(realvideo, "PHOTOS", tmp_path / "shared" / "data" / "real-photos")
    assert cli(["bench-watch", "--real"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path / "shared" / "data" / "real-photos") in err
    (tmp_path / "photos").mkdir()
    assert cli(["bench-watch", "--real", "--photos", str(tmp_path / "photos"),
                "--composites", str(tmp_path / "none")]) == 2
    assert "composites" in capsys.readouterr().err


def test_the_maker_cuts_each_set_and_lays_its_cards(tmp_path, monkeypatch):
    photos = tmp_path / "photos"
    for set_name, names in (("set-a", ["blue_5", "green_2"]), ("set-b", ["green_2"])):
        for name in names:
            (photos / set_name / name).mkdir(parents=True)
            cv2.imwrite(str(photos / set_name / name / "1.jpg"), _photo(name))
    maker = realvideo.RealVideoMaker(photos=photos, composites=_composites(tmp_path), plays=1)
    maker.prepare(tmp_path / "work")
    summary = maker.summary()
    assert summary["sets"]["set-b"]["usable"] == 1 and "blue_5" in summary["sets"]["set-b"]["no_cut_out"]
    script = [Step("none", lines=[{"type": "game", "players": ["Ann", "Bob"]}]),
              Step("flip", seat=0, card="blue_5", lines=[{"type": "flip", "card": "blue_5"}])]
    monkeypatch.setattr(realvideo, "real_session", lambda plays, seed: script)
    truth = maker(tmp_path / "b.mp4", seed=3, index=1)  # set-b's video: blue_5 comes from set-a
    assert [line["card"] for line in truth if line["type"] == "flip"] == ["blue_5"]
    assert (tmp_path / "b.mp4").stat().st_size > 0 and (tmp_path / "b.jsonl").exists()
