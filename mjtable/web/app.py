"""The web server behind ``mjtable serve``: every request goes through mjtable.pipeline.

    GET  /               the phone upload page (static/index.html: plain HTML, CSS and JS, no build step, no CDN)
    POST /api/read       multipart ``photo`` + rules and situation fields
                         -> {"result": Reading.to_dict(), "annotated": a JPEG data URL}
    POST /api/score      JSON {"hand": NOTATION | "concealed"/"melds"/"winning_tile"/"flowers", ...situation}
                         -> {"result": Reading.to_dict()}   (re-scoring after a correction)
    GET  /api/events     server-sent events of the live table read from --source (mjtable.web.live)
    GET  /overlay        the OBS browser-source overlay (transparent), fed by /api/events
    GET  /healthz        {"status": "ok", ...}; /docs is FastAPI's OpenAPI page

Refusals are one-line JSON {"error": "..."} with the status of one table (STATUS), never a traceback, and one
log line each (mjtable.web.guard, which also checks the Host header and the body deadline). Photos are
read in a worker thread off the event loop; a bounded number of photos is admitted (queue_size), each once its
body has arrived whole: past it, 503 with Retry-After (at once, before the body is read, when the queue is
already full). An upload is read in chunks (mjtable.web.upload): refused with 413 the moment it passes the
limit, with 408 when it has not arrived within the body deadline; past 1 MB it is spooled in the server's own
temporary folder, removed when the server stops. A /api/score body is JSON of at most 64 KB, 32 levels deep,
with finite numbers of at most 20 digits. No CORS headers: the pages are served from the same origin as the API.
"""
from __future__ import annotations

import asyncio
import base64
import json
import math
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Optional

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sse_starlette.sse import EventSourceResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from mjtable import __version__, pipeline
from mjtable.errors import (
    BadHandError,
    InputError,
    MjtableError,
    ModelError,
    NotAWinError,
    OutputError,
    UnreadableError,
    UsageError,
    one_line,
)
from mjtable.scoring.jsonio import JsonInputError, loads
from mjtable.scoring.rulings import Facts, check_facts
from mjtable.scoring.situation_fields import CANONICAL, FIELDS, FLAG, NAMES
from mjtable.scoring.situation_model import situation

from .guard import Guard, SecurityHeaders, SlowBody, allowed_hosts
from .upload import BrokenUpload, FormError, TooLarge, read_upload

STATIC = Path(__file__).resolve().parent / "static"
MAX_JSON = 64 << 10                 # bytes of a /api/score body
MAX_DEPTH = 32                      # nesting of a /api/score body's arrays and objects
MAX_DIGITS = 20                     # digits of a number in a /api/score body
BODY_TIMEOUT = 30.0                 # seconds for a request's whole body to arrive (408 past it)


class Busy(MjtableError):
    """Too many requests admitted already (HTTP 503 with Retry-After)."""

    def __init__(self, message: str, retry_after: int = 1):
        super().__init__(message)
        self.retry_after = retry_after


# The one table of refusals: the first class the error is an instance of gives the HTTP status.
STATUS: tuple[tuple[type, int], ...] = (
    (TooLarge, 413),                # an upload over --max-upload-mb, a JSON body over 64 KB
    (SlowBody, 408),                # the body did not arrive within --body-timeout
    (Busy, 503),                    # the bounded queue is full (Retry-After)
    (BrokenUpload, 400),            # not multipart/form-data that can be parsed
    (FormError, 422),               # unknown, missing or oversized form fields
    (InputError, 400),              # the photo is not a readable image (corrupt, unknown format, too many pixels)
    (UsageError, 422),              # a bad field value: rules, profile, wind, flag, kind
    (UnreadableError, 422),         # no tiles found, nothing that reads as a hand
    (BadHandError, 422),            # bad notation, an impossible hand, a situation the hand contradicts
    (NotAWinError, 422),            # (not raised: a hand that is not a win is a 200 whose result says why)
    (ModelError, 503),              # the detector's model is missing or unusable
    (OutputError, 500),
)

