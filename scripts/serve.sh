#!/usr/bin/env bash
# serve.sh — `npm run serve`: make sure everything is installed and built (scripts/setup.sh), then serve
# the page on http://127.0.0.1:8080/web/ (PORT env or `npm run serve -- --port N` to change).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
exec node scripts/serve.mjs "$@"
