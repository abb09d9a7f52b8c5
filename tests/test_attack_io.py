"""Faults an attack on the box's inputs found (the state folder given at start, the serial line,
the web page, the club): the real `card-assistant` commands as subprocesses. Each test names the
fault and what it did before."""
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0  # seconds: a guard against a hang only


def start_box(tmp_path, state_dir, config="", **environ):
    """`card-assistant run` (MockFactory pins, luma's dummy display, no reader) on ``state_dir``,
    with ``config`` added to its config file and ``environ`` to its environment; returns the process
    and the notify socket that gets READY=1 once the first frame is shown."""
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[display]\ndriver = "dummy"\n[reader]\ndevice = "{tmp_path / "no-reader"}"\n{config}')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(HANG)
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock", NOTIFY_SOCKET=str(tmp_path / "notify"),
               PYTHONPATH=str(ROOT))
    for key in ("WATCHDOG_USEC", "WATCHDOG_PID", "RUNTIME_DIRECTORY", "CARD_ASSISTANT_DEBUG"):
        env.pop(key, None)
    env.update(environ)
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "run", "--config", str(cfg),
                             "--state-dir", str(state_dir)], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc, notify


def ready_then_stopped(proc, notify):
    """Wait for the box's READY=1, check that it runs on, stop it (SIGTERM); its standard error."""
    try:
        while "READY=1" not in notify.recv(4096).decode().split("\n"):
            pass
        assert proc.poll() is None  # it runs on
        proc.send_signal(signal.SIGTERM)
        return proc.communicate(timeout=HANG)[1]
    finally:
        notify.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("where", ["a file", "a folder under a file"])
