"""The labeling sheet for the annotation tools teams already run: Label Studio and Argilla.

``label export --format label-studio --out DIR`` writes, from the same rows as the sheet (one task
a claim, one a case without claims, for ``answerable``):

- ``DIR/tasks.json``: the tasks to import into a project, each ``{"data": {...}}`` carrying
  ``case_id``, ``claim_no``, the ``question``, the ``claim``, its ``cites``, the ``passages`` and
  what the read-back checks (``retrieved``, ``passages_sha256``, ``guidelines``, ``blind``,
  ``second``; the judge's verdict and reason with ``--show-judge``);
- ``DIR/label-config.xml``: the labeling configuration to paste into the project's settings: a
  ``verdict`` choice of supported, contradicted, unsupported and can't tell (keys 1 to 4), a
  ``note`` text area, and an ``answerable`` choice;
- ``DIR/GUIDELINES.md``: the guidelines (paste them into the project's instructions).

``--format argilla --out DIR`` writes a folder in the layout of Argilla 2.x's ``Dataset.to_disk``,
which ``rg.Dataset.from_disk(DIR, name=..., client=...)`` turns into a dataset:
``DIR/records.json`` (the records: ``fields`` question, claim and passages; ``metadata``
case_id, claim_no and the rest), ``DIR/.argilla/settings.json`` (the dataset settings: the text
fields, the ``verdict`` LabelQuestion, the ``note`` and ``answerable`` questions, the metadata
properties, and the guidelines) and ``DIR/.argilla/dataset.json``.

``label import`` reads the tools' exports back (:mod:`groundlab.labeling.sources`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union
from xml.sax.saxutils import quoteattr

from ..core.claims import ClaimSplitter
from ..core.io import PathLike, check_output, load_cases, outputs_like, plural, write_atomic
from ..core.people import PERSON_LABELS
from ..core.records import GroundlabError
from ..judges import Judge
from .cells import short
from .guidelines import GUIDELINES, Guidelines, guidelines_for
from .sheet import suggested_sheet
from .sources import ANSWERABLE, NOTE, VERDICT

FORMATS = ("csv", "label-studio", "argilla")
#: The keys that pick each verdict in Label Studio.
HOTKEYS = ("1", "2", "3", "4")


@dataclass(frozen=True)
class ToolExport:
    """What :func:`export_for_tool` wrote; ``str()`` says it."""

    format: str
    files: List[Path]
    tasks: int
    claims: int
    cases: int
    judge: Optional[str]
    guidelines: Guidelines

    def __str__(self) -> str:
        what = "tasks" if self.format == "label-studio" else "records"
        blind = ("no judge suggestions (blind)" if self.judge is None
                 else f"judge {self.judge} suggestions shown (--show-judge)")
        files = ", ".join(str(p) for p in self.files if p != self.guidelines.path)
        g = self.guidelines
        return (f"wrote {plural(self.tasks, what[:-1], what)} ({plural(self.claims, 'claim', 'claims')} of "
                f"{plural(self.cases, 'case', 'cases')}, and one for each answer without claims) for "
                f"{'Label Studio' if self.format == 'label-studio' else 'Argilla'}: {files}; {blind}.\n"
                f"{'wrote' if g.written else 'labeled by'} the guidelines {g.path} ({short(g.fingerprint)}), "
                + ("recorded with every task: paste them into the project's instructions." if self.format == "label-studio"
                   else "recorded with every record; the dataset's settings carry them."))


def export_for_tool(cases_path: PathLike, out: PathLike, fmt: str, *, passages: Optional[PathLike] = None,
                    judge: Union[str, Judge, None] = None, splitter: Optional[ClaimSplitter] = None,
                    force: bool = False, guidelines: Optional[PathLike] = None,
                    name: str = "groundlab-labels") -> ToolExport:
    """Write the labeling tasks of a cases file for Label Studio or Argilla into the folder
    ``out`` (the module docstring says what), blind unless a ``judge`` is given."""
    if fmt not in FORMATS[1:]:
        raise GroundlabError(f"there is no labeling format {fmt!r}; use one of: {', '.join(FORMATS)}.")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise GroundlabError(f"{folder} is a file; --format {fmt} writes a folder of files: give a folder's path.")
    inputs = [cases_path] + ([passages] if passages else [])
    targets = ([folder / "tasks.json", folder / "label-config.xml"] if fmt == "label-studio" else
               [folder / "records.json", folder / ".argilla" / "settings.json", folder / ".argilla" / "dataset.json"])
    for path in targets:
        check_output(path, force, inputs)
    cases = load_cases(cases_path, passages)
    rules = guidelines_for(folder, guidelines, write=False)
    sheet, judge_name = suggested_sheet(cases, judge, splitter, guidelines=rules.fingerprint)
    items = [_item(row, judge_name is not None) for row in sheet.to_dict("records")]
    if fmt == "label-studio":
        texts = [json.dumps([{"data": item} for item in items], ensure_ascii=False, indent=1) + "\n",
                 label_studio_config(judge_name is not None)]
    else:
        guidelines_text = (GUIDELINES if rules.pending else
                           rules.path.read_text(encoding="utf-8", errors="replace"))
        texts = [json.dumps([argilla_record(item) for item in items], ensure_ascii=False, indent=1) + "\n",
                 json.dumps(argilla_settings(guidelines_text, judge_name is not None), ensure_ascii=False, indent=1)
                 + "\n",
                 json.dumps({"name": name, "status": "draft", "guidelines": guidelines_text,
                             "allow_extra_metadata": False}, ensure_ascii=False, indent=1) + "\n"]
    with outputs_like(*inputs):
        for path, text in zip(targets, texts):
            write_atomic(path, text)
    rules = rules.write()
    claims = int((sheet["claim_no"] != "").sum())
    return ToolExport(fmt, targets + ([rules.path] if rules.written else []), len(items), claims, len(cases),
                      judge_name, rules)


def _item(row: Dict[str, Any], show_judge: bool) -> Dict[str, Any]:
    """A sheet row as a task's data: plain text (no spreadsheet marks), the claim number a number."""
    number = row["claim_no"]
    item = {"case_id": row["case_id"], "claim_no": int(number) if number else None, "question": row["question"],
            "claim": row["claim"], "cites": row["cites"], "passages": row["passages"],
            "retrieved": row["retrieved"], "passages_sha256": row["passages_sha256"],
            "guidelines": row["guidelines"], "second": row["second"] or "no", "blind": not show_judge}
    if show_judge:
        item["judge_verdict"] = row.get("judge_verdict", "")
        item["judge_reason"] = row.get("judge_reason", "")
    return item


