"""groundlab: measure how far a RAG assistant's answers stay within the passages it was given.

>>> from groundlab import load_cases, evaluate, sample_path, hallucination_rate
>>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
>>> str(hallucination_rate(ev.cases))
'6/10 = 60%'
"""

from .claims import ClaimSplitter, DEFAULT_ABSTENTION_PHRASES, DEFAULT_CITATION_PATTERN
from .evaluate import Evaluation, evaluate, split_cases
from .io import load_cases, load_passages, sample_path
from .guard import GuardResult, guard, guard_outcomes
from .judges import DEFAULT_JUDGE, get_judge, judge_names
from .metrics import (
    Agreement,
    abstention_rate,
    accuracy_score,
    agreement,
    citation_precision,
    citation_problems,
    citation_recall,
    citations_undecided,
    cohens_kappa,
    disagreements,
    faithfulness,
    false_abstention_rate,
    hallucination_rate,
    outcomes,
    penalty_for_confidence,
    risk_weighted_score,
    verdict_counts,
)
from .records import VERDICTS, Case, Claim, Evidence, GroundlabError, InputError, Passage, Verdict
from .stats import Rate, answers_needed, interval_half_width, wilson_interval

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
