"""Club night as a stranger sets it up from docs/club.md: the real Mosquitto, the board, boxes.

Each test names the fault an outside run of a club night found (simulated boxes joining an
outside club, hostile messages on the broker), against the real broker as tests/test_club.py.
"""
import json
import subprocess
import sys
import threading
import time

import pytest

from assistant.club.board import Board
from assistant.club.page import club_json
from test_club import (broker, bot_table, finished_match, live_board, play, send, send_all,  # noqa: F401
                       deliver, page_of, served_board, wait_for)


def test_a_message_the_board_cannot_read_never_stops_its_subscription(broker, live_board, tmp_path):
    """Fault: a table's message nested 2,000 deep (4 KB, under the size limit) made json.loads raise
    RecursionError inside paho's on_message; paho's network thread died with a traceback, the board
    heard nothing more while its page still said connected, and the broker, which never had the
    message acknowledged, gave it again to the restarted board (its session is persistent), so the
    board stayed deaf. So did an action line of blanks (IndexError) and a match start whose house
    rules the engine refuses (Refused); a start whose time is not a number made every page 500, and
    each of these was stored, so the board raised again when it rebuilt from its file. Each is now
    refused with one log line, nothing stored, and the board goes on."""
    start = {"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers", "seats": ["Ann", "Bob"],
             "options": {}, "started": 1.0}
    bad = [b"[" * 2000 + b"]" * 2000,
           json.dumps(dict(start, id=["t1", 5, 0], options={"pair": "on"})).encode(),
           json.dumps(dict(start, id=["t1", 6, 0], game="twenty-nine", seats=["A", "B", "C", "D"],
                           options={"nonsense": 1})).encode(),
           json.dumps(dict(start, id=["t1", 7, 0], started="yesterday")).encode(),
           json.dumps(dict(start, id=["t1", 8, 0], seats=["Ann", "ann"])).encode(),  # one player twice
           json.dumps(dict(start, id=["t1", 9, 0], seats=["Ann Lee", "Bob"])).encode(),
           json.dumps({"v": 1, "id": ["t1", 1, 1], "kind": "action", "line": "   ", "hand": 0}).encode()]
    for payload in bad:
        send(broker, "t1", "club/c/t1/events", payload)
    t, events, _ = finished_match(broker.folder / "box")
    send_all(broker, "t1", events)
    assert wait_for(lambda: live_board.counts["stored"] == len(events)), live_board.counts
    assert live_board.counts["refused"] == len(bad)
    (m,) = club_json(live_board)["tables"][0]["matches"]  # the page's JSON draws
    assert m["score"] == t.match.state()["score"] and m["events"] == len(events) - 1
    again = Board(str(tmp_path / "board.sqlite3"), "c")  # and the board rebuilds from its file
    assert again.snapshot()["tables"] == live_board.snapshot()["tables"]
    again.close()


# the board's file before its events named the box's journal (store.py carries it over)
OLDER_BOARD = """
CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, match INTEGER NOT NULL, n INTEGER NOT NULL,
    body TEXT NOT NULL, t REAL, received REAL NOT NULL, PRIMARY KEY (tbl, match, n));
"""


def test_a_row_stored_by_an_older_board_that_cannot_be_used_is_skipped_at_start(tmp_path, caplog):
    """Fault: the board stored a bad message before it replayed it, so a board holding one (an
    older version stored them) raised at every start: a crash loop under systemd. Now a stored row
    that the checks refuse is skipped with one log line, and every other one is used."""
    import sqlite3
    db = sqlite3.connect(tmp_path / "b.sqlite3")
    db.executescript(OLDER_BOARD)
    start = {"kind": "start", "game": "towers", "seats": ["Ann", "Bob"], "options": {}}
    rows = [("t1", 1, 0, start), ("t1", 1, 1, {"kind": "action", "line": "  ", "hand": 0}),
            ("t1", 2, 0, dict(start, started="yesterday")), ("t2", 1, 0, start)]
    db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, NULL, ?)",  # received tonight: in memory
                   [(t, m, n, json.dumps(b), time.time()) for t, m, n, b in rows])
    db.commit()
    db.close()
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    assert sorted(board.matches) == [("t1", "", 1), ("t2", "", 1)]  # an older board's: no journal names
    assert len([r for r in caplog.records if "skipped" in r.getMessage()]) == 2
    club_json(board)
    board.close()


