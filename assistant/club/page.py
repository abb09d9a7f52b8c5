"""The board's page, on the box's web stack (assistant/web): its addresses, and its JSON.

Each page the organiser sees has its module: ``/`` Tables (every table live: :mod:`.tables_page`),
``/nights`` and ``/nights/DAY`` Nights (the older nights, read from the board's file:
:mod:`.nights_page`), ``/players`` Players (the standings across tables, every night the board
holds: :mod:`.players_page`); ``/matches/TABLE/M`` one match with its chart and hands
(web.pages.match_page), and ``/api/club`` the board's JSON, are here. What they are all made of
(the records of the matches the board holds, from its own replay, never a box's figures) is
:mod:`.records`.
"""
import json
import re
import threading
from importlib.resources import files
from urllib.parse import unquote

from assistant.club.nights_page import night_page, nights_page, put_away_match
from assistant.club.players_page import (NO_PLAYERS, clash_note, older, older_records,  # noqa: F401
                                         players_page, season_now, tonight, two_tables_at_once)
from assistant.club.records import NAV, in_order, moved, records, renamed  # noqa: F401
from assistant.club.standings import club_standings
from assistant.club.tables_page import box_online, club_page, older_box  # noqa: F401
from assistant.web import pages
from assistant.web.serving import HEADERS, PlainErrors, Server

TIMEOUT = 15  # seconds: a client that sends nothing is let go, as by the box's own page


def club_json(board):
    """``/api/club``: the board's snapshot and the standings across tables (club_standings), the
    season's and tonight's, of one moment (players_page.season_now)."""
    out = board.snapshot()
    with board.lock:  # a table known by its box's status or table now only (as on the page)
        known = {*board.online, *board.now, *board.newer}
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
        box["newer"] = board.newer.get(table)  # the version its box sends, newer than the board reads
    recs, before = season_now(board)
    by_match = {(r.table, r.run, r.table_match): r for r in recs}
    for table in out["tables"]:  # as the Tables page: finished, abandoned or in play, and since when
        for m in table["matches"]:
            rec = by_match.get((table["table"], m.get("run", 1), m["match"]))
            if rec is not None:
                m["state"], m["started"] = rec.state, rec.started or None
    out["standings"] = club_standings(before.season(recs))  # every night the board holds
    night, of_tonight = tonight(recs)
    out["tonight"] = {"night": night, "standings": club_standings(before.tonight(night, of_tonight))}
    return out


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
