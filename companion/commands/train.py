"""`uno-companion train`: generate synthetic scenes and train the card model from its yaml."""
from __future__ import annotations

import argparse
from pathlib import Path

HELP = "generate training data and train the card model"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from companion.synth.train import Recipe

    d = Recipe()
    parser.add_argument("--work", type=Path, default=d.work, help="folder for data and runs (default %(default)s)")
    parser.add_argument("--images", type=int, default=d.images, help="training scenes (default %(default)s)")
    parser.add_argument("--val-images", type=int, default=d.val_images, help="validation scenes (default %(default)s)")
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--model", default=d.model, help="ultralytics model yaml to start from (default %(default)s), or a .pt whose weights training continues")
    parser.add_argument("--imgsz", type=int, default=d.imgsz)
    parser.add_argument("--epochs", type=int, default=d.epochs)
    parser.add_argument("--time", type=float, default=d.hours, dest="hours",
                        help="stop after this many hours (overrides --epochs; 0 = use epochs)")
    parser.add_argument("--batch", type=int, default=d.batch)
    parser.add_argument("--device", default=d.device, help="cpu, or a GPU index such as 0")
    parser.add_argument("--workers", type=int, default=d.workers)
    parser.add_argument("--reader", action="store_true",
                        help="train the second stage (names the card in a detector's crop) instead of the detector; "
                             "--model, --epochs, --time and --batch then default to the reader's recipe")
    parser.add_argument("--colour", action="store_true",
                        help="train the colour reader (names a found card's colour under any camera and light); "
                             "--images is then the number of scenes its crops are cut from, and --model, --epochs, "
                             "--time and --batch default to its recipe")
    parser.add_argument("--themed", action="store_true",
                        help="train the themed reader (UNO Flip's faces and the other themed cards, by whole name); "
                             "--images is then the number of piles its crops are cut from, and --model, --epochs, "
                             "--time and --batch default to its recipe")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes drawing the scenes of the colour, themed or card reader (the card reader's "
                             "then drawn in memory, not written out as the finder's scene folder first)")
    parser.add_argument("--light", type=float, default=None,
                        help="reader only: the share of scenes cut under a random camera and light "
                             "(default 0, as the shipped reader was trained)")
    parser.add_argument("--backs", type=float, default=None,
                        help="reader only: the share of scenes that also give a card lying face down, "
                             "as no card (default 0)")
    parser.add_argument("--lr0", type=float, default=None,
                        help="reader only: the starting learning rate (default 0.002, as every shipped model)")
    parser.add_argument("--teal-share", type=float, default=None,
                        help="colour only: the share of scenes whose green ink is printed bluer (default 0.3)")
    parser.add_argument("--teal-max", type=float, default=None,
                        help="colour only: the most degrees such a green is pulled towards teal (default 24)")
    parser.add_argument("--composites", type=Path, default=None,
                        help="licensed real composites for the reader (default ../shared/data/uno-cards-composites), "
                             "or the crops --cut-composites wrote")
    parser.add_argument("--install", action="store_true",
                        help="copy the trained weights (and their .onnx) into models/, replacing the shipped "
                             "ones the companion reads; without it they stay in --work")
    parser.add_argument("--average", type=Path, nargs="+", default=None, metavar="WEIGHTS",
                        help="train nothing: write the mean of these weights files (runs continued from one "
                             "model) as the model's weights (with --reader, --colour or --themed: that model's), "
                             "and export it to ONNX")
    parser.add_argument("--wild-odds", action="store_true",
                        help="train no network: fit how sure the colour reader is of one colour against whether a "
                             "box holds a wild, on --images synthetic scenes read by the shipped detector, and "
                             "print the constants for companion/vision/colour.py (WILD_ODDS, WILD_SHARE)")
    parser.add_argument("--cut-composites", type=Path, default=None, metavar="OUT",
                        help="write the composites' reader crops (drawn with --seed) to OUT and stop: the reader can "
                             "then train on a machine the composites are not on (--composites OUT)")