def test_a_simulated_box_joins_an_outside_club_from_its_config(broker, live_board, tmp_path):
    """Fault (a stranger's club night, docs/club.md): a box joins a club with a [club] section in
    its config, but `card-assistant sim` read no config, so simulated boxes could not join a club
    of one's own broker and board (only `sim --club`'s private one). `sim --config FILE` takes the
    file's [club] section; a file without a broker is one plain line."""
    cfg = tmp_path / "t1.toml"
    cfg.write_text(f'[club]\nbroker = "mqtt://127.0.0.1:{broker.port}"\nclub = "c"\ntable = "t1"\n'
                   f'password = "{broker.passwords["t1"]}"\n')
    run = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--game", "twenty-nine",
                          "--seed", "3", "--state-dir", str(tmp_path / "box"), "--config", str(cfg),
                          "--player", "Ann", "--player", "Bob", "--player", "Cleo", "--player", "Dev"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    import sqlite3
    db = sqlite3.connect(f"file:{tmp_path / 'box' / 'journal.sqlite3'}?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM outbox").fetchone() == (0,)  # all sent before it ended
    db.close()
    assert wait_for(lambda: any(m["phase"] == "over" for t in live_board.snapshot()["tables"]
                                for m in t["matches"]), timeout=30)
    (table,) = live_board.snapshot()["tables"]
    (m,) = table["matches"]
    assert table["table"] == "t1" and m["seats"] == ["Ann", "Bob", "Cleo", "Dev"] and m["winner"]
    (tmp_path / "none.toml").write_text("[game]\ngame = \"towers\"\n")
    for config, words in (("none.toml", "names no broker"), ("missing.toml", "no such config file")):
        res = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--config",
                              str(tmp_path / config)], capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and words in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_the_club_sims_refusal_names_both_games_it_plays(capsys):
    """Fault: `sim --club --game twenty-nine` was refused with "--club plays towers on every table",
    but a club in a box plays towers and Twenty-Nine at alternate tables (docs/club.md)."""
    from assistant.sim.simulator import parse_args
    with pytest.raises(SystemExit):
        parse_args(["--club", "--bots", "--game", "twenty-nine"])
    err = capsys.readouterr().err
    assert "towers and Twenty-Nine at alternate tables" in err and "every table" not in err
    with pytest.raises(SystemExit):
        parse_args(["--club", "--bots", "--config", "x.toml"])
    assert "give one of them" in capsys.readouterr().err


def test_the_boards_standings_say_how_long_a_match_lasted(broker, live_board, tmp_path):
    """Fault: the board's Players page had an empty "Minutes a match" column (and null in
    /api/club): its records had no end time. Each event says when the box kept it (its "t"); a
    finished match lasts from its start to its latest event, by the box's own clock, as on the
    box's page."""
    t, events, _ = finished_match(broker.folder / "box")
    timed = []
    for n, (topic, payload) in enumerate(events):
        body = json.loads(payload)
        body["t"] = 1000.0 + 10 * n  # the box's clock: ten seconds an action
        if n == 0:
            body["started"] = 1000.0
        timed.append((topic, json.dumps(body)))
    send_all(broker, "t1", timed)
    assert wait_for(lambda: live_board.counts["stored"] == len(events))
    players = club_json(live_board)["standings"]["towers"]["players"]
    minutes = round(10 * (len(events) - 1) / 60, 1)
    assert [f["average_minutes"] for f in players.values()] == [minutes, minutes]
    again = Board(str(tmp_path / "board.sqlite3"), "c")  # the same after a restart, from the file
    assert club_json(again)["standings"]["towers"]["players"] == players
    again.close()


def test_guests_at_different_tables_are_not_added_up_as_one_player(tmp_path):
    """Fault (a club organiser's reading of the board): a seat nobody tapped a player tag for keeps
    its name, P1 to P4, at every box, so the board's standings added every table's guest "P2" up
    as one player who played every match. Players known by their tags are counted; guests are
    left out of the standings, the partnerships and the chart, and the page says why."""
    import urllib.request
    from assistant.club.page import serve
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for name, game, seats in (("t1", "towers", ("Ann", "P2")), ("t2", "towers", ("Bob", "P2")),
                              ("t3", "twenty-nine", ("Cat", "Dan", "P3", "Eve"))):
        j, t, bot = bot_table(tmp_path, game, 2, name=name)
        play(t, bot, game, seats)
        for _, topic, payload in j.outbox_rows(0, 100_000):
            board.receive(topic, payload.encode())
    standings = club_json(board)["standings"]
    assert sorted(standings["towers"]["players"]) == ["Ann", "Bob"]
    assert sorted(standings["twenty-nine"]["players"]) == ["Cat", "Dan", "Eve"]
    assert sorted(standings["twenty-nine"]["partnerships"]) == ["Dan + Eve"]
    server = serve(board, "127.0.0.1", 0)
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/players", timeout=5).read().decode()
    finally:
        server.shutdown()
    assert "<td>P2</td>" not in page and "P3" not in page.split("left out here")[1] and "Guests" in page



