"""A one-line box (a name, a table or class code, a deck name) that never loses what was typed.

An ipywidgets ``Text`` syncs its value as state updates, which the front end throttles (one in flight
per widget, the rest held back until the kernel answers), while its Enter ("submit") and every button
click go out at once as custom messages: a name typed fast and sent with Enter reached the kernel before
its last letters did ("Dariusz" seated as "Darius", "Maximiliano" as "M"). This box sends every edit as
a custom message too (``{"value": "<the text>"}``), so edits and clicks reach the kernel in the order
they were made, whichever box or button they come from, and its Enter carries the box's exact text
(``{"submit": "<the text>"}``). It limits the length as the user types (``maxlength``), carries a real
``<label>`` and relabels itself when the page switches language.
"""

from __future__ import annotations

from typing import Any, Callable

import anywidget
import traitlets

__all__ = ["NameBox"]


class NameBox(anywidget.AnyWidget):
    """A labelled one-line text box; ``on_submit(callback)`` calls ``callback(text)`` with the box's exact
    text on Enter, and ``value`` always holds what the box held at the user's last edit."""

    _esm = """
    export default {
      render({ model, el }) {
        const id = "dichotomy-name-" + Math.random().toString(36).slice(2);
        const label = document.createElement("label");
        label.htmlFor = id;
        label.className = "dichotomy-name-label";
        label.textContent = model.get("label");
        const input = document.createElement("input");
        input.id = id;
        input.type = "text";
        input.autocomplete = "off";
        input.spellcheck = false;
        const caps = model.get("autocapitalize");
        if (caps) input.setAttribute("autocapitalize", caps);
        input.maxLength = model.get("maxlength");
        input.placeholder = model.get("placeholder");
        input.value = model.get("value");
        input.className = "dichotomy-name-input";  // styled by _css
        // Edits go out as messages, not as (throttled) state updates: see the module's docstring.
        const tell = (kind) => {
          const text = input.value;
          model.set("value", text);  // this view's copy; the kernel sets its own from the message
          model.send({ [kind]: text });
        };
        input.addEventListener("input", () => tell("value"));
        input.addEventListener("keydown", (ev) => {
          if (ev.key !== "Enter" || ev.isComposing) return;
          ev.preventDefault();
          tell("submit");  // exactly what is in the box now
        });
        model.on("change:value", () => {
          if (input.value !== model.get("value")) input.value = model.get("value");
        });
        // the page may switch language: relabel in place (text only)
        model.on("change:label", () => { label.textContent = model.get("label"); });
        model.on("change:placeholder", () => { input.placeholder = model.get("placeholder"); });
        el.append(label, input);
      }
    };
    """
    #: 16 px at least: a phone does not zoom into the box when it gets focus; 44 px: a finger's size.
    _css = """
    .dichotomy-name-input { font: inherit; font-size: max(16px, 1em); min-height: 44px; box-sizing: border-box;
      padding: 0.35em 0.5em; margin-left: 0.5em; max-width: 100%; width: 18em; }
    """
    value = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Name").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    maxlength = traitlets.Int(24).tag(sync=True)
    #: The phone keyboard's capitals: "" (the browser's), "words" or "characters" (codes).
    autocapitalize = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._callbacks: list[Callable[[str], None]] = []
        self.on_msg(self._on_box_msg)

    def on_submit(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(text)`` when Enter is pressed, with the text the box held at that moment."""
        self._callbacks.append(callback)

    def _on_box_msg(self, _widget: object, content: Any, _buffers: object) -> None:
        if not isinstance(content, dict):
            return
        for kind in ("value", "submit"):
            text = content.get(kind)
            if isinstance(text, str):
                break
        else:
            return
        text = text[: 10 * self.maxlength]
        with self._lock_property(value=text):  # the browser has it already: no echo over newer typing
            self.value = text
        if kind == "submit":
            for callback in list(self._callbacks):
                callback(text)
