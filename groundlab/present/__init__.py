"""Presentation: what a person reads. The steering report (Markdown and HTML), the charts and the
slides, the case cards, the notebooks' tables and frames (:mod:`.workbook`), and running the
notebooks (:mod:`.notebooks`).

May import: :mod:`groundlab.core`, :mod:`groundlab.judges` (by name, to run what a notebook asks
for), :mod:`groundlab.measure` and :mod:`groundlab.production` (targets, guard outcomes and gates to show). Never labeling,
the engines or the command line; nothing below imports this package.
"""
