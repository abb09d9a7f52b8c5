"""The display adapter: hands rendered frames to a luma device, never the same frame twice.

luma's ssd1306/sh1106 drivers send the whole frame (1,034 bytes on I2C, ~23 ms
at 400 kHz) on every ``display()`` call, so ``Display.show`` compares the frame
with the last one sent and skips it when nothing changed. The device is a real
luma one: ``ssd1306``/``sh1106`` over I2C on the box, luma's own ``dummy`` in
the simulation and tests, ``luma.emulator``'s ``capture`` if that is installed.
luma is imported only when a device is opened.

With ``background=True`` a writer thread does the sending: ``show`` returns at
once, and frames that arrive while the bus is busy are coalesced (only the
newest is sent), so the thread that owns the state never waits on I2C.

A hardware display is a ``Driver`` in ``DRIVERS`` with ``hardware=True``: the daemon opens it
with ``retry``, so a screen that is missing at start (I2C turned on but not yet rebooted) or
comes loose later is logged once, retried with back-off in the writer thread, and shows the
newest frame when it answers; the box runs on meanwhile (issue 16).

    display = open_display(cfg.display, frames_dir="frames/", background=True)
    display.show(screen.render(view))   # True: new frame accepted; False: same as the last
    print(to_terminal(display.last))    # the interactive simulation's view of the OLED
    display.close()                     # sends what is pending, then blanks and releases
"""
import logging
import threading
import time
from pathlib import Path

WIDTH, HEIGHT = 128, 64
BACKOFF = (1.0, 10.0)  # seconds between attempts to reach a missing display: first, at most

log = logging.getLogger("card-assistant")


