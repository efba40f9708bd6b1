#!/usr/bin/env python
"""Measure the tile detector on any YOLO-labelled image folder: the command ``mjtable evaluate`` (see
mjtable/cli/evaluate.py and docs/evaluation.md), kept here for scripts that call it by this name.

    python -m scripts.evaluate_detector DATA_DIR --names NAMES.yaml [--json] [--model models/x.onnx]
    python -m scripts.evaluate_detector DATA_DIR --names NAMES.yaml --predictions PRED_DIR
"""
from __future__ import annotations

import sys

from mjtable.cli import main as mjtable_main
from mjtable.cli.evaluate import build_parser  # noqa: F401  (the docs' command check parses with it)


def main(argv=None) -> int:
    return mjtable_main(["evaluate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
