"""Compare sentence segmenters for groundlab's claim splitter: accuracy on the tricky answers of
tests/split_table.py and speed on synthetic answers.

    pip install pysbd blingfire nupunkt      # the candidates groundlab does not ship with
    python bench/bench_segmenters.py [--n 20000] [--runs 3]

For each segmenter it prints
  alone      table rows whose claims (text and citations) come out right when the segmenter's
             sentences are taken as they are (citations still pulled out of each sentence);
  wrapped    the same with groundlab's handling around it: line breaks and list items, headings,
             citations written after the stop, invisible marks, CJK, and the abbreviation join;
  seg/s      sentences per second of the segmenter alone on synthetic answers (best of --runs);
  split us   microseconds per answer for the whole ClaimSplitter.split with it (best of --runs).
and the table rows each one gets wrong.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(HERE)]

import groundlab.core.claims as claims  # noqa: E402
import groundlab.core.sentences as core_sentences  # noqa: E402
from make_cases import make  # noqa: E402
from split_table import TRICKY  # noqa: E402

Pieces = Callable[[str], List[str]]


def _from_spans(text: str, starts: List[int]) -> List[str]:
    """Contiguous pieces of ``text`` cut at each sentence start: what groundlab's wrapper expects."""
    cuts = sorted({s for s in starts if 0 < s < len(text)})
    edges = [0] + cuts + [len(text)]
    return [text[a:b] for a, b in zip(edges, edges[1:]) if b > a]


def candidates() -> Dict[str, Optional[Pieces]]:
    found: Dict[str, Optional[Pieces]] = {}
    found["regex (old groundlab)"] = lambda t: [p for p in re.split(r"(?<=[.!?])(?=\s)", t) if p]
    from sentencex import segment

    found["sentencex"] = lambda t: list(segment("en", t))
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        found["pysbd"] = lambda t: _from_spans(t, [s.start for s in seg.segment(t)])
    except ImportError:
        found["pysbd"] = None
    try:
        import blingfire

        def bling(t: str) -> List[str]:
            # blingfire joins lines and reports offsets of the sentences it returns
            return _from_spans(t, [a for a, _ in blingfire.text_to_sentences_and_offsets(t)[1]])

        found["blingfire"] = bling
    except ImportError:
        found["blingfire"] = None
    try:
        import nupunkt

        found["nupunkt"] = lambda t: _from_spans(t, [a for a, _ in nupunkt.sent_spans(t)])
    except ImportError:
        found["nupunkt"] = None
    return found


def _alone(pieces: Pieces) -> Callable:
    """The claim splitter's sentences (``claims._sentences``, where the splitter looks them up)
    replaced by the segmenter's own, with nothing around them."""
    def sentences(text, citation_re=None, language="en"):
        out, pos = [], 0
        for piece in pieces(text):
            stripped = piece.strip()
            if stripped:
                start = pos + len(piece) - len(piece.lstrip())
                out.append((start, start + len(stripped), stripped, False))
            pos += len(piece)
        return out
    return sentences


def score_table(splitter_factory) -> List[str]:
    """The names of the table rows the splitter gets wrong."""
    wrong = []
    splitter = splitter_factory()
    for name, answer, expected in TRICKY:
        try:
            got = [(c.text, c.cites) for c in splitter.split("c", answer).claims]
        except Exception:  # a segmenter that fails on odd text gets the row wrong
            got = None
        if got != expected:
            wrong.append(name)
    return wrong


def best_time(fn: Callable[[], int], runs: int) -> tuple:
    best, count = float("inf"), 0
    for _ in range(runs):
        start = time.perf_counter()
        count = fn()
        best = min(best, time.perf_counter() - start)
    return best, count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="synthetic answers to time (default 20000)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs; the best is shown (default 3)")
    args = ap.parse_args(argv)
    answers = [case["answer"] for case in make(args.n)]
    load = os.getloadavg()
    print(f"{len(TRICKY)} tricky answers; {len(answers)} synthetic answers timed, best of {args.runs}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores\n")
    print(f"{'segmenter':22s} {'alone':>8s} {'wrapped':>8s} {'seg/s':>10s} {'split us':>9s}")
    # each replaced where it is looked up: the splitter's sentences in claims, the segmenter in core.sentences
    real_sentences, real_segment = claims._sentences, core_sentences._sentencex_segment
    misses = {}
    for name, pieces in candidates().items():
        if pieces is None:
            print(f"{name:22s} not installed (pip install {name})")
            continue
        try:
            claims._sentences = _alone(pieces)
            alone = score_table(claims.ClaimSplitter)
        finally:
            claims._sentences = real_sentences
        try:
            core_sentences._sentencex_segment = lambda language, text: pieces(text)
            wrapped = score_table(claims.ClaimSplitter)
            splitter = claims.ClaimSplitter()
            n_seconds, _ = best_time(lambda: sum(len(splitter.split("c", a).claims) for a in answers), args.runs)
        finally:
            core_sentences._sentencex_segment = real_segment
        seg_seconds, n_sentences = best_time(lambda: sum(len(pieces(a)) for a in answers), args.runs)
        n = len(TRICKY)
        print(f"{name:22s} {n - len(alone):>4d}/{n:<3d} {n - len(wrapped):>4d}/{n:<3d} "
              f"{n_sentences / seg_seconds:>10,.0f} {1e6 * n_seconds / len(answers):>9.1f}")
        misses[name] = (alone, wrapped)
    print("\nrows each gets wrong (alone | wrapped):")
    for name, (alone, wrapped) in misses.items():
        print(f"  {name}: {', '.join(alone) or '-'} | {', '.join(wrapped) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
