"""What a second newcomer met at the keyboard simulator (`card-assistant sim`) and in the words of
the box and of `card-assistant replay`: each test names the fault and plays the real command."""
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.replay import replay_lines
from assistant.rules.scenario import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def sim(tmp_path, keys, *args):
    """`card-assistant sim` fed ``keys`` (one line each) through a pipe; everything it printed."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path),
                          *args], input="\n".join(keys) + "\nq\n", capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=env)
    assert got.returncode == 0, got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    return got.stdout


def screens(out):
    return [ln for ln in out.split("\n") if "screen:" in ln]


# Twenty-Nine from the new-match menu: P1 deals, P2 bids 16, the others pass, P2 lays 7H face down,
# then P2's side takes three tricks of 7 points (J 9 A 10 of a suit), 21 in all
TWENTY_NINE_21 = ["d", "", "", "JS", "", "a", "", "a", "", "a", "", "2 7H",
                  "JS", "9S", "AS", "10S", "JD", "9D", "AD", "10D", "JC", "9C", "AC", "10C"]


def test_sim_a_round_made_says_the_points_taken_not_a_number_that_reads_as_points(tmp_path):
    """Fault: a round finished with 21 points taken on a bid of 16 said "P2+P4 made 16", which
    reads as 16 points. Now it says the points the bidding side took, and made or missed."""
    out = sim(tmp_path, TWENTY_NINE_21 + ["m", "d", "d", ""])
    assert "screen: hand-over: P2 bid 16, finished / Made: 21 points / P2+P4 +1" in out, screens(out)[-3:]
    assert "made 16" not in out


def test_replay_a_flip_out_of_turn_names_the_seats_by_their_names():
    """Fault: with `seats Ann Bob`, a flip line for the wrong seat said "the flip goes on with P2,
    not P1", the only refusal that used P-numbers where the seats have names."""
    with pytest.raises(ScenarioError) as e:
        replay_lines(["game towers", "seats Ann Bob", "flip Ann 9H", "flip Ann KS"])
    assert (e.value.line, e.value.message) == (4, "the flip goes on with Bob, not Ann")
