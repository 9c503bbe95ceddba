"""The sentences that say the assistant cannot answer, and those that only close an answer: the
built-in abstention wordings and closings, read from ``groundlab/data/abstentions.toml`` with the
sentences each must catch and the claims it must not, the few strings one of which every wording
needs (so that a sentence without any is not checked against them), a closing sentence
(:func:`is_closing`) and a sentence that opens like a refusal (:func:`looks_like_refusal`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from .sentences import CJK_CHARS, LazyPattern, ScriptPattern

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


@dataclass(frozen=True)
class Hedges:
    """How a sentence holding a refusal and a claim is cut (``[hedges]`` of the data file): the
    words that turn to another clause, those that open a conceding one, the sentences that must give
    an abstention and their claims (``examples``: ``(sentence, claim, ...)``), and those that stay
    abstentions."""

    turns: Tuple[str, ...]
    concessions: Tuple[str, ...]
    examples: Tuple[Tuple[str, ...], ...]
    near_misses: Tuple[str, ...]
    #: Lower-case strings one of which every turn needs (a sentence without any has none).
    triggers: Tuple[str, ...] = ()


def _read_data() -> dict:
    from importlib import resources

    return tomllib.loads(resources.files("groundlab").joinpath("data/abstentions.toml").read_text("utf-8"))


def _read_abstentions() -> Tuple[Tuple[AbstentionPhrase, ...], Tuple[str, ...], Tuple[str, ...],
                                 Tuple[AbstentionPhrase, ...]]:
    data = _DATA

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


_DATA = _read_data()

#: The built-in abstention wordings, read from ``groundlab/data/abstentions.toml``; and the
#: closings of an answer that declines ("Please contact your manager.", "I hope this helps."),
#: no claim in an answer that abstains.
ABSTENTION_PHRASES, _TRIGGER_WORDS, _REFUSAL_OPENINGS, CLOSING_PHRASES = _read_abstentions()

#: A refusal, then a claim in the same sentence ("I can't find that, but refunds are paid in cash."):
#: where such a sentence is cut (:func:`hedge_cuts`).
HEDGES = Hedges(tuple(_DATA["hedges"]["turns"]), tuple(_DATA["hedges"]["concessions"]),
                tuple(tuple(e) for e in _DATA["hedges"]["examples"]), tuple(_DATA["hedges"]["near_misses"]),
                tuple(_DATA["hedges"]["turn_triggers"]))
del _DATA

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
_CLOSING = LazyPattern("(?:" + "|".join(f"(?:{p.pattern})" for p in CLOSING_PHRASES) + ")", re.IGNORECASE)
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


#: A turn to another clause, with the marks around it: ", but ", "; however, ", "，但是".
_TURN = re.compile(r"[\s,;:\u2013\u2014\uff0c\uff1b\uff1a-]*(?:" + "|".join(f"(?:{t})" for t in HEDGES.turns)
                   + r")[\s,:\uff0c\uff1a]*", re.IGNORECASE)
#: A sentence that opens by conceding: "Although ...", "Obwohl ...", "Bien que ...".
_CONCESSION = re.compile(r"^[\W_]*(?:" + "|".join(f"(?:{c})" for c in HEDGES.concessions) + r")(?:\b|(?<=\W))\s*",
                         re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,;\uff0c\uff1b]\s*")
_WORD = re.compile(r"\w")


def may_turn(sentence: str) -> bool:
    """Whether a sentence holds a word that turns to another clause ("but", "aber", ";" ...)."""
    lowered = sentence.lower()
    for trigger in HEDGES.triggers:
        if trigger in lowered:
            return _TURN.search(sentence) is not None
    return False


def hedge_cuts(sentence: str, spans: Sequence[Tuple[int, int]]) -> Tuple[Tuple[int, int], ...]:
    """Where a sentence holding a refusal (its abstention wordings at ``spans``) turns to another
    clause: ``(start, end)`` of each clause, the turning words left out, or ``()`` when it is one
    clause. A turn inside a wording ("I'm sorry, but I can't ...") cuts nothing; neither does one
    with no word on either side ("I'm not sure, but…"), nor one after a refusal's opening alone
    ("Sorry, but I can't help.").

    >>> s = "I can't find that in the notes, but refunds can be paid in cash."
    >>> [s[a:b] for a, b in hedge_cuts(s, [(0, 12)])]
    ["I can't find that in the notes", 'refunds can be paid in cash.']
    """
    if not spans:
        return ()
    spans = sorted(spans)
    starts = [a for a, _ in spans]
    reach = []  # the furthest end of the spans up to each one: a turn inside any of them cuts nothing
    furthest = -1
    for _, e in spans:
        furthest = max(furthest, e)
        reach.append(furthest)
    cuts: List[Tuple[int, int]] = []  # (end of a clause, start of the next)
    opening = _CONCESSION.match(sentence)
    start = 0
    conceded = None
    if opening is not None and opening.end() <= spans[0][0]:
        # "Although I can't find the date, refunds ...": the conceding clause ends at the first comma after it
        end = _CLAUSE_END.search(sentence, spans[0][1])
        if end is not None and _WORD.search(sentence, end.end()):
            start = opening.end()
            conceded = end.span()
            cuts.append(conceded)
    for turn in _TURN.finditer(sentence):
        a, b = turn.span()
        before = bisect_left(starts, b) - 1  # the last span that starts before the turn ends
        if before >= 0 and reach[before] > a:
            continue  # inside a refusal's wording
        if conceded is not None and a < conceded[1] and conceded[0] < b:
            continue  # the conceding clause's comma, cut already
        cuts.append((a, b))
    if not cuts:
        return ()
    cuts.sort()
    pieces: List[Tuple[int, int]] = []
    for end, next_start in cuts + [(len(sentence), len(sentence))]:
        if end > start and _WORD.search(sentence, start, end):
            pieces.append((start, end))
        start = max(start, next_start)
    # a part of one word ("..., but maybe.") says nothing of its own: it goes with the part before it
    pieces = _joined_words(sentence, pieces)
    # a part that is only a refusal's opening ("Sorry", "Leider") goes with the part after it
    first = 0
    while first + 1 < len(pieces) and _only_opening(sentence[pieces[first][0]:pieces[first][1]]):
        first += 1
    if first:
        pieces = [(pieces[0][0], pieces[first][1])] + pieces[first + 1:]
    return tuple(pieces) if len(pieces) > 1 else ()


def _joined_words(sentence: str, pieces: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    out: List[Tuple[int, int]] = []
    for a, b in pieces:
        if out and len(_WORDS.findall(sentence, a, b)) < 2 and not _CJK.search(sentence, a, b):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


_WORDS = re.compile(r"[^\W_]+(?:[-'\u2019][^\W_]+)*")
_CJK = ScriptPattern("[" + CJK_CHARS + "]")


def _only_opening(piece: str) -> bool:
    lowered = piece.lower().replace("\u2019", "'")
    found = _REFUSAL.search(lowered)
    return found is not None and not _WORD.search(lowered, found.end())
