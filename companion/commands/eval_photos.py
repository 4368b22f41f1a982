"""`uno-companion eval-photos DIR`: top-1 accuracy on a folder-per-card photo set, as the
photos are or (`--shifts`) under the fixed camera shifts of the robustness benchmark."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from companion.errors import InputFileError, UsageError

HELP = "accuracy on a folder-per-card photo set"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="*", type=Path, metavar="DIR", help="folder with one sub-folder per card name")
    parser.add_argument("--rendered", choices=("classic", "flip", "themed"), default=None,
                        help="read rendered cards of a deck laid on piles instead of photos (flip: both sides of "
                             "UNO Flip; themed: a classic deck with discard two, reflect and Dementor); the "
                             "themed reader is used for flip and themed")
    parser.add_argument("--per-card", type=int, default=4, help="with --rendered: piles per card face (default 4)")
    parser.add_argument("--themed", action="store_true", help="read with the themed reader too (a themed deck's table)")
    parser.add_argument("--model", type=Path, default=None, help="weights (default: the shipped model)")
    parser.add_argument("--limit-per-class", type=int, default=None, help="sample at most N photos per card")
    parser.add_argument("--conf", type=float, default=0.1)
    parser.add_argument("--no-colour-check", action="store_true")
    parser.add_argument("--reader", type=Path, default=None,
                        help="second-stage reader weights (default: the shipped reader, if any)")
    parser.add_argument("--no-reader", action="store_true", help="name cards by the detector alone")
    parser.add_argument("--colour-reader", type=Path, default=None, metavar="WEIGHTS",
                        help="colour reader weights (.onnx) to read with (default: the shipped one), "
                             "to measure a new one before it is installed")
    parser.add_argument("--shifts", nargs="?", const="", default=None, metavar="NAME,NAME",
                        help="robustness benchmark: read every photo as it is (none) and under each fixed "
                             "camera shift (companion/vision/photometric.py), or only the named ones; put it "
                             "after the folders")
    parser.add_argument("--calibrate", nargs="+", metavar="PHOTO", default=None,
                        help="a table's set-up: learn the four colours from these photos of cards from the "
                             "same camera (at least one of each colour), seen through each variant's shift, "
                             "and read that variant with them; the photos are left out of the count. It takes "
                             "every name after it: give it last")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", type=Path, default=None, metavar="DIR",
                        help="write contact sheets of the missed photos here (one sub-folder per set, "
                             "and per shift with --shifts)")


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def _progress(label: str, reads_per_photo: int, shifts: bool):
    """A progress callback for one set: a line rewritten in place on a terminal; for a
    benchmark run logged to a file, a line at each tenth (it takes minutes)."""
    start = time.monotonic()
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            spent = time.monotonic() - start
            eta = f", {_duration(spent / done * (total - done))} left" if shifts else ""
            print(f"\r{label}: {done}/{total} photos{eta}  ", end="", file=sys.stderr)
        elif shifts and (done * 10 // total > (done - 1) * 10 // total):
            spent = time.monotonic() - start
            print(f"{label}: {done}/{total} photos, {_duration(spent)} "
                  f"({spent / (done * reads_per_photo) * 1000:.0f} ms a read)", file=sys.stderr, flush=True)

    return progress


def main(args: argparse.Namespace) -> int:
    from companion.vision.detector import YoloDetector
    from companion.commands.recognize import check_conf, check_reader, read_pictures
    from companion.vision.calibration import CalibrationError
    from companion.synth.evaluation import (calibrate_shifts, evaluate_shifts, folder_name, format_report,
                                            format_shifts, photo_set, shift_names, shifts_to_dict, write_miss_sheets)

    # Every mistake in the call is said before the model loads.
    if args.limit_per_class is not None and args.limit_per_class < 1:
        raise UsageError("--limit-per-class must be at least 1")
    shifts = shift_names(args.shifts) if args.shifts is not None else None
    if not args.dirs and not args.rendered:
        raise UsageError("name a photo folder (DIR), or --rendered DECK")
    if args.per_card < 1:
        raise UsageError("--per-card must be at least 1")
    check_conf(args.conf)  # as recognize: --conf 5 read every photo as "no card found"
    check_reader(args)
    if args.calibrate and args.rendered:
        raise UsageError("--calibrate goes with photo folders, not --rendered")
    if args.errors is not None:  # said before the minutes of reading, and nothing made yet
        from companion.files import writable_folder

        writable_folder(args.errors, "--errors", keep=False)
    pictures = read_pictures(args.calibrate) if args.calibrate else None
    sets = [(d, photo_set(d, args.limit_per_class)) for d in args.dirs]
    if args.calibrate:  # a set-up photo read again would be counted on the answer it taught
        taught = {Path(p).resolve() for p in args.calibrate}
        sets = [(d, [(f, card) for f, card in pairs if f.resolve() not in taught]) for d, pairs in sets]
    detector = YoloDetector(args.model, conf=args.conf, colour_check=not args.no_colour_check,
                            reader=False if args.no_reader else (args.reader or True),
                            colour=args.colour_reader or True, themed=args.themed or args.rendered in ("flip", "themed"))
    out = {}
    if args.rendered:
        from companion.synth.evaluation import rendered_shifts

        label = f"rendered {args.rendered}"
        start = time.monotonic()
        reports = rendered_shifts(detector, args.rendered, args.per_card, shifts=shifts or ["none"],
                                  progress=_progress(label, len(shifts or ["none"]), shifts is not None))
        if sys.stderr.isatty():
            print(file=sys.stderr)
        print(f"{label}: read in {_duration(time.monotonic() - start)}", file=sys.stderr)
        out[label] = shifts_to_dict(reports) if shifts is not None else reports["none"].to_dict()
        if not args.json:
            print(format_shifts(reports, label) if shifts is not None else format_report(reports["none"], label),
                  flush=True)
    calibrations, refused = (calibrate_shifts(detector, pictures, shifts or ["none"]) if pictures is not None
                             else (None, {}))
    if calibrations is not None and not calibrations:  # refused under every variant: as `recognize` says it
        raise CalibrationError(next(iter(refused.values())))
    for d, pairs in sets:
        progress = _progress(d.name, len(shifts or ["none"]), shifts is not None)
        start = time.monotonic()
        reports = evaluate_shifts(pairs, detector, shifts or ["none"], progress, calibrations)
        if shifts is None:
            out[str(d)] = reports["none"].to_dict()
            text = format_report(reports["none"], str(d))
        else:
            out[str(d)] = shifts_to_dict(reports)
            text = format_shifts(reports, str(d))
        if calibrations is not None:
            out[str(d)]["calibration"] = {
                name: ("refused: " + refused[name]) if name in refused else calibrations[name].swatches()
                for name in shifts or ["none"]}
            photos = f"{len(pictures)} photo{'' if len(pictures) == 1 else 's'}"
            text += f"\ncolours calibrated from {photos}" + (" under each camera shift" if shifts else "")
            if refused:
                text += "; refused " + ", ".join(f"{'as they are' if n == 'none' else 'under ' + n} ({why})"
                                                 for n, why in refused.items()) + ": read with the colour reader alone"
        if sys.stderr.isatty():
            print(file=sys.stderr)
        if shifts is not None:
            spent = time.monotonic() - start
            print(f"{d.name}: {len(pairs)} photos x {len(shifts)} variants in {_duration(spent)} "
                  f"({spent / max(1, len(pairs) * len(shifts)) * 1000:.0f} ms a read)", file=sys.stderr)
        if not args.json:
            print(text, flush=True)
        if args.errors is not None:
            for shift, report in reports.items():
                folder = args.errors / d.name if shifts is None else args.errors / d.name / folder_name(shift)
                try:
                    sheets = write_miss_sheets(report, folder, shift=shift)
                except OSError as exc:  # the folder went away or filled up while reading
                    raise InputFileError(f"--errors {folder}: cannot write there: {exc.strerror or exc}") from None
                print(f"{len(report.misses)} misses of {d} on {len(sheets)} sheets in {folder}", file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0
