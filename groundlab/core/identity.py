"""Which judge gave the figures: the identity every output records.

A rate means little without the judge behind it: a new prompt, another model, other weights or
another abstention wording can move it as much as a change to the assistant can. The identity
names all of it, so two runs can be told apart (or shown alike) from their outputs alone:

- ``name`` and ``version`` of the judge, and ``groundlab``'s version;
- a model judge's ``model``; for the ``llm`` judge the ``provider`` its requests went to when it is
  not Anthropic's API (``sap-ai-core``, with the hub model's ``model_version``), its ``prompt_version``, a hash of the prompt
  and tool definition (or answer schema) it sends (``prompt_sha256``, which moves even when a
  prompt is edited without a new version) and the shape of its requests (``request_shape``: a
  forced tool call or a JSON answer, temperature, thinking and effort, which differ by model);
  for a local model (``nli``) the folder it was loaded from
  (``model_path``) and a hash of its weight files (``weights_sha256``, ``weights_files``);
- the settings that change verdicts (``settings``: the rules judges' coverage threshold; the nli
  judge's threshold and window overlap);
- ``splitting``: how answers became claims: the citation pattern, and the abstention phrases as a
  hash of them all plus the phrases added to the built-in ones (``extra_abstention_phrases``).

A judge of one's own may add to this with an ``identity()`` method returning a dict.

>>> from groundlab import ClaimSplitter, get_judge
>>> ident = judge_identity(get_judge("rules"), ClaimSplitter(abstention_phrases=None))
>>> ident["name"], ident["version"], ident["settings"], ident["splitting"]["extra_abstention_phrases"]
('rules', '2', {'threshold': 0.75}, [])
"""

from __future__ import annotations

import html
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .formatting import code_span, markdown_text
from .io import sha256_file, sha256_text

#: Files that hold a local model's weights.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".onnx", ".gguf")

# (real path, size, mtime) -> sha256: a model's weights are hashed once per process.
_DIGESTS: Dict[Tuple[str, int, int], str] = {}


def judge_identity(judge: Any, splitter: Any = None) -> Dict[str, Any]:
    """Everything that decides a judge's verdicts, as a JSON-ready dict (see the module docstring).

    ``judge`` is a judge object (what :func:`groundlab.get_judge` returns); ``splitter`` the
    :class:`~groundlab.ClaimSplitter` the answers were split with (``None``: the default one).
    """
    from . import __version__

    out: Dict[str, Any] = {"name": str(judge.name), "version": str(getattr(judge, "version", "")),
                           "groundlab": __version__}
    module = sys.modules.get(type(judge).__module__)
    model = getattr(judge, "model", None)
    if isinstance(model, str):
        out["model"] = model
    prompt_version = getattr(judge, "prompt_version", None) or getattr(module, "PROMPT_VERSION", None)
    if prompt_version is not None:
        out["prompt_version"] = str(prompt_version)
        own_parts = getattr(judge, "prompt_parts", None)
        prompt = own_parts() if callable(own_parts) else {"system": getattr(module, "SYSTEM_PROMPT", None),
                                                          "tool": getattr(module, "TOOL", None)}
        if any(v is not None for v in prompt.values()):
            out["prompt_sha256"] = sha256_text(json.dumps(prompt, sort_keys=True, default=str))
    shape = getattr(judge, "request_shape", None)
    if isinstance(shape, str):
        out["request_shape"] = shape
    if type(judge).__module__ == "groundlab.judges.nli" and isinstance(model, str):
        out.update(local_model_identity(model))
    settings = {name: getattr(judge, name) for name in ("threshold", "overlap")
                if isinstance(getattr(judge, name, None), (int, float))}
    if settings:
        out["settings"] = settings
    own = getattr(judge, "identity", None)
    if callable(own):
        out.update(own())
    out["splitting"] = splitting_identity(splitter)
    return out


