"""What a run costs: a small price table per model, US dollars per million tokens.

The table shipped with groundlab (``prices.json`` here) holds Anthropic's list prices as of its
``date``, with its ``source``; prices change, so a table of your own (``--price-table FILE``, or
the ``GROUNDLAB_PRICE_TABLE`` variable) adds models or replaces their prices. The Message
Batches API bills half of each price (``batch_discount``). A price is an estimate of the bill, not
the bill: it ignores taxes, credits and any price agreed apart.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from ...core.records import InputError

PRICE_TABLE_VARIABLE = "GROUNDLAB_PRICE_TABLE"
BUILT_IN = Path(__file__).with_name("prices.json")


@dataclass(frozen=True)
class Price:
    """One model's price per million tokens; ``long_prompt`` is ``(above, input, output)`` for a
    model that bills every token of a request at another rate once its prompt has more than
    ``above`` input tokens."""

    input: float
    output: float
    long_prompt: Optional[Tuple[int, float, float]] = None
    table: str = ""  # which table it came from, as the summary names it

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        rate_in, rate_out = self.input, self.output
        if self.long_prompt and input_tokens > self.long_prompt[0]:
            rate_in, rate_out = self.long_prompt[1], self.long_prompt[2]
        return (input_tokens * rate_in + output_tokens * rate_out) / 1_000_000

    def describe(self) -> str:
        text = f"{money(self.input, exact=True)} / {money(self.output, exact=True)} per million input / output tokens"
        if self.long_prompt:
            text += (f" ({money(self.long_prompt[1], exact=True)} / {money(self.long_prompt[2], exact=True)} "
                     f"above {self.long_prompt[0]:,} input tokens)")
        return f"{text}, {self.table}"


@dataclass(frozen=True)
class PriceTable:
    models: Mapping[str, Price]
    batch_discount: float = 0.5

    def price(self, model: str) -> Optional[Price]:
        """The price of ``model``, also under its name without a date (``claude-x-20260101``)."""
        return entry_for(self.models, model)


def entry_for(models: Mapping[str, Any], model: str) -> Any:
    """``models[model]``, or the entry of its name without a date (``claude-x-20260101`` takes
    ``claude-x``); ``None`` for a name the table lacks. Never a wider family: a later model of
    the same line (``claude-x-2``) may take other parameters or cost more.

    >>> entry_for({"claude-x": 1}, "claude-x-20260101"), entry_for({"claude-x": 1}, "claude-x-2")
    (1, None)
    """
    if model in models:
        return models[model]
    stem, _, tail = model.rpartition("-")
    if stem and tail.isdigit() and len(tail) == 8 and tail.isascii():
        return models.get(stem)
    return None


def money(amount: float, exact: bool = False) -> str:
    """Dollars, with two significant digits below one dollar.

    >>> money(0.0683), money(0.0034), money(12.345), money(4, exact=True), money(0.1, exact=True)
    ('$0.068', '$0.0034', '$12.35', '$4', '$0.10')
    """
    if exact:
        return f"${amount:g}" if amount == int(amount) else f"${amount:.2f}"
    if amount >= 1 or amount == 0:
        return f"${amount:,.2f}"
    decimals = max(2, 1 - math.floor(math.log10(amount)))
    return f"${amount:.{decimals}f}"


def load(path: Optional[str] = None) -> PriceTable:
    """The built-in table, with ``path`` (or ``$GROUNDLAB_PRICE_TABLE``) laid over it."""
    built_in = json.loads(BUILT_IN.read_text(encoding="utf-8"))
    label = f"groundlab's price table of {built_in['date']}"
    models = _models(built_in, label, BUILT_IN)
    discount = float(built_in["batch_discount"])
    path = path or os.environ.get(PRICE_TABLE_VARIABLE) or None
    if path:
        own, label = read_table(path, "price table", '{"date": ..., "models": {"MODEL": {"input": 4, "output": 20}}}')
        models.update(_models(own, label, path))
        if "batch_discount" in own:
            discount = own["batch_discount"]
            if not _number(discount) or not 0 < discount <= 1:
                raise InputError(f"the price table {path}: batch_discount must be a number above 0 and at most 1, "
                                 f"not {discount!r}.")
    return PriceTable(models, float(discount))


def read_table(path: str, what: str, example: str) -> Tuple[Dict[str, Any], str]:
    """A table of one's own (``what``: "price table", "model table") read as JSON with a
    ``"models"`` object, and the label a summary names it by; one sentence when it is not."""
    from ...core.io import json_problem, read_text

    text = read_text(path, what)
    try:
        own = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"the {what} {path} is not JSON ({json_problem(exc)}); "
                         "fix it (docs/llm-judge.md shows the format).") from None
    if not isinstance(own, dict) or not isinstance(own.get("models"), dict):
        raise InputError(f"the {what} {path} holds no \"models\" object; write it as {example} (docs/llm-judge.md).")
    date = own.get("date")
    return own, f"the {what} {path}" + (f" of {date}" if isinstance(date, str) and date else "")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _models(table: Dict[str, Any], label: str, path: Any) -> Dict[str, Price]:
    out: Dict[str, Price] = {}
    for model, entry in table["models"].items():
        where = f"the price table {path}, model {model!r}"
        if not isinstance(entry, dict) or not _number(entry.get("input")) or not _number(entry.get("output")):
            raise InputError(f"{where}: give \"input\" and \"output\" as numbers of dollars per million tokens, "
                             "0 or more.")
        long_prompt = None
        if "long_prompt" in entry:
            tier = entry["long_prompt"]
            if not (isinstance(tier, dict) and _number(tier.get("above_input_tokens")) and _number(tier.get("input"))
                    and _number(tier.get("output"))):
                raise InputError(f"{where}: long_prompt needs above_input_tokens, input and output as numbers.")
            long_prompt = (int(tier["above_input_tokens"]), float(tier["input"]), float(tier["output"]))
        out[model] = Price(float(entry["input"]), float(entry["output"]), long_prompt, label)
    return out
