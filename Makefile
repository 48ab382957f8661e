# Installs OpenDefaults' tools on any Linux distribution (Debian users can
# build a package instead: `make deb`). Both go through Packaging/install.sh.
#
#   make install PREFIX=/usr/local [DESTDIR=/staging]
#   make uninstall PREFIX=/usr/local
#   make deb
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: install uninstall deb
install:
	Packaging/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)"
uninstall:
	Packaging/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)" --uninstall
deb:
	Packaging/build-deb.sh
