# tracedoc - build with `./build.sh` (which installs dependencies); this Makefile is what
# it calls. Out-of-tree: make BUILD=build (release) or make BUILD=build-asan SAN=1;
# PORTABLE=1 builds without CPU-specific code (the scalar paths arm64 uses), e.g.
# make BUILD=build-portable PORTABLE=1. FUZZ=1 CC=clang builds the libFuzzer harnesses
# of tests/fuzz (make fuzz BUILD=build-fuzz FUZZ=1 CC=clang; see tests/fuzz/README.md).
# make install [PREFIX=/usr/local] [DESTDIR=...]: bin, share/tracedoc, man1, bash completion.
BUILD ?= build
SAN ?= 0
PORTABLE ?= 0
FUZZ ?= 0
PREFIX ?= /usr/local
DESTDIR ?=
WERROR ?= -Werror
PKGS = cairo pangocairo pangoft2 fontconfig xlsxwriter sqlite3 liblzma libarchive \
       libzstd zlib libisal libcrypto snappy jansson
CC ?= cc
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
WARN = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
       -Wno-missing-field-initializers -Wno-format-truncation $(WERROR)
ifeq ($(FUZZ),1)
OPT = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
      -fno-sanitize-recover=undefined -DTD_FUZZ -Wno-unknown-warning-option
WERROR =
else ifeq ($(SAN),1)
OPT = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
OPT = -O2 -g
endif
ifeq ($(PORTABLE),1)
OPT += -DTD_PORTABLE
endif
CFLAGS += $(WARN) $(OPT) -Isrc -D_FILE_OFFSET_BITS=64 -DTD_VERSION='"$(VERSION)"' -DTD_DATADIR='"$(CURDIR)"' \
          $(shell pkg-config --cflags $(PKGS))
LDLIBS += $(shell pkg-config --libs $(PKGS)) -lcsv -lm -lpthread

# sources in a folder per stage (src/README.md); objects mirror the folders
SRCS := $(sort $(shell find src -name '*.c'))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIBOBJS := $(filter-out $(BUILD)/obj/cli/main.o,$(OBJS))
TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/unit/test_*.c)))
# each harness: a replay program in every build (runs the kept inputs through the same
# entry point), a libFuzzer program in the FUZZ=1 build
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAYS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/replay_%,$(FUZZ_SRCS))
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

ifeq ($(FUZZ),1)
all: $(FUZZERS)
else
all: $(BUILD)/tracedoc $(TESTS) $(REPLAYS)
endif
fuzz: $(FUZZERS)

# -MMD -MP: each object depends on the headers it includes (build/obj/**/*.d)
$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tracedoc: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIBOBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c $(LIBOBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -MMD -MP -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(LIBOBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBOBJS) | $(BUILD)/fuzz
	$(CC) $(CFLAGS) -MMD -MP -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(LIBOBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests $(BUILD)/fuzz:
	mkdir -p $@

BINDIR = $(DESTDIR)$(PREFIX)/bin
DATADIR = $(DESTDIR)$(PREFIX)/share/tracedoc
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions

install: $(BUILD)/tracedoc
	install -d $(BINDIR) $(DATADIR)/templates $(DATADIR)/fonts $(MANDIR) $(COMPDIR)
	install -m 755 $(BUILD)/tracedoc $(BINDIR)/tracedoc
	install -m 644 templates/*.tdt $(DATADIR)/templates/
	install -m 644 fonts/* $(DATADIR)/fonts/
	install -m 644 doc/tracedoc.1 $(MANDIR)/tracedoc.1
	install -m 644 doc/tracedoc.bash $(COMPDIR)/tracedoc

uninstall:
	rm -f $(BINDIR)/tracedoc $(MANDIR)/tracedoc.1 $(COMPDIR)/tracedoc
	rm -rf $(DATADIR)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

.PHONY: all clean fuzz install uninstall
