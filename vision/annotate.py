"""Draw what the layout parser read on the photo: boxes by group, meld outlines with their source seat,
and a panel with the hand, the fans, the total and the payments.

Chinese text needs a CJK font and Pillow; when either is missing the labels are plain English (opencv only).
"""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scoring.notation import NotationError, format_hand
from mjtable.scoring.result import Finding, ScoreResult
from mjtable.system_files import find

from .layout import Layout

# BGR
GROUP_COLOURS = {"concealed": (60, 180, 60), "winning": (0, 0, 255), "flower": (180, 80, 255),
                 "discard": (150, 150, 150), "wall": (90, 90, 90), "exposed": (0, 0, 200),
                 "unplaced": (0, 215, 255), "duplicate": (200, 200, 200)}
MELD_COLOURS = [(255, 140, 0), (200, 0, 200), (0, 150, 255), (150, 150, 0)]
SOURCE_EN = {"left": "left", "across": "across", "right": "right"}
SOURCE_CN = {"left": "上家", "across": "对家", "right": "下家"}
KIND_CN = {"chow": "吃", "pung": "碰", "kong": "杠"}


def _cjk_font():
    """A function size -> (latin font, CJK font) for Pillow, or None if Pillow or a CJK font is missing.
    (CJK fallback fonts often lack Latin letters, so text is drawn in runs with the right font.)"""
    try:
        from PIL import ImageFont
    except ImportError:
        return None
    cjk = find("cjk_font")
    if cjk is None:
        return None
    latin = find("latin_font") or cjk

    def fonts(size):
        return ImageFont.truetype(latin, size), ImageFont.truetype(cjk, size)
    try:
        fonts(12)
    except OSError:
        return None
    return fonts


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return 0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F


def _colour(group: str):
    if group.startswith("meld:"):
        return MELD_COLOURS[int(group.split(":")[1]) % len(MELD_COLOURS)]
    return GROUP_COLOURS.get(group, (255, 255, 255))


def _meld_label(mt, chinese: bool) -> str:
    m = mt.meld
    if m is None:
        return "?" if not chinese else "? 无法识别"
    if m.concealed:
        return "concealed kong" if not chinese else "暗杠"
    if chinese:
        return f"{KIND_CN[m.kind]} {SOURCE_CN[m.source]}"
    return f"{m.kind} from {SOURCE_EN[m.source]}"


def panel_lines(layout: Layout, hand, result: Optional[ScoreResult], findings: list[Finding],
                chinese: bool) -> list[str]:
    lines = []
    if hand is not None:
        try:
            lines.append(format_hand(hand))
        except NotationError:
            pass
    if result is not None:
        sichuan = result.rules == "sichuan"
        unit = ("番" if sichuan else "分") if chinese else ("fan" if sichuan else "pt")
        for f in result.fans:
            name = f"{f.name_cn} {f.name_en}" if chinese else f.name_en
            cnt = f" x{f.count}" if f.count > 1 else ""
            lines.append(f"  {name}{cnt}: {f.points} {unit}")
        if result.is_win:
            pay = ", ".join(f"{k} {v}" for k, v in result.payments.items())
            lines.append(f"Total {result.total} {unit}" + (f"  (pay: {pay})" if pay else ""))
        else:
            lines.append(f"Not a win: {result.reason}")
    if findings:
        lines.append(f"Audit: {len(findings)} finding(s)")
        for f in findings[:4]:
            lines.append(f"  - {f.kind} ({f.seat or 'table'})")
    if layout.table.unplaced:
        lines.append(f"Reading notes: {len(layout.table.unplaced)}")
        for u in layout.table.unplaced[:3]:
            lines.append(f"  - {u[:70]}")
    if not chinese:
        lines = [ln.encode("ascii", "replace").decode() for ln in lines]
    return lines


