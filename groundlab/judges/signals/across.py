"""A claim in another language than its passages ("Hotelkosten bis 120 EUR pro Nacht werden
erstattet." against "Hotel costs are reimbursed up to 120 EUR per night."): judged on what carries
across the two languages, never read as unsupported because its words are foreign.

What carries across: numbers, amounts, dates and codes (the numbers step compares them by value,
before this room), names and acronyms written alike ("VPN", "SAP"), words written alike in both
("Hotel", "Ticket", "Laptop"), and the words of ``groundlab/data/glossary.toml``, a German and
French glossary of the words enterprise policies and help notes use, each mapped to English (German
compounds it lacks are read as two of its words: "Reisekostenabrechnung" as "Reisekosten" and
"Abrechnung"). Both sides are read as English stems: an English text's own, a German or French
text's through the glossary.

The verdict: ``supported`` when at least three quarters of the claim's content words are found
across; ``unsupported`` when most of its words carry across and fewer than two in five are found;
else no verdict (``label`` ``None`` with the reason as ``error``: counted as undecided, left out of
the rates, and the report says how many and why), as when too few of its words carry across to
tell, or a negation stands on one side only.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from ...core.bounds import word_keys
from ...core.languages import ACROSS
from ...core.records import Verdict
from ...core.sentences import split_sentences
from .words import DEADLINE_MARKERS, FOREIGN_STOP_WORDS, NEGATIONS, STOP_WORDS, _read_words, clean_text, stem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GLOSSARY = Path(__file__).resolve().parents[2] / "data" / "glossary.toml"
#: The share of a claim's content words that must carry across for any verdict, and the shares
#: found for ``supported`` and ``unsupported``.
CARRY = 0.6
SUPPORTED = 0.75
UNSUPPORTED = 0.4

_NAMES = {"english": "English", "german": "German", "french": "French", "spanish": "Spanish"}
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['\u2019-][^\W\d_]+)*")
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,}s?")
_LINKS = ("", "s", "n", "en", "es", "e")
_ELIDED = re.compile(r"(?:l|d|s|n|qu|j|m|t|c)'")  # German compounds join their words so: Reise|kosten, Arbeit|s|zeit


@lru_cache(maxsize=1)
def glossary() -> Dict[str, Dict[str, Tuple[Tuple[str, FrozenSet[str]], ...]]]:
    """``{language: {form: ((an English meaning, its stems), ...)}}`` from the glossary file; a
    form whose every meaning is a function word ("bis": "up to", "until") has none."""
    with open(GLOSSARY, "rb") as fh:
        data = tomllib.load(fh)
    out: Dict[str, Dict[str, Tuple[Tuple[str, FrozenSet[str]], ...]]] = {}
    for lang, entries in data.items():
        table = out[lang] = {}
        for form, meanings in entries.items():
            # a meaning written with a hyphen is met written apart too ("carry-over": "carried over")
            written = [m for meaning in meanings for m in ((meaning, meaning.replace("-", " ")) if "-" in meaning
                                                           else (meaning,))]
            read = ((m, frozenset(_english_stems(m))) for m in written)
            table[form.replace("\u2019", "'")] = tuple((m, st) for m, st in read if st)
    return out


@lru_cache(maxsize=1)
def _names() -> Dict[str, FrozenSet[str]]:
    """Each word or phrase of the glossary, of any language or English, to every other it means or
    is meant by."""
    out: Dict[str, set] = {}
    for table in glossary().values():
        for form, meanings in table.items():
            for meaning, _ in meanings:
                out.setdefault(form, {form}).add(meaning)
                out.setdefault(meaning, {meaning}).add(form)
    return {word: frozenset(words) for word, words in out.items()}


def place_forms(name: str) -> FrozenSet[str]:
    """A name (lower case) as the glossary writes it in each language it reads ("münchen": also
    "munich"; "munich": also "münchen"); a name it does not know, itself."""
    return _names().get(name, frozenset((name,)))


@lru_cache(maxsize=1)
def _marks() -> Dict[str, FrozenSet[str]]:
    """Per language, the words that mark a text as written in it: its function words and the
    glossary's words that are not written alike in English ("Hotel" marks nothing)."""
    out = {"english": STOP_WORDS}
    for lang, table in glossary().items():
        own = {form for form, meanings in table.items() if " " not in form and all(m != form for m, _ in meanings)}
        out[lang] = frozenset(own) | FOREIGN_STOP_WORDS.get(lang, frozenset())
    return out


