"""Benchmark: MCR scoring speed in process, the scorer against its reference path and pymahjonggb, on the same hands.

    python -m scripts.bench_mcr [--n 20000] [--seed 1]

Single-threaded; prints hands/s and the ratio to pymahjonggb for:

* pymahjonggb (C++; its arguments are built before timing);
* ``mjtable.scoring.mcr.score`` (the fast path, ``fast.py``), every table and cache emptied first;
* the same, on new hands (the next seed): what a stream of unseen hands gets;
* ``engine.score``, the reference path (per-group caches), caches emptied first.

For the side-by-side figures of the issue (whole process and 100,000 unseen hands, results compared hand by hand)
use ``python -m scripts.bench_mcr_oracle``. pymahjonggb is imported here only (benchmark / tests).
"""
from __future__ import annotations

import argparse
import sys
import time

from MahjongGB import MahjongFanCalculator

from mjtable.scoring.mcr import clear_caches, engine, score
from mjtable.scoring.mcr.randhands import random_hands
from mjtable.scoring.mcr.reference import ref_args


def rate(fn, items) -> float:
    t0 = time.perf_counter()
    for x in items:
        fn(x)
    return len(items) / (time.perf_counter() - t0)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    return ap


def main() -> int:
    a = build_parser().parse_args()
    hands = random_hands(a.n, a.seed)
    args = [ref_args(h) for h in hands]

    def ref(kw):
        try:
            MahjongFanCalculator(**kw)
        except TypeError:
            pass

    r_ref = rate(ref, args)
    clear_caches()
    r_cold = rate(score, hands)
    r_new = rate(score, random_hands(a.n, a.seed + 1))
    clear_caches()
    r_engine = rate(engine.score, hands)
    print(f"{a.n} random winning hands (seed {a.seed}), single thread")
    print(f"{'engine':58s} {'hands/s':>10s} {'vs reference':>13s}")
    print(f"{'pymahjonggb (C++; args prebuilt)':58s} {r_ref:10.0f} {1.0:12.2f}x")
    for name, r in (("mjtable.scoring.mcr.score, tables emptied", r_cold),
                    (f"mjtable.scoring.mcr.score, new hands (seed {a.seed + 1})", r_new),
                    ("engine.score (reference path), caches emptied", r_engine)):
        print(f"{name:58s} {r:10.0f} {r / r_ref:12.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
