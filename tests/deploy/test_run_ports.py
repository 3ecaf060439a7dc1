"""``deploy/local/run.py``'s port choice (pure logic, no service started): the usual port when it is free,
never with ``--any-ports``, which the tests' and benches' platforms use so that two starting at once do not
both take 8000."""

from __future__ import annotations

import importlib.util
import socket
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_module() -> Any:
    spec = importlib.util.spec_from_file_location("pulvezar_run_ports", ROOT / "deploy" / "local" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_any_ports_never_takes_the_usual_port_even_when_it_is_free() -> None:
    run = run_module()
    usual = run.DEFAULT_PORTS["gateway"]
    if not run.port_is_free("127.0.0.1", usual):
        usual_taken = True  # another platform holds it: the usual picker must not take it either
    else:
        usual_taken = False
        assert run.PortPicker("127.0.0.1").pick("gateway", None) == usual
    picker = run.PortPicker("127.0.0.1", any_ports=True)
    picked = {picker.pick(name, None) for name in run.DEFAULT_PORTS}
    assert len(picked) == len(run.DEFAULT_PORTS) and not picked & set(run.DEFAULT_PORTS.values())
    assert usual_taken or usual not in picked


def test_an_explicit_port_in_use_is_refused() -> None:
    run = run_module()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        try:
            run.PortPicker("127.0.0.1", any_ports=True).pick("gateway", port)
        except SystemExit as e:
            assert f"port {port} is in use" in str(e)
        else:
            raise AssertionError("an explicit port in use was accepted")


def test_the_flag_and_the_environment_turn_it_on(monkeypatch: Any, tmp_path: Path) -> None:
    run = run_module()
    seen: dict[str, bool] = {}
    monkeypatch.setattr(run, "migrate", lambda args: seen.setdefault("any", args.any_ports) and False)
    run.main(["--any-ports", "--run-dir", str(tmp_path)])
    assert seen["any"] is True
    seen.clear()
    monkeypatch.setenv("PULVEZAR_RUN_ANY_PORTS", "1")
    run.main(["--run-dir", str(tmp_path)])
    assert seen["any"] is True
