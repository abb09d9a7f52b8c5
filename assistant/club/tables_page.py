"""The board's Tables page (``/``): every table live, each table's matches of the current night
(and its latest), the latest first, whether its box is there, and when the board last heard it."""
import time
from contextlib import closing
from html import escape
from urllib.parse import quote

from assistant.box.stats import IN_PLAY
from assistant.club import season
from assistant.club.message import shown_now
from assistant.club.public import VERSION
from assistant.club.publisher import ALIVE
from assistant.club.records import NAV, in_order, moved, of_older_nights, renamed
from assistant.web import pages

SILENT = 3 * ALIVE  # seconds without a connected box's sign of life: it is not there any more


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
    if table in board.newer:  # its every message refused: its statuses too, so nothing else says it is there
        out = newer_note(board, table) + out
        if online is None and not heard:
            return out
    if online is False:
        waiting = ": its match in play waits for it" if recs and recs[-1].state == IN_PLAY else ""
        return (f'<p class="warn">Box not connected (switched off, stopped or out of the Wi-Fi) · '
                f'{last}{waiting}</p>{out}')
    if online and older_box(board, table):
        return (f'<p class="quiet">Box connected, by the broker\'s last word · {last} · an older box: it says '
                f'so only as it connects, so the board cannot tell whether it went in a power cut that took '
                f'the broker too</p>{out}')
    return f'<p class="quiet">{"Box connected · " if online else ""}{last[:1].upper() + last[1:]}</p>{out}'


def newer_note(board, table):
    """Words for a table whose box is newer than the board: the board cannot read what it sends."""
    return (f'<p class="warn">Its box is newer than this board: it sends version {board.newer[table]} messages, '
            f'and this board reads version {VERSION}, so nothing it sends is shown. Upgrade the board (as the '
            f'boxes were): its box keeps every match, and the broker keeps each finished match\'s record, '
            f'which the upgraded board reads when it starts; the match in play comes whole at its end.</p>')


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


def table_of_matches(rows):
    """A table's matches under their headings (``table_rows``)."""
    return (f'<div class="scroll"><table><tr><th>#</th><th>Game</th><th>Score</th><th class="wide">Winner</th>'
            f'<th class="wide">State</th><th>Started</th></tr>{rows}</table></div>')


def club_page(board, recs, now=None):
    by_table = {}
    with board.lock:  # a table known by its box's status or its table now, before any match of it
        for table in (*board.online, *board.now, *board.newer, *(t for t, _, _ in board.tables.early)):
            by_table.setdefault(table, [])
    for r in recs:
        by_table.setdefault(r.table, []).append(r)
    counts = board.counts
    parts = [f"<h1>Club {escape(board.club)}</h1>",
             f'<p class="quiet">{counts["stored"]} events stored, each once ({counts["duplicates"]} came again, '
             f'as they should: in each match\'s record at its end and after reconnects), '
             f'{counts["refused"]} refused. Updates every 5 seconds.</p>']
    older_ones = {id(r) for r in of_older_nights(recs, now)}
    with closing(board.file.reader()) as db:
        older = season.count(db) + len(older_ones)
    if older:
        parts.append(f'<p class="quiet">Tonight\'s matches (and each table\'s latest) below; {older} '
                     f'match{"es" if older != 1 else ""} of older nights on <a href="/nights">Nights</a>.</p>')
    if not board.connected:
        parts.append('<p class="quiet">The board is not connected to the broker: '
                     'nothing new can arrive until it is (the log says why).</p>')
    if board.damaged:  # a table's refusals are then the board's own doing, not its box's
        parts.append('<p class="warn">The board\'s file is damaged: what it cannot store is refused (the log '
                     'says which). Restart the board: it sets the file aside, reads back what it can, and '
                     'the matches\' records bring back the rest.</p>')
    if not by_table:
        parts.append('<p class="quiet">No table has sent anything yet.</p>')
    with board.lock:
        went = {**renamed(board), **{table: now for (table, _, _), now in moved(board).items()}}
    for table, rs in sorted(by_table.items(), key=lambda kv: in_order(kv[0])):
        with board.lock:
            together = {r.run for r in rs if board.tables.together(table, r.journal)}
        ordered = sorted(rs, key=lambda r: (r.run, r.table_match))  # the box's own order
        # tonight's and the table's latest: an older night's match stays in memory until 12 hours
        # after its last event came (a backlog: after it came), and was listed here as tonight's
        rows = table_rows([r for k, r in enumerate(ordered) if id(r) not in older_ones or k == len(ordered) - 1],
                          together)
        parts.append(f"<h2>Table {escape(table)}</h2>{presence(board, table, rs, went.get(table))}"
                     f"{held_note(board, table, rs)}" + (table_of_matches(rows) if rows else ""))
    body = '<meta http-equiv="refresh" content="5">' + "".join(parts)
    return pages.page(f"Club {board.club}", "/", body, nav=NAV)
