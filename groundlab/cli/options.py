"""The options several commands share, the argparse parser that reports a mistake in one sentence,
and the converters of option values."""

from __future__ import annotations

import argparse
import math
import re
import shlex
import sys
from typing import Dict, List

from ..core.records import GroundlabError


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
                   help=f"the judge (default: {DEFAULT_JUDGE}); "
                        + "; ".join(f"{k}: {v}" for k, v in describe_judges().items()))
    g.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="processes that read and judge a large cases file (5 MB or more) with the "
                        "offline judges: signals, rules, lexical (default: one per core)")
    claim_options(g)


def claim_options(group: argparse._ArgumentGroup) -> None:
    """How answers are split into claims: the citation pattern, extra abstention wordings and the
    language to split in."""
    group.add_argument("--citation-pattern", metavar="REGEX",
                       help=r"another way your answers write citations, one group capturing the id(s); read "
                            r"beside the built-in styles (\[D07\], \[D07, D06\], \[^1\], 【1】, (Source: KB-3), "
                            r"(see KB-5), (Passage 2), a closing 'Sources: \[1\]\[2\]' line)")
    group.add_argument("--no-default-citations", dest="default_citations", action="store_false",
                       help="read citations with --citation-pattern alone, not the built-in styles")
    group.add_argument("--abstention-phrase", metavar="REGEX", action="append", default=[],
                       help="another wording that means the assistant cannot answer (repeatable; "
                            "added to the built-in ones)")
    group.add_argument("--language", metavar="LANG", default="auto",
                       help="the language answers are split in, for its dates, ordinals and abbreviations: "
                            "auto (default: each answer's own), en, de, fr or es")


def policy_options(parser: argparse.ArgumentParser) -> None:
    """``--policy``, ``--mask`` and ``--mask-name``: the data policy and masking every judge of a
    command stands behind (docs/sensitive-logs.md)."""
    g = parser.add_argument_group("data policy and masking (docs/sensitive-logs.md)")
    g.add_argument("--policy", metavar="POLICY.toml",
                   help="which judges, models and endpoints each classification of case may go to; a case it keeps "
                        "from the judge is judged by the offline judge it allows, or left unjudged, and counted")
    g.add_argument("--mask", action="store_true",
                   help="mask e-mail addresses, phone numbers, IBANs, card numbers (and --mask-name names) before "
                        "anything goes to a model, and restore them in what groundlab writes")
    g.add_argument("--mask-name", action="append", default=[], metavar="NAME",
                   help="a name to mask as well (repeatable; implies --mask)")


def judge_options(parser: argparse.ArgumentParser, dry_run: bool = True) -> None:
    g = parser.add_argument_group("judge settings (signals, llm, nli, entail, combined)")
    g.add_argument("--judge-config", metavar="JUDGE.json",
                   help="signals: the weights and threshold 'groundlab calibrate' fitted on your labels "
                        "(default: the ones shipped with groundlab); combined: the weights bench/fit_combined.py "
                        "wrote")
    g.add_argument("--model", metavar="NAME",
                   help="llm: the model (default: $LLM_MODEL, else claude-sonnet-5-5, or with --provider "
                        "sap-ai-core anthropic--claude-4-sonnet; a hub model as NAME or NAME:VERSION); nli: a local "
                        "model folder or a name in the local Hugging Face cache; entail and combined: a model folder "
                        "bench/train_entail.py wrote (default: the one shipped with groundlab)")
    g.add_argument("--provider", metavar="NAME",
                   help="llm: where the requests go: anthropic (Anthropic's API) or sap-ai-core (the orchestration "
                        "service of an SAP AI Core tenant, its generative AI hub's models; docs/sap.md) (default: "
                        "$LLM_PROVIDER, else anthropic)")
    g.add_argument("--service-key", metavar="FILE",
                   help="llm on sap-ai-core: the tenant's service key as BTP gives it (JSON: clientid, clientsecret, "
                        "url, serviceurls.AI_API_URL) (default: AICORE_* in the environment or .env, else "
                        "~/.aicore/config.json, else VCAP_SERVICES)")
    g.add_argument("--deployment-id", metavar="ID",
                   help="llm on sap-ai-core: the orchestration deployment to use (default: $AICORE_DEPLOYMENT_ID, "
                        "else the running one of the resource group, AICORE_RESOURCE_GROUP)")
    g.add_argument("--cache", metavar="DIR", help="llm: where replies are kept (default: .groundlab/cache)")
    g.add_argument("--no-cache", action="store_true", help="llm: neither read nor write the cache")
    g.add_argument("--concurrency", type=positive_int, metavar="N",
                   help="llm: requests in flight at once (default 4)")
    g.add_argument("--timeout", type=positive_number, metavar="S",
                   help="llm: seconds one request may take, to the last byte of its reply (default 60, 120 for "
                        "a model that thinks); 5 requests in a row that time out or cannot connect stop the run")
    g.add_argument("--base-url", metavar="URL",
                   help="llm: the API endpoint (default: ANTHROPIC_BASE_URL where the key is set, the "
                        "environment or .env, else https://api.anthropic.com)")
    g.add_argument("--batch", action="store_true",
                   help="llm: send the requests through the Message Batches API, at half the price; "
                        "results can take up to 24 hours, and an interrupted run resumes the same batch")
    g.add_argument("--price-table", metavar="FILE",
                   help="llm: a JSON price table laid over the built-in one (default: $GROUNDLAB_PRICE_TABLE)")
    g.add_argument("--model-table", metavar="FILE",
                   help="llm: a JSON table of what each model accepts (forced tool call, temperature, thinking, "
                        "JSON output, effort), laid over the built-in one (default: $GROUNDLAB_MODEL_TABLE)")
    if dry_run:
        g.add_argument("--dry-run", action="store_true",
                       help="llm: print the requests, tokens and price a run would cost, and send nothing")
    policy_options(parser)
    g = parser.add_argument_group("cascade judge (--judge cascade)")
    g.add_argument("--first", metavar="NAME", help="the judge run on every claim (default rules)")
    g.add_argument("--then", metavar="NAME",
                   help="the judge run on the answers the first flags and on the audit (default llm); the model "
                        "options above apply to it")
    g.add_argument("--audit", type=fraction, metavar="SHARE",
                   help="the share of the answers the first judge passes that the second judge checks as well, "
                        "as 0.1 or 10%% (default 0.1)")
    g.add_argument("--seed", type=int, metavar="N",
                   help="seeds the audit draw (default 0): the same seed, the same answers")


