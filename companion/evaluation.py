"""Accuracy of the recognizer on a photo set laid out one folder per card name."""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from companion.cards import CARD_NAMES, parse_card
from companion.errors import InputFileError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


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


def evaluate(pairs: list[tuple[Path, str]], detector, progress=None) -> Report:
    import cv2

    report = Report()
    for i, (path, truth) in enumerate(pairs):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            report.unreadable.append(str(path))
            continue
        report.total += 1
        found = detector.detect(frame)
        best = found[0].card if found else None
        stats = report.per_class[truth]
        stats[1] += 1
        if best == truth:
            report.correct += 1
            stats[0] += 1
        else:
            report.misses.append((str(path), truth, best, found[0].box if found else None))
            if best is not None:
                report.confusions[(truth, best)] += 1
                t, b = parse_card(truth), parse_card(best)
                if t.symbol == b.symbol and t.color != b.color:
                    report.colour_errors += 1
        if progress:
            progress(i + 1, len(pairs))
    return report


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


def write_miss_sheets(report: Report, out: Path, per_sheet: int = 24, tile: int = 160) -> list[Path]:
    """Contact sheets of the missed photos: each tile is the photo with the chosen box drawn,
    the true name on top (red) and the read name below (blue, "None" for no card)."""
    import cv2
    import numpy as np

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tiles = []
    for path, truth, best, box in report.misses:
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            continue
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


__all__ = ["Report", "photo_set", "evaluate", "format_report", "write_miss_sheets", "CARD_NAMES"]
