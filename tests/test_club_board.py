"""The club's board: a box's journal named in its messages, a table's bounds, and when matches were
played, against the real Mosquitto where a box sends (tests/test_club.py's broker and board).

Each test names the fault it covers (the board's leftovers after club night, issue 14).
"""
import json
import logging
import sqlite3
import time

import pytest

from assistant.box.journal import Journal
from assistant.club.board import Board
from assistant.club.page import club_json, records, two_tables_at_once
from assistant.club.publisher import Publisher
from test_club import (broker, bot_table, deliver, finished_match, live_board, page_of, play,  # noqa: F401
                       said, send_all, wait_for)
from test_club_night import unnamed


def publish(journal, broker):
    pub = Publisher(journal, journal.outbox, broker.url("t1"))
    pub.start()
    return pub


def test_a_reset_box_is_a_new_run_of_its_table_never_added_into_the_old_match(broker, live_board, tmp_path):
    """Fault: the board's events carried no journal identity, only [table, match, n]. A box reset
    (its state folder wiped, a new SD card) that came back under its table's name numbered its
    matches from 1 again, and the board took them as the old match 1 of that table: its events
    past the old match's end were added into it, the others refused as differing. Each journal
    now names itself once, when it is made, and every message says the name: the reset box is a
    second run of the table, each match whole, nothing refused."""
    before, t, bot = bot_table(tmp_path / "before", "towers", 11)
    pub = publish(before, broker)
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    for _ in range(30):  # the old match is in play when the box is reset
        assert t.apply(bot.next_action(t.match.engine))
    assert wait_for(lambda: pub.idle() and live_board.counts["stored"] == 31)
    pub.stop()
    before.close()
    after, t2, bot2 = bot_table(tmp_path / "after", "towers", 12)  # a new state folder: a new journal
    assert after.name() != before.outbox.name
    pub = publish(after, broker)
    play(t2, bot2, "towers", ("Cat", "Dan"))
    rows = len(after.read(1)[1])
    assert wait_for(lambda: pub.idle() and live_board.counts["stored"] == 31 + rows + 1)
    pub.stop()
    assert live_board.counts["refused"] == 0
    (table,) = live_board.snapshot()["tables"]
    old, new = table["matches"]
    assert (old["run"], old["match"], old["events"], old["seats"]) == (1, 1, 30, ["Ann", "Bob"])
    assert old["phase"] != "over" and old["problem"] is None
    assert (new["run"], new["match"], new["events"], new["seats"]) == (2, 1, rows, ["Cat", "Dan"])
    assert new["score"] == t2.match.state()["score"] and new["winner"] == t2.match.state()["winner"]
    home = page_of(live_board, "/")
    assert "The box's journal 2 (begun anew: a box reset, a new card, or a second box set up with this table's name)" in home
    again = Board(str(tmp_path / "board.sqlite3"), "c")  # the same from the board's file
    assert again.snapshot()["tables"][0]["matches"] == table["matches"]
    again.close()


def test_a_backlog_sent_after_a_night_offline_is_stored_once(broker, live_board, tmp_path):
    """Fault guarded (journal identity): a box out of the Wi-Fi all evening, switched off and on
    again, sends its whole outbox when it is back, and sends it again after a dropped connection;
    its journal keeps its name across the restart, so every event is the same event: stored once,
    the rest counted as duplicates, one run of the table."""
    j, t, bot = bot_table(tmp_path, "twenty-nine", 7)
    name = j.name()
    play(t, bot, "twenty-nine", ("Ann", "Bob", "Cat", "Dan"))  # never connected
    t.new_match("twenty-nine", {}, seats=("Ann", "Bob", "Cat", "Dan"))
    for _ in range(20):
        assert t.apply(bot.next_action(t.match.engine))
    events = len(j.read(1)[1]) + 1 + len(j.read(2)[1]) + 1
    j.close()
    j = Journal(str(tmp_path / "t1" / "journal.sqlite3"))  # the box switched on again the next day
    from assistant.club.public import ClubOutbox
    j.outbox = ClubOutbox("c", "t1", j)
    assert j.name() == name
    pub = publish(j, broker)
    assert wait_for(pub.connected.is_set)
    pub.drop()  # mid-send: whatever was not acknowledged is sent again
    assert wait_for(lambda: pub.idle() and live_board.counts["stored"] == events)
    pub.stop()
    time.sleep(0.3)
    assert live_board.counts["stored"] == events and live_board.counts["duplicates"] > 0
    assert live_board.counts["refused"] == 0
    (table,) = live_board.snapshot()["tables"]
    assert [(m["run"], m["match"]) for m in table["matches"]] == [(1, 1), (1, 2)]
    assert {m["journal"] for m in table["matches"]} == {name}


