"""Random self-play: deterministic, legal (no rejected notice on replay), and the CLI command."""
from __future__ import annotations

import collections
import json

import pytest

from companion.cli import main
from companion.referee.engine import replay
from companion.referee.simulate import simulate_games



def _six_hands(sim, table) -> None:
    """Six hands of a simulated table, a new game whenever one ends."""
    sim.new_game()
    for k in range(6):
        if table.waiting_for == "game_over":
            sim.new_game()
        sim.hand(k == 0 or table.state["hand"] == 0)

def test_simulate_is_deterministic_for_a_seed():
    a = list(simulate_games(4, 3, 7))
    b = list(simulate_games(4, 3, 7))
    c = list(simulate_games(4, 3, 8))
    assert a == b and a != c


@pytest.mark.parametrize("players, rules", [
    (2, None), (4, {"stacking": True, "jump_in": True}), (5, {"seven_zero": True}),
    (6, {"deck": "modern", "draw_until_playable": True}), (10, {"deck": "swap"}),
    (3, {"uno_catch": "players", "scoring": "lowest_wins", "target": 100}),
])
def test_simulate_log_replays_without_rejections(players, rules):
    log = list(simulate_games(players, 4, 1, rules))
    table = replay(log)
    state = table.state
    assert not [n for n in state["notices"] if n["kind"] == "rejected"]
    assert len(state["history"]) >= 1 or state["waiting_for"] == "game_over"
    assert state["waiting_for"] in ("deal", "game_over")


@pytest.mark.parametrize("players, rules", [
    (2, None), (4, None), (4, {"stacking": True, "jump_in": True}), (5, {"seven_zero": True}),
    (6, {"deck": "modern", "draw_until_playable": True}), (10, {"deck": "swap"}),
    (3, {"uno_catch": "players", "scoring": "lowest_wins", "target": 100}),
])
def test_simulate_without_mistakes_plays_a_clean_legal_game(players, rules):
    log = list(simulate_games(players, 12, 3, rules, mistakes=False))
    state = replay(log).state
    kinds = collections.Counter(n["kind"] for n in state["notices"])
    for kind in ("rejected", "illegal_play", "uno_penalty", "catch_void", "count_mismatch",
                 "challenge_upheld", "challenge_failed"):
        assert kinds[kind] == 0, kind
    assert kinds["hand_won"] == 12 and kinds["uno_called"] > 0
    types = collections.Counter(ev["type"] for ev in log)
    for kind in ("take_back", "catch", "challenge", "verdict", "reveal"):
        assert types[kind] == 0, kind
    assert types["deal"] == 12 and types["points"] == 12 * (players - 1)
    # a wild's colour rides on its play event
    assert any(ev["type"] == "play" and "color" in ev for ev in log)
    assert list(simulate_games(players, 12, 3, rules, mistakes=False)) == log


def test_simulate_plays_the_requested_number_of_hands():
    log = list(simulate_games(3, 5, 2))
    assert sum(1 for ev in log if ev["type"] == "deal") == 5
    assert log[0] == {"type": "game", "players": ["Ann", "Bob", "Cid"]}


def test_simulate_exercises_the_rules_a_table_gets_wrong():
    log = list(simulate_games(4, 40, 3))
    kinds = collections.Counter(n["kind"] for n in replay(log).state["notices"])
    for kind in ("illegal_play", "uno_called", "uno_penalty", "hand_won", "penalty_draw",
                 "reshuffle"):
        assert kinds[kind] > 0, kind
    assert kinds["challenge_upheld"] + kinds["challenge_failed"] > 0
    types = collections.Counter(ev["type"] for ev in log)
    for kind in ("take_back", "catch", "reveal", "points", "color", "pass"):
        assert types[kind] > 0, kind


def test_simulate_starts_a_new_game_when_one_is_won():
    log = list(simulate_games(2, 6, 5, {"target": 60}))
    assert sum(1 for ev in log if ev["type"] == "game") >= 2
    assert not [n for n in replay(log).state["notices"] if n["kind"] == "rejected"]