class Display:
    """Wraps one luma device; optionally saves every frame it sends as a numbered PNG.

    With ``opener`` (a function that opens the device again) and ``background=True``, a display
    that is missing or stops answering (the OLED's cable, I2C not on yet) never stops the box: the
    writer thread logs one line when it goes, tries again with back-off, shows the newest frame as
    soon as the device answers and logs one line, with the count of failed attempts, when it is
    back (issue 16). ``device`` may then be None: not there at start (``error`` says why)."""

    def __init__(self, device, frames_dir=None, background=False, opener=None, label="the screen",
                 hint="", backoff=None, error=None):
        if device is not None:
            check_size(device)
        self.device = device
        self.frames_dir = Path(frames_dir) if frames_dir is not None else None
        if self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
        self.opener, self.label, self.hint = opener, label, hint
        self.backoff = backoff or BACKOFF
        self.last = None          # the last frame accepted by show() (a PIL image)
        self._last_bytes = None   # ... and its pixels
        self._sent_bytes = None   # pixels of the last frame actually sent to the device
        self.sent = 0             # frames handed to the device
        self.skipped = 0          # frames identical to the last one, never sent
        self.coalesced = 0        # background: frames replaced by a newer one before sending
        self.errors = 0           # background: failed sends or opens (e.g. I2C OSError)
        self.error = None         # ... the last such exception
        self.down = None          # background: while the device fails, [since, attempts, delay, next try]
        self._cv = threading.Condition()
        self._pending = None
        self._newest = None       # the newest accepted frame, sent again once the device is back
        self._busy = False
        self._closing = False
        self._thread = None
        if device is None and (opener is None or not background):
            raise ValueError("a display without a device needs an opener and background=True")
        if background:
            if device is None:
                self._failed(error)
            self._thread = threading.Thread(target=self._writer, name="display", daemon=True)
            self._thread.start()

    def show(self, image, data=None):
        """Accept ``image`` unless it equals the last frame; return whether it was accepted.
        ``data`` is ``image.tobytes()`` when the caller has it already (the box works it out
        while the frame's action is being stored: Pillow takes longer over it than the rest).

        In the foreground the frame is sent before this returns; in the background the
        writer thread sends it (or a newer frame, if one comes first)."""
        if image.mode != "1" or image.size != (WIDTH, HEIGHT):
            raise ValueError(f"a frame is a mode-'1' {WIDTH}x{HEIGHT} image, not {image.mode} {image.size}")
        if data is None:
            data = image.tobytes()
        if data == self._last_bytes:
            self.skipped += 1
            return False
        self._last_bytes, self.last = data, image
        if self._thread is None:
            self._send(image, data)
            return True
        with self._cv:
            if self._pending is not None:
                self.coalesced += 1
            self._pending = self._newest = (image, data)
            self._cv.notify_all()
        return True

    def _send(self, image, data):
        if data == self._sent_bytes:  # e.g. A sent, B queued, A again: B dropped, A not resent
            return
        mode = self.device.mode
        self.device.display(image if mode == "1" else image.convert(mode))
        self._sent_bytes = data
        self.sent += 1
        if self.frames_dir is not None:
            try:
                image.save(self.frames_dir / f"frame-{self.sent:06d}.png")
            except OSError as e:  # a full card, a folder that takes no file: the screen is fine
                log.warning("display: cannot save frames in %s (%s): no more are saved; the box runs on",
                            self.frames_dir, e.strerror or type(e).__name__)
                self.frames_dir = None

    def _next_job(self):
        """Under the lock: wait for a frame to send or a retry that is due; None to stop."""
        while True:
            if self._closing and (self._pending is None or self.down is not None):
                return None
            if self.down is None:
                if self._pending is not None:
                    job, self._pending = self._pending, None
                    return job
                self._cv.wait()
            else:
                wait = self.down[3] - time.monotonic()
                if wait <= 0:
                    self._pending = None
                    return self._newest or ()
                self._cv.wait(wait)

    def _writer(self):
        while True:
            with self._cv:
                job = self._next_job()
                if job is None:
                    return
                self._busy = True
            try:
                if self.device is None:
                    self.device = check_size(self.opener())
                    self._sent_bytes = None  # a device just opened shows nothing yet
                if job:
                    self._send(*job)
                ok = True
            except Exception as e:  # a loose OLED wire must not stop the screen for good
                ok = False
                self._failed(e)
            with self._cv:
                if ok and self.down is not None:
                    self._back()
                self._busy = False
                self._cv.notify_all()

    def _failed(self, e):
        """One more failed open or send: the first of an outage is logged, then retried with
        back-off (with an opener, the device is opened afresh: it may have been re-plugged)."""
        now = time.monotonic()
        what = "is not there" if self.device is None else "stopped answering"
        if e is not None:
            self.errors += 1
            self.error = e
        if self.device is not None and self.opener is not None:
            try:
                self.device.cleanup()
            except Exception:
                pass
            self.device = None
        if self.down is None:
            self.down = [now, 1, self.backoff[0], now + self.backoff[0]]
            cause = f" ({describe(self.error)})" if self.error is not None else ""
            log.warning("display: %s %s%s; %strying again every %g s at most, the box runs on",
                        self.label, what, cause, f"{self.hint}; " if self.hint else "",
                        self.backoff[1])
        else:
            d = self.down
            d[1] += 1
            d[2] = min(d[2] * 2, self.backoff[1])
            d[3] = now + d[2]

    def _back(self):
        since, attempts = self.down[0], self.down[1]
        self.down = None
        log.warning("display: %s answers again after %d failed attempt%s over %.0f s; showing the table",
                    self.label, attempts, "" if attempts == 1 else "s", time.monotonic() - since)

    def flush(self, timeout=None):
        """Wait until the writer thread has sent every accepted frame; True when it has (never
        while the device is missing)."""
        with self._cv:
            return self._cv.wait_for(
                lambda: self._pending is None and not self._busy and self.down is None, timeout)

    def close(self):
        """Send what is pending, stop the writer, then blank and release the device
        (luma's cleanup: display off, I2C bus closed)."""
        if self._thread is not None:
            with self._cv:
                self._closing = True
                self._cv.notify_all()
            self._thread.join()
            self._thread = None
        if self.device is not None:
            self.device.cleanup()
            self.device = None


def check_size(device):
    if tuple(device.size) != (WIDTH, HEIGHT):
        raise ValueError(f"the screens are drawn {WIDTH}x{HEIGHT}; this device is "
                         f"{device.size[0]}x{device.size[1]} (rotate must be 0 or 2)")
    return device


