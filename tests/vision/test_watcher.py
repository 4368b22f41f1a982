"""The watcher on short generated clips, with a perfect recognizer built from their truth."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from companion.vision.camera import Frame, ResilientSource, SourceError
from companion.vision.detector import Detection, FakeDetector
from companion.synth.tablevideo import Step, TableVideo, VideoSpec, plan_session
from companion.vision.truth import TruthDetector
from companion.vision.watcher import Watcher
from companion.vision.zones import Zones

GAME = Step("none", lines=[{"type": "game", "players": ["Ann", "Bob", "Cleo", "Dev"]}])


def flip(card: str, seat: int = 0) -> Step:
    return Step("flip", seat=seat, card=card, lines=[{"type": "flip", "card": card}])


def play(card: str, seat: int = 1) -> Step:
    return Step("play", seat=seat, card=card, lines=[{"type": "play", "card": card}])


def clip(steps: list[Step], seed: int = 1, **spec) -> tuple[list[np.ndarray], list[dict]]:
    video = TableVideo([GAME, *steps], VideoSpec(seed=seed, **spec))
    frames = list(video.frames())
    return frames, video.truth


def watch(frames: list[np.ndarray], truth: list[dict], read=None, each=None) -> list[dict]:
    """The events of a clip watched with a perfect recognizer from its truth; `read(found)`
    may change what it found, `each(watcher, events)` runs after every frame."""
    truthful = TruthDetector(truth)
    detector = truthful if read is None else FakeDetector(script=lambda frame: read(truthful.detect(frame)))
    watcher = Watcher(detector, Zones.default())
    events: list[dict] = []
    for k, frame in enumerate(frames):
        truthful.t = k / 10.0
        events += watcher.feed(frame, k / 10.0)
        if each is not None:
            each(watcher, events)
    return events


def seen(truth: list[dict]) -> list[dict]:
    return [line for line in truth if line["type"] in ("flip", "play", "take_back", "reveal")]


def camera(kind: str) -> str:
    """What the camera reports for a true line: a card laid is a `lay`, flip or play alike
    (the referee tells them apart)."""
    return "lay" if kind in ("flip", "play") else kind


def strip(events: list[dict]) -> list[tuple]:
    return [(camera(e["type"]), e.get("card"), tuple(sorted(e.get("cards", [])))) for e in events]


def assert_matches(events: list[dict], truth: list[dict], key: str = "t") -> None:
    assert strip(events) == strip(seen(truth))
    lines = seen(truth)
    for k, (event, line) in enumerate(zip(events, lines)):
        # confirmed once the card is at rest with no hand over it, and before the next one lands
        following = lines[k + 1]["t_land"] if k + 1 < len(lines) else float("inf")
        assert line[key] - 1e-6 <= event["t"] <= following


def test_watcher_normal_sequence_gives_one_event_per_card():
    frames, truth = clip([flip("red_3", 0), play("red_7", 1), play("blue_7", 2), play("blue_skip", 3)])
    events = watch(frames, truth)
    assert [e["type"] for e in events] == ["lay", "lay", "lay", "lay"]
    assert [[name for name, _ in e["top"]] for e in events] == [["red_3"], ["red_7"], ["blue_7"], ["blue_skip"]]
    assert_matches(events, truth)


def test_watcher_sees_the_same_card_twice_in_a_row():
    frames, truth = clip([flip("green_2", 0), play("red_2", 1), play("red_2", 2)], seed=4)
    events = watch(frames, truth)
    assert [(e["type"], e["card"]) for e in events] == [("lay", "green_2"), ("lay", "red_2"), ("lay", "red_2")]
    assert_matches(events, truth)


def test_watcher_take_back_shows_the_previous_card_again():
    steps = [flip("yellow_4", 0), play("blue_9", 1), Step("take_back", seat=1, lines=[{"type": "take_back"}]), play("yellow_8", 1)]
    frames, truth = clip(steps, seed=5)
    events = watch(frames, truth)
    assert [e["type"] for e in events] == ["lay", "lay", "take_back", "lay"]
    assert_matches(events, truth)


def test_watcher_lay_carries_the_recognizers_readings():
    # The referee weighs them against the table; the watcher only passes them on.
    frames, truth = clip([flip("red_3", 0), play("red_7", 1)], seed=9)
    events = watch(frames, truth, read=lambda found: [
        Detection(d.card, d.confidence, d.box, ((d.card, 0.61), ("red_1", 0.38))) for d in found])
    assert [(e["type"], e["card"], e["top"]) for e in events] == [
        ("lay", "red_3", [["red_3", 0.61], ["red_1", 0.38]]),
        ("lay", "red_7", [["red_7", 0.61], ["red_1", 0.38]]),
    ]


def test_watcher_take_back_seen_by_the_card_beneath_showing_again():
    # On a real table the pile after a take-back is seldom the picture from before the card
    # (the light moved, a shadow, the pile was nudged). The card beneath showing again where
    # it lay is the take-back all the same, not that card laid a second time.
    steps = [flip("yellow_4", 0), play("blue_9", 1), Step("take_back", seat=1, lines=[{"type": "take_back"}]), play("yellow_8", 1)]
    frames, truth = clip(steps, seed=5)

    def light_moves(watcher, events):
        pile = watcher._zones["discard"].pile
        if len(events) == 2 and pile[-1].before is not None:
            pile[-1].before = pile[-1].before + 10.0  # the picture from before blue_9 no longer fits

    events = watch(frames, truth, each=light_moves)
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "yellow_4"), ("lay", "blue_9"), ("take_back", None), ("lay", "yellow_8")]


def test_watcher_one_lay_for_a_card_held_at_the_pile_edge_first_and_one_laid_crooked():
    # The generator's table habits: a card held still at the pile's edge while its player makes
    # up their mind (the hand is on it: nothing is laid yet), and a card laid at a slant, half
    # off the pile.
    steps = [flip("green_3", 0), play("green_8", 1), play("blue_8", 2), play("blue_1", 3), play("blue_6", 1)]
    steps[1].style = steps[3].style = "hover"
    steps[2].style = steps[4].style = "crooked"
    frames, truth = clip(steps, seed=12)
    events = watch(frames, truth)
    assert [(e["type"], e["card"]) for e in events] == [
        ("lay", "green_3"), ("lay", "green_8"), ("lay", "blue_8"), ("lay", "blue_1"), ("lay", "blue_6")]
    assert_matches(events, truth)


class Scene:
    """Still table pictures with the cards placed by hand (the video generator's drawing), and a
    recognizer that names what is placed, for the situations the generated sessions lack."""

    def __init__(self, seed: int = 30) -> None:
        from companion.synth.tablevideo import Placed

        self.Placed = Placed
        self.video = TableVideo([GAME], VideoSpec(seed=seed, camera_bumps=False))
        self.cards: list = []
        self.detector = FakeDetector(script=self._read)
        self.watcher = Watcher(self.detector, Zones.default())
        self.events: list[dict] = []

    camera = staticmethod(lambda img: img)  # what the camera does to the picture (a lamp, a bump)
    shift = (0.0, 0.0)  # where a bump moved the picture: the recognizer's boxes move with it

    def _read(self, frame):
        # top card first and surest; cards beneath it a little less sure, as a real one
        dx, dy = self.shift
        return [Detection(p.name, 0.95 - 0.1 * k,
                          tuple(float(v) + d for v, d in zip(self.video._box(p), (dx, dy, dx, dy))))
                for k, p in enumerate(reversed(self.cards))]

    def show(self, cards: list[tuple[str, float, float, float]], frames: int = 8,
             hand: tuple | None = None) -> list[dict]:
        """Place `cards` (name, x, y, angle; the last on top) and watch still frames of them
        (with an arm over the table when `hand` is (seat point, palm))."""
        self.cards = [self.Placed(*card) for card in cards]
        self.video.pile = list(self.cards)
        self.video._touch()
        new = []
        for _ in range(frames):
            t = self.video.frame_index / 10.0
            new += self.watcher.feed(self.camera(self.video._frame(hand, [])), t)
        self.events += new
        return new


def _lamp(img: np.ndarray) -> np.ndarray:
    """A warm lamp switched on: brighter, and redder than blue."""
    return np.clip(img.astype(np.float32) * np.array([0.8, 1.0, 1.25], np.float32) * 1.6, 0, 255).astype(np.uint8)


def _palm(seat: tuple[float, float], card) -> tuple[float, float]:
    """Where the palm of a hand from `seat` is as it lays `card`: 50 px short of its middle."""
    import math

    n = math.hypot(card.cx - seat[0], card.cy - seat[1])
    return (card.cx - (card.cx - seat[0]) / n * 50, card.cy - (card.cy - seat[1]) / n * 50)


def _pile_session(seed: int = 102) -> tuple:
    """A table and helpers to act on its pile: `lay(name, dx, dy, angle)` lays a card with an
    arm from seat 0, `visit()` reaches over the pile and goes; `frames` collects (picture, the
    pile as a perfect recognizer would read it)."""
    from companion.synth.tablevideo import Placed

    tv = TableVideo([GAME], VideoSpec(seed=seed, camera_bumps=False))
    seat, (cx, cy) = tv._seat_point(0, 4), tv.pile_centre
    frames: list = []

    def add(pictures) -> None:
        for picture in pictures:
            frames.append((picture, [Detection(c.name, 0.95 - 0.1 * k, tuple(float(v) for v in tv._box(c)))
                                     for k, c in enumerate(reversed(tv.pile))]))

    def lay(name: str, dx: float, dy: float, angle: float) -> None:
        card = Placed(name, cx + dx, cy + dy, angle)
        palm = _palm(seat, card)
        add(tv._reach(seat, palm, tv._hold_card(seat, card), 0.7))
        tv.pile.append(card)
        tv._touch()
        add(tv._reach(palm, seat, lambda pm, u: [], 0.5, seat=seat))
        add(tv._idle(1.0))

    def visit() -> None:
        over = (cx + 5, cy + 10)
        add(tv._reach(seat, over, lambda pm, u: [], 0.6))
        add(tv._reach(over, seat, lambda pm, u: [], 0.6, seat=seat))
        add(tv._idle(1.0))

    add(tv._idle(1.5))
    return frames, lay, visit, add, tv


def _by_hand(tv, add, change) -> None:
    """An arm from seat 0 reaches to the top of `tv`'s pile, `change()` changes the pile there
    (a card moved, turned over, taken away), and the arm goes; `add` collects the frames."""
    seat, top = tv._seat_point(0, 4), tv.pile[-1]
    palm = (top.cx - 20, top.cy + 30)
    add(tv._reach(seat, palm, lambda pm, u: [], 0.6))
    change()
    tv._touch()
    add(tv._reach(palm, seat, lambda pm, u: [], 0.5, seat=seat))
    add(tv._idle(1.0))


def _watch_pile(frames: list, read=None, camera=None) -> tuple[list[dict], Watcher]:
    """The events of `_pile_session` frames; `read(k, pile)` may change what frame k's
    recognizer finds, `camera(k, picture)` what it is shown."""
    shown: dict[int, tuple] = {}  # each picture shown (kept, so that no other takes its id): what is found in it
    watcher = Watcher(FakeDetector(script=lambda frame: shown[id(frame)][1]), Zones.default())
    events = []
    for k, (picture, pile) in enumerate(frames):
        picture = picture if camera is None else camera(k, picture)
        shown[id(picture)] = (picture, pile if read is None else read(k, pile))
        events += watcher.feed(picture, k / 10.0)
    return events, watcher


def test_watcher_a_lamp_switched_on_while_an_arm_is_over_the_pile_does_not_blind_it():
    # The arm's strip kept the table's colour from before the lamp (arms never fade into the
    # background), so once the arm had gone it still looked like an arm, and each hand that
    # then laid a card through that strip kept it so: every later card went unseen, for good.
    frames, lay, _, add, tv = _pile_session()
    seat, (cx, cy) = tv._seat_point(0, 4), tv.pile_centre
    lay("red_6", 0, 0, 5)
    lay("blue_6", 10, 5, -12)
    over = (cx + 5, cy + 10)
    add(tv._reach(seat, over, lambda pm, u: [], 0.6))
    lamp_on = len(frames) + 10  # while the arm rests over the pile
    add(tv._frame((seat, over), []) for _ in range(20))
    add(tv._reach(over, seat, lambda pm, u: [], 0.6, seat=seat))
    add(tv._idle(1.0))
    for name, dx, dy, angle in [("blue_5", -8, -6, 18), ("blue_1", 10, 8, -20), ("green_1", -12, 4, 30)]:
        lay(name, dx, dy, angle)
        add(tv._idle(6.0))
    events, watcher = _watch_pile(frames, camera=lambda k, picture: _lamp(picture) if k >= lamp_on else picture)
    assert [e["card"] for e in events] == ["red_6", "blue_6", "blue_5", "blue_1", "green_1"]
    assert watcher.pile_hidden == 0.0


def test_watcher_sees_a_card_laid_squarely_on_one_of_its_colour():
    # A red 8 laid on a red 5, 3 degrees apart and not moved aside, changes only the symbol:
    # not one pixel of the pile's small picture changed, and the play went unseen.
    frames, lay, _, _, _ = _pile_session()
    lay("red_5", 0, 0, 5)
    lay("red_8", 0, 0, 8)
    lay("red_2", 0, 0, 8)
    assert [e["card"] for e in _watch_pile(frames)[0]] == ["red_5", "red_8", "red_2"]


def _soft_webcam(k: int, picture: np.ndarray) -> np.ndarray:
    """A blurred, washed-out camera: its cards' symbols differ little in the small picture."""
    import cv2

    soft = cv2.GaussianBlur(picture, (0, 0), 2.5).astype(np.float32)
    return np.clip((soft - 128) * 0.6 + 128, 0, 255).astype(np.uint8)


def test_watcher_sees_a_twin_laid_a_little_up_on_a_pile_of_its_colour():
    # A yellow 1 on a yellow 1 that lies squarely on a yellow 6, under a soft camera: in the
    # small picture the middle of the new box hardly changed, so it was taken for the first
    # yellow 1 boxed anew (as on the real-card bench, `bench-watch --real`).
    frames, lay, _, _, _ = _pile_session()
    lay("yellow_6", 0, 0, 5)
    lay("yellow_1", 0, 0, 6)
    lay("yellow_1", 0, -18, 4)
    assert [e["card"] for e in _watch_pile(frames, camera=_soft_webcam)[0]] == ["yellow_6", "yellow_1", "yellow_1"]


def test_watcher_sees_a_card_laid_squarely_on_one_of_its_colour_taken_back():
    # The red 9 laid squarely on the red 5 is taken back: the small picture does not change
    # either, and the red 5 read again asks for a second reading, which the next still frame
    # never gave (nothing had visited it since): the take-back went unseen.
    frames, lay, _, add, tv = _pile_session()
    lay("red_5", 0, 0, 5)
    lay("red_9", 0, 0, 8)
    seat, (cx, cy) = tv._seat_point(0, 4), tv.pile_centre
    add(tv._reach(seat, (cx, cy + 40), lambda pm, u: [], 0.6))
    tv.pile.pop()
    tv._touch()
    add(tv._reach((cx, cy + 40), seat, lambda pm, u: [], 0.6, seat=seat))
    add(tv._idle(1.5))
    lay("blue_5", 0, 0, 6)
    events = _watch_pile(frames)[0]
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "red_5"), ("lay", "red_9"), ("take_back", None), ("lay", "blue_5")]


