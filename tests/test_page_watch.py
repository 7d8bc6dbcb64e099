"""The voila template's watcher (pages/voila/templates/dichotomy/index.html.j2): its own copy of the
"server went away" banner matches the catalogues, and it asks only the page's own server.
In a browser against a real hub: tests/browser/test_hub_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from dichotomy_widget.i18n import INTERFACE_LANGUAGES, translator
from dichotomy_widget.pages.page_lang import GONE_BANNER

TEMPLATE = Path(__file__).resolve().parents[1] / "dichotomy_widget" / "pages" / "voila" / "templates" / "dichotomy" / "index.html.j2"


def test_the_gone_banner_in_the_template_is_the_catalogues_translation_in_every_language():
    text = TEMPLATE.read_text(encoding="utf-8")
    start = text.index("var GONE_TEXTS = ") + len("var GONE_TEXTS = ")
    texts = json.loads(text[start:text.index("};", start) + 1])
    assert sorted(texts) == sorted(INTERFACE_LANGUAGES)
    for lang in INTERFACE_LANGUAGES:
        assert texts[lang] == [translator(lang, "pages").gettext(m) for m in GONE_BANNER], lang
    assert texts["de"][0] != GONE_BANNER[0]


def test_the_watcher_asks_only_its_own_server_and_keeps_drafts_only_in_session_storage():
    script = TEMPLATE.read_text(encoding="utf-8").split("var GONE_TEXTS", 1)[1].split("</script>", 1)[0]
    assert re.findall(r"fetch\(([^,]+),", script) == ['c.baseUrl + "api/kernels/" + encodeURIComponent(c.kernelId)']
    assert "http" not in re.sub(r'"[^"]*"', "", script.split("// drafts")[0])  # no address of another host
    assert "localStorage" not in script and "sessionStorage" in script
    assert "{{" not in script and "{%" not in script  # plain script: nothing for Jinja to fill in
