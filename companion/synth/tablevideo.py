"""Generated table videos seen from above, with the true table log beside them.

A session is planned as a short, legal UNO game (`plan_session`: real hands dealt from the
deck vocabulary, cards matching by colour or symbol, wilds with a named colour, draws, passes,
UNO calls, illegal plays taken back, reveals at the end of a hand) and then drawn frame by
frame (`TableVideo`): a felt table, the draw pile, cards landing on the discard pile with
random offset and rotation carried by a skin-coloured hand and arm that occludes the pile,
hands that linger, a bumped pile, lighting drift, a moving soft shadow, camera noise and
shake.

The truth is a table log (table-log.md) in which every line has `t`, the video time in
seconds at which the watcher could first know it. For the camera-visible events (`flip`,
`play`, `take_back`, `reveal`) `t` is the moment the card is **at rest**: in its final place
with no hand or arm over its zone. Those lines also carry `t_land` (the moment the card was
let go or lifted) and `box` / `boxes` (axis-aligned pixel boxes), and a reveal carries
`t_clear` (when its cards were gathered again). `TruthDetector` (companion/vision/truth.py)
turns that truth into a perfect recognizer for benchmarks and tests.
"""
from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from companion.referee.cards import COLORS, WILDS, deck, parse_card
from companion.errors import CompanionError, InputFileError
from companion.vision.truth import truth_path, write_truth
from companion.vision.zones import Zones

PLAYER_NAMES = ("Ann", "Bob", "Cleo", "Dev", "Eve", "Finn")
VISIBLE_TYPES = ("flip", "play", "take_back", "reveal")


# --------------------------------------------------------------------------------------------
# Planning a legal session
# --------------------------------------------------------------------------------------------
@dataclass
class Step:
    """One thing that happens at the table, with the log lines it produces."""

    kind: str  # flip, play, take_back, draw, reveal, clear, reshuffle, bump, nudge, pair, idle, none
    seat: int = 0
    card: str | None = None
    cards: list[str] = field(default_factory=list)
    lines: list[dict] = field(default_factory=list)  # the visible line first (if any), then others
    before: list[dict] = field(default_factory=list)  # lines logged as the step starts (uno)
    # how a flip or play is laid: "" as usual, "crooked" (at a slant, half off the pile),
    # "hover" (held still at the pile's edge a while, then laid) or "facedown" (laid as a back,
    # then lifted and turned over where it lay)
    style: str = ""
    pair: list[Step] = field(default_factory=list)  # kind "pair": two plays, the second hurried


def _matches(card: str, top: str, color: str | None) -> bool:
    c, t = parse_card(card), parse_card(top)
    if c.is_wild:
        return True
    return c.color == color or c.symbol == t.symbol and not t.is_wild


def plan_session(
    plays: int,
    players: int = 4,
    seed: int = 0,
    same_card_rate: float = 0.5,
    illegal_rate: float = 0.05,
    edition: str = "classic",
    finish_hand: bool = True,
) -> list[Step]:
    """A legal game of `players` seats with at least `plays` cards laid (flips and plays).

    Hands are dealt from a shuffled deck and tracked card by card, so the log it produces
    replays without rejections under the default rules. When a player holds the same card
    as the top card they lay it with probability `same_card_rate` (identical cards in a row);
    with probability `illegal_rate` a player lays a wrong card and takes it back. With
    `finish_hand` the last hand is played out to its end and the losers' reveals.
    """
    if not 2 <= players <= len(PLAYER_NAMES):
        raise CompanionError(f"players must be 2 to {len(PLAYER_NAMES)}")
    rng = random.Random(seed)
    names = list(PLAYER_NAMES[:players])
    steps: list[Step] = [Step("none", lines=[{"type": "game", "players": names}])]
    laid = 0
    dealer = 0
    first_hand = True
    while laid < plays:
        pool = [name for name, n in sorted(deck(edition).items()) for _ in range(n)]
        rng.shuffle(pool)
        hands = [[pool.pop() for _ in range(7)] for _ in range(players)]
        if not first_hand:
            steps.append(Step("clear", seat=dealer))
        deal_line = {"type": "deal", "dealer": names[dealer]}
        steps.append(Step("none", seat=dealer, lines=[deal_line]))
        # the flip: a number card (others would be returned to the deck and another turned up)
        i = next(k for k in range(len(pool) - 1, -1, -1) if parse_card(pool[k]).number is not None)
        top = pool.pop(i)
        pile = [top]
        color: str | None = parse_card(top).color
        steps.append(Step("flip", seat=dealer, card=top, lines=[{"type": "flip", "card": top}]))
        laid += 1
        first_hand = False
        direction = 1
        cur = (dealer + 1) % players
        winner = None

        def draw_cards(seat: int, n: int) -> list[Step]:
            """Move n cards to a hand, reshuffling the pile (but its top) when the deck runs out."""
            out: list[Step] = []
            for _ in range(n):
                if not pool:
                    rest = pile[:-1]
                    del pile[:-1]
                    rng.shuffle(rest)
                    pool.extend(rest)
                    out.append(Step("reshuffle", seat=seat))
                if pool:
                    hands[seat].append(pool.pop())
            return out

        guard = 0
        while winner is None and (finish_hand or laid < plays) and guard < 2000:
            guard += 1
            hand = hands[cur]
            name = names[cur]
            has_color = any(parse_card(c).color == color for c in hand)
            legal = [
                c for c in hand
                if _matches(c, top, color) and not (c == "wild_draw_four" and has_color)
            ]
            wrong = [c for c in hand if not _matches(c, top, color)]
            if wrong and rng.random() < illegal_rate:
                card = rng.choice(wrong)
                steps.append(Step("play", seat=cur, card=card, lines=[{"type": "play", "card": card}]))
                steps.append(Step("take_back", seat=cur, card=card, lines=[{"type": "take_back"}]))
                laid += 1
                steps.extend(draw_cards(cur, 2))  # the illegal-play penalty, applied by the engine
                cur = (cur + direction) % players
                continue
            if not legal:
                steps.extend(draw_cards(cur, 1))
                steps.append(Step("draw", seat=cur, lines=[{"type": "draw"}]))
                drawn = hand[-1] if hand else None
                if drawn and _matches(drawn, top, color) and not (drawn == "wild_draw_four" and has_color) and rng.random() < 0.8:
                    legal = [drawn]
                else:
                    steps.append(Step("none", seat=cur, lines=[{"type": "pass"}]))
                    cur = (cur + direction) % players
                    continue
            same = [c for c in legal if c == top]
            plain = [c for c in legal if c not in WILDS]
            if same and rng.random() < same_card_rate:
                card = same[0]
            else:
                card = rng.choice(plain or legal)
            before = [{"type": "uno", "player": name}] if len(hand) == 2 else []
            hand.remove(card)
            pile.append(card)
            top = card
            laid += 1
            step = Step("play", seat=cur, card=card, lines=[{"type": "play", "card": card}], before=before)
            steps.append(step)
            info = parse_card(card)
            if not hand:
                winner = cur
                if info.symbol == "draw_two":
                    steps.extend(draw_cards((cur + direction) % players, 2))
                elif card == "wild_draw_four":
                    steps.extend(draw_cards((cur + direction) % players, 4))
                break
            if info.is_wild:
                counts = {c: sum(parse_card(h).color == c for h in hand) for c in COLORS}
                color = max(COLORS, key=lambda c: (counts[c], rng.random()))
                step.lines.append({"type": "color", "color": color})
            else:
                color = info.color
            nxt = (cur + direction) % players
            if info.symbol == "skip":
                cur = (nxt + direction) % players
            elif info.symbol == "reverse":
                direction = -direction
                cur = (cur + direction) % players if players > 2 else cur
            elif info.symbol == "draw_two":
                steps.extend(draw_cards(nxt, 2))
                cur = (nxt + direction) % players
            elif card == "wild_draw_four":
                steps.extend(draw_cards(nxt, 4))
                cur = (nxt + direction) % players
            else:
                cur = nxt
            if rng.random() < 0.04:
                steps.append(Step("bump"))
        if winner is not None:
            for k in range(1, players):
                seat = (winner + k) % players
                cards = list(hands[seat])
                if cards:
                    steps.append(Step("reveal", seat=seat, cards=cards, lines=[{"type": "reveal", "player": names[seat], "cards": cards}]))
        dealer = (dealer + 1) % players
    return steps


