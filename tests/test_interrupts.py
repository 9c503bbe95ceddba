"""A run over several worker processes that is stopped (SIGTERM to the command, Ctrl-C to its
terminal's process group) ends its workers too, lets go of the caller's pipes, and leaves no
temporary file of the claim frame behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import NOTES, ROOT

from groundlab.cli.common import Terminated, stop_on_signals
from groundlab.core.parallel import _stops_held, can_fork, in_workers

sys.path.insert(0, str(ROOT / "bench"))
from make_cases import make  # noqa: E402


def _children(pid: int) -> list:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _signal_masks(pid: int) -> str:
    """The signals a process blocks, ignores and catches, as /proc shows them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "no status"
    return " ".join(line.replace("\t", " ") for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def big_cases(tmp_path_factory) -> Path:
    """Enough cases (11 MB) for score to split them over its workers and take a while."""
    path = tmp_path_factory.mktemp("big") / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in make(30000, seed=3)), encoding="utf-8")
    return path


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", ["SIGTERM to the command", "Ctrl-C to its process group"])
def test_a_stopped_parallel_score_ends_its_workers_and_leaves_no_temporary_file(big_cases, tmp_path, how):
    out = tmp_path / "F.parquet"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.Popen([sys.executable, "-m", "groundlab", "score", "--cases", str(big_cases), "--passages",
                            str(NOTES), "--workers", "2", "--claims-out", str(out)], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    workers: list = []
    until = time.monotonic() + 120
    while len(workers) < 2 and run.poll() is None and time.monotonic() < until:
        time.sleep(0.1)
        workers = _children(run.pid)
    assert len(workers) == 2, "the run did not start its two workers"
    # stopped as soon as the workers write their parts: a fixed wait could outlast the whole run on a
    # machine where this test gets the CPU last
    while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()) and run.poll() is None \
            and time.monotonic() < until:
        time.sleep(0.02)
    # for the failure message: when the stop went, whether the run was still going, how it held the signals
    sent = (f"stopped after {time.monotonic() - until + 120:.1f} s, the run "
            f"{'still going' if run.poll() is None else 'already over'}; " + _signal_masks(run.pid))
    if how.startswith("SIGTERM"):
        run.send_signal(signal.SIGTERM)
    else:
        os.killpg(run.pid, signal.SIGINT)
    try:
        _, err = run.communicate(timeout=30)  # returns only once nothing holds the pipes
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    for pid in workers:
        for _ in range(50):
            if not _alive(pid):
                break
            time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived the run"
    assert run.returncode in (130, 128 + signal.SIGTERM), (sent, err)
    assert b"nothing more was written" in err and b"Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [], sorted(p.name for p in tmp_path.iterdir())


def _slow(task, report):
    time.sleep(task)
    return task


@pytest.mark.skipif(not can_fork(), reason="workers are forked")
def test_a_stop_arriving_while_a_worker_is_forked_ends_that_worker_too(monkeypatch):
    """SIGTERM lands right after the fork of the last worker, before this process has recorded it:
    the stop waits for the record, so that worker is ended with the others, not left running."""
    import multiprocessing.process

    started: list = []
    start = multiprocessing.process.BaseProcess.start

    def start_then_stop(self):
        start(self)
        started.append(self)
        if len(started) == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start_then_stop)
    with pytest.raises(Terminated), stop_on_signals():
        in_workers([30, 30], _slow, progress=lambda n: None)
    assert len(started) == 2
    assert not any(p.is_alive() for p in started), "a worker forked as the stop came outlived the run"


def test_a_stop_held_over_a_block_is_acted_on_when_it_ends():
    reached = []
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # another test's handler aside
    try:
        with pytest.raises(KeyboardInterrupt):
            with _stops_held():
                signal.raise_signal(signal.SIGINT)
                reached.append("the end of the block")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
    assert reached == ["the end of the block"]
