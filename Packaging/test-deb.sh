#!/usr/bin/env bash
# Installs the Debian package into a throw-away dpkg root (never the machine
# itself), checks what it installed works, removes it and checks that no
# file is left behind. Exit 0 when all holds.
#
#   Packaging/test-deb.sh PACKAGE.deb
set -euo pipefail
deb=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: > "$root/var/lib/dpkg/status"
: > "$root/var/lib/dpkg/available"
fail() { echo "test-deb: $*" >&2; exit 1; }

before=$(cd "$root" && find . -not -path './var/lib/dpkg*' -not -regex '\./etc\(/\(passwd\|group\|shadow\|gshadow\|\.pwd\.lock\)-?\)?' | sort)
# The throw-away root has no libc6 package (the host's C library serves the
# static tools), so its dependency is the one thing forced.
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$root/dpkg.log" 2>&1 \
  || { cat "$root/dpkg.log" >&2; fail "dpkg -i failed"; }
rm -f "$root/dpkg.log"
dpkg --root="$root" -s opendefaults | grep -q '^Status: install ok installed' || fail "not installed"

for t in defaults plutil settings ubiquity profiles; do
  [[ -x $root/usr/bin/$t ]] || fail "missing /usr/bin/$t"
  "$root/usr/bin/$t" --version | grep -q "OpenDefaults" || fail "$t --version"
  [[ -f $root/usr/share/man/man1/$t.1.gz ]] || fail "missing man page $t.1.gz"
  zcat "$root/usr/share/man/man1/$t.1.gz" | groff -mdoc -ww -z 2>&1 | (! grep .) || fail "$t.1 renders with warnings"
  [[ -s $root/usr/share/bash-completion/completions/$t ]] || fail "missing bash completion for $t"
  [[ -s $root/usr/share/zsh/vendor-completions/_$t ]] || fail "missing zsh completion for $t"
  [[ -s $root/usr/share/fish/vendor_completions.d/$t.fish ]] || fail "missing fish completion for $t"
  bash -n "$root/usr/share/bash-completion/completions/$t" || fail "bash completion for $t does not parse"
done
[[ -f $root/usr/share/doc/opendefaults/copyright ]] || fail "missing copyright"
grep -q "Apache License" "$root/usr/share/doc/opendefaults/copyright" || fail "copyright is not the Apache licence"
# The installed tools work, in a throw-away home.
home=$(mktemp -d)
XDG_CONFIG_HOME=$home "$root/usr/bin/defaults" write com.example.deb Volume -int 11
[[ $(XDG_CONFIG_HOME=$home "$root/usr/bin/defaults" read com.example.deb Volume) == 11 ]] || fail "installed defaults does not work"
rm -rf "$home"
# A configuration profile installed by the installed tool reaches the installed defaults; removing it undoes that.
unit=$root/usr/lib/systemd/user/opendefaults-profiles-apply.service
[[ -f $unit && -L $root/usr/lib/systemd/user/default.target.wants/opendefaults-profiles-apply.service ]] || fail "missing the profiles apply user unit"
if command -v systemd-analyze >/dev/null && [[ $(id -u) == 0 ]]; then
  sed "s|/usr/bin/profiles|$root/usr/bin/profiles|" "$unit" > "$root/check.service"
  systemd-analyze verify --man=no "$root/check.service" || fail "the user unit does not verify"
  sed "s|/usr/bin/ubiquity|$root/usr/bin/ubiquity|; s|/etc/opendefaults|$root/etc/opendefaults|" "$root/usr/lib/systemd/system/ubiquity.service" > "$root/ubiquity-check.service"
  systemd-analyze verify --man=no "$root/ubiquity-check.service" || fail "ubiquity.service does not verify"
  sed "s|/usr/bin/ubiquity|$root/usr/bin/ubiquity|; s|/var/lib/opendefaults/agent|$root/var/lib/opendefaults/agent|" "$root/usr/lib/systemd/system/ubiquity-agent.service" > "$root/ubiquity-agent-check.service"
  systemd-analyze verify --man=no "$root/ubiquity-agent-check.service" || fail "ubiquity-agent.service does not verify"
  rm -f "$root/ubiquity-agent-check.service"
  rm -f "$root/check.service" "$root/ubiquity-check.service"
