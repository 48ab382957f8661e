#!/usr/bin/env bash
# Boots the Debian package's ubiquity.service under systemd, in a throw-away
# container: a minimal Debian made by debootstrap, booted by systemd-nspawn
# (systemd is PID 1 inside; the host needs no systemd). Checked from inside:
# the postinst made the ubiquity user, the unit (Type=notify, every hardening
# line) starts and is active only after READY=1, runs as that user in its
# StateDirectory, answers /healthz and /readyz, reports its status, and
# `systemctl stop` (SIGTERM) ends it cleanly within a second.
#
#   Packaging/test-systemd.sh DEB
#
# Needs root, systemd-nspawn (Debian's systemd-container) and debootstrap;
# without them it says why and exits 0, unless OPENDEFAULTS_REQUIRE_SYSTEMD=1.
# Never boot the host's own systemd in a namespace instead: its tmpfiles
# setup empties the host's /tmp.
set -euo pipefail
deb=$(readlink -f "${1:?usage: test-systemd.sh DEB}")
fail() { echo "test-systemd: $*" >&2; exit 1; }
skip() {
  [[ ${OPENDEFAULTS_REQUIRE_SYSTEMD:-0} == 1 ]] && fail "required but $1"
  echo "test-systemd: skipped: $1"; exit 0
}
[[ $(id -u) == 0 ]] || skip "not root"
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (apt-get install systemd-container)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap)"
started=$(date +%s)

root=$(mktemp -d /var/tmp/opendefaults-systemd-XXXXXX)
chmod 755 "$root"   # the container's /: every user must reach it
trap 'rm -rf --one-file-system "$root" "$root.log"' EXIT
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,curl bookworm "$root" "$mirror" >"$root.log" 2>&1 \
  || { tail -n 20 "$root.log" >&2; fail "debootstrap of bookworm from $mirror failed"; }
container() { systemd-nspawn -q -D "$root" --register=no --keep-unit --private-network "$@"; }

cp "$deb" "$root/opendefaults.deb"
container dpkg -i /opendefaults.deb >"$root.log" 2>&1 || { cat "$root.log" >&2; fail "the package does not install in the container"; }
container systemctl enable ubiquity.service >/dev/null 2>&1 || fail "ubiquity.service cannot be enabled"
# A drop-in for the unit, when given (OPENDEFAULTS_SYSTEMD_DROPIN: lines for its [Service] section).
if [[ -n ${OPENDEFAULTS_SYSTEMD_DROPIN:-} ]]; then
  mkdir -p "$root/etc/systemd/system/ubiquity.service.d"
  printf '[Service]\n%s\n' "$OPENDEFAULTS_SYSTEMD_DROPIN" > "$root/etc/systemd/system/ubiquity.service.d/test.conf"
fi

# What the container checks once ubiquity.service is up (After= a Type=notify unit: after READY=1).
cat > "$root/usr/local/bin/ubiquity-boot-check" <<'SH'
#!/bin/sh
pid=$(systemctl show -p MainPID --value ubiquity.service)
{
  echo "active=$(systemctl is-active ubiquity.service)"
  echo "user=$(stat -c %U /proc/$pid)"
  echo "status=$(systemctl show -p StatusText --value ubiquity.service)"
  echo "healthz=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8470/healthz)"
  echo "readyz=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8470/readyz)"
  echo "state=$(stat -c '%U %a' /var/lib/opendefaults/ubiquity-server)"
  before=$(date +%s%N)
  systemctl stop ubiquity.service
  after=$(date +%s%N)
  echo "stop_ms=$(( (after - before) / 1000000 ))"
  echo "result=$(systemctl show -p Result --value ubiquity.service)"
  echo "--- journal"
  journalctl -u ubiquity.service -o cat --no-pager
} > /boot-check.txt 2>&1
systemctl poweroff
SH
chmod 755 "$root/usr/local/bin/ubiquity-boot-check"
cat > "$root/etc/systemd/system/ubiquity-boot-check.service" <<'UNIT'
[Unit]
Description=Checks ubiquity.service once it is up
After=ubiquity.service
Wants=ubiquity.service

[Service]
Type=oneshot
ExecStart=/usr/local/bin/ubiquity-boot-check

[Install]
WantedBy=multi-user.target
UNIT
container systemctl enable ubiquity-boot-check.service >/dev/null 2>&1 || fail "the check unit cannot be enabled"

timeout 180 systemd-nspawn -q -D "$root" --register=no --keep-unit --private-network --console=pipe -b </dev/null >"$root.log" 2>&1 || true
[[ -f $root/boot-check.txt ]] || { tail -n 30 "$root.log" >&2; fail "the container did not run its check (no /boot-check.txt)"; }
report=$root/boot-check.txt
value() { sed -n "s/^$1=//p" "$report" | head -n 1; }
show() { cat "$report" >&2; fail "$*"; }
[[ $(value active) == active ]] || show "ubiquity.service is not active after boot"
[[ $(value user) == ubiquity ]] || show "ubiquity.service does not run as the ubiquity user"
[[ $(value status) == serving* ]] || show "no STATUS=serving… through sd_notify"
[[ $(value healthz) == 200 ]] || show "/healthz did not answer 200"
[[ $(value readyz) == 200 ]] || show "/readyz did not answer 200"
[[ $(value state) == "ubiquity 700" ]] || show "the StateDirectory is not the ubiquity user's, 0700"
(( $(value stop_ms) < 1000 )) || show "systemctl stop took $(value stop_ms) ms"
[[ $(value result) == success ]] || show "the service did not end cleanly"
grep -q "msg=stopped" "$report" || show "no 'stopped' in the service's journal"
echo "test-systemd: ubiquity.service booted under systemd in a container: active after READY=1, as ubiquity, /healthz and /readyz 200, stopped in $(value stop_ms) ms ($(( $(date +%s) - started )) s)"
