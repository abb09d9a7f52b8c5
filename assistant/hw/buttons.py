"""The button adapter: four gpiozero buttons whose callbacks only post events.

Left, Right, OK and Back connect their GPIO to ground (internal pull-ups). A
button with a hold gesture (OK: menu, Back: undo, by default) reports on release
as a short press, or once as ``held=True`` when held for ``hold_time``; so a hold
never also counts as a press. Left and Right report at once when pressed.
Callbacks run on gpiozero's threads and do nothing but ``queue.put``: the one
thread that owns the state reads the queue. gpiozero is imported on open.

An idle box sleeps: each button is gpiozero's ``DigitalInputDevice`` (what its
``Button`` is without the hold mixin, whose thread per button wakes every 100 ms
even when nothing is pressed, 40 wake-ups a second for four buttons). The hold
is timed by a ``threading.Timer`` started at the press and cancelled at the
release, so nothing runs between presses.

    q = queue.Queue()
    buttons = open_buttons(cfg, q)     # cfg: assistant.box.config.Config; pin_factory=MockFactory() to simulate
    q.get()            # ButtonPressed(name='ok', held=False)
    buttons.close()
"""
import threading

from assistant.hw.events import ButtonPressed

NAMES = ("left", "right", "ok", "back")
HOLDS = ("ok", "back")  # buttons with a hold gesture: hold OK = menu, hold Back = undo


class Buttons:
    """The box's buttons on the pins of ``pins`` (an ``assistant.box.config.Pins``)."""

    def __init__(self, pins, queue, hold_time=1.0, bounce_time=0.02, holds=HOLDS,
                 pin_factory=None):
        from gpiozero import DigitalInputDevice

        self.queue = queue
        self.hold_time = hold_time
        self.holds = tuple(name for name in NAMES if name in holds)
        self._lock = threading.Lock()
        self._held = {}
        self._timers = {}  # name: the hold timer of the press going on
        self.devices = {}
        try:
            for name in NAMES:
                b = DigitalInputDevice(getattr(pins, name), pull_up=True,
                                       bounce_time=bounce_time or None, pin_factory=pin_factory)
                self.devices[name] = b
                if name in holds:
                    b.when_activated = self._on_down(name)
                    b.when_deactivated = self._on_released(name)
                else:
                    b.when_activated = self._on_pressed(name)
        except Exception:
            self.close()
            raise

    def _on_pressed(self, name):
        def pressed():
            self.queue.put(ButtonPressed(name, False))
        return pressed

    def _on_down(self, name):
        def down():
            timer = threading.Timer(self.hold_time, self._held_now, (name,))
            timer.daemon = True
            with self._lock:
                old, self._timers[name] = self._timers.get(name), timer
                self._held.pop(name, None)
            if old is not None:
                old.cancel()
            timer.start()
        return down

    def _held_now(self, name):
        with self._lock:  # still the same press (a release takes the timer away)
            if self._timers.get(name) is not threading.current_thread():
                return
            self._held[name] = True
        self.queue.put(ButtonPressed(name, True))

    def _on_released(self, name):
        def released():
            with self._lock:
                timer = self._timers.pop(name, None)
                was_held = self._held.pop(name, False)
            if timer is not None:
                timer.cancel()
            if not was_held:
                self.queue.put(ButtonPressed(name, False))
        return released

    def close(self):
        """Release every pin and stop any hold timer."""
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()
        for b in self.devices.values():
            b.close()
        self.devices.clear()


def open_buttons(cfg, queue, pin_factory=None):
    """The buttons of a whole ``assistant.box.config.Config`` (pins and [buttons] timings)."""
    return Buttons(cfg.pins, queue, hold_time=cfg.buttons.hold_time,
                   bounce_time=cfg.buttons.bounce_time, pin_factory=pin_factory)
