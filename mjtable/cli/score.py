"""``mjtable score NOTATION``: score a hand typed in notation (docs/notation.md); no numpy, OpenCV or vision."""
from __future__ import annotations

from mjtable import pipeline
from mjtable.errors import EXIT_OK

from . import Parser, add_common, add_facts, print_reading, referee_from_args, situation_from_args


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable score", description="Score a hand written in notation, e.g. "
                                                   "\"123m456p11z [345m<] [777z^] +6p 15f\".")
    ap.add_argument("notation", help="the hand; [..<] [..^] [..>] melds from left/across/right, +X winning tile")
    add_common(ap)
    add_facts(ap)
    a = ap.parse_args(argv)
    out = pipeline.read_notation(a.notation, situation_from_args(a), a.rules, a.profile, **referee_from_args(a))
    print_reading(out, a)
    pipeline.verdict(out)
    return EXIT_OK
