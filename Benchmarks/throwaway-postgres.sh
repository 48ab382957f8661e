# Sourced by the benchmark scripts: a throw-away PostgreSQL (Debian's postgresql; initdb/pg_ctl
# as the postgres user when run as root) on a Unix socket in a temporary folder, with durable
# settings (fsync, synchronous_commit on), stopped and removed when the script exits.
# Defines: bin (PostgreSQL's programs), dir, user, as_pg, and db (prints the URL of a new database).
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
dir=$(mktemp -d /tmp/odpg-bench-XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
user=$([ "$(id -u)" = 0 ] && echo postgres || id -un)
as_pg "$bin/initdb" -D "$dir/data" -E UTF8 --locale=C -A trust -U "$user" >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-k $dir -c listen_addresses='' -c max_connections=300 -c shared_buffers=512MB -c max_wal_size=4GB" start >/dev/null
trap 'as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; rm -rf "$dir"' EXIT
db() { local name="b$RANDOM$RANDOM"; as_pg "$bin/psql" -h "$dir" -U "$user" -X -q -c "CREATE DATABASE $name" postgres; echo "postgres:///$name?host=$dir&user=$user"; }
