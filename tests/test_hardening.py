"""Bad input, as a user or an attacker would give it: each ends with a documented exit code and one clear line,
in bounded time and memory, with nothing half-written. A time bound inside this process counts its CPU time
(time.process_time), which other work sharing the machine does not inflate."""
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
from mjtable import cli
from mjtable.pipeline import FileDetector

ROOT = Path(__file__).resolve().parents[1]
PHOTO = str(ROOT / "examples" / "phone_win.jpg")
WIN = "123m456p789s1z [555z^] +1z"


def _one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("mjtable: error:") and "Traceback" not in err


# ------------------------------------------------------------------------------------------ notation


@pytest.mark.parametrize("n", [64 << 10, 1 << 20])
def test_long_notation_is_refused_at_once(n, capsys):
    t0 = time.process_time()
    code = cli.main(["score", "1" * n])
    assert time.process_time() - t0 < 2.0
    err = capsys.readouterr().err
    assert code == errors.EXIT_BAD_HAND and _one_line(err) and "too long" in err


def test_longest_allowed_notation_parses_in_linear_time():
    t0 = time.process_time()
    with pytest.raises(NotationError):
        parse_hand("1" * MAX_LENGTH)             # digits without a suit letter: refused, naming the token
    assert time.process_time() - t0 < 0.05


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
    ([{"box": [0, 0, 10, 10], "kind": 3, "flower": [[18, 0.3]]}], "flower"),
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
_item = st.fixed_dictionaries({"box": st.lists(_number, min_size=0, max_size=5),
                               "kind": st.one_of(st.integers(-2, 50), st.text(max_size=2))},
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
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts))
                     + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [30000, 7500])     # beyond Pillow's own bomb limit, and just over ours
def test_decompression_bomb_is_refused_undecoded(tmp_path, side):
    bomb = tmp_path / "bomb.png"
    _png_bomb(bomb, side)
    assert bomb.stat().st_size < 2 << 20
    # peak memory from /proc (VmHWM: ru_maxrss would carry the forking test process's peak across exec)
    code = ("import re, sys\nfrom mjtable import cli\nc = cli.main([sys.argv[1]])\n"
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


# ------------------------------------------------------------------------------------------ limits


def _boxes(n: int, seed: int = 1) -> list[dict]:
    import random
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x, y, w, h = rng.uniform(0, 4000), rng.uniform(0, 3000), rng.uniform(20, 60), rng.uniform(30, 80)
        out.append({"box": [x, y, x + w, y + h], "kind": rng.randint(0, 42),
                    "orientation": rng.choice(["upright", "sideways", "face_down"]), "confidence": rng.random()})
    return out


def test_too_many_boxes_are_refused_before_validation(tmp_path, capsys):
    from mjtable.pipeline import MAX_BOXES
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"box": "not even a box"}] * (MAX_BOXES + 1)))     # counted before any is validated
    t0 = time.process_time()
    code = cli.main([PHOTO, "--detections", str(p)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and f"at most {MAX_BOXES}" in err
    assert time.process_time() - t0 < 5


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"objects": ' + "[" * 100_000 + "]" * 100_000 + "}",
                                  '[{"box": [0, 0, 10, 10], "kind": 3, "note": {"a": ' * 40 + "1" + "}}]" * 40])
def test_deeply_nested_detections_are_refused(tmp_path, capsys, text):
    p = tmp_path / "d.json"
    p.write_text(text)
    code = cli.main([PHOTO, "--detections", str(p)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and "nested" in err


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"box": [0, 0, 10, 10], "kind": 3, "note": "[[[{{{" * 100 + '\\"]'}]))
    assert len(FileDetector(str(p)).dets) == 1


