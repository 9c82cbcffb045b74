#!/usr/bin/env bash
# deploy/compose-test.sh: the compose files run for real, end to end. Each mode works
# on a copy of the checkout's files (tracked and new, not ignored ones: your `.env`
# is never read or written), under its own compose project, ports and network, and
# removes its containers and volumes when it ends. Prints PASS/FAIL lines, then the
# figures; exits with the number of failures.
#
#   deploy/compose-test.sh [run]        the default docker-compose.yml: build (and
#                                       again after a source change), up, HTTPS through
#                                       Caddy with a test CA, a whole game over WSS, a
#                                       game left half-played and a room still
#                                       gathering players, down and up, both back,
#                                       the half-played game finished, down -v
#   deploy/compose-test.sh upgrade REF  the image of git REF (e.g. v0.1.0) started
#                                       with a game in progress, then the procedure of
#                                       docs/self-hosting.md to this checkout's image
#                                       (back up, rebuild, up, /readyz): the game goes on
#   deploy/compose-test.sh cluster      deploy/cluster/docker-compose.yml: an instance
#                                       killed while requests go on through the proxy
#   deploy/compose-test.sh sizing       the default stack under its limits with
#                                       catan-loadgen (LOADGEN, built with cargo build
#                                       --release -p catan-client) against the server:
#                                       memory per table, CPU at a fast pace
#
# Needs: docker with compose v2.24+ (or podman's Docker-compatible API with
# DOCKER_HOST set and DOCKER_BUILDKIT=0), git, curl, openssl, python3 with the
# `websockets` package (examples/python/.venv, or set PYTHON).
# Knobs (environment): DOMAIN (catan.test), HTTP_PORT (28080), HTTPS_PORT (28443),
# ADMIN_PORT (28081), SOURCE=REF (test that commit instead of the working tree),
# NO_CACHE=1 (a cold build), SKIP_REBUILD=1 (no second build after a source change),
# KEEP=1 (leave the stack up at the end).
# The test domain needs no DNS: curl gets --resolve, the Python client the same.
set -Euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-run}
DOMAIN=${DOMAIN:-catan.test}
HTTP_PORT=${HTTP_PORT:-28080}
HTTPS_PORT=${HTTPS_PORT:-28443}
ADMIN_PORT=${ADMIN_PORT:-28081}
PROJECT=catan-compose-test
[ "$MODE" = cluster ] && PROJECT=catan-compose-test-cluster
export COMPOSE_PROJECT_NAME=$PROJECT
IMAGE=catan-server:compose-test
PREV_IMAGE=catan-server:compose-test-prev
PYTHON=${PYTHON:-$ROOT/examples/python/.venv/bin/python}

fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
info() { echo "INFO: $*"; }
check() { # check DESCRIPTION COMMAND...: PASS when the command succeeds
	local what=$1; shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
FIGURES=()
figure() { FIGURES+=("$1=$2"); }

for tool in docker git curl openssl python3; do
	command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }
done
docker compose version >/dev/null 2>&1 || { echo "needs docker compose v2" >&2; exit 2; }
if [ "$MODE" != cluster ] && [ "$MODE" != sizing ] && ! "$PYTHON" -c 'import websockets' 2>/dev/null; then
	echo "needs python3 with websockets: python3 -m venv examples/python/.venv &&" \
		"examples/python/.venv/bin/pip install -r examples/python/requirements.txt (or set PYTHON)" >&2
	exit 2
fi

for port in "$HTTP_PORT" "$HTTPS_PORT" "$ADMIN_PORT"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "port $port is in use on this host: choose others (HTTP_PORT, HTTPS_PORT, ADMIN_PORT)" >&2
		exit 2
	fi
done

# The work copy: the checkout's files that git tracks or would track, as they are
# in the working tree; or, with SOURCE=REF, the tree of that commit.
W=$(mktemp -d "${TMPDIR:-/tmp}/catan-compose-test.XXXXXX")
L=$W.logs
mkdir -p "$L"
if [ -n "${SOURCE:-}" ]; then
	git -C "$ROOT" archive "$SOURCE" | tar -x -C "$W"
