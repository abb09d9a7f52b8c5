"""Club night (issue 14): the outbox, the public form, the board, all against the real Mosquitto.

The broker is the Debian package's ``mosquitto``, started per module on a loopback port with a
generated config (password file made by ``mosquitto_passwd``, an ACL); ``dev.py test`` installs
it on a fresh machine. Each test names the item of issue 14 it covers.
"""
import json
import logging
import re
import shutil
import sqlite3
import threading
import time

import pytest

from assistant.rules.cards import card_name
from assistant.club.board import MAX_MATCH, MAX_N, Board
from assistant.club.board_run import run_board
from assistant.club.broker import Broker, BrokerMissing, find
from assistant.club.page import club_json
from assistant.club.public import ClubOutbox
from assistant.club.publisher import Publisher, make_client
from assistant.box.journal import Journal, JournalError
from assistant.box.table import Table

DATA = __import__("pathlib").Path(__file__).parent / "data"


def mosquitto_or_skip():
    try:
        find("mosquitto")
        find("mosquitto_passwd")
    except BrokerMissing as e:
        pytest.skip(f"{e}: python3 dev.py test installs it where apt-get works")


@pytest.fixture
def broker(tmp_path_factory):
    """A fresh broker per test: nothing retained by another test reaches this one."""
    mosquitto_or_skip()
    b = Broker(tmp_path_factory.mktemp("broker"), "c", ["t1", "t2"], persistence=False).start()
    yield b
    b.stop()


def bot_table(tmp_path, game, seed, name="t1", club="c"):
    """A box at the table layer: journal with its club outbox, table, and a bot."""
    from assistant.sim.bots import table_bot
    j = Journal(str(tmp_path / name / "journal.sqlite3"))
    j.outbox = ClubOutbox(club, name, j)
    t = Table(j, {}, game=game)
    return j, t, table_bot(game, seed, 0.05)


def play(table, bot, game, seats, limit=10_000):
    table.new_match(game, {}, seats=seats)
    m = table.match
    for _ in range(limit):
        if m.engine.phase == "over":
            return
        action = bot.next_action(m.engine)
        assert table.apply(action), table.alert


def outbox_events(journal):
    return [json.loads(p) for _, topic, p in journal.outbox_rows(0, 100_000) if topic.endswith("/events")]


# --- item 1: a box publishes (no broker needed)

@pytest.mark.parametrize("game,seed", [("twenty-nine", 3), ("towers", 5)])
def test_only_public_information_leaves_the_box(tmp_path, game, seed):
    """Issue 14 item 1 (hidden information, as on the screen): a face-down trump is 'trump' until
    revealed, a towers discard is 'discard', never their cards; every action is one event with
    id [table, match, n], written with the action."""
    j, t, bot = bot_table(tmp_path, game, seed)
    seats = ("Ann", "Bob", "Cat", "Dan")[: 2 if game == "towers" else 4]
    play(t, bot, game, seats)
    events = outbox_events(j)
    _, rows, _ = j.read(1)
    assert [e["id"] for e in events] == [["t1", 1, n] for n in range(len(rows) + 1)]
    hidden = 0
    for (seq, line), event in zip(rows, events[1:]):
        kind = line.split()[0]
        if kind in ("trump", "discard", "hand"):
            hidden += 1
            assert event["hidden"] and event["line"] == kind, event
            card = line.split()[-1]
            revealed_before = any(e.get("revealed") == card for e in events[1:seq])
            assert revealed_before or card not in json.dumps(event)
        else:
            assert event["line"] == line
    assert hidden, "the match had no hidden action to check"
    assert events[-1]["end"]["winner"] == t.match.state()["winner"]
    now = json.loads(j.outbox.now)
    assert now["state"]["score"] == t.match.state()["score"]


def test_trump_card_is_named_only_from_the_action_that_reveals_it(tmp_path):
    """Issue 14 item 1: 'trump set' and no card, until the call (or the eighth trick) turns it up."""
    j, t, bot = bot_table(tmp_path, "twenty-nine", 3)
    play(t, bot, "twenty-nine", ("Ann", "Bob", "Cat", "Dan"))
    _, rows, _ = j.read(1)
    events = outbox_events(j)[1:]
    trump_card = None
    for (seq, line), event in zip(rows, events):
        if line.startswith("trump"):
            trump_card = line.split()[-1]
        elif trump_card and "revealed" in event:
            assert event["revealed"] == trump_card
            trump_card = None
        elif trump_card:
            assert trump_card not in json.dumps({k: v for k, v in event.items() if k != "line"})