def test_a_state_folder_that_cannot_hold_the_journal_is_one_line_at_start(tmp_path, where):
    """Fault (known since the last attack): `card-assistant run` on a state folder that is a file
    logged three true lines about it: the deck cannot be read (Not a directory), the state folder
    is not a folder, and the web page's screen cannot be written. Now the one about the folder;
    the box shows why and keeps running (no restart loop), as before."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder\n")
    state = blocker if where == "a file" else blocker / "state"
    proc, notify = start_box(tmp_path, state)
    err = ready_then_stopped(proc, notify)
    about = [line for line in err.splitlines() if str(blocker) in line]
    assert len(about) == 1 and about[0].startswith("ERROR card-assistant: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert blocker.read_text() == "not a folder\n"  # nothing changed


def journal_of(path, game, seats, options, lines):
    from assistant.box.journal import Journal
    from assistant.rules.scenario import parse_action
    j = Journal(str(path))
    j.new_match(game, seats, options)
    for n, line in enumerate(lines, 1):
        j.append(parse_action(line.split(), game, seats, n), seats)
    j.close()


def test_a_journal_replaced_under_the_web_page_never_serves_a_match_in_play(tmp_path):
    """Fault (attack on the web page): the page kept each match's record by its id and row count.
    With the journal replaced (restored, moved in) by one whose match 1 is in play with a face-down
    trump and as many rows as the finished match 1 it replaced, the page still called it finished
    and served its scenario download, trump card and all. Now a journal opened anew keeps no
    record of the last one, and the download is refused unless the very lines it is made of end
    the match."""
    from assistant.rules.scenario import read_header
    from test_web_faults import Web
    sc = read_header((ROOT / "tests/scenarios/twenty-nine/N9-first-to-six.scn").read_text().splitlines())
    finished = [" ".join(tokens) for _, tokens in sc.body]
    k = next(i for i, line in enumerate(finished) if line.startswith("trump ")) + 1
    in_play = finished[:k]  # the trump card is face down: then a play taken back, over and over
    while len(in_play) < len(finished) - 1:
        in_play += [finished[k], "undo"]
    in_play += finished[k:k + len(finished) - len(in_play)]
    assert len(in_play) == len(finished)
    trump = finished[k - 1]
    journal_of(tmp_path / "journal.sqlite3", sc.game, sc.seats, sc.options, finished)
    (tmp_path / "other").mkdir()
    journal_of(tmp_path / "other" / "journal.sqlite3", sc.game, sc.seats, sc.options, in_play)
    web = Web(tmp_path)
    try:
        assert '"state": "finished"' in web.get("/api/matches")[2]  # the page has read match 1 finished
        for name in os.listdir(tmp_path / "other"):
            os.replace(tmp_path / "other" / name, tmp_path / name)
        status, _, text = web.get("/api/matches/1/scenario")
        assert status == 409 and trump.split()[-1] not in text, text
        assert '"state": "in play"' in web.get("/api/matches")[2]
    finally:
        web.stop()


def test_more_clients_than_the_page_serves_at_once_get_a_plain_503_and_no_traceback(tmp_path):
    """Fault (attack on the web page): every connection got a thread of its own, with no limit, and
    a client may hold one by sending nothing for up to 15 s, or a byte now and then for ever: a few
    hundred idle connections from the club's Wi-Fi ran the process out of threads (a 32-bit Pi's
    address space holds about 350), and each one after that wrote a traceback ("can't start new
    thread") to the log while the page answered nobody. Now at most MAX_CLIENTS are served at once;
    the next get a plain 503 line at once, with no thread, and the log says so once, and once when
    it is over."""
    from assistant.web.serving import MAX_CLIENTS, MAX_PER_ADDRESS
    from test_stats import write_journal
    from test_web_faults import Web
    write_journal(tmp_path)
    web = Web(tmp_path)
    idle = []
    try:
        for n in range(MAX_CLIENTS):  # from as many addresses as it takes (one has only its share)
            s = connect_from(f"127.0.0.{2 + n // MAX_PER_ADDRESS}", web.port)
            s.sendall(b"GET / HTTP/1.1\r\n")  # and no more: it holds its thread
            idle.append(s)
        extra = connect_from("127.0.0.200", web.port)  # answered unasked
        answer = b""
        while chunk := extra.recv(4096):
            answer += chunk
        extra.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 503 ") and body == b"too many clients at once: try again in a few seconds\n"
        for s in idle:
            s.close()
        idle = []
        while True:  # the idle clients' threads end as their connections close
            try:
                status = web.get("/api/now")[0]
            except ConnectionError:
                continue
            if status == 200:
                break
            assert status == 503
    finally:
        for s in idle:
            s.close()
        err = web.stop()
    assert "Traceback" not in err
    said = err.splitlines()[1:]
    assert len(said) == 2 and f"{MAX_CLIENTS} connections at once" in said[0] and "fewer than" in said[1], err


@contextlib.contextmanager
def page_server(tmp_path, page):
    """The box's web page ("box", on an empty state folder) or the club board's ("board"),
    serving on a port of its own until the block ends."""
    if page == "box":
        from assistant.web.server import make_server
        (tmp_path / "state").mkdir()
        server = make_server(str(tmp_path / "state"), "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        board = None
    else:
        from assistant.club.board import Board
        from assistant.club.page import serve
        board = Board(str(tmp_path / "b.sqlite3"), "c")
        server = serve(board, "127.0.0.1", 0)
    try:
        yield server
    finally:
        server.shutdown()
        if board is not None:
            board.close()


def connect_from(address, port):
    """A connection to the page on 127.0.0.1 from ``address`` (any of 127.0.0.0/8: another client)."""
    s = socket.socket()
    s.settimeout(HANG)
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    return s


@pytest.mark.parametrize("page", ["box", "board"])
def test_one_client_keeping_many_connections_alive_leaves_room_for_the_others(tmp_path, page, caplog):
    """Fault (attack on the web page): one phone opening MAX_CLIENTS connections and sending a
    whole request on each every few seconds (no slow request for the 15 s or 30 s limits to let
    go) held every slot, and every other visitor got 503 for as long as it went on (measured: 128
    connections, a request on each every 4 s, the page 503 to a new visitor after 20 s). Now one
    address holds at most MAX_PER_ADDRESS: its next connections get the plain 503 line at once,
    said once in the log, and another address is answered, on the box's page and the board's."""
    with page_server(tmp_path, page) as server:
        _one_address_share(server, caplog)


def _one_address_share(server, caplog):
    from assistant.web.serving import MAX_CLIENTS, MAX_PER_ADDRESS
    port = server.server_address[1]
    held = []
    try:
        for _ in range(MAX_CLIENTS):  # each holds its thread, as between two requests of a keep-alive
            s = connect_from("127.0.0.1", port)
            s.sendall(b"GET /static/style.css HTTP/1.1\r\n")
            held.append(s)
        visitor = connect_from("127.0.0.2", port)  # accepted after them all: they were answered first
        assert b" 200 OK" in read_all(visitor, b"GET /static/style.css HTTP/1.0\r\n\r\n").split(b"\r\n")[0]
        import select
        answered = {s for s in held if select.select([s], [], [], 0)[0]}  # their 503 came before the 200
        for s in answered:
            answer = read_all(s, b"")
            assert answer.startswith(b"HTTP/1.0 503 ") and answer.endswith(b"too many clients at once: try "
                                                                           b"again in a few seconds\n"), answer
        assert len(answered) == MAX_CLIENTS - MAX_PER_ADDRESS
        for s in held:
            if s not in answered:  # its share: served once it has sent its request
                assert b" 200 OK" in read_all(s, b"Connection: close\r\n\r\n").split(b"\r\n")[0]
        said = [r.getMessage() for r in caplog.records if r.name == "card-assistant.web"]
        assert said == [f"{server.name}: {MAX_PER_ADDRESS} connections at once from 127.0.0.1: more from it are "
                        "answered 503 at once until one leaves (logged once until it ends)"], said
    finally:
        for s in held:
            s.close()


def read_all(s, request):
    """Send ``request`` on ``s`` (if any), then read until the page closes it."""
    if request:
        s.sendall(request)
    answer = b""
    while chunk := s.recv(65536):
        answer += chunk
    return answer


def raw_answer(port, request):
    s = socket.create_connection(("127.0.0.1", port), timeout=HANG)
    s.sendall(request)
    answer = b""
    while chunk := s.recv(4096):
        answer += chunk
    s.close()
    return answer


@pytest.mark.parametrize("request_", [b"\x00\xff garbage\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                                      b"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                      b"GET / HTTP/1.1\r\n" + b"X: a\r\n" * 200 + b"\r\n"])
def test_a_request_the_standard_library_refuses_gets_one_plain_line(tmp_path, request_):
    """Fault (attack on the web page): a garbled request, a method it does not take, too many
    headers: each was answered with the standard library's 14-line HTML error page, unlike every
    other answer of the page (one plain line). Now one plain line too; the board's page likewise."""
    from test_stats import write_journal
    from test_web_faults import Web
    write_journal(tmp_path)
    web = Web(tmp_path)
    try:
        answer = raw_answer(web.port, request_)
    finally:
        err = web.stop()
    head, _, body = answer.rpartition(b"\r\n\r\n") if b"\r\n\r\n" in answer else (b"", b"", answer)
    assert body.count(b"\n") == 1 and body.endswith(b"\n") and b"<" not in body, answer
    assert b"text/html" not in head and "Traceback" not in err


def board_answer(board, request):
    """The board's page's raw answer to ``request``; the board is closed after."""
    from assistant.club.page import serve
    server = serve(board, "127.0.0.1", 0)
    try:
        return raw_answer(server.server_address[1], request)
    finally:
        server.shutdown()
        board.close()


def test_the_board_page_refuses_a_method_in_one_plain_line(tmp_path):
    from assistant.club.board import Board
    answer = board_answer(Board(str(tmp_path / "b.sqlite3"), "c"), b"POST / HTTP/1.0\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 405 ") and body == b"405 this page is read-only: GET and HEAD only\n", answer


def test_a_journal_replaced_while_the_box_writes_is_read_anew_by_the_web_page(tmp_path):
    """Fault (attack on the web page): with a -wal beside the journal (the box running) the page
    kept its connection to the file it first opened; once the journal was replaced (the box's
    repair at its next start, a restored copy) it showed the old file's matches for ever, and
    never one the box wrote after, until the page was restarted. Now it opens the new file."""
    from assistant.box.journal import Journal
    from test_web_faults import Web
    old = Journal(str(tmp_path / "journal.sqlite3"))
    old.new_match("towers", ("Ann", "Bob"), {})
    assert (tmp_path / "journal.sqlite3-wal").exists()  # as while the box runs
    web = Web(tmp_path)
    try:
        assert '"Ann"' in web.get("/api/matches")[2]
        (tmp_path / "new").mkdir()
        new = Journal(str(tmp_path / "new" / "journal.sqlite3"))
        new.new_match("towers", ("Cat", "Dan"), {})
        new.close()
        old.close()
        for name in ("journal.sqlite3-wal", "journal.sqlite3-shm"):  # the old file's, as a repair does
            (tmp_path / name).unlink(missing_ok=True)
        os.replace(tmp_path / "new" / "journal.sqlite3", tmp_path / "journal.sqlite3")
        box = Journal(str(tmp_path / "journal.sqlite3"))  # the box goes on, in the new file
        box.new_match("towers", ("Eve", "Fay"), {})
        try:
            matches = web.get("/api/matches")[2]
        finally:
            box.close()
        assert '"Ann"' not in matches and '"Cat"' in matches and '"Eve"' in matches, matches
    finally:
        web.stop()


@pytest.mark.parametrize("usec", ["9" * 5000, "9" * 400, "²"])
def test_a_watchdog_interval_no_clock_holds_is_one_line_and_the_box_runs(tmp_path, usec):
    """Fault (attack on the environment systemd passes): WATCHDOG_USEC of more than 4,300 digits
    (or of more than 308, too big for a float) stopped `card-assistant run` at start with "internal
    error (ValueError)", exit 70, and systemd restarted it in a loop; other digits ('²') were
    ignored without a word. Now it is one line, and the box runs without a watchdog to feed."""
    proc, notify = start_box(tmp_path, tmp_path / "state", WATCHDOG_USEC=usec)
    err = ready_then_stopped(proc, notify)
    assert proc.returncode == 0, err
    about = [line for line in err.splitlines() if "WATCHDOG_USEC" in line]
    assert len(about) == 1 and len(about[0]) < 200 and "Traceback" not in err, err


def test_a_watchdog_interval_shorter_than_the_loop_can_keep_is_one_line_not_a_spin(tmp_path):
    """Fault (attack on the environment systemd passes): WATCHDOG_USEC=1 was taken as it is: the
    box's loop pinged every half microsecond, waited that long for an event, and spun, sending
    systemd about 4,000 WATCHDOG=1 datagrams a second and keeping a core busy. Now a watchdog under
    MIN_WATCHDOG is one line and pinged every MIN_WATCHDOG / 2 seconds."""
    import time
    from assistant.hw.notify import MIN_WATCHDOG
    proc, notify = start_box(tmp_path, tmp_path / "state", WATCHDOG_USEC="1")
    try:
        while "READY=1" not in notify.recv(4096).decode():
            pass
        pings, end = 0, time.monotonic() + 0.5
        notify.settimeout(0.05)
        while time.monotonic() < end:
            try:
                pings += notify.recv(4096) == b"WATCHDOG=1"
            except TimeoutError:
                pass
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=HANG)[1]
    finally:
        notify.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert pings <= 0.5 / (MIN_WATCHDOG / 2) + 2, pings
    about = [line for line in err.splitlines() if "WATCHDOG_USEC" in line]
    assert proc.returncode == 0 and len(about) == 1 and "Traceback" not in err, err


