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

    display = open_display(cfg.display, frames_dir="frames/", background=True)
    display.show(screen.render(view))   # True: new frame accepted; False: same as the last
    print(to_terminal(display.last))    # the interactive simulation's view of the OLED
    display.close()                     # sends what is pending, then blanks and releases
"""
import threading
from pathlib import Path

WIDTH, HEIGHT = 128, 64


class Display:
    """Wraps one luma device; optionally saves every frame it sends as a numbered PNG."""

    def __init__(self, device, frames_dir=None, background=False):
        if tuple(device.size) != (WIDTH, HEIGHT):
            raise ValueError(f"the screens are drawn {WIDTH}x{HEIGHT}; this device is "
                             f"{device.size[0]}x{device.size[1]} (rotate must be 0 or 2)")
        self.device = device
        self.frames_dir = Path(frames_dir) if frames_dir is not None else None
        if self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
        self.last = None          # the last frame accepted by show() (a PIL image)
        self._last_bytes = None   # ... and its pixels
        self._sent_bytes = None   # pixels of the last frame actually sent to the device
        self.sent = 0             # frames handed to the device
        self.skipped = 0          # frames identical to the last one, never sent
        self.coalesced = 0        # background: frames replaced by a newer one before sending
        self.errors = 0           # background: sends that raised (e.g. I2C OSError)
        self.error = None         # ... the last such exception, for the daemon to log
        self._cv = threading.Condition()
        self._pending = None
        self._busy = False
        self._closing = False
        self._thread = None
        if background:
            self._thread = threading.Thread(target=self._writer, name="display", daemon=True)
            self._thread.start()

    def show(self, image):
        """Accept ``image`` unless it equals the last frame; return whether it was accepted.

        In the foreground the frame is sent before this returns; in the background the
        writer thread sends it (or a newer frame, if one comes first)."""
        if image.mode != "1" or image.size != (WIDTH, HEIGHT):
            raise ValueError(f"a frame is a mode-'1' {WIDTH}x{HEIGHT} image, not {image.mode} {image.size}")
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
            self._pending = (image, data)
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
            image.save(self.frames_dir / f"frame-{self.sent:06d}.png")

    def _writer(self):
        while True:
            with self._cv:
                while self._pending is None and not self._closing:
                    self._cv.wait()
                if self._pending is None:
                    return
                (image, data), self._pending = self._pending, None
                self._busy = True
            try:
                self._send(image, data)
            except Exception as e:  # a loose OLED wire must not stop the screen for good
                self.error = e
                self.errors += 1
            with self._cv:
                self._busy = False
                self._cv.notify_all()

    def flush(self, timeout=None):
        """Wait until the writer thread has sent every accepted frame; True when it has."""
        with self._cv:
            return self._cv.wait_for(lambda: self._pending is None and not self._busy, timeout)

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


def open_device(cfg):
    """A luma device for ``cfg`` (an ``assistant.config.Display``)."""
    if cfg.driver in ("ssd1306", "sh1106"):
        from luma.core.interface.serial import i2c

        from .oled import DRIVERS  # luma's drivers, sending only the changed part of a frame

        serial = i2c(port=cfg.i2c_port, address=cfg.address)
        return DRIVERS[cfg.driver](serial, width=WIDTH, height=HEIGHT, rotate=cfg.rotate)
    if cfg.driver == "dummy":
        from luma.core.device import dummy

        return dummy(width=WIDTH, height=HEIGHT, rotate=cfg.rotate, mode="1")
    if cfg.driver == "emulator":
        try:
            from luma.emulator.device import capture
        except ImportError:
            raise RuntimeError("display driver 'emulator' needs luma.emulator "
                               "(pip install luma.emulator), or use 'dummy'") from None
        return capture(width=WIDTH, height=HEIGHT, rotate=cfg.rotate, mode="1")
    raise ValueError(f"unknown display driver {cfg.driver!r}")


def open_display(cfg, frames_dir=None, background=False):
    """The ``Display`` for a config's ``[display]`` section."""
    return Display(open_device(cfg), frames_dir, background)


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
