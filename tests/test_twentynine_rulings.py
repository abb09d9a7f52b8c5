"""One or more scenario files per Twenty-Nine ruling (N1–N11) and per option, each named after it.

Each file states its expected state (``# expect:``) or the line refused and why
(``# expect-refused:``); the expectations were worked out by hand from the rules.
"""
import pytest

from assistant.rules.scenario import OPTIONS
from scenario_expect import SCENARIOS, check

FILES = sorted((SCENARIOS / "twenty-nine").glob("*.scn"))


def test_every_ruling_and_option_has_a_scenario():
    covered = {p.name.split("-")[0] for p in FILES}
    assert covered >= {f"N{i}" for i in range(1, 12)}
    prefixes = {"trick_trumps": "option-trick-trumps", "pair": "option-pair", "double": "option-double",
                "scoring": "option-pagat", "two_point_bid": "option-two-point-bid"}
    assert set(prefixes) == set(OPTIONS)
    for key, prefix in prefixes.items():
        assert any(p.stem.startswith(prefix) for p in FILES), key


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_ruling_scenario(path):
    check(path)
