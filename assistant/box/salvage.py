"""What a journal's rows may hold, and reading what is left of a damaged journal.

Every row is checked here before anything else reads it (``check_match``,
``check_line``, ``check_schema``): a damaged page can hold any value, and a value
that no parser is shown is a value no parser can raise on. ``salvage`` reads a
damaged file through SQLite itself, row by row in rowid order: when a page cannot
be read it seeks past it (the table's b-tree still finds the rows in other
pages) and goes on, so one bad page loses only the rows on that page.

Why not SQLite's ``.recover``: it is a command of the ``sqlite3`` shell, which
Raspberry Pi OS does not install and Python's ``sqlite3`` module does not offer;
the box must recover with what it has. What row-by-row reading cannot do: read
a table whose root page, or the schema on page 1, is damaged (``.recover``
scans every page for cells and can). The damaged file is always kept, so a
person can still run ``.recover`` on it.
"""
import itertools
import json
import math
import sqlite3
from dataclasses import dataclass, field

from assistant.box.journal_files import read_only_uri
from assistant.rules.scenario import GAME_OPTIONS, GAMES, ScenarioError, _read_seats

MAX_LINE = 200  # characters; the longest real action line (a `hand` of 8 named cards) is ~40
MAX_SCHEMA_DIGITS = 6


class BadRow(ValueError):
    """A row holding a value the journal never writes; ``str()`` names no card."""


def check_schema(value):
    """The ``meta.schema`` value as an int."""
    if not isinstance(value, str) or not value.isascii() or not value.isdigit() \
            or len(value) > MAX_SCHEMA_DIGITS:
        raise BadRow("the journal's schema number is not a number")
    return int(value)


def check_match(game, seats, options, started):
    """``(game, seats, options)`` of a ``matches`` row, or BadRow."""
    if game not in GAMES:
        raise BadRow("a match of an unknown game")
    try:
        seats = json.loads(seats) if isinstance(seats, str) and len(seats) <= 400 else None
        options = json.loads(options) if isinstance(options, str) and len(options) <= 400 else None
    except (ValueError, RecursionError):
        raise BadRow("a match whose seats or options are not readable") from None
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.isprintable() and 0 < len(s) <= 32
                                              and len(s.split()) == 1 for s in seats):
        raise BadRow("a match whose seats are not readable")
    try:
        seats = _read_seats(seats, game, 0)
    except ScenarioError:
        raise BadRow("a match whose seats are not readable") from None
    allowed = GAME_OPTIONS[game]
    if not isinstance(options, dict) or any(k not in allowed or not isinstance(v, str) or v not in allowed[k]
                                            for k, v in options.items()):
        raise BadRow("a match whose house rules are not readable")
    if not isinstance(started, (int, float)) or isinstance(started, bool) or not math.isfinite(started):
        raise BadRow("a match whose start time is not readable")
    return game, seats, options


def check_line(seq, line):
    """An action row's ``(seq, line)`` as stored, or BadRow (the rules judge the words later)."""
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq < 2 ** 31:
        raise BadRow("an action with no valid number")
    if not isinstance(line, str) or not 0 < len(line) <= MAX_LINE or not line.isprintable() \
            or not line.split():
        raise BadRow("an action line that is not readable")
    return seq, line


def read_rows(db, table, columns):
    """Every row of ``table`` that can be read, in rowid order, and the number of damaged stretches
    skipped. After a failure the rows are read one statement each up to the bad one (the module
    steps one row ahead, so a failed step hides the row before it), then the stretch is passed by
    seeking: rowid >= last good + 1, + 2, + 4, ... then back by halves to the first row that reads,
    so a few dozen queries pass any hole."""
    sql = f"SELECT rowid, {columns} FROM {table} WHERE rowid >= ? ORDER BY rowid"
    rows, holes, after = [], 0, -(2 ** 63)
    for _ in range(100_000):  # each pass reads at least one row or ends: a bound, not a limit
        try:
            for row in db.execute(sql, (after + 1,)):
                rows.append(row[1:])
                after = row[0]
            return rows, holes
        except _READ_ERRORS:
            pass
        while (row := _one(db, sql, after + 1)) not in (None, False):
            rows.append(row[1:])
            after = row[0]
        if row is None:  # no row after the last good one after all
            return rows, holes
        holes += 1
        nxt = _next_readable(db, sql, after)
        if nxt is None:
            return rows, holes
        after = nxt - 1
    return rows, holes


