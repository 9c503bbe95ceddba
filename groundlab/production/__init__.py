"""Production: what runs beside a live assistant or in its CI. The guard that withholds an answer
before it is sent (:mod:`.guard`), gates on figures (:mod:`.gate`), targets with their
tolerances (:mod:`.targets`), the pytest helper (:mod:`.testing`) and incident records
(:mod:`.incidents`).

May import: :mod:`groundlab.core`, :mod:`groundlab.judges` and :mod:`groundlab.measure`. Never
presentation, labeling, the engines or the command line.
"""
