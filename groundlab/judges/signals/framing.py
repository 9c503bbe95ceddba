"""What frames an answer rather than states a fact, set aside before a claim is judged: lead-ins
("Based on the passages,", "Passage 2 states that"), references to passages ("(Passage 3)") and
whole sentences that only frame the answer ("Here is a summary.", "I hope this helps.") (the
judge's step 2).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import List, Tuple


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
    """Set aside a claim's framing (see :mod:`groundlab.judges.signals`, step 2).

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
