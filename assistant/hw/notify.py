"""systemd's notify protocol (sd_notify), for ``Type=notify`` and the watchdog.

A datagram to the socket named by ``$NOTIFY_SOCKET``; nothing happens when the
variable is unset (a laptop, a test). Written here because it is a dozen lines
and the systemd bindings need a compiler on the Pi.
"""
import logging
import os
import socket

log = logging.getLogger(__name__)
MAX_USEC = 10 ** 12  # microseconds (11.6 days): a longer watchdog is none systemd would ever act on
MIN_WATCHDOG = 0.1  # seconds: the loop pings at half of it; a shorter one made it spin, pinging 4,000 times a second


class Notifier:
    def __init__(self, environ=os.environ):
        addr = environ.get("NOTIFY_SOCKET")
        if addr and addr.startswith("@"):
            addr = "\0" + addr[1:]  # an abstract socket
        self.addr = addr
        usec = environ.get("WATCHDOG_USEC")
        pid = environ.get("WATCHDOG_PID")
        mine = pid is None or pid == str(os.getpid())
        self.watchdog = None
        if usec and mine:
            # ASCII digits only: str.isdigit takes "²", which int() refuses; and few of them: int()
            # refuses more than 4,300 digits, a float more than 308 (each stopped the box at start)
            if usec.isascii() and usec.isdigit() and len(usec) <= 20 and 0 < int(usec) <= MAX_USEC:
                self.watchdog = int(usec) / 1e6
                if self.watchdog < MIN_WATCHDOG:
                    log.warning("WATCHDOG_USEC=%s is shorter than the box's loop can keep: it pings the "
                                "watchdog every %g s (WatchdogSec= of 1 s or more is safe)", usec, MIN_WATCHDOG / 2)
                    self.watchdog = MIN_WATCHDOG
            else:
                shown = usec if len(usec) <= 20 else f"{usec[:20]}... ({len(usec)} characters)"
                log.warning("WATCHDOG_USEC=%r is not a watchdog interval (1 to %d microseconds): "
                            "no watchdog is fed", shown, MAX_USEC)

    def send(self, text):
        if not self.addr:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.setblocking(False)  # a listener that stopped reading must not stall the box's loop
            try:
                s.sendto(text.encode(), self.addr)
            except OSError:  # no listener, or its queue is full (BlockingIOError): the ping is lost
                return False
        return True

    def ready(self, status=""):
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def ping(self):
        return self.send("WATCHDOG=1")

    def stopping(self):
        return self.send("STOPPING=1")
