"""A data policy: which judges, models and endpoints each classification of case may go to, and
the masking of personal data before anything leaves.

A case may carry a ``classification`` (``"confidential"``, ``"internal"``...). A policy file
(TOML) names, for each classification, the judges its cases may go to and, for the llm judge,
the models and endpoints::

    default = "internal"          # the classification of a case that names none (else such a case is refused)

    [masking]                      # optional: mask personal data before it goes to a model
    mask = true                    # for every classification (or per classification, below)
    names = ["Anna Weber"]         # names to mask besides e-mail addresses, phones, IBANs and cards
    phone_regions = ["DE", "US"]   # whose national phone numbers are found (default US, GB, DE, FR)

    [classes.confidential]
    judges = ["offline"]           # signals, rules, lexical, entail, combined and nli: nothing leaves the machine
    instead = "rules"              # the judge for its cases when another was asked for ("none": unjudged)

    [classes.internal]
    judges = ["offline", "llm"]
    models = ["claude-sonnet-*"]   # shell-style patterns
    endpoints = ["https://llm-gateway.example.internal"]
    mask = true

    [classes.business]
    judges = ["offline", "llm"]
    providers = ["sap-ai-core"]    # the llm judge through SAP AI Core's orchestration only
    models = ["anthropic--claude-4-sonnet", "gpt-4.1"]

Every judge groundlab runs, for a command, a notebook or a library call, is made in one place,
:func:`make_judge`: from its name through the registry, behind the policy and the masking asked
for (``tests/test_policy.py`` fails on any other module that builds a judge).

The policy is enforced where requests leave: :func:`apply_policy` puts a :class:`PolicyGate`
in front of the judge (in front of each of a cascade's two), and every claim passes through it
before the judge sees it, whichever way it comes (a cascade's escalation, a batch, the guard, a
cache lookup). A claim the policy keeps from the judge is never handed to it: it is judged by
the offline judge the policy allows (``instead``, else the first offline judge its
classification lists), or left unjudged, and its verdict says so (``Verdict.held_back``); the
case frame's ``held_back`` column and the report count such cases.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ..core.io import PathLike, read_text, sha256_text
from ..core.masking import DEFAULT_REGIONS, Masker, Table
from ..core.redact import without_userinfo
from ..core.records import Evidence, GroundlabError, InputError, Verdict

#: The judges that run on this machine: nothing they judge leaves it.
OFFLINE = ("signals", "rules", "lexical", "entail", "combined", "nli")

#: The classification of a case without one, when the policy names no ``default``.
UNCLASSIFIED = None


@dataclass(frozen=True)
class Allowance:
    """What one classification's cases may go to."""

    judges: Tuple[str, ...]
    models: Optional[Tuple[str, ...]] = None  # patterns; None: any
    providers: Optional[Tuple[str, ...]] = None  # the llm judge's providers (anthropic, sap-ai-core); None: any
    endpoints: Optional[Tuple[str, ...]] = None  # None: any
    instead: Optional[str] = None  # an offline judge, "none", or None for the first offline judge listed
    mask: bool = False

    def refusal(self, name: str, model: Optional[str], endpoint: Optional[str],
                provider: Optional[str] = None) -> Optional[str]:
        """Why a case of this classification may not go to judge ``name`` (with ``model`` at
        ``endpoint``, through ``provider``), or ``None`` when it may."""
        if "any" not in self.judges and name not in self.judges:
            return f"it may go to {', '.join(self.judges) or 'no judge'} only"
        if name in OFFLINE:
            return None
        if self.providers is not None and (provider or "anthropic") not in self.providers:
            return f"provider {provider or 'anthropic'} is not among its providers ({', '.join(self.providers)})"
        if self.models is not None and not any(fnmatch.fnmatchcase(model or "", p) for p in self.models):
            return f"model {model} is not among its models ({', '.join(self.models)})"
        if self.endpoints is not None and _url(endpoint) not in {_url(e) for e in self.endpoints}:
            return (f"endpoint {without_userinfo(endpoint or '')} is not among its endpoints "
                    f"({', '.join(map(without_userinfo, self.endpoints))})")
        return None

    def fallback(self) -> Optional[str]:
        """The offline judge that judges a case kept from another judge; ``None``: left unjudged."""
        if self.instead == "none":
            return None
        if self.instead:
            return self.instead
        allowed = OFFLINE if "any" in self.judges else self.judges
        return next((j for j in allowed if j in OFFLINE and j != "nli"), None)


