"""Phone photos of one hand: is every tile right, or named doubtful? Today's runtime against calibrated
probabilities and the legal reading, in one run.

Per held-out real set (each skipped when its folder is missing; prepare_real_chinese and prepare_camerash_photos
make them from shared/data, and this script runs them when their folders are missing):

* photos with every face-up tile found (IoU >= 0.5) and read right; photos with every one found and each read
  right or named doubtful; photos with a misread none of which is named doubtful; silent misreads (read wrong
  and not named doubtful); right tiles named doubtful (p < DOUBT, or read as no flower while the flowers together
  get FLOWER_DOUBT: vision.types.is_doubtful; "doubt by p alone" is the baseline without the flowers' rule);
* the same for the photos as taken and for the copies an export stretched one way (read squeezed back, and
  doubted as a whole by the reading's trust, vision.trust), where a set has both;
* the expected calibration error (vision.calibrate.ece) of the probability of the kind read, as the runtime gives
  it today and at a temperature fitted on the OTHER group of held-out sets (the real Chinese photos against the
  Camerash tile sets, whose crops are cut from the set photos: the two never share a tile), so that no figure is
  measured on what it was fitted on; the temperature fitted on all of them is printed for vision.calibrate;
* on rendered phone photos of whole hands never trained on (bench_e2e's scenes, seed 113): hands scored right,
  hands the legal reading (vision.legal) offers another reading for, and of those how many it fixes (the offered
  reading scores as the truth does) and breaks (the hand was scored right as read).

    python -m scripts.bench_phone [--phone 200] [--seed 113] [--json]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision import calibrate as C
from mjtable.datasets.benchsets import WITHOUT
from mjtable.vision.types import DOUBT, likely_flower

ROOT = Path(__file__).resolve().parent.parent
SETS = {"real Chinese photos": "data/cmd/heldout", "Camerash set photos": "data/camerash_photos/heldout",
        "Camerash crops on cloth": "data/camerash/heldout"}
GROUPS = {"real Chinese photos": "cmd", "Camerash set photos": "camerash", "Camerash crops on cloth": "camerash"}
CAL_LIMIT = 0.8             # a doubt limit for calibrated probabilities, measured beside the runtime's DOUBT
PREPARE = {"data/cmd/heldout": "prepare_real_chinese", "data/camerash/heldout": "prepare_real_chinese",
           "data/camerash_photos/heldout": "prepare_camerash_photos"}


@dataclass
class Tile:
    """One labelled face-up tile as the runtime read it: its true kind, the kind read, the classifier's raw
    kind probabilities (43,) and the view its frame was read as."""
    truth: int
    read: int
    probs: np.ndarray
    view: str
    stretched: bool = False      # its photo was a copy stretched one way, read squeezed back (images.unstretch)


class Recorder:
    """Wraps a detector's _detections to keep the raw kind probabilities (43,) of each detection it makes, found
    again by the detection's candidates (which a photo read turned level keeps as its box is mapped back)."""

    def __init__(self, det):
        self.det, self.rows = det, {}
        self._make = det._detections
        det._detections = self

    def __call__(self, img, boxes, scores, loc_scores, probs, orient):
        out = self._make(img, boxes, scores, loc_scores, probs, orient)
        self.rows.update({d.candidates: p for d, p in zip(out, probs)})
        return out

    def probs_of(self, d) -> np.ndarray:
        return self.rows[d.candidates]


def photo_tiles(rec: Recorder, img: np.ndarray, gt_boxes: np.ndarray, gt_kinds: np.ndarray) -> list:
    """The Tiles of one photo's labelled face-up tiles (None for one not found or read as a back)."""
    from mjtable.vision.compare import matched
    from mjtable.vision.images import unstretch
    img, sx, sy = unstretch(img)
    rec.rows = {}
    dets = rec.det.detect(img)
    match = matched(np.asarray(gt_boxes, np.float64).reshape(-1, 4) * [sx, sy, sx, sy], dets)
    out = []
    for m, k in zip(match, gt_kinds):
        if k == T.BACK:
            continue
        if m < 0 or dets[m].kind == T.BACK:
            out.append(None)
            continue
        out.append(Tile(int(k), dets[m].kind, rec.probs_of(dets[m]), dets.read_as, sx * sy != 1.0))
    return out


def set_photos(rec: Recorder, folder: Path) -> list[list]:
    from mjtable.vision.evaluate import list_samples
    from mjtable.vision.images import load_image
    from mjtable.vision.labels import read_yolo
    out = []
    for s in list_samples(folder):
        img = load_image(s.image)
        boxes, kinds = read_yolo(s.label, img.shape[1], img.shape[0])
        out.append(photo_tiles(rec, img, boxes, kinds))
    return out


def crop_photos(rec: Recorder, folder: Path) -> list[list]:
    """Each held-out Camerash crop on cloth as a photo of one tile, read as evaluate_crops reads it."""
    from mjtable.vision.evaluate import crops_on_cloth, kind_probs
    from mjtable.vision.labels import read_crop_labels
    out = []
    for img, box, truth in crops_on_cloth(read_crop_labels(folder)):
        p = kind_probs(rec.det, img, box)
        face = np.where(np.arange(len(p)) == T.BACK, -1.0, p)
        out.append([Tile(int(truth), int(face.argmax()), p, "phone")])
    return out


