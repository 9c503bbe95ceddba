"""The records groundlab passes between its steps: frozen, typed, and checked at the edges."""

from __future__ import annotations

import re
from operator import itemgetter
from dataclasses import dataclass
from typing import Any, Callable, List, Literal, Mapping, Optional, Sequence, Tuple

Label = Literal["supported", "contradicted", "unsupported"]

#: The three verdicts, in the order every table and matrix uses.
VERDICTS: Tuple[str, ...] = ("supported", "contradicted", "unsupported")


# Characters a terminal or a renderer acts on instead of showing: C0 controls but tab and line
# breaks, DEL, C1 controls (U+009B starts a terminal escape too), and the bidirectional overrides
# and isolates that reorder what is shown.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    r"""``text`` with every control character written as a ``\uXXXX`` escape, so case data, file
    names and model replies reach a terminal or a report as text, never as a command to it. In
    JSON output the escape means the same character, so JSON stays JSON.

    >>> visible("p2\x1b[31mRED\u202e")
    'p2\\u001b[31mRED\\u202e'
    """
    if text.isprintable() or _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(value: object, quoted: bool = False) -> str:
    r"""An id, a name or a text from outside as it goes on one line of a terminal or a note: as it
    is (in double quotes with ``quoted``) when every character of it prints, else as ``repr``
    writes it, quoted, its line breaks and control characters escaped, so that it cannot start a
    line of its own.

    >>> print(one_line("c01"), one_line("c|02\n# H"), one_line("Pay by May.", quoted=True))
    c01 'c|02\n# H' "Pay by May."
    """
    text = str(value)
    if not text.isprintable():
        return repr(text)
    return f'"{text}"' if quoted else text


class GroundlabError(ValueError):
    """Base of every error groundlab reports to a person.

    The message is one sentence that names the file, line or case and says what to do;
    the command line prints it without a traceback and exits with status 2.
    """


class InputError(GroundlabError):
    """A cases, passages or label file that cannot be used as it is."""


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrieved passage: an id the answer can cite, and its text."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Case:
    """One question, the passages the assistant was given, and its answer.

    ``answerable`` and ``labels`` are ``None`` when unknown (unlabeled production logs).
    ``process`` names the business process the case belongs to (``procure-to-pay``), so that
    measures and targets can be set per process; ``None`` when not given.
    ``source`` says where the case came from (``file:line``) so errors can point at it.
    ``meta``: anything else known about the answer (model, version, scores another tool
    computed), kept as given and shown as ``meta.<key>`` columns of the case frame.
    ``aliases``: other names the answer uses for retrieved passages, ``{"P1": "KB-101"}`` when
    it cites by position while the passages carry their own ids; a claim citing ``[P1]`` then
    cites ``KB-101``. ``classification``: how sensitive the case's data is
    (``"confidential"``), which a data policy (:mod:`groundlab.policy`) reads; ``None`` when
    not given. ``origin``: where the case came from when it was not logged (``"incident"``: a
    reported answer, :mod:`groundlab.incidents`).
    """

    id: str
    question: str
    retrieved: Tuple[Passage, ...]
    answer: str
    answerable: Optional[bool] = None
    labels: Optional[Tuple[str, ...]] = None
    source: str = ""
    process: Optional[str] = None
    meta: Optional[Mapping[str, Any]] = None
    aliases: Optional[Mapping[str, str]] = None
    classification: Optional[str] = None
    origin: Optional[str] = None

    @property
    def where(self) -> str:
        """``cases.jsonl line 3 (case c03)``: how error messages name this case."""
        return f"{self.source} (case {self.id})" if self.source else f"case {self.id}"


@dataclass(frozen=True, slots=True)
class Claim:
    """One sentence of an answer that asserts something, with the passage ids it cites.

    ``span`` is where the sentence (citations included) sits in the answer: the character offsets
    ``answer[start:end]``, or ``None`` when the claim was not split from an answer.
    """

    case_id: str
    number: int  # 1-based, in answer order
    text: str
    cites: Tuple[str, ...] = ()
    span: Optional[Tuple[int, int]] = None


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a claim is judged against: the user's question and some passages.

    Judges that work on text use :attr:`text` (``"Question: " + question + "\\n" +``
    the passages' texts joined by a space); judges that can reuse work per passage (the rules
    judge) or label passages by id (the LLM judge) read :attr:`question` and :attr:`passages`.

    ``answer`` (optional) is the whole answer the claim was taken from: context for reading a
    claim that refers back ("that supplier"), never evidence; :attr:`text` leaves it out. Claims
    of different answers never share evidence, even with the same question and passages.
    ``classification``: the case's, for a data policy to decide where the claim may go.
    """

    question: str
    passages: Tuple[Passage, ...]
    answer: Optional[str] = None
    classification: Optional[str] = None

    @property
    def text(self) -> str:
        return "Question: " + self.question + "\n" + " ".join(p.text for p in self.passages)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's decision on one claim.

    ``label`` is one of :data:`VERDICTS`, or ``None`` when the judge could not decide; then
    ``error`` says why, and the claim is left out of every rate and counted as an error.
    ``supported_by`` lists the passage ids that back the claim when the judge can say so
    (a model judge); ``None`` means citations are checked by judging the cited passages.
    ``held_back`` names the judge a data policy kept the claim from (the verdict is then another
    judge's, or none). ``evidence`` is the sentence of the passages that decided the verdict, when
    the judge can say (the signals judge: the sentence holding most of the claim's words, the one
    it found negated or saying another bound; the rules judge: the sentence it compared with);
    ``matched`` the words and numbers found in both, as that sentence writes them, and ``clashed``
    what parts them (a negation, the other bound, a number the evidence lacks and the ones it gives,
    the claim's words the evidence lacks).
    """

    label: Optional[str]
    reason: str
    score: Optional[float] = None
    error: Optional[str] = None
    supported_by: Optional[Tuple[str, ...]] = None
    held_back: Optional[str] = None
    evidence: Optional[str] = None
    matched: Tuple[str, ...] = ()
    clashed: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.label is None and not self.error:
            raise ValueError("a verdict without a label must carry an error")
        if self.label is not None and self.label not in VERDICTS:
            raise ValueError(f"verdict label {self.label!r} is not one of {', '.join(VERDICTS)}")


#: Why a claim judged against no passage text is unsupported, whatever the judge.
NO_PASSAGE_TEXT = "no passage text to check it against: nothing backs the claim"


def has_passage_text(evidence: Evidence) -> bool:
    """Whether some passage of the evidence holds text: a letter or digit, not white space, marks or
    invisible characters alone (the question is no evidence)."""
    for p in evidence.passages:
        text = p.text
        if text and (text[0].isalnum() or _HAS_TEXT.search(text) is not None):
            return True
    return False


_HAS_TEXT = re.compile(r"[^\W_]")
_second = itemgetter(1)


def without_passage_text(pairs: Sequence[Tuple[str, Evidence]],
                         judge_batch: Callable[[Sequence[Tuple[str, Evidence]]], List[Verdict]]) -> Optional[List[Verdict]]:
    """The verdicts on ``pairs`` when some claim has no passage text to be judged against (no
    passage, or passages holding no letter or digit): those claims are ``unsupported``, and
    ``judge_batch`` judges the others, in order. ``None`` when every claim has passage text, for the
    judge to go on as it does. Every judge calls it first: with nothing to read, a model's guess on
    the question alone, or a claim's words found in the question, backs nothing.

    >>> e = Evidence("How are refunds paid?", ())
    >>> without_passage_text([("Refunds are paid in cash.", e)], lambda pairs: [])[0].label
    'unsupported'
    """
    # The claims of one case share one Evidence: each is looked at once, in the judges' hot path,
    # where every one has passage text.
    last = None
    for _, evidence in pairs:
        if evidence is not last:
            last = evidence
            passages = evidence.passages  # (most: the first passage starts with a letter or digit)
            if not (passages and passages[0].text[:1].isalnum()) and not has_passage_text(evidence):
                break
    else:
        return None
    evidences = list(map(_second, pairs))
    empty = {key for key, evidence in dict(zip(map(id, evidences), evidences)).items()
             if not has_passage_text(evidence)}
    if not empty:
        return None
    bare = [k for k, evidence in enumerate(evidences) if id(evidence) in empty]
    skip = set(bare)
    rest = [pair for k, pair in enumerate(pairs) if k not in skip]
    judged = iter(judge_batch(rest) if rest else [])
    unsupported = Verdict("unsupported", NO_PASSAGE_TEXT, 0.0)
    return [unsupported if k in skip else next(judged) for k in range(len(pairs))]
