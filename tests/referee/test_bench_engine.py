"""bench-engine: a tiny smoke run (figures come from the command, never from a test)."""
from __future__ import annotations

import importlib.util
import json

import pytest

from companion.referee.bench_engine import CLEAN, CLEAN_ALONE, FULL, FULL_ALONE, RLCARD, compare
from companion.cli import main

HAS_RLCARD = importlib.util.find_spec("rlcard") is not None


def test_bench_engine_ours_only_counts_hands_and_events(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "5", "--repeat", "1", "--no-rlcard", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ratio"] is None and report["ratio_table_mistakes"] is None
    clean, full, clean_alone, full_alone = report["sides"]
    assert [clean["name"], full["name"], clean_alone["name"], full_alone["name"]] == [
        CLEAN, FULL, CLEAN_ALONE, FULL_ALONE]
    for side in report["sides"]:
        assert side["hands_per_s"] > 0 and side["steps_per_hand"] > 10  # a hand is many events
    # The engine alone referees the very same hands: same events, without the dealing.
    assert clean_alone["steps_per_hand"] == clean["steps_per_hand"]
    assert full_alone["steps_per_hand"] == full["steps_per_hand"]


def test_bench_engine_store_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "1", "--repeat", "1", "--no-rlcard", "--store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["referee_store_ms_per_event"] > 0


def test_bench_engine_same_seed_same_events() -> None:
    a, b = compare(2, 7, with_rlcard=False, repeat=1), compare(2, 7, with_rlcard=False, repeat=1)
    assert a[0].rounds[0].steps == b[0].rounds[0].steps


@pytest.mark.skipif(not HAS_RLCARD, reason="rlcard is in the 'bench' extra")
def test_bench_engine_side_by_side_prints_both_figures_and_ratios(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--hands", "3", "--repeat", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    for name in (CLEAN, FULL, RLCARD, CLEAN_ALONE, FULL_ALONE):
        assert name in out
    assert "ratio like for like (no mistakes / rlcard):" in out
    assert "ratio with table mistakes / rlcard:" in out and "engine alone / rlcard:" in out


def test_bench_engine_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--players", "11", "--no-rlcard"]) == 2
    assert capsys.readouterr().err.strip() == "uno-companion bench-engine: --players must be 2 to 10, not 11"
    with pytest.raises(SystemExit) as exc:
        main(["bench-engine", "--hands", "0"])
    assert exc.value.code == 2
