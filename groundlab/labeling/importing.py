"""People's labels back into a cases file: from filled sheets, Label Studio's export and Argilla's
records (:mod:`groundlab.labeling.sources`), one person or several, checked against the cases.

Every row is checked before anything is written, and a problem stops the import with one
sentence naming the row: an unknown verdict, a claim that no longer matches its answer, a row for
an unknown case, a repeated row, an ``answerable`` one person wrote two ways, and (unless
``partial``) a claim nobody labeled or a missing row. A row labeled against other passages than
the cases file gives its answer (the sheet of another configuration: same ids and answers, another
retriever) is refused too, naming the rows; with ``partial`` its answer is left unlabeled instead,
and counted. Labels made under different guidelines (the fingerprint each row records) are not
mixed unless ``mixed_guidelines``.

What each answer gets:

- **a claim's label**: its ``settled`` verdict when anyone wrote one; else the verdict every
  person who labeled it gave; a claim people labeled differently, or marked "can't tell", is left
  to settle (listed, and written as a sheet with ``to_settle``);
- **labels**, for whole answers only, since a case's labels must cover all its claims: an answer
  whose every claim has a label gets them (replacing any it had); one only partly labeled, left to
  settle, or not in the sources keeps what the cases file had;
- **answerable**: as written in the sources (none written = unknown); where two people wrote it
  differently, what the cases file had;
- ``meta.labeling``: who labeled it and how (``people``: each person's labels, and notes where
  given; ``blind``: whether the judge's verdict was hidden; ``guidelines``: their fingerprint),
  which the report reads to say how many people labeled and how far they agree.

Everything else in the cases file is kept as it was, passage ids included. Two people's
agreement, claim by claim, is :func:`groundlab.core.people.people_agreement`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

from ..core.claims import ClaimSplitter
from ..core.files import json_line
from ..core.io import PathLike, check_output, load_cases_with_records, outputs_like, plural, write_atomic
from ..core.people import CANT_TELL, PeopleAgreement, people_agreement, person_label
from ..core.records import VERDICTS, Case, InputError, Passage, visible
from .cells import norm, passages_fingerprint, same_text, short
from .sheet import NO_CLAIM, SHEET_COLUMNS, sheet_ids, write_sheet
from .sources import LabelRow, Source, read_source

_TRUE = ("true", "yes")
_FALSE = ("false", "no")
#: Where an answer's labelling is recorded in the cases file, under ``meta``.
META_KEY = "labeling"


@dataclass(frozen=True)
class Disagreement:
    """A claim left to settle: the labels people gave it (``can't tell`` among them, or two verdicts)."""

    case_id: str
    claim_no: int
    labels: Tuple[Tuple[str, str], ...]  # (person, label), by person
    where: str

    def __str__(self) -> str:
        given = ", ".join(f"{person}: {label}" for person, label in self.labels)
        return f"{self.case_id} claim {self.claim_no} ({given})"


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
    #: ``(file, count, unit)`` of every source read.
    sources: Tuple[Tuple[str, int, str], ...] = ()
    people: Optional[PeopleAgreement] = None
    to_settle: Tuple[Disagreement, ...] = ()
    to_settle_sheet: Optional[Path] = None
    #: The rows labeled against other passages (left unlabeled with ``partial``) and their answers.
    other_passages: Tuple[str, ...] = ()
    other_passages_cases: int = 0
    answerable_differs: Tuple[str, ...] = ()
    guidelines: Tuple[str, ...] = ()
    #: True: every label made blind; False: every one seeing the judge's verdicts; None: mixed or unknown.
    blind: Optional[bool] = None

    def __str__(self) -> str:
        if len(self.sources) > 1:
            read = ", ".join(f"{plural(count, unit, unit + 's')} from {name}" for name, count, unit in self.sources)
        elif self.sources and self.sources[0][2] != "row":
            name, count, unit = self.sources[0]
            read = f"{plural(count, unit, unit + 's')} from {name}"
        else:
            read = f"{plural(self.rows, 'row', 'rows')} from {self.sheet}"
        lines = [f"read {read}; wrote {self.out} with labels for "
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
        people = self.people
        if people is not None and people.people:
            names = ", ".join(people.people[:5]) + (", ..." if len(people.people) > 5 else "")
            how = {True: "labels made blind (the judge's verdicts not shown)",
                   False: "labels made seeing the judge's verdicts"}.get(self.blind, "")
            head = (f"Labeled by {plural(len(people.people), 'person', 'people')} ({names})"
                    + (f"; {how}" if how else "") + ".")
            lines.append(head)
            if people.compared:
                text = str(people)
                lines.append(f"Agreement between people: {text[text.index('the same verdict'):]}.")
        if self.to_settle:
            shown = "; ".join(str(d) for d in self.to_settle[:10]) + ("; ..." if len(self.to_settle) > 10 else "")
            where = (f" ({self.to_settle_sheet} lists them)" if self.to_settle_sheet else
                     " (--to-settle FILE writes them as a sheet)")
            answers = len({d.case_id for d in self.to_settle})
            lines.append(f"{plural(len(self.to_settle), 'claim is', 'claims are')} left to settle: {shown}. "
                         f"{'Its answer stays' if answers == 1 else 'Their answers stay'} unlabeled until someone "
                         f"writes the verdict in a settled column{where} and the labels are imported again with it.")
        if self.answerable_differs:
            shown = ", ".join(self.answerable_differs[:10]) + (", ..." if len(self.answerable_differs) > 10 else "")
            lines.append(f"People wrote answerable differently for {plural(len(self.answerable_differs), 'case', 'cases')} "
                         f"({shown}); {'it keeps' if len(self.answerable_differs) == 1 else 'they keep'} what the cases "
                         "file had.")
        if self.other_passages:
            shown = ", ".join(self.other_passages[:5]) + (", ..." if len(self.other_passages) > 5 else "")
            lines.append(f"{plural(len(self.other_passages), 'row was', 'rows were')} labeled against other passages "
                         f"than {self.cases_path} gives {plural(self.other_passages_cases, 'its answer', 'their answers')} "
                         f"({shown}): {plural(self.other_passages_cases, 'that answer is', 'those answers are')} left "
                         "unlabeled; export a sheet from this cases file to label them against their own passages.")
        if len(self.guidelines) > 1:
            lines.append(f"Labels made under {len(self.guidelines)} different guidelines were mixed, as asked "
                         f"({', '.join(short(g) for g in self.guidelines)}).")
        if self.progress is not None:
            text = str(self.progress)
            lines.append(text[:1].upper() + text[1:])
        return visible("\n".join(lines))  # names and ids as text, wherever it is printed


# ---------------------------------------------------------------- reading


class _AnyPassage(Mapping):
    """Stands in for a passages file when labels are read back: passage ids are kept in the
    output as they were written, never looked up (their texts are not known)."""

    def __getitem__(self, key: str) -> Passage:
        return Passage(key, "")

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@dataclass
class _Claim:
    by: Dict[str, Tuple[str, str, str]] = field(default_factory=dict)  # person -> (where, label, note)
    settled: Optional[Tuple[str, str]] = None  # (where, verdict)
    empty: Optional[str] = None  # where of the first row left empty


@dataclass
class _SheetCase:
    claims: Dict[int, _Claim] = field(default_factory=dict)
    no_claim_rows: Dict[str, str] = field(default_factory=dict)  # person -> where
    answerable: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # person -> (where, "true"/"false")
    other_passages: List[str] = field(default_factory=list)
    blind: Set[Optional[bool]] = field(default_factory=set)
    guidelines: Dict[str, str] = field(default_factory=dict)  # fingerprint -> where first seen
    seen: Dict[Tuple[str, int], Tuple[str, str, bool]] = field(default_factory=dict)  # -> (source, where, labeled)
    context: Optional[LabelRow] = None
    #: Whether a sheet row names the case: a sheet prefills answerable, so one left empty there
    #: means unknown; a tool asks it without a prefill, so none given there keeps the cases file's.
    in_sheet: bool = False
    claim_texts: Dict[int, str] = field(default_factory=dict)


def _sources(given: Union[PathLike, Source, Sequence[Union[PathLike, Source]]]) -> List[Source]:
    items = [given] if isinstance(given, (str, Path, Source)) else list(given)
    return [item if isinstance(item, Source) else read_source(item) for item in items]


def read_labels(sources: Union[PathLike, Sequence[PathLike]], cases: Sequence[Case], *,
                splitter: Optional[ClaimSplitter] = None, partial: bool = False,
                passages_known: Optional[Mapping[str, bool]] = None,
                mixed_guidelines: bool = False) -> Tuple[Dict[str, _SheetCase], int]:
    """Check the labels of ``sources`` (sheets, Label Studio or Argilla exports) against ``cases``:
    what they say per case, and how many rows (tasks, records) they hold.

    Raises :class:`InputError` naming the row for every problem of the module docstring.
    ``passages_known``: per case id, whether its passages' texts are known (inline, or read from a
    passages file), so that a row's passages are compared by content; else by their ids.
    """
    read = _sources(sources)
    splitter = splitter or ClaimSplitter()
    by_id = {case.id: case for case in cases}
    ids = sheet_ids(cases)
    claims = {case.id: splitter.split(case.id, case.answer, [p.id for p in case.retrieved], question=case.question).claims
              for case in cases}
    known = passages_known or {}
    prints = {case.id: (passages_fingerprint(case.retrieved) if known.get(case.id, True) else None,
                        ", ".join(p.id for p in case.retrieved)) for case in cases}
    found: Dict[str, _SheetCase] = {}
    for source in read:
        for row in source.rows:
            _read_row(row, source, found, by_id, ids, claims, prints)
    names = " and ".join(s.name for s in read)
    other = [where for entry in found.values() for where in entry.other_passages]
    if other and not partial:
        shown = ", ".join(other[:5]) + (", ..." if len(other) > 5 else "")
        raise InputError(f"{plural(len(other), 'row', 'rows')} ({shown}) {'was' if len(other) == 1 else 'were'} labeled "
                         "against other passages than the cases file gives their answers (a sheet of another "
                         "configuration or retriever): those labels do not hold here; export a sheet from this cases "
                         "file and label those answers again, or pass --partial to import the rest and leave them "
                         "unlabeled.")
    if not partial:
        _check_complete(found, cases, claims, names)
    first: Dict[str, str] = {}
    for entry in found.values():
        if _labeled(entry):
            for g, where in entry.guidelines.items():
                first.setdefault(g, where)
    prints_used = sorted(first)
    if len(prints_used) > 1 and not mixed_guidelines:
        parts = " and ".join(f"{first[g]} under {short(g)}" for g in prints_used[:3])
        raise InputError(f"labels made under different guidelines would be mixed ({parts}); relabel by one of "
                         "them, or pass --mixed-guidelines to accept the mix (the import then says so).")
    return found, sum(s.count for s in read)


def _labeled(entry: _SheetCase) -> bool:
    return any(c.by or c.settled for c in entry.claims.values()) or bool(entry.answerable)


def _read_row(row: LabelRow, source: Source, found: Dict[str, _SheetCase], by_id: Mapping[str, Case],
              ids: Mapping[str, str], claims: Mapping[str, Sequence], prints: Mapping) -> None:
    where = row.where
    case_id = _case_id(row, ids)
    if case_id not in by_id:
        hint = (" (a spreadsheet may have dropped leading zeros from an id that looks like a number: "
                "format that column as text)" if case_id.isdigit() else "")
        raise InputError(f"{where}: case {case_id!r} is not in the cases file{hint}; use the cases "
                         "file the sheet was exported from.")
    case_claims = claims[case_id]
    entry = found.get(case_id)
    if entry is None:
        entry = found[case_id] = _SheetCase(claim_texts={c.number: c.text for c in case_claims})
    raw_number = row.claim_no.strip()
    label = _verdict(row.label, f"{where} (case {case_id}, claim {raw_number or '-'})")
    settled = _settled(row.settled, f"{where} (case {case_id}, claim {raw_number or '-'})")
    answerable = _answerable(row.answerable, f"{where} (case {case_id})")
    person = row.annotator
    if not raw_number:
        at = f"{where} (case {case_id}, no claims)"
        if case_claims:
            raise InputError(f"{at}: the sheet shows this answer without claims but it now holds "
                             f"{len(case_claims)}; the row or the answer was changed after the export: "
                             "export the sheet again.")
        if label is not None or settled is not None:
            raise InputError(f"{at}: this answer holds no claim to label; leave \"label\" empty "
                             "and set \"answerable\" only.")
        if person in entry.no_claim_rows:
            raise InputError(f"{at}: case {case_id} already has its row {_row_name(entry.no_claim_rows[person], row)}; "
                             "delete one of the two.")
        if _other_passages(row, prints[case_id]):
            entry.other_passages.append(where)
            return
        entry.no_claim_rows[person] = where
        _take_answerable(entry, person, answerable, where, case_id, row)
        _note_row(entry, row)
        return
    claim_no = _claim_number(raw_number, where)
    at = f"{where} (case {case_id}, claim {claim_no})"
    if claim_no > len(case_claims):
        raise InputError(f"{at}: the answer holds {len(case_claims)} claim(s), so there is no claim "
                         f"{claim_no}; the row or the answer was changed after the export: export the "
                         "sheet again.")
    expected = case_claims[claim_no - 1].text
    matches = same_text(row.claim, expected, row.fragments) if row.encoded else norm(row.claim) == norm(expected)
    if not matches:
        what = "sheet's" if source.kind == "sheet" else "task's" if source.kind == "label-studio" else "record's"
        shown = row.claim
        if row.encoded:
            from .cells import from_cell

            shown = from_cell(row.claim, row.fragments)
        raise InputError(f"{at}: the {what} claim {_preview(shown)} does not match "
                         f"the answer's {_preview(expected)}; the row or the answer was changed after the "
                         "export: export the sheet again.")
    key = (person, claim_no)
    given = label is not None
    if key in entry.seen:
        first_source, first_where, first_given = entry.seen[key]
        if first_source == source.name or (given and first_given):
            raise InputError(f"{at}: claim {claim_no} of case {case_id} is already on "
                             f"{_row_name(first_where, row, first_source == source.name)}; delete one of the two rows.")
    if _other_passages(row, prints[case_id]):
        entry.other_passages.append(where)
        return
    if key not in entry.seen or given:
        entry.seen[key] = (source.name, where, given)
    claim = entry.claims.setdefault(claim_no, _Claim())
    if given:
        claim.by[person] = (where, label, row.note)
    elif claim.empty is None and settled is None:
        claim.empty = at
    if settled is not None:
        if claim.settled is not None and claim.settled[1] != settled:
            raise InputError(f"{at}: settled as {settled} here but as {claim.settled[1]} on {claim.settled[0]}; "
                             "settle the claim once.")
        claim.settled = (at, settled)
    _take_answerable(entry, person, answerable, where, case_id, row)
    _note_row(entry, row)


def _note_row(entry: _SheetCase, row: LabelRow) -> None:
    entry.blind.add(row.blind)
    entry.in_sheet = entry.in_sheet or row.encoded
    if row.guidelines and (row.label.strip() or row.settled.strip() or row.answerable.strip()):
        entry.guidelines.setdefault(row.guidelines, row.where)
    if entry.context is None:
        entry.context = row


def _take_answerable(entry: _SheetCase, person: str, answerable: Optional[str], where: str, case_id: str,
                     row: LabelRow) -> None:
    if answerable is None:
        return
    before = entry.answerable.get(person)
    if before is not None and before[1] != answerable:
        raise InputError(f"{where}: answerable is {answerable} here but {before[1]} on "
                         f"{_row_name(before[0], row)} for the same case {case_id}; write it once per case.")
    entry.answerable[person] = (where, answerable)


def _row_name(other_where: str, row: LabelRow, same_source: Optional[bool] = None) -> str:
    """How a message names another row: ``row 10`` in the same sheet, else where it is."""
    prefix = f"{row.source} row "
    if (same_source is None or same_source) and other_where.startswith(prefix):
        return other_where[len(prefix) - 4:]
    return other_where


def _other_passages(row: LabelRow, prints: Tuple[Optional[str], str]) -> bool:
    """Whether a row records passages other than those its case holds: by content when both
    fingerprints are known, else by the passages' ids."""
    content, ids = prints
    if row.passages_sha256 and content is not None:
        return row.passages_sha256 != content
    if row.retrieved is not None and (row.passages_sha256 or row.retrieved.strip()):
        return norm(row.retrieved) != norm(ids)
    return False


def _check_complete(found: Dict[str, _SheetCase], cases: Sequence[Case], claims: Mapping, name: str) -> None:
    last_row = 0  # the last sheet row of the cases so far: where a missing row belongs
    for case in cases:
        entry = found.get(case.id)
        if entry is None:
            place = f" (its rows belong after row {last_row})" if last_row else ""
            raise InputError(f"{name} has no row for case {case.id} ({case.source}){place}; export the sheet "
                             "again, or pass --partial to import the cases it has.")
        numbers = {n: _number(where) for n, where in _claim_rows(entry)}
        for claim in claims[case.id]:
            got = entry.claims.get(claim.number)
            if got is not None and (got.by or got.settled):
                continue
            if got is not None and got.empty is not None:
                raise InputError(f"{got.empty}: \"label\" is empty; write supported, contradicted or unsupported, "
                                 "or pass --partial to import the fully labeled cases only (a claim you cannot "
                                 "decide: write can't tell).")
            before = [row for n, row in numbers.items() if n < claim.number and row]
            after = [row for n, row in numbers.items() if n > claim.number and row]
            if before or not after:
                place = f" (it belongs after row {max(before) if before else last_row})"
            else:
                place = f" (it belongs before row {min(after)})"
            raise InputError(f"{name} has no row for case {case.id} claim {claim.number} "
                             f"{_preview(claim.text)}{place if (before or after or last_row) else ''}; "
                             "put the row back, or pass --partial.")
        rows = [r for r in numbers.values() if r] + [_number(w) for w in entry.no_claim_rows.values()]
        last_row = max([r for r in rows if r] + [last_row])


def _claim_rows(entry: _SheetCase) -> Iterator[Tuple[int, str]]:
    for n, claim in entry.claims.items():
        wheres = [w for w, _, _ in claim.by.values()] + ([claim.empty] if claim.empty else [])
        if wheres:
            yield n, wheres[0]


def _number(where: str) -> int:
    match = re.search(r" row (\d+)", where)
    return int(match.group(1)) if match else 0


# ---------------------------------------------------------------- writing


def _decide(claim: Optional[_Claim]) -> Tuple[Optional[str], bool]:
    """A claim's label and whether it is left to settle: the settled verdict; else the one verdict
    every person gave; else none (nobody labeled it: not to settle; people differ or cannot tell:
    to settle)."""
    if claim is None:
        return None, False
    if claim.settled is not None:
        return claim.settled[1], False
    labels = {label for _, label, _ in claim.by.values()}
    if not labels:
        return None, False
    if len(labels) == 1 and CANT_TELL not in labels:
        return labels.pop(), False
    return None, True


def apply_labels(records: List[dict], cases: Sequence[Case], found: Mapping[str, _SheetCase],
                 claims: Mapping[str, Sequence]) -> Tuple[List[dict], ImportReport]:
    """New case records with the labels, ``answerable`` and ``meta.labeling`` the sources give
    (the rules of the module docstring)."""
    out: List[dict] = []
    labeled_cases = labeled_claims = unlabeled_claims = unlabeled_cases = answerable_set = 0
    partly: List[str] = []
    to_settle: List[Disagreement] = []
    differs: List[str] = []
    compared: List[Tuple[str, Dict[str, str]]] = []
    everyone: Set[str] = set()
    blind: Set[Optional[bool]] = set()
    prints: Set[str] = set()
    for record, case in zip(records, cases):
        record = dict(record)
        entry = found.get(case.id)
        n = len(claims[case.id])
        if entry is not None and not entry.other_passages:
            if entry.answerable:
                values = {value for _, value in entry.answerable.values()}
                if len(values) == 1:
                    record["answerable"] = values.pop() == "true"
                    answerable_set += 1
                else:
                    differs.append(case.id)
            elif entry.in_sheet:
                record.pop("answerable", None)
            decided = []
            for k in range(1, n + 1):
                claim = entry.claims.get(k)
                label, settle = _decide(claim)
                decided.append(label)
                if claim is not None:
                    given = {person: label for person, (_, label, _) in claim.by.items()}
                    everyone.update(given)
                    if len(given) > 1:
                        compared.append((case.id, given))
                    if settle:
                        where = next(iter(claim.by.values()))[0]
                        to_settle.append(Disagreement(case.id, k, tuple(sorted(given.items())), where))
            if all(label is not None for label in decided):
                record["labels"] = decided  # [] for an answer without claims: it was looked at
                if n:  # who labeled it; an answer without claims has only its answerable, prefilled
                    record["meta"] = dict(record.get("meta") or {}, **{META_KEY: _meta(entry, n)})
                labeled_cases += 1 if n else 0
                labeled_claims += n
                blind |= entry.blind
                prints |= set(entry.guidelines)
            elif any(label is not None for label in decided) and not any(d.case_id == case.id for d in to_settle):
                partly.append(case.id)
        if record.get("labels") is None and n:
            unlabeled_claims += n
            unlabeled_cases += 1
        out.append(record)
    people = people_agreement(compared, sorted(everyone)) if everyone else None
    other = [w for e in found.values() for w in e.other_passages]
    known = {b for b in blind if b is not None}
    report = ImportReport(0, labeled_cases, labeled_claims, unlabeled_claims, unlabeled_cases, partly,
                          sum(1 for case in cases if case.id not in found), answerable_set,
                          people=people, to_settle=tuple(to_settle), other_passages=tuple(other),
                          other_passages_cases=sum(1 for e in found.values() if e.other_passages),
                          answerable_differs=tuple(differs), guidelines=tuple(sorted(prints)),
                          blind=known.pop() if len(known) == 1 and None not in blind else None)
    return out, report


def _meta(entry: _SheetCase, n: int) -> Dict[str, object]:
    """What ``meta.labeling`` records of an answer: each person's labels (``None`` for a claim they
    did not label) and notes, whether the judge's verdicts were hidden, and the guidelines."""
    people = []
    names = sorted({p for c in entry.claims.values() for p in c.by})  # who labeled a claim of it
    for person in names:
        labels = [entry.claims[k].by[person][1] if k in entry.claims and person in entry.claims[k].by else None
                  for k in range(1, n + 1)]
        notes = [entry.claims[k].by[person][2] if k in entry.claims and person in entry.claims[k].by else ""
                 for k in range(1, n + 1)]
        item: Dict[str, object] = {"annotator": person, "labels": labels}
        if any(notes):
            item["notes"] = notes
        if person in entry.answerable:
            item["answerable"] = entry.answerable[person][1] == "true"
        people.append(item)
    meta: Dict[str, object] = {"people": people}
    settled = [entry.claims[k].settled[1] if k in entry.claims and entry.claims[k].settled else None
               for k in range(1, n + 1)]
    if any(settled):
        meta["settled"] = settled
    known = {b for b in entry.blind if b is not None}
    if len(known) == 1 and None not in entry.blind:
        meta["blind"] = known.pop()
    elif known:
        meta["blind"] = False  # a row seen with the judge's verdict makes the answer's labels seeing
    if len(entry.guidelines) == 1:
        meta["guidelines"] = next(iter(entry.guidelines))
    elif entry.guidelines:
        meta["guidelines"] = sorted(entry.guidelines)
    return meta


def settle_sheet(found: Mapping[str, _SheetCase], to_settle: Sequence[Disagreement], out: PathLike,
                 *, force: bool = False, inputs: Sequence[PathLike] = ()) -> Path:
    """Write the claims left to settle as a sheet: what people said (and why) in ``note``, an
    empty ``settled`` to fill. Imported again beside the labels, its settled verdicts win."""
    import pandas as pd

    rows = []
    for d in to_settle:
        entry = found[d.case_id]
        context = entry.context
        claim = entry.claims[d.claim_no]
        said = "; ".join(f"{person}: {label}" + (f" ({note})" if note else "")
                         for person, (_, label, note) in sorted(claim.by.items()))
        rows.append({"case_id": d.case_id, "claim_no": str(d.claim_no), "question": context.question if context else "",
                     "claim": entry.claim_texts.get(d.claim_no, ""), "cites": "",
                     "passages": context.passages if context else "", "label": "", "note": said, "answerable": "",
                     "annotator": "", "settled": "", "second": "",
                     "retrieved": (context.retrieved or "") if context else "",
                     "passages_sha256": (context.passages_sha256 or "") if context else "",
                     "guidelines": next(iter(sorted(entry.guidelines)), "")})
    sheet = pd.DataFrame(rows, columns=list(SHEET_COLUMNS), dtype=object)
    write_sheet(sheet, out, force=force, inputs=inputs)
    return Path(out)


def import_labels(sheet_path: Union[PathLike, Sequence[PathLike]], cases_path: PathLike, out: PathLike, *,
                  partial: bool = False, force: bool = False, splitter: Optional[ClaimSplitter] = None,
                  margin: float = 0.05, passages: Optional[PathLike] = None, mixed_guidelines: bool = False,
                  to_settle: Optional[PathLike] = None) -> ImportReport:
    """Read the labels of a filled sheet (or several sources: sheets, Label Studio's export,
    Argilla's records) and write ``cases_path`` with them to ``out`` (atomically).

    Nothing is written when a source has a problem, when ``out`` exists (unless ``force``) or
    when it is one of the inputs. ``passages``: the passages file the cases' ids refer to, so that
    each row's passages are compared by content (inline passages always are; without it, ids are
    compared by name). ``to_settle``: write the claims left to settle there as a sheet. When
    ``cases_path`` is a drawn sample (its cases carry their design, as ``groundlab run`` and
    notebook 04 write them), the report also gives the log's hallucination rate the labels so far
    give, with its range, and how many more labeled answers would bring it within ``±margin``
    (:func:`groundlab.labeling.sampling.label_progress`).
    """
    paths = [sheet_path] if isinstance(sheet_path, (str, Path)) else list(sheet_path)
    inputs = [*paths, cases_path] + ([passages] if isinstance(passages, (str, os.PathLike)) else [])
    check_output(out, force, inputs)
    if to_settle is not None:
        if Path(to_settle).resolve() == Path(out).resolve():
            raise InputError(f"--to-settle and --out both name {to_settle}; give the sheet of claims to settle a name "
                             "of its own.")
        check_output(to_settle, force, inputs)
    splitter = splitter or ClaimSplitter()
    table = _AnyPassage() if passages is None else passages
    cases, records = load_cases_with_records(cases_path, table)  # one read: the cases may come from a pipe
    known = {case.id: passages is not None or all(isinstance(p, dict) for p in record.get("retrieved") or [])
             for case, record in zip(cases, records)}
    sources = _sources(paths)
    found, rows = read_labels(sources, cases, splitter=splitter, partial=partial, passages_known=known,
                              mixed_guidelines=mixed_guidelines)
    claims = {case.id: splitter.split(case.id, case.answer, [p.id for p in case.retrieved], question=case.question).claims
              for case in cases}
    new_records, report = apply_labels(records, cases, found, claims)
    with outputs_like(*inputs):
        write_atomic(out, "".join(json_line(r) for r in new_records))
    settle_path = None
    if to_settle is not None and report.to_settle:
        settle_path = settle_sheet(found, report.to_settle, to_settle, force=force, inputs=inputs)
    from .sampling import label_progress

    n_claims = {id(r): len(claims[case.id]) for r, case in zip(new_records, cases)}
    progress = label_progress(new_records, lambda r: n_claims[id(r)], margin)
    return replace(report, rows=rows, sheet=Path(paths[0]), cases_path=Path(cases_path), out=Path(out),
                   progress=progress, sources=tuple((s.name, s.count, s.unit) for s in sources),
                   to_settle_sheet=settle_path)


# ---------------------------------------------------------------- cells


def _case_id(row: LabelRow, ids: Mapping[str, str]) -> str:
    """The id of the case a row names (the cell itself when none)."""
    cell = row.case_id
    if row.encoded:
        from .cells import from_cell

        decoded = from_cell(cell, row.fragments)
        candidates = (decoded, cell, decoded.strip(), cell.strip())
    else:
        decoded = cell
        candidates = (cell, cell.strip())
    for candidate in candidates:
        if candidate in ids:
            return ids[candidate]
    return decoded.strip()


def _verdict(cell: str, where: str) -> Optional[str]:
    value = person_label(cell)
    if value is None or value in VERDICTS or value == CANT_TELL:
        return value
    raise InputError(f"{where}: label {cell.strip()!r} is not a verdict; write supported, contradicted, "
                     "unsupported or can't tell (or leave it empty).")


def _settled(cell: str, where: str) -> Optional[str]:
    value = person_label(cell)
    if value is None or value in VERDICTS:
        return value
    raise InputError(f"{where}: settled {cell.strip()!r} is not a verdict; write supported, contradicted or "
                     "unsupported (or leave it empty).")


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


__all__ = ["Disagreement", "ImportReport", "META_KEY", "NO_CLAIM", "apply_labels", "import_labels", "read_labels",
           "settle_sheet"]