else
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
		| xargs -0 -I{} sh -c 'test -e "{}" && cp --parents -P "{}" "$0"' "$W")
fi
echo "work copy $W, logs $L, compose project $PROJECT, mode $MODE"

volumes_before=$(docker volume ls -q | sort)
compose() { docker compose "$@"; }
cleanup() {
	local rc=$?
	if [ "${KEEP:-0}" = 1 ]; then
		echo "KEEP=1: the stack stays up (cd $COMPOSE_DIR && docker compose down -t 30 -v)"
		return
	fi
	(cd "$COMPOSE_DIR" && docker compose --profile monitoring down -t 30 -v --remove-orphans >/dev/null 2>&1) || true
	# Anonymous volumes this run left (an image with a VOLUME instruction, e.g. an
	# older release's): the new dangling ones whose names are hashes.
	local v
	for v in $(docker volume ls -q --filter dangling=true); do
		if [[ "$v" =~ ^[0-9a-f]{64}$ ]] && ! grep -qx "$v" <<<"$volumes_before"; then
			docker volume rm "$v" >/dev/null 2>&1 || true
		fi
	done
	rm -rf "$W" "$W.old"
	return "$rc"
}
COMPOSE_DIR=$W
trap cleanup EXIT

# Volumes made since the start that are neither this project's named ones nor gone.
stray_volumes() {
	comm -13 <(echo "$volumes_before") <(docker volume ls -q | sort) | grep -v "^${PROJECT}_" || true
}

# The test CA of Caddy's `tls internal`, and curl through the proxy with it.
B=https://$DOMAIN:$HTTPS_PORT
C() {
	curl -sS --max-time 20 --cacert "$L/ca.pem" \
		--resolve "$DOMAIN:$HTTPS_PORT:127.0.0.1" --resolve "$DOMAIN:$HTTP_PORT:127.0.0.1" "$@"
}
fetch_ca() {
	local i
	for i in $(seq 60); do
		if compose exec -T proxy cat /data/caddy/pki/authorities/local/root.crt > "$L/ca.pem" 2>/dev/null \
			&& [ -s "$L/ca.pem" ] && C -o /dev/null "$B/healthz" 2>/dev/null; then
			return 0
		fi
		sleep 1
	done
	return 1
}
py() { "$PYTHON" "$ROOT/deploy/compose-test-play.py" --url "$B" --resolve 127.0.0.1 --cacert "$L/ca.pem" "$@"; }

write_env() { # the .env of the default stack; $1: the image
	local token
	token=$(openssl rand -hex 32)
	cat > "$W/.env" <<-ENV
		CATAN_DOMAIN=$DOMAIN
		CATAN_TLS=internal
		CATAN_HTTP_PORT=$HTTP_PORT
		CATAN_HTTPS_PORT=$HTTPS_PORT
		CATAN_ADMIN_PORT=$ADMIN_PORT
		CATAN_SUBNET=10.203.49.0/24
		CATAN_SUBNET_DYNAMIC=10.203.49.128/25
		CATAN_PROXY_ADDRESS=10.203.49.2
		CATAN_IMAGE=$1
		CATAN_ADMIN_TOKEN=$token
		# A password with every character that means something in a URL.
		POSTGRES_PASSWORD='p4ss/w+rd=@:x%'
		# Settings the compose file does not name: they reach the server through env_file.
		CATAN_TURN_TIMER_SECS=77
		CATAN_BOT_THINK_MS=20
		RUST_LOG=info
	ENV
	ADMIN_TOKEN=$token
}

build_image() { # build_image LOG: docker compose build of the server, timed; sets BUILD_S
	local t
	t=$(now)
	if nice docker compose build ${NO_CACHE:+--no-cache} server > "$1" 2>&1; then
		BUILD_S=$(since "$t")
		return 0
	fi
	BUILD_S=$(since "$t")
	tail -20 "$1"
	return 1
}

