"""mjtable: from a photo (or text notation) to the hand, its score and the referee's findings.

    mjtable photo.jpg [--rules mcr|sichuan] [--profile NAME] [--seat-wind E] [--prevalent-wind E] [--self-drawn]
                      [--kind auto|phone|overhead] [--json] [--annotate out.png] [-v]
    mjtable score "123m456p11z [345m<] [777z^] +6p" [same situation flags] [--json]
    mjtable audit photo.jpg [--format md|html] [--out report.md] [same flags]
    mjtable batch [--rules R] [--profile P] < hands.jsonl > results.jsonl
    mjtable video game.mp4 [--every 1.0] [--hold 2] [--kind auto|phone|overhead] [--json] [same flags]
    mjtable settle [deal.txt] [--json]
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
import difflib
import importlib
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Optional

from mjtable.errors import EXIT_CODES, EXIT_OK, SHOWN, OutputError, UsageError, answered, shown
from mjtable.scoring import tiles as T
from mjtable.scoring.engines import RULES
from mjtable.scoring.hand import Hand
from mjtable.scoring.notation import chinese_hand, format_hand
from mjtable.scoring.rulings import FACTS, WARNINGS_BEFORE, Facts, check_facts
from mjtable.scoring.situation import SituationError
from mjtable.scoring.situation_fields import FIELDS, FLAG, WIND
from mjtable.scoring.table import MeldOnTable

if TYPE_CHECKING:
    from mjtable.pipeline import Reading

# the subcommands (and photo, the default): what each takes and does, as ``mjtable --help`` lists them
COMMANDS = {
    "score": ("NOTATION", "score a hand typed in notation"),
    "audit": ("PHOTO", "the referee report of a photo (Markdown or HTML)"),
    "batch": ("< HANDS.jsonl", "score JSON-lines hands, one result line each"),
    "video": ("VIDEO", "follow a table on video: each settled change, then the score"),
    "settle": ("[DEAL]", "settle a Sichuan deal from its events"),
    "serve": ("", "the phone page, the JSON API and the live overlay (a web server)"),
    "archive": ("INPUT... --out DIR", "read an archive of recorded games into Parquet (Dask)"),
    "evaluate": ("DATA --names NAMES", "measure the tile detector on a YOLO-labelled image folder"),
}
SUBCOMMANDS = tuple(COMMANDS)


# ------------------------------------------------------------------------------------------ dispatch


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    return answered(lambda: _dispatch(argv))


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "--help-exit":
        print("\n".join(f"{code:4d}  {text}" for code, text in EXIT_CODES.items()))
        return EXIT_OK
    if argv and argv[0] == "--version":
        from mjtable import __version__
        print(f"mjtable {__version__}")
        return EXIT_OK
    if argv and argv[0] in SUBCOMMANDS:
        return command(argv[0]).main(argv[1:])
    if argv and _unknown_command(argv[0]):
        near = difflib.get_close_matches(argv[0], SUBCOMMANDS, 1)
        raise UsageError(f"unknown command {shown(argv[0])}{f' (did you mean {shown(near[0])}?)' if near else ''}; "
                         f"commands: {', '.join(SUBCOMMANDS)}, or a photo file (mjtable --help)")
    return command("photo").main(argv)


def command(name: str):
    """The module of a subcommand (mjtable.cli.NAME), imported on first use."""
    return importlib.import_module(f"{__name__}.{name}")


def _unknown_command(word: str) -> bool:
    """A first argument that reads as a misspelled command, not as a photo: a bare word (no dot, no folder)
    that names no file."""
    return (word.isascii() and word.isalpha() and not os.path.lexists(word))


# ------------------------------------------------------------------------------------------ arguments


class Parser(argparse.ArgumentParser):
    def error(self, message):           # one line, exit 2; a long value the user gave is cut short
        message = re.sub(r"'([^']{%d,})'" % (SHOWN + 1), lambda m: shown(m[1]), message)
        raise UsageError(f"{message} (see {self.prog} --help)")


def commands_help() -> str:
    """The commands, one line each, for ``mjtable --help``."""
    rows = [("mjtable PHOTO", "score the hand on a photo (the default command, above)")]
    rows += [(" ".join(("mjtable", name, takes)).strip(), what) for name, (takes, what) in COMMANDS.items()]
    width = max(len(usage) for usage, _ in rows) + 2
    return "\n".join(["commands (mjtable COMMAND --help for each one's options):"]
                     + [f"  {usage:<{width}}{what}" for usage, what in rows])


def add_common(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rules", choices=RULES, default="mcr", help="rule system (default mcr)")
    ap.add_argument("--profile",
                    help="rule profile: mcr default, competition, competition_literal, mcr1998, wmo2006; "
                         "sichuan sbr2025 (docs/profiles.md)")
    add_situation(ap)
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


def add_situation(ap: argparse.ArgumentParser) -> None:
    """The situation's flags, one for each field of mjtable.scoring.situation_fields.FIELDS (--name-with-dashes;
    a field true by default has --no-NAME), with the old names as aliases (deprecated, kept for the 0.2 release)."""
    for f in FIELDS:
        flags = [_flag(f.name, f.default is True)] + [_flag(n) for n in f.aliases] + \
                ([_flag(f.inverted)] if f.inverted else [])
        old = f" ({', '.join(flags[1:])}: old name, deprecated)" if flags[1:] else ""
        if f.kind == FLAG:
            ap.add_argument(*flags, dest=f.name, action="store_const", const=not f.default, default=None,
                            help=f.help + old)
        else:
            ap.add_argument(*flags, dest=f.name, default=None, metavar="E|S|W|N" if f.kind == WIND else "m|p|s",
                            help=f.help + old)


def _flag(name: str, negated: bool = False) -> str:
    return ("--no-" if negated else "--") + name.replace("_", "-")


def add_facts(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--referee-fact", action="append", metavar="NAME[=N]",
                    help="an incident the referee saw (referee-rulings.txt 5, 6, 11, 12, 13), repeatable: "
                         f"{', '.join(FACTS)}; early_draw=N for the N-th time in the hand; {WARNINGS_BEFORE}=N "
                         "for the warnings the player had in this 局 before (docs/audit.md)")


def add_detections(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--detections", metavar="FILE.json",
                    help="use these detections instead of running the model: a JSON list of {box, kind, "
                         "orientation, confidence}, or a generator ground-truth file (its objects)")


def positive(cast=float, most: float = 1e9):
    """An argparse type: a positive number (cast float or int) of at most ``most`` (a flag's value far beyond any
    use, 1e308 seconds say, is a typo, and overflows where it is turned into frames or bytes)."""
    what = "whole number" if cast is int else "number"

    def parse(text: str):
        try:
            v = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {what}: {shown(text)}") from None
        if not 0 < v <= most:
            raise argparse.ArgumentTypeError(f"must be a positive {what} up to {most:g}: {shown(text)}")
        return v
    return parse


def add_sampling(ap: argparse.ArgumentParser, prefix: str = "") -> None:
    """--every and --hold, as every command that follows a video or a live source takes them."""
    ap.add_argument("--every", type=positive(float), default=1.0, metavar="SECONDS",
                    help=f"{prefix}read one frame every this many seconds at most (default 1.0)")
    ap.add_argument("--hold", type=positive(int), default=2, metavar="N",
                    help=f"{prefix}a change counts when N sampled frames in a row show it (default 2)")


def referee_from_args(a) -> dict:
    reported = tuple(getattr(a, "referee_fact", None) or ())
    try:
        check_facts(reported, a.rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return {"referee": a.referee_profile,
            "facts": Facts(a.found_within_round, a.hand_shown, a.tiles_mixed, reported)}


def situation_from_args(a):
    """The Situation of the parsed flags (a bad value: exit 2, naming the flag). Read by the plain reader of the
    one vocabulary, which gives what the pydantic situation model gives (tests/test_situation_model.py) without
    pydantic's import time at every command's start."""
    from mjtable.scoring.situation_fields import situation_from_fields
    given = {f.name: getattr(a, f.name) for f in FIELDS if getattr(a, f.name) is not None}
    try:
        return situation_from_fields(given, text=True)
    except SituationError as e:
        name, sep, rest = str(e).partition(": ")
        if not sep or name not in given:
            raise
        raise SituationError(f"{_flag(name)}: {rest}") from None


# ------------------------------------------------------------------------------------------ output


def print_reading(out: Reading, a, head: Optional[dict] = None, title: str = "") -> None:
    if a.json:
        sys.stdout.write(json.dumps({**(head or {}), **out.to_dict()}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(title + to_text(out, a.verbose))
    sys.stdout.flush()


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


def trust_lines(out: Reading) -> tuple[str, ...]:
    """What the referee report says of a photo read unsurely: its state and reasons, then how to retake it."""
    t = out.trust
    if t is None or t.state == "trusted":
        return ()
    return (f"{t.state}: " + "; ".join(t.reasons),) + tuple(f"Retake: {a}" for a in t.advice)


def png_bytes(img) -> bytes:
    import cv2
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise OutputError("cannot encode the annotated image as PNG")
    return buf.tobytes()


def annotated(img, out: Reading):
    from mjtable.vision.annotate import annotate
    return annotate(img, out.layout, out.hand, out.result, out.findings)
