"""Judge every claim of every case and lay the results out as tidy pandas DataFrames.

The pipeline has three named steps, as in Ragas faithfulness:

1. **claims** — each answer is split into claims and abstention sentences (:mod:`groundlab.claims`);
2. **verdicts** — each claim is judged against the question and *all* retrieved passages, and,
   for the ALCE citation checks, against the question and its *cited* passages;
3. **frames** — one row per claim (:attr:`Evaluation.claims`) and one per case
   (:attr:`Evaluation.cases`), from which :mod:`groundlab.metrics` computes every measure.

Judges that say which passages back a claim (``Verdict.supported_by``) answer the citation
checks from that, with no further judgements. A judge with a ``citation_judge`` attribute leaves
the other citation checks to that judge (the cascade, to its first judge).
"""

from __future__ import annotations

import math
import sys
from array import array
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ..core._gc import paused_gc
from ..core.claims import ClaimSplitter, Split, positional_aliases, shorten
from ..core.io import (PathLike, Span, duplicate_id_message, empty_cases_message, is_regular_file, iter_cases,
                       load_cases, passage_table, split_file)

if TYPE_CHECKING:  # pragma: no cover - numpy and pandas are imported where frames are built
    import pandas as pd

    from .counts import Counts
from ..judges import DEFAULT_JUDGE, Judge, Pair
from ..core.kinds import claim_kinds
from ..core.parallel import can_fork, in_workers
from ..core.records import Case, Claim, Evidence, InputError, Passage, Verdict

#: Cases judged per step. Keeps the passages of a chunk warm in the judge's caches between the
#: all-evidence and cited-evidence steps, and paces the progress bar. A judge with a true
#: ``wants_all_pairs`` (the llm judge sending one batch for the whole run) gets every case in one
#: step instead: its pairs share each case's evidence, so that costs no more memory than the frames.
CHUNK = 2000


@dataclass
class Evaluation:
    """The judged claims and cases of one run.

    ``claims``: one row per claim — ``case_id``, ``claim`` (1-based), ``text``, ``cites``,
    ``verdict`` (``None`` when the judge failed), ``reason``, ``score``, ``error``, ``label``
    (the person's, if any), ``citation_ok`` (its cited passages alone back it, ALCE recall),
    ``citations`` and ``relevant_citations`` (ALCE precision), ``kind`` (what the claim states,
    by rules: ``id``, ``amount``, ``date``, ``quantity`` or ``other``, the most severe when it
    states several) and ``kinds`` (all of them, most severe first; :mod:`groundlab.kinds`), ``evidence`` (the
    passage sentence that decided the verdict, ``None`` when the judge does not say: :class:`Verdict`),
    ``evidence_matched`` and ``evidence_clashed`` (the words and numbers found in it, and what parts it
    from the claim). ``claims.attrs["judge"]`` is the
    judge's identity (:func:`groundlab.identity.judge_identity`): which judge, model, prompt or
    weights, and which splitting settings gave these verdicts.

    ``cases``: one row per case — ``case_id``, ``question``, ``process`` (the business process the
    case belongs to, ``None`` when the cases file gives none), ``answerable``, ``labeled``,
    ``abstains`` (holds an abstention sentence), ``abstained`` (outcome), ``claims``, ``passages``
    (how many passages were retrieved for it; with none, every claim is unsupported), the counts
    per verdict and ``errors``, ``hallucinated`` (by the judge), ``hallucinated_by_person``,
    ``outcome`` (``correct`` / ``abstained`` / ``wrong``, or ``None`` when judge errors leave it
    open), ``cites_by_position`` (its ``[1]``-style citations were read as the passages at those
    positions, the passages carrying ids of other forms). ``correct`` needs every claim supported
    and the case not marked unanswerable: where
    ``answerable`` is unknown, passages that back every claim evidently held the answer. Then one
    column per field of the cases' ``meta``, named ``meta.<field>`` (``meta.model``; a nested
    object gives ``meta.<field>.<key>``), empty where a case lacks it: group by it to break any
    rate down (``hallucination_rate(ev.cases[ev.cases["meta.model"] == "v3"])``).
    """

    judge: str
    claims: pd.DataFrame
    cases: pd.DataFrame


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
                stray = [c for c in cites if c not in ids]
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


