"""The HTML of the class pages, built only from the class views (``class_views.py``): one small function
per block, every text escaped, styles in :data:`CLASS_CSS` classes (colours from ``page_style.py``).

Nothing here opens a class or a table: a page passes a view (plain data) and gets HTML text back.
"""

from __future__ import annotations

import base64
import html
from typing import Any, Callable

from ..i18n import N_, Translator, translator
from .page_style import ERROR, LINK, TB_ALT, TB_BORDER, TB_TH, link_html, qr_svg

__all__ = ["CLASS_CSS", "TABLE_CSS", "style_html", "join_html", "trouble_html", "roster_html", "seating_html",
           "summary_html", "overview_html", "report_html", "download_html", "lobby_html", "phase_text",
           "PHASES", "OUTCOMES", "dashboard_row_html", "alert_text", "host_label", "late_html", "duration_text"]

#: A link to a table's read-only projector page, given its code and number.
ProjectorLink = Callable[[str, int], str]

#: The report's and the class projector's tables (the projector's at 1.5em, read from the back of a room), styled
#: for reading: padded cells, numbers on the right,
#: a rule under each row, zebra rows and a head row in the theme's colours; rows never split across
#: printed pages and the head row repeats on each.
TABLE_CSS = f"""
.dichotomy-overview, .dichotomy-report {{ border: 1px solid {TB_BORDER}; font-variant-numeric: tabular-nums; }}
.dichotomy-overview caption, .dichotomy-report caption {{ text-align: left; font-weight: bold; padding: 0.3em 0; }}
.dichotomy-overview th, .dichotomy-overview td, .dichotomy-report th, .dichotomy-report td {{
  padding: 0.45em 0.8em; text-align: left; vertical-align: top; border-bottom: 1px solid {TB_BORDER}; }}
.dichotomy-overview thead th, .dichotomy-report thead th {{ background: {TB_TH}; border-bottom: 2px solid {TB_BORDER}; }}
.dichotomy-overview tbody tr:nth-child(even), .dichotomy-report tbody tr:nth-child(even) {{ background: {TB_ALT}; }}
.dichotomy-overview td[data-testid="rounds-played"], .dichotomy-overview td[data-testid="score"],
.dichotomy-overview thead th:nth-child(n+4),
.dichotomy-report td:first-child, .dichotomy-report td:last-child,
.dichotomy-report thead th:first-child, .dichotomy-report thead th:last-child {{ text-align: right; white-space: nowrap; }}
@media print {{
  .dichotomy-overview, .dichotomy-report {{ font-size: 10pt; width: 100%; }}
  .dichotomy-overview tr, .dichotomy-report tr {{ break-inside: avoid; }}
  .dichotomy-overview thead, .dichotomy-report thead {{ display: table-header-group; }}
  .dichotomy-report-page h3 {{ break-after: avoid; }}
  .dichotomy-overview tbody tr:nth-child(even), .dichotomy-report tbody tr:nth-child(even),
  .dichotomy-overview thead th, .dichotomy-report thead th {{ print-color-adjust: exact; -webkit-print-color-adjust: exact; }}
}}
"""

