"""mjtable: from a photo (or text notation) to the hand, its score and the referee's findings.

    mjtable photo.jpg [--rules mcr|sichuan] [--profile NAME] [--seat-wind E] [--round-wind E] [--self-drawn]
                      [--kind auto|phone|overhead] [--json] [--annotate out.png] [-v]
    mjtable score "123m456p11z [345m<] [777z^] +6p" [same situation flags] [--json]
    mjtable audit photo.jpg [--format md|html] [--out report.md] [same flags]
    mjtable batch [--rules R] [--profile P] < hands.jsonl > results.jsonl
    mjtable video game.mp4 [--every 1.0] [--hold 2] [--kind auto|phone|overhead] [--json] [same flags]
    mjtable serve [--host 127.0.0.1] [--port 8000] [--allow-host NAME] [--source VIDEO|CAMERA|URL]
                  [--max-upload-mb 20] [--body-timeout 30]
    mjtable archive INPUT... --out DIR [--scheduler ADDRESS | --dashboard ADDRESS] [--workers N] [--retries N]
                    [--retry-errors]

Exit codes: mjtable.errors.EXIT_CODES (``mjtable --help-exit``, docs/exit-codes.md); every non-zero code comes
with one line on stderr, never a traceback. Output files are written atomically (temporary file + rename).
`mjtable batch` exits as mjtable.scoring.batch does (0, or 1 if some lines could not be scored).

The work itself is done by mjtable.pipeline; this module parses arguments and prints.
"""
from __future__ import annotations

import argparse
import base64
import difflib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Optional

from mjtable import __version__
from mjtable.errors import (EXIT_CODES, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, InputError,
                            MjtableError, NotAWinError, OutputError, UnreadableError, UsageError, SHOWN, shown)
from mjtable.outputs import check_outputs, write_atomic
from mjtable.scoring import tiles as T
from mjtable.scoring.engines import RULES
from mjtable.scoring.hand import Hand
from mjtable.scoring.notation import chinese_hand, format_hand
from mjtable.scoring.rulings import FACTS, WARNINGS_BEFORE, Facts, check_facts
from mjtable.scoring.table import MeldOnTable

from mjtable import pipeline
from mjtable.pipeline import KINDS, VOID, WINDS, FileDetector, Reading

SUBCOMMANDS = ("score", "audit", "batch", "video", "settle", "serve", "archive")


# ------------------------------------------------------------------------------------------ helpers


def _png_bytes(img) -> bytes:
    import cv2
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise OutputError("cannot encode the annotated image as PNG")
    return buf.tobytes()