def test_a_refused_write_leaves_no_outbox_row(tmp_path):
    """Issue 14 item 1: the event is written in the action's transaction, or not at all."""
    j, t, bot = bot_table(tmp_path, "towers", 1)
    t.new_match("towers", {}, seats=("Ann", "Bob"))
    before = len(j.outbox_rows(0, 1000))
    j.db.execute("CREATE TRIGGER no_more BEFORE INSERT ON actions BEGIN SELECT RAISE(ABORT, 'x'); END")
    with pytest.raises(JournalError):
        j.append(bot.next_action(t.match.engine), t.match.seats)
    assert len(j.outbox_rows(0, 1000)) == before
    j.db.execute("DROP TRIGGER no_more")
    action = bot.next_action(t.match.engine)
    assert t.apply(action)
    assert [e["id"][2] for e in outbox_events(j)] == [0, 1]  # the failed one left no number behind


def test_an_old_journal_opens_with_an_empty_outbox(tmp_path):
    """Issue 14 item 1 (journal upgrade): a journal made before the outbox opens, resumes, gains it."""
    path = tmp_path / "journal.sqlite3"
    shutil.copy(DATA / "journal-v1.sqlite3", path)
    old = sqlite3.connect(path)
    assert "outbox" not in {r[0] for r in old.execute("SELECT name FROM sqlite_master")}
    old.close()
    j = Journal(str(path))
    assert j.resume().match is not None
    assert j.outbox_rows() == []
    j.close()


# --- item 3/4: the real broker, its passwords and ACL

def collect(broker, account, pattern="club/#"):
    got = []
    c = make_client(f"watch-{account}-{time.monotonic_ns()}", account, broker.passwords[account], False)
    ready = threading.Event()
    c.on_subscribe = lambda *a: ready.set()
    c.on_message = lambda cl, u, m: got.append((m.topic, m.payload))
    c.connect("127.0.0.1", broker.port)
    c.subscribe(pattern, 1)
    c.loop_start()
    assert ready.wait(5)
    return c, got


def send(broker, account, topic, payload, password=None):
    c = make_client(f"send-{account}-{time.monotonic_ns()}", account, password or broker.passwords[account], False)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    info = c.publish(topic, payload, qos=1)
    info.wait_for_publish(5)
    c.disconnect()  # wakes the network thread, so that it ends at once
    c.loop_stop()


def test_acl_a_box_writes_only_its_own_table_and_the_board_only_reads(broker):
    """Issue 14 items 3-4: t1 cannot write t2's topics; the board's account cannot write at all."""
    watcher, got = collect(broker, "board")
    send(broker, "t1", "club/c/t2/events", b"forged by t1")
    send(broker, "board", "club/c/t1/events", b"written by the board")
    send(broker, "t1", "club/c/t1/events", b"t1's own")
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    watcher.disconnect()
    watcher.loop_stop()
    assert got == [("club/c/t1/events", b"t1's own")]


def test_a_wrong_password_is_refused(broker):
    """Issue 14 item 3: a password per box."""
    import paho.mqtt.client as mqtt
    c = make_client("intruder", "t1", "not-the-password", False)
    result = {}
    done = threading.Event()
    c.on_connect = lambda cl, u, f, reason, p: (result.setdefault("reason", reason), done.set())
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    assert done.wait(5)
    c.loop_stop()
    assert result["reason"].is_failure
    assert isinstance(result["reason"], mqtt.ReasonCode)


# --- items 1-2 with the broker: delivery, offline play, the board

@pytest.fixture
def live_board(broker, tmp_path):
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    stop = threading.Event()
    th = threading.Thread(target=run_board, args=(board, broker.url("board"), 0), kwargs={"stop": stop},
                          daemon=True)
    th.start()
    deadline = time.monotonic() + 10
    while not board.subscribed and time.monotonic() < deadline:
        time.sleep(0.02)
    assert board.subscribed
    yield board
    stop.set()
    th.join(5)


