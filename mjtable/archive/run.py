"""``mjtable archive``: a league's archive read on Dask, resumably, each item's rows written exactly once.

    mjtable archive league/ extra.mp4 --out results/               # a LocalCluster on this machine
    mjtable archive league/ --out results/ --scheduler tcp://host:8786

The items (mjtable.archive.items) not yet done in the output are submitted to the cluster as one task each,
with ``retries``; the scheduler also moves a task to another worker when its worker dies (up to
``distributed.scheduler.allowed-failures`` deaths). This process gathers each result as it comes
(``as_completed``) and writes the item's part atomically: a task retried after a worker death still gives the
item's rows once, and an item that still fails is recorded as an error row, never stopping the run. At the end
the parts are gathered into hands.parquet and the per-game summary.

Dask and pyarrow are imported here only (the ``archive`` extra); without them the command says so in one line
(exit 2). With ``--scheduler`` the workers open the inputs by the paths this process sees (a shared folder
mounted at the same place); the output is written by this process alone. A scheduler that cannot be reached, or
does not answer as one, within CONNECT_TIMEOUT seconds is a usage error (exit 2). The LocalCluster's dashboard
listens on 127.0.0.1 unless told an address (``dashboard``); the line printed gives the address it really uses.
"""
from __future__ import annotations

import logging
import os
import sys
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from mjtable.errors import InputError, UsageError

from . import items as A

CONNECT_TIMEOUT = 3.0                # seconds to reach a --scheduler and hear it answer
DASHBOARD = "127.0.0.1:8787"         # the LocalCluster's dashboard unless told otherwise (a busy port: another)


@dataclass
class RunStats:
    items: int = 0                   # found under the inputs
    skipped_files: int = 0           # files passed over (unknown extension)
    links_outside: int = 0           # symbolic links passed over: they lead out of their input folder
    done_before: int = 0             # already in the output: not read again
    processed: int = 0               # read in this run
    failed: int = 0                  # of them, recorded as an error after the retries
    dashboard: Optional[str] = None
    totals: dict = field(default_factory=dict)   # of the whole output (mjtable.archive.items.combine)


def require() -> None:
    """Dask (distributed) and pyarrow, or UsageError (exit 2) naming the extra to install."""
    missing = []
    for mod, pkg in (("distributed", "dask[distributed]"), ("pyarrow", "pyarrow")):
        try:
            __import__(mod)
        except ImportError:
            missing.append(pkg)
    if missing:
        raise UsageError(f"mjtable archive needs {' and '.join(missing)}: pip install 'mjtable[archive]'")


