"""`card-assistant sim` at the keyboard: the OLED drawn in the terminal, typed words as taps
and button presses.

The screen is drawn in half blocks (130 columns), in quarter blocks when the terminal is
narrower, and only as words below 66 columns; the simulator's own lines are broken between
words to fit. A card (``JS``, or ``2 JS`` for pad 2) taps it on the pad of the seat the screen
asks (or the one named), several (``AS KS QS``) one after another; ``a``/``d`` or the arrow keys
press Left and Right, Enter OK, ``b`` Back, ``m`` holds OK (the menu), ``u`` holds Back (undo); a
player's name taps that player's tag; ``q`` quits.
"""
import os
import re
import sys
import textwrap

from assistant.box.view import ALERT_TITLES
from assistant.rules.cards import SUIT_SYMBOLS, CardError, card_label, card_name, parse_card
from assistant.sim.bots import pad_for


def screen_words(view):
    """The frame's gist in plain words, from the View (public information only): the menu
    with its selected item in brackets, else the prompt; then the alert, if any."""
    if view.menu is not None:
        items = [f"[{x}]" if i == view.menu.selected else x for i, x in enumerate(view.menu.items)]
        words = f"{view.menu.title}: {' '.join(items)}"
    else:
        words = f"{view.phase}: {view.prompt}".replace("\n", " / ")  # the prompt's lines
    if view.alert is not None:
        words += f" | {alert_words(view.alert)}"
    return words


def alert_words(alert):
    """An alert under its OLED title: "RENEGE: P3 failed to follow ♥ (trick 2)"."""
    return f"{ALERT_TITLES[alert.kind][0].rstrip('!')}: {alert.text}"


def table_words(view):
    """What the screen's drawing shows above the prompt, in words (public information only):
    the score, trump, the details' two lines, the up-card, the cards on the table. For a
    terminal where the drawing is not shown (too narrow) or its top has scrolled away (too few
    rows); None on a menu, which has its own words."""
    from assistant.box.screen import detail_texts
    if view.phase == "menu":
        return None
    sides = view.side_names()
    parts = [f"{sides[0]} {view.score[0]}, {sides[1]} {view.score[1]}"]
    if isinstance(view.trump, int):
        parts.append(f"trump {SUIT_SYMBOLS[view.trump]}")
    elif view.trump == "hidden":
        parts.append("trump face down")
    if view.phase != "flip":
        (left1, right1), (left2, right2) = detail_texts(view)
        parts += [t for t in (left1, right1, left2, right2) if t]
    if view.up_card is not None and view.phase in ("upcard", "trump1", "discard"):
        parts.append(f"up-card {card_label(view.up_card)}")
    if view.turned_down is not None and view.phase == "trump2":
        parts.append(f"turned down {SUIT_SYMBOLS[view.turned_down]}")
    shown = view.flipped if view.phase == "flip" else view.trick if view.phase == "play" else ()
    if shown:
        label = "flipped" if view.phase == "flip" else "on the table"
        parts.append(f"{label}: " + ", ".join(f"{view.seats[s]} {card_label(c)}" for s, c in shown))
    return " | ".join(parts)


# typed word -> (gesture, button)
KEYS = {"": ("press", "ok"), "ok": ("press", "ok"), "a": ("press", "left"), "left": ("press", "left"),
        "d": ("press", "right"), "right": ("press", "right"), "b": ("press", "back"),
        "back": ("press", "back"), "m": ("hold", "ok"), "menu": ("hold", "ok"),
        "u": ("hold", "back"), "undo": ("hold", "back")}
# one paragraph: say() breaks it to the terminal's width (a line break of its own made a short line)
KEYS_HELP = ("  type a card (JS, '2 JS' for pad 2, or several: AS KS QS), a/d or the arrow keys "
             "left/right, Enter OK, b Back, m menu (hold OK), u undo (hold Back), q quit, help these keys.")
# what a press that changed nothing on the screen says, in the terminal only (the box says nothing)
UNCHANGED = {
    "back": "  (Back clears an alert or leaves a menu: nothing to clear now; u, hold Back, undoes)",
    "left": "  (nothing to choose now: Left and Right move a choice or a menu)",
    "right": "  (nothing to choose now: Left and Right move a choice or a menu)",
    "ok": "  (OK has nothing to choose now: the table waits for a card; type it, like JS)"}
# and a hold that changed nothing (a fresh box has no match to undo; the menu is already up)
HELD_UNCHANGED = {
    "back": "  (undo, hold Back, has nothing to take back: no match has begun yet)",
    "ok": "  (the menu is up: Left and Right move, OK chooses, Back leaves it)"}
QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("help", "?", "h")


def key_meaning(word):
    """What typing ``word`` alone does, when it is one of the keys above ("quit", "OK"...), else
    None: a player's name that is a key could never tap the tag by its name alone."""
    w = word.lower()
    if w in QUIT_WORDS or w in HELP_WORDS:
        return "quit" if w in QUIT_WORDS else "help"
    if w not in KEYS:
        return None
    gesture, button = KEYS[w]
    name = "OK" if button == "ok" else button.capitalize()
    return {("hold", "ok"): "the menu (hold OK)", ("hold", "back"): "undo (hold Back)"}.get((gesture, button), name)


# the arrow keys as a terminal sends them (normal and application cursor mode): a line of only
# arrows presses Left or Right once per arrow; up and down are no button of the box
ARROWS = {"D": "left", "C": "right", "A": None, "B": None}
ARROW_LINE = re.compile(r"(?:\x1b[\[O][A-D])+")
FULL_WIDTH = 130     # columns the OLED takes drawn in half blocks, with its border
COMPACT_WIDTH = 66   # in quarter blocks (to_terminal's compact), with its border
DRAWN_LINES = 36     # lines the drawing takes (either size, with its border), its words and the prompt


def terminal_columns():
    """How wide the terminal is, or None when the output is not a terminal (a pipe, a file)."""
    size = terminal_size()
    return size and size.columns


def terminal_size():
    """The terminal's size (columns, lines), or None when the output is not a terminal."""
    try:
        return os.get_terminal_size(sys.stdout.fileno()) if sys.stdout.isatty() else None
    except (OSError, ValueError, AttributeError):  # AttributeError: standard output closed (`>&-`)
        return None


def frame_text(frame, columns):
    """The OLED drawn to fit ``columns`` (None: no terminal, full size): full size, else compact,
    else None when even the compact drawing would wrap into a jumble."""
    from assistant.hw.display import to_terminal
    if columns is None or columns >= FULL_WIDTH:
        return to_terminal(frame)
    if columns >= COMPACT_WIDTH:
        return to_terminal(frame, compact=True)
    return None


# the simulator's own lines said while a typed line is handled, held (a list) to be said below the
# next drawing when the terminal is too short for it: said above it, they scrolled away unseen
HELD = None


def hold_in_a_short_terminal():
    """In a terminal shorter than the drawing, hold what is said from now on for below the first
    drawing: the notes at the start (the keys, where the journal is) scrolled away unseen."""
    global HELD
    size = terminal_size()
    if size and size.lines < DRAWN_LINES and size.columns >= COMPACT_WIDTH:
        HELD = []


def say(text, now=False):
    """Print ``text``, each line broken between words to fit the terminal (indented as it is); held
    for below the next drawing while :data:`HELD` is a list, unless ``now``."""
    if HELD is not None and not now:
        HELD.append(text)
        return
    columns = terminal_columns()
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        print(line if columns is None else textwrap.fill(
            line, max(columns - 1, 20), subsequent_indent=indent + "  ", break_on_hyphens=False))


def on_resume(sim):
    """After Ctrl-Z and fg the shell leaves the sim's prompt unseen: say the screen's words and
    the prompt again, so the newcomer sees the sim waits for them (a terminal only). The kernel
    may hand SIGCONT to any of the box's threads, so the main thread, blocked reading the
    keyboard, would only run a handler at the next Enter: the signal's byte on a wakeup pipe
    wakes a thread that says it at once. Returns how to undo this, or None."""
    import signal
    import threading
    if not hasattr(signal, "SIGCONT") or sys.stdin is None or not sys.stdin.isatty():
        return None
    r, w = os.pipe()
    os.set_blocking(w, False)
    handler = signal.signal(signal.SIGCONT, lambda *_: None)  # a Python handler: the byte is written
    wakeup = signal.set_wakeup_fd(w, warn_on_full_buffer=False)

    def again():
        while (got := os.read(r, 64)):
            if signal.SIGCONT in got:
                say("  (back) screen: " + screen_words(sim.box.view), now=True)
                print("> ", end="", flush=True)
        os.close(r)
    threading.Thread(target=again, name="sim-resume", daemon=True).start()

    def undo():
        signal.set_wakeup_fd(wakeup)
        signal.signal(signal.SIGCONT, handler)
        os.close(w)  # the thread reads the end of the pipe and stops
    return undo


def interactive(sim):
    global HELD
    undo = on_resume(sim)
    try:
        return _interactive(sim)
    finally:
        HELD = None
        if undo is not None:
            undo()


