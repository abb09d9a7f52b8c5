"""The display adapter over real luma devices: dummy, and ssd1306/sh1106 on luma's noop interface.

The I2C traffic is observed with a Mock that *wraps* luma's own ``noop`` serial
interface (a spy, not a fake): it records what the real driver would send.
"""
from unittest import mock

import pytest
from PIL import Image

from assistant.box.config import Display as DisplayCfg
from assistant.hw.display import Display, open_device, open_display, to_terminal
from assistant.box.screen import render
from assistant.box.view import Alert, View


def frame(score=(0, 0), alert=None):
    return render(View(game="towers", seats=("P1", "P2"), phase="play", score=score, alert=alert))


def spy_device(driver):
    from luma.core.interface.serial import noop
    from luma.oled import device as oled

    spy = mock.Mock(wraps=noop())
    dev = getattr(oled, driver)(serial_interface=spy, width=128, height=64)
    spy.reset_mock()  # forget the init sequence and luma's own clear()
    return dev, spy


def data_bytes(spy):
    return sum(len(c.args[0]) for c in spy.data.call_args_list)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_an_identical_frame_is_never_sent_to_the_oled(driver):
    """luma sends a full frame per display(); the adapter sends nothing for a repeat."""
    dev, spy = spy_device(driver)
    d = Display(dev)
    assert d.show(frame()) is True
    assert data_bytes(spy) == 1024  # 128x64 bits: the whole frame went out
    spy.reset_mock()
    assert d.show(frame()) is False  # a new image object with the same pixels
    assert spy.data.call_count == 0 and spy.command.call_count == 0
    assert d.show(frame(score=(1, 0))) is True
    assert data_bytes(spy) == 1024
    assert (d.sent, d.skipped) == (2, 1)


def test_dummy_device_holds_exactly_the_frame_sent():
    d = open_display(DisplayCfg(driver="dummy"))
    img = frame(score=(3, 2))
    d.show(img)
    assert d.device.image.tobytes() == img.tobytes()
    d.show(frame(score=(3, 2)))
    assert d.sent == 1
    d.close()
    assert d.device is None


def test_rotate_2_flips_the_frame_on_the_device():
    d = open_display(DisplayCfg(driver="dummy", rotate=2))
    img = frame(score=(4, 1))
    d.show(img)
    assert d.device.image.tobytes() == img.rotate(180).tobytes()


def test_a_portrait_device_is_refused():
    from luma.core.device import dummy

    with pytest.raises(ValueError, match="rotate must be 0 or 2"):
        Display(dummy(width=128, height=64, rotate=1, mode="1"))


def test_a_frame_of_the_wrong_shape_is_refused():
    d = open_display(DisplayCfg(driver="dummy"))
    with pytest.raises(ValueError, match="mode-'1' 128x64"):
        d.show(Image.new("1", (64, 64)))
    with pytest.raises(ValueError):
        d.show(Image.new("RGB", (128, 64)))


def test_frames_dir_gets_one_png_per_sent_frame(tmp_path):
    d = open_display(DisplayCfg(driver="dummy"), frames_dir=tmp_path / "frames")
    a, b = frame(), frame(alert=Alert("renege", "P2 failed to follow ♥ (trick 3)"))
    for img in (a, a, b, b, a):
        d.show(img)
    files = sorted((tmp_path / "frames").iterdir())
    assert [f.name for f in files] == [f"frame-00000{i}.png" for i in (1, 2, 3)]
    assert [Image.open(f).convert("1").tobytes() for f in files] == [x.tobytes() for x in (a, b, a)]


def test_emulator_driver_says_what_to_install_when_missing():
    try:
        import luma.emulator  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="luma.emulator"):
            open_device(DisplayCfg(driver="emulator"))
    else:  # pragma: no cover - only where luma.emulator is installed
        assert open_device(DisplayCfg(driver="emulator")).size == (128, 64)


def test_terminal_rendering_maps_pixel_pairs_to_half_blocks():
    img = Image.new("1", (128, 64))
    img.putpixel((0, 0), 1)   # top half of cell (0, 0)
    img.putpixel((1, 1), 1)   # bottom half of cell (1, 0)
    img.putpixel((2, 0), 1)
    img.putpixel((2, 1), 1)   # both
    lines = to_terminal(img, border=False).split("\n")
    assert len(lines) == 32 and all(len(ln) == 128 for ln in lines)
    assert lines[0][:4] == "▀▄█ "
    assert set("".join(lines[1:])) == {" "}
    boxed = to_terminal(img).split("\n")
    assert len(boxed) == 34 and boxed[1] == "│" + lines[0] + "│"


