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
  # The fleet agent's unit (issue 41): an organisation on the running server's database, this
  # container enrolled, ubiquity-agent.service started (Type=notify: after READY=1), a profile
  # published and signed under the organisation's CA, and its forced key seen by `defaults`.
  runuser -u ubiquity -- env XDG_DATA_HOME=/var/lib ubiquity org create acme --signing-cert /fleet/ca.pem \
    --config /etc/opendefaults/ubiquity.plist > /fleet/org.txt 2>&1
  sed -n '/^Enrolment secret/{n;p}' /fleet/org.txt > /fleet/secret
  sed -n "/^Administrator's token/{n;p}" /fleet/org.txt > /fleet/admin
  ubiquity enroll http://127.0.0.1:8470 --group desktops < /fleet/secret > /fleet/enroll.txt 2>&1
  echo "enrolled=$?"
  systemctl start ubiquity-agent.service
  echo "agent_active=$(systemctl is-active ubiquity-agent.service)"
  echo "agent_status=$(systemctl show -p StatusText --value ubiquity-agent.service)"
  HOME=/root ubiquity login http://127.0.0.1:8470 < /fleet/admin > /dev/null 2>&1
  HOME=/root ubiquity policy publish --group desktops --signing-cert /fleet/signer.pem --signing-key /fleet/signer.key \
    /fleet/kiosk.mobileconfig > /fleet/publish.txt 2>&1
  i=0
  until [ "$(HOME=/root defaults read com.example.fleet Mode 2>/dev/null)" = kiosk ] || [ $i -ge 300 ]; do i=$((i + 1)); sleep 0.1; done
  echo "fleet_value=$(HOME=/root defaults read com.example.fleet Mode 2>&1)"
  systemctl stop ubiquity-agent.service
  echo "agent_result=$(systemctl show -p Result --value ubiquity-agent.service)"
  echo "--- fleet"
  cat /fleet/org.txt /fleet/enroll.txt /fleet/publish.txt
  journalctl -u ubiquity-agent.service -o cat --no-pager
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
# The fleet's keys (the organisation's CA, a signing certificate it issued) and a profile, made here.
mkdir -p "$root/fleet"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/O=Acme/CN=fleet CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
  -keyout "$root/fleet/ca.key" -out "$root/fleet/ca.pem" 2>/dev/null || fail "openssl could not make the fleet's CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/O=Acme/CN=administrator" \
  -keyout "$root/fleet/signer.key" -out "$root/fleet/signer.csr" 2>/dev/null || fail "openssl could not make a signing key"
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n' > "$root/fleet/signer.ext"
openssl x509 -req -in "$root/fleet/signer.csr" -CA "$root/fleet/ca.pem" -CAkey "$root/fleet/ca.key" -CAcreateserial -days 2 \
  -extfile "$root/fleet/signer.ext" -out "$root/fleet/signer.pem" 2>/dev/null || fail "openssl could not issue the signing certificate"
cat > "$root/fleet/kiosk.mobileconfig" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>com.example.fleet.kiosk</string>
<key>PayloadUUID</key><string>6B1C3D0E-3C1B-4B39-9D1A-000000000001</string><key>PayloadVersion</key><integer>1</integer>
<key>PayloadDisplayName</key><string>Kiosk</string><key>PayloadScope</key><string>System</string>
<key>PayloadContent</key><array><dict>
<key>PayloadType</key><string>com.apple.ManagedClient.preferences</string><key>PayloadIdentifier</key><string>com.example.fleet.kiosk.prefs</string>
<key>PayloadUUID</key><string>6B1C3D0E-3C1B-4B39-9D1A-000000000002</string><key>PayloadVersion</key><integer>1</integer>
<key>PayloadContent</key><dict><key>com.example.fleet</key><dict><key>Forced</key><array><dict>
<key>mcx_preference_settings</key><dict><key>Mode</key><string>kiosk</string></dict></dict></array></dict></dict>
</dict></array></dict></plist>
PLIST
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
[[ $(value enrolled) == 0 ]] || show "ubiquity enroll failed in the container"
[[ $(value agent_active) == active ]] || show "ubiquity-agent.service is not active after start"
[[ $(value agent_status) == following* ]] || show "no STATUS=following… from the agent through sd_notify"
[[ $(value fleet_value) == kiosk ]] || show "the published profile's forced key did not reach defaults on the enrolled machine"
[[ $(value agent_result) == success ]] || show "the agent did not end cleanly"
echo "test-systemd: ubiquity.service booted under systemd in a container: active after READY=1, as ubiquity, /healthz and /readyz 200, stopped in $(value stop_ms) ms; ubiquity-agent.service active after READY=1 and applied a published profile ($(( $(date +%s) - started )) s)"
