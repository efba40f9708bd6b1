"""`mjtable archive` on a real Dask LocalCluster (2 worker processes): a small mixed archive read once per item,
a worker killed mid-run, a second run that reads nothing, a corrupt item recorded without stopping the run."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

distributed = pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

import mjtable  # noqa: E402
from mjtable.scoring import batch  # noqa: E402
from mjtable.archive import items as A  # noqa: E402
from mjtable import cli  # noqa: E402
from mjtable.archive import run as archive_run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HANDS = ROOT / "tests" / "fixtures" / "hands.jsonl"
OPT = A.Options(every=0.5)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                           silence_logs=40)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def _video(path: Path, photos: list[Path], per_photo: int = 3, fps: float = 2.0) -> Path:
    frames = [cv2.imread(str(p)) for p in photos]
    h, w = frames[0].shape[:2]
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert vw.isOpened()
    for f in frames:
        for _ in range(per_photo):
            vw.write(cv2.resize(f, (w, h)))
    vw.release()
    return path


def _archive(root: Path) -> Path:
    """league/g1: three photos and a corrupt one; league/g2: a JSONL hand file and a notation file with a bad
    line; league/game.avi: a phone video showing two hands one after the other; a README passed over."""
    lg = root / "league"
    (lg / "g1").mkdir(parents=True)
    (lg / "g2").mkdir()
    for name in ("phone_win.jpg", "phone_hand.jpg", "overhead.jpg"):
        shutil.copy(EXAMPLES / name, lg / "g1" / name)
    (lg / "g1" / "corrupt.jpg").write_bytes((EXAMPLES / "phone_win.jpg").read_bytes()[:4000])
    lines = HANDS.read_text(encoding="utf-8").splitlines()[:10]
    (lg / "g2" / "hands.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (lg / "g2" / "typed.txt").write_text("# one hand a line\n123m456p789s1z [555z^] +1z\nnot a hand\n",
                                         encoding="utf-8")
    _video(lg / "game.avi", [EXAMPLES / "phone_win.jpg", EXAMPLES / "phone_hand.jpg"])
    (lg / "README.md").write_text("scores of the spring league\n", encoding="utf-8")
    return lg


def _rows(out: Path) -> list[dict]:
    return pq.read_table(out / "hands.parquet").to_pylist()


def _check_complete(lg: Path, out: Path) -> list[dict]:
    """Every item of the archive in the output exactly once: its rows numbered 0..n-1 under one key, no row
    twice, one part per item, and the part's rows the same as hands.parquet's."""
    items, skipped, _ = A.discover([lg])
    assert skipped == 1 and len(items) == 7
    rows = _rows(out)
    by_source: dict[str, list[dict]] = {}
    for r in rows:
        by_source.setdefault(r["source"], []).append(r)
    assert sorted(by_source) == sorted(it.source for it in items)
    for it in items:
        mine = by_source[it.source]
        assert {r["item_key"] for r in mine} == {it.key}
        assert sorted(r["index"] for r in mine) == list(range(len(mine)))
    assert sorted(p.stem for p in (out / "parts").glob("*.parquet")) == sorted(it.key for it in items)
    parts = [r for p in sorted((out / "parts").glob("*.parquet")) for r in pq.read_table(p).to_pylist()]
    assert len(parts) == len(rows)
    return rows


def test_mixed_archive_on_two_worker_processes(tmp_path, client):
    lg = _archive(tmp_path)
    out = tmp_path / "out"
    st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    assert (st.items, st.processed, st.done_before, st.failed) == (7, 7, 0, 0)
    rows = _check_complete(lg, out)
    src = {}
    for r in rows:
        src.setdefault(r["source"].split("/", 1)[1], []).append(r)

    # photos: the same reading as the single-process API
    for name in ("phone_win.jpg", "phone_hand.jpg"):
        (r,) = src[f"g1/{name}"]
        ref = mjtable.read(EXAMPLES / name)
        assert r["status"] == ("win" if ref.result.is_win else "not_win")
        assert (r["score"], r["seat"]) == (ref.result.total, ref.seat)
        assert [f["name_en"] for f in r["fans"]] == [f.name_en for f in ref.result.fans]
        assert [f["kind"] for f in r["findings"]] == [f.kind for f in ref.findings]
        assert 0 < r["confidence"] <= 1 and r["game"] == "league/g1"
        assert json.loads(r["detail"])["hand"]["hand"] == r["hand"]
    (over,) = src["g1/overhead.jpg"]
    assert over["status"] == "no_hand" and len(over["seats"]) == 4 and over["findings"]

    # the corrupt photo: recorded with its error, the run went on
    (bad,) = src["g1/corrupt.jpg"]
    assert bad["status"] == "error" and "not a readable image" in bad["error"] and bad["hand"] is None

    # hand files: one row per line, as mjtable batch scores them; a bad line is an error row
    ref = [batch.score_line(line, n) for n, line in enumerate(HANDS.read_text().splitlines()[:10], 1)]
    got = src["g2/hands.jsonl"]
    assert [r["line"] for r in got] == [x["line"] for x in ref]
    for r, x in zip(got, ref):
        if "error" in x:
            assert r["status"] == "error"
        else:
            assert (r["hand"], r["score"], r["is_win"]) == (x["hand"], x["total"], x["is_win"])
    typed = src["g2/typed.txt"]
    assert [(r["line"], r["status"]) for r in typed] == [(2, "win"), (3, "error")]
    assert typed[0]["score"] == mjtable.score("123m456p789s1z [555z^] +1z").result.total

    # the video: one row per hand laid down, with its frame and time, each scored as its photo is
    vid = src["game.avi"]
    assert [(r["hand"], r["score"]) for r in vid] == [(src[f"g1/{n}"][0]["hand"], src[f"g1/{n}"][0]["score"])
                                                      for n in ("phone_win.jpg", "phone_hand.jpg")]
    assert [r["frame"] for r in vid] == [0, 3] and [r["time_s"] for r in vid] == [0.0, 1.5]

    # the summary per game
    summary = json.loads((out / "summary.json").read_text())
    games = {g["game"]: g for g in summary["games"]}
    assert set(games) == {"league/g1", "league/g2/hands.jsonl", "league/g2/typed.txt", "league/game.avi"}
    g1 = games["league/g1"]
    assert (g1["items"], g1["errors"], g1["no_hand"]) == (4, 1, 1)
    assert g1["wins"] == sum(r["status"] == "win" for r in rows if r["game"] == "league/g1")
    assert g1["points_E"] == sum(r["score"] for r in rows if r["game"] == "league/g1" and r["status"] == "win")
    assert summary["total"]["rows"] == len(rows)
    assert pq.read_table(out / "summary.parquet").num_rows == 4
    import pyarrow.dataset as ds                            # the parts folder reads as one dataset too
    assert ds.dataset(out / "parts").to_table().num_rows == len(rows)


def test_second_run_reads_nothing_and_writes_nothing(tmp_path, client):
    lg = _archive(tmp_path)
    out = tmp_path / "out"
    archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    said = []
    st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=said.append)
    assert (st.processed, st.done_before) == (0, 7)
    assert any("nothing to do" in s for s in said)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    assert st.totals["rows"] == len(_rows(out))

    # a run interrupted after its parts were written, before hands.parquet: the next run gathers them
    (out / "hands.parquet").unlink()
    st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    assert st.processed == 0 and st.totals["rows"] == len(_rows(out)) > 0

    # a changed file is read again and its new rows replace the old ones; the rest stays done
    typed = lg / "g2" / "typed.txt"
    typed.write_text("123m456p789s1z [555z^] +1z\n[222m<] [444p^] [666s>] 88s77z +7z\n", encoding="utf-8")
    st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    assert (st.processed, st.done_before) == (1, 6)
    rows = _check_complete(lg, out)
    assert [(r["line"], r["status"]) for r in rows if r["source"] == "league/g2/typed.txt"] == [(1, "win"),
                                                                                                (2, "win")]


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker process that starts the task of an item whose key is given, the first time only, and
    only while it holds results the client has not fetched yet (they are lost with it); the marker file says
    the process and how many results it held."""

    def __init__(self, key: str, marker: str):
        self.key, self.marker, self.worker = key, marker, None

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kw):
        if finish == "executing" and self.key in str(key) and not os.path.exists(self.marker) \
                and len(self.worker.data):
            with open(self.marker, "w") as f:
                f.write(f"{os.getpid()} {len(self.worker.data)}")
            os._exit(1)


