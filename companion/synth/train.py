"""The training recipe: generate synthetic scenes, train a YOLO detector from its yaml.

Offline by construction: the model is built from ultralytics' bundled yaml (no pretrained
weights exist offline), plots are off (they fetch a font), settings sync is off, and the
ultralytics config lives in the work folder.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from companion.vision.models import MODEL_STEM, MODELS_DIR, offline_ultralytics
from companion.errors import CompanionError
from companion.vision.reader import COLOUR_STEM, READER_STEM, THEMED_STEM

WEIGHTS = MODELS_DIR / f"{MODEL_STEM}.pt"
READER_WEIGHTS = MODELS_DIR / f"{READER_STEM}.pt"
COLOUR_WEIGHTS = MODELS_DIR / f"{COLOUR_STEM}.pt"
THEMED_WEIGHTS = MODELS_DIR / f"{THEMED_STEM}.pt"
COMPOSITES = Path(__file__).resolve().parents[3] / "shared" / "data" / "uno-cards-composites"
# AdamW's starting rate: every shipped model trained with it, from the yaml or continued.
LR0 = 0.002


@dataclass
class Recipe:
    """What `uno-companion train` does; the defaults are the shipped model's recipe."""

    work: Path = Path("work/train")
    images: int = 8000
    val_images: int = 400
    seed: int = 0
    model: str = "yolo11n.yaml"
    imgsz: int = 256
    epochs: int = 100
    hours: float | None = 1.15
    batch: int = 32
    device: str = "cpu"
    workers: int = 2
    install: bool = False  # copy the weights into models/ (the shipped ones), not beside the work


def _use_every_core() -> None:
    """ultralytics trains on CPU with cpu_count - 1 threads (one core on this 2-core
    machine) and loads data in the main thread; all cores train about 1.5x faster here."""
    import os

    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = os.cpu_count() or 1


def generate(recipe: Recipe) -> Path:
    from ultralytics.utils import TQDM

    from companion.synth.scenes import write_dataset

    data_dir = recipe.work / "data"

    def write() -> None:
        bar = TQDM(total=recipe.images + recipe.val_images, desc="scenes", unit="img")
        write_dataset(data_dir, recipe.images, recipe.val_images, recipe.seed, lambda done, total: bar.update(1))
        bar.close()

    _once(data_dir, f"{recipe.images}-{recipe.val_images}-{recipe.seed}", write)
    return data_dir / "data.yaml"


def _once(folder: Path, key: str, write: Callable[[], None]) -> None:
    """Write a generated data folder unless it was already written with the same key."""
    stamp = folder / f".done-{key}"
    if stamp.exists():
        return
    if folder.exists():
        shutil.rmtree(folder)
    write()
    stamp.touch()


def train(recipe: Recipe) -> Path:
    """Generate the data, train, copy the best weights to WORK/uno-cards.pt (models/ with `install`)."""
    recipe.work = Path(recipe.work).resolve()
    offline_ultralytics(recipe.work / "ultralytics-config")
    yaml_path = generate(recipe)
    return _fit(recipe, "detect", yaml_path, recipe.imgsz, "uno-cards", WEIGHTS, dict(
        # Cards are not mirror-symmetric and their hue is their colour: no flips, no hue shift.
        fliplr=0.0, flipud=0.0, hsv_h=0.0, hsv_s=0.3, hsv_v=0.3,
        degrees=0.0, mosaic=0.5, close_mosaic=3, scale=0.4, translate=0.1, cache="ram",
    ))


def _no_polars_needed() -> None:
    """ultralytics reads its results.csv back with polars only to tuck it into the saved
    weights; where polars is not installed (a bare GPU box) the weights go without it."""
    try:
        import polars  # noqa: F401
    except ImportError:
        from ultralytics.engine.trainer import BaseTrainer

        BaseTrainer.read_results_csv = lambda self: {}  # type: ignore[method-assign]


