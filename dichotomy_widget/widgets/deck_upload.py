"""A file button for deck uploads that checks the file's size in the browser before sending it.

An ipywidgets ``FileUpload`` reads the whole chosen file in the browser and sends it to the kernel in
one websocket message: a 12 MB file is over the server's message limit, the page loses its connection
and never checks another file. This button sends a file only when it is at most ``max_bytes``;
otherwise it sends just its name and size (``{"too_big": {...}}``), and the kernel says the file is
too big. ``value`` has the shape of ``FileUpload.value`` (a tuple of one dict with ``name``, ``type``,
``size``, ``content``), plus ``too_big: True`` for a file that was not sent.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

__all__ = ["DeckUpload"]


class DeckUpload(anywidget.AnyWidget):
    """A "Choose a file" button; ``value`` is the chosen file (one, at most ``max_bytes``, or too big)."""

    _esm = """
    export default {
      render({ model, el }) {
        const input = document.createElement("input");
        input.type = "file";
        input.accept = model.get("accept");
        input.hidden = true;
        const button = document.createElement("button");
        button.type = "button";
        button.className = "dichotomy-deck-upload jupyter-button widget-upload";
        button.textContent = model.get("description");
        button.addEventListener("click", () => input.click());
        input.addEventListener("change", async () => {
          const file = input.files && input.files[0];
          input.value = "";  // the same file can be chosen again
          if (!file) return;
          const meta = { name: file.name, type: file.type || "", size: file.size };
          if (file.size > model.get("max_bytes")) {  // never sent: it would break the connection
            model.send({ too_big: meta });
            return;
          }
          const buffer = await file.arrayBuffer();
          model.send({ file: meta }, undefined, [buffer]);
        });
        model.on("change:description", () => { button.textContent = model.get("description"); });
        model.on("change:accept", () => { input.accept = model.get("accept"); });
        el.append(button, input);
      }
    };
    """
    description = traitlets.Unicode("Choose a file").tag(sync=True)
    accept = traitlets.Unicode("").tag(sync=True)
    max_bytes = traitlets.Int(1_000_000).tag(sync=True)
    value = traitlets.Tuple()  # kernel side only (like FileUpload.value): the chosen file

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._chosen = 0
        self.on_msg(self._on_file_msg)

    def _on_file_msg(self, _widget: object, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        meta = content.get("too_big") or content.get("file")
        if not isinstance(meta, dict):
            return
        name = str(meta.get("name") or "deck")[:200]
        try:
            size = max(0, int(meta.get("size") or 0))
        except (TypeError, ValueError):
            size = 0
        self._chosen += 1  # the same file chosen again is a new value, checked again
        item: dict[str, Any] = {"name": name, "type": str(meta.get("type") or "")[:100], "size": size,
                                "choice": self._chosen}
        if "too_big" in content:
            item.update(content=b"", too_big=True)
        else:
            data = bytes(buffers[0]) if buffers else b""
            if len(data) > self.max_bytes:  # a page that skipped the browser's check
                item.update(content=b"", too_big=True, size=len(data))
            else:
                item.update(content=memoryview(data), size=len(data))
        self.value = (item,)
