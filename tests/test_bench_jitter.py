"""scripts/bench_jitter.py: the bundled examples' boxes moved and resized at random, false violations counted
with and without the trust gate."""
from __future__ import annotations

import random

from scripts.bench_jitter import EXAMPLES, jittered
from tests.script_run import run_script


def test_bench_jitter_prints_each_example_with_the_gate_never_worse_than_without():
    p = run_script("bench_jitter", "--n", "3", "--amp", "0.2", timeout=300)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == [name for name, _ in EXAMPLES]
    for name, amp, frames, exact, ungated, gated, checks in rows:
        assert (amp, frames) == ("0.20", "3") and int(gated) <= int(ungated) <= 3 and int(checks) <= 3, name
        assert 0 <= int(exact) <= 3


def test_jitter_moves_each_box_within_its_share_of_a_tile():
    from mjtable.vision.types import Detection
    box = Detection((0.0, 0.0, 20.0, 28.0), 3, "upright", 0.9)
    for d in jittered([box] * 50, 0.2, random.Random(1)):
        cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
        assert abs(cx - 10) <= 4.0 and abs(cy - 14) <= 4.0 and 16 - 1e-9 <= d.box[2] - d.box[0] <= 24 + 1e-9
        assert d.kind == 3 and d.confidence == 0.9
