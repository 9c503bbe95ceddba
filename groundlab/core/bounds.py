"""An example a claim takes, held against a bound of the passages.

Enterprise answers apply a rule to the user's case: "A file from 8 months ago can still be restored
from a monthly backup" (monthly backups are kept for 12 months), "For 2 days of sick leave you need
no doctor's note" (up to 3 calendar days need none), "For a trip of 10 days you need no approval"
(trips longer than 14 days do). The example's number is the user's, not a passage's: it is no number the evidence
must give, and the claim is right when it says what the passage's rule says on the example's side of
the bound.

A bound is a number of the passages with the words that make it one: "up to", "within", "at most",
"less than", "bis zu", "innerhalb", "jusqu'à" (the rule holds up to it), "at least", "from", "more
than", "longer than", "older than", "ab", "über", "au moins" (from it on), and a period things are
kept for ("kept for 12 months", "werden 30 Tage aufbewahrt": up to it). The example is compared with
the bound of its unit (a period converts to another unit of time) in the sentence that shares most
of the claim's words; the rule applies on one side. A claim that says what the sentence says
(both negated or neither) is right where the rule applies; one that says the opposite is right where
it does not:

>>> from groundlab.core.numbers import mentions
>>> from groundlab.core.quantities import quantities
>>> passage = "Sick leave of up to 3 calendar days needs no doctor's note."
>>> evidence = quantities(mentions(passage), passage, False)
>>> def held(claim):
...     q = quantities(mentions(claim), claim, False)[0]
...     return against_bound(q, claim, evidence) if is_example(claim, q) else None
>>> held("For 2 days of sick leave you need no doctor's note.")
(True, 'example 2 days against "up to 3 calendar days": the rule applies')
>>> held("For 5 days of sick leave you need no doctor's note.")[0]
False
>>> held("For 5 days of sick leave you need a doctor's note.")
(True, 'example 5 days against "up to 3 calendar days": the rule does not apply, and the claim says the opposite')

Only a number the claim marks as an example counts ("ago", "vor", "il y a", "e.g.", "if", a sentence
opening "For"/"Bei"/"Pour", "bei", "for a purchase of", "on a salary of", "a hotel at"): "Monthly
backups are kept for 8 months" states another period, and stays a number the evidence does not give.
Where two sentences read differently, or no bound of the unit is found, nothing is decided here.

An amount a claim computes is held against the passages' caps and floors too (:func:`past_bound`):
"500 km × 0.30 EUR" is 150 EUR, but the passage caps mileage at 130 EUR.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, FrozenSet, List, Optional, Sequence, Tuple

from .numbers import Mention
from .quantities import APPROX, NOT_ATTRIBUTES, Quantity, _per_at, attributes_end, quantities_of
from .sentences import LazyPattern, split_sentences
from .steps import _PERIODS, _money, _Step

__all__ = ["CONDITION", "IN_DAYS", "OPPOSITE", "against_bound", "asked_as_bound", "bound_elsewhere", "day_counted",
           "example_words", "in_another_unit", "is_example", "ordinal_day", "ordinal_elsewhere", "ordinals",
           "past_bound", "period_phrases", "side_across", "word_keys"]

#: How a note ends where the claim says the opposite of the passage's rule, rightly: the judges read
#: no negation flip in it (the comparison has read the negation).
OPPOSITE = "the rule does not apply, and the claim says the opposite"

# ------------------------------------------------------------------ an example the claim takes

_WORD = r"[^\W\d_]+"
#: Words before a number that mark it as the user's case.
_EXAMPLE_BEFORE = re.compile(
    r"(?:\b(?:e\.\s?g\.|for example|for instance|say|z\.\s?b\.|zum beispiel|beispielsweise|par exemple|p\.\s?ex\.|"
    r"il y a|vor|bei(?:\s+" + _WORD + r"){0,3}?(?:\s+(?:von|über|mit))?)"
    r"|\b(?:for|on|für|pour|sur|bei|with)\s+(?:a|an|one|ein|eine|einen|einer|einem|un|une)\s+" + _WORD + r"(?:\s+" + _WORD +
    r")?\s+(?:of|von|de|d'|über|mit)"
    r"|\b(?:a|an|ein|eine|einen|einer|einem|un|une)(?:\s+(?!bis\b)" + _WORD + r"){1,2}\s+(?:at|costing|lasting|zu|à)"
    r"|^\W*(?:for|für|pour|with|mit|at|après)(?:\s+" + _WORD + r")?)\s*$",
    re.IGNORECASE)
#: A conditional clause the claim's number stands in ("if the lock started at 9:10, ..."): an
#: example it takes.
CONDITION = re.compile(r"\b(?:if|when|whenever|assuming|suppose|wenn|falls|sofern|si|lorsque|quand)\b[^,;.:!?]*$",
                       re.IGNORECASE)
#: "8 months ago", "3 weeks old".
_EXAMPLE_AFTER = re.compile(r"\s*-?\s*" + _WORD + r"\s+(?:ago|old|alt|zurück)\b", re.IGNORECASE)


def is_example(text: str, q: Quantity) -> bool:
    """Whether the claim's number ``q`` is marked as the user's case (see the module's docstring)."""
    return example_words(text, q) is not None


def example_words(text: str, q: Quantity) -> Optional[str]:
    """The words of the claim that give the example ``q`` ("8 months ago", "vor 8 Monaten"):
    the user's case, no words a passage must write; ``None`` where ``q`` is no example."""
    if q.unit == "date" or q.unit == "time" or q.start < 0:
        return None
    before = text[max(0, q.start - 60):q.start]
    end = q.start + len(q.surface)
    after = _EXAMPLE_AFTER.match(text, end)
    if after is not None:
        return text[q.start:after.end()]
    marked = _EXAMPLE_BEFORE.search(before)
    if marked is not None and marked.group().strip().lower() in _AGO:
        return f"{marked.group().strip()} {q.shown}"
    if marked or CONDITION.search(before):
        return q.shown
    return None


_AGO = frozenset(("vor", "il y a"))


# ------------------------------------------------------------------ a bound of the passages

#: The verbs whose particle "over" is ("carry over 5 days"): no bound "over 5 days".
CARRY_VERBS = ("carry", "carries", "carried", "carrying")

#: Words before a passage's number, and on which side of it the rule holds: "max" up to it, "below"
#: under it, "min" from it on, "above" past it.
_SIDES = (
    ("max", r"up to|at most|a maximum of|maximum of|maximum|max\.?|no more than|not more than|not exceeding|"
            r"within|limited to|capped at|bis zu|bis|höchstens|maximal|innerhalb(?: von)?|binnen|längstens|"
            r"jusqu'à|au maximum|au plus|dans un délai de|dans les"),
    ("below", r"less than|fewer than|under|below|younger than|newer than|shorter than|weniger als|unter|unterhalb|"
              r"kürzer als|jünger als|moins de|en dessous de"),
    ("min", r"at least|a minimum of|minimum of|minimum|min\.?|no less than|not less than|from the|from|starting|"
            r"mindestens|ab dem|ab|vom|au moins|au minimum|à partir du|à partir de|dès le|dès"),
    ("above", r"more than|over" + "".join(f"(?<!{verb} over)" for verb in CARRY_VERBS) + r"|above|exceeding|"
              r"longer than|older than|beyond|after|mehr als|über|länger als|"
              r"älter als|nach|plus de|au-delà de|après|supérieure? à"),
)
_SIDE_BEFORE = re.compile(r"\b(?:" + "|".join(f"(?P<{side}>{words})" for side, words in _SIDES) + r")\s*(?:the\s+)?$",
                          re.IGNORECASE)
#: "5 days or more", "3 Tage oder weniger"
_SIDE_AFTER = re.compile(r"\s*(?:" + _WORD + r"\s+)?(?:(?P<min>or more|or longer|oder mehr|oder länger|ou plus)|"
                         r"(?P<max>or less|or fewer|or shorter|oder weniger|ou moins))\b", re.IGNORECASE)
#: A period things are kept for: up to it, they are there.
_KEPT = re.compile(r"\b(?:kept|retained|stored|held|archived|available|aufbewahrt|gespeichert|vorgehalten|"
                   r"archiviert|verfügbar|conservée?s?|archivée?s?|disponibles?)\b", re.IGNORECASE)
#: A sentence that says what holds past its bound too ("up to 50 EUR per ride; higher amounts need a
#: written reason", "otherwise they are forfeited"): two rules, each with its own polarity.
_OTHER_SIDE = re.compile(r"\b(?:higher|larger|longer|more|above that|beyond that|over that|otherwise|else|"
                         r"höhere\w*|größere\w*|längere\w*|darüber|sonst|andernfalls|ansonsten|sinon|au-delà|"
                         r"plus élevée?s?|supérieure?s?)\b", re.IGNORECASE)
#: Each unit of time in days, to compare two periods (a working day counting as a day).
IN_DAYS = {"day": 1.0, "workday": 1.0, "week": 7.0, "month": 365.25 / 12, "year": 365.25, "hour": 1 / 24,
           "minute": 1 / 1440}
#: A negation, the bound words that hold one read out first ("no more than", "not later than").
_BOUND_NEGATED = re.compile(r"\b(?:no|not)\s+(?:more|less|fewer|later|earlier|longer|shorter)\s+than\b|"
                            r"\bnot\s+exceeding\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|none|nicht|nie|niemals|kein|keine|keinen|keiner|keinem|keines|"
                       r"ne|n'|pas|jamais|aucun|aucune)\b|n['\u2019]t\b", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W\d_]{4,}")


def _unit_of(q: Quantity) -> str:
    """A quantity as written without the words between its number and its unit ("40 hours" of "40
    overtime hours"): those are words on its matter, which a sentence on the same shares."""
    between = attributes_end(q.shown, len(q.surface))
    return q.shown if between < 0 else q.surface + q.shown[between:]


def _side(group: str, surface: str, at: Optional[int] = None) -> str:
    """On which side of the number written ``surface`` in the sentence ``group`` its rule holds,
    "" where no word makes it a bound. ``at``: where it stands, when known (else where ``surface``
    is first written)."""
    if at is None:
        at = group.find(surface)
    if at < 0:
        return ""
    found = _SIDE_BEFORE.search(group[max(0, at - 30):at])
    if found is not None:
        return found.lastgroup or ""
    after = _SIDE_AFTER.match(group[at + len(surface):at + len(surface) + 30])
    if after is not None:
        return after.lastgroup or ""
    return "max" if _KEPT.search(group) else ""


def _where(q: Quantity) -> int:
    """Where a quantity stands in its sentence: where it is written with its unit, as its bare number
    may stand earlier ("P3 (medium): ... resolution within 3 business days")."""
    at = q.group.find(q.shown)
    return at if at >= 0 else q.group.find(q.surface)


def _past_bound_words(q: Quantity) -> int:
    """Where a passage's quantity stands in its sentence, past the words after it that make it a
    bound ("6 hours or more": their "more" says no other rule)."""
    at = _where(q)
    after = _SIDE_AFTER.match(q.group, at + len(q.shown)) if at >= 0 else None
    return after.end() if after is not None else at


def _side_of(q: Quantity) -> str:
    """:func:`_side` of a quantity in its sentence, read where it stands (:func:`_where`)."""
    return _side(q.group, q.shown, _where(q)) if q.shown in q.group else _side(q.group, q.surface)


def _bound_words(text: str, start: int) -> Optional["re.Match[str]"]:
    """A bound's words right before the number that starts at ``start`` ("up to", "at least",
    "jusqu'à"), or ``None``."""
    return _SIDE_BEFORE.search(text, max(0, start - 30), start)


#: What reads a text's words for :func:`word_keys` matching: a claim's and a passage sentence's
#: (another language's may add the English its words mean).
Keys = Callable[[str], FrozenSet[str]]


def _passage_bound(text: str, q: Quantity, read: Sequence[Quantity], keys_of: Tuple[Keys, Keys]
                   ) -> Optional[Quantity]:
    """The passages' bound on the side the claim ``text`` states its quantity ``q``, of its unit and
    per, with another number, in the sentence that shares most of the claim's words, two or more
    ("jusqu'à 2 jours par semaine" for "jusqu'à 3 jours par semaine"); ``None`` where there is none.
    ``keys_of``: what reads the claim's words and a passage sentence's (:func:`word_keys`, or for a
    claim in another language than its passages, that and the English its words mean)."""
    side = _side(text, q.surface, q.start)
    if not side:
        return None
    per = q.per or _per_later(text, q)
    alike = [e for e in read if not e.said and e.per == per and _other_bound(e, q) and _side_of(e) == side]
    if not alike:
        return None
    claim_keys, sentence_keys = keys_of
    keys = claim_keys(text) - claim_keys(_unit_of(q))
    best = max(alike, key=lambda e: len(keys & sentence_keys(e.group)))
    return best if len(keys & sentence_keys(best.group)) >= 2 else None


#: A word after a quantity, before what it is counted per: "30 working days abroad per year".
_WORD_BETWEEN = re.compile(r"\s+[^\W\d_]+")


def _per_later(text: str, q: Quantity) -> str:
    """What a claim's quantity is counted per where one or two words stand between ("30 working days
    abroad per year", "50 EUR extra a month"), or ""."""
    end = q.start + len(q.shown)
    if not text.startswith(q.shown, q.start):
        return ""
    for _ in range(2):
        word = _WORD_BETWEEN.match(text, end)
        if word is None:
            return ""
        end = word.end()
        per = _per_at(text, end)
        if per:
            return per
    return ""


#: A period in days where two bounds in different units are compared: a working day as a fifth of a
#: week, so "10 working days" and "2 weeks" are one bound.
_BOUND_DAYS = dict(IN_DAYS, workday=7 / 5)


#: Units of time a rule may be stated in either of: "3 days" or "2 weeks" in advance, "48 hours" or "2 days"
#: (not working days and hours: "2 working days" is no "48 hours", nor clearly another bound).
_NEIGHBOURS = frozenset(frozenset(pair) for pair in (
    ("day", "week"), ("workday", "week"), ("week", "month"), ("month", "year"), ("day", "month"), ("hour", "day"),
    ("minute", "hour")))


def _other_bound(e: Quantity, q: Quantity) -> bool:
    """Whether the passages' ``e`` is a bound of ``q``'s kind with another value: the same unit and
    another number, or a period in another unit that is not about the same length (more than a
    quarter apart: "2 weeks" against "3 days", not "1 month" against "30 days")."""
    if e.unit == q.unit:
        return e.value != q.value
    if frozenset((e.unit, q.unit)) not in _NEIGHBOURS or not e.value or not q.value:
        return False  # "after 11 years" and "after 120 minutes" are bounds of two matters
    ratio = (e.value * _BOUND_DAYS[e.unit]) / (q.value * _BOUND_DAYS[q.unit])
    return not 0.8 <= ratio <= 1.25


def _same_length(e: Quantity, q: Quantity) -> bool:
    """Whether two periods in units of time a rule may be stated in either of are the same length
    ("6 weeks" and "30 working days")."""
    if e.unit == q.unit or frozenset((e.unit, q.unit)) not in _NEIGHBOURS or e.per not in ("", q.per):
        return False
    return abs(e.value * _BOUND_DAYS[e.unit] - q.value * _BOUND_DAYS[q.unit]) < 1e-6


def _per_of(e: Quantity, read: Sequence[Quantity]) -> str:
    """The period a passage's quantity is counted per, or where its clause leaves it out, that of the
    sentence's first quantity of its unit: "bis 120 EUR pro Nacht, in München bis 150 EUR"."""
    if e.per:
        return e.per
    return next((o.per for o in read if o.group == e.group and o.unit == e.unit and o.per and o.start < e.start), "")


def _negated(text: str) -> bool:
    return _NEGATION.search(_BOUND_NEGATED.sub(" ", text)) is not None


@lru_cache(maxsize=16384)
def word_keys(text: str) -> FrozenSet[str]:
    """A text's words of four letters or more, lower case, without a plural's s and cut to six
    letters, as the judges' stems: "monatlichen" and "monatliche", "Sicherung" and "Sicherungen",
    "trip" and "trips" meet, and "carried", "carries" and "carry". What tells whether two sentences
    are on the same matter."""
    return frozenset((w[:-1] if w.endswith("s") and len(w) > 4 else w)[:6]
                     for w in _CONTENT.findall(_IED.sub("y", text.lower())))


#: A verb's or noun's ending after its y ("carried", "carries", "policies"), read as the y.
_IED = re.compile(r"(?<=[^\W\d_]{3})ie[sd]\b")


def _in_unit(q: Quantity, unit: str) -> Optional[float]:
    if q.unit == unit:
        return q.value
    if q.unit in _PERIODS and unit in _PERIODS:
        return q.value * IN_DAYS[q.unit] / IN_DAYS[unit]
    return None


def _applies(value: float, side: str, bound: float) -> bool:
    return {"max": value <= bound + 1e-9, "below": value < bound - 1e-9, "min": value >= bound - 1e-9,
            "above": value > bound + 1e-9}[side]


def against_bound(example: Quantity, text: str, evidence: Sequence[Quantity]) -> Optional[Tuple[bool, str]]:
    """Whether the claim ``text`` is right about its ``example`` (:func:`is_example`) by the bound of
    the passages' sentence that shares most of its words, and the note that says so; ``None`` where
    no bound of the example's unit is found, or the sentences that share most of its words read
    differently; a sentence sharing fewer than two words with the claim only backs it (where it shares
    none, by a bound of the example's own unit)."""
    claim_words = word_keys(text) - word_keys(_unit_of(example))  # the unit is no word they share
    claim_negated = _negated(text)
    best, read, passed = 0, set(), 0
    alike = [q for q in evidence if not q.said and q.per == example.per and q.unit == example.unit]
    exact = bool(alike)
    if not alike and example.unit in _PERIODS:  # "6 weeks ago" against "kept for 3 months"
        alike = [q for q in evidence if not q.said and q.per == example.per and q.unit in _PERIODS]
    for q in alike:
        side = _side_of(q)
        shared = len(claim_words & (word_keys(q.group) - word_keys(_unit_of(q))))
        if not side or q.group.rstrip().endswith((";", ":")) or \
                _OTHER_SIDE.search(q.group, _past_bound_words(q)) is not None:
            passed = max(passed, shared)  # (a clause on the claim's matter read past: no other decides)
            continue  # no bound, or one whose sentence also says what holds past it: two rules
        if shared < best:
            continue
        value = _in_unit(example, q.unit)
        if value is None:
            continue
        applies = _applies(value, side, q.value)
        same = claim_negated == _negated(q.group)
        words = _bound_words(q.group, _where(q))
        phrase = f"{words.group().strip()} {q.shown}" if words is not None else \
            q.group[_where(q):max(_past_bound_words(q), _where(q) + len(q.shown))].strip()  # "6 hours or more"
        if shared > best:
            best, read = shared, set()
        read.add((applies == same, applies, phrase))
    if not read or len({r[0] for r in read}) > 1 or passed > best:
        return None
    if (best == 0 and not exact) or (best < 2 and not next(iter(read))[0]):
        # a sentence that shares no word with the claim (one in another language, one on another
        # matter) may back an example by a bound of its own unit; one that shares fewer than two is
        # no rule the claim restates ("2nd class for a 3-hour train ride" against "1st class only for
        # trips over 4 hours"), and contradicts nothing
        return None
    right, applies, phrase = sorted(read)[0]
    if right:
        what = "the rule applies" if applies else OPPOSITE
    else:
        what = ("the rule applies there, but the claim says the opposite" if applies else
                "the rule does not apply there, but the claim says it does")
    return right, f"example {example.shown} against \"{phrase}\": {what}"


def asked_case(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]]
               ) -> Optional[Tuple[bool, str]]:
    """:func:`against_bound` for the user's period, which the question gives and no passage writes
    (the claim's mentions ``found``), where the claim ``text`` applies a passage's rule to it: wrong
    in "Yes, you can carry over all 8 days", asked about 8 days, where "up to 5 unused days may be
    carried over"; right, the rule's negation said, in "No, you cannot carry over 8 days". A period
    only: an amount is met by tiers of rules ("up to 500 EUR ...; above that ..."), which one
    sentence does not tell. ``None`` where no bound is read."""
    read = evidence()
    for q in quantities_of(tuple(found), text, False):
        if q.unit not in _PERIODS or _side(text, q.surface, q.start):
            continue  # a bound the claim states is read as one (:func:`asked_as_bound`)
        same = [e for e in read if e.value == q.value and e.unit == q.unit]
        if not same or not all(e.said for e in same):
            continue
        held = against_bound(q, text, read)
        if held is not None:
            return held
    return None


