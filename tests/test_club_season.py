"""The club board over a season: older nights leave its memory, stay in its file, and their pages
show the same results (assistant/club/season.py), against the real Mosquitto where a box sends.

Each test names the fault it covers (the board's leftovers after club night: its memory over a
season).
"""
import json
import sqlite3
import time

from assistant.club import season
from assistant.club.board import Board
from assistant.club.page import club_json
from assistant.club.publisher import Publisher
from test_club import (broker, bot_table, deliver, live_board, page_of, play, served_board,  # noqa: F401
                       wait_for)

LATER = 13 * 3600  # seconds: the next evening, past season.KEEP


def pages(board, paths):
    server, get = served_board(board)
    try:
        return {p: get(p) for p in paths}
    finally:
        server.shutdown()


def standings(board):
    return club_json(board)["standings"]


def as_an_older_board_left_it(path):
    """The board's file as a board before put-away matches left it (no matches table), a day ago."""
    db = sqlite3.connect(path)
    with db:
        db.execute("DROP TABLE matches")
        db.execute("UPDATE events SET received = received - 86400")
    db.close()


def test_an_older_night_leaves_the_boards_memory_and_its_pages_show_the_same(broker, live_board, tmp_path,
                                                                              monkeypatch):
    """Fault (a club's board on a Pi, night after night): the board kept every match of every night
    in memory (about 3.6 MB a table a night) and read its whole file at every start, so a season
    filled the Pi's memory. Now a match the board has heard nothing of for a night is put away: its
    record (what its page shows) goes into the board's file and the match leaves the memory; the
    match's page, its night's page and the standings show the same as before, after a restart
    too, and a restarted board loads the current night only. Each table's latest match stays."""
    j, t, bot = bot_table(tmp_path, "towers", 11)
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    try:
        for seats in (("Ann", "Bob"), ("Ann", "Cat"), ("Bob", "Cat")):
            play(t, bot, "towers", seats)
        assert wait_for(lambda: pub.idle() and live_board.counts["stored"] == sum(
            len(j.read(m)[1]) + 1 for m in (1, 2, 3)))
    finally:
        pub.stop()
    paths = ("/matches/t1/1", "/matches/t1/2", "/matches/t1/3", "/players")
    before, table_before = pages(live_board, paths), standings(live_board)
    assert live_board.tidy(now=time.time() + LATER) == 2  # matches 1 and 2; 3 is the table's latest
    assert sorted(live_board.matches) == [("t1", j.name(), 3)]
    assert pages(live_board, paths) == before and standings(live_board) == table_before
    night = season.night_of(time.time())
    nights, of_night = (page_of(live_board, p) for p in ("/nights", f"/nights/{night}"))
    assert f'href="/nights/{night}"' in nights
    assert 'href="/matches/t1/1"' in of_night and 'href="/matches/t1/2"' in of_night
    assert "of older nights on" in page_of(live_board, "/")
    stored = live_board.counts["stored"]
    again = Board(str(tmp_path / "board.sqlite3"), "c")  # restarted: only the latest match is loaded
    try:
        assert sorted(again.matches) == [("t1", j.name(), 3)] and again.counts["stored"] == stored
        assert pages(again, paths) == before and standings(again) == table_before
    finally:
        again.close()
    j.close()


def test_a_board_first_started_on_a_seasons_file_never_loads_the_whole_season(tmp_path):
    """Fault (the same, at a start): the board read every event of its file into memory as it
    started, a season's. Started on a file an older board wrote (events only) whose matches are
    a night old, it puts them away one at a time and loads the tables' latest matches only; what
    was stored is all counted and the standings are the same."""
    board = Board(str(tmp_path / "board.sqlite3"), "c", keep=None)
    for name, game, seats, seed in (("t1", "towers", ("Ann", "Bob"), 2), ("t2", "twenty-nine",
                                                                         ("Ann", "Cat", "Dan", "Eve"), 3)):
        j, t, bot = bot_table(tmp_path, game, seed, name=name)
        play(t, bot, game, seats)
        play(t, bot, game, seats)
        deliver(board, j)
        j.close()
    everything, stored = standings(board), board.counts["stored"]
    board.close()
    as_an_older_board_left_it(tmp_path / "board.sqlite3")
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        assert sorted((t, m) for t, _, m in board.matches) == [("t1", 2), ("t2", 2)]
        assert board.counts["stored"] == stored and standings(board) == everything
        assert "Table t2, match 1: Twenty-Nine" in page_of(board, "/matches/t2/1")
    finally:
        board.close()


