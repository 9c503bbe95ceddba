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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ...core.records import Evidence, GroundlabError, Verdict, has_passage_text, visible, without_passage_text
from . import capabilities, pricing
from .cache import BUSY, HELD, ReplyCache, check_folder
from .capabilities import Shape, choose
from .endpoint import (Endpoint, ForeignHost, Redactor, _Abort, _retry_after, _Stopped, _timeout_errors,
                       _transport_errors, make_client, resolve, setting)
from .progress import Progress
from .prompt import (CHARS_PER_TOKEN, OUTPUT_TOKENS_PER_CLAIM, PROMPT_VERSION, SYSTEM_PROMPT, TOOL, TOOL_NAME,
                     TOOL_USE_OVERHEAD, Request, claims_per_request, fixed_tokens, parse_reply, plan_requests,
                     prompt_parts, request_params, thinking_estimate)
from .reply import MAX_REPLY_BYTES, Reply, TooSlow, Unusable, parse_json, read_body, read_message, verdict_object

DEFAULT_MODEL = "claude-sonnet-5-5"
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


@dataclass
class Usage:
    """What a judge has spent so far."""

    requests: int = 0  # sent and answered (retries not counted)
    batched: int = 0  # of which answered through the Message Batches API
    cached: int = 0  # answered from the cache
    failed: int = 0  # gave up after retries, refused, or answered with something unusable
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0  # thinking tokens included, as the API bills them
    thinking_tokens: int = 0  # of the output tokens, as far as the replies counted them
    cost: float = 0.0  # dollars, by the price table, of the replies with token counts
    unmetered: int = 0  # replies whose token counts were missing or not numbers
    batches: List[str] = field(default_factory=list)  # ids of the batches this run used


@dataclass(frozen=True)
class Estimate:
    """What a run would cost: requests to send, requests the cache answers, input tokens
    (estimated, each request's fixed part included), output tokens (estimated at
    :data:`~.prompt.OUTPUT_TOKENS_PER_CLAIM` a claim, plus ``thinking_tokens`` for a model that
    thinks, assumed at :data:`~.prompt.THINKING_ESTIMATE` a request) and their price (``None`` when
    the price table has none for the model)."""

    requests: int
    cached: int
    input_tokens: int
    output_tokens: int = 0
    cost: Optional[float] = None
    price: Optional[pricing.Price] = None
    batch: bool = False
    model: str = DEFAULT_MODEL
    thinking_tokens: int = 0
    shape: Shape = capabilities.FORCED_TOOL

    def __str__(self) -> str:
        fixed = fixed_tokens(self.shape)
        what = ("the system prompt and the schema of the answer" if self.shape.kind == "json" else
                f"the system prompt, the tool definition and about {TOOL_USE_OVERHEAD} tokens the API adds for "
                "tool use")
        text = (f"{self.requests} request{'s' * (self.requests != 1)} to send, {self.cached} answered "
                f"from the cache; about {self.input_tokens:,} input tokens (an estimate: each request's "
                f"text at {CHARS_PER_TOKEN} characters a token, plus a fixed {fixed:,} a request for {what}) "
                f"and about {self.output_tokens:,} output tokens ({OUTPUT_TOKENS_PER_CLAIM} a claim")
        if self.thinking_tokens:
            per = thinking_estimate(self.shape)
            text += (f", and {self.thinking_tokens:,} of thinking, a guess at {per:,} a request: the model thinks "
                     "as it decides, and the summary of a run gives what it counted")
        text += ")"
        return f"{text}; {price_text(self.cost, self.price, self.batch, self.model, 'estimated price')}"


def price_text(cost: Optional[float], price: Optional[pricing.Price], batch: bool, model: str, what: str) -> str:
    """``what $0.068 at $4 / $20 per million ...``, or why there is no price."""
    if price is None:
        return (f"no price for {model} in the price table (--price-table FILE or ${pricing.PRICE_TABLE_VARIABLE} "
                "adds one)")
    half = " in batches, at half price," if batch else ""
    return f"{what} {pricing.money(cost or 0.0)}{half} at {price.describe()}"


