# Multi-stage build of catan-server: a Rust builder, then a small Debian runtime.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p catan-server --bin catan-server \
 && strip target/release/catan-server

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --create-home catan
COPY --from=build /src/target/release/catan-server /usr/local/bin/catan-server
USER catan
WORKDIR /data
# Listen on every interface inside the container; docker compose decides what the
# host exposes (the admin port only on the host's loopback).
ENV CATAN_BIND=0.0.0.0:8080 \
    CATAN_ADMIN_BIND=0.0.0.0:8081 \
    DATABASE_URL=sqlite:///data/catan.db
EXPOSE 8080 8081
VOLUME ["/data"]
# The server checks itself (`GET /healthz` on CATAN_BIND, via loopback): no curl in
# the image needed.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/catan-server", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/catan-server"]