def test_an_event_of_a_match_put_away_is_taken_not_lost(tmp_path):
    """Fault guarded (nothing a club has received may be lost): a box back after weeks sends the
    rest of a match the board has put away (its gap held since); the match comes back into memory,
    the event is stored and applied, and its page shows it whole."""
    j, t, bot = bot_table(tmp_path, "towers", 5)
    play(t, bot, "towers", ("Ann", "Bob"))
    play(t, bot, "towers", ("Ann", "Bob"))
    rows = [(topic, payload) for _, topic, payload in j.outbox_rows(0, 100_000) if topic.endswith("/events")]
    first = [r for r in rows if json.loads(r[1])["id"][1] == 1]
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        for topic, payload in rows:
            if (topic, payload) != first[-1]:  # match 1's last event lost on the way
                board.receive(topic, payload.encode())
        assert board.tidy(now=time.time() + LATER) == 1
        assert ("t1", j.name(), 1) not in board.matches
        board.receive(*first[-1][:1], first[-1][1].encode())  # it comes after all
        assert board.matches[("t1", j.name(), 1)].summary()["phase"] == "over"
        assert board.counts["stored"] == len(rows) and board.counts["refused"] == 0
        assert "finished" in page_of(board, "/matches/t1/1")
    finally:
        board.close()
        j.close()


def test_players_adds_the_older_nights_up_once_not_three_times_a_request(tmp_path, monkeypatch):
    """Fault (a season's board: /players took 4.6 s a request for 30 nights of 20 tables, growing
    with the season): every request read every put-away record from the file three times
    (standings, wins over time, two tables at once). Now the older nights are added up once and
    kept until a match is put away or brought back; the page shows the same figures, a player at
    two tables at once included when one of the two matches is put away and the other is not."""
    from assistant.club import players_page as page
    from test_club_night import played_at
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    now, names = time.time(), {}
    for name, plays in (("t1", ((("Eve", "Bob"), now - 3000, now - 1200), (("Eve", "Cat"), now - 1000, now - 500))),
                        ("t2", ((("Eve", "Dan"), now - 2400, now - 400),))):  # Eve at t1 and t2 at once
        j, t, bot = bot_table(tmp_path, "towers", 2, name=name)
        names[name] = j.name()
        for mid, (seats, start, end) in enumerate(plays, 1):
            play(t, bot, "towers", seats)
            rows = [(topic, p) for _, topic, p in j.outbox_rows(0, 100_000)
                    if json.loads(p).get("id", [0, 0])[1] == mid]
            for topic, payload in played_at(rows, start, end):
                board.receive(topic, payload)
        j.close()
    before, table_before = page_of(board, "/players"), standings(board)
    assert "<li>Eve: table t1 match 1 and table t2 match 1," in before
    assert "<li>Eve: table t1 match 2 and table t2 match 1," in before
    read = []
    older_records = page.older_records
    monkeypatch.setattr(page, "older_records", lambda b: read.append(1) or older_records(b))
    assert board.tidy(now=time.time() + LATER) == 1  # t1's match 1; each table's latest stays
    assert pages(board, ["/players"] * 3) == {"/players": before} and standings(board) == table_before
    assert len(read) == 1, read  # the older nights read once for three pages and the standings
    late = {"v": 1, "id": ["t1", 1, 999], "kind": "action", "line": "pass P1", "hand": 1, "journal": names["t1"]}
    board.receive("club/c/t1/events", json.dumps(late).encode())  # a late event of it: brought back
    assert ("t1", names["t1"], 1) in board.matches
    page_of(board, "/players")
    assert len(read) == 2  # match 1 brought back (an event of it came): read again
    board.close()


def test_a_matchs_record_kept_between_pages_follows_every_event_applied(tmp_path):
    """Fault guarded (every page replayed every match of tonight at every request: / took 0.5 s
    for 40 tables, /players as much again): a match's record is now kept between requests and made
    again only once an event of it is applied, so the page follows the match to its end."""
    from assistant.club.page import records
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 4)
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    for _ in range(30):
        assert t.apply(bot.next_action(t.match.engine))
    deliver(board, j)
    first = records(board)[0]
    assert first.state == "in play" and records(board)[0].actions == first.actions == 30
    while t.match.engine.phase != "over":
        assert t.apply(bot.next_action(t.match.engine))
    deliver(board, j)
    last = records(board)[0]
    assert last.state == "finished" and last.score == list(t.match.state()["score"]), last
    assert "finished" in page_of(board, "/")
    board.close()
    j.close()


def test_one_tag_at_two_tables_all_season_lists_the_latest_clashes_not_thousands(tmp_path):
    """Fault (a season where one tag was used at two tables all along: bench/club_season.py's
    boards seat the same four names at every table, 45,000 lines): /players listed every pair of
    matches at two tables at once, a page nobody can read, which grew with the season. Now it lists
    the latest 30 and says how many more there were before them."""
    from test_club_night import played_at
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    now = time.time()
    for name, seed in (("t1", 2), ("t2", 3)):
        j, t, bot = bot_table(tmp_path, "towers", seed, name=name)
        for mid in range(1, 7):  # 6 matches at each table, every one at the same time: 36 clashes
            play(t, bot, "towers", ("Eve", "Bob" if name == "t1" else "Dan"))
            rows = [(topic, p) for _, topic, p in j.outbox_rows(0, 100_000)
                    if json.loads(p).get("id", [0, 0])[1] == mid]
            for topic, payload in played_at(rows, now - 3000 + mid, now - 100 + mid):
                board.receive(topic, payload)
        j.close()
    players = page_of(board, "/players")
    assert players.count("<li>Eve: table t1 match") == 30 and "And 6 more before these." in players, players
    assert board.tidy(now=time.time() + LATER) == 10  # the older nights' clashes are counted the same
    clashes = players.split('<div class="warn">')[1].split("</div>")[0]
    assert clashes in page_of(board, "/players")
    board.close()


