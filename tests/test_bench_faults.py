"""`uno-companion bench-faults` on a small scale: the counts it exists to show come out zero."""
from __future__ import annotations

import json

import pytest

from companion.cli import main as cli


@pytest.mark.slow
def test_bench_faults_small_run_loses_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    cli(["bench-faults", "--phones", "3", "--kills", "2", "--hostile", "60", "--streams", "12",
         "--minutes", "0.1", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["acknowledged"] > 0 and result["companion_starts"] == 3
    assert result["lost"] == 0 and result["duplicates"] == 0 and result["refused_but_stored"] == 0
    assert result["stored_but_never_answered"] == 0
    assert result["phone_5xx_other_than_disk_full"] == 0 and result["hostile_5xx"] == 0
    assert result["state_changes_from_rejected"] == 0
    assert result["host_login_while_guesser_refused"]["host"] == 200
    assert result["host_login_while_guesser_refused"]["guesser_with_right_pin"] == 429
    assert result["streams_open"] == 12 and result["clean_stop_exit_code"] == 0


@pytest.mark.parametrize("flag,value", [("--phones", "11"), ("--kills", "51"), ("--streams", "501"), ("--minutes", "31")])
def test_bench_faults_is_bounded(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["bench-faults", flag, value]) == 2
    assert "must be from" in capsys.readouterr().err
