"""How often, when, which way, above or below a bound, always or only then, a state or its opposite
(enabled or disabled, each read with its negation): a claim that says one
where the evidence sentence it matches says another of the same kind ("monthly" against "every
year", "over 500 EUR" against "up to 500 EUR") is contradicted. The words of a text are read once
per shape (its digits as 0).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from ...core.numbers import digit_shape, mentions
from ...core.bounds import CARRY_VERBS, IN_DAYS, word_keys
from ...core.quantities import quantities_of
from .claim import _Claim
from .evidence import _Context
from .words import stem


#: Words that say how often, when, which way, above or below a bound, and always or only then: a
#: claim that says one where the evidence sentence it matches says another of the same kind
#: contradicts it ("Limits are reviewed monthly" against "Credit limits are reviewed every year",
#: "over 500 EUR" against "up to 500 EUR", "only when you connect from abroad" against "for every
#: connection").
CONFLICTS: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "how often": {
        "hourly": ("hourly", "every hour", "each hour", "per hour", "once an hour"),
        "daily": ("daily", "every day", "each day", "per day", "once a day", "every morning", "every evening",
                  "every night", "nightly"),
        "weekly": ("weekly", "every week", "each week", "per week", "once a week"),
        "monthly": ("monthly", "every month", "each month", "per month", "once a month", "per calendar month",
                    "every calendar month"),
        "quarterly": ("quarterly", "every quarter", "each quarter", "per quarter", "once a quarter"),
        "yearly": ("yearly", "annually", "annual", "every year", "each year", "per year", "once a year", "per annum",
                   "per calendar year", "every calendar year", "each calendar year"),
    },
    "when": {
        "before": ("before", "prior to", "ahead of", "in advance of", "earlier", "earlier than", "no later than",
                   "not later than"),
        "after": ("after", "afterwards", "later", "later than", "no earlier than", "not earlier than"),
    },
    "which way": {
        "up": ("increase", "increases", "increased", "increasing", "rise", "rises", "rose", "risen", "rising",
               "raise", "raises", "raised", "grow", "grows", "grew", "grown", "growing"),
        "down": ("decrease", "decreases", "decreased", "decreasing", "fall", "falls", "fell", "fallen", "falling",
                 "drop", "drops", "dropped", "decline", "declines", "declined", "reduce", "reduces", "reduced",
                 "lowers", "lowered", "shrink", "shrinks", "shrank"),
    },
    "above or below": {
        "above": ("above", "more than", "exceeds", "exceeding", "higher than", "greater than", "at least", "minimum",
                  "no less than", "not less than", "over"),
        "below": ("below", "less than", "lower than", "fewer than", "up to", "at most", "maximum", "no more than",
                  "not more than", "not exceed", "under"),
    },
    # A state and its opposite: "Split tunnelling is enabled" against "Split tunnelling is disabled".
    # A negation turns one into the other ("not enabled" says "disabled"): see _POLAR.
    "on or off": {
        "on": ("enabled", "activated", "switched on", "turned on", "aktiviert", "eingeschaltet", "activé", "activée",
               "activés", "activées"),
        "off": ("disabled", "deactivated", "switched off", "turned off", "deaktiviert", "ausgeschaltet", "désactivé",
                "désactivée", "désactivés", "désactivées"),
    },
    "allowed or not": {
        "allowed": ("allowed", "permitted", "erlaubt", "gestattet", "zulässig", "autorisé", "autorisée", "autorisés",
                    "autorisées", "permis", "permise"),
        "forbidden": ("prohibited", "forbidden", "verboten", "untersagt", "unzulässig",
                      "interdit", "interdite", "interdits", "interdites"),
    },
    "required or optional": {
        "required": ("mandatory", "compulsory", "obligatory", "required", "verpflichtend", "obligatorisch",
                     "erforderlich", "vorgeschrieben", "obligatoire", "obligatoires", "requis", "requise", "requises"),
        "optional": ("optional", "voluntary", "freiwillig", "facultatif", "facultative", "facultatifs", "facultatives"),
    },
    "included or excluded": {
        "included": ("included", "inklusive", "enthalten", "inclus", "incluse", "inclus"),
        "excluded": ("excluded", "ausgeschlossen", "exclu", "exclue", "exclus", "exclues"),
    },
    "paid or unpaid": {
        "paid": ("paid leave", "paid time off", "bezahlter urlaub", "bezahlte freistellung", "congé payé", "congés payés"),
        "unpaid": ("unpaid leave", "unpaid time off", "unbezahlter urlaub", "unbezahlte freistellung", "congé sans solde",
                   "congés sans solde"),
    },
    "how many times": {
        "always": ("always", "every time", "in all cases", "in every case", "for every", "for all", "for each",
                   "without exception"),
        "only": ("only when", "only if", "only for", "only after", "only before", "only in", "only on", "only with",
                 "sometimes", "in some cases", "occasionally", "only where",
                 # a count of times: "repaired free of charge once per device" against "always free"
                 "only once", "once per", "nur einmal", "einmal pro", "une seule fois", "une fois par"),
    },
}
_CONFLICT_WORDS = {w: (kind, side) for kind, sides in CONFLICTS.items() for side, words in sides.items()
                   for w in words}
#: The kinds whose two sides are a state and its opposite: a negation of the word turns it into the
#: other side ("not enabled" is "disabled", "nicht erlaubt" "verboten"), in the claim and in the evidence.
_POLAR = {"on or off": ("on", "off"), "allowed or not": ("allowed", "forbidden"),
          "required or optional": ("required", "optional"), "included or excluded": ("included", "excluded"),
          "paid or unpaid": ("paid", "unpaid")}
#: The phrases by their first word, longest first: a text is read word by word and only a word
#: that opens a phrase is looked at further (one alternation of all the phrases, case-blind, costs
#: some fifty microseconds a claim).
_CONFLICT_PHRASES: Dict[str, List[Tuple[Tuple[str, ...], Tuple[str, str]]]] = {}
for _phrase, _where in _CONFLICT_WORDS.items():
    _words = tuple(_phrase.split())
    _CONFLICT_PHRASES.setdefault(_words[0], []).append((_words, _where))
for _list in _CONFLICT_PHRASES.values():
    _list.sort(key=lambda item: -len(item[0]))
_CONFLICT_PHRASES.setdefault("only", [])
#: After "only", a word or two and one of these: "only required when", "only allowed if".
_ONLY_THEN = frozenset("when if after before where while for".split())
_LOWER_WORD = re.compile(r"[^\W\d_]+")


_CARRY = frozenset(CARRY_VERBS)  # "carry over 5 days": a verb's particle, no bound


@lru_cache(maxsize=65536)
def _conflict_terms(text: str) -> Dict[str, Dict[str, str]]:
    """The how-often, when, which-way and bound words of a text: ``{kind: {side: as written}}``."""
    out: Dict[str, Dict[str, str]] = {}
    lowered = text.lower()
    words = [(m.group(), m.start(), m.end()) for m in _LOWER_WORD.finditer(lowered)]
    plain = tuple([w for w, _, _ in words])
    phrases = _CONFLICT_PHRASES
    k = 0
    while k < len(words):
        first = plain[k]
        options = phrases.get(first)
        if options is None:
            k += 1
            continue
        found = None
        for tokens, where in options:
            n = len(tokens)
            if plain[k:k + n] == tokens:
                found = (n, where)
                break
        if found is None and first == "only":  # "only required when": a word or two, then the condition
            for gap in (2, 3):
                if k + gap < len(words) and words[k + gap][0] in _ONLY_THEN:
                    found = (gap + 1, ("how many times", "only"))
                    break
        if found is None:
            k += 1
            continue
        n, (kind, side) = found
        end = words[k + n - 1][2]
        if (plain[k:k + n] in _BOUND_NEEDS_AMOUNT
                and _AMOUNT_NEXT.match(lowered, end) is None):
            k += 1
            continue  # "over the weekend", "under review", "sign up to": no bound; "over 500 EUR" is one
        if first == "over" and k and plain[k - 1] in _CARRY:
            k += 1
            continue  # "carry over 5 days": a verb's particle
        out.setdefault(kind, {}).setdefault(side, text[words[k][1]:end])
        k += n
    return out


@lru_cache(maxsize=16384)
def _terms(text: str) -> Dict[str, Dict[str, str]]:
    """:func:`_conflict_terms` of a text, read once per shape (its digits as 0): its patterns tell no
    digit from another, and the words found hold no digit unless a digit stands inside a phrase. Kept
    per text too (a claim and its best sentence are read again for every case that repeats them)."""
    shape = digit_shape(text)
    if shape == text:
        return _conflict_terms(text)
    found = _conflict_terms(shape)
    if any("0" in word for sides in found.values() for word in sides.values()):
        return _conflict_terms(text)
    return found


_AMOUNT_NEXT = re.compile(r"\s+(?:[\u20ac$\u00a3]\s?)?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                          r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|a\s+(?:hundred|thousand))\b)")
#: Bound phrases that are a bound only before an amount: "up to 5 days", not "sign up to the training".
_BOUND_NEEDS_AMOUNT = frozenset({("over",), ("under",), ("up", "to")})


def _conflict_stems(said: Dict[str, Dict[str, str]]) -> FrozenSet[str]:
    """The stems of a claim's how-often, when, which-way and bound words ("monthly" gives "month")."""
    return _stems_of(tuple([word for sides in said.values() for word in sides.values()]))


