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
