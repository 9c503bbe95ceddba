"""Each case unfolded, for the notebooks and their HTML copies: the question, the answer with each
claim coloured by its verdict, the claims with the judge's reason, and the passages with the
sentence that decided each verdict highlighted and the words that matched or clashed marked.

A card is an HTML ``<details>`` element: it opens with a click and needs no script. Each card has
an anchor (:func:`case_anchor`), so a report row can link to the claims behind it
(``01-groundedness.html#c02``). Every piece of case text is escaped: an answer or a passage may
hold markup, which shows as text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import pandas as pd

from ..core import formatting as fmt
from ..core.io import sha256_text
from ..core.records import Case

_ANCHOR = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{0,63}")


def case_anchor(case_id: str) -> str:
    """The HTML anchor of a case's card: its id when that is a plain name (``c02``), else ``case-``
    and a hash of it, so an id with spaces, markup or quotes still makes a valid, unique anchor.

    >>> case_anchor("c02"), case_anchor("<b>x</b>")[:5]
    ('c02', 'case-')
    """
    text = str(case_id)
    if _ANCHOR.fullmatch(text):
        return text
    return "case-" + sha256_text(text)[:12]


_CSS = """
<style>
.gl-cards { font-size: 0.92rem; }
.gl-case { border: 1px solid #ccc; border-radius: 4px; margin: 0.35rem 0; padding: 0.2rem 0.6rem; }
.gl-case > summary { cursor: pointer; padding: 0.2rem 0; }
.gl-case[open] > summary { border-bottom: 1px solid #ddd; margin-bottom: 0.4rem; }
.gl-badge { display: inline-block; border-radius: 3px; padding: 0 0.35em; margin-left: 0.3em; font-size: 0.85em;
            font-weight: 600; }
.gl-supported { background: %(tint_good)s; } .gl-contradicted { background: %(tint_bad)s; }
.gl-unsupported { background: %(tint_unsure)s; } .gl-undecided { background: %(tint_none)s; }
.gl-claim { border-radius: 2px; padding: 0 0.1em; }
.gl-claim sup { font-weight: 700; }
.gl-label { font-weight: 600; color: #333; margin: 0.35rem 0 0.1rem; }
.gl-claims { margin: 0.1rem 0 0.3rem 1.2rem; padding: 0; }
.gl-claims li { margin-bottom: 0.25rem; }
.gl-reason { color: #444; font-size: 0.9em; }
.gl-passage { margin: 0.2rem 0; padding: 0.2rem 0.4rem; border-left: 3px solid #ddd; overflow-wrap: anywhere; }
.gl-passage mark { background: #fff2a8; padding: 0 0.1em; }
.gl-match { font-weight: 700; text-decoration: underline; text-decoration-color: %(good)s; }
.gl-clash { font-weight: 700; color: %(bad)s; text-decoration: line-through wavy %(bad)s; }
</style>
""" % {"tint_good": fmt.STATE_TINTS["good"], "tint_bad": fmt.STATE_TINTS["bad"],
       "tint_unsure": fmt.STATE_TINTS["unsure"], "tint_none": fmt.STATE_TINTS["none"],
       "good": fmt.STATE_COLOURS["good"], "bad": fmt.STATE_COLOURS["bad"]}

#: The symbol of each verdict, shown beside its colour.
VERDICT_SYMBOLS = {"supported": fmt.STATE_SYMBOLS["good"], "contradicted": fmt.STATE_SYMBOLS["bad"],
                   "unsupported": fmt.STATE_SYMBOLS["unsure"], None: fmt.STATE_SYMBOLS["none"]}


def _verdict_class(verdict: Optional[str]) -> str:
    return f"gl-{verdict}" if verdict in VERDICT_SYMBOLS and verdict else "gl-undecided"


def _badge(verdict: Optional[str], text: Optional[str] = None) -> str:
    word = text or (verdict or "undecided")
    return (f'<span class="gl-badge {_verdict_class(verdict)}">{VERDICT_SYMBOLS.get(verdict, "?")} '
            f"{html.escape(word)}</span>")


def _word_spans(text: str, words: Sequence[str]) -> List[Tuple[int, int]]:
    """Where each of ``words`` stands in ``text`` as a whole word, case-blind."""
    spans = []
    for word in words:
        word = str(word).strip()
        if not word:
            continue
        pattern = (r"(?<![\w])" if word[0].isalnum() else "") + re.escape(word) + \
                  (r"(?![\w])" if word[-1].isalnum() else "")
        spans += [(m.start(), m.end()) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return spans


def marked(text: str, sentences: Sequence[Tuple[str, Sequence[str], Sequence[str]]]) -> str:
    """``text`` escaped, with each deciding sentence in ``<mark>`` and, inside it, the words found in
    both in ``gl-match`` and the ones that clash in ``gl-clash``. ``sentences``: ``(sentence,
    matched, clashed)``; a sentence not found in ``text`` marks nothing.

    >>> marked("Refunds <b>never</b> in cash. Fine.", [("Refunds <b>never</b> in cash.", ["cash"], ["never"])])
    '<mark>Refunds &lt;b&gt;<b class="gl-clash">never</b>&lt;/b&gt; in <b class="gl-match">cash</b>.</mark> Fine.'
    """
    marks: List[Tuple[int, int, str]] = []
    for sentence, matched, clashed in sentences:
        if not sentence:
            continue
        at = text.find(sentence)
        if at < 0:
            continue
        marks.append((at, at + len(sentence), "mark"))
        inside = text[at:at + len(sentence)]
        for kind, words in (("gl-clash", clashed), ("gl-match", matched)):
            for s, e in _word_spans(inside, words):
                marks.append((at + s, at + e, kind))
    if not marks:
        return html.escape(text)
    # sentences as outer spans (merged), words inside them, never overlapping
    outer = sorted({(s, e) for s, e, k in marks if k == "mark"})
    merged: List[List[int]] = []
    for s, e in outer:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    words = []
    taken = [False] * len(text)
    for s, e, k in sorted((m for m in marks if m[2] != "mark"), key=lambda m: (m[2] != "gl-clash", m[0])):
        if not any(taken[s:e]):
            words.append((s, e, k))
            for i in range(s, e):
                taken[i] = True
    out, pos = [], 0
    for s, e in merged:
        out.append(html.escape(text[pos:s]))
        inner_pos = s
        inner = []
        for ws, we, k in sorted(w for w in words if s <= w[0] and w[1] <= e):
            inner.append(html.escape(text[inner_pos:ws]))
            inner.append(f'<b class="{k}">{html.escape(text[ws:we])}</b>')
            inner_pos = we
        inner.append(html.escape(text[inner_pos:e]))
        out.append("<mark>" + "".join(inner) + "</mark>")
        pos = e
    out.append(html.escape(text[pos:]))
    return "".join(out)


@dataclass(repr=False)
class CaseCards:
    """Every case as a card that unfolds (see the module docstring); shows itself as HTML."""

    cards: List[str]
    ids: List[str]

    def __len__(self) -> int:
        return len(self.cards)

    def _repr_html_(self) -> str:
        if not self.cards:
            return "<p>No case to show.</p>"
        return _CSS + '<div class="gl-cards">' + "".join(self.cards) + "</div>"

    def __repr__(self) -> str:
        return f"{fmt.count(len(self.cards), 'case')} to unfold: {', '.join(self.ids[:10])}" + \
               (", \u2026" if len(self.ids) > 10 else "")


def case_cards(cases: Sequence[Case], claims: pd.DataFrame, case_frame: Optional[pd.DataFrame] = None,
               splitter=None) -> CaseCards:
    """A card per case of ``cases``, from the judge's ``claims`` frame (and its ``case_frame``, for
    the outcome): see the module docstring. ``splitter`` splits the answers as the run did, so each
    claim's place in the answer is found."""
    from ..measure.evaluate import split_cases

    splits = split_cases(list(cases), splitter)
    by_case: Dict[str, pd.DataFrame] = {cid: rows for cid, rows in claims.groupby("case_id", sort=False)}
    outcome = case_frame.set_index("case_id")["outcome"].to_dict() if case_frame is not None else {}
    cards, ids = [], []
    for case, split in zip(cases, splits):
        rows = by_case.get(case.id)
        cards.append(_card(case, split, rows, outcome.get(case.id)))
        ids.append(case.id)
    return CaseCards(cards, ids)


def _card(case: Case, split, rows: Optional[pd.DataFrame], outcome: Optional[str]) -> str:
    e = html.escape
    verdicts = {} if rows is None else {int(r.claim): r for r in rows.itertuples()}
    counts: Dict[Optional[str], int] = {}
    for r in verdicts.values():
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    badges = "".join(_badge(v, f"{n} {v or 'undecided'}") for v, n in counts.items()) or _badge(None, "no claims: "
                                                                                                   "abstained")
    head = (f'<details class="gl-case" id="{e(case_anchor(case.id))}"><summary><b>{e(case.id)}</b> \u00b7 '
            f"{e(case.question)} {badges}" + (f" \u00b7 outcome {e(outcome)}" if outcome else "") + "</summary>")
    # the answer, each claim coloured by its verdict and numbered
    answer, pos, pieces = case.answer, 0, []
    for claim in split.claims:
        if claim.span is None:
            continue
        s, t = claim.span
        if s < pos:
            continue
        r = verdicts.get(claim.number)
        verdict = getattr(r, "verdict", None)
        pieces.append(e(answer[pos:s]))
        pieces.append(f'<span class="gl-claim {_verdict_class(verdict)}" title="{e(getattr(r, "reason", "") or "")}">'
                      f"{e(answer[s:t])}<sup>{claim.number}</sup></span>")
        pos = t
    pieces.append(e(answer[pos:]))
    body = [f'<p class="gl-label">Answer</p><p>{"".join(pieces)}</p>']
    if verdicts:
        items = []
        for number, r in sorted(verdicts.items()):
            person = f" \u00b7 person: {e(str(r.label))}" if isinstance(r.label, str) else ""
            evidence = (f'<br><span class="gl-reason">deciding sentence: \u201c{e(r.evidence)}\u201d</span>'
                        if isinstance(r.evidence, str) and r.evidence else "")
            items.append(f"<li>{_badge(r.verdict)} {e(r.text)}{person}<br><span class=\"gl-reason\">"
                         f"{e(str(r.reason or ''))}</span>{evidence}</li>")
        body.append('<p class="gl-label">Claims</p><ol class="gl-claims">' + "".join(items) + "</ol>")
    deciding = [(r.evidence, tuple(r.evidence_matched or ()), tuple(r.evidence_clashed or ()))
                for r in verdicts.values() if isinstance(getattr(r, "evidence", None), str)]
    if case.retrieved:
        body.append('<p class="gl-label">Passages (the sentence that decided a verdict highlighted)</p>')
        body += [f'<p class="gl-passage"><b>{e(p.id)}</b> {marked(p.text, deciding)}</p>' for p in case.retrieved]
    else:
        body.append("<p>No passage was retrieved for this case: every claim is unsupported.</p>")
    return head + "".join(body) + "</details>"


__all__ = ["CaseCards", "case_anchor", "case_cards", "marked"]