def test_an_older_box_still_counts_and_once_upgraded_its_matches_are_not_doubled(broker, live_board, tmp_path):
    """Older boxes (no journal name in their messages) are kept as before, under the table's name
    alone. Fault guarded: the same box upgraded names its journal and sends its latest matches'
    records again; taken as a new journal they would show every such match twice. A named start
    equal to one kept unnamed (number, game, seats, start time) makes the unnamed matches that
    journal's: one run, each event once."""
    t, events, record = finished_match(tmp_path / "box")
    send_all(broker, "t1", [(topic, unnamed(payload)) for topic, payload in events])
    assert wait_for(lambda: live_board.counts["stored"] == len(events))
    (m,) = live_board.snapshot()["tables"][0]["matches"]
    assert m["journal"] is None and m["score"] == t.match.state()["score"]
    send_all(broker, "t1", [record])  # the upgraded box, after its reconnect: the record, named
    assert wait_for(lambda: live_board.counts["duplicates"] == len(events))
    assert live_board.counts["stored"] == len(events) and live_board.counts["refused"] == 0
    (m,) = live_board.snapshot()["tables"][0]["matches"]
    assert m["journal"] == json.loads(record[1])["journal"] and m["run"] == 1
    assert m["score"] == t.match.state()["score"]
    db = sqlite3.connect(tmp_path / "board.sqlite3")
    assert db.execute("SELECT count(*), count(DISTINCT journal) FROM events").fetchone() == (len(events), 1)
    db.close()


def test_a_journal_keeps_its_name_when_the_box_repairs_it(tmp_path):
    """The name is the journal's: a journal the box repairs at its start (salvage, every row carried
    into a new file) keeps it, or the board would show its matches again as a reset box's."""
    path = tmp_path / "journal.sqlite3"
    j = Journal(str(path))
    j.new_match("towers", ("Ann", "Bob"), {})
    name = j.name()
    j.close()
    db = sqlite3.connect(path)
    db.execute("CREATE TRIGGER no_more BEFORE INSERT ON actions BEGIN SELECT RAISE(ABORT, 'x'); END")
    db.commit()
    db.close()
    j = Journal(str(path))  # a trigger the box never makes: damage, repaired
    assert j.recovered is not None and j.name() == name
    j.close()


def start(table, mid, seats=("Ann", "Bob")):
    return json.dumps({"v": 1, "id": [table, mid, 0], "kind": "start", "game": "towers", "seats": list(seats),
                       "options": {}, "journal": "ab12"}).encode()


def test_a_tables_matches_are_bounded_and_a_match_taken_is_never_cut_short(tmp_path, caplog, monkeypatch):
    """Fault (attack on the club with one table's password): every match start was kept, each a
    rules engine in the board's memory: 5,000 starts were 17 MB more, and no bound. A table now
    adds at most MAX_MATCHES matches (a club night: 30) and MAX_EVENTS events in 12 hours; beyond
    them a start is refused in one log line (for the whole storm), and the match a box was playing
    goes on to its end: a start is taken only with room for ROOM more events. The next night it
    adds a night again (the board keeps a season), after a restart too."""
    from assistant.club import tables
    assert tables.MAX_MATCHES >= 30 and tables.MAX_EVENTS - tables.ROOM >= 30 * 500  # a night never meets them
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "towers", 11)
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    deliver(board, j)  # the real box's match, begun
    for mid in range(2, tables.MAX_MATCHES + 200):
        board.receive("club/c/t1/events", start("t1", mid))
    assert len(board.matches) == tables.MAX_MATCHES and board.counts["refused"] == 200 - 1
    refused = said(caplog, "refused a message")
    assert len(refused) == 1 and "more than a club night" in refused[0], refused
    board.receive("club/c/t2/events", start("t2", 1))  # another table is not held back
    assert ("t2", "ab12", 1) in board.matches
    sent = len(j.outbox_rows(0, 100_000))
    while t.match.engine.phase != "over":
        assert t.apply(bot.next_action(t.match.engine))
    for _, topic, payload in j.outbox_rows(0, 100_000)[sent:]:
        board.receive(topic, payload.encode())
    bm = board.matches[("t1", j.name(), 1)]
    assert bm.next - 1 == len(j.read(1)[1]) and bm.match.state() == t.match.state()
    board.close()
    board = Board(str(tmp_path / "b.sqlite3"), "c")  # restarted: the night's count is read from its file
    board.receive("club/c/t1/events", start("t1", 500))
    assert ("t1", "ab12", 500) not in board.matches and board.counts["refused"] == 1
    later = time.time() + tables.NIGHT + 3600  # the next club night: the board keeps every night (a season)
    monkeypatch.setattr(time, "time", lambda: later)
    board.receive("club/c/t1/events", start("t1", 501))
    assert ("t1", "ab12", 501) in board.matches and len(board.matches) == tables.MAX_MATCHES + 2
    board.close()


