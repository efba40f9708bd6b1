"""Reading under the rules: where the tiles as read break the rules (a fifth copy, a declared win without a
winning shape), the likeliest reading that keeps them is offered beside the raw one, in the text and the JSON."""
import dataclasses
import json
from pathlib import Path

from mjtable.scoring.table import PlayerArea
from mjtable import pipeline
from mjtable import cli
from mjtable.vision import legal
from mjtable.pipeline import FileDetector

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PHOTO = str(EXAMPLES / "phone_win.jpg")          # 7889s [123s<] [666z<] [1111m] +8s, seat and round wind W
WIND = ["--seat-wind", "W", "--round-wind", "W", "--self-drawn"]


class _Misread:
    """The bundled photo's ground-truth boxes, every tile sure but the ``group`` tile of kind ``true``, read as
    ``read`` with these candidates."""

    def __init__(self, group, true, candidates):
        self.dets = [dataclasses.replace(d, candidates=((d.kind, 0.99),))
                     for d in FileDetector(str(EXAMPLES / "phone_win.json")).dets]
        i = next(i for i, p in enumerate(_groups()) if p == (group, true))
        self.dets[i] = dataclasses.replace(self.dets[i], kind=candidates[0][0], confidence=candidates[0][1],
                                           candidates=candidates)

    def detect(self, img, kind="auto"):
        return list(self.dets)


def _groups():
    return [(o["group"], o["kind"]) for o in json.loads((EXAMPLES / "phone_win.json").read_text())["objects"]]


def _read(det):
    sit = pipeline.situation(seat_wind="W", round_wind="W", self_drawn=True)
    return pipeline.read_image(pipeline.load_image(PHOTO), det, sit)


def test_a_misread_that_breaks_the_winning_shape_is_offered_its_second_choice():
    r = _read(_Misread("concealed", 24, ((22, 0.7), (24, 0.25), (23, 0.03))))     # 7s read as 5s
    assert not r.result.is_win
    assert r.legal is not None
    assert [(c.was, c.now, c.p_was, c.p_now) for c in r.legal.changes] == [(22, 24, 0.7, 0.25)]
    assert r.legal.result.is_win and r.legal.result.total == 9
    assert r.legal.why == "make no winning shape"
    assert abs(r.legal.odds - 0.25 / 0.7) < 1e-9


def test_a_fifth_copy_is_resolved_by_the_second_choice():
    r = _read(_Misread("winning", 25, ((0, 0.55), (25, 0.4))))          # 8s read as 1m beside a kong of 1m
    assert r.legal.why == "give 5 copies of 1m"
    assert [(c.group, c.was, c.now) for c in r.legal.changes] == [("winning", 0, 25)]
    assert r.legal.hand.winning_tile == 25 and r.legal.result.is_win


def test_a_flower_read_twice_is_resolved():
    area = PlayerArea("self", (24, 25, 25, 26), 0, (), 25, True, (34, 34), declared_win=True)
    sit = pipeline.situation(seat_wind="W", round_wind="W")
    assert legal.broken(area, sit, "mcr") == "give 1f twice"
    assert legal.broken(legal.changed_area(area, [("flower", 34, 35)]), sit, "mcr") != "give 1f twice"


def test_a_hand_tile_is_never_offered_as_a_flower_nor_a_flower_as_a_hand_tile():
    # 7s read as 5s, a flower its second choice: the search tried the flower among the concealed tiles, and a
    # hand holding a flower crashed the copy count; a tile keeps to its family
    r = _read(_Misread("concealed", 24, ((22, 0.6), (36, 0.3), (24, 0.1))))
    assert [(c.was, c.now) for c in r.legal.changes] == [(22, 24)]
    d = dataclasses.replace(FileDetector(str(EXAMPLES / "phone_win.json")).dets[0], kind=35,
                            candidates=((35, 0.5), (24, 0.4), (36, 0.1)))
    assert legal.choices(d) == [(35, 0.5), (36, 0.1)]


def test_a_legal_hand_is_left_alone_and_a_sure_misread_has_nothing_to_offer():
    assert _read(_Misread("concealed", 24, ((24, 0.5), (22, 0.45)))).legal is None       # read right, unsure
    r = _read(_Misread("concealed", 24, ((22, 0.999),)))          # no other kind to try
    assert not r.result.is_win and r.legal is None


def test_the_search_takes_the_likeliest_legal_reading():
    # 7s read as 5s (p 0.5; or 6s 0.3, 7s 0.2): 6889s +8s is no win, 7889s +8s is
    tiles_choices = legal.choices(dataclasses.replace(
        FileDetector(str(EXAMPLES / "phone_win.json")).dets[0], kind=22, candidates=((22, 0.5), (24, 0.3),
                                                                                  (23, 0.15), (21, 0.05))))
    assert tiles_choices == [(22, 0.5), (24, 0.3), (23, 0.15)]                 # TOP kinds, likeliest first
    r = _read(_Misread("concealed", 24, ((22, 0.5), (23, 0.3), (24, 0.2))))
    assert [(c.was, c.now) for c in r.legal.changes] == [(22, 24)]           # 6s would not make a win


def test_cli_text_and_json_name_the_changed_reading(tmp_path, capsys):
    dets = json.loads((EXAMPLES / "phone_win.json").read_text())
    i = next(i for i, o in enumerate(dets["objects"]) if o["group"] == "concealed" and o["kind"] == 24)
    dets["objects"][i].update(kind=22, confidence=0.7, candidates=[[22, 0.7], [24, 0.25]])
    path = tmp_path / "d.json"
    path.write_text(json.dumps(dets))
    assert cli.main([PHOTO, "--detections", str(path), *WIND]) == 5            # not a win as read
    out = capsys.readouterr().out
    assert "Legal reading: 7s read as 5s (p 0.70) would make a winning hand of 9 分" in out
    assert out.rstrip().endswith("; check it")
    cli.main([PHOTO, "--detections", str(path), *WIND, "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["legal"]["changes"] == [{"group": "concealed", "read": "5s", "p_read": 0.7, "legal": "7s",
                                      "p_legal": 0.25}]
    assert d["legal"]["result"]["total"] == 9 and d["result"]["is_win"] is False


def test_detections_files_without_candidates_read_as_before(capsys):
    assert cli.main([PHOTO, "--detections", str(EXAMPLES / "phone_win.json"), *WIND, "--json"]) == 0
    assert "legal" not in json.loads(capsys.readouterr().out)


def test_a_pung_is_tried_as_a_kong_only_where_a_fourth_copy_could_lie_and_only_on_a_frame():
    """Under 8 points with a melded 9s pung beside a concealed kong: as a kong (明暗杠) 678s 2p makes 8, so the 错和
    may rest on a missed tile; 789s 2p holds the fourth 9s itself, so no kong of 9s can lie there. A hand typed in
    notation has no reader to miss a tile."""
    sit = pipeline.situation(seat_wind="W", prevalent_wind="W")
    got = {}
    for text in ("678s2p [345m<] [999s<] [1111z] +2p", "789s2p [345m<] [999s<] [1111z] +2p"):
        r = pipeline.read_notation(text, sit)
        assert [(f.case, f.severity) for f in r.findings] == [("under_minimum", "violation")]
        assert legal.kong_would_win(r) == []                        # typed: no frame
        got[text[:3]] = legal.kong_would_win(dataclasses.replace(r, layout=object()))
    assert got == {"678": [("self", "its pung of 9s makes 8 points as a kong: check for a fourth tile the reader "
                                    "missed")], "789": []}
