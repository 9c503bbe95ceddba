"""The signals judge: several signals of support, weighed by a small logistic model.

The rules judges count the claim's words in the evidence. On answers written by real models
that flags many sentences a person finds supported: a word in another form ("colonized" for
"colonization"), a sentence that frames the answer ("Based on the provided passages, here is the
answer."), a sentence that talks about the passages ("Passage 2 states that ..."), a "no"
somewhere else in a long evidence sentence, an HTML entity. This judge keeps what the rules
judges do well (numbers compared by value, a reason a person can read) and reads a claim so:

1. **Text.** HTML entities are decoded and tags dropped, in the claim and in the evidence.
2. **Framing.** A sentence that only frames the answer ("Here is a summary in 84 words or less.",
   "I hope this helps.") is no fact: ``supported``, with the reason ``framing sentence, not a
   fact`` and score 1. Framing lead-ins ("Based on the passages,", "Overall,", "Passage 2 states
   that", "The author believes") and references to passages ("(Passage 3)") are set aside and
   the rest of the sentence is judged; the reason says what was set aside.
3. **Numbers** (as in the rules judges, :mod:`groundlab.numbers`): a number the evidence does not
   give makes the claim ``contradicted`` when the evidence has numbers of its own, else
   ``unsupported``; score 0.
4. **Negation, scoped.** The evidence sentence and clause that share most words with the claim
   are found; when exactly one of the two negates the words they share (the negation stands in
   that clause, and the clause holds every word the claim negates), ``contradicted``, score 0. A
   negation elsewhere in the sentence, or one the other side says in other words ("does not
   meet" / "falls far short of"), decides nothing.
5. **Signals**, each a number between 0 and 1 (words are compared by their stems, Snowball's
   English stemmer, so "launched" finds "launch"):
   ``coverage``, the share of the claim's content words in the evidence; ``pairs``, the share of
   its adjacent content-word pairs found adjacent in the evidence (an invented detail built
   from words the evidence has elsewhere breaks pairs); ``sentence``, the share found in the one
   evidence sentence that holds most of them, and ``window`` in two sentences in a row;
   ``names``, the share of its names (capitalised words inside the sentence) the evidence lacks;
   ``length``, how long the claim is; ``numbers``, whether it has numbers, all found.
6. **Score.** A logistic model weighs the signals into ``score``, the probability that a person
   finds the claim supported; ``supported`` at or above the threshold, else ``unsupported``. Its
   weights and threshold come from ``groundlab/data/signals.json``, fitted on two public labeled
   claim sets (``bench/fit_signals.py``), or from a file ``groundlab calibrate`` fitted on your
   own labels (``get_judge("signals", config="judge.json")``).

Every verdict carries a reason that names the signals behind it. Speed comes from the rules
judges' way: each passage is analysed once and its words, stems, pairs, sentences and numbers are
reused for every claim judged against it.
"""

from __future__ import annotations

import html
import json
import math
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.claims import CJK_CHARS, character_pairs, split_sentences
from ..core.numbers import Mention, digit_shape, distinct, mentions, ordinal_words
from ..core.records import Evidence, GroundlabError, Verdict
from .rules import _Numbers, _quote, _without_numbers, _written, number_verdict

# ---------------------------------------------------------------- words

#: Function words: never content words. The rules judges' list, and the other pronouns,
#: auxiliaries, determiners, prepositions and adverbs that say nothing a passage must back.
STOP_WORDS: FrozenSet[str] = frozenset("""
a about above after again against all almost along already also although always am among an and another any
anyone anything are around as at be became because become been before being below between both but by can
could did do does doing done down during each either else enough etc even ever every few for from further
had has have having he her here hers herself him himself his how however i if in including into is it its
itself just least less let like many may me might mine more most much must my myself nor now of off often on
once one only onto or other others otherwise our ours ourselves out over own per perhaps quite rather really
same several shall she should since so some something still such than that the their theirs them themselves
then there therefore these they this those though through throughout thus to too toward towards under until
up upon us very via was we well were what whatever when whenever where whereas whether which while who whom
whose why will with within without would yet you your yours yourself yourselves
""".split())

#: Words that negate what follows them in their clause.
NEGATIONS: FrozenSet[str] = frozenset({"not", "no", "never", "cannot", "none", "neither", "nor", "nobody",
                                       "nothing", "nowhere", "without",
                                       # German, French and Spanish answers negate with these ("sin" and
                                       # "sans" are English words too, and left out)
                                       "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie",
                                       "niemals", "ohne", "pas", "jamais", "aucun", "aucune", "nunca", "ningún",
                                       "ninguna", "ninguno"})

#: German negations that stand after the verb they negate ("Die Gutschrift verfällt nicht"): they
#: reach back to the start of their clause as well as forward to its end.
_NEGATIONS_AFTER_THE_VERB: FrozenSet[str] = frozenset({"nicht", "nie", "niemals"})
#: French negation is "ne ... pas" around the verb ("n'expire pas", "ne paie jamais"): a "ne" (or
#: "n'") opens it and one of these, later in the clause, completes it; without one ("n'est
#: possible que ...", only) it negates nothing.
_FRENCH_COMPLETERS: FrozenSet[str] = frozenset({"pas", "plus", "jamais", "rien", "aucun", "aucune", "personne",
                                                "guère", "nullement", "point"})

#: Words that end a clause: a negation reaches no further.
_CLAUSE_WORDS: FrozenSet[str] = frozenset({"but", "while", "whereas", "although", "though", "however", "which",
                                          "who", "whom", "whose", "because", "since", "unless", "until", "if",
                                          "when", "where", "and", "or", "so", "yet", "then", "after", "before"})
#: The same in German, French and Spanish texts: "Gutschriften verfallen nach zwölf Monaten und
#: werden dann nicht mehr ausgezahlt" holds two clauses, and its "nicht" negates only the second.
_FOREIGN_CLAUSE_WORDS: Dict[str, FrozenSet[str]] = {
    "german": frozenset("und oder aber sondern weil denn dass wenn falls sobald bis solange nachdem während obwohl "
                        "damit jedoch".split()),
    "french": frozenset("et ou mais car donc puis lorsque quand si parce puisque tandis qui".split()),
    "spanish": frozenset("y e o u ni pero sino porque cuando si aunque mientras pues".split()),
}
#: The words that join what one negation reaches: "cannot be delivered or billed".
_JOINING_OR: FrozenSet[str] = frozenset({"or", "nor", "oder", "ou", "o", "u", "ni"})

# Scripts written without spaces (Chinese, Japanese, Korean): a run of their characters is one
# token, read as its overlapping pairs of characters (as the rules judge reads it).
_CJK = CJK_CHARS
_TOKEN = re.compile(r"[" + _CJK + r"]+|[^\W\d_" + _CJK + r"][^\W_" + _CJK + r"]*(?:['\u2019][^\W\d_]+)*"
                    r"|[,;:()\u2013\u2014\uff0c\uff1b\uff1a\uff08\uff09\u3001]|--")
_CJK_RUN = re.compile(r"[" + _CJK + r"]")
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
# "No. 256" numbers something; it negates nothing.
_NUMBER_MARKER = re.compile(r"\b(?:no|nos|nr)\.\s*(?=\d)", re.IGNORECASE)
#: Phrases with a negation word that negate nothing: "no more than 44 per cent" (at most), "not only
#: ... but also", "no exception", "without doubt", "vanished without trace".
_NOT_NEGATING = re.compile(
    r"\b(?:not\s+only|not\s+just|not\s+to\s+mention|no\s+(?:more|less|fewer|later|earlier|sooner|longer)\s+than|"
    r"no\s+doubt|no\s+matter|no\s+exception|no\s+wonder|nothing\s+but|none\s+other\s+than|"
    r"without\s+(?:a\s+)?(?:doubt|trace|fail|delay|question|exception)|"
    # "nicht nur ... sondern auch", "non seulement ... mais", "no solo ... sino": both, negating nothing
    r"nicht\s+nur|nicht\s+bloß|non\s+seulement|no\s+s[oó]lo|no\s+solamente|no\s+únicamente)\b", re.IGNORECASE)
_PUNCT = frozenset((",", ";", ":", "(", ")", "\u2013", "\u2014", "--",
                    "\uff0c", "\uff1b", "\uff1a", "\uff08", "\uff09", "\u3001"))


def _stemmer(language: str = "english"):
    import snowballstemmer

    return snowballstemmer.stemmer(language)


_STEMMER = _stemmer()
_STEMS: Dict[str, str] = {}

