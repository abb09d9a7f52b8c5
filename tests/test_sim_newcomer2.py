"""What a second newcomer met at the keyboard simulator and in the docs (a fresh clone, tmux at
100x30 and 80x24, the README and docs/ only), after the faults of test_sim_newcomer_examiner.py
were fixed: each test names the fault and drives the real command the way a user does."""
from test_sim_newcomer import piped

# Twenty-Nine with a deal scan: P4 deals (J♣), P1 bids 16 and lays 9♥ face down; the scan follows
SCAN = "\n\n7S 8S JH JC\n\na\n\na\n\na\n\n9H\n"


def test_cards_not_tapped_after_a_refusal_in_a_deal_scan_are_not_named(tmp_path):
    """Fault: typing P4's hand `4 JD 9H 9D` in a deal scan, the box refused 9♥ (the face-down
    trump card: "another hand holds it") and the sim said "refused: 9D not tapped", naming a card
    of P4's hand under the drawing, where the next player reads it; the cards tapped before were
    "a card face down". Now it counts them."""
    out = piped(["sim", "--game", "twenty-nine", "--deal-scan", "--state-dir", tmp_path],
                SCAN + "4 JD 9H 9D AD\nq\n")
    assert "refused: the 2 cards after it not tapped" in out, out[-800:]
    assert "9D" not in out and "9♦" not in out and "AD" not in out and "A♦" not in out


def test_a_typo_in_a_scanned_hand_does_not_echo_the_hand(tmp_path):
    """Fault: a typo in a hand typed in a deal scan (`1 JS 9S AS 10S JC 9C AC 10CX`) was answered
    "'1 JS 9S AS 10S JC 9C AC 10CX' is not a card: '10CX' is not one": the sim's own line,
    which stays in sight under the drawing, repeated P1's whole hand. So did "like 10H" for a
    card typed with a space, and "write the rank first, like JS" for `SJ`: the card meant for
    face down. Now the note says which word is wrong by its place, and names no card."""
    out = piped(["sim", "--game", "twenty-nine", "--deal-scan", "--state-dir", tmp_path],
                SCAN + "1 JS 9S AS 10S JC 9C AC 10CX\n10 C\n1 SJ\nq\n")
    assert "card 8 of the 8 typed is not a card: write a rank then a suit" in out, out[-800:]
    assert "a card is written without a space, like 10H; nothing tapped" in out
    assert "that is not a card: write a rank then a suit" in out
    said = out.split("trump-card:")[-1]  # the sim's lines from the scan on
    for named in ("9S", "AC", "10CX", "'SJ'", "'10 C'", "like 10C", "the rank first"):
        assert named not in said, named


# towers: P1 deals (J♠ the first black jack), P2 accepts 9♥, P1 discards; P1 fails to follow ♠ in
# trick 1 and shows ♠ in trick 2 (T9); P2 claims the tower at the menu: five times over, the match
ONE_TOWER = "JS\n9H\n\nAD\nKS\n9D\nKD\n10S\n\nm\nd\nd\n\n"
TOWERS_MATCH = "\n" + ONE_TOWER + "\n" * 1 + ("\n" + ONE_TOWER) * 4


def test_a_card_tapped_on_a_finished_towers_match_is_refused_in_words(tmp_path):
    """Fault: once a towers match was won, a card tapped (as the players pick up and tap on
    out of habit) changed nothing and said nothing, on the box and in the sim: the tap seemed
    lost. Twenty-Nine said "No card is wanted now"; towers says it too, and why."""
    out = piped(["sim", "--state-dir", tmp_path], TOWERS_MATCH + "KS\nq\n")
    before, last = out.rsplit("tapped KS on pad 3", 1)
    assert "P2 wins the match!" in before.split("┘")[-1]
    assert "REFUSED: No card is wanted now: the match is over: P2 won" in last, out[-600:]


def test_a_double_chosen_at_the_menu_names_the_side_not_a_player_who_may_not_have_doubled(tmp_path):
    """Fault: with double=on the menu offers "Double: P2+P4" (the box cannot tell which of them
    pressed), yet the screen then said "P2 doubled", and "P1 redoubled" for "Redouble: P1+P3":
    when P4 had chosen it, the screen said something untrue. Now it names the side."""
    out = piped(["sim", "--game", "twenty-nine", "--option", "double=on", "--state-dir", tmp_path],
                "\n\n7S 8S JH JC\n\na\n\na\n\na\n\n9H\nm\nd\nd\nd\n\nm\nd\nd\nd\n\nq\n")
    said = " ".join(out.split())
    assert "P2+P4 doubled / P1+P3 redoubled / P1 leads" in said, said[-400:]
    assert "P2 doubled" not in said and "P1 redoubled" not in said


