"""mjtable command line: exit codes, messages, JSON, annotated PNG, atomic outputs, no tracebacks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.scoring.mcr import score as mcr_score
from mjtable.scoring.notation import parse_hand
from mjtable import errors
from mjtable import cli
from tests.layout_scenes import layout_hand, render

ROOT = Path(__file__).resolve().parent.parent
WIN = "23m11z [456p<] [777z^] [2222s>] +1m 15f"          # 11 points with flowers, 9 without
SHORT = "123m456p789s112z +2z"                             # 13 tiles


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("mjtable: error:") and "Traceback" not in err


def _scene(tmp_path, text=WIN, **kw):
    """A blank photo plus detections of the given hand laid out on it (so the CLI runs without a model)."""
    hand = parse_hand(text)
    dets = render(layout_hand(hand), center=(480, 300), scale=30, **kw)
    img = np.full((600, 960, 3), 90, np.uint8)
    for d in dets:
        x1, y1, x2, y2 = (int(v) for v in d.box)
        cv2.rectangle(img, (x1, y1), (x2, y2), (235, 235, 235), -1)
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), img)
    det_file = tmp_path / "dets.json"
    det_file.write_text(json.dumps([{"box": d.box, "kind": d.kind, "orientation": d.orientation,
                                     "confidence": d.confidence} for d in dets]))
    return str(photo), str(det_file)


# ---------------------------------------------------------------------------------------- score


def test_score_text(capsys):
    code, out, err = run(["score", WIN, "--seat-wind", "S"], capsys)
    assert code == 0 and err == ""
    assert "Hand: 23m11z [456p<] [777z^] [2222s>] +1m 15f" in out
    assert "箭刻" in out and "Dragon Pung" in out
    expected = mcr_score(parse_hand(WIN))
    assert f"Total: {expected.total} 分" in out
    assert "discarder" in out and "Audit: no violation found" in out


def test_score_json_matches_engine(capsys):
    code, out, _ = run(["score", WIN, "--json", "--self-drawn", "--seat-wind", "W", "--round-wind", "S"], capsys)
    assert code == 0
    d = json.loads(out)
    from mjtable.scoring.hand import Situation
    from mjtable.scoring import tiles as T
    expected = mcr_score(parse_hand(WIN, Situation(self_drawn=True, seat_wind=T.WEST, prevalent_wind=T.SOUTH)))
    assert d["result"]["total"] == expected.total and d["result"]["is_win"]
    assert d["result"]["payments"] == expected.payments
    assert {f["id"] for f in d["result"]["fans"]} == {f.id for f in expected.fans}
    assert d["hand"]["self_drawn"] is True and d["hand"]["seat_wind"] == "W"
    assert d["findings"] == []


def test_score_sichuan_profile(capsys):
    code, out, err = run(["score", "1112345678999m +1m", "--rules", "sichuan", "--void-suit", "p"], capsys)
    assert code == 0, err
    assert "sichuan / sbr2025" in out and "番" in out


def test_score_wmo2006_profile_self_drawn_thirteen_orphans(capsys):
    """--profile wmo2006: mcr-wmo-2006.txt 3.8.1 7 十三幺 (自摸加计不求人): 88 + 不求人 4 = 92 (default 89)."""
    code, out, err = run(["score", "19m19p19s1234567z +1z", "--self-drawn", "--profile", "wmo2006"], capsys)
    assert code == 0, err
    assert "mcr / wmo2006" in out and "不求人" in out and "Total: 92 分" in out
    code, out, _ = run(["score", "19m19p19s1234567z +1z", "--self-drawn"], capsys)
    assert code == 0 and "Total: 89 分" in out


def test_profile_help_lists_every_profile(capsys):
    from mjtable.scoring.mcr import PROFILES
    from mjtable.scoring.sichuan import PROFILES as SICHUAN
    code, out, _ = run(["score", "--help"], capsys)
    assert code == 0
    out = " ".join(out.split())
    listed = out.split("--profile PROFILE rule profile:", 1)[1].split("--seat-wind", 1)[0]
    assert all(name in listed for name in list(PROFILES) + list(SICHUAN)), listed


@pytest.mark.parametrize("argv,code,words", [
    (["score", "123x"], errors.EXIT_BAD_HAND, "bad notation"),
    (["score", SHORT], errors.EXIT_BAD_HAND, "wrong tile count"),
    (["score", "[345m]"], errors.EXIT_BAD_HAND, "bad notation"),
    (["score", "123m456p789s1122z +2z", "--rules", "sichuan"], errors.EXIT_NOT_WIN, "not a winning hand"),
    (["score", "123m456p789s1357z +2z"], errors.EXIT_NOT_WIN, "not a winning hand"),
    (["score", WIN, "--profile", "nonsense"], errors.EXIT_USAGE, "unknown MCR profile"),
    (["score", WIN, "--seat-wind", "X"], errors.EXIT_USAGE, "--seat-wind: want E, S, W or N, got 'X'"),
    (["score", WIN, "--round-wind", "X"], errors.EXIT_USAGE, "--prevalent-wind: want E, S, W or N, got 'X'"),
    (["score", WIN, "--void-suit", "z", "--rules", "sichuan"], errors.EXIT_USAGE, "--void-suit: want m, p or s"),
    (["score"], errors.EXIT_USAGE, "required"),
    (["--bogus"], errors.EXIT_USAGE, "required: photo"),
    (["x.jpg", "--bogus"], errors.EXIT_USAGE, "unrecognized"),
])
def test_score_bad_input(argv, code, words, capsys):
    got, out, err = run(argv, capsys)
    assert got == code
    assert one_line_error(err), err
    assert words in err


def test_not_a_win_still_prints_the_reason(capsys):
    code, out, err = run(["score", "123m456p789s1357z +2z", "--json"], capsys)
    assert code == errors.EXIT_NOT_WIN
    d = json.loads(out)
    assert d["result"]["is_win"] is False and d["result"]["reason"]
    assert any(f["kind"] == "false_win" for f in d["findings"])


# ---------------------------------------------------------------------------------------- photo


def test_photo_with_detections_scores_and_annotates(tmp_path, capsys):
    photo, dets = _scene(tmp_path, angle=12)
    ann = tmp_path / "out.png"
    code, out, err = run([photo, "--detections", dets, "--annotate", str(ann), "--seat-wind", "S", "-v"], capsys)
    assert code == 0, err
    assert "Hand: 23m11z [456p<] [777z^] [2222s>] +1m 15f" in out and "Time:" in out
    data = ann.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[0] > 600          # photo plus the text panel
    assert sorted(os.listdir(tmp_path)) == ["dets.json", "hand.png", "out.png"]   # no temp file left


def test_photo_json(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    code, out, _ = run([photo, "--detections", dets, "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["kind"] == "phone" and d["seat"] == "self"
    assert d["hand"]["hand"] == WIN
    p = d["players"][0]
    assert [m["sideways"] for m in p["melds"]] == [0, 1, 3]
    assert d["unplaced"] == [] and d["timing_ms"]["layout"] >= 0


@pytest.mark.parametrize("content", [b"", b"this is not an image", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40])
def test_photo_not_an_image(tmp_path, content, capsys):
    p = tmp_path / "x.jpg"
    p.write_bytes(content)
    code, out, err = run([str(p)], capsys)
    assert code == errors.EXIT_INPUT and one_line_error(err) and "not an image" in err
    assert out == ""


def test_photo_truncated_jpeg(tmp_path, capsys):
    img = np.zeros((64, 64, 3), np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    p = tmp_path / "cut.jpg"
    p.write_bytes(buf.tobytes()[:30])
    code, _, err = run([str(p)], capsys)
    assert code == errors.EXIT_INPUT and one_line_error(err)


def test_photo_missing_and_directory(tmp_path, capsys):
    code, _, err = run([str(tmp_path / "nope.jpg")], capsys)
    assert code == errors.EXIT_INPUT and "does not exist" in err
    code, _, err = run([str(tmp_path)], capsys)
    assert code == errors.EXIT_INPUT and one_line_error(err)


def test_photo_no_tiles(tmp_path, capsys):
    photo, _ = _scene(tmp_path)
    empty = tmp_path / "none.json"
    empty.write_text("[]")
    code, out, err = run([photo, "--detections", str(empty)], capsys)
    assert code == errors.EXIT_UNREADABLE and one_line_error(err) and "no tiles" in err


def test_photo_unreadable_hand(tmp_path, capsys):
    """A meld with its sideways tile missing: exit 4 or 5, never a silent success, and the reason is said."""
    photo, dets = _scene(tmp_path)
    items = json.loads(Path(dets).read_text())
    side = [i for i, d in enumerate(items) if d["orientation"] == "sideways"]
    del items[side[1]]
    Path(dets).write_text(json.dumps(items))
    code, out, err = run([photo, "--detections", dets], capsys)
    assert code in (errors.EXIT_UNREADABLE, errors.EXIT_NOT_WIN) and one_line_error(err)
    assert "Reading note:" in out


def test_bad_detections_file(tmp_path, capsys):
    photo, _ = _scene(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('[{"box": [1, 2, 3], "kind": 5}]')
    code, _, err = run([photo, "--detections", str(bad)], capsys)
    assert code == errors.EXIT_INPUT and "item 0" in err


def test_annotate_into_missing_folder_writes_nothing(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    code, _, err = run([photo, "--detections", dets, "--annotate", str(tmp_path / "no" / "out.png")], capsys)
    assert code == errors.EXIT_OUTPUT and one_line_error(err)
    assert not (tmp_path / "no").exists()


def test_model_missing_is_exit_7(tmp_path, capsys, monkeypatch):
    import mjtable.vision.detector as detector

    class Broken:
        def __init__(self, *a, **k):
            raise detector.ModelError("models/tile_locator.onnx not found")
    monkeypatch.setattr(detector, "TileDetector", Broken)
    photo, _ = _scene(tmp_path)
    code, _, err = run([photo], capsys)
    assert code == errors.EXIT_MODEL and one_line_error(err) and "tile_locator" in err


# ---------------------------------------------------------------------------------------- audit


def test_audit_markdown_with_image(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    out_md = tmp_path / "report.md"
    code, out, err = run(["audit", photo, "--detections", dets, "--out", str(out_md)], capsys)
    assert code == 0, err
    text = out_md.read_text(encoding="utf-8")
    assert "裁判报告" in text and "![annotated photo](report.png)" in text
    assert cv2.imread(str(tmp_path / "report.png")) is not None


def test_audit_markdown_links_an_image_whose_name_has_spaces(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    out_md = tmp_path / "final report (table 3).md"
    code, out, err = run(["audit", photo, "--detections", dets, "--out", str(out_md)], capsys)
    assert code == 0, err
    assert "![annotated photo](<final report (table 3).png>)" in out_md.read_text(encoding="utf-8")
    assert (tmp_path / "final report (table 3).png").exists()


def test_audit_html_embeds_image(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    out_html = tmp_path / "report.html"
    code, _, err = run(["audit", photo, "--detections", dets, "--format", "html", "--out", str(out_html)], capsys)
    assert code == 0, err
    text = out_html.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "data:image/png;base64," in text
    assert "<h1>" in text


def test_audit_to_stdout(tmp_path, capsys):
    photo, dets = _scene(tmp_path)
    code, out, _ = run(["audit", photo, "--detections", dets], capsys)
    assert code == 0 and out.startswith("# ")


def test_audit_refuses_json_it_would_not_write(tmp_path, capsys):
    """--json (a flag every command has) was accepted and a Markdown report printed: the report's formats are md
    and html, and the reading's JSON is `mjtable PHOTO --json`'s."""
    photo, dets = _scene(tmp_path)
    code, out, err = run(["audit", photo, "--detections", dets, "--json"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--format md|html" in err


# ---------------------------------------------------------------------------------------- processes


def _proc(args, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "mjtable.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def test_process_exit_codes_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"GIF89a nonsense")
    for args, code in ((["score", "99x"], errors.EXIT_BAD_HAND), ([str(bad)], errors.EXIT_INPUT),
                       (["score", WIN, "--json"], 0)):
        r = _proc(args)
        assert r.returncode == code, r.stderr
        assert "Traceback" not in r.stderr
    assert json.loads(_proc(["score", WIN, "--json"]).stdout)["result"]["is_win"]


def test_process_batch():
    lines = json.dumps({"hand": WIN, "id": 1}) + "\n" + "not json\n"
    r = _proc(["batch"], stdin=lines)
    rows = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert rows[0]["id"] == 1 and rows[0]["is_win"] and "error" in rows[1]
    assert r.returncode == 1 and "Traceback" not in r.stderr


def test_help_exit_codes(capsys):
    code, out, _ = run(["--help-exit"], capsys)
    assert code == 0 and "not a readable image" in out


def test_version_and_exit_code_table(capsys):
    from mjtable import __version__
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mjtable {__version__}"
    assert cli.main(["--help-exit"]) == 0
    out = capsys.readouterr().out
    assert all(f"{code:4d}  {text}" in out for code, text in errors.EXIT_CODES.items())
