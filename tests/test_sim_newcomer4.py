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


# Twenty-Nine: P2 deals (J♣), P4 wins at 17 and calls the seventh card (8♦); P3 leads A♠; P2
# takes it, leads A♥, P3 fails to follow with J♣, and shows 9♥ at the next trick (from
# test_sim_newcomer3's RENEGE)
TO_THE_PROOF = "\n\n9H JC\n\n\na\n\na\n\na\n\nd\n\n8D\nAS KS 7S 9S\nAH JC 7H 8H\n"


def test_a_renege_proven_by_a_card_typed_before_others_on_one_line_is_said(tmp_path):
    """T9/N11: the box proves a renege "on the spot (buzzer, LED, and the screen names the
    player)". Fault: typed with the cards after it on one line (`10H 9H KH`, as a trick is
    pasted), the card that proved P3's renege raised the alert and the next card cleared it, as
    the next tap does on the box: the sim never said it, and the renege went unseen unless
    someone opened the menu and found "Claim: P3's renege"."""
    out = piped(["sim", "--game", "twenty-nine", "--state-dir", tmp_path], TO_THE_PROOF + "10H 9H KH\nq\n")
    after = out.split("tapped 8H on pad 1")[1]
    assert "tapped 9H on pad 3\n  RENEGE: P3 failed to follow ♥ (trick 2)\n  tapped KH on pad 4" in after, after
    assert "REFUSED" not in after


# Twenty-Nine with a deal scan: P4 deals (J♣), P1 bids 16 and lays 9♥ face down; the hands follow
SCANNED = ("\n\n7S 8S JH JC\n\na\n\na\n\na\n\n9H\n1 JH AH 10H JS 9S AS 10S\n2 KH QH 8H 7H JC 9C AC 10C\n"
           "3 KS QS 8S 7S JD 9D AD 10D\n")


def test_a_card_typed_twice_at_the_end_of_a_scanned_hand_is_not_named(tmp_path):
    """Fault: P4's hand typed with its last card twice (`4 KC QC 8C 7C KD QD 8D 7D 7D`): the
    first 7D completed the scan, face down, and the second was a play out of turn, echoed
    "tapped 7D on pad 4" under the drawing: a card of P4's hand named to the table. A line
    begun while the screen asks for cards face down names no card the table cannot see."""
    out = piped(["sim", "--game", "twenty-nine", "--deal-scan", "--state-dir", tmp_path],
                SCANNED + "4 KC QC 8C 7C KD QD 8D 7D 7D\nq\n")
    after = out.split("screen: scan: ")[-1]  # from P4's scan on
    assert "Out of turn: P1 to play" in after, after[-400:]
    assert "7D" not in after and "7♦" not in after


def test_the_next_rounds_auction_does_not_show_the_last_rounds_pair(tmp_path):
    """D1: the Twenty-Nine screen clears the last round's trump and points once its result is
    read, "so that the last round's trump is not taken for the next one during the auction".
    Fault: its pair stayed: the next auction, until its first bid, read "Deal P3 | pair P3", as
    if P3 had declared a pair in a round whose trump no one has set (and so on the OLED)."""
    from test_sim_newcomer import in_terminal
    # pair=on: P3 calls (trump ♦, the seventh card), takes the trick with 7♦ and declares K♦ Q♦;
    # P3 then shows ♥ after the call (a renege) and P2+P4 claim it; Enter reads the result
    keys = (TO_THE_PROOF.split("AH JC")[0] + "AH\nd\n\n7D 7H 8H\nm\nd\nd\nd\nd\n\n"
            "JS QS 10S 8S\nJH KH QH 10H\nm\nd\nd\n\n\nq\n")
    out = in_terminal(["sim", "--game", "twenty-nine", "--option", "pair=on", "--state-dir", tmp_path],
                      keys, columns=60)
    said = " ".join(out.split())
    assert "pair P3 screen: play: Pair P3: P2+P4 need 21" in said, said[-1500:]
    assert "screen: hand-over: Claim: P3's renege / P2+P4 +1" in said
    last = said.rsplit("table: ", 1)[1]
    assert last.startswith("P1+P3 0, P2+P4 1 | Deal P3 screen: bidding: P3 deals 4 each"), last


