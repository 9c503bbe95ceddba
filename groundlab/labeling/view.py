"""The labeling view: label a sheet in JupyterLab, one answer at a time (:func:`view`).

It shows the question, the passages with each claim's best evidence sentence marked (the passage
sentence sharing most content words with the claim: where to look first, not a verdict), and each
claim with the three verdicts, "can't tell" and a note; ``answerable`` once for the answer. Every
label is written to the sheet at once, through a temporary file and a rename, so a crashed kernel
or a closed tab loses nothing, and the view opens again where labeling stopped (the first answer
with a claim left). It shows the progress (claims labeled of those the sheet asks for, and the
time left at the pace measured so far) and, with the round's sample, the hallucination rate of the
log the labels so far give, with its range; both update as labels arrive. Filters: a process,
only the answers the judge flags, only the second person's share.

The view writes the very file a spreadsheet would (:mod:`groundlab.labeling.sheet`): people may
label some answers here and others in a spreadsheet, as long as one of them writes at a time (the
view refuses to write over a sheet changed on disk since it read it, and says so).

**Keys.** A widget cannot take key presses of its own, so the view has a shortcut box: with it
focused, ``1`` or ``s`` labels the next open claim of the answer supported, ``2``/``c``
contradicted, ``3``/``u`` unsupported, ``4``/``?`` can't tell, ``t``/``f`` set answerable true or
false, ``n``/``p`` go to the next or previous answer, ``j`` jumps to the next answer with an open
claim. Every button works by click (and by Tab and Space, as any button does).

Blind unless the sheet was made with ``--show-judge``: the judge's verdict shows only where the
sheet holds it.
"""

from __future__ import annotations

import html
import math
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ..core.io import PathLike, iter_jsonl, load_cases, write_atomic
from ..core.people import CANT_TELL, PERSON_LABELS, person_label
from ..core.records import VERDICTS, GroundlabError
from ..core.stats import Rate
from .sheet import JUDGE_COLUMNS, SHEET_COLUMNS_WITH_JUDGE, read_sheet, sheet_text

#: Seconds a claim takes before the view has measured a pace of its own (what the label request
#: assumes: :data:`groundlab.measure.figures.SECONDS_PER_CLAIM`).
ASSUMED_SECONDS = 26
#: A pause longer than this between two labels is a break, not the pace.
BREAK_SECONDS = 600
#: The shortcut keys: a verdict for the next open claim, or a move.
KEYS = {"1": "supported", "s": "supported", "2": "contradicted", "c": "contradicted", "3": "unsupported",
        "u": "unsupported", "4": CANT_TELL, "?": CANT_TELL}
#: The strata of answers the judge flags.
FLAGGED = ("contradicted", "unsupported")


def _is_label(cell: str) -> bool:
    """Whether a sheet's cell holds one of the labels (a word typed in a spreadsheet that is none,
    "suported", leaves its claim open)."""
    return person_label(cell) in PERSON_LABELS


@dataclass(frozen=True)
class Progress:
    """Where labeling stands: claims labeled of those asked for, answers done, the pace and the time left."""

    labeled: int
    claims: int
    answers_done: int
    answers: int
    seconds_per_claim: float
    measured: bool
    rate: str

    @property
    def minutes_left(self) -> int:
        return int(math.ceil((self.claims - self.labeled) * self.seconds_per_claim / 60))

    def __str__(self) -> str:
        pace = (f"{self.seconds_per_claim:.0f} s a claim so far" if self.measured
                else f"{self.seconds_per_claim:.0f} s a claim assumed until labels here measure it")
        left = ("nothing left to label" if self.labeled >= self.claims else
                f"about {self.minutes_left} minutes left ({pace})")
        return (f"{self.labeled} of {self.claims} claims labeled ({self.answers_done} of {self.answers} answers "
                f"done); {left}.")