def _url(value: Optional[str]) -> str:
    return without_userinfo((value or "").strip()).rstrip("/").lower()  # a user and password name no other host


@dataclass(frozen=True)
class DataPolicy:
    """A policy file read (see the module docstring)."""

    source: str
    classes: Dict[str, Allowance]
    default: Optional[str] = None
    mask: bool = False
    names: Tuple[str, ...] = ()
    phone_regions: Tuple[str, ...] = DEFAULT_REGIONS
    digest: str = ""

    def classification(self, value: Optional[str]) -> str:
        """The classification a case counts as: its own, else the policy's default."""
        if value is None:
            if self.default is None:
                raise InputError(f"a case carries no classification and the data policy {self.source} names no "
                                 "default; give every case a \"classification\" or add default = \"...\" to the "
                                 "policy.")
            return self.default
        if value not in self.classes:
            raise InputError(f"a case is classified {value!r}, which the data policy {self.source} does not name "
                             f"(it names {', '.join(sorted(self.classes))}); add [classes.{value}] to the policy or "
                             "correct the case.")
        return value

    def check_cases(self, cases: Sequence[Any]) -> None:
        """Refuse, before anything is judged, a case whose classification the policy cannot place."""
        for case in cases:
            try:
                self.classification(getattr(case, "classification", None))
            except InputError as error:
                where = getattr(case, "where", "a case")
                raise InputError(f"{where}: {str(error)[0].lower()}{str(error)[1:]}") from None

    def masker(self) -> Masker:
        return Masker(self.names, self.phone_regions)

    def masks(self, classification: str) -> bool:
        return self.mask or self.classes[classification].mask

    def identity(self) -> Dict[str, Any]:
        return {"file": self.source, "sha256": self.digest, "classes": sorted(self.classes), "default": self.default}


def load_policy(path: Union[PathLike, DataPolicy]) -> DataPolicy:
    """Read a policy file; a mistake in it is one sentence naming the file and the fix."""
    if isinstance(path, DataPolicy):
        return path
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    name = str(path)
    if Path(path).is_dir():
        raise InputError(f"policy file {name} is a folder; pass the path of a .toml file.")
    text = read_text(path, "policy")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"policy file {name} is not valid TOML ({exc}); fix it and run again.") from None
    unknown = sorted(set(data) - {"default", "masking", "classes"})
    if unknown:
        raise InputError(f"policy file {name} has {unknown[0]!r}, which a policy does not take; use default, "
                         "[masking] and [classes.NAME].")
    classes_table = data.get("classes")
    if not isinstance(classes_table, dict) or not classes_table:
        raise InputError(f"policy file {name} names no classification; add a [classes.NAME] table with "
                         "judges = [...] for each (see docs/sensitive-logs.md).")
    from ..judges import judge_names

    known = set(judge_names()) - {"cascade"}
    classes: Dict[str, Allowance] = {}
    for cls, entry in classes_table.items():
        where = f"policy file {name} [classes.{cls}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where} must be a table with judges = [...].")
        extra = sorted(set(entry) - {"judges", "models", "providers", "endpoints", "instead", "mask"})
        if extra:
            raise InputError(f"{where} has {extra[0]!r}; a classification takes judges, models, providers, endpoints, "
                             "instead and mask.")
        judges = _strings(entry.get("judges"), f"{where} judges")
        if judges is None:
            raise InputError(f"{where} needs judges = [...], the judges its cases may go to (\"offline\" for "
                             "signals, rules, lexical and nli; [] for none).")
        expanded: List[str] = []
        for judge in judges:
            if judge == "offline":
                expanded.extend(OFFLINE)
            elif judge == "any" or judge in known:
                expanded.append(judge)
            else:
                raise InputError(f"{where} names the judge {judge!r}; use offline, any or one of "
                                 f"{', '.join(sorted(known))}.")
        instead = entry.get("instead")
        if instead is not None and (not isinstance(instead, str) or (instead != "none" and instead not in OFFLINE)):
            raise InputError(f"{where} instead = {instead!r}: name an offline judge ({', '.join(OFFLINE)}) or \"none\".")
        if instead not in (None, "none") and "any" not in expanded and instead not in expanded:
            raise InputError(f"{where} instead = {instead!r}, a judge its judges do not allow; add it to judges.")
        mask = entry.get("mask", False)
        if not isinstance(mask, bool):
            raise InputError(f"{where} mask must be true or false.")
        providers = _strings(entry.get("providers"), f"{where} providers")
        if providers is not None:
            from ..judges.llm import PROVIDERS

            odd = [p for p in providers if p not in PROVIDERS]
            if odd:
                raise InputError(f"{where} providers names {odd[0]!r}; the llm judge's providers are "
                                 f"{', '.join(PROVIDERS)}.")
        classes[str(cls)] = Allowance(tuple(dict.fromkeys(expanded)), _strings(entry.get("models"), f"{where} models"),
                                      providers, _strings(entry.get("endpoints"), f"{where} endpoints"), instead, mask)
    default = data.get("default")
    if default is not None and default not in classes:
        raise InputError(f"policy file {name} default = {default!r}, which it does not name; add [classes.{default}] "
                         "or name one of its classifications.")
    masking = data.get("masking", {})
    if not isinstance(masking, dict):
        raise InputError(f"policy file {name} [masking] must be a table.")
    extra = sorted(set(masking) - {"mask", "names", "phone_regions"})
    if extra:
        raise InputError(f"policy file {name} [masking] has {extra[0]!r}; it takes mask, names and phone_regions.")
    mask = masking.get("mask", False)
    if not isinstance(mask, bool):
        raise InputError(f"policy file {name} [masking] mask must be true or false.")
    names = _strings(masking.get("names"), f"policy file {name} [masking] names") or ()
    regions = _strings(masking.get("phone_regions"), f"policy file {name} [masking] phone_regions")
    return DataPolicy(name, classes, default, mask, tuple(names), DEFAULT_REGIONS if regions is None else regions,
                      sha256_text(text))


