#!/bin/sh
# pulvezar-service SERVICE [ARGS...]: run one pulvezar service in the foreground (exec: it gets the signals).
# Settings come from PULVEZAR_<SERVICE>_* environment variables (services/README.md).
set -eu
service="${1:-rules}"
[ "$#" -gt 0 ] && shift
case "$service" in
    rules) exec python -m services.rules "$@" ;;
    evaluator) exec python -m services.evaluator "$@" ;;
    rollout)  # clients' jobs: interactive chunks first, then batch
        exec celery -A services.rollout.celery_app worker --hostname "rollout@${HOSTNAME:-pulvezar}" \
            -Q rollouts.interactive,rollouts.batch \
            --loglevel "${PULVEZAR_ROLLOUT_LOG_LEVEL:-INFO}" --without-gossip --without-mingle "$@" ;;
    background)  # the platform's own long tasks (daily puzzles, book drivers): never in a client's way
        exec celery -A services.rollout.celery_app worker --hostname "background@${HOSTNAME:-pulvezar}" \
            -Q rollouts.background --concurrency 1 \
            --loglevel "${PULVEZAR_ROLLOUT_LOG_LEVEL:-INFO}" --without-gossip --without-mingle "$@" ;;
    scheduler)  # Celery beat: the daily puzzles (services/rollout/daily_tasks.py); run exactly one
        exec celery -A services.rollout.celery_app beat --schedule /tmp/celerybeat-schedule \
            --loglevel "${PULVEZAR_ROLLOUT_LOG_LEVEL:-INFO}" "$@" ;;
    gateway) exec python -m services.gateway "$@" ;;
    migrate)  # the durable store to the newest schema (idempotent; one at a time on PostgreSQL): compose's
        # one-shot `migrate` service and the k8s init containers (PULVEZAR_DATABASE_URL; docs/store.md)
        exec python -m services.store upgrade "$@" ;;
    store) exec python -m services.store "$@" ;;  # current [--wait-head] | backup OUT | restore IN
    *) exec "$service" "$@" ;;
esac
