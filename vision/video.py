"""Video: a camera's stream -> the table as it settles, and what changed when.

    from mjtable.vision.video import watch
    reading = watch("table.mp4", TileDetector(), every=1.0, hold=2)
    for e in reading.events: print(e.time_s, e.seat, e.text)
    reading.table            # the settled TableState at the end (mjtable.scoring.audit.review takes it)

- Frames are sampled every ``every`` seconds of video time (frame numbers come from the stream's frame rate).
- The kind of view (phone / overhead) is decided once, on the first frame with tiles, unless told, and then
  told to the detector for every later frame: a fixed camera does not change kind, and telling it skips the
  general locator's pass that guessing needs (mjtable.vision.detector.TileDetector.locate_for).
- Each seat's fields (hand, melds, winning tile, flowers, river, exposed tiles) settle separately: a new value
  counts only when it is read on ``hold`` sampled frames in a row. A hand passing over the river, a tile in
  flight or one misread frame does not change the settled table. A frame where nothing can be read (no
  tiles, a layout error) leaves the settled table as it was and is listed in ``skipped``.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np

from mjtable.errors import InputError, UnreadableError, shown
from mjtable.scoring import tiles as T
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState

FIELDS = ("concealed", "concealed_face_down", "melds", "winning_tile", "flowers", "discards", "exposed")
DEFAULT_FPS = 25.0          # when a stream does not say its frame rate
MIN_FPS = 0.01              # a stated rate under a frame per 100 s is a broken header: DEFAULT_FPS instead
# what FFmpeg reads as a list of other files to open (concat script, HLS, DASH, SDP), by its first bytes
PLAYLISTS = (b"ffconcat", b"#EXTM3U", b"<?xml", b"<MPD", b"v=0")
_UNSET = object()


class VideoError(InputError, ValueError):
    """A file that cannot be read as a video (missing, not a video, no frame decodes)."""


@dataclass
class Event:
    """A settled change of one seat's field, at the first of the ``hold`` frames that showed it."""
    frame: int
    time_s: float
    seat: str
    field: str
    text: str
    now: str = ""          # the field's whole settled value after the change, as text (a river's every tile)


@dataclass
class VideoReading:
    kind: str                                   # phone or overhead: as decided on the first frame, or told
    sampled: int                                # frames looked at
    read: int                                   # of them, frames with a table read
    events: list[Event]
    table: TableState                           # the settled table after the last frame
    skipped: list[tuple[int, str]] = field(default_factory=list)   # (frame, why nothing was read)
    ms: list[float] = field(default_factory=list)                   # per sampled frame, detect + layout
    last: Optional[tuple] = None                # (View, frame shape) of the latest frame read: what is settled
                                                # is trusted as far as that frame's reading is (pipeline.judge)

    @property
    def median_ms(self) -> float:
        return float(np.median(self.ms)) if self.ms else 0.0


# ------------------------------------------------------------------------------------------ frames


def iter_frames(path, every: float = 1.0, max_frames: Optional[int] = None) -> Iterator[tuple[int, float, np.ndarray]]:
    """Yield (frame number, seconds, BGR image) for one frame every ``every`` seconds of the stream."""
    import cv2
    p = Path(path)
    _check_file(p)
    if p.stat().st_size == 0:
        raise VideoError(f"cannot read {shown(p)}: the file is empty")
    cap = cv2.VideoCapture(str(p))
    try:
        if not cap.isOpened():
            raise VideoError(f"cannot read {shown(p)}: not a video file (or a format this OpenCV cannot decode)")
        _check_size(cap, shown(p))
        fps = stated_fps(cap)
        step = max(1, round(every * fps))
        i = n = 0
        while max_frames is None or n < max_frames:
            if not cap.grab():
                break
            if i % step == 0:
                ok, img = cap.retrieve()
                if ok and img is not None and img.ndim == 3 and img.size:
                    _check_frame(img, shown(p))
                    n += 1
                    yield i, i / fps, img
            i += 1
        if n == 0:
            raise VideoError(f"cannot read {shown(p)}: no frame could be decoded")
    finally:
        cap.release()


def stated_fps(cap) -> float:
    """The frame rate a stream states, or DEFAULT_FPS when it states none, or one no video has (a broken header
    saying a frame every 60 years would have a live source wait that long for its second frame)."""
    import cv2
    fps = cap.get(cv2.CAP_PROP_FPS)
    return fps if math.isfinite(fps) and MIN_FPS <= fps else DEFAULT_FPS


