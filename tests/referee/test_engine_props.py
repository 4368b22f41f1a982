"""Property tests: random event streams and random self-play against the engine's invariants."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.referee.cards import CARD_NAMES, COLORS
from companion.referee.engine import Table, replay
from companion.referee.simulate import simulate_games

PLAYERS = ["Ann", "Bob", "Cid"]
CARD = st.sampled_from(CARD_NAMES + ("red_55", "blu_3"))
PLAYER = st.sampled_from(PLAYERS + ["Zed"])
COLOR = st.sampled_from(COLORS + ("pink",))
RULES = st.sampled_from([
    {}, {"hand_size": 2}, {"hand_size": 3, "stacking": True, "jump_in": True},
    {"hand_size": 2, "seven_zero": True, "deck": "modern", "draw_until_playable": True},
    {"hand_size": 3, "deck": "swap", "uno_catch": "players", "customizable": "draw_three"},
    {"hand_size": 1, "target": 30, "scoring": "lowest_wins", "first_card": "number_only"},
    {"hand_size": 2, "stacking": "cross", "deflect": True, "multiple_play": True, "jump_in": True},
    {"hand_size": 2, "elimination": 4, "hand_limit": 3, "no_action_finish": True,
     "no_wild_finish": True, "double_score": True, "seven_zero": True, "deck": "modern"},
    {"hand_size": 3, "deflect": "skip", "stacking": "wild_draw_four", "uno_penalty": 7,
     "elimination": 5, "turn_seconds": 20},
])


def _opt(key: str, values: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.just({}), values.map(lambda v: {key: v}))


EVENT = st.one_of(
    CARD.map(lambda c: {"type": "play", "card": c}),
    CARD.map(lambda c: {"type": "play", "card": c}),
    CARD.map(lambda c: {"type": "play", "card": c}),
    st.tuples(CARD, COLOR).map(lambda x: {"type": "play", "card": x[0], "color": x[1]}),
    st.tuples(CARD, PLAYER).map(lambda x: {"type": "play", "card": x[0], "player": x[1]}),
    st.lists(CARD, max_size=3).map(lambda cs: {"type": "play", "cards": cs}),
    _opt("count", st.integers(-1, 4)).map(lambda d: {"type": "draw", **d}),
    st.just({"type": "pass"}),
    COLOR.map(lambda c: {"type": "color", "color": c}),
    PLAYER.map(lambda p: {"type": "target", "player": p}),
    _opt("player", PLAYER).map(lambda d: {"type": "uno", **d}),
    st.tuples(_opt("by", PLAYER), _opt("target", PLAYER)).map(
        lambda x: {"type": "catch", **x[0], **x[1]}),
    st.just({"type": "challenge"}),
    st.tuples(PLAYER, st.lists(CARD, max_size=4)).map(
        lambda x: {"type": "reveal", "player": x[0], "cards": x[1]}),
    st.booleans().map(lambda g: {"type": "verdict", "guilty": g}),
    st.tuples(PLAYER, st.integers(-5, 60)).map(
        lambda x: {"type": "points", "player": x[0], "points": x[1]}),
    st.just({"type": "take_back"}),
    st.just({"type": "undo"}),
    _opt("dealer", PLAYER).map(lambda d: {"type": "deal", **d}),
    CARD.map(lambda c: {"type": "flip", "card": c}),
    st.tuples(st.integers(0, 3), PLAYER, st.integers(0, 200)).map(
        lambda x: {"type": "score_fix", "hand": x[0], "player": x[1], "points": x[2]}),
    st.tuples(st.integers(0, 30), CARD).map(
        lambda x: {"type": "correct", "event": x[0], "card": x[1]}),
    st.sampled_from(["", "{", "[]", '{"type": 3}', '{"type": "pass"}', "null"]),
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _start(rules: dict) -> Table:
    table = Table()
    table.push({"type": "game", "players": PLAYERS, "rules": rules})
    table.push({"type": "deal", "dealer": "Ann"})
    table.push({"type": "flip", "card": "red_5"})
    return table


def _undone(table: Table) -> dict:
    """The state after an undo, less the notices the undo itself leaves (the last): `undone`,
    and a `cards_back` for each player the line made draw."""
    state = table.state
    while state["notices"] and state["notices"][-1]["kind"] == "cards_back":
        assert state["notices"].pop()["event"] == len(table.events) - 1
    note = state["notices"].pop()
    assert note["kind"] == "undone" and note["event"] == len(table.events) - 1, note
    return state


def _conserved(table: Table) -> bool:
    state = table.state
    if state["waiting_for"] == "game":
        return True
    held = sum(p["cards"] for p in state["players"])
    return held + state["draw_pile"] + state["discard_pile"] == table._deck_size


@SETTINGS
@given(RULES, st.lists(EVENT, max_size=60))
def test_engine_random_streams_never_raise_and_rejections_change_nothing(rules, events):
    table = _start(rules)
    for ev in events:
        before = table.state
        notes = table.push(ev)
        after = table.state
        json.dumps(after)
        assert not any(n["message"].startswith("internal error") for n in notes), notes
        if not any(n["kind"] == "count_mismatch" for n in after["notices"]):
            assert _conserved(table)
        if notes and notes[0]["kind"] == "rejected":
            assert len(notes) == 1
            assert after.pop("notices")[:-1] == before.pop("notices")
            assert after == before


@SETTINGS
@given(RULES, st.lists(EVENT, max_size=40))
def test_engine_undo_returns_the_exact_prior_state(rules, events):
    table = _start(rules)
    for ev in events:
        if isinstance(ev, dict) and ev.get("type") == "undo":
            continue
        before = table.state
        notes = table.push(ev)
        if notes and notes[0]["kind"] == "rejected" or not isinstance(ev, dict):
            continue
        table.push({"type": "undo"})
        assert _undone(table) == before
        table.push(ev)  # and again, to go on from there


@SETTINGS
@given(RULES, st.lists(EVENT, max_size=40))
def test_engine_replay_of_the_log_equals_the_live_state(rules, events):
    table = _start(rules)
    for ev in events:
        table.push(ev)
    assert replay(table.events).state == table.state


SIM_RULES = st.sampled_from([
    None, {"stacking": True}, {"jump_in": True, "seven_zero": True},
    {"deck": "modern"}, {"deck": "swap", "swap_cards": 3}, {"draw_until_playable": True},
    {"uno_catch": "players", "uno_penalty": 4, "illegal_play_penalty": 4},
    {"first_card": "number_only", "dealer_by_draw": True, "scoring": "lowest_wins", "target": 150},
    {"hands": 2, "deck": "modern", "customizable": "draw_three", "stacking": "wild_draw_four",
     "dealer_rotation": "counterclockwise", "hand_size": 10},
])


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), st.integers(0, 10**6), SIM_RULES)
def test_simulate_logs_replay_without_rejections_and_conserve_cards(players, seed, rules):
    table = Table()
    size = None
    for ev in simulate_games(players, 3, seed, rules):
        notes = table.push(ev)
        assert not notes or notes[0]["kind"] != "rejected", (ev, notes)
        if table.waiting_for != "game":
            size = sum(table._cards) + table._draw_pile + len(table._pile)
            assert size == table._deck_size
    assert table.state["hand"] >= 1 and size is not None


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), SIM_RULES, st.lists(st.tuples(st.integers(0, 400), EVENT), max_size=25))
def test_engine_stray_events_in_real_games_are_safe(seed, rules, strays):
    """A real game with stray events slipped in: rejections change nothing, undo is exact."""
    log = list(simulate_games(3, 2, seed, rules))
    for pos, ev in sorted(strays, key=lambda x: -x[0]):
        log.insert(min(pos, len(log)), ev)
    table = Table()
    for ev in log:
        before = table.state
        notes = table.push(ev)
        assert not any(n["message"].startswith("internal error") for n in notes), notes
        if notes and notes[0]["kind"] == "rejected":
            after = table.state
            assert after.pop("notices")[:-1] == before.pop("notices")
            assert after == before
        elif isinstance(ev, dict) and ev.get("type") not in ("undo", None) and ev in [s[1] for s in strays]:
            table.push({"type": "undo"})
            assert _undone(table) == before
            table.push(ev)


# Every table option of the rulebook and the house rules, in any combination the engine accepts.
HOUSE_RULES = st.fixed_dictionaries({}, optional={
    "stacking": st.sampled_from([False, True, "draw_two", "wild_draw_four", "cross"]),
    "deflect": st.sampled_from([False, True, "reverse", "skip"]),
    "multiple_play": st.booleans(), "no_action_finish": st.booleans(),
    "no_wild_finish": st.booleans(), "double_score": st.booleans(), "teams": st.booleans(),
    "jump_in": st.booleans(), "seven_zero": st.booleans(), "draw_until_playable": st.booleans(),
    "hand_limit": st.integers(8, 20), "elimination": st.integers(8, 25),
    "uno_penalty": st.integers(1, 10), "turn_seconds": st.integers(5, 600),
    "uno_catch": st.sampled_from(["auto", "players"]),
    "deck": st.sampled_from(["classic", "modern", "swap"]),
})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOUSE_RULES, st.data(), st.integers(0, 10**6), st.booleans())
def test_house_rules_random_legal_games_replay_and_keep_the_invariants(rules, data, seed, mistakes):
    """Random legal logs (the simulator) under random option sets: no rejection, no internal
    error; hand sizes >= 0, cards conserved, the turn a seated player still in the hand; and
    a replay of the log gives the same state."""
    players = data.draw(st.sampled_from([4, 6]) if rules.get("teams") else st.integers(2, 10))
    table = Table()
    log = []
    for ev in simulate_games(players, 2, seed, rules, mistakes=mistakes):
        log.append(ev)
        notes = table.push(ev)
        assert not notes or notes[0]["kind"] != "rejected", (ev, notes)
        assert not any(n["message"].startswith("internal error") for n in notes), notes
        state = table.state
        names = [p["name"] for p in state["players"]]
        assert all(p["cards"] >= 0 for p in state["players"])
        assert state["turn"] is None or (state["turn"] in names and state["turn"] not in state["out"])
        assert set(state["out"]) <= set(names)
        assert _conserved(table)
    assert replay(log).state == table.state
