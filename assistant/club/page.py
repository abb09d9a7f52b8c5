"""The board's page, on the box's web stack (assistant/web): its pages, style, charts, statistics.

``/`` every table live (each table's matches of the current night, the latest first),
``/nights`` the older nights and ``/nights/DAY`` one (their records read from the board's file:
season.py), ``/matches/TABLE/M`` one match with its chart and hands (web.pages.match_page),
``/players`` the standings across tables by player and by partnership with wins over time, every
night the board holds (stats.standings, web.pages.players_page), ``/api/club`` the board's JSON.
The records are built by ``stats.replay_match`` from the board's own replay (:mod:`.replay`),
never from a box's figures; only public facts are in them.
"""
import copy
import json
import re
import threading
import time
import weakref
from html import escape
from importlib.resources import files
from urllib.parse import quote, unquote

from assistant.club import season
from assistant.club.message import shown_now
from assistant.club.publisher import ALIVE
from assistant.club.standings import Older, add_places, club_standings, clashes_within, match_name  # noqa: F401
from assistant.box.stats import IN_PLAY
from assistant.web import pages
from assistant.web.serving import HEADERS, PlainErrors, Server

NAV = (("/", "Tables"), ("/nights", "Nights"), ("/players", "Players"))  # the board's (a box's: Now, Matches, Players)
TIMEOUT = 15  # seconds: a client that sends nothing is let go, as by the box's own page
SILENT = 3 * ALIVE  # seconds without a connected box's sign of life: it is not there any more
NO_PLAYERS = "No match yet of players known by their tags (enrol them: card-assistant players add NAME)."
GUESTS_ONLY = '<p class="quiet">Played by guests only so far: nobody stands in it.</p>'
GUESTS_NOTE = ('<p class="quiet">Guests (a seat nobody tapped a player tag for keeps its name, P1 to P4) '
               'are different people at every table and match, so they are left out here.</p>')


def records(board):
    """MatchRecords of every match the board holds, numbered 1.. in the order they started (on the
    board's clock: ``on_board``). Each
    says its table, its number at the table (``table_match``), its journal and which of the
    table's journals that is (``run``: 2 and on after a box began a new journal). A match's record
    is made again only once an event of it was applied (or its place changed): replaying tonight's
    matches was most of every page's time."""
    with board.lock:
        latest = {}
        for key in board.ordered():  # the newest journal's newest match, the last of its table
            latest[key[0]] = key
        gone = moved(board)
        kept = _records.setdefault(board, {})
        for key in [k for k in kept if k not in board.matches]:
            del kept[key]  # put away
        made = []
        for key, bm in board.matches.items():
            if key in gone:
                continue
            table, journal, mid = key
            seen = (bm, bm.next, board.run(table, journal), latest[table] == key,
                    on_board(board, table, journal, bm.started) or 0,
                    on_board(board, table, journal, board.clocks.last.get(key)))
            if kept.get(key, (None,))[0] != seen:
                kept[key] = (seen, None, season.lines_of(bm))
            made.append((seen[4], table, seen[2], mid, key, kept[key]))
    made.sort(key=lambda m: m[:4])
    out = []
    for k, (*_, key, entry) in enumerate(made, 1):
        seen, rec, lines = entry
        if rec is None:  # minutes a match (start and end on the board's clock by one difference: the box's own
            # length); a match in play or abandoned has not finished (season.match_record)
            rec = season.match_record(k, *key[:2], seen[2], key[2], seen[0], lines, *seen[3:])
            kept[key] = (seen, rec, None)
        out.append(copy.copy(rec))  # numbered for this page: the kept one is shared
        out[-1].id = k
    return out


_records = weakref.WeakKeyDictionary()  # board -> {match key: (what it was made of, its record, lines)}


def older_records(board):
    """The older nights' records, from the board's file (season.py), numbered 1.. in the order they
    started. A generator: the season is never in memory at once."""
    db = board.file.reader()
    try:
        for k, (table, journal, mid, text) in enumerate(season.put_away(db), 1):
            yield season.loads(text, k, table, journal, run_of(board, table, journal), mid)
    finally:
        db.close()


_older = weakref.WeakKeyDictionary()  # board -> standings.Older of its put-away matches
_adding_up = threading.Lock()         # one request adds the older nights up; the others wait for it