def _strings(value: object, where: str) -> Optional[Tuple[str, ...]]:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{where} must be a list of names, like [\"a\", \"b\"].")
    return tuple(v.strip() for v in value)


# ---------------------------------------------------------------- the gate


class PolicyGate:
    """A judge behind the data policy (see the module docstring): the claims its policy allows go
    to ``judge`` (masked when the policy or ``mask`` says so and the judge is not offline); the
    others to the offline judge the policy names, or back unjudged. Everything else is the judge's."""

    def __init__(self, judge: Any, policy: Optional[DataPolicy], *, mask: bool = False,
                 masker: Optional[Masker] = None) -> None:
        self.inner = judge
        self.policy = policy
        self.mask_all = mask
        self.masker = masker or (policy.masker() if policy is not None else Masker())
        self.name = judge.name
        self.version = getattr(judge, "version", "")
        self._instead: Dict[str, Any] = {}
        self.held_cases = 0
        self.held_claims = 0
        self.judged_instead: Dict[str, int] = {}
        self.unjudged_cases = 0
        self.masked_cases = 0
        self._seen: set = set()
        # Forked workers would keep the counts of what was held back to themselves: one process.
        self.cpu_bound = False
        self.explains_on_request = False  # its judge_batch gives every verdict its reason
        if hasattr(judge, "estimate"):  # only a judge that estimates its cost gets an estimate
            self.estimate = self._estimate

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    @property
    def offline(self) -> bool:
        return self.name in OFFLINE

    def _endpoint(self) -> Optional[str]:
        endpoint = getattr(self.inner, "endpoint", None)
        return getattr(endpoint, "display", None)  # scheme, host, port and path: never a password

    def route(self, evidence: Evidence) -> Tuple[Optional[str], str]:
        """``(why it is held back or None, its classification)`` for a claim with ``evidence``."""
        if self.policy is None:
            return None, ""
        cls = self.policy.classification(evidence.classification)
        why = self.policy.classes[cls].refusal(self.name, getattr(self.inner, "model", None), self._endpoint(),
                                               getattr(self.inner, "provider", None))
        return why, cls

    def _masks(self, cls: str) -> bool:
        return not self.offline and (self.mask_all or (self.policy is not None and self.policy.masks(cls)))

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        out: List[Optional[Verdict]] = [None] * len(pairs)
        allowed: List[int] = []
        held: Dict[Optional[str], List[int]] = {}
        reasons: Dict[int, str] = {}
        masked: Dict[int, MaskedCase] = {}  # by the evidence: each case's texts are masked once
        masked_pairs: Dict[int, Tuple[str, Evidence]] = {}
        claims_of: Optional[Dict[int, List[str]]] = None
        for k, (text, evidence) in enumerate(pairs):
            why, cls = self.route(evidence)
            first = evidence.answer is not None and id(evidence) not in self._seen
            if first:
                self._seen.add(id(evidence))
            if why is None:
                allowed.append(k)
                if self._masks(cls):
                    key = id(evidence)
                    case = masked.get(key)
                    if case is None:
                        if claims_of is None:
                            claims_of = {}
                            for t, e in pairs:
                                claims_of.setdefault(id(e), []).append(t)
                        case = masked[key] = MaskedCase.of(self.masker, evidence, claims_of[key])
                        if first and case.table:
                            self.masked_cases += 1
                    masked_pairs[k] = case.pair(self.masker, text)
                continue
            instead = self.policy.classes[cls].fallback() if self.policy is not None else None
            if instead == self.name:
                instead = None
            held.setdefault(instead, []).append(k)
            reasons[k] = f"held back from {self.name} by the data policy ({cls}: {why})"
            self.held_claims += 1
            if first:
                self.held_cases += 1
                if instead is None:
                    self.unjudged_cases += 1
                else:
                    self.judged_instead[instead] = self.judged_instead.get(instead, 0) + 1
        if allowed:
            sent = [masked_pairs.get(k, pairs[k]) for k in allowed]
            verdicts = self.inner.judge_batch(sent)
            if len(verdicts) != len(sent):
                raise RuntimeError(f"judge {self.name!r} returned {len(verdicts)} verdicts for {len(sent)} claims")
            for k, verdict in zip(allowed, verdicts):
                case = masked.get(id(pairs[k][1]))
                out[k] = case.unmasked(verdict) if case is not None and case.table else verdict
        for instead, idx in held.items():
            if instead is None:
                for k in idx:
                    out[k] = Verdict(None, reasons[k], error=f"{reasons[k]}; no offline judge is allowed for it",
                                     held_back=self.name)
                continue
            judge = self._instead.get(instead)
            if judge is None:
                judge = self._instead[instead] = _registered(instead)
            verdicts = judge.judge_batch([pairs[k] for k in idx])
            for k, verdict in zip(idx, verdicts):
                out[k] = replace(verdict, reason=f"{instead} ({reasons[k]}): {verdict.reason}", held_back=self.name)
        return out  # type: ignore[return-value]

    def _estimate(self, pairs: Sequence[Tuple[str, Evidence]], runs: int = 1):
        """What judging ``pairs`` would cost: the inner judge's estimate of the claims the policy lets
        through, and how many cases it holds back."""
        allowed = []
        held: set = set()
        for text, evidence in pairs:
            why, _ = self.route(evidence)
            if why is None:
                allowed.append((text, evidence))
            elif evidence.answer is not None:
                held.add(id(evidence))
        return HeldEstimate(self.inner.estimate(allowed, runs=runs), len(held))

    def held_text(self) -> str:
        """What the policy held back so far, in words ("" when nothing)."""
        if not self.held_cases:
            return ""
        how = [f"{n} judged by {name} instead" for name, n in self.judged_instead.items()]
        if self.unjudged_cases:
            how.append(f"{self.unjudged_cases} left unjudged")
        return (f"the data policy ({self.policy.source if self.policy else ''}) held back {self.held_cases} "
                f"case{'s' * (self.held_cases != 1)} from {self.name} ({', '.join(how)})")

    def summary(self) -> str:
        parts = [self.inner.summary()] if hasattr(self.inner, "summary") else [f"{self.name} judge"]
        held = self.held_text()
        if held:
            parts.append(held)
        elif self.policy is not None:
            parts.append(f"the data policy ({self.policy.source}) held back no case")
        if self.masked_cases:
            parts.append(f"personal data masked in {self.masked_cases} case{'s' * (self.masked_cases != 1)} sent")
        return "; ".join(parts)

    def identity(self) -> Dict[str, Any]:
        from ..core.identity import judge_identity

        out = judge_identity(self.inner)
        out.pop("splitting", None)
        if self.policy is not None:
            out["data_policy"] = self.policy.identity()
        if self.mask_all or (self.policy is not None and (self.policy.mask or any(a.mask for a in
                                                                                  self.policy.classes.values()))):
            out["masking"] = {"names": len(self.masker.names), "phone_regions": list(self.masker.regions)}
        return out


