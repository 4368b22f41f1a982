"""From frames to camera events: `lay`, `take_back` and `reveal`.

The watcher decides only on still pictures. Every frame it does cheap work on a small grey
copy (about 160 pixels wide): motion inside the discard pile and reveal zones, and, once a
zone has been still for `still_frames` frames, whether an arm reaches into it from the edge
of the picture (a hand resting over the pile is not a card). Only then does it compare the
zone with the last settled picture of it, in an illumination-free form (high-passed log
brightness: shadows and lighting drift are smooth, cards have edges), and only a settled
change that is card-sized, not a small shift of the whole pile (a bump, camera shake) and
not the picture from before the top card (a take-back) calls the detector to name the card.

A card that came to rest on the pile is a `lay`: {"type": "lay", "card": name, "t": t,
"top": [[name, probability], ...]} with the recognizer's likeliest names, best first. Whether
it starts a hand (`flip`) or is a `play`, and which of its readings it is, the referee
decides from the game (companion/referee/service.py): the camera cannot know a hand is starting.
So a second `red_5` on a `red_5` is a new lay: its position and angle differ, and the change
is judged on the picture, not on the name. A card laid squarely on one of its colour (a red 8
on a red 5) changes only its symbol, too little for the small picture: after a hand went over
the pile, the top card's face is also compared at full resolution. The top card moved (picked
up from the edge of the pile, straightened) is no new card: where it lay, the pile looks as
before it came. The card beneath showing again where it lay is a `take_back`, even when the
picture changed. Cards laid in the reveal area become one `reveal` with every card name,
once two readings of the still cards agree (a reveal is scored at once). A box counts there
only when read surely enough and where the area's colour changed since it was empty, and a
box mostly over another is one card; cards read again where shown cards lay make no new
reveal. The watcher cannot know whose hand it is, so the event has no `player` key and the
run layer fills it in.
Every event carries `t`, the time of the frame that confirmed it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from companion.vision.crops import box_area, box_intersection, box_iou, median_area
from companion.vision.zones import Zones

log = logging.getLogger(__name__)


# The table's brightness (median grey outside the zones) at and above which motion_level holds
# as set: the darkest felt the generated videos draw sits at 62-78, the real-card bench's
# tables at 90-130, so neither moves. Below it the level falls with the light, down to DIMMEST of
# itself (a room lit at a third, where sensor noise would start to count as motion). Set from
# the generated videos' felt (probe16 dimmed them: 65 % light already held a zone "covered").
LIGHT_REF = 60.0
DIMMEST = 0.35
# Two boxes of one card that did not move overlap at least this much (IoU). The recognizer
# boxes a laid card with IoU 0.89 or more against the true box in 95 % of rendered piles under
# the camera shifts (`uno-companion fit-sharpness --per-card 30`: box_iou p5 0.89, p1 0.80,
# median 0.957), and 1 - IoU is a distance (it obeys the triangle inequality), so two such
# boxes of one card overlap by 2 x 0.89 - 1 = 0.78 or more. A second card of the same name
# laid on the first overlapped it less in every such case of the generated sessions (0 of 21
# at 0.74 or more), and a card nudged a few pixels stays above it. (Measured with finder 5;
# finder 7 gives p5 0.865, p1 0.738, which would make it 0.73: kept at 0.78, since a box re-read
# lower is still no new card unless read at 0.9 or more and changed a fifth of its box, and the
# watcher's figures were measured with it. 0.73 measured on 27 Nov: the real-card habits videos'
# top cards slid 10-14 px no longer read anew, 4/9/2/4 -> 1/9/2/4 phantom/missed/wrong/kind, but
# the real-card bench went 0/2/0/3 -> 0/7/1/3 and the rendered habits 3/7/1/2 -> 2/10/0/2: kept.)
SAME_OVERLAP = 0.78

# What counts as a card laid in the reveal area (`Watcher._revealed`). Each was set on the
# rendered bench videos read by the shipped model (`bench-watch --detector yolo`, seeds
# 100-103, 55 plays: 250 readings of revealed cards, 6 second boxes of a revealed card, 2
# detections of no card), never on the real-card bench, which only measured them afterwards.
# - REVEAL_CONFIDENCE: the recognizer reports boxes from 0.25 up, and a patterned table
#   (honeycomb) gives weak "wild" boxes in the empty area. Every revealed card there was read
#   at 0.70 or more; a card read at less than even odds is not taken.
# - REVEAL_COVER: the share of a box's middle whose colour differs from the empty area. A
#   revealed card covered 0.92 or more; boxes of no card 0.48 and 0.56. Midway: 0.75. (On a
#   light table real cards cover less: a box whose middle at full resolution no longer looks
#   as the empty area did counts too, `Watcher._face_came`, FACE_SAME.)
# - REVEAL_INSIDE: a box whose smaller part lies this much inside another is one card, boxed
#   twice. Revealed neighbours overlapped at most 0.43 of the smaller box; second boxes of one
#   card 0.58 or more ("mostly inside": over half).
# - REVEAL_SURE: two such boxes are still two cards (fanned closer than a reveal lays them)
#   when both are read at least this surely: the surer of a second box and its card was
#   0.85 at most on the rendered videos, a box of no card 0.64. A box read this surely is
#   also a card without REVEAL_COVER (a card on a light table changes less of its colour).
REVEAL_CONFIDENCE = 0.5
REVEAL_COVER = 0.75
REVEAL_INSIDE = 0.5
REVEAL_SURE = 0.9

# What counts as a card laid on the pile (`Watcher._discard`, `Watcher._settled`). Each set on
# the rendered bench videos read by the shipped model (seeds 100-103, 55 plays: 407 lays),
# never on the real-card bench, which only measured them.
# - LAY_CONFIDENCE: every card laid there was read at 0.82 or more; a patterned table where
#   the pile was gathered up, or a card still half under the hand, reads weaker. A reading
#   under even odds (as REVEAL_CONFIDENCE) names no card.
# - LAY_SURE: a reading under REVEAL_SURE's level (no box of no card reached it) waits for a
#   second reading that agrees (up to max_attempts; then the surest stands, if at least two
#   readings named a card). A second card of
#   the top card's name needs it too: every such card laid there was read at 0.99 or more.
# - SAME_COVER: a card laid on one of its own name changed 0.40 or more of its box's middle
#   (17 such lays, `Watcher._cover`); half that, so a card laid nearly square on its twin
#   still counts. Or its box's middle changed at full resolution (`Watcher._face_came`):
#   a yellow 1 laid on a yellow 1 a third of a card up changed too little of the small
#   picture there (the real-card bench, `bench-watch --real`).
# - LAY_SIZE: every card laid there was boxed at 0.56 or more of the median area of the cards
#   laid on the pile before it (399 lays); a box under 0.4 of it is no card come to rest.
# - LAY_CHANGE: the card that came is where the pile changed. Every card laid there held 0.58
#   or more of the pile's change inside its box; a reading under LAY_SURE needs over half of
#   it (a pattern read in a patterned table beside a pile just gathered up lies where nothing
#   came: the change is where the pile went).
LAY_CONFIDENCE = 0.5
LAY_SURE = REVEAL_SURE
SAME_COVER = 0.2
LAY_SIZE = 0.4
LAY_CHANGE = 0.5
# A card laid changes the pile under itself: of a settled change, this share or more lies in
# the box of a card of the pile's name read again where it lay, if that card was laid anew
# (twins laid on top of the pile near their namesakes three down, real cards: 0.99, and one
# at 0.6, missed; the change a card laid face down made, in the boxes of cards it half hid:
# 0.51 and less). Their middles changed too little to tell them (twins 0.44 to 0.66, hidden
# cards 0.35 and 0.50): with that measure instead the real-card bench missed two twins.
OWN_CHANGE = 0.8

# FACE_SAME: a card laid squarely on one of its colour (a red 8 on a red 5, 3 degrees apart)
# changes only its symbol, too little for the pile's small picture (not one pixel of it
# changed), so after a hand went over the pile the top card's face is also compared at full
# resolution (`Watcher._faces_differ`). On the camera probe's rendered video the same card
# matched itself at 0.97-1.0 between frames, the red 8 over the red 5 at 0.73. Nearer the
# same card, since a face taken for changed only costs one reading: the name must differ.
# The same comparison tells a twin's coming where the small picture hardly changed
# (`Watcher._face_came`, SAME_COVER).
FACE_SAME = 0.9
FACE_WIDTH = 96  # px: the box is compared at this width, whatever the camera's resolution
# Where the reveal area was empty, a plain table has no face to compare: its edges are grain,
# and two pictures of it correlate anyhow (an empty felt matched itself at 0.86 a few seconds
# later). Edges this strong (the spread of the band-pass of log brightness) are a printed
# face: an empty felt measured 0.006-0.009, the middles of rendered and real cards 0.14-0.22
# (under a blurred, washed-out webcam 0.016-0.027: such a card is left to the colour cover).
FACE_STRUCTURE = 0.04
# A card's own corners are found from the pixels its coming changed (`Watcher._card_corners`):
# that patch must fill this much of its smallest turned rectangle to be taken as the card's
# shape; else its box's corners are used, as before. A card wholly marked fills it but for its
# rounded corners and the work picture's coarse edges; a card laid partly on one that looks like
# it leaves an L or a strip. Set on the face probe's rendered videos (not a photo): a card's own
# patch filled 0.73-0.96 there (pushed aslant, turned, a yellow 1 on a yellow 6, an arm on
# wood), a green 7 laid across its twin 0.68-0.78, so it does not part those fully; every one
# of those videos reads right with it.
CARD_FILL = 0.7
# The top card read in a box whose narrower side is under this share of the card's shorter side
# is partly hidden (`Watcher._partly_hidden`): at any turn a whole card's box is at least its
# shorter side across. Two boxes of one card differ by about 5 % of a side at the 95th
# percentile (IoU 0.89 with the true box, `fit-sharpness`); twice that is allowed.
PART_OF_CARD = 0.9
# ... and lies within the top card's box: this share of it at least. A part of the card is inside
# the card's box up to the boxes' jitter (about 5 % of a side on either edge: 0.9 of its area);
# 0.8 let a twin laid straighter on an aslant first card (0.81 of its box inside) pass for the
# first one half hidden, and the play was missed
WITHIN = 0.9
# Whether the top card left where it lay (`Watcher._left_where_it_lay`): its outline is the card of
# CARD_ASPECT (width over height: UNO cards are 56 x 87 mm, 0.64; the renderer's 0.655) that
# fills its box, turned the way the picture's edges follow. Where it lay and the card now read
# does not reach (inside LEFT_INSIDE of its outline, beyond LEFT_OUTSIDE of the new one: the
# boxes' jitter), the picture now and at the last settled moment are compared as edges (light
# and shadow are smooth): correlated over LEFT_SAME, the first card still shows there and the
# new one is a second card of its name; under it, what lay beneath shows: the top card was
# moved. The same card seen again correlates 0.91-0.98 there, cards slid 14-30 px and turned
# 0.12 or less (the camera probe's rendered nudge video: a red skip slid on red cards, where the
# work picture's patches could not tell, was laid twice); half way between. A place under LEFT_AREA of the card, or plain
# there (FACE_STRUCTURE), tells nothing; the place is first thinned by LEFT_EDGE of the card's
# shorter side (5 px at 640x480): slivers along the cards' edges, where the new card's shadow
# falls and a pixel's jitter moves an edge, told a twin laid a card's fifth up on its twin (a
# sliver of it left showing) for the first one moved (0.48); thinned, 0.68 (on 0.045 of the card).
# Thinned, a wild draw four slid 12 px and straightened leaves 0.047 of the card, correlated
# 0.13 (`bench-watch --habits`: it was laid twice at LEFT_AREA 0.08); 0.04 takes it in.
CARD_ASPECT = 0.65
LEFT_INSIDE, LEFT_OUTSIDE = 0.92, 1.08
LEFT_SAME = 0.5
LEFT_AREA = 0.04
LEFT_EDGE = 0.07
LEFT_SHIFT = 6
# The top card read surely beside where it lay is that card slid (no take-back of it) only where
# its box still overlaps where it lay by this share of itself: a card slid 12-30 px keeps 0.4 or
# more (probe16's nudge video, 0.42 with the box drawn worst), a card read far off is another.
SLID_NEAR = 0.25
# Two cards laid within half a second by two players leave a frame or two between the hands
# where the first lies still, never a still pile (`Watcher._glimpse`). A card read there counts
# when no more than GLIMPSE_BUSY of its box moved since the frame before (a card in a moving
# hand moves with it; a red skip just laid still settled over 37 % of its box on probe16's jump
# video: set by reasoning, half). GLIMPSES: the moments kept per visit (the one showing least of
# what came lying still goes first).
GLIMPSE_BUSY = 0.5
GLIMPSES = 4
# A card come to rest near the discard pile but off it (under 40 % on its zone, off the reveal
# area) is a player who missed the pile (`Watcher._watch_beside`): it is no card laid, but the
# host is told. What came to rest must be the size of a card: its changed patch BESIDE_SIZE
# times the median box of the cards laid on the pile (a whole card's patch fills 0.7-1 of its
# box, CARD_FILL; its shadow adds to it; under 0.35 it is a corner or a fragment, over 2.5 a
# hand of cards, a cup, a lamp's light). It must lie within BESIDE_NEAR of the card's longer
# side from the pile's zone: a card put down further away is a player's own business. Set by
# reasoning, checked on the camera probe's rendered video of a card laid a card's width beside
# the pile.
BESIDE_SIZE = (0.35, 2.5)
BESIDE_NEAR = 1.0
# Parts of one card come to rest at different times (the part under the hand that laid it once
# the hand has gone); what came to rest within this long is taken together.
BESIDE_RECENT_S = 10.0
# A card of the pile pushed off it by the hand laying the next is no news: the names of the
# pile's last this many cards are not named beside it (under the top two, a card is covered and
# does not slide off alone). A missed card of one of those names goes unsaid, as before.
BESIDE_PUSHED = 3


def beside_words(card: str) -> str:
    """What the console says of a card lying beside the discard pile (`Watcher.beside`)."""
    return f"a {card.replace('_', ' ')} lies beside the discard pile, not on it: not played"


def may_be(d, name: str, readings: Sequence[tuple[str, float]] = ()) -> bool:
    """Whether detection `d` may be the card read as `name` (with `readings`, its likeliest
    names): of its name, or of its colour with each naming the other among its likeliest (a
    blue 7 half under a hand read as a blue 1, the 1 second to the 7 when it showed whole).
    A hand over part of a card hides strokes of its symbol, not its colour, which any part
    shows; and a number's other colours are always among its likeliest names, so a red 8
    laid over a blue 8 stays two cards (rendered habits bench)."""
    if d.card == name:
        return True
    return (d.card.partition("_")[0] == name.partition("_")[0]
            and name in {n for n, _ in d.readings()} and d.card in {n for n, _ in readings})


def one_card(weaker, stronger, inside: float = REVEAL_INSIDE, sure: float = REVEAL_SURE) -> bool:
    """Whether `weaker` is a second box of the card `stronger` boxes (detections with `box` and
    `confidence`): most of the smaller of the two boxes lies inside the other. Revealed cards
    laid side by side overlap far less; two cards fanned closer than that count as two only when
    both are read surely."""
    a, b = weaker.box, stronger.box
    smaller = min(box_area(a), box_area(b))
    if smaller <= 0 or box_intersection(a, b) < inside * smaller:
        return False
    return min(weaker.confidence, stronger.confidence) < sure


@dataclass
class _PileCard:
    name: str
    before: np.ndarray | None  # features of the zone before this card was laid
    box: tuple[float, float, float, float] | None = None  # where the detector saw it
    mark: np.ndarray | None = None  # bool: the pixels its coming changed (where it shows)
    readings: tuple[tuple[str, float], ...] = ()  # the names it was read as when laid, with probabilities
    face: np.ndarray | None = None  # its box at full resolution (`Watcher._face`), as last seen
    earlier: np.ndarray | None = None  # the zone before a change no one could name came before it


@dataclass(eq=False)
class _Glimpse:
    """The discard pile seen at a moment while it was not still (between two hands, say)."""
    frame: np.ndarray  # the full frame
    feat: np.ndarray  # its features (work resolution)
    busy: np.ndarray  # bool: the work pixels moving since the frame before (grown a little)
    shown: int  # how many work pixels differ from the pile's last settled picture and lie still


@dataclass
class _ZoneState:
    name: str
    mask: np.ndarray  # bool, work resolution
    core: np.ndarray  # bool: the zone without its rim, where motion is watched
    bbox: tuple[int, int, int, int]  # x0, y0, x1, y1 at work resolution
    area: int
    still: int = 0
    ref: np.ndarray | None = None  # features at the last settled moment
    ref_frame: np.ndarray | None = None  # the full frame then
    empty: np.ndarray | None = None  # features of the zone with no card on it, when known
    empty_colour: np.ndarray | None = None  # the picture's colour then (brightness divided out)
    empty_frame: np.ndarray | None = None  # and the full frame then
    attempts: int = 0  # detector calls that found no card for the current change
    held: list = field(default_factory=list)  # discard pile: unsure readings of the current change
    visited: bool = False  # something moved over the zone since its last settled picture
    arm_held: bool = False  # an arm was over the zone and nothing in the picture has moved since
    resting: bool = False  # only an arm unchanged for arm_rest_s is over the zone
    covered_since: float | None = None  # when an arm (resting or not) last came over the zone
    faded: bool = False  # that arm has just come to count as part of the zone's picture
    pile: list[_PileCard] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)  # reveal area: the cards last reported
    shown_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)  # and where they lay
    reads: list[list[str]] = field(default_factory=list)  # reveal area: readings since it settled
    unnamed_from: np.ndarray | None = None  # discard pile: `ref` before the changes no one could name since
    # discard pile: `ref` before a change in which no card was found or named since the last lay
    # (a card laid face down, say: it hides cards of the pile, which show again when it is turned)
    hidden_from: np.ndarray | None = None
    glimpses: list[_Glimpse] = field(default_factory=list)  # discard pile: moments seen since it settled (`_glimpse`)

    def change_done(self) -> None:
        """The current change is dealt with: no readings of it are pending."""
        self.attempts, self.held = 0, []


def _inside(shape: tuple[int, ...], corners: np.ndarray, scale: float) -> np.ndarray:
    """The pixels inside the quadrilateral `corners` scaled by `scale` about its middle."""
    import cv2

    middle = corners.mean(axis=0)
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(middle + (corners - middle) * scale).astype(np.int32)], 1)
    return mask.astype(bool)


def _band_pass(grey: np.ndarray) -> np.ndarray:
    """Edges: a band-pass of log brightness (light and shadow are smooth, a symbol's strokes
    and a card's rim are not)."""
    import cv2

    lg = np.log1p(grey.astype(np.float32))
    return cv2.GaussianBlur(lg, (0, 0), 1) - cv2.GaussianBlur(lg, (0, 0), 4)


def _edges(picture: np.ndarray) -> np.ndarray:
    """A colour picture's edges (`_band_pass`)."""
    import cv2

    return _band_pass(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY))


