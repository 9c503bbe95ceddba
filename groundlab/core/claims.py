"""Split answers into claims, pull out their citations, and recognise abstentions.

An answer is split as a reader splits it (see docs/claims.md):

1. **Lines.** Invisible marks (zero-width spaces, direction marks, soft hyphens) are set aside and
   control characters read as spaces. Each line is a unit of its own, so a list of facts written
   one a line gives one claim a line; a list marker (``-``, ``*``, ``1.``, ``2)`` ...) is not part of
   the claim, a Markdown heading (``## ...``) or a line ending in ``:`` is no claim, and a line that
   starts in lower case continues an unfinished line before it (a hard-wrapped paragraph).
2. **Sentences.** Each unit is split into sentences by `sentencex
   <https://pypi.org/project/sentencex/>`_, which knows abbreviations and initials (Dr., e.g.,
   U.S., a.m., z. B.), decimals and versions (3.5, v1.2.3), quotes after the final stop and CJK
   full-width stops. groundlab then joins a sentence cut after a short abbreviation when the next
   one starts in lower case (p. ex., p. ej.), splits after a stop inside brackets
   (``(see D7.) The``), and gives citations written after the stop (``blocked. [D7] The``,
   ``blocked.[1] The``) to the sentence before them.
3. **Claims.** A sentence that says the assistant cannot answer is an *abstention*, not a claim
   (the wordings are in ``groundlab/data/abstentions.toml``; a sentence that cites a passage always
   asserts something). Citations such as ``[D07]`` (or ``[D07, D06]``) are taken out of every
   other sentence; what remains is the claim text, and :attr:`Claim.span` says where the sentence
   sits in the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Pattern, Sequence, Tuple, Union

from .premise import LEADING_ANSWER, bare_answer, fallback, premise
from .records import Claim, GroundlabError

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from sentencex import segment as _sentencex_segment

#: Letters of the scripts written without spaces between words (Chinese, Japanese, Korean), as a
#: character-class body: ``"[" + CJK_CHARS + "]"``.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"


def character_pairs(run: str) -> List[str]:
    """A run of CJK characters as the judges compare it: its overlapping pairs of characters
    (one character alone stays itself), since there are no spaces to find its words by.

    >>> character_pairs("审批通常")
    ['审批', '批通', '通常']
    """
    return [run[k:k + 2] for k in range(max(1, len(run) - 1))]


#: ``[D07]`` or ``[D07, D06]``: one group holding one id or several separated by , or ;.
DEFAULT_CITATION_PATTERN = r"\[\s*([A-Za-z0-9][\w.:#/-]*(?:\s*[,;]\s*[A-Za-z0-9][\w.:#/-]*)*)\s*\]"

_ID = r"[A-Za-z0-9][\w.:#/-]*"
# An id inside round brackets needs a digit ("(see KB-5)"), so that "(see above)" stays words.
_NUMBERED_ID = r"[A-Za-z_]*[-_.:#/]?\d[\w.:#/-]*"
_AND = r"(?:\s*[,;&]\s*|\s+(?:and|und|et|y)\s+)"

#: The citation styles read by default, each with one group that captures the cited id(s): ``[D07]``
#: and ``[D07, D06]``; Markdown footnotes ``[^1]``; ``【1】`` (and ``【1†source】``); ``(Source: KB-3)``,
#: ``(Sources: KB-3, KB-4)``, ``(see KB-5)``, ``(cf. KB-5)``, ``(ref. KB-5)``; ``(Passage 2)``,
#: ``[Document 3]``, whose number is the passage's position when the passages carry other ids.
DEFAULT_CITATION_PATTERNS: Tuple[str, ...] = (
    DEFAULT_CITATION_PATTERN,
    r"\[\^\s*(" + _ID + r")\s*\](?!:)",
    "\u3010\\s*(" + _ID + r"(?:\s*[,;]\s*" + _ID + r")*)(?:\s*\u2020[^\u3011]{0,40})?\s*\u3011",
    r"\(\s*(?i:sources?|refs?\.?|references?|see(?:\s+also)?|cf\.?|quellen?|fuentes?|voir)\s*:?\s*(" + _NUMBERED_ID
    + r"(?:" + _AND + _NUMBERED_ID + r")*)\s*\)",
    r"[(\[]\s*(?i:passages?|documents?|docs?|sources?|snippets?|excerpts?|chunks?)\s+#?\s*(\d{1,3}(?:" + _AND
    + r"\d{1,3})*)\s*[)\]]",
)

#: The language whose abbreviations the sentence segmenter knows best (any sentencex code).
DEFAULT_LANGUAGE = "en"


# ---------------------------------------------------------------- abstention wordings (data)


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


# ---------------------------------------------------------------- sentences

#: Marks a reader does not see: zero-width spaces and joiners, direction marks and embeddings,
#: word joiners, the byte-order mark, soft hyphens.
INVISIBLE = ("\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
             "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff")
_INVISIBLE_SET = frozenset(INVISIBLE)
# Anything that needs the slow path: invisible marks, control characters, line breaks of any kind.
_ODD = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029" + INVISIBLE + "]")
# Control characters read as a space, other line breaks as "\n" (one character for one, so
# offsets into the answer stay valid).
_CONTROLS = {c: " " for c in list(range(0x00, 0x20)) + [0x7f] if c not in (0x0A, 0x0D)}
_CONTROLS.update({0x0B: "\n", 0x0C: "\n", 0x0D: "\n", 0x85: "\n", 0x2028: "\n", 0x2029: "\n"})

#: A list marker or heading marker at the start of a line.
_MARKER = re.compile(r"[ \t]*(?:(?P<heading>#{1,6})[ \t]+|>[ \t]*|(?:[-*+\u2022\u2023\u25e6\u2043\u2219\u00b7"
                     r"\u2013\u2014]|\d{1,3}[.)]|[a-z]\)|\((?:\d{1,3}|[a-z])\))[ \t]+)")
#: A stop inside closing brackets or quotes followed by a new sentence: "(see D7.) The buyer",
#: "he said: 'you should not say no.' The bookies".
_BRACKETED_STOP = re.compile(r"[.!?]+(?:[)\]}]+\s+(?=[\"'\u201c\u2018(\[]?[A-Z])"
                             r"|(?P<quote>[\"'\u2019\u201d\u00bb]+)\s+(?=[\"'\u201c\u2018\u00ab(]?[A-Z]))")
#: A word in lower case, a stop and an acronym: "generally no. USB storage", which the segmenter
#: reads as one sentence.
_STOP_BEFORE_CAPITALS = re.compile(r"\b([a-z]{2,})\.\s+(?P<next>(?=[A-Z]{2,}\b)[A-Z])")
#: The word before a final ".": "ex" in "p. ex.".
_LAST_WORD = re.compile(r"([^\W\d_]+)\.\s*$")
#: Abbreviations that may stand before a number or a word in lower case without ending a sentence.
ABBREVIATIONS = frozenset("""
approx appr ca cf vs no nr nos art fig figs vol p pp para sec ch ex ej eg ie etc bzw usw vgl ggf inkl
zzgl evtl max min tel abs sog ua resp env aprox pág núm
""".split())


class Sentence(NamedTuple):
    """One sentence of a text: where it sits (``start``/``end`` offsets into the text as given),
    what it says (invisible marks left out) and whether it is a heading (no claim)."""

    start: int
    end: int
    text: str
    heading: bool = False


def _sentencex(language: str, text: str) -> List[str]:
    try:
        parts = _sentencex_segment(language, text)
    except BaseException as exc:  # a panic in the Rust extension is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        parts = []
    if sum(map(len, parts)) != len(text):  # never trust a segmenter that lost or added text
        parts = _FALLBACK_BREAK.split(text)
    return parts


#: Where a sentence ends if the segmenter fails: after a stop, before white space.
_FALLBACK_BREAK = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])(?=\s)")


def _line_blocks(text: str) -> List[Tuple[int, int, bool]]:
    """The units of a text with line breaks: (start, end, heading) with list markers left out and
    hard-wrapped lines joined."""
    blocks: List[List] = []
    pos = 0
    open_line = False  # the last unit may go on on the next line
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        marker = _MARKER.match(line)
        body_start = start + (marker.end() if marker else len(line) - len(line.lstrip()))
        body_end = start + len(line.rstrip())
        if body_end <= body_start:
            open_line = False  # a blank line ends a paragraph
            continue
        first = text[body_start]
        if marker is None and open_line and (first.islower() or first in "([\"'\u201c"):
            blocks[-1][1] = body_end
        else:
            blocks.append([body_start, body_end, bool(marker and marker.group("heading"))])
        last = text[body_end - 1]
        open_line = not blocks[-1][2] and (last.isalnum() or last in ",;-\u2013(")
    return [(b[0], b[1], b[2]) for b in blocks]


def _joins(before: str, after: str) -> bool:
    """Whether a cut between two sentences fell after an abbreviation the segmenter did not know:
    a short word and a full stop before a word in lower case ("p. ex. par"), or a known
    abbreviation before a number ("approx. 50")."""
    if not before.rstrip().endswith("."):
        return False
    word = _LAST_WORD.search(before)
    if word is None:
        return False
    word = word.group(1)
    if after[0].isdigit():
        return word.lower() in ABBREVIATIONS
    return len(word) <= 3 or word.lower() in ABBREVIATIONS


def _bracket_cuts(text: str, start: int, end: int) -> List[int]:
    """Offsets after a stop inside closing brackets where a new sentence starts."""
    cuts = []
    piece = text[start:end]
    for stop in _BRACKETED_STOP.finditer(piece):
        word = _LAST_WORD.search(piece, 0, stop.start() + 1)
        # a quotation ends its sentence ("... say no.' The"), whatever its last word
        if stop.group("quote") or word is None or word.group(1).lower() not in ABBREVIATIONS:
            cuts.append(start + stop.end())
    return cuts


def _clean(text: str) -> Tuple[str, Optional[List[int]]]:
    """The text with control characters as spaces or line breaks and invisible marks left out, and
    (when marks were left out) the offset in ``text`` of each character kept."""
    if "\r" in text:
        text = text.replace("\r\n", " \n")
    text = text.translate(_CONTROLS)
    if not any(ch in _INVISIBLE_SET for ch in text):
        return text, None
    keep = [i for i, ch in enumerate(text) if ch not in _INVISIBLE_SET]
    return "".join([text[i] for i in keep]), keep


def sentences(text: str, citation_re: Optional[Pattern[str]] = None,
              language: str = DEFAULT_LANGUAGE) -> List[Sentence]:
    """The sentences of ``text`` as a reader sees them (see the module docstring).

    ``citation_re`` (one group capturing the cited ids) says how citations are written: those
    written after a sentence's stop go with that sentence. Never raises on odd text: text
    without a sentence gives an empty list.

    >>> [(s.start, s.end, s.text) for s in sentences("Dr. Smith approved it. [D1] It was paid.")]
    [(0, 27, 'Dr. Smith approved it. [D1]'), (28, 40, 'It was paid.')]
    """
    return [Sentence(*found) for found in _sentences(text, citation_re, language)]


def _sentences(text: str, citation_re: Optional[Pattern[str]],
               language: str) -> List[Tuple[int, int, str, bool]]:
    """:func:`sentences` as plain tuples (start, end, text, heading): the claim splitter's hot path."""
    if citation_re is None:
        citation_re = _DEFAULT_CITATION_RE
    # The built-in styles open with a bracket: a piece that starts otherwise starts no citation.
    bracketed = citation_re.pattern in _DEFAULT_PATTERN_TEXTS
    if text.isprintable() or _ODD.search(text) is None:
        clean, keep = text, None
        blocks: Sequence[Tuple[int, int, bool]] = ((0, len(text), False),)
    else:
        clean, keep = _clean(text)
        blocks = _line_blocks(clean) if "\n" in clean else ((0, len(clean), False),)
    found: List[List] = []  # [start, end, heading]
    for b_start, b_end, md_heading in blocks:
        unit = clean if b_end - b_start == len(clean) else clean[b_start:b_end]
        parts = _sentencex(language, unit)
        pos = b_start
        first = True
        for part in parts:
            s = pos
            pos += len(part)
            head = part.lstrip()
            if not head:
                continue
            if first:
                first = False
                # A unit made of citations only ("[D7]" on a line of its own) goes with the sentence before.
                if found and (not bracketed or head[0] in _OPENERS):
                    rest = _skip_citations(clean, s, pos, citation_re)
                    if rest > s and not clean[rest:pos].strip(" \t.,;"):
                        found[-1][1] = pos
                        continue
                found.append([s, pos, md_heading])
                continue
            c = head[0]
            if c.isalnum() and (
                    # ".NET", ".js": a stop after a space and before a letter starts a name, not a sentence
                    (s >= 2 and clean[s - 1] == "." and clean[s - 2] in " \t(\"'")
                    or (not c.isupper() and _joins(clean[found[-1][0]:s], head))):
                found[-1][1] = pos
                continue
            if not bracketed or c in _OPENERS:
                # Citations written after the stop belong to the sentence before them.
                rest = _skip_citations(clean, s, pos, citation_re)
                if rest > s:
                    found[-1][1] = rest
                    s = rest
            found.append([s, pos, md_heading])
        if not first and not md_heading:
            # "**Payment terms:**": Markdown emphasis around the heading leaves its colon inside
            last = clean[found[-1][0]:found[-1][1]].rstrip().rstrip("*_").rstrip()
            if last[-1:] in (":", "\uff1a"):
                found[-1][2] = True  # "Steps:" introduces what follows; it asserts nothing
    if (")" in clean or "}" in clean or ".]" in clean or ".\u2019" in clean or ".\u201d" in clean or ".'" in clean
            or '."' in clean or "\u00bb" in clean) and _BRACKETED_STOP.search(clean):
        split: List[List] = []
        for s, e, heading in found:
            for cut in _bracket_cuts(clean, s, e):
                split.append([s, cut, heading])
                s = cut
            split.append([s, e, heading])
        found = split
    if ". " in clean and _STOP_BEFORE_CAPITALS.search(clean):
        split = []
        for s, e, heading in found:
            for stop in _STOP_BEFORE_CAPITALS.finditer(clean, s, e):
                word = stop.group(1)
                if word in ("no", "yes") or word not in ABBREVIATIONS:
                    split.append([s, stop.start("next"), heading])
                    s = stop.start("next")
            split.append([s, e, heading])
        found = split
    out = []
    for s, e, heading in found:
        piece = clean[s:e]
        stripped = piece.strip()
        if not stripped:
            continue
        if len(stripped) != len(piece):
            s += len(piece) - len(piece.lstrip())
            e = s + len(stripped)
            piece = stripped
        if keep is not None:
            s, e = keep[s], keep[e - 1] + 1
        out.append((s, e, piece, heading))
    return out


