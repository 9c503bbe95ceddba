"""One chunk of cases judged: each answer split into claims (kept per answer met before), every
claim judged against all its passages and, for the ALCE citation checks, against its cited
passages alone, and the rows of the claim and case frames filled (:mod:`groundlab.measure.evaluation`).
The loops over a run's cases, one process or several, are :mod:`groundlab.measure.evaluate`'s."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..core.claims import ClaimSplitter, Split, positional_aliases, shorten
from ..core.kinds import claim_kinds
from ..core.records import Case, Claim, Evidence, InputError, Passage, Verdict
from ..judges import Judge, Pair
from .evaluation import _EXTRA, _META, Columns


#: Cases judged per step. Keeps the passages of a chunk warm in the judge's caches between the
#: all-evidence and cited-evidence steps, and paces the progress bar. A judge with a true
#: ``wants_all_pairs`` (the llm judge sending one batch for the whole run) gets every case in one
#: step instead: its pairs share each case's evidence, so that costs no more memory than the frames.
CHUNK = 2000


def split_cases(cases: Sequence[Case], splitter: Optional[ClaimSplitter] = None,
                cache: Optional["SplitCache"] = None) -> List[Split]:
    """Split every answer; a case whose labels do not match its claims is an input error.

    A citation of one of the case's ``aliases`` (``[P1]`` for ``{"P1": "KB-101"}``) becomes a
    citation of the passage it names. A case without aliases whose answer cites by number
    (``[1]``, ``[^2]``) passages that carry other ids (``KB-3``) has each such citation read as the
    passage at that position (:func:`~groundlab.claims.positional_aliases`), recorded in
    :attr:`Split.by_position` and counted in the case frame's ``cites_by_position``. ``cache`` (a
    :class:`SplitCache` kept across the chunks of a run) splits an answer met before only once."""
    splitter = splitter or ClaimSplitter()
    splits = []
    for case in cases:
        ids = [p.id for p in case.retrieved] if "(" in case.answer else ()
        split = (splitter.split(case.id, case.answer, ids, question=case.question) if cache is None
                 else cache.split(splitter, case, ids))
        if case.aliases:
            split = resolve_aliases(split, case.aliases)
        elif split.claims and case.retrieved:
            cites = [c for claim in split.claims for c in claim.cites]
            if cites:
                ids = [p.id for p in case.retrieved]
                known = set(ids) if len(ids) > 16 else ids  # an answer may cite each of thousands of passages
                stray = [c for c in cites if c not in known]
                aliases = positional_aliases(ids, stray) if stray else None
                if aliases:
                    split = resolve_aliases(split, aliases)
                    split = Split(split.claims, split.abstains, tuple(aliases.items()))
        if case.labels is not None and len(case.labels) != len(split.claims):
            raise InputError(label_count_message(case, split, splitter))
        splits.append(split)
    return splits


class SplitCache:
    """The splits of answers met before, for one splitter: a log repeats its answers ("The delivery
    is created in the next delivery run [D02]."), and splitting is pure (the same answer and passage
    ids give the same claims; the question shapes only an answer that is a bare yes or no, which
    is split afresh each time). Keeps the ``size`` answers met last, so a long run's memory does not
    grow with it."""

    def __init__(self, size: int = 8192) -> None:
        self._split = lru_cache(maxsize=size)(self._fresh)

    @staticmethod
    def _fresh(splitter: ClaimSplitter, answer: str, ids: Tuple[str, ...]) -> Optional[Split]:
        return splitter.split_alone(answer, ids)

    def split(self, splitter: ClaimSplitter, case: Case, ids: Sequence[str]) -> Split:
        found = self._split(splitter, case.answer, tuple(ids))
        if found is None:  # only a yes or no: its claim is the question's premise
            return splitter.split(case.id, case.answer, ids, question=case.question)
        if not found.claims:
            return found
        cid = case.id
        return Split(tuple([Claim(cid, c.number, c.text, c.cites, c.span) for c in found.claims]), found.abstains,
                     found.by_position)


def label_count_message(case: Case, split: Split, splitter: ClaimSplitter) -> str:
    """Why a case's labels do not fit its claims: the claims found, how the answer was split into
    them, and how to see and change that."""
    found = "; ".join(f"({c.number}) \"{c.text}\"" for c in split.claims) or "none"
    roles = splitter.explain(case.answer, [p.id for p in case.retrieved], question=case.question)
    parts = "; ".join(f"{role} \"{shorten(text, 80)}\"" for role, text in roles) or "no sentence at all"
    return (f"{case.where}: {len(case.labels or ())} label(s) for {len(split.claims)} claim(s) found "
            f"[{found}]; the answer splits into {len(roles)} sentence(s) [{parts}]; give one label per claim, "
            "in order (`groundlab check --show-claims` shows how every answer splits; a sentence that declines "
            "to answer is no claim, and --abstention-phrase REGEX adds a wording of your assistant's).")


def resolve_aliases(split: Split, aliases: Mapping[str, str]) -> Split:
    """``split`` with each cited alias replaced by the passage id it stands for (repeats dropped)."""
    claims = []
    for claim in split.claims:
        if any(c in aliases for c in claim.cites):
            cites = tuple(dict.fromkeys(aliases.get(c, c) for c in claim.cites))
            claim = replace(claim, cites=cites)
        claims.append(claim)
    return Split(tuple(claims), split.abstains, split.by_position)


def claim_pairs(chunk: Sequence[Tuple[Case, Split]]) -> List[Pair]:
    """Step 2a's pairs: every claim against all retrieved passages. The claims of one case are
    consecutive and share one :class:`Evidence` object (carrying the answer as context), so a
    judge can ask about them together."""
    pairs: List[Pair] = []
    for case, split in chunk:
        if split.claims:
            evidence = Evidence(case.question, case.retrieved, case.answer, case.classification)
            pairs.extend((claim.text, evidence) for claim in split.claims)
    return pairs


def _judge_chunk(judge: Judge, chunk: List[Tuple[Case, Split]], cols: Columns, rows: Columns,
                 counts_only: bool = False) -> None:
    """Judge a chunk's claims and append its rows to ``cols`` (the claim frame's columns) and
    ``rows`` (the case frame's). ``counts_only``: only the columns :meth:`Counts.add_columns
    <groundlab.counts.Counts.add_columns>` reads are filled (a run keeping counts, no frame written)."""
    flat = [(case, claim) for case, split in chunk for claim in split.claims]

    # Step 2a: every claim against all retrieved passages.
    verdicts = judge_pairs(judge, claim_pairs(chunk), explain=not counts_only)

    # Step 2b: claims with citations against their cited passages alone (ALCE recall), unless the
    # judge already said which passages back the claim. Cited passages keep retrieval order, so
    # citing every retrieved passage is the same evidence and needs no second judgement.
    n = len(flat)
    backed: List[Optional[bool]] = [False] * n
    relevant = [0] * n
    recall: Dict[int, Verdict] = {}
    cited_of: Dict[int, Tuple[Passage, ...]] = {}
    cited_pairs: List[Pair] = []
    cited_at: List[int] = []
    index: Dict[str, Tuple[Passage, ...]] = {}
    shared: Dict[Tuple[str, ...], Evidence] = {}  # the case's cited passages as evidence, by citations
    indexed = None  # the case whose passages ``index`` and ``shared`` hold
    for k, ((case, claim), verdict) in enumerate(zip(flat, verdicts)):
        if verdict.error:
            backed[k] = None  # undecided: not judged again, left out of citation recall
            continue
        cites = claim.cites
        if not cites:
            continue
        if verdict.supported_by is not None:
            support = verdict.supported_by
            if verdict.label == "supported":
                if not support:
                    # The judge found it supported but named no retrieved passage: which passages
                    # back it is unknown, so its citations are neither right nor wrong. Undecided:
                    # left out of citation recall and precision, and counted.
                    backed[k] = None
                elif all(p in cites for p in support):
                    backed[k] = True
                    relevant[k] = sum(1 for c in cites if c in support)
            continue
        if case is not indexed:
            indexed, index, shared = case, _by_id(case), {}
        cited = _cited(case, cites, index)
        if not cited:
            continue  # it cites only passages it was not given
        cited_of[k] = cited
        if len(cited) == len(case.retrieved):
            recall[k] = verdict
        else:
            cited_at.append(k)
            # the claims of a case that cite the same passages share one Evidence, read once by a judge
            evidence = shared.get(cites)
            if evidence is None:
                evidence = shared[cites] = Evidence(case.question, cited, classification=case.classification)
            cited_pairs.append((claim.text, evidence))
    # A judge may leave the citation checks to another (the cascade, to its first judge).
    checker = getattr(judge, "citation_judge", judge)
    recall.update(zip(cited_at, judge_pairs(checker, cited_pairs, explain=False)))

    # Step 2c: ALCE precision. A claim that passes recall with one citation has one relevant
    # citation; with several, a citation is relevant when it backs the claim alone, or the other
    # citations without it do not (:func:`relevant_citations`).
    several = []
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
        several.append((k, claim, case, cited_of[k]))
    for k, count in relevant_citations(checker, several).items():
        if count is None:
            backed[k] = None  # undecided: left out of citation recall and precision, and counted
        else:
            relevant[k] += count

    # Step 3 (rows): one per claim, built column by column.
    cols["case_id"].extend([claim.case_id for _, claim in flat])
    cols["claim"].extend([claim.number for _, claim in flat])
    cols["verdict"].extend([v.label for v in verdicts])
    cols["error"].extend([v.error for v in verdicts])
    cols["citation_ok"].extend(backed)
    cols["citations"].extend([len(claim.cites) for _, claim in flat])
    cols["relevant_citations"].extend(relevant)
    kinds = [claim_kinds(claim.text) for _, claim in flat]
    cols["kinds"].extend(kinds)
    if not counts_only:
        cols["text"].extend([claim.text for _, claim in flat])
        cols["cites"].extend([claim.cites for _, claim in flat])
        cols["reason"].extend([v.reason for v in verdicts])
        cols["score"].extend([v.score for v in verdicts])
        cols["label"].extend([case.labels[claim.number - 1] if case.labels is not None else None
                              for case, claim in flat])
        cols["kind"].extend([k[0] for k in kinds])
        cols["evidence"].extend([v.evidence for v in verdicts])
        cols["evidence_matched"].extend([v.matched for v in verdicts])
        cols["evidence_clashed"].extend([v.clashed for v in verdicts])

    # Step 3 (cases): one row per case, from its claims' verdicts.
    k = 0
    for case, split in chunk:
        n = len(split.claims)
        tally = {"supported": 0, "contradicted": 0, "unsupported": 0, None: 0}
        for verdict in verdicts[k:k + n]:
            tally[verdict.label] += 1
        k += n
        flagged = tally["contradicted"] + tally["unsupported"]
        if n == 0:
            hallucinated: Optional[bool] = None
            outcome: Optional[str] = "abstained"
        else:
            hallucinated = True if flagged else (None if tally[None] else False)
            if hallucinated or case.answerable is False:
                outcome = "wrong"
            else:
                outcome = None if hallucinated is None else "correct"
        labels = case.labels
        rows["case_id"].append(case.id)
        rows["process"].append(case.process)
        rows["answerable"].append(case.answerable)
        rows["labeled"].append(labels is not None)
        if not counts_only:
            rows["question"].append(case.question)
            rows["abstains"].append(split.abstains)
            rows["abstained"].append(n == 0)
            rows["supported"].append(tally["supported"])
            rows[_META].append(case.meta)
        rows["claims"].append(n)
        rows["passages"].append(len(case.retrieved))
        rows["contradicted"].append(tally["contradicted"])
        rows["unsupported"].append(tally["unsupported"])
        rows["errors"].append(tally[None])
        rows["hallucinated"].append(hallucinated)
        rows["hallucinated_by_person"].append(
            any(label != "supported" for label in labels) if labels is not None and n else None)
        rows["outcome"].append(outcome)
        rows["cites_by_position"].append(bool(split.by_position))
        rows[_EXTRA].append((case.classification, case.origin,
                             next((v.held_back for v in verdicts[k - n:k] if v.held_back), None)))


#: A claim citing more passages than this has its citations' precision checked in work that grows
#: with their number times its logarithm, not with its square (:func:`relevant_citations`).
EXACT_PRECISION = 8
#: The passages the halving of one claim reads, at most, per citation and per halving step.
HALVING_BUDGET = 16


def _by_id(case: Case) -> Dict[str, Tuple[Passage, ...]]:
    """A case's passages by id (an id given twice, both), for answers whose many claims each cite
    one of many passages; empty for a case of few passages, read through directly."""
    if len(case.retrieved) <= 16:
        return {}
    index: Dict[str, Tuple[Passage, ...]] = {}
    for p in case.retrieved:
        index[p.id] = index.get(p.id, ()) + (p,)
    return index


def _cited(case: Case, cites: Sequence[str], index: Mapping[str, Tuple[Passage, ...]]) -> Tuple[Passage, ...]:
    """The passages of ``case`` a claim cites, in retrieval order (each passage met once)."""
    if len(cites) == 1:
        cite = cites[0]
        if index:
            return index.get(cite, ())
        return tuple([p for p in case.retrieved if p.id == cite])
    wanted = set(cites)
    return tuple([p for p in case.retrieved if p.id in wanted])


def relevant_citations(checker: Judge,
                       claims: Sequence[Tuple[int, Claim, Case, Tuple[Passage, ...]]]) -> Dict[int, Optional[int]]:
    """ALCE precision of claims that cite several passages and are backed by them together: for
    each ``(k, claim, case, cited)``, how many of its citations are relevant. A citation is
    relevant when its passage backs the claim alone, or the other cited passages without it do not.

    A claim citing at most :data:`EXACT_PRECISION` passages is checked so, citation by citation:
    one passage alone, then the others without it. One citing more (an answer citing each of its
    3,000 passages) would need as many checks of all but one passage, work growing with the square
    of its citations; it is checked in two steps instead, each judge call batched over the claims:

    1. every cited passage alone, once (work growing with the citations);
    2. when none backs the claim alone, which ones the others cannot do without, found by halves:
       the claim against the cited passages without a group of them, and a group that leaves the
       claim backed holds no relevant citation, so only a group that takes its support away is
       split again (work growing with the citations times their logarithm, for each relevant one).

    When one passage backs the claim alone, a citation whose passage does not is not relevant:
    the other citations hold that passage. Both shortcuts read the judges as every judge of
    groundlab's reads evidence, more passages never taking support away; below the limit, where
    checking each citation costs little, nothing is assumed. The halving of one claim reads at most
    :data:`HALVING_BUDGET` times its citations times their logarithm in passages: a claim that
    needs so many of them together that this does not settle which (one stating a fact of each of
    its thousands of passages) gets ``None``, its citations undecided (left out of citation recall
    and precision, and counted), never a count the checks did not finish."""
    out: Dict[int, Optional[int]] = {}
    budget: Dict[int, int] = {}
    pairs: List[Pair] = []
    plans = []
    for k, claim, case, cited in claims:
        by_id = {p.id: p for p in cited}
        cites = list(dict.fromkeys(c for c in claim.cites if c in by_id))
        where = (case.question, case.classification)
        start = len(pairs)
        pairs.extend((claim.text, Evidence(case.question, (by_id[c],), classification=case.classification))
                     for c in cites)
        if len(cites) <= EXACT_PRECISION:
            pairs.extend((claim.text, Evidence(case.question, tuple(p for p in cited if p.id != c),
                                               classification=case.classification)) for c in cites)
        plans.append((k, claim.text, cited, cites, where, start))
    verdicts = judge_pairs(checker, pairs, explain=False)
    groups: List[Tuple[int, str, Tuple[Passage, ...], Tuple[str, ...], Tuple]] = []
    for k, text, cited, cites, where, start in plans:
        alone = [v.label == "supported" for v in verdicts[start:start + len(cites)]]
        if len(cites) <= EXACT_PRECISION:
            without = verdicts[start + len(cites):start + 2 * len(cites)]
            out[k] = sum(1 for a, w in zip(alone, without) if a or w.label != "supported")
        elif any(alone):
            out[k] = sum(alone)
        else:  # backed only together: which citations the others cannot do without
            out[k] = 0
            budget[k] = HALVING_BUDGET * len(cited) * max(1, math.ceil(math.log2(len(cited))))
            half = len(cites) // 2
            groups += [(k, text, cited, tuple(cites[:half]), where), (k, text, cited, tuple(cites[half:]), where)]
    while groups:
        pairs = []
        tested = []
        for k, text, cited, group, (question, classification) in groups:
            if out[k] is None:
                continue
            left_out = set(group)
            kept = tuple(p for p in cited if p.id not in left_out)
            budget[k] -= len(kept)
            if budget[k] < 0:
                out[k] = None  # too many needed together to tell which within bounded work: undecided
                continue
            tested.append((k, text, cited, group, (question, classification)))
            pairs.append((text, Evidence(question, kept, classification=classification)))
        next_groups = []
        for (k, text, cited, group, where), verdict in zip(tested, judge_pairs(checker, pairs, explain=False)):
            if verdict.label == "supported":
                continue  # backed without the whole group: no citation of it is needed
            if out[k] is None:
                continue
            if len(group) == 1:
                out[k] += 1
                continue
            half = len(group) // 2
            next_groups += [(k, text, cited, group[:half], where), (k, text, cited, group[half:], where)]
        groups = next_groups
    return out


def judge_pairs(judge: Judge, pairs: Sequence[Pair], explain: bool = True) -> List[Verdict]:
    """``judge.judge_batch(pairs)``, checked to give one verdict per pair. ``explain=False``: only
    the labels, scores and errors are read, and a judge that can leave the reasons out
    (``explains_on_request``) is asked to."""
    if not pairs:
        return []
    if not explain and getattr(judge, "explains_on_request", False):
        verdicts = judge.judge_batch(pairs, explain=False)
    else:
        verdicts = judge.judge_batch(pairs)
    _check_length(judge, pairs, verdicts)
    return verdicts


def _check_length(judge: Judge, pairs: Sequence, verdicts: Sequence) -> None:
    if len(verdicts) != len(pairs):
        raise RuntimeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(pairs)} claims; "
                           "a judge must return one verdict per claim, in order")