#: Function words of German, French and Spanish answers and passages, left out like
#: :data:`STOP_WORDS` when a text reads as that language (see :func:`language`).
FOREIGN_STOP_WORDS: Dict[str, FrozenSet[str]] = {
    "german": frozenset("""
der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren wird werden wurde
wurden sein seine seiner ihr ihre ihrer ihren ihrem sie wir ich du er es man uns sich mich dich mir dir ihm
ihnen im in zu zum zur von vom mit auf aus bei nach vor für über unter durch gegen ohne um als wie wenn dass
auch noch nur schon sehr dann dort hier kann können muss müssen soll sollen darf dürfen will wollen hat haben
hatte hatten alle allen jede jeder jedes diese dieser dieses diesem diesen welche welcher welches bitte
""".split()),
    "french": frozenset("""
le la les un une des du de et ou mais est sont était étaient sera seront être avoir a ont avait il elle ils
elles nous vous je tu on se sa son ses leur leurs ce cet cette ces qui que quoi dont où dans sur sous par
pour avec sans chez vers entre aussi très plus peut peuvent doit doivent faut votre vos notre nos mon ma mes
tout tous toute toutes si comme
""".split()),
    "spanish": frozenset("""
el la los las un una unos unas de del y o pero es son era eran será ser estar está están ha han había él ella
ellos ellas nosotros usted ustedes yo tú se su sus lo le les que quien cual cuyo donde en sobre bajo por para
con sin entre también muy más puede pueden debe deben hay su sus nuestro nuestra todo todos toda todas si como
al este esta estos estas ese esa
""".split()),
}
_FOREIGN_STEMMERS: Dict[str, Any] = {}
# Words frequent in one of the three languages and rare in English: a text holding two or more of
# one language's (and more than of the others') reads as that language.
_LANGUAGE_HINTS = {
    "german": frozenset("der die das und ist nicht ein eine einen dem den mit auf für wird werden sie ihre im zur zum "
                        "von sind oder kann muss".split()),
    "french": frozenset("le la les et est une des du pas pour dans avec sur sont vous nous qui peut doit être "
                        "au aux ne".split()),
    "spanish": frozenset("el los las y es una del para con por son usted puede debe está están se lo al "
                         "ser no".split()),
}
_ALL_HINTS = frozenset(w for ws in _LANGUAGE_HINTS.values() for w in ws)
_WORDS_OF = re.compile(r"[^\W\d_]+")


def language(text: str) -> str:
    """``"german"``, ``"french"`` or ``"spanish"`` when ``text`` reads as one of them, else
    ``"english"``: how its words are stemmed and which function words are left out.

    >>> language("Der Antrag muss von der Führungskraft genehmigt werden."), language("The order is blocked.")
    ('german', 'english')
    """
    words = _WORDS_OF.findall(text.lower())
    found = [w for w in words if w in _ALL_HINTS]
    if len(found) < 2:
        return "english"
    counts = {lang: 0 for lang in _LANGUAGE_HINTS}
    for word in found:
        for lang, hints in _LANGUAGE_HINTS.items():
            if word in hints:
                counts[lang] += 1
    best = max(counts, key=counts.get)
    ranked = sorted(counts.values(), reverse=True)
    if ranked[0] >= 2 and ranked[0] > ranked[1] and ranked[0] * 2 >= len(text.split()) * 0.15:
        return best
    return "english"


#: :func:`language` kept per text: read in words alone, it is the same for a text and its shape.
_language = lru_cache(maxsize=4096)(language)


