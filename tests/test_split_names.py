"""The modules split into rooms of one job each keep every name they had: what a notebook, a
test, a doc or another module imports from the old module still comes from there. The lists are
the public names each module had before its split (every name of ``dir()`` not starting with an
underscore, less the modules and the names of other libraries it had imported), and the few
underscored ones other modules of the package, the tests or the bench scripts import from it."""

import importlib

import pytest

NAMES = {
    "groundlab.measure.evaluate": [
        "CASE_COLUMNS", "CHUNK", "CLAIM_COLUMNS", "Case", "Claim", "ClaimSplitter", "DEFAULT_JUDGE", "EXTRA_COLUMNS",
        "Evaluation", "Evidence", "InputError", "Judge", "META_DEPTH", "PARALLEL_MIN", "PARALLEL_MIN_BYTES", "Passage",
        "Split", "SplitCache", "Verdict", "can_fork", "claim_kinds", "claim_pairs", "count_file", "count_part",
        "duplicate_id_message", "empty_cases_message", "evaluate", "evaluate_file", "in_workers", "is_regular_file",
        "iter_cases", "judge_pairs", "judged_chunks", "label_count_message", "load_cases", "merge_parts",
        "passage_table", "paused_gc", "positional_aliases", "resolve_aliases", "shorten", "split_cases", "split_file",
        "streams", "_empty_columns", "_judge_chunk"
    ],
    "groundlab.present.report": [
        "DETAILS_ANCHOR", "Evaluation", "GLOSSARY", "GroundlabError", "LABEL_OF", "MARGIN", "MARKER", "Rate",
        "ReportParts", "ReportText", "Tile", "agree_summary", "apart_lines", "bar_text", "breakdown_lines",
        "case_anchor", "check_output", "check_report_target", "citations_undecided", "code_span",
        "comparison_tile", "decision_line", "decision_tiles", "has_person_labels", "headline_line",
        "html_report", "identity_line", "markdown_text", "outcomes", "panel_markdown", "percent", "rate_line",
        "rates", "report_parts", "risk_weighted_score", "score_summary", "steering_report", "target_lines",
        "write_atomic", "write_report"
    ],
    "groundlab.present.workbook": [
        "AS_IT_IS", "CLAIMS_PAGE", "Case", "ClaimExplorer", "ClaimSplitter", "ConfigurationComparison",
        "DEFAULT_JUDGE", "EXPLORER_FILTERS", "Evaluation", "GroundlabError", "JudgeComparison", "JudgeLine",
        "MAX_CURVE_POINTS", "Rate", "SAMPLE_PAIR", "Sentences", "SteeringReport", "THRESHOLD_STEPS", "Table",
        "TargetCheck", "UndefinedRateWarning", "VERDICTS", "WITHHOLDS", "abstentions", "agreement",
        "agreement_frame", "answers_needed", "breakdown_table", "case_cards", "changed_questions",
        "check_cases", "check_judge_config", "check_names", "check_targets", "citation_problems",
        "citation_table", "claim_explorer", "claim_splitter", "claims_to_explore", "code_span",
        "compare_files", "compare_judges", "comparison_for_report", "comparison_outcomes",
        "comparison_sentences", "comparison_table", "confusion_frame", "confusion_frames",
        "disagreement_table", "disagreements", "evaluate", "evaluate_files", "guard_examples",
        "guard_outcome_table", "guarded_judge", "hallucination_rate", "has_person_labels", "headline_table",
        "interactive_tables", "interval_bounds", "interval_half_width", "interval_width_frame",
        "judge_config_options", "judge_line", "judge_table", "judge_threshold", "judged_cases",
        "judged_inputs", "load_cases", "load_judged", "make_judge", "nothing_judged", "one_sided_table",
        "outcome_table", "outcomes", "penalty_curve", "percent", "plan_answers", "plan_table", "rate_table",
        "rates", "rates_frame", "read_targets", "reliability_frame", "report_figures", "risk_weighted_score",
        "roc_frame", "run_summary", "save_judged", "score_table", "sha256_file", "split_cases",
        "steering_report", "style_verdicts", "styled_rates", "table", "threshold_moves", "threshold_points",
        "verdict_counts", "verdict_differences", "verdict_frame", "verdict_table", "write_report",
        "write_steering_report"
    ],
    "groundlab.cli.measure": [
        "GroundlabError", "add_commands", "cmd_agree", "cmd_check", "cmd_merge", "cmd_plan", "cmd_score",
        "common_options", "dry_run", "emit", "error_lines", "evaluate_inputs", "fraction", "input_paths",
        "judge_options", "load_inputs", "make_judge", "number", "percent", "positive_int", "print_counts",
        "rate_row", "splitter_from", "table", "visible", "_severity"
    ],
    "groundlab.measure.compare": [
        "BASELINE_COLUMNS", "BETTER", "Baseline", "CLUSTERED", "Case", "Comparison", "DEFAULT_JUDGE",
        "Evaluation", "FAITHFULNESS_NOTE", "GroundlabError", "InputError", "JudgeDiff", "LABELS", "MCNEMAR",
        "MeasureComparison", "NEWCOMBE", "PAIR_BY", "Pairing", "Rate", "SHOWN_IDS", "VERDICTS", "WALD",
        "claim_verdicts", "clustered_faithfulness", "compare", "compare_evaluations", "compare_rows",
        "evaluate", "figure_value", "from_csv_cell", "json_problem", "judge_diff", "left_out_words",
        "load_cases", "mcnemar_exact", "p_text", "pair_cases", "paired_difference", "paired_proportion",
        "percent", "points", "rate_figures", "read_baseline"
    ],
    "groundlab.judges.signals": [
        "CJK_CHARS", "CONFIG_KIND", "CONFLICTS", "DEFAULT_CONFIG", "Evidence", "FEATURES", "FEATURE_SIGNS",
        "FOREIGN_STOP_WORDS", "FRAMING", "Framed", "GroundlabError", "JudgeConfig", "LEAD_IN", "MAX_CONFIG_BYTES",
        "Mention", "NEGATIONS", "PASSAGE_REFERENCE", "STOP_WORDS", "Signals", "SignalsJudge", "Verdict",
        "character_pairs", "check_config", "clean_text", "digit_shape", "distinct", "frame", "language",
        "load_config", "mentions", "number_verdict", "ordinal_words", "split_sentences", "stem", "_AMOUNT_NEXT",
        "_Claim", "_Context", "_LETTERS", "_LOWER_WORD", "_REFERENCE_HINT", "_WORDS_OF", "_claim",
        "_claim_language", "_claim_words", "_conflict_terms", "_evidence", "_framed", "_passage_piece",
        "_passages_context", "_question", "_read_words", "_shipped", "_terms", "_with_question"
    ],
    "groundlab.core.claims": [
        "ABBREVIATIONS", "ABSTENTION_PHRASES", "AbstentionPhrase", "CJK_CHARS", "CLOSING_PHRASES", "Claim",
        "ClaimSplitter", "DEFAULT_ABSTENTION_PHRASES", "DEFAULT_CITATION_PATTERN", "DEFAULT_CITATION_PATTERNS",
        "DEFAULT_LANGUAGE", "GroundlabError", "INVISIBLE", "LEADING_ANSWER", "Sentence", "Split", "bare_answer",
        "character_pairs", "citation_regex", "claim_splitter", "fallback", "is_closing", "looks_like_refusal",
        "positional_aliases", "premise", "sentences", "shorten", "split_sentences", "_sentences"
    ],
    "groundlab.core.io": [
        "Case", "IMPORT_HINT", "InputError", "MAX_DOCUMENT_BYTES", "MAX_LINES", "MAX_LINE_BYTES", "Passage",
        "STDIN", "VERDICTS", "cases_of_rows", "check_output", "decode_text", "display_name",
        "duplicate_id_message", "empty_cases_message", "find_repeated_id", "input_mode", "is_regular_file",
        "is_stdin", "iter_cases", "iter_jsonl", "json_problem", "jsonl_objects", "load_cases",
        "load_cases_with_records", "load_passages", "long_number_message", "named_value", "narrower_umask",
        "nesting_message", "new_file_mode", "open_input", "outputs_like", "parse_csv", "parse_labels",
        "passage_table", "paused_gc", "plural", "read_bytes", "read_cases_once", "read_csv", "read_table",
        "read_text", "replace_atomic", "sample_path", "sha256_file", "sha256_text", "split_file",
        "wide_encoding", "wide_text_message", "write_atomic", "PathLike", "Span", "_case", "_json_type",
        "_json_value", "_mb"
    ],
}


@pytest.mark.parametrize("module", sorted(NAMES))
def test_every_name_the_module_had_is_still_there(module):
    loaded = importlib.import_module(module)
    missing = [name for name in NAMES[module] if not hasattr(loaded, name)]
    assert missing == [], f"{module} no longer has {missing}"


@pytest.mark.parametrize("module", sorted(NAMES))
def test_each_name_is_the_object_of_its_new_home(module):
    """A re-exported name is the very object (one class, one function), so a pickle or an
    ``isinstance`` that names the old path and one that names the new agree."""
    loaded = importlib.import_module(module)
    for name in NAMES[module]:
        value = getattr(loaded, name)
        home = getattr(value, "__module__", None)
        if isinstance(home, str) and home != module and home.startswith("groundlab.") \
                and callable(value) and hasattr(importlib.import_module(home), name):
            assert getattr(importlib.import_module(home), name) is value, (module, name)
