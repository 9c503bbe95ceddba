"""The signals judge's words: a text's tokens and their stems, its language (English, German,
French or Spanish: which stemmer and which function words), its text cleaned of HTML, and the
content words of one sentence with their clauses, names and the words a negation reaches
(:class:`_Words`), and the pairs of adjacent words the judge compares. Each token, stem and
shape of a text is read once and kept.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

# A text's language is read in the core: the claim splitter picks an answer's language with it too.
from ...core.languages import _ALL_HINTS, _LANGUAGE_HINTS, _WORDS_OF, ENGLISH_HINTS, language, language_told  # noqa: F401
from ...core.quantities import DEADLINE_WORDS
from ...core.sentences import CJK_CHARS, ScriptPattern, character_pairs

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
whose why will with within without would yet you your yours yourself yourselves get gets got getting gotten
please kindly minus
""".split())

#: Words that negate what follows them in their clause.
NEGATIONS: FrozenSet[str] = frozenset({"not", "no", "never", "cannot", "none", "neither", "nor", "nobody",
                                       "nothing", "nowhere", "without",
                                       # German, French and Spanish answers negate with these ("sin" and
                                       # "sans" are English words too, and left out)
                                       "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie",
                                       "niemals", "nichts", "ohne", "pas", "jamais", "aucun", "aucune", "nunca", "ningún",
                                       "ninguna", "ninguno",
                                       # "Eine Auszahlung ist ausgeschlossen": is not possible
                                       "ausgeschlossen"})

#: German negations that stand after the verb they negate ("Die Gutschrift verfällt nicht"): they
#: reach back to the start of their clause as well as forward to its end.
_NEGATIONS_AFTER_THE_VERB: FrozenSet[str] = frozenset({"nicht", "nie", "niemals", "ausgeschlossen"})
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
_TOKEN = ScriptPattern(r"[" + _CJK + r"]+|[^\W\d_" + _CJK + r"][^\W_" + _CJK + r"]*(?:['\u2019][^\W\d_]+)*"
                    r"|[,;:()\u2013\u2014\uff0c\uff1b\uff1a\uff08\uff09\u3001]|--")
#: A word and an auxiliary written together ("you'll", "we'd", "they're", "I've").
_CONTRACTED = re.compile(r"([^\W\d_]+)['\u2019](?:ll|d|re|ve|m)")


def _function_word_contracted(lower: str) -> bool:
    """Whether ``lower`` is a function word with its auxiliary ("you'll"): no content word."""
    contracted = _CONTRACTED.fullmatch(lower)
    return contracted is not None and contracted.group(1) in STOP_WORDS


_CJK_RUN = ScriptPattern(r"[" + _CJK + r"]")
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
#: A negation inside a noun phrase, which negates no clause: "days not taken by 31 March are
#: forfeited" (a participle after its noun), "nicht genommene Urlaubstage" (an adjective before it).
#: It is read as one word ("untaken"), which a claim without the negation does not match.
_NOUN_NOT = re.compile(
    r"\b([^\W\d_]{3,})\s+not\s+(?=(?:[a-z]{2,}(?<!e)ed|taken|given|paid|made|done|sent|spent|kept|held|met|sold|"
    r"bought|brought|told|found|left|lost|shown|known|seen|written|driven|chosen|drawn|worn|broken|forgotten|"
    r"withdrawn|undertaken|overridden)\b)"
    r"|\b([Nn]icht)\s+(?=[a-zäöüß]{3,}(?:t|en|ig|lich|bar|isch)(?:e|en|er|es|em)\s+[A-ZÄÖÜ])")
#: Words after which "not" negates the clause, though they are no stop words.
_NOT_AFTER = frozenset(("need", "needs", "dare", "dares", "certainly", "definitely"))


