"""The core: what a case is and how a run is measured, with nothing about who shows it or where.

Records (:mod:`.records`), reading cases and writing files (:mod:`.io`, :mod:`.rows`,
:mod:`.frames`, :mod:`.outputs`), claims, citations and abstentions (:mod:`.claims`), numbers and
kinds (:mod:`.numbers`, :mod:`.kinds`), the measures and their ranges (:mod:`.metrics`,
:mod:`.stats`, :mod:`.weighted`, :mod:`.curves`), how figures read (:mod:`.formatting`), the
judge's identity (:mod:`.identity`) and data policy (:mod:`.masking`, :mod:`.policy`); above
them, running a judge over cases (:mod:`.evaluate`), the counts and figures of a run
(:mod:`.counts`, :mod:`.summary`) and comparing two runs (:mod:`.compare`).

May import: the standard library and the declared dependencies, and :mod:`groundlab.judges` in
its upper modules only (``policy``, ``evaluate``, ``counts``, ``summary``, ``compare``), which
build the judges they run; the basic modules below the judges import nothing of groundlab's
outside ``core``. Never the importers, the engines, presentation, production, labeling or the
command line (``tests/test_architecture.py`` checks it).
"""

__version__ = "0.1.0"
