"""The entail judge's training and validation data: the six public labeled claim sets and pairs made
from their passages by rules (see bench/train_entail.py, which uses it, and the model card).

Every pair belongs to one set: its real claims, and the pairs made from its passages, so a model
validated on a set has seen neither. Pairs are ``Pair(claim, evidence, label, set, kind, group)``,
``label`` 1 for supported.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "data" / "public"

#: The six sets, in the order folds are reported. FRANK's CNN/DM and XSum are kept apart.
SETS = ("factcheck_gpt", "wice", "frank_cnndm", "frank_xsum", "expertqa", "halueval_qa")
#: HaluEval's answer length alone separates its classes (gold answers are short spans, the
#: hallucinated ones sentences): its real claims are never trained on, only read for validation.
#: Its passages still give rule-made pairs, whose lengths the rules keep alike.
NOT_TRAINED = frozenset({"halueval_qa"})


@dataclass(frozen=True)
class Pair:
    claim: str
    evidence: object  # groundlab.records.Evidence
    label: int
    set: str
    kind: str
    group: str
    case_id: str = ""
    number: int = 1
    part: str = ""  # "post-hoc": ExpertQA's answers cited after the fact (lenient labels; never fitted on)


def _evidence(row):
    from groundlab.records import Evidence, Passage

    return Evidence(row.get("question", "") or "", tuple(Passage(str(p["id"]), p["text"]) for p in row["retrieved"]))


def read_set(name: str) -> List[dict]:
    with gzip.open(PUBLIC / f"{name}.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def evidence_groups(rows: Sequence[dict]) -> List[int]:
    """For each case, the group of the cases it shares a passage with (by text, transitively): the
    unit a bootstrap draws, so that near-duplicates never sit on both sides of it."""
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: Dict[str, int] = {}
    for i, row in enumerate(rows):
        for passage in row["retrieved"]:
            j = first.setdefault(passage["text"], i)
            parent[root(i)] = root(j)
    return [root(i) for i in range(len(rows))]


def real_pairs(name: str) -> List[Pair]:
    """The set's labeled claims, each read as groundlab reads an answer (:func:`claim_texts`).
    Claims sharing a passage are one group (near-duplicates never sit on both sides of a
    bootstrap)."""
    from groundlab.claims import ClaimSplitter

    rows = read_set(name)
    group = evidence_groups(rows)
    splitter = ClaimSplitter()
    out = []
    for i, row in enumerate(rows):
        evidence = _evidence(row)
        texts = claim_texts(splitter, row)
        if texts is None:
            raise SystemExit(f"{name} case {row['id']}: its sentences do not match its {len(row['labels'])} labels")
        part = "post-hoc" if str((row.get("meta") or {}).get("system", "")).startswith("post_hoc") else ""
        for k, (text, label) in enumerate(zip(texts, row["labels"]), start=1):
            out.append(Pair(text, evidence, int(label == "supported"), name, "real", f"{name}:{group[i]}",
                            row["id"], k, part))
    return out


def claim_texts(splitter, row) -> Optional[List[str]]:
    """A labeled case's claims as groundlab reads its answer: split into claims (FRANK's summaries
    carry one label a sentence), each without the citation markers the splitter takes as citations
    ("... cardiomegaly [4]." is "... cardiomegaly."), never as numbers. A case with one label whose
    answer reads as several sentences is one claim, its citation markers left out; ``None`` when
    several labels do not match the sentences."""
    texts = [c.text for c in splitter.split(row["id"], row["answer"]).claims]
    labels = row["labels"]
    if len(texts) == len(labels):
        return texts
    if len(labels) != 1:
        return None
    return [" ".join(splitter.citation_re.sub("", row["answer"]).split())]


# ---------------------------------------------------------------- rule-made pairs

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.])|(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_NAME = re.compile(r"(?<=[a-z,;]\s)(?:[A-Z][a-z'\-]+|[A-Z]{2,})(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?"
                   r"(?:[A-Z][a-z'\-]+|[A-Z]{2,}))*")
_AUX = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|should|must|may)\b(?!\s+not\b)")
_NEG = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|should|must|may|does|do|did)\s+not\s+")
_NT = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has", "haven't": "have",
       "hadn't": "had", "can't": "can", "couldn't": "could", "won't": "will", "wouldn't": "would",
       "shouldn't": "should", "doesn't": "does", "don't": "do", "didn't": "did"}
_NT_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in _NT) + r")\b", re.IGNORECASE)
_VERB_SPLIT = re.compile(r"\s(is|are|was|were|has|have|had|will|would|can|could|became|becomes|remains|"
                         r"remained|won|made|took|joined|received|played|served|said|led)\s")
_HEDGES = re.compile(r"\b(some|many|most|several|often|usually|sometimes|generally|mostly|typically|likely|"
                     r"probably|possibly|partly|nearly|almost|approximately|roughly|about)\s+", re.IGNORECASE)
_MODALS = {"may": "will", "might": "will", "could": "will", "can": "must"}
_MODAL_RE = re.compile(r"\b(may|might|could)\b")
_LEADING = re.compile(r"^(In|On|At|During|After|Before|When|While|Since|By|From|Although|Because|If|As|"
                      r"Following|Under|Until|Despite|Through)\b([^,]{2,60}),\s+(.+?)([.!?])?$")
_TRAILING = re.compile(r"^(.+?),?\s+(because|when|after|before|while|since|although|until|if)\s+(.{8,}?)([.!?])?$")
_PAREN = re.compile(r"\s*\([^()]{1,80}\)")

#: Meaning-preserving word swaps (both ways), for supported paraphrases.
SYNONYMS = dict(pair.split(":") for pair in """
begin:start started:began start:begin purchase:buy bought:purchased large:big big:large small:little
help:assist assist:help approximately:about about:approximately show:demonstrate shows:demonstrates
showed:demonstrated demonstrated:showed use:utilise used:utilised uses:employs employ:use employed:used
receive:get received:got get:receive got:received enough:sufficient sufficient:enough quick:fast fast:quick
rapid:quick quickly:rapidly rapidly:quickly end:finish ended:finished finish:end finished:ended choose:select
chose:selected select:choose selected:chose allow:permit allowed:permitted permit:allow build:construct
built:constructed construct:build constructed:built need:require needs:requires needed:required
require:need required:needed answer:reply replied:answered rich:wealthy wealthy:rich famous:well-known
died:passed&away close:near near:close maybe:perhaps perhaps:maybe often:frequently frequently:often
start:commence main:principal principal:main important:significant significant:important hard:difficult
difficult:hard task:job job:task car:automobile film:movie movie:film city:town kids:children
children:kids near:close&to shut:closed closed:shut mistake:error error:mistake aid:help understand:comprehend
job:position gift:present talk:speak spoke:talked speak:talk reveal:disclose revealed:disclosed
injured:hurt hurt:injured attempt:try tried:attempted try:attempt attempted:tried fewer:less increase:rise
increased:rose rise:increase rose:increased decrease:fall decreased:fell fell:decreased
""".split())


def _sentences_of(passages) -> List[str]:
    from groundlab.claims import split_sentences

    out = []
    for p in passages:
        for s in split_sentences(p.text):
            words = s.split()
            if 6 <= len(words) <= 45 and sum(ch.isalpha() for ch in s) > 0.7 * len(s.replace(" ", "")) \
                    and not s.rstrip().endswith("?") and "http" not in s and "|" not in s:
                out.append(" ".join(words))
    return out


_COMMON_FIRST = frozenset("""the a an it its he she they their his her this that these those there in on at
during after before when while since by from although because if as following under until despite
through some many most several one two three""".split())


def _lower_first(text: str) -> str:
    """``text`` with its first word in lower case when that word is a common one (a name keeps its
    capital)."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in _COMMON_FIRST else text


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _end(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _swap_number(s: str, others: Sequence[str], rng: random.Random) -> Optional[str]:
    found = list(_NUMBER.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    value = m.group()
    pool = [n.group() for o in others for n in _NUMBER.finditer(o) if n.group() != value]
    if pool and rng.random() < 0.6:
        new = rng.choice(pool)
    else:
        digits = value.replace(",", "")
        try:
            number = float(digits)
        except ValueError:
            return None
        if digits.isdigit() and 1800 <= number <= 2100:
            new = str(int(number) + rng.choice([-3, -2, -1, 1, 2, 5, 10]))
        elif "." in digits:
            new = f"{number * rng.choice([0.5, 1.5, 2, 3]):.{len(digits.split('.')[1])}f}"
        else:
            new = str(int(number) + rng.choice([1, 2, 5, 10, 100]) if number < 20 else int(number * rng.choice([0.5, 2, 3])))
    if new == value:
        return None
    return s[:m.start()] + new + s[m.end():]


def _names(s: str) -> List[re.Match]:
    return [m for m in _NAME.finditer(s) if len(m.group()) > 2]


def _swap_name(s: str, others: Sequence[str], rng: random.Random) -> Optional[str]:
    found = _names(s)
    if not found:
        return None
    m = rng.choice(found)
    pool = [n.group() for o in others for n in _names(o) if n.group() not in s]
    if not pool:
        return None
    return s[:m.start()] + rng.choice(pool) + s[m.end():]


def _swap_roles(s: str, rng: random.Random) -> Optional[str]:
    """Two names (or two numbers) of the sentence trade places: who did what to whom changes."""
    for found in (_names(s), list(_NUMBER.finditer(s))):
        distinct = []
        for m in found:
            if all(m.group() != d.group() for d in distinct):
                distinct.append(m)
        if len(distinct) >= 2:
            a, b = sorted(rng.sample(distinct, 2), key=lambda m: m.start())
            if a.group() in b.group() or b.group() in a.group():
                continue
            return s[:a.start()] + b.group() + s[a.end():b.start()] + a.group() + s[b.end():]
    return None


def _negate(s: str, rng: random.Random) -> Optional[str]:
    m = _NEG.search(s)
    if m:
        return s[:m.start()] + m.group(1) + " " + s[m.end():]
    m = _NT_RE.search(s)
    if m:
        word = _NT[m.group().lower()]
        return s[:m.start()] + (word.capitalize() if m.group()[0].isupper() else word) + s[m.end():]
    if " never " in s:
        return s.replace(" never ", " ", 1)
    m = _AUX.search(s)
    if m:
        return s[:m.end()] + " not" + s[m.end():]
    return None


def _qualifier(s: str, rng: random.Random) -> Optional[str]:
    """A hedge dropped ("nearly 40" → "40", "may" → "will") or an absolute added ("only", "always")."""
    m = _HEDGES.search(s)
    if m and rng.random() < 0.6:
        out = s[:m.start()] + s[m.end():]
        return _upper_first(out) if m.start() == 0 else out
    m = _MODAL_RE.search(s)
    if m and rng.random() < 0.6:
        return s[:m.start()] + _MODALS[m.group()] + s[m.end():]
    m = _AUX.search(s)
    if m and m.group() in ("is", "are", "was", "were", "can", "will", "has", "have", "had"):
        word = rng.choice(["always", "only", "never"]) if m.group() not in ("has", "have", "had") else \
            rng.choice(["always", "only"])
        return s[:m.end()] + " " + word + s[m.end():]
    if s.startswith("The "):
        return "Only the " + s[4:]
    return None


def _split_subject(s: str) -> Optional[Tuple[str, str]]:
    m = _VERB_SPLIT.search(s)
    if not m or not 1 <= len(s[:m.start()].split()) <= 8:
        return None
    return s[:m.start()], s[m.start() + 1:]


def _recombine(s: str, others: Sequence[str], rng: random.Random) -> Optional[str]:
    """The sentence's subject with another sentence's predicate: details recombined from the
    passage's own words."""
    head = _split_subject(s)
    if head is None:
        return None
    options = [(o, _split_subject(o)) for o in others]
    options = [(o, split) for o, split in options if split and split[0].lower() != head[0].lower()
               and split[1].lower() != head[1].lower()]
    if not options:
        return None
    _, (_, predicate) = rng.choice(options)
    return _end(head[0] + " " + predicate.rstrip(".!?"))


def _graft(s: str, others: Sequence[str], rng: random.Random) -> Optional[str]:
    """A clause of another sentence grafted on: "A and <another subject's predicate>"."""
    options = [_split_subject(o) for o in others]
    options = [split for split in options if split and len(split[1].split()) <= 14]
    if not options:
        return None
    _, predicate = rng.choice(options)
    return _end(s.rstrip(".!?") + " and " + predicate.rstrip(".!?"))


def _reorder(s: str, rng: random.Random) -> Optional[str]:
    """A leading phrase moved to the end, or a trailing clause to the front: the same meaning."""
    m = _LEADING.match(s)
    if m and len(m.group(3).split()) >= 4:
        lead = (_lower_first(m.group(1)) + m.group(2)).strip()
        return _end(_upper_first(m.group(3)) + " " + lead)
    m = _TRAILING.match(s)
    if m and len(m.group(1).split()) >= 4:
        return _end(_upper_first(m.group(2)) + " " + m.group(3) + ", " + _lower_first(m.group(1)))
    return None


def _synonyms(s: str, rng: random.Random) -> Optional[str]:
    words = s.split(" ")
    spots = [k for k, w in enumerate(words) if w.lower().strip(".,;:") in SYNONYMS]
    if not spots:
        return None
    for k in rng.sample(spots, min(2, len(spots))):
        word = words[k]
        core = word.strip(".,;:")
        new = SYNONYMS[core.lower()].replace("&", " ")
        if core[:1].isupper():
            new = _upper_first(new)
        words[k] = word.replace(core, new)
    return " ".join(words)


def _drop_aside(s: str, rng: random.Random) -> Optional[str]:
    out = _PAREN.sub("", s, count=1)
    return out if out != s and len(out.split()) >= 5 else None


def _merge(a: str, b: str) -> str:
    return _end(a.rstrip(".!?") + ", and " + _lower_first(b))


SUPPORTED_KINDS = ("sentence", "reordered", "synonyms", "aside dropped", "two sentences")
HALLUCINATED_KINDS = ("number swapped", "name swapped", "roles swapped", "negation", "qualifier",
                      "recombined", "clause grafted", "two sentences, one changed", "other document")


def made_pairs(name: str, count: int, seed: int, exclude_docs: Optional[set] = None) -> Tuple[List[Pair], set]:
    """``count`` rule-made pairs from the passages of set ``name`` (about half supported), and the
    documents they came from. Each claim is judged against its own document's passages."""
    from groundlab.records import Evidence

    rng = random.Random(f"{name}:{seed}")
    docs: Dict[Tuple[str, ...], object] = {}
    for row in read_set(name):
        ev = _evidence(row)
        key = tuple(p.text for p in ev.passages)
        if key not in docs:
            docs[key] = Evidence("", ev.passages)
    keys = list(docs)
    rng.shuffle(keys)
    if exclude_docs:
        keys = [k for k in keys if k not in exclude_docs]
    sentences = {k: _sentences_of(docs[k].passages) for k in keys}
    keys = [k for k in keys if len(sentences[k]) >= 2]
    out: List[Pair] = []
    used = set()
    made = {"supported": 0, "hallucinated": 0}
    attempts = 0
    while len(out) < count and attempts < count * 30 and keys:
        attempts += 1
        key = keys[attempts % len(keys)]
        sents = sentences[key]
        k = rng.randrange(len(sents))
        s = sents[k]
        others = sents[:k] + sents[k + 1:]
        evidence = docs[key]
        group = f"{name}:made:{keys.index(key)}"
        want_supported = made["supported"] <= made["hallucinated"]
        if want_supported:
            kind = rng.choice(SUPPORTED_KINDS)
            if kind == "sentence":
                claim = s
            elif kind == "reordered":
                claim = _reorder(s, rng)
            elif kind == "synonyms":
                claim = _synonyms(s, rng)
            elif kind == "aside dropped":
                claim = _drop_aside(s, rng)
            else:
                j = k + 1 if k + 1 < len(sents) and rng.random() < 0.6 else rng.randrange(len(sents))
                claim = _merge(s, sents[j]) if j != k and len(s.split()) + len(sents[j].split()) <= 50 else None
            label = 1
        else:
            kind = rng.choice(HALLUCINATED_KINDS)
            if kind == "number swapped":
                claim = _swap_number(s, others, rng)
            elif kind == "name swapped":
                claim = _swap_name(s, others, rng)
            elif kind == "roles swapped":
                claim = _swap_roles(s, rng)
            elif kind == "negation":
                claim = _negate(s, rng)
            elif kind == "qualifier":
                claim = _qualifier(s, rng)
            elif kind == "recombined":
                claim = _recombine(s, others, rng)
            elif kind == "clause grafted":
                claim = _graft(s, others, rng)
            elif kind == "two sentences, one changed":
                j = k + 1 if k + 1 < len(sents) else k - 1
                changed = (_swap_number(sents[j], others, rng) or _swap_name(sents[j], others, rng)
                           or _negate(sents[j], rng))
                claim = _merge(s, changed) if changed and len(s.split()) + len(changed.split()) <= 50 else None
            else:  # a sentence of another document, against this one's passages
                other = keys[rng.randrange(len(keys))]
                claim = rng.choice(sentences[other]) if other != key else None
            label = 0
        if not claim or claim == s and label == 0 or (claim, key) in used:
            continue
        used.add((claim, key))
        out.append(Pair(claim, evidence, label, name, kind, group))
        made["supported" if label else "hallucinated"] += 1
    return out, {k for k in keys[:attempts]}
