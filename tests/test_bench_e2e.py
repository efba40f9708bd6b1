"""The end-to-end benchmark's failure breakdown (scripts/bench_e2e.py, counted by mjtable.vision.compare) and its
generated scenes (mjtable.datasets.benchsets)."""
from __future__ import annotations

import dataclasses

from mjtable.scoring.table import PlayerArea
from mjtable.vision.compare import hand_key, wrong_fields
from tests.script_run import run_script


def test_wrong_fields_names_the_parts_read_wrong():
    want = PlayerArea(seat="right", concealed=None, concealed_face_down=13, discards=(1, 2, 3), exposed=())
    assert wrong_fields(dataclasses.replace(want), want, overhead=True) == []
    got = dataclasses.replace(want, concealed_face_down=12, discards=(1, 3), exposed=(5,))
    assert wrong_fields(got, want, overhead=True) == ["face-down in hand", "discards", "exposed"]
    assert wrong_fields(got, want, overhead=False) == []          # a phone photo shows no river
    assert wrong_fields(None, want, overhead=True) == ["seat not read"]


def test_hand_key_leaves_out_the_river_and_exposed_tiles():
    """The overhead 'every hand exact' figure compares hands only: a wrong river or exposed tile does not count
    against it, a wrong face-down count, meld or flower does."""
    want = PlayerArea(seat="left", concealed=None, concealed_face_down=10, flowers=(34,), discards=(1, 2), exposed=())
    assert hand_key(dataclasses.replace(want, discards=(1,), exposed=(7,))) == hand_key(want)
    assert hand_key(dataclasses.replace(want, concealed_face_down=11)) != hand_key(want)
    assert hand_key(dataclasses.replace(want, flowers=())) != hand_key(want)
    assert hand_key(None) is None


def test_false_violations_are_sure_findings_the_table_does_not_bear_out():
    """A violation counts as false unless the ground-truth table's review has one of its kind on its seat; each
    true one bears out one found; checks and warnings never count."""
    from mjtable.scoring.result import Finding
    from mjtable.vision.compare import false_violations

    def f(kind, seat, severity="violation"):
        return Finding(kind, seat, "m", "clause", "penalty", severity, kind)
    truth = [f("exposed_tile", "left")]
    assert false_violations([f("exposed_tile", "left")], truth) == 0
    assert false_violations([f("exposed_tile", "left"), f("exposed_tile", "left")], truth) == 1
    assert false_violations([f("exposed_tile", "right")], truth) == 1
    assert false_violations([f("illegal_meld", "left", "check"), f("exposed_tile", None, "warning")], truth) == 0
    assert false_violations([f("illegal_meld", "left")], []) == 1


def test_bench_large_photo_reads_a_blown_up_scene(tmp_path):
    """scripts/bench_large_photo.py: the bundled phone photo blown up to 2688x2016 (decoded at half scale) and
    decoded whole, read as its ground truth, beside the original."""
    import shutil
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    d = tmp_path / "bench_phone_1"
    (d / "gt").mkdir(parents=True)
    (d / "images").mkdir()
    shutil.copy(root / "examples" / "phone_win.jpg", d / "images" / "phone_win.jpg")
    shutil.copy(root / "examples" / "phone_win.json", d / "gt" / "phone_win.json")
    p = run_script("bench_large_photo", "--data", tmp_path, "--seed", "1", "--n", "1", "--size", "2688x2016")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.splitlines() if "whole hand exact" in ln]
    assert len(lines) == 3 and all("100.0 %" in ln for ln in lines), p.stdout
    assert "2688x2016, reduced decoding" in p.stdout


def test_bench_refuses_a_seed_that_made_a_training_set():
    """The generator makes the same scenes from the same seed: seed 101 made synth/train2, so its 'benchmark'
    scenes are training scenes, and the benchmark says so instead of measuring them as unseen."""
    from mjtable.datasets.benchsets import TRAINING_SEEDS
    assert 101 in TRAINING_SEEDS and 103 in TRAINING_SEEDS
    r = run_script("bench_e2e", "--seed", "101", "--phone", "0", "--overhead", "0", timeout=120)
    assert r.returncode == 2 and "synth/train2" in r.stderr and "Traceback" not in r.stderr


def test_bench_scenes_labelled_by_an_older_generator_are_made_again(tmp_path):
    """The benchmark caches its generated scenes; a cache the generator did not stamp with its current labels
    version (mjtable.datasets.generate.LABELS_VERSION) is made again, a current one read as it is."""
    import json
    from mjtable.datasets.benchsets import ensure_scenes
    out = tmp_path / "bench_phone_5"
    (out / "gt").mkdir(parents=True)
    (out / "gt" / "phone_5_000000.json").write_text("{}")          # no generator.json: an older generator's
    gts = ensure_scenes(out, "phone", 1, 5, 320)
    assert len(gts) == 1 and json.loads(gts[0].read_text())["objects"]
    assert json.loads((out / "generator.json").read_text())["boxes"] == "whole"
    gts[0].write_text("{}")
    assert ensure_scenes(out, "phone", 1, 5, 320)[0].read_text() == "{}"
