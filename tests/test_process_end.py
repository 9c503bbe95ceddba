"""The ``groundlab`` program empties the package's memos when its command is done, so that Python's
last garbage collection at exit does not walk what a large run kept (``groundlab.core._gc``)."""

import gc

import pytest

from groundlab.core import _gc
from groundlab.core.numbers import mentions
from groundlab.judges.signals.claim import _claim


@pytest.fixture
def ends_restored():
    ends, enabled = list(_gc._ENDS), gc.isenabled()
    yield
    _gc._ENDS[:] = ends
    if enabled:
        gc.enable()


def test_drop_caches_empties_the_packages_memos():
    mentions("Order 2408 is blocked for 3 days.")
    _claim("Order 2408 is blocked for 3 days.")
    assert mentions.cache_info().currsize and _claim.cache_info().currsize
    _gc.drop_caches()
    assert mentions.cache_info().currsize == 0 and _claim.cache_info().currsize == 0
    # the memos work again afterwards
    assert [m.surface for m in mentions("Order 2408 is blocked for 3 days.")] == ["2408", "3"]


def test_the_program_drops_its_memos_when_its_command_is_done(monkeypatch, ends_restored):
    import groundlab.cli as cli

    seen = {}

    def command():
        mentions("Invoice 5178837457 is due in 30 days.")
        seen["kept"] = mentions.cache_info().currsize
        return 0

    monkeypatch.setattr(cli, "main", command)
    assert cli.entry() == 0
    assert seen["kept"] and mentions.cache_info().currsize == 0


def test_the_memos_are_dropped_when_the_command_fails(monkeypatch, ends_restored):
    import groundlab.cli as cli

    def command():
        mentions("Invoice 5178837457 is due in 30 days.")
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", command)
    with pytest.raises(KeyboardInterrupt):
        cli.entry()
    assert mentions.cache_info().currsize == 0


def test_a_caller_of_main_keeps_its_memos(capsys):
    from groundlab.cli import main

    mentions("Order 2408 is blocked for 3 days.")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert "groundlab" in capsys.readouterr().out
    assert mentions.cache_info().currsize
