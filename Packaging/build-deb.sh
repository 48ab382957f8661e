#!/usr/bin/env bash
# Builds the Debian package of OpenDefaults' tools, with no network:
#
#   Packaging/build-deb.sh [--skip-build] [--out DIR]
#
# Prints the path of the package it made as its last line:
# DIR/opendefaults_<version>_<arch>.deb (DIR defaults to .build/packages).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build/packages skip=()
while (($#)); do
  case $1 in
    --skip-build) skip=(--skip-build); shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "build-deb.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"
Packaging/install.sh --prefix /usr --destdir "$stage" "${skip[@]}" >&2

version=$("$stage/usr/bin/defaults" --version | awk '{print $NF}')
arch=$(dpkg --print-architecture)

# Debian keeps the licence as the package's copyright file.
mv "$stage/usr/share/doc/opendefaults/LICENSE" "$stage/usr/share/doc/opendefaults/copyright"

# Depends: the shared libraries the static tools still load (the C library),
# as dpkg-shlibdeps computes them from the system's symbols files.
work=$(mktemp -d)
mkdir -p "$work/debian"
printf 'Source: opendefaults\n\nPackage: opendefaults\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O $(for t in defaults plutil settings ubiquity profiles; do echo "-e$stage/usr/bin/$t"; done) 2>/dev/null \
  | sed -n 's/^shlibs:Depends=//p')
rm -rf "$work"

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: opendefaults
Version: $version
Architecture: $arch
Maintainer: OpenDefaults developers <opendefaults@example.org>
Depends: $depends
Section: utils
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Homepage: https://github.com/opendefaults/opendefaults
Description: macOS user defaults tools for Linux: defaults, plutil, settings, ubiquity, profiles
 OpenDefaults brings Apple's user defaults system to Linux. This package
 installs its command-line tools, statically linked against the Swift
 runtime: defaults (read and write preferences), plutil (check, convert and
 edit property lists), settings (validate, install and serve iOS Settings
 bundles in the browser), ubiquity (the iCloud key-value store's sync
 server and client, with a systemd unit) and profiles (install and check
 configuration profiles that set managed preferences), with man pages and
 bash, zsh and fish completions.
CONTROL
echo /etc/opendefaults/ubiquity.plist > "$stage/DEBIAN/conffiles"
# The sync server's system user, from its sysusers.d file (inside the dpkg root when there is one).
cat > "$stage/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ] && command -v systemd-sysusers >/dev/null 2>&1; then
  systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} ubiquity.conf
fi
if [ "$1" = configure ] && [ -z "$DPKG_ROOT" ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
fi
POSTINST
chmod 0755 "$stage/DEBIAN/postinst"
find "$stage" -type d -exec chmod 0755 {} +

mkdir -p "$out"
deb="$out/opendefaults_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
echo "$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
