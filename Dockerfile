# Multi-stage build of catan-server: the dependencies in a layer of their own, then
# the workspace's crates, then a small Debian runtime that runs as a non-root user.
#
#   docker build -t catan-server .     (docker compose build does the same)
#
# A change to the sources reuses the dependency layer: only the workspace's own
# crates are compiled again. A change to a Cargo.toml or Cargo.lock (or a crate's
# target files added or removed) builds the dependencies again.

# 1. The skeleton: every manifest, the lock file, cargo's settings (.cargo), and an
#    empty `fn main() {}` for each target root the manifests name or cargo would
#    discover (lib.rs, main.rs, src/bin/*.rs, benches/*.rs, explicit
#    `path = "..."`). It depends on the file list and the manifests only, so its
#    content (and the layers built on it) stays the same while sources change.
FROM rust:1.95-slim-bookworm AS skeleton
WORKDIR /src
COPY . .
RUN set -eu; mkdir /skeleton; \
    for manifest in $(find . -name Cargo.toml -not -path './target/*' | sort); do \
        dir=$(dirname "$manifest"); \
        mkdir -p "/skeleton/$dir"; cp "$manifest" "/skeleton/$manifest"; \
        { \
            sed -n 's/^[[:space:]]*path[[:space:]]*=[[:space:]]*"\([^"]*\.rs\)".*/\1/p' "$manifest"; \
            cd "$dir"; ls src/lib.rs src/main.rs src/bin/*.rs benches/*.rs build.rs 2>/dev/null || true; cd /src; \
        } | while read -r target; do \
            stub="/skeleton/$dir/$target"; mkdir -p "$(dirname "$stub")"; \
            printf '//! A stub for the dependency layer.\n#![allow(warnings)]\nfn main() {}\n' > "$stub"; \
        done; \
    done; \
    cp Cargo.lock /skeleton/; cp -r .cargo /skeleton/

# 2. The build: dependencies from the skeleton (cached while the skeleton is the
#    same), then the real sources. The stubs' outputs are forced out of date
#    (`touch`: a source's modification time may be older than the stub build).
FROM rust:1.95-slim-bookworm AS build
# OpenSSL, the passkeys' cryptography, is built from source and linked statically
# (the `openssl` crate's `vendored` feature): that takes perl and make, and the
# runtime image needs no OpenSSL of its own. The allocator, jemalloc, is built from
# source too (make).
RUN apt-get update \
 && apt-get install -y --no-install-recommends perl make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY --from=skeleton /skeleton/ ./
RUN cargo build --release --locked -p catan-server --bin catan-server
COPY . .
RUN find crates tests fuzz -name '*.rs' -exec touch {} + \
 && cargo build --release --locked -p catan-server --bin catan-server \
 && strip target/release/catan-server \
 && ./target/release/catan-server --version | grep '^catan-server '

# 3. The runtime: the binary, CA certificates (PostgreSQL over TLS with
#    verify-full), a system user without a home directory (no dot files in /data).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --system --uid 10001 --user-group --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin catan \
 && mkdir /data \
 && chown catan:catan /data
COPY --from=build /src/target/release/catan-server /usr/local/bin/catan-server
USER catan
WORKDIR /data
# Listen on every interface inside the container; docker compose decides what the
# host exposes (the public port only through the proxy, the admin port only on the
# host's loopback). The SQLite default keeps its file in /data: with plain
# `docker run`, mount a volume there (`-v catan-data:/data`). No VOLUME instruction:
# it would leave an anonymous volume behind at each `docker compose down` and `up`
# (compose names its own volumes).
ENV CATAN_BIND=0.0.0.0:8080 \
    CATAN_ADMIN_BIND=0.0.0.0:8081 \
    DATABASE_URL=sqlite:///data/catan.db
EXPOSE 8080 8081
# The server checks itself (`GET /healthz` on CATAN_BIND, via loopback): no curl in
# the image needed.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/catan-server", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/catan-server"]
