"""scripts/evaluate_table_crops.py: classifiers read a generated table's face-up tiles from their ground-truth
boxes, the near hand apart from the rest, and the flowers and seasons apart again."""
from __future__ import annotations

import json

from mjtable.datasets.generate import main as generate_main
from mjtable.datasets.ground_truth import from_json
from mjtable.scoring import tiles as T
from mjtable.vision.detector_config import CLASSIFIER, SEAT_CLASSIFIER
from scripts import evaluate_table_crops as E


def test_every_face_up_tile_is_read_once_and_the_seat_classifier_reads_its_own_view(tmp_path, capsys):
    out = tmp_path / "tables"
    assert generate_main(["--out", str(out), "--kind", "seat", "--n", "2", "--seed", "11", "--imgsz", "1280",
                          "--workers", "1"]) == 0
    capsys.readouterr()
    faces = near = flowers = 0
    for g in (out / "gt").glob("*.json"):
        objs = [o for o in from_json(g.read_text()).objects
                if o.kind != T.BACK and o.orientation != "face_down" and o.group != "wall"]
        faces += len(objs)
        near += sum(o.seat == "self" and not o.group.startswith("discard") for o in objs)
        flowers += sum(o.kind in T.FLOWERS for o in objs)
    assert E.main([str(out), "--classifier", str(SEAT_CLASSIFIER), str(CLASSIFIER), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["tables"]
    seat, general = res[str(SEAT_CLASSIFIER)], res[str(CLASSIFIER)]
    assert (seat["near_n"], seat["near_n"] + seat["rest_n"]) == (near, faces)
    assert flowers > 0 and seat["flowers_n"] == flowers and 0.0 <= seat["flowers"] <= 1.0
    # rendered seat views are the seat classifier's training material; the close-up reader knows them less well
    assert seat["rest"] > 0.8 and seat["rest"] > general["rest"]


def test_a_missing_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert E.main([str(tmp_path / "none"), "--classifier", str(SEAT_CLASSIFIER)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
