"""The training recipe, smoke only: data generation and argument checks (no training here)."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from companion.referee.cards import CARD_NAMES
from companion.errors import CompanionError
from companion.synth.train import Recipe, generate
from companion.vision.training_stack import importable

# Training needs the [train] extra (torch, ultralytics); the table's install leaves it out.
needs_train = pytest.mark.skipif(not (importable("torch") and importable("ultralytics")),
                                 reason="the [train] extra is not installed")


@needs_train
def test_train_generate_writes_a_yolo_dataset_once(tmp_path):
    recipe = Recipe(work=tmp_path, images=4, val_images=2, seed=3)
    yaml_path = generate(recipe)
    text = yaml_path.read_text()
    # class index = position in CARD_NAMES, all 57 of them
    assert f"  {len(CARD_NAMES) - 1}: {CARD_NAMES[-1]}" in text and "  0: red_0" in text
    images = sorted((tmp_path / "data" / "images" / "train").glob("*.jpg"))
    labels = sorted((tmp_path / "data" / "labels" / "train").glob("*.txt"))
    assert len(images) == 4 and len(labels) == 4
    assert len(list((tmp_path / "data" / "images" / "val").glob("*.jpg"))) == 2
    for label in labels:
        for line in label.read_text().splitlines():
            cls, *box = line.split()
            assert 0 <= int(cls) < len(CARD_NAMES)
            assert all(0.0 <= float(v) <= 1.0 for v in box)
    # a second call with the same recipe reuses the data instead of regenerating it
    stamp = images[0].stat().st_mtime_ns
    generate(recipe)
    assert images[0].stat().st_mtime_ns == stamp


@pytest.mark.parametrize("flag", ["images", "val_images", "imgsz", "epochs", "batch"])
def test_train_cli_rejects_non_positive_sizes(flag, tmp_path):
    from companion.commands import train as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--work", str(tmp_path)])
    setattr(args, flag, 0)
    with pytest.raises(CompanionError, match=f"--{flag.replace('_', '-')}"):
        command.main(args)
    assert not (tmp_path / "data").exists()  # nothing generated on a bad request


def test_train_defaults_are_offline_friendly():
    recipe = Recipe()
    assert recipe.model.endswith(".yaml")  # built from its yaml: no pretrained download
    assert recipe.device == "cpu"


def _train_command(monkeypatch, trainer: str):
    """`uno-companion train` run on a list of flags, with `trainer` (in synth/train.py) replaced
    by a stand-in that keeps the recipes it is given."""
    from companion.commands import train as command

    seen: list = []
    monkeypatch.setattr(f"companion.synth.train.{trainer}", seen.append)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return (lambda argv: command.main(parser.parse_args(argv))), seen


@needs_train
def test_train_reader_flag_takes_the_readers_recipe_and_the_flags_given(monkeypatch, tmp_path):
    run, seen = _train_command(monkeypatch, "train_reader")
    assert run(["--reader", "--work", str(tmp_path), "--time", "0.2", "--seed", "3"]) == 0
    (recipe,) = seen
    assert recipe.model == "yolo11n-cls.yaml" and recipe.batch == 64  # the reader's own defaults
    assert recipe.hours == 0.2 and recipe.seed == 3 and recipe.work == tmp_path  # the flags given
    assert recipe.composites is not None and recipe.composites.name == "uno-cards-composites"
    assert recipe.light == 0.0  # as the shipped reader was trained
    assert run(["--reader", "--work", str(tmp_path), "--light", "0.5"]) == 0
    assert seen[-1].light == 0.5  # half the scenes under a random camera and light
    assert seen[-1].backs == 0.0
    assert run(["--reader", "--work", str(tmp_path), "--backs", "0.3"]) == 0
    assert seen[-1].backs == 0.3  # three scenes in ten also give a card lying face down
    assert seen[-1].jobs == 0  # the scene folder first, as the shipped readers up to stage 15
    assert run(["--reader", "--work", str(tmp_path), "--jobs", "16"]) == 0
    assert seen[-1].jobs == 16  # scenes drawn in memory on 16 processes
    assert seen[-1].lr0 == 0.002  # as every shipped model
    assert run(["--reader", "--work", str(tmp_path), "--lr0", "0.0005"]) == 0
    assert seen[-1].lr0 == 0.0005  # a gentler continuation of shipped weights


def test_train_cli_refuses_no_processes_and_cutting_composites_that_are_not_there(tmp_path, capsys):
    from companion.commands import train as command
    from companion.errors import UsageError

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    with pytest.raises(UsageError, match="--jobs must be at least 1"):
        command.main(parser.parse_args(["--reader", "--jobs", "0"]))
    with pytest.raises(UsageError, match="no composites at"):
        command.main(parser.parse_args(["--reader", "--composites", str(tmp_path), "--cut-composites", str(tmp_path / "out")]))
    assert not (tmp_path / "out").exists()


def test_a_card_lying_face_down_is_cut_as_no_card(tmp_path):
    # A back read as a wild was played: the reader's "none" crops carry backs, turned any way,
    # the size of the scene's cards, on the scene's own table.
    import random

    import cv2
    import numpy as np

    from companion.synth.cardcrops import scene_crops
    from companion.synth.render import render_back
    from companion.vision.crops import NONE

    back = render_back(200, random.Random(1))
    assert back.shape[:2] == (200, 129) and back[100, 64, 3] == 255
    middle = back[60:140, 30:100, :3].reshape(-1, 3).astype(int)
    assert (middle[:, 2] > 150).mean() > 0.3 and (middle[:, 0] > 150).mean() < 0.2  # red and yellow, no blue
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((480, 640, 3), (60, 110, 40), np.uint8))
    (tmp_path / "labels" / "a.txt").write_text("0 0.5 0.5 0.15 0.3\n")
    crops = list(scene_crops(tmp_path / "images", tmp_path / "labels", random.Random(3), negatives=0.0,
                             close_ups=0.0, corners=0.0, backs=1.0))
    assert [name for name, _ in crops][-1] == NONE and len(crops) == 2
    face_down = crops[-1][1]
    assert (face_down[:, :, 2] > 150).mean() > 0.05  # the back's red oval shows in it
    assert list(scene_crops(tmp_path / "images", tmp_path / "labels", random.Random(3), negatives=0.0,
                            close_ups=0.0, corners=0.0))[-1][0] != NONE  # none without backs


@pytest.mark.parametrize("argv", [["--light", "0.5"], ["--reader", "--light", "1.5"], ["--colour", "--light", "0.2"],
                                  ["--backs", "0.3"], ["--reader", "--backs", "2"], ["--lr0", "0.001"],
                                  ["--reader", "--lr0", "0"], ["--reader", "--teal-share", "0.5"],
                                  ["--colour", "--teal-share", "1.5"], ["--colour", "--teal-max", "-3"]])
def test_train_cli_refuses_light_outside_the_reader_or_a_share(argv, tmp_path):
    from companion.commands import train as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    with pytest.raises(CompanionError, match=argv[-2]):
        command.main(parser.parse_args(["--work", str(tmp_path), *argv]))
    assert not (tmp_path / "data").exists()


def test_colour_crops_are_written_one_folder_per_colour(tmp_path):
    from companion.synth.colourcrops import write_colour_dataset
    from companion.vision.crops import COLOUR_CLASSES, COLOUR_SIZE

    import cv2

    out = write_colour_dataset(tmp_path / "colour", scenes=6, seed=3)
    files = sorted(out.glob("*/*/*.jpg"))
    assert files and {f.parent.name for f in files} <= set(COLOUR_CLASSES)
    assert {f.parent.parent.name for f in files} <= {"train", "val"}
    assert cv2.imread(str(files[0])).shape == (COLOUR_SIZE, COLOUR_SIZE, 3)


@needs_train
def test_train_colour_flag_takes_stage_3s_teal_greens_unless_told(monkeypatch, tmp_path):
    run, seen = _train_command(monkeypatch, "train_colour")
    assert run(["--colour", "--work", str(tmp_path)]) == 0
    assert (seen[-1].teal_share, seen[-1].teal_max) == (0.3, 24.0)  # as the shipped stage 3
    assert run(["--colour", "--work", str(tmp_path), "--teal-share", "0.5", "--teal-max", "32"]) == 0
    assert (seen[-1].teal_share, seen[-1].teal_max) == (0.5, 32.0)


def test_colour_crops_print_green_bluer_in_the_share_of_scenes_asked(tmp_path):
    # Every scene's green pulled towards teal by up to 40 degrees against by none: the same
    # scenes under the same lights (the same seed), the green crops' hue moves up, red stays.
    import cv2
    import numpy as np

    from companion.synth.colourcrops import write_colour_dataset

    def hues(out, colour):
        pics = [cv2.imread(str(f)) for f in sorted((out / "train" / colour).glob("*.jpg"))]
        hsv = np.concatenate([cv2.cvtColor(p, cv2.COLOR_BGR2HSV).reshape(-1, 3) for p in pics])
        return float(np.median(hsv[hsv[:, 1] > 90][:, 0]))

    plain = write_colour_dataset(tmp_path / "plain", scenes=8, seed=5, teal_share=1.0, teal_max=0)
    teal = write_colour_dataset(tmp_path / "teal", scenes=8, seed=5, teal_share=1.0, teal_max=40)
    assert hues(teal, "green") > hues(plain, "green") + 4
    assert hues(teal, "red") == hues(plain, "red")


@needs_train
def test_train_themed_flag_takes_the_themed_readers_recipe(monkeypatch, tmp_path):
    from companion.synth.train import READER_WEIGHTS

    run, seen = _train_command(monkeypatch, "train_themed")
    assert run(["--themed", "--work", str(tmp_path), "--images", "500", "--seed", "2"]) == 0
    (recipe,) = seen
    assert recipe.model == str(READER_WEIGHTS)  # it starts from the card reader's weights
    assert recipe.images == 500 and recipe.seed == 2 and recipe.work == tmp_path


@pytest.mark.parametrize("argv", [["--themed", "--reader"], ["--themed", "--colour"]])
def test_train_cli_trains_one_model_at_a_time(argv, tmp_path):
    from companion.commands import train as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    with pytest.raises(CompanionError, match="choose one"):
        command.main(parser.parse_args(["--work", str(tmp_path), *argv]))


def test_themed_crops_name_themed_cards_whole_and_classic_faces_classic(tmp_path):
    from companion.synth.themedcrops import write_themed_dataset
    from companion.vision.crops import CLASSIC, READER_SIZE, THEMED_CLASSES

    import cv2

    out = write_themed_dataset(tmp_path / "themed", scenes=30, seed=3, variants=1)
    files = sorted(out.glob("*/*/*.jpg"))
    labels = {f.parent.name for f in files}
    assert labels <= set(THEMED_CLASSES) and CLASSIC in labels
    assert any(name.startswith(("pink_", "teal_", "orange_", "purple_")) for name in labels)  # the dark side
    assert cv2.imread(str(files[0])).shape == (READER_SIZE, READER_SIZE, 3)


def _shifted_copy(source, dest, by: float) -> None:
    """`source`'s checkpoint with every weight moved by `by`: a stand-in for a continued run."""
    import torch

    ckpt = torch.load(source, map_location="cpu", weights_only=False)
    with torch.no_grad():
        for v in ckpt["model"].state_dict().values():
            if v.is_floating_point():
                v += by
    torch.save(ckpt, dest)