def test_a_tables_events_are_bounded_with_room_left_for_the_match_in_play(tmp_path, monkeypatch):
    """The events bound (MAX_EVENTS and ROOM, made small here): a start that would leave the table
    less than ROOM events is refused (and an action of a match not taken), the match taken before it
    gets its every event, and past MAX_EVENTS nothing more is taken."""
    from assistant.club import tables
    j, t, bot = bot_table(tmp_path, "towers", 11)
    play(t, bot, "towers", ("Ann", "Bob"))
    rows = [(topic, payload.encode()) for _, topic, payload in j.outbox_rows(0, 100_000) if topic.endswith("/events")]
    monkeypatch.setattr(tables, "ROOM", len(rows) + 10)  # room for the whole match
    monkeypatch.setattr(tables, "MAX_EVENTS", len(rows) + 110)
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for topic, payload in rows[:150]:
        board.receive(topic, payload)
    board.receive("club/c/t1/events", start("t1", 2))  # 150 held, no room for ROOM more
    assert ("t1", "ab12", 2) not in board.matches and board.counts["refused"] == 1
    for topic, payload in rows[150:]:
        board.receive(topic, payload)
    assert board.counts["stored"] == len(rows) and board.counts["refused"] == 1  # the match whole
    assert board.matches[("t1", j.name(), 1)].match.state() == t.match.state()
    def action(mid, n):
        return json.dumps({"v": 1, "id": ["t1", mid, n], "kind": "action", "line": "flip JS", "hand": 0,
                           "journal": j.name()}).encode()

    board.receive("club/c/t1/events", action(3, 1))  # an action of a match the table has no room for
    assert board.counts["refused"] == 2 and not board.tables.early
    for n in range(len(rows), len(rows) + 199):  # the match taken, sent on past its end (a box gone wrong)
        board.receive("club/c/t1/events", action(1, n))
    assert board.counts["stored"] == len(rows) + 110 and board.counts["refused"] == 2 + 199 - 110
    board.close()


def a_box_playing(broker, tmp_path, name, seed, seats, pause=0.0):
    """A box connected to the broker, ten actions into a towers match."""
    j, t, bot = bot_table(tmp_path, "towers", seed, name=name)
    pub = Publisher(j, j.outbox, broker.url(name))
    pub.start()
    t.new_match("towers", {}, seats=seats)
    for _ in range(10):
        assert t.apply(bot.next_action(t.match.engine))
        time.sleep(pause)
    return j, t, bot, pub