def test_a_config_value_of_the_wrong_kind_is_said_in_tomls_words_not_pythons(tmp_path):
    """Fault (an organiser writing a config from the README and hardware/BUILD.md for `sim
    --config`): `pads = 3` was answered "[table] pads should be tuple, not 3", `baud = true`
    "should be int, not True", `deal_scan = "yes"` "should be bool": Python's names for its
    types and values, words a TOML file never uses."""
    from test_sim_newcomer_table import cli
    for text, said in (
            ("[table]\npads = 3\n", '[table] pads should be a list in brackets, like ["P1", "P2", "centre"], not 3'),
            ("[reader]\nbaud = true\n", "[reader] baud should be a whole number, not true"),
            ("[table]\ndeal_scan = 'yes'\n", "[table] deal_scan should be true or false, not 'yes'"),
            ("[game]\ngame = 29\n", "[game] game should be text in quotes, not 29"),
            ("[buttons]\nhold_time = 'long'\n", "[buttons] hold_time should be a number, not 'long'")):
        (tmp_path / "c.toml").write_text(text)
        got = cli("sim", "--config", str(tmp_path / "c.toml"), "--state-dir", str(tmp_path / "s"))
        assert got.returncode == 2 and said in got.stderr, got.stderr
        assert "tuple" not in got.stderr and " int" not in got.stderr and "bool" not in got.stderr


def test_an_undone_trump_named_or_for_2_is_said_in_words_not_the_journals(tmp_path):
    """Fault: hold Back after "for 2" said "Undone: for2", and after trump named in the second
    round "Undone: name": the journal's words, the second naming neither the suit nor who named
    it. The pair undone said "Undone: pair P3" (read as the pair being P3). Now "Undone: for 2",
    "Undone: P2 named ♠" and "Undone: P3's pair"."""
    # towers: P1 deals (J♠), 9♥ turned up, both pass, P2 names ♠ and declares for 2
    out = piped(["sim", "--state-dir", tmp_path], "\nJS\n9H\na\n\na\n\n\nd\n\nu\nu\nq\n")
    said = screen_lines(out)
    assert said[-2].startswith("for2: Undone: for 2 / "), said[-3:]
    assert said[-1].startswith("trump2: Undone: P2 named ♠ / "), said[-3:]
    assert not any("for2:" not in s and "for2" in s for s in said)
    from assistant.rules.scenario import Action
    from assistant.box.table_view import undone_words
    from assistant.box.table_view import desk
    assert undone_words(Action("pair", seat=2), 1, ("P1", "P2", "P3", "P4"), desk("twenty-nine")) \
        == "Undone: P3's pair"


