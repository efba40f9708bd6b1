"""Find the tiles the real training photos show but do not label, for a check by eye (mjtable.datasets.unlabelled).

    python -m scripts.mine_unlabelled_tiles [--data data/cmd/train] [--out data/unlabelled]
    python -m scripts.mine_unlabelled_tiles --keep data/unlabelled/rejected.txt [--out data/unlabelled]

The first form reads each labelled photo of --data with the committed models and writes OUT/candidates.csv (one
numbered row per candidate box) and OUT/sheets/*.png: contact sheets, each candidate cut out with a margin, its box
drawn in red and its number above it. Whoever checks the sheets writes the numbers of the candidates that are not
one whole tile (a part of a tile, two tiles, no tile) to a file, one number per line or several separated by
spaces; --keep then writes the others to datasets/labels/added/chinese_mahjong_detection.csv.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CELL = 112                       # px of one candidate on a contact sheet
PER_ROW, ROWS = 10, 8


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "cmd" / "train",
                    help="a prepared YOLO folder of the real photos (images/, labels/ in tile ids)")
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "unlabelled")
    ap.add_argument("--keep", type=Path, default=None,
                    help="the rejected candidates' numbers: write the others to the committed table")
    ap.add_argument("--dataset", default="chinese_mahjong_detection")
    return ap


def _cell(img, box, number: int):
    import cv2
    import numpy as np
    x1, y1, x2, y2 = box
    m = 0.35 * max(x2 - x1, y2 - y1)
    h, w = img.shape[:2]
    a, b = int(max(0, x1 - m)), int(max(0, y1 - m))
    c, d = int(min(w, x2 + m)), int(min(h, y2 + m))
    crop = img[b:d, a:c].copy()
    cv2.rectangle(crop, (int(x1 - a), int(y1 - b)), (int(x2 - a), int(y2 - b)), (0, 0, 255), 1)
    s = (CELL - 16) / max(crop.shape[:2])
    crop = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    cell = np.full((CELL, CELL, 3), 255, np.uint8)
    cell[16:16 + crop.shape[0], :crop.shape[1]] = crop
    cv2.putText(cell, str(number), (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    return cell


def mine(data: Path, out: Path) -> int:
    import cv2
    import numpy as np

    from mjtable.datasets.unlabelled import find_candidates
    from mjtable.vision.labels import read_yolo
    from mjtable.vision.locate import load_detector
    detector = load_detector()
    out.mkdir(parents=True, exist_ok=True)
    (out / "sheets").mkdir(exist_ok=True)
    rows, cells = [], []
    for path in sorted((data / "images").glob("*.jpg")):
        img = cv2.imread(str(path))
        if img is None:
            continue
        h, w = img.shape[:2]
        labels = read_yolo(data / "labels" / (path.stem + ".txt"), w, h)[0]
        for score, by, b in find_candidates(img, labels, detector):
            n = len(rows)
            rows.append([n, path.name, (b[0] + b[2]) / 2 / w, (b[1] + b[3]) / 2 / h, (b[2] - b[0]) / w,
                         (b[3] - b[1]) / h, by, score])
            cells.append(_cell(img, b, n))
    with (out / "candidates.csv").open("w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["n", "image", "x", "y", "w", "h", "found_by", "score"])
        wr.writerows([[r[0], r[1]] + [f"{v:.5f}" for v in r[2:6]] + [r[6], f"{r[7]:.2f}"] for r in rows])
    page = PER_ROW * ROWS
    for k in range(0, len(cells), page):
        part = cells[k:k + page] + [np.full((CELL, CELL, 3), 255, np.uint8)] * (-len(cells[k:k + page]) % PER_ROW)
        sheet = np.vstack([np.hstack(part[i:i + PER_ROW]) for i in range(0, len(part), PER_ROW)])
        cv2.imwrite(str(out / "sheets" / f"sheet_{k // page:03d}.png"), sheet)
    print(f"{len(rows)} candidates in {len({r[1] for r in rows})} photos: {out / 'candidates.csv'}, "
          f"{-(-len(cells) // page)} sheets")
    return 0


def keep(out: Path, rejected: Path, dataset: str) -> int:
    from mjtable.datasets.unlabelled import ADDED, Added, write_added
    bad = {int(t) for t in rejected.read_text().split()}
    with (out / "candidates.csv").open(newline="") as f:
        cand = list(csv.DictReader(f))
    unknown = bad - {int(r["n"]) for r in cand}
    if unknown:
        print(f"error: rejected numbers that are no candidate: {sorted(unknown)[:10]}", file=sys.stderr)
        return 2
    rows = [Added(r["image"], float(r["x"]), float(r["y"]), float(r["w"]), float(r["h"]), r["found_by"],
                  float(r["score"])) for r in cand if int(r["n"]) not in bad]
    write_added(rows, ADDED / f"{dataset}.csv")
    print(f"kept {len(rows)} of {len(cand)} candidates ({len(bad)} rejected): {ADDED / f'{dataset}.csv'}")
    return 0


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.keep is not None:
        return keep(a.out, a.keep, a.dataset)
    return mine(a.data, a.out)


if __name__ == "__main__":
    sys.exit(main())