def test_a_burst_of_queued_events_is_no_player_at_two_tables_at_once(broker, live_board, tmp_path, monkeypatch):
    """Fault: the Players page's "seated at two tables at the same time" went by when the board
    received each match's first and latest event. Eve played at t1, whose Wi-Fi dropped mid-match,
    then moved to t2; t1's queued events reached the board in one burst while she played at t2,
    and the page said she sat at both at once. It now goes by the boxes' own times (their clocks
    read on the board's: clocks.py): t1's match ended before t2's began."""
    from assistant.club import page
    monkeypatch.setattr(page, "SLACK", 0.3, raising=False)  # matches played by bots last a second, not an hour
    j1, t1, bot1, pub1 = a_box_playing(broker, tmp_path, "t1", 2, ("Eve", "Bob"))
    assert wait_for(lambda: pub1.idle() and live_board.counts["stored"] == 11)
    pub1.offline.set()  # the Wi-Fi drops; the match goes on and ends
    pub1.drop()
    while t1.match.engine.phase != "over":
        assert t1.apply(bot1.next_action(t1.match.engine))
    time.sleep(1.0)  # Eve walks over to t2
    j2, t2, bot2, pub2 = a_box_playing(broker, tmp_path, "t2", 3, ("Eve", "Dan"), pause=0.05)
    assert wait_for(pub2.idle)
    time.sleep(0.5)  # t2 under way a while (the last check: by the board's clock t1's burst came after)
    pub1.offline.clear()  # t1 back in the Wi-Fi: its queue arrives in one burst, mid-t2
    assert wait_for(pub1.idle)
    time.sleep(1.0)
    while t2.match.engine.phase != "over":
        assert t2.apply(bot2.next_action(t2.match.engine))
    assert wait_for(pub2.idle)
    pub1.stop()
    pub2.stop()
    want = len(j1.read(1)[1]) + len(j2.read(1)[1]) + 2
    assert wait_for(lambda: live_board.counts["stored"] == want)
    assert two_tables_at_once(live_board, records(live_board)) == []
    assert "Seated at two tables" not in page_of(live_board, "/players")
    db = sqlite3.connect(tmp_path / "board.sqlite3")  # by the board's clock, t1's match spanned t2's start
    (t1_last,) = db.execute("SELECT max(received) FROM events WHERE tbl='t1'").fetchone()
    (t2_first,) = db.execute("SELECT min(received) FROM events WHERE tbl='t2'").fetchone()
    db.close()
    assert t1_last > t2_first + 0.3


def test_boxes_whose_clocks_differ_are_read_on_the_boards_clock(tmp_path):
    """Fault guarded (with care for clocks that differ): t2's box clock is ten minutes behind (a Pi
    with no network time keeps the time it was switched off). Eve played t1 from 20:00 to 20:20
    and t2 from 20:25 on; by t2's own clock that is from 20:15, over her t1 match. Its status, sent
    as it connects, says its time: the board reads t2's times ten minutes later, and says nothing."""
    from assistant.club.clocks import Clocks
    clocks = Clocks()
    board_now = 1_000_000.0
    clocks.heard("t1", "a", board_now - 0.005, board_now)            # right, 5 ms on the way
    clocks.heard("t2", "b", board_now - 600 - 0.004, board_now)      # ten minutes behind
    clocks.event("t1", "a", 1, board_now - 3600 + 1200, board_now)   # latest event 20:20 (t1's clock)
    clocks.event("t2", "b", 1, board_now - 3600 + 1800, board_now)   # 20:40, 20:30 by t2's clock
    t1 = clocks.span("t1", "a", 1, board_now - 3600)                  # 20:00 to 20:20
    t2 = clocks.span("t2", "b", 1, board_now - 3600 + 900)            # its 20:15 is 20:25
    assert board_now - 3600 + 900 < t1[1]  # by the boxes' clocks as they are, t2 began before t1 ended
    assert t1[1] < t2[0] and t2[0] == pytest.approx(board_now - 3600 + 1500, abs=0.01)
    assert clocks.behind["t2", "b"] == pytest.approx(600.004)
    board = Board(str(tmp_path / "b.sqlite3"), "c")  # the status's reading is kept in the board's file
    board.receive("club/c/t2/status", json.dumps({"v": 1, "table": "t2", "online": True, "journal": "b",
                                                  "t": time.time() - 600}).encode())
    board.close()
    again = Board(str(tmp_path / "b.sqlite3"), "c")
    assert again.clocks.behind["t2", "b"] == pytest.approx(600, abs=5)
    again.close()


def test_a_journal_name_no_box_makes_is_refused(tmp_path):
    """A message whose journal is not a name a box makes (16 hex digits) is refused in one line."""
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for bad in (["x"], "a/b", "x" * 100, 7):
        body = json.loads(start("t1", 1))
        body["journal"] = bad
        board.receive("club/c/t1/events", json.dumps(body).encode())
    assert board.counts["refused"] == 4 and not board.matches
    board.close()


