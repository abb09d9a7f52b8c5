"""The alert adapter: a gpiozero Buzzer and LED, one distinct pattern per alert kind.

Patterns run in gpiozero's background threads (``beep``/``blink`` with
``background=True``), so ``play`` returns at once. A renege sounds unlike a
refused card, so the table hears which happened without looking:

- renege: three long beeps, the LED blinking fast for about 3 s
- refused: one short beep, one LED flash
- unknown-tag: two short beeps, two flashes
- reader-lost: two short beeps, then the LED blinks slowly until cleared
- info: one LED flash, silent

    alerts = open_alerts(cfg)   # cfg: assistant.box.config.Config; pin_factory=MockFactory() to simulate
    alerts.update(view.alert)   # call with every new view: starts a pattern when the alert changes
    alerts.close()
"""
from dataclasses import dataclass

# (on seconds, off seconds, repeats or None for until cleared); None = stay quiet
Timing = tuple[float, float, int | None]


@dataclass(frozen=True)
class Pattern:
    beep: Timing | None
    blink: Timing | None


PATTERNS = {
    "renege": Pattern(beep=(0.4, 0.2, 3), blink=(0.1, 0.1, 15)),
    "refused": Pattern(beep=(0.08, 0.1, 1), blink=(0.3, 0.1, 1)),
    "unknown-tag": Pattern(beep=(0.08, 0.12, 2), blink=(0.08, 0.12, 2)),
    "reader-lost": Pattern(beep=(0.08, 0.12, 2), blink=(0.5, 1.5, None)),
    "info": Pattern(beep=None, blink=(0.2, 0.1, 1)),
}


class Alerts:
    """Buzzer and LED on the pins of ``pins`` (an ``assistant.box.config.Pins``)."""

    def __init__(self, pins, pin_factory=None, patterns=PATTERNS, scale=1.0):
        from gpiozero import LED, Buzzer

        self.patterns = patterns
        self.scale = scale  # multiplies every duration (tests run patterns fast)
        self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)
        try:
            self.led = LED(pins.led, pin_factory=pin_factory)
        except Exception:
            self.buzzer.close()
            raise
        self.current = None  # the alert last played, so a repeated view does not replay it

    def _timing(self, t):
        on, off, n = t
        return dict(on_time=on * self.scale, off_time=off * self.scale, n=n, background=True)

    def play(self, kind):
        """Start ``kind``'s pattern at once, cutting short any pattern still running."""
        p = self.patterns[kind]
        self.buzzer.off()
        self.led.off()
        if p.beep:
            self.buzzer.beep(**self._timing(p.beep))
        if p.blink:
            self.led.blink(**self._timing(p.blink))

    def update(self, alert):
        """Follow the view's alert: play a new one, stay quiet for the same one, clear on None."""
        if alert == self.current:
            return
        self.current = alert
        if alert is None:
            self.clear()
        else:
            self.play(alert.kind)

    def clear(self):
        """Silence the buzzer and put the LED out (stops any background pattern)."""
        self.buzzer.off()
        self.led.off()

    def close(self):
        for dev in (self.buzzer, self.led):
            dev.close()


def open_alerts(cfg, pin_factory=None):
    """The buzzer and LED of a whole ``assistant.box.config.Config``."""
    return Alerts(cfg.pins, pin_factory=pin_factory)
