#!/bin/sh
# Starts the fsrs-rs oracle (oracle.mjs) on stdin/stdout, installing its
# pinned dependencies first (npm ci from package-lock.json) when
# node_modules is missing. Run by the Go tests of this folder.
set -e
cd "$(dirname "$0")"
if [ ! -d node_modules/@open-spaced-repetition/binding ]; then
	npm ci --silent --no-audit --no-fund >&2
fi
exec node oracle.mjs
