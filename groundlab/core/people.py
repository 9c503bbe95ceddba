"""How far people agree with each other on the same claims: the share of claims two or more people
gave the same verdict, and Cohen's kappa (that agreement beyond what chance gives), each with its
95% range, over the claims more than one person labeled.

A person's label is one of the three verdicts or :data:`CANT_TELL` ("can't tell": the passages
leave the person unable to decide); "can't tell" counts as a label of its own, so one person's
"can't tell" against another's verdict is a disagreement to settle.

>>> a = people_agreement([("c1", {"anna": "supported", "ben": "supported"}),
...                       ("c1", {"anna": "unsupported", "ben": "contradicted"}),
...                       ("c2", {"anna": "supported", "ben": "supported"})])
>>> a.claims, a.answers, a.same.count, a.people
(3, 2, 2, ('anna', 'ben'))
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

from .records import VERDICTS
from .stats import Rate

#: The label a person gives a claim the passages leave them unable to decide.
CANT_TELL = "can't tell"
#: Every label a person can give a claim, in the order of the agreement table.
PERSON_LABELS: Tuple[str, ...] = tuple(VERDICTS) + (CANT_TELL,)
#: How a person may write "can't tell" (the case, the spaces around it and a typographic
#: apostrophe do not matter).
CANT_TELL_WORDS = ("can't tell", "cant tell", "cannot tell", "can not tell", "can't say", "unsure")


def person_label(text: str) -> Optional[str]:
    """A person's label as written (``" Supported "``, ``"can’t tell"``) as groundlab reads it:
    one of :data:`PERSON_LABELS`; ``None`` for an empty cell; the text itself, stripped, for
    anything else (the caller names it as not a verdict)."""
    value = " ".join(str(text).replace("\u2019", "'").split()).lower()
    if not value:
        return None
    if value in VERDICTS:
        return value
    if value in CANT_TELL_WORDS:
        return CANT_TELL
    return str(text).strip()


@dataclass(frozen=True)
class PeopleAgreement:
    """Two or more people against each other on the claims they both labeled.

    ``same``: claims on which every person who labeled it gave the same label, of those compared
    (a Wilson 95% range); ``kappa`` with ``kappa_low`` and ``kappa_high``: Cohen's kappa over
    every pair of labels given the same claim (statsmodels' asymptotic 95% range; NaN when every
    label was one and the same, where it is undefined); ``confusion[i][j]``: pairs where the
    first person (in the order of ``people``) said ``order[i]`` and the other ``order[j]``.
    ``answers``: answers with a compared claim. ``people``: everyone who labeled any claim.
    """

    people: Tuple[str, ...]
    claims: int
    answers: int
    same: Rate
    kappa: float
    kappa_low: float
    kappa_high: float
    order: Tuple[str, ...] = PERSON_LABELS
    confusion: List[List[int]] = field(default_factory=list)

    @property
    def compared(self) -> bool:
        """Whether any claim was labeled by two people."""
        return self.claims > 0

    def kappa_words(self) -> str:
        """``Cohen's kappa 0.78 (95% range 0.52 to 1.00)``, or why it is undefined."""
        if math.isnan(self.kappa):
            return "Cohen's kappa undefined (every label the same)"
        return (f"Cohen's kappa {self.kappa:.2f} (95% range {self.kappa_low:.2f} to "
                f"{self.kappa_high:.2f})")

    def __str__(self) -> str:
        if not self.compared:
            return (f"{len(self.people)} {'person' if len(self.people) == 1 else 'people'} labeled; no claim was "
                    "labeled by two of them, so their agreement is not measured")
        from .formatting import percent, percent_range

        return (f"{len(self.people)} people labeled {self.claims} claim{'s' * (self.claims != 1)} of "
                f"{self.answers} answer{'s' * (self.answers != 1)} both: the same verdict on {self.same.count} of "
                f"{self.claims} claims ({percent(self.same.rate)}, 95% range {percent_range(self.same.low, self.same.high)}), "
                f"{self.kappa_words()}")