def referee_from_args(a) -> dict:
    reported = tuple(getattr(a, "referee_fact", None) or ())
    try:
        check_facts(reported, a.rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return {"referee": a.referee_profile,
            "facts": Facts(a.found_within_round, a.hand_shown, a.tiles_mixed, reported)}


def situation_from_args(a):
    return pipeline.situation(a.seat_wind, a.round_wind, a.self_drawn, a.last_tile, a.kong_replacement,
                              a.robbing_kong, a.last_copy, a.void_suit, a.after_kong_discard, a.heavenly_hand,
                              a.earthly_hand, a.human_hand, a.winning_tile_not_apart)


# ------------------------------------------------------------------------------------------ output


def to_text(out: Reading, verbose: bool = False) -> str:
    lines = []
    if out.layout is not None and out.layout.kind == "overhead":
        for p in out.table.players:
            bits = [f"{p.concealed_face_down} in hand" if p.concealed is None else
                    f"hand {format_hand(Hand(tuple(p.concealed)))}"]
            if p.melds:
                bits.append("melds " + " ".join(_meld_text(m) for m in p.melds))
            if p.flowers:
                bits.append("flowers " + "".join(T.code(f) for f in p.flowers))
            if p.discards:
                bits.append(f"river ({len(p.discards)}) " + " ".join(T.code(t) for t in p.discards))
            if p.exposed:
                bits.append("exposed " + " ".join(T.code(t) for t in p.exposed))
            lines.append(f"{p.seat:7s} " + "; ".join(bits))
    if out.hand is not None:
        who = f" ({out.seat})" if out.seat not in (None, "self") else ""
        lines.append(f"Hand{who}: {format_hand(out.hand)}")
        lines.append(f"中文: {chinese_hand(out.hand)}")
    if out.note:
        lines.append(f"Note: {out.note}")
    r = out.result
    if r is not None:
        unit = "番" if r.rules == "sichuan" else "分"
        lines.append(f"Rules: {r.rules} / {r.profile}")
        for f in r.fans:
            cnt = f" x{f.count}" if f.count > 1 else ""
            lines.append(f"  {_pad(f.name_cn, 10)} {f.name_en:<32s} {f.value:>3d}{cnt:<4s} = {f.points:>3d} {unit}")
        if r.is_win:
            if r.rules == "sichuan":
                lines.append(f"Total: {r.total} 番 (base {r.base})")
            else:
                lines.append(f"Total: {r.total} 分 (without flowers {r.base})")
            lines.append("Payments: " + ", ".join(f"{k} {v}" for k, v in r.payments.items()))
        else:
            lines.append(f"Not a win: {r.reason}")
    if out.trust is not None and out.trust.state != "trusted":
        lines.append(f"Reading: {out.trust.summary}")
    if out.findings:
        checks = sum(f.severity == "check" for f in out.findings)
        lines.append(f"Audit: {len(out.findings)} finding(s)" + (f", {checks} to check before any penalty"
                                                                  if checks else ""))
        for f in out.findings:
            lines.append(f"  [{f.severity}] {f.kind} ({f.seat or 'table'}): {f.message}")
            lines.append(f"      {f.clause} — {f.penalty}")
    else:
        lines.append("Audit: no violation found")
    for u in out.table.unplaced:
        lines.append(f"Reading note: {u}")
    for x in out.doubts:
        lines.append(f"Doubtful tile: {x} — the score depends on it: check it on the photo")
    if getattr(out, "legal", None) is not None:
        lines.append(out.legal.text())
    if verbose and out.ms:
        lines.append("Time: " + ", ".join(f"{k} {v:.1f} ms" for k, v in out.ms.items()))
    return "\n".join(lines) + "\n"


def _pad(s: str, width: int) -> str:
    """Left-justify to a terminal width, counting CJK characters as two columns."""
    import unicodedata
    w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
    return s + " " * max(0, width - w)


def _meld_text(m: MeldOnTable) -> str:
    if m.meld is None:
        return "[" + " ".join("back" if t is None else T.code(t) for t in m.tiles) + "?]"
    from mjtable.scoring.notation import format_meld
    return format_meld(m.meld)


# ------------------------------------------------------------------------------------------ commands


class _Parser(argparse.ArgumentParser):
    def error(self, message):           # one line, exit 2; a long value the user gave is cut short
        raise UsageError(f"{self.prog}: " + re.sub(r"'([^']{%d,})'" % (SHOWN + 1), lambda m: shown(m[1]), message))


def _add_common(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", choices=RULES, default="mcr", help="rule system (default mcr)")
    ap.add_argument("--profile",
                    help="rule profile: mcr default, competition, competition_literal, mcr1998, wmo2006; "
                         "sichuan sbr2025 (docs/profiles.md)")
    ap.add_argument("--seat-wind", choices=sorted(WINDS), default="E", type=str.upper, help="门风 (default E)")
    ap.add_argument("--round-wind", choices=sorted(WINDS), default="E", type=str.upper, help="圈风 (default E)")
    ap.add_argument("--self-drawn", action="store_true", help="自摸: won on a self-drawn tile")
    ap.add_argument("--last-tile", action="store_true", help="won on the last tile (妙手回春/海底捞月)")
    ap.add_argument("--kong-replacement", action="store_true", help="杠上开花")
    ap.add_argument("--robbing-kong", action="store_true", help="抢杠和")
    ap.add_argument("--last-copy", action="store_true", help="和绝张: the winning tile is the last copy")
    ap.add_argument("--after-kong-discard", action="store_true", help="Sichuan 杠上炮")
    ap.add_argument("--void-suit", choices=sorted(VOID), help="Sichuan 定缺 suit")
    ap.add_argument("--heavenly-hand", action="store_true", help="天和 (competition profile): East, self-drawn")
    ap.add_argument("--earthly-hand", action="store_true",
                    help="地和 (competition profile): on East's first discard")
    ap.add_argument("--human-hand", action="store_true", help="人和 (competition profile): ready from the deal")
    ap.add_argument("--winning-tile-not-apart", action="store_true",
                    help="the winning tile was not set apart: no 边/坎/钓 (3.4.28); competition profiles: "
                         "no 绝张/九莲宝灯 either")
    ap.add_argument("--referee-profile", choices=("rules", "rulings"), default="rules",
                    help="penalties as the rule text gives them (rules), or graded by the referee rulings 8 and 10 "
                         "by what happened (rulings)")
    for name, dest, value, what in (("--found-within-round", "found_within_round", True, "a wrong chow was found "
                                     "within the round (ruling 8)"),
                                    ("--found-later", "found_within_round", False, "found after the round"),
                                    ("--hand-shown", "hand_shown", True,
                                     "a false win's hand was laid open (ruling 10)"),
                                    ("--hand-not-shown", "hand_shown", False, "it was not"),
                                    ("--tiles-mixed", "tiles_mixed", True, "its tiles were mixed into the wall")):
        ap.add_argument(name, dest=dest, action="store_const", const=value, default=None, help=what)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print timings")


def _add_facts(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--referee-fact", action="append", metavar="NAME[=N]",
                    help="an incident the referee saw (referee-rulings.txt 5, 6, 11, 12, 13), repeatable: "
                         f"{', '.join(FACTS)}; early_draw=N for the N-th time in the hand; {WARNINGS_BEFORE}=N "
                         "for the warnings the player had in this 局 before (docs/audit.md)")


def _photo_parser(prog: str) -> argparse.ArgumentParser:
    ap = _Parser(prog=prog, description="Score the Mahjong hand on a photo.",
                                 epilog="Other commands: mjtable score NOTATION | mjtable audit PHOTO | "
                                        "mjtable batch | mjtable video VIDEO. mjtable --help-exit lists the exit "
                                        "codes, mjtable --version the version.")
    ap.add_argument("photo", help="image file (jpg/png)")
    ap.add_argument("--kind", choices=KINDS, default="auto",
                    help="phone photo of one hand, or overhead frame of the table (default: guess)")
    ap.add_argument("--annotate", metavar="OUT.png", help="write the photo with what was read drawn on it")
    _add_detections(ap)
    _add_common(ap)
    _add_facts(ap)
    return ap


def _add_detections(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--detections", metavar="FILE.json",
                    help="use these detections instead of running the model: a JSON list of {box, kind, "
                         "orientation, confidence}, or a generator ground-truth file (its objects)")


def _photo_reading(a) -> tuple[object, Reading]:
    pipeline.check_rules(a.rules, a.profile)
    t0 = time.perf_counter()
    img = pipeline.load_image(a.photo)
    t1 = time.perf_counter()
    det = FileDetector(a.detections) if a.detections else pipeline.load_detector()
    t2 = time.perf_counter()
    out = pipeline.read_image(img, det, situation_from_args(a), a.rules, a.profile, a.kind, **referee_from_args(a))
    out.ms = {"read": (t1 - t0) * 1000, "load_model": (t2 - t1) * 1000, **out.ms}
    return img, out


def trust_lines(out: Reading) -> tuple[str, ...]:
    """What the referee report says of a photo read unsurely: its state and reasons, then how to retake it."""
    t = out.trust
    if t is None or t.state == "trusted":
        return ()
    return (f"{t.state}: " + "; ".join(t.reasons),) + tuple(f"Retake: {a}" for a in t.advice)


def _inputs(a) -> list[str]:
    """The files a photo command reads: no output of it may be written over them."""
    return [x for x in (a.photo, a.detections) if x]


def _annotated(img, out: Reading):
    from mjtable.vision.annotate import annotate
    return annotate(img, out.layout, out.hand, out.result, out.findings)


def _print(out: Reading, a, head: Optional[dict] = None, title: str = "") -> None:
    if a.json:
        sys.stdout.write(json.dumps({**(head or {}), **out.to_dict()}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(title + to_text(out, a.verbose))
    sys.stdout.flush()


def cmd_photo(argv: list[str]) -> int:
    ap = _photo_parser("mjtable")
    a = ap.parse_args(argv)
    outputs = [a.annotate] if a.annotate else []
    check_outputs(outputs, _inputs(a))          # before the photo is read: a refusal costs nothing
    img, out = _photo_reading(a)
    if a.annotate:
        write_atomic(a.annotate, _png_bytes(_annotated(img, out)), _inputs(a))
    _print(out, a)
    pipeline.verdict(out)
    return EXIT_OK


def cmd_score(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable score", description="Score a hand written in notation, e.g. "
                                                   "\"123m456p11z [345m<] [777z^] +6p 15f\".")
    ap.add_argument("notation", help="the hand; [..<] [..^] [..>] melds from left/across/right, +X winning tile")
    _add_common(ap)
    _add_facts(ap)
    a = ap.parse_args(argv)
    out = pipeline.read_notation(a.notation, situation_from_args(a), a.rules, a.profile, **referee_from_args(a))
    _print(out, a)
    pipeline.verdict(out)
    return EXIT_OK


def cmd_audit(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable audit", description="Referee report (Markdown or HTML) for a photo.")
    ap.add_argument("photo")
    ap.add_argument("--kind", choices=KINDS, default="auto")
    ap.add_argument("--format", choices=("md", "html"), default="md")
    ap.add_argument("--out", metavar="FILE", help="write the report here (default: stdout); the annotated image "
                                                   "goes next to it (FILE.png) for md, inside the file for html")
    _add_detections(ap)
    _add_common(ap)
    _add_facts(ap)
    a = ap.parse_args(argv)
    # the report, and for md the annotated image beside it (FILE.png): both are checked before either is written
    check_outputs([a.out] if a.out else [], _inputs(a))      # a folder is refused before it is given a suffix
    img_path = Path(a.out).with_suffix(".png") if a.out and a.format == "md" else None
    outputs = [p for p in (img_path, a.out) if p is not None]
    check_outputs(outputs, _inputs(a))
    img, out = _photo_reading(a)
    from mjtable.scoring.report import referee_report
    try:
        text = referee_report(out.table, out.situation, a.rules, a.profile, fmt=a.format, rev=out.review,
                              doubts=[str(x) for x in out.doubts], trust=trust_lines(out))
    except ValueError as e:
        raise UnreadableError(f"cannot build the report: {e}") from None
    png = _png_bytes(_annotated(img, out))
    if a.format == "html":
        tag = f'<p><img alt="annotated photo" style="max-width:100%" src="data:image/png;base64,' \
              f'{base64.b64encode(png).decode()}"></p>'
        text = text.replace("</h1>", "</h1>\n" + tag, 1)
    elif img_path is not None:
        text = text.replace("\n", f"\n\n![annotated photo]({img_path.name})\n", 1)
    if a.out:
        check_outputs(outputs, _inputs(a))
        if img_path is not None:
            write_atomic(img_path, png, _inputs(a))
        write_atomic(a.out, text.encode("utf-8"), _inputs(a))
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _positive(cast=float):
    """An argparse type: a positive finite number (cast float or int)."""
    what = "whole number" if cast is int else "number"

    def parse(text: str):
        try:
            v = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {what}: {shown(text)}") from None
        if not (v > 0 and v != float("inf")):
            raise argparse.ArgumentTypeError(f"must be a positive {what}: {shown(text)}")
        return v
    return parse


def _add_sampling(ap: argparse.ArgumentParser, prefix: str = "") -> None:
    """--every and --hold, as every command that follows a video or a live source takes them."""
    ap.add_argument("--every", type=_positive(float), default=1.0, metavar="SECONDS",
                    help=f"{prefix}read one frame every this many seconds at most (default 1.0)")
    ap.add_argument("--hold", type=_positive(int), default=2, metavar="N",
                    help=f"{prefix}a change counts when N sampled frames in a row show it (default 2)")


def cmd_video(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable video", description="Follow a table on video (a fixed overhead camera, or a "
                 "phone): print each settled change (discards, melds, flowers, exposed tiles, a hand laid "
                 "down), then the settled table, its score if a hand was laid down, and the audit.")
    ap.add_argument("video", help="video file (mp4/avi/mkv ..., whatever this OpenCV decodes)")
    ap.add_argument("--kind", choices=KINDS, default="auto",
                    help="view kind; auto decides it on the first frame with tiles and keeps it")
    _add_sampling(ap)
    ap.add_argument("--max-frames", type=_positive(int), metavar="N", help="stop after N sampled frames")
    _add_common(ap)
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
    _print(out, a, head, f"Settled table ({rd.kind} view; {rd.read} of {rd.sampled} sampled frames read, "
                         f"{len(rd.events)} change(s), median {rd.median_ms:.0f} ms per frame):\n")
    if out.result is not None and not out.result.is_win:
        raise NotAWinError(f"not a winning hand: {out.result.reason}")
    return EXIT_OK


def cmd_settle(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable settle", description="Settle a Sichuan SBR 2025 deal (血战到底: 刮风下雨, wins, "
                 "流局 查花猪/查大叫, penalties) from its events, as JSON or the short text form of "
                 "mjtable.scoring.settle_io; a zero-sum table, each line citing its clause.")
    ap.add_argument("deal", nargs="?", default="-", help="file with the deal's events (default: stdin)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    from mjtable.scoring import settle_io
    limit = 1 << 20
    try:
        if a.deal == "-":
            text = sys.stdin.read(limit + 1)
        else:
            with open(a.deal, encoding="utf-8") as f:
                text = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"cannot read the deal {shown(a.deal)}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read the deal {shown(a.deal)}: not UTF-8 text ({e.reason})") from None
    if len(text) > limit:
        raise InputError(f"the deal {shown(a.deal)} is larger than 1 MB")
    s = settle_io.settle(text)
    sys.stdout.write(json.dumps(settle_io.settle_dict(s), ensure_ascii=False) + "\n" if a.json
                     else settle_io.settle_text(s))
    return EXIT_OK


def cmd_serve(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable serve", description="The phone upload page, the JSON API, live table events and the "
                 "broadcast overlay (http://HOST:PORT/, /overlay, /docs).")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=_positive(int), default=8000)
    ap.add_argument("--source", metavar="VIDEO|CAMERA|URL",
                    help="live source for /api/events and /overlay: a video file (played at its own pace), a "
                         "camera index (0, 1 ...) or a stream URL (rtsp://, http://)")
    ap.add_argument("--kind", choices=KINDS, default="auto", help="the live source's view (default: decide once)")
    _add_sampling(ap, "live: ")
    ap.add_argument("--rules", choices=sorted(RULES), default="mcr", help="live: rule system for a win's score")
    ap.add_argument("--profile", help="live: rule profile for a win's score")
    ap.add_argument("--max-upload-mb", type=_positive(float), default=20.0, metavar="MB",
                    help="largest photo accepted (default 20; 413 above)")
    ap.add_argument("--queue", type=_positive(int), default=64, metavar="N",
                    help="photos admitted at once, read or waiting (default 64; 503 with Retry-After above)")
    ap.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                    help="threads reading photos (default 1)")
    ap.add_argument("--allow-host", action="append", default=[], metavar="NAME", type=_host_name,
                    help="also answer requests whose Host header names NAME (a LAN address or name for a phone; "
                         "repeatable); any other Host than localhost, 127.0.0.1, [::1] and --host is refused (400)")
    ap.add_argument("--body-timeout", type=_positive(float), default=30.0, metavar="SECONDS",
                    help="a request's whole body must arrive within this many seconds (default 30; 408 after)")
    a = ap.parse_args(argv)
    pipeline.check_rules(a.rules, a.profile)
    try:
        from mjtable.vision.web.app import serve
    except ImportError as e:
        raise UsageError(f"the web server needs fastapi, uvicorn, sse-starlette and python-multipart ({e})") from None
    det = pipeline.load_detector()
    if a.host not in ("127.0.0.1", "localhost", "::1"):
        line = f"mjtable serve: listening on {a.host}: other machines can reach it (no login, no TLS)"
        if a.host in ("0.0.0.0", "::", "") and not a.allow_host:
            line += (f"; for a phone on the LAN add --allow-host {lan_address() or 'ADDRESS'} (this machine's LAN "
                     f"address): other Host names are refused")
        print(line, file=sys.stderr)
    serve(a.host, a.port, detector=det, source=a.source, max_upload_mb=a.max_upload_mb, queue_size=a.queue,
          workers=a.workers, every=a.every, hold=a.hold, kind=a.kind, rules=a.rules, profile=a.profile,
          allow_hosts=tuple(a.allow_host), body_timeout=a.body_timeout)
    return EXIT_OK


def _host_name(text: str) -> str:
    """An argparse type: a host name or address as a Host header gives it, without a port."""
    import re

    from mjtable.vision.web.guard import host_name
    t = text.strip()
    if t.count(":") > 1 and not t.startswith("["):      # an IPv6 address without its brackets
        t = f"[{t}]"
    name = host_name(t)
    if name is None or not re.fullmatch(r"[a-z0-9._:-]+", name):
        raise argparse.ArgumentTypeError(f"not a host name or address: {text!r}")
    return name


def lan_address() -> Optional[str]:
    """This machine's address on its default route (a UDP socket's connect sends nothing), or None."""
    import socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))             # TEST-NET-1: never reached, it only picks the interface
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


def cmd_archive(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable archive", description="Read an archive of recorded games (photos, videos, hand "
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
    ap.add_argument("--workers", type=_positive(int), metavar="N",
                    help="LocalCluster: worker processes (default: one per core)")
    ap.add_argument("--threads", type=_positive(int), default=1, metavar="N",
                    help="detector threads per worker process (default 1)")
    ap.add_argument("--retries", type=int, choices=range(0, 11), default=2, metavar="N",
                    help="retries of an item whose task fails (default 2; 0..10)")
    ap.add_argument("--retry-errors", action="store_true",
                    help="read again the items recorded with an error by an earlier run")
    ap.add_argument("--rules", choices=RULES, default="mcr", help="rule system (default mcr; a JSON hand may say)")
    ap.add_argument("--profile", help="rule profile (default: the rules' default)")
    ap.add_argument("--kind", choices=KINDS, default="auto", help="photos and videos: the view (default: guess)")
    _add_sampling(ap, "videos: ")
    ap.add_argument("--max-frames", type=_positive(int), metavar="N", help="videos: at most N sampled frames")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    pipeline.check_rules(a.rules, a.profile)
    from mjtable.vision import archive, archive_run
    opt = archive.Options(a.rules, a.profile, a.kind, a.every, a.hold, a.max_frames, a.threads)
    st = archive_run.run(a.inputs, a.out, opt, scheduler=a.scheduler, workers=a.workers, retries=a.retries,
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


def cmd_batch(argv: list[str]) -> int:
    from mjtable.scoring import batch
    return batch.main(argv)


def _unknown_command(word: str) -> bool:
    """A first argument that reads as a misspelled command, not as a photo: a bare word (no dot, no folder)
    that names no file."""
    return (word.isascii() and word.isalpha() and not os.path.lexists(word))


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "--help-exit":
            print("\n".join(f"{code:4d}  {text}" for code, text in EXIT_CODES.items()))
            return EXIT_OK
        if argv and argv[0] == "--version":
            print(f"mjtable {__version__}")
            return EXIT_OK
        if argv and argv[0] in SUBCOMMANDS:
            return {"score": cmd_score, "audit": cmd_audit, "batch": cmd_batch, "video": cmd_video,
                    "settle": cmd_settle, "serve": cmd_serve, "archive": cmd_archive}[argv[0]](argv[1:])
        if argv and _unknown_command(argv[0]):
            near = difflib.get_close_matches(argv[0], SUBCOMMANDS, 1)
            raise UsageError(f"unknown command {shown(argv[0])}{f' (did you mean {shown(near[0])}?)' if near else ''}; "
                             f"commands: {', '.join(SUBCOMMANDS)}, or a photo file (mjtable --help)")
        return cmd_photo(argv)
    except MjtableError as e:
        print(f"mjtable: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("mjtable: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_INTERNAL
    except SystemExit as e:              # argparse --help
        return int(e.code or 0) if isinstance(e.code, int) else EXIT_USAGE
    except Exception as e:               # never a traceback: say what broke in one line
        print(f"mjtable: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_INTERNAL
