"""SAP generative AI hub: orchestration with document grounding.

The passages the model saw are in the response under the grounding module's result:
``module_results.grounding.data["grounding_result"]`` in the v1 API (``/completion``),
``intermediate_results.grounding.data["grounding_result"]`` in v2 (``/v2/completion``). Read
here from:

- response bodies, one JSON document a file (or a folder of them, put in the order the answers
  were made: the ``created`` time of the model's reply), or one a line;
- the SDK's serialisations, one a line: v1's response dataclasses as dicts
  (``dataclasses.asdict``), v2's ``model_dump()`` / ``model_dump_json()``, with or without
  null fields;
- the ``{"question", "evidence", "answer"}`` record that keeps ``evidence`` from the grounding
  result, as JSON Lines, CSV or Parquet.

The grounding result comes in two forms. By default the chunk texts are joined by three
backticks, with no ids (``plain``). When the request asked for ``metadata_params`` it is a JSON
string ``[{"content", "metadata": {key: [values]}}]``, the list sometimes nested one level
deeper (``metadata``), where a key present on several levels repeats with its level as prefix
(``document_webUrl`` beside the chunk's ``webUrl``).

Passage ids, in this order: the metadata key ``passage_id_key`` names (the ``document_`` form
of it too); without one, the metadata key whose values the answers cite, else the first of
:data:`ID_KEYS` present; else an id at the start of every chunk's text (``KB-59 · Title``,
``[KB-59] Title``); else the position. Chunks of one document (the same id) become one passage.

The responses keep no question field: it is recovered from the filled prompt (the templating
module's user message), by the prompt template when one is given (``Question: {{?question}}``),
else from a labelled line (``Question:``, ``Query:``, ``Request:`` ...); a row where neither
works says so.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.io import _json_type
from ..core.records import one_line
from ..core.sentences import LazyPattern
from .common import (Bad, Draft, Item, RowError, Source, answer_text, case_id, get, meta_of, present, question_text,
                     require)

NAME = "sap"
TITLE = "SAP orchestration"
ROWS = True
EXPECTS = ("orchestration responses with module_results.grounding (v1) or intermediate_results.grounding (v2), "
           "or records with question, evidence and answer")

#: The separator SAP's grounding module puts between chunk texts in its plain form.
SEPARATOR = "```"

#: Metadata keys that hold a document's id, tried in this order when ``--passage-id-key`` names none
#: and no key's values are cited by the answers.
ID_KEYS = ("doc_id", "document_id", "docid", "docId", "documentId", "id", "source_id", "sourceId", "doc", "key",
           "source", "fileName", "filename", "file_name", "webUrl", "url")

#: The record a user of the SDK keeps: its fields.
RECORD = {"question": "question", "retrieved": "evidence", "answer": "answer", "id": "id"}

#: Where each API version keeps its parts: (module results, final answer).
_API = {"v1": ("module_results", "orchestration_result"), "v2": ("intermediate_results", "final_result")}

#: A placeholder of SAP's prompt templates: ``{{?question}}``, ``{{ ?grounding_response }}``.
_PLACEHOLDER = re.compile(r"\{\{\s*\?\s*([A-Za-z_][\w.-]*)\s*\}\}")

#: Placeholder names that hold the user's question.
QUESTION_NAMES = ("question", "query", "user_question", "userquestion", "user_query", "input", "groundingrequest",
                  "grounding_request", "request", "prompt", "user_input", "frage")
_QUESTION_NAMES = QUESTION_NAMES

#: A line of a filled prompt that labels the question ("Question: ...").
_QUESTION_LABEL = re.compile(
    r"^[ \t>*#_-]*(?:the\s+|user(?:'s)?\s+|customer\s+|employee\s+)?(?:question|query|request|frage|anfrage|"
    r"user\s+input|input|ask|asked)[ \t*_]*[:：][ \t]*", re.IGNORECASE | re.MULTILINE)
#: The start of a line that labels something else ("Context:", "Documents:").
_OTHER_LABEL = re.compile(r"^[ \t>*#_-]*[A-Za-zÀ-ÿ][\w \t'()/-]{0,40}[:：]", re.MULTILINE)

#: An id at the start of a chunk's text: ``KB-59 · Title``, ``[KB-59] Title``, ``KB-59: ...``,
#: ``ID KB-59``; it holds a digit, so a first word is never taken for one.
_TEXT_ID = LazyPattern(
    r"\A\s*(?:(?:doc(?:ument)?|id|source|ref)\s*(?:id)?\s*[:#]?\s*)?[\[(<【]?"
    r"(?P<id>(?=[\w./-]*\d)[A-Za-z0-9](?:[\w]|[-./](?=\w))*)"
    r"[\])>】]?(?=[ \t]*(?:[·•|:—–\-]|\n|\Z|[ \t]))", re.IGNORECASE)

#: A piece after the separator that starts like the inside of a Markdown code block (a language
#: name alone on its line, or a line break): the three backticks were part of a chunk's text.
_FENCE_INSIDE = re.compile(r"\A(?:[A-Za-z0-9_+#.-]{0,20}[ \t]*\n|\s*\Z)")

#: Cited ids in answers, to tell which metadata key the answers use (a loose, generous reading).
_CITED = re.compile(r"\[([^\[\]\n]{1,200})\]")


def _results(obj: Mapping) -> Optional[Tuple[str, Mapping]]:
    """``(api version, module results)`` of a response, else ``None``."""
    for api, (modules, _) in _API.items():
        value = obj.get(modules)
        if isinstance(value, Mapping):
            return api, value
    return None


def _grounding(modules: Mapping) -> Any:
    grounding = modules.get("grounding")
    data = grounding.get("data") if isinstance(grounding, Mapping) else None
    return data.get("grounding_result") if isinstance(data, Mapping) else None


def response_parts(obj: object) -> Optional[Tuple[str, Optional[str], bool, Any, Any]]:
    """``(api version, answer, used grounding, grounding result, filled prompt)`` of an
    orchestration response (v1 or v2 body), read as the import reads one; ``None`` when ``obj`` is
    none. ``answer`` is ``None`` when the response holds none; ``used grounding`` says whether the
    grounding module ran (it keeps a result, possibly empty)."""
    if not isinstance(obj, Mapping):
        return None
    found = _results(obj)
    if found is None:
        return None
    api, modules = found
    answer = _choice_text(obj.get(_API[api][1]))
    if answer is None:
        answer = _choice_text(modules.get("llm"))
    grounding = modules.get("grounding")
    evidence = _grounding(modules)
    return api, answer, isinstance(grounding, Mapping), evidence, _filled_prompt(modules.get("templating"), evidence)

def detect(src: Source) -> Optional[str]:
    apis: Dict[str, int] = {}
    forms: Dict[str, int] = {}
    for _, obj in src.records[:1000]:
        found = _results(obj)
        if found is None:
            continue
        api, modules = found
        if not isinstance(modules.get("grounding"), Mapping) and _API[api][1] not in obj:
            continue
        apis[api] = apis.get(api, 0) + 1
        form = evidence_form(_grounding(modules))
        if form:
            forms[form] = forms.get(form, 0) + 1
    if apis:
        versions = " and ".join(sorted(apis))
        where = " and ".join(f"{_API[a][0]}.grounding" for a in sorted(apis))
        what = "response bodies" if src.kind == "json" or src.unit == "file" else "responses"
        return f"{versions} {what} ({where}; {_forms_text(forms)})"
    columns = set(src.columns)
    if {"question", "evidence", "answer"} <= columns:
        for _, obj in src.records[:1000]:
            form = evidence_form(obj.get("evidence"))
            if form:
                forms[form] = forms.get(form, 0) + 1
        return f"grounding records (question, evidence, answer; {_forms_text(forms)})"
    return None


def _forms_text(forms: Mapping[str, int]) -> str:
    words = {"metadata": "the grounding result as JSON with metadata",
             "plain": "the grounding result as chunk texts joined by ```"}
    if not forms:
        return "no grounding result"
    return " and ".join(words[f] for f in sorted(forms))


def evidence_form(value: object) -> Optional[str]:
    """``metadata`` (a JSON list of ``{"content", "metadata"}``), ``plain`` (chunk texts joined by
    three backticks), or ``None`` for no evidence."""
    if isinstance(value, list):
        return "metadata"
    if not isinstance(value, str) or not value.strip():
        return None
    return "metadata" if _metadata_items(value) is not None else "plain"


def _metadata_items(value: object) -> Optional[List[Mapping]]:
    """The chunks of the metadata form (a JSON list, or a list nested in lists), else ``None``."""
    if isinstance(value, str):
        body = value.strip()
        if not body.startswith("["):
            return None
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            return None
    if not isinstance(value, list):
        return None
    items: List[Mapping] = []

    def walk(node: object, depth: int) -> bool:
        if isinstance(node, list) and depth < 5:
            return all(walk(child, depth + 1) for child in node)
        if isinstance(node, Mapping) and ("content" in node or "metadata" in node):
            items.append(node)
            return True
        return False

    return items if walk(value, 0) else None


# ---------------------------------------------------------------- the conversion


class _Row:
    """One answer as the file holds it: question (or the filled prompt), evidence, answer."""

    def __init__(self, ref: str, obj: Mapping, cid: Optional[str], question: Optional[str], prompt: Optional[str],
                 evidence: object, answer: object, answer_name: str, meta: Dict[str, Any], order: Any) -> None:
        self.ref, self.obj, self.id, self.question, self.prompt = ref, obj, cid, question, prompt
        self.evidence, self.answer, self.answer_name, self.meta, self.order = evidence, answer, answer_name, meta, order
        self.question_name = "question"


def convert(src: Source, mapping: Mapping[str, str], options: Optional[Mapping[str, Any]] = None) -> Iterator[Item]:
    """Cases from SAP orchestration responses or grounding records (see the module docstring).

    ``options``: ``passage_id_key`` (the metadata key of a passage's id), ``prompt_template`` (the
    template of the user message, to find the question in it), and ``notes``, a list the
    conversion appends what a person should know to (which ids were used, how questions were
    found)."""
    options = dict(options or {})
    notes: List[str] = options.get("notes", [])
    key = options.get("passage_id_key")
    template = options.get("prompt_template")
    bodies = any(_results(obj) is not None for _, obj in src.records[:1000])
    rows_: List[Any] = []
    if bodies:
        for number, obj in src.records:
            rows_.append(_body_row(src.ref(number), obj))
    else:
        cols = {**RECORD, **mapping}
        require(src, [cols["question"], cols["retrieved"], cols["answer"]], "a grounding record")
        for number, obj in src.records:
            rows_.append(_record_row(src.ref(number), obj, cols))
    if bodies and src.unit == "file":
        rows_ = _in_order_made(rows_, notes)

    good = [r for r in rows_ if isinstance(r, _Row)]
    found = grounding_passages([(row.ref, row.evidence, row.answer) for row in good], key, notes)
    passages_of = {id(row): result for row, result in zip(good, found)}
    questions: Dict[str, int] = {}
    for row in rows_:
        if not isinstance(row, _Row):
            yield row
            continue
        try:
            passages_ = passages_of[id(row)]
            if isinstance(passages_, RowError):
                raise passages_
            question, how_found = _question(row, template)
            questions[how_found] = questions.get(how_found, 0) + 1
            answer = answer_text(row.answer, row.answer_name)
            yield Draft(row.ref, question, answer, passages_, row.id, row.meta)
        except RowError as error:
            yield Bad(row.ref, str(error))
    for how_found, n in questions.items():
        if how_found:
            notes.append(f"questions: {how_found} ({n} answer{'s' * (n != 1)}).")


class _Answer:
    """What :func:`_id_key` reads of an answer: its text."""

    def __init__(self, answer: object) -> None:
        self.answer = answer


def grounding_passages(rows: Sequence[Tuple[str, object, object]], key: Optional[str] = None,
                       notes: Optional[List[str]] = None) -> List[Union[List[dict], RowError]]:
    """The passages of each grounding result, read as an orchestration log's are (see the module
    docstring): ``rows`` are ``(ref, grounding result, answer)``; each gives a list of
    ``{"id", "text"[, "metadata"]}`` (``id`` ``None`` where the result keeps none: the importer
    names those by position) or the :class:`RowError` saying why it cannot be read. ``key`` names
    the metadata key of a passage's id (``--passage-id-key``); what a person should know (which ids
    were used, chunks joined) is appended to ``notes``.

    >>> found = grounding_passages([("line 1", "KB-1 Limits: up to 2 percent.", "Yes [KB-1].")])
    >>> [(p["id"], p["text"]) for p in found[0]]
    [('KB-1', 'KB-1 Limits: up to 2 percent.')]
    """
    notes = notes if notes is not None else []
    answers = [_Answer(answer) for _, _, answer in rows]
    chunks: Dict[int, Any] = {}
    for row, (_, evidence, _) in zip(answers, rows):
        try:
            chunks[id(row)] = _chunks(evidence)
        except RowError as error:
            chunks[id(row)] = error
    chosen, how = _id_key(key, answers, chunks)
    from_text = 0
    by_position = 0
    joined: List[str] = []
    fenced: List[str] = []
    out: List[Union[List[dict], RowError]] = []
    for row, (ref, _, _) in zip(answers, rows):
        found = chunks[id(row)]
        if isinstance(found, RowError):
            out.append(found)
            continue
        form, items = found
        try:
            if form == "plain":
                items, kept = _plain_whole(items, ref)
                if kept:
                    fenced.append(ref)
        except RowError as error:
            out.append(error)
            continue
        texts = [text for text, _ in items]
        ids: List[Optional[str]] = [None] * len(items)
        if chosen is not None:
            ids = [_meta_id(meta, chosen) for _, meta in items]
        if not all(ids):
            in_text = [_text_id(text) for text in texts]
            if texts and all(in_text):
                ids = in_text
                from_text += 1
            elif texts:
                ids = [None] * len(items)
                by_position += 1
        passages_: List[dict] = []
        at: Dict[str, dict] = {}
        for (text, meta), pid in zip(items, ids):
            if pid is not None and pid in at:  # another chunk of the same document
                at[pid]["text"] += "\n\n" + text
                # an id from the log: one that holds a line break (or anything unprintable) is quoted,
                # so it cannot forge a line of its own in the notes
                joined.append(f"{ref} {one_line(pid)}")
                continue
            passage = {"id": pid, "text": text}
            if meta:
                passage["metadata"] = meta
            passages_.append(passage)
            if pid is not None:
                at[pid] = passage
        out.append(passages_)
    if chosen is not None:
        notes.append(f"passage ids: the grounding metadata's {chosen!r} ({how})" +
                     ("" if key else "; --passage-id-key names another key") + ".")
    if from_text:
        notes.append(f"passage ids: read from the start of each chunk's text in {from_text} answer"
                     f"{'s' * (from_text != 1)}, where every chunk begins with one (\"KB-59 \u00b7 ...\"); the text is "
                     "kept whole.")
    if by_position:
        notes.append(f"passage ids: by position in {by_position} answer{'s' * (by_position != 1)}, whose chunks carry "
                     "no id (ask for metadata_params in the grounding request, or start each chunk with its id).")
    if joined:
        notes.append(f"chunks of the same document joined into one passage: {len(joined)} ({', '.join(joined[:4])}"
                     f"{', ...' if len(joined) > 4 else ''}).")
    if fenced:
        notes.append(f"chunks holding ``` kept whole (the grounding module's separator inside a chunk's text): "
                     f"{', '.join(fenced[:4])}{', ...' if len(fenced) > 4 else ''}.")
    return out


def _body_row(ref: str, obj: Mapping) -> Any:
    found = _results(obj)
    if found is None:
        return Bad(ref, "it holds neither module_results (v1) nor intermediate_results (v2); an orchestration "
                        "response with grounding holds one of them")
    api, modules = found
    final = obj.get(_API[api][1])
    answer_name = f"{_API[api][1]}.choices[0].message.content"
    answer = _choice_text(final)
    if answer is None:
        llm = modules.get("llm")
        if _choice_text(llm) is not None:
            answer, answer_name = _choice_text(llm), f"{_API[api][0]}.llm.choices[0].message.content"
    if answer is None:
        failures = obj.get("intermediate_failures")
        why = f" (intermediate_failures: {str(failures)[:80]})" if present(failures) and failures != [] else ""
        return Bad(ref, f"it holds no answer: {answer_name} is missing{why}")
    grounding = modules.get("grounding")
    if not isinstance(grounding, Mapping):
        return Bad(ref, f"{_API[api][0]}.grounding is missing: the request ran without the grounding module, so the "
                        "response keeps no passages")
    evidence = _grounding(modules)
    meta: Dict[str, Any] = {"api": api}
    source = final if isinstance(final, Mapping) else modules.get("llm")
    if isinstance(source, Mapping):
        for key in ("model", "created", "system_fingerprint"):
            if present(source.get(key)):
                meta[key] = source[key]
        choices = source.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            if present(choices[0].get("finish_reason")):
                meta["finish_reason"] = choices[0]["finish_reason"]
        usage = source.get("usage")
        if isinstance(usage, Mapping):
            meta["usage"] = {k: v for k, v in usage.items() if present(v)}
    try:
        cid = case_id(obj.get("request_id"))
    except RowError as error:
        return Bad(ref, str(error))
    order = meta.get("created")
    return _Row(ref, obj, cid, None, _filled_prompt(modules.get("templating"), evidence), evidence, answer,
                answer_name, meta, order)


def _record_row(ref: str, obj: Mapping, cols: Mapping[str, str]) -> Any:
    for name in (cols["question"], cols["retrieved"], cols["answer"]):
        if name not in obj and get(obj, name) is None:
            return Bad(ref, f"the field \"{name}\" is missing; a grounding record needs {cols['question']}, "
                            f"{cols['retrieved']} and {cols['answer']}")
    try:
        cid = case_id(get(obj, cols.get("id")))
    except RowError as error:
        return Bad(ref, str(error))
    meta = meta_of(obj, [c for c in cols.values() if c])
    row = _Row(ref, obj, cid, get(obj, cols["question"]), None, get(obj, cols["retrieved"]), get(obj, cols["answer"]),
               cols["answer"], meta, None)
    row.question_name = cols["question"]
    return row


def _in_order_made(rows_: List[Any], notes: List[str]) -> List[Any]:
    """A folder's responses in the order the answers were made (the ``created`` time of the model's
    reply, then the file name), as file names (request ids) say nothing of it."""
    timed = [r for r in rows_ if isinstance(r, _Row) and isinstance(r.order, (int, float))
             and not isinstance(r.order, bool)]
    if len(timed) != len([r for r in rows_ if isinstance(r, _Row)]) or len(rows_) < 2:
        notes.append("order: the folder's files in the order of their names (not every response has a created time).")
        return rows_
    order = sorted(range(len(rows_)), key=lambda k: (getattr(rows_[k], "order", float("inf")), k))
    notes.append("order: the folder's responses in the order they were made (the created time of each reply).")
    return [rows_[k] for k in order]


def _choice_text(result: object) -> Optional[str]:
    if not isinstance(result, Mapping):
        return None
    choices = result.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        return None
    return _content_text(message.get("content"))


def _content_text(content: object) -> Optional[str]:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") for part in content if isinstance(part, Mapping) and isinstance(part.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def _filled_prompt(templating: object, evidence: object) -> Optional[str]:
    """The user message the model got, after templating: the one holding the evidence, else the last."""
    if not isinstance(templating, list):
        return None
    users = [_content_text(m.get("content")) for m in templating if isinstance(m, Mapping) and m.get("role") == "user"]
    users = [u for u in users if u]
    if not users:
        return None
    if isinstance(evidence, str) and evidence:
        holding = [u for u in users if evidence in u]
        if holding:
            return holding[-1]
    return users[-1]


# ---------------------------------------------------------------- passages


def _chunks(evidence: object) -> Tuple[str, List[Tuple[str, Dict[str, Any]]]]:
    """``(form, [(text, metadata)])`` of a grounding result."""
    if evidence is None or (isinstance(evidence, str) and not evidence.strip()):
        return "none", []
    if isinstance(evidence, float) and evidence != evidence:
        return "none", []
    items = _metadata_items(evidence)
    if items is not None:
        out = []
        for k, item in enumerate(items, 1):
            content = item.get("content")
            if not isinstance(content, str):
                raise RowError(f"chunk {k} of the grounding result has no text (\"content\" is "
                               f"{_json_type(content)}); the metadata form holds {{\"content\", \"metadata\"}} a chunk")
            meta = item.get("metadata")
            out.append((content, dict(meta) if isinstance(meta, Mapping) else {}))
        return "metadata", out
    if isinstance(evidence, list):
        out = []
        for k, item in enumerate(evidence, 1):
            if not isinstance(item, str):
                raise RowError(f"chunk {k} of the evidence must be text or {{\"content\", \"metadata\"}}, not "
                               f"{_json_type(item)}")
            out.append((item, {}))
        return "list", out
    if not isinstance(evidence, str):
        raise RowError(f"the grounding result must be text, not {_json_type(evidence)}")
    if evidence.lstrip().startswith("["):
        try:
            json.loads(evidence)
        except RecursionError:
            raise RowError("the grounding result nests JSON lists or objects more deeply than groundlab reads "
                           "(about 1,000 levels); export it flat") from None
        except ValueError as exc:
            if evidence.lstrip().startswith("[{"):
                raise RowError(f"the grounding result starts like the JSON of the metadata form but is not valid JSON "
                               f"({exc.msg} at character {exc.pos}); export it whole") from None
    return "plain", [(piece, {}) for piece in evidence.split(SEPARATOR)]


def _plain_whole(items: List[Tuple[str, Dict[str, Any]]], ref: str) -> Tuple[List[Tuple[str, Dict[str, Any]]], bool]:
    """The chunks of the plain form, with a chunk whose text holds three backticks put back
    together: where every chunk starts with an id, a piece without one continues the chunk before
    it. Elsewhere a piece that starts like the inside of a code block cannot be told from a chunk
    of its own, and the row is refused with what to do."""
    pieces = [text for text, _ in items]
    if len(pieces) < 2:
        return items, False
    suspicious = [k for k in range(1, len(pieces)) if _FENCE_INSIDE.match(pieces[k]) or not pieces[k - 1]]
    ids = [_text_id(p) for p in pieces]
    if ids[0] and sum(1 for i in ids if i) >= 2 and not all(ids):
        whole: List[str] = []
        for piece, pid in zip(pieces, ids):
            if pid or not whole:
                whole.append(piece)
            else:
                whole[-1] += SEPARATOR + piece
        return [(text, {}) for text in whole], True
    if suspicious and not all(ids):
        raise RowError(f"the grounding result's chunk {suspicious[0]} seems to hold three backticks (```) of its own, "
                       "the separator SAP puts between chunks, so where one chunk ends cannot be told; ask for "
                       "metadata_params in the grounding request (its JSON form keeps each chunk whole) and log again")
    return items, False


def _text_id(text: str) -> Optional[str]:
    match = _TEXT_ID.match(text)
    return match.group("id") if match else None


def _meta_value(meta: Mapping[str, Any], key: str) -> Any:
    for name in (key, f"document_{key}", f"chunk_{key}"):
        if name in meta:
            return meta[name]
    return None


def _meta_id(meta: Mapping[str, Any], key: str) -> Optional[str]:
    value = _meta_value(meta, key)
    if isinstance(value, list):
        value = next((v for v in value if present(v)), None)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (str, int)):
        text_ = str(value).strip()
        return text_ or None
    return None


def _id_key(key: Optional[str], rows_: Sequence[_Row], chunks: Mapping[int, Any]) -> Tuple[Optional[str], str]:
    """The metadata key passages take their ids from, and why."""
    metas = [meta for row in rows_ for found in [chunks[id(row)]] if not isinstance(found, RowError)
             for _, meta in found[1] if found[0] == "metadata"]
    if key:
        return key, "--passage-id-key"
    if not metas:
        return None, ""
    names: Dict[str, None] = {}
    for meta in metas:
        for name in meta:
            names[name[len("document_"):] if name.startswith("document_") else name] = None
    usable = [n for n in names if all(_meta_id(meta, n) for meta in metas)]
    if not usable:
        return None, ""
    cited: Dict[str, int] = {n: 0 for n in usable}
    for row in rows_:
        found = chunks[id(row)]
        if isinstance(found, RowError) or found[0] != "metadata" or not isinstance(row.answer, str):
            continue
        cites = {part.strip() for group in _CITED.findall(row.answer) for part in re.split(r"[,;]", group)}
        for n in usable:
            cited[n] += sum(1 for _, meta in found[1] if _meta_id(meta, n) in cites)
    best = max(usable, key=lambda n: (cited[n], -_rank(n)))
    if cited[best]:
        return best, "the key whose values the answers cite"
    known = [n for n in usable if n in ID_KEYS]
    if known:
        return min(known, key=_rank), "the first id key present; the answers cite none of its values"
    return None, ""


def _rank(name: str) -> int:
    return ID_KEYS.index(name) if name in ID_KEYS else len(ID_KEYS)


# ---------------------------------------------------------------- the question


def _question(row: _Row, template: Optional[str]) -> Tuple[str, str]:
    """The question and how it was found (empty when the row holds it as a field)."""
    if row.prompt is None:
        if row.question is not None or not isinstance(row.obj, Mapping) or _results(row.obj) is None:
            return question_text(row.question, row.question_name), ""
        raise RowError("the response holds no question and no filled prompt (templating) to find it in; export the "
                       "question with the response, as the {\"question\", \"evidence\", \"answer\"} record")
    prompt = row.prompt
    evidence = row.evidence if isinstance(row.evidence, str) else None
    if template:
        found = from_template(prompt, template, evidence)
        if found is None:
            raise RowError("the filled prompt does not fit the --prompt-template given; pass the template of the "
                           "request's user message, e.g. 'Question: {{?question}}\\n\\nContext: {{?grounding_response}}'")
        return question_text(found, "question"), "from the filled prompt, by the --prompt-template given"
    found = from_label(prompt, evidence)
    if found is None:
        raise RowError("the response holds no question field, and the filled prompt labels no line as the question "
                       "(\"Question: ...\"); pass --prompt-template with the template of the request's user message, "
                       "e.g. 'Question: {{?question}}\\n\\nContext: {{?grounding_response}}'")
    return question_text(found[0], "question"), f"recovered from the filled prompt, after {found[1]!r}"


def from_template(prompt: str, template: str, evidence: Optional[str] = None) -> Optional[str]:
    """The question in ``prompt`` filled from ``template`` (SAP's ``{{?name}}`` placeholders): the
    placeholder named like a question, or the one placeholder that is not the grounding result.

    >>> from_template("Q: Who pays?\\nDocs: a```b", "Q: {{?question}}\\nDocs: {{ ?grounding_response }}")
    'Who pays?'
    """
    names = _PLACEHOLDER.findall(template)
    if not names:
        return None
    pattern, seen = "", set()
    at = 0
    for match in _PLACEHOLDER.finditer(template):
        pattern += re.escape(template[at:match.start()])
        name = match.group(1)
        group = re.sub(r"\W", "_", name)
        if group in seen:
            pattern += f"(?P={group})"
        else:
            pattern += f"(?P<{group}>.*?)"
            seen.add(group)
        at = match.end()
    pattern += re.escape(template[at:])
    match = re.fullmatch(pattern, prompt, re.DOTALL)
    if match is None:
        return None
    values = {name: match.group(re.sub(r"\W", "_", name)) for name in names}
    named = [n for n in names if n.lower().replace("-", "_") in _QUESTION_NAMES]
    if named:
        return values[named[0]].strip()
    others = [n for n in dict.fromkeys(names) if evidence is None or values[n] != evidence]
    if len(others) == 1:
        return values[others[0]].strip()
    return None


def from_label(prompt: str, evidence: Optional[str] = None) -> Optional[Tuple[str, str]]:
    """``(question, label)`` from a filled prompt with a line labelled as the question
    (``Question: ...``); the text runs to a blank line, the next labelled line, the evidence or the end.

    >>> from_label("Question: Who pays?\\n\\nContext: KB-1 text", "KB-1 text")
    ('Who pays?', 'Question:')
    """
    text = prompt
    if evidence and evidence in text:
        at = text.rfind(evidence)
        text = text[:at] + "\n\n" + text[at + len(evidence):]
    for match in _QUESTION_LABEL.finditer(text):
        rest = text[match.end():]
        end = len(rest)
        blank = re.search(r"\n[ \t]*\n", rest)
        if blank:
            end = blank.start()
        other = _OTHER_LABEL.search(rest, 1)
        if other and other.start() < end and rest[:other.start()].endswith("\n"):
            end = other.start()
        question = rest[:end].strip()
        if question:
            return question, match.group(0).strip(" \t>*#_-")
    return None
