"""The `uno-companion` entry point: what its exit status tells a script (README, "Every command exits")."""
from __future__ import annotations

import pytest

from companion.cli import main


@pytest.mark.parametrize("argv, status", [
    (["render", "red_55"], 1),                                   # a bad value: a card that does not exist
    (["simulate", "--rules", '{"stackin": true}'], 1),           # a rule that does not exist
    (["render", "--height", "5"], 2),                            # a command line that does not fit
    (["run", "--status-every", "0"], 2),
    (["make-video", "--noise", "-1", "v.mp4"], 2),
    (["eval-photos", "--per-card", "0", "--rendered", "classic"], 2),
    (["replay", "no-such-log.jsonl"], 2),                        # a file that cannot be read
    (["no-such-command"], 2),
])
def test_exit_status_says_what_kind_of_mistake(argv, status, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
