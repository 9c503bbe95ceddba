"""The signals judge's fitted model: the signals it weighs (:data:`FEATURES`, in the order of the
weights), and its weights and threshold as a judge config file holds them (the one shipped in
``groundlab/data/signals.json``, or one ``groundlab calibrate`` fitted on your own labels), read
and checked (:func:`load_config`), each problem with the file said in one sentence.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional, Tuple, Union

from ...core.records import GroundlabError

#: The judge a config is fitted for, and the version of its signals: a config fitted for another
#: version weighed other signals (:class:`~groundlab.judges.signals.SignalsJudge` is this name and
#: version).
JUDGE_NAME = "signals"
JUDGE_VERSION = "2"


#: The signals, in the order of the weights.
FEATURES: Tuple[str, ...] = ("coverage", "pairs", "sentence", "window", "names", "clause")
#: The side each signal speaks for: +1 for support (more of the claim's words and pairs found), -1
#: against it (names the evidence lacks, a clause it mostly lacks). A fit keeps every weight on its side.
FEATURE_SIGNS: Tuple[int, ...] = (1, 1, 1, 1, -1, -1)


DEFAULT_CONFIG = "signals.json"

#: What a judge config file says it is.
CONFIG_KIND = "groundlab judge config"


class JudgeConfig:
    """The weights and threshold of the signals judge, read from a file and checked.

    ``path`` is where it came from (``None``: the weights shipped with groundlab), ``sha256`` the
    hash of its bytes (recorded in the judge's identity), ``data`` the parsed file."""

    def __init__(self, data: Mapping[str, Any], path: Optional[Path], sha256: str) -> None:
        self.data, self.path, self.sha256 = dict(data), path, sha256
        self.weights = tuple(float(data["weights"][name]) for name in FEATURES)
        self.intercept = float(data["weights"]["intercept"])
        self.threshold = float(data["threshold"])


#: The largest judge config read: the file calibrate writes is about 2 KB.
MAX_CONFIG_BYTES = 1 << 20


def load_config(path: Union[str, Path, None] = None) -> JudgeConfig:
    """A judge config: the file ``groundlab calibrate`` wrote, or (``None``) the one shipped with
    groundlab. A file that is not one says so in one sentence."""
    import hashlib

    if path is None:
        raw = resources.files("groundlab").joinpath("data", DEFAULT_CONFIG).read_bytes()
        where, shown = None, f"groundlab/data/{DEFAULT_CONFIG}"
    else:
        where = Path(path)
        shown = str(where)
        try:
            with open(where, "rb") as fh:
                raw = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise GroundlabError(f"judge config {shown} cannot be read ({exc.strerror or exc}); give the file "
                                 "'groundlab calibrate --out' wrote.") from None
        if len(raw) > MAX_CONFIG_BYTES:  # /dev/zero, or another file passed by mistake
            raise GroundlabError(f"judge config {shown} is larger than {MAX_CONFIG_BYTES >> 20} MB, which no judge "
                                 "config is; give the file 'groundlab calibrate --out' wrote.")
    from ...core.io import json_problem

    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GroundlabError(f"judge config {shown} is not JSON ({json_problem(exc)}); give the file "
                             "'groundlab calibrate --out' wrote.") from None
    check_config(data, shown)
    return JudgeConfig(data, where, hashlib.sha256(raw).hexdigest())


def check_config(data: Any, shown: str) -> None:
    """Refuse, in one sentence, a judge config of the wrong shape or of another judge."""
    if not isinstance(data, dict) or data.get("kind") != CONFIG_KIND:
        raise GroundlabError(f"judge config {shown} is not a groundlab judge config (no \"kind\": "
                             f"\"{CONFIG_KIND}\"); give the file 'groundlab calibrate --out' wrote.")
    if data.get("judge") != JUDGE_NAME:
        raise GroundlabError(f"judge config {shown} is for the {data.get('judge')!r} judge, not "
                             f"{JUDGE_NAME!r}; use it with that judge, or calibrate this one.")
    if str(data.get("judge_version", JUDGE_VERSION)) != JUDGE_VERSION:
        raise GroundlabError(f"judge config {shown} was fitted for version {data.get('judge_version')} of the signals "
                             f"judge, whose signals differ from this version {JUDGE_VERSION}'s; calibrate again "
                             "on the same labels ('groundlab calibrate --out ...').")
    weights = data.get("weights")
    names = ("intercept",) + FEATURES
    if not isinstance(weights, dict) or any(not _finite(weights.get(k)) for k in names):
        missing = [k for k in names if not isinstance(weights, dict) or not _finite(weights.get(k))]
        raise GroundlabError(f"judge config {shown} lacks a number for the weight {missing[0]!r} (it needs "
                             f"{', '.join(names)}); calibrate again to write a complete file.")
    if not _finite(data.get("threshold")) or not 0 < float(data["threshold"]) < 1:
        raise GroundlabError(f"judge config {shown} needs a \"threshold\" between 0 and 1; calibrate again "
                             "to write a complete file.")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=1)
def _shipped() -> JudgeConfig:
    return load_config(None)
