"""A bare yes or no, and the premise of the question it answers.

"Yes." or "No." alone asserts nothing a passage could back: it answers the question. So the claim
splitter (:mod:`groundlab.claims`) never makes it a claim of its own (see docs/claims.md): it goes
with the claim after it (or, at the end, the one before), and an answer that is only a yes or no
asserts the question's premise, affirmed or negated. This module tells a bare answer
(:func:`bare_answer`) and turns a yes/no question into that statement (:func:`premise`):

>>> premise("Can I return it after 30 days?", False)
'I cannot return it after 30 days.'
>>> premise("Is the invoice for PO 4711 blocked?", True)
'The invoice for PO 4711 is blocked.'
>>> premise("Kann ich die Ware nach 30 Tagen zurückgeben?", False)
'Ich kann die Ware nach 30 Tagen nicht zurückgeben.'

It reads English, German, French and Spanish questions as people type them to an assistant: an
auxiliary or verb first and a pronoun or a noun after it ("Can I ...", "Is the invoice ...",
"Kann ich ...", "Ist die Rechnung ...", "Est-ce que je peux ...", "Puis-je ...", "¿Puedo ...?").
A question it cannot turn (a question with "why", a subject it cannot find) gives ``None``; the
splitter then judges the question's words as they stand, the negation put after its first word.
"""

from __future__ import annotations

import re
from typing import List, Optional

#: The answers, lower case, without stops: True for yes, False for no.
ANSWER_WORDS = {"yes": True, "yeah": True, "yep": True, "yup": True, "ja": True, "jawohl": True, "oui": True,
                "sí": True, "si": True,
                "no": False, "nope": False, "nah": False, "nein": False, "non": False,
                # not now, which answers the question as a no does: "Not yet.", "Noch nicht."
                "not yet": False, "noch nicht": False, "pas encore": False, "todavía no": False, "aún no": False}

_TAG_EN = (r"(?:it|you|we|they|he|she|that|this|there|i|one)\s+(?:(?:is|are|am|can|could|do|does|did|will|would|may|"
           r"might|must|should|was|were|has|have|had|need)(?:n't|\s+not)?|can't|cannot|won't|shan't)")
_TAG_OTHER = (r"(?:das|es|man)\s+(?:ist|geht|gibt|kann|darf|muss)(?:\s+es)?(?:\s+so)?(?:\s+nicht)?(?:\s+möglich)?"
              r"|(?:c'est|ce\s+n'est\s+pas)(?:\s+possible)?|(?:no\s+)?es\s+posible|(?:no\s+)?se\s+puede")
_SO = (r"(?:(?:so|then|thus|therefore|hence|in\s+short|in\s+a\s+word|short\s+answer|the\s+short\s+answer\s+is|"
       r"the\s+answer\s+is|also|kurz\s+gesagt|kurz|donc|bref|en\s+bref|entonces|en\s+resumen|en\s+resumidas\s+cuentas)"
       r"[,:]?\s+)?")
_BARE = re.compile(_SO + r"(?P<word>" + "|".join(sorted(ANSWER_WORDS, key=len, reverse=True)) + r")"
                   r"(?:[,!]?\s+(?:" + _TAG_EN + "|" + _TAG_OTHER + r"))?", re.IGNORECASE)
_EDGES = " \t\n.!?\u2026,;:\"'\u201c\u201d\u00a1\u00bf*_"


#: A bare answer run into the sentence after it: "No. Returns are accepted within 30 days."
LEADING_ANSWER = re.compile(r"(?i:" + "|".join(sorted(ANSWER_WORDS, key=len, reverse=True)) + r")[.!]+\s+(?=[^\W\d_])")


def bare_answer(sentence: str) -> Optional[bool]:
    """True for a sentence that is only a yes ("Yes.", "Yes, you can.", "Ja.", "Oui !", "Sí."),
    False for only a no ("No.", "No, it isn't.", "Nein, das geht nicht.", "Non."), ``None``
    for any other sentence.

    >>> bare_answer("Yes."), bare_answer("No, you can't."), bare_answer("No refunds are paid in cash.")
    (True, False, None)
    """
    text = " ".join(sentence.replace("\u2019", "'").split()).strip(_EDGES)
    if not text or len(text) > 48:
        return None
    found = _BARE.fullmatch(text)
    return None if found is None else ANSWER_WORDS[found.group("word").lower()]


