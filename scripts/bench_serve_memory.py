"""Peak memory of ``mjtable serve`` under concurrent uploads while slow uploads trickle in (a measurement).

    python -m scripts.bench_serve_memory [--n 50] [--slow 64] [--body-timeout 20] [--trickle 2]
                                         [--photo examples/phone_win.jpg] [--workers 1] [--goal-mb 500]

Starts ``mjtable serve`` on 127.0.0.1 (the committed models) with ``--body-timeout``, opens ``--slow``
connections that each announce a 1 MB photo upload and send one byte of it every ``--trickle`` seconds, and while
they trickle sends ``--n`` uploads of the photo at once. Prints the uploads' answers and latency, how many were
answered while the slow ones still trickled, the slow ones' answers (408 at the deadline) and when they came, the
server's log lines, and its peak memory (VmHWM of its process). Exits 1 when an upload was not served while the
slow ones trickled, a slow one was not refused, or the peak is over ``--goal-mb``. Runs in about
``--body-timeout`` seconds plus the server's start.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path

from mjtable.web.loopback import peak_mb, start_server

ROOT = Path(__file__).resolve().parent.parent

ANNOUNCED = 1 << 20           # the body size a slow upload announces


def _q(values: list[float], q: float) -> float:
    """The q quantile of the values (the nearest one at or below it)."""
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


async def _slow(port: int, trickle: float, stop_at: float) -> tuple[str, float]:
    """One upload that trickles a byte every ``trickle`` seconds: (the status it was answered, or "none" /
    "closed"; when, on the loop's clock)."""
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"POST /api/read HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {ANNOUNCED}\r\n"
                  f"Content-Type: multipart/form-data; boundary=b\r\n\r\n").encode()
                 + b'--b\r\nContent-Disposition: form-data; name="photo"; filename="slow.jpg"\r\n\r\n')
    read = asyncio.ensure_future(reader.readline())
    try:
        while not read.done() and loop.time() < stop_at:
            done, _ = await asyncio.wait({read}, timeout=min(trickle, max(stop_at - loop.time(), 0)))
            if not done:
                try:
                    writer.write(b"\xff")
                    await writer.drain()
                except ConnectionError:
                    break
        if not read.done():
            read.cancel()
            return "none", loop.time()
        line = read.result()
        return (line.split()[1].decode() if line.startswith(b"HTTP/") else "closed"), loop.time()
    except ConnectionError:
        return "closed", loop.time()
    finally:
        writer.close()


async def _measure(url: str, photo: Path, n: int, slow: int, trickle: float, body_timeout: float):
    import httpx
    loop = asyncio.get_running_loop()
    port = int(url.rsplit(":", 1)[1])
    t0 = loop.time()
    slow_tasks = [asyncio.ensure_future(_slow(port, trickle, t0 + body_timeout + 30)) for _ in range(slow)]
    await asyncio.sleep(min(2.0, body_timeout / 4))      # every slow upload connected and trickling
    data = photo.read_bytes()
    async with httpx.AsyncClient(timeout=600, limits=httpx.Limits(max_connections=n)) as c:
        async def one():
            t = loop.time()
            r = await c.post(url + "/api/read", files={"photo": (photo.name, data, "image/jpeg")})
            return r.status_code, loop.time() - t, loop.time()
        normal = await asyncio.gather(*(one() for _ in range(n)))
    slow_done = await asyncio.gather(*slow_tasks)
    return t0, normal, slow_done


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50, help="uploads sent at once (default 50)")
    ap.add_argument("--slow", type=int, default=64, help="slow uploads trickling meanwhile (default 64)")
    ap.add_argument("--body-timeout", type=float, default=20.0, help="the server's --body-timeout (default 20)")
    ap.add_argument("--trickle", type=float, default=2.0, help="seconds between two bytes of a slow upload")
    ap.add_argument("--photo", type=Path, default=ROOT / "examples" / "phone_win.jpg")
    ap.add_argument("--workers", type=int, default=1, help="the server's --workers (default 1)")
    ap.add_argument("--goal-mb", type=float, default=500.0, help="the peak memory goal (default 500 MB)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    with tempfile.TemporaryFile() as log:
        proc, url = start_server(["--body-timeout", str(a.body_timeout), "--workers", str(a.workers), "--queue", "64"],
                                 stderr=log)
        try:
            t0, normal, slow = asyncio.run(_measure(url, a.photo, a.n, a.slow, a.trickle, a.body_timeout))
            peak = peak_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
        log.seek(0)
        lines = log.read().decode("utf-8", "replace").splitlines()
    codes = Counter(c for c, _, _ in normal)
    first_slow = min((t for _, t in slow), default=float("inf"))
    during = sum(1 for c, _, done in normal if c == 200 and done < first_slow)
    times = [dt for _, dt, _ in normal]
    slow_codes = Counter(s for s, _ in slow)
    slow_at = sorted(t - t0 for _, t in slow)
    refused = [line for line in lines if "-> 408" in line]
    print(f"uploads: {a.n} of {a.photo.name} at once, {a.workers} worker(s): answers {dict(sorted(codes.items()))}; "
          f"p50 {_q(times, .5) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms; {during} of {a.n} answered 200 while "
          f"the slow uploads still trickled")
    print(f"slow uploads: {a.slow}, a byte every {a.trickle:g} s, body timeout {a.body_timeout:g} s: answers "
          f"{dict(sorted(slow_codes.items()))} after {slow_at[0]:.1f}-{slow_at[-1]:.1f} s; {len(refused)} log "
          f"line(s) for them" + (f", e.g. {refused[0]!r}" if refused else ""))
    print(f"server peak memory (VmHWM): {peak:.0f} MB (goal: under {a.goal_mb:g} MB)" if peak else
          "server peak memory: not available (no /proc)")
    ok = during == a.n and slow_codes == Counter({"408": a.slow}) and (peak is None or peak <= a.goal_mb)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
