#!/usr/bin/env bash
# conformance-scout-client.sh URL
# The client command scripts/conformance-client.sh hands the conformance suite: the suite
# appends the mock server's URL and sets MCP_CONFORMANCE_SCENARIO and, when the scenario gives
# the client credentials, MCP_CONFORMANCE_CONTEXT (JSON: client_id, client_secret or
# private_key_pem). It maps each scenario to what an operator would run:
#   client credentials (a secret or a key)  -> scout connect URL --client-id … --client-secret-env/--client-key-file
#   step-up and migration (a token asked for only on later requests, more scope on a
#   tools/call, another authorization server mid-session)
#                                            -> scout call test-tool URL --login (the mock's one tool)
#   everything else (authorization code)    -> scout auth login URL, then scout connect URL with the stored token
# The scenarios that judge the client itself (no authorization) run what an operator would run
# to make the mock server's tools do their thing; see `client_scenario` below.
# For each login it plays the browser: it GETs every authorization URL scout prints and follows
# the redirect back to scout's loopback callback (the suite's mock approves at once).
set -u
URL=${!#}
SCOUT=${SCOUT_BIN:?SCOUT_BIN names the scout binary}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The stored login goes to a folder of this run only; `scout auth login` refuses under CI=true.
export XDG_CONFIG_HOME=$WORK/config
unset CI
field() {
  python3 -c 'import json,os,sys; v=json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}").get(sys.argv[1]); print(v if v is not None else "")' "$1"
}
CLIENT_ID=$(field client_id)
export CONFORMANCE_CLIENT_SECRET
CONFORMANCE_CLIENT_SECRET=$(field client_secret)
KEY=$(field private_key_pem)

# The full persona (it declares roots, sampling and elicitation and answers them), accepting
# forms with the schema's defaults: what the elicitation and multi round-trip mocks ask of a
# client. Every mock tool lacks annotations, so scout's policy treats each as destructive
# and --allow-destructive is the operator's consent for these local mocks.
full_client() {
  cat >"$WORK/client.toml" <<'TOML'
[default.client]
persona = "full"
elicitation = "accept"
TOML
  printf '%s\n' "$WORK/client.toml"
}
# The JSON context's `toolCalls` as lines "NAME<TAB>ARGUMENTS-JSON".
tool_calls() {
  python3 -c 'import json,os; c=json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
for t in c.get("toolCalls", []): print(t["name"] + "\t" + json.dumps(t.get("arguments", {})))'
}
# The tools `scout tools --json` lists (scout drops those a client must not offer).
listed_tools() {
  "$SCOUT" tools --json "$URL" | python3 -c 'import json,sys; [print(r["name"]) for r in json.load(sys.stdin)]'
}
client_scenario() {
  local rc=0 name args
  case "$1" in
    initialize) "$SCOUT" connect "$URL" ;;
    tools_call) "$SCOUT" call add_numbers "$URL" --arg a=2 --arg b=3 --allow-destructive ;;
    request-metadata | json-schema-ref-no-deref) "$SCOUT" tools "$URL" ;;
    http-standard-headers) "$SCOUT" call test_headers "$URL" --allow-destructive ;;
    sse-retry) "$SCOUT" call test_reconnection "$URL" --allow-destructive ;;
    elicitation-sep1034-client-defaults)
      "$SCOUT" call test_client_elicitation_defaults "$URL" --allow-destructive --config "$(full_client)" ;;
    sep-2322-client-request-state)
      for name in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
        "$SCOUT" call "$name" "$URL" --allow-destructive --config "$(full_client)" || rc=$?
      done
      return $rc ;;
    http-custom-headers)
      while IFS=$'\t' read -r name args; do
        "$SCOUT" call "$name" "$URL" --json-args "$args" --allow-destructive || rc=$?
      done < <(tool_calls)
      return $rc ;;
    http-invalid-tool-headers)
      while IFS= read -r name; do
        "$SCOUT" call "$name" "$URL" --allow-destructive || rc=$?
      done < <(listed_tools)
      return $rc ;;
    json-schema-2020-12-preservation)
      # The focal tool's inputSchema, exactly as scout read it, handed back to the echo tool.
      args=$("$SCOUT" tools --json "$URL" | python3 -c 'import json,sys
rows = {r["name"]: r for r in json.load(sys.stdin)}
print(json.dumps({"schema": rows["json_schema_2020_12_tool"]["inputSchema"]}))') || return 1
      "$SCOUT" call json_schema_echo "$URL" --json-args "$args" --allow-destructive ;;
    *) return 64 ;;
  esac
}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/*) ;;
  *)
    client_scenario "${MCP_CONFORMANCE_SCENARIO:-}"
    exit $?
    ;;
esac

case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/client-credentials-*)
    if [ -n "$KEY" ]; then
      (umask 077; printf '%s\n' "$KEY" >"$WORK/client.pem")
      exec "$SCOUT" connect "$URL" --client-id "$CLIENT_ID" --client-key-file "$WORK/client.pem"
    fi
    exec "$SCOUT" connect "$URL" --client-id "$CLIENT_ID" --client-secret-env CONFORMANCE_CLIENT_SECRET
    ;;
esac

# Opens every authorization URL scout prints to $2 while process $1 runs, each once.
play_browser() {
  local pid=$1 err=$2 seen=$WORK/opened
  : >"$seen"
  while :; do
    while IFS= read -r u; do
      grep -qxF "$u" "$seen" && continue
      printf '%s\n' "$u" >>"$seen"
      curl -s -o /dev/null --max-time 20 -L "$u" || true
    done < <(grep -E '^https?://' "$err" || true)
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
}

case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/scope-step-up | auth/scope-retry-limit | auth/authorization-server-migration)
    "$SCOUT" call test-tool "$URL" --login --no-browser --login-wait 30s \
      --allow-mutations --allow-destructive 2>"$WORK/call.err" &
    pid=$!
    play_browser "$pid" "$WORK/call.err"
    wait "$pid"
    rc=$?
    cat "$WORK/call.err" >&2
    exit $rc
    ;;
esac

login=("$SCOUT" auth login "$URL" --no-browser --wait 30s)
if [ -n "$CLIENT_ID" ]; then
  login+=(--client-id "$CLIENT_ID")
  [ -n "$CONFORMANCE_CLIENT_SECRET" ] && login+=(--client-secret-env CONFORMANCE_CLIENT_SECRET)
fi
"${login[@]}" 2>"$WORK/login.err" &
pid=$!
# Wait for the URL scout prints (or for scout to give up), then open it like a browser would.
auth_url=
for _ in $(seq 1 300); do
  auth_url=$(grep -m1 -E '^https?://' "$WORK/login.err" || true)
  [ -n "$auth_url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -n "$auth_url" ]; then
  curl -s -o /dev/null --max-time 20 -L "$auth_url" || true
fi
wait "$pid"
rc=$?
cat "$WORK/login.err" >&2
[ $rc -eq 0 ] || exit $rc
exec "$SCOUT" connect "$URL"
