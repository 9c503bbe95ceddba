"""A labeling sheet for people who are not programmers: cases out to a spreadsheet (or the labeling
view, :mod:`groundlab.labeling.view`, which writes the same file).

The sheet (:data:`SHEET_COLUMNS`) has one row per claim, in answer order, and one row for each
case whose answer holds no claim (it abstains), so that ``answerable`` can be set for it too:

- ``case_id``, ``claim_no`` (1, 2, ...; empty on the row of a case without claims), ``question``,
  ``claim`` (on a case without claims: the answer, after ``(no claim to label; set answerable
  only)``), ``cites`` (the passage ids the claim cites), ``passages`` (every retrieved passage as
  ``[id] text``, separated by blank lines);
- ``judge_verdict`` and ``judge_reason``: the judge's suggestion, only in a sheet made with
  ``--show-judge`` (``judge=...``): by default the sheet is blind, since people who see a
  suggestion tend to agree with it, and these labels check the judge;
- for the person: ``label`` (``supported``, ``contradicted``, ``unsupported`` or ``can't tell``;
  case and surrounding spaces do not matter), ``note`` (why), ``answerable`` (``true`` /
  ``false`` once per case, on its first row, prefilled with what the cases file says; empty =
  unknown), ``annotator`` (who labeled the row), ``settled`` (the verdict that settles a claim
  people disagreed on or could not tell; it wins over every label);
- for the read-back: ``second`` (``yes`` on the answers a second person labels too),
  ``retrieved`` (the ids of the passages the claim was judged against), ``passages_sha256`` (their
  fingerprint, ids and texts) and ``guidelines`` (the fingerprint of the guidelines it is labeled
  by, :mod:`groundlab.labeling.guidelines`).

The file is UTF-8 with a byte-order mark and CRLF line ends, so spreadsheets open it with the
right characters; every cell is quoted, and every place a spreadsheet could start a cell is kept
from starting a formula (:mod:`groundlab.labeling.cells`); a NUL shows as ``\u2400``. A cell longer
than a spreadsheet holds is cut and marked; the claim is found again by its beginning.

Reading the labels back is :mod:`groundlab.labeling.importing`; a round of a drawn sample,
:mod:`groundlab.labeling.rounds`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from ..core.claims import ClaimSplitter
from ..core.io import PathLike, check_output, load_cases, outputs_like, plural, read_csv, write_atomic
from ..core.records import Case, GroundlabError
from ..judges import Judge, nothing_judged
from ..measure.evaluate import claim_pairs, judge_pairs, split_cases
from ..measure.policy import make_judge
from .cells import CELL_LIMIT, cut_cell, from_cell, passages_fingerprint, short, shown, to_cell
from .guidelines import Guidelines, guidelines_for

#: The columns of a claim and its passages, for the person to read.
CASE_COLUMNS: Tuple[str, ...] = ("case_id", "claim_no", "question", "claim", "cites", "passages")
#: The judge's suggestion: only in a sheet made with ``--show-judge``.
JUDGE_COLUMNS: Tuple[str, ...] = ("judge_verdict", "judge_reason")
#: What the person writes.
PERSON_COLUMNS: Tuple[str, ...] = ("label", "note", "answerable", "annotator", "settled")
#: What the read-back checks: the second person's share and what the claim was judged against.
TRACE_COLUMNS: Tuple[str, ...] = ("second", "retrieved", "passages_sha256", "guidelines")

#: A blind sheet's columns (the default).
SHEET_COLUMNS: Tuple[str, ...] = CASE_COLUMNS + PERSON_COLUMNS + TRACE_COLUMNS
#: A sheet's columns with the judge's suggestion (``--show-judge``).
SHEET_COLUMNS_WITH_JUDGE: Tuple[str, ...] = CASE_COLUMNS + JUDGE_COLUMNS + PERSON_COLUMNS + TRACE_COLUMNS
#: The columns of a sheet written before the fingerprints, the annotator and the note (still read).
EARLIER_COLUMNS: Tuple[str, ...] = CASE_COLUMNS + JUDGE_COLUMNS + ("label", "answerable")

#: The columns the read-back needs; the others are there for the person, or checked when present.
READ_COLUMNS: Tuple[str, ...] = ("case_id", "claim_no", "claim", "label", "answerable")

NO_CLAIM = "(no claim to label; set answerable only) "


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
    guidelines: Optional[Guidelines] = None
    #: Answers set aside for a second person (their rows say ``second`` yes).
    second: int = 0

    def __str__(self) -> str:
        suggestion = ("no judge suggestions (blind)" if self.judge is None else
                      f"judge {self.judge} suggestions shown (--show-judge: labels made seeing them)")
        text = (f"wrote {plural(self.rows, 'row', 'rows')} to {self.out}: {plural(self.claims, 'claim', 'claims')} "
                f"of {plural(self.cases, 'case', 'cases')}, plus "
                f"{plural(self.cases_without_claims, 'row', 'rows')} for answers without claims (set answerable "
                f"there); {suggestion}.")
        if self.guidelines is not None:
            g = self.guidelines
            text += (f"\n{'wrote' if g.written else 'labeled by'} the guidelines {g.path} "
                     f"({short(g.fingerprint)}), recorded on every row.")
        if self.cut_cells:
            text += (f"\nnote: {plural(self.cut_cells, 'cell was', 'cells were')} longer than a spreadsheet cell "
                     "holds and cut, marked \"cut here\"; the labels still read back.")
        return text


# ---------------------------------------------------------------- the sheet


def sheet_frame(cases: Sequence[Case], *, judge: Union[str, Judge, None] = None,
                splitter: Optional[ClaimSplitter] = None, guidelines: str = "",
                second: Collection[str] = ()) -> pd.DataFrame:
    """The labeling sheet as a DataFrame of strings, one row per claim (see the module docstring).

    Blind by default: ``judge`` (a name or a judge) adds the judge's verdict and reason
    (``--show-judge``). ``guidelines``: the fingerprint of the guidelines it is labeled by;
    ``second``: the ids of the cases a second person labels too.

    >>> from groundlab import load_cases, sample_path
    >>> sheet = sheet_frame(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")))
    >>> len(sheet), list(sheet.loc[0, ["case_id", "claim_no", "cites", "label", "answerable"]])
    (22, ['c01', '1', 'D07', '', 'true'])
    >>> "judge_verdict" in sheet
    False
    """
    splits = split_cases(cases, splitter)
    verdicts: list = []
    if judge is not None:
        judge = make_judge(judge)
        # The very pairs `evaluate` judges first (every claim against all retrieved passages, the
        # claims of a case together): a model judge asks once per case, and replies cached by a
        # `score` run with the same judge are reused.
        verdicts = judge_pairs(judge, claim_pairs(list(zip(cases, splits))))
    second = set(second)
    rows: List[Dict[str, str]] = []
    k = 0
    for case, split in zip(cases, splits):
        answerable = "" if case.answerable is None else str(case.answerable).lower()
        passages = "\n\n".join(f"[{p.id}] {p.text}" for p in case.retrieved)
        base = {"case_id": case.id, "question": case.question, "passages": passages, "label": "", "note": "",
                "annotator": "", "settled": "", "second": "yes" if case.id in second else "",
                "retrieved": ", ".join(p.id for p in case.retrieved),
                "passages_sha256": passages_fingerprint(case.retrieved), "guidelines": guidelines}
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
    columns = SHEET_COLUMNS if judge is None else SHEET_COLUMNS_WITH_JUDGE
    return pd.DataFrame(rows, columns=list(columns), dtype=object)


def sheet_text(sheet: pd.DataFrame) -> Tuple[str, int]:
    """The CSV text of a sheet (byte-order mark, CRLF, every cell quoted and kept from starting a
    formula) and how many cells were cut to the spreadsheet limit."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    writer.writerow(list(sheet.columns))
    cut = 0
    for row in sheet.itertuples(index=False):
        cells = []
        for value in row:
            cell = to_cell("" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value))
            if len(cell) > CELL_LIMIT:
                cell = cut_cell(cell)
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
                 judge: Union[str, Judge, None] = None, splitter: Optional[ClaimSplitter] = None,
                 force: bool = False, guidelines: Optional[PathLike] = None) -> ExportReport:
    """Write the labeling sheet of a cases file (see :func:`sheet_frame`), blind unless a
    ``judge`` is given, and the guidelines it is labeled by (``GUIDELINES.md`` beside it, kept
    when there, or the file ``guidelines`` names)."""
    check_output(out, force, [cases_path] + ([passages] if passages else []))
    cases = load_cases(cases_path, passages)
    rules = guidelines_for(Path(out).parent, guidelines, write=False)
    sheet, judge_name = suggested_sheet(cases, judge, splitter, guidelines=rules.fingerprint)
    cut = write_sheet(sheet, out, force=force, inputs=[cases_path] + ([passages] if passages else []))
    return export_report(sheet, cases, cut, judge_name, Path(out), rules.write())


