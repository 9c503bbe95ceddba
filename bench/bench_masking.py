"""Time judging N cases of CLAIMS claims each with personal data in the passages and the claims,
masked (``--mask`` with a name) against unmasked, by a judge that stands for a remote one.

The judge is the rules judge under another name (so the masking applies to it, as to the llm
judge, and what is timed is groundlab's own work, not a model's); ``--stub`` uses the llm judge
against the stand-in of the Messages API on 127.0.0.1 instead. Nothing leaves this machine.

    python bench/bench_masking.py                 # 100 cases of 8 claims, best of 3
    python bench/bench_masking.py --n 1000 --claims 3 --stub

Prints the seconds of each (the judging alone, in a fresh process each time, best of --runs)
and the ratio masked / unmasked.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from groundlab import evaluate  # noqa: E402
from groundlab.measure.policy import apply_policy  # noqa: E402
from groundlab.core.records import Case, Passage  # noqa: E402
from groundlab.judges.rules import RulesJudge  # noqa: E402

PEOPLE = ["Anna Weber", "Jürgen Müller", "Jana Novak", "Li Wei"]
FACTS = ["The invoice {n} is blocked for payment because the quantity differs.",
         "The buyer contacts {p} at {e} about order {n}.",
         "Refunds for order {n} go to IBAN {i}.",
         "The card {c} was charged for order {n}.",
         "Call {t} before the goods receipt of order {n} is posted.",
         "The tolerance for order {n} is 5 percent of the net price.",
         "{p} approves the credit memo for order {n}.",
         "The payment term of order {n} is 30 days net."]
IBANS = ["DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32", "FR14 2004 1010 0505 0001 3M02 606"]
CARDS = ["4111 1111 1111 1111", "5500 0000 0000 0004", "3400 0000 0000 009"]
PHONES = ["+49 30 12345678", "+44 20 7946 0958", "(212) 555-0143"]


class Remote(RulesJudge):
    """The rules judge, named as a judge that sends what it judges away (so it is masked for)."""

    name = "remote"


def make_cases(n: int, claims: int, seed: int = 7):
    rng = random.Random(seed)
    cases = []
    for k in range(n):
        values = {"n": 4500000000 + k, "p": rng.choice(PEOPLE),
                  "e": f"{rng.choice(['anna.weber', 'j.mueller', 'novak'])}{k}@example.com",
                  "i": rng.choice(IBANS), "c": rng.choice(CARDS), "t": rng.choice(PHONES)}
        facts = [FACTS[(k + j) % len(FACTS)].format(**values) for j in range(claims)]
        passages = tuple(Passage(f"D{j}", " ".join(facts[j::3])) for j in range(3))
        answer = " ".join(f"{fact[:-1]} [D{j % 3}]." for j, fact in enumerate(facts))
        cases.append(Case(f"c{k}", f"What about order {values['n']} for {values['p']}?", passages, answer))
    return cases


def timed(args, masked: bool) -> float:
    """Seconds to judge the cases once, in a fresh process (so no cache or memo of an earlier run
    helps), best of ``args.runs``."""
    best = float("inf")
    for _ in range(args.runs):
        argv = [sys.executable, __file__, "--one", "masked" if masked else "plain", "--n", str(args.n),
                "--claims", str(args.claims)] + (["--stub"] if args.stub else [])
        done = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        best = min(best, float(done.stdout.split()[0]))
    return best


def one(args, masked: bool) -> None:
    cases = make_cases(args.n, args.claims)
    stub = None
    if args.stub:
        from messages_stub import KEY, MessagesStub
        from groundlab.judges import get_judge

        stub = MessagesStub().start()
        os.environ.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=stub.url)
        judge = get_judge("llm", cache=None, progress=False)
    else:
        judge = Remote()
    if masked:
        judge = apply_policy(judge, mask=True, names=PEOPLE)
    try:
        began = time.perf_counter()
        ev = evaluate(cases, judge)
        took = time.perf_counter() - began
    finally:
        if stub is not None:
            stub.stop()
    assert ev.claims["verdict"].notna().all()
    print(f"{took:.4f} {getattr(judge, 'masked_cases', 0)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100, help="cases (default 100)")
    parser.add_argument("--claims", type=int, default=8, help="claims a case (default 8)")
    parser.add_argument("--runs", type=int, default=3, help="take the best of this many (default 3)")
    parser.add_argument("--stub", action="store_true", help="the llm judge against the local Messages API stand-in")
    parser.add_argument("--one", choices=["plain", "masked"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one(args, args.one == "masked")
        return 0
    plain, masked = timed(args, False), timed(args, True)
    what = "llm judge (stub)" if args.stub else "remote-named rules judge"
    print(f"{args.n} cases of {args.claims} claims, {what}, best of {args.runs} fresh processes: "
          f"unmasked {plain:.2f} s, masked {masked:.2f} s ({masked / plain:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
