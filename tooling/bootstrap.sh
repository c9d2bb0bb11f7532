#!/usr/bin/env bash
# Makes Node >= 22.14 and pnpm 10 available, then (when given arguments) installs, builds and runs
# `pnpm <args>`. Source it (`. tooling/bootstrap.sh`) to get the toolchain on PATH in your shell.
#
#   bash tooling/bootstrap.sh start   # set up everything and run examples/hello
#   bash tooling/bootstrap.sh test    # set up everything and run the whole test suite
#
# Node 24 comes from the npm registry (the `node` package ships the official binary), so nothing
# outside the registry is needed; its install script (which unpacks the binary) must run.
# AGENTSVC_TOOLCHAIN overrides where it goes.

_agentsvc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_agentsvc_prefix="${AGENTSVC_TOOLCHAIN:-$_agentsvc_root/.toolchain}"

# Node 22 before 22.14 crashes at the store's first open (better-sqlite3), so it counts as too old.
_agentsvc_node_ok() { node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 14) ? 0 : 1)' 2>/dev/null; }

if [ -x "$_agentsvc_prefix/bin/node" ]; then
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
# Runs `npm i -g --prefix <toolchain> <spec>` quietly: one progress line (ticking on a terminal)
# instead of npm's output, which is shown only when the install fails. A subshell, so a sourcing
# interactive shell prints no job-control notices for the background npm.
_agentsvc_npm_global() (
  local what="$1" spec="$2" log flags=(--no-fund --no-audit --loglevel=error)
  log="$(mktemp)"
  # No --allow-scripts for npm 11's note about the `node` package's install script: the script
  # runs a nested npm install, which inherits the flag and rejects it.
  npm i -g --prefix "$_agentsvc_prefix" "${flags[@]}" "$spec" >"$log" 2>&1 &
  local pid=$! start=$SECONDS
  if [ -t 2 ]; then
    while kill -0 "$pid" 2>/dev/null; do
      printf '\ragentsvc bootstrap: fetching %s from the npm registry into %s ... %ss' "$what" "$_agentsvc_prefix" "$((SECONDS - start))" >&2
      sleep 1
    done
  else
    echo "agentsvc bootstrap: fetching $what from the npm registry into $_agentsvc_prefix ..." >&2
  fi
  if wait "$pid"; then
    [ -t 2 ] && printf '\n' >&2
    echo "agentsvc bootstrap: $what ready ($((SECONDS - start)) s)" >&2
    rm -f "$log"
  else
    [ -t 2 ] && printf '\n' >&2
    cat "$log" >&2
    rm -f "$log"
    echo "agentsvc bootstrap: installing $spec failed (output above)" >&2
    exit 1
  fi
)

if ! _agentsvc_node_ok; then
  echo "agentsvc bootstrap: node $(node --version 2>/dev/null || echo none) is older than 22.14; installing node 24" >&2
  _agentsvc_npm_global "node 24" node@24 || return 1 2>/dev/null || exit 1
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
if ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  _agentsvc_npm_global "pnpm 10" pnpm@10.34.9 || return 1 2>/dev/null || exit 1
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
# better-sqlite3 loads the N-API binary it ships (prebuilds/, for linux/darwin/win32 on x64 and
# arm64); pnpm-workspace.yaml skips its node-gyp build, so no node headers (nodedir) are needed.
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1

# Executed with arguments: set up the workspace and run the pnpm script named by them.
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "$#" -gt 0 ]; then
  set -euo pipefail
  cd "$_agentsvc_root"
  if [ "${CI:-}" = "true" ]; then pnpm install --frozen-lockfile; else pnpm install; fi
  if [ "$*" = "start" ]; then
    # Only what examples/hello runs, and only its JavaScript (no declaration files): seconds, not
    # the full `pnpm build` with its type check.
    pnpm exec turbo run build --filter @agentsvc/example-hello...
  else
    pnpm build
  fi
  exec pnpm "$@"
fi