def test_watcher_a_hand_over_the_pile_does_not_make_a_misread_top_card_a_new_card():
    # The top card, read again after a hand went over it, is misread as a red 9: the card's
    # face did not change, so nothing was laid.
    frames, lay, visit, _, _ = _pile_session()
    lay("red_6", 0, 0, 5)
    visited = len(frames)
    visit()
    misread = lambda k, pile: ([Detection("red_9", 0.97, d.box) for d in pile] if k >= visited else pile)
    assert [e["card"] for e in _watch_pile(frames, misread)[0]] == ["red_6"]


def test_watcher_a_bumped_camera_does_not_lay_the_top_card_again():
    # Knocked, the camera shows the whole table 15 px to the right and 5 px up, the top card's
    # box with it: that box overlaps the old one too little to be the same place, but it moved
    # with the picture, so it is no second card of its name.
    import cv2

    scene = Scene(seed=41)
    scene.show([])
    pile = [("red_4", 360, 185, 10), ("yellow_4", 368, 192, -8)]
    assert [e["card"] for e in scene.show(pile[:1])] == ["red_4"]
    assert [e["card"] for e in scene.show(pile)] == ["yellow_4"]
    scene.shift = (15.0, -5.0)
    scene.camera = lambda img: cv2.warpAffine(img, np.float32([[1, 0, 15], [0, 1, -5]]), (img.shape[1], img.shape[0]),
                                              borderMode=cv2.BORDER_REFLECT)
    assert scene.show(pile, frames=30) == []
    assert [e["card"] for e in scene.show([*pile, ("yellow_8", 350, 180, 20)])] == ["yellow_8"]


def test_watcher_a_card_moved_from_the_edge_of_the_pile_is_one_card():
    # A card still held at the edge of the pile, its arm not seen, then put down: the same
    # card, where it lay the pile is as before it came. Reported once, not once per place.
    scene = Scene()
    scene.show([])
    assert [e["card"] for e in scene.show([("red_5", 440, 180, 20)])] == ["red_5"]
    assert scene.show([("red_5", 330, 185, 5)]) == []
    assert [e["type"] for e in scene.events] == ["lay"]


@pytest.mark.parametrize("turns", [(45,), (120, 165)])
def test_watcher_the_top_card_turned_where_it_lies_is_no_second_card(turns):
    # A player straightens the pile: the top card, turned about its middle, grows its box round
    # where it lay, so no part of the old box is left to compare; its corners have all left
    # where they were. (It was laid again once per turn.)
    scene = Scene()
    scene.show([])
    scene.show([("yellow_3", 300, 175, 10)])
    assert [e["card"] for e in scene.show([("yellow_3", 300, 175, 10), ("green_skip", 365, 190, 0)])] == ["green_skip"]
    for angle in turns:
        assert scene.show([("yellow_3", 300, 175, 10), ("green_skip", 365, 190, angle)]) == []
    assert [e["type"] for e in scene.events] == ["lay", "lay"]


@pytest.mark.parametrize("push", [(15, 5, 12), (-15, -5, -12), (20, 0, 5), (0, -20, -8), (14, 14, 0)])
def test_watcher_a_card_lying_aslant_pushed_is_no_second_card(push):
    # A card lying 12 degrees aslant on the one beneath is pushed 15-20 px (and turned): the
    # corners of its box hold the card beneath, which stays; its own corners have all left
    # where they were. (It was laid again, and taken back on the next push.)
    scene = Scene()
    scene.show([])
    beneath = ("yellow_3", 300, 175, 5)
    scene.show([beneath])
    assert [e["card"] for e in scene.show([beneath, ("blue_8", 306, 175, 12)])] == ["blue_8"]
    dx, dy, turn = push
    assert scene.show([beneath, ("blue_8", 306 + dx, 175 + dy, 12 + turn)]) == []
    assert [e["type"] for e in scene.events] == ["lay", "lay"]


def test_watcher_an_arm_resting_over_part_of_the_top_card_lays_nothing():
    # On a table the colour of skin an arm resting over the right of the top card hardly
    # changes the pile's small picture; the card is read in a box too narrow for it. Once the
    # arm is gone, the card read whole where it lay is no card come. (It was laid again.)
    scene = Scene()
    scene.show([])
    card = ("red_5", 330, 180, 5)
    assert [e["card"] for e in scene.show([card])] == ["red_5"]
    x1, y1, x2, y2 = scene.video._box(scene.Placed(*card))
    cut = x1 + 0.5 * (x2 - x1)
    table = scene.video._frame(None, [])
    # the arm: the table's own look, turned round and a little lighter
    arm = table[int(y1) - 40:int(y2) + 40, int(cut):int(x2) + 30][::-1, ::-1].astype(int) + 20
    read = scene.detector.script

    def resting(img):
        img = img.copy()
        img[int(y1) - 40:int(y2) + 40, int(cut):int(x2) + 30] = np.clip(arm, 0, 255)
        return img

    scene.camera = resting
    scene.detector.script = lambda frame: [Detection(d.card, d.confidence, (d.box[0], d.box[1], cut, d.box[3]))
                                           for d in read(frame)]
    calls = scene.detector.calls
    scene.show([card], frames=20)
    assert scene.detector.calls > calls  # the pile was read under the arm, in the narrow box
    scene.camera = Scene.camera
    scene.detector.script = read
    scene.show([card], frames=20)
    assert [e["type"] for e in scene.events] == ["lay"]


@pytest.mark.parametrize("angle, dx, dy", [(30, 20, 30), (35, 30, 20)])
def test_watcher_a_twin_laid_straighter_on_an_aslant_first_card_is_a_lay(angle, dx, dy):
    # the probe's hand: a blue reverse turned up aslant, the second laid straighter and a little
    # off (eight tenths of its box inside the first's): it was taken for the first card half
    # hidden by an arm, missed, and every card after it went to the wrong player
    scene = Scene()
    scene.show([])
    first = ("blue_reverse", 330, 180, angle)
    scene.show([first])
    scene.show([first, ("blue_reverse", 330 + dx, 180 + dy, 2)])
    assert [e["card"] for e in scene.events] == ["blue_reverse", "blue_reverse"]


def test_watcher_a_twin_laid_a_third_up_on_its_twin_over_a_look_alike_is_a_lay():
    # yellow 1 on yellow 6, then a second yellow 1 laid a third of a card up: where the first
    # yellow 1 still shows below the new one, it looks like the yellow 6 beneath it did, so
    # that place cannot say "moved". (It was taken for the first one pushed up.)
    scene = Scene()
    scene.show([])
    pile = [("yellow_6", 332, 182, 0), ("yellow_1", 330, 180, 6)]
    scene.show(pile[:1])
    scene.show(pile)
    assert [e["card"] for e in scene.show(pile + [("yellow_1", 330, 145, 6)])] == ["yellow_1"]
    assert [e["card"] for e in scene.events] == ["yellow_6", "yellow_1", "yellow_1"]


def test_watcher_a_second_card_laid_across_the_first_at_its_middle_is_a_lay():
    # The same box as a turn, but the first card's corners still show beyond the second one.
    scene = Scene()
    scene.show([])
    scene.show([("green_skip", 365, 190, 0)])
    assert [e["card"] for e in scene.show([("green_skip", 365, 190, 0), ("green_skip", 365, 190, 45)])] == ["green_skip"]


def test_watcher_a_top_card_boxed_10_px_off_after_the_pile_beneath_moved_is_not_laid_again():
    # The card beneath the top card is pushed straight; the top card stays, and the
    # recognizer, looking again, boxes it 10 px off (a real recognizer's box wanders that much
    # between two looks at one card). The same card where it lay: no second lay.
    scene = Scene()
    scene.show([])
    scene.show([("blue_2", 365, 190, 0)])
    assert [e["card"] for e in scene.show([("blue_2", 365, 190, 0), ("red_5", 325, 180, 15)])] == ["red_5"]
    read = scene.detector.script

    def wandering(frame):  # the card beneath, mostly covered, is found far less surely
        return [Detection(d.card, d.confidence, (d.box[0] + 10, d.box[1], d.box[2] + 10, d.box[3]))
                if d.card == "red_5" else Detection(d.card, 0.5, d.box) for d in read(frame)]

    scene.detector.script = wandering
    calls = scene.detector.calls
    assert scene.show([("blue_2", 385, 200, 10), ("red_5", 325, 180, 15)]) == []
    assert scene.detector.calls > calls  # it was looked at again: the pile changed
    assert [e["type"] for e in scene.events] == ["lay", "lay"]