def _check_file(p: Path, hint: str = "") -> None:
    """A video file must be a regular file (say what else it is: a FIFO could block a reader for ever), and no
    playlist or script naming other files, which FFmpeg would open in turn (a FIFO among them, or any file)."""
    from .images import not_a_file
    why = not_a_file(p)
    if why == "does not exist":
        raise VideoError(f"cannot read {shown(p)}: no such file{hint}")
    if why:
        raise VideoError(f"cannot read {shown(p)}: it {why.replace('directory', 'folder')}")
    try:
        with open(p, "rb") as f:
            head = f.read(64).lstrip()
    except OSError as e:
        raise VideoError(f"cannot read {shown(p)}: {e.strerror or e}") from None
    if head.startswith(PLAYLISTS):
        raise VideoError(f"cannot read {shown(p)}: it is a playlist or script that names other files, not a video")


def _check_size(cap, name: str) -> None:
    """Refuse a stream whose frames are over the photos' pixel limit (MAX_PIXELS), from the size the container
    states, before a frame is decoded."""
    import cv2

    from .images import MAX_PIXELS
    w, h = cap.get(cv2.CAP_PROP_FRAME_WIDTH), cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
    if math.isfinite(w) and math.isfinite(h) and w * h > MAX_PIXELS:
        raise VideoError(f"cannot read {name}: its frames are too large ({w:.0f}x{h:.0f} pixels; at most "
                         f"{MAX_PIXELS // 10**6} megapixels)")


def _check_frame(img: np.ndarray, name: str) -> None:
    """The same limit on a decoded frame, for a stream that did not state its size (or changed it)."""
    from .images import MAX_PIXELS
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise VideoError(f"cannot read {name}: a frame is too large ({img.shape[1]}x{img.shape[0]} pixels; at "
                         f"most {MAX_PIXELS // 10**6} megapixels)")


def capture_target(source) -> "int | str":
    """What OpenCV opens for a live source: a camera index ("0" -> 0), else the path or URL as given."""
    s = str(source).strip()
    return int(s) if s.isdigit() else s


def source_name(source) -> str:
    """The source as it may be shown: a URL without its user and password."""
    import re
    return re.sub(r"(://)[^/@\s]*@", r"\1", str(source))


def is_stream(source) -> bool:
    """A camera index or a URL (rtsp://, http://, ...), as opposed to a video file."""
    t = capture_target(source)
    return isinstance(t, int) or "://" in t


