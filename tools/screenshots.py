"""Screenshots of the seat, projector and host pages in every interface language, for the docs.

    PYTHONPATH=$PWD python tools/screenshots.py            # writes docs/images/<screen>-<lang>.png
    PYTHONPATH=$PWD python tools/screenshots.py --lang es  # one language

Starts its own ``dichotomy serve`` on a free port with a throwaway SQLite store, makes a table per
language through the engine (four players, interface in that language, deck in that language) and
opens in Debian's Chromium (``$CHROMIUM`` overrides it):

``seat-<lang>.png``       a Clue-Giver's seat while writing a clue (the pair, the clue box);
``projector-<lang>.png``  the table's projector page at the recap of a round (clues, why some were
                          eliminated, the outcome);
``host-<lang>.png``       the host page of a table in its lobby (code, join link, QR code, players, Start).

Each picture is 800 px wide, at most 1100 px high, reduced to a 64-colour palette (text and flat colours
lose nothing visible) so each file stays under ~120 KB. Nothing is downloaded.

    PYTHONPATH=$PWD python tools/screenshots.py --phone    # the student screens on a phone, the walls

``--phone`` writes, in English, every student screen on a 360 px touch phone, light beside dark
(``phone-<screen>.png``: join, lobby, pick, draft, write, guesser, guess, watch, recap, kept, final),
the staged reveal's steps side by side (``phone-reveal.png``), and the table projector and the class
projector at 1920x1080 (``wall-table.png``, ``wall-class.png``), each reduced to a 32-colour palette.

    PYTHONPATH=$PWD python tools/screenshots.py --class    # the teacher's screens of a class of 30

``--class`` writes, at 1366x768 in the light and the dark scheme (``class-<screen>-<scheme>.png``): the
teacher's dashboard of a class of 30 at six tables of five (the laptop's screen, no scrolling), the class
projector, and the report on screen (its whole page) and as printed (``class-report-print-<scheme>.png``,
the print stylesheet: the device's dark scheme prints black on white too). Every table has played a round
and is writing clues in its second, so the report and the projector have something to show.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dichotomy_widget import Classroom, SqliteStore, Table  # noqa: E402
from dichotomy_widget.errors import DichotomyError  # noqa: E402
from dichotomy_widget.i18n import INTERFACE_LANGUAGES  # noqa: E402

OUT = ROOT / "docs" / "images"
WIDTH, MAX_HEIGHT = 800, 1100
PUBLIC_URL = "http://192.168.1.20:8866/"  # a classroom address for the join link and QR code
NAMES = ("Ana", "Ben", "Cy", "Dee")
CLUES = ("zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(store: Path) -> tuple[subprocess.Popen, str]:
    """``dichotomy serve`` in its own process group; returns it and its base address once it answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "BROWSER": "true"}
    proc = subprocess.Popen([sys.executable, "-m", "dichotomy_widget.server.serve", "serve", "--store", str(store),
                             "--port", str(port), "--ip", "127.0.0.1", "--public-url", PUBLIC_URL], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"dichotomy serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(base + "/voila/tree", timeout=2):
                return proc, base
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    stop_server(proc)
    raise SystemExit("dichotomy serve did not answer within 120 s")


def stop_server(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=8)
            return
        except (ProcessLookupError, PermissionError):
            return
        except subprocess.TimeoutExpired:
            continue


def give_clues(table: Table, upto: int) -> None:
    """Clue-Givers give clues until ``upto`` are given or all are (the first two alike: a duplicate)."""
    table.refresh()
    while table.state.phase == "clues" and len(table.state.clues) < upto:
        given = len(table.state.clues)
        words = [w for w in CLUES if w not in {c.text for c in table.state.clues}]
        if given == 1:
            words.insert(0, table.state.clues[0].text)
        for word in words:
            try:
                table.act(table.state.current_writer, {"type": "clue", "text": word})
                break
            except DichotomyError:
                continue
        table.refresh()


def save_small(png: bytes, path: Path) -> int:
    """Write ``png`` reduced to a 64-colour palette (Pillow); returns the size in bytes."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    small = image.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, format="PNG", optimize=True)
    return path.stat().st_size


def shoot(page, selector: str, path: Path) -> int:
    """Once ``selector`` shows: the page from the top to the bottom of the game widget (at most
    MAX_HEIGHT px)."""
    page.locator(selector).first.wait_for(timeout=120_000)
    page.wait_for_timeout(800)  # the last re-render and the fonts
    box = page.locator(".dw-root").first.bounding_box()
    height = min(MAX_HEIGHT, int(box["y"] + box["height"]) + 16) if box else MAX_HEIGHT
    png = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": WIDTH, "height": height})
    return save_small(png, path)


def ready(page) -> None:
    page.locator("html[data-dichotomy-ready]").wait_for(state="attached", timeout=120_000)


def language(browser, base: str, store: SqliteStore, lang: str) -> list[tuple[Path, int]]:
    lobby = Table.create(deck=lang, rounds=3, store=store, interface_lang=lang)
    for name in NAMES[:3]:
        lobby.join(name)
    game = Table.create(deck=lang, rounds=3, store=store, interface_lang=lang, seed=11)
    tokens = {t.seat: t.token for t in (game.join(n) for n in NAMES)}
    game.start()
    game.refresh()
    game.act(game.state.drawer, {"type": "pick", "pair": 1})
    give_clues(game, 1)  # the second Clue-Giver is writing
    render = f"{base}/voila/render/"
    context = browser.new_context(viewport={"width": WIDTH, "height": MAX_HEIGHT})
    done = []
    try:
        seat = context.new_page()
        seat.goto(f"{render}seat.ipynb?table={game.code}&seat={tokens[game.state.current_writer]}")
        ready(seat)
        done.append((OUT / f"seat-{lang}.png", shoot(seat, "[data-testid=clue-input]", OUT / f"seat-{lang}.png")))
        seat.close()
        give_clues(game, 99)
        game.refresh()
        game.act(game.state.guesser, {"type": "pass"})
        projector = context.new_page()
        projector.goto(f"{render}projector.ipynb?table={game.code}")
        ready(projector)
        done.append((OUT / f"projector-{lang}.png", shoot(projector, "[data-testid=recap]", OUT / f"projector-{lang}.png")))
        projector.close()
        host = context.new_page()
        host.goto(f"{render}host.ipynb?table={lobby.code}&host={lobby.host_token}")
        ready(host)
        done.append((OUT / f"host-{lang}.png", shoot(host, ".dw-kind-table", OUT / f"host-{lang}.png")))
        host.close()
    finally:
        context.close()
    return done


PHONE = {"width": 360, "height": 740}


def crop(png: bytes, height: int | None = None):
    """``png`` as a Pillow image, cut to ``height`` px (the widget's bottom)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.crop((0, 0, image.width, min(image.height, height))) if height else image


def save_images(images: list, path: Path, colours: int = 32) -> int:
    """The images side by side on one picture (a 32-colour palette); returns its size in bytes."""
    from PIL import Image

    gap = 12
    width = sum(i.width for i in images) + gap * (len(images) - 1)
    sheet = Image.new("RGB", (width, max(i.height for i in images)), (128, 128, 128))
    x = 0
    for image in images:
        sheet.paste(image, (x, 0))
        x += image.width + gap
    small = sheet.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, format="PNG", optimize=True)
    return path.stat().st_size


def widget_shot(page, max_height: int = 1400):
    """The page from its top to the bottom of the game widget, as an image."""
    page.wait_for_timeout(500)
    box = page.locator(".dw-root").first.bounding_box() if page.locator(".dw-root").count() else None
    height = int(box["y"] + box["height"]) + 12 if box else None
    return crop(page.screenshot(full_page=True), min(height or max_height, max_height))


def phone_screens(browser, base: str, store: SqliteStore) -> list[tuple[Path, int]]:
    """Every student screen at 360 px, light beside dark; the reveal's steps; both projectors at 1920."""
    render = f"{base}/voila/render/"
    # one page per seat, drawn in the light and then the dark scheme (the page follows the device's
    # preference live): a second page of the same seat would take its kernel's place
    contexts = [browser.new_context(viewport=PHONE, has_touch=True, color_scheme="light")]
    for context in contexts:
        context.set_default_timeout(120_000)
    done: list[tuple[Path, int]] = []

    def both(pages, name: str, selector: str, reload: bool = True) -> None:
        for page in pages:
            try:
                page.locator(selector).first.wait_for(timeout=45_000 if reload else 240_000)
            except Exception:
                if not reload:
                    raise  # a page that missed the engine's move (a loaded machine): reopen it
                print(f"{name}: no {selector} after 45 s on {page.url}; reloading it")
                page.reload(timeout=120_000)
                ready(page)
                page.locator(selector).first.wait_for(timeout=120_000)
        images = []
        for page in pages:
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                images.append(widget_shot(page))
            page.emulate_media(color_scheme="light")
        path = OUT / f"phone-{name}.png"
        done.append((path, save_images(images, path)))
        print(f"{path.relative_to(ROOT)}  {done[-1][1] // 1024} KB", flush=True)

    def open_all(url: str) -> list:
        pages = []
        for context in contexts:
            page = context.new_page()
            page.goto(url, timeout=120_000)
            ready(page)
            pages.append(page)
        return pages

    try:
        lobby = Table.create(deck="en", rounds=3, store=store, seed=3)
        join = open_all(f"{render}seat.ipynb?table={lobby.code}")
        both(join, "join", ".dichotomy-name input")
        for page, name in zip(join, ("Zoe", "Yan")):
            page.locator(".dichotomy-name input").fill(name)
            page.locator(".dichotomy-name input").press("Enter")
            page.locator(f".dw-root[data-you='{name}']").wait_for(timeout=120_000)
        lobby.join("Ana")
        both(join, "lobby", ".dw-howto")
        for page in join:
            page.close()

        game = Table.create(deck="en", rounds=4, store=store, seed=11)
        tokens = {t.seat: t.token for t in (game.join(n) for n in NAMES)}
        game.start()
        game.refresh()
        seat = lambda s: f"{render}seat.ipynb?table={game.code}&seat={tokens[s]}"  # noqa: E731
        drawer, guesser = game.state.drawer, game.state.guesser
        draw, guess = open_all(seat(drawer)), open_all(seat(guesser))
        both(draw, "pick", ".dw-pairs")
        both(guess, "guesser", ".dw-guesser-wait")
        game.act(drawer, {"type": "pick", "pair": 1})
        game.refresh()
        second_id = game.state.writers[1]
        second = open_all(seat(second_id))
        for page in second:
            page.get_by_test_id("draft-input").wait_for(timeout=120_000)
            page.get_by_test_id("draft-input").fill("zebra")
        both(second, "draft", "[data-testid=draft-input]")
        both(draw, "write", "[data-testid=clue-input]")
        give_clues(game, 99)
        both(guess, "guess", "[data-testid=guess-input]")
        both(second, "watch", ".dw-watch")
        reveal = []
        game.act(guesser, {"type": "guess", "text": "saxophone"})
        recap = guess[0].get_by_test_id("recap")
        recap.wait_for(timeout=120_000)
        for step in ("3", "5", "done"):
            guess[0].locator(f"[data-testid=recap][data-step='{step}']").wait_for(timeout=30_000)
            reveal.append(widget_shot(guess[0]))
        done.append((OUT / "phone-reveal.png", save_images(reveal, OUT / "phone-reveal.png")))
        both(guess, "recap", "[data-testid=recap][data-step=done]")
        game.refresh()
        for s in game.state.order:
            if s != second_id:
                game.act(s, {"type": "continue"})
        # the kept recap needs a page that showed the recap when the pick came: a page opened now (on a
        # loaded machine a page open since the start may have lost its connection meanwhile)
        for page in second:
            page.close()
        second = open_all(seat(second_id))
        for page in second:
            page.locator("[data-testid=recap][data-step=done]").wait_for(timeout=120_000)
        game.refresh()
        game.act(game.state.drawer, {"type": "pick", "pair": 2})
        both(second, "kept", "[data-testid=kept-note]", reload=False)  # a reopened page has no kept recap
        projector = browser.new_context(viewport={"width": 1920, "height": 1080})
        wall = projector.new_page()
        wall.goto(f"{render}projector.ipynb?table={game.code}&n=2", timeout=120_000)
        ready(wall)
        wall.locator(".dw-progress, .dw-status").first.wait_for(timeout=120_000)
        done.append((OUT / "wall-table.png", save_images([crop(wall.screenshot())], OUT / "wall-table.png")))
        game.act(None, {"type": "end"})
        both(second, "final", ".dw-ladder")
        room = Classroom.create("Year 9 French", store=store, interface_lang="en")
        for name in ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus"):
            room.join(name)
        room.make_tables()
        room.start_all()
        wall.goto(f"{render}classview.ipynb?class={room.code}", timeout=120_000)
        ready(wall)
        wall.locator(".dichotomy-classview-page").first.wait_for(timeout=120_000)
        wall.wait_for_timeout(800)
        done.append((OUT / "wall-class.png", save_images([crop(wall.screenshot())], OUT / "wall-class.png")))
        projector.close()
    finally:
        for context in contexts:
            context.close()
    return done


def walls(browser, base: str, store: SqliteStore) -> list[tuple[Path, int]]:
    """Freshly opened pages only: the final screen on a phone (light beside dark) and both projectors
    at 1920x1080 (``--walls``; ``--phone`` makes them too, after its game)."""
    render = f"{base}/voila/render/"
    done: list[tuple[Path, int]] = []
    game = Table.create(deck="en", rounds=4, store=store, seed=11)
    tokens = {t.seat: t.token for t in (game.join(n) for n in NAMES)}
    game.start()
    game.refresh()
    game.act(game.state.drawer, {"type": "pick", "pair": 1})
    give_clues(game, 99)
    game.refresh()
    game.act(game.state.guesser, {"type": "pass"})
    wall = browser.new_context(viewport={"width": 1920, "height": 1080})
    wall.set_default_timeout(120_000)
    page = wall.new_page()
    page.goto(f"{render}projector.ipynb?table={game.code}&n=2", timeout=120_000)
    ready(page)
    page.locator("[data-testid=recap][data-step=done]").wait_for(timeout=120_000)
    done.append((OUT / "wall-table.png", save_images([crop(page.screenshot())], OUT / "wall-table.png")))
    room = Classroom.create("Year 9", store=store, interface_lang="en")
    for name in ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus"):
        room.join(name)
    room.make_tables()
    room.start_all()
    page.goto(f"{render}classview.ipynb?class={room.code}", timeout=120_000)
    ready(page)
    page.locator(".dichotomy-overview").first.wait_for(timeout=120_000)
    done.append((OUT / "wall-class.png", save_images([crop(page.screenshot())], OUT / "wall-class.png")))
    wall.close()
    game.act(None, {"type": "end"})
    images = []
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport=PHONE, has_touch=True, color_scheme=scheme)
        context.set_default_timeout(120_000)
        phone = context.new_page()
        phone.goto(f"{render}seat.ipynb?table={game.code}&seat={tokens[game.state.order[0]]}", timeout=120_000)
        ready(phone)
        phone.locator(".dw-ladder").wait_for(timeout=120_000)
        phone.locator(".dw-ladder").scroll_into_view_if_needed()
        images.append(widget_shot(phone))
        context.close()
    done.append((OUT / "phone-final.png", save_images(images, OUT / "phone-final.png")))
    return done