#: The class pages' styles (one ``<style>`` per page, see :func:`style_html`).
CLASS_CSS = f"""
.dichotomy-store-trouble-text {{ border: 2px solid {ERROR}; color: {ERROR}; font-weight: 600;
  padding: 0.4em 0.7em; border-radius: 6px; }}
.dichotomy-roster {{ columns: 12em; }}
.dichotomy-seating {{ display: flex; flex-wrap: wrap; gap: 0.8em; }}
.dichotomy-class-table {{ border: 1px solid #8884; border-radius: 6px; padding: 0.3em 0.8em; min-width: 12em; }}
.dichotomy-class-table h4 {{ margin: 0.2em 0; }}
.dichotomy-overview {{ border-collapse: collapse; font-size: 1.5em; }}
.dichotomy-report {{ border-collapse: collapse; width: 100%; margin-bottom: 1.2em; }}
.dichotomy-report ul {{ margin: 0; padding-left: 1.2em; }}
{TABLE_CSS}
body .dichotomy-downloads a {{ margin-right: 1.5em; color: {LINK}; text-decoration: underline; }}
.dichotomy-teacher-head h2 {{ margin: 0.2em 0; font-size: 1.3em; }}
.dichotomy-teacher-head .dichotomy-join-info {{ gap: 1em; }}
.dichotomy-teacher-head .dichotomy-join-text p {{ margin: 0.1em 0; }}
.dichotomy-teacher-head .dichotomy-class-code {{ font-size: 1.5em; display: inline; }}
.dichotomy-teacher-head .dichotomy-private-note {{ margin: 0.2em 0; font-size: 0.9em; }}
.dichotomy-dashboard {{ width: 100%; }}
.dichotomy-dash-row {{ display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.6em; width: 100%;
  border-bottom: 1px solid #8884; padding: 0.1em 0; }}
.dichotomy-dash-row:nth-child(even) {{ background: #8881; }}
.dichotomy-dash-info {{ flex: 1 1 36em; min-width: 0; }}
.dichotomy-dash-info .dichotomy-class-table {{ border: 0; padding: 0; min-width: 0; display: flex;
  flex-wrap: wrap; align-items: baseline; gap: 0.1em 0.8em; }}
.dichotomy-dash-number {{ font-weight: 700; min-width: 5.5em; }}
.dichotomy-dash-players {{ display: inline; margin: 0; padding: 0; list-style: none; }}
.dichotomy-dash-players li {{ display: inline; }}
.dichotomy-dash-players li + li::before {{ content: ", "; }}
.dichotomy-dash-players li.dichotomy-acting span {{ font-weight: 700; text-decoration: underline; }}
.dichotomy-dash-stat {{ white-space: nowrap; }}
.dichotomy-summary {{ font-style: italic; }}
.dichotomy-alert {{ color: {ERROR}; font-weight: 600; }}
.dichotomy-dash-buttons {{ flex: 0 1 auto; flex-wrap: wrap; }}
.dichotomy-dash-buttons .widget-button, .dichotomy-late-row .widget-button {{ height: 26px;
  line-height: 26px; }}
.dichotomy-teacher-page .widget-button {{ width: auto; padding: 0 0.8em; }}
.dichotomy-class-moves, .dichotomy-move-box {{ flex-wrap: wrap; }}
.dichotomy-full-table {{ width: 100%; }}
.dichotomy-late-row {{ display: flex; flex-wrap: wrap; align-items: center; gap: 0.3em; }}
"""

#: What a table is doing, as the class pages say it (the machine value stays in ``data-phase``).
PHASES = {"seating": N_("seating"), "lobby": N_("lobby"), "reveal": N_("picking a pair"),
          "clues": N_("writing clues"), "guess": N_("guessing"), "recap": N_("round recap"),
          "over": N_("game over")}

#: The report's outcome values (machine words in the data, CSV and JSON) as the page says them.
OUTCOMES = {"correct": N_("correct"), "wrong": N_("wrong"), "foil": N_("guessed the Foil"), "pass": N_("passed")}


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def phase_text(phase: str, tr: Translator) -> str:
    """A table's phase in words, in ``tr``'s language."""
    return tr.gettext(PHASES[phase]) if phase in PHASES else phase


def style_html() -> str:
    """The class pages' ``<style>`` element."""
    return f"<style>{CLASS_CSS}</style>"


def join_html(code: str, link: str, tr: Translator, scale: int = 6) -> str:
    """Class code, join link and QR code."""
    _ = tr.gettext
    qr = qr_svg(link, scale=scale, title=_("Join link QR code"))
    return ('<div class="dichotomy-join-info">'
            f'<div class="dichotomy-qr">{qr}</div>'
            f'<div class="dichotomy-join-text"><p>{_esc(_("Class code"))}</p>'
            f'<p class="dichotomy-class-code">{_esc(code)}</p>'
            f'<p>{_esc(_("Join link:"))} {link_html(link, link, "dichotomy-join-link")}</p></div></div>')


