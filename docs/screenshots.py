"""Take the screenshots in docs/img/ again: the report's first screen and notebook 01's HTML copy
with a case unfolded, as headless Chromium shows them after a run of the workbook on the sample
set with its second configuration.

    python docs/screenshots.py            # needs Chromium (apt-get install chromium)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import browser  # noqa: E402

#: What the copy of notebook 01 does before its picture is taken.
OPEN_A_CASE = """
<script>
window.addEventListener("load", () => {
  // start the picture at the section where each case unfolds, with two cases open
  const cells = [...document.querySelectorAll(".jp-Cell")];
  const at = cells.findIndex(cell => cell.textContent.includes("Every case, unfolded"));
  cells.slice(0, at).forEach(cell => cell.remove());
  for (const id of ["c02", "c08"]) document.getElementById(id).open = true;
});
</script>
"""


def main() -> int:
    if not browser.available():
        print("screenshots: no Chromium here; apt-get install chromium", file=sys.stderr)
        return 2
    out = ROOT / "docs" / "img"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        subprocess.run([sys.executable, "-m", "groundlab", "run", "--cases", str(ROOT / "data" / "grounded_cases.jsonl"),
                        "--passages", str(ROOT / "data" / "notes.jsonl"), "--cases-b",
                        str(ROOT / "data" / "grounded_cases_b.jsonl"), "--notebooks", str(ROOT / "notebooks"),
                        "--out", str(run)], check=True, cwd=tmp)
        browser.screenshot(run / "report.html", out / "report.png", width=1280, height=900)
        copy = browser._copy(run / "01-groundedness.html", Path(tmp), extra_body=OPEN_A_CASE)
        browser.screenshot(copy, out / "notebook-01-case.png", width=1280, height=900)
        shutil.copy(run / "report.html", Path(tmp) / "report.html")
    for name in ("report.png", "notebook-01-case.png"):
        print(f"wrote docs/img/{name} ({(out / name).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