def _noun_negation(match: "re.Match[str]") -> str:
    word = match.group(1)
    if word is None:  # "nicht genommene Urlaubstage"
        return "un"
    lower = word.lower()
    if lower in STOP_WORDS or lower in NEGATIONS or lower in _NOT_AFTER or lower.endswith("ly"):
        return match.group()  # "are not taken", "usually not approved": the clause is negated
    return word + " un"


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
am ans aufs beim ins vors zu zur zum bzw bzgl ca etc inkl mind max gem ggf evtl usw vgl zzgl
noch nur schon auch bereits dabei damit danach dadurch dafür dagegen daher darauf darin davon dazu somit
jedoch allerdings also außerdem zudem sonst trotzdem dann denn doch eben etwa ja nein nun immer wieder
beide beiden beider jeweils jeweilige jeweiligen jeweiliger selbst sowie sowohl weder einzeln
wird wirst werde gewesen worden wären wäre würde würden hätte hätten kannst könnte könnten musst müsste
sollte sollten darfst durfte möchte möchten mag gibt gab gegeben geben gilt gelten galt
erhalten erhält erhältst bekommen bekommt
man mein meine meinen meinem meiner unser unsere unserem unseren euer eure dein deine deinen
dort dorthin hierzu hierfür hiermit wo wann warum weshalb wieso was wer wen wem wessen
gar höchstens mindestens pro je abzüglich abzgl
""".split()),
    "french": frozenset("""
le la les un une des du de et ou mais est sont était étaient sera seront être avoir a ont avait il elle ils
elles nous vous je tu on se sa son ses leur leurs ce cet cette ces qui que quoi dont où dans sur sous par
pour avec sans chez vers entre aussi très plus peut peuvent doit doivent faut votre vos notre nos mon ma mes
tout tous toute toutes si comme
au aux ce ces cela ceci ça celui celle ceux celles lui leur y en ne pas plus moins très trop déjà encore
aussi ainsi alors donc puis ensuite toujours jamais seulement notamment environ env ex p
fait faire fais font peut-être il y a sont été étant ai as avons avez avez-vous recevez reçoit recevoir
obtenir obtient obtenez donne donnent avant après
suis es sommes êtes étais étiez serai seras serez serons serait seraient soit soient
""".split()),
    "spanish": frozenset("""
el la los las un una unos unas de del y o pero es son era eran será ser estar está están ha han había él ella
ellos ellas nosotros usted ustedes yo tú se su sus lo le les que quien cual cuyo donde en sobre bajo por para
con sin entre también muy más puede pueden debe deben hay su sus nuestro nuestra todo todos toda todas si como
al este esta estos estas ese esa
""".split()),
}
_FOREIGN_STEMMERS: Dict[str, Any] = {}
#: :func:`language` kept per text: read in words alone, it is the same for a text and its shape.
_language = lru_cache(maxsize=4096)(language)


@lru_cache(maxsize=200_000)
def _foreign_stem(word: str, lang: str, participle: bool = False) -> str:
    """A German, French or Spanish word's Snowball stem, cut to six letters: "beantragen" and
    "beantragt", "genehmigt" and "Genehmigung" meet (the stemmers leave participles apart). A
    German ``participle`` (a word in lower case) loses its "ge-" ("gekürzt", "ausgezahlt"), and a
    German stem its verb ending -t ("kürzt" meets "kürzen")."""
    stemmer = _foreign_stemmer(lang)
    if lang == "german":
        if participle:  # a past participle meets its verb: "gekürzt" and "kürzt", "ausgezahlt" and "auszahlen"
            word = _GERMAN_PARTICIPLE.sub(r"\1", word)
        found = stemmer.stemWord(word)[:6]
        # "kürzt" and "kürzen": the stemmer leaves the ending -t
        return found[:-1] if len(found) >= 5 and found[-1] == "t" and found[-2] not in "aeiouäöüst" else found
    return stemmer.stemWord(word)[:6]


@lru_cache(maxsize=50_000)
def german_whole_stem(word: str) -> str:
    """A lower-case German word's Snowball stem, not cut: what a compound's parts are found in
    ("wochenstund" holds "stund", which the six letters "wochen" lose)."""
    return _foreign_stemmer("german").stemWord(word)


#: A German word cut short before "und" or "oder", its head left to the next word: "Sonn- und
#: Feiertagen" (Sonntagen und Feiertagen), "An- und Abreisetage", "Vor- oder Nachname".
_GERMAN_ELLIPSIS = re.compile(r"\b([A-ZÄÖÜ][a-zäöüß]*|[a-zäöüß]{2,})-\s+(?:und|oder|bzw\.|sowie)\s+([A-ZÄÖÜa-zäöüß][a-zäöüß]{3,})")


def german_ellipsis_stems(text: str) -> FrozenSet[str]:
    """The stems of the whole words a German text writes cut short ("Sonn-" of "Sonn- und
    Feiertagen"): the first part joined to each possible head of the word after it (its last three
    letters or more), one of which is the word meant ("Sonntagen"); the others meet no claim's word."""
    if "- " not in text:
        return frozenset()
    out = set()
    for m in _GERMAN_ELLIPSIS.finditer(text):
        first, whole = m.group(1).lower(), m.group(2).lower()
        for k in range(1, len(whole) - 2):
            out.add(_foreign_stem(first + whole[k:], "german"))
    return frozenset(out)


