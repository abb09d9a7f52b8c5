"""Render a ``View`` as a 128x64 one-bit image for the OLED: a pure function.

The screen is a grid of the controller's eight pages (rows of 8 pixels): every line of text
sits on page boundaries and keeps its place from one screen to the next, so that a tap
rewrites only the few bytes that changed (``assistant.hw.oled`` sends the changed windows).

- pages 0-1: the score per seat or side in double size, trump in the middle;
- pages 2-3: two small lines of details (dealer, hand size or bid; bidder, tricks or points);
- page 4: the seat names, the seat to act inverted;
- pages 5-7: play and flip: each seat's card in double size under its name (pages 5-6) and
  the prompt (page 7); the other phases: the up-card or the suit turned down, then the
  prompt's lines, as large as they fit, the last line always on page 7.

Text is left-aligned where it changes (the prompt, the details, the menu's items) and digits
are all as wide, so a word that changes leaves the rest of its line in place. Alerts (a title
bar inverted over their words) and menus take pages 4-7, the score and the details staying in
view above them; an alert whose words need more room takes the whole screen.

>>> from assistant.box.view import View
>>> render(View(game="towers", seats=("P1", "P2"), phase="flip", prompt="Tap flip cards")).size
(128, 64)
"""
from PIL import Image

from assistant.rules.cards import RANKS, SUIT_SYMBOLS
from assistant.box.font import HEIGHT, draw_text, text_width
from assistant.box.view import ALERT_TITLES

W, H = 128, 64
BIG = 2
PAGE = 8  # rows per page of the controller's RAM
DETAILS, NAMES, CARDS, PROMPT = 2, 4, 5, 7  # the first page of each part


def render(view):
    """The frame for ``view``: a new PIL image, mode "1", 128x64."""
    img = Image.new("1", (W, H), 0)
    if view.phase == "menu":
        if view.alert is not None:
            _alert_screen(img, view.alert)
        else:  # the score and details (of a match, if one is on) stay above the menu
            _header(img, view)
            _details(img, view)
            _menu(img, view.menu)
        return img
    if view.alert is not None and not _alert_band(img, view.alert):
        _alert_screen(img, view.alert)
        return img
    _header(img, view)
    lines = _prompt_lines(view)
    if view.phase == "match-over":  # no details: the result has pages 2-7
        if view.alert is None:
            _lines_block(img, lines, DETAILS, 8)
        else:  # the alert's band has pages 4-7: the result's first line (who won) above it
            _lines_block(img, lines[:1], DETAILS, NAMES)
        return img
    if view.phase == "flip":  # no dealer or bid yet: the prompt's first lines in their place
        _details(img, view, lines[:-1])
    else:
        _details(img, view)
    if view.alert is not None:
        return img
    if view.phase in ("play", "flip"):
        _names(img, view)
        _cards(img, view, view.flipped if view.phase == "flip" else view.trick)
        _lines_block(img, lines if view.phase == "play" else lines[-1:], PROMPT, 8)
        return img
    body = _body(view)
    if _lines_block(img, lines, CARDS, 8, body, dry=True):
        _names(img, view)
        _lines_block(img, lines, CARDS, 8, body)
    else:  # a long result: the names give way
        _lines_block(img, lines, NAMES, 8, body)
    return img


def text_items(view):
    """Every text drawn for ``view``: (x, y, width, height, text), for the tests that check that
    each lies inside the screen and that nothing was cut."""
    global _record
    _record = []
    try:
        render(view)
        return list(_record)
    finally:
        _record = None


# ---- helpers ---------------------------------------------------------------

_record = None


def _draw(img, xy, text, scale=1, fill=1, bold=False):
    if _record is not None:
        _record.append((xy[0], xy[1], text_width(text, scale, bold), HEIGHT * scale, text))
    return draw_text(img, xy, text, scale, fill, bold)


def short_name(name, room=5):
    """The one rule for long seat names: up to ``room`` characters whole, else the first
    ``room - 1`` and a full stop ("Bartholomew" -> "Bart.")."""
    return name if len(name) <= room else name[:room - 1] + "."


