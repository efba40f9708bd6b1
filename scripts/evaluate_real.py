"""The detector on every held-out set at once, for one or more crop classifiers side by side in one run.

Sets (each skipped with a note when its folder is missing; make them with prepare_real_chinese,
prepare_detector_data and datasets.generate):

* real Chinese photos held out by photo (data/cmd/heldout): mAP50, mAP50-95, class-agnostic recall at IoU 0.5,
  flowers' and seasons' AP50;
* real riichi photos held out by photo (data/real/heldout);
* synthetic scenes never trained on (data/synth/test by default; several folders may be given, e.g. one of
  the phone scenes alone, whose tiles the general classifier reads, while an overhead frame's go to the overhead
  classifier);
* the Camerash set photos held out by set (data/camerash_photos/heldout, prepare_camerash_photos), all and per set;
* the Camerash real crops, read on cloth as the runtime crops a located box: share read right, per family; the
  tile sets held out by prepare_real_chinese (data/camerash/heldout) when that folder exists, otherwise every
  crop of shared/data/chinese_tiles_camerash (right only for classifiers that never trained on them);
* milliseconds per 640x480 phone photo (the bundled example, median of 20, 2 threads).

    python -m scripts.evaluate_real --classifier models/tile_classifier.onnx runs/x/tile_classifier.onnx
    python -m scripts.evaluate_real --locator models/tile_locator.onnx runs/x/tile_locator.onnx

With several locators and classifiers, every pair is measured. The int8 file beside a float model is used when
it is there, as at run time. --root reads the data/ sets of another folder (default: this checkout), --crops
another copy of the Camerash crops.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mjtable.datasets.camerash import read_crops
from mjtable.scoring import tiles as T
from mjtable.vision.detector import CLASSIFIER, LOCATOR, LOOKS, DetectorConfig, TileDetector
from mjtable.vision.evaluate import crops_on_cloth, detector_predictor, evaluate, read_right
from mjtable.vision.images import load_image
from mjtable.vision.labels import read_crop_labels

ROOT = Path(__file__).resolve().parent.parent
CROPS = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"     # every Camerash crop (the shared folder)
EXAMPLE = ROOT / "examples" / "phone_win.jpg"
# set -> (folder, the tile ids its labels use: they are written in tile ids by the prepare scripts)
SETS = {"real Chinese (held out)": ("data/cmd/heldout", T.N_KINDS + 8),      # 34 kinds and 8 flowers, no backs
        "real riichi (held out)": ("data/real/heldout", T.N_KINDS),          # the 34 playing kinds only
        "synthetic": ("data/synth/test", T.N_CLASSES),                  # every kind and backs
        "Camerash photos (held-out sets)": ("data/camerash_photos/heldout", T.N_CLASSES)}
CAMERASH_SETS = "data/camerash_photos/heldout_sets"     # one folder per held-out set: per-set figures
CAMERASH_HELDOUT = "data/camerash/heldout"


def detector_figures(det: TileDetector, folder: Path, n_labelled: int) -> dict:
    """Predictions of kinds the set does not label are dropped (vision.evaluate)."""
    mapping = {t: t for t in range(n_labelled)}
    r = evaluate(folder, mapping, detector_predictor(det), load_image, timed=False).result
    return {"images": r.n_images, "map50": r.map50, "map50_95": r.map50_95, "agnostic_recall50": r.agnostic_recall,
            "flowers_ap50": r.mean_ap50(T.FLOWERS)}


def phone_ms(det: TileDetector, n: int = 20) -> float:
    img = load_image(EXAMPLE)
    det.detect(img)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        det.detect(img)
        times.append(time.perf_counter() - t0)
    return 1000 * float(np.median(times))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--classifier", type=Path, nargs="+", default=[CLASSIFIER])
    ap.add_argument("--locator", type=Path, nargs="+", default=[LOCATOR])
    ap.add_argument("--slice", type=int, nargs="+", default=[0], metavar="PX",
                    help="also read frames larger than PX in overlapping PX windows (vision.slicing; 0: one pass)")
    ap.add_argument("--conf", type=float, default=0.25,
                    help="the locator's confidence threshold (default 0.25, the runtime's; 0.001 as COCO-style AP)")
    ap.add_argument("--only", nargs="+", default=None, metavar="SET", help="measure only sets whose name starts so")
    ap.add_argument("--synth", nargs="+", default=[SETS["synthetic"][0]])
    ap.add_argument("--one-look", action="store_true",
                    help="also measure each model reading every tile in one look (DetectorConfig(looks=None))")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the folder the sets' paths (data/...) are read from (default: this checkout)")
    ap.add_argument("--crops", type=Path, default=CROPS,
                    help="every Camerash crop, read when the held-out crop sets are not prepared")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    sets = {k: v for k, v in SETS.items() if k != "synthetic"}
    for d in sorted((a.root / CAMERASH_SETS).glob("*")):
        sets[f"  set {d.name}"] = (str(d.relative_to(a.root)), T.N_CLASSES)
    for i, folder in enumerate(a.synth):
        sets["synthetic" if i == 0 else f"synthetic {Path(folder).name}"] = (folder, SETS["synthetic"][1])
    if a.only:
        sets = {k: v for k, v in sets.items() if any(k.strip().startswith(o) for o in a.only)}
    want_crops = not a.only or any("Camerash crops".startswith(o) for o in a.only)
    held = a.root / CAMERASH_HELDOUT
    if not want_crops:
        listed, which = [], ""
    elif (held / "labels.csv").exists():
        listed, which = read_crop_labels(held), "held-out sets"
    elif (a.crops / "tiles-data").exists():
        listed, which = read_crops(a.crops), "all"
    else:
        listed, which = [], ""
    crops = crops_on_cloth(listed)
    out: dict = {}
    locators, classifiers, slices = (list(dict.fromkeys(v)) for v in (a.locator, a.classifier, a.slice))
    looks = [LOOKS, None] if a.one_look else [LOOKS]
    pairs = [(loc, c, sl, lk) for loc in locators for c in classifiers for sl in slices for lk in looks]
    single = len(locators) == 1 and len(slices) == 1 and len(looks) == 1    # rows keyed by the classifier alone
    for loc, c, sl, lk in pairs:
        det = TileDetector(DetectorConfig(locator=loc, classifier=c, slice_px=sl or None, conf=a.conf, looks=lk))
        row = {}
        for name, (folder, n_labelled) in sets.items():
            f = a.root / folder
            if (f / "images").exists():
                row[name] = detector_figures(det, f, n_labelled)
        if crops:
            right = read_right(det, crops)
            row["Camerash crops"] = {k: r / n for k, (r, n) in right.items() if n}
            row["Camerash crops"].update(crops=which, n=len(crops), n_flowers=right["flowers"][1])
        row["phone ms"] = phone_ms(det)
        out[str(c) if single else f"{loc} + {c} + slice {sl}" + ("" if lk else " + one look")] = row
    if a.json:
        print(json.dumps(out))
        return 0
    for (loc, c, sl, lk), row in zip(pairs, out.values()):
        named = f"locator {Path(loc).parent.name}/{Path(loc).name}, " if len(locators) > 1 else ""
        sliced = f", slices of {sl} px" if sl else ""
        looked = ", one look at each tile" if a.one_look and not lk else ", more looks" if a.one_look else ""
        print(f"== {named}classifier {Path(c).parent.name}/{Path(c).name}{sliced}{looked}")
        for name, v in row.items():
            if name == "phone ms":
                print(f"  phone photo 640x480: {v:.1f} ms (median of 20)")
            elif name == "Camerash crops":
                print(f"  {name} ({v['crops']}, {v['n']} crops, {v['n_flowers']} flowers): read right "
                      f"{v['all']:.3f}, flowers {v.get('flowers', float('nan')):.3f}, characters "
                      f"{v['characters']:.3f}, dots {v['dots']:.3f}, bamboo {v['bamboo']:.3f}, "
                      f"honours {v['honours']:.3f}")
            else:
                print(f"  {name} ({v['images']} images): mAP50 {v['map50']:.3f}  mAP50-95 {v['map50_95']:.3f}  "
                      f"agnostic recall {v['agnostic_recall50']:.3f}  flowers AP50 {v['flowers_ap50']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
