"""`card-assistant board`: the command that runs the club's results board (:mod:`.board`).

    card-assistant board --broker mqtt://board@HOST:1883 --password-file FILE --db board.sqlite3 [--port 8030]

It subscribes the board to the club's topics and serves its page until stopped; the broker going out
of reach and coming back is one log line each.
"""
import logging
import os
import sqlite3
import threading
import time

from assistant.repeated import Repeated
from assistant.club.board import Board
from assistant.club.message import printable

log = logging.getLogger("assistant.club.board")  # the board's one log, whichever module speaks


def run_board(board, broker, port, host="127.0.0.1", cafile=None, stop=None, password=None):
    """Subscribe and serve until ``stop`` (a threading.Event) is set. ``password``, when given,
    is used instead of the one in the URL."""
    from assistant.club.page import serve
    from assistant.club.publisher import RETRY, STEADY, TAKEN, broker_address, make_client
    tls, bhost, bport, user, in_url = broker_address(broker)
    password = password or in_url
    user = user or "board"
    # the broker keeps one session a client id: two boards of the club on one broker, each with its own
    # account and file (docs/club.md), took each other's over, each getting part of the messages and
    # acknowledging them for the other; the account "board" keeps the id it had (its queue at the broker)
    client_id = f"board-{board.club}" if user == "board" else f"board-{board.club}-{user}"
    client = make_client(client_id, user, password, tls, cafile, clean=False)
    client.manual_ack_set(True)  # a message is acknowledged once stored (Unstored), never before
    client.reconnect_delay_set(*RETRY)
    unstored = Unstored(board, client)
    where = f"{bhost}:{bport}"
    down = Repeated(log)  # one line when the broker goes out of reach, one (with a count) when back
    # two boards of one club (one started by hand beside the service) have one client id: the broker
    # closes one as the other connects, for ever; said once, not twice a flap, and retried every 5 s
    taken = Repeated(log)
    stuck = Repeated(log)  # the tidy cannot write (a full disk): one line, one when over
    session = {"up": None, "short": 0}  # when the connection began; connections in a row that did not last

    def on_connect(c, userdata, flags, reason, properties):
        if reason.is_failure:
            down.happened("broker", f"board: the broker at {where} refused the board ({reason})")
            return
        board.connected = True
        session["up"] = time.monotonic()
        unstored.connected()
        if session["short"] < TAKEN:
            down.ended("broker", f"board: connected to the broker at {where} again")
        c.subscribe([(f"club/{board.club}/+/events", 1), (f"club/{board.club}/+/now", 1),
                     (f"club/{board.club}/+/record/+", 1), (f"club/{board.club}/+/status", 1)])

    def on_subscribe(c, userdata, mid, reasons, properties):
        board.subscribed = not any(r.is_failure for r in reasons)

    def on_connect_fail(c, userdata):
        board.connected = False
        down.happened("broker", f"board: cannot reach the broker at {where}; retrying")

    def on_disconnect(c, userdata, flags, reason, properties):
        board.connected = False
        if stop and stop.is_set():
            return
        up, session["up"] = session["up"], None
        if up is not None and time.monotonic() - up < STEADY:
            session["short"] += 1
            if session["short"] >= TAKEN:
                c.reconnect_delay_set(RETRY[1], RETRY[1])
                taken.happened("taken", f"board: the broker closed the board's connection {session['short']} times "
                                        f"in a row within {STEADY:g} s: is another board of club {board.club} "
                                        f"running with the account {user}? (one client id, {client_id}: the "
                                        "broker keeps one, and each board gets part of the messages; a second "
                                        f"board takes an account of its own); trying again every {RETRY[1]:g} s")
                return
        down.happened("broker", f"board: lost the broker at {where} ({reason}); retrying")

    def steady():
        """Called every few seconds: a connection that lasted ends the short ones."""
        up = session["up"]
        if session["short"] and up is not None and time.monotonic() - up >= STEADY:
            session["short"] = 0
            client.reconnect_delay_set(*RETRY)
            taken.ended("taken", f"board: connected to the broker at {where} and staying")

    client.on_connect = on_connect
    client.on_connect_fail = on_connect_fail
    client.on_disconnect = on_disconnect
    client.on_subscribe = on_subscribe
    client.on_message = lambda c, u, msg: unstored.receive(msg)
    client.connect_async(bhost, bport, keepalive=10)
    client.loop_start()
    server = serve(board, host, port)
    log.info("board: serving http://%s:%s/ for the club %s (broker %s)", host, server.server_address[1],
             printable(board.club), where)
    try:
        stop = stop or threading.Event()
        while not stop.wait(5):
            board.quiet()  # a storm of refused messages that ended is said so, with its count
            steady()
            tidy(board, stuck)  # older nights' matches leave the memory, a few at a time (season.py)
            unstored.again()  # what the board's file could not take (a full disk) is tried again
    finally:
        server.shutdown()
        client.loop_stop()
        client.disconnect()