def past_bound(step: _Step, target: Quantity, claim: Sequence[Quantity], evidence: Sequence[Quantity]) -> Optional[str]:
    """The cap (or floor) of the passages that an amount computed passes, when the claim names none
    ("500 km × 0.30 EUR" is 150 EUR, but the passage caps it at 130 EUR): the computation holds,
    the amount the claim gives does not."""
    if not _money(target.unit) or step.op == "list":  # a list's total bounds nothing: its items are claims
        return None
    # the sentences of the passages that give the step's numbers (the claim may write them too), and
    # those on the same matter ("... reimbursed 0.30 EUR per kilometre. The reimbursement is capped
    # at 130 EUR per trip": two words of their own in common)
    keys = {(o.unit, o.value) for o in step.operands}
    groups = {e.group for e in evidence if (e.unit, e.value) in keys}
    for q in evidence:
        if q.unit != target.unit or q.per or not q.bound or q.said or not _same_matter(q.group, groups) or \
                any(c.unit == q.unit and c.value == q.value for c in claim):  # the claim names the cap
            continue
        if q.bound == "max" and step.value > q.value + 1e-9 and not q.shown in step.expression:
            return f"capped at {q.shown}"
        if q.bound == "min" and step.value < q.value - 1e-9 and not q.shown in step.expression:
            return f"at least {q.shown}"
    return None


