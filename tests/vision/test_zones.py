"""Table zones: defaults, JSON round trip, clear errors, masks, finding the pile."""
from __future__ import annotations

import json

import numpy as np
import pytest

from companion.errors import CompanionError, ConfigError, InputFileError
from companion.vision.zones import Zones, find_zones


def test_zones_save_load_round_trip(tmp_path):
    zones = Zones.default(640, 480)
    zones.discard = [(200.0, 60.0), (460.0, 60.0), (460.0, 300.0), (200.0, 300.0)]
    path = tmp_path / "zones.json"
    zones.save(path)
    again = Zones.load(path)
    assert again.to_dict() == zones.to_dict()
    assert again.contains("discard", 300, 100)
    assert not again.contains("discard", 100, 100)


@pytest.mark.parametrize(
    "data, words",
    [
        ([1, 2], "JSON object"),
        ({"frame": [640, 480]}, "'discard' is required"),
        ({"frame": [640], "discard": [[0, 0], [10, 0], [10, 10]]}, "'frame'"),
        ({"frame": [640, 480], "discard": [[0, 0], [10, 0]]}, "at least 3"),
        ({"frame": [640, 480], "discard": [[0, 0], [900, 0], [900, 50]]}, "outside"),
        ({"frame": [640, 480], "discard": [[0, 0], ["a", 0], [9, 9]]}, "not [x, y]"),
        ({"frame": [640, 480], "discard": [[0, 0], [50, 0], [50, 50]], "pile": []}, "unknown key 'pile'"),
    ],
)
def test_zones_bad_values_are_one_line_errors(data, words):
    with pytest.raises(ConfigError) as info:
        Zones.from_dict(data)
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_zones_missing_and_broken_files(tmp_path):
    with pytest.raises(InputFileError):
        Zones.load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CompanionError, match="not JSON"):
        Zones.load(bad)


def test_zones_scale_with_the_frame():
    zones = Zones.default(640, 480).scaled_to(1280, 960)
    assert zones.frame == (1280, 960)
    assert zones.bbox("discard") == tuple(2 * v for v in Zones.default(640, 480).bbox("discard"))
    mask = zones.mask("discard", (120, 160))
    assert mask.dtype == np.uint8 and mask.max() == 255
    assert mask[60, 85] == 255 and mask[5, 5] == 0


def test_find_zones_puts_the_discard_pile_where_cards_settle():
    # a plain table; a "card" lands at (500, 380) three times, with motion before each
    rng = np.random.default_rng(0)
    table = np.full((480, 640, 3), (60, 110, 50), np.uint8)
    frames = []
    current = table.copy()
    for k in range(3):
        moving = current.copy()
        moving[0:200, 0:200] = (200, 200, 200)  # a hand somewhere
        frames += [moving, current.copy()] * 1
        current = current.copy()
        x = 470 + 6 * k
        current[330:440, x:x + 72] = (255, 255, 255)
        current[340:430, x + 8:x + 64] = (40, 40, 200 + 10 * k)
        frames += [current.copy() for _ in range(4)]
    frames = [np.clip(f.astype(int) + rng.integers(-2, 3, f.shape), 0, 255).astype(np.uint8) for f in frames]
    zones = find_zones(frames, card_height=110)
    x0, y0, x1, y1 = zones.bbox("discard")
    assert x0 < 500 < x1 and y0 < 385 < y1
    assert json.loads(json.dumps(zones.to_dict()))["discard"]


def test_a_picture_named_as_zones_or_truth_file_is_one_clear_error(tmp_path):
    from companion.errors import InputFileError
    from companion.vision.truth import read_truth
    from companion.vision.zones import Zones

    picture = tmp_path / "table.jpg"
    picture.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4)
    with pytest.raises(InputFileError, match="is not text: a JSON file was expected"):
        Zones.load(picture)
    with pytest.raises(InputFileError, match="is not text: a JSON file was expected"):
        read_truth(picture)