_READ_ERRORS = (sqlite3.DatabaseError, RecursionError, OverflowError, ValueError, MemoryError)


def _one(db, sql, start):
    """The first row from ``start`` on; None when there is none; False when it cannot be read."""
    try:
        return db.execute(sql + " LIMIT 1", (start,)).fetchone()
    except _READ_ERRORS:
        return False


def _reads(db, sql, start):
    return _one(db, sql, start) is not False


def _next_readable(db, sql, after):
    """The smallest rowid from which ``sql`` reads again (found by doubling, then halving)."""
    base = max(after, 0)
    step, hi = 1, None
    while step < 2 ** 40:
        if _reads(db, sql, base + step):
            hi = base + step
            break
        step *= 2
    if hi is None:
        return None
    lo = base + step // 2  # known not to read (or the last good row itself)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _reads(db, sql, mid):
            hi = mid
        else:
            lo = mid
    return hi


def check(db):
    """Raise (sqlite3.DatabaseError or BadRow) unless SQLite finds the file sound and every row
    holds what the journal writes. Run at every start: an index that disagrees with its table is
    found here (integrity_check), not by a missing action in the middle of a match."""
    result = db.execute("PRAGMA integrity_check(1)").fetchone()
    if result != ("ok",):
        raise sqlite3.DatabaseError(f"integrity check: {str(result[0])[:80] if result else 'no answer'}")
    # the box makes tables and their own indexes only: a trigger (one that refuses or deletes every
    # new row), a view or an index of another hand (a unique one refuses rows) is damage
    foreign = db.execute("SELECT type FROM sqlite_master WHERE type IN ('trigger', 'view') "
                         "OR (type = 'index' AND sql IS NOT NULL) LIMIT 1").fetchone()
    if foreign:
        raise BadRow(f"the journal holds a {foreign[0]} the box never makes")
    for key, value in db.execute("SELECT key, value FROM meta"):
        if key == "schema":
            check_schema(value)
    ids = set()
    for row in db.execute("SELECT id, game, seats, options, started FROM matches"):
        check_match(*row[1:])
        ids.add(row[0])
    for mid, seq, line in db.execute("SELECT match, seq, line FROM actions"):
        check_line(seq, line)
        if mid not in ids:
            raise BadRow("an action of a match that is not in the journal")


@dataclass
class Salvaged:
    """What could be read from a damaged journal, every row already checked."""
    matches: dict = field(default_factory=dict)  # id -> (game, seats, options, started)
    actions: dict = field(default_factory=dict)  # match id -> {seq: line}
    set_aside: list = field(default_factory=list)  # (match, seq, line, reason), kept for a person
    unreadable: int = 0  # rows that were there but held values the journal never writes
    holes: int = 0  # stretches of pages that could not be read at all
    meta: dict = field(default_factory=dict)  # the table's settings and each match's last time
    schema: int | None = None  # the schema number the journal records, where it can be read

    @property
    def count(self):
        return sum(len(a) for a in self.actions.values())


