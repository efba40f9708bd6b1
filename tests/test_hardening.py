"""Bad input, as a user or an attacker would give it: each ends with a documented exit code and one clear line,
in bounded time and memory, with nothing half-written."""
import io
import json
import os
import stat
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mjtable import errors
from mjtable.scoring import batch
from mjtable.scoring.notation import MAX_LENGTH, NotationError, parse_hand
from mjtable.vision import cli
from mjtable.vision.pipeline import FileDetector

ROOT = Path(__file__).resolve().parents[1]
PHOTO = str(ROOT / "examples" / "phone_win.jpg")
WIN = "123m456p789s1z [555z^] +1z"


def _one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("mjtable: error:") and "Traceback" not in err


# ------------------------------------------------------------------------------------------ notation


@pytest.mark.parametrize("n", [64 << 10, 1 << 20])
def test_long_notation_is_refused_at_once(n, capsys):
    t0 = time.perf_counter()
    code = cli.main(["score", "1" * n])
    assert time.perf_counter() - t0 < 2.0
    err = capsys.readouterr().err
    assert code == errors.EXIT_BAD_HAND and _one_line(err) and "too long" in err


def test_longest_allowed_notation_parses_in_linear_time():
    t0 = time.perf_counter()
    with pytest.raises(NotationError):
        parse_hand("1" * MAX_LENGTH)             # digits without a suit letter: refused, naming the token
    assert time.perf_counter() - t0 < 0.05


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789mpszf[]<>^+ x\u4e00", max_size=80))
def test_notation_either_parses_or_is_refused(text):
    try:
        hand = parse_hand(text)
    except NotationError as e:
        assert e.exit_code == errors.EXIT_BAD_HAND and "\n" not in str(e)
        return
    assert all(0 <= t < 34 for t in hand.concealed)


# ------------------------------------------------------------------------------------------ detections


@pytest.mark.parametrize("items,words", [
    ([{"box": [1, 1, 1, 5], "kind": 3}], "empty or inverted"),
    ([{"box": [9, 1, 2, 5], "kind": 3}], "empty or inverted"),
    ([{"box": [0, 0, 1e308, 1e308], "kind": 3, "orientation": "upright"}], "beyond"),
    ([{"box": "1,2,3,4", "kind": 3}], "box"),
    ([{"box": [0, 0, 10, 10], "kind": 43}], "kind"),
    ([{"box": [0, 0, 10, 10], "kind": True}], "kind"),
    ([{"box": [0, 0, 10, 10], "kind": 3, "orientation": "diagonal"}], "orientation"),
    ([{"box": [0, 0, 10, 10], "kind": 3, "confidence": 2}], "confidence"),
    ([{"box": [0, 0, 10], "kind": 3}], "box"),
    ([{"kind": 3}], "box"),
])
def test_bad_detections_name_the_field(tmp_path, capsys, items, words):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(items))
    code = cli.main([PHOTO, "--detections", str(p)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and words in err and "item 0" in err


@pytest.mark.parametrize("text", ['[{"box": [0, 0, 10, NaN], "kind": 3}]', '[{"box": [0, 0, 10, Infinity], "kind": 3}]',
                                  "[1e999]", '[{"box": [0, 0, 10, 10]', ""])
def test_non_finite_and_broken_json_detections(tmp_path, capsys, text):
    p = tmp_path / "d.json"
    p.write_text(text)
    code = cli.main([PHOTO, "--detections", str(p)])
    assert code == errors.EXIT_INPUT and _one_line(capsys.readouterr().err)


_number = st.one_of(st.integers(-10, 2000), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3))
_item = st.fixed_dictionaries({"box": st.lists(_number, min_size=0, max_size=5), "kind": st.one_of(st.integers(-2, 50), st.text(max_size=2)),},
                              optional={"orientation": st.sampled_from(["upright", "sideways", "face_down", "x"]),
                                        "confidence": _number})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_item, max_size=6))
def test_detections_either_load_or_are_refused(tmp_path, items):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(items))
    try:
        dets = FileDetector(str(p)).dets
    except errors.InputError as e:
        assert "\n" not in str(e)
        return
    for d in dets:
        assert d.box[2] > d.box[0] and d.box[3] > d.box[1] and 0 <= d.kind <= 42


# ------------------------------------------------------------------------------------------ images