def splitting_identity(splitter: Any = None) -> Dict[str, Any]:
    """How answers were split into claims: the citation pattern, and the abstention phrases (a hash
    of all of them, how many there are, and the ones added to the built-in list)."""
    from .claims import DEFAULT_ABSTENTION_PHRASES, DEFAULT_CITATION_PATTERNS, ClaimSplitter

    splitter = splitter if splitter is not None else ClaimSplitter()
    patterns = tuple(getattr(splitter, "citation_patterns", DEFAULT_CITATION_PATTERNS))
    own = [p for p in patterns if p not in DEFAULT_CITATION_PATTERNS]
    phrases = _abstention_phrases(splitter)
    extra = [p for p in phrases if p not in DEFAULT_ABSTENTION_PHRASES]
    return {
        # the citation styles of one's own ("" for none), and whether the built-in ones were read too
        "citation_pattern": " | ".join(own),
        "default_citation_pattern": not own and patterns == DEFAULT_CITATION_PATTERNS,
        "default_citations": all(p in patterns for p in DEFAULT_CITATION_PATTERNS),
        "abstention_phrases": len(phrases),
        "abstention_phrases_sha256": sha256_text(json.dumps(sorted(set(phrases)))),
        "extra_abstention_phrases": extra,
        "default_abstention_phrases": all(p in phrases for p in DEFAULT_ABSTENTION_PHRASES),
    }


def _abstention_phrases(splitter: Any) -> List[str]:
    """The splitter's abstention phrases: its ``abstention_phrases`` when it keeps them, else read
    back from the two patterns it compiles them into (built-in ones, then extra ones)."""
    kept = getattr(splitter, "abstention_phrases", None)
    if kept is not None:
        return [str(p) for p in kept]
    phrases: List[str] = []
    for name in ("_builtin_re", "_extra_re"):
        compiled = getattr(splitter, name, None)
        if compiled is not None:
            phrases.extend(alternatives(compiled.pattern))
    return phrases


def alternatives(pattern: str) -> List[str]:
    """The phrases of an alternation built as ``(?:p1)|(?:p2)|...``; the whole pattern as one phrase
    when it is not of that form.

    >>> alternatives(r"(?:I can't find)|(?:[|)]+ x\\|y)")
    ["I can't find", '[|)]+ x\\\\|y']
    """
    parts: List[str] = []
    depth, start, k, in_class = 0, 0, 0, False
    while k < len(pattern):
        ch = pattern[k]
        if ch == "\\":
            k += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[k + 1:k + 2] == "^":
                k += 1
            if pattern[k + 1:k + 2] == "]":  # a "]" first in a class is a character
                k += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:k])
            start = k + 1
        k += 1
    parts.append(pattern[start:])
    if all(p.startswith("(?:") and p.endswith(")") for p in parts) and \
            "|".join(parts) == pattern:
        return [p[3:-1] for p in parts]
    return [pattern]


def local_model_identity(model: str) -> Dict[str, Any]:
    """Where a local model was loaded from and a sha256 of its weight files (each file's digest,
    then one digest over the file names and theirs). ``model`` is a folder or a name in the local
    Hugging Face cache; a model that cannot be found gives just ``model_path: None``."""
    folder = _model_folder(model)
    if folder is None:
        return {"model_path": None}
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES))
    digests = [(p.name, file_sha256(p)) for p in files]
    combined = sha256_text("".join(f"{name} {digest}\n" for name, digest in digests)) if digests else None
    return {"model_path": str(folder), "weights_sha256": combined, "weights_files": [name for name, _ in digests]}


def _model_folder(model: str) -> Optional[Path]:
    if os.path.isdir(model):
        return Path(model).resolve()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(model, "config.json")
    except Exception:  # a name the hub client refuses (not a repo id) is simply not in the cache
        return None
    return Path(found).parent if isinstance(found, str) else None


