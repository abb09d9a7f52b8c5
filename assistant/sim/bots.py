"""Bots at the simulated table: whole matches through the full stack.

The game bots (``TowersBot``, ``TwentyNineBot``) decide what the table does;
this module does it the way people would: cards are tapped on the virtual
pads (through the pty and the box's reader), decisions are made with the
mock buttons (left/right to the choice on the screen, OK), claims through the
menu (hold OK). After every action it checks that the box applied exactly that
action, and after every match that every injected renege was proven and that
no renege was proven that was not injected. A match found in play (a run killed, a
match left at the keyboard) is finished first, its hand in play by
:class:`~assistant.sim.bot_resume.ResumeBot`.
"""
import importlib
import random
import time

from assistant.rules.match import engine_class
from assistant.sim.bot_resume import ResumeBot
from assistant.box.table_view import choices_for, hand_open

MENU_KINDS = ("claim", "accuse", "finish", "double", "redouble", "pair", "undo")
# the bot of each game, as rules.match.ENGINES names its engine (imported when first used)
BOTS = {"towers": ("assistant.sim.bot_towers", "TowersBot"),
        "twenty-nine": ("assistant.sim.bot_twentynine", "TwentyNineBot")}


def bot_class(game):
    """The bot class of ``game``: it answers ``at_table(seed, renege_rate, known_hands)``,
    ``scans_hands`` (else ``no_scan`` says why) and ``next_action(engine)``."""
    module, name = BOTS[game]
    return getattr(importlib.import_module(module), name)


def table_bot(game, seed, renege_rate, known_hands=False):
    """The bot that plays ``game`` at the simulated table."""
    return bot_class(game).at_table(seed, renege_rate, known_hands=known_hands)


class SimError(AssertionError):
    """The box did something other than what the bot did at the table."""


def pad_for(table, seat):
    """The pad a seat taps on: its own, else the centre pad, else pad 0."""
    pads = table.pads
    role = f"P{seat + 1}" if seat is not None else "centre"
    if role in pads:
        return pads.index(role)
    if "centre" in pads:
        return pads.index("centre")
    seats = len(table.match.seats) if table.match is not None else 4
    spare = [i for i, r in enumerate(pads) if r != "centre" and int(r[1:]) > seats]  # acts as the centre
    return spare[0] if spare else 0


def _navigate(sim, count, current, target):
    steps = (target - current) % count
    name = "right"
    if steps > count // 2:
        steps, name = count - steps, "left"
    for _ in range(steps):
        sim.press(name)


def choose(sim, action):
    """Press left/right until ``action`` is the selected choice, then OK."""
    while sim.table.alert is not None or sim.table.result is not None:
        sim.press("back")  # read the alert or the hand's result, then Back, as a player would
    options = choices_for(sim.table)
    for i, (_, a) in enumerate(options):
        if a == action:
            _navigate(sim, len(options), sim.table.cursor % len(options), i)
            sim.press("ok")
            return
    labels = [label for label, _ in options]
    raise SimError(f"the screen offers {labels}, not {_words(action, sim.table.match)}")


def menu_pick(sim, want):
    """Open the menu (hold OK) and pick the first item whose label starts with ``want``."""
    sim.hold("ok")
    title, items, sel = sim.table.menu
    for i, (label, _) in enumerate(items):
        if label.startswith(want):
            _navigate(sim, len(items), sel, i)
            sim.press("ok")
            return
    sim.press("back")
    raise SimError(f"the menu has no {want!r}: {[label for label, _ in items]}")


def start_match(sim, game):
    t = sim.table
    if t.menu is None:
        menu_pick(sim, "New match")
        if t.menu[0] == "End this match?":  # a match left in play (an interrupted run): end it
            menu_pick_open(sim, "Yes, new match")
    rules = engine_class(game)
    menu_pick_open(sim, rules.title)
    if rules.OPTIONS:  # the house rules from the config are offered: start with them
        menu_pick_open(sim, f"Start {rules.title}")
    names = list(sim.players.values())
    while t.seating is not None:  # each seat taps a player tag, in turn; OK seats a guest
        seated = t.seating[2]
        free = [n for n in names if n not in seated]
        if free:
            sim.tap_player(0, free[0])
        else:
            sim.press("ok")


def menu_pick_open(sim, want):
    """Pick from the menu already on the screen."""
    title, items, sel = sim.table.menu
    labels = [label for label, _ in items]
    i = labels.index(want)
    _navigate(sim, len(items), sel, i)
    sim.press("ok")


