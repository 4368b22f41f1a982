"""`eval-photos` as a user runs it, on a tiny folder tree with a stand-in model."""
import json

import cv2
import numpy as np
import pytest

import companion.detector
from companion.cli import main as cli_main
from companion.detector import Detection, FakeDetector
from companion.evaluation import photo_set


def _tree(root, per_class=3):
    for name in ("red_5", "blue_5", "wild"):
        (root / name).mkdir()
        for i in range(per_class):
            cv2.imwrite(str(root / name / f"{i}.png"), np.full((12, 12, 3), 10 * i, np.uint8))
    (root / "notes.txt").write_text("not a folder, ignored")
    return root


@pytest.fixture
def reads_everything_as_red_5(monkeypatch):
    """A stand-in model that finds a red 5 in bright images and nothing in black ones."""
    def script(frame):
        return [Detection("red_5", 0.9, (0, 0, 5, 5))] if frame.mean() > 0 else []

    monkeypatch.setattr(companion.detector, "YoloDetector", lambda *a, **k: FakeDetector(script=script))


def test_eval_photos_cli_json_reports_accuracy_per_class_confusions_and_misses(tmp_path, capsys,
                                                                               reads_everything_as_red_5):
    root = _tree(tmp_path)
    assert cli_main(["eval-photos", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[str(root)]
    assert report["images"] == 9 and report["correct"] == 2 and report["top1"] == round(2 / 9, 4)
    assert report["per_class"] == {"blue_5": 0.0, "red_5": round(2 / 3, 4), "wild": 0.0}
    assert {"true": "blue_5", "predicted": "red_5", "count": 2} in report["worst_confusions"]
    assert report["colour_errors"] == 2  # blue 5 read as red 5: right symbol, wrong colour
    assert sorted(report["no_card_found"]) == sorted(str(root / n / "0.png") for n in ("red_5", "blue_5", "wild"))


def test_eval_photos_cli_plain_text_names_the_figures(tmp_path, capsys, reads_everything_as_red_5):
    root = _tree(tmp_path)
    assert cli_main(["eval-photos", str(root)]) == 0
    out = capsys.readouterr().out
    assert "top-1 22.2% (2/9)" in out and "colour confusions 2" in out and "no card found 3" in out
    assert "blue_5->red_5 x2" in out


def test_eval_photos_errors_writes_contact_sheets_of_the_misses(tmp_path, capsys, reads_everything_as_red_5):
    (tmp_path / "set").mkdir()
    root = _tree(tmp_path / "set", per_class=3)
    assert cli_main(["eval-photos", str(root), "--errors", str(tmp_path / "misses")]) == 0
    sheets = sorted((tmp_path / "misses" / "set").glob("*.png"))
    assert [p.name for p in sheets] == ["misses-01.png"]
    sheet = cv2.imread(str(sheets[0]))
    # 7 misses (2 blue 5s read red, 3 wilds, 2 more black "no card"s) on one row of 6 and one more.
    assert sheet.shape == (2 * 160, 6 * 160, 3)
    assert "7 misses" in capsys.readouterr().err


def test_eval_photos_limit_per_class_is_a_fixed_sample(tmp_path):
    root = _tree(tmp_path, per_class=5)
    first = photo_set(root, limit_per_class=2)
    assert len(first) == 6 and first == photo_set(root, limit_per_class=2)


@pytest.mark.parametrize("make, message", [
    (lambda root: root / "missing", "not a folder"),
    (lambda root: root, "no images"),
])
def test_eval_photos_cli_bad_folder_is_one_line(tmp_path, capsys, make, message):
    assert cli_main(["eval-photos", str(make(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
