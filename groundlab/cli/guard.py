"""``groundlab guard``: the runtime guard as a filter, one JSON record in, one JSON result out.

Records come one a line on stdin (or from a file): ``{"id"?, "question", "retrieved", "answer"}``.
Each gets one line back as soon as it is judged (written and flushed per record), so the command
can sit behind an application on a pipe. A record that cannot be guarded gets an error line
``{"id": ..., "line": n, "error": "..."}`` and the stream goes on; a blank line gets nothing.
The work is done by :func:`groundlab.guard.guard`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import BinaryIO, Iterator, Optional, Tuple

from ..core.io import json_line, long_number_message, nesting_message
from ..core.records import GroundlabError
from .options import claim_options, judge_options, positive_int

#: The longest record read whole; a longer line is answered with an error and skipped.
MAX_RECORD_BYTES = 8_000_000


def add_commands(sub) -> None:
    """Add ``guard`` to the ``groundlab`` subcommands."""
    from ..production.guard import DEFAULT_MARKER, DEFAULT_NOTICE, MODES, ROUTE_RULES
    from ..production.guard import GUARD_JUDGE
    from ..judges import describe_judges

    p = sub.add_parser("guard", help="judge live answers and flag, hide or route the sentences their passages "
                                     "do not back (JSON lines in, JSON lines out)")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="records, one JSON object a line: {\"id\"?, \"question\", \"retrieved\", \"answer\"} "
                        "(default: stdin)")
    p.add_argument("--mode", choices=MODES, default="flag",
                   help="flag: mark each sentence not backed; hide: replace it with a notice; route: leave the "
                        "text and mark the answer for a person (default: flag)")
    p.add_argument("--route-when", choices=list(ROUTE_RULES), default=None,
                   help="when route_to_person is set: contradicted (any claim contradicts a passage; the default "
                        "of flag and hide), flagged (any claim not backed; the default of route), never")
    p.add_argument("--marker", default=DEFAULT_MARKER, metavar="TEXT",
                   help=f"flag: put after each sentence not backed (default: {DEFAULT_MARKER})")
    p.add_argument("--notice", default=DEFAULT_NOTICE, metavar="TEXT",
                   help=f"hide: stands in for hidden sentences (default: {DEFAULT_NOTICE!r})")
    p.add_argument("--judge", default=GUARD_JUDGE, metavar="NAME",
                   help=f"the judge (default: {GUARD_JUDGE}, as for the other commands: of the offline judges it "
                        "catches most of the hallucinated claims with the fewest false alarms); "
                        + "; ".join(f"{k}: {v}" for k, v in describe_judges().items())
                        + ". signals takes 0.4 to 8 ms an answer, rules 0.5 to 5; llm waits for one request an "
                          "answer, and a claim it cannot judge is flagged")
    p.add_argument("--max-record-bytes", type=positive_int, default=MAX_RECORD_BYTES, metavar="N",
                   help=f"a longer line is answered with an error and skipped (default: {MAX_RECORD_BYTES:,})")
    claim_options(p.add_argument_group("claims"))
    judge_options(p, dry_run=False)
    p.set_defaults(func=cmd_guard)


def cmd_guard(args: argparse.Namespace) -> int:
    from ..production.guard import check_options
    from .common import judge_summary, make_judge, splitter_from

    check_options(args.mode, args.marker, args.notice)
    splitter = splitter_from(args)
    judge = make_judge(args)
    if hasattr(judge, "progress"):
        judge.progress = False  # one answer at a time: a progress bar would only flicker
    source = sys.stdin.buffer if args.input == "-" else _open(args.input)
    if args.input == "-" and sys.stdin.isatty():
        print("groundlab guard: reading records from the terminal, one JSON object a line; Ctrl-D ends.",
              file=sys.stderr)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    try:
        for number, raw in _lines(source, args.max_record_bytes):
            line = _answer(number, raw, args, judge, splitter)
            if out is not None:
                out.write(line)
                out.flush()
            else:  # pragma: no cover - a stdout without a byte layer
                sys.stdout.write(line.decode("utf-8"))
                sys.stdout.flush()
    except KeyboardInterrupt:  # Ctrl-C ends a filter quietly: every finished record was written
        return 130
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    judge_summary(judge)
    return 0


def _open(path: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise GroundlabError(f"records file {path} does not exist; check the path, or pipe the records "
                             "to stdin.") from None
    except IsADirectoryError:
        raise GroundlabError(f"records file {path} is a folder; pass a file of JSON lines.") from None


def _lines(source: BinaryIO, limit: int) -> Iterator[Tuple[int, Optional[bytes]]]:
    """``(line number, bytes)`` for each line, read as soon as it is complete; ``None`` for a line
    longer than ``limit`` bytes, whose rest is skipped without being held."""
    number = 0
    while True:
        raw = source.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = source.readline(1 << 20)
            yield number, None
            continue
        yield number, raw


def _answer(number: int, raw: Optional[bytes], args: argparse.Namespace, judge, splitter) -> bytes:
    """The output line for one input line, UTF-8 (empty for a blank one)."""
    from ..production.guard import guard

    record_id = None
    try:
        record = _record(number, raw, args.max_record_bytes)
        if record is None:
            return b""
        record_id = record.get("id")
        if record_id is not None and (isinstance(record_id, bool) or not isinstance(record_id, (str, int, float))):
            record_id = None
            raise GroundlabError("\"id\" must be a string or a number.")
        if isinstance(record_id, float) and not math.isfinite(record_id):
            record_id = None
            raise GroundlabError("\"id\" is NaN or Infinity, which JSON cannot carry; give the record a string or "
                                 "a finite number as its id.")
        missing = [f for f in ("question", "retrieved", "answer") if f not in record]
        if missing:
            hint = " (rename \"passages\" to \"retrieved\")" if "retrieved" in missing and "passages" in record else ""
            raise GroundlabError(f"the required field \"{missing[0]}\" is missing{hint}; a record needs question, "
                                 "retrieved and answer.")
        from ..core.io import named_value

        classification = named_value("classification", record.get("classification"))  # as score reads it
        result = guard(record["question"], record["retrieved"], record["answer"], judge, args.mode,
                       splitter=splitter, route_when=args.route_when, marker=args.marker, notice=args.notice,
                       classification=classification)
        body = {"id": record_id, "line": number, **result.to_dict()}
    except GroundlabError as exc:
        body = {"id": record_id, "line": number, "error": _sentence(str(exc))}
    except Exception as exc:  # a fault in a judge must not stop the answers behind this one
        body = {"id": record_id, "line": number,
                "error": f"this record could not be guarded ({type(exc).__name__}: {_sentence(str(exc))})"}
    try:
        return _encode(body)
    except ValueError:  # NaN or Infinity in a result (a judge's): strict JSON readers would refuse the line
        return _encode({"id": record_id, "line": number,
                        "error": "the result holds NaN or Infinity, which JSON cannot carry; check the judge's "
                                 "verdicts for this record."})


def _encode(body: dict) -> bytes:
    """One strict JSON line (no NaN or Infinity: :class:`ValueError`), UTF-8."""
    try:
        return json_line(body, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\\ud800") in the record: only escaped JSON can carry it
        return (json.dumps(body, allow_nan=False) + "\n").encode("ascii")


def _record(number: int, raw: Optional[bytes], limit: int) -> Optional[dict]:
    if raw is None:
        raise GroundlabError(f"the line is longer than {limit:,} bytes and was skipped; send shorter records "
                             "or raise --max-record-bytes.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GroundlabError(f"the line is not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                             "send UTF-8.") from None
    if number == 1 and text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GroundlabError(f"the line is not valid JSON ({exc.msg} at column {exc.colno}); send one JSON "
                             "object a line.") from None
    except RecursionError:
        raise GroundlabError(nesting_message("the line")) from None
    except ValueError:
        raise GroundlabError(long_number_message("the line")) from None
    if not isinstance(record, dict):
        raise GroundlabError("the line is not a JSON object; send {\"question\", \"retrieved\", \"answer\"}.")
    return record


def _sentence(text: str) -> str:
    """An error on one line (a record's error must not break the one-record-a-line stream)."""
    return " ".join(text.split())
