"""How often the crop classifier reads single real tile crops right, side by side for several classifiers.

Each labelled crop (Camerash/mahjong-dataset's raw-tiles with tiles-data/data.csv, in shared/data beside the
repository) is pasted at 64 px high on green cloth and its box classified as the runtime classifies a located
box of a photo of a hand (TileDetector.classify, then TileDetector.more_looks). None of these sets was trained
on, so every crop is held out. Prints the share read right overall and per family, for each classifier, in one run.

    python -m scripts.evaluate_crops [--crops DIR] [--classifier A.onnx B.onnx ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mjtable.datasets.camerash import read_crops
from mjtable.vision.detector import CLASSIFIER, DetectorConfig, TileDetector
from mjtable.vision.evaluate import FAMILIES, crops_on_cloth, read_right

ROOT = Path(__file__).resolve().parent.parent
CROPS = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crops", type=Path, default=CROPS)
    ap.add_argument("--classifier", type=Path, nargs="+", default=[CLASSIFIER],
                    help="ONNX classifiers (float; the int8 one beside each is used when there is one)")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if not (a.crops / "tiles-data" / "data.csv").exists():
        print(f"evaluate_crops: no tiles-data/data.csv in {a.crops}", file=sys.stderr)
        return 2
    items = crops_on_cloth(read_crops(a.crops))
    out = {}
    for c in a.classifier:
        det = TileDetector(DetectorConfig(classifier=c, refiner=None))
        out[str(c)] = read_right(det, items)
    if a.json:
        print(json.dumps({c: {k: {"right": r, "total": n} for k, (r, n) in v.items()} for c, v in out.items()}))
        return 0
    print(f"{len(items)} crops; share read right (right / total)")
    print(f"{'classifier':48s} " + " ".join(f"{k:>16s}" for k in (*FAMILIES, "all")))
    for c, v in out.items():
        print(f"{Path(c).name[-48:]:48s} " + " ".join(f"{r / max(n, 1):6.3f} ({r:3d}/{n:3d})" for r, n in
                                           (v[k] for k in (*FAMILIES, "all"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
