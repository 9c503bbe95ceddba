"""Split answers into claims, pull out their citations, and recognise abstentions.

An answer is split as a reader splits it (see docs/claims.md):

1. **Lines.** Invisible marks (zero-width spaces, direction marks, soft hyphens) are set aside and
   control characters read as spaces. Each line is a unit of its own, so a list of facts written
   one a line gives one claim a line; a list marker (``-``, ``*``, ``1.``, ``2)`` ...) is not part of
   the claim, a Markdown heading (``## ...``) or a line ending in ``:`` is no claim, and a line that
   starts in lower case continues an unfinished line before it (a hard-wrapped paragraph).
2. **Sentences.** Each unit is split into sentences by `sentencex
   <https://pypi.org/project/sentencex/>`_, which knows abbreviations and initials (Dr., e.g.,
   U.S., a.m., z. B.), decimals and versions (3.5, v1.2.3), quotes after the final stop and CJK
   full-width stops. groundlab then joins a sentence cut after a short abbreviation when the next
   one starts in lower case (p. ex., p. ej.), splits after a stop inside brackets
   (``(see D7.) The``), and gives citations written after the stop (``blocked. [D7] The``,
   ``blocked.[1] The``) to the sentence before them.
3. **Claims.** A sentence that says the assistant cannot answer is an *abstention*, not a claim
   (the wordings are in ``groundlab/data/abstentions.toml``; a sentence that cites a passage always
   asserts something). Citations such as ``[D07]`` (or ``[D07, D06]``) are taken out of every
   other sentence; what remains is the claim text, and :attr:`Claim.span` says where the sentence
   sits in the answer.

This module is the splitter (:class:`ClaimSplitter`): what each sentence is, a bare yes or no put
with the claim beside it (the premise it asserts alone is :mod:`groundlab.core.premise`'s), a
closing list of sources, the claims numbered. Finding the sentences and the citations written after
them (steps 1 and 2) is :mod:`groundlab.core.sentences`'; the abstention wordings and closings
are :mod:`groundlab.core.abstentions`'. Both are named here too, as they always were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Pattern, Sequence, Tuple, Union

# The sentences and citations, and the abstentions and closings, each in a room of its own; every
# name this module had before them is named here too.
from .abstentions import (ABSTENTION_PHRASES, CLOSING_PHRASES, DEFAULT_ABSTENTION_PHRASES, HEDGES,  # noqa: F401
                          AbstentionPhrase, _has_trigger, hedge_cuts, is_closing, looks_like_refusal, may_turn)
from .languages import CODES, language, plainly_english, sentencex_code

#: The built-in abstention wordings, looked up by text (``tests/test_claims.py`` compiles each).
from .premise import LEADING_ANSWER, bare_answer, fallback, premise  # noqa: F401
from .records import Claim, GroundlabError
from .sentences import (ABBREVIATIONS, CJK_CHARS, DEFAULT_CITATION_PATTERN,  # noqa: F401
                        DEFAULT_CITATION_PATTERNS, DEFAULT_LANGUAGE, INVISIBLE, Sentence, _DEFAULT_PATTERN_TEXTS,
                        _sentences, character_pairs, citation_regex, list_closings, sentences, split_sentences)


#: The built-in abstention wordings, looked up by text (``tests/test_claims.py`` compiles each).
_BUILTIN_PHRASES = frozenset(DEFAULT_ABSTENTION_PHRASES)
#: The ``language`` of a splitter that reads each answer's own.
AUTO_LANGUAGE = "auto"


def check_language(lang: str) -> str:
    """``lang`` as a splitter takes it: ``"auto"`` or a language groundlab reads, by its two-letter
    code or its name (``"de"``, ``"german"``); anything else is refused in one sentence."""
    code = str(lang).strip().lower()
    code = CODES.get(code, code)
    if code != AUTO_LANGUAGE and code not in CODES.values():
        raise GroundlabError(f"the language {lang!r} is not one groundlab splits answers in; give auto (each "
                             f"answer's own) or one of {', '.join(sorted(CODES.values()))}.")
    return code


@lru_cache(maxsize=4096)
def _answer_language(answer: str) -> str:
    """An answer's language, read in its first words: enough to tell it, cheap on a long one. An
    answer in plain ASCII without a German, French or Spanish function word is English at once."""
    head = answer[:600]
    return "english" if plainly_english(head) else language(head)


class _Bare(NamedTuple):
    """A bare yes or no of an answer: where it is, what it cites, which it is, its explain row."""

    start: int
    end: int
    cites: Tuple[str, ...]
    yes: bool
    role: int


#: A bare answer starts with one of these letters (yes, no, ja, nein, oui, non, sí; so, then, in
#: short, also, kurz, donc, bref, entonces ... before them), once the marks around it are left
#: out: every other sentence skips the check.
_ANSWER_INITIALS = frozenset("YyNnJjOoSsTtAaIiHhKkDdBbEe")
_YES_NO_INITIALS = frozenset("YyNnJjOoSs")
_ANSWER_EDGES = " \t*_\"'\u201c\u00a1\u00bf"


#: The roles of an answer's sentences (:meth:`ClaimSplitter.explain`).
_CLAIM, _ABSTENTION, _YES_NO, _NO_CLAIM, _SOURCES_ROLE = "claim", "abstention", "yes/no", "no claim", "sources"
#: A sentence holding a refusal that turns to a claim, read clause by clause (never an explain role).
_HEDGED = "hedged"
#: How many sentences a splitter keeps read (:meth:`ClaimSplitter._read`).
_SENTENCE_MEMO = 32768


@dataclass(frozen=True)
class Split:
    """An answer taken apart: its claims, and whether it holds an abstention sentence.
    ``by_position``: the citations read as a passage's position (``("1", "KB-3")``), see
    :func:`positional_aliases`."""

    claims: Tuple[Claim, ...]
    abstains: bool
    by_position: Tuple[Tuple[str, str], ...] = ()


_POSITION = re.compile(r"(P?)([1-9][0-9]{0,5})")


def positional_aliases(ids: Sequence[str], cites: Iterable[str]) -> Dict[str, str]:
    """Citations by position (``[2]``, ``[P2]``, ``(Passage 2)``) of passages that carry ids of their
    own (``KB-3``), each tied to the passage at that position: ``{"2": "KB-4"}``. A citation that is
    a retrieved id stays as it is, and a position is never read into a citation when the passages'
    own ids look like positions too (``7``, ``P7``), since it could be either.

    >>> positional_aliases(["KB-3", "KB-4"], ["2", "KB-3", "5"])
    {'2': 'KB-4'}
    >>> positional_aliases(["3", "4"], ["1"])
    {}
    """
    known = set(ids)
    numbered = p_named = None
    aliases: Dict[str, str] = {}
    for cite in cites:
        if cite in known or cite in aliases:
            continue
        match = _POSITION.fullmatch(cite)
        if match is None or not 1 <= int(match.group(2)) <= len(ids):
            continue
        if numbered is None:
            numbered = any(i.isdigit() for i in ids)
            p_named = any(_POSITION.fullmatch(i) is not None for i in ids if i[:1] == "P")
        if not (p_named if match.group(1) else numbered):
            aliases[cite] = ids[int(match.group(2)) - 1]
    return aliases


_INNER_SPACE = re.compile(r" ([,;:])")
_HAS_WORD = re.compile(r"[^\W_]")
_ID_SEP = re.compile(r"\s*[,;&]\s*|\s+(?:and|und|et|y)\s+")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,3}|[a-zA-Z])[.)]")
_FINAL_SPACE = re.compile(r"\s+([.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*)$")


class ClaimSplitter:
    """Split answers into claims with configurable citation patterns and abstention phrases.

    ``citation_pattern``: a citation style of your own (a regular expression, or several), one
    group capturing the id(s); it is read beside the built-in styles
    (:data:`DEFAULT_CITATION_PATTERNS`: ``[D07]``, ``[^1]``, ``【1】``, ``(Source: KB-3)``,
    ``(see KB-5)``, ``(Passage 2)``), or instead of them with ``default_citations=False``.
    ``abstention_phrases``: the wordings that make a sentence an abstention (default: the built-in
    ones); ``extra_abstention_phrases`` are added to those. ``language``: the language whose
    abbreviations, dates and ordinals to know, a two-letter code (``"en"``, ``"de"``, ``"fr"``,
    ``"es"``) or ``"auto"`` (the default): each answer's own, read in its function words
    (:func:`groundlab.core.languages.language`). All plain values, so a command or notebook option maps onto
    them directly; a pattern that is not a valid regular expression raises
    :class:`~groundlab.records.GroundlabError` naming it.

    A trailing "Sources: [1][2]" line (or a list of sources under such a heading) holds no claim:
    its citations are the answer's, and go to every claim that cites nothing itself.

    >>> s = ClaimSplitter()
    >>> [c.text for c in s.split("c1", "Pay by May [D10]. I can't find the rest.").claims]
    ['Pay by May.']
    >>> s.split("c1", "Pay by May [D10]. I can't find the rest.").abstains
    True
    >>> [(c.text, c.cites) for c in s.split("c1", "Refunds need approval (Source: KB-3).").claims]
    [('Refunds need approval.', ('KB-3',))]
    """

    def __init__(
        self,
        citation_pattern: Union[str, Pattern[str], Sequence[Union[str, Pattern[str]]], None] = None,
        abstention_phrases: Optional[Iterable[str]] = None,
        *,
        extra_abstention_phrases: Iterable[str] = (),
        language: str = AUTO_LANGUAGE,
        default_citations: bool = True,
    ) -> None:
        if citation_pattern is None:
            own: List[Union[str, Pattern[str]]] = []
        elif isinstance(citation_pattern, (str, re.Pattern)):
            own = [citation_pattern]
        else:
            own = list(citation_pattern)
        texts: List[str] = []
        for pattern in own:
            compiled = _compile(pattern, "citation pattern") if isinstance(pattern, str) else pattern
            if compiled.groups != 1:
                raise GroundlabError(f"the citation pattern {compiled.pattern!r} needs exactly one group that "
                                     r"captures the passage id(s), like \[([A-Z]\d+)\]")
            texts.append(compiled.pattern)
        patterns = tuple(DEFAULT_CITATION_PATTERNS if default_citations else ()) + tuple(
            p for p in texts if not default_citations or p not in DEFAULT_CITATION_PATTERNS)
        #: The citation styles read, in order: the built-in ones (unless left out), then one's own.
        self.citation_patterns = tuple(dict.fromkeys(patterns))
        try:
            self.citation_re = citation_regex(self.citation_patterns)
        except re.error as exc:
            raise GroundlabError(f"the citation patterns {list(texts)!r} cannot be read together with the built-in "
                                 f"ones ({exc}); write flags inside a group, like (?i:see), or pass "
                                 "default_citations=False (--no-default-citations)") from None
        self.language = check_language(language)
        # The built-in styles open with a bracket: a sentence without one has no citation to look for.
        self._bracketed = self.citation_re.pattern in _DEFAULT_PATTERN_TEXTS
        self._cites: dict = {}
        self._memo: dict = {}  # what each sentence is, read alone (_read)
        phrases = tuple(DEFAULT_ABSTENTION_PHRASES if abstention_phrases is None else abstention_phrases)
        phrases += tuple(p for p in extra_abstention_phrases if p not in phrases)
        builtin = [p for p in phrases if p in _BUILTIN_PHRASES]
        extra = [p for p in phrases if p not in _BUILTIN_PHRASES]
        for phrase in extra:  # the built-in ones compile (tests/test_claims.py), read whole below
            _compile(phrase, "abstention phrase")
        self._builtin_re = _alternation(builtin)
        self._extra_re = _alternation(extra)

    def is_abstention(self, sentence: str) -> bool:
        """True when the sentence says the assistant cannot answer."""
        sentence = sentence.replace("\u2019", "'")
        if self._builtin_re is not None:
            if _has_trigger(sentence.lower()) and self._builtin_re.search(sentence):
                return True
        return self._extra_re is not None and self._extra_re.search(sentence) is not None

    def _hedged(self, sentence: str) -> Tuple[Tuple[int, int], ...]:
        """The clauses of an abstention sentence that turns to a claim ("I can't find that, but
        refunds are paid in cash."), cut outside its abstention wordings (:func:`hedge_cuts`);
        ``()`` when it is one clause."""
        plain = sentence.replace("\u2019", "'")
        spans = [m.span() for r in (self._builtin_re, self._extra_re) if r is not None for m in r.finditer(plain)]
        return hedge_cuts(plain, spans)

    def citations(self, sentence: str) -> Tuple[str, ...]:
        """The passage ids a sentence cites, in order, without repeats."""
        groups = [m.group(m.lastindex) for m in self.citation_re.finditer(sentence) if m.lastindex]
        groups = [g for g in groups if g]
        if len(groups) == 1 and not _ID_SEP.search(groups[0].strip()):
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

    def sentences(self, answer: str) -> List[Sentence]:
        """The answer's sentences, headings included, with their offsets (see :func:`sentences`)."""
        return sentences(answer, self.citation_re, self.language_of(answer))

    def language_of(self, answer: str) -> str:
        """The two-letter code of the language ``answer`` is split in: the one asked for, or with
        ``"auto"`` the answer's own (English when its words tell none)."""
        if self.language != AUTO_LANGUAGE:
            return self.language
        return sentencex_code(_answer_language(answer))

    def split(self, case_id: str, answer: str, passage_ids: Sequence[str] = (), question: str = "") -> Split:
        """The claims of one answer (numbered from 1) and whether it abstains. ``passage_ids``: the
        ids of the passages the answer was written from; one of them named in round brackets
        ("... in an hour (SEC-MFA-2).") is a citation too.

        >>> [(c.text, c.cites) for c in ClaimSplitter().split("c", "Tokens last 8 hours (SEC-2).", ["SEC-2"]).claims]
        [('Tokens last 8 hours.', ('SEC-2',))]
        """
        claims, abstains, _ = self._walk(case_id, answer, explain=False, passage_ids=passage_ids, question=question)
        return Split(tuple(claims), abstains)

    def split_alone(self, answer: str, passage_ids: Sequence[str] = ()) -> Optional[Split]:
        """:meth:`split` of an answer whose claims no question can change (numbered from 1, with an
        empty case id), or ``None`` for an answer that is only a yes or no, whose claim is the
        question's premise: splits that may be kept per answer, whatever the question.

        >>> ClaimSplitter().split_alone("Yes.") is None, len(ClaimSplitter().split_alone("Yes. It is paid.").claims)
        (True, 1)
        """
        claims, abstains, _ = self._walk("", answer, explain=False, passage_ids=passage_ids, question=None)
        if claims is None:
            return None
        return Split(tuple(claims), abstains)

    def explain(self, answer: str, passage_ids: Sequence[str] = (), question: str = "") -> List[Tuple[str, str]]:
        """How an answer splits: ``(role, sentence)`` for every sentence, role being ``claim``,
        ``abstention``, ``closing`` (whom to ask instead, or a courtesy, in an answer that
        abstains), ``yes/no`` (a bare yes or no, part of the claim beside it), ``heading`` or
        ``no claim`` (a lone citation or punctuation).

        >>> ClaimSplitter().explain("Steps:\\n- Pay by May [D10].\\n- I can't find the rest.")
        [('heading', 'Steps:'), ('claim', 'Pay by May [D10].'), ('abstention', "I can't find the rest.")]
        """
        return self._walk("", answer, explain=True, passage_ids=passage_ids, question=question)[2]

    def _named_ids(self, text: str, ids: FrozenSet[str]) -> Tuple[Tuple[str, ...], str]:
        """The passage ids a sentence names in round brackets ("(SEC-MFA-2)", "(KB-3, KB-4)"), and the
        sentence without those brackets."""
        found: List[str] = []

        def take(match: "re.Match[str]") -> str:
            parts = [p for p in _ID_SEP.split(match.group(1).strip()) if p]
            if parts and all(p in ids for p in parts):
                found.extend(parts)
                return ""
            return match.group()

        rest = _ID_IN_BRACKETS.sub(take, text)
        return tuple(dict.fromkeys(found)), rest

    def _read(self, whole: str, ids: Optional[FrozenSet[str]], may_abstain: bool) -> Tuple[str, Tuple[str, ...], str, Optional[bool]]:
        """What one sentence of an answer is, read alone: ``(role, cites, text, yes)``, role being
        one of :meth:`explain`'s (``claim``, ``abstention``, ``yes/no``, ``no claim``, ``sources``),
        ``text`` the claim's text without its citations, ``yes`` which answer a bare yes or no
        gives, or for a claim whether it is a closing sentence (:func:`is_closing`). ``ids``: the
        answer's passage ids when the sentence has a round bracket (one naming them is a citation).
        Kept per sentence: answers that differ repeat most of their sentences."""
        key = (whole, ids, may_abstain)
        found = self._memo.get(key)
        if found is None:
            found = self._read_fresh(whole, ids, may_abstain)
            if len(self._memo) >= _SENTENCE_MEMO:
                self._memo.clear()
            self._memo[key] = found
        return found

    def _read_fresh(self, whole: str, ids: Optional[FrozenSet[str]],
                    may_abstain: bool) -> Tuple[str, Tuple[str, ...], str, Optional[bool]]:
        if self._bracketed and "[" not in whole and "(" not in whole and "\u3010" not in whole:
            cites: Tuple[str, ...] = ()
            text = whole
        else:
            cites = self.citations(whole)
            text = self.citation_re.sub("", whole) if cites else whole
            if ids and "(" in text:
                named, text = self._named_ids(text, ids)
                if named:
                    cites = tuple(dict.fromkeys(cites + named))
        if _FOOTNOTE_DEFINITION.match(whole):
            return _SOURCES_ROLE, (), whole, None  # "[^1]: Refund policy, KB-3" says where a footnote points, no fact
        # A sentence that cites a passage asserts something; only one without is an abstention. A
        # refusal that turns to a claim ("I can't find that, but refunds are paid in cash [D1].") is
        # read clause by clause, as long as no refusal of it cites a passage.
        if may_abstain and (not cites or may_turn(whole)) and self.is_abstention(whole):
            parts = self._hedged(whole)
            if parts and (not cites or not any(self.citations(whole[a:b]) and self.is_abstention(whole[a:b])
                                                 for a, b in parts)):
                return _HEDGED, parts, whole, None
            if not cites:
                return _ABSTENTION, cites, whole, None
        initial = text.lstrip(_ANSWER_EDGES)[:1]
        if initial in _ANSWER_INITIALS or (initial in "Pp" and text.lstrip(_ANSWER_EDGES)[:10].lower() == "pas encore"):
            yes = bare_answer(text) if len(text) <= 64 else None
            if yes is None and initial in _YES_NO_INITIALS:
                lead = LEADING_ANSWER.match(text.lstrip(_ANSWER_EDGES))
                if lead is not None:  # "No. Returns are ...", one sentence to the segmenter: the claim is the rest
                    text = text.lstrip(_ANSWER_EDGES)[lead.end():]
            if yes is not None:
                return _YES_NO, cites, text, yes
        if not _HAS_WORD.search(text) or (len(text) <= 6 and _ENUMERATOR.fullmatch(text.strip())):
            return _NO_CLAIM, cites, text, None  # a lone citation, punctuation or list number ("2.") asserts nothing
        if cites and _SOURCES_LINE.fullmatch(text):
            return _SOURCES_ROLE, cites, text, None  # "Sources: [1][2]" names the answer's sources; it asserts nothing
        if "*" in text or "_" in text:
            text = strip_emphasis(text)
        if "  " in text or "\n" in text or "\t" in text or text[:1].isspace() or text[-1:].isspace():
            text = " ".join(text.split())
        if text[-2:-1] == " " and text[-1] in ".!?":
            text = text[:-2] + text[-1]  # "all 100 [D07]." -> "all 100."
        elif " " in text[-4:]:
            text = _FINAL_SPACE.sub(r"\1", text)  # 'now [D10]."' -> 'now."', "[D7] 。"
        if " ," in text or " ;" in text or " :" in text:
            text = _INNER_SPACE.sub(_first_group, text)
        if text.endswith("..") and not text.endswith("..."):
            text = text[:-1]  # "before 6 a.m. (Source: TR-2)." -> "before 6 a.m."
        if text[-2:] in ("()", "[]") or "()" in text or "[]" in text:
            text = _EMPTY_BRACKETS.sub("", text)
        return _CLAIM, cites, text, may_abstain and not cites and is_closing(text)

    def _walk(self, case_id: str, answer: str, explain: bool, passage_ids: Sequence[str] = (),
              question: Optional[str] = ""):
        """The claims, whether the answer abstains, and each sentence's role (with ``explain``);
        ``question`` ``None``: the claims are ``None`` when the question would shape them."""
        claims: List[Claim] = []
        bare: Optional[_Bare] = None  # a bare yes or no waiting for the claim it goes with
        roles: List[Tuple[str, str]] = []
        abstains = False
        sources: Tuple[str, ...] = ()
        ids = frozenset(passage_ids) if passage_ids and "(" in answer else None
        end_of_claims = len(answer)
        if ":" in answer and _SOURCES_HINT.search(answer) is not None:
            block = _sources_block(answer, self.citation_re)
            if block is not None:
                end_of_claims, sources = block[0], self._source_ids(block[1])
                if explain:
                    roles_after = [("sources", line.strip()) for line in block[1].split("\n") if line.strip()]
        text_of_claims = answer if end_of_claims == len(answer) else answer[:end_of_claims]
        # Most answers hold no abstention wording at all: one look at the whole answer spares
        # the per-sentence phrase patterns.
        may_abstain = self._extra_re is not None or (
            self._builtin_re is not None and _has_trigger(text_of_claims.lower().replace("\u2019", "'")))
        closings: List[Tuple[int, int]] = []  # (claim index, role index) of closing sentences
        units = _sentences(text_of_claims, self.citation_re, self.language_of(text_of_claims))
        for start, end, whole, heading in units:
            if heading:
                if explain:
                    roles.append(("heading", whole))
                continue
            role, cites, text, yes = self._read(whole, ids if ids is not None and "(" in whole else None,
                                                may_abstain)
            if role is not _CLAIM:
                if role is _HEDGED:  # "I can't find that, but refunds are paid in cash.": each clause read alone
                    exact = answer[start:end] == whole
                    # put right after this sentence (found by its offsets, which no other has), where the
                    # loop, reading the list as it goes, reads them next
                    k = units.index((start, end, whole, heading)) + 1
                    units[k:k] = [(start + a, start + b, whole[a:b], False) if exact else (start, end, whole[a:b], False)
                                  for a, b in cites]
                    continue
                if role is _ABSTENTION:
                    abstains = True
                elif role is _YES_NO:
                    # "Yes." asserts nothing of its own: it goes with the claim after it (see below)
                    if bare is None:
                        bare = _Bare(start, end, cites, yes, len(roles))
                    else:
                        bare = bare._replace(end=end, cites=tuple(dict.fromkeys(bare.cites + cites)))
                elif role is _SOURCES_ROLE and cites:
                    sources = tuple(dict.fromkeys(sources + cites))
                if explain:
                    roles.append((role, whole))
                continue
            if yes:  # a closing sentence ("Please contact your manager.") beside an abstention
                closings.append((len(claims), len(roles)))
            if bare is not None:  # "Yes. Refunds are paid within 5 days.": one claim, the yes with it
                start, cites, bare = bare.start, tuple(dict.fromkeys(bare.cites + cites)), None
            claims.append(Claim(case_id, len(claims) + 1, text, cites, (start, end)))
            if explain:
                roles.append(("claim", whole))
        if abstains and closings:
            # "I can't find that. Please contact your manager.": whom to ask, or a courtesy, beside
            # an abstention asserts nothing; the answer declines
            dropped = {k for k, _ in closings}
            claims = [replace(c, number=n) for n, c in
                      enumerate((c for k, c in enumerate(claims) if k not in dropped), 1)]
            if explain:
                for _, r in closings:
                    roles[r] = ("closing", roles[r][1])
        if bare is not None and not (abstains and not claims):
            if claims:  # "Refunds are paid within 5 days. So yes.": the yes goes with the claim before it
                last = claims[-1]
                claims[-1] = replace(last, cites=tuple(dict.fromkeys(last.cites + bare.cites)),
                                     span=(last.span[0], bare.end) if last.span else last.span)
            else:
                # An answer that is only a yes or no asserts the question's premise, or its negation.
                if question is None:
                    return None, abstains, roles  # the question shapes this answer's claim
                said = premise(question, bare.yes) or fallback(question, bare.yes) or \
                    " ".join(answer[bare.start:bare.end].split())
                claims.append(Claim(case_id, 1, said, bare.cites, (bare.start, bare.end)))
                if explain:
                    roles[bare.role] = ("claim", roles[bare.role][1])
        if "\n" in text_of_claims:
            for list_start, cite_start, cite_end in list_closings(text_of_claims, self.citation_re):
                closing = self.citations(text_of_claims[cite_start:cite_end])
                # the citations closing a list back each of its items that cites nothing itself
                claims = [replace(c, cites=closing) if not c.cites and c.span and
                          list_start <= c.span[0] < cite_start else c for c in claims]
        if sources:
            # The answer's sources back every claim that names none of its own.
            claims = [c if c.cites else replace(c, cites=sources) for c in claims]
        if explain and end_of_claims < len(answer):
            roles.extend(roles_after)
        return claims, abstains, roles

    def _source_ids(self, block: str) -> Tuple[str, ...]:
        """The ids a sources block names: its citations, and bare ids with a digit on its heading line
        ("Sources: KB-3, KB-4")."""
        ids = list(self.citations(block))
        first = block.split("\n", 1)[0]
        rest = first.split(":", 1)[1] if ":" in first else ""
        rest = self.citation_re.sub(" ", rest).strip(" *_.")
        if rest:
            tokens = [t for t in _ID_SEP.split(rest.replace("  ", " ")) if t]
            if all(_BARE_ID.fullmatch(t) for t in tokens):
                ids.extend(tokens)
        return tuple(dict.fromkeys(ids))


#: The words that head a list of sources, in the languages groundlab reads.
_SOURCE_WORDS = r"(?:sources?|references?|citations?|quellen?|fuentes?|r\u00e9f\u00e9rences?)"
#: A line that may head a list of the answer's sources: "Sources:", "**References:**", "## Quellen:".
_SOURCES_HINT = re.compile(r"(?im)^[ \t>#*_-]*" + _SOURCE_WORDS + r"(?:[ \t]+[a-z]+){0,2}[ \t]*[*_]*[ \t]*:")
#: What a "Sources: [1][2]" sentence holds once its citations are taken out.
_SOURCES_LINE = re.compile(r"[\s>#*_(-]*(?i:" + _SOURCE_WORDS + r"(?:\s+[a-zA-Z]+){0,2}|see(?:\s+also)?|cf|siehe|voir)"
                           r"\s*[*_]*\s*:?[\s,;&.*_)]*")
_FOOTNOTE_DEFINITION = re.compile(r"\s*\[\^[^\]]{1,40}\]:")
#: Round brackets that may name passages: "(SEC-MFA-2)", "(see KB-3 and KB-4)".
_ID_IN_BRACKETS = re.compile(r"\s*\(\s*(?:(?i:see|source|sources|ref|cf|siehe|vgl|voir|quelle)\.?:?\s+)?([^()]{1,120}?)\s*\)")
_BARE_ID = re.compile(r"[A-Za-z_]*[-_.:#/]?\d[\w.:#/-]*")
#: Markdown emphasis around words: **bold**, __bold__, *italic*, _italic_ (not a * or _ inside a
#: word, as in "file_name" or "5*3").
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
                       r"|(?<![\w_])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w_])")