def test_a_worker_killed_mid_run_still_gives_every_item_once(tmp_path, client, monkeypatch):
    lg = _archive(tmp_path)
    out = tmp_path / "out"
    items, _, _ = A.discover([lg])
    victim = next(it for it in items if it.source.endswith("hands.jsonl"))      # a small item: submitted late
    marker = tmp_path / "killed"
    real_write = A.write_part
    first = []

    def slow_write(*args):          # the first part takes long to write: results wait on the workers meanwhile
        if not first:
            first.append(time.sleep(1.5))
        real_write(*args)

    monkeypatch.setattr(A, "write_part", slow_write)
    client.register_plugin(KillOnce(victim.key, str(marker)), name="kill-once")
    try:
        st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    finally:
        client.unregister_worker_plugin("kill-once")
    pid, held = map(int, marker.read_text().split())     # the worker started the item, holding results, and died
    assert held >= 1
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    rows = _check_complete(lg, out)
    assert (st.processed, st.failed) == (7, 0), [r["error"] for r in rows if r["status"] == "error"]
    mine = [r for r in rows if r["source"] == victim.source]
    assert len(mine) == 10 and all(r["status"] != "error" or r["line"] for r in mine)
    assert len({(r["source"], r["index"]) for r in rows}) == len(rows)
    client.wait_for_workers(2, timeout=60)                # the nanny brought a worker back


