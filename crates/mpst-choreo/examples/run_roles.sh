#!/bin/sh
# Starts every role of a choreography example as its own local process, one per
# `ROLE.toml` of DIR (as `EXAMPLE --write-config DIR` writes them), waits for all of them
# and exits with the highest exit status (0: every role completed; the table is in
# docs/DEPLOYMENT.md). For trying roles out on one machine: it is not an orchestrator,
# and restarts nothing. Each role's output goes to DIR/ROLE.out, its log to DIR/ROLE.log.
#
# Ports: each role binds the `listen` address of its file, as it would under systemd or
# a container orchestrator; this script picks no port. A port already taken makes that
# role exit at once with status 3, its log saying `Address already in use` and the
# address (its peers then give up at their connect time-out): write the files again with
# other ports (`EXAMPLE --write-config DIR --port N`) and start again. Ports below the
# kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, from 32768 by
# default; --write-config's default 7300 is) are never taken by outgoing connections.
#
#   cargo build -p mpst-choreo --example concurrent_send
#   target/debug/examples/concurrent_send --write-config /tmp/cs
#   sh crates/mpst-choreo/examples/run_roles.sh target/debug/examples/concurrent_send /tmp/cs
#
# Usage: run_roles.sh EXAMPLE DIR [ARGUMENTS FOR EVERY ROLE...]
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 EXAMPLE DIR [ARGUMENTS...]" >&2
    exit 2
fi
example=$1
dir=$2
shift 2
started=""
for file in "$dir"/*.toml; do
    [ -e "$file" ] || { echo "$0: no ROLE.toml in $dir" >&2; exit 2; }
    role=$(basename "$file" .toml)
    "$example" --config "$file" "$@" >"$dir/$role.out" 2>"$dir/$role.log" </dev/null &
    started="$started $!:$role"
done
worst=0
for entry in $started; do
    pid=${entry%%:*}
    role=${entry#*:}
    wait "$pid"
    status=$?
    echo "$role exited with status $status"
    cat "$dir/$role.out"
    if [ "$status" -gt "$worst" ]; then
        worst=$status
    fi
done
exit "$worst"