@lru_cache(maxsize=200_000)
def _foreign_stem(word: str, lang: str) -> str:
    """A German, French or Spanish word's Snowball stem, cut to six letters: "beantragen" and
    "beantragt", "genehmigt" and "Genehmigung" meet (the stemmers leave participles apart)."""
    stemmer = _FOREIGN_STEMMERS.get(lang)
    if stemmer is None:
        stemmer = _FOREIGN_STEMMERS[lang] = _stemmer(lang)
    return stemmer.stemWord(word)[:6]


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word, cached: "colonization" and "colonized"
    give "colon"."""
    found = _STEMS.get(word)
    if found is None:
        found = _STEMMER.stemWord(word)
        if len(_STEMS) < 500_000:
            _STEMS[word] = found
    return found


def clean_text(text: str) -> str:
    """``text`` with HTML entities decoded (``&nbsp;``, ``&ldquo;``), tags dropped and curly
    apostrophes made straight.

    >>> clean_text("Open&nbsp;iTunes &ldquo;now&rdquo; <b>here</b>")
    'Open iTunes \u201cnow\u201d  here '
    """
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _TAG.sub(" ", text)
    return text.replace("\u00a0", " ").replace("\u2019", "'")


class _Words:
    """The content words of one sentence, in order: ``stems`` (one per content word, repeats
    kept), ``surfaces`` (as written), ``clauses`` (the clause number of each), ``names`` (stems of
    acronyms and of capitalised words not first in the sentence), ``negated`` (stems within the
    scope of a negation: from the negation to the end of its clause) and ``has_negation``.

    A clause ends at a comma, semicolon, colon, bracket or dash, and before a word that starts
    another clause (but, which, because, and, or, ...). Words are split at hyphens ("cold-hearted"
    gives "cold" and "hearted"), lower-cased, without a possessive 's; words of fewer than three
    letters (but acronyms) and :data:`STOP_WORDS` are left out."""

    __slots__ = ("stems", "surfaces", "names", "negated", "clauses", "has_negation", "in_scope")

    def __init__(self, text: str, lang: Optional[str] = None) -> None:
        stems: List[str] = []
        surfaces: List[str] = []
        names: List[str] = []
        clauses: List[int] = []
        negated: List[str] = []
        scoped: List[bool] = []  # per word: within the scope of a negation
        has_negation = False
        clause = 0
        in_scope = False
        first = True
        if "o." in text or "O." in text or "r." in text:
            text = _NUMBER_MARKER.sub(" ", text)
        low = text.lower()
        if "no" in low or "without" in low or "nicht" in low:  # "no", "not", "nothing", "none", "without"
            text = _NOT_NEGATING.sub(_neutral, text)
        clause_start = 0  # where the current clause's words start
        french_ne = -1  # where a French "ne" / "n'" opened a negation not yet completed
        elided = "n'" in low or "n\u2019" in low
        if lang is None:
            lang = language(text)
        if lang == "english":
            kinds, kind_of = _KINDS, _kind
        else:
            kinds, kind_of = _FOREIGN_KINDS.setdefault(lang, {}), _foreign_kind(lang)
        for token in _TOKEN.findall(text):
            if elided and token[:2] in _ELISIONS and len(token) > 2:  # "n'expire": "ne" then "expire"
                french_ne = len(stems) if french_ne < 0 else french_ne
                token = token[2:]
            elif french_ne >= 0 and token.lower() in _FRENCH_COMPLETERS:
                # "ne ... pas" complete: the words since "ne" (the verb) are negated, and what follows
                for i in range(french_ne, len(stems)):
                    if not scoped[i]:
                        scoped[i] = True
                        negated.append(stems[i])
                french_ne = -1
                has_negation = in_scope = True
                first = False
                continue
            kind, s, name, capital = kinds.get(token) or kind_of(token)
            if kind == _WORD:
                stems.append(s)
                surfaces.append(token)
                clauses.append(clause)
                scoped.append(in_scope)
                if name or (capital and not first):
                    names.append(s)
                if in_scope:
                    negated.append(s)
                first = False
            elif kind == _RUN:  # its pairs of characters are its words
                for pair in character_pairs(token):
                    stems.append(pair)
                    surfaces.append(pair)
                    clauses.append(clause)
                    scoped.append(in_scope)
                    if in_scope:
                        negated.append(pair)
                first = False
            elif kind == _BREAK:
                clause += 1
                in_scope = False
                clause_start, french_ne = len(stems), -1
            elif kind == _NEGATION:
                has_negation = in_scope = True
                if token.lower() in _NEGATIONS_AFTER_THE_VERB:
                    # "Die Gutschrift verfällt nicht": the verb before it is what it negates
                    for i in range(clause_start, len(stems)):
                        if not scoped[i]:
                            scoped[i] = True
                            negated.append(stems[i])
                first = False
            elif kind == _CLAUSE:
                # "cannot be delivered or billed": a negation reaches the words its "or" joins.
                if not (in_scope and token.lower() in _JOINING_OR):
                    clause += 1
                    in_scope = False
                    clause_start, french_ne = len(stems), -1
                first = False
            else:
                if french_ne < 0 and token in _FRENCH_NE:
                    french_ne = len(stems)
                first = False
        self.stems = tuple(stems)
        self.surfaces = tuple(surfaces)
        self.names = frozenset(names)
        self.clauses = tuple(clauses)
        self.negated = frozenset(negated)
        self.has_negation = has_negation
        self.in_scope = tuple(scoped)


#: A French negation's opening: "ne", and "n'" elided before a vowel ("n'expire").
_FRENCH_NE = frozenset({"ne", "Ne", "NE"})
_ELISIONS = frozenset({"n'", "N'", "n\u2019", "N\u2019"})


def _neutral(match: "re.Match[str]") -> str:
    """A phrase that negates nothing, as the words it holds without its negation: "no more than"
    reads "more than", "without doubt" reads "doubt" (so its words still count, and negate nothing)."""
    words = match.group().split()
    return " " + " ".join(w for w in words if w.lower() not in ("no", "not", "nothing", "none", "without", "nicht",
                                                                "non")) + " "


# What a token is: a clause break (punctuation), a negation, a word that starts a clause, a word
# left out, or a content word; decided once per token and kept.
_BREAK, _NEGATION, _CLAUSE, _SKIP, _WORD, _RUN = range(6)
_KINDS: Dict[str, Tuple[int, str, bool, bool]] = {}


def _kind(token: str) -> Tuple[int, str, bool, bool]:
    """(kind, stem, always a name (an acronym), capitalised) of a token, cached."""
    if token in _PUNCT:
        found = (_BREAK, "", False, False)
    elif _CJK_RUN.match(token):
        found = (_RUN, "", False, False)
    else:
        lower = token.lower()
        if lower.endswith("n't") or lower in NEGATIONS:
            found = (_NEGATION, "", False, False)
        elif lower in _CLAUSE_WORDS:
            found = (_CLAUSE, "", False, False)
        else:
            if lower.endswith("'s"):
                lower = lower[:-2]
            acronym = len(token) > 1 and token.isupper()
            if not acronym and len(token) > 2 and token[-1] == "s" and token[:-1].isupper():
                acronym, lower = True, lower[:-1]  # "POs" are purchase orders, "PO" one
                found = (_WORD, lower, True, True)
            elif (len(lower) < 3 or lower in STOP_WORDS) and not acronym:
                found = (_SKIP, "", False, False)
            else:
                found = (_WORD, lower if acronym else stem(lower), acronym, token[0].isupper())
    if len(_KINDS) < 500_000:
        _KINDS[token] = found
    return found


_FOREIGN_KINDS: Dict[str, Dict[str, Tuple[int, str, bool, bool]]] = {}


def _foreign_kind(lang: str):
    """:func:`_kind` for a text in ``lang``: its function words left out, its words stemmed in it."""
    stops = FOREIGN_STOP_WORDS[lang]
    clause_words = _FOREIGN_CLAUSE_WORDS[lang]
    kinds = _FOREIGN_KINDS.setdefault(lang, {})

    def kind(token: str) -> Tuple[int, str, bool, bool]:
        found = _kind(token)
        if found[0] in (_WORD, _SKIP) and token.lower() in clause_words:
            found = (_CLAUSE, "", False, False)
        elif found[0] == _WORD:
            lower = token.lower()
            if lower in stops and not found[2]:
                found = (_SKIP, "", False, False)
            else:
                found = (_WORD, _foreign_stem(lower, lang), found[2], found[3])
        if len(kinds) < 200_000:
            kinds[token] = found
        return found

    return kind


def _pairs(words: _Words) -> FrozenSet[Tuple[str, str]]:
    """Adjacent content-word pairs within one clause, and pairs one word apart (an adjective put
    in between keeps a pair)."""
    stems, clauses = words.stems, words.clauses
    out = set()
    for k in range(len(stems) - 1):
        if clauses[k] == clauses[k + 1]:
            out.add((stems[k], stems[k + 1]))
        if k + 2 < len(stems) and clauses[k] == clauses[k + 2]:
            out.add((stems[k], stems[k + 2]))
    return frozenset(out)


def _claim_pairs(words: _Words) -> Tuple[Tuple[str, str], ...]:
    stems, clauses = words.stems, words.clauses
    return tuple(dict.fromkeys((stems[k], stems[k + 1]) for k in range(len(stems) - 1)
                               if clauses[k] == clauses[k + 1] and stems[k] != stems[k + 1]))


# ---------------------------------------------------------------- framing


def _alternatives(words: str) -> str:
    return "(?:" + "|".join(words.split()) + ")"


_SOURCE = (r"(?:passages?|documents?|docs?|sources?|notes?|context|contexts|texts?|excerpts?|articles?|"
           r"snippets?|search\s+results?|results|materials?|information|data|records?|extracts?|"
           r"knowledge\s+base|references?|paragraphs?|sections?|chunks?)")
_NUMBERED = r"(?:\s*(?:#\s*)?[A-Za-z]?\d+(?:\s*(?:,|and|&|-|\u2013|to)\s*[A-Za-z]?\d+)*)"
_SAY = _alternatives(
    "states? stated says? said mentions? mentioned notes? noted explains? explained indicates? indicated "
    "suggests? suggested believes? believed argues? argued claims? claimed reports? reported describes? "
    "described shows? showed shown highlights? highlighted emphasi[sz]es? emphasi[sz]ed stresses? stressed "
    "concludes? concluded adds? added confirms? confirmed specifies? specified clarifies? clarified "
    "outlines? outlined details? detailed discusses? discussed covers? covered lists? listed provides? "
    "provided gives? gave reveals? revealed writes? wrote recommends? recommended advises? advised "
    "feels? felt thinks? thought")
_OPENERS = _alternatives(
    r"overall in\s+summary in\s+short in\s+conclusion in\s+brief in\s+essence to\s+summari[sz]e "
    r"to\s+sum\s+up all\s+in\s+all essentially basically in\s+general generally\s+speaking in\s+other\s+words "
    r"to\s+answer\s+your\s+question to\s+answer\s+the\s+question in\s+answer\s+to\s+your\s+question "
    r"in\s+a\s+nutshell simply\s+put put\s+simply ultimately finally additionally furthermore moreover also "
    r"however importantly notably specifically first(?:ly)? second(?:ly)? third(?:ly)? lastly next then "
    r"yes no sure certainly of\s+course absolutely indeed")

#: What may open a sentence and is set aside: the rest of the sentence is judged.
_LEAD_IN_PATTERNS: Tuple[str, ...] = (
    # "Overall,", "In summary,", "Yes,"
    r"^\s*" + _OPENERS + r"\s*[,:]\s*",
    # "Here is the answer:", "Here's what I found:", "Below are the steps:"
    r"^\s*(?:here|below)(?:\s+is|\s+are|'s|'re)\s+[^:.!?]{0,60}:\s*",
    # "Sure!", "Great question.", "Sure, I'd be happy to help." before the answer on the same line
    r"^\s*(?:sure|certainly|absolutely|of\s+course|great\s+question|good\s+question|happy\s+to\s+help|"
    r"thanks?(?:\s+you)?(?:\s+for\s+(?:asking|your\s+question|reaching\s+out))?)\s*[!.]+\s+(?=\S)",
    # "Based on the provided passages,", "According to passage 2,", "As stated in the documents,"
    r"^\s*(?:based\s+(?:solely\s+|only\s+)?on|according\s+to|as\s+(?:stated|described|mentioned|noted|explained|"
    r"shown|outlined|indicated|given|written|said|seen)\s+in|from|per|as\s+per|drawing\s+on|judging\s+by|going\s+by)"
    r"\s+(?:the\s+|these\s+|this\s+|those\s+|my\s+|your\s+)?(?:(?:provided|given|retrieved|available|above|"
    r"following|supplied|attached|cited|referenced|relevant|two|three|four|five|several|various|first|second|"
    r"third|last|same)\s+)*(?:information\s+(?:in|from)\s+the\s+)?" + _SOURCE + _NUMBERED +
    r"?(?:\s+(?:provided|given|above|below|retrieved|here|you\s+(?:provided|gave|shared)))?\s*[,:]\s*",
    # "Passage 2 states that", "The author believes", "The documents also mention that"
    r"^\s*(?:(?:the|this|that|these|those|each|both|all|one|another|every)\s+(?:of\s+the\s+)?)?(?:(?:provided|given|"
    r"retrieved|above|first|second|third|last|cited|same)\s+)*(?:" + _SOURCE + _NUMBERED + r"?|author|authors|writer|"
    r"writers|article's\s+author|speaker)\s+(?:(?:also|further|clearly|explicitly|specifically|only|then|"
    r"furthermore|additionally|briefly|directly|simply)\s+)?(?:" + _SAY + r")(?:\s+(?:that|how|what|"
    r"whether))?\s*[,:]?\s*",
    # "It is stated in passage 2 that", "It is mentioned that"
    r"^\s*it\s+is\s+(?:also\s+)?(?:stated|mentioned|noted|explained|said|shown|indicated|suggested|reported)"
    r"(?:\s+in\s+(?:the\s+)?" + _SOURCE + _NUMBERED + r"?)?\s+that\s+",
    # "In passage 2,", "In the documents,"
    r"^\s*in\s+(?:the\s+)?(?:(?:provided|given|retrieved|above|first|second|third|last)\s+)*" + _SOURCE +
    _NUMBERED + r"?\s*,\s*",
)
#: The lead-ins as one pattern; the first that matches is set aside.
LEAD_IN = re.compile("|".join(f"(?:{p})" for p in _LEAD_IN_PATTERNS), re.IGNORECASE)

#: References to passages inside a sentence, set aside: "(Passage 3)", "[Document 2, 4]", "(see source 1)".
PASSAGE_REFERENCE = re.compile(
    r"[(\[]\s*(?:see\s+|cf\.?\s+|from\s+|source:\s*|according\s+to\s+)?(?:the\s+)?" + _SOURCE + _NUMBERED +
    r"(?:\s*[,;]\s*(?:" + _SOURCE + r")?" + _NUMBERED + r")*\s*[)\]]"
    r"|\b(?:in|from|per|see|according\s+to)\s+(?:" + _SOURCE + r")" + _NUMBERED + r"\b"
    r"|\b(?:passages?|documents?|sources?|excerpts?|snippets?)" + _NUMBERED + r"\b",
    re.IGNORECASE)

_HAPPY = (r"(?:happy|glad|pleased|delighted)\s+to\s+(?:help|assist|answer|explain|clarify)"
          r"(?:\s+(?:you|with\s+(?:that|this|your\s+question)))*")
#: Sentences that only frame the answer: nothing in them is a fact about the question.
_FRAMING_PATTERNS: Tuple[str, ...] = (
    # "Here is a summary in 84 words or less.", "Here's what I found.", "Below are the steps."
    r"^\s*(?:here|below|above|following)(?:\s+is|\s+are|\s+you\s+go|'s|'re)\b(?![^:]*:\s*\S)",
    # "Sure, I'd be happy to help!", "I'm glad to help with that.", "Happy to help."
    r"^\s*(?:(?:sure|certainly|absolutely|of\s+course|yes|okay|ok|hi|hello)\W+)?(?:(?:i'd|i\s+would|i'm|i\s+am|"
    r"i'll|i\s+will)\s+(?:be\s+)?)?" + _HAPPY + r"\W*$",
    r"^\s*(?:i\s+)?(?:understand|see)\s+(?:your|the)\s+(?:concern|question|issue|frustration)\W*$",
    r"^\s*(?:(?:i'm|i\s+am)\s+)?(?:so\s+|very\s+)?sorry\s+(?:to\s+hear|for\s+the\s+(?:trouble|inconvenience))\b[^.!?]*[.!?]*$",
    # "Short answer: no.", "In short: yes, generally."
    r"^\s*(?:short\s+answer|in\s+short|tl;?\s?dr|the\s+short\s+answer\s+is)\s*:?\s*(?:(?:generally|usually|mostly|"
    r"basically|probably)\s+)?(?:yes|no)\W*$",
    # in German, French and Spanish: "Gerne!", "Ich hoffe, das hilft.", "J'espère que cela vous aide !",
    # "¡Espero que te sirva!", "Avec plaisir.", "Claro que sí."
    r"^\W*(?:gerne|gern\s+geschehen|sehr\s+gerne|avec\s+plaisir|bien\s+s\u00fbr|volontiers|con\s+gusto|claro(?:\s+que\s+s"
    r"\u00ed)?|por\s+supuesto|de\s+nada)\W*$",
    r"^\W*(?:ich\s+hoffe|hoffentlich)\b[^.!?]*\b(?:hilft|weiter|geholfen)\b\W*$",
    r"^\W*j'esp\u00e8re\s+que\s+(?:cela|\u00e7a|ceci)\s+(?:vous|t')\s*(?:aide|aidera|sera\s+utile)\W*$",
    r"^\W*espero\s+que\s+(?:esto\s+|le\s+|te\s+)*(?:sirva|ayude|resulte\s+\u00fatil)\W*$",
    r"^\W*(?:lassen\s+sie\s+(?:es\s+)?mich\s+wissen|n'h\u00e9sitez\s+pas|no\s+dude\s+en|av\u00edsame|h\u00e1zmelo\s+saber)\b",
    r"^\s*thanks?(?:\s+you)?\s+for\s+(?:asking|your\s+(?:question|patience|message)|reaching\s+out|"
    r"contacting\s+us)\b[^.!?]*[.!?]*$",
    r"^\s*(?:i\s+)?hope\s+(?:this|that|it|the\s+above)\s+(?:helps|answers|clarifies|is\s+helpful)\b",
    r"^\s*the\s+following\s+(?:is|are)\b(?![^:]*:\s*\S)",
    r"^\s*(?:this|the)\s+(?:answer|summary|response|reply|overview|list)\s+(?:is\s+)?(?:as\s+follows|below|"
    r"follows|is\s+based\s+on\b.*)\W*$",
    r"^\s*(?:please\s+)?(?:let\s+me\s+know|feel\s+free|don't\s+hesitate|do\s+not\s+hesitate)\b",
    r"^\s*(?:if\s+you\s+have\s+(?:any\s+)?(?:other|more|further)\s+questions|is\s+there\s+anything\s+else)\b",
    r"^\s*(?:sure|certainly|of\s+course|absolutely|great\s+question|good\s+question|thanks?(?:\s+you)?(?:\s+for"
    r"\s+(?:asking|your\s+question))?|okay|ok)\W*$",
    r"^\s*(?:let\s+me|i\s+will|i'll|i\s+can)\s+(?:explain|summari[sz]e|answer|help|walk\s+you|break\s+(?:it|this)"
    r"\s+down|outline|list|describe|go\s+through)\b(?![^:]*:\s*\S)",
    r"^\s*(?:i\s+)?summari[sz](?:e|ed|ing)\b.*\b(?:passages?|documents?|text|article|words?)\W*$",
    r"^\s*(?:the\s+)?answer\s+(?:to\s+(?:your|the)\s+question\s+)?(?:is\s+)?(?:as\s+follows|below)\W*$",
)
#: The framing sentences as one pattern.
FRAMING = re.compile("|".join(f"(?:{p})" for p in _FRAMING_PATTERNS), re.IGNORECASE)


class Framed:
    """A claim with its framing set aside: ``text`` (what is judged), ``set_aside`` (the lead-ins
    and passage references taken out, as written) and ``framing`` (the whole sentence only frames
    the answer)."""

    __slots__ = ("text", "set_aside", "framing")

    def __init__(self, text: str, set_aside: Tuple[str, ...], framing: bool) -> None:
        self.text, self.set_aside, self.framing = text, set_aside, framing


@lru_cache(maxsize=16384)
def frame(text: str) -> Framed:
    """Set aside a claim's framing (see the module docstring, step 2).

    >>> f = frame("Passage 2 states that the buyer contacts the vendor (Passage 3).")
    >>> f.text, f.set_aside, f.framing
    ('the buyer contacts the vendor.', ('Passage 2 states that', '(Passage 3)'), False)
    >>> frame("Here is a summary in 84 words or less.").framing
    True
    """
    set_aside: List[str] = []
    rest = _lead_ins(text, set_aside)
    if _REFERENCE_HINT.search(rest.lower()) is not None:
        found = [m.group().strip() for m in PASSAGE_REFERENCE.finditer(rest)]
        if found:
            set_aside += found
            rest = PASSAGE_REFERENCE.sub(" ", rest)
            rest = _lead_ins(re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", rest)).strip(), set_aside)
    framing = FRAMING.match(rest) is not None or not _LETTERS.search(rest)
    return Framed(rest, tuple(s for s in set_aside if s), framing)


def _lead_ins(text: str, set_aside: List[str]) -> str:
    """``text`` without the lead-ins it opens with (noted in ``set_aside``); never all of it."""
    for _ in range(4):
        m = LEAD_IN.match(text)
        if m is None or m.end() >= len(text):
            break
        set_aside.append(m.group().strip().rstrip(",:").strip())
        text = text[m.end():]
    return text


#: A sentence without any of these holds no reference to a passage (the search is skipped).
_REFERENCE_HINTS = ("passage", "document", "source", "excerpt", "snippet", "context", "article", "note", "text",
                    "result", "paragraph", "section", "chunk", "record", "reference", "material", "data", "doc",
                    "information", "extract", "knowledge")
_REFERENCE_HINT = re.compile("|".join(_REFERENCE_HINTS))
_LETTERS = re.compile(r"[^\W\d_]{2,}")


# ---------------------------------------------------------------- evidence


class _Sentence:
    """One evidence sentence: its stems, whether it negates, and per clause its stems and the
    stems within the scope of a negation."""

    __slots__ = ("text", "stemset", "negation", "clauses", "pairs", "asks", "condition", "initials", "acronyms",
                 "surface", "numbers")

    def __init__(self, text: str, found: Sequence[Mention], lang: str = "english") -> None:
        words = _Words(_without_numbers(text, found), lang)
        self.text = text
        # each stem as the sentence first writes it, and its numbers as written: what a reader is
        # shown as the words a claim found here
        self.surface = dict(zip(reversed(words.stems), reversed(words.surfaces)))
        self.numbers = tuple(m.surface for m in found)
        self.initials, self.acronyms = _initials(words)
        # "cannot be paid until ...": a negation that a condition lifts
        self.condition = words.has_negation and _CONDITION_AFTER_NEGATION.search(text.lower()) is not None
        # A question (the user's, or one a passage asks) asserts nothing a claim could contradict.
        self.asks = text.rstrip().endswith(("?", "\uff1f"))
        self.stemset = frozenset(words.stems)
        self.negation = words.has_negation
        self.pairs = _pairs(words)
        clauses: Dict[int, Tuple[set, set]] = {}
        for s, c, scoped in zip(words.stems, words.clauses, words.in_scope):
            stems, negated = clauses.setdefault(c, (set(), set()))
            stems.add(s)
            if scoped:  # negated here, in this clause (not wherever else the word stands)
                negated.add(s)
        self.clauses = tuple((frozenset(a), frozenset(b)) for a, b in clauses.values())


def _initials(words: _Words) -> Tuple[Dict[str, Tuple[str, ...]], FrozenSet[str]]:
    """What a sentence lets an abbreviation stand for: the initials of each run of two to four
    content words in one clause ("multi-factor authentication" gives "mfa", "purchase order"
    "po"), each with the stems it spells; and the acronyms the sentence writes ("MFA")."""
    surfaces, clauses, stems = words.surfaces, words.clauses, words.stems
    out: Dict[str, Tuple[str, ...]] = {}
    for k in range(len(surfaces) - 1):
        letters = surfaces[k][0]
        for j in range(k + 1, min(k + 4, len(surfaces))):
            if clauses[j] != clauses[k]:
                break
            letters += surfaces[j][0]
            out.setdefault(letters.lower(), stems[k:j + 1])
    acronyms = frozenset(st for st, surface in zip(stems, surfaces) if _is_acronym(surface))
    return out, acronyms


def _is_acronym(surface: str) -> bool:
    """ "MFA", "PO" and "POs"."""
    return len(surface) > 1 and (surface.isupper() or (surface[-1] == "s" and len(surface) > 2
                                                        and surface[:-1].isupper()))


class _Piece:
    """A question or a passage, analysed once: stems, pairs, numbers, sentences, and for each
    sentence the stems of it and the next one (a window of two sentences in a row)."""

    __slots__ = ("stems", "pairs", "numbers", "sentences", "windows", "initials", "acronyms", "language")

    def __init__(self, text: str, one_sentence: bool) -> None:
        text = clean_text(text)
        found = mentions(text)
        # a passage is long enough to tell its language; its sentences are read in it
        self.language = lang = language(text)
        # the evidence's "third" is the claim's "3rd"
        self.numbers = _Numbers(found + ordinal_words(text))
        sentences = []
        if one_sentence:
            sentences.append(_Sentence(text, found, lang))
        else:
            # The numbers of each sentence are those of the passage that lie within it: the
            # passage is searched for numbers once.
            pos, k = 0, 0
            for part in split_sentences(text):
                start = text.find(part, pos)
                if start < 0:  # the splitter changed the text (invisible marks): search the sentence
                    sentences.append(_Sentence(part, mentions(part), lang))
                    continue
                end = start + len(part)
                while k < len(found) and found[k].start < start:
                    k += 1
                inside = []
                j = k
                while j < len(found) and found[j].end <= end:
                    m = found[j]
                    inside.append(m._replace(start=m.start - start, end=m.end - start))
                    j += 1
                sentences.append(_Sentence(part, inside, lang))
                pos = end
        self.sentences = sentences = tuple(sentences)
        self.stems = frozenset().union(*(s.stemset for s in sentences))
        self.pairs = frozenset().union(*(s.pairs for s in sentences))
        initials: Dict[str, Tuple[str, ...]] = {}
        for sentence in sentences:
            for key, value in sentence.initials.items():
                initials.setdefault(key, value)
        self.initials = initials
        self.acronyms = frozenset().union(*(s.acronyms for s in sentences))
        self.windows = tuple(s.stemset | sentences[k + 1].stemset if k + 1 < len(sentences) else s.stemset
                             for k, s in enumerate(sentences))


#: Evidence with more sentences than this finds the claim's best sentence through an index.
_INDEX_FROM = 24


class _Question:
    """A user's question, read for the two things it adds to the evidence: its numbers
    (``numbers``: a claim may apply a passage's rule to the user's own order) and its stems
    (``stems``: a claim that only repeats the question's premise is backed by nothing). Each is
    read when first asked for, since most claims need neither: what :class:`_Piece` would give
    a question, without the sentence analysis no judgement reads."""

    __slots__ = ("text", "_found", "_numbers", "_stems")

    def __init__(self, question: str) -> None:
        self.text = clean_text(question)
        self._found: Optional[Tuple[Mention, ...]] = None
        self._numbers: Optional[_Numbers] = None
        self._stems: Optional[FrozenSet[str]] = None

    def _mentions(self) -> Tuple[Mention, ...]:
        if self._found is None:
            self._found = mentions(self.text)
        return self._found

    @property
    def numbers(self) -> _Numbers:
        if self._numbers is None:
            self._numbers = _Numbers(self._mentions() + ordinal_words(self.text))
        return self._numbers

    @property
    def stems(self) -> FrozenSet[str]:
        if self._stems is None:
            text = self.text
            self._stems = frozenset(_read_words(_without_numbers(text, self._mentions()),
                                                _language(digit_shape(text))).stems)
        return self._stems


class _Context:
    """Evidence (a question and some passages) put together from its analysed pieces. Only the
    passages back a claim's words: ``stems``, ``pairs`` and ``sentences`` are theirs, and
    ``asked`` holds the stems the question alone says (a claim that repeats the user's premise is
    backed by nothing). Numbers and names may come from either: a claim may apply a passage's rule
    to the user's own order ("At 1.5 percent, the analyst can release Orion's order"). Long
    evidence gets an index from each stem to the sentences that hold it.

    ``question`` ``None`` gives the passages alone (``asked`` empty), what
    :func:`_passages_context` keeps per set of passages; :func:`_with_question` adds a question to
    it without reading the passages again."""

    __slots__ = ("stems", "pairs", "numbers", "sentences", "windows", "index", "asked", "initials", "acronyms",
                 "language")

    def __init__(self, question: Optional[_Question], pieces: Sequence[_Piece]) -> None:
        languages = [p.language for p in pieces]
        self.language = max(set(languages), key=languages.count) if languages else "english"
        if len(pieces) == 1:
            self.stems, self.pairs = pieces[0].stems, pieces[0].pairs
            self.initials, self.acronyms = pieces[0].initials, pieces[0].acronyms
        else:
            self.stems = frozenset().union(*(p.stems for p in pieces))
            self.pairs = frozenset().union(*(p.pairs for p in pieces))
            self.initials = {k: v for p in reversed(pieces) for k, v in p.initials.items()}
            self.acronyms = frozenset().union(*(p.acronyms for p in pieces))
        own = [] if question is None else [question.numbers]
        self.numbers = _Numbers.union(own + [p.numbers for p in pieces])
        self.asked = frozenset() if question is None else question.stems - self.stems
        self.sentences = tuple(s for p in pieces for s in p.sentences)
        self.windows = tuple(w for p in pieces for w in p.windows)
        index: Optional[Dict[str, List[int]]] = None
        if len(self.sentences) > _INDEX_FROM:
            index = {}
            for k, s in enumerate(self.sentences):
                for st in s.stemset:
                    index.setdefault(st, []).append(k)
        self.index = index


def _with_question(base: _Context, question: _Question) -> _Context:
    """``base`` (passages alone) with the question's numbers and the stems only it says: what
    ``_Context(question, pieces)`` gives, the passages' analysis shared. The question's numbers
    come first, as there (where both write a number, the question's way of writing it is shown)."""
    numbers = question.numbers
    asked = question.stems - base.stems
    if not numbers.values and not asked:
        return base
    ctx = _Context.__new__(_Context)
    ctx.stems, ctx.pairs, ctx.sentences, ctx.windows = base.stems, base.pairs, base.sentences, base.windows
    ctx.index, ctx.initials, ctx.acronyms, ctx.language = base.index, base.initials, base.acronyms, base.language
    ctx.numbers = _Numbers.union([numbers, base.numbers]) if numbers.values else base.numbers
    ctx.asked = asked
    return ctx


def _question_key(claim: "_Claim", question: _Question, base: _Context) -> Tuple[Any, FrozenSet[str]]:
    """All that ``question`` can change in the verdict on ``claim`` against the passages ``base``:
    for each of the claim's numbers whether the evidence (question and passages) gives it and how it
    writes it, with the evidence's numbers as listed when one is missing (the reason names them);
    and the claim's stems that only the question says. Two questions with the same key give the
    same verdict: the question adds nothing else to the evidence (:class:`_Context`). Read from
    the question and the passages apart, as :func:`_with_question` would put them together."""
    numbers: Any = None
    if claim.numbers:
        own, have = question.numbers, base.numbers
        mine, theirs = own.shown, have.shown
        found = []
        every = True
        for m in claim.numbers:
            value = m.value
            given = own.has(m) or have.has(m)
            every = every and given
            found.append((given, mine[value] if value in mine else theirs.get(value)))
        numbers = tuple(found)
        if not every:
            numbers = (numbers, _Numbers.union([own, have]).listed())
    asked = claim.stemset - base.stems
    return numbers, (asked & question.stems if asked else asked)


@lru_cache(maxsize=4096)
def _passage_piece(text: str) -> _Piece:
    return _Piece(text, one_sentence=False)


@lru_cache(maxsize=4096)
def _question(question: str) -> _Question:
    return _Question(question)


@lru_cache(maxsize=4096)
def _passages_context(texts: Tuple[str, ...]) -> _Context:
    """The passages ``texts`` put together, without a question: kept per set of passages."""
    return _Context(None, [_passage_piece(t) for t in texts])


def _context(question: str, texts: Tuple[str, ...]) -> _Context:
    """The evidence of a question and passages."""
    return _with_question(_passages_context(texts), _question(question))


@lru_cache(maxsize=8192)
def _read_words(text: str, lang: str) -> "_Words":
    """:class:`_Words` of a text with its numbers written as 0 (``_without_numbers``), kept: claims
    and questions that differ only in their numbers ("order 2408", "order 7731") read the same words."""
    return _Words(text, lang)


# ---------------------------------------------------------------- the claim


class _Claim:
    __slots__ = ("framed", "words", "stems", "stemset", "pairs", "numbers", "negated", "clauses")

    def __init__(self, text: str, lang: str = "english") -> None:
        framed = _framed(clean_text(text))
        self.framed = framed
        found = mentions(framed.text)
        self.words, self.stems, self.stemset, self.pairs, self.clauses = _claim_words(
            _without_numbers(framed.text, found), lang)
        self.negated = self.words.has_negation
        self.numbers = distinct(found)


def _framed(text: str) -> Framed:
    """:func:`frame` of a claim, read once per shape (its digits as 0) when nothing is set aside: the
    framing patterns tell no digit from another, so a claim whose shape has no framing has none."""
    shape = digit_shape(text)
    if shape != text:
        framed = frame(shape)
        if not framed.set_aside and not framed.framing and framed.text == shape:
            return Framed(text, (), False)
    return frame(text)


@lru_cache(maxsize=8192)
def _claim_words(text: str, lang: str) -> tuple:
    """What a claim's words give (its words, their stems once each as a tuple and a set, its pairs
    and its clauses), kept per text with its numbers as 0: claims that differ only in their numbers
    read the same."""
    words = _read_words(text, lang)
    stems = tuple(dict.fromkeys(words.stems))
    # the clauses of two content words or more: (their stems, the words as written)
    clauses: Dict[int, Dict[str, str]] = {}
    for st, surface, c in zip(words.stems, words.surfaces, words.clauses):
        clauses.setdefault(c, {}).setdefault(st, surface)
    return (words, stems, frozenset(stems), _claim_pairs(words),
            tuple((tuple(ws), tuple(dict.fromkeys(ws.values()))) for ws in clauses.values()
                  if len(ws) >= 2) if len(clauses) > 1 else ())


@lru_cache(maxsize=16384)
def _claim(text: str, evidence_language: str = "english") -> _Claim:
    """A claim analysed in its language: its own when it tells it ("Der Antrag muss genehmigt
    werden"), else its passages' when they are not English and the claim shows no English
    ("Estos días deben utilizarse antes del 31 de marzo." against Spanish passages)."""
    return _Claim(text, _claim_language(digit_shape(text), evidence_language))


@lru_cache(maxsize=8192)
def _claim_language(text: str, evidence_language: str) -> str:
    """The language a claim is read in (see :func:`_claim`): read in its words alone, so the same for
    the claim and its shape (:func:`~groundlab.core.numbers.digit_shape`)."""
    lang = language(text)
    if lang == "english" and evidence_language != "english" and \
            sum(1 for w in _WORDS_OF.findall(text.lower()) if w in _ENGLISH_HINTS) < 2:
        lang = evidence_language
    return lang


_ENGLISH_HINTS = frozenset("the is are and of to for with you your this that be can will it an on by has have".split())


#: The signals, in the order of the weights.
FEATURES: Tuple[str, ...] = ("coverage", "pairs", "sentence", "window", "names", "clause")
#: The side each signal speaks for: +1 for support (more of the claim's words and pairs found), -1
#: against it (names the evidence lacks, a clause it mostly lacks). A fit keeps every weight on its side.
FEATURE_SIGNS: Tuple[int, ...] = (1, 1, 1, 1, -1, -1)


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
        if spelled:
            accounted = frozenset().union(*(claimed for claimed, _ in spelled))
            have = have | accounted
            missing = [s for s in missing if s not in accounted]
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
    the claim negates; ``None`` when there is no such flip (see the module docstring, step 4)."""
    if best < 0:
        return None
    sentence = context.sentences[best]
    if not (claim.negated or sentence.negation):
        return None
    stemset = claim.stemset
    need = max(2, math.ceil(_NEED * len(stemset)))
    # The fewest clauses in a row of the evidence sentence that say what the claim says ("The
    # invoice cannot be paid | until the variance is cleared" for "The invoice can be paid before
    # the variance is cleared"); among as many, the one sharing most words. A negation in a clause
    # outside them does not reach the claim.
    clauses = sentence.clauses
    clause, negated, best_key = None, None, None
    for i in range(len(clauses)):
        stems, neg = frozenset(), frozenset()
        for j in range(i, len(clauses)):
            stems, neg = stems | clauses[j][0], neg | clauses[j][1]
            shared = len(stemset & stems)
            if shared >= need:
                key = (j - i, -shared)
                if best_key is None or key < best_key:
                    clause, negated, best_key = stems, neg, key
                break
    if clause is None:
        return None  # no run of clauses says what the claim says: a flip would mean nothing
    claim_negated = claim.words.negated
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


#: After a negation, a condition that lifts it: "cannot be paid until the variance is cleared".
_CONDITION_AFTER_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|cannot|nothing|none)\b|n't\b)[^.;!?]*?\b(?:unless|until|till|except|before|without)\b")
#: A claim that states the condition met: "can be paid once the variance is cleared".
_CONDITION_MET = re.compile(r"\b(?:once|after|when|whenever|if|as\s+soon\s+as|provided|only\s+(?:if|when|after))\b")


# ---------------------------------------------------------------- how often, which way

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
        "monthly": ("monthly", "every month", "each month", "per month", "once a month"),
        "quarterly": ("quarterly", "every quarter", "each quarter", "per quarter", "once a quarter"),
        "yearly": ("yearly", "annually", "annual", "every year", "each year", "per year", "once a year", "per annum"),
    },
    "when": {
        "before": ("before", "prior to", "ahead of", "in advance of"),
        "after": ("after", "afterwards"),
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
    "how many times": {
        "always": ("always", "every time", "in all cases", "in every case", "for every", "for all", "for each",
                   "without exception"),
        "only": ("only when", "only if", "only for", "only after", "only before", "only in", "only on", "only with",
                 "sometimes", "in some cases", "occasionally", "only where"),
    },
}
_CONFLICT_WORDS = {w: (kind, side) for kind, sides in CONFLICTS.items() for side, words in sides.items()
                   for w in words}
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


@lru_cache(maxsize=65536)
def _conflict_terms(text: str) -> Dict[str, Dict[str, str]]:
    """The how-often, when, which-way and bound words of a text: ``{kind: {side: as written}}``."""
    out: Dict[str, Dict[str, str]] = {}
    lowered = text.lower()
    words = [(m.group(), m.start(), m.end()) for m in _LOWER_WORD.finditer(lowered)]
    phrases = _CONFLICT_PHRASES
    k = 0
    while k < len(words):
        first = words[k][0]
        options = phrases.get(first)
        if options is None:
            k += 1
            continue
        found = None
        for tokens, where in options:
            n = len(tokens)
            if tuple(w for w, _, _ in words[k:k + n]) == tokens:
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
        if (tuple(w for w, _, _ in words[k:k + n]) in _BOUND_NEEDS_AMOUNT
                and _AMOUNT_NEXT.match(lowered, end) is None):
            k += 1
            continue  # "over the weekend", "under review", "sign up to": no bound; "over 500 EUR" is one
        out.setdefault(kind, {}).setdefault(side, text[words[k][1]:end])
        k += n
    return out


def _terms(text: str) -> Dict[str, Dict[str, str]]:
    """:func:`_conflict_terms` of a text, read once per shape (its digits as 0): its patterns tell no
    digit from another, and the words found hold no digit unless a digit stands inside a phrase."""
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
    return frozenset(stem(w) for sides in said.values() for word in sides.values()
                     for w in re.findall(r"[^\W\d_]+", word.lower()) if len(w) >= 3)


def _conflict(claim: _Claim, context: _Context, best: int) -> Optional[Tuple[str, str, str, str]]:
    """``(kind, the claim's word, the evidence's word, the evidence sentence)`` when the evidence
    sentence that holds most of the claim's words says another how-often, when, which-way or bound
    word than the claim's, and not the claim's own; ``None`` otherwise."""
    if best < 0:
        return None
    said = _terms(claim.framed.text)
    if not said:
        return None
    sentence = context.sentences[best]
    # The sentence must say what the claim says but for those words, and say little else: in a long
    # sentence another "after" or "rise" is about something else.
    core = claim.stemset - _conflict_stems(said)
    if not core or len(sentence.stemset) > 3 * len(core) + 8 or \
            4 * len(core & sentence.stemset) < 3 * len(core):
        return None
    there = _terms(sentence.text)
    for kind, sides in said.items():
        if len(sides) != 1 or kind not in there:
            continue
        (side, word), = sides.items()
        if side in there[kind]:
            continue
        other = next(iter(there[kind].values()))
        return kind, word, other, sentence.text
    return None


# ---------------------------------------------------------------- the judge


DEFAULT_CONFIG = "signals.json"

#: What a judge config file says it is.
CONFIG_KIND = "groundlab judge config"


class JudgeConfig:
    """The weights and threshold of the signals judge, read from a file and checked.

    ``path`` is where it came from (``None``: the weights shipped with groundlab), ``sha256`` the
    hash of its bytes (recorded in the judge's identity), ``data`` the parsed file."""

    def __init__(self, data: Mapping[str, Any], path: Optional[Path], sha256: str) -> None:
        self.data, self.path, self.sha256 = dict(data), path, sha256
        self.weights = tuple(float(data["weights"][name]) for name in FEATURES)
        self.intercept = float(data["weights"]["intercept"])
        self.threshold = float(data["threshold"])


#: The largest judge config read: the file calibrate writes is about 2 KB.
MAX_CONFIG_BYTES = 1 << 20


def load_config(path: Union[str, Path, None] = None) -> JudgeConfig:
    """A judge config: the file ``groundlab calibrate`` wrote, or (``None``) the one shipped with
    groundlab. A file that is not one says so in one sentence."""
    import hashlib

    if path is None:
        raw = resources.files("groundlab").joinpath("data", DEFAULT_CONFIG).read_bytes()
        where, shown = None, f"groundlab/data/{DEFAULT_CONFIG}"
    else:
        where = Path(path)
        shown = str(where)
        try:
            with open(where, "rb") as fh:
                raw = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise GroundlabError(f"judge config {shown} cannot be read ({exc.strerror or exc}); give the file "
                                 "'groundlab calibrate --out' wrote.") from None
        if len(raw) > MAX_CONFIG_BYTES:  # /dev/zero, or another file passed by mistake
            raise GroundlabError(f"judge config {shown} is larger than {MAX_CONFIG_BYTES >> 20} MB, which no judge "
                                 "config is; give the file 'groundlab calibrate --out' wrote.")
    from ..core.io import json_problem

    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GroundlabError(f"judge config {shown} is not JSON ({json_problem(exc)}); give the file "
                             "'groundlab calibrate --out' wrote.") from None
    check_config(data, shown)
    return JudgeConfig(data, where, hashlib.sha256(raw).hexdigest())


def check_config(data: Any, shown: str) -> None:
    """Refuse, in one sentence, a judge config of the wrong shape or of another judge."""
    if not isinstance(data, dict) or data.get("kind") != CONFIG_KIND:
        raise GroundlabError(f"judge config {shown} is not a groundlab judge config (no \"kind\": "
                             f"\"{CONFIG_KIND}\"); give the file 'groundlab calibrate --out' wrote.")
    if data.get("judge") != SignalsJudge.name:
        raise GroundlabError(f"judge config {shown} is for the {data.get('judge')!r} judge, not "
                             f"{SignalsJudge.name!r}; use it with that judge, or calibrate this one.")
    if str(data.get("judge_version", SignalsJudge.version)) != SignalsJudge.version:
        raise GroundlabError(f"judge config {shown} was fitted for version {data.get('judge_version')} of the signals "
                             f"judge, whose signals differ from this version {SignalsJudge.version}'s; calibrate again "
                             "on the same labels ('groundlab calibrate --out ...').")
    weights = data.get("weights")
    names = ("intercept",) + FEATURES
    if not isinstance(weights, dict) or any(not _finite(weights.get(k)) for k in names):
        missing = [k for k in names if not isinstance(weights, dict) or not _finite(weights.get(k))]
        raise GroundlabError(f"judge config {shown} lacks a number for the weight {missing[0]!r} (it needs "
                             f"{', '.join(names)}); calibrate again to write a complete file.")
    if not _finite(data.get("threshold")) or not 0 < float(data["threshold"]) < 1:
        raise GroundlabError(f"judge config {shown} needs a \"threshold\" between 0 and 1; calibrate again "
                             "to write a complete file.")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=1)
def _shipped() -> JudgeConfig:
    return load_config(None)


@lru_cache(maxsize=4096)
def _framing_verdict(set_aside: Tuple[str, ...]) -> Verdict:
    return Verdict("supported", "framing sentence, not a fact" + _aside(set_aside), 1.0)


#: Verdicts kept per judge for claims met again against the same evidence.
_MEMO_SIZE = 65536


class SignalsJudge:
    """Numbers, scoped negation and word signals weighed by a logistic model (see the module
    docstring). ``config``: a judge config file ``groundlab calibrate`` wrote, or ``None`` for
    the weights shipped with groundlab; ``threshold`` overrides its threshold."""

    name = "signals"
    version = "2"
    #: Pure Python on local data: a large run may be split over processes.
    cpu_bound = True

    def __init__(self, config: Union[str, Path, JudgeConfig, None] = None,
                 threshold: Optional[float] = None) -> None:
        if isinstance(config, JudgeConfig):
            self.config = config
        else:
            self.config = _shipped() if config is None else load_config(config)
        if threshold is not None and not 0 < threshold < 1:
            raise ValueError("threshold must be in (0, 1)")
        self.threshold = float(self.config.threshold if threshold is None else threshold)
        self._weights = self.config.weights
        self._intercept = self.config.intercept
        self._memo: Dict[tuple, Verdict] = {}

    def identity(self) -> Dict[str, Any]:
        """The weights behind the verdicts: which file and its sha256."""
        return {"config": str(self.config.path) if self.config.path else f"groundlab/data/{DEFAULT_CONFIG}",
                "config_sha256": self.config.sha256}

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        out = []
        last = None
        base = context = question = None
        ids: FrozenSet[str] = frozenset()
        memo = self._memo
        for text, evidence in pairs:
            if evidence is not last:  # the claims of one case share one Evidence
                last = evidence
                passages = evidence.passages
                base = _passages_context(tuple([p.text for p in passages]))
                ids = _ids(tuple([p.id for p in passages]))
                context = question = None  # the question is read only when a claim needs it
            claim = _claim(text, base.language)
            # The same claim against the same passages is judged once: a repeated answer, the cited
            # passages being all the retrieved ones, or another case's question that changes nothing
            # in it (a claim without numbers, all of whose words the passages hold, reads nothing of
            # the question at all).
            asks = claim.numbers or not claim.stemset <= base.stems
            if asks:
                if question is None:
                    question = _question(evidence.question)
                key: tuple = (claim, base, ids, _question_key(claim, question, base))
            else:
                key = (claim, base, ids)
            verdict = memo.get(key)
            if verdict is None:
                if asks and context is None:
                    context = _with_question(base, question)
                verdict = self._judge(claim, context if asks else base, ids)
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                memo[key] = verdict
            out.append(verdict)
        return out

    def judge(self, text: str, evidence: Evidence) -> Verdict:
        """The verdict on one claim."""
        return self.judge_batch([(text, evidence)])[0]

    def score(self, signals: Signals) -> float:
        """The probability, by the model, that a person finds a claim with these signals supported."""
        z = self._intercept
        for w, v in zip(self._weights, signals.values):
            z += w * v
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def measure(self, text: str, evidence: Evidence) -> Tuple[str, Optional[Signals]]:
        """How a claim is decided: ``("framing", None)``, ``("number", None)``, ``("empty", None)``
        (no content words), ``("negation", signals)``, ``("conflict", signals)`` (another how-often,
        when, which-way or bound word than the evidence's) or ``("model", signals)``; what the fit
        of the weights reads."""
        context = _context(evidence.question, tuple([p.text for p in evidence.passages]))
        route, signals, _ = _decide(_claim(text, context.language), context, _passage_ids(evidence))
        return route, signals

    def _judge(self, claim: _Claim, context: _Context, ids: FrozenSet[str] = frozenset()) -> Verdict:
        route, signals, detail = _decide(claim, context, ids)
        if route == "framing":
            return _framing_verdict(claim.framed.set_aside)
        aside = _aside(claim.framed.set_aside)
        if route == "empty":
            return Verdict("supported", f"no content words to check{aside}", 1.0)
        if route == "model":
            p = self.score(signals)
            label = "supported" if p >= self.threshold else "unsupported"
            evidence, matched, clashed = _evidence(claim, context, label, signals, detail, ids)
            return Verdict(label, _reason(label, p, self.threshold, claim, signals, _stated_numbers(claim, ids))
                           + aside, p, evidence=evidence, matched=matched, clashed=clashed)
        evidence, matched, clashed = _evidence(claim, context, route, signals, detail, ids)
        if route == "number":
            return Verdict(detail.label, detail.reason, detail.score, evidence=evidence, matched=matched,
                           clashed=clashed)
        if route == "negation":
            side = "the claim negates what the evidence says" if claim.words.negated \
                else "the evidence negates what the claim says"
            return Verdict("contradicted", f"negation flip: {side} (\"{_quote(detail)}\"); "
                           f"{signals.covered}/{signals.n} content words in the evidence{aside}", 0.0,
                           evidence=evidence, matched=matched, clashed=clashed)
        kind, said, other, sentence = detail
        return Verdict("contradicted", f"{kind}: the claim says \"{said}\" where the evidence says \"{other}\" "
                       f"(\"{_quote(sentence)}\"); {signals.covered}/{signals.n} content words in the evidence{aside}",
                       0.0, evidence=evidence, matched=matched, clashed=clashed)


_NEGATION_WORD = re.compile(r"\b(?:" + "|".join(sorted(NEGATIONS, key=len, reverse=True)) + r")\b|\b\w+n['\u2019]t\b",
                            re.IGNORECASE)


def _best_sentence(claim: _Claim, context: _Context) -> int:
    """The evidence sentence holding most of the claim's words (-1 when none holds any): for a
    claim a number decided, the sentence to show beside it."""
    stemset = claim.stemset
    best, best_found = -1, 0
    for k, sentence in enumerate(context.sentences):
        found = len(stemset & sentence.stemset)
        if found > best_found and not sentence.asks:
            best, best_found = k, found
    return best


def _evidence(claim: _Claim, context: _Context, route: str, signals: Optional[Signals], detail: Any,
              ids: FrozenSet[str]) -> Tuple[Optional[str], Tuple[str, ...], Tuple[str, ...]]:
    """The sentence that decided a verdict, the claim's words and numbers it holds (as it writes
    them), and what parts the two: the negation, the other bound, the numbers the claim states
    that the evidence lacks beside the ones the sentence gives, or (``route`` ``unsupported``, a
    verdict of the model) the claim's words the evidence lacks. ``route`` is the step that decided
    (:func:`_decide`), with ``supported`` and ``unsupported`` for the model's two verdicts."""
    best = signals.best if signals is not None else _best_sentence(claim, context)
    if best < 0:
        if route == "number":
            return None, (), tuple(m.surface for m in _stated_numbers(claim, ids) if not context.numbers.has(m))
        return None, (), ()
    sentence = context.sentences[best]
    surface = sentence.surface
    matched = [surface[st] for st in claim.stems if st in surface]
    if claim.numbers:  # distinct already; a passage id the claim names is no number the evidence shows
        shown = context.numbers.shown
        matched += [shown[m.value] for m in claim.numbers if m.value in shown]
    if route == "supported":
        return sentence.text, tuple(matched), ()
    matched = tuple(matched)
    numbers = _stated_numbers(claim, ids)
    if route == "unsupported":
        words = dict(zip(claim.words.stems, claim.words.surfaces))
        clashed = tuple([words.get(st, st) for st in signals.missing])
    elif route == "number":
        have = context.numbers
        # the claim's numbers the evidence lacks, and the sentence's own numbers the claim does not share
        clashed = tuple(dict.fromkeys([m.surface for m in numbers if not have.has(m)]
                                      + [n for n in sentence.numbers if n not in matched]))
    elif route == "negation":
        clashed = tuple(dict.fromkeys(w.group() for w in _NEGATION_WORD.finditer(sentence.text + " " +
                                                                               claim.framed.text)))
    else:  # another how-often, when, which-way or bound word
        clashed = (detail[1], detail[2])
    return sentence.text, matched, clashed


def _passage_ids(evidence: Evidence) -> FrozenSet[str]:
    """The evidence's passage ids as the numbers step reads codes (lower case): an answer that names
    a passage in its text ("see KB-5") refers to it, it does not state a number."""
    return _ids(tuple([p.id for p in evidence.passages]))


@lru_cache(maxsize=4096)
def _ids(ids: Tuple[str, ...]) -> FrozenSet[str]:
    return frozenset(i.lower() for i in ids if _DIGIT.search(i) is not None)


_DIGIT = re.compile(r"\d")


def _stated_numbers(claim: _Claim, ids: FrozenSet[str]) -> Tuple[Mention, ...]:
    """The claim's numbers without the codes that are ids of the evidence's passages, nor names
    that start with a digit ("2FA", "3PL": two-factor authentication, third-party logistics)."""
    if not claim.numbers:
        return claim.numbers
    return tuple(m for m in claim.numbers if m.kind != "code" or (m.value not in ids
                                                                    and not _DIGIT_NAME.fullmatch(m.surface)))


_DIGIT_NAME = re.compile(r"\d[A-Z]{2,}")


def _decide(claim: _Claim, context: _Context,
            ids: FrozenSet[str] = frozenset()) -> Tuple[str, Optional[Signals], Any]:
    """Which step decides a claim (see the module docstring), its signals when measured, and what
    the step found: the number verdict, the negated evidence sentence, or the missing clause."""
    if claim.framed.framing:
        return "framing", None, None
    numbers = _stated_numbers(claim, ids)
    if numbers:
        flagged = number_verdict(numbers, context.numbers, _aside(claim.framed.set_aside))
        if flagged is not None:
            return "number", None, flagged
    if not claim.stems:
        return "empty", None, None
    signals = _signals(claim, context)
    flipped = _negation_flip(claim, context, signals.best)
    if flipped is not None:
        return "negation", signals, flipped
    conflict = _conflict(claim, context, signals.best)
    if conflict is not None:
        return "conflict", signals, conflict
    return "model", signals, None


def _aside(set_aside: Tuple[str, ...]) -> str:
    if not set_aside:
        return ""
    return "; set aside: " + ", ".join(f"\"{_quote(s, 40)}\"" for s in set_aside)


def _reason(label: str, p: float, threshold: float, claim: _Claim, s: Signals,
            numbers: Sequence[Mention]) -> str:
    sign = "\u2265" if label == "supported" else "<"
    parts = [f"score {p:.2f} {sign} {threshold:.2f}",
             f"{s.covered}/{s.n} content words in the evidence"]
    if s.missing:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        shown = [surface.get(m, m) for m in s.missing[:5]]
        more = ", \u2026" if len(s.missing) > 5 else ""
        parts[-1] += f" (missing: {', '.join(shown)}{more})"
    if s.pairs_total:
        parts.append(f"{s.pairs_found}/{s.pairs_total} word pairs")
    parts.append(f"best sentence holds {s.best_found}/{s.n}")
    if s.names_missing:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        parts.append(f"names not in the evidence: {', '.join(surface.get(m, m) for m in s.names_missing[:3])}")
    if s.clause is not None:
        words, found, total = s.clause
        parts.append(f"the clause \"{_quote(' '.join(words), 60)}\" has {found}/{total} in the evidence")
    if s.asked:
        surface = dict(zip(claim.words.stems, claim.words.surfaces))
        parts.append(f"only the question says {', '.join(surface.get(m, m) for m in s.asked[:3])}")
    if numbers:
        parts.append(f"numbers {', '.join(_written(m.surface) for m in numbers)} found")
    return "; ".join(parts)


__all__ = ["FEATURES", "JudgeConfig", "SignalsJudge", "Signals", "clean_text", "check_config", "frame",
           "load_config", "stem"]