def test_the_house_rules_screen_says_scoring_in_a_players_words_and_the_rules_page_lists_them():
    """Fault: a new Twenty-Nine match's house rules screen offered "Scoring: seed" beside
    "pagat (+6/-6)": "seed" is this project's word for its rule documents, which no player at
    the table knows, and docs/rules.md named the options only by their config keys
    (scoring=pagat), never by the words the box's screen shows. Now the default reads "first to
    6" (N9), and the rules page lists the screen's words."""
    import tempfile
    from test_sim_newcomer import ROOT
    with tempfile.TemporaryDirectory() as d:
        out = piped(["sim", "--state-dir", d], "d\n\nd\nd\nd\nd\n\nq\n")
    menus = [ln.split("screen: ")[1] for ln in out.split("\n") if "screen: House rules:" in ln]
    assert "[Scoring: first to 6]" in menus[-2] and "[Scoring: pagat (+6/-6)]" in menus[-1], menus
    assert "seed" not in " ".join(menus)
    rules = " ".join((ROOT / "docs" / "rules.md").read_text().split())
    assert ("Trumps count (whole trick, or after call), Pair (K+Q), Double, Scoring (first to 6, "
            "or pagat +6/-6) and 2 points from bid (20 or 21)") in rules


def test_an_alert_over_the_match_result_is_drawn_clear_of_its_lines(tmp_path):
    """Fault: on the screen of a match won, an alert (a card tapped, "No card is wanted now"; a
    tag not in the pack) was drawn in the lower half over the result's lines: both texts on
    the same pixels, neither readable (the sim's drawing and its --frames PNG showed the jumble).
    Now the winner's line stays above the alert's band, and no two texts overlap."""
    from assistant.box.screen import text_items
    from assistant.sim.simbox import SimBox
    from assistant.sim.keyboard import KEYS, tap_cards
    sim = SimBox(str(tmp_path), "towers", ("P1", "P2", "P3", "P4")).start()
    try:
        for line in TOWERS_MATCH.split("\n")[:-1] + ["KS"]:  # as typed at the keyboard
            if line.lower() in KEYS:
                gesture, button = KEYS[line.lower()]
                getattr(sim, gesture)(button)
            else:
                tap_cards(sim, line)
        view = sim.box.view
    finally:
        sim.stop()
    assert view.phase == "match-over" and view.alert.text.startswith("No card is wanted now")
    items = text_items(view)
    assert "P2 wins the match!" in [t for *_, t in items]
    for i, (x, y, w, h, text) in enumerate(items):
        for (x2, y2, w2, h2, text2) in items[i + 1:]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, (text, text2)


def test_bots_on_a_folder_whose_twenty_nine_match_keeps_deal_scan_say_why_they_cannot_play(tmp_path):
    """Fault: deal scan turned on at the keyboard is kept by the state folder; `sim --bots --game
    towers --state-dir D` then finished D's Twenty-Nine match in play with it on and stopped with
    "the bots stopped: the box did not take play QD (no alert)", a line for a bug report, and
    `--game twenty-nine` said only "the bots scan hands in towers only", never that the folder
    keeps deal scan on nor how to turn it off. Now both say so, before the bots touch the match."""
    import subprocess
    import sys
    from test_sim_newcomer import ROOT, environ
    out = piped(["sim", "--game", "twenty-nine", "--state-dir", tmp_path], "\n\n7S 8S JH JC\nm\na\na\n\nq\n")
    assert "NOTE: Deal scan on" in out
    for game in ("towers", "twenty-nine"):
        got = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--game", game,
                              "--state-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                             env=environ(), timeout=120)
        assert got.returncode == 1 and "Traceback" not in got.stderr
        assert got.stderr.endswith("deal scan is on in this state folder (kept from its menu): turn it "
                                   "off at the keyboard (hold OK, Deal scan) or give another --state-dir\n"), got.stderr
        assert "did not take" not in got.stdout + got.stderr


