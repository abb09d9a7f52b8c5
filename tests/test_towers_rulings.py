"""One scenario file per towers ruling (T1–T9), each named after the ruling it covers."""
import pytest

from scenario_expect import SCENARIOS, check

FILES = sorted((SCENARIOS / "towers").glob("*.scn"))


def test_every_ruling_has_a_scenario():
    covered = {p.name.split("-")[0] for p in FILES}
    assert covered >= {f"T{i}" for i in range(1, 10)}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_ruling_scenario(path):
    check(path)