def _same_matter(group: str, groups: FrozenSet[str]) -> bool:
    return group in groups or any(len(word_keys(group) & word_keys(other)) >= 2 for other in groups)


def asked_as_bound(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                   passages: Sequence[str], keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)
                   ) -> Optional[Tuple[Quantity, Quantity]]:
    """A number of the claim ``text`` (its mentions ``found``, those the question gives) that no
    passage writes, stated as a bound ("Oui, le télétravail est possible jusqu'à 3 jours par semaine"
    asked about 3 days), where a passage's sentence on the same matter gives that bound, of the same
    unit and on the same side, with another number ("jusqu'à 2 jours par semaine"): the user's
    number written as the rule, with the passage's. The question's numbers stand in the evidence,
    so the number is found there. ``None`` where the claim takes the number as an example
    (:func:`is_example`) or no bound of that unit is given. ``evidence`` gives the evidence's
    quantities, read only for a number written after a bound's words: most claims that repeat the
    user's number do not. ``found``: amounts of money, percentages and numbers with a unit of time
    after them (:func:`period_phrases`); a bare number, an order's or a ticket's, is no bound. The
    question's period in another unit is the user's number too ("up to 30 working days", asked
    about 6 weeks)."""
    bounded = [m for m in found if not any(m.surface in t for t in passages) and _bound_words(text, m.start)]
    if not bounded:
        return None
    read = evidence()
    for q in _stated_bounds(text, bounded):
        same = [e for e in read if e.value == q.value and e.unit == q.unit]
        if not all(e.said for e in same) or not (same or any(e.said and _same_length(e, q) for e in read)):
            continue  # the passages give it (or nothing does: the numbers step has said so)
        theirs = _passage_bound(text, q, read, keys_of)
        if theirs is not None:
            return q, theirs
    return None