def _skip_citations(text: str, start: int, end: int, citation_re: Pattern[str]) -> int:
    """Where text[start:end] goes on after the citations (and white space) it starts with."""
    pos = start
    while True:
        at = pos
        while at < end and text[at].isspace():
            at += 1
        match = citation_re.match(text, at, end)
        if match is None or match.end() == at:
            return pos
        pos = match.end()


def citation_regex(patterns: Sequence[str]) -> Pattern[str]:
    """One regular expression for several citation patterns (each with one group): the group
    that matched holds the id(s), ``match.group(match.lastindex)``. None at all gives a pattern
    that never matches."""
    if not patterns:
        return re.compile(r"(?!)()")
    if len(patterns) == 1:
        return re.compile(patterns[0])
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_DEFAULT_CITATION_RE = citation_regex(DEFAULT_CITATION_PATTERNS)
#: The patterns whose citations always open with one of :data:`_OPENERS`.
_DEFAULT_PATTERN_TEXTS = frozenset((DEFAULT_CITATION_PATTERN, _DEFAULT_CITATION_RE.pattern))
_OPENERS = "[\u3010("


@lru_cache(maxsize=16384)
def _passage_sentences(text: str) -> Tuple[str, ...]:
    return tuple(found[2] for found in _sentences(text, None, DEFAULT_LANGUAGE))