def _foreign_stemmer(lang: str) -> Any:
    """The Snowball stemmer of ``lang``, made once."""
    stemmer = _FOREIGN_STEMMERS.get(lang)
    if stemmer is None:
        stemmer = _FOREIGN_STEMMERS[lang] = _stemmer(lang)
    return stemmer


#: A German past participle's "ge-", at the start or after a separable prefix ("gekürzt", "ausgezahlt").
_GERMAN_PARTICIPLE = re.compile(r"^(ab|an|auf|aus|ein|mit|nach|vor|zu|zurück|weg|fest|frei|)ge(?=[^\W\d_]{3,}(?:t|en)(?:e|en|er|es|em)?$)")
_PREFIXED_PARTICIPLE = re.compile(r"^(?:ab|an|auf|aus|ein|mit|nach|vor|zu|zurück|weg|fest|frei)ge[^\W\d_]{3,}t$")


@lru_cache(maxsize=1)
def weekday_stems() -> FrozenSet[str]:
    """The stems of the days of the week (:data:`groundlab.core.weekdays.DAY_NAMES`), as the judge
    reads them in English, German and French."""
    from ...core.weekdays import DAY_NAMES

    return frozenset(st for english, german, french in DAY_NAMES
                     for st in (stem(english), _foreign_stem(german, "german"), _foreign_stem(french, "french")))


@lru_cache(maxsize=1)
def month_stems() -> FrozenSet[str]:
    """The stems of the whole month names (:data:`groundlab.core.months.MONTH_NAMES`), as the judge
    reads them in each of its languages."""
    from ...core.months import MONTH_NAMES

    return frozenset(st for row in MONTH_NAMES for name in row for st in
                     (stem(name.lower()), _foreign_stem(name.lower(), "german"), _foreign_stem(name.lower(), "french"),
                      _foreign_stem(name.lower(), "spanish")))


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
        if "late" in low or "spätestens" in low or "plus tard" in low:
            # "by 31 March at the latest", "no later than", "spätestens", "au plus tard": the deadline's
            # own marker, as "by" and "bis" are, no fact a passage must write (nor a negation)
            text = DEADLINE_MARKERS.sub(" ", text)
            low = text.lower()
        if "no" in low or "without" in low or "nicht" in low:  # "no", "not", "nothing", "none", "without"
            if "longer" in low:  # "is no longer reimbursed": "is not reimbursed", "longer" no fact of its own
                text = _NO_LONGER.sub("not", text)
            text = _NOUN_NOT.sub(_noun_negation, _NOT_NEGATING.sub(_neutral, text))
        clause_start = 0  # where the current clause's words start
        french_ne = -1  # where a French "ne" / "n'" opened a negation not yet completed
        elided = "n'" in low or "n\u2019" in low
        if lang is None:
            lang = language(text)
        # "Software that is not in the catalogue is requested with the form": a relative clause
        # ends where the sentence's own verb follows its own ("is ... is"), and its "not" with it.
        relatives = lang == "english" and ("that " in low or "which " in low or "who" in low)
        finite = -1  # the finite verbs since a relative pronoun; -1 outside a relative clause
        if lang == "english":
            kinds, kind_of = _KINDS, _kind
        else:
            if lang == "german" and "hrend" in text:  # "während des Arbeitsverhältnisses": a preposition
                text = _WAEHREND_PREPOSITION.sub(" ", text)
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
                clause_start, french_ne, finite = len(stems), -1, -1
            elif kind == _NEGATION:
                if finite >= 0 and token.lower() in _FINITE_NEGATIONS:
                    finite += 1
                    if finite == 2:  # "Items that are damaged cannot be returned"
                        clause += 1
                        clause_start, french_ne, finite = len(stems), -1, -1
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
                    finite = 0 if relatives and token.lower() in _RELATIVE else -1
                first = False
            else:
                if french_ne < 0 and token in _FRENCH_NE:
                    french_ne = len(stems)
                elif relatives:
                    lower = token.lower()
                    if lower == "that" and not first:
                        finite = 0
                    elif finite >= 0 and lower in _FINITE:
                        finite += 1
                        if finite == 2:
                            clause += 1
                            in_scope = False
                            clause_start, french_ne, finite = len(stems), -1, -1
                first = False
        self.stems = tuple(stems)
        self.surfaces = tuple(surfaces)
        self.names = tuple(dict.fromkeys(names))  # in the order written: a reason lists them so on every run
        self.clauses = tuple(clauses)
        self.negated = frozenset(negated)
        self.has_negation = has_negation
        self.in_scope = tuple(scoped)


