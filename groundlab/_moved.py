"""The module paths groundlab had before its packages named their layers, kept working.

``import groundlab.workbook``, ``from groundlab.io import load_passages`` and a pickle that names
``groundlab.workbook.JudgeComparison`` find the module where it lives now
(``groundlab.present.workbook``): the very same module object, so a name set on one is set on
the other. So do the paths of the modules that ran judges from ``core`` before the measuring layer
had its own folder (``groundlab.core.counts`` is ``groundlab.measure.counts``). docs/architecture.md
lists each old path and its new home.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

#: Each module that moved: its old name under ``groundlab`` and where it lives now. A module that moved
#: twice (``groundlab.counts``, then ``groundlab.core.counts``) has both its old names here.
MOVED = {
    "_gc": "core._gc", "cards": "present.cards", "claims": "core.claims", "compare": "measure.compare",
    "compare_plots": "present.compare_plots", "core.compare": "measure.compare", "core.counts": "measure.counts",
    "core.evaluate": "measure.evaluate", "core.figures": "measure.figures", "core.judge_diff": "measure.judge_diff",
    "core.paired": "measure.paired", "core.policy": "measure.policy", "core.summary": "measure.summary",
    "counts": "measure.counts", "evaluate": "measure.evaluate", "formatting": "core.formatting",
    "frames": "core.frames", "gate": "production.gate", "guard": "production.guard", "identity": "core.identity",
    "incidents": "production.incidents", "io": "core.io", "kinds": "core.kinds", "masking": "core.masking",
    "metrics": "core.metrics", "notebooks": "present.notebooks", "numbers": "core.numbers",
    "outputs": "core.outputs", "parallel": "core.parallel", "plots": "present.plots", "policy": "measure.policy",
    "records": "core.records", "report": "present.report", "sampling": "labeling.sampling",
    "slides": "present.slides", "stats": "core.stats", "summary": "measure.summary",
    "targets": "production.targets", "testing": "production.testing", "workbook": "present.workbook",
}


class _Loader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # The module ran where it lives; the import system gave it the old path's spec, so it gets
        # its own back (its relative imports and its name stay those of its new home).
        module.__spec__ = self.spec


class _OldPaths(importlib.abc.MetaPathFinder):
    """Finds ``groundlab.<old name>`` of :data:`MOVED` (``groundlab.io``, ``groundlab.core.counts``) as
    the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        if package != "groundlab" or name not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(f"groundlab.{MOVED[name]}"))


def install() -> None:
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())  # before any other finder, an editable install's among them


def alias(name: str) -> None:
    """Name an already imported module by its old path too (``groundlab.evaluate``), so that
    importing the old path later never rebinds the attribute of that name on the package."""
    sys.modules.setdefault(f"groundlab.{name}", sys.modules[f"groundlab.{MOVED[name]}"])
