"""Accuracy of the recognizer on a photo set laid out one folder per card name, as the photos
are and under the fixed camera shifts of `companion.vision.photometric` (the robustness benchmark)."""
from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from companion.referee.cards import CARD_NAMES, parse_card
from companion.errors import CompanionError, InputFileError, UsageError
from companion.vision.photometric import EXTRA_SHIFTS, SHIFTS, apply_shift

if TYPE_CHECKING:  # the detector module loads the model stack; only its types are needed here
    from companion.vision.detector import Detection, Detector

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}

# The robustness benchmark's variants of a photo: as it is, then each camera shift.
VARIANTS: tuple[str, ...] = ("none", *SHIFTS)
# Issue 17's done-when figures for a photo set under the shifts: every variant's top-1 at
# least TARGET_TOP1, and no card name's top-1 under TARGET_CARD on any variant.
TARGET_TOP1, TARGET_CARD = 0.97, 0.90

Progress = Callable[[int, int], None]


@dataclass
class Report:
    total: int = 0
    correct: int = 0
    per_class: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    confusions: Counter = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)
    colour_errors: int = 0
    # (image, true name, read name or None, its box or None) for every photo not read right
    misses: list[tuple[str, str, str | None, tuple[float, float, float, float] | None]] = field(default_factory=list)

    def add(self, path: str, truth: str, found: Sequence[Detection]) -> None:
        """Count one read of a photo (the detections, best first) against its true name."""
        best = found[0].card if found else None
        self.total += 1
        stats = self.per_class[truth]
        stats[1] += 1
        if best == truth:
            self.correct += 1
            stats[0] += 1
            return
        self.misses.append((path, truth, best, found[0].box if found else None))
        if best is not None:
            self.confusions[(truth, best)] += 1
            t, b = parse_card(truth), parse_card(best)
            if t.symbol == b.symbol and t.color != b.color:
                self.colour_errors += 1

    @property
    def not_found(self) -> list[str]:
        """The photos in which no card was found."""
        return [path for path, _, best, _ in self.misses if best is None]

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def to_dict(self) -> dict:
        return {
            "images": self.total, "correct": self.correct, "top1": round(self.accuracy, 4),
            "colour_errors": self.colour_errors,
            "per_class": {k: round(c / t, 4) for k, (c, t) in sorted(self.per_class.items())},
            "worst_confusions": [{"true": a, "predicted": b, "count": n} for (a, b), n in self.confusions.most_common(10)],
            "no_card_found": self.not_found, "unreadable": self.unreadable,
        }


def photo_set(root: Path, limit_per_class: int | None = None, seed: int = 0) -> list[tuple[Path, str]]:
    """(image, card name) pairs from a folder-per-card tree; unknown folder names refused."""
    root = Path(root)
    if not root.is_dir():
        raise InputFileError(f"{root}: not a folder")
    pairs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        parse_card(folder.name)  # a folder that is not a card name is a mistake: say so
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if limit_per_class:
            files = random.Random(seed).sample(files, min(limit_per_class, len(files)))
        pairs += [(f, folder.name) for f in files]
    if not pairs:
        raise InputFileError(f"{root}: no images in card-name folders")
    return pairs


def evaluate(pairs: list[tuple[Path, str]], detector: Detector, progress: Progress | None = None) -> Report:
    """The detector's top-1 on the photos as they are."""
    return evaluate_shifts(pairs, detector, ("none",), progress)["none"]


def evaluate_shifts(pairs: list[tuple[Path, str]], detector: Detector, shifts: Sequence[str] = VARIANTS,
                    progress: Progress | None = None, calibrations: dict[str, Any] | None = None) -> dict[str, Report]:
    """One report per variant ("none" or a `photometric.SHIFTS` name), in the order given.
    Each photo is decoded once and every variant is made from that one picture; `progress`
    is told (photos done, photos) after each photo. `calibrations` (see `calibrate_shifts`):
    each variant is read with its own colour calibration (None: the colour reader alone)."""
    import cv2

    reports = {name: Report() for name in shifts}
    for i, (path, truth) in enumerate(pairs):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            for report in reports.values():
                report.unreadable.append(str(path))
        else:
            # Every variant is made from this one decode: a detector that wrote into it would
            # spoil the variants after it, so it fails loudly instead.
            frame.setflags(write=False)
            for name, report in reports.items():
                if calibrations is not None:
                    detector.calibration = calibrations.get(name)  # type: ignore[attr-defined]
                report.add(str(path), truth, detector.detect(apply_shift(name, frame)))
        if progress:
            progress(i + 1, len(pairs))
    return reports