def _interactive(sim):
    global HELD
    say("card-assistant sim: " + KEYS_HELP.strip()
        + (f" Players' tags: type {', '.join(map(tag_words, sim.tags.values()))}." if sim.tags else ""))
    too_narrow = None  # the width last said to be too narrow for the screen, said once
    while True:
        size = terminal_size()
        columns = size and size.columns
        drawn = frame_text(sim.box.frame, columns)
        if drawn is not None:
            print(drawn)
            too_narrow = None
        elif columns != too_narrow:
            too_narrow = columns
            say(f"  (the terminal is {columns} columns wide; the screen needs {COMPACT_WIDTH}, "
                f"or {FULL_WIDTH} at full size: widen it to see the screen, its words follow)")
        held, HELD = HELD or (), None
        for text in held:  # the notes of the last line typed, below the drawing they were above
            say(text)
        # no drawing, or one whose top (the score, trump) scrolled out of a short terminal
        table = table_words(sim.box.view) if drawn is None or (size and size.lines < DRAWN_LINES) else None
        if table:
            say("  table: " + table)
        say("  screen: " + screen_words(sim.box.view))
        # a drawing taller than the terminal: what the next line typed makes the sim say is held
        # for below the next drawing, where it stays in sight (help, a typo's note, "tapped")
        if drawn is not None and size and size.lines < DRAWN_LINES:
            HELD = []
        try:
            line = input("> ").strip()
        except EOFError:  # Ctrl-D: end the prompt's line, as Ctrl-C does, so the shell's starts clean
            print()
            return 0
        word = line.lower()
        if word in QUIT_WORDS:
            return 0
        if word in HELP_WORDS:
            say(KEYS_HELP)
            continue
        if word in KEYS:
            gesture, button = KEYS[word]
            before = sim.box.view
            getattr(sim, gesture)(button)
            if gesture == "press" and button in UNCHANGED and sim.box.view == before:
                say(UNCHANGED[button])
            elif gesture == "hold" and sim.box.view == before and (button == "ok" or sim.table.match is None):
                say(HELD_UNCHANGED[button])
        elif ARROW_LINE.fullmatch(line):
            buttons = [ARROWS[key] for key in line[2::3]]
            for button in filter(None, buttons):
                sim.press(button)
            if None in buttons:
                say("  the up and down arrows are no button of the box: left and right move, Enter is OK")
        elif line.startswith("\x1b"):  # another key's escape sequence: Home, F1, Ctrl+arrow...
            say("  that key is no button of the box: a/d or the left and right arrows move, Enter is OK, "
                "b Back (help lists the keys)")
        elif player_tag(line, sim.tags):
            parts = line.split()
            seating = getattr(sim.table, "seating", None)  # the seat asked for a tag: its own pad
            asked = pad_for(sim.table, len(seating[2])) if seating and sim.table.menu is not None else 0
            pad = int(parts[0]) - 1 if len(parts) == 2 else asked
            if not 0 <= pad < len(sim.table.pads):
                say(f"  there is no pad {pad + 1} (pads 1 to {len(sim.table.pads)})")
                continue
            name = next(n for n in sim.tags.values() if n.lower() == parts[-1].lower())
            sim.tap_player(pad, name)
            say(f"  tapped {name}'s player tag on pad {pad + 1}")
        else:
            tap_cards(sim, line)


