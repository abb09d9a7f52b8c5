"""What a fourth newcomer met at the keyboard simulator and the club board, playing whole matches
as a player and an organiser would: each test names the fault and plays the real command."""
from test_sim_newcomer import in_terminal, piped
from test_sim_newcomer_table import cli

# Twenty-Nine with double=on: P1 flips J♠ and deals, bids, P2 bids 16 and wins, lays 9♥ face down,
# P2+P4 double and P1+P3 redouble from the menu
DOUBLED = "\n\n7S 8S JH JC\n\na\n\na\n\na\n\n9H\nm\nd\nd\nd\n\nm\nd\nd\nd\n\n"


def screen_lines(out):
    return [" ".join(ln.split("screen: ", 1)[1].split()) for ln in out.split("\n") if "screen: " in ln]


def test_an_undo_of_the_redouble_or_the_first_lead_says_what_it_took_back(tmp_path):
    """Fault: before the first lead of a doubled round the OLED's prompt kept only its last four
    lines, so "Undone: redouble" (and "Undone: P1's 7♠", the first lead taken back over a
    redouble) was cut off: hold Back took the redouble back and the screen did not say so. Now the
    note stays and "P4 deals 4 more each" goes."""
    out = piped(["sim", "--game", "twenty-nine", "--option", "double=on", "--state-dir", tmp_path],
                DOUBLED + "u\nq\n")
    assert screen_lines(out)[-1].startswith("double: Undone: redouble / "), screen_lines(out)[-3:]
    out = piped(["sim", "--state-dir", tmp_path], "m\nd\nd\nd\n\n7S\nu\nq\n")
    assert screen_lines(out)[-1].startswith("double: Undone: P1's 7♠ / "), screen_lines(out)[-3:]


def test_the_players_a_state_folder_keeps_can_be_typed_without_naming_them_again(tmp_path):
    """Fault: a sim started again on a folder whose players.txt the README's `players rename Ann
    Anna` had changed (or an earlier `--player`) asked "P1: tap player tag", yet typing Anna was
    "not a card or a key": only names given with --player in this run could be typed, so no player
    could sit down. Now every tag the folder keeps is typed by its name, and the start says which."""
    piped(["sim", "--state-dir", tmp_path, "--player", "Ann", "--player", "Bob"], "q\n")
    renamed = cli("players", "rename", "Ann", "Anna", "--state-dir", tmp_path)
    assert renamed.returncode == 0, renamed.stderr
    out = piped(["sim", "--state-dir", tmp_path], "\nAnna\nbob\nq\n")
    assert "Players' tags: type Anna, Bob." in " ".join(out.split())
    assert "tapped Anna's player tag on pad 1" in out and "tapped Bob's player tag on pad 2" in out
    assert "not a card or a key" not in out
    assert screen_lines(out)[-1] == "flip: Flip for the deal: / tap one card each", screen_lines(out)[-1]


# Twenty-Nine without deal scan: P2 deals (J♣), P4 wins at 17 and calls the seventh card, P3
# fails to follow A♥ with J♣ and shows 9♥ a trick later: the renege is proven
RENEGE = "\n\n9H JC\n\n\na\n\na\n\na\n\nd\n\n8D\nAS KS 7S 9S\nAH JC 7H 8H\n10H 9H\nb\n"


def test_an_undone_claim_names_the_side_that_claimed_not_one_player(tmp_path):
    """Fault: the menu offers "Claim: P3's renege" to the wronged side (the box cannot tell which
    partner pressed), yet hold Back then said "Undone: claim P2", in the journal's words, naming a
    player who may not have claimed; an undone accusation said "Undone: accuse P3". Now the words
    are "Undone: P2+P4's claim" and "Undone: accusing P3" (the review found "the accusation of
    P3", the first words, read as P3 accusing)."""
    out = piped(["sim", "--game", "twenty-nine", "--state-dir", tmp_path],
                RENEGE + "m\nd\nd\n\nu\nm\nd\nd\nd\nd\nd\nd\n\nu\nq\n")
    said = screen_lines(out)
    assert any(s.startswith("hand-over: Claim: P3's renege / P2+P4 +1") for s in said), said[-12:]
    assert "play: Undone: P2+P4's claim" in said, said[-12:]
    assert "play: Undone: accusing P3" in said, said[-6:]
    assert not any("Undone: claim" in s or "Undone: accuse" in s for s in said)