def test_the_club_page_does_not_call_a_matchs_record_a_duplicate(tmp_path):
    """Fault (a club organiser reading the board after a calm evening): the page said "5,155 sent
    twice and dropped", as if something were wrong, when every one was a copy the box sends on
    purpose (the match's record at its end). It says they came again as they should, kept once."""
    from assistant.club.page import club_page, records
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 2)
    play(t, bot, "towers", ("Ann", "Bob"))
    for _, topic, payload in j.outbox_rows(0, 100_000):
        board.receive(topic, payload.encode())
    html = club_page(board, records(board))
    assert board.counts["duplicates"] == board.counts["stored"]  # the record: every event again
    assert "sent twice" not in html and f"{board.counts['stored']} events stored, each once" in html
    assert "as they should: in each match's record at its end" in html
    board.close()


def test_a_box_the_broker_refuses_says_so_once_and_backs_off(broker, tmp_path, caplog):
    """Fault (a box given a wrong password for the club): the publisher logged "the broker refused
    table t1" and tried again every 0.2 s, for ever: 196 lines in 40 s on the simulator's terminal
    (the box's log: 18,000 an hour), and the broker took five connections a second. A refusal now
    waits as long as a broker out of reach does (0.2 s, doubling to 5 s), and both are logged once
    when they start and once, with a count, when the box is connected again."""
    import logging
    from assistant.box.journal import Journal
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import RETRY, Publisher

    class Waits(threading.Event):
        def __init__(self):
            super().__init__()
            self.asked = []

        def wait(self, timeout=None):
            self.asked.append(timeout)
            return super().wait(timeout)

    caplog.set_level(logging.INFO, logger="assistant.club")
    j = Journal(str(tmp_path / "journal.sqlite3"))
    j.outbox = ClubOutbox("c", "t1", j)
    pub = Publisher(j, j.outbox, f"mqtt://127.0.0.1:{broker.port}", "t1", "not-the-password")
    pub.stopping = Waits()
    pub.start()
    try:
        assert wait_for(lambda: len(retries(pub)) >= 4)  # four refusals, each followed by a wait
        pub.password = broker.passwords["t1"]  # the right one, as after a fixed config
        assert wait_for(pub.connected.is_set)
    finally:
        pub.stop()
        j.close()
    said = [r.getMessage() for r in caplog.records if r.name == "assistant.club"]
    assert len([w for w in said if "refused table t1" in w]) == 1, said
    assert len([w for w in said if "connected to the broker" in w and "times in" in w]) == 1, said
    assert retries(pub)[:4] == [RETRY[0], 2 * RETRY[0], 4 * RETRY[0], 8 * RETRY[0]], pub.stopping.asked


def retries(pub):
    """The waits the publisher's thread asked for between connection attempts."""
    return [d for d in list(pub.stopping.asked) if d is not None and d >= 0.2]


def test_a_storm_of_refused_messages_is_two_log_lines_not_one_a_message(tmp_path, caplog):
    """Fault: 20,000 garbage messages on a table's topic (mosquitto_pub -l) wrote 20,000 log lines,
    enough for journald's rate limit to drop the board's real lines. As the reader does for its
    refused lines: a kind of refusal at a table is logged when it starts and, with its count, once
    it has stopped for 30 s; each is still counted on the page; other kinds are logged as usual."""
    import logging
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for _ in range(2000):
        board.receive("club/c/t1/events", b"garbage")
    board.receive("club/c/t1/events", b"[1]")  # another kind
    board.receive("club/c/t2/events", b"garbage")  # another table
    said = [r.getMessage() for r in caplog.records]
    assert board.counts["refused"] == 2002
    assert len([w for w in said if "refused a message on club/c/t1/events: not JSON" in w]) == 1
    assert len([w for w in said if "refused a message" in w]) == 3, said
    board.quiet(0)  # as 30 s after the storm: its end, with its count
    ended = [r.getMessage() for r in caplog.records if "no more messages refused" in r.getMessage()]
    assert any("table t1" in w and "after 2000 times" in w for w in ended), ended
    board.close()


