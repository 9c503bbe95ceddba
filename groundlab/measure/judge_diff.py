"""Two judges on the same claims, claim by claim (:func:`judge_diff`).

``groundlab agree --baseline OLD.json`` lines the claims of a previous ``agree --json`` (or a
claims file, :func:`read_baseline`) up with the current judge's, claim by claim, and shows which
verdicts changed and whether agreement with the person moved, with the paired interval and test of
:mod:`groundlab.measure.paired`: equal totals can hide claims fixed and claims broken in equal numbers.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import pandas as pd

from ..core.frames import from_csv_cell, read_parquet
from ..core.io import PathLike, json_problem
from .paired import MeasureComparison, paired_proportion
from ..core.records import VERDICTS, InputError

#: The columns a claims file needs to serve as a baseline.
BASELINE_COLUMNS = ("case_id", "claim", "text", "verdict", "label")


def claim_verdicts(claims: pd.DataFrame) -> List[Dict[str, Any]]:
    """The per-claim records ``agree --json`` keeps (``case_id``, ``claim``, ``text``, ``verdict``,
    ``score``, ``label``), so a later run can be compared with it claim by claim; ``score`` is the
    judge's (the signals judge's probability that a person finds the claim supported), ``null``
    for a judge that gives none."""
    score = claims["score"] if "score" in claims else [None] * len(claims)
    return [{"case_id": str(c), "claim": int(n), "text": t, "verdict": v if isinstance(v, str) else None,
             "score": None if sc is None or sc != sc else round(float(sc), 4),
             "label": lab if isinstance(lab, str) else None}
            for c, n, t, v, sc, lab in zip(claims["case_id"], claims["claim"], claims["text"], claims["verdict"],
                                           score, claims["label"])]


@dataclass(frozen=True)
class Baseline:
    """A previous judge's verdicts, claim by claim, and what is known of that judge."""

    source: str
    claims: pd.DataFrame
    judge: Optional[str] = None
    identity: Optional[Dict[str, Any]] = None