def _stated_bounds(text: str, bounded: Sequence[Mention]) -> List[Quantity]:
    """The quantities of the claim's numbers written after a bound's words that may be a rule's
    bound: an amount, a percentage or a period, not a date, a time or an example the claim takes."""
    return [q for q in quantities_of(bounded, text, False)
            if q.unit not in ("", "date", "time") and not is_example(text, q)]


#: The word right after a number (its unit, where it has one): "5 hours", "3 Wochen", "8-hour".
_NEXT_WORD = re.compile(r"[\s-]*[^\W\d_]+")


def bound_elsewhere(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                    passages: Sequence[str], keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)
                    ) -> Optional[Tuple[Quantity, Quantity]]:
    """A bound the claim ``text`` states (its mentions ``found``: amounts, percentages and periods)
    with a number the passages write only in another role, where a passage's sentence on the same
    matter gives that bound, of the same unit, per and side, with another number: "Remote work is
    possible up to 3 days a week" where the passage says "up to 2 days a week" and "requests are
    answered within 3 days". The numbers step finds the 3; the bound is the passage's 2. ``None``
    where a passage gives the bound with the claim's number, or the claim takes it as an example.
    ``passages``: their texts; a bound a passage writes as the claim does ("up to 2 days") is read
    no further (most claims, told without reading the evidence's quantities)."""
    bounded = []
    for m in found:
        words = _bound_words(text, m.start)
        if words is None:
            continue
        unit = _NEXT_WORD.match(text, m.end)  # "within 5 hours", which "within 5 working days" does not write
        said = text[words.start():unit.end() if unit is not None else m.end]
        if not any(said in t for t in passages):
            bounded.append(m)
    if not bounded:
        return None
    read = evidence()
    for q in _stated_bounds(text, bounded):
        side = _side(text, q.surface, q.start)
        if any(not e.said and e.value == q.value and e.unit == q.unit and _per_of(e, read) == q.per and
               _side_of(e) == side for e in read):
            continue  # the passages give the claim's bound
        theirs = _passage_bound(text, q, read, keys_of)
        if theirs is not None:
            return q, theirs
    return None


