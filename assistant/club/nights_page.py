"""The board's Nights pages: ``/nights`` the older nights it holds (the current one is ``/``),
``/nights/DAY`` one of them as ``/`` showed it, and an older night's match (its records read from
the board's file: season.py)."""
from contextlib import closing
from html import escape

from assistant.club import season
from assistant.club.records import NAV, in_order, of_older_nights, records, run_of
from assistant.club.tables_page import table_of_matches, table_rows
from assistant.web import pages


def nights_page(board, now=None):
    """``/nights``: the older nights the board holds (the current one is ``/``)."""
    mem = of_older_nights(records(board), now)
    with closing(board.file.reader()) as db:
        held = {night: [tables, matches] for night, tables, matches in season.nights(db)}
        for night in sorted({season.night_of(r.started) for r in mem}):
            here = {r.table for r in mem if season.night_of(r.started) == night}
            row = held.setdefault(night, [0, 0])
            row[0] += sum(not season.has_table(db, night, table) for table in here)
            row[1] += sum(season.night_of(r.started) == night for r in mem)
    held = sorted(((night, *row) for night, row in held.items()), reverse=True)
    rows = "".join(f'<tr><td><a href="/nights/{escape(night)}">{escape(night)}</a></td><td class=n>{tables}</td>'
                   f'<td class=n>{matches}</td></tr>' for night, tables, matches in held)
    body = ("<h1>Nights</h1><p class=\"quiet\">The club's older nights (tonight's tables are on "
            "<a href=\"/\">Tables</a>), the latest first; the standings on Players add up every one.</p>"
            + (f'<div class="scroll"><table><tr><th>Night</th><th class=n>Tables</th><th class=n>Matches</th></tr>'
               f'{rows}</table></div>' if rows else '<p class="quiet">No older night yet.</p>'))
    return pages.page(f"Club {board.club}: nights", "/nights", body, nav=NAV)


def night_page(board, night, now=None):
    """``/nights/DAY``: that night's tables and their matches, as ``/`` showed them that night."""
    with closing(board.file.reader()) as db:
        recs = [season.loads(text, 0, table, journal, run_of(board, table, journal), mid)
                for table, journal, mid, text in season.of_night(db, night)]
    recs += [r for r in of_older_nights(records(board), now) if season.night_of(r.started) == night]
    if not recs:
        return None
    by_table = {}
    for r in recs:
        by_table.setdefault(r.table, []).append(r)
    parts = [f"<h1>Club {escape(board.club)}: the night of {escape(night)}</h1>"]
    for table, rs in sorted(by_table.items(), key=lambda kv: in_order(kv[0])):
        rows = table_rows(sorted(rs, key=lambda r: (r.run, r.table_match)))
        parts.append(f"<h2>Table {escape(table)}</h2>{table_of_matches(rows)}")
    return pages.page(f"Club {board.club}: {night}", "/nights", "".join(parts), nav=NAV)


def put_away_match(board, table, run, mid):
    """The record of an older night's match (``run``: which of the table's journals), or None."""
    with board.lock:
        runs = board.tables.runs(table)
    if not 0 < run <= len(runs):
        return None
    with closing(board.file.reader()) as db:
        text = season.one(db, table, runs[run - 1], mid)
    return text and season.loads(text, 0, table, runs[run - 1], run, mid)
