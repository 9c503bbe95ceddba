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

This module runs the loops over a run's cases: in one process or forked workers, over cases in
memory (:func:`evaluate`) or read from a file chunk by chunk (:func:`evaluate_file`,
:func:`count_file`, one loop for both: :func:`judged_chunks`). One chunk judged, steps 1 and 2 and
the rows, is :mod:`groundlab.measure.judging`; the frames the rows become,
:mod:`groundlab.measure.evaluation`. This module names every name of both, as it did when it held
them.
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ..core._gc import paused_gc
from ..core.claims import ClaimSplitter, Split, positional_aliases, shorten  # noqa: F401 (named here before)
from ..core.io import (PathLike, Span, duplicate_id_message, empty_cases_message, is_regular_file, iter_cases,
                       load_cases, passage_table, split_file)
from ..core.parallel import can_fork, in_workers
from ..core.kinds import claim_kinds  # noqa: F401 (named here before)
from ..core.records import Case, Claim, Evidence, InputError, Passage, Verdict  # noqa: F401
from ..judges import DEFAULT_JUDGE, Judge
# The rooms beside this one, whose names this module still names (what it held before they were
# split off): the frames a run fills, and one chunk of cases judged.
from .evaluation import (_EXTRA, _META, CASE_COLUMNS, CLAIM_COLUMNS, EXTRA_COLUMNS, META_DEPTH,  # noqa: F401
                         Columns, Evaluation, _case_frame, _empty_columns, _evaluation, _flatten, _frame, _merge)
from .judging import (CHUNK, SplitCache, _check_length, _judge_chunk, claim_pairs, judge_pairs,  # noqa: F401
                      label_count_message, resolve_aliases, split_cases)

if TYPE_CHECKING:  # pragma: no cover - numpy and pandas are imported where frames are built
    import pandas as pd  # noqa: F401

    from .counts import Counts


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


#: Below this many cases a run is fast enough that starting processes costs more than it saves.
PARALLEL_MIN = 20_000


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


def _judge_parallel(cases: Sequence[Case], judge: Judge, splitter: ClaimSplitter, workers: int,
                    bar: Callable[[Optional[int]], None]) -> Tuple[Columns, Columns]:
    """Equal slices of ``cases`` judged in forked workers, merged in case order."""
    n = len(cases)
    edges = [n * k // workers for k in range(workers + 1)]
    slices = [(edges[k], edges[k + 1]) for k in range(workers)]
    done = in_workers(slices, lambda s, report: _judge_slice(cases[s[0]:s[1]], judge, splitter, report), bar)
    return _merge([part for _, parts in done for part in parts])


#: From this size on, :func:`evaluate_file` reads and judges a file in several processes.
PARALLEL_MIN_BYTES = 5_000_000


def _in_parts(judge: Judge, path, workers: int) -> bool:
    """Whether a file is read and judged in ``workers`` parts, each in a process of its own: a
    CPU-bound judge, a large regular file (parts are cut at byte offsets, which standard input, a
    pipe or a device lacks) and more than one worker asked for."""
    return (workers > 1 and getattr(judge, "cpu_bound", False) and can_fork() and is_regular_file(path)
            and Path(path).stat().st_size >= PARALLEL_MIN_BYTES)


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
    if not _in_parts(judge, path, workers):
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
    parallel = _in_parts(judge, path, workers)
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


def _progress(progress: Union[bool, Callable[[int], None]], total: int) -> Callable[[Optional[int]], None]:
    """A callback advancing a progress bar by n cases (``None`` closes it)."""
    if callable(progress):
        return lambda n: progress(n) if n is not None else None
    if not progress:
        return lambda n: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="case", desc="judging", file=sys.stderr, leave=False)
    return lambda n: bar.update(n) if n is not None else bar.close()