def trouble_html(text: str) -> str:
    """The store's trouble as an alert, or nothing."""
    return (f'<p role="alert" data-testid="store-trouble" class="dichotomy-store-trouble-text">{_esc(text)}</p>'
            if text else "")


def _names_list(names: list[str], css: str = "") -> str:
    items = "".join(f'<li data-student="{_esc(n)}">{_esc(n)}</li>' for n in names)
    return f'<ul class="{css}">{items}</ul>' if css else f"<ul>{items}</ul>"


def roster_html(view: dict[str, Any], tr: Translator) -> str:
    """The roster heading (a live count) and every student's name, from :func:`dashboard_view`."""
    names = [s["name"] for s in view["students"]]
    count = f'<span class="dichotomy-roster-count">{len(names)}</span>'
    heading = _esc(tr.ngettext("Roster: {count} student", "Roster: {count} students", len(names),
                               count="{count}")).format(count=count)
    return f'<h3 aria-live="polite">{heading}</h3>' + _names_list(names, "dichotomy-roster")


def _seating_table(t: dict[str, Any], tr: Translator, projector: ProjectorLink) -> str:
    _ = tr.gettext
    members = t["members"]
    extra = ""
    if t["started"]:
        extra = (" · " + _esc(_("code")) + f' <span class="dichotomy-table-code">{_esc(t["code"])}</span> · '
                 + link_html(projector(t["code"], t["number"]), _("projector"), "dichotomy-projector-link"))
    heading = tr.ngettext("Table {number} ({n} player) · {state}", "Table {number} ({n} players) · {state}",
                          len(members), number=t["number"], state=_("started") if t["started"] else _("waiting"))
    items = (_names_list(members) if members else "<ul><li><em>" + _esc(_("empty")) + "</em></li></ul>")
    state = "started" if t["started"] else "waiting"
    return (f'<div class="dichotomy-class-table" data-table="{t["number"]}" data-state="{state}">'
            f"<h4>{_esc(heading)}{extra}</h4>{items}</div>")


def seating_html(view: dict[str, Any], tr: Translator, projector: ProjectorLink) -> str:
    """The seating: who sits at which table, who is not seated yet (from :func:`dashboard_view`)."""
    _ = tr.gettext
    if not view["tables"]:
        return "<p>" + _esc(_("Press {make_tables} when everyone has joined.")).format(
            make_tables="<strong>" + _esc(_("Make tables")) + "</strong>") + "</p>"
    late = ""
    if view["unseated"]:
        late = ('<p class="dichotomy-unseated" role="status">'
                + _esc(_("Not seated yet: {names}. Move them to a table that has not started, or add a table.",
                         names=", ".join(view["unseated"]))) + "</p>")
    blocks = "".join(_seating_table(t, tr, projector) for t in view["tables"])
    return "<h3>" + _esc(_("Seating")) + "</h3>" + late + f'<div class="dichotomy-seating">{blocks}</div>'


def summary_html(number: int, summary: dict[str, Any], tr: Translator) -> str:
    """One started table's dashboard line (a ``summary`` of :func:`dashboard_view`)."""
    _ = tr.gettext
    parts = [_("round {round}/{rounds}", round=summary["round"], rounds=summary["rounds"]),
             _("score {score}", score=summary["score"])]
    if summary["turn"]:
        parts.append(_("turn: {name}", name=summary["turn"]))
    if summary["not_continued"]:
        parts.append(_("not continued: {names}", names=", ".join(summary["not_continued"])))
    text = " · ".join([_("Table {number}", number=number), phase_text(summary["phase"], tr), *parts])
    return (f'<h3 class="dichotomy-summary" data-table="{number}" data-phase="{_esc(summary["phase"])}" '
            f'data-rounds-played="{summary["rounds_played"]}">{_esc(text)}</h3>')