# The situation's fields: mjtable.scoring.situation_fields (one name each; the old names still read, deprecated)
FLAGS = tuple(f.name for f in FIELDS if f.kind == FLAG)
OPTION_FIELDS = ("rules", "profile") + CANONICAL
HAND_KEYS = ("concealed", "melds", "winning_tile", "flowers")


def status_of(e: Exception) -> int:
    return next((code for cls, code in STATUS if isinstance(e, cls)), 500)


def refuse(status: int, message: str, headers: Optional[dict] = None, advice: tuple[str, ...] = ()) -> JSONResponse:
    """The JSON of a refusal: {"error": one line}, and for a photo that could not be read, "advice": how to take
    it again."""
    body = {"error": one_line(message)}
    if advice:
        body["advice"] = [one_line(a) for a in advice]
    return JSONResponse(body, status_code=status, headers=headers)


def refusal(e: Exception) -> JSONResponse:
    if isinstance(e, MjtableError):
        headers = {"Retry-After": str(e.retry_after)} if isinstance(e, Busy) else None
        return refuse(status_of(e), str(e), headers, getattr(e, "advice", ()))
    return refuse(500, f"internal error: {type(e).__name__}")


def options(fields: dict) -> tuple[str, Optional[str], object]:
    """(rules, profile, Situation) from form or JSON fields, the situation read by the situation model (values as
    words: true/false/on/off/1/0, E S W N, m p s; empty is the default); UsageError (422) names an unknown or bad
    field."""
    f = dict(fields)
    unknown = sorted(set(f) - set(OPTION_FIELDS) - NAMES)
    if unknown:
        raise UsageError(f"unknown field(s) {', '.join(map(repr, unknown))} (known: {', '.join(OPTION_FIELDS)})")
    rules, profile = f.pop("rules", None), f.pop("profile", None)
    sit = situation(f, text=True)
    if not (rules is None or isinstance(rules, str)) or not (profile is None or isinstance(profile, str)):
        raise UsageError("rules and profile: want names")
    rules, profile = rules or "mcr", profile or None
    pipeline.check_rules(rules, profile)
    return rules, profile, sit


def referee_facts(fields: dict, rules: str, form: bool = False):
    """The referee facts of a form (``referee_facts``: names joined by commas) or a JSON body (a list of names),
    removed from ``fields``, as mjtable.scoring.rulings.Facts; UsageError (422) for one that cannot be read."""
    v = fields.pop("referee_facts", None)
    if v in (None, ""):
        return None
    if form and isinstance(v, str):
        v = [x for x in v.split(",") if x.strip()]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise UsageError('referee_facts: want a list of fact names, e.g. ["early_draw", "warnings_before=1"]')
    try:
        return Facts(reported=check_facts(tuple(x.strip() for x in v), rules))
    except ValueError as e:
        raise UsageError(f"referee_facts: {e}") from None


