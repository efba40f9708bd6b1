"""Doubt shown, not hidden: each tile's probability and next likeliest kinds in the JSON, and the tiles of the
scored hand read with doubt named in the text, the JSON and the referee report."""
import dataclasses
import json
from pathlib import Path

import mjtable
from mjtable import pipeline
from mjtable.pipeline import DOUBT, FileDetector
from mjtable.vision.types import FLOWER_DOUBT, is_doubtful

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class _Unsure:
    """The bundled photo's ground-truth boxes, the classifier sure of every tile but one."""

    def __init__(self, unsure_p: float, flowers: tuple = ()):
        self.dets = FileDetector(str(EXAMPLES / "phone_win.json")).dets
        self.dets = [dataclasses.replace(d, candidates=((d.kind, 0.99),)) for d in self.dets]
        i = next(i for i, d in enumerate(self.dets) if d.kind == 24)       # the 7s of the concealed row
        self.dets[i] = dataclasses.replace(self.dets[i], candidates=((24, unsure_p), (25, 0.3), (23, 0.05)),
                                           flower=flowers)

    def detect(self, img, kind="auto"):
        return list(self.dets)


def _read(unsure_p, flowers=()):
    img = pipeline.load_image(str(EXAMPLES / "phone_win.jpg"))
    return pipeline.read_image(img, _Unsure(unsure_p, flowers), pipeline.situation(seat_wind="S"))


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
    from mjtable import cli
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
    assert all(x["p"] < DOUBT or x.get("flower_p", 0.0) >= FLOWER_DOUBT for x in d["doubtful"])


def test_a_tile_read_surely_as_no_flower_but_likely_some_flower_is_doubtful():
    """A set's flowers are pictures of its own: an unseen one spreads over the eight flowers and a suit tile
    (a bird read as the 1 of bamboo), each under the kind read. The flowers together at FLOWER_DOUBT or more
    name the tile doubtful however sure its own kind; a tile read as a flower is not doubtful so, and flowers
    together under FLOWER_DOUBT name nothing."""
    likely = ((38, 0.09), (40, 0.07), (35, 0.03), (34, 0.01))                # 0.20 together
    r = _read(0.75, likely)
    assert [(x.kind, x.p, round(x.flower_p, 2)) for x in r.doubts] == [(24, 0.75, 0.2)]
    assert str(r.doubts[0]).endswith("; a flower or season 0.20")
    assert r.to_dict()["doubtful"][0]["flower_p"] == 0.2 and r.doubts[0].level == 0.0
    assert r.trust.seats[0].doubtful == 1
    assert any(x.startswith("1 of 13 tiles read as no flower are likely a flower") for x in r.trust.seats[0].reasons)
    assert _read(0.75, ((38, 0.09), (40, 0.04))).doubts == []                 # 0.13: under FLOWER_DOUBT
    assert not is_doubtful(38, 0.75, 0.95) and is_doubtful(24, 0.75, 0.2) and is_doubtful(24, 0.5, 0.0)
    assert not is_doubtful(24, 0.75, FLOWER_DOUBT - 0.01)


def test_doubts_under_takes_any_limit():
    r = _read(0.75)
    assert r.doubts == [] and [x.p for x in r.doubts_under(0.8)] == [0.75]
    assert len(r.doubts_under(1.01)) == sum(1 for p in r.layout.placed if p.det.kind != 42
                                            and p.seat == r.seat)


def test_more_looks_average_the_reads_of_moved_boxes():
    """TileDetector.more_looks: the first look's probabilities averaged with those of the refined box and of the
    boxes LOOKS moves; a look that is the first one again leaves them as they were."""
    import numpy as np

    from mjtable.vision.crops import look_boxes
    from mjtable.vision.detector import LOOKS, DetectorConfig, TileDetector
    img = pipeline.load_image(str(EXAMPLES / "phone_win.jpg"))
    boxes = np.array([d.box for d in FileDetector(str(EXAMPLES / "phone_win.json")).dets], np.float32)
    still = TileDetector(DetectorConfig(refiner=None, looks=((0, 0, 0),), turned_looks=False))
    first, _ = still.classify(img, boxes)
    assert np.allclose(still.more_looks(img, boxes, first), first, atol=1e-6)
    det = TileDetector(DetectorConfig(refiner=None, turned_looks=False))
    assert det.config.looks == LOOKS
    p = det.more_looks(img, boxes, first)
    moved = [det.classify(img, b)[0] for b in look_boxes(boxes, LOOKS)]
    assert np.allclose(p, (first + sum(moved)) / (1 + len(LOOKS)), atol=1e-6)
    assert np.allclose(p.sum(1), 1, atol=1e-4) and not np.allclose(p, first)
    assert (p.argmax(1) == first.argmax(1)).mean() > 0.9


