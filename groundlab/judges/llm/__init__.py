"""The LLM judge: one request per answered case, in the shape the model accepts, a disk cache,
honest failures.

1. **Request.** Consecutive claims with equal :class:`~groundlab.records.Evidence` (the same
   question, passages and answer: what :func:`groundlab.evaluate` passes for all claims of a
   case, one object or one per claim) go out as one Messages API request: the question, every
   retrieved passage labelled with its id, the whole answer (so that a claim such as "that
   supplier pays" can be read) and the claims numbered from 1, each inside its own tag with
   ``&``, ``<`` and ``>`` escaped, so text in a passage or an answer cannot pass for an
   instruction or close a tag early. The prompt makes the passages the only evidence: unlike the
   rules judges, which count the question's words as evidence, this judge finds a claim that only
   repeats the question's premise unsupported. A case with more claims than one reply can hold
   (:func:`~.prompt.claims_per_request`, 38 at the default budget) goes out in several requests,
   its claims in order and the whole answer in each, each cached on its own.
2. **Reply.** The model answers with one entry per claim: its number, a one-sentence reason
   (first, so it reasons before it decides), a verdict and the smallest set of passage ids that
   support it; through a forced ``record_verdicts`` tool call where the model accepts one, else as
   a JSON answer constrained to the same schema (:mod:`.capabilities` says which model gets which
   request shape, with or without temperature 0, thinking and effort). Ids written loosely
   (``[D07]``, ``d07``, ``D07, D06``, escaped) are matched to the retrieved ones and become
   :attr:`Verdict.supported_by`, from which citation recall and precision follow without further
   requests. A ``supported`` verdict that names no retrieved passage leaves the claim's citation
   check undecided (noted in its reason), not failed.
3. **Failures.** A request that fails after its retries, a reply that is not a message (HTML, not
   JSON, too large), a reply without the tool call, a claim number missing, repeated or out of
   range, or a verdict outside the three becomes a verdict with ``label=None`` and ``error`` set:
   left out of every rate and counted, never a silent ``unsupported``. The raw reply of a failed
   request is kept in :attr:`LLMJudge.failed_replies`. A failure no other request can get past
   (the key refused, the model unknown, the first requests all refused alike, the endpoint not
   answering several requests in a row) stops the run with one sentence.

Replies are cached on disk (``.groundlab/cache/`` by default, see :mod:`.cache`), keyed by judge
version, model, prompt version, request shape, question, passages, answer and claims, and written
one by one as they arrive, so a rerun sends nothing and an interrupted run resumes where it stopped; runs sharing
a cache never pay twice for one request. With ``batch=True`` the requests go through the Message
Batches API at half the price (:mod:`.batch`). The API key is read from ``ANTHROPIC_API_KEY`` with
the endpoint set beside it (:mod:`.endpoint`), is sent to that endpoint only, and is removed from
every text the judge prints, keeps or caches.

**Providers.** ``provider="anthropic"`` (the default) is Anthropic's Messages API;
``provider="sap-ai-core"`` sends the same prompt, one request per answered case, through SAP AI
Core's orchestration service to a model of the tenant's generative AI hub (:mod:`.orchestration`,
with the tenant's credentials and token from :mod:`.aicore`). Parsing, the cache (keyed by provider
and model too), ``--repeat``, progress, the summary and the identity are the same; the Message
Batches API (``batch=True``) is Anthropic's alone.

May import: :mod:`groundlab.core` and its own modules (``cache``, ``endpoint``, ``prompt``,
``reply``, ...), which never import this one back at run time; never :mod:`groundlab.measure`.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ...core.records import Evidence, GroundlabError, Verdict, has_passage_text, visible, without_passage_text
from . import capabilities, pricing
from .cache import BUSY, HELD, ReplyCache, check_folder
from .capabilities import Shape, choose
from .endpoint import (Endpoint, ForeignHost, Redactor, StatusError, _Abort, _retry_after, _Stopped,
                       _timeout_errors, resolve, setting)
from .messages import AnthropicAPI
from .progress import Progress
from .prompt import (OUTPUT_TOKENS_PER_CLAIM, PROMPT_VERSION, SYSTEM_PROMPT, TOOL, TOOL_NAME,
                     TOOL_USE_OVERHEAD, Request, claims_per_request, fixed_tokens, parse_reply, plan_requests,
                     prompt_parts, request_params, thinking_estimate)
from .reply import Reply, TooSlow, Unusable, verdict_object
from .spend import DEFAULT_MODEL, DEFAULT_PROVIDER, Estimate, Usage, price_text

#: Where the judge's requests go: Anthropic's Messages API, or SAP AI Core's orchestration service.
PROVIDERS = ("anthropic", "sap-ai-core")
PROVIDER_VARIABLE = "LLM_PROVIDER"
DEFAULT_CACHE = Path(".groundlab") / "cache"
#: Seconds one request may take, from sending to the last byte of its reply. A request holds at
#: most 38 claims (the reply budget), about 2,300 output tokens at 60 a verdict: 30 to 45 s at the
#: 50 to 80 tokens a second of the larger models, so 60 s lets every honest reply arrive while an
#: endpoint that never answers costs a minute an attempt, not two (``--timeout`` to change).
DEFAULT_TIMEOUT = 60.0
#: The same for a model that thinks before it answers: at effort low, a few hundred to two
#: thousand thinking tokens more, up to 40 s at those speeds.
DEFAULT_TIMEOUT_THINKING = 120.0
#: A run stops when this many requests in a row time out or cannot connect: the endpoint is down
#: or unreachable, and waiting out every request's retries would take half an hour.
STOP_AFTER_UNREACHABLE = 5
#: A run stops when its first requests are refused (HTTP 400 and the like) this many times with the
#: same error and none has gone through: a bad setting, not a bad case.
STOP_AFTER_REJECTIONS = 3
#: The longest wait a ``retry-after`` header gets, in seconds; a longer one is cut to this, and a
#: request that still fails says so.
MAX_RETRY_AFTER = 120.0
#: Seconds between two looks at a request another run (sharing the cache) is asking.
LOCK_POLL = 0.1


#: Seconds a run stopped by a refusal waits for the replies still on their way, to cache and count them.
ABORT_GRACE = 30.0


@dataclass
class _Item:
    """One request to pay for, and where its verdicts go (several places when a run repeats a case)."""

    key: str
    request: Request
    starts: List[int]


_BUSY = object()  # another run sharing the cache is asking this request now


class LLMJudge:
    """Judges all claims of a case in one Messages API request (see the module docstring).

    ``cache=None`` turns the cache off. ``max_retries`` and ``backoff`` (seconds, doubled each
    retry, capped by ``max_backoff``; a ``retry-after`` header wins, honoured up to
    ``max_retry_after``, and a request that fails after a capped wait says so) govern retries on
    429, 5xx, overloaded and timeouts; ``timeout`` bounds each request (seconds, to the last byte
    of its reply) and ``stop_after_unreachable`` requests in a row that time out or cannot connect
    stop the run. Ctrl-C stops a run at once, waits for retries included. ``base_url`` overrides
    the endpoint set beside the key; ``batch=True`` sends through the Message Batches API, polling
    every ``poll_interval`` seconds; ``price_table`` is a JSON file of prices laid over the
    built-in table, ``model_table`` one of what each model accepts (:mod:`.capabilities`), from
    which the request shape is chosen (:attr:`shape`). ``timeout`` defaults to 60 s, 120 s for a
    model that thinks. ``dry_run=True`` builds a judge that can only :meth:`estimate`, and needs no
    key. ``provider`` (``$LLM_PROVIDER``, else ``anthropic``) is where requests go; with
    ``sap-ai-core``, ``service_key`` is a BTP service key file and ``deployment_id`` an
    orchestration deployment (``$AICORE_DEPLOYMENT_ID``, else the running one is found).
    """

    name = "llm"
    version = "1"

    def __init__(
        self,
        model: Optional[str] = None,
        *,
        cache: Union[str, os.PathLike, None] = DEFAULT_CACHE,
        concurrency: int = 4,
        max_retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_retry_after: float = MAX_RETRY_AFTER,
        timeout: Optional[float] = None,
        stop_after_unreachable: int = STOP_AFTER_UNREACHABLE,
        max_tokens: Optional[int] = None,
        progress: bool = True,
        dry_run: bool = False,
        base_url: Optional[str] = None,
        batch: bool = False,
        poll_interval: Optional[float] = None,
        price_table: Union[str, os.PathLike, None] = None,
        model_table: Union[str, os.PathLike, None] = None,
        provider: Optional[str] = None,
        service_key: Union[str, os.PathLike, None] = None,
        deployment_id: Optional[str] = None,
    ) -> None:
        self.provider = _provider(provider)
        if self.provider != "sap-ai-core" and (service_key or deployment_id):
            option = "--service-key" if service_key else "--deployment-id"
            raise GroundlabError(f"{option} is SAP AI Core's; add --provider sap-ai-core (or set LLM_PROVIDER) or drop "
                                 f"{option}.")
        if self.provider == "sap-ai-core" and base_url:
            raise GroundlabError("--base-url is the Anthropic API's endpoint; with --provider sap-ai-core the AI API's "
                                 "address comes with the credentials (AICORE_BASE_URL, or the service key's "
                                 "serviceurls.AI_API_URL): drop --base-url.")
        if self.provider == "sap-ai-core" and batch:
            raise GroundlabError("--batch sends through Anthropic's Message Batches API, which SAP AI Core's "
                                 "orchestration does not offer; drop --batch (each answered case is then one request, "
                                 "as without it).")
        if concurrency < 1:
            raise GroundlabError(f"--concurrency must be 1 or more, not {concurrency}.")
        if timeout is not None and not timeout > 0:
            raise GroundlabError(f"--timeout must be a number of seconds above 0, not {timeout}.")
        self.model = model or setting("LLM_MODEL") or (DEFAULT_MODEL if self.provider == "anthropic" else None)
        origin = "--model" if model else "LLM_MODEL" if self.model else "the default"
        if self.model is None:
            from .orchestration import DEFAULT_MODEL as HUB_MODEL

            self.model = HUB_MODEL
        table = capabilities.load(model_table)
        self.capabilities = table.capabilities(self.model)
        if self.provider == "sap-ai-core":
            from .orchestration import hub_shape

            if not self.capabilities.known:  # a hub model pinned to a version takes its name's entry
                self.capabilities = table.capabilities(self.model.partition(":")[0])
            self.shape: Shape = hub_shape(self.capabilities)
        else:
            self.shape = choose(self.capabilities)
        if timeout is None:
            timeout = DEFAULT_TIMEOUT_THINKING if self.shape.thinks else DEFAULT_TIMEOUT
        self.cache = ReplyCache(Path(cache), self._warn) if cache is not None else None
        if self.cache is not None:
            check_folder(self.cache.folder)
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.timeout = float(timeout)
        self.stop_after_unreachable = max(1, stop_after_unreachable)
        self.max_tokens = max_tokens
        self.progress = progress
        self.batch = batch
        self.poll_interval = poll_interval
        self.prices = pricing.load(str(price_table) if price_table is not None else None)
        self.usage = Usage()
        self.failed_replies: List[Dict[str, Any]] = []
        self.warnings: List[str] = []
        self._rejections: Dict[str, int] = {}
        self._unreachable = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()  # set when a run stops: no new attempt, no more waiting
        self._aborted: Optional[_Abort] = None
        self._client = None
        self._api: Any = None
        if self.provider == "sap-ai-core":
            self._sap_setup(service_key, deployment_id, origin, dry_run)
        else:
            self.endpoint: Endpoint = resolve(base_url, need_key=not dry_run)
            self._redactor: Any = self.endpoint.redactor
            if self.endpoint.note:
                self._warn(self.endpoint.note)
            if not self.capabilities.known:
                self._warn(f"the model table has no entry for {self.model}, so its requests take the shape every "
                           f"current model accepts ({self.shape.describe()}); a model table of your own "
                           "(--model-table FILE) can say what it accepts")
            if not dry_run:
                self._api = AnthropicAPI(self.endpoint, self.timeout, self.model)
                self._client = self._api.client

    def _sap_setup(self, service_key: Any, deployment_id: Optional[str], origin: str, dry_run: bool) -> None:
        """The tenant's credentials and its orchestration service (:mod:`.orchestration`); a dry run
        needs no credentials."""
        from .aicore import DEPLOYMENT_VARIABLE, check_deployment_id
        from .orchestration import Orchestration, credentials_for

        if deployment_id:
            check_deployment_id(deployment_id, "--deployment-id")
        else:
            deployment_id = setting(DEPLOYMENT_VARIABLE)
            if deployment_id:
                check_deployment_id(deployment_id, DEPLOYMENT_VARIABLE)
        self.deployment_id = deployment_id
        creds = credentials_for(str(service_key) if service_key else None, need=not dry_run)
        self.endpoint = Endpoint(creds.api_root, None, creds.origin, creds.note) if creds else _NoCredentials()
        self._redactor = creds.secrets() if creds else Redactor()
        if creds is not None and creds.note:
            self._warn(creds.note)
        if not dry_run:
            self._api = Orchestration(creds, deployment_id, self.timeout, self.model, origin)
            self._redactor = self._api.secrets

    # ------------------------------------------------------------ planning

    def requests_for(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Tuple[int, Request]]:
        """The requests for ``pairs``: consecutive pairs with equal evidence together, cut to the
        reply budget; ``(index of its first pair, request)`` each."""
        return plan_requests(pairs, claims_per_request(self.max_tokens))

    def _key(self, request: Request) -> str:
        if self.provider == "anthropic":  # the key it always had, so replies cached before providers are found
            return request.key(self.model, self.version, self.shape)
        from .orchestration import split_model

        return request.key(f"{self.provider}:{':'.join(split_model(self.model))}", self.version, self.shape)

    def _params(self, request: Request) -> Dict[str, Any]:
        if self.provider == "sap-ai-core":
            from .orchestration import completion_body

            return completion_body(request, self.model, self.max_tokens, self.shape)  # type: ignore[arg-type]
        return request_params(request, self.model, self.max_tokens, self.shape)

    @property
    def place(self) -> str:
        """Where the requests go, in words: ``at`` the API's endpoint, or ``on`` SAP AI Core."""
        if self.provider == "sap-ai-core":
            if self._api is not None:
                return f"on {self._api.describe()}"
            return "on SAP AI Core " + (self.endpoint.display if isinstance(self.endpoint, _NoCredentials) else
                                        f"at {self.endpoint.display}")
        return f"at {self.endpoint.display}"

    @property
    def request_shape(self) -> str:
        """The request shape in words, as the judge's identity records it."""
        return self.shape.describe()

    def prompt_parts(self) -> Dict[str, Any]:
        """The system prompt and the tool or schema this judge sends, for its identity's hash."""
        if self.provider == "sap-ai-core":
            from . import orchestration

            return orchestration.prompt_parts(self.shape)  # type: ignore[arg-type]
        return prompt_parts(self.shape)

    def identity(self) -> Dict[str, Any]:
        """What the identity adds for a provider other than Anthropic's API (an identity without
        ``provider`` is Anthropic's, as every identity before providers existed): the provider and
        the hub model's version."""
        if self.provider == "anthropic":
            return {}
        from .orchestration import split_model

        return {"provider": self.provider, "model_version": split_model(self.model)[1]}

    @property
    def wants_all_pairs(self) -> bool:
        """A batch run is one batch for the whole run, so :func:`groundlab.evaluate` hands this judge
        every pair at once rather than a chunk at a time (each chunk would be a batch of its own,
        waited for before the next is submitted)."""
        return self.batch

    def _cached(self, request: Request) -> Optional[List[Verdict]]:
        """The verdicts of a cached reply the judge can use (a damaged or unusable entry is a miss)."""
        if self.cache is None:
            return None
        found: List[List[Verdict]] = []

        def usable(reply: Any) -> bool:
            verdicts, clean = self._verdicts(self._redactor.deep(reply), request, None)
            found.append(verdicts)
            return clean

        return found[-1] if self.cache.reply(self._key(request), usable) is not None else None

    @property
    def price(self) -> Optional[pricing.Price]:
        """The model's price by the price table; a hub model's under ``NAME:VERSION``, else ``NAME``."""
        return self.prices.price(self.model) or self.prices.price(self.model.partition(":")[0])

    def estimate(self, pairs: Sequence[Tuple[str, Evidence]], runs: int = 1) -> Estimate:
        """The requests a :meth:`judge_batch` of ``pairs`` would send, without sending anything;
        ``runs`` > 1 for repeated runs, which skip the cache and send every request each time."""
        # as judge_batch: a claim with no passage text is unsupported without a request
        planned = [r for _, r in self.requests_for([pair for pair in pairs if has_passage_text(pair[1])])]
        to_send = planned if runs > 1 else [r for r in planned if self._cached(r) is None]
        thinking = thinking_estimate(self.shape)
        tokens = [(r.estimated_tokens(self.shape), OUTPUT_TOKENS_PER_CLAIM * len(r.claims) + thinking) for r in to_send]
        input_tokens = runs * sum(i for i, _ in tokens)
        output_tokens = runs * sum(o for _, o in tokens)
        price = self.price
        cost = None
        if price is not None:
            cost = runs * sum(price.cost(i, o) for i, o in tokens) * self._discount()
        cached = 0 if runs > 1 else len(planned) - len(to_send)
        return Estimate(runs * len(to_send), cached, input_tokens, output_tokens, cost, price, self.batch, self.model,
                        runs * thinking * len(to_send), self.shape, self.provider)

    def _discount(self) -> float:
        return self.prices.batch_discount if self.batch else 1.0

    # ------------------------------------------------------------ judging

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        if self._api is None:
            raise GroundlabError("this llm judge was built for a dry run and sends nothing; "
                                 "build it without dry_run to judge.")
        bare = without_passage_text(pairs, self.judge_batch)  # nothing to send: no passage text backs it
        if bare is not None:
            return bare
        out: List[Optional[Verdict]] = [None] * len(pairs)
        pending: Dict[str, _Item] = {}
        for start, request in self.requests_for(pairs):
            verdicts = self._cached(request)
            if verdicts is not None:
                out[start:start + len(request.claims)] = verdicts
                with self._lock:
                    self.usage.cached += 1
                continue
            key = self._key(request)
            pending.setdefault(key, _Item(key, request, [])).starts.append(start)
        if pending:
            items = list(pending.values())
            if self.cache is not None and not self.cache.writable():
                self.cache.warned = True  # this says it for every reply
                self._warn(f"the cache folder {self.cache.folder} cannot be written, so the {len(items)} "
                           f"repl{'ies' if len(items) != 1 else 'y'} this run pays for will be used but not kept "
                           "(a rerun pays again); make it writable or pass another --cache to keep them")
            if self.batch:
                from .batch import run_batches

                items = run_batches(self, items, out)
            if items:
                self._send_all(items, out)
        return out  # type: ignore[return-value]

    def _verdicts(self, payload: Any, request: Request, missing: Optional[str]) -> Tuple[List[Verdict], bool]:
        return parse_reply(payload, len(request.claims), [p.id for p in request.passages], missing)

    def _place(self, item: _Item, verdicts: List[Verdict], out: List[Optional[Verdict]]) -> None:
        for start in item.starts:
            out[start:start + len(item.request.claims)] = verdicts

    def _send_all(self, items: List[_Item], out: List[Optional[Verdict]]) -> None:
        """Send ``items`` from ``concurrency`` threads and put the verdicts in ``out``.

        The threads are daemons and a stopping run (an abort, or Ctrl-C in this thread) sets
        ``_stop``: no new request is sent, a wait for a retry ends at once, and nothing waits for
        a reply still on its way (a reply that comes is cached all the same)."""
        bar = Progress(len(items), f"llm judge ({self.model})", self.progress, status=self._status)
        self._stop.clear()
        self._aborted = None
        todo: "queue.SimpleQueue[_Item]" = queue.SimpleQueue()
        done: "queue.SimpleQueue[Tuple[_Item, Any]]" = queue.SimpleQueue()
        for item in items:
            todo.put(item)

        def work() -> None:
            while not self._stop.is_set():
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    result: Any = self._settle(item)
                except BaseException as exc:  # noqa: BLE001 (handed to the waiting thread)
                    result = exc
                if result is _BUSY:  # another run is paying for it: look again shortly
                    if self._stop.wait(LOCK_POLL):
                        return
                    todo.put(item)
                    continue
                done.put((item, result))

        threads = [threading.Thread(target=work, name="groundlab-llm", daemon=True)
                   for _ in range(min(self.concurrency, len(items)))]
        for thread in threads:
            thread.start()
        try:
            for _ in range(len(items)):
                while True:
                    try:
                        item, result = done.get(timeout=0.2)
                        break
                    except queue.Empty:
                        bar.tick()
                if isinstance(result, (_Abort, _Stopped)):
                    break
                if isinstance(result, BaseException):
                    raise result
                self._place(item, result, out)
                bar.update(1)
        finally:
            self._stop.set()  # requests not yet sent are not sent; waits for a retry end at once
            if self._aborted is not None:
                # A refusal stops the run, but replies already on their way are paid for: wait for
                # them (a while at most), so they are cached and counted in the summary.
                deadline = time.monotonic() + min(self.timeout, ABORT_GRACE)
                for thread in threads:
                    thread.join(max(0.0, deadline - time.monotonic()))
            bar.close()
        if self._aborted is not None:
            raise GroundlabError(str(self._aborted))

    def _status(self) -> str:
        u = self.usage
        parts = [f"{u.failed} failed"] if u.failed else []
        if u.retries:
            parts.append(f"{u.retries} retr{'ies' if u.retries != 1 else 'y'}")
        return f" ({', '.join(parts)})" if parts else ""

    def _settle(self, item: _Item) -> Any:
        """The verdicts of ``item``: from the cache when another run answered it meanwhile, else
        asked; :data:`_BUSY` while another run sharing the cache is asking it."""
        claim = self.cache.claim(item.key) if self.cache is not None else None
        if claim is not None and claim.state == BUSY:
            return _BUSY
        kept = False
        try:
            if claim is not None and claim.state == HELD:
                verdicts = self._cached(item.request)
                if verdicts is not None:  # another run answered it while this one waited
                    kept = True
                    with self._lock:
                        self.usage.cached += 1
                    return verdicts
            verdicts, kept = self._ask(item.request)
            return verdicts
        finally:
            if claim is not None:
                claim.release(kept)

    def _ask(self, request: Request) -> Tuple[List[Verdict], bool]:
        """Send one request (with retries), cache a clean reply at once; its verdicts, and whether
        the reply is in the cache. A failure no other request can get past (:class:`_Abort`)
        stops the whole run."""
        try:
            return self._ask_with_retries(request)
        except _Abort as exc:
            with self._lock:
                self.usage.failed += 1  # the request that stopped the run failed too
                if self._aborted is None:
                    self._aborted = exc
            self._stop.set()
            raise

    def _ask_with_retries(self, request: Request) -> Tuple[List[Verdict], bool]:
        n = len(request.claims)
        kwargs = self._params(request)
        last = "no attempt was made"
        attempts = 0
        capped: Optional[str] = None
        for attempt in range(self.max_retries + 1):
            if self._stop.is_set():
                raise _Stopped()
            if attempt:
                with self._lock:
                    self.usage.retries += 1
            attempts = attempt + 1
            try:
                reply = self._api.post(kwargs, self._redactor)
            except StatusError as exc:
                self._reached()
                status = exc.status_code
                if exc.kind == "filter":  # this case's text, not a setting: an unscored verdict, not retried
                    last = f"SAP AI Core's content filter blocked the request ({self._short(exc)}); the case is left unjudged"
                    with self._lock:
                        self.usage.filtered += 1
                        self.usage.failed += 1
                    return [Verdict(None, last, error=last) for _ in range(n)], False
                self._refusal(status, exc)
                last = f"HTTP {status}: {self._short(exc)}"
                if status in (408, 409, 429) or status >= 500:
                    capped = self._sleep(attempt, _retry_after(exc)) or capped
                    continue
                if status in (400, 422):
                    self._rejected(last)
                break
            except self._api.unreachable as exc:
                last = self._unreachable_attempt(exc)
                self._sleep(attempt, None)
                continue
            except Unusable as exc:
                self._reached()
                last = self._redactor.text(str(exc))
                self._rejected(last, refused=False)
                break
            except (_Abort, _Stopped):
                raise
            except Exception as exc:  # noqa: BLE001 (whatever else a reply or the SDK throws: one line, no traceback)
                last = f"{type(exc).__name__}: {self._short(exc)}"
                break
            self._reached()
            return self._received(request, reply)
        with self._lock:
            self.usage.failed += 1
        problem = f"the request failed after {attempts} attempt{'s' * (attempts != 1)} ({last})"
        if capped:
            problem += f"; {capped}"
        return [Verdict(None, problem, error=problem) for _ in range(n)], False

    def _refusal(self, status: int, error: Any = None) -> None:
        """Stop the run on a refusal every request would meet."""
        text = self._api.refusal(status, error)
        if text:
            raise _Abort(text.rstrip(".") + ".")

    def _reached(self) -> None:
        with self._lock:
            self._unreachable = 0

    def _unreachable_attempt(self, exc: BaseException) -> str:
        """Describe a timeout or a connection that failed, and stop the run when the endpoint has
        not answered :attr:`stop_after_unreachable` attempts in a row."""
        foreign = _cause(exc, ForeignHost)
        if foreign is not None:
            raise _Abort(f"{foreign}; check the endpoint settings, then run again.")
        if isinstance(getattr(exc, "phrase", None), str):  # said by the provider (SAP AI Core's token endpoint)
            last = self._redactor.text(exc.phrase)  # type: ignore[attr-defined]
        elif isinstance(exc, TooSlow) or "Timeout" in type(exc).__name__ or _cause(exc, _timeout_errors()):
            last = f"no complete reply within {self.timeout:g} s"
        else:
            last = f"{type(exc).__name__}: {self._short(exc)}"
        with self._lock:
            self._unreachable += 1
            count = self._unreachable
        if count >= self.stop_after_unreachable:
            kept = " (the replies received so far are kept in the cache: a rerun asks only what is missing)"
            raise _Abort(f"the endpoint {self.endpoint.display} did not answer {count} requests in a row (the last: "
                         f"{last}), so the run stopped{kept if self.cache else ''}; check the network and the "
                         f"endpoint, or raise --timeout (now {self.timeout:g} s), then run again.")
        return last

    def _rejected(self, problem: str, refused: bool = True) -> None:
        """Count a request the API found invalid (400, 422) or answered with something that is not a
        message; stop the run when the first requests of the run are all refused alike, since a bad
        setting (a parameter the model does not take, an endpoint that is not the API) refuses every
        request. (Too large, 413, is one case's trouble: not counted.)"""
        with self._lock:
            if self.usage.requests:
                return  # a request went through: the setting is fine, this case is the problem
            seen = self._rejections[problem] = self._rejections.get(problem, 0) + 1
        if seen >= STOP_AFTER_REJECTIONS:
            what = (f"refused the first {seen} requests alike ({problem}), so it would refuse every one" if refused else
                    f"answered the first {seen} requests alike with no usable message ({problem}), so it would "
                    "answer every one so")
            hint = self._table_hint(problem) if refused else None
            raise _Abort(f"{self._api.where} {what}; {hint or self._api.settings_hint}, then run again.")

    def _table_hint(self, problem: str) -> Optional[str]:
        """How to fix a refusal of a part of the request that the model table said the model takes."""
        return self._api.table_hint(problem, self.shape, self.capabilities)

    def _sleep(self, attempt: int, retry_after: Optional[float]) -> Optional[str]:
        """Wait before retry ``attempt + 1`` (not after the last attempt); a note when the API asked
        for a longer wait than :attr:`max_retry_after`. Ends at once when the run stops."""
        if attempt >= self.max_retries:
            return None
        note = None
        if retry_after is None:
            delay = min(self.backoff * (2 ** attempt) * (0.5 + random.random() / 2), self.max_backoff)
        else:
            delay = min(retry_after, self.max_retry_after)
            if retry_after > self.max_retry_after:
                note = (f"the API asked to wait {retry_after:g} s before retrying; waits are capped at "
                        f"{self.max_retry_after:g} s")
        if self._stop.wait(delay):
            raise _Stopped()
        return note

    def _received(self, request: Request, reply: Reply, batched: bool = False) -> Tuple[List[Verdict], bool]:
        """Count a reply, turn it into verdicts, and cache it when it is clean: ``(verdicts, cached)``."""
        self._meter(reply, batched)
        if reply.filtered:
            with self._lock:
                self.usage.filtered += 1
        payload, missing = verdict_object(reply, self.shape.kind == "json")
        payload = self._redactor.deep(payload)  # a JSON answer's strings are only read here, escapes and all
        verdicts, clean = self._verdicts(payload, request, missing)
        if not clean and reply.stop_reason == "max_tokens":
            cut = f"; the reply was cut off at its limit of {self._params(request)['max_tokens']:,} output tokens"
            if self.shape.thinks:
                cut += " (thinking included)"
            verdicts = [v if v.error is None else Verdict(None, v.reason + cut, error=v.error + cut) for v in verdicts]
        if clean:
            return verdicts, self._keep(request, payload)
        with self._lock:
            self.failed_replies.append({"request": request, "stop_reason": reply.stop_reason, "content": reply.content,
                                        "error": next(v.error for v in verdicts if v.error)})
        return verdicts, False

    def _meter(self, reply: Reply, batched: bool) -> None:
        price = self.price
        with self._lock:
            self.usage.requests += 1
            self.usage.batched += batched
            if not reply.metered:
                self.usage.unmetered += 1
                return
            self.usage.input_tokens += reply.input_tokens
            self.usage.output_tokens += reply.output_tokens
            self.usage.thinking_tokens += min(reply.thinking_tokens or 0, reply.output_tokens)
            if price is not None:
                discount = self.prices.batch_discount if batched else 1.0
                self.usage.cost += price.cost(reply.input_tokens, reply.output_tokens) * discount

    def _keep(self, request: Request, tool_input: Any) -> bool:
        if self.cache is None:
            return False
        entry = {"judge": self.name, "judge_version": self.version, "model": self.model,
                 **({"provider": self.provider} if self.provider != "anthropic" else {}),
                 "prompt_version": PROMPT_VERSION, "request_shape": self.shape.key(),
                 "request": {"question": request.question,
                             "passages": [{"id": p.id, "text": p.text} for p in request.passages],
                             "answer": request.answer, "claims": list(request.claims)},
                 "reply": tool_input}
        return self.cache.write(self._key(request), entry)

    def _short(self, exc: BaseException, limit: int = 160) -> str:
        """An exception as one redacted line of at most ``limit`` characters."""
        text = " ".join(self._redactor.text(str(getattr(exc, "message", None) or exc)).split())
        return text if len(text) <= limit else text[: limit - 1] + "\u2026"

    def _warn(self, text: str) -> None:
        text = self._redactor.text(text) if hasattr(self, "_redactor") else text
        self.warnings.append(text)
        print(f"groundlab: warning: {visible(text)}.", file=sys.stderr, flush=True)

    @property
    def spent(self) -> bool:
        """Whether this judge has sent anything that may be billed (a request, a retry, a batch)."""
        u = self.usage
        return bool(u.requests or u.failed or u.retries or u.batches)

    def summary(self) -> str:
        """One line: the model and endpoint; requests, cache hits, tokens and their price; retries
        and failures so far."""
        u = self.usage
        line = (f"llm judge ({self.model} {self.place}; {self.shape.describe()}): {u.requests} "
                f"request{'s' * (u.requests != 1)} sent, {u.cached} answered from the cache; {u.input_tokens:,} input "
                f"and {u.output_tokens:,} output tokens")
        if u.thinking_tokens:
            line += f" ({u.thinking_tokens:,} of them thinking)"
        if self.provider == "sap-ai-core" and u.requests:
            line += " as the orchestration counted them"
        if u.requests:
            line += ", " + price_text(u.cost, self.price, False, self.model, "about", self.provider)
            if u.batched:
                line += f" ({u.batched} of the requests in batches, at half price)"
        if self.provider == "sap-ai-core":
            from .orchestration import served_text

            line += served_text(getattr(self._api, "served", {}))
        if u.batches:
            line += f"; batch{'es' * (len(u.batches) > 1)} {', '.join(u.batches)}"
        if u.unmetered:
            line += f"; {u.unmetered} repl{'ies' if u.unmetered != 1 else 'y'} gave no usable token count (not priced)"
        if u.retries:
            line += f"; {u.retries} retr{'ies' if u.retries != 1 else 'y'}"
        if u.failed:
            line += f"; {u.failed} request{'s' * (u.failed != 1)} failed"
        if u.filtered:
            line += f"; {u.filtered} blocked by the content filter (their cases left unjudged)"
        if self.cache is not None and self.cache.unwritten:
            line += f"; {self.cache.unwritten} repl{'ies' if self.cache.unwritten != 1 else 'y'} could not be cached"
        return line


