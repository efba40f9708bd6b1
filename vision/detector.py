"""Tile detector runtime: onnxruntime only (no torch).

Two stages, both trained by this project (scripts/train_detector.py, scripts/train_classifier.py):
  1. models/tile_locator.onnx   YOLO (ultralytics yolo11n, 2 classes: face-up tile / face-down tile), its head
                                 split (scripts/runtime_graph.py): box distributions and class logits of
                                 every anchor; decode_raw works out the boxes of the anchors that pass the
                                 threshold (an exported model's whole output is read as well: decode_yolo)
     models/tile_locator_overhead.onnx (optional) the same network fine-tuned on overhead frames at a larger
                                 input; run instead when a frame is (or looks like) an overhead view of the table
     models/tile_refiner.onnx (optional) small CNN on a 24x24 crop around each located box (crops.refine_crops,
                                 resampled with no rounding): moves each edge of the box to the tile's outline,
                                 to a fraction of a pixel (scripts/train_refiner.py)
  2. models/tile_classifier.onnx small CNN on 64x64 crops turned to portrait: tile kind (0..41, 42 = back)
                                 and where the tile's top points in the crop (up / left / down / right).
     models/tile_classifier_overhead.onnx (optional) the same network fine-tuned on overhead frames' tiles; run
                                 instead on the boxes of the overhead locator
Orientation: face_down for a back; otherwise the crop direction turned back to the image (a crop is turned
90 deg clockwise when its box is wider than tall): up = upright, left/right = sideways, down = upside_down.
Many faces look the same both ways up (4 dots, 8 bamboo ...), so upside_down needs a clear vote
(UPSIDE_DOWN_MIN); otherwise the more likely of upright/sideways is taken.

    from mjtable.vision.detector import DetectorConfig, TileDetector
    from mjtable.vision.images import load_image
    found = TileDetector(DetectorConfig(threads=4)).detect(load_image("photo.jpg"))   # or TileDetector()(img)
    found.tiles, found.view, found.read_as       # the Detections, the view decided, the models that read it
"""
from __future__ import annotations

import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Optional

import cv2
import numpy as np
from mjtable.scoring import tiles as T

from .crops import (REFINE_SIZE, crop_tile, image_orientation_probs, look_boxes, move_edges,
                    refine_crops)
from .detector_config import (CLASSIFIER, LOCATOR, LOOKS, MODEL_ARGS, MODELS, OVERHEAD_CLASSIFIER,  # noqa: F401
                              OVERHEAD_LOCATOR, REFINER, ROUTER, SEAT_CLASSIFIER, SEAT_LOCATOR, DetectorConfig,
                              int8_path, model_file, models_folder, models_in)
from .images import ImageError, unstretch
from .inference import input_px, open_session, read_crops, softmax, takes_bytes
from .level import around_tiles, boxes_back, edge_angle, tilt, turn, turn_boxes
from .perspective import plane_from_boxes
from .slicing import locate_sliced
from .types import FACE_DOWN, SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection, Detections
from .views import (ROUTE_BACKS, ROUTE_CONF, ROUTER_OVERHEAD, ROUTER_SEAT, SMALL_TILE,  # noqa: F401
                    TABLE_TILES, check_kind, decided, many_tiles, overhead_like, router_seat_p, says_seat,
                    small_tiles, table_like)
from .yolo_decode import (BOX_VOTE, YOLO_STRIDES, ModelError, decode_raw, decode_yolo, dfl_boxes,  # noqa: F401
                          nms, vote_boxes, yolo_anchors, yolo_output)

ROUTER_SIZE = 96         # the view router's thumbnail (scripts/train_router.py)
UPSIDE_DOWN_MIN = 0.75
ODD_BACK_REF = 12         # a frame with at least this many sure backs (>= 0.5): a face-down box whose colour lies ...
ODD_BACK_DIST = 25.0      # ... this far (Lab, lightness weighted ODD_BACK_L) from the median colour of ...
ODD_BACK_NEAR = 4         # ... its nearest sure backs is a shadow or an object, not a back (see odd_backs) ...
ODD_BACK_L = 0.3
ODD_BACK_FACTOR = 0.15    # ... and its confidence is scaled by this
N_CANDIDATES = 3          # kinds kept per detection with their probabilities (Detection.candidates)
N_ALTERNATIVES = 2        # next likeliest face kinds kept per face-up detection (Detection.alternatives)
SLICE_FRAME = 1.25        # a table shot from a seat in a frame this much larger than the locator's input is read
                          # in slices of that input at full resolution (its far tiles are small)
