"""What a fifth newcomer met at the keyboard simulator, playing whole matches of both games from a
fresh clone as four (and two) people at a real table would: each test names the fault and plays
the real command where the fault was at the keyboard."""
from pathlib import Path

from assistant.box import table_towers, table_twentynine
from assistant.replay import replay_lines
from test_sim_newcomer import ROOT, piped
from test_sim_newcomer3 import screen_lines

SCENARIOS = ROOT / "tests" / "scenarios"

# towers: P2 deals (J♣), A♥ turned up, P1 accepts, P2 discards, no for 2; P2 fails to follow A♠
# with 9♦, must follow Q♥ with the up-card, P1 fails K♣ with J♠ and shows A♣: P1's renege proven;
# P1 accuses P2 from the menu and P2 shows K♠: P2's renege proven, the accusation wins the tower
BOTH_RENEGE = ("\n9H JD QS JC\nAH\n\n9S\n\nAS 9D\nQH AH\nKC JS\n9C AC\n\n"
               "m\nd\nd\nd\nd\n\n10D KS\n\n")


def test_a_second_penalty_names_the_renege_it_settles_not_the_last_one_proven(tmp_path):
    """D5. Fault: both players held a proven renege; P1's accusation of P2 was settled, then P2
    claimed P1's renege (the menu's "Claim: P1's renege"), and the screen said "Claim: P2's
    renege / replaces the hand: / P2 +1 tower": the renege proven last, P2's own, was named as
    the one P2 claimed. Twenty-Nine named the last proven renege of the round the same way, of
    either side."""
    out = piped(["sim", "--state-dir", tmp_path], BOTH_RENEGE + "m\nd\nd\n\nq\n")
    said = screen_lines(out)
    assert any(s.startswith("hand-over: Accused P2: renege proven / P1 +1 tower") for s in said), said[-6:]
    assert said[-1].startswith("hand-over: Claim: P1's renege / replaces the hand: / P2 +1 tower"), said[-3:]
    # N11/D5: P1's side claims P2+P4's reneges (P2's at trick 1, P4's at 3), then P2's side's
    # accusation of P1 (trick 4) replaces the claim: it said "Accused P4: renege proven"
    lines = (SCENARIOS / "twenty-nine" / "N11-second-penalty-in-a-round-replaces-the-first.scn").read_text()
    lines = lines.splitlines()
    claimed = replay_lines(lines[:lines.index("accuse P1")])
    names = claimed.seats
    assert table_twentynine.outcome_lines(claimed.engine, names, False)[0] == "Claim: P4's renege"
    accused = replay_lines(lines)
    assert table_twentynine.outcome_lines(accused.engine, names, True)[0] == "Accused P1: renege proven"