def collect(det, sets: dict[str, Path]) -> dict[str, list[list]]:
    rec = Recorder(det)
    return {name: crop_photos(rec, f) if (f / "labels.csv").exists() else set_photos(rec, f)
            for name, f in sets.items()}


def tile_arrays(photos: list[list], t: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probability of the kind read at temperature t, read right, read as no flower while the flowers together
    get FLOWER_DOUBT or more at t) of every found tile of the photos."""
    tiles = [x for ph in photos for x in ph if x is not None]
    if not tiles:
        return np.zeros(0), np.zeros(0, bool), np.zeros(0, bool)
    p = C.scale(np.stack([x.probs for x in tiles]), t)
    read = np.array([x.read for x in tiles])
    flowerish = np.vectorize(likely_flower, otypes=[bool])(read, p[:, T.FLOWERS[0]:T.FLOWERS[-1] + 1].sum(1))
    return p[np.arange(len(tiles)), read], read == np.array([x.truth for x in tiles]), flowerish


def set_figures(photos: list[list], t: float = 1.0, limit: float = DOUBT, flowers: bool = True) -> dict:
    """Photos every tile right / every tile found and either right or named doubtful (read with p under
    ``limit``, or, with ``flowers``, read as no flower while likely a flower: vision.types.is_doubtful; the
    issue's "every tile right, or named doubtful") / with a silent misread, silent misreads, right tiles named
    doubtful, ECE; the tiles' probabilities at temperature t."""
    conf, right, flowerish = tile_arrays(photos, t)
    doubt = (conf < limit) | (flowerish & flowers)
    every, named, unwarned, i = 0, 0, 0, 0
    for ph in photos:
        n = sum(x is not None for x in ph)
        d, r = doubt[i:i + n], right[i:i + n]
        i += n
        every += n == len(ph) and bool(r.all())
        named += n == len(ph) and bool((r | d).all())
        unwarned += bool(((~r) & ~d).any())
    return {"photos": len(photos), "tiles": int(len(conf)), "wrong": int((~right).sum()),
            "every_tile_right": every, "every_tile_right_or_doubtful": named, "photos_with_silent_misread": unwarned,
            "silent_misreads": int(((~right) & ~doubt).sum()),
            "right_named_doubtful": float((right & doubt).sum() / max(1, right.sum())),
            "ece": C.ece(conf, right), "temperature": t, "limit": limit}


def fit_on(photos: list[list]) -> float:
    tiles = [x for ph in photos for x in ph if x is not None]
    return C.fit_temperature(np.stack([x.probs for x in tiles]), np.array([x.truth for x in tiles])) if tiles else 1.0


def calibration_figures(data: dict[str, list[list]]) -> dict:
    """Per set: today's figures (temperature 1) and those at the temperature fitted on the other group's sets;
    and the temperature fitted on every set (for vision.calibrate.TEMPERATURE)."""
    out = {}
    for name, photos in data.items():
        others = [ph for n, phs in data.items() if GROUPS[n] != GROUPS[name] for ph in phs]
        t = fit_on(others)
        out[name] = {"today": set_figures(photos, 1.0), "doubt by p alone": set_figures(photos, 1.0, flowers=False),
                     "calibrated": set_figures(photos, t),
                     f"calibrated, limit {CAL_LIMIT:g}": set_figures(photos, t, CAL_LIMIT)}
        copy = [any(x is not None and x.stretched for x in ph) for ph in photos]
        if any(copy):              # copies an export stretched one way (their reading says so: vision.trust)
            out[name]["today, photos as taken"] = set_figures([ph for ph, c in zip(photos, copy) if not c], 1.0)
            out[name]["today, stretched copies"] = set_figures([ph for ph, c in zip(photos, copy) if c], 1.0)
    return {"sets": out, "temperature_all": fit_on([ph for phs in data.values() for ph in phs])}


def hand_outcomes(det, gts: list[Path]) -> list[dict]:
    """Per rendered phone scene: scored right as read; whether a legal reading is offered and scores right; the
    milliseconds from frame to reading and of the legal search alone."""
    import time

    from mjtable.datasets.ground_truth import from_json, phone_hand
    from mjtable.scoring.mcr import score
    from mjtable.vision.compare import score_key
    from mjtable.vision.images import load_image
    from mjtable.vision.legal import legal_reading
    from mjtable.pipeline import read_image
    out = []
    for g in gts:
        gt = from_json(g.read_text())
        want = score_key(score(phone_hand(gt), "default"))
        img = load_image(g.parent.parent / "images" / gt.image)
        t0 = time.perf_counter()
        try:
            r = read_image(img, det, gt.situation, "mcr", None, "phone")
        except Exception:            # the command line reports such a frame as an error
            out.append({"right": False, "offered": False, "legal_right": False, "ms": 0.0, "legal_ms": 0.0})
            continue
        ms = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        legal_reading(r)                                 # timed again on its own
        lm = (time.perf_counter() - t1) * 1000
        out.append({"right": score_key(r.result) == want, "offered": r.legal is not None,
                    "legal_right": r.legal is not None and score_key(r.legal.result) == want, "ms": ms,
                    "legal_ms": lm})
    return out


def hand_figures(outcomes: list[dict]) -> dict:
    wrong = [o for o in outcomes if not o["right"]]
    return {"hands": len(outcomes), "right": len(outcomes) - len(wrong),
            "offered": sum(o["offered"] for o in outcomes),
            "fixed": sum(o["legal_right"] for o in wrong),
            "offered_on_wrong_not_fixing": sum(o["offered"] and not o["legal_right"] for o in wrong),
            "broken": sum(o["offered"] for o in outcomes if o["right"]),
            "ms_median": float(np.median([o["ms"] for o in outcomes])) if outcomes else 0.0,
            "legal_ms_max": max((o["legal_ms"] for o in outcomes), default=0.0)}


def ensure_sets(sets: dict[str, Path]) -> dict[str, Path]:
    """The sets whose folders are there, after running the prepare scripts for those missing."""
    for name, folder in sets.items():
        rel = folder.relative_to(ROOT).as_posix() if folder.is_relative_to(ROOT) else ""
        if not folder.exists() and rel in PREPARE:
            subprocess.run([sys.executable, "-m", f"scripts.{PREPARE[rel]}"], cwd=ROOT, check=False,
                           stdout=subprocess.DEVNULL)
    found = {n: f for n, f in sets.items() if (f / "images").is_dir()}
    for n in sets.keys() - found.keys():
        print(f"bench_phone: {sets[n]} not found, skipped", file=sys.stderr)
    return found


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--phone", type=int, default=200, help="rendered phone photos for the whole-hand figures")
    ap.add_argument("--seed", type=int, default=113)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--without", nargs="+", choices=sorted(WITHOUT), default=[],
                    help="also measure the detector without these parts (bench_e2e's), in the same run")
    ap.add_argument("--models", type=Path, metavar="DIR",
                    help="also measure the models DIR holds under the committed file names (candidates in their "
                         "place, vision.detector.models_in), in the same run")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    from mjtable.datasets.benchsets import TRAINING_SEEDS, ensure_scenes
    from mjtable.vision.detector import DetectorConfig, TileDetector, models_in
    if a.phone and a.seed in TRAINING_SEEDS:
        print(f"bench_phone: seed {a.seed} made the training set {TRAINING_SEEDS[a.seed]}", file=sys.stderr)
        return 2
    sets = ensure_sets({k: ROOT / v for k, v in SETS.items()})
    out = calibration_figures(collect(TileDetector(), sets))
    gts = ensure_scenes(a.data / f"bench_phone_{a.seed}", "phone", a.phone, a.seed) if a.phone > 0 else []
    out["hands"] = hand_figures(hand_outcomes(TileDetector(), gts)) if gts else None   # without the recorder
    out["others"] = {}
    others = [(f"without {part}", DetectorConfig(**{WITHOUT[part][0]: None})) for part in a.without]
    if a.models is not None:
        others.append((f"models in {a.models.name}", DetectorConfig(**models_in(a.models))))
    for how, config in others:                           # beside today's, on the same photos in the same run
        data = collect(TileDetector(config), sets)
        for name, photos in data.items():
            out["sets"][name][how] = set_figures(photos, 1.0)
        out["others"][how] = hand_figures(hand_outcomes(TileDetector(config), gts)) if gts else None
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        show(out, a.seed)
    return 0