# Whether the build log shows the dependency layer taken from the cache.
deps_cached() {
	awk '/RUN cargo build --release --locked -p catan-server --bin catan-server *$/ { want = 1; next }
	     want && /Using cache/ { found = 1 } want { want = 0 } END { exit !found }' "$1"
}

up_wait() { # up_wait LOG: up -d --wait, timed; sets UP_S
	local t
	t=$(now)
	if docker compose up -d --wait --wait-timeout 300 > "$1" 2>&1; then
		UP_S=$(since "$t")
		return 0
	fi
	UP_S=$(since "$t")
	tail -20 "$1"
	docker compose ps -a
	return 1
}

# The server container's published ports: 8080 not at all, 8081 on 127.0.0.1 only.
ports_as_configured() {
	local bindings
	bindings=$(docker inspect -f '{{json .HostConfig.PortBindings}}' "$(compose ps -q server)")
	echo "$bindings" > "$L/server-ports.json"
	python3 - "$bindings" <<-'PY'
		import json, sys
		b = json.loads(sys.argv[1]) or {}
		assert not b.get("8080/tcp"), b
		admin = b.get("8081/tcp") or []
		assert admin and all(x["HostIp"] == "127.0.0.1" for x in admin), b
	PY
}

https_checks() {
	check "GET $B/healthz = ok (TLS verified against the test CA)" test "$(C "$B/healthz")" = ok
	check "GET /readyz = 200" test "$(C -o /dev/null -w '%{http_code}' "$B/readyz")" = 200
	C -v -o /dev/null "$B/" 2> "$L/tls.txt" || true
	check "certificate for $DOMAIN from Caddy's CA" grep -q "issuer: CN *= *Caddy Local Authority" "$L/tls.txt"
	C "$B/" > "$L/index.html" || true
	check "the page: GET / serves the client" grep -qi '<html' "$L/index.html"
	local redirect
	redirect=$(C -o /dev/null -w '%{http_code} %{redirect_url}' "http://$DOMAIN:$HTTP_PORT/")
	check "plain HTTP redirects to HTTPS ($redirect)" grep -Eq "^30[178] https://$DOMAIN" <<<"$redirect"
}

origin_checks() {
	local r code
	r=$(C -X POST "$B/api/rooms" -H "Origin: https://$DOMAIN" -H 'content-type: application/json' -d '{"players":4}')
	check "a page of https://$DOMAIN may create a room (the origin follows CATAN_DOMAIN)" \
		test "$(echo "$r" | json 'd["room"]["status"]' 2>/dev/null)" = lobby
	check "CATAN_TURN_TIMER_SECS=77 from .env reached the server (env_file)" \
		test "$(echo "$r" | json 'd["room"]["options"]["turn_timer_secs"]' 2>/dev/null)" = 77
	code=$(C -o "$L/foreign.json" -w '%{http_code}' -X POST "$B/api/rooms" -H 'Origin: https://foreign.example' -d '{}')
	check "a foreign page is refused (403 origin_not_allowed)" \
		sh -c "[ $code = 403 ] && grep -q origin_not_allowed '$L/foreign.json'"
	sleep 1
	check "the refusal is logged with the origin seen" sh -c "docker compose logs server 2>&1 | grep -q 'foreign.example'"
}

# A client that sends its own X-Forwarded-For does not get a fresh rate-limit bucket
# per value: Caddy replaces the header, the server believes Caddy only.
spoof_check() {
	local i code refused=0
	for i in $(seq 1 14); do
		code=$(C -o /dev/null -w '%{http_code}' -X POST "$B/api/rooms" -H "X-Forwarded-For: 198.51.100.$i" -d '{"listed":false}')
		[ "$code" = 429 ] && refused=$((refused + 1))
	done
	check "14 room creations with 14 forged X-Forwarded-For: the per-address limit still refuses ($refused refused)" \
		test "$refused" -ge 1
}

