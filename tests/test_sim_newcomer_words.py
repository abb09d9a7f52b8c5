"""What a second newcomer met at the keyboard simulator (`card-assistant sim`) and in the words of
the box and of `card-assistant replay`: each test names the fault and plays the real command."""
import re
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


# towers from the new-match menu: P1 deals (the flip's first card is a black jack), 9H turned up,
# P2 accepts: the screen asks P1 for the discard, face down on P1's pad
TOWERS_TO_DISCARD = ["", "JS", "9H", ""]


def test_sim_a_card_typed_alone_while_the_screen_asks_for_the_discard_is_the_discard(tmp_path):
    """Fault: with "P1: discard face down / on P1's pad; P2 leads" on the screen, typing 9C put it
    on P2's pad, where it was P2's lead and the discard was never recorded."""
    out = sim(tmp_path, TOWERS_TO_DISCARD + ["9C", "AS"])
    # the discard is face down: the sim's line does not name it (test_sim_newcomer_examiner)
    assert "tapped a card face down on pad 1" in out and "tapped AS on pad 2" in out
    assert "play: P1 to play" in screens(out)[-1]  # 9C was the discard, AS P2's lead
    assert "Undone: P2's" not in out


def test_sim_several_cards_on_one_line_are_tapped_in_turn_until_one_is_refused(tmp_path):
    """Fault: pasting "AS KS QS" said "'AS KS Q' is not a rank". Now each card is tapped in turn
    (on the pad named, or on that of the player to act), and a refused one stops the rest."""
    out = sim(tmp_path, TOWERS_TO_DISCARD + ["1 9C", "AS KS QS QS 10S 9S"])
    assert "tapped AS on pad 2\n  tapped KS on pad 1\n  tapped QS on pad 2\n  tapped QS on pad 1\n" in out
    assert "refused: 10S 9S not tapped" in out
    assert "REFUSED: Q♠ was already played this hand" in screens(out)[-1]
    assert "is not a rank" not in out


def test_sim_cards_pasted_from_a_list_with_commas_are_tapped(tmp_path):
    """Fault: "9H, JS" (a list as written down) said "'9H, JS' is not a card"."""
    out = sim(tmp_path, ["", "9H, JS"])
    assert "tapped 9H on pad 3\n  tapped JS on pad 3" in out
    assert "upcard: J♠ to P2: P2 deals" in screens(out)[-1]


@pytest.mark.parametrize("typed,said", [
    ("pass", "'pass' is not a card or a key: choose with a/d (left/right) and Enter (OK)"),
    ("10", "'10' is not a card: write a rank then a suit, like JS, 10H or T♦"),
    ("♠J", "'♠J' is not a card: write the rank first, like J♠"),
    ("AS K", "'AS K' is not a card: 'K' is not one (type JS, a pad and a card: 2 JS, or cards"),
    ("2JS", "'2JS' is not a card: a pad and a card take a space, like 2 JS"),
    ("10 H", "'10 H' is not a card: write it without a space, like 10H"),
    ("Ann", "'Ann' is not a card or a key"),
    ("\x1b[H", "that key is no button of the box: a/d or the left and right arrows move, Enter is OK"),
])
def test_sim_a_word_that_is_no_card_says_what_a_card_is_not_a_wrong_part_of_it(tmp_path, typed, said):
    """Fault: "pass" said "'pas' is not a rank", "10" said "'0' is not a suit", "♠J" said "'J' is
    not a suit", "2JS" said "'2J' is not a rank", "10 H" said "'H' is not a card", "Ann" (no such
    player) said "'n' is not a suit", the Home key said "'\\x1b[' is not a rank": the words pointed
    at a part of what was typed that was not the mistake."""
    out = sim(tmp_path, [typed])
    assert said in out, out[-600:]


def test_sim_its_lines_break_between_words_in_a_narrow_terminal(tmp_path):
    """Fault: in a 60-column terminal the simulator's own lines (the keys, "the terminal is 60
    columns wide...", long screen words) were broken by the terminal in the middle of words."""
    from assistant.sim.keyboard import KEYS_HELP
    from test_sim_newcomer import in_terminal
    out = in_terminal(["sim", "--state-dir", tmp_path], "m\nq\n", columns=60)
    lines = [ln for ln in out.split("\n") if ln.strip()]
    assert all(len(ln) <= 60 for ln in lines), max(lines, key=len)
    tokens = out.split()
    said = KEYS_HELP + " (the terminal is 60 columns wide; the screen needs 66, or 130 at full size:"
    assert all(word in tokens for word in said.split()), out  # each word whole on one line
    assert "widen it to see the screen, its words\n    follow)" in out


def test_sim_undo_in_the_flip_says_which_card_it_took_back(tmp_path):
    """Fault: holding Back after the flip's black jack put the flip back with no word of what was
    undone (every other phase says "Undone: ..."); the newcomer could not tell it had worked."""
    out = sim(tmp_path, ["", "9H", "JS", "u"])
    assert "screen: flip: Undone: flip card J♠ / Flip for the deal: / next card to P2" in out, screens(out)


def test_sim_trump_never_called_is_turned_up_by_the_bidder_and_the_screen_says_so(tmp_path):
    """Fault (N7): when trump was never called, the eighth trick began with trump revealed and only
    a suit sign in the header changed; nothing told the bidder to turn the card up."""
    tricks = ["JS 9S AS 10S", "JD 9D AD 10D", "JC 9C AC 10C", "KS QS 8S 7S", "KD QD 8D 7D",
              "KC QC 8C 7C", "KH QH 8H 9H"]
    out = sim(tmp_path, TWENTY_NINE_21[:12] + tricks)
    assert screens(out)[-1].endswith("screen: play: P1 takes trick 7 / P2 turns up trump: 7♥"), screens(out)[-2:]
    assert "7♥" not in "".join(screens(out)[:-1])  # hidden until then


