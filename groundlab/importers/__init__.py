"""Turn what another tool recorded into cases: Ragas and DeepEval datasets, Phoenix /
OpenInference, LangSmith and Langfuse traces, promptfoo results, TruLens records, SAP
orchestration responses with document grounding, and an application's own answer log.

One function reads any of them, :func:`import_cases` (the ``groundlab import`` command): the
input may be JSON Lines, JSON (an object or an array), CSV, Parquet or a Hugging Face dataset
folder, and the tool is recognised from its fields (or named). Each case gets its passages
inline (``{"id", "text"}``): the evidence the assistant received, never a fresh search.

- Passages keep the ids the tool carries (``retrieved_context_ids``, a document id in span
  attributes or metadata); where it carries none they are named by position, ``P1..Pn``
  (``passage_ids="index"``: ``1..n``). An answer that cites passages by position (``[P1]``,
  ``[2]``) while they carry ids of their own gets ``aliases`` (``{"P1": "KB-101"}``), so the
  citation counts for the passage it names. A citation that names no retrieved passage is
  counted and shown, never tied to a passage by guess.
- A trace export becomes one case per trace: the root span's question and final answer, and the
  retriever's passages in order.
- Anything else a row holds (model, version, the scores the tool computed) is kept in ``meta``.
- A row that cannot be used (no answer, no question, a malformed list) stops the import with one
  sentence naming the row and the field, or, with ``skip_invalid``, is left out and counted.

>>> import json
>>> record = {"question": "Who releases the order?", "passages": ["The analyst releases it."],
...           "answer": "The analyst releases it [P1]."}
>>> cases = convert([record], tool="log").cases
>>> json.dumps(cases[0])
'{"id": "r1", "question": "Who releases the order?", "retrieved": [{"id": "P1", "text": "The analyst releases it."}], "answer": "The analyst releases it [P1]."}'

May import: :mod:`groundlab.core` (records, claims, reading files and rows); nothing else of
groundlab's. The core never imports this package: :func:`load_cases` here is the public
``groundlab.load_cases``, which hands groundlab's own format to :func:`groundlab.io.load_cases`.
"""

from __future__ import annotations

import json
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.claims import ClaimSplitter, positional_aliases
from ..core.io import (MAX_LINE_BYTES, PathLike, _mb, cases_of_rows, check_output, display_name, is_stdin,
                       json_line, outputs_like, passage_table, plural, sha256_text,
                       write_atomic)
from ..core.io import load_cases as read_cases
from ..core.records import Case, InputError, Passage
from . import deepeval, langfuse, langsmith, log, openinference, promptfoo, ragas, sap, sap_eval, trulens
from .common import MAP_FIELDS, Bad, Draft, Item, Source, plain, present
from .read import read_input, read_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The tools, by the name ``--from`` takes.
TOOLS: Dict[str, ModuleType] = {m.NAME: m for m in (ragas, deepeval, openinference, langsmith, langfuse, promptfoo,
                                                     trulens, sap, log)}
FORMATS: Tuple[str, ...] = tuple(TOOLS)
#: What an evaluation leaves (a results.db, the tracking API's aggregates), read by ``--from``
#: these names: not a tool's rows, so read apart (:func:`import_evaluation`).
EVALUATIONS: Tuple[str, ...] = (sap_eval.NAME,)

#: Other names people know the tools by.
TOOL_ALIASES = {"phoenix": "openinference", "arize": "openinference", "langchain": "langsmith",
                "sap-ai-core": "sap", "orchestration": "sap", "sap-evaluation": "sap-eval", "aicore-eval": "sap-eval"}

#: The order tools are tried in when none is named: the most particular fields first.
_DETECT = (trulens, openinference, langsmith, langfuse, promptfoo, sap, deepeval, ragas, log)

#: Options that only some tools take, by the option's name: the tools that take it.
TOOL_OPTIONS = {"passage_id_key": ("sap",), "prompt_template": ("sap",)}

#: How passages without an id of their own are named: ``P1..Pn``, or ``1..n``.
PASSAGE_IDS = ("P", "index")

#: The fields of rows in no known tool's format, unless ``--map`` names other columns.
_GENERIC = {"id": "id", "question": "question", "retrieved": "retrieved", "answer": "answer"}


