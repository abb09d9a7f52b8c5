"""The club's board, fourth round: a club night run as docs/club.md says, then broken as a club
would (a season's first start, a damaged duplicate, boxes upgraded one at a time, ...).

Each test names the fault it covers.
"""
import json
import logging
import sqlite3

from assistant.club.board import Board
from assistant.club.page import club_json
from test_club_season import as_an_older_board_left_it
from test_club import (bot_table, broker, deliver, finished_match, live_board, page_of, play, said,  # noqa: F401
                       send_all, wait_for)


def standings_of(board):
    return club_json(board)["standings"]


def test_a_boards_first_start_on_a_season_replays_each_match_once_not_once_a_hand(tmp_path, monkeypatch):
    """Fault (a club's board on a Pi, the first start of this board on a season an older board
    wrote: 309 s at 3,600 matches): a start read each match's events from the file and applied them
    one at a time as if they arrived live, so each towers hand's discard took the up-card as its
    stand-in, the dealer then played the up-card, and the whole match so far was replayed again:
    once a hand, every match of the season. A start now gives a match's events at once, and the
    match is replayed once, its stand-ins chosen from every card played after them; the standings
    and every match's score are the same."""
    from assistant.club import store
    from assistant.club.replay import BoardMatch
    with monkeypatch.context() as m:  # the file made quickly: its commits' syncing is not what is tested
        m.setattr(store, "SYNCHRONOUS", "OFF")
        board = Board(str(tmp_path / "board.sqlite3"), "c", keep=None)
        j, t, bot = bot_table(tmp_path, "towers", 2)
        play(t, bot, "towers", ("Ann", "Bob"))
        play(t, bot, "towers", ("Ann", "Cat"))
        deliver(board, j)
        j.close()
    scores = {k: bm.match.state()["score"] for k, bm in board.matches.items()}
    everything = standings_of(board)
    board.close()
    as_an_older_board_left_it(tmp_path / "board.sqlite3")
    rebuilt = []
    rebuild = BoardMatch.rebuild
    monkeypatch.setattr(BoardMatch, "rebuild", lambda self: rebuilt.append((self.table, self.mid)) or rebuild(self))
    board = Board(str(tmp_path / "board.sqlite3"), "c")  # puts matches 1 away, keeps each table's latest
    try:
        assert sorted(rebuilt) == sorted({(t, m) for t, _, m in scores}), rebuilt  # was one a towers hand
        assert {k: bm.match.state()["score"] for k, bm in board.matches.items()} == {
            k: s for k, s in scores.items() if k[2] == 2}
        assert standings_of(board) == everything
        rebuilt.clear()
        board.close()
        board = Board(str(tmp_path / "board.sqlite3"), "c")  # a later start: tonight's matches, once each
        assert rebuilt == [("t1", 2)]
    finally:
        board.close()

    # a match whose last row cannot be used (stored by an older board): the rows before it, which
    # waited for it to be applied together, are applied without it
    db = sqlite3.connect(tmp_path / "board.sqlite3")
    with db:
        db.execute("UPDATE events SET body='{' WHERE tbl='t1' AND match=2 AND n=(SELECT max(n) FROM events "
                   "WHERE tbl='t1' AND match=2)")
    db.close()
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        (bm,) = [bm for key, bm in board.matches.items() if key[0] == "t1"]
        assert bm.next - 1 == len(bm.events) > 100 and bm.problem is None  # all but the last, applied
    finally:
        board.close()


def damage_match_row(path, table, mid):
    """Real damage in the board's file while the board runs: the list-of-matches row of ``table``'s
    match ``mid`` (t1's, its journal's name 16 characters, at most 127 events so far) made unreadable
    on disk (one byte of its record's header: its events count takes no room, so its row is
    malformed), then a write by another connection, so that the board's reads the file again."""
    from journal_faults import overwrite, pages
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    count = db.execute("SELECT events FROM matches WHERE tbl=? AND match=?", (table, mid)).fetchone()[0]
    (page,) = pages(path, "matches", "leaf")
    data = open(path, "rb").read()[(page - 1) * 4096:page * 4096]
    header = bytes([13 + 2 * len(table), 13 + 2 * 16, 9 if mid == 1 else 1, 7, 7, 1 if count < 128 else 2, 0])
    assert data.count(header) == 1, (data.count(header), count)
    overwrite(path, (page - 1) * 4096 + data.index(header) + 5, b"\x00")
    db.execute("PRAGMA user_version=1")
    db.close()


