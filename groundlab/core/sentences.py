"""The sentences of a text as a reader sees them, and the citations written after their stops.

How a text is cut: its lines (list markers and headings set aside, hard-wrapped lines joined), each
line's sentences by sentencex, joined again after an abbreviation the segmenter did not know, cut
after a stop inside brackets or quotes, with the citations written after a stop given to the
sentence before them (steps 1 and 2 of :mod:`groundlab.core.claims`, see docs/claims.md). Also the
built-in citation styles (:data:`DEFAULT_CITATION_PATTERNS`) and their one pattern, a passage's
sentences kept per text (:func:`split_sentences`, what the judges read evidence with), and the
letters of the scripts written without spaces (:data:`CJK_CHARS`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import List, NamedTuple, Optional, Pattern, Sequence, Tuple

from sentencex import segment as _sentencex_segment

from .languages import language, sentencex_code
from .months import MONTHS

#: character-class body: ``"[" + CJK_CHARS + "]"``.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
#: The one code point of :data:`CJK_CHARS` a pattern for text without CJK keeps in their place (none
#: is assigned to it): a text whose every character is at most this one holds no other of them.
_CJK_STAND_IN = "\u3040"


class ScriptPattern:
    """A regular expression written with :data:`CJK_CHARS`, used as a compiled one is (``search``,
    ``match``, ``fullmatch``, ``finditer``, ``findall``, ``sub``; ``pattern`` and ``flags``).

    Python's ``re`` compiles a class of those ranges by walking their 40,000 characters one by one,
    some 4 ms a class (three times that with ``IGNORECASE``), every time the program starts: about a
    twentieth of scoring 5,000 cases went to it. So the pattern is compiled at once with the ranges
    cut to one unassigned code point (U+3040), which reads a text holding no character above it
    exactly as the whole pattern does, and whole only when first given a text that holds one
    (:meth:`for_text` picks; a text of Latin, Greek or Cyrillic letters never needs it)."""

    __slots__ = ("pattern", "flags", "_plain", "_whole")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        if CJK_CHARS not in pattern:
            raise ValueError("a ScriptPattern is written with CJK_CHARS")
        self.pattern, self.flags = pattern, flags
        self._plain = re.compile(pattern.replace(CJK_CHARS, _CJK_STAND_IN), flags)
        self._whole: Optional[Pattern[str]] = None

    def for_text(self, text: str) -> Pattern[str]:
        """The compiled pattern that reads ``text`` as the whole pattern does."""
        if text.isascii() or max(text) <= _CJK_STAND_IN:
            return self._plain
        if self._whole is None:
            self._whole = re.compile(self.pattern, self.flags)
        return self._whole

    def search(self, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).search(string, *args)

    def match(self, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).match(string, *args)

    def fullmatch(self, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).fullmatch(string, *args)

    def finditer(self, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).finditer(string, *args)

    def findall(self, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).findall(string, *args)

    def sub(self, repl, string: str, *args):
        return (self._plain if string.isascii() else self.for_text(string)).sub(repl, string, *args)

    def __repr__(self) -> str:
        return f"ScriptPattern({self.pattern[:40]!r}…)"


class LazyPattern:
    """A regular expression compiled on its first use, used as a compiled one is (``search``,
    ``match``, ``fullmatch``, ``finditer``, ``findall``, ``sub``, ``subn``, ``split``, ``flags``,
    ``groups``, ``groupindex``; ``pattern`` is there at once).

    Python's ``re`` compiles in Python: the package's patterns took about a third of the time
    ``groundlab score`` needs to start, and a run on help-desk answers never uses two thirds of them
    (a refusal's closing, a computation's words, an ordinal). A long one that most runs never use
    is compiled only when one does; once compiled, its methods are the compiled pattern's own."""

    __slots__ = ("pattern", "_flags", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split",
                 "flags", "groups", "groupindex")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self._flags = pattern, flags

    def __getattr__(self, name: str):  # only for a slot not yet filled: the first use
        if name not in _LAZY_FILLED:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _LAZY_FILLED:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern[:40]!r}…)"


