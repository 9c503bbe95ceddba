"""A labeling round of a drawn sample, in its folder: the sample (:mod:`.sampling`), its sheet
(:mod:`.sheet`), the guidelines it is labeled by (:mod:`.guidelines`), the second person's share
of it, and the labels read back (:mod:`.importing`). What notebook 04 and ``groundlab run`` write.

**The second person's share.** A share of the drawn answers is labeled by a second person as well,
in a sheet of its own (``second-person.csv``, its rows marked ``second`` in the main sheet too), so
that how far two people agree is measured, not assumed. It is sized for Cohen's kappa between the
two within ±0.15 (95%): about 108 claims both label, at the agreement people typically reach on
such claims (85% the same verdict where chance gives 55%;
:func:`groundlab.core.people.claims_for_kappa`), the first answers of the sheet's order (itself a
stratified sample) until their claims reach that many. A request smaller than that goes to the
second person whole, and the range it can give is said.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

import pandas as pd

from ..core.claims import ClaimSplitter
from ..core.io import PathLike, check_output, load_cases, outputs_like, plural, write_atomic
from ..core.people import KAPPA_MARGIN, claims_for_kappa, kappa_margin
from ..core.records import Case, GroundlabError, visible
from ..judges import Judge
from ..measure.evaluate import split_cases
from .guidelines import Guidelines, guidelines_for
from .importing import ImportReport, import_labels
from .sampling import SheetWaiting, sample_text
from .sheet import ExportReport, export_report, fill_labels, read_sheet, sheet_text, suggested_sheet, write_sheet

#: The second person's sheet in a round's folder (``second-person-2.csv`` beside a second round).
SECOND_SHEET = "second-person"


@dataclass(frozen=True)
class SecondShare:
    """The answers set aside for a second person: how many, their claims, and the range of kappa
    they give (``asked``: the number asked for; ``None`` when sized for :data:`KAPPA_MARGIN`)."""

    answers: int
    claims: int
    of_answers: int
    asked: Optional[int] = None

    @property
    def margin(self) -> float:
        return kappa_margin(self.claims)

    def __str__(self) -> str:
        if not self.answers:
            return "no answer goes to a second person (asked for none), so how far people agree is not measured."
        head = (f"{plural(self.answers, 'answer', 'answers')} ({plural(self.claims, 'claim', 'claims')}) of the "
                f"{self.of_answers} with claims go to a second person as well")
        needed = claims_for_kappa()
        if self.asked is not None:
            return f"{head}, as asked: Cohen's kappa between the two within about \u00b1{self.margin:.2f}."
        if self.claims >= needed:
            return (f"{head}: enough for Cohen's kappa between the two within about \u00b1{KAPPA_MARGIN:.2f} "
                    f"({needed} claims, if they agree on 85% of claims where chance gives 55%).")
        return (f"{head}: all of them, fewer than the {needed} claims that would put Cohen's kappa within "
                f"\u00b1{KAPPA_MARGIN:.2f}, so within about \u00b1{self.margin:.2f}.")


def second_share(cases: Sequence[Case], claims: Sequence[int], asked: int = -1) -> Tuple[List[str], SecondShare]:
    """The ids of the answers a second person labels too, in sheet order, and what they give
    (:class:`SecondShare`): ``asked`` answers (those with claims, from the top); ``-1`` sizes the
    share for kappa within :data:`KAPPA_MARGIN`; ``0`` sets none aside."""
    with_claims = [(case.id, n) for case, n in zip(cases, claims) if n]
    if asked is not None and asked < -1:
        raise GroundlabError(f"the second person's share must be 0 or more answers (or -1 to size it), not {asked}.")
    if asked == 0:
        return [], SecondShare(0, 0, len(with_claims), 0)
    needed = claims_for_kappa()
    ids: List[str] = []
    total = 0
    for cid, n in with_claims:
        if (asked == -1 and total >= needed) or (asked != -1 and len(ids) >= asked):
            break
        ids.append(cid)
        total += n
    return ids, SecondShare(len(ids), total, len(with_claims), None if asked == -1 else asked)


@dataclass(frozen=True)
class Round:
    """The files of one labeling round in its folder: the drawn ``sample``, its ``sheet``, the
    ``labeled`` sample the read-back writes, the ``second`` person's sheet (``None`` without a
    share) and the ``guidelines``; ``export`` says what the sheet holds, ``written`` which files
    this call wrote (none when all were already there as this round makes them)."""

    sample: Path
    sheet: Path
    labeled: Path
    export: ExportReport
    written: Tuple[Path, ...]
    second: Optional[Path] = None
    share: Optional[SecondShare] = None
    guidelines: Optional[Guidelines] = None

    def __str__(self) -> str:
        if not self.written:
            text = (f"{self.sample} and {self.sheet} are already there as this round makes them; "
                    "nothing was rewritten.")
        else:
            text = str(self.export) if self.sheet in self.written else f"kept {self.sheet}, unchanged"
            if self.sample in self.written:
                text += f"\nwrote the sample to {self.sample}."
            if self.sheet.name != "sheet.csv":
                text += (f"\nnote: {self.sheet.parent / 'sheet.csv'} differs from this round's sheet (filled by "
                         "someone, or from another draw), so it was left as it is and this round's files were "
                         "written beside it.")
        if self.share is not None:
            where = f" ({self.second})" if self.second is not None else ""
            text += f"\n{str(self.share)[:1].upper()}{str(self.share)[1:].rstrip('.')}{where}."
        return visible(text)  # file names as text, wherever it is printed


def write_round(cases_path: PathLike, design: pd.DataFrame, folder: PathLike, *,
                passages: Optional[PathLike] = None, judge: Union[str, Judge, None] = None,
                splitter: Optional[ClaimSplitter] = None, second: int = -1,
                guidelines: Optional[PathLike] = None) -> Round:
    """Write a labeling round into ``folder``: the drawn cases of ``cases_path`` (see
    :func:`groundlab.labeling.sampling.write_sample`), their sheet (blind unless a ``judge`` is
    given), the second person's sheet (``second``: answers set aside for them, -1 to size the
    share, 0 for none) and ``GUIDELINES.md`` (kept when there, or the file ``guidelines`` names),
    never replacing a sheet someone may have filled.

    The files are ``sample.jsonl``, ``sheet.csv`` and ``second-person.csv`` when each is absent or
    already holds exactly what this round writes; otherwise the next set that is
    (``sample-2.jsonl``, ``sheet-2.csv``, ``second-person-2.csv``, ...), beside them. So a filled
    sheet, even one filled in place and read back with ``filled_sheet``, stays as it is, and a
    rerun with the same draw rewrites nothing.
    """
    folder = Path(folder)
    inputs = [cases_path] + ([passages] if passages else [])
    sample = sample_text(cases_path, design)
    order = {cid: k for k, cid in enumerate(design["case_id"])}
    cases = sorted((case for case in load_cases(cases_path, passages) if case.id in order),
                   key=lambda case: order[case.id])  # the design's order: the sheet may stop at any row
    rules = guidelines_for(folder, guidelines, write=False)
    splits = split_cases(cases, splitter)
    second_ids, share = second_share(cases, [len(s.claims) for s in splits], second)
    sheet, judge_name = suggested_sheet(cases, judge, splitter, guidelines=rules.fingerprint, second=second_ids)
    text, cut = sheet_text(sheet)
    second_text = sheet_text(sheet[sheet["second"] == "yes"].reset_index(drop=True))[0] if second_ids else None
    for k in range(1, 1000):
        suffix = "" if k == 1 else f"-{k}"
        paths = [folder / f"sample{suffix}.jsonl", folder / f"sheet{suffix}.csv"]
        contents = [sample, text]
        if second_text is not None:
            paths.append(folder / f"{SECOND_SHEET}{suffix}.csv")
            contents.append(second_text)
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
    rules = rules.write()
    if rules.written:
        written.append(rules.path)
    export = export_report(sheet, cases, cut, judge_name, paths[1], rules)
    return Round(paths[0], paths[1], folder / f"labeled{'' if k == 1 else f'-{k}'}.jsonl", export, tuple(written),
                 paths[2] if second_text is not None else None, share, rules)


def _holds(path: Path, content: str) -> Optional[bool]:
    """Whether ``path`` holds exactly ``content``: ``None`` when there is no such file."""
    if not path.exists():
        return None
    try:
        return path.read_bytes() == content.encode("utf-8")
    except OSError:
        return False


def work_dir(path: PathLike) -> Path:
    """The folder a labeling round writes into (created when missing); it is kept, since the
    sheet it holds goes out to people and comes back."""
    if not str(path).strip():
        raise GroundlabError("work_dir is empty; give the folder where the sample and the labeling sheet are "
                             "written and kept (e.g. ../reports/labeling).")
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


#: Who the labels of a demonstration sheet are (the labels a cases file already holds).
DEMO_ANNOTATOR = "the labels the cases file holds"


def demo_sheet(sheet: PathLike, cases: Sequence[Case], out: PathLike, *, partial: bool = False) -> Optional[Path]:
    """Stand in for the people who label: write ``sheet`` to ``out`` with the labels ``cases``
    already hold (a demonstration on a labeled set, such as the sample set).

    Only when those labels fill every claim row of the sheet (with ``partial``, at least one);
    else nothing is written and ``None`` says the sheet must wait for people.
    """
    filled = fill_labels(read_sheet(sheet), cases, annotator=DEMO_ANNOTATOR)
    rows = filled["claim_no"].str.strip() != ""
    labeled = filled.loc[rows, "label"].str.strip() != ""
    if not labeled.any() or (not partial and not labeled.all()):
        return None
    write_sheet(filled, out, force=True)
    return Path(out)


def read_back(sheet: PathLike, sample: PathLike, out: PathLike, *, filled_sheet: PathLike = "",
              second_sheet: PathLike = "", cases: Sequence[Case] = (), partial: bool = False,
              splitter: Optional[ClaimSplitter] = None, passages: Optional[PathLike] = None
              ) -> Union[ImportReport, SheetWaiting]:
    """Read the labels of a round back into ``out`` (the sample with its labels), replacing it.

    The labels come from ``filled_sheet`` when one is given (and the second person's from
    ``second_sheet``, read beside it: their agreement is reported); else from the labels ``cases``
    (the log) already hold, written into ``<sheet>-filled-demo.csv`` beside ``sheet`` (see
    :func:`demo_sheet`); else there are none yet, and a :class:`SheetWaiting` says so instead of
    an import failing on empty labels.
    """
    sheet = Path(sheet)
    if str(filled_sheet).strip():
        sources: List[Path] = [Path(filled_sheet)]
    else:
        demo = demo_sheet(sheet, cases, sheet.with_name(f"{sheet.stem}-filled-demo.csv"), partial=partial)
        if demo is None:
            return SheetWaiting(sheet)
        sources = [demo]
    if str(second_sheet).strip():
        sources.append(Path(second_sheet))
    return import_labels(sources, sample, out, partial=partial, force=True, splitter=splitter,
                         passages=passages or None)


__all__ = ["DEMO_ANNOTATOR", "Round", "SECOND_SHEET", "SecondShare", "demo_sheet", "read_back", "second_share",
           "work_dir", "write_round"]
