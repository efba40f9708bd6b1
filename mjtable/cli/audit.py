"""``mjtable audit PHOTO``: the referee report (Markdown or HTML) of a photo, with the photo annotated."""
from __future__ import annotations

import base64
import sys
from pathlib import Path

from mjtable.errors import EXIT_OK, UnreadableError
from mjtable.outputs import check_outputs, write_atomic
from mjtable.pipeline import KINDS

from . import Parser, add_common, add_detections, add_facts, annotated, png_bytes, trust_lines
from .photo import inputs, read_photo


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable audit", description="Referee report (Markdown or HTML) for a photo.")
    ap.add_argument("photo")
    ap.add_argument("--kind", choices=KINDS, default="auto")
    ap.add_argument("--format", choices=("md", "html"), default="md")
    ap.add_argument("--out", metavar="FILE", help="write the report here (default: stdout); the annotated image "
                                                   "goes next to it (FILE.png) for md, inside the file for html")
    add_detections(ap)
    add_common(ap)
    add_facts(ap)
    a = ap.parse_args(argv)
    if a.json:      # add_common's flag: a report has its own formats
        ap.error("--json: the report is Markdown or HTML (--format md|html); `mjtable PHOTO --json` prints the "
                 "reading as JSON")
    # the report, and for md the annotated image beside it (FILE.png): both are checked before either is written
    check_outputs([a.out] if a.out is not None else [], inputs(a))  # a folder is refused before it gets a suffix
    img_path = Path(a.out).with_suffix(".png") if a.out and a.format == "md" else None
    outputs = [p for p in (img_path, a.out) if p is not None]
    check_outputs(outputs, inputs(a))
    img, out = read_photo(a)
    from mjtable.scoring.report import referee_report
    try:
        text = referee_report(out.table, out.situation, a.rules, a.profile, fmt=a.format, rev=out.review,
                              doubts=[str(x) for x in out.doubts], trust=trust_lines(out))
    except ValueError as e:
        raise UnreadableError(f"cannot build the report: {e}") from None
    png = png_bytes(annotated(img, out))
    if a.format == "html":
        tag = f'<p><img alt="annotated photo" style="max-width:100%" src="data:image/png;base64,' \
              f'{base64.b64encode(png).decode()}"></p>'
        text = text.replace("</h1>", "</h1>\n" + tag, 1)
    elif img_path is not None:
        target = f"<{img_path.name}>" if any(c in img_path.name for c in " ()") else img_path.name  # CommonMark
        text = text.replace("\n", f"\n\n![annotated photo]({target})\n", 1)
    if a.out:
        check_outputs(outputs, inputs(a))
        new_image = img_path is not None and not img_path.exists()
        if img_path is not None:
            write_atomic(img_path, png, inputs(a))
        try:
            write_atomic(a.out, text.encode("utf-8"), inputs(a))
        except BaseException:
            if new_image:               # no image left behind for a report that was not written
                img_path.unlink(missing_ok=True)
            raise
    else:
        sys.stdout.write(text)
    return EXIT_OK
