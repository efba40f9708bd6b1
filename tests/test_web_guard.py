"""mjtable serve against hostile clients: JSON built to break the parser, bodies that trickle in, a Host header
naming another site; each refused with its documented status and one log line, never a traceback. Socket
behaviour (deadlines, keep-alive, the queue) is checked on a real uvicorn server on 127.0.0.1."""
from __future__ import annotations

import json
import logging
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings, strategies as st

from mjtable.web.loopback import served
from mjtable import pipeline
from mjtable import cli
from mjtable.cli import serve as serve_cli
from mjtable.pipeline import FileDetector
from mjtable.web import app as web_app
from mjtable.web.app import FLAGS, create_app
from mjtable.web.guard import allowed_hosts, host_name

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "phone_win.jpg"
LOCAL = "http://localhost"
HAND = "123m456p789s1z [555z^] +1z"


def _detector():
    return FileDetector(str(ROOT / "examples" / "phone_win.json"))


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(detector=_detector()), base_url=LOCAL) as c:
        yield c


def _refusal(r, status: int) -> str:
    assert r.status_code == status, r.text
    assert list(r.json()) == ["error"] and "\n" not in r.json()["error"] and "Traceback" not in r.text
    return r.json()["error"]


def _one_line_refusals(records) -> list[str]:
    out = []
    for rec in records:
        if rec.name == "mjtable.serve":
            assert rec.exc_info is None and "\n" not in rec.getMessage()
            out.append(rec.getMessage())
    return out


# ------------------------------------------------------------------------------------------ hostile JSON


HOSTILE = [
    (b"[" * 5000 + b"]" * 5000, "nested"),
    (b'{"a":' * 5000 + b"1" + b"}" * 5000, "nested"),
    (b'{"hand": "' + HAND.encode() + b'", "id": ' + b"[" * 40 + b"]" * 40 + b"}", "nested"),
    (b'{"hand": "' + HAND.encode() + b'", "id": NaN}', "NaN"),
    (b'{"hand": "' + HAND.encode() + b'", "id": Infinity}', "Infinity"),
    (b'{"hand": "' + HAND.encode() + b'", "id": [-Infinity]}', "Infinity"),
    (b'{"hand": "' + HAND.encode() + b'", "id": 1e999}', "out of range"),
    (b'{"hand": "' + HAND.encode() + b'", "id": ' + b"9" * 5000 + b"}", "digits"),
    (b'{"hand": "' + HAND.encode() + b'", "id": ' + b"9" * 30 + b"}", "digits"),
    (b'{"concealed": "123m456p789s1z", "winning_tile": "1z", "flowers": ' + b"1" * 40 + b"}", "digits"),
    (b'{"hand": "' + HAND.encode() + b'", "profile": {}}', "profile"),
    (b'{"hand": "' + HAND.encode() + b'", "rules": ["mcr"]}', "rules"),
    (b'{"hand": ["' + HAND.encode() + b'"]}', "hand"),
    (b'{"hand": "' + HAND.encode() + b'", "seat_wind": {"E": 1}}', "seat_wind"),
    (b'{"concealed": "123m456p789s1z", "melds": {"x": 1}, "winning_tile": "1z"}', "melds"),
    (b'"\xff\xfe"', "UTF-8"),
    (b"{\"hand\": 1", "invalid JSON"),
]


@pytest.mark.parametrize("body, says", HOSTILE, ids=[s for _, s in HOSTILE])
def test_hostile_json_is_422_in_one_line(client, body, says):
    r = client.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    assert says in _refusal(r, 422)
    assert client.app.state.service.scores.n == 0


def test_an_id_is_echoed_as_given(client):
    r = client.post("/api/score", json={"hand": HAND, "id": {"game": 3, "at": [1.5, -2, None, True]}})
    assert r.status_code == 200 and r.json()["id"] == {"game": 3, "at": [1.5, -2, None, True]}


