"""A student without a browser, for tests and benches that need many devices.

Browser contexts cannot choose their source address; this client can. It loads a seat page over HTTP
from its own loopback address (Linux routes all of 127.0.0.0/8 to this machine, so 127.0.0.11 and
127.0.0.12 are two 'devices'), then opens the page kernel's websocket like voila's page does and speaks
the widget protocol as ipywidgets 8's front end does: every widget's state at once over the
``jupyter.widget.control`` comm (``request_states``), ``request_state`` for a widget opened later, and
custom messages (the game's actions). Voila lets only widget and info messages through, exactly as for
a browser.

Behind a reverse proxy that pins a page to a server with a cookie (HAProxy in
``tests/scale_out_support.py``), the client sends ``cookie`` with its first request if given, keeps
the cookies the page's response sets (``cookies``) and sends them with the websocket, as a browser does.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import uuid
from typing import Any, Callable
from urllib.parse import urlsplit

import websocket  # websocket-client, a dependency of jupyter_server


def _get(url: str, source: str, timeout: float, cookie: str) -> tuple[int, str, dict[str, str]]:
    """GET ``url`` from ``source``; (status, body, the cookies the response sets)."""
    import http.client
    from http.cookies import SimpleCookie

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""),
                     headers={"Cookie": cookie} if cookie else {})
        resp = conn.getresponse()
        jar: dict[str, str] = {}
        for header in resp.headers.get_all("Set-Cookie") or []:
            jar.update({k: m.coded_value for k, m in SimpleCookie(header).items()})
        return resp.status, resp.read().decode("utf-8", "replace"), jar
    finally:
        conn.close()

CONFIG = re.compile(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', re.S)


class WireStudent:
    """One seat page held open from ``source``; ``view`` is the seat widget's latest view."""

    def __init__(self, url: str, source: str, timeout: float = 120.0, cookie: str = "") -> None:
        self.source = source
        self.status, body, self.cookies = _get(url, source, timeout, cookie)
        if cookie:
            self.cookies = {**dict(c.strip().split("=", 1) for c in cookie.split(";") if "=" in c), **self.cookies}
        found = CONFIG.search(body)
        if self.status != 200 or not found:
            raise AssertionError(f"seat page from {source}: HTTP {self.status}: {body[:300]}")
        config = json.loads(found.group(1))
        self.kernel_id = config["kernelId"]
        parts = urlsplit(url)
        sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout, source_address=(source, 0))
        self.session = uuid.uuid4().hex
        self.ws = websocket.create_connection(
            f"ws://{parts.hostname}:{parts.port}{config['baseUrl']}api/kernels/{self.kernel_id}/channels"
            f"?session_id={self.session}", socket=sock, timeout=timeout,
            cookie="; ".join(f"{k}={v}" for k, v in self.cookies.items()) or None)
        self.ws.settimeout(1.0)
        self.states: dict[str, dict[str, Any]] = {}
        self.replies: list[dict[str, Any]] = []
        self.seat_comm: str | None = None
        self._cond = threading.Condition()
        self._closed = False
        self._control = uuid.uuid4().hex  # all states in one reply, as the page's widget manager asks
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._send("shell", "comm_open", {"comm_id": self._control, "target_name": "jupyter.widget.control",
                                          "data": {}}, metadata={"version": "1.0.0"})
        self._send("shell", "comm_msg", {"comm_id": self._control, "data": {"method": "request_states"}})

    # -- wire ---------------------------------------------------------------------------------------
    def _send(self, channel: str, msg_type: str, content: dict[str, Any],
              metadata: dict[str, Any] | None = None) -> None:
        msg = {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "student",
                          "session": self.session, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ"), "version": "5.3"},
               "parent_header": {}, "metadata": metadata or {}, "content": content, "channel": channel,
               "buffers": []}
        self.ws.send(json.dumps(msg))

    def _read(self) -> None:
        while not self._closed:
            try:
                raw = self.ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except (websocket.WebSocketException, OSError):
                break
            if not isinstance(raw, str):
                continue  # a binary frame (buffers): the game sends none
            try:
                msg = json.loads(raw)
            except ValueError:
                continue  # not a JSON message (nothing the game sends)
            msg_type, content = msg.get("header", {}).get("msg_type"), msg.get("content", {})
            with self._cond:
                if msg_type == "comm_info_reply":
                    for comm_id in content.get("comms", {}):
                        self._send("shell", "comm_msg", {"comm_id": comm_id, "data": {"method": "request_state"}})
                elif msg_type == "comm_open":
                    self._send("shell", "comm_msg", {"comm_id": content["comm_id"], "data": {"method": "request_state"}})
                elif msg_type == "comm_msg":
                    data = content.get("data", {})
                    comm_id = content.get("comm_id")
                    if data.get("method") == "update_states" and comm_id == self._control:
                        for model_id, model in (data.get("states") or {}).items():
                            self._update(model_id, model.get("state", {}))
                        self._send("shell", "comm_close", {"comm_id": self._control, "data": {}})
                    elif data.get("method") == "update":
                        self._update(comm_id, data.get("state", {}))
                    elif data.get("method") == "custom":
                        self.replies.append(data.get("content", {}))
                self._cond.notify_all()

    def _update(self, comm_id: str, state: dict[str, Any]) -> None:
        self.states.setdefault(comm_id, {}).update(state)
        if self.states[comm_id].get("kind") == "seat" and "view" in self.states[comm_id]:
            self.seat_comm = comm_id

    # -- the game ------------------------------------------------------------------------------------
    @property
    def view(self) -> dict[str, Any]:
        with self._cond:
            return self._seat_view()

    def _seat_view(self) -> dict[str, Any]:
        return dict(self.states.get(self.seat_comm, {}).get("view", {})) if self.seat_comm else {}

    def wait_for(self, found: Callable[[dict[str, dict[str, Any]]], bool], timeout: float) -> bool:
        """Wait until ``found(states)`` holds (every widget's state by comm id), woken by each message
        read, never polling; whether it held within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not found(self.states):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def wait(self, check: Callable[[dict[str, Any]], bool], timeout: float = 60.0) -> dict[str, Any]:
        """Wait until ``check(view)`` holds; the view, or AssertionError with the last one."""
        matched: dict[str, Any] = {}

        def found(_states: dict[str, dict[str, Any]]) -> bool:
            view = self._seat_view()
            if view and check(view):
                matched.update(view)
                return True
            return False

        if not self.wait_for(found, timeout):
            raise AssertionError(f"{self.source}: view never matched; last phase {self.view.get('phase')!r}")
        return matched

    def act(self, action: dict[str, Any]) -> None:
        """Send a game action the way the page's buttons do (a custom widget message)."""
        assert self.seat_comm, "the seat widget has not arrived yet"
        self._send("shell", "comm_msg", {"comm_id": self.seat_comm,
                                         "data": {"method": "custom", "content": {**action, "id": 1}}})

    def close(self) -> None:
        self._closed = True
        try:
            self.ws.close()
        except (websocket.WebSocketException, OSError):
            pass