def command(tmp_path, *args):
    """``card-assistant ARGS`` to its end: (exit status, standard error's lines, standard error)."""
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=HANG, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return proc.returncode, proc.stderr.strip().splitlines(), proc.stderr


BAD_HOSTS = ["ü..x", "x..y", "a" * 64 + ".lan", "a" * 300]


@pytest.mark.parametrize("host", BAD_HOSTS)
@pytest.mark.parametrize("where", ["web --host", "web [web] host", "board --host", "board --broker"])
def test_a_host_no_socket_takes_is_one_line_at_start(tmp_path, where, host):
    """Fault (attack on the command lines and the config): a host name with an empty label or one
    longer than 63 characters ('broker..lan', a doubled dot) is refused by the socket library's
    name encoding, not as an OSError: `card-assistant web --host 'ü..x'` (or the config's [web]
    host) and `card-assistant board --host 'ü..x'` stopped with "internal error (TypeError)", and
    `board --broker mqtt://board@broker..lan` printed a traceback from paho's network thread, which
    that ended: the board served its page for ever and never connected. Now each is one line at
    start, exit 2; the box's [club] broker likewise."""
    (tmp_path / "state").mkdir()
    (tmp_path / "pw").write_text("secret\n")
    board = ["board", "--password-file", str(tmp_path / "pw"), "--db", str(tmp_path / "b.sqlite3"), "--port", "0"]
    args = {"web --host": ["web", "--state-dir", str(tmp_path / "state"), "--port", "0", "--host", host],
            "web [web] host": ["web", "--state-dir", str(tmp_path / "state"), "--port", "0", "--config",
                               str(tmp_path / "config.toml")],
            "board --host": [*board, "--broker", "mqtt://board@127.0.0.1:1", "--host", host],
            "board --broker": [*board, "--broker", f"mqtt://board@{host}:1883"]}[where]
    (tmp_path / "config.toml").write_text(f'[web]\nenabled = true\nhost = "{host}"\n')
    status, lines, err = command(tmp_path, *args)
    assert status == 2 and len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    assert ("host" in lines[0] or "broker" in lines[0]) and "secret" not in err
    assert not (tmp_path / "b.sqlite3").exists()


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_a_club_broker_whose_host_no_socket_takes_is_refused_by_the_config(host):
    """Fault (attack on the config, as above): a [club] broker whose host the sockets' IDNA codec
    refuses ('broker..lan') was taken, and the box's publisher could never reach it (the name fails
    inside the socket library, every try); now the config refuses it in one line, without the URL's
    password."""
    from assistant.box.config import ConfigError, from_dict
    with pytest.raises(ConfigError) as e:
        from_dict({"club": {"broker": f"mqtt://t1:secret@{host}:1883", "table": "t1"}})
    assert "host" in str(e.value) and "secret" not in str(e.value) and host not in str(e.value)