def test_watcher_a_card_laid_where_the_card_beneath_of_its_name_lay_is_a_lay_not_a_take_back():
    # yellow_2, yellow_5 on it, then another yellow_2 laid almost where the first one lay:
    # yellow_5 still shows beside it, so it was not taken back.
    scene = Scene()
    read = scene.detector.script
    # the cards beneath the top one, mostly covered, are found far less surely
    scene.detector.script = lambda frame: [d if k == 0 else Detection(d.card, 0.5, d.box)
                                           for k, d in enumerate(read(frame))]
    scene.show([])
    first, middle, again = ("yellow_2", 330, 185, 10), ("yellow_5", 345, 200, -4), ("yellow_2", 330, 184, -10)
    scene.show([first])
    scene.show([first, middle])
    boxes = [scene.video._box(scene.Placed(*card)) for card in (first, again)]
    from companion.vision.watcher import SAME_OVERLAP, box_iou

    assert box_iou(*boxes) >= SAME_OVERLAP  # boxed as where the first one lay
    assert [(e["type"], e.get("card")) for e in scene.show([first, middle, again])] == [("lay", "yellow_2")]


def test_watcher_a_second_card_of_the_same_name_beside_the_first_is_a_lay():
    # The first card still lies where it was: this one is another card.
    scene = Scene()
    scene.show([])
    scene.show([("red_5", 440, 180, 20)])
    assert [e["card"] for e in scene.show([("red_5", 440, 180, 20), ("red_5", 330, 185, 5)])] == ["red_5"]
    assert [e["type"] for e in scene.events] == ["lay", "lay"]


def test_watcher_reads_a_crooked_card_half_off_the_pile():
    # Its middle lies off the zone, but nearly half of it on the pile: it was laid there.
    scene = Scene()
    scene.show([])
    x1, y1, x2, y2 = scene.video._box(scene.Placed("blue_7", 450, 180, 35))
    assert not Zones.default().contains("discard", (x1 + x2) / 2, (y1 + y2) / 2)
    assert [(e["type"], e["card"]) for e in scene.show([("blue_7", 450, 180, 35)])] == [("lay", "blue_7")]


def test_watcher_ignores_a_card_beside_the_pile():
    scene = Scene()
    scene.show([])
    assert scene.show([("green_2", 505, 180, 0)]) == []  # its edge just reaches the zone


PILE = [("red_5", 340, 180, 10)]
BESIDE = ("yellow_8", 540, 190, 0)  # a card's width right of the pile's zone, touching no zone
FROM_RIGHT = (640, 200)  # where the arm of the player on the right comes from


def _pile_and_card_beside(scene: Scene) -> list[dict]:
    scene.show([])
    scene.show(PILE)
    events = scene.show(PILE + [BESIDE], frames=4, hand=(FROM_RIGHT, (545, 195)))
    return events + scene.show(PILE + [BESIDE], frames=25)


def test_watcher_names_a_card_put_down_beside_the_pile_until_it_is_moved_onto_it():
    # A player who missed the pile: nothing is laid (the referee would credit the card, and
    # then the next one, to whoever is on turn), but the host is told which card lies there.
    scene = Scene()
    assert _pile_and_card_beside(scene) == []
    assert scene.watcher.beside["card"] == "yellow_8"
    calls = scene.watcher.detector_calls
    scene.show(PILE + [BESIDE], frames=20)
    assert scene.watcher.detector_calls == calls  # read once, not on every still frame
    # a hand passing over it leaves it there: still said
    scene.show(PILE + [BESIDE], frames=4, hand=(FROM_RIGHT, (540, 190)))
    assert scene.show(PILE + [BESIDE], frames=25) == [] and scene.watcher.beside["card"] == "yellow_8"
    # moved onto the pile: laid there, and no longer beside it
    on_pile = ("yellow_8", 350, 170, 15)
    scene.show(PILE + [on_pile], frames=4, hand=(FROM_RIGHT, (360, 175)))
    events = scene.show(PILE + [on_pile], frames=25)
    assert [(e["type"], e["card"]) for e in events] == [("lay", "yellow_8")]
    assert scene.watcher.beside is None


def test_watcher_names_a_card_close_beside_the_pile_but_not_the_piles_own_card_pushed_off():
    scene = Scene()
    scene.show([])
    scene.show(PILE)
    close = ("green_2", 505, 180, 0)
    scene.show(PILE + [close], frames=4, hand=(FROM_RIGHT, (510, 185)))
    assert scene.show(PILE + [close], frames=25) == [] and scene.watcher.beside["card"] == "green_2"
    # a card of the pile pushed off the zone as far (the pile spreading): no news
    scene = Scene()
    scene.show([])
    scene.show(PILE)
    top = ("blue_5", 330, 170, -20)
    assert [e["card"] for e in scene.show(PILE + [top])] == ["blue_5"]
    scene.show([("red_5", 505, 180, 0), top], frames=4, hand=(FROM_RIGHT, (510, 185)))
    scene.show([("red_5", 505, 180, 0), top], frames=25)
    assert scene.watcher.beside is None


def test_watcher_forgets_a_card_beside_the_pile_once_it_is_taken_away():
    scene = Scene()
    _pile_and_card_beside(scene)
    assert scene.watcher.beside["card"] == "yellow_8"
    scene.show(PILE, frames=4, hand=(FROM_RIGHT, (540, 190)))
    assert scene.show(PILE, frames=25) == [] and scene.watcher.beside is None


def test_watcher_names_nothing_beside_the_pile_the_recognizer_does_not_read_as_a_card():
    # a phone, a cup, a card lying face down: only a card read as surely as one laid counts
    scene = Scene()
    scene.watcher.detector = FakeDetector(script=lambda frame: [d for d in scene._read(frame) if d.card != "yellow_8"])
    assert _pile_and_card_beside(scene) == [] and scene.watcher.beside is None


def test_watcher_names_no_card_put_down_far_from_the_pile():
    # more than a card's length from the pile's zone: a player's own business
    scene = Scene()
    scene.show([])
    scene.show(PILE)
    far = ("blue_2", 60, 240, 0)
    scene.show(PILE + [far], frames=4, hand=((0, 260), (60, 245)))
    assert scene.show(PILE + [far], frames=25) == [] and scene.watcher.beside is None


def test_watcher_sees_yellow_cards_laid_on_yellow_cards():
    # In grey a yellow glyph on the white disc barely differs from the one below it.
    cards = ["yellow_9", "yellow_1", "yellow_reverse", "yellow_5", "yellow_skip", "yellow_6"]
    frames, truth = clip([flip("yellow_1", 0), *(play(c, 1 + k % 3) for k, c in enumerate(cards))],
                         seed=22)
    events = watch(frames, truth)
    assert [e.get("card") for e in events] == ["yellow_1", *cards]
    assert_matches(events, truth)


def test_watcher_waits_for_a_lingering_hand():
    frames, truth = clip([flip("blue_1", 0), play("blue_5", 2), play("green_5", 3)], seed=6, linger_rate=1.0)
    lands = [line["t_land"] for line in seen(truth)]
    rests = [line["t"] for line in seen(truth)]
    assert all(rest - land >= 1.0 for land, rest in zip(lands, rests))  # the hand stayed a while
    events = watch(frames, truth)
    # exactly one event per card, none while the hand moves; a hand resting perfectly still
    # on the card may let it be confirmed before the hand leaves (t_land, not t)
    assert_matches(events, truth, key="t_land")


def test_watcher_reveal_names_every_card_once():
    cards = ["red_1", "wild", "green_skip", "blue_9"]
    steps = [flip("yellow_7", 0), Step("reveal", seat=2, cards=cards, lines=[{"type": "reveal", "player": "Cleo", "cards": cards}])]
    frames, truth = clip(steps, seed=7)
    events = watch(frames, truth)
    assert [e["type"] for e in events] == ["lay", "reveal"]
    assert sorted(events[1]["cards"]) == sorted(cards)
    assert "player" not in events[1]  # the run layer names the player from the referee's state


def watch_a_reveal(cards: list[str], misread, **options) -> tuple[list[dict], list[float]]:
    """Watch a flip and then a reveal of `cards`, with the reveal area's k-th reading (from 1)
    passed through `misread(k, found)`; returns the events and the times of those readings."""
    steps = [flip("yellow_7", 0), Step("reveal", seat=2, cards=cards, lines=[{"type": "reveal", "player": "Cleo", "cards": cards}])]
    frames, truth = clip(steps, seed=7)
    truthful = TruthDetector(truth)
    reads: list[float] = []

    def script(frame):
        found = truthful.detect(frame)
        if len(found) > 1:  # the reveal area
            reads.append(truthful.t)
            found = misread(len(reads), found)
        return found

    watcher = Watcher(FakeDetector(script=script), Zones.default(), **options)
    events = []
    for k, frame in enumerate(frames):
        truthful.t = k / 10
        events += watcher.feed(frame, k / 10)
    return events, reads


def test_watcher_reveal_waits_for_two_readings_that_agree():
    # A reveal is scored at once: a first reading with a card misread (while the cards
    # settle) must not become the reveal; the next still frames read the six cards again.
    # (A weak second box over a card is no card at all: see the test below.)
    cards = ["red_2", "red_reverse", "blue_2", "red_6", "blue_draw_two", "wild"]

    def misread(k, found):
        if k > 1:
            return found
        return [Detection("blue_6", d.confidence, d.box) if d.card == "red_6" else d for d in found]

    events, reads = watch_a_reveal(cards, misread)
    assert [e["type"] for e in events] == ["lay", "reveal"]
    assert sorted(events[1]["cards"]) == sorted(cards)
    assert events[1]["t"] == reads[2]  # the wrong reading, then two that agree


def test_watcher_reveal_gives_the_latest_reading_when_no_two_agree():
    cards = ["red_1", "wild", "green_skip", "blue_9"]
    # three readings, each missing a different card, then a right one
    events, reads = watch_a_reveal(cards, lambda k, found: [d for d in found if k > 3 or d.card != cards[k - 1]],
                                   max_reads=4)
    assert [e["type"] for e in events] == ["lay", "reveal"]
    assert sorted(events[1]["cards"]) == sorted(cards)
    assert events[1]["t"] == reads[3]


def test_watcher_ignores_a_bumped_pile_and_a_hand_at_the_draw_pile():
    steps = [flip("red_9", 0), play("red_4", 1), Step("bump"), Step("draw", seat=2, lines=[{"type": "draw"}]), play("red_0", 3)]
    frames, truth = clip(steps, seed=8)
    events = watch(frames, truth)
    assert [(e["type"], e["card"]) for e in events] == [("lay", "red_9"), ("lay", "red_4"), ("lay", "red_0")]


def test_watcher_without_a_name_makes_no_event():
    frames, truth = clip([flip("red_3", 0), play("red_7", 1)], seed=9)
    detector = FakeDetector([])  # a recognizer that sees nothing
    watcher = Watcher(detector, Zones.default())
    events = [e for k, f in enumerate(frames) for e in watcher.feed(f, k / 10)]
    assert events == []
    assert 0 < detector.calls < len(frames) / 4  # called only on settled changes, not every frame


def test_watcher_calls_the_detector_only_on_settled_changes():
    frames, truth = clip([flip("red_3", 0), play("red_7", 1)], seed=9)
    calls = []
    events = watch(frames, truth, read=lambda found: calls.append(1) or found)
    assert [e["card"] for e in events] == ["red_3", "red_7"]
    assert len(calls) <= 6


class DyingSource:
    """Plays the clip's frames but dies after `die_at` frames; reopening fails once."""

    name, fps = "dying camera", 10.0

    def __init__(self, frames, die_at):
        self.frames, self.die_at = frames, die_at
        self.pos, self.opens, self.dead = 0, 0, False

    def open(self):
        self.opens += 1
        if self.opens == 2:
            raise SourceError("camera not found")
        self.dead = False

    def read(self):
        if self.pos == self.die_at and not self.dead and self.opens == 1:
            self.dead = True
            self.pos += 15  # the frames missed while the camera was gone
            raise SourceError("camera unplugged")
        if self.pos >= len(self.frames):
            return None
        k = self.pos
        self.pos += 1
        return Frame(self.frames[k], k / 10.0, k)

    def close(self):
        pass


