"""The cells of a labeling sheet: text made safe for a spreadsheet and read back as written, cells
cut to what a spreadsheet holds, and the fingerprints a sheet records (of the passages a claim was
judged against, of the guidelines it was labeled by).

**Formulas.** A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return (:data:`groundlab.frames.FORMULA_START`) as a formula. Quoting a cell is not
enough: a spreadsheet whose list separator is ``;`` (German or French Excel opening a ``.csv``)
splits ``a;=1+1`` into two cells, the second a live formula, whatever quotes the file puts around
the whole. So every place a cell may start is neutralised: the start of the text, and every place
right after a character some spreadsheet splits at (``,``, ``;``, a tab, a line break), after any
spaces and double quotes there (a spreadsheet takes ``"=1+1"`` for the formula it quotes). Where such a place holds a formula sign, or a ``'`` (so that the mark is never
mistaken for text), a ``'`` is put before it; a spreadsheet shows ``'=1+1`` as text. Reading a
cell back (:func:`from_cell`) takes exactly those marks out again. Sheets written before every
such place was marked (they carry no ``guidelines`` column) marked the start of a cell only; they
are read with ``fragments=False``.
"""

from __future__ import annotations

import json
from typing import Optional, Sequence

from ..core.files import sha256_file, sha256_text
from ..core.frames import FORMULA_START
from ..core.records import Passage

#: Where a spreadsheet may start a new cell inside a text: the list separators in use (``,``,
#: ``;``, tab) and line breaks.
SEPARATORS = (",", ";", "\t", "\n", "\r")

#: The most characters a spreadsheet cell holds (Excel); longer cells are cut, with a note.
CELL_LIMIT = 32767
CUT = " [... cut here: a spreadsheet cell holds at most 32,767 characters; see the cases file]"

_NUL = "\u2400"
_MARKED = FORMULA_START + ("'",)
#: What may stand between a cell's start and its formula sign: spaces, and the quotes of a quoted field.
_LEADING = (" ", '"')


def shown(text: str) -> str:
    """``text`` as the sheet writes it: a NUL, which would make the file binary to every reader
    (this one included), as the symbol for it, \u2400."""
    return text.replace("\0", _NUL) if "\0" in text else text


def to_cell(text: str) -> str:
    """``text`` as a sheet cell holds it: a ``'`` before every formula sign (or ``'``) that starts
    the text or follows a separator (see the module docstring).

    >>> to_cell("=1+1"), to_cell("a;=1+1,b"), to_cell("x; @y"), to_cell("it's")
    ("'=1+1", "a;'=1+1,b", "x; '@y", "it's")
    """
    text = shown(text)
    if not any(ch in text for ch in _MARKED):
        return text
    out = []
    at_start = True
    for ch in text:
        if at_start and ch in _LEADING:
            out.append(ch)
            continue
        if at_start and ch in _MARKED:
            out.append("'")
        out.append(ch)
        at_start = ch in SEPARATORS
    return "".join(out)


def from_cell(text: str, fragments: bool = True) -> str:
    """Undo :func:`to_cell`. A spreadsheet may also have dropped the ``'`` at the start of a cell
    when saving it, which leaves the text as it was. ``fragments=False`` reads a sheet of the
    earlier kind, whose cells were marked at their start only.

    >>> all(from_cell(to_cell(t)) == t for t in ("=1+1", "a;=1+1", "'=x", "''", "a\\t\\t=b", "x; '@y", "-", "a;\\"'x\\""))
    True
    """
    if "'" not in text:
        return text
    if not fragments:
        return text[1:] if text.startswith("'") and text[1:].startswith(_MARKED) else text
    out = []
    at_start = True
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if at_start and ch in _LEADING:
            out.append(ch)
            i += 1
            continue
        if at_start and ch == "'" and i + 1 < n and text[i + 1] in _MARKED:
            i += 1
            ch = text[i]
        out.append(ch)
        at_start = ch in SEPARATORS
        i += 1
    return "".join(out)


def cut_cell(cell: str) -> str:
    """A cell no longer than a spreadsheet holds: cut, with :data:`CUT` at its end, when longer."""
    return cell if len(cell) <= CELL_LIMIT else cell[:CELL_LIMIT - len(CUT)] + CUT


def was_cut(cell: str) -> bool:
    """Whether a cell read back was cut to the spreadsheet limit on export (it ends in :data:`CUT`)."""
    return cell.rstrip().endswith(CUT.strip())


def norm(text: str) -> str:
    """Text with its runs of white space as one space: what a spreadsheet may change in a cell."""
    return " ".join(text.split())


def same_text(cell: str, text: str, fragments: bool = True) -> bool:
    """Whether a sheet's cell holds ``text`` (white space aside). A cell cut on export holds its
    beginning: it matches the text that begins so, compared as written to the sheet and as read
    back (the cut may fall inside a ``'`` mark)."""
    if not was_cut(cell):
        return norm(from_cell(cell, fragments)) == norm(shown(text))
    head = cell.rstrip()[:-len(CUT.strip())]
    head = norm(head)
    if not head:
        return False
    return norm(to_cell(text)).startswith(head) or norm(shown(text)).startswith(norm(from_cell(head, fragments)))


def passages_fingerprint(passages: Sequence[Passage]) -> str:
    """``sha256:`` and 16 hex digits of the passages a claim is judged against (their ids and
    texts, in order): what the sheet records so that labels are never read back onto other passages.
    The ``sha256:`` keeps a spreadsheet from taking the digits for a number."""
    return "sha256:" + sha256_text(json.dumps([[p.id, p.text] for p in passages], ensure_ascii=False))[:16]


def guidelines_fingerprint(path) -> str:
    """``sha256:`` and the 64 hex digits of a guidelines file's bytes."""
    return "sha256:" + sha256_file(path)


def short(fingerprint: Optional[str]) -> str:
    """A fingerprint as a sentence shows it: ``sha256:3f2a9c1e…``."""
    if not fingerprint:
        return "(none recorded)"
    return fingerprint[:15] + "\u2026" if len(fingerprint) > 16 else fingerprint


__all__ = ["CELL_LIMIT", "CUT", "SEPARATORS", "cut_cell", "from_cell", "guidelines_fingerprint", "norm",
           "passages_fingerprint", "same_text", "short", "shown", "to_cell", "was_cut"]
