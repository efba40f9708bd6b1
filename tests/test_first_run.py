"""A new user's first run (#44): ``mjtable --help`` lists every command, a bad input is answered in one line
that names ``mjtable`` once, and ``mjtable serve`` says where to open it once it listens (and why not, when it
cannot)."""
from __future__ import annotations

import os
import re
import queue
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from mjtable import cli, errors, pipeline
from mjtable.cli import serve as serve_cli

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines(pipe) -> "queue.Queue[str]":
    """The lines of ``pipe`` as they come, read by a thread (select on the pipe would miss a line already read into
    the text wrapper's buffer with the one before it)."""
    q: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [q.put(line) for line in pipe], daemon=True).start()
    return q


def _line(lines: "queue.Queue[str]", within: float = 60.0) -> str:
    """The next line, or "" if none comes within ``within`` seconds."""
    try:
        return lines.get(timeout=within)
    except queue.Empty:
        return ""


def test_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    modules = {p.stem for p in (ROOT / "mjtable" / "cli").glob("*.py")} - {"__init__", "__main__", "photo"}
    assert modules == set(cli.SUBCOMMANDS)
    listed = set(re.findall(r"^  mjtable (\w+)", out, re.M))
    assert listed == modules | {"PHOTO"}, listed


@pytest.mark.parametrize("argv", [
    [], ["--bogus"], ["x.jpg", "--bogus"], ["missing.jpg"], ["x.jpg", "--seat-wind", "Q"],
    ["score"], ["score", "--bogus", "1m"], ["score", "zzz"], ["score", "123m"], ["score", "1m", "--profile", "nope"],
    ["audit"], ["audit", "x.jpg", "--format", "pdf"], ["audit", "missing.jpg"],
    ["video"], ["video", "missing.mp4"], ["video", "x.mp4", "--every", "0"],
    ["settle", "--bogus"], ["settle", "missing.txt"], ["settle", "BAD_JSON"],
    ["serve", "--bogus"], ["serve", "--port", "x"], ["archive"], ["archive", "x", "--bogus"],
])
def test_an_error_names_mjtable_once(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "BAD_JSON").write_text("{bad", encoding="utf-8")
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and err.startswith("mjtable: error: ") and "Traceback" not in err, err
    assert not re.match(r"mjtable: error: mjtable( \w+)?: ", err), err
    if code == errors.EXIT_USAGE and "--help" in err:        # a parser's refusal points at the command's help
        assert re.search(r"\(see mjtable( \w+)? --help\)$", err.strip()), err


def test_serve_says_where_to_open_it():
    here = serve_cli.started_lines("127.0.0.1", 8000, (), "192.168.1.23")
    assert "open http://127.0.0.1:8000/" in here[0] and "--host 0.0.0.0 --allow-host 192.168.1.23" in here[1]
    lan = serve_cli.started_lines("0.0.0.0", 8123, ("phone.lan", "192.168.1.23"), "192.168.1.23")
    assert "open http://127.0.0.1:8123/" in lan[0] and lan[1].endswith("from a phone on the LAN: http://192.168.1.23:8123/")
    named = serve_cli.started_lines("0.0.0.0", 8123, ("phone.lan",), "192.168.1.23")
    assert named[1].endswith("http://phone.lan:8123/")
    assert len(serve_cli.started_lines("0.0.0.0", 8123, (), "192.168.1.23")) == 1    # the warning says what to add
    bound = serve_cli.started_lines("192.168.1.23", 8123, (), "192.168.1.23")
    assert bound == [bound[0]] and "open http://192.168.1.23:8123/" in bound[0]
    assert "http://[::1]:8000/" in serve_cli.started_lines("::", 8000, (), None)[0]


def test_serve_prints_its_address_once_it_answers_there():
    port = _free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = _lines(p.stderr)
    try:
        first = _line(lines)
        url = f"http://127.0.0.1:{port}/"
        assert first.startswith(f"mjtable serve: open {url} "), first
        assert "--host 0.0.0.0 --allow-host" in _line(lines, 5)
        assert httpx.get(url + "healthz", timeout=10).status_code == 200   # listening when it said so
    finally:
        p.terminate()
        p.wait(30)


def test_serve_on_a_port_in_use_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "load_detector", lambda *a, **k: pipeline.FileDetector(
        str(ROOT / "examples" / "phone_win.json")))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        t0 = time.monotonic()
        code = cli.main(["serve", "--port", str(port)])
    err = capsys.readouterr().err
    assert code == errors.EXIT_USAGE and time.monotonic() - t0 < 60
    assert err.count("\n") == 1 and err.startswith(f"mjtable: error: cannot listen on 127.0.0.1 port {port}: "), err
    assert "in use" in err


@pytest.mark.parametrize("argv", [["batch", "--bogus"], ["batch", "--rules", "x"]])
def test_batch_refuses_a_bad_option_in_one_line(argv, capsys):
    """``mjtable batch`` goes to the batch scorer without mjtable.cli (mjtable.launch): the same one line."""
    from mjtable import launch
    assert launch.main(argv) == errors.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mjtable: error: ") and err.strip().endswith(
        "(see mjtable batch --help)"), err