def salvage(path, every_page=False, page_size=None, unchecked=(), earlier=()):
    """Read what is left of the journal at ``path`` (read-only: the file is not changed): through
    SQLite row by row, then, where SQLite could not walk a table whole (or always, with
    ``every_page``), from the pages themselves (pagescan) for the rows it could not reach.
    ``unchecked``: pages of -wal frames that fail their checksum or salts (their header was hit);
    only ``matches`` rows no other page holds are taken from them: a match's row is written once
    and never changed, so any copy of it is the match (without it, every action of the match is
    set aside), while an action's number may be reused after a tail is set aside. ``earlier``:
    older versions of pages, ``(page number, bytes)``, for rows no newer page holds (_older_rows)."""
    out = Salvaged()
    found = {"matches": [], "actions": [], "set_aside": [], "meta": []}
    try:
        db = sqlite3.connect(read_only_uri(str(path)), uri=True, isolation_level=None)
        try:
            for table, cols in (("matches", "id, game, seats, options, started"),
                                ("actions", "match, seq, line"),
                                ("set_aside", "match, seq, line, reason"), ("meta", "key, value")):
                try:
                    found[table], holes = read_rows(db, table, cols)
                except _READ_ERRORS:
                    holes = 1
                out.holes += holes if table != "meta" else 0  # no action is lost with a setting
        finally:
            db.close()
    except sqlite3.Error:
        out.holes += 1
    if out.holes or every_page:
        from assistant.box.pagescan import scan, scan_pages
        overlay, older = _wal_pages(path)
        hidden = []  # the file's own versions of the pages the -wal's replace
        try:
            matches, actions = scan(path, page_size, overlay, hidden=hidden)
        except OSError:
            matches, actions = [], []
        known = {row[0] for row in found["matches"]}
        found["matches"] += [m for m in matches if m[0] not in known]
        have = {(row[0], row[1]) for row in found["actions"]}
        found["actions"] += sorted(a for a in actions if (a[0], a[1]) not in have)
        _older_rows(found, scan_pages(((data, 100 if page == 1 else 0) for page, data in
                                       itertools.chain(older, hidden, earlier)), page_size or 0))
        known = {row[0] for row in found["matches"]}
        for m in scan_pages(((page, 0) for page in unchecked), page_size or 0)[0]:
            if m[0] not in known:
                known.add(m[0])
                found["matches"].append(m)
    for table in ("matches", "actions", "set_aside", "meta"):
        getattr(_Sorter, table)(out, found[table])
    return out


def _older_rows(found, older):
    """Rows that only an older version of a page still holds (``older``: pagescan's matches and
    actions on them): a leaf SQLite wrote once (the rows of a root page that split, copied to a
    new page) and damaged since is the only newest copy of its rows, and the page they were on
    before still has them. A match's row never changes, so any copy is the match; an action is
    taken only for a number no newer page holds, with one line in every older version, and never
    one set aside (its number may be used again)."""
    matches, actions = older
    known = {row[0] for row in found["matches"]}
    for m in matches:
        if m[0] not in known:
            known.add(m[0])
            found["matches"].append(m)
    have = {(row[0], row[1]) for row in found["actions"]}
    aside = {tuple(row[:3]) for row in found["set_aside"]}
    lines = {}
    for a in actions:
        if (a[0], a[1]) not in have and tuple(a) not in aside:
            lines.setdefault((a[0], a[1]), set()).add(a[2])
    found["actions"] += sorted((*key, next(iter(v))) for key, v in lines.items() if len(v) == 1)


def _wal_pages(path):
    """The -wal beside ``path``: ``(its latest readable version of each page, the readable older
    versions as (page number, bytes))`` (SQLite read the latest, not the file's, through the
    b-tree walk: a damaged interior page of the file hides them from it), or ({}, []) without one."""
    from assistant.box import walscan
    from assistant.box.preflight import read_wal
    data = read_wal(path + "-wal")
    if data is None:
        return {}, ()
    wal = walscan.read(data)
    return (wal.pages(data), wal.older(data)) if wal is not None else ({}, ())