@needs_train
def test_average_writes_the_mean_of_two_runs_of_one_network_as_the_readers_weights(monkeypatch, tmp_path):
    # `train --reader --average A B` trains nothing: the reader's weights become A and B's mean,
    # exported for the table, and the mean reads crops like the network it came from.
    import torch

    from companion.synth import train as recipes

    start = recipes.READER_WEIGHTS
    _shifted_copy(start, tmp_path / "up.pt", 0.25)
    _shifted_copy(start, tmp_path / "down.pt", -0.25)
    monkeypatch.setattr(recipes, "READER_WEIGHTS", tmp_path / "models" / "reader.pt")
    exported: list = []
    monkeypatch.setattr(recipes, "export_onnx", lambda w: exported.append(w) or w.with_suffix(".onnx"))
    run, _ = _train_command(monkeypatch, "train_reader")
    assert run(["--reader", "--average", str(tmp_path / "up.pt"), str(tmp_path / "down.pt"), "--install"]) == 0
    assert exported == [tmp_path / "models" / "reader.pt"]
    assert run(["--reader", "--average", str(tmp_path / "up.pt"), str(tmp_path / "down.pt"),
                "--work", str(tmp_path / "work")]) == 0  # without --install: beside the work
    assert exported[-1] == tmp_path / "work" / "reader.pt"
    mean = torch.load(exported[0], map_location="cpu", weights_only=False)["model"].state_dict()
    shipped = torch.load(start, map_location="cpu", weights_only=False)["model"].state_dict()
    assert mean.keys() == shipped.keys()
    for k, v in shipped.items():
        if v.is_floating_point():  # +0.25 and -0.25 average back to the start (in half precision)
            assert torch.allclose(mean[k].float(), v.float(), rtol=1e-2, atol=2e-3), k