@dataclass
class Conversion:
    """Cases made from a source, and what it took: the tool, what was recognised, the rows left out."""

    cases: List[dict]
    refs: List[str]
    skipped: List[Bad]
    tool: str
    recognised: Optional[str]
    source: Source
    answered: int = 0
    without_citations: int = 0
    tool_ids: int = 0
    positional: List[Tuple[str, str]] = field(default_factory=list)
    unmatched: List[Tuple[str, str]] = field(default_factory=list)
    without_passages: int = 0
    notes: List[str] = field(default_factory=list)  # what the tool's reader found, a line each

    @property
    def passages(self) -> int:
        return sum(len(c["retrieved"]) for c in self.cases)


@dataclass(frozen=True)
class ImportReport:
    """What an import read and wrote."""

    conversion: Conversion
    source: str
    out: Path
    passage_ids: str = "P"

    # The figures earlier versions reported, kept by name.
    @property
    def rows(self) -> int:
        return len(self.conversion.source.records)

    @property
    def cases(self) -> int:
        return len(self.conversion.cases)

    @property
    def passages(self) -> int:
        return self.conversion.passages

    def __str__(self) -> str:
        c = self.conversion
        lines = []
        if c.recognised:
            lines.append(f"{self.source}: recognised as {TOOLS[c.tool].TITLE} {c.recognised} "
                         f"(--from {c.tool}).")
        if c.answered and c.without_citations == c.answered:
            note = "; no answer cites a passage, so the citation measures will say \"no citations\""
        elif c.without_citations:
            note = (f"; {c.without_citations} of {c.answered} answers cite no passage, so their claims count as "
                    "not backed by a citation")
        else:
            note = ""
        lines.append(f"read {plural(self.rows, 'row', 'rows')} from {self.source}; wrote "
                     f"{plural(self.cases, 'case', 'cases')} with {plural(self.passages, 'passage', 'passages')} "
                     f"inline to {self.out}{note}.")
        own_ids = any(note.startswith("passage ids:") for note in c.notes)
        lines.extend(c.notes)
        if self.passages and not own_ids:
            named = "1..n" if self.passage_ids == "index" else "P1..Pn"
            if c.tool_ids == self.passages:
                lines.append("passage ids: as the file gives them.")
            elif not c.tool_ids:
                lines.append(f"passage ids: the file keeps none, so passages are named {named} by position"
                             + (" (--passage-ids index names them 1..n)." if self.passage_ids != "index" else "."))
            else:
                lines.append(f"passage ids: {c.tool_ids} as the file gives them, {self.passages - c.tool_ids} "
                             f"named {named} by position.")
        if c.positional:
            lines.append(f"citations by position: {len(c.positional)} ({_examples(c.positional)}) tied to the "
                         "passage at that position (kept as the case's \"aliases\").")
        if c.unmatched:
            lines.append(f"citations that name no retrieved passage: {len(c.unmatched)} ({_examples(c.unmatched)}); "
                         "they cannot back their claims (check the passage ids, or the citation style with "
                         "--citation-pattern).")
        if c.without_passages:
            lines.append(f"note: {plural(c.without_passages, 'case holds', 'cases hold')} no passages (the file keeps "
                         "none): their claims can only be judged unsupported; export the retriever's spans with the "
                         "answers to judge them.")
        if c.skipped:
            reasons = "; ".join(f"{b.ref}: {b.reason}" for b in c.skipped[:3])
            more = f"; and {len(c.skipped) - 3} more" if len(c.skipped) > 3 else ""
            lines.append(f"skipped {plural(len(c.skipped), 'row', 'rows')} that cannot be used ({reasons}{more}).")
        return "\n".join(lines)


def _examples(pairs: Sequence[Tuple[str, str]], n: int = 4) -> str:
    shown = ", ".join(f"{case} [{cite}]" for case, cite in pairs[:n])
    return shown + (", ..." if len(pairs) > n else "")


def tool_name(name: str) -> str:
    """The registered name of a tool (``phoenix`` is ``openinference``); one sentence otherwise."""
    key = TOOL_ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in TOOLS and key not in EVALUATIONS:
        raise InputError(f"there is no import format {name!r}; use one of: {', '.join(FORMATS + EVALUATIONS)}.")
    return key


