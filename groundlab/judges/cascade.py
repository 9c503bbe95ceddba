"""The cascade judge: a cheap judge on every claim, a costly one only where it pays.

``get_judge("cascade", first="rules", then="llm", audit=0.1, seed=0)``, or on the command line
``--judge cascade --first rules --then llm --audit 0.1 --seed 0``:

1. **First judge on every claim.** Its verdicts on each answer's claims decide the answer's
   route. An answer is *flagged* when the first judge finds one of its claims not supported (or
   cannot decide one); else it is *passed*.
2. **Second judge on the flagged answers and an audit of the passed ones.** Every flagged answer,
   and a random share ``audit`` of the passed ones (each drawn with that chance, from a generator
   seeded with ``seed``: the same run draws the same answers), goes to the second judge with all
   its claims. The unit is the answer, not the claim: the hallucination rate counts answers, and
   the llm judge asks about all claims of an answer in one request, so sending the whole answer
   costs no further request and lets the second judge's verdict stand for the whole answer.
3. **Final verdicts.** A claim the second judge judged keeps the second's verdict (an error stays
   an error: it is left out of the rates and counted, not quietly replaced by the first's
   verdict); every other claim keeps the first's. Each reason starts with the judge that gave it
   and why that judge was asked (``llm (flagged by rules): ...``, ``llm (audit): ...``,
   ``rules: ...``).

The audit makes the rate honest. The final verdicts count the passed answers that were not
audited as the first judge saw them, which is what the first judge misses. :meth:`CascadeJudge.report`
therefore also estimates the hallucination rate from the two strata as drawn: all flagged
answers, each standing for itself, and the audited passed answers, each standing for
``passed / audited`` of them (about ``1 / audit``), with the second judge's verdict on each
(:func:`groundlab.sampling.weighted_rate`, the stratified estimate and its Wilson 95% range that the
labeling sample uses). When the audit finds no miss the two agree; when it finds some, the
estimate adds what the first judge let through.

The cost: the report counts the requests the second judge sent (and took from its cache) and, from
the second judge's own :meth:`estimate` where it has one (the llm judge), the requests judging
every claim with it would have taken.

Citation checks (a claim against its cited passages alone) go to the first judge
(:attr:`CascadeJudge.citation_judge`): a claim the llm judge decided has its citations checked
from the passages it named, with no further request; any other claim's, by the first judge.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from ..core.records import GroundlabError, Verdict
from . import Judge, Pair, get_judge

if TYPE_CHECKING:
    from ..measure.evaluate import Evaluation
    from ..core.weighted import WeightedRate
    from ..core.stats import Rate

#: How an answer was judged: by the second judge because the first flagged it, by the second
#: judge because the audit drew it, or by the first judge alone.
ROUTES = ("flagged", "audited", "first")

_NOT_SUPPORTED = ("contradicted", "unsupported")


def _same(a, b) -> bool:
    return a is b or a == b


@dataclass(frozen=True)
class CascadeReport:
    """What a cascade run found and cost (see :meth:`CascadeJudge.report`).

    ``answers``: answered cases; ``flagged``, ``passed``: by the first judge; ``audited``: passed
    answers the audit sent to the second judge; ``misses``: audited answers the second judge found
    hallucinated; ``overturned``: flagged answers the second judge found supported throughout.
    ``first_rate``: the hallucination rate by the first judge alone; ``final_rate``: by the final
    verdicts (unaudited passed answers as the first judged them); ``corrected``: the stratified
    estimate, or ``None`` with ``corrected_note`` saying why it cannot be made.
    ``requests``/``cached``: what the second judge sent and took from its cache (``None`` for a
    judge that does not count requests); ``requests_for_all``/``uncached_for_all``/``tokens_for_all``:
    what judging every claim with it would have taken, by its estimate (``None`` without one).
    """

    first: str
    then: str
    audit: float
    seed: int
    answers: int
    flagged: int
    passed: int
    audited: int
    misses: int
    overturned: int
    claims: int
    claims_second: int
    first_rate: "Rate"
    final_rate: "Rate"
    corrected: Optional["WeightedRate"]
    corrected_note: str
    requests: Optional[int]
    cached: Optional[int]
    requests_for_all: Optional[int]
    uncached_for_all: Optional[int]
    tokens_for_all: Optional[int]

    def as_dict(self) -> Dict[str, Any]:
        """The report as plain JSON values (what ``score --json`` prints under ``cascade``)."""
        from ..core.stats import wilson_interval

        def rate(r: "Rate") -> Dict[str, Any]:
            low, high = wilson_interval(r.count, r.total) if r.total else (None, None)
            return {"hallucinated": r.count, "answered": r.total, "rate": r.rate if r.total else None,
                    "low": low, "high": high}

        c = self.corrected
        return {
            "first": self.first, "then": self.then, "audit": self.audit, "seed": self.seed,
            "answers": self.answers, "flagged": self.flagged, "passed": self.passed, "audited": self.audited,
            "misses": self.misses, "overturned": self.overturned,
            "claims": self.claims, "claims_judged_by_then": self.claims_second,
            "first_rate": rate(self.first_rate), "final_rate": rate(self.final_rate),
            "corrected_rate": None if c is None else {
                "rate": c.rate, "low": c.low, "high": c.high, "answers_judged": c.labeled,
                "standing_for": c.population, "effective_n": c.effective_n},
            "corrected_note": self.corrected_note or None,
            "requests": {"sent": self.requests, "cached": self.cached, "for_all": self.requests_for_all,
                         "for_all_uncached": self.uncached_for_all, "for_all_input_tokens": self.tokens_for_all},
        }

    def lines(self) -> List[str]:
        """The report as lines of text for the terminal."""
        from ..core.stats import percent

        out = [f"cascade: {self.first} on every claim; {self.then} on the answers {self.first} flagged and on "
               f"an audit of {percent(self.audit)} of the others (seed {self.seed})",
               f"  answers: {self.answers} answered; {self.flagged} flagged by {self.first}, {self.audited} of the "
               f"{self.passed} it passed audited; {self.then} judged {self.claims_second} of {self.claims} claims",
               f"  {self.then} overturned {self.overturned} of the {self.flagged} flagged answers and found "
               f"{self.misses} of the {self.audited} audited answers hallucinated"]
        out.append(f"  flagged by {self.first} alone: {self.first_rate.with_range()}")
        out.append(f"  flagged by the final verdicts: {self.final_rate.with_range()} (the passed "
                   "answers nobody audited count as passed)")
        c = self.corrected
        if c is None:
            out.append(f"  flagged by the judges, corrected by the audit: n/a ({self.corrected_note})")
        else:
            out.append(f"  flagged by the judges, corrected by the audit: {percent(c.rate)} (95% range "
                       f"{percent(c.low)}\u2013{percent(c.high)}; {c.labeled} answers judged by {self.then} "
                       f"standing for {c.population}, as precise as {c.effective_n:.0f} drawn at random; the "
                       f"judges' rate, not people's, which their labels give)")
        out.append("  " + self.cost())
        return out

    def cost(self) -> str:
        """One line: what the second judge cost against judging every claim with it."""
        asked = self.flagged + self.audited
        if self.requests is None:
            return (f"cost: {self.then} judged {self.claims_second} of {self.claims} claims "
                    f"({asked} of {self.answers} answers)")
        line = (f"cost: {self.requests} request{'s' * (self.requests != 1)} sent to {self.then}, {self.cached} "
                f"answered from its cache ({asked} of {self.answers} answers)")
        if self.requests_for_all is not None:
            share = (self.requests + (self.cached or 0)) / self.requests_for_all if self.requests_for_all else 0
            line += (f"; judging every claim with {self.then} would have taken {self.requests_for_all} "
                     f"request{'s' * (self.requests_for_all != 1)} ({self.uncached_for_all} not in the cache, "
                     f"about {self.tokens_for_all:,} input tokens): the cascade asked for {share:.0%} of them")
        return line


class CascadeJudge:
    """The first judge on every claim; the second on every answer the first flags and on a random
    ``audit`` share of the others (see the module docstring).

    ``first_options`` and ``then_options`` are passed to :func:`get_judge` for each (the llm
    judge's ``model``, ``cache``, ``concurrency``...). ``track=False`` keeps no record of the claims
    judged and asks the second judge for no estimate of judging everything: for a long-running
    process that judges answer after answer (a guard on live answers), where :meth:`report` is not
    needed and the record would only grow.
    """

    name = "cascade"
    cpu_bound = False  # the second judge is usually a remote model: no forked workers

    def __init__(self, first: str = "rules", then: str = "llm", *, audit: float = 0.1, seed: int = 0,
                 first_options: Optional[Dict[str, Any]] = None,
                 then_options: Optional[Dict[str, Any]] = None, track: bool = True) -> None:
        if isinstance(audit, bool) or not isinstance(audit, (int, float)) or not 0 <= audit <= 1:
            raise GroundlabError(f"--audit must be a share between 0 and 1 (0.1 sends one in ten of the answers "
                                 f"the first judge passes to the second), not {audit!r}.")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise GroundlabError(f"--seed must be a whole number, not {seed!r}.")
        for role, judge_name in (("--first", first), ("--then", then)):
            if judge_name == self.name:
                raise GroundlabError(f"{role} cannot be the cascade itself; name a judge such as rules or llm.")
        if first == then:
            raise GroundlabError(f"--first and --then both name the {first} judge; the second judge should be "
                                 "the one worth its cost, e.g. --first rules --then llm.")
        self.first: Judge = get_judge(first, **(first_options or {}))
        self.then: Judge = get_judge(then, **(then_options or {}))
        self.audit = float(audit)
        self.seed = seed
        self.track = track
        self.version = (f"1 ({self.first.name} {self.first.version} then {self.then.name} {self.then.version}, "
                        f"audit {self.audit:g}, seed {seed})")
        self._rng = random.Random(seed)
        self.reset()

    @property
    def citation_judge(self) -> Judge:
        """The judge :func:`groundlab.evaluate` asks for citation checks: the first."""
        return self.first

    def reset(self) -> None:
        """Forget the claims judged so far (a new run: :meth:`report` covers what follows), and
        start the audit draws again from the seed."""
        self._rng = random.Random(self.seed)
        self._texts: List[str] = []
        self._routes: List[str] = []
        self._first_labels: List[Optional[str]] = []
        self._counts = {route: 0 for route in ROUTES}  # claims per route, kept even without track
        self._requests_for_all: Optional[int] = 0 if hasattr(self.then, "estimate") else None
        self._uncached_for_all = 0
        self._tokens_for_all = 0
        usage = getattr(self.then, "usage", None)
        self._usage_start = (usage.requests, usage.cached) if usage is not None else None

    @staticmethod
    def answers(pairs: Sequence[Pair]) -> List[Tuple[int, int]]:
        """``(start, end)`` of each run of consecutive pairs with equal evidence: the claims of one
        answer, as :func:`groundlab.evaluate` passes them (and the llm judge asks about them)."""
        spans: List[Tuple[int, int]] = []
        start = 0
        for i in range(1, len(pairs) + 1):
            if i == len(pairs) or not _same(pairs[i][1], pairs[start][1]):
                spans.append((start, i))
                start = i
        return spans if pairs else []

    def judge_batch(self, pairs: Sequence[Pair]) -> List[Verdict]:
        if not pairs:
            return []
        first = self.first.judge_batch(pairs)
        if len(first) != len(pairs):
            raise RuntimeError(f"judge {self.first.name!r} returned {len(first)} verdicts for {len(pairs)} claims")
        routes: List[str] = []
        escalate: List[int] = []
        for start, end in self.answers(pairs):
            draw = self._rng.random()  # one draw per answer, flagged or not: the audit of an answer
            flagged = any(v.label is None or v.label in _NOT_SUPPORTED for v in first[start:end])
            route = "flagged" if flagged else ("audited" if draw < self.audit else "first")
            routes.extend([route] * (end - start))
            if route != "first":
                escalate.extend(range(start, end))
        if self.track and self._requests_for_all is not None:
            estimate = self.then.estimate(pairs)  # before sending: what the cache holds now
            self._requests_for_all += estimate.requests + estimate.cached
            self._uncached_for_all += estimate.requests
            self._tokens_for_all += estimate.input_tokens
        second = self.then.judge_batch([pairs[k] for k in escalate]) if escalate else []
        if len(second) != len(escalate):
            raise RuntimeError(f"judge {self.then.name!r} returned {len(second)} verdicts for {len(escalate)} claims")
        out = [replace(v, reason=f"{self.first.name}: {v.reason}") for v in first]
        for k, verdict in zip(escalate, second):
            why = f"flagged by {self.first.name}" if routes[k] == "flagged" else "audit"
            out[k] = replace(verdict, reason=f"{self.then.name} ({why}): {verdict.reason}")
        for route in routes:
            self._counts[route] += 1
        if self.track:
            self._texts.extend(text for text, _ in pairs)
            self._routes.extend(routes)
            self._first_labels.extend(v.label for v in first)
        return out

    def summary(self) -> str:
        """One line: answers routed and what the second judge spent so far."""
        counts = self._counts
        line = (f"cascade: {self.first.name} judged {sum(counts.values())} claims, {self.then.name} "
                f"{counts['flagged'] + counts['audited']} of them ({counts['flagged']} in flagged answers, "
                f"{counts['audited']} audited)")
        if hasattr(self.then, "summary"):
            line += f"; {self.then.summary()}"
        if self.track and self._requests_for_all is not None:
            line += f"; judging every claim with {self.then.name} would have taken {self._requests_for_all} requests"
        return line

    def routes(self, claims: pd.DataFrame) -> pd.Series:
        """The route of each claim of an evaluation this judge made (aligned with ``claims``); an
        error when the claims are not the ones it judged since :meth:`reset`."""
        if not self.track:
            raise GroundlabError("this cascade judge was built with track=False and kept no record of its routes; "
                                 "build it with track=True to report on a run.")
        if list(claims["text"]) != self._texts:
            raise GroundlabError(f"this cascade judged {len(self._texts)} claims since it was built or reset, not "
                                 f"the {len(claims)} of this evaluation; build a new cascade judge (or call reset()) "
                                 "for each run.")
        return pd.Series(self._routes, index=claims.index, name="route", dtype=object)

    def report(self, evaluation: "Evaluation") -> CascadeReport:
        """What the run that made ``evaluation`` found and cost (see :class:`CascadeReport`)."""
        from ..core.weighted import weighted_rate
        from ..core.stats import Rate

        claims, cases = evaluation.claims, evaluation.cases
        route = self.routes(claims)
        first_flag = pd.Series([label is None or label in _NOT_SUPPORTED for label in self._first_labels],
                               index=claims.index)
        per_case = pd.DataFrame({"route": route, "first_flag": first_flag}).groupby(claims["case_id"]).agg(
            route=("route", "first"), first_flag=("first_flag", "any"))
        answered = cases[cases["claims"] > 0].set_index("case_id")
        answered = answered.join(per_case, how="left")
        routes = answered["route"]
        final = answered["hallucinated"]
        flagged = routes == "flagged"
        audited = routes == "audited"
        first_rate = Rate(int(answered["first_flag"].sum()), len(answered))
        decided = final.dropna()
        final_rate = Rate(int(decided.sum()), len(decided))
        misses = int(final[audited].fillna(False).astype(bool).sum())
        overturned = int((final[flagged] == False).sum())  # noqa: E712 (NA-aware)

        stratum = flagged.map({True: "flagged", False: "passed"})
        sizes = {h: int(n) for h, n in stratum.value_counts().items()}
        passed = sizes.get("passed", 0)
        corrected, note = None, ""
        if not len(answered):
            note = "no answered case"
        elif passed and not final[audited].notna().any():
            note = (f"the audit drew none of the {passed} answers {self.first.name} passed" if not audited.any() else
                    f"{self.then.name} could not judge any of the {int(audited.sum())} audited answers")
            note += f"; the corrected rate needs at least one (raise --audit, now {self.audit:g})"
        elif flagged.any() and not final[flagged].notna().any():
            note = f"{self.then.name} could not judge any of the {int(flagged.sum())} flagged answers"
        else:
            # The second judge's verdict on every answer it judged; the others are not in the sample.
            values = final.astype("boolean").where(routes.to_numpy() != "first")
            corrected = weighted_rate(values, stratum, sizes)

        usage = getattr(self.then, "usage", None)
        requests = cached = None
        if usage is not None and self._usage_start is not None:
            requests = usage.requests - self._usage_start[0]
            cached = usage.cached - self._usage_start[1]
        return CascadeReport(
            first=self.first.name, then=self.then.name, audit=self.audit, seed=self.seed,
            answers=len(answered), flagged=int(flagged.sum()), passed=passed, audited=int(audited.sum()),
            misses=misses, overturned=overturned, claims=len(claims), claims_second=int((route != "first").sum()),
            first_rate=first_rate, final_rate=final_rate, corrected=corrected, corrected_note=note,
            requests=requests, cached=cached, requests_for_all=self._requests_for_all,
            uncached_for_all=self._uncached_for_all if self._requests_for_all is not None else None,
            tokens_for_all=self._tokens_for_all if self._requests_for_all is not None else None)


__all__ = ["CascadeJudge", "CascadeReport", "ROUTES"]