def test_statuses_naming_new_journals_without_end_take_no_more_room_on_the_board(broker, live_board):
    """Fault (attacker, MQTT: one table's password): a box's "online" status says its clock, which
    the board keeps for the status's journal (in its file and its memory), even one that sent no
    event yet. A flood of statuses, each naming a journal no box had (any 16 hex digits), added a
    row and an entry each, with no bound: 20,000 statuses, 20,000 rows (5.5 MB), and a board
    started again read them all. Now the board keeps the clocks of the journals it has events of,
    and of the latest MAX_UNHEARD that sent none yet; the box that then plays keeps its own."""
    from assistant.club.board import MAX_UNHEARD
    now = time.time()

    def status(journal, alive=30):
        return ("club/c/t1/status", json.dumps({"v": 1, "table": "t1", "online": True, "t": now,
                                                "alive": alive, "journal": journal}))
    t, events, _ = finished_match(broker.folder / "box")
    journal = json.loads(events[0][1])["journal"]
    send_all(broker, "t1", [status(journal)] + events)  # a box that plays: its clock, then its events
    send_all(broker, "t1", [status("%016x" % n) for n in range(300)] + [status("f" * 16, alive=77)])
    assert wait_for(lambda: live_board.beat.get("t1") == 77)  # the last status of the flood was taken
    assert wait_for(lambda: live_board.counts["stored"] == len(events))
    rows = live_board.db.execute("SELECT journal FROM clocks WHERE tbl='t1'").fetchall()
    assert len(rows) <= MAX_UNHEARD + 1 and (journal,) in rows, len(rows)
    assert len([k for k in live_board.clocks.behind if k[0] == "t1"]) <= MAX_UNHEARD + 1


def test_a_match_the_rules_refuse_is_logged_once_not_at_every_event_after(broker, live_board, caplog):
    """Fault (attacker, MQTT; or a box and a board that disagree): the board replays a match again at
    each event after a refused one, and logged the same refusal each time: a match refused at its
    first action, then 2,000 events, wrote 2,000 identical lines (a real match refused at its
    tenth action: one a play for the rest of it). Now one line for the refusal, stored events kept."""
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    journal = "ab" * 8
    start_ = json.dumps({"v": 1, "kind": "start", "id": ["t1", 1, 0], "game": "towers", "seats": ["Ann", "Bob"],
                         "options": {}, "journal": journal})
    actions = [json.dumps({"v": 1, "kind": "action", "id": ["t1", 1, n], "line": "play P1 9H", "hand": 1,
                           "journal": journal}) for n in range(1, 201)]
    send_all(broker, "t1", [("club/c/t1/events", start_)] + [("club/c/t1/events", a) for a in actions])
    assert wait_for(lambda: live_board.counts["stored"] == 201)
    assert said(caplog, "refused by the rules") == ["board: table t1 match 1 action 1 refused by the rules (ScenarioError)"]


def test_a_record_refused_is_one_storm_whatever_match_it_names(broker, live_board, caplog):
    """Fault (attacker, MQTT): a refused record's line named its "match" as sent, and a storm of
    refusals is keyed by its words, so records naming a different match each (any text) were each
    a storm of their own: 200 records, 200 log lines (and 200 more as each ended). Now a record
    whose match is no number a box makes is refused in those words: one storm, one line."""
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    records = [("club/c/t1/record/1", json.dumps({"v": 1, "table": "t1", "match": f"m{k:x}y", "events": []}))
               for k in range(200)]
    send_all(broker, "t1", records)
    assert wait_for(lambda: live_board.counts["refused"] == 200)
    assert said(caplog, "refused a message") == [
        "board: refused a message on club/c/t1/record/1: a record without a match number a box makes "
        "(logged once until it ends)"]


