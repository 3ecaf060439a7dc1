"""The shared gRPC token (``PULVEZAR_GRPC_TOKEN``): real Rules and Evaluator services started with one
refuse calls without it (UNAUTHENTICATED), answer calls with it, keep health checks open; the gateway and
the workers' evaluator client given the token work end to end, without it they get nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import grpc
import numpy as np
import pytest
from grpc_health.v1 import health_pb2

from pulvezar import Position
from pulvezar.eval.evaluator import boards_of
from services.common.pulvezar_proto.v1 import evaluator_pb2, evaluator_pb2_grpc, rules_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as pb

if TYPE_CHECKING:
    from conftest import GatewayProcess, ServiceProcess

TOKEN = "s3cret-token-for-tests"
ENV = {"PULVEZAR_GRPC_TOKEN": TOKEN}
KEY = "auth-key"
START = "4HPwATDgc/ABMA"


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


LEGAL = pb.LegalPlaysRequest(position=pb.PositionRef(position_id=START), dice=pb.Dice(die1=3, die2=1))


@pytest.fixture(scope="module")
def rules(start: Any) -> Iterator[ServiceProcess]:
    svc = start("services.rules", env=ENV)
    yield svc
    svc.terminate()


@pytest.fixture(scope="module")
def evaluator(start: Any) -> Iterator[ServiceProcess]:
    svc = start("services.evaluator", "--device", "cpu", env={**ENV, "PULVEZAR_EVALUATOR_MAX_WAIT_MS": "1"})
    yield svc
    svc.terminate()


def code_of(call: Any) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as e:
        return e.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def test_rules_calls_need_the_token(rules: ServiceProcess) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(rules.channel)
    assert rules.wait_log("serving", 5) and any(e.get("grpc_auth") == "token" for e in rules.logs)
    assert code_of(lambda: stub.LegalPlays(LEGAL, timeout=5)) == grpc.StatusCode.UNAUTHENTICATED
    wrong = bearer(TOKEN + "x")
    assert (
        code_of(lambda: stub.LegalPlays(LEGAL, timeout=5, metadata=wrong)) == grpc.StatusCode.UNAUTHENTICATED
    )
    basic = (("authorization", f"Basic {TOKEN}"),)
    assert (
        code_of(lambda: stub.LegalPlays(LEGAL, timeout=5, metadata=basic)) == grpc.StatusCode.UNAUTHENTICATED
    )
    reply = stub.LegalPlays(LEGAL, timeout=5, metadata=bearer(TOKEN))
    assert "8/5 6/5" in [p.notation for p in reply.plays]
    # the health service stays open (kubelet's gRPC probes carry no token)
    assert rules.health() == health_pb2.HealthCheckResponse.SERVING
    assert rules.metric("pulvezar_grpc_requests_total", method="LegalPlays", code="OK") >= 1


def test_evaluator_calls_need_the_token(evaluator: ServiceProcess) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(evaluator.channel)
    info = evaluator_pb2.ModelInfoRequest()
    assert code_of(lambda: stub.ModelInfo(info, timeout=5)) == grpc.StatusCode.UNAUTHENTICATED
    assert stub.ModelInfo(info, timeout=5, metadata=bearer(TOKEN)).model
    assert evaluator.health() == health_pb2.HealthCheckResponse.SERVING


def test_the_workers_evaluator_client_sends_the_token(
    evaluator: ServiceProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.common.remote_evaluator import GrpcEvaluator

    boards = boards_of([Position.start()] * 3)
    monkeypatch.delenv("PULVEZAR_GRPC_TOKEN", raising=False)
    anonymous = GrpcEvaluator(evaluator.address)
    with pytest.raises(grpc.RpcError) as refused:
        anonymous.evaluate_boards(boards)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    anonymous.close()
    monkeypatch.setenv("PULVEZAR_GRPC_TOKEN", TOKEN)  # as the workers get it (k8s: a Secret)
    client = GrpcEvaluator(evaluator.address)
    try:
        probs = client.evaluate_boards(boards)
        assert probs.shape == (3, 5) and np.allclose(probs, probs[0])
    finally:
        client.close()


def gateway_with(process: type[GatewayProcess], env: dict[str, str], rules: Any, evaluator: Any) -> Any:
    keys = {KEY: {"name": "auth", "rate_per_s": 1000, "burst": 1000}}
    return process(
        {**env, "PULVEZAR_GATEWAY_API_KEYS": json.dumps(keys)},
        rules=rules.address,
        evaluator=evaluator.address,
        key=KEY,
    )


def test_the_gateway_with_the_token_works_end_to_end(
    gateway_process: type[GatewayProcess], rules: ServiceProcess, evaluator: ServiceProcess
) -> None:
    gw = gateway_with(gateway_process, ENV, rules, evaluator)
    try:
        assert gw.http.get("/readyz").status_code == 200
        r = gw.http.post("/v1/legal-plays", json={"position": START, "dice": [3, 1]})
        assert r.status_code == 200, r.text
        r = gw.http.post("/v1/hint", json={"position": START, "dice": [3, 1], "limit": 1})
        assert r.status_code == 200, r.text
    finally:
        gw.stop()


def test_a_gateway_without_the_token_gets_nothing_upstream(
    gateway_process: type[GatewayProcess], rules: ServiceProcess, evaluator: ServiceProcess
) -> None:
    gw = gateway_with(gateway_process, {}, rules, evaluator)
    try:
        r = gw.http.post("/v1/legal-plays", json={"position": START, "dice": [3, 1]})
        assert r.status_code == 502 and "UNAUTHENTICATED" in r.json()["detail"], r.text
        r = gw.http.post("/v1/hint", json={"position": START, "dice": [3, 1], "limit": 1})
        assert r.status_code == 502, r.text
    finally:
        gw.http.close()
        gw.svc.terminate()


def test_an_unauthenticated_call_is_answered_fast_without_running_the_handler(rules: ServiceProcess) -> None:
    """The interceptor answers before the servicer: no request is counted by the handler's metrics."""
    stub = rules_pb2_grpc.RulesServiceStub(rules.channel)
    before = rules.metric("pulvezar_grpc_requests_total", method="LegalPlays", code="UNAUTHENTICATED")
    for _ in range(3):
        assert code_of(lambda: stub.LegalPlays(LEGAL, timeout=5)) == grpc.StatusCode.UNAUTHENTICATED
    assert rules.metric("pulvezar_grpc_requests_total", method="LegalPlays", code="UNAUTHENTICATED") == before