def period_phrases(text: str, found: Sequence[Mention]) -> Tuple[str, ...]:
    """For each number of ``text`` (its mentions ``found``) the number with the word after it where
    that word may be a unit of time ("8 business", "3 Wochen"), else "" (see :func:`_period_phrase`):
    read once for :func:`in_another_unit` and :func:`asked_as_bound`."""
    return tuple(_period_phrase(text, m) for m in found)


def in_another_unit(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                    texts: Callable[[], Sequence[str]], phrases: Optional[Sequence[str]] = None,
                    question: str = "") -> Optional[Tuple[Quantity, Quantity]]:
    """A period of the claim ``text`` (its mentions ``found``) whose number the evidence gives only as
    another unit of time, with the evidence's: "at least 3 weeks in advance" where the passages say "2
    weeks" and "3 calendar days". A number looked up by value alone is found there, though the claim
    says another thing. Only a period the claim writes in digits is read, and an ordinal of the
    evidence ("the first day") is no period. ``evidence`` gives the evidence's quantities and
    ``texts`` the passages' and the question's texts, each read only where needed: most claims
    write no period, or write it as a passage does. A round figure and an example the claim takes
    (:func:`is_example`) are the claim's own. ``None`` where each of the claim's periods has its unit
    among the evidence's quantities of that number (a working day counting as a day), or the number
    stands there otherwise (in a date, a code, a bare count). ``phrases``: :func:`period_phrases`,
    where read already. ``question``: the user's, whose period is written there too, unless the
    claim states it as a bound ("Leave must be requested at least 3 weeks in advance", asked "Must I
    request leave 3 weeks in advance?", where the passage says "3 calendar days"): the user's
    premise made the rule, which only the passages can give."""
    if phrases is None:
        phrases = period_phrases(text, found)
    if not any(phrases):
        return None  # most claims: no period
    periods = [(m, phrase) for m, phrase in zip(found, phrases) if phrase]
    passages = list(texts())
    # the user's period stated as the rule ("at least 3 weeks"): only the passages can give it
    rule = {m.start for m, _ in periods if _bound_words(text, m.start)} if question else set()
    if all(any(phrase in t for t in passages) or (m.start not in rule and phrase in question) for m, phrase in periods):
        return None  # written so in a passage or the question
    read: Optional[Sequence[Quantity]] = None
    for q in quantities_of(found, text, False):
        if q.unit not in _PERIODS or not (q.surface[:1].isdigit() or q.surface.isalpha()) or \
                APPROX.search(text, max(0, q.start - 48), q.start) or is_example(text, q):
            continue  # a round figure ("12 weeks, about 3 months"), the user's case ("if you are sick for 2 days")
        as_rule = q.start in rule
        if any(q.shown in t for t in passages) or (not as_rule and question and q.shown in question):
            continue  # written so in a passage or the question: most claims, told without reading quantities
        if read is None:
            read = evidence()
        same = [e for e in read if e.value == q.value and e.unit != "date" and not _ORDINAL.match(e.surface)
                and not (as_rule and e.said)]
        if not same or any(e.unit == q.unit or e.unit not in _PERIODS or {e.unit, q.unit} == {"day", "workday"}
                           for e in same):
            continue
        return q, same[0]
    return None


