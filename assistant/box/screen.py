"""Render a ``View`` as a 128x64 one-bit image for the OLED: a pure function.

Layout (pixels): the score in double size across the top with trump in the
middle (rows 0-13); two small lines of details (dealer, hand size or bid, for 2,
tricks or points; rows 15-30); then either the cards on the table in seat
columns with the prompt in bold below (play; the flip, which has no details,
moves them up), or a double-size body and prompt. What a
player needs from a metre away (score, trump, whose turn, alerts, menus) is
drawn double size; alerts take over the whole screen.

>>> from assistant.box.view import View
>>> render(View(game="towers", seats=("P1", "P2"), phase="flip", prompt="Tap flip cards")).size
(128, 64)
"""
from PIL import Image

from assistant.rules.cards import RANKS, SUIT_SYMBOLS
from assistant.box.font import HEIGHT, draw_text, text_width

W, H = 128, 64
BIG = 2
_ALERT_TITLES = {
    "renege": ("RENEGE!", "RENEGE!"),
    "refused": ("REFUSED", "REFUSED"),
    "unknown-tag": ("UNKNOWN TAG", "UNKNOWN"),
    "reader-lost": ("NO READER", "READER?"),
    "info": ("NOTE", "NOTE"),
}


def render(view):
    """The frame for ``view``: a new PIL image, mode "1", 128x64."""
    img = Image.new("1", (W, H), 0)
    if view.alert is not None:
        _alert(img, view.alert)
    elif view.phase == "menu":
        _menu(img, view.menu)
    elif view.phase == "flip":  # no dealer or bid yet: the cards sit higher, the prompt gets room
        _header(img, view)
        _table(img, view, view.flipped, top=16)
        _lines_block(img, _prompt_lines(view), 40, H)
    elif view.phase == "match-over":  # the winners, the last result, open claims, what next
        _header(img, view)
        _lines_block(img, _prompt_lines(view), 15, H)
    else:
        _header(img, view)
        _details(img, view)
        if view.phase == "play":
            _table(img, view, view.trick)
            _lines_block(img, _prompt_lines(view), 56, H)
        else:
            body = _body(view)
            top = 31
            if body:
                _segments_centered(img, body, top)
                top = 48
            _lines_block(img, _prompt_lines(view), top, H)
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
    return [ln for ln in view.prompt.split("\n") if ln]


def _card_text(card):
    rank = RANKS[card & 7]
    return ("⒑" if rank == "10" else rank) + SUIT_SYMBOLS[card >> 3]


