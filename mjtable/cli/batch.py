"""``mjtable batch``: JSON-lines hands in, results out (mjtable.scoring.batch; ``mjtable.launch`` goes there
directly, without importing this package)."""
from __future__ import annotations


def main(argv: list[str]) -> int:
    from mjtable.scoring import batch
    return batch.main(argv)
