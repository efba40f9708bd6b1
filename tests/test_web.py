"""mjtable serve: the API through FastAPI's TestClient, and the live events from a recorded video."""
import json
from pathlib import Path

import cv2
import pytest
from fastapi.testclient import TestClient

from mjtable.vision.pipeline import FileDetector
from mjtable.vision.web.app import create_app

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "phone_win.jpg"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def test_pages_and_health(client):
    assert client.get("/healthz").json()["status"] == "ok"
    page = client.get("/").text
    assert 'accept="image/*"' in page and 'capture="environment"' in page and "/static/app.js" in page
    assert "EventSource" in client.get("/static/overlay.js").text and client.get("/overlay").status_code == 200
    assert client.get("/openapi.json").json()["paths"].keys() >= {"/api/read", "/api/score"}


def test_read_a_photo(client):
    r = client.post("/api/read", files={"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, data={"seat_wind": "S"})
    assert r.status_code == 200
    body = r.json()
    res = body["result"]
    assert res["result"]["is_win"] and res["result"]["total"] == 8
    assert res["tiles"] and all("alternatives" in t and 0 <= t["p"] <= 1 for t in res["tiles"])
    assert body["annotated"].startswith("data:image/png;base64,")


@pytest.mark.parametrize("files,data,status", [
    ({"photo": ("a.jpg", b"not an image", "image/jpeg")}, {}, 400),
    ({"photo": ("a.jpg", b"", "image/jpeg")}, {}, 400),
    ({"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, {"self_drawn": "maybe"}, 422),
    ({"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, {"profile": "nonsense"}, 422),
    ({"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, {"seat_wind": "X"}, 422),
    ({"other": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, {}, 422),
])
def test_read_refusals_are_one_line_json(client, files, data, status):
    r = client.post("/api/read", files=files, data=data)
    assert r.status_code == status and list(r.json()) == ["error"] and "\n" not in r.json()["error"]
    assert "Traceback" not in r.text


def test_upload_over_the_limit_is_413():
    with TestClient(create_app(max_upload_mb=0.01)) as c:
        r = c.post("/api/read", files={"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")})
    assert r.status_code == 413 and "larger than" in r.json()["error"]


def test_score_and_its_refusals(client):
    r = client.post("/api/score", json={"hand": "123m456p789s1z [555z^] +1z", "seat_wind": "E"})
    assert r.status_code == 200 and r.json()["result"]["result"]["total"] == 17
    for body, status in (({"hand": "12"}, 422), ({"hand": "123m +1z"}, 422), ({"nope": 1}, 422),
                         ({"hand": "123m456p789s1z [555z^] +1z", "robbing_kong": True, "self_drawn": True}, 422)):
        r = client.post("/api/score", json=body)
        assert r.status_code == status and "error" in r.json()
    assert client.post("/api/score", content=b"{broken").status_code == 422


def test_a_full_queue_answers_503():
    import threading
    gate = threading.Event()

    class Slow:
        def detect(self, img, kind="auto"):
            gate.wait(10)
            return FileDetector(str(ROOT / "examples" / "phone_win.json")).dets

    with TestClient(create_app(detector=Slow(), queue_size=1)) as c:
        results = []
        t = threading.Thread(target=lambda: results.append(c.post(
            "/api/read", files={"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")}, data={"seat_wind": "S"})))
        t.start()
        import time
        time.sleep(0.5)
        busy = c.post("/api/read", files={"photo": ("h.jpg", PHOTO.read_bytes(), "image/jpeg")})
        gate.set()
        t.join(10)
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "1"
    assert results[0].status_code == 200


class Growing:
    """The overhead example's ground-truth boxes, with the self seat's last discard appearing from frame 3 on."""

    def __init__(self):
        self.calls = 0
        gt = json.loads((ROOT / "examples" / "overhead.json").read_text())
        dets = FileDetector(str(ROOT / "examples" / "overhead.json")).dets
        self.full = dets
        last = max((i for i, o in enumerate(gt["objects"]) if o["seat"] == "self" and o["group"] == "discard"))
        self.before = [d for i, d in enumerate(dets) if i != last]

    def detect(self, img, kind="auto"):
        self.calls += 1
        return list(self.before if self.calls <= 2 else self.full)


def make_video(path: Path, n: int = 6) -> Path:
    frame = cv2.imread(str(ROOT / "examples" / "overhead.jpg"))
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 1.0, (frame.shape[1], frame.shape[0]))
    for _ in range(n):
        vw.write(frame)
    vw.release()
    return path


def test_live_events_from_a_recorded_video(tmp_path):
    app = create_app(detector=Growing(), source=str(make_video(tmp_path / "t.avi")), kind="overhead")
    app.state.live.thread.join(60)
    with TestClient(app) as c, c.stream("GET", "/api/events") as r:
        kinds, payloads = [], []
        for line in r.iter_lines():
            if line.startswith("event:"):
                kinds.append(line.split(":", 1)[1].strip())
            elif line.startswith("data:"):
                payloads.append(json.loads(line.split(":", 1)[1]))
    assert kinds[-1] == "end" and "table" in kinds
    changes = [p for k, p in zip(kinds, payloads) if k == "change"]
    assert any(p["seat"] == "self" and p["field"] == "discards" and p["time_s"] >= 2 for p in changes)


def test_no_source_no_events(client):
    assert client.get("/api/events").status_code == 404