def test_the_club_page_says_what_a_simulated_box_started_again_does_with_its_match():
    """Fault: docs/club.md told the organiser that a simulated box killed mid-match and started
    again with --bots "ends the match in play and begins a new one", shown *abandoned* on the
    board; the bots finish that match (tests/test_sim_fixes.py), and the board showed it won,
    so the organiser looked for an abandoned match that was never there."""
    from test_sim_newcomer import ROOT
    club = " ".join((ROOT / "docs" / "club.md").read_text().split())
    assert "begins a new one" not in club and "shows that match *abandoned*" not in club
    assert "Started again with the same command, its bots finish the match in play first" in club


def test_the_nights_page_lists_every_match_of_last_night_with_each_tables_last(tmp_path):
    """Fault (an organiser the morning after a club night, board started on its file): /nights
    counted only the matches put away, and each table's latest match stays in memory (for /), so
    last night showed "1 table, 2 matches" of the 3 played, /nights/DAY left out the night's last
    match at every table (a night of one match a table was not listed at all), and / said "2 of
    older nights". Now a night shows every match begun in it."""
    import time

    from assistant.club import season
    from assistant.club.board import Board
    from assistant.club.page import club_page, night_page, nights_page, records
    from test_club import bot_table, play
    j, t, bot = bot_table(tmp_path, "towers", 3)
    for seats in (("Ann", "Bob"), ("Ann", "Cat"), ("Bob", "Cat")):
        play(t, bot, "towers", seats)
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        for _, topic, payload in j.outbox_rows(0, 100_000):
            board.receive(topic, payload.encode())
        night = season.night_of(time.time())
        tomorrow = time.time() + 24 * 3600
        assert board.tidy(now=tomorrow) == 2  # matches 1 and 2; 3 is the table's latest
        listed = nights_page(board, now=tomorrow)
        assert f'{night}</a></td><td class=n>1</td><td class=n>3</td>' in listed, listed
        page = night_page(board, night, now=tomorrow)
        assert all(f'href="/matches/t1/{m}"' in page for m in (1, 2, 3)), page
        assert "3 matches of older nights" in club_page(board, records(board), now=tomorrow)
    finally:
        board.close()
        j.close()


