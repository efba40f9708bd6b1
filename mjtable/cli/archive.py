"""``mjtable archive INPUT... --out DIR``: read an archive of recorded games on Dask (mjtable.archive)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable import pipeline
from mjtable.errors import EXIT_OK
from mjtable.pipeline import KINDS
from mjtable.scoring.engines import RULES

from . import Parser, add_sampling, positive


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable archive", description="Read an archive of recorded games (photos, videos, hand "
                 "files; folders are walked) on Dask: one Parquet row per hand in OUT/hands.parquet, a summary "
                 "per game in OUT/summary.parquet and OUT/summary.json. Resumable: a re-run reads only what is "
                 "not done. Exits 0, or 1 when some items or hands are recorded as errors.")
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="photo, video or hand file (.txt notation lines, "
                    ".jsonl as mjtable batch reads), or a folder of them")
    ap.add_argument("--out", required=True, metavar="DIR", help="output folder (created if need be)")
    ap.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786); "
                    "default: a LocalCluster on this machine")
    ap.add_argument("--dashboard", metavar="ADDRESS", type=_listen_address,
                    help="LocalCluster: the dashboard's address (default 127.0.0.1:8787, this machine only; :8787 "
                         "for every interface)")
    ap.add_argument("--workers", type=positive(int), metavar="N",
                    help="LocalCluster: worker processes (default: one per core)")
    ap.add_argument("--threads", type=positive(int), default=1, metavar="N",
                    help="detector threads per worker process (default 1)")
    ap.add_argument("--retries", type=int, choices=range(0, 11), default=2, metavar="N",
                    help="retries of an item whose task fails (default 2; 0..10)")
    ap.add_argument("--retry-errors", action="store_true",
                    help="read again the items recorded with an error by an earlier run")
    ap.add_argument("--rules", choices=RULES, default="mcr", help="rule system (default mcr; a JSON hand may say)")
    ap.add_argument("--profile", help="rule profile (default: the rules' default)")
    ap.add_argument("--kind", choices=KINDS, default="auto", help="photos and videos: the view (default: guess)")
    add_sampling(ap, "videos: ")
    ap.add_argument("--max-frames", type=positive(int), metavar="N", help="videos: at most N sampled frames")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    pipeline.check_rules(a.rules, a.profile)
    from mjtable.archive import items, run
    opt = items.Options(a.rules, a.profile, a.kind, a.every, a.hold, a.max_frames, a.threads)
    st = run.run(a.inputs, a.out, opt, scheduler=a.scheduler, workers=a.workers, retries=a.retries,
                 retry_errors=a.retry_errors, progress=not a.no_progress, dashboard=a.dashboard)
    t = st.totals
    print(f"archive: {st.items} item(s), {st.processed} read now ({st.failed} failed), {st.done_before} done "
          f"before; {t['rows']} row(s), {t['hands']} hand(s), {t['wins']} win(s), {t['errors']} error row(s) "
          f"-> {Path(a.out) / 'hands.parquet'}", file=sys.stderr)
    return 1 if t["errors"] else EXIT_OK


def _listen_address(text: str) -> str:
    """An argparse type: HOST:PORT or :PORT (every interface), the port 0..65535 (0: any free one)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535 or any(c.isspace() or c in "/@?#" for c in host):
        raise argparse.ArgumentTypeError(f"want HOST:PORT or :PORT, got {text!r}")
    return text.strip()
