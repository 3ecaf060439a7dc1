"""The OpenAPI schema describes every field of the learner's routes (issue 29): players, statistics,
achievements, cards, the archive, the plan, the daily puzzles and attempts, the library."""

from __future__ import annotations

from typing import Any

PREFIXES = ("/v1/players", "/v1/daily", "/v1/library")


def referenced(node: Any, schemas: dict[str, Any], out: set[str]) -> set[str]:
    """The component schemas ``node`` refers to, and theirs."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref and ref.split("/")[-1] not in out:
            out.add(ref.split("/")[-1])
            referenced(schemas[ref.split("/")[-1]], schemas, out)
        for v in node.values():
            referenced(v, schemas, out)
    elif isinstance(node, list):
        for v in node:
            referenced(v, schemas, out)
    return out


def test_every_field_of_the_learners_routes_is_described() -> None:
    from services.gateway.app import create_app

    spec = create_app().openapi()
    schemas = spec["components"]["schemas"]
    names: set[str] = set()
    for path, item in spec["paths"].items():
        if path.startswith(PREFIXES):
            referenced(item, schemas, names)
    assert {"Statistics", "PlayedMatch", "WeeklyPlan", "CardOut", "AttemptOut", "LibraryList"} <= names
    missing = [
        f"{name}.{prop}"
        for name in sorted(names)
        for prop, schema in schemas[name].get("properties", {}).items()
        if not schema.get("description")
    ]
    assert not missing, f"fields without a description: {missing}"
    for path, item in spec["paths"].items():
        if path.startswith(PREFIXES):
            for method, op in item.items():
                assert op.get("summary"), f"{method.upper()} {path} has no summary"
                for p in op.get("parameters", []):
                    described = p.get("description") or p["schema"].get("description")
                    assert described or p["in"] == "path", (method, path, p["name"])


def test_the_training_routes_bodies_have_examples_that_validate() -> None:
    """The request bodies of issue 30's routes carry examples in the schema, and each example is a valid
    request of its model."""
    from services.gateway.app import create_app
    from services.gateway.routers.book import QuizAnswer
    from services.gateway.routers.cards import CardIn
    from services.gateway.routers.exercises import AnswerIn
    from services.gateway.routers.games import ActionIn
    from services.gateway.routers.lessons import StepAnswer
    from services.jobs.kinds.deep import DeepRequest

    spec = create_app().openapi()
    schemas = spec["components"]["schemas"]
    routes = {
        "/v1/deep-analyses": DeepRequest,
        "/v1/exercises/{kind}/{exercise_id}/answers": AnswerIn,
        "/v1/lessons/{lesson_id}/steps/{step}/answers": StepAnswer,
        "/v1/opening-book/quiz/answers": QuizAnswer,
        "/v1/players/{player_id}/cards": CardIn,
        "/v1/games/{game_id}/actions": ActionIn,
    }
    for path, model in routes.items():
        body = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        schema = schemas[body["$ref"].split("/")[-1]]
        examples = schema.get("examples")
        assert examples, path
        for example in examples:
            model.model_validate(example)