# Client B, at another address of this host (the one of its default route), has
# its own limit while client A's (127.0.0.1, spent by spoof_check) is empty: the
# server counts the address Caddy names, not the proxy's own.
second_client_check() {
	local ip code
	ip=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("203.0.113.1", 9)); print(s.getsockname()[0])' 2>/dev/null || true)
	if [ -z "$ip" ] || [[ "$ip" == 127.* ]]; then
		info "no second address on this host: the check of a second client is skipped"
		return
	fi
	code=$(curl -sS --max-time 20 --cacert "$L/ca.pem" --resolve "$DOMAIN:$HTTPS_PORT:$ip" \
		-o /dev/null -w '%{http_code}' -X POST "$B/api/rooms" -d '{"listed":false}')
	check "a second client (at $ip) creates a room while the first one's limit is spent ($code)" test "$code" = 201
}

# Straight to the server's port from another container of the network (not the
# proxy): forged X-Forwarded-For headers are ignored, the limit counts the peer.
direct_spoof_check() {
	local script out ok refused
	# shellcheck disable=SC2016
	script='ok=0; refused=0
	for i in $(seq 1 14); do
		exec 3<>/dev/tcp/server/8080 || exit 3
		printf "POST /api/rooms HTTP/1.1\r\nHost: server\r\nX-Forwarded-For: 203.0.113.%s\r\nContent-Type: application/json\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{\"listed\":false}" "$i" >&3
		read -r status <&3; exec 3>&-
		case "$status" in *" 201 "*) ok=$((ok + 1)) ;; *" 429 "*) refused=$((refused + 1)) ;; esac
	done
	echo "$ok $refused"'
	if ! out=$(compose exec -T db bash -c "$script" 2>/dev/null); then
		info "no bash in the db image: the check straight to the server is skipped"
		return
	fi
	read -r ok refused <<<"$out"
	check "straight to the server from another container with 14 forged X-Forwarded-For: $ok created, $refused refused (the header is ignored)" \
		test "$refused" -ge 1 -a "$ok" -ge 1
}

# Memory, CPU and log settings as the engine applied them, and the memory limit as
# the server's cgroup enforces it.
limits_applied() {
	local svc id
	for svc in db server proxy; do
		id=$(compose ps -q "$svc")
		docker inspect -f "$svc: memory {{.HostConfig.Memory}} nanocpus {{.HostConfig.NanoCpus}} cpu quota/period {{.HostConfig.CpuQuota}}/{{.HostConfig.CpuPeriod}} log {{.HostConfig.LogConfig.Type}} {{.HostConfig.LogConfig.Config}}" "$id"
	done > "$L/limits.txt"
	sed 's/^/INFO: /' "$L/limits.txt"
	local cg sizes=""
	cg=$(compose exec -T server sh -c 'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes' | tr -d '\r')
	check "the server's cgroup enforces its memory limit ($cg bytes)" test "$cg" = 536870912
	# The log size limit as the engine keeps it: Docker's max-size option, or
	# podman's own field (podman truncates at that size and keeps no max-file).
	for svc in db server proxy; do
		id=$(compose ps -q "$svc")
		sizes+="$(podman inspect -f '{{.HostConfig.LogConfig.Size}}' "$id" 2>/dev/null \
			|| docker inspect -f '{{index .HostConfig.LogConfig.Config "max-size"}}' "$id") "
	done
	check "every container's log is limited in size ($sizes)" \
		test "$(grep -Eo '10(MB|m)' <<<"$sizes" | wc -l)" = 3
}

admin_check() {
	check "admin API on 127.0.0.1:$ADMIN_PORT with the token" \
		test "$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $ADMIN_TOKEN" "http://127.0.0.1:$ADMIN_PORT/admin/stats")" = 200
}

server_shut_down_cleanly() { compose logs server 2>&1 | grep -q "shut down cleanly"; }

