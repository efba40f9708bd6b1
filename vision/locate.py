"""The first stage of the pipeline: frame -> detections -> layout.

    img = load_image("photo.jpg")                       # BGR uint8 array (InputError if unreadable)
    det = load_detector()                               # the committed models (or FileDetector("dets.json"))
    view = locate(img, det, kind="auto")                # View: detections, the kind decided, the Layout

The detector decides the frame's view once (its result, types.Detections, carries it: vision.views); locate reads
it from there and lays the tiles out as that view.

Both the one-frame pipeline (mjtable.pipeline) and video (mjtable.vision.video) read a frame this way; what
follows (the hand, its score, the audit's findings) is the pipeline's.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from mjtable.errors import InputError, ModelError, UnreadableError, shown
from mjtable.scoring import tiles as T

from .types import Detection, Detections
from .views import KINDS, UnknownKind, check_kind, decided  # noqa: F401  (KINDS, UnknownKind: the pipeline's too)

NO_TILES_ADVICE = "photograph the tiles from above, in focus and in even light, filling most of the frame"


def load_image(source) -> np.ndarray:
    """A BGR uint8 image from a path, the bytes of an image file, or an array already decoded. A photo resized
    without keeping its aspect ratio (content stretched over 4.5 times one way, ``images.unstretch``) comes back
    with its aspect restored, so that the layout sees tiles of their true shape."""
    return load_frame(source)[0]


def load_frame(source) -> tuple[np.ndarray, float]:
    """(load_image's image, how many times one way the photo had been stretched: 1.0 when it is read as taken;
    pass it to the pipeline's read_image, whose trust doubts such a copy)."""
    from .images import decode_image, unstretch
    from .images import load_image as load_file
    if isinstance(source, np.ndarray):
        if source.ndim != 3 or source.shape[2] != 3 or source.dtype != np.uint8 or min(source.shape[:2]) < 1:
            raise InputError(f"not an image: want a BGR uint8 array of shape (h, w, 3), got {source.dtype} "
                             f"{source.shape}")
        img = source
    elif isinstance(source, (bytes, bytearray, memoryview)):
        img = decode_image(np.frombuffer(bytes(source), np.uint8), "the uploaded data")
    elif isinstance(source, (str, os.PathLike)):
        img = load_file(source)
    else:
        raise InputError(f"not an image: want a file path, the bytes of an image file or a BGR uint8 array, got "
                         f"{type(source).__name__}")
    img, sx, sy = unstretch(img)
    return img, 1 / min(sx, sy)


MAX_COORD = 100_000.0        # pixels; a box beyond this is not on any camera's frame
MAX_BOXES = 5_000            # detections in one file (a frame holds a few hundred tiles at most)
MAX_DEPTH = 32               # nesting of a detections file's JSON (the format itself nests 4 deep)
MAX_DETECTIONS_BYTES = 16 << 20


def _json_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (counted before parsing it: a parser recursing
    100,000 levels deep runs out of stack)."""
    import re
    # strings out first (their brackets do not nest): escapes out (a backslash pair, then an escaped quote, as
    # JSON reads them left to right), then from quote to quote; a character class, not a repeated group, so that
    # a long string costs no backtracking record per character
    plain = text.replace("\\\\", "").replace('\\"', "")
    brackets = re.sub(r'[^\[\]{}]', "", re.sub(r'"[^"]*"', "", plain)).encode()
    if not brackets:
        return 0
    b = np.frombuffer(brackets, np.uint8)
    return int(np.cumsum(np.where((b == ord("[")) | (b == ord("{")), 1, -1)).max())


def _detection_schema():
    """The pydantic schema of a detections file's items (built on first use: pydantic loads in ~0.1 s)."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

    from .types import ORIENTATIONS

    class Candidate(BaseModel):          # one of the classifier's likeliest kinds: [kind, probability]
        model_config = ConfigDict(strict=True, allow_inf_nan=False)
        kind: int = Field(ge=0, le=T.BACK)
        p: float = Field(ge=0.0, le=1.0)

        @model_validator(mode="before")
        @classmethod
        def _pair(cls, v):
            return {"kind": v[0], "p": v[1]} if isinstance(v, (list, tuple)) and len(v) == 2 else v

    class DetectionItem(BaseModel):
        model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)
        box: list[float] = Field(min_length=4, max_length=4)
        kind: int = Field(ge=0, le=T.BACK)
        orientation: Literal[ORIENTATIONS] = "upright"
        confidence: float = Field(1.0, ge=0.0, le=1.0)
        candidates: list[Candidate] = Field(default_factory=list, max_length=T.N_CLASSES)
        flower: list[Candidate] = Field(default_factory=list, max_length=8)

        @model_validator(mode="after")
        def _sane_box(self):
            if any(not T.is_flower(c.kind) for c in self.flower):
                raise ValueError("flower lists the flowers' and seasons' kinds (34..41) only")
            x1, y1, x2, y2 = self.box
            if max(abs(v) for v in self.box) > MAX_COORD:
                raise ValueError(f"box {tuple(self.box)} lies beyond {MAX_COORD:.0f} px")
            if not (x2 > x1 and y2 > y1):
                raise ValueError(f"box {tuple(self.box)} is empty or inverted (want x1 < x2 and y1 < y2)")
            return self

    return TypeAdapter(list[DetectionItem])


