"""Pseudo-labels for Camerash's 1,050 unlabelled crops, kept only where two independent checks agree.

1. Where it was cut from: every hand-checked box of the Camerash set photos (datasets/labels/camerash/, boxes
   checked by eye) is cut, with small shifts and scalings, and shrunk to the crops' 3:4 shape; the crop takes the
   kind of the box of best normalised correlation in colour (in grey, 6- and 9-bamboo of one set look alike),
   when that correlation is at least --min-match.
2. What the shipped classifier reads: the crop pasted on cloth and classified as the runtime classifies a located
   box (as evaluate_crops does), when its probability is at least --min-p.

A crop is labelled where both give the same kind. The table of every crop (both readings, the match, the photo
and its tile set) is written to datasets/labels/camerash/untagged_tiles.csv, which is committed. With --out, the
labelled crops go into plain crop folders (OUT/train, OUT/heldout: images/ linked, labels.csv) split as the set
photos are split (prepare_camerash_photos, same --heldout and --seed): a crop of a held-out set is never
trained on.

    python -m scripts.pseudo_label_crops [--out data/camerash_untagged] [--min-match 0.8] [--min-p 0.5]
    python -m scripts.pseudo_label_crops --from-table --out data/camerash_untagged   # no model run
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.datasets.camerash import TABLE, held_out_sets, label_table, read_table, write_folders, write_table

ROOT = Path(__file__).resolve().parent.parent
CAMERASH = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=CAMERASH)
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--from-table", action="store_true", help="read the table instead of making it")
    ap.add_argument("--classifier", type=Path, default=None, help="ONNX classifier (default: the shipped one)")
    ap.add_argument("--min-match", type=float, default=0.8)
    ap.add_argument("--min-p", type=float, default=0.5)
    ap.add_argument("--out", type=Path, default=None, help="write labelled crop folders here (train / heldout)")
    ap.add_argument("--heldout", type=float, default=0.5, help="as prepare_camerash_photos --heldout")
    ap.add_argument("--seed", type=int, default=0, help="as prepare_camerash_photos --seed")
    ap.add_argument("--crops-heldout", type=Path, default=ROOT / "data" / "camerash" / "heldout",
                    help="the held-out crop folder of prepare_real_chinese (its sets are held out here too)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.from_table:
        if not a.table.exists():
            print(f"pseudo_label_crops: no table {a.table}", file=sys.stderr)
            return 2
        rows = read_table(a.table)
    else:
        if not (a.src / "untagged-tiles").is_dir():
            print(f"pseudo_label_crops: no untagged-tiles/ in {a.src}", file=sys.stderr)
            return 2
        rows = label_table(a.src, a.classifier, a.min_match, a.min_p)
        write_table(a.table, rows)
    labelled = [r for r in rows if r["label"]]
    matched = sum(float(r["match"]) >= a.min_match for r in rows)
    print(f"{len(rows)} crops: {matched} found in a labelled photo (match >= {a.min_match}), "
          f"{len(labelled)} labelled where the classifier agrees (p >= {a.min_p})")
    if a.out:
        try:
            held = held_out_sets(a.src, a.heldout, a.seed, a.crops_heldout)
        except ValueError as e:
            print(f"pseudo_label_crops: {e}", file=sys.stderr)
            return 2
        counts = write_folders(a.src, a.out, rows, held)
        print(f"written to {a.out}: train {counts['train']}, heldout {counts['heldout']} (sets held out: "
              f"{', '.join(sorted(held))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
