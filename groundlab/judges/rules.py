"""The rules judges: free, fast and explainable.

``lexical``
    1. **Numbers and codes.** A number or code in the claim that the evidence lacks makes the
       claim ``contradicted`` when the evidence has numbers of its own, else ``unsupported``.
    2. **Content words.** Coverage is the share of the claim's content words found in the
       evidence; ``supported`` at 0.75 or more, else ``unsupported``.

``rules``
    3. adds **negation**: when coverage passes, the evidence sentence sharing the most content
       words with the claim is found (a question, the user's or a passage's, asserts nothing and
       is passed over); if exactly one of the two is negated, ``contradicted``.

Numbers are compared by value however they are written ("2" and "two", "3%" and "three per
cent", "EUR 50" and "50 euros", "1 March 2026" and "2026-03-01"; see :mod:`groundlab.numbers`);
a number with a unit (percent, currency) is found in evidence that gives the same value with the
same unit or with none, and a bare number in evidence that gives it with any. The words of a
number ("two", "percent", "March") are compared as numbers, not as content words.

Speed comes from analysing each piece of text once: a passage is tokenised the first time it is
seen and its words, numbers and sentences are reused for every claim judged against it, whether
the evidence is all retrieved passages or only the cited ones. Evidence is never re-tokenised.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ..core.bounds import day_counted
from ..core.claims import CJK_CHARS, character_pairs, split_sentences
from ..core.numbers import Mention, distinct, mentions
from ..core.records import Evidence, Verdict, without_passage_text
from ..core.sentences import ScriptPattern
from ..core.weekdays import DAY_WORDS, days_named, weekdays

if TYPE_CHECKING:
    from ..core.arithmetic import Quantity

THRESHOLD = 0.75

#: The stop words behind the sample set's reference figures (tests/test_figures.py).
STOP_WORDS: FrozenSet[str] = frozenset("""
a all also an and are as at be been but by can do does each every for from had has have how if in
into is it its may most no not of on once or our out so than that the their them then there these
they this those to up was we were what when which while who why will with yes you your
""".split())

NEGATIONS: FrozenSet[str] = frozenset({"not", "cannot", "never", "no"})
#: German and Spanish negations (Spanish "no" is above), read as "not" is: "Die Gutschrift verfällt
#: nicht", "keine Gebühr", "nunca". Function words, so no content words either.
OTHER_NEGATIONS: FrozenSet[str] = frozenset({"nicht", "nie", "niemals", "kein", "keine", "keinen", "keinem",
                                             "keiner", "keines", "nunca", "jamás", "ningún", "ninguna", "ninguno"})
#: French negation is "ne ... pas" around the verb ("n'expire pas", "ne paie jamais"): a "ne" or
#: "n'" and, after it, one of these; "ne ... que" (only) negates nothing.
FRENCH_COMPLETERS: FrozenSet[str] = frozenset({"pas", "plus", "jamais", "rien", "aucun", "aucune", "personne",
                                               "guère", "nullement", "point"})
_FOREIGN = OTHER_NEGATIONS | FRENCH_COMPLETERS | {"ne"}

# A letter of any script, then letters, ' or -: "résumé" and "müssen" are words, not pieces.
_WORD = re.compile(r"[^\W\d_][^\W\d_'\-]*(?:['\-][^\W\d_]+)*['\-]?")
# Scripts written without spaces (Chinese, Japanese, Korean): a run of their characters is read as
# its overlapping pairs of characters, so a claim is compared piece by piece, not as one long word.
_CJK = ScriptPattern("[" + CJK_CHARS + "]+")
# "No. 256" numbers something; it negates nothing.
_NUMBER_MARKER = re.compile(r"\bnos?\.\s*(?=\d)")


def content_words(text: str) -> Tuple[Dict[str, str], bool]:
    """The distinct content words of ``text``, in order, each mapped to the word as written,
    and whether ``text`` holds a negation word (not, cannot, never, no, or a ``n't`` form; German
    nicht, nie, kein ...; French ne ... pas, plus, jamais ...; Spanish no, nunca ...)."""
    words: Dict[str, str] = {}
    negated = False
    french_ne = False
    lowered = text.lower().replace("\u2019", "'")
    if "no" in lowered:
        lowered = _NUMBER_MARKER.sub(" ", lowered)
    for surface in _WORD.findall(lowered):
        if not surface.isascii() and _CJK.search(surface):
            for run in _CJK.findall(surface):
                for pair in character_pairs(run):
                    words.setdefault(pair, pair)
            continue
        word = surface.rstrip("'-")
        if word in NEGATIONS or word.endswith("n't"):
            negated = True
        elif word in _FOREIGN:  # one look for every other word
            if word in OTHER_NEGATIONS:
                negated = True
                continue
            if word == "ne":
                french_ne = True
                continue
            if french_ne:  # "ne ... pas", "n'... jamais"
                negated = True
                if word == "pas":
                    continue
        elif "'" in word and word[:2] == "n'" and len(word) > 2:  # "n'expire": ne, then the verb
            french_ne = True
            word, surface = word[2:], surface[2:]
        if word.endswith("'s"):
            word = word[:-2]
        if len(word) < 3 or word in STOP_WORDS:
            continue
        if word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.setdefault(word, surface)
    return words, negated


def numbers(text: str) -> Tuple[str, ...]:
    """The canonical values of the numbers, amounts, dates and codes in ``text``, in order, without
    repeats (see :func:`groundlab.numbers.number_mentions`)."""
    return tuple(dict.fromkeys(m.value for m in mentions(text)))


def _without_numbers(text: str, found: Sequence[Mention]) -> str:
    """``text`` with each number written as a plain 0: their words ("two", "percent", "March")
    are compared as numbers, not as content words, and "No. 256" still reads as a number marker."""
    if not found:
        return text
    parts, pos = [], 0
    for m in found:
        parts.append(text[pos:m.start])
        pos = m.end
    parts.append(text[pos:])
    return " 0 ".join(parts)


class _Numbers:
    """The numbers of some evidence, ready for a claim's numbers to be looked up in:
    ``values`` the canonical values (and the year-month of each full date), ``amounts`` the bare
    amounts behind every number, percentage, amount of money and date (its year and day),
    ``bare`` the amounts written without a unit, ``shown`` each value as first written."""

    __slots__ = ("values", "amounts", "bare", "shown", "_sources", "_parts", "_quantities")

    def __init__(self, found: Sequence[Mention] = (), text: str = "", said: bool = False) -> None:
        # the mentions and their text, read for their quantities only when a claim computes
        # (``said``: the question's, the user's own numbers)
        self._sources: Tuple[Tuple[Sequence[Mention], str, bool], ...] = ((found, text, said),) if found and text else ()
        self._parts: Tuple["_Numbers", ...] = ()
        self._quantities: Optional[List["Quantity"]] = None
        values, amounts, bare, shown = set(), set(), set(), {}
        for m in found:
            values.add(m.value)
            amounts.add(m.amount)
            if m.kind == "number":
                bare.add(m.amount)
            elif m.kind == "date":
                amounts.update(m.parts[:2])
                values.update(m.parts[2:])
            shown.setdefault(m.value, m.surface)
        self.values, self.amounts, self.bare, self.shown = values, amounts, bare, shown

    @classmethod
    def union(cls, many: Sequence["_Numbers"]) -> "_Numbers":
        out = cls()
        out._parts = tuple(many)  # their mentions, read for quantities only when a claim computes
        for n in many:
            out.values |= n.values
            out.amounts |= n.amounts
            out.bare |= n.bare
            for value, surface in n.shown.items():
                out.shown.setdefault(value, surface)
        return out

    def has(self, m: Mention) -> bool:
        """Whether the evidence gives the claim's number ``m``: the same value, or for a bare
        number the same amount with any unit, or for a percentage or an amount of money the same
        amount without a unit. Dates and codes must match exactly."""
        if m.value in self.values:
            return True
        if m.kind == "number":
            return m.amount in self.amounts
        if m.kind in ("percent", "money"):
            return m.amount in self.bare
        return False

    def texts(self) -> List[str]:
        """The texts the numbers were read in (the passages' and the question's that write one)."""
        return [text for _, text, _ in self._sources] + [t for n in self._parts for t in n.texts()]

    def quantities(self) -> List["Quantity"]:
        """The evidence's numbers as arithmetic reads them (:mod:`groundlab.core.arithmetic`)."""
        if self._quantities is None:  # a union's are its parts', each read once and kept
            quantities_of, halves = _arithmetic().quantities_of, _arithmetic().halves
            self._quantities = [q for found, text, said in self._sources for q in quantities_of(found, text, said)] \
                + [q for _, text, said in self._sources if not said for q in halves(text)] \
                + [q for n in self._parts for q in n.quantities()]
        return self._quantities

    def listed(self, limit: int = 6) -> str:
        """The evidence's numbers as written, in order of value."""
        given = [_written(self.shown[v]) for v in sorted(self.shown)]
        return ", ".join(given[:limit]) + (", \u2026" if len(given) > limit else "")