def test_a_match_put_away_while_a_page_adds_the_season_up_is_counted_once(tmp_path, monkeypatch):
    """Fault (the board's examiner): a request read tonight's matches, then the older nights from the
    board's file, apart (and /api/club read the older nights twice, and worked out the wins over
    time and the clashes it never showed). A match put away between the two reads (every 5 s the
    board puts away what is 12 hours old) was in both: counted twice in the season's standings.
    Now a request reads both of one moment (the older nights again if a match was put away while
    they were read), once."""
    from assistant.club import players_page
    from assistant.club.standings import Older
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 11)
    for seats in (("Ann", "Bob"), ("Ann", "Cat")):
        play(t, bot, "towers", seats)
    deliver(board, j)
    truth = standings(board)
    assert truth["towers"]["players"]["Ann"]["played"] == 2
    older, older_records, read = players_page.older, players_page.older_records, []

    def put_away_meanwhile(b):  # the board's tidy, between the request's two reads
        if not read:
            assert board.tidy(now=time.time() + LATER) == 1  # match 1; match 2 is the table's latest
        return older(b)
    monkeypatch.setattr(players_page, "older", put_away_meanwhile)
    monkeypatch.setattr(players_page, "older_records", lambda b: read.append(1) or older_records(b))
    with monkeypatch.context() as m:
        m.setattr(Older, "figures", None)  # /api/club shows no wins over time, nor clashes: not worked out
        assert standings(board) == truth
    assert len(read) == 1  # the file read once, with match 1 in it
    assert page_of(board, "/players") == page_of(board, "/players") and len(read) == 1  # then kept
    board.close()


def test_events_of_put_away_matches_bring_back_at_most_a_night_of_them(tmp_path, monkeypatch):
    """Fault (the board's examiner, one table's password over a season): an event of a match put
    away (an older night's) takes it back into the board's memory, to replay it whole, and no
    bound counted that: one event for each match of the table's season (their journal's name is
    on /api/club) brought the whole season back, a replay each under the board's lock (19 matches:
    22 s, 2.9 MB). A match taken back now counts as a match added tonight, within the table's
    bounds (tables.MAX_MATCHES, MAX_EVENTS); beyond them the event is refused, as a new match is."""
    from assistant.club import tables
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    for mid in range(1, 6):
        board.receive("club/c/t1/events", json.dumps({"v": 1, "id": ["t1", mid, 0], "kind": "start", "game": "towers",
                                                      "seats": ["Ann", "Bob"], "options": {}, "journal": "ab12"}).encode())
    later = time.time() + LATER
    assert board.tidy(now=later) == 4  # 1 to 4; 5 is the table's latest
    monkeypatch.setattr(time, "time", lambda: later)  # the next night
    monkeypatch.setattr(tables, "MAX_MATCHES", 2)
    for mid in range(1, 5):
        late = {"v": 1, "id": ["t1", mid, 7], "kind": "action", "line": "pass P1", "hand": 1, "journal": "ab12"}
        board.receive("club/c/t1/events", json.dumps(late).encode())
    assert sorted(m for _, _, m in board.matches) == [1, 2, 5] and board.counts["refused"] == 2
    board.close()


def test_the_nights_pages_read_the_nights_index_not_every_older_record(tmp_path):
    """Fault (the board's examiner over a season): /nights and /nights/DAY found each match's night
    in its record's JSON, read for every match put away at each request (/nights: 146 ms at 1,160
    matches, 450 ms at 3,540, growing all season; with each table's latest counted, once more a
    table). The board's file indexes the put-away matches by night (and table): each query the
    Nights pages make searches that index, none reads the whole season."""
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 11)
    for seats in (("Ann", "Bob"), ("Ann", "Cat")):
        play(t, bot, "towers", seats)
    deliver(board, j)
    assert board.tidy(now=time.time() + LATER) == 1
    night = season.night_of(time.time())
    db = board.file.reader()
    asked = []
    db.set_trace_callback(asked.append)
    assert season.nights(db)[0][0] == night and len(season.of_night(db, night)) == 1
    assert season.has_table(db, night, "t1")
    db.set_trace_callback(None)
    assert len(asked) == 3
    for sql in asked:
        plan = " ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql))
        assert "matches_by_night" in plan, (sql, plan)
    db.close()
    board.close()
