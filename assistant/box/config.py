"""The box's one config file (TOML): pins, display, reader, game defaults, paths.

Every key has a default here that matches the wiring in ``hardware/pins.md``;
the file only needs the keys that differ. An unknown section or key is an error
that names it and lists the known ones, so a typo never silently falls back to
a default. ``assistant/config.example.toml`` is the checked-in example
(``systemd/install.sh`` copies it to ``/etc/card-assistant/config.toml``).

>>> cfg = from_dict({"display": {"driver": "sh1106"}})
>>> cfg.display.driver, hex(cfg.display.address), cfg.pins.ok
('sh1106', '0x3c', 13)
>>> from_dict({"display": {"adress": 0x3D}})
Traceback (most recent call last):
...
assistant.box.config.ConfigError: config: unknown key [display] adress (known: driver, i2c_port, address, rotate)
"""
import math
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from assistant.rules.scenario import GAMES as SCENARIO_GAMES, OPTIONS as SCENARIO_OPTIONS
from assistant.textfile import NotSmallFile, read_small

EXAMPLE = Path(__file__).parent.parent / "config.example.toml"
DRIVERS = ("ssd1306", "sh1106", "dummy", "emulator")
GAMES = tuple(SCENARIO_GAMES)  # the rules' games, in their order
# Twenty-Nine option keys and their allowed values, default first: the scenario format's own
# table, with two_point_bid as the number TOML writes.
GAME_OPTIONS = {key: tuple(int(v) if v.isdigit() else v for v in values)
                for key, values in SCENARIO_OPTIONS.items()}


NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,40}")  # a club's or a table's name: one MQTT topic level
CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")  # in no path, device, address or name of the config
MAX_HOLD = 10.0  # seconds: a hold_time beyond this is a typo (no hold would ever count)
MAX_BAUD = 4_000_000  # the fastest rate Linux's serial drivers take
MAX_TEXT = 4096  # characters in any text value: Linux's longest path (PATH_MAX)


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file, section and key."""


@dataclass(frozen=True)
class Pins:
    """BCM GPIO numbers (not header pin numbers); see hardware/pins.md."""
    left: int = 5
    right: int = 6
    ok: int = 13
    back: int = 19
    buzzer: int = 18
    led: int = 23


@dataclass(frozen=True)
class Buttons:
    hold_time: float = 1.0     # seconds a press must last to count as a hold (menu, undo)
    bounce_time: float = 0.02  # seconds; contact bounce filter


@dataclass(frozen=True)
class Display:
    driver: str = "ssd1306"    # ssd1306 | sh1106 | dummy | emulator (luma.emulator, if installed)
    i2c_port: int = 1          # /dev/i2c-1 on a Pi's 40-pin header
    address: int = 0x3C
    rotate: int = 0            # 0, or 2 when mounted upside down (screens are drawn landscape)


@dataclass(frozen=True)
class Reader:
    device: str = "/dev/card-reader"  # the udev link to the Pico's USB serial port
    baud: int = 115200


@dataclass(frozen=True)
class Game:
    game: str = "towers"
    trick_trumps: str = "whole"
    pair: str = "off"
    double: str = "off"
    scoring: str = "seed"
    two_point_bid: int = 20

    def options(self):
        """The Twenty-Nine options as scenario ``option KEY=VALUE`` pairs (values as text)."""
        return {k: str(getattr(self, k)) for k in GAME_OPTIONS}


@dataclass(frozen=True)
class Paths:
    state_dir: str = "/var/lib/card-assistant"  # the journal lives here
    deck: str = "deck.txt"                      # the enrolled pack; relative = under state_dir

    def deck_path(self):
        return Path(self.state_dir) / self.deck


@dataclass(frozen=True)
class Table:
    """How the box is built and played: one role per reader pad, in the reader's pad order."""
    pads: tuple = ("P1", "P2", "centre")  # "P1".."P4" for a seat's pad, "centre" for the middle
    deal_scan: bool = False               # players tap their hands before play (illegal cards refused)


@dataclass(frozen=True)
class Web:
    """The web page (``card-assistant web``, its own service): off unless enabled here."""
    enabled: bool = False
    host: str = "0.0.0.0"  # the box's own page on the table's Wi-Fi
    port: int = 8029


@dataclass(frozen=True)
class Club:
    """Club night (docs/club.md): with a broker the box publishes the table's public actions."""
    broker: str = ""        # mqtt://HOST:1883 or mqtts://HOST:8883; empty: this box is in no club
    club: str = "club"      # the club's name: the first level of its topics
    table: str = ""         # this table's name (its topics, and the broker account's name)
    username: str = ""      # the broker account (default: the table's name)
    password: str = ""
    cafile: str = ""        # with mqtts://: the CA that signed the broker's certificate