def perform(sim, action):
    """Do ``action`` at the simulated table with pads and buttons."""
    t = sim.table
    e = t.match.engine
    kind = action.kind
    if kind == "flip":
        for c in action.cards:
            sim.tap(pad_for(t, None), c)
    elif kind == "upcard":
        sim.tap(pad_for(t, None), action.card)
    elif kind == "play":
        sim.tap(pad_for(t, e.to_act), action.card)
    elif kind == "discard":
        sim.tap(t.pads.index(f"P{e.dealer + 1}"), action.card)
    elif kind == "trump":
        sim.tap(pad_for(t, e.bidder), action.card)
    elif kind == "hand":  # deal scan: the player taps each card of their hand on their pad
        for c in action.cards:
            sim.tap(pad_for(t, action.seat), c)
    elif kind == "claim":
        menu_pick(sim, "Claim")
    elif kind == "finish":
        menu_pick(sim, "Finish round")
    elif kind in ("double", "redouble"):
        menu_pick(sim, kind.capitalize())
    elif kind == "pair":
        seat = e.to_act if action.seat is None else action.seat
        menu_pick(sim, f"Pair: {t.match.seats[seat]} ")
    elif kind in MENU_KINDS:
        raise SimError(f"the simulation's bots do not {kind}")
    else:
        choose(sim, action)


def run_bots(sim, game, matches, seed, renege_rate, claim_rate=0.5, out=print, pace=0.0):
    """Play ``matches`` whole matches; returns 0 when every injected renege was proven (or, with
    deal scan, refused at once). ``pace``: seconds to wait after each action (to watch them)."""
    rng = random.Random(seed)
    scan = sim.table.deal_scan
    playing = sim.table.match.game if in_play(sim) else None  # the bots finish it first
    for g in dict.fromkeys(filter(None, (playing, game))):
        if scan and cannot_scan(g):  # --deal-scan is refused with such a game: the folder keeps it on
            raise SimError(f"{cannot_scan(g)}, and deal scan is on in this state folder (kept from its "
                           f"menu): turn it off at the keyboard (hold OK, Deal scan) or give another "
                           f"--state-dir")
    total = dict(actions=0, injected=0, proven=0, false=0, missed=0, claims=0, refused=0)
    started = time.perf_counter()
    resumed = in_play(sim)
    for k in range(matches):
        earlier = 0  # reneges proven before the bots took the match over
        if k == 0 and resumed:
            m = sim.table.match
            out(resume_words(m, matches))
            earlier = len(m.engine.book.proven)
            while sim.table.menu is not None:  # a menu left up: Back leaves it
                sim.press("back")
            _play(sim, ResumeBot(sim.table, seed * 1000 + k), rng, claim_rate, total, 0.0, pace)
        else:
            was = sim.table.match
            start_match(sim, game)
            if sim.table.match is was or sim.table.match is None or sim.table.match.actions:
                # the box refused the new match (a full card, say): the bots deal only their own matches
                raise SimError(f"the box did not start a new match ({_alert(sim)})")
        match_game = sim.table.match.game
        bot = table_bot(match_game, seed * 1000 + k, 0.0 if scan else renege_rate, known_hands=scan)
        proven = _play(sim, bot, rng, claim_rate, total, renege_rate if scan else 0.0, pace)[earlier:]
        injected = [tuple(x) for x in bot.injected_log]
        got = [(r.seat, r.hand, r.trick) for r in proven]
        total["injected"] += len(injected)
        total["proven"] += len(got)
        total["false"] += len([r for r in got if r not in injected])
        total["missed"] += len([r for r in injected if r not in got])
        m = sim.table.match
        s = m.state()
        total["actions"] += len(m.actions)  # one kind of action everywhere: a line of the record
        score = " - ".join(f"{m.engine.side_name(side)} {v}" for side, v in enumerate(s["score"]))
        mid = sim.table.journal.match_id  # the web page's and the club board's number of it
        notes = ["resumed"] if k == 0 and resumed else []
        notes += [f"match {mid} in the journal and on the web page"] if mid not in (None, k + 1) else []
        named = f" ({'; '.join(notes)})" if notes else ""
        out(f"match {k + 1}{named}: {' and '.join(s['winner'])} won, {score}; "
            f"{len(m.actions)} actions recorded, reneges injected {len(injected)}, proven {len(got)}")
    elapsed = time.perf_counter() - started
    refused = f", illegal cards refused at once {total['refused']}" if scan else ""
    out(f"{game}: {matches} match{'es' if matches != 1 else ''}, {total['actions']} actions recorded through the full stack "
        f"in {elapsed:.1f} s; reneges injected {total['injected']}, proven {total['proven']}, "
        f"false alerts {total['false']}, unproven {total['missed']}; claims {total['claims']}{refused}")
    ok = total["injected"] == total["proven"] and not total["false"] and not total["missed"]
    return 0 if ok else 1


