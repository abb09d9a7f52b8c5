"""`card-assistant web --state-dir D [--host H] [--port P]`: the box's web page, its own process.

Read-only: it opens the journal through SQLite's read-only mode and answers GET and HEAD only.
Pages: ``/`` (Now), ``/matches``, ``/matches/ID``, ``/players``; JSON: ``/api/now``,
``/api/matches``, ``/api/players``, ``/api/matches/ID/scenario``. The standard library's
``http.server`` serves it (no dependency; bench/bench_web.py compares it with bottle).

Hidden cards are never served: the Now page is the OLED's view model (the daemon's screen
file, or the table rebuilt from the journal: assistant/web/now.py), the records hold hands'
results only, and the scenario of the match in play (which holds the face-down trump, the
discard and scanned hands) is refused until the match is over.
"""
import json
import logging
import re
import zlib
import sys
import threading
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files

from assistant.cli import argument_parser
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action
from assistant.box.stats import IN_PLAY, standings, wins_over_time
from assistant.web import pages
from assistant.repeated import Repeated
from assistant.web.history import History
from assistant.box.screen_file import read_screen, runtime_dir, view_json
from assistant.web.now import view_of

log = logging.getLogger("card-assistant.web")
UNREADABLE = "The journal cannot be read now; the box repairs it at its next start."
STATIC = {"style.css": "text/css; charset=utf-8", "now.js": "text/javascript; charset=utf-8"}
MAX_LINE = 2048  # a request line longer than this is refused (414)
MAX_CLIENTS = 128  # connections answered at once, a thread each (a browser keeps a few open)
_BUSY = b"too many clients at once: try again in a few seconds\n"
BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Length: %d\r\nConnection: close\r\nRetry-After: 5\r\n\r\n%s" % (len(_BUSY), _BUSY))
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class Site:
    """What the pages are made of; one lock, since the journal connection and caches are shared."""

    def __init__(self, state_dir, runtime=None):
        self.history = History(state_dir)
        self.runtime = runtime or runtime_dir(state_dir)  # where the daemon writes its screen
        self.lock = threading.Lock()
        self._now = (None, None)  # (version, answer)
        self.trouble = Repeated(log)  # a damaged journal: one line when it starts, one when it reads again
        self.static = {name: files(__package__).joinpath("static", name).read_bytes() for name in STATIC}

    def records(self):
        with self.lock:
            return self._read(self.history.records)

    def _read(self, read, *args):
        """``read(*args)`` from the journal; a damaged journal is logged when it starts and ends."""
        out = read(*args)
        if self.history.unreadable:
            self.trouble.happened("journal", f"card-assistant web: the journal cannot be read "
                                             f"({self.history.unreadable}); the pages say so until the box "
                                             f"repairs it at its next start")
        elif self.history.problem:
            self.trouble.happened("journal", f"card-assistant web: {self.history.problem} (every page says so)")
        else:
            self.trouble.ended("journal", "card-assistant web: the journal can be read again")
        return out

    def cannot_read(self):
        """Why the journal that is there cannot be shown now (damaged, or written by a newer
        card-assistant), in words for every page; None when it can."""
        return UNREADABLE if self.history.unreadable else self.history.problem

    def record(self, mid):
        return next((r for r in self.records() if r.id == mid), None)

    def now(self):
        """The Now page's data: the box's own screen when it belongs to the journal's latest
        match at its latest row (``source``: "box"), else the table rebuilt from the journal
        ("journal"), or a message when there is neither."""
        with self.lock:
            recs = self._read(self.history.records)
            latest = self.history.latest
            shown = read_screen(self.runtime)
            rec = recs[-1] if recs and recs[-1].id == latest[0] else None
            state = rec.state if rec else None
            if shown is not None and (shown[0].get("match"), shown[0].get("rows")) == latest:
                return {"id": latest[0], "version": f"box:{zlib.crc32(shown[1].encode())}", "state": state,
                        "source": "box", "view": shown[0]["view"], "message": ""}
            if rec is None:
                return {"id": None, "version": "none", "state": None, "source": None, "view": None,
                        "message": self.history.problem or "No match in the journal yet."}
            version = f"{rec.id}:{rec.actions}:{len(rec.hands)}:{rec.state}"
            if self._now[0] == version:
                return self._now[1]
            found = self._read(self.history.scenario_lines, rec.id)
            view = view_of(rec, found[3], self.history.journal) if found else None
            answer = {"id": rec.id, "version": version, "state": rec.state, "source": "journal",
                      "view": None if view is None else view_json(view, rec.seats),
                      "message": "" if view else "The match in play cannot be shown."}
            self._now = (version, answer)
            return answer

    def scenario(self, rec):
        """The match's actions in effect as a scenario file, or None for the journal's newest match:
        in play, or over but still the box's match, whose end an undo at the table can take back
        (S2), and the file would then have shown cards hidden again (the last hand's discard, the
        scanned hands). As the records say, and as the lines read for the file say (a journal
        replaced in between)."""
        if rec.state == IN_PLAY:
            return None
        with self.lock:
            game, seats, options, lines, newest = self._read(self.history.scenario_lines, rec.id)
        match = Match(game, seats, options)
        for n, line in enumerate(lines, 1):
            try:
                match.apply(parse_action(line.split(), game, seats, n))
            except (ScenarioError, Refused):
                break
        if rec.id == newest:
            return None
        return match.export(comment=f"match {rec.id} of the box's journal ({rec.state})")

    def close(self):
        self.history.close()


