# CallGate's container image: `docker build -t callgate .` at the repository's root.
# How to run it, its volume and its variables: docs/operations.md, "Running in a container";
# a three-node cluster with Redis, PostgreSQL and nginx: deploy/compose/.
# tools/test_container_image.py builds what the runtime stage holds as a Debian root filesystem
# (debootstrap) from this file's own lines, and runs the gateway in it.

# Build: Swift's toolchain on Debian 12, the -dev packages of Package.swift's system libraries and
# libcurl's (the static Foundation links it: CallGateKit's call log client uses URLSession), and a
# release build with the Swift runtime linked in, so the runtime stage needs no toolchain.
FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libwebsockets-dev libwebsockets-evlib-ev libev-dev libssl-dev libsqlite3-dev libhiredis-dev pkg-config \
      libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product callgate

# Run: Debian 12 with the shared libraries the binary links (ldd) and the libev glue libwebsockets
# loads at run time (libwebsockets-evlib-ev), CA certificates for https webhooks and PostgreSQL
# with sslmode=verify-full, and a user of its own. No shell tools are added: the healthcheck is
# `callgate healthcheck`.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libwebsockets17 libwebsockets-evlib-ev libev4 libssl3 libsqlite3-0 libhiredis0.14 libcurl4 \
      libstdc++6 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 callgate \
 && useradd --system --uid 10001 --gid callgate --home-dir /var/lib/callgate --no-create-home \
      --shell /usr/sbin/nologin callgate \
 && install -d -o callgate -g callgate -m 750 /var/lib/callgate
COPY --from=build /src/.build/release/callgate /usr/local/bin/callgate

# The SQLite call log (and the dead-letter file) live in the volume; a cluster node keeps its
# calls in PostgreSQL (CALLGATE_DATABASE=postgres://...) and only dead letters here.
VOLUME /var/lib/callgate
WORKDIR /var/lib/callgate
# Numeric, so that a runtime refusing root (Kubernetes' runAsNonRoot) can tell it is not root.
USER 10001:10001
ENV CALLGATE_HOST=0.0.0.0 \
    CALLGATE_PORT=8080 \
    CALLGATE_DATABASE=/var/lib/callgate/callgate.sqlite \
    CALLGATE_WEB_APP=off
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["callgate", "healthcheck"]
# SIGTERM closes every socket with 1001 and writes what the call log still has queued: give the
# container time to stop (docker stop --time 30, compose's stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["callgate", "serve"]
