"""hardware/wiring.png is generated from hardware/wiring.py, and that source agrees with the code.

- The committed PNG is exactly (pixel for pixel) what wiring.py draws now: edit the tables, then
  run `python hardware/wiring.py`, or this fails.
- The reader side uses the GP numbers of firmware/hw.py (read with ast: hw.py imports `machine`).
- The Pi side uses the BCM GPIOs of assistant/box/config.py's defaults, and the header pins of
  hardware/pins.md.
"""
import importlib.util
import re
from pathlib import Path

from PIL import Image

from firmware_import import hw_constants

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "hardware"


def load_wiring():
    spec = importlib.util.spec_from_file_location("wiring", HW / "wiring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wiring = load_wiring()


def test_committed_png_is_what_the_source_draws():
    drawn = wiring.draw()
    committed = Image.open(HW / "wiring.png")
    assert committed.size == drawn.size
    assert wiring.same_pixels(drawn, committed), (
        "hardware/wiring.png is not what hardware/wiring.py draws: run python hardware/wiring.py "
        "(after an upgrade of Pillow alone, check the new picture by eye before committing it)")


def test_same_pixels_sees_a_one_pixel_change():
    a = wiring.draw()
    b = a.copy()
    x, y = 10, 10
    r, g, bl = b.getpixel((x, y))
    b.putpixel((x, y), (255 - r, g, bl))
    assert not wiring.same_pixels(a, b)


def test_drawing_is_deterministic():
    assert wiring.draw().tobytes() == wiring.draw().tobytes()


# Raspberry Pi Pico: physical pin of every GPn (datasheet pinout).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}


def test_reader_pins_match_the_firmware():
    fw = hw_constants()
    bus = {signal: gp for signal, gp, _, _ in wiring.PICO_BUS}
    assert (bus["SCK"], bus["MOSI"], bus["MISO"], bus["RST"]) == (
        fw["SCK"], fw["MOSI"], fw["MISO"], fw["RST_PIN"])
    assert tuple(gp for gp, _, _ in wiring.PICO_CS) == tuple(fw["CS_PINS"])
    extras = {name: gp for name, gp, _, _ in wiring.PICO_EXTRAS}
    assert tuple(extras[f"LED pad {i}"] for i in range(1, 5)) == tuple(fw["LED_PINS"])
    assert extras["beeper (NPN)"] == fw["BUZZER_PIN"]
    assert extras["service jumper"] == fw["SERVICE_PIN"]


def test_pico_physical_pins_are_right():
    rows = [(gp, pin) for _, gp, pin, _ in wiring.PICO_BUS if gp is not None]
    rows += [(gp, pin) for gp, pin, _ in wiring.PICO_CS]
    rows += [(gp, pin) for _, gp, pin, _ in wiring.PICO_EXTRAS]
    for gp, pin in rows:
        assert PICO_PIN[gp] == pin, f"GP{gp} is physical pin {PICO_PIN[gp]}, not {pin}"
    power = {signal: pin for signal, gp, pin, _ in wiring.PICO_BUS if gp is None}
    assert power == {"3V3": 36, "GND": 38}  # 3V3(OUT) and a ground


def pi_side_gpio():
    """role -> BCM GPIO, as the diagram wires it (through the header pin names)."""
    def gpio(pin):
        name = wiring.PI_HEADER[pin]
        m = re.match(r"GPIO(\d+)", name)
        assert m, f"header pin {pin} ({name}) is not a GPIO"
        return int(m.group(1))
    roles = {name.lower(): gpio(pin) for name, pin, _ in wiring.BUTTONS}
    roles["buzzer"] = gpio(wiring.BUZZER_GPIO)
    roles["led"] = gpio(wiring.LED_GPIO)
    return roles


def test_pi_side_matches_the_config_defaults():
    from assistant.box.config import Pins
    defaults = Pins()
    assert pi_side_gpio() == {k: getattr(defaults, k) for k in pi_side_gpio()}
    oled = {name: pin for name, pin, _ in wiring.OLED}
    assert wiring.PI_HEADER[oled["SDA"]] == "GPIO2 SDA" and wiring.PI_HEADER[oled["SCL"]] == "GPIO3 SCL"
    assert wiring.PI_HEADER[oled["VCC"]] == "3V3" and wiring.PI_HEADER[oled["GND"]] == "GND"


def pins_md_rows():
    """(part, gpio, header pin) for every row of hardware/pins.md's table with a GPIO."""
    rows = []
    for line in (HW / "pins.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[2].isdigit():
            m = re.match(r"(\d+)", cells[3])
            rows.append((cells[0], int(cells[2]), int(m.group(1))))
    return rows


def test_pi_side_matches_pins_md():
    rows = pins_md_rows()
    assert len(rows) >= 8, rows  # OLED SDA/SCL, 4 buttons, buzzer, LED
    wired = {name: pin for name, pin, _ in wiring.BUTTONS + wiring.OLED}
    wired_pins = set(wired.values()) | {wiring.BUZZER_GPIO, wiring.LED_GPIO}
    for part, gpio, pin in rows:
        assert re.fullmatch(rf"GPIO{gpio}( \w+)?", wiring.PI_HEADER[pin]), (part, gpio, pin)
        assert pin in wired_pins, f"pins.md wires {part} to header pin {pin}; the diagram does not"


def build_md_rows():
    """Cells of every table row in hardware/BUILD.md."""
    rows = []
    for line in (HW / "BUILD.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_build_guide_shows_the_generated_diagram():
    assert "](wiring.png)" in (HW / "BUILD.md").read_text(encoding="utf-8")


def test_build_guide_pi_table_matches_the_diagram():
    wired = {pin for _, pin, _ in wiring.BUTTONS + wiring.OLED}
    wired |= {wiring.BUTTON_GROUND, wiring.BUZZER_5V, wiring.BUZZER_GPIO, wiring.BUZZER_GROUND,
              wiring.LED_GPIO, wiring.LED_GROUND}
    checked = 0
    for cells in build_md_rows():
        if len(cells) != 4:
            continue
        m = re.fullmatch(r"(\d+)(?: \((3V3|5V|GND)\))?(?:, through .+)?", cells[2])
        if not m or not re.fullmatch(r"(GPIO\d+)?", cells[3]):
            continue
        pin, power = int(m.group(1)), m.group(2)
        gpio = cells[3]
        if gpio:
            assert re.fullmatch(rf"{gpio}( \w+)?", wiring.PI_HEADER[pin]), cells
        if power:
            assert wiring.PI_HEADER[pin] == power.upper(), cells
        assert pin in wired, f"BUILD.md wires header pin {pin}; the diagram does not: {cells}"
        checked += 1
    assert checked >= 13


def test_build_guide_reader_table_matches_the_diagram():
    pico = {pin: gp for _, gp, pin, _ in wiring.PICO_BUS}
    pico.update({pin: gp for gp, pin, _ in wiring.PICO_CS})
    checked = 0
    for cells in build_md_rows():
        if len(cells) != 3:
            continue
        m = re.fullmatch(r"(\d+) \((GP(\d+)|3V3 OUT|GND)\)", cells[1])
        if not m:
            continue
        pin = int(m.group(1))
        assert pin in pico, f"BUILD.md uses Pico pin {pin}; the diagram does not: {cells}"
        assert pico[pin] == (int(m.group(3)) if m.group(3) else None), cells
        assert PICO_PIN.get(pico[pin], pin) == pin
        checked += 1
    assert checked == len(pico)
