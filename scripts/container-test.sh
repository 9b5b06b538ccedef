#!/usr/bin/env bash
# Builds scout's container images with podman and runs them the way CI systems do:
#   1. the `slim` and `full` targets of Dockerfile, and `scout --version` in each; the full
#      image's Node.js, npm, npx, Python, uv, uvx and git through the entry point;
#   2. a full check of the demo server inside `full`: the stdio server started as a child and
#      the HTTP server started by scout itself (`start`), with the reports written to a mount;
#   3. the GitHub container action as the runner starts it (host network, the workspace at
#      /github/workspace, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and INPUT_*
#      with hyphenated names like INPUT_FAIL-UNDER, `action` as the argument), asserting the
#      outputs, the summary, the reports and the exit codes, against a server on the machine's
#      loopback (standing in for a service container) and over stdio;
#   4. Dockerfile.release from the binary just built, and `scout --version` in its images.
#
# No container registry is needed. Every image the Dockerfiles name in FROM is made here from
# Debian's packages (mmdebstrap), the npm registry and PyPI, and tagged with exactly that name
# (a "stand-in"). The machine's extra CA certificates (a TLS proxy's, if any) are copied into
# the stand-in base image only, so that apt, cargo and npm inside a build can reach their
# registries; the Dockerfiles themselves never see them.
#
# Installs podman, runc and mmdebstrap with apt-get when missing (as root). Reuses what exists:
# the stand-ins and podman's layer cache, so a second run rebuilds only what changed. Each step
# prints its time; on failure the step's log tail is shown and the last line says what failed.
#
# Env: SCOUT_CONTAINER_TIMEOUT  seconds allowed for one image build (default 3600).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
state=$root/target/container-test
mkdir -p "$state"
log=$state/step.log
build_timeout=${SCOUT_CONTAINER_TIMEOUT:-3600}

say() { printf 'container-test: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# logged WHAT CMD…: runs CMD with its output in $log; on failure shows the log's tail and dies.
logged() {
  local what=$1
  shift
  local rc=0
  "$@" >"$log" 2>&1 </dev/null || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 30 "$log" >&2
    [ "$rc" = 124 ] && die "$what timed out (whole log: target/container-test/step.log)"
    die "$what failed (whole log: target/container-test/step.log)"
  fi
}

# once_more CMD…: a network step gets one retry after a short pause.
once_more() {
  "$@" && return 0
  say "retrying once: $*"
  sleep 5
  "$@"
}

timed() {
  local what=$1 start=$SECONDS
  shift
  "$@"
  say "$what: $((SECONDS - start)) s"
}

scratch=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# ---------------------------------------------------------------- tools
install_tools() {
  local missing=()
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "${missing[*]} not installed and not root: install them with apt-get first"
  command -v apt-get >/dev/null 2>&1 || die "${missing[*]} not installed and there is no apt-get"
  say "installing ${missing[*]} with apt-get"
  logged "apt-get install ${missing[*]}" once_more apt_install "${missing[@]}"
}

# shellcheck disable=SC2317 # called through once_more
apt_install() {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

for tool in python3 npm cargo; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (the test needs it to make stand-in images and the demo server)"
done
timed "tools" install_tools

# podman's default runtime (crun) and ulimits do not work in every sandbox; runc with the
# machine's own hard limit does.
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=1048576
export CONTAINERS_CONF=$state/containers.conf
printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' \
  "$hard" "$hard" >"$CONTAINERS_CONF"

# ---------------------------------------------------------------- stand-ins for FROM images
# The full name podman gives an image named in FROM.
qualified() {
  case $1 in
    */*/*) printf '%s\n' "$1" ;;
    */*) printf 'docker.io/%s\n' "$1" ;;
    *) printf 'docker.io/library/%s\n' "$1" ;;
  esac
}

build_ctx() { # NAME DIR: builds DIR/Containerfile as NAME
  logged "building the stand-in $1" timeout "$build_timeout" \
    podman build --network=host -t "$1" -f "$2/Containerfile" "$2"
}