mode_run() {
	cd "$W"
	write_env "$IMAGE"
	if build_image "$L/build.log"; then
		pass "docker compose build (${BUILD_S} s$(deps_cached "$L/build.log" && echo ', dependency layer from the cache'))"
		figure build_s "$BUILD_S"
		deps_cached "$L/build.log" || figure build_cold_s "$BUILD_S"
	else
		fail "docker compose build"; return
	fi
	if [ "${SKIP_REBUILD:-0}" != 1 ]; then
		# A source change: the dependency layer must come from the cache.
		printf '\n// compose-test: a source change at %s\n' "$(date +%s)" >> crates/server/src/main.rs
		if build_image "$L/rebuild.log"; then
			figure rebuild_after_source_change_s "$BUILD_S"
			check "rebuild after a source change (${BUILD_S} s) reuses the dependency layer" deps_cached "$L/rebuild.log"
		else
			fail "rebuild after a source change"
		fi
	fi
	local size
	size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
	figure image_mb "$(python3 -c "print(f'{$size / 1e6:.1f}')")"
	check "the image runs as a non-root user ($(docker image inspect -f '{{.Config.User}}' "$IMAGE"))" \
		sh -c "u=\$(docker image inspect -f '{{.Config.User}}' $IMAGE); [ -n \"\$u\" ] && [ \"\$u\" != root ] && [ \"\$u\" != 0 ]"

	if up_wait "$L/up1.log"; then pass "up -d --wait: db, server and proxy healthy (${UP_S} s)"; figure up_to_healthy_s "$UP_S"
	else fail "up -d --wait"; return; fi
	check "fetch Caddy's test CA and reach https://$DOMAIN:$HTTPS_PORT" fetch_ca || return
	check "the server's 8080 is not published, its admin port on 127.0.0.1 only" ports_as_configured
	limits_applied
	check "the server's /data holds no dot files (a user without a home)" \
		test -z "$(compose exec -T server ls -A /data)"
	https_checks
	admin_check
	origin_checks

	local t out game
	t=$(now)
	if out=$(py play 2> "$L/play.err"); then
		echo "$out" > "$L/play.json"
		game=$(echo "$out" | json 'd["room"]')
		pass "a whole game over HTTPS and WSS through the proxy ($(since "$t") s): $out"
	else
		fail "a whole game through the proxy: $(tail -3 "$L/play.err")"
	fi
	if py start "$L/state.json" > "$L/start.json" 2> "$L/start.err"; then
		pass "a game left half-played ($(json 'd["acks"]' < "$L/start.json") actions of ours) and a room still gathering players"
	else
		fail "start a game: $(tail -3 "$L/start.err")"
	fi
	spoof_check
	second_client_check
	direct_spoof_check

	# Restart the whole stack; volumes kept.
	local t_down
	t_down=$(now)
	compose stop -t 30 > "$L/stop.log" 2>&1
	compose logs server > "$L/server-1.log" 2>&1
	check "the server shut down cleanly on stop ($(since "$t_down") s)" grep -q "shut down cleanly" "$L/server-1.log"
	compose logs db > "$L/db-1.log" 2>&1
	check "PostgreSQL shut down cleanly" grep -q "database system is shut down" "$L/db-1.log"
	compose down -t 30 > "$L/down.log" 2>&1
	check "down left no anonymous volume" test -z "$(stray_volumes)"
	if up_wait "$L/up2.log"; then pass "up again, healthy (${UP_S} s)"; figure restart_up_to_healthy_s "$UP_S"
	else fail "second up"; return; fi
	fetch_ca || fail "HTTPS after the restart"
	if [ -n "${game:-}" ]; then
		check "the finished game is still there after down/up" \
			test "$(C "$B/api/games/$game" | json 'd["status"]' 2>/dev/null)" = finished
		check "its replay too" test "$(C -o /dev/null -w '%{http_code}' "$B/api/games/$game/replay")" = 200
	fi
	if [ -s "$L/state.json" ]; then
		if py finish "$L/state.json" > "$L/finish.json" 2> "$L/finish.err"; then
			pass "the half-played game resumed with its seat tokens and finished: $(cat "$L/finish.json")"
			check "the room still gathering players is back, still gathering" \
				test "$(json 'd["gathering_status"]' < "$L/finish.json")" = lobby
		else
			fail "the half-played game or the gathering room after down/up: $(tail -3 "$L/finish.err")"
		fi
	fi
	check "no anonymous volume after down/up" test -z "$(stray_volumes)"
	monitoring_check
}