@lru_cache(maxsize=1)
def _arithmetic():
    """:mod:`groundlab.core.arithmetic`, imported when a claim first computes (its patterns are
    compiled then, not when a judge is imported)."""
    from ..core import arithmetic

    return arithmetic


def _written(surface: str) -> str:
    return f"\"{surface}\"" if "," in surface else surface


class _Piece:
    """A question line or a passage, analysed once: its words, numbers and sentences."""

    __slots__ = ("words", "numbers", "sentences")

    def __init__(self, text: str, one_sentence: bool, said: bool = False) -> None:
        found = mentions(text)
        self.numbers = _Numbers(found, text, said)
        if one_sentence:
            words, negated = content_words(_without_numbers(text, found))
            self.words = frozenset(words)
            self.sentences = ((self.words, negated, text),)
            return
        sentences = []
        for sentence in split_sentences(text):
            sw, neg = content_words(_without_numbers(sentence, mentions(sentence)))
            sentences.append((frozenset(sw), neg, sentence))
        self.sentences = tuple(sentences)
        # Words never straddle sentences: the passage's words are its sentences' words, read once.
        self.words = frozenset().union(*(s[0] for s in sentences))


class _Context:
    """Evidence (a question and some passages) put together from its analysed pieces."""

    __slots__ = ("words", "numbers", "sentences", "question", "texts")

    def __init__(self, pieces: Sequence[_Piece], question: str = "", texts: Tuple[str, ...] = ()) -> None:
        self.question, self.texts = question, texts
        if len(pieces) == 1:
            self.words, self.numbers = pieces[0].words, pieces[0].numbers
        else:
            self.words = frozenset().union(*(p.words for p in pieces))
            self.numbers = _Numbers.union([p.numbers for p in pieces])
        self.sentences = tuple(s for p in pieces for s in p.sentences)


