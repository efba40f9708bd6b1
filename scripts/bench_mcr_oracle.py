"""Benchmark: MCR scoring speed of mjtable against the reference engine pymahjonggb, side by side on the same
freshly generated hands (a new seed each run unless ``--seed`` is given; the seed is printed).

    python -m scripts.bench_mcr_oracle [--seed S] [--process-hands 1000] [--hands 100000] [--runs 5]

* Whole process: the hands are written as JSON lines (``mjtable.scoring.jsonio`` notation form); ``mjtable batch``
  and ``scripts/mcr_gb_batch.py`` (pymahjonggb in a plain Python process that reads the same file) each run as a
  new process, alternately, ``--runs`` times; the best and the median wall time are printed and their ratio.
  Both run with a bytecode cache, as an installed package has one (``PYTHONDONTWRITEBYTECODE`` is dropped and
  ``PYTHONPYCACHEPREFIX`` points into a temporary folder; one untimed run of each fills it), so that neither pays
  for compiling its sources on every start; ``--no-bytecode-cache`` keeps the environment as it is.
* Both also for mjtable's Python path alone (the compiled core switched off), whose output must be the same.
* In process: ``mjtable.scoring.mcr.score`` on ``Hand`` objects and pymahjonggb's ``MahjongFanCalculator`` on its
  prebuilt arguments, over the same ``--hands`` hands, one thread, each keeping its results in a list (as a
  caller collecting them does; what is kept makes Python's garbage collector work for both); hands/s and the
  ratio.

Both engines' results are compared hand by hand: the totals must agree except for the named difference of
``tests/test_mcr_differential.py`` (``fifth_copy_wait``: excused only if the profile switch
``fifth_copy_waits=True`` gives the reference total); fan lists that differ with equal totals (two readings tie)
are counted. The script exits 1 if any other difference is found. Hands that ``mjtable batch`` refuses as an
impossible situation (the situation check of ``mjtable.scoring.situation``; pymahjonggb scores them) are not
drawn: the generator is asked for more.

pymahjonggb is imported only here and in tests, never by the engine.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from MahjongGB import MahjongFanCalculator

from mjtable.scoring.jsonio import hand_to_dict
from mjtable.scoring.mcr import PROFILES, ccore, clear_caches, score
from mjtable.scoring.mcr.randhands import random_hand
from mjtable.scoring.situation import SituationError, check
from mjtable.scoring.mcr.reference import ref_args

GB_BATCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcr_gb_batch.py")
FIFTH = dataclasses.replace(PROFILES["default"], name="default+fifth_copy_waits", fifth_copy_waits=True)


def fresh_hands(n: int, seed: int) -> list:
    """``n`` random winning-shape hands that the batch scorer accepts (no impossible situation)."""
    import random
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        h = random_hand(rng)
        try:
            check(h.situation, "mcr", h, "default")
        except SituationError:
            continue
        out.append(h)
    return out


def compare(hands, mine_totals, mine_fans, ref) -> collections.Counter:
    """Counts: agree, tie_fans (same total, other fans), fifth_copy_wait, not_win_both, other (printed)."""
    out = collections.Counter()
    for h, total, fans, r in zip(hands, mine_totals, mine_fans, ref):
        if r is None:
            out["agree" if not fans else "other"] += 1
            if fans:
                print(f"  differs: {hand_to_dict(h)} mine {total} reference: not a win", file=sys.stderr)
            continue
        if total == r[0]:
            out["agree" if fans == r[1] else "tie_fans"] += 1
        elif score(h, FIFTH).total == r[0]:
            out["fifth_copy_wait"] += 1
        else:
            out["other"] += 1
            print(f"  differs: {hand_to_dict(h)} mine {total} {fans} reference {r}", file=sys.stderr)
    return out


def _ref(kw):
    try:
        fans = MahjongFanCalculator(**kw, verbose=True)
    except TypeError:
        return None
    return sum(v * n for v, n, _, _ in fans), {en: n for _, n, _, en in fans}


def whole_process(hands, runs: int, bytecode_cache: bool = True) -> tuple:
    folder = tempfile.mkdtemp(prefix="bench_mcr_")
    env = dict(os.environ)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
    try:
        path = os.path.join(folder, "hands.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for h in hands:
                f.write(json.dumps(hand_to_dict(h), ensure_ascii=False) + "\n")
        exe = shutil.which("mjtable", path=os.path.dirname(sys.executable)) or shutil.which("mjtable")
        mine_cmd = [exe, "batch"] if exe else [sys.executable, "-m", "mjtable.launch", "batch"]
        gb_cmd = [sys.executable, GB_BATCH, path]
        times = {"mine": [], "gb": [], "python": []}
        outs = {}
        py_env = {**env, "MJTABLE_NO_CCORE": "1"}
        for run in range(runs + bytecode_cache):
            for name, cmd in (("gb", gb_cmd), ("mine", mine_cmd), ("python", mine_cmd)):
                with open(path, "rb") as stdin:
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd, stdin=stdin, capture_output=True, env=py_env if name == "python" else env)
                    if run >= bytecode_cache:           # the first run fills the bytecode cache
                        times[name].append(time.perf_counter() - t0)
                if p.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
                outs[name] = p.stdout.decode("utf-8")
        if outs["python"] != outs["mine"]:
            raise SystemExit("mjtable batch wrote other results with its compiled core switched off")
        mine = [json.loads(line) for line in outs["mine"].splitlines()]
        gb = [json.loads(line) for line in outs["gb"].splitlines()]
        totals = [m["total"] for m in mine]
        fans = [{f["name_en"]: f["count"] for f in m["fans"]} for m in mine]
        ref = [None if g["total"] is None else (g["total"], g["fans"]) for g in gb]
        return times, compare(hands, totals, fans, ref)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def in_process(hands) -> tuple:
    args = [ref_args(h) for h in hands]
    clear_caches()
    t0 = time.perf_counter()
    kept = []                  # both engines keep their results, as a caller collecting them does (the
    for kw in args:            # collector's cost grows with what is kept)
        try:
            kept.append(MahjongFanCalculator(**kw))
        except TypeError:
            kept.append(None)
    t_gb = time.perf_counter() - t0
    del kept
    t0 = time.perf_counter()
    results = [score(h) for h in hands]
    t_mine = time.perf_counter() - t0
    ref = [_ref(kw) for kw in args]
    diff = compare(hands, [r.total for r in results], [{f.name_en: f.count for f in r.fans} for r in results], ref)
    t_py = None
    if ccore.ON:                      # the Python path on the same hands, its results kept as well
        del results
        clear_caches()
        ccore.ON = False
        try:
            t0 = time.perf_counter()
            results = [score(h) for h in hands]
            t_py = time.perf_counter() - t0
        finally:
            ccore.ON = True
    return t_mine, t_gb, t_py, diff


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=None, help="default: a new random seed (printed)")
    ap.add_argument("--process-hands", type=int, default=1000)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="whole-process runs of each engine (alternating)")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="run the processes in the environment as it is (sources compiled on every start if "
                         "PYTHONDONTWRITEBYTECODE is set)")
    return ap


def main() -> int:
    a = build_parser().parse_args()
    seed = secrets.randbelow(2 ** 31) if a.seed is None else a.seed
    print(f"seed {seed} (hands of seed and seed + 1 are new to every test and table; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    bad = 0

    hands = fresh_hands(a.process_hands, seed)
    times, diff = whole_process(hands, a.runs, not a.no_bytecode_cache)
    best = {k: min(v) for k, v in times.items()}
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nwhole process, {len(hands):,} hands, {a.runs} runs each: best / median wall time "
          f"({'with' if not a.no_bytecode_cache else 'environment as it is, maybe without'} a bytecode cache)")
    print(f"  pymahjonggb (scripts/mcr_gb_batch.py)  {best['gb']:6.3f} s / {med['gb']:6.3f} s")
    print(f"  mjtable batch                          {best['mine']:6.3f} s / {med['mine']:6.3f} s")
    print(f"  mjtable batch, Python path only        {best['python']:6.3f} s / {med['python']:6.3f} s"
          "   (MJTABLE_NO_CCORE=1; the same output)")
    ratio_best, ratio_med = best["gb"] / best["mine"], med["gb"] / med["mine"]
    print(f"  ratio pymahjonggb / mjtable            {ratio_best:6.2f}   / {ratio_med:6.2f}   (>= 1: mjtable faster)")
    print(f"  results: {dict(sorted(diff.items()))}")
    bad += diff["other"]

    hands = fresh_hands(a.hands, seed + 1)
    t_mine, t_gb, t_py, diff = in_process(hands)
    print(f"\nin process, {len(hands):,} hands (seed {seed + 1}), one thread, tables as shipped")
    print(f"  pymahjonggb (arguments prebuilt)  {len(hands) / t_gb:10,.0f} hands/s")
    print(f"  mjtable.scoring.mcr.score         {len(hands) / t_mine:10,.0f} hands/s"
          + ("" if ccore.ON else "   (no compiled core: the Python path)"))
    if t_py is not None:
        print(f"  the same, Python path only        {len(hands) / t_py:10,.0f} hands/s")
    print(f"  ratio mjtable / pymahjonggb       {t_gb / t_mine:10.3f}")
    print(f"  results: {dict(sorted(diff.items()))}")
    bad += diff["other"]
    if bad:
        print(f"{bad} unexplained difference(s) from the reference engine (listed on stderr)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