def _has_bokeh() -> bool:
    import importlib.util
    return importlib.util.find_spec("bokeh") is not None


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def reach(scheduler: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Connect to the scheduler and hear its handshake within ``timeout`` seconds, or UsageError in one line
    (Dask's own client waits for a handshake for ever: a port that accepts and says nothing would hang it)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect

    async def probe():
        comm = await asyncio.wait_for(connect(scheduler, timeout=timeout), timeout + 0.5)
        await comm.close()

    try:
        with ThreadPoolExecutor(1) as pool:         # its own event loop, whatever the caller runs
            pool.submit(asyncio.run, probe()).result()
    except (asyncio.TimeoutError, TimeoutError):
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: no answer within {timeout:g} s") from None
    except Exception as e:                          # refused, unknown host, not an address
        why = " ".join(str(e).split()) or type(e).__name__
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {why}") from None


def start_client(scheduler: Optional[str], workers: Optional[int], dashboard: Optional[str] = None):
    """(client, cluster or None): a client of the scheduler at ``scheduler`` (run() has heard it answer), or
    of a LocalCluster of ``workers`` single-threaded worker processes (default: one per core) started here, its
    dashboard at ``dashboard`` (default DASHBOARD, on this machine only)."""
    from distributed import Client, LocalCluster
    if scheduler:
        try:
            return Client(scheduler, timeout=f"{CONNECT_TIMEOUT:g}s"), None
        except (OSError, TimeoutError, ValueError) as e:
            raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {' '.join(str(e).split())}") from None
    address = dashboard if dashboard is not None else DASHBOARD if _has_bokeh() else "127.0.0.1:0"
    with warnings.catch_warnings():         # "port 8787 is in use, hosting on port N instead": printed below
        warnings.simplefilter("ignore", UserWarning)
        try:
            # CRITICAL: a worker's heartbeat that races the scheduler's close logs an ERROR with a traceback;
            # a task that fails becomes an error row and a worker lost is retried, so nothing is hidden
            cluster = LocalCluster(n_workers=workers or _cores(), threads_per_worker=1, processes=True,
                                   dashboard_address=address, silence_logs=logging.CRITICAL)
        except RuntimeError as e:           # "Cluster failed to start", from an address that cannot be bound
            if not isinstance(e.__cause__, OSError):
                raise
            raise UsageError(f"cannot start the dashboard at {address}: {e.__cause__.strerror or e.__cause__}") \
                from None
    return Client(cluster), cluster


def dashboard_line(client, local: bool) -> tuple[str, Optional[str]]:
    """The line to print about the dashboard, and its address when there is one: for a cluster started here,
    the address its server really listens on."""
    services = client.scheduler_info().get("services", {})
    if "dashboard" in services:
        server = getattr(getattr(getattr(client, "cluster", None), "scheduler", None), "http_server", None)
        if getattr(server, "port", None):
            host = server.address
            link = f"http://{f'[{host}]' if ':' in host else host}:{server.port}/status"
            if host in ("0.0.0.0", "::"):
                return f"dashboard: {link} (all interfaces: other machines can reach it)", link
            return f"dashboard: {link}", link
        return f"dashboard: {client.dashboard_link}", client.dashboard_link
    if local:
        return "dashboard: not available (install bokeh)", None
    return "dashboard: not available (the scheduler runs none)", None


def run(inputs: list[str], out: str | os.PathLike, opt: A.Options = A.Options(), scheduler: Optional[str] = None,
        workers: Optional[int] = None, retries: int = 2, retry_errors: bool = False, progress: bool = True,
        client=None, say: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
        dashboard: Optional[str] = None) -> RunStats:
    """Read every item under ``inputs`` not yet done in ``out`` on a Dask cluster (``client``, or one started
    for ``scheduler`` / a LocalCluster with its dashboard at ``dashboard``), write each one's rows once, then
    gather the output."""
    require()
    if scheduler and dashboard is not None:
        raise UsageError("--dashboard is for the LocalCluster: the scheduler at --scheduler runs its own")
    if scheduler and client is None:
        reach(scheduler)                    # before anything is said: an address that does not answer is one line
    items, skipped, outside = A.discover(inputs)
    if not items:
        raise InputError(f"no photo, video or hand file under {' '.join(map(str, inputs))}")
    outdir = A.prepare_out(out)
    done = A.done_keys(outdir) & {it.key for it in items}
    if retry_errors and done:
        done -= A.error_keys(outdir, done)
    todo = sorted((it for it in items if it.key not in done),                 # longest first: videos, big files
                  key=lambda it: (it.kind != "video", -it.size, it.source))
    st = RunStats(len(items), skipped, outside, len(done))
    if skipped:
        say(f"archive: {skipped} file(s) skipped (not a photo, video or hand file)")
    if outside:
        say(f"archive: {outside} symbolic link(s) skipped (they lead out of their input folder)")
    if not todo:
        say(f"archive: nothing to do: all {len(items)} item(s) are done in {out}")
    else:
        say(f"archive: {len(todo)} item(s) to read, {len(done)} already done")
        own = client is None
        cluster = None
        if own:
            client, cluster = start_client(scheduler, workers, dashboard)
        try:
            line, st.dashboard = dashboard_line(client, local=scheduler is None)
            say(line)
            _gather(client, todo, outdir, opt, retries, progress, st)
        finally:
            if own:
                client.close()
                if cluster is not None:
                    cluster.close()
    st.totals = (None if st.processed else A.up_to_date(outdir)) or A.combine(outdir, items)
    return st


def _gather(client, todo: list[A.Item], outdir: Path, opt: A.Options, retries: int, progress: bool,
            st: RunStats) -> None:
    from distributed import as_completed
    from tqdm import tqdm
    run_id = uuid.uuid4().hex[:8]
    futures = {client.submit(A.process, it, opt, key=f"mjtable-archive-{it.key}-{run_id}", retries=retries): it
               for it in todo}
    bar = tqdm(total=len(todo), desc="archive", unit="item", disable=None if progress else True)
    try:
        for fut in as_completed(list(futures)):
            it = futures.pop(fut)
            try:
                rows = fut.result()      # a result lost with its worker since is computed again, and waited for
            except Exception as exc:     # the task's own error once its retries are spent, or KilledWorker
                rows = [A.error_row(it, f"failed (retried up to {retries} times): {type(exc).__name__}: {exc}")]
                st.failed += 1
            A.write_part(outdir, it.key, rows)
            fut.release()
            st.processed += 1
            bar.update(1)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        bar.close()