def older(board):
    """The older nights added up once (standings.Older), again only after a match was put away or
    brought back (``board.put_away_version``)."""
    with _adding_up:
        version = board.put_away_version
        kept = _older.get(board)
        if kept is None or kept.version != version:
            _older[board] = kept = Older(older_records(board), version)
        return kept


def season_figures(board, live):
    """``(tally, wins, clashes, more)`` of every night the board holds: the older nights' (added up once)
    and the current night's ``live`` records (records(board)), numbered on after them."""
    before = older(board)
    for k, rec in enumerate(live, before.count + 1):
        rec.id = k
    return before.figures(live, board.spans())


def moved(board):
    """``{(table, journal, match): the table it went on at}`` (the board's lock held): a box renamed
    mid-match (its ``[club] table``) goes on with the match in play under its new name, whole, so
    the board holds it under both; the copy under the name its box left is never finished, and
    is left out. The same match: one journal, number, game, seats and start (two boxes that share
    a journal's name, a card copied, play matches that differ)."""
    names = {}
    for (table, journal, mid), bm in board.matches.items():
        if journal is not None:
            names.setdefault((journal, mid, bm.game, tuple(bm.seats), bm.started), []).append(table)
    out = {}
    for (journal, mid, *_), tables in names.items():
        now = max(tables, key=lambda t: board.heard.get(t) or 0)  # the name its box sent under last
        out.update({(t, journal, mid): now for t in tables if t != now})
    return out


def renamed(board):
    """``{table: the table its box plays as now}`` (the board's lock held): a box renamed between
    matches (its ``[club] table``) names the same journal under its new name, in its statuses and
    events; the old name's box is not gone. A journal is where its box says it is connected, else
    where the board heard it last (a restarted board gets the retained statuses in any order)."""
    heard = dict(board.tables.latest)  # (table, journal) -> when the board last received its events
    for table, journal in board.said_by.items():
        heard[(table, journal)] = max(board.said.get(table, 0), heard.get((table, journal), 0))
    now, latest = {}, {}  # journal -> (connected, when, table) it is at now; table -> (when, journal) last heard
    for (table, journal), when in heard.items():
        if journal:
            here = (board.online.get(table) is True and board.said_by.get(table) == journal, when, table)
            now[journal] = max(now.get(journal, here), here)
        latest[table] = max(latest.get(table, (0, "")), (when, journal))
    return {table: now[journal][2] for table, (_, journal) in latest.items()
            if journal and now[journal][2] != table}


def on_board(board, table, journal, t):
    """A time ``t`` by that box's clock, on the board's (clocks.py): a box whose clock is days out
    (a Pi that kept the time it was switched off) played tonight, not on the day its clock says."""
    behind = board.clocks.behind.get((table, journal))
    return t + behind if t and behind is not None else t


def two_tables_at_once(board, recs):
    """Players (by name: guests left out) seated at two tables at the same time, by the boxes' own
    clocks read on the board's (clocks.py: not when the board received the events, which a box
    back in the Wi-Fi sends in a burst), by more than ``SLACK`` seconds: two people with one name,
    or one tag at two tables, whom the standings add up as one. ``[(name, (table, match),
    (table, match), start, end)]``; a match is ``(table, its number)``, with ``run`` 2 and on for
    a box's later journal: ``(table, number, run)``."""
    places = {name: sorted(ps) for name, ps in add_places(recs, board.spans(), {}).items()}
    return sorted(clashes_within(places))


def match_words(table, mid, run=1):
    return f"table {escape(table)} match {mid}" + (f" (the box's journal {run})" if run > 1 else "")


def clash_note(clashes, more=0):
    lines = "".join(f"<li>{escape(name)}: {match_words(*a)} and {match_words(*b)}, both in play at "
                    f"{pages.when(start)}</li>" for name, a, b, start, _ in clashes)
    earlier = f"<p>And {more} more before these.</p>" if more else ""
    return (f'<div class="warn"><p>Seated at two tables at the same time: two people with one name, or one '
            f'player tag at two tables? Their figures are added up here as one player\'s.</p><ul>{lines}</ul>'
            f'{earlier}</div>' if lines else "")


