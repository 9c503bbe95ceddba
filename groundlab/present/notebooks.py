"""Run the workbook: execute every notebook with papermill, keep an HTML copy of each.

The notebooks ship inside the package (``groundlab/data/notebooks/``, a copy of the project's
``notebooks/``), so ``groundlab run`` works from any folder once groundlab is installed. Each
notebook gets the parameters its ``parameters`` cell declares, nothing else; paths are written
relative to the folder the command runs in (the kernels' working folder), so no executed copy or
report shows a local absolute path, and everything a notebook writes goes to the output folder
through them.

The HTML copies are for people who read results: code cells left out, no script in the page.

The kernels run in the folder the command was started from, as the other commands do: that is
where the ``llm`` judge finds ``.env`` and keeps its replies (``.groundlab/cache``), so a run
of the workbook uses the same key and the same cache as ``groundlab score``.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import json
import logging
import math
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence

from ..core.io import new_file_mode, sample_path
from ..core.records import GroundlabError, visible

#: Which files in a folder are workbook notebooks: ``NN-topic.ipynb``, run in name order.
NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"

#: Parameters that name a file or folder: made absolute, so they mean what they meant where the
#: command was typed (an empty one stays empty: "none").
PATH_PARAMETERS = ("cases", "passages", "figures_dir", "report", "work_dir", "filled_sheet", "judged_file",
                   "cases_b", "passages_b", "judged_file_b", "judge_config", "targets", "slides_dir", "policy")

#: The parameter that marks a notebook comparing two configurations: one whose default names a
#: file runs only when the run is given a second cases file (``--cases-b``); one whose default is
#: empty (notebook 03, whose report adds B − A) runs either way.
SECOND_CASES = "cases_b"
#: The parameters that say how two configurations are compared: given without a second cases
#: file they would do nothing, so they are refused.
COMPARISON_PARAMETERS = ("passages_b", "pair_by", "names", "judged_file_b")

#: The nbconvert template of the HTML copies (``groundlab/data/templates/groundlab``).
HTML_TEMPLATE = "groundlab"


class NotebookFailed(GroundlabError):
    """A notebook stopped with an error; ``notebook``, ``cell`` and ``output`` say where."""

    def __init__(self, message: str, notebook: str, cell: Optional[int], output: Path):
        super().__init__(message)
        self.notebook, self.cell, self.output = notebook, cell, output


@dataclass
class RunResult:
    """What one run left in its output folder."""

    out: Path
    notebooks: List[Path] = field(default_factory=list)
    html: List[Path] = field(default_factory=list)

    @property
    def figures(self) -> List[Path]:
        return sorted((self.out / "figures").glob("*.png"))

    @property
    def report(self) -> Optional[Path]:
        path = self.out / "report.md"
        return path if path.exists() else None


def packaged_notebooks() -> Path:
    """The folder of notebooks shipped inside the package."""
    return sample_path("notebooks")


def compares_two(notebook: Path) -> bool:
    """Whether ``notebook`` exists to compare two configurations: it declares a second cases file
    with a default that names one."""
    declared = notebook_parameters(notebook)
    return SECOND_CASES in declared and bool(declared_default(notebook, SECOND_CASES))


def find_notebooks(folder: Optional[Path] = None) -> List[Path]:
    """The workbook notebooks in ``folder`` (default: ``notebooks/`` here if it holds any, else the
    ones shipped with groundlab), in name order."""
    if folder is None:
        local = Path("notebooks")
        folder = local if local.is_dir() and any(local.glob(NOTEBOOK_GLOB)) else packaged_notebooks()
    folder = Path(folder)
    if not folder.is_dir():
        raise GroundlabError(f"{folder} is not a folder; pass --notebooks a folder of NN-topic.ipynb notebooks.")
    found = sorted(folder.glob(NOTEBOOK_GLOB))
    if not found:
        raise GroundlabError(f"{folder} holds no notebooks named like 01-topic.ipynb; "
                             "'groundlab init' copies the workbook's notebooks into a folder.")
    return found


def notebook_parameters(path: Path) -> Dict[str, Dict[str, Any]]:
    """The parameters a notebook declares in its ``parameters`` cell: name -> type, default, help."""
    path = Path(path).resolve()
    try:
        stat = path.stat()
    except OSError:
        stat = None
    return dict(_inspect(str(path), stat and (stat.st_mtime_ns, stat.st_size)))


@functools.lru_cache(maxsize=64)
def _inspect(path: str, version: Any) -> Dict[str, Dict[str, Any]]:
    import papermill

    try:
        return papermill.inspect_notebook(path)
    except Exception as exc:  # papermill raises bare ValueErrors and JSON errors here
        raise GroundlabError(f"{path} cannot be read as a notebook ({exc}); fix or remove it.") from None


def parse_value(text: str) -> Any:
    """A ``-p NAME VALUE`` value: JSON when it parses (``3``, ``true``, ``["a", "b"]``), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def coerce(name: str, value: Any, declared: Mapping[str, Any]) -> Any:
    """Fit ``value`` to the type the notebook declares for ``name``, or say in one sentence why not."""
    kind = str(declared.get("inferred_type_name") or "")
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind in ("int", "float") and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise GroundlabError(f"parameter {name} must be a number, not {value!r}.")
    if kind.startswith("list") and isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if kind.startswith("list") and not isinstance(value, list):
        raise GroundlabError(f"parameter {name} must be a list, like a,b or [\"a\", \"b\"], not {value!r}.")
    if kind == "str" and not isinstance(value, str):
        return str(value)
    return value


