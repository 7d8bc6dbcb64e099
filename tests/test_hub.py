"""JupyterHub mode without a hub: signed identities, hub seat keys, the hub pages, hub-config, hub-service.

The real hub (OAuth, proxy, Chromium) is in tests/browser/test_hub_browser.py.
"""

from __future__ import annotations

import argparse
import ast
import os
import stat
from urllib.parse import parse_qs

import pytest
import yaml

from dichotomy_widget import Table
from dichotomy_widget.server.hub_service import hub_config, service_command
from dichotomy_widget.server.serve import build_parser, main
from dichotomy_widget.pages.entry import host_page, seat_page
from dichotomy_widget.server.hub_auth import identity_from_hub_user, kernel_ids_in_path
from dichotomy_widget.pages.hub_identity import (IDENTITY_ENV, HubIdentity, HubIdentityError, current_identity,
                                              hub_mode, hub_seat_token, sign_identity, verify_identity)
from dichotomy_widget.pages.host_page import HostPage
from dichotomy_widget.pages.seat_page import SeatPage
from dichotomy_widget.options import TableOptions

SECRET = "a-test-secret-of-enough-length"
ANA = HubIdentity("ana", "Ana Lima")
BEN = HubIdentity("ben", "ben")
TEACHER = HubIdentity("teacher", "Ms Teacher", host=True)


def env_for(identity: HubIdentity | None, secret: str = SECRET, **extra: str) -> dict[str, str]:
    env = {"DICHOTOMY_HUB": "1", "DICHOTOMY_HUB_SECRET": secret, **extra}
    if identity is not None:
        env[IDENTITY_ENV] = sign_identity(identity, secret.encode())
    return env


@pytest.fixture()
def store(tmp_path):
    return str(tmp_path / "tables.sqlite3")


@pytest.fixture()
def code(store):
    page = HostPage("", store=store, env=env_for(TEACHER))
    assert page.state == "create", page.message
    assert page.create(deck="en", seed=5, options=TableOptions(rounds=1))
    return page.table.code


def seat(store, query: str, identity: HubIdentity | None) -> SeatPage:
    return SeatPage(query, store=store, env=env_for(identity))


def query_of(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(page.url.query).items()}


# -- signed identity -------------------------------------------------------------------------------


def test_a_signed_identity_round_trips_and_any_change_is_refused():
    value = sign_identity(TEACHER, SECRET.encode())
    assert verify_identity(value, SECRET.encode()) == TEACHER
    payload, sig = value.split(".")
    forged_payload = sign_identity(HubIdentity("teacher", "Ms Teacher", host=False), SECRET.encode()).split(".")[0]
    for bad in (None, "", "nodot", f"{forged_payload}.{sig}", f"{payload}.{sig[:-2]}AA", value + ".x", "x" * 5000):
        with pytest.raises(HubIdentityError):
            verify_identity(bad, SECRET.encode())
    with pytest.raises(HubIdentityError):  # another service's secret
        verify_identity(value, b"another-secret-of-enough-length")


def test_current_identity_needs_the_secret_and_the_signed_header():
    assert current_identity(env_for(ANA)) == ANA
    with pytest.raises(HubIdentityError, match="not opened through the hub"):
        current_identity(env_for(None))
    with pytest.raises(HubIdentityError) as info:
        current_identity({IDENTITY_ENV: sign_identity(ANA, b"short")})
    assert info.value.code == "hub_secret"
    assert hub_mode({"DICHOTOMY_HUB": "1"}) and not hub_mode({}) and not hub_mode({"DICHOTOMY_HUB": "0"})


def test_hub_seat_tokens_are_stable_per_user_and_table_and_secret():
    token = hub_seat_token(SECRET.encode(), "ABCDEF", "ana")
    assert token == hub_seat_token(SECRET.encode(), "ABCDEF", "ana") and len(token) == 24
    others = {hub_seat_token(SECRET.encode(), "ABCDEF", "ben"), hub_seat_token(SECRET.encode(), "ABCDEG", "ana"),
              hub_seat_token(b"another-secret-of-enough-length", "ABCDEF", "ana")}
    assert token not in others and len(others) == 3


