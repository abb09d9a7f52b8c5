"""The HTML pages: Now, Matches, one match, Players. Every name is escaped; no inline script or
style (the Content-Security-Policy allows only this box's own files)."""
import time
from html import escape

from assistant.rules.cards import SUIT_SYMBOLS, SUITS, CardError, is_red, parse_suit
from assistant.rules.match import ENGINES, engine_class
from assistant.box.stats import ABANDONED, FINISHED, IN_PLAY
from assistant.box.table_view import desk
from assistant.box.view import ALERT_TITLES
from assistant.box.words import choice_parts
from assistant.web.svg import line_chart

NAV = (("/", "Now"), ("/matches", "Matches"), ("/players", "Players"))
GAME_NAMES = {game: engine_class(game).title for game in ENGINES}  # as the engines name them


def page(title, here, body, script=None, nav=NAV):
    """``nav``: the header's links, the box's own by default (the club's board has its own)."""
    links = "".join(f'<a href="{href}"{" aria-current=page" if href == here else ""}>{name}</a>'
                    for href, name in nav)
    js = f'<script src="/static/{script}" defer></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)} · card-assistant</title><link rel="icon" href="data:,">'
            f'<link rel="stylesheet" href="/static/style.css">{js}</head><body>'
            f'<header><strong>card-assistant</strong>{links}</header><main>{body}</main></body></html>')


def when(t):
    """The date and time in this machine's zone, named (``2026-12-01 17:01 CET``): a box or board
    whose zone was never set shows UTC, and says so, not a time that looks local."""
    return escape(time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(t)).strip()) if t else ""


def signed(v):
    """A score as a person reads it: a negative one (``scoring=pagat``) with a minus sign, not a
    hyphen that an en dash beside it turned into ``-1–-3``."""
    return f"−{-v}" if v < 0 else str(v)


def score_pair(score):
    """``3–5``; with a negative score spaced, ``−1 – −3``."""
    a, b = (signed(v) for v in score)
    return f"{a} – {b}" if min(score) < 0 else f"{a}–{b}"


def score_words(rec):
    """``Ann 3 – 5 Bob``: each side's score beside its name."""
    a, b = (escape(rec.side_name(s)) for s in (0, 1))
    return f"{a} {signed(rec.score[0])} – {signed(rec.score[1])} {b}"


def house_rules(rec):
    """The house rules a match was played under, in the screen's words (a score of -6 means
    nothing to a reader who is not told the match used pagat scoring); "" for none."""
    if not rec.options:
        return ""
    label = desk(rec.game).option_label
    return f'<p>House rules: {escape(", ".join(label(k, v) for k, v in rec.options.items()))}</p>'


def score_cell(rec, narrow=False):
    """Each side and its score on a line of its own, the winner's in bold (short enough for a
    phone); for a match the journal kept no action of, those words (never 0–0). ``narrow``: a
    match not finished says so under its score where a phone has no room for the State column
    (the style sheet shows it there only)."""
    state = f'<span class="narrow"><br>{state_cell(rec)}</span>' if narrow and rec.state != FINISHED else ""
    if rec.note:  # the state too: a phone hides its column, and "abandoned" was said nowhere
        return f'{escape(", ".join(rec.seats))}: <span class="warn">{escape(rec.note)}</span>' + state
    return "<br>".join(side_cell(rec, s) for s in (0, 1)) + state


def side_cell(rec, s):
    """A side's names and score, bold if it won: a partnership may break after its "+" (two long
    names on one unbreakable line pushed a phone's Matches table 75 px past the screen), never
    inside a name or between the last name and its score."""
    *firsts, last = rec.sides()[s]
    head = "".join(f'<span class="nw">{escape(n)} +</span> ' for n in firsts)
    won = ' class="won"' if rec.winner_side == s else ""
    return f'<span{won}>{head}<span class="nw">{escape(last)} {signed(rec.score[s])}</span></span>'


def when_cell(t):
    """The date, the time and its zone, each unbroken (a narrow column puts each under the one
    before)."""
    date, _, rest = when(t).partition(" ")
    if not date:
        return ""
    year, _, day = date.partition("-")  # a phone has no room for the year (the style sheet hides it)
    return f'<span class="nw"><span class="year">{year}-</span>{day}</span> ' + " ".join(
        f'<span class="nw">{part}</span>' for part in rest.split(" "))


def state_cell(rec):
    cls = rec.state.replace(" ", "-")
    return f'<span class="state-{cls}">{escape(rec.state)}</span>'