_LAZY_FILLED = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "flags", "groups",
                "groupindex")


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
#: ``(Sources: KB-3, KB-4)``, ``(see KB-5)``, ``(cf. KB-5)``, ``(ref. KB-5)``, ``(siehe KB-5)``,
#: ``(voir KB-5)``; ``(Passage 2)``,
#: ``[Document 3]``, whose number is the passage's position when the passages carry other ids.
DEFAULT_CITATION_PATTERNS: Tuple[str, ...] = (
    DEFAULT_CITATION_PATTERN,
    r"\[\^\s*(" + _ID + r")\s*\](?!:)",
    "\u3010\\s*(" + _ID + r"(?:\s*[,;]\s*" + _ID + r")*)(?:\s*\u2020[^\u3011]{0,40})?\s*\u3011",
    r"\(\s*(?i:sources?|refs?\.?|references?|see(?:\s+also)?|cf\.?|quellen?|siehe(?:\s+auch)?|vgl\.?|fuentes?|"
    r"v[ée]ase|voir(?:\s+aussi)?)\s*:?\s*(" + _NUMBERED_ID
    + r"(?:" + _AND + _NUMBERED_ID + r")*)\s*\)",
    r"[(\[]\s*(?i:passages?|documents?|docs?|sources?|snippets?|excerpts?|chunks?)\s+#?\s*(\d{1,3}(?:" + _AND
    + r"\d{1,3})*)\s*[)\]]",
)

#: The language whose abbreviations the sentence segmenter knows best (any sentencex code).
DEFAULT_LANGUAGE = "en"


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
#: What :data:`_STOP_BEFORE_CAPITALS` needs, found in one fast scan from each stop (most answers hold
#: no acronym after a stop, and the full pattern tries every word).
_ACRONYM_AFTER_STOP = re.compile(r"\.\s+[A-Z]{2}")
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


#: Words that stand before a German ordinal ("am 31. März", "ab dem 3. Krankheitstag", "zum 15.
#: Januar", "der 2. Mahnung"): a number and a stop after one of them is an ordinal, not a sentence's end.
_ORDINAL_LEADS = frozenset("""
am an ab bis zum zur vom im dem den der die das des seit jeden jedem jeder jede einem einer eines ihrem
ihres ihrer seinem seines seiner vor nach zu ersten letzten
""".split())
#: Abbreviations written before a capitalised word without ending the sentence: German nouns are
#: capitalised ("inkl. Frühstück", "gem. Richtlinie", "mind. Stufe"), and a few stand before names.
#: An amount whose currency is written first: "EUR 500", "CHF 20".
_CURRENCY_FIRST = re.compile(r"\s*(?:EUR|USD|CHF|GBP|JPY|CNY|SEK|NOK|DKK|PLN|CZK)\s?\d")
_BEFORE_CAPITALS = frozenset("""
inkl zzgl bzw vgl ggf ggfs evtl mind gem bzgl lt ca sog usw zzt allg ggü mtl tägl jährl nr abs
approx incl excl cf resp env
""".split())
#: German, French and Latin abbreviations of two stops ("z. B.", "d. h.", "u. a.", "p. ex.") before
#: a capitalised word.
_TWO_STOP_ABBREVIATION = re.compile(
    r"(?:\b(?:z\.\s?b|d\.\s?h|u\.\s?a|u\.\s?u|o\.\s?ä|s\.\s?o|s\.\s?u|i\.\s?d\.\s?r|p\.\s?ex|e\.\s?g|i\.\s?e)\.)\s*$",
    re.IGNORECASE)
#: German words that open a sentence and never stand as the noun after an ordinal ("am 31. Danach
#: verfällt ...", "bis zum 15. Bitte reichen Sie ..."): before one of them the stop ends the sentence.
_OPENS_SENTENCE = frozenset("""
danach dann dabei dafür dagegen daher damit darauf darüber davor deshalb deswegen dennoch trotzdem
außerdem zudem anschließend ansonsten sonst somit also allerdings jedoch aber und oder denn sondern
bitte sie wir ich er es man du ihr der die das dies diese dieser dieses ein eine einer wenn falls sofern
ob weil da sobald bevor nachdem während hierfür hierzu hier dort so auch nur noch bei für mit nach ab
ohne über unter seit wird werden ist sind kann können muss müssen sollte sollten gilt gelten
""".split())
_ORDINAL_END = re.compile(r"(?:^|[\s(])([^\W\d_]+)?\s*(\d{1,3})\.\s*$")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_TITLES = frozenset("M MM Mme Mmes Mlle Mr Mrs Ms Dr Prof Pr Me St Sr Jr Hr Fr Sra Srta".split()) | frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_TITLE_ONLY = re.compile(r"\s*(?:[A-Z]|M|MM|Mme|Mmes|Mlle|Mr|Mrs|Ms|Dr|Prof|Pr|Me|St|Sr|Jr|Hr|Fr|Sra|Srta)\.")


