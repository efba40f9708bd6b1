"""mjtable: from a photo (or text notation) to the hand, its score and the referee's findings.

    mjtable photo.jpg [--rules mcr|sichuan] [--profile NAME] [--seat-wind E] [--round-wind E] [--self-drawn]
                      [--kind auto|phone|overhead] [--json] [--annotate out.png] [-v]
    mjtable score "123m456p11z [345m<] [777z^] +6p" [same situation flags] [--json]
    mjtable audit photo.jpg [--format md|html] [--out report.md] [same flags]
    mjtable batch [--rules R] [--profile P] < hands.jsonl > results.jsonl
    mjtable video game.mp4 [--every 1.0] [--hold 2] [--kind auto|phone|overhead] [--json] [same flags]

Exit codes (a one-line message on stderr for every non-zero code, never a traceback):
    0  done (a winning hand scored, or an audit written)
    1  unexpected internal error
    2  usage error (bad option or value)
    3  the input file is not a readable image or video (missing, empty, corrupt, unknown format)
    4  no tiles found (a video: on no sampled frame), or the hand on the photo cannot be read (unreadable meld,
       nothing to score)
    5  the hand is read but is not a winning hand under the rules (the reason is printed)
    6  bad notation or impossible hand (wrong tile count, five copies ...)
    7  the detector model is missing or unusable
    8  an output file cannot be written
Output files are written atomically (temporary file + rename): nothing half-written is left behind.
`mjtable batch` exits as mjtable.scoring.batch does (0, or 1 if some lines could not be scored).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, LEFT, RIGHT, Hand, Situation
from mjtable.scoring.notation import NotationError, chinese_hand, format_hand, parse_hand
from mjtable.scoring.result import Finding, ScoreResult
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_IMAGE, EXIT_LAYOUT, EXIT_NOT_WIN, EXIT_NOTATION, EXIT_MODEL, EXIT_OUTPUT = \
    0, 1, 2, 3, 4, 5, 6, 7, 8
WINDS = {"E": T.EAST, "S": T.SOUTH, "W": T.WEST, "N": T.NORTH}
VOID = {"m": T.MAN, "p": T.PIN, "s": T.SOU}
RULES = ("mcr", "sichuan")
SUBCOMMANDS = ("score", "audit", "batch", "video")


class CliError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------------------------------ helpers


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise CliError(EXIT_OUTPUT, f"cannot write {p}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise CliError(EXIT_OUTPUT, f"cannot write {p}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(EXIT_OUTPUT, f"cannot write {p}: {e.strerror or e}") from None


def _png_bytes(img) -> bytes:
    import cv2
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise CliError(EXIT_OUTPUT, "cannot encode the annotated image as PNG")
    return buf.tobytes()


def situation_from_args(a) -> Situation:
    return Situation(self_drawn=a.self_drawn, seat_wind=WINDS[a.seat_wind], prevalent_wind=WINDS[a.round_wind],
                     last_tile=a.last_tile, kong_replacement=a.kong_replacement, robbing_kong=a.robbing_kong,
                     last_copy=a.last_copy, void_suit=None if a.void_suit is None else VOID[a.void_suit],
                     after_kong_discard=a.after_kong_discard)


def _engine(rules: str):
    try:
        if rules == "sichuan":
            from mjtable.scoring import sichuan as eng
        else:
            from mjtable.scoring import mcr as eng
    except ImportError as e:
        raise CliError(EXIT_INTERNAL, f"the {rules} scoring engine is not available ({e})") from None
    return eng


def _profile(rules: str, profile: Optional[str]) -> str:
    if rules == "sichuan":
        return "sbr2025" if profile in (None, "default") else profile
    return profile or "default"


def _check_profile(rules: str, profile: Optional[str]) -> None:
    prof = _profile(rules, profile)
    if rules == "mcr":
        profiles = getattr(_engine("mcr"), "PROFILES", None)
        if profiles is not None and prof not in profiles:
            raise CliError(EXIT_USAGE, f"unknown MCR profile {prof!r} (known: {', '.join(sorted(profiles))})")


# ------------------------------------------------------------------------------------------ analysis


@dataclass
class Outcome:
    """Everything one run found: what lies on the table, the hand, its score, the findings, the timings."""
    rules: str
    profile: str
    situation: Situation
    table: TableState
    layout: object = None                  # mjtable.vision.layout.Layout for a photo
    hand: Optional[Hand] = None
    result: Optional[ScoreResult] = None
    seat: Optional[str] = None             # whose hand was scored
    note: str = ""                         # why there is no hand / how it was read
    findings: list[Finding] = field(default_factory=list)
    review: object = None                  # mjtable.scoring.audit.Review, reused by the referee report
    ms: dict[str, float] = field(default_factory=dict)


def review_table(table: TableState, situation: Situation, rules: str, profile: Optional[str], out: Outcome) -> None:
    from mjtable.scoring.audit import AuditError, review
    t0 = time.perf_counter()
    try:
        rev = review(table, situation, rules, profile)
    except AuditError as e:
        raise CliError(EXIT_LAYOUT, f"cannot audit what was read: {e}") from None
    except ValueError as e:                     # an engine refusing a profile or a hand
        raise CliError(EXIT_USAGE if "profile" in str(e) else EXIT_NOTATION, str(e)) from None
    out.findings = rev.findings
    out.review = rev
    if rev.scores:
        seat = "self" if "self" in rev.scores else sorted(rev.scores)[0]
        sc = rev.scores[seat]
        out.seat, out.hand, out.result, out.note = seat, sc.hand, sc.result, sc.note
    out.ms["score"] = (time.perf_counter() - t0) * 1000


def analyse_image(img, detector, situation: Situation, rules: str = "mcr", profile: Optional[str] = None,
                  kind: str = "auto") -> Outcome:
    """Detections -> layout -> hand -> score + findings, for one image already in memory."""
    from .detector import guess_kind
    from .layout import LayoutError, parse
    t0 = time.perf_counter()
    dets = detector.detect(img, kind)
    t1 = time.perf_counter()
    k = guess_kind(dets) if kind == "auto" else kind
    try:
        lay = parse(dets, kind=k, frame=(img.shape[1], img.shape[0]))
    except LayoutError as e:
        raise CliError(EXIT_LAYOUT, str(e)) from None
    lay.table.rules = rules
    if k == "phone" and rules == "sichuan" and situation.void_suit is not None:
        lay.table.players[0].void_suit = situation.void_suit
    t2 = time.perf_counter()
    out = Outcome(rules, _profile(rules, profile), situation, lay.table, lay)
    out.ms.update(detect=(t1 - t0) * 1000, layout=(t2 - t1) * 1000)
    review_table(lay.table, situation, rules, profile, out)
    return out


def table_from_hand(hand: Hand) -> TableState:
    """A hand typed in notation, laid on the table as the layout parser would have read it."""
    melds = []
    for m in hand.melds:
        if m.concealed:
            melds.append(MeldOnTable((None, m.tile, m.tile, None), None, m))
            continue
        n = len(m.tiles)
        side = {LEFT: 0, ACROSS: 1, RIGHT: n - 1}[m.source]
        melds.append(MeldOnTable(tuple(m.tiles), side, m))
    area = PlayerArea("self", tuple(hand.concealed), 0, tuple(melds), hand.winning_tile,
                      hand.situation.winning_tile_apart, tuple(hand.flowers), declared_win=True,
                      void_suit=hand.situation.void_suit)
    return TableState([area])


def analyse_notation(text: str, situation: Situation, rules: str, profile: Optional[str]) -> Outcome:
    try:
        hand = parse_hand(text, situation)
    except NotationError as e:
        raise CliError(EXIT_NOTATION, f"bad notation: {e}") from None
    problems = hand.problems()
    if problems:
        raise CliError(EXIT_NOTATION, f"impossible hand {text!r}: {'; '.join(problems)}")
    table = table_from_hand(hand)
    out = Outcome(rules, _profile(rules, profile), situation, table)
    review_table(table, situation, rules, profile, out)
    if out.hand is None:
        out.hand = hand
    return out


# ------------------------------------------------------------------------------------------ output


def _players_json(table: TableState) -> list[dict]:
    out = []
    for p in table.players:
        out.append({"seat": p.seat, "concealed": None if p.concealed is None else list(p.concealed),
                    "concealed_face_down": p.concealed_face_down,
                    "melds": [{"tiles": list(m.tiles), "sideways": m.sideways,
                               "meld": None if m.meld is None else
                               {"kind": m.meld.kind, "tile": m.meld.tile, "concealed": m.meld.concealed,
                                "source": m.meld.source}} for m in p.melds],
                    "winning_tile": p.winning_tile, "winning_tile_apart": p.winning_tile_apart,
                    "flowers": list(p.flowers), "discards": list(p.discards), "exposed": list(p.exposed)})
    return out


def to_json(out: Outcome) -> dict:
    from mjtable.scoring.jsonio import findings_to_dict, hand_to_dict, result_to_dict
    d = {"rules": out.rules, "profile": out.profile, "seat": out.seat,
         "hand": None, "result": None if out.result is None else result_to_dict(out.result),
         "note": out.note or None, "findings": findings_to_dict(out.findings),
         "players": _players_json(out.table), "unplaced": list(out.table.unplaced),
         "timing_ms": {k: round(v, 2) for k, v in out.ms.items()}}
    if out.layout is not None:
        d["kind"] = out.layout.kind
    if out.hand is not None:
        try:
            d["hand"] = hand_to_dict(out.hand)
        except NotationError:
            d["hand"] = None
    return d


def to_text(out: Outcome, verbose: bool = False) -> str:
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
    if out.findings:
        lines.append(f"Audit: {len(out.findings)} finding(s)")
        for f in out.findings:
            lines.append(f"  [{f.severity}] {f.kind} ({f.seat or 'table'}): {f.message}")
            lines.append(f"      {f.clause} — {f.penalty}")
    else:
        lines.append("Audit: no violation found")
    for u in out.table.unplaced:
        lines.append(f"Reading note: {u}")
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
    def error(self, message):           # one line, exit 2
        raise CliError(EXIT_USAGE, f"{self.prog}: {message}")


def _add_common(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", choices=RULES, default="mcr", help="rule system (default mcr)")
    ap.add_argument("--profile", help="rule profile: mcr default|competition, sichuan sbr2025")
    ap.add_argument("--seat-wind", choices=sorted(WINDS), default="E", type=str.upper, help="门风 (default E)")
    ap.add_argument("--round-wind", choices=sorted(WINDS), default="E", type=str.upper, help="圈风 (default E)")
    ap.add_argument("--self-drawn", action="store_true", help="自摸: won on a self-drawn tile")
    ap.add_argument("--last-tile", action="store_true", help="won on the last tile (妙手回春/海底捞月)")
    ap.add_argument("--kong-replacement", action="store_true", help="杠上开花")
    ap.add_argument("--robbing-kong", action="store_true", help="抢杠和")
    ap.add_argument("--last-copy", action="store_true", help="和绝张: the winning tile is the last copy")
    ap.add_argument("--after-kong-discard", action="store_true", help="Sichuan 杠上炮")
    ap.add_argument("--void-suit", choices=sorted(VOID), help="Sichuan 定缺 suit")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print timings")


def _photo_parser(prog: str) -> argparse.ArgumentParser:
    ap = _Parser(prog=prog, description="Score the Mahjong hand on a photo.",
                                 epilog="Other commands: mjtable score NOTATION | mjtable audit PHOTO | "
                                        "mjtable batch. Exit codes: see the module doc (mjtable --help-exit).")
    ap.add_argument("photo", help="image file (jpg/png)")
    ap.add_argument("--kind", choices=("auto", "phone", "overhead"), default="auto",
                    help="phone photo of one hand, or overhead frame of the table (default: guess)")
    ap.add_argument("--annotate", metavar="OUT.png", help="write the photo with what was read drawn on it")
    _add_detections(ap)
    _add_common(ap)
    return ap


def _add_detections(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--detections", metavar="FILE.json",
                    help="use these detections instead of running the model: a JSON list of {box, kind, "
                         "orientation, confidence}, or a generator ground-truth file (its objects)")


class FileDetector:
    """Detections read from JSON (another detector's output, or a scene's ground truth)."""

    def __init__(self, path: str):
        from .types import ORIENTATIONS, Detection
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CliError(EXIT_IMAGE, f"cannot read detections {path}: {e}") from None
        items = data.get("objects") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise CliError(EXIT_IMAGE, f"detections {path}: want a JSON list (or an object with \"objects\")")
        self.dets = []
        for i, o in enumerate(items):
            try:
                box = tuple(float(v) for v in o["box"])
                kind, ori = int(o["kind"]), o.get("orientation", "upright")
                if len(box) != 4 or not 0 <= kind <= T.BACK or ori not in ORIENTATIONS:
                    raise ValueError("bad box, kind or orientation")
                self.dets.append(Detection(box, kind, ori, float(o.get("confidence", 1.0))))
            except (KeyError, TypeError, ValueError) as e:
                raise CliError(EXIT_IMAGE, f"detections {path}: item {i}: {e}") from None

    def detect(self, img, kind="auto"):
        return list(self.dets)



def _load_detector():
    try:
        from .detector import ModelError, TileDetector
    except ImportError as e:
        raise CliError(EXIT_MODEL, f"the detector is not available ({e})") from None
    try:
        return TileDetector()
    except (ModelError, FileNotFoundError, OSError) as e:
        raise CliError(EXIT_MODEL, f"detector model: {e}") from None
    except Exception as e:              # onnxruntime refusing a file
        raise CliError(EXIT_MODEL, f"detector model unusable: {e}") from None


def _load_image(path: str):
    try:
        from .detector import ImageError, load_image
    except ImportError as e:
        raise CliError(EXIT_MODEL, f"the detector is not available ({e})") from None
    try:
        return load_image(path)
    except ImageError as e:
        raise CliError(EXIT_IMAGE, str(e)) from None


def _photo_outcome(a) -> tuple[object, Outcome]:
    _check_profile(a.rules, a.profile)
    t0 = time.perf_counter()
    img = _load_image(a.photo)
    t1 = time.perf_counter()
    det = FileDetector(a.detections) if a.detections else _load_detector()
    t2 = time.perf_counter()
    out = analyse_image(img, det, situation_from_args(a), a.rules, a.profile, a.kind)
    out.ms = {"read": (t1 - t0) * 1000, "load_model": (t2 - t1) * 1000, **out.ms}
    return img, out


def _annotated(img, out: Outcome):
    from .annotate import annotate
    return annotate(img, out.layout, out.hand, out.result, out.findings)


def _finish(out: Outcome, a) -> int:
    """Print, and choose the exit code: no hand -> 4, not a win -> 5."""
    if a.json:
        sys.stdout.write(json.dumps(to_json(out), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(to_text(out, a.verbose))
    sys.stdout.flush()
    if out.layout is not None and out.layout.kind == "overhead" and out.result is None:
        return EXIT_OK                  # an overhead frame without a declared win: the audit is the answer
    if out.result is None:
        why = out.note or "no hand to score"
        extra = f" ({'; '.join(out.table.unplaced)})" if out.table.unplaced else ""
        raise CliError(EXIT_LAYOUT, f"could not read the hand: {why}{extra}")
    if not out.result.is_win:
        raise CliError(EXIT_NOT_WIN, f"not a winning hand: {out.result.reason}")
    return EXIT_OK


def cmd_photo(argv: list[str]) -> int:
    ap = _photo_parser("mjtable")
    a = ap.parse_args(argv)
    img, out = _photo_outcome(a)
    if a.annotate:
        write_atomic(a.annotate, _png_bytes(_annotated(img, out)))
    return _finish(out, a)


def cmd_score(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable score", description="Score a hand written in notation, e.g. "
                                                   "\"123m456p11z [345m<] [777z^] +6p 15f\".")
    ap.add_argument("notation", help="the hand; [..<] [..^] [..>] melds from left/across/right, +X winning tile")
    _add_common(ap)
    a = ap.parse_args(argv)
    _check_profile(a.rules, a.profile)
    out = analyse_notation(a.notation, situation_from_args(a), a.rules, a.profile)
    return _finish(out, a)


def cmd_audit(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable audit", description="Referee report (Markdown or HTML) for a photo.")
    ap.add_argument("photo")
    ap.add_argument("--kind", choices=("auto", "phone", "overhead"), default="auto")
    ap.add_argument("--format", choices=("md", "html"), default="md")
    ap.add_argument("--out", metavar="FILE", help="write the report here (default: stdout); the annotated image "
                                                   "goes next to it (FILE.png) for md, inside the file for html")
    _add_detections(ap)
    _add_common(ap)
    a = ap.parse_args(argv)
    img, out = _photo_outcome(a)
    from mjtable.scoring.report import referee_report
    try:
        text = referee_report(out.table, out.situation, a.rules, a.profile, fmt=a.format, rev=out.review)
    except ValueError as e:
        raise CliError(EXIT_LAYOUT, f"cannot build the report: {e}") from None
    png = _png_bytes(_annotated(img, out))
    if a.format == "html":
        tag = f'<p><img alt="annotated photo" style="max-width:100%" src="data:image/png;base64,' \
              f'{base64.b64encode(png).decode()}"></p>'
        text = text.replace("</h1>", "</h1>\n" + tag, 1)
    elif a.out:
        img_path = Path(a.out).with_suffix(".png")
        text = text.replace("\n", f"\n\n![annotated photo]({img_path.name})\n", 1)
    if a.out:
        if a.format == "md":
            write_atomic(img_path, png)
        write_atomic(a.out, text.encode("utf-8"))
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
            raise argparse.ArgumentTypeError(f"not a {what}: {text!r}") from None
        if not (v > 0 and v != float("inf")):
            raise argparse.ArgumentTypeError(f"must be a positive {what}: {text!r}")
        return v
    return parse


def cmd_video(argv: list[str]) -> int:
    ap = _Parser(prog="mjtable video", description="Follow a table on video (a fixed overhead camera, or a "
                 "phone): print each settled change (discards, melds, flowers, exposed tiles, a hand laid "
                 "down), then the settled table, its score if a hand was laid down, and the audit.")
    ap.add_argument("video", help="video file (mp4/avi/mkv ..., whatever this OpenCV decodes)")
    ap.add_argument("--kind", choices=("auto", "phone", "overhead"), default="auto",
                    help="view kind; auto decides it on the first frame with tiles and keeps it")
    ap.add_argument("--every", type=_positive(float), default=1.0, metavar="SECONDS",
                    help="look at one frame every this many seconds (default 1.0)")
    ap.add_argument("--hold", type=_positive(int), default=2, metavar="N",
                    help="a change counts when N sampled frames in a row show it (default 2)")
    ap.add_argument("--max-frames", type=_positive(int), metavar="N", help="stop after N sampled frames")
    _add_common(ap)
    a = ap.parse_args(argv)
    _check_profile(a.rules, a.profile)
    from .layout import Layout
    from .video import VideoError, watch
    det = _load_detector()

    def show(e) -> None:
        if not a.json:
            sys.stdout.write(f"{e.time_s:8.1f} s  {e.seat:7s} {e.text}\n")
            sys.stdout.flush()

    try:
        rd = watch(a.video, det, every=a.every, hold=a.hold, kind=a.kind, max_frames=a.max_frames,
                   on_event=show, rules=a.rules)
    except VideoError as e:
        raise CliError(EXIT_IMAGE, str(e)) from None
    if rd.read == 0:
        why = rd.skipped[0][1] if rd.skipped else "no frame"
        raise CliError(EXIT_LAYOUT, f"nothing read on {rd.sampled} sampled frame(s) of {a.video}: {why}")
    sit = situation_from_args(a)
    out = Outcome(a.rules, _profile(a.rules, a.profile), sit, rd.table, Layout(rd.table, [], rd.kind, 0.0))
    review_table(rd.table, sit, a.rules, a.profile, out)
    head = {"kind": rd.kind, "sampled": rd.sampled, "read": rd.read, "median_ms": round(rd.median_ms, 1),
            "skipped": [{"frame": f, "why": w} for f, w in rd.skipped],
            "events": [{"frame": e.frame, "time_s": round(e.time_s, 3), "seat": e.seat, "field": e.field,
                        "text": e.text} for e in rd.events]}
    if a.json:
        sys.stdout.write(json.dumps({**head, **to_json(out)}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(f"Settled table ({rd.kind} view; {rd.read} of {rd.sampled} sampled frames read, "
                         f"{len(rd.events)} change(s), median {rd.median_ms:.0f} ms per frame):\n")
        sys.stdout.write(to_text(out, False))
    sys.stdout.flush()
    if out.result is not None and not out.result.is_win:
        raise CliError(EXIT_NOT_WIN, f"not a winning hand: {out.result.reason}")
    return EXIT_OK


def cmd_batch(argv: list[str]) -> int:
    from mjtable.scoring import batch
    return batch.main(argv)


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "--help-exit":
            print(__doc__.split("Exit codes")[1].split("`mjtable batch`")[0].strip())
            return EXIT_OK
        if argv and argv[0] in SUBCOMMANDS:
            return {"score": cmd_score, "audit": cmd_audit, "batch": cmd_batch,
                    "video": cmd_video}[argv[0]](argv[1:])
        return cmd_photo(argv)
    except CliError as e:
        print(f"mjtable: error: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("mjtable: interrupted", file=sys.stderr)
        return 130
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


if __name__ == "__main__":
    sys.exit(main())