def split_sentences(text: str) -> Sequence[str]:
    """The sentences of a passage or answer, as :func:`sentences` finds them (headings included).

    >>> split_sentences("Use a tolerance, e.g. 5 percent. Then release.")
    ('Use a tolerance, e.g. 5 percent.', 'Then release.')
    """
    return _passage_sentences(text)


# ---------------------------------------------------------------- claims


class _Bare(NamedTuple):
    """A bare yes or no of an answer: where it is, what it cites, which it is, its explain row."""

    start: int
    end: int
    cites: Tuple[str, ...]
    yes: bool
    role: int


#: A bare answer starts with one of these letters (yes, no, ja, nein, oui, non, sí; so, then, in
#: short, also, kurz, donc, bref, entonces ... before them), once the marks around it are left
#: out: every other sentence skips the check.
_ANSWER_INITIALS = frozenset("YyNnJjOoSsTtAaIiHhKkDdBbEe")
_YES_NO_INITIALS = frozenset("YyNnJjOoSs")
_ANSWER_EDGES = " \t*_\"'\u201c\u00a1\u00bf"


#: The roles of an answer's sentences (:meth:`ClaimSplitter.explain`).
_CLAIM, _ABSTENTION, _YES_NO, _NO_CLAIM, _SOURCES_ROLE = "claim", "abstention", "yes/no", "no claim", "sources"
#: How many sentences a splitter keeps read (:meth:`ClaimSplitter._read`).
_SENTENCE_MEMO = 32768