@dataclass(frozen=True)
class Config:
    pins: Pins = Pins()
    buttons: Buttons = Buttons()
    display: Display = Display()
    reader: Reader = Reader()
    game: Game = Game()
    paths: Paths = Paths()
    table: Table = Table()
    web: Web = Web()
    club: Club = Club()


def _check_type(where, key, value, default):
    want = type(default)
    if want is tuple and isinstance(value, list):
        value = tuple(value)
    ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if want is float and isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: {key} should be a finite number, not {_said(value)}")
    if not ok:
        raise ConfigError(f"{where}: {key} should be {_kind_words(default)}, not {_said(value)}")
    return value


def _kind_words(default):
    """What a key takes, in a TOML file's words (not Python's tuple, str, int, bool)."""
    if isinstance(default, tuple):
        return "a list in brackets, like [" + ", ".join(f'"{v}"' for v in default) + "]"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text in quotes"}[type(default)]


def _validate(cfg, source):
    d, g, b = cfg.display, cfg.game, cfg.buttons
    problems = []
    if d.driver not in DRIVERS:
        problems.append(f"[display] driver {_said(d.driver)} is not one of {', '.join(DRIVERS)}")
    if not 0x03 <= d.address <= 0x77:
        problems.append(f"[display] address {d.address:#x} is not a 7-bit I2C address")
    if d.rotate not in (0, 2):
        problems.append(f"[display] rotate {d.rotate} must be 0 or 2 (the screens are landscape)")
    if g.game not in GAMES:
        problems.append(f"[game] game {_said(g.game)} is not one of {', '.join(GAMES)}")
    for key, allowed in GAME_OPTIONS.items():
        if getattr(g, key) not in allowed:
            problems.append(f"[game] {key} {_said(getattr(g, key))} is not one of "
                            + ", ".join(map(str, allowed)))
    pins = {f.name: getattr(cfg.pins, f.name) for f in fields(Pins)}
    for name, pin in pins.items():
        if not 0 <= pin <= 27:
            problems.append(f"[pins] {name} = {pin} is not a GPIO of the 40-pin header (0..27)")
        elif pin in (2, 3):
            problems.append(f"[pins] {name} = {pin} is taken by the OLED's I2C (GPIO 2 SDA, 3 SCL)")
    taken = {}
    for name, pin in pins.items():
        if pin in taken:
            problems.append(f"[pins] {name} and {taken[pin]} are both on GPIO {pin}")
        taken.setdefault(pin, name)
    pads = cfg.table.pads
    roles = ("P1", "P2", "P3", "P4", "centre")
    if not 1 <= len(pads) <= 4 or any(r not in roles for r in pads) or len(set(pads)) != len(pads):
        problems.append(f"[table] pads {_said(list(pads))} must be 1 to 4 different roles of {', '.join(roles)}")
    if b.hold_time <= 0 or b.bounce_time < 0:
        problems.append("[buttons] hold_time must be above 0 and bounce_time 0 or more")
    if b.hold_time > MAX_HOLD:  # 1e300 s: no hold ever counts, so no menu and no undo
        problems.append(f"[buttons] hold_time {b.hold_time:g} s is longer than a hold ({MAX_HOLD:g} s at most)")
    if not 0 <= d.i2c_port < 1 << 20:  # a device minor number
        problems.append(f"[display] i2c_port {d.i2c_port} is not an I2C bus number (/dev/i2c-N)")
    if not 1 <= cfg.reader.baud <= MAX_BAUD:  # pyserial: ValueError below 0, OverflowError far above
        problems.append(f"[reader] baud {cfg.reader.baud} is not a baud rate (1 to {MAX_BAUD})")
    for section in fields(Config):  # a NUL in a path fails every open() with a ValueError
        for f in fields(section.type):
            value = getattr(getattr(cfg, section.name), f.name)
            if any(isinstance(v, str) and CONTROL_RE.search(v) for v in (value if isinstance(value, tuple) else (value,))):
                problems.append(f"[{section.name}] {f.name} holds a control character (a NUL, a newline)")
    if b.bounce_time >= b.hold_time:
        problems.append("[buttons] bounce_time must be shorter than hold_time")
    if not cfg.paths.state_dir.startswith("/"):  # "" or "state": a journal wherever the box is started
        problems.append(f"[paths] state_dir {_said(cfg.paths.state_dir)} should be an absolute path (such as "
                        "/var/lib/card-assistant): a relative one is a folder under wherever the box is "
                        "started, a new journal each time")
    if not cfg.reader.device:
        problems.append("[reader] device is empty (the reader's serial port, such as /dev/card-reader)")
    if not 0 < cfg.web.port < 65536:
        problems.append(f"[web] port {cfg.web.port} is not a port (1 to 65535)")
    if why := host_problem(cfg.web.host):
        problems.append(f"[web] host {_said(cfg.web.host)} {why}")
    c = cfg.club
    if c.broker:
        if not c.broker.startswith(("mqtt://", "mqtts://")):
            # the URL is not repeated (it may hold the password): its scheme at most, when it has one
            scheme = c.broker.split("://", 1)[0] if "://" in c.broker and "@" not in c.broker.split("://", 1)[0] else ""
            problems.append("[club] broker should start mqtt:// or mqtts://"
                            + (f", not {_said(scheme + '://')}" if scheme else " (like mqtt://HOST:1883)"))
        elif why := _broker_problem(c.broker):
            problems.append(f"[club] broker: {why}")
        for key in ("club", "table"):
            if not NAME_RE.fullmatch(getattr(c, key)):
                problems.append(f"[club] {key} {_said(getattr(c, key))} should be 1 to 40 letters, digits, "
                                "'-' or '_'")
    for section in fields(Config):  # a value as long as that is repeated whole in the log
        for f in fields(section.type):
            value, key = getattr(getattr(cfg, section.name), f.name), f"[{section.name}] {f.name}"
            if isinstance(value, str) and len(value) > MAX_TEXT and not any(
                    p.startswith(key + " ") or p.startswith(key + ":") for p in problems):  # once a key
                problems.append(f"{key} is {len(value)} characters long: no path, address or name is "
                                f"longer than {MAX_TEXT}")
    if problems:
        raise ConfigError(f"{source}: " + "; ".join(problems))


