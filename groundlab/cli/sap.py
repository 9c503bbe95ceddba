"""``groundlab sap metric`` and ``groundlab sap dataset``: groundlab's check mirrored as an SAP AI
Core custom metric, and the test data an evaluation reads (docs/sap.md). The work is done in
:mod:`groundlab.production.sap_metric` and :mod:`groundlab.production.sap_dataset`; reading an
evaluation's results back is ``groundlab import results.db``."""

from __future__ import annotations

import argparse

from ..core.records import GroundlabError
from .common import emit, splitter_from, warn
from .options import Parser, claim_options, policy_options, positive_int, positive_number


def add_commands(sub) -> None:
    """Add ``sap metric`` and ``sap dataset`` to the ``groundlab`` subcommands."""
    from ..production.sap_metric import DEFAULT_MODEL, DEFAULT_MODEL_VERSION, DEFAULT_NAME, RUBRIC_TAG

    sap = sub.add_parser("sap", help="SAP AI Core evaluations: write groundlab's metric and the test data "
                                     "(read the results back with 'groundlab import results.db')")
    steps = sap.add_subparsers(dest="step", metavar="STEP", parser_class=Parser, required=True)

    p = steps.add_parser("metric", help="write groundlab's groundedness check as a custom LLM-as-a-judge metric "
                                        "(the body of POST /v2/lm/evaluationMetrics), and push it with --push")
    p.add_argument("--out", metavar="metric.json", help="the file to write the metric's creation body to")
    p.add_argument("--examples", metavar="FILE",
                   help="a labeled cases file to take the few-shot examples from (default: the sample set)")
    p.add_argument("--passages", metavar="FILE", help="the passages its \"retrieved\" ids refer to")
    p.add_argument("--per-rating", type=positive_int, default=1, metavar="N",
                   help="examples for each of the ratings 3, 2 and 1 (default 1)")
    p.add_argument("--model", default=DEFAULT_MODEL, metavar="NAME",
                   help=f"the judge model, pinned by name (default {DEFAULT_MODEL})")
    p.add_argument("--version", default=DEFAULT_MODEL_VERSION, metavar="VERSION",
                   help=f"the judge model's version (default {DEFAULT_MODEL_VERSION})")
    p.add_argument("--name", default=DEFAULT_NAME, metavar="NAME",
                   help=f"the metric's name, ending in the rubric's version ({RUBRIC_TAG}): SAP keys the "
                        "aggregates by name alone, so a name without it is refused, lest the trends of different "
                        f"rubrics mix (default {DEFAULT_NAME})")
    p.add_argument("--metric-version", default="1", metavar="V", help="the metric's own version (default 1)")
    p.add_argument("--push", action="store_true",
                   help="create the metric on the tenant the credentials name, read as SAP's SDK reads them: "
                        "--service-key, else AICORE_AUTH_URL, AICORE_CLIENT_ID, AICORE_CLIENT_SECRET, "
                        "AICORE_BASE_URL and AICORE_RESOURCE_GROUP from the environment or .env, else "
                        "~/.aicore/config.json, else VCAP_SERVICES (docs/sap.md)")
    p.add_argument("--service-key", metavar="FILE",
                   help="the tenant's service key as BTP gives it (JSON: clientid, clientsecret, url, "
                        "serviceurls.AI_API_URL), for --push")
    p.add_argument("--timeout", type=positive_number, default=30.0, metavar="S",
                   help="seconds to wait for each answer of the tenant (default 30)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    policy_options(p)
    claim_options(p.add_argument_group("claims (how the examples' answers split)"))
    p.set_defaults(func=cmd_metric)

    p = steps.add_parser("dataset", help="write an evaluation's test data (testdata/ under --out) from a cases file, "
                                         "people's labels as extra columns; the data policy and masking apply")
    p.add_argument("--cases", required=True, metavar="FILE", help="the cases to evaluate")
    p.add_argument("--passages", metavar="FILE", help="the passages their \"retrieved\" ids refer to")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder of the evaluation's dataset artifact")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="the test data's format (default csv)")
    p.add_argument("--model", default=f"{DEFAULT_MODEL}:{DEFAULT_MODEL_VERSION}", metavar="NAME",
                   help="the evaluation's judge model, as the data policy's models name it "
                        f"(default {DEFAULT_MODEL}:{DEFAULT_MODEL_VERSION})")
    p.add_argument("--endpoint", metavar="URL",
                   help="the tenant's AI API URL, as the data policy's endpoints name it (default: AICORE_BASE_URL "
                        "from the environment or .env)")
    p.add_argument("--force", action="store_true", help="replace the test data file if it exists")
    policy_options(p)
    p.set_defaults(func=cmd_dataset)


def _mask(args: argparse.Namespace):
    names = list(args.mask_name or [])
    return {"policy": args.policy, "mask": bool(args.mask or names), "names": names}


def _endpoint(given):
    if given:
        return given
    from ..judges.llm.endpoint import setting

    return setting("AICORE_BASE_URL")


def cmd_metric(args: argparse.Namespace) -> int:
    from ..core.io import check_output, write_atomic
    from ..production.sap_metric import metric_body, push_metric, tenant_settings

    if not args.out and not args.push:
        raise GroundlabError("give --out metric.json to write the metric, --push to create it on the tenant, or both.")
    if args.passages and not args.examples:
        raise GroundlabError("--passages goes with --examples FILE, the cases it belongs to.")
    inputs = [p for p in (args.examples, args.passages, args.policy) if p]
    if args.out:
        check_output(args.out, args.force, inputs)
    if args.service_key and not args.push:
        raise GroundlabError("--service-key goes with --push, which uses it; add --push or drop --service-key.")
    tenant = tenant_settings(args.service_key) if args.push else None  # a missing setting stops before writing
    if tenant is not None and tenant.note:
        warn(tenant.note)
    metric = metric_body(args.examples, args.passages, name=args.name, version=args.metric_version, model=args.model,
                         model_version=args.version, splitter=splitter_from(args), per_rating=args.per_rating,
                         endpoint=tenant.base_url if tenant else _endpoint(None), **_mask(args))
    lines = [metric.summary()] + metric.notes
    if args.out:
        write_atomic(args.out, metric.text)
        lines.append(f"wrote it to {args.out}.")
    emit("\n".join(lines))
    if tenant is not None:
        emit(str(push_metric(metric.body, tenant, timeout=args.timeout)))
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    from ..production.sap_dataset import write_dataset

    emit(str(write_dataset(args.cases, args.out, passages=args.passages, fmt=args.format, model=args.model,
                           endpoint=_endpoint(args.endpoint), force=args.force, **_mask(args))))
    return 0