def test_identity_from_the_hub_user_model_decides_who_hosts():
    env = {"DICHOTOMY_HUB_HOST_GROUPS": "teachers, staff"}
    assert identity_from_hub_user({"name": "t", "groups": ["staff"]}, env).host
    assert not identity_from_hub_user({"name": "s", "groups": ["students"]}, env).host
    assert identity_from_hub_user({"name": "root", "admin": True, "groups": []}, env).host
    assert not identity_from_hub_user({"name": "root", "admin": True}, {**env, "DICHOTOMY_HUB_ADMINS_HOST": "0"}).host
    named = identity_from_hub_user({"name": "ana", "user_info": {"display_name": "Ana Lima"}}, env)
    assert (named.name, named.display_name) == ("ana", "Ana Lima")


# -- hub pages ---------------------------------------------------------------------------------------


def test_a_student_joins_by_the_link_with_no_name_box_and_gets_the_same_seat_on_any_device(store, code):
    page = seat(store, f"table={code}", ANA)
    assert page.state == "form"
    assert page.name_input not in page.children  # no name box: the hub says who this is
    assert "Ana Lima" in page.join_button.description
    assert page.join()
    assert page.state == "seat"
    assert page.hub_bar in page.children and "Signed in to the hub as <b>Ana Lima</b>" in page.hub_bar.value
    assert query_of(page) == {"table": code, "seat": hub_seat_token(SECRET.encode(), code, "ana")}
    assert [s.name for s in Table.open(code, store).state.seats] == ["Ana Lima"]
    again = seat(store, f"table={code}", ANA)  # the plain join link, another device: the seat is back
    assert again.state == "seat" and again.seat == page.seat
    by_link = seat(store, page.url.query, ANA)  # the seat link itself, too
    assert by_link.state == "seat" and by_link.seat == page.seat
    assert not seat(store, f"table={code}", ANA).join()  # already seated: nothing new is created
    assert len(Table.open(code, store).state.seats) == 1


def test_a_copied_seat_link_is_refused_to_another_hub_user(store, code):
    ana = seat(store, f"table={code}", ANA)
    assert ana.join()
    copied = seat(store, ana.url.query, BEN)
    assert copied.state == "refused"
    assert "another player" in copied.message
    assert copied.widget is None
    assert [s.name for s in Table.open(code, store).state.seats] == ["Ana Lima"]


def test_pages_without_a_valid_hub_identity_are_refused(store, code):
    assert seat(store, f"table={code}", None).state == "refused"
    forged = SeatPage(f"table={code}", store=store,
                         env={**env_for(None), IDENTITY_ENV: sign_identity(ANA, b"not-the-service-secret!")})
    assert forged.state == "refused" and "through the hub" in forged.message
    assert HostPage("", store=store, env=env_for(None)).state == "refused"


def test_a_taken_display_name_falls_back_to_the_hub_user_name(store, code):
    assert seat(store, f"table={code}", ANA).join()
    twin = seat(store, f"table={code}", HubIdentity("ana2", "Ana Lima"))
    assert twin.join()
    assert [s.name for s in Table.open(code, store).state.seats] == ["Ana Lima", "ana2"]


def test_only_hosts_may_host_and_the_host_link_still_needs_its_token(store):
    refused = HostPage("", store=store, env=env_for(ANA))
    assert refused.state == "refused" and "may not host" in refused.message
    host = HostPage("", store=store, env=env_for(TEACHER))
    assert host.create(deck="en", seed=1, options=TableOptions(rounds=1))
    link = host.url.query
    assert HostPage(link, store=store, env=env_for(TEACHER)).state == "host"
    assert HostPage(link, store=store, env=env_for(ANA)).state == "refused"  # a student with the host link
    table = query_of(host)["table"]
    assert HostPage(f"table={table}&host=forged", store=store, env=env_for(TEACHER)).state == "refused"


def test_a_started_game_refuses_new_hub_players_but_resumes_seated_ones(store, code):
    for who in (ANA, BEN, HubIdentity("cy", "Cy")):
        assert seat(store, f"table={code}", who).join()
    Table.open(code, store).start()
    assert seat(store, f"table={code}", HubIdentity("dee", "Dee")).state == "refused"
    assert seat(store, f"table={code}", BEN).state == "seat"


