"""Split answers into claims, pull out their citations, and recognise abstentions.

An answer is split into sentences at white space that follows ``.``, ``!`` or ``?``. A sentence
that says the assistant cannot answer is an *abstention*, not a claim. Citations such as
``[D07]`` (or ``[D07, D06]``) are taken out of a sentence; what remains is the claim text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Pattern, Sequence, Tuple, Union

from .records import Claim

#: Splits text into sentences: white space after ``.``, ``!`` or ``?``.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")

#: ``[D07]`` or ``[D07, D06]``: one group holding one id or several separated by , or ;.
DEFAULT_CITATION_PATTERN = r"\[\s*([A-Za-z0-9][\w.:#/-]*(?:\s*[,;]\s*[A-Za-z0-9][\w.:#/-]*)*)\s*\]"

#: Ways an assistant says it cannot answer (regular expressions, matched case-insensitively).
#: The first five are the sample set's wordings; the rest are common variants. They speak of the
#: assistant itself ("I ...") or of the material it was given ("the documents ..."), so that a
#: factual sentence such as "Credit notes do not include freight costs" stays a claim.
_MATERIAL = (r"(?:the|these|those|my|your|provided|retrieved|available|given)\s+"
             r"(?:(?:retrieved|provided|available|given|supplied)\s+)?"
             r"(?:documents?|documentation|passages?|notes?|sources?|context|texts?|results?|information)"
             r"(?:\s+(?:provided|given|retrieved|available|supplied|here|above))?")
_NEGATED = r"(?:do not|don't|does not|doesn't|did not|didn't|cannot|can't)"
DEFAULT_ABSTENTION_PHRASES: Tuple[str, ...] = (
    r"\bI can't find\b",
    r"\bI cannot find\b",
    r"\bI don't know\b",
    r"\bnot in the retrieved\b",
    r"\bno information\b",
    r"\bI (?:can not|could ?n[o']t|wasn't able to) (?:find|locate|see|determine|answer|tell|confirm)\b",
    r"\bI(?:'m| am| was|'ve been| have been)? (?:unable|not able) to "
    r"(?:find|locate|see|determine|answer|tell|confirm)\b",
    r"\bI (?:do not|did not|didn't) (?:know|find|see)\b",
    r"\bI (?:can't|cannot|can not) (?:answer|tell|determine|say|confirm)\b",
    r"\bI(?:'m| am) not sure\b",
    r"\bI (?:do not|don't) have (?:enough|sufficient|any|the) (?:information|details|data|context)\b",
    r"\b(?:there is|there's) (?:not enough|insufficient|no) (?:information|detail|data|mention)\b",
    r"\b" + _MATERIAL + r"\s+" + _NEGATED +
    r"\s+(?:say|state|mention|specify|contain|cover|include|explain|answer|provide|tell|give)\b",
    r"\bnot (?:mentioned|covered|stated|specified|found|included|answered|provided) in\s+" + _MATERIAL,
)

#: Lower-case words one of which every built-in abstention phrase holds: a sentence without
#: any of them is not checked against the (slower) phrase patterns.
_BUILTIN_TRIGGERS = re.compile(r"n't|not|no |unable|insufficient")

_INNER_SPACE = re.compile(r" ([,;:])")
_HAS_WORD = re.compile(r"[^\W_]")
_ID_SEP = re.compile(r"\s*[,;]\s*")


@dataclass(frozen=True)
class Split:
    """An answer taken apart: its claims, and whether it holds an abstention sentence."""

    claims: Tuple[Claim, ...]
    abstains: bool


class ClaimSplitter:
    """Split answers into claims with a configurable citation pattern and abstention phrases.

    >>> s = ClaimSplitter()
    >>> [c.text for c in s.split("c1", "Pay by May [D10]. I can't find the rest.").claims]
    ['Pay by May.']
    >>> s.split("c1", "Pay by May [D10]. I can't find the rest.").abstains
    True
    """

    def __init__(
        self,
        citation_pattern: Union[str, Pattern[str], None] = None,
        abstention_phrases: Optional[Iterable[str]] = None,
    ) -> None:
        pattern = DEFAULT_CITATION_PATTERN if citation_pattern is None else citation_pattern
        self.citation_re = re.compile(pattern) if isinstance(pattern, str) else pattern
        if self.citation_re.groups != 1:
            raise ValueError("the citation pattern needs exactly one group that captures the passage id(s), "
                             r"like \[([A-Z]\d+)\]")
        # The default pattern needs a "[": a sentence without one has no citation to look for.
        self._bracketed = self.citation_re.pattern == DEFAULT_CITATION_PATTERN
        self._cites: dict = {}
        phrases = tuple(DEFAULT_ABSTENTION_PHRASES if abstention_phrases is None else abstention_phrases)
        builtin = [p for p in phrases if p in DEFAULT_ABSTENTION_PHRASES]
        extra = [p for p in phrases if p not in DEFAULT_ABSTENTION_PHRASES]
        self._builtin_re = _alternation(builtin)
        self._extra_re = _alternation(extra)

    def is_abstention(self, sentence: str) -> bool:
        """True when the sentence says the assistant cannot answer."""
        sentence = sentence.replace("\u2019", "'")
        if self._builtin_re is not None:
            if _BUILTIN_TRIGGERS.search(sentence.lower()) and self._builtin_re.search(sentence):
                return True
        return self._extra_re is not None and self._extra_re.search(sentence) is not None

    def citations(self, sentence: str) -> Tuple[str, ...]:
        """The passage ids a sentence cites, in order, without repeats."""
        groups = self.citation_re.findall(sentence)
        if len(groups) == 1 and "," not in groups[0] and ";" not in groups[0]:
            return self._one_cite(groups[0].strip())
        ids: dict = {}
        for group in groups:
            for pid in _ID_SEP.split(group.strip()):
                if pid:
                    ids[self._one_cite(pid)[0]] = None
        return tuple(ids)

    def _one_cite(self, pid: str) -> Tuple[str, ...]:
        # The same few ids are cited again and again: share one tuple per id instead of
        # keeping a copy of "D07" for every claim of a large log.
        cites = self._cites.get(pid)
        if cites is None:
            if len(self._cites) > 100_000:
                self._cites.clear()
            cites = self._cites[pid] = (pid,)
        return cites

    def split(self, case_id: str, answer: str) -> Split:
        """The claims of one answer (numbered from 1) and whether it abstains."""
        claims = []
        abstains = False
        # Most answers hold no abstention wording at all: one look at the whole answer spares
        # the per-sentence phrase patterns.
        may_abstain = self._extra_re is not None or (
            self._builtin_re is not None and _BUILTIN_TRIGGERS.search(answer.lower().replace("\u2019", "'")))
        for sentence in SENTENCE_BREAK.split(answer.strip()):
            if not sentence:
                continue
            if self._bracketed and "[" not in sentence:
                cites: Tuple[str, ...] = ()
                text = sentence
            else:
                cites = self.citations(sentence)
                text = self.citation_re.sub("", sentence) if cites else sentence
            # A sentence that cites a passage asserts something; only one without is an abstention.
            if not cites and may_abstain and self.is_abstention(sentence):
                abstains = True
                continue
            if not _HAS_WORD.search(text):
                continue  # a lone citation or punctuation asserts nothing
            if "  " in text or "\n" in text or "\t" in text or text[:1].isspace() or text[-1:].isspace():
                text = " ".join(text.split())
            if text[-2:-1] == " " and text[-1] in ".!?":
                text = text[:-2] + text[-1]  # "all 100 [D07]." -> "all 100."
            if " ," in text or " ;" in text or " :" in text:
                text = _INNER_SPACE.sub(_first_group, text)
            claims.append(Claim(case_id, len(claims) + 1, text, cites))
        return Split(tuple(claims), abstains)


def _first_group(match: "re.Match[str]") -> str:
    return match.group(1)


def _alternation(phrases: Sequence[str]) -> Optional[Pattern[str]]:
    if not phrases:
        return None
    return re.compile("|".join(f"(?:{p})" for p in phrases), re.IGNORECASE)


def split_sentences(text: str) -> Sequence[str]:
    """Split text into sentences at white space that follows ``.``, ``!`` or ``?``."""
    return [s for s in SENTENCE_BREAK.split(text.strip()) if s]