CLASS_VIEW = {"width": 1366, "height": 768}
REPORT_MAX = 2400  # px: the report's picture stops there (six tables of one round fit)
CLASS_NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Mia",
               "Noa", "Oli", "Pia", "Quin", "Rui", "Sam", "Tia", "Uma", "Vic", "Wes", "Xia", "Yan", "Zoe",
               "Abe", "Bea", "Cal", "Dot")


def play_round(table: Table, outcome: str) -> None:
    """One round at ``table``: the Drawer picks, everyone writes, the Guesser finds the Target, passes
    or misses (``outcome``: correct, pass, wrong); every seat continues."""
    table.refresh()
    table.act(table.state.drawer, {"type": "pick", "pair": 1})
    give_clues(table, 99)
    table.refresh()
    if outcome == "pass":
        table.act(table.state.guesser, {"type": "pass"})
    else:
        table.act(table.state.guesser, {"type": "guess", "text": table.state.target if outcome == "correct"
                                         else "saxophone"})
    table.refresh()
    for seat in table.state.order:
        table.act(seat, {"type": "continue"})


def class_screens(browser, base: str, store: SqliteStore) -> list[tuple[Path, int]]:
    """The teacher's screens of a class of 30 at six tables of five, light and dark, 1366x768."""
    render = f"{base}/voila/render/"
    room = Classroom.create("Year 9 French", deck="en", rounds=4, table_size=5, store=store, seed=28,
                            interface_lang="en")
    for name in CLASS_NAMES:
        room.join(name)
    room.make_tables()
    tables = room.start_all()
    for number, table in enumerate(tables):
        play_round(table, ("correct", "pass", "wrong")[number % 3])
        table.refresh()
        table.act(table.state.drawer, {"type": "pick", "pair": 2})
        give_clues(table, number % 3)  # the second round: writing clues, each table at its own point
    pages = {"dashboard": f"teacher.ipynb?class={room.code}&teacher={room.teacher_token}",
             "projector": f"classview.ipynb?class={room.code}", "report": f"report.ipynb?class={room.code}"}
    shown = {"dashboard": ".dichotomy-dashboard", "projector": ".dichotomy-overview",
             "report": ".dichotomy-report-round"}
    done: list[tuple[Path, int]] = []
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport=CLASS_VIEW, color_scheme=scheme)
        context.set_default_timeout(120_000)
        try:
            for screen, address in pages.items():
                page = context.new_page()
                page.goto(render + address, timeout=120_000)
                ready(page)
                page.locator(shown[screen]).first.wait_for(timeout=120_000)
                page.wait_for_timeout(1000)  # the last re-render and the fonts
                if screen == "report":  # read to its end: voila scrolls inside its shell, so a taller window
                    tall = page.evaluate("document.getElementById('rendered_cells').scrollHeight")
                    page.set_viewport_size({"width": CLASS_VIEW["width"], "height": min(int(tall) + 20, REPORT_MAX)})
                    page.wait_for_timeout(500)
                path = OUT / f"class-{screen}-{scheme}.png"
                done.append((path, save_small(page.screenshot(), path)))
                if screen == "report":  # as printed: A4's width at 96 dpi (210 mm), the print stylesheet
                    page.set_viewport_size({"width": 794, "height": 1123})
                    page.emulate_media(media="print")
                    page.wait_for_timeout(500)
                    path = OUT / f"class-report-print-{scheme}.png"
                    png = page.screenshot(full_page=True)
                    done.append((path, save_small(png, path)))
                page.close()
        finally:
            context.close()
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", action="append", choices=INTERFACE_LANGUAGES,
                        help="only this language (repeatable; default: all)")
    parser.add_argument("--phone", action="store_true", help="the phone screens and the walls instead")
    parser.add_argument("--walls", action="store_true", help="only the final phone screen and both projectors")
    parser.add_argument("--class", dest="klass", action="store_true",
                        help="only the teacher's screens of a class of 30 (1366x768, light and dark)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store_path = Path(tmp) / "tables.sqlite3"
        proc, base = start_server(store_path)
        try:
            store = SqliteStore(store_path)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=exe, args=ARGS, headless=True)
                for path, size in (walls(browser, base, store) if args.walls else []):
                    print(f"{path.relative_to(ROOT)}  {size // 1024} KB")
                for path, size in (class_screens(browser, base, store) if args.klass else []):
                    print(f"{path.relative_to(ROOT)}  {size // 1024} KB")
                for lang in ([] if args.phone or args.walls or args.klass else args.lang or INTERFACE_LANGUAGES):
                    for path, size in language(browser, base, store, lang):
                        print(f"{path.relative_to(ROOT)}  {size // 1024} KB")
                for path, size in (phone_screens(browser, base, store) if args.phone else []):
                        print(f"{path.relative_to(ROOT)}  {size // 1024} KB")
                browser.close()
        finally:
            stop_server(proc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