@lru_cache(maxsize=4096)
def _stems_of(words: Tuple[str, ...]) -> FrozenSet[str]:
    return frozenset(stem(w) for word in words for w in re.findall(r"[^\W\d_]+", word.lower()) if len(w) >= 3)


#: What stands between two numbers a claim compares ("3,200 EUR is above 2,500 EUR", "3.200 EUR über
#: 2.500 EUR liegen", "12 % est supérieur à 10 %"): the comparison's word, whose side is ">" or "<".
_COMPARED = re.compile(
    r"(?P<unit>\s*[^\W\d_]+(?:\s+[^\W\d_]+)?(?=\s+(?:is|are|was|were|lies|falls|ist|sind|liegt|liegen|est|sont)\b|,))?"
    r"\s*(?:,|is|are|was|were|lies|falls|ist|sind|liegt|liegen|est|sont)?\s*"
    r"(?:(?:well|far|still|just|clearly|slightly|deutlich|klar|noch|knapp|bien|largement)\s+)?"
    r"(?P<op>above|over|below|under|more than|less than|higher than|lower than|greater than|larger than|"
    r"smaller than|über|unter|oberhalb|unterhalb|mehr als|weniger als|höher als|niedriger als|größer als|"
    r"kleiner als|supérieure?s? à|inférieure?s? à|au-dessus de|en dessous de|au-dessous de|plus que|moins que)"
    r"\s+(?:the\s+|der\s+|die\s+|dem\s+|den\s+|la\s+|le\s+|les\s+|l')?$", re.IGNORECASE)
