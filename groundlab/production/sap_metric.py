"""groundlab's groundedness check as an SAP AI Core custom metric, so the platform team sees the
same number.

:func:`metric_body` writes the body of ``POST {AI_API_URL}/v2/lm/evaluationMetrics``, an
LLM-as-a-judge metric with a structured prompt (``spec.promptType`` ``structured``): groundlab's
verdicts turned into a rating rubric, evaluation steps that check the response sentence by
sentence against the grounding context only, few-shot examples taken from people's labels, and
the judge model pinned by name and version. :func:`push_metric` sends it to a tenant.

The rubric is the method's 3 / 2 / 1, one rating per verdict of the answer's worst claim, so a
rating below 3 is exactly groundlab's "hallucinated answer" and the two numbers can be laid side
by side:

- **3**: every statement is supported by the context (an answer that says the context does not
  hold the answer is grounded too);
- **2**: a statement is unsupported (the context neither states nor implies it) and none
  contradicts it;
- **1**: a statement is contradicted (the context states something incompatible: another number,
  date, code or name, or the opposite).

A finer scale would ask the judge for distinctions (how much of the answer is unsupported) that
people did not label and groundlab does not count; contradicted and unsupported stay apart because
the report splits them too. The metric's name carries the rubric's version
(``groundlab-groundedness-r1``; a name of one's own must end in ``-r1`` too): SAP keys the
aggregated results by name alone, so a changed rubric must take a new name for its trend to start
afresh.

The tenant's credentials, the token and the requests are those of the llm judge's ``sap-ai-core``
provider, one piece (:mod:`groundlab.judges.llm.aicore`): read as SAP's SDK reads them (a service
key file, the environment, ``.env``, the profile configuration file, ``VCAP_SERVICES``); the secret
and the token are never printed, logged, cached or written, and every text from the tenant passes
through one :class:`~groundlab.core.redact.Redactor` first, which knows them in every form an
echo carries them (the ``Basic`` header's base64 of client id and secret, URL-encoded,
JSON-escaped).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from ..core.records import Case, GroundlabError, one_line

if TYPE_CHECKING:  # pragma: no cover - loaded when a metric is built or pushed, not for the command's help
    from ..judges.llm.aicore import Credentials
    from ..core.claims import ClaimSplitter
    from ..core.io import PathLike

#: The version of the rubric and steps below; the metric's name carries it.
RUBRIC_VERSION = "r1"
#: How every metric name ends: SAP keys the aggregates by name alone, so a name that carries the
#: rubric's version keeps the trends of different rubrics apart.
RUBRIC_TAG = f"-{RUBRIC_VERSION}"
DEFAULT_NAME = f"groundlab-groundedness{RUBRIC_TAG}"
SCENARIO = "genai-evaluations"
#: The judge model, pinned: a model that moves under a metric moves its trend.
DEFAULT_MODEL = "gpt-4o"
DEFAULT_MODEL_VERSION = "2024-08-06"
#: SAP's limits on a metric (its documentation: a name of 1 to 120 characters without ``/``, a
#: version of 1 to 10, a payload of at most 512 KB).
MAX_NAME, MAX_VERSION, MAX_BYTES = 120, 10, 512 * 1024

DEFINITION = ("Groundedness: whether every statement of the response is backed by the grounding context the "
              "assistant was given (the retrieved passages, and the user's question), and by nothing else.")
EVALUATION_TASK = ("You are checking a retrieval-augmented assistant's answer against the passages it was given. Judge each "
        "statement of the response against the grounding context only, never against your own knowledge, and rate "
        "the whole response by its worst statement.")
CRITERIA = ("A statement is supported when the context states it or plainly implies it; contradicted when the "
            "context states something incompatible with it (another number, amount, date, code or name, or the "
            "opposite); unsupported when the context neither states nor contradicts it. Every number, amount, date "
            "and code in a statement must appear in the context. Citation markers such as [D07] are not statements.")
RUBRIC = (
    {"rating": 3, "rule": "Grounded: every statement of the response is supported by the context; a response that "
                          "only says the context does not hold the answer is grounded."},
    {"rating": 2, "rule": "Unsupported: at least one statement is neither stated nor implied by the context, and "
                          "none contradicts it."},
    {"rating": 1, "rule": "Contradicted: at least one statement conflicts with the context (a different number, "
                          "date, code, name or amount, or the opposite of what it says)."},
)
STEPS = (
    "Split the response into sentences. Leave out sentences that only say the context does not hold the answer, "
    "and remove citation markers such as [D07] from the others: each remaining sentence is a statement.",
    "For each statement, find the sentence of the grounding context that comes closest to it. The user's question "
    "counts as context; your own knowledge does not.",
    "Mark the statement contradicted if that context states something incompatible with it (check every number, "
    "amount, date, code and name, and whether one of the two says not, never or no); supported if the context "
    "states it or plainly implies it; unsupported otherwise.",
    "Rate 1 if any statement is contradicted, else 2 if any is unsupported, else 3.",
    "Explain in one or two sentences, naming the first statement that is contradicted or unsupported and what "
    "the context says instead.",
)
#: The rating of an answer whose worst claim got each verdict.
RATING_OF = {"contradicted": 1, "unsupported": 2, "supported": 3}


def answer_rating(labels: Sequence[str]) -> int:
    """The rubric's rating of an answer from the verdicts of its claims: its worst claim's.

    >>> answer_rating(["supported", "unsupported"]), answer_rating(["contradicted", "supported"])
    (2, 1)
    """
    return min((RATING_OF[v] for v in labels), default=3)


def _explanation(claims: Sequence[str], labels: Sequence[str]) -> str:
    worst = answer_rating(labels)
    if worst == 3:
        return (f"Every statement is supported by the context ({len(claims)} of {len(claims)}), so the response is "
                "grounded.")
    verdict = {1: "contradicted", 2: "unsupported"}[worst]
    k = list(labels).index(verdict)
    said = {"contradicted": "conflicts with what the context states", "unsupported": "is not stated in the context"}
    others = [v for j, v in enumerate(labels) if j != k and v != "supported"]
    more = f"; {len(others)} other statement{'s' * (len(others) != 1)} not supported either" if others else ""
    return f"The statement \"{claims[k]}\" {said[verdict]}{more}, so the rating is {worst}."


def examples(cases: Sequence[Case], splitter: Optional["ClaimSplitter"] = None, per_rating: int = 1,
             **policy: Any) -> Tuple[List[dict], List[str]]:
    """Few-shot examples of the rubric from people's labels: for each rating, the first
    ``per_rating`` labeled answers whose worst claim gives it, with the question (``prompt`` and
    ``groundingInput``), the passages (``groundingOutput``, each ``[id] text``), the answer and an
    explanation naming the claim that decides. ``policy``: the data policy and masking, as for the
    dataset (examples leave the machine with the metric). Also what a person should know."""
    from ..core.claims import ClaimSplitter
    from .sap_dataset import outgoing

    splitter = splitter or ClaimSplitter()
    leaving, held = outgoing(cases, **policy)
    chosen: Dict[int, List[dict]] = {3: [], 2: [], 1: []}
    for item in leaving:
        case = item.case
        if case.labels is None:
            continue
        claims = splitter.split(case.id, case.answer, [p.id for p in case.retrieved]).claims
        if not claims or len(claims) != len(case.labels):
            continue
        rating = answer_rating(case.labels)
        if len(chosen[rating]) >= per_rating:
            continue
        texts = [c.text for c in splitter.split(case.id, item.answer, [pid for pid, _ in item.passages]).claims]
        context = "\n\n".join(f"[{pid}] {text}" for pid, text in item.passages)
        chosen[rating].append({"prompt": item.question, "groundingInput": item.question, "groundingOutput": context,
                               "response": item.answer, "rating": rating,
                               "explanation": _explanation(texts if len(texts) == len(claims) else
                                                           [item.mask(c.text) for c in claims], case.labels),
                               "_case": case.id})
    notes = []
    missing = [r for r, found in chosen.items() if not found]
    if missing:
        notes.append(f"note: no labeled answer rates {' or '.join(map(str, missing))}, so the metric shows no example "
                     "of it; label such an answer to add one.")
    if held:
        notes.append(f"note: the data policy kept {len(held)} case{'s' * (len(held) != 1)} out of the examples.")
    return [e for r in (3, 2, 1) for e in chosen[r]], notes


@dataclass
class Metric:
    """A metric's creation body and where its examples came from."""

    body: Dict[str, Any]
    source: str
    example_cases: List[str]
    notes: List[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False, indent=2) + "\n"

    def summary(self) -> str:
        spec = self.body["spec"]["configuration"]
        model = spec["modelConfiguration"]
        shown = ", ".join(f"{c} ({e['rating']})" for c, e in zip(self.example_cases,
                                                                 spec["promptConfiguration"]["examples"]))
        return (f"metric {self.body['name']} version {self.body['version']} (scenario {self.body['scenario']}): "
                f"rubric {RUBRIC_VERSION}, ratings 3 grounded / 2 unsupported / 1 contradicted, "
                f"{len(spec['promptConfiguration']['evaluationSteps'])} evaluation steps, judge {model['name']} "
                f"{model['version']}, {len(self.example_cases)} examples from {self.source}: {shown or 'none'}.")


