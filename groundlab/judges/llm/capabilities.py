"""What a model's request may contain, and the request shape the judge sends it.

Models differ in what they accept, and a request a model does not accept is refused outright
(HTTP 400): Claude Opus 5.5, Sonnet 5.5 and Fable 5.1 refuse a forced tool call; the models from
Opus 4.7 on refuse a temperature other than their default; Opus 5.5, Sonnet 5.5 and Fable 5.1
think whatever the request says. The table shipped with groundlab (``models.json`` here) records,
per model, as of its ``date``:

- ``forced_tool``: ``tool_choice`` ``any`` or a named tool is accepted;
- ``temperature``: a temperature other than the default is accepted;
- ``thinking``: ``off`` (off unless asked), ``on`` (on by default; ``{"type": "disabled"}``
  accepted) or ``always`` (cannot be disabled);
- ``structured_outputs``: ``output_config.format`` with a JSON schema is accepted;
- ``effort``: the level the judge sends when the model thinks, or ``false`` for a model that
  takes no effort parameter.

From that :func:`choose` picks the most reliable request the model accepts (:class:`Shape`):

1. a forced ``record_verdicts`` tool call (``tool``), at temperature 0 where the model takes it,
   with thinking disabled where it is on by default, when the model accepts forcing a tool with
   thinking off;
2. else a JSON answer constrained to the verdicts' schema (``json``: ``output_config.format``),
   thinking left adaptive at the table's ``effort``: constrained decoding makes the whole answer
   match the schema, while a tool the model is only asked to call (3) may be answered with text;
3. else the tool offered with ``tool_choice: auto`` and the system prompt telling the model to call
   it (``auto-tool``), for a model that has neither.

A model the table lacks gets the shape every current model accepts: ``json`` with no
temperature, no thinking setting and no effort (the ``unknown`` entry), and a note says so. A table
of one's own (``--model-table FILE``, or ``$GROUNDLAB_MODEL_TABLE``) adds models or replaces their
entries, as the price table does.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Union

from ...core.records import InputError
from .pricing import entry_for, read_table

MODEL_TABLE_VARIABLE = "GROUNDLAB_MODEL_TABLE"
BUILT_IN = Path(__file__).with_name("models.json")
THINKING = ("off", "on", "always")
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class Capabilities:
    """One model's entry of the model table (see the module docstring); ``table`` names the table
    it came from, ``known`` is false for the ``unknown`` entry."""

    forced_tool: bool
    temperature: bool
    thinking: str
    structured_outputs: bool
    effort: Optional[str]
    table: str = ""
    known: bool = True


@dataclass(frozen=True)
class Shape:
    """The request a judge sends: ``kind`` (``tool``, ``json`` or ``auto-tool``), whether it sends
    temperature 0, what it does with thinking (``off``: the model does not think; ``disabled``: it
    sends ``{"type": "disabled"}``; ``adaptive``: the model thinks as it decides; ``default``: a
    model the table lacks, sent no thinking setting), and the effort it sends (``None``: none)."""

    kind: str
    temperature: bool
    thinking: str
    effort: Optional[str] = None

    @property
    def thinks(self) -> bool:
        """The model may think: its replies need room for thinking tokens."""
        return self.thinking in ("adaptive", "default")

    @property
    def legacy(self) -> bool:
        """The shape every request had before shapes were told apart (a forced tool at temperature
        0): its cache key is the one it always had, so the replies cached then are found again."""
        return self == FORCED_TOOL

    def key(self) -> str:
        """What sets this shape apart, for the cache key."""
        return (f"{self.kind};temperature={'0' if self.temperature else 'default'};thinking={self.thinking};"
                f"effort={self.effort or 'default'}")

    def describe(self) -> str:
        """The shape in words, for the identity and the summary.

        >>> FORCED_TOOL.describe()
        'forced record_verdicts tool call, temperature 0'
        >>> Shape("json", False, "adaptive", "low").describe()
        'JSON output (output_config.format), adaptive thinking at effort low, default temperature'
        """
        head = {"tool": "forced record_verdicts tool call", "json": "JSON output (output_config.format)",
                "auto-tool": "record_verdicts tool offered (tool_choice auto)"}[self.kind]
        parts = [head]
        if self.thinking == "disabled":
            parts.append("thinking disabled")
        elif self.thinking == "adaptive":
            parts.append("adaptive thinking" + (f" at effort {self.effort}" if self.effort else ""))
        elif self.thinking == "default":
            parts.append("thinking and effort at the model's defaults")
        parts.append("temperature 0" if self.temperature else "default temperature")
        return ", ".join(parts)


#: The shape of every request before models differed in what they accept.
FORCED_TOOL = Shape("tool", True, "off")


def choose(cap: Capabilities) -> Shape:
    """The most reliable request ``cap`` accepts (see the module docstring).

    >>> choose(Capabilities(True, True, "off", True, "low")) == FORCED_TOOL
    True
    >>> choose(Capabilities(True, False, "on", True, "low"))
    Shape(kind='tool', temperature=False, thinking='disabled', effort=None)
    >>> choose(Capabilities(False, False, "always", True, "low"))
    Shape(kind='json', temperature=False, thinking='adaptive', effort='low')
    >>> choose(Capabilities(False, False, "off", False, False))
    Shape(kind='auto-tool', temperature=False, thinking='off', effort=None)
    """
    # A forced tool call and thinking do not go together: forcing needs thinking off.
    if cap.forced_tool and cap.thinking != "always":
        return Shape("tool", cap.temperature, "disabled" if cap.thinking == "on" else "off")
    # A model the table lacks is sent no thinking setting: it thinks or not as it does by default.
    thinking = "off" if cap.thinking == "off" else "adaptive" if cap.known else "default"
    effort = cap.effort if thinking != "off" else None
    if cap.structured_outputs:
        return Shape("json", cap.temperature, thinking, effort)
    return Shape("auto-tool", cap.temperature, thinking, effort)


@dataclass(frozen=True)
class ModelTable:
    models: Mapping[str, Capabilities]
    unknown: Capabilities

    def capabilities(self, model: str) -> Capabilities:
        """The entry of ``model`` (also under its name without a date), else the ``unknown`` one."""
        found = entry_for(self.models, model)
        return found if found is not None else self.unknown


def load(path: Union[str, os.PathLike, None] = None) -> ModelTable:
    """The built-in table, with ``path`` (or ``$GROUNDLAB_MODEL_TABLE``) laid over it."""
    built_in = json.loads(BUILT_IN.read_text(encoding="utf-8"))
    label = f"groundlab's model table of {built_in['date']}"
    models = _entries(built_in["models"], label, BUILT_IN)
    unknown = _entry(built_in["unknown"], label, f"the model table {BUILT_IN}, entry 'unknown'", known=False)
    path = str(path) if path is not None else os.environ.get(MODEL_TABLE_VARIABLE) or None
    if path:
        own, label = read_table(path, "model table", '{"date": ..., "models": {"MODEL": {"forced_tool": false, '
                                                     '"temperature": false, "thinking": "always", '
                                                     '"structured_outputs": true, "effort": "low"}}}')
        models.update(_entries(own["models"], label, path))
        if "unknown" in own:
            unknown = _entry(own["unknown"], label, f"the model table {path}, entry 'unknown'", known=False)
    return ModelTable(models, unknown)


def _entries(table: Mapping[str, Any], label: str, path: Any) -> Dict[str, Capabilities]:
    return {model: _entry(entry, label, f"the model table {path}, model {model!r}") for model, entry in table.items()}


def _entry(entry: Any, label: str, where: str, known: bool = True) -> Capabilities:
    fix = (f"{where}: give forced_tool, temperature and structured_outputs as true or false, thinking as "
           f"{', '.join(THINKING)}, and effort as {', '.join(EFFORTS)} or false")
    if not isinstance(entry, dict):
        raise InputError(f"{fix}.")
    flags = [entry.get(name) for name in ("forced_tool", "temperature", "structured_outputs")]
    effort = entry.get("effort", False)
    if (not all(isinstance(flag, bool) for flag in flags) or entry.get("thinking") not in THINKING
            or not (effort is False or effort in EFFORTS)):
        raise InputError(f"{fix}.")
    forced_tool, temperature, structured = flags
    return Capabilities(forced_tool, temperature, entry["thinking"], structured, effort or None, label, known)


__all__ = ["Capabilities", "FORCED_TOOL", "MODEL_TABLE_VARIABLE", "ModelTable", "Shape", "choose", "load"]
