"""The ``mjtable`` command. ``mjtable batch`` goes straight to the batch scorer, importing only the scoring
package (no numpy, OpenCV, onnxruntime or vision code: a process that scores a file of hands starts in a few tens
of milliseconds); every other subcommand goes to ``mjtable.cli``, which answers errors the same way."""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "batch":
        from mjtable.errors import EXIT_INTERNAL, EXIT_USAGE, MjtableError
        try:
            from mjtable.scoring import batch
            return batch.main(args[1:], prog="mjtable batch")
        except MjtableError as e:
            print(f"mjtable: error: {e}", file=sys.stderr)
            return e.exit_code
        except SystemExit as e:              # argparse --help / usage errors, as mjtable.cli answers them
            return int(e.code or 0) if isinstance(e.code, int) else EXIT_USAGE
        except Exception as e:               # never a traceback: say what broke in one line
            print(f"mjtable: internal error: {type(e).__name__}: {e}", file=sys.stderr)
            return EXIT_INTERNAL
    from mjtable.cli import main as cli_main
    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
