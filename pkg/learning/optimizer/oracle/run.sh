#!/bin/sh
# Starts the fsrs-rs oracle (oracle.mjs) on stdin/stdout, installing its
# pinned dependencies first (npm ci from package-lock.json) when
# node_modules is missing. Run by the Go tests of this folder.
#
# package-lock.json pins @open-spaced-repetition/binding 0.5.0 and its
# linux-x64-gnu binary with their integrity hashes. The registry these
# machines reach has no other platform's 0.5.0 binary, so their entries
# (which npm ci needs to see the lock in sync) were written by hand: name,
# version, os/cpu/libc, no hash. On linux-x64-gnu npm ci skips them; on
# another platform it fetches that platform's binary unverified, and
# `npm install --package-lock-only` against the public registry fills in
# the hashes.
set -e
cd "$(dirname "$0")"
if [ ! -d node_modules/@open-spaced-repetition/binding ]; then
	npm ci --no-audit --no-fund --loglevel=error >&2
fi
exec node oracle.mjs