def _made(judge: Union[str, Judge, None], **guarded: Any) -> Judge:
    """The judge ``judge`` names, made where every judge is (:func:`groundlab.policy.make_judge`)."""
    from .policy import make_judge

    return make_judge(judge, **guarded)


def evaluate(
    cases: Union[Sequence[Case], pd.DataFrame, Sequence[Mapping]],
    judge: Union[str, Judge] = DEFAULT_JUDGE,
    *,
    splitter: Optional[ClaimSplitter] = None,
    progress: Union[bool, Callable[[int], None]] = False,
    workers: int = 1,
    policy: Any = None,
    mask: bool = False,
    mask_names: Sequence[str] = (),
) -> Evaluation:
    """Judge every claim of ``cases`` and return the claim and case frames.

    ``cases`` are :class:`Case` records, or a DataFrame or list of dicts that
    :func:`~groundlab.io.load_cases` reads (one case a row, passages inline), checked the same way.

    ``workers`` > 1 splits a large run (``PARALLEL_MIN`` cases or more) over that many processes
    when the judge is CPU-bound and local (``judge.cpu_bound``, the rules judges); results are the
    same as with one.

    ``policy`` (a data policy file), ``mask`` and ``mask_names`` put the judge behind the data
    policy and the masking (:func:`groundlab.policy.make_judge`), as ``--policy`` and ``--mask`` do.

    >>> from groundlab import load_cases, sample_path
    >>> ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> ev.claims.verdict.value_counts().to_dict()
    {'supported': 13, 'unsupported': 4, 'contradicted': 3}
    """
    if hasattr(cases, "columns") or (len(cases) and not isinstance(cases[0], Case)):
        cases = load_cases(cases)
    judge = _made(judge, policy=policy, mask=mask, mask_names=mask_names)
    from .policy import policy_of

    policy = policy_of(judge)
    if policy is not None:  # a case the policy cannot place stops the run before anything is sent
        policy.check_cases(cases)
    splitter = splitter or ClaimSplitter()
    bar = _progress(progress, len(cases))
    with paused_gc():
        if workers > 1 and getattr(judge, "cpu_bound", False) and len(cases) >= PARALLEL_MIN and can_fork():
            claims, rows = _judge_parallel(cases, judge, splitter, workers, bar)
        else:
            parts: List[Tuple[Columns, Columns]] = []
            _judge_slice(cases, judge, splitter, lambda n, part: (parts.append(part), bar(n)))
            claims, rows = _merge(parts)
        bar(None)
        return _evaluation(judge, splitter, claims, rows)


def _evaluation(judge: Judge, splitter: ClaimSplitter, claims: Columns, rows: Columns) -> Evaluation:
    """The frames of a run, the claim frame carrying the judge's identity in ``attrs["judge"]``."""
    from ..core.identity import judge_identity

    frame = _frame(claims, CLAIM_COLUMNS)
    frame.attrs["judge"] = judge_identity(judge, splitter)
    return Evaluation(judge.name, frame, _case_frame(rows))


#: Below this many cases a run is fast enough that starting processes costs more than it saves.
PARALLEL_MIN = 20_000

#: The columns of the two frames and their types ("boolean" may hold NA).
CLAIM_COLUMNS = {"case_id": object, "claim": int, "text": object, "cites": object, "verdict": object,
                 "reason": object, "score": float, "error": object, "label": object,
                 "citation_ok": "boolean", "citations": int, "relevant_citations": int, "kind": object,
                 "kinds": object, "evidence": object, "evidence_matched": object, "evidence_clashed": object}