def test_two_boxes_with_one_table_name_are_said_once_and_back_off(tmp_path, caplog):
    """Fault (attack on the club: a box claiming another table's name, as an SD card copied to a
    second box does): the two boxes have one client id, so the broker closed the older connection
    as each connected; each reconnected 0.2 s later, its backoff reset since it had been connected,
    and sent its status and its two latest records anew: 35 connections in 6 s, for ever, with not
    one log line on either box (only the broker's log, filling with 'already connected'). Now a
    connection the broker closes within seconds keeps the backoff growing (to 5 s), and three in a
    row are said once on each box, naming the table; once the other box is gone, the box stays
    connected and its outbox empties: nothing is lost."""
    import logging
    sys.path.insert(0, str(ROOT / "tests"))
    from test_club import bot_table, mosquitto_or_skip, play, wait_for
    from assistant.club.broker import Broker
    from assistant.club.publisher import Publisher
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club")
    broker = Broker(tmp_path / "broker", "c", ["t1"], persistence=False).start()
    boxes = []
    try:
        for name, seed, seats in (("a", 4, ("Ann", "Bob")), ("b", 5, ("Cat", "Dan"))):
            j, t, bot = bot_table(tmp_path / name, "towers", seed)
            play(t, bot, "towers", seats)
            boxes.append(Publisher(j, j.outbox, broker.url("t1")))
        for pub in boxes:
            pub.start()
        said = lambda: [r.getMessage() for r in caplog.records if "another box's [club] table t1" in r.getMessage()]  # noqa: E731
        assert wait_for(lambda: len(said()) == 2, timeout=HANG), [r.getMessage() for r in caplog.records]
        assert all(pub.taken.active for pub in boxes)  # once each: the next are counted
        boxes[1].stop()
        assert wait_for(boxes[0].idle, timeout=HANG)
        assert len(said()) == 2
    finally:
        for pub in boxes:
            pub.stop()
        broker.stop()


def test_a_frames_folder_that_takes_no_file_is_one_line_and_the_sim_plays_on(tmp_path):
    """Fault (attack on the simulator's command line): `card-assistant sim --bots --frames DIR` with
    a folder that takes no file (/proc here; a full or read-only card alike) hung for ever without
    a word: the first frame's PNG failed to save, which the display took for a screen that stopped
    answering, so no frame was shown again and the bots waited for one. Now saving frames stops
    with one line, and the match is played to its end."""
    status, lines, err = command(tmp_path, "sim", "--bots", "--matches", "1", "--seed", "3", "--frames", "/proc",
                                 "--state-dir", str(tmp_path / "state"))
    about = [line for line in lines if "/proc" in line]
    assert status == 0 and len(about) == 1 and "Traceback" not in err, err


def test_a_card_tag_in_the_players_file_is_one_line_and_stays_a_card(tmp_path, caplog):
    """Fault (attack on the players and deck files): `players add` refuses a card's tag, but
    `enroll` never looks at players.txt, so a tag enrolled as a player first and as a card after
    (a spare card used as a player tag, then stuck on the pack) or a file edited by hand left the
    tag in both: the box said nothing at start, and in play that card was "Ann's player tag, not
    a card" for ever, a card of the pack no one could play. Now the box says so in one line at
    start (naming the player and the tag, never the card) and the tag is the card."""
    import logging
    from assistant.box.config import Game
    from assistant.box.daemon import open_table
    from assistant.box.deck import load_deck, save_deck
    from assistant.box.players import save_players
    from assistant.hw.events import ButtonPressed, TagArrived
    from assistant.rules.cards import TWENTY_NINE_PACK, parse_card
    deck = {f"04{c:012X}": c for c in TWENTY_NINE_PACK}
    js = f"04{parse_card('JS'):012X}"
    save_deck(deck, tmp_path / "deck.txt")
    save_players({js: "Ann", "04AA000000000B": "Bo"}, tmp_path)
    caplog.set_level(logging.INFO)
    table = open_table(str(tmp_path), load_deck(tmp_path / "deck.txt"), Game(), ("P1", "P2", "centre"))
    try:
        about = [r.getMessage() for r in caplog.records if js in r.getMessage()]
        assert len(about) == 1 and "Ann" in about[0] and "JS" not in about[0], about
        assert table.players == {"04AA000000000B": "Bo"}
        table.handle(ButtonPressed("ok"))  # Towers: each seat taps a player tag
        table.handle(TagArrived(1, js))  # not Ann: a card, refused while the seats are taken
        assert table.match is None
        table.handle(TagArrived(1, "04AA000000000B"))  # Bo
        table.handle(ButtonPressed("ok"))  # a guest
        assert table.match.seats == ("Bo", "P2")
        table.handle(TagArrived(1, js))  # the flip: a card, not a player's tag
        assert table.alert is None or "player tag" not in table.alert.text
        assert [a.kind for a in table.match.actions] == ["flip"]
    finally:
        table.journal.close()


