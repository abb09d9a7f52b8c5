"""What a third newcomer met at the keyboard simulator (`card-assistant sim` in a terminal, as the
README says to play it): each test names the fault and plays the real command."""
import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from test_sim_newcomer import ROOT, environ, in_terminal, piped

# towers from the new-match menu: P1 deals (J♠), 9♥ turned up, P2 accepts, P1 discards face
# down, P2 says no to for 2, leads A♠
TOWERS_LEAD = "\nJS\n9H\n\n9S\n\nAS\n"


def words(out):
    return " ".join(out.split())  # the lines are broken between words to fit the terminal


def test_a_terminal_too_narrow_for_the_drawing_still_shows_the_score_trump_and_trick(tmp_path):
    """Fault: below 66 columns only the prompt was said ("screen: play: P1 to play"): the score,
    trump, dealer and the cards on the table were nowhere, so the match could not be followed."""
    out = words(in_terminal(["sim", "--state-dir", tmp_path], TOWERS_LEAD + "q\n", columns=60))
    assert "table: P1 0, P2 0 | trump ♥ | Deal P1 | Hand 7 | Trump by P2 | Tricks 0-0 | " \
           "on the table: P2 A♠ screen: play: P1 to play" in out
    assert "table: P1 0, P2 0 | Deal P1 | Hand 7 | Tricks 0-0 | up-card 9♥ screen: trump1: P2 < Accept >" in out
    assert "9♠" not in out.replace("> 9S", "")  # the discard is only where it was typed


def test_a_terminal_too_short_for_the_drawing_says_what_scrolled_out_of_it(tmp_path):
    """Fault: the drawing is 34 lines tall; in an 80x24 terminal (or a 30-row tmux) its top, the
    score and trump, scrolled away at every turn and could not be seen."""
    out = words(in_terminal(["sim", "--state-dir", tmp_path], TOWERS_LEAD + "q\n", columns=80, rows=24))
    assert "table: P1 0, P2 0 | trump ♥ | Deal P1" in out
    tall = in_terminal(["sim", "--state-dir", tmp_path], "q\n", columns=140, rows=40)
    assert "table:" not in tall and "table:" not in piped(["sim", "--state-dir", tmp_path], "q\n")


def test_the_table_words_keep_the_twenty_nine_trump_face_down(tmp_path):
    out = words(in_terminal(["sim", "--state-dir", tmp_path, "--game", "twenty-nine"],
                            "\n\nJS\n\na\n\na\n\na\n\n2 7H\nq\n", columns=60))
    assert "table: P1+P3 0, P2+P4 0 | trump face down | Deal P1 | P2 bid 16" in out
    assert "7♥" not in out


def test_cards_typed_together_over_a_menu_stop_at_the_first_the_box_does_not_take(tmp_path):
    """Fault: with deal scan on, the up-card tapped before the hands opens the menu "Keep
    scanning / End scan"; a hand typed then (`1 AS KS QS JS 10S 9S AH`) printed "tapped" for all
    seven cards although the box took none ("Finish the menu first"), so the newcomer believed
    the hand scanned. Now the first card not taken stops the rest, as a refusal does."""
    out = piped(["sim", "--state-dir", tmp_path, "--deal-scan"],
                "\nJS\n9H\n1 AS KS QS JS 10S 9S AH\nq\n")
    assert "tapped AS on pad 1" in out and "tapped KS" not in out
    assert "refused: KS QS JS 10S 9S AH not tapped" in out
    assert "Finish the menu first" in out


def test_a_card_tapped_on_a_fresh_box_says_to_choose_a_game_not_to_press_back(tmp_path):
    """Fault: a card typed before any match was answered "Finish the menu first (Back to leave
    it)", but Back on a fresh box's new-match menu leaves nothing: the newcomer pressed it and
    nothing happened."""
    out = piped(["sim", "--state-dir", tmp_path], "JS\nb\nq\n")
    assert "NOTE: No match yet: choose with Left/Right, then OK" in out
    assert "Back to leave it" not in out


def cli(*args):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=environ())


