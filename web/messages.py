"""What the referee says, as catalogue keys for people: `{"k": key, "a": {args}}`.

The engine is pure and speaks one language (its `message`, English, also for logs and
tests). The page speaks the table's language, so each notice and each refusal is turned
here into a catalogue key and its arguments (player names, numbers, card names), read off
the engine's message by one pattern per kind. A message no pattern knows gets a plain
fallback key, never the engine's words alone; tests run every kind through the engine so a
changed message shows up as a failing test, not as developer words on a phone.
"""
from __future__ import annotations

import re
from typing import Any

from companion.referee.engine import WAITING_WORDS

Say = dict[str, Any]

_CARD = r"([a-z0-9_]+)"
_NAME = r"(.+?)"

# After "<player> ": the penalty reasons of the engine's _penalty(), each with its key.
_PENALTIES: tuple[tuple[str, str], ...] = (
    ("did not call UNO", "notice.uno_penalty"),
    ("was caught without calling UNO", "notice.uno_caught"),
    ("is hit by the customizable card", "notice.hit_custom"),
    ("is hit by the first card's draw two", "notice.hit_first_d2"),
    ("is hit by a draw two", "notice.hit_d2"),
    ("is hit by a draw one", "notice.hit_d1"),
    ("is hit by a draw five", "notice.hit_d5"),
    ("is hit by the first card's draw one", "notice.hit_first_d1"),
    ("challenged an honest wild draw two", "notice.challenge_failed_d2"),
    ("takes the pending cards and loses the turn", "notice.took_pending"),
    ("is sent the pending cards", "notice.sent_pending"),
    ("is hit by the last card", "notice.hit_last"),
    ("held a playable colour: challenge upheld", "notice.challenge_upheld"),
    ("challenged an honest wild draw four", "notice.challenge_failed"),
)
_TOOK_BACK = re.compile(rf"took back {_CARD}")
# themed cards: a reflect card's sender, a draw until a colour (Wild Draw Colour, Dementor)
_REFLECT = re.compile(rf"is sent back the (\d+) cards by {_NAME}'s reflect card")
_DREW_UNTIL = re.compile(r"drew (\d+) until an? (\w+) card")
_UPHELD_UNTIL = re.compile(r"held a playable colour: challenge upheld: draws until an? (\w+) card")
_FAILED_UNTIL = re.compile(r"challenged an honest wild draw colour \(and draws until an? (\w+) card\)")
_DRAWS = re.compile(r": draws (\d+)(?: \(only (\d+) left\))?$")

_NOTICES: dict[str, tuple[re.Pattern[str], str, tuple[str, ...]]] = {
    "reading": (re.compile(rf"^read as .*: {_CARD} fits the table$"), "notice.reading", ("card",)),
    "reshuffle": (re.compile(r"^draw pile empty"), "notice.reshuffle", ()),
    "card_returned": (re.compile(rf"^{_CARD} cannot start the pile"), "notice.card_returned", ("card",)),
    "uno_called": (re.compile(rf"^{_NAME} called UNO!$"), "notice.uno_called", ("player",)),
    "deflect": (re.compile(rf"^{_NAME} sends the (\d+) pending cards on to {_NAME}$"), "notice.deflect",
                ("by", "n", "player")),
    "eliminated": (re.compile(rf"^{_NAME} holds (\d+) cards \(elimination"), "notice.eliminated", ("player", "n")),
    "count_mismatch": (re.compile(rf"^{_NAME} shows (\d+) cards?, tracked (\d+)"), "notice.count_mismatch",
                       ("player", "shown", "n")),
    "corrected": (re.compile(rf"^event \d+ corrected to {_CARD}$"), "notice.corrected", ("card",)),
    "jumped_in": (re.compile(rf"^{_NAME} jumped in with {_CARD}$"), "notice.jumped_in", ("player", "card")),
    "hands_swapped": (re.compile(rf"^{_NAME} swaps hands with {_NAME}$"), "notice.hands_swapped", ("player", "other")),
    "hands_shuffled": (re.compile(r"^every hand is gathered"), "notice.hands_shuffled", ()),
    "joined": (re.compile(rf"^{_NAME} joins the game with 0 points$"), "notice.joined", ("player",)),
    "left": (re.compile(rf"^{_NAME} leaves the game with (-?\d+) points$"), "notice.left", ("player", "n")),
}


