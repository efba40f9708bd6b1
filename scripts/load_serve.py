"""Load test of ``mjtable serve`` on loopback: N concurrent uploads of a photo; p50 / p95 latency, the answers'
status codes and the server's peak memory. Starts its own server process unless --url is given.

    python -m mjtable.scripts.load_serve [--n 50] [--concurrency 50] [--photo examples/phone_win.jpg] [--url URL]
"""
from __future__ import annotations

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _peak_kb(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", text).group(1))


async def _load(url: str, photo: bytes, n: int, concurrency: int) -> tuple[list[float], Counter]:
    import httpx
    sem = asyncio.Semaphore(concurrency)
    times, codes = [], Counter()
    async with httpx.AsyncClient(timeout=300) as c:
        async def one():
            async with sem:
                t0 = time.perf_counter()
                r = await c.post(url + "/api/read", files={"photo": ("p.jpg", photo, "image/jpeg")},
                                 data={"seat_wind": "S"})
                times.append(time.perf_counter() - t0)
                codes[r.status_code] += 1
        await asyncio.gather(*(one() for _ in range(n)))
    return sorted(times), codes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--photo", type=Path, default=ROOT / "examples" / "phone_win.jpg")
    ap.add_argument("--url", help="a running server (default: start one here)")
    a = ap.parse_args(argv)
    proc = None
    url = a.url
    if url is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([sys.executable, "-m", "mjtable.vision.cli", "serve", "--port", str(port)])
        url = f"http://127.0.0.1:{port}"
        import httpx
        for _ in range(300):
            try:
                if httpx.get(url + "/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
    try:
        times, codes = asyncio.run(_load(url, a.photo.read_bytes(), a.n, a.concurrency))
        peak = _peak_kb(proc.pid) if proc else None
    finally:
        if proc:
            proc.terminate()
            proc.wait(10)
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))]   # noqa: E731
    print(f"{a.n} uploads, {a.concurrency} at a time: p50 {p(0.5) * 1000:.0f} ms, p95 {p(0.95) * 1000:.0f} ms, "
          f"max {times[-1] * 1000:.0f} ms; answers {dict(sorted(codes.items()))}"
          + (f"; server peak memory {peak / 1024:.0f} MB" if peak else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