def test_results_lost_with_their_worker_are_computed_again_not_recorded_as_errors(tmp_path, client, monkeypatch):
    """A worker dies holding results this run has not fetched yet: those items are read again and written once."""
    lg = _archive(tmp_path)
    out = tmp_path / "out"
    real_write = A.write_part
    killed = []

    def write_then_kill(*args):
        real_write(*args)
        if killed:
            return
        deadline = time.time() + 60            # until a worker holds two results or more, none of them fetched
        while True:
            held = {w: [k for k in keys if str(k).startswith("mjtable-archive-")]
                    for w, keys in client.has_what().items()}
            w, keys = max(held.items(), key=lambda kv: len(kv[1]))
            if len(keys) >= 2 or time.time() > deadline:
                break
            time.sleep(0.05)
        pid = client.run(os.getpid, workers=[w])[w]
        os.kill(pid, signal.SIGKILL)
        killed.append((pid, keys))
        while w in client.scheduler_info()["workers"] and time.time() < deadline:
            time.sleep(0.05)                   # the scheduler knows: those results are lost

    monkeypatch.setattr(A, "write_part", write_then_kill)
    st = archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    (pid, keys), = killed
    assert len(keys) >= 2
    rows = _check_complete(lg, out)
    assert (st.processed, st.failed) == (7, 0), [r["error"] for r in rows if r["status"] == "error"]
    assert len({(r["source"], r["index"]) for r in rows}) == len(rows)
    client.wait_for_workers(2, timeout=60)


