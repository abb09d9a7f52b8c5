"""Run a ruling scenario file and check the expectation written in its comments.

``# expect: {JSON}`` — the replay state must contain these keys with these values.
``# expect-refused: LINE words`` — the replay must stop at LINE with a reason containing the words.
"""
import json
from pathlib import Path

from assistant.replay import replay_lines
from assistant.rules.scenario import ScenarioError

SCENARIOS = Path(__file__).parent / "scenarios"


def expectation(text):
    for line in text.splitlines():
        if line.startswith("# expect:"):
            return "state", json.loads(line.split(":", 1)[1])
        if line.startswith("# expect-refused:"):
            lineno, words = line.split(":", 1)[1].split(None, 1)
            return "refused", (int(lineno), words.strip())
    raise AssertionError("the scenario states no expectation")


def check(path):
    text = Path(path).read_text(encoding="utf-8")
    kind, want = expectation(text)
    if kind == "state":
        state = replay_lines(text.splitlines()).state()
        got = {k: state[k] for k in want}
        assert got == want
    else:
        try:
            replay_lines(text.splitlines())
        except ScenarioError as e:
            assert (e.line, want[1] in e.message) == (want[0], True), e.message
        else:
            raise AssertionError("the scenario was expected to be refused")
