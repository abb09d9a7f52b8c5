"""What a newcomer met at the keyboard simulator (`card-assistant sim` in a terminal) and the test
suite did not: each test names the fault and plays the real command, in a real terminal (a pty
with its window size set) where the fault was about the terminal."""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRAME = ("┌", "│", "└")


def environ():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("CARD_ASSISTANT_DEBUG", None)
    env.pop("COLUMNS", None)
    return env


def in_terminal(args, keys, columns, rows=40):
    """Run ``card-assistant ARGS`` on a real terminal ``columns`` wide, typing ``keys``; its output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", *map(str, args)], stdin=slave,
                            stdout=slave, stderr=slave, cwd=ROOT, env=environ())
    os.close(slave)
    os.write(master, keys.encode())
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the command ended and closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0, out.decode(errors="replace")[-2000:]
    return out.decode().replace("\r\n", "\n")


def piped(args, keys):
    got = subprocess.run([sys.executable, "-m", "assistant.cli", *map(str, args)], input=keys,
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=environ())
    assert got.returncode == 0, got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    return got.stdout


def test_a_120_column_terminal_gets_the_compact_screen_not_a_wrapped_jumble(tmp_path):
    """Fault: the OLED was always drawn 130 columns wide, so in a 120-column terminal (the
    examiner's tmux) every line of it wrapped and the screen could not be read."""
    out = in_terminal(["sim", "--state-dir", tmp_path], "d\nq\n", columns=120)
    frame = [ln for ln in out.split("\n") if ln.startswith(FRAME)]
    assert frame, out
    assert all(len(ln) <= 120 for ln in frame), max(frame, key=len)
    assert len(frame[0]) == 66  # the compact drawing: quarter blocks, 64 columns and its border
    assert "screen: New match: Towers [Twenty-Nine]" in out


def test_a_wide_terminal_and_a_pipe_still_get_the_full_size_screen(tmp_path):
    wide = in_terminal(["sim", "--state-dir", tmp_path], "q\n", columns=140)
    assert [len(ln) for ln in wide.split("\n") if ln.startswith("┌")] == [130]
    out = piped(["sim", "--state-dir", tmp_path], "q\n")
    assert [len(ln) for ln in out.split("\n") if ln.startswith("┌")] == [130]


def test_a_terminal_too_narrow_for_any_screen_gets_its_words_and_says_so_once(tmp_path):
    """Fault: a tiny terminal got 130-column lines wrapped into noise. Now no drawing, one note
    saying how wide the screen needs, and the screen's words on every turn."""
    out = in_terminal(["sim", "--state-dir", tmp_path], "d\nq\n", columns=50, rows=20)
    assert not [ln for ln in out.split("\n") if ln.startswith(FRAME)]
    words = " ".join(out.split())  # the lines are broken between words to fit the 50 columns
    assert words.count("the terminal is 50 columns wide; the screen needs 66") == 1, out
    assert "screen: New match: [Towers] Twenty-Nine" in words
    assert "screen: New match: Towers [Twenty-Nine]" in words


def test_the_arrow_keys_are_left_and_right(tmp_path):
    """Fault: a newcomer pressing the Left or Right arrow got "'\\x1b[D' is not a card"."""
    out = piped(["sim", "--state-dir", tmp_path], "\x1b[C\n\x1bOD\n\x1b[C\x1b[D\n\x1b[A\nq\n")
    screens = [ln for ln in out.split("\n") if "screen: New match" in ln]
    assert [s.split("screen: ")[1] for s in screens] == [
        "New match: [Towers] Twenty-Nine", "New match: Towers [Twenty-Nine]",  # right
        "New match: [Towers] Twenty-Nine",  # left, in application cursor mode
        "New match: [Towers] Twenty-Nine",  # right then left on one line
        "New match: [Towers] Twenty-Nine"]  # up: no button
    assert "is not a card" not in out
    assert "the up and down arrows are no button of the box" in out


def test_a_player_tag_on_a_missing_pad_is_said_and_a_line_ending_in_a_name_is_no_tag(tmp_path):
    """Faults: '9 Ann' did nothing and said nothing; 'ann bob' tapped Bob's tag on pad 1."""
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Ann", "--player", "Bob"],
                "\n9 Ann\nann bob\nann\nq\n")
    assert "there is no pad 9 (pads 1 to 4)" in out
    assert "bob's player tag" not in out.lower()
    assert "'ann bob' is not a card" in out
    assert "tapped Ann's player tag on pad 1" in out  # the name as enrolled, typed in any case
    assert "screen: P2: tap player tag" in out


def test_dev_py_help_is_help_and_a_mistyped_command_says_what_was_wrong():
    """Faults: `python3 dev.py --help` printed its usage on standard error with status 1, and
    `python3 dev.py rnu` printed the same usage without saying that 'rnu' was the problem."""
    def dev(*args):
        return subprocess.run([sys.executable, str(ROOT / "dev.py"), *args], capture_output=True,
                              text=True, timeout=60, cwd=ROOT)
    for flag in ("--help", "-h"):
        got = dev(flag)
        assert got.returncode == 0 and got.stderr == ""
        assert "python3 dev.py run sim" in got.stdout and "python3 dev.py test" in got.stdout
    got = dev("rnu")
    assert got.returncode != 0 and got.stdout == ""
    assert got.stderr.strip().splitlines() == [
        "dev.py: unknown command 'rnu': run, test, bench or web (python3 dev.py --help)"]


