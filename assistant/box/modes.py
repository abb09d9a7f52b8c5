"""What a button press acts on: the table's screen modes, as a stack from the top down.

:func:`stack` lists the modes in effect, the one that sees a short press first on top:

==============  ==============================================================================
``menu``        a list: left/right move, OK chooses, Back leaves it (once a match is in play);
                a refusal said over it (a card, a player's tag) goes at that OK or Back
``alert``       a message over the table: OK or Back clears it; left/right go on below it
``show``        a pair being shown on the reader (Twenty-Nine after a deal scan): Back leaves it
``match-over``  the match end: OK opens the menu
``result``      a hand's result hides the choices: any press moves on
``choices``     the phase's choices under the buttons: left/right move, OK applies the one shown
==============  ==============================================================================

A short press goes down the stack until a mode takes it (:func:`press`). A held button
means the same in every mode and is the table's own: hold OK for the menu, hold Back to
undo (while a pair is shown, hold Back only leaves the showing, as Back does). The modes'
data are the table's ``menu`` (a :class:`MenuMode`), ``alert`` (a
:class:`~assistant.box.view.Alert`, with its cause), ``showing`` and ``result`` (the hand's lines).

>>> MenuMode("Menu", (("Close", None), ("Undo last", None))).moved(-1).selected
1
"""
from enum import StrEnum
from typing import NamedTuple


class Mode(StrEnum):
    MENU = "menu"
    ALERT = "alert"
    SHOW = "show"
    MATCH_OVER = "match-over"
    RESULT = "result"
    CHOICES = "choices"


class MenuMode(NamedTuple):
    """A menu on the screen: ``items`` are (label, callback) pairs, ``selected`` the one shown."""
    title: str
    items: tuple
    selected: int = 0

    def moved(self, step):
        return self._replace(selected=(self.selected + step) % len(self.items))


def stack(table):
    """The modes in effect, top first, e.g. ``(Mode.ALERT, Mode.CHOICES)``."""
    modes = []
    if table.menu is not None:
        modes.append(Mode.MENU)
    if table.alert is not None:
        modes.append(Mode.ALERT)
    m = table.match
    if table.showing is not None:
        modes.append(Mode.SHOW)
    if m is not None:
        if m.engine.phase == "over":
            modes.append(Mode.MATCH_OVER)
        else:
            if table.result is not None:
                modes.append(Mode.RESULT)
            modes.append(Mode.CHOICES)
    return tuple(modes)


def press(table, name):
    """A short press of ``name`` ("left", "right", "ok", "back"): the first mode that takes it acts."""
    for mode in stack(table):
        if _ON_PRESS[mode](table, name):
            return mode
    return None


# alerts said of the open menu (a card tapped over it, a player's tag refused while the seats are
# taken): stale once OK or Back moves the menu on, so they never stay over what comes after it
GAME_MENU = "New match"  # the title of the choice of game (table_menus.game_menu)
MENU_ALERTS = ("menu-first", "player-tag", "too-few-pads")


def _menu(table, name):
    menu = table.menu
    if name in ("left", "right"):
        table.menu = menu.moved(-1 if name == "left" else 1)
        return True
    cleared = table.alert_cause in MENU_ALERTS
    if cleared:
        table.alert = None
        if name == "ok":  # OK on an alert clears it and does nothing else (the item it was on: undo!)
            return True
    if name == "back" and table.match is not None:
        table.menu = None
    elif name == "back" and menu.title != GAME_MENU and not cleared:  # a fresh box: the choice of game
        table.choose_game()
    elif name == "ok":
        table.menu = None
        menu.items[menu.selected][1]()
    return True


def _alert(table, name):
    if name not in ("ok", "back"):
        return False  # left/right move what is under the alert
    table.alert = None  # nothing else happens on that press
    return True


def _show(table, name):
    if name == "back":
        table.leave_showing()
    return True  # the other buttons wait for the cards: the prompt says which


def _match_over(table, name):
    if name == "ok":
        table.main_menu()
    return True


def _result(table, name):
    table.note = table.last_trick = None  # read: a note or the last trick goes at any press
    table.result = None
    return True


def _choices(table, name):
    table.note = table.last_trick = None
    options = table.choices()
    if not options:
        return True
    if name in ("left", "right"):
        table.cursor = (table.cursor + (-1 if name == "left" else 1)) % len(options)
    elif name == "ok":
        action = options[table.cursor % len(options)][1]
        if action is not None:
            table.apply(action)
        else:  # the harmless choice changes nothing, but says what the table waits for
            table.note = _tap_hint(table)
    return True


def _tap_hint(table):
    """After OK on the harmless choice: whose card the table waits for (a newcomer pressed OK on
    for 2's "no", or on "card face down", and saw nothing happen). Short, to fit one line with
    any name."""
    e = table.match.engine
    w = e.waiting_for()
    if w.seat is None or (getattr(e, "discard_open", False) and not e.trick):
        return None  # the towers discard asked: its prompt says who taps (the dealer, or the leader leads)
    if "play" in w.kinds:
        return f"{table.match.seats[w.seat]}: tap a card"
    if "trump" in w.kinds:  # Twenty-Nine's "card face down": the bidder's card, face down, on their pad
        return f"{table.match.seats[w.seat]}: tap the trump card"
    return None


_ON_PRESS = {Mode.MENU: _menu, Mode.ALERT: _alert, Mode.SHOW: _show, Mode.MATCH_OVER: _match_over,
             Mode.RESULT: _result, Mode.CHOICES: _choices}