#: An ordinal in words ("the first day", "ab dem vierten Tag"): a day counted, no period.
_ORDINAL = LazyPattern(r"^(?:first|second|third|\w+th|\d+(?:st|nd|rd|th|\.)|erst\w*|zweit\w*|dritt\w*|viert\w*|fünft\w*|"
                      r"sechst\w*|siebt\w*|acht(?:e|en|er|es|em)|neunt\w*|zehnt\w*|premi\w+|\w+i[eè]me)$", re.IGNORECASE)



def _period_phrase(text: str, m: Mention) -> str:
    """The number ``m`` of ``text`` with the word after it when that word may be a unit of time ("8
    business", "3 Wochen", "2 Arbeitstagen" ...: the word is read up to its end), else "". A gate
    that lets most claims pass without their quantities: the units themselves are read by
    :func:`groundlab.core.quantities.quantities_of` for the claims it lets through. (Reading every
    number's unit with :mod:`groundlab.core.quantities` here costs 1.1% more instructions on the
    help-desk workload, even kept per snippet.)"""
    if m.kind != "number" and not (m.kind == "code" and m.surface.isdigit()) or \
            not (m.surface[:1].isdigit() or m.surface.isalpha()):  # "3", "two", "4-hour"
        return ""
    after = _NEXT_WORD.match(text, m.end)
    if after is None:
        return ""
    word = after.group().lstrip(" -\t").lower()
    if word.rstrip("s") in _TIME_WORDS or word.endswith(_TIME_ENDINGS) or \
            (word.isalpha() and word not in NOT_ATTRIBUTES and _UNIT_AFTER_WORD.match(text, after.end())):
        return text[m.start:after.end()]
    return ""