def describe(e):
    """An exception as a few words for a log line: its type and message, never a traceback."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _luma_i2c(cfg):
    from luma.core.interface.serial import i2c

    from assistant.hw.oled import DRIVERS as OLED  # luma's drivers, sending only the changed part of a frame

    serial = i2c(port=cfg.i2c_port, address=cfg.address)
    return OLED[cfg.driver](serial, width=WIDTH, height=HEIGHT, rotate=cfg.rotate)


def _dummy(cfg):
    from luma.core.device import dummy

    return dummy(width=WIDTH, height=HEIGHT, rotate=cfg.rotate, mode="1")


def _emulator(cfg):
    try:
        from luma.emulator.device import capture
    except ImportError:
        raise RuntimeError("display driver 'emulator' needs luma.emulator "
                           "(pip install luma.emulator), or use 'dummy'") from None
    return capture(width=WIDTH, height=HEIGHT, rotate=cfg.rotate, mode="1")


def _i2c_where(cfg):
    return f"/dev/i2c-{cfg.i2c_port} address 0x{cfg.address:02X}"


I2C_HINT = ("check that I2C is on (sudo raspi-config nonint do_i2c 0, then reboot; "
            "ls /dev/i2c-*), the OLED's four wires and its address (i2cdetect -y {port})")


class Driver:
    """How to open one kind of display. ``hardware`` drivers can be missing or come loose, so
    the daemon gives them a writer thread that retries; ``where`` and ``hint`` go in its log line.
    A new device is one more entry in DRIVERS (and in assistant.box.config's list of drivers)."""

    def __init__(self, open, hardware=False, where=None, hint=""):
        self.open, self.hardware, self.where, self.hint = open, hardware, where, hint


DRIVERS = {
    "ssd1306": Driver(_luma_i2c, hardware=True, where=_i2c_where, hint=I2C_HINT),
    "sh1106": Driver(_luma_i2c, hardware=True, where=_i2c_where, hint=I2C_HINT),
    "dummy": Driver(_dummy),
    "emulator": Driver(_emulator),
}


def driver(cfg):
    try:
        return DRIVERS[cfg.driver]
    except KeyError:
        raise ValueError(f"unknown display driver {cfg.driver!r}") from None


def open_device(cfg):
    """A luma device for ``cfg`` (an ``assistant.box.config.Display``)."""
    return driver(cfg).open(cfg)


def is_hardware(cfg):
    return driver(cfg).hardware


def open_display(cfg, frames_dir=None, background=False, retry=False):
    """The ``Display`` for a config's ``[display]`` section.

    With ``retry`` (the daemon, for a hardware driver) a device that cannot be opened is not an
    error: the display starts without it, logs one line and keeps trying in the background."""
    d = driver(cfg)
    if not (retry and background and d.hardware):
        return Display(d.open(cfg), frames_dir, background)
    label = f"{cfg.driver} on {d.where(cfg)}" if d.where else cfg.driver
    hint = d.hint.format(port=cfg.i2c_port) if d.hint else ""
    opener = lambda: d.open(cfg)  # noqa: E731
    try:
        device = opener()
    except Exception as e:  # not there yet (I2C off until a reboot) or a loose cable
        return Display(None, frames_dir, True, opener, label, hint, error=e)
    return Display(device, frames_dir, True, opener, label, hint)


_HALF = " ▀▄█"               # index: top pixel 1, bottom pixel 2
_QUAD = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"  # index: top-left 1, top-right 2, bottom-left 4, bottom-right 8


def to_terminal(image, border=True, compact=False):
    """The frame as text: half blocks (128 columns x 32 lines), or with ``compact`` quarter
    blocks (64 x 32, fits an 80-column terminal; small text gets harder to read)."""
    w, h = image.size
    px = image.convert("1").load()
    on = lambda x, y: x < w and y < h and px[x, y] != 0  # noqa: E731
    lines = []
    if compact:
        for y in range(0, h, 2):
            lines.append("".join(_QUAD[on(x, y) | on(x + 1, y) << 1 | on(x, y + 1) << 2
                                       | on(x + 1, y + 1) << 3] for x in range(0, w, 2)))
        w = (w + 1) // 2
    else:
        for y in range(0, h, 2):
            lines.append("".join(_HALF[on(x, y) | on(x, y + 1) << 1] for x in range(w)))
    if border:
        lines = ["┌" + "─" * w + "┐"] + [f"│{ln}│" for ln in lines] + ["└" + "─" * w + "┘"]
    return "\n".join(lines)