def _prompt_lines(view):
    """The prompt's lines; one too wide for the screen at the smallest size (players' names make
    it so: "Wilh.+Wolf. may double (menu)") is broken between words, never cut at the edge."""
    return [part for ln in view.prompt.split("\n") if ln
            for part in ([ln] if text_width(ln) <= W else _wrap(ln, W))]


def _card_text(card):
    rank = RANKS[card & 7]
    return ("⒑" if rank == "10" else rank) + SUIT_SYMBOLS[card >> 3]


def _centered(img, y, text, scale=1, bold=False, fill=1, x0=0, x1=W):
    w = text_width(text, scale, bold)
    _draw(img, (x0 + (x1 - x0 - w) // 2, y), text, scale, fill, bold)


def _right(img, y, text, scale=1, bold=False, fill=1, x1=W):
    _draw(img, (x1 - text_width(text, scale, bold), y), text, scale, fill, bold)


def _wrap(text, width, scale=1, bold=False):
    """Greedy word wrap by pixel width (alerts, and a prompt line too wide for the screen); a word
    too long for a line stays whole."""
    lines, line = [], ""
    for word in text.split():
        cand = f"{line} {word}" if line else word
        if text_width(cand, scale, bold) <= width or not line:
            line = cand
            continue
        lines.append(line)
        line = word
    if line:
        lines.append(line)
    return lines


def _layouts(n):
    """Sizes to try for ``n`` prompt lines, largest first: (scale, bold) per line."""
    big, bold, small = (BIG, False), (1, True), (1, False)
    yield [big] * n
    if n > 1:
        yield [bold] * (n - 1) + [big]
        yield [small] * (n - 1) + [big]
    yield [bold] * n
    yield [small] * n


def _width(line, scale, bold):
    if isinstance(line, list):  # the body: (text, scale) pieces, the small ones at small scale
        return sum(text_width(t, min(s, scale)) for t, s in line)
    return text_width(line, scale, bold)


def _lines_block(img, lines, first, end, body=(), dry=False):
    """The prompt's lines (after ``body``, if any), each unbroken and left-aligned, as large as
    they fit in pages first..end-1, the last on the last page. Return whether they fitted."""
    items = ([list(body)] if body else []) + lines
    if not items:
        return True
    sizes = None
    for body_scale in ((BIG, 1) if body else (None,)):
        for sizes in _layouts(len(lines)):
            sizes = ([(body_scale, False)] if body else []) + sizes
            pages = sum(s for s, _ in sizes)
            if pages <= end - first and all(_width(t, s, b) <= W for t, (s, b) in zip(items, sizes)):
                break
        else:
            continue
        break
    else:
        if dry:
            return False
    if dry:
        return True
    page = max(0, end - sum(s for s, _ in sizes))  # too many: from as high up as needed
    for item, (scale, bold) in zip(items, sizes):
        y = page * PAGE
        if isinstance(item, list):  # a row clear above its double-size card, as in play
            _segments(img, item, y + (scale > 1), scale)
        else:
            _draw(img, (0, y), item, scale, 1, bold)
        page += scale
    return True


# ---- the parts of a table screen ---------------------------------------------

def _header(img, view):
    """Score per seat (towers) or side (Twenty-Nine), double size; trump in the middle."""
    if view.towers:
        labels = [short_name(n, 5) for n in view.seats]
    else:
        labels = [f"{short_name(view.seats[i], 3)}+{short_name(view.seats[i + 2], 3)}" for i in (0, 1)]
    for side in (0, 1):
        label, score = labels[side], str(view.score[side])
        lw, sw = text_width(label), text_width(score, BIG)
        x = 0 if side == 0 else W - 1 - lw - 2 - sw  # one column clear of the right edge
        _draw(img, (x, 4), label)
        _draw(img, (x + lw + 2, 0), score, BIG)
    if isinstance(view.trump, int):
        _centered(img, 0, SUIT_SYMBOLS[view.trump], BIG)
    elif view.trump == "hidden":
        img.paste(1, (W // 2 - 7, 0, W // 2 + 7, 14))
        _centered(img, 3, "?", 1, True, fill=0)


def _details(img, view, first=()):
    """Two small lines: dealer and hand size / bid; bidder and for 2 / tricks or points; the
    public notes take the place of the trick number (drawn_details). Each line of ``first`` (the
    flip's prompt, before any dealer) takes a whole line whose left half is free (bold where it
    fits); without room for them, they take both pages and the details go."""
    rows, lines, prompt = drawn_details(view), list(first), set()
    for k, (left, right) in enumerate(rows):
        if lines and not left:
            rows[k] = (lines.pop(0), "")
            prompt.add(k)
    if lines:
        return _lines_block(img, list(first), DETAILS, NAMES)
    for k, (left, right) in enumerate(rows):
        y = (DETAILS + k) * PAGE
        _draw(img, (0, y), left, 1, 1, k in prompt and text_width(left, 1, True) <= W)
        _right(img, y, right)


def detail_texts(view):
    """The details' two lines as (left, right) texts."""
    seat = lambda i: short_name(view.seats[i], 5)  # noqa: E731
    left1 = f"Deal {seat(view.dealer)}" if view.dealer is not None else ""
    if view.towers:
        right1 = f"Hand {view.hand_size}" if view.hand_size else ""
        left2 = ""
        if view.bidder is not None:
            left2 = f"{seat(view.bidder)} for 2" if view.for_two else f"Trump by {seat(view.bidder)}"
        right2 = "Tricks " + "-".join(map(str, view.tricks)) if view.tricks else ""
    else:
        right1 = ""
        if view.bid is not None:
            who = f"{seat(view.bidder)} bid" if view.bidder is not None else "High bid"
            target = f"→{view.target}" if view.target not in (None, view.bid) else ""
            right1 = f"{who} {view.bid}{target}" + (f" ×{view.double}" if view.double > 1 else "")
        left2 = "Pts " + "-".join(map(str, view.points)) if view.points else ""
        right2 = f"Trick {view.trick_no}" if view.trick_no else ""
    if view.extra:  # each its own: "pair P2 accused P4" read as P2 accusing P4
        right2 = ", ".join(view.extra)
    return (left1, right1), (left2, right2)


def drawn_details(view):
    """The details' two lines as the screen draws them: the public notes (pair, accused, no
    reader) fitted to its width, and the points left out when the notes need the whole line
    (the terminal's line has the room for both: detail_texts)."""
    (left1, right1), (left2, right2) = detail_texts(view)
    if view.extra:
        right2 = _notes(view.extra)
        if text_width(left2) + text_width(" ") + text_width(right2) > W:  # the notes win the line
            left2 = ""
    return [(left1, right1), (left2, right2)]


def _notes(extra):
    """The public notes on the screen's line: with no room for all of them, the pair's goes first
    (its target is on the bid's line), then the oldest: drawn whole, they ran over the points and
    off the screen's left edge."""
    notes = list(extra)
    while len(notes) > 1 and text_width(", ".join(notes)) > W:
        notes.remove(next((n for n in notes if n.startswith("pair ")), notes[0]))
    return ", ".join(notes)


def _names(img, view):
    """The seat names in columns, the seat to act inverted (a box just wider than its name)."""
    n = len(view.seats)
    colw, y = W // n, NAMES * PAGE
    for s in range(n):
        name = short_name(view.seats[s], 5)
        w = text_width(name)
        x = s * colw + (colw - w) // 2
        if s == view.turn:  # on the names' page only: a turn that moves rewrites no other
            img.paste(1, (x - 2, y, x + w + 2, y + PAGE))
            _draw(img, (x, y), name, fill=0)
        else:
            _draw(img, (x, y), name)


def _cards(img, view, cards):
    """Each seat's card of the trick (or flip) in double size under its name; a dot if none."""
    n = len(view.seats)
    colw = W // n
    shown = dict(cards)
    for s in range(n):
        text = _card_text(shown[s]) if s in shown else "·"
        _centered(img, CARDS * PAGE + 1, text, BIG, x0=s * colw, x1=(s + 1) * colw)


def _body(view):
    """What the non-table phases show before the prompt: a list of (text, scale)."""
    p = view.phase
    if p in ("upcard", "trump1", "discard") and view.up_card is not None:
        return [("Up ", 1), (_card_text(view.up_card), BIG)]
    if p == "trump2" and view.turned_down is not None:
        return [("Not ", 1), (SUIT_SYMBOLS[view.turned_down], BIG)]
    return []


def _segments(img, segments, y, scale):
    """Mixed-size text pieces on one line from the left, on the big pieces' baseline; at
    ``scale`` 1 all small."""
    x = 0
    for t, s in segments:
        s = min(s, scale)
        x = _draw(img, (x, y + 6 * (scale - s)), t, s) + 1  # same baseline (row 6) for both sizes


# ---- alerts and the menu ---------------------------------------------------------

def _alert_fit(title, text, pages, width):
    """(title scale, text bold, text lines) that fit ``pages`` pages, largest first, or None."""
    for tscale, bold in ((BIG, True), (BIG, False), (1, True), (1, False)):
        if text_width(title, tscale, tscale == 1) > width:
            continue
        lines = [w for part in text.split("\n") for w in _wrap(part, width, 1, bold)]
        if tscale + len(lines) <= pages and all(text_width(ln, 1, bold) <= width for ln in lines):
            return tscale, bold, lines
    return None


def _alert_band(img, alert):
    """The alert on pages 4-7, the score and details above it: its title inverted across the
    screen (double size where the words leave room), its words below. False (nothing drawn)
    when its words need the whole screen."""
    top = NAMES * PAGE
    title = ALERT_TITLES[alert.kind][0]
    fit = _alert_fit(title, alert.text, 8 - NAMES, W - 4)
    if fit is None:
        return False
    tscale, bold, lines = fit
    img.paste(1, (0, top, W, top + PAGE * tscale))
    _draw(img, (2, top + tscale - 1), title, tscale, 0, tscale == 1)  # big: a row clear above
    for k, line in enumerate(lines):
        _draw(img, (2, top + (tscale + k) * PAGE), line, 1, 1, bold)
    return True


def _wrap_block(img, text, top, bottom, fill=1, x0=0, x1=W):
    """An alert's words, wrapped at spaces (never cut), as large as they fit."""
    width = x1 - x0 - 4
    for scale, bold in ((BIG, False), (1, True), (1, False)):
        lines = [w for part in text.split("\n") for w in _wrap(part, width, scale, bold)]
        if len(lines) * HEIGHT * scale <= bottom - top and all(
                text_width(ln, scale, bold) <= width for ln in lines):
            break
    pitch = HEIGHT * scale
    if scale == 1 and len(lines) * (HEIGHT + 1) <= bottom - top:
        pitch += 1
    y = top + ((bottom - top) - len(lines) * pitch + 1) // 2
    for i, line in enumerate(lines):
        _centered(img, y + i * pitch, line, scale, bold, fill, x0, x1)


def _alert_screen(img, alert):
    """An alert whose words need the whole screen: renege inverted (white), the others black
    with a double frame."""
    long_title, short_title = ALERT_TITLES[alert.kind]
    title = long_title if text_width(long_title, BIG) <= W - 6 else short_title
    if alert.kind == "renege":
        img.paste(1, (0, 0, W, H))
        fill = 0
    else:
        fill = 1
        img.paste(1, (0, 0, W, H))
        img.paste(0, (2, 2, W - 2, H - 2))
        if alert.kind in ("refused", "reader-lost"):
            img.paste(1, (4, 4, W - 4, H - 4))
            img.paste(0, (5, 5, W - 5, H - 5))
    _centered(img, 6, title, BIG, fill=fill)
    _wrap_block(img, alert.text, 24, H - 5, fill=fill, x0=5, x1=W - 5)


def _menu(img, menu):
    """The menu on pages 4-7: its title in bold (then the selected item's place in a longer
    list: "3/9"), then three items a small line each, indented, the selected one inverted (a
    box just wider than its text)."""
    y0 = NAMES * PAGE
    rows = 8 - NAMES - 1
    end = _draw(img, (0, y0), menu.title, bold=True)
    if len(menu.items) > rows:
        _draw(img, (end + 4, y0), f"{menu.selected + 1}/{len(menu.items)}")
    first = min(max(0, menu.selected - 1), max(0, len(menu.items) - rows))
    for i, item in enumerate(menu.items[first:first + rows]):
        y = y0 + (i + 1) * PAGE
        w = text_width(item)
        x = min(6, W - w)  # indented under the bold title; a long item as far left as needed
        fill = 1
        if first + i == menu.selected:
            img.paste(1, (x - 2, y, x + w + 2, y + PAGE))
            fill = 0
        _draw(img, (x, y), item, 1, fill)