def _fit(recipe: "Recipe | ReaderRecipe | ColourRecipe", task: str, data: Path, imgsz: int, name: str, dest: Path,
         augment: dict) -> Path:
    """Build the model (a yaml from scratch, a .pt continues from its weights), train it on
    every core, copy the best weights to `dest` and export ONNX beside them."""
    from ultralytics import YOLO

    try:
        model = YOLO(recipe.model, task=task)
    except Exception as exc:  # a yaml name ultralytics does not know
        raise CompanionError(f"cannot build model {recipe.model!r}: {exc}") from exc
    start = time.time()
    # A .pt model continues from its weights (ultralytics drops them when pretrained=False).
    from_weights = not str(recipe.model).endswith((".yaml", ".yml"))
    args = dict(
        data=str(data), imgsz=imgsz, epochs=recipe.epochs, batch=recipe.batch,
        device=recipe.device, workers=recipe.workers, project=str(recipe.work / "runs"),
        name=name, exist_ok=True, plots=False, pretrained=from_weights, amp=False,
        seed=recipe.seed, deterministic=False, verbose=True, patience=1000,
        # A short from-scratch run: ultralytics' "auto" picks a tiny AdamW rate for 57
        # classes; a larger one with a one-epoch warm-up learns much faster here.
        optimizer="AdamW", lr0=getattr(recipe, "lr0", LR0), warmup_epochs=0 if from_weights else 1,
        **augment,
    )
    if recipe.hours:
        args["time"] = recipe.hours
    _use_every_core()
    _no_polars_needed()
    model.train(**args)
    best = recipe.work / "runs" / name / "weights" / "best.pt"
    if not best.exists():
        raise CompanionError(f"training produced no weights at {best}")
    # The shipped weights are replaced only when asked (`--install`): a trial run's weights
    # overwrote them, and the table then read no card.
    dest = dest if recipe.install else recipe.work / dest.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(best, dest)
    print(f"trained in {(time.time() - start) / 60:.1f} min; weights -> {dest}")
    print(f"exported -> {export_onnx(dest, imgsz)}")
    return dest


def export_onnx(weights: Path = WEIGHTS, imgsz: int | None = None) -> Path:
    """Export the weights to ONNX beside them (what `YoloDetector` loads by default)."""
    weights = Path(weights)
    if not weights.exists():
        raise CompanionError(f"no weights to export: {weights}")
    from companion.vision.training_stack import require_training

    require_training("exporting to ONNX")
    offline_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    size = imgsz or int(model.ckpt.get("train_args", {}).get("imgsz", 256))
    # The reader gets a batch axis: it reads every box's crop, corners and turns in one run
    # (measured 1.2 ms a crop batched against 2.0 ms one at a time). The finder sees one frame
    # padded square: a dynamic-shape finder (a 4:3 frame as 256x192) was a quarter faster but
    # read 30 fewer set-a photos under the 2700 K shift (models/HISTORY.md, finder export).
    dynamic = model.task == "classify"
    out = Path(model.export(format="onnx", imgsz=size, simplify=True, dynamic=dynamic, opset=17, device="cpu"))
    return out


def average_weights(sources: list[Path], dest: Path) -> Path:
    """Write to `dest` the mean of the weights in `sources`: runs of one network continued from
    one start (a weight-space ensemble, as in WiSE-FT and "model soups", Wortsman et al. 2022).
    Continued at a low rate, such runs stay in one basin, where their mean often reads like an
    ensemble of them at the cost of one. Everything but the weights is the first source's."""
    if len(sources) < 2:
        raise CompanionError("--average needs two or more weights files to average")
    for path in sources:
        if not Path(path).is_file():
            raise CompanionError(f"no weights file at {path}")
    from companion.vision.training_stack import require_training

    require_training("averaging weights")
    offline_ultralytics()
    import copy

    import torch

    checkpoints = []
    for path in sources:
        try:
            checkpoints.append(torch.load(path, map_location="cpu", weights_only=False))
        except Exception as e:  # a file that is not a checkpoint at all
            raise CompanionError(f"{path} is not an ultralytics weights file ({type(e).__name__})") from None
        if not hasattr(checkpoints[-1].get("model") if isinstance(checkpoints[-1], dict) else None, "state_dict"):
            raise CompanionError(f"{path} is not an ultralytics weights file (no model in it)")
    states = [c["model"].float().state_dict() for c in checkpoints]
    first = states[0]
    for path, state in zip(sources[1:], states[1:]):
        if state.keys() != first.keys() or any(state[k].shape != first[k].shape for k in first):
            raise CompanionError(f"{path} is not the same network as {sources[0]}: only runs continued "
                                 "from one model can be averaged")
    # counters (BatchNorm's batches seen) are not weights: the first source's are kept
    mean = {k: (sum(s[k] for s in states) / len(states)) if v.is_floating_point() else v for k, v in first.items()}
    out = copy.deepcopy(checkpoints[0])
    out["model"].load_state_dict(mean)
    out["model"] = out["model"].half()  # stored as ultralytics stores its best.pt
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    torch.save(out, dest)
    return Path(dest)


