"""`card-assistant board`: the club's results board.

    card-assistant board --broker mqtt://board@HOST:1883 --password-file FILE --db board.sqlite3 [--port 8030]

It subscribes to the club's topics (a persistent session, QoS 1), stores every event
once in its own SQLite file (``id = [table, match, n]`` is the key: a message sent
again is dropped) before the broker is acknowledged, rebuilds each table's matches
through the rules engines (:mod:`.replay`) and serves the club's page and its JSON
(``/api/club``). A malformed, oversized or conflicting message is refused with a
log line (one for a storm of one kind) and changes nothing; the board never stops for bad data. After a restart it
rebuilds everything from its file.

Out of order: an event whose predecessors have not arrived yet is *stored and held*,
never refused. The box deletes an outbox row once the broker has acknowledged it, so
nothing sends a refused event again; only the match's record, at its end, could bring
it back (a broker killed before it passed on what it had acknowledged leaves exactly
such a gap, which the match's record fills when the box reconnects). One log line when a match's gap opens, one
when it is filled. Refused as out of order (one log line each, nothing stored): an
event past ``MAX_HELD`` held events of one table (memory stays bounded; the match's
record, sent again at its end and after every reconnect, brings it back) and a
record whose events are not its match's 0, 1, 2, ... in order. A "table now" older
than the one the board has is skipped (counted, never shown: the page does not go
back in time).
"""
import json
import logging
import os
import re
import sqlite3
import threading
import time

from assistant.rules.cards import parse_card
from assistant.repeated import Repeated
from assistant.rules.match import Match
from assistant.rules.scenario import GAMES, ScenarioError, _read_seats
from assistant.rules.shared import Refused
from assistant.club.replay import BoardMatch

log = logging.getLogger("assistant.club.board")
MAX_EVENT = 4096          # bytes: an event message is a scenario line and a few numbers
MAX_RECORD = 1 << 20      # bytes: a whole match's public events
MAX_NOW = 8192
MAX_N = 100_000           # actions in one match: more is no real match
MAX_HELD = 5000           # events of one table waiting for a gap to fill: hours of real play
QUIET = 30                # seconds without a refusal of a kind before the log says it ended
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, match INTEGER NOT NULL, n INTEGER NOT NULL,
    body TEXT NOT NULL, t REAL, received REAL NOT NULL, PRIMARY KEY (tbl, match, n));