def with_habits(steps: Sequence[Step], seed: int = 0, facedown: float = 0.1, nudge: float = 0.15,
                hurry: float = 0.1) -> list[Step]:
    """`steps` as a real table plays them: some plays laid face down first and turned over
    where they lie (`facedown`), after some plays another player straightens the pile, sliding
    the top card by hand (`nudge`: no event), and some plays come hurried (`hurry`): the next
    player's hand reaches the pile as the last one's goes (a pair of plays, `_pair`)."""
    rng = random.Random(f"habits:{seed}")
    hurried = random.Random(f"hurry:{seed}")  # its own draws: the other habits fall as before
    players = next((len(line["players"]) for step in steps for line in step.lines if line.get("type") == "game"), 4)
    out: list[Step] = []
    for step in steps:
        if step.kind == "play" and not step.style and rng.random() < facedown:
            step = dataclasses.replace(step, style="facedown")
        last = out[-1] if out else None
        if (last is not None and last.kind == "play" and step.kind == "play" and not last.style
                and not step.style and last.seat != step.seat and hurried.random() < hurry):
            out[-1] = Step("pair", seat=last.seat, pair=[last, step])
        else:
            out.append(step)
        if step.kind in ("flip", "play") and players > 1 and rng.random() < nudge:  # someone else straightens it
            out.append(Step("nudge", seat=(step.seat + rng.randrange(1, players)) % players))
    return out


def plan_from_log(lines: Sequence[dict]) -> list[Step]:
    """Steps that act out a table log (e.g. from `companion.referee.simulate`): who reaches, and where.

    The engine tells whose turn each play is, so every card comes from its player's seat; a
    new deal after the first gathers the pile. Lines the camera cannot see (colour, draw
    counts, UNO calls, points) are kept in the truth with their time.
    """
    from companion.referee.engine import Table

    table = Table()
    steps: list[Step] = []
    names: list[str] = []
    dealt = False
    for line in lines:
        kind = line.get("type")
        state = table.state
        if kind == "game":
            names = list(line["players"])
        seat_of = {n: i for i, n in enumerate(names)}
        turn = line.get("player") or state.get("turn") or state.get("dealer")
        seat = seat_of.get(turn, 0) if turn else 0
        if kind == "deal":
            if dealt:
                steps.append(Step("clear", seat=seat_of.get(line.get("dealer"), seat)))
            dealt = True
            steps.append(Step("none", lines=[line]))
        elif kind == "flip":
            steps.append(Step("flip", seat=seat_of.get(state.get("dealer"), 0), card=line["card"], lines=[line]))
        elif kind == "play":
            steps.append(Step("play", seat=seat, card=line["card"], lines=[line]))
        elif kind == "take_back":
            last = next((s for s in reversed(steps) if s.kind in ("play", "flip")), None)
            steps.append(Step("take_back", seat=last.seat if last else seat, lines=[line]))
        elif kind == "draw":
            steps.append(Step("draw", seat=seat, lines=[line]))
        elif kind == "reveal" and line.get("cards"):
            steps.append(Step("reveal", seat=seat_of.get(line.get("player"), seat), cards=list(line["cards"]), lines=[line]))
        elif kind in ("color", "target") and steps and steps[-1].kind == "play":
            steps[-1].lines.append(line)  # named as the card is laid
        else:
            steps.append(Step("none", lines=[line]))
        table.push(line)
    return steps


