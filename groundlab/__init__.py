"""groundlab: measure how far a RAG assistant's answers stay within the passages it was given.

This module is the public API, above every layer of the package (docs/architecture.md): it may
import any of them, and none of them imports it.

>>> from groundlab import load_cases, evaluate, sample_path, hallucination_rate
>>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
>>> str(hallucination_rate(ev.cases))
'6/10 = 60%'
"""

#: Where each public name lives: modules are imported when a name is first used, so that a command
#: that needs few of them (score keeping counts) starts without loading pandas and the rest.
_NAMES = {
    "Agreement": "core.metrics", "Case": "core.records", "Claim": "core.records", "ClaimSplitter": "core.claims",
    "DEFAULT_ABSTENTION_PHRASES": "core.claims", "DEFAULT_CITATION_PATTERN": "core.claims", "DEFAULT_JUDGE": "judges",
    "Evidence": "core.records", "GroundlabError": "core.records", "InputError": "core.records",
    "Passage": "core.records", "Rate": "core.stats", "VERDICTS": "core.records", "Verdict": "core.records",
    "abstention_rate": "core.metrics", "accuracy_score": "core.metrics", "agreement": "core.metrics",
    "answers_needed": "core.stats", "citation_precision": "core.metrics", "citation_problems": "core.metrics",
    "citation_recall": "core.metrics", "citations_undecided": "core.metrics", "cohens_kappa": "core.metrics",
    "disagreements": "core.metrics", "faithfulness": "core.metrics", "false_abstention_rate": "core.metrics",
    "get_judge": "judges", "hallucination_rate": "core.metrics", "interval_half_width": "core.stats",
    "judge_names": "judges", "load_cases": "importers", "load_passages": "core.io", "make_judge": "measure.policy",
    "outcomes": "core.metrics",
    "penalty_for_confidence": "core.metrics", "risk_weighted_score": "core.metrics", "sample_path": "core.io",
    "verdict_counts": "core.metrics", "wilson_interval": "core.stats",
}


from functools import wraps as _wraps  # noqa: E402

from . import _moved  # noqa: E402

_moved.install()  # the old module paths (groundlab.workbook, groundlab.io, ...) find their new homes


def __getattr__(name: str):
    import importlib

    if name in _moved.MOVED:  # a module by its old path (gl.metrics, gl.workbook), as it always was
        return importlib.import_module(f"{__name__}.{name}")
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'groundlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))


# Named like the module that holds them: imported at once, so the name is the function, not the module.
from .measure.evaluate import Evaluation, split_cases  # noqa: E402
from .measure.evaluate import evaluate as _evaluate  # noqa: E402
from .production.guard import GuardResult, guard, guard_outcomes  # noqa: E402
from .core.records import Case  # noqa: E402


@_wraps(_evaluate)
def evaluate(cases, *args, **kwargs):
    # Rows in another tool's columns are converted first, as load_cases converts them; the core's
    # evaluate reads groundlab's own format only, so that it never reaches up into the importers.
    if hasattr(cases, "columns") or (len(cases) and not isinstance(cases[0], Case)):
        from .importers import load_cases as _load

        cases = _load(cases)
    return _evaluate(cases, *args, **kwargs)


from .core import __version__  # noqa: E402

_moved.alias("evaluate")  # the attributes groundlab.evaluate and groundlab.guard are the functions
_moved.alias("guard")

__all__ = [
    "Agreement", "Case", "Claim", "ClaimSplitter", "DEFAULT_ABSTENTION_PHRASES",
    "DEFAULT_CITATION_PATTERN", "DEFAULT_JUDGE", "Evaluation", "Evidence", "GroundlabError",
    "InputError", "Passage", "Rate", "VERDICTS", "Verdict", "abstention_rate", "accuracy_score",
    "agreement", "answers_needed", "citation_precision", "citation_problems", "citation_recall",
    "citations_undecided", "cohens_kappa", "disagreements", "evaluate", "faithfulness",
    "false_abstention_rate", "get_judge", "guard", "GuardResult", "guard_outcomes", "hallucination_rate", "interval_half_width", "judge_names", "load_cases",
    "load_passages", "make_judge", "outcomes", "penalty_for_confidence", "risk_weighted_score", "sample_path",
    "split_cases", "verdict_counts", "wilson_interval",
]