#: The words of a unit of time, without a plural's s, and the ends of the German compounds that
#: name one ("Arbeitstagen", "Servicestunden").
_TIME_WORDS = frozenset("day week month year hour minute min hr h jour semaine moi an année heure tag tage tagen woche "
                        "wochen monat monate monaten jahr jahre jahren stunde stunden minute minuten dia día".split())
_TIME_ENDINGS = ("tag", "tage", "tagen", "stunde", "stunden", "woche", "wochen", "monat", "monate", "monaten", "jahr",
                 "jahre", "jahren", "days", "hours", "weeks", "months", "years")
#: "8 business hours", "40 overtime hours", "3 calendar days": the unit after one more word (one that
#: may stand there: :data:`~groundlab.core.quantities.NOT_ATTRIBUTES`)
_UNIT_AFTER_WORD = re.compile(r"\s+(?i:hours?|days?|weeks?|months?|years?)\b")


# ------------------------------------------------------------------ a day counted from one

#: "4th day", "4. Krankheitstag", "4e jour", "4th calendar day": an ordinal of a day, its number first.
_ORDINAL_DAY = re.compile(r"(\d{1,3})(?:st|nd|rd|th|er|e|ème|\.)\s+(?:(?:full|calendar|working|business|sick)\s+)?"
                          r"(?:day\b|[^\W\d_]*tag\b|jour\b)", re.IGNORECASE)
#: A period a rule holds past: "more than 3 days" is the same rule as "from the 4th day" on.
_DAYS = ("day", "workday")
#: Days written after a number: "3 calendar days", "3 Krankheitstage", "3 jours".
_DAYS_AFTER = re.compile(r"\s*(?:(?:full|calendar|working|business|sick)\s+)?"
                         r"(?:days?\b|[^\W\d_]*tag(?:e|en)?\b|jours?\b)", re.IGNORECASE)


def _ordinal(m: Mention, text: str) -> bool:
    """Whether a number mention may be an ordinal: written with a suffix ("4th", "4e") or a stop and a
    word after it ("4. Krankheitstag"; a claim's closing "order 84924." is none)."""
    return m.surface[:1].isdigit() and (not m.surface[-1].isdigit() or text[m.end:m.end + 2] == ". ")


def ordinals(text: str, found: Sequence[Mention]) -> List[Mention]:
    """The mentions of ``text`` that may be ordinals (:func:`ordinal_elsewhere` reads no other)."""
    return [m for m in found if m.kind == "number" and _ordinal(m, text)]


def ordinal_day(text: str, start: int) -> Optional[int]:
    """The N of a rule from the Nth day on written at ``start`` ("from the 4th day", "ab dem 4.
    Krankheitstag", "à partir du 4e jour"), else ``None``."""
    found = _ORDINAL_DAY.match(text, start)
    if found is None:
        return None
    before = _bound_words(text, start)
    return int(found.group(1)) if before is not None and before.lastgroup == "min" else None


@lru_cache(maxsize=4096)
def _ordinal_rules(passage: str) -> Tuple[Tuple[int, str, str], ...]:
    """The rules a passage starts on a day ("Ab dem 4. Krankheitstag ist eine ärztliche Bescheinigung
    vorzulegen."): ``(the day, its sentence, its words)``, kept per passage (cut in sentences only
    where it writes an ordinal day at all)."""
    if _ORDINAL_DAY.search(passage) is None:
        return ()
    return tuple((n, sentence, at.group()) for sentence in split_sentences(passage)
                 for at in _ORDINAL_DAY.finditer(sentence)
                 for n in (ordinal_day(sentence, at.start()),) if n is not None)


def _rules_past(read: Sequence[Quantity]) -> List[Tuple[int, str, str]]:
    """The passages' rules past a number of days ("Sick leave of more than 3 calendar days requires
    ..."), each as the day it starts on: ``(4, its sentence, "more than 3 calendar days")``."""
    return [(int(e.value) + 1, e.group, f"more than {e.shown}") for e in read
            if not e.said and e.unit in _DAYS and not e.per and e.value == int(e.value) and _side_of(e) == "above"]


