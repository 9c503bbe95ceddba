"""The sentences that say the assistant cannot answer, and those that only close an answer: the
built-in abstention wordings and closings, read from ``groundlab/data/abstentions.toml`` with the
sentences each must catch and the claims it must not, the few strings one of which every wording
needs (so that a sentence without any is not checked against them), a closing sentence
(:func:`is_closing`) and a sentence that opens like a refusal (:func:`looks_like_refusal`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Tuple

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


@dataclass(frozen=True)
class AbstentionPhrase:
    """One built-in abstention wording: its pattern, sentences it must catch and claims it must not."""

    pattern: str
    examples: Tuple[str, ...]
    near_misses: Tuple[str, ...]


def _read_abstentions() -> Tuple[Tuple[AbstentionPhrase, ...], Tuple[str, ...], Tuple[str, ...],
                                 Tuple[AbstentionPhrase, ...]]:
    from importlib import resources

    data = tomllib.loads(resources.files("groundlab").joinpath("data/abstentions.toml").read_text("utf-8"))

    def read(entries, macros: Dict[str, str]) -> Tuple[AbstentionPhrase, ...]:
        phrases = []
        for entry in entries:
            pattern = entry["pattern"]
            for name, value in macros.items():
                pattern = pattern.replace("{" + name + "}", value)
            phrases.append(AbstentionPhrase(pattern, tuple(entry.get("examples", ())),
                                            tuple(entry.get("near_misses", ()))))
        return tuple(phrases)

    return (read(data["phrase"], data.get("macros", {})), tuple(data["triggers"]), tuple(data["refusal_openings"]),
            read(data.get("closing", ()), data.get("closing_macros", {})))


#: The built-in abstention wordings, read from ``groundlab/data/abstentions.toml``; and the
#: closings of an answer that declines ("Please contact your manager.", "I hope this helps."),
#: no claim in an answer that abstains.
ABSTENTION_PHRASES, _TRIGGER_WORDS, _REFUSAL_OPENINGS, CLOSING_PHRASES = _read_abstentions()

#: Ways an assistant says it cannot answer (regular expressions, matched case-insensitively).
DEFAULT_ABSTENTION_PHRASES: Tuple[str, ...] = tuple(p.pattern for p in ABSTENTION_PHRASES)

#: Lower-case strings one of which every built-in abstention phrase needs: a sentence without any
#: of them is not checked against the (slower) phrase patterns.
_TRIGGERS = tuple(_TRIGGER_WORDS)


def _has_trigger(lowered: str) -> bool:
    """Whether a lower-cased text holds one of the strings every built-in wording needs (a
    substring test each: about three times faster than one alternation of them all)."""
    for t in _TRIGGERS:
        if t in lowered:
            return True
    return False

#: A sentence opening like a refusal ("Sorry, ...", "Unfortunately ..."), matched on lower case.
_REFUSAL = re.compile(r"^[\W_]*(?:" + "|".join(_REFUSAL_OPENINGS) + ")")


#: A whole sentence that only closes an answer: whom to ask instead, or a courtesy.
_CLOSING = re.compile("(?:" + "|".join(f"(?:{p.pattern})" for p in CLOSING_PHRASES) + ")", re.IGNORECASE)
_CLOSING_EDGES = " \t\n.!?\u2026\"'\u201c\u201d\u00a1\u00bf"


def is_closing(sentence: str) -> bool:
    """True when the whole sentence only points the reader elsewhere or is a courtesy ("Please
    contact your manager.", "I hope this helps!", "Bitte wenden Sie sich an Ihren Vorgesetzten."):
    in an answer that declines to answer, no claim (see docs/claims.md).

    >>> is_closing("Please contact your manager."), is_closing("Please contact your manager within 3 days.")
    (True, False)
    """
    text = " ".join(sentence.replace("\u2019", "'").split()).strip(_CLOSING_EDGES)
    return bool(text) and _CLOSING.fullmatch(text) is not None


def looks_like_refusal(sentence: str) -> bool:
    """True when a sentence opens like a refusal ("Sorry", "Unfortunately", "I'm afraid" ...).

    ``groundlab check`` lists claims that do, since an unrecognised refusal counted as a claim
    makes every rate wrong.

    >>> looks_like_refusal("Unfortunately, the refund was rejected.")
    True
    >>> looks_like_refusal("The refund was rejected.")
    False
    """
    return _REFUSAL.search(sentence.lower().replace("\u2019", "'")) is not None