# ---------------------------------------------------------------- the question's premise

_LEAD = re.compile(r"^(?:(?:hi|hello|hey|hallo|bonjour|hola|ok|okay|so|and|also|but|quick question|question|"
                   r"one more thing|und|et|alors|entonces)\b[,:!]?\s+)+", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\u00bf]*\?")

_BE = {"is", "are", "was", "were", "am"}
_AUX = _BE | {"can", "could", "may", "might", "must", "shall", "should", "will", "would", "do", "does", "did",
              "has", "have", "had", "need"}
_PRONOUNS = {"i", "you", "we", "they", "he", "she", "it", "this", "that", "there", "someone", "anyone", "one",
             "everyone", "somebody", "anybody", "these", "those"}
_DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these",
                "those", "each", "every", "all", "any", "some", "no"}
_PREPOSITIONS = {"in", "on", "at", "by", "for", "with", "after", "before", "within", "from", "to", "over", "under",
                 "above", "below", "into", "without", "during", "until", "via", "per", "through", "beyond"}
_ADVERBS = {"still", "already", "also", "always", "ever", "really", "now", "just", "only", "usually", "automatically",
            "currently", "actually", "then", "again", "even", "never", "not", "both", "either", "all"}
_PREDICATES = {"allowed", "possible", "required", "needed", "necessary", "available", "valid", "due", "open",
               "closed", "late", "free", "mandatory", "optional", "eligible", "refundable", "correct", "right", "true",
               "enough", "responsible", "able", "ok", "okay", "covered", "paid", "sent", "done", "made", "taken",
               "given", "known", "shown", "set", "held", "kept", "left", "lost", "locked", "blocked", "out", "overdue",
               "subject", "part", "a", "an", "too", "so", "more", "less", "entitled", "liable", "taxable",
               "permitted", "forbidden", "prohibited", "active", "expired", "pending", "complete", "ready"}
#: Verbs that follow a subject after can/do/have ...: where the subject ends. Verbs that are as
#: often nouns of a subject ("order", "invoice", "credit", "report") are left out.
_VERBS = set("""
be have get pay return send receive approve release change cancel use need take give make keep ask buy sell
refund reimburse carry submit apply register reset unlock close extend exceed cover include contain require allow
accept reject delete remove add update edit create see find log sign travel stay bring ship deliver expire know
want go come run start stop save move enter replace split merge upload download install arrive happen cost last
qualify matter affect remain become appear reach mean belong depend differ fit hold lead let pass rise fall grow
reduce increase decrease continue renew lapse apply work
""".split())

_DE_PRONOUNS = {"ich", "wir", "sie", "man", "es", "er", "du", "ihr"}
_DE_ARTICLES = {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "mein", "meine",
                "meinen", "meinem", "meiner", "ihr", "ihre", "ihren", "ihrem", "unser", "unsere", "unseren", "dein",
                "deine", "deinen", "dieser", "diese", "dieses", "diesen"}
_DE_QUESTION_WORDS = {"wer", "was", "wann", "wo", "warum", "wie", "welche", "welcher", "welches", "welchen",
                      "wieso", "weshalb", "woher", "wohin", "womit", "wofür", "wozu", "wieviel", "wieviele"}
_DE_NOT_VERBS = {"es", "das", "dies", "sie", "ihn", "ihm", "ihr", "mir", "dir", "uns", "euch", "sich", "mich", "dich",
                 "nach", "vor", "in", "an", "auf", "aus", "bei", "mit", "von", "zu", "für", "über", "unter", "um",
                 "den", "dem", "der", "die", "ein", "eine", "einen", "einem", "auch", "noch", "schon", "bitte"}
_DE_KEIN = {"ein": "kein", "eine": "keine", "einen": "keinen", "einem": "keinem", "einer": "keiner"}