def _overview_row(t: dict[str, Any], tr: Translator, projector: ProjectorLink) -> str:
    phase = t["phase"] if t["started"] else "seating"
    label = _esc(tr.gettext("Table {number}", number=t["number"]))
    if t["started"]:
        label = link_html(projector(t["code"], t["number"]), tr.gettext("Table {number}", number=t["number"]),
                          "dichotomy-projector-link")
    return (f'<tr class="dichotomy-overview-row" data-table="{t["number"]}" data-phase="{_esc(phase)}">'
            f'<th scope="row">{label}</th><td>{_esc(", ".join(t["players"]))}</td>'
            f'<td>{_esc(phase_text(phase, tr))}</td>'
            f'<td data-testid="rounds-played">{t["rounds_played"]} / {t["rounds"]}</td>'
            f'<td data-testid="score">{t["score"]}</td></tr>')


def overview_html(view: dict[str, Any], tr: Translator, projector: ProjectorLink) -> str:
    """The class projector's table of tables (from :func:`class_projector_view`), each started table
    linking its read-only projector page."""
    _ = tr.gettext
    if not view["tables"]:
        return ('<p class="dichotomy-overview-empty">'
                + _esc(tr.ngettext("{n} student has joined.", "{n} students have joined.", view["students"]))
                + " " + _esc(_("Tables appear here when the teacher makes them.")) + "</p>")
    heads = "".join(f"<th>{_esc(h)}</th>" for h in (_("Table"), _("Players"), _("Phase"), _("Rounds played"),
                                                      _("Score")))
    rows = "".join(_overview_row(t, tr, projector) for t in view["tables"])
    return (f'<table class="dichotomy-overview"><caption>{_esc(_("Tables"))}</caption>'
            f"<thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>")


def _report_clue(c: dict[str, Any], tr: Translator) -> str:
    _ = tr.gettext
    text = _esc(c["text"]) if c["text"] is not None else "<em>" + _esc(_("no clue (timeout)")) + "</em>"
    fate = ""
    if c["eliminated"]:
        fate = (" <strong>" + _esc(_("eliminated")) + "</strong> ("
                + _esc(c["reason_text"] or c["reason"] or "") + ")")
    css = "dichotomy-report-clue eliminated" if c["eliminated"] else "dichotomy-report-clue"
    return f'<li class="{css}">{text} <span class="who">— {_esc(c["author"])}</span>{fate}</li>'


def _report_round(number: int, r: dict[str, Any], tr: Translator) -> str:
    _ = tr.gettext
    clues = "".join(_report_clue(c, tr) for c in r["clues"])
    guess = _esc(_("passed")) if r["passed"] else _esc(r["guess"] or "")
    if r.get("withheld"):  # another table can still be dealt this card: its words wait
        clues = "<li><em>" + _esc(_("hidden until no table can still be dealt this card")) + "</em></li>"
        guess = "…"
    outcome = tr.gettext(OUTCOMES[r["outcome"]]) if r["outcome"] in OUTCOMES else r["outcome"]
    return (f'<tr class="dichotomy-report-round" data-table="{number}" data-round="{r["round"]}" '
            f'data-outcome="{_esc(r["outcome"])}"><td>{r["round"]}</td><td>{_esc(r["target"])}</td>'
            f'<td>{_esc(r["foil"])}</td><td><ul>{clues}</ul></td>'
            f'<td>{_esc(r["guesser"])}: {guess}</td><td>{_esc(outcome)}</td><td>{r["score"]}</td></tr>')