@pytest.mark.parametrize("note", ["a" * 15_000_000, '"' * 7_500_000, "\\" * 7_500_000])
def test_long_strings_in_detections_are_scanned_in_bounded_memory(tmp_path, note):
    """The nesting count passes over a 15 MB string (of escapes, too) without a record per character."""
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"box": [0, 0, 10, 10], "kind": 3, "note": note}]))
    code = ("import re, sys\nfrom mjtable.pipeline import FileDetector\n"
            "n = len(FileDetector(sys.argv[1]).dets)\n"
            "print(n, re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")
    r = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, timeout=120)
    n, rss_kb = map(int, r.stdout.split())
    assert n == 1 and rss_kb < 400 << 10, r.stderr


def test_detections_from_a_fifo_are_refused_not_waited_on(tmp_path, capsys):
    fifo = tmp_path / "d.json"
    os.mkfifo(fifo)
    code = cli.main([PHOTO, "--detections", str(fifo)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and "not a regular file" in err


def test_batch_reads_lines_of_bounded_length():
    long = "x" * (batch.MAX_LINE + 1)
    lines = list(batch.read_lines(io.StringIO(f"a\n{long}\n{'y' * batch.MAX_LINE}\n{long}{long}tail\nb")))
    assert lines == ["a\n", None, "y" * batch.MAX_LINE + "\n", None, "b"]
    n_err, out = _batch([long, '{"hand": "%s"}' % WIN])
    assert n_err == 1 and "longer than" in out[0]["error"] and out[0]["line"] == 1 and out[1]["is_win"]


def test_batch_line_without_end_is_read_in_bounded_memory(tmp_path):
    """300 MB without a newline (a sparse file: no disk used) and then a hand: one error record, one result,
    and the reader never holds the long line."""
    f = tmp_path / "zeros.jsonl"
    with open(f, "wb") as out:
        out.truncate(300 << 20)
        out.seek(0, 2)
        out.write(('\n{"hand": "%s"}\n' % WIN).encode())
    code = ("import re, sys\nfrom mjtable.scoring import batch\nc = batch.main([])\n"
            "print(c, re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1), file=sys.stderr)")
    with open(f, "rb") as stdin:
        p = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True, timeout=120)
    rows = [json.loads(x) for x in p.stdout.splitlines()]
    assert [("error" in r, r["line"]) for r in rows] == [(True, 1), (False, 2)] and rows[1]["is_win"]
    exit_code, rss_kb = map(int, p.stderr.splitlines()[-1].split())
    assert exit_code == 1 and rss_kb < 150 << 10             # under 150 MB (the line alone is 300 MB)


def _huge_frames_video(path: Path) -> Path:
    """A small MJPEG AVI whose headers (the file's, the stream's, each frame's) say its frames are 10000 x 8000
    pixels (80 megapixels)."""
    import cv2
    import numpy as np
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for i in range(5):
        vw.write(np.full((48, 64, 3), 100 + i, np.uint8))
    vw.release()
    data = bytearray(path.read_bytes())
    struct.pack_into("<II", data, data.index(b"avih") + 8 + 32, 10000, 8000)
    struct.pack_into("<ii", data, data.index(b"strf") + 8 + 4, 10000, 8000)
    k = data.find(b"\xff\xc0")
    while k >= 0:
        struct.pack_into(">HH", data, k + 5, 8000, 10000)
        k = data.find(b"\xff\xc0", k + 2)
    path.write_bytes(data)
    return path


def test_video_frames_over_the_pixel_limit_are_refused(tmp_path, capsys):
    from mjtable.vision.video import VideoError, iter_frames
    v = _huge_frames_video(tmp_path / "huge.avi")
    with pytest.raises(VideoError, match="too large"):
        list(iter_frames(v))
    code = cli.main(["video", str(v)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and "too large" in err and "10000x8000" in err


@pytest.mark.parametrize("make,words", [(os.mkfifo, "not a regular file"), (os.mkdir, "is a folder")])
def test_video_says_what_a_path_is(tmp_path, capsys, make, words):
    p = tmp_path / "game.mp4"
    make(p)
    code = cli.main(["video", str(p)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_INPUT and _one_line(err) and words in err and "no such file" not in err


# ------------------------------------------------------------------------------------------ messages


@pytest.mark.parametrize("word,near", [("scroe", "score"), ("adit", "audit"), ("viedo", "video"), ("xyzzy", None)])
def test_a_misspelled_command_is_a_usage_error(capsys, word, near):
    code = cli.main([word, "123m"])
    err = capsys.readouterr().err
    assert code == errors.EXIT_USAGE and _one_line(err) and "score, audit, batch" in err
    assert (f"did you mean '{near}'" in err) if near else "did you mean" not in err


@pytest.mark.parametrize("argv", [["settle", "x" * 100_000], ["score", "1m" + "x" * 250],
                                  ["score", "[" + "1" * 250 + "m]"],
                                  ["score", WIN, "--rules", "x" * 100_000], ["score", WIN, "--profile", "x" * 100_000],
                                  ["x" * 100_000 + ".jpg"], ["video", "x" * 100_000], ["x" * 100_000],
                                  ["score", WIN, "--seat-wind", "x" * 100_000]])
def test_long_user_input_is_cut_short_in_messages(capsys, argv):
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code in (errors.EXIT_USAGE, errors.EXIT_INPUT, errors.EXIT_BAD_HAND) and _one_line(err)
    assert len(err) < 300 and "…" in err


def test_long_values_are_cut_in_batch_and_settle_errors():
    out = batch.score_line(json.dumps({"hand": WIN, "seat_wind": "Q" * 10_000}), 1)
    assert len(out["error"]) < 200 and "…" in out["error"]
    from mjtable.scoring import settle_io
    with pytest.raises(errors.BadHandError) as e:
        settle_io.settle("kong 1 " + "z" * 10_000)
    assert len(str(e.value)) < 200


# ------------------------------------------------------------------------------------------ native noise


def _damaged_jpeg(path: Path) -> Path:
    data = bytearray((ROOT / "examples" / "real_hand.jpg").read_bytes())
    for i in range(30000, 30200, 7):            # a damaged entropy-coded segment: libjpeg warns, then decodes
        data[i] = 0xFF
    path.write_bytes(data)
    return path


def test_a_damaged_jpeg_adds_no_line_to_stderr(tmp_path):
    photo = _damaged_jpeg(tmp_path / "bad.jpg")
    dets = tmp_path / "d.json"
    dets.write_text(json.dumps([{"box": [10, 10, 40, 50], "kind": 3}]))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENCV_LOG_LEVEL", None)
    p = subprocess.run([sys.executable, "-m", "mjtable.cli", str(photo), "--detections", str(dets)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == errors.EXIT_UNREADABLE and _one_line(p.stderr), p.stderr


def test_a_damaged_video_adds_no_line_to_stderr(tmp_path):
    import cv2
    import numpy as np
    img = cv2.imread(str(ROOT / "examples" / "phone_win.jpg"))
    v = tmp_path / "v.mp4"
    vw = cv2.VideoWriter(str(v), cv2.VideoWriter_fourcc(*"mp4v"), 5, (img.shape[1], img.shape[0]))
    for i in range(10):
        vw.write(np.roll(img, i, axis=1))
    vw.release()
    data = bytearray(v.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 3000, 5):    # damaged frames: FFmpeg logs each one
        data[i] ^= 0x5A
    v.write_bytes(data)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENCV_FFMPEG_LOGLEVEL", None)
    env.pop("OPENCV_LOG_LEVEL", None)
    p = subprocess.run([sys.executable, "-m", "mjtable.cli", "video", str(v), "--json", "--every", "0.2"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode in (0, errors.EXIT_UNREADABLE, errors.EXIT_NOT_WIN), p.stderr
    assert p.stderr == "" or _one_line(p.stderr), p.stderr


# ------------------------------------------------------------------------------------------ many boxes


@pytest.mark.parametrize("chunk", [1 << 20, 5000])
def test_nearest_neighbours_without_the_distance_matrix_agree_with_it(monkeypatch, chunk):
    import numpy as np
    from mjtable.vision import perspective
    from mjtable.vision.perspective import nearest
    monkeypatch.setattr(perspective, "NEAREST_CHUNK", chunk)
    rng = np.random.default_rng(0)
    for pts in (rng.uniform(0, 4000, (3000, 2)), np.round(rng.uniform(0, 40, (2000, 2))),      # ties
                np.c_[np.zeros(900), rng.uniform(0, 100, 900)],                                  # a line
                np.r_[rng.normal(0, 1, (1500, 2)), rng.uniform(-1e4, 1e4, (300, 2))],          # a crowd, strays
                np.zeros((500, 2)), rng.uniform(0, 10, (5, 2))):
        d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
        np.fill_diagonal(d, np.inf)
        j, dist = nearest(pts)
        assert (j == d.argmin(1)).all() and np.array_equal(dist, d.min(1))


@pytest.mark.parametrize("kind", ["phone", "overhead"])
def test_layout_of_many_boxes_grows_slowly(kind):
    """5,000 boxes (the detections file's limit) read in bounded time and memory: no n x n matrix, no pass over
    every pair of tiles (they took 1.2 GB and 12-30 s)."""
    import tracemalloc
    from mjtable.vision.layout import LayoutError, parse
    from mjtable.vision.types import Detection
    dets = [Detection(tuple(o["box"]), o["kind"], o["orientation"], o["confidence"]) for o in _boxes(5000)]
    tracemalloc.start()
    t0 = time.process_time()
    try:
        parse(dets, kind, (4100, 3100))
    except LayoutError:
        pass
    took = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100 << 20 and took < 8, (peak >> 20, took)


@pytest.mark.parametrize("chunk", [1 << 20, 97])          # in one pass, or in many small ones
def test_duplicates_among_many_boxes_are_the_ones_all_pairs_find(monkeypatch, chunk):
    """The overlap search that skips boxes far apart drops exactly what comparing every pair drops."""
    import random
    from mjtable.vision.layout import duplicates
    from mjtable.vision.layout.duplicates import dedupe
    monkeypatch.setattr(duplicates, "PAIR_CHUNK", chunk)
    from mjtable.vision.types import Detection
    rng = random.Random(4)
    dets = []
    for _ in range(600):                          # crowded: many overlaps, boxes inside boxes, equal x extents
        x, y = rng.choice([10.0, 50.0, rng.uniform(0, 300)]), rng.uniform(0, 300)
        w, h = rng.choice([(30, 40), (40, 30), (80, 45), (30, 40)])
        dets.append(Detection((x, y, x + w, y + h), rng.choice([3, 42]), rng.choice(["upright", "face_down"]),
                              rng.uniform(0.05, 1)))
    for weak in (False, True):
        kept, dropped = dedupe(dets, weak_dup=weak)
        assert sorted(kept + dropped) == list(range(len(dets))) and kept and dropped
        assert (kept, dropped) == _dedupe_all_pairs(dets, weak)


def _dedupe_all_pairs(dets, weak_dup):
    """dedupe as it was written over full IoU and cover matrices (the reference)."""
    import itertools
    import numpy as np
    from mjtable.scoring import tiles as T
    from mjtable.vision.layout import LayoutParams
    from mjtable.vision.types import FACE_DOWN
    B = LayoutParams()
    b = np.array([d.box for d in dets], dtype=float)
    area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-9)
    ix = np.clip(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0, None)
    inter = ix * iy
    iou, cover = inter / (area[:, None] + area[None, :] - inter), inter / area[:, None]
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    conf = np.array([d.confidence for d in dets])
    back = np.array([d.kind == T.BACK for d in dets])
    kept, dropped = [], set()
    for i in order:
        inside = [j for j in np.flatnonzero(cover[:, i] >= B.wrap_cover) if j != i]
        if any(iou[a, c] < 0.3 and conf[i] < max(conf[a], conf[c]) for a, c in itertools.combinations(inside, 2)):
            dropped.add(i)
    for i in order:
        if i in dropped:
            continue
        k = np.array(kept, dtype=int)
        limit = np.where(weak_dup & (conf[i] < B.weak_dup * conf[k]), B.weak_dup_iou, B.dup_iou)
        over = cover[i, k] > B.shadow_cover
        if back[i]:
            shadow = over & back[k] & (conf[i] < B.shadow_conf_back * conf[k])
        else:
            shadow = over & weak_dup & (conf[i] < B.shadow_conf * conf[k])
        near = k[cover[i, k] > 0.15].tolist()
        straddle = False
        if len(near) >= 2:
            inside_share = sum(cover[i, near].tolist())
            ratio = dets[i].confidence / min(dets[j].confidence for j in near)
            if dets[i].kind == T.BACK or dets[i].orientation == FACE_DOWN:
                straddle = inside_share > B.straddle_cover_weak and ratio < B.straddle_conf_back
            else:
                straddle = ((inside_share > B.straddle_cover and ratio < B.straddle_conf)
                            or (inside_share > B.straddle_cover_weak and ratio < B.straddle_conf_weak))
        if (iou[i, k] > limit).any() or shadow.any() or straddle:
            dropped.add(i)
        else:
            kept.append(i)
    return sorted(kept), sorted(dropped)


# ------------------------------------------------------------------------------------------ melds


def test_a_claimed_set_without_a_sideways_tile_is_not_scored_with_no_source(capsys):
    """Three alike face-up tiles read as a meld but with no tile sideways (as the phone layout leaves a set whose
    sideways reading it cannot settle): the audit says so, and the hand is not scored with a meld of no source
    seat (that hand crashed the text output: "internal error: KeyError: None")."""
    from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState
    from mjtable import pipeline
    area = PlayerArea("self", (0, 1, 2, 9, 10, 11, 18, 19, 20, 27), 0, (MeldOnTable((3, 3, 3), None, None),), 27,
                      True, (), declared_win=True)
    out = pipeline.review(TableState([area]), pipeline.situation())
    assert out.hand is None and "no tile sideways" in out.note
    assert any("no tile turned sideways" in f.message for f in out.findings)
    assert "no tile sideways" in cli.to_text(out)
    with pytest.raises(errors.UnreadableError, match="no tile sideways"):
        pipeline.verdict(out)


# ------------------------------------------------------------------------------------------ detections fuzz


_json = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats() | st.text(max_size=8),
                     lambda inner: (st.lists(inner, max_size=4)
                                    | st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                     max_leaves=12)
_coord = st.one_of(st.floats(-50, 700), st.integers(-5, 700), st.floats(), _json)
_near_valid = st.fixed_dictionaries(
    {"box": st.one_of(st.tuples(_coord, _coord, _coord, _coord).map(list),
                      st.tuples(st.floats(0, 600), st.floats(0, 400), st.floats(5, 60), st.floats(5, 60))
                      .map(lambda b: [b[0], b[1], b[0] + b[2], b[1] + b[3]]), _json),
     "kind": st.one_of(st.integers(-1, 44), _json)},
    optional={"orientation": st.one_of(st.sampled_from(["upright", "sideways", "upside_down", "face_down"]), _json),
              "confidence": st.one_of(st.floats(0, 1), _json), "extra": _json})
_detections = st.one_of(st.lists(st.one_of(_near_valid, _near_valid, _json), max_size=8),
                        st.fixed_dictionaries({"objects": st.lists(_near_valid, max_size=8)}), _json)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_detections, st.sampled_from(["auto", "phone", "overhead"]))
def test_any_detections_file_ends_with_a_documented_code(tmp_path, capsys, data, kind):
    """Random JSON where a detections file goes: read, or refused with one line and a documented code, never an
    internal error (1) or a traceback."""
    p = tmp_path / "d.json"
    p.write_text(json.dumps(data))
    code = cli.main([PHOTO, "--detections", str(p), "--kind", kind, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, errors.EXIT_INPUT, errors.EXIT_UNREADABLE, errors.EXIT_NOT_WIN, errors.EXIT_BAD_HAND), err
    assert "Traceback" not in err and (err == "" if code == 0 else _one_line(err)), err
    if code == 0:
        json.loads(out)


# ------------------------------------------------------------------------------------------ JSON values of any type


_hand_fields = st.fixed_dictionaries(
    {"hand": st.one_of(st.just(WIN), _json)},
    optional={k: _json for k in ("rules", "profile", "seat_wind", "prevalent_wind", "self_drawn", "void_suit",
                                 "referee_facts", "id", "winning_tile", "flowers")})


@settings(max_examples=200, deadline=None)
@given(_hand_fields)
def test_any_values_in_a_json_hand_give_its_own_record_never_an_internal_error(d):
    """A batch line (and an archive's hand file line) whose known keys hold values of any JSON type: scored, or
    an error that names the field, never "internal error" (a list where a rule name goes had been one)."""
    out = batch.score_line(json.dumps(d), 3)
    assert out["line"] == 3 and ("is_win" in out or "internal error" not in out["error"]), out


@pytest.mark.parametrize("text,words", [
    ('{"events": ' + "[" * 100_000, "nested too deep"),
    ('{"events": [{"false_win": 1e400}]}', "out of range"),
    ('{"mode": "2v2", "teams": {"A": [0, 1e400], "B": [2, 3]}}', "out of range"),
    ('{"events": [{"win": {"winners": [0], "fans": [1e300], "discarder": 1}}]}', "fans"),
    ('{"events": [{"win": {"winners": [0], "fans": [true], "discarder": 1}}]}', "fans"),
    ("win 0 -3fan self", "fans"),
    ('{"events": [], "x": NaN}', "NaN")])
def test_a_deal_of_bad_numbers_or_deep_json_is_a_bad_deal(tmp_path, capsys, text, words):
    p = tmp_path / "deal.json"
    p.write_text(text)
    code = cli.main(["settle", str(p)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_BAD_HAND and _one_line(err) and words in err, err


@pytest.mark.parametrize("argv,words", [
    (["serve", "--port", "70000"], "--port"), (["serve", "--port", "0"], "--port"),
    (["serve", "--host", "a..b"], "--host"), (["serve", "--max-upload-mb", "1e308"], "--max-upload-mb"),
    (["video", "table.avi", "--every", "1e308"], "--every"), (["archive", "in", "out", "--every", "1e308"], "--every"),
    (["evaluate", "data", "--names", "n.yaml", "--conf", "nan"], "--conf"),
    (["evaluate", "data", "--names", "n.yaml", "--conf", "-1"], "--conf")])
def test_flag_values_out_of_range_are_usage_errors(capsys, argv, words):
    """Before anything is opened or served: a port past 65535, an address the resolver cannot take, a number of
    seconds or megabytes that overflows once turned into frames or bytes, a confidence outside 0-1."""
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == errors.EXIT_USAGE and _one_line(err) and words in err, err


def test_batch_with_an_unknown_profile_is_one_usage_error():
    r = subprocess.run([sys.executable, "-m", "mjtable.launch", "batch", "--profile", "nope"], input=WIN,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == errors.EXIT_USAGE and r.stdout == "" and _one_line(r.stderr), r.stderr


@pytest.mark.parametrize("argv,stdin", [(["score", WIN], None), (["batch"], json.dumps({"hand": WIN}) + "\n"),
                                        (["settle"], "win 0 3fan self\n")])
def test_a_full_standard_output_is_an_output_error(argv, stdin):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "mjtable.launch", *argv], input=stdin, stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == errors.EXIT_OUTPUT and _one_line(r.stderr) and "cannot write" in r.stderr, r.stderr


@pytest.mark.parametrize("fact", ["early_draw=" + "9" * 500, "warnings_before=" + "9" * 5000])
def test_a_long_referee_fact_is_cut_short_in_the_message(capsys, fact):
    code = cli.main(["score", WIN, "--referee-fact", fact])
    err = capsys.readouterr().err
    assert code == errors.EXIT_USAGE and _one_line(err) and len(err) < 300 and "…" in err, err
    assert "referee fact" in err and "digits" not in err
