"""`card-assistant web --state-dir D [--host H] [--port P]`: the box's web page, its own process.

Read-only: it opens the journal through SQLite's read-only mode and answers GET and HEAD only.
Pages: ``/`` (Now), ``/matches``, ``/matches/ID``, ``/players``; JSON: ``/api/now``,
``/api/matches``, ``/api/players``, ``/api/matches/ID/scenario``. The standard library's
``http.server`` serves it (no dependency; bench/bench_web.py compares it with bottle).

What the pages are made of is :mod:`.site` (hidden cards are never served: it says how); the
HTTP server under them, shared with the club board's page, is :mod:`.serving`; here are the routes
and the command.
"""
import json
import re
import sys
import threading
from html import escape
from urllib.parse import parse_qs

from assistant.box.players import GUEST
from assistant.cli import argument_parser, folder_named, not_a_folder, shown
from assistant.web import pages
from assistant.web.serving import HEADERS, MAX_CLIENTS, PlainErrors, Server, log  # noqa: F401 (callers import them here)
from assistant.web.site import STATIC, MatchGone, Reading, Site, match_json, players_json  # noqa: F401 (Site is imported from here)

MAX_LINE = 2048  # a request line longer than this is refused (414)
GUESTS_NOTE = ('<p class="quiet">P1 to P4 are guests, seats nobody tapped a player tag for: each of '
               'their lines adds up whoever sat in that seat, a different person from match to match.</p>')

ROUTES = [
    (re.compile(r"/"), "now_page"),
    (re.compile(r"/matches"), "matches_page"),
    (re.compile(r"/matches/(\d{1,9})"), "match_page"),
    (re.compile(r"/players"), "players_page"),
    (re.compile(r"/now/board"), "now_board"),
    (re.compile(r"/api/now"), "api_now"),
    (re.compile(r"/api/matches"), "api_matches"),
    (re.compile(r"/api/players"), "api_players"),
    (re.compile(r"/api/matches/(\d{1,9})/scenario"), "api_scenario"),
    (re.compile(r"/static/([a-z]+\.[a-z]+)"), "static_file"),
]