def test_compact_terminal_rendering_uses_quarter_blocks():
    img = Image.new("1", (128, 64))
    for xy in ((0, 0), (3, 1), (4, 0), (5, 0), (4, 1), (5, 1)):
        img.putpixel(xy, 1)
    lines = to_terminal(img, border=False, compact=True).split("\n")
    assert len(lines) == 32 and all(len(ln) == 64 for ln in lines)
    assert lines[0][:4] == "▘▗█ "


def gated_dummy():
    """luma's real dummy device, recording each frame and able to hold the writer mid-send."""
    import threading

    from luma.core.device import dummy

    class Gated(dummy):
        def __init__(self):
            super().__init__(width=128, height=64, mode="1")
            self.frames, self.gate, self.entered = [], threading.Event(), threading.Event()
            self.gate.set()
            self.fail_next = False

        def display(self, image):
            self.entered.set()
            assert self.gate.wait(10)
            if self.fail_next:
                self.fail_next = False
                raise OSError(121, "Remote I/O error")
            super().display(image)
            self.frames.append(image.tobytes())

    return Gated()


def test_background_display_sends_from_its_own_thread():
    dev = gated_dummy()
    d = Display(dev, background=True)
    try:
        a = frame(score=(1, 0))
        assert d.show(a) is True
        assert d.flush(10)
        assert dev.frames == [a.tobytes()]
        assert d.show(frame(score=(1, 0))) is False
    finally:
        d.close()


def test_background_display_coalesces_frames_while_the_bus_is_busy():
    """A, then B and C while A is on the wire: C replaces B, and only A and C are sent."""
    dev = gated_dummy()
    d = Display(dev, background=True)
    try:
        a, b, c = frame(score=(1, 0)), frame(score=(2, 0)), frame(score=(3, 0))
        dev.gate.clear()
        d.show(a)
        assert dev.entered.wait(10)  # the writer is inside display(a)
        d.show(b)
        d.show(c)
        dev.gate.set()
        assert d.flush(10)
        assert dev.frames == [a.tobytes(), c.tobytes()]
        assert (d.sent, d.coalesced) == (2, 1)
    finally:
        d.close()


def test_background_display_never_resends_the_frame_on_the_wire():
    """A on the wire, B queued, A again: B is dropped and A is not sent a second time."""
    dev = gated_dummy()
    d = Display(dev, background=True)
    try:
        a, b = frame(score=(1, 0)), frame(score=(2, 0))
        dev.gate.clear()
        d.show(a)
        assert dev.entered.wait(10)
        d.show(b)
        d.show(frame(score=(1, 0)))
        dev.gate.set()
        assert d.flush(10)
        assert dev.frames == [a.tobytes()] and d.sent == 1
    finally:
        d.close()


def display_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("display:")]


FAST = (0.01, 0.05)  # back-off for the tests: retries come at once; the count is what matters


def test_background_display_survives_a_failed_send(caplog):
    """Issue 16: a send that fails (a loose wire) is retried with back-off and the newest frame
    shown once the device answers; the outage is two log lines, not one per attempt."""
    dev = gated_dummy()
    d = Display(dev, background=True, backoff=FAST)
    try:
        dev.fail_next = True
        a = frame(score=(1, 0))
        d.show(a)
        assert d.flush(10)
        assert d.errors == 1 and isinstance(d.error, OSError) and dev.frames == [a.tobytes()]
        b = frame(score=(2, 0))
        d.show(b)
        assert d.flush(10)
        assert dev.frames == [a.tobytes(), b.tobytes()]
    finally:
        d.close()
    lines = display_lines(caplog)
    assert len(lines) == 2, lines
    assert "stopped answering" in lines[0] and "OSError: [Errno 121] Remote I/O error" in lines[0]
    assert "answers again after 1 failed attempt " in lines[1]


def flaky_driver(fail_times, devices, opened):
    """A driver whose device is missing ``fail_times`` times (luma's own error, from asking luma
    for an I2C bus this machine does not have), then appears: each open makes a new gated dummy."""
    from luma.core.interface.serial import i2c

    from assistant.hw.display import Driver

    def open_(cfg):
        opened.append(cfg.driver)
        if len(opened) <= fail_times:
            i2c(port=250, address=0x3C)  # raises luma.core.error.DeviceNotFoundError
            raise AssertionError("this machine has an /dev/i2c-250")
        devices.append(gated_dummy())
        return devices[-1]

    return Driver(open_, hardware=True, where=lambda cfg: "/dev/i2c-250 address 0x3C",
                  hint="check the cable")


