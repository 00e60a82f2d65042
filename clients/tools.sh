# Shared by clients/generate and clients/run-examples (sourced from the
# project's root): where their tools live, one setup at a time, and the
# TypeScript toolchain installed from its lock file when it is missing or stale.

tools="${CARGO_TARGET_DIR:-$PWD/target}/clients"
mkdir -p "$tools"
# The tests run both scripts at once: one takes the setup, the other waits.
exec 9>"$tools/.lock"
flock 9

typescript=clients/typescript
if [ ! -f "$typescript/node_modules/.package-lock.json" ] \
  || [ "$typescript/package-lock.json" -nt "$typescript/node_modules/.package-lock.json" ]; then
  # On stderr: a driven client's stdout carries its answers only.
  (cd "$typescript" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
