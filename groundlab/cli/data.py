"""The ``groundlab import`` and ``groundlab label export|import`` commands.

The work is done in :mod:`groundlab.importers` and :mod:`groundlab.labeling`; this module only
reads the options and prints what was done.
"""

from __future__ import annotations

import argparse

from ..core.records import GroundlabError
from .common import emit, input_paths, make_judge, spending, splitter_from
from .options import Parser, claim_options, common_options, judge_options, model_options_given


def add_commands(sub) -> None:
    """Add ``import`` and ``label`` to the ``groundlab`` subcommands."""
    from ..importers import EVALUATIONS, FORMATS

    p = sub.add_parser("import", help="turn another tool's export (Ragas, DeepEval, Phoenix, LangSmith, Langfuse, "
                                      "promptfoo, TruLens, SAP orchestration) or an answer log into a cases file; an "
                                      "SAP AI Core evaluation's results.db into one a run",
                       usage="%(prog)s [FORMAT] IN --out FILE [options]")
    p.add_argument("input", nargs="+", metavar="IN",
                   help="the file to import (- reads standard input): JSON Lines, JSON, CSV, Parquet, or a "
                        "Hugging Face dataset folder; an older form names the format first: 'import ragas IN'")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--from", dest="tool", metavar="TOOL",
                   help=f"the tool that wrote IN, when it should not be recognised from the content: "
                        f"{', '.join(FORMATS + EVALUATIONS)}")
    p.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN,...",
                   help="read a case field from another column: answer=response,retrieved=contexts "
                        "(fields: id, question, answer, retrieved, retrieved_ids, answerable, labels; a dotted "
                        "name reaches into nested objects, vars.query)")
    p.add_argument("--passage-ids", choices=("P", "index"), default="P",
                   help="how passages the file keeps no id for are named: P1..Pn (P, the default) or 1..n (index, "
                        "so that [1]-style citations match)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="leave out rows that cannot be used (no answer, a malformed list) and say how many, "
                        "instead of refusing the file")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    g = p.add_argument_group("SAP orchestration logs (--from sap)")
    g.add_argument("--passage-id-key", metavar="KEY",
                   help="the grounding metadata key that holds a passage's id, e.g. doc_id (its document_ form is "
                        "read too; default: the key whose values the answers cite, else doc_id, document_id, id, ...)")
    g.add_argument("--prompt-template", metavar="TEXT",
                   help="the template of the request's user message, to find the question in the filled prompt, "
                        "e.g. 'Question: {{?question}}\n\nContext: {{?grounding_response}}' (\n is a line break; "
                        "default: the line labelled Question:, Query: or Request:)")
    g = p.add_argument_group("SAP AI Core evaluations (--from sap-eval): a results.db, or the tracking API's "
                             "aggregated metrics (docs/sap.md)")
    g.add_argument("--run", metavar="NAME",
                   help="the run (its name or id) to import from a results.db holding several; without it, each run "
                        "is written to a file of its own in the folder --out names")
    g.add_argument("--metric", metavar="NAME",
                   help="keep this metric's ratings only (its name as the evaluation stores it, e.g. \"Pointwise RAG "
                        "Groundedness\"); refused when no answer was rated by it")
    g.add_argument("--append", action="store_true",
                   help="aggregated metrics: add their rows to the trend file --out names (a run already there is "
                        "replaced) instead of refusing an existing file")
    claim_options(p.add_argument_group("claims (how citations are found in the answers)"))
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("incident", help="add a reported answer (a complaint about a made-up answer) to a cases file "
                                        "as a labeled case")
    p.add_argument("--cases", required=True, metavar="FILE",
                   help="the cases file to add it to (made when missing); a case id it holds is refused")
    src = p.add_argument_group("the reported answer (one of)")
    src.add_argument("--record", metavar="FILE",
                     help="a file holding the record the guard read (question, retrieved, answer), one JSON object; "
                          "- reads it from standard input")
    src.add_argument("--from-cases", metavar="FILE", help="a cases file (an import's output) to take the case from")
    src.add_argument("--case", metavar="ID", help="with --from-cases: the id of the case to take")
    src.add_argument("--question", help="typed in: the question")
    src.add_argument("--answer", help="typed in: the answer, citations included")
    src.add_argument("--passage", action="append", default=[], metavar="ID=TEXT",
                     help="typed in: a passage the assistant was given (repeatable, in retrieval order)")
    p.add_argument("--labels", required=True, metavar="VERDICT,...",
                   help="the person's verdict on each claim, in order: supported, contradicted or unsupported "
                        "(see 'groundlab check --show-claims' for how an answer splits)")
    p.add_argument("--id", metavar="ID", help="the new case's id (default: the record's own)")
    p.add_argument("--classification", metavar="NAME", help="the case's classification for a data policy")
    p.add_argument("--note", metavar="TEXT", help="what was reported, kept in the case's meta")
    claim_options(p.add_argument_group("claims"))
    p.set_defaults(func=cmd_incident)

    label = sub.add_parser("label", help="labeling for people: export a sheet (or Label Studio / Argilla tasks), "
                                         "fill it, import the labels")
    steps = label.add_subparsers(dest="step", metavar="STEP", parser_class=Parser, required=True)

    p = steps.add_parser("export", help="write a CSV sheet with one row per claim and an empty label column, blind "
                                        "(or tasks for Label Studio or Argilla)")
    common_options(p)
    p.add_argument("--out", required=True, metavar="SHEET.csv|DIR",
                   help="the sheet to write; with --format label-studio or argilla, the folder to write")
    p.add_argument("--format", choices=("csv", "label-studio", "argilla"), default="csv",
                   help="csv: a sheet for a spreadsheet or the labeling view (default); label-studio: tasks.json and "
                        "label-config.xml for a Label Studio project; argilla: records and settings for an Argilla "
                        "2.x dataset (Dataset.from_disk)")
    p.add_argument("--show-judge", action="store_true",
                   help="show the judge's verdict and reason beside each claim (labels made so lean towards the "
                        "judge, and the report says they were made seeing it); without it the sheet is blind")
    p.add_argument("--blind", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument("--guidelines", metavar="FILE",
                   help="the guidelines people label by (default: GUIDELINES.md beside the sheet, written when "
                        "missing); their fingerprint goes on every row")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    judge_options(p, dry_run=False)
    p.set_defaults(func=cmd_label_export)

    p = steps.add_parser("import", help="write the labels and answerable of filled sheets (or Label Studio / Argilla "
                                        "exports) into a new cases file, with two people's agreement")
    p.add_argument("sheets", nargs="+", metavar="LABELS",
                   help="the filled sheet(s): a CSV sheet, Label Studio's JSON export or Argilla's exported records; "
                        "two people's (the second person's sheet beside the first) give their agreement")
    p.add_argument("--cases", required=True, metavar="FILE", help="the cases file the sheet was exported from")
    p.add_argument("--passages", metavar="FILE",
                   help="the passages file the cases' ids refer to, so each row's passages are checked by content "
                        "(inline passages always are; without it, ids are compared)")
    p.add_argument("--out", required=True, metavar="FILE", help="the cases file to write")
    p.add_argument("--partial", action="store_true",
                   help="accept empty labels and missing rows (only fully labeled cases get labels), and leave "
                        "unlabeled the answers labeled against other passages")
    p.add_argument("--mixed-guidelines", action="store_true",
                   help="accept labels made under different guidelines (refused otherwise)")
    p.add_argument("--to-settle", metavar="FILE.csv",
                   help="write the claims people disagree on (or could not tell) as a sheet, to settle in its "
                        "settled column and import beside the others")
    p.add_argument("--force", action="store_true", help="replace --out (and --to-settle) if it exists")
    claim_options(p.add_argument_group("claims (as given to 'label export')"))
    p.set_defaults(func=cmd_label_import)


def cmd_import(args: argparse.Namespace) -> int:
    from ..importers import import_cases, tool_name

    tool = args.tool
    if len(args.input) == 2:  # the older form: groundlab import ragas IN
        named, path = args.input
        named = tool_name(named)
        if tool is not None and tool_name(tool) != named:
            raise GroundlabError(f"the format is named twice, {named} and --from {tool}; give one of them.")
        tool = named
    elif len(args.input) == 1:
        path = args.input[0]
    else:
        raise GroundlabError(f"import takes one input file (or a format and a file), not {len(args.input)}: "
                             f"{' '.join(args.input)}.")
    template = args.prompt_template
    if template is not None:
        template = template.replace("\\n", "\n").replace("\\t", "\t")
    evaluation = {k: v for k, v in (("run", args.run), ("metric", args.metric), ("append", args.append)) if v}
    emit(str(import_cases(path, args.out, tool=tool, force=args.force, mapping=args.map or None,
                          passage_ids=args.passage_ids, skip_invalid=args.skip_invalid,
                          splitter=splitter_from(args), passage_id_key=args.passage_id_key,
                          prompt_template=template, evaluation=evaluation or None)))
    return 0


def cmd_incident(args: argparse.Namespace) -> int:
    import json
    import sys

    from ..production.incidents import add_incident, read_record, reported_case, typed_case

    given = [name for name, value in (("--record", args.record), ("--from-cases", args.from_cases),
                                      ("--question", args.question)) if value is not None]
    if len(given) != 1:
        raise GroundlabError("give the reported answer one way: --record FILE (the record the guard read), "
                             "--from-cases FILE --case ID, or --question, --answer and --passage ID=TEXT.")
    if args.record is not None:
        if args.record == "-":
            try:
                record = json.loads(sys.stdin.read())
            except ValueError:
                raise GroundlabError("standard input is not one JSON object; pipe the record the guard read.") \
                    from None
        else:
            record = read_record(args.record)
        case = reported_case(record, args.record)
    elif args.from_cases is not None:
        if not args.case:
            raise GroundlabError("--from-cases needs --case ID, the case to take.")
        case = reported_case(read_record(args.from_cases, args.case), f"{args.from_cases} case {args.case}",
                             strings_are_ids=True)
    else:
        if args.answer is None:
            raise GroundlabError("--question needs --answer (and --passage ID=TEXT for each passage it was given).")
        case = typed_case(args.question, args.answer, args.passage)
    if args.classification:
        case["classification"] = args.classification
    labels = [part for part in args.labels.split(",") if part.strip()]
    emit(str(add_incident(args.cases, case, labels, case_id=args.id, note=args.note, splitter=splitter_from(args))))
    return 0


def cmd_label_export(args: argparse.Namespace) -> int:
    from ..judges import DEFAULT_JUDGE
    from ..labeling.sheet import export_sheet
    from ..labeling.tools import export_for_tool

    cases, passages = input_paths(args)
    judge = None
    if args.blind and args.show_judge:
        raise GroundlabError("--blind and --show-judge say opposite things; the sheet is blind by default: drop one.")
    if not args.show_judge:
        given = model_options_given(args) + (["--judge"] if args.judge != DEFAULT_JUDGE else [])
        if given:
            one = len(given) == 1
            raise GroundlabError(f"{', '.join(given)} choose{'s' * one} the judge whose suggestions the sheet shows, and "
                                 "the sheet is blind by default; add --show-judge to show them, or drop "
                                 f"{'it' if one else 'them'}.")
    else:
        # The options of `score`, so replies a `score --judge llm` run cached are found again.
        judge = make_judge(args)
    with spending(judge):
        if args.format == "csv":
            report = export_sheet(cases, args.out, passages=passages, judge=judge, splitter=splitter_from(args),
                                  force=args.force, guidelines=args.guidelines)
        else:
            report = export_for_tool(cases, args.out, args.format, passages=passages, judge=judge,
                                     splitter=splitter_from(args), force=args.force, guidelines=args.guidelines)
    if args.format == "csv":
        emit(f"{report}\nFill the label column (or open it in the labeling view: groundlab.labeling.view), then run "
             f"'groundlab label import {report.out} --cases {cases} --out LABELED.jsonl'.")
    else:
        emit(f"{report}\nLabel them there, export the results as JSON, then run 'groundlab label import EXPORT.json "
             f"--cases {cases} --out LABELED.jsonl'.")
    return 0


def cmd_label_import(args: argparse.Namespace) -> int:
    from ..labeling.importing import import_labels

    emit(str(import_labels(args.sheets, args.cases, args.out, partial=args.partial, force=args.force,
                           splitter=splitter_from(args), passages=args.passages,
                           mixed_guidelines=args.mixed_guidelines, to_settle=args.to_settle)))
    return 0
