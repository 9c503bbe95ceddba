"""The claim and case frames as Arrow tables with a declared schema, and a claims file written as
the run goes.

A frame built part by part (chunk by chunk, partition by partition, on other machines) must have
the same columns of the same types in every part, whatever the part holds: a part where no
claim failed still has a string ``error`` column, not an all-null one of no type. The schemas
here say what each column is; the judge's identity (:func:`groundlab.identity.judge_identity`)
travels in the schema's metadata (``groundlab.judge``), so a Parquet file of verdicts still says
which judge gave them (:func:`judge_of_schema`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence

from .io import PathLike, check_output, display_name, is_stdin, replace_atomic
from .records import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The schema metadata key that holds the judge's identity, as JSON.
JUDGE_KEY = b"groundlab.judge"


def _pa():
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        from .records import GroundlabError

        raise GroundlabError("Arrow frames need pyarrow; install it with 'pip install pyarrow'.") from None
    return pa


def read_parquet(data: bytes):
    """The Arrow table of a Parquet file's bytes, read on this thread from a buffer Arrow owns. A
    thread of Arrow's pool that still holds a Python object (a file object, the bytes) as the
    interpreter exits aborts the process ("terminate called without an active exception",
    apache/arrow#34314, #50482): ``read_table`` releases its reader on the pool even with
    ``use_threads=False`` (15 of 180 imports of a small file aborted on a busy machine, 3 of 180
    with ``pre_buffer=False``, none of 720 so)."""
    pa = _pa()
    import pyarrow.parquet as pq

    owned = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(owned).write(data)  # a copy: releasing it needs no Python
    return pq.ParquetFile(pa.BufferReader(owned), pre_buffer=False).read(use_threads=False)


def claim_schema(identity: Optional[Mapping[str, Any]] = None):
    """The Arrow schema of the claim frame (the columns of :attr:`groundlab.Evaluation.claims`)."""
    pa = _pa()
    fields = [("case_id", pa.string()), ("claim", pa.int64()), ("text", pa.string()),
              ("cites", pa.list_(pa.string())), ("verdict", pa.string()), ("reason", pa.string()),
              ("score", pa.float64()), ("error", pa.string()), ("label", pa.string()), ("citation_ok", pa.bool_()),
              ("citations", pa.int64()), ("relevant_citations", pa.int64()), ("kind", pa.string()),
              ("kinds", pa.list_(pa.string())), ("evidence", pa.string()),
              ("evidence_matched", pa.list_(pa.string())), ("evidence_clashed", pa.list_(pa.string()))]
    return pa.schema(fields, metadata=_metadata(identity))


def case_schema(identity: Optional[Mapping[str, Any]] = None):
    """The Arrow schema of the case frame's fixed columns (without ``meta.*``, whose fields vary by log)."""
    pa = _pa()
    fields = [("case_id", pa.string()), ("question", pa.string()), ("process", pa.string()),
              ("answerable", pa.bool_()), ("labeled", pa.bool_()), ("abstains", pa.bool_()),
              ("abstained", pa.bool_()), ("claims", pa.int64()), ("passages", pa.int64()),
              ("supported", pa.int64()), ("contradicted", pa.int64()), ("unsupported", pa.int64()),
              ("errors", pa.int64()), ("hallucinated", pa.bool_()), ("hallucinated_by_person", pa.bool_()),
              ("outcome", pa.string()), ("cites_by_position", pa.bool_()), ("classification", pa.string()),
              ("origin", pa.string()), ("held_back", pa.string())]
    return pa.schema(fields, metadata=_metadata(identity))


def _metadata(identity: Optional[Mapping[str, Any]]) -> Optional[Dict[bytes, bytes]]:
    if identity is None:
        return None
    return {JUDGE_KEY: json.dumps(identity, sort_keys=True, default=str).encode("utf-8")}


def judge_of_schema(schema) -> Optional[Dict[str, Any]]:
    """The judge's identity a frame's Arrow schema (or a Parquet file's) carries, or ``None``."""
    raw = (schema.metadata or {}).get(JUDGE_KEY)
    return json.loads(raw) if raw else None


def claims_table(columns: Mapping[str, Sequence], identity: Optional[Mapping[str, Any]] = None):
    """One chunk of the claim frame (column lists, as :func:`groundlab.evaluate` builds them) as an
    Arrow table of :func:`claim_schema`."""
    pa = _pa()
    schema = claim_schema(identity)
    arrays = []
    for field in schema:
        values = columns[field.name]
        if pa.types.is_list(field.type):
            values = [list(v) if v is not None else None for v in values]
        arrays.append(pa.array(values, type=field.type, from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=schema)


def cases_table(columns: Mapping[str, Sequence], identity: Optional[Mapping[str, Any]] = None):
    """One chunk of the case frame's fixed columns as an Arrow table of :func:`case_schema`
    (``extra`` spread into ``classification``, ``origin`` and ``held_back``)."""
    pa = _pa()
    schema = case_schema(identity)
    extra = columns.get("extra") or [(None, None, None)] * len(columns["case_id"])
    spread = {"classification": [e[0] for e in extra], "origin": [e[1] for e in extra],
              "held_back": [e[2] for e in extra]}
    arrays = [pa.array(spread[f.name] if f.name in spread else columns[f.name], type=f.type, from_pandas=True)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def frame_of_table(table) -> "Any":
    """An Arrow table of :func:`claims_table` as the claim frame :func:`groundlab.evaluate` gives
    (``cites`` and ``kinds`` as tuples, ``citation_ok`` nullable boolean), identity in ``attrs``."""
    import pandas as pd

    frame = table.to_pandas(types_mapper={_pa().bool_(): pd.BooleanDtype()}.get)
    for name in ("cites", "kinds"):
        if name in frame.columns:
            frame[name] = [tuple(v) if v is not None else () for v in frame[name]]
    identity = judge_of_schema(table.schema)
    if identity is not None:
        frame.attrs["judge"] = identity
    return frame


class ClaimsWriter:
    """The claim frame written to a CSV or Parquet file chunk by chunk as the run goes, into a
    temporary file beside the target that is renamed over it only when the run succeeds
    (:meth:`close`); :meth:`discard` removes it. A link at the target is replaced, never followed.
    """

    def __init__(self, path, identity: Optional[Mapping[str, Any]] = None) -> None:
        import tempfile

        self.path = Path(path)
        self.identity = identity
        self.parquet = self.path.suffix.lower() == ".parquet"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self._writer = None
        self._fh = None
        self.rows = 0

    def write(self, columns: Mapping[str, Sequence]) -> None:
        """Append one chunk of the claim frame (column lists)."""
        if not columns["case_id"] and (self._writer is not None or self._fh is not None):
            return
        self.rows += len(columns["case_id"])
        if self.parquet:
            import pyarrow.parquet as pq

            table = claims_table(columns, self.identity)
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.tmp, table.schema)
            self._writer.write_table(table)
            return
        import pandas as pd

        frame = pd.DataFrame({name: list(columns[name]) for name in claim_schema().names})
        frame["citation_ok"] = pd.array(frame["citation_ok"].tolist(), dtype="boolean")
        if self._fh is None:
            self._fh = open(self.tmp, "w", encoding="utf-8", newline="")
            _csv_ready(frame).to_csv(self._fh, index=False, lineterminator="\n")
        else:
            _csv_ready(frame).to_csv(self._fh, index=False, header=False, lineterminator="\n")

    def append_file(self, part: "ClaimsWriter") -> None:
        """Append what another writer (a worker's part, finished with :meth:`finish`) wrote, then
        remove its file: the parts of a run split over processes, in order, read a batch at a time."""
        try:
            if part.rows == 0:
                return
            self.rows += part.rows
            if self.parquet:
                import pyarrow.parquet as pq

                source = pq.ParquetFile(part.tmp)
                if self._writer is None:
                    self._writer = pq.ParquetWriter(self.tmp, claim_schema(self.identity))
                # one thread, as every Parquet read of groundlab (groundlab.importers.read)
                for batch in source.iter_batches(batch_size=65536, use_threads=False):
                    self._writer.write_batch(batch)
                return
            import shutil

            with open(part.tmp, "r", encoding="utf-8", newline="") as fh:
                header = fh.readline()
                if self._fh is None:
                    self._fh = open(self.tmp, "w", encoding="utf-8", newline="")
                    self._fh.write(header)
                shutil.copyfileobj(fh, self._fh, 1 << 20)
        finally:
            part.discard()

    def finish(self) -> None:
        """Close the file without putting it in place (a part another writer appends)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def close(self) -> Path:
        """Finish the file and put it in place."""
        from .io import new_file_mode

        if self.parquet and self._writer is None:
            import pyarrow.parquet as pq

            pq.write_table(claim_schema(self.identity).empty_table(), self.tmp)
        elif self.parquet:
            self._writer.close()
        elif self._fh is None:
            with open(self.tmp, "w", encoding="utf-8") as fh:
                fh.write(",".join(claim_schema().names) + "\n")
        else:
            self._fh.close()
        os.chmod(self.tmp, new_file_mode())
        os.replace(self.tmp, self.path)
        return self.path

    def discard(self) -> None:
        try:
            self.finish()
        finally:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass


# ---------------------------------------------------------------- a frame written as CSV or Parquet

#: The files ``score --claims-out`` and ``--cases-out`` write, by the end of their name.
FRAME_SUFFIXES = (".csv", ".parquet")


def check_frame_target(path: PathLike, force: bool, inputs: Sequence[Optional[PathLike]] = ()) -> Path:
    """Refuse a frame output that is neither ``.csv`` nor ``.parquet``, that exists (unless
    ``force``), or that is one of the ``inputs`` (even with ``force``)."""
    path = Path(path)
    if path.suffix.lower() not in FRAME_SUFFIXES:
        raise InputError(f"{display_name(path)} should end in .csv or .parquet, which says how to write it; "
                         "nothing was written.")
    return check_output(path, force, [i for i in inputs if i and not is_stdin(i)])


def write_frame(frame: "pd.DataFrame", path: PathLike, *, force: bool = False,
                inputs: Sequence[Optional[PathLike]] = ()) -> Path:
    """Write a claim or case frame as CSV or Parquet (by ``path``'s suffix), atomically.

    In a CSV, a list, tuple or object in a cell (``cites``, a ``meta`` value) is written as JSON
    (``["D07", "D06"]``), so it reads back unchanged; an unknown value is an empty cell. In
    Parquet, lists stay lists; in a column mixing kinds of values, each value that is not text
    is written as JSON text.
    """
    path = check_frame_target(path, force, inputs)

    def write(tmp: str) -> None:
        if path.suffix.lower() == ".csv":
            _csv_ready(frame).to_csv(tmp, index=False, encoding="utf-8", lineterminator="\n")
        else:
            import pyarrow.parquet as pq

            pq.write_table(_parquet_table(frame, path), tmp)

    return replace_atomic(path, write)


def write_frame_csv(frame: "pd.DataFrame", stream: Any) -> None:
    """Write a claim or case frame as CSV to an open text ``stream`` (standard output), as
    :func:`write_frame` writes a CSV file."""
    _csv_ready(frame).to_csv(stream, index=False, lineterminator="\n")


def _nested(value: object) -> bool:
    return isinstance(value, (list, tuple, dict))


#: What starts a formula in a spreadsheet cell: such a text cell gets a leading ``'``, which a
#: spreadsheet shows as text (a case's answer, a model's reason are never run as formulas).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _formula_like(text: str) -> bool:
    """A text that starts a formula, after any ``'`` (so that ``'=x`` itself is kept apart)."""
    return text.lstrip("'").startswith(FORMULA_START)


def to_csv_cell(value: object) -> object:
    """A text as a CSV groundlab writes holds it: with a leading ``'`` when it is formula-like."""
    return "'" + value if isinstance(value, str) and _formula_like(value) else value


def from_csv_cell(value: object) -> object:
    """A text cell of a CSV groundlab wrote, as it was before :func:`to_csv_cell`."""
    if isinstance(value, str) and value.startswith("'") and _formula_like(value[1:]):
        return value[1:]
    return value


def _csv_ready(frame: "pd.DataFrame") -> "pd.DataFrame":
    out = frame.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype == object and column.map(_nested).any():
            column = out[name] = column.map(lambda v: json.dumps(list(v) if isinstance(v, tuple) else v,
                                                                 ensure_ascii=False, default=str) if _nested(v) else v)
        if column.dtype == object:
            out[name] = column.map(to_csv_cell)
    out.columns = [to_csv_cell(c) for c in out.columns]
    return out


def _parquet_table(frame: "pd.DataFrame", path: Path):
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        raise InputError(f"writing {display_name(path)} needs pyarrow; install it with 'pip install pyarrow'.") from None
    arrays, names = [], []
    for name in frame.columns:
        column = frame[name]
        values = column.map(lambda v: list(v) if isinstance(v, tuple) else v) if column.dtype == object else column
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowException, TypeError, ValueError):
            array = pa.array([None if v is None or (isinstance(v, float) and v != v) else
                              v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
                              for v in values], type=pa.string())
        arrays.append(array)
        names.append(str(name))
    table = pa.Table.from_arrays(arrays, names=names)
    declared = claim_schema()
    if table.schema.names == declared.names:  # the claim frame: its declared types, whatever it holds
        table = table.cast(declared)
    identity = frame.attrs.get("judge")
    if identity:  # which judge gave the verdicts stays with them
        table = table.replace_schema_metadata({JUDGE_KEY: json.dumps(identity, sort_keys=True, default=str)})
    return table


__all__ = ["FORMULA_START", "FRAME_SUFFIXES", "check_frame_target", "from_csv_cell", "to_csv_cell", "write_frame",
           "write_frame_csv", "ClaimsWriter", "JUDGE_KEY", "case_schema", "cases_table", "claim_schema", "claims_table",
           "frame_of_table", "judge_of_schema"]