@dataclass(frozen=True)
class Split:
    """An answer taken apart: its claims, and whether it holds an abstention sentence.
    ``by_position``: the citations read as a passage's position (``("1", "KB-3")``), see
    :func:`positional_aliases`."""

    claims: Tuple[Claim, ...]
    abstains: bool
    by_position: Tuple[Tuple[str, str], ...] = ()


_POSITION = re.compile(r"(P?)([1-9][0-9]{0,5})")


def positional_aliases(ids: Sequence[str], cites: Iterable[str]) -> Dict[str, str]:
    """Citations by position (``[2]``, ``[P2]``, ``(Passage 2)``) of passages that carry ids of their
    own (``KB-3``), each tied to the passage at that position: ``{"2": "KB-4"}``. A citation that is
    a retrieved id stays as it is, and a position is never read into a citation when the passages'
    own ids look like positions too (``7``, ``P7``), since it could be either.

    >>> positional_aliases(["KB-3", "KB-4"], ["2", "KB-3", "5"])
    {'2': 'KB-4'}
    >>> positional_aliases(["3", "4"], ["1"])
    {}
    """
    known = set(ids)
    numbered = p_named = None
    aliases: Dict[str, str] = {}
    for cite in cites:
        if cite in known or cite in aliases:
            continue
        match = _POSITION.fullmatch(cite)
        if match is None or not 1 <= int(match.group(2)) <= len(ids):
            continue
        if numbered is None:
            numbered = any(i.isdigit() for i in ids)
            p_named = any(_POSITION.fullmatch(i) is not None for i in ids if i[:1] == "P")
        if not (p_named if match.group(1) else numbered):
            aliases[cite] = ids[int(match.group(2)) - 1]
    return aliases


_INNER_SPACE = re.compile(r" ([,;:])")
_HAS_WORD = re.compile(r"[^\W_]")
_ID_SEP = re.compile(r"\s*[,;&]\s*|\s+(?:and|und|et|y)\s+")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,3}|[a-zA-Z])[.)]")
_FINAL_SPACE = re.compile(r"\s+([.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*)$")