def people_agreement(claims: Iterable[Tuple[str, Mapping[str, str]]],
                     people: Sequence[str] = ()) -> PeopleAgreement:
    """How far people agree (:class:`PeopleAgreement`): ``claims`` gives, for each claim, the
    answer it belongs to and each person's label of it (``{"anna": "supported", ...}``; a person
    who did not label the claim is left out). Claims with one label are not compared; ``people``
    names more people to count as having labeled (whose labels are all single)."""
    index = {label: k for k, label in enumerate(PERSON_LABELS)}
    matrix = [[0] * len(PERSON_LABELS) for _ in PERSON_LABELS]
    everyone = set(people)
    compared = same = 0
    answers = set()
    for answer, labels in claims:
        given = {person: label for person, label in labels.items() if label in index}
        everyone.update(given)
        if len(given) < 2:
            continue
        compared += 1
        answers.add(answer)
        same += len(set(given.values())) == 1
        for first, second in combinations(sorted(given), 2):
            matrix[index[given[first]]][index[given[second]]] += 1
    kappa, low, high = cohens_kappa_range(matrix)
    return PeopleAgreement(tuple(sorted(everyone)), compared, len(answers), Rate(same, compared), kappa, low, high,
                           PERSON_LABELS, matrix)


def cohens_kappa_range(matrix: Sequence[Sequence[int]]) -> Tuple[float, float, float]:
    """Cohen's kappa of a square table with its 95% range (statsmodels: the asymptotic standard
    error), the range held within -1 to 1; NaNs where kappa is undefined (an empty table, or both
    raters using one and the same label throughout)."""
    total = sum(map(sum, matrix))
    n = len(matrix)
    if total == 0:
        return math.nan, math.nan, math.nan
    expected = sum(sum(matrix[k]) * sum(row[k] for row in matrix) for k in range(n)) / total ** 2
    if expected >= 1:
        return math.nan, math.nan, math.nan
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    with warnings.catch_warnings():  # its z statistic divides by zero on tiny or perfect tables
        warnings.simplefilter("ignore", RuntimeWarning)
        result = cohens_kappa(np.asarray(matrix, dtype=float))
    kappa = float(result.kappa)
    low, high = float(result.kappa_low), float(result.kappa_upp)
    if math.isnan(low) or math.isnan(high):  # a perfect table has no spread: kappa itself bounds it
        low = high = kappa
    return kappa, max(-1.0, low), min(1.0, high)


#: What the second person's share is sized for: Cohen's kappa within this many units either way.
KAPPA_MARGIN = 0.15
#: The agreement assumed when sizing it: people give the same verdict on 85% of claims, where
#: chance alone would give 55% (about 70% of claims supported and the rest split between the two
#: flags): a kappa of 0.67, "substantial" on Landis and Koch's scale.
ASSUMED_AGREEMENT = 0.85
ASSUMED_CHANCE = 0.55


def claims_for_kappa(margin: float = KAPPA_MARGIN, agreement: float = ASSUMED_AGREEMENT,
                     chance: float = ASSUMED_CHANCE) -> int:
    """How many claims two people must both label for Cohen's kappa to come within ``±margin``
    (95%), from its large-sample standard error ``sqrt(p (1 - p) / n) / (1 - p_e)`` at agreement
    ``p`` and chance agreement ``p_e``.

    >>> claims_for_kappa()
    108
    """
    z = 1.959963984540054
    return int(math.ceil((z / margin) ** 2 * agreement * (1 - agreement) / (1 - chance) ** 2))


def kappa_margin(claims: int, agreement: float = ASSUMED_AGREEMENT, chance: float = ASSUMED_CHANCE) -> float:
    """The half-width of kappa's 95% range expected on ``claims`` claims both people labeled
    (:func:`claims_for_kappa` turned round); NaN for none.

    >>> round(kappa_margin(108), 3)
    0.15
    """
    if claims <= 0:
        return math.nan
    return 1.959963984540054 * math.sqrt(agreement * (1 - agreement) / claims) / (1 - chance)


__all__ = ["ASSUMED_AGREEMENT", "ASSUMED_CHANCE", "CANT_TELL", "CANT_TELL_WORDS", "KAPPA_MARGIN", "PERSON_LABELS",
           "PeopleAgreement", "claims_for_kappa", "cohens_kappa_range", "kappa_margin", "people_agreement",
           "person_label"]