def match_json(rec):
    return {"id": rec.id, "game": rec.game, "seats": list(rec.seats), "score": rec.score,
            "winner": rec.winner, "started": rec.started, "finished": rec.finished, "state": rec.state,
            "hands": len(rec.hands), "actions": rec.actions, "note": rec.note}


def players_json(records):
    return {"standings": standings(records),
            "wins_over_time": {g: {n: [list(p) for p in s] for n, s in per.items()}
                               for g, per in wins_over_time(records).items()}}


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


class PlainErrors(BaseHTTPRequestHandler):
    """The standard library's own refusals (a garbled request, 405, 414, 431, 501) as one plain
    line, like every other answer, instead of its HTML page."""
    error_message_format = "%(code)d %(message)s\n"
    error_content_type = "text/plain; charset=utf-8"


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
                except Exception:  # never a traceback to a browser; the page says it plainly
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
        return self._html(pages.matches_page(self.site.records()))

    def match_page(self, mid):
        records = self.site.records()
        rec = next((r for r in records if r.id == int(mid)), None)
        if rec is None:
            return self._html(pages.not_found_page(f"There is no match {int(mid)} in the journal."), 404)
        return self._html(pages.match_page(rec, newest=rec.id == max(r.id for r in records)))

    def players_page(self):
        recs = self.site.records()
        return self._html(pages.players_page(standings(recs), wins_over_time(recs)))

    def now_board(self):
        """The board alone, for now.js to put in place when its version changed."""
        now = self.site.now()
        status, kind, body, _ = self._html(pages.board_html(now))
        return status, kind, body, {"X-Board-Version": now["version"]}

    def api_now(self):
        return self._json(self.site.now())

    def api_matches(self):
        return self._json([match_json(r) for r in self.site.records()])

    def api_players(self):
        return self._json(players_json(self.site.records()))

    def api_scenario(self, mid):
        rec = self.site.record(int(mid))
        if rec is None:
            return self._json({"error": "no such match"}, 404)
        text = self.site.scenario(rec)
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


class Server(ThreadingHTTPServer):
    """One thread per client, at most ``MAX_CLIENTS`` at once: a client beyond them (hundreds of
    idle connections from the club's Wi-Fi) gets a plain 503 line at once, with no thread, so the
    process never runs out of threads, and its log says so once per storm, never a traceback."""
    daemon_threads = True
    request_queue_size = 16
    name = "card-assistant web"  # in its log lines (the board's page says its own)

    def __init__(self, *args, **kwargs):
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self.busy = Repeated(log)  # turned away: one line when it starts, one (counted) when over
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address):
        if self._slots.acquire(blocking=False):
            try:
                super().process_request(request, client_address)  # a thread of its own
                self.busy.ended("clients", f"{self.name}: fewer than {MAX_CLIENTS} connections again")
                return
            except RuntimeError:  # no thread can be started now (the system's limit)
                self._slots.release()
        self.busy.happened("clients", f"{self.name}: {MAX_CLIENTS} connections at once: more are answered "
                                      "503 at once until one leaves")
        try:  # the answer needs no request: sent at once, with no thread and no wait
            request.setblocking(False)
            try:
                request.recv(65536)  # what the client sent already: closed unread, it would reset
            except BlockingIOError:
                pass
            request.sendall(BUSY)
        except OSError:
            pass
        self.shutdown_request(request)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address):
        """A client that went away or whose network failed (a closed tab, lost Wi-Fi) is no fault:
        one debug line. Anything else is one plain line: never a traceback in the log."""
        e = sys.exc_info()[1]
        if isinstance(e, OSError):
            log.debug("client %s went away: %s", client_address[0], e)
            return
        log.error("%s: could not answer a client (%s); the page goes on", self.name, type(e).__name__)
        log.debug("the details", exc_info=True)


def make_server(state_dir, host="127.0.0.1", port=8029, runtime=None):
    site = Site(state_dir, runtime)
    handler = type("BoundHandler", (Handler,), {"site": site})
    server = Server((host, port), handler)
    server.site = site
    return server


def main(argv):
    from assistant.box.config import ConfigError, load
    parser = argument_parser("card-assistant web", description="Serve the box's web page (read-only).")
    parser.add_argument("--state-dir", default=None, help="where the journal lives (default: the config's)")
    parser.add_argument("--config", default=None, help="TOML config: its [web] section and state_dir")
    parser.add_argument("--runtime-dir", default=None,
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
    host = args.host or (cfg.web.host if args.config else "127.0.0.1")
    port = args.port if args.port is not None else cfg.web.port
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
    threading.Thread(target=server.site.records, daemon=True).start()  # replay the journal once, now
    try:
        server.serve_forever()
    finally:
        server.server_close()
        server.site.close()
    return 0


def _notify_ready(status):
    from assistant.hw.notify import Notifier
    Notifier().ready(status)
