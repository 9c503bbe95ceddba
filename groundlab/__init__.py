"""groundlab: measure how far a RAG assistant's answers stay within the passages it was given.

>>> from groundlab import load_cases, evaluate, sample_path, hallucination_rate
>>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
>>> str(hallucination_rate(ev.cases))
'6/10 = 60%'
"""

#: Where each public name lives: modules are imported when a name is first used, so that a command
#: that needs few of them (score keeping counts) starts without loading pandas and the rest.
_NAMES = {
    "Agreement": "metrics", "Case": "records", "Claim": "records", "ClaimSplitter": "claims",
    "DEFAULT_ABSTENTION_PHRASES": "claims", "DEFAULT_CITATION_PATTERN": "claims", "DEFAULT_JUDGE": "judges",
    "Evidence": "records", "GroundlabError": "records", 
    "InputError": "records", "Passage": "records", "Rate": "stats", "VERDICTS": "records", "Verdict": "records",
    "abstention_rate": "metrics", "accuracy_score": "metrics", "agreement": "metrics", "answers_needed": "stats",
    "citation_precision": "metrics", "citation_problems": "metrics", "citation_recall": "metrics",
    "citations_undecided": "metrics", "cohens_kappa": "metrics", "disagreements": "metrics",
    "faithfulness": "metrics", "false_abstention_rate": "metrics", "get_judge": "judges",
    "hallucination_rate": "metrics", "interval_half_width": "stats",
    "judge_names": "judges", "load_cases": "importers", "load_passages": "io", "outcomes": "metrics",
    "penalty_for_confidence": "metrics", "risk_weighted_score": "metrics", "sample_path": "io",
    "verdict_counts": "metrics", "wilson_interval": "stats",
}


from functools import wraps as _wraps  # noqa: E402


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'groundlab' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))


# Named like the module that holds them: imported at once, so the name is the function, not the module.
from .evaluate import Evaluation, split_cases  # noqa: E402
from .evaluate import evaluate as _evaluate  # noqa: E402
from .guard import GuardResult, guard, guard_outcomes  # noqa: E402
from .records import Case  # noqa: E402


@_wraps(_evaluate)
def evaluate(cases, *args, **kwargs):
    # Rows in another tool's columns are converted first, as load_cases converts them; the core's
    # evaluate reads groundlab's own format only, so that it never reaches up into the importers.
    if hasattr(cases, "columns") or (len(cases) and not isinstance(cases[0], Case)):
        from .importers import load_cases as _load

        cases = _load(cases)
    return _evaluate(cases, *args, **kwargs)


__version__ = "0.1.0"

__all__ = [
    "Agreement", "Case", "Claim", "ClaimSplitter", "DEFAULT_ABSTENTION_PHRASES",
    "DEFAULT_CITATION_PATTERN", "DEFAULT_JUDGE", "Evaluation", "Evidence", "GroundlabError",
    "InputError", "Passage", "Rate", "VERDICTS", "Verdict", "abstention_rate", "accuracy_score",
    "agreement", "answers_needed", "citation_precision", "citation_problems", "citation_recall",
    "citations_undecided", "cohens_kappa", "disagreements", "evaluate", "faithfulness",
    "false_abstention_rate", "get_judge", "guard", "GuardResult", "guard_outcomes", "hallucination_rate", "interval_half_width", "judge_names", "load_cases",
    "load_passages", "outcomes", "penalty_for_confidence", "risk_weighted_score", "sample_path",
    "split_cases", "verdict_counts", "wilson_interval",
]