# Prometheus of the `monitoring` profile scrapes the server's /metrics with the
# token. (Grafana is not started here: the image may be missing where this runs.)
monitoring_check() {
	if ! docker image inspect prom/prometheus:v3.1.0 >/dev/null 2>&1 \
		&& ! docker image inspect docker.io/prom/prometheus:v3.1.0 >/dev/null 2>&1; then
		info "no prom/prometheus:v3.1.0 image: the monitoring profile is not run"
		return
	fi
	compose --profile monitoring up -d --no-deps prometheus > "$L/prometheus.log" 2>&1 || { fail "start Prometheus"; return; }
	local i health=""
	for i in $(seq 40); do
		health=$(curl -s --max-time 3 http://127.0.0.1:9090/api/v1/targets \
			| json 'd["data"]["activeTargets"][0]["health"]' 2>/dev/null || true)
		[ "$health" = up ] && break
		sleep 2
	done
	check "Prometheus (profile monitoring) scrapes the server's /metrics with the token (target $health)" test "$health" = up
}

mode_upgrade() {
	local ref=${2:-}
	[ -n "$ref" ] || { echo "upgrade needs a git ref, e.g. v0.1.0" >&2; exit 2; }
	mkdir -p "$W.old"
	git -C "$ROOT" archive "$ref" | tar -x -C "$W.old"
	local t
	t=$(now)
	if nice docker build -t "$PREV_IMAGE" "$W.old" > "$L/build-prev.log" 2>&1; then
		pass "the image of $ref ($(since "$t") s)"
	else
		fail "build $ref: $(tail -5 "$L/build-prev.log")"; return
	fi
	cd "$W"
	write_env "$PREV_IMAGE"
	if up_wait "$L/up-prev.log"; then pass "the stack up on $ref's image (${UP_S} s)"
	else fail "up on $ref"; return; fi
	fetch_ca || { fail "HTTPS on $ref"; return; }
	if py start "$L/state.json" > "$L/start.json" 2> "$L/start.err"; then
		pass "$ref: a game in progress ($(json 'd["acks"]' < "$L/start.json") actions of ours)"
	else
		fail "start a game on $ref: $(tail -3 "$L/start.err")"; return
	fi
	# The procedure of docs/self-hosting.md: back up, (pull,) rebuild, up, /readyz.
	compose exec -T db pg_dump -U catan catan > "$L/backup.sql"
	check "backup taken (pg_dump, $(wc -c < "$L/backup.sql") bytes, with the game's actions)" \
		grep -q "game_actions" "$L/backup.sql"
	sed -i "s|^CATAN_IMAGE=.*|CATAN_IMAGE=$IMAGE|" .env
	if build_image "$L/build.log"; then pass "this checkout's image (${BUILD_S} s)"
	else fail "build"; return; fi
	t=$(now)
	if up_wait "$L/up-new.log"; then pass "up -d --wait on the new image (${UP_S} s)"
	else fail "up on the new image"; return; fi
	local i ready=""
	for i in $(seq 60); do
		ready=$(C -o /dev/null -w '%{http_code}' "$B/readyz" 2>/dev/null || true)
		[ "$ready" = 200 ] && break
		sleep 1
	done
	check "/readyz = 200 through the proxy ($(since "$t") s from up to ready)" test "$ready" = 200
	figure upgrade_to_ready_s "$(since "$t")"
	if py finish "$L/state.json" > "$L/finish.json" 2> "$L/finish.err"; then
		pass "the game begun on $ref goes on and finishes on the new image: $(cat "$L/finish.json")"
		# A release that kept no room before its start loses the gathering one.
		info "the room gathering players on $ref, after the upgrade: $(json 'd["gathering_status"]' < "$L/finish.json")"
	else
		fail "the game after the upgrade: $(tail -3 "$L/finish.err")"
	fi
}