class Follower:
    """The newest frame of a live source, never a backlog of old ones.

    The source is a camera index, a stream URL (rtsp://, http:// ...) or a video file played at its own pace
    (a recorded game standing in for a camera). A reader thread grabs every frame as the source gives it (a
    camera's buffer is drained, a file is paced by its frame rate) and decodes one only when the consumer is
    waiting for a frame and at least ``every`` seconds of the source's time have passed since the last one it
    took. Frames that come while the consumer is still busy with the last one are dropped (``dropped`` counts
    them): a slow consumer falls behind by at most one frame. A camera or stream that stops sending frames is
    opened again, every half second, until it sends again or STALL_S seconds have passed.

        with Follower("rtsp://camera/stream", every=1.0) as frames:
            for frame, time_s, img, captured in frames:    # captured: time.time() when the frame was grabbed
                ...

    ``time_s`` is the file's own time for a video file, else seconds since the first frame. A source that
    cannot be opened, or a stream that stops sending frames, ends the iteration with a VideoError.
    """

    STALL_S = 10.0              # a camera or stream sending no frame for this long has stopped

    def __init__(self, source, every: float = 1.0):
        if every <= 0:
            raise ValueError("every must be positive")
        self.source, self.every = source, every
        self.target = capture_target(source)
        self.stream = is_stream(source)
        self.dropped = self.grabbed = self.taken = self.reopened = 0
        self.error: Optional[Exception] = None
        self._cond = threading.Condition()
        self._slot = None
        self._waiting = False
        self._next_t = 0.0
        self._ended = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="video-follower", daemon=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _open(self):
        import cv2
        if not self.stream:
            _check_file(Path(self.target), " (a live source is a video file, a camera index or a URL)")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            what = "camera" if isinstance(self.target, int) else "source"
            raise VideoError(f"cannot open the {what} {shown(source_name(self.source))}")
        try:
            _check_size(cap, shown(source_name(self.source)))
        except VideoError:
            cap.release()
            raise
        return cap

    def _run(self) -> None:
        cap = None
        try:
            cap = self._open()
            fps = stated_fps(cap)
            start = None
            last_frame = time.monotonic()
            i = 0
            while not self._stop.is_set():
                if cap is None or not cap.grab():
                    if not self.stream:
                        break                           # the end of the file
                    if time.monotonic() - last_frame > self.STALL_S:
                        raise VideoError(f"the source {source_name(self.source)!r} stopped sending frames")
                    if self._stop.wait(0.5):
                        break
                    if cap is not None:                 # a camera or stream that dropped: open it again
                        cap.release()
                    try:
                        cap = self._open()
                        self.reopened += 1
                    except VideoError:
                        cap = None
                    continue
                now = last_frame = time.monotonic()
                if start is None:
                    start = now
                if self.stream:
                    t = now - start
                else:                                   # a file: at its own pace
                    t = i / fps
                    if start + t > now and self._stop.wait(start + t - now):
                        break
                captured = time.time()
                self.grabbed += 1
                with self._cond:
                    due = t >= self._next_t
                    take = due and self._waiting and self._slot is None
                if take:
                    ok, img = cap.retrieve()
                    if ok and img is not None and img.ndim == 3 and img.size:
                        _check_frame(img, shown(source_name(self.source)))
                        with self._cond:
                            self._slot = (i, t, img, captured)
                            self._cond.notify_all()
                elif due:
                    self.dropped += 1                   # the consumer was busy: this frame is not worth a queue
                i += 1
            if i == 0 and not self._stop.is_set():
                raise VideoError(f"cannot read {source_name(self.source)}: no frame could be decoded")
        except Exception as e:                          # VideoError, or OpenCV failing: the consumer raises it
            self.error = e if isinstance(e, VideoError) else \
                VideoError(f"{source_name(self.source)}: {type(e).__name__}: {e}")
        finally:
            if cap is not None:
                cap.release()
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def __iter__(self) -> Iterator[tuple[int, float, np.ndarray, float]]:
        if not self._thread.is_alive() and not self._ended:
            with self._cond:
                self._waiting = True            # ready before the first frame: a file's frame 0 is taken
            self._thread.start()
        try:
            while True:
                with self._cond:
                    self._waiting = True
                    while self._slot is None and not self._ended and not self._stop.is_set():
                        self._cond.wait(0.5)
                    got, self._slot = self._slot, None
                    self._waiting = False
                    if got is None:
                        break
                    self._next_t = got[1] + self.every
                self.taken += 1
                yield got
            if self.error is not None and not self._stop.is_set():
                raise self.error
        finally:
            self.close()


# ------------------------------------------------------------------------------------------ settling


def _tiles(ts) -> str:
    return " ".join(T.code(t) for t in ts)


def value_text(name: str, v) -> str:
    """A field's whole value as text: tiles as codes, melds in notation."""
    if v is None:
        return ""
    if name == "melds":
        return " ".join(_meld(m) for m in v)
    if name == "winning_tile":
        return T.code(v)
    if isinstance(v, (tuple, list)):
        return _tiles(v)
    return str(v)


def _meld(m: MeldOnTable) -> str:
    if m.meld is None:
        return "[" + " ".join("back" if t is None else T.code(t) for t in m.tiles) + "?]"
    from mjtable.scoring.notation import format_meld
    return format_meld(m.meld)


def _grew(before, after) -> bool:
    return isinstance(before, tuple) and len(after) > len(before) and tuple(after[:len(before)]) == before


def describe(name: str, before, after) -> Optional[str]:
    """The words for one settled change; None when there is nothing to tell (a first reading of nothing,
    a hand count moving between draws: the audit of the settled table speaks of counts)."""
    first = before is _UNSET
    if name == "concealed_face_down":
        return None
    if name == "concealed":
        if after is None:
            return None if first or before is None else "hand no longer face up"
        return f"hand face up: {_tiles(after)}"
    if name == "winning_tile":
        if after is None:
            return None if first or before is None else "winning tile gone"
        return f"winning tile {T.code(after)}"
    if not after:
        return None if first or not before else f"no {name} now"
    now = "" if first else " now"
    if name == "melds":
        if _grew(before, after):
            return "melds " + " ".join(_meld(m) for m in after[len(before):])
        return f"melds{now} " + " ".join(_meld(m) for m in after)
    if name == "discards":
        if _grew(before, after):
            return "discards " + _tiles(after[len(before):])
        return f"river{now} ({len(after)}) " + _tiles(after)
    if name == "flowers":
        if _grew(before, after):
            return "flowers " + _tiles(after[len(before):])
        return f"flowers{now} " + _tiles(after)
    if name == "exposed":
        return "exposed tiles " + _tiles(after)
    return f"{name} {after}"


