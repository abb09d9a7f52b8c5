"""The table's menus: hold OK for the main menu; at a new match the game, its house rules, and the
seats by player tags.

Each item is a (label, callback) pair; where OK could change something a person did not
mean, the harmless item comes first ("Close", "No, play on", "Keep scanning"). The
games, their titles and house-rule labels come from the per-game desk modules
(:data:`assistant.box.table_view.DESKS`), the engines' titles and the rules' options, never
from a list here.
"""
from assistant.rules.match import engine_class
from assistant.rules.scenario import GAME_OPTIONS, GAMES, Action
from assistant.box.font import text_width
from assistant.box.journal import JournalError
from assistant.box.modes import GAME_MENU, MENU_ALERTS, MenuMode
from assistant.box.table_view import DESKS, desk


MENU_LINE = 128 - 6  # a menu item's room on the OLED, indented under the menu's title


def main_menu(table):
    """Hold OK (or OK at the match end). "Close" comes first, so a stray OK changes nothing."""
    items = [("Close", lambda: _close(table))]
    m = table.match
    if m is not None:
        e = m.engine
        d = table.desk
        over = e.phase == "over"
        if m.actions:
            items.append(("Undo last", lambda: table.apply(Action("undo"))))
        for side in (0, 1):
            for r in e.book.claimable(side)[-1:]:
                items.append((f"Claim: {m.seats[r.seat]}'s renege",
                              lambda s=side: table.apply(Action("claim", seat=s))))
        if not over:  # the game's own items (finish, double, pair) before the accusations
            items += d.menu_items(table)
        if e.hand_no:
            for seat in range(len(m.seats)):
                # at the match end only an accusation that can still change the result is offered
                if not over or e.book.unpenalised_against(seat):
                    items.append((f"Accuse {m.seats[seat]}",
                                  lambda s=seat: table.apply(Action("accuse", seat=s))))
        rules = d.rules_in_play(m.options)
        if rules:
            label = "House rules: " + ", ".join(rules)
            if text_width(label) > MENU_LINE:  # all five ran 378 pixels: OK on it lists them
                label = f"House rules: {len(rules)} on"
            items.append((label, lambda: show_rules(table)))
        items.append((f"Deal scan: {'on' if table.deal_scan else 'off'}", lambda: _toggle_scan(table)))
    over = m is None or m.engine.phase == "over"
    items.append(("New match", (lambda: game_menu(table)) if over else lambda: _confirm_new(table)))
    table.menu = MenuMode("Menu", tuple(items))


def _close(table):
    """Back to the table; with no match yet there is none, so back to the choice of game."""
    if table.match is None:
        table.seating = None
        game_menu(table)


def show_rules(table):
    table.set_alert("info", "House rules: " + ", ".join(table.desk.rules_in_play(table.match.options)),
                    "house-rules")


def _confirm_new(table):
    """Abandoning a match in play takes a second, deliberate OK."""
    table.menu = MenuMode("End this match?", (("No, play on", lambda: None),
                                              ("Yes, new match", lambda: game_menu(table))))


def _toggle_scan(table):
    """Deal scan on or off, kept in the journal so that a restart keeps it (issue 9 item 7)."""
    on = not table.deal_scan
    try:
        table.journal.set_setting("deal_scan", "on" if on else "off")
    except JournalError as e:
        table.set_alert("refused", str(e), "journal")
        return
    table.deal_scan = on
    table.scan.clear()
    words = "Deal scan on: players tap their hands on their own pads" if on else "Deal scan off"
    if table.match is not None and on and not table.scan.active():
        words += ", from the next deal"
    table.set_alert("info", words, "deal-scan")


def game_menu(table):
    """Which game: the one played last (or configured) is shown first."""
    games = list(DESKS)
    items = tuple((engine_class(g).title, lambda g=g: _chosen(table, g)) for g in games)
    sel = games.index(table.default_game) if table.default_game in games else 0
    table.menu = MenuMode(GAME_MENU, items, sel)


def seats_without_a_pad(pads, game):
    """The seats of ``game`` that could never tap a card on a box with ``pads``: no pad of their
    own and no centre (in towers a P3 or P4 pad acts as the centre)."""
    n = GAMES[game]
    if any(r == "centre" or int(r[1:]) > n for r in pads):
        return []
    return [f"P{i + 1}" for i in range(n) if f"P{i + 1}" not in pads]


def _chosen(table, game):
    missing = seats_without_a_pad(table.pads, game)
    if missing:  # a match begun would stop at the first card of a seat that cannot tap one
        game_menu(table)
        table.alert_refused(f"{engine_class(game).title} needs a pad for {', '.join(missing)} or a "
                            f"centre pad: this box has {', '.join(table.pads)}", "too-few-pads")
        return
    if GAME_OPTIONS[game]:  # a game with house rules: they are offered first
        options_menu(table, game, dict(table.default_options))
    else:
        table.new_match(game)


def options_menu(table, game, options, sel=0):
    """The house rules for the new match: OK on a rule switches it, then Start."""
    d = desk(game)
    items = [(f"Start {d.TITLE}", lambda: table.new_match(game, options))]
    for i, (key, values) in enumerate(GAME_OPTIONS[game].items(), 1):
        value = str(options.get(key, values[0]))
        nxt = values[(values.index(value) + 1) % len(values)] if value in values else values[0]
        items.append((d.option_label(key, value),
                      lambda k=key, v=nxt, i=i: options_menu(table, game, {**options, k: v}, i)))
    table.menu = MenuMode("House rules", tuple(items), sel)


def player_tag(table, name):
    """A player's tag: their seat while the seats are being taken, else a plain refusal."""
    if table.seating is None or table.menu is None:
        table.alert_refused(f"That is {name}'s player tag, not a card", "player-tag")
        return
    game, options, names = table.seating
    if name in names:
        table.alert_refused(f"{name} already has a seat", "player-tag")
        return
    if table.alert_cause in MENU_ALERTS:  # said of the seat before: the tag moves the seats on
        table.alert = None
    seat_menu(table, game, options, names + [name])


def seat_menu(table, game, options, names):
    """Each seat in turn taps a player tag; OK seats a guest, who keeps the seat's name."""
    seat = len(names)
    if seat == GAMES[game]:
        table.seating = None
        table.menu = None
        table.new_match(game, options, tuple(names))
        return
    guest = f"P{seat + 1}"
    table.seating = (game, options, names)
    table.menu = MenuMode(f"{guest}: tap player tag",
                          (("Guest", lambda: seat_menu(table, game, options, names + [guest])),))
