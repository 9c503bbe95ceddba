r"""A total over the items of an answer's own list: "In total you receive 56 EUR" under "1. Monday
(arrival day): 14 EUR / 2. Tuesday: 28 EUR / 3. Wednesday: 14 EUR" adds up; an item that takes its
amount off ("Lunch provided: minus 11.20 EUR", "Frühstück: abzüglich 5,60 EUR", "Lunch: −11.20 EUR"
or "-11.20 EUR", "11.20 EUR deducted") counts less.

>>> from groundlab.core.numbers import mentions
>>> from groundlab.core.quantities import quantities
>>> answer = "- Full day: 28 EUR\n- Lunch provided: minus 11.20 EUR\nSo you receive 16.80 EUR."
>>> target = quantities(mentions("16.80 EUR"), "16.80 EUR", False)[0]
>>> step = list_sum(answer, target)
>>> step.expression, round(step.value, 2)
('28 EUR − 11.20 EUR', 16.8)
"""

from __future__ import annotations

import re
from typing import List, Optional

from .numbers import mentions
from .quantities import Quantity, quantities
from .sentences import list_item
from .steps import _Step

__all__ = ["list_sum"]

#: An item's amount that is taken off ("Lunch provided: minus 11.20 EUR", "Frühstück: abzüglich 5,60
#: EUR", "− 11.20 EUR", "11.20 EUR deducted"): the words or sign before it, or the word after it.
_DEDUCTED_BEFORE = re.compile(r"(?:\b(?:minus|less|abzüglich|abzgl\.|moins|deduct(?:ed|ion)?(?:\s+of)?|"
                              r"reduced\s+by|gekürzt\s+um|Abzug(?:\s+von)?|déduction(?:\s+de)?)|[−–])\s*(?:€|EUR|\$|£)?\s*$",
                              re.IGNORECASE)
_DEDUCTED_AFTER = re.compile(r"\s*(?:is\s+|are\s+|werden\s+|wird\s+)?(?:deducted|subtracted|abgezogen|déduits?|retenus?)\b",
                             re.IGNORECASE)


def _deducted(item: str, q: Quantity) -> bool:
    """Whether the list ``item`` takes its amount ``q`` off the total."""
    before = item[max(0, q.start - 24):q.start]
    sign = before.rstrip()
    if sign.endswith("-") and sign[:-1].strip(" \t-*•.)0123456789"):  # "Lunch: -11.20 EUR", not the bullet of "- 14 EUR"
        return True
    return _DEDUCTED_BEFORE.search(before) is not None or \
        _DEDUCTED_AFTER.match(item, q.start + len(q.shown)) is not None


def _item_amounts(item: str, amounts: List[Quantity]) -> List[Quantity]:
    """What a list item adds to its list's total, each amount signed: its last amount that is not
    taken off (a subtotal: "je 28 EUR, zusammen 56 EUR" adds 56 EUR) less the deductions written after
    it ("Tuesday: 28 EUR, minus 11.20 EUR for lunch" adds 28 EUR − 11.20 EUR); an item of deductions
    only takes them off."""
    taken = [_deducted(item, q) for q in amounts]
    kept = [k for k, off in enumerate(taken) if not off]
    first = kept[-1] if kept else 0
    return [q._replace(value=-q.value) if off else q for q, off in zip(amounts[first:], taken[first:])]


def list_sum(answer: str, target: Quantity) -> Optional[_Step]:
    """The total of the list an answer writes right before the line that states ``target``: what
    each item adds in the target's unit (:func:`_item_amounts`), added up ("1. Monday: 14 EUR / 2. Tuesday: 28 EUR / 3.
    Wednesday: 14 EUR" and "In total you receive 56 EUR"). Each item is a claim judged on its own;
    the total only has to follow from them. ``None`` when no list of two such items or more stands
    there."""
    if "\n" not in answer or not target.unit or target.unit == "date":
        return None
    lines = answer.split("\n")
    for k, line in enumerate(lines):
        if target.surface not in line or list_item(line):
            continue
        items: List[Quantity] = []
        for item in reversed(lines[:k]):
            if not item.strip():
                if items:
                    break
                continue  # blank lines between the list and its total
            if not list_item(item):
                break
            amounts = [q for q in quantities(mentions(item), item, False)
                       if q.unit == target.unit and (q.per or "") == (target.per or "")]
            if not amounts:
                return None  # an item without an amount of its own: the list adds up nothing
            items.extend(reversed(_item_amounts(item, amounts)))
        if len(items) < 2:
            return None
        items.reverse()
        expression = " ".join(("− " if q.value < 0 else "+ ") + q.shown for q in items)[2:]
        if items[0].value < 0:
            expression = "− " + expression
        step = _Step(sum(q.value for q in items), target.unit, expression, "list", False, None, tuple(items))
        return step
    return None
