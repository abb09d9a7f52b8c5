"""Faults seen running a whole club night as its organiser would (docs/club.md: a real Mosquitto,
the board, simulated boxes killed and restarted, one box's clock wrong, one renamed), each named.
The board is fed the boxes' own outbox rows (no broker needed for what the page makes of them)."""
import json
import time

from assistant.club.board import Board
from assistant.club.page import club_json
from tests.test_club import bot_table, deliver, page_of, play

DAYS_BEHIND = 3 * 86400


def skewed(journal, behind):
    """A box's messages as that box sends them when its clock is ``behind`` seconds slow (a Pi
    that kept the time it was switched off): every time it writes (``t``, ``started``) is early."""
    out = []
    for _, topic, payload in journal.outbox_rows(0, 100_000):
        body = json.loads(payload)
        for key in ("t", "started"):
            if isinstance(body.get(key), (int, float)):
                body[key] -= behind
        for e in body.get("events", ()):
            if isinstance(e.get("started"), (int, float)):
                e["started"] -= behind
        out.append((topic, json.dumps(body).encode()))
    return out


def test_a_box_whose_clock_is_days_out_shows_its_matches_on_the_boards_clock(tmp_path):
    """Fault (club night, a box whose clock was 3 days slow): the board read that box's times on
    its own clock to find a player at two tables at once, but its Tables page said the match
    tonight "Started 2026-11-28" (the box's clock), and it numbered and charted the club's matches
    in that order (the slow box's first). Now every time the board shows is on its own clock."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 4, name="t2")
    play(t, bot, "towers", ("Eve", "Finn"))
    for topic, payload in skewed(j, DAYS_BEHIND):
        board.receive(topic, payload)
    home = page_of(board, "/")
    today, slow = (time.strftime("%m-%d", time.localtime(x)) for x in (time.time(), time.time() - DAYS_BEHIND))
    assert f"</span>{today}</span>" in home and f"</span>{slow}</span>" not in home, home
    match = page_of(board, "/matches/t2/1")
    assert time.strftime("%Y-%m-%d", time.localtime()) in match, match
    board.close()


def test_api_club_says_of_each_match_whether_it_was_abandoned_and_when_it_started(tmp_path):
    """Fault (club night, a box killed mid-match and started again with --bots): the Tables page
    said "abandoned" and when each match started, but /api/club, "the same as JSON", had only the
    engine's phase ("play" for the abandoned match as for the one in play) and no time: a program
    could not tell them apart. Now each match has ``state`` and ``started`` as the page has them."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 4)
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    for _ in range(30):  # the box was killed here; started again, it began a new match
        assert t.apply(bot.next_action(t.match.engine))
    play(t, bot, "towers", ("Ann", "Bob"))
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    deliver(board, j)
    matches = club_json(board)["tables"][0]["matches"]
    assert [m.get("state") for m in matches] == ["abandoned", "finished", "in play"], matches
    assert all(abs(m["started"] - time.time()) < 600 for m in matches), matches
    board.close()


def test_a_connected_box_with_no_match_yet_is_not_said_to_be_unheard(tmp_path):
    """Fault (club night, a box switched on and waiting at its menu): the Tables page said "Box
    connected · Nothing heard yet" of a table whose box had just said it was connected. Now it
    says that no match has come from it yet."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    board.receive("club/c/t4/status", json.dumps({"v": 1, "table": "t4", "journal": "1ebe5561598678ad",
                                                   "online": True, "t": time.time()}).encode())
    home = page_of(board, "/")
    assert "Table t4" in home and "Nothing heard yet" not in home, home
    assert "Box connected · No match from it yet" in home, home
    board.close()


def renamed_mid_match(tmp_path, board, after=1):
    """Table t4's box plays match 1, is restarted as blue during match 2 (as it connects it sends
    its latest matches' records, the one in play whole), ends match 2 and plays ``after`` more as blue."""
    from assistant.club.public import ClubOutbox
    j, t, bot = bot_table(tmp_path, "towers", 6, name="t4")
    play(t, bot, "towers", ("Gus", "Hal"))
    t.new_match("towers", {}, seats=("Gus", "Hal"))
    for _ in range(40):
        assert t.apply(bot.next_action(t.match.engine))
    deliver(board, j)
    j.outbox = ClubOutbox("c", "blue", j)
    for mid in j.outbox.recent_matches():
        board.receive(f"club/c/blue/record/{mid}", j.outbox.record(mid).encode())
    while t.match.engine.phase != "over":
        assert t.apply(bot.next_action(t.match.engine))
    for _ in range(after):
        play(t, bot, "towers", ("Gus", "Hal"))
    deliver(board, j)
    return j