#: "während" before an article of the genitive or dative is "during", which opens no clause.
_WAEHREND_PREPOSITION = re.compile(r"\b[Ww]ährend(?=\s+(?:des|der|dem|eines|einer|einem|ihres|ihrer|seines|seiner)\b)")

#: What opens a relative clause, the finite verbs that count in it (a second one is the sentence's
#: own), and the negations that are finite verbs too.
_RELATIVE = frozenset(("that", "which", "who", "whom", "whose"))
_FINITE = frozenset(("is", "are", "was", "were", "has", "have", "had", "can", "must", "will", "may", "might",
                     "shall", "should", "would", "could", "does", "do", "did"))
#: The words that mark a deadline as "by" does (:data:`groundlab.core.quantities.DEADLINE_WORDS`).
DEADLINE_MARKERS = re.compile(r"\b(?:" + DEADLINE_WORDS + r")\b", re.IGNORECASE)
#: "no longer", "not any longer": a negation, whose "longer" compares nothing.
_NO_LONGER = re.compile(r"\b(?:no|not\s+any)\s+longer\b", re.IGNORECASE)
_FINITE_NEGATIONS = frozenset(("cannot", "can't", "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't",
                               "hadn't", "won't", "mustn't", "shouldn't", "wouldn't", "couldn't", "doesn't",
                               "don't", "didn't", "needn't", "shan't", "mayn't"))


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
            if lower in _UNITS_SHORT:  # "8 hrs" for "8 hours"
                lower = _UNITS_SHORT[lower]
            elif lower.endswith(("'s", "\u2019s")):
                lower = lower[:-2]
            elif _function_word_contracted(lower):
                lower = ""  # "you'll", "we'd", "they're": a function word and its auxiliary
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


#: Units of time written short, read as their words: "max. 8 hrs" says "hours" as a passage's "8
#: hours" does ("min" is left alone in English, where it says "minimum" too).
_UNITS_SHORT: Dict[str, str] = {"hr": "hour", "hrs": "hours", "mins": "minutes", "wk": "week", "wks": "weeks",
                                "yr": "year", "yrs": "years", "secs": "seconds"}
_GERMAN_UNITS_SHORT: Dict[str, str] = {"std": "stunden", "min": "minuten", "sek": "sekunden"}  # ("Mo" is Montag)
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
            if lang == "german" and lower in _GERMAN_UNITS_SHORT:  # "24 Std." for "24 Stunden"
                lower = _GERMAN_UNITS_SHORT[lower]
            if lower in stops and not found[2]:
                found = (_SKIP, "", False, False)
            else:
                # German capitalises every noun: a capital there marks no name (an acronym still does)
                # a German word in lower case may be a participle; one with a capital is a noun ("Gehalt")
                # (or a participle after a separable prefix, capitalised to open a sentence: "Ausgezahlt wird ...")
                participle = token[0].islower() or (lang == "german" and _PREFIXED_PARTICIPLE.match(lower) is not None)
                found = (_WORD, _foreign_stem(lower, lang, participle), found[2], found[3] and lang != "german")
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


@lru_cache(maxsize=8192)
def _read_words(text: str, lang: str) -> "_Words":
    """:class:`_Words` of a text with its numbers written as 0 (``_without_numbers``), kept: claims
    and questions that differ only in their numbers ("order 2408", "order 7731") read the same words."""
    return _Words(text, lang)