def suggested_sheet(cases: Sequence[Case], judge: Union[str, Judge, None], splitter: Optional[ClaimSplitter],
                    guidelines: str = "", second: Collection[str] = ()) -> Tuple[pd.DataFrame, Optional[str]]:
    """The sheet of ``cases`` (with ``judge``'s suggestions when one is given); a judge that could
    not judge a single claim stops here, in one sentence, before anything is written."""
    sheet = sheet_frame(cases, judge=judge, splitter=splitter, guidelines=guidelines, second=second)
    judge_name = None if judge is None else (judge if isinstance(judge, str) else judge.name)
    if judge_name is not None:
        rows = sheet[sheet["claim_no"] != ""]
        errors = [reason if verdict == "error" else None
                  for verdict, reason in zip(rows["judge_verdict"], rows["judge_reason"])]
        stop = nothing_judged(judge_name, errors, instead="export without --show-judge (no suggestions)")
        if stop:
            raise GroundlabError(stop)
    return sheet, judge_name


def export_report(sheet: pd.DataFrame, cases: Sequence[Case], cut: int, judge_name: Optional[str],
                  out: Path, guidelines: Optional[Guidelines] = None) -> ExportReport:
    claims = int((sheet["claim_no"] != "").sum())
    second = len(set(sheet.loc[sheet["second"] == "yes", "case_id"])) if "second" in sheet else 0
    return ExportReport(len(sheet), claims, len(cases), len(sheet) - claims, cut, judge_name, out, guidelines, second)