SUIT_SIGNS = dict(zip(SUITS, SUIT_SYMBOLS))  # the screen file names a suit by its letter (rules.cards)


def _title(kind):
    """An alert's title as the OLED has it in full (the style sheet sets it in capitals)."""
    return ALERT_TITLES.get(kind, ALERT_TITLES["info"])[0]


def _red(label):
    try:
        return is_red(parse_suit(label[-1:]))
    except CardError:
        return False


def _card(c, cls=""):
    red = " red" if _red(c["label"]) else ""
    return f'<span class="card{red}{cls}">{escape(c["label"])}</span>'


def _details(v):
    """The OLED's two lines of details, in words: dealer, hand size, who made trump, bid,
    tricks or points, the trick number and the public notes."""
    out = []
    if v["dealer"]:
        out.append(f"Dealer: {v['dealer']}")
    if v["hand_size"]:
        out.append(f"Hand of {v['hand_size']}")
    if v["bid"] is not None:
        who = f"{v['bidder']} bid" if v["bidder"] else "High bid"
        target = f" (needs {v['target']})" if v["target"] not in (None, v["bid"]) else ""
        out.append(f"{who} {v['bid']}{target}" + (f" ×{v['double']}" if v["double"] > 1 else ""))
    elif v["bidder"]:
        out.append(f"{v['bidder']} for 2" if v["for_two"] else f"Trump by {v['bidder']}")
    if v["tricks"]:
        out.append("Tricks " + "–".join(map(str, v["tricks"])))
    if v["points"]:
        out.append("Points " + "–".join(map(str, v["points"])))
    if v["trick_no"]:
        out.append(f"Trick {v['trick_no']}")
    out += v["extra"]
    return out


def prompt_line(line):
    """A line of the box's prompt; the choice the screen is on (the OLED's ``Ann < Accept >``, its
    brackets saying that Left and Right change it) as a choice, marked, not as those brackets."""
    parts = choice_parts(line)
    if parts is None:
        return escape(line)
    who, label = (escape(p) for p in parts)
    return (f'{who}{"" if who.endswith("?") else ":"} <span class="choice" title="The choice on the box\'s screen now: '
            f'Left and Right change it, OK takes it">{label}</span>')


def board_html(now):
    """The Now board: what the OLED shows, from the View's fields (now.js puts a new one in
    place when /now/board's version changed). An alert is drawn over the table, as on the OLED."""
    v = now.get("view")
    if not v:
        return f'<p class="quiet">{escape(now["message"])}</p>'
    parts = []
    if v["alert"]:
        a = v["alert"]
        parts.append(f'<div class="alert alert-{escape(a["kind"])}" role="alert"><strong>'
                     f'{escape(_title(a["kind"]))}</strong> {escape(a["text"])}</div>')
    if v["menu"]:
        m = v["menu"]
        items = "".join(f'<li{" class=selected" if i == m["selected"] else ""}>{escape(item)}</li>'
                        for i, item in enumerate(m["items"]))
        parts.append(f'<p class="quiet">The box\'s menu: {escape(m["title"])}</p><ol class="menu">{items}</ol>')
        return "".join(parts)
    game = GAME_NAMES.get(v["game"], v["game"])
    head = f"Match {now['id']} · {game}" if now.get("id") else game
    trump = {"hidden": "Trump: face down", None: ""}.get(v["trump"], f"Trump {SUIT_SIGNS.get(v['trump'], '')}")
    parts.append(f'<p class="quiet">{escape(head)}</p>')
    parts.append('<p class="score">' + "<span>" + "</span><span>".join(
        f"{escape(n)} <b>{signed(s)}</b>" for n, s in zip(v["sides"], v["score"])) + "</span>"
        + (f'<span class="trump">{escape(trump)}</span>' if trump else "") + "</p>")
    details = _details(v)
    if details:
        parts.append(f'<p class="details">{escape(" · ".join(details))}</p>')
    if v["up_card"] and v["phase"] in ("upcard", "trump1", "discard"):
        parts.append(f'<p class="body">Up-card {_card(v["up_card"])}</p>')
    if v["turned_down"] and v["phase"] == "trump2":
        parts.append(f'<p class="body">Not {SUIT_SIGNS.get(v["turned_down"], "")}</p>')
    cards = v["flipped"] if v["phase"] == "flip" else v["trick"] if v["phase"] == "play" else []
    if v["phase"] in ("flip", "play"):
        by_seat = {c["seat"]: c for c in cards}
        cols = "".join(
            f'<div class="seat{" turn" if n == v["turn"] else ""}"><span class="name">{escape(n)}</span>'
            + (_card(by_seat[n]) if n in by_seat else '<span class="card empty"></span>') + "</div>"
            for n in v["seats"])
        parts.append(f'<div class="table">{cols}</div>')
    parts += [f'<p class="prompt">{prompt_line(line)}</p>' for line in v["prompt"]]
    if now.get("source") == "journal" and now.get("stopped"):
        parts.append(f'<p class="quiet">The box stopped being heard at {when(now["stopped"])}: it ended '
                     'without stopping (killed, or the power cut). Rebuilt from the journal, so its '
                     'alerts and the last trick are not shown.</p>')
    elif now.get("source") == "journal":
        parts.append('<p class="quiet">Rebuilt from the journal: the box is not running (or is a '
                     'moment behind), so its alerts and the last trick are not shown.</p>')
    return "".join(parts)