def _depth(value) -> int:
    """How deep arrays and objects nest in a parsed JSON value (a scalar: 0), counted without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if items is not None:
            deepest = max(deepest, d)
            todo.extend((x, d + 1) for x in items)
    return deepest


def parse_json(raw: bytes):
    """A request body as JSON, or UsageError (422) in one line: not UTF-8, not JSON, NaN or Infinity, a number
    out of range or of more than MAX_DIGITS digits, arrays and objects nested more than MAX_DEPTH deep."""
    too_deep = UsageError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
    try:
        value = loads(raw, max_digits=MAX_DIGITS)
    except JsonInputError as e:
        raise too_deep if "nested" in str(e) else UsageError(str(e)) from None
    if _depth(value) > MAX_DEPTH:
        raise too_deep
    return value


def hand_notation(body: dict) -> str:
    """The hand of a /api/score body: notation, or the structured JSON hand form of mjtable.scoring.jsonio."""
    if "hand" in body:
        if any(k in body for k in HAND_KEYS):
            raise UsageError('give either "hand" (notation) or concealed/melds/winning_tile/flowers, not both')
        if not isinstance(body["hand"], str):
            raise UsageError('hand: want a notation string such as "123m456p789s1z [555z^] +1z"')
        return body["hand"]
    if not any(k in body for k in HAND_KEYS):
        raise UsageError('no hand: give "hand" (notation) or "concealed" (+ "melds", "winning_tile", "flowers")')
    from mjtable.scoring.jsonio import hand_from_dict
    from mjtable.scoring.notation import NotationError, format_hand
    try:
        hand, _, _ = hand_from_dict({k: body[k] for k in HAND_KEYS if k in body})
        return format_hand(hand)
    except (JsonInputError, NotationError) as e:
        raise BadHandError(f"bad hand: {e}") from None


class Gate:
    """A bounded count of admitted requests: enter() refuses with Busy past ``size``."""

    def __init__(self, size: int, workers: int, what: str):
        self.size, self.workers, self.what = size, workers, what
        self.n = 0
        self.lock = threading.Lock()
        self.avg_s = 0.5                        # moving average of one job's time, for Retry-After

    def check(self) -> None:
        """Busy when the gate is full now (a refusal before a request's body is read; takes no place)."""
        with self.lock:
            self._check()

    def enter(self) -> None:
        with self.lock:
            self._check()
            self.n += 1

    def _check(self) -> None:
        if self.n >= self.size:
            wait = math.ceil(self.avg_s * self.n / self.workers)
            raise Busy(f"busy: {self.n} {self.what} waiting; try again shortly", max(1, min(wait, 120)))

    def leave(self) -> None:
        with self.lock:
            self.n -= 1

    def took(self, seconds: float) -> None:
        with self.lock:
            self.avg_s = 0.8 * self.avg_s + 0.2 * seconds


class Service:
    """What the routes share: the detector, the worker threads, the gates, the temporary folder, the live table."""

    def __init__(self, detector, max_upload_mb: float, queue_size: int, workers: int, live):
        self.detector = detector
        self.limit = int(max_upload_mb * (1 << 20))
        self.max_upload_mb = max_upload_mb
        self.workers = workers
        self.reads = Gate(queue_size, workers, "photos")
        self.scores = Gate(queue_size, 1, "hands")
        self.live = live
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._tmpdir: Optional[str] = None
        self._lock = threading.Lock()
        self.served = 0

    def pool(self, name: str) -> ThreadPoolExecutor:
        with self._lock:
            if name not in self._pools:
                self._pools[name] = ThreadPoolExecutor(self.workers if name == "read" else 1,
                                                       thread_name_prefix=name)
            return self._pools[name]

    @property
    def tmpdir(self) -> str:
        with self._lock:
            if self._tmpdir is None or not Path(self._tmpdir).is_dir():
                self._tmpdir = tempfile.mkdtemp(prefix="mjtable-serve-")
            return self._tmpdir

    def det(self):
        with self._lock:
            if self.detector is None:
                self.detector = pipeline.load_detector()
            return self.detector

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
        with self._lock:
            pools, self._pools = self._pools, {}
            tmp, self._tmpdir = self._tmpdir, None
        for p in pools.values():
            p.shutdown(wait=True, cancel_futures=True)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    async def run(self, gate: Gate, pool: str, fn, *args, cleanup=None):
        """fn(*args) in a worker thread. The caller has entered ``gate``; the job leaves it when it is done,
        failed or cancelled before it ran (a client gone does not free its place while its photo is read),
        and calls ``cleanup`` then."""
        t0 = time.perf_counter()

        def done(_):
            gate.took(time.perf_counter() - t0)
            gate.leave()
            if cleanup is not None:
                cleanup()
        try:
            job = self.pool(pool).submit(fn, *args)
        except BaseException:
            done(None)
            raise
        job.add_done_callback(done)
        return await asyncio.wrap_future(job)

    # the jobs, in worker threads

    def read_photo(self, up, kind: str, rules: str, profile: Optional[str], sit, facts=None) -> dict:
        import cv2

        from mjtable.vision.annotate import annotate
        try:
            data = up.photo_bytes()
        finally:
            up.close()
        img, stretched = pipeline.load_frame(data)
        del data
        out = pipeline.read_image(img, self.det(), sit, rules, profile, kind, facts=facts, stretched=stretched)
        pipeline.refuse_unreadable(out)         # 422 with the advice, as the command line's exit 4
        drawn = annotate(img, out.layout, out.hand, out.result, out.findings)
        ok, jpg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 85])
        url = "data:image/jpeg;base64," + base64.b64encode(jpg.tobytes()).decode() if ok else None
        return {"result": out.to_dict(), "annotated": url}

    @staticmethod
    def score_hand(text: str, rules: str, profile: Optional[str], sit, facts=None) -> dict:
        return {"result": pipeline.read_notation(text, sit, rules, profile, facts=facts).to_dict()}


