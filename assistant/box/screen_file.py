"""What the OLED shows, as a small JSON file for the web page's Now page (issue 13 item 3).

The web page is its own process and holds no table, so the journal alone cannot tell it the
alerts (a renege proven, a refused tap), the last trick with its winner, or a menu: only the
daemon's :class:`~assistant.box.view.View` knows them. After each frame the daemon writes that
View here (:class:`ScreenFile`): a new file renamed over the old one, so a reader never sees half
of one. The View has no field for a hidden card, so neither has the file.

Where: the daemon's runtime directory, ``$RUNTIME_DIRECTORY`` (on the box /run/card-assistant,
a tmpfs: nothing wears the SD card), else the folder ``run`` of the state folder (the simulator,
the tests). Beside the View it says the journal's match and row count at that frame, so the web
page can tell a file the journal has moved past; the box removes it when it stops.

A box that ends without stopping (SIGKILL, a crash, a power cut) leaves its file: on the box it
is on a tmpfs that goes with the service, but the simulator's ``STATE_DIR/run`` stays, and its Now
page looked live for ever. So the file names its writer: its process number and that process's
start time (``/proc/PID/stat``; a number the kernel gives again to another process is not the
box). The web page asks the kernel whether that process still runs (:func:`writer_gone`), rather
than judging the file's age (the box writes a frame only when the screen changes: a table idle
between hands for half an hour is alive) or a heartbeat (a write every few seconds for ever, on
the state folder's card when it is not a tmpfs); like the state folder's lock, the answer holds
however the box ended, and the page takes no lock that could refuse a box starting.

>>> from assistant.box.view import View
>>> d = view_json(View(game="towers", seats=("Ann", "Bob"), phase="play", score=(1, 0), turn=1,
...                    trick=((0, 8),)), ("Ann", "Bob"))
>>> d["turn"], d["trick"], d["alert"]
('Bob', [{'seat': 'Ann', 'name': 'AH', 'label': 'A♥'}], None)
>>> view_json(View(game="towers", seats=("Alexa.", "Bob"), phase="play", prompt="Alexa. to play"),
...           ("Alexandra", "Bob"))["prompt"]
['Alexandra to play']
"""
import json
import logging
import os

from assistant.rules.cards import SUITS, card_label, card_name
from assistant.textfile import read_small

FILE = "screen.json"
MAX_SIZE = 64 * 1024  # a bigger file is not one the box wrote
log = logging.getLogger("card-assistant")


def runtime_dir(state_dir, env=None):
    """The folder of the screen file: systemd's runtime directory, else ``STATE_DIR/run``. systemd
    sets ``$RUNTIME_DIRECTORY`` to absolute paths (systemd.exec(5)); a relative one was set by
    hand, and was taken from each process's own working folder, so the box wrote the screen where
    its web page (started elsewhere) never looked: it is said in one line and not used."""
    env = os.environ if env is None else env
    given = env.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if given and not os.path.isabs(given):
        from assistant.cli import shown
        log.warning("RUNTIME_DIRECTORY=%s is not an absolute path (systemd sets one, such as "
                    "/run/card-assistant): the screen for the web page goes in %s", shown(given),
                    shown(os.path.join(state_dir, "run")))
        given = ""
    return given or os.path.join(state_dir, "run")


def _card(c):
    return {"name": card_name(c), "label": card_label(c)}


def whole_names(short, names):
    """A function that puts each of ``names`` back where the OLED's text has its short form."""
    import re
    pairs = {s: n for s, n in zip(short, names) if s != n}
    if not pairs:
        return lambda text: text
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, sorted(pairs, key=len, reverse=True))) + r")(?![\w])")
    return lambda text: pattern.sub(lambda m: pairs[m.group(1)], text)


def view_json(view, names=None):
    """The View as JSON: every field the screen may show, cards by name and label, seats by
    ``names`` (the players' whole names: the View's own, and its words, have the OLED's short
    forms, which a phone has room for in full)."""
    names = tuple(names) if names and len(names) == len(view.seats) else view.seats
    whole = whole_names(view.seats, names)
    seat = lambda s: None if s is None else names[s]  # noqa: E731
    trump = view.trump if view.trump in (None, "hidden") else SUITS[view.trump]
    sides = names if view.towers else (f"{names[0]} + {names[2]}", f"{names[1]} + {names[3]}")
    return {
        "game": view.game, "seats": list(names), "sides": list(sides),
        "phase": view.phase, "prompt": whole(view.prompt).split("\n") if view.prompt else [],
        "score": list(view.score), "dealer": seat(view.dealer), "turn": seat(view.turn),
        "hand_size": view.hand_size, "trump": trump,
        "up_card": None if view.up_card is None else _card(view.up_card),
        "turned_down": None if view.turned_down is None else SUITS[view.turned_down],
        "bidder": seat(view.bidder), "bid": view.bid, "target": view.target,
        "for_two": view.for_two, "double": view.double,
        "tricks": list(view.tricks), "points": list(view.points),
        "trick": [{"seat": names[s], **_card(c)} for s, c in view.trick], "trick_no": view.trick_no,
        "flipped": [{"seat": names[s], **_card(c)} for s, c in view.flipped],
        "winner": [names[s] for s in view.winner], "extra": [whole(x) for x in view.extra],
        "alert": None if view.alert is None else {"kind": view.alert.kind, "text": whole(view.alert.text)},
        "menu": None if view.menu is None else {"title": view.menu.title, "items": list(view.menu.items),
                                                "selected": view.menu.selected},
    }