def _broker_problem(url):
    """Why an mqtt:// URL names no broker the publisher can reach, or None. No part of the URL is
    repeated: it may hold the table's password (mqtt://t1:PASSWORD@HOST)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL"
        return "an IPv6 host needs both brackets: mqtt://[ADDRESS]:PORT"
    try:
        port = parts.port
    except ValueError:  # not a number, or beyond 65535
        port = 0
    if not parts.hostname:
        return "no host: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
    if why := host_problem(parts.hostname):
        return f"its host {why}"
    if port == 0:
        return "its port is not a number from 1 to 65535"
    return None


def host_problem(host):
    """Why ``host`` is no name a socket takes, or None. Python's sockets put a name through the
    IDNA codec, which refuses an empty label ('broker..lan') or one of more than 63 characters,
    and not as an OSError (a TypeError from bind, a UnicodeError from a connect): said here, at
    start, in one line, instead.

    >>> host_problem("0.0.0.0"), host_problem("::1"), host_problem("bücher.lan")
    (None, None, None)
    >>> host_problem("broker..lan")
    'is no host name (a part between dots is empty or longer than 63 characters)'
    """
    try:
        host.encode("idna")
    except UnicodeError:
        return "is no host name (a part between dots is empty or longer than 63 characters)"
    return None


def _said(value):
    """A value from the file as the one line shows it: its repr, cut short."""
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)  # as TOML writes it
    return text if len(text) <= 60 else text[:60] + "..."


def _shown(name):
    """A name from the file as the one line shows it: short, and no control character reaches the
    terminal (a quoted TOML key may hold any)."""
    cut = name[:40] + ("..." if len(name) > 40 else "")
    return cut if cut.isprintable() else repr(cut)


def from_dict(data, source="config"):
    """A ``Config`` from parsed TOML: missing keys take defaults, unknown ones are refused."""
    sections = {f.name: f.type for f in fields(Config)}
    unknown = sorted(set(data) - set(sections))
    if unknown:
        raise ConfigError(f"{source}: unknown section [{_shown(unknown[0])}] (known: {', '.join(sections)})")
    built = {}
    for name, cls in sections.items():
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: {name} should be a [{name}] table")
        defaults = cls()
        known = [f.name for f in fields(cls)]
        for key in table:
            if key not in known:
                raise ConfigError(
                    f"{source}: unknown key [{name}] {_shown(key)} (known: {', '.join(known)})")
        values = {k: _check_type(source, f"[{name}] {k}", v, getattr(defaults, k))
                  for k, v in table.items()}
        built[name] = replace(defaults, **values)
    cfg = Config(**built)
    _validate(cfg, source)
    return cfg


def load(path=None):
    """Read ``path`` (TOML); ``None`` gives the defaults. Errors are ``ConfigError``."""
    if path is None:
        return Config()
    if str(path) == "":  # `--config "$CFG"`, CFG unset: Path("") is ".", and "." was said to be a folder
        raise ConfigError("'': the config file's name is empty (an unset shell variable?): name a TOML file")
    path = Path(path)
    try:
        data = tomllib.loads(read_small(path).decode("utf-8-sig"))  # an editor's byte-order mark is no text
    except NotSmallFile as e:  # /dev/zero, a pipe: refused before reading, never read without end
        raise ConfigError(f"{path}: {e}") from None
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{path}: cannot be read (permission denied)") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deep to be a config file") from None
    except ValueError:  # a number of more digits than Python turns into an int (4300)
        raise ConfigError(f"{path}: holds a number too long to be one") from None
    return from_dict(data, str(path))
