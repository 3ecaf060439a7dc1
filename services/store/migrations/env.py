"""Alembic's environment: the URL comes from the config (services.store.db.alembic_config) or
``PULVEZAR_DATABASE_URL``; no logging set-up of its own."""

from __future__ import annotations

from alembic import context
from sqlalchemy import pool

from services.store.models import Base
from services.store.settings import StoreSettings

config = context.config
url: str = config.get_main_option("sqlalchemy.url") or StoreSettings().url or ""
if not url:
    raise SystemExit("set PULVEZAR_DATABASE_URL (the database to migrate)")


def run() -> None:
    from sqlalchemy import create_engine

    connectable = create_engine(url, poolclass=pool.NullPool)
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=Base.metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run()
