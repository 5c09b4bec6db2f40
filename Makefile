# rdmactl: build, test, install, package.  See README.md.
# The one place the version lives: --version, the JSON documents, the man
# pages (stamped at install), the .deb and the .rpm all take it from here.
VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config
# Every CPU builds, as `make -jN` would (a -j on the command line wins):
# a fresh clone's `make check-fast` spent 25 of its 103 s compiling one
# file at a time.
MAKEFLAGS += -j$(shell nproc)
PKGS      := libibverbs librdmacm libmnl libnl-3.0 libnl-route-3.0 json-c zlib libcrypto

# WERROR=1 (CI) turns warnings into errors; SAN=1 builds with ASan+UBSan.
WARN      := -Wall -Wextra -Wshadow -Wformat -Wformat-security -Wstrict-prototypes -Wmissing-prototypes \
	     -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN      += -Werror
endif
ifeq ($(SAN),1)
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# -O1, ASan's own advice for its builds, and the quicker compile in make
# check beside the lab (doc/testing.md).  (At -O1 GCC's truncation
# analysis sees less and warns of four deliberate truncations into fixed
# fields that the -O2 build, warnings as errors, finds fine.)
CFLAGS    ?= -O1 -g
SANWARN   := -Wno-format-truncation
# The runtimes linked in, not loaded: make check starts the ASan build
# some 4 000 times (its CLI suites), and each start resolved libasan.so's
# relocations first (21.5 -> 18.5 ms a start, user and system time).
SANLDFLAGS := -static-libasan -static-libubsan
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CFLAGS    ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(SANWARN) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) \
	      -D_GNU_SOURCE -DRDMACTL_VERSION='"$(VERSION)"' -iquote lib -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS) $(SANLDFLAGS)

