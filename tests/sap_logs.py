"""SAP orchestration responses built from the truth of tests/data/exports/sap (its ``cases``),
with any of the choices SAP's formats allow: the API version, the grounding result's form (plain
or metadata, the metadata list nested or not), the metadata keys and their level prefix, how a
chunk's text starts, the prompt template and the citation style. The sample files hold one
choice each; these hold the others, so the import is checked on forms the sample never shows."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Optional

SAP = Path(__file__).resolve().parent / "data" / "exports" / "sap"
EXPECTED = json.loads((SAP / "expected.json").read_text(encoding="utf-8"))
#: The cases in the order every sample log lists them.
ORDER = [r["case_id"] for name, f in EXPECTED["files"].items() if name.startswith("raw_v1/") for r in f["records"]]
CASES = [EXPECTED["cases"][cid] for cid in ORDER]

SYSTEM = "Answer only from the context and cite the document id of every statement."
TEMPLATE = "Question: {{?question}}\n\nContext: {{ ?grounding_response }}"


def cite(answer: str, style: str) -> str:
    """The answer with its adjacent citations ``[KB-1][KB-2]`` written in another ``style``:
    ``comma`` ``[KB-1, KB-2]``, ``semicolon`` ``[KB-1; KB-2]``, ``spaced`` ``[KB-1] [KB-2]``."""
    if style == "adjacent":
        return answer

    def join(match: re.Match) -> str:
        ids = re.findall(r"\[([^\]]+)\]", match.group(0))
        if style == "spaced":
            return " ".join(f"[{i}]" for i in ids)
        return "[" + (", " if style == "comma" else "; ").join(ids) + "]"

    return re.sub(r"(?:\[[^\]]+\])+", join, answer)


def grounding(case: dict, form: str, *, key: str = "doc_id", level: str = "document", nested: bool = False,
              header: str = "{id} \u00b7 {title}\n", ensure_ascii: bool = False, values: str = "list") -> str:
    """The grounding result of ``case``: ``plain`` (chunk texts joined by three backticks, each
    starting with ``header``) or ``metadata`` (JSON; ``level`` ``both`` repeats the key on the
    chunk level and with the ``document_`` prefix, as SAP writes a key present on two levels)."""
    if form == "plain":
        return "```".join(header.format(id=p["id"], title=p["title"]) + p["text"] for p in case["retrieved"])
    items = []
    for p in case["retrieved"]:
        wrap = (lambda v: [v]) if values == "list" else (lambda v: v)
        if level == "document":
            meta = {key: wrap(p["id"]), "title": wrap(p["title"])}
        elif level == "prefixed":
            meta = {f"document_{key}": wrap(p["id"]), "document_title": wrap(p["title"])}
        else:  # both levels: the chunk's own value, and the document's under the prefix
            meta = {key: wrap(p["id"]), f"document_{key}": wrap(p["id"]), "chunk_index": wrap("0")}
        items.append({"content": p["text"], "metadata": meta})
    return json.dumps([items] if nested else items, ensure_ascii=ensure_ascii)


def response(case: dict, k: int, api: str, evidence: str, *, template: str = TEMPLATE, style: str = "adjacent",
             nulls: bool = True) -> dict:
    """A response body as the service sends it (``nulls=False``: as ``model_dump(exclude_none=True)``)."""
    prompt = template.replace("{{?question}}", case["question"]).replace("{{ ?grounding_response }}", evidence)
    answer = cite(case["answer"], style)
    result = {"id": f"chatcmpl-{k}", "object": "chat.completion", "created": 1778490000 + 60 * k, "model": "gpt-4o",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": answer, "refusal": None},
                           "finish_reason": "stop", "logprobs": None}],
              "usage": {"completion_tokens": 50, "prompt_tokens": 200, "total_tokens": 250}}
    modules = {"grounding": {"message": "grounding result", "data": {"grounding_query": "grounding call",
                                                                      "grounding_result": evidence}},
               "templating": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
               "llm": result, "input_masking": None, "output_filtering": None}
    body = ({"request_id": f"req-{k:02d}", "module_results": modules, "orchestration_result": result} if api == "v1"
            else {"request_id": f"req-{k:02d}", "intermediate_results": modules, "final_result": result,
                  "intermediate_failures": None})
    return body if nulls else _without_nulls(body)


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def write_jsonl(path: Path, records: List[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def responses(api: str, form: str, style: str = "adjacent", template: str = TEMPLATE, nulls: bool = True,
              **evidence_options) -> List[dict]:
    return [response(case, k, api, grounding(case, form, **evidence_options), template=template, style=style,
                     nulls=nulls) for k, case in enumerate(CASES)]


def truth_ids(case: dict) -> List[str]:
    return [p["id"] for p in case["retrieved"]]


def truth(name: Optional[str] = None) -> Dict[str, dict]:
    """expected.json's records of one sample file, in file order."""
    return EXPECTED["files"][name]["records"]
