"""Buttons on gpiozero's MockFactory: presses, hold gestures, events only on the queue, clean close."""
import queue

import pytest

from assistant.buttons import NAMES, Buttons
from assistant.config import Pins
from assistant.events import ButtonPressed

PINS = Pins()


def make(factory, hold_time=5.0):
    # A press shorter than hold_time is a press. Tests release every button they press:
    # gpiozero's hold thread of a button held down at close() waits out hold_time.
    q = queue.Queue()
    return Buttons(PINS, q, hold_time=hold_time, pin_factory=factory), q


def pin(factory, name):
    return factory.pin(getattr(PINS, name))


def test_each_button_posts_its_name_on_a_short_press(factory):
    buttons, q = make(factory)
    try:
        for name in NAMES:
            p = pin(factory, name)
            p.drive_low()   # pressed: the button pulls the pulled-up GPIO to ground
            p.drive_high()
            assert q.get_nowait() == ButtonPressed(name, False)
        assert q.empty()
    finally:
        buttons.close()


def test_left_and_right_report_on_press_ok_and_back_on_release(factory):
    """A button with a hold gesture must wait for release to know it was not a hold."""
    buttons, q = make(factory)
    try:
        pin(factory, "right").drive_low()
        assert q.get_nowait() == ButtonPressed("right", False)
        pin(factory, "right").drive_high()
        assert q.empty()
        pin(factory, "ok").drive_low()
        assert q.empty()
        pin(factory, "ok").drive_high()
        assert q.get_nowait() == ButtonPressed("ok", False)
    finally:
        buttons.close()


@pytest.mark.parametrize("name", ["ok", "back"])
def test_a_hold_posts_one_held_event_and_no_press(factory, name):
    buttons, q = make(factory, hold_time=0.01)
    try:
        p = pin(factory, name)
        p.drive_low()
        # gpiozero's hold thread posts it; waiting for the event is not a timing assertion
        assert q.get(timeout=10) == ButtonPressed(name, True)
        p.drive_high()
        assert q.empty()
        # the next short press is a press again
        buttons.devices[name].hold_time = 5.0
        p.drive_low()
        p.drive_high()
        assert q.get_nowait() == ButtonPressed(name, False)
    finally:
        buttons.close()


def test_left_has_no_hold_gesture(factory):
    buttons, _ = make(factory)
    try:
        assert buttons.devices["left"].when_held is None
        assert buttons.devices["ok"].when_held is not None
    finally:
        buttons.close()


def test_callbacks_only_post_events_of_the_adapter_type(factory):
    buttons, q = make(factory)
    try:
        pin(factory, "left").drive_low()
        pin(factory, "left").drive_high()
        ev = q.get_nowait()
        assert type(ev) is ButtonPressed
    finally:
        buttons.close()


def test_close_releases_every_pin_so_they_can_be_claimed_again(factory):
    buttons, _ = make(factory)
    devices = list(buttons.devices.values())
    buttons.close()
    assert all(d.closed for d in devices)
    again, _ = make(factory)  # would raise GPIOPinInUse if a pin were still reserved
    again.close()


def test_a_pin_clash_releases_what_was_claimed(factory):
    from gpiozero import GPIOPinInUse, LED

    blocker = LED(PINS.back, pin_factory=factory)
    try:
        with pytest.raises(GPIOPinInUse):
            make(factory)
        # left, right and ok were released when back failed: they can be claimed now
        again = [LED(getattr(PINS, n), pin_factory=factory) for n in ("left", "right", "ok")]
        for d in again:
            d.close()
    finally:
        blocker.close()


def test_open_buttons_takes_pins_and_timings_from_the_config(factory):
    from assistant.buttons import open_buttons
    from assistant.config import from_dict

    cfg = from_dict({"pins": {"ok": 26}, "buttons": {"hold_time": 2.5}})
    q = queue.Queue()
    buttons = open_buttons(cfg, q, pin_factory=factory)
    try:
        assert buttons.devices["ok"].pin.info.name == "GPIO26"
        assert buttons.devices["back"].hold_time == 2.5
        factory.pin(26).drive_low()
        factory.pin(26).drive_high()
        assert q.get_nowait() == ButtonPressed("ok", False)
    finally:
        buttons.close()
