"""A run through the Message Batches API: half the price per token, replies within 24 hours.

The requests a run must pay for (the cache answers the rest) are submitted as one batch
(``client.messages.batches.create``, :data:`MAX_BATCH_REQUESTS` at most a batch), polled with
progress (``retrieve``; after 5 s, then at doubling intervals up to every 30 s), and their results fetched once it has
ended (``results``: JSONL lines ``{"custom_id", "result": {"type": "succeeded" | "errored" |
"expired" | "canceled", ...}}``) and cached like any reply. Each batch's id is kept in
``<cache>/batches/<id>.json`` from the moment it exists, so an interrupted run (Ctrl-C, a closed
laptop, kill -9) picks up the same batch when run again instead of paying for a second one; the
file goes once every result of the batch has been taken. A request that errored for a reason of
its own (``invalid_request_error``) becomes an error verdict; one that expired, was canceled,
errored otherwise or has no result is sent again the normal way, at the normal price.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set

from ...core.records import GroundlabError, Verdict, visible
from .progress import Progress
from .reply import (MAX_REPLY_BYTES, TooLarge, TooSlow, Unusable, batch_result, lines, parse_json, read_body,
                    read_message)

if TYPE_CHECKING:  # pragma: no cover
    from . import LLMJudge, _Item

#: Seconds between two looks at a batch still in progress: :data:`FIRST_POLL` at first, doubling up to
#: :data:`POLL_INTERVAL` (a look is free; most batches end within an hour, small ones in minutes).
FIRST_POLL = 5.0
POLL_INTERVAL = 30.0
#: Requests a batch at most (the API takes 100,000 and 256 MB; smaller batches end sooner).
MAX_BATCH_REQUESTS = 10_000
MAX_BATCH_BYTES = 200 << 20
_BATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


class _Gone(Exception):
    """The API no longer knows the batch (404): archived, or another endpoint's."""


def run_batches(judge: "LLMJudge", items: List["_Item"], out: list) -> List["_Item"]:
    """Judge ``items`` through batches, putting their verdicts in ``out``; the items left to send
    the normal way."""
    from .endpoint import _Abort, _Stopped

    judge._stop.clear()
    folder = judge.cache.folder / "batches" if judge.cache is not None else None
    if folder is None:
        judge._warn("without a cache the batch id is kept nowhere, so an interrupted --batch run cannot pick its "
                    "batch up again")
    by_key = {item.key: item for item in items}
    batches = _open_batches(judge, folder, set(by_key))
    covered: Set[str] = set().union(*(b["keys"] for b in batches)) if batches else set()
    leftover: Set[str] = set()
    try:
        for chunk in _chunks(judge, [item for item in items if item.key not in covered]):
            batches.append(_create(judge, folder, chunk))
        _follow(judge, batches, by_key, out, leftover)
    except (_Abort, _Stopped) as exc:
        raise GroundlabError(str(exc) or "the run stopped") from None
    except KeyboardInterrupt:
        running = [b["id"] for b in batches if not b.get("done")]
        if running and folder is not None:
            print(visible(f"groundlab: the batch{'es' * (len(running) > 1)} {', '.join(map(str, running))} "
                          f"keep{'s' * (len(running) == 1)} running at the API; run the same command again to collect "
                          f"the results (the ids are kept in {folder})."), file=sys.stderr)
        raise
    return [by_key[key] for key in by_key if key in leftover]


def _chunks(judge: "LLMJudge", items: List["_Item"]) -> List[List["_Item"]]:
    chunks: List[List["_Item"]] = []
    size = 0
    for item in items:
        weight = len(item.request.message()) + 8_000  # the system prompt, the tool and the JSON around them
        if not chunks or len(chunks[-1]) >= MAX_BATCH_REQUESTS or size + weight > MAX_BATCH_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(item)
        size += weight
    return chunks


def _state_path(folder: Path, batch_id: str) -> Path:
    return folder / f"{batch_id}.json"


def _open_batches(judge: "LLMJudge", folder: Optional[Path], wanted: Set[str]) -> List[Dict[str, Any]]:
    """The batches a run left behind (same endpoint and model) that hold some of ``wanted``."""
    if folder is None or not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            keys = set(state["keys"])
            usable = (isinstance(state, dict) and isinstance(state.get("id"), str) and _BATCH_ID.fullmatch(state["id"])
                      and path.stem == state["id"] and all(isinstance(k, str) for k in keys))
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            usable = False
        if not usable:
            judge._warn(f"{path} is not a batch record groundlab can read; it was left as it is")
            continue
        if state.get("endpoint") == judge.endpoint.display and state.get("model") == judge.model and keys & wanted:
            found.append({"id": state["id"], "keys": keys, "path": path, "resumed": True})
    return found