fi
if [[ $(id -u) == 0 ]]; then
  sys=$(mktemp -d); chmod 755 "$sys"; home=$(mktemp -d)
  cat > "$sys/p.mobileconfig" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>PayloadType</key><string>Configuration</string>
<key>PayloadIdentifier</key><string>com.example.deb</string><key>PayloadUUID</key><string>D</string>
<key>PayloadContent</key><array><dict><key>PayloadType</key><string>com.example.deb</string>
<key>PayloadIdentifier</key><string>p</string><key>PayloadUUID</key><string>q</string>
<key>Volume</key><integer>3</integer></dict></array></dict></plist>
XML
  OPENDEFAULTS_SYSTEM_ROOT=$sys "$root/usr/bin/profiles" install --path "$sys/p.mobileconfig" >/dev/null || fail "installed profiles cannot install"
  [[ $(OPENDEFAULTS_SYSTEM_ROOT=$sys XDG_CONFIG_HOME=$home "$root/usr/bin/defaults" read com.example.deb Volume) == 3 ]] || fail "a profile's forced value does not reach defaults"
  OPENDEFAULTS_SYSTEM_ROOT=$sys "$root/usr/bin/profiles" remove --identifier com.example.deb >/dev/null || fail "installed profiles cannot remove"
  rm -rf "$sys" "$home"
fi
# The sync server's unit, user and settings.
[[ -f $root/usr/lib/systemd/system/ubiquity.service ]] || fail "missing ubiquity.service"
grep -q '^Type=notify' "$root/usr/lib/systemd/system/ubiquity.service" || fail "ubiquity.service is not Type=notify"
grep -q '^Type=notify' "$root/usr/lib/systemd/system/ubiquity-agent.service" || fail "ubiquity-agent.service is missing or not Type=notify"
[[ -f $root/etc/opendefaults/ubiquity.plist ]] || fail "missing /etc/opendefaults/ubiquity.plist"
grep -qx /etc/opendefaults/ubiquity.plist "$root/var/lib/dpkg/info/opendefaults.conffiles" || fail "the settings file is not a conffile"
scratch=$(mktemp -d)
"$root/usr/bin/ubiquity" account add probe --create --data "$scratch" >/dev/null || fail "account add --create made no database"
"$root/usr/bin/ubiquity" check --config "$root/etc/opendefaults/ubiquity.plist" --data "$scratch" >/dev/null || fail "the shipped settings file is refused"
rm -rf "$scratch"
if command -v systemd-sysusers >/dev/null; then
  grep -q '^ubiquity:' "$root/etc/passwd" || fail "postinst made no ubiquity user"
fi
# Only the C library is a shared dependency.
for t in defaults plutil settings ubiquity profiles; do
  if ldd "$root/usr/bin/$t" | grep -Eq 'libswift|libFoundation|libdispatch'; then fail "$t links the Swift runtime dynamically"; fi
done

dpkg --root="$root" --force-script-chrootless --purge opendefaults >/dev/null
# The system user stays after purge (Debian never deletes one: its files may outlive the package).
after=$(cd "$root" && find . -not -path './var/lib/dpkg*' -not -regex '\./etc\(/\(passwd\|group\|shadow\|gshadow\|\.pwd\.lock\)-?\)?' | sort)
[[ $before == "$after" ]] || { diff <(echo "$before") <(echo "$after") >&2; fail "files left after removal"; }
echo "test-deb: installed, used and removed $(basename "$deb") cleanly ($(du -k "$deb" | cut -f1) KiB)"