def check_parameter_names(notebooks: Sequence[Path], names: Iterable[str]) -> None:
    """Refuse a parameter name no notebook declares (a typo would otherwise be ignored)."""
    known = sorted({name for nb in notebooks for name in notebook_parameters(nb)})
    for name in names:
        if name not in known:
            raise GroundlabError(f"no notebook has a parameter called {name!r}; the parameters are: "
                                 f"{', '.join(known) or 'none'}.")


def plan_parameters(notebooks: Sequence[Path], parameters: Mapping[str, Any], out: Path) -> Dict[Path, Dict[str, Any]]:
    """Per notebook, the parameters to pass: those of ``parameters`` it declares, with
    ``figures_dir``, ``report`` and ``work_dir`` pointed into ``out`` unless given, and paths
    written relative to the current folder, where the kernels run (``None`` or an empty path is
    passed as ``""``: none)."""
    declared = {nb: notebook_parameters(nb) for nb in notebooks}
    given = dict(parameters)
    given.setdefault("figures_dir", Path(out) / "figures")
    given.setdefault("report", Path(out) / "report.md")
    given.setdefault("work_dir", Path(out) / "labeling")
    for name in PATH_PARAMETERS:
        if name in given:
            value = given[name]
            given[name] = "" if value is None or not str(value).strip() else relative(value)
    plans = {}
    for nb, params in declared.items():
        plans[nb] = {name: coerce(name, value, params[name]) for name, value in given.items() if name in params}
    return plans


def relative(path: Any) -> str:
    """``path`` relative to the current folder (POSIX separators), as a person would type it there."""
    return Path(os.path.relpath(Path(path).resolve(), Path.cwd().resolve())).as_posix()


def declared_default(notebook: Path, name: str) -> Any:
    """The default value a notebook's ``parameters`` cell gives ``name`` (``None`` if it declares
    no such parameter, or its default is not a plain value)."""
    params = notebook_parameters(notebook)
    if name not in params:
        return None
    try:
        return ast.literal_eval(str(params[name].get("default")))
    except (ValueError, SyntaxError):
        return None


def judges_to_run(notebooks: Sequence[Path], parameters: Mapping[str, Any],
                  shared: str = "judged_file") -> List[str]:
    """The judges the notebooks of a run use (``judge``, and ``judges`` of notebook 02), each
    once: what a run judges before the notebooks start, for all of them. Only notebooks that take
    a shared result (a ``shared`` parameter: ``judged_file`` for the cases, ``judged_file_b`` for
    the second configuration's) count."""
    names: List[str] = []
    for nb in notebooks:
        declared = notebook_parameters(nb)
        if shared not in declared:
            continue
        for name in ("judge", "judges"):
            if name not in declared:
                continue
            value = (coerce(name, parameters[name], declared[name]) if name in parameters
                     else declared_default(nb, name))
            names += value if isinstance(value, list) else [value] if value else []
    return list(dict.fromkeys(str(n) for n in names))


