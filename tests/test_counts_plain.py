"""A run keeping counts works its figures out in plain Python: the corrected rate to the last bit
of the pandas computation, the case ids' fingerprints sorted as NumPy sorts them."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from array import array

import pandas as pd

from conftest import CASES, NOTES, ROOT

from groundlab.measure import counts as counts_module
from groundlab.measure.counts import Counts
from groundlab.core.weighted import weighted_rate_of_counts


def test_a_labeled_run_keeping_counts_imports_neither_pandas_nor_numpy(tmp_path):
    """The corrected rate of a labeled run is worked out from counts in plain Python, and the case
    ids of a run this size are compared without NumPy: importing them took a quarter of a
    5,000-case run."""
    code = ("import sys, io, contextlib; from groundlab.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    code = main(['score', '--json', '--workers', '1', '--cases', {str(CASES)!r}, '--passages', "
            f"{str(NOTES)!r}])\n"
            "figures = __import__('json').loads(out.getvalue())\n"
            "print(code, figures['hallucination_rate_corrected']['rate'], "
            "sorted(m for m in ('pandas', 'numpy', 'scipy', 'statsmodels') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    code, rate, modules = run.stdout.split(maxsplit=2)
    assert code == "0" and float(rate) > 0
    assert modules.strip() == "[]"


def _pandas_weighted(strata):
    """The weighted rate as the pandas version of weighted_rate_of_counts worked it out."""
    from groundlab.core.stats import wilson_interval

    total = sum(size for _, size, _, _ in strata)
    rows = [{"stratum": h, "population": size, "labeled": n, "count": x, "rate": x / n, "share": size / total}
            for h, size, n, x in strata]
    by = pd.DataFrame(rows, columns=["stratum", "population", "labeled", "count", "rate", "share"])
    rate = float((by["share"] * by["rate"]).sum())
    labeled = int(by["labeled"].sum())
    smoothed = (by["count"] + 0.5) / (by["labeled"] + 1)
    var = float((by["share"] ** 2 * smoothed * (1 - smoothed) / by["labeled"]
                 * (1 - by["labeled"] / by["population"])).sum())
    center = float((by["share"] * smoothed).sum())
    thinnest = float((by["labeled"] / by["share"]).min())
    effective = min(float(labeled), thinnest, center * (1 - center) / var if var > 0 else math.inf)
    low, high = wilson_interval(rate * effective, effective)
    return rate, float(low), float(high), labeled, total, float(effective), by


def test_the_weighted_rate_of_counts_is_the_pandas_computation_to_the_last_bit():
    rng = random.Random(7)
    for trial in range(400):
        k = rng.choice((1, 2, 3, 4, 5, 9, 12, 40, 150))
        strata = []
        for h in range(k):
            size = rng.randint(1, 10 ** rng.randint(1, 7))
            n = rng.randint(1, size)
            strata.append((f"s{h}", size, n, rng.randint(0, n)))
        got = weighted_rate_of_counts(strata)
        rate, low, high, labeled, total, effective, by = _pandas_weighted(strata)
        assert (got.rate, got.low, got.high, got.labeled, got.population, got.effective_n) == \
               (rate, low, high, labeled, total, effective), strata
        if trial % 40 == 0:
            pd.testing.assert_frame_equal(got.by_stratum, by)


def test_fingerprints_sorted_in_python_are_sorted_and_counted_as_numpy_does(monkeypatch):
    rng = random.Random(3)
    for _ in range(200):
        values = [rng.getrandbits(64) if rng.random() < 0.6 else rng.choice((0, 5, 2 ** 64 - 1))
                  for _ in range(rng.randint(2, 2000))]
        python, numpy = Counts(), Counts()
        python.fingerprints, numpy.fingerprints = array("Q", values), array("Q", values)
        found = python.repeated()
        monkeypatch.setattr(counts_module, "SORTED_IN_PYTHON", 0)
        assert numpy.repeated() == found and python.fingerprints == numpy.fingerprints
        monkeypatch.undo()


def test_only_the_program_leaves_the_collector_off_after_counting(cli):
    """The ``groundlab`` program ends with its command, so score keeping counts leaves the garbage
    collector off to the end; a notebook or test that runs a command in its own process keeps it."""
    import gc

    assert gc.isenabled()
    code, _, err = cli("score", "--cases", CASES, "--passages", NOTES, "--json")
    assert code == 0, err
    assert gc.isenabled()
    code = ("import gc, sys; from groundlab.cli import entry\n"
            f"sys.argv = ['groundlab', 'score', '--cases', {str(CASES)!r}, '--passages', {str(NOTES)!r}, '--json']\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = entry()\n"
            "print(status, gc.isenabled())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.stdout.split() == ["0", "False"], run.stderr