def test_events_after_an_action_the_rules_refuse_are_not_each_a_replay_of_the_whole_match(tmp_path, monkeypatch):
    """Fault (the board's examiner; a box of an older version, or a lying one, with the table's
    password): once an action of a match was refused by the rules, the board replayed the whole
    match again at every later event of it, under its lock: 300 such events took 3.2 s, and the
    whole board waited. Now an event after the refusal costs no more rules work than in a match
    with nothing refused (the match as rebuilt is kept); an undo still rebuilds it, so a match
    whose refused action is undone goes on to the box's own score."""
    from assistant.rules.match import Match
    t, events, _ = finished_match(tmp_path / "box")
    bodies = [json.loads(payload) for _, payload in events]
    table = bodies[0]["id"][0]
    applied = []
    apply = Match.apply
    monkeypatch.setattr(Match, "apply", lambda self, action: (applied.append(1), apply(self, action))[1])

    def fed(bodies):
        applied.clear()
        board = Board(str(tmp_path / f"b{time.monotonic_ns()}.sqlite3"), "c")
        for n, body in enumerate(bodies):
            board.receive(f"club/c/{table}/events", json.dumps(dict(body, id=[table, 1, n])).encode())
        (bm,) = board.matches.values()
        board.close()
        return bm, len(applied)

    clean, clean_work = fed(bodies)
    assert clean.problem is None and clean.match.state()["score"] == t.match.state()["score"]
    k = next(k for k in range(len(bodies) // 2, len(bodies)) if bodies[k - 1]["line"].startswith("play "))
    bad = dict(bodies[k - 1])  # the card just played, played again: refused by the rules
    refused, refused_work = fed(bodies[:k] + [bad] + bodies[k:])
    assert refused.problem == (k, "refused by the rules (Refused)") and refused.next == len(bodies) + 1
    assert refused_work <= clean_work, (refused_work, clean_work)  # was ~ events²/2: thousands for these
    undone, _ = fed(bodies[:k] + [bad, dict(bad, line="undo")] + bodies[k:])
    assert undone.problem is None and undone.match.state() == t.match.state()


def test_a_hidden_card_is_applied_alone_not_by_replaying_the_whole_match(tmp_path, monkeypatch):
    """Fault (the board's examiner: a season's board taking a match back, or starting on tonight's
    matches, took 0.74 s a towers match): every hidden card (a towers discard each hand, a
    face-down trump) replayed the whole match so far to choose its stand-in, though the latest
    action's stand-in is chosen from nothing after it and changes no earlier one. It is now
    applied alone; the match is rebuilt only when a later card shows a stand-in wrong (the dealer
    plays the up-card a discard's stand-in had taken), an undo, or a trump revealed."""
    from assistant.club.replay import BoardMatch
    t, events, _ = finished_match(tmp_path / "box")
    bodies = [json.loads(payload) for _, payload in events]
    rebuilds = []
    rebuild = BoardMatch.rebuild
    monkeypatch.setattr(BoardMatch, "rebuild",  # which event made each rebuild: a hidden card?
                        lambda self: rebuilds.append(bool(self.events[self.next - 1].get("hidden"))) or rebuild(self))
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for n, body in enumerate(bodies):
        board.receive(f"club/c/{body['id'][0]}/events", json.dumps(body).encode())
    (bm,) = board.matches.values()
    assert bm.problem is None and bm.match.state() == t.match.state()
    assert sum(1 for b in bodies if b.get("hidden")) > 10 and not any(rebuilds)  # was one each
    board.close()


@pytest.mark.parametrize("clock, start, taken", [(-6.7768e16, None, 3), (None, 6.7768e16, 2)])
def test_a_box_clock_at_the_calendars_edge_stops_no_page_and_no_tidy(tmp_path, clock, start, taken):
    """Fault (the board's examiner, one table's password): a status and a match start saying a time
    at the edge of what a calendar holds (year -2,147,481,608: a time calendar_time takes) set that
    journal's clock difference so that its matches' times, on the board's clock, were past the
    calendar: /, /players and /api/club failed for the whole club (OverflowError, one plain 500),
    and the tidy that puts an older match away raised, which stopped the board; a start at the
    year 2**31 (which localtime takes and strftime, writing it out, refuses) did the same alone.
    A difference beyond MAX_OFF (200 years) is no box's clock and is not taken; a time it would
    take off the calendar is shown by the box's clock; a time that cannot be written out is no
    calendar's; a match that cannot be put away stays in memory."""
    from assistant.club.page import club_json, club_page, players_page
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    now = time.time()
    board.receive("club/c/t9/status", json.dumps({"v": 1, "table": "t9", "online": True, "t": clock or now,
                                                  "alive": 30, "journal": "cd34"}).encode())
    for mid in (1, 2, 3):
        board.receive("club/c/t9/events", json.dumps({"v": 1, "id": ["t9", mid, 0], "kind": "start", "game": "towers",
                                                      "seats": ["Ann", "Bob"], "options": {}, "journal": "cd34",
                                                      "started": start if mid == 2 and start else now,
                                                      "t": clock or now}).encode())
    assert board.counts["stored"] == taken  # a start past the year 2**31: refused, as one no calendar holds
    assert "Table t9" in club_page(board, records(board)) and "Players" in players_page(board)
    assert len(club_json(board)["tables"][0]["matches"]) == taken
    assert board.tidy(now=time.time() + 13 * 3600) == taken - 1  # all but 3, the table's latest
    assert "Table t9" in page_of(board, "/") and "Nights" in page_of(board, "/nights")
    board.close()
    again = Board(str(tmp_path / "b.sqlite3"), "c")  # starts again on its file
    assert len(again.matches) == 1
    again.close()