def tap_cards(sim, line):
    """``JS``, ``2 JS``, or several cards pasted at once (``2 AS KS QS``): each tapped in turn,
    on the pad named or else on that of the seat the screen asks, until the box refuses one.
    While the screen asks for a card face down, no note names a card typed (see tapped_words)."""
    hiding = sim.box.view.phase in HIDDEN_PHASES
    whole = "".join(line.split())
    if whole != line and _is_card(whole):  # "10 H", "J S"
        say(f"  {line!r} is not a card: write it without a space, like {whole}" if not hiding else
            "  a card is written without a space, like 10H; nothing tapped")
        return
    words = line.replace(",", " ").split()  # "AS, KS, QS" as pasted from a list
    pad = int(words.pop(0)) - 1 if len(words) > 1 and is_pad_number(words[0]) else None
    cards = []
    for n, word in enumerate(words, 1):
        try:
            cards.append(parse_card(word))
        except CardError as err:  # a pasted screenful is not echoed back whole
            if hiding:  # the words typed are cards face down: say where the typo is, not what
                say(f"  card {n} of the {len(words)} typed is not a card: write a rank then a suit, like "
                    "JS, 10H or T♦; nothing tapped" if len(words) > 1 else
                    "  that is not a card: write a rank then a suit, like JS, 10H or T♦ (a pad and a "
                    "card take a space: 2 JS); nothing tapped")
            elif len(words) > 1:
                say(f"  {line[:40]!r} is not a card: {word[:20]!r} is not one (type JS, a pad and a "
                    f"card: 2 JS, or cards one after another: AS KS QS)")
            elif is_pad_number(word[:1]) and _is_card(word[1:]) and not _is_card(word):  # "2JS"
                say(f"  {word!r} is not a card: a pad and a card take a space, like {word[0]} {word[1:]}")
            elif word.isalpha() and len(word) > 2:  # a word ("pass", "Ann"): no card is 3 letters
                say(f"  {word[:40]!r} is not a card or a key: choose with a/d (left/right) and Enter "
                    "(OK); help lists the keys")
            else:
                say(f"  {str(err)[:160]}")
            return
    if pad is None and len(cards) > 1 and sim.box.view.phase == "scan":
        # a towers hand typed without its pad went on the centre: its first card became the up-card
        say("  a hand is scanned on its seat's pad: type the pad first, like 1 AS KS QS for P1; "
            "nothing tapped")
        return
    for i, card in enumerate(cards):
        at = default_pad(sim) if pad is None else pad
        if not 0 <= at < len(sim.table.pads):
            say(f"  there is no pad {at + 1} (pads: {', '.join(sim.table.pads)}; a seat without "
                f"its own pad taps on the centre)")
            return
        alert = getattr(sim.table, "alert", None)
        # a line begun face down stays so: a card typed twice at the end of a scanned hand is a
        # play out of turn once the scan is done, and naming it would name a card of that hand
        hiding = hiding or sim.box.view.phase in HIDDEN_PHASES
        sim.tap(at, card)
        say(f"  tapped {tapped_words(sim.box.view, card, hiding)} on pad {at + 1}")
        now = getattr(sim.table, "alert", None)
        new = now is not alert and now is not None
        refused = new and (now.kind in NOT_TAKEN or now.cause in NOT_TAKEN)
        if refused and cards[i + 1:]:
            rest = cards[i + 1:]
            say(f"  refused: {' '.join(map(card_name, rest))} not tapped" if not hiding else
                f"  refused: the {len(rest)} card{'s' if len(rest) > 1 else ''} after it not tapped")
            return
        if new and cards[i + 1:]:  # a renege proven: the next tap clears it, as on the box, so say it
            say(f"  {alert_words(now)}")


# the screens that take a card face down: the towers discard, the Twenty-Nine trump card (laid or
# the seventh), a hand scanned
HIDDEN_PHASES = ("discard", "trump-card", "seventh", "scan")


def tapped_words(view, card, hiding):
    """The card a tap put down, named only when the table can see it: a card tapped face down
    (while ``hiding``) stays unnamed under the drawing, where the next player reads the screen."""
    seen = {c for _, c in view.trick} | {c for _, c in view.flipped} | {view.up_card}
    shown = card in seen or card_label(card) in screen_words(view)  # the up-card a scan's menu names
    return card_name(card) if not hiding or shown else "a card face down"


# the alerts (kinds, causes) of a tap the box did not take: a refusal, a tag not in the deck, a
# card tapped while a menu is up
NOT_TAKEN = ("refused", "unknown-tag", "menu-first")


def is_pad_number(word):
    """Whether ``word`` is a pad number: digits 0-9 only (str.isdigit also takes "²" and "٣",
    which int() refuses)."""
    return word.isascii() and word.isdigit()


def _is_card(text):
    try:
        parse_card(text)
    except CardError:
        return False
    return True


def default_pad(sim):
    """The pad a card typed alone goes on: that of the seat the screen asks a card of (the towers
    dealer while it asks for the discard, the seat showing a pair), else the player to act's, else
    the centre."""
    e = sim.table.match.engine if sim.table.match else None
    seat = e.dealer if sim.box.view.phase == "discard" else getattr(e, "to_act", None)
    showing = getattr(sim.table, "showing", None)  # (a journal it cannot use: no table, no pair)
    if showing is not None:
        seat = showing[0]
    return pad_for(sim.table, seat)


def tag_words(name):
    """How to type player ``name``'s tag: its name, or with a pad's number when the name alone is a
    key (a players.txt may keep one: `players rename Bob Help`; only --player's are refused at start)."""
    key = key_meaning(name)
    return f"{name} (with its pad's number, '1 {name}': alone it is {key})" if key else name


def player_tag(line, players):
    """Whether ``line`` taps a player's tag: the name alone, or a pad number and the name."""
    parts = line.split()
    if not parts or len(parts) > 2 or (len(parts) == 2 and not is_pad_number(parts[0])):
        return False
    return parts[-1].lower() in (n.lower() for n in players.values())
