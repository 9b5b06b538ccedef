#!/usr/bin/env bash
# Checks the outputs of the self-test workflow's two scout steps (.github/workflows/
# self-test.yml): the run meant to pass passed with a score of at least 80 and wrote its SARIF
# and JUnit reports where its outputs say; the run meant to fail failed its gate.
# Reads PASS_PASSED, PASS_SCORE, PASS_SARIF, PASS_JUNIT, FAIL_OUTCOME and FAIL_PASSED.
set -euo pipefail

problems=0
expect() {
  if [ "$2" = "$3" ]; then
    echo "ok: $1 = $2"
  else
    echo "::error title=self-test::$1 is '$2', expected '$3'"
    problems=$((problems + 1))
  fi
}

expect "passing run: passed" "${PASS_PASSED:-}" true
if [[ "${PASS_SCORE:-}" =~ ^[0-9]+$ ]] && [ "$PASS_SCORE" -ge 80 ]; then
  echo "ok: passing run: score $PASS_SCORE >= 80"
else
  echo "::error title=self-test::passing run: score is '${PASS_SCORE:-}', expected a number >= 80"
  problems=$((problems + 1))
fi
for report in "${PASS_SARIF:-}" "${PASS_JUNIT:-}"; do
  case "$report" in
    "" | /*) echo "::error title=self-test::report path '$report' is not workspace-relative"; problems=$((problems + 1)) ;;
    *) if [ -s "$report" ]; then echo "ok: $report written"; else echo "::error title=self-test::$report is missing"; problems=$((problems + 1)); fi ;;
  esac
done
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["version"] == "2.1.0"' "${PASS_SARIF:-/nonexistent}" ||
  { echo "::error title=self-test::the SARIF report is not SARIF 2.1.0"; problems=$((problems + 1)); }
expect "failing run: outcome" "${FAIL_OUTCOME:-}" failure
expect "failing run: passed" "${FAIL_PASSED:-}" false

[ "$problems" -eq 0 ]
