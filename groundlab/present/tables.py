"""Tables and sentences for reading in a notebook and its HTML copy: every cell escaped, figures
written as :mod:`groundlab.formatting` writes them, sortable and searchable once
:func:`interactive_tables` was called."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

import pandas as pd

from ..core import formatting as fmt
from ..core.formatting import markdown_text


#: Whether tables show as interactive ones (sortable, searchable, paged: itables), once a
#: notebook called :func:`interactive_tables`.
_INTERACTIVE = {"on": False}


def interactive_tables() -> "Sentences":
    """Make the tables of this notebook interactive: sorted by a click on a heading, searched
    and filtered in the box above them, paged. itables draws them offline: its script is put in
    this cell's output (and so in the notebook's HTML copy), nothing is fetched from the web.
    Without itables the tables stay static, and the sentence shown says so."""
    try:
        import itables
    except ImportError:
        _INTERACTIVE["on"] = False
        return Sentences([("Tables are static here: install itables (pip install itables) to sort, search and "
                           "filter them.", [])])
    itables.init_notebook_mode(all_interactive=False, connected=False)
    _INTERACTIVE["on"] = True
    return Sentences([("Every table below can be sorted (click a heading), searched and filtered (the box above "
                       "it) and paged.", [])])


@dataclass(repr=False)
class Table:
    """A table for reading (:func:`table`): shown interactive (itables) once
    :func:`interactive_tables` was called, else as the escaped static table. ``frame`` is what it
    shows, every figure already written as :mod:`groundlab.formatting` writes it."""

    styler: Any
    frame: pd.DataFrame
    caption: Optional[str] = None
    styled: bool = False
    source: Optional[pd.DataFrame] = None

    @property
    def data(self) -> pd.DataFrame:
        """The rows shown, as they were given (column names and values before formatting)."""
        return self.source if self.source is not None else self.frame

    def to_html(self, **kwargs) -> str:
        return self.styler.to_html(**kwargs)

    def _repr_html_(self) -> str:
        if not _INTERACTIVE["on"]:
            return self.styler.to_html()
        from itables import to_html_datatable

        # text reads from the left; a wide table scrolls inside its box instead of running out of it;
        # a click anywhere on a heading sorts (itables' default sorts only on the arrows beside the
        # words, leaving the words to be selected, and a reader clicks the words)
        options = dict(connected=False, classes="display compact", lengthMenu=[10, 25, 100, -1],
                       text_in_header_can_be_selected=False,
                       pageLength=10 if len(self.frame) > 12 else -1,
                       caption=_escape(self.caption) if self.caption else None, scrollX=True,
                       columnDefs=[{"className": "dt-left", "targets": "_all"}],
                       style="table-layout:auto;width:100%;margin:0;caption-side:bottom")
        if self.styled:  # colours need the styled table; the Styler escaped every cell
            return to_html_datatable(self.styler, allow_html=True, **options)
        # no per-column filter boxes: itables 2.9 writes the column names into them unescaped, and a
        # name can come from the data (a configuration's name); the search box filters every column
        return to_html_datatable(self.frame, showIndex=False, maxBytes=0, **options)

    def __repr__(self) -> str:
        return self.frame.to_string(index=False)

    def __getattr__(self, name: str) -> Any:  # the Styler's own methods, for those who style further
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.styler, name)


def table(frame: pd.DataFrame, percents: Sequence[str] = (), caption: Optional[str] = None,
          empty: Optional[str] = None):
    """A frame for reading in a notebook and its HTML copy: every cell and heading escaped (case
    text, passages and a model's reasons may hold markup, which must show as text, never run),
    no row numbers and no index name as a second heading row, column names in words,
    ``percents`` columns as whole percentages, whole numbers without decimals, yes/no for
    booleans, a missing value as a dash (:mod:`groundlab.formatting`). Interactive once
    :func:`interactive_tables` was called. ``empty``: the sentence shown instead of a table
    with no rows (default: one saying the table is empty).

    >>> html = table(pd.DataFrame({"answer": ["<img src=x onerror=alert(1)>"]})).to_html()
    >>> "<img" in html, "&lt;img src=x onerror=alert(1)&gt;" in html
    (False, True)
    """
    if frame.empty and (empty is not None or len(frame.columns)):
        return Sentences([(fmt.empty_sentence(empty or "Nothing to show here: the table has no rows"), [])])
    shown = _readable(frame, percents)
    return Table(_styler(shown, caption), shown, caption, source=frame)


def _readable(frame: pd.DataFrame, percents: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` with its figures written for reading: percent columns as percents, the rest by
    :func:`groundlab.formatting.readable`."""
    frame = frame.copy()
    for name in percents:
        if name in frame:
            frame[name] = frame[name].map(lambda x: fmt.percent(x) if isinstance(x, (int, float)) or x is None
                                          else x).astype(object)
    return fmt.readable(frame, percents)


def _styler(frame: pd.DataFrame, caption: Optional[str] = None):
    styler = frame.style.format(escape="html", na_rep="\u2014", precision=2)
    styler = styler.format_index(escape="html", axis=1).hide(axis="index")
    styler = styler.set_table_styles([{"selector": "td, th", "props": "text-align: left; vertical-align: top;"}],
                                     overwrite=False)
    if caption:
        styler = styler.set_caption(_escape(caption))
    return styler


def _escape(text: str) -> str:
    import html

    return html.escape(str(text), quote=True)


@dataclass(repr=False)
class Sentences:
    """Plain sentences to read, each with its notes, shown as a list (escaped)."""

    items: List[tuple[str, List[str]]]
    footnote: str = ""

    def _repr_markdown_(self) -> str:
        lines = []
        for sentence, notes in self.items:
            lines.append(f"- {markdown_text(sentence)}")
            lines += [f"  - {markdown_text(note)}" for note in notes]
        if self.footnote:
            lines += ["", f"*{markdown_text(self.footnote)}*"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        lines = []
        for sentence, notes in self.items:
            lines += [sentence] + [f"  {note}" for note in notes]
        return "\n".join(lines + ([self.footnote] if self.footnote else []))


__all__ = ["Sentences", "Table", "interactive_tables", "table"]