def test_ctrl_c_stopping_the_bots_in_a_temporary_folder_says_how_to_resume_their_match():
    """README: without --state-dir the sim "says where at start, and when you quit with a match
    in play, how to resume it from there"; with --bots "the bots finish it first". Fault: bots
    stopped with Ctrl-C (the only way to quit them, at --pace 0.3 a match takes minutes) said
    nothing: the start's line had long scrolled away, and the match was left in a folder no
    line named any more."""
    import shutil
    import signal
    import subprocess
    import sys
    from test_sim_newcomer import environ
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--matches", "1",
                             "--pace", "0.3", "--verbose"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=environ())
    seen = []
    for line in proc.stdout:  # the bots have begun the match: its first flip is logged
        seen.append(line)
        if "action: flip" in line:
            break
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    proc.wait(timeout=60)
    folder = seen[0].split("the journal is in ", 1)[1].split(",", 1)[0]
    try:
        said = " ".join(rest.split())
        assert f"the match in play is kept in {folder}; to resume it, start again with --state-dir {folder}" \
            in said, rest[-800:]
        assert "Traceback" not in rest
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_every_undo_note_fits_the_oleds_width_with_the_longest_names():
    """Fault: hold Back's note is one line of the OLED's prompt, drawn whole or cut at its right
    edge (128 pixels): "Undone: P2's seventh card call" (155 pixels, with guests' names) lost
    "call", "Undone: P2's scanned hand" its last letters, and with players' names shortened to
    five characters "Undone: Wilh.+Wolf.'s claim" and "Undone: ♠ named by Maxi." ran off the
    screen. Now each note fits, whatever the names."""
    from assistant.box.screen import W, text_width
    from assistant.box.table_view import desk, shortened, undone_words
    from assistant.rules.cards import parse_card
    from assistant.rules.scenario import Action
    ten = (parse_card("10H"),)
    kinds = {"twenty-nine": [Action("claim", seat=0), Action("accuse", seat=1), Action("play", cards=ten),
                             Action("flip", cards=ten), Action("trump", cards=ten), Action("hand", seat=1, cards=()),
                             Action("bid", value=29), Action("pass"), Action("call"), Action("seventh"),
                             Action("finish"), Action("double"), Action("redouble"), Action("pair", seat=1)],
             "towers": [Action("name", value=0), Action("for2"), Action("accept"), Action("discard", cards=ten),
                        Action("upcard", cards=ten), Action("claim", seat=0), Action("hand", seat=1, cards=())]}
    # and the widest names there are (second read: a count of characters let 132 pixels through)
    for seats in (("P1", "P2", "P3", "P4"), ("Wilhelmina", "Maximilian", "Wolfgang", "Mohammed"),
                  ("MMMM", "WWWW", "MMMM", "WWWW"), ("MMMMM", "WWWWW", "MMMMMM", "WWWWWW")):
        for game, actions in kinds.items():
            names = seats if game == "twenty-nine" else seats[:2]
            for action in actions:
                note = undone_words(action, 1, names, desk(game))
                shown = shortened({"prompt": note}, None, names)[0]["prompt"] if seats[0] != "P1" else note
                assert text_width(shown, 1, False) <= W, (shown, text_width(shown, 1, False))


LONG = ("Wilhelmina", "Maximilian", "Wolfgang", "Mohammed")


def inside_and_whole(view):
    """Every text of ``view`` drawn inside the 128x64 frame, and every word of its prompt drawn."""
    from assistant.box.screen import text_items
    items = text_items(view)
    for x, y, w, h, text in items:
        assert x >= 0 and y >= 0 and x + w <= 128 and y + h <= 64, (text, x, y, w, h)
    drawn = " ".join(t for *_, t in items).split()
    for word in (view.prompt.split() if view.menu is None else ()):
        assert word in drawn, (word, drawn)


def test_players_long_names_leave_no_line_of_the_oled_cut_at_its_edge(tmp_path):
    """README: a name longer than 5 characters shows as its first 4 and a dot. Fault (four players
    with long names at a Twenty-Nine table, double=on): the menu's items kept the whole names,
    "Claim: Wilhelmina's renege" and "Double: Maximilian+Mohammed" drawn off the screen's edge
    (its start cut away); and prompt lines with shortened names still ran past 128 pixels:
    "Wilh.+Wolf. may double (menu)", "All passed: Moha. must bid", "Maxi.'s 7th card face
    down", "Maxi.+Moha. win the match!", "Maxi.+Moha. can claim Wolf.'s", and in towers "on
    Wilh.'s pad; Maxi. leads". Now the menu shortens names as the prompt does, a line too wide
    is broken between words, and the claim still open is broken after "can claim"."""
    from assistant.box.view import Menu, View
    from assistant.box.words import open_claims
    players = [a for n in LONG for a in ("--player", n)]
    # seated by their tags; P4 deals (J♣), P1 bids 16 and lays 9♥ face down; the menu to Double
    out = piped(["sim", "--game", "twenty-nine", "--option", "double=on", "--state-dir", tmp_path, *players],
                "\n\n" + "\n".join(LONG) + "\n7S 8S JH JC\n\na\n\na\n\na\n\n9H\nm\nd\nd\nd\nq\n")
    said = screen_lines(out)
    assert said[-1] == ("Menu: Close Undo last Finish round [Double: Maxi.+Moha.] Accuse Wilh. Accuse Maxi. "
                        "Accuse Wolf. Accuse Moha. House rules: double Deal scan: off New match"), said[-2:]
    seats = dict(game="twenty-nine", seats=LONG, score=(0, 0), dealer=1)
    inside_and_whole(View(**seats, phase="menu", menu=Menu("Menu", ("Close", "Claim: Wilh.'s renege",
                                                                       "Double: Maxi.+Moha."), 1)))
    for phase, prompt in (("double", "Maxi. deals 4 more each\nWilh.+Wolf. may double (menu)\nMaxi. leads"),
                          ("bidding", "All passed: Moha. must bid\nMoha. < Bid 16 >"),
                          ("seventh", "Wilh. deals 4 more each:\nMaxi.'s 7th card face down\non Wilh.'s pad")):
        inside_and_whole(View(**seats, phase=phase, prompt=prompt, bid=17, bidder=1))
    # the match's end with both sides' claims still open (N11/D5), as the table words them now
    lines = (SCENARIOS / "twenty-nine" / "N11-second-penalty-replaces-the-match-end.scn").read_text().splitlines()
    over = replay_lines(lines[:lines.index("claim P2")])
    assert open_claims(over) == ["P1+P3 can claim", "P4's renege: hold OK", "P2+P4 can claim", "P3's renege: hold OK"]
    prompt = "\n".join(["Maxi.+Moha. win the match", "Claim: Wilh.'s renege", "replaces the result:",
                        "Maxi.+Moha. +2", "Wilh.+Wolf. can claim", "Maxi.'s renege: hold OK"])
    inside_and_whole(View(**seats, phase="match-over", prompt=prompt))
    towers = dict(game="towers", seats=LONG[:2], score=(0, 0), dealer=0, hand_size=7, up_card=5)
    inside_and_whole(View(**towers, phase="discard", prompt="Wilh.: discard face down\non Wilh.'s pad; Maxi. leads"))