# The default stack under its limits with the load generator against the server:
# memory per table (idle: rooms created, seated, started, every seat connected)
# and CPU and latency at a fast players' pace. The server's port is published on
# loopback for this run only (a second compose file), and the per-address limits
# are lifted (every connection comes from one address through the port mapping).
# CPU time of the db container in ns (its cgroup's cpuacct, cgroup v1 or v2), or "-".
db_cpu_ns() {
	compose exec -T db sh -c 'cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null \
		|| awk "/^usage_usec/ { print \$2 * 1000 }" /sys/fs/cgroup/cpu.stat' 2>/dev/null | tr -d '\r' || echo -
}

mode_sizing() {
	local loadgen=${LOADGEN:-$ROOT/target/release/catan-loadgen} port=${SIZING_PORT:-29600}
	[ -x "$loadgen" ] || { echo "needs catan-loadgen (cargo build --release -p catan-client, or LOADGEN=...)" >&2; exit 2; }
	cd "$W"
	write_env "$IMAGE"
	cat >> .env <<-ENV
		CATAN_LOBBY_RATE_PER_MIN=0
		CATAN_WEBSOCKET_RATE_PER_MIN=0
		CATAN_MAX_CONNECTIONS_PER_ADDRESS=0
		CATAN_MAX_WEBSOCKETS_PER_ADDRESS=100000
		CATAN_MAX_ROOMS=20000
		RUST_LOG=warn
	ENV
	cat > compose.sizing.yml <<-YML
		services:
		  server:
		    ports:
		      - "127.0.0.1:$port:8080"
	YML
	export COMPOSE_FILE=docker-compose.yml:compose.sizing.yml
	if build_image "$L/build.log"; then pass "build (${BUILD_S} s)"; else fail "build"; return; fi
	local scenario args pid
	for scenario in idle pace; do
		compose down -t 30 -v > /dev/null 2>&1
		if up_wait "$L/up-$scenario.log"; then pass "$scenario: the stack up (${UP_S} s)"
		else fail "$scenario: up"; return; fi
		pid=$(docker inspect -f '{{.State.Pid}}' "$(compose ps -q server)")
		case "$scenario" in
			# Rooms set up 8 at a time: a burst of 64 starts at once outran the
			# 2 s store timeout of a PostgreSQL limited to one CPU (503 store_unavailable).
			idle) args=(--idle --rooms "${SIZING_IDLE_ROOMS:-2000}" --duration 30 --warmup 60
				--setup-concurrency "${SIZING_SETUP_CONCURRENCY:-8}") ;;
			pace) args=(--rooms "${SIZING_ROOMS:-1000}" --think-ms "${SIZING_THINK_MS:-1000}" --duration 60 --warmup 20) ;;
		esac
		# --one-address: through the port mapping only 127.0.0.1 reaches the container.
		local db_cpu0 db_cpu1
		db_cpu0=$(db_cpu_ns)
		if "$loadgen" --url "ws://127.0.0.1:$port" --one-address --server-pid "$pid" --json "${args[@]}" \
			> "$L/loadgen-$scenario.log" 2>&1; then
			pass "$scenario: catan-loadgen ${args[*]}"
		else
			fail "$scenario: catan-loadgen ${args[*]}: $(tail -3 "$L/loadgen-$scenario.log" | cut -c1-300)"
		fi
		db_cpu1=$(db_cpu_ns)
		tail -n 1 "$L/loadgen-$scenario.log" > "$L/$scenario.json"
		python3 - "$L/$scenario.json" "$db_cpu0" "$db_cpu1" <<-'PY'
			import json, sys
			d = json.load(open(sys.argv[1]))
			keys = ["rooms", "connections", "actions_per_s", "p50_ms", "p99_ms", "p999_ms", "errors",
			        "server_rss_kib", "rss_per_conn_kib", "rss_per_room_kib", "server_cpu_pct",
			        "server_cpu_per_action_us"]
			out = {k: d.get(k) for k in keys}
			try:
			    db = (int(sys.argv[3]) - int(sys.argv[2])) / 1e9
			    out["db_cpu_s"] = round(db, 2)
			    if d.get("actions_total"):
			        out["db_cpu_per_action_us"] = round(db * 1e6 / d["actions_total"], 1)
			except ValueError:
			    pass
			print("RESULT:", json.dumps(out))
		PY
		docker stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.CPUPerc}}' \
			$(compose ps -q) 2>/dev/null | sed "s/^/INFO: $scenario: /" || true
		check "$scenario: the server was not restarted (no OOM kill)" \
			test "$(docker inspect -f '{{.RestartCount}}' "$(compose ps -q server)")" = 0
	done
}