def club_json(board):
    """``/api/club``: the board's snapshot and the standings across tables (club_standings)."""
    out = board.snapshot()
    with board.lock:  # a table known by its box's status or table now only (as on the page)
        known = {*board.online, *board.now}
        gone = moved(board)
    for table in out["tables"]:
        table["matches"] = [m for m in table["matches"] if (table["table"], m.get("journal"), m["match"]) not in gone]
    for table in sorted(known - set(out["boxes"]), key=in_order):
        out["boxes"][table] = {"online": None, "heard": board.heard.get(table),
                               "refused": board.refused_at.get(table, 0)}
    with board.lock:
        went = renamed(board)
    for table, box in out["boxes"].items():
        box["online"] = box_online(board, table)
        box["renamed"] = None if box["online"] else went.get(table)  # its box plays under this name now
        box["older"] = older_box(board, table)  # connected by the broker's last word only (no beat)
    recs = records(board)
    by_match = {(r.table, r.run, r.table_match): r for r in recs}
    for table in out["tables"]:  # as the Tables page: finished, abandoned or in play, and since when
        for m in table["matches"]:
            rec = by_match.get((table["table"], m.get("run", 1), m["match"]))
            if rec is not None:
                m["state"], m["started"] = rec.state, rec.started or None
    out["standings"] = club_standings(season_figures(board, recs)[0])  # every night the board holds
    night, of_tonight = tonight(recs)
    out["tonight"] = {"night": night, "standings": club_standings(older(board).tonight(night, of_tonight))}
    return out


def tonight(recs, now=None):
    """``(night, its records)``: the current night (season.night_of) and those of ``recs`` begun in it."""
    night = season.night_of(now or time.time())
    return night, [r for r in recs if r.started and season.night_of(r.started) == night]


def standing_tables(game, kinds):
    """A game's standings tonight: its players and partnerships."""
    out = pages.table(game, kinds["players"], "Player")
    if kinds["partnerships"]:
        out += (f'<h3>{pages.GAME_NAMES[game]}: partnerships tonight</h3>'
                + pages.table(game, kinds["partnerships"], "Partnership"))
    return out


def players_page(board):
    """``/players``: tonight's standings before the season's (every night the board holds, drawn as
    a box's Players page: web.pages.players_page), wins over time a line a player (Twenty-Nine's
    partners change from table to table), and who sat at two tables at once."""
    live = records(board)
    figures, wins, clashes, more = season_figures(board, live)
    the_season = club_standings(figures)
    night, recs = tonight(live)
    tonights = club_standings(older(board).tonight(night, recs))
    parts = [GUESTS_NOTE, clash_note(clashes, more), f'<h2>Tonight (the night of {escape(night)})</h2>']
    if not tonights:
        parts.append('<p class="quiet">No match tonight yet.</p>')
    for game, kinds in tonights.items():
        parts.append(f'<h3>{pages.GAME_NAMES[game]}: tonight</h3>' + standing_tables(game, kinds) if kinds["players"]
                     else f'<h3>{pages.GAME_NAMES[game]}: tonight</h3>{GUESTS_ONLY}')
    parts.append('<h2>The season</h2><p class="quiet">Every night the board holds, tonight\'s too; older '
                 'nights on <a href="/nights">Nights</a>.</p>')
    parts.extend(f'<h3>{pages.GAME_NAMES[game]}: the season</h3>{GUESTS_ONLY}'
                 for game, kinds in the_season.items() if not kinds["players"])
    named = {game: kinds for game, kinds in the_season.items() if kinds["players"]}
    return pages.players_page(named, {game: lines["players"] for game, lines in wins.items()}, NAV,
                              "".join(parts), NO_PLAYERS)