def test_a_table_whose_box_is_gone_is_shown_so_not_as_a_match_being_played(broker, live_board, tmp_path):
    """Fault (a club night: a box killed mid-match with SIGKILL): the board went on showing its
    match "in play", as live as the tables still playing, with nothing to tell the organiser that
    the box was gone. Now each box sets the broker's will and says it is there when it connects;
    a box that goes without a goodbye (killed, switched off, out of the Wi-Fi: the broker sends
    the will) or stopped in order (it says so) is "Box not connected" on the page, with when the
    board last heard from it; connected again, it is "Box connected"."""
    import signal
    import time
    server, get = served_board(live_board)
    page = lambda: get("/")  # noqa: E731
    cfg = tmp_path / "t1.toml"
    cfg.write_text(f'[club]\nbroker = "mqtt://127.0.0.1:{broker.port}"\nclub = "c"\ntable = "t1"\n'
                   f'password = "{broker.passwords["t1"]}"\n')
    box = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--game", "towers",
                            "--matches", "3", "--pace", "0.05", "--state-dir", str(tmp_path / "box"),
                            "--config", str(cfg), "--player", "Ann", "--player", "Bob"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: live_board.online.get("t1") is True and live_board.counts["stored"] > 20, 60)
        assert "Box connected · Last heard from " in page() and "Box not connected" not in page()
        box.send_signal(signal.SIGKILL)  # mid-match, no goodbye: the broker sends the will
        box.wait(10)
        assert wait_for(lambda: live_board.online.get("t1") is False, 30)
        snap = live_board.snapshot()
        assert snap["boxes"]["t1"]["online"] is False and snap["boxes"]["t1"]["heard"] <= time.time()
        assert snap["tables"][0]["matches"][-1]["phase"] != "over"
        assert "Box not connected" in page() and "its match in play waits for it" in page()
    finally:
        if box.poll() is None:
            box.kill()
    j, t, bot = bot_table(tmp_path, "towers", 4)  # the box again, at the table layer, then stopped in order
    from assistant.club.publisher import Publisher
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    try:
        assert wait_for(lambda: live_board.online.get("t1") is True, 30)
        assert "Box connected" in page()
        pub.offline.set()  # the Wi-Fi gone: no goodbye, the broker's will
        pub.drop()
        assert wait_for(lambda: live_board.online.get("t1") is False, 30)
        pub.offline.clear()
        assert wait_for(lambda: live_board.online.get("t1") is True, 30)
    finally:
        pub.stop()
    assert wait_for(lambda: live_board.online.get("t1") is False, 10)  # it said goodbye
    server.shutdown()


def test_a_table_whose_messages_are_refused_says_so_on_the_page_not_only_in_the_log(tmp_path):
    """Fault (a club night: a box's state folder started anew under a table name the board already
    held, as after a new SD card): every event it sent was refused as differing from the one
    stored, and the page only went on saying when it last heard from that table; the reason was
    in the board's log alone. Now the table's part of the page says how many of its messages were
    refused and where to look; a table with none refused says nothing of the kind. (Boxes that name
    their journal are two runs of the table, none refused: test_a_reset_box_is_a_new_run_of_its_table;
    an older box, which names none, is still refused so.)"""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for folder, seed in (("first", 11), ("again", 12)):  # the same table t1, two journals of older boxes
        j, t, bot = bot_table(tmp_path / folder, "towers", seed)
        play(t, bot, "towers", ("Ann", "Bob"))
        for _, topic, payload in j.outbox_rows(0, 100_000):
            board.receive(topic, unnamed(payload))
        j.close()
    j, t, bot = bot_table(tmp_path / "other", "towers", 13, name="t2")
    play(t, bot, "towers", ("Cat", "Dan"))
    deliver(board, j)
    home = page_of(board, "/")
    t1, t2 = home.split("<h2>Table t1</h2>")[1].split("<h2>Table t2</h2>")
    n = board.counts["refused"]  # all of them t1's
    assert n > 0 and f"{n} messages from this table refused: the board's log says why" in t1, t1
    assert "refused" not in t2
    assert [b["refused"] for b in board.snapshot()["boxes"].values()] == [n, 0]
    board.close()


def unnamed(payload):
    """A message as an older box sends it: without its journal's name."""
    body = json.loads(payload)
    body.pop("journal", None)
    return json.dumps(body).encode()


def played_at(rows, start, end):
    """A box's messages as if its match had been played from ``start`` to ``end`` by its clock."""
    out = []
    events = [(topic, json.loads(payload)) for topic, payload in rows if topic.endswith("/events")]
    for k, (topic, body) in enumerate(events):
        body["t"] = start + (end - start) * k / max(len(events) - 1, 1)
        if k == 0:
            body["started"] = start
        out.append((topic, json.dumps(body).encode()))
    return out


