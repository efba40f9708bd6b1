#!/usr/bin/env python
"""Photo to score, end to end, on generated scenes the detector was not trained on.

    python -m scripts.bench_e2e [--phone 200] [--overhead 100] [--seed 20261122] [--data data] [--no-cold]
                        [--overhead-size 1080 640 ...] [--seat N] [--told-kind] [--allow-seen]
                        [--without router vote refiner odd-back overhead-classifier]

Generates (once) DATA/bench_phone_SEED and DATA/bench_overhead_SEED[_SIZE] with mjtable.datasets.generate (the overhead
scenes at each --overhead-size: the same tables, photographed at that resolution), then for every scene,
from the image file (a seed that made a training or validation set, TRAINING_SEEDS, is refused: the generator
makes the same scenes from the same seed, whatever the kind or the size):

* phone photos: is the whole hand exactly right (concealed tiles, melds with their tiles, sideways position and
  source seat, winning tile, flowers), and is the score exactly right (win or not, total, base, every fan and
  count, payments: the score of the hand read from the photo against the score of the ground-truth hand);
* overhead frames, and with --seat whole tables photographed from a seat (read the overhead way): is every seat
  exactly right (tiles in hand, melds with sources, flowers, discards in order,
  exposed tiles), is every seat's hand exactly right (the same without the river and the exposed tiles: the
  issue's "whole hand" of concealed tiles, melds with seats, winning tile, flowers, where the concealed tiles are
  face down and counted), are the referee's findings exactly those of the ground-truth table, and how many
  violations (after the trust gate: findings a referee would act on) the ground-truth table does not bear out;
* milliseconds from the image file to the printed result, in process with the model loaded once (median and
  90th percentile), and one cold run of the command line (a new Python process: imports + model load + all).

The same figures with the ground-truth boxes as perfect detections are printed side by side: the layout
parser's own ceiling. Nothing here is a test; it prints numbers.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from mjtable.cli import to_text
from mjtable.datasets.benchsets import TRAINING_SEEDS, WITHOUT, ensure_scenes
from mjtable.datasets.ground_truth import from_json, phone_hand
from mjtable.pipeline import read_image
from mjtable.scoring import tiles as T
from mjtable.scoring.audit import review
from mjtable.vision.compare import (FixedDetector, area_key, false_violations, findings_key, hand_key, score_key,
                                    tile_match, wrong_fields)
from mjtable.vision.types import Detection

ROOT = Path(__file__).resolve().parents[1]

GOALS = {"phone": 0.95, "overhead": 0.90, "seat": 0.90, "ms": 100.0}


def run_kind(kind: str, gts: list[Path], detector, told: bool = False) -> dict:
    """told: the scenes' kind is given (as `mjtable --kind`), else guessed from the frame (the default)."""
    from mjtable.vision.images import load_image
    res = {"n": len(gts), "exact": Counter(), "hands": Counter(), "score": Counter(), "ms": [], "ms_gt": [],
           "tiles": Counter(), "fail": [], "why": Counter(), "seat_hands": Counter(), "seat_px": {},
           "false": Counter()}
    overhead = kind in ("overhead", "seat")        # a table shot from a seat reads the overhead way
    told_kind = "overhead" if kind == "seat" else kind
    for g in gts:
        gt = from_json(g.read_text())
        photo = g.parent.parent / "images" / gt.image
        gt_dets = [Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects]
        if overhead:
            truth = review(gt.table, gt.situation, "mcr").findings
            gt_findings = findings_key(truth)
            gt_score = None
        else:
            from mjtable.scoring.mcr import score
            gt_score = score_key(score(phone_hand(gt), "default"))
        runs = [("gt", FixedDetector(gt_dets))] + ([("model", detector)] if detector is not None else [])
        for name, det in runs:
            t0 = time.perf_counter()
            img = load_image(photo)
            try:
                out = read_image(img, det, gt.situation, "mcr", None, told_kind if told else "auto")
                to_text(out)                # the printed result is part of the time
                ok_run = True
            except Exception:               # the CLI would report it; here it is a miss
                out, ok_run = None, False
            ms = (time.perf_counter() - t0) * 1000
            res["ms" if name == "model" else "ms_gt"].append(ms)
            exact = ok_run and all(area_key(out.table.player(p.seat), overhead) == area_key(p, overhead)
                                   for p in gt.table.players)
            if overhead:
                scored = ok_run and findings_key(out.findings) == gt_findings
                res["false"][name] += false_violations(out.findings, truth) if ok_run else 0
            else:
                scored = ok_run and score_key(out.result) == gt_score
            res["exact"][name] += exact
            res["hands"][name] += ok_run and all(hand_key(out.table.player(p.seat)) == hand_key(p)
                                                 for p in gt.table.players)
            res["score"][name] += scored
            if name == "model" and kind == "seat":        # each seat's hand alone, and its tiles' size
                for p in gt.table.players:
                    res["seat_hands"][p.seat] += ok_run and hand_key(out.table.player(p.seat)) == hand_key(p)
                    res["seat_px"].setdefault(p.seat, []).extend(
                        min(o.box[2] - o.box[0], o.box[3] - o.box[1]) for o in gt.objects
                        if o.seat == p.seat and o.kind != T.BACK)
            if name == "model":
                dets = det.detect(img, told_kind if told else "auto")
                n, found, right, extra = tile_match(dets, gt.objects)
                res["tiles"].update(n=n, found=found, right=right, extra=extra)
                if not exact:
                    res["fail"].append(gt.image)
                    for p in gt.table.players:
                        got = out.table.player(p.seat) if ok_run else None
                        res["why"].update(wrong_fields(got, p, overhead) if ok_run else ["error"])
    return res


