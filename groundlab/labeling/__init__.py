"""Labeling: people's labels in and out. The rooms, each standing on those before it:

- :mod:`.sampling`: a stratified sample of a log drawn for people to label and their labels
  weighed back to the log (it reads no sheet);
- :mod:`.cells`: a sheet's cells kept from starting formulas and read back as written, cut to
  what a spreadsheet holds, and the fingerprints a sheet records;
- :mod:`.guidelines`: the rules people label by, written beside every sheet;
- :mod:`.sheet`: the spreadsheet people label in (blind unless asked);
- :mod:`.sources`: where labels come back from: sheets, Label Studio's and Argilla's exports;
- :mod:`.importing`: the labels checked and written into a cases file, several people's with
  their agreement and what is left to settle;
- :mod:`.tools`: the tasks and settings for Label Studio and Argilla;
- :mod:`.rounds`: a round of a drawn sample in its folder, with the second person's share;
- :mod:`.view`: the labeling view for JupyterLab (:func:`view`).

This package carries the names of them all, as ``groundlab.labeling`` always carried the sheet's.

May import: :mod:`groundlab.core`, :mod:`groundlab.judges`, :mod:`groundlab.measure` and
:mod:`groundlab.present` (the notebooks' tables). Only the command line imports this package.
"""

from .guidelines import GUIDELINES, GUIDELINES_FILE, Guidelines, guidelines_for
from .importing import Disagreement, ImportReport, apply_labels, import_labels, read_labels, settle_sheet
from .rounds import Round, SecondShare, demo_sheet, read_back, second_share, work_dir, write_round
from .sampling import LabeledSample, SheetWaiting, judge_on_sample, weigh_back
from .sheet import (CELL_LIMIT, NO_CLAIM, READ_COLUMNS, SHEET_COLUMNS, SHEET_COLUMNS_WITH_JUDGE, ExportReport,
                    export_sheet, fill_labels, read_sheet, sheet_frame, sheet_text, write_sheet)
from .tools import FORMATS, ToolExport, export_for_tool, label_studio_config
from .view import LabelingView, view

__all__ = ["CELL_LIMIT", "Disagreement", "ExportReport", "FORMATS", "GUIDELINES", "GUIDELINES_FILE", "Guidelines",
           "ImportReport", "LabeledSample", "LabelingView", "NO_CLAIM", "READ_COLUMNS", "Round", "SHEET_COLUMNS",
           "SHEET_COLUMNS_WITH_JUDGE", "SecondShare", "SheetWaiting", "ToolExport", "apply_labels", "demo_sheet",
           "export_for_tool", "export_sheet", "fill_labels", "guidelines_for", "import_labels", "judge_on_sample",
           "label_studio_config", "read_back", "read_labels", "read_sheet", "second_share", "settle_sheet",
           "sheet_frame", "sheet_text", "view", "weigh_back", "work_dir", "write_round", "write_sheet"]
