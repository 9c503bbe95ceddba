"""Judge every claim of every case and lay the results out as tidy pandas DataFrames.

The pipeline has three named steps, as in Ragas faithfulness:

1. **claims** — each answer is split into claims and abstention sentences (:mod:`groundlab.claims`);
2. **verdicts** — each claim is judged against the question and *all* retrieved passages, and,
   for the ALCE citation checks, against the question and its *cited* passages;
3. **frames** — one row per claim (:attr:`Evaluation.claims`) and one per case
   (:attr:`Evaluation.cases`), from which :mod:`groundlab.metrics` computes every measure.

Judges that say which passages back a claim (``Verdict.supported_by``) answer the citation
checks from that, with no further judgements.
"""

from __future__ import annotations

import multiprocessing
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from ._gc import paused_gc
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
    workers: int = 1,
) -> Evaluation:
    """Judge every claim of ``cases`` and return the claim and case frames.

    ``workers`` > 1 splits a large run (``PARALLEL_MIN`` cases or more) over that many processes
    when the judge is CPU-bound and local (``judge.cpu_bound``, the rules judges); results are the
    same as with one.

    >>> from groundlab import load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> ev.claims.verdict.value_counts().to_dict()
    {'supported': 13, 'unsupported': 4, 'contradicted': 3}
    """
    judge = get_judge(judge) if isinstance(judge, str) else judge
    splitter = splitter or ClaimSplitter()
    bar = _progress(progress, len(cases))
    with paused_gc():
        if workers > 1 and getattr(judge, "cpu_bound", False) and len(cases) >= PARALLEL_MIN \
                and "fork" in multiprocessing.get_all_start_methods():
            cols, shape = _judge_parallel(cases, judge, splitter, workers, bar)
        else:
            cols, shape = _judge_slice(cases, judge, splitter, bar)
        bar(None)
        claims = pd.DataFrame(cols)
        claims["citation_ok"] = claims["citation_ok"].astype("boolean")
        return Evaluation(judge.name, claims, _case_frame(cases, shape, claims))


#: Below this many cases a run is fast enough that starting processes costs more than it saves.
PARALLEL_MIN = 20_000

_COLUMNS = ("case_id", "claim", "text", "cites", "verdict", "reason", "score", "error", "label",
            "citation_ok", "citations", "relevant_citations")


def _judge_slice(cases: Sequence[Case], judge: Judge, splitter: ClaimSplitter,
                 bar: Callable[[Optional[int]], None]) -> Tuple[Dict[str, list], List[Tuple[int, bool]]]:
    """Split and judge ``cases``: the claim columns, and (claims, abstains) per case.

    Chunk by chunk, so only one chunk's claims and verdicts are alive at a time."""
    cols: Dict[str, list] = {k: [] for k in _COLUMNS}
    shape: List[Tuple[int, bool]] = []
    for start in range(0, len(cases), CHUNK):
        part = cases[start:start + CHUNK]
        splits = split_cases(part, splitter)
        _judge_chunk(judge, list(zip(part, splits)), cols)
        shape.extend((len(s.claims), s.abstains) for s in splits)
        bar(len(part))
    return cols, shape


# What forked workers judge: set just before the fork, so cases are shared, never pickled.
_FORKED: Optional[Tuple[Sequence[Case], Judge, ClaimSplitter]] = None


def _forked_slice(bounds: Tuple[int, int]):
    cases, judge, splitter = _FORKED
    with paused_gc():
        return _judge_slice(cases[bounds[0]:bounds[1]], judge, splitter, lambda n: None)