CASE_COLUMNS = {"case_id": object, "question": object, "process": object, "answerable": "boolean",
                "labeled": bool, "abstains": bool, "abstained": bool, "claims": int, "passages": int, "supported": int,
                "contradicted": int, "unsupported": int, "errors": int, "hallucinated": "boolean",
                "hallucinated_by_person": "boolean", "outcome": object, "cites_by_position": bool}

Columns = Dict[str, list]

#: Not a column of the case frame: each case's ``meta``, spread into ``meta.<field>`` columns.
_META = "meta"

#: Not a column either: each case's ``(classification, origin, held_back)``, each a column of the
#: case frame when any case has it (a data policy's classification, a case made from an incident,
#: the judge a data policy kept a case from).
_EXTRA = "extra"
EXTRA_COLUMNS = ("classification", "origin", "held_back")

#: How deep nested ``meta`` objects are spread into columns; deeper values stay objects.
META_DEPTH = 3


def _frame(columns: Columns, types: Dict[str, object]) -> "pd.DataFrame":
    """A DataFrame from lists, typed up front: pandas then has nothing left to infer."""
    import numpy as np
    import pandas as pd

    data = {}
    for name, kind in types.items():
        values = columns[name]
        if kind is object:
            array = np.empty(len(values), dtype=object)
            array[:] = values
        elif kind is float:
            array = np.array([math.nan if v is None else v for v in values], dtype=float)
        elif kind == "boolean":
            array = pd.array(values, dtype="boolean")
        else:
            array = np.array(values, dtype=np.int64 if kind is int else bool)
        data[name] = array
    return pd.DataFrame(data, copy=False)


def _case_frame(rows: Columns) -> "pd.DataFrame":
    """The case frame, with a ``meta.<field>`` column for each field of the cases' ``meta``."""
    import numpy as np
    import pandas as pd

    frame = _frame(rows, CASE_COLUMNS)
    extra = rows.get(_EXTRA) or []
    for k, name in enumerate(EXTRA_COLUMNS):
        values = [e[k] for e in extra]
        if any(v is not None for v in values):
            array = np.empty(len(values), dtype=object)
            array[:] = values
            frame[name] = array
    metas = rows[_META]
    if not any(m is not None for m in metas):
        return frame
    flat = [_flatten(m, "meta") if m else {} for m in metas]
    names = list(dict.fromkeys(k for f in flat for k in f))
    extra = {}
    for name in names:
        array = np.empty(len(flat), dtype=object)
        array[:] = [f.get(name) for f in flat]
        extra[name] = array
    return pd.concat([frame, pd.DataFrame(extra, index=frame.index).infer_objects()], axis=1)


def _flatten(obj: Mapping, prefix: str, depth: int = META_DEPTH) -> Dict[str, object]:
    out: Dict[str, object] = {}
    for key, value in obj.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict) and value and depth > 1:
            out.update(_flatten(value, name, depth - 1))
        else:
            out[name] = value
    return out


def _judge_slice(cases: Sequence[Case], judge: Judge, splitter: ClaimSplitter,
                 report: Callable[[int, Tuple[Columns, Columns]], None]) -> None:
    """Split and judge ``cases`` chunk by chunk, reporting each chunk's number of cases and its
    columns of the claim frame and of the case frame; only one chunk's claims and verdicts are
    alive at a time."""
    step = max(1, len(cases)) if getattr(judge, "wants_all_pairs", False) else CHUNK
    cache = SplitCache()
    for start in range(0, len(cases), step):
        part = cases[start:start + step]
        claims, rows = _empty_columns()
        _judge_chunk(judge, list(zip(part, split_cases(part, splitter, cache))), claims, rows)
        report(len(part), (claims, rows))


def _empty_columns() -> Tuple[Columns, Columns]:
    rows: Columns = {k: [] for k in CASE_COLUMNS}
    rows[_META] = []
    rows[_EXTRA] = []
    return {k: [] for k in CLAIM_COLUMNS}, rows


