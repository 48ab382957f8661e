#!/usr/bin/env bash
# Issue 41: an idle agent's wake-ups, with a server and one enrolled agent in a throw-away folder.
# As root, from anywhere:
#
#     sudo bash Benchmarks/Scripts/fleet_idle_agent.sh [SECONDS]
#
# Samples the voluntary context switches of all the agent's threads (from /proc) once a second
# for SECONDS (default 180), once the agent is idle (its first report's connection closed, then
# 10 quiet seconds; at most 30 s for a process that never sleeps), and prints
# the switches, the seconds in which any thread woke, and the wake-ups: runs of such seconds (a
# stream's renewal wakes several threads at once). Run twice, the agent on its own executor and
# on libdispatch (OPENDEFAULTS_AGENT_EXECUTOR=dispatch), in the same run. Uses the debug build's
# `ubiquity` unless UBIQUITY points at another.
set -e
U=${UBIQUITY:-$(cd "$(dirname "$0")/../.." && pwd)/.build/debug/ubiquity}
SECONDS_IDLE=${1:-180}
W=$(mktemp -d /var/tmp/idle-XXXXXX); chmod 755 $W; cd $W
trap 'kill $(jobs -p) 2>/dev/null; rm -rf $W' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=ca -keyout ca.key -out ca.pem 2>/dev/null
out=$(HOME=$W $U org create acme --signing-cert ca.pem --create --data $W/data)
secret=$(echo "$out" | sed -n '/^Enrolment secret/{n;p}')
HOME=$W $U serve --port 0 --data $W/data > serve.log 2>&1 &
until [ -s serve.log ] && head -1 serve.log | grep -q http; do sleep 0.1; done
url=$(head -1 serve.log)
mkdir -p m/etc; chmod 755 m m/etc; echo 0123456789abcdef0123456789abcdef > m/etc/machine-id
echo "$secret" | HOME=$W OPENDEFAULTS_SYSTEM_ROOT=$W/m $U enroll $url --group g >/dev/null

switches() { local t=0; for f in /proc/$1/task/*/status; do t=$((t + $(awk '/^voluntary_ctxt_switches/{print $2}' $f))); done; echo $t; }
# The agent's established TCP connections (its sockets found in /proc's table with state 01).
connections() {
    local inodes; inodes=$(ls -l /proc/$1/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]/\1/p')
    local n=0; for i in $inodes; do awk -v i=$i '$4 == "01" && $10 == i' /proc/$1/net/tcp /proc/$1/net/tcp6 | grep -q . && n=$((n + 1)); done; echo $n
}
for executor in own dispatch; do
    if [ $executor = dispatch ]; then export OPENDEFAULTS_AGENT_EXECUTOR=dispatch; else unset OPENDEFAULTS_AGENT_EXECUTOR; fi
    HOME=$W OPENDEFAULTS_SYSTEM_ROOT=$W/m $U agent > agent-$executor.log 2>&1 &
    apid=$!
    until grep -q following agent-$executor.log 2>/dev/null; do sleep 0.1; done
    # Idle once only its event stream is open (the first report's connection closes 2 s after it)
    # and no thread of it has woken for 10 s (the first stream's timers have fired), or after 30 s.
    until [ "$(connections $apid)" = 1 ]; do sleep 0.1; done
    quiet=0; before=$(switches $apid)
    for _ in $(seq 30); do
        [ $quiet -ge 10 ] && break
        sleep 1; now=$(switches $apid)
        if [ $now = $before ]; then quiet=$((quiet + 1)); else quiet=0; fi
        before=$now
    done
    threads=$(for t in /proc/$apid/task/*; do cat $t/comm; done | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
    last=$(switches $apid); first=$last; awake=0; wakeups=0; was=0
    for _ in $(seq $SECONDS_IDLE); do
        sleep 1
        now=$(switches $apid)
        if [ $now != $last ]; then awake=$((awake + 1)); [ $was = 0 ] && wakeups=$((wakeups + 1)); was=1; else was=0; fi
        last=$now
    done
    echo "agent on $executor executor: $((last - first)) voluntary context switches in $SECONDS_IDLE s; awake in $awake seconds; $wakeups wake-ups ($(awk -v w=$wakeups -v s=$SECONDS_IDLE 'BEGIN { printf "%.2f", w * 60 / s }') a minute); threads: $threads"
    kill $apid; wait $apid 2>/dev/null || true
done