def in_order(table):
    """A sort key that puts t2 before t10 (install.sh names a club's tables t1 to tN).

    >>> sorted(["t10", "t2", "red", "t1"], key=in_order)
    ['red', 't1', 't2', 't10']
    """
    return [(int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", table)]


def box_online(board, table):
    """Its box's latest status (None: none came), False when a box said "online" but has not said
    it again for ``SILENT`` seconds (or three of its beats, if longer): a power cut that took the
    broker with it left its retained "online" behind, and no will (the broker that held it was gone
    too). An older box, which says "online" only as it connects (its status says no beat), is taken
    at the broker's last word: its silence between matches is no sign it is gone (older_box says so)."""
    online, beat = board.online.get(table), board.beat.get(table)
    said = max(board.said.get(table) or 0, board.heard.get(table) or 0)
    return False if online and beat and time.time() - said > max(SILENT, 3 * beat) else online


def older_box(board, table):
    """Is the table's box connected by the broker's last word only (an older box: no beat)?"""
    return board.online.get(table) is True and table in board.beat and board.beat[table] is None


def presence(board, table, recs, went=None):
    """Whether the table's box is there (its status, or the broker's will when it went without a
    goodbye) and when the board last heard from it: a box switched off mid-match is not a match
    being played. ``went``: the table its box went on at (renamed mid-match, ``moved``)."""
    online, heard = box_online(board, table), board.heard.get(table)
    if went and not online:
        return (f'<p class="quiet">Its box now plays as table {escape(went)} (renamed)'
                + (f' · last heard as {escape(table)} from {pages.when(heard)}' if heard else '') + '</p>')
    last = (f"last heard from {pages.when(heard)}" if heard  # its latest event (a status says "connected")
            else "no match from it yet" if online else "nothing heard yet")
    refused = board.refused_at.get(table, 0)
    out = (f'<p class="warn">{refused} message{"" if refused == 1 else "s"} from this table refused: '
           f'the board\'s log says why (two boxes set up with this table\'s name, or an older box, which '
           f'names no journal, whose journal began anew under a name the board holds, send matches that '
           f'differ from those stored)</p>' if refused else "")
    if online is False:
        waiting = ": its match in play waits for it" if recs and recs[-1].state == IN_PLAY else ""
        return (f'<p class="warn">Box not connected (switched off, stopped or out of the Wi-Fi) · '
                f'{last}{waiting}</p>{out}')
    if online and older_box(board, table):
        return (f'<p class="quiet">Box connected, by the broker\'s last word · {last} · an older box: it says '
                f'so only as it connects, so the board cannot tell whether it went in a power cut that took '
                f'the broker too</p>{out}')
    return f'<p class="quiet">{"Box connected · " if online else ""}{last[:1].upper() + last[1:]}</p>{out}'


def match_link(rec):
    """A match's page on the board, by its table and the box's own number: one address for good
    (a number across tables moved whenever a match that started earlier, by its box's clock,
    arrived later); a box's later journal (reset, a new card) numbers from 1 again, under its own."""
    journal = f"/journal-{rec.run}" if rec.run > 1 else ""
    return f"/matches/{quote(rec.table, safe='')}{journal}/{rec.table_match}"


def held_note(board, table, rs):
    """Words for a table whose match in play the board cannot show: its start never came (the
    board started, for the first time, after the match had begun), only later events."""
    with board.lock:  # of the table's latest journal (a box reset: its new journal)
        held = sorted((board.run(t, journal), mid, journal) for (t, journal, mid) in board.tables.early if t == table)
        now = board.now.get(table)
        shown = now and dict(shown_now(now), journal=now.get("journal"))
    if not held:
        return ""
    run, mid, journal = held[-1]
    if any((r.run, r.table_match) > (run, mid) for r in rs):  # a later match began: not in play
        return ""
    said = ""
    if shown and (shown["journal"], shown["match"]) == (journal, mid) and isinstance(shown.get("state"), dict):
        score = shown["state"].get("score")
        if isinstance(score, list) and len(score) == 2:
            said = f" (the box says {escape(str(score[0]))}–{escape(str(score[1]))})"
    return (f'<p class="quiet">Match {mid} is in play{said}; it began before the board first heard from '
            f'this table, so it is shown here whole once its record comes: at the match\'s end, or when '
            f'the box next connects.</p>')


def table_rows(rs, together=()):
    """A table's matches, the latest first; a box that began a new journal (reset, a new SD card)
    numbers its matches from 1 again: each journal's are under a line of their own. ``together``:
    the runs whose journal sent while the one before it still did (two boxes with one name)."""
    runs = {r.run for r in rs}
    out = []
    for k, r in enumerate(reversed(rs)):
        if len(runs) > 1 and (k == 0 or rs[-k].run != r.run):
            began = ("the first the board had" if r.run == 1 else
                     "sent while the one before it still did: two boxes set up with this table's name?"
                     if r.run in together else
                     "begun anew: a box reset, a new card, or a second box set up with this table's name")
            out.append(f'<tr><td colspan="6" class="quiet">The box\'s journal {r.run} ({began})</td></tr>')
        out.append(  # as a box's Matches page: a side a line, so a phone has room for them all
            f'<tr><td><a href="{escape(match_link(r))}">{r.table_match}</a></td><td>{pages.GAME_NAMES[r.game]}</td>'
            f'<td>{pages.score_cell(r, narrow=True)}</td><td class="wide">{escape(" and ".join(r.winner or ()))}</td>'
            f'<td class="wide">{pages.state_cell(r)}</td><td>{pages.when_cell(r.started)}</td></tr>')
    return "".join(out)


def club_page(board, recs, now=None):
    by_table = {}
    with board.lock:  # a table known by its box's status or its table now, before any match of it
        for table in (*board.online, *board.now, *(t for t, _, _ in board.tables.early)):
            by_table.setdefault(table, [])
    for r in recs:
        by_table.setdefault(r.table, []).append(r)
    counts = board.counts
    parts = [f"<h1>Club {escape(board.club)}</h1>",
             f'<p class="quiet">{counts["stored"]} events stored, each once ({counts["duplicates"]} came again, '
             f'as they should: in each match\'s record at its end and after reconnects), '
             f'{counts["refused"]} refused. Updates every 5 seconds.</p>']
    db = board.file.reader()
    try:
        older = season.count(db) + len(of_older_nights(recs, now))
    finally:
        db.close()
    if older:
        parts.append(f'<p class="quiet">Tonight\'s matches (and each table\'s latest) below; {older} '
                     f'match{"es" if older != 1 else ""} of older nights on <a href="/nights">Nights</a>.</p>')
    if not board.connected:
        parts.append('<p class="quiet">The board is not connected to the broker: '
                     'nothing new can arrive until it is (the log says why).</p>')
    if not by_table:
        parts.append('<p class="quiet">No table has sent anything yet.</p>')
    with board.lock:
        went = {**renamed(board), **{table: now for (table, _, _), now in moved(board).items()}}
    for table, rs in sorted(by_table.items(), key=lambda kv: in_order(kv[0])):
        with board.lock:
            together = {r.run for r in rs if board.tables.together(table, r.journal)}
        rows = table_rows(sorted(rs, key=lambda r: (r.run, r.table_match)), together)  # the box's own order
        parts.append(f"<h2>Table {escape(table)}</h2>{presence(board, table, rs, went.get(table))}"
                     f"{held_note(board, table, rs)}"
                     + (f"<div class=\"scroll\"><table><tr><th>#</th><th>Game</th>"
                        f'<th>Score</th><th class="wide">Winner</th><th class="wide">State</th><th>Started</th></tr>'
                        f'{rows}</table></div>' if rows else ""))
    body = '<meta http-equiv="refresh" content="5">' + "".join(parts)
    return pages.page(f"Club {board.club}", "/", body, nav=NAV)


def run_of(board, table, journal):
    with board.lock:  # the paho thread may add a journal meanwhile
        return board.run(table, journal)


def of_older_nights(recs, now=None):
    """The records in memory of nights before the current one: each table's latest match (kept for
    ``/``) and those not yet put away (12 hours after their last event). /nights counted only the
    matches put away, so a night's last match at every table was missing from it."""
    current = season.night_of(now or time.time())
    return [r for r in recs if r.started and season.night_of(r.started) < current]


def nights_page(board, now=None):
    """``/nights``: the older nights the board holds (the current one is ``/``)."""
    mem = of_older_nights(records(board), now)
    db = board.file.reader()
    try:
        held = {night: [tables, matches] for night, tables, matches in season.nights(db)}
        for night in sorted({season.night_of(r.started) for r in mem}):
            here = {r.table for r in mem if season.night_of(r.started) == night}
            row = held.setdefault(night, [0, 0])
            row[0] += sum(not season.has_table(db, night, table) for table in here)
            row[1] += sum(season.night_of(r.started) == night for r in mem)
    finally:
        db.close()
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
    db = board.file.reader()
    try:
        recs = [season.loads(text, 0, table, journal, run_of(board, table, journal), mid)
                for table, journal, mid, text in season.of_night(db, night)]
    finally:
        db.close()
    recs += [r for r in of_older_nights(records(board), now) if season.night_of(r.started) == night]
    if not recs:
        return None
    by_table = {}
    for r in recs:
        by_table.setdefault(r.table, []).append(r)
    parts = [f"<h1>Club {escape(board.club)}: the night of {escape(night)}</h1>"]
    for table, rs in sorted(by_table.items(), key=lambda kv: in_order(kv[0])):
        rows = table_rows(sorted(rs, key=lambda r: (r.run, r.table_match)))
        parts.append(f"<h2>Table {escape(table)}</h2><div class=\"scroll\"><table><tr><th>#</th><th>Game</th>"
                     f'<th>Score</th><th class="wide">Winner</th><th class="wide">State</th><th>Started</th></tr>'
                     f"{rows}</table></div>")
    return pages.page(f"Club {board.club}: {night}", "/nights", "".join(parts), nav=NAV)


def put_away_match(board, table, run, mid):
    """The record of an older night's match (``run``: which of the table's journals), or None."""
    with board.lock:
        runs = board.tables.runs(table)
    if not 0 < run <= len(runs):
        return None
    db = board.file.reader()
    try:
        text = season.one(db, table, runs[run - 1], mid)
    finally:
        db.close()
    return text and season.loads(text, 0, table, runs[run - 1], run, mid)


def serve(board, host, port):
    """Serve in a thread; returns the server (``server_address[1]`` is the port)."""
    style = files("assistant.web").joinpath("static", "style.css").read_bytes()

    class Handler(PlainErrors):
        server_version = "card-assistant-board"
        sys_version = ""
        timeout = TIMEOUT

        head = False  # HEAD: the answer's status and headers without its body

        def do_HEAD(self):
            self.head = True
            self.do_GET()

        def _refuse(self):
            self.send_error(405, "this page is read-only: GET and HEAD only")

        do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            try:
                if path == "/api/club":
                    return self._send(200, "application/json", json.dumps(club_json(board)).encode())
                if path == "/static/style.css":
                    return self._send(200, "text/css; charset=utf-8", style)
                if path in ("/", "/matches"):
                    return self._html(club_page(board, records(board)))
                if path == "/players":
                    return self._html(players_page(board))
                if path == "/nights":
                    return self._html(nights_page(board))
                m = re.fullmatch(r"/nights/([0-9]{4}-[0-9]{2}-[0-9]{2})", path)
                if m and (text := night_page(board, m.group(1))):
                    return self._html(text)
                m = re.fullmatch(r"/matches/([^/]{1,200})(?:/journal-([0-9]{1,4}))?/([0-9]{1,9})", path)
                if m:
                    table, run, mid = unquote(m.group(1)), int(m.group(2) or 1), int(m.group(3))
                    rec = next((r for r in records(board) if (r.table, r.run, r.table_match) == (table, run, mid)),
                               None) or put_away_match(board, table, run, mid)
                    if rec is not None:
                        journal = f", the box's journal {rec.run}" if rec.run > 1 else ""
                        head = f"Table {rec.table}{journal}, match {rec.table_match}: {pages.GAME_NAMES[rec.game]}"
                        return self._html(pages.match_page(rec, NAV, download=False, head=head))  # boxes keep scenarios
                self._html(pages.not_found_page("There is no such page on the board.", NAV, NAV[0]), 404)
            except Exception:  # a page that cannot be drawn is one plain answer, never a stopped board
                self._send(500, "text/plain; charset=utf-8", b"the board could not draw this page\n")

        def _html(self, text, status=200):
            self._send(status, "text/html; charset=utf-8", text.encode())

        def _send(self, status, kind, body):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for k, v in HEADERS.items():
                self.send_header(k, v)
            self.end_headers()
            if not self.head:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = Server((host, port), Handler)  # the box's page's server: a client gone is no traceback
    server.name = "card-assistant board"
    threading.Thread(target=server.serve_forever, name="board-page", daemon=True).start()
    return server
