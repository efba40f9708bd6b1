"""``mjtable video VIDEO``: follow a table on video, print each settled change, then the settled table scored."""
from __future__ import annotations

import sys

from mjtable import pipeline
from mjtable.errors import EXIT_OK, NotAWinError
from mjtable.pipeline import KINDS

from . import (Parser, add_common, add_sampling, positive, print_reading, referee_from_args,
               situation_from_args)


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable video", description="Follow a table on video (a fixed overhead camera, or a "
                 "phone): print each settled change (discards, melds, flowers, exposed tiles, a hand laid "
                 "down), then the settled table, its score if a hand was laid down, and the audit.")
    ap.add_argument("video", help="video file (mp4/avi/mkv ..., whatever this OpenCV decodes)")
    ap.add_argument("--kind", choices=KINDS, default="auto",
                    help="view kind; auto decides it on the first frame with tiles and keeps it")
    add_sampling(ap)
    ap.add_argument("--max-frames", type=positive(int), metavar="N", help="stop after N sampled frames")
    add_common(ap)
    a = ap.parse_args(argv)
    pipeline.check_rules(a.rules, a.profile)
    det = pipeline.load_detector()

    def show(e) -> None:
        if not a.json:
            sys.stdout.write(f"{e.time_s:8.1f} s  {e.seat:7s} {e.text}\n")
            sys.stdout.flush()

    rd, out = pipeline.read_video(a.video, det, situation_from_args(a), a.rules, a.profile, a.kind, a.every,
                                  a.hold, a.max_frames, on_event=show, progress=not a.json,
                                  **referee_from_args(a))
    head = {"kind": rd.kind, "sampled": rd.sampled, "read": rd.read, "median_ms": round(rd.median_ms, 1),
            "skipped": [{"frame": f, "why": w} for f, w in rd.skipped],
            "events": [{"frame": e.frame, "time_s": round(e.time_s, 3), "seat": e.seat, "field": e.field,
                        "text": e.text} for e in rd.events]}
    print_reading(out, a, head, f"Settled table ({rd.kind} view; {rd.read} of {rd.sampled} sampled frames read, "
                         f"{len(rd.events)} change(s), median {rd.median_ms:.0f} ms per frame):\n")
    if out.result is not None and not out.result.is_win:
        raise NotAWinError(f"not a winning hand: {out.result.reason}")
    return EXIT_OK
