"""Files written whole or not at all: a failed write leaves no half file and no leftover."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main as cli


@pytest.mark.parametrize("argv, says", [
    (["simulate", "--hands", "1", "--out", "{folder}"], "cannot write"),
    (["init", "--path", "{folder}", "--force"], "is a folder"),
])
def test_a_command_writing_onto_a_folder_says_so_and_leaves_nothing(tmp_path: Path, capsys, argv, says) -> None:
    folder = tmp_path / "d1"
    folder.mkdir()
    assert cli([a.format(folder=folder) for a in argv]) != 0
    err = capsys.readouterr().err
    assert says in err and err.strip().count("\n") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d1"] and not any(folder.iterdir())


def test_zones_saved_onto_a_folder_leave_no_temporary_file(tmp_path: Path) -> None:
    from companion.errors import InputFileError
    from companion.vision.zones import Zones

    zones = Zones.load(Path(__file__).parent.parent / "companion" / "data" / "demo" / "zones.json")
    (tmp_path / "z").mkdir()
    with pytest.raises(InputFileError, match="cannot write zones file"):
        zones.save(tmp_path / "z")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["z"]
    zones.save(tmp_path / "ok.json")
    assert Zones.load(tmp_path / "ok.json").to_dict() == zones.to_dict()


@pytest.mark.parametrize("argv, says", [
    (["render", "red_5", "--out", "{target}"], "--out {target}"),
    (["eval-photos", "{tmp}", "--errors", "{target}"], "--errors {target}"),
    (["bench-watch", "--videos", "1", "--plays", "1", "--keep", "{target}"], "--keep {target}"),
])
@pytest.mark.parametrize("target", ["{tmp}/bad.jsonl", "{tmp}/bad.jsonl/x", "/proc/x"])
def test_a_folder_that_cannot_be_written_is_one_line_before_any_work(tmp_path: Path, capsys, monkeypatch,
                                                                      argv, says, target) -> None:
    # a traceback (FileNotFoundError, NotADirectoryError, FileExistsError), and for eval-photos
    # only after the whole evaluation had run
    import companion.synth.tablevideo
    import companion.vision.detector

    def no_work(*args, **kwargs):
        raise AssertionError("the work began before the folder was checked")

    monkeypatch.setattr(companion.vision.detector, "YoloDetector", no_work)
    monkeypatch.setattr(companion.synth.tablevideo, "make_video", no_work)
    (tmp_path / "bad.jsonl").write_text("{}\n")
    target = target.format(tmp=tmp_path)
    assert cli([a.format(tmp=tmp_path, target=target) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"uno-companion {argv[0]}: {says.format(target=target)}") and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_eval_photos_errors_folder_is_not_left_behind_by_a_later_mistake(tmp_path: Path, capsys) -> None:
    # the folder is tried before the model loads; a missing model then leaves no empty folder
    assert cli(["eval-photos", "--rendered", "classic", "--errors", str(tmp_path / "misses" / "a"),
                "--model", str(tmp_path / "none.onnx")]) == 2
    assert "card model not found" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
