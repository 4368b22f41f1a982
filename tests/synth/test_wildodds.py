"""The colour read's wild odds: the fit behind `colour.WILD_ODDS` and the command that makes it."""
from __future__ import annotations

import numpy as np
import pytest

from companion.synth.wildodds import fit_wild_odds


def _odds(a: float, b: float, share: float, top: float) -> float:
    return float(np.exp(a + b * np.log(1 - top + 1e-4) - np.log(share / (1 - share))))


def test_the_fit_finds_a_sure_colour_speaks_for_a_coloured_card():
    rng = np.random.default_rng(0)
    wild = rng.uniform(0.3, 0.97, 300)  # a wild's four colours: the reader unsure of one
    coloured = 1 - np.exp(rng.uniform(-9, -2.5, 900))  # a number or action: one colour, surely
    a, b, share = fit_wild_odds(np.concatenate([wild, coloured]), np.arange(1200) < 300)
    assert share == pytest.approx(0.25)
    assert _odds(a, b, share, 0.6) > 3 > 1 > 0.3 > _odds(a, b, share, 0.9999)


def test_the_fit_needs_both_kinds_of_box():
    with pytest.raises(ValueError, match="wilds and of coloured cards"):
        fit_wild_odds(np.array([0.99, 0.999]), np.array([False, False]))


def test_train_wild_odds_prints_the_constants_and_trains_nothing(capsys, tmp_path):
    from companion.cli import main as cli_main

    assert cli_main(["train", "--wild-odds", "--images", "6", "--seed", "1", "--work", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out
    assert "boxes on 6 scenes (seed 1)" in out and "WILD_ODDS = (" in out and "WILD_SHARE = " in out
    assert not (tmp_path / "w").exists()
    assert cli_main(["train", "--wild-odds", "--colour"]) == 2
    assert "--wild-odds trains no network" in capsys.readouterr().err
    assert cli_main(["train", "--wild-odds", "--images", "1", "--seed", "2", "--work", str(tmp_path / "w")]) == 2
    assert capsys.readouterr().err.startswith("uno-companion train: --wild-odds: the fit needs boxes of wilds and")