def check_values(parameters: Mapping[str, Any], options: Optional[Mapping[str, str]] = None) -> None:
    """Refuse, in one sentence, a value a notebook would only fail on later: a negative penalty,
    a margin outside (0, 0.5), a judge that does not exist, ...

    ``parameters`` hold the values as the notebooks get them (after :func:`coerce`);
    ``options`` says how a parameter was given when not with ``-p NAME`` (``{"penalty": "--penalty"}``).
    ``judge`` is loaded as ``--judge`` is, so a judge that cannot run here is refused too; a name
    in ``judges`` need only exist (notebook 02 names the ones it cannot load and goes on).
    """
    from ..measure.policy import make_judge
    from ..judges import judge_names

    for name, value in parameters.items():
        label = (options or {}).get(name, f"-p {name}")
        if name == "penalty":
            if _bad_number(value) or value < 0:
                raise GroundlabError(f"{label} must be 0 or more, not {_show(value)}; a wrong answer costs "
                                     "that many correct ones (3 matches a 75% confidence target).")
            if value > MAX_PENALTY:  # notebook 03 draws its penalty curve up to the penalty
                raise GroundlabError(f"{label} must be at most {MAX_PENALTY:,} for the workbook, not {_show(value)}; "
                                     f"{MAX_PENALTY:,} is a 99.9% confidence target.")
        elif name == "max_penalty":
            if _bad_number(value) or not 0 < value <= MAX_PENALTY:
                raise GroundlabError(f"{label} must be more than 0 and at most {MAX_PENALTY:,}, not {_show(value)}; "
                                     "the penalty curve runs from 0 to it (9 is a 90% confidence target, "
                                     f"{MAX_PENALTY:,} one of 99.9%).")
        elif name == "margin":
            if _bad_number(value) or not 0 < value < 0.5:
                raise GroundlabError(f"{label} must be more than 0 and less than 0.5, not {_show(value)}; "
                                     "e.g. 0.05 for a range of \u00b15 points.")
        elif name in ("n_sample", "label_budget"):
            if _bad_number(value) or value < 0 or value != int(value):
                raise GroundlabError(f"{label} must be a whole number of 0 or more, not {_show(value)}; it is "
                                     "how many answers to draw for labeling (0: as many as the label request "
                                     "asks for).")
        elif name == "pair_by":
            from ..measure.compare import PAIR_BY

            if value not in PAIR_BY:
                raise GroundlabError(f"{label} must be {' or '.join(PAIR_BY)}, not {_show(value)}.")
        elif name == "names":
            from .workbook import check_names

            check_names(value, label)
        elif name == "shares":
            if value not in ("equal", "proportional"):
                raise GroundlabError(f"{label} must be equal or proportional, not {_show(value)}.")
        elif name == "judge":
            from .judge_comparison import judge_config_options

            make_judge(str(value), **judge_config_options(str(value), None, parameters.get("provider", "")))
        elif name == "provider":
            from ..judges.llm import PROVIDERS

            if str(value).strip() and str(value).strip().lower() not in PROVIDERS:
                raise GroundlabError(f"{label} {_show(value)} is not a provider of the llm judge; use "
                                     f"{' or '.join(PROVIDERS)} (or \"\" for $LLM_PROVIDER, else anthropic).")
        elif name == "judges":
            known = judge_names()
            for judge in value if isinstance(value, list) else [value]:
                if judge not in known:
                    raise GroundlabError(f"{label} names {judge!r}, which is not a judge; use some of: "
                                         f"{', '.join(known)}.")


#: The largest penalty the workbook draws (a 99.9% confidence target): its curve has a point every 0.25.
MAX_PENALTY = 1000