def test_a_damaged_match_in_the_boards_file_does_not_stop_every_tables_events(broker, live_board, tmp_path, caplog):
    """Fault (the board's file damaged while it runs, a club night through the real Mosquitto): an
    event the file could not take because it is damaged was left unacknowledged, as for a full
    disk, to be stored once the disk had room; but damage does not go away by waiting, and each
    message the board leaves unacknowledged holds one of the broker's places in flight to it (here
    100, Mosquitto's default 20): once a damaged match had sent that many events, the broker sent
    the board nothing more of any table for the rest of the night. Now a message the damaged file
    cannot take is refused in one line that says to restart the board (which sets the file aside
    and reads back what it can) and acknowledged, and every other table's events go on."""
    caplog.set_level(logging.WARNING, logger="assistant.club.board")
    _, events, _ = finished_match(tmp_path / "box")
    send_all(broker, "t1", [(topic, p.encode()) for topic, p in events[:10]])
    assert wait_for(lambda: live_board.counts["stored"] == 10)
    damage_match_row(tmp_path / "board.sqlite3", "t1", 1)
    send_all(broker, "t1", [(topic, p.encode()) for topic, p in events[10:130]])  # past the broker's 100 in flight
    j, t, bot = bot_table(tmp_path / "t2box", "towers", 4, name="t2")
    play(t, bot, "towers", ("Cat", "Dan"))
    theirs = [(topic, p.encode()) for _, topic, p in j.outbox_rows(0, 100_000) if topic.endswith("/events")]
    send_all(broker, "t2", theirs)
    assert wait_for(lambda: live_board.counts["stored"] == 10 + len(theirs)), live_board.counts  # stayed at 10
    assert wait_for(lambda: live_board.counts["refused"] == 120)
    (line,) = said(caplog, "refused a message on club/c/t1/events")
    assert f"the board's file {tmp_path / 'board.sqlite3'} cannot take it (it is damaged: restart the board, " \
           "which sets it aside and reads back what it can; the board goes on with the other messages, and the " \
           "match's record brings this one back after the restart)" in line, line
    (bm,) = [bm for key, bm in live_board.matches.items() if key[0] == "t2"]
    assert bm.match.state() == t.match.state()
    j.close()
    assert "The board's file is damaged: what it cannot store is refused (the log says which). Restart the " \
           "board" in page_of(live_board, "/")  # not only t1's count, whose words name boxes' causes


def test_a_row_breaking_the_boards_own_constraints_is_damage_not_a_disk_to_wait_for(tmp_path, caplog):
    """Fault (the same, an IntegrityError): a row of the board's file that breaks the file's own
    constraints (a NULL where the board never writes one: SQLite's quick_check calls it damage) made
    every later event of its match fail with an IntegrityError, which the board took for a disk
    without room: unacknowledged, said as 'cannot be written (NOT NULL constraint failed: ...)',
    retried every 5 s for ever. It is damage: said so, and acknowledged, as above."""
    _, events, _ = finished_match(tmp_path / "box")
    path = tmp_path / "board.sqlite3"
    board = Board(str(path), "c")
    try:
        assert all(board.receive(topic, p.encode()) for topic, p in events[:5])
        db = sqlite3.connect(path, isolation_level=None)  # its NOT NULL lifted for one write, then put back
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name='matches'").fetchone()[0]
        version = db.execute("PRAGMA schema_version").fetchone()[0]
        db.execute("PRAGMA writable_schema=ON")
        for k, schema in enumerate((sql.replace("events INTEGER NOT NULL", "events INTEGER"), sql), 1):
            db.execute("UPDATE sqlite_master SET sql=? WHERE name='matches'", (schema,))
            db.execute(f"PRAGMA schema_version={version + k}")
            if k == 1:
                db.execute("UPDATE matches SET events=NULL")
        db.close()
        with caplog.at_level(logging.WARNING, logger="assistant.club.board"):
            assert board.receive(events[5][0], events[5][1].encode()) is True  # acknowledged
        (line,) = said(caplog, "refused a message")
        assert "cannot take it (it is damaged: restart the board" in line, line
        assert board.counts["refused"] == 1 and board.counts["stored"] == 5
    finally:
        board.close()