def test_watcher_survives_a_source_that_dies_mid_video():
    frames, truth = clip([flip("red_3", 0), play("red_7", 1), play("red_1", 2), play("green_1", 3)], seed=10)
    rest = [line["t"] for line in seen(truth)]
    die_at = int(rest[1] * 10) + 5  # after the second card, before the third lands
    source = DyingSource(frames, die_at)
    statuses = []
    resilient = ResilientSource(source, sleep=lambda s: None, on_status=statuses.append)
    detector = TruthDetector(truth)
    watcher = Watcher(detector, Zones.default())
    events = []
    for frame in resilient.frames():
        detector.t = frame.index / 10.0
        events += watcher.feed(frame.image, frame.t)
    assert "lost" in [s.state for s in statuses] and source.opens == 3
    names = [(e["type"], e["card"]) for e in events]
    assert names == [("lay", "red_3"), ("lay", "red_7"), ("lay", "red_1"), ("lay", "green_1")]


@pytest.mark.parametrize("bad", [None, np.zeros((10, 10), np.uint8)])
def test_watcher_ignores_frames_that_are_not_colour_images(bad):
    watcher = Watcher(FakeDetector([Detection("red_1", 0.9, (0, 0, 5, 5))]), Zones.default())
    assert watcher.feed(bad, 0.0) == []


def test_watch_command_prints_json_lines(tmp_path, capsys):
    import json

    from companion.cli import main as cli
    from companion.synth.tablevideo import make_video

    out = tmp_path / "clip.mp4"
    make_video(out, steps=[GAME, flip("blue_3", 0), play("blue_3", 1)], spec=VideoSpec(seed=11))
    assert cli(["watch", str(out), "--fake-truth", str(tmp_path / "clip.jsonl"), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["type"], e["card"]) for e in lines] == [("lay", "blue_3"), ("lay", "blue_3")]
    assert all(isinstance(e["t"], float) for e in lines)


def test_watch_command_says_a_card_beside_the_pile_aside_from_its_events(tmp_path, capsys):
    # with the shipped recognizer: stdout keeps the events' format, the card beside is said on stderr
    import json

    import cv2

    from companion.cli import main as cli

    scene, frames = Scene(), []
    scene.camera = lambda img: frames.append(img) or img
    _pile_and_card_beside(scene)
    out = tmp_path / "beside.mp4"
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), 10, (640, 480))
    for img in frames:
        writer.write(img)
    writer.release()
    assert cli(["watch", str(out), "--json"]) == 0
    said = capsys.readouterr()
    assert [json.loads(line)["card"] for line in said.out.splitlines()] == ["red_5"]
    assert "a yellow 8 lies beside the discard pile, not on it: not played" in said.err


def test_bench_score_counts_phantoms_misses_and_wrong_names():
    from companion.commands.bench_watch import score

    truth = [
        {"type": "flip", "card": "red_1", "t_land": 1.0, "t": 1.5},
        {"type": "play", "card": "red_2", "t_land": 3.0, "t": 3.4},
        {"type": "play", "card": "red_2", "t_land": 5.0, "t": 5.5},
        {"type": "take_back", "t_land": 7.0, "t": 7.2},
    ]
    events = [
        {"type": "flip", "card": "red_1", "t": 1.7},
        {"type": "play", "card": "red_3", "t": 3.6},  # wrong name
        {"type": "play", "card": "blue_9", "t": 20.0},  # phantom; the second red_2 is missed
        {"type": "take_back", "t": 7.4},
    ]
    result = score(truth, events)
    assert (result["phantom"], result["missed"], result["wrong_names"]) == (1, 1, 1)
    assert result["latency_ms"]["max"] == 200


def test_bench_score_one_missed_card_does_not_make_its_neighbours_wrong():
    from companion.commands.bench_watch import score

    truth = [
        {"type": "play", "card": "yellow_9", "t_land": 10.0, "t": 10.4},  # missed
        {"type": "play", "card": "yellow_1", "t_land": 12.0, "t": 12.3},
        {"type": "play", "card": "yellow_5", "t_land": 13.5, "t": 13.8},
    ]
    events = [{"type": "play", "card": "yellow_1", "t": 12.5}, {"type": "play", "card": "yellow_5", "t": 14.0}]
    result = score(truth, events)
    assert (result["phantom"], result["missed"], result["wrong_names"]) == (0, 1, 0)


TRUE_HAND = [
    {"type": "game", "players": ["Ann", "Bob", "Cleo"], "t": 0.0},
    {"type": "deal", "dealer": "Ann", "t": 0.5},
    {"type": "flip", "card": "red_1", "t_land": 1.0, "t": 1.5},
    {"type": "play", "card": "red_2", "t_land": 3.0, "t": 3.4},  # Bob
    {"type": "play", "card": "red_2", "t_land": 5.0, "t": 5.5},  # Cleo: the same card again
    {"type": "play", "card": "blue_9", "t_land": 7.0, "t": 7.4},  # Ann: illegal
    {"type": "take_back", "t_land": 8.0, "t": 8.2},
    {"type": "play", "card": "red_7", "t_land": 9.0, "t": 9.3},  # Bob
]


def lays(*cards_and_times) -> list[dict]:
    return [{"type": "lay", "card": c, "t": t, "top": [[c, 0.9]]} if c else {"type": "take_back", "t": t}
            for c, t in cards_and_times]


def test_bench_score_judges_a_lays_kind_as_the_referee_makes_it():
    from companion.commands.bench_watch import score

    events = lays(("red_1", 1.7), ("red_2", 3.6), ("red_2", 5.7), ("blue_9", 7.6), (None, 8.4), ("red_7", 9.5))
    result = score(TRUE_HAND, events)
    assert (result["phantom"], result["missed"], result["wrong_names"], result["wrong_kind"]) == (0, 0, 0, 0)


def test_bench_score_a_card_invented_before_the_flip_makes_the_flip_a_play():
    from companion.commands.bench_watch import score

    events = lays(("green_4", 0.8), ("red_1", 1.7), ("red_2", 3.6), ("red_2", 5.7), ("blue_9", 7.6), (None, 8.4),
                  ("red_7", 9.5))
    result = score(TRUE_HAND, events)
    assert (result["phantom"], result["missed"], result["wrong_kind"]) == (1, 0, 1)


def test_bench_score_a_missed_flip_makes_the_next_card_a_flip():
    from companion.commands.bench_watch import score

    events = lays(("red_2", 3.6), ("red_2", 5.7), ("blue_9", 7.6), (None, 8.4), ("red_7", 9.5))
    result = score(TRUE_HAND, events)
    assert (result["phantom"], result["missed"], result["wrong_kind"]) == (0, 1, 1)


def test_bench_score_names_a_card_as_the_referee_reads_it():
    # Two close readings of Bob's card: the one that fits the red 1 is the referee's.
    from companion.commands.bench_watch import score

    events = lays(("red_1", 1.7), ("red_2", 3.6), ("red_2", 5.7), ("blue_9", 7.6), (None, 8.4), ("red_7", 9.5))
    events[1]["card"], events[1]["top"] = "blue_2", [["blue_2", 0.5], ["red_2", 0.45]]
    result = score(TRUE_HAND, events)
    assert (result["phantom"], result["missed"], result["wrong_names"], result["wrong_kind"]) == (0, 0, 0, 0)
    events[1]["top"] = [["blue_2", 0.9999], ["red_2", 0.0001]]  # a clear misreading stands
    result = score(TRUE_HAND, events)
    assert (result["phantom"], result["missed"], result["wrong_names"]) == (0, 0, 1)


def test_watcher_gives_a_crop_reading_detector_the_zone_and_maps_boxes_back():
    from companion.vision.detector import Detection
    from companion.vision.watcher import Watcher
    from companion.vision.zones import Zones

    seen = []

    class CropReader:
        reads_crops = True

        def detect(self, frame):
            seen.append(frame.shape)
            h, w = frame.shape[:2]  # a card in the middle of what it was given
            return [Detection("red_5", 0.9, (w / 2 - 20, h / 2 - 30, w / 2 + 20, h / 2 + 30))]

    zones = Zones.default(640, 480)
    watcher = Watcher(CropReader(), zones)
    frame = np.zeros((480, 640, 3), np.uint8)
    watcher._setup(frame)
    found = watcher._detect(frame, "discard")
    x1, y1, x2, y2 = zones.bbox("discard")
    assert seen and seen[0][0] < 480 and seen[0][1] < 640  # a crop, not the table
    # Mapped back to table coordinates: the middle of the zone.
    bx1, by1, bx2, by2 = found[0].box
    assert abs((bx1 + bx2) / 2 - (x1 + x2) / 2) < 3 and abs((by1 + by2) / 2 - (y1 + y2) / 2) < 3


def _set_up_watcher() -> Watcher:
    watcher = Watcher(FakeDetector(script=lambda frame: []), Zones.default())
    watcher._setup(np.zeros((480, 640, 3), np.uint8))
    return watcher


