"""Who labeled the answers a report rests on, read from what the label import records of each
answer (``meta.labeling``: each person's labels, whether the judge's verdicts were hidden): how
many people, how many answers, how far two people agree, and the words the report gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import pandas as pd

from ..core import formatting as fmt
from ..core.people import PeopleAgreement, people_agreement

PEOPLE_COLUMN = "meta.labeling.people"
BLIND_COLUMN = "meta.labeling.blind"


@dataclass(frozen=True)
class LabelsMade:
    """How the labels of a run were made: ``answers`` labeled answers whose labeling is recorded,
    ``agreement`` between the people (every person who labeled, the claims two of them labeled),
    and how many answers were labeled ``blind`` and ``seeing`` the judge's verdicts."""

    answers: int
    agreement: PeopleAgreement
    blind: int
    seeing: int

    @property
    def people(self) -> int:
        return len(self.agreement.people)

    def how(self) -> str:
        """``labels made blind``, ``labels made seeing the judge's verdicts``, or how many each way."""
        if self.blind and not self.seeing:
            return "labels made blind"
        if self.seeing and not self.blind:
            return "labels made seeing the judge's verdicts"
        if self.blind and self.seeing:
            return (f"{fmt.count(self.blind, 'answer')} labeled blind, {self.seeing} seeing the judge's verdicts")
        return ""


def labels_made(cases: pd.DataFrame) -> Optional[LabelsMade]:
    """What the case frame records of its labeling (:class:`LabelsMade`); ``None`` when no labeled
    answer records it (labels written by hand, or by an earlier version)."""
    if PEOPLE_COLUMN not in cases:
        return None
    labeled = cases["labeled"].astype(bool) if "labeled" in cases else pd.Series(True, index=cases.index)
    claims: List[Tuple[str, Dict[str, str]]] = []
    everyone = set()
    answers = blind = seeing = 0
    blind_column = cases[BLIND_COLUMN] if BLIND_COLUMN in cases else pd.Series(None, index=cases.index)
    for case_id, people, made_blind, is_labeled in zip(cases["case_id"], cases[PEOPLE_COLUMN], blind_column, labeled):
        if not is_labeled or not isinstance(people, list) or not people:
            continue
        answers += 1
        if made_blind is True:
            blind += 1
        elif made_blind is False:
            seeing += 1
        longest = max((len(p.get("labels") or []) for p in people if isinstance(p, dict)), default=0)
        for p in people:
            if isinstance(p, dict) and p.get("annotator") is not None:
                everyone.add(str(p["annotator"]))
        for k in range(longest):
            given = {str(p["annotator"]): p["labels"][k] for p in people
                     if isinstance(p, dict) and isinstance(p.get("labels"), list) and k < len(p["labels"])
                     and p["labels"][k] is not None and p.get("annotator") is not None}
            if given:
                claims.append((str(case_id), given))
    if not answers:
        return None
    return LabelsMade(answers, people_agreement(claims, sorted(everyone)), blind, seeing)


def people_words(made: Optional[LabelsMade], judge_same: Optional[float]) -> Tuple[str, str]:
    """What the report's "How the judge was checked" line adds: who labeled (``"2 people,
    10 answers; labels made blind"``), and a sentence on how far two people agree, saying so when
    they agree less with each other than the judge (``judge_same``, its share of the same verdict
    as people) agrees with them. Empty strings without a record of the labeling."""
    if made is None:
        return "", ""
    who = f"{fmt.count(made.people, 'person', 'people')}, {fmt.count(made.answers, 'answer')}"
    how = made.how()
    head = who + (f"; {how}" if how else "")
    a = made.agreement
    if not a.compared:
        if made.people > 1:
            return head, " No claim was labeled by two people, so how far people agree is not measured."
        return head, (" One person labeled, so how far people agree is not measured (a second person's share of "
                      "the labels measures it).")
    text = str(a)
    sentence = f" Two people labeled {fmt.count(a.claims, 'claim')} of {fmt.count(a.answers, 'answer')} both: " + \
        text[text.index("the same verdict"):]
    if judge_same is not None and not math.isnan(judge_same) and a.same.rate < judge_same:
        sentence += (f"; people agree with each other less ({fmt.percent(a.same.rate)}) than the judge agrees with "
                     f"them ({fmt.percent(judge_same)}): the judge's misses and false alarms are within what people "
                     "themselves disagree on, so sharpen the guidelines before reading more into them")
    return head, sentence + "."


__all__ = ["LabelsMade", "labels_made", "people_words"]