def test_a_failing_task_is_retried_then_recorded(tmp_path, monkeypatch):
    """Tasks raising an unexpected error (in-process workers, so the fault can be injected): retried, and
    recorded as an error row once the retries are spent; the run goes on."""
    from distributed import Client, LocalCluster
    lg = _archive(tmp_path)
    log = tmp_path / "attempts"
    real = A.process

    def flaky(item, opt):                  # pickled to the worker: it counts its attempts in a file
        with open(log, "a") as f:
            f.write(item.source + "\n")
        tries = log.read_text().splitlines().count(item.source)
        if item.source.endswith("typed.txt") and tries <= 2:
            raise RuntimeError("disk hiccup")
        if item.source.endswith("hands.jsonl"):
            raise RuntimeError("always broken")
        return real(item, opt)

    monkeypatch.setattr(A, "process", flaky)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as c:
        st = archive_run.run([str(lg)], tmp_path / "out", OPT, client=c, retries=2, progress=False,
                             say=lambda s: None)
    calls = log.read_text().splitlines()
    assert calls.count("league/g2/typed.txt") == 3 and calls.count("league/g2/hands.jsonl") == 3
    assert calls.count("league/g1/phone_win.jpg") == 1
    assert (st.processed, st.failed) == (7, 1)
    rows = _check_complete(lg, tmp_path / "out")
    (broken,) = [r for r in rows if r["source"] == "league/g2/hands.jsonl"]
    assert broken["status"] == "error" and "always broken" in broken["error"]
    assert [r["status"] for r in rows if r["source"].endswith("typed.txt")] == ["win", "error"]

    # --retry-errors reads the items with an error row again (both: typed.txt has a bad line)
    monkeypatch.setattr(A, "process", real)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as c:
        st = archive_run.run([str(lg)], tmp_path / "out", OPT, client=c, retry_errors=True, progress=False,
                             say=lambda s: None)
    assert st.processed == 3                       # hands.jsonl, typed.txt and the corrupt photo
    rows = _check_complete(lg, tmp_path / "out")
    assert len([r for r in rows if r["source"] == "league/g2/hands.jsonl"]) == 10


