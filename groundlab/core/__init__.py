"""The core, the ground floor: what a case is and how its answers and figures are read, with
nothing about who judges it, who shows it or where.

Records (:mod:`.records`), reading cases and writing files (:mod:`.reading`, :mod:`.io`,
:mod:`.files`, :mod:`.rows`, :mod:`.frames`, :mod:`.outputs`), claims, citations and abstentions
(:mod:`.claims`, :mod:`.premise`), numbers and kinds (:mod:`.numbers`, :mod:`.kinds`), the
measures and their ranges (:mod:`.metrics`, :mod:`.stats`, :mod:`.weighted`, :mod:`.curves`), how
figures read (:mod:`.formatting`), the judge's identity (:mod:`.identity`), personal-data masking
(:mod:`.masking`), secrets kept out of what is printed (:mod:`.redact`), worker processes
(:mod:`.parallel`) and a platform's rating (:mod:`.platform`).
Running a judge over cases and the figures of a run stand a floor above the judges, in
:mod:`groundlab.measure`.

May import: the standard library and the declared dependencies; nothing of groundlab's outside
``core``: never the judges, the measuring layer, the importers, the engines, presentation,
production, labeling or the command line (``tests/test_architecture.py`` checks it).
"""

__version__ = "0.1.0"