PAGE_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'")


def create_app(detector=None, source: Optional[str] = None, max_upload_mb: float = 20.0, queue_size: int = 64,
               workers: int = 1, every: float = 1.0, hold: int = 2, kind: str = "auto", rules: str = "mcr",
               profile: Optional[str] = None, realtime: bool = True, host: str = "127.0.0.1",
               allow_hosts: tuple[str, ...] = (), body_timeout: float = BODY_TIMEOUT) -> FastAPI:
    """The app. ``detector``: anything with detect(img, kind) (default: the committed models, loaded on first
    use); ``source``: the live source of /api/events (a video file, played at its own pace unless ``realtime``
    is False, a camera index or a URL); ``queue_size``: requests admitted at once per kind of job (photos,
    hands), 503 past it; ``workers``: threads reading photos; ``host``: the address the server is bound to and
    ``allow_hosts`` other names: the Host headers it answers besides localhost's (400 for any other);
    ``body_timeout``: seconds for a request's whole body to arrive (408 past it).

    The stages: the live table and the service, the bare app (lifespan, static files, guard, headers, refusals),
    then the routes, in order: the pages, /healthz, /api/read, /api/score, /api/events."""
    if max_upload_mb <= 0 or queue_size < 1 or workers < 1 or not body_timeout > 0:
        raise UsageError("max_upload_mb, queue_size, workers and body_timeout must be positive")
    live = None
    if source is not None:
        from .live import LiveTable
        live = LiveTable(source, detector if detector is not None else pipeline.load_detector(), every, hold,
                         kind, rules, profile, realtime)
    svc = Service(detector if detector is not None else (live.detector if live else None), max_upload_mb,
                  queue_size, workers, live)
    app = _bare_app(svc, live, host, allow_hosts, body_timeout)
    _add_pages(app)
    _add_healthz(app, svc, live, queue_size, max_upload_mb)
    _add_read(app, svc)
    _add_score(app, svc)
    _add_events(app, live)
    return app


def _bare_app(svc: Service, live, host: str, allow_hosts: tuple[str, ...], body_timeout: float) -> FastAPI:
    """The app without its routes. Reads the service and the live table (started with the app, the service closed
    when it stops), the bound host, the other names allowed and the body deadline; returns the FastAPI app with
    its state, the static files, the guard and the security headers, and the refusals of errors as JSON."""
    @asynccontextmanager
    async def lifespan(app):
        if live is not None:
            live.start()
        try:
            yield
        finally:
            svc.close()

    app = FastAPI(title="mjtable", version=__version__, lifespan=lifespan,
                  description="Read a photo of a Mahjong table: the hand, its score (MCR 国标 or Sichuan) and the "
                              "referee's findings; follow a live table. Refusals are {\"error\": \"...\"}.")
    app.state.service, app.state.live = svc, live
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    app.add_middleware(Guard, hosts=allowed_hosts(host, allow_hosts), body_timeout=body_timeout)
    app.add_middleware(SecurityHeaders)                 # outermost: the guard's own refusals get the headers too

    @app.exception_handler(MjtableError)
    async def on_mjtable_error(request: Request, e: MjtableError):
        return refusal(e)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, e: StarletteHTTPException):
        return refuse(e.status_code, str(e.detail), getattr(e, "headers", None))

    return app


