#!/usr/bin/env bash
# Install the validators the tests run from npm (html-validate), at the versions .ci/npm/package-lock.json
# pins, into a cache folder outside the repository:
#   ${WORKINGS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/workings-tools}/npm/node_modules/.bin/
# tests/test_html_validate.py looks there. Without node and npm this says so and exits 0 (the test then
# skips with that reason) unless WORKINGS_REQUIRE_VALIDATORS=1 (as .ci/run and CI set), where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${WORKINGS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/workings-tools}/npm"

missing() {
  if [ "${WORKINGS_REQUIRE_VALIDATORS:-}" = 1 ]; then
    echo "install-validators: WORKINGS_REQUIRE_VALIDATORS=1 but $1" >&2
    exit 1
  fi
  echo "install-validators: skipped: $1 (the html-validate test will skip)" >&2
  exit 0
}

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing "node and npm are not installed"
# html-validate 10 needs node ^20.19 or >= 22.12 (its package's "engines")
version_ok='const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)'
node -e "$version_ok" || missing "node $(node --version) is older than html-validate 10 needs (20.19 or 22.12)"

# Already there at these versions: nothing to do (the lockfile is the key).
if cmp -s .ci/npm/package-lock.json "$dir/package-lock.json" && [ -x "$dir/node_modules/.bin/html-validate" ]; then
  exit 0
fi
mkdir -p "$dir"
cp .ci/npm/package.json .ci/npm/package-lock.json "$dir/"
# npm ci: exactly the lockfile's packages, checked against its integrity hashes; no install scripts run.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) \
  || { rm -f "$dir/package-lock.json"; missing "npm ci failed in $dir (is the npm registry reachable?)"; }
