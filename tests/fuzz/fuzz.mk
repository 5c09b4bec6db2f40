# libFuzzer targets, one per parser: tests/fuzz/fuzz_NAME.c -> $(FUZZ_BUILD)/fuzz_NAME.
# Included by the Makefile.
#
#   make fuzz              build every target, run each FUZZ_SECONDS (60) on a
#                          copy of tests/fuzz/corpus/NAME; one PASS/FAIL line each
#   make fuzz-regress      replay tests/fuzz/regressions/NAME and the corpus once
#   make fuzz-build        only build
#   make fuzz-replay       what fuzz-regress replays, through this build's own
#                          objects and tests/fuzz/replay.c (make check: SAN=1)
#   FUZZ_TARGETS="envparse nft"   a subset
#
# lib/ is rebuilt with clang's coverage instrumentation and ASan+UBSan in
# $(FUZZ_BUILD).

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 -g -O1 $(filter-out -Werror,$(WARN)) $(FUZZ_SAN) $(PKG_CFLAGS) \
		-D_GNU_SOURCE -DRDMACTL_VERSION='"$(VERSION)"' -iquote lib -MMD -MP

FUZZ_ALL     := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(FUZZ_BUILD)/lib/report/page.o
FUZZ_AUX_OBJ := $(FUZZ_BUILD)/tests/fuzz/util.o

.PHONY: fuzz fuzz-build fuzz-regress fuzz-replay
# Objects made through the pattern rules below are kept between builds.
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_AUX_OBJ) $(FUZZ_ALL:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# The report page's strings, made by the Makefile's rule.
$(FUZZ_BUILD)/lib/report/page.o: $(PAGE_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_AUX_OBJ) $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(PKG_LIBS) -lm

fuzz-build: check-deps $(FUZZ_BINS)

fuzz: fuzz-build
	@tests/fuzz/run -t $(FUZZ_SECONDS) -b $(FUZZ_BUILD) $(FUZZ_TARGETS)

fuzz-regress: fuzz-build
	@tests/fuzz/run -r -b $(FUZZ_BUILD) $(FUZZ_TARGETS)

# make fuzz-replay (make check's, with BUILD=build-asan SAN=1): what
# fuzz-regress replays, through the targets linked with this build's own
# objects and tests/fuzz/replay.c in place of libFuzzer: no clang, and no
# second sanitized build of lib/ (43 CPU seconds of make check's).
REPLAY_DIR  := $(BUILD)/fuzz-replay
REPLAY_BINS := $(FUZZ_TARGETS:%=$(REPLAY_DIR)/fuzz_%)
$(REPLAY_DIR)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/util.o $(BUILD)/tests/fuzz/replay.o \
		$(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(PKG_LIBS) -lm

fuzz-replay: check-deps $(REPLAY_BINS)
	@tests/fuzz/run -r -b $(REPLAY_DIR) $(FUZZ_TARGETS)
-include $(patsubst %,$(BUILD)/tests/fuzz/%.d,$(FUZZ_ALL:%=fuzz_%) util replay)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_AUX_OBJ:.o=.d) $(FUZZ_ALL:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.d)

# Regenerate the probe seeds with the protocol's encoder after a layout change.
.PHONY: fuzz-probe-seeds
fuzz-probe-seeds: $(FUZZ_BUILD)/probe_seeds
	$(FUZZ_BUILD)/probe_seeds tests/fuzz/corpus
$(FUZZ_BUILD)/probe_seeds: tests/fuzz/probe_seeds.c lib/probe/probe_proto.c lib/probe/probe_proto.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -iquote lib -o $@ tests/fuzz/probe_seeds.c lib/probe/probe_proto.c

# Regenerate the devlink seeds from the messages the unit tests parse.
.PHONY: fuzz-devlink-seeds
fuzz-devlink-seeds: $(FUZZ_BUILD)/devlink_seeds
	@mkdir -p tests/fuzz/corpus/devlink
	$(FUZZ_BUILD)/devlink_seeds tests/fuzz/corpus
$(FUZZ_BUILD)/devlink_seeds: tests/fuzz/devlink_seeds.c tests/unit/devlink_msgs.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -o $@ tests/fuzz/devlink_seeds.c $(PKG_LIBS)
