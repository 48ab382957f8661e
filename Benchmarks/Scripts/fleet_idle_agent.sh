#!/usr/bin/env bash
# Issue 41: an idle agent's wake-ups over 120 s (voluntary context switches of all its threads,
# from /proc), with a server and one enrolled agent in a throw-away folder. As root, from anywhere.
set -e
U=${UBIQUITY:-$(cd "$(dirname "$0")/../.." && pwd)/.build/debug/ubiquity}
W=$(mktemp -d /var/tmp/idle-XXXXXX); chmod 755 $W; cd $W
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=ca -keyout ca.key -out ca.pem 2>/dev/null
out=$(HOME=$W $U org create acme --signing-cert ca.pem --create --data $W/data)
secret=$(echo "$out" | sed -n '/^Enrolment secret/{n;p}')
HOME=$W $U serve --port 0 --data $W/data > serve.log 2>&1 &
spid=$!
until [ -s serve.log ] && head -1 serve.log | grep -q http; do sleep 0.1; done
url=$(head -1 serve.log)
mkdir -p m/etc; chmod 755 m m/etc; echo 0123456789abcdef0123456789abcdef > m/etc/machine-id
echo "$secret" | HOME=$W OPENDEFAULTS_SYSTEM_ROOT=$W/m $U enroll $url --group g >/dev/null
HOME=$W OPENDEFAULTS_SYSTEM_ROOT=$W/m $U agent > agent.log 2>&1 &
apid=$!
sleep 5
sw() { local t=0; for f in /proc/$apid/task/*/status; do t=$((t + $(awk '/^voluntary_ctxt_switches/{print $2}' $f))); done; echo $t; }
a=$(sw); sleep 120; b=$(sw)
echo "idle agent: $((b - a)) voluntary context switches in 120 s over $(ls /proc/$apid/task | wc -l) threads"
kill $apid $spid; rm -rf $W
