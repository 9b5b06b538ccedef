# scout's container images, built from this repository's source.
#
#   docker build -t scout .                     # full (the default, and what action.yml runs)
#   docker build --target slim -t scout:slim .  # scout and CA certificates only: HTTP servers
#
# full adds what starting a stdio server from npm or PyPI needs: Node.js with npm/npx, Python
# with uv/uvx, git, and tini as PID 1 (it forwards signals and reaps the servers' children).
#
# The entry point runs scout when the first argument is a scout subcommand or starts with `-`
# (`docker run scout check URL`, `docker run scout --version`) and runs anything else as given,
# so GitLab's `script:` and Jenkins' `docker.image(...).inside` work unchanged. There is no
# USER and no WORKDIR in the images: a GitHub container action runs as root in
# /github/workspace, which the runner sets itself.
#
# Dockerfile.release builds the same two images from prebuilt binaries (multi-arch releases).

FROM rust:1-bookworm AS builder
WORKDIR /build
# The release profile without its fat LTO and single codegen unit: those make the binary a
# little smaller, not faster at what scout does (wait on servers), and they more than double
# a build that every run of this action from a branch pays for.
ENV CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
# Dependencies first, in their own layer: it is rebuilt only when Cargo.toml, Cargo.lock or
# build.rs change, not on every source change. The empty crate stands in for src/ while they compile.
# build.rs builds the official MCP schemas from a build dependency: it belongs with them.
COPY Cargo.toml Cargo.lock build.rs ./
RUN mkdir src \
 && echo 'fn main() {}' > src/main.rs \
 && touch src/lib.rs \
 && cargo build --release --locked --bin scout \
 && rm -rf src
COPY src ./src
# The published schemas the crate compiles in (the registry's server.json schema, the MCPB manifest schemas).
COPY schemas ./schemas
# COPY keeps the files' own times, which can be older than the placeholder build: touch them
# so cargo rebuilds the crate instead of keeping the placeholder binary.
RUN touch src/main.rs src/lib.rs \
 && cargo build --release --locked --bin scout \
 && install -m 0755 target/release/scout /usr/local/bin/scout \
 && /usr/local/bin/scout --version

FROM node:22-bookworm-slim AS node
FROM ghcr.io/astral-sh/uv:0.13.9 AS uv

FROM debian:bookworm-slim AS slim
# Which image scout runs in: a server.json's docker packages are refused in either (no Docker
# inside), its npm and PyPI packages in slim (no npx, no uvx), each in one line saying so.
ENV SCOUT_CONTAINER_IMAGE=slim
# Versions come from bookworm and its security updates; pinning them would break the build
# whenever Debian publishes a fix.
# hadolint ignore=DL3008
RUN apt-get update -o Acquire::Retries=3 \
 && apt-get install -y -o Acquire::Retries=3 --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY docker/entrypoint.sh /usr/local/bin/scout-entrypoint
COPY --from=builder /usr/local/bin/scout /usr/local/bin/scout
ENTRYPOINT ["/usr/local/bin/scout-entrypoint"]
CMD ["--help"]

FROM debian:bookworm-slim AS full
# Which image scout runs in: a server.json's docker packages are refused in either (no Docker
# inside), its npm and PyPI packages in slim (no npx, no uvx), each in one line saying so.
ENV SCOUT_CONTAINER_IMAGE=full
# hadolint ignore=DL3008
RUN apt-get update -o Acquire::Retries=3 \
 && apt-get install -y -o Acquire::Retries=3 --no-install-recommends \
      ca-certificates git python3 python3-venv tini \
 && rm -rf /var/lib/apt/lists/*
# Node.js and npm from the official image, laid out as there (npm and npx are links into npm).
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
COPY --from=uv /uv /uvx /usr/local/bin/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version && uv --version && python3 --version
COPY docker/entrypoint.sh /usr/local/bin/scout-entrypoint
COPY --from=builder /usr/local/bin/scout /usr/local/bin/scout
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/scout-entrypoint"]
CMD ["--help"]
