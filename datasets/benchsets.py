"""What the benchmarks share (scripts/bench_*.py): the seeds that made training sets, the generated scenes they
read (made once, made again when the generator labels otherwise), and the detector's parts a run can leave out.

The generator makes the same scenes from the same seed, whatever the kind or the size: a benchmark refuses a seed
of TRAINING_SEEDS, whose scenes are not unseen.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .generate import LABELS_VERSION
from .render import DEFAULT_BOXES

# seeds of the sets the models were trained or validated on (models/README.md): their scenes are not unseen
TRAINING_SEEDS = {100: "synth/train", 101: "synth/train2", 102: "synth/train3", 103: "synth/train4",
                  104: "synth/train5", 105: "synth/train6", 106: "synth/train7", 200: "synth/grid",
                  900: "synth/mix900 (phone)", 901: "synth/mix900 (overhead)",
                  9001: "synth/test (validation)", 300: "synth/seat300 (tables seen from a seat)",
                  301: "synth/seat301 (tables seen from a seat)",
                  9101: "synth/val (the overhead classifier's validation)",
                  910: "synth/clut910 (phone, --clutter)", 911: "synth/clut910 (overhead, --clutter)",
                  310: "synth/seatp310 (tables seen from a seat, upright frames, --clutter)",
                  500: "synth/realseat500 (real faces, seat views)", 501: "synth/realseatp501 (real faces, upright)",
                  502: "synth/realover502 (real faces, top-down)",
                  503: "synth/realseatp503 (real faces, upright; the view router)",
                  504: "synth/realover504 (real faces, top-down; the view router)",
                  507: "synth/realseatp507 (real faces, upright; the seat classifier)",
                  508: "synth/realseat508 (real faces, seat views; the seat classifier)",
                  509: "synth/realseatp509 (real faces, upright; the seat classifier)",
                  920: "synth/loose920 (phone, loose tiles at any angle)",
                  107: "synth/over107 (overhead; the wide overhead classifier)",
                  511: "synth/realseatp511 (real faces, upright; a seat classifier not kept)",
                  512: "synth/realseat512 (real faces, seat views; a seat classifier not kept)",
                  513: "synth/realseatp513 (real faces, upright; a seat classifier not kept)",
                  520: "synth/realoverrk520 (real faces, top-down, racks; an overhead locator not kept)",
                  521: "synth/overrk521 (overhead, racks; an overhead locator not kept)",
                  530: "synth/realseatprk530 (real faces, upright, racks; the seat locator locrk7a)",
                  531: "synth/realseatrk531 (real faces, seat views, racks; the seat locator locrk7a)",
                  541: "synth/fontseatp541 (font-drawn sets, upright seat views; a seat classifier not kept)",
                  542: "synth/fontseat542 (font-drawn sets, seat views; a seat classifier not kept)",
                  543: "synth/fontphone543 (font-drawn sets, phone; a seat classifier not kept)"}

# parts of the detector a run can leave out (--without): TileDetector argument set to None, and what it is
WITHOUT = {"router": ("router", "view router (models/view_router.onnx): the general locator decides the kind"),
           "vote": ("vote", "box voting in the locator's non-maximum suppression (mjtable.vision.detector.vote_boxes)"),
           "refiner": ("refiner", "box refiner (models/tile_refiner.onnx): boxes as the locator gives them"),
           "odd-back": ("odd_back", "back colour check (mjtable.vision.detector.odd_backs)"),
           "overhead-classifier": ("overhead_classifier",
                                   "overhead classifier (models/tile_classifier_overhead.onnx)"),
           "overhead-wide": ("overhead_wide", "second, wider overhead classifier averaged in (DetectorConfig."
                                              "overhead_wide, models/tile_classifier_overhead_wide.onnx)"),
           "seat-view": ("seat_view", "second reading of a table shot from a seat by the seat models "
                                      "(DetectorConfig.seat_view)"),
           "far-table": ("far_table", "overhead locator's look at a frame of small tiles (TileDetector.far_table)"),
           "looks": ("looks", "more looks at each tile of a photo of a hand or a seat view (DetectorConfig.looks): "
                                "one look"),
           "general-px": ("general_px", "second reading of a whole table's large faces by the general classifier "
                                        "(DetectorConfig.general_px): the view's classifier alone"),
           "turned-looks": ("turned_looks", "turned looks: every other look at a tile turned 180 degrees "
                                            "(DetectorConfig.turned_looks): every look as the tile lies"),
           "squashed": ("squashed", "a second reading of a photo of a hand whose boxes are mostly wider than tall, "
                                    "stretched back in height (DetectorConfig.squashed): read as it is"),
           "backs-read": ("face_back_p", "overhead frame's face-down boxes read by the classifier too "
                                         "(DetectorConfig.face_back_p): the locator's backs unread")}


def labels_current(out: Path, loose: bool = False) -> bool:
    """Were the scenes in out labelled by the generator as it labels now (mjtable.datasets.generate.LABELS_VERSION),
    with loose tiles beside the hands or without, as asked?"""
    try:
        made = json.loads((out / "generator.json").read_text())
    except (OSError, ValueError):
        return False
    return (made.get("labels") == LABELS_VERSION and made.get("boxes") == DEFAULT_BOXES
            and made.get("art", "packaged") == "packaged" and made.get("loose", False) == loose)


def ensure_scenes(out: Path, kind: str, n: int, seed: int, imgsz: int = 640, portrait: bool = False,
                  loose: bool = False) -> list[Path]:
    """The first n scenes' ground truth in out, generated when missing or labelled by an older generator
    (``loose``: phone photos with tiles lying loose beside the hand, generate --loose)."""
    current = labels_current(out, loose)
    gts = sorted((out / "gt").glob("*.json")) if (out / "gt").is_dir() and current else []
    if len(gts) < n:
        if not current and out.is_dir():
            shutil.rmtree(out)
        cmd = [sys.executable, "-m", "mjtable.datasets.generate", "--out", str(out), "--kind", kind, "--n", str(n),
               "--seed", str(seed), "--workers", "2", "--imgsz", str(imgsz)] + (["--portrait"] if portrait else []) \
            + (["--loose"] if loose else [])
        print("generating:", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        gts = sorted((out / "gt").glob("*.json"))
    return gts[:n]