def _check_name(name: str, version: str, model: str, model_version: str) -> None:
    if not name or len(name) > MAX_NAME or "/" in name:
        raise GroundlabError(f"--name {name!r} is not a metric name SAP accepts: 1 to {MAX_NAME} characters, no '/'.")
    if not name.endswith(RUBRIC_TAG) or name == RUBRIC_TAG:
        raise GroundlabError(f"--name {name!r} does not end in the rubric's version, {RUBRIC_TAG}, and SAP keys an "
                             "evaluation's aggregates by name alone, so the trends of different rubrics would mix; "
                             f"name it {name.rstrip('-') or 'groundlab-groundedness'}{RUBRIC_TAG}.")
    if not version or len(version) > MAX_VERSION:
        raise GroundlabError(f"--metric-version {version!r} is not a version SAP accepts: 1 to {MAX_VERSION} "
                             "characters.")
    for option, value in (("--model", model), ("--version", model_version)):
        if not value or not value.strip():
            raise GroundlabError(f"{option} is empty; pin the judge model by its name and version, e.g. --model "
                                 f"{DEFAULT_MODEL} --version {DEFAULT_MODEL_VERSION}.")


def metric_body(cases: Optional["PathLike"] = None, passages: Optional["PathLike"] = None, *,
                name: str = DEFAULT_NAME, version: str = "1", model: str = DEFAULT_MODEL,
                model_version: str = DEFAULT_MODEL_VERSION, splitter: Optional["ClaimSplitter"] = None, per_rating: int = 1, endpoint: Optional[str] = None,
                policy: Any = None, mask: bool = False, names: Sequence[str] = ()) -> Metric:
    """The creation body of groundlab's groundedness metric (see the module docstring), its
    examples from the labeled ``cases`` (default: the sample set)."""
    from ..core.io import load_cases, sample_path

    _check_name(name, version, model, model_version)
    if cases is None:
        cases, passages, source = sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"), "the sample set"
    else:
        source = str(cases)
    loaded = load_cases(cases, passages)
    if not any(c.labels is not None for c in loaded):
        raise GroundlabError(f"{source} holds no labeled case, so the metric would have no example; give --examples "
                             "a cases file with people's \"labels\" (groundlab label export / import makes one).")
    found, notes = examples(loaded, splitter, per_rating, model=f"{model}:{model_version}", endpoint=endpoint,
                            policy=policy, mask=mask, names=names)
    chosen = [e.pop("_case") for e in found]
    body = {
        "scenario": SCENARIO, "name": name, "version": version, "evaluationMethod": "llm-as-a-judge",
        "description": (f"groundlab's claim-level groundedness as one rating per answer (rubric {RUBRIC_VERSION}): "
                        "3 grounded, 2 a statement unsupported, 1 a statement contradicted by the grounding context."),
        "usageType": ["evaluation"],
        "includeProperties": ["prompt", "grounding_query", "grounding_response"],
        "spec": {"promptType": "structured", "outputType": "numerical", "configuration": {
            "modelConfiguration": {"name": model, "version": model_version,
                                   "parameters": [{"key": "temperature", "value": "0"}]},
            "promptConfiguration": {"definition": DEFINITION, "evaluationTask": EVALUATION_TASK, "criteria": CRITERIA,
                                    "ratingRubric": [dict(r) for r in RUBRIC], "evaluationSteps": list(STEPS),
                                    "examples": found}}},
    }
    size = len(json.dumps(body).encode("utf-8"))
    if size > MAX_BYTES:
        raise GroundlabError(f"the metric is {size:,} bytes, over SAP's {MAX_BYTES // 1024} KB; take fewer examples "
                             "(--per-rating 1) or shorter labeled answers.")
    return Metric(body, source, chosen, notes)