@dataclass
class MaskedCase:
    """One case's evidence as it is sent, masked: its question, passages (ids and texts) and
    answer masked once with one table built over them and its claims, and the way back. Every
    text that leaves for a model or a tenant is masked here: the judges' requests, and an SAP
    evaluation's test data and its metric's examples (:mod:`groundlab.production.sap_dataset`)."""

    table: Table
    evidence: Evidence
    ids: Dict[str, str]  # a passage's id as sent -> its own id
    apart: Dict[str, str] = field(default_factory=dict)  # an id kept apart from one that masks alike -> as sent

    @classmethod
    def of(cls, masker: Masker, evidence: Evidence, claims: Sequence[str]) -> "MaskedCase":
        table = masker.table([evidence.question, *(p.id for p in evidence.passages),
                              *(p.text for p in evidence.passages), evidence.answer or "", *claims])
        if not table:
            return cls(table, evidence, {})
        ids: Dict[str, str] = {}
        apart: Dict[str, str] = {}
        passages = []
        for p in evidence.passages:
            sent = masker.mask(p.id, table)
            if sent != p.id:
                while sent in ids and ids[sent] != p.id:  # two ids that mask alike stay two
                    sent += "'"
                    apart[p.id] = sent
                ids[sent] = p.id
            passages.append(replace(p, id=sent, text=masker.mask(p.text, table)))
        case = cls(table, evidence, ids, apart)
        case.evidence = Evidence(masker.mask(evidence.question, table), tuple(passages),
                                 None if evidence.answer is None else case.mask(masker, evidence.answer),
                                 evidence.classification)
        return case

    def mask(self, masker: Masker, text: str) -> str:
        """``text`` of the case (its answer, a claim) masked, each citation of a passage id kept
        apart from another that masks alike written as that passage is sent (``…MASKED_EMAIL_1'``)."""
        if not self.table or not text:
            return text
        if not self.apart or not any(i in text for i in self.apart):
            return masker.mask(text, self.table)
        pattern = re.compile("|".join(map(re.escape, sorted(self.apart, key=lambda i: (-len(i), i)))))
        out, at = [], 0
        for found in pattern.finditer(text):
            out += [masker.mask(text[at:found.start()], self.table), self.apart[found.group()]]
            at = found.end()
        return "".join(out) + masker.mask(text[at:], self.table)

    def pair(self, masker: Masker, text: str) -> Tuple[str, Evidence]:
        return self.mask(masker, text), self.evidence

    def unmasked(self, verdict: Verdict) -> Verdict:
        """``verdict`` with its texts and passage ids as the case writes them."""
        def back(text: Optional[str]) -> Optional[str]:
            return None if text is None else Masker.unmask(text, self.table)

        backing = verdict.supported_by
        if backing is not None:
            backing = tuple(self.ids.get(i, back(i)) for i in backing)  # type: ignore[misc]
        return replace(verdict, reason=back(verdict.reason), error=back(verdict.error), supported_by=backing,
                       evidence=back(verdict.evidence), matched=tuple(map(back, verdict.matched)),
                       clashed=tuple(map(back, verdict.clashed)))


