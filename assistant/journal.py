"""The journal: every accepted action, in SQLite, before the screen changes.

One row per action, written as its scenario line, in a transaction with
``synchronous=FULL`` so that a power cut keeps every committed row. A match is
rebuilt by replaying its rows (undo rows included) through :class:`Match`, so
resume, undo, export and bug reports are one mechanism.

The journal holds hidden information (a face-down trump, scanned hands): it lives
in the service's private state directory and is never logged or shown.

>>> import tempfile, os
>>> from assistant.scenario import Action
>>> j = Journal(os.path.join(tempfile.mkdtemp(), "journal.sqlite3"))
>>> j.new_match("towers", ("P1", "P2"), {})
1
>>> j.append(Action("flip", cards=(11,)))
>>> j.resume().match.state()["dealer"]
'P1'
"""
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field

from .match import Match
from .rules import Refused
from .scenario import ScenarioError, format_action, parse_action

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, seats TEXT NOT NULL, options TEXT NOT NULL,
    started REAL NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    match INTEGER NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL, line TEXT NOT NULL,
    PRIMARY KEY (match, seq));
CREATE TABLE IF NOT EXISTS set_aside (
    match INTEGER NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, reason TEXT NOT NULL);
"""


class JournalError(Exception):
    """The journal could not store an action (a full disk, a read-only card): nothing was kept."""


class JournalTooNew(JournalError):
    """The journal was written by a newer card-assistant (a higher schema). This version does not
    read it, write to it or set it aside: it is left exactly as it is for that version."""


@dataclass
class Resumed:
    match: Match | None
    match_id: int | None
    problems: list = field(default_factory=list)  # plain words, for an alert


class Journal:
    def __init__(self, path):
        self.path = path
        self.match_id = None
        self._seq = 0
        self.problems = []
        self.db = self._open()

    def _open(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        try:
            db = self._connect()
        except sqlite3.OperationalError as e:
            # locked by another program, a full or failing card: the file itself may be sound, so it
            # is left where it is (setting it aside would start an empty journal and lose the match)
            raise JournalError(f"the journal could not be opened ({e}); it is left as it is") from None
        except sqlite3.DatabaseError as e:  # not a database, or a malformed one: keep it, start anew
            aside = f"{self.path}.damaged-{int(time.time())}"
            for suffix in ("-wal", "-shm"):  # its write-ahead log goes with it, never to the new file
                if os.path.exists(self.path + suffix):
                    os.replace(self.path + suffix, aside + suffix)
            os.replace(self.path, aside)
            self.problems.append(f"the journal was unreadable ({e}); kept as {os.path.basename(aside)}")
            db = self._connect()
        return db

    def _connect(self):
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            stored = _stored_version(db)  # before any write: a newer journal is never touched
            if stored is not None and stored > SCHEMA_VERSION:
                raise JournalTooNew(
                    f"the journal {os.path.basename(self.path)} was written by a newer card-assistant "
                    f"(journal schema {stored}, this version reads {SCHEMA_VERSION}): install that "
                    f"version again; the journal is kept as it is")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except (sqlite3.DatabaseError, JournalTooNew):
            db.close()
            raise
        return db

    def _write(self, sql, args):
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                return self.db.execute(sql, args)
        except sqlite3.Error as e:
            raise JournalError(_plain(e)) from None

    def new_match(self, game, seats, options):
        cur = self._write("INSERT INTO matches (game, seats, options, started) VALUES (?, ?, ?, ?)",
                          (game, json.dumps(list(seats)), json.dumps(options), time.time()))
        self.match_id, self._seq = cur.lastrowid, 0
        return self.match_id

    def append(self, action, seats=None):
        """Store one accepted action of the current match; raises JournalError if it cannot."""
        seats = seats or self._seats
        line = format_action(action, seats)
        self._write("INSERT INTO actions (match, seq, line) VALUES (?, ?, ?)",
                    (self.match_id, self._seq + 1, line))
        self._seq += 1

    @property
    def _seats(self):
        row = self.db.execute("SELECT seats FROM matches WHERE id=?", (self.match_id,)).fetchone()
        return tuple(json.loads(row[0]))

    def resume(self, match_id=None):
        """Rebuild the latest (or a given) match; a damaged tail is set aside, never guessed at."""
        problems = list(self.problems)
        if match_id is None:
            row = self.db.execute("SELECT max(id) FROM matches").fetchone()
            match_id = row[0]
        if match_id is None:
            return Resumed(None, None, problems)
        game, seats, options = self.db.execute(
            "SELECT game, seats, options FROM matches WHERE id=?", (match_id,)).fetchone()
        seats = tuple(json.loads(seats))
        match = Match(game, seats, json.loads(options))
        rows = self.db.execute("SELECT seq, line FROM actions WHERE match=? ORDER BY seq",
                               (match_id,)).fetchall()
        good = 0
        for i, (seq, line) in enumerate(rows):
            try:
                if seq != i + 1:
                    raise ScenarioError(seq, f"action {i + 1} is missing")
                match.apply(parse_action(line.split(), game, seats, seq))
            except (ScenarioError, Refused, IndexError) as e:
                bad = rows[i:]
                problems.append(f"the journal's last {len(bad)} action(s) could not be read "
                                f"and were set aside ({_hidden_safe(e)})")
                self._set_aside(match_id, bad, str(e))
                break
            good = seq
        self.match_id, self._seq = match_id, good
        return Resumed(match, match_id, problems)

    def _set_aside(self, match_id, rows, reason):
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                for seq, line in rows:
                    self.db.execute("INSERT INTO set_aside VALUES (?, ?, ?, ?)", (match_id, seq, line, reason))
                    self.db.execute("DELETE FROM actions WHERE match=? AND seq=?", (match_id, seq))
        except sqlite3.Error:
            pass  # the rows stay; the next resume sets them aside again

    def export(self, match_id=None):
        """The scenario text of a stored match: every action as journaled, undo lines included."""
        resumed = self.resume(match_id)
        if resumed.match is None:
            return None
        m = resumed.match
        rows = self.db.execute("SELECT line FROM actions WHERE match=? ORDER BY seq",
                               (resumed.match_id,)).fetchall()
        header = m.export().split("\n")
        header = [h for h in header if h.startswith(("game", "seats", "option", "#"))]
        return "\n".join(header + [r[0] for r in rows]) + "\n"

    def close(self):
        self.db.close()


def _stored_version(db):
    """The schema version a journal file records, or None for a new (empty) file."""
    if not db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()[0]:
        return None
    row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return int(row[0]) if row else None


def _plain(e):
    text = str(e)
    if "full" in text:
        return "the storage card is full: this action was not saved"
    if "readonly" in text or "read-only" in text:
        return "the storage card is read-only: this action was not saved"
    return f"the journal could not be written ({text}): this action was not saved"


def _hidden_safe(e):
    """A reason for the alert that names no card (a damaged row may be a hidden one)."""
    return "unreadable line" if isinstance(e, (ScenarioError, IndexError)) else "refused by the rules"
