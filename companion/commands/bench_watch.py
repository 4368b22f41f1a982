"""`uno-companion bench-watch [--videos N] [--plays P]`: watcher accuracy, latency and speed.

Generates table videos (at least 200 cards laid in total by default), runs the watcher on
each as fast as it can, and compares what it said with the truth: phantom events, missed
events, wrong card names and wrong flip/play (each card as the referee names and kinds it:
the camera says only that a card was laid), confirmation latency (card at rest -> event, in
video time) and processing frames per second. `--detector truth` (default) is a perfect
recognizer built from the truth; `--detector yolo` uses the shipped model, made as `run` makes
it at a table with no colour set-up (one camera: it remembers the light), afresh for each video
(each is another table under another light).

`--real` makes the videos of real cards instead (companion/synth/realvideo.py: cut-outs of the
real photos on the composites' texture photos, the same script) and reads them with the
shipped model unless `--detector truth` is asked for.
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Sequence

HELP = "watcher accuracy and latency on generated videos"
# what each event is about: a card laid (the watcher's `lay`, or a truth's flip or play), a
# take-back or a reveal
_KIND = {"lay": "card", "flip": "card", "play": "card", "take_back": "take_back", "reveal": "reveal"}
_TRUTH_KINDS = ("flip", "play", "take_back", "reveal")  # the camera-visible lines of a truth
_TIMING = ("t", "t_land", "t_clear", "box", "boxes")  # a truth line's video fields, not the log's


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--videos", type=int, default=4, help="videos to generate (default 4)")
    parser.add_argument("--plays", type=int, default=55, help="cards laid per video, at least: the hand under way is played out, so a "
                             "video may lay several times as many (default 55)")
    parser.add_argument("--seed", type=int, default=100, help="first seed (default 100)")
    parser.add_argument("--detector", choices=("truth", "yolo"), help="recognizer (default truth; yolo with --real)")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the generated videos in this folder (a later run with the same folder, seed "
                             "and plays reuses them instead of generating them again)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--deck", choices=("classic", "flip"), default="classic",
                        help="flip: games of UNO Flip from the simulator (the pile turned over after each Flip, "
                             "the dark side's cards), drawn with the rendered faces (default classic)")
    parser.add_argument("--habits", action="store_true",
                        help="as real tables play: some cards laid face down first and turned over where they "
                             "lie, the top card now and then slid by another player straightening the pile, "
                             "some plays hurried (the next hand reaches the pile as the last one goes) "
                             "(needs the shipped model: a truth's boxes do not follow a slid card)")
    parser.add_argument("--real", action="store_true",
                        help="videos of real cards (cut out of the real photos) on real texture photos")
    parser.add_argument("--photos", metavar="DIR", help="with --real: the photo sets, one folder of card-name "
                        "folders each (default ../shared/data/real-photos)")
    parser.add_argument("--composites", metavar="DIR", help="with --real: the texture photos the tables are cut "
                        "from (default ../shared/data/uno-cards-composites)")


def score(truth: Sequence[dict], events: Sequence[dict], fps: float = 10.0) -> dict:
    """Match watcher events to the truth's camera-visible events, in time order.

    An event matches a true one of the same kind (a lay, flip or play all count as a card
    laid) made between the card landing and 3 s after it came to rest, events naming the same
    card (in any of their readings) first. Unmatched events are phantoms, unmatched truths are missed, a matched card or
    reveal with other names is wrong. A lay's kind and name are the referee's call
    (`referee_lines`): a matched card is judged by the line the referee makes of it, its kind
    (flip or play) in `wrong_kind`.
    """
    from companion.referee.service import lay_names

    wanted = [line for line in truth if line.get("type") in _TRUTH_KINDS]
    used = [False] * len(events)
    matches: dict[int, int] = {}

    def window(line: dict, same_name: bool) -> int | None:
        lo = line.get("t_land", line["t"]) - 0.05
        hi = line["t"] + 3.0
        for k, ev in enumerate(events):
            if used[k] or _KIND.get(ev.get("type")) != _KIND[line["type"]] or not lo <= ev["t"] <= hi:
                continue
            if not same_name or line.get("card") in lay_names(ev):
                return k
        return None

    # Two passes: events naming the card first, then any event of the kind. One missed card
    # must not shift every later match onto its neighbour and count them all as wrong names.
    for same_name in (True, False):
        for i, line in enumerate(wanted):
            if i in matches or (same_name and "card" not in line):
                continue
            k = window(line, same_name)
            if k is not None:
                used[k] = True
                matches[i] = k
    said = referee_lines(truth, events, matches)
    latencies: list[float] = []
    missed, wrong, wrong_kind = [], [], []
    for i, line in enumerate(wanted):
        if i not in matches:
            missed.append(line)
            continue
        ev = events[matches[i]]
        latencies.append(ev["t"] - line["t"])
        if line["type"] in ("flip", "play"):
            if said[matches[i]].get("card") != line["card"]:
                wrong.append((line, ev))
            if said[matches[i]].get("type") != line["type"]:
                wrong_kind.append((line, said[matches[i]]))
        elif line["type"] == "reveal" and sorted(ev.get("cards", [])) != sorted(line["cards"]):
            wrong.append((line, ev))
    phantoms = [ev for k, ev in enumerate(events) if not used[k]]
    lat_ms = sorted(1000 * x for x in latencies)

    def pct(p: float) -> float:
        if not lat_ms:
            return 0.0
        return lat_ms[min(len(lat_ms) - 1, int(round(p / 100 * (len(lat_ms) - 1))))]

    cards = sum(1 for line in wanted if _KIND[line["type"]] == "card")
    return {
        "true_events": len(wanted),
        "cards_laid": cards,
        "take_backs": sum(1 for line in wanted if line["type"] == "take_back"),
        "reveals": sum(1 for line in wanted if line["type"] == "reveal"),
        "events": len(events),
        "phantom": len(phantoms),
        "missed": len(missed),
        "missed_pct": round(100 * len(missed) / max(1, len(wanted)), 2),
        "wrong_names": len(wrong),
        "wrong_kind": len(wrong_kind),
        "latency_ms": {"p50": round(pct(50)), "p95": round(pct(95)), "max": round(lat_ms[-1]) if lat_ms else 0},
        "latency_frames": {"p50": round(pct(50) * fps / 1000, 1), "p95": round(pct(95) * fps / 1000, 1),
                           "max": round((lat_ms[-1] if lat_ms else 0) * fps / 1000, 1)},
        "_phantoms": phantoms, "_missed": missed, "_wrong": wrong, "_wrong_kind": wrong_kind,
    }


def referee_lines(truth: Sequence[dict], events: Sequence[dict], matches: dict[int, int]) -> list[dict]:
    """The table-log line the referee makes of each event: a `lay` becomes a flip or a play
    named by its likeliest reading at the table (companion.referee.service.line_of_lay), the rest
    stay as they are.

    An engine is fed what the referee would get: the truth's own lines from phones and the
    host (game, deal, colours, draws, points...) in their order, and in place of each
    camera-visible truth line the event matched to it (`matches`: truth's camera-visible line
    index -> event index; nothing when it was missed), the events matched to none at their
    time. So one missed or invented card shifts the kinds the way it would at the table.
    """
    from companion.referee.engine import Table
    from companion.referee.service import line_of_lay
    from companion.vision.truth import said_after

    table = Table()
    lines: list[dict] = [{} for _ in events]
    matched = set(matches.values())
    unmatched = sorted((k for k in range(len(events)) if k not in matched), key=lambda k: events[k]["t"])
    pending = 0  # next unmatched event to feed

    def feed(k: int, player: str | None = None) -> None:
        ev = events[k]
        line = {key: value for key, value in ev.items() if key != "t"}
        if line.get("type") == "lay":
            line = line_of_lay(table, line)
        if line.get("type") == "reveal" and player and not line.get("player"):
            line["player"] = player  # the host's "this is my hand", as the demo bot does
        lines[k] = line
        table.push(line)

    visible = 0
    for line in truth:
        if line.get("type") not in _TRUTH_KINDS:
            table.push({key: value for key, value in line.items() if key not in _TIMING})
            continue
        k = matches.get(visible)
        visible += 1
        when = events[k]["t"] if k is not None else line.get("t", 0.0)
        while pending < len(unmatched) and events[unmatched[pending]]["t"] < when:
            feed(unmatched[pending])
            pending += 1
        if k is not None:
            feed(k, line.get("player"))
            for said in said_after(line):  # a wild's colour named in its play line: said after the card
                table.push(said)
    for k in unmatched[pending:]:
        feed(k)
    return lines


def run_video(path: Path, truth: list[dict], detector_kind: str, detector=None) -> tuple[list[dict], int, float, int]:
    """Watch one video as fast as possible; returns (events, frames, seconds, detector calls)."""
    from companion.vision.camera import OpenCVSource
    from companion.vision.truth import TruthDetector
    from companion.vision.watcher import Watcher
    from companion.vision.zones import Zones

    fake = TruthDetector(truth) if detector_kind == "truth" else None
    det = fake or detector
    source = OpenCVSource(str(path))
    source.open()
    watcher = None
    events: list[dict] = []
    spent = 0.0
    try:
        while (frame := source.read()) is not None:
            if watcher is None:
                h, w = frame.image.shape[:2]
                watcher = Watcher(det, Zones.default(w, h))
            if fake is not None:
                fake.t = frame.t
            start = time.perf_counter()
            events.extend(watcher.feed(frame.image, frame.t))
            spent += time.perf_counter() - start
    finally:
        source.close()
    return events, (watcher.frames if watcher else 0), spent, (watcher.detector_calls if watcher else 0)


def flip_session(plays: int, seed: int, players: int = 4) -> list:
    """Steps acting out simulated UNO Flip hands until at least `plays` cards are laid: after
    each Flip the turned pile's new top is laid as the next card (what the camera sees)."""
    from companion.referee.simulate import simulate_hands
    from companion.synth.tablevideo import plan_from_log

    lines: list[dict] = []
    for hand in simulate_hands(players, 1000, seed, rules={"deck": "flip"}):
        lines += hand
        if sum(line.get("type") in ("flip", "play") for line in lines) >= plays:
            break
    return plan_from_log(lines)