class Watcher:
    """Feed it frames (`feed(frame, t)`); it returns the table events each frame confirms."""

    def __init__(
        self,
        detector,
        zones: Zones,
        still_frames: int = 2,
        work_width: int = 160,
        motion_level: float = 18.0,
        feature_level: float = 0.16,
        min_change: float = 0.012,
        max_attempts: int = 3,
        max_reads: int = 4,
        absorb_s: float = 1.5,
        arm_rest_s: float = 60.0,
        occlusion_level: float = 32.0,
        motion_share: float = 0.015,
        same_overlap: float = SAME_OVERLAP,
        off_pile_share: float = 0.4,
        faint_change: float = 0.3,
        chroma_level: float = 0.4,
        min_arm_share: float = 0.012,
        reveal_confidence: float = REVEAL_CONFIDENCE,
        reveal_cover: float = REVEAL_COVER,
        reveal_inside: float = REVEAL_INSIDE,
        reveal_sure: float = REVEAL_SURE,
        lay_confidence: float = LAY_CONFIDENCE,
        same_cover: float = SAME_COVER,
        lay_sure: float = LAY_SURE,
        lay_size: float = LAY_SIZE,
    ):
        self.detector = detector
        self.zones = zones
        self.still_frames = still_frames
        self.work_width = work_width
        self.motion_level = motion_level
        self.feature_level = feature_level
        self.min_change = min_change  # share of the zone that must change to count as a card
        self.max_attempts = max_attempts
        # a reveal is scored at once and has no undo by camera: it waits until two readings of
        # the still cards agree (or, after this many readings, takes the latest)
        self.max_reads = max_reads
        # outside the zones, a picture still for this long becomes background (a cup, a bumped
        # camera); an arm never does while it is part of a hand over a zone
        self.absorb_s = absorb_s
        # An arm resting over a zone is believed this long; longer, unchanged, it is taken for
        # part of the zone's picture (a sleeve left across the pile, light the light-following
        # missed), so the pile is not blind for good. The status line says "the pile hidden"
        # from 20 s (runner.PILE_HIDDEN_SAY_S), long before. Set by reasoning: a player
        # thinking over their turn rests an arm for seconds to a minute.
        self.arm_rest_s = arm_rest_s
        self._over_zone: np.ndarray | None = None  # the pixels of the arms over a zone in the last frame
        self._frame: np.ndarray | None = None  # the frame being looked at, full resolution
        self.occlusion_level = occlusion_level
        self.chroma_level = chroma_level
        self.min_arm_share = min_arm_share
        self.faint_change = faint_change  # share of min_change worth a look after a hand visited
        self.same_overlap = same_overlap  # IoU: a box overlapping the top card's this much is that card
        # A box whose middle is off the pile still counts with this share of it on the pile: a
        # card laid crooked, half off. A card beside the pile (the draw pile, a hand) overlaps
        # it far less; the default zones have gaps of 35 px and more around the pile.
        self.off_pile_share = off_pile_share
        self.motion_share = motion_share  # share of a zone that must move (camera jitter lights up edges)
        self.reveal_confidence = reveal_confidence  # the least confidence of a revealed card
        self.reveal_cover = reveal_cover  # share of a revealed card's middle changed since the area was empty
        self.reveal_inside = reveal_inside  # share of a box inside another's: one card
        self.reveal_sure = reveal_sure  # confidence at which two such boxes are two fanned cards
        self.lay_confidence = lay_confidence  # the least confidence of a card laid on the pile
        self.same_cover = same_cover  # share of its box's middle a second card of the top's name changes
        self.lay_sure = lay_sure  # a card read less surely is read once more before it is a lay
        self.lay_size = lay_size  # least box area of a card laid, against the cards laid before
        self._age: np.ndarray | None = None
        self._age_t: np.ndarray | None = None
        self._outside: np.ndarray | None = None
        self.detector_calls = 0
        self.frames = 0
        self.table_light = LIGHT_REF  # median grey of the table outside the zones, each frame
        self._shape: tuple[int, int] | None = None
        self._scale = 1.0
        self._prev: tuple[np.ndarray, np.ndarray] | None = None  # last frame: grey, colour
        self._bg: np.ndarray | None = None
        self._window: np.ndarray | None = None  # phase correlation's Hanning window
        self._last_shift: list[tuple[float, float]] = [(0.0, 0.0), (0.0, 0.0)]  # each background's shift that fitted last
        self._zones: dict[str, _ZoneState] = {}
        self._card_boxes: list[tuple[float, float, float, float]] = []  # boxes of the last cards laid on the pile
        self._hidden_since: float | None = None  # when an arm (or a thing) last came over the pile
        self.pile_hidden = 0.0  # seconds the discard pile has been hidden, as of the last frame
        # a card lying beside the discard pile, not on it ({"card", "box", "t"}), until it is moved
        self.beside: dict | None = None
        self._beside_mask: np.ndarray | None = None  # where it lies, at work resolution
        self._beside_seen: list[tuple[int, int, int, int]] = []  # still patches looked at already
        self._beside_since = 0.0  # when the card beside was last read there
        self._rest_t: np.ndarray | None = None  # when each pixel off the zones last came to rest changed
        self._started = False

    # -- per-frame work --------------------------------------------------------------------------
    def _setup(self, frame: np.ndarray) -> None:
        h, w = frame.shape[:2]
        self._scale = self.work_width / w
        ws = (int(round(h * self._scale)), self.work_width)
        self._shape = ws
        zones = self.zones.scaled_to(w, h) if tuple(self.zones.frame) != (w, h) else self.zones
        self._full_zones = zones
        for name in ("discard", "reveal"):
            if not zones.polygon(name):
                continue
            mask = zones.mask(name, ws) > 0
            ys, xs = np.nonzero(mask)
            if len(xs) == 0:
                continue
            core = zones.mask(name, ws, dilate=-0.14) > 0
            self._zones[name] = _ZoneState(
                name, mask, core, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1), int(mask.sum())
            )
        inside = np.zeros(ws, bool)
        for zone in self._zones.values():
            inside |= zone.mask
        self._outside = ~inside

    def _prepare(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        import cv2

        small = cv2.resize(frame, (self._shape[1], self._shape[0]), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
        lg = np.log1p(gray)
        luma = lg - cv2.GaussianBlur(lg, (0, 0), 5)
        # Yellow against blue, relative to brightness: a yellow glyph on a white disc is nearly
        # invisible in grey (a yellow 9 laid on a yellow 1 looked unchanged) but stark here.
        b, g, r = (small[:, :, i].astype(np.float32) for i in range(3))
        yb = ((r + g) / 2 - b) / (gray + 20.0)
        chroma = yb - cv2.GaussianBlur(yb, (0, 0), 5)
        # both in units of their change threshold, so one comparison with 1 serves both
        feat = np.dstack([luma / self.feature_level, chroma / self.chroma_level])
        # colour with the overall brightness divided out: an arm differs from felt and cards by
        # colour over its whole width, where the edge-only features see just its outline. The
        # brightness is the table's: the median outside the zones, which cards laid in a zone
        # and an arm over part of the table hardly move. The mean of the whole picture rose
        # when six white-faced cards were laid in the reveal area, so the table where an arm
        # had just lain (its background from before the arm) differed from it faintly, and
        # that faint "arm" held the reveal up 1.6 s (the bundled demo).
        colour = small.astype(np.float32)
        table = gray[self._outside] if self._outside is not None and self._outside.any() else gray
        self.table_light = float(np.median(table))
        colour *= 128.0 / max(1.0, self.table_light)
        self._small = small
        self._colour = colour
        return gray, feat, colour

    def feed(self, frame: np.ndarray, t: float) -> list[dict]:
        """Look at one BGR frame taken at time `t` (seconds); returns the events it confirms."""
        if frame is None or frame.ndim != 3:
            return []
        if self._shape is None:
            self._setup(frame)
        self.frames += 1
        self._frame = frame
        gray, feat, colour = self._prepare(frame)
        # What counts as background is judged on colour, each channel on its own: an arm can be
        # as bright as the table under it (a brown arm over blue-green felt is the same grey),
        # and an arm that never "moved" in grey soon passed for background, so a hand resting
        # on a card went unseen and the card was read under it. Whether a zone is still stays a
        # question of grey: a one-pixel camera shake lights up every coloured edge in colour
        # (a red card on brown felt is the same grey too), and the arm is found anyway.
        now = self._small.astype(np.float32)
        prev, self._prev = self._prev, (gray, now)
        if prev is None or prev[0].shape != gray.shape:
            return []
        # Motion in grey levels is counted against the light: with the room's light halved, an
        # arm leaving the pile changes half as many levels, too few pixels passed the threshold
        # and the pile stayed "under an arm" until the next hand (a card laid then was missed).
        level = self.motion_level * min(1.0, max(DIMMEST, self.table_light / LIGHT_REF))
        moving = np.abs(gray - prev[0]) > level
        changing = np.abs(now - prev[1]).max(axis=2) > level
        if self._age_t is None:
            self._age_t = np.full(gray.shape, t, np.float32)
        self._age_t[changing] = t  # time each pixel last changed
        events: list[dict] = []
        moved = np.count_nonzero(moving)
        for zone in self._zones.values():
            # motion in the rim is mostly the shadow of an arm going away: watch the core
            least = max(4, self.motion_share * zone.area)
            if np.count_nonzero(moving & zone.core) > least:
                zone.still = 0
                zone.visited = True
                zone.reads = []
            else:
                zone.still += 1
            if moved > least:
                zone.arm_held = False
        settled = [z for z in self._zones.values() if z.still >= self.still_frames]
        pile = self._zones.get("discard")
        if self._started and pile is not None and pile not in settled and pile.ref is not None:
            self._glimpse(pile, frame, feat, moving)
        if not settled:
            return events
        if self._bg is None:
            self._bg = colour.copy()
            self._bg_long = colour.copy()
        else:
            # A lamp switched on (or a cloud) changes the light over the whole table, under an
            # arm too: the backgrounds follow it at once, channel by channel. Only brightness is
            # divided out of `colour`; a warm lamp's tint stayed in the background under the
            # arm that lay there when it came on, which then looked like an arm for good (that
            # strip was never let fade) and the pile was blind to every later card.
            self._bg *= self._light_change(colour, self._bg)
            self._bg_long *= self._light_change(colour, self._bg_long)
        age = t - self._age_t
        # a long-memory background too: where the picture is back to what it was long ago (an
        # arm that rested long enough to fade into the short memory has gone), nothing is there.
        # An arm over a zone last frame never goes into it: a player leaning over the pile while
        # thinking had faded into it after 12 s, the hand was then read as a card laid (and its
        # leaving as the card taken back), and when the arm went the table where it had lain
        # differed from the memory and looked like an arm for 12 s more, the pile blind to the
        # next card.
        old = age >= 8 * self.absorb_s
        if self._over_zone is not None and self._over_zone.shape == old.shape:
            old &= ~self._over_zone
        self._bg_long[old] = colour[old]
        occluded, fresh, arm, self._over_zone = self._occluded(colour, age >= self.arm_rest_s)
        # An arm over a zone is there until something moves: a hand held still over the pile
        # does not go by standing still. Its arm's faint middle (pale skin on a light table)
        # faded into the background in absorb_s, the hand was then cut off from the picture's
        # edge and was no arm, and the card under its fingers was read as laid. (Anywhere in
        # the picture: an arm's tip leaving the pile's rim may move too few of its pixels.)
        # But a zone held only by an "arm" that has not changed for arm_rest_s is watched
        # again, the zone as it is now taken as its picture: a sleeve left across the pile, or
        # light the watcher could not follow (a lamp lighting one side), must not blind it for
        # good. The arm stays out of the backgrounds, so when it goes nothing is there.
        for zone in self._zones.values():
            # (and only once the zone has been covered that long: an arm leaving across a
            # leftover that never changed is no resting arm)
            if not occluded[zone.name]:
                zone.covered_since = None
            elif zone.covered_since is None:
                zone.covered_since = t
            resting = (occluded[zone.name] and not fresh[zone.name]
                       and t - zone.covered_since >= self.arm_rest_s)
            zone.faded = zone.faded or (resting and not zone.resting)
            zone.resting = resting
            zone.arm_held = (zone.arm_held or occluded[zone.name]) and not resting
            occluded[zone.name] = zone.arm_held
        # how long the pile has been taken as covered, for the status line: longer than an arm
        # stays (light the watcher could not follow) is said instead of "ok"
        if occluded.get("discard"):
            self._hidden_since = t if self._hidden_since is None else self._hidden_since
        else:
            self._hidden_since = None
        self.pile_hidden = 0.0 if self._hidden_since is None else t - self._hidden_since
        # inside a zone only after much longer, and never an arm reaching into a zone: its
        # part outside the zone, once still, would otherwise fade into the background and cut
        # a hand resting on the pile off from the picture's edge
        absorb = (age >= self.absorb_s) & (self._outside | (age >= 8 * self.absorb_s)) & ~arm
        # what comes to rest off the zones, different from what lay there: a thing put down
        # (`_watch_beside`); a card's part under the hand that laid it comes to rest later
        if self._rest_t is None or self._rest_t.shape != gray.shape:
            self._rest_t = np.full(gray.shape, -np.inf, np.float32)
        came = absorb & self._outside & (np.abs(colour - self._bg).max(axis=2) > self.occlusion_level)
        self._rest_t[came] = t
        self._bg[absorb] = colour[absorb]
        if not self._started:
            if all(z.still >= self.still_frames for z in self._zones.values()) and not any(occluded.values()):
                self._start(frame, feat)
            return events
        self._watch_beside(frame, age, arm, t)
        for zone in settled:
            if occluded.get(zone.name):
                zone.visited = True
                continue
            if zone.faded:
                # what has rested over the zone arm_rest_s is part of its picture now: a hand
                # over the pile is no card laid (and when it goes, the pile shows as before)
                zone.faded, zone.visited = False, False
                zone.ref, zone.ref_frame = feat, frame
                zone.change_done()
                continue
            if zone.name == "discard":
                events.extend(self._discard(zone, frame, feat, t))
                if zone.attempts == 0:
                    zone.glimpses = []  # the visit is dealt with
            else:
                events.extend(self._reveal(zone, frame, feat, t))
            if zone.ref is feat:  # settled on this frame: keep it whole too (`_face_came`)
                zone.ref_frame = frame
            if not zone.resting:  # a resting arm's hand stays out of the backgrounds: when it goes, nothing is there
                self._bg[zone.mask] = colour[zone.mask]
                self._bg_long[zone.mask] = colour[zone.mask]
        return events

    # -- helpers -----------------------------------------------------------------------------------
    def _light_change(self, colour: np.ndarray, bg: np.ndarray) -> np.ndarray:
        """Each channel's change of light from background `bg` to `colour`: the median ratio
        over the table outside the zones (arms and cards there are outliers to a median)."""
        table = self._outside if self._outside is not None and self._outside.any() else slice(None)
        ratio = np.median(colour[table] / np.maximum(bg[table], 1.0), axis=0)
        return ratio.astype(np.float32)

    def _occluded(self, colour: np.ndarray, stale: np.ndarray | None = None
                  ) -> tuple[dict[str, bool], dict[str, bool], np.ndarray, np.ndarray]:
        """A zone is occluded when a change reaching it also reaches the picture's edge: an arm.
        Returns each zone's verdict, the verdict on the changes that are not `stale` (unchanged
        for arm_rest_s) alone, the pixels of the arms (over a zone, or big at the picture's
        edge beside one), and the pixels of the arms over a zone alone."""
        d = self._aligned_difference(colour)
        sure = d > self.occlusion_level
        # The verdict follows a change through hysteresis, as Canny's edge finder does (low
        # threshold half the high): from where it passes occlusion_level on through pixels
        # past half of it. An arm over a table of nearly its own colour (pale skin on light
        # fur) passes the level only in parts, and the part over the pile came apart from the
        # part at the picture's edge. Only outside the zones, where the background is never
        # older than absorb_s; inside, it is the last settled picture (a pile gathered up
        # since, light that moved), and faint differences there are no arm.
        faint = (d > self.occlusion_level / 2) & self._outside
        verdict, _ = self._arms(sure | faint, sure)
        fresh = verdict
        if stale is not None and any(verdict.values()) and stale.any():
            fresh, _ = self._arms((sure | faint) & ~stale, sure & ~stale)
        # What is kept out of the background is the arm found by the level alone: a faint
        # leftover kept out of it would stay different for ever and hold the zone up.
        _, arm, over = self._arm_parts(sure, sure)
        return verdict, fresh, arm, over

    def _aligned_difference(self, colour: np.ndarray) -> np.ndarray:
        """How far each pixel is from the background pictures (the nearer of the two), each
        moved by up to 2 work pixels each way where that fits better, as the pile is compared:
        a bumped camera moves the whole picture, and on a finely patterned table (honeycomb,
        wood grain) that made most of the picture differ, an "arm" reaching every zone that was
        never let fade into the background, and the pile was blind for good. Each background
        is moved on its own: the long one may be from before a bump the short one is not.

        Cheaply: the plain difference first; only when more of the picture differs than the
        smallest arm (`min_arm_share`) is a shift looked for, and then not by trying shifts:
        phase correlation of the two pictures' brightness gives the camera's shift (to a tenth
        of a pixel: a bump is seldom a whole work pixel, and half a pixel off, every edge of a
        honeycomb differs as much as an arm), and that shift (or the one that fitted last) is
        kept where it leaves fewer pixels different than no shift. An arm that did not move
        the camera leaves phase correlation at or near no shift; the plain difference then
        stands."""
        return np.minimum(self._aligned_to(colour, 0), self._aligned_to(colour, 1))

    def _aligned_to(self, colour: np.ndarray, k: int) -> np.ndarray:
        """`colour`'s difference from background k (0 short, 1 long memory) at the shift that fits."""
        import cv2

        bg = self._bg if k == 0 else self._bg_long
        plain = np.abs(colour - bg).max(axis=2)
        plain_count = int(np.count_nonzero(plain > self.occlusion_level))
        if plain_count < self.min_arm_share * plain.size:
            return plain
        if self._window is None or self._window.shape != colour.shape[:2]:
            self._window = cv2.createHanningWindow((colour.shape[1], colour.shape[0]), cv2.CV_32F)
        (sx, sy), _ = cv2.phaseCorrelate(bg.mean(axis=2), colour.mean(axis=2), self._window)
        found = (round(float(np.clip(sy, -2, 2)), 1), round(float(np.clip(sx, -2, 2)), 1))
        best, best_count = plain, plain_count
        for dy, dx in {found, self._last_shift[k]}:
            if dy == dx == 0:
                continue
            moved = cv2.warpAffine(bg, np.float32([[1, 0, dx], [0, 1, dy]]), (bg.shape[1], bg.shape[0]),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            d = np.abs(colour - moved).max(axis=2)
            d[:2, :] = plain[:2, :]  # filled in from the border: not a fit
            d[-2:, :] = plain[-2:, :]
            d[:, :2] = plain[:, :2]
            d[:, -2:] = plain[:, -2:]
            count = int(np.count_nonzero(d > self.occlusion_level))
            if count < best_count:
                best, best_count = d, count
                self._last_shift[k] = (dy, dx)
        return best

    def _arms(self, changed: np.ndarray, sure: np.ndarray) -> tuple[dict[str, bool], np.ndarray]:
        """Each zone's verdict (an arm reaches it) and the arms' pixels, for the changes
        `changed` (bool), counting only the parts of it that hold a `sure` pixel."""
        return self._arm_parts(changed, sure)[:2]

    def _arm_parts(self, changed: np.ndarray, sure: np.ndarray) -> tuple[dict[str, bool], np.ndarray, np.ndarray]:
        """`_arms`, and the pixels of the arms that reach a zone alone (from the same labelling)."""
        import cv2

        mask = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        held = np.zeros(n, bool)
        held[np.unique(labels[sure & (mask > 0)])] = True
        held[0] = False
        h, w = mask.shape
        # An arm reaching into a zone is big outside that zone too; thin leftovers of lighting
        # drift or of an arm's shadow that happen to touch the edge are not, and must not hold
        # a zone up. Outside *that* zone, not outside every zone: an arm reaching the pile
        # across the reveal area lies mostly in the reveal area (the default zones leave it
        # 13 work pixels of its length in no zone, under min_arm for an arm 15 pixels wide).
        min_arm = self.min_arm_share * h * w
        edge = {
            i for i in range(1, n)
            if held[i] and (stats[i, 0] <= 0 or stats[i, 1] <= 0 or stats[i, 0] + stats[i, 2] >= w
                            or stats[i, 1] + stats[i, 3] >= h)
        }
        # An arm reaches a zone where it lies over the zone: a changed pixel of it inside the
        # zone, not only the one-pixel margin the dilation adds (that margin joins the parts of
        # one arm). A leftover of an arm that rested at the picture's edge and went (the hand
        # faded into the background, the table shows again), followed through its faint halo
        # to the zone's border, touched the pile by that margin alone and held it up: the
        # bundled demo's blue_3 was never seen.
        out = {}
        arms: set[int] = set()
        for zone in self._zones.values():
            reaching = set(np.unique(labels[zone.mask & changed]).tolist()) & edge if edge else set()
            if reaching:
                beyond = np.bincount(labels[~zone.mask], minlength=n)
                reaching = {i for i in reaching if beyond[i] >= min_arm}
            out[zone.name] = bool(reaching)
            arms |= reaching
        # arms reaching no zone yet (resting beside the pile) are arms too: kept from fading
        # into the background as long as a zone's, or the hand that later reaches over the
        # pile from them is cut off from the picture's edge
        over = np.isin(labels, sorted(arms)) if arms else np.zeros(mask.shape, bool)
        arms |= {i for i in edge if stats[i, cv2.CC_STAT_AREA] >= min_arm}
        arm = np.isin(labels, sorted(arms)) if arms else np.zeros(mask.shape, bool)
        return out, arm, over

    def _changed(self, a: np.ndarray, b: np.ndarray, zone: _ZoneState, align: bool = False) -> tuple[int, np.ndarray]:
        """How many zone pixels differ between two feature pictures (after a small shift if `align`)."""
        import cv2

        x0, y0, x1, y1 = zone.bbox
        pa, pb = a[y0:y1, x0:x1], b[y0:y1, x0:x1]
        m = zone.mask[y0:y1, x0:x1]
        if align:
            best = None
            for dy in (-2, -1, 0, 1, 2):
                for dx in (-2, -1, 0, 1, 2):
                    shifted = np.roll(pb, (dy, dx), axis=(0, 1))
                    d = (np.abs(pa - shifted).max(axis=2) > 1.0) & m
                    d[:2, :] = d[-2:, :] = False
                    d[:, :2] = d[:, -2:] = False
                    c = int(d.sum())
                    if best is None or c < best[0]:
                        best = (c, d)
            count, d = best
        else:
            d = (np.abs(pa - pb).max(axis=2) > 1.0) & m
        d = cv2.morphologyEx(d.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        full = np.zeros(zone.mask.shape, np.uint8)
        full[y0:y1, x0:x1] = d
        return int(d.sum()), full

    def _detect(self, frame: np.ndarray, zone_name: str) -> list:
        out = []
        for d in self._read_region(frame, self._full_zones.bbox(zone_name)):
            x1, y1, x2, y2 = d.box
            if self._full_zones.contains(zone_name, (x1 + x2) / 2, (y1 + y2) / 2):
                out.append(d)
            elif zone_name == "discard" and self._share_inside(self._zones[zone_name], d.box) >= self.off_pile_share:
                out.append(d)  # a card lying crooked, half off the pile, is still the pile's
        return out

    def _box_mask(self, box: tuple[float, float, float, float]) -> np.ndarray:
        """A detection's box at work resolution, as a boolean picture."""
        h, w = self._shape
        s = self._scale
        x1, y1 = int(max(0, box[0] * s)), int(max(0, box[1] * s))
        x2, y2 = int(min(w, np.ceil(box[2] * s))), int(min(h, np.ceil(box[3] * s)))
        out = np.zeros((h, w), bool)
        out[y1:y2, x1:x2] = True
        return out

    def _share_inside(self, zone: _ZoneState, box: tuple[float, float, float, float]) -> float:
        inside = self._box_mask(box)
        return float((inside & zone.mask).sum()) / max(1, int(inside.sum()))

    def _read_region(self, frame: np.ndarray, box: tuple[float, float, float, float]) -> list:
        """The recognizer's cards around `box` (full resolution), in the frame's coordinates. A
        recognizer that `reads_crops` gets the box grown by a fifth each way only: a card is a
        small part of a table picture, and a model with a small input size reads it far better
        from the crop. Another (a test's) reads the whole frame."""
        self.detector_calls += 1
        if not getattr(self.detector, "reads_crops", False):
            return self.detector.detect(frame)
        h, w = frame.shape[:2]
        x1, y1, x2, y2 = box
        mx, my = (x2 - x1) * 0.2, (y2 - y1) * 0.2
        cx1, cy1 = int(max(0, x1 - mx)), int(max(0, y1 - my))
        cx2, cy2 = int(min(w, x2 + mx)), int(min(h, y2 + my))
        if cx2 - cx1 < 16 or cy2 - cy1 < 16:
            return []
        return [d.moved(cx1, cy1) for d in self.detector.detect(frame[cy1:cy2, cx1:cx2])]

    def _watch_beside(self, frame: np.ndarray, age: np.ndarray, arm: np.ndarray, t: float) -> None:
        """A card come to rest near the discard pile but off it (under 40 % on its zone) and off
        the reveal area: a player who missed the pile. No card is laid (it is not on the pile,
        and the referee would credit it, and then the next card, to whoever is on turn);
        `beside` names it for the host until it is gone from there. Only once a card has been laid on the pile, whose
        boxes tell a card's size here; each patch come to rest is read once."""
        import cv2

        zone = self._zones.get("discard")
        if zone is None or self._rest_t is None or not (self._card_boxes or zone.pile):
            return
        if self.beside is not None:
            # Something moved there since it was read, and has settled with no hand over it:
            # read it again (a hand passing over leaves it, a hand taking it does not).
            mask = self._beside_mask
            if (arm & mask).any() or 2 * np.count_nonzero(self._age_t[mask] > self._beside_since) <= np.count_nonzero(mask):
                return
            if np.median(age[mask]) < self.absorb_s:
                return
            self._beside_since = t
            if not any(d.card == self.beside["card"] for d in self._beside_cards(frame, self.beside["box"], zone)):
                log.info("t=%.1f s: the %s beside the discard pile is gone from there", t, self.beside["card"])
                self.beside = None
            return
        boxes = self._card_boxes or [zone.pile[-1].box]
        s = self._scale
        card = median_area(boxes) * s * s
        come = (t - self._rest_t <= BESIDE_RECENT_S) & (age >= self.absorb_s)
        if np.count_nonzero(come) < BESIDE_SIZE[0] * card:
            self._beside_seen = []
            return
        side = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) * s
        n, labels, stats, _ = cv2.connectedComponentsWithStats(come.astype(np.uint8), connectivity=8)
        h, w = come.shape
        others = cv2.dilate((~self._outside & ~zone.mask).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        # the cards a hand laying a card may push off the pile: no news if seen beside it
        pushed = {c.name for c in zone.pile[-BESIDE_PUSHED:]}
        zx1, zy1, zx2, zy2 = zone.bbox
        seen = []
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if not BESIDE_SIZE[0] * card <= area <= BESIDE_SIZE[1] * card:
                continue
            if x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1:
                continue  # at the picture's edge: an arm, or what lies in front of a player
            if max(zx1 - x - bw, x - zx2, zy1 - y - bh, y - zy2) > BESIDE_NEAR * side:
                continue
            part = labels == i
            if (part & others).any():
                continue  # touching the reveal area: a revealed hand's
            if arm[max(0, y - 3):y + bh + 3, max(0, x - 3):x + bw + 3].any():
                continue  # a hand still there: looked at once it has gone
            seen.append((x, y, x + bw, y + bh))
            if any(box_iou(seen[-1], b) > 0.5 for b in self._beside_seen):
                continue
            found = [d for d in self._beside_cards(frame, (x / s, y / s, (x + bw) / s, (y + bh) / s), zone)
                     if d.card not in pushed]
            if found:
                best = max(found, key=lambda d: d.confidence)
                self.beside = {"card": best.card, "box": [round(float(v), 1) for v in best.box], "t": t}
                self._beside_mask = cv2.dilate(part.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                self._beside_since = t
                log.info("t=%.1f s: a %s lies beside the discard pile, not on it", t, best.card)
                break
        self._beside_seen = seen

    def _beside_cards(self, frame: np.ndarray, box, zone: _ZoneState) -> list:
        """The cards read surely around `box` (full resolution) whose middle lies in it and
        which lie mostly off the pile. Surely: as a card laid is without a second reading
        (`lay_sure`), since the line stays until something moves there (the real bench's
        honeycomb table, the camera bumped: its pattern beside the draw pile read as a wild at
        0.6)."""
        x1, y1, x2, y2 = box
        return [d for d in self._read_region(frame, tuple(box))
                if d.card and d.confidence >= self.lay_sure
                and x1 <= (d.box[0] + d.box[2]) / 2 <= x2 and y1 <= (d.box[1] + d.box[3]) / 2 <= y2
                and self._share_inside(zone, d.box) < self.off_pile_share]

    def _start(self, frame: np.ndarray, feat: np.ndarray) -> None:
        """First still picture: what is already on the table is not an event."""
        self._started = True
        for zone in self._zones.values():
            zone.ref, zone.ref_frame = feat, frame
            found = self._detect(frame, zone.name)
            if zone.name == "reveal":
                found = [d for d in found if d.confidence >= self.reveal_confidence]
            if not found:
                self._set_empty(zone, feat)
            elif zone.name == "discard":
                box = tuple(found[0].box)
                zone.pile = [_PileCard(found[0].card, None, box, readings=found[0].readings(), face=self._face(box))]
            zone.change_done()

    def _set_empty(self, zone: _ZoneState, feat: np.ndarray) -> None:
        """The zone as it looks now is the zone with no card on it."""
        zone.empty = feat
        zone.empty_colour = self._colour
        zone.empty_frame = self._frame

    # -- the discard pile ---------------------------------------------------------------------------
    def _discard(self, zone: _ZoneState, frame: np.ndarray, feat: np.ndarray, t: float) -> list[dict]:
        visited, zone.visited = zone.visited, False
        if visited:
            zone.held = []  # a hand came by since: what was read before may be gone
        need = self.min_change * zone.area
        count, change = self._changed(feat, zone.ref, zone)
        if count >= need and not visited and zone.attempts == 0:
            # The pile changed while nothing moved over it since its last settled picture: no
            # card comes or goes without a hand, so this is light or the camera (a bump by a
            # fraction of a pixel over a patterned table, a shadow's edge). A change that came
            # with a hand and could not be named yet (`attempts`) is still looked at again.
            zone.ref = feat
            return []
        if count < need:
            # A hand went over the pile and left a small change: a card of the top card's
            # colour laid almost where it lay changes little more than its symbol. Only the
            # recognizer can tell, and only a different name counts (a nudge keeps the name).
            # Laid squarely, it may change nothing in the small picture: then the top card's
            # face at full resolution says whether to look, and only a sure reading of a name
            # the top card was not itself read as counts (the same card read again is no card).
            # (And on the next still frame, when the card beneath seen again asked for a second
            # reading: a card laid squarely taken back changes nothing there either.)
            top = zone.pile[-1] if zone.pile else None
            if (visited or zone.attempts) and top is not None:
                faint = count >= self.faint_change * need
                face = self._face(top.box)
                if faint or self._faces_differ(top.face, face):
                    found = self._detect(frame, "discard")
                    best = self._pick(found, change, zone.pile)
                    if (best is not None and not self._weak(best, change) and best.card != top.name
                            and (faint or self._other_card(top, best))):
                        return self._settled(zone, best, feat, t, change, found=found)
                    top.face = face
            zone.ref = feat  # nothing new: follow slow drift of light and shadow
            zone.change_done()
            return []
        if self._changed(feat, zone.ref, zone, align=True)[0] < need:
            zone.ref = feat  # the pile or the camera moved a little: no card
            return []
        if self._as_before(zone, feat, zone.pile[-1].before if zone.pile else None, need):
            return self._take_back(zone, feat, t)  # the pile as it was before the top card came
        if zone.empty is not None and self._changed(feat, zone.empty, zone, align=True)[0] < need:
            # The zone looks as it did with no card on it: the pile was cleared away. Nothing to
            # name, and none of its cards can be taken back. (Whether the next card starts a
            # hand is not the camera's to say: the referee knows.)
            zone.pile, zone.unnamed_from, zone.hidden_from = [], None, None
            zone.ref = feat
            return []
        if self._as_before(zone, feat, zone.pile[-1].earlier if zone.pile else None, need):
            # or before what came just before it that no one could name: a card laid face
            # down, then turned over where it lay (after the cleared pile: a first card laid
            # face down on the empty table, and the table cleared, is no take-back)
            return self._take_back(zone, feat, t)
        found = self._detect(frame, "discard")
        if not found:
            if zone.empty is None:  # first sight of the zone with no card in it
                self._set_empty(zone, feat)
                zone.pile = []
                zone.ref = feat
            else:
                self._unnamed(zone, feat, hidden=True)  # a card laid face down, say
            zone.change_done()
            return []
        best = self._pick(found, change, zone.pile)
        agreed = False
        if best is not None and self._weak(best, change):
            best = None
        if best is None or best.confidence < self.lay_sure:
            # Not sure: the pile is read again on the next still frames until two readings
            # agree (as a reveal is), or up to max_attempts; then the surest reading stands.
            agreed = best is not None and any(r.card == best.card for r in zone.held)
            if best is not None:
                zone.held.append(best)
            zone.attempts += 1
            if not agreed and zone.attempts < self.max_attempts:
                return []  # zone.ref kept: the next still frame reads the pile again
            # the surest reading of the name two agree on, or of all of them; but one unsure
            # reading among weak ones is no card (a honeycomb table's pattern beside the top
            # card, read once at 0.55 and then only weakly, was laid as a wild draw four)
            if not agreed and len(zone.held) < 2:
                zone.held = []
            name = best.card if agreed else None
            best = max((r for r in zone.held if name is None or r.card == name),
                       key=lambda r: r.confidence, default=None)
            if best is None:
                log.warning("a change on the discard pile at t=%.1f s could not be named", t)
                self._unnamed(zone, feat, hidden=True)
                zone.change_done()
                return []
        return self._settled(zone, best, feat, t, change, confirmed=agreed, found=found)

    def _settled(self, zone: _ZoneState, best, feat: np.ndarray, t: float, change: np.ndarray,
                 confirmed: bool = False, found: list | None = None) -> list[dict]:
        """`best` is the card now on top of a changed pile (`change`: where it changed since
        the last settled picture): the top card nudged, moved or boxed anew (nothing), the card
        beneath it uncovered (a take-back), or a new card (a lay). `confirmed`: a second
        reading of the still pile named it too; `found`: everything read on the pile."""
        top = zone.pile[-1] if zone.pile else None
        if top is not None and best.card == top.name and self._partly_hidden(top, best.box):
            # The top card read in a box too narrow for the whole of it, within where it lies:
            # an arm resting over part of it (on a table of its colour, the arm hardly changes
            # the pile's small picture). Nothing laid; where it lies is kept, so that once the
            # arm is gone it is read there again, not taken for a card come.
            zone.ref = feat
            zone.change_done()
            return []
        if top is not None and best.card == top.name:
            # A second card of the top card's name changes the middle of its box (its symbol
            # and oval lie elsewhere); the top card seen again in a box drawn a little
            # differently (a hand's shadow went over it) changes little there.
            # And only a card read surely, or read alike twice on the still pile, is a second
            # one of its name: the top card seen through the fingers of a hand held over it
            # reads weakly (and the hand moves on between readings).
            came = self._cover(change, best.box) >= self.same_cover or self._face_came(zone.ref_frame, best.box)
            same = (self._same_place(best.box, top.box) or not came
                    or (best.confidence < self.lay_sure and not confirmed))
            moved = not same and self._moved(zone, top, best, feat)
            if same or moved or self._camera_moved(zone, top, best, feat):
                # the same card, where it lies now: nothing was laid (or a card laid face down
                # over part of it, which no one names)
                self._unnamed(zone, feat)
                return self._top_now_at(zone, top, best.box, feat, remark=moved)
        below = zone.pile[-2] if len(zone.pile) > 1 else None
        if (top is not None and below is not None and below.name != top.name
                and self._seen_again(best, below) and not self._still_there(zone, top, best, feat)):
            # the card beneath, where it lay: the top card was taken back, though the picture
            # is not quite the one from before it came (light, a shadow, a nudge meanwhile).
            # Said on the reading alone, so only when a second reading agrees: a card peeking
            # from under a new one just laid, still in a hand's shadow, can read surer than it.
            elsewhere = self._top_elsewhere(zone, found or [])
            if elsewhere is not None:
                # unless the top card itself is read surely beside it: slid off the card beneath
                # (a player straightening the pile), not taken back
                zone.ref = feat
                return self._top_now_at(zone, top, elsewhere.box, feat, remark=True)
            if zone.attempts == 0:
                zone.attempts = 1
                return []
            return self._take_back(zone, feat, t)
        return self._glimpsed(zone, best, feat, t) + self._lay(zone, best, feat, t)

    def _glimpse(self, zone: _ZoneState, frame: np.ndarray, feat: np.ndarray, moving: np.ndarray) -> None:
        """Keep a moment the pile is not still, if it shows the pile other than the last kept one
        where nothing moves: two players laying cards within half a second leave no still frame
        between the cards, only a frame or two where the first card lies still between the hands
        (the arm found then takes in the card too: it touches the hands). Of more such moments
        than GLIMPSES, the one showing least of what came lying still goes."""
        import cv2

        busy = cv2.dilate(moving.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool) & zone.mask
        g = _Glimpse(frame, feat, busy, self._changed_outside(feat, zone.ref, zone, busy))
        last = zone.glimpses[-1] if zone.glimpses else None
        if last is None or self._changed_outside(feat, last.feat, zone, last.busy | busy) >= self.min_change * zone.area:
            zone.glimpses.append(g)
            if len(zone.glimpses) > GLIMPSES:
                zone.glimpses.remove(min(zone.glimpses, key=lambda k: k.shown))
        elif g.shown >= last.shown:
            zone.glimpses[-1] = g  # the same pile, more of what came lying still

    def _changed_outside(self, a: np.ndarray, b: np.ndarray, zone: _ZoneState, skip: np.ndarray) -> int:
        """How many zone pixels differ between two feature pictures, after a small shift, but
        for those in `skip` (bool)."""
        return int((self._changed(a, b, zone, align=True)[1].astype(bool) & ~skip).sum())

    def _glimpsed(self, zone: _ZoneState, best, feat: np.ndarray, t: float) -> list[dict]:
        """Cards laid and covered during the visit that ends with `best` laid: each kept moment
        (`_glimpse`) that shows the pile other than before, and than now where the new card lies,
        where nothing moved, is read, and a card read surely there, mostly still, whose middle
        changed, that is neither a card of the pile seen again (`_pile_card`) nor `best` where it
        lies (seen landing), was laid before `best`: unless it has gone again, or may be `best`
        itself (`_beneath`)."""
        need = self.min_change * zone.area
        # now, against before the visit, or before a card no one named came (laid face down and
        # now turned over, it hid the cards it lay on: seen again, they are no news)
        before = zone.ref if zone.hidden_from is None else zone.hidden_from
        unlike_before = self._changed(feat, before, zone)[1].astype(bool)
        events: list[dict] = []
        for g in zone.glimpses:
            if (self._changed_outside(g.feat, zone.ref, zone, g.busy) < need
                    or self._changed_outside(g.feat, feat, zone, g.busy | ~self._box_mask(best.box)) < need):
                continue  # (a card covered since shows where the new card lies: else nothing to read)
            change = self._changed(g.feat, zone.ref, zone)[1]
            unlike_then = self._changed(feat, g.feat, zone)[1].astype(bool)
            came = [d for d in self._detect(g.frame, "discard")
                    if d.confidence >= self.lay_sure and not self._too_small(d.box)
                    and self._cover(change, d.box) >= LAY_CHANGE
                    and float(g.busy[self._box_mask(d.box)].mean()) <= GLIMPSE_BUSY
                    and not self._same_place(d.box, best.box)
                    and not self._pile_card(d, zone.pile)
                    and self._beneath(d, best, self._peeking(d, best, unlike_then, unlike_before), known=(
                        zone.hidden_from is not None and any(self._lies_over(d, c) for c in zone.pile)))]
            if came:
                d = max(came, key=lambda d: d.confidence * (0.2 + self._cover(change, d.box)))
                events += self._lay(zone, d, g.feat, t, g.frame)
                zone.ref_frame = g.frame
        return events

    def _pile_card(self, d, pile: list[_PileCard]) -> bool:
        """Whether detection `d` may be a card of the pile seen again: the top card, of its name
        over most of the smaller of the two boxes (boxed anew, bigger, as the next card came: a
        real wild draw four), or a card deeper down of its name where it lay. (Deeper cards boxed
        anew are not told from twins: on rendered piles, whose cards all land within a card of
        the middle, an older twin overlaps nearly every card.)"""
        if pile and self._lies_over(d, pile[-1]):
            return True
        return any(self._seen_again(d, c) for c in pile)

    def _seen_again(self, d, card: _PileCard) -> bool:
        """Whether detection `d` is `card` seen again: of its name, boxed as it lay (`_same_place`).
        Looser: `_where_it_lay` (a box mostly inside the card's), `_lies_over` (over most of it)."""
        return d.card == card.name and self._same_place(d.box, card.box)

    @staticmethod
    def _lies_over(d, card: _PileCard) -> bool:
        """Whether detection `d` is of `card`'s name over most of the smaller of their boxes."""
        return (card.box is not None and d.card == card.name
                and box_intersection(d.box, card.box) >= REVEAL_INSIDE * min(box_area(d.box), box_area(card.box)))

    @staticmethod
    def _beneath(d, best, peeking: bool | None, known: bool = False) -> bool:
        """Whether card `d`, seen before `best` came, is still on the pile under it: not gone where
        it would peek out (`_peeking`), and, where it `may_be` `best` or `known`, seen peeking out
        (else it may be `best` itself, seen before it was straightened, or a card of the pile
        uncovered).
        `known`: something no one could name came on the pile before `best` (a card laid face
        down, now turned over), and `d` is of the name of a pile card lying over most of it: the
        back hid it, and lifted, showed it again (a real wild draw four four cards down, boxed
        taller as the back was turned, was laid again)."""
        return peeking is True if known or may_be(d, best.card, best.readings()) else peeking is not False

    def _peeking(self, d, best, unlike_then: np.ndarray, unlike_before: np.ndarray) -> bool | None:
        """Whether card `d`, seen at a moment between hands, peeks out from under `best` now:
        where `best` (and its edge) does not cover `d`'s box, the pile looks more as then than as
        before (its last settled picture), by half as many pixels differing or fewer
        (`unlike_then`, `unlike_before`: where the pile now differs from each): a card taken away
        again leaves it as before. None when `best` covers nearly all of `d`, when the two differ
        there by less than a card's coming changes its box's middle (SAME_COVER: a blue card's
        strip on blue cards), or when neither is that much nearer (a green card's white edge and
        the new card's shadow on green felt)."""
        x1, y1, x2, y2 = best.box
        gx, gy = (x2 - x1) * (LEFT_OUTSIDE - 1) / 2, (y2 - y1) * (LEFT_OUTSIDE - 1) / 2
        part = self._box_mask(d.box) & ~self._box_mask((x1 - gx, y1 - gy, x2 + gx, y2 + gy))
        if part.sum() < SAME_COVER * self._box_mask(d.box).sum():
            return None
        then, before = float(unlike_then[part].mean()), float(unlike_before[part].mean())
        if max(then, before) < SAME_COVER:
            return None
        if 2 * then <= before:
            return True
        return False if 2 * before <= then else None

    @staticmethod
    def _unnamed(zone: _ZoneState, feat: np.ndarray, hidden: bool = False) -> None:
        """The pile's new picture is `feat`, though no card was named for the change: the
        picture from before the first such change is kept (`unnamed_from`), for the next card
        laid (a card laid face down, then turned over and taken back, leaves that picture).
        `hidden`: no card was found or named in the change (not the top card seen again)."""
        if zone.unnamed_from is None:
            zone.unnamed_from = zone.ref
        if hidden and zone.hidden_from is None:
            zone.hidden_from = zone.ref
        zone.ref = feat

    def _top_now_at(self, zone: _ZoneState, top: _PileCard, box, feat: np.ndarray, remark: bool) -> list[dict]:
        """The top card seen again in `box` (moved, or boxed anew): nothing was laid (the caller
        has taken the pile's new picture in). `remark`: it moved, so where it shows is found
        again, for the next push."""
        if remark and top.before is not None:
            top.mark = self._mark(top.before, feat, zone, box)
        top.box = tuple(box)
        top.face = self._face(top.box)
        zone.change_done()
        return []

    def _as_before(self, zone: _ZoneState, feat: np.ndarray, before: np.ndarray | None, need: float) -> bool:
        """Whether the pile looks as in `before` (a picture of it without the top card) and the
        card beneath shows as it did: the top card was taken back."""
        return (before is not None and self._changed(feat, before, zone, align=True)[0] < need
                and self._beneath_as_it_was(zone))

    def _beneath_as_it_was(self, zone: _ZoneState) -> bool:
        """Whether the card beneath the top one shows its face where it lay as it did when it
        was on top (at full resolution, `_faces_differ`), or nothing tells. The small picture
        alone took a yellow 0 laid where a yellow 3 lay under the top yellow 5 (soft pictures,
        yellow on yellow) for the pile from before the yellow 5: a take-back, and the 0 missed."""
        below = zone.pile[-2] if len(zone.pile) > 1 else None
        if below is None or below.face is None or below.box is None or zone.pile[-1].earlier is not None:
            return True  # (or something no one named lay between them: a back covers the card beneath)
        return not self._faces_differ(below.face, self._face(below.box))

    def _top_elsewhere(self, zone: _ZoneState, found: list):
        """A sure reading of the top card's name (LAY_SURE) where neither the card beneath it nor
        an older card of that name lay: the top card itself, moved. None if there is none."""
        top, below = zone.pile[-1], zone.pile[-2]
        for d in found:
            if (d.card == top.name and d.confidence >= self.lay_sure and not self._same_place(d.box, below.box)
                    and top.box is not None and box_intersection(d.box, top.box) >= SLID_NEAR * box_area(d.box)
                    and not any(c.name == top.name and self._where_it_lay(d, c) for c in zone.pile[:-1])):
                return d
        return None

    def _too_small(self, box: tuple[float, float, float, float]) -> bool:
        """Whether `box` is far smaller than the cards laid on this pile so far (the camera
        does not move nearer): a card come to rest on top shows whole, and a box of a
        fraction of a card is a pattern in the table, a corner, a card in a gathering hand."""
        if len(self._card_boxes) < 3:
            return False
        return box_area(box) < self.lay_size * median_area(self._card_boxes)

    def _same_place(self, box, other: tuple[float, float, float, float] | None) -> bool:
        return other is not None and box_iou(box, other) >= self.same_overlap

    def _moved(self, zone: _ZoneState, top: _PileCard, best, feat: np.ndarray) -> bool:
        """Whether the top card was moved (held at the edge of the pile, then put down; pushed
        straight) rather than a second card of its name laid. Where the top card lay (and its
        coming changed the pile) and the new box does not reach, a moved card leaves the pile
        as it was before the card came;
        a second card leaves the first one showing there, as in the last settled picture.
        The likelier of the two pictures wins. Where that says no move, or there is no such
        place (the new box holds the old one: a card turned where it lay grows its box round
        where it was, as does a second card laid across the first), the first card's corners
        may still tell (`_corners_gone`); else it is a new card."""
        if self._left_where_it_lay(zone, top, best):
            return True
        if top.before is None or top.box is None:
            return False
        # only where the top card's coming changed the pile (its `mark`) can the place tell: where
        # it lay over a card that looks like it (a yellow 1 on a yellow 6), both pictures agree
        uncovered = self._box_mask(top.box) & ~self._box_mask(best.box) & zone.mask
        if top.mark is not None:
            uncovered &= top.mark
        if int(uncovered.sum()) >= 4:  # a 2x2 patch of work pixels at least: a place, not noise
            gone = int(((np.abs(feat - top.before).max(axis=2) > 1.0) & uncovered).sum())
            still = int(((np.abs(feat - zone.ref).max(axis=2) > 1.0) & uncovered).sum())
            if gone < still:
                return True
        return self._corners_gone(zone, top, best, feat)

    def _left_where_it_lay(self, zone: _ZoneState, top: _PileCard, best) -> bool | None:
        """Whether the top card has left where it lay, seen at full resolution against the last
        settled picture where the card now read in `best`'s box does not reach (LEFT_SAME):
        True, it was moved (slid, straightened); False, it still shows there (a second card of
        its name lies over part of it); None where nothing tells."""
        import cv2

        if (top.box is None or zone.ref_frame is None or self._frame is None
                or zone.ref_frame.shape != self._frame.shape):  # a camera reopened at another size
            return None
        h, w = self._frame.shape[:2]
        x1 = int(max(0, min(top.box[0], best.box[0]) - 4))
        y1 = int(max(0, min(top.box[1], best.box[1]) - 4))
        x2 = int(min(w, max(top.box[2], best.box[2]) + 4))
        y2 = int(min(h, max(top.box[3], best.box[3]) + 4))
        if x2 - x1 < 16 or y2 - y1 < 16:
            return None
        then, now = zone.ref_frame[y1:y2, x1:x2], self._frame[y1:y2, x1:x2]
        shift = np.array([x1, y1], np.float32)
        old = self._outline(then, np.array(top.box, np.float32) - np.tile(shift, 2))
        new = self._outline(now, np.array(best.box, np.float32) - np.tile(shift, 2))
        whole = _inside(then.shape, old, 1.0)
        place = _inside(then.shape, old, LEFT_INSIDE) & ~_inside(then.shape, new, LEFT_OUTSIDE)
        side = min(float(np.linalg.norm(old[1] - old[0])), float(np.linalg.norm(old[2] - old[1])))
        k = max(3, int(round(LEFT_EDGE * side)) | 1)  # odd: a square about each pixel
        place = cv2.erode(place.astype(np.uint8), np.ones((k, k), np.uint8)).astype(bool)
        if place.sum() < LEFT_AREA * max(1, int(whole.sum())):
            return None
        before, after = _edges(then), _edges(now)
        a = before[place]
        if float(a.std()) < FACE_STRUCTURE:
            return None  # plain where it lay: the same whether it is there or not
        a = a - a.mean()
        aa = float((a * a).sum())
        # the best over shifts of up to LEFT_SHIFT px: a first card jolted a pixel or two as its
        # twin landed on it, or the camera, still shows there (a slid card moved 12 px or more)
        same = -1.0
        ys, xs = np.nonzero(place)
        for dy in range(-LEFT_SHIFT, LEFT_SHIFT + 1):
            for dx in range(-LEFT_SHIFT, LEFT_SHIFT + 1):
                b = after[np.clip(ys + dy, 0, after.shape[0] - 1), np.clip(xs + dx, 0, after.shape[1] - 1)]
                b = b - b.mean()
                same = max(same, float((a * b).sum() / (np.sqrt(aa * float((b * b).sum())) + 1e-9)))
        return same < LEFT_SAME

    @staticmethod
    def _outline(picture: np.ndarray, box: np.ndarray) -> np.ndarray:
        """The corners of the card boxed by `box` in `picture`: of the card of CARD_ASPECT whose
        turn fills the box (a box is a turned card's bounding box: its width over its height
        grows from CARD_ASPECT upright to 1/CARD_ASPECT lying across), the turn one way or the
        other (both fill the same box) whose edges the picture shows more strongly."""
        import cv2

        x1, y1, x2, y2 = (float(v) for v in box)
        turns = np.radians(np.arange(0.0, 90.0, 0.5))
        c, s = np.cos(turns), np.sin(turns)
        r = CARD_ASPECT
        k = int(np.argmin(np.abs((r * c + s) / (r * s + c) - (x2 - x1) / max(1.0, y2 - y1))))
        height = ((x2 - x1) / (r * c[k] + s[k]) + (y2 - y1) / (r * s[k] + c[k])) / 2
        grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY).astype(np.float32)
        edges = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))  # an edge a pixel off still counts
        best, best_edge = None, -1.0
        for sign in (1.0, -1.0):
            corners = cv2.boxPoints((((x1 + x2) / 2, (y1 + y2) / 2), (r * height, height), sign * float(np.degrees(turns[k]))))
            along = np.concatenate([corners[i] + (corners[(i + 1) % 4] - corners[i]) * np.linspace(0.1, 0.9, 24)[:, None]
                                    for i in range(4)])
            xs = np.clip(np.round(along[:, 0]).astype(int), 0, grey.shape[1] - 1)
            ys = np.clip(np.round(along[:, 1]).astype(int), 0, grey.shape[0] - 1)
            edge = float(edges[ys, xs].mean())
            if edge > best_edge:
                best, best_edge = corners, edge
        return best

    def _corners_gone(self, zone: _ZoneState, top: _PileCard, best, feat: np.ndarray) -> bool:
        """Whether the top card's corners have all left where they were: a square half the
        card's shorter side about each corner, compared at full resolution with the last
        settled picture. A second card laid across it leaves a corner or more showing as it
        was (one covering all four would hide it whole); the card turned or pushed leaves
        none, but for one corner it was turned about, where the card now in `best`'s box has
        a corner of its own. The corners are the card's own (`_card_corners`: a card lying
        aslant has the card beneath in its box's corners, which stays); where its shape
        cannot be told, its box's corners where it showed (its `mark` in the corner's quarter
        inside the box). Fewer than two corners to compare: nothing tells, and it is no move."""
        if top.mark is None or top.box is None or zone.ref_frame is None:
            return False
        found = self._card_corners(top.mark, top.box)
        if found is None:
            x1, y1, x2, y2 = top.box
            side = 0.5 * min(x2 - x1, y2 - y1)  # a corner's white edge and what lies beyond it
            corners = []
            for cx, cy, ix, iy in ((x1, y1, 1, 1), (x2, y1, -1, 1), (x1, y2, 1, -1), (x2, y2, -1, -1)):
                inside = (min(cx, cx + ix * side / 2), min(cy, cy + iy * side / 2),
                          max(cx, cx + ix * side / 2), max(cy, cy + iy * side / 2))
                if (top.mark & self._box_mask(inside)).any():  # else the card did not show there
                    corners.append((cx, cy))
            pivots: list[tuple[float, float]] = []
        else:
            corners, side = found
            # where the card in `best`'s box has its corners: its shape is what differs now from
            # the pile before the top card came (the top card itself, if moved)
            now = None if top.before is None else self._card_corners(
                self._mark(top.before, feat, zone, best.box), best.box)
            pivots = [] if now is None else now[0]
        seen = 0
        stayed = []
        for cx, cy in corners:
            corner = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
            before, now_face = self._face(corner, zone.ref_frame), self._face(corner)
            if before is None or now_face is None:
                continue
            seen += 1
            if not self._faces_differ(before, now_face, FACE_STRUCTURE):  # plain table both times: stayed
                stayed.append((cx, cy))
        if len(stayed) == 1 and seen >= 3:
            # one corner alone may be the one it was turned about, if the card now has a
            # corner there (two that stayed are an edge of the first card still showing)
            cx, cy = stayed[0]
            if any(np.hypot(cx - px, cy - py) < side / 4 for px, py in pivots):
                stayed = []
        return seen >= 2 and not stayed

    def _card_corners(self, mark: np.ndarray, box: tuple[float, float, float, float]
                      ) -> tuple[list[tuple[float, float]], float] | None:
        """The four corners of a card lying in `box`, in frame pixels, with half its shorter
        side. Its turn and its shape come from the pixels its coming changed (the largest patch
        of `mark`, small holes closed: where its white border lay on white, nothing changed);
        that patch also takes in the card's shadow and the work picture's coarse edges, so its
        size comes from the detector's box, which holds the turned card's corners: the card of
        that turn and shape whose corners best fill the box. None where the patch is not a
        card's shape (it fills under `CARD_FILL` of its turned rectangle: a card laid half over
        one that looks like it) or is too small to tell."""
        import cv2

        patch = cv2.morphologyEx(mark.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
        if n < 2:
            return None
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < 16:  # a 4x4 patch of work pixels: too few to find corners by
            return None
        ys, xs = np.nonzero(labels == k)
        _, (w, h), angle = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        w, h = w + 1.0, h + 1.0  # pixel centres to pixel edges
        if area < CARD_FILL * w * h:
            return None
        c, s = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
        x1, y1, x2, y2 = box
        # the box a card (w, h) x scale turned by `angle` fills: (w c + h s, w s + h c) x scale;
        # the scale that fits the detector's box best (least squares)
        fill = np.array([w * c + h * s, w * s + h * c])
        scale = float(np.dot(fill, [x2 - x1, y2 - y1]) / np.dot(fill, fill))
        centre = ((x1 + x2) / 2, (y1 + y2) / 2)
        points = cv2.boxPoints((centre, (w * scale, h * scale), angle))
        return [(float(x), float(y)) for x, y in points], 0.5 * min(w, h) * scale

    def _partly_hidden(self, top: _PileCard, box: tuple[float, float, float, float]) -> bool:
        """Whether `box`, read as the top card, is too narrow for the whole of it and lies
        within where it lay: its narrower side under `PART_OF_CARD` of the card's shorter side
        (`_card_corners`; a card shows at least its shorter side across at any turn), and four
        fifths of it inside the top card's box. A card turned or pushed still shows whole."""
        if top.mark is None or top.box is None:
            return False
        found = self._card_corners(top.mark, top.box)
        if found is None:
            return False
        # the card's shorter side: as its corners tell, or as the boxes of the cards laid
        # before show it, if less (a card's box is its shorter side across when it lies
        # straight; a turn found wrong from its patch would make it look wider than it is)
        short = min([2 * found[1]] + [min(b[2] - b[0], b[3] - b[1]) for b in self._card_boxes])
        return (min(box[2] - box[0], box[3] - box[1]) < PART_OF_CARD * short
                and box_intersection(box, top.box) >= WITHIN * box_area(box))

    def _camera_moved(self, zone: _ZoneState, top: _PileCard, best, feat: np.ndarray) -> bool:
        """Whether the top card's box moved with the whole picture: the camera was bumped, and
        the card seen again where the bump put it is no second card of its name. Phase
        correlation of the whole picture's edges against the last settled picture gives the
        camera's shift (a card laid on the pile moves a small part of the picture: the peak
        stays at no shift); the box must have moved by that shift, to within a work pixel."""
        import cv2

        if top.box is None or zone.ref is None:
            return False
        (sx, sy), _ = cv2.phaseCorrelate(zone.ref[:, :, 0].astype(np.float32), feat[:, :, 0].astype(np.float32))
        if np.hypot(sx, sy) < 1.0:  # the picture did not move: a card may have
            return False
        s = self._scale
        dx = ((best.box[0] + best.box[2]) - (top.box[0] + top.box[2])) / 2 * s
        dy = ((best.box[1] + best.box[3]) - (top.box[1] + top.box[3])) / 2 * s
        return bool(np.hypot(dx - sx, dy - sy) < 1.0)

    def _still_there(self, zone: _ZoneState, top: _PileCard, best, feat: np.ndarray) -> bool:
        """Whether the top card still shows beyond `best`'s box: most of what its coming
        changed there is as in the last settled picture. Then `best`, though named and placed
        as the card beneath it, is a new card of that name laid where that one lay, not the
        card beneath uncovered. With no such place to look at, it is not."""
        if top.mark is None:
            return False
        beyond = top.mark & ~self._box_mask(best.box)
        if int(beyond.sum()) < 4:  # under a 2x2 patch of work pixels: noise, not a place
            return False
        changed = int(((np.abs(feat - zone.ref).max(axis=2) > 1.0) & beyond).sum())
        return 2 * changed < int(beyond.sum())

    def _face(self, box: tuple[float, float, float, float] | None, frame: np.ndarray | None = None
              ) -> np.ndarray | None:
        """`frame` (default: the one being looked at) inside `box` at FACE_WIDTH px wide, as
        edges (a band-pass of log brightness: light and shadow are smooth, a symbol's strokes
        are not); None for a box too small to tell a symbol by."""
        import cv2

        frame = self._frame if frame is None else frame
        if box is None or frame is None:
            return None
        h, w = frame.shape[:2]
        x1, y1 = int(max(0, box[0])), int(max(0, box[1]))
        x2, y2 = int(min(w, box[2])), int(min(h, box[3]))
        if x2 - x1 < 16 or y2 - y1 < 16:
            return None
        grey = cv2.cvtColor(frame[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY)
        size = (FACE_WIDTH, max(16, int(round((y2 - y1) * FACE_WIDTH / (x2 - x1)))))
        return _band_pass(cv2.resize(grey, size, interpolation=cv2.INTER_AREA))

    @staticmethod
    def _faces_differ(before: np.ndarray | None, now: np.ndarray | None, plain: float = 0.0) -> bool:
        """Whether the middle of a box (where a card's symbol is) looks otherwise now than
        `before`, allowing a shift of an eighth of the box (a nudge). Unknown, or edges
        weaker than `plain` both times (a plain table, FACE_STRUCTURE): no."""
        import cv2

        if before is None or now is None or now.shape != before.shape:
            return False
        h, w = now.shape
        middle = before[h // 4:h - h // 4, w // 4:w - w // 4]
        if plain and max(float(middle.std()), float(now[h // 4:h - h // 4, w // 4:w - w // 4].std())) < plain:
            return False
        around = now[h // 4 - h // 8:h - h // 4 + h // 8, w // 4 - w // 8:w - w // 4 + w // 8]
        return float(cv2.matchTemplate(around, middle, cv2.TM_CCOEFF_NORMED).max()) < FACE_SAME

    def _face_came(self, before: np.ndarray | None, box: tuple[float, float, float, float],
                   plain: float = 0.0) -> bool:
        """Whether, at full resolution, the middle of `box` changed since the frame `before`
        (the zone's last settled picture, or the area when it was empty): a card came there.
        `plain`: see `_faces_differ`."""
        return before is not None and self._faces_differ(self._face(box, before), self._face(box), plain)

    def _other_card(self, top: _PileCard, best) -> bool:
        """Whether `best`, read where the top card lies with no change in the small picture,
        is another card: read surely, under a name the top card was not itself read as (a
        second reading of a card on the fence between two names is the same card)."""
        was = dict(top.readings).get(best.card, 0.0)
        return best.confidence >= self.lay_sure and was < 1.0 - self.lay_sure

    def _take_back(self, zone: _ZoneState, feat: np.ndarray, t: float) -> list[dict]:
        zone.pile.pop()
        zone.unnamed_from = zone.hidden_from = None
        zone.ref = feat
        zone.change_done()
        return [{"type": "take_back", "t": round(t, 3)}]

    def _mark(self, before: np.ndarray, feat: np.ndarray, zone: _ZoneState,
              box: tuple[float, float, float, float]) -> np.ndarray:
        """Where a card in `box` shows: the work pixels of the zone inside its box that differ
        now from `before` (the pile before it came). Only inside the box: beyond it, a pile left
        long unsettled (arms about) also differs where light drifted over a patterned table,
        and a card taken back later then seemed "still there" in that drift."""
        return (np.abs(feat - before).max(axis=2) > 1.0) & zone.mask & self._box_mask(box)

    def _lay(self, zone: _ZoneState, best, feat: np.ndarray, t: float, frame: np.ndarray | None = None) -> list[dict]:
        """The card `best` names came to rest on the pile: a `lay`, with its readings. Whether
        it is a flip or a play, and which reading, is the referee's call. (`feat`, `frame`: the
        pile with it on top, if not the frame being looked at.)"""
        mark = self._mark(zone.ref, feat, zone, best.box)
        box = tuple(best.box)
        zone.pile.append(_PileCard(best.card, zone.ref, box, mark, best.readings(), self._face(box, frame), zone.unnamed_from))
        self._card_boxes = (self._card_boxes + [box])[-20:]
        zone.ref, zone.unnamed_from, zone.hidden_from = feat, None, None
        zone.change_done()
        top = [[name, round(float(p), 4)] for name, p in best.readings()]
        return [{"type": "lay", "card": best.card, "t": round(t, 3), "top": top}]

    def _pick(self, found: list, change: np.ndarray, pile: list[_PileCard] | None = None):
        """The detection the change is about: most of its box changed, best confidence first.
        `pile`: the cards on the pile before the change, the top one last."""
        # A card deeper in the pile than the one beneath the top, read again where it lay, is no
        # news unless the change lies in its box, as a card laid changes the pile only under
        # itself (OWN_CHANGE): a card laid face down hid the top card and half of a real blue
        # five four cards down, and a blue draw two peeking out, read at 0.90 and 0.94, were
        # laid. (A twin laid on top near where the first lay: 0.99 of the change in its box.)
        # The top card and the one beneath it where they lay are judged below and in `_settled`
        # (the take-back's), even where a twin of theirs lies deeper (a red 5 on top, an older
        # red 5 where it lay: the top card filtered as the deeper one, a weak yellow 5 was laid).
        pile = pile or []
        found = [d for d in found if self._change_inside(change, d.box) >= OWN_CHANGE
                 or any(self._seen_again(d, c) for c in pile[-2:])
                 or not any(self._seen_again(d, c) for c in pile[:-2])]
        if not found:
            return None
        best, best_score = None, 0.0
        top = pile[-1] if pile else None
        # The top card seen again where it lay, but only the part a new card leaves showing
        # (boxed smaller, inside its old box), sets no bar for a card lying over it: a new card
        # read less surely than the one peeking from under it (a card in a hand's shadow) is
        # still the news. A box that does not touch the top card is no card laid on the pile.
        seen = [d for d in found if self._where_it_lay(d, top)]
        old = [d for d in seen if not self._same_place(d.box, top.box)]
        if seen:
            # and while the top card shows where it lay, the card beneath it peeking out is no
            # news either (nothing changed over it; a new card of its name laid there would);
            # while it shows whole there, read surely (nothing lies over it), no card deeper down
            # is (a real blue draw two three cards down read at 0.96 after a hand went by was laid again)
            whole = any(self._same_place(d.box, top.box) and d.confidence >= self.lay_sure for d in seen)
            beneath = pile[:-1] if whole else pile[-2:-1]
            found = [d for d in found if d.card == top.name or self._cover(change, d.box) >= self.same_cover
                     or not any(self._where_it_lay(d, c) for c in beneath)]
        on_top = [d for d in found if d not in old and box_intersection(d.box, top.box) > 0] if old else []
        # A card under the top one where it lay, nothing changed over it, sets no bar either: a
        # green 9 laid on a green 5 and read at 0.79 went unseen under the green 8 beneath peeking
        # out, read at 1.0, and the pile was taken for the 5 taken back. (The top card where it
        # lay does: a card beneath it, moved, read weakly, is no news.)
        bar = [d for d in (on_top or found) if self._cover(change, d.box) >= self.same_cover
               or not any(self._where_it_lay(d, c) for c in pile[:-1])]
        top_conf = max(d.confidence for d in (bar or on_top or found))
        for d in found:
            if d.confidence < 0.8 * top_conf:
                continue  # a card peeking from under the top one
            score = d.confidence * (0.2 + self._cover(change, d.box))
            if score > best_score:
                best, best_score = d, score
        if best is not None and top is not None and best.card == top.name and not self._same_place(best.box, top.box):
            # The top card read away from where it lay is the top card moved, which is no news;
            # a card surely read, whose middle changed, where no card of the pile lay is, though
            # its change was the smaller (a player straightened the pile, the next laid a card at
            # once). (Without a change under it, a card of the pile the watcher never knew, or
            # misread, took a twin's place.)
            news = [d for d in found if d.card != top.name and d.confidence >= self.lay_sure
                    and self._cover(change, d.box) >= self.same_cover
                    and not any(self._where_it_lay(d, c) for c in pile or [])]
            if news:
                best = max(news, key=lambda d: d.confidence * (0.2 + self._cover(change, d.box)))
        return best

    def _weak(self, d, change: np.ndarray) -> bool:
        """Whether reading `d` of a changed pile is no card: a card still half under the hand
        that laid it, or a pattern in the table where the pile was gathered up (found small as
        well as weak, or away from where the pile changed), or the strip of an old card peeking
        out beside a card laid face down (read at 0.29, nothing changed in its box)."""
        return (d.confidence < self.lay_confidence or self._too_small(d.box)
                or (d.confidence < self.lay_sure and self._change_inside(change, d.box) <= LAY_CHANGE))

    def _where_it_lay(self, d, card: _PileCard | None) -> bool:
        """Whether detection `d` is `card` where it lay: its name, and its box mostly inside
        the card's (a card partly covered is boxed by the part that shows)."""
        return (card is not None and card.box is not None and d.card == card.name
                and box_intersection(d.box, card.box) > REVEAL_INSIDE * box_area(d.box))

    def _change_inside(self, change: np.ndarray, box: tuple[float, float, float, float]) -> float:
        """The share of the zone's change (`change`, work resolution) that lies inside `box`."""
        changed = change.astype(bool)
        return float((changed & self._box_mask(box)).sum()) / max(1, int(changed.sum()))

    def _cover(self, change: np.ndarray, box: tuple[float, float, float, float]) -> float:
        """The share of the middle of `box` (half its width and height) that `change` marks:
        a card that came changes its own face, not just the table around it."""
        s = self._scale
        h, w = change.shape
        x1, y1, x2, y2 = (v * s for v in box)
        mx, my = (x2 - x1) / 4, (y2 - y1) / 4
        x1, x2 = int(max(0, x1 + mx)), int(min(w, x2 - mx + 1))
        y1, y2 = int(max(0, y1 + my)), int(min(h, y2 - my + 1))
        middle = change[y1:y2, x1:x2]
        return float(middle.mean()) if middle.size else 0.0

    # -- the reveal area ----------------------------------------------------------------------------
    def _reveal(self, zone: _ZoneState, frame: np.ndarray, feat: np.ndarray, t: float) -> list[dict]:
        need = self.min_change * zone.area * 0.5
        count, change = self._changed(feat, zone.ref, zone)
        if count < need or self._changed(feat, zone.ref, zone, align=True)[0] < need:
            zone.ref = feat
            zone.reads = []
            return []
        if zone.empty is not None and self._changed(feat, zone.empty, zone, align=True)[0] < need:
            zone.ref = feat  # the shown cards were gathered up
            self._set_empty(zone, feat)  # the empty area as it looks now (light and shadow drift)
            zone.shown, zone.shown_boxes = [], []
            zone.reads = []
            return []
        change = None  # where the area's colour changed since it was empty: measured once, when needed
        if zone.shown_boxes and zone.empty_colour is not None:
            change = self._colour_change(zone)
            if all(self._cover(change, box) < self.reveal_cover for box in zone.shown_boxes):
                zone.shown, zone.shown_boxes = [], []  # where the shown cards lay, the area is empty again
        found = self._revealed(zone, self._detect(frame, "reveal"), change)
        if not found:
            zone.attempts += 1
            if zone.attempts >= self.max_attempts:
                zone.ref = feat
                zone.change_done()
                zone.reads = []
                if zone.empty is None:
                    self._set_empty(zone, feat)
            return []
        zone.reads.append([d.card for d in found])
        cards = self._agreed(zone.reads)
        if cards is None:
            return []  # zone.ref kept: the next still frame reads the cards again
        zone.ref = feat
        zone.change_done()
        zone.reads = []
        if sorted(cards) == sorted(zone.shown):
            return []  # the same cards, straightened or nudged: already reported
        if zone.shown_boxes and all(any(self._same_place(d.box, box) for box in zone.shown_boxes) for d in found):
            # Every card lies where a shown card lay (boxes overlapping as two boxes of one card
            # do, as on the pile): the cards shown, read again (one read differently, or some
            # gathered up already). A reveal is scored at once; only a card laid in a new
            # place makes a new one.
            return []
        zone.shown = cards
        zone.shown_boxes = [tuple(d.box) for d in found]
        return [{"type": "reveal", "cards": cards, "t": round(t, 3)}]

    def _revealed(self, zone: _ZoneState, found: list, change: np.ndarray | None = None) -> list:
        """The detections in the reveal area that are cards laid there, left to right: each
        read with `reveal_confidence` or more, where the area changed since it was last seen
        empty (`change`, the area's colour change, if already measured), and one detection
        per card.

        A finely patterned table (honeycomb) gives the recognizer weak "cards" in the empty
        area, and a revealed card now and then a second, weaker box of its own: both made
        reveals of cards nobody laid, and a reveal is scored at once."""
        found = [d for d in found if d.confidence >= self.reveal_confidence]
        if zone.empty_colour is not None and found:
            # Where the area looks as it did empty, nothing was laid: a card's face differs in
            # colour from the table (by as much as an arm does) over nearly all the middle of
            # its box. Colour, not the edge features: a yellow card on yellow felt changes few
            # edges in its middle, but its white oval and symbol differ in colour all the same.
            # Compared at the best small shift, as a bumped camera is.
            # A box read at `reveal_sure` or more is a card wherever it lies: no box of no card
            # and no second box of a card reached that on the rendered bench, and on a light
            # table a card's colour differs from it over less of its middle.
            # On a light table (white fabric, a pale wood) a card's white border and oval are
            # the table's colour: real cards read under reveal_sure changed colour over only
            # 0.49-0.73 of their middle (the real-card bench) and went unscored. Their symbol
            # still came where the empty area showed none: the box's middle at full resolution
            # no longer looks as the empty area did (`_face_came`), where a pattern of the
            # table boxed as a card looks as it did.
            if change is None:
                change = self._colour_change(zone)
            found = [d for d in found if d.confidence >= self.reveal_sure or self._cover(change, d.box) >= self.reveal_cover
                     or self._face_came(zone.empty_frame, d.box, FACE_STRUCTURE)]
        cards: list = []
        for d in sorted(found, key=lambda d: -d.confidence):
            if not any(self._one_card(d, other) for other in cards):
                cards.append(d)
        return sorted(cards, key=lambda d: (d.box[0] + d.box[2]) / 2)  # left to right, as laid

    def _colour_change(self, zone: _ZoneState) -> np.ndarray:
        """Where the zone's colour differs from the empty zone's by as much as an arm differs
        from the table (`occlusion_level`), at the small shift that fits best."""
        level = self.occlusion_level
        return self._changed(self._colour / level, zone.empty_colour / level, zone, align=True)[1]

    def _one_card(self, weaker, stronger) -> bool:
        return one_card(weaker, stronger, self.reveal_inside, self.reveal_sure)

    def _agreed(self, reads: list[list[str]]) -> list[str] | None:
        """The cards once two readings agree (the latest, in its left-to-right order); after
        `max_reads` readings, no two alike, the latest: the cards have had longest to settle."""
        key = sorted(reads[-1])
        if sum(sorted(r) == key for r in reads) >= 2 or len(reads) >= self.max_reads:
            return reads[-1]
        return None
