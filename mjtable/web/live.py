"""The live table behind /api/events and /overlay: a source followed in a thread, its settled changes broadcast.

One thread reads the source (mjtable.vision.video.Follower: a camera, a stream URL or a video file at its own
pace, newest frame only, frames dropped rather than queued), reads each sampled frame as far as the table
(pipeline.locate), and settles it (video.Settler: a change counts once seen on ``hold`` sampled frames). Only
changes go out:

    change    a seat's field settled to a new value: a discard, a meld, flowers, a hand laid face up, the
              winning tile, tiles exposed; with the field's whole value ("now") for a page joining late
    win       a seat with a winning tile beside its hand, scored (pipeline.review): the hand, the total, the
              fans, the payments, the referee's findings; sent again only when the score changes
    table     the settled table and its review when a recorded source ends
    error     the source failed (cannot be opened, stopped sending frames)
    end       the source ended: nothing more will come

Every event carries ``seq`` (its number, also the SSE id) and ``sent`` (the server's clock, time.time(), when
it went out); a change or a win also ``time_s`` (the source's time of the first frame that showed it) and
``captured`` (the server's clock when that frame was grabbed), a change ``settled`` (when the frame that settled
it was grabbed). A subscriber first gets a ``snapshot`` (every seat's settled fields, the last discard, the wins
so far), then the events after it. Each subscriber has a bounded queue on the event loop; one that falls behind
by more than QUEUE events is sent a fresh snapshot instead of the backlog.
"""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Optional

from mjtable import pipeline
from mjtable.errors import MjtableError, UnreadableError
from mjtable.vision.video import Follower, Settler, is_stream, iter_frames

QUEUE = 256                   # events a subscriber may be behind before it is sent a snapshot instead
SCORED_FIELDS = frozenset({"concealed", "melds", "winning_tile", "flowers"})
RESYNC = {"type": "resync"}