#: The judges' own options, as ``judge_options`` adds them: ``--option`` -> its attribute (all but
#: ``--judge-config`` are the model judges').
MODEL_OPTIONS = {"--model": "model", "--provider": "provider", "--service-key": "service_key",
                 "--deployment-id": "deployment_id", "--cache": "cache", "--no-cache": "no_cache", "--concurrency": "concurrency",
                 "--timeout": "timeout", "--base-url": "base_url", "--batch": "batch", "--price-table": "price_table",
                 "--model-table": "model_table", "--dry-run": "dry_run", "--judge-config": "judge_config"}


def model_options_given(args: argparse.Namespace) -> List[str]:
    """The model judges' options given on the command line, in the order ``--help`` lists them."""
    return [option for option, name in MODEL_OPTIONS.items() if getattr(args, name, None) not in (None, False)]


def judge_kwargs(args: argparse.Namespace, cache: bool = True) -> Dict:
    """The options of ``--judge``; one given to a judge that has no use for it is a mistake."""
    if args.judge == "cascade" or any(getattr(args, k, None) is not None for k in _CASCADE_OPTIONS):
        return cascade_kwargs(args, cache)
    dry_run = getattr(args, "dry_run", False)
    config = getattr(args, "judge_config", None)
    allowed = {"llm": set(MODEL_OPTIONS) - {"--judge-config"}, "nli": {"--model"},
               "entail": {"--model"}, "combined": {"--model", "--judge-config"},
               "signals": {"--judge-config"}}.get(args.judge, set())
    extra = [option for option in model_options_given(args) if option not in allowed]
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
        options = {"concurrency": args.concurrency, "timeout": args.timeout, "base_url": args.base_url,
                   "price_table": args.price_table, "model_table": args.model_table, "provider": args.provider,
                   "service_key": args.service_key, "deployment_id": args.deployment_id}
        kwargs.update({k: v for k, v in options.items() if v is not None})
        kwargs["batch"] = args.batch
        kwargs["dry_run"] = dry_run
    return kwargs


_CASCADE_OPTIONS = ("first", "then", "audit", "seed")


def cascade_kwargs(args: argparse.Namespace, cache: bool = True) -> Dict:
    """The options of ``--judge cascade``: ``--first``, ``--then``, ``--audit``, ``--seed``, and the
    model options, which go to the model judge of the two (the second when both are)."""
    if args.judge != "cascade":
        option = next(k for k in _CASCADE_OPTIONS if getattr(args, k, None) is not None)
        raise GroundlabError(f"--{option} applies to --judge cascade only; drop it or use --judge cascade.")
    if getattr(args, "dry_run", False):
        raise GroundlabError("--dry-run does not apply to the cascade judge (what it sends depends on the first "
                             "judge's verdicts); drop it, or dry-run --judge llm for the cost of judging every claim.")
    first, then = args.first or "rules", args.then or "llm"
    kwargs: Dict = {"first": first, "then": then}
    if args.audit is not None:
        kwargs["audit"] = args.audit
    if args.seed is not None:
        kwargs["seed"] = args.seed
    models = ("llm", "nli", "entail", "combined")
    target = then if then in models or first not in models else first
    options = judge_kwargs(argparse.Namespace(**dict(vars(args), judge=target, first=None, then=None, audit=None,
                                                     seed=None)), cache)
    if options:
        kwargs["then_options" if target == then else "first_options"] = options
    return kwargs


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a number above 0, not {text!r}")
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

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            words = [e for e in extras if not e.startswith("-")]
            command = " ".join(str(w) for w in (getattr(parsed, "command", None), getattr(parsed, "step", None)) if w)
            if words and command and hasattr(parsed, "cases") and getattr(parsed, "cases", None) is None:
                self.error(f"{command} reads the cases file from --cases, not as a word of its own: "
                           f"groundlab {command} --cases {shlex.quote(words[0])}")
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def error(self, message: str) -> None:  # type: ignore[override]
        match = re.match(r"argument (\S+): (.*)", message)
        if match:  # "argument --penalty: must be a number" -> "--penalty must be a number"
            option, rest = match.groups()
            message = rest if rest.startswith("invalid choice") else f"{option.split('/')[0]} {rest}"
        sys.stderr.write(f"groundlab: {message} (see '{self.prog} --help').\n")
        raise SystemExit(2)