def test_outside_a_hub_the_pages_are_unchanged(store, monkeypatch):
    monkeypatch.delenv("DICHOTOMY_HUB", raising=False)
    page = host_page("", store=store, env={})
    assert type(page) is HostPage and not page.who.hub and page.hub_bar is None
    assert page.create(deck="en", seed=2, options=TableOptions(rounds=1))
    student = seat_page(f"table={page.table.code}", store=store)
    assert type(student) is SeatPage and student.state == "form" and student.name_input in student.children
    monkeypatch.setenv("DICHOTOMY_HUB", "1")  # the same page class, given the hub user as its identity
    hub = seat_page(f"table={page.table.code}", store=store)
    assert type(hub) is SeatPage and hub.who.hub and hub.state == "refused"  # no signed hub user here


# -- hub-config and hub-service ----------------------------------------------------------------------


def config_args(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(["hub-config", *argv])
    args.host_group = args.host_group or ["teachers"]
    args.player_group = args.player_group or ["students"]
    args.store = args.store or "/srv/dichotomy/tables.sqlite3"
    return args


def run_config(text: str):
    """Execute a generated jupyterhub_config.py snippet against a real traitlets Config."""
    from traitlets.config import Config

    c = Config()
    exec(compile(text, "jupyterhub_config.py", "exec"), {"c": c})  # noqa: S102 - our own output
    services = c.JupyterHub.services.get_value([])
    roles = c.JupyterHub.load_roles.get_value([])
    groups = c.JupyterHub.load_groups.get_value({})
    return services, roles, groups


def test_hub_config_declares_the_managed_service_its_role_and_groups(capsys):
    assert main(["hub-config", "--host-group", "staff", "--port", "10222"]) == 0
    text = capsys.readouterr().out
    services, roles, groups = run_config(text)
    (service,) = services
    assert service["name"] == "dichotomy" and service["url"] == "http://127.0.0.1:10222"
    assert service["command"][1:] == ["-m", "dichotomy_widget.server.serve", "hub-service"]
    assert service["oauth_no_confirm"] is True
    env = service["environment"]
    assert env["DICHOTOMY_HUB_HOST_GROUPS"] == "staff" and len(env["DICHOTOMY_HUB_SECRET"]) >= 32
    assert roles == [{"name": "dichotomy-players", "description": roles[0]["description"],
                      "scopes": ["access:services!service=dichotomy"], "groups": ["students", "staff"]}]
    assert set(groups) == {"staff", "students"}
    assert hub_config(config_args()) != hub_config(config_args())  # a fresh secret each time


def test_hub_config_for_tljh_runs_as_a_system_user_and_for_z2jh_mounts_the_secret_and_the_store(capsys):
    assert main(["hub-config", "--flavor", "tljh"]) == 0
    text = capsys.readouterr().out
    assert "jupyterhub_config.d" in text
    (service,), _roles, _groups = run_config(text)
    assert service["user"] == "dichotomy"
    assert main(["hub-config", "--flavor", "z2jh", "--store", "postgresql://u:p@db:5432/game"]) == 0
    values = yaml.safe_load(capsys.readouterr().out)
    svc = values["hub"]["services"]["dichotomy"]
    assert svc["url"] == "http://hub:10101" and svc["environment"]["DICHOTOMY_STORE"] == "postgresql://u:p@db:5432/game"
    assert values["hub"]["loadRoles"]["dichotomy-players"]["scopes"] == ["access:services!service=dichotomy"]
    assert values["hub"]["service"]["extraPorts"][0]["port"] == 10101
    assert values["proxy"]["chp"]["networkPolicy"]["egress"][0]["ports"] == [{"port": 10101}]
    # the secret comes from a mounted Kubernetes Secret, never from values.yaml
    assert "DICHOTOMY_HUB_SECRET" not in svc["environment"]
    assert svc["environment"]["DICHOTOMY_HUB_SECRET_FILE"] == "/etc/dichotomy/hub-secret"
    assert values["hub"]["extraVolumeMounts"] == [{"name": "dichotomy-secret", "mountPath": "/etc/dichotomy",
                                                   "readOnly": True}]
    # by default an SQLite store on its own volume, mounted into the hub pod
    assert main(["hub-config", "--flavor", "z2jh", "--all-users"]) == 0
    values = yaml.safe_load(capsys.readouterr().out)
    assert values["hub"]["services"]["dichotomy"]["environment"]["DICHOTOMY_STORE"] == "/srv/dichotomy/store/tables.sqlite3"
    assert {"name": "dichotomy-store", "persistentVolumeClaim": {"claimName": "dichotomy-store"}} in values["hub"]["extraVolumes"]
    assert {"name": "dichotomy-store", "mountPath": "/srv/dichotomy"} in values["hub"]["extraVolumeMounts"]
    assert values["hub"]["extraVolumes"][0]["secret"] == {"secretName": "dichotomy", "defaultMode": 0o440}
    assert "extra_user_scopes.add('access:services!service=dichotomy')" in values["hub"]["extraConfig"]["dichotomy-groups"]
    with pytest.raises(SystemExit, match="PostgreSQL"):
        main(["hub-config", "--flavor", "z2jh", "--store", "/srv/tables.sqlite3"])


def service_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["hub-service", *argv])


