"""A virtual card reader on a real pty, speaking the real wire protocol.

Stands in for the Pico in tests and in ``card-assistant sim``: ``plug()``
creates a pty and points a stable name (like udev's /dev/card-reader) at it;
``place``/``lift``/``tap`` put cards on pads; fault hooks drop, double or
corrupt the next line, inject garbage, pull the cable halfway through the next
line, or reboot.
Like the real firmware it boots when the host first talks to it (HELLO, STATUS,
then a STATE snapshot), sends a heartbeat (``HB``) every second from then on,
so the host can tell a quiet table from a dead link, answers
PING/SYNC/STATUS/LED/BEEP, and keeps its sequence numbers across faults so the
host can notice them.

For example (tests/test_reader_pty.py runs this with a host on the other end)::

    vf = VirtualFirmware("/tmp/card-reader").plug()
    vf.tap(2, "04A1B2C3D4E5F6")   # waits for the host to connect, then ARRIVE and REMOVE
"""
import os
import secrets
import select
import threading
import time
import tty
from pathlib import Path

from assistant.hw import protocol
from assistant.hw.protocol import MANY, BadLine

VERSION = "1.0.0-virtual"
HEARTBEAT_S = 1.0  # as firmware/config.py's HEARTBEAT_MS: the host calls 5 s without a line silence


