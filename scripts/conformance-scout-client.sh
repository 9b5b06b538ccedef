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