@dataclass(frozen=True)
class HeldEstimate:
    """A judge's :meth:`estimate` of the claims the policy lets through, and the cases it holds back."""

    estimate: Any
    held_cases: int

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["estimate"], name)

    def __str__(self) -> str:
        held = (f"; the data policy holds back {self.held_cases} case{'s' * (self.held_cases != 1)}, which "
                "are not sent" if self.held_cases else "; the data policy holds back no case")
        return f"{self.estimate}{held}"


def apply_policy(judge: Any, policy: Union[PathLike, DataPolicy, None] = None, *, mask: bool = False,
                 names: Sequence[str] = ()) -> Any:
    """``judge`` behind the data policy (and masking): a :class:`PolicyGate` in front of it, or in
    front of each of a cascade's two judges. Neither a policy nor ``mask``: the judge as it is."""
    if policy is None and not mask:
        return judge
    policy = load_policy(policy) if policy is not None else None
    masker = Masker(tuple(names) + (policy.names if policy else ()),
                    policy.phone_regions if policy else DEFAULT_REGIONS)
    if hasattr(judge, "first") and hasattr(judge, "then") and getattr(judge, "name", "") == "cascade":
        judge.first = PolicyGate(judge.first, policy, mask=mask, masker=masker)
        judge.then = PolicyGate(judge.then, policy, mask=mask, masker=masker)
        judge.reset()
        return judge
    return PolicyGate(judge, policy, mask=mask, masker=masker)


