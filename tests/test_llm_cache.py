"""The llm judge's cache under real conditions: read-only, partly unwritable, damaged, shared by
two runs at once, and entries too large."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groundlab import evaluate, get_judge, load_cases
from groundlab.evaluate import claim_pairs, split_cases

from conftest import CASES, NOTES, ROOT
from messages_stub import KEY, messages_stub, tool_reply  # noqa: F401

ANSWERED = 10
ARGS = ("--cases", CASES, "--passages", NOTES)


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` made read-only for real: its modes for an ordinary user; for root, whom modes do
    not stop, a read-only bind mount (skipped where that is not allowed)."""
    if os.geteuid() != 0:
        paths = [folder, *folder.rglob("*")]
        modes = {p: p.stat().st_mode for p in paths}
        for p in paths:
            p.chmod(modes[p] & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            yield
        finally:
            for p in reversed(paths):
                p.chmod(modes[p])
        return
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot make a folder read-only here (running as root without mount)")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("cannot make a folder read-only here (a read-only remount was refused)")
        yield
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


def request_keys(tmp_path) -> list:
    cases = load_cases(CASES, NOTES)
    judge = get_judge("llm", cache=tmp_path / "unused", dry_run=True)
    pairs = claim_pairs(list(zip(cases, split_cases(cases))))
    return [judge._key(request) for _, request in judge.requests_for(pairs)]


def test_a_read_only_cache_serves_a_cached_run_and_a_dry_run(messages_stub, cli, tmp_path):
    cache = tmp_path / "c"
    first = cli.json("score", "--judge", "llm", "--cache", cache, *ARGS)
    with read_only(cache):
        code, out, err = cli("score", "--judge", "llm", "--cache", cache, "--json", *ARGS)
        assert code == 0 and json.loads(out) == first and "warning" not in err
        code, out, err = cli("score", "--judge", "llm", "--dry-run", "--cache", cache, *ARGS)
        assert code == 0 and "0 requests to send, 10 answered from the cache" in out
    assert len(messages_stub.requests) == ANSWERED


def test_a_read_only_cache_still_judges_what_it_lacks_and_says_it_keeps_nothing(messages_stub, cli, tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    with read_only(cache):
        code, out, err = cli("score", "--judge", "llm", "--cache", cache, "--json", *ARGS)
        assert code == 0 and json.loads(out)["errors"] == 0
        assert err.count("warning") == 1
        assert f"the cache folder {cache} cannot be written, so the 10 replies this run pays for will be used" in err
        assert "10 replies could not be cached" in err
    assert not any(cache.rglob("*"))


@pytest.mark.parametrize("how", ["read-only", "a file"])
def test_one_unwritable_shard_is_a_warning_not_an_abort(messages_stub, cli, tmp_path, how):
    cache = tmp_path / "c"
    keys = request_keys(tmp_path)
    shard = cache / keys[0][:2]
    lost = sum(key[:2] == keys[0][:2] for key in keys)  # the requests whose entries go in that shard
    if how == "a file":
        cache.mkdir()
        shard.write_text("in the way")
        context = contextlib.nullcontext()
    else:
        shard.mkdir(parents=True)
        context = read_only(shard)
    with context:
        code, out, err = cli("score", "--judge", "llm", "--cache", cache, "--json", *ARGS)
        assert code == 0 and json.loads(out)["errors"] == 0
        assert err.count("warning: a reply could not be kept in the cache") == 1
        assert "a rerun will ask for it again" in err
        assert f"{lost} repl{'y' if lost == 1 else 'ies'} could not be cached" in err
        assert len(list(cache.rglob("*.json"))) == ANSWERED - lost
        code, out, err = cli("score", "--judge", "llm", "--cache", cache, *ARGS)
        assert len(messages_stub.requests) == ANSWERED + lost  # only what could not be kept


@pytest.mark.parametrize("entry", [
    '{"reply": "garbage"}', "[1, 2]", '"text"', "null", '{"reply": {"verdicts": []}}', '{"noreply": 1}',
    '{"reply": {"verdicts": [{"claim": "\u00b2", "verdict": "supported"}]}}', '{"reply": ', "",
    " " * (9 << 20) + '{"reply": "padding"}',
])
def test_an_unusable_cache_entry_is_asked_again_and_rewritten(messages_stub, tmp_path, entry):
    cases = load_cases(CASES, NOTES)[:1]
    judge = lambda: get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False)  # noqa: E731
    first = evaluate(cases, judge())
    (path,) = (tmp_path / "c").rglob("*.json")
    path.write_text(entry)
    again = evaluate(cases, judge())
    assert len(messages_stub.requests) == 2
    assert again.claims["verdict"].tolist() == first.claims["verdict"].tolist()
    assert json.loads(path.read_text())["reply"]["verdicts"]  # rewritten, usable
    evaluate(cases, judge())
    assert len(messages_stub.requests) == 2


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "folder"])
def test_a_cache_entry_that_is_no_file_is_a_miss_and_is_replaced(messages_stub, tmp_path, kind):
    cases = load_cases(CASES, NOTES)[:1]
    judge = lambda: get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False)  # noqa: E731
    evaluate(cases, judge())
    (path,) = (tmp_path / "c").rglob("*.json")
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)  # opened as a file, it would wait for a writer that never comes
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    start = time.monotonic()
    again = evaluate(cases, judge())
    assert time.monotonic() - start < 30 and len(messages_stub.requests) == 2
    assert again.claims["error"].isna().all()
    if kind != "folder":  # the reply is kept in its place (a folder there is left as it is)
        assert path.is_file() and not path.is_symlink() and json.loads(path.read_text())["reply"]["verdicts"]


