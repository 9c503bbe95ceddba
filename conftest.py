"""Test-session setup shared by every folder: kernels started by the tests (nbval, papermill)
import this checkout's groundlab, whatever copy is installed."""

import os
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent)

# The notebooks shipped inside the package are copies of notebooks/, which nbval runs;
# tests/test_notebooks.py checks that the copies match.
collect_ignore = ["groundlab/data"]


def pytest_configure(config):
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != ROOT]
    os.environ["PYTHONPATH"] = os.pathsep.join([ROOT] + parts)
