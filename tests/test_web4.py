"""The box's web page and the club board's pages as a player and a club member meet them (the
fourth web round): each test names the fault it covers."""
import json
import re

from assistant.box.journal import Journal
from assistant.rules.match import Match
from assistant.sim.bot_towers import TowersBot
from assistant.sim.bot_twentynine import TwentyNineBot
from test_web import request, served
from test_web_browser import browser  # noqa: F401 (a fixture: the real headless chromium)


def played_until(folder, game, seats, phase, seed=1):
    """A match of ``game`` written into ``folder``'s journal by a bot, up to its first ``phase``."""
    j = Journal(str(folder / "journal.sqlite3"))
    j.new_match(game, seats, {})
    m = Match(game, seats, {})
    bot = (TowersBot if game == "towers" else TwentyNineBot)(seed)
    while m.engine.phase != phase:
        action = bot.next_action(m.engine)
        m.apply(action)
        j.append(action)
    j.close()
    return m


def board_text(html):
    """The board's words as a reader sees them: tags dropped, entities read."""
    from html import unescape
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_the_now_page_shows_the_choice_on_the_screen_without_the_oleds_brackets(tmp_path):
    """Fault: the Now page wrote the OLED's choice line as it is drawn there, "Ann < Accept >":
    the brackets, the OLED's sign for "Left and Right change this", read on a phone as a garbled
    line (a player took it for a bug). The page now shows the choice the box's screen is on as a
    choice: who chooses, then the selected option marked, without the brackets; the JSON keeps
    the OLED's words."""
    played_until(tmp_path, "towers", ("Ann", "Bob"), "trump1")
    with served(tmp_path) as port:
        now = json.loads(request(port, "GET", "/api/now")[2])
        assert now["view"]["prompt"][-1] == "Ann < Accept >" or now["view"]["prompt"][-1] == "Bob < Accept >"
        for path in ("/now/board", "/"):
            html = request(port, "GET", path)[2]
            words = board_text(html)
            assert "<" not in words.replace("<!doctype", "") and " >" not in words, (path, words)
            assert re.search(r'(Ann|Bob): <span class="choice"[^>]*>Accept</span>', html), html


def _code_of(package):
    """``kept.code()`` as the card-assistant in the folder ``package`` (a copy of assistant/) says it."""
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-c", "from assistant.web import kept; print(kept.code())"],
                          cwd=package.parent, capture_output=True, text=True, check=True).stdout


