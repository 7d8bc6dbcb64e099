"""docs/jupyterhub.md's bare-machine recipe, without starting a hub: its marked blocks (the ones
tools/hub_walkthrough.py runs end to end with a real hub) make a configuration JupyterHub loads, with
the service, every user allowed to play, and the secret file private."""

from __future__ import annotations

import importlib.util
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def walkthrough():
    spec = importlib.util.spec_from_file_location("hub_walkthrough", ROOT / "tools" / "hub_walkthrough.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_recipe_makes_a_configuration_jupyterhub_loads(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    tool = walkthrough()
    steps = tool.blocks((ROOT / "docs" / "jupyterhub.md").read_text(encoding="utf-8"))
    assert [k for k, _p, _b in steps] == ["file", "run", "start"]
    (tmp_path / "etc" / "jupyterhub").mkdir(parents=True)
    _kind, path, body = steps[0]
    config = Path(tool.moved(path, tmp_path))
    config.write_text(tool.moved(body, tmp_path))
    command = tool.moved(steps[1][2], tmp_path).replace(f"{Path(sys.executable).parent}/dichotomy",
                                                        f"{sys.executable} -m dichotomy_widget.server.serve")
    subprocess.run(["bash", "-euc", command], check=True, capture_output=True)
    service_file = tmp_path / "etc" / "jupyterhub" / "dichotomy_config.py"
    assert stat.S_IMODE(service_file.stat().st_mode) == 0o600
    loaded = PyFileConfigLoader(config.name, path=str(config.parent)).load_config()
    hub = loaded.JupyterHub
    (service,) = hub.services.get_value([])
    assert service["name"] == "dichotomy" and service["command"][-1] == "hub-service"
    assert service["environment"]["DICHOTOMY_STORE"] == f"{tmp_path}/srv/dichotomy/tables.sqlite3"
    assert hub.extra_user_scopes.get_value(set()) == {"access:services!service=dichotomy"}
    assert hub.default_url == "/services/dichotomy/" and hub.authenticator_class == "shared-password"
    assert "teacher" in loaded.Authenticator.admin_users
    assert len(loaded.SharedPasswordAuthenticator.admin_password) >= 32  # JupyterHub refuses shorter
    assert "jupyterhub -f" in steps[2][2]