def annotate(img: np.ndarray, layout: Layout, hand=None, result: Optional[ScoreResult] = None,
             findings: Optional[list[Finding]] = None, chinese: Optional[bool] = None) -> np.ndarray:
    """A new BGR image: the photo (scaled so that the labels stay legible) with boxes, groups, sources and
    a text panel below."""
    font = _cjk_font() if chinese in (None, True) else None
    chinese = font is not None
    findings = findings or []
    scale = max(1.0, 900.0 / max(img.shape[1], 1))
    canvas = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR) if scale > 1 else img.copy()
    thick = max(1, int(round(scale)))
    texts: list[tuple[tuple[int, int], str, tuple[int, int, int], float]] = []

    def box_of(d):
        x1, y1, x2, y2 = (int(round(v * scale)) for v in d.box)
        return x1, y1, x2, y2

    for p in layout.placed:
        x1, y1, x2, y2 = box_of(p.det)
        col = _colour(p.group)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), col, thick + (1 if p.group == "winning" or p.sideways else 0))
        if p.group == "unplaced":
            cv2.line(canvas, (x1, y1), (x2, y2), col, thick)
            cv2.line(canvas, (x1, y2), (x2, y1), col, thick)
        if p.group not in ("wall", "duplicate") and p.det.kind != T.BACK:
            texts.append(((x1, max(10, y1 - 3)), T.code(p.det.kind), col, 0.4))
    # meld outlines with their source
    seat_of_area = {a.seat: a for a in layout.table.players}
    groups: dict[tuple, list] = {}
    for p in layout.placed:
        if p.group.startswith("meld:"):
            groups.setdefault((p.seat, p.group), []).append(p)
    for (seat, group), ps in groups.items():
        xs1, ys1, xs2, ys2 = zip(*(box_of(p.det) for p in ps))
        x1, y1, x2, y2 = min(xs1) - 3, min(ys1) - 3, max(xs2) + 3, max(ys2) + 3
        col = _colour(group)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), col, 1)
        area = seat_of_area.get(seat)
        n = int(group.split(":")[1])
        if area is not None and n < len(area.melds):
            texts.append(((x1, y2 + 14), _meld_label(area.melds[n], chinese), col, 0.45))
    if layout.kind == "overhead":
        for area in layout.table.players:
            pts = [box_of(p.det) for p in layout.placed if p.seat == area.seat]
            if pts:
                cx = int(np.mean([(b[0] + b[2]) / 2 for b in pts]))
                cy = int(np.mean([(b[1] + b[3]) / 2 for b in pts]))
                texts.append(((cx - 20, cy), area.seat, (255, 255, 255), 0.55))
    lines = panel_lines(layout, hand, result, findings, chinese)
    line_h = 22
    panel = np.full((line_h * len(lines) + 12, canvas.shape[1], 3), 255, np.uint8)
    out = np.vstack([canvas, panel]) if lines else canvas
    y0 = canvas.shape[0]
    texts += [((8, y0 + 6 + line_h * (i + 1) - 5), ln, (20, 20, 20), 0.55) for i, ln in enumerate(lines)]
    _draw_texts(out, texts, font)
    return out


def _draw_texts(img: np.ndarray, texts, font) -> None:
    if font is None:
        for (x, y), s, col, sc in texts:
            s = s.encode("ascii", "replace").decode()
            cv2.putText(img, s, (x, y), cv2.FONT_HERSHEY_SIMPLEX, sc, (255, 255, 255), 3, cv2.LINE_AA)
            cv2.putText(img, s, (x, y), cv2.FONT_HERSHEY_SIMPLEX, sc, col, 1, cv2.LINE_AA)
        return
    from PIL import Image, ImageDraw
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    draw = ImageDraw.Draw(pil)
    cache = {}
    for (x, y), s, col, sc in texts:
        size = int(round(sc * 30))
        latin, cjk = cache.setdefault(size, font(size))
        rgb = (col[2], col[1], col[0])
        run, run_cjk, cx = "", None, float(x)
        for c in s + "\0":
            is_cjk = _is_cjk(c) if c != "\0" else None
            if run and (is_cjk != run_cjk):
                f = cjk if run_cjk else latin
                draw.text((cx, y - size), run, font=f, fill=rgb, stroke_width=2, stroke_fill=(255, 255, 255))
                cx += draw.textlength(run, font=f)
                run = ""
            run += c if c != "\0" else ""
            run_cjk = is_cjk
    img[:] = cv2.cvtColor(np.asarray(pil), cv2.COLOR_RGB2BGR)