def test_sim_bots_say_the_score_with_whose_it_is(tmp_path):
    """Fault: `dev.py run` said "winner P2, score [3, 5]" (a Python list: whose 3?) and "1 matches"."""
    out = sim(tmp_path, [], "--bots", "--matches", "1", "--seed", "3", "--game", "twenty-nine")
    match = next(ln for ln in out.split("\n") if ln.startswith("match 1:"))
    assert re.match(r"match 1: P\d and P\d won, P1\+P3 \d+ - P2\+P4 \d+; \d+ actions recorded", match), match
    assert "twenty-nine: 1 match, " in out and "[" not in match


@pytest.mark.parametrize("name,key", [("Quit", "quit"), ("Menu", "the menu (hold OK)"), ("d", "Right")])
def test_sim_a_player_named_like_a_key_is_refused_at_start(tmp_path, name, key):
    """Fault: `--player Quit` was taken, and typing Quit to tap the tag quit the simulator (Menu
    opened the menu, D pressed Right): the tag could not be tapped by its name."""
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path),
                          "--player", "Ann", "--player", name], input="q\n", capture_output=True,
                         text=True, timeout=60, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert f"--player {name}: at the keyboard, typing {name} is the key for {key}, not the player's tag" in got.stderr


def test_sim_a_refused_player_tag_does_not_stay_over_the_flip(tmp_path):
    """Fault: Ann's tag tapped for a second seat was refused ("Ann already has a seat"); Back did
    not clear the alert (the seats' menu took it), and OK for a guest left it over the flip."""
    out = sim(tmp_path, ["", "Ann", "Ann", "b", "Ann", "", ""], "--player", "Ann", "--player", "Bob")
    lines = screens(out)
    assert lines[3].endswith("REFUSED: Ann already has a seat"), lines
    assert lines[4].endswith("screen: P2: tap player tag: [Guest]"), lines  # Back cleared it
    assert lines[-2].endswith("screen: P2: tap player tag: [Guest]"), lines  # OK cleared it (only)
    assert lines[-1].endswith("screen: flip: Flip for the deal: / tap one card each"), lines


@pytest.mark.parametrize("typed", ["² AS", "² Ann", "٣ AS"])
def test_sim_a_digit_that_is_no_pad_number_is_one_plain_line_not_an_internal_error(tmp_path, typed):
    """Fault: "² Ann" ("²" is a digit to str.isdigit, not to int()) ended the simulator with
    "internal error (ValueError)", and "² AS" said Python's "invalid literal for int()"."""
    out = sim(tmp_path, ["", typed], "--player", "Ann")
    assert f"{typed!r} is not a card: {typed.split()[0]!r} is not one" in out
    assert "internal error" not in out


def test_sim_on_a_box_of_pads_p1_p2_and_centre_the_seventh_card_goes_on_the_centre_pad(tmp_path):
    """Fault: on a box with the pads P1, P2 and centre (README: P3 and P4 tap on the centre pad),
    P3 dealing and P4 calling the seventh card were told "on P3's or P4's pad": pads it has not."""
    out = sim(tmp_path, ["", "", "8H", "9H", "JS", "", "a", "", "a", "", "a", "", "d", "", "1 7H"],
              "--game", "twenty-nine", "--pads", "P1,P2,centre")
    lines = screens(out)
    assert lines[-2].endswith("P4's 7th card face down / on the centre pad"), lines[-2]
    assert lines[-1].endswith("REFUSED: The trump card goes on the centre pad"), lines[-1]
    assert "P3's or P4's pad" not in out


def test_sim_deal_scan_on_a_box_of_pads_p1_p2_and_centre_asks_only_seats_with_a_pad(tmp_path):
    """Fault: with deal scan on a box with the pads P1, P2 and centre, the screen waited for P3 and
    P4 to scan their hands on pads that box has not; a card on the centre only asked whether to
    end the scan. Now only the seats with a pad of their own scan."""
    out = sim(tmp_path, ["", "", "JS", "", "a", "", "a", "", "a", "", "2 7H"],
              "--game", "twenty-nine", "--pads", "P1,P2,centre", "--deal-scan")
    assert screens(out)[-1].endswith("screen: scan: P1 deals 4 more each / Scan P1 0/8 P2 0/7"), screens(out)[-1]


def test_the_sims_words_for_an_alert_use_the_oleds_title(tmp_path):
    """Fault (newcomer): the sim's screen line said "info:" and "unknown-tag:" where the drawing
    of the OLED just above it said NOTE and UNKNOWN TAG: two names for one alert."""
    from assistant.box.view import ALERT_TITLES
    from assistant.hw.events import TagArrived
    from assistant.sim.keyboard import screen_words
    from tests.test_table import Hands, uid
    h = Hands(tmp_path)
    lying = screen_words(h.table.handle(TagArrived(1, uid("AS"), True)))
    unknown = screen_words(h.table.handle(TagArrived(3, "04DEADBEEF0000")))
    assert "| NOTE: A card is lying on" in lying and "info" not in lying, lying
    assert "| UNKNOWN TAG: " in unknown and "unknown-tag" not in unknown, unknown
    assert ALERT_TITLES["info"][0] == "NOTE" and ALERT_TITLES["unknown-tag"][0] == "UNKNOWN TAG"
