"""``card-assistant run --timing``: the time of each stage of the box, one log line per event.

    INFO card-assistant.hw.timing: TagArrived: table 0.41 ms, commit 4.20 ms, render 0.00 ms,
        to display 0.01 ms; 4.62 ms in all
    INFO card-assistant.hw.timing: OLED: 396 bytes on I2C in 9.4 ms

The box's thread marks each stage of an event: ``table`` (the rules and the table),
``commit`` (the journal's commit, the view worked out and drawn meanwhile on the render
thread), ``render`` (what the view and the drawing still needed once the commit was over), ``to display`` (handing
the frame to the display's writer). An event that reads the journal while it is handled (an
undo, a deal-scan card) has its commit made there, inside ``table``, and its view and frame
made after it, all of it in ``render``. The OLED driver (assistant.hw.oled) logs each frame it sends:
bytes on the wire and the time the I2C write took. No card or tag is named. The time before
an event reaches the box (the reader's poll on the Pico, the serial line, parsing) is in
docs/latency.md and ``dev.py bench reader``.
"""
import logging
import time

log = logging.getLogger("card-assistant.hw.timing")
enabled = False


def enable():
    global enabled
    enabled = True


class StageClock:
    """Marks the stages of one event on the box's thread; ``done`` logs them."""

    def __init__(self):
        self.kind, self.t0, self.t, self.stages = None, 0.0, 0.0, []

    def start(self, event):
        self.kind, self.stages = type(event).__name__, []
        self.t0 = self.t = time.perf_counter()

    def mark(self, stage):
        if self.kind is None:
            return
        now = time.perf_counter()
        self.stages.append((stage, now - self.t))
        self.t = now

    def done(self):
        if self.kind is None:
            return
        stages = ", ".join(f"{name} {s * 1e3:.2f} ms" for name, s in self.stages)
        log.info("%s: %s; %.2f ms in all", self.kind, stages, (self.t - self.t0) * 1e3)
        self.kind = None


def clock():
    """A StageClock when ``--timing`` is on, else None."""
    return StageClock() if enabled else None
