"""The `recognize` command as a user runs it: JSON shape, readable lines, errors, exit codes."""
import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

import companion.vision.detector
from companion.cli import main as cli_main
from companion.vision.detector import Detection, FakeDetector


@pytest.fixture
def fake_model(monkeypatch):
    """The CLI's YoloDetector replaced by a double that sees a red 5 and a faint blue 7."""
    fake = FakeDetector([Detection("blue_7", 0.31, (5, 6, 7, 8)), Detection("red_5", 0.97, (1, 2, 3, 4))])
    monkeypatch.setattr(companion.vision.detector, "YoloDetector", lambda *a, **k: fake)
    return fake


def _image(tmp_path, name="card.png"):
    path = tmp_path / name
    cv2.imwrite(str(path), np.zeros((24, 32, 3), np.uint8))
    return str(path)


def test_recognize_cli_json_is_one_object_per_image_cards_best_first(tmp_path, capsys, fake_model):
    good = _image(tmp_path)
    corrupt = tmp_path / "broken.jpg"
    corrupt.write_bytes(b"garbage")
    assert cli_main(["recognize", "--json", good, str(corrupt)]) == 2  # every picture read, one unusable
    out = json.loads(capsys.readouterr().out)
    assert out == [
        {"image": good, "cards": [
            {"card": "red_5", "confidence": 0.97, "box": [1.0, 2.0, 3.0, 4.0]},
            {"card": "blue_7", "confidence": 0.31, "box": [5.0, 6.0, 7.0, 8.0]},
        ]},
        {"image": str(corrupt), "error": "not a readable image"},
    ]


def test_recognize_cli_plain_prints_a_line_per_image(tmp_path, capsys, fake_model):
    good = _image(tmp_path)
    assert cli_main(["recognize", good, str(tmp_path / "gone.png")]) == 2
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"{good}: red_5 (0.97), blue_7 (0.31)"]
    assert out.err.splitlines() == [f"{tmp_path / 'gone.png'}: error: no such file"]  # errors apart


def test_recognize_cli_says_why_a_black_and_white_picture_names_no_card(tmp_path, capsys, monkeypatch):
    class Grey(FakeDetector):
        def detect(self, frame):
            self.colourless = 1 if frame.std(axis=2).max() == 0 else 0  # a card seen, its colour not
            return [] if self.colourless else super().detect(frame)

    monkeypatch.setattr(companion.vision.detector, "YoloDetector", lambda *a, **k: Grey([Detection("red_5", 0.97, (1, 2, 3, 4))]))
    grey = _image(tmp_path)
    colour = str(tmp_path / "colour.png")
    cv2.imwrite(colour, np.full((24, 32, 3), (0, 0, 200), np.uint8))
    assert cli_main(["recognize", grey, colour]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{grey}: no card found: what looks like a card shows no colour (a black-and-white picture?), "
        "and a card's colour cannot be read from it",
        f"{colour}: red_5 (0.97)"]
    assert cli_main(["recognize", "--json", grey]) == 0
    assert json.loads(capsys.readouterr().out) == [{"image": grey, "cards": [], "colourless": 1}]


def test_recognize_cli_fails_when_any_image_failed_but_reads_the_rest(tmp_path, capsys, fake_model):
    assert cli_main(["recognize", "--json", str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg")]) == 2
    assert [e["error"] for e in json.loads(capsys.readouterr().out)] == ["no such file"] * 2
    # README: a file that cannot be used exits 2; it exited 0 when another picture was read
    good = _image(tmp_path)
    assert cli_main(["recognize", str(tmp_path / "gone.jpg"), good]) == 2
    out = capsys.readouterr()
    assert out.out == f"{good}: red_5 (0.97), blue_7 (0.31)\n"  # the rest still read
    assert out.err == f"{tmp_path / 'gone.jpg'}: error: no such file\n"
    assert cli_main(["recognize", good]) == 0


def test_recognize_cli_missing_model_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "companion.cli", "recognize", "--model",
                        str(tmp_path / "none.pt"), _image(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().count("\n") == 0 and "card model not found" in r.stderr


@pytest.mark.parametrize("name, option, words", [
    ("bad.onnx", "--model", "not an ONNX model"), ("bad.pt", "--model", "not ultralytics weights"),
    ("bad.jpg", "--model", "weights are a .onnx or .pt file"), ("bad.onnx", "--reader", "not an ONNX model")])
def test_recognize_cli_a_damaged_model_file_is_one_line(tmp_path, capsys, name, option, words):
    (tmp_path / name).write_bytes(np.random.default_rng(0).bytes(1000))
    assert cli_main(["recognize", option, str(tmp_path / name), _image(tmp_path)]) == 2  # a file: 2, as a missing one
    err = capsys.readouterr().err
    assert words in err and err.strip().count("\n") == 0


@pytest.mark.parametrize("option, name, words", [
    ("--model", "bad.jsonl", "cannot load {path}: weights are a .onnx or .pt file"),
    ("--model", "folder", "cannot load {path}: not a file"),
    ("--model", "none.onnx", "card model not found: {path}"),
    ("--reader", "none.onnx", "card reader not found: {path}"),
    ("--reader", "bad.jsonl", "cannot load {path}: weights are a .onnx or .pt file"),
])
def test_recognize_cli_an_unusable_model_file_exits_2_before_ultralytics(tmp_path, option, name, words):
    # --model bad.jsonl printed ultralytics' three-line settings banner and wrote its settings
    # file before failing, exit 1; --model FOLDER and --reader MISSING exited 1 too
    (tmp_path / "bad.jsonl").write_text("{}\n")
    (tmp_path / "folder").mkdir()
    path = tmp_path / name
    env = dict(__import__("os").environ, HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"))
    env.pop("YOLO_CONFIG_DIR", None)
    r = subprocess.run([sys.executable, "-m", "companion.cli", "recognize", option, str(path), _image(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("uno-companion recognize: " + words.format(path=path)) and r.stderr.count("\n") == 1
    assert not (tmp_path / "home" / ".config" / "Ultralytics").exists()  # no settings.json written


@pytest.mark.parametrize("argv, says", [
    (["--conf", "5"], "--conf must be between 0 and 1, not 5"),
    (["--reader", "x.onnx", "--no-reader"], "--reader and --no-reader cannot go together: give one"),
])
@pytest.mark.parametrize("command", ["recognize", "eval-photos"])
def test_recognize_and_eval_photos_refuse_the_same_bad_options(tmp_path, capsys, fake_model, command, argv, says):
    # eval-photos --conf 5 ran and printed 0 %; --reader X --no-reader read without the reader
    assert cli_main([command, _image(tmp_path) if command == "recognize" else str(tmp_path), *argv]) == 2
    assert capsys.readouterr().err == f"uno-companion {command}: {says}\n"


def test_recognize_lists_one_card_once():
    # set-a's red 5 photo was listed "red_5 (1.00), red_5 (0.63)": a second box, 67 % inside
    from companion.commands.recognize import one_box_each
    from companion.vision.detector import Detection

    card = Detection("red_5", 1.0, (100, 100, 200, 250))
    second = Detection("red_5", 0.63, (110, 120, 230, 270))
    beside = Detection("red_5", 0.7, (300, 100, 400, 250))  # its twin beside it: two cards
    other = Detection("blue_5", 0.6, (105, 105, 200, 250))  # another name: left to the reader
    assert one_box_each([second, card, beside, other]) == [card, beside, other]
    # two surely read twins fanned close are two
    sure = Detection("red_5", 0.95, (110, 120, 230, 270))
    assert one_box_each([card, sure]) == [card, sure]
