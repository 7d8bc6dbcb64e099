"""The page identity strategy (pages/identity.py): a link token without a hub, the hub user behind one."""

from __future__ import annotations

import ipywidgets as W

from dichotomy_widget.i18n import translator
from dichotomy_widget.pages.hub_identity import IDENTITY_ENV, HubIdentity, sign_identity
from dichotomy_widget.pages.identity import HubUserIdentity, LinkIdentity, page_identity

SECRET = "a-test-secret-of-enough-length"
TR = translator("en", "pages")


def hub_env(identity: HubIdentity | None) -> dict[str, str]:
    env = {"DICHOTOMY_HUB": "1", "DICHOTOMY_HUB_SECRET": SECRET, "JUPYTERHUB_SERVICE_PREFIX": "/services/d/"}
    if identity is not None:
        env[IDENTITY_ENV] = sign_identity(identity, SECRET.encode())
    return env


def test_without_a_hub_the_link_is_the_identity():
    who = page_identity({})
    assert isinstance(who, LinkIdentity) and not who.hub
    assert who.problem(TR) is None and who.token("class", "ABCDEF") is None and who.names() == []
    assert who.owns("class", "ABCDEF", "any-token-from-a-link") and who.may_host()
    url, body = W.HTML(), W.HTML()
    assert who.framed([url, body], TR) == [url, body]


def test_behind_the_hub_tokens_are_the_users_own_per_kind_and_code():
    ana = page_identity(hub_env(HubIdentity("ana", "Ana Lima")))
    ben = page_identity(hub_env(HubIdentity("ben", "Ben", host=True)))
    assert isinstance(ana, HubUserIdentity) and ana.problem(TR) is None
    mine = ana.token("class", "ABCDEF")
    assert mine and mine == page_identity(hub_env(HubIdentity("ana", "Ana Lima"))).token("class", "ABCDEF")
    assert len({mine, ana.token("table", "ABCDEF"), ana.token("class", "ABCDEG"), ben.token("class", "ABCDEF")}) == 4
    assert ana.owns("class", "ABCDEF", mine) and ana.owns("class", "ABCDEF", None)
    assert not ben.owns("class", "ABCDEF", mine) and not ana.owns("table", "ABCDEF", mine)
    assert ana.names() == ["Ana Lima", "ana"] and not ana.may_host() and ben.may_host()


def test_behind_the_hub_a_page_without_a_signed_user_is_refused_and_the_bar_shows_once():
    nobody = page_identity(hub_env(None))
    assert nobody.problem(TR) is not None and nobody.token("class", "ABCDEF") is None
    assert not nobody.owns("class", "ABCDEF", "x" * 24) and not nobody.may_host()
    ana = page_identity(hub_env(HubIdentity("ana", "<b>Ana</b>")))
    url, body = W.HTML(), W.HTML()
    framed = ana.framed([url, body], TR)
    assert framed == [url, ana.bar, body] and ana.framed(framed, TR) == framed
    assert "&lt;b&gt;Ana&lt;/b&gt;" in ana.bar.value and 'href="/services/d/logout"' in ana.bar.value
