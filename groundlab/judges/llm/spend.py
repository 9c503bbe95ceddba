"""What a run of the llm judge spends (:class:`Usage`: requests, cache hits, tokens, their price,
retries, failures) and would spend (:class:`Estimate`, what ``--dry-run`` prints), and the price
in words (:func:`price_text`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from . import capabilities, pricing
from .capabilities import Shape
from .prompt import CHARS_PER_TOKEN, OUTPUT_TOKENS_PER_CLAIM, TOOL_USE_OVERHEAD, fixed_tokens, thinking_estimate

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_PROVIDER = "anthropic"


@dataclass
class Usage:
    """What a judge has spent so far."""

    requests: int = 0  # sent and answered (retries not counted)
    batched: int = 0  # of which answered through the Message Batches API
    cached: int = 0  # answered from the cache
    failed: int = 0  # gave up after retries, refused, or answered with something unusable
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0  # thinking tokens included, as the API bills them
    thinking_tokens: int = 0  # of the output tokens, as far as the replies counted them
    cost: float = 0.0  # dollars, by the price table, of the replies with token counts
    unmetered: int = 0  # replies whose token counts were missing or not numbers
    filtered: int = 0  # requests or replies a content filter blocked (SAP AI Core's orchestration)
    batches: List[str] = field(default_factory=list)  # ids of the batches this run used


@dataclass(frozen=True)
class Estimate:
    """What a run would cost: requests to send, requests the cache answers, input tokens
    (estimated, each request's fixed part included), output tokens (estimated at
    :data:`~.prompt.OUTPUT_TOKENS_PER_CLAIM` a claim, plus ``thinking_tokens`` for a model that
    thinks, assumed at :data:`~.prompt.THINKING_ESTIMATE` a request) and their price (``None`` when
    the price table has none for the model)."""

    requests: int
    cached: int
    input_tokens: int
    output_tokens: int = 0
    cost: Optional[float] = None
    price: Optional[pricing.Price] = None
    batch: bool = False
    model: str = DEFAULT_MODEL
    thinking_tokens: int = 0
    shape: Shape = capabilities.FORCED_TOOL
    provider: str = DEFAULT_PROVIDER

    def __str__(self) -> str:
        fixed = fixed_tokens(self.shape)
        what = ("the system prompt and the schema of the answer" if self.shape.kind == "json" else
                f"the system prompt, the tool definition and about {TOOL_USE_OVERHEAD} tokens the API adds for "
                "tool use")
        text = (f"{self.requests} request{'s' * (self.requests != 1)} to send, {self.cached} answered "
                f"from the cache; about {self.input_tokens:,} input tokens (an estimate: each request's "
                f"text at {CHARS_PER_TOKEN} characters a token, plus a fixed {fixed:,} a request for {what}) "
                f"and about {self.output_tokens:,} output tokens ({OUTPUT_TOKENS_PER_CLAIM} a claim")
        if self.thinking_tokens:
            per = thinking_estimate(self.shape)
            text += (f", and {self.thinking_tokens:,} of thinking, a guess at {per:,} a request: the model thinks "
                     "as it decides, and the summary of a run gives what it counted")
        text += ")"
        return f"{text}; {price_text(self.cost, self.price, self.batch, self.model, 'estimated price', self.provider)}"


def price_text(cost: Optional[float], price: Optional[pricing.Price], batch: bool, model: str, what: str,
               provider: str = DEFAULT_PROVIDER) -> str:
    """``what $0.068 at $4 / $20 per million ...``, or why there is no price."""
    if price is None and provider == "sap-ai-core":
        return (f"no price: SAP AI Core bills {model.partition(':')[0]}'s tokens at the tenant's rates for the "
                "generative AI hub (a price "
                f"table of your own, --price-table FILE or ${pricing.PRICE_TABLE_VARIABLE}, prices it per hub model)")
    if price is None:
        return (f"no price for {model} in the price table (--price-table FILE or ${pricing.PRICE_TABLE_VARIABLE} "
                "adds one)")
    half = " in batches, at half price," if batch else ""
    return f"{what} {pricing.money(cost or 0.0)}{half} at {price.describe()}"


__all__ = ["DEFAULT_PROVIDER", "Estimate", "Usage", "price_text"]