def label_studio_config(show_judge: bool = False) -> str:
    """The labeling configuration of a Label Studio project for groundlab's tasks (XML)."""
    choices = "\n".join(f"    <Choice value={quoteattr(label)} hotkey=\"{key}\"/>"
                        for label, key in zip(PERSON_LABELS, HOTKEYS))
    judge = ("  <Header value=\"The judge's suggestion (shown because the tasks were exported with --show-judge)\"/>\n"
             "  <Text name=\"judge_verdict\" value=\"$judge_verdict\"/>\n"
             "  <Text name=\"judge_reason\" value=\"$judge_reason\"/>\n") if show_judge else ""
    return f"""<View>
  <Header value="The question"/>
  <Text name="question" value="$question"/>
  <Header value="The passages the assistant was given"/>
  <Text name="passages" value="$passages"/>
  <Header value="The claim: is it backed by the passages? (GUIDELINES.md)"/>
  <Text name="claim" value="$claim"/>
{judge}  <Choices name="{VERDICT}" toName="claim" choice="single-radio" showInline="true">
{choices}
  </Choices>
  <TextArea name="{NOTE}" toName="claim" rows="2" maxSubmissions="1" editable="true"
            placeholder="Why (above all for contradicted, unsupported and can't tell)"/>
  <Header value="Do the passages hold the answer to the question? (once per answer; empty when unsure)"/>
  <Choices name="{ANSWERABLE}" toName="question" choice="single-radio" showInline="true">
    <Choice value="true"/>
    <Choice value="false"/>
  </Choices>
</View>
"""


#: The record fields a person reads in Argilla, and the metadata the read-back checks.
ARGILLA_FIELDS = ("question", "claim", "passages")
ARGILLA_METADATA = ("case_id", "claim_no", "cites", "retrieved", "passages_sha256", "guidelines", "second", "blind")


def argilla_record(item: Dict[str, Any]) -> Dict[str, Any]:
    """A task's data as an Argilla 2.x record (``Record.to_dict``'s shape, which
    ``Record.from_dict`` and ``Dataset.from_disk`` read)."""
    fields = {name: item[name] or "-" for name in ARGILLA_FIELDS}  # Argilla refuses an empty text field
    if "judge_verdict" in item:
        fields["judge"] = f"{item['judge_verdict']}: {item['judge_reason']}"
    metadata = {name: (str(item[name]).lower() if isinstance(item[name], bool) else item[name])
                for name in ARGILLA_METADATA if item[name] is not None}
    number = item["claim_no"]
    return {"id": f"{item['case_id']}#{number if number is not None else '-'}", "fields": fields,
            "metadata": metadata, "suggestions": {}, "responses": {}, "vectors": {}}


def argilla_settings(guidelines: str, show_judge: bool = False) -> Dict[str, Any]:
    """The settings of an Argilla 2.x dataset for groundlab's records (``Settings.to_json``'s shape)."""
    def text_field(name: str, title: str) -> Dict[str, Any]:
        return {"name": name, "title": title, "required": True, "description": None,
                "settings": {"type": "text", "use_markdown": False}}

    def options(values: Sequence[str]) -> List[Dict[str, Optional[str]]]:
        return [{"value": v, "text": v, "description": None} for v in values]

    fields = [text_field("question", "The question"), text_field("claim", "The claim"),
              text_field("passages", "The passages the assistant was given")]
    if show_judge:
        fields.append(text_field("judge", "The judge's suggestion (--show-judge)"))
    questions = [
        {"name": VERDICT, "title": "Is the claim backed by the passages?", "description": "See the guidelines.",
         "required": False, "settings": {"type": "label_selection", "options": options(PERSON_LABELS),
                                         "visible_options": len(PERSON_LABELS)}},
        {"name": NOTE, "title": "Why (above all for contradicted, unsupported and can't tell)", "description": None,
         "required": False, "settings": {"type": "text", "use_markdown": False}},
        {"name": ANSWERABLE, "title": "Do the passages hold the answer to the question? (once per answer)",
         "description": None, "required": False,
         "settings": {"type": "label_selection", "options": options(("true", "false")), "visible_options": None}},
    ]
    metadata = [{"name": name, "title": name, "visible_for_annotators": name in ("case_id", "claim_no"),
                 "settings": ({"type": "integer", "min": None, "max": None} if name == "claim_no" else
                              {"type": "terms", "values": None})}
                for name in ARGILLA_METADATA]
    return {"guidelines": guidelines, "questions": questions, "fields": fields, "vectors": [], "metadata": metadata,
            "allow_extra_metadata": False}


__all__ = ["ARGILLA_FIELDS", "ARGILLA_METADATA", "FORMATS", "ToolExport", "argilla_record", "argilla_settings",
           "export_for_tool", "label_studio_config"]