def _judge_parallel(cases: Sequence[Case], judge: Judge, splitter: ClaimSplitter, workers: int,
                    bar: Callable[[Optional[int]], None]) -> Tuple[Columns, Columns]:
    """Equal slices of ``cases`` judged in forked workers, merged in case order."""
    n = len(cases)
    edges = [n * k // workers for k in range(workers + 1)]
    slices = [(edges[k], edges[k + 1]) for k in range(workers)]
    done = in_workers(slices, lambda s, report: _judge_slice(cases[s[0]:s[1]], judge, splitter, report), bar)
    return _merge([part for _, parts in done for part in parts])


def _merge(parts: Sequence[Tuple[Columns, Columns]]) -> Tuple[Columns, Columns]:
    if not parts:
        return _empty_columns()
    claims, rows = parts[0]
    for more_claims, more_rows in parts[1:]:
        for key in CLAIM_COLUMNS:
            claims[key].extend(more_claims[key])
        for key in rows:
            rows[key].extend(more_rows[key])
    return claims, rows


#: From this size on, :func:`evaluate_file` reads and judges a file in several processes.
PARALLEL_MIN_BYTES = 5_000_000


def evaluate_file(
    cases: PathLike,
    passages: Union[PathLike, Mapping[str, Passage], None] = None,
    judge: Union[str, Judge] = DEFAULT_JUDGE,
    *,
    splitter: Optional[ClaimSplitter] = None,
    workers: int = 1,
    progress: Union[bool, Callable[[int], None]] = False,
    while_waiting: Optional[Callable[[], None]] = None,
) -> Evaluation:
    """Read and judge a cases file: ``evaluate(load_cases(cases, passages), judge)``, with the same
    frames and the same first error, except that a large file (``PARALLEL_MIN_BYTES``) with a
    CPU-bound judge is cut into ``workers`` parts, each read and judged by a process of its own.
    This process then only coordinates, and runs ``while_waiting`` (say, imports the next step
    needs) while the workers judge.
    """
    judge = _made(judge)
    splitter = splitter or ClaimSplitter()
    path = Path(cases)
    # Parts are cut at byte offsets, which only a regular file has: standard input, a pipe or a
    # device is read in one pass.
    if not (workers > 1 and getattr(judge, "cpu_bound", False) and can_fork() and is_regular_file(path)
            and path.stat().st_size >= PARALLEL_MIN_BYTES):
        return evaluate(load_cases(path, passages), judge, splitter=splitter, progress=progress)

    table, passages_name = passage_table(passages)

    def work(span: Span, report) -> dict:
        # Each judged chunk goes to the main process at once, so a worker holds no more than one;
        # every case's id and line are kept, to find an id used again in a later part.
        ids: List[str] = []
        lines: List[int] = []
        part: dict = {"ids": ids, "lines": lines}

        def read(number: int, case: Case) -> None:
            ids.append(case.id)
            lines.append(number)

        for chunk, columns in judged_chunks(path, table, passages_name, span, judge, splitter, part,
                                            check_ids=True, on_case=read):
            if columns is not None:
                report(len(chunk), columns)
        return part

    bar = _progress(progress, None)
    with paused_gc():
        done = in_workers(split_file(path, workers), work, bar, while_waiting)
        bar(None)
        _raise_first_input_error(path, [result for result, _ in done])
        claims, rows = _merge([chunk for _, chunks in done for chunk in chunks])
        return _evaluation(judge, splitter, claims, rows)


def streams(judge: Judge) -> bool:
    """Whether :func:`count_file` can judge chunk by chunk with this judge as it reads: not when
    a data policy must see every case before anything is sent, nor when the judge sends the whole
    run as one batch (the llm judge with ``--batch``)."""
    from .policy import policy_of

    return policy_of(judge) is None and not getattr(judge, "wants_all_pairs", False)


def count_file(
    cases: PathLike,
    passages: Union[PathLike, Mapping[str, Passage], None] = None,
    judge: Union[str, Judge] = DEFAULT_JUDGE,
    *,
    splitter: Optional[ClaimSplitter] = None,
    workers: int = 1,
    progress: Union[bool, Callable[[int], None]] = False,
    claims_out: Optional[PathLike] = None,
    force: bool = False,
) -> "Counts":
    """Read and judge a cases file (``-``: standard input) keeping counts only: the
    :class:`~groundlab.counts.Counts` of ``evaluate(load_cases(cases, passages), judge)``, with the
    same figures and the same first error, in memory that does not grow with the file (what stays
    is 8 bytes a case, each case id's fingerprint, to refuse an id used twice).

    The cases are read and judged chunk by chunk (``CHUNK`` cases); a large regular file with a
    CPU-bound judge is cut into ``workers`` parts as in :func:`evaluate_file`, each worker sending
    back its counts. ``claims_out`` (``.csv`` or ``.parquet``): the claim frame is also written
    there as the run goes (each worker writes its part, appended in file order at the end), put in
    place only when the run succeeds. A judge that cannot stream (:func:`streams`) is run over the
    loaded cases, and its frames counted. ``claims_out`` must end in ``.csv`` or ``.parquet``, is
    never one of the inputs, and replaces an existing file only with ``force``.
    """
    from .counts import counts_of
    from ..core.frames import ClaimsWriter, check_frame_target
    from ..core.identity import judge_identity

    if claims_out is not None:
        check_frame_target(claims_out, force, [cases, passages if not isinstance(passages, Mapping) else None])

    judge = _made(judge)
    splitter = splitter or ClaimSplitter()
    path = Path(cases) if not (isinstance(cases, str) and cases == "-") else cases
    if not streams(judge):
        ev = evaluate_file(path, passages, judge, splitter=splitter, workers=workers, progress=progress)
        if claims_out is not None:
            writer = ClaimsWriter(claims_out, ev.claims.attrs.get("judge"))
            try:
                writer.write({name: ev.claims[name].tolist() for name in CLAIM_COLUMNS})
                writer.close()
            except BaseException:
                writer.discard()
                raise
        return counts_of(ev)
    identity = judge_identity(judge, splitter)
    table, passages_name = passage_table(passages)
    parallel = (workers > 1 and getattr(judge, "cpu_bound", False) and can_fork() and is_regular_file(path)
                and Path(path).stat().st_size >= PARALLEL_MIN_BYTES)
    bar = _progress(progress, None)
    writer = ClaimsWriter(claims_out, identity) if claims_out is not None else None
    part_writers: List[ClaimsWriter] = []  # made here, so that a run stopped midway removes every part's file
    try:
        with paused_gc():
            if parallel:
                spans = split_file(path, workers)
                if writer is not None:
                    part_writers.extend(ClaimsWriter(writer.path, identity) for _ in spans)

                def work(k_span: Tuple[int, Span], report) -> dict:
                    k, span = k_span
                    return count_part(path, table, passages_name, span, judge, splitter,
                                      part_writers[k] if part_writers else None, report, send_ids=True)

                ids = array("Q")
                results = [result for result, _ in in_workers(list(enumerate(spans)), work, bar,
                                                              on_part=lambda k, part: ids.frombytes(part))]
                results[0]["counts"].fingerprints = ids  # every part's, sent chunk by chunk; their order is of no use
            else:
                results = [count_part(path, table, passages_name, None, judge, splitter, writer, bar)]
            bar(None)
            counts = merge_parts(path, results, judge.name, identity, writer)
        if writer is not None:
            writer.close()
    except BaseException:
        for part_writer in part_writers:
            part_writer.discard()
        if writer is not None:
            writer.discard()
        raise
    return counts


def judged_chunks(path, table, passages_name: str, span: Optional[Span], judge: Judge, splitter: ClaimSplitter,
                  part: dict, *, counts_only: bool = False, check_ids: bool = False,
                  on_case: Optional[Callable[[int, Case], None]] = None
                  ) -> Iterator[Tuple[List[Case], Optional[Tuple[Columns, Columns]]]]:
    """Read the cases of ``path`` (or of a ``span`` of it) and judge them chunk by chunk
    (``CHUNK`` cases): each chunk's cases with its columns of the claim frame and of the case frame
    (``counts_only``: those the counts read), one chunk alive at a time. The one reading and judging
    loop of :func:`evaluate_file`'s workers, which collect the columns, and :func:`count_part`,
    which counts them.

    What stops it is written to ``part``: ``label_error`` when a case's labels do not fit its
    claims (nothing more is judged, but the rest is still read and its chunks given with ``None``
    for columns, so that a bad line later on is the error reported, as when the whole file is read
    first), ``load_error`` (``(line, sentence)``) when a line cannot be read (the chunk it cuts
    short is neither judged nor given). ``check_ids``: an id used twice in the part is a
    ``load_error`` too. ``on_case(line, case)`` sees every case as it is read."""
    chunk: List[Case] = []
    cache = SplitCache()

    def judged() -> Optional[Tuple[Columns, Columns]]:
        if "label_error" in part:
            return None
        claims, rows = _empty_columns()
        try:
            _judge_chunk(judge, list(zip(chunk, split_cases(chunk, splitter, cache))), claims, rows,
                         counts_only=counts_only)
        except InputError as error:
            part["label_error"] = str(error)
            return None
        return claims, rows

    try:
        for number, case in iter_cases(path, table, passages_name, span, check_ids=check_ids):
            if on_case is not None:
                on_case(number, case)
            chunk.append(case)
            if len(chunk) == CHUNK:
                yield chunk, judged()
                chunk = []
    except InputError as error:
        part["load_error"] = (getattr(error, "line", 0), str(error))
        return
    if chunk:
        yield chunk, judged()


def count_part(path, table, passages_name: str, span: Optional[Span], judge: Judge, splitter: ClaimSplitter,
               writer=None, report: Optional[Callable[..., None]] = None, send_ids: bool = False) -> dict:
    """Read and judge the cases of ``path`` (or of a ``span`` of it) chunk by chunk into counts
    (:func:`judged_chunks`): ``{"counts", "writer"}``, with its ``load_error`` or ``label_error``
    (the cases read after a label error are counted as cases, unjudged). ``writer`` (a
    :class:`~groundlab.frames.ClaimsWriter`) gets each chunk's claims; ``report(n)`` each chunk's
    number of cases, with (``send_ids``) the bytes of its case ids' fingerprints, which this part
    then does not keep (a worker sends them as it goes, holding none)."""
    from .counts import Counts, case_fingerprint
    from ..core.identity import judge_identity

    counts = Counts(judge.name, judge_identity(judge, splitter))
    part: dict = {"counts": counts, "writer": writer}
    try:
        for chunk, columns in judged_chunks(path, table, passages_name, span, judge, splitter, part,
                                            counts_only=writer is None):
            if columns is None:  # after a label error: the ids are still read and counted
                counts.fingerprints.extend(case_fingerprint(case.id) for case in chunk)
                counts.add("cases", "", len(chunk))
            else:
                counts.add_columns(*columns)
                if writer is not None:
                    writer.write(columns[0])
            if send_ids:
                report(len(chunk), counts.fingerprints.tobytes())
                del counts.fingerprints[:]
            elif report is not None:
                report(len(chunk))
    finally:
        if writer is not None and span is not None:
            writer.finish()
    return part


def merge_parts(path, results: Sequence[dict], judge_name: str, identity, writer=None) -> "Counts":
    """The counts of the parts of a file (:func:`count_part`, in file order), or the error reading
    the whole file first would have stopped at: the earliest bad line or repeated id, else the
    first case whose labels do not fit its claims. ``writer`` gets the parts' claims appended."""
    counts = results[0]["counts"]  # added to where it is: its fingerprints may be every part's
    for result in results[1:]:
        counts.merge(result["counts"])
    counts.judge, counts.identity, counts.shards = judge_name, identity, 1
    errors = [r["load_error"] for r in results if "load_error" in r]
    repeated = _repeated_id(path, counts)
    if repeated is not None:
        errors.append(repeated)
    if errors:
        raise InputError(min(errors)[1])
    if not counts.count("cases"):
        raise InputError(empty_cases_message(path))
    label_errors = [r["label_error"] for r in results if "label_error" in r]
    if label_errors:
        raise InputError(label_errors[0])
    if writer is not None:
        for result in results:
            if result["writer"] is not None and result["writer"] is not writer:
                writer.append_file(result["writer"])
    return counts


def _repeated_id(path, counts) -> Optional[Tuple[int, str]]:
    """``(line, sentence)`` for the first case whose id an earlier case used, found by the ids'
    fingerprints; ``None`` when every id is used once."""
    count, twice = counts.repeated()
    if not count:
        return None
    from .counts import case_fingerprint
    from ..core.io import display_name, find_repeated_id

    if is_regular_file(path):
        return find_repeated_id(path, twice, case_fingerprint)
    return (0, f"{display_name(path)}: {len(twice)} case id{'s are' if len(twice) != 1 else ' is'} used by more than "
               "one case; give each case its own id ('groundlab check' on the saved file names the lines).")


def _raise_first_input_error(path: Path, parts: Sequence[dict]) -> None:
    """The error reading the whole file in one go would have stopped at first."""
    errors = [part["load_error"] for part in parts if "load_error" in part]
    first: Dict[str, int] = {}
    for part in parts:  # ids used again in a later part; the first such line is the earliest
        repeat = next(((line, cid) for cid, line in zip(part["ids"], part["lines"]) if cid in first), None)
        if repeat is None:
            first.update(zip(part["ids"], part["lines"]))
            continue
        line, cid = repeat
        errors.append((line, duplicate_id_message(f"{path} line {line} (case {cid})", cid, first[cid])))
        break
    if errors:
        raise InputError(min(errors)[1])
    if not any(part["ids"] for part in parts):
        raise InputError(empty_cases_message(path))
    for part in parts:
        if "label_error" in part:
            raise InputError(part["label_error"])


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
    verdicts = judge_pairs(judge, claim_pairs(chunk))

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
        cited = tuple([p for p in case.retrieved if p.id in cites])
        if not cited:
            continue  # it cites only passages it was not given
        if len(cited) == len(case.retrieved):
            recall[k] = verdict
        else:
            cited_at.append(k)
            cited_pairs.append((claim.text, Evidence(case.question, cited, classification=case.classification)))
    # A judge may leave the citation checks to another (the cascade, to its first judge).
    checker = getattr(judge, "citation_judge", judge)
    recall.update(zip(cited_at, judge_pairs(checker, cited_pairs)))

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
            precision_pairs.append((claim.text, Evidence(case.question, (by_id[cite],),
                                                         classification=case.classification)))
            others = tuple(p for p in case.retrieved if p.id in cites and p.id != cite)
            precision_pairs.append((claim.text, Evidence(case.question, others, classification=case.classification)))
    precision = judge_pairs(checker, precision_pairs)
    for k, at in precision_at:
        if precision[at].label == "supported" or precision[at + 1].label != "supported":
            relevant[k] += 1

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


def judge_pairs(judge: Judge, pairs: Sequence[Pair]) -> List[Verdict]:
    """``judge.judge_batch(pairs)``, checked to give one verdict per pair."""
    if not pairs:
        return []
    verdicts = judge.judge_batch(pairs)
    _check_length(judge, pairs, verdicts)
    return verdicts


def _check_length(judge: Judge, pairs: Sequence, verdicts: Sequence) -> None:
    if len(verdicts) != len(pairs):
        raise RuntimeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(pairs)} claims; "
                           "a judge must return one verdict per claim, in order")


def _progress(progress: Union[bool, Callable[[int], None]], total: int) -> Callable[[Optional[int]], None]:
    """A callback advancing a progress bar by n cases (``None`` closes it)."""
    if callable(progress):
        return lambda n: progress(n) if n is not None else None
    if not progress:
        return lambda n: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="case", desc="judging", file=sys.stderr, leave=False)
    return lambda n: bar.update(n) if n is not None else bar.close()