def gates(judge: Any) -> List[PolicyGate]:
    """The gates in front of ``judge`` (none, one, or a cascade's two)."""
    if isinstance(judge, PolicyGate):
        return [judge]
    return [j for j in (getattr(judge, "first", None), getattr(judge, "then", None)) if isinstance(j, PolicyGate)]


def policy_of(judge: Any) -> Optional[DataPolicy]:
    return next((g.policy for g in gates(judge) if g.policy is not None), None)


def _registered(name: str, **options: Any) -> Any:
    """The judge registered as ``name``, as the registry builds it: called here only (by
    :func:`make_judge`, and for the offline judge a gate hands what it holds back to)."""
    from ..judges import get_judge

    return get_judge(name, **options)


def make_judge(judge: Any = None, *, policy: Union[PathLike, DataPolicy, None] = None, mask: bool = False,
               mask_names: Sequence[str] = (), **options: Any) -> Any:
    """The one place groundlab makes the judges it runs: ``judge`` (a registered name, built with
    ``options``; a judge object as it is; ``None``: the default judge) behind the data policy
    ``policy`` (a file or a loaded policy; ``None`` or ``""``: none) and the masking ``mask`` and
    ``mask_names`` ask for (:func:`apply_policy`). Every command, notebook and library function
    that turns a judge's name into a judge calls this; ``tests/test_policy.py`` fails on any
    other place that builds one.

    A judge already behind this very policy and masking is returned as it is; behind another,
    the new gate stands in front of the old one, so both apply.

    >>> make_judge("rules").name
    'rules'
    >>> type(make_judge("llm", mask=True, dry_run=True)).__name__
    'PolicyGate'
    """
    from ..judges import DEFAULT_JUDGE

    if policy is not None and not isinstance(policy, DataPolicy) and not str(policy).strip():
        policy = None
    names = tuple(n for n in (mask_names or ()) if n and str(n).strip())
    mask = bool(mask or names)
    if judge is None or isinstance(judge, str):
        built = _registered(judge or DEFAULT_JUDGE, **options)
    else:
        if options:
            raise GroundlabError(f"options ({', '.join(sorted(options))}) go with a judge's name, not with a judge "
                                 "object; pass the name, or build the judge with them first.")
        built = judge
        if policy is None and not mask:
            return built
        loaded = load_policy(policy) if policy is not None else None
        if any(_guards_alike(g, loaded, mask, names) for g in gates(built)):
            return built
        policy = loaded
    return apply_policy(built, policy, mask=mask, names=names)


def _guards_alike(gate: "PolicyGate", policy: Optional[DataPolicy], mask: bool, names: Sequence[str]) -> bool:
    same_policy = (gate.policy is None) == (policy is None) and (
        policy is None or gate.policy.digest == policy.digest)  # type: ignore[union-attr]
    wanted = set(names) | set(policy.names if policy else ())
    return same_policy and gate.mask_all == mask and set(gate.masker.names) == {n.strip() for n in wanted}


__all__ = ["Allowance", "DataPolicy", "HeldEstimate", "MaskedCase", "OFFLINE", "PolicyGate", "apply_policy", "gates",
           "load_policy", "make_judge", "policy_of"]
