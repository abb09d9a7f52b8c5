"""Buzzer and LED alerts on gpiozero's MockFactory: distinct patterns, non-blocking, clean close."""
import time

import pytest

from assistant.hw.alerts import PATTERNS, Alerts
from assistant.box.config import Pins
from assistant.box.view import ALERT_KINDS, Alert

PINS = Pins()


def rises(pin):
    """How many times the pin went high (MockPin records every change)."""
    return sum(1 for a, b in zip(pin.states, pin.states[1:]) if not a.state and b.state)


def wait_for(cond, limit=10.0):
    """Wait until ``cond()`` holds; only a generous safety limit, no assertion on speed."""
    end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < end, "gave up waiting for gpiozero's background thread"
        time.sleep(0.001)


def test_every_alert_kind_has_a_pattern_and_renege_and_refused_differ():
    assert set(PATTERNS) == set(ALERT_KINDS)
    r, f = PATTERNS["renege"], PATTERNS["refused"]
    assert r.beep[2] != f.beep[2] and r.beep[0] != f.beep[0]
    assert r.blink != f.blink
    assert len({p for p in PATTERNS.values()}) == len(PATTERNS)


@pytest.mark.parametrize("kind", ALERT_KINDS)
def test_pattern_plays_its_count_of_beeps_and_flashes(factory, kind):
    """Run at 1/1000 speed; count the buzzer's and LED's rising edges on the mock pins."""
    alerts = Alerts(PINS, pin_factory=factory, scale=0.001)
    try:
        buzzer, led = factory.pin(PINS.buzzer), factory.pin(PINS.led)
        p = PATTERNS[kind]
        beeps = p.beep[2] if p.beep else 0
        flashes = p.blink[2] if p.blink else 0
        alerts.play(kind)
        # a finished pattern leaves the pin low after 1 + 2n recorded states
        wait_for(lambda: len(buzzer.states) == 1 + 2 * beeps)
        assert rises(buzzer) == beeps
        if flashes is None:  # until cleared
            wait_for(lambda: rises(led) >= 3)
            alerts.clear()
            assert not led.state
        else:
            wait_for(lambda: len(led.states) == 1 + 2 * flashes)
            assert rises(led) == flashes
    finally:
        alerts.close()


def test_play_returns_at_once_while_the_pattern_runs_in_the_background(factory):
    """A one-hour beep: play() is back while the buzzer still sounds (no timing involved)."""
    from assistant.hw.alerts import Pattern

    alerts = Alerts(PINS, pin_factory=factory,
                    patterns={"renege": Pattern(beep=(3600, 1, 1), blink=(3600, 1, 1))})
    try:
        alerts.play("renege")
        assert alerts.buzzer.is_active and alerts.led.is_active
        alerts.clear()
        assert not alerts.buzzer.is_active and not alerts.led.is_active
    finally:
        alerts.close()


def test_update_plays_a_new_alert_once_and_clears_on_none(factory):
    alerts = Alerts(PINS, pin_factory=factory)
    try:
        buzzer = factory.pin(PINS.buzzer)
        a = Alert("reader-lost", "Card reader unplugged")
        alerts.update(a)
        assert alerts.led.is_active and buzzer.state
        before = len(buzzer.states)
        alerts.update(Alert("reader-lost", "Card reader unplugged"))  # same alert, next frame
        assert len(buzzer.states) == before
        alerts.update(None)
        assert not alerts.led.is_active and not alerts.buzzer.is_active
    finally:
        alerts.close()


def test_a_new_alert_cuts_the_running_one_short(factory):
    alerts = Alerts(PINS, pin_factory=factory)
    try:
        alerts.play("reader-lost")  # LED blinks until cleared
        alerts.play("refused")
        led = factory.pin(PINS.led)
        assert alerts.led.is_active
        alerts.clear()
        assert not alerts.led.is_active and not led.state
    finally:
        alerts.close()


def test_close_releases_both_pins(factory):
    alerts = Alerts(PINS, pin_factory=factory)
    alerts.play("reader-lost")
    alerts.close()
    assert alerts.buzzer.closed and alerts.led.closed
    again = Alerts(PINS, pin_factory=factory)
    again.close()


def test_open_alerts_uses_the_config_pins(factory):
    from assistant.hw.alerts import open_alerts
    from assistant.box.config import from_dict

    alerts = open_alerts(from_dict({"pins": {"led": 24}}), pin_factory=factory)
    try:
        alerts.play("info")
        assert alerts.led.pin.info.name == "GPIO24" and alerts.buzzer.pin.info.name == "GPIO18"
    finally:
        alerts.close()