LOOK_VIEWS = ("phone", "seat")   # the views whose tiles are read in more looks (TileDetector.more_looks): a photo
                          # of a hand and a table shot from a seat, not an overhead frame (a live camera's: +16-20
                          # ms a frame for 1-2 points of hands; docs/benchmarks.md, Doubtful tiles)
SQUASHED_ASPECT = 1.0     # a photo of a hand whose face-up boxes' median width over height exceeds this may be
                          # squeezed in height (DetectorConfig.squashed) ...
UPRIGHT_ASPECT = 0.75     # ... and is read again stretched until that median is an upright tile's, ...
MAX_UNSQUASH = 3.0        # ... by at most this factor
REGION_VIEWS = ("seat", "overhead")   # the views read region by region with DetectorConfig(regions=True)
BACK_READ_VIEWS = ("overhead",)   # the views whose face-down boxes the classifier reads too (DetectorConfig.
                          # face_back_p; the seat locator calls no face a back on the real-looking seat tables)


def letterbox(img: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect ratio and pad to size x size (grey 114). Returns (image, scale, (padx, pady)).
    A size x size image (contiguous) is returned as it is (not a copy): resizing it to its own size and padding
    by nothing gave the same pixels in 1.4 ms alone, about 0.5 ms of a detect call on an overhead frame."""
    h, w = img.shape[:2]
    if h == w == size and img.flags.c_contiguous:
        return img, 1.0, (0, 0)
    r = min(size / h, size / w)
    nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r)))     # a thin strip keeps a pixel's row
    resized = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR if r > 1 else cv2.INTER_AREA)
    px, py = (size - nw) / 2, (size - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, r, (left, top)


def to_blob(img: np.ndarray) -> np.ndarray:
    """A BGR uint8 image -> 1x3xHxW float32 RGB in 0..1 (the locators' and the router's input), the values of
    crops_to_tensor bit for bit. Channel by channel into one new array: a tenth of blobFromImages' time on a
    640 px frame (4.5 -> 0.45 ms)."""
    out = np.empty((1, 3) + img.shape[:2], np.float32)
    for c, ch in enumerate(cv2.split(img)[::-1]):
        np.divide(ch, np.float32(255.0), out=out[0, c], dtype=np.float32)
    return out


def router_input(img: np.ndarray) -> np.ndarray:
    """A frame -> the view router's input: 1x3xSxS float32 RGB in 0..1, letterboxed."""
    return to_blob(letterbox(img, ROUTER_SIZE)[0])


def refine_boxes(sess, img: np.ndarray, boxes: np.ndarray, batch: int = 256) -> np.ndarray:
    """Boxes moved edge by edge by the box refiner (models/tile_refiner.onnx): (N,4) -> (N,4). The crop size is
    the model's input size (N x size x size x 3)."""
    if len(boxes) == 0:
        return boxes
    inp = sess.get_inputs()[0]
    x = refine_crops(img, boxes, int(inp.shape[1]) if isinstance(inp.shape[1], int) else REFINE_SIZE)
    name = inp.name
    d = np.concatenate([sess.run(None, {name: x[i:i + batch]})[0] for i in range(0, len(x), batch)])
    return move_edges(boxes, d)


def odd_backs(img: np.ndarray, dets: list[Detection]) -> list[Detection]:
    """Every back of one set has the set's back colour, lit as its neighbours are. In a frame with
    ODD_BACK_REF sure backs or more (an overhead view: walls and hands), a face-down box whose colour lies far
    from that of its ODD_BACK_NEAR nearest sure backs (the shadow at a hand bar's end, a dark object) keeps
    its place with a confidence scaled by ODD_BACK_FACTOR, for the layout parser to weigh. The colour of a box
    is the mean of its inner 60 %; the distance is in Lab with lightness weighted ODD_BACK_L (light falls
    unevenly on a table; a shadow also changes the hue and the saturation)."""
    idx = [i for i, d in enumerate(dets) if d.kind == T.BACK]
    sure = np.array([dets[i].confidence >= 0.5 for i in idx], bool)
    if sure.sum() < ODD_BACK_REF:
        return dets
    h, w = img.shape[:2]
    box = np.array([dets[i].box for i in idx])
    inner = box + 0.2 * (box[:, 2:] - box[:, :2])[:, [0, 1, 0, 1]] * [1, 1, -1, -1]
    x1, y1 = np.clip(np.floor(inner[:, :2]), 0, [w - 1, h - 1]).astype(int).T
    x2, y2 = np.maximum(np.clip(np.ceil(inner[:, 2:]), 0, [w, h]).astype(int), np.stack([x1 + 1, y1 + 1], 1)).T
    cols = [cv2.mean(img[c:d, a:b])[:3] for a, c, b, d in zip(x1, y1, x2, y2)]
    lab = cv2.cvtColor(np.array(cols, np.float32)[:, None] / 255.0, cv2.COLOR_BGR2LAB)[:, 0]
    lab[:, 0] *= 255 / 100                                     # the 8-bit scale: L 0..255, a and b +-127
    lab = lab.astype(np.float64) * [ODD_BACK_L, 1, 1]
    centres = (box[:, :2] + box[:, 2:]) / 2
    ref = np.flatnonzero(sure)
    apart = np.sqrt(((centres[:, None] - centres[None, ref]) ** 2).sum(-1))
    apart[np.arange(len(idx))[:, None] == ref[None]] = np.inf           # not itself
    near = ref[np.argsort(apart, 1)[:, :ODD_BACK_NEAR]]
    dist = np.sqrt(((lab - np.median(lab[near], 1)) ** 2).sum(1))
    out = list(dets)
    for i, dd in zip(idx, dist):
        if dd > ODD_BACK_DIST:
            out[i] = replace(dets[i], confidence=dets[i].confidence * ODD_BACK_FACTOR)
    return out


def large_faces(boxes: np.ndarray, px: Optional[float]) -> np.ndarray:
    """Which boxes' shorter side measures at least px (none when px is None): on a whole table, the faces large
    enough to be read by the general classifier too, as a photo of a hand's are (DetectorConfig.general_px)."""
    if px is None or not len(boxes):
        return np.zeros(len(boxes), bool)
    return np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) >= px


