"""Whole tables that look real, read by today's route: every hand, the near hand, the tiles, false violations.

Scenes: tables painted with real tile faces of the HELD-OUT tile sets only (`mjtable.datasets.generate --art real
--split heldout`, mjtable.datasets.realfaces / realtable: faces cut from the chinese_mahjong_detection photos
that no detector trained on, the near seat's won hand laid face up, real table patches, clutter, a messaging
app's JPEG), generated once into DATA/bench_tables/<view>_<seed> and read from the image files. Three views:

* portrait seat: a phone held upright at the south seat, 720x1280 (the table across the middle);
* landscape seat: the same held sideways, 1024x576;
* top-down: the table from above, 960x960.

Each table is read as the command line reads it (`mjtable.pipeline`: load_image, locate, review) and, beside it,
with the ground-truth boxes as perfect detections (the layout parser's and referee's own ceiling). Printed per
view: every seat's hand exact (`mjtable.vision.compare.hand_key`: concealed tiles or how many lie face down, melds with
sources, winning tile, flowers), the near seat's ("self") hand exact (and as offered first: by the legal
reading, mjtable.vision.legal, where the rules allow only another reading), tiles found and read right
(ground-truth tiles matched at IoU 0.5 by `mjtable.vision.compare.agnostic_matches`, and with the right kind,
over all ground-truth tiles; and over the near hand's tiles: concealed, winning and melds), the other three
seats' hands exact (of 3 per table), false violations (findings of severity "violation" that the ground-truth
table's review does not have), findings of severity "check", and frames not read.

    python -m scripts.bench_tables [--n 20] [--seed 7707 [7717 ...]] [--views portrait landscape topdown]
        [--data data] [--no-clutter] [--racks] [--workers 2] [--ways runtime regions ...] [--json]

--seed: several seeds read together, their tables totalled (20 tables a view tell a figure to about 2 tables).

--racks: the same tables with a clear plastic rack before most seats' hands (generate --racks), to measure what
racks cost beside the tables without them.

--ways: ways of reading, each on the same frames in one run: runtime (the pipeline's detector), regions (each row
of face-up tiles rectified into a strip and read by the general locator and classifier, vision.regions), regions,
no strips (every face-up tile read by the general classifier where it lies), the view's classifier alone (no
face read by the general classifier too, DetectorConfig.general_px None), general >= N px (general_px N).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# view -> (generator kind, --imgsz, --portrait)
VIEWS = {"portrait": ("seat", 1280, True), "landscape": ("seat", 1024, False), "topdown": ("overhead", 960, False)}
NAMES = {"portrait": "portrait seat view", "landscape": "landscape seat view", "topdown": "top-down"}


def made_as(clutter: bool, portrait: bool, racks: bool = False) -> dict:
    """What generator.json says of scenes this benchmark can use."""
    from mjtable.datasets.generate import LABELS_VERSION
    from mjtable.datasets.realfaces import BANK_VERSION
    from mjtable.datasets.realtable import TABLES_VERSION
    from mjtable.datasets.render import DEFAULT_BOXES
    made = {"labels": LABELS_VERSION, "boxes": DEFAULT_BOXES, "art": "real", "clutter": clutter,
            "portrait": portrait, "split": "heldout", "bank": BANK_VERSION, "tables": TABLES_VERSION}
    return {**made, "racks": True} if racks else made


def ensure_tables(data: Path, view: str, n: int, seed: int, clutter: bool = True, workers: int = 2,
                  racks: bool = False) -> list[Path]:
    """The first n held-out real tables of a view (their ground-truth files), generated when missing or made
    by an older generator or face bank; ``racks``: the same tables with clear racks before the hands, in a
    folder of their own."""
    import shutil
    from mjtable.datasets import generate
    kind, imgsz, portrait = VIEWS[view]
    out = data / "bench_tables" / (f"{view}_{seed}" + ("_racks" if racks else ""))
    try:
        current = json.loads((out / "generator.json").read_text()) == made_as(clutter, portrait, racks)
    except (OSError, ValueError):
        current = False
    gts = sorted((out / "gt").glob("*.json")) if current else []
    if len(gts) < n:
        if out.is_dir():
            shutil.rmtree(out)
        args = ["--out", str(out), "--kind", kind, "--n", str(n), "--seed", str(seed), "--imgsz", str(imgsz),
                "--art", "real", "--split", "heldout", "--workers", str(workers)]
        print(f"generating {n} {NAMES[view]} tables into {out}", file=sys.stderr)
        from contextlib import redirect_stdout
        with redirect_stdout(sys.stderr):            # stdout carries the figures (--json)
            generate.main(args + (["--portrait"] if portrait else []) + (["--clutter"] if clutter else [])
                          + (["--racks"] if racks else []))
        gts = sorted((out / "gt").glob("*.json"))
    return gts[:n]


def read_table(img, detector, gt):
    """(Reading or None when the frame could not be read, detections, the findings before the trust gate) of one
    frame by the command line's route (pipeline.read_image's stages: locate, review, judge)."""
    from mjtable.errors import MjtableError
    from mjtable.pipeline import judge, locate, review
    from mjtable.vision.legal import legal_reading
    try:
        view = locate(img, detector, "auto")
    except MjtableError:
        return None, [], []
    try:
        view.layout.table.rules = "mcr"
        out = review(view.layout.table, gt.situation, "mcr", None, view.layout)
    except MjtableError:
        return None, view.detections, []
    ungated = list(out.findings)
    out.legal = legal_reading(out)
    return judge(out, view, img.shape), view.detections, ungated


def score_table(out, dets, ungated, gt, truth) -> dict:
    """One frame's figures against its ground truth (truth: the ground-truth table's findings; ungated: the
    reading's findings before the trust gate, as the route gave them before it)."""
    from mjtable.vision.compare import agnostic_matches, as_arrays, false_violations, hand_key
    from mjtable.vision.legal import changed_area
    boxes, kinds, conf, gt_boxes, gt_kinds = as_arrays(dets, gt)
    m = agnostic_matches(gt_boxes, boxes, conf)
    hit = [p >= 0 and kinds[p] == k for p, k in zip(m, gt_kinds)]
    near = [o.seat == "self" and (o.group in ("concealed", "winning") or o.group.startswith("meld"))
            for o in gt.objects]
    read = out is not None

    def hand(seat):
        return read and hand_key(out.table.player(seat)) == hand_key(gt.table.player(seat))

    def offered(seat):
        """The seat's hand as the legal reading (offered first) has it, else as read."""
        lg = out.legal if read and out.seat == seat else None
        area = out.table.player(seat) if read else None
        if lg is not None:
            area = changed_area(area, [(c.group, c.was, c.now) for c in lg.changes])
        return read and hand_key(area) == hand_key(gt.table.player(seat))
    return {"every": read and all(hand(p.seat) for p in gt.table.players), "self": hand("self"),
            "self_legal": offered("self"),
            "others": sum(hand(p.seat) for p in gt.table.players if p.seat != "self"),
            "right": sum(hit), "found": int((m >= 0).sum()), "tiles": len(gt.objects), "unread": not read,
            "near_tiles": sum(near), "near_found": sum(bool(n and p >= 0) for n, p in zip(near, m)),
            "near_right": sum(n and h for n, h in zip(near, hit)),
            "false_violations": false_violations(out.findings, truth) if read else 0,
            "false_violations_ungated": false_violations(ungated, truth) if read else 0,
            "checks": sum(f.severity == "check" for f in out.findings) if read else 0}


