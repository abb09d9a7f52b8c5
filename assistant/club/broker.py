"""A private Mosquitto: a generated config (loopback port, password file, ACL) in a folder.

Used by the tests, ``card-assistant sim --club`` and the bench; a club's own broker is
set up the same way by hand (docs/club.md). Each table's account may write only under
its own table (``club/CLUB/TABLE/#``); the board's account only reads (``club/CLUB/#``).

>>> print(acl("c", ["t1"], "board"))
user t1
topic write club/c/t1/#
<BLANKLINE>
user board
topic read club/c/#
<BLANKLINE>
"""
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
# Mosquitto takes any message up to 256 MiB by default, and keeps a retained one: one table's
# account could fill the club Pi's memory, and the board's. A payload over the board's largest
# (a match's record, board.MAX_RECORD) is dropped by the broker, its QoS flow completed so a box
# never sends it again; a packet over MAX_PACKET is no box's: its client is disconnected before
# the broker holds it. systemd/install.sh --board writes the same two lines (docs/club.md).
MAX_MESSAGE = 1 << 20  # = board.MAX_RECORD (tests/test_systemd_board.py checks they agree)
MAX_PACKET = 4 << 20
LIMITS = (f"message_size_limit {MAX_MESSAGE}", f"max_packet_size {MAX_PACKET}")


class BrokerMissing(RuntimeError):
    """Mosquitto is not installed here (apt-get install mosquitto)."""


def find(name):
    if name == "mosquitto":
        for path in MOSQUITTO:
            if os.access(path, os.X_OK):
                return path
    found = shutil.which(name)
    if found is None:
        raise BrokerMissing(f"{name} is not installed (Debian: apt-get install mosquitto)")
    return found


@contextlib.contextmanager
def held_stops():
    """Ctrl-C, SIGTERM and SIGHUP held over a process's start and its recording: one that came
    while Popen ran (after the fork) left its process unknown to the caller's cleanup, running
    for ever; it is raised when the block ends, the process recorded. In the main thread only
    (signals are handled there); elsewhere the block runs as it is."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came = []
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {sig: signal.signal(sig, lambda signum, frame: came.append(signum)) for sig in stops}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if came:
            signal.raise_signal(came[0])  # its own handler, now the process is known


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc, grace=5):
    """SIGTERM, then SIGKILL after ``grace`` seconds; waits until it is gone."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def acl(club, tables, board, *boards):
    """Each table writes under its own name; ``board`` (and each of ``boards``: a second board, each
    with an account of its own) reads the club."""
    lines = []
    for t in tables:
        lines += [f"user {t}", f"topic write club/{club}/{t}/#", ""]
    for b in (board, *boards):
        lines += [f"user {b}", f"topic read club/{club}/#", ""]
    return "\n".join(lines)


class Broker:
    """``Broker(folder, club, tables).start()``: accounts for every table and ``board`` (and each
    of ``boards``, more boards' own), each with a random password (``passwords``); ``url(account)``
    is the URL a client uses."""

    def __init__(self, folder, club, tables, port=None, persistence=True, boards=()):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.club, self.tables, self.boards = club, list(tables), list(boards)
        self.port = port or free_port()
        self.passwords = {name: secrets.token_hex(8) for name in [*self.tables, "board", *self.boards]}
        self.proc = None
        self._started = []  # every process start() made: stop() leaves none behind
        self.persistence = persistence
        self._write_config()

    def _write_config(self):
        f = self.folder
        pw = f / "passwd"
        pw.write_text("".join(f"{u}:{p}\n" for u, p in self.passwords.items()))
        pw.chmod(0o600)
        subprocess.run([find("mosquitto_passwd"), "-U", str(pw)], check=True, capture_output=True)
        (f / "acl").write_text(acl(self.club, self.tables, "board", *self.boards))
        (f / "acl").chmod(0o600)
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous false",
                 f"password_file {pw}", f"acl_file {f / 'acl'}",
                 "max_inflight_messages 100", "max_queued_messages 100000", *LIMITS,
                 "log_dest stderr", "log_type error", "log_type warning"]
        if self.persistence:
            lines += ["persistence true", f"persistence_location {f}/", "autosave_interval 1"]
        if os.geteuid() == 0:
            lines.append("user root")  # the generated files are root's own, in a private folder
        (f / "mosquitto.conf").write_text("\n".join(lines) + "\n")

    def url(self, account):
        return f"mqtt://{account}:{self.passwords[account]}@127.0.0.1:{self.port}"

    def start(self, timeout=10):
        log = open(self.folder / "mosquitto.log", "ab")
        with held_stops():  # stop() knows every process started
            self.proc = subprocess.Popen([find("mosquitto"), "-c", str(self.folder / "mosquitto.conf")],
                                         stdout=log, stderr=log, start_new_session=True)
            self._started.append(self.proc)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto stopped at start (exit {self.proc.returncode}); "
                                   f"see {self.folder / 'mosquitto.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on port {self.port}")

    def kill(self):
        """SIGKILL: the broker dies as a power cut would kill it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        for proc in self._started:
            stop_process(proc)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
