"""Fan CPU-bound work out to forked worker processes, in order, with progress.

Each task runs in a process of its own, forked from this one, so whatever the work needs (the
judge, the passages, loaded cases) is shared, never pickled; only results come back. A worker
reports progress as it goes, and may send parts of its result with it (``report(n, part)``), so
it need not hold its whole result until the end; this process keeps the progress bar, collects
the parts, and may do other work of its own (``while_waiting``) meanwhile.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import traceback
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

from ._gc import paused_gc
from .records import GroundlabError

#: ``report(n, part=None)``: n more items done, with a part of the result when given.
Report = Callable[..., None]


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def in_workers(tasks: Sequence[Any], work: Callable[[Any, Report], Any], progress: Callable[[int], None],
               while_waiting: Optional[Callable[[], None]] = None,
               on_part: Optional[Callable[[int, Any], None]] = None) -> List[Tuple[Any, List[Any]]]:
    """``work(task, report)`` for every task, each in its own forked process; per task, in task
    order, what ``work`` returned and the parts it reported (``on_part(k, part)``: each part is
    handed over as it comes, from task ``k``, and not kept here). A :class:`GroundlabError` in a
    worker is raised here (the first by task order); any other failure is raised as
    ``RuntimeError`` carrying the worker's traceback.

    Stopped before every worker is done (Ctrl-C, a signal this process turns into an exception,
    a worker's error), it ends the workers at once, and they are gone when it returns: none lives
    on holding the caller's pipes or writing a file. The workers leave Ctrl-C to this process."""
    context = multiprocessing.get_context("fork")
    processes, inbox = [], {}
    finished = False
    try:
        for k, task in enumerate(tasks):
            receive, send = context.Pipe(duplex=False)
            # the worker closes the read ends it is forked with: once this process is gone, its
            # writes fail and it ends, rather than wait on a pipe it holds open itself
            process = context.Process(target=_worker, args=(work, task, send, [*inbox, receive]), daemon=True)
            with _stops_held():  # a worker forked is a worker recorded, to be ended on a stop
                process.start()
                processes.append(process)
                inbox[receive] = k
            send.close()
        if while_waiting is not None:
            while_waiting()
        outcomes: List[Any] = [None] * len(tasks)
        parts: List[List[Any]] = [[] for _ in tasks]
        while inbox:
            for connection in wait(list(inbox)):
                k = inbox[connection]
                try:
                    kind, value = connection.recv()
                except EOFError:
                    raise RuntimeError(f"worker {k + 1} of {len(tasks)} stopped without a result "
                                       f"(exit code {processes[k].exitcode})") from None
                if kind == "progress":
                    done, part = value
                    if part is not None:
                        if on_part is not None:
                            on_part(k, part)
                        else:
                            parts[k].append(part)
                    progress(done)
                    continue
                outcomes[k] = (kind, value)
                del inbox[connection]
                connection.close()
        finished = True
        for kind, value in outcomes:
            if kind == "input":
                raise GroundlabError(value)
            if kind == "crash":
                raise RuntimeError(f"a worker process failed:\n{value}")
        return [(value, got) for (_, value), got in zip(outcomes, parts)]
    finally:
        if not finished:
            for process in processes:
                if process.is_alive():
                    process.terminate()
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()


#: The signals that stop a command: Ctrl-C, and those :func:`groundlab.cli.common.stop_on_signals` turns into it.
_STOPS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)


@contextmanager
def _stops_held() -> Iterator[None]:
    """Within the block, a stop signal waits and is acted on as the block ends, as its handler
    would have: a worker forked while Ctrl-C or SIGTERM arrives is then one this process knows and
    ends, not one left running on its own. Only in the main thread, where handlers are set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: List[int] = []
    here = os.getpid()

    def hold(signum: int, frame: Any) -> None:
        if os.getpid() != here:  # a worker just forked, before it sets its own: it ends as a worker does
            if signum != signal.SIGINT:
                os._exit(128 + signum)
            return
        held.append(signum)

    before = {}
    for signum in _STOPS:
        handler = signal.getsignal(signum)
        if handler is None or handler == signal.SIG_IGN:  # not set from Python, or ignored: left as it is
            continue
        before[signum] = signal.signal(signum, hold)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if held:
            handler = before[held[0]]
            if callable(handler):  # Python's Ctrl-C, or a command's own: raises here
                handler(held[0], None)
            else:  # the default action: the process ends as it would have
                signal.raise_signal(held[0])


def _worker(work: Callable[[Any, Report], Any], task: Any, send, forked_ends: Sequence[Any] = ()) -> None:
    # Ctrl-C reaches every process of the terminal: the parent handles it and ends the workers;
    # a SIGTERM (the parent ending them) ends a worker at once, whatever handler it inherited.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for connection in forked_ends:  # the parent's read ends: held here, they would keep a pipe open
        connection.close()
    try:
        try:
            with paused_gc():
                result = work(task, lambda n, part=None: send.send(("progress", (n, part))))
            outcome: Tuple[str, Any] = ("done", result)
        except GroundlabError as error:
            outcome = ("input", str(error))
        except BaseException:  # noqa: B902 - reported to the parent, which raises it
            outcome = ("crash", traceback.format_exc())
        send.send(outcome)
    except OSError:  # the parent is gone (its end of the pipe closed): there is no one to tell
        os._exit(1)
    finally:
        send.close()
