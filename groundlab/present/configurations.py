"""Two configurations' answers to the same questions, judged alike and compared in a notebook:
:func:`compare_files` (both files read and paired before anything is judged, each judged once
or taken from the run's shared result) and the tables of the comparison: every figure, the
comparison in words, the questions that changed, the cases on one side only, each side's
outcomes."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import pandas as pd

from ..core import formatting as fmt
from ..measure.evaluate import Evaluation
from ..core.io import PathLike, load_cases, sha256_file
from ..core.metrics import outcomes
from ..core.records import GroundlabError
from ..judges import DEFAULT_JUDGE
from .judged import judged_cases
from .report import code_span
from .tables import Sentences


@dataclass(repr=False)
class ConfigurationComparison:
    """Two configurations' cases judged alike and compared (:func:`compare_files`): the
    :class:`~groundlab.compare.Comparison` (``result``), both evaluations, and where the verdicts
    come from (``origin``). Shows itself in a notebook as what was compared, by which judge."""

    result: Any
    evaluations: tuple[Evaluation, Evaluation]
    origin: str = ""
    #: What the two files are, when groundlab knows them (its sample set and second configuration);
    #: empty for any other files, of which it says only what it read.
    about: str = ""

    @property
    def names(self) -> tuple[str, str]:
        return self.result.names

    def _repr_markdown_(self) -> str:
        from ..core.identity import identity_line
        from .report import markdown_text

        r = self.result
        sides = [f"**{markdown_text(name)}** {code_span(source)} ({count} cases)"
                 for name, source, count in zip(r.names, r.sources, r.cases)]
        judge = self.evaluations[0].judge
        lines = [f"{sides[0]} against {sides[1]}: {len(r.pairing.pairs)} questions paired by {r.pairing.by}, "
                 f"both judged by {code_span(judge)}." + (f" {markdown_text(self.origin)}" if self.origin else ""),
                 "", f"These figures come from {identity_line(r.judge_identity)}.", ""]
        if self.about:
            lines[1:1] = ["", markdown_text(self.about)]
        one_sided = r.one_sided()
        lines += [f"- {markdown_text(s)}" for s in one_sided] or ["Every case has its pair on the other side."]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("`", "").replace("*", "")


def compare_files(cases: PathLike, cases_b: PathLike, passages: Optional[PathLike] = "", judge: str = DEFAULT_JUDGE, *,
                  passages_b: Optional[PathLike] = "", pair_by: str = "id", names: Sequence[str] = ("A", "B"),
                  judged_file: PathLike = "", judged_file_b: PathLike = "", citation_pattern: Optional[str] = "",
                  abstention_phrases: Sequence[str] = (),
                  judge_config: Optional[PathLike] = None, default_citations: bool = True,
                  policy: Optional[PathLike] = "", mask: bool = False,
                  mask_names: Sequence[str] = (), provider: Optional[str] = "",
                  language: str = "auto") -> ConfigurationComparison:
    """Compare two configurations' answers to the same questions (:func:`groundlab.compare.compare`),
    both judged by ``judge``: from the run's shared results when ``judged_file`` (A's) and
    ``judged_file_b`` (B's) are given, else judged here. ``passages_b``: B's passages when they are
    another file than A's (empty: ``passages``). ``judge_config``: the signals judge's weights from
    ``groundlab calibrate``, for both sides alike (as in :func:`judged_cases`); ``provider``, where
    the llm judge's requests go, likewise.

    Both files are read and paired before anything is judged, so a file that cannot be compared
    stops with one sentence.
    """
    from ..measure.compare import compare, pair_cases

    if not str(cases_b or "").strip():
        raise GroundlabError("cases_b is empty: there is no second configuration to compare with; give its "
                             "cases file (groundlab run --cases-b FILE).")
    names = check_names(names)
    passages = passages or None
    passages_b = passages_b or passages
    a_cases = load_cases(cases, passages)
    b_cases = load_cases(cases_b, passages_b)
    pair_cases(a_cases, b_cases, pair_by, names)
    if policy is not None and str(policy).strip():  # both sides placed before either is judged
        from ..measure.policy import load_policy

        loaded = load_policy(policy)
        loaded.check_cases(a_cases)
        loaded.check_cases(b_cases)
    settings = {"citation_pattern": citation_pattern, "abstention_phrases": abstention_phrases,
                "judge_config": judge_config, "default_citations": default_citations, "policy": policy,
                "mask": mask, "mask_names": mask_names, "provider": provider, "language": language}
    ev_a = judged_cases(cases, passages, [judge], judged_file=judged_file, loaded=a_cases, **settings).get(judge)
    ev_b = judged_cases(cases_b, passages_b, [judge], judged_file=judged_file_b, loaded=b_cases, **settings).get(judge)
    result = compare(a_cases, b_cases, pair_by=pair_by, names=names, evaluations=(ev_a, ev_b),
                     sources=(str(cases), str(cases_b)))
    shared = str(judged_file).strip() and str(judged_file_b).strip()
    origin = "Verdicts from the run's shared results, each file judged once." if shared else ""
    return ConfigurationComparison(result, (ev_a, ev_b), origin, _about(cases, cases_b))


#: What the sample set and its second configuration are, said only when they are what was compared.
SAMPLE_PAIR = ("These are groundlab's sample set (A) and its second configuration (B): the same twelve questions "
               "answered by a revised assistant that declines more often, fixes some answers and breaks others.")


def _about(cases: PathLike, cases_b: PathLike) -> str:
    """:data:`SAMPLE_PAIR` when the two files hold the sample set and its second configuration
    (by content, wherever they lie), else nothing: of other files only what was read is said."""
    from ..core.io import sample_path

    try:
        for given, name in ((cases, "grounded_cases.jsonl"), (cases_b, "grounded_cases_b.jsonl")):
            sample = sample_path(name)
            # the size first: a large log is never read a second time to learn it is not the sample
            if os.path.getsize(given) != os.path.getsize(sample) or sha256_file(given) != sha256_file(sample):
                return ""
    except (OSError, TypeError, ValueError):  # a pipe, a frame: not the sample files
        return ""
    return SAMPLE_PAIR


def check_names(names: Sequence[str], label: str = "names") -> tuple[str, str]:
    """The two configurations' names, or one sentence saying why they cannot be."""
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",")]
    names = [str(n).strip() for n in names]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise GroundlabError(f"{label} must be two different names, like A,B or \"old prompt\",\"new prompt\", "
                             f"not {names!r}.")
    return names[0], names[1]


