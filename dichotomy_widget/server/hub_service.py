"""Dichotomy as a JupyterHub managed service: ``dichotomy hub-service`` and ``dichotomy hub-config``.

``dichotomy hub-config [--flavor plain|tljh|z2jh] [--output FILE]`` prints (or writes, mode 0600: it
holds the service's secret) the configuration for ``jupyterhub_config.py`` (or TLJH's
``jupyterhub_config.d/``, or Z2JH's ``values.yaml``, which mounts the secret and the store): the managed
service, a role granting ``access:services!service=<name>`` to chosen groups (or, ``--all-users``, to
everyone), the groups, and the environment the service needs. The hub then runs ``dichotomy hub-service``, which is ``dichotomy
serve``'s voila on the same packaged pages, behind the hub's proxy at ``/services/<name>/``, with every
request authenticated by the hub's OAuth (:mod:`dichotomy_widget.server.hub_auth`) and the pages in hub
mode (:mod:`dichotomy_widget.pages.hub_identity`): the seat's name is the hub user's, a seat belongs to
its hub user, and only hub admins or members of the host groups may host. See docs/jupyterhub.md.
"""

from __future__ import annotations

import argparse
import json
import os
import pprint
import secrets
import shlex
import sys
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import urlsplit

from ..config import HUB_SECRET_FILE_ENV as SECRET_FILE_ENV
from ..stores.private import make_private_folder

__all__ = ["add_commands", "run_command", "hub_config", "service_command", "voila_hub_args", "write_private", "FLAVORS"]

FLAVORS = ("plain", "tljh", "z2jh")
DEFAULT_SERVICE = "dichotomy"
DEFAULT_PORT = 10101
_AUTH = "dichotomy_widget.server.hub_auth"


def voila_hub_args() -> list[str]:
    """The voila options that put the hub's OAuth in front of every page (see ``server/hub_auth.py``)."""
    from ..pages.hub_identity import IDENTITY_HEADER

    return [
        f"--Voila.identity_provider_class={_AUTH}.HubIdentityProvider",
        f"--Voila.authorizer_class={_AUTH}.HubAuthorizer",
        f"--VoilaConfiguration.multi_kernel_manager_class={_AUTH}.HubKernelManager",
        f"--VoilaConfiguration.http_header_envs={IDENTITY_HEADER}",
    ]


# --------------------------------------------------------------------------------------------------
# The service (run by the hub)


def _secret(env: Mapping[str, str], store: str) -> str:
    """``$DICHOTOMY_HUB_SECRET``, else the file ``$DICHOTOMY_HUB_SECRET_FILE``, else ``hub-secret`` next
    to an SQLite store (created once, mode 0600, so seats survive a restart of the service)."""
    from ..pages.hub_identity import MIN_SECRET_LENGTH, SECRET_ENV

    if len(env.get(SECRET_ENV, "").strip()) >= MIN_SECRET_LENGTH:
        return env[SECRET_ENV].strip()
    path_text = env.get(SECRET_FILE_ENV, "").strip()
    if not path_text:
        if "://" in store and not store.lower().startswith(("sqlite:", "file:")):
            raise SystemExit(f"dichotomy hub-service: set {SECRET_ENV} (e.g. `dichotomy hub-config` prints "
                             "one) when the store is not an SQLite file.")
        path_text = str(Path(store.split("://", 1)[-1]).with_name("hub-secret"))
    path = Path(path_text)
    if not path.exists():
        make_private_folder(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32))
    elif path.stat().st_mode & 0o006:  # others (a group, e.g. a Kubernetes fsGroup, may read a mounted Secret)
        raise SystemExit(f"dichotomy hub-service: other users may read or write the secret file {path}; "
                         f"make it private, then start again:\n    chmod 600 {shlex.quote(str(path))}")
    secret = path.read_text().strip()
    if len(secret) < MIN_SECRET_LENGTH:
        raise SystemExit(f"dichotomy hub-service: {path} holds no usable secret.")
    return secret


