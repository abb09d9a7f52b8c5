"""Line charts drawn on the server as SVG: no JavaScript library, every label escaped.

>>> svg = line_chart([("Ann", [0, 1, 2]), ("<b>", [0, 0, 1])], "score")
>>> svg.count("<polyline"), "&lt;b&gt;" in svg, "<b>" in svg
(2, True, False)
"""
from html import escape

COLOURS = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457")
DASHES = ("", "6 3", "2 2", "8 3 2 3")  # past 8 lines the colours come round again, dashed


def stroke(k):
    """Line ``k``'s colour and dash pattern: 32 lines, no two alike (a club's ninth player was
    drawn exactly as its first).

    >>> len({stroke(k) for k in range(32)}), stroke(0), stroke(8)
    (32, ('#1565c0', ''), ('#1565c0', '6 3'))
    """
    return COLOURS[k % len(COLOURS)], DASHES[(k // len(COLOURS)) % len(DASHES)]
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 320, 180, 28, 8, 10, 22


def counted(n, plural):
    """``3 matches``, ``1 match``, ``1 hand``: the x axis's count in words.

    >>> counted(1, "matches"), counted(2, "hands"), counted(1, "hands")
    ('1 match', '2 hands', '1 hand')
    """
    word = plural if n != 1 else plural[:-2] if plural.endswith(("ches", "shes")) else plural.removesuffix("s")
    return f"{n} {word}"


MAX_DOTS = 60  # a line of more points has no dot on each: 5 units wide, they would only smear it


def drawn(points):
    """The ``(x, y)`` points of a line that its drawing needs: all of them while there are no more
    than the chart is units wide; else, of each unit's column, the first, the highest, the lowest
    and the last (the line looks the same). A year's wins over time at 5,000 matches drew 4,822
    points, and as many dots, on a chart 320 units wide: 320 kB each, a 704 kB Players page.

    >>> drawn([(0.0, 5.0), (0.2, 1.0), (0.4, 9.0), (0.6, 4.0), (1.5, 0.0)])
    [(0.0, 5.0), (0.2, 1.0), (0.4, 9.0), (0.6, 4.0), (1.5, 0.0)]
    >>> line = [(i / 100, i % 7) for i in range(5000)]  # 50 units wide
    >>> kept = drawn(line)
    >>> len(kept) <= 4 * 50, kept[0] == line[0], kept[-1] == line[-1], max(y for _, y in kept)
    (True, True, True, 6)
    """
    if len(points) <= W:
        return points
    out, column = [], []
    for p in points + [(None, None)]:
        if column and (p[0] is None or int(p[0]) != int(column[0][0])):
            keep = {0, len(column) - 1, min(range(len(column)), key=lambda k: column[k][1]),
                    max(range(len(column)), key=lambda k: column[k][1])}
            out.extend(column[k] for k in sorted(keep))
            column = []
        column.append(p)
    return out


def line_chart(series, title, xlabel=""):
    """``series``: ``[(name, [y0, y1, ...])]``, all of one length or shorter; an SVG element. A
    ``None`` y is no point: a line that begins later on the x axis starts with them.

    >>> svg = line_chart([("Ann", [0, 1, 2]), ("Bob", [None, 0, 0])], "wins")
    >>> svg.count("<circle"), "NaN" in svg
    (5, False)
    """
    n = max((len(ys) for _, ys in series), default=0)
    top = max([1] + [y for _, ys in series for y in ys if y is not None])
    bottom = min([0] + [y for _, ys in series for y in ys if y is not None])
    span_x = max(n - 1, 1)
    span_y = max(top - bottom, 1)

    def x(i):
        return PAD_L + (W - PAD_L - PAD_R) * i / span_x

    def y(v):
        return PAD_T + (H - PAD_T - PAD_B) * (top - v) / span_y

    out = [f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}" '
           f'xmlns="http://www.w3.org/2000/svg" data-points="{sum(y is not None for _, ys in series for y in ys)}">',
           f'<title>{escape(title)}</title>']
    for v in sorted({bottom, top, 0}):
        out.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                   f'<text x="{PAD_L - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    out.append(f'<text x="{W - PAD_R}" y="{H - 6}" text-anchor="end">{escape(counted(max(n - 1, 0), xlabel))}</text>')
    strokes = [stroke(k) for k in range(len(series))]
    for (name, ys), (colour, dash) in zip(series, strokes):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        shown = [(x(i), y(v)) for i, v in enumerate(ys) if v is not None]
        points = " ".join(f"{px:.1f},{py:.1f}" for px, py in drawn(shown))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashed} points="{points}">'
                   f'<title>{escape(str(name))}</title></polyline>')
        if len(shown) <= MAX_DOTS:
            out.extend(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{colour}"/>' for px, py in shown)
    out.append("</svg>")
    legend = "".join(f'<span class="key"><svg width="22" height="12" aria-hidden="true"><line x1="1" x2="21" '
                     f'y1="6" y2="6" stroke="{colour}" stroke-width="3"'
                     + (f' stroke-dasharray="{dash}"' if dash else "")
                     + f'/></svg> {escape(str(name))}</span>' for (name, _), (colour, dash) in zip(series, strokes))
    return f'<figure>{"".join(out)}<figcaption>{legend}</figcaption></figure>'