_GREATER = frozenset("above over more higher greater larger über oberhalb mehr höher größer supérieur supérieure "
                     "supérieurs supérieures au-dessus plus".split())


@lru_cache(maxsize=16384)
def comparisons(text: str) -> Tuple[Tuple[int, int, bool, str], ...]:
    """The comparisons of two numbers of like kind a claim states ("Since 3,200 EUR is above 2,500
    EUR, ..."), each ``(start, end of its word, whether it holds, as written)``: arithmetic the
    reader checks, not a bound the claim gives ("above" here says nothing against a passage's "up to
    2,500 EUR")."""
    found = [m for m in mentions(text) if m.kind in ("money", "percent", "number")]
    out = []
    periods = None
    for a, b in zip(found, found[1:]):
        between = _COMPARED.match(text, a.end, b.start)
        if between is None or a.kind != b.kind or (a.kind == "money" and a.value.split()[0] != b.value.split()[0]):
            continue
        try:
            x, y = float(a.amount), float(b.amount)
        except (TypeError, ValueError):
            continue
        if a.kind == "number":  # "6 weeks is more than 30 days": periods compared in days, else like units only
            if periods is None:
                periods = {q.start: q for q in quantities_of(tuple(found), text, False)}
            qa, qb = periods.get(a.start), periods.get(b.start)
            if qa is None or qb is None or (between.group("unit") and not qa.unit):
                continue
            if qa.unit != qb.unit and qb.unit:  # "30 working days, more than the 20 allowed": the 20 are days too
                if qa.unit not in IN_DAYS or qb.unit not in IN_DAYS:
                    continue
                x, y = x * IN_DAYS[qa.unit], y * IN_DAYS[qb.unit]
        elif between.group("unit"):
            continue  # words between an amount and "is": "3,200 EUR budget is above ..." compares no two amounts
        op = between.group("op")
        greater = op.split()[0].lower() in _GREATER
        said = text[a.start:b.end]
        if a.kind == "number" and qb.unit and text.startswith(qb.shown[len(qb.surface):].strip(), b.end + 1):
            said += qb.shown[len(qb.surface):]  # "6 weeks is more than 30 days"
        out.append((between.start("op"), between.end("op"), x > y if greater else x < y, said))
    return tuple(out)