def test_the_commands_help_says_sim_is_played_at_the_keyboard_and_which_keys():
    """Fault: `card-assistant --help` called sim "run the box headless", and `sim --help` never
    said that without --bots it is played at the keyboard, nor with which keys."""
    top = cli("--help").stdout
    assert "headless" not in top
    assert "sim      play the box at the keyboard (or let bots play) on simulated hardware" in top
    words = " ".join(cli("sim", "--help").stdout.split())
    assert "Without --bots you play at the keyboard: type a card (JS, '2 JS' for pad 2" in words
    assert "u undo (hold Back), q quit" in words


def test_players_without_a_word_says_what_it_can_do_not_argparses_variable_names():
    """Fault: `card-assistant players` said "the following arguments are required: what, NAME",
    naming a variable of the code, and NAME, which `players list` does not take."""
    got = cli("players")
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr == ("card-assistant players: error: say what to do: players add NAME, players list, "
                          "players rename OLD NEW or players remove NAME (see card-assistant players --help)\n")


def test_hold_back_after_a_hands_last_scanned_card_takes_back_that_card(tmp_path):
    """Deal scan, hold Back: "the last scanned card" is taken back. Fault: when that card completed
    a hand (P2's seventh, mis-tapped AC for AH), hold Back took back another seat's card (P1's
    A♠), and a second hold Back threw away P2's whole hand. Now P2 is back at 6 of 7."""
    out = piped(["sim", "--state-dir", tmp_path, "--deal-scan"],
                "\nJS\n1 AS\n2 AD KD QD JD 10D 9D AC\nu\n2 AH\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-3:] == ["scan: P1 deals 7 each / Scan P1 1/7",
                            "scan: P1 deals 7 each / Scan P1 1/7 P2 6/7 | NOTE: Scan: P2's last card taken back",
                            "scan: P1 deals 7 each / Scan P1 1/7"]
    scenario = cli("export", "--state-dir", str(tmp_path), "-").stdout.split("\n")
    assert [ln for ln in scenario if ln and not ln.startswith("#")] == [
        "game towers", "flip JS", "hand P2 AD KD QD JD 10D 9D AC", "undo", "hand P2 AD KD QD JD 10D 9D AH"]


def test_a_press_that_changes_nothing_says_what_the_button_is_for(tmp_path):
    """Fault: Back (b) during play, or Left/Right with nothing to choose, did nothing and said
    nothing: a newcomer who took b for undo could not tell the press was heard."""
    out = piped(["sim", "--state-dir", tmp_path], TOWERS_LEAD + "b\nd\nu\nq\n")
    assert out.count("(Back clears an alert or leaves a menu: nothing to clear now; u, hold Back, undoes)") == 1
    assert out.count("(nothing to choose now: Left and Right move a choice or a menu)") == 1
    assert "screen: for2: Undone: P2's A♠" in out


def test_a_players_name_with_an_accent_is_refused_in_words_that_say_why():
    """Fault: `--player Zoë` was refused as not "one word of 1 to 12 letters, digits, - or _":
    ë is a letter, so the words did not say what was wrong."""
    got = cli("sim", "--player", "Zoë")
    assert got.returncode == 2
    assert "'Zoë' cannot name a player: one word of 1 to 12 letters (A to Z, no accents)" in got.stderr