@pytest.mark.parametrize("into_zone, occluded", [(0, False), (2, True)])
def test_an_arm_reaches_the_pile_only_where_it_lies_over_it(into_zone, occluded):
    # A leftover at the picture's edge whose (faint) halo stops at the pile's border touched
    # the pile only through the one-pixel margin the dilation adds, and held the pile up while
    # the card just laid there waited (the bundled demo's blue_3 was never seen). An arm that
    # lies over the pile, even by two pixels, still reaches it.
    watcher = _set_up_watcher()
    zone = watcher._zones["discard"]
    x0, y0, x1, y1 = zone.bbox
    cx = (x0 + x1) // 2
    top = int(np.argmax(zone.mask[:, cx]))  # the pile's border, straight above its middle
    changed = np.zeros(zone.mask.shape, bool)
    changed[0:top + into_zone, cx - 10:cx + 10] = True  # from the picture's edge down to it
    changed &= ~zone.mask | (np.arange(changed.shape[0])[:, None] < top + into_zone)
    assert changed[:top].sum() >= watcher.min_arm_share * changed.size  # big beyond the zone
    inside = np.zeros_like(changed)
    inside[(y0 + y1) // 2 - 8:(y0 + y1) // 2 + 8, cx - 12:cx + 12] = True  # the card laid
    inside &= zone.mask
    verdict, _ = watcher._arms(changed | inside, changed | inside)
    assert verdict["discard"] is occluded


def test_cards_laid_in_a_zone_leave_the_tables_colour_as_it_was():
    # Colour is compared with the background after the brightness is divided out; six
    # white-faced cards laid in the reveal area raised the whole picture's mean, and the
    # table where an arm had just lain (its background from before the arm) then differed
    # from it, an "arm" that held the reveal up for 1.6 s (the bundled demo).
    watcher = _set_up_watcher()
    rng = np.random.default_rng(3)
    table = np.clip(rng.normal((60, 70, 110), 12, (480, 640, 3)), 0, 255).astype(np.uint8)
    with_cards = table.copy()
    x0, y0, x1, y1 = (int(v) for v in watcher._full_zones.bbox("reveal"))
    with_cards[y0 + 10:y1 - 10, x0 + 10:x1 - 10] = 245
    _, _, before = watcher._prepare(table)
    _, _, after = watcher._prepare(with_cards)
    outside = watcher._outside
    assert np.abs(after - before).max(axis=2)[outside].mean() < 1.0


@pytest.mark.parametrize("arm", [False, True])
def test_a_bumped_camera_over_a_patterned_table_is_no_arm_but_an_arm_still_is(arm):
    # A bumped camera moves the whole picture: on a finely patterned table most of it then
    # differs from the background, an "arm" reaching every zone. The background is fitted to
    # the picture (a shift found by phase correlation) before arms are looked for.
    import cv2

    watcher = _set_up_watcher()
    rng = np.random.default_rng(5)
    texture = cv2.GaussianBlur(rng.uniform(0, 255, (480, 640, 3)).astype(np.float32), (0, 0), 3)
    table = np.clip((texture - texture.mean()) * 4 + 120, 0, 255).astype(np.uint8)
    _, _, colour = watcher._prepare(table)
    watcher._bg, watcher._bg_long = colour.copy(), colour.copy()
    bumped = np.roll(table, (8, -4), axis=(0, 1))  # 2 and 1 work pixels
    if arm:
        x0, y0, x1, y1 = (int(v) for v in watcher._full_zones.bbox("discard"))
        cx = (x0 + x1) // 2
        bumped[0:(y0 + y1) // 2, cx - 40:cx + 40] = (150, 190, 230)  # from the top edge onto the pile
    _, _, now = watcher._prepare(bumped)
    plain = np.abs(now - watcher._bg).max(axis=2) > watcher.occlusion_level
    assert plain.mean() > 0.3  # unfitted, most of the picture differs
    verdict = watcher._occluded(now)[0]
    assert verdict["discard"] is arm and verdict["reveal"] is False


def watch_a_gathered_reveal(cards: list[str], extra, each=None) -> list[dict]:
    """Watch a flip and a reveal of `cards` that is then gathered up, the detections passed
    through `extra(t, found, cleared)` (t: the video time; cleared: whether the revealed cards
    are gone)."""
    steps = [flip("yellow_7", 0), Step("reveal", seat=2, cards=cards, lines=[{"type": "reveal", "player": "Cleo", "cards": cards}])]
    frames, truth = clip(steps, seed=7)
    t_clear = next(line["t_clear"] for line in truth if line["type"] == "reveal")
    truthful = TruthDetector(truth)
    watcher = Watcher(FakeDetector(script=lambda frame: extra(truthful.t, truthful.detect(frame), truthful.t >= t_clear)),
                      Zones.default())
    events: list[dict] = []
    for k, frame in enumerate(frames):
        truthful.t = k / 10
        events += watcher.feed(frame, k / 10)
        if each is not None:
            each(watcher, events)
    return events


def test_watcher_no_reveal_from_a_detection_where_the_empty_reveal_area_did_not_change():
    # A finely patterned table (honeycomb) gives the recognizer "cards" in the empty reveal
    # area, and there its edges never look quite as they did empty: after a hand was gathered
    # up, a wild read in the honeycomb became a reveal of one wild (video 103 of the real
    # bench). Where the area's colour is as it was empty, nothing was laid: no reveal.
    cards = ["red_1", "green_skip", "blue_9"]
    x0, y0, x1, y1 = Zones.default().bbox("reveal")
    clutter = Detection("wild", 0.6, (x0 + 10, y0 + 5, x0 + 80, y0 + 110))  # sure enough to pass the confidence

    def honeycomb(watcher, events):
        zone = watcher._zones["reveal"]
        if len(events) == 2 and not getattr(zone, "_moved", False):
            zone.empty = zone.empty + 10.0  # its edges no longer fit the empty area's
            zone._moved = True

    events = watch_a_gathered_reveal(cards, lambda t, found, cleared: [*found, clutter] if cleared else found, each=honeycomb)
    assert [e["type"] for e in events] == ["lay", "reveal"]
    assert sorted(events[1]["cards"]) == sorted(cards)


def test_watcher_reveal_on_a_light_table_keeps_the_cards_read_less_surely():
    # On a pale table a card's white border and oval are the table's colour: under 0.4 of a
    # revealed card's middle changed colour, so the cards read under 0.9 were taken for no
    # card and the reveal scored 3 of 5 (the real-card bench, a white fabric table).
    from companion.synth.tablevideo import TableVideo

    def light_table(w: int, h: int) -> np.ndarray:
        grain = np.random.default_rng(5).normal(0, 3, (h, w, 1))
        return np.clip(np.full((h, w, 3), (222, 226, 228), np.float32) + grain, 0, 255).astype(np.uint8)

    cards = ["green_6", "green_2", "yellow_4", "blue_4", "green_3"]
    steps = [flip("yellow_7", 0), Step("reveal", seat=2, cards=cards, lines=[{"type": "reveal", "player": "Cleo", "cards": cards}])]
    video = TableVideo([GAME, *steps], VideoSpec(seed=7), background=light_table)
    frames = list(video.frames())
    unsure = {"green_6": 0.72, "green_3": 0.81}
    events = watch(frames, video.truth, read=lambda found: [
        Detection(d.card, unsure.get(d.card, d.confidence), d.box) for d in found])
    assert [(e["type"], e.get("card") or e.get("cards")) for e in events] == [("lay", "yellow_7"), ("reveal", cards)]


def test_watcher_a_revealed_card_boxed_twice_is_one_card():
    # The recognizer now and then boxes a revealed card twice, the second box weaker and
    # mostly over the first: blue_3, red_8, ... became blue_3, blue_3, red_8, ... (real bench).
    cards = ["blue_3", "red_8", "yellow_5"]

    def extra(t, found, cleared):
        shown = [d for d in found if d.confidence == 0.97]  # the truth's revealed cards
        if not shown:
            return found
        first = min(shown, key=lambda d: d.box[0])
        x1, y1, x2, y2 = first.box
        return [*found, Detection(first.card, 0.6, (x1 - 12, y1 - 20, x2 - 4, y2 - 8))]

    events = watch_a_gathered_reveal(cards, extra)
    assert [e["type"] for e in events] == ["lay", "reveal"]
    assert events[1]["cards"] == cards


def test_watcher_two_cards_fanned_and_read_surely_stay_two():
    # Boxes mostly one over the other are one card unless both are read surely: two cards
    # fanned closer than a reveal lays them, each read clearly, are two.
    watcher = Watcher(FakeDetector(), Zones.default())
    zone = SimpleNamespace(empty_colour=None)
    a = Detection("red_5", 0.99, (200, 330, 275, 445))
    b = Detection("red_5", 0.97, (215, 330, 290, 445))  # 80 % of it over the first
    weak = Detection("red_5", 0.6, (215, 330, 290, 445))
    assert [d.card for d in watcher._revealed(zone, [a, b])] == ["red_5", "red_5"]
    assert watcher._revealed(zone, [a, weak]) == [a]
    assert watcher._revealed(zone, [a, Detection("wild", 0.3, (400, 330, 475, 445))]) == [a]  # under even odds


# -- a real table's pile: weak readings, a hand's shadow, light and a camera that moves ------------
def test_watcher_a_pile_read_only_weakly_names_no_card():
    # Where the pile was gathered up, a patterned table gives the recognizer weak "cards"; a
    # card still under the hand that lays it reads weakly too. Under even odds: no lay.
    scene = Scene()
    read = scene.detector.script
    scene.detector.script = lambda frame: [Detection(d.card, 0.3, d.box) for d in read(frame)]
    scene.show([])
    assert scene.show([("red_5", 330, 185, 5)]) == []
    scene.detector.script = read
    assert [e["card"] for e in scene.show([("red_5", 330, 185, 5), ("blue_7", 340, 190, -8)])] == ["blue_7"]


def test_watcher_an_unsure_reading_is_a_lay_once_a_second_agrees():
    # 0.7 is not sure: the pile is read again; the two readings agree, so the card is laid.
    # Readings that disagree (yellow_1 through a finger, then yellow_4) wait for one more.
    scene = Scene()
    read = scene.detector.script
    names = iter(["yellow_1", "yellow_4", "yellow_4"])
    scene.detector.script = lambda frame: [Detection(next(names, "yellow_4"), 0.7, d.box) for d in read(frame)]
    scene.show([])
    calls = scene.detector.calls
    events = scene.show([("yellow_4", 330, 185, 5)])
    assert [(e["type"], e["card"]) for e in events] == [("lay", "yellow_4")]
    assert scene.detector.calls - calls == 3


def test_watcher_the_top_card_read_unsurely_once_in_a_new_box_is_not_a_second_card():
    # The pile changed, and all the recognizer finds is the top card's name, unsurely, in a
    # box drawn wider than the card (as through the fingers of a hand held over the pile),
    # and then nothing. A second card of the top card's name is said only when read surely
    # or alike twice: one unsure look is no card.
    scene = Scene()
    scene.show([])
    scene.show([("red_5", 330, 185, 5)])
    read = scene.detector.script
    looks = iter([1])
    scene.detector.script = lambda frame: [Detection(d.card, 0.6, (d.box[0] - 20, d.box[1] - 15, d.box[2] + 5, d.box[3] + 5))
                                           for d in read(frame)[:next(looks, 0)]]
    assert scene.show([("red_5", 330, 185, 5), ("red_5", 300, 170, 25)], frames=12) == []
    scene.detector.script = read
    assert [e["card"] for e in scene.show([("red_5", 330, 185, 5), ("red_5", 300, 170, 25), ("red_5", 340, 200, -20)])] == ["red_5"]


def test_watcher_a_second_card_of_the_top_cards_name_read_alike_twice_is_laid():
    # A second red 5 laid beside the first, read at 0.76 and then 0.78 on the still pile (a
    # real card under a webcam): two readings agree, so it is a card, as any other unsure one.
    scene = Scene()
    scene.show([])
    scene.show([("red_5", 365, 190, 0)])
    read = scene.detector.script
    looks = iter([0.76, 0.78])
    scene.detector.script = lambda frame: [Detection(d.card, next(looks, 0.78), d.box) for d in read(frame)[:1]]
    assert [e["card"] for e in scene.show([("red_5", 365, 190, 0), ("red_5", 320, 165, 15)])] == ["red_5"]


def test_watcher_a_new_card_read_less_surely_than_the_card_peeking_from_under_it_is_laid():
    # blue_2 laid over the top half of blue_1: the recognizer reads blue_1's lower half at
    # 1.0 and blue_2 at 0.69. The card that came is the news.
    scene = Scene()
    scene.show([])
    scene.show([("blue_1", 330, 200, 0)])
    x1, y1, x2, y2 = (float(v) for v in scene.video._box(scene.Placed("blue_1", 330, 200, 0)))
    new_box = tuple(float(v) for v in scene.video._box(scene.Placed("blue_2", 335, 140, 0)))
    showing = (x1, new_box[3] - 5, x2, y2)  # the part of blue_1 that shows
    scene.detector.script = lambda frame: [Detection("blue_1", 1.0, showing), Detection("blue_2", 0.69, new_box)]
    assert [e["card"] for e in scene.show([("blue_1", 330, 200, 0), ("blue_2", 335, 140, 0)])] == ["blue_2"]


def test_watcher_the_card_beneath_peeking_out_while_the_top_card_shows_is_no_news():
    # blue_2 lies over blue_1; the pile changes a little (blue_2 nudged) and the recognizer
    # reads the part of blue_1 that shows at 1.0, blue_2 where it lay at 0.71. No card came.
    scene = Scene()
    scene.show([])
    scene.show([("blue_1", 330, 200, 0)])
    lower = tuple(float(v) for v in scene.video._box(scene.Placed("blue_1", 330, 200, 0)))
    scene.detector.script = lambda frame: [Detection("blue_2", 0.95, tuple(float(v) for v in scene.video._box(scene.cards[-1])))]
    assert [e["card"] for e in scene.show([("blue_1", 330, 200, 0), ("blue_2", 335, 140, 0)])] == ["blue_2"]
    top = scene.video._box(scene.Placed("blue_2", 337, 142, 2))
    showing = (lower[0], float(top[3]) - 5, lower[2], lower[3])
    scene.detector.script = lambda frame: [Detection("blue_1", 1.0, showing),
                                           Detection("blue_2", 0.71, tuple(float(v) for v in top))]
    assert scene.show([("blue_1", 330, 200, 0), ("blue_2", 337, 142, 2)], frames=12) == []
    assert [e["card"] for e in scene.events] == ["blue_1", "blue_2"]


def test_watcher_an_unsure_reading_away_from_where_the_pile_changed_is_no_card():
    # A card comes to the pile, and the recognizer, twice alike but unsurely, names a "wild
    # draw four" in the table's pattern clear of it: where nothing came. No card is said for
    # it; read where the card came, the same unsure readings are a card.
    for where, expected in (("pattern", []), ("card", ["wild_draw_four"])):
        scene = Scene()
        scene.show([])
        scene.show([("red_5", 365, 190, 0)])
        box = ((240.0, 75.0, 300.0, 160.0) if where == "pattern"
               else tuple(float(v) for v in scene.video._box(scene.Placed("blue_7", 330, 190, 30))))
        scene.detector.script = lambda frame, box=box: [Detection("wild_draw_four", 0.72, box)]
        assert [e["card"] for e in scene.show([("red_5", 365, 190, 0), ("blue_7", 330, 190, 30)], frames=12)] == expected


def test_watcher_a_pile_that_changes_with_nothing_moving_over_it_gets_no_card():
    # The pile's picture no longer fits its last settled one though nothing moved over it
    # (light that took another shape, a camera bumped by a fraction of a pixel over a
    # patterned table: here the settled picture is simply altered). No card comes to the pile
    # without a hand, so it is not read: a recognizer that would misread it (blue_8) is not
    # asked, and no card is laid.
    scene = Scene()
    scene.show([])
    scene.show([("green_2", 330, 185, 5)])
    zone = scene.watcher._zones["discard"]
    zone.ref = zone.ref + 2.0
    box = tuple(float(v) for v in scene.video._box(scene.Placed("blue_8", 345, 195, 30)))
    scene.detector.script = lambda frame: [Detection("blue_8", 0.95, box)]
    assert scene.show([("green_2", 330, 185, 5)]) == []
    assert [e["card"] for e in scene.events] == ["green_2"]


def test_watcher_the_card_beneath_read_once_under_a_new_card_is_no_take_back():
    # A new card just laid, still in a hand's shadow, reads less surely than the card
    # peeking from under it: read alone, that looked like the top card taken back. A
    # take-back said on a reading waits for a second reading, which names the new card.
    scene = Scene()
    scene.show([])
    scene.show([("yellow_3", 330, 185, 5)])
    scene.show([("yellow_3", 330, 185, 5), ("yellow_reverse", 350, 190, -10)])
    read = scene.detector.script
    first = [True]

    def shadowed(frame):
        found = read(frame)
        if first[0] and len(found) >= 3:
            first[0] = False
            return [Detection("yellow_3", 0.95, tuple(float(v) for v in scene.video._box(scene.Placed("yellow_3", 330, 185, 5))))]
        return found

    scene.detector.script = shadowed
    new = scene.show([("yellow_3", 330, 185, 5), ("yellow_reverse", 350, 190, -10), ("blue_reverse", 365, 200, 25)])
    assert [(e["type"], e.get("card")) for e in new] == [("lay", "blue_reverse")]


@pytest.mark.parametrize("long_bump", [False, True])
def test_a_camera_bumped_by_half_a_work_pixel_over_a_patterned_table_is_no_arm(long_bump):
    # A bump is seldom a whole work pixel (4 camera pixels here); half a pixel off, every edge
    # of a finely patterned table differs from the background as much as an arm, and cards
    # laid then were missed. The long-memory background may be from before an earlier bump:
    # each background is fitted on its own.
    import cv2

    watcher = _set_up_watcher()
    rng = np.random.default_rng(5)
    # honeycomb-like: cells of 24 camera pixels, sharp dark walls
    y, x = np.mgrid[0:480, 0:640].astype(np.float32)
    cells = np.sin(x * np.pi / 12 + rng.uniform(0, 6)) + np.sin((0.5 * x + 0.87 * y) * np.pi / 12)
    table = np.where(cells[..., None] > 0.3, (40, 180, 230), (10, 40, 90)).astype(np.uint8)
    table = cv2.GaussianBlur(table, (0, 0), 1.0)

    def moved(img, dx, dy):
        return cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (640, 480), borderMode=cv2.BORDER_REFLECT)

    _, _, colour = watcher._prepare(table)
    _, _, earlier = watcher._prepare(moved(table, -5, 3))
    watcher._bg, watcher._bg_long = colour.copy(), (earlier if long_bump else colour).copy()
    _, _, now = watcher._prepare(moved(table, 2, -2))  # half a work pixel each way
    plain = np.abs(now - watcher._bg).max(axis=2) > watcher.occlusion_level
    assert plain.mean() > 0.1  # unfitted, much of the picture differs
    verdict = watcher._occluded(now)[0]
    assert verdict == {"discard": False, "reveal": False}


def test_watcher_a_box_far_smaller_than_the_cards_laid_is_no_card():
    # The pile being gathered up at the end of a hand: in the table's pattern, or in the
    # cards of the hand gathering them, the recognizer finds a card a third the size of the cards laid
    # so far. The camera does not come nearer: a card come to rest on the pile shows whole.
    scene = Scene()
    scene.show([])
    cards = [("red_2", 330, 185, 5), ("red_7", 340, 190, -10), ("blue_7", 325, 180, 15)]
    for k in range(len(cards)):
        scene.show(cards[:k + 1])
    x1, y1, x2, y2 = (float(v) for v in scene.video._box(scene.Placed("yellow_draw_two", 340, 190, 0)))
    small = (x1, y1, x1 + (x2 - x1) * 0.55, y1 + (y2 - y1) * 0.55)  # 0.3 of a card's area
    scene.detector.script = lambda frame: [Detection("yellow_draw_two", 0.95, small)]
    assert scene.show(cards + [("green_1", 300, 170, 40)]) == []  # the hand gathering them
    assert [e["card"] for e in scene.events] == ["red_2", "red_7", "blue_7"]


def test_an_arm_resting_beside_the_pile_is_kept_from_the_background():
    # An arm resting on the table beside the pile (from the picture's edge, reaching no zone)
    # faded into the background after 1.5 s; the hand then moved over the pile holding a card,
    # and, cut off from the picture's edge, was no arm: the card in it was read as laid.
    watcher = _set_up_watcher()
    zone = watcher._zones["discard"]
    x0, y0, x1, y1 = zone.bbox
    changed = np.zeros(zone.mask.shape, bool)
    changed[(y0 + y1) // 2 - 8:(y0 + y1) // 2 + 8, 0:max(1, x0 - 6)] = True  # from the left edge, stopping short
    changed &= ~zone.mask & watcher._outside
    assert changed.sum() >= watcher.min_arm_share * changed.size
    verdict, arm = watcher._arms(changed, changed)
    assert verdict == {"discard": False, "reveal": False}  # it holds no zone up
    assert arm[changed].all()  # but it is an arm: not let fade into the background


def test_a_hand_held_still_over_the_pile_is_a_hand_after_its_arm_fades():
    # A pale arm over a light table differs from it only faintly in its middle; held still,
    # that middle faded into the background, the hand over the pile was cut off from the
    # picture's edge, and the card under its fingers, misread, was reported as laid. A hand
    # is there until something moves; once it goes, the next card is seen.
    import cv2

    scene = Scene()
    video, watcher = scene.video, scene.watcher

    def lay(*cards: tuple[str, float, float, float]) -> None:
        scene.cards = [scene.Placed(*card) for card in cards]
        video.pile = list(scene.cards)
        video._touch()

    def picture(hand=None) -> np.ndarray:  # a light table, as light as pale skin
        return cv2.convertScaleAbs(video._frame(hand, []), alpha=1.9)

    clock = iter(range(10_000))

    def feed(frames: int, picture: np.ndarray) -> list[dict]:
        new = []
        for _ in range(frames):
            new += watcher.feed(picture.copy(), next(clock) / 10.0)
        return new

    feed(8, picture())
    lay(("red_5", 365, 190, 0))
    assert [e["card"] for e in feed(8, picture())] == ["red_5"]
    table, arm = picture(), picture(((640.0, 200.0), (365.0, 190.0)))
    middle = np.zeros(table.shape[:2], bool)
    middle[:, 460:560] = np.abs(arm.astype(int) - table).max(axis=2)[:, 460:560] > 0
    # the arm's middle as the table a little brighter: past half the level of an arm, not past it
    lift = 0.8 * watcher.occlusion_level * float(np.median(cv2.cvtColor(table, cv2.COLOR_BGR2GRAY))) / 128
    arm[middle] = np.clip(table[middle] + lift, 0, 255).astype(np.uint8)
    scene.detector.script = lambda frame: [Detection("red_8", 0.95, (325.0, 130.0, 405.0, 250.0))]
    assert feed(40, arm) == []  # held still 4 s: longer than the faint middle takes to fade
    scene.detector.script = scene._read
    assert feed(8, table) == []  # the hand went: red_5 is still the top card
    lay(("red_5", 365, 190, 0), ("blue_2", 350, 180, 10))
    assert [e["card"] for e in feed(8, picture())] == ["blue_2"]


def test_a_player_leaning_over_the_pile_for_half_a_minute_is_still_a_hand():
    # A player rests an arm over the pile while thinking (the hand trembling a pixel or two).
    # Still for 12 s, the arm had faded into the long-memory background: the pile was then
    # taken as uncovered, the hand over it read as a card laid, its leaving as that card taken
    # back, and the table where the arm had lain looked like an arm for 12 s more, so the next
    # card went unseen. Now the arm is a hand for as long as it rests (up to a minute), the
    # status line's "pile hidden" can be said, and the next card is seen at once.
    scene = Scene()
    video, watcher = scene.video, scene.watcher
    clock = iter(range(10_000))

    def feed(pictures) -> list[dict]:
        new = []
        for picture in pictures:
            new += watcher.feed(picture, next(clock) / 10.0)
        return new

    feed(video._frame(None, []) for _ in range(8))
    scene.cards = [scene.Placed("red_5", 365, 190, 0)]
    video.pile = list(scene.cards)
    video._touch()
    assert [e["card"] for e in feed(video._frame(None, []) for _ in range(8))] == ["red_5"]
    # the recognizer, asked while the hand is there, reads the fingers as another card
    scene.detector.script = lambda frame: [Detection("red_4", 0.95, (325.0, 130.0, 405.0, 250.0))]
    rng = np.random.default_rng(3)
    resting = [video._frame(((640.0, 200.0), (365.0 + rng.uniform(-2, 2), 190.0 + rng.uniform(-2, 2))), [])
               for _ in range(250)]  # 25 s
    assert feed(resting) == []
    assert watcher.pile_hidden >= 20.0
    scene.detector.script = scene._read
    assert feed(video._frame(None, []) for _ in range(8)) == []  # the hand went: red_5 is still on top
    assert watcher.pile_hidden == 0.0
    scene.cards.append(scene.Placed("blue_5", 350, 180, 10))
    video.pile = list(scene.cards)
    video._touch()
    assert [e["card"] for e in feed(video._frame(None, []) for _ in range(8))] == ["blue_5"]


def test_a_sleeve_left_over_the_pile_for_a_minute_does_not_blind_it_for_good():
    # Something lying still across the pile from the table's edge (a sleeve, a bag strap; or
    # light the watcher cannot follow) looks like an arm. After arm_rest_s unchanged it is
    # taken as part of the pile's picture: the pile is watched again and the next card is
    # seen, no card is read out of the sleeve, and when it is taken away nothing happens.
    scene = Scene()
    video, watcher = scene.video, scene.watcher
    watcher.arm_rest_s = 20.0  # as the default minute, quicker to watch
    clock = iter(range(10_000))

    def feed(picture: np.ndarray, frames: int) -> list[dict]:
        return [e for _ in range(frames) for e in watcher.feed(picture, next(clock) / 10.0)]

    def lay(name: str, x: float, y: float, angle: float) -> None:
        scene.cards.append(scene.Placed(name, x, y, angle))
        video.pile = list(scene.cards)
        video._touch()

    feed(video._frame(None, []), 8)
    lay("red_5", 365, 190, 0)
    assert [e["card"] for e in feed(video._frame(None, []), 8)] == ["red_5"]
    sleeve = video._frame(((640.0, 200.0), (365.0, 190.0)), [])
    scene.detector.script = lambda frame: [Detection("red_4", 0.95, (325.0, 130.0, 405.0, 250.0))]
    assert feed(sleeve, 150) == [] and watcher.pile_hidden >= 14.0  # hidden, and said so
    assert feed(sleeve, 100) == [] and watcher.pile_hidden == 0.0  # past arm_rest_s: watched again
    scene.detector.script = scene._read
    assert feed(video._frame(None, []), 10) == []  # the sleeve taken away: red_5 is still on top
    lay("blue_5", 350, 180, 10)
    assert [e["card"] for e in feed(video._frame(None, []), 8)] == ["blue_5"]


def test_one_unsure_reading_among_weak_ones_is_no_card():
    # The top card nudged; the recognizer, looking again, finds a "wild draw four" in the
    # table's pattern beside it (a honeycomb table): once at 0.55, then only weakly. No card
    # came there, and none is reported; the next card laid is.
    scene = Scene()
    scene.show([])
    assert [e["card"] for e in scene.show([("red_5", 365, 190, 0)])] == ["red_5"]
    pattern = (240.0, 75.0, 320.0, 180.0)  # in the pile's zone, clear of the card
    looks = iter([0.55])
    scene.detector.script = lambda frame: [Detection("wild_draw_four", next(looks, 0.3), pattern)]
    assert scene.show([("red_5", 385, 205, 12)], frames=12) == []
    scene.detector.script = scene._read
    assert [e["card"] for e in scene.show([("red_5", 385, 205, 12), ("blue_2", 350, 180, 10)])] == ["blue_2"]


@pytest.mark.parametrize("where", [(-2, -10, 22), (6, 4, -22)])
def test_watcher_a_card_laid_face_down_turned_then_taken_back_is_a_take_back(where):
    # A player lays a card face down on the pile, turns it over where it lies, and takes it back
    # (illegal). The back, which the recognizer does not name, was the pile's last picture when
    # the card came; after the take-back the pile looks as it did before the back. (The card
    # beneath was laid a second time: seen where it lay, and where the back's edges were gone
    # taken for the turned card still showing.)
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("red_4", 15, 10, -25), ("blue_6", 0, -5, 30), ("green_3", 28, -8, 10), ("back", *where)):
        lay(*card)
    back = tv.pile[-1]
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, Placed("yellow_skip", back.cx, back.cy, back.angle)))  # turned over
    _by_hand(tv, add, tv.pile.pop)  # and taken back
    # the recognizer names the top card only, and no card in a back
    events, _ = _watch_pile(frames, read=lambda k, pile: [d for d in pile[:1] if d.card != "back"])
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "red_4"), ("lay", "blue_6"), ("lay", "green_3"), ("lay", "yellow_skip"), ("take_back", None)]