@pytest.mark.parametrize("ca", ["no certificate", "a folder", "missing"])
def test_a_ca_file_that_holds_no_certificate_is_named_in_one_line(tmp_path, caplog, ca):
    """Fault (attack on the config and the board's command line): a [club] cafile that is no CA
    certificate (a key or a text file given by mistake, a folder, a path mistyped) was never named:
    the box logged "broker not reached (SSLError)" (or IsADirectoryError, FileNotFoundError) at
    info level and retried for ever, sending the owner to the Wi-Fi; `board --cafile` with a file
    that holds no certificate said "cannot serve on port 8030: [X509: NO_CERTIFICATE_OR_CRL_FOUND]".
    Now each names the CA file in one line; the box publishes nothing, and its actions wait in
    its journal's outbox until the file is fixed."""
    import logging
    from assistant.box.config import from_dict
    from assistant.box.daemon import start_club
    from assistant.box.journal import Journal
    from assistant.box.table import Table
    path = {"no certificate": tmp_path / "key.pem", "a folder": tmp_path, "missing": tmp_path / "ca.pem"}[ca]
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    cfg = from_dict({"club": {"broker": "mqtts://t1:secret@127.0.0.1:1", "table": "t1", "cafile": str(path)}})
    caplog.set_level(logging.INFO)
    j = Journal(str(tmp_path / "journal.sqlite3"))
    try:
        pub = start_club(cfg.club, j)
        assert pub is None and j.outbox is not None
        Table(j, {}).new_match("towers", {}, seats=("Ann", "Bob"))
        assert j.outbox_rows(0, 10)  # kept for when the file is fixed
    finally:
        j.close()
    said = [r.getMessage() for r in caplog.records if r.name.startswith(("assistant.club", "card-assistant"))]
    assert len(said) == 1 and str(path) in said[0] and "cafile" in said[0] and "secret" not in said[0], said
    status, lines, err = command(tmp_path, "board", "--broker", "mqtts://board@127.0.0.1:1", "--password-file",
                                 str(tmp_path / "key.pem"), "--db", str(tmp_path / "b.sqlite3"), "--port", "0",
                                 "--cafile", str(path))
    assert status == 2 and len(lines) == 1 and "--cafile" in lines[0] and "port" not in lines[0], err


@pytest.mark.parametrize("where", ["now", "event", "file"])
def test_nan_or_infinity_in_a_club_message_is_refused_and_api_club_stays_json(tmp_path, where):
    """Fault (attack on the club board): Python's json reads NaN and Infinity, which are no JSON; a
    "table now" or an event holding one (its "t", its "score") was taken, stored, and written back
    out by /api/club as NaN, so every program reading the board's JSON (a browser's JSON.parse)
    failed on it from then on, also after a restart (the event is in the board's file). Now such a
    message is refused in one line like any message that is not JSON, a row of an older board's file
    holding one is skipped, and /api/club is JSON."""
    import json
    import sqlite3
    from assistant.club.board import Board
    start = {"v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers", "seats": ["Ann", "Bob"],
             "options": {}, "started": 1.7e9, "t": 1.7e9}
    flip = {"kind": "action", "line": "flip P1 JS", "hand": 1, "score": [0, float("inf")]}
    bad = {"now": ("club/c/t1/now", b'{"v": 1, "table": "t1", "match": 1, "n": 1, "t": NaN}'),
           "event": ("club/c/t1/events", json.dumps({"v": 1, "id": ["t1", 1, 1], **flip}).encode()),
           "file": None}[where]
    db = str(tmp_path / "b.sqlite3")
    if where == "file":  # as an older board stored it (its file, before events named the box's journal)
        from test_club_night import OLDER_BOARD
        c = sqlite3.connect(db)
        with c:
            c.executescript(OLDER_BOARD)
            c.executemany("INSERT INTO events VALUES ('t1', 1, ?, ?, NULL, 0)",
                          [(0, json.dumps(start)), (1, json.dumps(flip))])
        c.close()
    board = Board(db, "c")
    board.receive("club/c/t1/events", json.dumps(start).encode())
    if where != "file":
        board.receive(*bad)
        assert board.counts["refused"] == 1
    head, _, body = board_answer(board, b"GET /api/club HTTP/1.0\r\n\r\n").partition(b"\r\n\r\n")

    def strict(constant):
        raise ValueError(f"{constant} is no JSON")
    club = json.loads(body, parse_constant=strict)
    assert head.startswith(b"HTTP/1.0 200") and club["counts"]["stored"] == 1, club


@pytest.mark.parametrize("page", ["box", "board"])
def test_a_request_trickling_in_a_byte_at_a_time_is_let_go(tmp_path, page, monkeypatch):
    """Fault (attack on the web page, slowloris): the 15 s limit counted from the client's last
    byte, so a client sending one byte of its headers every few seconds held its thread for ever,
    and MAX_CLIENTS such clients from one phone on the club's Wi-Fi closed the page (503) to
    everyone for as long as they went on. Now a request line and headers that take longer than
    ``request_time`` seconds (30; 1 here) end the connection, however they trickle in, on the
    box's page and the board's alike."""
    import time
    from assistant.web.serving import PlainErrors
    monkeypatch.setattr(PlainErrors, "request_time", 1, raising=False)
    with page_server(tmp_path, page) as server:
        s = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=HANG)
        s.settimeout(0.3)
        closed, sent, start = False, 0, time.monotonic()
        while not closed and time.monotonic() - start < HANG:
            try:
                s.sendall(b"GET / HTTP/1.1\r\nX-Slow: " if sent == 0 else b"a")
                sent += 1
                closed = s.recv(4096) == b""
            except socket.timeout:
                continue
            except OSError:  # reset: closed as well
                closed = True
        s.close()
        assert closed, f"still held after {sent} bytes"
        status = http_status(server.server_address[1])
        assert status == 200


def http_status(port):
    import http.client
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    c.request("GET", "/")
    status = c.getresponse().status
    c.close()
    return status