def test_dev_py_web_help_is_its_own_and_it_refuses_the_pages_other_options(tmp_path, monkeypatch, capsys):
    """Fault: `python3 dev.py web --help` printed `card-assistant web --help` (its --state-dir,
    --config and --runtime-dir, which dev.py web sets itself) and exited 1; `dev.py web
    --state-dir DIR` started a page on DIR and then the bots on .play/."""
    from test_sim_fixes import load_dev
    dev = load_dev()
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    started = []
    monkeypatch.setattr(dev.subprocess, "Popen", lambda *a, **kw: started.append(a))
    with pytest.raises(SystemExit) as exit_:
        dev.web(["--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: python3 dev.py web [-h] [--host HOST] [--port PORT]")
    assert "--state-dir" not in out.split("The page reads")[0] and "--runtime-dir" not in out
    with pytest.raises(SystemExit) as exit_:
        dev.web(["--state-dir", str(tmp_path)])
    assert exit_.value.code == (f"dev.py web: --state-dir {tmp_path}: dev.py web takes only --host and "
                                "--port (python3 dev.py web --help)")
    assert started == [] and not (tmp_path / ".play").exists()


def test_back_from_ctrl_z_the_sim_says_its_screen_and_prompt_again(tmp_path):
    """Fault: after Ctrl-Z and `fg` the sim showed nothing (its prompt was above the shell's
    lines), so it looked hung until a key was typed blind. SIGSTOP and SIGCONT are what the
    shell sends; the sim's box runs threads, so SIGCONT may land on any of them."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(tmp_path)],
                            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=environ())
    os.close(slave)
    out = b""

    def read_until(text):
        """Read until ``text`` has come, or nothing more comes for 20 s (a guard, not a timing)."""
        nonlocal out
        while text not in out.decode(errors="replace"):
            if not select.select([master], [], [], 20)[0]:
                return False
            out += os.read(master, 65536)
        return True
    try:
        assert read_until("> ")
        proc.send_signal(signal.SIGSTOP)
        proc.send_signal(signal.SIGCONT)
        assert read_until("(back) screen: New match: [Towers] Twenty-Nine\r\n> ")
        os.write(master, b"q\n")
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        os.close(master)


def test_a_long_name_is_shortened_the_same_way_everywhere_on_the_screen(tmp_path):
    """Issue 9 item 4's one rule. Fault: the names drawn over the cards, the score and the details
    were cut to 4 letters and a dot by the screen ("Bart.", and "Conn." for Connor), while the
    prompt under them was cut to 5 ("Barth. to play", "Connor"): one player, two names on one
    screen, and the README's "first 5 and a dot" true of neither the names nor the score."""
    from assistant.box.screen import text_items
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Connor", "--player", "Bartholomew"],
                "\nConnor\nBartholomew\nJS\n9H\n\n9S\n\nAS\nq\n")
    assert "screen: play: Conn. to play" in out and "Barth." not in out and "Connor to" not in out
    from test_table import Hands
    from assistant.box.players import short_name
    h = Hands(tmp_path / "h")
    h.table.match.seats = ("Connor", "Bartholomew")  # as seated by their tags
    drawn = [t for *_, t in text_items(h.table.view())]
    assert {short_name("Connor"), short_name("Bartholomew")} == {"Conn.", "Bart."}
    assert "Conn." in drawn and "Bart." in drawn and not any("Barth" in t or "Connor" in t for t in drawn)


def test_a_game_some_seat_could_not_play_is_refused_at_the_menu(tmp_path):
    """Fault: `sim --pads P1,P2` offered Twenty-Nine on its menu and began the match; at P3's
    first card every tap was refused ("there is no pad 3", "Out of turn: P3 to play"): a match
    nobody could go on with, which the sim then refused to resume ("--pads does not fit")."""
    out = piped(["sim", "--state-dir", tmp_path, "--pads", "P1,P2"], "d\n\nb\n\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[2] == ("New match: [Towers] Twenty-Nine | REFUSED: Twenty-Nine needs a pad for P3, P4 "
                          "or a centre pad: this box has P1, P2")
    assert screens[3:] == ["New match: [Towers] Twenty-Nine", "flip: Flip for the deal: / tap one card each"]
    got = cli("sim", "--pads", "P1")  # towers: P2 could never play either
    assert got.returncode == 2 and "--pads 'P1' does not fit towers: P2 would have no pad; add centre" in got.stderr


def test_house_rules_asked_for_over_a_match_in_play_with_others_are_said(tmp_path):
    """Fault: `sim --state-dir DIR --option pair=on` over a Twenty-Nine match in play without
    that rule resumed it without a word, so the newcomer believed the pair was on (as --game over
    a match of the other game, which is said)."""
    piped(["sim", "--state-dir", tmp_path, "--game", "twenty-nine"], "\n\nJS\nq\n")  # P1 deals
    out = piped(["sim", "--state-dir", tmp_path, "--option", "pair=on"], "q\n")
    assert (f"card-assistant sim: {tmp_path} holds a match in play with its own house rules (none), "
            "which goes on; --option pair=on is for the next new match (hold OK: the menu)") in out
    assert "screen: bidding: P1 deals 4 each / P2 < Bid 16 >" in out
    assert "its own house rules" not in piped(["sim", "--state-dir", tmp_path, "--option", "pair=off"], "q\n")


def test_the_keys_are_said_in_lines_filled_to_the_terminals_width(tmp_path):
    """Fault: in an 80-column terminal the first words of the sim were broken at a line break of
    their own, "...or the arrow keys" / "left/right, Enter OK...", as two short ragged lines."""
    out = in_terminal(["sim", "--state-dir", tmp_path, "--player", "Ann"], "q\n", columns=80)
    said = out[out.index("card-assistant sim: "):out.index("┌")].rstrip("\n").split("\n")
    assert len(said) == 3 and all(len(ln) > 70 for ln in said[:-1]), said
    assert "arrow keys left/right, Enter OK" in " ".join(out.split())


