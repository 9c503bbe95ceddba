"""A platform's whole-answer rating (an SAP AI Core evaluation metric) beside people's labels and
groundlab's own judge, on the same answers.

A platform rates each answer as a whole: SAP's "Pointwise RAG Groundedness" gives 1 to 3, higher
being better grounded. groundlab judges each claim. To read the two together, both become one
flag per answer, *not grounded*: the platform's when its rating is below ``grounded_at`` (by
default the top of its scale), groundlab's when a claim is contradicted or unsupported, people's
when they labeled a claim so. Then the platform's flags are counted against people's as a judge's
are: of the answers people found hallucinated, how many it caught; of those they found grounded,
how many it flagged (false alarms); each a rate with its Wilson 95% range. groundlab's own judge
is counted on the very same answers, answer by answer and claim by claim.

Without people's labels there is nothing to calibrate against, but the two raters can still be
read against each other: :meth:`PlatformComparison.disagreements` lists the answers they rate
differently, with the claim that decides groundlab's verdict.

Where the ratings are: each case's ``meta`` holds them (as ``groundlab import`` writes them from
an evaluation's ``results.db``) under :data:`PLATFORM`::

    "meta": {"platform": {"source": "sap-eval", "run": "...", "model": "...",
                          "ratings": {"Pointwise RAG Groundedness": {"rating": 2, "explanation": "...",
                                                                     "error": null, "scale": [1, 3]}}}}

which the case frame carries as the column ``meta.platform.ratings.<metric>``.

>>> import pandas as pd
>>> cases = pd.DataFrame({"case_id": ["a", "b"], "claims": [1, 1], "labeled": [True, True],
...                       "hallucinated": pd.array([False, True], dtype="boolean"),
...                       "hallucinated_by_person": pd.array([True, True], dtype="boolean"),
...                       "meta.platform.source": ["sap-eval"] * 2,
...                       "meta.platform.ratings.m": [{"rating": 3, "scale": [1, 3]}, {"rating": 1, "scale": [1, 3]}]})
>>> claims = pd.DataFrame({"case_id": ["a", "b"], "claim": [1, 1], "text": ["x", "y"],
...                        "verdict": ["supported", "unsupported"], "label": ["unsupported", "unsupported"],
...                        "reason": ["", "coverage 0.2"]})
>>> c = compare_platform(claims, cases, "m")
>>> str(c.platform.caught), str(c.judge_answers.caught), str(c.judge_claims.caught)
('1/2 = 50%', '1/2 = 50%', '1/2 = 50%')
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from .records import GroundlabError, one_line
from .stats import Rate, UndefinedRateWarning, make_rate

if TYPE_CHECKING:  # pragma: no cover - pandas and the measures load when a comparison is made
    import pandas as pd

    from .metrics import Agreement

#: The field of a case's ``meta`` that holds a platform's ratings.
PLATFORM = "platform"
#: Its key holding the ratings, by metric name.
RATINGS = "ratings"
#: The column prefix of the ratings in the case frame.
RATING_COLUMN = f"meta.{PLATFORM}.{RATINGS}."

#: The platforms ``--against`` names, and the ``source`` their ratings carry.
SOURCES = {"sap": "sap-eval"}

#: The scales SAP documents for its built-in metrics, where a results file does not say.
KNOWN_SCALES = {"Pointwise RAG Groundedness": (1, 3), "Pointwise RAG Context Relevance": (1, 3),
                "Pointwise Instruction Following": (1, 5), "Pointwise Correctness": (1, 5),
                "Pointwise Answer Relevance": (1, 5), "Pointwise Conciseness": (1, 5)}

#: The two flags, in the order every 2 x 2 table uses: rows the person, columns the rater.
FLAGS = ("grounded", "not grounded")


def _figures(rate: Rate) -> Dict[str, Any]:
    low, high = rate.interval if rate.total else (None, None)
    return {"count": rate.count, "total": rate.total, "rate": rate.rate if rate.total else None, "low": low,
            "high": high}


def read_rating(value: object) -> Tuple[Optional[float], Optional[str]]:
    """A platform's rating as a number: ``(rating, None)``; ``(None, None)`` where none is given
    (null, an empty text); ``(None, what it is)`` where the value is no rating: true or false, a text
    that is not a number, an object or a list, infinity or NaN.

    >>> read_rating(2), read_rating(" 3 "), read_rating(None)
    ((2.0, None), (3.0, None), (None, None))
    >>> read_rating(True), read_rating("high"), read_rating(float("inf")), read_rating({"value": 3})
    ((None, 'true'), (None, "'high'"), (None, 'inf'), (None, "{'value': 3}"))
    """
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, "true" if value else "false"
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        if not value.strip():
            return None, None
        try:
            number = float(value)
        except ValueError:
            return None, _shown(value)
    elif isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an integer past every float
            return None, "a number too large to be a rating"
    else:
        return None, _shown(value)
    if not math.isfinite(number):
        return None, _shown(value) if isinstance(value, str) else str(number)
    return number, None


def _shown(value: object, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width] + "..."


def parse_against(text: str) -> Tuple[str, str]:
    """``(source, metric)`` of an ``--against`` value such as ``sap:Pointwise RAG Groundedness``.

    >>> parse_against("sap:Pointwise RAG Groundedness")
    ('sap-eval', 'Pointwise RAG Groundedness')
    """
    platform, sep, metric = text.partition(":")
    if not sep or platform.strip().lower() not in SOURCES or not metric.strip():
        raise GroundlabError(f"--against {text!r} must name a platform and a metric, as "
                             "sap:\"Pointwise RAG Groundedness\" (the metric's name as the evaluation stores it).")
    return SOURCES[platform.strip().lower()], metric.strip()


def metric_names(cases: "pd.DataFrame") -> List[str]:
    """The metrics whose ratings the case frame carries, in the order first met."""
    return [c[len(RATING_COLUMN):] for c in cases.columns if c.startswith(RATING_COLUMN)]


def groundedness_metrics(cases: "pd.DataFrame") -> List[str]:
    """The rated metrics that speak of groundedness (``Pointwise RAG Groundedness``, groundlab's own
    ``groundlab-groundedness-r1``): those the steering report sets beside people's labels."""
    return [m for m in metric_names(cases) if "ground" in m.lower()]