def test_simulate_command_writes_json_lines(tmp_path, capsys):
    out = tmp_path / "log.jsonl"
    assert main(["simulate", "--players", "3", "--hands", "2", "--seed", "9", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert [json.loads(x) for x in lines] == list(simulate_games(3, 2, 9))
    assert capsys.readouterr().out == f"wrote {out}: {len(lines)} events, 2 hands\n"  # a word when done
    assert main(["simulate", "--hands", "1", "--seed", "9", "--rules", '{"stacking": true}']) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["rules"] == {"stacking": True}


@pytest.mark.parametrize("args, message", [
    (["--rules", '{"stackin": true}'], "did you mean 'stacking'?"),
    (["--rules", "{oops"], "--rules is not JSON"),
])
def test_simulate_command_bad_rules_are_one_line_errors(args, message, capsys, tmp_path):
    out = tmp_path / "log.jsonl"
    assert main(["simulate", "--out", str(out), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_a_simulate_stopped_by_kill_leaves_no_half_written_log(tmp_path):
    # `kill` (SIGTERM) mid-write: the command stops with 143 and neither the log nor its
    # `.part` is left for a later `import` to take as a whole game.
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "big.jsonl"
    part = tmp_path / "big.jsonl.part"
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "simulate", "--hands", "1000000",
                             "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not part.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert part.exists(), "the log was never begun"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 128 + signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
    assert not part.exists() and not out.exists()
    assert b"Traceback" not in proc.stderr.read()


def test_simulate_command_rejects_bad_player_counts(capsys):
    with pytest.raises(SystemExit) as info:
        main(["simulate", "--players", "11"])
    assert info.value.code == 2


@pytest.mark.parametrize("mistakes", [True, False])
@pytest.mark.parametrize("players, rules", [
    (2, None), (4, {"stacking": True, "jump_in": True, "seven_zero": True}),
    (7, {"deck": "modern", "hand_size": 12}), (10, {"deck": "swap", "swap_cards": 4}),
    (4, {"teams": True, "elimination": 11, "seven_zero": True, "deck": "modern", "multiple_play": True}),
    (5, {"stacking": "cross", "deflect": True, "hand_limit": 10, "no_action_finish": True,
         "no_wild_finish": True, "elimination": 14, "deck": "modern"}),
])
def test_simulate_real_cards_match_what_the_engine_tracks(players, rules, mistakes):
    """Before each draw, pass or call the physical table equals the engine's bookkeeping:
    the same cards on the discard pile, the same draw pile size and hand sizes."""
    from companion.referee.simulate import _Sim

    sim = _Sim(players, 11, rules, mistakes)
    table = sim.table
    real_push = table.push
    checked = 0

    def push(ev):
        nonlocal checked
        if ev.get("type") in ("draw", "pass", "uno") and table.waiting_for == "play":
            assert sim.discard == table._pile
            assert len(sim.draw) == table._draw_pile
            assert [len(h) for h in sim.hands] == table._cards
            checked += 1
        return real_push(ev)

    table.push = push
    _six_hands(sim, table)
    assert checked > 20


@pytest.mark.parametrize("mistakes", [True, False])
@pytest.mark.parametrize("players, seed", [(2, 1), (4, 2), (7, 3)])
def test_simulate_long_runs_never_get_a_rejection(players, seed, mistakes):
    """Hundreds of hands reach the rare corners (a UNO penalty emptying the draw pile just
    before a draw, reshuffles mid-penalty): the simulator raises on any rejected event."""
    tables: list = []
    log = list(simulate_games(players, 500, seed, table=tables, mistakes=mistakes))
    assert sum(1 for ev in log if ev["type"] == "deal") == 500
    assert tables[0].events == log


def test_simulate_illegal_card_taken_back_after_a_reshuffle_keeps_the_pile():
    """Found by hypothesis: an illegal card whose UNO-window penalty reshuffled the draw pile.
    The card it was played on stays on the pile, so the take-back leaves a top card."""
    tables: list = []
    log = list(simulate_games(10, 3, 2103, {"deck": "swap", "swap_cards": 3}, table=tables))
    table = replay(log)
    assert not [n for n in table.state["notices"] if n["kind"] == "rejected"]
    for k in range(len(log)):
        if log[k]["type"] == "take_back":
            assert replay(log[:k + 1]).state["top"] is not None
    assert sum(table._cards) + table._draw_pile + len(table._pile) == table._deck_size


def test_simulate_cli_no_mistakes_writes_a_clean_log(tmp_path):
    from companion.cli import main
    from companion.referee.engine import replay

    out = tmp_path / "clean.jsonl"
    assert main(["simulate", "--players", "3", "--hands", "3", "--seed", "5", "--no-mistakes", "--out", str(out)]) == 0
    state = replay(out.read_text().splitlines()).state
    kinds = {n["kind"] for n in state["notices"]}
    assert "rejected" not in kinds and "illegal_play" not in kinds and "uno_penalty" not in kinds
    assert len(state["history"]) >= 1


def test_simulate_illegal_play_rate_is_the_referees_prior():
    # The referee service weighs the camera's readings with ILLEGAL_PLAY_RATE, measured on
    # the simulator (see its comment); a sample of other hands must agree with it.
    from companion.referee.service import ILLEGAL_PLAY_RATE
    from companion.referee.simulate import illegal_play_rate

    illegal, plays = illegal_play_rate(4, 300, seed=7)
    assert plays > 10_000
    assert abs(illegal / plays - ILLEGAL_PLAY_RATE) < 0.3 * ILLEGAL_PLAY_RATE


HOUSE = {"stacking": "cross", "deflect": True, "multiple_play": True, "no_action_finish": True,
         "no_wild_finish": True, "hand_limit": 12, "elimination": 18, "teams": True,
         "double_score": True, "uno_penalty": 6, "turn_seconds": 30, "jump_in": True,
         "seven_zero": True}


@pytest.mark.parametrize("mistakes", [True, False])
@pytest.mark.parametrize("players, rules", [
    (4, HOUSE), (6, HOUSE), (3, {k: v for k, v in HOUSE.items() if k != "teams"}),
    (2, {"stacking": "cross", "deflect": "reverse", "elimination": 12}),
    (5, {"multiple_play": True, "hand_limit": 9, "draw_until_playable": True}),
])
def test_simulate_plays_with_house_rules_and_replays_clean(players, rules, mistakes):
    log = list(simulate_games(players, 8, 4, rules, mistakes=mistakes))
    state = replay(log).state
    kinds = collections.Counter(n["kind"] for n in state["notices"])
    assert kinds["rejected"] == 0 and kinds["hand_won"] >= 1
    assert all(p["cards"] >= 0 for p in state["players"])


def test_simulate_house_rules_reach_their_corners():
    """Over many hands every house rule's own notice or event shows up (the finish limits
    off: with both on no hand could be won on a draw card, so none would score double)."""
    rules = {k: v for k, v in HOUSE.items() if k not in ("no_action_finish", "no_wild_finish")}
    log = list(simulate_games(4, 120, 9, rules))
    state = replay(log).state
    kinds = collections.Counter(n["kind"] for n in state["notices"])
    assert kinds["deflect"] and kinds["eliminated"] and kinds["rejected"] == 0
    assert any("scores double" in n["message"] for n in state["notices"])
    assert any(ev["type"] == "play" and len(ev.get("cards", ())) > 1 for ev in log)
    assert state["teams"] and sum(t["hands_won"] for t in state["teams"]) >= 1


def test_simulate_cli_house_rules_and_seat_errors(tmp_path, capsys):
    out = tmp_path / "house.jsonl"
    assert main(["simulate", "--players", "4", "--hands", "2", "--seed", "3",
                 "--rules", json.dumps(HOUSE), "--out", str(out)]) == 0
    state = replay(out.read_text().splitlines()).state
    assert not [n for n in state["notices"] if n["kind"] == "rejected"]
    assert main(["simulate", "--players", "5", "--rules", '{"teams": true}']) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("rule teams needs 4 or 6 players (2 vs 2 or 3 vs 3, partners seated "
                        "alternately), not 5") and "\n" not in err
    assert main(["simulate", "--rules", '{"hand_limit": 3}']) == 1
    assert "must be above hand_size" in capsys.readouterr().err


@pytest.mark.parametrize("players, seed, mistakes, rules", [
    # an illegal draw two left standing while the next player sits at the hand limit
    (4, 1058, True, {"jump_in": True, "deflect": True, "uno_penalty": 6, "stacking": True,
                     "hand_limit": 8, "elimination": 23, "deck": "swap", "seven_zero": True,
                     "teams": True}),
    # a seven's chosen target put out of the hand by a penalty the seven itself brought
    (6, 311120, True, {"deflect": "skip", "no_wild_finish": True, "teams": True,
                       "double_score": True, "jump_in": True, "seven_zero": True, "elimination": 11}),
    # a seven whose play put the last opponent out: the hand ends, no swap happens
    (2, 865185, True, {"stacking": "wild_draw_four", "no_wild_finish": True, "seven_zero": True,
                       "draw_until_playable": True, "elimination": 13, "deck": "swap"}),
])
def test_simulate_house_rule_corners_found_by_random_option_sets(players, seed, mistakes, rules):
    log = list(simulate_games(players, 2, seed, rules, mistakes=mistakes))
    assert not [n for n in replay(log).state["notices"] if n["kind"] == "rejected"]


# ------------------------------------------------------------------ themed decks
@pytest.mark.parametrize("mistakes", [True, False])
@pytest.mark.parametrize("players, rules", [
    (4, {"deck": "flip"}),
    (3, {"deck": "flip", "jump_in": True, "multiple_play": True}),
    (5, {"discard_two": 2, "mario_reflect": 2, "dementor": 2}),
    (4, {"discard_two": 1, "mario_reflect": 3, "stacking": True, "deflect": True}),
])
def test_simulate_themed_decks_replay_clean(players, rules, mistakes):
    """A short `simulate --deck flip --hands 200`: Flip games reach the dark side, every
    themed card is played, and the log replays with no rejected notice."""
    tables: list = []
    log = list(simulate_games(players, 40, 5, rules, table=tables, mistakes=mistakes))
    notices = replay(log).state["notices"]
    assert not [n for n in notices if n["kind"] == "rejected"]
    laid = collections.Counter(ev["card"] for ev in log if ev["type"] == "play")
    if rules.get("deck") == "flip":
        turnovers = [ev for ev in log if ev["type"] == "flip" and ev["card"][:4] in
                     ("pink", "teal", "oran", "purp", "dark")]
        assert turnovers and laid["wild_draw_colour"] and laid["wild_draw_two"]
        assert any(c.endswith("skip_everyone") for c in laid)
        assert any(ev["type"] == "draw" and ev.get("count", 1) > 1 for ev in log)
    else:
        assert laid["mario_reflect"] and any(c.endswith("discard_two") for c in laid)
        assert laid.get("dementor", 0) or "dementor" not in rules


@pytest.mark.parametrize("mistakes", [True, False])
def test_simulate_flip_real_cards_match_what_the_engine_tracks(mistakes):
    """Across flips the physical cards (each hand, both piles turned over) still match the
    engine's counts, and the known top of the pile is the real one."""
    from companion.referee.simulate import _Sim

    sim = _Sim(4, 3, {"deck": "flip"}, mistakes)
    table = sim.table
    real_push = table.push
    checked = 0

    def push(ev):
        nonlocal checked
        # (a draw until a colour is counted off the real pile before it is reported)
        if ev.get("type") in ("draw", "pass", "uno") and table.waiting_for == "play" \
                and table._until is None:
            known = table._pile
            assert sim.discard[-len(known):] == known
            assert len(sim.discard) == len(known) + table._hidden
            assert len(sim.draw) == table._draw_pile
            assert [len(h) for h in sim.hands] == table._cards
            assert all(table._in_play(c) for h in sim.hands for c in h)
            checked += 1
        return real_push(ev)

    table.push = push
    _six_hands(sim, table)
    assert checked > 20


def test_simulate_command_deck_flip(tmp_path):
    out = tmp_path / "flip.jsonl"
    assert main(["simulate", "--deck", "flip", "--hands", "3", "--seed", "2", "--out", str(out)]) == 0
    log = [json.loads(x) for x in out.read_text().splitlines()]
    assert log[0]["rules"] == {"deck": "flip"}
    assert not [n for n in replay(log).state["notices"] if n["kind"] == "rejected"]


def test_simulator_calls_no_uno_on_a_window_left_over_by_a_hand_that_grew_again():
    # 2 players, draw until playable: Bob went down to one card and did not call, then drew
    # (a reverse gave him the turn again) and played on; his old window, stale in the engine,
    # made the simulator call UNO for him with four cards, which the engine rightly refused.
    # Hypothesis found seed 126; seeds 14, 60, 205 and 367 failed the same way.
    for seed in (14, 60, 126, 205, 367):
        table: list = []
        log = list(simulate_games(2, 3, seed, {"draw_until_playable": True}, table))
        assert log and table[0].state["hand"] >= 1