def test_a_players_name_typed_alone_goes_on_the_pad_of_the_seat_asked(tmp_path):
    """Fault: with the screen asking "P3: tap player tag", typing Cleo said "tapped Cleo's player
    tag on pad 1", P1's pad, as if Cleo sat there (a card typed alone goes on the pad of the seat
    the screen asks)."""
    out = piped(["sim", "--state-dir", tmp_path, "--game", "twenty-nine", "--player", "Ann",
                 "--player", "Bob", "--player", "Cleo", "--player", "Dev"], "\n\nAnn\nBob\nCleo\nDev\nq\n")
    assert [ln.split("tapped ")[1] for ln in out.split("\n") if "tapped" in ln] == [
        "Ann's player tag on pad 1", "Bob's player tag on pad 2", "Cleo's player tag on pad 3",
        "Dev's player tag on pad 4"]
    assert "screen: flip: Flip for the deal" in out


def test_ok_on_card_face_down_says_whose_trump_card_the_table_waits_for(tmp_path):
    """Fault: after the auction the screen offers "< card face down >" (the harmless choice
    before "Seventh card"); OK on it did nothing a newcomer could see. Now it says who taps the
    trump card, as OK on for 2's "no" says who taps a card; in one line with any name."""
    from assistant.box.font import text_width
    from assistant.box.screen import W
    out = piped(["sim", "--state-dir", tmp_path, "--game", "twenty-nine"], "\n\nJS\n\na\n\na\n\na\n\n\nq\n")
    assert ("screen: trump-card: P2: tap the trump card / P2 bid 16: set trump / P2 < card face down >"
            in out)
    assert text_width("WWWW.: tap the trump card") <= W  # the widest name the screen shows


def test_ok_while_the_towers_discard_is_asked_does_not_send_the_next_card_elsewhere(tmp_path):
    """Fault: OK on the discard screen ("P1: discard face down / on P1's pad; P2 leads") said
    "P2: tap a card"; the newcomer then typed A♠ for P2, and the sim, whose card typed alone goes
    on the dealer's pad while the discard is asked, recorded it as P1's discard. Now OK there
    only says that the table waits for a card, as an OK with nothing to choose does anywhere."""
    out = piped(["sim", "--state-dir", tmp_path], "\nJS\n9H\n\n\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-1] == screens[-2] == "discard: P1: discard face down / on P1's pad; P2 leads"
    assert out.count("(OK has nothing to choose now: the table waits for a card; type it, like JS)") == 1


def test_for_2_is_never_declared_unseen_while_the_discard_is_asked(tmp_path):
    """T4. Fault: on the towers discard screen, Right (the sim even said "nothing to choose
    now") moved an unseen cursor to "For 2", and OK then declared for 2 with the screen as it
    was: a doubled stake nobody saw chosen. Now Right shows the choice in place of the
    prompt's last line, and Left takes it back."""
    from assistant.box.screen import W, text_items
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Bartholomew", "--player", "Connor"],
                "\nBartholomew\nConnor\nJS\n9H\n\nd\na\nd\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-4:] == ["discard: Bart.: discard face down / on Bart.'s pad; Conn. leads",
                            "discard: Bart.: discard face down / Conn. for 2? < For 2 >",
                            "discard: Bart.: discard face down / on Bart.'s pad; Conn. leads",
                            "discard: Bart.: discard face down / Conn. for 2? < For 2 >"]
    from test_table import Hands, towers_to_play
    h = Hands(tmp_path / "h")
    towers_to_play(h)
    v = h.press("right")
    assert v.phase == "discard" and v.prompt == "P2: discard face down\nP1 for 2? < For 2 >"
    assert all(x + w <= W for x, y, w, *_ in text_items(v))


