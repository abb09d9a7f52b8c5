"""The board's own SQLite file: every event it took, once, under its key.

The key is ``(table, journal, match, n)``: ``journal`` is the name the box's journal made for
itself when it was created (assistant/club/public.py), so a box reset under a table name the
board holds (its state folder wiped, a new SD card) is another journal of that table, never the
old one's matches continued. An older box sends no name: its events are kept under ``""``.

A file an older board wrote (no ``journal`` column) is carried over once at opening, its events
under ``""``; a box of that table upgraded since then names its journal, and the first of its
match starts equal to one kept under ``""`` (the same match number, game, seats and start time)
makes the ``""`` events that journal's (:meth:`BoardFile.adopt`): the same matches, not new ones.
"""
import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, journal TEXT NOT NULL, match INTEGER NOT NULL,
    n INTEGER NOT NULL, body TEXT NOT NULL, t REAL, received REAL NOT NULL,
    PRIMARY KEY (tbl, journal, match, n))
"""
CLOCKS = """
CREATE TABLE IF NOT EXISTS clocks (tbl TEXT NOT NULL, journal TEXT NOT NULL, behind REAL NOT NULL,
    PRIMARY KEY (tbl, journal))
"""  # the least (board's clock - box's) a box's "online" status showed (clocks.py); events hold theirs
OLDER = "events_before_journals"  # an older board's table, while it is carried over


class BoardFile:
    def __init__(self, path):
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a killed process keeps every commit
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            columns = [r[1] for r in self.db.execute("PRAGMA table_info(events)")]
            if columns and "journal" not in columns:  # an older board's file: its events under ""
                self.db.execute(f"ALTER TABLE events RENAME TO {OLDER}")
            self.db.execute(SCHEMA)
            self.db.execute(CLOCKS)
            if columns and "journal" not in columns:
                self.db.execute(f"INSERT OR IGNORE INTO events SELECT tbl, '', match, n, body, t, received "
                                f"FROM {OLDER}")
                self.db.execute(f"DROP TABLE {OLDER}")

    def rows(self, table=None):
        """``(table, journal, match, n, body, t, received)`` in order, of one table or all."""
        where, args = ("WHERE tbl=?", (table,)) if table is not None else ("", ())
        return self.db.execute(f"SELECT tbl, journal, match, n, body, t, received FROM events {where} "
                               "ORDER BY tbl, journal, match, n", args)

    def body(self, table, journal, mid, n):
        row = self.db.execute("SELECT body FROM events WHERE tbl=? AND journal=? AND match=? AND n=?",
                              (table, journal, mid, n)).fetchone()
        return row and row[0]

    def add(self, table, journal, mid, n, body, t, received):
        self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (table, journal, mid, n, body, t, received))

    def clocks(self):
        return self.db.execute("SELECT tbl, journal, behind FROM clocks")

    def clock(self, table, journal, behind):
        self.db.execute("INSERT INTO clocks VALUES (?, ?, ?) ON CONFLICT (tbl, journal) DO UPDATE "
                        "SET behind=min(behind, excluded.behind)", (table, journal, behind))

    def heard(self):
        """``{table: when the board last received one of its events}``, by the board's clock."""
        return dict(self.db.execute("SELECT tbl, max(received) FROM events GROUP BY tbl"))

    def adopt(self, table, journal):
        """The table's events kept under ``""`` (an older box's, or an older board's) become
        ``journal``'s: the same box, upgraded, names its journal now."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE OR IGNORE events SET journal=? WHERE tbl=? AND journal=''", (journal, table))
            self.db.execute("DELETE FROM events WHERE tbl=? AND journal=''", (table,))  # had both: kept once
            self.db.execute("DELETE FROM clocks WHERE tbl=? AND journal=''", (table,))

    def close(self):
        self.db.close()