def _report_table(t: dict[str, Any], tr: Translator) -> str:
    _ = tr.gettext
    body = ("".join(_report_round(t["number"], r, tr) for r in t["rounds"])
            or '<tr><td colspan="7"><em>' + _esc(_("No round has resolved yet.")) + "</em></td></tr>")
    heads = "".join(f"<th>{_esc(h)}</th>" for h in (_("Round"), _("Target"), _("Foil"), _("Clues (author)"),
                                                      _("Guess"), _("Outcome"), _("Score")))
    title = (_("Table {number}, game {game} ({players})", number=t["number"], game=t["game"],
               players=", ".join(t["players"])) if t.get("game", 1) > 1
             else _("Table {number} ({players})", number=t["number"], players=", ".join(t["players"])))
    return (f"<h3>{_esc(title)}</h3>"
            f'<table class="dichotomy-report"><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>')


def report_html(data: dict[str, Any], tr: Translator) -> str:
    """The report's tables (from :func:`report`): resolved rounds only, withheld words as a note."""
    return ("".join(_report_table(t, tr) for t in data["tables"])
            or "<p>" + _esc(tr.gettext("No table has started yet.")) + "</p>")


def download_html(label: str, filename: str, mime: str, text: str, css: str) -> str:
    """A link that downloads ``text`` as ``filename`` (a data: address, no request)."""
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (f'<a class="{css}" download="{_esc(filename)}" '
            f'href="data:{mime};charset=utf-8;base64,{data}">{_esc(label)}</a>')


def _lobby_body(view: dict[str, Any], tr: Translator) -> str:
    _ = tr.gettext
    if view["table"] is not None:
        if view["tablemates"]:
            return _("You will sit at table {number} with {names}. The game starts when the teacher starts your "
                     "table.", number=view["table"], names=", ".join(view["tablemates"]))
        return _("You will sit at table {number}. The game starts when the teacher starts your table.",
                 number=view["table"])
    if view["all_started"]:
        return _("Every table has already started, so you are not seated yet. The teacher can seat you at a "
                 "new table when enough students are waiting; keep this page open.")
    return _("The teacher will seat you at a table. Keep this page open.")


def lobby_html(view: dict[str, Any], tr: Translator, practice: str = "") -> str:
    """A student's lobby (from :func:`student_lobby_view`); ``practice`` is the practice link's HTML."""
    _ = tr.gettext
    hello = _("Hello {name}! You will be seated soon.", name=view["me"])
    joined = tr.ngettext("Class {name} · {n} student joined.", "Class {name} · {n} students joined.",
                         view["students"], name=view["name"])
    help_text = _("This page becomes your seat at your table: no new link to open. If you close it, open the "
                  "same address again.")
    table = view["table"] if view["table"] is not None else ""
    return (f'<div class="dichotomy-lobby-box" role="status" aria-live="polite" data-table="{table}">'
            f"<h2>{_esc(hello)}</h2><p>{_esc(_lobby_body(view, tr))}</p><p>{_esc(joined)}</p>"
            f'<p class="dw-help">{_esc(help_text)}</p>{practice}</div>')


#: The host's actions a dashboard row offers, in the table's own words (the widget's catalogue).
HOST_LABELS = {"random_pick": "Pick a pair at random for {name}", "timeout:clues": "Time out {name} (no clue)",
               "timeout:guess": "Time out {name} (counts as a pass)", "confirm_absent": "Continue for {names}"}

#: What an alert says a table waits for, by the phase it waits in.
ALERTS = {"reveal": N_("{name} has been picking a pair for {time}"),
          "clues": N_("{name} has been writing a clue for {time}"),
          "guess": N_("{name} has been guessing for {time}")}