# lib/'s folders, lowest first; each includes and calls only what its
# README's "Includes:" line names (tests/self/layers checks it).  See doc/layout.md.
LAYERS    := base node probe doctor launch fleet mesh report
LIB_SRC   := $(foreach l,$(LAYERS),$(sort $(wildcard lib/$(l)/*.c)))
CMD_SRC   := $(sort $(wildcard cmd/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Benches in C (bench/*.c), linked against lib/ as the unit tests are.
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(sort $(wildcard bench/*.c)))
# Helpers the tests and benches run (built with the unit tests).
TEST_TOOLS := $(BUILD)/tests/hostile-client $(BUILD)/tests/gen-probe-run
BIN       := $(BUILD)/rdmactl
MANS      := $(sort $(wildcard man/*.8))
COMPLETIONS := completion/rdmactl.bash completion/_rdmactl completion/rdmactl.fish

.PHONY: all check check-fast check-deps unit deps demo install uninstall clean lint bench
all: check-deps $(BIN) $(COMPLETIONS)

check-deps:
	@$(PKG_CONFIG) --exists $(PKGS) || { \
	  echo "Missing build libraries: $$($(PKG_CONFIG) --print-errors --exists $(PKGS) 2>&1 | head -1)"; \
	  echo "Run 'make deps' (as root) to install them."; exit 2; }

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The report page's style and script are files of their own, made here
# into the C strings of lib/report/page.h: each line quoted, its \ " and ?
# escaped; the script's lines keep their newlines, the style's are joined.
PAGE_C    := $(BUILD)/lib/report/page.c
LIB_OBJ   += $(BUILD)/lib/report/page.o
$(PAGE_C): lib/report/page.css lib/report/page.js
	@mkdir -p $(dir $@)
	{ printf '/* Made from lib/report/page.css and page.js by the Makefile: edit those. */\n'; \
	  printf '#include "report/page.h"\n\nconst char page_style[] =\n'; \
	  sed -e 's/[\\"?]/\\&/g' -e 's/^/"/' -e 's/$$/"/' lib/report/page.css; \
	  printf '"";\n\nconst char page_script[] =\n'; \
	  sed -e 's/[\\"?]/\\&/g' -e 's/^/"/' -e 's/$$/\\n"/' lib/report/page.js; \
	  printf '"";\n'; } >$@.tmp && mv $@.tmp $@

$(BUILD)/lib/report/page.o: $(PAGE_C)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN): $(CMD_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

$(BUILD)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

# Completion scripts are generated from the binary's own command table.
completion/rdmactl.bash: $(BIN)
	$(BIN) completion bash > $@
completion/_rdmactl: $(BIN)
	$(BIN) completion zsh > $@
completion/rdmactl.fish: $(BIN)
	$(BIN) completion fish > $@

$(BUILD)/tests/hostile-client: tests/tools/hostile-client.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)

# A made-up probe -w document of any size, from the link map's own code.
$(BUILD)/tests/gen-probe-run: tests/tools/gen-probe-run.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(PKG_LIBS) -lm

unit: $(UNIT_BIN) $(TEST_TOOLS) $(BENCH_BIN)

# Every test: unit, CLI, alert rules, man lint, completion, sanitizers, netns and the lab.
check: all unit
	@tests/run-all

# The everyday loop: unit and CLI tests, alert rules, layers, fixture trees, man pages; no ASan, fuzz,
# netns, packages or lab (make check, and CI, run those).
check-fast: all unit
	@FAST=1 tests/run-all

# Debian packages to build and to run every test (run as root).
DEBS_BUILD := build-essential pkg-config libibverbs-dev librdmacm-dev libmnl-dev \
	      libnl-3-dev libnl-route-3-dev libjson-c-dev zlib1g-dev libssl-dev \
	      debhelper dpkg-dev fakeroot rpm
DEBS_TEST  := qemu-system-x86 kmod busybox-static cpio rdma-core ibverbs-utils \
	      ibverbs-providers rdmacm-utils perftest infiniband-diags iproute2 nftables \
	      mandoc bash-completion zsh fish jq gojq iperf3 procps util-linux python3 strace time \
	      clang libclang-rt-14-dev valgrind \
	      xz-utils ethtool openssh-server openssh-client pdsh clustershell munge slurmctld slurmd \
	      slurm-client chromium openmpi-bin libopenmpi-dev ucx-utils tcpdump \
	      lintian rpmlint rpm2cpio prometheus prometheus-node-exporter man-db systemd bash-builtins \
	      curl openssl
# Installs them and starts or enables none of their services (the lab runs
# slurmd, munge and sshd inside its guests, never on this host).
deps:
	tests/tools/install-deps $(DEBS_BUILD) $(DEBS_TEST)

demo: all
	tests/lab/demo.sh

bench: all $(BENCH_BIN)
	@# *-lab.sh run inside the lab's guests, started by the bench beside them.
	@for b in bench/*.sh; do case $$b in *-lab.sh) continue ;; esac; [ -x "$$b" ] && "$$b"; done

lint:
	mandoc -T lint -W warning $(MANS)

# zsh's directory for packaged completions: Debian's; RHEL's is site-functions.
ZSH_COMPDIR ?= $(PREFIX)/share/zsh/vendor-completions

# The man pages' .TH line names "rdmactl" without a version in the tree:
# install stamps VERSION into it, so no page can drift from the binary.
install: all
	install -Dm755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rdmactl
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	for m in $(MANS); do \
	  sed '1s/ "rdmactl[^"]*" / "rdmactl $(VERSION)" /' $$m >$(DESTDIR)$(PREFIX)/share/man/man8/$${m#man/} && \
	  chmod 644 $(DESTDIR)$(PREFIX)/share/man/man8/$${m#man/} || exit 1; done
	install -Dm644 completion/rdmactl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rdmactl
	install -Dm644 completion/_rdmactl $(DESTDIR)$(ZSH_COMPDIR)/_rdmactl
	install -Dm644 completion/rdmactl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rdmactl.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rdmactl \
	  $(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(notdir $(MANS))) \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rdmactl \
	  $(DESTDIR)$(ZSH_COMPDIR)/_rdmactl \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/rdmactl.fish

clean:
	rm -rf $(BUILD) build-asan

# Removed from the tree, still named by the dependency files of earlier
# builds: an empty rule lets such a build remake what named it.
tests/unit/stubs.c: ;

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d) $(TEST_TOOLS:=.d) $(BENCH_BIN:=.d)
-include tests/fuzz/fuzz.mk
include pkg.mk