_FR_PRONOUNS = {"je", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles"}
_FR_INVERSION = re.compile(r"^(\w+)-(?:t-)?(je|tu|il|elle|on|nous|vous|ils|elles)\b\s*(.*)$", re.IGNORECASE)
_FR_IRREGULAR = {("puis", "je"): "peux"}
_ES_VERBS_FIRST = {"puedo", "puede", "puedes", "podemos", "pueden", "hay", "es", "está", "están", "son", "tengo",
                   "tiene", "tienes", "tenemos", "debo", "debe", "debes", "necesito", "necesita", "existe", "se",
                   "vale", "sirve", "cubre", "incluye", "caduca", "vence"}
_QUESTION_WORDS = {"why", "what", "how", "when", "where", "who", "which", "whose", "whom", "warum", "wie", "was",
                   "wann", "wo", "pourquoi", "comment", "quand", "où", "por", "qué", "cómo", "cuándo", "dónde"}
#: The negation a fallback puts in, by the language the question's words tell.
_HINTS = {"nicht": frozenset("der die das ist ich sie und kann muss gibt wird werden ein eine".split()),
          "pas": frozenset("le la les est je vous une des du peux dois il on".split()),
          "no": frozenset("el los las es una puedo hay del puede para se".split())}
_VOWEL = re.compile(r"^[aeiouyhàâéèêëîïôûù]", re.IGNORECASE)


def premise(question: str, yes: bool) -> Optional[str]:
    """The statement a bare yes (``yes=True``) or no answers to ``question``: its premise,
    affirmed or negated, as the asker would say it ("Can I return it after 30 days?" and no: "I
    cannot return it after 30 days."). ``None`` when ``question`` holds no yes/no question this
    module can turn into a statement.

    >>> premise("Is there a fee for returns?", False), premise("Why is it blocked?", True)
    ('There is no fee for returns.', None)
    """
    asked = _SENTENCE.findall(question or "")
    if not asked:
        return None
    text = _LEAD.sub("", " ".join(asked[-1].replace("\u2019", "'").split()).strip(" ?\u00bf"))
    words = text.split()
    if len(words) < 2:
        return None
    for turn in (_english, _german, _french, _spanish):
        said = turn(words, yes)
        if said:
            return said[0].upper() + said[1:] + "."
    return None


def fallback(question: str, yes: bool) -> Optional[str]:
    """The question's last sentence as it stands, its negation (for a no) put after its first
    word: what a bare answer to a question :func:`premise` cannot turn is judged as."""
    asked = _SENTENCE.findall(question or "")
    if not asked:
        return None
    words = _LEAD.sub("", " ".join(asked[-1].split()).strip(" ?\u00bf")).split()
    if not words:
        return None
    if not yes:
        lowered = {w.lower() for w in words}
        counts = {neg: len(lowered & hints) for neg, hints in _HINTS.items()}
        negation = max(counts, key=counts.get) if max(counts.values()) >= 2 else "not"
        # after the auxiliary or verb that opens the question; before a question that opens otherwise
        opens = words[0].lower().rstrip("n't") in _AUX or negation in ("nicht", "pas")
        at = 1 if opens and negation != "no" else 0
        if at == 0 and words[0].lower() in _AUX | _QUESTION_WORDS:
            words[0] = words[0].lower()
        words.insert(at, negation)
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _english(words: List[str], yes: bool) -> Optional[str]:
    first = words[0].lower()
    aux = first[:-3] if first.endswith("n't") else first
    aux = {"ca": "can", "wo": "will", "won": "will", "sha": "shall"}.get(aux, aux)
    if aux not in _AUX:
        return None
    rest = words[1:]
    subject = _english_subject(rest, aux)
    if subject is None:
        return None
    head, tail = rest[:subject], rest[subject:]
    if not yes:
        if head[0].lower() == "there" and tail and tail[0].lower() in ("a", "an", "any"):
            tail = ["no"] + tail[1:]
            verb = [aux]
        else:
            verb = ["cannot"] if aux == "can" else [aux, "not"]
    else:
        verb = [aux]
    if head[0] not in ("I",) and head[0].lower() in _PRONOUNS:
        head = [head[0].lower()] + head[1:]
    return " ".join(head + verb + tail)


def _english_subject(rest: List[str], aux: str) -> Optional[int]:
    """Where the subject after the auxiliary ends (its length in words), or ``None``."""
    first = rest[0].lower()
    if first in _PRONOUNS and not (first in ("this", "that", "these", "those") and len(rest) > 2
                                   and rest[1].lower() not in _PREDICATES | _VERBS | _ADVERBS | _PREPOSITIONS):
        return 1
    start = 2 if first in _DETERMINERS or first == "both" else 1
    words = [w.lower().strip(",") for w in rest]
    # a capitalised word, or one after "and", "of" or "&", belongs to the subject's names
    named = [w[:1].isupper() or w[:1].isdigit() or (k and words[k - 1] in ("and", "of", "&", "or"))
             for k, w in enumerate(rest)]
    if aux in _BE:
        # what it is: a participle or an adjective, else where it is: a preposition after a common noun
        for k in range(start, len(words)):
            word = words[k]
            if not named[k] and (word in _PREDICATES or word in _ADVERBS
                                 or (len(word) > 3 and word.endswith(("ed", "en")))
                                 or (len(word) > 4 and word.endswith("ing"))):
                return k
        return next((k for k in range(start, len(words)) if words[k] in _PREPOSITIONS and not named[k - 1]), None)
    for k in range(start, len(words)):
        word = words[k]
        if not named[k] and (word in _VERBS or word in _ADVERBS or (aux in ("has", "have", "had") and len(word) > 3
                                                                   and word.endswith(("ed", "en")))):
            return k
    return None


def _german(words: List[str], yes: bool) -> Optional[str]:
    verb, rest = words[0], words[1:]
    if verb.lower() in _DE_QUESTION_WORDS or not rest:
        return None
    second = rest[0].lower()
    if second in _DE_PRONOUNS:
        subject = 1
    elif second in _DE_ARTICLES:
        subject = next((k + 1 for k in range(1, len(rest)) if rest[k][:1].isupper()), None)
        if subject is None:
            return None
    else:
        return None
    head, tail = rest[:subject], rest[subject:]
    verb = verb.lower()
    if not yes:
        if tail and tail[0].lower() in _DE_KEIN:
            tail = [_DE_KEIN[tail[0].lower()]] + tail[1:]
        else:
            # "nicht" before the verbs, participle or adjective at the end ("genehmigt werden")
            at = len(tail)
            while at > 0 and len(tail) - at < 2 and tail[at - 1][:1].islower() and \
                    tail[at - 1].lower() not in _DE_NOT_VERBS:
                at -= 1
            tail = tail[:at] + ["nicht"] + tail[at:]
    return " ".join(head + [verb] + tail)


def _french(words: List[str], yes: bool) -> Optional[str]:
    text = " ".join(words)
    lowered = text.lower()
    if lowered.startswith(("est-ce que ", "est-ce qu'")):
        clause = text[len("est-ce que "):] if lowered.startswith("est-ce que ") else text[len("est-ce qu'"):]
        parts = clause.split()
        if not parts:
            return None
        subject, rest = parts[0], parts[1:]
        if subject.lower().startswith(("j'", "c'")) and len(subject) > 2:
            pronoun = {"j'": "je", "c'": "ce"}[subject[:2].lower()]
            subject, rest = pronoun, [subject[2:]] + rest
        elif subject.lower() == "qu'il" or subject.lower() == "qu'elle":
            subject = subject[3:]
        if subject.lower() not in _FR_PRONOUNS | {"ce"} or not rest:
            return None
        return _french_clause(subject, rest, yes)
    if lowered.startswith("y a-t-il"):
        rest = words[2:]
        return " ".join((["il", "y", "a"] if yes else ["il", "n'y", "a", "pas"]) + rest)
    found = _FR_INVERSION.match(text)
    if found:
        verb, pronoun, tail = found.group(1), found.group(2).lower(), found.group(3).split()
        verb = _FR_IRREGULAR.get((verb.lower(), pronoun), verb.lower())
        return _french_clause(pronoun, [verb] + tail, yes)
    return None


def _french_clause(subject: str, rest: List[str], yes: bool) -> str:
    verb, tail = rest[0], rest[1:]
    if yes:
        joined = (subject[:-1] + "'" + verb) if subject.lower() in ("je", "ce") and _VOWEL.match(verb) else \
            f"{subject} {verb}"
        return " ".join([joined] + tail)
    ne = "n'" + verb if _VOWEL.match(verb) else "ne " + verb
    return " ".join([subject, ne, "pas"] + tail)


def _spanish(words: List[str], yes: bool) -> Optional[str]:
    if words[0].lower() not in _ES_VERBS_FIRST:
        return None
    if yes:
        return " ".join(words)
    return " ".join(["no", words[0].lower()] + words[1:])


__all__ = ["ANSWER_WORDS", "LEADING_ANSWER", "bare_answer", "fallback", "premise"]
