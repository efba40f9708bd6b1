"""``mjtable serve``: the phone upload page, the JSON API, live table events and the overlay (mjtable.web)."""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from mjtable import pipeline
from mjtable.errors import EXIT_OK, UsageError, shown
from mjtable.pipeline import KINDS
from mjtable.scoring.engines import RULES

from . import Parser, add_sampling, positive


def main(argv: list[str]) -> int:
    ap = Parser(prog="mjtable serve", description="The phone upload page, the JSON API, live table events and the "
                 "broadcast overlay (http://HOST:PORT/, /overlay, /docs).")
    ap.add_argument("--host", default="127.0.0.1", type=_bind_address,
                    help="address to bind (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=positive(int, most=65535), default=8000)
    ap.add_argument("--source", metavar="VIDEO|CAMERA|URL",
                    help="live source for /api/events and /overlay: a video file (played at its own pace), a "
                         "camera index (0, 1 ...) or a stream URL (rtsp://, http://)")
    ap.add_argument("--kind", choices=KINDS, default="auto", help="the live source's view (default: decide once)")
    add_sampling(ap, "live: ")
    ap.add_argument("--rules", choices=sorted(RULES), default="mcr", help="live: rule system for a win's score")
    ap.add_argument("--profile", help="live: rule profile for a win's score")
    ap.add_argument("--max-upload-mb", type=positive(float), default=20.0, metavar="MB",
                    help="largest photo accepted (default 20; 413 above)")
    ap.add_argument("--queue", type=positive(int), default=64, metavar="N",
                    help="photos admitted at once, read or waiting (default 64; 503 with Retry-After above)")
    ap.add_argument("--workers", type=positive(int), default=1, metavar="N",
                    help="threads reading photos (default 1)")
    ap.add_argument("--allow-host", action="append", default=[], metavar="NAME", type=_host_name,
                    help="also answer requests whose Host header names NAME (a LAN address or name for a phone; "
                         "repeatable); any other Host than localhost, 127.0.0.1, [::1] and --host is refused (400)")
    ap.add_argument("--body-timeout", type=positive(float), default=30.0, metavar="SECONDS",
                    help="a request's whole body must arrive within this many seconds (default 30; 408 after)")
    a = ap.parse_args(argv)
    pipeline.check_rules(a.rules, a.profile)
    try:
        from mjtable.web.app import serve
    except ImportError as e:
        raise UsageError(f"the web server needs fastapi, uvicorn, sse-starlette and python-multipart ({e})") from None
    det = pipeline.load_detector()
    lan = lan_address()
    if a.host not in LOOPBACK:
        line = f"mjtable serve: listening on {a.host}: other machines can reach it (no login, no TLS)"
        if a.host in ANY and not a.allow_host:
            line += (f"; for a phone on the LAN add --allow-host {lan or 'ADDRESS'} (this machine's LAN "
                     f"address): other Host names are refused")
        print(line, file=sys.stderr)
    started = "\n".join(started_lines(a.host, a.port, tuple(a.allow_host), lan))
    serve(a.host, a.port, on_start=lambda: print(started, file=sys.stderr, flush=True), detector=det,
          source=a.source, max_upload_mb=a.max_upload_mb, queue_size=a.queue, workers=a.workers, every=a.every,
          hold=a.hold, kind=a.kind, rules=a.rules, profile=a.profile, allow_hosts=tuple(a.allow_host),
          body_timeout=a.body_timeout)
    return EXIT_OK


LOOPBACK = ("127.0.0.1", "localhost", "::1")
ANY = ("0.0.0.0", "::", "")                             # every interface


def started_lines(host: str, port: int, allowed: tuple[str, ...], lan: Optional[str]) -> list[str]:
    """What serve says once it listens: the address to open on this machine, and the one a phone on the LAN
    opens (an address the server answers to: ``--host`` itself, or an ``--allow-host``, this machine's LAN
    address first), or how to let a phone in."""
    from mjtable.web.server import url
    here = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    lines = [f"mjtable serve: open {url(here, port)} (the phone page; /overlay the overlay, /docs the API); "
             "Ctrl+C stops it"]
    if host in LOOPBACK:
        lines.append(f"mjtable serve: this machine only; for a phone on the LAN: mjtable serve --host 0.0.0.0 "
                     f"--allow-host {lan or 'ADDRESS'}")
        return lines
    phone = (lan if lan in allowed else next(iter(allowed), None)) if host in ANY else host
    if phone is not None and phone != here:
        lines.append(f"mjtable serve: from a phone on the LAN: {url(phone, port)}")
    return lines


def _bind_address(text: str) -> str:
    """An argparse type: an address or host name to listen on, as the resolver takes it (an empty or overlong
    label, "a..b", fails there with a traceback, not the one line an address in use gets)."""
    try:
        text.encode("idna")
    except UnicodeError:
        raise argparse.ArgumentTypeError(f"not an address or host name: {shown(text)}") from None
    return text


def _host_name(text: str) -> str:
    """An argparse type: a host name or address as a Host header gives it, without a port."""
    import re

    from mjtable.web.guard import host_name
    t = text.strip()
    if t.count(":") > 1 and not t.startswith("["):      # an IPv6 address without its brackets
        t = f"[{t}]"
    name = host_name(t)
    if name is None or not re.fullmatch(r"[a-z0-9._:-]+", name):
        raise argparse.ArgumentTypeError(f"not a host name or address: {text!r}")
    return name


def lan_address() -> Optional[str]:
    """This machine's address on its default route (a UDP socket's connect sends nothing), or None."""
    import socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))             # TEST-NET-1: never reached, it only picks the interface
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr
