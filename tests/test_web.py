"""mjtable serve: the API through FastAPI's TestClient, the upload limits, the queue, and the live events from a
recorded video (mjtable.web.live, mjtable.vision.video.Follower)."""
import base64
import json
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from mjtable import cli
from mjtable.scoring import tiles as T
from mjtable.pipeline import FileDetector
from mjtable.vision.video import Follower, VideoError, capture_target, is_stream, source_name
from mjtable.web.app import STATUS, create_app
from mjtable.web.loopback import served
from mjtable.web.upload import SPOOL

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "phone_win.jpg"
LOCAL = "http://localhost"          # the TestClient's Host: the server answers to this machine's names only


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(), base_url=LOCAL) as c:
        yield c


def _photo(data=None, name="h.jpg"):
    return {"photo": (name, PHOTO.read_bytes() if data is None else data, "image/jpeg")}


# ------------------------------------------------------------------------------------------ pages


def test_pages_and_health(client):
    h = client.get("/healthz")
    assert h.status_code == 200 and h.json()["status"] == "ok" and h.json()["max_upload_mb"] == 20
    r = client.get("/")
    page = r.text
    assert 'accept="image/*"' in page and 'capture="environment"' in page and "/static/app.js" in page
    assert "http://" not in page and "https://" not in page                        # nothing from elsewhere
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    for profile in ("mcr/default", "mcr/competition", "mcr/mcr1998", "sichuan/sbr2025"):
        assert f'value="{profile}"' in page
    o = client.get("/overlay")
    assert o.status_code == 200 and "/static/overlay.js" in o.text and "frame-ancestors" not in \
        o.headers["content-security-policy"]
    assert "EventSource" in client.get("/static/overlay.js").text
    assert "transparent" in client.get("/static/overlay.css").text
    assert client.get("/docs").status_code == 200
    assert client.get("/openapi.json").json()["paths"].keys() >= {"/api/read", "/api/score", "/api/events",
                                                                 "/healthz"}