@pytest.mark.parametrize("state_dir", ["", "state", "./var"])
def test_a_state_folder_in_the_config_that_is_not_absolute_is_one_line_and_makes_nothing(tmp_path, state_dir):
    """Fault (attack on the config): [paths] state_dir = "" (a template's value left empty) or a
    relative path was taken as a folder under wherever the box was started: `card-assistant run`
    wrote its journal into the current folder without a word (under systemd, its working folder,
    / by default) and a start from another folder began an empty journal, its matches out of
    sight. Now it is one line at start, exit 2, and nothing is made."""
    (tmp_path / "cwd").mkdir()
    (tmp_path / "config.toml").write_text(f'[display]\ndriver = "dummy"\n[paths]\nstate_dir = "{state_dir}"\n')
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "run", "--config", str(tmp_path / "config.toml")],
                          cwd=tmp_path / "cwd", capture_output=True, text=True, timeout=HANG,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), GPIOZERO_PIN_FACTORY="mock"))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "state_dir" in lines[0], proc.stderr
    assert list((tmp_path / "cwd").iterdir()) == []


def test_a_reader_port_that_opens_and_never_answers_is_said_in_the_log(tmp_path):
    """Fault (attack on the serial line: a port that is there but is no card reader, such as the
    Pi's own UART in [reader] device, or a Pico without the firmware): the box opened it, showed
    "card reader not answering" on the OLED after 5 s of silence, and its log said nothing at all,
    then or later: journalctl had no word about the reader. Now the silence is one log line, and
    the first good line after it another."""
    import os as _os
    import queue
    import threading
    import tty
    from assistant.hw.protocol import frame
    master, slave = _os.openpty()
    tty.setraw(slave)
    link = tmp_path / "card-reader"
    link.symlink_to(_os.ttyname(slave))
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[display]\ndriver = "dummy"\n[reader]\ndevice = "{link}"\n')
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "run", "--config", str(cfg), "--state-dir",
                             str(tmp_path / "state")], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()

    def next_line(about):
        while True:
            try:
                line = lines.get(timeout=HANG)
            except queue.Empty:
                raise AssertionError(f"no line about {about!r}") from None
            if about in line or "Traceback" in line:
                return line
    try:
        said = next_line("not answer")
        assert str(link) in said and "Traceback" not in said, said
        _os.write(master, frame(0, "HELLO card-reader 1 boot=abcd pads=4"))
        again = next_line("answer")
        assert "reader" in again and "not answer" not in again, again
    finally:
        proc.terminate()
        proc.wait(HANG)
        _os.close(master)
        _os.close(slave)


def test_two_boards_of_one_club_are_said_once_not_twice_a_flap(tmp_path, caplog):
    """Fault (attack on the club: a second board started beside the service, to try it): both
    have the client id board-CLUB, so the broker closed one as the other connected, five times a
    second, for ever, and each board wrote 'lost the broker' and 'connected again' every time: 100
    warnings in 10 s (journald's rate limit then drops the rest of the log). Now three short
    connections in a row are said once, naming the likely cause, nothing more is logged for
    them, and the board retries every 5 s."""
    import logging
    import threading
    sys.path.insert(0, str(ROOT / "tests"))
    from test_club import mosquitto_or_skip, wait_for
    from assistant.club.board import Board
    from assistant.club.board_run import run_board
    from assistant.club.broker import Broker
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    broker = Broker(tmp_path / "broker", "c", ["t1"], persistence=False).start()
    stop, boards, threads = threading.Event(), [], []
    try:
        for i in range(2):
            boards.append(Board(str(tmp_path / f"b{i}.sqlite3"), "c"))
            threads.append(threading.Thread(target=run_board, args=(boards[i], broker.url("board"), 0, "127.0.0.1",
                                                                     None, stop), daemon=True))
            threads[i].start()
        said = lambda: [r for r in caplog.records if "another board of club c" in r.getMessage()]  # noqa: E731
        assert wait_for(lambda: len(said()) == 2, timeout=HANG), [r.getMessage() for r in caplog.records][-6:]
    finally:
        stop.set()
        for t in threads:
            t.join(HANG)
        for b in boards:
            b.close()
        broker.stop()
    flaps = [r for r in caplog.records if "lost the broker" in r.getMessage() or "again" in r.getMessage()]
    assert len(flaps) <= 2 * 2 * 3, [r.getMessage() for r in flaps]
    assert len(said()) == 2


def test_a_journal_the_box_is_just_making_is_no_match_yet_on_the_web_page(tmp_path):
    """Fault (attack on the web page, requests while the box makes its journal): between the
    moment SQLite creates the file and the one its tables are in it (a box's first start, a
    repair's new journal), the page answered every request 503 "The journal cannot be read now;
    the box repairs it at its next start" and logged that the journal could not be read (no such
    table: matches): seen 26 times in a row while `sim` began a journal under a busy page. A file
    with no table yet is a journal being made: no match yet, and nothing logged."""
    from test_web_faults import Web
    (tmp_path / "journal.sqlite3").write_bytes(b"")  # as SQLite leaves it before the first write
    web = Web(tmp_path)
    try:
        now = web.get("/api/now")
        matches = web.get("/api/matches")
        page = web.get("/matches")
    finally:
        err = web.stop()
    assert now[0] == 200 and "No match in the journal yet." in now[2], now
    assert matches[:1] == (200,) and matches[2] == "[]" and page[0] == 200
    assert err.count("\n") == 1, err  # only the line that says where it serves