@dataclass(frozen=True)
class AnswerAgreement:
    """A rater's not-grounded flags against people's, one per answer.

    ``confusion[i][j]``: answers people found :data:`FLAGS` ``[i]`` and the rater ``[j]``.
    ``caught``: of the answers people found hallucinated, those the rater flagged;
    ``false_alarms``: of those people found grounded, those it flagged."""

    confusion: List[List[int]]
    agreement: Rate
    caught: Rate
    false_alarms: Rate

    @classmethod
    def of(cls, person: Sequence[bool], rater: Sequence[bool]) -> "AnswerAgreement":
        m = [[0, 0], [0, 0]]
        for p, r in zip(person, rater):
            m[int(bool(p))][int(bool(r))] += 1
        total = sum(map(sum, m))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedRateWarning)
            return cls(m, make_rate(m[0][0] + m[1][1], total, "agreement"),
                       make_rate(m[1][1], m[1][0] + m[1][1], "hallucinated answers caught"),
                       make_rate(m[0][1], m[0][0] + m[0][1], "false alarms"))


@dataclass(frozen=True)
class PlatformComparison:
    """The platform's rating beside groundlab's judge (and people's labels, where there are any).

    ``answers``: one row per answered case the platform rated and groundlab judged: ``case_id``,
    ``rating``, ``platform`` (not grounded by the platform), ``groundlab`` (by groundlab's judge),
    ``person`` (by people's labels; NA unlabeled), ``claim``, ``claim_text``, ``verdict`` and
    ``reason`` (the claim that decides groundlab's verdict: its first contradicted claim, else its
    first unsupported one; empty when every claim is supported) and ``explanation`` (the
    platform's). ``platform``, ``judge_answers`` and ``judge_claims`` are counted over the labeled
    ones; ``None`` (``judge_claims``: over nothing) without labels. What was left out is counted:
    ``unrated`` (no rating of this metric), ``platform_errors`` (the platform's judge failed:
    ``error`` holds why), ``judge_errors`` (groundlab's judge could not decide a claim),
    ``abstained`` (no claim to compare), ``unlabeled``."""

    metric: str
    source: str
    judge: str
    grounded_at: float
    scale: Optional[Tuple[float, float]]
    answers: "pd.DataFrame"
    platform: Optional[AnswerAgreement]
    judge_answers: Optional[AnswerAgreement]
    judge_claims: "Agreement"
    unrated: int
    platform_errors: List[Tuple[str, str]]
    judge_errors: int
    abstained: int
    unlabeled: int

    @property
    def labeled(self) -> int:
        return int(self.answers["person"].notna().sum())

    def disagreements(self) -> "pd.DataFrame":
        """The answers the platform and groundlab's judge rate differently, worst first: those the
        platform found grounded while groundlab found a claim contradicted, then unsupported, then
        those the platform flagged while groundlab supports every claim."""
        rows = self.answers[self.answers["platform"] != self.answers["groundlab"]].copy()
        order = {"contradicted": 0, "unsupported": 1}
        rows["_order"] = [order.get(v, 2) for v in rows["verdict"]]
        return rows.sort_values(["_order", "case_id"], kind="stable").drop(columns="_order").reset_index(drop=True)

    def to_dict(self) -> Dict[str, Any]:
        """Every figure, for JSON: rates as ``{count, total, rate, low, high}`` (``None`` over nothing)."""
        def answers_of(a: Optional[AnswerAgreement]) -> Optional[Dict[str, Any]]:
            if a is None:
                return None
            return {"order": list(FLAGS), "confusion": a.confusion, "agreement": _figures(a.agreement),
                    "caught": _figures(a.caught), "false_alarms": _figures(a.false_alarms)}

        c = self.judge_claims
        return {"metric": self.metric, "source": self.source, "judge": self.judge, "grounded_at": self.grounded_at,
                "scale": list(self.scale) if self.scale else None, "answers": int(len(self.answers)),
                "labeled": self.labeled, "platform": answers_of(self.platform),
                "judge_answers": answers_of(self.judge_answers),
                "judge_claims": {"order": c.order, "confusion": c.confusion, "agreement": _figures(c.agreement),
                                 "caught": _figures(c.caught), "false_alarms": _figures(c.false_alarms)},
                "left_out": {"unrated": self.unrated, "platform_errors": len(self.platform_errors),
                             "judge_errors": self.judge_errors, "abstained": self.abstained,
                             "unlabeled": self.unlabeled},
                "disagreements": [{k: (None if isinstance(v, float) and math.isnan(v) else v)
                                   for k, v in row.items()} for row in self.disagreements().astype(object)
                                  .where(lambda f: f.notna(), None).to_dict("records")]}

    def headline(self) -> str:
        """The comparison in one sentence: "the platform's metric caught 7 of 9 hallucinated
        answers, groundlab's 8 of 9, with 1 and 3 false alarms in 41"."""
        if self.platform is None:
            n = len(self.answers)
            differ = len(self.disagreements())
            return (f"without people's labels on these answers, {self.metric} and groundlab's {self.judge} judge "
                    f"can only be read against each other: they rate {differ} of {n} answer{'s' * (n != 1)} "
                    "differently")
        p, g = self.platform, self.judge_answers
        n, m = p.caught.total, p.false_alarms.total
        return (f"{self.metric} caught {p.caught.count} of {n} hallucinated answer{'s' * (n != 1)}, groundlab's "
                f"{self.judge} judge {g.caught.count} of {n}, with {p.false_alarms.count} and "
                f"{g.false_alarms.count} false alarms in {m} answer{'s' * (m != 1)} people found grounded")