"""


class Refusal(ValueError):
    """A message the board does not take; the words name no card."""


class Board:
    def __init__(self, path, club):
        self.club = club
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a killed process keeps every commit
        self.db.executescript(SCHEMA)
        self.lock = threading.Lock()
        self.matches = {}   # (table, match) -> BoardMatch
        self.early = {}     # (table, match) -> {n: event}: actions before their match's start
        self.now = {}       # table -> the retained "table now" (shown, never scored)
        self.counts = {"stored": 0, "duplicates": 0, "refused": 0, "stale": 0}
        self.gaps = set()   # (table, match) whose held events wait for earlier ones (logged once)
        self.subscribed = False  # set once the broker granted the subscriptions
        self.connected = False   # the link to the broker is up (the page says when it is not)
        self.last = {}      # (table, match) -> the box's clock at its latest event that said it
        self.online = {}    # table -> its box is connected (its retained status, or the broker's will)
        self.refused_at = {}  # table -> messages refused on its topics (the page says so beside it)
        self.heard = dict(self.db.execute("SELECT tbl, max(received) FROM events GROUP BY tbl"))  # board's clock
        self.refusals = Repeated(log)  # (table, kind of refusal): a storm is two lines, not one a message
        rows = self.db.execute("SELECT tbl, match, n, body, t FROM events ORDER BY tbl, match, n")
        for tbl, mid, n, body, t in rows:
            try:  # checked again: a row an older board stored unchecked must not stop this one
                self._apply(tbl, mid, n, _checked(json.loads(body), n))
                self._timed(tbl, mid, t)
            except Exception as e:
                log.warning("board: table %s match %s event %s in the file cannot be used (%s); skipped",
                            _safe(tbl), mid, n, e if isinstance(e, Refusal) else type(e).__name__)
                continue
            self.counts["stored"] += 1

    # --- messages
    def receive(self, topic, payload):
        """One MQTT message. Never raises: a refusal is a log line (once for a storm of one kind)."""
        with self.lock:
            self._quiet(QUIET)
            try:
                self._receive(topic, payload)
            except Refusal as e:
                self._refused(topic, str(e))
            except Exception as e:  # raised in paho's thread it would end the subscription: never
                self._refused(topic, f"it could not be used ({type(e).__name__}); the board goes on")

    def _refused(self, topic, why):
        """Counted every time; logged when a kind of refusal starts at a table, and when it has
        not happened for ``QUIET`` seconds, with its count (20,000 garbage messages: two lines)."""
        self.counts["refused"] += 1
        parts = topic.split("/")
        if len(parts) > 2 and parts[:2] == ["club", self.club]:
            self.refused_at[parts[2]] = self.refused_at.get(parts[2], 0) + 1
        kind = (_safe(parts[2]) if len(parts) > 2 else "", re.sub(r"[0-9]+", "N", why))
        self.refusals.happened(kind, f"board: refused a message on {_safe(topic)}: {why}")

    def quiet(self, seconds=QUIET):
        """End (in the log, with their counts) the kinds of refusal not seen for ``seconds``."""
        with self.lock:
            self._quiet(seconds)

    def _quiet(self, seconds):
        self.refusals.quiet(seconds, lambda kind: f"board: no more messages refused at table "
                                                  f"{kind[0] or '?'} for this ({kind[1]})")

    def _receive(self, topic, payload):
        parts = topic.split("/")
        if len(parts) < 4 or parts[0] != "club" or parts[1] != self.club:
            raise Refusal("not this club's topic")
        table, what = parts[2], "/".join(parts[3:])
        limit = MAX_RECORD if what.startswith("record/") else MAX_NOW if what == "now" else MAX_EVENT
        if len(payload) > limit:
            raise Refusal(f"oversized ({len(payload)} bytes, at most {limit})")
        try:
            body = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            raise Refusal("not JSON") from None
        except RecursionError:  # JSON nested deeper than Python's stack, well inside 4 KiB
            raise Refusal("nested too deep to be a club message") from None
        if not isinstance(body, dict) or body.get("v") != 1:
            raise Refusal("not a version 1 club message")
        if what == "events":
            self._event(table, body)
        elif what == "now":
            if body.get("table") != table or type(body.get("match")) is not int or type(body.get("n")) is not int:
                raise Refusal("a table now of another table, or without its match and action")
            shown = self.now.get(table)
            if shown is not None and (body["match"], body["n"]) < (shown["match"], shown["n"]):
                self.counts["stale"] += 1  # an older one, delivered after a newer (a board restart)
                return
            self.now[table] = body
        elif what == "status":  # the box's own "online", or the broker's will for it: "offline"
            if body.get("table") != table or type(body.get("online")) is not bool:
                raise Refusal("a status of another table, or without online true or false")
            self.online[table] = body["online"]
        elif what.startswith("record/"):
            events = body.get("events")
            if body.get("table") != table or not isinstance(events, list):
                raise Refusal("a record without its table's events")
            if not all(isinstance(e, dict) for e in events):
                raise Refusal("a record holding a non-event")
            mid = body.get("match")
            if [e.get("id") for e in events] != [[table, mid, k] for k in range(len(events))]:
                raise Refusal(f"out of order: a record whose events are not match {_safe(mid)}'s 0, 1, 2, ...")
            for event in events:
                self._event(table, dict(event, v=1), recorded=True)
        else:
            raise Refusal("unknown topic")

    def _event(self, table, ev, recorded=False):
        ident = ev.get("id")
        if (not isinstance(ident, list) or len(ident) != 3 or ident[0] != table
                or not all(type(x) is int for x in ident[1:]) or ident[1] < 1 or not 0 <= ident[2] <= MAX_N):
            raise Refusal("no valid id [table, match, n] of this table")
        _, mid, n = ident
        body = _checked(ev, n)
        stored = self.db.execute("SELECT body FROM events WHERE tbl=? AND match=? AND n=?",
                                 (table, mid, n)).fetchone()
        if stored is not None:
            if _meaning(json.loads(stored[0])) != _meaning(body):
                raise Refusal(f"match {mid} event {n} differs from the one stored: kept the first")
            self.counts["duplicates"] += 1
            return
        if self._held(table, mid, n) and sum(self._waiting(table)) >= MAX_HELD:
            raise Refusal(f"out of order: match {mid} event {n} would be held behind a gap with {MAX_HELD} "
                          "others of this table (the match's record brings it again)")
        t = _calendar_time(ev.get("t"))
        received = time.time()
        self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                        (table, mid, n, json.dumps(body), t, received))
        self.heard[table] = received
        self.counts["stored"] += 1
        self._apply(table, mid, n, body)
        self._timed(table, mid, t)

    def _timed(self, table, mid, t):
        """How long a match lasted, for the standings: its start to its latest event's time, both by
        the box's own clock (an event that came only in a record has none)."""
        if t is not None:
            self.last[(table, mid)] = max(t, self.last.get((table, mid), t))

    def _held(self, table, mid, n):
        """Would event ``n`` wait for earlier ones?"""
        bm = self.matches.get((table, mid))
        return n > 0 and (bm is None or n > bm.next)

    def _waiting(self, table):
        for (t, _), early in self.early.items():
            if t == table:
                yield len(early)
        for (t, _), bm in self.matches.items():
            if t == table:
                yield len(bm.events) - (bm.next - 1)

    def _apply(self, table, mid, n, body):
        key = (table, mid)
        if n == 0:
            try:
                self.matches[key] = bm = BoardMatch(table, mid, body)
            except (ValueError, KeyError, TypeError):
                log.warning("board: table %s match %s cannot be set up", _safe(table), mid)
                return
            for k, ev in sorted(self.early.pop(key, {}).items()):
                self._add(bm, k, ev)
        elif key not in self.matches:
            self.early.setdefault(key, {})[n] = body  # before its start (a record may bring it)
        else:
            self._add(self.matches[key], n, body)
        self._gap(table, mid)

    def _add(self, bm, n, body):
        refused = bm.add(n, body)
        if refused:
            log.warning("board: %s", refused)

    def _gap(self, table, mid):
        """One log line when a match's gap opens, one when it is filled."""
        key = (table, mid)
        bm = self.matches.get(key)
        held = len(self.early.get(key, ())) if bm is None else len(bm.events) - (bm.next - 1)
        if held and key not in self.gaps:
            self.gaps.add(key)
            want = "its start" if bm is None else f"event {bm.next}"
            log.info("board: table %s match %s: events arrive before %s; stored and held until it comes",
                     _safe(table), mid, want)
        elif not held and key in self.gaps:
            self.gaps.discard(key)
            log.info("board: table %s match %s: the gap is filled; events up to %s applied in order",
                     _safe(table), mid, bm.next - 1)

    # --- what the page shows
    def snapshot(self):
        with self.lock:
            tables = {}
            for (table, mid), bm in sorted(self.matches.items()):
                tables.setdefault(table, []).append(bm.summary())
            out = {"club": self.club, "counts": dict(self.counts), "subscribed": self.subscribed,
                   "connected": self.connected,
                   "tables": [{"table": t, "now": _now(self.now.get(t)), "matches": ms}
                              for t, ms in sorted(tables.items())],
                   # the boxes as this board has seen them since it started (what it rebuilds from its
                   # file is in "tables"): connected or not, when last heard from, messages refused
                   "boxes": {t: {"online": self.online.get(t), "heard": self.heard.get(t),
                                 "refused": self.refused_at.get(t, 0)} for t in sorted(tables)}}
        return out

    def spans(self):
        """``{(table, match): (first, last)}``: when the board received each match's first and latest
        event, by its own clock (one clock for every table: the boxes' may disagree)."""
        with self.lock:
            return {(t, m): (a, b) for t, m, a, b in self.db.execute(
                "SELECT tbl, match, min(received), max(received) FROM events GROUP BY tbl, match")}

    def close(self):
        self.db.close()


