# SPDX-License-Identifier: GPL-2.0
#
#   make                 build the module for every kernel of the matrix
#                        (scripts/kernels.conf, unpacked by scripts/setup.sh),
#                        each with its own compiler, into build/kmod/KERNEL/,
#                        and userspace
#   make KERNELS=6.12    the same for the kernels named (by series, release
#                        or ABI; also for check, demo and bench)
#   make KDIR=/path      build the module in the tree against another kernel
#   make demo            boot the VM, load the module, plug a gadget posing as
#                        a cellular modem and show usbethd at work (the
#                        README's main job; default kernel: the newest)
#   make check           every test: host unit tests, then the VM suite on
#                        each kernel; ends with "N passed, N failed"
#   make check-debug     the VM suite and the debug-only tests on the debug
#                        kernel (7.3 rebuilt from Debian's source with
#                        lockdep, KASAN, kmemleak, ref trackers, failslab,
#                        netdevsim: scripts/build-debug-kernel.sh, built
#                        once and cached; DEBUG_FLAVOUR=debug-fixed: the
#                        same with upstream/'s kernel fixes)
#   make bench           benchmarks in the VM: figures and ratios, no asserts
#   make install         PREFIX=/usr/local DESTDIR=: the files the Debian
#                        packages hold, laid out the same way: the library
#                        (shared and static), headers and .pc, the CLI and
#                        the daemon linked to libusbeth.so.0, profiles, man
#                        pages, bash completion, unit, udev rule, and the
#                        module's source for DKMS with its dkms.conf and a
#                        modules-load.d entry (LIBDIR, UNITDIR, UDEVDIR,
#                        ... as usual)
#   make deb             the Debian packages, built in a build root of each
#                        release (DEB_RELEASES, default: bookworm trixie)
#                        into build/deb/RELEASE/, checked with that
#                        release's lintian
#   make check-packages  install those packages into a fresh Debian 12 and
#                        13 root, boot each in the VM (systemd, udev, the
#                        stock kernel), plug a modem, purge, boot again
#   make uapi            regenerate uapi/linux/usbeth.h from uapi/usbeth.yaml
#                        with the kernel's ynl-gen-c.py (make check fails
#                        when the two differ)

KERNELS ?=
DEBUG_FLAVOUR ?= debug
export KERNELS
KLABELS := $(shell KERNELS='$(KERNELS)' scripts/kernel-env.sh --list 2>/dev/null)
V ?= 0

CC ?= cc
CFLAGS ?= -O2 -g
export CC CFLAGS

.PHONY: all kmod userspace clean demo check check-debug bench bench-data install install-docs deb check-packages uapi

VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
# systemd's and udev's own directories where their .pc files say (/lib on
# Debian 12, /usr/lib on 13)
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
UDEVDIR ?= $(or $(shell pkg-config --variable=udevdir udev 2>/dev/null),/lib/udev)/rules.d
MODLOADDIR ?= $(PREFIX)/lib/modules-load.d
DKMSDIR ?= /usr/src/usbeth-$(VERSION)
# the README, NEWS and docs/ with the data the profiles cite, so that an
# installed user can check a profile's claim where the profile names it
DOCDIR ?= $(PREFIX)/share/doc/usbethd
DEB_RELEASES ?= bookworm trixie
all: kmod userspace

ifneq ($(KDIR),)
kmod:
	$(MAKE) -C $(KDIR) M=$(CURDIR) V=$(V) modules
else
kmod: $(addprefix kmod-,$(KLABELS))
	@test -n "$(KLABELS)" || { scripts/kernel-env.sh --list; \
		echo "no kernel to build for: run scripts/setup.sh or pass KDIR=" >&2; exit 1; }
kmod-%:
	+scripts/build-kmod.sh $* V=$(V)
endif

userspace:
	$(MAKE) -C lib
	$(MAKE) -C selftests/tools
	$(MAKE) -C ip-extensions
	$(MAKE) -C usbethd

# the demo's kernel: the last of the selection, the newest of the matrix
DEMO_KERNEL = $(lastword $(KLABELS))
demo: all
	selftests/vm/run-vm.sh -K $(DEMO_KERNEL) -t 600 selftests/demo.sh

check: all
	selftests/check.sh

check-debug: userspace
	DEBUG_FLAVOUR=$(DEBUG_FLAVOUR) selftests/check.sh --debug

bench: all
	for k in $(KLABELS); do \
		selftests/vm/run-vm.sh -K $$k -t 1500 selftests/bench/bench.sh && \
		selftests/vm/run-vm.sh -K $$k -t 1500 selftests/bench/usbethd_bench.sh && \
		selftests/vm/run-vm.sh -K $$k -t 1500 selftests/bench/usbethd_storm_bench.sh || exit 1; \
	done

# the data plane under each configuration and profile, every kernel of the
# selection: build/bench/report.md and plots (docs/performance.md is generated
# from data files kept in docs/performance/: scripts/docs-tables.py)
bench-data: all
	scripts/bench-data.sh $(KLABELS)

install:
	$(MAKE) -C lib install PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR)
	$(MAKE) -C ip-extensions install LINK=shared PREFIX=$(PREFIX) BINDIR=$(BINDIR) \
		MANDIR=$(MANDIR)
	$(MAKE) -C usbethd install LINK=shared PREFIX=$(PREFIX) SBINDIR=$(SBINDIR) \
		MANDIR=$(MANDIR) SYSCONFDIR=$(SYSCONFDIR) UNITDIR=$(UNITDIR) UDEVDIR=$(UDEVDIR)
	install -d $(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/uapi/linux $(DESTDIR)$(MODLOADDIR)
	install -m 0644 kmod/*.c kmod/*.h kmod/Kbuild $(DESTDIR)$(DKMSDIR)/kmod/
	install -m 0644 uapi/linux/usbeth.h $(DESTDIR)$(DKMSDIR)/uapi/linux/
	install -m 0644 packaging/dkms.Kbuild $(DESTDIR)$(DKMSDIR)/Kbuild
	sed 's/#MODULE_VERSION#/$(VERSION)/' packaging/dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf
	install -m 0644 packaging/modules-load.conf $(DESTDIR)$(MODLOADDIR)/usbeth.conf
	$(MAKE) install-docs

install-docs:
	install -d $(DESTDIR)$(DOCDIR)/docs/performance/archive \
		$(DESTDIR)$(DOCDIR)/docs/performance/late \
		$(DESTDIR)$(DOCDIR)/docs/performance/kernels \
		$(DESTDIR)$(DOCDIR)/docs/performance/emulated
	install -m 0644 README.md NEWS $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	for d in . archive late kernels emulated; do \
		install -m 0644 $$(find docs/performance/$$d -maxdepth 1 -type f) \
			$(DESTDIR)$(DOCDIR)/docs/performance/$$d/ || exit 1; done

deb:
	scripts/build-deb.sh $(DEB_RELEASES)

check-packages: deb
	selftests/packages/check-packages.sh

uapi:
	scripts/ynl-gen.sh --mode uapi --header -o uapi/linux/usbeth.h

clean:
	$(if $(KDIR),-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null)
	$(MAKE) -C lib clean
	$(MAKE) -C selftests/tools clean
	$(MAKE) -C ip-extensions clean
	$(MAKE) -C usbethd clean
	rm -rf build