def test_every_other_look_sees_the_tile_turned_half_round():
    """DetectorConfig.turned_looks (the default): the first, third... of the more looks read each crop turned 180
    degrees, as the classifier reads the photo turned upside down; the orientation is still given relative to the
    image."""
    import numpy as np

    from mjtable.vision.crops import look_boxes
    from mjtable.vision.detector import LOOKS, DetectorConfig, TileDetector
    img = pipeline.load_image(str(EXAMPLES / "phone_win.jpg"))
    boxes = np.array([d.box for d in FileDetector(str(EXAMPLES / "phone_win.json")).dets], np.float32)
    det = TileDetector(DetectorConfig(refiner=None))
    assert det.config.turned_looks
    h, w = img.shape[:2]
    upside_down = np.ascontiguousarray(img[::-1, ::-1])
    flipped = np.stack([w - boxes[:, 2], h - boxes[:, 3], w - boxes[:, 0], h - boxes[:, 1]], 1)
    kinds, orient = det.classify(img, boxes, turned=np.ones(len(boxes), bool))
    kinds_ud, orient_ud = det.classify(upside_down, flipped)
    assert (kinds.argmax(1) == kinds_ud.argmax(1)).mean() > 0.9        # the same crops, up to a pixel's rounding
    plain_kinds, plain_orient = det.classify(img, boxes)
    assert (orient.argmax(1) == plain_orient.argmax(1)).mean() > 0.9   # relative to the image either way
    assert (orient_ud.argmax(1) != plain_orient.argmax(1)).mean() > 0.5   # the photo turned: upside down
    first = plain_kinds
    p = det.more_looks(img, boxes, first)
    moved = [det.classify(img, b, turned=np.full(len(b), i % 2 == 0))[0]
             for i, b in enumerate(look_boxes(boxes, LOOKS))]
    assert np.allclose(p, (first + sum(moved)) / (1 + len(LOOKS)), atol=1e-6)
    plain = TileDetector(DetectorConfig(refiner=None, turned_looks=False)).more_looks(img, boxes, first)
    assert not np.allclose(p, plain, atol=1e-3)


def test_look_boxes_grow_and_move_by_shares_of_the_box():
    import numpy as np

    from mjtable.vision.crops import look_boxes
    b = np.array([[10, 20, 30, 60]], np.float32)            # 20 wide, 40 tall
    grown, moved = look_boxes(b, ((0.1, 0, 0), (0, 0.5, -0.25)))
    assert grown.tolist() == [[8, 16, 32, 64]]
    assert moved.tolist() == [[20, 10, 40, 50]]


def test_more_looks_read_the_refined_boxes_once(monkeypatch):
    """With the refiner, a photo of a hand's first look reads the located boxes and the more looks read the refined
    boxes (the detections' boxes) once, then the boxes LOOKS moves around them; the located boxes are not read
    twice."""
    import numpy as np

    from mjtable.vision.crops import look_boxes
    from mjtable.vision.detector import LOOKS, TileDetector
    img = pipeline.load_image(str(EXAMPLES / "phone_hand.jpg"))     # a hand with a concealed kong's backs
    det = TileDetector()
    assert det.refiner is not None
    seen = []
    real = det.classify
    monkeypatch.setattr(det, "classify", lambda im, boxes, overhead=False, seat=False, turned=None:
                        seen.append(np.array(boxes)) or real(im, boxes, overhead, seat, turned))
    face_up = det.locate_for(img)[0][2] != 1             # the boxes the locator calls face down are not classified
    seen.clear()
    dets = det.detect(img)
    refined = np.array([d.box for d in dets], np.float32)[face_up]
    first, more = seen
    n = len(refined)
    assert 0 < n < len(dets)
    assert first.shape == (n, 4) and more.shape == ((1 + len(LOOKS)) * n, 4)
    assert np.allclose(more[:n], refined, atol=1e-3)
    assert not np.allclose(first, refined, atol=1e-3)           # the refiner moved them: two different looks
    h, w = img.shape[:2]
    assert np.allclose(more[n:], np.clip(look_boxes(refined, LOOKS).reshape(-1, 4), 0, [w, h, w, h]), atol=1e-3)


def test_a_detections_file_carries_the_flowers_probabilities(tmp_path):
    """--detections: a tile's optional "flower" list reaches Detection.flower, so a file read back judges doubt as
    the detector did."""
    items = json.loads((EXAMPLES / "phone_win.json").read_text())
    items = items["objects"] if isinstance(items, dict) else items
    i = next(i for i, o in enumerate(items) if o["kind"] == 24)
    items[i] = {**items[i], "candidates": [[24, 0.8]], "flower": [[38, 0.12], [36, 0.08]]}
    path = tmp_path / "d.json"
    path.write_text(json.dumps(items))
    dets = FileDetector(str(path)).dets
    assert dets[i].flower == ((38, 0.12), (36, 0.08)) and dets[i].doubtful
    assert not any(d.flower for j, d in enumerate(dets) if j != i)
