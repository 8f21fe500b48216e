#!/bin/sh
# Secrets come from files (Compose secrets), never from the image or the process list.
set -eu
GAVEL_AUTH_TOKEN="$(cat /run/secrets/gavel_auth_token)"
GAVEL_LEDGER_URL="postgresql://gavel:$(cat /run/secrets/postgres_password)@${POSTGRES_HOST:-postgres}:5432/gavel"
export GAVEL_AUTH_TOKEN GAVEL_LEDGER_URL
exec gavel serve --transport streamable-http --stateless --host 0.0.0.0 --port 8000 \
    --allow-host "${GAVEL_PUBLIC_HOST:-localhost:8080}" "$@"
