"""The scenario format: header, actions, errors with line numbers, and writing it back."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.replay import replay_lines
from assistant.rules.scenario import ScenarioError, read_header

EXAMPLES = Path(__file__).parent / "scenarios" / "examples"  # two matches of random legal play
ROOT = Path(__file__).resolve().parents[1]


def refused(text):
    with pytest.raises(ScenarioError) as e:
        replay_lines(text.splitlines())
    return e.value.line, e.value.message


def test_header_and_comments():
    sc = read_header(["# a comment", "", "GAME Towers  # trailing", "seats ann BOB", "flip bob js"])
    assert (sc.game, sc.seats) == ("towers", ("ann", "BOB"))
    (lineno, action), = list(sc.actions())
    assert (lineno, action.kind, action.seat) == (5, "flip", 1)


@pytest.mark.parametrize("text,line,words", [
    ("flip JS", 1, "starts with 'game"),
    ("game chess", 1, "starts with 'game"),
    ("game towers\nflip JS\nseats A B", 3, "before the first action"),
    ("game towers\noption pair=on", 2, "towers has no options"),
    ("game twenty-nine\noption colour=red", 2, "unknown option"),
    ("game twenty-nine\noption double=maybe", 2, "takes off or on"),
    ("game towers\nseats A", 2, "exactly 2"),
    # docs/scenario-format.md: the header's game, seats and each option once (a second seats
    # line that renamed the players passed every test)
    ("game towers\nseats A B\nseats C D", 3, "already named"),
    ("game towers\ngame towers", 2, "already set"),
    ("game twenty-nine\noption pair=on\noption pair=off", 3, "second time"),
    ("game towers\nseats JS B", 2, "read as a card"),
    ("game towers\nflip JS\nupcard 8S", 3, "not in the towers pack"),
    ("game towers\nflip JS\nupcard ZZ", 3, "not a card"),
    ("game towers\nbid 17", 2, "unknown action 'bid' in towers"),
    ("game towers\ndance", 2, "unknown action"),
    ("game towers\nflip JS\naccuse P3", 3, "not a seat"),
    ("game towers\nundo", 2, "nothing to undo"),
])
def test_bad_lines_name_their_line(text, line, words):
    got_line, message = refused(text)
    assert got_line == line and words in message


@pytest.mark.parametrize("name", ["towers-random.scn", "twenty-nine-random.scn"])
def test_examples_replay_and_export_round_trips(name):
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    match = replay_lines(text.splitlines())
    again = replay_lines(match.export().splitlines())
    assert again.state() == match.state()
    assert again.engine.snapshot() == match.engine.snapshot()


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, input=stdin)


def test_cli_json_and_refusal(tmp_path):
    good = tmp_path / "good.scn"
    good.write_text("game towers\nseats Ann Bob\nflip JH JS\n", encoding="utf-8")
    out = cli("replay", str(good), "--json")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["dealer"] == "Bob" and state["seats"] == ["Ann", "Bob"] and state["winner"] is None
    bad = tmp_path / "bad.scn"
    bad.write_text("game towers\nflip JS\nupcard 9H\naccept\nplay 9H\n", encoding="utf-8")
    out = cli("replay", str(bad))
    assert out.returncode == 2
    assert out.stderr.strip() == "line 5: 9♥ was picked up by P1"  # one plain line, no traceback


def test_cli_summary_reads_like_words(tmp_path):
    f = tmp_path / "s.scn"
    f.write_text("game towers\nflip JS\nupcard 9H\n", encoding="utf-8")
    out = cli("replay", str(f))
    assert out.returncode == 0
    assert "Dealer: P1, 7 cards each" in out.stdout and "P2 accepts or passes" in out.stdout


@pytest.mark.parametrize("text,line,words", [
    ("game twenty-nine\nflip JS\nbid 1²", 3, "takes a number"),
    ("game towers\nflip JS\naccuse p²", 3, "not a seat"),
    ("game towers\nseats p² B\nflip JS\naccuse P3", 4, "not a seat"),
])
def test_odd_digits_are_refused_in_plain_words(text, line, words):
    got_line, message = refused(text)
    assert got_line == line and words in message


def test_a_byte_order_mark_and_emoji_suits_are_read(tmp_path):
    f = tmp_path / "bom.scn"
    f.write_bytes("\ufeffgame towers\nflip J♠\ufe0f\n".encode("utf-8"))
    out = cli("replay", str(f), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["dealer"] == "P1"


def test_the_towers_discard_is_never_named_when_refused():
    """Hidden information: playing the face-down discard is refused without naming it."""
    line, message = refused("game towers\nflip JS\nupcard 9H\npass\naccept\ndiscard AS\nplay AS")
    assert line == 7 and message == "P2 does not hold that card"  # as for any card not held


@pytest.mark.parametrize("odd", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1e"])
def test_only_a_newline_ends_a_line(tmp_path, odd):
    """Fault found by an independent implementation: the file was cut with str.splitlines, so a
    Unicode line separator, a form feed or another such character (pasted into a comment) ended
    the comment: the words after it were played as an action, and the line numbers of later
    refusals no longer matched the file as an editor, grep or sed show it. A line ends at a
    newline (LF, CRLF, or a lone CR) only."""
    f = tmp_path / "odd.scn"
    f.write_bytes(f"game twenty-nine\nflip JS # the dealer{odd}bid 16\nbid 15\n".encode("utf-8"))
    out = cli("replay", str(f), "--json")
    assert (out.returncode, out.stderr.strip()) == (2, "line 3: bids run from 16 to 29, not 15")
    f.write_bytes(f"game twenty-nine\nflip JS # the dealer{odd}bid 16\n".encode("utf-8"))
    state = json.loads(cli("replay", str(f), "--json").stdout)
    assert (state["hand"], state["bidder"], state["to_act"]) == (0, None, "P2")


@pytest.mark.parametrize("space", ["\u00a0", "\u2007", "\x0c", "\x0b", "\u3000"])
def test_any_space_character_separates_words(space):
    """The scenario format's words (docs/scenario-format.md, "Lines and words"): the page said
    spaces or tabs only, the reader took any white space, as the spec's "white space" says
    (found by an independent implementation): a no-break space a phone puts between words
    separates them, and never ends a line."""
    lines = ["game towers", f"flip{space}JS", f"upcard{space}9H{space}# c{space}x", "pass"]
    state = replay_lines(lines).state()
    assert (state["dealer"], state["phase"], state["to_act"]) == ("P1", "trump1", "P1")


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_a_lone_cr_end_a_line(tmp_path, newline):
    f = tmp_path / "crlf.scn"
    f.write_bytes(newline.join(["game twenty-nine", "flip JS", "bid 16", "bid 15", ""]).encode("utf-8"))
    out = cli("replay", str(f), "--json")
    assert (out.returncode, out.stderr.strip()) == (2, "line 4: bids run from 16 to 29, not 15")