def test_an_upgrade_that_changed_only_the_screens_words_keeps_the_pages_records(tmp_path):
    """Fault: the key of a record kept beside the journal (web-records.sqlite3) held the digest of
    the whole package, so every upgrade, even one that changed only the OLED's words, replayed
    every match of the journal at the page's first start: 5,000 matches, a minute on this machine
    before the first page came (bench web, "after an upgrade"), minutes on a Pi. The key now holds
    the code a record is made by (kept.MADE_BY: the rules and the replay) and no other, so such an
    upgrade takes the kept records; one that changed the rules still replays."""
    import shutil
    from pathlib import Path
    import assistant
    package = tmp_path / "assistant"
    shutil.copytree(Path(assistant.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = _code_of(package)
    with open(package / "box" / "screen.py", "a") as f:
        f.write("\n# the OLED's words changed\n")
    with open(package / "web" / "pages.py", "a") as f:
        f.write("\n# the page's words changed\n")
    assert _code_of(package) == before
    with open(package / "rules" / "towers" / "scoring.py", "a") as f:
        f.write("\n# a rule fixed\n")
    assert _code_of(package) != before


def test_a_record_is_made_by_no_code_outside_what_its_key_holds():
    """The other side of the fault above: a record made by code that its key does not hold would be
    taken from the file after an upgrade that changed that code (stale figures). Replaying matches
    of both games imports nothing of card-assistant outside kept.MADE_BY (the packages' __init__
    aside): a match's hand words take the rules' word ("round"), not the screen's module's."""
    import subprocess
    import sys
    from pathlib import Path
    import assistant
    from assistant.rules.scenario import format_action
    games = []
    for game, seats, bot in (("towers", ("A", "B"), TowersBot(3)),
                             ("twenty-nine", ("A", "B", "C", "D"), TwentyNineBot(3))):
        m = Match(game, seats)
        while m.engine.phase != "over" and (a := bot.next_action(m.engine)) is not None:
            m.apply(a)
        games.append((game, seats, [format_action(a, seats) for a in m.actions]))
    code = """
import sys, json
from assistant.web import kept
from assistant.box.stats import replay_match
for k, (game, seats, lines) in enumerate(json.load(sys.stdin), 1):
    rec = replay_match(k, game, tuple(seats), {}, lines, 1.0, False)
    assert rec.hands and rec.hands[-1].words, rec
print(json.dumps([getattr(sys.modules[m], "__file__", "") for m in sys.modules if m.startswith("assistant")]))
print(json.dumps(kept.MADE_BY))
"""
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(games), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    files, made_by = json.loads(out[0]), json.loads(out[1])
    root = Path(assistant.__file__).parent
    outside = [rel for rel in (Path(f).relative_to(root).as_posix() for f in files)
               if not any(rel == part or rel.startswith(part + "/") for part in made_by)
               and rel not in ("__init__.py", "box/__init__.py", "web/__init__.py")]
    assert outside == [], outside  # the packages' (empty) __init__ aside


def test_a_page_asked_for_while_every_match_is_replayed_says_so_and_how_far_not_hangs(tmp_path, monkeypatch):
    """Fault: at the page's first start after an upgrade of the rules (or with web-records.sqlite3
    removed), every request waited for the replay of every match of the journal: 5,000 matches,
    a minute here (bench web), minutes on a Pi; a phone's browser spun, or gave up, and the box
    looked broken. A request now waits at most Site.patience for another's reading of the
    journal, then is answered 503 (Retry-After) with what the page is doing and how far it is;
    a page reloads by itself, and the pages come as before once the replay is done."""
    import threading
    import time
    import assistant.web.history as history_module
    from assistant.web.server import make_server
    from test_stats import write_journal
    write_journal(tmp_path)
    real, release = history_module.replay_match, threading.Event()

    def slow(mid, *rest):
        if mid == 3:
            release.wait(30)
        return real(mid, *rest)
    monkeypatch.setattr(history_module, "replay_match", slow)
    server = make_server(str(tmp_path), "127.0.0.1", 0)
    server.site.patience = 0.05
    threading.Thread(target=server.serve_forever, daemon=True).start()
    start = threading.Thread(target=server.site.players, kwargs={"wait": -1})  # as card-assistant web
    start.start()
    port = server.server_address[1]
    try:
        deadline = time.monotonic() + 10
        while server.site.history.progress != (2, 6) and time.monotonic() < deadline:
            time.sleep(0.01)  # matches 1 and 2 replayed, the third under way
        for path in ("/matches", "/players", "/matches/1"):
            status, headers, html = request(port, "GET", path)
            assert status == 503 and headers["Retry-After"] == "5", (path, status)
            assert "reading the journal's matches: 2 of 6 so far" in board_text(html), path
            assert 'http-equiv="refresh"' in html
        status, headers, board = request(port, "GET", "/now/board")
        assert status == 503 and "2 of 6" in board and headers["X-Board-Version"].startswith("reading")
        status, _, body = request(port, "GET", "/api/matches")
        assert status == 503 and "2 of 6" in json.loads(body)["error"]
        assert request(port, "GET", "/")[0] == 503
    finally:
        release.set()
        start.join(30)
    try:
        status, _, html = request(port, "GET", "/matches")
        assert status == 200 and "reading" not in html
        assert len(json.loads(request(port, "GET", "/api/matches")[2])) == 6
    finally:
        server.shutdown()
        server.server_close()
        server.site.close()


def test_a_page_asked_for_while_another_is_made_waits_for_it_and_never_says_reading(tmp_path):
    """Fault (second read of the 503 above): any request that waited Site.patience for the lock
    was told "the page is reading the journal's matches", though none was replayed: after each
    action the Players figures are worked out again under the lock (0.5 s at 5,000 matches here,
    seconds on a Pi), and every phone on the Now page saw the table replaced by that message in
    the middle of a match. Only a replay under way is said; other work is waited for."""
    import threading
    import time
    from test_stats import write_journal
    from assistant.web.site import Site
    write_journal(tmp_path)
    site = Site(str(tmp_path))
    site.patience = 0.05
    site.records()  # read once: no replay from here on
    got = []
    try:
        with site.lock:  # another request's ordinary work, longer than the patience
            t = threading.Thread(target=lambda: got.append(len(site.records())))
            t.start()
            time.sleep(0.3)
            assert t.is_alive() and got == []  # waiting, not answered "reading"
        t.join(10)
        assert got == [6]
    finally:
        site.close()


def test_the_boards_tables_page_lists_last_nights_matches_on_nights_not_as_tonights(tmp_path, monkeypatch):
    """Fault (suspected in the last round, confirmed): the board's Tables page said "Tonight's
    matches (and each table's latest) below" and listed every match it held in memory under it: a
    match stays there until 12 hours after its last event reached the board, so last night's
    matches (or a week's, from a box that sends its backlog as it comes back into the Wi-Fi) were
    listed as tonight's for hours, while the same page counted them among the older nights. Now a
    table lists tonight's matches and its latest only; the older ones are on Nights, as it says."""
    import time as clock
    from assistant.club.board import Board
    from assistant.club.records import records
    from assistant.club.nights_page import night_page
    from assistant.club.tables_page import club_page
    from assistant.club import season
    from test_club import bot_table, deliver
    real = clock.time
    day = clock.strftime("%Y-%m-%d", clock.localtime(real() - season.TURN - 86400))
    evening = clock.mktime(clock.strptime(day + " 21:00", "%Y-%m-%d %H:%M"))  # last night, 21:00
    began = real()
    monkeypatch.setattr(clock, "time", lambda: evening + (real() - began))
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 2, name="t1")
    for seats in (("Ann", "Bob"), ("Ann", "Cat")):  # a few actions of each: the first abandoned
        t.new_match("towers", {}, seats=seats)
        for _ in range(12):
            t.apply(bot.next_action(t.match.engine))
    deliver(board, j)  # as played, last night
    monkeypatch.undo()  # tonight, before the board put them away (12 hours after their last event)
    try:
        home = club_page(board, records(board))
        links = re.findall(r'<a href="/matches/t1/(\d+)">', home)
        assert links == ["2"], links  # the table's latest only
        assert "2 matches of older nights" in board_text(home)
        night = night_page(board, day)
        assert re.findall(r'<a href="/matches/t1/(\d+)">', night) == ["2", "1"]
    finally:
        board.close()


def test_a_record_read_in_one_pass_is_that_of_the_actions_in_effect_whatever_was_undone():
    """Guard for the replay made in one pass (stats.replay_match read each hand's outcome as the
    lines were applied; it replayed the actions in effect a second time for them, 40% of a year's
    replay at an upgrade of the rules): lines with undos, each undone action played again or
    another in its place, give the record of the actions in effect, hand by hand."""
    import random
    from dataclasses import asdict
    from assistant.box.stats import replay_match
    from assistant.rules.scenario import format_action
    rng = random.Random(5)
    for game, seats, bot in (("towers", ("A", "B"), TowersBot(8, renege_rate=0.05)),
                             ("twenty-nine", ("A", "B", "C", "D"), TwentyNineBot(8, renege_rate=0.05))):
        m = Match(game, seats)
        while m.engine.phase != "over" and (a := bot.next_action(m.engine)) is not None:
            m.apply(a)
        lines = [format_action(a, seats) for a in m.actions]
        with_undos = []
        for k, line in enumerate(lines):
            with_undos.append(line)
            if rng.random() < 0.05 and k:  # the last two taken back, then played again
                with_undos += ["undo", "undo", lines[k - 1], line]
            elif rng.random() < 0.05:
                with_undos += ["undo", line]
        assert len(with_undos) > len(lines) + 20
        plain, undone = (asdict(replay_match(1, game, seats, {}, x, 1.0, False)) for x in (lines, with_undos))
        assert undone.pop("actions") == plain.pop("actions") == len(lines)
        assert undone == plain and len(plain["hands"]) > 5
        ends, e = [], Match(game, seats).engine  # undos that take a hand's end back, for good
        for k, a in enumerate(m.actions, 1):
            before = e.outcome
            e.apply(a)
            if e.outcome is not None and e.outcome != before:
                ends.append(k)
        for k in ends[1:4] + ends[-1:]:
            for back in (1, 2):
                cut, undone = (asdict(replay_match(1, game, seats, {}, x, 1.0, False))
                               for x in (lines[:k - back], lines[:k] + ["undo"] * back))
                assert undone == cut, (k, back)


def test_a_page_of_matches_names_the_matches_it_lists_not_their_places_in_the_list(tmp_path):
    """Fault: the last of 50 pages of Matches said "Matches 4901 to 5000 of 5000" above matches
    #100 to #1, and the first "Matches 1 to 100" above #5000 to #4901: the words counted places
    in the list, newest first, while the # column beside them gave the matches' own numbers, so a
    player looking for match 4950 was sent to the wrong page. Now a page names the numbers of the
    matches it lists, as the # column has them, and how many there are in all."""
    from test_web import begun
    begun(tmp_path, 205)
    with served(tmp_path) as port:
        first = board_text(request(port, "GET", "/matches")[2])
        last = board_text(request(port, "GET", "/matches?page=3")[2])
    assert "Matches 205 to 106, newest first, of 205 in all (page 1 of 3)" in first, first[:400]
    assert "Matches 5 to 1, newest first, of 205 in all (page 3 of 3)" in last, last[:400]


def test_on_a_phone_a_matchs_number_is_a_link_a_finger_can_hit(tmp_path, browser):  # noqa: F811
    """Fault (accessibility, at a phone's size): a match's page was reached by tapping its number
    in the # column, and match 1 to 9's link was the digit alone, 9 px wide (WCAG 2.2 asks 24 by 24
    CSS px for a target): a thumb hit the game's name beside it or the row above. Each number's
    link is now at least 24 px wide and high, on the box's Matches page and the board's tables."""
    from selenium.webdriver.common.by import By
    from test_web_browser import SIZES, web_page
    played_until(tmp_path, "towers", ("Ann", "Bob"), "trump1")
    with web_page(tmp_path) as base:
        browser.set_window_size(*SIZES["phone"])
        browser.get(base + "/matches")
        link = browser.find_element(By.CSS_SELECTOR, 'table a[href="/matches/1"]')
        assert link.size["width"] >= 24 and link.size["height"] >= 24, link.size
