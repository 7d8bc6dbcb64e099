"""The Kubernetes deployment (deploy/kubernetes/, docs/scale-out.md) is valid where it can be checked
here: every manifest against the Kubernetes 1.30 OpenAPI schemas (kubernetes-validate, offline, strict:
no unknown fields), HAProxy's configuration by HAProxy itself, and the properties the scale-out
topology needs (replicas, sticky routing, health checks, secrets from a Secret). The same topology
runs as processes in tests/test_scale_out.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes"
K8S_VERSION = "1.30"


def _docs() -> list[dict]:
    return [d for d in yaml.safe_load_all((DEPLOY / "dichotomy.yaml").read_text()) if d]


def _one(kind: str, name: str) -> dict:
    return next(d for d in _docs() if d["kind"] == kind and d["metadata"]["name"] == name)


@pytest.mark.parametrize("doc", _docs(), ids=lambda d: f"{d['kind']}-{d['metadata']['name']}")
def test_manifest_is_valid_kubernetes(doc: dict) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_deployment_scales_out_with_its_secrets_from_a_secret() -> None:
    serve = _one("Deployment", "dichotomy")
    assert serve["spec"]["replicas"] >= 2
    container = serve["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    for name, key in (("DICHOTOMY_STORE_URL", "store-url"), ("DICHOTOMY_TEACHER_KEY", "teacher-key")):
        assert env[name]["valueFrom"]["secretKeyRef"] == {"name": "dichotomy", "key": key}
    args = container["args"]
    assert args[args.index("--store") + 1] == "$(DICHOTOMY_STORE_URL)"
    assert "postgresql://" not in yaml.safe_dump(serve)  # the URL (and its password) only in the Secret
    assert container["readinessProbe"]["httpGet"]["path"] == "/voila/tree"
    # a pod busy starting kernels is slow, not dead: Kubernetes' 1 s default would drop it
    assert container["readinessProbe"]["timeoutSeconds"] >= 5 and container["livenessProbe"]["timeoutSeconds"] >= 5
    secret = _one("Secret", "dichotomy")
    assert set(secret["stringData"]) >= {"store-url", "teacher-key", "postgres-password"}
    postgres = _one("StatefulSet", "dichotomy-postgres")["spec"]["template"]["spec"]["containers"][0]
    assert any(e.get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "postgres-password" for e in postgres["env"])
    # the pods' arguments are ones dichotomy serve accepts
    from dichotomy_widget.server.serve import build_parser

    parsed = build_parser().parse_args(["serve", *args])
    assert parsed.pg_pool >= 1 and parsed.trusted_proxy


def test_haproxy_config_is_sticky_health_checked_and_accepted_by_haproxy(tmp_path: Path) -> None:
    cfg = _one("ConfigMap", "dichotomy-haproxy")["data"]["haproxy.cfg"]
    assert "cookie DICHOTOMY_SERVER insert" in cfg and "dynamic" in cfg
    assert "option httpchk GET /voila/tree" in cfg and "option redispatch" in cfg and "timeout tunnel" in cfg
    assert "timeout check 10s" in cfg  # else a check gets only `inter` (2 s) and a busy pod is marked down
    path = tmp_path / "haproxy.cfg"
    path.write_text(cfg)
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    done = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    pods = _one("Service", "dichotomy-pods")
    assert pods["spec"]["clusterIP"] == "None"  # headless: HAProxy sees every pod


def test_the_image_recipe_runs_dichotomy_serve() -> None:
    recipe = (DEPLOY / "Containerfile").read_text()
    assert "[postgres]" in recipe and 'ENTRYPOINT ["dichotomy", "serve"' in recipe and "USER " in recipe
    z2jh = yaml.safe_load((DEPLOY / "z2jh-values.yaml").read_text())
    assert z2jh["hub"]["services"]["dichotomy"]["url"].startswith("http://dichotomy.")