def _slid(card, dx: float, dy: float, turn: float):
    from companion.synth.tablevideo import Placed

    return Placed(card.name, card.cx + dx, card.cy + dy, card.angle + turn)


@pytest.mark.parametrize("pile,slide", [
    ((("red_8", 11, 12, 21), ("red_6", 9, -8, -14), ("red_skip", -7, 5, 18)), (27, 5, -3)),
    ((("red_8", -15, -10, -14), ("red_6", 1, -5, 12), ("red_skip", -2, 10, 15)), (26, 7, -5)),
    ((("red_8", -1, 14, 5), ("red_6", -4, 7, 1), ("red_skip", 7, -3, -26)), (-14, -11, -10)),
])
def test_watcher_the_top_card_slid_by_hand_on_cards_of_its_colour_is_no_second_card(pile, slide):
    # A player straightens the pile: the top card, a red skip lying aslant on red cards, is slid
    # 14-27 px and turned. Where it lay, the cards beneath show again (at full resolution; the
    # work picture hardly changed, red on red). It was taken back and laid again, or laid twice.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in pile:
        lay(*card)
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, _slid(tv.pile[-1], *slide)))
    events, _ = _watch_pile(frames, read=lambda k, pile: pile[:2])
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "red_8"), ("lay", "red_6"), ("lay", "red_skip")]


