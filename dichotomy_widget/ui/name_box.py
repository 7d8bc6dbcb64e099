"""A name box whose Enter sends exactly the text in the box.

An ipywidgets ``Text`` sends its value and its Enter ("submit") as separate messages; a name typed
fast and submitted with Enter could reach the kernel before the last letters did ("Dariusz" seated as
"Darius"). This box reads the input element's value in the keydown handler and sends it with the
submit: ``{"submit": "<the text>"}``. It also limits the length as the student types (``maxlength``)
and carries a real ``<label>``.
"""

from __future__ import annotations

from typing import Any, Callable

import anywidget
import traitlets

__all__ = ["NameBox"]


class NameBox(anywidget.AnyWidget):
    """A labelled text box; ``on_submit(callback)`` calls ``callback(text)`` with the box's exact text."""

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
        input.maxLength = model.get("maxlength");
        input.placeholder = model.get("placeholder");
        input.value = model.get("value");
        input.style.cssText = "font: inherit; font-size: max(16px, 1em); min-height: 44px; box-sizing: border-box; " +
          "padding: 0.35em 0.5em; margin-left: 0.5em; max-width: 100%; width: 18em;";  // 16 px: no zoom on a phone
        input.addEventListener("input", () => {
          model.set("value", input.value);
          model.save_changes();
        });
        input.addEventListener("keydown", (ev) => {
          if (ev.key !== "Enter" || ev.isComposing) return;
          ev.preventDefault();
          const text = input.value;  // exactly what is in the box now
          model.set("value", text);
          model.save_changes();
          model.send({ submit: text });
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
    value = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Name").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    maxlength = traitlets.Int(24).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._callbacks: list[Callable[[str], None]] = []
        self.on_msg(self._on_submit_msg)

    def on_submit(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(text)`` when Enter is pressed, with the text the box held at that moment."""
        self._callbacks.append(callback)

    def _on_submit_msg(self, _widget: object, content: Any, _buffers: object) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("submit"), str):
            return
        text = content["submit"][: 10 * self.maxlength]
        self.value = text
        for callback in list(self._callbacks):
            callback(text)
