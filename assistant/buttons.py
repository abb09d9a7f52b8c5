"""The button adapter: four gpiozero buttons whose callbacks only post events.

Left, Right, OK and Back connect their GPIO to ground (internal pull-ups). A
button with a hold gesture (OK: menu, Back: undo, by default) reports on release
as a short press, or once as ``held=True`` when held for ``hold_time``; so a hold
never also counts as a press. Left and Right report at once when pressed.
Callbacks run on gpiozero's threads and do nothing but ``queue.put``: the one
thread that owns the state reads the queue. gpiozero is imported on open.

    q = queue.Queue()
    buttons = open_buttons(cfg, q)     # cfg: assistant.config.Config; pin_factory=MockFactory() to simulate
    q.get()            # ButtonPressed(name='ok', held=False)
    buttons.close()
"""
import threading

from assistant.events import ButtonPressed

NAMES = ("left", "right", "ok", "back")
HOLDS = ("ok", "back")  # buttons with a hold gesture: hold OK = menu, hold Back = undo


class Buttons:
    """The box's buttons on the pins of ``pins`` (an ``assistant.config.Pins``)."""

    def __init__(self, pins, queue, hold_time=1.0, bounce_time=0.02, holds=HOLDS,
                 pin_factory=None):
        from gpiozero import Button

        self.queue = queue
        self._lock = threading.Lock()
        self._held = {}
        self.devices = {}
        try:
            for name in NAMES:
                b = Button(getattr(pins, name), pull_up=True, bounce_time=bounce_time or None,
                           hold_time=hold_time, pin_factory=pin_factory)
                self.devices[name] = b
                if name in holds:
                    b.when_held = self._on_held(name)
                    b.when_released = self._on_released(name)
                else:
                    b.when_pressed = self._on_pressed(name)
        except Exception:
            self.close()
            raise

    def _on_pressed(self, name):
        def pressed():
            self.queue.put(ButtonPressed(name, False))
        return pressed

    def _on_held(self, name):
        def held():
            with self._lock:
                self._held[name] = True
            self.queue.put(ButtonPressed(name, True))
        return held

    def _on_released(self, name):
        def released():
            with self._lock:
                was_held = self._held.pop(name, False)
            if not was_held:
                self.queue.put(ButtonPressed(name, False))
        return released

    def close(self):
        """Release every pin (gpiozero stops its hold threads too)."""
        for b in self.devices.values():
            b.close()
        self.devices.clear()


def open_buttons(cfg, queue, pin_factory=None):
    """The buttons of a whole ``assistant.config.Config`` (pins and [buttons] timings)."""
    return Buttons(cfg.pins, queue, hold_time=cfg.buttons.hold_time,
                   bounce_time=cfg.buttons.bounce_time, pin_factory=pin_factory)
