"""The board's own SQLite file: every event it took, once, under its key.

The key is ``(table, journal, match, n)``: ``journal`` is the name the box's journal made for
itself when it was created (assistant/club/public.py), so a box reset under a table name the
board holds (its state folder wiped, a new SD card) is another journal of that table, never the
old one's matches continued. An older box sends no name: its events are kept under ``""``.

A file an older board wrote (no ``journal`` column) is carried over once at opening, its events
under ``""``; a box of that table upgraded since then names its journal, and the first of its
match starts equal to one kept under ``""`` (the same match number, game, seats and start time)
makes the ``""`` events that journal's (:meth:`BoardFile.adopt`): the same matches, not new ones.

Over a season: ``matches`` lists every match the file holds (when the board first and last
received one of its events, how many) and, for a match *put away* (an older night's, no longer in
the board's memory: board.py), its record as the pages show it (``record``, JSON: season.py). The
board loads at start the events of the matches not put away only; a page of an older night reads
the records from here. A file an older board wrote gets its ``matches`` at the first start.
"""
import logging
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
MATCHES = """
CREATE TABLE IF NOT EXISTS matches (tbl TEXT NOT NULL, journal TEXT NOT NULL, match INTEGER NOT NULL,
    first REAL NOT NULL, last REAL NOT NULL, events INTEGER NOT NULL, record TEXT,
    PRIMARY KEY (tbl, journal, match))
"""  # record: NULL while the match is in the board's memory; its page's record once put away
BY_JOURNAL = "CREATE INDEX IF NOT EXISTS matches_by_journal ON matches (journal, match)"  # a renamed table's copies
BY_NIGHT = ("CREATE INDEX IF NOT EXISTS matches_by_night ON matches (json_extract(record, '$.night'), tbl) "
            "WHERE record IS NOT NULL")  # /nights and /nights/DAY (season.py): not every record read, at each
OLDER = "events_before_journals"  # an older board's table, while it is carried over


# An event is acknowledged to the broker once stored (board_run.py), and then the broker forgets
# it: a commit must outlive a power cut, not only a killed process (NORMAL's WAL commits are not
# synced, so a power cut took the last ones back after they were acknowledged). bench club measures both.
SYNCHRONOUS = "FULL"


def create(db):
    """The tables of a new board file."""
    for sql in (SCHEMA, CLOCKS, MATCHES, BY_JOURNAL):
        db.execute(sql)