def _joins_capital(before: str, after: str) -> bool:
    """Whether a cut before a capitalised word fell inside a sentence: after a day and before a
    month ("31. März", "1. Januar"), after a German ordinal ("ab dem 3. Krankheitstag"), or after
    an abbreviation German nouns and names follow ("inkl. Frühstück", "z. B. Hotelkosten")."""
    tail = before[-48:].rstrip()  # what decides stands right before the stop
    if tail[-1:] != ".":
        return False
    # the word before the stop decides: a number, a title or initial, an abbreviation nouns follow
    last = tail[:-1].rsplit(None, 1)[-1].lstrip("([\"'") if len(tail) > 1 else ""
    if last.lower() in ("max", "min") and _CURRENCY_FIRST.match(after):
        return True  # "max. EUR 500/month": a bound before its amount
    if not last or not (last[-1].isdigit() or last in _TITLES or last.lower() in _BEFORE_CAPITALS
                        or (len(last) <= 2 and "." in tail[-8:-1])):
        return False
    if _TITLE_ONLY.fullmatch(tail):  # "M. Dupont", "Dr. Weber", "J. Smith": a title or initial opens the sentence
        return True
    ordinal = _ORDINAL_END.search(tail[-40:])
    if ordinal is not None:
        word = _FIRST_WORD.match(after)
        if word is not None and word.group().lower() in MONTHS:
            return True
        if word is not None and word.group().lower() in _OPENS_SENTENCE:
            return False
        lead = ordinal.group(1)
        return lead is not None and lead.lower() in _ORDINAL_LEADS
    last = _LAST_WORD.search(tail[-24:])
    if last is not None and last.group(1).lower() in _BEFORE_CAPITALS:
        return True
    return _TWO_STOP_ABBREVIATION.search(tail[-12:]) is not None


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
    """The sentences of ``text`` as a reader sees them (see :mod:`groundlab.core.claims`, steps 1 and 2).

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
                    # what decides stands right before the stop: the sentence's last 64 characters
                    or (_joins_capital(clean[max(found[-1][0], s - 64):s], head) if c.isupper()
                        else _joins(clean[max(found[-1][0], s - 64):s], head))):
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
    if ". " in clean and _ACRONYM_AFTER_STOP.search(clean) and _STOP_BEFORE_CAPITALS.search(clean):
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


def list_item(line: str) -> bool:
    """Whether a line is an item of a list ("- Hotel: 120 EUR", "2. Tuesday: 28 EUR", "b) ..."):
    a list marker, then text (a Markdown heading is none)."""
    marker = _MARKER.match(line)
    return marker is not None and not marker.group("heading") and bool(line[marker.end():].strip())


def list_closings(text: str, citation_re: Optional[Pattern[str]] = None) -> List[Tuple[int, int, int]]:
    r"""Citations on a line of their own right after a list ("- Hotel: 120 EUR a night\n- Meals: 28
    EUR a day\n(Source: HR-14)"): ``(where the list starts, where the citations start, where they
    end)`` for each. A citation closing a list backs each of its items, not the last alone.

    >>> list_closings("Costs:\n- Hotel: 120 EUR\n- Meals: 28 EUR\n\n(Source: HR-14)")
    [(7, 41, 56)]
    """
    if "\n" not in text:
        return []
    if citation_re is None:
        citation_re = _DEFAULT_CITATION_RE
    out = []
    list_start = -1  # where the list above the current line starts (-1: no list above)
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        body = line.strip()
        if not body:
            continue  # blank lines between a list and its closing citation
        marker = _MARKER.match(line)
        if list_item(line):
            if list_start < 0:
                list_start = start
            continue
        if list_start >= 0:
            at = start + len(line) - len(line.lstrip())
            rest = _skip_citations(text, at, end, citation_re)
            if rest > at and not text[rest:end].strip(" \t.,;"):
                out.append((list_start, at, rest))
                list_start = -1
                continue
            if marker is None and (body[0].islower() or body[0] in "([\"'\u201c"):
                continue  # an item's text going on on the next line
        list_start = -1
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
    return tuple(found[2] for found in _sentences(text, None, sentencex_code(language(text))))


def split_sentences(text: str) -> Sequence[str]:
    """The sentences of a passage or answer, as :func:`sentences` finds them (headings included), in
    the text's own language (:func:`groundlab.core.languages.language`).

    >>> split_sentences("Use a tolerance, e.g. 5 percent. Then release.")
    ('Use a tolerance, e.g. 5 percent.', 'Then release.')
    """
    return _passage_sentences(text)
