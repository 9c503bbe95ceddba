"""Judge every claim of every case and lay the results out as tidy pandas DataFrames.

The pipeline has three named steps, as in Ragas faithfulness:

1. **claims** — each answer is split into claims and abstention sentences (:mod:`groundlab.claims`);
2. **verdicts** — each claim is judged against the question and *all* retrieved passages, and,
   for the ALCE citation checks, against the question and its *cited* passages (SPEC §4);
3. **frames** — one row per claim (:attr:`Evaluation.claims`) and one per case
   (:attr:`Evaluation.cases`), from which :mod:`groundlab.metrics` computes every measure.

Judges that say which passages back a claim (``Verdict.supported_by``) answer the citation
checks from that, with no further judgements.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from .claims import ClaimSplitter, Split
from .judges import Judge, Pair, get_judge
from .records import Case, Evidence, InputError, Verdict

#: Cases judged per step. Keeps the passages of a chunk warm in the judge's caches between the
#: all-evidence and cited-evidence steps, and paces the progress bar.
CHUNK = 2000


@dataclass
class Evaluation:
    """The judged claims and cases of one run.

    ``claims``: one row per claim — ``case_id``, ``claim`` (1-based), ``text``, ``cites``,
    ``verdict`` (``None`` when the judge failed), ``reason``, ``score``, ``error``, ``label``
    (the person's, if any), ``citation_ok`` (its cited passages alone back it, ALCE recall),
    ``citations`` and ``relevant_citations`` (ALCE precision).

    ``cases``: one row per case — ``case_id``, ``question``, ``answerable``, ``labeled``,
    ``abstains`` (holds an abstention sentence), ``abstained`` (outcome), ``claims``, the counts
    per verdict and ``errors``, ``hallucinated`` (by the judge), ``hallucinated_by_person``,
    ``outcome`` (``correct`` / ``abstained`` / ``wrong``, or ``None`` when judge errors leave it
    open).
    """

    judge: str
    claims: pd.DataFrame
    cases: pd.DataFrame


def split_cases(cases: Sequence[Case], splitter: Optional[ClaimSplitter] = None) -> List[Split]:
    """Split every answer; a case whose labels do not match its claims is an input error."""
    splitter = splitter or ClaimSplitter()
    splits = []
    for case in cases:
        split = splitter.split(case.id, case.answer)
        if case.labels is not None and len(case.labels) != len(split.claims):
            found = "; ".join(f"({c.number}) \"{c.text}\"" for c in split.claims) or "none"
            raise InputError(
                f"{case.where}: {len(case.labels)} label(s) for {len(split.claims)} claim(s) found "
                f"[{found}]; give one label per claim, in order."
            )
        splits.append(split)
    return splits


def evaluate(
    cases: Sequence[Case],
    judge: Union[str, Judge] = "rules",
    *,
    splitter: Optional[ClaimSplitter] = None,
    progress: Union[bool, Callable[[int], None]] = False,
) -> Evaluation:
    """Judge every claim of ``cases`` and return the claim and case frames.

    >>> from groundlab import load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> ev.claims.verdict.value_counts().to_dict()
    {'supported': 13, 'unsupported': 4, 'contradicted': 3}
    """
    judge = get_judge(judge) if isinstance(judge, str) else judge
    splits = split_cases(cases, splitter)

    cols: Dict[str, list] = {k: [] for k in (
        "case_id", "claim", "text", "cites", "verdict", "reason", "score", "error", "label",
        "citation_ok", "citations", "relevant_citations")}
    bar = _progress(progress, len(cases))
    for start in range(0, len(cases), CHUNK):
        chunk = list(zip(cases[start:start + CHUNK], splits[start:start + CHUNK]))
        _judge_chunk(judge, chunk, cols)
        bar(len(chunk))
    bar(None)

    claims = pd.DataFrame(cols)
    claims["citation_ok"] = claims["citation_ok"].astype("boolean")
    return Evaluation(judge.name, claims, _case_frame(cases, splits, claims))


def _judge_chunk(judge: Judge, chunk: List[Tuple[Case, Split]], cols: Dict[str, list]) -> None:
    # Step 2a: every claim against all retrieved passages.
    pairs: List[Pair] = []
    for case, split in chunk:
        evidence = Evidence(case.question, case.retrieved)
        pairs.extend((claim.text, evidence) for claim in split.claims)
    verdicts = judge.judge_batch(pairs)
    _check_length(judge, pairs, verdicts)

    # Step 2b: claims with citations against their cited passages alone (ALCE recall),
    # unless the judge already said which passages back each claim.
    cited_pairs: List[Pair] = []
    plan: List[Tuple[int, object]] = []  # per claim: where its cited-evidence verdict comes from
    i = 0
    for case, split in chunk:
        by_id = {p.id: p for p in case.retrieved}
        for claim in split.claims:
            verdict = verdicts[i]
            if not claim.cites or verdict.supported_by is not None:
                plan.append((i, None))
            else:
                cited = tuple(by_id[c] for c in claim.cites if c in by_id)
                if not cited:
                    plan.append((i, False))  # cites only passages it was not given
                elif cited == case.retrieved:
                    plan.append((i, verdict))  # same evidence, same judgement
                else:
                    plan.append((i, len(cited_pairs)))
                    cited_pairs.append((claim.text, Evidence(case.question, cited)))
            i += 1
    cited_verdicts = judge.judge_batch(cited_pairs) if cited_pairs else []
    _check_length(judge, cited_pairs, cited_verdicts)

    # Step 2c: ALCE precision for claims with several citations that pass recall: a citation is
    # relevant when it backs the claim alone, or the other citations without it do not.
    backed: List[Optional[bool]] = []
    precision_pairs: List[Pair] = []
    precision_plan: Dict[int, List[Tuple[int, int]]] = {}
    i = 0
    for case, split in chunk:
        by_id = {p.id: p for p in case.retrieved}
        for claim in split.claims:
            verdict = verdicts[i]
            source = plan[i][1]
            if not claim.cites:
                ok: Optional[bool] = False
            elif verdict.supported_by is not None:
                ok = verdict.label == "supported" and bool(verdict.supported_by) and \
                    set(verdict.supported_by) <= set(claim.cites)
            elif source is False:
                ok = False
            else:
                cited_verdict = source if isinstance(source, Verdict) else cited_verdicts[source]
                ok = None if cited_verdict.error else cited_verdict.label == "supported"
                if ok and len(claim.cites) > 1:
                    jobs = []
                    for cite in claim.cites:
                        if cite not in by_id:
                            jobs.append((-1, -1))
                            continue
                        others = tuple(by_id[c] for c in claim.cites if c != cite and c in by_id)
                        jobs.append((len(precision_pairs), len(precision_pairs) + 1))
                        precision_pairs.append((claim.text, Evidence(case.question, (by_id[cite],))))
                        precision_pairs.append((claim.text, Evidence(case.question, others)))
                    precision_plan[i] = jobs
            backed.append(ok)
            i += 1
    precision_verdicts = judge.judge_batch(precision_pairs) if precision_pairs else []
    _check_length(judge, precision_pairs, precision_verdicts)

    # Step 3 (rows): one per claim.
    i = 0
    for case, split in chunk:
        labels = case.labels
        for claim in split.claims:
            verdict = verdicts[i]
            ok = backed[i]
            if not ok:
                relevant = 0
            elif verdict.supported_by is not None:
                relevant = sum(1 for c in claim.cites if c in verdict.supported_by)
            elif i in precision_plan:
                relevant = 0
                for alone, without in precision_plan[i]:
                    if alone < 0:
                        continue
                    if precision_verdicts[alone].label == "supported" or \
                            precision_verdicts[without].label != "supported":
                        relevant += 1
            else:
                relevant = 1  # its one citation backs it alone
            cols["case_id"].append(case.id)
            cols["claim"].append(claim.number)
            cols["text"].append(claim.text)
            cols["cites"].append(claim.cites)
            cols["verdict"].append(verdict.label)
            cols["reason"].append(verdict.reason)
            cols["score"].append(verdict.score)
            cols["error"].append(verdict.error)
            cols["label"].append(labels[claim.number - 1] if labels is not None else None)
            cols["citation_ok"].append(ok)
            cols["citations"].append(len(claim.cites))
            cols["relevant_citations"].append(relevant)
            i += 1


def _check_length(judge: Judge, pairs: Sequence, verdicts: Sequence) -> None:
    if len(verdicts) != len(pairs):
        raise RuntimeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(pairs)} claims; "
                           "a judge must return one verdict per claim, in order")


def _case_frame(cases: Sequence[Case], splits: Sequence[Split], claims: pd.DataFrame) -> pd.DataFrame:
    n = len(cases)
    counts = {k: [0] * n for k in ("supported", "contradicted", "unsupported", "errors")}
    person_flag: List[Optional[bool]] = [None] * n
    position = {case.id: k for k, case in enumerate(cases)}
    for case_id, verdict in zip(claims["case_id"], claims["verdict"]):
        counts[verdict if verdict is not None else "errors"][position[case_id]] += 1

    rows: Dict[str, list] = {k: [] for k in (
        "case_id", "question", "answerable", "labeled", "abstains", "abstained", "claims",
        "hallucinated", "hallucinated_by_person", "outcome")}
    for k, (case, split) in enumerate(zip(cases, splits)):
        n_claims = len(split.claims)
        flagged = counts["contradicted"][k] + counts["unsupported"][k]
        if n_claims == 0:
            hallucinated: Optional[bool] = None
            outcome: Optional[str] = "abstained"
        else:
            hallucinated = True if flagged else (None if counts["errors"][k] else False)
            if hallucinated or case.answerable is False:
                outcome = "wrong"
            elif hallucinated is None:
                outcome = None
            else:
                outcome = "correct"
        if case.labels is not None and n_claims:
            person_flag[k] = any(label != "supported" for label in case.labels)
        rows["case_id"].append(case.id)
        rows["question"].append(case.question)
        rows["answerable"].append(case.answerable)
        rows["labeled"].append(case.labels is not None)
        rows["abstains"].append(split.abstains)
        rows["abstained"].append(n_claims == 0)
        rows["claims"].append(n_claims)
        rows["hallucinated"].append(hallucinated)
        rows["hallucinated_by_person"].append(person_flag[k])
        rows["outcome"].append(outcome)
    frame = pd.DataFrame(rows)
    for key in ("supported", "contradicted", "unsupported", "errors"):
        frame.insert(frame.columns.get_loc("hallucinated"), key, counts[key])
    for key in ("answerable", "hallucinated", "hallucinated_by_person"):
        frame[key] = frame[key].astype("boolean")
    return frame


def _progress(progress: Union[bool, Callable[[int], None]], total: int) -> Callable[[Optional[int]], None]:
    """A callback advancing a progress bar by n cases (``None`` closes it)."""
    if callable(progress):
        return lambda n: progress(n) if n is not None else None
    if not progress:
        return lambda n: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="case", desc="judging", file=sys.stderr, leave=False)
    return lambda n: bar.update(n) if n is not None else bar.close()