def _page(name: str, framed: bool) -> FileResponse:
    """A static page (name, in STATIC) with its Content-Security-Policy; framed: other sites may frame it."""
    csp = PAGE_CSP + ("" if framed else "; frame-ancestors 'none'")
    return FileResponse(STATIC / name, headers={"Content-Security-Policy": csp, "Cache-Control": "no-cache"})


def _add_pages(app: FastAPI) -> None:
    """Adds GET / (the upload page, never framed) and GET /overlay (the overlay, framed by OBS) to app."""
    @app.get("/", include_in_schema=False)
    async def index():
        return _page("index.html", framed=False)

    @app.get("/overlay", include_in_schema=False)
    async def overlay():
        return _page("overlay.html", framed=True)


def _add_healthz(app: FastAPI, svc: Service, live, queue_size: int, max_upload_mb: float) -> None:
    """Adds GET /healthz to app. Reads the service's counts, the live table's, and the limits it was made with."""
    @app.get("/healthz")
    async def healthz():
        """Liveness, the version, the queues and the live source's counts."""
        out = {"status": "ok", "version": __version__, "photos_admitted": svc.reads.n, "queue_size": queue_size,
               "max_upload_mb": max_upload_mb, "served": svc.served}
        if live is not None:
            out["live"] = {**live.stats, "events": live.seq, "ended": live.ended, "error": live.error}
        return out


def _add_read(app: FastAPI, svc: Service) -> None:
    """Adds POST /api/read to app: a photo read through the service's queue of photos."""
    @app.post("/api/read")
    async def api_read(request: Request):
        """Multipart form: ``photo`` (an image file, at most max_upload_mb) and the fields ``rules`` (mcr,
        sichuan), ``profile``, ``kind`` (auto, phone, overhead), the situation's fields (``seat_wind``,
        ``prevalent_wind`` (E S W N), ``void_suit`` (m p s), the flags ``self_drawn``, ``last_tile``,
        ``kong_replacement``, ``robbing_kong``, ``last_copy``, ``winning_tile_apart``, ``heavenly_win``,
        ``earthly_win``, ``human_win``, ``after_kong_discard`` (true/false): mjtable.scoring.situation_fields,
        the old names still read), ``referee_facts`` (MCR: fact names joined by
        commas, mjtable.scoring.rulings.FACTS). Answers {"result": what ``mjtable --json``
        prints, with every tile's box, kind, probability and next two likeliest kinds, "annotated": the photo
        with what was read drawn on it, as a JPEG data URL}."""
        svc.reads.check()                       # a full queue: 503 before a byte of the body is read
        up = await read_upload(request, svc.limit, "photo", svc.tmpdir)
        try:
            if up.photo is None:
                raise FormError("want an image file in the 'photo' field")
            fields = dict(up.fields)
            kind = fields.pop("kind", "") or "auto"
            if kind not in pipeline.KINDS:
                raise UsageError(f"kind: want auto, phone or overhead, got {one_line(repr(kind), 40)}")
            facts = fields.pop("referee_facts", None)
            rules, prof, sit = options(fields)
            facts = referee_facts({"referee_facts": facts}, rules, form=True)
            svc.reads.enter()                   # a place in the queue once the photo has arrived whole
        except BaseException:
            up.close()
            raise
        got = await svc.run(svc.reads, "read", svc.read_photo, up, kind, rules, prof, sit, facts, cleanup=up.close)
        svc.served += 1
        return JSONResponse(got)