@lru_cache(maxsize=8192)
def glossary_language(text: str) -> Optional[str]:
    """The language a short text is written in, read in more of its words than its function words
    alone (:func:`~groundlab.core.languages.language` needs two of those): the glossary's words and
    each language's function words. ``None`` when no language has two of its words more than the
    others ("Hotelkosten bis 120 EUR pro Nacht werden erstattet." is German; "Hotel costs are
    reimbursed without a receipt." English)."""
    words = set(w.lower() for w in _WORD.findall(text))  # each word once: "la la land" is no French
    counts = {lang: sum(1 for w in words if w in marks) for lang, marks in _marks().items()}
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if ranked[0][1] >= 2 and ranked[0][1] >= ranked[1][1] + 2:
        return ranked[0][0]
    return None


def _english_stems(text: str) -> List[str]:
    return [stem(w) for w in (w.lower() for w in _WORD.findall(text)) if w not in STOP_WORDS and len(w) > 2]


@lru_cache(maxsize=1)
def _longest_keys() -> Dict[str, int]:
    """Per language, the most words a glossary key has."""
    return {lang: max((k.count(" ") + 1 for k in table), default=1) for lang, table in glossary().items()}


def _read(text: str, lang: str) -> List[Tuple[str, Tuple[FrozenSet[str], ...], bool]]:
    """The content words of ``text`` in ``lang``: ``(as written, its English stems per meaning,
    whether the glossary or its language knows it)``. An English word is its own stem; a German or
    French word its glossary meanings (a phrase of the glossary is read as one)."""
    text = DEADLINE_MARKERS.sub(" ", clean_text(text))
    tokens = _WORD.findall(text)
    out: List[Tuple[str, Tuple[FrozenSet[str], ...], bool]] = []
    if lang == "english":
        for token in tokens:
            low = token.lower()
            if low in STOP_WORDS or low in NEGATIONS or (len(low) < 3 and not _ACRONYM.fullmatch(token)):
                continue
            out.append((token, ((low, frozenset((stem(low),))),), True))
        return out
    table = glossary().get(lang, {})
    stop = FOREIGN_STOP_WORDS.get(lang, frozenset())
    longest = _longest_keys().get(lang, 1)
    # a word joined by hyphens that the glossary lacks is read as its words ("Standard-Notebooks"),
    # a code of letters alone ("IT-SW") as one
    tokens = [part for token in tokens for part in
              (token.split("-") if "-" in token and token.lower() not in table and not token.isupper() else (token,))]
    lows = [t.lower().replace("\u2019", "'") for t in tokens]
    k = 0
    while k < len(tokens):
        for size in range(min(longest, len(tokens) - k), 1, -1):
            phrase = " ".join(lows[k:k + size])
            if phrase in table:
                if table[phrase]:
                    out.append((" ".join(tokens[k:k + size]), table[phrase], True))
                k += size
                break
        else:
            token, low = tokens[k], lows[k]
            k += 1
            if low in stop or low in NEGATIONS or (len(low) < 3 and not _ACRONYM.fullmatch(token) and low not in table):
                continue
            if low in table and not table[low]:
                continue  # a function word ("bis", "innerhalb", "jusqu'à")
            if low not in table and _ELIDED.match(low) and low[low.index("'") + 1:] in table:
                low = low[low.index("'") + 1:]  # "l'accès" is "accès"
            meanings = table.get(low) or _compound(low, table)
            out.append((token, meanings or (), bool(meanings) or bool(_ACRONYM.fullmatch(token))))
    return out


def _compound(word: str, table: Dict[str, Tuple[Tuple[str, FrozenSet[str]], ...]]) -> Tuple[Tuple[str, FrozenSet[str]], ...]:
    """A German compound the glossary lacks, as two words it has: its meanings are the last word's
    with the first word's stems beside them ("Reisekostenabrechnung": travel costs, settlement)."""
    for cut in range(len(word) - 3, 3, -1):
        head, tail = word[:cut], word[cut:]
        tail_meanings = table.get(tail)
        if not tail_meanings:
            continue
        for link in _LINKS:
            if link and not head.endswith(link):
                continue
            first = table.get(head[:len(head) - len(link)] if link else head)
            if first:
                lead, lead_stems = first[0][0], frozenset().union(*(st for _, st in first))
                return tuple((f"{lead} {m}", st | lead_stems) for m, st in tail_meanings)
    return ()


_CLAUSES = re.compile(r"\s*;\s*")


@lru_cache(maxsize=8192)
def word_keys_in(text: str, lang: str) -> FrozenSet[str]:
    """:func:`~groundlab.core.bounds.word_keys` of ``text`` (in ``lang``) and of the English its
    glossary words mean: what tells a sentence in another language is on the same matter ("bis zu 3
    Tage pro Woche mobil arbeiten" and "work remotely up to 2 days a week" share "days", "week" and
    "work")."""
    own = word_keys(text)
    if lang == "english":
        return own
    meanings = " ".join(m for _, read, _ in _read(text, lang) for m, _ in read)
    return own | word_keys(meanings) if meanings else own