def day_counted(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                texts: Callable[[], Sequence[str]]) -> Tuple[Tuple[str, str], ...]:
    """The claim's numbers (its mentions ``found`` the evidence does not write) that say a passage's
    rule on days counted the other way: "from the 4th day" where a passage says "more than 3 calendar
    days", and "more than 3 days" where it says "ab dem 4. Krankheitstag". Each as ``(surface,
    note)``; empty where none does. ``evidence`` gives the evidence's quantities, ``texts`` the
    passages', read only for a claim with such a number."""
    out = []
    ordinals = None  # the days the passages start a rule on, read for a claim that bounds a period of days
    for m in found:
        if m.kind != "number":
            continue
        n = ordinal_day(text, m.start) if _ordinal(m, text) else None
        if n is not None:  # "from the 4th day": a passage's "more than 3 days"
            rule = next((said for start, _, said in _rules_past(evidence()) if start == n), None)
            if rule is not None:
                out.append((m.surface, f"from the {m.surface} day = {rule}"))
            continue
        if _DAYS_AFTER.match(text, m.end) is None:
            continue  # no period of days ("order 84924")
        if ordinals is None:
            ordinals = frozenset(n for passage in texts() for n, _, _ in _ordinal_rules(passage))
        if not ordinals or not _bound_words(text, m.start) or _side(text, m.surface, m.start) != "above":
            continue
        q = next((q for q in quantities_of((m,), text, False) if q.unit in _DAYS and not q.per), None)
        if q is not None and q.value + 1 in ordinals:  # "more than 3 days": a passage's "from the 4th day"
            out.append((m.surface, f"more than {q.shown} = from the {int(q.value) + 1}th day"))
    return tuple(out)


def ordinal_elsewhere(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                      passages: Sequence[str], keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)
                      ) -> Optional[Tuple[str, str]]:
    """A rule from the Nth day on that the claim ``text`` states with a number the passages write in
    another role, where a passage's sentence on the same matter (two words or more) starts the rule
    on another day: "From the 5th day of sick leave you need a certificate" where a passage says
    "Up to 5 unused days ..." and "Sick leave of more than 3 calendar days requires a certificate".
    ``(the claim's day, the passages' rule)``, else ``None``."""
    days = [(m, n) for m in found for n in (ordinal_day(text, m.start),) if n is not None]
    if not days:
        return None
    rules = _rules_past(evidence()) + [rule for passage in passages for rule in _ordinal_rules(passage)]
    claim_keys, sentence_keys = keys_of
    keys = claim_keys(text)
    for m, n in days:
        if any(start == n for start, _, _ in rules):
            continue  # a passage starts the rule on the claim's day
        shared = [(len(keys & sentence_keys(sentence)), start, said) for start, sentence, said in rules]
        best = max(shared, default=None)
        if best is not None and best[0] >= 2:
            return _ORDINAL_DAY.match(text, m.start).group(), best[2]
    return None


#: Sides of a bound that cannot both hold of one number: "up to 5" and "more than 5" or "at least 5".
_OPPOSED = frozenset((("max", "above"), ("max", "min"), ("below", "min"), ("below", "above")))


def side_across(text: str, found: Sequence[Mention], evidence: Callable[[], Sequence[Quantity]],
                keys_of: Tuple[Keys, Keys] = (word_keys, word_keys)) -> Optional[Tuple[str, str]]:
    """A number the claim ``text`` (its mentions ``found``) states with a bound's words on the other
    side of the one a passage gives the same number, neither negated or both: "Mehr als 5 Tage
    können übertragen werden" for "Up to 5 unused days can be carried over". What the judge reads
    of a claim in another language than its passages, whose bound words no word of theirs matches.
    The passage's sentence must be on the same matter (two words or more, read by ``keys_of`` as in
    :func:`bound_elsewhere`). ``(the claim's bound, the passage's)``, else ``None``."""
    bounded = [(m, words) for m in found for words in (_bound_words(text, m.start),) if words is not None]
    if not bounded:
        return None
    negated = _negated(text)
    claim_keys, sentence_keys = keys_of
    keys = claim_keys(text)
    read = evidence()
    for m, words in bounded:
        side = words.lastgroup or ""
        for q in quantities_of((m,), text, False):
            same = [e for e in read if not e.said and e.value == q.value and e.per == q.per and
                    (e.unit == q.unit or not e.unit or not q.unit)]
            sides = [(_side_of(e), e) for e in same]
            if any(theirs == side for theirs, _ in sides):
                continue  # a passage gives it on the claim's side too ("up to 8 people ...; more than 8 people")
            for theirs, e in sides:
                if ((side, theirs) in _OPPOSED or (theirs, side) in _OPPOSED) and _negated(e.group) == negated \
                        and len(keys & sentence_keys(e.group)) >= 2:
                    there = _bound_words(e.group, _where(e))
                    return (f"{words.group().strip()} {q.shown}",
                            f"{there.group().strip()} {e.shown}" if there is not None else e.shown)
    return None