def duration_text(seconds: int, tr: Translator) -> str:
    """``75 s`` under two minutes, else ``3 min``."""
    if seconds < 120:
        return tr.gettext("{n} s", n=seconds)
    return tr.gettext("{n} min", n=seconds // 60)


def alert_text(alert: dict[str, Any], tr: Translator) -> str:
    """A table's alert (from a dashboard row) in words: who it waits for, and for how long."""
    names = alert["names"]
    time_text = duration_text(alert["seconds"], tr)
    if alert["kind"] == "not_continued":
        return tr.ngettext("{names} has not continued for {time}", "{names} have not continued for {time}",
                           len(names), names=", ".join(names), time=time_text)
    return tr.gettext(ALERTS.get(alert["kind"], ALERTS["guess"]), name=", ".join(names), time=time_text)


def host_label(kind: str, data: dict[str, Any], lang: str) -> str:
    """A host action's button label, the table's own words in ``lang`` (as the table's host bar)."""
    tr = translator(lang)  # the game widget's catalogue: the same words as the table's host buttons
    if kind == "timeout":
        key = "timeout:clues" if data.get("phase") == "clues" else "timeout:guess"
        return tr.gettext(HOST_LABELS[key], name=data.get("name", "?"))
    if kind == "confirm_absent":
        return tr.gettext(HOST_LABELS[kind], names=", ".join(data.get("names", [])))
    return tr.gettext(HOST_LABELS[kind], name=data.get("name", "?"))


def dashboard_row_html(t: dict[str, Any], tr: Translator, projector: ProjectorLink) -> str:
    """The information of one dashboard row (a table of :func:`dashboard_view`): its name (a link to
    its projector once started), players with who is to act, the phase in the table's own words, round,
    score and alerts. Its buttons are the page's widgets beside it."""
    _ = tr.gettext
    row = t.get("row")
    if row is not None:
        acting = {p["name"] for p in row["players"] if p["acting"]}
        names = [p["name"] for p in row["players"]]
    else:
        acting, names = set(), t["members"]
    items = "".join(f'<li data-student="{_esc(n)}"'
                    + (' class="dichotomy-acting" aria-current="true"' if n in acting else "")
                    + f"><span>{_esc(n)}</span></li>" for n in names)
    players = (f'<ul class="dichotomy-dash-players" aria-label="{_esc(_("Players"))}">{items}</ul>' if names
               else "<em>" + _esc(_("empty")) + "</em>")
    label = _("Table {number}", number=t["number"])
    if t["started"]:
        name = link_html(projector(t["code"], t["number"]), label, "dichotomy-projector-link")
        code = f' <span class="dichotomy-table-code">{_esc(t["code"])}</span>'
    else:
        name, code = _esc(label), ""
    state = "started" if t["started"] else "waiting"
    parts = [f'<span class="dichotomy-dash-number">{name}{code}</span>', players]
    if row is None:
        parts.append('<span class="dichotomy-summary" data-table="{0}" data-phase="seating" '
                     'data-rounds-played="0">{1}</span>'.format(t["number"], _esc(_("waiting to start"))))
    else:
        summary = t["summary"]
        words = row["status"]
        if summary["not_continued"]:
            words += " · " + _("not continued: {names}", names=", ".join(summary["not_continued"]))
        parts.append(f'<span class="dichotomy-summary" data-table="{t["number"]}" data-phase="{_esc(row["phase"])}" '
                     f'data-rounds-played="{row["rounds_played"]}">{_esc(words)}</span>')
        parts.append('<span class="dichotomy-dash-stat">'
                     + _esc(_("round {round}/{rounds}", round=row["round"], rounds=row["rounds"])) + "</span>")
        parts.append('<span class="dichotomy-dash-stat" data-testid="score">'
                     + _esc(_("score {score}", score=row["score"])) + "</span>")
        for alert in row["alerts"]:
            parts.append(f'<span class="dichotomy-alert" role="alert">{_esc(alert_text(alert, tr))}</span>')
    return (f'<div class="dichotomy-class-table" data-table="{t["number"]}" data-state="{state}">'
            + "".join(parts) + "</div>")


def late_html(name: str, tr: Translator, seatable: bool = True) -> str:
    """A student without a table, before the buttons that seat them (``seatable``), or what to do when
    no table has a free place now."""
    text = (tr.gettext("{name} has no table yet:", name=name) if seatable
            else tr.gettext("{name} has no table yet: add a table, or seat them where a game is over.", name=name))
    return f'<span class="dichotomy-late-name">{_esc(text)}</span>'