def _centered(img, y, text, scale=1, bold=False, fill=1, x0=0, x1=W):
    w = text_width(text, scale, bold)
    _draw(img, (x0 + (x1 - x0 - w) // 2, y), text, scale, fill, bold)


def _right(img, y, text, scale=1, bold=False, fill=1, x1=W):
    _draw(img, (x1 - text_width(text, scale, bold), y), text, scale, fill, bold)


def _wrap(text, width, scale=1, bold=False):
    """Greedy word wrap by pixel width (alerts only); a word too long for a line stays whole."""
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


def _layouts(lines, width, height):
    """Sizes to try for the prompt's lines, largest first: (scale, bold) per line."""
    n = len(lines)
    big, bold, small = (BIG, False), (1, True), (1, False)
    yield [big] * n
    if n > 1:
        yield [bold] * (n - 1) + [big]
        yield [small] * (n - 1) + [big]
    yield [bold] * n
    yield [small] * n


def _fits(lines, sizes, width, height):
    rows = sum(HEIGHT * s for s, _ in sizes)
    return rows <= height and all(text_width(t, s, b) <= width - 2 * (s - 1) for t, (s, b) in zip(lines, sizes))


def _lines_block(img, lines, top, bottom, fill=1, x0=0, x1=W):
    """Draw the prompt's lines, each unbroken, as large as they fit in rows top..bottom."""
    if not lines:
        return
    width, height = x1 - x0 - 2, bottom - top
    sizes = None
    for sizes in _layouts(lines, width, height):
        if _fits(lines, sizes, width, height):
            break
    used = sum(HEIGHT * s for s, _ in sizes)
    gap = 1 if used + len(lines) - 1 <= height else 0
    y = top + (height - used - gap * (len(lines) - 1) + 1) // 2
    for line, (scale, bold) in zip(lines, sizes):
        _centered(img, y, line, scale, bold, fill, x0, x1)
        y += HEIGHT * scale + gap


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


def _details(img, view):
    """Two small lines: dealer and hand size / bid; bidder and for 2 / tricks or points; the
    public notes (pair, accused, no reader) take the place of the trick number."""
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
    if view.extra:
        right2 = " ".join(view.extra)
    _draw(img, (0, 15), left1)
    _right(img, 15, right1)
    _draw(img, (0, 23), left2)
    _right(img, 23, right2)


def _table(img, view, cards, top=31):
    """Seat columns: the seat's name (inverted for the seat to act) over its card, double size."""
    n = len(view.seats)
    colw = W // n
    shown = dict(cards)
    for s in range(n):
        x0 = s * colw
        name = short_name(view.seats[s], 5)
        if s == view.turn:
            img.paste(1, (x0 + 1, top, x0 + colw - 1, top + 9))
            _centered(img, top + 1, name, fill=0, x0=x0, x1=x0 + colw)
        else:
            _centered(img, top + 1, name, x0=x0, x1=x0 + colw)
        text = _card_text(shown[s]) if s in shown else "·"
        _centered(img, top + 10, text, BIG, x0=x0, x1=x0 + colw)


def _body(view):
    """What the non-table phases show double size under the details: a list of (text, scale)."""
    p = view.phase
    if p in ("upcard", "trump1", "discard") and view.up_card is not None:
        return [("Up ", 1), (_card_text(view.up_card), BIG)]
    if p == "trump2" and view.turned_down is not None:
        return [("Not ", 1), (SUIT_SYMBOLS[view.turned_down], BIG)]
    return []


def _segments_centered(img, segments, top):
    """Draw mixed-size text pieces on one line, centered, aligned on the big baseline."""
    widths = [text_width(t, s) for t, s in segments]
    total = sum(widths)
    if total > W:  # too wide at double size: everything small
        segments = [(t, 1) for t, _ in segments]
        widths = [text_width(t) for t, _ in segments]
        total = sum(widths)
    x = (W - total) // 2
    for (t, s), w in zip(segments, widths):
        y = top + (6 * BIG - 6 * s)  # same baseline (row 6) for both sizes
        _draw(img, (x, y), t, s)
        x += w


# ---- whole-screen modes -----------------------------------------------------

def _alert(img, alert):
    """Alerts fill the screen: renege inverted (white), the others black with a double frame."""
    long_title, short_title = _ALERT_TITLES[alert.kind]
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
    """Title bar inverted, then the items (the selected one inverted), double size when every
    item fits, else small bold with more rows; arrows when the list scrolls."""
    img.paste(1, (0, 0, W, 9))
    _centered(img, 1, menu.title, fill=0)
    big = all(text_width(item, BIG) <= W - 4 for item in menu.items)
    rows, pitch = (3, 18) if big else (4, 13)
    first = min(max(0, menu.selected - 1), max(0, len(menu.items) - rows))
    for i, item in enumerate(menu.items[first:first + rows]):
        y = 10 + i * pitch
        fill = 1
        if first + i == menu.selected:
            img.paste(1, (0, y, W, y + pitch - 1))
            fill = 0
        if big:
            _centered(img, y + 1, item, BIG, fill=fill)
        else:  # bold where the item fits, else regular: never cut
            _centered(img, y + 3, item, 1, text_width(item, 1, True) <= W - 4, fill=fill)
    if first > 0:
        _draw(img, (W - 6, 10), "^", fill=0 if menu.selected == first else 1)
    if first + rows < len(menu.items):
        last = first + rows - 1
        _draw(img, (W - 6, 10 + rows * pitch - 8), "v", fill=0 if menu.selected == last else 1)
