"""Benchmark: MCR scoring speed of scoring.mcr against the reference engine pymahjonggb on the same hands.

    python scripts/bench_mcr.py [--n 20000] [--seed 1]

Prints hands/s for the reference and for this engine with cold caches, with warm shape caches
(decompositions, waits, chow/pung combinations, per-group fan results — everything keyed on tile multisets
and set structure, not on the whole hand) and with the whole per-hand result cached (the same hands scored
again), plus the ratio to the reference. Single-threaded. pymahjonggb is imported here
only (benchmark / tests), never by the engine.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from MahjongGB import MahjongFanCalculator  # noqa: E402

from scoring.mcr import engine, score, shapes  # noqa: E402
from scoring.mcr.randhands import random_hands  # noqa: E402
from tests.mcr_ref import ref_args  # noqa: E402

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
    print(f"{a.n} random winning hands (seed {a.seed}), single thread")
    print(f"{'engine':44s} {'hands/s':>10s} {'vs reference':>13s}")
    print(f"{'pymahjonggb 1.4 (C++; args prebuilt)':44s} {r_ref:10.0f} {1.0:12.2f}x")
    for name, r in (("scoring.mcr cold (all caches empty)", r_cold),
                    ("scoring.mcr warm shape caches, results not", r_shapes),
                    ("scoring.mcr warm (per-hand result cached)", r_warm)):
        print(f"{name:44s} {r:10.0f} {r / r_ref:12.2f}x")
    print(f"distinct hands: {len(set(hands))}; shape cache entries: {shapes.candidates.cache_info().currsize}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