class ClaimSplitter:
    """Split answers into claims with configurable citation patterns and abstention phrases.

    ``citation_pattern``: a citation style of your own (a regular expression, or several), one
    group capturing the id(s); it is read beside the built-in styles
    (:data:`DEFAULT_CITATION_PATTERNS`: ``[D07]``, ``[^1]``, ``【1】``, ``(Source: KB-3)``,
    ``(see KB-5)``, ``(Passage 2)``), or instead of them with ``default_citations=False``.
    ``abstention_phrases``: the wordings that make a sentence an abstention (default: the built-in
    ones); ``extra_abstention_phrases`` are added to those. ``language``: the sentencex language
    code whose abbreviations to know. All plain values, so a command or notebook option maps onto
    them directly; a pattern that is not a valid regular expression raises
    :class:`~groundlab.records.GroundlabError` naming it.

    A trailing "Sources: [1][2]" line (or a list of sources under such a heading) holds no claim:
    its citations are the answer's, and go to every claim that cites nothing itself.

    >>> s = ClaimSplitter()
    >>> [c.text for c in s.split("c1", "Pay by May [D10]. I can't find the rest.").claims]
    ['Pay by May.']
    >>> s.split("c1", "Pay by May [D10]. I can't find the rest.").abstains
    True
    >>> [(c.text, c.cites) for c in s.split("c1", "Refunds need approval (Source: KB-3).").claims]
    [('Refunds need approval.', ('KB-3',))]
    """

    def __init__(
        self,
        citation_pattern: Union[str, Pattern[str], Sequence[Union[str, Pattern[str]]], None] = None,
        abstention_phrases: Optional[Iterable[str]] = None,
        *,
        extra_abstention_phrases: Iterable[str] = (),
        language: str = DEFAULT_LANGUAGE,
        default_citations: bool = True,
    ) -> None:
        if citation_pattern is None:
            own: List[Union[str, Pattern[str]]] = []
        elif isinstance(citation_pattern, (str, re.Pattern)):
            own = [citation_pattern]
        else:
            own = list(citation_pattern)
        texts: List[str] = []
        for pattern in own:
            compiled = _compile(pattern, "citation pattern") if isinstance(pattern, str) else pattern
            if compiled.groups != 1:
                raise GroundlabError(f"the citation pattern {compiled.pattern!r} needs exactly one group that "
                                     r"captures the passage id(s), like \[([A-Z]\d+)\]")
            texts.append(compiled.pattern)
        patterns = tuple(DEFAULT_CITATION_PATTERNS if default_citations else ()) + tuple(
            p for p in texts if not default_citations or p not in DEFAULT_CITATION_PATTERNS)
        #: The citation styles read, in order: the built-in ones (unless left out), then one's own.
        self.citation_patterns = tuple(dict.fromkeys(patterns))
        try:
            self.citation_re = citation_regex(self.citation_patterns)
        except re.error as exc:
            raise GroundlabError(f"the citation patterns {list(texts)!r} cannot be read together with the built-in "
                                 f"ones ({exc}); write flags inside a group, like (?i:see), or pass "
                                 "default_citations=False (--no-default-citations)") from None
        self.language = language
        # The built-in styles open with a bracket: a sentence without one has no citation to look for.
        self._bracketed = self.citation_re.pattern in _DEFAULT_PATTERN_TEXTS
        self._cites: dict = {}
        self._memo: dict = {}  # what each sentence is, read alone (_read)
        phrases = tuple(DEFAULT_ABSTENTION_PHRASES if abstention_phrases is None else abstention_phrases)
        phrases += tuple(p for p in extra_abstention_phrases if p not in phrases)
        for phrase in phrases:
            _compile(phrase, "abstention phrase")
        builtin = [p for p in phrases if p in DEFAULT_ABSTENTION_PHRASES]
        extra = [p for p in phrases if p not in DEFAULT_ABSTENTION_PHRASES]
        self._builtin_re = _alternation(builtin)
        self._extra_re = _alternation(extra)

    def is_abstention(self, sentence: str) -> bool:
        """True when the sentence says the assistant cannot answer."""
        sentence = sentence.replace("\u2019", "'")
        if self._builtin_re is not None:
            if _has_trigger(sentence.lower()) and self._builtin_re.search(sentence):
                return True
        return self._extra_re is not None and self._extra_re.search(sentence) is not None

    def citations(self, sentence: str) -> Tuple[str, ...]:
        """The passage ids a sentence cites, in order, without repeats."""
        groups = [m.group(m.lastindex) for m in self.citation_re.finditer(sentence) if m.lastindex]
        groups = [g for g in groups if g]
        if len(groups) == 1 and not _ID_SEP.search(groups[0].strip()):
            return self._one_cite(groups[0].strip())
        ids: dict = {}
        for group in groups:
            for pid in _ID_SEP.split(group.strip()):
                if pid:
                    ids[self._one_cite(pid)[0]] = None
        return tuple(ids)

    def _one_cite(self, pid: str) -> Tuple[str, ...]:
        # The same few ids are cited again and again: share one tuple per id instead of
        # keeping a copy of "D07" for every claim of a large log.
        cites = self._cites.get(pid)
        if cites is None:
            if len(self._cites) > 100_000:
                self._cites.clear()
            cites = self._cites[pid] = (pid,)
        return cites

    def sentences(self, answer: str) -> List[Sentence]:
        """The answer's sentences, headings included, with their offsets (see :func:`sentences`)."""
        return sentences(answer, self.citation_re, self.language)

    def split(self, case_id: str, answer: str, passage_ids: Sequence[str] = (), question: str = "") -> Split:
        """The claims of one answer (numbered from 1) and whether it abstains. ``passage_ids``: the
        ids of the passages the answer was written from; one of them named in round brackets
        ("... in an hour (SEC-MFA-2).") is a citation too.

        >>> [(c.text, c.cites) for c in ClaimSplitter().split("c", "Tokens last 8 hours (SEC-2).", ["SEC-2"]).claims]
        [('Tokens last 8 hours.', ('SEC-2',))]
        """
        claims, abstains, _ = self._walk(case_id, answer, explain=False, passage_ids=passage_ids, question=question)
        return Split(tuple(claims), abstains)

    def split_alone(self, answer: str, passage_ids: Sequence[str] = ()) -> Optional[Split]:
        """:meth:`split` of an answer whose claims no question can change (numbered from 1, with an
        empty case id), or ``None`` for an answer that is only a yes or no, whose claim is the
        question's premise: splits that may be kept per answer, whatever the question.

        >>> ClaimSplitter().split_alone("Yes.") is None, len(ClaimSplitter().split_alone("Yes. It is paid.").claims)
        (True, 1)
        """
        claims, abstains, _ = self._walk("", answer, explain=False, passage_ids=passage_ids, question=None)
        if claims is None:
            return None
        return Split(tuple(claims), abstains)

    def explain(self, answer: str, passage_ids: Sequence[str] = (), question: str = "") -> List[Tuple[str, str]]:
        """How an answer splits: ``(role, sentence)`` for every sentence, role being ``claim``,
        ``abstention``, ``closing`` (whom to ask instead, or a courtesy, in an answer that
        abstains), ``yes/no`` (a bare yes or no, part of the claim beside it), ``heading`` or
        ``no claim`` (a lone citation or punctuation).

        >>> ClaimSplitter().explain("Steps:\\n- Pay by May [D10].\\n- I can't find the rest.")
        [('heading', 'Steps:'), ('claim', 'Pay by May [D10].'), ('abstention', "I can't find the rest.")]
        """
        return self._walk("", answer, explain=True, passage_ids=passage_ids, question=question)[2]

    def _named_ids(self, text: str, ids: FrozenSet[str]) -> Tuple[Tuple[str, ...], str]:
        """The passage ids a sentence names in round brackets ("(SEC-MFA-2)", "(KB-3, KB-4)"), and the
        sentence without those brackets."""
        found: List[str] = []

        def take(match: "re.Match[str]") -> str:
            parts = [p for p in _ID_SEP.split(match.group(1).strip()) if p]
            if parts and all(p in ids for p in parts):
                found.extend(parts)
                return ""
            return match.group()

        rest = _ID_IN_BRACKETS.sub(take, text)
        return tuple(dict.fromkeys(found)), rest

    def _read(self, whole: str, ids: Optional[FrozenSet[str]], may_abstain: bool) -> Tuple[str, Tuple[str, ...], str, Optional[bool]]:
        """What one sentence of an answer is, read alone: ``(role, cites, text, yes)``, role being
        one of :meth:`explain`'s (``claim``, ``abstention``, ``yes/no``, ``no claim``, ``sources``),
        ``text`` the claim's text without its citations, ``yes`` which answer a bare yes or no
        gives, or for a claim whether it is a closing sentence (:func:`is_closing`). ``ids``: the
        answer's passage ids when the sentence has a round bracket (one naming them is a citation).
        Kept per sentence: answers that differ repeat most of their sentences."""
        key = (whole, ids, may_abstain)
        found = self._memo.get(key)
        if found is None:
            found = self._read_fresh(whole, ids, may_abstain)
            if len(self._memo) >= _SENTENCE_MEMO:
                self._memo.clear()
            self._memo[key] = found
        return found

    def _read_fresh(self, whole: str, ids: Optional[FrozenSet[str]],
                    may_abstain: bool) -> Tuple[str, Tuple[str, ...], str, Optional[bool]]:
        if self._bracketed and "[" not in whole and "(" not in whole and "\u3010" not in whole:
            cites: Tuple[str, ...] = ()
            text = whole
        else:
            cites = self.citations(whole)
            text = self.citation_re.sub("", whole) if cites else whole
            if ids and "(" in text:
                named, text = self._named_ids(text, ids)
                if named:
                    cites = tuple(dict.fromkeys(cites + named))
        if _FOOTNOTE_DEFINITION.match(whole):
            return _SOURCES_ROLE, (), whole, None  # "[^1]: Refund policy, KB-3" says where a footnote points, no fact
        # A sentence that cites a passage asserts something; only one without is an abstention.
        if not cites and may_abstain and self.is_abstention(whole):
            return _ABSTENTION, cites, whole, None
        initial = text.lstrip(_ANSWER_EDGES)[:1]
        if initial in _ANSWER_INITIALS:
            yes = bare_answer(text) if len(text) <= 64 else None
            if yes is None and initial in _YES_NO_INITIALS:
                lead = LEADING_ANSWER.match(text.lstrip(_ANSWER_EDGES))
                if lead is not None:  # "No. Returns are ...", one sentence to the segmenter: the claim is the rest
                    text = text.lstrip(_ANSWER_EDGES)[lead.end():]
            if yes is not None:
                return _YES_NO, cites, text, yes
        if not _HAS_WORD.search(text) or (len(text) <= 6 and _ENUMERATOR.fullmatch(text.strip())):
            return _NO_CLAIM, cites, text, None  # a lone citation, punctuation or list number ("2.") asserts nothing
        if cites and _SOURCES_LINE.fullmatch(text):
            return _SOURCES_ROLE, cites, text, None  # "Sources: [1][2]" names the answer's sources; it asserts nothing
        if "  " in text or "\n" in text or "\t" in text or text[:1].isspace() or text[-1:].isspace():
            text = " ".join(text.split())
        if text[-2:-1] == " " and text[-1] in ".!?":
            text = text[:-2] + text[-1]  # "all 100 [D07]." -> "all 100."
        elif " " in text[-4:]:
            text = _FINAL_SPACE.sub(r"\1", text)  # 'now [D10]."' -> 'now."', "[D7] 。"
        if " ," in text or " ;" in text or " :" in text:
            text = _INNER_SPACE.sub(_first_group, text)
        if text.endswith("..") and not text.endswith("..."):
            text = text[:-1]  # "before 6 a.m. (Source: TR-2)." -> "before 6 a.m."
        if text[-2:] in ("()", "[]") or "()" in text or "[]" in text:
            text = _EMPTY_BRACKETS.sub("", text)
        return _CLAIM, cites, text, may_abstain and not cites and is_closing(text)

    def _walk(self, case_id: str, answer: str, explain: bool, passage_ids: Sequence[str] = (),
              question: Optional[str] = ""):
        """The claims, whether the answer abstains, and each sentence's role (with ``explain``);
        ``question`` ``None``: the claims are ``None`` when the question would shape them."""
        claims: List[Claim] = []
        bare: Optional[_Bare] = None  # a bare yes or no waiting for the claim it goes with
        roles: List[Tuple[str, str]] = []
        abstains = False
        sources: Tuple[str, ...] = ()
        ids = frozenset(passage_ids) if passage_ids and "(" in answer else None
        end_of_claims = len(answer)
        if ":" in answer and _SOURCES_HINT.search(answer) is not None:
            block = _sources_block(answer, self.citation_re)
            if block is not None:
                end_of_claims, sources = block[0], self._source_ids(block[1])
                if explain:
                    roles_after = [("sources", line.strip()) for line in block[1].split("\n") if line.strip()]
        text_of_claims = answer if end_of_claims == len(answer) else answer[:end_of_claims]
        # Most answers hold no abstention wording at all: one look at the whole answer spares
        # the per-sentence phrase patterns.
        may_abstain = self._extra_re is not None or (
            self._builtin_re is not None and _has_trigger(text_of_claims.lower().replace("\u2019", "'")))
        closings: List[Tuple[int, int]] = []  # (claim index, role index) of closing sentences
        for start, end, whole, heading in _sentences(text_of_claims, self.citation_re, self.language):
            if heading:
                if explain:
                    roles.append(("heading", whole))
                continue
            role, cites, text, yes = self._read(whole, ids if ids is not None and "(" in whole else None,
                                                may_abstain)
            if role is not _CLAIM:
                if role is _ABSTENTION:
                    abstains = True
                elif role is _YES_NO:
                    # "Yes." asserts nothing of its own: it goes with the claim after it (see below)
                    if bare is None:
                        bare = _Bare(start, end, cites, yes, len(roles))
                    else:
                        bare = bare._replace(end=end, cites=tuple(dict.fromkeys(bare.cites + cites)))
                elif role is _SOURCES_ROLE and cites:
                    sources = tuple(dict.fromkeys(sources + cites))
                if explain:
                    roles.append((role, whole))
                continue
            if yes:  # a closing sentence ("Please contact your manager.") beside an abstention
                closings.append((len(claims), len(roles)))
            if bare is not None:  # "Yes. Refunds are paid within 5 days.": one claim, the yes with it
                start, cites, bare = bare.start, tuple(dict.fromkeys(bare.cites + cites)), None
            claims.append(Claim(case_id, len(claims) + 1, text, cites, (start, end)))
            if explain:
                roles.append(("claim", whole))
        if abstains and closings:
            # "I can't find that. Please contact your manager.": whom to ask, or a courtesy, beside
            # an abstention asserts nothing; the answer declines
            dropped = {k for k, _ in closings}
            claims = [replace(c, number=n) for n, c in
                      enumerate((c for k, c in enumerate(claims) if k not in dropped), 1)]
            if explain:
                for _, r in closings:
                    roles[r] = ("closing", roles[r][1])
        if bare is not None and not (abstains and not claims):
            if claims:  # "Refunds are paid within 5 days. So yes.": the yes goes with the claim before it
                last = claims[-1]
                claims[-1] = replace(last, cites=tuple(dict.fromkeys(last.cites + bare.cites)),
                                     span=(last.span[0], bare.end) if last.span else last.span)
            else:
                # An answer that is only a yes or no asserts the question's premise, or its negation.
                if question is None:
                    return None, abstains, roles  # the question shapes this answer's claim
                said = premise(question, bare.yes) or fallback(question, bare.yes) or \
                    " ".join(answer[bare.start:bare.end].split())
                claims.append(Claim(case_id, 1, said, bare.cites, (bare.start, bare.end)))
                if explain:
                    roles[bare.role] = ("claim", roles[bare.role][1])
        if sources:
            # The answer's sources back every claim that names none of its own.
            claims = [c if c.cites else replace(c, cites=sources) for c in claims]
        if explain and end_of_claims < len(answer):
            roles.extend(roles_after)
        return claims, abstains, roles

    def _source_ids(self, block: str) -> Tuple[str, ...]:
        """The ids a sources block names: its citations, and bare ids with a digit on its heading line
        ("Sources: KB-3, KB-4")."""
        ids = list(self.citations(block))
        first = block.split("\n", 1)[0]
        rest = first.split(":", 1)[1] if ":" in first else ""
        rest = self.citation_re.sub(" ", rest).strip(" *_.")
        if rest:
            tokens = [t for t in _ID_SEP.split(rest.replace("  ", " ")) if t]
            if all(_BARE_ID.fullmatch(t) for t in tokens):
                ids.extend(tokens)
        return tuple(dict.fromkeys(ids))