def file_sha256(path: Path) -> str:
    """The sha256 of a file, computed once per process for each version of it (size, mtime)."""
    real = os.path.realpath(path)
    stat = os.stat(real)
    key = (real, stat.st_size, stat.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = _DIGESTS[key] = sha256_file(real)
    return digest


# ---------------------------------------------------------------- one line for reports


def identity_parts(identity: Dict[str, Any]) -> List[Tuple[str, Optional[str]]]:
    """The identity as (words, value) pieces; the value is text from outside groundlab (a model
    name, a path, a pattern) that a renderer must quote, or ``None``."""
    parts: List[Tuple[str, Optional[str]]] = [(f"judge {identity['name']} {identity['version']}", None)]
    if identity.get("model") is not None:
        parts.append(("model", identity["model"]))
    if identity.get("provider") is not None:
        parts.append(("provider", identity["provider"]))
    if identity.get("prompt_version") is not None:
        digest = identity.get("prompt_sha256")
        parts.append((f"prompt {identity['prompt_version']}" + (f" (sha256 {digest[:12]})" if digest else ""), None))
    if identity.get("request_shape") is not None:
        parts.append((f"requests: {identity['request_shape']}", None))
    if "weights_sha256" in identity or "model_path" in identity:
        if identity.get("model_path") is None:
            parts.append(("weights not found on this machine", None))
        elif identity.get("weights_sha256"):
            parts.append((f"weights sha256 {identity['weights_sha256'][:12]}", None))
    for name, value in (identity.get("settings") or {}).items():
        parts.append((f"{name} {value:g}", None))
    parts.append((f"groundlab {identity.get('groundlab', '?')}", None))
    split = identity.get("splitting") or {}
    if split:
        if not split.get("default_citation_pattern", True):
            parts.append(("citations" if split.get("default_citations", True) else "citations, not the built-in styles",
                          split.get("citation_pattern") or "none"))
        phrases = (f"{split.get('abstention_phrases', 0)} abstention phrases "
                   f"(sha256 {str(split.get('abstention_phrases_sha256', ''))[:12]})")
        if not split.get("default_abstention_phrases", True):
            phrases += ", not the built-in set"
        parts.append((phrases, None))
        for phrase in split.get("extra_abstention_phrases") or []:
            parts.append(("extra phrase", phrase))
    return parts


def identity_line(identity: Optional[Dict[str, Any]], html_output: bool = False) -> str:
    """The identity as one short line for a report: Markdown (outside text in code spans) or, with
    ``html_output``, HTML-escaped text with outside text in ``<code>``.

    >>> identity_line({"name": "llm", "version": "1", "model": "claude-x", "prompt_version": "2",
    ...                "groundlab": "0.1.0"})
    'judge llm 1 · model `claude-x` · prompt 2 · groundlab 0.1.0'
    >>> identity_line({"name": "x<y", "version": "1", "model": "a<b>", "groundlab": "0.1.0"}, html_output=True)
    'judge x&lt;y 1 · model <code>a&lt;b&gt;</code> · groundlab 0.1.0'
    """
    if not identity:
        return "judge unknown"
    pieces = []
    for words, value in identity_parts(identity):
        if html_output:
            text = html.escape(words, quote=False)
            if value is not None:
                text += f" <code>{html.escape(str(value), quote=False)}</code>"
        else:
            text = markdown_text(words) + (f" {code_span(str(value))}" if value is not None else "")
        pieces.append(text)
    return " \u00b7 ".join(pieces)


def identity_text(identity: Optional[Dict[str, Any]]) -> str:
    """The identity as one plain line for a terminal (outside text quoted)."""
    if not identity:
        return "judge unknown"
    return " \u00b7 ".join(words + (f" {value!r}" if value is not None else "")
                           for words, value in identity_parts(identity))


#: The Markdown code span of outside text (:func:`groundlab.formatting.code_span`), under its older name.
markdown_code = code_span


__all__ = ["alternatives", "file_sha256", "identity_line", "identity_parts", "identity_text", "judge_identity",
           "local_model_identity", "markdown_code", "splitting_identity"]
