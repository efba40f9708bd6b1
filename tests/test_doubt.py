"""Doubt shown, not hidden: each tile's probability and next likeliest kinds in the JSON, and the tiles of the
scored hand read with doubt named in the text, the JSON and the referee report."""
import dataclasses
import json
from pathlib import Path

import mjtable
from mjtable.vision import pipeline
from mjtable.vision.pipeline import DOUBT, FileDetector

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class _Unsure:
    """The bundled photo's ground-truth boxes, the classifier sure of every tile but one."""

    def __init__(self, unsure_p: float):
        self.dets = FileDetector(str(EXAMPLES / "phone_win.json")).dets
        self.dets = [dataclasses.replace(d, candidates=((d.kind, 0.99),)) for d in self.dets]
        i = next(i for i, d in enumerate(self.dets) if d.kind == 24)       # the 7s of the concealed row
        self.dets[i] = dataclasses.replace(self.dets[i], candidates=((24, unsure_p), (25, 0.3), (23, 0.05)))

    def detect(self, img, kind="auto"):
        return list(self.dets)


def _read(unsure_p):
    img = pipeline.load_image(str(EXAMPLES / "phone_win.jpg"))
    return pipeline.read_image(img, _Unsure(unsure_p), pipeline.situation(seat_wind="S"))


def test_an_unsure_tile_of_the_hand_is_named_with_its_alternatives():
    r = _read(0.55)
    assert r.result.is_win
    assert [(x.kind, x.group, x.p) for x in r.doubts] == [(24, "concealed", 0.55)]
    assert r.doubts[0].alternatives == ((25, 0.3), (23, 0.05))
    assert "7s (concealed) read with p 0.55; or 8s 0.30, 6s 0.05" == str(r.doubts[0])
    d = r.to_dict()
    assert d["doubtful"] == [{"kind": "7s", "group": "concealed", "p": 0.55,
                              "alternatives": [{"kind": "8s", "p": 0.3}, {"kind": "6s", "p": 0.05}]}]
    tiles = {t["kind"]: t for t in d["tiles"]}
    assert tiles["7s"]["p"] == 0.55 and len(d["tiles"]) == len(r.layout.placed)
    json.dumps(d)


def test_sure_tiles_raise_no_doubt():
    assert DOUBT < 0.99
    assert _read(0.95).doubts == []


def test_cli_text_and_report_say_so(tmp_path, capsys, monkeypatch):
    from mjtable.vision import cli
    monkeypatch.setattr(pipeline, "load_detector", lambda: _Unsure(0.4))
    assert cli.main([str(EXAMPLES / "phone_win.jpg"), "--seat-wind", "S"]) == 0
    assert "Doubtful tile: 7s (concealed) read with p 0.40" in capsys.readouterr().out
    out = tmp_path / "r.html"
    assert cli.main(["audit", str(EXAMPLES / "phone_win.jpg"), "--seat-wind", "S", "--format", "html",
                     "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "存疑牌张 Doubtful tiles" in html and "7s (concealed) read with p 0.40" in html


def test_the_shipped_model_reads_the_bundled_photo_with_its_beliefs():
    r = mjtable.read(str(EXAMPLES / "phone_win.jpg"), seat_wind="S")
    d = r.to_dict()
    assert d["tiles"] and all(0.0 <= t["p"] <= 1.0 for t in d["tiles"])
    assert {t["group"] for t in d["tiles"]} >= {"concealed", "winning"}
    assert all(x["p"] < DOUBT for x in d["doubtful"])