def _judge_parallel(cases, judge, splitter, workers, bar):
    """The first slice in this process, the others in forked workers; merged in case order."""
    global _FORKED
    n = len(cases)
    edges = [n * k // workers for k in range(workers + 1)]
    _FORKED = (cases, judge, splitter)
    pool = multiprocessing.get_context("fork").Pool(workers - 1)
    try:
        pending = [pool.apply_async(_forked_slice, ((edges[k], edges[k + 1]),)) for k in range(1, workers)]
        cols, shape = _judge_slice(cases[:edges[1]], judge, splitter, bar)
        for k, job in enumerate(pending, 1):
            more_cols, more_shape = job.get()
            for key in _COLUMNS:
                cols[key].extend(more_cols[key])
            shape.extend(more_shape)
            bar(edges[k + 1] - edges[k])
        return cols, shape
    finally:
        _FORKED = None
        pool.terminate()


def claim_pairs(chunk: Sequence[Tuple[Case, Split]]) -> List[Pair]:
    """Step 2a's pairs: every claim against all retrieved passages. The claims of one case are
    consecutive and share one :class:`Evidence` object, so a judge can ask about them together."""
    pairs: List[Pair] = []
    for case, split in chunk:
        if split.claims:
            evidence = Evidence(case.question, case.retrieved)
            pairs.extend((claim.text, evidence) for claim in split.claims)
    return pairs


def _judge_chunk(judge: Judge, chunk: List[Tuple[Case, Split]], cols: Dict[str, list]) -> None:
    flat = [(case, claim) for case, split in chunk for claim in split.claims]

    # Step 2a: every claim against all retrieved passages.
    verdicts = _judge(judge, claim_pairs(chunk))

    # Step 2b: claims with citations against their cited passages alone (ALCE recall), unless the
    # judge already said which passages back the claim. Cited passages keep retrieval order, so
    # citing every retrieved passage is the same evidence and needs no second judgement.
    n = len(flat)
    backed: List[Optional[bool]] = [False] * n
    relevant = [0] * n
    recall: Dict[int, Verdict] = {}
    cited_pairs: List[Pair] = []
    cited_at: List[int] = []
    for k, ((case, claim), verdict) in enumerate(zip(flat, verdicts)):
        if verdict.error:
            backed[k] = None  # undecided: not judged again, left out of citation recall
            continue
        cites = claim.cites
        if not cites:
            continue
        if verdict.supported_by is not None:
            support = verdict.supported_by
            if verdict.label == "supported" and support and all(p in cites for p in support):
                backed[k] = True
                relevant[k] = sum(1 for c in cites if c in support)
            continue
        cited = tuple([p for p in case.retrieved if p.id in cites])
        if not cited:
            continue  # it cites only passages it was not given
        if len(cited) == len(case.retrieved):
            recall[k] = verdict
        else:
            cited_at.append(k)
            cited_pairs.append((claim.text, Evidence(case.question, cited)))
    recall.update(zip(cited_at, _judge(judge, cited_pairs)))

    # Step 2c: ALCE precision. A claim that passes recall with one citation has one relevant
    # citation; with several, a citation is relevant when it backs the claim alone, or the other
    # citations without it do not.
    precision_pairs: List[Pair] = []
    precision_at: List[Tuple[int, int]] = []  # (claim, pair index of "alone"; "without" follows)
    for k, verdict in recall.items():
        if verdict.error:
            backed[k] = None  # undecided: left out of citation recall
            continue
        if verdict.label != "supported":
            continue
        backed[k] = True
        case, claim = flat[k]
        if len(claim.cites) == 1:
            relevant[k] = 1
            continue
        by_id = {p.id: p for p in case.retrieved}
        cites = [c for c in claim.cites if c in by_id]
        for cite in cites:
            precision_at.append((k, len(precision_pairs)))
            precision_pairs.append((claim.text, Evidence(case.question, (by_id[cite],))))
            others = tuple(p for p in case.retrieved if p.id in cites and p.id != cite)
            precision_pairs.append((claim.text, Evidence(case.question, others)))
    precision = _judge(judge, precision_pairs)
    for k, at in precision_at:
        if precision[at].label == "supported" or precision[at + 1].label != "supported":
            relevant[k] += 1

    # Step 3 (rows): one per claim, built column by column.
    cols["case_id"].extend(claim.case_id for _, claim in flat)
    cols["claim"].extend(claim.number for _, claim in flat)
    cols["text"].extend(claim.text for _, claim in flat)
    cols["cites"].extend(claim.cites for _, claim in flat)
    cols["verdict"].extend(v.label for v in verdicts)
    cols["reason"].extend(v.reason for v in verdicts)
    cols["score"].extend(v.score for v in verdicts)
    cols["error"].extend(v.error for v in verdicts)
    cols["label"].extend(case.labels[claim.number - 1] if case.labels is not None else None
                         for case, claim in flat)
    cols["citation_ok"].extend(backed)
    cols["citations"].extend(len(claim.cites) for _, claim in flat)
    cols["relevant_citations"].extend(relevant)


def _judge(judge: Judge, pairs: Sequence[Pair]) -> List[Verdict]:
    if not pairs:
        return []
    verdicts = judge.judge_batch(pairs)
    _check_length(judge, pairs, verdicts)
    return verdicts


def _check_length(judge: Judge, pairs: Sequence, verdicts: Sequence) -> None:
    if len(verdicts) != len(pairs):
        raise RuntimeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(pairs)} claims; "
                           "a judge must return one verdict per claim, in order")


def _case_frame(cases: Sequence[Case], shape: Sequence[Tuple[int, bool]], claims: pd.DataFrame) -> pd.DataFrame:
    n = len(cases)
    counts = {k: [0] * n for k in ("supported", "contradicted", "unsupported", "errors")}
    person_flag: List[Optional[bool]] = [None] * n
    position = {case.id: k for k, case in enumerate(cases)}
    for case_id, verdict in zip(claims["case_id"], claims["verdict"]):
        counts[verdict if verdict is not None else "errors"][position[case_id]] += 1

    rows: Dict[str, list] = {k: [] for k in (
        "case_id", "question", "answerable", "labeled", "abstains", "abstained", "claims",
        "hallucinated", "hallucinated_by_person", "outcome")}
    for k, (case, (n_claims, abstains)) in enumerate(zip(cases, shape)):
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
        rows["abstains"].append(abstains)
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
