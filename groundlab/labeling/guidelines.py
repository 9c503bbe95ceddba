"""The labeling guidelines: the rules people label by, written beside every sheet as
``GUIDELINES.md`` and recorded with the labels by the file's fingerprint (its sha256).

A judge's measured accuracy moves by tens of points with the labeling policy (whether a computed
number counts as supported, whether true outside knowledge does), so the policy travels with the
labels: the sheet names the guidelines' fingerprint on every row, and reading labels back refuses
to mix labels made under different guidelines without being told to. A team that labels by rules
of its own edits ``GUIDELINES.md`` (or gives its own file): sheets made after that record the new
fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from ..core.files import check_output, sha256_text, write_atomic
from ..core.io import PathLike
from ..core.records import GroundlabError
from .cells import guidelines_fingerprint

#: The file name of the guidelines beside a sheet.
GUIDELINES_FILE = "GUIDELINES.md"

GUIDELINES = """\
# Labeling guidelines

You label one claim at a time: a sentence of an assistant's answer, judged against the passages the
assistant was given for that question (shown with it) and the question itself. Nothing else counts:
not what you know, not what the assistant may have meant, not what a search would find.

## The three verdicts

- **supported**: everything the claim says follows from the passages (or the question). Other
  words are fine.
  *Passage:* "Invoices over 10,000 EUR need a second approval." *Claim:* "A second approval is
  required above 10,000 EUR." **supported**.
- **contradicted**: a passage says otherwise: another number, date, person or condition, or the
  opposite.
  *Passage:* "Blocked invoices cannot be paid." *Claim:* "Blocked invoices can be paid after 30
  days." **contradicted**.
- **unsupported**: the passages neither say it nor say otherwise. A claim that is partly supported
  and partly not is unsupported (or contradicted, if a part is contradicted).
  *Passage:* "The payment run posts the payments." *Claim:* "The payment run starts at 6 pm."
  **unsupported**: no passage gives the time.

## Computed values

A value the claim computes from the passages (a sum, a difference, a share, a date counted from a
given date) is **supported** when the arithmetic follows from the passages and is right, and
**contradicted** when it is wrong.
*Passage:* "The supplier delivered 90 of the 100 pieces ordered." *Claim:* "10 pieces are
missing." **supported**. *Claim:* "20 pieces are missing." **contradicted**.

## Outside knowledge

A claim the passages do not back is **unsupported** even when it is true: the question is whether
the passages back it, not whether it is right. *Claim:* "Germany's standard VAT rate is 19%."
with no passage giving it: **unsupported**.

## Abstentions

An answer that says it cannot answer ("I can't find that in the notes.") holds no claim: its row
says "(no claim to label; set answerable only)". Set `answerable` and leave the label empty. When
an answer declines and then says something anyway ("I can't find that, but refunds can be paid in
cash."), what it says is a claim: label it like any other.

## Answerable

Once per answer: `true` when the passages hold the answer to the question, `false` when they do
not; leave it empty when you cannot tell. An answer that declines a question its passages do
answer is a false abstention, which is why this is asked even of answers without claims.

## Can't tell

Write **can't tell** when, having read the passages, you cannot decide (the wording is ambiguous,
a passage is cut off, the claim needs a screen or a table you cannot see), and say why in the
note. A claim marked can't tell is never counted as supported: its answer waits until someone
settles it (writes the verdict in the `settled` column), and so does a claim two people labeled
differently.

## Notes

One short line on why, above all for contradicted, unsupported and can't tell: it is what the
person who settles a disagreement reads first.

## Two people

A share of the answers is labeled by a second person as well, to measure how far people agree.
The second person labels without seeing the first person's labels (their own sheet, or the view
filtered to their share) and by these same guidelines. Where the two differ, a third look settles
the claim in the `settled` column; the settled verdict is the one used.

## The judge

Unless the sheet was made with `--show-judge`, it does not show what the judge said: people who
see a suggestion tend to agree with it, and these labels are also what the judge is checked
against.
"""


@dataclass(frozen=True)
class Guidelines:
    """The guidelines a sheet is labeled by: the file, its fingerprint, and whether this call wrote
    it (``pending``: it is still to be written, once what it goes with is written)."""

    path: Path
    fingerprint: str
    written: bool = False
    pending: bool = False

    def write(self) -> "Guidelines":
        """Write groundlab's guidelines where they are pending (nothing otherwise)."""
        if not self.pending:
            return self
        check_output(self.path, False)
        write_atomic(self.path, GUIDELINES)
        return replace(self, written=True, pending=False)


def guidelines_for(folder: PathLike, given: Optional[PathLike] = None, *, write: bool = True) -> Guidelines:
    """The guidelines of the sheets written into ``folder``: ``given`` when a file is named (a
    team's own rules; it must exist), else ``GUIDELINES.md`` there: kept as it is when present (a
    team may have edited it), written from :data:`GUIDELINES` when not (with ``write=False`` left
    pending, for :meth:`Guidelines.write` once the sheet is written, so that a sheet that fails
    leaves nothing behind)."""
    if given is not None and str(given).strip():
        path = Path(given)
        if not path.is_file():
            raise GroundlabError(f"the guidelines file {path} does not exist; give the file people label by, or "
                                 "leave it out for groundlab's own (written as GUIDELINES.md beside the sheet).")
        return Guidelines(path, guidelines_fingerprint(path))
    path = Path(folder) / GUIDELINES_FILE
    if path.exists():
        if not path.is_file():
            raise GroundlabError(f"{path} is not a file; move it away, or give the guidelines file to use.")
        return Guidelines(path, guidelines_fingerprint(path))
    pending = Guidelines(path, "sha256:" + sha256_text(GUIDELINES), pending=True)
    return pending.write() if write else pending


__all__ = ["GUIDELINES", "GUIDELINES_FILE", "Guidelines", "guidelines_for"]
