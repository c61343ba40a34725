#!/bin/bash
# Start MariaDB, PostgreSQL and RabbitMQ on loopback if they are down
# (integration tests need them). Installs them with apt when missing.
set -euo pipefail
up() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
wait_port() { for _ in $(seq 1 120); do up "$1" && return 0; sleep 0.5; done; echo "port $1 did not open" >&2; return 1; }
need=()
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
ls /etc/postgresql/*/main >/dev/null 2>&1 || need+=(postgresql)
command -v rabbitmq-server >/dev/null || [ -x /usr/sbin/rabbitmq-server ] || need+=(rabbitmq-server)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! up 3306; then
    echo "starting MariaDB"
    # By its pid file: the loopback cloud runs a mariadbd of its own.
    start-stop-daemon --start --oknodo --background \
        --pidfile /run/mysqld/mysqld.pid --exec /usr/sbin/mariadbd
    wait_port 3306
fi
if ! up 5432; then
    echo "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
    wait_port 5432
fi
if ! up 5672; then
    echo "starting RabbitMQ"
    rabbitmq-server -detached
    wait_port 5672
fi