def pct(a, n):
    return f"{100.0 * a / n:5.1f}%" if n else "   - "


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--phone", type=int, default=200)
    ap.add_argument("--overhead", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold command-line run")
    ap.add_argument("--told-kind", action="store_true",
                    help="tell the parser each scene's kind (mjtable --kind phone/overhead, as a fixed broadcast "
                         "camera would run) instead of letting it guess (the default, --kind auto)")
    ap.add_argument("--without", nargs="+", choices=sorted(WITHOUT), default=[],
                    help="measure the detector without these parts: " + "; ".join(f"{k}: {v[1]}"
                                                                                for k, v in WITHOUT.items()))
    ap.add_argument("--seat", type=int, default=0,
                    help="tables photographed from a seat (1280x720, far tiles small; generator kind 'seat')")
    ap.add_argument("--seat-portrait", type=int, default=0,
                    help="the same tables photographed with the phone upright (720x1280, the table across its "
                         "middle, tiles smaller; generator --portrait)")
    ap.add_argument("--overhead-size", type=int, nargs="+", default=[1080, 640],
                    help="overhead frame sizes in pixels, each measured on the same scenes (1080: the table filling "
                         "the height of a 1080p broadcast camera's frame; 640: a low-resolution stream)")
    ap.add_argument("--models", type=Path, default=None,
                    help="a folder of models under the committed models' file names, used in their place")
    ap.add_argument("--regions", choices=("crops", "strips"), default=None,
                    help="read whole tables region by region (DetectorConfig.regions: crops = the general classifier "
                         "on each face-up box, strips = rows rectified and read again)")
    ap.add_argument("--general-px", type=float, default=None,
                    help="on whole tables, read face-up boxes whose shorter side is at least this many px by the "
                         "general classifier (DetectorConfig.general_px)")
    ap.add_argument("--allow-seen", action="store_true",
                    help="measure a seed that made a training or validation set anyway (its scenes are not unseen)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.seed in TRAINING_SEEDS and not a.allow_seen:
        print(f"bench_e2e: seed {a.seed} made the training set {TRAINING_SEEDS[a.seed]}; its scenes are not unseen "
              f"(use another seed, or --allow-seen to measure it anyway)", file=sys.stderr)
        return 2

    try:
        from mjtable.vision.detector import DetectorConfig, TileDetector, models_in
        t0 = time.perf_counter()
        options = {"regions": {"crops": "crops", "strips": True}[a.regions]} if a.regions else {}
        if a.general_px is not None:
            options["general_px"] = a.general_px
        detector = TileDetector(DetectorConfig(**{**models_in(a.models), **{WITHOUT[k][0]: None for k in a.without},
                                                  **options}))
        load_ms = (time.perf_counter() - t0) * 1000
    except Exception as e:
        print(f"no detector model ({e}): only the ground-truth-box ceiling is measured", file=sys.stderr)
        detector, load_ms = None, None

    results = []
    runs = [("phone", a.phone, 640, False)] + [("overhead", a.overhead, size, False) for size in a.overhead_size] + \
        [("seat", a.seat, 1280, False), ("seat", a.seat_portrait, 1280, True)]
    for kind, n, size, portrait in runs:
        if n <= 0:
            continue
        tag = f"bench_{kind}_{a.seed}" + (f"_{size}" if size != 640 else "") + ("_portrait" if portrait else "")
        gts = ensure_scenes(a.data / tag, kind, n, a.seed, size, portrait)
        results.append((kind, size, portrait, run_kind(kind, gts, detector, a.told_kind)))

    cold = None
    if not a.no_cold and detector is not None and a.phone > 0:
        first = sorted((a.data / f"bench_phone_{a.seed}" / "images").glob("*.jpg"))[0]
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mjtable.cli", str(first)], cwd=ROOT, capture_output=True)
        cold = (time.perf_counter() - t0) * 1000

    seen = f"seed {a.seed}, which made {TRAINING_SEEDS[a.seed]}: NOT unseen" if a.seed in TRAINING_SEEDS else \
        f"seed {a.seed}, not used in training"
    print(f"End to end on generated scenes ({seen}); MCR default profile; "
          + ("kind told (--kind phone / overhead)." if a.told_kind else
             "kind guessed (--kind auto).") + "".join(f" Without the {WITHOUT[k][1]}." for k in a.without))
    print(f"{'':34s}{'model':>12s}{'gt boxes':>12s}   goal")
    for kind, size, portrait, r in results:
        n = r["n"]
        sc = "score exact" if kind == "phone" else "findings exact"
        goal = f"   >= {GOALS[kind]:.0%}"
        shape = {"overhead": f"{size}x{size}", "seat": f"{size}x{size * 9 // 16}"}.get(kind, "640x480")
        if portrait:
            shape = f"{size * 9 // 16}x{size}, upright"
        print(f"{kind} ({n} photos, {shape})")
        if kind != "phone":      # the figure: every seat's whole hand; then also the river and exposed
            print(f"  {'every hand exact (no river)':32s}"
                  f"{pct(r['hands']['model'], n) if detector else '   -':>12s}{pct(r['hands']['gt'], n):>12s}{goal}")
        what = "whole hand exact" if kind == "phone" else "every seat exact"
        print(f"  {what:32s}{pct(r['exact']['model'], n) if detector else '   -':>12s}{pct(r['exact']['gt'], n):>12s}"
              + (goal if kind == "phone" else ""))
        print(f"  {sc:32s}{pct(r['score']['model'], n) if detector else '   -':>12s}{pct(r['score']['gt'], n):>12s}")
        if kind != "phone":      # sure violations the table does not bear out (after the trust gate)
            print(f"  {'false violations':32s}{r['false']['model'] if detector else '-':>12}{r['false']['gt']:>12}"
                  "   0")
        if detector:
            med = statistics.median(r["ms"])
            p90 = sorted(r["ms"])[int(0.9 * (len(r["ms"]) - 1))]
            print(f"  {'ms file -> printed (median/p90)':32s}{f'{med:.0f}/{p90:.0f}':>12s}"
                  f"{statistics.median(r['ms_gt']):>11.0f}*   <= {GOALS['ms']:.0f} ms")
            t = r["tiles"]
            print(f"  tiles found {pct(t['found'], t['n'])}, right kind {pct(t['right'], t['n'])}, "
                  f"extra detections {t['extra']} (of {t['n']} tiles)")
            if r["fail"]:
                print(f"  not exact: {', '.join(r['fail'][:8])}{' ...' if len(r['fail']) > 8 else ''}")
                print("  seats read wrong, by part: " + ", ".join(f"{k} {v}" for k, v in r["why"].most_common()))
            if r["seat_px"]:
                print("  hand exact, by seat (median face-up tile px across): " + ", ".join(
                    f"{seat} {pct(r['seat_hands'][seat], n).strip()} ({statistics.median(px):.0f} px)"
                    for seat, px in r["seat_px"].items() if px))
    print("* gt boxes column time = image read + layout + scoring + text, no detector")
    if load_ms is not None:
        print(f"model load (once): {load_ms:.0f} ms")
    if cold is not None:
        print(f"cold command-line run (new process, imports + model load + one phone photo): {cold:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