def _checked(ev, n):
    """The event's meaning, checked: a start (n 0) or an action line (n >= 1)."""
    kind = ev.get("kind")
    if n == 0:
        game, seats, options = ev.get("game"), ev.get("seats"), ev.get("options")
        if kind != "start" or game not in GAMES or not isinstance(seats, list) or len(seats) != GAMES[game] \
                or not all(isinstance(s, str) and 0 < len(s) <= 40 for s in seats) or not isinstance(options, dict):
            raise Refusal("a malformed match start")
        started = ev.get("started")
        if started is not None and _calendar_time(started) is None:  # 1e308 made every page a 500
            raise Refusal("a match start whose time is not a number a calendar holds")
        try:  # seats a scenario can name (one word each, all different) and house rules the engine takes
            if any(s.split() != [s] for s in seats):
                raise ValueError("a seat of more than one word")
            Match(game, _read_seats(seats, game, 0), options)
        except (ScenarioError, Refused, ValueError, TypeError, KeyError):
            raise Refusal("a match start whose seats or house rules the rules refuse") from None
        return {k: ev[k] for k in ("kind", "game", "seats", "options", "started") if k in ev}
    line = ev.get("line")
    if kind != "action" or not isinstance(line, str) or not 0 < len(line) <= 200 or not line.isprintable() \
            or not line.split():
        raise Refusal("a malformed action")
    if type(ev.get("hand")) is not int:
        raise Refusal("an action without its hand number")
    body = {"kind": "action", "line": line, "hand": ev["hand"]}
    if "revealed" in ev:
        try:
            parse_card(str(ev["revealed"]))
        except ValueError:
            raise Refusal("an action revealing no card") from None
        body["revealed"] = ev["revealed"]
    for key in ("hidden", "score", "end"):
        if key in ev:
            body[key] = ev[key]
    return body