class LabelingView:
    """A sheet to label in JupyterLab (see the module docstring); :func:`view` makes one.

    Its methods are what the buttons call, so a script or a test can label through it too:
    :meth:`label`, :meth:`write_note`, :meth:`set_answerable`, :meth:`keys`, :meth:`go`,
    :meth:`next`, :meth:`previous`, :meth:`next_open`, :meth:`set_filter`; :meth:`progress` and
    :meth:`rate_text` say where labeling stands."""

    def __init__(self, sheet: PathLike, *, cases: Optional[PathLike] = None, passages: Optional[PathLike] = None,
                 annotator: str = "", margin: float = 0.05) -> None:
        self.path = Path(sheet)
        if not self.path.is_file():
            raise GroundlabError(f"the sheet {self.path} does not exist; give the labeling sheet to label "
                                 "(groundlab run writes labeling/sheet.csv).")
        self.annotator = annotator.strip()
        self.margin = margin
        self._read()
        self.records: Dict[str, dict] = {}
        self.texts: Dict[str, List[Tuple[str, str]]] = {}
        if cases is not None and str(cases).strip():
            self.records = {str(obj.get("id")): obj for _, obj in iter_jsonl(cases, "cases")}
            try:
                for case in load_cases(cases, passages or None):
                    self.texts[case.id] = [(p.id, p.text) for p in case.retrieved]
            except GroundlabError:  # passages by id without their file: the sheet's own text is shown
                pass
        self.filters: Dict[str, Any] = {"process": None, "flagged": False, "second": False}
        self.times: List[float] = []
        self.message = ""
        self.position = 0
        self.position = self.first_open()
        self._widget = None

    # ---------------------------------------------------------------- the sheet

    def _read(self) -> None:
        frame = read_sheet(self.path)
        self.columns = list(frame.attrs["columns"])
        self.frame = frame
        self._stamp = _stamp(self.path)
        order: Dict[str, List[int]] = {}
        for i, cid in enumerate(frame["case_id"]):
            order.setdefault(cid, []).append(i)
        self.answers: List[Tuple[str, List[int]]] = list(order.items())

    @property
    def show_judge(self) -> bool:
        """Whether the sheet shows the judge's suggestion (made with ``--show-judge``)."""
        return "judge_verdict" in self.columns and bool((self.frame["judge_verdict"].str.strip() != "").any())

    def save(self) -> None:
        """Write the sheet as it now stands, atomically, keeping who may read it; refuses to write
        over a sheet changed on disk since the view read or last wrote it."""
        if _stamp(self.path) != self._stamp:
            raise GroundlabError(f"{self.path} changed on disk since the view read it (a spreadsheet or another "
                                 "view saved it); nothing was written: open the view again to go on from there.")
        # The sheet's own columns in the current order (an earlier sheet gains the ones it lacks, so
        # that it reads back as the current kind), the judge's only where it had them, and any
        # column someone added at the end.
        columns = [c for c in SHEET_COLUMNS_WITH_JUDGE if c not in JUDGE_COLUMNS or c in self.columns]
        columns += [c for c in self.columns if c not in columns]
        text, _ = sheet_text(self.frame[columns])
        mode = self.path.stat().st_mode & 0o777
        write_atomic(self.path, text, mode=mode)
        self._stamp = _stamp(self.path)

    # ---------------------------------------------------------------- what the person does

    def claim_rows(self, answer: Optional[int] = None) -> List[int]:
        """The sheet rows of the claims of an answer (the current one by default)."""
        rows = self.answers[self.position if answer is None else answer][1]
        return [i for i in rows if self.frame.at[i, "claim_no"].strip()]

    def label(self, claim_no: int, verdict: str, answer: Optional[int] = None) -> None:
        """Label a claim of an answer (the current one by default) and save: ``verdict`` is one of
        the three verdicts or "can't tell"; "" clears the label."""
        value = person_label(verdict) if verdict else ""
        if value and value not in PERSON_LABELS:
            raise GroundlabError(f"{verdict!r} is not a label; choose {', '.join(PERSON_LABELS)}.")
        row = self._claim_row(claim_no, answer)
        changes = [(row, "label", value or "")] + ([(row, "annotator", self.annotator)] if self.annotator else [])
        self._write(changes)
        if value:
            self.times.append(time.monotonic())

    def write_note(self, claim_no: int, note: str, answer: Optional[int] = None) -> None:
        """A claim's note (why), saved."""
        self._write([(self._claim_row(claim_no, answer), "note", note)])

    def set_answerable(self, value: Optional[bool], answer: Optional[int] = None) -> None:
        """Whether the passages hold the answer (``None``: unknown), on the answer's first row, saved."""
        rows = self.answers[self.position if answer is None else answer][1]
        changes = [(row, "answerable", ("" if value is None else str(bool(value)).lower()) if k == 0 else "")
                   for k, row in enumerate(rows)]
        if self.annotator:
            changes.append((rows[0], "annotator", self.annotator))
        self._write(changes)

    def _write(self, changes: List[Tuple[int, str, str]]) -> None:
        """Make ``changes`` (row, column, value) and save them; when the sheet cannot be written,
        undo them, so the view never shows a label the sheet does not hold."""
        before = [(row, column, self.frame.at[row, column]) for row, column, _ in changes]
        for row, column, value in changes:
            self.frame.at[row, column] = value
        try:
            self.save()
        except BaseException:
            for row, column, value in reversed(before):
                self.frame.at[row, column] = value
            raise

    def keys(self, typed: str) -> None:
        """Act on shortcut keys typed in the shortcut box (the module docstring lists them)."""
        for key in typed.lower():
            if key in KEYS:
                open_claims = [n for n in self._numbers() if not _is_label(self.frame.at[self._claim_row(n), "label"])]
                if not open_claims:
                    self.message = "every claim of this answer is labeled: n goes to the next answer."
                    continue
                self.label(open_claims[0], KEYS[key])
            elif key in "tf":
                self.set_answerable(key == "t")
            elif key == "n":
                self.next()
            elif key == "p":
                self.previous()
            elif key == "j":
                self.next_open()

    def _numbers(self, answer: Optional[int] = None) -> List[int]:
        return [int(float(self.frame.at[i, "claim_no"])) for i in self.claim_rows(answer)]

    def _claim_row(self, claim_no: int, answer: Optional[int] = None) -> int:
        for row in self.claim_rows(answer):
            if int(float(self.frame.at[row, "claim_no"])) == int(claim_no):
                return row
        raise GroundlabError(f"answer {self.answers[self.position if answer is None else answer][0]} has no claim "
                             f"{claim_no}.")

    # ---------------------------------------------------------------- where the view is

    def shown(self) -> List[int]:
        """The answers the filters keep, by their place in the sheet."""
        keep = []
        for k, (cid, rows) in enumerate(self.answers):
            record = self.records.get(cid, {})
            if self.filters["process"] and record.get("process") != self.filters["process"]:
                continue
            if self.filters["second"] and self.frame.at[rows[0], "second"].strip().lower() != "yes":
                continue
            if self.filters["flagged"] and not self.flagged(k):
                continue
            keep.append(k)
        return keep

    def flagged(self, answer: int) -> bool:
        """Whether the judge flags an answer: its stratum in the sample's design, or (in a sheet
        made with ``--show-judge``) a claim it did not find supported."""
        cid, rows = self.answers[answer]
        design = self.records.get(cid, {}).get("sample")
        if isinstance(design, dict) and "stratum" in design:
            return design["stratum"] in FLAGGED
        if self.show_judge:
            return any(self.frame.at[i, "judge_verdict"] in FLAGGED for i in rows)
        raise GroundlabError("the view does not know which answers the judge flags: open it with the round's sample "
                             "(cases=...sample.jsonl), whose design holds the judge's verdict on each answer.")

    def processes(self) -> List[str]:
        return sorted({str(r.get("process")) for r in self.records.values() if r.get("process")})

    def set_filter(self, *, process: Optional[str] = None, flagged: bool = False, second: bool = False) -> None:
        """Show only the answers of a ``process``, those the judge ``flagged``, or the ``second``
        person's share; the view moves to the first of them with a claim left to label."""
        if flagged and not self.records and not self.show_judge:
            self.flagged(0)  # says why it cannot
        self.filters = {"process": process or None, "flagged": bool(flagged), "second": bool(second)}
        self.position = self.first_open()

    def is_open(self, answer: int) -> bool:
        """Whether an answer has a claim without a label."""
        return any(not _is_label(self.frame.at[i, "label"]) for i in self.claim_rows(answer))

    def first_open(self) -> int:
        """Where labeling stopped: the first answer the filters keep with a claim left (else the first)."""
        shown = self.shown()
        return next((k for k in shown if self.is_open(k)), shown[0] if shown else 0)

    def go(self, answer: int) -> None:
        self.position = max(0, min(answer, len(self.answers) - 1))
        self._refresh()

    def next(self) -> None:
        shown = self.shown()
        later = [k for k in shown if k > self.position]
        if later:
            self.position = later[0]
        self._refresh()

    def previous(self) -> None:
        shown = self.shown()
        earlier = [k for k in shown if k < self.position]
        if earlier:
            self.position = earlier[-1]
        self._refresh()

    def next_open(self) -> None:
        shown = self.shown()
        ahead = [k for k in shown if k > self.position and self.is_open(k)]
        behind = [k for k in shown if k <= self.position and self.is_open(k)]
        if ahead or behind:
            self.position = (ahead or behind)[0]
        self._refresh()

    # ---------------------------------------------------------------- progress and the rate

    def progress(self) -> Progress:
        claims = self.frame["claim_no"].str.strip() != ""
        labeled = int((claims & self.frame["label"].map(_is_label)).sum())
        with_claims = [k for k in range(len(self.answers)) if self.claim_rows(k)]
        done = sum(1 for k in with_claims if not self.is_open(k))
        gaps = [b - a for a, b in zip(self.times, self.times[1:]) if b - a <= BREAK_SECONDS]
        measured = bool(gaps)
        pace = statistics.median(gaps) if gaps else ASSUMED_SECONDS
        return Progress(labeled, int(claims.sum()), done, len(with_claims), pace, measured, self.rate_text())

    def rate_text(self) -> str:
        """The hallucination rate the labels so far give: of the log, weighed by the round's design,
        when the view has the sample; else over the answers labeled here."""
        from .sampling import label_progress

        decided: Dict[str, List[str]] = {}
        counts: Dict[str, int] = {}
        for cid, rows in self.answers:
            claim_rows = [i for i in rows if self.frame.at[i, "claim_no"].strip()]
            counts[cid] = len(claim_rows)
            labels = [person_label(self.frame.at[i, "settled"]) or person_label(self.frame.at[i, "label"])
                      for i in claim_rows]
            if claim_rows and all(label in VERDICTS for label in labels):
                decided[cid] = labels  # type: ignore[assignment]
        if self.records:
            records = [dict(obj, labels=decided[cid]) if cid in decided else {k: v for k, v in obj.items() if k != "labels"}
                       for cid, obj in self.records.items() if cid in counts]
            progress = label_progress(records, lambda r: counts.get(str(r.get("id")), 0), self.margin)
            if progress is not None:
                text = str(progress).rstrip(".")
                return text[:1].upper() + text[1:] + "."
        rate = Rate(sum(any(label != "supported" for label in labels) for labels in decided.values()), len(decided))
        if not rate.total:
            return "The hallucination rate: no answer fully labeled yet."
        return (f"The hallucination rate over the {rate.total} answers fully labeled: {rate.rate:.0%} "
                f"(95% range {rate.low:.0%}\u2013{rate.high:.0%}); open the view with the round's sample for the "
                "rate of the log.")

    # ---------------------------------------------------------------- what it shows

    def evidence(self, answer: Optional[int] = None) -> Dict[int, Tuple[int, str]]:
        """Each claim's best evidence sentence: ``{claim number: (passage index, sentence)}``,
        the passage sentence sharing most content words with the claim (none shares any: left out)."""
        from ..core.sentences import split_sentences
        from ..judges.rules import content_words

        passages = self.passages(answer)
        sentences = [(k, s) for k, (_, text) in enumerate(passages) for s in split_sentences(text)]
        words = [set(content_words(s)[0]) for _, s in sentences]
        out: Dict[int, Tuple[int, str]] = {}
        for row in self.claim_rows(answer):
            claim = set(content_words(self.frame.at[row, "claim"])[0])
            if not claim:
                continue
            best = max(range(len(sentences)), key=lambda j: len(claim & words[j]), default=None)
            if best is not None and claim & words[best]:
                out[int(float(self.frame.at[row, "claim_no"]))] = sentences[best]
        return out

    def passages(self, answer: Optional[int] = None) -> List[Tuple[str, str]]:
        """The answer's passages as ``(id, text)``: from the cases file when the view has it, else
        read from the sheet's passages cell (``[id] text`` blocks)."""
        cid, rows = self.answers[self.position if answer is None else answer]
        if cid in self.texts and all(text for _, text in self.texts[cid]):
            return self.texts[cid]
        out = []
        for block in self.frame.at[rows[0], "passages"].split("\n\n["):
            block = block if block.startswith("[") else "[" + block
            end = block.find("] ")
            out.append((block[1:end], block[end + 2:]) if end > 0 else ("", block))
        return [p for p in out if p != ("", "[")]

    def answer_html(self, answer: Optional[int] = None) -> str:
        """The question and the passages, every outside text escaped, each claim's evidence marked."""
        k = self.position if answer is None else answer
        cid, rows = self.answers[k]
        marks: Dict[Tuple[int, str], List[int]] = {}
        for number, (passage, sentence) in self.evidence(k).items():
            marks.setdefault((passage, sentence), []).append(number)
        parts = []
        for j, (pid, text) in enumerate(self.passages(k)):
            shown = html.escape(text)
            for (passage, sentence), numbers in marks.items():
                if passage == j and sentence:
                    tag = ", ".join(str(n) for n in sorted(numbers))
                    shown = shown.replace(html.escape(sentence), f"<mark title=\"best evidence for claim {tag}\">"
                                          f"{html.escape(sentence)}<sup>{tag}</sup></mark>", 1)
            parts.append(f"<p><b>[{html.escape(pid)}]</b> {shown}</p>")
        where = f"answer {self.shown().index(k) + 1} of {len(self.shown())}" if k in self.shown() else "answer"
        return (f"<p><b>{where}</b> (case {html.escape(cid)})</p><p><b>Question:</b> "
                f"{html.escape(self.frame.at[rows[0], 'question'])}</p>"
                f"<details open><summary>Passages (each claim's best evidence marked)</summary>{''.join(parts)}</details>")

    def fallback_html(self) -> str:
        """What shows where widgets cannot (an HTML copy, a viewer without a kernel)."""
        return (f"<p>The labeling view of <code>{html.escape(str(self.path))}</code> runs in JupyterLab with "
                "ipywidgets: one answer at a time, each claim with supported, contradicted, unsupported or can't "
                "tell and a note, every label saved to the sheet at once. Open this notebook there, or label the "
                f"sheet in a spreadsheet.</p><p>{html.escape(str(self.progress()))} "
                f"{html.escape(self.rate_text())}</p>")

    def __repr__(self) -> str:
        return f"labeling view of {self.path}: {self.progress()}"

    # ---------------------------------------------------------------- the widgets

    def widget(self):
        """The view as ipywidgets (``None`` without ipywidgets)."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return None
        if self._widget is not None:
            return self._widget
        w = widgets
        self._status = w.HTML()
        self._body = w.HTML()
        self._claims = w.VBox()
        self._answerable = w.ToggleButtons(options=[("answerable: true", "true"), ("false", "false"),
                                                    ("unknown", "")], value="", description="")
        self._answerable.observe(self._on_answerable, names="value")
        self._who = w.Text(value=self.annotator, description="your name", placeholder="who labels")
        self._who.observe(lambda change: setattr(self, "annotator", change["new"].strip()), names="value")
        processes = self.processes()
        self._process = w.Dropdown(options=[("every process", "")] + [(p, p) for p in processes], value="",
                                   description="process", disabled=not processes)
        self._flagged = w.Checkbox(value=False, description="only answers the judge flags",
                                   disabled=not (self.records or self.show_judge))
        self._second = w.Checkbox(value=False, description="only the second person's share")
        for box in (self._process, self._flagged, self._second):
            box.observe(self._on_filter, names="value")
        buttons = []
        for text, action in (("\u25c0 previous", self.previous), ("next \u25b6", self.next),
                             ("next open answer", self.next_open)):
            button = w.Button(description=text)
            button.on_click(lambda _b, act=action: self._act(act))
            buttons.append(button)
        self._buttons = buttons
        self._shortcuts = w.Text(value="", placeholder="keys: 1-4 or s c u ? label, t f answerable, n p j move",
                                 description="shortcuts", continuous_update=True)
        self._shortcuts.observe(self._on_keys, names="value")
        self._widget = w.VBox([self._status, w.HBox([self._who, self._process]), w.HBox([self._flagged, self._second]),
                               w.HBox(buttons + [self._shortcuts]), self._body, self._claims, self._answerable])
        self._refresh()
        return self._widget

    def _act(self, action) -> None:
        try:
            action()
        except GroundlabError as error:
            self.message = str(error)
        except OSError as error:  # a folder one may not write to, a full disk
            self.message = (f"{self.path} could not be written ({error.strerror or error}); nothing was saved: "
                            "free the place, then label again.")
        self._refresh()

    def _on_keys(self, change) -> None:
        typed = change["new"]
        if not typed:
            return
        self._act(lambda: self.keys(typed))
        self._shortcuts.value = ""

    def _on_filter(self, _change) -> None:
        self._act(lambda: self.set_filter(process=self._process.value or None, flagged=self._flagged.value,
                                          second=self._second.value))

    def _on_answerable(self, change) -> None:
        if getattr(self, "_drawing", False):
            return
        value = change["new"]
        self._act(lambda: self.set_answerable(None if value == "" else value == "true"))

    def _claim_box(self, row: int):
        import ipywidgets as w

        number = int(float(self.frame.at[row, "claim_no"]))
        text = html.escape(self.frame.at[row, "claim"])
        given = person_label(self.frame.at[row, "label"]) or ""
        if given and not _is_label(given):  # typed in a spreadsheet ("suported"): shown, left to choose again
            text += (f"<br><small>the sheet has {html.escape(repr(given))} here, which is not a label; "
                     f"choose one</small>")
            given = ""
        judge = ""
        if self.show_judge and "judge_verdict" in self.frame:
            judge = (f"<br><small>judge: {html.escape(self.frame.at[row, 'judge_verdict'])} \u2014 "
                     f"{html.escape(self.frame.at[row, 'judge_reason'])}</small>")
        choice = w.ToggleButtons(options=[(label, label) for label in PERSON_LABELS] + [("(none)", "")],
                                 value=given)
        note = w.Text(value=self.frame.at[row, "note"], placeholder="note: why", continuous_update=False)

        def on_label(change, n=number):
            if not getattr(self, "_drawing", False):
                self._act(lambda: self.label(n, change["new"]))

        def on_note(change, n=number):
            if not getattr(self, "_drawing", False):
                self._act(lambda: self.write_note(n, change["new"]))

        choice.observe(on_label, names="value")
        note.observe(on_note, names="value")
        return w.VBox([w.HTML(f"<p><b>Claim {number}.</b> {text}{judge}</p>"), choice, note])

    def _refresh(self) -> None:
        if self._widget is None:
            return
        self._drawing = True
        try:
            message = f"<p style=\"color:#b00\">{html.escape(self.message)}</p>" if self.message else ""
            self.message = ""
            self._status.value = (f"<p><b>{html.escape(str(self.progress()))}</b><br>{html.escape(self.rate_text())}"
                                  f"</p>{message}")
            if not self.shown():
                self._body.value = "<p>No answer has all the filters chosen: choose others.</p>"
                self._claims.children = ()
                return
            self._body.value = self.answer_html()
            self._claims.children = tuple(self._claim_box(row) for row in self.claim_rows())
            first = self.answers[self.position][1][0]
            self._answerable.value = self.frame.at[first, "answerable"].strip().lower() \
                if self.frame.at[first, "answerable"].strip().lower() in ("true", "false") else ""
        finally:
            self._drawing = False

    def _repr_mimebundle_(self, include=None, exclude=None):
        from ..present.explorer import widget_bundle

        return widget_bundle(self)


def _stamp(path: Path) -> Tuple[int, int]:
    info = os.stat(path)
    return info.st_mtime_ns, info.st_size


def view(sheet: PathLike, *, cases: Optional[PathLike] = None, passages: Optional[PathLike] = None,
         annotator: str = "", margin: float = 0.05) -> LabelingView:
    """The labeling view of a sheet (:class:`LabelingView`): in JupyterLab with ipywidgets, one
    answer at a time with buttons for each claim; elsewhere a note on where it runs.

    ``cases``: the round's sample (``labeling/sample.jsonl``), for the rate of the log as labels
    arrive, the process filter and the judge's strata; ``passages``: the passages file its ids
    refer to; ``annotator``: who labels (written beside every label).

    >>> import shutil, tempfile, pathlib
    >>> from groundlab import load_cases, sample_path
    >>> from groundlab.labeling import sheet_frame, write_sheet
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_sheet(sheet_frame(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"))),
    ...                 folder / "sheet.csv")
    >>> v = view(folder / "sheet.csv", annotator="anna")
    >>> v.label(1, "supported"); v.label(2, "can't tell"); str(v.progress())[:40]
    '2 of 20 claims labeled (0 of 10 answers '
    >>> shutil.rmtree(folder)
    """
    return LabelingView(sheet, cases=cases, passages=passages, annotator=annotator, margin=margin)


__all__ = ["ASSUMED_SECONDS", "KEYS", "LabelingView", "Progress", "view"]