def _until(key: str, args: dict[str, Any], colour: str) -> Say:
    """A draw until a colour, or until a Gryffindor card (Dementor): its own words."""
    if colour.lower() == "gryffindor":  # the engine writes "a Gryffindor card"
        return {"k": key + "_gryffindor", "a": args}
    return {"k": key, "a": {**args, "color": colour}}


def notice_say(notice: dict) -> Say:
    """The catalogue key and arguments for one engine notice (see table-log.md's kinds)."""
    kind = str(notice.get("kind") or "")
    message = str(notice.get("message") or "")
    player = notice.get("player")
    if kind == "rejected":
        return error_say(message)
    if kind in ("uno_penalty", "penalty_draw", "challenge_upheld", "challenge_failed", "reflect"):
        rest = message[len(player) + 1:] if isinstance(player, str) and message.startswith(player + " ") else message
        drawn = _DRAWS.search(rest)
        reason = rest[: drawn.start()] if drawn else rest
        args: dict[str, Any] = {"player": player, "n": int(drawn.group(1)) if drawn else 0}
        for text, key in _PENALTIES:
            if reason == text:
                return {"k": key, "a": args}
        took = _TOOK_BACK.fullmatch(reason)
        if took:
            return {"k": "notice.took_back", "a": {**args, "card": took.group(1)}}
        m = _REFLECT.fullmatch(reason)
        if m:
            return {"k": "notice.reflect", "a": {**args, "by": m.group(2)}}
        m = _DREW_UNTIL.fullmatch(reason)
        if m:
            return _until("notice.drew_until", {"player": player, "n": int(m.group(1))}, m.group(2))
        m = _UPHELD_UNTIL.fullmatch(reason)
        if m:
            return _until("notice.upheld_until", {"player": player}, m.group(1))
        m = _FAILED_UNTIL.fullmatch(reason)
        if m:
            return _until("notice.failed_until", args, m.group(1))
        return {"k": "notice.draws", "a": args}
    if kind == "illegal_play":
        m = re.match(rf"^{_NAME} cannot go out on (.+) \((.+)\): take it back and draw (\d+)$", message)
        if m:
            return {"k": "notice.illegal_out", "a": {"player": m.group(1), "cards": m.group(2).split(", "),
                                                      "n": int(m.group(4))}}
        m = re.match(rf"^{_NAME} cannot play (.+) on {_CARD} \((\w+)\): take it back and draw (\d+)$", message)
        if m:
            return {"k": "notice.illegal_play", "a": {"player": m.group(1), "cards": m.group(2).split(", "),
                                                       "top": m.group(3), "color": m.group(4), "n": int(m.group(5))}}
        return {"k": "notice.illegal_any", "a": {"player": player}}
    if kind == "illegal_stands":
        m = re.match(rf"^{_NAME}'s {_CARD} stands", message)
        return {"k": "notice.illegal_stands", "a": {"player": player, "card": m.group(2) if m else ""}}
    if kind == "hand_won":
        m = re.match(rf"^{_NAME} wins hand (\d+)(.*)$", message)
        if m:
            how = m.group(3)
            key = ("notice.hand_won_last" if how.startswith(" as the last")
                   else "notice.hand_won_double" if "double" in how else "notice.hand_won")
            return {"k": key, "a": {"player": m.group(1), "n": int(m.group(2))}}
    if kind == "undone":
        m = re.match(rf"^event \d+ undone: (\w+)(?: {_CARD})?(?: by (.+))?$", message)
        kind_of, card, who = m.groups() if m else ("", None, None)
        keys = {"play": "notice.undone_play", "flip": "notice.undone_flip", "draw": "notice.undone_draw",
                "points": "notice.undone_points"}
        if kind_of == "game":  # the host's New game taken back: the game before it is on the table again
            return {"k": "notice.undone_game", "a": {}}
        if kind_of == "seats":  # the seat order (and who joined or left) as it was
            return {"k": "notice.undone_seats", "a": {}}
        if kind_of == "verdict":  # the host's verdict taken back: the challenge is open again
            return {"k": "notice.undone_verdict", "a": {}}
        if kind_of == "deal":  # the hand not begun after all: the cards dealt are gathered again
            return {"k": "notice.undone_deal", "a": {}}
        if kind_of in keys and (card or kind_of not in ("play", "flip")) and (who or kind_of == "flip"):
            return {"k": keys[kind_of], "a": {"player": who, "card": card or ""}}
        if who:
            return {"k": "notice.undone_by", "a": {"player": who}}
        return {"k": "notice.undone", "a": {}}
    if kind == "cards_back":
        m = re.match(rf"^{_NAME} puts (\d+) cards? back on the draw pile$", message)
        if m:
            return {"k": "notice.cards_back", "a": {"player": m.group(1), "n": int(m.group(2))}}
    if kind == "score_fixed":
        m = re.match(rf"^hand (\d+) fixed: {_NAME} (\d+) points(: the game goes on)?$", message)
        if m:
            key = "notice.score_fixed_on" if m.group(4) else "notice.score_fixed"
            return {"k": key, "a": {"player": m.group(2), "hand": int(m.group(1)), "n": int(m.group(3))}}
    if kind == "corrected":  # who really laid a card (a jump-in the camera gave the player on turn)
        m = re.match(rf"^event \d+ corrected: {_CARD} laid by {_NAME}$", message)
        if m:
            return {"k": "notice.corrected_by", "a": {"card": m.group(1), "player": m.group(2)}}
    if kind == "hands_passed":  # seven_zero's 0, which way
        return {"k": "notice.hands_passed_ccw" if "counterclockwise" in message else "notice.hands_passed",
                "a": {"player": player}}
    if kind == "catch_void":
        if player is None:
            return {"k": "notice.catch_nobody", "a": {}}
        return {"k": "notice.catch_void", "a": {"player": player}}
    if kind == "game_won":  # a team wins in the plural ("Ann & Cat win"): its own words
        m = re.match(rf"^{_NAME} (wins?) the game with (-?\d+) points$", message)
        if m:
            return {"k": "notice.game_won" if m.group(2) == "wins" else "notice.game_won_team",
                    "a": {"player": m.group(1), "n": int(m.group(3))}}
        m = re.match(r"^(.+) share the win with (-?\d+) points$", message)
        if m:
            return {"k": "notice.game_shared", "a": {"player": " · ".join(m.group(1).split(" and ")), "n": int(m.group(2))}}
    if kind == "tie_break":  # what parted two sides level on points
        m = re.match(rf"^{_NAME} and {_NAME} are level on (-?\d+) points: first place to .+?, (.+)$", message)
        if m:
            how = m.group(4)
            key = ("notice.tie_hands" if "hands won" in how else "notice.tie_cards" if "cards left" in how
                   else "notice.tie_draw")
            return {"k": key, "a": {"player": m.group(1), "other": m.group(2), "n": int(m.group(3))}}
    found = _NOTICES.get(kind)
    if found is not None:
        pattern, key, names = found
        m = pattern.search(message)
        if m:
            values = [int(v) if v.lstrip("-").isdigit() else v for v in m.groups()]
            return {"k": key, "a": dict(zip(names, values))}
    return {"k": "notice.other", "a": {"player": player}}


