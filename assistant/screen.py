"""Render a ``View`` as a 128x64 one-bit image for the OLED: a pure function.

Layout (pixels): the score in double size across the top with trump in the
middle (rows 0-13); two small lines of details (dealer, hand size or bid, for 2,
tricks or points; rows 15-30); then either the cards on the table in seat
columns with the prompt in bold below (play; the flip, which has no details,
moves them up), or a double-size body and prompt. What a
player needs from a metre away (score, trump, whose turn, alerts, menus) is
drawn double size; alerts take over the whole screen.

>>> from assistant.view import View
>>> render(View(game="towers", seats=("P1", "P2"), phase="flip", prompt="Tap flip cards")).size
(128, 64)
"""
from PIL import Image

from assistant.cards import RANKS, SUIT_SYMBOLS
from assistant.font import HEIGHT, draw_text, text_width

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
        _wrap_block(img, view.prompt, 40, H, bold_first=True)
    else:
        _header(img, view)
        _details(img, view)
        if view.phase == "play":
            _table(img, view, view.trick)
            _wrap_block(img, view.prompt, 56, H, bold_first=True)
        else:
            body = _body(view)
            top = 32
            if body:
                _segments_centered(img, body, top)
                top = 48
            _wrap_block(img, view.prompt, top, H, bold_first=True)
    return img


# ---- helpers ---------------------------------------------------------------

def _short(name, n=4):
    return name if len(name) <= n else name[:n]


def _card_text(card):
    rank = RANKS[card & 7]
    return ("⒑" if rank == "10" else rank) + SUIT_SYMBOLS[card >> 3]


def _centered(img, y, text, scale=1, bold=False, fill=1, x0=0, x1=W):
    w = text_width(text, scale, bold)
    draw_text(img, (x0 + (x1 - x0 - w) // 2, y), text, scale, fill, bold)


def _right(img, y, text, scale=1, bold=False, fill=1, x1=W):
    draw_text(img, (x1 - text_width(text, scale, bold), y), text, scale, fill, bold)


def _wrap(text, width, scale=1, bold=False):
    """Greedy word wrap by pixel width; a word too long for a line is cut to fit."""
    lines, line = [], ""
    for word in text.split():
        cand = f"{line} {word}" if line else word
        if text_width(cand, scale, bold) <= width:
            line = cand
            continue
        if line:
            lines.append(line)
        while text_width(word, scale, bold) > width:
            word = word[:-1]
        line = word
    if line:
        lines.append(line)
    return lines


def _wrap_block(img, text, top, bottom, bold_first=False, fill=1, x0=0, x1=W):
    """Draw ``text`` in rows top..bottom as large as it fits: double size, else bold, else small."""
    if not text:
        return
    width = x1 - x0 - 4
    rows = (bottom - top) // (HEIGHT * BIG)
    lines = _wrap(text, width, BIG)
    if rows and len(lines) <= rows:
        y = top + ((bottom - top) - len(lines) * HEIGHT * BIG) // 2
        for i, line in enumerate(lines):
            _centered(img, y + i * HEIGHT * BIG, line, BIG, fill=fill, x0=x0, x1=x1)
        return
    rows = (bottom - top) // HEIGHT
    for bold in ((True, False) if bold_first else (False,)):
        lines = _wrap(text, width, 1, bold)
        if len(lines) <= rows:
            break
    if len(lines) > rows:
        lines = lines[:rows]
        last = lines[-1]
        while last and text_width(last + "…", 1, bold) > width:
            last = last[:-1]
        lines[-1] = last + "…"
    pitch = HEIGHT + 1 if len(lines) * (HEIGHT + 1) <= bottom - top else HEIGHT
    y = top + ((bottom - top) - len(lines) * pitch + 1) // 2
    for i, line in enumerate(lines):
        _centered(img, y + i * pitch, line, 1, bold, fill, x0, x1)


# ---- the parts of a table screen ---------------------------------------------

def _header(img, view):
    """Score per seat (towers) or side (Twenty-Nine), double size; trump in the middle."""
    if view.towers:
        labels = [_short(n, 5) for n in view.seats]
    else:
        labels = [f"{_short(view.seats[i], 2)}+{_short(view.seats[i + 2], 2)}" for i in (0, 1)]
    for side in (0, 1):
        label, score = labels[side], str(view.score[side])
        lw, sw = text_width(label), text_width(score, BIG)
        x = 0 if side == 0 else W - lw - 2 - sw
        draw_text(img, (x, 4), label)
        draw_text(img, (x + lw + 2, 0), score, BIG)
    if isinstance(view.trump, int):
        _centered(img, 0, SUIT_SYMBOLS[view.trump], BIG)
    elif view.trump == "hidden":
        img.paste(1, (W // 2 - 7, 0, W // 2 + 7, 14))
        _centered(img, 3, "?", 1, True, fill=0)


def _details(img, view):
    """Two small lines: dealer and hand size / bid; bidder and for 2 / tricks or points."""
    seat = lambda i: _short(view.seats[i], 5)  # noqa: E731
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
            right1 = f"{who} {view.bid}" + (f" ×{view.double}" if view.double > 1 else "")
        left2 = "Pts " + "-".join(map(str, view.points)) if view.points else ""
        right2 = f"Trick {view.trick_no}" if view.trick_no else ""
    if view.extra:
        left2 = " ".join(filter(None, [left2, *view.extra]))
    draw_text(img, (0, 15), left1)
    _right(img, 15, right1)
    draw_text(img, (0, 23), left2)
    _right(img, 23, right2)


def _table(img, view, cards, top=31):
    """Seat columns: the seat's name (inverted for the seat to act) over its card, double size."""
    n = len(view.seats)
    colw = W // n
    shown = dict(cards)
    for s in range(n):
        x0 = s * colw
        name = _short(view.seats[s], 5)
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
    if p == "match-over" and view.winner:
        names = "+".join(_short(view.seats[s]) for s in view.winner)
        return [(f"{names} win" + ("s!" if len(view.winner) == 1 else "!"), BIG)]
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
        draw_text(img, (x, y), t, s)
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
    _wrap_block(img, alert.text, 24, H - 5, bold_first=True, fill=fill, x0=5, x1=W - 5)


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
        else:
            _centered(img, y + 3, item, 1, True, fill=fill)
    if first > 0:
        draw_text(img, (W - 6, 10), "^", fill=0 if menu.selected == first else 1)
    if first + rows < len(menu.items):
        last = first + rows - 1
        draw_text(img, (W - 6, 10 + rows * pitch - 8), "v", fill=0 if menu.selected == last else 1)
