"""A text's language, read in its function words: English, German, French or Spanish. The claim
splitter reads an answer in its language (the abbreviations, dates and ordinals it keeps whole) and
the signals judge stems and weighs a text's words in it.

>>> language("Der Antrag muss von der Führungskraft genehmigt werden."), language("The order is blocked.")
('german', 'english')
>>> sentencex_code("german"), sentencex_code("english")
('de', 'en')
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["ACROSS", "CODES", "ENGLISH_HINTS", "LANGUAGES", "across_languages", "language", "language_told",
           "sentencex_code"]

# Words frequent in one of the three languages and rare in English: a text holding two or more of
# one language's (and more than of the others') reads as that language.
_LANGUAGE_HINTS = {
    "german": frozenset("der die das und ist nicht ein eine einen dem den mit auf für wird werden sie ihre im zur zum "
                        "von sind oder kann muss bei beim eines einer einem nach vor zu bis sich auch wenn dass nur "
                        "wurde haben".split()),
    "french": frozenset("le la les et est une des du pas pour dans avec sur sont vous nous qui peut doit être "
                        "au aux ne".split()),
    "spanish": frozenset("el los las y es una del para con por son usted puede debe está están se lo al "
                         "ser no".split()),
}
_ALL_HINTS = frozenset(w for ws in _LANGUAGE_HINTS.values() for w in ws)
_WORDS_OF = re.compile(r"[^\W\d_]+")
#: An ASCII text's bytes other than letters, each made a space: its words, as :data:`_WORDS_OF` cuts
#: them, are then what ``split()`` gives (in fewer steps); the hint words ASCII can write, as bytes.
_NOT_LETTERS = bytes(c if 65 <= c <= 90 or 97 <= c <= 122 else 32 for c in range(256))
_ASCII_HINTS = frozenset(w.encode() for w in _ALL_HINTS if w.isascii())


def plainly_english(text: str) -> bool:
    """Whether :func:`language` reads ``text`` as English without counting: plain ASCII holding no
    hint word of another language (one pass over its words, for the answers of a large log).

    >>> plainly_english("The order is blocked."), plainly_english("Bitte reichen Sie den Antrag ein.")
    (True, False)
    """
    return text.isascii() and _ASCII_HINTS.isdisjoint(text.lower().encode().translate(_NOT_LETTERS).split())


def language(text: str) -> str:
    """``"german"``, ``"french"`` or ``"spanish"`` when ``text`` reads as one of them, else
    ``"english"``: how its words are stemmed and which function words are left out.

    >>> language("Der Antrag muss von der Führungskraft genehmigt werden."), language("The order is blocked.")
    ('german', 'english')
    """
    words = _WORDS_OF.findall(text.lower())
    if _ALL_HINTS.isdisjoint(words):  # most English texts: no hint word at all
        return "english"
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


def language_told(text: str, read: Optional[str] = None) -> bool:
    """Whether ``text`` tells its language: :func:`language` finds one of the others in it, or it
    holds two or more English function words. A short text that does neither ("Gutschrift verfällt
    nach zwölf Monaten.": one hint) is read as English only by default.

    >>> language_told("The order is blocked."), language_told("Gutschrift verfällt nach zwölf Monaten.")
    (True, False)
    """
    if (read or language(text)) != "english":  # ``read``: what language(text) gave, when known
        return True
    if text.isascii():  # its words cut as plainly_english cuts them, counted without a Python loop
        return sum(map(_ASCII_ENGLISH.__contains__, text.lower().encode().translate(_NOT_LETTERS).split())) >= 2
    return sum(1 for w in _WORDS_OF.findall(text.lower()) if w in ENGLISH_HINTS) >= 2


#: English function words: two of them tell a text is English.
ENGLISH_HINTS = frozenset("the is are and of to for with you your this that be can will it an on by has have".split())
_ASCII_ENGLISH = frozenset(w.encode() for w in ENGLISH_HINTS)



#: The languages groundlab reads, each with its two-letter code (ISO 639-1, what sentencex takes).
CODES = {"english": "en", "german": "de", "french": "fr", "spanish": "es"}
LANGUAGES = tuple(CODES)


def sentencex_code(lang: str) -> str:
    """The two-letter code of a language :func:`language` names (``"german"`` gives ``"de"``); a
    two-letter code is given back as it is."""
    return CODES.get(lang, lang)


#: The words every reason of a claim left undecided across languages holds (a claim in another
#: language than its passages, too few of whose words carry across): what the figures count by.
ACROSS = "decide across languages"


def across_languages(errors) -> int:
    """How many of the judge's errors (``(case_id, claim, reason)``) are claims left undecided
    across languages."""
    return sum(1 for error in errors if ACROSS in str(error[-1]))
