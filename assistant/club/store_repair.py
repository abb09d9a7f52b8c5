"""A damaged board file (truncated, a page zeroed, not a database at all) at the board's start.

Before, ``card-assistant board`` stopped at "cannot use board.sqlite3: database disk image is
malformed" and a whole club night had no results board. Now, as the box does with its journal
(assistant/box/salvage.py), the board reads back what SQLite can still read of the damaged file
(row by row, past the damaged pages), writes it into a new file, sets the damaged one aside under
a dated name that says so (``board.sqlite3.damaged-STAMP``: kept as it was, never deleted, so a
person can still run ``sqlite3 .recover`` on it), and says in one line where it is and how many
events are missing from the page. The boxes' own journals still hold every match.

Why salvage rather than only a new file: the board's file is the season (older nights' matches
are read from it), and a page zeroed usually costs a few dozen events of one match, not the
season. Why at the start only: ``PRAGMA quick_check`` reads every page (a season's file: well
under a second), once; damage that appears while the board runs is said in its refusals
(board.damaged), the message acknowledged (held unacknowledged, each took one of the broker's few
places in flight to the board, and a damaged match stopped every table's events), and the next
start repairs the file; the matches' records bring back what was refused meanwhile.
"""
import os
import sqlite3

from assistant.box.journal_files import read_only_uri, replace_with_recovered
from assistant.box.salvage import read_rows

DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
EVENT_COLUMNS = "tbl, journal, match, n, body, t, received"


def damage(path):
    """Why the board's file at ``path`` is damaged, in SQLite's words, or None (sound, missing,
    empty, or not readable for another reason: locked, another user's; the open says that)."""
    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) == 0:
            return None
    except OSError:
        return None
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return None
    try:
        found = db.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as e:
        # Python gives SQLite's extended code (SQLITE_CORRUPT_INDEX is 779): its low byte is the primary one
        return str(e)[:80] if (getattr(e, "sqlite_errorcode", 0) & 0xFF) in DAMAGED else None
    finally:
        db.close()
    return None if found == ("ok",) else "damaged pages"


def repair(path, schema):
    """Set the damaged file at ``path`` aside and put in its place a new one made by ``schema(db)``
    holding every event and clock that could be read back. The words for the log."""
    why = damage(path)
    if why is None:
        return None
    read = {}
    aside = replace_with_recovered(path, lambda tmp: read.update(_write(path, tmp, schema)))
    got, lost = read["events"], read["lost"]
    if lost is None:
        missing = "how many events could not be read is not known (its list of matches is damaged too)"
    elif lost:
        missing = f"{lost} event(s) could not be read and are missing from the page"
    else:
        missing = "nothing is missing"
    return (f"{path} was damaged ({why}): set aside as {os.path.basename(aside)} (kept as it was); "
            f"{got} event(s) of {read['matches']} match(es) read back from it into a new file, {missing} "
            "(a finished match's record, which the broker keeps, brings its events back when the board connects; "
            "the boxes' own journals hold every match)")


def _write(path, tmp, schema):
    """Write the new file ``tmp`` from what can be read of ``path``."""
    events, clocks, expected = _read(path)
    new = sqlite3.connect(tmp, isolation_level=None)
    try:
        new.execute("BEGIN")
        schema(new)
        new.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", events)
        new.executemany("INSERT OR IGNORE INTO clocks VALUES (?, ?, ?)", clocks)
        # records NULL: every match is loaded, and an older night's put away again at the start
        new.execute("INSERT INTO matches SELECT tbl, journal, match, min(received), max(received), count(*), "
                    "NULL FROM events GROUP BY tbl, journal, match")
        new.execute("COMMIT")
        got = new.execute("SELECT count(*) FROM events").fetchone()[0]
        matches = new.execute("SELECT count(*) FROM matches").fetchone()[0]
    finally:
        new.close()
    return {"events": got, "matches": matches, "lost": None if expected is None else max(0, expected - got)}


def _read(path):
    """``(events, clocks, expected)``: the rows that read back whole; ``expected``: how many
    events the damaged file's list of matches says it held (None when that list is damaged)."""
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return [], [], None
    try:
        # a truncated file: its header counts pages past its end, and SQLite refused its schema whole
        # ("malformed"), every row with it; writable_schema reads it (nothing is written: read-only)
        db.execute("PRAGMA writable_schema=ON")
        events = _rows(db, "events", EVENT_COLUMNS, _event) \
            or _rows(db, "events", EVENT_COLUMNS.replace("journal", "''"), _event)  # an older board's file
        clocks = _rows(db, "clocks", "tbl, journal, behind", _clock)
        matches, holes = _try_read(db, "matches", "events")
        expected = None if holes or matches is None else sum(e for (e,) in matches if type(e) is int)
        if expected is not None and not matches and events:
            expected = None  # an older board's file: no list of matches
        return events, clocks, expected
    finally:
        db.close()


def _try_read(db, table, columns):
    try:
        return read_rows(db, table, columns)
    except sqlite3.Error:  # the table is not there, or its root page is damaged
        return None, 1


def _rows(db, table, columns, valid):
    rows, _ = _try_read(db, table, columns)
    return [r for r in rows or () if valid(r)]


def _event(row):
    """A row as the board writes it: a page cut short or zeroed part-way holds rows of any value
    (the board would skip them at every start, a line each: they are counted missing instead)."""
    from assistant.club.message import checked, loads
    tbl, journal, match, n, body, t, received = row
    if not (isinstance(tbl, str) and isinstance(journal, str) and type(match) is int and type(n) is int
            and isinstance(body, str) and (t is None or type(t) in (int, float)) and type(received) in (int, float)):
        return False
    try:
        checked(loads(body), n)
    except Exception:  # noqa: BLE001 (any value at all: JSON nested too deep, not a dict, a Refusal)
        return False
    return True


def _clock(row):
    return isinstance(row[0], str) and isinstance(row[1], str) and type(row[2]) in (int, float)
