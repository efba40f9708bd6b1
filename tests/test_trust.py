"""A reading that cannot be trusted says so: garbage frames give no violation, a doubtful seat's findings are
checks (no penalty until verified), a finding on a tile count is a check, and a photo that cannot be read says
how to take it again (command line, JSON, audit report, API)."""
import json
import subprocess
from dataclasses import replace
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.errors import UnreadableError
from mjtable.scoring.result import Finding
from mjtable import pipeline
from mjtable.vision.layout import Layout, Placed
from mjtable.vision.trust import (CHECK, DOUBTFUL, SEAT_VIEW_REASON, TRUSTED, UNREADABLE, Trust, frame_reasons, assess,
                                  gate)
from mjtable.vision.types import Detection

ROOT = Path(__file__).resolve().parents[1]
WIN = ROOT / "examples" / "phone_win.jpg"
WIN_GT = ROOT / "examples" / "phone_win.json"


def run(*args):
    return subprocess.run([sys.executable, "-m", "mjtable.launch", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def false_win(tmp_path, doubtful_p=None) -> Path:
    """The bundled photo's ground truth with its winning tile read as 4p (not a win: 错和, 10 to each player),
    and, if asked, one concealed tile read with probability ``doubtful_p``."""
    objs = json.loads(WIN_GT.read_text())["objects"]
    for o in objs:
        if o["group"] == "winning":
            o["kind"] = 12
    if doubtful_p is not None:
        objs[0]["confidence"] = doubtful_p
    path = tmp_path / f"dets_{doubtful_p}.json"
    path.write_text(json.dumps(objs))
    return path


def findings(proc) -> list[dict]:
    return json.loads(proc.stdout)["findings"]


# ---------------------------------------------------------------------------------- a doubtful seat


def test_a_sure_false_win_is_a_violation_and_a_doubtful_one_a_check(tmp_path):
    sure = run(WIN, "--detections", false_win(tmp_path), "--json")
    assert sure.returncode == 5
    assert [(f["kind"], f["severity"]) for f in findings(sure)] == [("false_win", "violation")]
    assert json.loads(sure.stdout)["trust"]["state"] == TRUSTED
    doubt = run(WIN, "--detections", false_win(tmp_path, 0.4), "--json")
    assert doubt.returncode == 5
    (f,) = findings(doubt)
    assert f["severity"] == CHECK
    assert f["penalty"].startswith("no penalty until verified; if confirmed: ")
    assert "read unsurely" in f["message"]
    t = json.loads(doubt.stdout)["trust"]
    assert t["state"] == DOUBTFUL and t["seats"][0]["doubtful"] == 1 and t["advice"]


def test_the_text_and_the_referee_report_say_the_finding_is_to_check(tmp_path):
    text = run(WIN, "--detections", false_win(tmp_path, 0.4))
    assert "[check] false_win" in text.stdout and "1 to check before any penalty" in text.stdout
    assert "Reading: doubtful" in text.stdout and "Retake:" in text.stdout
    out = tmp_path / "report.md"
    rep = run("audit", WIN, "--detections", false_win(tmp_path, 0.4), "--out", out)
    assert rep.returncode == 0, rep.stderr
    md = out.read_text()
    assert "核查 check" in md and "违规 violation" not in md
    assert "The photo was not read surely" in md and "Retake:" in md


# ---------------------------------------------------------------------------------- garbage frames


def _no_violation(proc) -> None:
    """No violation in the JSON printed: a reading's findings, or (no tile found) the reason and advice alone."""
    assert "Traceback" not in proc.stderr
    if proc.stdout.strip():
        got = json.loads(proc.stdout)
        assert "findings" in got or (got["error"] and got["advice"]), got
        assert all(f["severity"] != "violation" for f in got.get("findings", []))


def one_tile(tmp_path) -> Path:
    """One tile of the bundled photo, alone on a plain cloth."""
    img = cv2.imread(str(WIN))
    x1, y1, x2, y2 = (int(round(v)) for v in json.loads(WIN_GT.read_text())["objects"][0]["box"])
    out = np.full((480, 640, 3), (60, 110, 40), np.uint8)
    out[200:200 + y2 - y1, 300:300 + x2 - x1] = img[y1:y2, x1:x2]
    path = tmp_path / "one_tile.png"
    cv2.imwrite(str(path), out)
    return path


def room(tmp_path) -> Path:
    """A room-like frame: a wall, a window, a door, a table edge and a lamp, with noise."""
    rng = np.random.default_rng(7)
    img = np.full((720, 1280, 3), (190, 200, 210), np.uint8)
    cv2.rectangle(img, (80, 60), (420, 360), (230, 220, 200), -1)          # window
    cv2.line(img, (250, 60), (250, 360), (90, 90, 90), 6)
    cv2.rectangle(img, (900, 120), (1100, 640), (40, 70, 120), -1)         # door
    cv2.rectangle(img, (0, 560), (1280, 720), (30, 60, 90), -1)            # table
    cv2.circle(img, (640, 200), 70, (120, 220, 240), -1)                   # lamp
    img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    path = tmp_path / "room.jpg"
    cv2.imwrite(str(path), img)
    return path


def noise(tmp_path) -> Path:
    path = tmp_path / "noise.png"
    cv2.imwrite(str(path), np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8))
    return path


@pytest.mark.parametrize("make", [noise, room, one_tile])
def test_a_garbage_frame_gives_no_violation_and_says_how_to_retake(tmp_path, make):
    proc = run(make(tmp_path), "--json")
    _no_violation(proc)
    assert proc.returncode == 4, proc.stderr
    assert "Retake:" in proc.stderr and proc.stderr.count("\n") == 1


def test_one_sure_tile_from_a_file_is_unreadable_and_its_findings_are_checks(tmp_path):
    obj = json.loads(WIN_GT.read_text())["objects"][4]
    path = tmp_path / "one.json"
    path.write_text(json.dumps([obj]))
    proc = run(WIN, "--detections", path, "--json")
    assert proc.returncode == 4
    assert findings(proc) and all(f["severity"] == CHECK for f in findings(proc))
    assert json.loads(proc.stdout)["trust"]["state"] == UNREADABLE
    assert "too few for a hand" in proc.stderr and "Retake: photograph the whole hand" in proc.stderr


# ---------------------------------------------------------------------------------- the rules of trust


def det(box, kind=0, p=1.0) -> Detection:
    return Detection(box, kind, "upright", p)


def layout(n: int, size: float = 30.0, p: float = 1.0, kind: str = "phone", seat: str = "self",
           wall: int | None = None) -> Layout:
    """``n`` face-up tiles of one seat in a row; a whole table (overhead, seat) also gets a wall of ``wall`` backs
    (default FEW_TABLE_TILES: a table shows four hands, and fewer tiles are no table)."""
    from mjtable.scoring.tiles import BACK
    from mjtable.vision.trust import FEW_TABLE_TILES
    placed = [Placed(det((i * size, 0, i * size + size * 0.75, size), i % 9, p), seat, "concealed")
              for i in range(n)]
    if wall is None:
        wall = FEW_TABLE_TILES if kind in ("overhead", "seat") else 0
    placed += [Placed(Detection((i * size, 200, i * size + size * 0.75, 200 + size), BACK, "face_down", 1.0),
                      "across", "wall") for i in range(wall)]
    return Layout(None, placed, kind, 0.0)


def finding(case: str, seat="self") -> Finding:
    return Finding("x", seat, "m", "clause", "pays 10 to each player", "violation", case)


def test_trust_states_from_tiles():
    assert assess(layout(14)).state == TRUSTED
    assert assess(layout(14, p=0.5)).state == DOUBTFUL
    assert assess(layout(14, size=10)).state == DOUBTFUL                   # 7.5 px across
    assert assess(layout(5)).state == UNREADABLE
    assert assess(layout(5, kind="overhead")).state == TRUSTED             # a table's seat may hold few tiles
    seat_view = assess(layout(14), read_as="seat", frame=(720, 1280))
    assert seat_view.state == DOUBTFUL
    assert any("landscape" in a for a in seat_view.advice) and any("near hand" in a for a in seat_view.advice)
    assert assess(Layout(None, [], "overhead", 0.0)) is None


def test_a_stretched_copy_is_read_with_doubt_and_asks_for_the_photo_as_taken():
    """A frame read squeezed back from a copy stretched one way (types.Detections.stretched): every seat is
    doubtful, its findings are checks, and the advice asks for the photo as it was taken."""
    from mjtable.vision.trust import STRETCHED_ADVICE
    t = assess(layout(14), stretched=8.46)
    assert t.state == DOUBTFUL and t.advice[0] == STRETCHED_ADVICE
    assert "stretched 8.5 times one way" in t.seats[0].reasons[0]
    assert [f.severity for f in gate([finding("false_win")], t)] == [CHECK]
    assert assess(layout(14), stretched=1.0).state == TRUSTED


def test_the_detector_says_a_frame_was_stretched_and_the_reading_doubts_it(tmp_path):
    import mjtable
    from mjtable.vision.detector import TileDetector
    img = cv2.imread(str(WIN))
    wide = cv2.resize(img, (img.shape[1] * 7, img.shape[0]), interpolation=cv2.INTER_LINEAR)
    det = TileDetector()
    assert det.detect(img).stretched == 1.0
    found = det.detect(wide)
    assert 4.5 < found.stretched < 10 and len(found) >= 14
    path = tmp_path / "wide.jpg"
    cv2.imwrite(str(path), wide)
    r = mjtable.read(str(path), seat_wind="S")
    assert r.trust.state == DOUBTFUL and "stretched" in r.trust.summary
    assert "send the photo as it was taken" in r.trust.summary
    assert mjtable.read(str(WIN), seat_wind="S").trust.summary.count("stretched") == 0


def test_gate_checks_count_findings_and_doubtful_seats_only():
    sure = assess(layout(14))
    got = gate([finding("false_win"), finding("wrong_tile_count")], sure)
    assert [f.severity for f in got] == ["violation", CHECK]
    assert got[0] == finding("false_win")
    doubtful_other = Trust(DOUBTFUL, "overhead", ("left: tiles 9 px across",), (),
                           assess(layout(14)).seats + assess(layout(14, size=10, seat="left")).seats)
    got = gate([finding("chow_not_from_left", "self"), finding("exposed_tile", "left"),
                finding("too_many_copies", None)], doubtful_other)
    assert [f.severity for f in got] == ["violation", CHECK, CHECK]
    assert all("no penalty until verified" in f.penalty for f in got[1:])
    assert gate([finding("false_win")], None) == [finding("false_win")]       # a typed hand: nothing to doubt


def test_no_tiles_raises_with_retake_advice():
    class Empty:
        def detect(self, img, kind="auto"):
            return []
    with pytest.raises(UnreadableError) as e:
        pipeline.read_image(np.zeros((64, 64, 3), np.uint8), Empty(), pipeline.situation())
    assert e.value.advice and "Retake:" in str(e.value)


def test_the_api_answers_an_unreadable_photo_with_advice(tmp_path):
    from fastapi.testclient import TestClient

    from mjtable.web.app import create_app
    with TestClient(create_app(), base_url="http://localhost") as c:
        r = c.post("/api/read", files={"photo": ("noise.png", noise(tmp_path).read_bytes(), "image/png")})
    assert r.status_code == 422
    assert r.json()["advice"] and "Traceback" not in r.text


def test_json_says_why_and_how_to_retake_a_photo_with_no_tiles(tmp_path):
    """--json printed nothing when no tile was found (the reason on stderr only): a JSON reader had no answer. It
    gets the API's {error, advice}; the exit code and the stderr line stay."""
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    p = run(WIN, "--detections", empty, "--json")
    assert p.returncode == 4 and p.stderr.count("\n") == 1 and "no tiles found" in p.stderr
    got = json.loads(p.stdout)
    assert got["error"] == "no tiles found" and got["advice"] and "from above" in got["advice"][0]
    assert run(WIN, "--detections", empty).stdout == ""                          # text: nothing half-written


def test_the_api_answers_a_photo_of_a_few_tiles_as_the_command_line_does(tmp_path):
    """Three tiles found: the command line says 'could not read the hand' (exit 4) with the advice; the API had
    answered 200 with the reading marked unreadable, where docs/serve.md promises 422 for nothing readable."""
    from fastapi.testclient import TestClient

    from mjtable.web.app import create_app
    objs = json.loads(WIN_GT.read_text())["objects"][:3]
    dets = tmp_path / "three.json"
    dets.write_text(json.dumps(objs))
    cli_run = run(WIN, "--detections", dets)
    assert cli_run.returncode == 4 and "could not read the hand" in cli_run.stderr
    with TestClient(create_app(detector=pipeline.FileDetector(str(dets))), base_url="http://localhost") as c:
        r = c.post("/api/read", files={"photo": ("win.jpg", WIN.read_bytes(), "image/jpeg")})
    assert r.status_code == 422 and "could not read the hand" in r.json()["error"]
    assert r.json()["advice"] and "Traceback" not in r.text


class _FalseWin:
    """The phone example's detections with the winning tile read as 4p (错和), from call 3 on."""

    def __init__(self, p: float):
        from dataclasses import replace
        dets = pipeline.FileDetector(str(WIN_GT)).dets
        win = json.loads(WIN_GT.read_text())["objects"]
        self.dets = [replace(d, kind=12) if o["group"] == "winning" else d for d, o in zip(dets, win)]
        self.dets[0] = replace(self.dets[0], confidence=p)
        self.calls = 0

    def detect(self, img, kind="auto"):
        self.calls += 1
        return [] if self.calls <= 2 else list(self.dets)


@pytest.mark.parametrize("p, severity", [(1.0, "violation"), (0.4, CHECK)])
def test_a_live_win_on_a_doubtful_frame_gives_checks(tmp_path, p, severity):
    from fastapi.testclient import TestClient

    from mjtable.web.app import create_app
    from tests.test_web import LOCAL, make_video, sse
    video = make_video(tmp_path / "w.avi", n=5, image=WIN)
    app = create_app(detector=_FalseWin(p), source=str(video), kind="phone", realtime=False)
    with TestClient(app, base_url=LOCAL) as c, c.stream("GET", "/api/events") as r:
        events = sse(r)
    (win,) = [d for k, d in events if k == "win"]
    assert not win["result"]["is_win"]
    assert [f["severity"] for f in win["findings"] if f["kind"] == "false_win"] == [severity]


def test_a_false_win_that_a_legal_reading_mends_is_a_check(tmp_path):
    """A 7s read as 5s at p 0.70 (not doubtful by itself) makes no winning shape; its second choice does: the false
    win rests on that tile, so it is a check, and the seat's reasons name the other reading."""
    dets = json.loads(WIN_GT.read_text())
    i = next(i for i, o in enumerate(dets["objects"]) if o["group"] == "concealed" and o["kind"] == 24)
    path = tmp_path / "d.json"
    dets["objects"][i].update(kind=22, confidence=0.7, candidates=[[22, 0.7], [24, 0.25]])
    path.write_text(json.dumps(dets))
    got = json.loads(run(WIN, "--detections", path, "--seat-wind", "S", "--json").stdout)
    assert got["legal"] is not None
    assert [(f["kind"], f["severity"]) for f in got["findings"]] == [("false_win", CHECK)]
    assert got["trust"]["seats"][0]["reasons"] == ["the rules allow another reading (7s read as 5s (p 0.70))"]
    dets["objects"][i].update(candidates=[[22, 0.7], [0, 0.25]])                 # a second choice that mends nothing
    path.write_text(json.dumps(dets))
    got = json.loads(run(WIN, "--detections", path, "--seat-wind", "S", "--json").stdout)
    assert "legal" not in got and [(f["kind"], f["severity"]) for f in got["findings"]] == [("false_win", "violation")]


def test_exposed_tiles_on_a_table_read_unsurely_anywhere_are_checks():
    """Exposed tiles rest on how the whole table was grouped: a near hand laid face up, read as loose tiles, gives
    them on a seat whose own tiles were read surely. On a table doubtful elsewhere they are checks; on a table
    read surely, and on a photo of one hand, they stay violations."""
    exposed = Finding("exposed_tile", "self", "m", "clause", "pays 10 to each player", "violation", "exposed_tile")
    sure_self = assess(layout(14)).seats
    doubtful_left = assess(layout(14, size=10, seat="left")).seats
    table = Trust(DOUBTFUL, "overhead", ("left: tiles 7 px across",), (), sure_self + doubtful_left)
    got = gate([exposed], table)[0]
    assert got.severity == CHECK and "grouped" in got.message and "the left seat was read unsurely" in got.message
    assert gate([exposed], Trust(TRUSTED, "overhead", seats=sure_self))[0].severity == "violation"
    assert gate([exposed], Trust(DOUBTFUL, "phone", ("left",), (), sure_self + doubtful_left))[0].severity == \
        "violation"


def with_meld(n: int):
    """The trust of an overhead table's seat of 14 tiles whose first ``n`` were read as one meld."""
    lay = layout(14, kind="overhead")
    lay.placed[:n] = [replace(p, group="meld:1") for p in lay.placed[:n]]
    return assess(lay)


def test_a_meld_of_more_tiles_than_a_kong_makes_its_seat_doubtful():
    """A near hand laid face up and read as one 10-tile meld gave a sure 'not a chow, pung or kong' violation:
    no claim exposes more than four tiles, so the seat's grouping is misread and its findings are checks. A
    kong's four tiles stay a meld read surely."""
    ten = with_meld(10)
    assert ten.state == DOUBTFUL and "10 tiles read as one meld" in ten.seats[0].reasons[0]
    got = gate([finding("not_a_set")], ten)[0]
    assert got.severity == CHECK and "grouping is misread" in got.message
    assert with_meld(4).state == TRUSTED
    assert gate([finding("not_a_set")], with_meld(4))[0].severity == "violation"


def test_a_meld_of_fewer_tiles_than_a_chow_makes_its_seat_doubtful():
    """A chow whose middle tile the detector missed was read as the meld [5s 7s] and called 'not a chow, pung or
    kong' on a broadcast frame read surely: no claim exposes fewer than three tiles, so a tile of it was missed
    and the seat's findings are checks. Three tiles stay a meld read surely."""
    two = with_meld(2)
    assert two.state == DOUBTFUL and "2 tile(s) read as one meld" in two.seats[0].reasons[0]
    got = gate([finding("not_a_set")], two)[0]
    assert got.severity == CHECK and "was missed" in got.message
    assert with_meld(1).state == DOUBTFUL
    assert with_meld(3).state == TRUSTED
    assert gate([finding("not_a_set")], with_meld(3))[0].severity == "violation"


def test_a_tile_shown_apart_lying_over_another_is_a_tile_found_twice():
    """A box between two alike discards, half over one of them, was placed as a tile lying face up apart and
    called an exposed tile on a broadcast frame read surely. Tiles on a table lie side by side, so a tile
    'shown' over another's box is one found twice: its seat is doubtful and the finding a check. A tile shown
    beside the others, touching none, stays a violation."""
    def with_exposed(x):
        lay = layout(14, kind="overhead")
        lay.placed.append(Placed(det((x, 0, x + 22.5, 30)), "self", "exposed"))
        return assess(lay)
    over = with_exposed(10.0)                     # 12.5 of its 22.5 px over the first tile
    assert over.state == DOUBTFUL and "lie over another tile" in over.seats[0].reasons[0]
    got = gate([finding("exposed_tile")], over)[0]
    assert got.severity == CHECK and "found twice" in got.message
    apart = with_exposed(14 * 30.0 + 40)
    assert apart.state == TRUSTED
    assert gate([finding("exposed_tile")], apart)[0].severity == "violation"
    edge = with_exposed(14 * 30.0 - 15)            # a third of it over the last tile: the box's edge, not a double
    assert edge.state == TRUSTED


def test_many_violations_at_once_on_a_table_are_checks():
    """Three violations on one table frame read surely: a river read as melds, a hand as exposed tiles; all
    checks. Two stay violations, and so do three on a photo of one hand."""
    table = Trust(TRUSTED, "overhead", seats=assess(layout(14, seat="left")).seats)
    three = [finding("not_a_set", "left"), finding("not_a_set", "left"), finding("exposed_tile", "left")]
    assert {f.severity for f in gate(three, table)} == {CHECK}
    assert "3 violations at once" in gate(three, table)[0].message
    assert {f.severity for f in gate(three[:2], table)} == {"violation"}
    phone = Trust(TRUSTED, "phone", seats=assess(layout(14, seat="left")).seats)
    assert {f.severity for f in gate(three, phone)} == {"violation"}
    from_file = assess(layout(14, kind="overhead", seat="left"))          # boxes from a file say no view
    assert from_file.read_as is None and from_file.table
    assert {f.severity for f in gate(three, from_file)} == {CHECK}


def test_reasons_every_doubtful_seat_shares_are_said_once():
    """A whole table read from a seat makes every seat doubtful for the same reason: the frame's reasons say it
    once, beside each seat's own, and a finding of the whole table names the seats instead of every reason."""
    seats = tuple(replace(s, state=DOUBTFUL, reasons=own + (SEAT_VIEW_REASON,)) for s, own in zip(
        assess(layout(14)).seats + assess(layout(14, seat="left")).seats + assess(layout(14, seat="across")).seats,
        [("2 of 14 tiles read with p under 0.6",), (), ("tiles 9 px across (under 12)",)]))
    layout_doubts = frame_reasons(list(seats), 3)
    assert layout_doubts == ["self: 2 of 14 tiles read with p under 0.6", "across: tiles 9 px across (under 12)",
                             f"every seat: {SEAT_VIEW_REASON}"]
    assert frame_reasons(list(seats[:2]), 3)[-1] == f"self, left: {SEAT_VIEW_REASON}"
    assert frame_reasons([seats[0]], 3) == [f"self: 2 of 14 tiles read with p under 0.6; {SEAT_VIEW_REASON}"]
    table = Trust(DOUBTFUL, "seat", tuple(layout_doubts), (), seats)
    got = gate([finding("too_many_copies", None)], table)[0]
    assert got.severity == CHECK
    assert "the self, left and across seats were read unsurely" in got.message
    assert got.message.count(SEAT_VIEW_REASON) == 0


@pytest.mark.parametrize("kinds, turn_p, state", [((0, 1, 2), (0.7, 0.3, 0.0), DOUBTFUL),
                                                 ((0, 1, 2), (0.1, 0.9, 0.0), TRUSTED),
                                                 ((4, 4, 4), (0.7, 0.3, 0.0), TRUSTED)])
def test_a_chow_whose_sideways_turn_is_doubted_makes_its_seat_doubtful(kinds, turn_p, state):
    """A chow's tile laid sideways says whom it was claimed from; read turned with p under 0.6, a "chow from the
    wrong seat" would rest on it (it was a sure violation). A pung's source gives no such finding."""
    lay = layout(14)
    for i, k in enumerate(kinds):
        d = replace(lay.placed[i].det, kind=k, orientation="sideways" if i == 1 else "upright",
                    orientation_p=turn_p if i == 1 else (1.0, 0.0, 0.0))
        lay.placed[i] = Placed(d, "self", "meld:0", sideways=i == 1)
    t = assess(lay)
    assert t.state == state
    if state == DOUBTFUL:
        assert "claimed from" in t.seats[0].reasons[0]
        assert gate([finding("chow_not_from_left")], t)[0].severity == CHECK


def test_a_whole_table_of_a_few_stray_tiles_is_unreadable():
    """Told it is a table (--kind overhead), six tiles of one seat's melds were read as two seats' exposed tiles and
    called sure violations: a table shows four hands, so a frame with fewer than two hands' tiles is no table."""
    from mjtable.vision.trust import FEW_TABLE_TILES
    few = layout(6, kind="overhead", wall=FEW_TABLE_TILES - 7)
    assert assess(few).state == UNREADABLE and "too few for a table" in assess(few).reasons[0]
    assert gate([finding("exposed_tile")], assess(few))[0].severity == CHECK
    assert assess(layout(6, kind="overhead", wall=FEW_TABLE_TILES - 6)).state == TRUSTED


@pytest.mark.parametrize("second, near", [(0.37, True), (0.05, False)])
def test_an_under_8_hand_that_a_nearly_chosen_tile_makes_a_win_is_a_check(tmp_path, second, near):
    """1p 2p 2p 2p +1p beside the melds scores 7 (错和, a penalty); the second 2p, read at p 0.61, is 1p at 0.37,
    and 1p 1p 2p 2p +1p scores 8. The penalty rests on that tile: a check, with the legal reading offered. A second
    choice the classifier gives 0.05 is no near reading: none is offered, and the seat is doubted only for its
    6z pung, which as a kong would make 8 too (kong_would_win)."""
    dets = json.loads(WIN_GT.read_text())
    for o, kind in zip(dets["objects"][:5], (9, 10, 10, 10, 9)):
        o.update(kind=kind)
    dets["objects"][1].update(confidence=0.61, candidates=[[10, 0.61], [9, second]])
    path = tmp_path / "d.json"
    path.write_text(json.dumps(dets))
    got = json.loads(run(WIN, "--detections", path, "--seat-wind", "W", "--prevalent-wind", "W", "--json").stdout)
    assert [(f["kind"], f["severity"]) for f in got["findings"]] == [("under_minimum", CHECK)]
    assert ("legal" in got) == near
    assert [r.split(" (")[0] for r in got["trust"]["seats"][0]["reasons"]] == \
        ["the rules allow another reading"] * near + ["its pung of 6z makes 8 points as a kong: check for a fourth "
                                                      "tile the reader missed"]
    if "legal" in got:
        assert got["legal"]["why"] == "score under the 8-point minimum" and got["legal"]["result"]["total"] == 8


def test_an_under_8_hand_that_a_pung_read_as_a_kong_makes_a_win_is_a_check(tmp_path):
    """7888s +9s beside 123s, 666z and the concealed 1m kong scores 7 (错和, a penalty), every tile read surely;
    the 6z pung as a kong, its fourth tile missed by the reader (the tile count does not show it), scores 8. The
    penalty rests on a tile no one saw: a check, and the seat says what to verify."""
    dets = json.loads(WIN_GT.read_text())
    for o, kind in zip(dets["objects"][:5], (24, 25, 25, 25, 26)):
        o.update(kind=kind, confidence=0.99)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(dets))
    got = json.loads(run(WIN, "--detections", path, "--seat-wind", "W", "--prevalent-wind", "W", "--json").stdout)
    assert got["result"]["total"] == 7 and "legal" not in got
    assert [(f["kind"], f["severity"]) for f in got["findings"]] == [("under_minimum", CHECK)]
    assert got["trust"]["seats"][0]["reasons"] == ["its pung of 6z makes 8 points as a kong: check for a fourth "
                                                   "tile the reader missed"]
    assert got["trust"]["advice"] == ["lay each kong's four tiles side by side, none covered"]