def read_baseline(path: PathLike) -> Baseline:
    """Read a previous ``groundlab agree --json`` (``.json``) or a claims file (``.csv`` or
    ``.parquet`` with at least the columns ``case_id, claim, text, verdict, label``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"the baseline {path} does not exist; give a file written by 'groundlab agree --json' "
                         "or a claims file (.csv or .parquet).")
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise InputError(f"the baseline {path} is not JSON ({json_problem(exc)}); give the output of "
                             "'groundlab agree --json'.") from None
        if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
            raise InputError(f"the baseline {path} holds no per-claim verdicts (no \"claims\" list); write it with "
                             "'groundlab agree --json' from this version of groundlab, or give a claims file.")
        if not all(isinstance(c, dict) for c in data["claims"]):
            raise InputError(f"the baseline {path} has a \"claims\" list whose items are not claim records; write "
                             "it with 'groundlab agree --json' from this version of groundlab, or give a claims file.")
        frame = pd.DataFrame(data["claims"], columns=list(BASELINE_COLUMNS))
        identity = data.get("judge_identity") if isinstance(data.get("judge_identity"), dict) else None
        judge = data.get("judge") if isinstance(data.get("judge"), str) else None
    elif suffix in (".csv", ".parquet"):
        if suffix == ".csv":
            try:
                frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
            except pd.errors.EmptyDataError:
                raise InputError(f"the baseline {path} is empty; give a claims file with the columns "
                                 f"{', '.join(BASELINE_COLUMNS)}, or the output of 'groundlab agree --json'.") from None
            except UnicodeDecodeError:
                raise InputError(f"the baseline {path} is not UTF-8 text; save it again as UTF-8 (in a spreadsheet: "
                                 "CSV UTF-8).") from None
            except pd.errors.ParserError as exc:
                raise InputError(f"the baseline {path} is not a readable CSV file ({_reason(exc)}); give each "
                                 f"record the columns {', '.join(BASELINE_COLUMNS)} and nothing more.") from None
            frame = frame.map(from_csv_cell)  # as --claims-out wrote it: "'=x" was "=x"
        else:
            try:
                frame = read_parquet(Path(path).read_bytes()).to_pandas(use_threads=False)
            except ImportError:
                raise InputError(f"reading the Parquet baseline {path} needs pyarrow (pip install pyarrow); "
                                 "or give a .csv claims file.") from None
            except Exception:  # pyarrow's ArrowInvalid, OSError and the like, for a damaged or empty file
                raise InputError(f"the baseline {path} cannot be read as Parquet (damaged, empty, or not Parquet); "
                                 "write it again, e.g. with pandas' to_parquet, or give a .csv claims file.") from None
        missing = [c for c in BASELINE_COLUMNS if c not in frame.columns]
        if missing:
            raise InputError(f"the baseline {path} lacks the column{'s' * (len(missing) > 1)} {', '.join(missing)}; "
                             f"a claims file needs {', '.join(BASELINE_COLUMNS)}.")
        frame = frame[list(BASELINE_COLUMNS)]
        identity, judge = None, None
    else:
        raise InputError(f"the baseline {path} is neither .json (from 'groundlab agree --json') nor a claims file "
                         "(.csv or .parquet); give one of those.")
    return Baseline(str(path), _check_baseline(frame, path), judge, identity)


def _check_baseline(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    rows = []
    seen: Dict[Tuple[str, int], int] = {}
    for k, (case_id, claim, text, verdict, label) in enumerate(frame.itertuples(index=False, name=None)):
        where = f"the baseline {path}, claim record {k + 1}"
        case_id = "" if _missing(case_id) else str(case_id)
        if not case_id:
            raise InputError(f"{where}: needs a case_id and a claim number of 1 or more; fix or remove that record.")
        number = _claim_number(claim)
        if number is None or number < 1:
            shown = "nothing" if _missing(claim) else repr(str(claim).strip()[:40])
            raise InputError(f"{where} (case {case_id}): needs a whole claim number of 1 or more, not {shown}; fix "
                             "or remove that record.")
        values = []
        for name, value in (("verdict", verdict), ("label", label)):
            value = None if _missing(value) else str(value).strip().lower()
            if value is not None and value not in VERDICTS:
                raise InputError(f"{where} (case {case_id}, claim {number}): {name} {value!r} is not one of "
                                 f"{', '.join(VERDICTS)}.")
            values.append(value)
        key = (case_id, number)
        if key in seen:
            raise InputError(f"{where}: case {case_id} claim {number} is listed twice (also record {seen[key]}); "
                             "keep one.")
        seen[key] = k + 1
        rows.append((case_id, number, "" if _missing(text) else str(text), values[0], values[1]))
    return pd.DataFrame(rows, columns=list(BASELINE_COLUMNS))


def _claim_number(value: Any) -> Optional[int]:
    """A claim number as a whole number, or ``None`` (``1.7``, ``inf``, ``one``, true, nothing).

    >>> [_claim_number(v) for v in ("2", " 3.0 ", 4, 5.0, "1.7", "inf", "nan", "one", True, None)]
    [2, 3, 4, 5, None, None, None, None, None, None]
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number.is_integer() else None


def _reason(exc: BaseException) -> str:
    """An exception's message on one line, cut short."""
    words = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
    return words if len(words) <= 160 else words[:157] + "..."


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or \
        (isinstance(value, str) and not value.strip())


