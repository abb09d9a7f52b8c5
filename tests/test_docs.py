"""The documentation in docs/ stays honest (issue 9 item 1): every ruling ID that docs/rules.md
names has a scenario test, every word the scenario parser accepts is in docs/scenario-format.md,
and no tracked file points outside the repository."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from assistant.replay import replay_lines
from assistant.rules.scenario import ACTIONS, OPTIONS

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
FORMAT = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
SCENARIOS = sorted((ROOT / "tests" / "scenarios").rglob("*.scn"))
RULING_ID = re.compile(r"\b([TNSD]\d{1,2})\b")


def ids_covered(path):
    """The ruling IDs a scenario file covers: its name's first word, and IDs in its opening comment."""
    ids = {path.name.split("-")[0]}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        ids |= set(RULING_ID.findall(line.split(":")[0]))
    return ids


def test_every_ruling_in_the_rules_has_a_scenario_test():
    named = set(RULING_ID.findall(RULES))
    assert named >= {f"T{i}" for i in range(1, 10)} | {f"N{i}" for i in range(1, 12)}
    covered = set().union(*map(ids_covered, SCENARIOS))
    assert sorted(named - covered) == []


def test_every_house_rule_is_documented_and_has_a_scenario():
    texts = [p.read_text(encoding="utf-8") for p in SCENARIOS]
    for key, values in OPTIONS.items():
        for value in values[1:]:  # the first is the default
            assert f"`{key}={value}`" in RULES, (key, value)
            assert any(f"option {key}={value}" in t for t in texts), (key, value)
        assert re.search(rf"^\| `{key}` \| " + ", ".join(f"`{v}`" for v in values) + " |$", FORMAT, re.M), key


def test_every_action_word_the_parser_accepts_is_documented():
    documented = set(re.findall(r"^\| `([a-z0-9]+)[ `]", FORMAT, re.M))
    assert set(ACTIONS) | {"game", "seats", "option"} <= documented, \
        sorted(set(ACTIONS) - documented)
    for word, (game, _) in ACTIONS.items():  # and under the right game's heading
        heading = {"both": "Both games:", "towers": "Towers only:", "twenty-nine": "Twenty-Nine only:"}[game]
        section = FORMAT.split(f"\n{heading}\n", 1)[1].split("\n\n", 1)[0]
        assert f"| `{word}" in section, (word, heading)


def test_the_format_pages_example_replays():
    example = FORMAT.split("## Example", 1)[1].split("```")[1]
    match = replay_lines(example.splitlines())
    assert match.state()["dealer"] == "Bob" and match.state()["trump"] == "H"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                    reason="needs a git checkout to list the tracked files")
def test_no_tracked_file_points_outside_the_repository():
    """No relative path up into a folder beside the checkout, no absolute path into the machine
    the project was made on: the tests must pass in a clone with nothing beside it."""
    outside = ["..", "shared"]
    patterns = ["/".join(outside), "/" + "work" + "/"]
    found = []
    for pattern in patterns:
        out = subprocess.run(["git", "grep", "-n", "-F", pattern], cwd=ROOT, capture_output=True, text=True)
        found += out.stdout.splitlines()
    assert found == []