def _bad_number(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or math.isinf(value)


def _show(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)


@contextlib.contextmanager
def kernel_imports_this_groundlab() -> Iterator[None]:
    """Put the folder holding this groundlab first on the kernels' ``PYTHONPATH``, so a notebook
    imports the same copy as the command that runs it (a checkout, not another installed one).
    An installed groundlab is left alone: its site-packages is the kernel's own."""
    root_dir = Path(__file__).resolve().parent.parent.parent
    if root_dir.name in ("site-packages", "dist-packages"):
        yield
        return
    root = str(root_dir)
    before = os.environ.get("PYTHONPATH")
    parts = [p for p in (before or "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([root] + [p for p in parts if p != root])
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


def run_notebooks(notebooks: Sequence[Path], out: Path, plans: Mapping[Path, Mapping[str, Any]],
                  progress: Callable[[str], None] = lambda message: None, shown: str = "",
                  metadata: Optional[Mapping[Path, Mapping[str, Any]]] = None) -> RunResult:
    """Execute ``notebooks`` in order into the folder ``out``, each with its ``plans`` parameters
    (:func:`plan_parameters`) and an HTML copy beside it. ``shown``: ``out`` as messages name it
    (as the person typed it; default: relative to the current folder). ``metadata``: what to
    record in each executed notebook's metadata under ``groundlab`` (the judge's identity).

    Stops at the first notebook that fails, keeping its partial output, with a
    :class:`NotebookFailed` naming the notebook and the cell.
    """
    out = Path(out)
    result = RunResult(out)
    with kernel_imports_this_groundlab():
        for k, nb in enumerate(notebooks, 1):
            progress(f"[{k}/{len(notebooks)}] {nb.name}: running")
            start = time.monotonic()
            executed = out / nb.name
            fields = (metadata or {}).get(nb)
            try:
                _execute(nb, executed, plans[nb], Path.cwd(), str(Path(shown or relative(out)) / nb.name))
            except NotebookFailed:
                if fields and executed.exists():
                    with contextlib.suppress(Exception):  # the failure is what matters
                        record_metadata(executed, fields)
                if executed.exists():
                    with contextlib.suppress(Exception):  # the failure is what matters, not its HTML copy
                        result.html.append(to_html(executed))
                raise
            if fields:
                record_metadata(executed, fields)
            try:
                result.html.append(to_html(executed))
            except OSError:  # a full disk, a folder that cannot be written: the run did not succeed
                raise
            except Exception as exc:  # nbconvert without its templates: the notebook itself is fine
                progress(f"[{k}/{len(notebooks)}] {nb.name}: no HTML copy ({type(exc).__name__}: "
                         f"{_one_line(str(exc), 120)})")
            result.notebooks.append(executed)
            progress(f"[{k}/{len(notebooks)}] {nb.name}: done in {time.monotonic() - start:.1f} s")
    return result


def _execute(source: Path, executed: Path, parameters: Mapping[str, Any], cwd: Path, shown: str) -> None:
    """Run ``source`` into ``executed``. papermill writes its output again after every cell, so it
    writes a new temporary file of its own beside ``executed``, renamed over it at the end (also
    when a cell fails): nothing is written through a symbolic link."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    fd, name = tempfile.mkstemp(prefix=f".{executed.stem}.", suffix=".ipynb", dir=executed.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        def run() -> None:
            with _kernel_channels() as config:
                papermill.execute_notebook(str(source), str(tmp), parameters=dict(parameters), cwd=str(cwd),
                                           progress_bar=False, log_output=False, config=config,
                                           # the kernel's own notices (start-up, the interrupt it may
                                           # log while shutting down) are not the user's business; a
                                           # failing cell is reported from the notebook itself
                                           extra_arguments=["--log-level=CRITICAL"])

        started_again(run)
    except PapermillExecutionError as exc:
        _put(tmp, executed)
        first = next((line.strip() for line in (exc.source or "").splitlines() if line.strip()), "")
        number = _source_cell_number(executed, exc.cell_index)
        where = f"code cell {number}" if number else "a cell"
        if exc.exec_count:
            where += f" (In [{exc.exec_count}] in the executed copy)"
        raise NotebookFailed(
            f"{source.name} failed in {where}, `{first[:60]}{'…' if len(first) > 60 else ''}`, with "
            f"{exc.ename}: {_one_line(exc.evalue).rstrip('.')}; the partial output is in {shown}.",
            source.name, number, executed) from None
    except (GroundlabError, KeyboardInterrupt) as exc:
        _put(tmp, executed)
        if isinstance(exc, KeyboardInterrupt):
            # The kernel is shut down under the cell still waiting for it; what papermill and asyncio
            # would log about that ("Kernel died", a task's DeadKernelError at exit) is not news.
            for name in ("papermill", "asyncio"):
                logging.getLogger(name).addFilter(_after_a_stop)
        raise
    except Exception as exc:  # no kernel, a kernel that died, a timeout: nbclient and jupyter_client errors
        _put(tmp, executed)
        raise NotebookFailed(f"{source.name} could not run ({type(exc).__name__}: {_one_line(str(exc))}); "
                             f"what it wrote is in {shown}.", source.name, None, executed) from None
    _put(tmp, executed)


#: How many kernels are started for one notebook when each dies before it answers (it ran no
#: cell, so starting another changes nothing the notebook does).
KERNEL_STARTS = 3
#: How jupyter_client says a kernel died before it answered.
_DIED_AT_START = "Kernel died before replying to kernel_info"


def started_again(start: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``start(*args, **kwargs)``, called again while the kernel it starts dies before it answers,
    :data:`KERNEL_STARTS` times in all: that kernel ran no cell, so another changes nothing. The
    error of the last start, or any other error, is raised."""
    for attempt in range(1, KERNEL_STARTS + 1):
        try:
            return start(*args, **kwargs)
        except RuntimeError as exc:
            if attempt == KERNEL_STARTS or not str(exc).startswith(_DIED_AT_START):
                raise
#: The longest path a Unix socket may have, less a margin (108 bytes on Linux, 104 on macOS).
_SOCKET_PATH_MAX = 100


@contextlib.contextmanager
def _kernel_channels() -> Iterator[Any]:
    """The kernel manager's configuration for one notebook: its channels are Unix sockets in a new
    private folder, removed afterwards, where the system has them and the path fits. Over TCP the
    ports are chosen free, then bound by the kernel a moment later, and another process may take
    one in between (the kernel then dies at start); a socket file nobody else can reach has no
    such race. Elsewhere (Windows, a very long or unwritable temporary folder) the kernel uses TCP
    as usual."""
    from traitlets.config import Config

    config = Config()
    try:
        folder = tempfile.mkdtemp(prefix="glk") if os.name == "posix" else None
    except OSError:  # no temporary folder to write in: TCP, as everywhere else
        folder = None
    if folder is None:
        yield config
        return
    try:
        ip = os.path.join(folder, "k")
        if len(ip) + len("-5") <= _SOCKET_PATH_MAX:
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = ip
        yield config
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _after_a_stop(record: "logging.LogRecord") -> bool:
    """A logging filter that drops every record: set once a run was stopped."""
    return False


def record_metadata(executed: Path, fields: Mapping[str, Any]) -> None:
    """Add ``fields`` to an executed notebook's metadata, under ``groundlab``: what produced its
    figures (the judge's identity), kept with the notebook wherever it goes."""
    import nbformat

    from ..core.outputs import write_bytes

    nb = nbformat.read(str(executed), as_version=4)
    nb.metadata.setdefault("groundlab", {}).update(json.loads(json.dumps(dict(fields), default=str)))
    write_bytes(executed, nbformat.writes(nb).encode("utf-8"))


def _put(tmp: Path, target: Path) -> None:
    """Move papermill's temporary output to its place (an empty one, from a notebook that never
    started, is dropped)."""
    if tmp.exists() and tmp.stat().st_size:
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, target)
    else:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _source_cell_number(executed: Path, cell_index: int) -> Optional[int]:
    """Which code cell of the *source* notebook failed (1-based): papermill's index counts the
    cell it injects with the parameters, and its error notes are added around the cells."""
    import nbformat

    try:
        cells = nbformat.read(str(executed), as_version=4).cells
    except Exception:  # the failure message matters more than this detail
        return None
    cells = [c for c in cells if "papermill-error-cell-tag" not in c.metadata.get("tags", [])]
    before = cells[:cell_index + 1]
    return sum(1 for c in before if c.cell_type == "code"
               and "injected-parameters" not in c.metadata.get("tags", [])) or None


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: A markdown cell with this tag speaks to the person running the notebook ("Run All here"): the
#: HTML copy, which holds the results and no code to run, leaves it out.
HOW_TO_RUN_TAG = "how-to-run"
#: The same note as the notebooks of earlier versions wrote it, inside their first cell.
_RUN_ALL_NOTE = re.compile(r"\n*\*The outputs \(tables, charts, each case unfolded\) appear once the notebook has "
                           r"run: Run All here[^*]*\*")


def for_reading(nb: Any) -> Any:
    """``nb`` (an nbformat notebook) as its HTML copy shows it: without the cells that tell the
    reader how to run it (tagged :data:`HOW_TO_RUN_TAG`, or the note earlier versions wrote)."""
    nb.cells = [c for c in nb.cells if HOW_TO_RUN_TAG not in c.get("metadata", {}).get("tags", [])]
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "Run All" in cell.source:
            cell.source = _RUN_ALL_NOTE.sub("", cell.source)
    return nb


def to_html(notebook: Path) -> Path:
    """An HTML copy of an executed notebook beside it, for reading: the code cells and prompts
    left out, and no script in the page (see ``groundlab/data/templates/groundlab``); the notes
    on running it left out too (:func:`for_reading`): the copy holds results, not code to run."""
    import nbformat
    from nbconvert import HTMLExporter

    from ..core.outputs import write_bytes

    exporter = HTMLExporter(template_name=HTML_TEMPLATE, extra_template_basedirs=[str(sample_path("templates"))],
                            exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    # what from_filename would give the template: the page's title is the notebook's name
    resources = {"metadata": {"name": notebook.stem, "path": str(notebook.parent)}}
    body, _ = exporter.from_notebook_node(for_reading(nbformat.read(str(notebook), as_version=4)), resources)
    # Control characters in an output (case text, a model's reply) as visible escapes, as in the
    # report: an ESC, a right-to-left override or a NUL is never shown or copied as it is.
    return write_bytes(notebook.with_suffix(".html"), visible(body).encode("utf-8"))