def test_cli_with_scheduler_address(tmp_path, client, capsys):
    lg = _archive(tmp_path)
    out = tmp_path / "out"
    addr = client.scheduler.address
    code = cli.main(["archive", str(lg / "g2"), str(lg / "g1" / "phone_win.jpg"), "--out", str(out),
                     "--scheduler", addr, "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1                                        # typed.txt's bad line is an error row
    (dash,) = [line for line in err.splitlines() if line.startswith("dashboard: ")]
    has_bokeh = "dashboard" in client.scheduler_info()["services"]
    assert dash == (f"dashboard: {client.dashboard_link}" if has_bokeh else
                    "dashboard: not available (the scheduler runs none)")
    assert "3 item(s), 3 read now" in err
    rows = _rows(out)
    assert {r["source"] for r in rows} == {"g2/hands.jsonl", "g2/typed.txt", "phone_win.jpg"}
    code = cli.main(["archive", str(lg / "g1" / "phone_win.jpg"), "--out", str(tmp_path / "o2"),
                     "--scheduler", addr, "--no-progress"])
    assert code == 0 and "1 win(s), 0 error row(s)" in capsys.readouterr().err


@pytest.mark.parametrize("args, code, words", [
    (["archive", "nowhere", "--out", "OUT"], 3, "no such file or folder"),
    (["archive", "README.md", "--out", "OUT"], 3, "not a photo, video or hand file"),
    (["archive", "EMPTY", "--out", "OUT"], 3, "no photo, video or hand file under"),
    (["archive", "examples/phone_win.jpg", "--out", "FILE/out"], 8, "cannot write to"),
    (["archive", "examples/phone_win.jpg"], 2, "--out"),
    (["archive", "examples/phone_win.jpg", "--out", "OUT", "--retries", "99"], 2, "--retries"),
    (["archive", "examples/phone_win.jpg", "--out", "OUT", "--profile", "nope"], 2, "nope"),
    (["archive", "examples/phone_win.jpg", "--out", "OUT", "--dashboard", "nonsense"], 2, "HOST:PORT"),
    (["archive", "examples/phone_win.jpg", "--out", "OUT", "--dashboard", "127.0.0.1:99999"], 2, "HOST:PORT"),
])
def test_bad_input_is_one_line_and_an_exit_code(tmp_path, capsys, monkeypatch, args, code, words):
    (tmp_path / "EMPTY").mkdir()
    (tmp_path / "FILE").write_text("x")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    (tmp_path / "examples").mkdir()
    shutil.copy(EXAMPLES / "phone_win.jpg", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mjtable: error: ") and words in err[0]


def test_dashboard_line():
    class Fake:
        dashboard_link = "http://127.0.0.1:8787/status"

        def __init__(self, services):
            self.services = services

        def scheduler_info(self):
            return {"services": self.services}

    assert archive_run.dashboard_line(Fake({"dashboard": 8787}), local=True) == \
        ("dashboard: http://127.0.0.1:8787/status", "http://127.0.0.1:8787/status")
    assert archive_run.dashboard_line(Fake({}), local=True) == ("dashboard: not available (install bokeh)", None)
    assert archive_run.dashboard_line(Fake({}), local=False)[0] == \
        "dashboard: not available (the scheduler runs none)"

    class Server:                           # a cluster started here: the address its server listens on
        def __init__(self, address, port):
            self.address, self.port = address, port

    local = Fake({"dashboard": 8787})
    for address, line in (("127.0.0.1", "dashboard: http://127.0.0.1:40123/status"),
                          ("::1", "dashboard: http://[::1]:40123/status"),
                          ("0.0.0.0", "dashboard: http://0.0.0.0:40123/status (all interfaces: other machines "
                                      "can reach it)")):
        local.cluster = type("Cluster", (), {"scheduler": type("S", (), {"http_server": Server(address, 40123)})})
        assert archive_run.dashboard_line(local, local=True)[0] == line


def test_two_inputs_that_would_share_a_source_are_refused(tmp_path, capsys):
    for d in ("a/league", "b/league"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "h.txt").write_text("123m456p789s1z [555z^] +1z\n")
    assert cli.main(["archive", str(tmp_path / "a/league"), str(tmp_path / "a/league/"), "--out",
                     str(tmp_path / "o"), "--no-progress", "--workers", "1"]) == 0      # the same folder twice
    assert cli.main(["archive", str(tmp_path / "a/league"), str(tmp_path / "b/league"), "--out",
                     str(tmp_path / "o")]) == 3
    assert "would both be recorded as league/h.txt" in capsys.readouterr().err


def test_without_dask_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed -> ImportError
    assert cli.main(["archive", str(EXAMPLES / "phone_win.jpg"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mjtable: error: mjtable archive needs dask[distributed]: pip install 'mjtable[archive]'"]


def test_the_photo_runtime_imports_neither_dask_nor_pyarrow():
    code = ("import sys; from mjtable import cli; "
            "rc = cli.main(['score', '123m456p789s1z [555z^] +1z', '--json']); "
            "bad = [m for m in ('dask', 'distributed', 'pyarrow') if m in sys.modules]; "
            "print(rc, bad, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stderr.strip().splitlines()[-1] == "0 []"


# ------------------------------------------------------------------------------------------ second round


def _listening(port: int) -> list[str]:
    """The addresses this process listens on at ``port`` (the LocalCluster's scheduler runs in it)."""
    import psutil
    proc = psutil.Process()
    conns = proc.net_connections("tcp") if hasattr(proc, "net_connections") else proc.connections("tcp")
    return [c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN and c.laddr.port == port]


@pytest.mark.parametrize("dashboard", [None, "127.0.0.1:0"])
def test_the_dashboard_listens_where_the_line_says(tmp_path, dashboard):
    """On 127.0.0.1 unless told (not on every interface), and the line gives the port really used."""
    hands = tmp_path / "h.txt"
    hands.write_text("123m456p789s1z [555z^] +1z\n", encoding="utf-8")
    seen = []

    def say(line):
        if line.startswith("dashboard: "):
            link = line.split()[1]
            port = int(link.rsplit(":", 1)[1].split("/")[0])
            seen.append((link, port, _listening(port)))

    told = {} if dashboard is None else {"dashboard": dashboard}
    archive_run.run([str(hands)], tmp_path / "out", OPT, workers=1, progress=False, say=say, **told)
    if not archive_run._has_bokeh():
        pytest.skip("bokeh is not installed: no dashboard")
    (link, port, where), = seen
    assert link == f"http://127.0.0.1:{port}/status" and port > 0
    assert where == ["127.0.0.1"]


def test_dashboard_is_for_the_local_cluster_only(tmp_path, capsys):
    assert cli.main(["archive", str(EXAMPLES / "phone_win.jpg"), "--out", str(tmp_path / "o"),
                     "--scheduler", "tcp://127.0.0.1:9", "--dashboard", "127.0.0.1:8787"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--dashboard" in err[0]


def test_symbolic_links_out_of_the_input_folder_are_not_followed(tmp_path, client):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    shutil.copy(EXAMPLES / "phone_win.jpg", outside / "p.jpg")
    lg = tmp_path / "league"
    (lg / "g1").mkdir(parents=True)
    (lg / "g1" / "typed.txt").write_text("123m456p789s1z [555z^] +1z\n", encoding="utf-8")
    (lg / "leak.txt").symlink_to(outside / "passwd.txt")
    (lg / "g1" / "leak.jpg").symlink_to(outside / "p.jpg")
    (lg / "again.txt").symlink_to(lg / "g1" / "typed.txt")         # a link inside the folder is followed
    (lg / "elsewhere").symlink_to(outside, target_is_directory=True)
    items, skipped, links_out = A.discover([lg])
    assert [it.source for it in items] == ["league/again.txt", "league/g1/typed.txt"] and links_out == 2
    said = []
    st = archive_run.run([str(lg)], tmp_path / "out", OPT, client=client, progress=False, say=said.append)
    assert st.links_outside == 2 and "archive: 2 symbolic link(s) skipped (they lead out of their input folder)" \
        in said
    rows = _rows(tmp_path / "out")
    assert sorted(r["source"] for r in rows) == ["league/again.txt", "league/g1/typed.txt"]
    assert not any("root:" in json.dumps(r, default=str) for r in rows)


def test_rows_name_files_relative_to_their_input_never_by_absolute_path(tmp_path, client):
    lg = _archive(tmp_path)
    (lg / "g1" / "empty.png").write_bytes(b"")
    (lg / "broken.avi").write_bytes(b"not a video")
    out = tmp_path / "out"
    archive_run.run([str(lg)], out, OPT, client=client, progress=False, say=lambda s: None)
    rows = _rows(out)
    errors = {r["source"]: r["error"] for r in rows if r["status"] == "error"}
    assert {"league/g1/corrupt.jpg", "league/g1/empty.png", "league/broken.avi"} <= set(errors)
    assert "league/g1/corrupt.jpg" in errors["league/g1/corrupt.jpg"]
    assert "league/g1/empty.png" in errors["league/g1/empty.png"]
    for r in rows:
        assert str(tmp_path) not in json.dumps(r, default=str), r["source"]


def test_odd_names_the_users_files_and_a_damaged_part(tmp_path, client):
    """A file name that is not UTF-8 is recorded, escaped (it had stopped the whole run: Parquet takes UTF-8
    only); the output folder's own temporary files are cleared but a user's ``.*.tmp`` files are not; a part
    emptied on the disk is read again on the next run (it had failed every later run)."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "ok.txt").write_text("123m456p789s1z [555z^] +1z\n", encoding="utf-8")
    (Path(os.fsdecode(bytes(src) + b"/g\xff.txt"))).write_text("123m456p789s1z [555z^] +1z\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".draft.tmp").write_text("the user's")
    (out / ".summary.json.x1y2z3.tmp").write_text("a run's, cut short")
    st = archive_run.run([str(src)], out, OPT, client=client, progress=False, say=lambda s: None)
    rows = _rows(out)
    assert st.processed == 2 and sorted(r["source"] for r in rows) == ["in/g\\xff.txt", "in/ok.txt"]
    assert all(r["status"] == "win" for r in rows)
    assert (out / ".draft.tmp").read_text() == "the user's" and not (out / ".summary.json.x1y2z3.tmp").exists()

    part = next((out / "parts").glob("*.parquet"))
    part.write_bytes(b"")
    st = archive_run.run([str(src)], out, OPT, client=client, progress=False, say=lambda s: None)
    assert (st.processed, st.done_before) == (1, 1) and len(_rows(out)) == 2


def test_a_line_that_is_not_utf8_is_one_error_row_and_the_others_are_read(tmp_path):
    p = tmp_path / "hands.jsonl"
    good = HANDS.read_text(encoding="utf-8").splitlines()[:3]
    p.write_bytes("\n".join(good[:2]).encode() + b'\n{"hand": "123m\xff"}\n\xc3\x28\n' + good[2].encode() + b"\n")
    st = p.stat()
    rows = A.process(A.Item(str(p), "hands.jsonl", "hands.jsonl", "hands", st.st_size, st.st_mtime_ns), OPT)
    assert [(r["line"], r["status"]) for r in rows] == [(1, "not_win"), (2, "win"), (3, "error"), (4, "error"),
                                                       (5, "win")]
    assert rows[4]["hand"] == batch.score_line(good[2], 5)["hand"]
    assert rows[2]["error"] == "hands.jsonl line 3: not UTF-8 text (invalid start byte at column 15)"
    assert "line 4: not UTF-8 text" in rows[3]["error"]
    assert [r["index"] for r in rows] == list(range(5))


def test_a_json_line_that_breaks_the_parser_is_one_error_row(tmp_path):
    """Nested thousands deep, or a number of thousands of digits: an error row for that line, not for the file."""
    p = tmp_path / "hands.jsonl"
    good = '{"hand": "123m456p789s1z [555z^] +1z"}'
    p.write_text("\n".join([good, '{"a":' * 5000 + "1" + "}" * 5000, '{"hand": "1m", "id": ' + "9" * 5000 + "}",
                            good]) + "\n", encoding="utf-8")
    st = p.stat()
    rows = A.process(A.Item(str(p), "hands.jsonl", "hands.jsonl", "hands", st.st_size, st.st_mtime_ns), OPT)
    assert [(r["line"], r["status"]) for r in rows] == [(1, "win"), (2, "error"), (3, "error"), (4, "win")]
    assert rows[1]["error"] == "invalid JSON: nested too deep" and "digits" in rows[2]["error"]


def test_a_json_line_with_a_value_of_the_wrong_type_is_one_error_row(tmp_path):
    """A list where the rule system's name goes: an error row for that line that names the field, and the lines
    around it scored (it had escaped as a TypeError and failed the whole file)."""
    p = tmp_path / "hands.jsonl"
    good = '{"hand": "123m456p789s1z [555z^] +1z"}'
    p.write_text("\n".join([good, '{"hand": "123m456p789s1z [555z^] +1z", "rules": ["mcr"]}', good]) + "\n",
                 encoding="utf-8")
    st = p.stat()
    rows = A.process(A.Item(str(p), "hands.jsonl", "hands.jsonl", "hands", st.st_size, st.st_mtime_ns), OPT)
    assert [(r["line"], r["status"]) for r in rows] == [(1, "win"), (2, "error"), (3, "win")]
    assert rows[1]["error"].startswith("rules: want one of")


def test_an_unreachable_scheduler_fails_in_seconds(tmp_path):
    """A closed port, and a port that accepts and says nothing: exit 2 and one line, in a few seconds each."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        for port in (closed, silent.getsockname()[1]):
            t0 = time.monotonic()
            p = subprocess.run([sys.executable, "-m", "mjtable.cli", "archive", str(EXAMPLES / "phone_win.jpg"),
                                "--out", str(tmp_path / "o"), "--scheduler", f"tcp://127.0.0.1:{port}",
                                "--no-progress"], capture_output=True, text=True, timeout=40)
            took = time.monotonic() - t0
            err = p.stderr.strip().splitlines()
            assert p.returncode == 2 and len(err) == 1, p.stderr
            assert err[0].startswith(f"mjtable: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")
            assert took < 12, took                         # about 3 s, and the interpreter's start
    finally:
        silent.close()


def _dask(*args: str, log: Path) -> subprocess.Popen:
    """Dask's own command line (``dask scheduler``, ``dask worker``) in its own process group, logging to ``log``."""
    exe = Path(sys.executable).with_name("dask")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dask"]
    with open(log, "wb") as f:
        return subprocess.Popen(cmd + list(args), stdout=f, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait(10)


def _until(pred, timeout: float, what: str, every: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def test_archive_on_dask_command_line_workers_one_killed_mid_run(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; ``mjtable archive --scheduler``; one
    worker killed (with its nanny) while it reads an item: every item is in the output once, none as an error."""
    from distributed import Client
    lines = [line for n, line in enumerate(HANDS.read_text(encoding="utf-8").splitlines(), 1)
             if "error" not in batch.score_line(line, n)]
    lg = tmp_path / "league"
    lg.mkdir()
    for g in range(10):                                  # ten games of 50 typed hands (about half a second each)
        (lg / f"game{g:02d}.jsonl").write_text("\n".join((lines * 50)[:50]) + "\n", encoding="utf-8")
    for name in ("phone_win.jpg", "phone_hand.jpg"):
        shutil.copy(EXAMPLES / name, lg / name)
    items, _, _ = A.discover([lg])
    out, sched_file = tmp_path / "out", tmp_path / "scheduler.json"
    procs: list[subprocess.Popen] = []
    client = None
    t0 = time.monotonic()
    try:
        procs.append(_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                           "--scheduler-file", str(sched_file), log=tmp_path / "scheduler.log"))
        _until(lambda: sched_file.exists() and sched_file.stat().st_size, 30, "the scheduler")
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = {}
        for name in ("w0", "w1"):
            workers[name] = _dask("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard",
                                  "--name", name, log=tmp_path / f"{name}.log")
            procs.append(workers[name])
        client = Client(address, timeout="10s")
        client.wait_for_workers(2, timeout=30)
        names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
        run = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "archive", str(lg), "--out", str(out),
                                "--scheduler", address, "--no-progress"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        procs.append(run)

        def reading():                                   # a worker reading an item, once some are done
            if not list((out / "parts").glob("*.parquet")):
                return None
            busy = [names[a] for a, keys in client.processing().items() if keys]
            return busy[0] if busy else None
        victim = _until(reading, 40, "a worker reading an item")
        left = len(items) - len(list((out / "parts").glob("*.parquet")))
        os.killpg(workers[victim].pid, signal.SIGKILL)  # the worker and its nanny
        workers[victim].wait(10)
        stdout, stderr = run.communicate(timeout=50)
    finally:
        if client is not None:
            client.close(timeout=5)
        for p in reversed(procs):
            _stop(p)
    assert left >= 2                                     # killed mid-run, with items still to read
    assert run.returncode == 0, stderr
    assert f"{len(items)} item(s), {len(items)} read now (0 failed)" in stderr
    rows = _rows(out)
    assert sorted({r["source"] for r in rows}) == sorted(it.source for it in items)
    for it in items:
        mine = [r for r in rows if r["source"] == it.source]
        assert sorted(r["index"] for r in mine) == list(range(len(mine))) and {r["item_key"] for r in mine} == {
            it.key}
        assert len(mine) == (50 if it.kind == "hands" else 1)
        assert all(r["status"] != "error" for r in mine)
    assert sorted(p.stem for p in (out / "parts").glob("*.parquet")) == sorted(it.key for it in items)
    assert time.monotonic() - t0 < 60



def test_the_local_cluster_keeps_dask_shutdown_noise_off_the_terminal():
    """A worker's heartbeat that races the scheduler's close logs an ERROR with a traceback (seen once in CI):
    the cluster the archive starts lets only CRITICAL through, from its workers and from here."""
    code = (
        "import logging\n"
        "from mjtable.archive import run as r\n"
        "client, cluster = r.start_client(None, 1, '127.0.0.1:0')\n"
        "client.run(lambda: logging.getLogger('distributed.worker').error('worker-error-line'))\n"
        "client.run(lambda: logging.getLogger('distributed.worker').critical('worker-critical-line'))\n"
        "logging.getLogger('distributed.scheduler').error('scheduler-error-line')\n"
        "client.close(); cluster.close()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "worker-critical-line" in r.stderr                   # the workers' log does reach the terminal
    assert "worker-error-line" not in r.stderr and "scheduler-error-line" not in r.stderr
