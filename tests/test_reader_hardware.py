"""hardware/reader.md and the udev rule agree with the code (issue 4, item 6).

- The pin table's GP numbers are firmware/hw.py's (read with ast: hw.py imports
  ``machine``), and each GP sits on the Pico pin the table says.
- The udev rule matches MicroPython's USB id, names /dev/card-reader (the port
  `card-assistant enroll` and the reader default to), and is well formed.
"""
import re
from pathlib import Path

from assistant.box import enroll

from firmware_import import hw_constants

ROOT = Path(__file__).resolve().parents[1]
# The Pico's physical pin for each GP (Raspberry Pi Pico datasheet, pinout).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
            13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
            26: 31, 27: 32, 28: 34}


def pin_table():
    rows = {}
    for line in (ROOT / "hardware" / "reader.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1].startswith("GP"):
            gps = [int(g) for g in re.findall(r"GP(\d+)", cells[1])]
            pins = [int(p) for p in re.findall(r"\d+", cells[2])]
            rows[cells[0]] = (gps, pins)
    return rows


def test_pin_table_matches_firmware_hw():
    hw, rows = hw_constants(), pin_table()
    assert rows["SCK"][0] == [hw["SCK"]] and rows["MOSI"][0] == [hw["MOSI"]] and rows["MISO"][0] == [hw["MISO"]]
    assert rows["RST"][0] == [hw["RST_PIN"]]
    assert [rows[f"CS pad {i}"][0][0] for i in range(1, 5)] == list(hw["CS_PINS"])
    assert rows["LED pad 1..4"][0] == list(hw["LED_PINS"])
    assert rows["beeper"][0] == [hw["BUZZER_PIN"]]
    assert rows["service"][0] == [hw["SERVICE_PIN"]]


def test_pin_table_physical_pins_are_the_picos():
    for name, (gps, pins) in pin_table().items():
        assert [PICO_PIN[g] for g in gps] == pins, name


def test_udev_rule_names_the_reader_card_reader():
    rules = [line for line in (ROOT / "hardware" / "99-card-assistant-reader.rules").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    assert len(rules) == 1
    pairs = [p.strip() for p in rules[0].split(",")]
    parsed = {}
    for p in pairs:
        m = re.fullmatch(r'([A-Z_]+(?:\{[A-Za-z_]+\})?)(==|\+=|=)"([^"]*)"', p)
        assert m, f"not a udev key: {p!r}"
        parsed[m[1]] = (m[2], m[3])
    assert parsed["SUBSYSTEM"] == ("==", "tty")
    assert parsed["ATTRS{idVendor}"] == ("==", "2e8a")  # Raspberry Pi
    assert parsed["ATTRS{idProduct}"] == ("==", "0005")  # MicroPython's CDC
    assert "/dev/" + parsed["SYMLINK"][1] == enroll.DEFAULT_PORT
    assert parsed["ENV{ID_MM_DEVICE_IGNORE}"] == ("=", "1")
