"""A labeling sheet for people who are not programmers: cases out to a spreadsheet, labels back in.

The sheet (:data:`SHEET_COLUMNS`) has one row per claim, in answer order, and one row for each
case whose answer holds no claim (it abstains), so that ``answerable`` can be set for it too:

- ``case_id``, ``claim_no`` (1, 2, ...; empty on the row of a case without claims), ``question``,
  ``claim`` (on a case without claims: the answer, after ``(no claim to label; set answerable
  only)``), ``cites``
  (the passage ids the claim cites), ``passages`` (every retrieved passage as ``[id] text``,
  separated by blank lines);
- ``judge_verdict`` and ``judge_reason``: the judge's suggestion (empty with ``blind=True``);
- ``label``: empty, for the person: ``supported``, ``contradicted`` or ``unsupported``
  (case and surrounding spaces do not matter);
- ``answerable``: ``true`` / ``false``, on the first row of each case, prefilled with what the
  cases file says (empty = unknown); may be written on any one row of the case.

The file is UTF-8 with a byte-order mark and CRLF line ends, so spreadsheets open it with the
right characters; cells with line breaks are quoted. A cell that would start with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return (:data:`groundlab.frames.FORMULA_START`) gets a leading ``'`` so that a spreadsheet shows it as text, not a formula (and one
that starts with ``'`` gets another, so the first is never mistaken for that mark); a NUL shows as
``\u2400`` (a NUL would make the file binary). An id is found again as exported, or without the
spaces around it that a spreadsheet may trim.

Reading a filled sheet back (:func:`import_labels`):

- a case whose every claim is labeled gets those ``labels`` (replacing any it had);
- a case that is in the sheet gets the ``answerable`` written there (none written = unknown);
- a case only partly labeled, or not in the sheet, keeps what the cases file had: labels are
  written for whole cases only, since a case's labels must cover all its claims. Without
  ``partial=True`` such a case is an error, naming the row.

Everything else in the cases file is kept as it was, passage ids included.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from ..core.claims import ClaimSplitter
from ..core.frames import FORMULA_START
from ..measure.evaluate import claim_pairs, judge_pairs, split_cases
from ..core.io import (PathLike, check_output, load_cases, load_cases_with_records, outputs_like, plural, read_csv,
                 write_atomic)
from ..measure.policy import make_judge
from ..judges import DEFAULT_JUDGE, Judge, nothing_judged
from ..core.records import VERDICTS, Case, GroundlabError, InputError, Passage
from .sampling import SheetWaiting, sample_text

SHEET_COLUMNS: Tuple[str, ...] = ("case_id", "claim_no", "question", "claim", "cites", "passages",
                                  "judge_verdict", "judge_reason", "label", "answerable")

#: The columns :func:`import_labels` reads; the others are there for the person.
READ_COLUMNS: Tuple[str, ...] = ("case_id", "claim_no", "claim", "label", "answerable")

NO_CLAIM = "(no claim to label; set answerable only) "

#: The most characters a spreadsheet cell holds (Excel); longer cells are cut, with a note.
CELL_LIMIT = 32767
_CUT = " [... cut here: a spreadsheet cell holds at most 32,767 characters; see the cases file]"

_FORMULA_START = FORMULA_START  # what starts a formula: one list for every CSV groundlab writes
_NUL = "\u2400"
_TRUE = ("true", "yes")
_FALSE = ("false", "no")


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_sheet` wrote; ``str()`` says it in a sentence."""

    rows: int
    claims: int
    cases: int
    cases_without_claims: int
    cut_cells: int
    judge: Optional[str]
    out: Path

    def __str__(self) -> str:
        suggestion = "no judge suggestions (blind)" if self.judge is None else f"judge {self.judge} suggestions"
        text = (f"wrote {plural(self.rows, 'row', 'rows')} to {self.out}: {plural(self.claims, 'claim', 'claims')} "
                f"of {plural(self.cases, 'case', 'cases')}, plus "
                f"{plural(self.cases_without_claims, 'row', 'rows')} for answers without claims (set answerable "
                f"there); {suggestion}.")
        if self.cut_cells:
            text += (f"\nnote: {plural(self.cut_cells, 'cell was', 'cells were')} longer than a spreadsheet cell "
                     "holds and cut, marked \"cut here\".")
        return text


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_labels` read and wrote; ``str()`` says it in a few sentences."""

    rows: int
    labeled_cases: int
    labeled_claims: int
    unlabeled_claims: int
    unlabeled_cases: int
    partly_labeled_cases: List[str] = field(default_factory=list)
    cases_not_in_sheet: int = 0
    answerable_set: int = 0
    sheet: Optional[Path] = None
    cases_path: Optional[Path] = None
    out: Optional[Path] = None
    #: Where the labels of a drawn sample stand (groundlab.labeling.sampling.label_progress); None
    #: for a whole log.
    progress: Optional[object] = None

    def __str__(self) -> str:
        lines = [f"read {plural(self.rows, 'row', 'rows')} from {self.sheet}; wrote {self.out} with labels for "
                 f"{plural(self.labeled_claims, 'claim', 'claims')} of {plural(self.labeled_cases, 'case', 'cases')} "
                 f"and answerable set on {self.answerable_set}."]
        if self.unlabeled_claims:
            lines.append(f"{plural(self.unlabeled_claims, 'claim', 'claims')} in "
                         f"{plural(self.unlabeled_cases, 'case', 'cases')} "
                         f"{'remains' if self.unlabeled_claims == 1 else 'remain'} unlabeled.")
        partly = self.partly_labeled_cases
        if partly:
            shown = ", ".join(partly[:10]) + (", ..." if len(partly) > 10 else "")
            one = len(partly) == 1
            lines.append(f"{plural(len(partly), 'case is', 'cases are')} only partly labeled in the sheet; "
                         f"{'it keeps the labels it' if one else 'they keep the labels they'} had "
                         f"(none for a fresh log): {shown}.")
        if self.cases_not_in_sheet:
            lines.append(f"{plural(self.cases_not_in_sheet, 'case', 'cases')} of {self.cases_path} not in the "
                         "sheet: kept unchanged.")
        if self.progress is not None:
            text = str(self.progress)
            lines.append(text[:1].upper() + text[1:])
        return "\n".join(lines)


# ---------------------------------------------------------------- export


def sheet_frame(cases: Sequence[Case], *, judge: Union[str, Judge, None] = DEFAULT_JUDGE,
                splitter: Optional[ClaimSplitter] = None) -> pd.DataFrame:
    """The labeling sheet as a DataFrame of strings, one row per claim (see the module docstring).

    ``judge=None`` leaves the suggestion columns empty (blind labeling: people who see the
    judge's verdict tend to agree with it, which flatters the judge when the labels are used
    to check it).

    >>> from groundlab import load_cases, sample_path
    >>> sheet = sheet_frame(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> len(sheet), list(sheet.loc[0, ["case_id", "claim_no", "cites", "judge_verdict", "label", "answerable"]])
    (22, ['c01', '1', 'D07', 'supported', '', 'true'])
    """
    splits = split_cases(cases, splitter)
    verdicts: list = []
    if judge is not None:
        judge = make_judge(judge)
        # The very pairs `evaluate` judges first (every claim against all retrieved passages, the
        # claims of a case together): a model judge asks once per case, and replies cached by a
        # `score` run with the same judge are reused.
        verdicts = judge_pairs(judge, claim_pairs(list(zip(cases, splits))))
    rows: List[Dict[str, str]] = []
    k = 0
    for case, split in zip(cases, splits):
        answerable = "" if case.answerable is None else str(case.answerable).lower()
        passages = "\n\n".join(f"[{p.id}] {p.text}" for p in case.retrieved)
        base = {"case_id": case.id, "question": case.question, "passages": passages, "label": ""}
        if not split.claims:
            rows.append(dict(base, claim_no="", claim=NO_CLAIM + case.answer, cites="", judge_verdict="",
                             judge_reason="", answerable=answerable))
            continue
        for claim in split.claims:
            verdict = verdicts[k] if verdicts else None
            k += 1
            rows.append(dict(base, claim_no=str(claim.number), claim=claim.text, cites=", ".join(claim.cites),
                             judge_verdict="" if verdict is None else (verdict.label or "error"),
                             judge_reason="" if verdict is None else (verdict.error or verdict.reason),
                             answerable=answerable if claim.number == 1 else ""))
    return pd.DataFrame(rows, columns=list(SHEET_COLUMNS), dtype=object)


def sheet_text(sheet: pd.DataFrame) -> Tuple[str, int]:
    """The CSV text of a sheet (byte-order mark, CRLF, quoted line breaks) and how many cells were cut."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(list(sheet.columns))
    cut = 0
    for row in sheet.itertuples(index=False):
        cells = []
        for value in row:
            cell = _to_cell("" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value))
            if len(cell) > CELL_LIMIT:
                cell = cell[:CELL_LIMIT - len(_CUT)] + _CUT
                cut += 1
            cells.append(cell)
        writer.writerow(cells)
    return "\ufeff" + buffer.getvalue(), cut


def write_sheet(sheet: pd.DataFrame, out: PathLike, *, force: bool = False,
                inputs: Sequence[PathLike] = ()) -> int:
    """Write a sheet to ``out`` atomically; returns how many cells were cut to the spreadsheet limit."""
    check_output(out, force, inputs)
    text, cut = sheet_text(sheet)
    with outputs_like(*inputs):
        write_atomic(out, text)
    return cut


def export_sheet(cases_path: PathLike, out: PathLike, *, passages: Optional[PathLike] = None,
                 judge: Union[str, Judge, None] = DEFAULT_JUDGE, splitter: Optional[ClaimSplitter] = None,
                 force: bool = False) -> ExportReport:
    """Write the labeling sheet of a cases file (see :func:`sheet_frame`)."""
    check_output(out, force, [cases_path] + ([passages] if passages else []))
    cases = load_cases(cases_path, passages)
    sheet, judge_name = _suggested_sheet(cases, judge, splitter)
    cut = write_sheet(sheet, out, force=force)
    return _export_report(sheet, cases, cut, judge_name, Path(out))


def _suggested_sheet(cases: Sequence[Case], judge: Union[str, Judge, None],
                     splitter: Optional[ClaimSplitter]) -> Tuple[pd.DataFrame, Optional[str]]:
    """The sheet of ``cases`` with ``judge``'s suggestions; a judge that could not judge a single
    claim stops here, in one sentence, before anything is written."""
    sheet = sheet_frame(cases, judge=judge, splitter=splitter)
    judge_name = None if judge is None else (judge if isinstance(judge, str) else judge.name)
    if judge_name is not None:
        rows = sheet[sheet["claim_no"] != ""]
        errors = [reason if verdict == "error" else None
                  for verdict, reason in zip(rows["judge_verdict"], rows["judge_reason"])]
        stop = nothing_judged(judge_name, errors, instead="export with --blind (no suggestions)")
        if stop:
            raise GroundlabError(stop)
    return sheet, judge_name


def _export_report(sheet: pd.DataFrame, cases: Sequence[Case], cut: int, judge_name: Optional[str],
                   out: Path) -> ExportReport:
    claims = int((sheet["claim_no"] != "").sum())
    return ExportReport(len(sheet), claims, len(cases), len(sheet) - claims, cut, judge_name, out)


@dataclass(frozen=True)
class Round:
    """The files of one labeling round in its folder: the drawn ``sample``, its ``sheet``, the
    ``labeled`` sample the read-back writes; ``export`` says what the sheet holds, ``written``
    which files this call wrote (none when both were already there as this round makes them)."""

    sample: Path
    sheet: Path
    labeled: Path
    export: ExportReport
    written: Tuple[Path, ...]

    def __str__(self) -> str:
        if not self.written:
            return (f"{self.sample} and {self.sheet} are already there as this round makes them; "
                    "nothing was rewritten.")
        text = str(self.export) if self.sheet in self.written else f"kept {self.sheet}, unchanged"
        if self.sample in self.written:
            text += f"\nwrote the sample to {self.sample}."
        if self.sheet.name != "sheet.csv":
            text += (f"\nnote: {self.sheet.parent / 'sheet.csv'} differs from this round's sheet (filled by "
                     "someone, or from another draw), so it was left as it is and this round's files were "
                     "written beside it.")
        return text


def write_round(cases_path: PathLike, design: pd.DataFrame, folder: PathLike, *,
                passages: Optional[PathLike] = None, judge: Union[str, Judge, None] = DEFAULT_JUDGE,
                splitter: Optional[ClaimSplitter] = None) -> Round:
    """Write a labeling round into ``folder``: the drawn cases of ``cases_path`` (see
    :func:`groundlab.sampling.write_sample`) and their sheet, never replacing a sheet someone may
    have filled.

    The files are ``sample.jsonl`` and ``sheet.csv`` when each is absent or already holds exactly
    what this round writes; otherwise the next pair that is (``sample-2.jsonl`` and
    ``sheet-2.csv``, ...), beside them. So a filled sheet, even one filled in place and read back
    with ``filled_sheet``, stays as it is, and a rerun with the same draw rewrites nothing.
    """
    folder = Path(folder)
    inputs = [cases_path] + ([passages] if passages else [])
    sample = sample_text(cases_path, design)
    order = {cid: k for k, cid in enumerate(design["case_id"])}
    cases = sorted((case for case in load_cases(cases_path, passages) if case.id in order),
                   key=lambda case: order[case.id])  # the design's order: the sheet may stop at any row
    sheet, judge_name = _suggested_sheet(cases, judge, splitter)
    text, cut = sheet_text(sheet)
    for k in range(1, 1000):
        suffix = "" if k == 1 else f"-{k}"
        paths = (folder / f"sample{suffix}.jsonl", folder / f"sheet{suffix}.csv")
        contents = (sample, text)
        if all(_holds(path, content) is not False for path, content in zip(paths, contents)):
            break
    else:
        raise GroundlabError(f"{folder} already holds 999 labeling rounds; give another work_dir.")
    written = []
    for path, content in zip(paths, contents):
        if _holds(path, content) is None:
            check_output(path, False, inputs)
            with outputs_like(*inputs):
                write_atomic(path, content)
            written.append(path)
    export = _export_report(sheet, cases, cut, judge_name, paths[1])
    return Round(paths[0], paths[1], folder / f"labeled{suffix}.jsonl", export, tuple(written))


def _holds(path: Path, content: str) -> Optional[bool]:
    """Whether ``path`` holds exactly ``content``: ``None`` when there is no such file."""
    if not path.exists():
        return None
    try:
        return path.read_bytes() == content.encode("utf-8")
    except OSError:
        return False


def read_sheet(path: PathLike) -> pd.DataFrame:
    """A sheet file as a DataFrame of strings (the ``'`` put before formula-like cells removed)."""
    columns, rows = read_csv(path, "sheet", READ_COLUMNS)
    named = [c for c in columns if c]
    return pd.DataFrame([[_from_cell(row[c]) for c in named] for _, row in rows], columns=named, dtype=object)


def fill_labels(sheet: pd.DataFrame, cases: Sequence[Case]) -> pd.DataFrame:
    """A copy of ``sheet`` with the ``label`` column filled from the labels ``cases`` already hold.

    For a demonstration of the round trip on a labeled set, or to put a first person's labels in
    front of a second one; cases without labels leave their rows empty.
    """
    labels = {case.id: case.labels for case in cases if case.labels is not None}
    ids = _sheet_ids(cases)
    filled = sheet.copy()
    for i, (case_id, number) in enumerate(zip(filled["case_id"], filled["claim_no"])):
        known = labels.get(ids.get(case_id, case_id))
        if known and str(number).strip():
            filled.iloc[i, filled.columns.get_loc("label")] = known[int(number) - 1]
    return filled


def work_dir(path: PathLike) -> Path:
    """The folder a labeling round writes into (created when missing); it is kept, since the
    sheet it holds goes out to people and comes back."""
    if not str(path).strip():
        raise GroundlabError("work_dir is empty; give the folder where the sample and the labeling sheet are "
                             "written and kept (e.g. ../reports/labeling).")
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def demo_sheet(sheet: PathLike, cases: Sequence[Case], out: PathLike, *, partial: bool = False) -> Optional[Path]:
    """Stand in for the people who label: write ``sheet`` to ``out`` with the labels ``cases``
    already hold (a demonstration on a labeled set, such as the sample set).

    Only when those labels fill every claim row of the sheet (with ``partial``, at least one);
    else nothing is written and ``None`` says the sheet must wait for people.
    """
    filled = fill_labels(read_sheet(sheet), cases)
    rows = filled["claim_no"].str.strip() != ""
    labeled = filled.loc[rows, "label"].str.strip() != ""
    if not labeled.any() or (not partial and not labeled.all()):
        return None
    write_sheet(filled, out, force=True)
    return Path(out)


def read_back(sheet: PathLike, sample: PathLike, out: PathLike, *, filled_sheet: PathLike = "",
              cases: Sequence[Case] = (), partial: bool = False,
              splitter: Optional[ClaimSplitter] = None) -> Union[ImportReport, SheetWaiting]:
    """Read the labels of a round back into ``out`` (the sample with its labels), replacing it.

    The labels come from ``filled_sheet`` when one is given; else from the labels ``cases`` (the
    log) already hold, written into ``<sheet>-filled-demo.csv`` beside ``sheet`` (see
    :func:`demo_sheet`); else there are none yet, and a :class:`SheetWaiting` says so instead of
    an import failing on empty labels.
    """
    sheet = Path(sheet)
    if str(filled_sheet).strip():
        source: Optional[Path] = Path(filled_sheet)
    else:
        source = demo_sheet(sheet, cases, sheet.with_name(f"{sheet.stem}-filled-demo.csv"), partial=partial)
    if source is None:
        return SheetWaiting(sheet)
    return import_labels(source, sample, out, partial=partial, force=True, splitter=splitter)


# ---------------------------------------------------------------- import


class _AnyPassage(Mapping):
    """Stands in for a passages file when labels are read back: only answers are needed, and
    passage ids are kept in the output as they were written, never looked up."""

    def __getitem__(self, key: str) -> Passage:
        return Passage(key, "")

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@dataclass
class _SheetCase:
    claims: Dict[int, Tuple[int, Optional[str]]] = field(default_factory=dict)  # claim -> (row, label)
    no_claim_row: Optional[int] = None
    answerable: Optional[Tuple[int, str]] = None  # (row, "true"/"false")


def read_labels(sheet_path: PathLike, cases: Sequence[Case], *, splitter: Optional[ClaimSplitter] = None,
                partial: bool = False) -> Tuple[Dict[str, _SheetCase], int]:
    """Check a filled sheet against ``cases``: what it says per case, and how many rows it has.

    Raises :class:`InputError` naming the sheet row for an unknown verdict, a claim that no
    longer matches its case, a row for an unknown case, a repeated row, an ``answerable`` the
    case's rows disagree on, and (unless ``partial``) an empty label or a missing row.
    """
    name = str(sheet_path)
    _, rows = read_csv(sheet_path, "sheet", READ_COLUMNS)
    splitter = splitter or ClaimSplitter()
    by_id = {case.id: case for case in cases}
    ids = _sheet_ids(cases)
    claims = {case.id: splitter.split(case.id, case.answer, [p.id for p in case.retrieved], question=case.question).claims
              for case in cases}
    found: Dict[str, _SheetCase] = {}
    for number, row in rows:
        case_id = _case_id(row["case_id"], ids)
        where = f"{name} row {number}"
        if case_id not in by_id:
            hint = (" (a spreadsheet may have dropped leading zeros from an id that looks like a number: "
                    "format that column as text)" if case_id.isdigit() else "")
            raise InputError(f"{where}: case {case_id!r} is not in the cases file{hint}; use the cases "
                             "file the sheet was exported from.")
        entry = found.setdefault(case_id, _SheetCase())
        case_claims = claims[case_id]
        raw_number = row["claim_no"].strip()
        label = _verdict(row["label"], f"{where} (case {case_id}, claim {raw_number or '-'})")
        answerable = _answerable(row["answerable"], f"{where} (case {case_id})")
        if answerable is not None:
            if entry.answerable is not None and entry.answerable[1] != answerable:
                raise InputError(f"{where}: answerable is {answerable} here but {entry.answerable[1]} on row "
                                 f"{entry.answerable[0]} for the same case {case_id}; write it once per case.")
            entry.answerable = (number, answerable)
        if not raw_number:
            where = f"{where} (case {case_id}, no claims)"
            if case_claims:
                raise InputError(f"{where}: the sheet shows this answer without claims but it now holds "
                                 f"{len(case_claims)}; the row or the answer was changed after the export: "
                                 "export the sheet again.")
            if label is not None:
                raise InputError(f"{where}: this answer holds no claim to label; leave \"label\" empty "
                                 "and set \"answerable\" only.")
            if entry.no_claim_row is not None:
                raise InputError(f"{where}: case {case_id} already has its row {entry.no_claim_row}; "
                                 "delete one of the two.")
            entry.no_claim_row = number
            continue
        claim_no = _claim_number(raw_number, where)
        where = f"{where} (case {case_id}, claim {claim_no})"
        if claim_no > len(case_claims):
            raise InputError(f"{where}: the answer holds {len(case_claims)} claim(s), so there is no claim "
                             f"{claim_no}; the row or the answer was changed after the export: export the "
                             "sheet again.")
        expected = case_claims[claim_no - 1].text
        if _norm(_from_cell(row["claim"])) != _norm(_shown(expected)):
            raise InputError(f"{where}: the sheet's claim {_preview(_from_cell(row['claim']))} does not match "
                             f"the answer's {_preview(expected)}; the row or the answer was changed after the "
                             "export: export the sheet again.")
        if claim_no in entry.claims:
            raise InputError(f"{where}: claim {claim_no} of case {case_id} is already on row "
                             f"{entry.claims[claim_no][0]}; delete one of the two rows.")
        if label is None and not partial:
            raise InputError(f"{where}: \"label\" is empty; write supported, contradicted or unsupported, "
                             "or pass --partial to import the fully labeled cases only.")
        entry.claims[claim_no] = (number, label)
    if not partial:
        _check_complete(found, cases, claims, name)
    return found, len(rows)


def _check_complete(found: Dict[str, _SheetCase], cases: Sequence[Case], claims: Mapping, name: str) -> None:
    last_row = 0  # the last sheet row of the cases so far: where a missing row belongs
    for case in cases:
        entry = found.get(case.id)
        if entry is None:
            place = f" (its rows belong after row {last_row})" if last_row else ""
            raise InputError(f"{name} has no row for case {case.id} ({case.source}){place}; export the sheet "
                             "again, or pass --partial to import the cases it has.")
        rows = [row for row, _ in entry.claims.values()] + [r for r in [entry.no_claim_row] if r]
        for claim in claims[case.id]:
            if claim.number not in entry.claims:
                before = [row for n, (row, _) in entry.claims.items() if n < claim.number]
                after = [row for n, (row, _) in entry.claims.items() if n > claim.number]
                if before or not after:
                    place = f" (it belongs after row {max(before) if before else last_row})"
                else:
                    place = f" (it belongs before row {min(after)})"
                raise InputError(f"{name} has no row for case {case.id} claim {claim.number} "
                                 f"{_preview(claim.text)}{place if (before or after or last_row) else ''}; "
                                 "put the row back, or pass --partial.")
        last_row = max(rows + [last_row])


def apply_labels(records: List[dict], cases: Sequence[Case], found: Mapping[str, _SheetCase],
                 claims: Mapping[str, Sequence]) -> Tuple[List[dict], ImportReport]:
    """New case records with the sheet's ``labels`` and ``answerable`` (the rules of the module docstring)."""
    out: List[dict] = []
    labeled_cases = labeled_claims = unlabeled_claims = unlabeled_cases = answerable_set = 0
    partly: List[str] = []
    for record, case in zip(records, cases):
        record = dict(record)
        entry = found.get(case.id)
        n = len(claims[case.id])
        if entry is not None:
            if entry.answerable is None:
                record.pop("answerable", None)
            else:
                record["answerable"] = entry.answerable[1] == "true"
                answerable_set += 1
            given = [entry.claims.get(k, (0, None))[1] for k in range(1, n + 1)]
            if all(label is not None for label in given):
                record["labels"] = given  # [] for an answer without claims: it was looked at
                labeled_cases += 1 if n else 0
                labeled_claims += n
            elif any(label is not None for label in given):
                partly.append(case.id)
        if record.get("labels") is None and n:
            unlabeled_claims += n
            unlabeled_cases += 1
        out.append(record)
    return out, ImportReport(0, labeled_cases, labeled_claims, unlabeled_claims, unlabeled_cases, partly,
                             sum(1 for case in cases if case.id not in found), answerable_set)


def import_labels(sheet_path: PathLike, cases_path: PathLike, out: PathLike, *, partial: bool = False,
                  force: bool = False, splitter: Optional[ClaimSplitter] = None, margin: float = 0.05) -> ImportReport:
    """Read a filled sheet and write ``cases_path`` with its labels to ``out`` (atomically).

    Nothing is written when the sheet has a problem, when ``out`` exists (unless ``force``) or
    when it is one of the inputs. When ``cases_path`` is a drawn sample (its cases carry their
    design, as ``groundlab run`` and notebook 04 write them), the report also gives the log's
    hallucination rate the labels so far give, with its range, and how many more labeled answers
    would bring it within ``±margin`` (:func:`groundlab.labeling.sampling.label_progress`).
    """
    check_output(out, force, [sheet_path, cases_path])
    splitter = splitter or ClaimSplitter()
    cases, records = load_cases_with_records(cases_path, _AnyPassage())  # one read: the cases may come from a pipe
    found, rows = read_labels(sheet_path, cases, splitter=splitter, partial=partial)
    claims = {case.id: splitter.split(case.id, case.answer, [p.id for p in case.retrieved], question=case.question).claims
              for case in cases}
    new_records, report = apply_labels(records, cases, found, claims)
    with outputs_like(sheet_path, cases_path):
        write_atomic(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in new_records))
    from .sampling import label_progress

    n_claims = {id(r): len(claims[case.id]) for r, case in zip(new_records, cases)}
    progress = label_progress(new_records, lambda r: n_claims[id(r)], margin)
    return replace(report, rows=rows, sheet=Path(sheet_path), cases_path=Path(cases_path), out=Path(out),
                   progress=progress)


# ---------------------------------------------------------------- cells


def _to_cell(text: str) -> str:
    text = _shown(text)
    return "'" + text if text.startswith(_FORMULA_START + ("'",)) else text


def _from_cell(text: str) -> str:
    """Undo :func:`_to_cell`; a spreadsheet may also have dropped the ``'`` when saving."""
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA_START + ("'",)) else text


def _shown(text: str) -> str:
    """``text`` as the sheet writes it: a NUL, which would make the file binary to every reader
    (this one included), as the symbol for it, \u2400."""
    return text.replace("\0", _NUL) if "\0" in text else text


def _sheet_ids(cases: Sequence[Case]) -> Dict[str, str]:
    """Each case's id by the ways a sheet may hold it: as exported, and without the spaces around
    it that a spreadsheet may trim (when no other id reads so)."""
    exact = {_shown(case.id): case.id for case in cases}
    trimmed: Dict[str, List[str]] = {}
    for shown, cid in exact.items():
        trimmed.setdefault(shown.strip(), []).append(cid)
    return {**{k: v[0] for k, v in trimmed.items() if len(v) == 1 and k not in exact}, **exact}


def _case_id(cell: str, ids: Mapping[str, str]) -> str:
    """The id of the case a sheet's ``case_id`` cell names (the cell itself when none)."""
    for candidate in (_from_cell(cell), cell, _from_cell(cell).strip(), cell.strip()):
        if candidate in ids:
            return ids[candidate]
    return _from_cell(cell).strip()


def _norm(text: str) -> str:
    return " ".join(text.split())


def _verdict(cell: str, where: str) -> Optional[str]:
    value = cell.strip().lower()
    if not value:
        return None
    if value not in VERDICTS:
        raise InputError(f"{where}: label {cell.strip()!r} is not a verdict; write supported, contradicted "
                         "or unsupported (or leave it empty).")
    return value


def _answerable(cell: str, where: str) -> Optional[str]:
    value = cell.strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return "true"
    if value in _FALSE:
        return "false"
    raise InputError(f"{where}: answerable {cell.strip()!r} is not true or false; write true, false, or "
                     "leave it empty when unknown.")


def _claim_number(cell: str, where: str) -> int:
    # A spreadsheet may save the whole number 2 as "2.0".
    match = re.fullmatch(r"(\d+)(?:\.0*)?", cell)
    if not match or int(match.group(1)) < 1:
        raise InputError(f"{where}: claim_no {cell!r} is not a claim number (1, 2, ...); restore the "
                         "number the sheet was exported with.")
    return int(match.group(1))


def _preview(text: str, width: int = 60) -> str:
    return json.dumps(text if len(text) <= width else text[:width] + "...", ensure_ascii=False)


__all__ = ["CELL_LIMIT", "ExportReport", "ImportReport", "NO_CLAIM", "READ_COLUMNS", "Round", "SHEET_COLUMNS", "SheetWaiting", "apply_labels",
           "demo_sheet", "export_sheet", "fill_labels", "import_labels", "read_back", "read_labels", "read_sheet",
           "sheet_frame", "sheet_text", "work_dir", "write_round", "write_sheet"]
