"""Mask personal data before a case's text goes to a model, and restore it in what comes back.

What is masked: e-mail addresses, phone numbers (``phonenumbers``, Google's libphonenumber: a
number written with its country code anywhere, and national numbers of :attr:`Masker.regions`),
IBANs (checked with their check digits, ``python-stdnum``), payment card numbers (13 to 19 digits
passing the Luhn check) and the names a person lists. Each value becomes a placeholder such as
``MASKED_EMAIL_1``, the same one wherever the value appears in the question, the passages, the
answer and its claims (:meth:`Masker.table` is built over all of them at once), so a claim that
repeats a passage's phone number still matches it, and one that changes it does not: verdicts do
not move. The same texts always mask alike, so a masked request's cached reply is found again.

>>> m = Masker(names=["Anna Weber"])
>>> table = m.table(["Mail anna.weber@example.com", "Anna Weber answers at anna.weber@example.com."])
>>> m.mask("Anna Weber answers at anna.weber@example.com.", table)
'MASKED_NAME_1 answers at MASKED_EMAIL_1.'
>>> m.unmask("MASKED_NAME_1 has the address.", table)
'Anna Weber has the address.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple

#: The regions whose national phone numbers are found (numbers with a country code are found anywhere).
DEFAULT_REGIONS: Tuple[str, ...] = ("US", "GB", "DE", "FR")

#: What each kind of value is called in its placeholder, in the order overlapping finds are settled.
KINDS = ("EMAIL", "IBAN", "CARD", "PHONE", "NAME")

_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_PLACEHOLDER = re.compile(r"MASKED_(?:" + "|".join(KINDS) + r")_\d+\b")

#: A table: the value as found -> its placeholder (values that differ only in spacing or case share one).
Table = Dict[str, str]


def _key(kind: str, value: str) -> str:
    if kind in ("EMAIL", "NAME"):
        return f"{kind}:{value.casefold()}"
    return f"{kind}:{re.sub(r'[^0-9A-Za-z+]', '', value).upper()}"


@dataclass(frozen=True)
class Masker:
    """Finds personal data in texts (see the module docstring). ``names``: people's (or any) names
    to mask, matched as whole words whatever their case; ``regions``: the regions whose national
    phone numbers are looked for."""

    names: Tuple[str, ...] = ()
    regions: Tuple[str, ...] = DEFAULT_REGIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(n.strip() for n in self.names if n and n.strip()))
        object.__setattr__(self, "regions", tuple(r.strip().upper() for r in self.regions if r and r.strip()))
        longest = sorted(set(self.names), key=len, reverse=True)
        pattern = (r"(?<!\w)(?:" + "|".join(re.escape(n) for n in longest) + r")(?!\w)") if longest else None
        object.__setattr__(self, "_names", re.compile(pattern, re.IGNORECASE) if pattern else None)

    def find(self, text: str) -> List[Tuple[int, int, str]]:
        """``(start, end, kind)`` of every value to mask in ``text``, left to right, none overlapping
        (a longer find wins over one inside it)."""
        found: List[Tuple[int, int, str]] = []
        for match in _EMAIL.finditer(text):
            found.append((match.start(), match.end(), "EMAIL"))
        found.extend((s, e, "IBAN") for s, e in _ibans(text))
        for match in _CARD.finditer(text):
            digits = re.sub(r"\D", "", match.group())
            if 13 <= len(digits) <= 19 and _luhn(digits):
                found.append((match.start(), match.end(), "CARD"))
        found.extend((s, e, "PHONE") for s, e in _phones(text, self.regions))
        if self._names is not None:
            found.extend((m.start(), m.end(), "NAME") for m in self._names.finditer(text))
        found.sort(key=lambda f: (f[0], -(f[1] - f[0]), KINDS.index(f[2])))
        kept: List[Tuple[int, int, str]] = []
        for start, end, kind in found:
            if kept and start < kept[-1][1]:
                continue
            kept.append((start, end, kind))
        return kept

    def table(self, texts: Iterable[str]) -> Table:
        """One placeholder per value found in ``texts``, numbered per kind in order of appearance."""
        table: Table = {}
        by_key: Dict[str, str] = {}
        counts = {kind: 0 for kind in KINDS}
        for text in texts:
            if not text:
                continue
            for start, end, kind in self.find(text):
                value = text[start:end]
                key = _key(kind, value)
                if key not in by_key:
                    counts[kind] += 1
                    by_key[key] = f"MASKED_{kind}_{counts[kind]}"
                table[value] = by_key[key]
        return table

    def mask(self, text: str, table: Table) -> str:
        """``text`` with every value of ``table`` found in it replaced by its placeholder."""
        if not table or not text:
            return text
        out, at = [], 0
        for start, end, _ in self.find(text):
            value = text[start:end]
            if value in table:
                out.append(text[at:start])
                out.append(table[value])
                at = end
        out.append(text[at:])
        return "".join(out)

    @staticmethod
    def unmask(text: str, table: Table) -> str:
        """``text`` with each placeholder of ``table`` back to its value (the first value it stands for)."""
        if not table or not text or "MASKED_" not in text:
            return text
        back: Dict[str, str] = {}
        for value, placeholder in table.items():
            back.setdefault(placeholder, value)
        return _PLACEHOLDER.sub(lambda m: back.get(m.group(), m.group()), text)


def _phones(text: str, regions: Sequence[str]) -> List[Tuple[int, int]]:
    if not any(c.isdigit() for c in text):
        return []
    import phonenumbers

    spans = set()
    for region in tuple(regions) or ("ZZ",):
        try:
            matcher = phonenumbers.PhoneNumberMatcher(text, region)
        except Exception:  # noqa: BLE001 (an unknown region finds nothing)
            continue
        for match in matcher:
            spans.add((match.start, match.end))
    return sorted(spans)


def _ibans(text: str) -> List[Tuple[int, int]]:
    """Where ``text`` writes a valid IBAN. The pattern is greedy and runs on into a following word
    ("DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX"), so each find is cut back at its spaces, longest
    first, to the IBAN whose check digits hold."""
    spans = []
    for match in _IBAN.finditer(text):
        value = match.group()
        ends = [len(value)] + [i for i in range(len(value) - 1, 14, -1) if value[i] == " "]
        end = next((e for e in ends if _valid_iban(value[:e])), None)
        if end is not None:
            spans.append((match.start(), match.start() + end))
    return spans


def _valid_iban(value: str) -> bool:
    from stdnum import iban

    return bool(iban.is_valid(value))


def _luhn(digits: str) -> bool:
    from stdnum import luhn

    return bool(luhn.is_valid(digits))


__all__ = ["DEFAULT_REGIONS", "KINDS", "Masker", "Table"]
