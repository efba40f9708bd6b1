"""Referee report (Markdown or HTML) from a table state: each declared hand with its fans, total and payments,
each finding with its rule clause and penalty, and lines for the referee's and players' signatures.

    from mjtable.scoring.report import referee_report
    text = referee_report(table, situation, rules="mcr", profile="competition", fmt="md")   # or fmt="html"

The document is built once as a list of blocks and rendered by ``to_markdown`` / ``to_html``.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field

from . import tiles as T
from .audit import AreaScore, Review, review
from .engines import resolve_profile
from .hand import Situation
from .notation import NotationError, chinese_hand, format_hand
from .result import Finding
from .table import TableState

FORMATS = ("md", "html")
SEAT_CN = {"self": "本家", "right": "下家", "across": "对家", "left": "上家"}
RULES_NAME = {
    ("mcr", "default"): "国标麻将 MCR (WMO 2006)",
    ("mcr", "competition"): "国标麻将 MCR (竞赛规则 competition variant)",
    ("sichuan", "sbr2025"): "四川麻将 Sichuan SBR 2025 (血战到底)",
}


def _by_severity(findings) -> str:
    """How many findings of each severity, after the total: ": 1 violation, 2 check" (nothing when none)."""
    counts = Counter(f.severity for f in findings)
    return (": " + ", ".join(f"{n} {sev}" for sev, n in counts.items())) if counts else ""


PAYER_CN = {"each": "每家 each", "discarder": "点炮者 discarder", "other": "其他两家 each other player"}
SEVERITY_CN = {
    "violation": "违规 violation",
    "warning": "提示 warning",
    "check": "核查 check (no penalty until verified)",
}


class ReportError(ValueError):
    """Bad report request (unknown format); the message says what."""


@dataclass
class Block:
    kind: str  # "h1", "h2", "p", "code", "table", "list", "sign"
    text: str = ""
    header: tuple[str, ...] = ()
    rows: list[tuple[str, ...]] = field(default_factory=list)
    items: list[tuple[str, list[str]]] = field(default_factory=list)  # (line, sub-lines)


def _situation_line(s: Situation, rules: str) -> str:
    parts = ["自摸 self-drawn" if s.self_drawn else "点和 won on a discard"]
    if rules == "mcr":
        parts.append(f"门风 seat wind {T.chinese(s.seat_wind)} · 圈风 round wind {T.chinese(s.prevalent_wind)}")
    flags = [
        ("last_tile", "海底/妙手 last tile"),
        ("kong_replacement", "杠上开花 kong replacement"),
        ("robbing_kong", "抢杠 robbing a kong"),
        ("after_kong_discard", "杠上炮 discard after kong"),
        ("last_copy", "绝张 last copy"),
    ]
    parts += [name for f, name in flags if getattr(s, f)]
    if s.void_suit is not None:
        parts.append(f"定缺 void suit {'万饼条'[s.void_suit]}")
    return " · ".join(parts)


def _hand_blocks(a: AreaScore, rules: str) -> list[Block]:
    out = [Block("h2", f"和牌 Declared win — {SEAT_CN.get(a.seat, a.seat)} ({a.seat})")]
    if a.hand is None:
        out.append(
            Block("p", f"未能读取手牌 Hand not readable: {a.note}. 请裁判目视核对 The referee checks it by eye.")
        )
        return out
    try:
        out.append(Block("code", format_hand(a.hand)))
    except NotationError:
        pass
    out.append(Block("p", chinese_hand(a.hand)))
    if a.note:
        out.append(Block("p", f"注 Note: {a.note}"))
    r = a.result
    assert r is not None  # score_area sets a result whenever it sets the hand
    unit = "番" if rules == "sichuan" else "分"
    rows: list[tuple[str, ...]] = [(f.name_cn, f.name_en, str(f.value), str(f.count), str(f.points)) for f in r.fans]
    if not r.is_win:
        out.append(Block("p", f"**不成和 Not a valid win:** {r.reason}"))
        if rows:
            out.append(Block("p", "已计番种 Fans found:"))
            out.append(Block("table", header=("番种", "Fan", f"值 ({unit})", "次 ×", "计 Total"), rows=rows))
        return out
    out.append(
        Block(
            "table",
            header=("番种", "Fan", f"值 ({unit})", "次 ×", "计 Total"),
            rows=rows or [("—", "no fan (平和)" if rules == "sichuan" else "—", "", "", "0")],
        )
    )
    if rules == "sichuan":
        total = f"合计 Total: {r.total} 番 → 基本分 base {r.base} (3 番封顶 cap 3 fans)"
    else:
        total = f"合计 Total: {r.total} 分 (不含花 without flowers: {r.base})"
    pay = ", ".join(f"{PAYER_CN.get(k, k)} {v}" for k, v in r.payments.items())
    out.append(Block("p", f"{total}. 付分 Payments: {pay}."))
    if r.decomposition:
        out.append(Block("p", f"牌型 Reading: {r.decomposition}"))
    for n in r.notes:
        out.append(Block("p", f"注 Note: {n}"))
    return out


def _finding_item(i: int, f: Finding) -> tuple[str, list[str]]:
    seat = f"{SEAT_CN.get(f.seat, f.seat)} ({f.seat})" if f.seat else "全桌 whole table"
    sev = SEVERITY_CN.get(f.severity, f.severity)
    return (f"[{sev}] {f.kind} — {seat}: {f.message}", [f"条款 Clause: {f.clause}", f"处罚 Penalty: {f.penalty}"])


def build(
    table: TableState,
    situation: Situation,
    rules: str,
    profile: str | None,
    rev: Review,
    doubts: tuple[str, ...] = (),
    trust: tuple[str, ...] = (),
) -> list[Block]:
    prof = resolve_profile(rules, profile)
    blocks = [
        Block("h1", "裁判报告 Referee report"),
        Block("p", f"规则 Rules: {RULES_NAME.get((rules, prof), f'{rules} / {prof}')}"),
        Block("p", f"局况 Situation: {_situation_line(situation, rules)}"),
    ]
    if trust:
        blocks.append(Block("h2", "识别存疑 The photo was not read surely: no penalty rests on it until checked"))
        blocks.append(Block("list", items=[(t, []) for t in trust]))
    if not rev.scores:
        blocks.append(Block("p", "无人报和 No player has declared a win."))
    for a in rev.scores.values():
        blocks += _hand_blocks(a, rules)
    blocks.append(Block("h2", f"裁判审查 Findings ({len(rev.findings)}{_by_severity(rev.findings)})"))
    if rev.findings:
        blocks.append(Block("list", items=[_finding_item(i, f) for i, f in enumerate(rev.findings, 1)]))
    else:
        blocks.append(Block("p", "未发现违规 No violation found."))
    if doubts:
        blocks.append(Block("h2", "存疑牌张 Doubtful tiles (the score depends on them: check them on the photo)"))
        blocks.append(Block("list", items=[(d, []) for d in doubts]))
    if table.unplaced:
        blocks.append(Block("h2", "识别说明 Reading notes (not placed, or read with a correction)"))
        blocks.append(Block("list", items=[(u, []) for u in table.unplaced]))
    blocks.append(Block("h2", "签字 Signatures"))
    sign_rows: list[tuple[str, ...]] = [("裁判员 Referee", ""), ("日期 Date", "")]
    sign_rows += [(f"选手 Player {SEAT_CN[s]} ({s})", "") for s in ("self", "right", "across", "left")]
    blocks.append(Block("sign", rows=sign_rows))
    return blocks


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if b.kind == "h1":
            out += [f"# {b.text}", ""]
        elif b.kind == "h2":
            out += [f"## {b.text}", ""]
        elif b.kind == "p":
            out += [b.text, ""]
        elif b.kind == "code":
            out += ["```", b.text, "```", ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(map(_md_cell, b.header)) + " |")
            out.append("|" + "---|" * len(b.header))
            out += ["| " + " | ".join(map(_md_cell, r)) + " |" for r in b.rows]
            out.append("")
        elif b.kind == "list":
            for i, (line, subs) in enumerate(b.items, 1):
                out.append(f"{i}. {line}")
                out += [f"   - {s}" for s in subs]
            out.append("")
        elif b.kind == "sign":
            out += [f"{label}: ______________________" for label, _ in b.rows]
            out.append("")
    return "\n".join(out)


def to_html(blocks: list[Block]) -> str:
    e = html.escape
    body: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2"):
            body.append(f"<{b.kind}>{e(b.text)}</{b.kind}>")
        elif b.kind == "p":
            text = e(b.text)
            if text.startswith("**"):
                head, _, rest = text[2:].partition("**")
                text = f"<strong>{head}</strong>{rest}"
            body.append(f"<p>{text}</p>")
        elif b.kind == "code":
            body.append(f"<pre><code>{e(b.text)}</code></pre>")
        elif b.kind == "table":
            head = "".join(f"<th>{e(h)}</th>" for h in b.header)
            rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in b.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif b.kind == "list":
            items = []
            for line, subs in b.items:
                sub = "<ul>" + "".join(f"<li>{e(s)}</li>" for s in subs) + "</ul>" if subs else ""
                items.append(f"<li>{e(line)}{sub}</li>")
            body.append("<ol>" + "".join(items) + "</ol>")
        elif b.kind == "sign":
            body.append(
                '<table class="sign">'
                + "".join(f'<tr><td>{e(label)}</td><td class="line"></td></tr>' for label, _ in b.rows)
                + "</table>"
            )
    style = (
        "body{font-family:sans-serif;max-width:50em;margin:2em auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:.2em .6em}.sign td{border:none;padding:.8em .6em}"
        ".sign td.line{border-bottom:1px solid #000;width:20em}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="zh"><head><meta charset="utf-8"><title>裁判报告 Referee report</title>'
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def referee_report(
    table: TableState,
    situation: Situation,
    rules: str = "mcr",
    profile: str | None = None,
    fmt: str = "md",
    rev: Review | None = None,
    doubts: tuple[str, ...] = (),
    trust: tuple[str, ...] = (),
) -> str:
    """The whole report as text. ``rev`` lets a caller reuse an audit it already ran (mjtable.scoring.audit.review);
    ``doubts`` names the tiles of the scored hand that were read with doubt (the reader's, not the rules');
    ``trust``, lines on a photo read unsurely: why, and how to take it again."""
    if fmt not in FORMATS:
        raise ReportError(f"unknown report format {fmt!r}: use md or html")
    rev = rev if rev is not None else review(table, situation, rules, profile)
    blocks = build(table, situation, rules, profile, rev, doubts, trust)
    return to_markdown(blocks) if fmt == "md" else to_html(blocks)