def now_page(now):
    body = (f'<h1>Now</h1><div id="board" class="board" data-version="{escape(now["version"])}" aria-live="polite">'
            f'{board_html(now)}</div><p class="quiet">What the box\'s screen shows; it updates by itself.</p>')
    return page("Now", "/", body, script="now.js")


def not_found_page(what, nav=NAV, listed=("/matches", "Matches")):
    """A page that is not there, with the header's links to the pages that are (a bare line of
    text left a phone on a dead end); ``listed``: the page that lists every match."""
    body = (f'<h1>Not found</h1><p>{escape(what)}</p>'
            f'<p class="quiet">Every match is listed under <a href="{listed[0]}">{escape(listed[1])}</a>.</p>')
    return page("Not found", None, body, nav=nav)


PER_PAGE = 100  # matches a page of Matches lists: 5,000 on one page were 1.8 MB for a phone


def pages_of(records):
    """How many pages of Matches ``records`` fill (at least 1)."""
    return max(1, -(-len(records) // PER_PAGE))


def matches_page(records, number=1):
    """Page ``number`` of the matches, newest first, ``PER_PAGE`` a page, with links to the newer
    and older pages; ``number`` must be one of ``pages_of(records)``."""
    newest_first = records[::-1][(number - 1) * PER_PAGE:number * PER_PAGE]
    rows = "".join(
        f'<tr><td><a href="/matches/{r.id}">{r.id}</a></td><td>{GAME_NAMES[r.game]}</td>'
        f'<td>{score_cell(r, narrow=True)}</td>'
        f'<td class="wide">{escape(" and ".join(r.winner or ()))}</td><td class="wide">{state_cell(r)}</td>'
        f'<td>{when_cell(r.started)}</td></tr>'
        for r in newest_first)
    last = pages_of(records)
    links = []
    if number > 1:
        links.append(f'<a href="/matches{"" if number == 2 else f"?page={number - 1}"}">Newer matches</a>')
    if number < last:
        links.append(f'<a href="/matches?page={number + 1}">Older matches</a>')
    # the matches' own numbers, as the # column has them (their places in the list, newest first,
    # read "Matches 1 to 100" above #5000 to #4901)
    shown = (f'<p class="quiet">Matches {newest_first[0].id} to {newest_first[-1].id}, newest first, of '
             f'{len(records)} in all (page {number} of {last}).</p>' if last > 1 else "")
    nav = f'<p class="pages">{" · ".join(links)}</p>' if links else ""
    body = ("<h1>Matches</h1>" + (
        shown + '<div class="scroll"><table><tr><th>#</th><th>Game</th><th>Score</th><th class="wide">Winner</th>'
        f'<th class="wide">State</th><th>Started</th></tr>{rows}</table></div>' + nav if records else
        '<p class="quiet">No match in the journal yet.</p>'))
    return page("Matches" if number == 1 else f"Matches, page {number}", "/matches", body)


def match_page(rec, nav=NAV, download=True, newest=False, head=None):
    """One match; ``download``: its scenario file is offered (a box's page: the board has none),
    not for the journal's ``newest`` match (an undo can take back its end); ``head``: the heading
    (the board's names the table)."""
    sides = [rec.side_name(s) for s in (0, 1)]
    series = [(sides[s], [0] + [h.score[s] for h in rec.hands]) for s in (0, 1)]
    hands = "".join(f"<tr><td>{escape(h.words)}</td><td class=n>{score_pair(h.score)}</td></tr>"
                    for h in rec.hands)
    hand = desk(rec.game).HAND  # the rulebook's word: a towers hand, a Twenty-Nine round
    reneges = "".join(f"<li>{escape(r['seat'])}, {hand} {r['hand']}, trick {r['trick']}</li>" for r in rec.reneges)
    head = head or f"Match {rec.id}: {GAME_NAMES[rec.game]}"
    if not download:
        download = ""
    elif rec.state == IN_PLAY or newest:
        download = ('<p class="quiet">The scenario file can be downloaded once the match is over and the '
                    'next one has begun: until then it would show cards hidden at the table (an undo '
                    'can take back the end of the box\'s newest match).</p>')
    else:
        download = f'<p><a href="/api/matches/{rec.id}/scenario" download>Download the scenario file</a> (the bug report)</p>'
    ended = f" · finished {when(rec.finished)}" if rec.finished else ""
    body = (f"<h1>{escape(head)}</h1><p>{state_cell(rec)} · started {when(rec.started)}{ended} · "
            f"{escape(', '.join(rec.seats))}</p>"
            + (f'<p class="warn">{escape(rec.note[:1].upper() + rec.note[1:])}.</p>' if rec.note
               else f'<p class="score">{score_words(rec)}</p>')
            + (f"<p>Winner: {escape(' and '.join(rec.winner))}</p>" if rec.winner else "") + house_rules(rec)
            + (f'<p class="warn">{escape(rec.problem)}</p>' if rec.problem else "")
            + "<h2>Score through the match</h2>" + line_chart(series, f"score after each {hand}", f"{hand}s")
            + f"<h2>{hand.capitalize()} by {hand}</h2>"
            + (f'<div class="scroll"><table><tr><th>{hand.capitalize()}</th><th class=n>Score</th></tr>{hands}</table></div>'
               if hands else f'<p class="quiet">No {hand} scored yet.</p>')
            + "<h2>Reneges</h2>" + (f"<ul>{reneges}</ul>" if reneges else '<p class="quiet">None proven.</p>')
            + download)
    return page(head, "/matches", body, nav=nav)


COLUMNS = {  # (figure, heading) in order; a figure the table's rows lack is left out
    "towers": (("played", "Played"), ("won", "Won"), ("win_rate", "Win %"), ("scored", "Towers won"),
               ("for2", "For 2 made/declared"), ("reneges", "Reneges"), ("claims_won", "Claims won"),
               ("accusations", "Accusations true/false"), ("average_hands", "Hands a match"),
               ("average_minutes", "Minutes a match"), ("abandoned", "Abandoned")),
    "twenty-nine": (("played", "Played"), ("won", "Won"), ("win_rate", "Win %"), ("hands_won", "Rounds won"),
                    ("bids", "Bids made/missed"), ("reneges", "Reneges"), ("claims_won", "Claims won"),
                    ("accusations", "Accusations true/false"), ("average_hands", "Rounds a match"),
                    ("average_minutes", "Minutes a match"), ("abandoned", "Abandoned")),
}
NEEDS = {"for2": "for2_declared", "accusations": "accusations_true"}


def cell(f, key):
    if key == "win_rate":
        return "" if f["win_rate"] is None else f"{round(100 * f['win_rate'])}%"
    if key == "for2":
        return f"{f['for2_made']}/{f['for2_declared']}"
    if key == "accusations":
        return f"{f['accusations_true']}/{f['accusations_false']}"
    if key == "bids":  # the totals; by level in a table of its own (bids_table)
        return "{}/{}".format(*(sum(mx[k] for mx in f["bids"].values()) for k in (0, 1)))
    v = f[key]
    if key == "average_minutes" and v is not None and v < 1:
        return "&lt;1"
    return "" if v is None else str(v)


def _order(figures):
    """Most wins first; of as many wins, the fewer matches lost (2 of 2 above 2 of 5); then by name."""
    return sorted(figures.items(), key=lambda kv: (-kv[1]["won"], kv[1]["played"], kv[0]))


def table(game, figures, who):
    order = _order(figures)
    some = order[0][1] if order else {}
    cols = [(k, label) for k, label in COLUMNS[game] if NEEDS.get(k, k) in some]
    head = f"<tr><th>{who}</th>" + "".join(f"<th class=n>{label}</th>" for _, label in cols) + "</tr>"
    rows = "".join(f"<tr><td>{escape(name)}</td>" + "".join(f"<td class=n>{cell(f, k)}</td>" for k, _ in cols)
                   + "</tr>" for name, f in order)
    return f'<div class="scroll"><table>{head}{rows}</table></div>'


def bids_table(figures, who):
    """Twenty-Nine bids by level, one column a level someone won the auction at, one line a
    player (a phone scrolls it sideways; in one cell the levels broke over many lines)."""
    levels = sorted({lvl for f in figures.values() for lvl in f["bids"]}, key=int)
    rows = "".join(f"<tr><td>{escape(name)}</td>" + "".join(
        "<td class=n>{}</td>".format("{}/{}".format(*f["bids"][lvl]) if lvl in f["bids"] else "")
        for lvl in levels) + "</tr>" for name, f in _order(figures) if f["bids"])
    if not rows:
        return ""
    head = f"<tr><th>{who}</th>" + "".join(f"<th class=n>{lvl}</th>" for lvl in levels) + "</tr>"
    return f'<div class="scroll"><table>{head}{rows}</table></div>'


NOTES = {  # what a figure of the standings counts, under its table
    "towers": ("For 2 made/declared: the hands a player declared for 2 (T4), and of those the ones "
               "they swept for two towers (T6); a hand a claim or an accusation settled counts as "
               "declared, not made. Towers won: the towers each player's score counts."),
    "twenty-nine": ("Bids made/missed: of the rounds a player (or partnership) won the auction, "
                    "those whose bid was made and those missed (N9); the tables below give them by bid "
                    "(2/1 under 20: two bids of 20 made, one missed). A round ended by a claim or an "
                    "accusation is counted neither made nor missed: the penalty takes the place of the "
                    "round's own result (N11). Rounds won: the rounds whose result or penalty went the "
                    "side's way."),
}


def on_one_axis(series):
    """Each side's ``[(match, wins so far)]`` on one x axis, the game's finished matches in order,
    so that lines line up in time: a point at each match the side played, its line starting at 0
    just before the first and held level to the last match of the axis; None elsewhere (no point,
    so a club of 40 players over 2,000 matches draws as many points as matches they played).

    >>> on_one_axis([("Ann", [(1, 1), (5, 2)]), ("Bob", [(2, 0), (5, 0)]), ("Cy", [(2, 1)])])
    [('Ann', [0, 1, None, 2]), ('Bob', [None, 0, 0, 0]), ('Cy', [None, 0, 1, 1])]
    """
    order = sorted({k for _, s in series for k, _ in s})  # match ids (the board's: sortable keys)
    at = {k: i + 1 for i, k in enumerate(order)}
    out = []
    for name, s in series:
        ys = [None] * (len(order) + 1)
        ys[at[s[0][0]] - 1] = 0
        for k, wins in s:
            ys[at[k]] = wins
        ys[-1] = s[-1][1]
        out.append((name, ys))
    return out


def players_page(standings, over_time, nav=NAV, note="", empty="No match in the journal yet."):
    """``note``: words under the heading (the board: why guests are left out); ``empty``: the
    words when there are no standings."""
    parts = ["<h1>Players</h1>" + note]
    if not standings:
        parts.append(f'<p class="quiet">{escape(empty)}</p>')
    for game, tables in standings.items():
        parts.append(f"<h2>{GAME_NAMES[game]}: standings</h2>" + table(game, tables["players"], "Player")
                     + f'<p class="quiet">{escape(NOTES[game])}</p>')
        if tables["partnerships"]:
            parts.append(f"<h2>{GAME_NAMES[game]}: partnerships</h2>"
                         + table(game, tables["partnerships"], "Partnership")
                         + '<p class="quiet">Claims and accusations are a partnership\'s (either partner '
                           'may make them), so they are counted here, not per player.</p>')
        for key, who in (("players", "Player"), ("partnerships", "Partnership")):
            bids = bids_table(tables[key], who) if engine_class(game).has_auction else ""
            if bids:
                parts.append(f"<h2>{GAME_NAMES[game]}: bids made/missed by level ({key})</h2>" + bids)
        series = sorted(over_time.get(game, {}).items())
        if series:
            parts.append(f"<h2>{GAME_NAMES[game]}: wins over time</h2>"
                         + line_chart(on_one_axis(series), f"wins after each {GAME_NAMES[game]} match",
                                      "matches")
                         + f'<p class="quiet">The finished {escape(GAME_NAMES[game])} matches, oldest first: '
                           'a point for each match a player played, from 0 just before their first.</p>')
    return page("Players", "/players", "".join(parts), nav=nav)