def test_an_entry_too_large_to_keep_whole_keeps_its_reply(messages_stub, tmp_path):
    from groundlab.records import Evidence, Passage

    evidence = Evidence("Q?", (Passage("P1", "The invoice is paid within 30 days. " * 300_000),))
    pairs = [("The invoice is paid within 30 days.", evidence)]
    messages_stub.default = lambda body: tool_reply(
        [{"claim": 1, "verdict": "supported", "supported_by": ["P1"], "reason": "P1 says so."}], body)
    judge = lambda: get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False)  # noqa: E731
    judge().judge_batch(pairs)
    (path,) = (tmp_path / "c").rglob("*.json")
    assert path.stat().st_size < 8 << 20
    assert json.loads(path.read_text())["request"] == {"omitted": "larger than 8 MiB"}
    assert judge().judge_batch(pairs)[0].label == "supported" and len(messages_stub.requests) == 1


def _groundlab(*argv, env):
    return subprocess.Popen([sys.executable, "-m", "groundlab", *map(str, argv)], env=env, cwd=env["PWD"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _env(stub, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LLM_", "GROUNDLAB_"))}
    env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=stub.url, PYTHONPATH=str(ROOT), PWD=str(tmp_path))
    return env


def test_two_runs_sharing_a_cache_pay_once_for_each_request(messages_stub, tmp_path):
    messages_stub.delay = 0.4  # each run alone would take 4 s, so the two overlap
    env = _env(messages_stub, tmp_path)
    argv = ("score", "--judge", "llm", "--cache", tmp_path / "shared", "--concurrency", "1", "--json", *ARGS)
    runs = [_groundlab(*argv, env=env) for _ in range(2)]
    results = [run.communicate(timeout=60) for run in runs]
    assert all(run.returncode == 0 for run in runs), results
    assert json.loads(results[0][0]) == json.loads(results[1][0])
    assert len(messages_stub.requests) == ANSWERED  # not 20
    sent = [int(re.search(r"(\d+) requests? sent", err).group(1)) for _, err in results]
    assert sum(sent) == ANSWERED and min(sent) > 0, results  # both paid for some, neither for the other's
    assert not list((tmp_path / "shared").rglob("*.lock"))


def test_a_run_killed_while_holding_a_lock_leaves_nothing_that_blocks(messages_stub, tmp_path):
    key = request_keys(tmp_path)[0]
    lock = tmp_path / "c" / key[:2] / f"{key}.lock"
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n")],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    began = time.monotonic()
    ev = evaluate(load_cases(CASES, NOTES), get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False))
    assert ev.claims["error"].isna().all() and time.monotonic() - began < 10
    assert len(messages_stub.requests) == ANSWERED


def test_a_run_waits_for_the_request_another_run_is_asking(messages_stub, tmp_path):
    import fcntl
    import threading

    key = request_keys(tmp_path)[0]
    lock = tmp_path / "c" / key[:2] / f"{key}.lock"
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    cases = load_cases(CASES, NOTES)

    def answer_then_release():  # the other run: pays for the first case, caches it, lets go
        time.sleep(0.5)
        evaluate(cases[:1], get_judge("llm", cache=tmp_path / "other", backoff=0, progress=False))
        (reply,) = (tmp_path / "other").rglob("*.json")
        shutil.copy(reply, lock.with_suffix(".json"))
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    threading.Thread(target=answer_then_release, daemon=True).start()
    ev = evaluate(cases, get_judge("llm", cache=tmp_path / "c", backoff=0, progress=False))
    assert ev.claims["error"].isna().all()
    assert len(messages_stub.requests) == ANSWERED  # the first case once, by the other run