standin_debian() { # NAME SUITE
  local dir=$scratch/debian
  mkdir -p "$dir/certs"
  local exclude=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-include=/usr/share/doc/*/copyright')
  # With no mirror given mmdebstrap uses the machine's own apt sources.
  logged "mmdebstrap $2" once_more timeout 600 \
    mmdebstrap --variant=minbase --mode=root "${exclude[@]}" "$2" "$dir/rootfs.tar"
  logged "podman import" podman import --change 'CMD ["bash"]' "$dir/rootfs.tar" "localhost/scout-standin/debian:$2"
  rm -f "$dir/rootfs.tar"
  # The machine's extra CA certificates, if any: without them a TLS proxy in front of the
  # registries makes apt-over-https, cargo and npm inside a build fail.
  local crt
  for crt in /usr/local/share/ca-certificates/*.crt; do
    [ -f "$crt" ] && cp "$crt" "$dir/certs/"
  done
  printf 'FROM localhost/scout-standin/debian:%s\nCOPY certs/ /usr/local/share/ca-certificates/\n' "$2" >"$dir/Containerfile"
  build_ctx "$1" "$dir"
}

standin_rust() { # NAME: cargo and rustc from bookworm-security's cargo-web (1.8x+ Rust)
  local dir=$scratch/rust
  mkdir -p "$dir"
  cat >"$dir/Containerfile" <<'CONTAINERFILE'
FROM docker.io/library/debian:bookworm-slim
RUN apt-get update -o Acquire::Retries=3 \
 && apt-get install -y -o Acquire::Retries=3 --no-install-recommends ca-certificates cargo-web gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
ENV CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONTAINERFILE
  build_ctx "$1" "$dir"
}

standin_node() { # NAME MAJOR: the official Node.js binary (npm's node-linux-<arch>) and npm
  local dir=$scratch/node arch
  case $(uname -m) in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) die "no Node.js stand-in for $(uname -m)" ;;
  esac
  mkdir -p "$dir/pack" "$dir/node" "$dir/npm"
  # npm 10 is the npm that Node.js 22 ships; any recent npm does for the test.
  logged "npm pack node-linux-$arch@$2 npm@10" once_more timeout 300 \
    npm pack --silent --pack-destination "$dir/pack" "node-linux-$arch@$2" npm@10
  tar -xzf "$dir"/pack/node-linux-*.tgz -C "$dir/node" --strip-components=1 package/bin/node
  tar -xzf "$dir"/pack/npm-*.tgz -C "$dir/npm" --strip-components=1
  rm -rf "$dir/pack"
  cat >"$dir/Containerfile" <<'CONTAINERFILE'
FROM docker.io/library/debian:bookworm-slim
COPY node/bin/node /usr/local/bin/node
COPY npm/ /usr/local/lib/node_modules/npm/
CONTAINERFILE
  build_ctx "$1" "$dir"
}

standin_uv() { # NAME VERSION: uv and uvx from the PyPI wheel, at / as in the official image
  local dir=$scratch/uv
  mkdir -p "$dir/wheel"
  logged "pip download uv==$2" once_more timeout 300 \
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$dir/wheel" "uv==$2"
  python3 - "$dir" <<'PY'
import pathlib, sys, zipfile
out = pathlib.Path(sys.argv[1])
wheel = next((out / "wheel").glob("uv-*.whl"))
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.split("/")[-2:-1] == ["scripts"] and name.split("/")[-1] in ("uv", "uvx"):
            target = out / name.split("/")[-1]
            target.write_bytes(z.read(name))
            target.chmod(0o755)
PY
  if [ ! -x "$dir/uv" ] || [ ! -x "$dir/uvx" ]; then
    die "the uv $2 wheel has no uv/uvx programs"
  fi
  printf 'FROM scratch\nCOPY uv uvx /\n' >"$dir/Containerfile"
  build_ctx "$1" "$dir"
}

make_standin() { # IMAGE as written in FROM
  local name
  name=$(qualified "$1")
  podman image exists "$name" && return 0
  # On a GitHub runner, where the registries are reachable, the real image is used; on our
  # own machines no container registry is reachable, so no pull is tried there at all.
  if [ "${GITHUB_ACTIONS:-}" = true ] && timeout 300 podman pull -q "$name" >/dev/null 2>&1; then
    say "pulled $1"
    return 0
  fi
  say "making a local stand-in for $1"
  local start=$SECONDS
  case $name in
    docker.io/library/debian:*)
      local tag=${name##*:}
      standin_debian "$name" "${tag%-slim}"
      ;;
    docker.io/library/rust:*-bookworm) standin_rust "$name" ;;
    docker.io/library/node:*-bookworm-slim)
      local tag=${name##*:}
      standin_node "$name" "${tag%%-*}"
      ;;
    ghcr.io/astral-sh/uv:*) standin_uv "$name" "${name##*:}" ;;
    *) die "no recipe for a local stand-in of $1 (named in a FROM line)" ;;
  esac
  say "stand-in $1: $((SECONDS - start)) s"
}

standins() {
  # The base image first: the other stand-ins are built on it.
  make_standin debian:bookworm-slim
  local image
  # Every FROM of both Dockerfiles that is not an earlier stage or scratch.
  awk 'toupper($1) == "FROM" { print $2 }' Dockerfile Dockerfile.release | sort -u >"$scratch/from"
  while read -r image; do
    grep -qiE "^FROM .* AS $image\$" Dockerfile Dockerfile.release && continue
    [ "$image" = scratch ] && continue
    make_standin "$image"
  done <"$scratch/from"
}
timed "stand-in images" standins

# ---------------------------------------------------------------- the images
build_image() { # TARGET TAG [FILE CONTEXT]
  logged "podman build --target $1" timeout "$build_timeout" \
    podman build --network=host --target "$1" -t "$2" -f "${3:-Dockerfile}" "${4:-.}"
}
timed "image slim" build_image slim localhost/scout:slim
timed "image full" build_image full localhost/scout:full

version=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
in_image() { podman run --rm --network=host "$@"; }

check_version() { # IMAGE
  local out
  out=$(in_image "$1" --version 2>&1) || die "scout --version failed in $1: $out"
  [ "$out" = "scout $version" ] || die "scout --version in $1 printed '$out', expected 'scout $version'"
}
check_version localhost/scout:slim
check_version localhost/scout:full
# Anything that is not scout's runs as given: the runtimes a stdio server needs are there.
tools_out=$(in_image localhost/scout:full sh -c \
  'node --version && npm --version && npx --version && python3 --version && uv --version && uvx --version && git --version' 2>&1) ||
  die "a runtime is missing from the full image: $tools_out"
say "full image runtimes: $(printf '%s' "$tools_out" | tr '\n' ' ')"

# ---------------------------------------------------------------- the demo server, inside
demo=$root/target/debug/examples/demo-server
if [ ! -x "$demo" ]; then
  logged "cargo build --example demo-server" cargo build --example demo-server
fi

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# json_check FILE PYTHON-EXPR MESSAGE: asserts a fact about a JSON report (r is the document).
json_check() {
  python3 - "$1" "$2" <<'PY' || die "$3"
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

demo_check() {
  local ws=$scratch/demo port
  port=$(free_port)
  mkdir -p "$ws"
  cat >"$ws/scout.toml" <<TOML
[default]
formats = ["json", "junit", "sarif", "markdown", "har"]

[[default.servers]]
name = "demo-stdio"
command = ["demo-server", "stdio"]

[[default.servers]]
name = "demo-http"
url = "http://127.0.0.1:$port/mcp"
start = ["demo-server", "http", "--port", "$port"]
TOML
  local rc=0
  in_image -v "$demo:/usr/local/bin/demo-server:ro" -v "$ws:/github/workspace" -w /github/workspace \
    localhost/scout:full check --out-dir scout-report --fail-under 50 >"$log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 30 "$log" >&2
    die "the demo check inside the full image exited $rc, expected 0"
  fi
  for f in scout.json junit.xml scout.sarif summary.md har/demo-http.har har/demo-stdio.har; do
    [ -s "$ws/scout-report/$f" ] || die "the demo check wrote no scout-report/$f"
  done
  json_check "$ws/scout-report/scout.json" \
    'r["gate"]["passed"] and sorted(s["name"] for s in r["servers"]) == ["demo-http", "demo-stdio"] and all((s["score"] or 0) >= 50 for s in r["servers"])' \
    "the demo check's JSON report does not show both servers scored and the gate passed"
}
timed "demo check in the full image" demo_check

# A server.json's docker package cannot start inside the image (no Docker there): one line
# saying so, exit 2, in both images; in slim an npm package is refused the same way (no npx).
image_refusals() {
  local ws=$scratch/image_refusals out rc
  mkdir -p "$ws"
  printf '%s' '{"name": "io.github.example/demo", "description": "d", "version": "1.0.0",
    "packages": [{"registryType": "oci", "identifier": "ghcr.io/example/demo", "version": "1.0.0",
                  "transport": {"type": "stdio"}}]}' >"$ws/oci.json"
  printf '%s' '{"name": "io.github.example/demo", "description": "d", "version": "1.0.0",
    "packages": [{"registryType": "npm", "identifier": "@example/demo", "version": "1.0.0",
                  "transport": {"type": "stdio"}}]}' >"$ws/npm.json"
  for case in full:oci slim:oci slim:npm; do
    rc=0
    out=$(in_image -v "$ws:/work" -w /work "localhost/scout:${case%%:*}" check --server-json "${case#*:}.json" 2>&1) || rc=$?
    if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || ! printf '%s' "$out" | grep -q 'image'; then
      die "a ${case#*:} package in the ${case%%:*} image: exit $rc, expected 2 and one line naming the image: $out"
    fi
  done
}
timed "server.json packages the images cannot start" image_refusals

# ---------------------------------------------------------------- the action, as the runner runs it
action_ws=$scratch/action
files=$scratch/file_commands
mkdir -p "$action_ws" "$files"

# run_action NAME EXPECTED-EXIT NAME=VALUE…: `scout action` through the entry point with the
# runner's mounts and variables; every input the action declares is set (empty unless given),
# as the runner does.
run_action() {
  local name=$1 expected=$2
  shift 2
  local inputs=(URL COMMAND START SERVER-JSON MCPB CONFIG PROFILE FAIL-UNDER FAIL-UNDER-CATEGORY
    FAIL-ON BASELINE OUT-DIR FORMATS TOKEN-ENV ARGS)
  local env=(-e GITHUB_ACTIONS=true -e CI=true -e GITHUB_WORKSPACE=/github/workspace
    -e "GITHUB_OUTPUT=/github/file_commands/set_output_$name"
    -e "GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_$name")
  local i kv
  for i in "${inputs[@]}"; do
    local value=
    for kv in "$@"; do
      [ "${kv%%=*}" = "$i" ] && value=${kv#*=}
    done
    env+=(-e "INPUT_$i=$value")
  done
  local rc=0
  in_image "${env[@]}" -v "$demo:/usr/local/bin/demo-server:ro" \
    -v "$action_ws:/github/workspace" -v "$files:/github/file_commands" -w /github/workspace \
    localhost/scout:full action >"$scratch/stdout_$name" 2>"$scratch/stderr_$name" || rc=$?
  if [ "$rc" != "$expected" ]; then
    tail -n 20 "$scratch/stderr_$name" >&2
    die "the simulated action run '$name' exited $rc, expected $expected"
  fi
}

# output NAME FILE: the value of one output in a GITHUB_OUTPUT file (name=value lines).
output() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

action_runs() {
  local port
  port=$(free_port)
  # The server runs on the machine, outside the container: with host networking that is how
  # a service container of the job is reached (by its name on GitHub).
  "$demo" http --port "$port" >"$scratch/server.log" 2>&1 &
  server_pid=$!
  python3 - "$port" <<'PY' || die "the demo server did not start listening on port $port"
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.2).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY

  # 1. An HTTP server, the default out-dir, every report, a passing gate, extra args.
  run_action http 0 "URL=http://127.0.0.1:$port/mcp" FAIL-UNDER=50 \
    FAIL-UNDER-CATEGORY=handshake=50 "ARGS=--timeout
20s"
  local out=$files/set_output_http report=$action_ws/scout-report/scout.json
  [ -s "$report" ] || die "the action wrote no scout-report/scout.json into the workspace"
  local score
  score=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(min(s["score"] for s in r["servers"]))' "$report")
  [ "$(output score "$out")" = "$score" ] || die "output score is '$(output score "$out")', the report says $score"
  [ "$(output passed "$out")" = true ] || die "output passed is '$(output passed "$out")', expected true"
  local name rel
  for name in json junit sarif markdown gitlab events har; do
    rel=$(output "$name" "$out")
    case $rel in
      scout-report/*) ;;
      *) die "output $name is '$rel', expected a path under scout-report/ relative to the workspace" ;;
    esac
    [ -e "$action_ws/$rel" ] || die "output $name names $rel, which is not in the workspace"
  done
  # The action runs as root in its container; the steps after it (upload-artifact, the
  # PR comment) run as the runner's user, so every report must be readable by others.
  local private
  private=$(find "$action_ws/scout-report" -type f ! -perm -004 | head -3)
  [ -z "$private" ] || die "reports another user cannot read (mode $(stat -c %a "${private%%$'\n'*}")): $private"
  # And such a user reads every one of them (uid 1001, the runner's), folders included.
  podman run --rm --network=none --user 1001:1001 --entrypoint /bin/sh \
    -v "$action_ws/scout-report:/reports:ro" localhost/scout:full \
    -c 'n=0; for f in $(find /reports -type f); do cat "$f" >/dev/null || exit 1; n=$((n+1)); done; [ "$n" -ge 5 ]' ||
    die "a non-root user (uid 1001) could not read every report in scout-report/"
  grep -q "$score" "$files/step_summary_http" || die "the step summary does not show the score $score"
  grep -q '^::notice title=scout::gate passed' "$scratch/stdout_http" ||
    die "the action printed no '::notice' summary annotation"

  # 2. A stdio server given as `command` (one argument per line), reports into another folder,
  #    and a threshold of 100: the gate must agree with the score in the report.
  run_action stdio_setup 0 "COMMAND=demo-server
stdio" OUT-DIR=reports/stdio FORMATS=json,sarif FAIL-UNDER=0
  local stdio_score expected=0 passed=true
  stdio_score=$(output score "$files/set_output_stdio_setup")
  [ -n "$stdio_score" ] || die "the stdio action run gave no score output"
  [ "$(output json "$files/set_output_stdio_setup")" = reports/stdio/scout.json ] ||
    die "output json of the stdio run is not reports/stdio/scout.json"
  [ -z "$(output junit "$files/set_output_stdio_setup")" ] || die "formats=json,sarif still wrote a JUnit report"
  if [ "$stdio_score" -lt 100 ]; then
    expected=1
    passed=false
  fi
  run_action stdio "$expected" "COMMAND=demo-server
stdio" OUT-DIR=reports/stdio FORMATS=json FAIL-UNDER=100
  [ "$(output passed "$files/set_output_stdio")" = "$passed" ] ||
    die "with fail-under 100 and score $stdio_score, output passed is '$(output passed "$files/set_output_stdio")', expected $passed"

  # 3. A bad input: exit 2 and one line naming it, read from the hyphenated variable.
  run_action invalid 2 "URL=http://127.0.0.1:$port/mcp" FAIL-UNDER=eighty
  if [ "$(wc -l <"$scratch/stderr_invalid")" -ne 1 ] || ! grep -q 'input fail-under' "$scratch/stderr_invalid"; then
    die "a bad fail-under did not give one error line naming it: $(head -c 300 "$scratch/stderr_invalid")"
  fi

  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}
timed "simulated action runs" action_runs

# ---------------------------------------------------------------- the release images
release_images() {
  local ctx=$scratch/release arch
  arch=$(podman info --format '{{.Host.Arch}}')
  mkdir -p "$ctx/dist/linux-$arch" "$ctx/docker"
  cp docker/entrypoint.sh "$ctx/docker/"
  local cid
  cid=$(podman create localhost/scout:slim)
  podman cp "$cid:/usr/local/bin/scout" "$ctx/dist/linux-$arch/scout" >/dev/null
  podman rm "$cid" >/dev/null
  chmod 0644 "$ctx/dist/linux-$arch/scout" # --chmod in the Dockerfile must make it executable
  build_image slim localhost/scout:release-slim Dockerfile.release "$ctx"
  build_image full localhost/scout:release-full Dockerfile.release "$ctx"
  check_version localhost/scout:release-slim
  check_version localhost/scout:release-full
}
timed "release images" release_images

say "all container checks passed ($SECONDS s)"
