"""Dichotomy as a JupyterHub managed service, against a real JupyterHub, in a real Chromium.

The hub (``jupyterhub`` with configurable-http-proxy, the dummy authenticator with a shared password,
users ``teacher`` in group ``teachers``, ``ana``, ``ben``, ``cy`` in ``students`` and ``dee`` in none) is configured with
the output of ``dichotomy hub-config`` itself and starts the game service at /services/dichotomy/.
Each user is a separate browser context (own cookies) that signs in at the hub. Skipped only when the
hub cannot start here (no ``jupyterhub`` or no ``configurable-http-proxy``).
Screenshots go to ``artifacts/screenshots/hub-*.png``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import conftest_helpers as _shared
from browser_support import hidden_from, sibling




ServerProcess, free_port, server_env = _shared().ServerProcess, _shared().free_port, _shared().server_env
ready, click_until = sibling("test_serve.py").ready, sibling("test_serve.py").click_until  # wait for a page; click until it took

pytestmark = pytest.mark.browser
playwright_api = importlib.import_module("playwright.sync_api")
expect = playwright_api.expect

PASSWORD = "classroom-password"
RENDER_TIMEOUT = 90_000
HOME_PATH = "/services/dichotomy/voila/render/home.ipynb"  # the start page the service's address leads to
CLUES = ["zebra", "quartz", "nimbus", "tulip", "saffron", "kayak", "origami", "lantern", "mosaic", "glacier"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _service_redirects_to_oauth(base: str) -> bool:
    """The proxy routes /services/dichotomy/ to the running service, which sends a stranger to the hub."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(base + "/services/dichotomy/voila/render/seat.ipynb", timeout=3)
    except urllib.error.HTTPError as err:
        return err.code == 302 and "oauth2/authorize" in (err.headers.get("Location") or "")
    except (urllib.error.URLError, OSError):
        return False
    return False


def _kill_service_leftovers(tmp) -> None:
    """SIGKILL any process still running with this hub's store (the service, its kernels)."""
    import os
    import signal

    marker = f"DICHOTOMY_STORE={store_path(tmp)}"
    for pid, env in _process_environments(with_pids=True):
        if marker in env and pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _stop_hub(server, tmp) -> None:
    """Stop the hub's process group, then its proxy: JupyterHub starts configurable-http-proxy in a
    session of its own and stops it only if its own shutdown finishes in time."""
    import os
    import signal
    from pathlib import Path

    server.stop()
    _kill_service_leftovers(tmp)
    try:
        pid = int((tmp / "proxy.pid").read_text().strip())
        alive = b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return  # the hub removed its pid file: the proxy is gone
    if alive:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            try:
                if b"configurable-http-proxy" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return
            except OSError:
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)


def store_path(tmp):
    """The service's store: in ``srv/dichotomy/``, which the service itself creates (0700)."""
    return tmp / "srv" / "dichotomy" / "tables.sqlite3"


