"""Benchmark: MCR scoring speed of mjtable.scoring.mcr against the reference engine pymahjonggb on the same hands.

    python -m mjtable.scripts.bench_mcr [--n 20000] [--seed 1]

Single-threaded; prints hands/s and the ratio to the reference for:

* pymahjonggb (C++; its arguments are built before timing);
* mjtable.scoring.mcr cold: every cache empty;
* mjtable.scoring.mcr, the same hands again with the per-hand result cache (``engine._best``) emptied: everything
  keyed on tile contents, readings and fan groups is warm, each hand's result is recomputed. This is the
  line the issue's goal (>= 50,000 hands/s) is measured on, and the script says so beside it;
* mjtable.scoring.mcr, the same hands again with per-hand results cached;
* mjtable.scoring.mcr, *new* hands (the next seed) after the caches were warmed on the first set: what a stream of
  unseen hands gets (about the cold figure: random hands rarely share tile contents).

pymahjonggb is imported here only (benchmark / tests), never by the engine.
"""
from __future__ import annotations

import argparse
import sys
import time

from MahjongGB import MahjongFanCalculator

from mjtable.scoring.mcr import engine, score, shapes
from mjtable.scoring.mcr.randhands import random_hands
from mjtable.scripts.mcr_ref import ref_args

GOAL = 50_000      # hands/s, the goal for the per-hand-results-not-cached line


def clear(shape_caches=True):
    """Empty the per-hand result cache; with ``shape_caches`` also everything keyed on tile multisets."""
    engine._best.cache_clear()
    if shape_caches:
        engine.clear_caches()


def rate(fn, items) -> tuple[float, float]:
    t0 = time.perf_counter()
    for x in items:
        fn(x)
    dt = time.perf_counter() - t0
    return len(items) / dt, dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    hands = random_hands(a.n, a.seed)
    args = [ref_args(h) for h in hands]

    def ref(kw):
        try:
            MahjongFanCalculator(**kw)
        except TypeError:
            pass

    r_ref, _ = rate(ref, args)
    clear()
    r_cold, _ = rate(score, hands)
    clear(shape_caches=False)
    r_shapes, _ = rate(score, hands)
    r_warm, _ = rate(score, hands)
    new_hands = random_hands(a.n, a.seed + 1)
    r_new, _ = rate(score, new_hands)
    goal = f"<- the goal's figure (>= {GOAL:,} hands/s): {'met' if r_shapes >= GOAL else 'NOT met'}"
    print(f"{a.n} random winning hands (seed {a.seed}), single thread")
    print(f"{'engine':58s} {'hands/s':>10s} {'vs reference':>13s}")
    print(f"{'pymahjonggb 1.4 (C++; args prebuilt)':58s} {r_ref:10.0f} {1.0:12.2f}x")
    for name, r, note in (("mjtable.scoring.mcr cold (all caches empty)", r_cold, ""),
                          ("mjtable.scoring.mcr same hands, per-hand results not cached", r_shapes, goal),
                          ("mjtable.scoring.mcr same hands, per-hand results cached", r_warm, ""),
                          (f"mjtable.scoring.mcr new hands (seed {a.seed + 1}), caches warm", r_new, "")):
        print(f"{name:58s} {r:10.0f} {r / r_ref:12.2f}x  {note}".rstrip())
    print(f"distinct hands: {len(set(hands))}; shape cache entries: {shapes.candidates.cache_info().currsize}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