def legal_session(hands: int = 1, players: int = 4, seed: int = 0) -> list[Step]:
    """A game from the engine's own simulator (`companion.referee.simulate`): it replays without rejections."""
    from companion.referee.simulate import simulate_games

    return plan_from_log(list(simulate_games(players, hands, seed)))


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------
@dataclass
class VideoSpec:
    width: int = 640
    height: int = 480
    fps: float = 10.0
    card_height: int = 110
    design: str = "classic"
    seed: int = 0
    noise: float = 4.0  # camera noise, grey levels (sigma)
    jitter: float = 0.35  # camera shake, pixels (sigma) every frame
    camera_bumps: bool = True  # now and then the camera mount moves by a few pixels
    light_drift: float = 0.12  # amplitude of the slow brightness drift
    shadow: float = 0.28  # darkness of the moving soft shadow (0 = none)
    linger_rate: float = 0.12  # share of placements where the hand rests over the pile a while


@dataclass
class Placed:
    name: str  # a card name, or "back"
    cx: float
    cy: float
    angle: float  # degrees, counter-clockwise as cv2.getRotationMatrix2D

    def corners(self, w: float, h: float) -> np.ndarray:
        a = math.radians(-self.angle)
        ca, sa = math.cos(a), math.sin(a)
        pts = []
        for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
            pts.append((self.cx + dx * ca - dy * sa, self.cy + dx * sa + dy * ca))
        return np.array(pts, np.float32)


def _ease(u: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * min(max(u, 0.0), 1.0))