# ways of reading (--ways): DetectorConfig fields
WAYS = {"runtime": {}, "regions": {"regions": True}, "regions, no strips": {"regions": "crops"},
        "view's classifier alone": {"general_px": None}, "backs unread": {"face_back_p": None},
        **{f"general >= {px} px": {"general_px": float(px)} for px in (20, 28, 32)}}


def run_view(gts: list[Path], detectors: dict) -> dict:
    """Totals of score_table over a view's tables, for each detector (way of reading: detector) and for the
    ground-truth boxes; the median ms per frame of each way."""
    from mjtable.datasets.ground_truth import from_json
    from mjtable.vision.compare import FixedDetector
    from mjtable.pipeline import load_image, review
    from mjtable.vision.types import Detection
    tot = {w: Counter() for w in [*detectors, "gt boxes"]}
    px, ms = [], {w: [] for w in detectors}
    for g in gts:
        gt = from_json(g.read_text())
        truth = review(gt.table, gt.situation, "mcr").findings
        img = load_image(g.parent.parent / "images" / gt.image)
        boxes = FixedDetector([Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects])
        for name, det in [*detectors.items(), ("gt boxes", boxes)]:
            t0 = time.perf_counter()
            out, dets, ungated = read_table(img, det, gt)
            if name in ms:
                ms[name].append((time.perf_counter() - t0) * 1000)
            tot[name].update({k: int(v) for k, v in score_table(out, dets, ungated, gt, truth).items()})
        px += [min(o.box[2] - o.box[0], o.box[3] - o.box[1]) for o in gt.objects if o.seat == "self"
               and o.group in ("concealed", "winning")]
    return {"n": len(gts), **{k: dict(v) for k, v in tot.items()},
            "self_px": statistics.median(px) if px else None,
            "ms_median": {w: statistics.median(v) if v else None for w, v in ms.items()}}


