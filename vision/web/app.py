"""The web server behind ``mjtable serve``: every request goes through mjtable.vision.pipeline.

    GET  /               the phone upload page (static/index.html: plain HTML, CSS and JS, no CDN)
    POST /api/read       multipart ``photo`` + situation fields
                         -> {"result": Reading.to_dict(), "annotated": a PNG data URL}
    POST /api/score      JSON {"hand": NOTATION, ...situation} -> {"result": ...}   (re-scoring after a correction)
    GET  /api/events     server-sent events of the live table read from --source (history first, then live)
    GET  /overlay        the OBS browser-source overlay (transparent), fed by /api/events
    GET  /healthz        {"status": "ok", "version": ...}; /docs is FastAPI's OpenAPI page

Refusals are one-line JSON {"error": "..."} with a status from one table (STATUS): an upload over the limit 413,
not an image 400, bad fields or an impossible hand 422, a full inference queue 503 with Retry-After. Inference
runs in one worker thread off the event loop, with a bounded queue.
"""
from __future__ import annotations

import asyncio
import base64
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sse_starlette.sse import EventSourceResponse

from mjtable import __version__
from mjtable.errors import (
    BadHandError,
    InputError,
    MjtableError,
    ModelError,
    NotAWinError,
    OutputError,
    UnreadableError,
    UsageError,
)

from .. import pipeline

STATIC = Path(__file__).resolve().parent / "static"
STATUS = {UsageError: 422, InputError: 400, UnreadableError: 422, BadHandError: 422, NotAWinError: 200,
          ModelError: 503, OutputError: 500}
SITUATION_FIELDS = ("seat_wind", "round_wind", "self_drawn", "last_tile", "kong_replacement", "robbing_kong",
                    "last_copy", "void_suit", "after_kong_discard")


class TooLarge(Exception):
    pass


def status_of(e: MjtableError) -> int:
    return next((code for cls, code in STATUS.items() if isinstance(e, cls)), 500)


def _situation(fields: dict):
    kw = {}
    for k in SITUATION_FIELDS:
        v = fields.get(k)
        if v in (None, ""):
            continue
        if k in ("seat_wind", "round_wind", "void_suit"):
            kw[k] = str(v)
        elif isinstance(v, bool):
            kw[k] = v
        elif str(v).lower() in ("1", "true", "on", "yes"):
            kw[k] = True
        elif str(v).lower() in ("0", "false", "off", "no"):
            kw[k] = False
        else:
            raise UsageError(f"{k}: want true or false, got {v!r}")
    return pipeline.situation(**kw)


def _rules(fields: dict) -> tuple[str, Optional[str]]:
    rules = str(fields.get("rules") or "mcr")
    profile = fields.get("profile") or None
    pipeline.check_rules(rules, profile)
    return rules, profile


class LiveTable:
    """Follows --source in a thread: each settled change becomes an event; keeps the history for late joiners.
    A slow reader never holds the camera back: frames that arrive while one is read are dropped."""

    def __init__(self, source: str, detector, every: float = 1.0, hold: int = 2, kind: str = "auto"):
        self.source, self.detector, self.every, self.hold, self.kind = source, detector, every, hold, kind
        self.history: list[dict] = []
        self.done = False
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="live-table", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _emit(self, ev: dict) -> None:
        with self.cond:
            self.history.append(ev)
            self.cond.notify_all()

    def _run(self) -> None:
        from ..video import watch
        try:
            rd = watch(self.source, self.detector, every=self.every, hold=self.hold, kind=self.kind,
                       on_event=lambda e: self._emit({"type": "change", "time_s": round(e.time_s, 2), "seat": e.seat,
                                                      "field": e.field, "text": e.text, "now": e.now}))
            sit = pipeline.situation()
            table = pipeline.review(rd.table, sit).to_dict() if rd.read else None
            self._emit({"type": "table", "table": table})
        except MjtableError as e:
            self._emit({"type": "error", "error": str(e)})
        except Exception as e:                      # the server goes on; the overlay shows the reason
            self._emit({"type": "error", "error": f"{type(e).__name__}: {e}"})
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def wait_after(self, n: int, timeout: float) -> tuple[list[dict], bool]:
        """Events after the first n (waiting up to timeout for one), and whether the source has ended."""
        with self.cond:
            if len(self.history) <= n and not self.done:
                self.cond.wait(timeout)
            return self.history[n:], self.done


