"""The HTTP server under the box's page and the club board's page: a thread per client, at most
``MAX_CLIENTS`` at once, the same safety headers on every answer, and the standard library's own
refusals as one plain line."""
import io
import logging
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from assistant.repeated import Repeated

log = logging.getLogger("card-assistant.web")
MAX_CLIENTS = 128  # connections answered at once, a thread each (a browser keeps a few open)
MAX_PER_ADDRESS = 16  # of them from one address: a browser opens at most 6 to a site
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


class _Deadline(io.RawIOBase):
    """The connection's reading side, with a deadline for the whole request: the socket's own
    timeout counts from the last byte, so a client sending a byte every few seconds held its
    thread for ever, and ``MAX_CLIENTS`` such clients (slowloris, from one phone) closed the page to
    everyone."""

    def __init__(self, sock, idle):
        self.sock, self.idle, self.deadline = sock, idle, None

    def readable(self):
        return True

    def readinto(self, buffer):
        wait = self.idle
        if self.deadline is not None:
            wait = self.deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError("the request took too long to arrive")
            wait = min(wait, self.idle) if self.idle else wait
        self.sock.settimeout(wait)
        return self.sock.recv_into(buffer)


class PlainErrors(BaseHTTPRequestHandler):
    """The standard library's own refusals (a garbled request, 405, 414, 431, 501) as one plain
    line, like every other answer, instead of its HTML page; and a request line and headers that
    take longer than ``request_time`` seconds to arrive end the connection, however slowly they
    trickle in."""
    error_message_format = "%(code)d %(message)s\n"
    error_content_type = "text/plain; charset=utf-8"
    request_time = 30  # seconds: a phone on a poor Wi-Fi sends a request in well under one

    def setup(self):
        super().setup()
        self.rfile.close()  # the standard one, replaced: it would keep the socket from closing
        self._deadline = _Deadline(self.connection, self.timeout)
        self.rfile = io.BufferedReader(self._deadline)

    def parse_request(self):
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # its answer is the body alone: no security headers
            self.request_version, self.close_connection = "HTTP/1.0", True
            self.send_error(400, "HTTP/0.9 is not served: send HTTP/1.0 or later")
            return False
        return True

    def handle_one_request(self):
        self._deadline.deadline = time.monotonic() + self.request_time
        try:
            super().handle_one_request()
        finally:
            self._deadline.deadline = None


class Server(ThreadingHTTPServer):
    """One thread per client, at most ``MAX_CLIENTS`` at once and ``MAX_PER_ADDRESS`` of them from
    one address: a client beyond them (hundreds of idle connections from the club's Wi-Fi) gets a
    plain 503 line at once, with no thread, so the process never runs out of threads, and its log
    says so once per storm, never a traceback. One phone keeping MAX_CLIENTS connections alive (a
    request every few seconds on each: no slow request to let go) closed the page to everyone."""
    daemon_threads = True
    request_queue_size = 16
    name = "card-assistant web"  # in its log lines (the board's page says its own)

    def __init__(self, *args, **kwargs):
        self._count_lock = threading.Lock()
        self._by_address = {}  # address -> its connections being answered
        self._total = 0  # their sum, under the same lock (a semaphore beside it counted each twice)
        self.busy = Repeated(log)  # turned away: one line when it starts, one (counted) when over
        super().__init__(*args, **kwargs)

    def _take(self, address):
        """A slot for a connection from ``address``: None if it has its share, else True or False
        (no slot left for anyone)."""
        with self._count_lock:
            if self._by_address.get(address, 0) >= MAX_PER_ADDRESS:
                return None
            if self._total >= MAX_CLIENTS:
                return False
            self._by_address[address] = self._by_address.get(address, 0) + 1
            self._total += 1
            return True

    def _give_back(self, address):
        with self._count_lock:
            self._by_address[address] -= 1
            if not self._by_address[address]:
                del self._by_address[address]
            self._total -= 1

    def process_request(self, request, client_address):
        address = client_address[0] if isinstance(client_address, tuple) else ""
        took = self._take(address)
        if took:
            try:
                super().process_request(request, client_address)  # a thread of its own
                self.busy.ended("clients", f"{self.name}: fewer than {MAX_CLIENTS} connections again")
                self.busy.ended(("address", address), f"{self.name}: fewer than {MAX_PER_ADDRESS} connections "
                                                      f"from {address} again")
                return
            except RuntimeError:  # no thread can be started now (the system's limit)
                self._give_back(address)
        if took is None:
            self.busy.happened(("address", address), f"{self.name}: {MAX_PER_ADDRESS} connections at once from "
                                                     f"{address}: more from it are answered 503 at once until one leaves")
        else:
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
            self._give_back(client_address[0] if isinstance(client_address, tuple) else "")

    def handle_error(self, request, client_address):
        """A client that went away or whose network failed (a closed tab, lost Wi-Fi) is no fault:
        one debug line. Anything else is one plain line: never a traceback in the log."""
        e = sys.exc_info()[1]
        if isinstance(e, OSError):
            log.debug("client %s went away: %s", client_address[0], e)
            return
        log.error("%s: could not answer a client (%s); the page goes on", self.name, type(e).__name__)
        log.debug("the details", exc_info=True)