class Subscriber:
    """One /api/events client: a bounded queue, filled from the reader thread through the client's loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.queue: asyncio.Queue = asyncio.Queue(QUEUE + 1)

    def offer(self, ev: dict) -> None:          # on the event loop
        if self.queue.qsize() >= QUEUE:
            while not self.queue.empty():
                self.queue.get_nowait()
            ev = RESYNC
        self.queue.put_nowait(ev)

    async def get(self) -> dict:
        return await self.queue.get()


class LiveTable:
    """Follows ``source`` in a thread (start / stop) and broadcasts its settled changes to subscribers."""

    def __init__(self, source: str, detector, every: float = 1.0, hold: int = 2, kind: str = "auto",
                 rules: str = "mcr", profile: Optional[str] = None, realtime: bool = True):
        pipeline.check_rules(rules, profile)
        pipeline.check_kind(kind)                         # refuses an unknown kind now, not in the thread
        self.source, self.detector, self.every, self.hold, self.kind = source, detector, every, hold, kind
        self.rules, self.profile = rules, profile
        self.realtime = realtime or is_stream(source)     # a camera or URL is live whatever is asked
        self.lock = threading.Lock()
        self.seq = 0
        self.seats: dict[str, dict[str, str]] = {}
        self.last_discard: Optional[dict] = None
        self.wins: dict[str, dict] = {}
        self.final: Optional[dict] = None
        self.error: Optional[str] = None
        self.ended = False
        self.subscribers: set[Subscriber] = set()
        self.stats = {"sampled": 0, "read": 0, "skipped": 0, "dropped": 0, "read_ms": 0.0}
        self._stop = threading.Event()
        self._follower: Optional[Follower] = None
        self._last = None                                  # (View, shape) of the latest frame read
        self.thread = threading.Thread(target=self._run, name="live-table", daemon=True)

    # ---------------------------------------------------------------------------------- the reader thread

    def start(self) -> None:
        if not self.thread.is_alive() and not self.ended:
            self.thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._follower is not None:
            self._follower.close(timeout)
        if self.thread.is_alive():
            self.thread.join(timeout)

    def _frames(self):
        if self.realtime:
            self._follower = Follower(self.source, self.every)
            return iter(self._follower)
        return ((i, t, img, time.time()) for i, t, img in iter_frames(self.source, self.every))

    def _run(self) -> None:
        settler = Settler(self.hold)
        kind = self.kind
        try:
            for i, t, img, captured in self._frames():
                if self._stop.is_set():
                    break
                self.stats["sampled"] += 1
                t0 = time.perf_counter()
                try:
                    view = pipeline.locate(img, self.detector, kind)
                except UnreadableError:
                    self.stats["skipped"] += 1
                    continue
                kind = view.kind                       # decided on the first frame with tiles, then told
                self._last = (view, img.shape)         # the trust of what is settled: its latest frame's
                self.stats["read"] += 1
                self.stats["read_ms"] = round((time.perf_counter() - t0) * 1000, 1)
                changes = settler.update(i, t, view.layout.table)
                for e in changes:
                    self._emit({"type": "change", "frame": e.frame, "time_s": round(e.time_s, 3),
                                "captured": round(captured - (t - e.time_s), 3),
                                "settled": round(captured, 3), "seat": e.seat,
                                "field": e.field, "text": e.text, "now": e.now})
                scored = [e.time_s for e in changes if e.field in SCORED_FIELDS]
                if scored:                             # the win is whole when its last part settled
                    self._score(settler, max(scored), captured - (t - max(scored)))
            if self._stop.is_set():
                return
            out = self._review(settler)
            self._emit({"type": "table", "table": None if out is None else out.to_dict()})
        except MjtableError as e:
            self._emit({"type": "error", "error": str(e)})
        except Exception as e:                         # the server goes on; the overlay shows the reason
            self._emit({"type": "error", "error": f"{type(e).__name__}: {e}".splitlines()[0]})
        finally:
            if self._follower is not None:
                self.stats["dropped"] = self._follower.dropped
            if not self._stop.is_set():
                self._emit({"type": "end"})

    def _review(self, settler: Settler):
        """The settled table's review, its findings judged by the trust of the latest frame read (pipeline.judge:
        a finding on a seat read unsurely is a check, no penalty)."""
        table = settler.table(self.rules)
        if not table.players:
            return None
        out = pipeline.review(table, pipeline.situation(), self.rules, self.profile)
        return pipeline.judge(out, *self._last, settled=table) if self._last is not None else out

    def _score(self, settler: Settler, t: float, captured: float) -> None:
        """A win event for each seat whose scored hand changed (a winning tile beside a hand laid down)."""
        try:
            out = self._review(settler)
        except MjtableError:                      # a table the audit cannot read yet: wait for the next change
            return
        if out is None or out.review is None:
            return
        from mjtable.scoring.jsonio import findings_to_dict, hand_to_dict, result_to_dict
        for seat, sc in out.review.scores.items():
            if sc.result is None:
                continue
            hand = hand_to_dict(sc.hand)["hand"] if sc.hand is not None else None
            res = result_to_dict(sc.result)
            key = (hand, res["is_win"], res["total"])
            if self.wins.get(seat, {}).get("key") == key:
                continue
            self._emit({"type": "win", "time_s": round(t, 3), "captured": round(captured, 3), "seat": seat,
                        "hand": hand, "result": res, "note": sc.note or None,
                        "findings": findings_to_dict(f for f in out.findings if f.seat in (seat, None))},
                       key=key)

    # ---------------------------------------------------------------------------------- broadcasting

    def _emit(self, ev: dict, key=None) -> None:
        with self.lock:
            self.seq += 1
            ev = {**ev, "seq": self.seq, "sent": round(time.time(), 3)}
            kind = ev["type"]
            if kind == "change":
                self.seats.setdefault(ev["seat"], {})[ev["field"]] = ev["now"]
                if ev["field"] == "discards" and ev["text"].startswith("discards "):
                    self.last_discard = {"seat": ev["seat"], "tile": ev["text"].split()[-1],
                                         "time_s": ev["time_s"], "seq": ev["seq"]}
            elif kind == "win":
                self.wins[ev["seat"]] = {**ev, "key": key}
            elif kind == "table":
                self.final = ev["table"]
            elif kind == "error":
                self.error = ev["error"]
            elif kind == "end":
                self.ended = True
            subs = list(self.subscribers)
        for s in subs:
            try:
                s.loop.call_soon_threadsafe(s.offer, ev)
            except RuntimeError:                  # its loop is gone
                self.unsubscribe(s)

    def snapshot(self) -> dict:
        with self.lock:
            return self._snapshot()

    def _snapshot(self) -> dict:
        return {"type": "snapshot", "seq": self.seq, "source_ended": self.ended, "error": self.error,
                "seats": {s: dict(f) for s, f in self.seats.items()}, "last_discard": self.last_discard,
                "wins": [{k: v for k, v in w.items() if k != "key"} for w in self.wins.values()],
                "table": self.final}

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> tuple[Subscriber, dict]:
        """A new subscriber and the snapshot it starts from (taken together: no event falls between)."""
        s = Subscriber(loop)
        with self.lock:
            self.subscribers.add(s)
            return s, self._snapshot()

    def unsubscribe(self, s: Subscriber) -> None:
        with self.lock:
            self.subscribers.discard(s)
