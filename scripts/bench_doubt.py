"""Does a wrong reading say so? How well the doubtful tiles the output names catch the detector's mistakes.

A tile read with a probability under DOUBT (vision.types) is named doubtful, and a hand that holds one says so,
so that a user confirms it instead of trusting a wrong score (so is a tile read as no flower while likely some
flower or season, at any threshold: vision.types.doubt_level). This measures, for DOUBT and other thresholds side
by side in one run:

* tiles, on labelled photo sets (each skipped when its folder is missing; see evaluate_real): of the face-up
  tiles found (IoU >= 0.5) and read as the wrong kind, the share named doubtful (caught); of those read right,
  the share named doubtful all the same (false alarms); and the Camerash crops of the held-out tile sets on
  cloth (data/camerash/heldout, read as evaluate_crops reads them);
* whole hands, on rendered phone photos never trained on (bench_e2e's scenes): of the hands scored wrong, those
  that name a doubtful tile or give no winning score (warned: no hand, or "not a win", which a player who
  photographed a finished hand sees is wrong), and those that give a wrong winning score without a word
  (silent); of the hands scored right, those that name a doubtful tile all the same.

With --without PART (bench_e2e's parts, e.g. looks), the detector without that part is measured in the same run
beside the whole one.

    python -m scripts.bench_doubt [--sets DIR ...] [--phone 200] [--seed 113] [--models DIR]
                                  [--without PART ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mjtable.datasets.benchsets import TRAINING_SEEDS, WITHOUT, ensure_scenes
from mjtable.vision.compare import LIMITS, crop_beliefs, hand_figures, score_key, tile_beliefs, tile_figures
from mjtable.vision.types import DOUBT

ROOT = Path(__file__).resolve().parent.parent
SETS = ("data/cmd/heldout", "data/camerash_photos/heldout", "data/synth/test")
CROPS = "data/camerash/heldout"           # the Camerash crops of the held-out tile sets (prepare_real_chinese)


def measure_set(det, folder: Path) -> list[tuple[bool, float]]:
    from mjtable.vision.evaluate import list_samples
    from mjtable.vision.images import load_image
    from mjtable.vision.labels import read_yolo
    out = []
    for s in list_samples(folder):
        img = load_image(s.image)
        boxes, kinds = read_yolo(s.label, img.shape[1], img.shape[0])
        out += tile_beliefs(det.detect(img), boxes, kinds)
    return out


def hand_outcomes(det, gts: list[Path]) -> list[tuple[bool, bool, float]]:
    """(scored right, gave a winning score, the lowest doubt level of a face-up tile of the scored hand: its
    probability, or 0.0 for one likely a flower, pipeline.Doubt.level) per phone scene."""
    from mjtable.datasets.ground_truth import from_json, phone_hand
    from mjtable.scoring.mcr import score
    from mjtable.vision.images import load_image
    from mjtable.pipeline import read_image
    out = []
    for g in gts:
        gt = from_json(g.read_text())
        want = score_key(score(phone_hand(gt), "default"))
        try:
            r = read_image(load_image(g.parent.parent / "images" / gt.image), det, gt.situation, "mcr", None, "auto")
        except Exception:            # the command line reports such a frame as an error: a warning, not a score
            out.append((False, False, 1.0))
            continue
        low = min((x.level for x in r.doubts_under(1.01)), default=1.0)
        out.append((score_key(r.result) == want, r.result is not None and r.result.is_win, low))
    return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=Path, nargs="*", default=[ROOT / s for s in SETS],
                    help="labelled photo folders (images/, labels/ in tile ids)")
    ap.add_argument("--phone", type=int, default=200, help="rendered phone photos for the whole-hand figures")
    ap.add_argument("--seed", type=int, default=113)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--models", type=Path, default=None,
                    help="a folder of models under the committed models' file names, used in their place")
    ap.add_argument("--without", nargs="+", default=[], help="also measure the detector without these parts "
                    "(bench_e2e's --without)")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if any(k not in WITHOUT for k in a.without):
        print(f"bench_doubt: --without takes {', '.join(sorted(WITHOUT))}", file=sys.stderr)
        return 2
    from mjtable.vision.detector import DetectorConfig, TileDetector, models_in
    if a.phone and a.seed in TRAINING_SEEDS:
        print(f"bench_doubt: seed {a.seed} made the training set {TRAINING_SEEDS[a.seed]}", file=sys.stderr)
        return 2
    sets = [f for f in a.sets if (f / "images").is_dir()]
    for f in a.sets:
        if f not in sets:
            print(f"bench_doubt: {f} not found, skipped", file=sys.stderr)
    gts = ensure_scenes(a.data / f"bench_phone_{a.seed}", "phone", a.phone, a.seed) if a.phone > 0 else []
    runs = {"whole detector": {}} | ({"without " + ", ".join(a.without): {WITHOUT[k][0]: None for k in a.without}}
                                     if a.without else {})
    out = {}
    for name, off in runs.items():
        det = TileDetector(DetectorConfig(**{**models_in(a.models), **off}))
        out[name] = {"limits": list(LIMITS), "hands": hand_figures(hand_outcomes(det, gts)) if gts else None,
                     "tiles": {f.resolve().relative_to(ROOT).as_posix() if f.resolve().is_relative_to(ROOT)
                               else str(f): tile_figures(measure_set(det, f)) for f in sets}}
        if (ROOT / CROPS / "labels.csv").exists():
            out[name]["tiles"][CROPS + " (crops on cloth)"] = tile_figures(crop_beliefs(det, ROOT / CROPS))
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    for name, res in out.items():
        print(f"== {name}")
        show(res, a.seed)
    return 0


def show(res: dict, seed: int) -> None:
    head = "".join(f"{'p < ' + format(t, 'g'):>10s}" for t in LIMITS)
    print(f"Tiles named doubtful (probability of the kind read under the limit, or likely a flower; the output's "
          f"limit is {DOUBT:g})")
    print(f"{'set':44s}{'':18s}{head}")
    for name, r in res["tiles"].items():
        for what, n, key in (("misread: caught", r["wrong"], "caught"), ("right: flagged", r["right"], "false_alarm")):
            cells = "".join(f"{'-' if v is None else format(v, '.3f'):>10s}" for v in r[key].values())
            print(f"{name[-44:]:44s}{what:>14s}{n:>5d}{cells}")
    h = res["hands"]
    if h:
        print(f"Whole hands, {h['hands']} rendered phone photos (seed {seed}): {h['right']} scored right, "
              f"{h['wrong']} not")
        print(f"{'':62s}{head}")
        for what, key in (("scored wrong, but warned (doubtful tile, or no win)", "warned"),
                          ("scored wrong without a word", "silent"),
                          ("scored right, a doubtful tile named", "false_alarm")):
            print(f"{what:62s}" + "".join(f"{v:>10d}" for v in h[key].values()))


if __name__ == "__main__":
    sys.exit(main())