# a JSON value of any shape, NaN and the infinities included (json.dumps writes them as NaN / Infinity)
_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
            | st.sampled_from([HAND, "123m456p789s1z", "1z", "15f", "[555z^]", "mcr", "sichuan", "sbr2025",
                               "competition", "E", "s", "p", "true", "no", ""]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
_keys = st.sampled_from(["hand", "concealed", "melds", "winning_tile", "flowers", "rules", "profile", "id",
                         "seat_wind", "round_wind", "prevalent_wind", "void_suit", "winning_tile_apart", "kind",
                         "tiles", "source", *FLAGS]) | st.text(max_size=10)
_meld = st.fixed_dictionaries({"tiles": _scalars}, optional={"kind": _scalars, "source": _scalars,
                                                             "concealed": _values})
_bodies = (st.dictionaries(_keys, _values | st.lists(_meld | _scalars, max_size=4), max_size=6)
           .map(lambda d: json.dumps(d, allow_nan=True).encode())
           | _values.map(lambda v: json.dumps(v, allow_nan=True).encode())
           | st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n)
           | st.binary(max_size=64))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(body=_bodies)
def test_fuzzed_score_bodies_never_answer_500(client, body):
    """Any body at all: a score (200) or a one-line refusal (400, 413, 422); never a 500, never an exception."""
    r = client.post("/api/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code in (200, 400, 413, 422), (body[:200], r.text)
    if r.status_code != 200:
        _refusal(r, r.status_code)
    assert client.app.state.service.scores.n == 0


# ------------------------------------------------------------------------------------------ the log


def test_each_refusal_is_one_log_line_and_never_a_traceback(caplog, monkeypatch):
    app = create_app(detector=_detector())
    with caplog.at_level(logging.INFO, logger="mjtable.serve"), TestClient(app, base_url=LOCAL) as c:
        c.post("/api/score", content=b"[" * 5000 + b"]" * 5000)
        c.post("/api/score", content=b'{"hand": "1m", "id": NaN}')
        c.get("/nope")
        c.get("/healthz", headers={"Host": "rebind.example"})
        assert c.post("/api/score", json={"hand": HAND}).status_code == 200          # not logged: not refused

        def broken(*a):
            raise RuntimeError("disk on fire\nsecond line")
        monkeypatch.setattr(app.state.service, "score_hand", broken)
        r = c.post("/api/score", json={"hand": HAND})       # an exception escaping: TestClient would raise it
    assert _refusal(r, 500) == "internal error: RuntimeError"
    lines = _one_line_refusals(caplog.records)
    assert len(lines) == 5, lines
    assert "POST /api/score -> 422: invalid JSON: nested" in lines[0] and "NaN" in lines[1]
    assert "GET /nope -> 404" in lines[2] and "-> 400: host 'rebind.example' not allowed" in lines[3]
    assert "-> 500: internal error: RuntimeError: disk on fire second line" in lines[4]


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def test_keep_alive_survives_hostile_json_on_a_real_server():
    """The same connection goes on serving after each refusal; uvicorn logs no exception."""
    seen = _Records()
    app = create_app(detector=_detector())
    with served(app) as url, httpx.Client(base_url=url, timeout=10,
                                          limits=httpx.Limits(max_connections=1)) as c:
        for name in ("uvicorn.error", "mjtable.serve"):
            logging.getLogger(name).addHandler(seen)
        level = logging.getLogger("mjtable.serve").level
        logging.getLogger("mjtable.serve").setLevel(logging.INFO)
        try:
            for body, _ in HOSTILE[:9] + [(b"{" + b" " * (70 << 10) + b"}", "")]:
                r = c.post("/api/score", content=body)
                assert r.status_code in (413, 422), r.text
                ok = c.post("/api/score", json={"hand": HAND, "id": 1})
                assert ok.status_code == 200 and ok.json()["id"] == 1
        finally:
            logging.getLogger("mjtable.serve").setLevel(level)
            for name in ("uvicorn.error", "mjtable.serve"):
                logging.getLogger(name).removeHandler(seen)
    assert not [r for r in seen.records if r.exc_info or r.name == "uvicorn.error"]
    assert len([r for r in seen.records if r.name == "mjtable.serve"]) == 10


# ------------------------------------------------------------------------------------------ slow bodies


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _start_upload(port: int, path: str = "/api/read", length: int = 200_000, host: str = "127.0.0.1") -> socket.socket:
    """A connection that sent a request's headers and the first bytes of a multipart body of ``length``."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {length}\r\n"
               f"Content-Type: multipart/form-data; boundary=b\r\n\r\n").encode())
    s.sendall(b'--b\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n\r\n')
    return s


def _answer(s: socket.socket, within: float, trickle: float = 0.0) -> tuple[bytes, float]:
    """What the server answers on ``s`` within ``within`` seconds (b"" if nothing), sending a byte of body every
    ``trickle`` seconds meanwhile; and when the answer began."""
    t0 = time.monotonic()
    s.setblocking(False)
    got = b""
    while time.monotonic() - t0 < within:
        try:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
            if b"\r\n\r\n" in got and got.endswith(b"}"):
                break
        except BlockingIOError:
            if trickle and not got:
                try:
                    s.send(b"\xff")
                except OSError:
                    pass
            time.sleep(trickle or 0.05)
    return got, time.monotonic() - t0


@pytest.mark.parametrize("path", ["/api/read", "/api/score"])
def test_a_body_that_trickles_in_is_refused_408_at_the_deadline(path):
    app = create_app(detector=_detector(), body_timeout=1.0)
    with served(app) as url:
        s = _start_upload(_port(url), path, length=40_000)
        try:
            got, when = _answer(s, within=6, trickle=0.2)       # a byte every 0.2 s: never idle, never done
            s.setblocking(True)
            s.settimeout(3)
            try:
                rest = s.recv(100)                               # then the server closes the connection:
            except ConnectionResetError:                         # with bytes of the trickle still unread on
                rest = b""                                       # its side, the close comes as a reset
        finally:
            s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), got[:200]
    assert b"connection: close" in head.lower() and rest == b""
    assert "did not arrive within 1 s" in json.loads(body)["error"]
    assert 0.8 < when < 4
    assert app.state.service.reads.n == 0


def test_slow_uploads_do_not_lock_out_other_photos():
    """Uploads trickling in take no place in the queue: a photo sent meanwhile is read at once."""
    app = create_app(detector=_detector(), queue_size=2, body_timeout=4.0)
    with served(app) as url:
        slow = [_start_upload(_port(url)) for _ in range(6)]
        try:
            time.sleep(0.3)
            t0 = time.monotonic()
            r = httpx.post(url + "/api/read", files={"photo": ("p.jpg", PHOTO.read_bytes(), "image/jpeg")},
                           data={"seat_wind": "S"}, timeout=10)
            took = time.monotonic() - t0
            assert r.status_code == 200, r.text
            assert r.json()["result"]["result"]["total"] == 8 and took < 3
            answers = [_answer(s, within=8)[0] for s in slow]    # the slow ones: 408 at their deadline
        finally:
            for s in slow:
                s.close()
    assert all(a.startswith(b"HTTP/1.1 408") for a in answers), [a[:40] for a in answers]
    assert app.state.service.reads.n == 0


def test_a_full_queue_of_read_photos_still_refuses_before_the_body():
    """The queue holds photos that have arrived: when it is full, a new upload is refused at once (503)."""
    gate = threading.Event()

    class Slow:
        inner = _detector()

        def detect(self, img, kind="auto"):
            gate.wait(10)
            return self.inner.detect(img, kind)

    app = create_app(detector=Slow(), queue_size=1)
    with served(app) as url:
        first = threading.Thread(target=lambda: httpx.post(url + "/api/read", timeout=15,
                                                           files={"photo": ("p.jpg", PHOTO.read_bytes())}))
        first.start()
        try:
            for _ in range(200):
                if app.state.service.reads.n:
                    break
                time.sleep(0.02)
            s = _start_upload(_port(url))                       # headers only: refused without its body
            try:
                got, when = _answer(s, within=5)
            finally:
                s.close()
        finally:
            gate.set()
            first.join(15)
    assert got.startswith(b"HTTP/1.1 503") and b"retry-after" in got.lower() and when < 2


# ------------------------------------------------------------------------------------------ the Host check


def test_host_names():
    assert [host_name(h) for h in ("localhost:8000", "[::1]:8000", "127.0.0.1", "Phone.LAN.", "[::1]")] == \
        ["localhost", "::1", "127.0.0.1", "phone.lan", "::1"]
    assert [host_name(h) for h in ("", "a:b", "[::1", "[::1]x", "localhost:80:80", "x@y:z")] == [None] * 6
    assert allowed_hosts("0.0.0.0") == {"localhost", "127.0.0.1", "::1"}
    assert allowed_hosts("192.168.1.5", ["phone.lan"]) == {"localhost", "127.0.0.1", "::1", "192.168.1.5",
                                                           "phone.lan"}


def test_requests_for_another_host_are_refused():
    """A page on another site that rebinds its name to 127.0.0.1 sends its own name as Host: refused."""
    with TestClient(create_app(detector=_detector()), base_url=LOCAL) as c:
        for host in ("localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
            assert c.get("/healthz", headers={"Host": host}).status_code == 200, host
        for host in ("rebind.example", "rebind.example:8000", "localhost.rebind.example", "0.0.0.0:8000",
                     "localhost@rebind.example", "192.168.1.5:8000", ""):
            r = c.get("/healthz", headers={"Host": host})
            assert "--allow-host" in _refusal(r, 400), host
            r = c.post("/api/score", json={"hand": HAND}, headers={"Host": host})
            assert r.status_code == 400
        assert c.get("/", headers={"Host": "rebind.example"}).status_code == 400
    app = create_app(detector=_detector(), host="192.168.1.5", allow_hosts=("phone.lan", "10.0.0.7"))
    with TestClient(app, base_url=LOCAL) as c:
        for host in ("192.168.1.5:8000", "phone.lan:8000", "PHONE.lan", "10.0.0.7", "localhost"):
            assert c.get("/healthz", headers={"Host": host}).status_code == 200, host
        assert c.get("/healthz", headers={"Host": "rebind.example"}).status_code == 400


def test_a_request_without_host_is_refused_on_a_real_server():
    with served(create_app(detector=_detector())) as url:
        with socket.create_connection(("127.0.0.1", _port(url)), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
            got, _ = _answer(s, within=5)
    assert got.startswith(b"HTTP/1.1 400") and b"no Host header" in got


# ------------------------------------------------------------------------------------------ the command


def test_serve_takes_allow_host_and_says_how_to_reach_it_from_the_lan(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(pipeline, "load_detector", lambda *a, **k: "detector")
    monkeypatch.setattr(web_app, "serve", lambda *a, **kw: calls.append((a, kw)))
    monkeypatch.setattr(serve_cli, "lan_address", lambda: "192.168.1.23")
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--allow-host 192.168.1.23" in err
    (args, kw), = calls
    assert args == ("0.0.0.0", 8123) and kw["allow_hosts"] == () and kw["body_timeout"] == 30
    assert cli.main(["serve", "--allow-host", "Phone.lan", "--allow-host", "fe80::1", "--body-timeout", "5"]) == 0
    assert capsys.readouterr().err == ""                        # on 127.0.0.1: nothing to say
    assert calls[-1][1]["allow_hosts"] == ("phone.lan", "fe80::1") and calls[-1][1]["body_timeout"] == 5
    for argv in (["serve", "--allow-host", "a/b"], ["serve", "--allow-host", ""], ["serve", "--body-timeout", "0"]):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert len(calls) == 2
