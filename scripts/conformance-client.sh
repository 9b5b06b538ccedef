#!/usr/bin/env bash
# conformance-client.sh [SCENARIO...]
# Runs scout as the *client* under the official MCP conformance suite
# (@modelcontextprotocol/conformance, `client` mode): for each scenario the suite starts a mock
# MCP server (and, for the auth scenarios, an authorization server), runs
# scripts/conformance-scout-client.sh with the mock's URL appended (credentials or the calls to
# make, when the scenario hands any, in MCP_CONFORMANCE_CONTEXT), and judges what scout sent.
# Exit 0 when every scenario expected to pass passed.
#
# The scenarios that apply to a headless client are listed below. Those scout cannot pass yet
# are in NOT_YET with the reason, printed on every run (never silently skipped); with
# CONFORMANCE_ALL=1 they are run too, to see whether they pass now.
#
# scripts/conformance-install.sh installs Node 22 and the suite into target/conformance/
# (gitignored) when absent. Only loopback traffic: the mock servers listen on localhost.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
DIR=$ROOT/target/conformance
SCOUT=${SCOUT_BIN:-$ROOT/target/debug/scout}
die() { echo "conformance-client: $*" >&2; exit 2; }

command -v npm >/dev/null || die "npm is not on PATH (it installs Node 22 and the suite)"
command -v python3 >/dev/null || die "python3 is not on PATH (the client wrapper reads the context with it)"
command -v curl >/dev/null || die "curl is not on PATH (it plays the browser the mock approves at once)"
[ -x "$SCOUT" ] || die "no scout binary at $SCOUT: run cargo build --bin scout (or set SCOUT_BIN)"
# Node 22 and the suite, installed when absent (one install at a time, retried once).
paths=$("$ROOT/scripts/conformance-install.sh") || exit 2
NODE22=$(printf '%s\n' "$paths" | sed -n 1p)
CLI=$(printf '%s\n' "$paths" | sed -n 2p)

# `conformance list --client` of 0.2.0-alpha.12: every scenario a headless client can take
# part in. Not listed because they do not apply to scout: the sep-2640-* skills scenarios (an
# extension for hosts that load skills), and auth/basic-cimd (a client id metadata
# document on a public https URL), auth/enterprise-managed-authorization and
# auth/wif-jwt-bearer (an enterprise identity provider's token exchange), auth/dpop and
# auth/dpop-nonce (sender-constrained tokens, an extension scout does not implement).
PASSING=(
  # The client itself: the handshake, calls, per-request _meta and headers (Mcp-Method,
  # Mcp-Name, Mcp-Param-*), tools with invalid x-mcp-header left out, SSE resumption after
  # the retry field's wait, elicitation defaults, multi round-trip requests (requestState),
  # and inputSchemas kept as listed (no network $ref followed).
  initialize tools_call request-metadata sse-retry elicitation-sep1034-client-defaults
  sep-2322-client-request-state http-standard-headers http-custom-headers
  http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/resource-mismatch
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration
  auth/client-credentials-basic auth/client-credentials-jwt
  auth/offline-access-scope auth/offline-access-not-supported
  auth/metadata-issuer-mismatch
  auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer
  auth/iss-unexpected auth/iss-normalized
  auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
  auth/scope-step-up auth/scope-retry-limit auth/authorization-server-migration
)
# scenario|why scout does not pass it yet
NOT_YET=()

if [ $# -gt 0 ]; then
  SELECTED=("$@")
else
  SELECTED=("${PASSING[@]}")
  if [ "${CONFORMANCE_ALL:-0}" = 1 ]; then
    for e in "${NOT_YET[@]}"; do SELECTED+=("${e%%|*}"); done
  fi
fi

OUT=${OUT:-$DIR/runs/$(date +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
for e in "${NOT_YET[@]}"; do
  echo "conformance-client: not yet: ${e%%|*}: ${e#*|}"
done
failed=()
for s in "${SELECTED[@]}"; do
  if SCOUT_BIN=$SCOUT "$NODE22" "$CLI" client --command "$ROOT/scripts/conformance-scout-client.sh" \
      --scenario "$s" --timeout 60000 -o "$OUT" >"$OUT/${s//\//_}.log" 2>&1; then
    echo "conformance-client: pass: $s"
  else
    echo "conformance-client: FAIL: $s (see $OUT/${s//\//_}.log)"
    failed+=("$s")
  fi
done
echo "conformance-client: ${#SELECTED[@]} scenario(s), ${#failed[@]} failed; results in $OUT"
[ ${#failed[@]} -eq 0 ]