def process_started(pid):
    """When process ``pid`` started (clock ticks after boot: /proc/PID/stat's 22nd field), or None
    where /proc does not say (no /proc, a process hidden from this user)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[19])  # the name, in (), may hold spaces
    except (OSError, ValueError, IndexError):
        return None


def writer_gone(data):
    """Has the process that wrote this screen file ended (or was its number given to another
    since)? False for a file that names no writer (an older box's: shown as before)."""
    writer = data.get("writer")
    pid = writer.get("pid") if isinstance(writer, dict) else None
    if pid is None:
        return False
    if type(pid) is not int or not 0 < pid < 2 ** 22:  # no process has it (0 or less signals groups)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process (PermissionError): it runs
        pass
    started, now = writer.get("started"), process_started(pid)
    return started is not None and now is not None and started != now


class ScreenFile:
    """Written by the daemon after each frame; a frame like the last is not written again. A
    folder that cannot take it is said once in the log: the web page then rebuilds the table
    from the journal, and the box plays on."""

    def __init__(self, folder):
        self.folder = str(folder)
        self.path = os.path.join(self.folder, FILE)
        self._last = None
        self._failed = False
        self.writer = {"pid": os.getpid(), "started": process_started(os.getpid())}  # see writer_gone

    def write(self, view, match_id, rows, names=None):
        text = json.dumps({"match": match_id, "rows": rows, "writer": self.writer, "view": view_json(view, names)},
                          ensure_ascii=False, separators=(",", ":"))
        if text == self._last:
            return
        tmp = self.path + ".tmp"
        try:
            if not os.path.isdir(self.folder):  # its own folder only: never the state folder
                os.mkdir(self.folder, 0o700)  # (removed under the box: the journal makes it, 0700)
            # a new file each time, never through what holds the name: a pipe left there held the
            # box's loop for ever (opening it waits for a reader), a link had the screen written
            # over the file it points to (the journal, say)
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with open(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
        except OSError as e:
            if not self._failed:
                from assistant.box.journal_files import say
                log.warning("%s: its Now page shows the table from the journal",
                            say(self.folder, e, "the screen for the web page cannot be written"))
            self._failed = True
            return
        self._last = text

    def remove(self):
        for path in (self.path, self.path + ".tmp"):
            try:
                os.unlink(path)
            except OSError:
                pass


def read_screen(folder):
    """``(data, text, written)`` of the screen file in ``folder`` (``written``: its time), or None
    when there is none usable."""
    try:
        # a regular file only: a pipe in its place would hold every page waiting for a writer
        path = os.path.join(folder, FILE)
        text = read_small(path, MAX_SIZE).decode("utf-8")
        written = os.stat(path).st_mtime
        data = json.loads(text)
    except (OSError, ValueError, RecursionError):  # nested past Python's limit: no screen the box wrote
        return None
    if not isinstance(data, dict) or not _is_view(data.get("view")):
        return None
    return data, text, written


def _text(x):
    return isinstance(x, str)


def _number(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _maybe(check):
    return lambda x: x is None or check(x)


def _list(check):
    return lambda x: isinstance(x, list) and all(check(i) for i in x)


def _fields(**checks):
    return lambda x: isinstance(x, dict) and all(k in x and check(x[k]) for k, check in checks.items())


_CARD = _fields(name=_text, label=_text)
_PLACED = _fields(seat=_text, name=_text, label=_text)
_VIEW = _fields(  # what view_json writes: the Now page reads these fields, nothing else
    game=_text, seats=_list(_text), sides=_list(_text), phase=_text, prompt=_list(_text), score=_list(_number),
    dealer=_maybe(_text), turn=_maybe(_text), hand_size=_maybe(_number), trump=_maybe(_text),
    up_card=_maybe(_CARD), turned_down=_maybe(_text), bidder=_maybe(_text), bid=_maybe(_number),
    target=_maybe(_number), for_two=lambda x: isinstance(x, bool), double=_number, tricks=_list(_number),
    points=_list(_number), trick=_list(_PLACED), trick_no=_maybe(_number), flipped=_list(_PLACED),
    winner=_list(_text), extra=_list(_text), alert=_maybe(_fields(kind=_text, text=_text)),
    menu=_maybe(_fields(title=_text, items=_list(_text), selected=_number)))


def _is_view(view):
    """A view the box wrote has every field view_json writes, each of its type: a file with the
    latest match and row but a view of another shape (damaged, or not the box's) made the Now page
    a 500; it is no screen, and the page shows the table from the journal."""
    return _VIEW(view)