_NEGATION_WORD = re.compile(r"\b(?:not|cannot|never|no|nicht|nie|niemals|kein(?:e[nmrs]?)?|nunca|jamás|ningun[oa]|"
                            r"ningún)\b|\b\w+n['\u2019]t\b|\b(?:ne\s+|n['\u2019])\w+(?:\s+\w+)?\s+(?:pas|plus|jamais|"
                            r"rien|aucune?|personne|guère|nullement|point)\b", re.IGNORECASE)


class _ClaimText:
    __slots__ = ("words", "wordset", "numbers", "negated", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        found = mentions(text)
        self.words, self.negated = content_words(_without_numbers(text, found))
        self.wordset = frozenset(self.words)
        self.numbers = distinct(found)


# Bounded caches: sample-sized sets fit whole; a log of a million distinct passages does not
# grow memory without limit.
@lru_cache(maxsize=16384)
def _passage_piece(text: str) -> _Piece:
    return _Piece(text, one_sentence=False)


@lru_cache(maxsize=16384)
def _question_piece(question: str) -> _Piece:
    # The evidence starts "Question: <question>", and that line is one sentence.
    return _Piece("Question: " + question, one_sentence=True, said=True)


@lru_cache(maxsize=16384)
def _context(question: str, texts: Tuple[str, ...]) -> _Context:
    return _Context([_question_piece(question)] + [_passage_piece(t) for t in texts], question, texts)


@lru_cache(maxsize=16384)
def _claim(text: str) -> _ClaimText:
    return _ClaimText(text)


@lru_cache(maxsize=4096)
def _supported(covered: int, n: int, found: Tuple[str, ...]) -> Verdict:
    # Verdicts are immutable and most supported ones read alike ("7/7 content words ..."):
    # one shared object per wording keeps a large run's memory and time down.
    coverage = covered / n
    reason = f"{covered}/{n} content words in the evidence ({round(100 * coverage)}%)"
    if found:
        reason += f"; numbers {', '.join(found)} found"
    return Verdict("supported", reason, coverage)


@lru_cache(maxsize=65536)
def _compared(claim: "_ClaimText", sentence: Tuple, covered: int, n: int) -> Verdict:
    """A supported verdict with the sentence it was compared with and the claim's words in it:
    one object per claim and sentence met again (a repeated answer, the cited passages being all
    the retrieved ones), as :func:`_supported` keeps one per wording."""
    found = _supported(covered, n, tuple(_written(m.surface) for m in claim.numbers))
    matched = tuple(surface for word, surface in claim.words.items() if word in sentence[0])
    return Verdict(found.label, found.reason, found.score, evidence=sentence[2], matched=matched)


def number_verdict(claim_numbers: Sequence[Mention], have: _Numbers, suffix: str = "") -> Optional[Verdict]:
    """Step 1: the verdict on a claim with a number the evidence does not give (``None`` when the
    evidence gives them all); ``suffix`` ends the reason."""
    return check_numbers(claim_numbers, have, suffix)[0]


def check_numbers(claim_numbers: Sequence[Mention], have: _Numbers, suffix: str = "", text: Optional[str] = None,
                  answer: Optional[str] = None, by_kind: bool = False, ids: Iterable[str] = (), question: str = ""
                  ) -> Tuple[Optional[Verdict], Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]:
    """Step 1 with computed values: the verdict on a claim with a number the evidence neither gives
    nor lets a reader compute (``None`` when it does), and the computations that back the claim's
    other numbers ("150 EUR = 500 km × 0.30 EUR"). ``text``: the claim the numbers were read in,
    ``None`` for no arithmetic (:mod:`groundlab.core.arithmetic`). A computation the claim writes
    out and gets wrong is ``contradicted``, the right value in the reason. ``answer``: the answer the
    claim is from, whose list a total the claim states may add up. Third: what of the claim's text
    those computations account for (:attr:`groundlab.core.arithmetic.Computed.written`); fourth, the
    computations of values with a unit (:attr:`~groundlab.core.arithmetic.Computed.measured`). ``by_kind``:
    a claim whose missing numbers are all percentages where the evidence gives none, or codes of a
    family it has none of ("P2" where no priority code is written), is ``unsupported``, not
    ``contradicted``: it adds a fact the passages do not state rather than giving another value for
    one they do (the SPEC's rules judge does not tell them apart). ``question``: the user's, whose span
    of weekdays a count of days may be. The passages' ``ids`` count as
    codes they give: "KB-6" beside a passage "KB-5" names another passage, a wrong reference.
    Amounts, dates, times of day and counts are left out: an answer computes them from the user's
    own situation ("for an invoice of 10 000 EUR", "a meeting on Monday at 10:00"), and one
    computed wrong is a contradiction."""
    missing = [m for m in claim_numbers if not have.has(m)]
    if not missing:
        return None, (), (), ()
    derived: Tuple[str, ...] = ()
    written: Tuple[str, ...] = ()
    measured: Tuple[str, ...] = ()
    if text is not None and any(m.amount == "5" and m.kind == "number" for m in missing) and \
            _FIVE_DAY_WEEK.search(text) and any(_FULL_TIME.search(t) for t in have.texts()):
        # "30 × 4 / 5 = 24" under "full-time employees get 30 days ... part-time pro rata": the 5 of a
        # full-time week, which a reader knows though the passage does not write it
        missing = [m for m in missing if not (m.amount == "5" and m.kind == "number")]
        derived = ("5 days a week = a full-time week",)
        if not missing:
            return None, derived, (), ()
    if text is not None and ("12" in text or "52" in text) and _A_YEAR.search(text) and \
            any(m.kind == "number" and m.amount in ("12", "52") for m in missing):
        # "12 × 50 EUR" for a year of a passage's "50 EUR per month": the months of a year
        for amount, per, note in _YEAR_FACTORS:
            if any(m.kind == "number" and m.amount == amount for m in missing) and \
                    any(q.per == per for q in have.quantities()):
                missing = [m for m in missing if not (m.kind == "number" and m.amount == amount)]
                derived += (note,)
        if not missing:
            return None, derived, (), ()
    if text is not None and ("20" in text or "19" in text) and any(m.kind == "date" and m.value[:1] != "-"
                                                                   for m in missing):
        # "31. März 2027" for "31. März des Folgejahres", of the 2026 the claim or the question names
        following = [(m, _following_year(m, have.texts(), f"{text} {question}")) for m in missing]
        derived += tuple(note for _, note in following if note)
        missing = [m for m, note in following if not note]
        if not missing:
            return None, derived, (), ()
    if text is not None and (have._sources or have._parts):
        # every number the claim writes, a value it repeats too ("Bei 4 Tagen: 30 × 4 ÷ 5 = 24"): the
        # expression it writes out is read whole
        computed = _arithmetic().compute_mentions(text, missing, mentions(text), have.quantities, answer, question)
        if computed.wrong is not None:
            return computed_wrong(computed.wrong, suffix), (), (), ()
        if computed.beyond is not None:
            return Verdict("contradicted", f"bound passed: {computed.beyond}{suffix}", 0.0), (), (), ()
        if computed.backed:
            derived, written, measured = derived + computed.derived, computed.written, computed.measured
            missing = [m for m in missing if m.surface not in computed.backed]
            if not missing:
                return None, derived, written, measured
        # "from the 4th day" where a passage says "more than 3 calendar days": one rule, counted otherwise
        counted = day_counted(text, missing, have.quantities, have.texts)
        if counted:
            derived += tuple(note for _, note in counted)
            missing = [m for m in missing if m.surface not in {surface for surface, _ in counted}]
            if not missing:
                return None, derived, written, measured
    listed = ", ".join(_written(m.surface) for m in missing)
    if have.shown and by_kind and all(number_kind(m.value)[0] in _NEW_KINDS for m in missing):
        new = [number_kind(m.value) for m in missing]
        if {number_kind(value) for value in have.shown}.isdisjoint(new) and \
                {number_kind(i.lower()) for i in ids}.isdisjoint(new):
            return Verdict("unsupported", f"number {listed} is not in the evidence, which gives no "
                           f"{' and no '.join(dict.fromkeys(_KIND_WORDS[k[0]](k[1]) for k in new))} "
                           f"(it gives {have.listed()}){suffix}", 0.0), derived, written, measured
    if have.shown:
        return Verdict("contradicted", f"number {listed} is not in the evidence, which gives {have.listed()}{suffix}",
                       0.0), derived, written, measured
    return Verdict("unsupported", f"number {listed} is not in the evidence, which gives no numbers{suffix}", 0.0), \
        derived, written, measured


#: A claim's full-time week of five days: "÷ 5", "/ 5", "5 days a week", "5-Tage-Woche", "Fünftagewoche".
_FIVE_DAY_WEEK = re.compile(r"[/÷:]\s*5\b|\b5[\s-]*(?:days?|tage?|jours?)[\s-]*(?:a|per|pro|je|par)?[\s-]*"
                            r"(?:week|woche|semaine)", re.IGNORECASE)
#: Passages on full-time work, whose week a reader knows to be five working days.
_FULL_TIME = re.compile(r"\bfull[\s-]time\b|\bvollzeit|\btemps\s+plein\b|\btiempo\s+completo\b", re.IGNORECASE)
#: The months and weeks of a year, a factor a reader knows, where a claim counts a rate of the
#: passages' per month or per week by the year ("600 EUR per year (12 × 50 EUR)"): ``(the number,
#: the passages' per, the note)``.
_YEAR_FACTORS = (("12", "month", "12 months = a year"), ("52", "week", "52 weeks = a year"))
_A_YEAR = re.compile(r"\b(?:years?|yearly|annual\w*|per annum|jahr\w*|jährlich\w*|ans?|années?|annuel\w*)\b",
                     re.IGNORECASE)
#: A date of the year after the one a rule is told of: "31. März des Folgejahres", "31 March of the following year".
_FOLLOWING_YEAR = re.compile(r"\s+(?:des\s+Folgejahr(?:e?s)?|des\s+folgenden\s+Jahres|im\s+Folgejahr|of\s+the\s+(?:following|"
                             r"next)\s+year|(?:in\s+)?the\s+(?:following|next)\s+year|de\s+l'année\s+suivante)\b",
                             re.IGNORECASE)


def _following_year(m: Mention, texts: Sequence[str], said: str) -> str:
    """The note that backs the claim's date ``m`` with a year where a passage gives its day of the
    year after the year told of, and the claim or the question (``said``) names the year before
    ("Resturlaub aus 2026 ... bis zum 31. März 2027"); "" otherwise."""
    if m.kind != "date" or not m.value[:4].isdigit():
        return ""
    before = str(int(m.value[:4]) - 1)
    if not re.search(rf"(?<!\d){before}(?!\d)", said):
        return ""
    for text in texts:
        for p in mentions(text):
            following = _FOLLOWING_YEAR.match(text, p.end) if p.kind == "date" and p.value == "-" + m.value[4:] else None
            if following is not None:
                return f"{m.surface} = {p.surface}{following.group()} of {before}"
    return ""


_CODE_FAMILY = re.compile(r"[a-z]+")
_DATE_VALUE = re.compile(r"(?:\d{4}|-)-\d\d")
#: The kinds of number a claim may add where the evidence has none of that kind (see
#: :func:`check_numbers`), and how a reason names them.
_NEW_KINDS = ("percent", "code")
_KIND_WORDS = {"percent": lambda _: "percentage", "code": lambda family: f"{family.upper()} code"}


@lru_cache(maxsize=4096)
def number_kind(value: str) -> Tuple[str, str]:
    """The kind of number a canonical value is, with its family where one tells two apart: a
    percentage, an amount of money (its currency), a code (its letters before the first digit), a
    date, a time of day, or ("number", "") for a plain number."""
    if value.endswith("%"):
        return "percent", ""
    if value.startswith("T") and value[1:2].isdigit():
        return "time", ""
    if _DATE_VALUE.match(value):
        return "date", ""
    head, _, rest = value.partition(" ")
    if rest and head.isupper():
        return "money", head
    family = _CODE_FAMILY.match(value)
    if family:
        return "code", family.group()
    return "number", ""


def computed_wrong(wrong: Tuple[str, str], suffix: str = "") -> Verdict:
    """The verdict on a claim whose number or day is computed wrong: ``wrong`` is (what the claim
    says, the computation that gives the right value), as :mod:`groundlab.core.arithmetic` and
    :mod:`groundlab.core.weekdays` tell it."""
    said, right = wrong
    return Verdict("contradicted", f"computed wrong: the claim says {_written(said)} where {right}{suffix}", 0.0)


def _quote(sentence: str, limit: int = 90) -> str:
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "\u2026"


class LexicalJudge:
    """Numbers and content-word coverage (steps 1, 2 and 4)."""

    name = "lexical"
    version = "1"
    negation = False
    #: Whether a number the evidence lets a reader compute backs the claim (the rules judge's
    #: step 1); the lexical judge compares numbers as written only.
    computes = False
    #: Pure Python on local data: a large run may be split over processes.
    cpu_bound = True

    def __init__(self, threshold: float = THRESHOLD) -> None:
        if not 0 < threshold <= 1:
            raise ValueError("threshold must be in (0, 1]")
        self.threshold = threshold

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        bare = without_passage_text(pairs, self.judge_batch)  # the question alone backs nothing
        if bare is not None:
            return bare
        out = []
        last, context = None, None
        for text, evidence in pairs:
            if evidence is not last:  # the claims of one case share one Evidence
                last = evidence
                context = _context(evidence.question, tuple([p.text for p in evidence.passages]))
            claim = _claim(text)
            # a total may add up the answer's list
            answer = evidence.answer if self.computes and claim.numbers and evidence.answer and (
                "\n" in evidence.answer and _arithmetic().may_total(text, evidence.answer)
                or _arithmetic().says_earlier(text)) else None
            out.append(self._judge(claim, context, answer))
        return out

    def judge(self, text: str, evidence: Evidence) -> Verdict:
        """The verdict on one claim."""
        return self.judge_batch([(text, evidence)])[0]

    def _judge(self, claim: _ClaimText, context: _Context, answer: Optional[str] = None) -> Verdict:
        days = None
        if self.computes and not claim.wordset.isdisjoint(DAY_WORDS):
            # a day of the week counted from one the question names (the user's) by the claim's period;
            # one the passages write is found, not computed
            days = weekdays(claim.text, days_named((context.question,)), days_named(context.texts))
        if days is not None and days.wrong is not None:
            return computed_wrong(days.wrong)
        derived: Tuple[str, ...] = ()
        if claim.numbers:
            flagged, derived, _, _ = check_numbers(claim.numbers, context.numbers,
                                                text=claim.text if self.computes else None, answer=answer)
            if flagged is not None:
                return flagged
        if days is not None:
            derived += days.derived
        verdict = self._words(claim, context)
        if derived:
            return replace(verdict, reason=f"{verdict.reason}; computed: {'; '.join(derived)}")
        return verdict

    def _words(self, claim: _ClaimText, context: _Context) -> Verdict:

        words = claim.words
        if not words:
            return Verdict("supported", "no content words to check", 1.0)
        have = context.words
        missing_words = [w for w in words if w not in have]
        n = len(words)
        coverage = 1 - len(missing_words) / n
        if coverage < self.threshold:
            return Verdict("unsupported", f"{n - len(missing_words)}/{n} content words in the evidence "
                           f"({round(100 * coverage)}%); missing: "
                           f"{', '.join(words[w] for w in missing_words)}", coverage)

        if self.negation:
            best, best_shared = None, -1
            wordset = claim.wordset
            for sentence in context.sentences:
                if sentence[2].rstrip()[-1:] in ("?", "\uff1f"):
                    continue  # a question (the user's, or one a passage asks) asserts nothing to flip
                shared = len(wordset & sentence[0])
                if shared > best_shared:
                    best, best_shared = sentence, shared
            if best is not None:
                if best[1] != claim.negated:
                    # the sentence it compared with, the claim's words in it, and the negation
                    matched = tuple(surface for word, surface in words.items() if word in best[0])
                    side = "the claim is negated but" if claim.negated else "the evidence is negated but"
                    other = "the evidence sentence is not" if claim.negated else "the claim is not"
                    clash = tuple(dict.fromkeys(m.group() for m in _NEGATION_WORD.finditer(best[2] + " " + claim.text)))
                    return Verdict("contradicted", f"negation flip: {side} {other} "
                                   f"(\"{_quote(best[2])}\"); {n - len(missing_words)}/{n} content words "
                                   "in the evidence", coverage, evidence=best[2], matched=matched, clashed=clash)
                return _compared(claim, best, n - len(missing_words), n)

        return _supported(n - len(missing_words), n, tuple(_written(m.surface) for m in claim.numbers))


class RulesJudge(LexicalJudge):
    """Lexical judge plus the negation step (step 3): the default judge."""

    name = "rules"
    version = "2"
    negation = True
    computes = True