def platform_ratings(cases: "pd.DataFrame", metric: str, source: Optional[str] = None) -> "pd.DataFrame":
    """``case_id``, ``rating``, ``explanation``, ``error`` and ``scale`` of ``metric`` for every
    case of the case frame that carries it; one sentence when none does (naming the metrics that
    are there)."""
    import pandas as pd

    column = RATING_COLUMN + metric
    if column not in cases.columns:
        names = metric_names(cases)
        there = (f"its answers carry {', '.join(repr(n) for n in names)}" if names else
                 "its answers carry no platform rating (import an evaluation's results.db with 'groundlab import "
                 "results.db --out cases.jsonl' first)")
        raise GroundlabError(f"the metric {metric!r} is not among the ratings of these cases; {there}.")
    rows = []
    sources = cases.get(f"meta.{PLATFORM}.source")
    shape = ("an object {\"rating\", \"explanation\", \"error\", \"scale\"} as 'groundlab import results.db' "
             "writes it")
    for k, (case_id, value) in enumerate(zip(cases["case_id"], cases[column])):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue  # the case carries no rating of this metric
        where = f"case {one_line(case_id)}: its {metric!r} rating"
        if not isinstance(value, dict):
            raise GroundlabError(f"{where} (meta.{PLATFORM}.{RATINGS}) is {_shown(value)}, not {shape}; import the "
                                 "evaluation's results again, or correct that case.")
        if source is not None and sources is not None and sources.iloc[k] not in (None, source):
            raise GroundlabError(f"case {case_id}: its ratings come from {sources.iloc[k]!r}, not {source!r}; "
                                 "name the platform that wrote them in --against.")
        rating, bad = read_rating(value.get("rating"))
        if bad is not None:
            raise GroundlabError(f"{where} is {bad}, not a number; a rating is a number on the metric's scale (or "
                                 "null, with the judge's error): import the evaluation's results again, or correct "
                                 "that case.")
        scale = _read_scale(value.get("scale"), where)
        rows.append({"case_id": case_id, "rating": rating, "explanation": value.get("explanation"),
                     "error": value.get("error"), "scale": scale})
    return pd.DataFrame(rows, columns=["case_id", "rating", "explanation", "error", "scale"])