def test_a_player_seated_at_two_tables_at_once_is_pointed_out_not_silently_added_up(tmp_path):
    """Fault (a club night: two people called Eve, one at t2 and one at t4, playing at the same
    time): the board's standings added them up as one player with twice the matches, and nothing
    said so. Now the Players page names a player seated at two tables at the same time (by the
    boxes' own clocks: when each match began and its latest event was kept), with the tables and
    matches; the same name at two tables one after the other is a player who moved, said nothing of."""
    import time
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    now = time.time()
    for name, seats, seed, start, end in (("t1", ("Eve", "Bob"), 2, now - 3000, now - 1200),
                                          ("t2", ("Eve", "Dan"), 3, now - 2400, now - 600),  # with t1
                                          ("t3", ("Bob", "Cat"), 4, now - 1100, now - 100)):  # Bob moved
        j, t, bot = bot_table(tmp_path, "towers", seed, name=name)
        play(t, bot, "towers", seats)
        board.receive(f"club/c/{name}/status", json.dumps({"v": 1, "table": name, "online": True,
                                                            "journal": j.name(), "t": time.time()}).encode())
        for topic, payload in played_at([(topic, p) for _, topic, p in j.outbox_rows(0, 100_000)], start, end):
            board.receive(topic, payload)
    players = page_of(board, "/players")
    assert "Seated at two tables at the same time" in players
    assert "<li>Eve: table t1 match 1 and table t2 match 1, both in play at " in players, players
    assert "Bob:" not in players  # t1, then t3: he moved
    from assistant.club.page import records, two_tables_at_once
    assert [c[:3] for c in two_tables_at_once(board, records(board))] == [("Eve", ("t1", 1), ("t2", 1))]
    board.close()


def test_the_boards_tables_are_in_their_numbers_order_t2_before_t10(tmp_path):
    """Fault (a club of 12 tables, named t1 to t12 as `install.sh --board --tables 12` names them):
    the board's page listed t1, t10, t11, t12, t2, ...: sorted as text. Now by their numbers."""
    import re
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for k, name in enumerate(("t10", "t2", "t1", "t11")):
        j, t, bot = bot_table(tmp_path, "towers", k, name=name)
        t.new_match("towers", {}, seats=(f"A{k}", f"B{k}"))
        deliver(board, j)
        j.close()
    assert re.findall(r"<h2>Table (\w+)</h2>", page_of(board, "/")) == ["t1", "t2", "t10", "t11"]
    board.close()


def test_a_box_whose_clock_is_days_behind_keeps_its_match_in_play_on_top_and_links_stay_put(tmp_path, monkeypatch):
    """Fault (a club night, one box's clock three days behind: a Pi has no clock of its own and
    the club's Wi-Fi no internet): the board ordered every match by its box's clock, so that
    table's match in play sank below its finished ones, and the match pages' numbers (/matches/K,
    counted across tables in that order) all moved when it arrived: a link to a match shared a
    minute before showed another match. Now each table lists its matches in its box's own order,
    the latest first, and a match's page is /matches/TABLE/M, the table and the box's number."""
    import re
    import time as clock
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j1, t1, bot1 = bot_table(tmp_path, "towers", 2, name="t1")
    play(t1, bot1, "towers", ("Ann", "Bob"))
    j2, t2, bot2 = bot_table(tmp_path, "towers", 3, name="t2")
    play(t2, bot2, "towers", ("Cat", "Dan"))
    deliver(board, j1)
    deliver(board, j2)
    home = page_of(board, "/")
    link = re.search(r'<h2>Table t2</h2>.*?<a href="([^"]+)">1</a>', home).group(1)
    assert link == "/matches/t2/1"
    before = page_of(board, link)
    real = clock.time
    monkeypatch.setattr(clock, "time", lambda: real() - 3 * 86400)  # t1's box: three days behind
    t1.new_match("towers", {}, seats=("Ann", "Bob"))
    t1.apply(bot1.next_action(t1.match.engine))
    monkeypatch.undo()
    deliver(board, j1)
    home = page_of(board, "/")
    t1_part = home.split("<h2>Table t1</h2>")[1].split("<h2>Table t2</h2>")[0]
    assert re.findall(r'<a href="/matches/t1/(\d+)">', t1_part) == ["2", "1"]  # the match in play on top
    assert "in play" in t1_part.split("</tr>")[1]
    assert page_of(board, link) == before  # the same match, on the same address
    assert "<h1>Table t2, match 1: Towers</h1>" in before
    assert "<h1>Table t1, match 2: Towers</h1>" in page_of(board, "/matches/t1/2")
    import urllib.error
    with pytest.raises(urllib.error.HTTPError):
        page_of(board, "/matches/t3/1")
    board.close()


