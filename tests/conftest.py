"""Shared fixtures: the sample set, its variants, and a way to run the command line in-process."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest

from groundlab import load_cases, sample_path
from groundlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
CASES = DATA / "grounded_cases.jsonl"
#: The same questions answered by a second configuration of the assistant.
CASES_B = DATA / "grounded_cases_b.jsonl"
NOTES = DATA / "notes.jsonl"

C06_ABSTAINS = "I can't find when the credit memo will arrive in the retrieved notes."


def _start_kernel_again_if_it_dies_at_start() -> None:
    """nbval starts each notebook's kernel over TCP on ports chosen free a moment before the kernel
    binds them; with two test workers another process can take one in between, and the kernel dies
    before it answers (it ran no cell). Start another then, as ``groundlab run`` does."""
    try:
        import nbval.kernel as nbval_kernel
    except ImportError:  # pragma: no cover - the notebooks are not collected without nbval
        return
    from groundlab.present.notebooks import started_again

    nbval_kernel.start_new_kernel = functools.partial(started_again, nbval_kernel.start_new_kernel)


_start_kernel_again_if_it_dies_at_start()


@pytest.fixture
def sample_cases():
    return load_cases(CASES, NOTES)


@pytest.fixture
def c06_abstains(tmp_path) -> Path:
    """The sample cases with c06 abstaining and unlabeled (a reference variant)."""
    out = tmp_path / "c06_abstains.jsonl"
    lines = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj["id"] == "c06":
            obj["answer"] = C06_ABSTAINS
            obj.pop("labels")
        lines.append(json.dumps(obj))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


class CLI:
    """Runs ``groundlab`` in-process and returns (exit code, stdout, stderr)."""

    def __init__(self, capsys):
        self.capsys = capsys

    def __call__(self, *argv: str):
        self.capsys.readouterr()
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *argv: str) -> dict:
        code, out, err = self(*argv, "--json")
        assert code == 0, err
        return json.loads(out)


@pytest.fixture
def cli(capsys):
    return CLI(capsys)


@pytest.fixture
def sample_args():
    return ("--cases", CASES, "--passages", NOTES)


#: A skip whose reason starts so is by design: what it needs is optional and not in the test
#: requirements (PyTorch, for the nli judge's PyTorch path).
OPTIONAL = "optional:"


def pytest_sessionfinish(session, exitstatus):
    """In CI every test runs: the test requirements bring what each needs, so a skipped test there
    means a missing install step, and fails the run (all but the skips marked optional)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len([r for r in reporter.stats.get("skipped", []) if OPTIONAL not in str(getattr(r, "longrepr", ""))]) \
        if reporter is not None else 0
    if os.environ.get("CI") and skipped and exitstatus == 0:
        reporter.write_line(f"{skipped} test(s) skipped in CI: install requirements-test.txt", red=True)
        session.exitstatus = 1