def _calendar_time(value):
    """``value`` if it is a time the pages can show (a finite number a calendar holds), else None."""
    if type(value) not in (int, float):
        return None
    try:
        time.localtime(value)
    except (OverflowError, OSError, ValueError):  # inf, nan, 1e308, 10**30
        return None
    return value


def _meaning(body):
    return {k: body.get(k) for k in ("kind", "line", "hand", "revealed", "game", "seats", "options")}


def _now(body):
    if not body:
        return None
    return {k: body.get(k) for k in ("match", "n", "game", "seats", "state", "t")}


def _safe(text):
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))[:80]


# --- the command

def run_board(board, broker, port, host="127.0.0.1", cafile=None, stop=None, password=None):
    """Subscribe and serve until ``stop`` (a threading.Event) is set. ``password``, when given,
    is used instead of the one in the URL."""
    from assistant.club.page import serve
    from assistant.club.publisher import broker_address, make_client
    tls, bhost, bport, user, in_url = broker_address(broker)
    password = password or in_url
    client = make_client(f"board-{board.club}", user or "board", password, tls, cafile, clean=False)
    client.reconnect_delay_set(0.2, 5)
    where = f"{bhost}:{bport}"
    down = Repeated(log)  # one line when the broker goes out of reach, one (with a count) when back

    def on_connect(c, userdata, flags, reason, properties):
        if reason.is_failure:
            down.happened("broker", f"board: the broker at {where} refused the board ({reason})")
            return
        board.connected = True
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
        if not (stop and stop.is_set()):
            down.happened("broker", f"board: lost the broker at {where} ({reason}); retrying")

    client.on_connect = on_connect
    client.on_connect_fail = on_connect_fail
    client.on_disconnect = on_disconnect
    client.on_subscribe = on_subscribe
    client.on_message = lambda c, u, msg: board.receive(msg.topic, msg.payload)
    client.connect_async(bhost, bport, keepalive=10)
    client.loop_start()
    server = serve(board, host, port)
    log.info("board: serving http://%s:%s/ for the club %s (broker %s)", host, server.server_address[1],
             _safe(board.club), where)
    try:
        stop = stop or threading.Event()
        while not stop.wait(5):
            board.quiet()  # a storm of refused messages that ended is said so, with its count
    finally:
        server.shutdown()
        client.loop_stop()
        client.disconnect()


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
    from assistant.box.config import NAME_RE
    try:
        broker_address(args.broker)
    except ValueError as e:
        p.error(str(e))
    if not NAME_RE.fullmatch(args.club):  # "a/#" or "a+b" is no topic level: paho raised in its thread
        p.error(f"--club {args.club!r} should be 1 to 40 letters, digits, '-' or '_' (as a box's [club] club)")
    if not 0 <= args.port <= 65535:
        p.error(f"--port {args.port} is not a port")
    if args.cafile is not None:
        from pathlib import Path
        ca = Path(args.cafile)
        why = ("is a folder, not a file" if ca.is_dir() else "does not exist" if not ca.exists()
               else "cannot be read" if not os.access(ca, os.R_OK) else None)
        if why:
            p.error(f"--cafile {args.cafile} {why}")
    password = None
    if args.password_file is not None:
        try:
            password = read_password(args.password_file)
        except ValueError as e:
            p.error(f"--password-file {args.password_file} {e}")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        board = Board(args.db, args.club)
    except sqlite3.Error as e:
        print(f"card-assistant board: cannot use {args.db}: {e}", file=__import__("sys").stderr)
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
    from pathlib import Path
    try:
        data = Path(path).read_bytes()
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
