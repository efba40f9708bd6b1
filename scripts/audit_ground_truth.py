"""Audit generated scenes two ways and print the finding counts side by side.

    python -m scripts.audit_ground_truth [--gt data/synth/test/gt] [--rules mcr|sichuan] [--profile NAME]
                                 [--limit N]

Reference (baseline): the audit run on the ground-truth table state of each scene.
Compared: the audit run on the table state the layout parser rebuilds from the ground-truth boxes
(perfect detection), i.e. what `mjtable audit` would report if the detector made no mistake.
Also prints, as a sanity check, how many scenes place tiles in the ground-truth "exposed" group
(each should give one exposed_tile finding per player concerned).
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from collections import Counter

from mjtable.datasets.ground_truth import from_json
from mjtable.scoring.audit import review
from mjtable.vision.layout import parse
from mjtable.vision.types import Detection


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="data/synth/test/gt")
    ap.add_argument("--rules", default="mcr", choices=["mcr", "sichuan"])
    ap.add_argument("--profile", default=None)
    ap.add_argument("--limit", type=int, default=0)
    return ap


def main() -> int:
    a = build_parser().parse_args()
    files = sorted(glob.glob(os.path.join(a.gt, "*.json")))[: a.limit or None]
    if not files:
        print(f"no ground-truth JSON under {a.gt}", file=sys.stderr)
        return 1
    ref, lay, both = Counter(), Counter(), Counter()
    exposed_players = 0
    same_scenes = 0
    layout_errors = 0
    t0 = time.perf_counter()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            gt = from_json(fh.read())
        exposed_players += sum(bool(p.exposed) for p in gt.table.players)
        r = Counter((gt.kind, x.kind, x.seat) for x in review(gt.table, gt.situation, a.rules, a.profile).findings)
        dets = [Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects]
        try:
            lt = parse(dets, gt.kind).table
            got = Counter((gt.kind, x.kind, x.seat) for x in review(lt, gt.situation, a.rules, a.profile).findings)
        except (ValueError, NotImplementedError):
            layout_errors += 1
            got = Counter()
        same_scenes += r == got
        for k, v in r.items():
            ref[k[:2]] += v
            both[k[:2]] += min(v, got[k])
        for k, v in got.items():
            lay[k[:2]] += v
    dt = time.perf_counter() - t0
    print(f"{len(files)} scenes from {a.gt}, rules {a.rules}/{a.profile or 'default'}, {dt:.1f}s "
          f"({1000 * dt / len(files):.1f} ms/scene incl. layout)")
    print(f"players with ground-truth exposed tiles: {exposed_players}")
    print(f"{'scene kind':10} {'finding':24} {'on GT (baseline)':>17} {'on layout(GT boxes)':>20} {'same seat':>10}")
    for k in sorted(set(ref) | set(lay)):
        print(f"{k[0]:10} {k[1]:24} {ref[k]:17d} {lay[k]:20d} {both[k]:10d}")
    print(f"scenes with identical findings: {same_scenes}/{len(files)}; "
          f"layout errors or not implemented: {layout_errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
