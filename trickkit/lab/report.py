"""Output of the design lab: terminal tables, CSV files and a self-contained HTML report.

The HTML report is one file with everything in it: its plots are PNG images made with
matplotlib and embedded as base64 ``data:`` URLs, so it can be mailed or archived as is.
matplotlib is an optional extra (``pip install 'trickkit[lab]'``); without it `write_html`
raises `PlotsUnavailable`, whose message says how to install it.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from collections.abc import Callable, Sequence
from typing import Any, Literal

from trickkit.errors import TrickkitError
from trickkit.lab import stats
from trickkit.lab.files import atomic_writer

__all__ = [
    "PlotsUnavailable",
    "comparison_csv",
    "comparison_html",
    "comparison_tables",
    "simulation_csv",
    "simulation_html",
]

INSTALL_HINT = "pip install 'trickkit[lab]'  (or: pip install matplotlib)"


class PlotsUnavailable(TrickkitError):
    """``--report`` needs matplotlib, which is not installed."""


def _pct(i: stats.Interval) -> str:
    return f"{i.estimate:.1%} ({i.low * 100:.1f}-{i.high * 100:.1f})"


def _num(i: stats.Interval, digits: int = 1) -> str:
    return f"{i.estimate:.{digits}f} ({i.low:.{digits}f}, {i.high:.{digits}f})"


def _signed(i: stats.Interval, pct: bool = False, digits: int = 1) -> str:
    """A difference and its interval (``pt``: percentage points), ``*`` when it excludes 0."""
    fmt: Callable[[float], str] = (lambda v: f"{v * 100:+.1f}") if pct else (lambda v: f"{v:+.{digits}f}")
    mark = " *" if i.excludes(0.0) else ""
    return f"{fmt(i.estimate)}{' pt' if pct else ''} ({fmt(i.low)}, {fmt(i.high)}){mark}"


def _p(test: Any) -> str:
    if test is None:
        return "-"
    return f"chi-square {test.statistic:.2f} on {test.df} df, p = {test.p_value:.3g}" + (
        " (few games: rough)" if test.expected < 5 else ""
    )


# ------------------------------------------------------------------ terminal


def comparison_tables(comp: Any) -> list[Any]:
    """``rich`` tables of a `trickkit.lab.compare.Comparison`: per seat, per game, and the
    paired differences from the baseline (``*``: the 95% interval excludes 0)."""
    from rich.table import Table
    from rich.text import Text

    seats = Table(title=Text(f"per seat: {comp.games} games per variant, seed {comp.seed} (95% intervals in brackets)"))
    columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
        ("variant", "left"),
        ("seat", "right"),
        ("win rate", "right"),
        ("mean score", "right"),
    )
    for name, justify in columns:
        seats.add_column(name, justify=justify)
    for v in comp.variants:
        for seat in range(v.players):
            seats.add_row(
                Text(v.label if seat == 0 else ""), str(seat), _pct(v.win_rate[seat]), _num(v.mean_score[seat])
            )
        for t, score in enumerate(v.team_mean_score or ()):
            win = _pct(v.team_win_rate[t]) if v.team_win_rate else "-"
            seats.add_row("", f"team {t}", win, _num(score))
    seats.caption = Text(
        "\n".join(
            f"every {'team' if v.team_win_rate and len(v.team_win_rate) < v.players else 'seat'} equal? "
            f"{v.label}: {_p(v.seat_test)}"
            for v in comp.variants
        ),
        justify="left",
    )
    games = Table(title=Text("per game (95% intervals)"))
    for name in ("variant", "actions", "rounds", "lead changes"):
        games.add_column(name, justify="left" if name == "variant" else "right")
    for v in comp.variants:
        games.add_row(Text(v.label), _num(v.actions), _num(v.rounds, 2), _num(v.lead_changes, 2))
    tables = [seats, games]
    if comp.differences:
        base = comp.differences[0].baseline
        diff = Table(title=Text(f"paired differences from {base}, game by game (* = 95% interval excludes 0)"))
        for name in ("variant", "seat", "win rate", "mean score"):
            diff.add_column(name, justify="left" if name == "variant" else "right")
        for d in comp.differences:
            if d.win_rate is None:
                diff.add_row(Text(d.label), "-", "seat counts differ", "-")
                continue
            for seat, (w, s) in enumerate(zip(d.win_rate, d.mean_score)):
                diff.add_row(Text(d.label if seat == 0 else ""), str(seat), _signed(w, pct=True), _signed(s))
        game_diff = Table(title=Text(f"per game, paired differences from {base}"))
        for name in ("variant", "actions", "rounds", "lead changes", "same opening deal"):
            game_diff.add_column(name, justify="left" if name == "variant" else "right")
        for d in comp.differences:
            game_diff.add_row(
                Text(d.label),
                _signed(d.actions),
                _signed(d.rounds, digits=2),
                _signed(d.lead_changes, digits=2),
                f"{d.same_deal[0]} of {d.same_deal[1]}",
            )
        tables += [diff, game_diff]
    return tables


# ------------------------------------------------------------------ CSV

CSV_FIELDS = ("variant", "seat", "statistic", "estimate", "low", "high", "games")
"""Columns of the CSV files: one row per statistic (long format, ready for a spreadsheet)."""


def _row(
    writer: Any, variant: Any, seat: Any, name: Any, i: stats.Interval | None, value: Any = None, games: Any = None
) -> None:
    if i is not None:
        writer.writerow([variant, seat, name, repr(i.estimate), repr(i.low), repr(i.high), i.n])
    else:
        writer.writerow([variant, seat, name, value, "", "", games])


def comparison_csv(comp: Any, path: str) -> None:
    """Write a comparison as CSV (`CSV_FIELDS`): ``win_rate``, ``mean_score`` per seat;
    ``actions``, ``rounds``, ``lead_changes``, ``seat_test_p`` per variant; and, for each
    variant after the first, ``diff_*`` (paired, against the first)."""
    with atomic_writer(path, newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for v in comp.variants:
            for seat in range(v.players):
                _row(w, v.label, seat, "win_rate", v.win_rate[seat])
                _row(w, v.label, seat, "mean_score", v.mean_score[seat])
            for t, score in enumerate(v.team_mean_score or ()):
                _row(w, v.label, f"team {t}", "mean_score", score)
                if v.team_win_rate:
                    _row(w, v.label, f"team {t}", "win_rate", v.team_win_rate[t])
            for name in ("actions", "rounds", "lead_changes"):
                _row(w, v.label, "", name, getattr(v, name))
            if v.seat_test is not None:
                _row(w, v.label, "", "seat_test_p", None, repr(v.seat_test.p_value), v.games)
        for d in comp.differences:
            for seat, (win, score) in enumerate(zip(d.win_rate or (), d.mean_score or ())):
                _row(w, d.label, seat, "diff_win_rate", win)
                _row(w, d.label, seat, "diff_mean_score", score)
            for name in ("actions", "rounds", "lead_changes"):
                _row(w, d.label, "", f"diff_{name}", getattr(d, name))
            _row(w, d.label, "", "same_opening_deal", None, d.same_deal[0], d.same_deal[1])


def simulation_csv(summary: Any, path: str, scores: Sequence[Sequence[float]] = ()) -> None:
    """Write a `trickkit.SimulationSummary` as CSV (`CSV_FIELDS`): per seat ``win_rate``
    (Wilson) and ``mean_score`` (t interval when every game's ``scores`` are given), and the
    seat test's p-value."""
    with atomic_writer(path, newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for seat in range(summary.players):
            _row(
                w,
                summary.game,
                seat,
                "win_rate",
                summary.win_interval(seat) if summary.games else None,
                summary.win_rate[seat],
                summary.games,
            )
            if scores:
                _row(w, summary.game, seat, "mean_score", stats.mean_interval([s[seat] for s in scores]))
            else:
                _row(w, summary.game, seat, "mean_score", None, summary.mean_score[seat], summary.games)
        _row(w, summary.game, "", "actions", None, summary.mean_length, summary.games)
        test = summary.seat_test()
        if test is not None:
            _row(w, summary.game, "", "seat_test_p", None, repr(test.p_value), summary.games)


# ------------------------------------------------------------------ HTML


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(
            f"--report draws its plots with matplotlib, which is not installed: {INSTALL_HINT}"
        ) from None
    matplotlib.use("Agg")  # files only: never a window
    import matplotlib.pyplot as plt

    return plt


_PLAIN_TEXT = {"text.parse_math": False, "text.usetex": False}
"""Every text of a plot is shown as written: a ``$`` in a file name or game title is no
mathtext (whose parser fails on ``a$b.yaml``), and no LaTeX is run."""


def _plain(draw: Any) -> Any:
    """``draw(plt, ...)`` with `_PLAIN_TEXT` in force while its figure is made and saved."""

    def plain(plt: Any, *args: Any) -> str:
        with plt.rc_context(_PLAIN_TEXT):
            return str(draw(plt, *args))

    plain.__doc__ = draw.__doc__
    return plain


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


@_plain
def _score_plot(plt: Any, labels: Any, scores_by_variant: Any, players: Any) -> str:
    """One panel per variant: each seat's final score distribution."""
    fig, axes = plt.subplots(1, len(labels), figsize=(4.2 * len(labels), 3.2), squeeze=False)
    for ax, label, scores in zip(axes[0], labels, scores_by_variant):
        for seat in range(players[labels.index(label)]):
            ax.hist([s[seat] for s in scores], bins=20, alpha=0.5, label=f"seat {seat}")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("final score")
        ax.set_ylabel("games")
        ax.legend(fontsize=7)
    return _png(fig)


@_plain
def _seat_plot(plt: Any, labels: Any, intervals: Any) -> str:
    """Win rate per seat with its 95% interval, variants side by side."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.8 / max(1, len(labels))
    for v, (label, ivs) in enumerate(zip(labels, intervals)):
        xs = [seat + v * width for seat in range(len(ivs))]
        est = [i.estimate for i in ivs]
        err = [[i.estimate - i.low for i in ivs], [i.high - i.estimate for i in ivs]]
        ax.bar(xs, est, width=width, yerr=err, capsize=3, label=label)
        if ivs:
            ax.axhline(1 / len(ivs), color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("seat")
    ax.set_ylabel("win rate")
    ax.set_xticks([seat + width * (len(labels) - 1) / 2 for seat in range(max(len(i) for i in intervals))])
    ax.set_xticklabels([str(s) for s in range(max(len(i) for i in intervals))])
    ax.legend(fontsize=7)
    return _png(fig)


@_plain
def _length_plot(plt: Any, labels: Any, lengths: Any, unit: str) -> str:
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    every = [v for values in lengths for v in values] or [0]
    lo, hi = min(every), max(every)
    step = max(1, -(-(hi - lo + 1) // 40))  # shared bins, at least one action wide: equal lengths stay visible
    bins = [lo - 0.5 + step * k for k in range((hi - lo) // step + 2)]
    for label, values in zip(labels, lengths):
        ax.hist(values, bins=bins, alpha=0.5, label=label)
    ax.set_xlabel(f"game length ({unit})")
    ax.set_ylabel("games")
    ax.legend(fontsize=7)
    return _png(fig)


def _table_html(caption: str, head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = [f"<table><caption>{html.escape(caption)}</caption><thead><tr>"]
    out += [f"<th>{html.escape(str(h))}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _rich_table_html(table: Any) -> str:
    """A ``rich`` table's cells as an HTML table (the same numbers as the terminal)."""
    head = [str(c.header) for c in table.columns]
    cells = [[str(x) for x in c.cells] for c in table.columns]
    rows = list(zip(*cells)) if cells else []
    caption = "".join(f"<p>{html.escape(line)}</p>" for line in str(table.caption or "").splitlines())
    return _table_html(str(table.title or ""), head, rows) + caption


def _coverage_html(report: Any) -> str:
    parts = [
        "<h2>Rule coverage</h2>",
        f"<p>{report.games} games, {report.decisions} decisions.</p>",
        _table_html("action kinds", ("action kind", "legal at", "chosen"), report.action_kinds),
        _table_html(
            "branches and effects",
            ("where", "kind", "branch or effect", "as written", "count", "trial", "decided at load"),
            [
                (s.location, s.site.kind, s.site.label, s.site.text, s.count, s.trial, s.site.decided)
                for s in report.sites
            ],
        ),
    ]
    if report.cards:
        parts.append(_table_html("cards played", ("card", "played"), report.cards))
    never = report.never_fired()
    parts.append(
        f"<h3>Never fired ({len(never)})</h3><ul class='never'>"
        + "".join(f"<li>{html.escape(line)}</li>" for line in never)
        + "</ul>"
    )
    return "".join(parts)


_STYLE = (
    "body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
    "font-size:90%;text-align:right}td:first-child,th:first-child{text-align:left}"
    "caption{font-weight:bold;text-align:left}img{max-width:100%}"
)


def _page(title: str, sections: Sequence[str]) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>" + "".join(sections) + "</body></html>\n"
    )


def _figure(alt: str, png: str) -> str:
    return (
        f"<figure><img alt='{html.escape(alt)}' src='data:image/png;base64,{png}'><figcaption>"
        f"{html.escape(alt)}</figcaption></figure>"
    )


def comparison_html(comp: Any, path: str, coverage: Any = None) -> None:
    """Write the HTML report of a comparison: its tables and plots of score distributions,
    seat advantage and game length (and coverage tables when given).

    Raises:
        PlotsUnavailable: matplotlib is not installed.
        OSError: ``path`` cannot be written.
    """
    plt = _pyplot()
    labels = [v.label for v in comp.variants]
    players = [v.players for v in comp.variants]
    scores = [[r.scores for r in res] for res in comp.results]
    sections = [
        "<h2>Statistics</h2>",
        *(_rich_table_html(t) for t in comparison_tables(comp)),
        "<p>Win rates: Wilson 95% intervals; means: Student t 95% intervals; differences are paired "
        "by game (game i of every variant shares its seed).</p>",
        "<h2>Plots</h2>",
        _figure("score distributions per seat", _score_plot(plt, labels, scores, players)),
        _figure(
            "seat advantage: win rate per seat (95% interval; dashed: every seat equal)",
            _seat_plot(plt, labels, [v.win_rate for v in comp.variants]),
        ),
        _figure(
            "game length in actions",
            _length_plot(plt, labels, [[r.actions for r in res] for res in comp.results], "actions"),
        ),
    ]
    if coverage is not None:
        sections.append(_coverage_html(coverage))
    _write(path, _page(f"trickkit compare: {' vs '.join(labels)}", sections))


def simulation_html(
    summary: Any, path: str, scores: Sequence[Sequence[float]], lengths: Sequence[int], coverage: Any = None
) -> None:
    """Write the HTML report of a simulation: the summary, seat advantage, score distribution
    and game length plots, and the coverage tables when given.

    Raises:
        PlotsUnavailable: matplotlib is not installed.
        OSError: ``path`` cannot be written.
    """
    plt = _pyplot()
    intervals = [summary.win_interval(s) for s in range(summary.players)] if summary.games else []
    sections = ["<h2>Statistics</h2>", _rich_table_html(summary.to_table())]  # its caption as paragraphs
    if summary.games:
        sections += [
            "<h2>Plots</h2>",
            _figure("score distributions per seat", _score_plot(plt, [summary.game], [scores], [summary.players])),
            _figure(
                "seat advantage: win rate per seat (95% interval; dashed: every seat equal)",
                _seat_plot(plt, [summary.game], [intervals]),
            ),
            _figure("game length in actions", _length_plot(plt, [summary.game], [lengths], "actions")),
        ]
    if coverage is not None:
        sections.append(_coverage_html(coverage))
    _write(path, _page(f"trickkit simulate: {summary.game}", sections))


def _write(path: str, text: str) -> None:
    with atomic_writer(path) as f:  # never a half-written page in place of a good file
        f.write(text)
