#!/usr/bin/env bash
# Every published text in the repository (claims/<slug>/article.md): each figure backed, an
# acknowledged erratum, or listed with a reason in its front matter (not_backed). Runs them all,
# then fails if any text has a figure nobody accounted for.
set -uo pipefail
cd "$(dirname "$0")/.."
workings="${WORKINGS:-workings}"
status=0
shopt -s nullglob
for article in claims/*/article.md; do
  slug="$(basename "$(dirname "$article")")"
  $workings check-draft "$article" --issue "$slug" --published -q || status=1
done
exit "$status"