def test_a_table_renamed_mid_match_shows_that_match_once_under_its_new_name(tmp_path):
    """Fault (club night: table t4's box restarted as "blue" mid-match; docs/club.md: "the match in
    play, and every one after, are blue's"): the board showed that match twice, whole and over at
    blue and "in play" at t4 for ever, under "Box not connected: its match in play waits for it".
    Now the old table's copy of a match its box went on with under another name is left out, and
    the old table says where its box went."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j = renamed_mid_match(tmp_path, board, after=0)
    board.receive("club/c/t4/status", json.dumps({"v": 1, "table": "t4", "journal": j.name(), "online": False,
                                                   "t": time.time()}).encode())
    tables = {tb["table"]: [(m["match"], m["state"]) for m in tb["matches"]] for tb in club_json(board)["tables"]}
    assert tables == {"t4": [(1, "finished")], "blue": [(2, "finished")]}, tables
    home = page_of(board, "/")
    assert "waits for it" not in home and "now plays as table blue" in home, home
    assert club_json(board)["standings"]["towers"]["players"]["Gus"]["played"] == 2
    board.close()


def test_the_docs_club_of_your_own_runs_as_typed_and_its_broker_keeps_what_it_holds(tmp_path):
    """Faults (docs/club.md's "Simulated boxes in a club of your own", followed literally from a
    fresh clone): its commands type card-assistant, which is only in the checkout's .venv/bin
    ("command not found"); and its mosquitto.conf had no persistence, so a broker restarted
    mid-night forgot the board's queued messages and every box's retained status (a box switched
    off was no longer said to be). The block now activates the venv first, and its broker
    persists, as Debian's Mosquitto and the tests' broker do."""
    import subprocess
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[1] / "docs" / "club.md").read_text(encoding="utf-8")
    block = doc.split("### Simulated boxes in a club of your own")[1].split("```sh")[1].split("```")[0]
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    first = next(k for k, line in enumerate(lines) if line.startswith("card-assistant"))
    assert any(line.startswith(". .venv/bin/activate") for line in lines[:first]), block
    conf = next(line for line in lines if line.startswith("printf 'listener"))
    subprocess.run(["bash", "-c", conf], cwd=tmp_path, check=True)
    written = (tmp_path / "mosquitto.conf").read_text().splitlines()
    assert "persistence true" in written and f"persistence_location {tmp_path}/" in written, written


def test_the_board_players_page_of_a_night_of_guests_says_so_not_an_empty_table(tmp_path):
    """Fault (a club's first night, no player tag enrolled yet, every seat a guest): the board's
    Players page showed "Towers: standings" over a table with one column, "Player", and no row
    (guests are left out). Now a game with no player known by a tag has no section, and a board
    with none says how players get known."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 3)
    play(t, bot, "towers", ("P1", "P2"))
    deliver(board, j)
    players = page_of(board, "/players")
    assert "Towers: standings" not in players and "No match yet of players known by their tags" in players, players
    j2, t2, bot2 = bot_table(tmp_path, "twenty-nine", 3, name="t2")
    play(t2, bot2, "twenty-nine", ("Ann", "Bob", "Cat", "Dan"))
    deliver(board, j2)
    players = page_of(board, "/players")
    assert "Twenty-Nine: standings" in players and "Towers: standings" not in players, players
    assert "No match yet" not in players
    board.close()


def a_night_later(path):
    """The board's file as a board stopped for a night finds it: everything received 13 hours ago."""
    import sqlite3
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE events SET received = received - 13 * 3600")
        db.execute("UPDATE matches SET first = first - 13 * 3600, last = last - 13 * 3600")
    db.close()


def test_a_table_renamed_mid_match_stays_shown_once_after_a_restart_a_night_later(tmp_path):
    """Fault (a board restarted the next evening, more than 12 hours after table t4's box was
    renamed blue mid-match): the start put blue's copy of that match away with the older night
    and kept t4's (its table's latest), so the pair was no longer seen and t4 showed its copy "in
    play" again, for good. Now the old name's copy stays left out (the file knows both copies),
    on the page, in /api/club and in the standings."""
    path = str(tmp_path / "b.sqlite3")
    board = Board(path, "c")
    renamed_mid_match(tmp_path, board)
    before = club_json(board)["standings"]
    board.close()
    a_night_later(path)
    board = Board(path, "c")
    try:
        tables = {tb["table"]: [(m["match"], m["state"]) for m in tb["matches"]] for tb in club_json(board)["tables"]}
        assert tables.get("t4", []) in ([], [(1, "finished")]) and (2, "in play") not in tables.get("t4", []), tables
        home = page_of(board, "/")
        assert "in play" not in home, home
        assert club_json(board)["standings"] == before
        assert club_json(board)["standings"]["towers"]["players"]["Gus"] == before["towers"]["players"]["Gus"]
    finally:
        board.close()


def test_a_renamed_tables_copy_put_away_by_an_older_board_is_healed_at_the_next_start(tmp_path, monkeypatch):
    """Fault (the same, on a file the board before this fix wrote): blue's copy of the match is
    already put away and t4's shown "in play". The next start takes blue's copy back into memory,
    so the pair is seen again and t4's copy is left out."""
    path = str(tmp_path / "b.sqlite3")
    board = Board(path, "c")
    renamed_mid_match(tmp_path, board)
    board.close()
    a_night_later(path)
    with monkeypatch.context() as m:
        m.setattr(Board, "_copies", lambda self, key: [])  # the board before: no copy known
        board = Board(path, "c")
        assert "in play" in page_of(board, "/")
        board.close()
    board = Board(path, "c")
    try:
        assert "in play" not in page_of(board, "/")
        assert [m["match"] for tb in club_json(board)["tables"] if tb["table"] == "t4" for m in tb["matches"]] == []
    finally:
        board.close()


def status(board, table, journal, online):
    board.receive(f"club/c/{table}/status", json.dumps({"v": 1, "table": table, "journal": journal,
                                                        "online": online, "t": time.time(), "alive": 30}).encode())


def test_a_table_renamed_between_matches_says_where_its_box_went_not_box_not_connected(tmp_path):
    """Fault (club night: the organiser renamed t4's box "blue" after its match ended, as
    docs/club.md says to): the Tables page said of t4 "Box not connected (switched off, stopped or
    out of the Wi-Fi)" all night, beside blue playing, so the organiser went looking for a box
    that was there. Now t4 says its box plays as table blue, from blue's first status on (before
    blue's first match too), and /api/club says so; a box that really went stays not connected."""
    from assistant.club.public import ClubOutbox
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 6, name="t4")
    status(board, "t4", j.name(), True)
    play(t, bot, "towers", ("Gus", "Hal"))
    deliver(board, j)
    j2, t2, bot2 = bot_table(tmp_path, "towers", 7, name="t5")  # another table, whose box is switched off
    status(board, "t5", j2.name(), True)
    play(t2, bot2, "towers", ("Ivy", "Jo"))
    deliver(board, j2)
    status(board, "t5", j2.name(), False)
    status(board, "t4", j.name(), False)  # stopped in order, restarted as blue
    j.outbox = ClubOutbox("c", "blue", j)
    status(board, "blue", j.name(), True)
    home = page_of(board, "/")
    t4 = home.split("Table t4</h2>")[1].split("<h2>")[0]
    assert "now plays as table blue" in t4 and "Box not connected" not in t4, t4
    play(t, bot, "towers", ("Gus", "Hal"))
    deliver(board, j)
    home = page_of(board, "/")
    t4, t5 = (home.split(f"Table {x}</h2>")[1].split("<h2>")[0] for x in ("t4", "t5"))
    assert "now plays as table blue" in t4 and "Box not connected" not in t4, t4
    assert "Box not connected" in t5 and "now plays" not in t5, t5
    boxes = club_json(board)["boxes"]
    assert boxes["t4"].get("renamed") == "blue" and boxes["t5"].get("renamed") is None, boxes
    board.close()