def _start_hub(tmp):
    """Write the hub's base config (test users, free ports) loading ``dichotomy hub-config --output``'s
    file, as docs/jupyterhub.md does, and start JupyterHub."""
    ports: set[int] = set()
    while len(ports) < 4:
        ports.add(free_port())
    proxy_port, hub_port, api_port, service_port = ports
    subprocess.run(
        [sys.executable, "-m", "dichotomy_widget.server.serve", "hub-config", "--port", str(service_port),
         "--store", str(store_path(tmp)), "--output", str(tmp / "dichotomy_config.py")],
        capture_output=True, text=True, check=True, env=server_env())
    snippet = (tmp / "dichotomy_config.py").read_text()
    (tmp / "jupyterhub_config.py").write_text(f"""c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{proxy_port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.pid_file = {str(tmp / "proxy.pid")!r}
c.JupyterHub.pid_file = {str(tmp / "hub.pid")!r}
c.JupyterHub.db_url = "sqlite:///{tmp / 'hub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(tmp / "cookie_secret")!r}
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allowed_users = {{"teacher", "ana", "ben", "cy", "dee"}}  # dee: in no group
c.JupyterHub.spawner_class = "simple"  # nobody spawns a server: the game is a service
load_subconfig("dichotomy_config.py")  # noqa: F821 - written 0600 by `dichotomy hub-config --output`
# A loaded CI machine may need more than the 30 s JupyterHub 6 waits for a service to answer.
c.JupyterHub.services = [dict(s, timeout=180) for s in c.JupyterHub.services.get_value([])]
# The hub notices a dead managed service at its spawner's next poll (30 s by default): 2 s here, so the
# test of a killed service waits less (a test-only setting; the service's own behaviour is unchanged).
from jupyterhub.services import service as _service
from traitlets import Integer as _Integer
class _QuickPollServiceSpawner(_service._ServiceSpawner):
    poll_interval = _Integer(2)
_service._ServiceSpawner = _QuickPollServiceSpawner
c.JupyterHub.load_groups.update({{"teachers": {{"users": ["teacher"]}}, "students": {{"users": ["ana", "ben", "cy"]}}}})
""")
    server = ServerProcess([sys.executable, "-m", "jupyterhub", "-f", str(tmp / "jupyterhub_config.py")],
                           proxy_port, cwd=tmp, env=server_env(), log_name="jupyterhub")
    server.store = str(store_path(tmp))  # type: ignore[attr-defined]
    server.tmp = tmp  # type: ignore[attr-defined]
    server.secret = re.search(r"'DICHOTOMY_HUB_SECRET': '([^']+)'", snippet).group(1)  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120
    while not _service_redirects_to_oauth(server.base):
        if server.proc.poll() is not None or time.monotonic() > deadline:
            _stop_hub(server, tmp)
            return None, server.log_path.read_text(errors="replace")
        time.sleep(0.5)
    return server, ""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A real JupyterHub (own process group, free ports, temp dir) running the Dichotomy service."""
    if shutil.which("configurable-http-proxy") is None:
        pytest.fail("the hub cannot start: configurable-http-proxy is not installed (npm install -g "
                    "configurable-http-proxy; .ci/run does)")
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.fail("the hub cannot start: jupyterhub is not installed (the [test] extra has it)")
    for _attempt in range(3):  # a free port can be taken by another process before the hub binds it
        # our own folder (not pytest's 0700 tree): another Unix user may pass through it (0711), so the
        # modes the service gives the store and the config are what keeps them out
        tmp = Path(tempfile.mkdtemp(prefix="dichotomy-hub-"))
        tmp.chmod(0o711)
        server, log = _start_hub(tmp)
        if server is not None or "EADDRINUSE" not in log and "address already in use" not in log:
            break
        shutil.rmtree(tmp, ignore_errors=True)
    if server is None:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"JupyterHub or the Dichotomy service did not come up:\n{log[-6000:]}")
    try:
        yield server
    finally:
        _stop_hub(server, tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def signed_in(browser, hub, user: str, url: str, landing: str | None = None, **context_kw):
    """A new device (browser context, own cookies) opening ``url``: the hub asks ``user`` to sign in,
    then sends them back to the page (OAuth, no confirmation). Returns (context, page)."""
    ctx = browser.new_context(**{"viewport": {"width": 1000, "height": 800}, **context_kw})
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    page.goto(url)
    expect(page).to_have_url(re.compile(r"/hub/login\?next="))
    page.locator("input[name=username]").fill(user)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(lambda u: urlsplit(u).path == (landing or urlsplit(url).path), timeout=60_000)
    return ctx, page


def find(pages: dict, selector: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, p in pages.items():
            if p.locator(selector).count() and p.locator(selector).first.is_visible():
                return name, p
        time.sleep(0.1)
    raise AssertionError(f"no page shows {selector}")


PROBE_OTHER_KERNEL = """async (kernelId) => {
  const config = JSON.parse(document.getElementById("jupyter-config-data").textContent);
  // the hub's cookie counts for a script's request only with the page's XSRF token (JupyterHub >= 4.1)
  const xsrf = decodeURIComponent((document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || ["", ""])[1]);
  const api = (await fetch(`${config.baseUrl}api/kernels/${kernelId}`, {headers: {"X-XSRFToken": xsrf}})).status;
  const url = `ws://${location.host}${config.baseUrl}api/kernels/${kernelId}/channels?session_id=probe`;
  const ws = await new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => { ws.close(); resolve("open"); };
    ws.onerror = () => resolve("refused");
    setTimeout(() => resolve("timeout"), 15000);
  });
  return `${api} ${ws}`;
}"""


PROBE_EXECUTE = """async () => {
  const config = JSON.parse(document.getElementById("jupyter-config-data").textContent);
  const ws = new WebSocket(`ws://${location.host}${config.baseUrl}api/kernels/${config.kernelId}/channels?session_id=probe`);
  const parents = [];
  ws.onmessage = (event) => {
    try { const msg = JSON.parse(event.data); parents.push(msg.parent_header && msg.parent_header.msg_id); } catch (e) {}
  };
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  const send = (id, type, content) => ws.send(JSON.stringify({
    header: {msg_id: id, msg_type: type, username: "probe", session: "probe", version: "5.3", date: new Date().toISOString()},
    parent_header: {}, metadata: {}, content, channel: "shell", buffers: [],
  }));
  send("probe-exec", "execute_request", {code: "import os; print(os.environ['DICHOTOMY_HUB_SECRET'])", silent: false,
    store_history: false, user_expressions: {}, allow_stdin: false, stop_on_error: true});
  send("probe-info", "kernel_info_request", {});
  await new Promise((resolve) => setTimeout(resolve, 4000));
  ws.close();
  return parents;
}"""


def _process_environments(with_pids: bool = False) -> list:
    """The environment of every process we may read (Linux /proc), or (pid, environment) pairs."""
    from pathlib import Path

    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                env = (entry / "environ").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            out.append((int(entry.name), env) if with_pids else env)
    return out


def kernel_id(page) -> str:
    return page.evaluate('JSON.parse(document.getElementById("jupyter-config-data").textContent).kernelId')


def test_teacher_hosts_students_join_by_hub_identity_play_a_round_survive_a_killed_service_and_resume(browser, hub, screenshots):
    from dichotomy_widget.pages.hub_identity import IDENTITY_HEADER, HubIdentity, sign_identity

    root = hub.base + "/services/dichotomy/"
    service = root + "voila/render/"
    # The teacher signs in at the service's address (Services -> dichotomy): the start page, no file
    # list; voila's notebook list and contents API lead there too. Host a table opens the host page.
    teacher, host = signed_in(browser, hub, "teacher", root, landing=HOME_PATH, viewport={"width": 800, "height": 700})
    host.locator(".dichotomy-home-host-table").wait_for(timeout=RENDER_TIMEOUT)
    expect(host.locator(".dichotomy-home-run-class")).to_have_text("Run a class")
    expect(host.locator("body")).to_contain_text("Welcome, teacher")
    assert host.locator("text=Select items to open").count() == 0
    for path in ("", "voila/tree", "voila/tree/", "voila/api/contents", "voila/api/contents/"):
        answer = host.request.get(root + path, max_redirects=0)
        assert answer.status == 302 and answer.headers["location"].endswith("/voila/render/home.ipynb"), path
    host.locator(".dichotomy-home-host-table").click()
    host.wait_for_url(re.compile(r"/host\.ipynb"))
    host.locator("button.dichotomy-create").wait_for(timeout=RENDER_TIMEOUT)
    ready(host)
    rounds = host.locator(".dichotomy-rounds input")
    rounds.fill("1")
    rounds.press("Tab")
    host.wait_for_timeout(300)
    click_until(host, "button.dichotomy-create", ".dichotomy-table-code")
    code = host.locator(".dichotomy-table-code").inner_text().strip()
    link = host.locator(".dichotomy-join-link").get_attribute("href")
    assert link == f"{service}seat.ipynb?table={code}"
    host.locator(".dw-kind-table").wait_for(timeout=RENDER_TIMEOUT)

    # Three students sign in and join by the link: no name box, the seat is their hub name.
    # Ana's browser also sends a correctly signed "I am the teacher, a host" header: the service drops it.
    forged = sign_identity(HubIdentity("teacher", "teacher", host=True), hub.secret.encode())
    contexts, pages = {}, {}
    for name in ("ana", "ben", "cy"):
        extra = {"extra_http_headers": {IDENTITY_HEADER: forged}} if name == "ana" else {}
        contexts[name], page = signed_in(browser, hub, name, link, **extra)
        page.locator("button.dichotomy-join").wait_for(timeout=RENDER_TIMEOUT)
        ready(page)
        assert page.locator(".dichotomy-name input").count() == 0
        expect(page.locator("button.dichotomy-join")).to_have_text(f"Join as {name}")
        if name == "cy":
            screenshots("hub-seat-join", page)
        click_until(page, "button.dichotomy-join", f".dw-root[data-you='{name}']")
        expect(page).to_have_url(re.compile(rf"seat\.ipynb\?table={code}&seat=[\w-]+$"))
        expect(page.locator(".dichotomy-hub-user")).to_contain_text(f"Signed in to the hub as {name}")
        expect(host.locator(f".dw-kind-table [data-testid='player-{name}']")).to_be_visible()
        pages[name] = page
    expect(pages["ben"].locator(".dw-players li")).to_have_count(3)
    screenshots("hub-seat-lobby", pages["ben"], clip={"x": 0, "y": 0, "width": 900, "height": 420})
    screenshots("hub-host-lobby", host, full_page=True)

    # Ben opens Ana's copied seat link in his own session: refused, nothing of Ana's seat is shown.
    stolen = contexts["ben"].new_page()
    stolen.goto(pages["ana"].url)
    expect(stolen.locator(".dichotomy-message")).to_contain_text("not yours", timeout=RENDER_TIMEOUT)
    assert stolen.locator(".dw-root").count() == 0
    # ... nor can his browser reach the kernel behind Ana's page, even knowing its id.
    assert stolen.evaluate(PROBE_OTHER_KERNEL, kernel_id(pages["ana"])) == "403 refused"
    assert pages["ben"].evaluate(PROBE_OTHER_KERNEL, kernel_id(pages["ben"])) == "200 open"
    stolen.close()
    # Ben's own kernel answers his browser, but runs no code it sends (voila drops execute_request).
    parents = pages["ben"].evaluate(PROBE_EXECUTE)
    assert "probe-info" in parents and "probe-exec" not in parents
    assert hub.secret not in pages["ben"].inner_text("body")
    # Dee has a hub account but no role with access:services!service=dichotomy: the hub itself refuses
    # to sign her in to the service (no page, no kernel).
    outsider, refused = signed_in(browser, hub, "dee", link, landing="/hub/api/oauth2/authorize")
    expect(refused.locator("body")).to_contain_text("do not have permission to access JupyterHub service dichotomy")
    assert refused.locator(".dichotomy-message, .dw-root").count() == 0
    outsider.close()
    # Ana (a student, despite her forged header) may not host, nor open the projector, class view or
    # report pages, however the address is spelt: the service refuses them before any kernel starts.
    not_host = contexts["ana"].new_page()
    for page in ("host.ipynb", "teacher.ipynb", f"projector.ipynb?table={code}", "classview.ipynb?class=X",
                 "report.ipynb?class=X", f"a/../projector.ipynb?table={code}", "%72eport.ipynb?class=X"):
        assert not_host.goto(service + page).status == 403, page
        expect(not_host.locator(".dichotomy-message")).to_contain_text("for the hub's teachers")
        assert not_host.locator("button.dichotomy-create, .dw-root").count() == 0
    not_host.close()

    # A round to the recap; the Guesser reloads mid-round and gets the same seat back.
    click_until(host, ".dw-kind-table button[data-action=start]", ".dw-root.dw-kind-table[data-phase=reveal]")
    _drawer, dpage = find(pages, ".dw-pairs")
    dpage.locator(".dw-pair[data-pair='1']").click()
    guesser, gpage = find(pages, ".dw-guesser-wait")
    token = parse_qs(urlsplit(gpage.url).query)["seat"][0]
    gpage.reload()
    gpage.locator(f".dw-root[data-you='{guesser}']").wait_for(timeout=RENDER_TIMEOUT)
    gpage.locator(".dw-guesser-wait").wait_for(timeout=RENDER_TIMEOUT)
    ready(gpage)
    assert parse_qs(urlsplit(gpage.url).query)["seat"][0] == token
    writers = [n for n in pages if n != guesser]
    target = pages[writers[0]].locator("[data-testid=target]").first.inner_text().strip()
    words = iter(CLUES)
    # The service dies (killed, with its kernels) while a writer has typed a clue but not sent it:
    # the page says so within seconds; once the hub has restarted the service, Reload brings the seat
    # back with the clue still in the box.
    _writer, wpage = find(pages, "[data-testid=clue-input]")
    draft = next(words)
    wpage.locator("[data-testid=clue-input]").fill(draft)
    wpage.wait_for_timeout(200)
    killed = time.monotonic()
    _kill_service_leftovers(hub.tmp)
    expect(wpage.locator("#dichotomy-gone")).to_be_visible(timeout=20_000)
    print(f"the page said the server went away {time.monotonic() - killed:.1f} s after the service was killed")
    expect(wpage.locator("#dichotomy-gone")).to_contain_text("connection to the game server was lost")
    screenshots("hub-server-gone", wpage, clip={"x": 0, "y": 0, "width": 900, "height": 300})
    deadline = time.monotonic() + 90
    while not _service_redirects_to_oauth(hub.base):
        assert time.monotonic() < deadline, "the hub did not restart the service"
        time.sleep(0.3)
    print(f"the hub restarted the service {time.monotonic() - killed:.1f} s after it was killed")
    wpage.locator(".dichotomy-gone-reload").click()
    wpage.locator("[data-testid=clue-input]").wait_for(timeout=RENDER_TIMEOUT)
    expect(wpage.locator("[data-testid=clue-input]")).to_have_value(draft)
    assert wpage.locator("#dichotomy-gone").count() == 0
    others = [host, *(p for p in pages.values() if p is not wpage)]
    for other in others:  # every open page noticed, the host's too
        expect(other.locator("#dichotomy-gone")).to_be_visible()
    for other in others:
        other.reload()
        assert other.locator("#dichotomy-gone").count() == 0
    for other in [host, *pages.values()]:
        ready(other)
    wpage.locator("[data-testid=clue-input]").press("Enter")
    try:
        expect(wpage.locator("[data-testid=clue-input]")).to_have_count(0, timeout=8_000)
        left = len(writers) - 1
    except AssertionError:
        left = len(writers)  # refused (a variant of the pair): it types another word below
    for _ in range(left):
        _writer, wpage = find(pages, "[data-testid=clue-input]")
        box = wpage.locator("[data-testid=clue-input]")
        for _attempt in range(4):
            box.fill(next(words))
            box.press("Enter")
            try:
                expect(wpage.locator("[data-testid=clue-input]")).to_have_count(0, timeout=8_000)
                break
            except AssertionError:
                continue  # refused (a variant of the pair) or lost: type another word
    gpage.locator("[data-testid=guess-input]").wait_for()
    # as a word: a target such as "car" is inside the header's "Discarded" / "Cards left"
    assert hidden_from(gpage, target, tuple(pages))
    gpage.locator("[data-testid=guess-input]").fill(target)
    gpage.locator("[data-testid=guess-input]").press("Enter")
    for p in pages.values():
        p.locator("[data-testid=recap]").first.wait_for(timeout=60_000)
    expect(host.locator("[data-outcome=correct]")).to_be_visible()
    screenshots("hub-seat-recap", pages[writers[0]], full_page=True)

    # Another device: Ben signs in afresh at the service's address. His start page lists the table he
    # sits at and has a box for a code (no host links); typing the code brings his own seat back.
    phone, again = signed_in(browser, hub, "ben", root, landing=HOME_PATH)
    again.locator(".dichotomy-home-code input").wait_for(timeout=RENDER_TIMEOUT)
    ready(again)
    assert again.locator(".dichotomy-home-host-table, .dichotomy-home-run-class").count() == 0
    expect(again.locator(f".dichotomy-home-seats a[href='seat.ipynb?table={code}']")).to_be_visible()
    screenshots("hub-home-student", again, full_page=True)
    box = again.locator(".dichotomy-home-code input")
    box.fill("ZZZZZZ")
    box.press("Enter")
    expect(again.locator(".dichotomy-feedback")).to_contain_text("No table or class has the code ZZZZZZ")
    box.fill(code.lower())
    box.press("Enter")
    again.wait_for_url(re.compile(rf"seat\.ipynb\?table={code}"), timeout=60_000)
    again.locator(".dw-root[data-you='ben']").wait_for(timeout=RENDER_TIMEOUT)
    again.locator("[data-testid=recap]").first.wait_for(timeout=RENDER_TIMEOUT)
    # The teacher's start page lists the table with its host link.
    host.goto(root)
    hosted = host.locator(".dichotomy-home-hosted a.dichotomy-home-link")
    expect(hosted.first).to_be_visible(timeout=RENDER_TIMEOUT)
    assert hosted.first.inner_text().split()[-1] == code
    assert re.fullmatch(rf"host\.ipynb\?table={code}&host=[\w-]{{16,}}", hosted.first.get_attribute("href"))
    screenshots("hub-home-teacher", host, full_page=True)
    # The page kernels (started by the service for this hub) never hold the service's hub API token.
    kernels = [env for env in _process_environments() if f"DICHOTOMY_STORE={hub.store}" in env
               and "DICHOTOMY_HUB=1" in env and any(v.startswith("HTTP_X_DICHOTOMY_IDENTITY=") for v in env)]
    assert kernels and not any(v.startswith("JUPYTERHUB_API_TOKEN=") for env in kernels for v in env)
    for ctx in (teacher, phone, *contexts.values()):
        ctx.close()
    assert "jupyterhub-singleuser" not in hub.log_path.read_text(errors="replace")  # students' own servers are not involved


def test_the_store_and_the_hub_config_are_private_to_the_service(hub):
    """Modes, and another Unix user (created here) who may pass through the folders cannot read them."""
    import os
    import pwd
    import stat

    if os.geteuid() != 0:
        pytest.skip("creating a Unix user needs root (CI runs as root)")
    store = Path(hub.store)
    files = [store, Path(f"{store}-wal"), Path(f"{store}-shm"), hub.tmp / "dichotomy_config.py"]
    assert all(p.exists() for p in files), [p for p in files if not p.exists()]  # the pages hold the store open
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {"0o600"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in (store.parent, store.parent.parent)} == {"0o700"}
    name = f"dwprobe{os.getpid() % 100000}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        other = pwd.getpwnam(name)

        def readable(path: Path) -> bool:
            return subprocess.run(["cat", str(path)], user=other.pw_uid, group=other.pw_gid, extra_groups=[],
                                  capture_output=True).returncode == 0

        assert readable(Path("/etc/hostname"))  # the probe works: this user reads a world-readable file
        assert not any(readable(p) for p in files)
        # even with the folders opened for passing through, the files' own modes keep the user out
        for folder in (store.parent.parent, store.parent):
            folder.chmod(0o711)
        try:
            assert not any(readable(p) for p in files)
        finally:
            for folder in (store.parent, store.parent.parent):
                folder.chmod(0o700)
    finally:
        subprocess.run(["userdel", name], check=False)


def test_class_mode_behind_the_hub_seats_students_as_their_hub_users_and_refuses_a_classmates_link(browser, hub):
    """Issue 25: a signed-in student joins a class as their hub user (no name box) and their page becomes
    their seat; a classmate who opens their class link is refused and sees none of the seat's words.
    (The teacher's side runs through the store here: the teacher page behind the hub is in test_class_pages.)"""
    from dichotomy_widget import Classroom, SqliteStore

    store = SqliteStore(hub.store)
    room = Classroom.create("Hub class", deck="en", rounds=1, store=store)
    link = hub.base + f"/services/dichotomy/voila/render/class.ipynb?class={room.code}"
    contexts, pages = {}, {}
    for name in ("ana", "ben"):
        contexts[name], page = signed_in(browser, hub, name, link)
        page.locator("button.dichotomy-join").wait_for(timeout=RENDER_TIMEOUT)
        ready(page)
        assert page.locator(".dichotomy-name, .dichotomy-name input").count() == 0  # the hub says who this is
        expect(page.locator("button.dichotomy-join")).to_have_text(f"Join as {name}")
        expect(page.locator(".dichotomy-hub-user")).to_contain_text(f"Signed in to the hub as {name}")
        click_until(page, "button.dichotomy-join", ".dichotomy-lobby-box")
        expect(page.locator(".dichotomy-lobby-box")).to_contain_text(f"Hello {name}!")
        expect(page).to_have_url(re.compile(rf"class\.ipynb\?class={room.code}&student=[\w-]+$"))
        pages[name] = page
    room.join("Cleo")  # a third student (on a device of her own) makes a table
    assert [s.name for s in Classroom.open(room.code, store).state.students] == ["ana", "ben", "Cleo"]
    room.make_tables()
    table = room.start_all()[0]
    table.act(table.state.drawer, {"type": "pick", "pair": 1})  # the writers now see the Target
    victim = next(n for n in pages if n != table.state.name(table.state.guesser))
    thief = next(n for n in pages if n != victim)
    words = [table.state.target, table.state.foil] + [w for pair in table.state.current for w in pair]
    expect(pages[victim].locator("[data-testid=target]").first).to_have_text(table.state.target,
                                                                             timeout=RENDER_TIMEOUT)
    stolen = contexts[thief].new_page()
    stolen.goto(pages[victim].url)
    expect(stolen.locator(".dichotomy-message")).to_contain_text("not yours", timeout=RENDER_TIMEOUT)
    assert stolen.locator(".dw-root, .dichotomy-lobby-box").count() == 0
    assert all(hidden_from(stolen, w, (*pages, "Cleo")) for w in words)
    token = parse_qs(urlsplit(pages[victim].url).query)["student"][0]
    assert Classroom.open(room.code, store).student_for_token(token) is not None  # the victim keeps their place
    for ctx in contexts.values():
        ctx.close()