def show(out: dict, seed: int) -> None:
    cols = ("photos", "every_tile_right", "every_tile_right_or_doubtful", "photos_with_silent_misread", "tiles",
            "wrong", "silent_misreads", "right_named_doubtful", "ece", "temperature")
    heads = ("photos", "all right", "right|doubt", "silent photo", "tiles", "wrong", "silent", "right doubt", "ECE",
             "T")
    print(f"{'held-out set':26s}{'reading':28s}" + "".join(f"{h:>13s}" for h in heads))
    for name, rows in out["sets"].items():
        for how, f in rows.items():
            cells = "".join(f"{f[c]:>13.3f}" if isinstance(f[c], float) else f"{f[c]:>13d}" for c in cols)
            print(f"{name:26s}{how:28s}{cells}")
    print(f"temperature fitted on every held-out set: {out['temperature_all']:.3f} (vision.calibrate.TEMPERATURE)")
    for who, h in [("", out["hands"])] + [(f", {k}", v) for k, v in out["others"].items()]:
        if h:
            print(f"Rendered phone photos (seed {seed}{who}): " + hands_line(h))


def hands_line(h: dict) -> str:
    return (f"{h['right']} of {h['hands']} scored right as read; a legal "
              f"reading offered for {h['offered']}: fixes {h['fixed']} of the {h['hands'] - h['right']} wrong, "
            f"offered on {h['offered_on_wrong_not_fixing']} wrong ones without fixing them, on {h['broken']} "
            f"right ones; {h['ms_median']:.1f} ms per photo (median, frame to reading), legal search at most "
            f"{h['legal_ms_max']:.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