def _read_scale(scale: object, where: str) -> Optional[Tuple[float, float]]:
    if scale is None:
        return None
    ends = [read_rating(v)[0] for v in scale] if isinstance(scale, (list, tuple)) and len(scale) == 2 else []
    if len(ends) != 2 or None in ends or ends[0] >= ends[1]:  # type: ignore[operator]
        raise GroundlabError(f"{where} has the scale {_shown(scale)}, not two numbers, lowest first, such as [1, 3]; "
                             "import the evaluation's results again, or correct that case.")
    return float(ends[0]), float(ends[1])  # type: ignore[arg-type]


def _scale_of(ratings: "pd.DataFrame", metric: str) -> Optional[Tuple[float, float]]:
    scales = {s for s in ratings["scale"] if s is not None}
    if len(scales) > 1:
        raise GroundlabError(f"the ratings of {metric!r} come on {len(scales)} different scales "
                             f"({', '.join(f'{a:g} to {b:g}' for a, b in sorted(scales))}); compare one run at a time.")
    if scales:
        return scales.pop()
    return KNOWN_SCALES.get(metric)


def _deciding(claims: "pd.DataFrame") -> Dict[str, Tuple[Any, str, str, str]]:
    """Each case's claim that decides groundlab's verdict: ``(number, text, verdict, reason)``."""
    out: Dict[str, Tuple[Any, str, str, str]] = {}
    for verdict in ("unsupported", "contradicted"):  # the later one wins: contradicted first
        rows = claims[claims["verdict"] == verdict].drop_duplicates("case_id")
        for r in rows.itertuples():
            out[r.case_id] = (int(r.claim), r.text, verdict, r.reason if isinstance(r.reason, str) else "")
    return out