def in_play(sim):
    """True when the box resumed a match in play (a run killed, a match left at the keyboard):
    the bots finish it before they begin one."""
    t = sim.table
    return t.match is not None and t.match.engine.phase != "over" and t.seating is None


def resume_words(match, matches):
    """One plain line, said before the bots take over the match in play."""
    e = match.engine
    score = " - ".join(f"{e.side_name(side)} {v}" for side, v in enumerate(match.state()["score"]))
    hand = e.hand_no + (0 if e.hand_open else 1)  # (a hand being dealt or scanned is the next one)
    word = e.hand_word  # a Twenty-Nine hand is a round, as its screen and rules say
    where = "the flip for the first dealer" if e.phase == "flip" else f"{word} {hand}, {score}"
    rest = f"; it counts as the first of the {matches} matches" if matches > 1 else ""
    return (f"a {e.title} match is in play in this state folder ({where}): the bots finish it before "
            f"they begin one; they did not deal its {word} in play, so they play that {word} from what "
            f"the rules still allow, then deal the next as usual{rest}")


def scanning_games():
    """The games whose bots tap their hands with deal scan."""
    return [g for g in BOTS if bot_class(g).scans_hands]


def cannot_scan(game):
    """Why the bots cannot play ``game`` with deal scan, in words; None when they can."""
    if bot_class(game).scans_hands:
        return None
    return f"the bots scan hands in {' and '.join(scanning_games())} only ({bot_class(game).no_scan})"


def _try_renege(sim, bot, total):
    """Deal scan: tap a card that does not follow (the box knows the hand) and check it is
    refused at once, with a reason, and nothing applied (T9's correction)."""
    e = sim.table.match.engine
    seat, card = e.to_act, bot.failing_card(e)
    if card is None:
        return
    before = len(sim.table.match.actions)
    sim.tap(pad_for(sim.table, seat), card)
    alert = sim.table.alert
    if len(sim.table.match.actions) != before or alert is None or sim.table.alert_cause != "must-follow":
        raise SimError(f"an illegal card was not refused at once ({alert})")
    total["refused"] += 1


def _play(sim, bot, rng, claim_rate, total, try_rate=0.0, pace=0.0):
    m = sim.table.match
    while m.engine.phase != "over":
        e = m.engine
        if not hand_open(e) and e.hand_no and rng.random() < claim_rate and any(
                e.book.claimable(s) for s in range(2)):
            before = len(m.actions)
            menu_pick(sim, "Claim")
            _check(sim, before, "claim")
            total["claims"] += 1
            continue
        action = bot.next_action(e)
        if action is None:
            break
        if try_rate and action.kind == "play" and e.trick and rng.random() < try_rate:
            _try_renege(sim, bot, total)
        before = len(m.actions)
        perform(sim, action)
        _check(sim, before, action)
        if pace:
            time.sleep(pace)
    return list(m.engine.book.proven)


def _check(sim, before, action):
    m = sim.table.match
    if not isinstance(action, str) and action.kind == "flip":  # one tap, one flip line
        want = [type(action)("flip", cards=(c,)) for c in action.cards]
        if m.actions[before:] != want:
            took = " ".join(_words(a, m) for a in m.actions[before:]) or "nothing"
            raise SimError(f"the box took {took} for {_words(action, m)} ({_alert(sim)})")
        return
    if len(m.actions) != before + 1:
        raise SimError(f"the box did not take {_words(action, m)} ({_alert(sim)})")
    got = m.actions[-1]
    if not isinstance(action, str) and action.kind == "hand" and got.kind == "hand" and got.seat == action.seat \
            and set(action.cards) <= set(got.cards):
        return  # the cards tapped now completed a hand scanned before (ResumeBot)
    loose = ("claim", "double", "redouble", "pair")  # the menu names the seat the engine defaults to
    if got != action and not (got.kind == getattr(action, "kind", action) and got.kind in loose):
        raise SimError(f"the box took {_words(got, m)} for {_words(action, m)}")


def _alert(sim):
    return sim.table.alert.text if sim.table.alert else "no alert"


def _words(action, m):
    """The action in words for a message on the terminal: a hidden card is never named."""
    from assistant.box.loop import public_line
    return action if isinstance(action, str) else public_line(action, m.seats)
