# SPDX-License-Identifier: GPL-2.0
#
#   make                 build the module (against the stock kernel the VM
#                        boots, unpacked by scripts/setup.sh) and userspace
#   make KDIR=/path      build the module against another kernel tree
#   make demo            boot the VM, load the module, show the NCM link and
#                        the family (the README's main job)
#   make check           every test: host unit tests, then the VM suite;
#                        ends with "N passed, N failed"
#   make bench           benchmarks in the VM: figures and ratios, no asserts

KENV := $(shell scripts/kernel-env.sh 2>/dev/null)
KDIR ?= $(patsubst KDIR='%',%,$(filter KDIR=%,$(KENV)))
V ?= 0

CC ?= cc
CFLAGS ?= -O2 -g
export CC CFLAGS

.PHONY: all kmod userspace clean demo check bench
all: kmod userspace

kmod:
	@test -n "$(KDIR)" || { echo "no kernel tree: run scripts/setup.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) V=$(V) modules

userspace:
	$(MAKE) -C lib
	$(MAKE) -C selftests/tools
	$(MAKE) -C ip-extensions
	$(MAKE) -C usbethd

demo: all
	selftests/vm/run-vm.sh -t 600 selftests/demo.sh

check: all
	selftests/check.sh

bench: all
	selftests/vm/run-vm.sh -t 1500 selftests/bench/bench.sh
	selftests/vm/run-vm.sh -t 1500 selftests/bench/usbethd_bench.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	$(MAKE) -C lib clean
	$(MAKE) -C selftests/tools clean
	$(MAKE) -C ip-extensions clean
	$(MAKE) -C usbethd clean
	rm -rf build
