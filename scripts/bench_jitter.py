"""False violations under box noise: the bundled examples' ground-truth boxes, each moved and resized at random
(a photo's boxes are no better than that), read by the command line's route (pipeline: locate, review, judge)
with and, as the baseline in the same run, without the trust gate. Every tile keeps its kind, read surely: what
is measured is the layout's grouping of tiles a little off their places, and whether the trust gate catches it.

A false violation is a finding of severity "violation" that the example's ground-truth table does not have
(`mjtable.vision.compare.false_violations`). Printed per example and noise level: frames, frames whose every
seat's hand is read as the ground truth has it (`mjtable.vision.compare.hand_key`), frames with a false violation
without and with the gate, and frames with a "check".

    python -m scripts.bench_jitter [--n 40] [--amp 0.12 0.2] [--seed 0]

--amp: how far each box moves, either way along each axis, in units of its short side; it is also grown or
shrunk by up to that share.
"""
from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = (("overhead", "overhead"), ("phone_win", "phone"), ("phone_hand", "phone"))


class _Given:
    def __init__(self, dets):
        self.dets = dets

    def detect(self, img, kind="auto"):
        return self.dets


def jittered(dets, amp: float, rnd: random.Random):
    """Each box moved up to ``amp`` of its short side either way along each axis and grown or shrunk up to
    ``amp``."""
    out = []
    for d in dets:
        x0, y0, x1, y1 = d.box
        w = min(x1 - x0, y1 - y0)
        g = 1 + rnd.uniform(-amp, amp)
        cx, cy = (x0 + x1) / 2 + rnd.uniform(-amp, amp) * w, (y0 + y1) / 2 + rnd.uniform(-amp, amp) * w
        hw, hh = (x1 - x0) / 2 * g, (y1 - y0) / 2 * g
        out.append(replace(d, box=(cx - hw, cy - hh, cx + hw, cy + hh)))
    return out


def read(img, dets, kind: str, sit):
    """(findings before the trust gate, after it, the table read) of one frame by the command line's route; None
    if unread."""
    from mjtable.errors import MjtableError
    from mjtable.pipeline import judge, locate, review
    from mjtable.vision.legal import legal_reading
    try:
        view = locate(img, _Given(dets), kind)
        out = review(view.layout.table, sit, "mcr", None, view.layout)
    except MjtableError:
        return None
    ungated = list(out.findings)
    out.legal = legal_reading(out)
    return ungated, judge(out, view, img.shape).findings, view.layout.table


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40, help="noisy copies of each example per noise level")
    ap.add_argument("--amp", type=float, nargs="+", default=[0.12, 0.2],
                    help="how far each box moves, in units of its short side (and grows or shrinks)")
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    import cv2

    from mjtable.datasets.ground_truth import from_json
    from mjtable.pipeline import FileDetector, review
    from mjtable.vision.compare import false_violations, hand_key
    print(f"Box noise on the bundled examples (seed {a.seed}, {a.n} copies each); MCR default profile")
    print(f"{'example':<12} {'amp':>5} {'frames':>7} {'hands exact':>12} {'FV no gate':>11} {'FV gated':>9} "
          f"{'with checks':>12}")
    for name, kind in EXAMPLES:
        gt = from_json((ROOT / "examples" / f"{name}.json").read_text())
        truth = review(gt.table, gt.situation, "mcr", None).findings
        img = cv2.imread(str(ROOT / "examples" / f"{name}.jpg"))
        dets = list(FileDetector(str(ROOT / "examples" / f"{name}.json")).dets)
        for amp in a.amp:
            rnd = random.Random(f"{a.seed}-{name}-{amp}")
            n = exact = ungated_fv = gated_fv = checks = 0
            for _ in range(a.n):
                got = read(img, jittered(dets, amp, rnd), kind, gt.situation)
                if got is None:
                    continue
                ungated, gated, table = got
                n += 1
                exact += all(hand_key(table.player(p.seat)) == hand_key(p) for p in gt.table.players)
                ungated_fv += false_violations(ungated, truth) > 0
                gated_fv += false_violations(gated, truth) > 0
                checks += any(f.severity == "check" for f in gated)
            print(f"{name:<12} {amp:>5.2f} {n:>7} {exact:>12} {ungated_fv:>11} {gated_fv:>9} {checks:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