@pytest.mark.parametrize("wrong", ["table", "club"])
def test_messages_the_broker_refuses_stay_in_the_outbox_and_are_said_once(tmp_path, caplog, wrong):
    """Fault (attack on the club: a box whose [club] table or club is not one its broker account may
    write, as a config copied to a second box with only the table changed, or 'Club' for 'club'):
    under MQTT 3.1.1 the broker acknowledges a message its ACL refuses and drops it, so the box
    deleted every outbox row as sent: 338 acknowledged, 0 at the board, not one log line, and the
    events gone from the outbox for good (only the two latest matches' records are ever sent
    again). The box now speaks MQTT 5, whose acknowledgement says 'Not authorized': such a row
    stays in the journal's outbox for the next connection, and the refusal is said once."""
    import logging
    import time
    sys.path.insert(0, str(ROOT / "tests"))
    from test_club import bot_table, collect, mosquitto_or_skip, play, wait_for
    from assistant.club.broker import Broker
    from assistant.club.publisher import Publisher
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club")
    broker = Broker(tmp_path / "broker", "c", ["t1", "t2"], persistence=False).start()
    watcher, got = collect(broker, "board")
    name, club = ("t2", "c") if wrong == "table" else ("t1", "C")
    j, t, bot = bot_table(tmp_path / "box", "towers", 4, name=name, club=club)
    play(t, bot, "towers", ("Ann", "Bob"))
    rows = len(j.outbox_rows(0, 10 ** 6))
    pub = Publisher(j, j.outbox, broker.url("t1"), username="t1")
    try:
        pub.start()
        said = lambda: [r.getMessage() for r in caplog.records if "refuses" in r.getMessage()]  # noqa: E731
        assert wait_for(lambda: said(), timeout=HANG), [r.getMessage() for r in caplog.records]
        assert wait_for(lambda: pub.refused >= rows, timeout=HANG)
    finally:
        pub.stop()
        watcher.disconnect()
        watcher.loop_stop()
        broker.stop()
    assert len(j.outbox_rows(0, 10 ** 6)) == rows and pub.acked == 0 and got == []
    assert len(said()) == 1 and name in said()[0] and "t1" in said()[0], said()
    j.close()


def test_a_damaged_outbox_row_is_deleted_in_one_line_and_the_rows_after_it_go(tmp_path, caplog):
    """Fault (attack on the journal's file, a box in a club): an outbox row whose topic a bit flip
    made a wildcard ('club/#/t1/events') made paho raise at every attempt; the publisher took it for
    the broker out of reach ('not reached (ValueError)'), and no message after it was ever sent
    again, all night. A row whose text is no UTF-8 failed every read of the outbox, with a traceback
    in the log every 5 s. Now such a row is deleted (its event is in the journal and in its match's
    record), said once, and every other row goes; a payload that is damaged goes as it is (the
    board refuses it)."""
    import logging
    import sqlite3
    sys.path.insert(0, str(ROOT / "tests"))
    from test_club import bot_table, collect, mosquitto_or_skip, play, wait_for
    from assistant.club.broker import Broker
    from assistant.club.publisher import Publisher
    mosquitto_or_skip()
    caplog.set_level(logging.INFO, logger="assistant.club")
    j, t, bot = bot_table(tmp_path / "box", "towers", 4)
    play(t, bot, "towers", ("Ann", "Bob"))
    ids = [r[0] for r in j.outbox_rows(0, 10 ** 6)]
    db = sqlite3.connect(tmp_path / "box" / "t1" / "journal.sqlite3")
    with db:
        db.execute("UPDATE outbox SET topic = 'club/#/t1/events' WHERE id = ?", (ids[3],))
        db.execute("UPDATE outbox SET topic = '' WHERE id = ?", (ids[5],))
        db.execute("UPDATE outbox SET topic = CAST(X'636C75622F632FFF' AS TEXT) WHERE id = ?", (ids[7],))
        db.execute("UPDATE outbox SET payload = CAST(X'7BFF7D' AS TEXT) WHERE id = ?", (ids[9],))
    db.close()
    broker = Broker(tmp_path / "broker", "c", ["t1"], persistence=False).start()
    watcher, got = collect(broker, "board", "club/c/t1/#")
    pub = Publisher(j, j.outbox, broker.url("t1"))
    try:
        pub.start()
        sent = lambda: [p for topic, p in got if topic.endswith("/events")]  # noqa: E731
        assert wait_for(lambda: pub.idle() and len(sent()) >= len(ids) - 1 - 3, timeout=HANG), (len(sent()), len(ids))
    finally:
        pub.stop()
        watcher.disconnect()
        watcher.loop_stop()
        broker.stop()
    assert pub.dropped == 3 and b"{\xff}" in sent() and len(sent()) == len(ids) - 1 - 3
    said = [r for r in caplog.records if "outbox" in r.getMessage()]
    assert len(said) == 1 and not any(r.exc_info for r in caplog.records), caplog.text
    j.close()


def test_a_players_tag_is_refused_as_a_card_by_enroll(tmp_path, capsys):
    """Fault (attack on the reader: a player's key fob tapped while `card-assistant enroll` asked
    for a card): enroll took it as that card without a word; the box then logged at every start
    that the tag is both, kept it a card, and that player could not sit down by their tag again.
    `players add` refused a card's tag; now enroll refuses a player's tag (players.txt beside the
    deck) in one line, and waits for the card."""
    from test_enroll import UIDS, Session
    from assistant.box.deck import load_deck
    from assistant.rules.cards import parse_card
    fob = "04F0B0F0B0F0B0"
    (tmp_path / "players.txt").write_text(f"{fob} Ann\n")
    deck = tmp_path / "deck.txt"
    s = Session(tmp_path, str(deck), "--card", "7S")
    s.vf.tap(1, fob)
    s.vf.tap(1, UIDS[parse_card("7S")])
    assert s.finish() == 0
    assert load_deck(deck) == {UIDS[parse_card("7S")]: parse_card("7S")}
    out = capsys.readouterr().out
    assert f"refused: tag {fob} is Ann's player tag" in out and out.count("refused:") == 1, out


def test_a_club_message_whose_match_number_no_box_makes_is_refused_as_such(tmp_path, caplog):
    """Fault (attack on the club board: an event whose id has a match number of 2**63 or more):
    SQLite takes no such integer, and the refusal said "it could not be used (OverflowError)", an
    internal error's words. Now a match number past MAX_MATCH (the pages' links take 9 digits) is
    refused as no valid id, like any other bad id, and nothing is stored."""
    import json
    import logging
    from assistant.club.board import Board
    caplog.set_level(logging.INFO, logger="assistant.club.board")
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    start = {"v": 1, "kind": "start", "game": "towers", "seats": ["Ann", "Bob"], "options": {}}
    for mid in (2 ** 63, 10 ** 30, 1_000_000_000):
        board.receive("club/c/t1/events", json.dumps(dict(start, id=["t1", mid, 0])).encode())
    board.receive("club/c/t1/events", json.dumps(dict(start, id=["t1", 999_999_999, 0])).encode())
    assert board.counts["refused"] == 3 and board.counts["stored"] == 1
    said = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert said and all("no valid id" in w for w in said), said
    board.close()