# ---------------------------------------------------------------- reading a sheet as it is


def is_current(columns: Sequence[str]) -> bool:
    """Whether a sheet's header is of the current kind (it records the guidelines), whose cells are
    marked wherever a cell may start; an earlier sheet marked the start of a cell only."""
    return "guidelines" in columns


def read_sheet(path: PathLike) -> pd.DataFrame:
    """A sheet file as a DataFrame of strings, each cell as it was written (the marks that keep it
    from starting a formula taken out); a sheet of the earlier kind gets the columns it lacks, empty."""
    columns, rows = read_csv(path, "sheet", READ_COLUMNS)
    named = [c for c in columns if c]
    fragments = is_current(named)
    frame = pd.DataFrame([[from_cell(row[c], fragments) for c in named] for _, row in rows], columns=named,
                         dtype=object)
    for column in SHEET_COLUMNS:
        if column not in frame:
            frame[column] = ""
    frame.attrs["rows"] = [number for number, _ in rows]
    frame.attrs["columns"] = named
    return frame


def fill_labels(sheet: pd.DataFrame, cases: Sequence[Case], annotator: str = "") -> pd.DataFrame:
    """A copy of ``sheet`` with the ``label`` column filled from the labels ``cases`` already hold
    (and ``annotator`` written beside each label filled, when given).

    For a demonstration of the round trip on a labeled set, or to put a first person's labels in
    front of a second one; cases without labels leave their rows empty.
    """
    labels = {case.id: case.labels for case in cases if case.labels is not None}
    ids = sheet_ids(cases)
    filled = sheet.copy()
    for i, (case_id, number) in enumerate(zip(filled["case_id"], filled["claim_no"])):
        known = labels.get(ids.get(case_id, case_id))
        if known and str(number).strip():
            filled.iloc[i, filled.columns.get_loc("label")] = known[int(number) - 1]
            if annotator and "annotator" in filled:
                filled.iloc[i, filled.columns.get_loc("annotator")] = annotator
    return filled


def sheet_ids(cases: Sequence[Case]) -> Dict[str, str]:
    """Each case's id by the ways a sheet may hold it: as exported, and without the spaces around
    it that a spreadsheet may trim (when no other id reads so)."""
    exact = {shown(case.id): case.id for case in cases}
    trimmed: Dict[str, List[str]] = {}
    for written, cid in exact.items():
        trimmed.setdefault(written.strip(), []).append(cid)
    return {**{k: v[0] for k, v in trimmed.items() if len(v) == 1 and k not in exact}, **exact}


__all__ = ["CELL_LIMIT", "EARLIER_COLUMNS", "ExportReport", "JUDGE_COLUMNS", "NO_CLAIM", "READ_COLUMNS",
           "SHEET_COLUMNS", "SHEET_COLUMNS_WITH_JUDGE", "export_report", "export_sheet", "fill_labels", "is_current",
           "read_sheet", "sheet_frame", "sheet_ids", "sheet_text", "suggested_sheet", "write_sheet"]
