"""The club's results board (`card-assistant board`, run by :mod:`.board_run`).

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
import re
import sqlite3
import threading
import time

from assistant.repeated import Repeated
from assistant.club.message import (MAX_EVENT, MAX_N, MAX_NOW, MAX_RECORD, Refusal,  # noqa: F401 (callers import them here)
                                    calendar_time, checked, loads, meaning, printable, shown_now)
from assistant.club.replay import BoardMatch

log = logging.getLogger("assistant.club.board")
MAX_HELD = 5000           # events of one table waiting for a gap to fill: hours of real play
QUIET = 30                # seconds without a refusal of a kind before the log says it ended
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, match INTEGER NOT NULL, n INTEGER NOT NULL,
    body TEXT NOT NULL, t REAL, received REAL NOT NULL, PRIMARY KEY (tbl, match, n));
"""


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
        self.said = {}      # table -> when (board's clock) its latest status came
        self.refused_at = {}  # table -> messages refused on its topics (the page says so beside it)
        self.heard = dict(self.db.execute("SELECT tbl, max(received) FROM events GROUP BY tbl"))  # board's clock
        self.refusals = Repeated(log)  # (table, kind of refusal): a storm is two lines, not one a message
        rows = self.db.execute("SELECT tbl, match, n, body, t FROM events ORDER BY tbl, match, n")
        for tbl, mid, n, body, t in rows:
            try:  # checked again: a row an older board stored unchecked must not stop this one
                self._apply(tbl, mid, n, checked(loads(body), n))
                self._timed(tbl, mid, t)
            except Exception as e:
                log.warning("board: table %s match %s event %s in the file cannot be used (%s); skipped",
                            printable(tbl), mid, n, e if isinstance(e, Refusal) else type(e).__name__)
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
        kind = (printable(parts[2]) if len(parts) > 2 else "", re.sub(r"[0-9]+", "N", why))
        self.refusals.happened(kind, f"board: refused a message on {printable(topic)}: {why}")

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
            body = loads(payload)  # NaN or Infinity: not JSON
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
            self.said[table] = time.time()  # a box connected says so every ALIVE seconds (publisher)
        elif what.startswith("record/"):
            events = body.get("events")
            if body.get("table") != table or not isinstance(events, list):
                raise Refusal("a record without its table's events")
            if not all(isinstance(e, dict) for e in events):
                raise Refusal("a record holding a non-event")
            mid = body.get("match")
            if [e.get("id") for e in events] != [[table, mid, k] for k in range(len(events))]:
                raise Refusal(f"out of order: a record whose events are not match {printable(mid)}'s 0, 1, 2, ...")
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
        body = checked(ev, n)
        stored = self.db.execute("SELECT body FROM events WHERE tbl=? AND match=? AND n=?",
                                 (table, mid, n)).fetchone()
        if stored is not None:
            if meaning(json.loads(stored[0])) != meaning(body):
                raise Refusal(f"match {mid} event {n} differs from the one stored: kept the first")
            self.counts["duplicates"] += 1
            return
        if self._held(table, mid, n) and sum(self._waiting(table)) >= MAX_HELD:
            raise Refusal(f"out of order: match {mid} event {n} would be held behind a gap with {MAX_HELD} "
                          "others of this table (the match's record brings it again)")
        t = calendar_time(ev.get("t"))
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
                log.warning("board: table %s match %s cannot be set up", printable(table), mid)
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
                     printable(table), mid, want)
        elif not held and key in self.gaps:
            self.gaps.discard(key)
            log.info("board: table %s match %s: the gap is filled; events up to %s applied in order",
                     printable(table), mid, bm.next - 1)

    # --- what the page shows
    def snapshot(self):
        with self.lock:
            tables = {}
            for (table, mid), bm in sorted(self.matches.items()):
                tables.setdefault(table, []).append(bm.summary())
            out = {"club": self.club, "counts": dict(self.counts), "subscribed": self.subscribed,
                   "connected": self.connected,
                   "tables": [{"table": t, "now": shown_now(self.now.get(t)), "matches": ms}
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
