"""The reader adapter: the pads' firmware over USB serial.

``Reader(port, queue)`` opens the port with pyserial, turns protocol lines
(firmware/PROTOCOL.md) into TagArrived/TagRemoved/PadConflict/PadCleared and
ReaderStatus events, one ``poll()`` at a time (the box's own thread polls it;
``start()`` gives it a thread that posts them on ``queue``), and never dies: a bad line is
refused with a counted reason (logged when a storm of them starts and ends); an unplug (SerialException, OSError or
termios.error, depending on the call that notices) closes the port and reopens
it with growing back-off. ``Tracker`` (tracker.py) is the pure part, testable without a port.
"""
import errno
import logging
import os
import threading
import time

import serial
import termios

from assistant.hw import protocol
from assistant.hw.events import ReaderStatus, post
from assistant.hw.tracker import QUIET, Tracker
from assistant.repeated import Repeated

log = logging.getLogger(__name__)
LINK_ERRORS = (serial.SerialException, OSError, termios.error)
WRITE_TIMEOUT = 0.05  # seconds a command may wait for room on the line before it is dropped


def _cannot_open(port, e):
    """The screen's words for a port that did not open (the log has the system's own)."""
    if "exclusively lock" in str(e):
        return f"card reader busy: another program has {port} open"
    code = getattr(e, "errno", None)
    if code in (errno.EACCES, errno.EPERM):  # a user not in the dialout group, say
        return f"card reader {port}: permission denied"
    if code == errno.ENOENT or not os.path.lexists(port):
        return f"card reader not found at {port}"
    if code in (errno.EIO, errno.ENXIO, errno.ENODEV):  # a device that is there and failed: not the config
        return f"card reader {port} does not answer ({os.strerror(code)}): check its cable"
    return f"{port} is not a serial port: check [reader] device"  # a file, a folder, /dev/null


def _rest(ser):
    """What the port holds now, in one system call (pyserial's port is non-blocking; its read
    would ask the size, wait in select and read: three calls where the box's tap waits)."""
    try:
        return os.read(ser.fd, 4096)
    except BlockingIOError:
        return b""