def test_a_scanned_card_counted_after_a_refusal_clears_the_refusal(tmp_path):
    """Fault: during a deal scan, a refused tap's alert stayed up over the next tap, which was
    counted: "Scan P2 1/7 | REFUSED: That card is already counted..." read as if 8H had been
    refused too. Now a counted card clears an earlier refusal or take-back note."""
    out = piped(["sim", "--state-dir", tmp_path, "--game", "twenty-nine", "--deal-scan"],
                "\n\nJS\n\na\n\na\n\na\n\n2 7H\n2 7H\n2 8H\nu\n2 8H\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-4].endswith("| REFUSED: That card is already counted: P2's trump card completes the hand")
    assert screens[-3] == screens[-1] == "scan: P1 deals 4 more each / Scan P1 0/8 P2 1/7 / P3 0/8 P4 0/8"
    assert screens[-2].endswith("Scan P1 0/8 P2 0/7 / P3 0/8 P4 0/8 | NOTE: Scan: P2's last card taken back")


@pytest.mark.parametrize("flags,said", [
    (["--matches", "3"], "--matches goes with --bots"),
    (["--seed", "5", "--pace", "1"], "--seed, --pace go with --bots"),
    (["--renege-rate", "0.1"], "--renege-rate goes with --bots")])
def test_the_bots_flags_without_bots_are_refused_not_ignored(tmp_path, flags, said):
    """Fault: `sim --matches 3` (or --seed, --renege-rate, --pace) without --bots started the
    keyboard simulator and ignored the flag without a word."""
    got = cli("sim", "--state-dir", str(tmp_path / "s"), *flags)
    assert got.returncode == 2 and got.stdout == "" and not (tmp_path / "s").exists()
    assert got.stderr == (f"card-assistant sim: error: {said} (without it you play at the keyboard, one match "
                          "after another) (see card-assistant sim --help)\n")


def test_an_empty_state_dir_at_the_keyboard_is_refused_in_one_line(tmp_path):
    """Fault: `sim --state-dir ""` kept its journal in a new temporary folder, as without the
    flag, and did not say where. Since the attacker's round (test_attack_io4: an unset shell
    variable must never stand for "no folder"), an empty name is refused in one line, status 2,
    at the keyboard as with --bots, and no temporary folder is made."""
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", ""], input="q\n",
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env=dict(environ(), TMPDIR=str(tmp_path)))
    assert got.returncode == 2 and got.stdout == "" and len(got.stderr.splitlines()) == 1, got
    assert "argument --state-dir: is empty" in got.stderr
    assert list(tmp_path.iterdir()) == []


def test_back_on_a_fresh_boxs_house_rules_or_seats_goes_back_to_the_choice_of_game(tmp_path):
    """Fault: on a fresh box (no match yet), a newcomer who chose the wrong game could not go
    back: Back on the house rules or on "P1: tap player tag" did nothing, and only a match begun
    and then abandoned led back to the choice of game."""
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Ann", "--player", "Bob"],
                "d\n\nb\n\nAnn\nb\n\nq\n")
    screens = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: " in ln]
    assert [s.split(":")[0] for s in screens] == [
        "New match", "New match", "House rules", "New match",  # Back: the choice of game again
        "P1", "P2", "New match", "P1"]  # Back from P2's tag: the seats taken so far are let go
    assert screens[-1] == "P1: tap player tag: [Guest]"


def test_the_sims_notes_at_start_are_broken_between_words_to_fit(tmp_path):
    """Fault: the first line of `python3 dev.py run sim` ("the journal is in ..., a new temporary
    folder; to keep the match...") was broken by the terminal in the middle of a word ("to k" /
    "eep"), as were the notes on a match in play of another game or other house rules."""
    piped(["sim", "--state-dir", tmp_path], "\nJS\nq\n")  # a towers match in play
    out = in_terminal(["sim", "--state-dir", tmp_path, "--game", "twenty-nine"], "q\n", columns=80)
    note = out[out.index("card-assistant sim:"):out.index("card-assistant sim: type")]
    assert all(len(ln) <= 80 for ln in note.split("\n")) and len(note.split("\n")) > 2, out[:500]
    assert "holds a Towers match in play, which goes on; --game twenty-nine" in " ".join(note.split())
    fresh = in_terminal(["sim"], "q\n", columns=80)
    folder = fresh.split("the journal is in ")[1].split(",")[0]
    try:
        note = fresh[fresh.index("card-assistant sim:"):fresh.index("card-assistant sim: type")]
        assert all(len(ln) <= 80 for ln in note.split("\n")), note
        assert "to keep the match and resume it after quitting" in " ".join(note.split())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
