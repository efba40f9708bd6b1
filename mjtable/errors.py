"""Typed errors, and the one table of exit codes that the CLI, batch and web server answer with.

Every error the pipeline raises on purpose derives from MjtableError and carries its exit code; the CLI prints
its message as one line on stderr and exits with that code. docs/exit-codes.md gives the same table.
"""
from __future__ import annotations

import errno
import os
import sys
from pathlib import PurePath
from typing import Callable

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_UNREADABLE = 4
EXIT_NOT_WIN = 5
EXIT_BAD_HAND = 6
EXIT_MODEL = 7
EXIT_OUTPUT = 8
EXIT_INTERRUPTED = 130

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "done: a winning hand scored (or an overhead frame, a video or an audit read)",
    EXIT_INTERNAL: "unexpected internal error",
    EXIT_USAGE: "usage error (bad option or value, unknown profile)",
    EXIT_INPUT: "the input is not a readable image or video (missing, empty, corrupt, too large, unknown format) "
                "or a bad detections file",
    EXIT_UNREADABLE: "no tiles found, or the hand cannot be read (unreadable meld, nothing to score)",
    EXIT_NOT_WIN: "the hand was read but is not a winning hand under the rules (the reason is printed)",
    EXIT_BAD_HAND: "bad notation or impossible hand (wrong tile count, fifth copy ...)",
    EXIT_MODEL: "the detector model is missing or unusable",
    EXIT_OUTPUT: "an output file cannot be written",
    EXIT_INTERRUPTED: "interrupted",
}


class MjtableError(Exception):
    """Base of every error raised on purpose; ``exit_code`` is the CLI's exit code for it."""
    exit_code = EXIT_INTERNAL


class UsageError(MjtableError):
    exit_code = EXIT_USAGE


class UnknownProfile(UsageError, ValueError):
    """A rule profile name that the rule system does not have."""


class InputError(MjtableError):
    """The image, video or detections file cannot be read."""
    exit_code = EXIT_INPUT


class UnreadableError(MjtableError):
    """No tiles, or what lies on the table cannot be read as a hand. ``reason``: why; ``advice``: how to take the
    photo again, when a photo is what could not be read (the message is the reason, then the advice)."""
    exit_code = EXIT_UNREADABLE

    def __init__(self, reason: str = "", advice: tuple[str, ...] = ()):
        super().__init__(reason + (f". Retake: {'; '.join(advice)}" if advice else ""))
        self.reason, self.advice = reason, tuple(advice)


class NotAWinError(MjtableError):
    exit_code = EXIT_NOT_WIN


class BadHandError(MjtableError):
    """Bad notation, or a hand that cannot exist."""
    exit_code = EXIT_BAD_HAND


class ModelError(MjtableError):
    exit_code = EXIT_MODEL


class OutputError(MjtableError):
    exit_code = EXIT_OUTPUT


FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})     # an output with no room left


def answered(call: Callable[[], int], prog: str = "mjtable") -> int:
    """``call()``'s exit status, every error answered as the command line answers it: one line on stderr and its
    exit code, never a traceback (an error raised on purpose: its own; an interrupt: 130; a reader gone away: 1;
    an output with no room left, standard output most likely, as files are written whole or not at all: 8;
    argparse's --help: its status; anything else: 1, "internal error", what broke)."""
    try:
        return call()
    except MjtableError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_INTERNAL
    except OSError as e:
        if e.errno not in FULL:
            print(f"{prog}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
            return EXIT_INTERNAL
        print(f"{prog}: error: cannot write the output: {e.strerror}", file=sys.stderr)
        _quiet_stdout()
        return EXIT_OUTPUT
    except SystemExit as e:              # argparse --help
        return int(e.code or 0) if isinstance(e.code, int) else EXIT_USAGE
    except Exception as e:               # never a traceback: say what broke in one line
        print(f"{prog}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_INTERNAL


def _quiet_stdout() -> None:
    """Standard output pointed at the null device: nothing more goes to a reader that left or a full device (at
    exit Python would flush what is left there, and say it could not)."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


SHOWN = 60          # at most this many characters of a value the user gave are quoted back in a message


def one_line(text, limit: int = 300) -> str:
    """A message on one line (its white space runs made single spaces), cut to ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def shown(value, limit: int = SHOWN) -> str:
    """A value the user gave (a path, an argument, a line, a JSON value), as ``repr`` shows it in an error message,
    cut in the middle to ``limit`` characters with an ellipsis (a path keeps its file name): a 100 KB argument
    gives a short line, not a 100 KB one."""
    text = str(value) if isinstance(value, (str, PurePath)) else repr(value)
    if len(text) > limit:
        head = (limit - 1) // 2
        text = text[:head] + "…" + text[len(text) - (limit - 1 - head):]
    return repr(text) if isinstance(value, (str, PurePath)) else text
