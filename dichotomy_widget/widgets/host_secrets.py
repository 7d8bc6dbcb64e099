"""Two small widgets that bring a host's secret from the browser to the kernel without a synced trait.

- :class:`TeacherKeyBox`: a password box; the typed key travels once as a custom message, is checked in
  the kernel (``on_key`` callback) and is never sent back, stored in a trait or logged.
- :class:`BrowserSecret`: a random secret kept in this browser's ``localStorage`` (made on first use),
  sent to the kernel so a host without a teacher key still has a deck library only this browser sees.
"""

from __future__ import annotations

import logging
import re
from typing import Callable

import anywidget
import traitlets

from ..i18n import translator
from ..logs import log_failure

__all__ = ["TeacherKeyBox", "BrowserSecret", "SECRET_PATTERN"]

log = logging.getLogger(__name__)

#: What a browser secret looks like (32 random bytes, base64url): anything else is ignored.
SECRET_PATTERN = re.compile(r"[A-Za-z0-9_-]{40,64}")


class TeacherKeyBox(anywidget.AnyWidget):
    """"Teacher key: [*****] [Unlock]". ``status`` (text) and ``unlocked`` are the only synced state."""

    _esm = """
    export default {
      render({ model, el }) {
        el.classList.add("dichotomy-teacher-key");
        const form = document.createElement("form");
        form.className = "dichotomy-teacher-key-form";  // styled by _css
        const label = document.createElement("label");
        const texts = model.get("texts") || {};
        label.textContent = texts.label || "Teacher key";
        const input = document.createElement("input");
        input.type = "password";
        input.autocomplete = "current-password";
        input.className = "dichotomy-teacher-key-input";
        const id = "dichotomy-key-" + Math.random().toString(36).slice(2);
        input.id = id; label.htmlFor = id;
        const button = document.createElement("button");
        button.type = "submit";
        button.textContent = texts.unlock || "Unlock";
        button.className = "dichotomy-teacher-key-unlock";
        const status = document.createElement("p");
        status.className = "dichotomy-teacher-key-status";
        status.setAttribute("aria-live", "polite");
        form.append(label, input, button);
        el.append(form, status);
        const sync = () => {
          status.textContent = model.get("status");  // text only, never HTML
          form.hidden = model.get("unlocked");
          button.disabled = false;
        };
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          if (!input.value) { status.textContent = texts.empty || "Type the teacher key first."; return; }
          button.disabled = true;
          status.textContent = texts.checking || "Checking...";
          model.send({ key: input.value });
          input.value = "";
        });
        model.on("change:status", sync);
        model.on("change:unlocked", sync);
        model.on("msg:custom", (msg) => { if (msg && msg.checked) sync(); });
        sync();
      }
    };
    """
    _css = """
    .dichotomy-teacher-key-form { display: flex; gap: 0.5em; align-items: center; flex-wrap: wrap; }
    .dichotomy-teacher-key-input { font-size: 1em; padding: 0.3em; min-width: 12em; }
    .dichotomy-teacher-key-status { margin: 0.3em 0; }
    """
    status = traitlets.Unicode("").tag(sync=True)
    unlocked = traitlets.Bool(False).tag(sync=True)
    texts = traitlets.Dict().tag(sync=True)  # the box's own words in the page's language

    def __init__(self, on_key: Callable[[str], bool], lang: str = "en", **kwargs) -> None:
        super().__init__(**kwargs)
        _ = translator(lang, "pages").gettext
        self.texts = {"label": _("Teacher key"), "unlock": _("Unlock"), "empty": _("Type the teacher key first."),
                      "checking": _("Checking...")}
        self._lang = lang
        self._on_key = on_key
        self.on_msg(self._received)

    def _received(self, _widget: object, content: object, _buffers: object) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("key"), str):
            return
        try:
            self.unlocked = bool(self._on_key(content["key"]))
        except Exception as err:  # noqa: BLE001 - the page must keep working; the key is never logged
            log_failure(log, "checking the teacher key failed", err)
            self.status = translator(self._lang, "pages").gettext("Something went wrong. Please try again.")
        self.send({"checked": 1})


class BrowserSecret(anywidget.AnyWidget):
    """Invisible: sends this browser's library secret (from ``localStorage``) to ``on_secret``, once."""

    _esm = """
    const KEY = "dichotomy-host-library-secret";
    function secret() {
      let value = null;
      try { value = window.localStorage.getItem(KEY); } catch (e) { value = null; }
      if (!value || !/^[A-Za-z0-9_-]{40,64}$/.test(value)) {
        const bytes = new Uint8Array(32);
        crypto.getRandomValues(bytes);
        value = btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        try { window.localStorage.setItem(KEY, value); } catch (e) { /* private mode: this page only */ }
      }
      return value;
    }
    export default {
      render({ model, el }) {
        el.style.display = "none";
        let acked = false, tries = 0;
        const onMsg = (msg) => { if (msg && msg.ack) acked = true; };
        model.on("msg:custom", onMsg);
        const value = secret();
        const send = () => {
          if (acked || tries++ > 240) return;
          model.send({ secret: value });
          setTimeout(send, 500);
        };
        send();
        return () => model.off("msg:custom", onMsg);
      }
    };
    """

    def __init__(self, on_secret: Callable[[str], None], **kwargs) -> None:
        super().__init__(**kwargs)
        self._on_secret = on_secret
        self.received = False
        self.on_msg(self._received)

    def _received(self, _widget: object, content: object, _buffers: object) -> None:
        if not isinstance(content, dict):
            return
        value = content.get("secret")
        if not isinstance(value, str) or not SECRET_PATTERN.fullmatch(value):
            return
        self.send({"ack": 1})
        if self.received:  # the first secret wins: a page keeps one library
            return
        self.received = True
        try:
            self._on_secret(value)
        except Exception as err:  # noqa: BLE001
            log_failure(log, "opening this browser's deck library failed", err)
