"""The REST gateway (FastAPI): ``/v1`` over the Rules and Evaluator services, the library, the job store."""