class _NoCredentials:
    """Where a dry run on SAP AI Core without credentials would send: nowhere known yet."""

    display = "(no credentials found; a dry run needs none)"
    base_url, key, origin, note = "", None, "", None


def _provider(name: Optional[str]) -> str:
    """The provider asked for (``--provider``, else ``$LLM_PROVIDER``, else Anthropic's API)."""
    given = name or setting(PROVIDER_VARIABLE)
    value = (given or DEFAULT_PROVIDER).strip().lower()
    if value not in PROVIDERS:
        where = "--provider" if name else PROVIDER_VARIABLE
        raise GroundlabError(f"{where} {given!r} is not a provider of the llm judge; use {' or '.join(PROVIDERS)}.")
    return value


def _cause(exc: BaseException, kinds) -> Optional[BaseException]:
    """``exc`` or the first exception it was raised from (or during) that is one of ``kinds``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kinds):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


__all__ = ["LLMJudge", "DEFAULT_MODEL", "DEFAULT_PROVIDER", "PROVIDERS", "DEFAULT_CACHE", "DEFAULT_TIMEOUT", "DEFAULT_TIMEOUT_THINKING",
           "MAX_RETRY_AFTER", "Estimate", "Usage", "Request", "Shape", "SYSTEM_PROMPT", "TOOL", "TOOL_NAME", "TOOL_USE_OVERHEAD",
           "fixed_tokens", "parse_reply"]
