#!/usr/bin/env bash
# Installs what Keyhold needs on a fresh Node 20 machine (pnpm included) and starts the server.
# Extra arguments go to `keyhold serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pnpm >/dev/null 2>&1; then
  echo "keyhold: installing pnpm 12 with npm" >&2
  npm install --global --silent pnpm@12 >&2
fi
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
pnpm install --frozen-lockfile >&2
exec pnpm --silent start "$@"