class FileDetector:
    """Detections read from JSON (another detector's output, or a scene's ground truth): a list of
    {box: [x1, y1, x2, y2], kind: 0..42, orientation, confidence, candidates: [[kind, p], ...] (optional: the
    classifier's likeliest kinds, best first), flower: [[kind, p], ...] (optional: the flowers' and seasons'
    probabilities, Detection.flower)}, or an object whose "objects" is that list.
    Validated against a schema; InputError (exit 3) names the first bad field."""

    def __init__(self, path: str):
        from pydantic import ValidationError

        from mjtable.scoring.jsonio import JsonInputError, loads

        from .labels import read_text_file
        name = shown(path)
        text = read_text_file(path, MAX_DETECTIONS_BYTES, InputError, "detections")
        depth = _json_depth(text)
        if depth > MAX_DEPTH:
            raise InputError(f"detections {name}: JSON nested {depth} deep (at most {MAX_DEPTH})")
        try:
            data = loads(text)
        except JsonInputError as e:
            raise InputError(f"cannot read detections {name}: {e}") from None
        items = data.get("objects") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise InputError(f"detections {name}: want a JSON list (or an object with \"objects\")")
        if len(items) > MAX_BOXES:               # before validation: the layout's cost grows with the boxes
            raise InputError(f"detections {name}: {len(items)} boxes (at most {MAX_BOXES})")
        try:
            valid = _detection_schema().validate_python(items)
        except ValidationError as e:
            err = e.errors()[0]
            loc = err["loc"]
            where = f"item {loc[0]}: " + ".".join(str(x) for x in loc[1:]) if loc else "the list"
            msg = err["msg"].removeprefix("Value error, ")
            raise InputError(f"detections {name}: {where.rstrip(': ')}: {msg}") from None
        self.dets = [Detection(tuple(o.box), o.kind, o.orientation, o.confidence,
                               tuple((c.kind, c.p) for c in o.candidates),
                               flower=tuple((c.kind, c.p) for c in o.flower)) for o in valid]

    def detect(self, img, kind: str = "auto") -> Detections:
        """The file's detections, the view as told or guessed from them (views.decided); no model read them."""
        return decided(self.dets, kind)


def load_detector(threads: Optional[int] = None, config=None):
    """The detector of ``config`` (a DetectorConfig; None: the committed models and options), on ``threads``
    onnxruntime threads (None: the config's, 2 by default). ModelError (exit 7) when a model file is missing or
    unusable."""
    from dataclasses import replace

    from .detector import DetectorConfig, TileDetector
    config = config or DetectorConfig()
    try:
        return TileDetector(config if threads is None else replace(config, threads=threads))
    except ModelError:
        raise
    except (FileNotFoundError, OSError) as e:
        raise ModelError(f"detector model: {e}") from None
    except Exception as e:              # onnxruntime refusing a file
        raise ModelError(f"detector model unusable: {e}") from None


@dataclass
class View:
    """One frame read as far as the layout: the detections, the kind of view the detector decided, what lies
    where."""
    detections: list[Detection]
    kind: str                       # "phone" or "overhead": the detector's result's view
    layout: object                  # mjtable.vision.layout.Layout
    ms: dict[str, float] = field(default_factory=dict)
    read_as: Optional[str] = None   # the view the detector read the frame as (phone, overhead, seat); None: unknown
    stretched: float = 1.0          # types.Detections.stretched


def locate(img: np.ndarray, detector, kind: str = "auto") -> View:
    """Detections -> layout for one frame, laid out as the view the detector decided (its result's ``view``);
    UnreadableError when nothing on it can be read as a table. ``detector``: anything with ``detect(img, kind)``
    returning a types.Detections; one returning a plain list of detections has its view decided here, as
    views.decided decides it."""
    from .layout import LayoutError, parse
    t0 = time.perf_counter()
    found = detector.detect(img, kind)
    if not isinstance(found, Detections):
        found = decided(found, kind)
    t1 = time.perf_counter()
    if not found:
        raise UnreadableError("no tiles found", (NO_TILES_ADVICE,))
    dets = list(found)
    try:
        lay = parse(dets, kind=found.view, frame=(img.shape[1], img.shape[0]))
    except LayoutError as e:
        raise UnreadableError(str(e), (NO_TILES_ADVICE,)) from None
    return View(dets, found.view, lay, {"detect": (t1 - t0) * 1000, "layout": (time.perf_counter() - t1) * 1000},
                found.read_as, found.stretched)