class VirtualFirmware:
    def __init__(self, link, pads=4, present_after=3, gone_after=4, host_timeout=30.0,
                 heartbeat=HEARTBEAT_S):
        self.link = Path(link)
        self.npads = pads
        self.present_after, self.gone_after = present_after, gone_after
        self.pads = {}  # pad -> uid or MANY: what physically lies there
        self.feedback = []  # (pad, "led"|"beep", value) as the host asked
        self.commands = []  # every good command line's words, in order
        self.seq = 0
        self.boot = None
        self._lock = threading.RLock()
        self._heard = threading.Condition(self._lock)
        self._faults = []  # for the next lines written: "drop", "double", "corrupt", "cut"
        self._master = self._slave = None
        self._thread = None
        self.host_ready = threading.Event()  # set once the host has sent SYNC since plug()
        self.host_timeout = host_timeout
        self.heartbeat_s = heartbeat  # None: no heartbeat of its own (a test sends them by hand)
        self.started = self.last_beat = None  # monotonic times of the boot and the last HB

    # --- the cable
    def plug(self):
        """Connect (and so power) the reader: a new pty, the stable name pointed at it."""
        with self._lock:
            self._master, self._slave = os.openpty()
            tty.setraw(self._slave)  # no echo, no newline mangling before the host opens it
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(os.ttyname(self._slave))
            tmp.replace(self.link)
            self.boot, self.host_ready = None, threading.Event()
        self._unplugged = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(self._master, self._slave, self._unplugged),
                                        daemon=True, name="virtual-firmware")
        self._thread.start()
        return self

    def unplug(self, partial=b""):
        """Pull the cable, after ``partial`` (half a line, say) reached the wire."""
        with self._lock:
            if self._master is None:
                return
            if partial:
                self._write(partial)
            try:
                self.link.unlink(missing_ok=True)
            except OSError:  # the card failing under the state folder (EIO), the name taken by a folder:
                pass  # the cable is pulled all the same (the pty closes); a stale link is replaced at plug()
            self._master = self._slave = None
            self._unplugged.set()  # the serving thread closes the pty, so no read races a close

    close = unplug

    def reboot(self):
        """The Pico restarts while plugged in: HELLO at seq 0, then the boot snapshot."""
        with self._lock:
            self._boot()

    # --- the table: while plugged in, each waits for the host to have connected, since
    # lines written to a port nobody has opened yet are thrown away when it opens
    def _await_host(self):
        if self._master is not None and not self.host_ready.is_set():
            self.host_ready.wait(self.host_timeout)

    def place(self, pad, uid):
        self._await_host()
        with self._lock:
            old = self.pads.get(pad)
            if old:
                self.lift(pad)
            self.pads[pad] = uid
            self.send(f"ARRIVE {pad} {uid}")

    def lift(self, pad):
        self._await_host()
        with self._lock:
            old = self.pads.pop(pad, None)
            if old == MANY:
                self.send(f"CLEAR {pad}")
            elif old:
                self.send(f"REMOVE {pad} {old}")

    def tap(self, pad, uid):
        self._await_host()
        with self._lock:
            self.place(pad, uid)
            self.lift(pad)

    def pile(self, pad):
        """Two tags on one pad."""
        self._await_host()
        with self._lock:
            if self.pads.get(pad) not in (None, MANY):
                self.lift(pad)
            self.pads[pad] = MANY
            self.send(f"CONFLICT {pad}")

    def heartbeat(self, uptime=None, faults=True):
        with self._lock:
            if uptime is None:
                uptime = int(time.monotonic() - self.started) if self.started is not None else 0
            self.send(f"HB {self.boot or '0000'} {uptime}", faults=faults)

    # --- faults on the next line(s) written
    def drop_next(self, n=1):
        with self._lock:
            self._faults += ["drop"] * n

    def double_next(self):
        with self._lock:
            self._faults.append("double")

    def corrupt_next(self):
        with self._lock:
            self._faults.append("corrupt")

    def cut_next(self):
        """The cable comes out halfway through the next line."""
        with self._lock:
            self._faults.append("cut")

    def garbage(self, data):
        with self._lock:
            self._write(data)

    def wait_commands(self, n, timeout=None):
        """Block until the host has sent ``n`` good commands since the start; False on timeout."""
        with self._heard:
            return self._heard.wait_for(lambda: len(self.commands) >= n, timeout)

    # --- the wire
    def send(self, body, faults=True):
        """Write one framed line; ``faults=False`` leaves the queued faults for the next table
        line (a heartbeat that happens to fall between must not take a test's fault)."""
        with self._lock:
            line = protocol.frame(self.seq, body)
            self.seq = (self.seq + 1) % protocol.SEQ_MOD
            fault = self._faults.pop(0) if self._faults and faults else None
            if fault == "drop":
                return
            if fault == "cut":
                self.unplug(partial=line[:len(line) // 2])
                return
            if fault == "corrupt":
                line = line[:-7] + bytes([line[-7] ^ 0x01]) + line[-6:]  # last byte before "*CRC"
            self._write(line * (2 if fault == "double" else 1))

    def _write(self, data):
        if self._master is None:
            return  # unplugged: nothing reaches the host
        view = memoryview(data)
        while view:
            view = view[os.write(self._master, view):]

    def _boot(self):
        self.boot, self.seq = secrets.token_hex(2).upper(), 0
        self.started = self.last_beat = time.monotonic()
        self.send(f"HELLO card-reader {VERSION} boot={self.boot} pads={self.npads} "
                  f"present={self.present_after} gone={self.gone_after}")
        for pad in range(1, self.npads + 1):
            self.send(f"STATUS {pad} ok 92 0")
        self._snapshot()

    def _snapshot(self):
        for pad in range(1, self.npads + 1):
            self.send(f"STATE {pad} {self.pads.get(pad) or '-'}")

    def _serve(self, master, slave, unplugged):
        """Read the host's commands until the cable is pulled, then close the pty."""
        try:
            self._read_commands(master, unplugged)
        finally:
            os.close(master)
            os.close(slave)

    def _read_commands(self, master, unplugged):
        buf = bytearray()
        while not unplugged.is_set():
            self._beat()
            if not select.select([master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(master, 256)
            except OSError:
                return
            buf += data
            while (end := buf.find(b"\n")) >= 0:
                line, buf = bytes(buf[:end]), buf[end + 1:]
                self._command(line)

    def _beat(self):
        """The firmware's tick: an HB line once ``heartbeat_s`` has passed since the last."""
        with self._lock:
            if self.heartbeat_s is None or self.last_beat is None or self._master is None:
                return
            now = time.monotonic()
            if now - self.last_beat >= self.heartbeat_s:
                self.last_beat = now
                self.heartbeat(faults=False)

    def _command(self, line):
        with self._lock:
            if self._master is None:
                return
            try:
                seq, words = protocol.unframe(line)
            except BadLine as e:
                self.send(f"ERR - {e.reason}")
                return
            self.commands.append(words)
            self._heard.notify_all()
            cmd, args = words[0], words[1:]
            if cmd == "SYNC":
                if self.boot is None:
                    self._boot()  # the first word from the host: the reader starts talking
                else:
                    self._snapshot()
                self.host_ready.set()
            elif cmd == "PING" and len(args) == 1:
                self.send(f"PONG {args[0]}")
            elif cmd == "STATUS":
                for pad in range(1, self.npads + 1):
                    self.send(f"STATUS {pad} ok 92 0")
            elif cmd in ("LED", "BEEP") and len(args) == 2:
                self.feedback.append((int(args[0]), cmd.lower(), args[1]))
                self.send(f"OK {cmd} {args[0]}")
            else:
                self.send(f"ERR {seq} unknown command {cmd[:16]}")