@needs_train
def test_average_refuses_what_cannot_be_averaged_and_writes_nothing(tmp_path):
    from companion.synth import train as recipes

    out = tmp_path / "mean.pt"
    (tmp_path / "notes.pt").write_text("not weights")
    cases = [([recipes.READER_WEIGHTS], "two or more"),
             ([recipes.READER_WEIGHTS, tmp_path / "missing.pt"], "no weights file at"),
             ([recipes.READER_WEIGHTS, tmp_path / "notes.pt"], "not an ultralytics weights file"),
             ([recipes.READER_WEIGHTS, recipes.COLOUR_WEIGHTS], "not the same network")]
    for sources, message in cases:
        with pytest.raises(CompanionError, match=message):
            recipes.average_weights(sources, out)
        assert not out.exists()


@pytest.mark.parametrize("argv, says", [
    (["--time", "-1"], "--time is hours to train, more than 0 (or 0 to count --epochs), not -1"),
    (["--reader", "--time", "-0.5"], "--time is hours to train, more than 0 (or 0 to count --epochs), not -0.5"),
    (["--workers", "-1"], "--workers must be 0 or more, not -1"),
    (["--reader", "--composites", "{tmp}/none"],
     "--composites {tmp}/none: no such folder (the composites, or the crops --cut-composites wrote)"),
    (["--colour", "--composites", "{tmp}"], "--composites goes with --reader (or --cut-composites)"),
])
def test_train_cli_refuses_bad_values_in_one_line_before_generating(argv, says, tmp_path, capsys, monkeypatch):
    # `train --time -1` started generating; `--reader --composites MISSING` printed a note and
    # trained on synthetic crops alone
    from companion.cli import main as cli_main

    def no_training(*args, **kwargs):
        raise AssertionError("training began")

    for trainer in ("train", "train_reader", "train_colour", "train_themed", "generate"):
        monkeypatch.setattr(f"companion.synth.train.{trainer}", no_training)
    work = tmp_path / "work"
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert cli_main(["train", *argv, "--work", str(work)]) == 2
    assert capsys.readouterr().err == f"uno-companion train: {says.format(tmp=tmp_path)}\n"
    assert not work.exists()


