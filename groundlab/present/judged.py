"""One judged result per run: the cases judged once by every judge a run's notebooks need, kept
in a file (:func:`save_judged`) that each notebook loads (:func:`load_judged`) only when it was
judged from the very same cases, passages, claim settings, data policy and judge config
(:func:`judged_inputs`), else judged here (:func:`judged_cases`).

The file is a pickle: load only one a groundlab run wrote (it is the run's own file).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence

from ..core.claims import claim_splitter
from ..measure.evaluate import Evaluation
from ..core.io import PathLike, load_cases, sha256_file
from ..core.records import Case, GroundlabError
from .judge_comparison import JudgeComparison, check_judge_config, compare_judges


#: What a file written by :func:`save_judged` starts with.
_JUDGED_KIND = "groundlab judged result"


def judged_inputs(cases: PathLike, passages: Optional[PathLike], citation_pattern: Optional[str] = "",
                  abstention_phrases: Sequence[str] = (), default_citations: bool = True, language: str = "auto", *,
                  policy: Optional[PathLike] = None, mask: bool = False,
                  mask_names: Sequence[str] = ()) -> Dict[str, Any]:
    """What decides a judged result: the content of the cases and passages files, how answers
    were split, and the data policy and masking the judges stood behind. A shared result is used
    only for exactly these."""
    inputs = {"cases": _file_digest(cases), "passages": _file_digest(passages) if passages else "",
              "citation_pattern": citation_pattern or "", "abstention_phrases": list(abstention_phrases or []),
              "default_citations": bool(default_citations)}
    if language and language != "auto":  # answers split in one language asked for, not each in its own
        inputs["language"] = language
    if policy is not None and str(policy).strip():
        inputs["policy"] = _file_digest(policy)
    if mask or mask_names:
        inputs["mask"] = sorted(set(mask_names or ()))
    return inputs


def _file_digest(path: PathLike) -> str:
    try:
        return sha256_file(path)
    except OSError as exc:
        raise GroundlabError(f"cannot read {path} ({exc.strerror or exc}); check the path and run again.") from None


def save_judged(path: PathLike, comparison: JudgeComparison, inputs: Mapping[str, Any]) -> Path:
    """Keep a judged result (every judge's claim and case frames) for the notebooks of one run, so
    the cases are judged once, not once per notebook. ``inputs``: :func:`judged_inputs`."""
    from ..core.outputs import write_bytes

    data = {"kind": _JUDGED_KIND, "version": 1, "inputs": dict(inputs),
            "evaluations": comparison.evaluations, "unavailable": comparison.unavailable}
    return write_bytes(path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))


def load_judged(path: PathLike, inputs: Mapping[str, Any]) -> JudgeComparison:
    """A judged result :func:`save_judged` wrote, checked to be of these ``inputs``.

    The file is a pickle: load only one a groundlab run wrote (it is the run's own file).
    """
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
    except OSError as exc:
        raise GroundlabError(f"judged_file {path} cannot be read ({exc.strerror or exc}); leave judged_file "
                             "empty to judge the cases here.") from None
    except Exception:  # not a pickle, or one of another version of groundlab
        data = None
    if not isinstance(data, dict) or data.get("kind") != _JUDGED_KIND:
        raise GroundlabError(f"judged_file {path} is not a judged result groundlab run wrote; leave judged_file "
                             "empty to judge the cases here.")
    if data.get("inputs") != dict(inputs):
        raise GroundlabError(f"judged_file {path} was judged from other cases, passages or claim settings than "
                             "these; leave judged_file empty to judge the cases here.")
    return JudgeComparison(dict(data["evaluations"]), dict(data["unavailable"]))


def judged_cases(cases: PathLike, passages: Optional[PathLike], judges: Iterable[str], *,
                 judged_file: PathLike = "", citation_pattern: Optional[str] = "",
                 abstention_phrases: Sequence[str] = (), judge_config: Optional[PathLike] = None,
                 default_citations: bool = True, policy: Optional[PathLike] = "", mask: bool = False,
                 mask_names: Sequence[str] = (), loaded: Optional[Sequence[Case]] = None,
                 provider: Optional[str] = "", language: str = "auto") -> JudgeComparison:
    """The cases judged by each of ``judges``: from ``judged_file`` (the result ``groundlab run``
    judged once for all its notebooks) when one is given, else judged here. ``loaded``: the cases
    of ``cases`` when the caller has read them already, so the file is not read again.

    A judge the shared result does not hold is judged here; a judge that cannot run here, or
    judged nothing, is named in ``unavailable``. ``judge_config`` gives the signals judge the
    weights of a file ``groundlab calibrate`` wrote (``""``: the shipped ones; ``None``: whatever
    the shared result was judged with); a shared result judged with other weights is refused.
    ``policy``, ``mask`` and ``mask_names``: the data policy and masking every judge stands behind
    (:func:`compare_judges`); a shared result judged behind another policy is refused.
    ``provider``: where the llm judge's requests go (empty: ``$LLM_PROVIDER``, else
    ``anthropic``); a shared result whose llm judge went elsewhere is refused. ``language``: the
    language answers are split in (``"auto"``: each answer's own; ``"de"``, ``"en"``, ``"fr"``, ``"es"``).
    """
    guarded = {"policy": policy, "mask": mask, "mask_names": mask_names}
    judges = list(dict.fromkeys(judges))
    read = (lambda: list(loaded)) if loaded is not None else (lambda: load_cases(cases, passages or None))
    splitter = claim_splitter(citation_pattern, abstention_phrases, default_citations=default_citations,
                              language=language)
    passages = passages or None
    if judge_config is not None:
        check_judge_config(judge_config, judges)
    if str(judged_file).strip():
        comparison = load_judged(judged_file, judged_inputs(cases, passages, citation_pattern, abstention_phrases,
                                                            default_citations, splitter.language, **guarded))
        if judge_config is not None and "signals" in comparison.evaluations:
            _check_shared_config(judged_file, comparison.evaluations["signals"], judge_config)
        if provider and str(provider).strip() and "llm" in comparison.evaluations:
            _check_shared_provider(judged_file, comparison.evaluations["llm"], str(provider).strip())
        missing = [j for j in judges if j not in comparison.evaluations and j not in comparison.unavailable]
        if missing:
            extra = compare_judges(read(), missing, splitter, judge_config, provider=provider, **guarded)
            comparison.evaluations.update(extra.evaluations)
            comparison.unavailable.update(extra.unavailable)
        comparison.evaluations = {j: comparison.evaluations[j] for j in judges if j in comparison.evaluations}
        comparison.unavailable = {j: comparison.unavailable[j] for j in judges if j in comparison.unavailable}
        origin = "Verdicts from the run's shared result, judged once for all its notebooks."
    else:
        comparison = compare_judges(read(), judges, splitter, judge_config, provider=provider, **guarded)
        origin = ""
    comparison.cases_path, comparison.passages_path, comparison.origin = str(cases), str(passages or ""), origin
    comparison.settings = {**guarded, "mask_names": tuple(mask_names or ()), "judge_config": judge_config,
                           "provider": provider or ""}
    return comparison


def _check_shared_provider(judged_file: PathLike, evaluation: Evaluation, provider: str) -> None:
    """Refuse a shared result whose llm judge went to another provider than ``provider``."""
    identity = evaluation.claims.attrs.get("judge") or {}
    used = identity.get("provider") or "anthropic"  # an identity without one is Anthropic's API
    if used != provider.lower():
        raise GroundlabError(f"judged_file {judged_file} holds the llm judge's verdicts through {used}, not {provider}; "
                             "give the provider the run judged with, or leave judged_file empty to judge the cases "
                             "here.")


def _check_shared_config(judged_file: PathLike, evaluation: Evaluation, judge_config: PathLike) -> None:
    from ..judges.signals import load_config

    want = load_config(judge_config if str(judge_config).strip() else None).sha256
    have = (evaluation.claims.attrs.get("judge") or {}).get("config_sha256")
    if have != want:
        raise GroundlabError(f"judged_file {judged_file} was judged by the signals judge with other weights than "
                             f"judge_config {str(judge_config) or '(the shipped ones)'}; give the same judge_config "
                             "the run used, or leave judged_file empty to judge the cases here.")