def _add_score(app: FastAPI, svc: Service) -> None:
    """Adds POST /api/score to app: a hand given as JSON, scored through the service's queue of hands."""
    @app.post("/api/score")
    async def api_score(request: Request):
        """JSON: {"hand": NOTATION} or the structured form ({"concealed": "123m...", "melds": [...],
        "winning_tile": "6p", "flowers": "15f"}), with ``rules``, ``profile`` and the situation fields of
        /api/read (``referee_facts`` as a list of names) -> {"result": ...}."""
        size = request.headers.get("content-length")
        if size is not None and size.strip().isdigit() and int(size) > MAX_JSON:
            raise TooLarge("request larger than 64 KB")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_JSON:
                raise TooLarge("request larger than 64 KB")
        body = parse_json(bytes(raw))
        if not isinstance(body, dict):
            raise UsageError('want a JSON object: {"hand": NOTATION, ...situation}')
        text = hand_notation(body)
        rules, prof, sit = options({k: v for k, v in body.items()
                                    if k not in HAND_KEYS + ("hand", "id", "referee_facts")})
        facts = referee_facts(body, rules)
        svc.scores.enter()
        got = await svc.run(svc.scores, "score", svc.score_hand, text, rules, prof, sit, facts)
        if "id" in body:
            got["id"] = body["id"]
        return JSONResponse(got)


def _add_events(app: FastAPI, live) -> None:
    """Adds GET /api/events to app: the live table's events as server-sent events (404 without a live table)."""
    @app.get("/api/events")
    async def api_events(request: Request):
        """Server-sent events of the live table (``mjtable serve --source``): first a ``snapshot`` (every seat's
        settled fields, the last discard, the wins so far), then ``change``, ``win``, ``table``, ``error`` and
        ``end`` as they happen (mjtable.web.live)."""
        if live is None:
            return refuse(404, "no live source: start the server with --source VIDEO|CAMERA|URL")
        sub, snap = live.subscribe(asyncio.get_running_loop())
        return EventSourceResponse(_event_stream(live, sub, snap), ping=15, headers={"Cache-Control": "no-cache"})


async def _event_stream(live, sub, snap):
    """The server-sent events of one subscriber: reads the live table, the subscriber's queue and the snapshot it
    was given; yields the snapshot, then each event newer than the last sent (a new snapshot when the subscriber
    fell behind), until the end. Unsubscribes when done."""
    try:
        last = snap["seq"]
        yield {"event": "snapshot", "id": str(last), "data": json.dumps(snap, ensure_ascii=False)}
        if snap["source_ended"]:
            yield {"event": "end", "id": str(last), "data": "{}"}
            return
        while True:
            ev = await sub.get()
            if ev is not None and ev.get("type") == "resync":      # fell behind: start again
                snap2 = live.snapshot()
                last = snap2["seq"]
                yield {"event": "snapshot", "id": str(last), "data": json.dumps(snap2, ensure_ascii=False)}
                if snap2["source_ended"]:       # its end is in the snapshot: no event newer than it will come
                    yield {"event": "end", "id": str(last), "data": "{}"}
                    return
                continue
            if ev["seq"] <= last:
                continue
            last = ev["seq"]
            yield {"event": ev["type"], "id": str(last), "data": json.dumps(ev, ensure_ascii=False)}
            if ev["type"] == "end":
                return
    finally:
        live.unsubscribe(sub)


def serve(host: str = "127.0.0.1", port: int = 8000, on_start=None, **kw) -> None:
    """The app on ``host``:``port`` until interrupted (mjtable.web.server); ``on_start()`` once it listens."""
    import logging

    from .guard import LOG
    from .server import run
    if not LOG.handlers:                                # one line per refused request, on stderr
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s mjtable serve: %(message)s"))
        LOG.addHandler(handler)
        LOG.setLevel(logging.INFO)
        LOG.propagate = False
    run(create_app(host=host, **kw), host, port, on_start)