# The engine says what the table waits for in words; the page says it in its own language.
_PHASE_OF = {words: phase for phase, words in WAITING_WORDS.items()}

# Refusals (the engine's `rejected` reasons, and the page's own) people can meet at a table.
_ERRORS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = tuple(
    (re.compile(p), k, names) for p, k, names in (
        (rf"^not now: waiting for ({'|'.join(map(re.escape, _PHASE_OF))})$", "err.not_now", ("phase",)),
        (rf"^{_NAME} must draw before passing$", "err.draw_first", ("player",)),
        (rf"^{_NAME} already drew this turn", "err.drew_already", ("player",)),
        (rf"^{_NAME} must answer or take the (\d+) pending cards$", "err.pending", ("player", "n")),
        (r"^no UNO window is open$", "err.uno_no_window", ()),
        (rf"^{_NAME} has no UNO window open$", "err.uno_no_window", ("player",)),
        (rf"^{_NAME} already called UNO$", "err.uno_already", ("player",)),
        (rf"^{_NAME} cannot catch themselves$", "err.catch_self", ("player",)),
        (rf"^{_NAME} cannot target themselves$", "err.pick_other", ("player",)),
        (rf"^it is {_NAME}'s turn, not {_NAME}'s$", "err.not_turn", ("player", "other")),
        (rf"^{_NAME}'s points are already in$", "err.points_in", ("player",)),
        (r"^every loser's points are already in$", "err.points_all_in", ()),
        (rf"^{_NAME} won the hand and holds no cards$", "err.points_winner", ("player",)),
        (r"^nothing to undo$", "err.nothing_undo", ()),
        (r"^no cards are left to draw", "err.no_cards_left", ()),
        (rf"^the deck holds only (\d+) {_CARD}", "err.deck_only", ("n", "card")),
        (rf"^{_CARD} is not in the (\w+) deck$", "err.not_in_deck", ("card", "deck")),
        (r"^the first hand needs a \"dealer\"$", "err.need_dealer", ()),
        (r"^UNO needs 2 to (\d+) players", "err.players_count", ("n",)),
        (r"^no game yet", "err.no_game", ()),
        (rf"^a colour is named only for wild cards, not {_CARD}$", "err.color_only_wild", ("card",)),
        (rf"^the evidence is {_NAME}'s hand$", "err.evidence_of", ("player",)),
        (rf"^{_NAME} holds (\d+) cards and the hand limit", "err.hand_limit", ("player", "n")),
        (rf"^{_NAME}'s illegal last card must be taken back first$", "err.take_back_first", ("player",)),
        (rf"^{_NAME}'s illegal {_CARD} must be taken back first: its effect cannot stand$", "err.take_back_first",
         ("player", "card")),
        (r"^(\d+) points is more than a hand can score \(at most (\d+)\)$", "err.points_over_deck",
         ("points", "most")),
        (rf"^{_NAME} showed (\d+) of (\d+) cards, none (\w+): an honest play needs the whole hand",
         "err.evidence_whole", ("player", "n", "tracked", "color")),
        (rf"^only {_NAME} may challenge", "err.challenge_only", ("player",)),
        (rf"^{_NAME} cannot go out on {_CARD} \((\w+)\): lay another", "err.finish_second", ("player", "card", "option")),
        (rf"^{_NAME} shows (\d+) cards, more than the (\d+) they could hold", "err.shows_too_many",
         ("player", "n", "most")),
        (r"^dealer by draw: only (.+) draw again$", "err.by_draw_again", ("players",)),
        (r"^dealer by draw: (.+) tie and draw again$", "err.by_draw_again", ("players",)),
        (r"^dealer by draw: waiting for a card from (.+)$", "err.by_draw_waiting", ("players",)),
        (rf"^{_NAME} is out of this hand$", "err.out_of_hand", ("player",)),
        (r"^no hand is being played$", "err.no_hand", ()),
        (r"^the draw pile is empty$", "err.no_cards_left", ()),
        (r"^the target is already chosen", "err.target_chosen", ()),
        (r"^jump-in", "err.jump_in", ()),
        # the host's Fix a misread card: the lines as its list shows them (#N)
        (rf"^event \d+ corrected to {_CARD} would make event (\d+) illegal$", "err.correct_illegal", ("card", "n")),
        (rf"^event \d+ corrected to {_CARD} would reject event (\d+) ", "err.correct_rejects", ("card", "n")),
        (r"^several cards in one play need the multiple_play option$", "err.multiple_off", ()),
        (r"^multiple play lays cards of one number", "err.multiple_number", ()),
        (r"^player names must be different$", "err.players_list", ()),
        (r"^\"players\" must be a list of names, clockwise$", "err.players_list", ()),
        (r"^teams: the same players play the whole game", "err.seats_teams", ()),
        (r"^dealer by draw: the cards are being drawn", "err.seats_by_draw", ()),
        (r"^\"players\" must be the same \d+ players in a new order", "err.seats_same", ()),
        (rf"^teams: partners sit in alternate seats, not {_NAME} beside {_NAME}$", "err.seats_partners",
         ("player", "other")),
        (r"^unknown card '([^']{1,40})': did you mean '([a-z0-9_]+)'\?$", "err.unknown_card_suggest",
         ("name", "card")),
        (r"^unknown card '([^']{1,40})'", "err.unknown_card_named", ("name",)),
        (r"^unknown card ", "err.unknown_card", ()),
        # themed cards (UNO Flip's sides, discard two, draws until a colour)
        (r"^the dark side is in play: name ", "err.colour_dark", ()),
        (r"^the light side is in play: name ", "err.colour_light", ()),
        (rf"^the dark side is in play: {_CARD} is a light-side face", "err.face_light", ("card",)),
        (rf"^the light side is in play: {_CARD} is a dark-side face", "err.face_dark", ("card",)),
        (rf"^{_NAME} draws until a Gryffindor card first, not {_NAME}$", "err.until_first_gryffindor",
         ("player", "other")),
        (rf"^{_NAME} draws until an? (\w+) card first, not {_NAME}$", "err.until_first", ("player", "color", "other")),
        (rf"^{_NAME} must first draw until a Gryffindor card", "err.until_count_gryffindor", ("player",)),
        (rf"^{_NAME} must first draw until an? (\w+) card", "err.until_count", ("player", "color")),
        (r"^only (\d+) cards are left to draw, not (\d+)$", "err.only_left", ("n", "asked")),
        (rf"^{_NAME} lays the discard two's second card, not {_NAME}$", "err.second_by", ("player", "other")),
        (rf"^the second card of a discard two is one (\w+) card, not {_CARD}", "err.second_colour",
         ("color", "card")),
        (rf"^{_NAME} lays a second (\w+) card with the discard two", "err.second_first", ("player", "color")),
        (r"^\"count\" must be a whole number", "err.bad_number", ()),
        (r"^rule (\w+) adds cards to a classic, modern or swap deck, not to the flip deck", "err.flip_adds",
         ("option",)),
        (r"^rule (\w+) is not defined for the flip deck", "err.flip_not", ("option",)),
        (r"^rule teams needs 4 or 6 players", "err.teams_players", ()),
        (r"^rule (\w+) takes a whole number (?:of cards )?(\d+)-(\d+)", "err.rule_range", ("option", "low", "high")),
        (r"^rule (\w+) takes a whole number of (?:at least |hands \()(\d+)", "err.rule_min", ("option", "low")),
        (r"^rule (\w+) takes a count (\d+)-(\d+)", "err.rule_range", ("option", "low", "high")),
        (r"^rule (\w+)=\d+ must be above hand_size \((\d+)\)", "err.rule_above_hand", ("option", "n")),
        (r"^(\d+) hands of (\d+) do not fit in a (\d+)-card deck", "err.hands_dont_fit", ("players", "n", "deck")),
        (rf"^{_NAME} is {_NAME}'s partner: a partner's cards do not score", "err.partner_points", ("player", "other")),
        (rf"^correcting event (\d+) to {_CARD} would (?:reject|make) event (\d+)", "err.correct_breaks", ("n", "card", "later")),
        (r'^"points" must be a whole number', "err.bad_points", ()),
        (r"^no finished hand (\d+) to fix", "err.no_hand_fix", ("hand",)),
        (r"^only (.+?) scores hand (\d+) \(the winner takes the points\): to correct (.+?)'s count",
         "err.fix_loser", ("winner", "hand", "player")),
        (r"^(.+?) went out in hand (\d+): an empty hand scores nothing", "err.fix_empty", ("winner", "hand")),
        (r"^(.+?) did not play hand (\d+): they joined after it", "err.fix_not_played", ("player", "hand")),
        # colour calibration on the host page (companion/vision/calibration.py)
        (r"^no four distinct colours found: (\d+) coloured card", "err.calibrate_four", ("n",)),
        (r"^no four distinct colours found: two of the cards look the same colour", "err.calibrate_same", ()),
        (r"^no four distinct colours found: the colours came out of their order", "err.calibrate_order", ()),
        (r"^no four distinct colours found: two of the cards are one colour, one of them in shade",
         "err.calibrate_shade", ()),
        (r"^no four distinct colours found: no (\w+(?: or \w+)*) card among the (\d+) seen", "err.calibrate_missing",
         ("color", "n")),
    ))


def error_say(message: str) -> Say:
    """The catalogue key for a refusal; one no pattern knows keeps its reason as `reason`."""
    for pattern, key, names in _ERRORS:
        m = pattern.search(message)
        if m:
            values = [int(v) if v.isdigit() else v for v in m.groups()]
            if key == "err.not_now":
                values = [_PHASE_OF[values[0]]]
            if key in ("err.by_draw_again", "err.by_draw_waiting"):  # the engine's English "Ann and Bob": a list in any language
                values = [str(values[0]).replace(" and ", ", ")]
            if key == "err.calibrate_missing":  # "red or blue": each colour in the page's words
                values = [str(values[0]).split(" or "), *values[1:]]
            return {"k": key, "a": dict(zip(names, values))}
    return {"k": "err.generic", "a": {"reason": message}}
