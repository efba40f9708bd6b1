"""Quantize the detector's ONNX models to int8 (onnxruntime static quantization, QDQ, per-channel weights).

    python -m scripts.quantize_models [--locator models/tile_locator.onnx]
                              [--classifier models/tile_classifier.onnx]
                              [--overhead-locator models/tile_locator_overhead.onnx]
                              [--overhead-classifier models/tile_classifier_overhead.onnx]
                              [--refiner models/tile_refiner.onnx]
                              [--calib data/synth/train data/real/train] [--n 60]
                              [--only locator overhead-locator classifier overhead-classifier refiner]

Writes models/tile_locator_int8.onnx and models/tile_classifier_int8.onnx (and tile_locator_overhead_int8.onnx,
tile_classifier_overhead_int8.onnx when the overhead models are there, calibrated on overhead scenes; and
tile_refiner_int8.onnx when the box refiner is there) next to their float models; the
runtime (vision/detector.py) uses an int8 model when it is there. Calibration images come from the training
data (never the test splits). What stays in float: the YOLO head's last convolutions and its box decoding
(boxes in pixels and class scores in 0..1 share one output tensor, which one int8 scale cannot hold), and the
classifier's and the refiner's final linear layers. The int8 models are then put in the runtime's form
(scripts/runtime_graph.py: a locator's head split, and the BGR uint8 image(s) as input when the input quantization
is the pixel values themselves; the refiner takes uint8 crops as trained).
`scripts/evaluate_detector_figures.py --compare` prints accuracy and speed of both side by side.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import cv2

from mjtable.models.graph import quantize, runtime_graph
from mjtable.vision.crops import crop_tile, crops_to_tensor, refine_crops
from mjtable.vision.detector import (CLASSIFIER, LOCATOR, OVERHEAD_CLASSIFIER, OVERHEAD_LOCATOR, REFINER, int8_path,
                             letterbox, to_blob)

ROOT = Path(__file__).resolve().parent.parent


MODELS = ("locator", "overhead-locator", "classifier", "overhead-classifier", "refiner")


def calib_images(dirs: list[Path], n: int, pattern: str = "*.jpg") -> list[Path]:
    out = []
    for d in dirs:
        files = sorted((d / "images").glob(pattern))
        out += files[:: max(1, len(files) // max(1, n // len(dirs)))][: n // len(dirs)]
    return out


def locator_batches(files: list[Path], size: int):
    for f in files:
        lb, _, _ = letterbox(cv2.imread(str(f)), size)
        yield to_blob(lb)


def classifier_batches(files: list[Path]):
    for f in files:
        img = cv2.imread(str(f))
        lab = f.parent.parent / "labels" / (f.stem + ".txt")
        h, w = img.shape[:2]
        crops = []
        for line in lab.read_text().splitlines()[:32]:
            c, cx, cy, bw, bh = map(float, line.split()[:5])
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            crops.append(crop_tile(img, box)[0])
        if crops:
            yield crops_to_tensor(crops)


def refiner_batches(files: list[Path], size: int):
    """The refiner's input: size x size crops around the labelled boxes (mjtable.vision.crops.refine_crops), 32 per
    image."""
    from mjtable.vision.labels import read_yolo
    for f in files:
        img = cv2.imread(str(f))
        boxes, _ = read_yolo(f.parent.parent / "labels" / (f.stem + ".txt"), img.shape[1], img.shape[0])
        if len(boxes):
            yield refine_crops(img, boxes[:32], size)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locator", type=Path, default=LOCATOR)
    ap.add_argument("--classifier", type=Path, default=CLASSIFIER)
    ap.add_argument("--overhead-locator", type=Path, default=OVERHEAD_LOCATOR, help="quantized when the file is there")
    ap.add_argument("--overhead-classifier", type=Path, default=OVERHEAD_CLASSIFIER,
                    help="quantized when the file is there")
    ap.add_argument("--refiner", type=Path, default=REFINER, help="quantized when the file is there")
    ap.add_argument("--calib", type=Path, nargs="*", default=[ROOT / "data/synth/train", ROOT / "data/real/train"])
    ap.add_argument("--n", type=int, default=60, help="calibration images")
    ap.add_argument("--only", nargs="+", choices=MODELS, default=MODELS,
                    help="quantize these models only (the others' int8 files stay as they are)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    files = calib_images(a.calib, a.n)
    if not files:
        print(f"error: no calibration images under {', '.join(map(str, a.calib))}", file=sys.stderr)
        return 2
    # whole tables: overhead frames and tables shot from a seat (and windows cut from them), evenly drawn
    tables = [f for d in a.calib for pat in ("overhead_*.jpg", "seat_*.jpg") for f in calib_images([d], a.n, pat)]
    over = tables[:: max(1, len(tables) // a.n)][: a.n] or files
    if "locator" in a.only:
        quantize_locator(a.locator, files)
    if "overhead-locator" in a.only and a.overhead_locator.exists():
        quantize_locator(a.overhead_locator, over)
    if "classifier" in a.only:
        quantize_classifier(a.classifier, files)
    if "overhead-classifier" in a.only and a.overhead_classifier.exists():
        quantize_classifier(a.overhead_classifier, over)
    if "refiner" in a.only and a.refiner.exists():
        quantize_refiner(a.refiner, files)
    return 0


def quantize_locator(path: Path, files: list[Path]) -> None:
    import onnxruntime as ort
    size = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_inputs()[0].shape[2]
    head = re.compile(r"/model\.\d+/cv[23]\.\d/cv[23]\.\d\.[01]/")   # the head's inner conv blocks: int8
    detect = _detect_module(path)

    def loc_float(node) -> bool:
        module = node.name.split("/")[1] if node.name.startswith("/model.") else ""
        return module == detect and not head.match(node.name)

    quantize(path, int8_path(path), locator_batches(files, int(size)), loc_float)
    to_runtime_form(int8_path(path))


def quantize_classifier(path: Path, files: list[Path]) -> None:
    """The crop classifier in int8, its final linear layers (Gemm) in float."""
    quantize(path, int8_path(path), classifier_batches(files), lambda n: n.op_type == "Gemm")
    to_runtime_form(int8_path(path))


def quantize_refiner(path: Path, files: list[Path]) -> None:
    """The box refiner in int8, its final linear layers (Gemm) in float; it takes uint8 crops already."""
    import onnxruntime as ort
    size = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_inputs()[0].shape[1]
    quantize(path, int8_path(path), refiner_batches(files, int(size)), lambda n: n.op_type == "Gemm")


def to_runtime_form(path: Path) -> None:
    """scripts/runtime_graph.py in place: a locator's head split; the byte input where the input scale allows."""
    done = runtime_graph(path, path)
    print(f"  {path.name}: {', '.join(done) or 'in the runtime form already'}")


def _detect_module(path: Path) -> str:
    """'model.23': the name of the YOLO Detect module (the last numbered module of the graph)."""
    import onnx
    names = [n.name.split("/")[1] for n in onnx.load(str(path)).graph.node if n.name.startswith("/model.")]
    return max(set(names), key=lambda s: int(s.split(".")[1]))


if __name__ == "__main__":
    sys.exit(main())