def wait_for(check, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_play_goes_on_offline_and_everything_arrives_once_on_reconnect(broker, live_board, tmp_path):
    """Issue 14 item 1: Wi-Fi down, the rules loop never waits; rows wait in the journal and are
    deleted only once acknowledged; a dropped connection sends again and the board keeps each
    event once; its scores are its own replay and equal the box's."""
    j, t, bot = bot_table(tmp_path, "twenty-nine", 7)
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.offline.set()
    pub.start()
    play(t, bot, "twenty-nine", ("Ann", "Bob", "Cat", "Dan"))
    _, rows, _ = j.read(1)
    assert len(j.outbox_rows(0, 100_000)) == len(rows) + 2  # every event and the match's record
    pub.offline.clear()
    assert wait_for(pub.connected.is_set)
    pub.drop()  # mid-send: whatever was not acknowledged is sent again
    assert wait_for(lambda: pub.idle() and live_board.counts["stored"] == len(rows) + 1)
    pub.stop()
    snap = live_board.snapshot()
    (m,) = snap["tables"][0]["matches"]
    assert m["events"] == len(rows) and m["problem"] is None
    assert m["score"] == t.match.state()["score"] and m["winner"] == t.match.state()["winner"]
    standings = club_json(live_board)["standings"]["twenty-nine"]
    assert sum(f["won"] for f in standings["partnerships"].values()) == 1
    assert sorted(standings["players"]) == ["Ann", "Bob", "Cat", "Dan"]
    stored = sqlite3.connect(live_board.db_path if hasattr(live_board, "db_path") else
                             str(tmp_path / "board.sqlite3")).execute("SELECT count(*) FROM events").fetchone()[0]
    assert stored == len(rows) + 1


def test_a_row_is_deleted_only_when_the_broker_acknowledges_it(broker, tmp_path):
    """Issue 14 item 1: a broker that takes the messages but does not answer (stopped with
    SIGSTOP) leaves every row in the journal; when it answers, they go."""
    import signal
    j, t, bot = bot_table(tmp_path, "towers", 4)
    pub = Publisher(j, j.outbox, broker.url("t1"))
    pub.start()
    assert wait_for(pub.connected.is_set)
    broker.proc.send_signal(signal.SIGSTOP)
    try:
        play(t, bot, "towers", ("Ann", "Bob"))
        time.sleep(0.5)
        rows = len(j.outbox_rows(0, 100_000))
        assert rows == len(j.read(1)[1]) + 2 and pub.acked == 0
    finally:
        broker.proc.send_signal(signal.SIGCONT)
    assert wait_for(pub.idle)
    pub.stop()
    assert pub.acked == rows


def test_the_board_refuses_bad_messages_with_a_line_and_stays_up(broker, live_board, caplog):
    """Issue 14 item 3: malformed, oversized, conflicting and early messages; no crash."""
    start = json.dumps({"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers",
                        "seats": ["Ann", "Bob"], "options": {}})
    flip = {"v": 1, "id": ["t1", 1, 1], "kind": "action", "line": "flip JS", "hand": 0}
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    bad = [b"not json", b"\xff\xfe", json.dumps([1, 2]).encode(), b"{" * 5000,
           json.dumps({"v": 1, "id": ["t2", 1, 0], "kind": "start"}).encode(),  # another table's id
           json.dumps({"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "chess", "seats": [],
                       "options": {}}).encode(),
           json.dumps(dict(flip, line="x" * 300)).encode()]
    for payload in bad:
        send(broker, "t1", "club/c/t1/events", payload)
    send(broker, "t1", "club/c/t1/events", json.dumps(dict(flip, id=["t1", 1, 2], line="upcard 9H")).encode())
    send(broker, "t1", "club/c/t1/events", start.encode())
    send(broker, "t1", "club/c/t1/events", json.dumps(flip).encode())
    send(broker, "t1", "club/c/t1/events", json.dumps(dict(flip, line="flip QS")).encode())  # conflicts
    assert wait_for(lambda: live_board.counts["refused"] == len(bad) + 1)
    assert wait_for(lambda: live_board.snapshot()["tables"] and
                    live_board.snapshot()["tables"][0]["matches"][0]["events"] == 2)
    words = [r.getMessage() for r in caplog.records if "refused a message" in r.getMessage()]
    assert len(words) == len(bad)  # one line a kind of refusal: the two that are not JSON are one
    assert any("oversized" in w for w in words) and any("not JSON" in w for w in words)
    assert any("differs from the one stored" in w for w in words)
    said = [r.getMessage() for r in caplog.records]
    assert any("stored and held" in w for w in said) and any("gap is filled" in w for w in said)
    m = live_board.snapshot()["tables"][0]["matches"][0]
    assert m["phase"] == "play" or m["problem"] is None


def test_a_message_over_the_boards_largest_never_leaves_the_broker(broker, live_board):
    """Fault (attack on the club): the broker the project starts took any message up to 256 MiB
    from a table's account, kept it when retained, and passed it to the board, which had to hold
    it in memory before refusing it as oversized. The broker now drops it (broker.LIMITS, as
    install.sh --board writes them), acknowledged, so a box goes on with its next message."""
    from assistant.club.board import MAX_RECORD
    from assistant.club.broker import MAX_MESSAGE
    assert MAX_MESSAGE == MAX_RECORD
    start = {"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers", "seats": ["Ann", "Bob"],
             "options": {}}
    send(broker, "t1", "club/c/t1/record/1", json.dumps(dict(start, pad="x" * MAX_MESSAGE)).encode())
    send(broker, "t1", "club/c/t1/events", json.dumps(start).encode())  # the next message goes through
    assert wait_for(lambda: live_board.counts["stored"] == 1)
    assert live_board.counts["refused"] == 0  # the big one never reached the board


def send_all(broker, account, messages):
    """Publish (topic, payload) pairs in this order over one connection, each acknowledged."""
    c = make_client(f"send-{account}-{time.monotonic_ns()}", account, broker.passwords[account], False)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    for topic, payload in messages:
        c.publish(topic, payload, qos=1).wait_for_publish(5)
    c.disconnect()
    c.loop_stop()


def finished_match(tmp_path, game="towers", seed=11):
    """A box's finished match: (its table, its events' (topic, payload) in order, its record's)."""
    j, t, bot = bot_table(tmp_path, game, seed)
    play(t, bot, game, ("Ann", "Bob", "Cat", "Dan")[: 2 if game == "towers" else 4])
    rows = [(topic, payload) for _, topic, payload in j.outbox_rows(0, 100_000)]
    events = [r for r in rows if r[0].endswith("/events")]
    (record,) = [r for r in rows if "/record/" in r[0]]
    return t, events, record


def said(caplog, words):
    return [r.getMessage() for r in caplog.records if words in r.getMessage()]


def test_events_out_of_order_are_held_never_refused_so_none_is_lost(broker, live_board, caplog):
    """Issue 14 item 3 (out of order) against "lost 0" (item 5): a whole match arriving backwards
    through the real broker. The box deleted each event when the broker acknowledged it, so an
    event the board refused would be gone for good: every one is stored and held until the ones
    before it arrive, with one log line when the gap opens and one when it is filled."""
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    t, events, _ = finished_match(broker.folder / "box")
    send_all(broker, "t1", events[::-1])
    assert wait_for(lambda: live_board.counts["stored"] == len(events))
    assert wait_for(lambda: live_board.snapshot()["tables"][0]["matches"][0]["events"] == len(events) - 1)
    (m,) = live_board.snapshot()["tables"][0]["matches"]
    assert m["score"] == t.match.state()["score"] and m["winner"] == t.match.state()["winner"]
    assert live_board.counts["refused"] == 0 and m["waiting"] == 0
    assert len(said(caplog, "stored and held")) == 1 and len(said(caplog, "gap is filled")) == 1


def test_held_events_are_bounded_and_the_matchs_record_brings_the_refused_back(broker, live_board, caplog,
                                                                               monkeypatch):
    """Issue 14 item 3: past MAX_HELD events waiting behind a gap, an out-of-order event is refused
    with a log line (the board's memory stays bounded); the match's record, which the box sends at
    the match's end and after every reconnect, brings every one of them back: lost 0."""
    import assistant.club.tables as tables_module
    monkeypatch.setattr(tables_module, "MAX_HELD", 5)
    t, events, record = finished_match(broker.folder / "box")
    send_all(broker, "t1", [events[0], *events[3:13]])  # 1 and 2 lost on the way
    assert wait_for(lambda: live_board.counts["refused"] == 5)
    refused = said(caplog, "refused a message")  # one kind of refusal, five times: one line
    assert len(refused) == 1 and all("out of order" in w and "record" in w for w in refused)
    assert live_board.counts["stored"] == 1 + 5
    send_all(broker, "t1", [record])
    assert wait_for(lambda: live_board.counts["stored"] == len(events))
    (m,) = live_board.snapshot()["tables"][0]["matches"]
    assert m["events"] == len(events) - 1 and m["score"] == t.match.state()["score"]


def test_a_record_out_of_order_and_a_stale_table_now_change_nothing(broker, live_board, caplog):
    """Issue 14 item 3: a record whose events are not its match's 0, 1, 2, ... is refused whole
    with a log line; a "table now" older than the one shown (a restarted board gets the retained
    one and the queued older ones) is skipped, so the page never goes back in time."""
    t, events, record = finished_match(broker.folder / "box")
    body = json.loads(record[1])
    body["events"][1], body["events"][2] = body["events"][2], body["events"][1]
    now = {"v": 1, "kind": "now", "table": "t1", "match": 1, "game": "towers", "seats": ["Ann", "Bob"],
           "state": {}, "t": 0}
    send_all(broker, "t1", [(record[0], json.dumps(body)),
                            ("club/c/t1/now", json.dumps(dict(now, n=7))),
                            ("club/c/t1/now", json.dumps(dict(now, n=5)))])
    assert wait_for(lambda: live_board.counts["refused"] == 1 and live_board.counts["stale"] == 1)
    assert live_board.counts["stored"] == 0 and live_board.now["t1"]["n"] == 7
    assert "out of order: a record" in said(caplog, "refused a message")[0]


def test_a_table_now_with_a_huge_number_never_freezes_the_live_view(broker, live_board):
    """Fault (the table password, leftover of the last session): anyone with a table's password
    could send one "table now" numbered past any match (action 10**18, match 2**62, or a journal
    the board never had), and every later one from the box was "older" and skipped: the table's
    live view froze for the night. A number no box sends is refused; a shown "table now" that no
    stored event backs holds back none that one does."""
    t, events, _ = finished_match(broker.folder / "box")
    first = json.loads(events[0][1])
    journal, mid = first.get("journal", ""), first["id"][1]
    now = {"v": 1, "kind": "now", "table": "t1", "match": mid, "game": "towers", "seats": ["Ann", "Bob"],
           "state": {}, "t": 0, **({"journal": journal} if journal else {})}
    topic = "club/c/t1/now"
    send_all(broker, "t1", events[:-1] + [(topic, json.dumps(dict(now, n=len(events) - 2)))])
    assert wait_for(lambda: live_board.now.get("t1", {}).get("n") == len(events) - 2)
    send_all(broker, "t1", [(topic, json.dumps(dict(now, n=10 ** 18))),
                            (topic, json.dumps(dict(now, match=2 ** 62, n=1)))])
    assert wait_for(lambda: live_board.counts["refused"] == 2)
    assert live_board.now["t1"]["n"] == len(events) - 2
    for forged in (dict(now, match=MAX_MATCH, n=MAX_N), dict(now, journal="f" * 16, n=len(events) + 5)):
        send_all(broker, "t1", [(topic, json.dumps(forged))])  # in range: shown, as the newest, until ...
        assert wait_for(lambda: live_board.now["t1"]["n"] == forged["n"])
        send_all(broker, "t1", [events[-1], (topic, json.dumps(dict(now, n=len(events) - 1)))])  # (again: kept once)
        assert wait_for(lambda: live_board.now["t1"]["n"] == len(events) - 1)  # ... the box's next one
    assert live_board.now["t1"]["match"] == mid and live_board.now["t1"]["journal"] == journal


def test_the_board_reads_its_password_from_a_file_never_from_its_command_line(broker, tmp_path):
    """Issue 14 item 3 (credentials never world-readable): `ps` shows every process's command line
    to every user, so the board's unit (systemd/card-assistant-board.service) gives the password
    as a file (a systemd credential); a missing or empty file is one plain line."""
    import subprocess
    import sys
    from assistant.club.broker import free_port, stop_process
    from assistant.club.club_sim import fetch
    secret = tmp_path / "board-password"
    secret.write_text(broker.passwords["board"] + "\n")
    port = free_port()
    cmd = [sys.executable, "-m", "assistant.cli", "board", "--broker", f"mqtt://board@127.0.0.1:{broker.port}",
           "--club", "c", "--db", str(tmp_path / "b.sqlite3"), "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--password-file", str(secret)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        def up():
            try:
                return fetch(port, 0.5)["subscribed"]
            except OSError:
                return False
        assert wait_for(up), "the board did not subscribe with the password from the file"
        assert broker.passwords["board"] not in " ".join(proc.args)
    finally:
        stop_process(proc)
    said = proc.stdout.read().decode()
    assert broker.passwords["board"] not in said
    # and it says where its page is (it printed nothing at all: a stranger could not tell it was up)
    assert f"board: serving http://127.0.0.1:{port}/ for the club c (broker 127.0.0.1:{broker.port})" in said
    for content, words in ((None, "does not exist"), ("", "is empty"), (b"\xff\xfe", "is not UTF-8")):
        bad = tmp_path / "bad"
        if content is None:
            bad.unlink(missing_ok=True)
        elif isinstance(content, bytes):
            bad.write_bytes(content)
        else:
            bad.write_text(content)
        res = subprocess.run([*cmd, "--password-file", str(bad)], capture_output=True, text=True, timeout=30)
        assert res.returncode == 2 and f"--password-file {bad} {words}" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr


def test_the_board_rebuilds_from_its_file_after_a_restart(tmp_path):
    """Issue 14 item 2: everything stored once; a restarted board computes the same from its file."""
    j, t, bot = bot_table(tmp_path, "towers", 11)
    play(t, bot, "towers", ("Ann", "Bob"))
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for _, topic, payload in j.outbox_rows(0, 100_000):
        board.receive(topic, payload.encode())
        board.receive(topic, payload.encode())  # sent twice: stored once
    first = board.snapshot()["tables"]
    board.close()
    again = Board(str(tmp_path / "b.sqlite3"), "c")
    assert again.snapshot()["tables"] == first
    assert first[0]["matches"][0]["score"] == t.match.state()["score"]


def test_undo_of_a_hidden_action_is_replayed_by_the_board(tmp_path):
    """Issue 14 item 2 (rebuild through the engines): an undone face-down trump, set again."""
    from assistant.rules.scenario import Action
    j, t, bot = bot_table(tmp_path, "twenty-nine", 3)
    t.new_match("twenty-nine", {}, seats=("Ann", "Bob", "Cat", "Dan"))
    m = t.match
    while m.engine.phase != "play":
        action = bot.next_action(m.engine)
        assert t.apply(action)
        if action.kind == "trump" and not any(a.kind == "undo" for a in m.actions):
            assert t.apply(Action("undo"))
            assert t.apply(action)
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for _, topic, payload in j.outbox_rows(0, 100_000):
        board.receive(topic, payload.encode())
    (bm,) = board.matches.values()
    assert bm.problem is None and bm.match.state() == m.state()


def test_club_in_a_box_with_chaos(tmp_path):
    """Issue 14 item 5: broker and board killed with SIGKILL, connections dropped; lost 0,
    doubled 0, and the board's scores equal every box's journal."""
    mosquitto_or_skip()
    from assistant.club.club_sim import run_club
    lines = []
    status, figures = run_club(3, 1, 2, chaos=True, out=lines.append, folder=tmp_path, pace=0.004)
    assert status == 0, lines
    assert figures["lost"] == 0 and figures["doubled"] == 0 and figures["mismatched"] == 0
    assert lines[-1].startswith("club: 3 tables, 1 matches each, events published ")
    assert ", lost 0, doubled 0; publish -> board p50 " in lines[-1]
    # the board ran as its service does: its password in a private file, not on its command line
    assert (tmp_path / "board-password").stat().st_mode & 0o777 == 0o600


def served_board(board):
    """The board's page on a free port, and a function that GETs a path of it as text."""
    import urllib.request
    from assistant.club.page import serve
    server = serve(board, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    return server, lambda path: urllib.request.urlopen(base + path, timeout=5).read().decode()


def page_of(board, path):
    """One page of the board, served for the one request."""
    server, get = served_board(board)
    try:
        return get(path)
    finally:
        server.shutdown()


def deliver(board, journal):
    """Every message of a box's outbox, straight to the board (no broker)."""
    for _, topic, payload in journal.outbox_rows(0, 100_000):
        board.receive(topic, payload.encode())


def test_the_club_page_shows_every_table_and_the_standings(tmp_path):
    """Issue 14 item 2: the page on the web stack: tables, one match with its chart, players."""
    import urllib.error
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    for name, game, seats in (("t1", "towers", ("Ann", "Bob")), ("t2", "twenty-nine", ("Ann", "Cat", "Dan", "Eve"))):
        j, t, bot = bot_table(tmp_path, game, 2, name=name)
        play(t, bot, game, seats)
        for _, topic, payload in j.outbox_rows(0, 100_000):
            board.receive(topic, payload.encode())
    server, get = served_board(board)
    try:
        home = get("/")
        assert "Table t1" in home and "Table t2" in home and "finished" in home
        match = get("/matches/t1/1")
        assert "<svg" in match and "Table t1, match 1" in match and "download" not in match
        players = get("/players")
        assert "Ann" in players and "Cat + Eve" in players
        assert json.loads(get("/api/club"))["standings"]["towers"]["players"]["Ann"]["played"] == 1
        with pytest.raises(urllib.error.HTTPError):
            get("/matches/t1/99")
    finally:
        server.shutdown()


def test_the_club_page_lets_a_silent_client_go_and_a_dropped_one_writes_no_traceback(tmp_path, capfd,
                                                                                     monkeypatch):
    """Faults (attack on the board's page): a client that reset its connection in the middle of
    its request wrote a 25-line traceback (ConnectionResetError) to the board's log, each time;
    a client that sent nothing held its thread for ever (the box's own page lets it go after 15 s).
    Now nothing is written, and the silent client is let go (TIMEOUT, made short here)."""
    import socket
    import struct
    import urllib.request
    from assistant.club import page
    monkeypatch.setattr(page, "TIMEOUT", 0.2)
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    server = page.serve(board, "127.0.0.1", 0)
    port = server.server_address[1]
    try:
        for request in (b"GET / HTTP/1.0\r\nHost: x", b"GET /api/club HTTP/1.0\r\n", b"GET /pla"):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(request)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()  # a reset, with the request half sent
        silent = socket.create_connection(("127.0.0.1", port))
        silent.settimeout(30)  # a hang guard only: the server closes it long before
        assert silent.recv(100) == b""  # let go, with no answer
        silent.close()
        answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/club", timeout=30)
        assert answer.status == 200 and "Python" not in answer.headers["Server"]
    finally:
        server.shutdown()
        board.close()
    assert capfd.readouterr().err == ""


def test_the_daemon_starts_the_publisher_from_the_club_section(broker, tmp_path):
    """Issue 14 item 1: a [club] section (config) is all a box needs to publish."""
    from assistant.box.config import from_dict
    from assistant.box.daemon import start_club
    cfg = from_dict({"club": {"broker": f"mqtt://127.0.0.1:{broker.port}", "club": "c", "table": "t1",
                              "password": broker.passwords["t1"]}})
    watcher, got = collect(broker, "board")
    j = Journal(str(tmp_path / "journal.sqlite3"))
    pub = start_club(cfg.club, j)
    try:
        Table(j, {}).new_match("towers", {}, seats=("Ann", "Bob"))
        assert wait_for(lambda: any(topic == "club/c/t1/events" for topic, _ in got))
        assert wait_for(pub.idle)
    finally:
        pub.stop()
        watcher.disconnect()
        watcher.loop_stop()
    assert start_club(from_dict({}).club, j) is None  # no broker: no club, no thread
    j.close()


def test_a_club_section_with_a_bad_broker_or_name_is_refused():
    """Issue 14 item 1: the config names the key, like every other config error."""
    from assistant.box.config import ConfigError, from_dict
    with pytest.raises(ConfigError, match=r"\[club\] broker"):
        from_dict({"club": {"broker": "http://x", "table": "t1"}})
    with pytest.raises(ConfigError, match=r"\[club\] table"):
        from_dict({"club": {"broker": "mqtt://x", "table": "a/b"}})


def test_the_board_says_once_when_the_broker_is_out_of_reach_and_once_when_it_is_back(broker, tmp_path, caplog):
    """Fault (attacker's report, item 2): the board said nothing while it could not reach the
    broker, and its page said only "No table has sent anything yet". Now one log line when the
    broker goes out of reach, one with a count when it is back (repeated.py), never one per retry,
    and the page says the board is not connected."""
    from assistant.club.page import club_page
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    assert "not connected to the broker" in club_page(board, [])
    stop = threading.Event()
    th = threading.Thread(target=run_board, args=(board, broker.url("board"), 0), kwargs={"stop": stop},
                          daemon=True)
    th.start()
    try:
        assert wait_for(lambda: board.subscribed and board.connected)
        assert "not connected" not in club_page(board, [])
        broker.stop()
        said = lambda: [r.getMessage() for r in caplog.records  # noqa: E731
                        if r.name == "assistant.club.board" and "board: serving" not in r.getMessage()]
        assert wait_for(lambda: not board.connected and any("broker" in m for m in said()))
        assert "not connected to the broker" in club_page(board, [])
        time.sleep(1.5)  # several retries (0.2 s, 0.4 s, 0.8 s): each one counted, none logged
        assert len(said()) == 1, said()
        broker.start()
        assert wait_for(lambda: board.connected and len(said()) == 2)
        assert "again" in said()[1] and " times in " in said()[1], said()
    finally:
        stop.set()
        th.join(5)
    assert not th.is_alive()


def test_the_board_page_of_a_match_in_play_says_neither_finished_nor_download(tmp_path):
    """Faults seen on a club night: the board's page of a match in play said "in play · started
    17:01 · finished 17:02" (the time of its latest event taken as its end) and "The scenario file
    can be downloaded when the match is over", which the board never offers; its header had the
    box's links (Now, Matches) to the same club page; on a phone each table's score broke word by
    word ("Ann + / Cleo 4 / – 0 / Bob + / Dev") and the start's date ran off the screen. Now the
    board's own links, a side a line and the date and time each unbroken, as a box's Matches."""
    import urllib.error
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    j, t, bot = bot_table(tmp_path, "twenty-nine", 2)
    t.new_match("twenty-nine", {}, seats=("Ann", "Bob", "Cat", "Dan"))
    for _ in range(40):  # the match is in play
        assert t.apply(bot.next_action(t.match.engine))
    for _, topic, payload in j.outbox_rows(0, 100_000):
        board.receive(topic, payload.encode())
    server, get = served_board(board)
    try:
        match = get("/matches/t1/1")
        assert "in play" in match and "finished" not in match and "scenario" not in match, match
        assert 'href="/">Tables</a>' in match and ">Now<" not in match and "Table t1, match 1" in match
        home = get("/")
        assert re.search(r'<span[^>]*><span class="nw">Ann \+</span> <span class="nw">Cat \d</span></span><br>'
                         r'<span[^>]*><span class="nw">Bob \+</span> <span class="nw">Dan \d</span></span>', home)
        assert re.search(r'<span class="nw"><span class="year">\d{4}-</span>\d\d-\d\d</span> <span class="nw">\d\d:\d\d</span> <span class="nw">[A-Z+0-9-]+</span>', home), home
        assert '<th class="wide">Winner</th>' in home and ">Now<" not in home
        players = get("/players")
        assert "Guests (a seat nobody tapped" in players and 'aria-current=page>Players' in players
        with pytest.raises(urllib.error.HTTPError) as e:
            get("/matches/t1/99")
        assert e.value.code == 404 and 'href="/">Tables</a>' in e.value.read().decode()
    finally:
        server.shutdown()
    board.close()


@pytest.mark.parametrize("started", [1e308, -1e308, 10 ** 30, 1e18])
def test_a_match_start_whose_time_no_calendar_holds_is_refused_and_the_page_stays_up(tmp_path, started):
    """Fault (attack on the club): a match start from one table whose time was a number no calendar
    holds (1e308, 10**30) was stored, and the board's page of every table then answered "the board
    could not draw this page" (OverflowError in its dates). Now such a start is refused in a line,
    like one whose time is not a number, and every page is drawn."""
    from assistant.club.page import club_page, records
    from assistant.web import pages
    board = Board(str(tmp_path / "b.sqlite3"), "c")
    good = {"v": 1, "kind": "start", "game": "towers", "seats": ["Ann", "Bob"], "options": {},
            "started": 1_700_000_000}
    board.receive("club/c/t1/events", json.dumps(dict(good, id=["t1", 1, 0], started=started)).encode())
    board.receive("club/c/t2/events", json.dumps(dict(good, id=["t2", 1, 0])).encode())
    board.receive("club/c/t2/events", json.dumps({"v": 1, "id": ["t2", 1, 1], "kind": "action",
                                                  "line": "flip JS", "hand": 0, "t": started}).encode())
    assert board.counts["refused"] == 1 and board.counts["stored"] == 2
    recs = records(board)
    assert "Table t2" in club_page(board, recs) and all(pages.match_page(r) for r in recs)
    board.close()


@pytest.mark.parametrize("club", ["a/#", "a+b", ""])
def test_a_board_club_name_that_is_no_topic_level_is_one_line(tmp_path, club):
    """Fault (attack on the board's command line): --club "a/#" or "a+b" started the board, then
    paho raised "Invalid subscription filter" in its network thread at the first connection (a
    traceback), which ended that thread: the board served its page for ever and heard nothing.
    Now it is refused at once, in one line, as a box's [club] club is."""
    import subprocess
    import sys
    from pathlib import Path
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "board", "--broker", "mqtt://board@127.0.0.1:1",
                           "--db", str(tmp_path / "b.sqlite3"), "--club", club],
                          cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "--club" in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "b.sqlite3").exists()