def test_a_board_started_after_the_boxes_shows_the_tables_playing_not_nothing(broker, tmp_path):
    """Fault (a club night whose board was started after the boxes, mid-match): its page said "No
    table has sent anything yet" while every box was connected and playing and its events were
    stored: the match in play began before the board's first subscription, so its start never
    came and the page showed no table until the match's record at its end. Now the page lists
    every table the board has heard of (its box's status, its table now), says whether its box
    is connected, and that its match in play shows whole once its record comes."""
    from assistant.club.board_run import run_board
    from assistant.club.page import club_page, records
    from assistant.club.publisher import Publisher
    j, t, bot = bot_table(tmp_path, "towers", 5)
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    assert wait_for(pub.connected.is_set)  # connected before the match: no record of it sent yet
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    for _ in range(5):
        assert t.apply(bot.next_action(t.match.engine))
    assert wait_for(lambda: pub.idle() and not j.outbox_rows(0, 1))
    board = Board(str(tmp_path / "board.sqlite3"), "c")  # the board, for the first time, now
    stop = threading.Event()
    th = threading.Thread(target=run_board, args=(board, broker.url("board"), 0), kwargs={"stop": stop},
                          daemon=True)
    th.start()
    try:
        assert wait_for(lambda: board.subscribed and board.online.get("t1") is True)
        for _ in range(5):
            assert t.apply(bot.next_action(t.match.engine))
        assert wait_for(lambda: board.counts["stored"] >= 5)
        page = club_page(board, records(board))
        assert "No table has sent anything yet" not in page
        assert "<h2>Table t1</h2>" in page and "Box connected" in page
        assert "Match 1 is in play" in page and "once its record comes" in page
        assert club_json(board)["boxes"]["t1"]["online"] is True  # /api/club says it too
    finally:
        pub.stop()
        stop.set()
        th.join(5)
        board.close()


def test_a_table_renamed_keeps_its_finished_matches_under_the_old_name_not_counted_twice(broker, live_board, tmp_path):
    """Fault (a club night: the organiser renamed table t1 to t2 in its box's [club] section and
    restarted it): the box sends its two latest matches' records again at every connect, under
    its table's name of now, so the board showed the matches finished as t1 at t2 too and its
    standings counted them twice. Now a box keeps the first match it played under its name (in
    its journal, kept across restarts): the matches finished before the rename stay t1's; the
    match in play then, and those after, are t2's."""
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import Publisher
    j, t, bot = bot_table(tmp_path, "towers", 6)  # table t1
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    play(t, bot, "towers", ("Ann", "Bob"))
    assert wait_for(lambda: pub.idle() and not j.outbox_rows(0, 1))
    pub.stop()
    j.outbox = ClubOutbox("c", "t2", j)  # the same box restarted as t2
    pub = Publisher(j, j.outbox, broker.url("t2"))
    pub.start()
    try:
        play(t, bot, "towers", ("Ann", "Bob"))
        assert wait_for(lambda: pub.idle() and not j.outbox_rows(0, 1))
        assert wait_for(lambda: [m["phase"] for tb in live_board.snapshot()["tables"] for m in tb["matches"]]
                        == ["over", "over"])
        tables = {tb["table"]: [m["match"] for m in tb["matches"]] for tb in live_board.snapshot()["tables"]}
        assert tables == {"t1": [1], "t2": [2]}
        assert club_json(live_board)["standings"]["towers"]["players"]["Ann"]["played"] == 2
        pub.stop()
        j.outbox = ClubOutbox("c", "t2", j)  # restarted again as t2: still from match 2 on
        assert j.outbox.recent_matches() == [2]
    finally:
        pub.stop()


def test_a_club_renamed_for_a_new_season_gets_nothing_played_before(tmp_path):
    """Fault (a new season on the same boxes: docs/club.md said deleting the board's file starts
    afresh): every box sends its two latest matches' records at each connect, so last season's
    matches came back to the new season's board. Now a box renamed into another club (or table)
    sends only what it plays under its new names: a new club name starts a season empty."""
    from assistant.club.public import ClubOutbox
    j, t, bot = bot_table(tmp_path, "towers", 7, club="spring")
    play(t, bot, "towers", ("Ann", "Bob"))
    play(t, bot, "towers", ("Ann", "Bob"))
    assert j.outbox.recent_matches() == [1, 2]
    j.outbox = ClubOutbox("autumn", "t1", j)  # the box restarted with the new season's club name
    assert j.outbox.recent_matches() == []
    board = Board(str(tmp_path / "b.sqlite3"), "autumn")
    play(t, bot, "towers", ("Ann", "Bob"))
    j.outbox = ClubOutbox("autumn", "t1", j)  # and restarted again
    assert j.outbox.recent_matches() == [3]
    deliver(board, j)
    assert [m["match"] for tb in board.snapshot()["tables"] for m in tb["matches"]] == [3]
    board.close()