def comparison_table(compared: ConfigurationComparison) -> pd.DataFrame:
    """Every figure of the comparison, one row per measure: each side's rate with its count and
    Wilson 95% range, the difference in points with its paired 95% range, the test, the verdict,
    the pairs it rests on and what was left out."""
    from ..measure.paired import LABELS, NEWCOMBE, left_out_words, p_text, points

    a, b = compared.names
    rows = []
    for name, m in compared.result.measures.items():
        if m.table is not None:
            pairs = f"{m.units}: {a} alone {m.table['a_only']}, {b} alone {m.table['b_only']}"
        else:
            pairs = f"{m.details['claims']['a']} and {m.details['claims']['b']} claims in {m.units} questions"
        defined = m.defined
        rows.append({
            "measure": LABELS[name], a: m.a.with_range(), b: m.b.with_range(),
            f"{b} \u2212 {a} (points)": points(m.difference) if defined else "n/a",
            "95% range": f"{points(m.low)} to {points(m.high)}" if defined else "n/a",
            "test": (f"{'McNemar exact' if m.method == NEWCOMBE else 'clustered t'}, {p_text(m.p_value)}"
                     if defined else "none"),
            "verdict": m.verdict, "pairs": pairs, "left out": left_out_words(m.left_out) or "none"})
    return pd.DataFrame(rows)


def comparison_sentences(compared: ConfigurationComparison) -> Sentences:
    """The comparison in plain words: each measure's sentence with what it left out, then the
    cases found on one side only, and how to read the ranges."""
    r = compared.result
    return Sentences(r.explained() + [(s, []) for s in r.one_sided()], r.reading())


#: How good an outcome is, to say whether a question went better or worse.
_OUTCOME_RANK = {"wrong": 0, "abstained": 1, "correct": 2}


def changed_questions(compared: ConfigurationComparison) -> pd.DataFrame:
    """The paired questions on which the two sides differ (another outcome, or another count of
    claims the judge could not back), question by question: each side's outcome and flagged
    claims, and whether the second side did better or worse."""
    a, b = compared.names
    frames = [ev.cases.set_index("case_id") for ev in compared.evaluations]
    rows = []
    for ia, ib in compared.result.pairing.pairs:
        ra, rb = frames[0].loc[ia], frames[1].loc[ib]
        flagged = [int(r["contradicted"] + r["unsupported"]) for r in (ra, rb)]
        if ra["outcome"] == rb["outcome"] and flagged[0] == flagged[1]:
            continue
        move = _OUTCOME_RANK.get(rb["outcome"], 1) - _OUTCOME_RANK.get(ra["outcome"], 1)
        rows.append({"case": ia if ia == ib else f"{ia} / {ib}", "question": ra["question"],
                     a: ra["outcome"], b: rb["outcome"],
                     f"{a}: claims not backed": f"{flagged[0]} of {int(ra['claims'])}",
                     f"{b}: claims not backed": f"{flagged[1]} of {int(rb['claims'])}",
                     f"for {b}": "better" if move > 0 else "worse" if move < 0 else "same outcome"})
    columns = ["case", "question", a, b, f"{a}: claims not backed", f"{b}: claims not backed", f"for {b}"]
    return pd.DataFrame(rows, columns=columns)


def one_sided_table(compared: ConfigurationComparison) -> pd.DataFrame:
    """The cases found on one side only, left out of every measure: ``side``, ``case_id``, ``question``."""
    rows = []
    for name, ids, ev in zip(compared.names, (compared.result.pairing.only_a, compared.result.pairing.only_b),
                             compared.evaluations):
        questions = ev.cases.set_index("case_id")["question"]
        rows += [{"side": name, "case_id": cid, "question": questions.get(cid, "")} for cid in ids]
    return pd.DataFrame(rows, columns=["side", "case_id", "question"])


def comparison_outcomes(compared: ConfigurationComparison, penalty: float = 1.0) -> pd.DataFrame:
    """Each side's outcomes over the paired questions, as the judge sees them, and its risk-weighted
    score at ``penalty`` (a wrong answer costs ``penalty`` correct ones; declining scores 0)."""
    rows = []
    pairs = compared.result.pairing.pairs
    for k, (name, ev) in enumerate(zip(compared.names, compared.evaluations)):
        ids = [pair[k] for pair in pairs]
        counts = outcomes(ev.cases[ev.cases["case_id"].isin(ids)])
        score = float(counts["correct"] - penalty * counts["wrong"])
        rows.append({"configuration": name, "questions": len(ids), "right": counts["correct"],
                     "declined": counts["abstained"], "wrong": counts["wrong"],
                     f"score per 100 answers at penalty {fmt.weight(penalty)}":
                         round(fmt.score_per_100(score, len(ids))) if ids else math.nan})
    return pd.DataFrame(rows)
