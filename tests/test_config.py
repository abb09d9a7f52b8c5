"""The config file: defaults, the checked-in example, refusals that name the key, pins.md agreement."""
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from assistant.box import config
from assistant.box.config import ConfigError, load

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path, text):
    p = tmp_path / "config.toml"
    p.write_text(text)
    return p


def test_example_config_equals_the_defaults():
    """The checked-in example spells out exactly the defaults in code."""
    assert load(config.EXAMPLE) == config.Config()


def test_missing_file_means_defaults_and_partial_file_overrides_only_its_keys(tmp_path):
    assert load(None) == config.Config()
    cfg = load(write(tmp_path, '[display]\ndriver = "sh1106"\naddress = 0x3D\n[game]\ngame = "twenty-nine"\n'))
    assert (cfg.display.driver, cfg.display.address, cfg.display.i2c_port) == ("sh1106", 0x3D, 1)
    assert cfg.game.game == "twenty-nine" and cfg.pins == config.Pins()


@pytest.mark.parametrize("text, words", [
    ("[display]\nadress = 0x3D\n", "unknown key [display] adress"),
    ("[dispaly]\ndriver = 'sh1106'\n", "unknown section [dispaly]"),
    ("[pins]\nok = '13'\n", "[pins] ok should be a whole number, not '13'"),  # issue 9: once read "[pins] ok]"
    ("[display]\ndriver = 'ili9341'\n", "driver 'ili9341' is not one of"),
    ("[display]\naddress = 0x80\n", "not a 7-bit I2C address"),
    ("[display]\nrotate = 1\n", "rotate 1 must be 0 or 2"),
    ("[pins]\nok = 5\n", "ok and left are both on GPIO 5"),
    ("[pins]\nled = 2\n", "taken by the OLED's I2C"),
    ("[game]\nscoring = 'rubber'\n", "scoring 'rubber' is not one of seed, pagat"),
    ("[game]\ntwo_point_bid = 22\n", "two_point_bid 22"),
    ("[buttons]\nhold_time = 0\n", "hold_time must be above 0"),
    ("[reader]\nbaud = true\n", "[reader] baud should be a whole number, not true"),
    ("display = 3\n", "should be a [display] table"),
    ("[display\n", "not valid TOML"),
])
def test_bad_config_is_refused_with_a_message_naming_the_problem(tmp_path, text, words):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load(p)
    assert words in str(e.value) and str(p) in str(e.value)


def test_no_such_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load(tmp_path / "nope.toml")


def test_integer_seconds_are_accepted_as_floats(tmp_path):
    assert load(write(tmp_path, "[buttons]\nhold_time = 2\n")).buttons.hold_time == 2.0


def test_game_options_use_the_scenario_keys():
    assert config.Game().options() == {"trick_trumps": "whole", "pair": "off", "double": "off",
                                       "scoring": "seed", "two_point_bid": "20"}


def test_deck_path_is_under_the_state_dir_unless_absolute():
    assert str(config.Paths().deck_path()) == "/var/lib/card-assistant/deck.txt"
    assert str(config.Paths(deck="/etc/deck.txt").deck_path()) == "/etc/deck.txt"


def test_pin_defaults_match_hardware_pins_md():
    """hardware/pins.md is what the builder wires: its GPIO column must be the code's defaults."""
    text = (ROOT / "hardware" / "pins.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"\d+", cells[2]):
            rows[(cells[0], cells[1])] = int(cells[2])
    documented = {
        "left": rows[("button Left", "input")], "right": rows[("button Right", "input")],
        "ok": rows[("button OK", "input")], "back": rows[("button Back", "input")],
        "buzzer": rows[("buzzer", "output")], "led": rows[("alert LED", "output")],
    }
    assert documented == asdict(config.Pins())
    assert rows[("OLED (SSD1306 or SH1106, I2C)", "SDA")] == 2 and rows[("OLED", "SCL")] == 3
    assert "0x3C" in text and config.Display().address == 0x3C


def test_a_number_that_is_not_finite_is_named_like_every_other_key():
    """Fault (attack on the config): nan or inf was said as "[[buttons] hold_time] should be a
    finite number", the key in doubled brackets unlike every other line."""
    with pytest.raises(ConfigError) as e:
        config.from_dict({"buttons": {"hold_time": float("nan")}}, "c.toml")
    assert str(e.value) == "c.toml: [buttons] hold_time should be a finite number, not nan"


def test_a_text_value_longer_than_any_path_is_refused_in_a_short_line():
    """Fault (attack on the config): [reader] device of 100,000 characters was taken; the box then
    logged a 300 KB line (the path twice, in the reader's "cannot open") at every start, and put
    it in the screen's alert. Now the config is refused in a line that gives its length only."""
    with pytest.raises(ConfigError) as e:
        config.from_dict({"reader": {"device": "/dev/" + "a" * 100_000}}, "c.toml")
    assert str(e.value) == ("c.toml: [reader] device is 100005 characters long: no path, address or "
                            "name is longer than 4096")


def test_an_empty_config_name_is_said_to_be_empty_not_a_folder():
    """Fault (`--config "$CFG"` with CFG unset, beside e42a2f7's empty --state-dir): run, players,
    export, web and sim said "--config .: is a folder, not a config file", the empty name read as
    the current folder, "." being no name the user typed. Now the line says the name is empty."""
    with pytest.raises(ConfigError) as e:
        load("")
    assert str(e.value) == "'': the config file's name is empty (an unset shell variable?): name a TOML file"