#: Words of the API's refusal of a request part, and the model table entry that avoids it.
#: (Checked in order: the refusal of a disabled thinking names effort too.)
_TABLE_HINTS = (("tool_choice", '"forced_tool": false', lambda shape: shape.kind == "tool"),
                ("temperature", '"temperature": false', lambda shape: shape.temperature),
                ("thinking.type.disabled", '"thinking": "always"', lambda shape: shape.thinking == "disabled"),
                ("effort", '"effort": false', lambda shape: bool(shape.effort)))


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
    key.
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
    ) -> None:
        if concurrency < 1:
            raise GroundlabError(f"--concurrency must be 1 or more, not {concurrency}.")
        if timeout is not None and not timeout > 0:
            raise GroundlabError(f"--timeout must be a number of seconds above 0, not {timeout}.")
        self.model = model or setting("LLM_MODEL") or DEFAULT_MODEL
        self.capabilities = capabilities.load(model_table).capabilities(self.model)
        self.shape: Shape = choose(self.capabilities)
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
        self.endpoint: Endpoint = resolve(base_url, need_key=not dry_run)
        self._redactor = Redactor(self.endpoint.key)
        if self.endpoint.note:
            self._warn(self.endpoint.note)
        if not self.capabilities.known:
            self._warn(f"the model table has no entry for {self.model}, so its requests take the shape every "
                       f"current model accepts ({self.shape.describe()}); a model table of your own "
                       "(--model-table FILE) can say what it accepts")
        if not dry_run:
            self._client = make_client(self.endpoint, self.timeout)

    # ------------------------------------------------------------ planning

    def requests_for(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Tuple[int, Request]]:
        """The requests for ``pairs``: consecutive pairs with equal evidence together, cut to the
        reply budget; ``(index of its first pair, request)`` each."""
        return plan_requests(pairs, claims_per_request(self.max_tokens))

    def _key(self, request: Request) -> str:
        return request.key(self.model, self.version, self.shape)

    def _params(self, request: Request) -> Dict[str, Any]:
        return request_params(request, self.model, self.max_tokens, self.shape)

    @property
    def request_shape(self) -> str:
        """The request shape in words, as the judge's identity records it."""
        return self.shape.describe()

    def prompt_parts(self) -> Dict[str, Any]:
        """The system prompt and the tool or schema this judge sends, for its identity's hash."""
        return prompt_parts(self.shape)

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
        return self.prices.price(self.model)

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
                        runs * thinking * len(to_send), self.shape)

    def _discount(self) -> float:
        return self.prices.batch_discount if self.batch else 1.0

    # ------------------------------------------------------------ judging

    def judge_batch(self, pairs: Sequence[Tuple[str, Evidence]]) -> List[Verdict]:
        if self._client is None:
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
        import anthropic

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
                reply = self._post(kwargs)
            except anthropic.APIStatusError as exc:
                self._reached()
                status = exc.status_code
                self._refusal(status)
                last = f"HTTP {status}: {self._short(exc)}"
                if status in (408, 409, 429) or status >= 500:
                    capped = self._sleep(attempt, _retry_after(exc)) or capped
                    continue
                if status in (400, 422):
                    self._rejected(last)
                break
            except (anthropic.APIConnectionError, TooSlow, _transport_errors()) as exc:
                last = self._unreachable_attempt(exc)
                self._sleep(attempt, None)
                continue
            except Unusable as exc:
                self._reached()
                last = self._redactor.text(str(exc))
                self._rejected(last, refused=False)
                break
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

    def _post(self, kwargs: Dict[str, Any]) -> Reply:
        """One request; its reply read within :attr:`timeout` and :data:`~.reply.MAX_REPLY_BYTES`."""
        deadline = time.monotonic() + self.timeout
        with self._client.messages.with_streaming_response.create(**kwargs) as response:
            data = read_body(response.iter_bytes(), MAX_REPLY_BYTES, deadline)
            content_type = response.headers.get("content-type")
        return read_message(parse_json(data, content_type), self._redactor)

    def _refusal(self, status: int) -> None:
        """Stop the run on a refusal every request would meet."""
        if status in (401, 403):
            raise _Abort(f"the API at {self.endpoint.display} refused the key ({status}); check "
                         f"ANTHROPIC_API_KEY{self._key_origin()}, or use --judge rules, which needs none.")
        if status == 404:
            raise _Abort(f"the API at {self.endpoint.display} does not know the model {self.model!r} (404); pass "
                         "another with --model or LLM_MODEL, or check the endpoint (--base-url).")

    def _key_origin(self) -> str:
        return f" (read from {self.endpoint.origin})" if self.endpoint.origin else ""

    def _reached(self) -> None:
        with self._lock:
            self._unreachable = 0

    def _unreachable_attempt(self, exc: BaseException) -> str:
        """Describe a timeout or a connection that failed, and stop the run when the endpoint has
        not answered :attr:`stop_after_unreachable` attempts in a row."""
        foreign = _cause(exc, ForeignHost)
        if foreign is not None:
            raise _Abort(f"{foreign}; check the endpoint settings, then run again.")
        if isinstance(exc, TooSlow) or "Timeout" in type(exc).__name__ or _cause(exc, _timeout_errors()):
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
            if hint:
                raise _Abort(f"the API at {self.endpoint.display} {what}; {hint}, then run again.")
            raise _Abort(f"the API at {self.endpoint.display} {what}; check --model (or LLM_MODEL) and the endpoint "
                         "(ANTHROPIC_BASE_URL or --base-url), then run again.")

    def _table_hint(self, problem: str) -> Optional[str]:
        """How to fix a refusal of a part of the request that the model table said the model takes."""
        for words, entry, sent in _TABLE_HINTS:
            if words in problem and sent(self.shape):
                return (f"{self.capabilities.table} says {self.model} takes this, so give it {entry} in a model table "
                        "of your own (--model-table FILE, as docs/llm-judge.md shows)")
        return None

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
        line = (f"llm judge ({self.model} at {self.endpoint.display}; {self.shape.describe()}): {u.requests} "
                f"request{'s' * (u.requests != 1)} sent, {u.cached} answered from the cache; {u.input_tokens:,} input "
                f"and {u.output_tokens:,} output tokens")
        if u.thinking_tokens:
            line += f" ({u.thinking_tokens:,} of them thinking)"
        if u.requests:
            line += ", " + price_text(u.cost, self.price, False, self.model, "about")
            if u.batched:
                line += f" ({u.batched} of the requests in batches, at half price)"
        if u.batches:
            line += f"; batch{'es' * (len(u.batches) > 1)} {', '.join(u.batches)}"
        if u.unmetered:
            line += f"; {u.unmetered} repl{'ies' if u.unmetered != 1 else 'y'} gave no usable token count (not priced)"
        if u.retries:
            line += f"; {u.retries} retr{'ies' if u.retries != 1 else 'y'}"
        if u.failed:
            line += f"; {u.failed} request{'s' * (u.failed != 1)} failed"
        if self.cache is not None and self.cache.unwritten:
            line += f"; {self.cache.unwritten} repl{'ies' if self.cache.unwritten != 1 else 'y'} could not be cached"
        return line


def _cause(exc: BaseException, kinds) -> Optional[BaseException]:
    """``exc`` or the first exception it was raised from (or during) that is one of ``kinds``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kinds):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


__all__ = ["LLMJudge", "DEFAULT_MODEL", "DEFAULT_CACHE", "DEFAULT_TIMEOUT", "DEFAULT_TIMEOUT_THINKING",
           "MAX_RETRY_AFTER", "Estimate", "Usage", "Request", "Shape", "SYSTEM_PROMPT", "TOOL", "TOOL_NAME", "TOOL_USE_OVERHEAD",
           "fixed_tokens", "parse_reply"]
