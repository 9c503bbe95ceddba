"""Judges decide whether a claim is supported by, contradicted by, or unsupported by its evidence.

A judge has a ``name``, a ``version`` and ``judge_batch(pairs) -> list[Verdict]`` that keeps the
order and length of its input; each pair is ``(claim_text, Evidence)``. One that sets
``explains_on_request`` also takes ``judge_batch(pairs, explain=False)``: the labels, scores and
errors alone, for a run that only counts. Judges are looked up by
name with :func:`get_judge`; their modules are imported only when asked for, so the optional
model judges cost nothing until used.

May import: :mod:`groundlab.core` (records, claims, numbers, stats, io, metrics, weighted rates)
and the standard library; never :mod:`groundlab.measure` (which runs the judges) or anything above it.
"""

from __future__ import annotations

import importlib
from typing import Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from ..core.records import Evidence, GroundlabError, Verdict

Pair = Tuple[str, Evidence]


@runtime_checkable
class Judge(Protocol):
    name: str
    version: str

    def judge_batch(self, pairs: Sequence[Pair]) -> List[Verdict]:
        """One verdict per ``(claim_text, evidence)`` pair, in the same order."""
        ...


#: name -> (module, class, one-line description). Imported lazily by :func:`get_judge`.
_REGISTRY: Dict[str, Tuple[str, str, str]] = {
    "lexical": ("groundlab.judges.rules", "LexicalJudge",
                "numbers and content-word coverage (free, offline)"),
    "rules": ("groundlab.judges.rules", "RulesJudge",
              "lexical plus a negation check (free, offline; the reference method)"),
    "signals": ("groundlab.judges.signals", "SignalsJudge",
                "numbers, scoped negation, word forms and word pairs weighed by a fitted model (free, offline)"),
    "entail": ("groundlab.judges.entail", "EntailJudge",
               "an entailment cross-encoder trained for this task, shipped with groundlab (free, offline, onnxruntime)"),
    "combined": ("groundlab.judges.combined", "CombinedJudge",
                 "signals and entail weighed together by a fitted model, the rules of signals first (free, offline, "
                 "onnxruntime)"),
    "llm": ("groundlab.judges.llm", "LLMJudge",
            "a Claude model through the Anthropic API, one request per answered case (needs ANTHROPIC_API_KEY)"),
    "nli": ("groundlab.judges.nli", "NLIJudge",
            "a local NLI or HHEM model on CPU (needs groundlab[nli] and the model on disk)"),
    "cascade": ("groundlab.judges.cascade", "CascadeJudge",
                "--first on every claim, --then on the answers it flags and an --audit share of the rest"),
}

DEFAULT_JUDGE = "signals"


def register(name: str, module: str, cls: str, description: str) -> None:
    """Make a judge class available to :func:`get_judge` under ``name``."""
    _REGISTRY[name] = (module, cls, description)


def judge_names() -> List[str]:
    """The names :func:`get_judge` knows, in registration order."""
    return list(_REGISTRY)


def describe_judges() -> Dict[str, str]:
    return {name: entry[2] for name, entry in _REGISTRY.items()}


def nothing_judged(judge_name: str, errors: Sequence[Optional[str]],
                   instead: str = "use --judge rules") -> Optional[str]:
    """The sentence to stop on when a judge gave every claim an error (``None`` otherwise): such a
    run has no rate to report, and a table of n/a would hide why."""
    if not errors or any(error is None for error in errors):
        return None
    return (f"the {judge_name} judge could not judge any of the {len(errors)} claims (the first: {errors[0]}); "
            "nothing was written: fix that and run again (cached replies are kept, failed requests are asked "
            f"again), or {instead}.")


def get_judge(name: str = DEFAULT_JUDGE, **options) -> Judge:
    """A judge by name; an unknown name raises an error listing the known ones.

    >>> get_judge("rules").name
    'rules'
    """
    if isinstance(name, Judge) and not isinstance(name, str):
        return name
    entry = _REGISTRY.get(name)
    if entry is None:
        raise GroundlabError(f"there is no judge called {name!r}; use one of: {', '.join(_REGISTRY)}.")
    module, cls, _ = entry
    return getattr(importlib.import_module(module), cls)(**options)


__all__ = ["Judge", "Pair", "DEFAULT_JUDGE", "get_judge", "judge_names", "describe_judges", "nothing_judged",
           "register"]