def without_comparisons(text: str) -> str:
    """``text`` with the words of the comparisons it states blanked (:func:`comparisons`)."""
    for start, end, _, _ in comparisons(text):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _conflict(claim: _Claim, context: _Context, best: int) -> Optional[Tuple[str, str, str, str]]:
    """``(kind, the claim's word, the evidence's word, the evidence sentence)`` when the evidence
    sentence that holds most of the claim's words says another how-often, when, which-way or bound
    word than the claim's, and not the claim's own; ``None`` otherwise."""
    if best < 0:
        return None
    said = _terms(claim.framed.text)
    if said and "above or below" in said and comparisons(claim.framed.text):
        said = _terms(without_comparisons(claim.framed.text))  # "3,200 EUR is above 2,500 EUR" gives no bound
    if not said:
        return None
    sentence = context.sentences[best]
    there = _terms(sentence.text)
    if not any(kind in there for kind in said):
        return None  # no word of the claim's kinds in the sentence: nothing to clash with
    # The sentence must say what the claim says but for those words, and say little else: in a long
    # sentence another "after" or "rise" is about something else.
    core = claim.stemset - _conflict_stems(said)
    if not core or len(sentence.stemset) > 3 * len(core) + 8 or \
            4 * len(core & sentence.stemset) < 3 * len(core):
        return None
    for kind, sides in said.items():
        if len(sides) != 1 or kind not in there:
            continue
        (side, word), = sides.items()
        if kind in _POLAR:
            # a state and its opposite, each side as its negation reads it: "not enabled" is "disabled"
            side, theirs = _polar_sides(claim, sentence, kind, side, word, there[kind])
            if len(theirs) != 1 or side in theirs:
                continue
        elif side in there[kind]:
            continue
        elif kind == "above or below" and _other_side(claim.framed.text, sentence.text):
            continue  # "above 2,000 EUR need HR approval" for "up to 2,000 EUR ...; higher amounts need HR approval"
        other = next(iter(there[kind].values()))
        if kind == "how many times" and _same_scope(claim.framed.text, word, sentence.text, other):
            continue  # "only required for expenses above 25 EUR": "required for all expenses above 25 EUR"
        if kind not in _POLAR and _said_elsewhere(context, best, core, kind, side):
            continue  # "per year", where the sentence on remote work abroad says "per calendar year"
        return kind, word, other, sentence.text
    return None


def _said_elsewhere(context: _Context, best: int, core: FrozenSet[str], kind: str, side: str) -> bool:
    """Whether another sentence of the evidence that holds as many of the claim's other words
    (``core``) as the best one says the claim's ``side`` of ``kind``: the clash is with a sentence
    on another matter that happens to hold the claim's words."""
    held = len(core & context.sentences[best].stemset)
    return any(i != best and len(core & st.stemset) >= held and side in _terms(st.text).get(kind, ())
               for i, st in enumerate(context.sentences))