def tidy(board, stuck):
    """The board's tidy, which a full disk or a damaged file must not stop: the board goes on
    serving and storing what it can, says so once (``stuck``: a Repeated), and tries again."""
    from assistant.club.board import unwritable
    try:
        board.tidy()
    except Exception as e:
        why = unwritable(e) if isinstance(e, sqlite3.DatabaseError) else type(e).__name__
        stuck.happened("tidy", f"board: older nights cannot be put away now ({why}); tried again every 5 s")
    else:
        stuck.ended("tidy", "board: older nights are put away again")


class Unstored:
    """The messages the board's file could not take for now (a full disk, a read-only one),
    not acknowledged: before, paho acknowledged every message once the board had seen it, stored or
    not, the box then deleted it from its outbox, and an event lost to a full disk was gone from the
    page until its match's record came at the end. Now a message is acknowledged once it is stored
    (or is a duplicate, or refused for what it holds); one the file could not take is tried again
    every few seconds, and acknowledged when stored. The broker keeps it meanwhile: a board stopped
    or a connection lost before then is sent it again (the board's session is persistent), so a
    message the board holds for a connection that ended is dropped here, never acknowledged on
    another (a message number is the connection's). The broker sends only so many unacknowledged
    messages at once (Mosquitto: max_inflight_messages, 20 by default), which bounds the list."""

    def __init__(self, board, client):
        self.board, self.client = board, client
        self.lock = threading.Lock()
        self.connection = 0
        self.waiting = []  # (connection, message), in the order they came

    def connected(self):
        with self.lock:
            self.connection += 1
            self.waiting = []  # the broker sends them again on this connection

    def receive(self, msg):
        """A message as it comes (paho's thread, as :meth:`connected`: its connection is current)."""
        with self.lock:
            connection = self.connection
        if self.board.receive(msg.topic, msg.payload):
            self.client.ack(msg.mid, msg.qos)
        else:
            with self.lock:
                self.waiting.append((connection, msg))

    def again(self):
        """Store what waits, in the order it came; stop at the first the file still cannot take."""
        while True:
            with self.lock:
                if not self.waiting:
                    return
                connection, msg = self.waiting[0]
            if not self.board.receive(msg.topic, msg.payload, again=True):
                return
            with self.lock:
                if self.waiting and self.waiting[0][1] is msg:
                    self.waiting.pop(0)
                if connection == self.connection:  # else: the broker sends it again (a duplicate then)
                    self.client.ack(msg.mid, msg.qos)


