"""A real browser for the tests: Debian's headless Chromium, driven from the command line.

What a reader sees is measured by a script the test adds to a *copy* of the page (the report
itself runs no script): the copy reports, in an element ``#gl-measure`` that ``--dump-dom``
prints, where the decision panel ends, which elements' text runs out of their box, and whether
the interactive tables started. Printing goes through ``--print-to-pdf``, with the page size
forced to A4 or Letter; pypdf counts the pages and reads their text.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)

#: Headless and offline: without the background-networking flags Chromium tries hosts this
#: machine cannot reach, many at a time.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--force-device-scale-factor=1"]

#: The script added to the copy: measures the page as laid out and writes the result as JSON.
MEASURE = r"""
<script>
window.addEventListener("load", () => setTimeout(() => {
  const out = {overflow: [], tiles: [], panel_bottom: null, datatables: 0, details: 0, marks: 0};
  const panel = document.getElementById("decision-panel");
  if (panel) out.panel_bottom = panel.getBoundingClientRect().bottom + window.scrollY;
  const footer = document.querySelector("footer");
  if (footer) out.footer_bottom = footer.getBoundingClientRect().bottom + window.scrollY;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.id === "gl-measure" || ["SCRIPT", "STYLE", "svg", "path"].includes(el.tagName)) continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden" || !el.clientWidth) continue;
    if (["auto", "scroll"].includes(style.overflowX)) continue;  // a box that scrolls shows all of it
    if (el.scrollWidth > el.clientWidth + 1 && !el.closest(".dt-scroll-body, .dt-container")) {
      out.overflow.push({tag: el.tagName, cls: String(el.className || ""), text: el.textContent.slice(0, 80),
                         scroll: el.scrollWidth, client: el.clientWidth});
    }
  }
  for (const tile of document.querySelectorAll(".tile")) {
    const box = tile.getBoundingClientRect();
    for (const child of tile.querySelectorAll("*")) {
      const r = child.getBoundingClientRect();
      if (r.width && (r.right > box.right + 1 || r.left < box.left - 1 || r.bottom > box.bottom + 1)) {
        out.overflow.push({tag: child.tagName, cls: String(child.className || ""), text: child.textContent.slice(0, 80),
                           outside_tile: tile.id});
      }
    }
    out.tiles.push({id: tile.id, bottom: box.bottom + window.scrollY});
  }
  out.datatables = document.querySelectorAll("table.dataTable").length;
  out.sortable = document.querySelectorAll("table.dataTable th.dt-orderable-asc, table.dataTable th.dt-orderable-desc").length;
  out.search = document.querySelectorAll(".dt-search input, .dt-container input[type=search]").length;
  const cards = document.querySelectorAll("details.gl-case");
  out.details = cards.length;
  for (const d of cards) d.open = true;
  out.marks = document.querySelectorAll("details.gl-case mark").length;
  out.opened_height = document.body.scrollHeight;
  const pre = document.createElement("pre");
  pre.id = "gl-measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 600));
</script>
"""


#: The script added to a copy of a notebook's HTML copy: in every interactive table that shows,
#: a person's click on a column heading (mouse down, up and click on whatever element lies at
#: the middle of the heading's text, as a pointer would hit it), twice; the first column's cells
#: of the rows shown are read before and after each click.
SORT = r"""
<script>
const glWait = ms => new Promise(done => setTimeout(done, ms));
function glClick(el) {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  for (const type of ["mousedown", "mouseup", "click"]) {
    hit.dispatchEvent(new MouseEvent(type, {bubbles: true, cancelable: true, view: window, clientX: x, clientY: y,
                                            button: 0}));
  }
  return hit;
}
window.addEventListener("load", () => setTimeout(async () => {
  const out = [];
  for (const box of document.querySelectorAll(".dt-container")) {
    const heads = [...box.querySelectorAll(".dt-scroll-head thead th, table.dataTable > thead th")];
    const rows = () => [...box.querySelectorAll(".dt-scroll-body table.dataTable > tbody > tr, "
                                                 + "table.dataTable:not(.dt-scroll-head table) > tbody > tr")]
                       .filter(tr => tr.cells.length > 1).map(tr => [...tr.cells].map(td => td.textContent));
    const shown = rows();
    if (!heads.length || shown.length < 2 || !box.getBoundingClientRect().width) continue;
    box.scrollIntoView();
    // the first column whose cells differ, as a person would pick one to sort by
    let column = [...heads.keys()].find(i => new Set(shown.map(r => r[i])).size > 1);
    if (column === undefined) continue;
    const th = heads[column];
    const title = th.querySelector(".dt-column-title") || th;
    const read = () => rows().map(r => r[column]);
    const before = read();
    const hit = glClick(title); await glWait(300);
    const once = {cells: read(), classes: String(th.className)};
    glClick(title); await glWait(300);
    const twice = {cells: read(), classes: String(th.className)};
    const info = box.querySelector(".dt-info");
    out.push({heading: title.textContent, column, hit: hit.tagName + "." + String(hit.className), before,
              once, twice, rows: shown.length, info: info ? info.textContent : ""});
  }
  const pre = document.createElement("pre");
  pre.id = "gl-measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 1000));
</script>
"""


def available() -> bool:
    return CHROMIUM is not None


def _run(args: List[str], timeout: float = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="gl-chromium-") as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              timeout=timeout, text=True)


def _copy(page: Path, folder: Path, extra_head: str = "", extra_body: str = "", print_layout: bool = False) -> Path:
    """A copy of ``page`` beside the test's files with ``extra_head`` and ``extra_body`` added;
    with ``print_layout`` its print rules apply on screen, so the print layout can be measured."""
    text = Path(page).read_text(encoding="utf-8")
    if print_layout:
        text = text.replace("@media print", "@media all")
    text = text.replace("</head>", extra_head + "</head>", 1).replace("</body>", extra_body + "</body>", 1)
    copy = Path(folder) / f"measured-{Path(page).name}"
    copy.write_text(text, encoding="utf-8")
    return copy


def measure(page: Path, folder: Path, width: int = 1280, height: int = 900, print_layout: bool = False,
            budget_ms: int = 8000) -> Dict:
    """Lay ``page`` out in a window of ``width`` × ``height`` and say what the script found."""
    head = "<style>body{width:186mm !important;max-width:186mm !important}</style>" if print_layout else ""
    copy = _copy(page, folder, head, MEASURE, print_layout)
    done = _run([f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}", "--dump-dom",
                 copy.as_uri()])
    found = re.search(r'<pre id="gl-measure">(.*?)</pre>', done.stdout, re.S)
    if not found:
        raise AssertionError(f"chromium did not lay out {page.name}: {done.stderr[-2000:]}")
    import html

    return json.loads(html.unescape(found.group(1)))


def click_headings(page: Path, folder: Path, width: int = 1280, height: int = 900, budget_ms: int = 20000) -> List[Dict]:
    """Click a column heading of every interactive table ``page`` shows, twice, as a person does
    (:data:`SORT`), and say for each table the heading, the element the click landed on, and the
    cells of that column on the page shown before, after the first click and after the second, with
    the heading's classes after each, and the table's line under it ("Showing 1 to 10 of 24
    entries")."""
    copy = _copy(page, folder, "", SORT)
    done = _run([f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}", "--dump-dom",
                 copy.as_uri()])
    found = re.search(r'<pre id="gl-measure">(.*?)</pre>', done.stdout, re.S)
    if not found:
        raise AssertionError(f"chromium did not lay out {page.name}: {done.stderr[-2000:]}")
    import html

    return json.loads(html.unescape(found.group(1)))


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 900, budget_ms: int = 8000) -> Path:
    """A PNG of the first ``height`` pixels of ``page`` in a window ``width`` wide."""
    done = _run([f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}",
                 "--run-all-compositor-stages-before-draw", f"--screenshot={Path(png).resolve()}",
                 Path(page).resolve().as_uri()])
    if not Path(png).exists():
        raise AssertionError(f"chromium took no screenshot of {page.name}: {done.stderr[-2000:]}")
    return Path(png)


def print_pdf(page: Path, pdf: Path, paper: str = "A4", folder: Optional[Path] = None) -> Path:
    """``page`` printed to ``pdf`` on ``paper`` (A4 or letter), without the browser's header and
    footer, as a person's Print does."""
    folder = folder or Path(pdf).parent
    copy = _copy(page, folder, f"<style>@page {{ size: {paper}; }}</style>")
    done = _run(["--no-pdf-header-footer", "--run-all-compositor-stages-before-draw", "--virtual-time-budget=5000",
                 f"--print-to-pdf={Path(pdf).resolve()}", copy.as_uri()])
    if not Path(pdf).exists():
        raise AssertionError(f"chromium printed nothing of {page.name}: {done.stderr[-2000:]}")
    return Path(pdf)


def pdf_pages(pdf: Path) -> List[str]:
    """The text of each page of ``pdf``."""
    from pypdf import PdfReader

    return [p.extract_text() or "" for p in PdfReader(str(pdf)).pages]


def pdf_page_size(pdf: Path) -> tuple:
    """The first page's width and height in millimetres."""
    from pypdf import PdfReader

    box = PdfReader(str(pdf)).pages[0].mediabox
    return round(float(box.width) / 72 * 25.4), round(float(box.height) / 72 * 25.4)