def scaled_back(dets: list[Detection], sx: float, sy: float) -> list[Detection]:
    """Detections found in a frame resized sx times in width and sy in height, with their boxes in the pixels of
    the frame before."""
    return [replace(d, box=(d.box[0] / sx, d.box[1] / sy, d.box[2] / sx, d.box[3] / sy)) for d in dets]


def taller(img: np.ndarray, s: float) -> np.ndarray:
    """The image stretched s times in height (a photo squeezed in height, stretched back)."""
    return cv2.resize(img, (img.shape[1], round(img.shape[0] * s)), interpolation=cv2.INTER_LINEAR)


class TileDetector:
    """Finds every tile in a BGR frame: box (original pixels), kind, orientation, confidence; and decides the
    frame's view once (``detect`` returns both, a types.Detections).

    Built from a DetectorConfig (its models and options, vision.detector_config), decided once: the config is
    frozen, and ``config`` says how the detector was built. A box the locator calls face down is a back without
    running the crop classifier on it: overhead frames, where most tiles are walls and hands seen from behind, take
    0.7x the time, with the same accuracy on the synthetic test split (mAP50-95 0.770 either way)."""

    def __init__(self, config: Optional[DetectorConfig] = None, **options):
        """``config``: the models and options (None: the committed runtime's, DetectorConfig()). The keyword
        arguments of 0.1 (``TileDetector(refiner=None)``) still build a config, with a DeprecationWarning: they go
        after the 0.2 release; pass ``TileDetector(DetectorConfig(refiner=None))``."""
        if config is not None and not isinstance(config, DetectorConfig):
            raise TypeError(f"TileDetector takes a DetectorConfig, not {type(config).__name__} (the model paths "
                            f"are DetectorConfig fields: DetectorConfig(locator=..., classifier=...))")
        if options:
            warnings.warn("TileDetector(**options) is deprecated: pass TileDetector(DetectorConfig(**options))",
                          DeprecationWarning, stacklevel=2)
        self._config = c = replace(config or DetectorConfig(), **options)
        self._load_models(c)
        outs = self.loc.get_outputs()
        n_out = outs[-1].shape[1]     # a split head's class logits (nc), or ultralytics' 4 + nc rows
        self.n_loc_classes = (int(n_out) - (4 if len(outs) == 1 else 0)) if isinstance(n_out, int) else None

    def _load_models(self, c: DetectorConfig) -> None:
        """The config's model files (int8 where asked and there, model_file) and their sessions; the seat models'
        sessions load when a table shot from a seat is first read (most frames never need them)."""
        locator = model_file(c.locator, c.int8) or Path(c.locator)      # missing: open_session says so (ModelError)
        classifier = None if c.classifier is None else model_file(c.classifier, c.int8) or Path(c.classifier)
        overhead_locator = model_file(c.overhead_locator, c.int8)
        overhead_classifier = model_file(c.overhead_classifier, c.int8) if classifier is not None else None
        self.locator_path, self.classifier_path = Path(locator), classifier
        self.loc = open_session(locator, c.threads)
        self.loc_over = open_session(overhead_locator, c.threads) if overhead_locator is not None else None
        self.overhead_locator_path = overhead_locator
        router = model_file(c.router, False) if overhead_locator is not None else None
        self.router = open_session(router, 1) if router is not None else None
        self.router_path = router
        self.cls = open_session(classifier, c.threads) if classifier is not None else None
        self.cls_over = open_session(overhead_classifier, c.threads) if overhead_classifier is not None else None
        self.overhead_classifier_path = overhead_classifier
        wide = model_file(c.overhead_wide, c.int8) if overhead_classifier is not None else None
        self.cls_over_wide = open_session(wide, c.threads) if wide is not None else None
        self.overhead_wide_path = wide
        refiner = model_file(c.refiner, c.int8)
        self.refiner = open_session(refiner, c.threads) if refiner is not None else None
        self.refiner_path = refiner
        self.seat_locator_path = model_file(c.seat_locator, c.int8)
        self.seat_classifier_path = model_file(c.seat_classifier if classifier else None, c.int8)
        self._seat_sessions: dict[str, object] = {}

    @property
    def config(self) -> DetectorConfig:
        """The models and options this detector was built from."""
        return self._config

    def locate(self, img: np.ndarray, overhead: bool = False, slice_px: Optional[int] = None, seat: bool = False):
        """Stage 1: boxes (N,4) in original pixels, scores (N,), locator classes (N,), all class scores (N,nc).
        overhead: run the overhead locator (when there is one); seat: the seat locator (when there is one, else
        as overhead). A frame larger than slice_px (default: the detector's own) is read in slices."""
        size = slice_px or self.config.slice_px
        if size and max(img.shape[:2]) > size:
            return locate_sliced(lambda part: self._locate_one(part, overhead, seat), img, size, self.config.iou, nms)
        return self._locate_one(img, overhead, seat)

    def _seat_session(self, which: str):
        """The seat locator's or classifier's session, loaded on first use; None without its file."""
        path = self.seat_locator_path if which == "locator" else self.seat_classifier_path
        if path is not None and which not in self._seat_sessions:
            self._seat_sessions[which] = open_session(path, self.config.threads)
        return self._seat_sessions.get(which)

    @property
    def loc_seat(self):
        return self._seat_session("locator")

    @property
    def cls_seat(self):
        return self._seat_session("classifier")

    def _model(self, which: str, overhead: bool, seat: bool):
        """The locator or classifier session to run: for a seat view the seat model, for any whole table the
        overhead one, else the general one; a model that is not there falls back to the next."""
        if seat and self._seat_session(which) is not None:
            return self._seat_session(which)
        over, general = (self.loc_over, self.loc) if which == "locator" else (self.cls_over, self.cls)
        return over if (overhead or seat) and over is not None else general

    def _seat_view(self, found, seat_p: Optional[float] = None) -> bool:
        """Is a whole table photographed from a seat? Its sure boxes show the perspective, or the view router
        calls it a seat view (``seat_p``, the router's probability of one, ROUTER_SEAT or more): the overhead
        locator misses many of a seat view's far tiles, and its boxes then show too little perspective."""
        if self.config.slice_px or not self.config.seat_view:
            return False
        if plane_from_boxes(found[0][found[1] >= ROUTE_CONF]) is not None:
            return True
        return says_seat(seat_p)

    def _locate_one(self, img: np.ndarray, overhead: bool = False, seat: bool = False):
        c = self.config
        sess = self._model("locator", overhead, seat)
        inp = sess.get_inputs()[0]
        byte = takes_bytes(sess)                 # the letterboxed BGR image as it is, 1xHxWx3
        lb, r, (px, py) = letterbox(img, input_px(sess))
        out = sess.run(None, {inp.name: lb[None] if byte else to_blob(lb)})
        if len(out) == 2:             # split head: box distributions and class logits
            boxes, scores, cls, cls_scores = decode_raw(*out, lb.shape[0], c.conf, c.iou, vote=c.vote)
        else:
            boxes, scores, cls, cls_scores = decode_yolo(out[0], c.conf, c.iou, vote=c.vote)
        boxes = (boxes - [px, py, px, py]) / r
        h, w = img.shape[:2]
        boxes = np.clip(boxes, 0, [w, h, w, h])
        return boxes, scores, cls, cls_scores

    def classify(self, img: np.ndarray, boxes: np.ndarray, overhead: bool = False, seat: bool = False,
                 turned: Optional[np.ndarray] = None, wide: bool = True):
        """Stage 2: kind probabilities (N,43) and orientation probabilities (N,3: upright, sideways,
        upside down) relative to the image. overhead: with the overhead classifier (when there is one); seat:
        with the seat classifier (when there is one, else as overhead). turned: (N,) bool, the boxes whose crops
        the classifier sees turned 180 degrees (their orientations still given relative to the image). wide:
        the overhead classifier's reading averaged with the wider one's (DetectorConfig.overhead_wide, where there
        is one); False: the overhead classifier alone."""
        sess = self._model("classifier", overhead, seat)
        crops, rot = zip(*(crop_tile(img, b) for b in boxes))
        if turned is not None:
            crops = [np.ascontiguousarray(c[::-1, ::-1]) if t else c for c, t in zip(crops, turned)]
        kinds, dirs = read_crops(sess, crops)
        if wide and sess is self.cls_over and self.cls_over_wide is not None:     # DetectorConfig.overhead_wide
            wide_kinds, wide_dirs = read_crops(self.cls_over_wide, crops)
            kinds, dirs = (kinds + wide_kinds) / 2, (dirs + wide_dirs) / 2
        orient = image_orientation_probs(dirs, np.array(rot))
        if turned is not None:
            orient[turned] = orient[turned][:, ::-1]          # upright <-> upside down
        return kinds, orient

    def view_probs(self, img: np.ndarray) -> Optional[np.ndarray]:
        """The view router's probabilities of the frame's views: (phone or close-up, overhead) from a two-way
        router, (phone or close-up, overhead, seat view) from a three-way one; None without a router."""
        if self.router is None:
            return None
        out = self.router.run(None, {self.router.get_inputs()[0].name: router_input(img)})[0][0]
        return softmax(out[None])[0]

    def view_overhead_p(self, img: np.ndarray) -> Optional[float]:
        """The view router's probability that the frame is an overhead view (None without a router). A seat view
        takes the general locator's pass first, as without a router: a three-way router's "whole table" (not a
        phone photo) would send a few photos of a hand to the overhead locator first, a pass for nothing."""
        p = self.view_probs(img)
        return None if p is None else float(p[1])

    def view_seat_p(self, img: np.ndarray) -> Optional[float]:
        """The view router's probability that the frame is a table photographed from a seat (None without a
        three-way router)."""
        return router_seat_p(self.view_probs(img))

    def locate_for(self, img: np.ndarray, kind: str = "auto"):
        """Stage 1 with the locator for this kind of frame. auto: when the view router (if any) says overhead,
        the overhead locator runs first and its boxes are kept if they look like a whole table (table_like).
        Otherwise the general locator runs; when its boxes look like a whole table and there is an overhead
        locator not yet run, that one is run on the frame. A router that wrongly says overhead costs one locator
        pass (a close-up's boxes do not look like a table on either locator); one that wrongly says not
        overhead leaves the frame to the rule on the general locator's boxes, as without a router. When the
        general locator finds no sure tile, or only small ones (small_tiles: a table photographed from a seat,
        upright, its tiles a few pixels at the locator's input) or the router calls the frame a seat view, the
        overhead locator's boxes (its first look's, when the router sent the frame there) decide whether it is a
        table far off (_far_table); when they are too few and the router calls the frame a seat view, the seat
        locator's boxes are asked the same. A whole table is read by the seat models when it shows a seat's perspective
        or a three-way router calls it a seat view (_seat_view). Returns (locate()'s output, the view it was read
        as: "phone", "overhead", or "seat" for a whole table read again in slices, see _whole_table)."""
        check_kind(kind)
        if self.loc_over is None or kind == "phone":
            return self.locate(img), "phone"
        probs = self.view_probs(img)                      # the router's look, once a frame
        seat_p = router_seat_p(probs)
        if kind == "overhead":
            return self._whole_table(img, self.locate(img, overhead=True), seat_p)
        over = None
        if probs is not None and probs[1] >= ROUTER_OVERHEAD:
            over = self.locate(img, overhead=True)
            if table_like(over):
                return self._whole_table(img, over, seat_p)
        found = self.locate(img)
        if table_like(found):
            return self._whole_table(img, over if over is not None else self.locate(img, overhead=True), seat_p)
        if self.config.far_table and (small_tiles(found, input_px(self.loc) / max(img.shape[:2]))
                                      or says_seat(seat_p)):
            over = over if over is not None else self.locate(img, overhead=True)
            if many_tiles(over):
                return self._far_table(img, over, seat_p)
            if says_seat(seat_p):                        # a seat view whose far tiles the overhead locator misses
                seat = self._seat_boxes(img)
                if many_tiles(seat[0]):
                    return seat
        return found, "phone"

    def _whole_table(self, img: np.ndarray, found, seat_p: Optional[float] = None):
        """(boxes, view) of a whole table: for a table photographed from a seat (_seat_view; ``seat_p``: the
        router's probability of a seat view) the seat locator's (_seat_boxes), else the overhead locator's boxes
        as found."""
        return self._seat_boxes(img) if self._seat_view(found, seat_p) else (found, "overhead")

    def _seat_boxes(self, img: np.ndarray):
        """(boxes, "seat"): the seat locator's boxes, in slices of its input size at full resolution when the frame
        is SLICE_FRAME times that or larger."""
        size = input_px(self._model("locator", True, True))
        return self.locate(img, slice_px=size if max(img.shape[:2]) >= SLICE_FRAME * size else None, seat=True), \
            "seat"

    def _far_table(self, img: np.ndarray, found, seat_p: Optional[float] = None):
        """(boxes, view) of a frame whose tiles are few pixels at the locators' inputs and many (many_tiles) but
        not yet table_like: a table photographed from a seat, far off or upright. Its perspective is looked for
        in the overhead locator's boxes of the whole frame, then of slices at full resolution (their boxes are
        sharper); without one it is read as an overhead frame, in those slices."""
        if self._seat_view(found, seat_p):
            return self._seat_boxes(img)
        size = input_px(self._model("locator", True, False))
        if max(img.shape[:2]) < SLICE_FRAME * size:
            return found, "overhead"
        return self._whole_table(img, self.locate(img, slice_px=size, overhead=True), seat_p)

    def refine(self, img: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The boxes as the box refiner moves them, clipped to the frame (as they are without a refiner)."""
        if self.refiner is None:
            return boxes
        h, w = img.shape[:2]
        return np.clip(refine_boxes(self.refiner, img, boxes), 0, [w, h, w, h])

    def read_kinds(self, img: np.ndarray, located: np.ndarray, refined: np.ndarray, view: str = "phone",
                   first=None):
        """Kind (N,43) and orientation (N,3) probabilities of face-up boxes as detect reads them in a frame read
        as ``view`` (phone, overhead or seat): the view's classifier on the located boxes (``first``: that look,
        when already had), then, for a view of LOOK_VIEWS, more looks around the refined ones (more_looks)."""
        overhead, seat = view != "phone", view == "seat"
        probs, orient = first if first is not None else self.classify(img, located, overhead, seat)
        if self.config.looks and view in LOOK_VIEWS:
            probs = self.more_looks(img, refined, probs, overhead, seat)
        big = large_faces(located, self.config.general_px) if overhead else np.zeros(len(located), bool)
        if big.any():            # large faces of a whole table: the close-up reader's probabilities averaged in
            close, _ = self.classify(img, located[big])
            if self.config.looks and view in LOOK_VIEWS:
                close = self.more_looks(img, refined[big], close)
            probs[big] = (probs[big] + close) / 2
        return probs, orient

    def unsquash(self, located: np.ndarray) -> float:
        """How much to stretch a photo of a hand in height to read it as if it had not been squeezed: the factor
        that makes the face-up boxes' median width over height an upright tile's (UPRIGHT_ASPECT, at most
        MAX_UNSQUASH), when that median exceeds SQUASHED_ASPECT over 3 boxes or more; else 1.0."""
        if not self.config.squashed or len(located) < 3:
            return 1.0
        aspect = float(np.median((located[:, 2] - located[:, 0]) / np.maximum(located[:, 3] - located[:, 1], 1e-6)))
        return min(aspect / UPRIGHT_ASPECT, MAX_UNSQUASH) if aspect > SQUASHED_ASPECT else 1.0

    def squeezed(self, img: np.ndarray, located: np.ndarray) -> tuple[float, tuple]:
        """Whether a photo of a hand reads surer stretched back in height (unsquash's factor, else 1.0), and the
        first look at its face-up boxes as it is (classify's answer): the first look at the boxes in the frame
        stretched back is surer on average than as it is (a photo of tiles lying sideways reads surer as it is)."""
        first = self.classify(img, located)
        s = self.unsquash(located)
        if s > 1.0 and (self.classify(taller(img, s), located * [1.0, s, 1.0, s])[0].max(1).mean()
                        > first[0].max(1).mean()):
            return s, first
        return 1.0, first

    def more_looks(self, img: np.ndarray, boxes: np.ndarray, probs: np.ndarray, overhead: bool = False,
                   seat: bool = False) -> np.ndarray:
        """Kind probabilities averaged over the first look (probs, on the located boxes) and more looks around
        boxes, the refined boxes: those boxes themselves (a look of their own when there is a refiner; without
        one, boxes are the located boxes and are not read again) and those moved as config.looks says
        (look_boxes), read by the view's classifier (overhead, seat: as classify); with config.turned_looks every
        other one of these looks sees the tile turned 180 degrees. Fewer tiles are misread, and one whose reading
        changes when its box moves by a few pixels, or when it is seen the other way up, loses probability and is
        named doubtful (scripts/bench_doubt.py, scripts/bench_phone.py)."""
        h, w = img.shape[:2]
        more = look_boxes(boxes, self.config.looks)
        if self.refiner is not None:
            more = np.concatenate([boxes[None], more])
        turned = None
        if self.config.turned_looks:          # every other look (the first, third...) sees the tile turned 180 deg
            turned = np.repeat(np.arange(len(more)) % 2 == 0, len(boxes))
        p, _ = self.classify(img, np.clip(more.reshape(-1, 4), 0, [w, h, w, h]), overhead, seat, turned)
        return (probs + p.reshape(len(more), len(boxes), -1).sum(0)) / (1 + len(more))

    def detect(self, img: np.ndarray, kind: str = "auto") -> Detections:
        """The frame's tiles and its view, decided once (types.Detections: ``tiles``, ``view``, ``read_as``, ``ms``).
        kind: auto, phone or overhead: which locator runs (locate_for) and the view, or auto for the view guessed
        from the tiles (views.guess_view); UnknownKind for any other. An image stretched one way (images.unstretch)
        is read with its aspect restored; the boxes are given in the input's pixels."""
        t0 = time.perf_counter()
        if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.size == 0:
            raise ImageError("not an image: detect() needs a BGR array of shape (H, W, 3)")
        check_kind(kind)
        img, sx, sy = unstretch(img)
        out, read_as = self._read_level(img, kind)
        if read_as == "phone":              # each tile's edge direction: the layout sets apart tiles turned from
            out = [replace(d, angle=edge_angle(img, d.box)) for d in out]       # the hand's (pushed aside)
        if not sx == sy == 1.0:
            out = scaled_back(out, sx, sy)
        return decided(out, kind, read_as, (time.perf_counter() - t0) * 1000, 1 / min(sx, sy))

    __call__ = detect

    def _read_level(self, img: np.ndarray, kind: str) -> tuple[list[Detection], str]:
        """A photo of a hand whose tiles lie at an angle (level.tilt) is read turned level, its boxes mapped back
        (the box around each, in the image's pixels). The view is decided on the frame as it is (a whole table's
        rows run many ways, and one turned may pass for a hand); a whole table, or a frame not tilted, is read as
        it is."""
        located = self.locate_for(img, kind)
        deg = tilt(img) if self.config.level and located[1] == "phone" else 0.0
        if deg:
            turned, m = turn(img, deg)
            x0, y0, x1, y1 = around_tiles(turn_boxes(located[0][0][located[0][1] >= ROUTE_CONF], m), turned.shape)
            out, read_as = self._detect(turned[y0:y1, x0:x1], "phone")
            boxes = np.array([d.box for d in out]).reshape(-1, 4) + [x0, y0, x0, y0]
            back, inside = boxes_back(boxes, m, img.shape)
            return [replace(d, box=tuple(float(v) for v in b)) for d, b, k in zip(out, back, inside) if k], read_as
        return self._detect(img, kind, located)

    def _detect(self, img: np.ndarray, kind: str, located=None, squash: bool = True) -> tuple[list[Detection], str]:
        """The frame's detections and the view it was read as; ``located``: locate_for's answer if already had. A
        photo of a hand squeezed in height (squeezed) is read stretched back, its boxes mapped back (``squash``
        False: as it is)."""
        found, view = self.locate_for(img, kind) if located is None else located
        boxes, scores, loc_cls, loc_scores = found
        if len(boxes) == 0:
            return [], view
        two_stage = self.cls is not None and self.n_loc_classes != T.N_CLASSES
        if self.config.regions and view in REGION_VIEWS and two_stage:
            return self._read_regions(img, found, view)
        todo = loc_cls != 1
        if two_stage and view in BACK_READ_VIEWS and self.config.face_back_p is not None and not todo.all():
            todo, loc_scores = self.faces_called_backs(img, boxes, todo, loc_scores)
        first = None
        if two_stage and todo.any() and view == "phone" and squash:
            s, first = self.squeezed(img, boxes[todo])
            if s > 1.0:       # read again whole, found and read in the frame stretched back
                out, view = self._detect(taller(img, s), "phone", squash=False)
                return scaled_back(out, 1.0, s), view
        located = boxes       # the classifier's first look reads the located boxes (it was trained on boxes off as
        boxes = self.refine(img, boxes)      # theirs are; on the refined ones it read kinds and orientations a
                                             # little worse)
        out = []
        if not two_stage:                    # one-stage model: class = kind
            for b, s, c in zip(boxes, scores, loc_cls):
                w, h = b[2] - b[0], b[3] - b[1]
                o = FACE_DOWN if c == T.BACK else (SIDEWAYS if w > h else UPRIGHT)
                out.append(Detection(tuple(float(v) for v in b), int(c), o, float(s)))
            return out, view
        probs = np.zeros((len(boxes), T.N_CLASSES), np.float32)
        probs[:, T.BACK] = 1.0
        orient = np.zeros((len(boxes), 3), np.float32)
        if todo.any():
            probs[todo], orient[todo] = self.read_kinds(img, located[todo], boxes[todo], view, first)
        return self._detections(img, boxes, scores, loc_scores, probs, orient), view

    def faces_called_backs(self, img: np.ndarray, boxes: np.ndarray, todo: np.ndarray, loc_scores: np.ndarray):
        """(todo, loc_scores) with the located face-down boxes that the overhead classifier alone, in one look,
        gives a back less than DetectorConfig.face_back_p made face up, and their locator's face-up / face-down
        vote made even (the classifiers decide when they read them as faces): the overhead locator calls whole
        hands face down surely where a warm or dim light falls on them (docs/benchmarks.md, Real-looking whole
        tables)."""
        down = np.flatnonzero(~todo)
        p, _ = self.classify(img, boxes[down], overhead=True, wide=False)
        face = down[p[:, T.BACK] < self.config.face_back_p]
        if not len(face):
            return todo, loc_scores
        todo, loc_scores = todo.copy(), loc_scores.copy()
        todo[face] = True
        loc_scores[face] = loc_scores[face].max(1, keepdims=True)
        return todo, loc_scores

    def _read_regions(self, img: np.ndarray, found, view: str) -> tuple[list[Detection], str]:
        """detect's detections of a whole table read region by region (vision.regions): its rows of face-up
        tiles rectified and read by the general locator and classifier; the boxes then refined in the frame."""
        from .regions import read_regions
        strips = self.config.regions != "crops"
        boxes, scores, _, loc_scores, probs, orient = read_regions(self, img, found, strips, strips)
        return self._detections(img, self.refine(img, boxes), scores, loc_scores, probs, orient), view

    def _detections(self, img: np.ndarray, boxes: np.ndarray, scores: np.ndarray, loc_scores: np.ndarray,
                    probs: np.ndarray, orient: np.ndarray) -> list[Detection]:
        """Detections from the boxes, the locator's scores and class scores and the classifier's kind and
        orientation probabilities (a face-down box: probability 1 of a back)."""
        # face up or face down: both stages vote (a blank white dragon looks like a pale back up close, the
        # locator sees the tile's body and layers); back if the product of their odds says so
        rank = np.argsort(-probs, axis=1)
        q = loc_scores[:, 1] / np.maximum(loc_scores[:, 0] + loc_scores[:, 1], 1e-9)
        back = q * probs[:, T.BACK] > (1 - q) * (1 - probs[:, T.BACK])
        kinds = np.where(back, T.BACK, np.where(rank[:, 0] == T.BACK, rank[:, 1], rank[:, 0]))
        orients = np.where(back, FACE_DOWN, np.where(orient[:, 2] >= UPSIDE_DOWN_MIN, UPSIDE_DOWN,
                                                     np.where(orient[:, 0] >= orient[:, 1], UPRIGHT, SIDEWAYS)))
        conf = scores * probs[np.arange(len(boxes)), kinds]
        top = rank[:, :N_CANDIDATES]
        top_p = np.take_along_axis(probs, top, 1)
        # the next two face kinds after the one read, however unlikely: what a player may correct a tile to
        face = np.where(rank[:, :N_ALTERNATIVES + 2] == T.BACK, -1, rank[:, :N_ALTERNATIVES + 2])
        face_p = np.take_along_axis(probs, np.maximum(face, 0), 1)
        flower_k = T.FLOWERS[0] + np.argsort(-probs[:, T.FLOWERS[0]:T.FLOWERS[-1] + 1], axis=1)   # likeliest first
        flower = zip(flower_k.tolist(), np.take_along_axis(probs, flower_k, 1).tolist())
        out = []
        for b, k, o, c, tk, tp, po, fk, fp, fl in zip(boxes.tolist(), kinds.tolist(), orients.tolist(),
                                                      conf.tolist(), top.tolist(), top_p.tolist(), orient.tolist(),
                                                      face.tolist(), face_p.tolist(), flower):
            cands = tuple((kk, round(pp, 4)) for kk, pp in zip(tk, tp) if pp >= 0.01)
            op = () if o == FACE_DOWN else tuple(round(v, 4) for v in po)
            alts = () if o == FACE_DOWN else \
                tuple((kk, round(pp, 4)) for kk, pp in zip(fk, fp) if kk >= 0 and kk != k)[:N_ALTERNATIVES]
            out.append(Detection(tuple(b), k, o, c, cands, op, alts,
                                 () if o == FACE_DOWN else tuple((kk, round(pp, 4)) for kk, pp in zip(*fl))))
        return odd_backs(img, out) if self.config.odd_back else out