@dataclass
class ReaderRecipe:
    """What `uno-companion train --reader` does: the second stage, which names the symbol
    of the card in a crop (colour comes from the pixels). Its crops are cut from the first
    stage's synthetic scenes (generated if missing) and from the licensed composites."""

    work: Path = Path("work/train")
    images: int = 8000
    val_images: int = 400
    seed: int = 0
    composites: Path | None = COMPOSITES
    model: str = "yolo11n-cls.yaml"
    epochs: int = 40
    hours: float | None = 1.25
    batch: int = 64
    device: str = "cpu"
    workers: int = 2
    # The share of scenes cut under a random camera and light (cardcrops.lit_scene). 0 as
    # every shipped reader was trained: stage 14 tried 0.5 (stage 13 misread symbols under a
    # 2700 K bulb and crushed shadows) and read the shifted benchmark no better (HISTORY.md).
    light: float = 0.0
    # The share of scenes that also give a card lying face down as "none" (cardcrops.
    # face_down_crop). 0 as the readers up to stage 13 were trained.
    backs: float = 0.0
    # Processes drawing the scenes in memory (`cardcrops.write_reader_dataset`, a machine with
    # many cores). 0 as every shipped reader up to stage 15: the finder's scene folder is
    # written first and cut (stages could share it with a finder run).
    jobs: int = 0
    # The starting learning rate. A stage continued from shipped weights at LR0 drifts
    # from what they read (stages 17 and 19, HISTORY.md); a lower one keeps more of them.
    lr0: float = LR0
    install: bool = False  # copy the weights into models/ (the shipped ones), not beside the work


def generate_reader(recipe: ReaderRecipe) -> Path:
    from ultralytics.utils import TQDM

    from companion.synth.cardcrops import write_crop_dataset, write_reader_dataset

    out = recipe.work / "reader-data"
    composites = recipe.composites if recipe.composites and recipe.composites.is_dir() else None
    if recipe.jobs:
        def draw() -> None:
            if recipe.composites and composites is None:
                print(f"note: no composites at {recipe.composites}; training on synthetic crops only")
            _counted("crops", lambda progress: write_reader_dataset(
                out, recipe.images + recipe.val_images, recipe.seed, composites, jobs=recipe.jobs,
                progress=progress, light=recipe.light, backs=recipe.backs))

        _once(out, f"mem{recipe.images + recipe.val_images}-{recipe.seed}-{int(composites is not None)}"
                   f"-light{recipe.light}-backs{recipe.backs}", draw)
        return out
    scenes = generate(Recipe(work=recipe.work, images=recipe.images, val_images=recipe.val_images, seed=recipe.seed))

    def write() -> None:
        if recipe.composites and composites is None:
            print(f"note: no composites at {recipe.composites}; training on synthetic crops only")
        bar = TQDM(desc="crops", unit="img")
        write_crop_dataset(out, scenes.parent, composites, recipe.seed, progress=lambda n: bar.update(1),
                           light=recipe.light, backs=recipe.backs)
        bar.close()

    _once(out, f"{recipe.images}-{recipe.val_images}-{recipe.seed}-{int(recipe.composites is not None)}"
               f"{f'-light{recipe.light}' if recipe.light else ''}{f'-backs{recipe.backs}' if recipe.backs else ''}",
          write)
    return out


def _train_classifier(recipe: Any, make_data: Callable[[Any], Path], size: int, name: str, dest: Path,
                      augment: dict) -> Path:
    """Offline, write the recipe's data (once), train the classifier and export it."""
    recipe.work = Path(recipe.work).resolve()
    offline_ultralytics(recipe.work / "ultralytics-config")
    return _fit(recipe, "classify", make_data(recipe), size, name, dest, augment)


def train_reader(recipe: ReaderRecipe) -> Path:
    """Cut the crops, train the reader, copy its best weights to models/ and export ONNX."""
    from companion.vision.crops import READER_SIZE

    return _train_classifier(recipe, generate_reader, READER_SIZE, "uno-reader", READER_WEIGHTS, dict(
        # No flips (a mirrored 2 is no card); crops are already the card, so only mild
        # re-cropping; RandAugment brings rotation, shear and photometric changes.
        fliplr=0.0, flipud=0.0, scale=0.15, erasing=0.25, auto_augment="randaugment",
    ))