class Reader:
    """The serial link. ``events`` is the daemon's queue; ``port`` a path such as
    /dev/card-reader (the udev rule in hardware/ makes that name).

    ``start()`` runs it on a thread of its own that posts events on the queue (``enroll``, the
    players' list). The box instead calls ``poll()`` on its own thread, so a tap's line is read,
    checked and applied by one thread with no hand-over between them (docs/latency.md); an event
    posted on the queue meanwhile ends the read's wait (``wake()``)."""

    def __init__(self, port, events, *, baudrate=115200, backoff=(0.1, 5.0), silence=5.0):
        self.port = port
        self.events = events
        self.baudrate = baudrate
        self.backoff = backoff
        self.silence = silence
        self.tracker = Tracker()
        self.counts = self.tracker.counts
        self._stop = threading.Event()
        self._thread = None
        self._serial = None
        self._send_lock = threading.Lock()
        self._seq = 0
        self._up = None  # last link state given out
        self._repeated = Repeated(log)  # a retry every 5 s is two log lines, not 17,000 a day
        # a loose plug that drops the link every few seconds is one storm of losses: the first loss
        # is logged (and its outage: cannot open, opened), the next are counted until the link has
        # held for QUIET seconds; each flap wrote four lines (lost, a partial line, cannot open, opened)
        self._losses = Repeated(log)
        self._quiet_outage = False  # this outage is one more of a storm: its retries are not logged
        self._woken = False  # a wake() byte waits in the abort pipe for the next read
        self._delay = backoff[0]  # the wait after the next failed open
        self.next_open = 0.0  # monotonic time of the next attempt to open the port

    def start(self):
        self._thread = threading.Thread(target=self._run, name="card-reader", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout=5.0):
        self._stop.set()
        self.wake()
        if self._thread:
            self._thread.join(timeout)
        else:
            self._close()

    def wake(self):
        """End a ``poll()`` waiting for the line (pyserial's abort pipe); harmless otherwise. Never
        blocks, so any thread may call it, even holding a lock: it takes none, and one byte at most
        waits in the pipe (a read takes it)."""
        ser = self._serial
        if ser is None or self._woken:
            return
        self._woken = True
        try:
            ser.cancel_read()
        except (*LINK_ERRORS, ValueError):  # closed meanwhile: no read to end
            pass

    @property
    def stopped(self):
        return self._stop.is_set()

    @property
    def linked(self):
        return self._serial is not None

    def send(self, body):
        """Send one command (``PING x``, ``LED 2 on``, ``BEEP 1 100``, ``STATUS``, ``SYNC``); False if the link is down."""
        with self._send_lock:
            ser = self._serial
            if ser is None:
                return False
            line = protocol.frame(self._seq, body)
            self._seq = (self._seq + 1) % protocol.SEQ_MOD
            try:
                ser.write(line)
            except LINK_ERRORS as e:  # a firmware that stops reading: said once, not each second
                self._repeated.happened("send", f"reader: could not send {body.split()[0]}: {e}")
                return False
        self._repeated.ended("send", "reader: commands go through again")
        return True

    def _run(self):
        while not self._stop.is_set():
            for event in self.poll():
                post(self.events, event, self._stop)  # a full queue: wait, and read nothing meanwhile
            if not self.linked:
                self._stop.wait(max(0.0, self.next_open - time.monotonic()))
        self._close()

    def poll(self):
        """One step: open the port if it is closed and an attempt is due, else read what the line
        brings (a read waits up to 0.5 s for it: few idle wake-ups on a slow Pi; ``wake()`` ends
        the wait). The events it makes, in order; never raises for the link's troubles."""
        out = []
        if self._serial is None:
            if time.monotonic() >= self.next_open and not self._stop.is_set():
                try:
                    self._open(out)
                except Exception:  # a bug here must not stop the box's loop: log it, try later
                    self.counts["internal error"] += 1
                    log.exception("reader error while opening the port")
                    self.next_open = time.monotonic() + self.backoff[1]
        else:
            try:
                self._read(out)
            except LINK_ERRORS as e:
                self.counts["unplugged"] += 1
                cut = f"; a partial line of {len(self._buf)} bytes discarded" if self._buf else ""
                self._quiet_outage = not self._losses.happened("lost", f"reader link lost: {e}{cut}")
                out.append(ReaderStatus(False, "card reader unplugged"))
                self._close()
            except Exception:  # a bug here must not silence the table: log it, reopen
                self.counts["internal error"] += 1
                log.exception("reader error; reopening the port")
                out.append(ReaderStatus(False, "card reader error"))
                self._close()
                self.next_open = time.monotonic() + self._delay
        return [e for e in out if self._fresh(e)]

    def _fresh(self, event):
        if isinstance(event, ReaderStatus):
            if event.connected == self._up and not event.connected:
                return False  # one "down" per outage, not one per retry
            self._up = event.connected
        return True

    def _open(self, out):
        try:
            # exclusive: two programs reading one port would each get half the lines; a firmware
            # that stops reading must not hold the box's thread in a write: a send gives up
            ser = serial.Serial(self.port, self.baudrate, timeout=0.5, write_timeout=WRITE_TIMEOUT,
                                exclusive=True)
        except (*LINK_ERRORS, ValueError) as e:
            self.counts["open failed"] += 1
            out.append(ReaderStatus(False, _cannot_open(self.port, e)))
            # a quiet outage (one more drop of a storm) is said once its retries wait their
            # longest: no flicker of a loose plug lasts that long, a plug out for good does
            if not self._quiet_outage or self._delay >= self.backoff[1]:
                self._repeated.happened("open", f"reader: cannot open {self.port} ({e}); retrying "
                                        f"every {self.backoff[1]:g} s at most")
            self.next_open = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, self.backoff[1])
            return
        self._delay = self.backoff[0]
        self._quiet_outage = False
        self._repeated.ended("open", f"reader: {self.port} opened")
        with self._send_lock:
            self._serial = ser
        self.tracker.link_opened()
        out.append(ReaderStatus(True, "card reader connected"))
        self._buf, self._skipping, self._quiet = bytearray(), False, False
        self._last_good, self._good, self._sync_at, self._sync_snap = time.monotonic(), self.tracker.good, 0.0, None

    def _read(self, out):
        ser, t = self._serial, self.tracker
        now = time.monotonic()
        if t.want_sync and (self._sync_snap != t.snapshots or now - self._sync_at > 1.0):
            # one SYNC at a time: its snapshot answers every loss seen before it
            self._sync_at, self._sync_snap = now, t.snapshots
            self.send("SYNC")
        data = ser.read(ser.in_waiting or 1)
        self._woken = False
        if len(data) == 1:  # the rest of the line that woke the read, in the same pass
            data += _rest(ser)
        if not data:
            if self.silence and not self._quiet and now - self._last_good > self.silence:
                self._quiet = True
                self.counts["silent"] += 1
                out.append(ReaderStatus(False, "card reader not answering"))
                # said in the log too (the screen alone said it): a port that opens and stays silent is
                # no card reader, or one without its firmware
                self._repeated.happened("silent", f"reader: {self.port} is open but sends no good line for "
                                        f"{self.silence:g} s: not answering (is it the card reader, with its "
                                        f"firmware? check [reader] device)")
            return
        buf = self._buf
        buf += data
        while (end := buf.find(b"\n")) >= 0:
            line = bytes(buf[:end])
            del buf[:end + 1]
            if self._skipping:
                self._skipping = False
                continue
            out.extend(t.feed(line))
        if len(buf) > protocol.MAX_LINE + 2 and not self._skipping:
            t.feed(bytes(buf))  # refused as too long, and counted
            buf.clear()
            self._skipping = True
        elif self._skipping:
            buf.clear()
        if t.good != self._good:
            self._good, self._last_good = t.good, time.monotonic()
            if self._losses.active:  # the link has held since the last loss: a storm of them is over
                self._losses.quiet(QUIET, lambda key: f"reader: the link to {self.port} has held for {QUIET:g} s")
            if self._quiet:
                self._quiet = False
                out.append(ReaderStatus(True, "card reader answering again"))
                self._repeated.ended("silent", f"reader: {self.port} answering again")

    def _close(self):
        with self._send_lock:
            ser, self._serial = self._serial, None
        if ser is None:
            return
        if getattr(self, "_buf", None) and not self._stop.is_set():  # stopping: a line in flight is no fault
            self.counts["cut off"] += 1  # (said with the loss that cut it: poll)
        self._buf = bytearray()
        try:
            ser.close()
        except LINK_ERRORS:
            pass
