"""What the signals judge measures on a claim against its evidence: the word signals the model
weighs (:class:`Signals`: coverage, pairs, the best sentence and window, names, the clause backed
least), with abbreviations the evidence spells out counted as found, and the negation flip (the
judge's step 4: the evidence clause that says what the claim says negates it, or the claim negates
what it says).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .claim import _Claim
from .conflicts import restated_limit
from .evidence import _Context, _initials, _is_acronym
from .words import german_whole_stem, weekday_stems


class Signals:
    """What the judge measured on one claim: the signal values and the details a reason names
    (``clause``: the claim's clause the evidence backs least, as ``(words, found, of)``, when a
    clause of several has fewer than half of its words in the evidence; ``asked``: the claim's
    words only the question says)."""

    __slots__ = ("values", "n", "covered", "missing", "pairs_found", "pairs_total", "best", "best_found",
                 "names_missing", "numbers_found", "clause", "asked")

    def __init__(self, values, n, covered, missing, pairs_found, pairs_total, best, best_found, names_missing,
                 numbers_found, clause=None, asked=()):
        self.values, self.n, self.covered, self.missing = values, n, covered, missing
        self.pairs_found, self.pairs_total, self.best, self.best_found = pairs_found, pairs_total, best, best_found
        self.names_missing, self.numbers_found = names_missing, numbers_found
        self.clause, self.asked = clause, asked


def _spelled_out(claim: _Claim, context: _Context, missing: List[str]) -> List[Tuple[FrozenSet[str], FrozenSet[str]]]:
    """What abbreviations account for among the claim's missing stems: pairs ``(the claim's stems,
    the evidence's stems that say them)``, for an acronym of the claim the evidence spells out
    ("MFA" for "multi-factor authentication") or words of the claim the evidence abbreviates."""
    out = []
    initials = context.initials
    words = claim.words
    for st, surface in zip(words.stems, words.surfaces):
        if st in missing and _is_acronym(surface) and st in initials:
            out.append((frozenset((st,)), frozenset(initials[st])))
    if context.acronyms:
        spelled = _initials(words)[0]
        for acronym in context.acronyms:
            covered = spelled.get(acronym)
            # where the evidence spells the acronym out itself ("purchase order (PO)"), only those
            # words are what it stands for: "payment obligation" has its initials, not its meaning
            written = initials.get(acronym)
            if covered and any(c in missing for c in covered) and (written is None or set(written) == set(covered)):
                out.append((frozenset(covered), frozenset((acronym,))))
    return out


#: The shortest German stem read as a part of a compound, and how much longer the compound is.
_PART_MIN, _COMPOUND_MORE = 4, 3


def _compound_parts(claim: _Claim, context: _Context, missing: List[str]) -> List[Tuple[FrozenSet[str], FrozenSet[str]]]:
    """What German compounds of the evidence account for among the claim's missing stems, as
    :func:`_spelled_out` gives them: a claim's word that is the last part of a compound ("Stunden"
    in "Wochenstunden", the thing it names) or its first ("Woche"), compared by their whole
    Snowball stems (the judge's stems keep six letters, which cut a compound's last part off). One
    compound a word: the shortest, then the first in order."""
    wanted: Dict[str, str] = {}
    for st, surface in zip(claim.words.stems, claim.words.surfaces):
        if st in missing and st not in wanted and surface.isalpha():
            whole = german_whole_stem(surface.lower())
            if len(whole) >= _PART_MIN:
                wanted[st] = whole
    if not wanted:
        return []
    compounds = _compounds(context.sentences)
    out = []
    for st, whole in wanted.items():
        longer = len(whole) + _COMPOUND_MORE
        found = [(len(c), c, cut) for c, cut in compounds if len(c) >= longer and (c.endswith(whole) or c.startswith(whole))]
        if found:
            out.append((frozenset((st,)), frozenset((min(found)[2],))))
    return out


@lru_cache(maxsize=256)
def _compounds(sentences: Tuple[Any, ...]) -> Tuple[Tuple[str, str], ...]:
    """The evidence's words long enough to be compounds, each ``(its whole stem, the judge's stem)``,
    in the order of their sentences."""
    out: Dict[str, str] = {}
    for sentence in sentences:
        for cut, surface in sentence.surface.items():
            if len(surface) >= _PART_MIN + _COMPOUND_MORE + 2 and surface.isalpha():
                out.setdefault(german_whole_stem(surface.lower()), cut)
    return tuple(out.items())


def _abbreviated(found: int, stemset: FrozenSet[str], evidence: FrozenSet[str],
                 spelled: List[Tuple[FrozenSet[str], FrozenSet[str]]]) -> int:
    """``found`` (claim stems the evidence stems hold) with the claim stems an abbreviation in
    those evidence stems accounts for."""
    for claimed, written in spelled:
        if written <= evidence:
            found += len((claimed & stemset) - evidence)
    return found


def _signals(claim: _Claim, context: _Context) -> Signals:
    stems = claim.stems
    n = len(stems)
    have = context.stems
    missing = [s for s in stems if s not in have]
    spelled: List[Tuple[FrozenSet[str], FrozenSet[str]]] = []
    if missing and (context.acronyms or any(_is_acronym(w) for w in claim.words.surfaces)):
        spelled = _spelled_out(claim, context, missing)
    if missing and claim.language == "german":
        spelled += _compound_parts(claim, context, missing)
    if spelled:
        accounted = frozenset().union(*(claimed for claimed, _ in spelled))
        have = have | accounted
        missing = [s for s in missing if s not in accounted]
    if missing and context.asked:
        # the day of the week the user names ("I travel on Monday"): their situation, which a claim
        # applies the passage's rule to, as it may their order's number
        days = [st for st in missing if st in context.asked and st in weekday_stems()]
        if days:
            have = have | frozenset(days)
            missing = [st for st in missing if st not in days]
    covered = n - len(missing)
    coverage = covered / n
    pairs = claim.pairs
    if pairs:
        cp = context.pairs
        pairs_found = sum(1 for p in pairs if p in cp)
        pair_share = pairs_found / len(pairs)
    else:
        pairs_found = 0
        pair_share = coverage
    # The sentence (and two sentences in a row) holding most of the claim's words.
    stemset = claim.stemset
    sentences, windows = context.sentences, context.windows
    if context.index is None:
        candidates: Sequence[int] = range(len(sentences))
    else:
        index = context.index
        candidates = sorted({k for s in stems for k in index.get(s, ())})
    best, best_found, window = -1, 0, 0
    for k in candidates:
        if sentences[k].asks:
            continue  # a question backs nothing: "Can an order be billed?" is no "orders can be billed"
        found = len(stemset & sentences[k].stemset)
        if spelled:
            found = _abbreviated(found, stemset, sentences[k].stemset, spelled)
        if found > best_found:
            best, best_found = k, found
        if found:
            w = len(stemset & windows[k])
            if spelled:
                w = _abbreviated(w, stemset, windows[k], spelled)
            if w > window:
                window = w
    names = claim.words.names
    asked = context.asked
    names_missing = [s for s in names if s not in have and s not in asked] if names else []
    # The clause the evidence backs least ("... and planners review exceptions" when no passage
    # mentions planners): a detail added to what the evidence says.
    clause_share, clause = 1.0, None
    for cstems, surfaces in claim.clauses:
        found = sum(1 for st in cstems if st in have)
        share = found / len(cstems)
        if share < clause_share:
            clause_share = share
            if 2 * found < len(cstems):
                clause = (surfaces, found, len(cstems))
    only_asked = [s for s in missing if s in asked] if asked else []
    values = (coverage, pair_share, best_found / n, window / n,
              len(names_missing) / len(names) if names else 0.0, 1.0 if clause is not None else 0.0)
    return Signals(values, n, covered, missing, pairs_found, len(pairs), best, best_found, names_missing,
                   len(claim.numbers), clause, only_asked)


#: A flip needs the evidence sentence's aligned clauses to hold half the claim's words (at least
#: two), and the negated clause itself half of them: a "no" elsewhere in a long run decides nothing.
_NEED, _OWN, _OWN_MIN = 0.5, 0.5, 2


def _negation_flip(claim: _Claim, context: _Context, best: int) -> Optional[str]:
    """The evidence sentence whose aligned clause negates what the claim asserts, or asserts what
    the claim negates; ``None`` when there is no such flip (see :mod:`groundlab.judges.signals`, step 4).
    The sentence holding most of the claim's words is read first; a claim that negates words that
    sentence lacks ("Unused days are not forfeited" beside "Up to 5 days of unused leave can be
    carried over ...") is read against the sentences that hold them too ("... any carried-over days
    not taken by then are forfeited"), those sharing most of its words first. A claim that gives
    both sides of a rule the passages give is no flip (:func:`_says_both_ways`)."""
    if best < 0:
        return None
    sentences = context.sentences
    flipped = _flip_in(claim, sentences[best])
    negated = claim.words.negated
    if flipped is not None or not (claim.negated and negated) or negated <= sentences[best].stemset:
        return None if flipped is not None and claim.negated and _says_both_ways(claim, sentences) else flipped
    if context.index is None:
        others = [k for k, sentence in enumerate(sentences) if negated <= sentence.stemset]
    else:
        others = sorted(set.intersection(*[set(context.index.get(st, ())) for st in negated]))
    stemset = claim.stemset
    others.sort(key=lambda k: (-len(stemset & sentences[k].stemset), k))
    for k in others:
        # a limit the claim restates the other way round ("beyond 5 cannot" for "up to 5 can") is no flip
        if k != best and not sentences[k].asks and not restated_limit(claim.framed.text, sentences[k].text):
            flipped = _flip_in(claim, sentences[k])
            if flipped is not None:
                return None if _says_both_ways(claim, sentences) else flipped
    return None


def _says_both_ways(claim: _Claim, sentences: Sequence[Any]) -> bool:
    """Whether the claim asserts a word it also negates ("The company matches contributions up to 4%;
    the remaining 2% are not matched") and an evidence sentence negates it too ("Contributions above
    4% are not matched"): the claim gives each side of a rule the passages give, no flip."""
    words = claim.words
    negated = words.negated
    if not any(s in negated and not scoped for s, scoped in zip(words.stems, words.in_scope)):
        return False
    return any(neg & negated for sentence in sentences if sentence.negation for _, neg in sentence.clauses)


def _flip_in(claim: _Claim, sentence) -> Optional[str]:
    """:func:`_negation_flip` against one evidence sentence."""
    if not (claim.negated or sentence.negation):
        return None
    stemset = claim.stemset
    need = max(2, math.ceil(_NEED * len(stemset)))
    claim_negated = claim.words.negated
    # The fewest clauses in a row of the evidence sentence that say what the claim says ("The
    # invoice cannot be paid | until the variance is cleared" for "The invoice can be paid before
    # the variance is cleared"), and, for a claim that negates, the words it negates; among as many,
    # the one sharing most words. A negation in a clause outside them does not reach the claim.
    wanted = claim_negated if claim.negated and claim_negated and claim_negated <= sentence.stemset else frozenset()
    clauses = sentence.clauses
    clause, negated, best_key = None, None, None
    for i in range(len(clauses)):
        stems, neg = frozenset(), frozenset()
        for j in range(i, len(clauses)):
            stems, neg = stems | clauses[j][0], neg | clauses[j][1]
            shared = len(stemset & stems)
            if shared >= need and wanted <= stems:
                key = (j - i, -shared)
                if best_key is None or key < best_key:
                    clause, negated, best_key = stems, neg, key
                break
    if clause is None:
        return None  # no run of clauses says what the claim says: a flip would mean nothing
    if claim.negated and not negated:
        # what the claim negates, the evidence asserts: unless it negates it too, in another clause
        if claim_negated and claim_negated <= clause and not any(neg & claim_negated for _, neg in clauses):
            return sentence.text
    elif negated and not claim.negated and negated & stemset:
        # The negation must stand in a clause that itself says the claim's words: in a long run of
        # clauses, a "no" beside a shared word elsewhere decides nothing.
        own = max(_OWN_MIN, math.ceil(_OWN * len(stemset)))
        if not any(neg & stemset and len(stemset & stems) >= own for stems, neg in clauses):
            return None
        # "not released unless approved" says "released once approved": a claim that gives the
        # other side of the condition restates it.
        if sentence.condition and _CONDITION_MET.search(claim.framed.text.lower()):
            return None
        return sentence.text
    return None


#: A claim that states the condition met: "can be paid once the variance is cleared".
_CONDITION_MET = re.compile(r"\b(?:once|after|when|whenever|if|as\s+soon\s+as|provided|only\s+(?:if|when|after))\b")