@lru_cache(maxsize=4096)
def _evidence(texts: Tuple[Tuple[str, str], ...]) -> Tuple[Tuple[FrozenSet[str], FrozenSet[str], bool, str], ...]:
    """The passages (each ``(text, language)``) read across, a sentence at a time: every English
    stem any of its words means, every word as written (lower case), whether it negates, and the
    sentence."""
    out = []
    for text, lang in texts:
        # each clause a semicolon parts by itself: "... within 3 months after the trip; later reports
        # are not reimbursed" negates its second clause only
        clauses = (clause for whole in split_sentences(text) for clause in _CLAUSES.split(whole) if clause.strip())
        for sentence in clauses:
            stems: set = set()
            written: set = set()
            for surface, meanings, _ in _read(sentence, lang):
                written.add(surface.lower())
                for _, m in meanings:
                    stems |= m
            out.append((frozenset(stems), frozenset(written), _negates(sentence, lang), sentence))
    return tuple(out)


def _negates(text: str, lang: str) -> bool:
    """Whether ``text`` (in ``lang``) negates a clause, as the judge reads a negation in one language:
    "any days not taken by then are forfeited" negates none (the "not" is inside a noun phrase)."""
    return _read_words(text, lang).has_negation


def across(claim: str, claim_language: str, passages: Tuple[Tuple[str, str], ...], suffix: str = "",
           restated: Callable[[str, str], bool] = lambda claim, sentence: False) -> Verdict:
    """The verdict on ``claim`` (in ``claim_language``) against ``passages`` (each ``(text,
    language)``), none in the claim's language: see the module docstring. ``suffix`` ends the
    reason (the numbers found, what was set aside). ``restated``: whether the claim says a
    sentence's limit the other way round (:func:`~groundlab.judges.signals.conflicts.restated_limit`),
    so that a negation on one side only is none."""
    words = _read(claim, claim_language)
    languages = sorted({_NAMES.get(lang, lang) for _, lang in passages})
    head = f"{_NAMES.get(claim_language, claim_language)} claim, {' and '.join(languages)} passages"
    if not words:
        return Verdict("supported", f"{head}: no content words to check{suffix}", 1.0)
    sentences = _evidence(passages)
    stems = frozenset().union(*(st for st, _, _, _ in sentences)) if sentences else frozenset()
    written = frozenset().union(*(w for _, w, _, _ in sentences)) if sentences else frozenset()
    known = found = 0
    missing: List[str] = []
    shown: List[str] = []
    hits: List[Tuple[str, FrozenSet[str]]] = []  # each word found: as written, and the stems it was found by
    for surface, meanings, knows in words:
        meaning = next(((phrase, m) for phrase, m in meanings if 2 * len(m & stems) >= len(m)), None)
        hit = surface.lower() in written or meaning is not None
        known += knows or hit
        if hit:
            found += 1
            hits.append((surface.lower(), meaning[1] if meaning else frozenset()))
            if meaning is not None and surface.lower() not in written and meaning[0] != surface.lower() \
                    and len(shown) < 3:
                shown.append(f"{surface} = {meaning[0]}")
        else:
            missing.append(surface)
    # the sentence holding most of the words found: the one whose negation must match the claim's
    best = max(sentences, key=lambda sen: sum(1 for w, m in hits if w in sen[1] or (m and m & sen[0])),
               default=None)
    negates = best[2] if best is not None else False
    n = len(words)
    carried = f"{known}/{n} content words carry across, {found} found"
    if missing:
        carried += f" (missing: {', '.join(missing[:5])}{', …' if len(missing) > 5 else ''})"
    if shown:
        carried += f"; read as {'; '.join(shown)}"
    if known < CARRY * n:
        reason = f"{head}: only {carried}: too few to {ACROSS}{suffix}"
        return Verdict(None, reason, error=reason)
    claim_negates = _negates(claim, claim_language)
    if found >= SUPPORTED * n:
        if claim_negates != negates:
            if not restated(claim, best[3]):
                reason = f"{head}: {carried}, but a negation stands on one side only: cannot {ACROSS}{suffix}"
                return Verdict(None, reason, error=reason)
            # a limit said the other way round ("Mehr als 5 Tage können nicht übertragen werden" for
            # "Up to 5 unused days can be carried over") says the same
            carried += "; the claim restates the limit the other way round"
        # a rule decides, as the numbers and the negation do: score 1 or 0, never a model's probability
        return Verdict("supported", f"{head}: {carried}{suffix}", 1.0)
    if found < UNSUPPORTED * n:
        return Verdict("unsupported", f"{head}: {carried}{suffix}", 0.0)
    reason = f"{head}: {carried}: too close to {ACROSS}{suffix}"
    return Verdict(None, reason, error=reason)
