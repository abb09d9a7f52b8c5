"""Buttons on gpiozero's MockFactory: presses, hold gestures, events only on the queue, clean close."""
import queue

import pytest

from assistant.hw.buttons import NAMES, Buttons
from assistant.box.config import Pins
from assistant.hw.events import ButtonPressed

PINS = Pins()


def make(factory, hold_time=5.0):
    # A press shorter than hold_time is a press.
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
        buttons.hold_time = 5.0
        p.drive_low()
        p.drive_high()
        assert q.get_nowait() == ButtonPressed(name, False)
    finally:
        buttons.close()


def test_left_has_no_hold_gesture(factory):
    buttons, _ = make(factory)
    try:
        assert buttons.holds == ("ok", "back")
        assert buttons.devices["left"].when_deactivated is None
        assert buttons.devices["ok"].when_deactivated is not None
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
    from assistant.hw.buttons import open_buttons
    from assistant.box.config import from_dict

    cfg = from_dict({"pins": {"ok": 26}, "buttons": {"hold_time": 2.5}})
    q = queue.Queue()
    buttons = open_buttons(cfg, q, pin_factory=factory)
    try:
        assert buttons.devices["ok"].pin.info.name == "GPIO26"
        assert buttons.hold_time == 2.5
        factory.pin(26).drive_low()
        factory.pin(26).drive_high()
        assert q.get_nowait() == ButtonPressed("ok", False)
    finally:
        buttons.close()


def test_idle_buttons_run_no_thread(factory):
    """Issue 12 item 6: an idle box sleeps; gpiozero's hold thread per Button woke every 100 ms."""
    import threading

    before = set(threading.enumerate())  # (a thread of an earlier test may end meanwhile)
    buttons, q = make(factory, hold_time=5.0)
    try:
        assert not set(threading.enumerate()) - before
        pin(factory, "ok").drive_low()  # a press starts the hold timer, the release ends it
        assert len(set(threading.enumerate()) - before) == 1
        pin(factory, "ok").drive_high()
        assert q.get_nowait() == ButtonPressed("ok", False)
        for t in set(threading.enumerate()) - before:
            t.join(10)
        assert not set(threading.enumerate()) - before
    finally:
        buttons.close()


def test_a_released_press_never_turns_into_a_hold_later(factory):
    """The hold gesture unchanged: a timer of an earlier press cannot report a later press held."""
    buttons, q = make(factory, hold_time=0.05)
    try:
        p = pin(factory, "back")
        p.drive_low()
        p.drive_high()
        assert q.get_nowait() == ButtonPressed("back", False)
        buttons.hold_time = 5.0
        p.drive_low()  # a second press, held below its hold time while the first timer is due
        with pytest.raises(queue.Empty):
            q.get(timeout=0.3)
        p.drive_high()
        assert q.get_nowait() == ButtonPressed("back", False)
    finally:
        buttons.close()


def test_a_button_down_at_close_posts_nothing_after(factory):
    buttons, q = make(factory, hold_time=0.05)
    pin(factory, "ok").drive_low()
    buttons.close()
    with pytest.raises(queue.Empty):
        q.get(timeout=0.3)
