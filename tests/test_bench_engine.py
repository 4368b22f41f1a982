"""bench-engine: a tiny smoke run (figures come from the command, never from a test)."""
from __future__ import annotations

import importlib.util
import json

import pytest

from companion.bench_engine import compare
from companion.cli import main

HAS_RLCARD = importlib.util.find_spec("rlcard") is not None


def test_bench_engine_ours_only_counts_hands_and_events(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "3", "--repeat", "1", "--no-rlcard", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ratio"] is None
    ours, alone = report["sides"]
    assert ours["hands_per_s"] > 0 and ours["steps_per_hand"] > 10  # a hand is many events
    # The engine alone referees the very same hands: same events, faster without the dealing.
    assert alone["name"] == "uno-companion engine alone"
    assert alone["steps_per_hand"] == ours["steps_per_hand"]


def test_bench_engine_store_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "1", "--repeat", "1", "--no-rlcard", "--store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["referee_store_ms_per_event"] > 0


def test_bench_engine_same_seed_same_events() -> None:
    a, b = compare(2, 7, with_rlcard=False, repeat=1), compare(2, 7, with_rlcard=False, repeat=1)
    assert a[0].rounds[0].steps == b[0].rounds[0].steps


@pytest.mark.skipif(not HAS_RLCARD, reason="rlcard is in the 'bench' extra")
def test_bench_engine_side_by_side_prints_both_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "3", "--repeat", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "uno-companion engine + simulate" in out and "rlcard UnoGame" in out
    assert "ratio (ours / rlcard):" in out and "engine alone / rlcard:" in out


def test_bench_engine_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--players", "11", "--no-rlcard"]) == 1
    assert capsys.readouterr().err.strip() == "uno-companion bench-engine: --players must be 2 to 10, not 11"
    with pytest.raises(SystemExit) as exc:
        main(["bench-engine", "--hands", "0"])
    assert exc.value.code == 2
