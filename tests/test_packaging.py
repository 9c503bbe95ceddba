"""The wheel holds every package of groundlab: pyproject.toml lists its packages by name, so a
folder of modules it does not list (a module split into a package of rooms) is left out of an
installed groundlab, which then fails on its first import of it."""

from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_groundlab_is_listed_for_the_wheel():
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    found = sorted(".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "groundlab").rglob("__init__.py")
                   if "data" not in path.relative_to(ROOT / "groundlab").parts)
    assert sorted(listed) == found
    assert "groundlab.judges.signals" in found
