"""The options several commands share, the argparse parser that reports a mistake in one sentence,
and the converters of option values."""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import Dict

from ..records import GroundlabError


def input_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    g = parser.add_argument_group("input")
    g.add_argument("--cases", metavar="FILE",
                   help="cases, one JSON object a line (default: data/grounded_cases.jsonl, "
                        "else the sample set shipped with groundlab)")
    g.add_argument("--passages", metavar="FILE",
                   help="passages the cases' \"retrieved\" ids refer to (default with the default "
                        "cases: data/notes.jsonl)")
    return g


def common_options(parser: argparse.ArgumentParser) -> None:
    from ..judges import DEFAULT_JUDGE, describe_judges

    g = input_options(parser)
    g.add_argument("--judge", default=DEFAULT_JUDGE, metavar="NAME",
                   help="; ".join(f"{k}: {v}" for k, v in describe_judges().items()))
    g.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="processes that read and judge a large cases file (5 MB or more) with the "
                        "offline judges: signals, rules, lexical (default: one per core)")
    claim_options(g)


def claim_options(group: argparse._ArgumentGroup) -> None:
    """How answers are split into claims: the citation pattern and extra abstention wordings."""
    group.add_argument("--citation-pattern", metavar="REGEX",
                       help=r"how citations are written, one group capturing the id(s) "
                            r"(default: \[D07\], \[D07, D06\])")
    group.add_argument("--abstention-phrase", metavar="REGEX", action="append", default=[],
                       help="another wording that means the assistant cannot answer (repeatable; "
                            "added to the built-in ones)")


def judge_options(parser: argparse.ArgumentParser, dry_run: bool = True) -> None:
    g = parser.add_argument_group("judge settings (signals, llm, nli)")
    g.add_argument("--judge-config", metavar="JUDGE.json",
                   help="signals: the weights and threshold 'groundlab calibrate' fitted on your labels "
                        "(default: the ones shipped with groundlab)")
    g.add_argument("--model", metavar="NAME",
                   help="llm: the model (default: $LLM_MODEL, else claude-opus-5-5); nli: a local model "
                        "folder or a name in the local Hugging Face cache")
    g.add_argument("--cache", metavar="DIR", help="llm: where replies are kept (default: .groundlab/cache)")
    g.add_argument("--no-cache", action="store_true", help="llm: neither read nor write the cache")
    g.add_argument("--concurrency", type=positive_int, metavar="N",
                   help="llm: requests in flight at once (default 4)")
    if dry_run:
        g.add_argument("--dry-run", action="store_true",
                       help="llm: print the requests and input tokens a run would cost, and send nothing")


def judge_kwargs(args: argparse.Namespace, cache: bool = True) -> Dict:
    """The options of ``--judge``; one given to a judge that has no use for it is a mistake."""
    dry_run = getattr(args, "dry_run", False)
    config = getattr(args, "judge_config", None)
    given = {"--model": args.model, "--cache": args.cache, "--no-cache": args.no_cache,
             "--concurrency": args.concurrency, "--dry-run": dry_run, "--judge-config": config}
    allowed = {"llm": set(given) - {"--judge-config"}, "nli": {"--model"},
               "signals": {"--judge-config"}}.get(args.judge, set())
    extra = [k for k, v in given.items() if v not in (None, False) and k not in allowed]
    if extra:
        fits = "signals" if extra[0] == "--judge-config" else "llm"
        raise GroundlabError(f"{extra[0]} does not apply to the {args.judge} judge; "
                             f"drop it{f' or use --judge {fits}' if args.judge != fits else ''}.")
    kwargs: Dict = {"model": args.model} if args.model else {}
    if config:
        kwargs["config"] = config
    if args.judge == "llm":
        if args.no_cache or not cache:
            kwargs["cache"] = None
        elif args.cache:
            kwargs["cache"] = args.cache
        if args.concurrency:
            kwargs["concurrency"] = args.concurrency
        kwargs["dry_run"] = dry_run
    return kwargs


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None


def fraction(text: str) -> float:
    """A rate or margin written 0.6 or 60%."""
    body = text.strip()
    scale = 100.0 if body.endswith("%") else 1.0
    try:
        value = float(body.rstrip("%")) / scale
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a number like 0.6 or 60%, not {text!r}")
    return value


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one sentence (exit 2) instead of a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        match = re.match(r"argument (\S+): (.*)", message)
        if match:  # "argument --penalty: must be a number" -> "--penalty must be a number"
            option, rest = match.groups()
            message = rest if rest.startswith("invalid choice") else f"{option.split('/')[0]} {rest}"
        sys.stderr.write(f"groundlab: {message} (see '{self.prog} --help').\n")
        raise SystemExit(2)
