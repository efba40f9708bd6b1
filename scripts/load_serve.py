"""Load and latency of ``mjtable serve`` on loopback (a measurement, not a test).

    python -m scripts.load_serve [--n 50] [--concurrency 50] [--photo examples/phone_win.jpg]
                                 [--url URL [--pid PID]] [--workers 1] [--overlay]

Uploads: N uploads of the photo, CONCURRENCY at a time; prints p50 / p95 / max latency, the answers' status
codes and the server's peak memory (VmHWM of its process). Starts its own server (the committed models) unless
--url names a running one; give that one's --pid for its memory.

--overlay: the live table's latency from a frame to its server-sent event. A video of a table seen from above
(--table: a ground-truth JSON beside its image, examples/overhead.json by default; a real-looking held-out table
of scripts/bench_tables, e.g. data/bench_tables/topdown_7707/gt/overhead_7707_000000.json) in which the last three
discards of the seat with the longest river are hidden (inpainted) and come back one by one every --phase seconds,
twice, is served with ``--source`` (played at its own pace, read by the committed models); for each discard the time
from the frame that first shows it to the event's arrival at a client of /api/events, and the part of it after
the frame that settled the change (reading it and sending the event).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from mjtable.web.loopback import peak_mb, start_server

ROOT = Path(__file__).resolve().parent.parent


def _q(values: list[float], q: float) -> float:
    """The q quantile of the values (the nearest one at or below it)."""
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


async def _uploads(url: str, photo: bytes, n: int, concurrency: int) -> tuple[list[float], Counter, float]:
    import httpx
    sem = asyncio.Semaphore(concurrency)
    times, codes = [], Counter()
    async with httpx.AsyncClient(timeout=600, limits=httpx.Limits(max_connections=concurrency)) as c:
        async def one():
            async with sem:
                t0 = time.perf_counter()
                r = await c.post(url + "/api/read", files={"photo": ("p.jpg", photo, "image/jpeg")},
                                 data={"seat_wind": "S"})
                times.append(time.perf_counter() - t0)
                codes[r.status_code] += 1
                if r.status_code == 200:
                    assert r.json()["result"]["result"]["total"] == 8
        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(n)))
    return times, codes, time.perf_counter() - t0


def uploads(a) -> None:
    proc, url = (None, a.url) if a.url else start_server(["--workers", str(a.workers), "--queue", str(max(64, a.n))])
    try:
        times, codes, wall = asyncio.run(_uploads(url, a.photo.read_bytes(), a.n, a.concurrency))
        peak = peak_mb(proc.pid if proc else a.pid) if (proc or a.pid) else None
    finally:
        if proc:
            proc.terminate()
            proc.wait(10)
    print(f"uploads: {a.n} of {a.photo.name} ({a.photo.stat().st_size // 1024} KB), {a.concurrency} at a time, "
          f"{a.workers} worker(s): p50 {_q(times, .5) * 1000:.0f} ms, p95 {_q(times, .95) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms; {a.n / wall:.1f} photos/s; answers {dict(sorted(codes.items()))}"
          + (f"; server peak memory {peak:.0f} MB" if peak else ""))


def _table(gt_path: Path):
    """(image, ground truth) of a table: the image named by the JSON, beside it or in the generator's images/."""
    import cv2
    gt = json.loads(gt_path.read_text())
    for folder in (gt_path.parent, gt_path.parent.parent / "images"):
        if (folder / gt["image"]).exists():
            return cv2.imread(str(folder / gt["image"])), gt
    raise FileNotFoundError(f"no image {gt['image']} beside {gt_path}")


def _overlay_video(path: Path, table: Path, phase: float, fps: float, cycles: int) -> tuple[list[float], str]:
    """The video, the times at which a hidden discard comes back, and the seat whose discards they are."""
    import cv2
    import numpy as np
    img, gt = _table(table)
    discards = [o for o in gt["objects"] if o["group"] == "discard"]
    seat = Counter(o["seat"] for o in discards).most_common(1)[0][0]
    river = [o for o in discards if o["seat"] == seat]

    def hide(objs):
        m = np.zeros(img.shape[:2], np.uint8)
        for o in objs:
            x1, y1, x2, y2 = (int(round(v)) for v in o["box"])
            cv2.rectangle(m, (x1 - 3, y1 - 3), (x2 + 3, y2 + 3), 255, -1)
        return cv2.inpaint(img, m, 5, cv2.INPAINT_TELEA)

    frames = [hide(river[len(river) - k:]) if k else img for k in (3, 2, 1, 0)]
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (img.shape[1], img.shape[0]))
    per = int(round(phase * fps))
    reveals = []
    for c in range(cycles):
        for k, f in enumerate(frames):
            if k:
                reveals.append((c * 4 + k) * phase)
            for _ in range(per):
                vw.write(f)
    vw.release()
    return reveals, seat


def overlay(a) -> None:
    import httpx
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "reveals.avi"
        reveals, seat = _overlay_video(video, a.table, a.phase, 10.0, 2)
        proc, url = start_server(["--source", str(video), "--kind", "overhead", "--every", str(a.every)])
        total, after, missed = [], [], []
        try:
            with httpx.stream("GET", url + "/api/events", timeout=120) as r:
                kind = None
                for line in r.iter_lines():
                    if line.startswith("event:"):
                        kind = line.split(":", 1)[1].strip()
                    elif line.startswith("data:"):
                        now = time.time()
                        d = json.loads(line.split(":", 1)[1])
                        if kind == "end":
                            break
                        if kind == "change" and d["seat"] == seat and d["field"] == "discards" \
                                and d["text"].startswith("discards "):
                            shown = max((t for t in reveals if t <= d["time_s"] + 1e-6), default=None)
                            if shown is None:
                                continue
                            total.append(now - (d["captured"] - (d["time_s"] - shown)))
                            after.append(now - d["settled"])
            health = httpx.get(url + "/healthz").json().get("live", {})
            peak = peak_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    missed = len(reveals) - len(total)
    if not total:
        print("overlay: no discard event came")
        return
    print(f"overlay: {len(total)} of {len(reveals)} discards seen (sampling every {a.every:g} s, hold 2): frame to "
          f"event p50 {_q(total, .5) * 1000:.0f} ms, max {max(total) * 1000:.0f} ms; of which after the settling "
          f"frame (read + send) p50 {_q(after, .5) * 1000:.0f} ms, max {max(after) * 1000:.0f} ms; "
          f"{health.get('read', '?')} frames read, {health.get('dropped', '?')} dropped"
          + (f"; server peak memory {peak:.0f} MB" if peak else "") + (f"; {missed} missed" if missed else ""))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--photo", type=Path, default=ROOT / "examples" / "phone_win.jpg")
    ap.add_argument("--url", help="a running server (default: start one here)")
    ap.add_argument("--pid", type=int, help="the running server's process id, for its peak memory")
    ap.add_argument("--workers", type=int, default=1, help="the started server's --workers")
    ap.add_argument("--overlay", action="store_true", help="also measure the live table's frame-to-event latency")
    ap.add_argument("--every", type=float, default=0.5, help="overlay: the server's --every (default 0.5)")
    ap.add_argument("--phase", type=float, default=3.0, help="overlay: seconds between two discards (default 3)")
    ap.add_argument("--table", type=Path, default=ROOT / "examples" / "overhead.json",
                    help="overlay: the table's ground-truth JSON, beside its image (default examples/overhead.json)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    uploads(a)
    if a.overlay:
        overlay(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