def test_a_box_newer_than_the_board_is_said_on_the_page_not_only_counted(tmp_path, caplog):
    """Fault (a club upgrading its boxes one at a time, the board last): every message of a box
    newer than the board ("v": 2) was refused as 'not a version 1 club message', its statuses too,
    so the table was on no page at all: the organiser saw one number grow ('N refused') at the top
    and nothing else. The messages are still refused (this board cannot read them) and
    acknowledged (held, they would stop the broker's flow to the board), and nothing is lost: the
    box keeps every match and the broker each finished match's record, which the upgraded board
    reads. But the table is now on the page, saying plainly that its box is newer and the board
    is to be upgraded, and /api/club says so of its box (newer: 2); the log line says the same."""
    from test_club import page_of
    _, events, _ = finished_match(tmp_path / "box")
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        newer = [("club/c/t3/status", {"v": 2, "table": "t3", "online": True, "t": 1.0, "alive": 30})] + [
            (topic.replace("/t1/", "/t3/"), dict(json.loads(p), v=2, id=["t3", *json.loads(p)["id"][1:]]))
            for topic, p in events[:20]]
        with caplog.at_level(logging.WARNING, logger="assistant.club.board"):
            assert all(board.receive(topic, json.dumps(body).encode()) for topic, body in newer)
        assert board.counts["refused"] == 21 and not board.matches
        (line,) = said(caplog, "refused a message")
        assert "a version 2 club message, from a box newer than this board, which reads version 1: upgrade the " \
               "board" in line, line
        page = page_of(board, "/")
        assert "<h2>Table t3</h2>" in page
        assert "Its box is newer than this board: it sends version 2 messages, and this board reads version 1, " \
               "so nothing it sends is shown. Upgrade the board" in page, page
        assert club_json(board)["boxes"]["t3"]["newer"] == 2
        board.receive("club/c/t1/events", json.dumps(dict(json.loads(events[0][1]), v=1)).encode())
        assert club_json(board)["boxes"]["t1"]["newer"] is None
        # second read: its refusals are no fault of its box's, so the table's line does not blame
        # one ("two boxes set up with this table's name..."), and a box rolled back to version 1
        # is read again, so the note goes with its first message
        assert "refused: the board's log says why" not in page.split("<h2>Table t3</h2>")[1]
        board.receive("club/c/t3/status", json.dumps(dict(newer[0][1], v=1)).encode())
        assert club_json(board)["boxes"]["t3"]["newer"] is None and "Its box is newer" not in page_of(board, "/")
    finally:
        board.close()


def test_a_second_board_with_its_own_account_reads_the_whole_club_beside_the_first(tmp_path, caplog):
    """Fault (two boards, as docs/club.md allows: 'any number can subscribe, each with its own file
    and account'; a second board on the bar's screen, with an account of its own): every board's
    client id was board-CLUB, whatever its account, so the broker kept one session for both: each
    board closed the other's connection as it connected, each got part of the club's messages, and
    acknowledged for the other what the other never got (the broker then forgot it). Now a board's
    client id names its account (the account 'board' keeps board-CLUB, its queue at the broker
    across the upgrade): both boards store every event, and neither says another board took its
    place."""
    import threading
    from assistant.club.board_run import run_board
    from assistant.club.broker import Broker
    from test_club import mosquitto_or_skip
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    broker = Broker(tmp_path / "broker", "c", ["t1"], persistence=False, boards=["bar"]).start()
    stop, boards, threads = threading.Event(), [], []
    try:
        for account in ("board", "bar"):
            boards.append(Board(str(tmp_path / f"{account}.sqlite3"), "c"))
            threads.append(threading.Thread(target=run_board, args=(boards[-1], broker.url(account), 0, "127.0.0.1"),
                                            kwargs={"stop": stop}, daemon=True))
            threads[-1].start()
        assert wait_for(lambda: all(b.subscribed and b.connected for b in boards))
        _, events, record = finished_match(tmp_path / "box")
        send_all(broker, "t1", [(topic, p.encode()) for topic, p in events])
        assert wait_for(lambda: [b.counts["stored"] for b in boards] == [len(events)] * 2), \
            [b.counts for b in boards]
        assert not said(caplog, "another board") and not said(caplog, "lost the broker")
        assert boards[0].snapshot()["tables"] == boards[1].snapshot()["tables"]
    finally:
        stop.set()
        for t in threads:
            t.join(10)
        for b in boards:
            b.close()
        broker.stop()


def test_a_table_named_with_a_digit_int_cannot_read_leaves_the_boards_pages_whole(tmp_path):
    """Fault (as ?page=² was on the box's page): the board sorts its tables t2 before t10 by the
    digits in their names, and "²" is a digit to isdigit() but no number to int(): one status on
    club/CLUB/²/status (a broker whose ACL lets an account write there) made the Tables page a 500
    and /api/club an internal error for as long as the board ran. Only ASCII digits count now."""
    from test_club import page_of
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        for table in ("t10", "²", "t2"):
            assert board.receive(f"club/c/{table}/status", json.dumps(
                {"v": 1, "table": table, "online": True, "t": 1.0, "alive": 30}).encode())
        page = page_of(board, "/")
        assert page.index("<h2>Table t2</h2>") < page.index("<h2>Table t10</h2>")
        assert "<h2>Table ²</h2>" in page
        assert set(club_json(board)["boxes"]) == {"t2", "t10", "²"}
    finally:
        board.close()