def test_the_docs_club_of_your_own_keeps_the_brokers_log_out_of_the_terminal():
    """Fault (docs/club.md's "Simulated boxes in a club of your own", typed as it stands): its
    broker, started in the background of the terminal the other commands run in, with
    persistence and autosave_interval 1, wrote "Saving in-memory database to ..." to that
    terminal every 2 s (about 50 lines in the first match of the sim's bots), burying the sim's
    and the board's lines. Its log now goes to a file beside its config."""
    from test_sim_newcomer import ROOT
    doc = (ROOT / "docs" / "club.md").read_text(encoding="utf-8")
    block = doc.split("### Simulated boxes in a club of your own")[1].split("```sh")[1].split("```")[0]
    broker = [ln.split("#")[0].split() for ln in block.splitlines() if ln.startswith("mosquitto ")]
    assert broker == [["mosquitto", "-c", "mosquitto.conf", "2>mosquitto.log", "&"]], broker


def test_a_hold_that_changes_nothing_says_why(tmp_path):
    """Fault: on a fresh box (no match yet: the choice of game, or the seats tapping their player
    tags) `u`, hold Back, did nothing and said nothing, and `m`, hold OK, with the menu already
    up did the same: the newcomer could not tell the keys were heard. Each now says why, as a
    press that changes nothing does."""
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Ann"], "u\n\nu\nm\nm\nq\n")
    said = " ".join(out.split())
    assert said.count("(undo, hold Back, has nothing to take back: no match has begun yet)") == 2, said[-600:]
    assert "(the menu is up: Left and Right move, OK chooses, Back leaves it)" in said


def test_the_readme_says_what_the_step_words_of_the_screen_line_mean(tmp_path):
    """Fault: the sim's words for the screen read "screen: trump1: P1 < Accept >", "screen: for2:
    ...", "screen: trump-card: ...": the box's step in the program's own words, which the OLED
    never shows and nothing told a newcomer the meaning of ("trump1"?). The README now lists
    each with what it means. (They stay: other tools and tests read them as the step.)"""
    import re
    from test_sim_newcomer import ROOT
    steps = set()
    for module in ("table_towers.py", "table_twentynine.py"):
        source = (ROOT / "assistant" / "box" / module).read_text()
        steps |= set(re.findall(r'phase="([a-z0-9-]+)"', source)) | set(re.findall(r'phase="[a-z0-9-]+" if [^,]* else "([a-z0-9-]+)"', source))
    steps |= {"trump1", "trump2"}  # towers passes the engine's own phase on for these
    assert {"lead", "double", "for2", "trump-card", "hand-over"} <= steps, steps
    readme = " ".join((ROOT / "README.md").read_text().split())
    told = readme.split("The `screen:` line begins with the box's step")[1][:800]
    assert all(f"`{step}`" in told for step in steps), sorted(s for s in steps if f"`{s}`" not in told)
    out = piped(["sim", "--state-dir", tmp_path], "\nJS\n9H\nq\n")
    assert "screen: trump1: P2 < Accept >" in out


def test_ok_on_an_alert_over_a_menu_only_clears_it(tmp_path):
    """Fault: README: "Back or OK on an alert ... clears it; nothing else happens on that press".
    Over an open menu it did not: a card tapped with the menu up on "Undo last" said "Finish the
    menu first (Back to leave it)", and OK to clear that also undid the last card played; OK on
    "Ann already has a seat" also seated a guest. Now OK clears the alert and nothing else."""
    out = piped(["sim", "--state-dir", tmp_path], "\nJS\n9H\nm\nd\nAS\n\nq\n")
    screens = [ln.split("screen: ", 1)[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-2].endswith("| NOTE: Finish the menu first (Back to leave it)"), screens[-3:]
    assert screens[-1].startswith("Menu: Close [Undo last]"), screens[-3:]  # nothing undone
    assert "Undone" not in out
    out = piped(["sim", "--state-dir", tmp_path / "p", "--player", "Ann"], "\nAnn\nAnn\n\nq\n")
    screens = [ln.split("screen: ", 1)[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-2] == "P2: tap player tag: [Guest] | REFUSED: Ann already has a seat", screens
    assert screens[-1] == "P2: tap player tag: [Guest]", screens  # no guest seated on that press


def test_a_seat_taken_by_a_tag_clears_the_refusal_said_of_the_seat_before(tmp_path):
    """OK on an alert only clears it (above), so a refusal said while the seats were taken (a
    card tapped: "No match yet"; a tag already seated) must not outlive the seat it was about:
    once a player's tag takes the seat, the next OK seats the next guest, not clears a stale
    alert."""
    out = piped(["sim", "--state-dir", tmp_path, "--player", "Ann"], "\nJS\nAnn\n\nq\n")
    screens = [ln.split("screen: ", 1)[1] for ln in out.split("\n") if "screen: " in ln]
    assert screens[-2] == "P2: tap player tag: [Guest]", screens  # Ann seated: the alert went
    assert screens[-1].startswith("flip: Flip for the deal"), screens
