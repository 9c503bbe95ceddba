"""Exploring the claims of every judge: one frame of them (:func:`claims_to_explore`) and
:class:`ClaimExplorer`, menus for verdict, kind, process and judge above the table they filter
(a table to sort, search and filter where widgets cannot show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict

import pandas as pd

from ..core import formatting as fmt
from ..core.records import GroundlabError
from .tables import _escape, _readable, _styler, table

if TYPE_CHECKING:  # pragma: no cover
    from .judge_comparison import JudgeComparison


def claims_to_explore(comparison: "JudgeComparison") -> pd.DataFrame:
    """Every judge's claims in one frame for exploring: judge, case, process, claim, kind, the
    judge's verdict, the person's label, the claim, the judge's reason and the evidence sentence
    that decided it, every figure written for reading."""
    frames = []
    for name, ev in comparison.evaluations.items():
        claims = ev.claims
        process = ev.cases.set_index("case_id")["process"]
        frames.append(pd.DataFrame({
            "judge": name, "case": claims["case_id"],
            "process": claims["case_id"].map(process).fillna("(no process)"),
            "claim": claims["claim"], "kind": claims["kind"], "verdict": claims["verdict"].fillna("undecided"),
            "person": claims["label"].fillna("\u2014"), "text": claims["text"], "reason": claims["reason"],
            "evidence": (claims["evidence"] if "evidence" in claims else pd.Series("", index=claims.index))
            .map(lambda x: x if isinstance(x, str) else "")}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: The filters of :func:`claim_explorer`, each a column of :func:`claims_to_explore`.
EXPLORER_FILTERS = ("verdict", "kind", "process", "judge")


def widget_bundle(shown: Any) -> Dict[str, Any]:
    """What a notebook shows of an object with a widget: its widget where ipywidgets can show one,
    beside its static HTML (``fallback_html``) for an HTML copy or a viewer without a kernel, and
    its ``repr`` as text."""
    data = {"text/html": shown.fallback_html(), "text/plain": repr(shown)}
    box = shown.widget()
    if box is not None:
        bundle = box._repr_mimebundle_()
        data.update({k: v for k, v in bundle.items() if k != "text/plain"})
    return data


@dataclass(repr=False)
class ClaimExplorer:
    """The claims to explore (:func:`claim_explorer`). In JupyterLab with ipywidgets: a menu for
    each of verdict, kind, process and judge above the table they filter. Where widgets cannot
    show (no ipywidgets, an HTML copy, a viewer without a kernel), the same claims as one table
    to sort, search and filter by column (its static fallback)."""

    frame: pd.DataFrame

    def filtered(self, **chosen: str) -> pd.DataFrame:
        """The claims whose columns have the chosen values (``verdict="contradicted"``); ``"all"``
        or ``None`` keeps every value."""
        unknown = [k for k in chosen if k not in EXPLORER_FILTERS]
        if unknown:
            raise GroundlabError(f"the claims can be filtered by {', '.join(EXPLORER_FILTERS)}, not {unknown[0]!r}.")
        keep = pd.Series(True, index=self.frame.index)
        for name, value in chosen.items():
            if value not in (None, "all"):
                keep &= self.frame[name] == value
        return self.frame[keep]

    def fallback_html(self) -> str:
        note = ("<p>Filter the claims by typing a verdict, kind, process or judge (or any word) in the search box "
                "above the table, sort them by any heading. (In JupyterLab with ipywidgets, a menu for each of "
                "verdict, kind, process and judge filters them.)</p>")
        return note + table(self.frame, empty="No claim to explore: no case has a claim")._repr_html_()

    def widget(self):
        """The menus and the table they filter, as ipywidgets (``None`` without ipywidgets)."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return None
        menus = {name: widgets.Dropdown(options=["all"] + sorted(map(str, self.frame[name].unique())), value="all",
                                        description=name) for name in EXPLORER_FILTERS}
        # the table as escaped static HTML in an HTML widget: no output captured from inside a
        # display (an Output widget there can leave a headless kernel waiting), no script to run
        shown = widgets.HTML()
        count = widgets.HTML()

        def update(*_):
            rows = self.filtered(**{name: menu.value for name, menu in menus.items()})
            count.value = f"<b>{_escape(fmt.count(len(rows), 'claim'))}</b> of {len(self.frame)}"
            shown.value = (_styler(_readable(rows)).to_html() if len(rows) else
                           "<p>No claim has all the values chosen: choose another.</p>")

        for menu in menus.values():
            menu.observe(update, names="value")
        update()
        return widgets.VBox([widgets.HBox(list(menus.values())), count, shown])

    def _repr_mimebundle_(self, include=None, exclude=None):
        return widget_bundle(self)

    def __repr__(self) -> str:
        return f"{fmt.count(len(self.frame), 'claim')} to explore, by {fmt.joined(EXPLORER_FILTERS, 'or')}"


def claim_explorer(comparison: "JudgeComparison") -> ClaimExplorer:
    """The claims of every judge in ``comparison`` to explore, filtered by verdict, kind, process
    and judge (:class:`ClaimExplorer`).

    >>> from groundlab import sample_path
    >>> from groundlab.present.judged import judged_cases
    >>> explorer = claim_explorer(judged_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl"),
    ...                                        ["signals", "rules"]))
    >>> len(explorer.filtered(verdict="contradicted", judge="signals")), len(explorer.filtered(kind="date"))
    (3, 4)
    """
    return ClaimExplorer(claims_to_explore(comparison))
