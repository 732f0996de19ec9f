#!/usr/bin/env bash
# Writes `.env` for docker compose with fresh secrets: the PostgreSQL password, the operator's admin token and the
# master key that seals APNs keys. An existing `.env` is left alone (a new MASTER_KEY could not open the keys sealed
# with the old one). Keep the file private; back up MASTER_KEY.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -e .env ]; then
    echo ".env exists; leaving it as it is" >&2
    exit 0
fi
umask 077
{
    echo "POSTGRES_PASSWORD=$(openssl rand -hex 24)"
    echo "ADMIN_TOKEN=$(openssl rand -hex 24)"
    echo "MASTER_KEY=$(openssl rand -base64 32)"
} >.env
echo "wrote .env (POSTGRES_PASSWORD, ADMIN_TOKEN, MASTER_KEY); back up MASTER_KEY: it opens the sealed APNs keys"