@pytest.mark.parametrize("option, what", [("--password-file", "pipe"), ("--password-file", "/dev/zero"),
                                          ("--cafile", "pipe"), ("--cafile", "/dev/zero")])
def test_a_board_secret_file_that_is_no_file_is_one_line_not_a_hang(tmp_path, option, what):
    """Fault (attack on the board's command line): `--password-file /dev/zero` was read to its end:
    4 GB of memory in 7 s (a Pi's all), and a pipe (a fifo with no writer) held the board for ever
    before it said a word; so did `--cafile` a pipe, and a box with [club] cafile a pipe never
    started (below). Now each is one line saying what it is, not a file."""
    path = what
    if what == "pipe":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    broker = "mqtts://board@127.0.0.1:1" if option == "--cafile" else "mqtt://board@127.0.0.1:1"
    status, lines, err = command(tmp_path, "board", "--broker", broker, "--db", str(tmp_path / "board.sqlite3"),
                                 "--club", "c", option, path)
    kind = "a named pipe (a FIFO)" if what == "pipe" else "a device (a character device)"
    assert status == 2 and len(lines) == 1 and f"is {kind}, not a file" in err, err


def test_a_club_cafile_that_is_a_pipe_is_one_line_and_the_box_starts(tmp_path):
    """Fault (attack on the config): [club] cafile naming a pipe held `card-assistant run` at start
    for ever (no screen, no READY=1: systemd would kill and restart it in a loop). Now the box says
    in one line that the club publishes nothing until it is fixed, and runs."""
    os.mkfifo(tmp_path / "ca.pem")
    club = f'[club]\nbroker = "mqtts://127.0.0.1:1"\ntable = "t1"\ncafile = "{tmp_path / "ca.pem"}"\n'
    proc, notify = start_box(tmp_path, tmp_path / "state", config=club)
    err = ready_then_stopped(proc, notify)
    about = [line for line in err.splitlines() if "[club] cafile" in line]
    assert len(about) == 1 and "not a file" in about[0] and "Traceback" not in err, err


def test_a_board_broker_port_that_is_no_number_is_said_in_the_boxs_words(tmp_path):
    """Fault (attack on the board's command line): `--broker mqtt://host:abc` said urllib's own words,
    "Port could not be cast to integer value as 'abc'"; now the words a box's [club] broker gets."""
    status, lines, err = command(tmp_path, "board", "--broker", "mqtt://board@host:abc", "--db",
                                 str(tmp_path / "board.sqlite3"), "--club", "c")
    assert status == 2 and len(lines) == 1 and "its port is not a number from 1 to 65535" in err, err


@pytest.mark.parametrize("broker", ["mqtt://board:Secret1@host:abc", "mqtt://board:Secret1@host:99999",
                                    "http://board:Secret1@host", "mqtts://board:Sec:r@et1@"])
def test_a_board_broker_url_it_refuses_is_said_without_its_password(tmp_path, broker):
    """Fault (attack on the board's command line, which takes mqtt://board:PASSWORD@HOST): a URL
    it refused (a bad port, another scheme, no host) was repeated whole, password and all, on
    standard error, the board service's log; a box's [club] broker is never repeated. Now the
    one line names the URL with PASSWORD in the password's place."""
    status, lines, err = command(tmp_path, "board", "--broker", broker, "--db", str(tmp_path / "board.sqlite3"))
    assert status == 2 and len(lines) == 1 and "PASSWORD@" in err, err
    assert "Secret" not in err and "r@et1" not in err, err


@pytest.mark.parametrize("argv", [("replay", "/nowhere/x\x1b[2J\x07.scn"),
                                  ("run", "--config", "/nowhere/c\x1b]0;pwn\x07\u202e.toml")])
def test_a_control_character_in_a_path_reaches_no_terminal(tmp_path, argv):
    """Fault (attack on the command line: a path holding an escape sequence, a bell or a bidi
    override, as a scenario file named so): the command's one line repeated the path as it was, so
    the terminal ran the sequence (cleared the screen, set its title, rang) and showed what followed
    reversed. Now standard error writes each control character as its escape."""
    status, lines, err = command(tmp_path, *argv)
    assert status != 0 and len(lines) == 1 and "\\x1b" in err, err
    assert not any(c in err for c in "\x1b\x07\u202e"), repr(err)


def test_a_club_broker_address_where_no_mqtt_broker_answers_is_said_once(tmp_path, caplog):
    """Fault (attack on the config: [club] broker naming the board's page, mqtt://board-pi:8030,
    for its broker at 1883): the connection was taken and closed with no MQTT answer, again and
    again, and the box said nothing at all, then or later, while it published nothing. A port that
    takes a connection and stays silent was the same. Now it is one line, with the host and port."""
    import logging
    import time
    from assistant.box.journal import Journal
    from assistant.club.board import Board
    from assistant.club.page import serve
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import Publisher
    caplog.set_level(logging.INFO, logger="assistant.club")
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    page = serve(board, "127.0.0.1", 0)
    j = Journal(str(tmp_path / "journal.sqlite3"))
    j.outbox = ClubOutbox("c", "t1", j)
    pub = Publisher(j, j.outbox, f"mqtt://t1:pw@127.0.0.1:{page.server_address[1]}")
    try:
        pub.start()
        said = lambda: [r.getMessage() for r in caplog.records if r.name == "assistant.club"]  # noqa: E731
        deadline = time.monotonic() + HANG
        while not said() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1)  # a few more attempts: still one line
    finally:
        pub.stop()
        page.shutdown()
        j.close()
        board.close()
    assert len(said()) == 1 and f"127.0.0.1:{page.server_address[1]}" in said()[0], said()
    assert "no MQTT broker answers" in said()[0] and "pw" not in said()[0]
