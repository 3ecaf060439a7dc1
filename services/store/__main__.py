"""``python -m services.store``: migrations, backups and restores of the durable store (docs/store.md).

    python -m services.store upgrade [--revision R] [--wait S]  # to the newest (idempotent; docker: migrate)
    python -m services.store current [--wait-head]   # the revision; --wait-head: until it is the newest
    python -m services.store backup OUT              # pg_dump -Fc, or an SQLite online backup
    python -m services.store restore IN              # pg_restore --clean, or the SQLite file back
    python -m services.store import-archive --redis URL (--key KEY | --owner DIGEST)
                                                     # an archive kept in Redis by a version before 0003

The database is ``--url`` or ``PULVEZAR_DATABASE_URL``. Exit status 2: no URL, a database that cannot be
reached, or a backup/restore that failed; 1: ``--wait-head`` timed out.
"""

from __future__ import annotations

import argparse
import os
import sys

from services.common.redis_url import connect as connect_redis

EXIT_USAGE = 2


def parser() -> argparse.ArgumentParser:
    url_help = "SQLAlchemy URL of the database (default: $PULVEZAR_DATABASE_URL)"
    p = argparse.ArgumentParser(
        prog="python -m services.store", description="Migrations, backups and restores of the durable store."
    )
    p.add_argument("--url", help=url_help)
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", default=argparse.SUPPRESS, help=url_help)

    up = sub.add_parser("upgrade", parents=[common], help="migrate to the newest (or a given) revision")
    up.add_argument("--revision", default="head", help="the revision to migrate to (default: head)")
    up.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="S",
        help="wait up to S seconds for the database to accept connections (init containers)",
    )

    cur = sub.add_parser("current", parents=[common], help="print the database's revision")
    cur.add_argument(
        "--wait-head",
        action="store_true",
        help="wait until the database is at this code's newest revision (for init containers)",
    )
    cur.add_argument("--timeout", type=float, default=600.0, help="how long --wait-head waits (s)")

    bk = sub.add_parser("backup", parents=[common], help="write a backup of the database to OUT")
    bk.add_argument("out", metavar="OUT")

    rs = sub.add_parser("restore", parents=[common], help="replace the database's contents by the backup IN")
    rs.add_argument("inp", metavar="IN")

    ia = sub.add_parser(
        "import-archive",
        parents=[common],
        help="copy the deployment-wide archive of versions before 0003 (in Redis) into one key's archive",
    )
    ia.add_argument("--redis", required=True, help="the Redis URL that holds archive:entries")
    who = ia.add_mutually_exclusive_group(required=True)
    who.add_argument("--key", help="the API key whose archive receives the entries")
    who.add_argument("--owner", help="or its digest, as the jobs table records owners")
    return p


def import_archive(url: str, redis_url: str, owner: str) -> int:
    """The entries of Redis's ``archive:entries`` (the archive before it was kept per key) into ``owner``'s
    archive in the database; how many."""
    import json

    from pulvezar.archive.similar import ArchiveEntry
    from services.store.archive import SqlArchive

    raw = connect_redis(redis_url, decode_responses=True).hgetall("archive:entries")
    return SqlArchive(url, owner).import_entries(ArchiveEntry.trusted(json.loads(v)) for v in raw.values())


def fail(message: str, status: int = EXIT_USAGE) -> int:
    print(f"python -m services.store: {message}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    url = args.url or os.environ.get("PULVEZAR_DATABASE_URL")
    if not url:
        return fail("no database: set PULVEZAR_DATABASE_URL or pass --url")

    from sqlalchemy.exc import OperationalError

    from services.store import migrate
    from services.store.backup import BackupError, backup, restore

    try:
        if args.command == "current" and args.wait_head:
            try:
                rev = migrate.wait_for_head(url, args.timeout, say=lambda m: print(m, file=sys.stderr))
            except TimeoutError as e:
                return fail(str(e), 1)
            print(rev)
            return 0
        sqlite_file = migrate.sqlite_file(url)
        if sqlite_file is None and args.command == "upgrade" and args.wait > 0:
            migrate.wait_reachable(url, args.wait, say=lambda m: print(m, file=sys.stderr))
        elif sqlite_file is None:
            migrate.check(url)
        elif args.command == "upgrade":
            sqlite_file.parent.mkdir(parents=True, exist_ok=True)
        elif args.command != "restore" and not sqlite_file.exists():
            return fail(f"no database at {sqlite_file}")
        if args.command == "upgrade":
            before = migrate.current(url)
            migrate.upgrade(url, args.revision)
            after = migrate.current(url)
            print(f"{migrate.shown(url)}: {before or 'empty'} -> {after}", file=sys.stderr)
        elif args.command == "current":
            now, want = migrate.current(url), migrate.head()
            print(f"{now or 'none'}" + (" (head)" if now == want else f" (head: {want})"))
        elif args.command == "backup":
            out = backup(url, args.out)
            print(f"{migrate.shown(url)} backed up to {out} ({out.stat().st_size} bytes)", file=sys.stderr)
        elif args.command == "restore":
            restore(url, args.inp)
            print(f"{migrate.shown(url)} restored from {args.inp}", file=sys.stderr)
        elif args.command == "import-archive":
            if args.key is not None:
                from services.common.owners import owner_of

                owner = owner_of(args.key)
            else:
                owner = args.owner
            n = import_archive(url, args.redis, owner)
            print(f"{n} archive entries copied into the archive of owner {owner}", file=sys.stderr)
    except migrate.Unreachable as e:
        return fail(str(e))
    except BackupError as e:
        return fail(str(e))
    except OperationalError as e:  # lost between the check and the work
        return fail(f"the database at {migrate.shown(url)} failed: {str(e.orig or e).strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