def calibrate_shifts(detector: Any, pictures: Sequence[Any], shifts: Sequence[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A table's set-up under each camera shift: the detector's colour calibration learnt from
    `pictures` (photos of cards from the same camera) seen through that shift, as a host at
    that table would take it. Returns (variant -> calibration, variant -> why it was refused);
    a refused variant is read with the colour reader alone. The detector is left uncalibrated."""
    from companion.vision.calibration import CalibrationError

    calibrations: dict[str, Any] = {}
    refused: dict[str, str] = {}
    for name in shifts:
        detector.calibration = None  # each variant's set-up starts from the colour reader alone
        try:
            calibrations[name] = detector.calibrate([apply_shift(name, p) for p in pictures])
        except CalibrationError as exc:
            refused[name] = str(exc)
    detector.calibration = None
    return calibrations, refused


def rendered_shifts(detector: Detector, deck: str = "flip", per_card: int = 4, seed: int = 0,
                    shifts: Sequence[str] = VARIANTS, progress: Progress | None = None) -> dict[str, Report]:
    """`evaluate_shifts` on rendered cards instead of photos: every face of `deck` (for UNO
    Flip both sides, `cards.deck`; "themed" for a classic deck with the other themed cards), `per_card` times, laid on a small pile of the same deck's
    cards (`scenes.pile_scene`) and read under each variant. A read counts the detection that
    boxes the laid card (IoU at least 0.5), as the watcher reads the pile's top card. For decks
    no real photos exist of here: rendered, never photographed."""
    import numpy as np

    from companion.referee.cards import deck as deck_counts
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank
    from companion.vision.crops import box_iou

    # "themed": a classic deck with one of each other themed card (discard two, reflect, Dementor)
    names = sorted(deck_counts("classic", discard_two=1, mario_reflect=1, dementor=1) if deck == "themed"
                   else deck_counts(deck))
    bank = themed_bank(seed + 101, variants=2)  # printings the training data did not draw
    rng = np.random.default_rng(seed + 7)
    reports = {name: Report() for name in shifts}
    total = len(names) * per_card
    for i, (name, k) in enumerate((n, k) for n in names for k in range(per_card)):
        frame, box = pile_scene(rng, bank, name, below=names)  # type: ignore[arg-type]
        frame.setflags(write=False)
        for shift, report in reports.items():
            seen = apply_shift(shift, frame)
            s = seen.shape[1] / frame.shape[1]  # "third" is a smaller picture
            found = [d for d in detector.detect(seen) if box_iou(d.box, tuple(v * s for v in box)) >= 0.5]
            report.add(f"{name}#{k}", name, found[:1])
        if progress:
            progress(i + 1, total)
    return reports


def shift_names(spec: str) -> list[str]:
    """The variants a `--shifts` value names: the benchmark's family ("none" first) for an empty
    value, else the comma-separated names in the order given, each once (`EXTRA_SHIFTS` too)."""
    names = list(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    if not names:
        return list(VARIANTS)
    known = [*VARIANTS, *EXTRA_SHIFTS]
    unknown = [n for n in names if n not in known]
    if unknown:
        # `--shifts` takes an optional value, so written before the folders it eats the first.
        hint = " (a folder: put --shifts after the folders)" if Path(unknown[0]).is_dir() else ""
        raise UsageError(f"--shifts: unknown camera shift {unknown[0]!r}{hint}; known: {', '.join(known)}")
    return names


def shift_summary(reports: dict[str, Report]) -> dict:
    """The benchmark's verdict on one photo set's variants: the worst variant, the worst card
    name (lowest top-1 on any variant, with that variant), every variant under TARGET_TOP1,
    every (card, variant) under TARGET_CARD (worst first), and whether the set meets both."""
    order = list(reports)
    worst_shift = min(order, key=lambda n: reports[n].accuracy)  # the first of equals
    cards = sorted((c / t, order.index(n), card, c, t)
                   for n, r in reports.items() for card, (c, t) in r.per_class.items())

    def card_dict(acc: float, i: int, card: str, c: int, t: int) -> dict:
        return {"card": card, "shift": order[i], "top1": round(acc, 4), "correct": c, "images": t}

    low_shifts = [{"shift": n, "top1": round(r.accuracy, 4)} for n, r in reports.items() if r.accuracy < TARGET_TOP1]
    low_cards = [card_dict(*row) for row in cards if row[0] < TARGET_CARD]
    return {
        "worst_shift": {"shift": worst_shift, "top1": round(reports[worst_shift].accuracy, 4),
                        "correct": reports[worst_shift].correct, "images": reports[worst_shift].total},
        "worst_card": card_dict(*cards[0]) if cards else None,
        "targets": {"shift_top1": TARGET_TOP1, "card_top1": TARGET_CARD},
        "shifts_under_target": low_shifts, "cards_under_target": low_cards,
        "meets_targets": bool(cards) and not low_shifts and not low_cards,
    }


def shifts_to_dict(reports: dict[str, Report]) -> dict:
    """One photo set's benchmark as JSON: each variant's report, then the summary."""
    return {"shifts": {n: r.to_dict() for n, r in reports.items()}, **shift_summary(reports)}


def format_shifts(reports: dict[str, Report], name: str = "") -> str:
    """One photo set's benchmark as text: a row per variant, the worst variant and card, and
    a line that says whether the set meets the targets."""
    summary = shift_summary(reports)
    first = next(iter(reports.values()))
    lines = [f"{name}: {first.total} photos under {len(reports)} variants",
             f"  {'shift':<14} {'top-1':<18} {'colour confusions':>17} {'no card':>8}  worst confusion"]
    for shift, r in reports.items():
        top = ", ".join(f"{a}->{b} x{n}" for (a, b), n in r.confusions.most_common(1))
        lines.append(f"  {shift:<14} {f'{r.accuracy:.1%} ({r.correct}/{r.total})':<18} "
                     f"{r.colour_errors:>17} {len(r.not_found):>8}  {top}".rstrip())
    ws, wc = summary["worst_shift"], summary["worst_card"]
    worst = f"worst shift: {ws['shift']} {reports[ws['shift']].accuracy:.1%}"  # as its row says (not the rounded JSON)
    if wc:
        worst += f"; worst card: {wc['card']} {wc['top1']:.0%} ({wc['correct']}/{wc['images']}) under {wc['shift']}"
    lines.append(worst)
    targets = f"every shift >= {TARGET_TOP1:.0%}, no card under {TARGET_CARD:.0%}"
    if summary["meets_targets"]:
        lines.append(f"{name}: MEETS the targets ({targets})")
    else:
        why = []
        if summary["shifts_under_target"]:
            low = summary["shifts_under_target"]
            why.append(f"{len(low)} shift(s) under {TARGET_TOP1:.0%} ("
                       + ", ".join(f"{d['shift']} {d['top1']:.1%}" for d in low) + ")")
        if summary["cards_under_target"]:
            low = summary["cards_under_target"]
            names = len({d["card"] for d in low})
            why.append(f"{names} card name(s) under {TARGET_CARD:.0%} on some shift ("
                       + ", ".join(f"{d['card']} {d['top1']:.0%} under {d['shift']}" for d in low[:5])
                       + (", ..." if len(low) > 5 else "") + ")")
        lines.append(f"{name}: does NOT meet the targets ({targets}): " + "; ".join(why or ["no photos read"]))
    if first.unreadable:
        lines.append(f"unreadable: {len(first.unreadable)}")
    return "\n".join(lines)


def folder_name(shift: str) -> str:
    """A variant's name as a folder name ("green>yellow" -> "green-yellow")."""
    return re.sub(r"[^A-Za-z0-9.+]+", "-", shift).strip("-")


def format_report(report: Report, name: str = "") -> str:
    lines = [f"{name}: top-1 {report.accuracy:.1%} ({report.correct}/{report.total}), "
             f"colour confusions {report.colour_errors}, no card found {len(report.not_found)}"]
    worst = sorted(report.per_class.items(), key=lambda kv: kv[1][0] / kv[1][1])[:8]
    lines.append("lowest per-card accuracy: " + ", ".join(f"{k} {c / t:.0%}" for k, (c, t) in worst))
    if report.confusions:
        lines.append("worst confusions: " + ", ".join(f"{a}->{b} x{n}" for (a, b), n in report.confusions.most_common(8)))
    if report.unreadable:
        lines.append(f"unreadable: {len(report.unreadable)}")
    return "\n".join(lines)


def write_miss_sheets(report: Report, out: Path, per_sheet: int = 24, tile: int = 160,
                      shift: str = "none") -> list[Path]:
    """Contact sheets of the missed photos: each tile is the photo (under `shift`, as it was
    read, so the box fits it) with the chosen box drawn, the true name on top (red) and the
    read name below (blue, "None" for no card)."""
    import cv2
    import numpy as np

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tiles = []
    for path, truth, best, box in report.misses:
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            continue
        frame = apply_shift(shift, frame)
        h, w = frame.shape[:2]
        t = cv2.resize(frame, (tile, tile), interpolation=cv2.INTER_AREA)
        if box is not None:
            x1, y1, x2, y2 = box
            sx, sy = tile / w, tile / h
            cv2.rectangle(t, (int(x1 * sx), int(y1 * sy)), (int(x2 * sx), int(y2 * sy)), (255, 0, 0), 2)
        for text, y, colour in ((truth, 14, (0, 0, 255)), (str(best), tile - 6, (255, 0, 0))):
            cv2.putText(t, text, (3, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 3)
            cv2.putText(t, text, (3, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)
        tiles.append(t)
    sheets = []
    cols = 6
    for i in range(0, len(tiles), per_sheet):
        chunk = tiles[i:i + per_sheet]
        chunk += [np.zeros_like(chunk[0])] * (-len(chunk) % cols)
        sheet = np.concatenate([np.concatenate(chunk[j:j + cols], 1) for j in range(0, len(chunk), cols)], 0)
        sheets.append(out / f"misses-{i // per_sheet + 1:02d}.png")
        cv2.imwrite(str(sheets[-1]), sheet)
    return sheets


# -- how far the recognizer's probabilities can be taken at their word ------------------------------


def photo_readings(pairs: list[tuple[Path, str]], detector: Detector) -> list[tuple[str, tuple[tuple[str, float], ...]]]:
    """(true name, readings of the surest card found) for each photo in which a card is found."""
    import cv2

    out = []
    for path, truth in pairs:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        found = detector.detect(frame) if frame is not None else []
        if found:
            out.append((truth, found[0].readings()))
    return out


def reading_sharpness(reads: Sequence[tuple[str, Sequence[tuple[str, float]]]]) -> float:
    """The temperature T that makes the recognizer's readings honest probabilities: each
    reading's p ** T, with what the readings leave (1 - their sum) as one more outcome,
    renormalised; T (0.1 steps from 0.5 to 16) is the one under which the true names are
    likeliest. Over 1 the recognizer's second and third names are likelier in its words than
    they turn out to be."""
    import math

    def log_likelihood(t: float) -> float:
        total = 0.0
        for truth, readings in reads:
            ps = [max(1e-9, float(p)) for _, p in readings] + [max(1e-6, 1.0 - sum(p for _, p in readings))]
            names = [name for name, _ in readings]
            k = names.index(truth) if truth in names else len(names)
            total += t * math.log(ps[k]) - math.log(sum(p ** t for p in ps))
        return total

    if not reads:
        raise CompanionError("no readings to measure")
    return max((log_likelihood(k / 10), k / 10) for k in range(5, 161))[1]


def measure_sharpness(folders: Sequence[str | Path]) -> dict:
    """`reading_sharpness` of the shipped recognizer on photo sets (folder per card), each
    read by its own recognizer (a set is one camera) that does not learn the table's colours
    as it goes (the sets' photos are in no order of play)."""
    from companion.vision.detector import YoloDetector

    reads = []
    for folder in folders:
        reads += photo_readings(photo_set(Path(folder)), YoloDetector(learn_colours=False))
    right = sum(1 for truth, readings in reads if readings[0][0] == truth)
    return {"photos": len(reads), "right": right, "sharpness": reading_sharpness(reads)}



def synthetic_readings(detector: Detector, per_card: int = 30, seed: int = 0, shifts: Sequence[str] = VARIANTS,
                       names: Sequence[str] = CARD_NAMES, bank=None, progress: Progress | None = None,
                       overlaps: list[float] | None = None) -> list[tuple[str, tuple[tuple[str, float], ...]]]:
    """(true name, readings) of rendered cards laid on piles (`companion.synth.scenes.pile_scene`),
    `per_card` pictures of each name, each seen through the next of `shifts` in turn (the
    robustness benchmark's camera shifts, "none" first), so every shift is as common as
    every other. The readings are those of the detection that boxes the laid card (IoU at
    least 0.5); a picture with none gives nothing. `overlaps`, if given, gets that box's IoU
    with the true box for each reading. Rendered, never photographed: fit on it, check on
    the real photos (`measure_sharpness`)."""
    import numpy as np

    from companion.vision.photometric import apply_shift
    from companion.synth.scenes import FaceBank, pile_scene
    from companion.vision.crops import box_iou

    bank = bank if bank is not None else FaceBank(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    total, done = len(names) * per_card, 0
    for name in names:
        for _ in range(per_card):
            img, box = pile_scene(rng, bank, name)
            img = apply_shift(shifts[done % len(shifts)], img)
            done += 1
            found = [(d, box_iou(d.box, box)) for d in detector.detect(img)]
            best = max(found, key=lambda pair: pair[1], default=None)
            if best is not None and best[1] >= 0.5:
                out.append((name, tuple(best[0].readings())))
                if overlaps is not None:
                    overlaps.append(best[1])
            if progress:
                progress(done, total)
    return out


def fit_sharpness(detector: Detector | None = None, per_card: int = 30, seed: int = 0,
                  progress: Progress | None = None) -> dict:
    """The referee's READING_SHARPNESS fitted on rendered piles under the camera shifts
    (`synthetic_readings`, `reading_sharpness`): the temperature under which the true names
    are likeliest; and how closely the recognizer boxes the card (`box_iou`, percentiles of
    the IoU of its box with the true one). With no detector, the shipped recognizer, learning no colours as it goes
    (the pictures come from no one table)."""
    if detector is None:
        from companion.vision.detector import YoloDetector

        detector = YoloDetector(learn_colours=False)
    overlaps: list[float] = []
    reads = synthetic_readings(detector, per_card=per_card, seed=seed, progress=progress, overlaps=overlaps)
    right = sum(1 for truth, readings in reads if readings[0][0] == truth)
    ranked = sorted(overlaps)

    def pct(p: float) -> float:
        return round(ranked[min(len(ranked) - 1, int(p / 100 * len(ranked)))], 3) if ranked else 0.0

    # how closely the recognizer boxes a card: the watcher's same_overlap comes from its 1st percentile
    return {"pictures": per_card * len(CARD_NAMES), "found": len(reads), "right": right,
            "sharpness": reading_sharpness(reads), "box_iou": {"p1": pct(1), "p5": pct(5), "p50": pct(50)}}


__all__ = ["Report", "photo_set", "evaluate", "evaluate_shifts", "calibrate_shifts", "shift_names", "shift_summary", "shifts_to_dict",
           "format_report", "format_shifts", "folder_name", "write_miss_sheets", "VARIANTS", "TARGET_TOP1",
           "TARGET_CARD", "CARD_NAMES", "photo_readings", "reading_sharpness", "measure_sharpness",
           "synthetic_readings", "fit_sharpness"]