@dataclass
class ColourRecipe:
    """What `uno-companion train --colour` does: the colour reader, which names a found
    card's colour from its crop. Its crops are cut from freshly generated scenes, each under
    a random camera and light (colourcrops.py); `images` is the number of scenes."""

    work: Path = Path("work/colour")
    images: int = 24000
    seed: int = 0
    model: str = "yolo11n-cls.yaml"
    epochs: int = 30
    hours: float | None = None
    batch: int = 256
    device: str = "cpu"
    workers: int = 2
    jobs: int = 2  # processes drawing the scenes
    # The share of scenes whose green ink is printed bluer, and by how many degrees at most
    # (colourcrops.TEAL_SHARE, TEAL_MAX: stage 3's recipe).
    teal_share: float = 0.3
    teal_max: float = 24.0
    install: bool = False  # copy the weights into models/ (the shipped ones), not beside the work


def _generate_crops(recipe: "ColourRecipe | ThemedRecipe", folder: str, what: str, write_dataset: Callable[..., Path],
                    **options: Any) -> Path:
    """Write a recipe's crops into work/`folder` once (a progress bar counting them)."""
    out = recipe.work / folder

    def write() -> None:
        _counted(what, lambda progress: write_dataset(out, recipe.images, recipe.seed, jobs=recipe.jobs,
                                                      progress=progress, **options))

    # a recipe option that changes the crops draws them afresh
    _once(out, "-".join([str(recipe.images), str(recipe.seed), *(f"{k}={v:g}" for k, v in sorted(options.items()))]),
          write)
    return out


def _counted(what: str, write: Callable[[Callable[[int], None]], object]) -> None:
    """Run `write(progress)` under a progress bar; `progress(n)`: n written so far."""
    from ultralytics.utils import TQDM

    bar = TQDM(desc=what, unit="img")
    last = [0]

    def progress(n: int) -> None:
        bar.update(n - last[0])
        last[0] = n

    write(progress)
    bar.close()


def generate_colour(recipe: ColourRecipe) -> Path:
    from companion.synth.colourcrops import write_colour_dataset

    return _generate_crops(recipe, "colour-data", "colour crops", write_colour_dataset,
                           teal_share=recipe.teal_share, teal_max=recipe.teal_max)


def train_colour(recipe: ColourRecipe) -> Path:
    """Draw the crops, train the colour reader, copy its best weights to models/ and export ONNX."""
    from companion.vision.crops import COLOUR_SIZE

    return _train_classifier(recipe, generate_colour, COLOUR_SIZE, "uno-colour", COLOUR_WEIGHTS, dict(
        # A colour is the same mirrored or turned. No colour jitter or RandAugment here: the
        # crops already went through random cameras, and a random hue turn would change the
        # very thing the labels name.
        fliplr=0.5, flipud=0.5, scale=0.3, erasing=0.2, auto_augment=None, hsv_h=0.0, hsv_s=0.0, hsv_v=0.0,
    ))


@dataclass
class ThemedRecipe:
    """What `uno-companion train --themed` does: the themed reader, which names a found card
    of a themed deck (UNO Flip's faces, discard two, reflect, Dementor) by its whole name, or
    says it is a classic face or no card. Its crops are cut from freshly generated piles under
    a random camera and light (themedcrops.py); `images` is the number of piles. It starts
    from the shipped card reader's weights (which already know cards' shapes and glyphs)."""

    work: Path = Path("work/themed")
    images: int = 16000
    seed: int = 0
    model: str = str(READER_WEIGHTS)
    epochs: int = 30
    hours: float | None = 0.6
    batch: int = 128
    device: str = "cpu"
    workers: int = 2
    jobs: int = 2  # processes drawing the piles
    install: bool = False  # copy the weights into models/ (the shipped ones), not beside the work


def generate_themed(recipe: ThemedRecipe) -> Path:
    from companion.synth.themedcrops import write_themed_dataset

    return _generate_crops(recipe, "themed-data", "themed crops", write_themed_dataset)


def train_themed(recipe: ThemedRecipe) -> Path:
    """Draw the crops, train the themed reader, copy its best weights to models/ and export ONNX."""
    from companion.vision.crops import READER_SIZE

    return _train_classifier(recipe, generate_themed, READER_SIZE, "uno-themed", THEMED_WEIGHTS, dict(
        # No flips (a mirrored 2 is no card) and no hue, saturation or RandAugment changes: a
        # themed card's colour is part of its name (teal or blue, pink or red), and the crops
        # already went through random cameras.
        fliplr=0.0, flipud=0.0, scale=0.15, erasing=0.2, auto_augment=None, hsv_h=0.0, hsv_s=0.0, hsv_v=0.0,
    ))