class Handler(PlainErrors):
    server_version = "card-assistant"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = 15  # a client that sends nothing is let go
    site = None  # set by serve()

    def log_request(self, code="-", size="-"):
        pass

    def log_message(self, fmt, *args):  # systemd's journal needs no access log
        pass

    def parse_request(self):
        if len(self.raw_requestline) > MAX_LINE:
            self.requestline, self.request_version, self.command = "", "HTTP/1.0", "GET"
            self.close_connection = True
            self.send_error(414, "request line too long")
            return False
        return super().parse_request()

    def do_HEAD(self):
        self._answer(head=True)

    def do_GET(self):
        self._answer(head=False)

    def _refuse(self):
        self.send_error(405, "this page is read-only: GET and HEAD only")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _answer(self, head):
        if self.headers.get("Content-Length", "0") not in ("0", "") or self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            return self._send(413, "text/plain; charset=utf-8", b"a request body is not accepted\n", head)
        path = self.path.split("?", 1)[0]
        for pattern, name in ROUTES:
            m = pattern.fullmatch(path)
            if m:
                try:
                    status, kind, body, extra = getattr(self, name)(*m.groups())
                except Reading as e:  # a long replay (a first start, an upgrade of the rules): said, not hung
                    status, kind, body, extra = self._not_yet(name, e)
                except Exception as e:  # never a traceback to a browser; the page says it plainly
                    log.error("card-assistant web: could not make %s (%s); the page goes on", name, type(e).__name__)
                    log.debug("the details", exc_info=True)
                    status, kind, body, extra = 500, "text/plain; charset=utf-8", b"the box could not make this page\n", {}
                says = self.site.cannot_read()
                if name != "static_file" and says:  # damaged, or too new: said on every page
                    status, kind, body, extra = self._unreadable(name, says)
                return self._send(status, kind, body, head, extra)
        if path.startswith("/api/"):
            return self._send(*self._json({"error": "no such page"}, 404)[:3], head)
        if path.startswith("/static/"):
            return self._send(404, "text/plain; charset=utf-8", b"no such file\n", head)
        return self._send(*self._html(pages.not_found_page("There is no such page."), 404)[:3], head)

    def _send(self, status, kind, body, head, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for k, v in {**HEADERS, **(extra or {})}.items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _not_yet(self, name, reading):
        """The answer while the journal is being read: 503, to come back in a few seconds (an HTML
        page reloads by itself; an open Now page puts the words in the board's place)."""
        says = reading.words()
        if name == "now_board" or name == "now_page":
            now = {"id": None, "version": f"reading:{(reading.progress or ('',))[0]}", "state": None, "source": None, "view": None,
                   "message": says}
            status, kind, body, _ = self._html((pages.board_html if name == "now_board" else pages.now_page)(now), 503)
            extra = {"X-Board-Version": now["version"]} if name == "now_board" else {}
        elif name.startswith("api_"):
            status, kind, body, extra = self._json({"error": says}, 503)
        else:
            status, kind, body, extra = self._html(pages.page(
                "Reading the journal", None, f'<meta http-equiv="refresh" content="5"><h1>A moment</h1>'
                                             f'<p class="quiet">{escape(says)}</p>'), 503)
        return status, kind, body, {**extra, "Retry-After": "5"}

    def _unreadable(self, name, says):
        now = {"id": None, "version": "unreadable", "state": None, "source": None, "view": None,
               "message": says}
        if name == "api_now":
            return self._json(now, 503)
        if name == "now_board":  # an open Now page shows the message in the board's place
            status, kind, body, _ = self._html(pages.board_html(now), 503)
            return status, kind, body, {"X-Board-Version": now["version"]}
        if name.startswith("api_"):
            return self._json({"error": says}, 503)
        if name == "now_page":
            return self._html(pages.now_page(now), 503)
        return self._html(pages.page("Journal", None, f'<p class="quiet">{escape(says)}</p>'), 503)

    # --- the routes: each returns (status, content type, bytes, extra headers)
    @staticmethod
    def _html(text, status=200):
        return status, "text/html; charset=utf-8", text.encode("utf-8"), {}

    @staticmethod
    def _json(data, status=200):
        return status, "application/json", json.dumps(data, ensure_ascii=False).encode("utf-8"), {}

    def now_page(self):
        return self._html(pages.now_page(self.site.now()))

    def matches_page(self):
        records = self.site.records()
        number = self._page()
        if not 1 <= number <= pages.pages_of(records):
            return self._html(pages.not_found_page(
                f"There is no such page of matches: they fill pages 1 to {pages.pages_of(records)}."), 404)
        return self._html(pages.matches_page(records, number))

    def _page(self):
        """The page asked for with ``?page=N`` (1 when none), 0 when that is not a number."""
        asked = parse_qs(self.path.partition("?")[2]).get("page", ["1"])[-1]
        # ASCII digits only: "²" is a digit to isdigit() and no number to int() (a 500 and an ERROR line)
        return int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 10 else 0

    def match_page(self, mid):
        records = self.site.records()
        rec = next((r for r in records if r.id == int(mid)), None)
        if rec is None:
            return self._html(pages.not_found_page(f"There is no match {int(mid)} in the journal."), 404)
        return self._html(pages.match_page(rec, newest=rec.id == max(r.id for r in records)))

    def players_page(self):
        _, table, over_time = self.site.players()
        guests = any(GUEST.fullmatch(n) for g in table.values() for n in g["players"])
        return self._html(pages.players_page(table, over_time, note=GUESTS_NOTE if guests else ""))

    def now_board(self):
        """The board alone, for now.js to put in place when its version changed."""
        now = self.site.now()
        status, kind, body, _ = self._html(pages.board_html(now))
        return status, kind, body, {"X-Board-Version": now["version"]}

    def api_now(self):
        return self._json(self.site.now())

    def api_matches(self):
        """``pages.PER_PAGE`` matches a page, oldest first (page 1 the oldest: a page keeps its
        matches as new ones come, the last page aside); the Link header names the first, previous,
        next and last pages, X-Total-Count the matches. All in one answer, 5,000 matches were
        1 MB for a phone at each request."""
        records = self.site.records()
        number, last = self._page(), pages.pages_of(records)
        if not 1 <= number <= last:
            return self._json({"error": f"no such page of matches: they fill pages 1 to {last}"}, 404)
        rels = {"first": 1, "prev": number - 1, "next": number + 1, "last": last}
        links = ", ".join(f'</api/matches?page={n}>; rel="{rel}"' for rel, n in rels.items() if 1 <= n <= last)
        status, kind, body, _ = self._json([match_json(r) for r in
                                            records[(number - 1) * pages.PER_PAGE:number * pages.PER_PAGE]])
        return status, kind, body, {"Link": links, "X-Total-Count": str(len(records))}

    def api_players(self):
        return self._json(players_json(*self.site.players()[1:]))

    def api_scenario(self, mid):
        rec = self.site.record(int(mid))
        if rec is None:
            return self._json({"error": "no such match"}, 404)
        try:
            text = self.site.scenario(rec)
        except MatchGone:  # gone between the two reads (the journal replaced at that instant)
            return self._json({"error": "no such match"}, 404)
        if text is None:
            return self._json({"error": "the newest match's scenario holds cards hidden at the table (or hidden "
                                        "again if an undo takes back its end): it can be downloaded once the "
                                        "match is over and the next one has begun; on the box, card-assistant "
                                        "export writes it at any time"}, 409)
        return 200, "text/plain; charset=utf-8", text.encode("utf-8"), {
            "Content-Disposition": f'attachment; filename="match-{rec.id}.scn"'}

    def static_file(self, name):
        if name not in STATIC:
            return 404, "text/plain; charset=utf-8", b"no such file\n", {}
        return 200, STATIC[name], self.site.static[name], {"Cache-Control": "max-age=3600"}


def make_server(state_dir, host="127.0.0.1", port=8029, runtime=None):
    site = Site(state_dir, runtime)
    handler = type("BoundHandler", (Handler,), {"site": site})
    server = Server((host, port), handler)
    server.site = site
    return server


def main(argv):
    from assistant.box.config import ConfigError, host_problem, load
    parser = argument_parser("card-assistant web", description="Serve the box's web page (read-only).")
    parser.add_argument("--state-dir", default=None, type=folder_named, help="where the journal lives (default: the config's)")
    parser.add_argument("--config", default=None, help="TOML config: its [web] section and state_dir")
    parser.add_argument("--runtime-dir", default=None, type=folder_named,
                        help="where the box writes its screen for the Now page (on the box "
                             "/run/card-assistant; default: the state folder's run/)")
    parser.add_argument("--host", default=None, help="address to listen on (default: the config's, else 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default: the config's, else 8029)")
    args = parser.parse_args(argv)
    me = "card-assistant web"
    try:
        cfg = load(args.config)
    except ConfigError as e:
        print(f"{me}: {e}", file=sys.stderr)
        return 2
    if args.config and not cfg.web.enabled:  # the service: off unless the config enables it
        print(f"{me}: the web page is off ([web] enabled = false in {args.config})", file=sys.stderr)
        _notify_ready("off")  # Type=notify: started and done, the unit goes inactive, not failed
        return 0
    state_dir = args.state_dir or cfg.paths.state_dir
    from assistant.cli import state_dir_problem
    if state_dir_problem(state_dir):
        print(f"{me}: {state_dir_problem(state_dir)}", file=sys.stderr)
        return 2
    # a file or a device there: Now said "the box is not running" of a box that ran, and never why
    if args.runtime_dir and (why := not_a_folder(args.runtime_dir)):
        print(f"{me}: --runtime-dir {shown(args.runtime_dir)} {why} (it names the folder the box "
              f"writes its screen in)", file=sys.stderr)
        return 2
    host = args.host or (cfg.web.host if args.config else "127.0.0.1")
    port = args.port if args.port is not None else cfg.web.port
    if why := host_problem(host):
        print(f"{me}: --host {host!r:.80} {why}", file=sys.stderr)
        return 2
    if not 0 <= port < 65536:
        print(f"{me}: port {port} is not a port (1 to 65535, or 0 for any free one)", file=sys.stderr)
        return 2
    try:
        server = make_server(state_dir, host, port, args.runtime_dir)
    except OSError as e:
        print(f"{me}: cannot listen on {host}:{port} ({e.strerror or e})", file=sys.stderr)
        return 1
    print(f"{me}: serving http://{host}:{server.server_address[1]}/ from {state_dir}", file=sys.stderr, flush=True)
    _notify_ready("serving")
    threading.Thread(target=server.site.players, kwargs={"wait": -1}, daemon=True).start()  # the records and figures, now
    try:
        server.serve_forever()
    finally:
        server.server_close()
        server.site.close()
    return 0


def _notify_ready(status):
    from assistant.hw.notify import Notifier
    Notifier().ready(status)
