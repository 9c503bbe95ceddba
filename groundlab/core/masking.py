"""Mask personal data before a case's text goes to a model, and restore it in what comes back.

What is masked: e-mail addresses (any script: ``jürgen.müller@example.de``, ``anna@müller.de``),
phone numbers (``phonenumbers``, Google's libphonenumber: a number written with its country code
anywhere, and national numbers of :attr:`Masker.regions`), IBANs (in any letter case, checked
with their check digits, ``python-stdnum``), payment card numbers (13 to 19 digits passing the
Luhn check, grouped by spaces, dots or dashes) and the names a person lists.

Every text is read in a normalised form before anything is looked for in it: Unicode NFKC (so a
decomposed accent, a full-width digit or a ligature reads as its plain letter), every kind of
space and line break as one space, every dash as ``-``, ``’`` as ``'``, zero-width characters
dropped. So ``DE89\\u00a03704…`` and ``DE89  3704…`` are the IBAN ``DE89 3704…``, and the name
``Anna Weber`` is found written ``Anna\\nWeber`` or ``ANNA  WEBER``. What is replaced is the
value as the text writes it; the rest of the text is left as it was.

Each value becomes a placeholder such as ``MASKED_EMAIL_1``, the same one wherever the value
appears in the question, the passages (their ids too), the answer and its claims, however it is
spaced or cased there (:meth:`Masker.table` is built over all of them at once, each text read
once), so a claim that repeats a passage's phone number still matches it, and one that changes
it does not: verdicts do not move. A placeholder never occurs in the texts it masks: when one of
them already holds ``MASKED_``, another prefix (``MASKED1_``...) is taken, so what comes back is
restored to the right value. The same texts always mask alike, so a masked request's cached reply
is found again.

>>> m = Masker(names=["Anna Weber"])
>>> table = m.table(["Mail anna.weber@example.com", "Anna Weber answers at anna.weber@example.com."])
>>> m.mask("Anna Weber answers at anna.weber@example.com.", table)
'MASKED_NAME_1 answers at MASKED_EMAIL_1.'
>>> m.unmask("MASKED_NAME_1 has the address.", table)
'Anna Weber has the address.'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .sentences import LazyPattern

#: The regions whose national phone numbers are found (numbers with a country code are found anywhere).
DEFAULT_REGIONS: Tuple[str, ...] = ("US", "GB", "DE", "FR")

#: What each kind of value is called in its placeholder, in the order overlapping finds are settled.
KINDS = ("EMAIL", "IBAN", "CARD", "PHONE", "NAME")

_ALNUM = r"[^\W_]"  # a letter or digit of any script
_EMAIL = LazyPattern(r"(?<![\w.+'-])" + _ALNUM + r"[\w.%+'-]*@" + _ALNUM + r"(?:[\w-]*" + _ALNUM + r")?"
                    r"(?:\." + _ALNUM + r"(?:[\w-]*" + _ALNUM + r")?)*\.[^\W\d_]{2,}(?![\w-])")
_IBAN = re.compile(r"(?<![^\W_])[A-Za-z]{2}\d{2}(?:[ .-]?[A-Za-z0-9]){11,30}(?![^\W_])")
_DIGIT_RUN = re.compile(r"\d+(?:[ .-]\d+)*")
_DIGITS = re.compile(r"\d+")

#: Zero-width spaces, joiners and the soft hyphen: read as nothing.
_DROPPED = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e")
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201b\u02bc\u2032\uff07"), "'")
_FOLD = {**_DASHES, **_QUOTES}
_PLAIN = re.compile(r"[ !-~]*")  # printable ASCII, no two spaces: nothing to normalise


@dataclass
class Normalised:
    """A text as values are looked for in it (see the module docstring), with the way back to the
    text it was read from: ``edits`` (``(start, end, replacement)`` of the original text, in
    order) or, once asked, where each character came from."""

    text: str
    edits: Optional[List[Tuple[int, int, str]]] = None  # None and no starts: the text is its own normal form
    starts: Optional[List[int]] = None
    ends: Optional[List[int]] = None

    def span(self, start: int, end: int) -> Tuple[int, int]:
        """The span of the original text that normalised characters ``start:end`` came from."""
        if self.starts is None:
            if not self.edits:
                return start, end
            self.starts, self.ends = [], []
            at = 0
            for s, e, new in self.edits:
                self.starts.extend(range(at, s))
                self.ends.extend(range(at + 1, s + 1))
                self.starts.extend([s] * len(new))
                self.ends.extend([e] * len(new))
                at = e
            tail = len(self.text) - len(self.starts)
            self.starts.extend(range(at, at + tail))
            self.ends.extend(range(at + 1, at + tail + 1))
        return self.starts[start], self.ends[end - 1]  # type: ignore[index]


_EDITS = re.compile(r"(?: ?[^\S ]|  )\s*|[" + "".join(sorted(_DROPPED)) + "]+|["
                    + "".join(map(chr, sorted(_FOLD))) + "]")


def normalise(text: str) -> Normalised:
    """``text`` read for masking: NFKC, spaces, dashes and quotes as one kind each, zero-width
    characters dropped (see the module docstring)."""
    if _PLAIN.fullmatch(text) and "  " not in text:
        return Normalised(text)
    edits: List[Tuple[int, int, str]] = []

    def edit(match: "re.Match[str]") -> str:
        found = match.group()
        new = "" if found[0] in _DROPPED else " " if found[0].isspace() else found.translate(_FOLD)
        edits.append((match.start(), match.end(), new))
        return new

    folded = _EDITS.sub(edit, text)
    if folded.isascii() or unicodedata.is_normalized("NFKC", folded):
        return Normalised(folded, edits) if edits else Normalised(text)
    out: List[str] = []  # decomposed accents, full-width forms, ligatures: character by character
    starts: List[int] = []
    ends: List[int] = []
    n, i = len(text), 0
    while i < n:
        ch = text[i]
        if ch in _DROPPED:
            i += 1
            continue
        if ch.isspace():
            j = i + 1
            while j < n and (text[j].isspace() or text[j] in _DROPPED):
                j += 1
            out.append(" ")
            starts.append(i)
            ends.append(j)
            i = j
            continue
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        piece = text[i:j]
        if not piece.isascii():
            piece = unicodedata.normalize("NFKC", piece).translate(_FOLD)
        for c in piece:
            if c.isspace():
                if out and out[-1] == " ":
                    ends[-1] = j
                    continue
                c = " "
            out.append(c)
            starts.append(i)
            ends.append(j)
        i = j
    return Normalised("".join(out), None, starts, ends)


def _key(kind: str, value: str) -> str:
    """What makes two finds the same value (their placeholder is one)."""
    if kind in ("EMAIL", "NAME"):
        return f"{kind}:{value.casefold()}"
    return f"{kind}:{re.sub(r'[^0-9A-Za-z+]', '', value).upper()}"


#: A find: ``(start, end, kind, key)`` in the original text.
Find = Tuple[int, int, str, str]


@dataclass
class Table:
    """The placeholders of one set of texts (:meth:`Masker.table`): ``by_key`` the placeholder of
    each value found (values that differ only in spacing, letter case or the way a phone number
    is written share one), ``values`` the value each placeholder stands for, as first written;
    ``prefix`` what every placeholder starts with (one that none of the texts holds)."""

    prefix: str = "MASKED_"
    by_key: Dict[str, str] = field(default_factory=dict)
    values: Dict[str, str] = field(default_factory=dict)
    finds: Dict[str, List[Find]] = field(default_factory=dict)
    counts: Dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in KINDS})

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def __len__(self) -> int:
        return len(self.by_key)

    def placeholder(self, kind: str, key: str, value: str) -> str:
        found = self.by_key.get(key)
        if found is None:
            self.counts[kind] += 1
            found = self.by_key[key] = f"{self.prefix}{kind}_{self.counts[kind]}"
            self.values[found] = value
        return found

    def items(self):
        """``(value as first written, placeholder)`` for every value."""
        return [(value, placeholder) for placeholder, value in self.values.items()]


@dataclass(frozen=True)
class Masker:
    """Finds personal data in texts (see the module docstring). ``names``: people's (or any) names
    to mask, matched as whole words whatever their case, spacing or way of writing an accent;
    ``regions``: the regions whose national phone numbers are looked for."""

    names: Tuple[str, ...] = ()
    regions: Tuple[str, ...] = DEFAULT_REGIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(n.strip() for n in self.names if n and n.strip()))
        object.__setattr__(self, "regions", tuple(r.strip().upper() for r in self.regions if r and r.strip()))
        written = {normalise(n).text.strip(): None for n in self.names}
        longest = sorted((n for n in written if n), key=lambda n: (-len(n), n))
        pattern = (r"(?<!\w)(?:" + "|".join(re.escape(n) for n in longest) + r")(?!\w)") if longest else None
        object.__setattr__(self, "_names", re.compile(pattern, re.IGNORECASE) if pattern else None)

    def find(self, text: str) -> List[Tuple[int, int, str]]:
        """``(start, end, kind)`` of every value to mask in ``text``, left to right, none overlapping
        (a longer find wins over one inside it)."""
        return [(s, e, kind) for s, e, kind, _ in self._find(text)]

    def _find(self, text: str) -> List[Find]:
        if not text:
            return []
        norm = normalise(text)
        t = norm.text
        found: List[Tuple[int, int, str, str]] = []
        if "@" in t:
            found.extend((m.start(), m.end(), "EMAIL", _key("EMAIL", m.group())) for m in _EMAIL.finditer(t))
        digits = any(c.isdigit() for c in t)
        if digits:
            found.extend((s, e, "IBAN", _key("IBAN", t[s:e])) for s, e in _ibans(t))
            found.extend((s, e, "CARD", _key("CARD", t[s:e])) for s, e in _cards(t))
            found.extend((s, e, "PHONE", "PHONE:" + number) for s, e, number in _phones(t, self.regions))
        if self._names is not None:
            found.extend((m.start(), m.end(), "NAME", _key("NAME", m.group())) for m in self._names.finditer(t))
        found.sort(key=lambda f: (f[0], -(f[1] - f[0]), KINDS.index(f[2])))
        kept: List[Find] = []
        for start, end, kind, key in found:
            if kept and start < kept[-1][1]:
                continue
            kept.append((start, end, kind, key))
        return [(*norm.span(s, e), kind, key) for s, e, kind, key in kept]

    def table(self, texts: Iterable[str]) -> Table:
        """One placeholder per value found in ``texts``, numbered per kind in order of appearance;
        each text is read once, and masking it with the table reads it no more."""
        texts = [t for t in texts if t]
        table = Table(prefix=_prefix(texts))
        for text in texts:
            self._add(text, table)
        return table

    def _add(self, text: str, table: Table) -> List[Find]:
        finds = table.finds.get(text)
        if finds is None:
            finds = table.finds[text] = self._find(text)
            for start, end, kind, key in finds:
                table.placeholder(kind, key, text[start:end])
        return finds

    def mask(self, text: str, table: Table) -> str:
        """``text`` with every value found in it replaced by its placeholder in ``table`` (a value
        the table did not hold yet gets the next one)."""
        if not text:
            return text
        finds = self._add(text, table)
        if not finds:
            return text
        out, at = [], 0
        for start, end, _, key in finds:
            out.append(text[at:start])
            out.append(table.by_key[key])
            at = end
        out.append(text[at:])
        return "".join(out)

    @staticmethod
    def unmask(text: str, table: Table) -> str:
        """``text`` with each placeholder of ``table`` back to its value (as first written)."""
        if not table or not text or table.prefix not in text:
            return text
        pattern = re.compile(re.escape(table.prefix) + r"(?:" + "|".join(KINDS) + r")_\d+(?!\d)")
        return pattern.sub(lambda m: table.values.get(m.group(), m.group()), text)


def _prefix(texts: Sequence[str]) -> str:
    """``MASKED_``, or the first of ``MASKED1_``, ``MASKED2_``... that none of ``texts`` holds."""
    folded = [normalise(t).text.casefold() for t in texts if "ask" in t.casefold() or not t.isascii()]
    k = 0
    while True:
        prefix = f"MASKED{k or ''}_"
        if not any(prefix.casefold() in t for t in folded):
            return prefix
        k += 1


# ---------------------------------------------------------------- the kinds of value

#: Phone finds of a stretch of text (the candidate with a character before and three after, all
#: that libphonenumber looks at), by the stretch and the regions: the question, the passages, the
#: answer and the claims of a case repeat them.
_PHONE_MEMO: Dict[Tuple[str, Tuple[str, ...]], List[Tuple[int, int, str]]] = {}


def _phones(text: str, regions: Sequence[str]) -> List[Tuple[int, int, str]]:
    """``(start, end, number in E.164)`` of the phone numbers in ``text``."""
    import phonenumbers
    from phonenumbers import phonenumbermatcher

    regions = tuple(regions) or ("ZZ",)
    candidates = getattr(phonenumbermatcher, "_PATTERN", None)
    windows = ([(max(0, m.start() - 1), m.end() + 3) for m in candidates.finditer(text)
                if m.end() - m.start() >= 4 and sum(c.isdigit() for c in m.group()) >= 4] if candidates is not None else [(0, len(text))])
    spans: Dict[Tuple[int, int], str] = {}
    for low, high in windows:
        window = text[low:high]
        key = (window, regions)
        found = _PHONE_MEMO.get(key)
        if found is None:
            found = []
            for region in regions:
                try:
                    matcher = phonenumbers.PhoneNumberMatcher(window, region)
                    for match in matcher:
                        number = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
                        found.append((match.start, match.end, number))
                except Exception:  # noqa: BLE001 (an unknown region finds nothing)
                    continue
            if len(_PHONE_MEMO) > 50_000:
                _PHONE_MEMO.clear()
            _PHONE_MEMO[key] = found
        for start, end, number in found:
            spans.setdefault((low + start, low + end), number)
    return sorted((s, e, n) for (s, e), n in spans.items())


def _ibans(text: str) -> List[Tuple[int, int]]:
    """Where ``text`` (normalised) writes a valid IBAN, in any letter case and grouped by spaces,
    dots or dashes. The pattern is greedy and runs on into a following word ("DE89 3704 0044 0532
    0130 00 BIC COBADEFFXXX"), so each find is cut back at its separators, longest first, to the
    IBAN whose check digits hold; a find that holds none is looked into again one letter on."""
    spans = []
    at = 0
    while True:
        match = _IBAN.search(text, at)
        if match is None:
            return spans
        value = match.group()
        ends = [len(value)] + [i for i in range(len(value) - 1, 14, -1) if value[i] in " .-"]
        end = next((e for e in ends if _valid_iban(value[:e])), None)
        if end is None:
            at = match.start() + 1
            continue
        spans.append((match.start(), match.start() + end))
        at = match.start() + end


def _cards(text: str) -> List[Tuple[int, int]]:
    """Where ``text`` (normalised) writes a card number: 13 to 19 digits passing the Luhn check, in
    one group or in groups parted by single spaces, dots or dashes, whatever comes before or after
    (``ref-4111…``, a trailing dash). In a run of groups the window that starts with a group of four
    digits (as cards are written) wins, then the longest."""
    spans: List[Tuple[int, int]] = []
    for run in _DIGIT_RUN.finditer(text):
        if run.end() - run.start() < 13:
            continue
        groups = [(m.start() + run.start(), m.end() + run.start()) for m in _DIGITS.finditer(run.group())]
        found = []
        for i, (start, _) in enumerate(groups):
            digits = 0
            for j in range(i, len(groups)):
                digits += groups[j][1] - groups[j][0]
                if digits > 19:
                    break
                if digits >= 13:
                    number = re.sub(r"\D", "", text[start:groups[j][1]])
                    if _luhn(number):
                        four = groups[i][1] - groups[i][0] == 4 or i == j
                        found.append((not four, -digits, start, groups[j][1]))
        taken: List[Tuple[int, int]] = []
        for _, _, start, end in sorted(found):
            if all(end <= s or start >= e for s, e in taken):
                taken.append((start, end))
        spans.extend(sorted(taken))
    return spans


def _valid_iban(value: str) -> bool:
    from stdnum import iban

    return bool(iban.is_valid(value.upper()))


def _luhn(digits: str) -> bool:
    from stdnum import luhn

    return bool(luhn.is_valid(digits))


__all__ = ["DEFAULT_REGIONS", "KINDS", "Masker", "Normalised", "Table", "normalise"]
