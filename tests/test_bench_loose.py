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


def test_real_photos_count_labelled_and_added_loose_tiles_apart(tmp_path):
    import cv2
    import numpy as np

    from mjtable.vision.compare import FixedDetector
    from mjtable.vision.types import Detection
    from scripts.bench_loose import measure_real
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((200, 400, 3), 90, np.uint8))
    # two labelled tiles (3 = 4m, 12 = 4p), one of them read as another kind; one polygon row, the second tile
    (tmp_path / "labels" / "a.txt").write_text("3 0.1 0.2 0.05 0.2\n12 0.2 0.1 0.25 0.1 0.25 0.3 0.2 0.3\n")
    added = {"a.jpg": ["0 0.8 0.7 0.05 0.2"], "other.jpg": ["0 0.5 0.5 0.1 0.1"]}
    dets = [Detection((30, 20, 50, 60), 3, 0, 0.9), Detection((80, 20, 100, 60), 4, 0, 0.9),
            Detection((310, 120, 330, 160), 5, 0, 0.7), Detection((200, 100, 220, 140), 6, 0, 0.8)]
    c = measure_real(FixedDetector(dets), tmp_path, added)
    assert c == {"labelled": 2, "labelled_found": 2, "labelled_right": 1, "added": 1, "added_found": 1, "extra": 1}