@dataclass
class JudgeDiff:
    """The current judge against a baseline judge on the same claims (see :func:`judge_diff`).

    ``claims``: one row per claim of either run: ``case_id``, ``claim``, ``text`` (now),
    ``baseline_text``, ``status`` (``compared``, ``text changed``, ``new``, ``gone``),
    ``before`` and ``after`` (the verdicts), ``label`` (the person's, from the current cases),
    ``move`` (``now agrees``, ``no longer agrees``, ``still agrees``, ``still disagrees``,
    ``unlabeled``; empty when not compared) and ``reason`` (the current judge's).
    ``agreement``: agreement with the person before and after over the claims compared and
    labeled, as a paired comparison.
    """

    baseline: Baseline
    claims: pd.DataFrame
    agreement: MeasureComparison

    def counts(self) -> Dict[str, int]:
        c = self.claims
        compared = c[c["status"] == "compared"]
        changed = compared[compared["before"].fillna("") != compared["after"].fillna("")]
        return {"compared": int(len(compared)), "verdict_changed": int(len(changed)),
                "text_changed": int((c["status"] == "text changed").sum()),
                "new": int((c["status"] == "new").sum()), "gone": int((c["status"] == "gone").sum()),
                "now_agree": int((compared["move"] == "now agrees").sum()),
                "no_longer_agree": int((compared["move"] == "no longer agrees").sum()),
                "label_changed": int(compared["label_changed"].sum())}

    def changed(self) -> pd.DataFrame:
        """Compared claims whose verdict changed."""
        c = self.claims
        c = c[c["status"] == "compared"]
        return c[c["before"].fillna("") != c["after"].fillna("")]

    def to_dict(self) -> Dict[str, Any]:
        changed = self.changed()
        unpaired = self.claims[self.claims["status"] != "compared"]
        return {
            "source": self.baseline.source,
            "judge": self.baseline.judge,
            "judge_identity": self.baseline.identity,
            **self.counts(),
            "agreement": self.agreement.to_dict(),
            "changes": [_record(r) for r in changed.to_dict("records")],
            "unpaired": [_record(r) for r in unpaired.to_dict("records")],
        }


def _record(row: Dict[str, Any]) -> Dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()
            if k in ("case_id", "claim", "text", "baseline_text", "status", "before", "after", "label", "move")}


def _same_text(x: str, y: str) -> bool:
    return " ".join(str(x).split()) == " ".join(str(y).split())


def judge_diff(claims: pd.DataFrame, baseline: Union[Baseline, PathLike], confidence: float = 0.95) -> JudgeDiff:
    """Line the current claims up with a baseline's by case id and claim number and say, claim by
    claim, where the verdict changed and whether agreement with the person moved.

    A claim whose text differs from the baseline's (the answer changed, or was split otherwise)
    is not compared: its status is ``text changed``, never mis-paired with another claim.
    """
    baseline = baseline if isinstance(baseline, Baseline) else read_baseline(baseline)
    old = {(r[0], r[1]): r for r in baseline.claims.itertuples(index=False, name=None)}
    rows = []
    seen = set()
    for case_id, number, text, verdict, label, reason in zip(claims["case_id"], claims["claim"], claims["text"],
                                                             claims["verdict"], claims["label"], claims["reason"]):
        key = (str(case_id), int(number))
        seen.add(key)
        after = verdict if isinstance(verdict, str) else None
        label = label if isinstance(label, str) else None
        prev = old.get(key)
        if prev is None:
            rows.append((key[0], key[1], text, None, "new", None, after, label, "", False, reason))
            continue
        before, old_label = prev[3], prev[4]
        if not _same_text(prev[2], text):
            rows.append((key[0], key[1], text, prev[2], "text changed", before, after, label, "", False, reason))
            continue
        person = label if label is not None else old_label
        rows.append((key[0], key[1], text, prev[2], "compared", before, after, person,
                     _move(before, after, person), label is not None and old_label is not None and label != old_label,
                     reason))
    for key, prev in old.items():
        if key not in seen:
            rows.append((key[0], key[1], None, prev[2], "gone", prev[3], None, prev[4], "", False, None))
    frame = pd.DataFrame(rows, columns=["case_id", "claim", "text", "baseline_text", "status", "before", "after",
                                        "label", "move", "label_changed", "reason"])
    scored = frame[(frame["status"] == "compared") & frame["label"].notna() & frame["before"].notna()
                   & frame["after"].notna()]
    pairs = [(b == lab, a == lab) for b, a, lab in zip(scored["before"], scored["after"], scored["label"])]
    undecided = int(((frame["status"] == "compared") & frame["label"].notna()
                     & (frame["before"].isna() | frame["after"].isna())).sum())
    agreement = paired_proportion("agreement", pairs, {"undecided by a judge": undecided}, ("before", "now"),
                                  confidence)
    return JudgeDiff(baseline, frame, agreement)


def _move(before: Optional[str], after: Optional[str], label: Optional[str]) -> str:
    if label is None:
        return "unlabeled"
    if before is None or after is None:
        return "undecided"
    was, now = before == label, after == label
    return {(False, True): "now agrees", (True, False): "no longer agrees", (True, True): "still agrees",
            (False, False): "still disagrees"}[(was, now)]