def test_trained_weights_stay_in_the_work_folder_unless_installed(monkeypatch, tmp_path):
    # a one-epoch trial run copied its weights over the shipped models/uno-cards.pt: the table
    # then read no card at all
    import sys
    import types

    from companion.synth import train as recipes

    class FakeYolo:
        def __init__(self, *_: object, **__: object) -> None:
            pass

        def train(self, project: str, name: str, **_: object) -> None:
            best = Path(project) / name / "weights" / "best.pt"
            best.parent.mkdir(parents=True, exist_ok=True)
            best.write_bytes(b"trial")

    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=FakeYolo))
    monkeypatch.setattr(recipes, "export_onnx", lambda w, imgsz=None: w.with_suffix(".onnx"))
    monkeypatch.setattr(recipes, "_use_every_core", lambda: None)
    monkeypatch.setattr(recipes, "_no_polars_needed", lambda: None)
    shipped = tmp_path / "models" / "uno-cards.pt"
    shipped.parent.mkdir()
    shipped.write_bytes(b"shipped")
    trial = recipes.Recipe(work=tmp_path / "work", epochs=1)
    assert recipes._fit(trial, "detect", tmp_path / "data.yaml", 64, "uno-cards", shipped, {}) == tmp_path / "work" / "uno-cards.pt"
    assert shipped.read_bytes() == b"shipped"
    installed = recipes.Recipe(work=tmp_path / "work", epochs=1, install=True)
    assert recipes._fit(installed, "detect", tmp_path / "data.yaml", 64, "uno-cards", shipped, {}) == shipped
    assert shipped.read_bytes() == b"trial"