def test_hub_service_runs_voila_behind_the_prefix_with_the_hub_identity_provider(tmp_path):
    store = tmp_path / "db" / "tables.sqlite3"
    hub_env = {"JUPYTERHUB_SERVICE_URL": "http://127.0.0.1:10333", "JUPYTERHUB_SERVICE_PREFIX": "/services/dichotomy/",
               "DICHOTOMY_STORE": str(store), "PATH": os.environ.get("PATH", "")}
    cmd, env = service_command(service_args(), hub_env)
    assert "--port=10333" in cmd and "--Voila.ip=127.0.0.1" in cmd
    assert "--Voila.base_url=/services/dichotomy/" in cmd
    assert "--Voila.identity_provider_class=dichotomy_widget.server.hub_auth.HubIdentityProvider" in cmd
    assert "--VoilaConfiguration.http_header_envs=X-Dichotomy-Identity" in cmd
    managers = [a for a in cmd if a.startswith("--VoilaConfiguration.multi_kernel_manager_class=")]
    assert managers == ["--VoilaConfiguration.multi_kernel_manager_class=dichotomy_widget.server.hub_auth.HubKernelManager"]
    assert "--BoundedKernelManager.max_pages_per_device=4" in cmd  # the page bounds, per hub user
    assert env["DICHOTOMY_HUB"] == "1" and env["DICHOTOMY_STORE"] == str(store)
    secret_file = store.with_name("hub-secret")
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600  # created once, private
    assert env["DICHOTOMY_HUB_SECRET"] == secret_file.read_text().strip()
    _cmd, again = service_command(service_args(), hub_env)
    assert again["DICHOTOMY_HUB_SECRET"] == env["DICHOTOMY_HUB_SECRET"]  # seats survive a restart
    _cmd, public = service_command(service_args(), {**hub_env, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/services/dichotomy/"})
    assert public["DICHOTOMY_SEAT_URL"] == "https://hub.example.org/services/dichotomy/voila/render/seat.ipynb"


def test_hub_service_refuses_to_run_outside_a_hub_or_without_a_secret_for_postgresql(tmp_path):
    with pytest.raises(SystemExit, match="started by JupyterHub"):
        service_command(service_args(), {"DICHOTOMY_STORE": str(tmp_path / "t.sqlite3")})
    from dichotomy_widget.server.hub_service import _secret

    with pytest.raises(SystemExit, match="DICHOTOMY_HUB_SECRET"):
        _secret({}, "postgresql://u@db/game")
    assert _secret({"DICHOTOMY_HUB_SECRET": SECRET}, "postgresql://u@db/game") == SECRET
    ast.parse(hub_config(config_args()))  # the plain snippet is valid Python


def test_hub_pages_escape_hub_names_and_give_hub_advice_for_a_localhost_link(store):
    env = env_for(HubIdentity("t2", "<img src=x onerror=alert(1)>", host=True),
                  VOILA_REQUEST_URL="http://127.0.0.1:8000/services/dichotomy/voila/render/host.ipynb",
                  JUPYTERHUB_SERVICE_PREFIX="/services/dichotomy/")
    host = HostPage("", store=store, env=env)
    assert "<img" not in host.hub_bar.value and "&lt;img" in host.hub_bar.value
    assert 'href="/services/dichotomy/logout"' in host.hub_bar.value
    assert host.create(deck="en", seed=4, options=TableOptions(rounds=1))
    assert host.link.startswith("http://127.0.0.1:8000/services/dichotomy/voila/render/seat.ipynb?table=")
    assert "c.JupyterHub.public_url" in host.join_info.value and "dichotomy serve" not in host.join_info.value
    assert host.children[:2] == (host.url, host.hub_bar)


def test_kernel_ids_are_found_in_every_voila_kernel_route():
    kid = "0b4f6c2e-8a1d-4e3b-9f7a-1c2d3e4f5a6b"
    assert kernel_ids_in_path((), {"kernel_id": kid}) == [kid]  # /api/kernels/<id>(/channels)
    assert kernel_ids_in_path((kid,), {}) == [kid]  # /voila/api/shutdown/<id>
    assert kernel_ids_in_path(("host.ipynb",), {}) == []  # a page


def test_without_a_table_in_the_link_the_hub_seat_page_asks_only_for_the_code(store, code):
    page = seat(store, "", BEN)
    assert page.state == "form" and page.code_input in page.children and page.name_input not in page.children
    page.code_input.value = "ZZZZZZ"
    assert not page.join() and "ZZZZZZ" in page.message and page.state == "form"
    page.code_input.value = code.lower()
    assert page.join() and page.state == "seat"
    assert query_of(page)["table"] == code
    assert [s.name for s in Table.open(code, store).state.seats] == ["ben"]


def test_a_derived_seat_token_claims_one_seat_only_and_short_tokens_are_refused():
    from dichotomy_widget.errors import NotAllowed, SeatNotFound

    table = Table.create(deck="en", rounds=1, seed=1)
    token = hub_seat_token(SECRET.encode(), table.code, "ana")
    ticket = table.join("Ana", token=token)
    assert table.seat_for_token(token) == ticket.seat
    with pytest.raises(NotAllowed) as info:  # two tabs of the same hub user pressing Join at once
        table.join("Ana again", token=token)
    assert info.value.code == "already_seated"
    with pytest.raises(SeatNotFound):
        table.join("Ben", token="short")
    assert [s.name for s in table.state.seats] == ["Ana"]


def test_the_hub_kernel_manager_bounds_pages_per_hub_user_not_per_proxy_address(monkeypatch):
    from types import SimpleNamespace

    from tornado.httputil import HTTPHeaders, HTTPServerRequest

    from dichotomy_widget.server.hub_auth import HubKernelManager

    monkeypatch.setenv("DICHOTOMY_HUB_SECRET", SECRET)
    manager = HubKernelManager(max_kernels=0)

    def request_from(identity: HubIdentity | None):
        headers = HTTPHeaders({"X-Dichotomy-Identity": sign_identity(identity, SECRET.encode())} if identity else {})
        return SimpleNamespace(request=HTTPServerRequest(method="GET", uri="/seat.ipynb", headers=headers))

    request = request_from(ANA).request
    request.remote_ip = "127.0.0.1"  # every request comes from the hub's proxy
    assert manager.device(SimpleNamespace(request=request)) == ("hub user ana", False)
    assert manager.device(request_from(TEACHER)) == ("hub user teacher", True)  # hosts run several tables
    outsider = request_from(None).request
    outsider.remote_ip = "10.0.0.9"
    assert manager.device(SimpleNamespace(request=outsider)) == ("10.0.0.9", False)


def test_a_hub_host_saves_decks_with_the_hub_account_not_one_browser(store):
    from dichotomy_widget.pages.hub_identity import hub_library_secret

    page = HostPage("", store=store, env=env_for(TEACHER))
    assert page.key_box is None and page.deck_form.library is not None
    assert "No teacher key" not in all_html(page) and "saved with your hub account" in all_html(page)
    other_device = HostPage("", store=store, env=env_for(TEACHER))
    assert other_device.deck_form.library.stream == page.deck_form.library.stream
    colleague = HostPage("", store=store, env=env_for(HubIdentity("t2", "T2", host=True)))
    assert colleague.deck_form.library.stream != page.deck_form.library.stream
    assert hub_library_secret(SECRET.encode(), "teacher") != hub_seat_token(SECRET.encode(), "", "teacher")


def all_html(widget) -> str:
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        value = getattr(w, "value", None)
        if isinstance(value, str):
            out.append(value)
        stack.extend(getattr(w, "children", ()))
    return "\n".join(out)