def main(args: argparse.Namespace) -> int:
    from companion.errors import UsageError
    from companion.synth.tablevideo import VideoSpec, make_video, plan_session, with_habits
    from companion.vision.truth import read_truth, truth_path

    if args.videos < 1 or args.plays < 1:
        raise UsageError("--videos and --plays must be at least 1")
    if (args.photos or args.composites) and not args.real:
        raise UsageError("--photos and --composites go with --real")
    if args.deck != "classic" and args.real:
        raise UsageError("--deck flip has no real photos to cut out: use it without --real")
    if args.keep:  # before any video is made: a folder that cannot be written is said at once
        from companion.files import writable_folder

        writable_folder(Path(args.keep), "--keep")
    args.detector = args.detector or ("yolo" if args.real or args.habits else "truth")
    if args.habits and args.detector == "truth":
        raise UsageError("--habits needs --detector yolo: the truth's boxes do not follow a card slid by hand")
    if args.habits and args.deck != "classic":
        raise UsageError("--habits goes with the classic deck")
    real = None
    if args.real:
        from companion.synth.realvideo import RealVideoMaker

        real = RealVideoMaker(photos=Path(args.photos) if args.photos else None,
                              composites=Path(args.composites) if args.composites else None, plays=args.plays,
                              habits=args.habits)
    detector = None
    if args.detector == "yolo":
        from companion.vision.detector import YoloDetector

        def camera() -> YoloDetector:  # as `run` makes it, with no colour set-up
            return YoloDetector(themed=args.deck != "classic", remember_light=True)

        detector = camera()  # here, so a missing model is said before any video is made
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-watch-"))
    folder.mkdir(parents=True, exist_ok=True)
    if real is not None:
        real.prepare(folder)  # the cut-outs, cached in the folder

    def make(path: Path, seed: int, k: int) -> list[dict]:
        if real is not None:
            return real(path, seed, k)
        design = "classic" if k % 2 == 0 else "modern"
        steps = flip_session(args.plays, seed) if args.deck == "flip" else None
        if args.habits:
            steps = with_habits(plan_session(args.plays, seed=seed), seed)
        return make_video(path, plays=args.plays, seed=seed, spec=VideoSpec(seed=seed, design=design), steps=steps)

    all_truth: list[dict] = []
    all_events: list[dict] = []
    frames, seconds, calls = 0, 0.0, 0
    offset = 0.0
    for k in range(args.videos):
        seed = args.seed + k
        kind = "real" if real else ("bench" if args.deck == "classic" else f"bench-{args.deck}")
        kind += "-habits" if args.habits else ""
        path = folder / f"{kind}-{seed}-{args.plays}.mp4"
        if args.keep and path.exists() and truth_path(path).exists():
            truth = read_truth(truth_path(path))
        else:
            truth = make(path, seed, k)
        if detector is not None and k > 0:
            detector = camera()  # another table, another light
        events, n, s, c = run_video(path, truth, args.detector, detector)
        frames, seconds, calls = frames + n, seconds + s, calls + c
        # one long timeline, so matching never crosses videos
        all_truth += [{**line, "t": line["t"] + offset, **({"t_land": line["t_land"] + offset} if "t_land" in line else {})}
                      for line in truth if "t" in line]
        all_events += [{**ev, "t": ev["t"] + offset} for ev in events]
        offset += 10_000.0
        if not args.keep:
            path.unlink(missing_ok=True)
            path.with_suffix(".jsonl").unlink(missing_ok=True)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    result = score(all_truth, all_events)
    result["frames"] = frames
    result["fps"] = round(frames / seconds, 1) if seconds else 0.0
    result["detector_calls"] = calls
    result["detector"] = args.detector
    result["deck"] = args.deck
    if real is not None:
        result["real"] = real.summary()
    details = {k: result.pop(k) for k in ("_phantoms", "_missed", "_wrong", "_wrong_kind")}
    if args.json:
        print(json.dumps(result))
    else:
        lat, latf = result["latency_ms"], result["latency_frames"]
        print(f"videos {args.videos}, cards laid {result['cards_laid']}, take-backs {result['take_backs']}, "
              f"reveals {result['reveals']}, frames {frames}, detector {args.detector}, deck {args.deck}")
        print(f"phantom {result['phantom']}, missed {result['missed']} ({result['missed_pct']}%), "
              f"wrong names {result['wrong_names']}, wrong flip/play {result['wrong_kind']}")
        print(f"latency p50 {lat['p50']} ms, p95 {lat['p95']} ms, max {lat['max']} ms "
              f"(frames p50 {latf['p50']}, p95 {latf['p95']}, max {latf['max']})")
        print(f"processing {result['fps']} fps, {calls} detector calls")
        if real is not None:
            for name, cut in result["real"]["sets"].items():
                lacking = f", none of {', '.join(cut['no_cut_out'])}" if cut["no_cut_out"] else ""
                print(f"real cut-outs {name}: {cut['usable']} of {cut['photos']} photos usable{lacking}")
        for name, items in details.items():
            for item in items[:10]:
                print(f"  {name[1:]}: {json.dumps(item)}")
    return 0