# ---------------------------------------------------------------- the tenant


def __getattr__(name: str) -> Any:
    if name == "Tenant":  # a tenant's credentials: loaded when asked for, not for the command's help
        from ..judges.llm.aicore import Credentials

        return Credentials
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tenant_settings(service_key: Optional[str] = None) -> "Credentials":
    """The tenant's credentials (:class:`groundlab.judges.llm.aicore.Credentials`, also named
    ``Tenant`` here), read as SAP's SDK reads them (a service key file, the environment, ``.env``,
    the profile configuration file, ``VCAP_SERVICES``); one sentence naming what is missing."""
    from ..judges.llm.aicore import find_credentials

    return find_credentials(service_key, purpose="--push")


@dataclass(frozen=True)
class Pushed:
    """What the tenant answered: the metric's ``id`` as SAP gave it."""

    name: str
    version: str
    id: str
    where: str
    answer: Optional[str] = None  # what the registry answered instead of its metric object, when it did

    def __str__(self) -> str:
        if self.answer is not None:
            return (f"created metric {self.name} version {self.version} on {self.where} (201: the registry created "
                    f"it), but its answer is not the metric as JSON ({self.answer}), so its id is not known; the "
                    f"metric exists: select it in the evaluation's metrics by its name, or find its id with GET "
                    f"{self.where}.")
        return (f"created metric {self.name} version {self.version} on {self.where} (id {self.id}); select it in the "
                "evaluation's metrics by that id or name.")