def compare_platform(claims: "pd.DataFrame", cases: "pd.DataFrame", metric: str, *, source: Optional[str] = None,
                     grounded_at: Optional[float] = None, judge: str = "") -> PlatformComparison:
    """Set the platform's ``metric`` beside people's labels and groundlab's judge (the claim and
    case frames of :func:`groundlab.evaluate`) on the same answers (see the module docstring).

    ``grounded_at``: the lowest rating that counts as grounded (default: the top of the metric's
    scale, so anything below it is a flag, as the method reads a 3/2/1 rating)."""
    import pandas as pd

    from .metrics import agreement

    ratings = platform_ratings(cases, metric, source)
    if source is None:
        given = cases.get(f"meta.{PLATFORM}.source")
        source = next((v for v in given if isinstance(v, str)), None) if given is not None else None
    scale = _scale_of(ratings, metric)
    if grounded_at is None:
        if scale is None:
            raise GroundlabError(f"the scale of {metric!r} is not known (the results file does not say it); give "
                                 "--grounded-at R, the lowest rating that counts as grounded.")
        grounded_at = scale[1]
    elif scale is not None and not scale[0] <= grounded_at <= scale[1]:
        raise GroundlabError(f"--grounded-at {grounded_at:g} is outside the scale of {metric!r}, "
                             f"{scale[0]:g} to {scale[1]:g}; give a rating within it.")
    if scale is not None:
        outside = next((r for r in ratings.itertuples() if r.rating is not None and not math.isnan(r.rating)
                        and not scale[0] <= r.rating <= scale[1]), None)
        if outside is not None:
            raise GroundlabError(f"case {one_line(outside.case_id)}: its {metric!r} rating {outside.rating:g} is "
                                 f"outside the metric's scale, {scale[0]:g} to {scale[1]:g}, so it is not a rating "
                                 "that metric gives; import the evaluation's results again, or correct that case.")
    errors = [(str(r.case_id), "no rating recorded" if r.error is None or r.error != r.error else str(r.error))
              for r in ratings.itertuples()
              if r.rating is None or (isinstance(r.rating, float) and math.isnan(r.rating))]
    rated = ratings[[not (r is None or (isinstance(r, float) and math.isnan(r))) for r in ratings["rating"]]]
    frame = cases.set_index("case_id")
    deciding = _deciding(claims)
    rows = []
    abstained = judge_errors = 0
    for r in rated.itertuples():
        case = frame.loc[r.case_id]
        if int(case["claims"]) == 0:
            abstained += 1
            continue
        if pd.isna(case["hallucinated"]):
            judge_errors += 1
            continue
        person = case["hallucinated_by_person"]
        claim = deciding.get(r.case_id, (None, "", "", ""))
        rows.append({"case_id": r.case_id, "rating": float(r.rating), "platform": bool(float(r.rating) < grounded_at),
                     "groundlab": bool(case["hallucinated"]), "person": None if pd.isna(person) else bool(person),
                     "claim": claim[0], "claim_text": claim[1], "verdict": claim[2], "reason": claim[3],
                     "explanation": r.explanation if isinstance(r.explanation, str) else ""})
    answers = pd.DataFrame(rows, columns=["case_id", "rating", "platform", "groundlab", "person", "claim",
                                          "claim_text", "verdict", "reason", "explanation"])
    answers["person"] = pd.array(answers["person"].tolist(), dtype="boolean")
    labeled = answers[answers["person"].notna()]
    platform = judge_answers = None
    if len(labeled):
        person = labeled["person"].astype(bool).tolist()
        platform = AnswerAgreement.of(person, labeled["platform"].tolist())
        judge_answers = AnswerAgreement.of(person, labeled["groundlab"].tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedRateWarning)
        judge_claims = agreement(claims[claims["case_id"].isin(set(labeled["case_id"]))])
    unrated = int(len(cases) - len(ratings))
    return PlatformComparison(metric, source or "", judge, float(grounded_at), scale, answers, platform,
                              judge_answers, judge_claims, unrated, errors, judge_errors, abstained,
                              int(len(answers) - len(labeled)))


__all__ = ["FLAGS", "KNOWN_SCALES", "PLATFORM", "RATINGS", "RATING_COLUMN", "SOURCES", "AnswerAgreement",
           "PlatformComparison", "compare_platform", "groundedness_metrics", "metric_names", "parse_against",
           "platform_ratings", "read_rating"]
