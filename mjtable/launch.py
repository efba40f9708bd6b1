"""The ``mjtable`` command. ``mjtable batch`` goes straight to the batch scorer, importing only the scoring
package (no numpy, OpenCV, onnxruntime or vision code: a process that scores a file of hands starts in a few tens
of milliseconds); every other subcommand goes to ``mjtable.cli``, which answers errors the same way."""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "batch":
        from mjtable.errors import answered

        def batch() -> int:
            from mjtable.scoring import batch
            return batch.main(args[1:], prog="mjtable batch")
        return answered(batch)
    from mjtable.cli import main as cli_main
    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