def _png_bomb(path: Path, side: int = 30000) -> None:
    """A grey PNG of side x side pixels, all zero, compressed to a few hundred KB, written without ever
    holding the pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    z = zlib.compressobj(9)
    rows = b"\0" * ((side + 1) * 500)
    parts = [z.compress(rows) for _ in range(side // 500)] + [z.flush()]
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [30000, 7500])     # beyond Pillow's own bomb limit, and just over ours
def test_decompression_bomb_is_refused_undecoded(tmp_path, side):
    bomb = tmp_path / "bomb.png"
    _png_bomb(bomb, side)
    assert bomb.stat().st_size < 2 << 20
    # peak memory from /proc (VmHWM: ru_maxrss would carry the forking test process's peak across exec)
    code = ("import re, sys\nfrom mjtable.vision import cli\nc = cli.main([sys.argv[1]])\n"
            "print(c, re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, timeout=60)
    assert time.perf_counter() - t0 < 10
    exit_code, rss_kb = map(int, p.stdout.split())
    assert exit_code == errors.EXIT_INPUT and "too large" in p.stderr and p.stderr.count("\n") == 1
    assert rss_kb < 1 << 20                      # under 1 GB


def test_fifo_is_refused_not_waited_on(tmp_path, capsys):
    fifo = tmp_path / "photo.jpg"
    os.mkfifo(fifo)
    code = cli.main([str(fifo)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and "not a regular file" in err


def test_text_file_and_truncated_jpeg_are_refused(tmp_path, capsys):
    txt = tmp_path / "a.jpg"
    txt.write_text("hello")
    cut = tmp_path / "b.jpg"
    cut.write_bytes(Path(PHOTO).read_bytes()[:200])
    for f in (txt, cut):
        assert cli.main([str(f)]) == errors.EXIT_INPUT
        assert _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("shape", [(10, 4000), (4000, 10), (1, 40000), (2, 3), (1, 1)])
def test_thin_strips_are_read_not_crashed_on(tmp_path, capsys, shape):
    """A frame so thin that its letterboxed thumbnail would be under a pixel tall (the view router's 96 px) ends as
    any tileless frame does: exit 4 and one line."""
    import cv2
    import numpy as np
    f = tmp_path / "strip.png"
    cv2.imwrite(str(f), np.full((*shape, 3), 200, np.uint8))
    assert cli.main([str(f)]) == errors.EXIT_UNREADABLE
    err = capsys.readouterr().err
    assert _one_line(err) and "no tiles found" in err


# ------------------------------------------------------------------------------------------ outputs


def test_outputs_follow_the_umask_and_never_write_through_a_link(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        out = tmp_path / "out.png"
        assert cli.main([PHOTO, "--seat-wind", "S", "--annotate", str(out)]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        target = tmp_path / "precious.txt"
        target.write_text("keep me")
        link = tmp_path / "link.png"
        link.symlink_to(target)
        capsys.readouterr()
        assert cli.main([PHOTO, "--seat-wind", "S", "--annotate", str(link)]) == errors.EXIT_OUTPUT    # refused
        assert _one_line(capsys.readouterr().err)
        assert target.read_text() == "keep me" and link.is_symlink()
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    finally:
        os.umask(old)
    capsys.readouterr()


# ------------------------------------------------------------------------------------------ batch


def _batch(lines: list[str]) -> tuple[int, list[dict]]:
    out = io.StringIO()
    n_err = batch.run(io.StringIO("\n".join(lines) + "\n"), out)
    text = out.getvalue()
    text.encode("utf-8")                          # valid UTF-8
    return n_err, [json.loads(x) for x in text.splitlines()]


def test_lone_surrogate_and_nan_ids_do_not_stop_the_batch():
    lines = ['{"id": "\\ud800", "hand": "%s"}' % WIN, '{"hand": "%s"}' % WIN, '{"id": NaN, "hand": "%s"}' % WIN]
    n_err, out = _batch(lines)
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["id"] == "\ufffd" and out[0]["is_win"] and out[1]["is_win"]
    assert "error" in out[2] and n_err == 1


def test_a_long_batch_with_bad_lines_writes_every_line():
    bad = ['nope', '{"hand": "1' + "1" * 5000 + '"}', '{"hand": "123m +1z"}', '{"id": "\\udfff", "hand": 5}']
    lines = [bad[(i // 100) % len(bad)] if i % 100 == 99 else '{"hand": "%s"}' % WIN for i in range(100_000)]
    n_err, out = _batch(lines)
    assert len(out) == 100_000 and n_err == 1000
    assert all(("error" in o) == (o["line"] % 100 == 0) for o in out)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_line_gives_one_record(line):
    out = batch.score_line(line, 7)
    assert out["line"] == 7 and ("error" in out or "is_win" in out)
    text, _ = batch.to_json_line(out)
    json.loads(text)
    text.encode("utf-8")


# ------------------------------------------------------------------------------------------ layout


_box = st.tuples(st.floats(0, 600), st.floats(0, 600), st.floats(0.5, 80), st.floats(0.5, 80))
_det = st.tuples(_box, st.integers(0, 42), st.sampled_from(["upright", "sideways", "upside_down", "face_down"]),
                 st.floats(0.001, 1.0), st.booleans())


@settings(max_examples=400, deadline=None)
@given(st.lists(_det, min_size=0, max_size=24), st.sampled_from(["phone", "overhead"]))
def test_layout_reads_or_refuses_any_boxes_without_warnings(items, kind):
    """Any valid boxes (in a row or scattered, any kinds and orientations) give a layout or a LayoutError:
    no other exception, and no numpy warning on stderr."""
    import warnings
    from mjtable.vision.layout import Layout, LayoutError, parse
    from mjtable.vision.types import Detection
    dets = []
    for (x, y, w, h), kind_id, ori, conf, in_row in items:
        if in_row:                                  # tiles touching in a row, as hands and rivers lie
            x, y = 20 + 33 * len(dets), 100.0
        dets.append(Detection((x, y, x + w, y + h), kind_id, ori, conf))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            assert isinstance(parse(dets, kind, (640, 480)), Layout)
        except LayoutError:
            pass