class Settler:
    """Per (seat, field): the settled value, and a candidate with how many frames in a row showed it."""

    def __init__(self, hold: int = 2):
        if hold < 1:
            raise ValueError("hold must be at least 1")
        self.hold = hold
        self.stable: dict[tuple[str, str], object] = {}
        self.pending: dict[tuple[str, str], tuple[object, int, int, float]] = {}
        self.seats: list[str] = []

    def update(self, frame: int, time_s: float, table: TableState) -> list[Event]:
        events = []
        for p in table.players:
            if p.seat not in self.seats:
                self.seats.append(p.seat)
            for name in FIELDS:
                key, v = (p.seat, name), getattr(p, name)
                if self.stable.get(key, _UNSET) == v:
                    self.pending.pop(key, None)
                    continue
                cand = self.pending.get(key)
                seen, n, f0, t0 = (v, 1, frame, time_s) if cand is None or cand[0] != v else \
                    (v, cand[1] + 1, cand[2], cand[3])
                if n < self.hold:
                    self.pending[key] = (seen, n, f0, t0)
                    continue
                self.pending.pop(key, None)
                before = self.stable.get(key, _UNSET)
                self.stable[key] = v
                text = describe(name, before, v)
                if text is not None:
                    events.append(Event(f0, t0, p.seat, name, text, value_text(name, v)))
        return events

    def table(self, rules: str = "mcr") -> TableState:
        players = []
        for seat in self.seats:
            vals = {name: self.stable.get((seat, name), _UNSET) for name in FIELDS}
            kw = {k: v for k, v in vals.items() if v is not _UNSET}
            if kw:                                  # a seat shows up once something of it has settled
                players.append(PlayerArea(seat, **kw))
        return TableState(players, rules)


# ------------------------------------------------------------------------------------------ the loop


def watch(path, detector, every: float = 1.0, hold: int = 2, kind: str = "auto",
          max_frames: Optional[int] = None, on_event: Optional[Callable[[Event], None]] = None,
          rules: str = "mcr", progress: bool = False,
          on_settled: Optional[Callable[[list[Event], TableState], None]] = None,
          on_read: Optional[Callable[[tuple], None]] = None) -> VideoReading:
    """Read a video: sample frames, detect, parse, settle. ``detector`` has ``detect(img, kind)``.
    ``on_event`` hears each settled change; ``on_settled`` hears, after each frame that settled a change, that
    frame's changes and the whole settled table as it stands then; ``on_read`` hears each frame read, as
    (View, frame shape), before it is settled."""
    from .locate import check_kind, locate
    check_kind(kind)                            # refuses an unknown kind before any frame is read
    settler = Settler(hold)
    events: list[Event] = []
    reading = VideoReading(kind, 0, 0, events, TableState([], rules))
    frames = iter_frames(path, every, max_frames)
    if progress:                                # a bar on a terminal only (tqdm's disable=None)
        from tqdm import tqdm
        frames = tqdm(frames, desc="video", unit="frame", total=max_frames, disable=None, leave=False)
    for i, t, img in frames:
        reading.sampled += 1
        t0 = time.perf_counter()
        try:
            view = locate(img, detector, kind)
        except UnreadableError as e:
            reading.skipped.append((i, e.reason))       # a frame's reason; advice on retaking is for photos
            continue
        kind = reading.kind = view.kind        # decided on the first frame with tiles, then told to the detector
        reading.ms.append((time.perf_counter() - t0) * 1000)
        reading.read += 1
        reading.last = (view, img.shape)
        if on_read is not None:
            on_read(reading.last)
        changes = settler.update(i, t, view.layout.table)
        for e in changes:
            events.append(e)
            if on_event is not None:
                on_event(e)
        if changes and on_settled is not None:
            on_settled(changes, settler.table(rules))
    reading.table = settler.table(rules)
    return reading