#: The words that head a list of sources, in the languages groundlab reads.
_SOURCE_WORDS = r"(?:sources?|references?|citations?|quellen|fuentes|r\u00e9f\u00e9rences)"
#: A line that may head a list of the answer's sources: "Sources:", "**References:**", "## Quellen:".
_SOURCES_HINT = re.compile(r"(?im)^[ \t>#*_-]*" + _SOURCE_WORDS + r"(?:[ \t]+[a-z]+){0,2}[ \t]*[*_]*[ \t]*:")
#: What a "Sources: [1][2]" sentence holds once its citations are taken out.
_SOURCES_LINE = re.compile(r"[\s>#*_(-]*(?i:" + _SOURCE_WORDS + r"(?:\s+[a-zA-Z]+){0,2}|see(?:\s+also)?|cf|siehe|voir)"
                           r"\s*[*_]*\s*:?[\s,;&.*_)]*")
_FOOTNOTE_DEFINITION = re.compile(r"\s*\[\^[^\]]{1,40}\]:")
#: Round brackets that may name passages: "(SEC-MFA-2)", "(see KB-3 and KB-4)".
_ID_IN_BRACKETS = re.compile(r"\s*\(\s*(?:(?i:see|source|sources|ref|cf)\.?:?\s+)?([^()]{1,120}?)\s*\)")
_BARE_ID = re.compile(r"[A-Za-z_]*[-_.:#/]?\d[\w.:#/-]*")
_EMPTY_BRACKETS = re.compile(r"\s*(?:\(\s*\)|\[\s*\])")
#: A line of a list of sources: a list item, a bracketed number or footnote, or a line naming an id.
_SOURCE_ENTRY = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|\[|\u3010|\(|[A-Za-z_]*[-_.:#/]?\d)")


def _sources_block(answer: str, citation_re: Pattern[str]) -> Optional[Tuple[int, str]]:
    """Where a trailing list of sources starts and its text: a line headed "Sources:" (or
    "References:", ...) after which every line is an entry of the list. ``None`` when there is
    none, or when what follows the heading reads as more of the answer."""
    found = None
    for found in _SOURCES_HINT.finditer(answer):
        pass
    if found is None:
        return None
    start = found.start()
    if start and answer[start - 1] != "\n":
        start = answer.rfind("\n", 0, start) + 1
    block = answer[start:]
    lines = [line for line in block.split("\n")[1:] if line.strip()]
    for line in lines:
        if len(line) > 300 or not _SOURCE_ENTRY.match(line):
            return None
    if not lines and not citation_re.search(block) and not _BARE_ID.search(block.split(":", 1)[1]):
        return None  # "Sources:" with nothing after it on its line or below
    return start, block


def shorten(text: str, limit: int = 100) -> str:
    """A sentence on one line, cut with an ellipsis past ``limit`` characters (for messages)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _compile(pattern: str, what: str) -> Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise GroundlabError(f"the {what} {pattern!r} is not a valid regular expression ({exc}); "
                             "fix it and run again") from None


def _first_group(match: "re.Match[str]") -> str:
    return match.group(1)


def _alternation(phrases: Sequence[str]) -> Optional[Pattern[str]]:
    if not phrases:
        return None
    return re.compile("|".join(f"(?:{p})" for p in phrases), re.IGNORECASE)


def claim_splitter(citation_pattern: Optional[str] = "", abstention_phrases: Sequence[str] = (),
                   names: Sequence[str] = ("citation_pattern", "abstention_phrases"),
                   default_citations: bool = True) -> ClaimSplitter:
    """How answers are split into claims: ``citation_pattern``, a citation style of one's own read
    beside the built-in ones ("" for the built-in ones alone: ``[D07]``, ``[^1]``, ``【1】``,
    ``(Source: KB-3)``, ``(see KB-5)``; ``default_citations=False`` reads it alone), and abstention
    wordings added to the built-in ones. A pattern that is not a regular expression is refused in
    one sentence naming it as ``names`` say (the parameter, or the option)."""
    if isinstance(abstention_phrases, str):
        abstention_phrases = [abstention_phrases] if abstention_phrases else []
    for name, patterns in zip(names, ([citation_pattern or ""], list(abstention_phrases))):
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise GroundlabError(f"{name} {pattern!r} is not a valid regular expression ({exc}); "
                                     "fix it and run again.") from None
    if not default_citations and not citation_pattern:
        raise GroundlabError("the built-in citation styles are left out (--no-default-citations, or "
                             "default_citations False) but no citation pattern of your own is given; give one with "
                             f"{names[0]}, or keep the built-in ones.")
    try:
        return ClaimSplitter(citation_pattern=citation_pattern or None,
                             abstention_phrases=DEFAULT_ABSTENTION_PHRASES + tuple(abstention_phrases),
                             default_citations=bool(default_citations))
    except ValueError as exc:
        raise GroundlabError(f"{exc}.") from None
