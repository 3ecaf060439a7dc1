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
    from services.gateway.routers.games import ActionIn, GameIn
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
        "/v1/games": GameIn,
    }
    for path, model in routes.items():
        body = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        schema = schemas[body["$ref"].split("/")[-1]]
        examples = schema.get("examples")
        assert examples, path
        for example in examples:
            model.model_validate(example)


#: issue 30's routes that answer JSON: their parameters and their answers carry examples
TRAINING_GETS = (
    "/v1/games/{game_id}/replay",
    "/v1/games/{game_id}/card.png",
    "/v1/positions/{position}/board.png",
    "/v1/positions/{position}/board.svg",
    "/v1/match-equity/table",
    "/v1/lessons",
    "/v1/lessons/{lesson_id}",
    "/v1/exercises/{kind}/next",
    "/v1/opening-book/quiz",
    "/v1/players/{player_id}/openings",
)


def test_the_training_routes_parameters_and_answers_have_examples() -> None:
    """Every parameter of issue 30's GET routes has an example; each JSON answer's model has examples that
    validate as answers of that model."""
    from pydantic import BaseModel

    from services.gateway.app import create_app
    from services.gateway.learner_models import YourOpenings
    from services.gateway.routers import book, exercises, games, lessons, met
    from services.jobs.kinds.deep import DeepReport

    spec = create_app().openapi()
    for path in TRAINING_GETS:
        for p in spec["paths"][path]["get"].get("parameters", []):
            assert p.get("examples") or p["schema"].get("examples"), (path, p["name"])
    answers: list[type[BaseModel]] = [
        games.Replay, YourOpenings, met.EquityTable, book.QuizQuestion, book.QuizResult, lessons.LessonList,
        lessons.Lesson, lessons.StepResult, exercises.ExerciseOut, exercises.AnswerOut, DeepReport,
    ]  # fmt: skip
    schemas = spec["components"]["schemas"]
    for model in answers:
        assert schemas[model.__name__].get("examples"), model.__name__
        # (the published schema leaves out an example's nulls: the model's own examples are validated)
        for example in model.model_json_schema()["examples"]:
            model.model_validate(example)