mode_cluster() {
	COMPOSE_DIR=$W/deploy/cluster
	cd "$COMPOSE_DIR"
	cat > .env <<-ENV
		CATAN_ADMIN_TOKEN=$(openssl rand -hex 32)
		POSTGRES_PASSWORD=$(openssl rand -hex 16)
		CATAN_HTTP_PORT=$HTTP_PORT
		CATAN_IMAGE=$IMAGE
		CATAN_SUBNET=10.203.59.0/24
		CATAN_SUBNET_DYNAMIC=10.203.59.128/25
		CATAN_PROXY_ADDRESS=10.203.59.2
		CATAN_CLUSTER_LEASE_SECS=3
	ENV
	if build_image "$L/build.log"; then pass "build (${BUILD_S} s)"; else fail "build"; return; fi
	if up_wait "$L/up.log"; then pass "three instances, PostgreSQL and Caddy up (${UP_S} s)"
	else fail "up"; return; fi
	local base=http://127.0.0.1:$HTTP_PORT i code
	for i in $(seq 30); do
		[ "$(curl -s -m 2 "$base/healthz")" = ok ] && break
		sleep 1
	done
	# Requests through the proxy every 50 ms for 20 s; catan-2 killed after 5 s.
	: > "$L/codes.txt"
	(
		end=$(( $(date +%s) + 20 ))
		while [ "$(date +%s)" -lt "$end" ]; do
			curl -s -m 10 -o /dev/null -w '%{http_code}\n' "$base/api/rooms" >> "$L/codes.txt"
			sleep 0.05
		done
	) &
	local load=$!
	sleep 5
	compose kill catan-2 > "$L/kill.log" 2>&1
	wait "$load"
	local total bad
	total=$(wc -l < "$L/codes.txt")
	bad=$(grep -cv '^200$' "$L/codes.txt" || true)
	info "status codes through the proxy: $(sort "$L/codes.txt" | uniq -c | tr '\n' ' ')"
	check "an instance killed under requests: $total requests, $bad not 200 (no 502)" test "$bad" = 0
	figure cluster_requests "$total"
	figure cluster_not_200 "$bad"
}

case "$MODE" in
	run) mode_run ;;
	upgrade) mode_upgrade "$@" ;;
	cluster) mode_cluster ;;
	sizing) mode_sizing ;;
	*) echo "usage: $0 [run | upgrade REF | cluster | sizing]" >&2; exit 2 ;;
esac

[ "${KEEP:-0}" = 1 ] || { (cd "$COMPOSE_DIR" && compose --profile monitoring down -t 30 -v --remove-orphans > "$L/down-final.log" 2>&1); \
	check "down -v left no volume of this run" test -z "$(comm -13 <(echo "$volumes_before") <(docker volume ls -q | sort))"; }
echo "FIGURES: ${FIGURES[*]}"
echo "$([ "$fails" = 0 ] && echo "ALL PASSED" || echo "$fails FAILED") (logs in $L)"
exit "$fails"
