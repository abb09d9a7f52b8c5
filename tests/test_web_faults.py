"""The web page's process under faults an outside tester found (harden item 3): clients that drop
the connection, and a damaged journal. The real `card-assistant web` as a subprocess, real
sockets, a real journal damaged in its file."""
import http.client
import json
import re
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from journal_faults import overwrite, pages
from test_stats import write_journal

ROOT = Path(__file__).resolve().parent.parent
UNREADABLE = "The journal cannot be read now; the box repairs it at its next start."
PATHS = ("/", "/matches", "/matches/1", "/players", "/api/now", "/api/matches", "/api/players",
         "/api/matches/1/scenario")


class Web:
    """`card-assistant web --port 0` on a folder; ``stop()`` returns what it wrote to stderr."""

    def __init__(self, folder):
        self.proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "web", "--state-dir", str(folder),
                                      "--port", "0"], cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.first = self.proc.stderr.readline()
        self.port = int(re.search(r"127\.0\.0\.1:(\d+)/", self.first).group(1))

    def get(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request("GET", path)
        r = c.getresponse()
        body = r.read().decode("utf-8")
        c.close()
        self.headers = dict(r.getheaders())
        return r.status, r.getheader("Content-Type"), body

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        return self.first + self.proc.stderr.read()  # read() takes the lines readline() buffered too


def dropped_client(port, request):
    """Send ``request`` and reset the connection at once (SO_LINGER 0: a tab closed, Wi-Fi gone)."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    if request:
        s.sendall(request)
    s.close()


def test_a_client_that_drops_the_connection_writes_nothing_to_the_log(tmp_path):
    """Fault: every dropped client logged a full traceback (ConnectionResetError or
    BrokenPipeError from _send, or from reading the request): 292 in one test. Now nothing."""
    write_journal(tmp_path)
    web = Web(tmp_path)
    try:
        for n in range(30):
            request = [b"", b"GET /players HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /api/matches HTTP/1.1\r\n"][n % 3]
            dropped_client(web.port, request)
        assert web.get("/api/matches")[0] == 200  # the page goes on serving
    finally:
        err = web.stop()
    assert err.splitlines() == [web.first.strip()], err


@pytest.mark.parametrize("damage", ["a leaf page of actions", "the file header"])
def test_a_damaged_journal_is_one_line_in_the_log_and_an_honest_page(tmp_path, damage):
    """Fault: with a damaged page every URL answered 500 and a traceback (sqlite3.DatabaseError:
    database disk image is malformed) went to the log; with the header overwritten every page said
    "No match in the journal yet". Now each page says the journal cannot be read and that the box
    repairs it at its next start; the log has one line."""
    write_journal(tmp_path)
    path = tmp_path / "journal.sqlite3"
    if damage == "the file header":
        overwrite(path, 0, b"\0" * 100)
    else:
        leaf = pages(path, "actions", "leaf")[1]
        overwrite(path, (leaf - 1) * 4096, b"\xff" * 64)
    web = Web(tmp_path)
    try:
        for p in PATHS:
            status, kind, body = web.get(p)
            assert status == 503, (p, status, body)
            if kind.startswith("application/json"):
                got = json.loads(body)
                assert UNREADABLE in (got.get("message"), got.get("error")), (p, body)
            else:
                assert UNREADABLE in body and "No match in the journal yet" not in body, p
        # an open Now page asks /now/board: its board says so in the table's place (now.js puts a
        # board in place by its version; a stale table stayed up when this had none)
        status, _, body = web.get("/now/board")
        assert status == 503 and UNREADABLE in body and "<html" not in body.lower()
        assert web.headers.get("X-Board-Version") == "unreadable"
    finally:
        err = web.stop()
    lines = err.splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    assert lines[1].startswith(f"card-assistant web: the journal cannot be read ({path}") and \
        "repairs it at its next start" in lines[1], err


def test_a_journal_from_a_newer_version_is_said_on_every_page_not_only_on_now(tmp_path):
    """Fault: History.problem ("written by a newer card-assistant") reached only the Now page;
    Matches and Players said "No match in the journal yet." and /api/matches and /api/players
    answered an empty list with 200, all untrue: the journal has matches this version cannot
    read. Now every page and every JSON answer says so (503, as for a damaged journal), and the
    log has one line, not one per request."""
    import sqlite3
    write_journal(tmp_path)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("UPDATE meta SET value='99' WHERE key='schema'")
    db.commit()
    db.close()
    web = Web(tmp_path)
    try:
        for _ in range(3):
            for p in (*PATHS, "/now/board"):
                status, kind, body = web.get(p)
                assert status == 503, (p, status, body)
                assert "newer card-assistant" in body and "No match" not in body, (p, body)
                if kind.startswith("application/json"):
                    assert json.loads(body).get("error", json.loads(body).get("message")), (p, body)
    finally:
        err = web.stop()
    lines = err.splitlines()
    assert len(lines) == 2 and "newer card-assistant" in lines[1] and "Traceback" not in err, err


def test_a_request_line_without_a_version_gets_a_refusal_with_headers_not_the_bare_page(tmp_path):
    """Fault (attacker on inputs): 'GET /' with no HTTP version is HTTP/0.9, whose answer the
    standard library sends as the body alone, without the page's security headers. It is
    refused with a status line and headers, like any bad request."""
    write_journal(tmp_path)
    web = Web(tmp_path)
    try:
        s = socket.create_connection(("127.0.0.1", web.port), timeout=30)
        s.sendall(b"GET /\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
        s.close()
        assert re.match(rb"HTTP/1\.[01] 400 ", answer), answer[:80]
        assert b"<html" not in answer.lower()
        assert web.get("/")[0] == 200  # the page goes on serving
    finally:
        web.stop()
