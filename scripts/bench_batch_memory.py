#!/usr/bin/env python
"""Peak memory and time of `mjtable batch` on a large file of mixed lines.

    python -m scripts.bench_batch_memory [--lines 100000] [--huge-mb 200] [--limit-mb 500]

Writes a temporary file of ``--lines`` lines: mostly valid hands (JSON objects with notation, some with ids and
situations), with bad notation, bad JSON, an impossible hand and a non-object among them, and one huge line of
``--huge-mb`` MB without a newline until its end (as `mjtable batch < /dev/zero` would give). Runs `mjtable batch`
on it in a new process (stdin from the file, stdout to /dev/null) and prints the child's peak resident memory
(``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``), the wall time and the lines per second; exits 1 when the
peak is over ``--limit-mb``. Nothing here is a test; it prints numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

GOOD = ['{"hand": "123m456p789s1z [555z^] +1z"}',
        '{"id": %d, "hand": "23m11z [456p<] [777z^] [2222s>] +1m 15f", "seat_wind": "S"}',
        '{"hand": "19m19p19s1234567z +1m", "self_drawn": true}',
        '{"rules": "sichuan", "hand": "111m234m567m9m [888m^] +9m"}']
BAD = ['{"hand": "123m456p789s1z [555x^] +1z"}',            # bad notation
       '{"hand": "123m456p789s1z [555z^] +1z"',              # bad JSON
       '{"hand": "1111m1111p1111s11z +1m"}',                 # impossible hand
       '[1, 2, 3]',                                          # not an object
       '{"hand": "' + "1" * 5000 + 'm"}']                    # notation too long


def write_input(path: str, lines: int, huge_mb: int) -> int:
    """The mixed lines; returns the number of lines that must come back as errors."""
    bad = 0
    with open(path, "w", encoding="utf-8") as f:
        for n in range(lines):
            if n == lines // 2:                          # one huge line in the middle, written a MB at a time
                for _ in range(huge_mb):                    # (a child forked from a process that held it would
                    f.write("x" * (1 << 20))                # count it in its own peak until it runs batch)
                f.write("\n")
                bad += 1
            elif n % 10 == 9:
                f.write(BAD[(n // 10) % len(BAD)] + "\n")
                bad += 1
            else:
                line = GOOD[n % len(GOOD)]
                f.write((line % n if "%d" in line else line) + "\n")
    return bad


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--huge-mb", type=int, default=200, help="size of the one line without a newline (MB)")
    ap.add_argument("--limit-mb", type=int, default=500, help="exit 1 when the peak is over this")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "hands.jsonl")
        bad = write_input(src, a.lines, a.huge_mb)
        size = os.path.getsize(src)
        out = os.path.join(tmp, "out.jsonl")
        t0 = time.perf_counter()
        with open(src, "rb") as stdin, open(out, "wb") as stdout:
            p = subprocess.run([sys.executable, "-m", "mjtable.launch", "batch"], stdin=stdin, stdout=stdout,
                               stderr=subprocess.PIPE, text=True)
        took = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024      # KB on Linux
        with open(out, encoding="utf-8") as f:
            rows = [json.loads(x) for x in f]
    errors = sum("error" in r for r in rows)
    print(f"input: {a.lines} lines, {size / 2**20:.0f} MB (one line of {a.huge_mb} MB), {bad} bad")
    print(f"mjtable batch: exit {p.returncode}, {len(rows)} records, {errors} errors")
    print(f"peak RSS {peak_mb:.0f} MB (limit {a.limit_mb} MB); {took:.1f} s, {a.lines / took:,.0f} lines/s")
    ok = len(rows) == a.lines and errors == bad and peak_mb <= a.limit_mb
    if not ok:
        print("FAILED: " + ("records or errors do not match the input" if peak_mb <= a.limit_mb
                            else "over the memory limit"), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
