"""scripts/bench_loose.py: loose tiles at any angle beside a rendered hand, counted apart from the hand's."""
from __future__ import annotations

import json

from mjtable.datasets.benchsets import labels_current
from mjtable.datasets.generate import main as generate_main
from tests.script_run import run_script


def test_bench_loose_counts_the_loose_tiles_apart_from_the_hand(tmp_path):
    p = run_script("bench_loose", "--data", tmp_path, "--n", "2", "--seed", "9201", "--json", timeout=300)
    assert p.returncode == 0, p.stderr
    today = json.loads(p.stdout)["today"]
    assert 8 <= today["loose"] <= 32 and today["hand"] >= 28          # 4-16 loose tiles a photo, 14+ in a hand
    assert today["hand_found"] >= today["hand"] - 2                    # the hand is read as ever
    assert today["loose_right"] <= today["loose_found"] <= today["loose"]
    gts = sorted((tmp_path / "bench_loose_9201" / "gt").glob("*.json"))
    assert len(gts) == 2 and labels_current(tmp_path / "bench_loose_9201", loose=True)


def test_bench_loose_refuses_the_loose_training_seed():
    p = run_script("bench_loose", "--seed", "920", "--n", "1", timeout=120)
    assert p.returncode == 2 and "synth/loose920" in p.stderr and "Traceback" not in p.stderr


def test_scenes_without_loose_tiles_are_not_taken_for_scenes_with_them(tmp_path):
    assert generate_main(["--out", str(tmp_path), "--kind", "phone", "--n", "1", "--workers", "1",
                          "--imgsz", "320"]) == 0
    assert labels_current(tmp_path) and not labels_current(tmp_path, loose=True)
