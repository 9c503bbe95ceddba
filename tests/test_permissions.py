"""What groundlab writes is no more readable than the cases it comes from: a 0600 cases file gives
0600 files and 0700 folders, whatever the umask, for imports, reports, frames, sheets, a run's
folder (what its notebooks' kernels write included) and the llm judge's cache."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from groundlab.io import narrower_umask, outputs_like

from conftest import CASES, NOTES
from messages_stub import messages_stub  # noqa: F401 (a fixture)
from sap_logs import SAP
from test_notebooks import _notebook


def _private(tmp_path: Path, source: Path, name: str, mode: int = 0o600) -> Path:
    target = tmp_path / name
    target.write_bytes(source.read_bytes())
    target.chmod(mode)
    return target


def _modes(root: Path):
    """Every file and folder under ``root`` (itself included), with its permission bits."""
    yield root, stat.S_IMODE(root.stat().st_mode)
    for path in root.rglob("*"):
        yield path, stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def open_umask():
    """A umask that would make everything readable by all (0o666 files), restored afterwards."""
    old = os.umask(0)
    yield
    os.umask(old)


def test_the_umask_follows_the_most_private_input(tmp_path):
    assert narrower_umask([], 0o022) == 0o022
    public = _private(tmp_path, NOTES, "public.jsonl", 0o644)
    group = _private(tmp_path, CASES, "group.jsonl", 0o640)
    private = _private(tmp_path, CASES, "private.jsonl", 0o600)
    assert narrower_umask([public], 0) == 0o022
    assert narrower_umask([public, group], 0) == 0o027
    assert narrower_umask([group, private, None, tmp_path / "missing"], 0o002) == 0o077
    before = os.umask(0o022)
    os.umask(before)
    with outputs_like(private):
        (tmp_path / "made").mkdir()
        (tmp_path / "made" / "f").write_text("x")
    assert os.umask(before) == before  # restored
    assert stat.S_IMODE((tmp_path / "made").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "made" / "f").stat().st_mode) == 0o600


def test_import_score_and_sheets_are_as_private_as_their_input(cli, tmp_path, open_umask):
    log = _private(tmp_path, SAP / "records_v1.jsonl", "log.jsonl")
    out = tmp_path / "new" / "cases.jsonl"
    assert cli("import", log, "--out", out)[0] == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and stat.S_IMODE(out.parent.stat().st_mode) == 0o700
    code, _, err = cli("score", "--cases", out, "--judge", "rules", "--report", tmp_path / "r" / "report.md",
                       "--claims-out", tmp_path / "claims.csv", "--cases-out", tmp_path / "cases.parquet")
    assert code == 0, err
    for path in (tmp_path / "r" / "report.md", tmp_path / "claims.csv", tmp_path / "cases.parquet"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((tmp_path / "r").stat().st_mode) == 0o700
    sheet = tmp_path / "sheet.csv"
    assert cli("label", "export", "--cases", out, "--show-judge", "--judge", "rules", "--out", sheet)[0] == 0
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o600
    # A readable input keeps what the umask gives.
    public = _private(tmp_path, SAP / "records_v1.jsonl", "public.jsonl", 0o644)
    assert cli("import", public, "--out", tmp_path / "public_cases.jsonl")[0] == 0
    assert stat.S_IMODE((tmp_path / "public_cases.jsonl").stat().st_mode) == 0o644


def test_a_runs_folder_and_what_its_kernels_write_are_private(cli, tmp_path, monkeypatch, open_umask):
    monkeypatch.chdir(tmp_path)
    cases = _private(tmp_path, CASES, "cases.jsonl")
    folder = tmp_path / "nbs"
    _notebook(folder / "01-quick.ipynb", [
        ("code", 'cases: str = "cases.jsonl"  # the cases', ["parameters"]),
        ("code", 'import pathlib\npathlib.Path("figures").mkdir(exist_ok=True)\n'
                 'pathlib.Path("figures/made-by-the-kernel.txt").write_text(cases)', [])])
    code, _, err = cli("run", "--cases", cases, "--passages", NOTES, "--notebooks", folder, "--out", "out")
    assert code == 0, err
    made = dict(_modes(tmp_path / "out"))
    assert len(made) >= 4  # the folder, the executed notebook, its HTML copy, run.json
    made.update(_modes(tmp_path / "figures"))  # the kernel runs in the folder the command ran in
    assert (tmp_path / "figures" / "made-by-the-kernel.txt") in made
    for path, mode in made.items():
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


def test_the_llm_cache_is_as_private_as_the_cases(cli, messages_stub, tmp_path, open_umask):  # noqa: F811
    cases = _private(tmp_path, CASES, "cases.jsonl")
    code, _, err = cli("score", "--cases", cases, "--passages", NOTES, "--judge", "llm")
    assert code == 0, err
    entries = list((tmp_path / ".groundlab" / "cache").rglob("*.json"))
    assert len(entries) == len(messages_stub.requests) == 10
    for path, mode in _modes(tmp_path / ".groundlab"):
        assert mode & 0o077 == 0, (path, oct(mode))
    assert json.loads(entries[0].read_text(encoding="utf-8"))["request"]["passages"]