def service_command(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """The voila command line and environment of the hub service, from the hub's ``JUPYTERHUB_*`` vars."""
    from .voila_launch import checkout_path_env, resolve_store, template_path_env, voila_command
    from . import bounds
    from ..config import SEAT_URL_ENV, STORE_ENV
    from ..pages.entry import packaged_pages
    from ..pages.hub_identity import HUB_ENV, SECRET_ENV

    service_url = env.get("JUPYTERHUB_SERVICE_URL", "")
    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX", "")
    if not service_url or not prefix:
        raise SystemExit("dichotomy hub-service is started by JupyterHub (c.JupyterHub.services, see "
                         "`dichotomy hub-config`); JUPYTERHUB_SERVICE_URL and JUPYTERHUB_SERVICE_PREFIX are missing.")
    url = urlsplit(service_url)
    port = args.port or url.port or 80
    ip = args.ip or (url.hostname if url.hostname and url.hostname[0].isdigit() else "0.0.0.0")
    store = resolve_store(args.store or env.get(STORE_ENV) or None)
    out = dict(env)
    out[STORE_ENV] = store
    out[HUB_ENV] = "1"
    out[SECRET_ENV] = _secret(env, store)
    public = env.get("JUPYTERHUB_PUBLIC_URL", "").strip()  # the hub sets it when its public_url is known
    if public and not env.get(SEAT_URL_ENV):
        out[SEAT_URL_ENV] = public.rstrip("/") + "/voila/render/seat.ipynb"
    out.update(checkout_path_env(env))
    out.update(template_path_env(env))
    bound_args, _line = bounds.voila_args(args)  # counted per hub user (HubKernelManager.device)
    bound_args = [a for a in bound_args if not a.startswith("--VoilaConfiguration.multi_kernel_manager_class=")]
    cmd = voila_command(packaged_pages(), port, ip, prefix, cull_idle_timeout=args.cull_idle_timeout,
                        extra=[*bound_args, *voila_hub_args(), *args.voila_arg])
    return cmd, out


def run_service(args: argparse.Namespace) -> int:
    """Replace this process with voila (the hub signals and restarts it directly).

    On Linux voila also gets SIGTERM if the hub dies (the setting survives ``execve``), so a killed hub
    leaves no game server behind; voila then shuts its kernels down.
    """
    from .voila_launch import private_child

    cmd, env = service_command(args, os.environ)
    sys.stdout.flush()
    private_child()  # umask 077: nothing voila or a page kernel writes is readable by other users
    os.execve(cmd[0], cmd, env)
    return 1  # pragma: no cover - execve does not return


# --------------------------------------------------------------------------------------------------
# The configuration snippet


def _py(value: object) -> str:
    return pprint.pformat(value, indent=1, width=100, sort_dicts=False)


def _service(args: argparse.Namespace, secret: str, z2jh: bool) -> dict:
    host = "hub" if z2jh else "127.0.0.1"
    python = "python3" if z2jh else args.python
    command = [python, "-m", "dichotomy_widget.server.serve", "hub-service"] + (["--ip", "0.0.0.0"] if z2jh else [])
    environment = {"DICHOTOMY_STORE": args.store, "DICHOTOMY_HUB_SECRET": secret,
                   "DICHOTOMY_HUB_HOST_GROUPS": ",".join(args.host_group)}
    if not args.admins_host:
        environment["DICHOTOMY_HUB_ADMINS_HOST"] = "0"
    service = {"name": args.name, "url": f"http://{host}:{args.port}", "command": command,
               "environment": environment, "oauth_no_confirm": True, "display": True}
    if args.user and not z2jh:
        service["user"] = args.user
    return service


def _role(args: argparse.Namespace) -> dict:
    groups = list(dict.fromkeys([*args.player_group, *args.host_group]))
    return {"name": f"{args.name}-players",
            "description": "Play Dichotomy: open the game service (hosting needs a host group or admin)",
            "scopes": [_access_scope(args)], "groups": groups}


def hub_config(args: argparse.Namespace, secret: str | None = None) -> str:
    """The configuration text for ``args.flavor`` (a fresh secret unless one is given)."""
    secret = secret or secrets.token_urlsafe(32)
    groups = list(dict.fromkeys([*args.host_group, *args.player_group]))
    head = (f"# Dichotomy as a JupyterHub managed service at /services/{args.name}/ "
            "(generated by `dichotomy hub-config`; docs/jupyterhub.md).\n"
            "# DICHOTOMY_HUB_SECRET signs who is who and derives seat keys: keep it private; changing it\n"
            "# makes players join their tables again. Hosts: members of DICHOTOMY_HUB_HOST_GROUPS"
            f"{' and hub admins' if args.admins_host else ''}.\n")
    if args.flavor == "z2jh":
        return head + _z2jh(args, secret, groups)
    load_groups = {g: {"users": []} for g in groups}
    text = head
    if args.flavor == "tljh":
        text += ("# Save as /opt/tljh/config/jupyterhub_config.d/dichotomy.py, then: sudo tljh-config reload\n"
                 f"# The service runs as the system user {args.user!r} (sudo useradd --system --create-home "
                 f"{args.user}), which must own {Path(args.store).parent}.\n" if args.user else "")
    text += (f"c.JupyterHub.services.append({_py(_service(args, secret, False))})\n\n"
             f"# Who may open the game: members of these groups (add users in the admin page or below).\n"
             f"c.JupyterHub.load_roles.append({_py(_role(args))})\n\n"
             f"# Groups (load_groups only adds; members can also be managed at /hub/admin).\n"
             f"c.JupyterHub.load_groups.update({_py(load_groups)})\n")
    if args.all_users:
        text += ("\n# Every signed-in hub user may open the game (a workshop whose authenticator puts nobody in groups).\n"
                 f"c.JupyterHub.extra_user_scopes.add({_access_scope(args)!r})\n")
    return text


def _access_scope(args: argparse.Namespace) -> str:
    return f"access:services!service={args.name}"


def _yaml_list(items: Sequence[str], indent: int) -> str:
    pad = " " * indent
    return "".join(f"{pad}- {json.dumps(item)}\n" for item in items)


#: Zero to JupyterHub: where the hub pod mounts the Kubernetes Secret with the service's secret, and
#: the volume of an SQLite store (the service makes its own 0700 folder inside: a volume's root is
#: usually group-writable under the pod's fsGroup).
Z2JH_SECRET_DIR = "/etc/dichotomy"
Z2JH_STORE_DIR = "/srv/dichotomy"
Z2JH_STORE = f"{Z2JH_STORE_DIR}/store/tables.sqlite3"


def _z2jh(args: argparse.Namespace, secret: str, groups: list[str]) -> str:
    service = _service(args, secret, True)
    environment = dict(service["environment"])
    environment.pop("DICHOTOMY_HUB_SECRET")
    environment["DICHOTOMY_HUB_SECRET_FILE"] = f"{Z2JH_SECRET_DIR}/hub-secret"
    postgres = args.store.lower().startswith(("postgres://", "postgresql://"))
    env = "".join(f"        {k}: {json.dumps(v)}\n" for k, v in environment.items())
    load_groups = json.dumps({g: {"users": []} for g in groups})
    volumes = (
        "  extraVolumes:\n"
        "    - name: dichotomy-secret\n"
        "      secret:\n"
        "        secretName: dichotomy\n"
        "        defaultMode: 288  # 0440: the pod's group (fsGroup) may read it, others not\n"
        + ("" if postgres else
           "    - name: dichotomy-store\n"
           "      persistentVolumeClaim:\n"
           "        claimName: dichotomy-store\n") +
        "  extraVolumeMounts:\n"
        "    - name: dichotomy-secret\n"
        f"      mountPath: {Z2JH_SECRET_DIR}\n"
        "      readOnly: true\n"
        + ("" if postgres else
           "    - name: dichotomy-store\n"
           f"      mountPath: {Z2JH_STORE_DIR}\n"))
    return (
        "# Zero to JupyterHub (values.yaml). The service runs in the hub pod: build a hub image with it,\n"
        "#   FROM quay.io/jupyterhub/k8s-hub:<your chart's version>\n"
        "#   USER root\n"
        '#   RUN python3 -m pip install --no-cache-dir "dichotomy_widget[hub,postgres]"\n'
        "#   USER ${NB_USER}\n"
        "# The service's secret lives in a Kubernetes Secret (not in this file), mounted read-only:\n"
        '#   kubectl create secret generic dichotomy --from-literal=hub-secret="$(openssl rand -base64 32)"\n'
        + ("# The store is PostgreSQL: this file holds its password, keep it private.\n" if postgres else
           "# The store is an SQLite file on its own volume (the hub pod is the only one that uses it):\n"
           "#   kubectl apply -f - <<'EOF'\n"
           "#   {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: dichotomy-store},\n"
           "#    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}\n"
           "#   EOF\n") +
        "hub:\n"
        "  image:\n"
        "    name: myregistry/k8s-hub-dichotomy\n"
        "    tag: latest\n"
        + volumes +
        "  services:\n"
        f"    {args.name}:\n"
        f"      url: {service['url']}\n"
        "      command:\n" + _yaml_list(service["command"], 8) +
        "      oauth_no_confirm: true\n"
        "      display: true\n"
        "      environment:\n" + env +
        "  loadRoles:\n"
        f"    {args.name}-players:\n"
        f"      description: {json.dumps(_role(args)['description'])}\n"
        "      scopes:\n" + _yaml_list(_role(args)["scopes"], 8) +
        "      groups:\n" + _yaml_list(_role(args)["groups"], 8) +
        "  extraConfig:\n"
        "    dichotomy-groups: |\n"
        f"      c.JupyterHub.load_groups.update({load_groups})\n"
        + (f"      c.JupyterHub.extra_user_scopes.add({_access_scope(args)!r})\n" if args.all_users else "") +
        "  service:\n"
        "    extraPorts:\n"
        f"      - name: {args.name}\n"
        f"        port: {args.port}\n"
        f"        targetPort: {args.port}\n"
        "  networkPolicy:\n"
        "    ingress:\n"
        "      - ports:\n"
        f"          - port: {args.port}\n"
        "        from:\n"
        "          - podSelector:\n"
        "              matchLabels:\n"
        "                hub.jupyter.org/network-access-hub: \"true\"\n"
        "proxy:\n"
        "  chp:\n"
        "    networkPolicy:\n"
        "      egress:\n"
        "        - to:\n"
        "            - podSelector:\n"
        "                matchLabels:\n"
        "                  app: jupyterhub\n"
        "                  component: hub\n"
        "          ports:\n"
        f"            - port: {args.port}\n"
    )


# --------------------------------------------------------------------------------------------------
# Command line (``dichotomy hub-config`` / ``dichotomy hub-service``, wired in serve.py)


def add_commands(sub: "argparse._SubParsersAction") -> None:
    """Add ``hub-config`` and ``hub-service`` to the ``dichotomy`` command."""
    cfg = sub.add_parser("hub-config", help="print the JupyterHub configuration for the Dichotomy service",
                         description="Print the jupyterhub_config.py (or values.yaml) snippet that runs "
                                     "Dichotomy as a JupyterHub managed service. See docs/jupyterhub.md.")
    cfg.add_argument("--flavor", choices=FLAVORS, default="plain",
                     help="plain jupyterhub_config.py, The Littlest JupyterHub, or Zero to JupyterHub (values.yaml)")
    cfg.add_argument("--name", default=DEFAULT_SERVICE, help="service name: the game is at /services/NAME/")
    cfg.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the service's local port ({DEFAULT_PORT})")
    cfg.add_argument("--store", default=None,
                     help="table store (default: /srv/dichotomy/tables.sqlite3; z2jh: a postgresql:// URL)")
    cfg.add_argument("--host-group", action="append", default=None,
                     help="hub group whose members may host (repeatable; default: teachers)")
    cfg.add_argument("--player-group", action="append", default=None,
                     help="hub group whose members may play (repeatable; default: students)")
    cfg.add_argument("--all-users", action="store_true",
                     help="every signed-in hub user may play, in a group or not (e.g. a shared-password workshop)")
    cfg.add_argument("--no-admins-host", dest="admins_host", action="store_false",
                     help="hub admins may not host unless they are in a host group")
    cfg.add_argument("--user", default=None, help="system user the service runs as (tljh default: dichotomy)")
    cfg.add_argument("--output", "-o", default=None, metavar="FILE",
                     help="write the configuration to FILE with mode 600 (it holds the secret) instead of printing it")
    cfg.add_argument("--python", default=sys.executable,
                     help="the Python with dichotomy_widget[hub] installed (default: this one)")
    svc = sub.add_parser("hub-service", help="run the game as a JupyterHub service (the hub starts it)",
                         description="Run by JupyterHub: voila on the packaged pages behind the hub's OAuth. "
                                     "The page bounds count per hub user (hosts are not bounded per user).")
    svc.add_argument("--store", default=None, help="table store (default: $DICHOTOMY_STORE)")
    svc.add_argument("--ip", default=None, help="address to listen on (default: the host of $JUPYTERHUB_SERVICE_URL)")
    svc.add_argument("--port", type=int, default=None, help="port (default: the port of $JUPYTERHUB_SERVICE_URL)")
    svc.add_argument("--cull-idle-timeout", type=int, default=600,
                     help="seconds before an idle, unconnected kernel is shut down (default 600)")
    from . import bounds

    bounds.add_arguments(svc)
    svc.add_argument("--voila-arg", action="append", default=[], metavar="ARG", help="extra voila argument")


def run_command(args: argparse.Namespace) -> int | None:
    """Run a hub command; None if ``args.command`` is not one."""
    if args.command == "hub-service":
        return run_service(args)
    if args.command != "hub-config":
        return None
    args.host_group = args.host_group or ["teachers"]
    args.player_group = args.player_group or ["students"]
    if args.user is None and args.flavor == "tljh":
        args.user = "dichotomy"
    if args.store is None:
        args.store = Z2JH_STORE if args.flavor == "z2jh" else "/srv/dichotomy/tables.sqlite3"
    if (args.flavor == "z2jh" and not args.store.lower().startswith(("postgres://", "postgresql://"))
            and not args.store.startswith(Z2JH_STORE_DIR + "/")):
        raise SystemExit(f"On Zero to JupyterHub the store is an SQLite file on the volume mounted at {Z2JH_STORE_DIR} "
                         f"(the default, {Z2JH_STORE}) or PostgreSQL: --store postgresql://...")
    text = hub_config(args)
    if args.output:
        write_private(Path(args.output), text)
        print(f"dichotomy hub-config: wrote {args.output} (mode 600: it holds the service's secret)", file=sys.stderr)
    else:
        print(text, end="")
        print("dichotomy hub-config: the configuration holds the service's secret; keep the file you save it in "
              "private (chmod 600 FILE), or let `dichotomy hub-config --output FILE` write it so.", file=sys.stderr)
    return 0


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (0600, also when the file existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
