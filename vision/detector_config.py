"""How a TileDetector is built: where its models are, and its options (``DetectorConfig``).

    from mjtable.vision.detector import TileDetector
    from mjtable.vision.detector_config import DetectorConfig, models_in
    det = TileDetector(DetectorConfig(threads=4, regions=True))
    new = TileDetector(DetectorConfig(**models_in("new_models")))     # new models in the committed ones' place

The config is frozen: a detector's models and options are decided when it is built (``dataclasses.replace`` makes
a variant to build another). vision.detector re-exports these names.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from .yolo_decode import BOX_VOTE


def models_folder() -> Path:
    """Where the detector's models are: $MJTABLE_MODELS when set, else the package's own (mjtable.models: the
    repository's models/ folder in a development install, the wheel's int8 models in an installed one)."""
    env = os.environ.get("MJTABLE_MODELS")
    if env:
        return Path(env)
    from importlib.resources import files
    return Path(str(files("mjtable.models")))


MODELS = models_folder()
LOCATOR = MODELS / "tile_locator.onnx"
CLASSIFIER = MODELS / "tile_classifier.onnx"
OVERHEAD_LOCATOR = MODELS / "tile_locator_overhead.onnx"
OVERHEAD_CLASSIFIER = MODELS / "tile_classifier_overhead.onnx"
OVERHEAD_WIDE = MODELS / "tile_classifier_overhead_wide.onnx"
SEAT_LOCATOR = MODELS / "tile_locator_seat.onnx"
SEAT_CLASSIFIER = MODELS / "tile_classifier_seat.onnx"
ROUTER = MODELS / "view_router.onnx"
REFINER = MODELS / "tile_refiner.onnx"
GENERAL_PX = 24.0         # on a whole table, faces this large (shorter side, px) are read by the general classifier
                          # too (DetectorConfig.general_px; docs/benchmarks.md, Real-looking whole tables)
FACE_BACK_P = 0.1         # an overhead frame's box the locator calls face down is read as a face when the classifier
                          # gives a back less than this (DetectorConfig.face_back_p; docs/benchmarks.md, Real-looking
                          # whole tables)
LOOKS = ((0.08, 0, 0), (-0.05, 0, 0), (0, 0.06, 0), (0, 0, 0.06))   # more looks at each tile of a frame of
                          # LOOK_VIEWS: its box grown by a share of its size on each side (shrunk if less than 0), moved
                          # right, moved down by a share of its width / height (see TileDetector.more_looks)

MODEL_ARGS = {"locator": LOCATOR, "classifier": CLASSIFIER, "overhead_locator": OVERHEAD_LOCATOR,
              "overhead_classifier": OVERHEAD_CLASSIFIER, "overhead_wide": OVERHEAD_WIDE, "seat_locator": SEAT_LOCATOR,
              "seat_classifier": SEAT_CLASSIFIER, "router": ROUTER, "refiner": REFINER}


@dataclass(frozen=True)
class DetectorConfig:
    """A TileDetector's models and options; every field's default is the committed runtime's.

    The models (a file that is not there is not used, except the locator's: ModelError; None: never used):

    * ``locator``: the tile locator (YOLO, face-up / face-down boxes), the one model every frame needs.
    * ``classifier``: the crop classifier (kind and orientation of each face-up box); None: a one-stage locator's
      classes are the kinds.
    * ``overhead_locator``: used instead of the locator on frames of a whole table.
    * ``overhead_classifier``: classifies the overhead locator's boxes (else the classifier does).
    * ``overhead_wide``: a second, wider overhead classifier, taught real tile faces on whole tables as well as the
      rendered ones; where it is there, its kind and orientation probabilities are averaged with the overhead
      classifier's (that one reads the drawn art of small frames best, this one real faces).
    * ``seat_locator``, ``seat_classifier``: read a whole table photographed from a seat (see ``seat_view``);
      loaded when such a table is first read; without them the overhead models read it.
    * ``router``: the view router (scripts/train_router.py), used when there is an overhead locator (without it
      the general locator's boxes decide, one more locator pass on each whole table).
    * ``refiner``: the box refiner, run on the located boxes (without it: boxes as located).

    The options:

    * ``int8``: use the int8 model beside each float model when there is one (scripts/quantize_models.py; an
      installed wheel carries only those).
    * ``threads``: onnxruntime's threads for each model (the router runs on one).
    * ``conf``, ``iou``: the locator's score threshold and non-maximum suppression IoU.
    * ``vote``: box voting in the non-maximum suppression (yolo_decode.vote_boxes; None: off).
    * ``odd_back``: backs whose colour is not the set's are made unsure (detector.odd_backs).
    * ``slice_px``: read a frame larger than this in overlapping windows of this size (vision.slicing; None: one
      pass, except as ``seat_view`` says).
    * ``seat_view``: a whole table whose sure boxes show a perspective (vision.perspective: the nearest tiles 1.35
      times the size of the farthest or more) is read again by the seat models, in slices of the locator's input
      at full resolution where the frame is larger.
    * ``far_table``: where the general locator finds no sure tile or only small ones, the overhead locator looks
      for a whole table too (TileDetector.locate_for).
    * ``looks``: on a photo of a hand or a table shot from a seat (detector.LOOK_VIEWS) each face-up tile is read
      again on these boxes around it and on its refined box, and the probabilities averaged (None: one look).
    * ``regions``: True: a whole table (detector.REGION_VIEWS) is read region by region, its rows of face-up tiles
      rectified into strips and read there by the general locator and classifier (vision.regions); "crops":
      every face-up tile read by the general classifier where it lies, no strips; False: by the view's models.
    * ``level``: a photo of a hand whose tiles' edges agree on a direction 10-45 degrees off the image's axes
      (vision.level.tilt) is read turned level, in the box around the tiles found before the turn
      (level.around_tiles), its boxes mapped back; False: as it is.
    * ``turned_looks``: every other one of the more looks (``looks``) shows the classifier the tile turned 180
      degrees: a tile whose reading depends on which way up it is seen loses probability, and is named doubtful
      (scripts/bench_phone.py); False: every look as the tile lies.
    * ``squashed``: a photo of a hand whose face-up boxes are mostly wider than tall (median width over height
      above detector.SQUASHED_ASPECT) may be squeezed in height, each upright tile then wider than tall and read
      turned a quarter: when the first look at its boxes in the photo stretched back (their median box to an
      upright tile's shape) is surer on average than as it is, the photo is found and read again stretched back,
      its boxes mapped back (TileDetector.squeezed; a photo of tiles lying sideways reads surer as it is);
      False: as it is.
    * ``general_px``: on a whole table (overhead or seat view), face-up boxes whose shorter side measures at least
      this many px are read by the general classifier too (in as many looks as the view's), and its kind
      probabilities averaged with the view's classifier's: the one knows real tile sets close up, the other
      small and foreshortened tiles; None: by the view's classifier alone.
    * ``face_back_p``: on a whole table seen from above (detector.BACK_READ_VIEWS), the boxes the locator calls
      face down are read by the classifier too, in one look, and one it gives a back less than this probability is
      read as a face-up tile (faces in warm or dim light were called backs surely); None: the locator's face-down
      boxes are backs, unread.
    """
    locator: Path = LOCATOR
    classifier: Optional[Path] = CLASSIFIER
    overhead_locator: Optional[Path] = OVERHEAD_LOCATOR
    overhead_classifier: Optional[Path] = OVERHEAD_CLASSIFIER
    overhead_wide: Optional[Path] = OVERHEAD_WIDE
    seat_locator: Optional[Path] = SEAT_LOCATOR
    seat_classifier: Optional[Path] = SEAT_CLASSIFIER
    router: Optional[Path] = ROUTER
    refiner: Optional[Path] = REFINER
    int8: bool = True
    threads: int = 2
    conf: float = 0.25
    iou: float = 0.5
    vote: Optional[float] = BOX_VOTE
    odd_back: bool = True
    slice_px: Optional[int] = None
    seat_view: bool = True
    far_table: bool = True
    looks: Optional[tuple[tuple[float, float, float], ...]] = LOOKS
    regions: Union[bool, str] = False
    level: bool = True
    general_px: Optional[float] = GENERAL_PX
    turned_looks: bool = True
    squashed: bool = True
    face_back_p: Optional[float] = FACE_BACK_P


def models_in(folder: Optional[Path]) -> dict:
    """DetectorConfig fields for the models a folder holds under the committed models' file names (to measure new
    models in their place); {} for None."""
    if folder is None:
        return {}
    return {arg: Path(folder) / p.name for arg, p in MODEL_ARGS.items() if (Path(folder) / p.name).exists()}


def int8_path(model: Path) -> Path:
    """Where the int8 version of a float model lives (scripts/quantize_models.py writes it)."""
    model = Path(model)
    return model.with_name(model.stem + "_int8" + model.suffix)


def model_file(path: Optional[Path], int8: bool) -> Optional[Path]:
    """A model's file: its int8 file when asked and there (an installed wheel carries only those), else the float
    file when there; None without either."""
    if path is None:
        return None
    if int8 and int8_path(path).exists():
        return int8_path(path)
    return Path(path) if Path(path).exists() else None
