"""The plain ASGI layer in front of every route of ``mjtable serve``: the Host check, the body deadline, one log
line per refused request, and no traceback ever.

* Host check (DNS rebinding): a request whose Host header does not name this machine as the server knows it
  (localhost, 127.0.0.1, [::1], the address it is bound to, and each ``--allow-host NAME``) is refused with 400
  before any route sees it.
* Body deadline: the whole request body must arrive within ``body_timeout`` seconds of the request's start; a
  body that trickles in slower is refused with 408 (SlowBody, raised where the route reads the body).
* A refusal sent before the body was read whole closes the connection (``Connection: close``), so the rest of
  that body is never read as the next request.
* Every answer of 400 or more is logged as one line (the client, the method and path, the status, the
  refusal's message) on the ``mjtable.serve`` logger; an unexpected exception is answered 500 and logged as one
  line with its type, never with a traceback.
* Security headers (SecurityHeaders, outermost): nosniff and no referrer on every answer, the guard's own
  refusals included.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Iterable, Optional

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse

from mjtable.errors import MjtableError

LOG = logging.getLogger("mjtable.serve")
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD = ("", "0.0.0.0", "::")


class SlowBody(MjtableError):
    """A request body that did not arrive within the deadline (HTTP 408)."""


def host_name(value: str) -> Optional[str]:
    """The name a Host header gives, lower-case, without its port or brackets ("[::1]:8000" -> "::1"); None when
    it is not a name with an optional numeric port."""
    v = value.strip().lower()
    if v.startswith("["):
        name, sep, rest = v[1:].partition("]")
        if not sep:
            return None
    else:
        name, sep, port = v.partition(":")
        rest = sep + port
    if rest and not (rest.startswith(":") and rest[1:].isdigit()):
        return None
    name = name.rstrip(".")
    return name or None


def allowed_hosts(bound: str = "127.0.0.1", extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a Host header may give: this machine's loopback names, the bound address (unless it is a
    wildcard such as 0.0.0.0) and the ``extra`` names."""
    names = set(LOCAL_HOSTS)
    for n in (bound, *extra):
        n = n.strip().strip("[]").lower().rstrip(".")
        if n not in WILDCARD:
            names.add(n)
    return frozenset(names)


def printable(text: str, limit: int = 300) -> str:
    """One log-safe line: control characters escaped, whitespace runs collapsed, at most ``limit`` characters."""
    s = " ".join("".join(c if c.isprintable() or c.isspace() else ascii(c)[1:-1] for c in str(text)).split())
    return s if len(s) <= limit else s[:limit - 1] + "…"


class Guard:
    """ASGI middleware: the Host check, the body deadline, a log line per refusal, a 500 for what escapes."""

    def __init__(self, app, hosts: frozenset[str], body_timeout: float):
        self.app, self.hosts, self.body_timeout = app, hosts, body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout
        st = {"body_pending": True, "status": None, "said": b"", "quiet": False}

        async def timed_receive():
            if not st["body_pending"]:                  # the body is in: a wait for the client to go is no body
                return await receive()
            try:
                msg = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.0))
            except asyncio.TimeoutError:
                raise SlowBody(f"the request body did not arrive within {self.body_timeout:g} s") from None
            if msg["type"] != "http.request" or not msg.get("more_body", False):
                st["body_pending"] = False
            return msg

        async def logged_send(msg):
            if msg["type"] == "http.response.start":
                st["status"] = msg["status"]
                if msg["status"] >= 400 and st["body_pending"]:
                    MutableHeaders(scope=msg)["connection"] = "close"     # the unread body is not a request
            elif msg["type"] == "http.response.body" and (st["status"] or 0) >= 400:
                if len(st["said"]) < 2048:
                    st["said"] += msg.get("body", b"")
                if not msg.get("more_body", False) and not st["quiet"]:
                    self.log(scope, st["status"], _message(st["said"]))
            await send(msg)

        raw = dict(scope.get("headers") or []).get(b"host")
        name = host_name(raw.decode("latin-1")) if raw is not None else None
        if name not in self.hosts:
            what = "no Host header" if raw is None else f"host {printable(raw.decode('latin-1'), 80)!r} not allowed"
            return await JSONResponse({"error": f"{what} (mjtable serve --allow-host NAME adds a name)"},
                                      400)(scope, timed_receive, logged_send)
        try:
            await self.app(scope, timed_receive, logged_send)
        except Exception as e:                          # never a traceback: a 500 if nothing went yet, one line
            began = st["status"]
            if began is None:
                st["quiet"] = True                      # logged here, with the exception's message
                await JSONResponse({"error": f"internal error: {type(e).__name__}"}, 500)(scope, timed_receive,
                                                                                        logged_send)
            LOG.error("%s -> %s: internal error: %s", _request(scope), 500 if began is None else f"{began}, then",
                      printable(f"{type(e).__name__}: {e}"))

    @staticmethod
    def log(scope, status: int, message: str) -> None:
        LOG.log(logging.WARNING if status >= 500 else logging.INFO, "%s -> %d: %s", _request(scope), status,
                printable(message))


def _request(scope) -> str:
    client = scope.get("client")
    who = f"{client[0]}" if client else "?"
    path = (scope.get("raw_path") or scope.get("path", "").encode()).decode("ascii", "backslashreplace")
    return f"{who} {printable(scope.get('method', '?'), 16)} {printable(path, 120)}"


def _message(body: bytes) -> str:
    try:
        said = json.loads(body)
        return str(said["error"]) if isinstance(said, dict) and "error" in said else "(no message)"
    except (ValueError, TypeError):
        return "(no message)"


SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class SecurityHeaders:
    """Plain ASGI middleware (streams pass through untouched): nosniff and no referrer on every answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in SECURITY_HEADERS.items():
                    headers.setdefault(k, v)
            await send(message)

        await self.app(scope, receive, send_with_headers)