def parse_map(value: Union[str, Sequence[str], Mapping[str, str], None]) -> Dict[str, str]:
    """``answer=response,retrieved=contexts`` (or several such texts, or a dict) as
    ``{field: column}``; a field groundlab does not know is refused."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        texts = [value] if isinstance(value, str) else list(value)
        pairs = []
        for text in texts:
            for part in text.split(","):
                if not part.strip():
                    continue
                if "=" not in part:
                    raise InputError(f"--map {part.strip()!r} must read FIELD=COLUMN, like answer=response.")
                name, column = part.split("=", 1)
                pairs.append((name.strip(), column.strip()))
    mapping: Dict[str, str] = {}
    for name, column in pairs:
        if name not in MAP_FIELDS:
            raise InputError(f"--map names the field {name!r}, which cases do not have; map one of "
                             f"{', '.join(MAP_FIELDS)}.")
        if not column:
            raise InputError(f"--map {name}= names no column; write {name}=COLUMN.")
        mapping[name] = column
    return mapping


def detect(src: Source) -> Optional[Tuple[str, str]]:
    """``(tool, what was recognised)`` for the first tool whose fields ``src`` has, else ``None``."""
    for module in _DETECT:
        found = module.detect(src)
        if found:
            return module.NAME, found
    return None


def convert(source: Union[Source, Sequence[Mapping], object], *, tool: Optional[str] = None,
            mapping: Union[str, Mapping[str, str], None] = None, passage_ids: str = "P", skip_invalid: bool = False,
            splitter: Optional[ClaimSplitter] = None, hint: str = "",
            options: Optional[Mapping[str, object]] = None) -> Conversion:
    """Cases (as dicts, in the case format) from a source's records, or from a DataFrame or list
    of dicts. Without ``skip_invalid`` the first row that cannot be used raises an
    :class:`InputError` naming it (``hint`` is added to that sentence). ``options``: what only
    some tools take (:data:`TOOL_OPTIONS`: SAP's ``passage_id_key`` and ``prompt_template``)."""
    src = source if isinstance(source, Source) else read_table(source)
    options = {k: v for k, v in (options or {}).items() if v is not None}
    mapping = parse_map(mapping)
    if passage_ids not in PASSAGE_IDS:
        raise InputError(f"--passage-ids must be {' or '.join(PASSAGE_IDS)}, not {passage_ids!r}.")
    if not src.records:
        raise InputError(f"{src.name or 'the input'} holds no rows; nothing was read.")
    recognised = None
    generic = False
    if tool is not None:
        tool = tool_name(tool)
        module = TOOLS[tool]
        if module is not log and not mapping and not module.detect(src):
            raise InputError(_wrong_tool(src, module))
    else:
        found = detect(src)
        if found is not None:
            tool, recognised = found
            module = TOOLS[tool]
        elif mapping:
            tool, module, generic = "log", log, True
        else:
            raise InputError(f"could not tell which tool wrote {src.name or 'the rows'} (its fields: "
                             f"{_fields(src)}); name it with --from {'|'.join(FORMATS + EVALUATIONS)}, or map the "
                             "fields with --map question=COLUMN,answer=COLUMN,retrieved=COLUMN.")
    if mapping and not module.ROWS:
        raise InputError(f"--map applies to files with one row per answer; {src.name or 'this input'} is a "
                         f"{module.TITLE} trace export, read trace by trace; leave --map out.")
    for name in options:
        if tool not in TOOL_OPTIONS.get(name, ()):
            option = "--" + name.replace("_", "-")
            raise InputError(f"{option} applies to {' and '.join(TOOLS[t].TITLE for t in TOOL_OPTIONS[name])} logs only, "
                             f"and {src.name or 'the input'} is read as {module.TITLE}; drop {option}.")
    src = getattr(module, "inner", _same)(src)  # the records a document wraps (results.results, data)
    if mapping:
        _check_columns(src, mapping)
    classes = _classifications(src, mapping.pop("classification", None))
    notes: List[str] = []
    if generic:
        items = log.convert(src, mapping, base=_GENERIC)
    elif module is sap:
        items = module.convert(src, mapping, dict(options, notes=notes))
    else:
        items = module.convert(src, mapping)
    out = _finish(items, src, tool, recognised, passage_ids, skip_invalid, splitter or ClaimSplitter(), hint, classes)
    out.notes = notes
    return out


def _classifications(src: Source, column: Optional[str]) -> Dict[str, str]:
    """Each row's classification (for a data policy), by the row's ref: from the column ``--map
    classification=COLUMN`` names, else from a ``classification`` field."""
    from .common import get

    name = column or "classification"
    found: Dict[str, str] = {}
    for number, obj in src.records:
        value = get(obj, name)
        if value is None or (isinstance(value, float) and value != value) or (isinstance(value, str) and not value.strip()):
            continue
        if not isinstance(value, str):
            raise InputError(f"{src.where(src.ref(number))}: the classification in {name!r} must be text like "
                             f"\"confidential\", not {value!r}.")
        found[src.ref(number)] = value.strip()
    if found:
        found[""] = name  # the column, left out of meta
    return found


def _same(src: Source) -> Source:
    return src


def _fields(src: Source, n: int = 8) -> str:
    shown = ", ".join(src.columns[:n])
    return shown + (", ..." if len(src.columns) > n else "") if shown else "none"


def _wrong_tool(src: Source, module: ModuleType) -> str:
    other = detect(src)
    guess = f"; it looks like {TOOLS[other[0]].TITLE}: try --from {other[0]}" if other else ""
    return (f"{src.name or 'the rows'} does not look like a {module.TITLE} export, which holds {module.EXPECTS} "
            f"(its fields: {_fields(src)}){guess}.")


def _check_columns(src: Source, mapping: Mapping[str, str]) -> None:
    from .common import get

    for name, column in mapping.items():
        if not any(column in obj or get(obj, column) is not None for _, obj in src.records):
            raise InputError(f"--map {name}={column}: {src.name or 'the input'} has no field {column!r} "
                             f"(its fields: {_fields(src)}).")


def _finish(items: Iterator[Item], src: Source, tool: str, recognised: Optional[str], passage_ids: str,
            skip_invalid: bool, splitter: ClaimSplitter, hint: str,
            classes: Optional[Mapping[str, str]] = None) -> Conversion:
    out = Conversion([], [], [], tool, recognised, src)
    seen: Dict[str, str] = {}
    for k, item in enumerate(items, 1):
        if isinstance(item, Draft):
            try:
                case = _case(item, k, seen, passage_ids, splitter, out)
            except _Reject as reason:
                item = Bad(item.ref, str(reason))
            else:
                seen[case["id"]] = item.ref
                if classes and item.ref in classes:
                    case["classification"] = classes[item.ref]
                    case.get("meta", {}).pop(classes.get("", "classification"), None)
                    if "meta" in case and not case["meta"]:
                        del case["meta"]
                out.cases.append(case)
                out.refs.append(src.where(item.ref))
                continue
        if not skip_invalid:
            raise InputError(f"{src.where(item.ref)}: {item.reason}{hint}.")
        out.skipped.append(item)
    return out


def _sizes_apart(size: int, limit: int) -> Tuple[str, str]:
    """A size and the limit it passes, as they read side by side: in whole MB, with one decimal
    where whole MB would read alike, in bytes where that would too ("64 MB, more than 64 MB")."""
    mb = 1024 * 1024
    for shown in (_mb, lambda n: f"{int(n * 10 // mb) / 10:,.1f} MB", lambda n: f"{n:,} bytes"):
        said = shown(size), shown(limit)
        if said[0] != said[1]:
            return said
    return said


class _Reject(Exception):
    """A draft that cannot be a case (its id is taken, its passages share an id, its labels do not fit)."""


def _case(draft: Draft, k: int, seen: Mapping[str, str], passage_ids: str, splitter: ClaimSplitter,
          out: Conversion) -> dict:
    cid = draft.id or f"r{k}"
    if cid in seen:
        raise _Reject(f"the case id {cid!r} is already used on {seen[cid]}; give each row its own id")
    retrieved = []
    first: Dict[str, int] = {}
    for i, p in enumerate(draft.passages, 1):
        pid = p["id"] if p.get("id") else (str(i) if passage_ids == "index" else f"P{i}")
        if pid in first:
            raise _Reject(f"passages {first[pid]} and {i} both have the id {pid!r}; give each passage of a record "
                          "its own id")
        first[pid] = i
        retrieved.append({"id": pid, "text": p["text"], **{key: plain(v) for key, v in p.items()
                                                             if key not in ("id", "text")}})
    claims = splitter.split(cid, draft.answer, [p["id"] for p in retrieved], question=draft.question or "").claims
    if draft.labels is not None and len(draft.labels) != len(claims):
        raise _Reject(f"{len(draft.labels)} label(s) for the answer's {len(claims)} claim(s); give one label per "
                      "claim, in order, or leave \"labels\" out")
    case: dict = {"id": cid, "question": draft.question, "retrieved": retrieved, "answer": draft.answer}
    if draft.answerable is not None:
        case["answerable"] = draft.answerable
    if draft.labels is not None:
        case["labels"] = draft.labels
    aliases = _aliases(cid, [p["id"] for p in retrieved], claims, out)
    if aliases:
        case["aliases"] = aliases
    meta = {k: v for k, v in plain(draft.meta).items() if present(v)}
    if meta:
        case["meta"] = meta
    try:
        line = json_line(case, allow_nan=False)
    except RecursionError:
        raise _Reject("it nests lists or objects more deeply than groundlab writes; flatten it") from None
    except ValueError as exc:  # pragma: no cover - plain() leaves no NaN
        raise _Reject(f"it holds a value JSON cannot write ({exc})") from None
    if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        size, limit = _sizes_apart(len(line.encode("utf-8", "surrogatepass")), MAX_LINE_BYTES)
        raise _Reject(f"it makes a case line of {size}, more than groundlab reads as one case "
                      f"({limit}: score would refuse the file); shorten its passages or answer")
    out.tool_ids += sum(1 for p in draft.passages if p.get("id"))
    if claims:
        out.answered += 1
        if not any(claim.cites for claim in claims):
            out.without_citations += 1
        if not retrieved:
            out.without_passages += 1
    return case


def _aliases(cid: str, ids: List[str], claims, out: Conversion) -> Dict[str, str]:
    """Citations by position (``[P2]``, ``[2]``) of passages that carry ids of their own, each
    tied to the passage at that position (:func:`groundlab.claims.positional_aliases`); the other
    citations that name no retrieved passage are counted as unmatched."""
    cites = list(dict.fromkeys(c for claim in claims for c in claim.cites))
    aliases = positional_aliases(ids, cites)
    known = set(ids)
    for cite in cites:
        if cite in aliases:
            out.positional.append((cid, cite))
        elif cite not in known and (cid, cite) not in out.unmatched:
            out.unmatched.append((cid, cite))
    return aliases


def load_table(source: object, *, tool: Optional[str] = None, columns: Optional[Mapping[str, str]] = None,
               passage_ids: str = "P") -> Iterator[Tuple[str, dict]]:
    """``(where, case object)`` for each row of a DataFrame, a list of dicts, or (with ``tool`` or
    ``columns``) a file in another tool's format, for :func:`groundlab.io.load_cases` to check."""
    if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
        src = read_input(source)  # type: ignore[arg-type]
    else:
        src = read_table(source)
    if tool is None and not columns and "retrieved" in src.columns:
        for number, obj in src.records:
            yield src.where(src.ref(number)), obj
        return
    conversion = convert(src, tool=tool, mapping=columns, passage_ids=passage_ids)
    yield from zip(conversion.refs, conversion.cases)


def load_cases(source: Union[PathLike, "pd.DataFrame", Sequence[Mapping]],
               passages: Union[PathLike, Mapping[str, Passage], None] = None, *,
               tool: Optional[str] = None, columns: Optional[Mapping[str, str]] = None,
               passage_ids: str = "P") -> List[Case]:
    """Read and check cases: from a cases file (JSON Lines; ``-`` reads standard input), or from
    a pandas DataFrame or a list of dicts holding one case a row (:func:`groundlab.io.load_cases`).

    Rows in another tool's columns (a Ragas or DeepEval dataset, Phoenix spans, ...) are
    converted as ``groundlab import`` does: the tool is recognised by its columns, or named with
    ``tool``; ``columns`` maps the case fields to other columns (``{"answer": "response"}``);
    ``passage_ids="index"`` names passages without ids 1..n instead of P1..Pn. A path with
    ``tool`` or ``columns`` is read as ``groundlab import`` reads it (JSONL, JSON, CSV, Parquet).

    >>> rows = [{"user_input": "Who releases it?", "response": "The analyst.",
    ...          "retrieved_contexts": ["The analyst releases it."]}]
    >>> case = load_cases(rows)[0]
    >>> case.answer, case.retrieved[0].text
    ('The analyst.', 'The analyst releases it.')
    """
    if tool is None and columns is None and isinstance(source, (str, os.PathLike)):
        return read_cases(source, passages)
    table, passages_name = passage_table(passages)
    return cases_of_rows(load_table(source, tool=tool, columns=columns, passage_ids=passage_ids), source, table,
                         passages_name)


def import_cases(path: PathLike, out: PathLike, *, tool: Optional[str] = None, force: bool = False,
                 mapping: Union[str, Sequence[str], Mapping[str, str], None] = None, passage_ids: str = "P",
                 skip_invalid: bool = False, splitter: Optional[ClaimSplitter] = None,
                 passage_id_key: Optional[str] = None, prompt_template: Optional[str] = None,
                 evaluation: Optional[Mapping[str, object]] = None) -> "ImportReport | EvaluationImport":
    """Read ``path`` (``-``: standard input; a folder of JSON files, one record a file), recognise
    the tool that wrote it (or take ``tool``), check every row, and write the cases to ``out``
    atomically, no more readable than ``path`` (:func:`~groundlab.io.outputs_like`).

    Nothing is written when a row cannot be used (unless ``skip_invalid``), when ``out`` exists
    (unless ``force``) or when it is the input itself. ``passage_id_key`` and ``prompt_template``
    apply to SAP orchestration logs (:mod:`.sap`). An SAP AI Core evaluation's results.db or
    aggregated metrics (``tool="sap-eval"``, or recognised by content) are read by
    :func:`import_evaluation`, which ``evaluation`` gives its own options (``run``, ``metric``,
    ``append``).
    """
    if tool is not None:
        tool = tool_name(tool)
    # a .db file is read as an evaluation's results.db even when it is none (a page saved under that
    # name): it then gets the sentence that says it is not a SQLite database
    if tool in EVALUATIONS or (tool is None and not is_stdin(path) and Path(path).is_file()
                               and (sap_eval.is_results_db(path) or sap_eval.looks_like_aggregates(path)
                                    or Path(path).suffix.lower() in sap_eval.DATABASE_SUFFIXES)):
        given = [o for o, v in (("--map", mapping), ("--prompt-template", prompt_template)) if v]
        if given:
            raise InputError(f"{given[0]} applies to another tool's rows; an SAP AI Core evaluation's results name "
                             f"their own fields, so drop {given[0]}.")
        return import_evaluation(path, out, force=force, passage_ids=passage_ids, skip_invalid=skip_invalid,
                                 splitter=splitter, passage_id_key=passage_id_key, **(evaluation or {}))
    if evaluation:
        option = "--" + next(iter(evaluation)).replace("_", "-")
        raise InputError(f"{option} applies to an SAP AI Core evaluation's results (--from sap-eval); drop it.")
    out = Path(out)
    check_output(out, force, inputs=[] if is_stdin(path) else [path])
    if passage_ids not in PASSAGE_IDS:
        raise InputError(f"--passage-ids must be {' or '.join(PASSAGE_IDS)}, not {passage_ids!r}.")
    mapping = parse_map(mapping)
    src = read_input(path)
    conversion = convert(src, tool=tool, mapping=mapping, passage_ids=passage_ids, skip_invalid=skip_invalid,
                         splitter=splitter,
                         hint="; nothing was written (fix the row, or pass --skip-invalid to import the other rows)",
                         options={"passage_id_key": passage_id_key, "prompt_template": prompt_template})
    if not conversion.cases:
        first = conversion.skipped[0] if conversion.skipped else None
        why = f" ({first.ref}: {first.reason})" if first else ""
        raise InputError(f"{display_name(path)}: none of its {plural(len(src.records), 'row', 'rows')} can be used"
                         f"{why}; nothing was written.")
    with outputs_like(path):
        write_atomic(out, "".join(map(json_line, conversion.cases)))
    return ImportReport(conversion, display_name(path), out, passage_ids)


def _slug(name: str) -> str:
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.")
    return slug[:80] or "run"


#: Names Windows keeps for devices, whatever extension follows.
_DEVICES = frozenset(["con", "prn", "aux", "nul", *(f"com{k}" for k in range(1, 10)), *(f"lpt{k}" for k in range(1, 10))])


def _run_files(runs: Sequence[Any], folder: Path) -> Tuple[List[Path], Dict[int, str]]:
    """One file a run in ``folder``, named after the run, and what to say of the names changed. Two
    names that a file system may take for one (``RUN-X`` and ``run-x`` on a case-insensitive one,
    as macOS and Windows have; two long names cut alike) are each given a stable suffix, the first
    8 hex digits of the SHA-256 of the run's id, so no run's cases overwrite another's; so is a name
    Windows keeps for a device (``CON``, ``nul``)."""
    def fold(stem: str) -> str:
        return unicodedata.normalize("NFKC", stem).casefold()

    stems = [_slug(r.name) for r in runs]
    groups: Dict[str, List[int]] = {}
    for k, stem in enumerate(stems):
        groups.setdefault(fold(stem), []).append(k)
    renamed: Dict[int, str] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        names = ", ".join(repr(runs[k].name) for k in members)
        for k in members:
            stems[k] = f"{stems[k]}-{sha256_text(str(runs[k].id))[:8]}"
            renamed[id(runs[k])] = (f"file name: {stems[k]}.jsonl, the run's name and a suffix from its id, as the runs "
                                    f"{names} would give file names that a case-insensitive file system (macOS, "
                                    "Windows) or the cut to 80 characters makes one.")
    for k, stem in enumerate(stems):
        if fold(stem).split(".")[0] in _DEVICES:  # CON.jsonl, nul.jsonl: a device on Windows, no file
            stems[k] = f"{stem}-{sha256_text(str(runs[k].id))[:8]}"
            renamed[id(runs[k])] = (f"file name: {stems[k]}.jsonl, the run's name and a suffix from its id, as "
                                    f"{runs[k].name!r} names a device on Windows, not a file.")
    if len({fold(stem) for stem in stems}) < len(stems):
        raise InputError("two runs' names and ids give the same file name; import them one at a time with --run.")
    return [folder / f"{stem}.jsonl" for stem in stems], renamed


@dataclass(frozen=True)
class EvaluationImport:
    """What an evaluation's import read and wrote: one :class:`ImportReport` a run written, or the
    trend rows of the tracking API's aggregates."""

    source: str
    recognised: str
    runs: List[Tuple[object, ImportReport]] = field(default_factory=list)
    trend: Optional[Path] = None
    aggregates: List[object] = field(default_factory=list)
    kept: int = 0

    def __str__(self) -> str:
        lines = [f"{self.source}: recognised as {self.recognised} (--from sap-eval)."]
        for run, report in self.runs:
            model = f" ({run.model})" if run.model else ""
            lines.append(f"run {run.name!r}{model}:")
            lines.extend("  " + line for line in str(report).splitlines())
        if self.trend is not None:
            lines.append(f"wrote {plural(len(self.aggregates), 'row', 'rows')} (a run and metric each) to {self.trend}"
                         + (f", beside the {self.kept} it held" if self.kept else "") + ":")
            for a in self.aggregates:
                counts = ", ".join(f"{r}: {int(n)}" for r, n in a.counts.items())
                mean = a.statistics.get("mean")
                lines.append(f"  {a.run}{f' ({a.model})' if a.model else ''}: {a.metric} {counts} of {a.answers}"
                             + (f", mean {mean:.2f}" if mean is not None else ""))
        return "\n".join(lines)


def import_evaluation(path: PathLike, out: PathLike, *, run: Optional[str] = None, metric: Optional[str] = None,
                      append: bool = False, force: bool = False, passage_ids: str = "P", skip_invalid: bool = False,
                      splitter: Optional[ClaimSplitter] = None,
                      passage_id_key: Optional[str] = None) -> EvaluationImport:
    """An SAP AI Core evaluation's results (:mod:`.sap_eval`) into cases files: a results.db's run
    into ``out``, its several runs each into ``out/<run name>.jsonl`` (``out`` a folder; ``run``
    picks one), each a configuration ``groundlab compare`` reads; the tracking API's aggregated
    metrics into the trend rows of ``out`` (JSON Lines; ``append`` adds them to those it holds).
    Nothing is written unless every file can be."""
    name = display_name(path)
    if sap_eval.is_results_db(path):
        if append:
            raise InputError("--append adds aggregated metrics to a trend file; a results.db gives cases, so drop "
                             "--append.")
        results = sap_eval.read_results(path, passage_id_key=passage_id_key, metric=metric)
        runs = [results.run(run)] if run is not None else results.runs
        target = Path(out)
        named_folder = target.is_dir() or str(out).endswith(("/", os.sep))  # a trailing / names a folder
        folder = named_folder or len(runs) > 1
        if len(runs) > 1 and not (named_folder or not target.suffix):
            raise InputError(f"{name} holds {len(runs)} runs ({', '.join(repr(r.name) for r in runs)}); give --out "
                             "a folder to write one cases file a run, or --run NAME to write one.")
        targets, renamed = _run_files(runs, target) if folder else ([target], {})
        for t in targets:
            check_output(t, force, inputs=[path])
        written = []
        for r, t in zip(runs, targets):
            classes = _classifications(r.source, None)
            conversion = _finish(iter(r.items), r.source, "log", None, passage_ids, skip_invalid,
                                 splitter or ClaimSplitter(),
                                 "; nothing was written (pass --skip-invalid to import the other answers)", classes)
            conversion.notes = list(r.notes) + ([renamed[id(r)]] if id(r) in renamed else [])
            if not conversion.cases:
                first = conversion.skipped[0] if conversion.skipped else None
                raise InputError(f"{name} run {r.name!r}: none of its answers can be used"
                                 f"{f' ({first.ref}: {first.reason})' if first else ''}; nothing was written.")
            written.append((r, t, conversion))
        reports = []
        with outputs_like(path):
            for r, t, conversion in written:
                write_atomic(t, "".join(map(json_line, conversion.cases)))
                reports.append((r, ImportReport(conversion, f"{name} run {r.name!r}", t, passage_ids)))
        what = (f"an SAP AI Core evaluation's results.db (tables {', '.join(results.tables)}; "
                f"{plural(len(results.runs), 'run', 'runs')})")
        return EvaluationImport(name, what, reports)
    if not sap_eval.starts_like_json(path):
        raise InputError(f"{name} is not a SQLite database, so not an evaluation's results.db, nor JSON, as the "
                         "tracking API's aggregated metrics are; download the results.db of the execution's output "
                         "artifact, or save the answer of GET /v2/lm/metrics, and import that.")
    aggregates = sap_eval.read_aggregates(path, metric=metric)
    target = Path(out)
    kept: List[dict] = []
    if append and target.exists():
        check_output(target, True, inputs=[path])
        new = {(a.execution_id, a.run, a.metric) for a in aggregates}
        for k, line in enumerate(target.read_text(encoding="utf-8").split("\n"), 1):  # U+2028 ends no line
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if not isinstance(row, dict) or not {"execution_id", "run", "metric", "counts"} <= set(row):
                raise InputError(f"{target} line {k} is not a trend row groundlab wrote (execution_id, run, metric, "
                                 "counts); --append adds to such a file only, so nothing was written.")
            if (row["execution_id"], row["run"], row["metric"]) not in new:
                kept.append(row)
    else:
        check_output(target, force, inputs=[path])
    rows = kept + [a.row() for a in aggregates]
    rows.sort(key=lambda r: (r.get("timestamp") or "", r["execution_id"], r["run"], r["metric"]))
    with outputs_like(path):
        write_atomic(target, "".join(map(json_line, rows)))
    executions = len({a.execution_id for a in aggregates})
    what = (f"the tracking API's aggregated metrics of {plural(executions, 'execution', 'executions')}")
    return EvaluationImport(name, what, trend=target, aggregates=aggregates, kept=len(kept))


__all__ = ["EVALUATIONS", "FORMATS", "PASSAGE_IDS", "TOOLS", "Conversion", "EvaluationImport", "ImportReport", "convert",
           "detect", "import_cases", "import_evaluation",
           "load_cases", "load_table", "parse_map", "tool_name"]