def test_a_table_renamed_between_matches_is_still_said_so_after_a_board_restart(tmp_path):
    """Fault guarded (the same, the board restarted: the broker gives it every table's retained
    status at once, in any order): the old name is said to be the renamed box's, whichever status
    comes last, since the new name's says it is connected."""
    from assistant.club.public import ClubOutbox
    path = str(tmp_path / "b.sqlite3")
    board = Board(path, "c")
    j, t, bot = bot_table(tmp_path, "towers", 6, name="t4")
    play(t, bot, "towers", ("Gus", "Hal"))
    deliver(board, j)
    board.close()
    board = Board(path, "c")
    j.outbox = ClubOutbox("c", "blue", j)
    status(board, "blue", j.name(), True)
    status(board, "t4", j.name(), False)  # the retained statuses, the old name's last
    t4 = page_of(board, "/").split("Table t4</h2>")[1].split("<h2>")[0]
    assert "now plays as table blue" in t4 and "Box not connected" not in t4, t4
    board.close()


def test_api_club_keeps_a_game_played_by_guests_only_as_the_players_page_says_it(tmp_path):
    """Fault (a quiet JSON change: a club's first nights, no tag enrolled at the towers tables):
    /api/club's standings left out a game played by guests only, so a program could not tell it
    from a game nobody played, and the Players page said nothing of it. Now the JSON keeps every
    game played, nobody standing in a game of guests only (docs/club.md), and the page says it was
    played by guests only, tonight and over the season."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 3)
    play(t, bot, "towers", ("P1", "P2"))
    deliver(board, j)
    j2, t2, bot2 = bot_table(tmp_path, "twenty-nine", 3, name="t2")
    play(t2, bot2, "twenty-nine", ("Ann", "Bob", "Cat", "Dan"))
    deliver(board, j2)
    out = club_json(board)
    assert out["standings"]["towers"] == {"players": {}, "partnerships": {}}, out["standings"]
    assert out["tonight"]["standings"]["towers"] == {"players": {}, "partnerships": {}}, out["tonight"]
    assert set(out["standings"]["twenty-nine"]["players"]) == {"Ann", "Bob", "Cat", "Dan"}
    players = page_of(board, "/players")
    assert "<h3>Towers: tonight</h3><p class=\"quiet\">Played by guests only so far" in players, players
    assert "<h3>Towers: the season</h3><p class=\"quiet\">Played by guests only so far" in players, players
    board.close()


def test_players_shows_tonights_standings_next_to_the_seasons_and_a_line_a_twenty_nine_player(tmp_path):
    """Faults (a club night's organiser at /players): there were only the season's standings, so
    tonight's winners could not be told from last month's; and Twenty-Nine's "wins over time" had a
    line a partnership only (towers' a line a player), though partners change from table to table.
    Now tonight's standings (the matches begun since the evening began, on the board's clock) come
    before the season's, in /api/club too, and Twenty-Nine's chart has a line a player (as
    towers'), not a partnership."""
    import sqlite3
    path = str(tmp_path / "b.sqlite3")
    board = Board(path, "c")
    j, t, bot = bot_table(tmp_path, "towers", 4)
    play(t, bot, "towers", ("Ann", "Bob"))
    deliver(board, j)
    board.close()
    db = sqlite3.connect(path)  # that was last week (t1's latest match: in the board's memory still)
    with db:
        db.execute("UPDATE events SET received = received - 7 * 86400, t = t - 7 * 86400, body = CASE n WHEN 0 "
                   "THEN json_set(body, '$.started', json_extract(body, '$.started') - 7 * 86400) ELSE body END")
        db.execute("UPDATE matches SET first = first - 7 * 86400, last = last - 7 * 86400")
    db.close()
    board = Board(path, "c")
    j2, t2, bot2 = bot_table(tmp_path, "towers", 5, name="t2")
    play(t2, bot2, "towers", ("Ann", "Cat"))  # tonight's
    deliver(board, j2)
    j3, t3, bot3 = bot_table(tmp_path, "twenty-nine", 3, name="t3")
    play(t3, bot3, "twenty-nine", ("Ann", "Dan", "Eve", "Finn"))
    deliver(board, j3)
    out = club_json(board)
    assert set(out["standings"]["towers"]["players"]) == {"Ann", "Bob", "Cat"}
    assert set(out["tonight"]["standings"]["towers"]["players"]) == {"Ann", "Cat"}, out["tonight"]
    assert out["tonight"]["standings"]["towers"]["players"]["Ann"]["played"] == 1
    assert out["tonight"]["night"] == time.strftime("%Y-%m-%d", time.localtime(time.time() - 6 * 3600))
    players = page_of(board, "/players")
    tonight, the_season = players.split("<h2>The season</h2>")
    assert "<h2>Tonight (" in tonight and "Bob" not in tonight and "Cat" in tonight, tonight
    assert "Bob" in the_season
    chart = the_season.split("<h2>Twenty-Nine: wins over time</h2>")[1].split("</figure>")[0]
    assert all(f"> {name}</span>" in chart for name in ("Ann", "Dan", "Eve", "Finn")), chart
    assert " + " not in chart
    board.close()
