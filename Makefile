# CallGate: build, run and test entry points.
#
#   make run     install what is missing, build release, start the gateway (ARGS="..." passes flags)
#   make cluster install what is missing, build release, start Redis, PostgreSQL and three cluster
#                nodes on loopback (tools/cluster; ARGS="--nodes 5" passes its flags); Ctrl-C stops all
#   make test    install what is missing, check proto/, build, run the tools' tests (browser and
#                attack tests included) and `swift test`
#   make chaos   build, then run a three-node cluster under injected faults for DURATION seconds
#                (default 600) and check it kept its promises (tools/chaos; ARGS="--seed 7" passes
#                its flags); a 75 s run is part of `make test`
#   make fuzz    build the libFuzzer targets (tools/fuzz) and fuzz each for FUZZ_TIME seconds
#   make fuzz-regress  run the fuzz targets once over their seeds and saved crashes
#
# `deps` is idempotent: it only calls apt-get/pip when something is missing, and is silent
# otherwise. It works as root, or through sudo when not root.

SHELL := /bin/bash
.DEFAULT_GOAL := build

PYTHON ?= python3
SWIFT ?= swift
ARGS ?=

APT_PACKAGES := libwebsockets-dev libwebsockets-evlib-ev libev-dev libssl-dev libsqlite3-dev pkg-config python3 python3-pip
# The edge tests: openssl (tools/make-cert.sh, s_client), curl (https checks), nginx (reverse proxy).
APT_PACKAGES += openssl curl nginx
# The web demo's browser tests (tools/web): headless Chromium driven by Selenium.
APT_PACKAGES += chromium chromium-driver
# The JavaScript client package (Sources/callgate-js): TypeScript checks its types, Node runs it against
# a real gateway with the ws package as its WebSocket (tools/test_js_client.py).
APT_PACKAGES += nodejs node-typescript node-ws
# CallGateKit's tests cut its connections the way a lost network does, through a socat relay
# (Tests/CallGateIntegrationTests/TCPRelay.swift).
APT_PACKAGES += socat
# The operations pack (deploy/prometheus, deploy/grafana): promtool checks the alert rules and a
# throwaway Prometheus scrapes a live gateway (tools/test_observability.py).
APT_PACKAGES += prometheus
# The PostgreSQL store's tests start throwaway servers of their own (Tests/TestSupport/
# ThrowawayPostgres.swift); the package is installed without the system's `main` cluster.
APT_PACKAGES += postgresql-15
# Cluster mode: hiredis, the official C client of Redis (Sources/CHiredis), and redis-server for the
# throwaway servers the cluster tests start (Tests/TestSupport/ThrowawayRedis.swift).
APT_PACKAGES += libhiredis-dev redis-server
# The container image's test (tools/test_container_image.py) builds the Dockerfile's runtime stage as a
# Debian root filesystem with debootstrap and runs the gateway in it.
APT_PACKAGES += debootstrap
# The release build with --static-swift-stdlib (make run's production counterpart, the container image) links
# Foundation's networking statically, which needs libcurl's development files.
APT_PACKAGES += libcurl4-openssl-dev
# pyyaml: tools/test_compose.py reads deploy/compose/compose.yaml.
PY_MODULES := jsonschema referencing pytest selenium standardwebhooks pyyaml
PY_IMPORTS := import jsonschema, referencing, pytest, selenium, standardwebhooks, yaml

FUZZ_TIME ?= 60
DURATION ?= 600

.PHONY: deps build run cluster chaos test proto-check fuzz fuzz-regress clean

deps:
	@set -euo pipefail; \
	if [ "$$(id -u)" -eq 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	else sudo="none"; fi; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  missing=""; \
	  for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$sudo" = none ]; then \
	      echo "deps: missing packages:$$missing; run as root or install sudo" >&2; exit 1; \
	    fi; \
	    echo "deps: installing$$missing"; \
	    $$sudo apt-get update -qq; \
	    if [[ " $$missing " == *" postgresql-15 "* ]]; then \
	      $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-common; \
	      $$sudo sed -ri 's/^#? *create_main_cluster *=.*$$/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf; \
	    fi; \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  fi; \
	else \
	  echo "deps: no dpkg-query (not Debian?); install $(APT_PACKAGES) yourself" >&2; \
	fi; \
	if ! $(PYTHON) -c '$(PY_IMPORTS)' >/dev/null 2>&1; then \
	  echo "deps: installing Python modules $(PY_MODULES)"; \
	  if ! err=$$($(PYTHON) -m pip install --quiet $(PY_MODULES) 2>&1); then \
	    if grep -q externally-managed-environment <<<"$$err"; then \
	      $(PYTHON) -m pip install --quiet --break-system-packages $(PY_MODULES); \
	    else \
	      echo "$$err" >&2; exit 1; \
	    fi; \
	  fi; \
	  $(PYTHON) -c '$(PY_IMPORTS)'; \
	fi

build: deps
	$(SWIFT) build

run: deps
	$(SWIFT) build -c release --product callgate
	exec .build/release/callgate serve $(ARGS)

cluster: deps
	$(SWIFT) build -c release --product callgate
	exec $(PYTHON) tools/cluster --no-build $(ARGS)

chaos: deps
	$(SWIFT) build --product callgate
	CALLGATE_BIN=$(CURDIR)/.build/debug/callgate $(PYTHON) tools/chaos --duration $(DURATION) $(ARGS)

proto-check: deps
	$(PYTHON) tools/proto_check.py

test: deps
	$(PYTHON) tools/proto_check.py
	$(SWIFT) build --build-tests
	CALLGATE_REQUIRE_BROWSER=1 CALLGATE_BIN=$(CURDIR)/.build/debug/callgate $(PYTHON) -m pytest -q tools
	$(SWIFT) test --no-parallel

fuzz: deps
	tools/fuzz/build.sh
	FUZZ_TIME=$(FUZZ_TIME) tools/fuzz/run.sh

fuzz-regress: deps
	tools/fuzz/build.sh
	tools/fuzz/run.sh --regress

clean:
	rm -rf .build .build-fuzz .pytest_cache
	find tools -name __pycache__ -type d -prune -exec rm -rf {} +