def _other_side(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives the rule past its bound too ("Training costs up to 2,000 EUR are
    approved by the line manager; higher amounts need HR approval") and the claim speaks of that
    side: it shares more words with what follows "higher amounts" than with what comes before."""
    both = _BOTH_SIDES.search(sentence)
    if both is None:
        return False
    keys = word_keys(claim)
    return len(keys & word_keys(sentence[both.start():])) > len(keys & word_keys(sentence[:both.start()]))


#: A sentence that gives the rule past its bound too: "up to 2,000 EUR are approved by the line
#: manager; higher amounts need HR approval" (a bound's own "more than" is none).
_BOTH_SIDES = re.compile(r"\b(?:higher|larger|greater)\s+(?:amounts?|costs?|sums?|values?|prices?)|\b(?:above|beyond|over)"
                         r"\s+(?:that|this)\b|\bhöhere\w*\s+(?:Beträge|Kosten|Summen|Werte)|\bdarüber\b|"
                         r"\b(?:montants?|sommes?|coûts?)\s+(?:plus\s+élevée?s?|supérieure?s?)|\bau-delà\b", re.IGNORECASE)
_SCOPE_WORD = re.compile(r"[^\W_]+")


def _same_scope(text: str, word: str, sentence: str, other: str) -> bool:
    """Whether the claim's "only" phrase ``word`` and the evidence's "for all" phrase ``other`` are
    about the same things: the words after the claim's (up to four) all stand right after the
    evidence's, so "only X" restricts to what "all X" covers and the two agree."""
    at, there = text.lower().find(word.lower()), sentence.lower().find(other.lower())
    if at < 0 or there < 0:
        return False
    mine = [w[:6] for w in _SCOPE_WORD.findall(text[at + len(word):].lower())[:4]]
    theirs = {w[:6] for w in _SCOPE_WORD.findall(sentence[there + len(other):].lower())[:6]}
    return len(mine) >= 2 and all(w in theirs for w in mine)


def _polar_sides(claim: _Claim, sentence: Any, kind: str, side: str, word: str,
                 there: Dict[str, str]) -> Tuple[str, FrozenSet[str]]:
    """The side of a polar ``kind`` the claim's ``word`` says and the sides the evidence sentence's
    words (``there``) say, each as its negation reads it."""
    words = claim.words
    mine = frozenset(w.lower() for w, scoped in zip(words.surfaces, words.in_scope) if scoped) \
        if claim.negated else frozenset()
    theirs_negated: FrozenSet[str] = frozenset()
    if sentence.negation:
        surface = sentence.surface
        theirs_negated = frozenset(surface[st].lower() for _, neg in sentence.clauses for st in neg if st in surface)
    return (_as_negated(kind, side, word, mine) if mine else side,
            frozenset(_as_negated(kind, s, w, theirs_negated) if theirs_negated else s for s, w in there.items()))


def polar_restated(claim: _Claim, sentence: Any) -> bool:
    """Whether the claim says the state the evidence sentence negates in the opposite's words, or the
    other way round ("is disabled" for "is not enabled", "verboten" for "nicht erlaubt"): the same
    statement, no negation flip."""
    said = _terms(claim.framed.text)
    polar = [kind for kind in said if kind in _POLAR and len(said[kind]) == 1]
    if not polar:
        return False
    there = _terms(sentence.text)
    for kind in polar:
        if kind in there:
            (side, word), = said[kind].items()
            side, theirs = _polar_sides(claim, sentence, kind, side, word, there[kind])
            if theirs == {side}:
                return True
    return False


def _as_negated(kind: str, side: str, word: str, negated: FrozenSet[str]) -> str:
    """The side of a polar ``kind`` that ``word`` says, turned to the other where a negation reaches
    it (one of its words among ``negated``, the words, in lower case, within a negation's scope)."""
    if any(w in negated for w in word.lower().split()):
        a, b = _POLAR[kind]
        return b if side == a else a
    return side


# A limit restated the other way round: "up to 5 days can be carried over" and "days beyond 5
# cannot be carried over" say the same, as do "at least 3 quotes are needed" and "fewer than 3
# quotes are not accepted". Each bound phrase, the side it stands for and the number after it.
_AMOUNT_AFTER = (r"\s*(?:(?:the|die|der|den|la|le|les)\s+)?"  # "below the 500 EUR limit"
                 r"(?:[\u20ac$\u00a3]\s?|(?:EUR|USD|GBP|CHF)\s?)?(\d+(?:[.,]\d+)?)")
_LIMITS = tuple((side, re.compile(r"\b(?:" + words + r")" + _AMOUNT_AFTER, re.IGNORECASE)) for side, words in (
    ("upper", r"up to|at most|a maximum of|maximum of|max\.|no more than|not more than|not exceeding|bis zu|höchstens|"
              r"maximal|jusqu'à|au maximum|au plus|hasta|como máximo"),
    ("beyond", r"beyond|more than|over|above|in excess of|exceeding|mehr als|über|plus de|au-delà de|más de"),
    ("lower", r"at least|a minimum of|minimum of|no less than|not less than|no fewer than|mindestens|au moins|"
              r"al menos|como mínimo"),
    ("below", r"below|less than|fewer than|under|weniger als|unter|moins de|menos de"),
))
#: The values a bound phrase names, as an interval's sides: "up to N" is at most N, "beyond N" more
#: than N, "at least N" N or more, "below N" less than N; the values it leaves out (its complement),
#: and which of them lie within which (at the same N).
_COMPLEMENT = {"upper": "beyond", "beyond": "upper", "lower": "below", "below": "lower"}
_WITHIN = frozenset((("upper", "upper"), ("beyond", "beyond"), ("lower", "lower"), ("below", "below"),
                     ("below", "upper"), ("beyond", "lower")))
#: Words of every bound phrase (the rarer one where a phrase has two): a text holding none of them
#: states no limit, and its bound patterns need not be read.
_LIMIT_WORDS = ("up to", "most", "maximum", "max.", "more than", "exceeding", "bis zu", "höchstens", "maximal",
                "jusqu", "au plus", "hasta", "máximo", "beyond", "over", "above", "excess", "mehr als", "über",
                "plus de", "au-delà", "más de", "least", "minimum", "less than", "fewer", "mindestens", "moins",
                "al menos", "mínimo", "below", "under", "weniger", "unter", "menos")


@lru_cache(maxsize=65536)
def _may_state_limit(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in _LIMIT_WORDS) and any(pattern.search(text) for _, pattern in _LIMITS)
_NEGATING = re.compile(r"\b(?:not|cannot|can't|no|never|nicht|kein\w*|nie|ne|n'|pas|jamais|no)\b|n't\b", re.IGNORECASE)
_BOUND_NEGATIONS = re.compile(r"\b(?:no|not)\s+(?:more|less|fewer)\s+than\b|\bnot\s+exceeding\b", re.IGNORECASE)


def _limits(text: str) -> Tuple[Tuple[str, str], ...]:
    """The bounds a text states, ``(side, number)``, as its bound phrases name them (the negation
    not read): "days beyond 5 cannot be carried over" states ``("beyond", "5")``."""
    return tuple(sorted({(side, m.group(1).replace(",", "."))
                         for side, pattern in _LIMITS for m in pattern.finditer(text)}))


def without_limit(text: str) -> str:
    """A claim restating a limit the other way round, without its bound words and negation: what is
    left is what the evidence sentence must say ("Unused days 5 be carried over.")."""
    for _, pattern in _LIMITS:
        text = pattern.sub(lambda m: " " + m.group(1), text)
    return _HINAUS.sub(" ", _NEGATING.sub(" ", _BOUND_NEGATIONS.sub(" ", text)))


_HINAUS = re.compile(r"\bhinaus\b", re.IGNORECASE)  # "über 5 Tage hinaus": the rest of "über"


@lru_cache(maxsize=65536)
def restated_limit(claim_text: str, sentence_text: str) -> bool:
    """Whether a claim restates the evidence sentence's limit the other way round (one of the two
    negated, the same number): no negation flip, and no bound the other way."""
    if not _may_state_limit(claim_text) or not _may_state_limit(sentence_text):
        return False  # most claims state no bound at all
    if (_NEGATING.search(_BOUND_NEGATIONS.sub(" ", claim_text)) is None) == \
            (_NEGATING.search(_BOUND_NEGATIONS.sub(" ", sentence_text)) is None):
        return False
    # One of the two negated: read as a rule that parts all values at the bound, the sentence says
    # the other of its values are the other way, and the claim must name values among those
    # ("below 500 EUR, no approval is needed" for "more than 500 EUR need approval").
    there = _limits(sentence_text)
    return any((side, _COMPLEMENT[other]) in _WITHIN
               for side, number in _limits(claim_text) for other, at in there if at == number)
