#!/usr/bin/env python
"""Archive throughput: `mjtable archive` on a LocalCluster against the single-process command line, same files.

    python -m scripts.bench_archive [--copies 30] [--workers 2] [--photos DIR] [--skip-cli]

The photos are the bundled examples (two phone photos and one overhead table), each copied ``--copies`` times
into a temporary folder (or every photo under ``--photos``). Over those same files, in one run, it measures:

* the command line, one photo at a time: ``mjtable PHOTO --json`` in a new process for each (imports, model
  load and the photo: what a league would run today, photo after photo);
* one Python process with the model loaded once, reading the photos in turn as ``mjtable PHOTO --json`` does
  (``pipeline.read_image`` and the JSON; onnxruntime on 2 threads, the command line's default): the warm
  single-process ceiling;
* ``mjtable archive DIR --out OUT --workers N`` in a new process (a LocalCluster of N single-threaded worker
  processes; its start, each worker's model load and the Parquet output included), and the same once the
  cluster is up (from the "dashboard:" line to the end);

and prints images per second for each, and whether the archive's rows agree with the single-process readings
(hand and score of every photo). Nothing here is a test; it prints numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("phone_win.jpg", "phone_hand.jpg", "overhead.jpg")


def photos(folder: Path, copies: int, given: str | None) -> list[Path]:
    if given:
        from mjtable.archive.items import PHOTO_EXT
        src = sorted(p for p in Path(given).rglob("*") if p.suffix.lower() in PHOTO_EXT)
        for i, p in enumerate(src):
            shutil.copy(p, folder / f"{i:05d}_{p.name}")
    else:
        for c in range(copies):
            for name in EXAMPLES:
                shutil.copy(ROOT / "examples" / name, folder / f"{c:03d}_{name}")
    return sorted(folder.iterdir())


def cli_loop(files: list[Path]) -> float:
    t0 = time.perf_counter()
    for f in files:
        subprocess.run([sys.executable, "-m", "mjtable.cli", str(f), "--json"], capture_output=True,
                       check=False)
    return time.perf_counter() - t0


def in_process(files: list[Path]) -> tuple[float, dict]:
    from mjtable.errors import MjtableError
    from mjtable.scoring.notation import format_hand
    from mjtable import pipeline
    t0 = time.perf_counter()
    det = pipeline.load_detector()
    got = {}
    for f in files:
        try:
            out = pipeline.read_image(pipeline.load_image(f), det, pipeline.situation())
            json.dumps(out.to_dict(), ensure_ascii=False)
            got[f.name] = (None if out.hand is None else format_hand(out.hand),
                           None if out.result is None else out.result.total)
        except MjtableError as e:
            got[f.name] = ("error", str(e))
    return time.perf_counter() - t0, got


def archive(folder: Path, out: Path, workers: int) -> tuple[float, float, str]:
    """(seconds in all, seconds once the cluster was up, stderr)."""
    cmd = [sys.executable, "-m", "mjtable.cli", "archive", str(folder), "--out", str(out),
           "--workers", str(workers), "--no-progress"]
    t0 = time.perf_counter()
    up = [None]
    lines = []
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)

    def read():
        for line in p.stderr:
            lines.append(line)
            if line.startswith("dashboard:") and up[0] is None:
                up[0] = time.perf_counter()
    th = threading.Thread(target=read)
    th.start()
    p.wait()
    th.join()
    t1 = time.perf_counter()
    if p.returncode not in (0, 1):
        raise SystemExit(f"mjtable archive failed ({p.returncode}): {''.join(lines)}")
    return t1 - t0, t1 - (up[0] or t0), "".join(lines)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copies", type=int, default=30, help="copies of each bundled example photo (default 30)")
    ap.add_argument("--photos", help="use every photo under this folder instead")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--skip-cli", action="store_true", help="leave out the one-process-per-photo loop")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    import pyarrow.parquet as pq
    with tempfile.TemporaryDirectory(prefix="bench_archive_") as tmp:
        folder = Path(tmp, "photos")
        folder.mkdir()
        files = photos(folder, a.copies, a.photos)
        n = len(files)
        print(f"{n} photos; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
        t_arch, t_arch_up, err = archive(folder, Path(tmp, "out"), a.workers)
        print(f"mjtable archive, LocalCluster {a.workers} workers: {t_arch:.1f} s, {n / t_arch:.2f} images/s "
              f"({n / t_arch_up:.2f} images/s once the cluster was up, {t_arch - t_arch_up:.1f} s to start it)",
              flush=True)
        t_proc, ref = in_process(files)
        print(f"one process, model loaded once (2 threads): {t_proc:.1f} s, {n / t_proc:.2f} images/s", flush=True)
        if not a.skip_cli:
            t_cli = cli_loop(files)
            print(f"mjtable PHOTO --json, a process per photo: {t_cli:.1f} s, {n / t_cli:.2f} images/s", flush=True)
        rows = pq.read_table(Path(tmp, "out", "hands.parquet"), columns=["source", "hand", "score", "status"])
        got = {r["source"].split("/")[-1]: ("error", r["status"]) if r["status"] == "error" else
               (r["hand"], r["score"]) for r in rows.to_pylist()}
        same = sum(got.get(k) == v or (v[0] == "error" and got.get(k, ("",))[0] == "error") for k, v in ref.items())
        print(f"archive rows agreeing with the single-process readings: {same} of {n} (rows: {rows.num_rows})")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
