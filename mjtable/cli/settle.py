"""``mjtable settle [DEAL]``: settle a Sichuan SBR 2025 deal from its events (mjtable.scoring.settle_io), or a 2V2
deal or duplicate board under the supplement (mjtable.scoring.settle_io_2v2)."""
from __future__ import annotations

import json
import sys

from mjtable.errors import EXIT_OK, InputError, shown

from . import Parser


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable settle", description="Settle a Sichuan SBR 2025 deal (血战到底: 刮风下雨, wins, "
                 "流局 查花猪/查大叫, penalties) from its events, as JSON or the short text form of "
                 "mjtable.scoring.settle_io; a zero-sum table, each line citing its clause. A deal whose first "
                 "line is 'mode 2v2' (JSON \"mode\": \"2v2\") is settled under the 2V2 supplement for two teams, "
                 "'mode 2v2-duplicate' as a duplicate board with its IMP (mjtable.scoring.settle_io_2v2).")
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