def main(args: argparse.Namespace) -> int:
    from companion.errors import InputFileError, UsageError
    from companion.synth.train import Recipe, train

    d = Recipe()

    for key in ("images", "val_images", "imgsz", "epochs", "batch"):
        if getattr(args, key) < 1:
            raise UsageError(f"--{key.replace('_', '-')} must be at least 1")
    if sum((args.reader, args.colour, args.themed)) > 1:
        raise UsageError("--reader, --colour and --themed train different models: choose one")
    if args.backs is not None and not (args.reader and 0.0 <= args.backs <= 1.0):
        raise UsageError("--backs is a share from 0 to 1 of the reader's scenes (use it with --reader)")
    if args.light is not None and not (args.reader and 0.0 <= args.light <= 1.0):
        raise UsageError("--light is a share from 0 to 1 of the reader's scenes (use it with --reader)")
    if args.lr0 is not None and not (args.reader and 0.0 < args.lr0 < 1.0):
        raise UsageError("--lr0 is a learning rate between 0 and 1 for the reader (use it with --reader)")
    if args.teal_share is not None and not (args.colour and 0.0 <= args.teal_share <= 1.0):
        raise UsageError("--teal-share is a share from 0 to 1 of the colour reader's scenes (use it with --colour)")
    if args.teal_max is not None and not (args.colour and 0.0 <= args.teal_max <= 60.0):
        raise UsageError("--teal-max is degrees from 0 to 60 (use it with --colour)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if not 0 <= args.hours < float("inf"):  # -1 started generating; NaN and inf are no time either
        raise UsageError(f"--time is hours to train, more than 0 (or 0 to count --epochs), not {args.hours:g}")
    if args.workers < 0:
        raise UsageError(f"--workers must be 0 or more, not {args.workers}")
    if args.composites is not None and args.cut_composites is None:
        if not args.reader:  # only the card reader trains on them
            raise UsageError("--composites goes with --reader (or --cut-composites)")
        if not args.composites.is_dir():
            # a folder the user named: an error, not the quiet fallback to synthetic crops alone
            # that is kept for the default folder (the composites are licensed, not everywhere)
            raise InputFileError(f"--composites {args.composites}: no such folder (the composites, or the "
                                 "crops --cut-composites wrote)")
    if args.wild_odds:
        if args.reader or args.colour or args.themed:
            raise UsageError("--wild-odds trains no network: leave out --reader, --colour and --themed")
        from companion.synth.wildodds import fit_wild_odds, wild_boxes

        tops, is_wild = wild_boxes(args.images, args.seed)
        try:
            a, b, share = fit_wild_odds(tops, is_wild)
        except ValueError as error:  # a handful of scenes can hold no wild the detector found
            raise UsageError(f"--wild-odds: {error}; {len(tops)} boxes on {args.images} scenes: give more --images")
        print(f"{len(tops)} boxes on {args.images} scenes (seed {args.seed}), {int(is_wild.sum())} of them wilds")
        print(f"WILD_ODDS = ({a:.3f}, {b:.3f})\nWILD_SHARE = {share:.3f}")
        return 0
    if args.cut_composites is not None:
        from companion.synth.cardcrops import cut_composites
        from companion.synth.train import COMPOSITES

        source = args.composites or COMPOSITES
        if not (source / "images").is_dir():
            raise UsageError(f"no composites at {source} (a folder with images/ and labels/)")
        print(f"{cut_composites(source, args.cut_composites, args.seed)} composite crops -> {args.cut_composites}")
        return 0
    if args.average is not None:
        from companion.synth import train as recipes

        dest = (recipes.READER_WEIGHTS if args.reader else recipes.COLOUR_WEIGHTS if args.colour
                else recipes.THEMED_WEIGHTS if args.themed else recipes.WEIGHTS)
        if not args.install:
            dest = args.work / dest.name
            dest.parent.mkdir(parents=True, exist_ok=True)
        recipes.average_weights(args.average, dest)
        print(f"the mean of {len(args.average)} weights -> {dest}")
        print(f"exported -> {recipes.export_onnx(dest)}")
        return 0
    from companion.vision.training_stack import require_training

    require_training("training")  # after the checks above: a bad flag is said first
    given = {k: getattr(args, k) for k in ("model", "epochs", "hours", "batch", "images") if getattr(args, k) != getattr(d, k)}
    if args.colour:
        from companion.synth.train import ColourRecipe, train_colour

        c = ColourRecipe()
        colour = ColourRecipe(install=args.install, work=args.work if args.work != d.work else c.work,
                              images=given.get("images", c.images), seed=args.seed, device=args.device,
                              workers=args.workers, jobs=args.jobs or c.jobs, model=given.get("model", c.model),
                              epochs=given.get("epochs", c.epochs), hours=given.get("hours", c.hours) or None, batch=given.get("batch", c.batch),
                              teal_share=c.teal_share if args.teal_share is None else args.teal_share,
                              teal_max=c.teal_max if args.teal_max is None else args.teal_max)
        train_colour(colour)
        return 0
    if args.themed:
        from companion.synth.train import ThemedRecipe, train_themed

        m = ThemedRecipe()
        themed = ThemedRecipe(install=args.install, work=args.work if args.work != d.work else m.work,
                              images=given.get("images", m.images), seed=args.seed, device=args.device,
                              workers=args.workers, jobs=args.jobs or m.jobs, model=given.get("model", m.model),
                              epochs=given.get("epochs", m.epochs), hours=given.get("hours", m.hours) or None,
                              batch=given.get("batch", m.batch))
        train_themed(themed)
        return 0
    if args.reader:
        from companion.synth.train import ReaderRecipe, train_reader

        r = ReaderRecipe()
        reader = ReaderRecipe(install=args.install, work=args.work, images=args.images, val_images=args.val_images, seed=args.seed,
                              composites=args.composites or r.composites, device=args.device, workers=args.workers,
                              model=given.get("model", r.model), epochs=given.get("epochs", r.epochs),
                              hours=given.get("hours", r.hours) or None, batch=given.get("batch", r.batch),
                              light=r.light if args.light is None else args.light,
                              backs=r.backs if args.backs is None else args.backs, jobs=args.jobs or r.jobs,
                              lr0=r.lr0 if args.lr0 is None else args.lr0)
        train_reader(reader)
        return 0
    recipe = Recipe(install=args.install, work=args.work, images=args.images, val_images=args.val_images, seed=args.seed,
                    model=args.model, imgsz=args.imgsz, epochs=args.epochs,
                    hours=args.hours or None, batch=args.batch, device=args.device, workers=args.workers)
    train(recipe)
    return 0