def test_close_on_the_menu_before_any_match_goes_back_to_the_choice_of_game(tmp_path):
    """Fault: on a fresh box (no match yet), hold OK then OK on "Close" printed an internal
    error's traceback (the screen had no match to show under the menu) and left the menu stuck."""
    out = piped(["sim", "--state-dir", tmp_path], "m\n\nd\n\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens == ["New match: [Towers] Twenty-Nine", "Menu: [Close] New match",
                       "New match: [Towers] Twenty-Nine", "New match: Towers [Twenty-Nine]",
                       "House rules: [Start Twenty-Nine] Trumps count: whole trick Pair (K+Q): off "
                       "Double: off Scoring: first to 6 2 points from bid: 20"]


def test_the_seventh_card_called_shows_a_face_down_trump_at_once(tmp_path):
    """S4: once the bidder calls the seventh card, trump is set and hidden and the table sees a
    face-down trump. Fault: the screen showed no trump mark until the dealer tapped the card
    (the replay's JSON said "hidden", and the other side could already double)."""
    from assistant.box.screen import render
    from test_table import Hands, nine_to_trump
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"))
    nine_to_trump(h, seventh=True)
    v = h.table.view()
    assert v.phase == "seventh" and v.trump == "hidden" == h.table.match.engine.state()["trump"]
    tapped = h.tap(1, "9H")  # the dealer deals it: the header does not change
    assert render(tapped).tobytes()[:16 * 14] == render(v).tobytes()[:16 * 14]  # rows 0-13


def test_help_quit_and_exit_are_understood(tmp_path):
    """Fault: 'help' and 'quit', the words a newcomer tries first, were answered "'help' is not a
    card: 'p' is not a suit"."""
    out = piped(["sim", "--state-dir", tmp_path], "help\n?\nquit\n")
    assert out.count("Enter OK, b Back, m menu (hold OK)") == 3  # at start, then once per asking
    assert "is not a card" not in out
    assert piped(["sim", "--state-dir", tmp_path], "exit\nJS\n").count("screen: ") == 1


def test_a_game_asked_for_over_a_match_in_play_of_the_other_game_is_said(tmp_path):
    """Fault: `sim --game twenty-nine --state-dir DIR` over a towers match in play resumed towers
    without a word, so the newcomer could not tell why they got the other game."""
    piped(["sim", "--state-dir", tmp_path], "\nJS\nq\n")  # a towers match: P1 deals
    out = piped(["sim", "--state-dir", tmp_path, "--game", "twenty-nine"], "q\n")
    assert (f"card-assistant sim: {tmp_path} holds a Towers match in play, which goes on; "
            "--game twenty-nine is offered first at the next new match (hold OK: the menu)") in out
    assert "screen: upcard: P1 deals 7 each" in out
    assert "holds a" not in piped(["sim", "--state-dir", tmp_path, "--game", "towers"], "q\n")


def test_undoing_the_discard_says_so_without_naming_it(tmp_path):
    """Fault: hold Back after the towers discard showed the discard prompt again with no word
    that anything was undone (the trump card's undo says "Undone: the trump card")."""
    from test_table import Hands, towers_to_play
    h = Hands(tmp_path)
    towers_to_play(h)
    h.tap(2, "QC")                      # P2 deals and picked up: the discard, face down
    v = h.press("back", held=True)
    assert h.lines()[-1] == "accept" and v.phase == "discard"
    assert v.prompt.split("\n") == ["Undone: the discard", "P2: discard face down", "on P2's pad; P1 leads"]


def test_a_dealer_who_must_bid_is_not_told_to_bid_or_pass(tmp_path):
    """N3: when the first three pass the dealer must bid. Fault: a card tapped then was refused
    with "No card is wanted now: P2 to bid or pass", offering a pass the dealer does not have."""
    from test_table import Hands
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"))
    h.tap(1, "9D"), h.tap(1, "JC")      # P2 deals, P3 speaks first
    v = h.tap(3, "AH")
    assert v.alert.text == "No card is wanted now: P3 to bid or pass"
    h.press("back")                     # clears the alert
    for _ in range(3):
        h.press("left"), h.press("ok")  # pass, pass, pass
    v = h.tap(2, "AH")
    assert v.alert.text == "No card is wanted now: P2 to bid"


def test_a_second_sim_on_a_state_folder_in_use_is_refused_in_one_line(tmp_path):
    """Fault: a newcomer who started the sim again in a second terminal on the same --state-dir
    got two boxes on one journal: each refused the other's actions with "the journal ... could not
    be written (UNIQUE constraint failed: actions.match, actions.seq)", and the first one's screen
    went stale. Now the second says the folder is in use and starts nothing."""
    first = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=environ())
    try:
        for line in first.stdout:  # the first box is up once it has drawn its screen
            if "screen: " in line:
                break
        second = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path)],
                                input="JS\nq\n", capture_output=True, text=True, timeout=120, cwd=ROOT,
                                env=environ())
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr.strip().splitlines() == [
            f"card-assistant sim: {tmp_path} is in use by another card-assistant (sim, process {first.pid}): "
            "quit that one first; two boxes on one journal would each refuse the other's actions"]
    finally:
        first.communicate("q\n", timeout=120)
    assert first.returncode == 0
    assert "screen: New match" in piped(["sim", "--state-dir", tmp_path], "q\n")  # free again


def test_ctrl_d_ends_the_prompts_line(tmp_path):
    """Fault: Ctrl-D at the sim's prompt quit with the shell's prompt glued to "> " on one line."""
    out = in_terminal(["sim", "--state-dir", tmp_path], "\x04", columns=140)
    assert out.endswith("> \n"), repr(out[-40:])