class BoardFile:
    def __init__(self, path):
        from assistant.box.journal_files import finish_recovery, move_odd_aside
        from assistant.club.store_repair import repair
        log = logging.getLogger("assistant.club.board")
        # a pipe where SQLite looks for its own files (-journal, -wal, -shm) held the board's start
        # for ever (SQLite reads a -journal to see whether to roll it back), a folder there refused it
        if odd := move_odd_aside(path, "the board's file"):
            log.warning("board: %s", odd)
        if unusable := finish_recovery(path, ("events", "clocks", "matches"), "board file"):  # a repair a power cut ended
            log.warning("board: %s", unusable)
        if repaired := repair(path, create):  # damaged: set aside, what reads back kept (store_repair.py)
            log.warning("board: %s", repaired)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
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
            if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name='matches'").fetchone():
                self.db.execute(MATCHES)  # a file an older board wrote: every match, none put away yet
                self.db.execute("INSERT INTO matches SELECT tbl, journal, match, min(received), max(received), "
                                "count(*), NULL FROM events GROUP BY tbl, journal, match")
            self.db.execute(BY_JOURNAL)
            self.db.execute(BY_NIGHT)
        self.path = path

    def rows(self, table=None):
        """``(table, journal, match, n, body, t, received)`` in order, of one table or all, of the
        matches not put away."""
        where, args = ("AND m.tbl=?", (table,)) if table is not None else ("", ())
        return self.db.execute(  # CROSS JOIN: the matches first, each one's events by the key (not a
            # scan of the season's events, which SQLite chose for a plain JOIN ordered by the events)
            "SELECT e.tbl, e.journal, e.match, e.n, e.body, e.t, e.received FROM matches m CROSS JOIN events e "
            f"ON e.tbl=m.tbl AND e.journal=m.journal AND e.match=m.match WHERE m.record IS NULL {where} "
            "ORDER BY m.tbl, m.journal, m.match, e.n", args)

    def match_rows(self, table, journal, mid):
        """The rows (as :meth:`rows`) of one match, put away or not."""
        return self.db.execute("SELECT tbl, journal, match, n, body, t, received FROM events WHERE tbl=? AND "
                               "journal=? AND match=? ORDER BY n", (table, journal, mid)).fetchall()

    def body(self, table, journal, mid, n):
        row = self.db.execute("SELECT body FROM events WHERE tbl=? AND journal=? AND match=? AND n=?",
                              (table, journal, mid, n)).fetchone()
        return row and row[0]

    def add(self, table, journal, mid, n, body, t, received):
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (table, journal, mid, n, body, t, received))
            self.db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, 1, NULL) ON CONFLICT (tbl, journal, match) "
                            "DO UPDATE SET first=min(first, excluded.first), last=max(last, excluded.last), "
                            "events=events+1", (table, journal, mid, received, received))

    # --- a season: older nights' matches put away (board.py), read by their pages (season.py)
    def journals(self):
        """``(table, journal, first, last)``: when the board first and last received a journal's events."""
        return self.db.execute("SELECT tbl, journal, min(first), max(last) FROM matches GROUP BY tbl, journal")

    def latest(self):
        """``{(table, journal): its latest match number}``."""
        return {(t, j): m for t, j, m in self.db.execute("SELECT tbl, journal, max(match) FROM matches "
                                                         "GROUP BY tbl, journal")}

    def copies(self, table, journal, mid):
        """``[(table, put away?)]``: the other tables holding match ``mid`` of ``journal`` (a box renamed
        mid-match goes on with it under its new name: store.py keeps both)."""
        return self.db.execute("SELECT tbl, record IS NOT NULL FROM matches WHERE journal=? AND match=? AND tbl!=? "
                               "AND journal!=''", (journal, mid, table)).fetchall()

    def older(self, before):
        """``(table, journal, match)`` of the matches not put away whose latest event came before ``before``."""
        return self.db.execute("SELECT tbl, journal, match FROM matches WHERE record IS NULL AND last < ? "
                               "ORDER BY tbl, journal, match", (before,)).fetchall()

    def put_away(self, matches):
        """``[((table, journal, match), record)]``: those matches put away, in one commit."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("UPDATE matches SET record=? WHERE tbl=? AND journal=? AND match=?",
                                [(record, *key) for key, record in matches])

    def bring_back(self, table, journal, mid):
        """Is match ``mid`` put away? It no longer is (its events are loaded again)."""
        return self.db.execute("UPDATE matches SET record=NULL WHERE tbl=? AND journal=? AND match=? AND "
                               "record IS NOT NULL", (table, journal, mid)).rowcount > 0

    def away(self, table, journal, mid):
        """How many events match ``mid`` has, if it is put away; else None."""
        row = self.db.execute("SELECT events FROM matches WHERE tbl=? AND journal=? AND match=? AND record IS NOT NULL",
                              (table, journal, mid)).fetchone()
        return row and row[0]

    def put_away_events(self):
        """Events of the matches put away (counted in the page's "stored")."""
        return self.db.execute("SELECT coalesce(sum(events), 0) FROM matches WHERE record IS NOT NULL").fetchone()[0]

    def reader(self):
        """A read-only connection of its own, for a page's thread (the board's keeps writing). Its
        URI is quoted: with `--db "club #1/board.sqlite3"` (or a ``?`` or ``%`` in the name) the
        pages that read the file (Players, Nights) opened another file, or none, and were a 500."""
        from assistant.box.journal_files import read_only_uri
        return sqlite3.connect(read_only_uri(str(self.path)), uri=True, check_same_thread=False)

    def clocks(self):
        return self.db.execute("SELECT tbl, journal, behind FROM clocks")

    def forget_clock(self, table, journal):
        self.db.execute("DELETE FROM clocks WHERE tbl=? AND journal=?", (table, journal))

    def clock(self, table, journal, behind):
        self.db.execute("INSERT INTO clocks VALUES (?, ?, ?) ON CONFLICT (tbl, journal) DO UPDATE "
                        "SET behind=min(behind, excluded.behind)", (table, journal, behind))

    def heard(self):
        """``{table: when the board last received one of its events}``, by the board's clock."""
        return dict(self.db.execute("SELECT tbl, max(last) FROM matches GROUP BY tbl"))

    def adopt(self, table, journal):
        """The table's events kept under ``""`` (an older box's, or an older board's) become
        ``journal``'s: the same box, upgraded, names its journal now."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE OR IGNORE events SET journal=? WHERE tbl=? AND journal=''", (journal, table))
            self.db.execute("DELETE FROM events WHERE tbl=? AND journal=''", (table,))  # had both: kept once
            self.db.execute("DELETE FROM clocks WHERE tbl=? AND journal=''", (table,))
            self.db.execute("UPDATE OR IGNORE matches SET journal=? WHERE tbl=? AND journal=''", (journal, table))
            self.db.execute("DELETE FROM matches WHERE tbl=? AND journal=''", (table,))

    def close(self):
        self.db.close()