_LEFTOVER_EMPHASIS = re.compile(r"\*\*|(?<!\w)__|__(?!\w)")


def strip_emphasis(text: str) -> str:
    """``text`` without Markdown's emphasis marks: a reader sees "Receipts:", not "**Receipts:**".

    >>> strip_emphasis("**Receipts:** keep them for _ten_ years; file_name stays.")
    'Receipts: keep them for ten years; file_name stays.'
    """
    if "*" not in text and "_" not in text:
        return text
    out = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or m.group(4), text)
    return _LEFTOVER_EMPHASIS.sub("", out) if "**" in out or "__" in out else out


_EMPTY_BRACKETS = re.compile(r"\s*(?:\(\s*\)|\[\s*\])")
#: A line of a list of sources: a list item, a bracketed number or footnote, or a line naming an id.
_SOURCE_ENTRY = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|\[|\u3010|\(|[A-Za-z_]*[-_.:#/]?\d)")


def _sources_block(answer: str, citation_re: Pattern[str]) -> Optional[Tuple[int, str]]:
    """Where a trailing list of sources starts and its text: a line headed "Sources:" (or
    "References:", ...) after which every line is an entry of the list. ``None`` when there is
    none, or when what follows the heading reads as more of the answer."""
    found = None
    for found in _SOURCES_HINT.finditer(answer):
        pass
    if found is None:
        return None
    start = found.start()
    if start and answer[start - 1] != "\n":
        start = answer.rfind("\n", 0, start) + 1
    block = answer[start:]
    lines = [line for line in block.split("\n")[1:] if line.strip()]
    for line in lines:
        if len(line) > 300 or not _SOURCE_ENTRY.match(line):
            return None
    if not lines and not citation_re.search(block) and not _BARE_ID.search(block.split(":", 1)[1]):
        return None  # "Sources:" with nothing after it on its line or below
    return start, block


def shorten(text: str, limit: int = 100) -> str:
    """A sentence on one line, cut with an ellipsis past ``limit`` characters (for messages)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _compile(pattern: str, what: str) -> Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise GroundlabError(f"the {what} {pattern!r} is not a valid regular expression ({exc}); "
                             "fix it and run again") from None


def _first_group(match: "re.Match[str]") -> str:
    return match.group(1)


def _alternation(phrases: Sequence[str]) -> Optional[Pattern[str]]:
    if not phrases:
        return None
    return re.compile("|".join(f"(?:{p})" for p in phrases), re.IGNORECASE)


def claim_splitter(citation_pattern: Optional[str] = "", abstention_phrases: Sequence[str] = (),
                   names: Sequence[str] = ("citation_pattern", "abstention_phrases"),
                   default_citations: bool = True, language: str = AUTO_LANGUAGE) -> ClaimSplitter:
    """How answers are split into claims: ``citation_pattern``, a citation style of one's own read
    beside the built-in ones ("" for the built-in ones alone: ``[D07]``, ``[^1]``, ``【1】``,
    ``(Source: KB-3)``, ``(see KB-5)``; ``default_citations=False`` reads it alone), and abstention
    wordings added to the built-in ones. A pattern that is not a regular expression is refused in
    one sentence naming it as ``names`` say (the parameter, or the option)."""
    if isinstance(abstention_phrases, str):
        abstention_phrases = [abstention_phrases] if abstention_phrases else []
    for name, patterns in zip(names, ([citation_pattern or ""], list(abstention_phrases))):
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise GroundlabError(f"{name} {pattern!r} is not a valid regular expression ({exc}); "
                                     "fix it and run again.") from None
    if not default_citations and not citation_pattern:
        raise GroundlabError("the built-in citation styles are left out (--no-default-citations, or "
                             "default_citations False) but no citation pattern of your own is given; give one with "
                             f"{names[0]}, or keep the built-in ones.")
    try:
        return ClaimSplitter(citation_pattern=citation_pattern or None,
                             abstention_phrases=DEFAULT_ABSTENTION_PHRASES + tuple(abstention_phrases),
                             default_citations=bool(default_citations), language=language)
    except GroundlabError:
        raise
    except ValueError as exc:
        raise GroundlabError(f"{exc}.") from None
