"""The test data of an SAP AI Core evaluation, written from a cases file.

An evaluation reads a folder artifact: ``testdata/<file>``, CSV or JSON Lines, one column per
variable of the prompt template (matched by name) and any other columns, which it keeps with
each record (``submission.template_variables`` in the run's results.db). groundlab writes:

- ``question``: the user's question, for ``{{?question}}`` and for the grounding module's input;
- ``context``: the passages the assistant was given, each ``[id] text``, for a template that
  gives them to the model itself (``Context: {{?context}}``) instead of a grounding module;
- ``case_id``, ``passages`` (the same passages as JSON), ``labels`` (people's verdicts on the
  logged answer's claims, JSON), ``labeled_answer_sha256`` (which answer they labeled) and
  ``answerable``: extra columns that come back with each record, so that ``groundlab import``
  ties every result to its case, and keeps people's labels only on an answer that is the one they
  labeled (a run writes its answers anew).

The cases leave the machine, so the data policy and masking apply as for every judge that sends
claims away: the evaluation is an LLM judge (policy name ``llm``) on the judge model the metric
pins, at the tenant's address. A case its classification keeps from there is left out of the
dataset and counted; with masking, the question and passages (their ids too, alike wherever the
answer cites them) are masked as a model judge's requests are, by one piece of code
(:class:`groundlab.measure.policy.MaskedCase`). Both go through
:func:`groundlab.measure.policy.apply_policy`, the one place a judge is put behind the policy and
masking.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ..core.io import (PathLike, check_output, display_name, json_line, load_cases, outputs_like, plural, sha256_text,
                       write_atomic)
from ..measure.policy import MaskedCase, apply_policy, gates
from ..core.records import Case, Evidence, GroundlabError
from ..core.redact import without_userinfo
from ..importers.sap_eval import (ANSWERABLE, CASE_ID, CLASSIFICATION, CONTEXT, LABELED_ANSWER, LABELS, PASSAGES,
                                  QUESTION)

#: The dataset's columns, in order.
COLUMNS = (QUESTION, CONTEXT, CASE_ID, PASSAGES, LABELS, LABELED_ANSWER, ANSWERABLE, CLASSIFICATION)
FORMATS = ("csv", "jsonl")


class _Endpoint:
    def __init__(self, url: str) -> None:
        self.display = without_userinfo(url).rstrip("/")  # as printed: never a user or password


class Evaluation:
    """Where the dataset goes, as the data policy sees it: an LLM judge (``llm``) on ``model`` at
    ``endpoint``, through SAP AI Core (provider ``sap-ai-core``)."""

    name = "llm"
    version = ""
    provider = "sap-ai-core"

    def __init__(self, model: str, endpoint: Optional[str]) -> None:
        self.model = model
        self.endpoint = _Endpoint(endpoint) if endpoint else None

    def judge_batch(self, pairs):  # pragma: no cover - nothing is judged here
        raise GroundlabError("the SAP AI Core evaluation judges on the tenant, not here.")


@dataclass
class DatasetReport:
    """What :func:`write_dataset` wrote and left out."""

    source: str
    out: Path
    rows: int
    held_back: List[Tuple[str, str]] = field(default_factory=list)
    masked: int = 0
    labeled: int = 0
    notes: List[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"wrote {plural(self.rows, 'row', 'rows')} to {self.out} from {self.source} (columns "
                 f"{', '.join(COLUMNS)}); {self.labeled} carry people's labels."]
        if self.held_back:
            shown = ", ".join(f"{cid} ({why})" for cid, why in self.held_back[:3])
            more = f", and {len(self.held_back) - 3} more" if len(self.held_back) > 3 else ""
            lines.append(f"held back by the data policy, not written: {plural(len(self.held_back), 'case', 'cases')} "
                         f"({shown}{more}).")
        if self.masked:
            lines.append(f"personal data masked in {plural(self.masked, 'row', 'rows')} (question, passages and their "
                         "ids; the "
                         "run's answers come back masked, so labels written for the unmasked answers will not apply).")
        lines.extend(self.notes)
        return "\n".join(lines)


def _context(passages: Sequence[Tuple[str, str]]) -> str:
    return "\n\n".join(f"[{pid}] {text}" for pid, text in passages)


@dataclass(frozen=True)
class Outgoing:
    """A case as it may leave for the tenant: its question and passages, masked where the policy
    or masking says so (``answer`` too, for a metric's examples)."""

    case: Case
    question: str
    passages: Tuple[Tuple[str, str], ...]
    answer: str
    masked: bool
    mask: Callable[[str], str] = str  # another text of the case (a claim) as it may leave



def outgoing(cases: Sequence[Case], *, model: str = "", endpoint: Optional[str] = None, policy: Any = None,
             mask: bool = False, names: Sequence[str] = ()) -> Tuple[List[Outgoing], List[Tuple[str, str]]]:
    """The cases that may go to the evaluation on ``model`` at ``endpoint`` (see the module
    docstring), each masked as the policy or ``mask`` asks, and ``(case id, why)`` of each the policy
    holds back. A case whose classification the policy cannot place is one sentence."""
    gate = apply_policy(Evaluation(model, endpoint), policy, mask=mask, names=names)
    gate = (gates(gate) or [None])[0]
    if gate is not None and gate.policy is not None:
        gate.policy.check_cases(cases)
    out: List[Outgoing] = []
    held: List[Tuple[str, str]] = []
    for case in cases:
        question, texts, answer = case.question, [(p.id, p.text) for p in case.retrieved], case.answer
        masked, mask = False, str
        if gate is not None:
            evidence = Evidence(case.question, case.retrieved, case.answer, case.classification)
            why, cls = gate.route(evidence)
            if why is not None:
                held.append((case.id, f"{cls}: {why}"))
                continue
            if gate.mask_all or (gate.policy is not None and gate.policy.masks(cls)):
                # masked as a judge's request is: the passages' ids too, alike wherever the answer cites them
                sent = MaskedCase.of(gate.masker, evidence, ())
                if sent.table:
                    question, answer = sent.evidence.question, sent.evidence.answer or ""
                    texts = [(p.id, p.text) for p in sent.evidence.passages]
                    masked, mask = True, partial(sent.mask, gate.masker)
        out.append(Outgoing(case, question, tuple(texts), answer, masked, mask))
    return out, held


def write_dataset(cases: PathLike, out: PathLike, *, passages: Optional[PathLike] = None, fmt: str = "csv",
                  model: str = "", endpoint: Optional[str] = None, policy: Any = None, mask: bool = False,
                  names: Sequence[str] = (), force: bool = False) -> DatasetReport:
    """Write the evaluation's ``testdata/<cases file's name>.csv`` (or ``.jsonl``) under the
    folder ``out`` from the cases file ``cases`` (see the module docstring). ``model`` and
    ``endpoint``: the evaluation's judge model and the tenant, as the data policy names them.
    Nothing is written when the file exists (unless ``force``), when every case is held back, or
    when a case cannot be placed by the policy."""
    if fmt not in FORMATS:
        raise GroundlabError(f"--format must be {' or '.join(FORMATS)}, not {fmt!r}.")
    source = display_name(cases)
    loaded = load_cases(cases, passages)
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise GroundlabError(f"{folder} is a file; --out names the folder the evaluation's artifact is made of "
                             "(its testdata/ is written there).")
    target = folder / "testdata" / f"{Path(str(cases)).stem or 'cases'}.{fmt}"
    check_output(target, force, [p for p in (cases, passages) if p])
    leaving, held = outgoing(loaded, model=model, endpoint=endpoint, policy=policy, mask=mask, names=names)
    report = DatasetReport(source, target, 0, held_back=held)
    rows: List[dict] = []
    for item in leaving:
        case = item.case
        row = {QUESTION: item.question, CONTEXT: _context(item.passages), CASE_ID: case.id,
               PASSAGES: json.dumps([{"id": pid, "text": t} for pid, t in item.passages], ensure_ascii=False),
               LABELS: "", LABELED_ANSWER: "", ANSWERABLE: "" if case.answerable is None else
               ("true" if case.answerable else "false"), CLASSIFICATION: case.classification or ""}
        if case.labels is not None:
            row[LABELS] = json.dumps(list(case.labels))
            row[LABELED_ANSWER] = sha256_text(case.answer)
            report.labeled += 1
        report.masked += item.masked
        rows.append(row)
    if not rows:
        raise GroundlabError(f"the data policy holds back every case of {source} from the evaluation "
                             f"({held[0][1]}); nothing was written.")
    report.rows = len(rows)
    with outputs_like(cases):
        if fmt == "jsonl":
            write_atomic(target, "".join(map(json_line, rows)))
        else:
            buffer = io.StringIO()
            writer = csv.DictWriter(buffer, fieldnames=list(COLUMNS), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            write_atomic(target, buffer.getvalue())
    return report


__all__ = ["COLUMNS", "FORMATS", "DatasetReport", "Evaluation", "Outgoing", "outgoing", "write_dataset"]
