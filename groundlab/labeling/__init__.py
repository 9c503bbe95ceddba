"""Labeling: people's labels in and out. A stratified sample of a log drawn for people to label
and weighed back to the log (:mod:`.sampling`), and the spreadsheet they label it in
(:mod:`.sheet`, whose names this package carries, as ``groundlab.labeling`` always has).

May import: :mod:`groundlab.core`, :mod:`groundlab.judges`, :mod:`groundlab.measure` and
:mod:`groundlab.present` (the notebooks' tables). Only the command line imports this package.
"""

from .sheet import *  # noqa: F401,F403
from .sheet import __all__  # noqa: F401