def push_metric(body: Dict[str, Any], tenant: Optional["Credentials"] = None, *, timeout: float = 30.0) -> Pushed:
    """Create the metric on the tenant: a token by OAuth client credentials, then
    ``POST /v2/lm/evaluationMetrics``, through :class:`~groundlab.judges.llm.aicore.AICore` (the
    secret to the token URL only, the token to the AI API only, no redirect followed). Every
    answer but 201 is one sentence (the metric exists, it is refused, the client or token is
    refused, no answer in time: from the registry, once the metric was sent, it may have been
    created all the same); nothing is retried."""
    from ..judges.llm.aicore import AICore, Unavailable, answer_text
    from ..judges.llm.endpoint import display_url

    try:
        import httpx
    except ImportError:  # pragma: no cover - httpx comes with the llm extra
        raise GroundlabError("--push needs the httpx package; install it with pip install 'groundlab[sap]'.") from None
    tenant = tenant or tenant_settings()
    api = AICore(tenant, timeout=timeout, connect_timeout=timeout)
    metrics_url = tenant.api_url + "/lm/evaluationMetrics"
    token_host, metrics_host = display_url(tenant.token_url), display_url(metrics_url)
    where = token_host
    try:
        try:
            headers = api.headers()
        except Unavailable as exc:
            raise GroundlabError(f"{exc}; nothing was created, try again later.") from None
        where = metrics_host
        response = api.http.post(metrics_url, json=body, headers=dict(headers, **{"Content-Type": "application/json"}))
    except httpx.TimeoutException as exc:
        if where == metrics_host and not isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
            # the request went out: the registry may have created the metric and not answered in time
            raise GroundlabError(f"{where} did not answer within {timeout:g} seconds, but the metric was sent and "
                                 f"may have been created all the same; check with GET {metrics_host} (or push "
                                 "again: a 409 then says it exists), giving --timeout more seconds.") from None
        raise GroundlabError(f"{where} did not answer within {timeout:g} seconds; nothing was created (try again, "
                             "or give --timeout more seconds).") from None
    except httpx.TransportError as exc:
        raise GroundlabError(f"could not reach {where} ({api.secrets.text(type(exc).__name__)}: "
                             f"{api.secrets.text(str(exc))[:200]}); check the address and the network.") from None
    finally:
        api.close()
    status = response.status_code
    name, version = body.get("name"), body.get("version")
    message = answer_text(response, api.secrets)
    if status == 201:
        try:
            answer, kind = response.json(), None
        except ValueError:
            answer, kind = None, "text that is not JSON"
        given = answer.get("id") if isinstance(answer, dict) else None
        if isinstance(given, (str, int)) and not isinstance(given, bool) and str(given).strip():
            shown = api.secrets.text(str(given))
            return Pushed(str(name), str(version), one_line(shown[:120] + ("..." if len(shown) > 120 else "")),
                          metrics_host)
        if kind is None:
            kind = ("an object without an id" if isinstance(answer, dict) else
                    {list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(
                        type(answer), "a number"))
        shown = ("no body at all" if not response.content.strip() else kind if kind == "null" else
                 f"{kind}: {message[:120]}")
        return Pushed(str(name), str(version), "not known", metrics_host, answer=shown)
    if status == 409:
        raise GroundlabError(f"the tenant already has metric {name} version {version} in scenario "
                             f"{body.get('scenario')}; nothing was changed (a metric is not replaced: push a changed "
                             "rubric under a new name, as its aggregates are keyed by name, or a new --metric-version).")
    if status == 400:
        raise GroundlabError(f"{metrics_host} refused the metric as invalid (400: {message}); nothing was created.")
    if status == 401:
        raise GroundlabError(f"{metrics_host} refused the token (401: {message}); check that AICORE_BASE_URL "
                             f"({tenant.origin}) is the AI API URL of the service key the client belongs to.")
    if status == 403:
        raise GroundlabError(f"{metrics_host} does not allow the client to create metrics in resource group "
                             f"{tenant.resource_group} (403: {message}); check AICORE_RESOURCE_GROUP and the service "
                             "key's roles.")
    raise GroundlabError(f"{metrics_host} answered {status} ({message}); nothing was created, try again later.")


__all__ = ["DEFAULT_MODEL", "DEFAULT_MODEL_VERSION", "DEFAULT_NAME", "RUBRIC", "RUBRIC_TAG", "RUBRIC_VERSION",
           "SCENARIO", "STEPS", "Metric", "Pushed", "Tenant", "answer_rating", "examples", "metric_body", "push_metric",
           "tenant_settings"]