def salvage_files(path, look):
    """What can be read from journal files that SQLite must not open as they are (preflight.py):
    the file's pages with the -wal's latest readable version of each page laid over them, written
    to a scratch copy that SQLite and pagescan read; the files themselves are only read."""
    from assistant.box.journal_files import private_file, remove_files
    scratch = path + ".salvaging"
    remove_files(scratch)
    private_file(scratch)
    try:
        wal = look.wal
        size = wal.page_size if wal is not None else None
        replaced = []  # the file's pages the -wal's replace
        with open(scratch, "r+b") as out:
            if "" in look.had:
                with open(path, "rb") as main:
                    while block := main.read(1 << 20):
                        out.write(block)
            for page, data in (wal.pages(look.wal_data) if wal is not None else {}).items():
                out.seek((page - 1) * size)
                if len(mine := out.read(size)) == size:
                    replaced.append((page, mine))
                out.seek((page - 1) * size)
                out.write(data)
        unchecked = [] if wal is None else wal.unchecked(look.wal_data)
        earlier = itertools.chain(() if wal is None else wal.older(look.wal_data), replaced)
        return salvage(scratch, every_page=True, page_size=size, unchecked=unchecked, earlier=earlier)
    finally:
        remove_files(scratch)


class _Sorter:
    @staticmethod
    def matches(out, rows):
        for mid, game, seats, options, started in rows:
            try:
                if not isinstance(mid, int) or mid < 1:
                    raise BadRow("no id")
                out.matches[mid] = (*check_match(game, seats, options, started), started)
            except BadRow:
                out.unreadable += 1

    @staticmethod
    def actions(out, rows):
        for mid, seq, line in rows:
            try:
                seq, line = check_line(seq, line)
            except BadRow:
                out.unreadable += 1
                continue
            if mid not in out.matches:
                out.set_aside.append((mid if isinstance(mid, int) else -1, seq, line,
                                      "its match could not be read"))
            elif seq in out.actions.setdefault(mid, {}):
                out.unreadable += 1  # a second row with one number: the first one stays
            else:
                out.actions[mid][seq] = line

    @staticmethod
    def meta(out, rows):
        """Kept: the table's settings (deal scan), each match's last time (the web page's
        'finished') and the journal's name (the club's board: the same matches, the same journal),
        short printable text; the readers of all take any value without harm."""
        for key, value in rows:
            if key == "schema":
                try:
                    out.schema = check_schema(value)
                except BadRow:
                    pass
            if isinstance(key, str) and (key.startswith(("setting:", "last:")) or key == "journal") and len(key) <= 40 \
                    and key.isprintable() and isinstance(value, str) and len(value) <= 400 and value.isprintable():
                out.meta[key] = value

    @staticmethod
    def set_aside(out, rows):
        for mid, seq, line, reason in rows:
            if isinstance(mid, int) and isinstance(seq, int) and isinstance(line, str) \
                    and isinstance(reason, str) and len(line) <= MAX_LINE and len(reason) <= 400:
                out.set_aside.append((mid, seq, line, reason))


def write_recovered(path, found, schema, version):
    """A new journal at ``path`` holding ``found``: each match's actions up to the first gap;
    what follows a gap, and rows whose match is lost, go to ``set_aside``."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.executescript(schema)
        db.execute("BEGIN")
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(version),))
        db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(found.meta.items()))
        for mid, (game, seats, options, started) in sorted(found.matches.items()):
            db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?)",
                       (mid, game, json.dumps(list(seats)), json.dumps(options), started))
            lines = found.actions.get(mid, {})
            for seq in sorted(lines):
                if all(s in lines for s in range(1, seq)):
                    db.execute("INSERT INTO actions VALUES (?, ?, ?)", (mid, seq, lines[seq]))
                else:
                    found.set_aside.append((mid, seq, lines.pop(seq), "an earlier action is missing"))
        db.executemany("INSERT INTO set_aside VALUES (?, ?, ?, ?)", found.set_aside)
        db.execute("COMMIT")
    finally:
        db.close()