def test_every_install_sh_in_the_club_page_is_run_from_the_checkout():
    """Fault (an organiser typing docs/club.md's TLS block word for word): the block began with
    `cd /etc/mosquitto/certs` and ended with `sudo systemd/install.sh --board`, a path relative to
    the checkout: "sudo: systemd/install.sh: command not found". Each block's commands are
    followed here with the folder they are typed in."""
    import re

    from test_sim_newcomer import ROOT
    text = (ROOT / "docs" / "club.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert any("systemd/install.sh" in b for b in blocks)
    for block in blocks:
        away = []  # the folders cd'd into, since the checkout
        for line in block.replace("\\\n", " ").splitlines():
            command = line.split("#", 1)[0].strip()
            for part in re.split(r"&&|;", command):
                words = part.split()
                if words[:1] == ["cd"]:
                    if words[1:] == ["-"] and away:
                        away.pop()
                    else:
                        away.append(words[1] if len(words) > 1 else "~")
                elif "systemd/install.sh" in part and not part.strip().startswith(("/", "~")):
                    assert not away, f"{line.strip()!r} is typed in {away[-1]}, not in the checkout"


def test_a_broker_restarting_is_not_blamed_on_another_box_with_the_tables_name(tmp_path, caplog):
    """Fault (an organiser running docs/club.md's `sim --club --chaos`, and any box whose broker
    restarts or whose Wi-Fi drops a few times): a connection closed three times within 10 s was
    said as "is another box's [club] table t1 too?" alone, a wrong setup the organiser then looked
    for (5 such lines in a run of 8 tables, where no two boxes shared a name). Mosquitto closes a
    connection taken over by another client of its id as it closes one it lost (no MQTT 5 "session
    taken over" reaches the box), so the line now names each cause it may be."""
    import logging

    from assistant.club.broker import Broker
    from assistant.club.publisher import Publisher
    from test_club import bot_table, mosquitto_or_skip, play, wait_for
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club")
    broker = Broker(tmp_path / "broker", "c", ["t1"], persistence=False).start()
    j, t, bot = bot_table(tmp_path, "towers", 4)
    play(t, bot, "towers", ("Ann", "Bob"))
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    try:
        for n in range(1, 4):  # three connections, each ended by the broker's restart
            assert wait_for(lambda: pub.connections == n, timeout=60)
            broker.kill()
            broker.start()
        said = lambda: [r.getMessage() for r in caplog.records if "3 times in a row" in r.getMessage()]  # noqa: E731
        assert wait_for(lambda: said(), timeout=60), [r.getMessage() for r in caplog.records]
        assert "or is the Wi-Fi at its edge or the broker restarting?" in said()[0], said()
        assert wait_for(pub.idle, timeout=60)  # nothing lost
    finally:
        pub.stop()
        broker.stop()
        j.close()


def test_replays_summary_of_twenty_nine_says_round_as_the_rules_and_the_screen_do(tmp_path):
    """Fault: `card-assistant replay` of a Twenty-Nine match said "Hand 1: trump hidden" and
    "Renege proven: P3, hand 1, trick 2", where docs/rules.md (N3-N11), the box's screen and the
    web page ("P3, round 1, trick 2") call it a round; a player comparing them looked for a hand
    1 that is not there. Towers keeps its hands."""
    piped(["sim", "--game", "twenty-nine", "--state-dir", tmp_path / "box"], RENEGE + "q\n")
    assert cli("export", "--state-dir", tmp_path / "box", tmp_path / "m.scn").returncode == 0
    said = cli("replay", tmp_path / "m.scn").stdout
    assert "Round 1: trump hidden; tricks P1 0, P2 2, P3 0, P4 0" in said, said
    assert "Renege proven: P3, round 1, trick 2" in said and "Hand" not in said and "hand" not in said


def test_the_bots_say_which_match_of_the_journal_the_web_page_shows_for_theirs(tmp_path):
    """Fault (a newcomer following the README's `dev.py web`, then its two-terminal run on .play):
    the bots said "match 1: Bob won, Ann 2 - Bob 5" of a run's first match, while the web page
    beside it showed that match as "Match 4" (the journal's number, as the club board's too): the
    newcomer looked for match 1 and found another result. The line now says the journal's number
    when it differs."""
    args = ["sim", "--bots", "--matches", "1", "--seed", "3", "--state-dir", tmp_path]
    first = [ln for ln in piped(args, "").split("\n") if ln.startswith("match 1")]
    second = [ln for ln in piped(args, "").split("\n") if ln.startswith("match 1")]
    assert first[0].startswith("match 1: "), first
    assert second[0].startswith("match 1 (match 2 in the journal and on the web page): "), second


def test_the_table_line_keeps_a_declared_pair_apart_from_an_accusation(tmp_path):
    """Fault: in a terminal shorter than the drawing the table line ran the screen's notes
    together, "pair P2 accused P4", which reads as "P2 accused P4"; P2 had declared the pair and
    P1+P3 had accused P4. Now each note is its own: "pair P2, accused P4"."""
    hands = "1 JD AD 10D JC 9C AC 7S\n2 KD QD 8D 7D JH 9H AH 10H\n3 JS 9S AS 10S KS QS 8S 10C\n" \
            "4 KH QH 8H 7H KC QC 8C 7C\n"
    keys = ("\n\n7H 8H JS\n\n\na\n\na\n\na\n\n9D\n" + hands  # P3 deals, P1 bids 17, lays 9♦
            + "KC JC\nd\n\n7D 10C\nm\nd\nd\nd\n\nKD QD\nm\n" + "d\n" * 6 + "\nq\n")
    out = in_terminal(["sim", "--state-dir", tmp_path, "--game", "twenty-nine", "--deal-scan",
                       "--option", "pair=on"], keys, columns=100, rows=30)
    said = " ".join(out.split())
    assert "| pair P2, accused P4" in said, said[-700:]


def test_a_kept_player_whose_name_is_a_key_is_said_to_be_typed_with_its_pad(tmp_path):
    """Fault (review of the players a state folder keeps): `players rename Bob Help` is taken, yet
    the sim's start then said "Players' tags: type Help, Bob." and typing Help showed the keys' help,
    never the tag; the README says such a name is refused at start, which only --player's names
    are. The start now says to type it with its pad's number ('1 Help'), which taps it."""
    piped(["sim", "--state-dir", tmp_path, "--player", "Ann", "--player", "Bob"], "q\n")
    renamed = cli("players", "rename", "Bob", "Help", "--state-dir", tmp_path)
    assert renamed.returncode == 0, renamed.stderr
    out = piped(["sim", "--state-dir", tmp_path], "1 Help\nq\n")
    said = " ".join(out.split())
    assert "Players' tags: type Ann, Help (with its pad's number, '1 Help': alone it is help)." in said, said[:400]
    assert "tapped Help's player tag on pad 1" in out