def create_app(detector=None, source: Optional[str] = None, max_upload_mb: float = 20.0, queue_size: int = 64,
               every: float = 1.0, hold: int = 2, kind: str = "auto"):
    app = FastAPI(title="mjtable", version=__version__,
                  description="Read a photo of a Mahjong table: the hand, its score and the referee's findings.")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="read")
    state = {"pending": 0, "detector": detector}
    lock = threading.Lock()
    limit = int(max_upload_mb * (1 << 20))
    live = None
    if source is not None:
        live = LiveTable(source, detector or pipeline.load_detector(), every, hold, kind)
        live.start()

    def refuse(status: int, message: str, headers: Optional[dict] = None):
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    async def run(fn, *args):
        with lock:
            if state["pending"] >= queue_size:
                return None
            state["pending"] += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        finally:
            with lock:
                state["pending"] -= 1

    def det():
        if state["detector"] is None:
            state["detector"] = pipeline.load_detector()
        return state["detector"]

    def read_photo(data: bytes, fields: dict) -> dict:
        import cv2

        from ..annotate import annotate
        rules, profile = _rules(fields)
        sit = _situation(fields)
        img = pipeline.load_image(data)
        out = pipeline.read_image(img, det(), sit, rules, profile)
        ok, png = cv2.imencode(".png", annotate(img, out.layout, out.hand, out.result, out.findings))
        url = "data:image/png;base64," + base64.b64encode(png.tobytes()).decode() if ok else None
        return {"result": out.to_dict(), "annotated": url}

    def score_hand(body: dict) -> dict:
        if not isinstance(body.get("hand"), str):
            raise UsageError('want {"hand": NOTATION, ...}')
        rules, profile = _rules(body)
        return {"result": pipeline.read_notation(body["hand"], _situation(body), rules, profile).to_dict()}

    async def answer(fn, *args):
        try:
            got = await run(fn, *args)
        except MjtableError as e:
            return refuse(status_of(e), str(e))
        except Exception as e:                      # never a traceback to the client
            return refuse(500, f"internal error: {type(e).__name__}")
        if got is None:
            return refuse(503, "busy: too many photos being read; try again", {"Retry-After": "1"})
        return JSONResponse(got)

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html")

    @app.get("/overlay", include_in_schema=False)
    async def overlay():
        return FileResponse(STATIC / "overlay.html")

    @app.get("/healthz")
    async def healthz():
        return {"status": "ok", "version": __version__}

    @app.post("/api/read")
    async def api_read(request: Request):
        """Multipart form: ``photo`` (an image file) and the situation fields; at most max_upload_mb."""
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > limit + (1 << 16):
            return refuse(413, f"upload larger than {max_upload_mb:g} MB")
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return refuse(422, "want a multipart/form-data upload with a 'photo' field")
        try:
            form = await request.form(max_files=1, max_fields=32, max_part_size=limit)
        except Exception as e:                       # a part over the limit, or a broken multipart body
            return refuse(413 if "size" in str(e).lower() or "large" in str(e).lower() else 400,
                          f"cannot read the upload: {e}")
        photo = form.get("photo")
        if photo is None or isinstance(photo, str):
            return refuse(422, "want a file in the 'photo' field")
        data = await photo.read(limit + 1)
        if len(data) > limit:
            return refuse(413, f"upload larger than {max_upload_mb:g} MB")
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        return await answer(read_photo, data, fields)

    @app.post("/api/score")
    async def api_score(request: Request):
        """JSON: {"hand": NOTATION, "rules": ..., "profile": ..., situation fields} -> the score."""
        raw = await request.body()
        if len(raw) > 1 << 16:
            return refuse(413, "request larger than 64 KB")
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return refuse(422, f"invalid JSON: {e}")
        if not isinstance(body, dict):
            return refuse(422, "want a JSON object")
        return await answer(score_hand, body)

    @app.get("/api/events")
    async def api_events():
        if live is None:
            return refuse(404, "no live source: start the server with --source VIDEO|CAMERA|URL")

        async def stream():
            n = 0
            while True:
                events, done = await asyncio.get_running_loop().run_in_executor(None, live.wait_after, n, 1.0)
                for ev in events:
                    yield {"event": ev["type"], "data": json.dumps(ev, ensure_ascii=False)}
                n += len(events)
                if done and not events:
                    yield {"event": "end", "data": "{}"}
                    return
        return EventSourceResponse(stream())

    app.state.live = live
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, **kw) -> None:
    import uvicorn
    uvicorn.run(create_app(**kw), host=host, port=port, log_level="warning")