def main(argv):
    import signal
    from assistant.cli import argument_parser
    p = argument_parser("card-assistant board", description="The club's live results board.")
    p.add_argument("--broker", required=True,
                   help="mqtt://board@HOST:1883 (or mqtts://), with --password-file; a password in the URL "
                        "(mqtt://board:PASSWORD@HOST) is on the command line, which every user can read")
    p.add_argument("--db", required=True, help="the board's own SQLite file (made if missing)")
    p.add_argument("--port", type=int, default=8030, help="the page's port (default 8030; a box's own page is on 8029)")
    p.add_argument("--host", default="0.0.0.0", help="the address the page listens on")
    p.add_argument("--club", default="club", help="the club's name, as in the boxes' [club] club")
    p.add_argument("--cafile", default=None, help="with mqtts://: the broker's CA certificate")
    p.add_argument("--password-file", default=None,
                   help="a file holding the board's broker password (its first line), so that the password is "
                        "not on the command line, where every user of the machine can read it")
    args = p.parse_args(argv)
    from assistant.club.publisher import broker_address
    from assistant.box.config import NAME_RE, host_problem
    try:
        broker_host = broker_address(args.broker)[1]
    except ValueError as e:
        p.error(str(e))
    if why := host_problem(broker_host):  # paho's network thread raised, and ended: the board never connected
        p.error(f"--broker: its host {why}")
    if why := host_problem(args.host):
        p.error(f"--host {args.host!r:.80} {why}")
    if not NAME_RE.fullmatch(args.club):  # "a/#" or "a+b" is no topic level: paho raised in its thread
        p.error(f"--club {args.club!r} should be 1 to 40 letters, digits, '-' or '_' (as a box's [club] club)")
    if not 0 <= args.port <= 65535:
        p.error(f"--port {args.port} is not a port")
    if args.cafile is not None:
        from assistant.club.publisher import cafile_problem
        if why := cafile_problem(args.cafile):  # else "cannot serve on port 8030: [X509: ...]" once it started
            p.error(f"--cafile {args.cafile} {why}")
    if args.db.strip() in ("", ":memory:"):  # SQLite's names for a database on no disk: all lost at the end
        p.error(f"--db {args.db!r} names no file (an empty name or ':memory:' is a database kept in memory, "
                "lost when the board stops): name the board's own SQLite file (made if missing)")
    from assistant.textfile import what_is_at
    try:
        kind = what_is_at(args.db)
    except OSError as e:
        p.error(f"--db {args.db} cannot be reached ({e.strerror})")
    if kind in ("folder", "other"):  # SQLite said "disk I/O error" of a pipe, "unable to open" of a folder
        p.error(f"--db {args.db} is {'a folder' if kind == 'folder' else 'not a file (a device, a pipe or a socket)'}: "
                "name the board's own SQLite file (made if missing)")
    password = None
    if args.password_file is not None:
        try:
            password = read_password(args.password_file)
        except ValueError as e:
            p.error(f"--password-file {args.password_file} {e}")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        board = Board(args.db, args.club)
    except (sqlite3.Error, OSError) as e:  # OSError: a name beside it that cannot be moved aside
        print(f"card-assistant board: cannot use {args.db}: {getattr(e, 'strerror', None) or e}",
              file=__import__("sys").stderr)
        return 1
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        run_board(board, args.broker, args.port, args.host, args.cafile, stop, password)
    except OSError as e:
        print(f"card-assistant board: cannot serve on port {args.port}: {e.strerror}",
              file=__import__("sys").stderr)
        return 1
    finally:
        board.close()
    return 0


def read_password(path):
    """The first line of ``path``; ValueError in plain words (the text never names the password)."""
    from assistant.textfile import NotSmallFile, read_small
    try:
        data = read_small(path, 4096)  # /dev/zero was read until the memory ran out; a pipe, for ever
    except NotSmallFile as e:
        raise ValueError(str(e)) from None
    except IsADirectoryError:
        raise ValueError("is a folder, not a file") from None
    except FileNotFoundError:
        raise ValueError("does not exist") from None
    except PermissionError:
        raise ValueError(f"cannot be read by this user (uid {os.getuid()}): check its owner and mode") from None
    except OSError as e:
        raise ValueError(f"cannot be read ({e.strerror})") from None
    try:
        line = data.decode("utf-8").splitlines()[0].strip() if data.strip() else ""
    except UnicodeDecodeError:
        raise ValueError("is not UTF-8 text") from None
    if not line:
        raise ValueError("is empty")
    return line