def test_the_menus_house_rules_item_fits_the_oled_with_every_house_rule_on(tmp_path):
    """Fault: with all five house rules on, the menu's item read "House rules: after-call trumps,
    pair, double, pagat scoring, 2 pts from 21", 378 pixels on a 128-pixel line: drawn as far left
    as needed, only its last words were on the screen. Now it says how many are on; OK on it
    lists them (its alert is broken into lines)."""
    from assistant.box.font import text_width
    options = [a for o in ("trick_trumps=after-call", "pair=on", "double=on", "scoring=pagat", "two_point_bid=21")
               for a in ("--option", o)]
    out = piped(["sim", "--game", "twenty-nine", "--state-dir", tmp_path, *options],
                "\n\n\nm\nd\n\nq\n")
    said = screen_lines(out)
    menu = next(s for s in said if s.startswith("Menu: "))
    assert "House rules: 5 on" in menu, menu
    assert said[-1].endswith("NOTE: House rules: after-call trumps, pair, double, pagat scoring, 2 pts from 21"), said[-2:]
    for item in ("House rules: 5 on", "Accuse P1"):
        assert text_width(item) <= 128 - 6  # indented under the menu's title


def test_the_match_end_line_fits_the_oled_with_the_widest_names():
    """Fault (second read of 47091ac): whether "X+Y win the match!" kept its "!" was decided by
    counting characters, so "MMMM.+WWWW. win the match" (130 pixels) still ran off the 128-pixel
    line, and in play a line too wide is broken onto the cards' row. It is measured now: the
    "!" goes, then "the match", whatever the names."""
    from types import SimpleNamespace
    from assistant.box.font import text_width
    from assistant.box.table_view import shortened
    lines = (SCENARIOS / "twenty-nine" / "N11-second-penalty-replaces-the-match-end.scn").read_text().splitlines()
    over = replay_lines(lines[:lines.index("claim P2")])
    for seats, said in ((("P1", "P2", "P3", "P4"), "P2+P4 win the match!"),
                        (LONG, "Maximilian+Mohammed win the match"),
                        (("MMMMMM", "WWWWWW", "MMMMMM", "WWWWWW"), "WWWWWW+WWWWWW win!")):
        over.seats = seats
        first = table_twentynine.fields(SimpleNamespace(match=over, result=None))["prompt"].splitlines()[0]
        assert first == said
        assert text_width(shortened({"prompt": first}, None, seats)[0]["prompt"]) <= 128