def test_watcher_a_card_laid_right_after_the_top_card_was_slid_is_laid():
    # One player straightens the pile and the next lays a card at once, before the pile was
    # still: the top card read moved (no news) must not hide the new card.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("green_6", 0, -10, 5), ("green_7", 15, 0, -5)):
        lay(*card)

    def slide_and_lay() -> None:
        from companion.synth.tablevideo import Placed

        tv.pile[-1] = _slid(tv.pile[-1], 38, -17, 0)
        tv.pile.append(Placed("green_9", tv.pile_centre[0] - 25, tv.pile_centre[1] + 20, 0))

    _by_hand(tv, add, slide_and_lay)
    events, _ = _watch_pile(frames)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "green_6"), ("lay", "green_7"), ("lay", "green_9")]


def test_watcher_the_top_card_slid_off_the_card_beneath_is_no_take_back():
    # The top card is slid off most of the card beneath: that card now reads surely where it
    # lay, as after a take-back, but the top card reads surely beside it. It was taken back.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("blue_3", 20, 15, 0), ("wild_draw_four", -10, 5, 0), ("yellow_4", 5, -5, 0)):
        lay(*card)
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, _slid(tv.pile[-1], 45, 5, 0)))
    # a card shows surely where it shows at all
    events, _ = _watch_pile(frames, read=lambda k, pile: [Detection(d.card, 0.97, d.box) for d in pile[:2]])
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "blue_3"), ("lay", "wild_draw_four"), ("lay", "yellow_4")]



def test_watcher_a_yellow_card_laid_on_yellows_in_a_soft_720p_picture_is_no_take_back():
    # A 640x480 camera's picture upscaled into 1280x720 (soft): a yellow 0 laid over a yellow 5,
    # where a yellow 3 lay beneath, left the small picture almost as it was before the yellow 5
    # came, and was taken for the 5 taken back (and the 0 missed). The yellow 3's face, where it
    # lay, says no: a new card lies there. (The camera probe's rendered video, seed 200.)
    import cv2

    video = TableVideo(plan_session(20, seed=200), VideoSpec(seed=200))
    frames = []
    for frame in video.frames():
        frames.append(frame)
        if len(frames) == 885:  # the yellow 0 lands at 86.9 s and rests at 87.3 s
            break

    def soft_720p(picture: np.ndarray) -> np.ndarray:
        out = np.zeros((720, 1280, 3), np.uint8)
        out[:, 160:1120] = cv2.resize(picture, (960, 720), interpolation=cv2.INTER_CUBIC)
        return out

    def moved(box):
        return [box[0] * 1.5 + 160, box[1] * 1.5, box[2] * 1.5 + 160, box[3] * 1.5]

    truth = [{**line, **({"box": moved(line["box"])} if "box" in line else {})} for line in video.truth]
    zones = Zones.default().scaled_to(960, 720).to_dict()
    zones = Zones.from_dict({"frame": [1280, 720], **{name: [[x + 160, y] for x, y in corners]
                                                        for name, corners in zones.items() if name != "frame"}})
    truthful = TruthDetector(truth)
    watcher = Watcher(truthful, zones)
    events = []
    for k in range(780, 885):  # from 78 s: the yellow 3, the yellow 5 and the yellow 0 are laid
        truthful.t = k / 10.0
        events += watcher.feed(soft_720p(frames[k]), k / 10.0)
    assert [(e["type"], e.get("card")) for e in events][-3:] == [("lay", "yellow_3"), ("lay", "yellow_5"), ("lay", "yellow_0")]


@pytest.mark.parametrize("jolt,twin", [((3, 2, 0), (25, 10, 20)), ((6, -3, 2), (25, 10, 20)), ((3, 2, 0), (30, -5, 0))])
def test_watcher_a_twin_laid_as_the_first_card_is_jolted_a_few_px_is_a_lay(jolt, twin):
    # The hand laying a second red 5 jolts the first by a few pixels: where the first lay it
    # still shows, a few pixels off. (Compared without a shift, it was the first card slid, and
    # the twin was missed.) A card slid by a player moves 12 px or more.
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("red_2", -5, 5, 4)
    lay("red_5", 0, 0, 12)
    cx, cy = tv.pile_centre

    def twin_and_jolt() -> None:
        tv.pile[-1] = _slid(tv.pile[-1], *jolt)
        tv.pile.append(Placed("red_5", cx + twin[0], cy + twin[1], twin[2]))

    _by_hand(tv, add, twin_and_jolt)
    events, _ = _watch_pile(frames)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "red_2"), ("lay", "red_5"), ("lay", "red_5")]


def test_watcher_a_card_laid_face_down_leaving_a_deeper_card_peeking_out_is_no_card_till_turned():
    # A player lays a card face down over the top card and turns it over a moment later. While
    # the back lies there, the recognizer names no card in it, only a card three down peeking out
    # where it lay, surely: that card was laid a second time (a real blue draw two, at 0.94).
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("red_4", 46, 6, 12), ("blue_6", -10, -5, 30), ("green_3", -12, -2, 10), ("back", -14, -4, -8)):
        lay(*card)
    back = tv.pile[-1]
    add(tv._idle(1.5))
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, Placed("yellow_skip", back.cx, back.cy, back.angle)))

    def read(k, pile):
        if pile and pile[0].card == "back":
            return [Detection(d.card, 0.94, d.box) for d in pile if d.card == "red_4"]
        return pile[:1]

    events, _ = _watch_pile(frames, read=read)
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "red_4"), ("lay", "blue_6"), ("lay", "green_3"), ("lay", "yellow_skip")]


def test_watcher_cards_a_face_down_card_hid_seen_again_as_it_is_turned_are_not_laid_again():
    # A card laid face down hides part of the cards beneath (no card is read in it); the hand
    # comes back, lifts it, turns it over and lays it down. While the hand is there, the wild
    # draw four it half hid shows again, boxed taller than it was: it was laid a second time
    # (a real one, read at 0.93).
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("wild_draw_four", 22, -18, 10), ("red_4", -10, 5, 20), ("green_3", -12, 0, -10), ("back", 0, -4, 5)):
        lay(*card)
    add(tv._idle(1.5))
    back, seat = tv.pile.pop(), tv._seat_point(0, 4)
    palm = (back.cx - 20, back.cy + 30)
    add(tv._reach(seat, palm, lambda pm, u: [], 0.6))
    tv._touch()
    lifted = Placed("blue_1", back.cx, back.cy, back.angle + 8)
    turned = len(frames) + 2  # lifted a little, turned over: the back, then the face
    add(tv._frame((seat, palm), [Placed(name, back.cx, back.cy, back.angle + 8)])
        for name in ("back", "back", "blue_1", "blue_1"))
    tv.pile.append(Placed("blue_1", back.cx, back.cy, back.angle))
    tv._touch()
    add(tv._reach(palm, seat, lambda pm, u: [], 0.5, seat=seat))
    add(tv._idle(1.0))

    def read(k, pile):
        if pile and pile[0].card == "back":
            return []
        if k in (turned, turned + 1):
            wdf = next(d for d in pile if d.card == "wild_draw_four")
            x1, y1, x2, y2 = wdf.box
            return [Detection("blue_1", 0.95, tuple(float(v) for v in tv._box(lifted))),
                    Detection("wild_draw_four", 0.93, (x1 + 10, y1, x2, y2 + 40))]
        return pile[:1]

    events, _ = _watch_pile(frames, read=read)
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "wild_draw_four"), ("lay", "red_4"), ("lay", "green_3"), ("lay", "blue_1")]


def test_watcher_a_weak_reading_beside_a_card_laid_face_down_is_no_card_after_it_is_straightened():
    # A card lies face down on the pile; a hand straightens it by 3 px and goes: a faint change,
    # worth a look for a card laid squarely on the top one. The strip of an old blue card at
    # the pile's edge, read as a blue 0 at 0.29 where nothing changed, was laid.
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("red_4", 15, 10, -25), ("blue_6", 0, -5, 30), ("green_3", 8, -8, 10), ("back", 4, -4, -8)):
        lay(*card)
    visited, back = len(frames), tv.pile[-1]
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, Placed("back", back.cx + 3, back.cy + 2, back.angle + 1)))
    strip = tuple(float(v) for v in tv._box(tv.pile[1]))
    strip = (strip[2] - 20, strip[1] + 20, strip[2] + 10, strip[3] - 10)

    def read(k, pile):
        if pile and pile[0].card == "back":
            return [Detection("blue_0", 0.29, strip)] if k >= visited else []
        return pile[:1]

    events, _ = _watch_pile(frames, read=read)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "red_4"), ("lay", "blue_6"), ("lay", "green_3")]