def report(results: dict, seeds: list[int], clutter: bool, racks: bool = False) -> list[str]:
    """The printed table: one block per view, the model's figures beside the ground-truth boxes'."""
    ways = [w for w in next(iter(results.values()))["ms_median"]]
    who_all = ways + ["gt boxes"]
    wide = max(14, *(len(w) + 2 for w in who_all))      # "117/120  98%" and two spaces
    seed = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}, together"
    lines = [f"Real-looking whole tables from held-out tile sets ({seed}{', clutter' if clutter else ''}"
             f"{', clear racks' if racks else ''}; "
             f"MCR; view guessed)", f"{'':30s}" + "".join(f"{w:>{wide}s}" for w in who_all)]
    for view, r in results.items():
        n = r["n"]
        shape = {"portrait": "720x1280", "landscape": "1024x576", "topdown": "960x960"}[view]
        lines.append(f"{NAMES[view]} ({n} tables, {shape}, near hand {r['self_px'] or 0:.0f} px median)")

        def row(label, key, share=True, of=n):
            cells = []
            for who in who_all:
                v = r[who].get(key, 0)
                cells.append(f"{v}/{of} {100 * v / max(of, 1):3.0f}%" if share else f"{v}")
            lines.append(f"  {label:28s}" + "".join(f"{x:>{wide}s}" for x in cells))
        row("every hand exact", "every")
        row("self hand exact", "self")
        row("... legal reading first", "self_legal")
        row("other seats' hands exact", "others", of=3 * n)
        for label, key, of in (("tiles found", "found", "tiles"), ("tiles read right", "right", "tiles"),
                               ("near hand's tiles found", "near_found", "near_tiles"),
                               ("near hand's tiles read right", "near_right", "near_tiles")):
            lines.append(f"  {label:28s}" + "".join(
                f"{100 * r[w].get(key, 0) / max(r[w].get(of, 1), 1):{wide - 1}.1f}%" for w in who_all)
                + f"   (of {r['gt boxes'].get(of, 0)})")
        row("false violations, no gate", "false_violations_ungated", share=False)
        row("false violations", "false_violations", share=False)
        row("'check' findings", "checks", share=False)
        row("frames not read", "unread", share=False)
        lines.append(f"  {'ms per frame (median)':28s}" + "".join(
            f"{r['ms_median'][w] or 0:{wide}.0f}" for w in ways))
    return lines


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20, help="tables per view")
    ap.add_argument("--seed", type=int, nargs="+", default=[7707],
                    help="the tables of each seed, totalled together (--n tables a view of each)")
    ap.add_argument("--views", nargs="+", choices=list(VIEWS), default=list(VIEWS))
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--no-clutter", action="store_true", help="tables without objects beside the tiles")
    ap.add_argument("--racks", action="store_true",
                    help="the same tables with clear plastic racks before the hands (generate --racks), in folders "
                         "of their own")
    ap.add_argument("--workers", type=int, default=2, help="processes generating the tables (once)")
    ap.add_argument("--ways", nargs="+", choices=list(WAYS), default=["runtime"],
                    help="ways of reading measured side by side (regions: DetectorConfig(regions=True))")
    ap.add_argument("--models", type=Path, metavar="DIR",
                    help="also read with the models DIR holds under the committed file names (candidates to "
                         "measure in their place, vision.detector.models_in), beside the ways asked")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    from mjtable.datasets.benchsets import TRAINING_SEEDS
    if a.n <= 0 or set(a.seed) & set(TRAINING_SEEDS) or len(set(a.seed)) < len(a.seed):
        print("bench_tables: --n must be > 0 and each --seed one no training set was made with, given once",
              file=sys.stderr)
        return 2
    try:
        gts = {v: [g for s in a.seed for g in ensure_tables(a.data, v, a.n, s, not a.no_clutter, a.workers, a.racks)]
               for v in a.views}
    except FileNotFoundError as e:          # no shared data to cut the face bank from
        print(f"bench_tables: {e}", file=sys.stderr)
        return 2
    from mjtable.pipeline import load_detector
    from mjtable.vision.detector import DetectorConfig
    detectors = {w: load_detector(config=DetectorConfig(**WAYS[w])) for w in a.ways}
    if a.models is not None:
        from mjtable.vision.detector import models_in
        detectors[f"models in {a.models.name}"] = load_detector(config=DetectorConfig(**models_in(a.models)))
    results = {v: run_view(g, detectors) for v, g in gts.items()}
    print(json.dumps(results) if a.json else "\n".join(report(results, a.seed, not a.no_clutter, a.racks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