def test_two_boxes_set_up_with_one_tables_name_are_named_as_a_cause_on_the_page(tmp_path):
    """Fault (a club night: a box's config copied to the next box, its table name left as it was):
    the board refused hundreds of the second box's messages and its page gave as the only cause
    a box whose journal began anew; the organiser looked for a reset box. Now the page names two
    boxes with one table's name first. (Boxes that name their journal are two runs of the table,
    nothing refused: the page names two boxes set up with one name when the second's journal sent
    while the first's still did.)"""
    boxes = []
    for folder, seats, seed in (("a", ("Gus", "Hal"), 51), ("b", ("Ivy", "Jo"), 52)):  # both say t1
        j, t, bot = bot_table(tmp_path / folder, "towers", seed)
        t.new_match("towers", {}, seats=seats)
        for _ in range(10):
            assert t.apply(bot.next_action(t.match.engine))
        boxes.append([(topic, payload.encode()) for _, topic, payload in j.outbox_rows(0, 100_000)])
        j.close()
    board = Board(str(tmp_path / "older.sqlite3"), "c")  # older boxes, which name no journal: refused
    for rows in boxes:
        for topic, payload in rows:
            board.receive(topic, unnamed(payload))
    home = page_of(board, "/")
    assert board.counts["refused"] > 0
    assert "the board's log says why (two boxes set up with this table's name, or an older box" in home
    board.close()
    board = Board(str(tmp_path / "b.sqlite3"), "c")  # boxes that name their journal: two runs, both kept
    for a, b in zip(*boxes):  # sending at the same time
        board.receive(*a)
        board.receive(*b)
    home = page_of(board, "/")
    assert board.counts["refused"] == 0 and len(board.matches) == 2
    assert "The box's journal 2 (sent while the one before it still did: two boxes set up with this table's name?)" in home
    board.close()