def test_no_cors(client):
    r = client.get("/healthz", headers={"Origin": "https://elsewhere.example"})
    assert not any(k.lower().startswith("access-control-") for k in r.headers)
    pre = client.options("/api/score", headers={"Origin": "https://elsewhere.example",
                                                "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 405 and not any(k.lower().startswith("access-control-") for k in pre.headers)


def test_unknown_paths_are_json(client):
    r = client.get("/nope")
    assert r.status_code == 404 and list(r.json()) == ["error"]
    assert client.get("/api/read").status_code == 405


def test_status_table_is_ordered_from_specific_to_general():
    classes = [c for c, _ in STATUS]
    for i, a in enumerate(classes):
        for b in classes[i + 1:]:
            assert not issubclass(b, a), f"{b.__name__} after its base {a.__name__} would never be reached"


# ------------------------------------------------------------------------------------------ /api/read


def test_read_a_photo_with_referee_facts(client):
    """The phone page's form sends the ticked facts as one field, names joined by commas (referee-rulings.txt
    5 and 13)."""
    r = client.post("/api/read", files=_photo(), data={"seat_wind": "S",
                                                       "referee_facts": "wrong_draw_seen,wrecked_hand"})
    assert r.status_code == 200, r.text
    got = [f["clause"] for f in r.json()["result"]["findings"] if f["kind"] == "referee_fact"]
    assert got == ["referee-rulings.txt 5", "referee-rulings.txt 13"]
    r = client.post("/api/read", files=_photo(), data={"referee_facts": "early_draw", "rules": "sichuan"})
    assert r.status_code == 422 and "MCR" in r.json()["error"]


def test_a_stretched_copy_is_answered_with_the_advice_to_send_the_photo(client):
    """An upload stretched one way (an export that did not keep the photo's shape) is read, doubtful, and the
    phone page is given the advice to send the photo as taken."""
    img = cv2.imread(str(PHOTO))
    ok, jpg = cv2.imencode(".jpg", cv2.resize(img, (img.shape[1] * 7, img.shape[0])))
    r = client.post("/api/read", files=_photo(jpg.tobytes()), data={"seat_wind": "S"})
    assert r.status_code == 200, r.text
    trust = r.json()["result"]["trust"]
    assert trust["state"] == "doubtful" and any("stretched" in x for x in trust["reasons"])
    assert "send the photo as it was taken, not a copy resized to another shape" in trust["advice"]


def test_read_a_photo(client):
    r = client.post("/api/read", files=_photo(), data={"seat_wind": "S"})
    assert r.status_code == 200, r.text
    body = r.json()
    res = body["result"]
    assert res["result"]["is_win"] and res["result"]["total"] == 8 and res["hand"]["hand"].endswith("+8s")
    assert res["findings"] == [] and res["kind"] == "phone"
    tiles = res["tiles"]
    assert len(tiles) >= 14
    for t in tiles:
        assert len(t["box"]) == 4 and 0 <= t["p"] <= 1 and 0 <= t["confidence"] <= 1
        alts = [a["kind"] for a in t["alternatives"]]               # the detector's next two likeliest kinds
        if t["kind"] == "back":
            assert alts == []
            continue
        assert len(alts) == 2 and t["kind"] not in alts and "back" not in alts
        assert all(0 <= a["p"] <= 1 for a in t["alternatives"])
    head, data = body["annotated"].split(",", 1)
    assert head == "data:image/jpeg;base64"
    img = cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[1] >= 640


def test_read_fields(client):
    r = client.post("/api/read", files=_photo(), data={"seat_wind": "s", "round_wind": "E", "self_drawn": "on",
                                                       "rules": "mcr", "profile": "competition", "kind": "phone"})
    assert r.status_code == 200 and r.json()["result"]["profile"] == "competition"
    assert r.json()["result"]["hand"]["self_drawn"] is True
    r = client.post("/api/read", files=_photo(), data={"rules": "sichuan", "profile": "sbr2025", "void_suit": "p"})
    assert r.status_code == 200 and r.json()["result"]["rules"] == "sichuan"


@pytest.mark.parametrize("files,data,status,says", [
    (_photo(b"not an image"), {}, 400, "image"),
    (_photo(b""), {}, 400, ""),
    (_photo(), {"self_drawn": "maybe"}, 422, "self_drawn"),
    (_photo(), {"profile": "nonsense"}, 422, "profile"),
    (_photo(), {"rules": "riichi"}, 422, "rules"),
    (_photo(), {"seat_wind": "X"}, 422, "seat_wind"),
    (_photo(), {"void_suit": "z"}, 422, "void_suit"),
    (_photo(), {"kind": "table"}, 422, "kind"),
    (_photo(), {"sef_drawn": "true"}, 422, "unknown field"),
    (_photo(), {"robbing_kong": "true", "self_drawn": "true"}, 422, ""),
    ({"other": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, {}, 422, "photo"),
    (None, {"photo": "text, not a file"}, 422, "photo"),
])
def test_read_refusals_are_one_line_json(client, files, data, status, says):
    r = client.post("/api/read", files=files, data=data)
    assert r.status_code == status, r.text
    assert list(r.json()) == ["error"] and "\n" not in r.json()["error"] and says in r.json()["error"]
    assert "Traceback" not in r.text
    assert client.app.state.service.reads.n == 0                      # every refusal left the queue


def test_an_upload_cut_short_before_its_closing_boundary_is_refused(client):
    """A phone on a failing connection sends part of the photo: without the closing boundary the body is refused
    (400), not read as a photo (a cut JPEG decodes as its top part)."""
    photo = (ROOT / "examples" / "phone_win.jpg").read_bytes()
    head = (b"--xx\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n"
            b"Content-Type: image/jpeg\r\n\r\n")
    cut = client.post("/api/read", content=head + photo[: len(photo) // 2],
                      headers={"Content-Type": "multipart/form-data; boundary=xx"})
    assert cut.status_code == 400 and "cut short" in cut.json()["error"]
    whole = client.post("/api/read", content=head + photo + b"\r\n--xx--\r\n",
                        headers={"Content-Type": "multipart/form-data; boundary=xx"})
    assert whole.status_code == 200, whole.text


def test_read_refusals_of_the_body(client):
    r = client.post("/api/read", content=b"photo=1", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422 and "multipart" in r.json()["error"]
    r = client.post("/api/read", content=b"--xx\r\nbroken",
                    headers={"Content-Type": "multipart/form-data; boundary=xx"})
    assert r.status_code in (400, 422) and list(r.json()) == ["error"]
    r = client.post("/api/read", content=b"", headers={"Content-Type": "multipart/form-data"})
    assert r.status_code == 400 and "boundary" in r.json()["error"]
    many = {f"f{i}": "1" for i in range(40)}
    r = client.post("/api/read", files=_photo(), data=many)
    assert r.status_code == 422 and "fields" in r.json()["error"]
    r = client.post("/api/read", files=_photo(), data={"seat_wind": "E" * 5000})
    assert r.status_code == 422 and "longer than" in r.json()["error"]
    # a photo that decodes but shows no tile: nothing to read
    ok, png = cv2.imencode(".png", np.full((200, 300, 3), 90, np.uint8))
    r = client.post("/api/read", files=_photo(png.tobytes(), "grey.png"))
    assert r.status_code == 422 and "no tiles" in r.json()["error"]


def test_upload_over_the_limit_is_413(tmp_path):
    app = create_app(detector=FileDetector(str(ROOT / "examples" / "phone_win.json")), max_upload_mb=0.01)
    with TestClient(app, base_url=LOCAL) as c:
        r = c.post("/api/read", files=_photo())                          # Content-Length says so: not read
        assert r.status_code == 413 and "larger than 0.01 MB" in r.json()["error"]
        sent = []

        def chunks():                                                    # no Content-Length: counted as it comes
            head = (b"--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"x.jpg\"\r\n"
                    b"Content-Type: image/jpeg\r\n\r\n")
            yield head
            for _ in range(200):
                sent.append(1)
                yield b"\xff" * 4096
            yield b"\r\n--b--\r\n"
        r = c.post("/api/read", content=chunks(), headers={"Content-Type": "multipart/form-data; boundary=b"})
        assert r.status_code == 413 and list(r.json()) == ["error"]
        svc = app.state.service
        assert svc.reads.n == 0 and list(Path(svc.tmpdir).iterdir()) == []
        small = c.post("/api/read", files=_photo(b"\xff\xd8" + b"\0" * 100))
        assert small.status_code == 400                                  # under the limit: read, not an image


def test_large_uploads_spool_to_the_servers_own_folder_and_go():
    noise = np.random.default_rng(0).integers(0, 255, (900, 1200, 3), np.uint8)
    ok, png = cv2.imencode(".png", noise)
    assert ok and png.size > SPOOL                                       # spooled to disk past 1 MB
    app = create_app(detector=FileDetector(str(ROOT / "examples" / "phone_win.json")))
    with TestClient(app, base_url=LOCAL) as c:
        r = c.post("/api/read", files=_photo(png.tobytes(), "noise.png"), data={"seat_wind": "S"})
        assert r.status_code == 200 and r.json()["result"]["result"]["total"] == 8
        tmp = Path(app.state.service.tmpdir)
        assert tmp.is_dir() and list(tmp.iterdir()) == []                # the spooled photo is gone already
    assert not tmp.exists()                                              # and the folder with the server


# ------------------------------------------------------------------------------------------ /api/score


def test_score_and_its_refusals(client):
    r = client.post("/api/score", json={"hand": "123m456p789s1z [555z^] +1z", "seat_wind": "E"})
    assert r.status_code == 200 and r.json()["result"]["result"]["total"] == 17
    for body, status in (({"hand": "12"}, 422), ({"hand": "123m +1z"}, 422), ({"nope": 1}, 422), ([1, 2], 422),
                         ({"hand": 5}, 422), ({"hand": "123m456p789s1z [555z^] +1z", "seat_wind": 3}, 422),
                         ({"hand": "123m456p789s1z [555z^] +1z", "self_drawn": "maybe"}, 422),
                         ({"hand": "123m456p789s1z [555z^] +1z", "robbing_kong": True, "self_drawn": True}, 422),
                         ({"hand": "123m456p789s1z [555z^] +1z", "concealed": "11z"}, 422),
                         ({"hand": "1m" * 400}, 422)):
        r = client.post("/api/score", json=body)
        assert r.status_code == status and list(r.json()) == ["error"] and "\n" not in r.json()["error"], body
    assert client.post("/api/score", content=b"{broken").status_code == 422
    assert client.post("/api/score", content=b"{" + b" " * (70 << 10) + b"}").status_code == 413
    assert client.app.state.service.scores.n == 0


def test_score_takes_referee_facts(client):
    """referee-rulings.txt 6 through /api/score: "referee_facts" as a list of names gives the fact's finding."""
    hand = {"hand": "123m456p789s1z [555z^] +1z"}
    r = client.post("/api/score", json={**hand, "referee_facts": ["early_draw=2"]})
    f, = [f for f in r.json()["result"]["findings"] if f["kind"] == "referee_fact"]
    assert f["clause"] == "referee-rulings.txt 6" and "罚扣 5分" in f["penalty"]
    for bad in (["nonsense"], "early_draw", [1]):
        r = client.post("/api/score", json={**hand, "referee_facts": bad})
        assert r.status_code == 422 and "referee_facts" in r.json()["error"]


def test_score_takes_the_json_hand_form(client):
    """The structured form of mjtable.scoring.jsonio scores as its notation does."""
    structured = {"concealed": "123m456p789s1z", "melds": [{"kind": "pung", "tiles": "555z", "source": "across"}],
                  "winning_tile": "1z", "prevalent_wind": "E", "winning_tile_apart": True, "id": "hand-7"}
    r = client.post("/api/score", json=structured)
    assert r.status_code == 200, r.text
    assert r.json()["id"] == "hand-7" and r.json()["result"]["result"]["total"] == 17
    r = client.post("/api/score", json={"concealed": "123m456p789s1z", "melds": [{"tiles": "55z"}],
                                        "winning_tile": "1z"})
    assert r.status_code == 422 and "bad hand" in r.json()["error"]


def test_score_sichuan(client):
    r = client.post("/api/score", json={"hand": "1112345678999m +5m", "rules": "sichuan", "profile": "sbr2025",
                                        "self_drawn": True})
    assert r.status_code == 200
    res = r.json()["result"]["result"]
    assert res["rules"] == "sichuan" and res["is_win"] and res["payments"]


# ------------------------------------------------------------------------------------------ the queue


class Slow:
    """The phone example's detections, after the gate opens."""

    def __init__(self):
        self.gate = threading.Event()
        self.inner = FileDetector(str(ROOT / "examples" / "phone_win.json"))

    def detect(self, img, kind="auto"):
        self.gate.wait(10)
        return self.inner.detect(img, kind)


def test_a_full_queue_answers_503_before_reading_the_body():
    slow = Slow()
    app = create_app(detector=slow, queue_size=1)
    with TestClient(app, base_url=LOCAL) as c:
        results = []
        t = threading.Thread(target=lambda: results.append(
            c.post("/api/read", files=_photo(), data={"seat_wind": "S"})))
        t.start()
        for _ in range(100):
            if app.state.service.reads.n:
                break
            time.sleep(0.02)
        busy = c.post("/api/read", files=_photo())
        assert c.get("/healthz").json()["photos_admitted"] == 1        # the event loop is free meanwhile
        scored = c.post("/api/score", json={"hand": "123m456p789s1z [555z^] +1z"})   # hands have their own queue
        slow.gate.set()
        t.join(10)
    assert busy.status_code == 503 and int(busy.headers["Retry-After"]) >= 1 and "busy" in busy.json()["error"]
    assert scored.status_code == 200
    assert results[0].status_code == 200 and results[0].json()["result"]["result"]["total"] == 8


def test_concurrent_reads_all_answer():
    app = create_app(detector=FileDetector(str(ROOT / "examples" / "phone_win.json")), workers=2)
    with TestClient(app, base_url=LOCAL) as c:
        out = []
        ts = [threading.Thread(target=lambda: out.append(c.post("/api/read", files=_photo(), data={"seat_wind": "S"})))
              for _ in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(30)
    assert [r.status_code for r in out] == [200] * 6
    assert {r.json()["result"]["result"]["total"] for r in out} == {8}


# ------------------------------------------------------------------------------------------ live events


class Growing:
    """The overhead example's ground-truth boxes, with the self seat's last discard appearing from call 3 on."""

    def __init__(self):
        self.calls = 0
        gt = json.loads((ROOT / "examples" / "overhead.json").read_text())
        dets = FileDetector(str(ROOT / "examples" / "overhead.json")).dets
        self.full = dets
        last = max(i for i, o in enumerate(gt["objects"]) if o["seat"] == "self" and o["group"] == "discard")
        self.before = [d for i, d in enumerate(dets) if i != last]
        self.last_tile = T.code(dets[last].kind)

    def detect(self, img, kind="auto"):
        self.calls += 1
        return list(self.before if self.calls <= 2 else self.full)


class Winning:
    """The phone example's detections from call 3 on; nothing before (the hand not yet laid down)."""

    def __init__(self):
        self.calls = 0
        self.dets = FileDetector(str(ROOT / "examples" / "phone_win.json")).dets

    def detect(self, img, kind="auto"):
        self.calls += 1
        return [] if self.calls <= 2 else list(self.dets)


def make_video(path: Path, n: int = 6, fps: float = 1.0, image: Path = ROOT / "examples" / "overhead.jpg") -> Path:
    frame = cv2.imread(str(image))
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (frame.shape[1], frame.shape[0]))
    assert vw.isOpened()
    for _ in range(n):
        vw.write(frame)
    vw.release()
    return path


def sse(response) -> list[tuple[str, dict]]:
    """(event, data) pairs of a server-sent event stream, until it ends."""
    out, kind = [], None
    for line in response.iter_lines():
        if line.startswith("event:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and kind is not None:
            out.append((kind, json.loads(line.split(":", 1)[1])))
            kind = None
    return out


def test_live_events_from_a_recorded_video(tmp_path):
    det = Growing()
    app = create_app(detector=det, source=str(make_video(tmp_path / "t.avi")), kind="overhead", realtime=False)
    with TestClient(app, base_url=LOCAL) as c, c.stream("GET", "/api/events") as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = sse(r)
    kinds = [k for k, _ in events]
    assert kinds[0] == "snapshot" and kinds[-1] == "end" and "table" in kinds
    changes = [d for k, d in events if k == "change"]
    seqs = [d["seq"] for k, d in events if k not in ("snapshot", "end")]
    assert seqs == sorted(set(seqs))                                     # each event once, in order
    snap = events[0][1]
    seen = {(s, f): v for s, fs in snap["seats"].items() for f, v in fs.items()}
    seen.update({(d["seat"], d["field"]): d["now"] for d in changes})
    assert seen[("self", "discards")].endswith(det.last_tile)            # the river's whole value ...
    new = [d for d in changes if d["seat"] == "self" and d["field"] == "discards" and d["time_s"] >= 2]
    assert new and new[0]["text"] == f"discards {det.last_tile}"         # ... and the discard, when it came
    assert all("captured" in d and "frame" in d for d in changes)
    table = next(d for k, d in events if k == "table")["table"]
    assert {p["seat"] for p in table["players"]} == {"self", "right", "across", "left"}
    # a page joining after the end gets the same table at once
    with TestClient(app, base_url=LOCAL) as c2, c2.stream("GET", "/api/events") as r2:
        late = sse(r2)
    assert [k for k, _ in late] == ["snapshot", "end"]
    assert late[0][1]["seats"]["self"]["discards"].endswith(det.last_tile)
    assert late[0][1]["last_discard"]["tile"] == det.last_tile and late[0][1]["table"] is not None


def test_live_win_is_scored_when_it_settles(tmp_path):
    video = make_video(tmp_path / "w.avi", n=5, image=PHOTO)
    app = create_app(detector=Winning(), source=str(video), kind="phone", realtime=False)
    with TestClient(app, base_url=LOCAL) as c, c.stream("GET", "/api/events") as r:
        events = sse(r)
    wins = [d for k, d in events if k == "win"]
    assert len(wins) == 1                                                # once, not on every frame
    w = wins[0]
    assert w["seat"] == "self" and w["hand"].endswith("+8s") and w["result"]["is_win"]
    assert w["result"]["total"] > 0 and w["result"]["fans"] and w["time_s"] == 2.0
    assert [k for k, _ in events].index("win") < [k for k, _ in events].index("table")


def test_live_source_that_cannot_be_read_says_why(tmp_path):
    bad = tmp_path / "x.mp4"
    bad.write_text("not a video")
    for realtime in (False, True):
        app = create_app(detector=Growing(), source=str(bad), realtime=realtime)
        with TestClient(app, base_url=LOCAL) as c, c.stream("GET", "/api/events") as r:
            events = sse(r)
        said = [d["error"] for k, d in events if k == "error"] + [d["error"] for k, d in events if k == "snapshot"]
        assert events[-1][0] == "end" and any(e and "x.mp4" in e for e in said), events
        assert c.get("/healthz").json()["live"]["error"]


def test_live_follows_a_video_at_its_own_pace(tmp_path):
    """Played as a camera: the events come while the video plays (through a real server: TestClient buffers)."""
    import httpx
    video = make_video(tmp_path / "p.avi", n=12, fps=4.0)              # 3 s of video
    app = create_app(detector=Growing(), source=str(video), kind="overhead", every=0.25)
    with served(app) as url, httpx.stream("GET", url + "/api/events", timeout=30) as r:
        t0 = time.monotonic()
        stamps, kind = [], None
        for line in r.iter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
                stamps.append((kind, time.monotonic() - t0))
    kinds = [k for k, _ in stamps]
    assert kinds[0] == "snapshot" and kinds[-1] == "end" and "change" in kinds
    end = stamps[-1][1]
    assert end >= 1.5
    discard = [s for k, s in stamps if k == "change"][-1]
    assert discard < end - 0.5                                           # not all at once after the video
    assert app.state.live.stats["read"] >= 8


def test_no_source_no_events(client):
    r = client.get("/api/events")
    assert r.status_code == 404 and "--source" in r.json()["error"]


def test_bad_live_options_are_refused_at_once(tmp_path):
    from mjtable.errors import UsageError
    with pytest.raises(UsageError):
        create_app(detector=Growing(), source="x.avi", kind="table")
    with pytest.raises(UsageError):
        create_app(detector=Growing(), source="x.avi", rules="mcr", profile="nonsense")


# ------------------------------------------------------------------------------------------ the frame follower


def _solid_video(path: Path, n: int, fps: float) -> Path:
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    for i in range(n):
        vw.write(np.full((48, 64, 3), 8 * i, np.uint8))
    vw.release()
    return path


def test_follower_paces_a_file_and_drops_frames_rather_than_fall_behind(tmp_path):
    v = _solid_video(tmp_path / "f.avi", 20, 20.0)                      # 1 s of video
    t0 = time.monotonic()
    with Follower(v, every=0.01) as f:
        got = [(i, t) for i, t, _, _ in f]
    assert 0.8 <= time.monotonic() - t0 < 3                             # played at its own pace
    assert [i for i, _ in got] == list(range(20)) and f.dropped == 0
    slow = Follower(v, every=0.01)
    taken = []
    for i, t, img, captured in slow:
        taken.append(i)
        assert abs(captured - time.time()) < 1
        time.sleep(0.2)                                                  # a reader four frames slow
    assert len(taken) < 10 and slow.dropped >= 10 and taken == sorted(taken)
    assert taken[-1] >= 15                                               # it kept up with the source's time


def test_follower_samples_by_time(tmp_path):
    v = _solid_video(tmp_path / "s.avi", 20, 20.0)
    with Follower(v, every=0.25) as f:
        ts = [t for _, t, _, _ in f]
    assert ts == [0.0, 0.25, 0.5, 0.75]


def test_follower_follows_a_url_as_a_stream_and_opens_it_again(tmp_path):
    """A URL is a live stream: times are the clock's, and a stream that ends is opened again (a camera that
    dropped), not taken for the end of the table."""
    import functools
    import http.server
    import socketserver

    _solid_video(tmp_path / "v.avi", 10, 10.0)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        f = Follower(f"http://127.0.0.1:{srv.server_address[1]}/v.avi", every=0.01)
        assert f.stream
        seen = []
        for i, t, img, captured in f:
            seen.append(i)
            if f.reopened and i >= 10:
                break
        assert seen[0] == 0 and seen[-1] >= 10 and f.reopened >= 1
    finally:
        srv.shutdown()
        srv.server_close()


def test_follower_refusals(tmp_path):
    with pytest.raises(VideoError, match="no such file"):
        list(Follower(tmp_path / "none.avi"))
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"\0" * 1000)
    with pytest.raises(VideoError):
        list(Follower(bad))
    with pytest.raises(ValueError):
        Follower(bad, every=0)


def test_sources():
    assert capture_target("0") == 0 and capture_target(" 2 ") == 2 and capture_target("a.mp4") == "a.mp4"
    assert is_stream("0") and is_stream("rtsp://cam/x") and not is_stream("game.mp4")
    assert source_name("rtsp://admin:secret@10.0.0.2/live") == "rtsp://10.0.0.2/live"


# ------------------------------------------------------------------------------------------ the command


def test_serve_command_refuses_bad_options(capsys):
    for argv in (["serve", "--port", "x"], ["serve", "--max-upload-mb", "0"], ["serve", "--rules", "riichi"],
                 ["serve", "--profile", "nonsense"], ["serve", "--kind", "table"]):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert cli.main(["serve", "--help"]) == 0 and "--max-upload-mb" in capsys.readouterr().out


def test_a_subscriber_that_fell_behind_still_gets_the_end():
    """More than QUEUE events behind, a page is sent a fresh snapshot instead of the backlog; when the source
    had ended by then, the stream sends "end" and closes (it had stayed open for good, and the overlay closes only
    on "end")."""
    import asyncio

    from mjtable.web.app import _event_stream
    from mjtable.web.live import QUEUE, LiveTable

    async def run():
        live = LiveTable(str(ROOT / "missing.avi"), FileDetector(str(ROOT / "examples" / "phone_win.json")))
        sub, snap = live.subscribe(asyncio.get_running_loop())
        for _ in range(QUEUE + 44):               # the reader thread's events, faster than the page reads them
            live._emit({"type": "change", "seat": "self", "field": "discards", "text": "discards 1m", "now": "1m",
                        "time_s": 1.0})
        live._emit({"type": "end"})
        await asyncio.sleep(0.1)
        got = []

        async def consume():
            async for ev in _event_stream(live, sub, snap):
                got.append(ev["event"])
        await asyncio.wait_for(consume(), 5)
        return got

    got = asyncio.run(run())
    assert got[0] == "snapshot" and "snapshot" in got[1:] and got[-1] == "end"