def _create(judge: "LLMJudge", folder: Optional[Path], chunk: List["_Item"]) -> Dict[str, Any]:
    requests = [{"custom_id": item.key, "params": judge._params(item.request)} for item in chunk]
    try:
        obj = _call(judge, "submit a batch",
                    lambda: _read(judge, judge._client.messages.batches.with_streaming_response.create(requests=requests)))
    except _Gone:
        raise GroundlabError(f"the endpoint {judge.endpoint.display} has no Message Batches API (404 on submitting "
                             "a batch); run without --batch.") from None
    batch_id = obj.get("id") if isinstance(obj, dict) else None
    if not isinstance(batch_id, str) or not _BATCH_ID.fullmatch(batch_id):
        raise GroundlabError(f"the endpoint {judge.endpoint.display} answered the batch submission without a usable "
                             "batch id; check the endpoint, or run without --batch.")
    batch = {"id": batch_id, "keys": {item.key for item in chunk}, "path": None, "resumed": False}
    judge.usage.batches.append(batch_id)
    if folder is not None:
        path = _state_path(folder, batch_id)
        state = {"id": batch_id, "endpoint": judge.endpoint.display, "model": judge.model,
                 "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "keys": sorted(batch["keys"])}
        from ...core.io import write_atomic

        try:
            write_atomic(path, json.dumps(state, indent=1))
            batch["path"] = path
        except (OSError, GroundlabError) as exc:
            judge._warn(f"the id of batch {batch_id} could not be kept in {folder} "
                        f"({getattr(exc, 'strerror', None) or exc}); if this run is interrupted, a rerun pays again")
    return batch


def _follow(judge: "LLMJudge", batches: List[Dict[str, Any]], by_key: Dict[str, "_Item"], out: list,
            leftover: Set[str]) -> None:
    """Poll ``batches`` until each has ended, and take its results (a request two batches hold, as
    when two runs submitted it at once, is taken from the first to end)."""
    taken: Set[str] = set()
    total = sum(len(b["keys"] & set(by_key)) for b in batches)
    label = f"llm judge ({judge.model}), batch{'es' * (len(batches) > 1)} {', '.join(b['id'] for b in batches)}"
    bar = Progress(total, label, judge.progress)
    interval = judge.poll_interval if judge.poll_interval is not None else POLL_INTERVAL
    wait = min(FIRST_POLL, interval)
    try:
        while True:
            processing = 0
            for batch in [b for b in batches if not b.get("done")]:
                try:
                    obj = _call(judge, f"check batch {batch['id']}", lambda b=batch: _read(
                        judge, judge._client.messages.batches.with_streaming_response.retrieve(b["id"])))
                    status = obj.get("processing_status") if isinstance(obj, dict) else None
                    if status not in ("in_progress", "canceling", "ended"):
                        raise GroundlabError(f"the endpoint {judge.endpoint.display} described batch {batch['id']} "
                                             "without a processing status; check the endpoint, or run without --batch.")
                    if status == "ended":
                        _collect(judge, batch, by_key, out, leftover, taken)
                    else:
                        counts = obj.get("request_counts") if isinstance(obj.get("request_counts"), dict) else {}
                        waiting = counts.get("processing")
                        processing += waiting if isinstance(waiting, int) and not isinstance(waiting, bool) else 0
                        continue
                except _Gone:
                    judge._warn(f"the API no longer knows batch {batch['id']}; its requests are sent again")
                    leftover.update(batch["keys"] & set(by_key))
                    batch["keys"] = set()
                batch["done"] = True
                _settle_state(batch, by_key)
            done = sum(len(b["keys"] & set(by_key)) for b in batches if b.get("done"))
            active = [b for b in batches if not b.get("done")]
            bar.set(done, f"{processing:,} processing at the API" if active else "")
            if not active:
                return
            deadline = time.monotonic() + wait
            wait = min(2 * wait, interval)
            while time.monotonic() < deadline:
                time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
                bar.tick()
    finally:
        bar.close()


def _settle_state(batch: Dict[str, Any], by_key: Dict[str, "_Item"]) -> None:
    """Drop a batch's record once its results are taken; keep it, with the requests of other runs
    only, while some of them are not (a later run with those cases takes them)."""
    path = batch.get("path")
    if path is None:
        return
    rest = sorted(batch["keys"] - set(by_key))
    try:
        if rest:
            state = json.loads(path.read_text(encoding="utf-8"))
            state["keys"] = rest
            from ...core.io import write_atomic

            write_atomic(path, json.dumps(state, indent=1))
        else:
            path.unlink()
    except (OSError, ValueError, GroundlabError):
        pass


def _collect(judge: "LLMJudge", batch: Dict[str, Any], by_key: Dict[str, "_Item"], out: list,
             leftover: Set[str], taken: Set[str]) -> None:
    """Take the results of an ended batch: verdicts for this run's requests, cached."""
    wanted = batch["keys"] & set(by_key) - taken
    seen: Set[str] = set()
    problems: List[str] = []

    def take() -> None:
        decoder = judge._client.messages.batches.results(batch["id"])
        try:
            count = 0
            for line in lines(decoder.http_response.iter_bytes(), MAX_REPLY_BYTES + 4096):
                count += 1
                if count > 2 * len(batch["keys"]) + 100:
                    problems.append("more result lines than requests")
                    break
                if isinstance(line, TooLarge):
                    problems.append(str(line))
                    continue
                try:
                    custom_id, kind, payload = batch_result(json.loads(line))
                except (ValueError, RecursionError, Unusable) as exc:
                    problems.append(str(exc) if isinstance(exc, Unusable) else "a result line that is not JSON")
                    continue
                if custom_id not in wanted or custom_id in seen:
                    continue
                seen.add(custom_id)
                _take(judge, by_key[custom_id], kind, payload, out, leftover, problems)
        finally:
            decoder.close()

    _call(judge, f"fetch the results of batch {batch['id']}", take)
    if wanted - seen:
        problems.append(f"{len(wanted - seen)} without a result")
    leftover.update(wanted - seen)
    taken.update(wanted)
    again = len(leftover & wanted)
    detail = "; ".join(kind if n == 1 else f"{kind} \u00d7{n}" for kind, n in _tally(problems).items())
    if again:
        judge._warn(f"batch {batch['id']}: {again} request{'s' * (again != 1)} came back without a usable result "
                    f"({detail}); {'they are' if again != 1 else 'it is'} sent again the normal way, at the normal price")
    elif problems:
        judge._warn(f"batch {batch['id']}: some result lines were skipped ({detail})")


def _tally(problems: List[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for problem in problems:
        counts[problem] = counts.get(problem, 0) + 1
    return counts


def _take(judge: "LLMJudge", item: "_Item", kind: str, payload: Any, out: list, leftover: Set[str],
          problems: List[str]) -> None:
    if kind == "succeeded":
        try:
            reply = read_message(payload, judge._redactor)
        except Unusable as exc:
            problem = f"the batch result could not be read ({judge._redactor.text(str(exc))})"
            judge._place(item, [Verdict(None, problem, error=problem)] * len(item.request.claims), out)
            with judge._lock:
                judge.usage.failed += 1
            return
        verdicts, _ = judge._received(item.request, reply, batched=True)
        judge._place(item, verdicts, out)
        return
    error = payload.get("error") if isinstance(payload, dict) else None
    error = error if isinstance(error, dict) else {}
    if kind == "errored" and error.get("type") == "invalid_request_error":
        message = " ".join(judge._redactor.text(str(error.get("message", ""))).split())[:160]
        problem = f"the batch refused this request (invalid_request_error: {message})"
        hint = judge._table_hint(message)
        if hint:
            problem += f"; {hint}"
        judge._place(item, [Verdict(None, problem, error=problem)] * len(item.request.claims), out)
        with judge._lock:
            judge.usage.failed += 1
        return
    leftover.add(item.key)
    problems.append(f"{kind}{': ' + str(error.get('type'))[:40] if error.get('type') else ''}")


def _read(judge: "LLMJudge", manager: Any) -> Any:
    """The JSON of one streamed response, read within the judge's timeout and the reply limit."""
    deadline = time.monotonic() + judge.timeout
    with manager as response:
        data = read_body(response.iter_bytes(), MAX_REPLY_BYTES, deadline)
        content_type = response.headers.get("content-type")
    return parse_json(data, content_type)


def _call(judge: "LLMJudge", what: str, attempt: Callable[[], Any]) -> Any:
    """``attempt()`` with the judge's retries on 429, 5xx and timeouts; a refusal, a reply that is
    not what the API gives, or the retries spent is one sentence (:class:`GroundlabError`)."""
    import anthropic

    from .endpoint import _retry_after, _transport_errors

    last = "no attempt was made"
    for number in range(judge.max_retries + 1):
        try:
            result = attempt()
        except anthropic.APIStatusError as exc:
            judge._reached()
            status = exc.status_code
            if status in (401, 403):
                judge._refusal(status)  # the key refused: stops the run
            if status == 404:
                raise _Gone() from None
            last = f"HTTP {status}: {judge._short(exc)}"
            if status in (408, 409, 429) or status >= 500:
                judge._sleep(number, _retry_after(exc))
                continue
            raise GroundlabError(f"the API at {judge.endpoint.display} refused to {what} ({last}); run without "
                                 "--batch, or check the endpoint.") from None
        except (anthropic.APIConnectionError, TooSlow, _transport_errors()) as exc:
            last = judge._unreachable_attempt(exc)
            judge._sleep(number, None)
            continue
        except Unusable as exc:
            raise GroundlabError(f"could not {what}: {judge._redactor.text(str(exc))}; check the endpoint, or run "
                                 "without --batch.") from None
        except Exception as exc:  # noqa: BLE001 (what else the SDK makes of an odd answer: one sentence)
            raise GroundlabError(f"could not {what} ({type(exc).__name__}: {judge._short(exc)}); run again later, "
                                 "or without --batch.") from None
        judge._reached()
        return result
    raise GroundlabError(f"could not {what} after {judge.max_retries + 1} attempts ({last}); the batch ids are kept, "
                         "so run again later to pick the batch up.")