def test_the_docs_club_of_your_own_makes_the_box_folder_before_its_page_starts(tmp_path):
    """Fault (docs/club.md's "Simulated boxes in a club of your own", pasted as it stands): the
    box's page was started in the same breath as the box, before the box had made its state
    folder, and stopped at once with "box-t1 does not exist". The block now makes the folder
    first; the page then serves an empty folder and shows the box's matches as they come."""
    import re
    import urllib.request
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[1] / "docs" / "club.md").read_text(encoding="utf-8")
    block = doc.split("### Simulated boxes in a club of your own")[1].split("```sh")[1].split("```")[0]
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    made = next(k for k, line in enumerate(lines) if line.startswith("mkdir -m 700 box-t1"))
    box = next(k for k, line in enumerate(lines) if line.startswith("card-assistant sim") and "box-t1" in line)
    page = next(k for k, line in enumerate(lines) if line.startswith("card-assistant web --state-dir box-t1"))
    assert made < box and made < page
    folder = tmp_path / "box-t1"
    folder.mkdir(mode=0o700)
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "web", "--state-dir", str(folder), "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        base = re.search(r"(http://[\d.]+:\d+)/", proc.stderr.readline()).group(1)
        assert json.loads(urllib.request.urlopen(base + "/api/matches", timeout=5).read()) == []
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_box_gone_in_the_power_cut_that_took_the_broker_is_not_shown_connected(tmp_path, monkeypatch):
    """Fault (a club night, the room's power cut: the broker's Pi and a box went down together;
    the Pi came back, the box was left off): the broker kept the box's retained "online" and had
    no will to send (its connection died with the broker), so the board said "Box connected" for
    a box switched off, for the rest of the night, even after a restart of the board. Now a
    connected box says so again every ALIVE seconds, and the board takes a box that has not for
    three times as long as gone: "Box not connected", in the page and /api/club."""
    import assistant.club.tables_page as page
    import assistant.club.publisher as publisher
    from assistant.club.board_run import run_board
    from assistant.club.broker import Broker
    from assistant.club.publisher import Publisher
    monkeypatch.setattr(publisher, "ALIVE", 0.2)
    monkeypatch.setattr(page, "SILENT", 1.5)
    mosquitto = __import__("test_club").mosquitto_or_skip
    mosquitto()
    b = Broker(tmp_path / "broker", "c", ["t1"]).start()  # persistent, as Debian's Mosquitto
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    stop = threading.Event()
    th = threading.Thread(target=run_board, args=(board, b.url("board"), 0), kwargs={"stop": stop}, daemon=True)
    th.start()
    j, t, bot = bot_table(tmp_path, "towers", 3)
    pub = Publisher(j, j.outbox, b.url("t1"))
    pub.start()
    connected = lambda: "Box connected" in page_of(board, "/")  # noqa: E731
    try:
        t.new_match("towers", {}, seats=("Ann", "Bob"))
        assert wait_for(lambda: board.online.get("t1") is True and board.counts["stored"] >= 1)
        said = board.said["t1"]
        assert wait_for(lambda: board.said["t1"] > said + 1.6)  # a quiet table's box says it is there
        assert connected()
        b.kill()  # the power cut: the broker, and the box with it (no goodbye, no will)
        pub.offline.set()
        pub.drop()
        b.start()
        assert wait_for(lambda: board.connected and board.subscribed, 20)
        assert board.online["t1"] is True  # the retained "online" of before the cut
        assert wait_for(lambda: "Box not connected" in page_of(board, "/"))
        assert club_json(board)["boxes"]["t1"]["online"] is False
        pub.offline.clear()  # the box switched on again
        assert wait_for(connected, 20)
    finally:
        pub.stop()
        stop.set()
        th.join(5)
        board.close()
        b.stop()


def test_an_older_box_quiet_between_matches_is_not_shown_gone(broker, live_board, monkeypatch):
    """Fault (a club whose boxes are upgraded one at a time): a box of a version before the
    30-second "online" says "online" only as it connects, so between two matches the board
    heard nothing from it for SILENT seconds and showed "Box not connected" for a box that was
    there, playing the next match minutes later. A box now says its beat in its status
    (``alive``); a status that says none is an older box's, taken at the broker's last word
    (its will says when it goes), and the page says plainly that is all the board knows."""
    import assistant.club.tables_page as page
    monkeypatch.setattr(page, "SILENT", 0.5)
    older = {"v": 1, "table": "t1", "online": True}  # as a box before the beat said it: no t, no alive
    start = {"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers", "seats": ["Ann", "Bob"],
             "options": {}, "started": time.time()}
    send_all(broker, "t1", [("club/c/t1/status", json.dumps(older)), ("club/c/t1/events", json.dumps(start))])
    assert wait_for(lambda: live_board.online.get("t1") is True and live_board.counts["stored"] == 1)
    time.sleep(1.0)  # twice SILENT without a word from it
    home = page_of(live_board, "/")
    assert "Box not connected" not in home
    assert "Box connected, by the broker&#x27;s last word" in home or "Box connected, by the broker's last word" in home
    box = club_json(live_board)["boxes"]["t1"]
    assert box["online"] is True and box["older"] is True
    # a box of now says its beat: its silence for three beats (and SILENT) is a box gone
    send_all(broker, "t1", [("club/c/t1/status", json.dumps(dict(older, t=time.time(), alive=0.1)))])
    assert wait_for(lambda: live_board.beat.get("t1") == 0.1)
    assert wait_for(lambda: "Box not connected" in page_of(live_board, "/"), 5)
    assert club_json(live_board)["boxes"]["t1"]["older"] is False


def test_a_renamed_tables_refused_rows_name_their_own_table_and_are_not_sent_at_every_reconnect(broker, tmp_path,
                                                                                               caplog):
    """Fault (a table renamed t1 -> t2 while rows waited in its box): the broker refused the rows
    kept under club/c/t1/ (MQTT 5 "Not authorized": t2's account writes only t2's topics), the log
    said "the broker refuses table t2's messages" (the new name, whose messages went through) and
    every reconnect sent them all again, refused again, for ever. The publisher now keeps each row's
    topic in flight: the log names t1, what happened and what to do, once; a row of the old name is
    set aside at its first refusal (kept in the journal, sent again at the box's next start); the
    table's own messages go on."""
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import Publisher
    j, t, bot = bot_table(tmp_path, "towers", 4)  # t1, never connected: its rows wait under t1
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    for _ in range(5):
        assert t.apply(bot.next_action(t.match.engine))
    old = len(j.outbox_rows(0, 1000))
    j.outbox = ClubOutbox("c", "t2", j)  # renamed in [club], restarted
    pub = Publisher(j, j.outbox, broker.url("t2"))
    pub.start()
    try:
        assert wait_for(lambda: pub.refused == old)
        for _ in range(2):  # Wi-Fi drops: each reconnect sent every refused row again
            connections = pub.connections
            pub.drop()
            assert wait_for(lambda: pub.connections > connections)
        assert t.apply(bot.next_action(t.match.engine))  # t2's own messages go through
        assert wait_for(lambda: len(j.outbox_rows(0, 1000)) == old)
        time.sleep(0.3)
        assert pub.refused == old
    finally:
        pub.stop()
        j.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "assistant.club" and "refuses" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "kept as table t1 of club c, before it was renamed t2" in lines[0]
    assert "table t2's messages" not in lines[0]


def test_the_boards_page_answers_head_and_refuses_writes_as_the_boxs_page_does(tmp_path):
    """Fault (attacker, HTTP): the board's page answered HEAD with 501 "Unsupported method", and
    POST, PUT and DELETE too, where the box's page answers HEAD with the headers alone and refuses
    a write with 405, read-only."""
    import http.client
    from assistant.club.page import serve
    server = serve(Board(str(tmp_path / "b.sqlite3"), "c"), "127.0.0.1", 0)
    try:
        answers = {}
        for method in ("GET", "HEAD", "POST", "PUT", "DELETE"):
            conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
            conn.request(method, "/")
            r = conn.getresponse()
            answers[method] = (r.status, r.getheader("Content-Length"), r.read())
            conn.close()
    finally:
        server.shutdown()
    get, head = answers["GET"], answers["HEAD"]
    assert head[0] == get[0] == 200 and head[1] == get[1] == str(len(get[2])) and head[2] == b""
    assert [answers[m][0] for m in ("POST", "PUT", "DELETE")] == [405, 405, 405]