def card_back(height: int) -> np.ndarray:
    """A plain card back (BGRA): black face, white rim, red oval."""
    import cv2

    w = int(round(height * 0.655))
    img = np.zeros((height, w, 4), np.uint8)
    r = max(3, height // 14)
    mask = np.zeros((height, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, height - 1 - r), (w - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    img[..., :3] = (245, 245, 245)
    b = max(2, height // 22)
    inner = cv2.erode(mask, np.ones((2 * b + 1, 2 * b + 1), np.uint8))
    img[inner > 0, :3] = (25, 25, 25)
    cv2.ellipse(img, (w // 2, height // 2), (int(w * 0.32), int(height * 0.4)), -30, 0, 360, (30, 30, 215, 255), -1)
    cv2.putText(img, "UNO", (int(w * 0.18), int(height * 0.56)), cv2.FONT_HERSHEY_DUPLEX, height / 110.0, (40, 220, 250, 255), 2)
    img[..., 3] = mask
    return img


class TableVideo:
    """Draws the frames of a planned session and fills in the truth as it goes.

    `frames()` yields BGR frames; once it is exhausted, `truth` holds the table log with times.
    """

    def __init__(
        self,
        steps: Sequence[Step],
        spec: VideoSpec | None = None,
        renderer: Callable[[str, str, int], np.ndarray] | None = None,
        zones: Zones | None = None,
        background: Callable[[int, int], np.ndarray] | None = None,
    ):
        """`renderer(name, design, height)` draws a card face (BGRA), `background(width,
        height)` the empty table (BGR); by default render_card and a felt."""
        import cv2

        self.cv2 = cv2
        self.steps = list(steps)
        self.spec = spec or VideoSpec()
        s = self.spec
        self.rng = np.random.default_rng(s.seed)
        self.prng = random.Random(s.seed + 1)
        self.zones = zones or Zones.default(s.width, s.height)
        if renderer is None:
            from companion.synth.render import render_card

            renderer = render_card
        self._renderer = renderer
        self._background = background
        self._faces: dict[str, np.ndarray] = {}
        self.truth: list[dict] = []
        self.pile: list[Placed] = []
        self.reveal: list[Placed] = []
        self._canvas: np.ndarray | None = None
        self._table = self._make_table()
        self.frame_index = 0
        cx0, cy0, cx1, cy1 = self.zones.bbox("discard")
        self.pile_centre = ((cx0 + cx1) / 2, (cy0 + cy1) / 2)
        dx0, dy0, dx1, dy1 = self.zones.bbox("draw") if self.zones.draw else (40, 100, 200, 280)
        self.draw_centre = ((dx0 + dx1) / 2, (dy0 + dy1) / 2)
        rx0, ry0, rx1, ry1 = self.zones.bbox("reveal") if self.zones.reveal else (150, 320, 630, 472)
        self.reveal_box = (rx0, ry0, rx1, ry1)
        self._zone_masks = {
            name: self.zones.mask(name, (s.height, s.width)) > 0 for name in ("discard", "reveal")
        }
        self._cam = np.zeros(2, np.float32)  # camera mount offset (pixels)
        self._next_cam_bump = self.prng.uniform(20, 60)
        self._light_phase = self.prng.uniform(0, 2 * math.pi)
        self._tint = np.array([self.prng.uniform(-0.03, 0.03) for _ in range(3)], np.float32)
        self._skin = self._skin_colour()
        self._pending: list[tuple[dict, str]] = []  # visible lines waiting for their rest moment

    # -- assets ---------------------------------------------------------------------------------
    def face(self, name: str) -> np.ndarray:
        if name not in self._faces:
            if name == "back":
                img = card_back(self.spec.card_height)
            else:
                img = self._renderer(name, self.spec.design, self.spec.card_height)
                if img.ndim != 3 or img.shape[2] != 4:
                    raise CompanionError("render_card must return a BGRA image")
            self._faces[name] = img
        return self._faces[name]

    def _skin_colour(self) -> np.ndarray:
        tones = [(150, 180, 225), (120, 150, 200), (95, 125, 175), (70, 95, 140), (165, 195, 235)]
        b, g, r = self.prng.choice(tones)
        return np.array([b, g, r], np.float32)

    def _make_table(self) -> np.ndarray:
        cv2 = self.cv2
        s = self.spec
        if self._background is not None:
            table = np.ascontiguousarray(self._background(s.width, s.height)[:, :, :3])
            if table.shape != (s.height, s.width, 3) or table.dtype != np.uint8:
                raise CompanionError(f"the background must be a {s.width}x{s.height} BGR image")
        else:
            table = self._felt()
        # the draw pile: a few backs, slightly out of line
        cx, cy = self._draw_centre_guess()
        for k in range(4):
            self._paste(table, self.face("back"), Placed("back", cx + k * 1.5, cy - k * 1.5, 3 - 2 * k), lift=0)
        return table

    def _felt(self) -> np.ndarray:
        cv2 = self.cv2
        s = self.spec
        rng = self.rng
        base = np.array(self.prng.choice([(55, 105, 40), (60, 70, 120), (90, 80, 70), (45, 60, 95)]), np.float32)
        low = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (s.width, s.height), interpolation=cv2.INTER_CUBIC)
        fine = cv2.GaussianBlur(rng.normal(0, 1, (s.height, s.width)).astype(np.float32), (0, 0), 1.2)
        img = base[None, None, :] * (1 + 0.06 * low[..., None]) + 6 * fine[..., None]
        yy, xx = np.mgrid[0:s.height, 0:s.width].astype(np.float32)
        vign = 1 - 0.25 * (((xx - s.width / 2) / s.width) ** 2 + ((yy - s.height / 2) / s.height) ** 2)
        img *= vign[..., None]
        return np.clip(img, 0, 255).astype(np.uint8)

    def _draw_centre_guess(self) -> tuple[float, float]:
        if self.zones.draw:
            x0, y0, x1, y1 = self.zones.bbox("draw")
            return ((x0 + x1) / 2, (y0 + y1) / 2)
        return (120.0, 190.0)

    # -- compositing -----------------------------------------------------------------------------
    def _paste(self, canvas: np.ndarray, bgra: np.ndarray, p: Placed, lift: float = 0.0) -> tuple[int, int, int, int]:
        """Alpha-blend a rotated card with a soft shadow; returns its pixel box (clipped)."""
        cv2 = self.cv2
        h, w = bgra.shape[:2]
        pts = p.corners(w, h)
        off = 3 + 9 * lift
        x0 = int(max(0, math.floor(pts[:, 0].min()) - 2))
        y0 = int(max(0, math.floor(pts[:, 1].min()) - 2))
        x1 = int(min(canvas.shape[1], math.ceil(pts[:, 0].max() + off) + 4))
        y1 = int(min(canvas.shape[0], math.ceil(pts[:, 1].max() + off) + 4))
        if x1 <= x0 or y1 <= y0:
            return (0, 0, 0, 0)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), p.angle, 1.0)
        m[0, 2] += p.cx - w / 2 - x0
        m[1, 2] += p.cy - h / 2 - y0
        warped = cv2.warpAffine(bgra, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3].astype(np.float32) / 255.0
        roi = canvas[y0:y1, x0:x1].astype(np.float32)
        shift = np.float32([[1, 0, off], [0, 1, off]])
        sh = cv2.warpAffine(alpha, shift, (x1 - x0, y1 - y0))
        sh = cv2.GaussianBlur(sh, (0, 0), 1.5 + 2.5 * lift)
        roi *= (1 - 0.4 * sh)[..., None]
        roi = roi * (1 - alpha[..., None]) + warped[..., :3].astype(np.float32) * alpha[..., None]
        canvas[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        bx = pts[:, 0].clip(0, canvas.shape[1] - 1)
        by = pts[:, 1].clip(0, canvas.shape[0] - 1)
        return (int(bx.min()), int(by.min()), int(round(bx.max())), int(round(by.max())))

    def _box(self, p: Placed) -> list[int]:
        h, w = self.face(p.name).shape[:2]
        pts = p.corners(w, h)
        return [int(pts[:, 0].min()), int(pts[:, 1].min()), int(round(pts[:, 0].max())), int(round(pts[:, 1].max()))]

    def _scene(self) -> np.ndarray:
        if self._canvas is None:
            canvas = self._table.copy()
            for p in self.pile + self.reveal:
                self._paste(canvas, self.face(p.name), p)
            self._canvas = canvas
        return self._canvas

    def _touch(self) -> None:
        self._canvas = None

    def _arm(self, img: np.ndarray, seat_pt: tuple[float, float], palm: tuple[float, float]) -> np.ndarray:
        """Draw a hand and arm reaching from the seat to `palm`; returns its boolean mask."""
        cv2 = self.cv2
        s = self.spec
        H, W = img.shape[:2]
        sx, sy = seat_pt
        px, py = palm
        dx, dy = px - sx, py - sy
        n = math.hypot(dx, dy) or 1.0
        ux, uy = dx / n, dy / n
        scale = s.card_height / 110.0
        mask = np.zeros((H, W), np.uint8)
        wrist = (px - ux * 38 * scale, py - uy * 38 * scale)
        cv2.line(mask, (int(sx), int(sy)), (int(wrist[0]), int(wrist[1])), 255, int(52 * scale))
        ang = math.degrees(math.atan2(uy, ux))
        cv2.ellipse(mask, (int(px), int(py)), (int(42 * scale), int(33 * scale)), ang, 0, 360, 255, -1)
        for k in (-1.5, -0.5, 0.5, 1.5):  # fingers
            fx = px + ux * 40 * scale - uy * k * 12 * scale
            fy = py + uy * 40 * scale + ux * k * 12 * scale
            cv2.ellipse(mask, (int(fx), int(fy)), (int(20 * scale), int(6 * scale)), ang + k * 6, 0, 360, 255, -1)
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return mask > 0
        x0, x1 = max(0, xs.min() - 16), min(W, xs.max() + 30)
        y0, y1 = max(0, ys.min() - 16), min(H, ys.max() + 30)
        m = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
        soft = cv2.GaussianBlur(m, (0, 0), 1.2)
        shadow = cv2.GaussianBlur(cv2.warpAffine(m, np.float32([[1, 0, 14], [0, 1, 10]]), (x1 - x0, y1 - y0)), (0, 0), 6)
        roi = img[y0:y1, x0:x1].astype(np.float32)
        roi *= (1 - 0.35 * shadow)[..., None]
        # skin with a lit side and a darker side across the arm
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        across = ((xx - sx) * -uy + (yy - sy) * ux) / (30 * scale)
        shade = (1.0 + 0.12 * np.tanh(across))[..., None]
        skin = self._skin[None, None, :] * shade
        roi = roi * (1 - soft[..., None]) + skin * soft[..., None]
        img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        return mask > 0

    def _seat_point(self, seat: int, players: int) -> tuple[float, float]:
        s = self.spec
        theta = math.pi / 2 + 2 * math.pi * seat / players  # bottom first, then clockwise on screen
        cx, cy = s.width / 2, s.height / 2
        r = 2.0 * max(s.width, s.height)
        x, y = cx + r * math.cos(theta), cy + r * math.sin(theta)
        # pull the point back to just outside the frame border
        k = min(
            (s.width / 2 + 60) / abs(x - cx) if x != cx else 1e9,
            (s.height / 2 + 60) / abs(y - cy) if y != cy else 1e9,
        )
        return (cx + (x - cx) * k, cy + (y - cy) * k)

    # -- one frame -------------------------------------------------------------------------------
    def _frame(self, hand: tuple[tuple[float, float], tuple[float, float]] | None, held: Sequence[Placed],
               others: Sequence[tuple[tuple[float, float], tuple[float, float]]] = ()) -> np.ndarray:
        """One picture: the table, `hand` (seat, palm) holding `held`, and `others`' empty hands."""
        cv2 = self.cv2
        s = self.spec
        t = self.frame_index / s.fps
        img = self._scene().copy()
        arm = None
        for seat_pt, palm in others:
            other = self._arm(img, seat_pt, palm)
            arm = other if arm is None else arm | other
        for p in held:
            self._paste(img, self.face(p.name), p, lift=1.0)
        if hand is not None:
            mine = self._arm(img, hand[0], hand[1])
            arm = mine if arm is None else arm | mine
        # rest: the pending visible events are at rest once no arm covers their zone
        if self._pending:
            still_pending = []
            for line, zone in self._pending:
                if arm is not None and np.any(arm & self._zone_masks[zone]):
                    still_pending.append((line, zone))
                else:
                    line["t"] = round(t, 3)
            self._pending = still_pending
        # light: slow drift of brightness and tint, a soft shadow wandering across the table
        gain = 1 + s.light_drift * math.sin(2 * math.pi * t / 37.0 + self._light_phase)
        f = img.astype(np.float32) * (gain * (1 + self._tint))[None, None, :]
        if s.shadow > 0:
            sc = np.zeros((30, 40), np.float32)
            ang = 2 * math.pi * t / 75.0 + self._light_phase
            cv2.ellipse(sc, (int(20 + 14 * math.cos(ang)), int(15 + 9 * math.sin(ang * 0.7))), (9, 6), 30, 0, 360, 1.0, -1)
            sc = cv2.GaussianBlur(sc, (0, 0), 3)
            f *= (1 - s.shadow * cv2.resize(sc, (s.width, s.height), interpolation=cv2.INTER_LINEAR))[..., None]
        # camera: a mount that moves now and then, a little jitter every frame, sensor noise
        if s.camera_bumps and t >= self._next_cam_bump:
            self._cam += np.array([self.prng.uniform(-3, 3), self.prng.uniform(-3, 3)], np.float32)
            self._cam = self._cam.clip(-6, 6)
            self._next_cam_bump = t + self.prng.uniform(25, 70)
        shake = self._cam + self.rng.normal(0, s.jitter, 2).astype(np.float32)
        if np.any(np.abs(shake) > 0.05):
            f = cv2.warpAffine(f, np.float32([[1, 0, shake[0]], [0, 1, shake[1]]]), (s.width, s.height), borderMode=cv2.BORDER_REFLECT)
        if s.noise > 0:
            # cv2.randn draws from OpenCV's global state; seeding it per frame keeps a video
            # the same bytes whatever its process drew before (numpy's draw costs 3x the time).
            noise = np.empty((s.height, s.width, 3), np.float32)
            cv2.setRNGSeed((s.seed * 1_000_003 + self.frame_index) & 0x7FFFFFFF)
            cv2.randn(noise, 0, s.noise)
            f += noise
        self.frame_index += 1
        return np.clip(f, 0, 255).astype(np.uint8)

    # -- animation --------------------------------------------------------------------------------
    def _frames_for(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.spec.fps)))

    def _reach(self, start, target, held_fn, seconds, seat=None):
        """Move the palm from `start` to `target`; the arm always comes from `seat` (default start)."""
        seat = seat or start
        n = self._frames_for(seconds)
        for i in range(1, n + 1):
            u = _ease(i / n)
            palm = (start[0] + (target[0] - start[0]) * u, start[1] + (target[1] - start[1]) * u)
            yield self._frame((seat, palm), held_fn(palm, u))

    def _linger(self, seat_pt, palm, held, long: bool):
        n = self._frames_for(self.prng.uniform(1.2, 2.5) if long else self.prng.uniform(0.0, 0.3))
        for _ in range(n):
            j = (self.prng.uniform(-2, 2), self.prng.uniform(-2, 2))  # a resting hand still fidgets
            yield self._frame((seat_pt, (palm[0] + j[0], palm[1] + j[1])), held)

    def _idle(self, seconds: float):
        for _ in range(self._frames_for(seconds)):
            yield self._frame(None, [])

    def _log(self, line: dict, t: float | None = None) -> dict:
        line = dict(line)
        if t is not None:
            line["t"] = round(t, 3)
        self.truth.append(line)
        return line

    def _now(self) -> float:
        return self.frame_index / self.spec.fps

    def _hold_card(self, seat_pt, final: Placed):
        """Where a carried card sits: under the fingers, turning towards its final angle."""

        def held(palm, u):
            dx, dy = final.cx - seat_pt[0], final.cy - seat_pt[1]
            n = math.hypot(dx, dy) or 1.0
            lead = 0.42 * self.spec.card_height
            ang = final.angle + 25.0 * (1.0 - u)
            return [Placed(final.name, palm[0] + dx / n * lead, palm[1] + dy / n * lead, ang)]

        return held

    def frames(self) -> Iterator[np.ndarray]:
        players = len(self.steps[0].lines[0]["players"]) if self.steps and self.steps[0].lines else 4
        yield from self._idle(self.prng.uniform(1.0, 1.5))
        for step in self.steps:
            yield from self._step(step, players)
        yield from self._idle(1.5)
        for line, _zone in self._pending:  # never left without a time
            line["t"] = round(self._now(), 3)
        self._pending = []

    def _step(self, step: Step, players: int):
        s = self.spec
        seat_pt = self._seat_point(step.seat, players)
        lead = 0.42 * s.card_height
        for line in step.before:
            self._log(line, self._now())
        if step.kind == "none":
            for line in step.lines:
                self._log(line, self._now())
            return
        if step.kind in ("flip", "play"):
            p = self._landing(step)
            palm = self._palm_for(seat_pt, p)
            if step.style == "hover":
                yield from self._hover(seat_pt, p, palm)
            elif step.style == "facedown":
                yield from self._face_down(seat_pt, p, palm)
            else:
                yield from self._reach(seat_pt, palm, self._hold_card(seat_pt, p), self.prng.uniform(0.5, 0.9))
            visible = self._landed(step, p)
            yield from self._linger(seat_pt, palm, [], self.prng.random() < s.linger_rate)
            yield from self._reach(palm, seat_pt, lambda pm, u: [], self.prng.uniform(0.4, 0.7), seat=seat_pt)
            for line in step.lines[1:]:
                self._log(line, max(self._now(), visible.get("t", 0)))
            yield from self._idle(self.prng.uniform(0.3, 1.2))
        elif step.kind == "take_back":
            yield from self._idle(self.prng.uniform(0.4, 1.0))
            top = self.pile[-1]
            palm = self._palm_for(seat_pt, top)
            yield from self._reach(seat_pt, palm, lambda pm, u: [], self.prng.uniform(0.5, 0.8))
            self.pile.pop()
            self._touch()
            visible = self._log(step.lines[0])
            visible["t_land"] = round(self._now(), 3)
            self._pending.append((visible, "discard"))
            held = self._hold_card(seat_pt, top)
            n_out = self._frames_for(self.prng.uniform(0.4, 0.7))
            for i in range(1, n_out + 1):
                u = _ease(i / n_out)
                pm = (palm[0] + (seat_pt[0] - palm[0]) * u, palm[1] + (seat_pt[1] - palm[1]) * u)
                yield self._frame((seat_pt, pm), held(pm, 1.0))
            yield from self._idle(self.prng.uniform(0.3, 1.0))
        elif step.kind == "draw":
            cx, cy = self.draw_centre
            palm = (cx - 0.2 * lead, cy + 0.1 * lead)
            yield from self._reach(seat_pt, palm, lambda pm, u: [], self.prng.uniform(0.5, 0.8))
            for line in step.lines:
                self._log(line, self._now())
            yield from self._reach(palm, seat_pt, lambda pm, u: [Placed("back", pm[0], pm[1], 10)], self.prng.uniform(0.4, 0.7), seat=seat_pt)
            yield from self._idle(self.prng.uniform(0.3, 0.9))
        elif step.kind in ("clear", "reshuffle"):
            cx, cy = self.pile_centre
            yield from self._reach(seat_pt, (cx, cy), lambda pm, u: [], self.prng.uniform(0.6, 0.9))
            self.pile = [] if step.kind == "clear" else self.pile[-1:]
            self._touch()
            yield from self._reach((cx, cy), seat_pt, lambda pm, u: [Placed("back", pm[0], pm[1], 20)], self.prng.uniform(0.5, 0.8), seat=seat_pt)
            yield from self._idle(self.prng.uniform(0.5, 1.0))
        elif step.kind == "bump":
            if len(self.pile) > 1:
                dx, dy, da = self.prng.uniform(-5, 5), self.prng.uniform(-5, 5), self.prng.uniform(-1.5, 1.5)
                cx, cy = self.pile_centre
                a = math.radians(-da)
                for p in self.pile:
                    rx, ry = p.cx - cx, p.cy - cy
                    p.cx = cx + rx * math.cos(a) - ry * math.sin(a) + dx
                    p.cy = cy + rx * math.sin(a) + ry * math.cos(a) + dy
                    p.angle += da
                self._touch()
            yield from self._idle(self.prng.uniform(0.3, 0.8))
        elif step.kind == "reveal":
            yield from self._reveal(step, seat_pt)
        elif step.kind == "nudge":
            yield from self._nudge(seat_pt, lead)
        elif step.kind == "pair":
            yield from self._pair(*step.pair, players=players)

    def _palm_for(self, seat_pt: tuple[float, float], card: Placed) -> tuple[float, float]:
        """Where the palm of a hand from `seat_pt` is as it lays or takes `card`: short of the
        card's middle by the lead its fingers hold a card at."""
        lead = 0.42 * self.spec.card_height
        dx, dy = card.cx - seat_pt[0], card.cy - seat_pt[1]
        n = math.hypot(dx, dy) or 1.0
        return (card.cx - dx / n * lead, card.cy - dy / n * lead)

    def _landed(self, step: Step, p: Placed) -> dict:
        """`step`'s card `p` comes to rest on the pile now: its visible line, logged (at rest once
        no arm is over the pile)."""
        self.pile.append(p)
        self._touch()
        visible = self._log(step.lines[0])
        visible["t_land"] = round(self._now(), 3)
        visible["box"] = self._box(p)
        self._pending.append((visible, "discard"))
        return visible

    def _landing(self, step: Step) -> Placed:
        """Where a flip or play comes to rest on the pile."""
        cx, cy = self.pile_centre
        top = self.pile[-1] if self.pile else None
        if step.style == "crooked":
            # half off the pile, at a slant: the card's centre half a card from the pile's
            # centre, still inside the discard zone
            x0, y0, x1, y1 = self.zones.bbox("discard")
            ang = self.prng.uniform(0, 2 * math.pi)
            d = self.prng.uniform(0.35, 0.5) * self.spec.card_height
            px = min(max(cx + d * math.cos(ang), x0 + 40), x1 - 40)
            py = min(max(cy + d * math.sin(ang), y0 + 40), y1 - 40)
            return Placed(step.card or "back", px, py, self.prng.choice((-1, 1)) * self.prng.uniform(40, 80))
        while True:  # a new card never lands exactly on the old one
            p = Placed(step.card or "back", cx + self.prng.uniform(-22, 22), cy + self.prng.uniform(-20, 20), self.prng.uniform(-35, 35))
            if top is None or math.hypot(p.cx - top.cx, p.cy - top.cy) > 12 or abs(p.angle - top.angle) > 12:
                return p

    def _hover(self, seat_pt, final: Placed, palm):
        """Carry the card to the pile's near edge, hold it there still (a player making up
        their mind), then lay it: the card is in the hand the whole time, so nothing is laid
        before the last move."""
        s = self.spec
        dx, dy = final.cx - seat_pt[0], final.cy - seat_pt[1]
        n = math.hypot(dx, dy) or 1.0
        back = 0.75 * s.card_height  # the held card overlaps the pile's edge
        edge = (palm[0] - dx / n * back, palm[1] - dy / n * back)
        hold = self._hold_card(seat_pt, final)
        yield from self._reach(seat_pt, edge, hold, self.prng.uniform(0.5, 0.9))
        held = hold(edge, 0.0)
        for _ in range(self._frames_for(self.prng.uniform(1.0, 2.5))):
            j = (self.prng.uniform(-1.5, 1.5), self.prng.uniform(-1.5, 1.5))
            pm = (edge[0] + j[0], edge[1] + j[1])
            yield self._frame((seat_pt, pm), [Placed(p.name, p.cx + j[0], p.cy + j[1], p.angle) for p in held])
        yield from self._reach(edge, palm, hold, self.prng.uniform(0.3, 0.5), seat=seat_pt)

    def _face_down(self, seat_pt, final: Placed, palm):
        """Lay the card as a back (the hand goes a moment), then come back, lift it and turn it
        over in the hand where it lay; the caller puts it down face up."""
        back = Placed("back", final.cx, final.cy, final.angle)
        yield from self._reach(seat_pt, palm, self._hold_card(seat_pt, back), self.prng.uniform(0.5, 0.9))
        self.pile.append(back)
        self._touch()
        yield from self._reach(palm, seat_pt, lambda pm, u: [], self.prng.uniform(0.4, 0.7), seat=seat_pt)
        yield from self._idle(self.prng.uniform(1.0, 2.0))
        yield from self._reach(seat_pt, palm, lambda pm, u: [], self.prng.uniform(0.5, 0.8))
        self.pile.pop()
        self._touch()
        n = self._frames_for(0.4)
        for i in range(n):  # lifted a little and turned over: the back, then the face
            name = "back" if i < n // 2 else final.name
            yield self._frame((seat_pt, palm), [Placed(name, final.cx, final.cy, final.angle + 8)])

    def _pair(self, first: Step, second: Step, players: int):
        """Two plays in a hurry: the second player's hand, with its card, reaches the pile in the
        time the first player's hand takes to go (0.4-0.7 s), so the pile is never still between
        the two cards; at most a frame or two clear of both arms."""
        placed = []
        for step in (first, second):
            seat_pt = self._seat_point(step.seat, players)
            for line in step.before:
                self._log(line, self._now())
            p = self._landing(step)
            palm = self._palm_for(seat_pt, p)
            if step is first:
                yield from self._reach(seat_pt, palm, self._hold_card(seat_pt, p), self.prng.uniform(0.5, 0.9))
            else:
                (seat_a, palm_a), hold = placed[0], self._hold_card(seat_pt, p)
                frames = self._frames_for(self.prng.uniform(0.4, 0.7))
                for i in range(1, frames + 1):
                    u = _ease(i / frames)
                    pm = (seat_pt[0] + (palm[0] - seat_pt[0]) * u, seat_pt[1] + (palm[1] - seat_pt[1]) * u)
                    going = (palm_a[0] + (seat_a[0] - palm_a[0]) * u, palm_a[1] + (seat_a[1] - palm_a[1]) * u)
                    yield self._frame((seat_pt, pm), hold(pm, u), others=[(seat_a, going)])
            self._landed(step, p)
            for line in step.lines[1:]:
                self._log(line, self._now())
            placed.append((seat_pt, palm))
        seat_pt, palm = placed[1]
        yield from self._reach(palm, seat_pt, lambda pm, u: [], self.prng.uniform(0.4, 0.7), seat=seat_pt)
        yield from self._idle(self.prng.uniform(0.3, 1.2))

    def _nudge(self, seat_pt, lead: float):
        """A player straightens the pile: the top card slid 12-30 px and turned up to 15
        degrees by hand over half a second."""
        if self.pile:
            top = self.pile[-1]
            dist, way = self.prng.uniform(12, 30), self.prng.uniform(0, 2 * math.pi)
            dx, dy, turn = dist * math.cos(way), dist * math.sin(way), self.prng.uniform(-15, 15)
            tx, ty = top.cx - seat_pt[0], top.cy - seat_pt[1]
            n = math.hypot(tx, ty) or 1.0
            palm = (top.cx - tx / n * lead * 0.5, top.cy - ty / n * lead * 0.5)
            yield from self._reach(seat_pt, palm, lambda pm, u: [], self.prng.uniform(0.5, 0.8))
            frames = self._frames_for(0.5)
            for i in range(1, frames + 1):
                u = _ease(i / frames)
                self.pile[-1] = Placed(top.name, top.cx + dx * u, top.cy + dy * u, top.angle + turn * u)
                self._touch()
                yield self._frame((seat_pt, (palm[0] + dx * u, palm[1] + dy * u)), [])
            yield from self._reach((palm[0] + dx, palm[1] + dy), seat_pt, lambda pm, u: [],
                                   self.prng.uniform(0.4, 0.6), seat=seat_pt)
        yield from self._idle(self.prng.uniform(0.5, 1.0))

    def _reveal(self, step: Step, seat_pt):
        s = self.spec
        x0, y0, x1, y1 = self.reveal_box
        n = len(step.cards)
        w = s.card_height * 0.655
        gap = min(w * 1.05, (x1 - x0 - w - 16) / max(1, n - 1))
        total = w + gap * (n - 1)
        start = (x0 + x1) / 2 - total / 2 + w / 2
        cy = (y0 + y1) / 2
        placed = [
            Placed(c, start + k * gap + self.prng.uniform(-3, 3), cy + self.prng.uniform(-6, 6), self.prng.uniform(-6, 6))
            for k, c in enumerate(step.cards)
        ]
        centre = ((x0 + x1) / 2, cy)
        dx, dy = centre[0] - seat_pt[0], centre[1] - seat_pt[1]
        d = math.hypot(dx, dy) or 1.0
        palm = (centre[0] - dx / d * 0.42 * s.card_height, centre[1] - dy / d * 0.42 * s.card_height)
        yield from self._reach(seat_pt, palm, self._hold_card(seat_pt, Placed(step.cards[0], centre[0], centre[1], 0)), self.prng.uniform(0.6, 0.9))
        self.reveal = placed
        self._touch()
        visible = self._log(step.lines[0])
        visible["t_land"] = round(self._now(), 3)
        visible["boxes"] = [self._box(p) for p in placed]
        self._pending.append((visible, "reveal"))
        yield from self._linger(seat_pt, palm, [], False)
        yield from self._reach(palm, seat_pt, lambda pm, u: [], self.prng.uniform(0.4, 0.7), seat=seat_pt)
        yield from self._idle(self.prng.uniform(2.5, 3.5))
        yield from self._reach(seat_pt, palm, lambda pm, u: [], self.prng.uniform(0.5, 0.8))
        self.reveal = []
        self._touch()
        visible["t_clear"] = round(self._now(), 3)
        yield from self._reach(palm, seat_pt, lambda pm, u: [Placed("back", pm[0], pm[1], 15)], self.prng.uniform(0.4, 0.7), seat=seat_pt)
        yield from self._idle(self.prng.uniform(0.8, 1.2))


# --------------------------------------------------------------------------------------------
# Files and a perfect recognizer
# --------------------------------------------------------------------------------------------
def _writer(path: Path, fps: float, size: tuple[int, int]):
    import cv2

    fourcc = "MJPG" if path.suffix.lower() == ".avi" else "mp4v"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
    if not writer.isOpened():
        raise InputFileError(f"cannot write video {str(path)!r} (use .mp4 or .avi)")
    return writer


def make_video(
    out: str | Path,
    plays: int = 30,
    seed: int = 0,
    players: int = 4,
    spec: VideoSpec | None = None,
    steps: Sequence[Step] | None = None,
    renderer: Callable[[str, str, int], np.ndarray] | None = None,
    background: Callable[[int, int], np.ndarray] | None = None,
) -> list[dict]:
    """Write a table video and its truth (OUT.jsonl); returns the truth lines.

    `renderer` and `background` replace the drawn faces and the felt (see TableVideo)."""
    out = Path(out)
    if out.suffix.lower() not in (".mp4", ".avi"):
        raise InputFileError(f"video name {str(out)!r} must end in .mp4 or .avi")
    if not out.parent.is_dir():
        raise InputFileError(f"folder {str(out.parent)!r} does not exist")
    spec = spec or VideoSpec(seed=seed)
    steps = list(steps) if steps is not None else plan_session(plays, players=players, seed=seed)
    video = TableVideo(steps, spec, renderer=renderer, background=background)
    tmp = out.with_name(out.stem + ".part" + out.suffix)
    writer = _writer(tmp, spec.fps, (spec.width, spec.height))
    try:
        for frame in video.frames():
            writer.write(frame)
    except BaseException:  # Ctrl-C, kill, a failure: no half-written video is left behind
        writer.release()
        tmp.unlink(missing_ok=True)
        raise
    writer.release()
    tmp.replace(out)
    write_truth(truth_path(out), video.truth)
    return video.truth
