#!/usr/bin/env bash
# Installs (or uninstalls) OpenDefaults' tools, man pages, shell completions and
# documentation: the one way both the Debian package and `make install` use.
#
#   Packaging/install.sh [--prefix DIR] [--destdir DIR] [--skip-build] [--uninstall]
#
# --prefix   where the files go (default /usr/local)
# --destdir  a staging root prepended to every path (for packages)
# --skip-build  use the release binaries already built (see below)
# --uninstall   remove exactly the files an install puts there
#
# The tools are built with `swift build -c release --static-swift-stdlib`
# (the Swift runtime linked in: they need only the C library) and stripped.
# `defaults` and `plutil`, whose main cost is start-up, are linked as
# position-dependent executables with the toolchain's lld (no relocations to
# apply at each start; proposal 0008) in .build-tools/; `settings` and
# `ubiquity`, servers, stay position-independent (ASLR) in .build/release.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local destdir="" build=1 uninstall=0
while (($#)); do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --destdir) destdir=$2; shift 2 ;;
    --skip-build) build=0; shift ;;
    --uninstall) uninstall=1; shift ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

tools=(defaults plutil settings ubiquity profiles)
root="$destdir$prefix"
# zsh looks in vendor-completions on Debian (/usr), site-functions elsewhere.
if [[ $prefix == /usr ]]; then zshdir=share/zsh/vendor-completions; else zshdir=share/zsh/site-functions; fi

files=()
for t in "${tools[@]}"; do
  files+=("bin/$t" "share/man/man1/$t.1.gz" "share/bash-completion/completions/$t" "$zshdir/_$t" "share/fish/vendor_completions.d/$t.fish")
done
files+=(share/doc/opendefaults/README.md share/doc/opendefaults/LICENSE)
# Set-once values of configuration profiles, written at each user's session start (enabled for every user).
userunit=lib/systemd/user/opendefaults-profiles-apply.service
files+=("$userunit" lib/systemd/user/default.target.wants/opendefaults-profiles-apply.service)
# The sync server as a system service (not enabled: `systemctl enable --now ubiquity` once configured),
# its system user (systemd-sysusers), and its settings file.
files+=(lib/systemd/system/ubiquity.service lib/sysusers.d/ubiquity.conf)
# The fleet agent (not enabled: `ubiquity enroll`, then `systemctl enable --now ubiquity-agent`).
files+=(lib/systemd/system/ubiquity-agent.service)
if [[ $prefix == /usr ]]; then etc=$destdir/etc; else etc=$root/etc; fi

if ((uninstall)); then
  for f in "${files[@]}"; do rm -f "$root/$f"; done
  rmdir "$root/share/doc/opendefaults" "$root/lib/systemd/user/default.target.wants" 2>/dev/null || true
  # The settings file stays (it is the administrator's), as Debian keeps a conffile until purge.
  exit 0
fi

# Where each tool is built, and how. defaults and plutil start cold for every call (proposal
# 0008): position-dependent, and generic types' metadata made through their accessors rather
# than from mangled names (a mangled name checks the generic requirements at run time, and the
# first such check scans every protocol conformance of the binary: ~25 page faults, ~0.15 ms).
fast_start=(-Xswiftc -use-ld=lld -Xswiftc -Xclang-linker -Xswiftc -no-pie
            -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
built() { case $1 in defaults|plutil) echo .build-tools/release/$1 ;; *) echo .build/release/$1 ;; esac; }
if ((build)); then
  for t in "${tools[@]}"; do
    case $t in
      defaults|plutil) swift build -c release --static-swift-stdlib --product "$t" --scratch-path .build-tools "${fast_start[@]}" >&2 ;;
      *) swift build -c release --static-swift-stdlib --product "$t" >&2 ;;
    esac
  done
fi

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" "$root/$zshdir" \
  "$root/share/fish/vendor_completions.d" "$root/share/doc/opendefaults"
for t in "${tools[@]}"; do
  install -m 0755 "$(built "$t")" "$root/bin/$t"
  strip --strip-unneeded "$root/bin/$t"
  gzip -9 -n -c "Packaging/man/$t.1" > "$root/share/man/man1/$t.1.gz"
  chmod 0644 "$root/share/man/man1/$t.1.gz"
done
# Completions: defaults, settings, ubiquity and profiles generate their own; plutil's are files.
for shell in bash zsh fish; do
  case $shell in
    bash) dir=share/bash-completion/completions; name() { echo "$1"; } ;;
    zsh) dir=$zshdir; name() { echo "_$1"; } ;;
    fish) dir=share/fish/vendor_completions.d; name() { echo "$1.fish"; } ;;
  esac
  "$(built defaults)" completion "$shell" > "$root/$dir/$(name defaults)"
  "$(built settings)" --generate-completion-script "$shell" > "$root/$dir/$(name settings)"
  "$(built ubiquity)" --generate-completion-script "$shell" > "$root/$dir/$(name ubiquity)"
  "$(built profiles)" --generate-completion-script "$shell" > "$root/$dir/$(name profiles)"
  cp "Packaging/completions/plutil.$shell" "$root/$dir/$(name plutil)"
  chmod 0644 "$root/$dir/$(name defaults)" "$root/$dir/$(name settings)" "$root/$dir/$(name ubiquity)" "$root/$dir/$(name profiles)" "$root/$dir/$(name plutil)"
done
install -m 0644 README.md LICENSE "$root/share/doc/opendefaults/"
install -d "$root/lib/systemd/user/default.target.wants"
sed "s|/usr/bin/profiles|$prefix/bin/profiles|" Packaging/systemd/opendefaults-profiles-apply.service > "$root/$userunit"
chmod 0644 "$root/$userunit"
ln -sf ../opendefaults-profiles-apply.service "$root/lib/systemd/user/default.target.wants/opendefaults-profiles-apply.service"
install -d "$root/lib/systemd/system" "$root/lib/sysusers.d" "$etc/opendefaults"
sed "s|/usr/bin/ubiquity|$prefix/bin/ubiquity|" Packaging/systemd/ubiquity.service > "$root/lib/systemd/system/ubiquity.service"
chmod 0644 "$root/lib/systemd/system/ubiquity.service"
sed "s|/usr/bin/ubiquity|$prefix/bin/ubiquity|" Packaging/systemd/ubiquity-agent.service > "$root/lib/systemd/system/ubiquity-agent.service"
chmod 0644 "$root/lib/systemd/system/ubiquity-agent.service"
install -m 0644 Packaging/systemd/ubiquity.sysusers "$root/lib/sysusers.d/ubiquity.conf"
# The settings file is the administrator's: never replaced once there.
[[ -e $etc/opendefaults/ubiquity.plist ]] || install -m 0644 Packaging/systemd/ubiquity.plist "$etc/opendefaults/ubiquity.plist"
