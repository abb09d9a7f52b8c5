"""The table in play, for the Now page: what the OLED shows.

While the box runs, the daemon writes each frame's :class:`~assistant.box.view.View` to its
screen file (:mod:`assistant.box.screen_file`): the alerts, the last trick and its winner, the
menus, exactly as on the OLED. It is used when it belongs to the journal's latest match at its
latest row. Otherwise (the box stopped, or the file lags the journal for a moment) the table is
rebuilt from the journal's rows and the table code's own View (``table_view.build_view``): the
same public fields, without what only the running box knows (alerts, the last trick). Either way
only the View's fields go out, never the engine: a face-down trump is "hidden", a scan is a
count, a towers discard is never named.
"""
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action


def view_of(rec, lines, journal=None):
    """The View of a match in play from its journal lines. ``journal`` (read-only) gives the
    table its settings (deal scan), as the box's own table reads them."""
    from assistant.box.table import Table
    match = Match(rec.game, rec.seats, rec.options)
    for n, line in enumerate(lines, 1):
        try:
            match.apply(parse_action(line.split(), rec.game, match.seats, n))
        except (ScenarioError, Refused):
            break
    table = Table(journal, {}, game=rec.game, match=match)  # never applies: nothing is written
    return table.view()