def test_a_display_missing_at_start_is_retried_and_shows_the_table_when_it_appears(monkeypatch, caplog):
    """Issue 16: after install.sh turns I2C on, /dev/i2c-1 exists only after a reboot; the box
    must not crash-loop meanwhile. One line at the start (device, cause, what to check), one when
    the screen answers (with the count of failed attempts), and the newest frame on the screen."""
    import assistant.hw.display as display_mod

    devices, opened = [], []
    monkeypatch.setitem(display_mod.DRIVERS, "flaky", flaky_driver(5, devices, opened))
    monkeypatch.setattr(display_mod, "BACKOFF", FAST)
    cfg = DisplayCfg(driver="flaky")
    d = open_display(cfg, background=True, retry=True)
    try:
        assert d.device is None and d.down is not None
        a, b = frame(score=(1, 0)), frame(score=(2, 0))
        d.show(a)
        d.show(b)
        assert d.flush(10)
        assert len(devices) == 1 and devices[0].frames == [b.tobytes()]
        assert len(opened) == 6
    finally:
        d.close()
    lines = display_lines(caplog)
    assert len(lines) == 2, lines
    assert "/dev/i2c-250" in lines[0] and "DeviceNotFoundError" in lines[0] and "check the cable" in lines[0]
    assert "answers again after 5 failed attempts" in lines[1]


def test_the_backoff_grows_to_its_limit(monkeypatch):
    import assistant.hw.display as display_mod

    devices, opened = [], []
    monkeypatch.setitem(display_mod.DRIVERS, "flaky", flaky_driver(10**6, devices, opened))
    d = open_display(DisplayCfg(driver="flaky"), background=True, retry=True)
    d.close()  # never retried: the first delay is a second
    assert d.down[1:3] == [1, display_mod.BACKOFF[0]]
    for _ in range(10):
        d._failed(OSError("again"))
    assert d.down[2] == display_mod.BACKOFF[1]


def test_a_display_that_stops_answering_is_opened_afresh(monkeypatch, caplog):
    """Issue 16: the OLED unplugged mid-match and plugged back: the old device is let go, a new one
    opened, and the newest frame shown on it."""
    import assistant.hw.display as display_mod

    devices, opened = [], []
    monkeypatch.setitem(display_mod.DRIVERS, "flaky", flaky_driver(0, devices, opened))
    monkeypatch.setattr(display_mod, "BACKOFF", FAST)
    d = open_display(DisplayCfg(driver="flaky"), background=True, retry=True)
    try:
        a, b = frame(score=(1, 0)), frame(score=(2, 0))
        d.show(a)
        assert d.flush(10)
        devices[0].fail_next = True
        d.show(b)
        assert d.flush(10)
        assert len(devices) == 2 and devices[1].frames == [b.tobytes()]
        assert devices[0].frames[0] == a.tobytes()  # then luma's cleanup blanked it
    finally:
        d.close()
    lines = display_lines(caplog)
    assert len(lines) == 2 and "stopped answering" in lines[0] and "OSError" in lines[0], lines


def test_a_missing_i2c_bus_is_one_line_naming_it_and_what_to_check(caplog):
    """The default config on a machine with no such bus: luma's real DeviceNotFoundError becomes
    one line naming the device and the checks, not a traceback, and no exception."""
    d = open_display(DisplayCfg(driver="ssd1306", i2c_port=250), background=True, retry=True)
    try:
        d.show(frame())
        assert d.device is None
    finally:
        d.close()
    lines = display_lines(caplog)
    assert len(lines) == 1, lines
    assert "/dev/i2c-250 address 0x3C" in lines[0] and "raspi-config" in lines[0]
    assert "i2cdetect -y 250" in lines[0] and "Traceback" not in caplog.text


def test_close_sends_the_pending_frame_before_releasing_the_device():
    dev = gated_dummy()
    d = Display(dev, background=True)
    a, b = frame(score=(1, 0)), frame(score=(2, 0))
    dev.gate.clear()
    d.show(a)
    assert dev.entered.wait(10)
    d.show(b)
    dev.gate.set()
    d.close()
    assert dev.frames[:2] == [a.tobytes(), b.tobytes()]  # then luma's cleanup clears the screen
    assert d.device is None
