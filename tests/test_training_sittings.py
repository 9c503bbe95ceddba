"""A training sitting of bench/train_entail.py stops when asked (SIGTERM, Ctrl-C) as when its
budget runs out: after the step under way, with a checkpoint the next sitting resumes from."""

from __future__ import annotations

import os
import signal
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from train_entail import Budget  # noqa: E402


def test_a_stop_signal_spends_the_budget_and_names_itself():
    budget = Budget(None)  # no time limit
    assert not budget.spent() and budget.stopped is None
    previous = signal.signal(signal.SIGTERM, budget.stop)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert budget.spent() and budget.stopped == "SIGTERM"


def test_a_budget_runs_out_on_time():
    assert Budget(1e-9).spent() and not Budget(3600).spent()
