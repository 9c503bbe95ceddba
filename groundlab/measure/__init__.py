"""Measuring: running the judges over cases and the figures of a run, the floor above the judges.

The data policy every judge runs behind (:mod:`.policy`: ``make_judge``, the one place a judge is
made), judging cases into the claim and case frames or into counts only (:mod:`.evaluate`), the
counts that add up across shards (:mod:`.counts`), every figure of a run computed from them
(:mod:`.figures`) and given for an evaluation (:mod:`.summary`), and two runs compared: each
measure paired (:mod:`.paired`), two judges claim by claim (:mod:`.judge_diff`) and two
configurations (:mod:`.compare`).

May import: :mod:`groundlab.core` and :mod:`groundlab.judges`; never the importers, the engines,
presentation, production, labeling or the command line (``tests/test_architecture.py`` checks it).
"""