def test_watcher_a_card_read_unsurely_over_one_whose_card_beneath_reads_surely_is_laid():
    # A green 9 laid over a green 5 reads at 0.79; the green 8 beneath, peeking out where it lay
    # with nothing changed over it, reads at 1.0. The 9 was dropped as a card peeking from under
    # a surer one, and the 8 was laid again (on a real table: taken for the 5 taken back).
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("red_4", 15, 10, -25), ("green_8", -30, -34, 5), ("green_5", 6, 8, 10)):
        lay(*card)
    laid = len(frames)
    lay("green_9", 20, 14, 25)

    def read(k, pile):
        if k < laid:
            return pile[:1]
        return [Detection(d.card, {"green_9": 0.79, "green_8": 1.0}[d.card], d.box)
                for d in pile if d.card in ("green_9", "green_8")]

    events, _ = _watch_pile(frames, read=read)
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "red_4"), ("lay", "green_8"), ("lay", "green_5"), ("lay", "green_9")]


def test_watcher_the_top_card_where_a_twin_lies_deeper_is_still_the_top_card():
    # A red 5 on top lies where an older red 5 lay, three down. After a faint change beside it,
    # the pile read again gives the top card, surely, and a yellow 5 weakly in a box round the
    # pile: the top card was dropped as the deeper red 5 seen again, and the yellow 5 was laid.
    from companion.vision.watcher import _PileCard

    watcher = Watcher(FakeDetector(script=lambda frame: []), Zones.default())
    watcher.feed(np.full((480, 640, 3), 90, np.uint8), 0.0)
    pile = [_PileCard("red_5", None, (300, 114, 393, 236)), _PileCard("yellow_2", None, (299, 119, 384, 238)),
            _PileCard("red_5", None, (309, 122, 385, 236)), _PileCard("red_5", None, (298, 112, 392, 234))]
    change = np.zeros(watcher._shape, np.uint8)
    change[12:20, 58:66] = 1  # the pile's upper left, outside the red 5
    found = [Detection("red_5", 1.0, (298, 113, 392, 235)), Detection("yellow_5", 0.8, (226, 39, 370, 251))]
    assert watcher._pick(found, change, pile).card == "red_5"


def test_watcher_a_twin_laid_over_where_its_namesake_lies_three_down_is_laid():
    # The first yellow 8 lies three cards down; the second lands almost where it lay. A card
    # of the pile read again where it lay is no news, but this one's face came over the cards
    # above the first: its box's middle changed.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("yellow_8", 0, 0, 5), ("green_2", 12, -8, 30), ("green_4", -12, 6, -25), ("yellow_8", 2, 1, 7)):
        lay(*card)
    events, _ = _watch_pile(frames)
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "yellow_8"), ("lay", "green_2"), ("lay", "green_4"), ("lay", "yellow_8")]


def test_watcher_a_card_laid_on_a_card_left_face_down_and_taken_back_is_a_take_back():
    # A card left face down on the pile covers the card beneath's face: the card laid on it and
    # taken back leaves the pile as it was before it came, which is enough. (The card beneath
    # looked changed under the back, and the take-back was missed.)
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("red_4", 15, 10, -25), ("blue_6", 0, -5, 30), ("back", 6, 4, -22), ("green_3", 8, 6, -10)):
        lay(*card)
    _by_hand(tv, add, tv.pile.pop)
    events, _ = _watch_pile(frames, read=lambda k, pile: [d for d in pile[:1] if d.card != "back"])
    assert [(e["type"], e.get("card")) for e in events] == [
        ("lay", "red_4"), ("lay", "blue_6"), ("lay", "green_3"), ("take_back", None)]


def test_watcher_a_first_card_turned_up_from_face_down_then_gathered_is_no_take_back():
    # A dealer turns up the first card from face down where it lies, then a misdeal: the pile
    # is gathered up. The empty table says nothing can be taken back (it said take_back).
    from companion.synth.tablevideo import Placed

    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("back", 0, 0, 8)
    back = tv.pile[-1]
    _by_hand(tv, add, lambda: tv.pile.__setitem__(-1, Placed("yellow_skip", back.cx, back.cy, back.angle)))
    _by_hand(tv, add, tv.pile.pop)
    events, _ = _watch_pile(frames, read=lambda k, pile: [d for d in pile if d.card != "back"])
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "yellow_skip")]


def _hurried(tv, add, first: tuple, second: tuple, clear: int = 1, taken_back: bool = False) -> None:
    """Two players lay a card each within half a second: the second arm (from seat 2) comes
    over the pile as the first (from seat 0) goes, so the pile is never still between the two
    cards, only clear of arms for `clear` frames. `first`, `second`: (name, dx, dy, angle).
    `taken_back`: the second hand takes the first card away as it lays its own."""
    from companion.synth.tablevideo import Placed

    (cx, cy), palms = tv.pile_centre, []
    for seat_no, (name, dx, dy, angle) in ((0, first), (2, second)):
        seat, card = tv._seat_point(seat_no, 4), Placed(name, cx + dx, cy + dy, angle)
        palms.append((seat, _palm(seat, card), card))
    (seat_a, palm_a, card_a), (seat_b, palm_b, card_b) = palms
    add(tv._reach(seat_a, palm_a, tv._hold_card(seat_a, card_a), 0.7))
    tv.pile.append(card_a)
    tv._touch()
    add(list(tv._reach(palm_a, seat_a, lambda pm, u: [], 0.5, seat=seat_a))[:2])  # the first hand going
    add(tv._idle(clear / 10))
    add(list(tv._reach(seat_b, palm_b, tv._hold_card(seat_b, card_b), 0.7))[4:])  # the second already near
    if taken_back:
        tv.pile.remove(card_a)
    tv.pile.append(card_b)
    tv._touch()
    add(tv._reach(palm_b, seat_b, lambda pm, u: [], 0.5, seat=seat_b))
    add(tv._idle(1.0))


@pytest.mark.parametrize("first,second", [
    (("blue_reverse", 12, -6, -15), ("yellow_reverse", -14, 9, 10)),
    (("red_6", -10, 8, 12), ("red_skip", 14, -4, -18)),
    (("green_7", 8, 10, 20), ("green_7", -12, -8, -5)),  # a jump-in: the same card
])
def test_watcher_two_cards_laid_within_half_a_second_are_two_lays(first, second):
    # Two players lay cards one right after the other (a jump-in, a quick table): the pile is
    # clear of arms for a moment between the hands but never still. Only the second card was
    # laid; the first, read surely in that moment and still peeking out, is laid before it.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("blue_5", 0, 0, 5)
    _hurried(tv, add, first, second)
    events, _ = _watch_pile(frames)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_5"), ("lay", first[0]), ("lay", second[0])]


@pytest.mark.parametrize("first,second", [
    (("blue_2", 25, 15, 20), ("blue_9", -10, -5, -5)),  # a player changed their mind: gone from where it lay
    (("green_7", 8, 10, 20), ("green_7", 0, 0, 0)),  # the next player straightened it: of its name, not peeking out
    (("red_2", 3, 4, 4), ("red_4", 0, 0, 0)),  # seen where the card that stayed lies: that card, misread landing
])
def test_watcher_a_card_seen_between_two_hands_and_gone_after_is_not_laid(first, second):
    # A card seen for a moment between two hands and gone again when the pile is still (where
    # the card that came does not cover it, the pile looks as it was before, not as then), or
    # that may be the card that stayed, was not laid there: only the card that stayed is.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("blue_5", -30, 20, 5)
    _hurried(tv, add, first, second, taken_back=True)
    events, _ = _watch_pile(frames)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_5"), ("lay", second[0])]


def test_watcher_a_card_two_down_peeking_out_while_the_top_card_shows_whole_is_no_news():
    # A hand goes over the pile and leaves something by it (a corner of a napkin): the
    # recognizer reads the top card surely where it lay, and a card two down, peeking out where
    # it lay, more surely still. Nothing changed over that card and nothing lies over the top
    # card: it is no card laid (it was laid again).
    frames, lay, visit, add, tv = _pile_session(seed=5)
    for card in (("blue_draw_two", 40, -5, 80), ("blue_5", -20, 0, 5), ("green_5", -10, 10, -5)):
        lay(*card)
    crumb_from = len(frames)
    visit()

    def camera(k, picture):
        if k >= crumb_from + 3:  # put down as the hand passed
            picture = picture.copy()
            picture[80:120, 245:275] = (30, 40, 60)
        return picture

    def read(k, pile):
        return [Detection(d.card, 0.97 if d.card == "blue_draw_two" else d.confidence, d.box) for d in pile]

    events, _ = _watch_pile(frames, read=read, camera=camera)
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_draw_two"), ("lay", "blue_5"), ("lay", "green_5")]


def _misread(names: dict, cut: str | None = None):
    """A recognizer that reads each card of the pile with the likeliest three names given in
    `names` (name -> ((name, p), ...)), the card named `cut` boxed short of its lower third (a
    hand over it); other cards as perfectly as before."""
    def read(k, pile):
        out = []
        for d in pile:
            x1, y1, x2, y2 = d.box
            box = (x1, y1, x2, y1 + 0.7 * (y2 - y1)) if d.card == cut else d.box
            out.append(Detection(names[d.card][0][0], d.confidence, box, names[d.card]) if d.card in names else d)
        return out
    return read


_SEVEN_OR_ONE = {"blue_1": (("blue_1", 0.94), ("blue_7", 0.04), ("yellow_1", 0.01)),
                 "blue_7": (("blue_7", 0.99), ("blue_1", 0.005), ("red_7", 0.002))}


def test_watcher_a_card_half_hidden_and_misread_as_it_landed_is_one_lay():
    # A blue 7 lands aslant and, a hand still over its lower third, reads for a moment as a
    # blue 1 (a 7 and a 1: each the other's likeliest second name); the next hand slides it
    # straight. That moment showed the blue 7 itself, not a blue 1 laid under it (a blue 1
    # was played too: real-card habits bench).
    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("blue_5", 0, 0, 5)
    _hurried(tv, add, ("blue_1", 10, 8, 12), ("blue_7", 0, 0, 0), taken_back=True)
    events, _ = _watch_pile(frames, read=_misread(_SEVEN_OR_ONE, cut="blue_1"))
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_5"), ("lay", "blue_7")]


def test_watcher_two_cards_each_read_as_maybe_the_other_are_two_lays_when_the_first_peeks_out():
    # Two hands lay a blue 1 and a blue 7 within half a second, the 1 still peeking out from
    # under the 7: two cards were laid, however alike their readings.
    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("blue_5", 0, 0, 5)
    _hurried(tv, add, ("blue_1", 12, -6, -15), ("blue_7", -14, 9, 10))
    events, _ = _watch_pile(frames, read=_misread(_SEVEN_OR_ONE))
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_5"), ("lay", "blue_1"), ("lay", "blue_7")]


def test_watcher_a_number_laid_over_its_namesake_of_another_colour_within_half_a_second_is_two_lays():
    # A blue 8 and, 0.7 s later, a red 8 laid squarely over it (a legal play, by number): each
    # reading names the other's colour among its likeliest three, as a number's other colours
    # always are. The blue 8, seen for a moment between the hands, was laid.
    eights = {"blue_8": (("blue_8", 0.99), ("red_8", 0.004), ("green_8", 0.002)),
              "red_8": (("red_8", 0.993), ("yellow_8", 0.004), ("blue_8", 0.0016))}
    frames, lay, visit, add, tv = _pile_session(seed=5)
    lay("blue_5", 0, 0, 5)
    _hurried(tv, add, ("blue_8", 10, 8, 12), ("red_8", 0, 0, 0))
    events, _ = _watch_pile(frames, read=_misread(eights, cut="blue_8"))
    assert [(e["type"], e.get("card")) for e in events] == [("lay", "blue_5"), ("lay", "blue_8"), ("lay", "red_8")]
