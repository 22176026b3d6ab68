# tracedoc - build with `./build.sh` (which installs dependencies); this Makefile is what
# it calls. Out-of-tree: make BUILD=build (release) or make BUILD=build-asan SAN=1;
# PORTABLE=1 builds without CPU-specific code (the scalar paths arm64 uses), e.g.
# make BUILD=build-portable PORTABLE=1. FUZZ=1 CC=clang builds the libFuzzer harnesses
# of tests/fuzz (make fuzz BUILD=build-fuzz FUZZ=1 CC=clang; see tests/fuzz/README.md).
# make install [PREFIX=/usr/local] [DESTDIR=...] [FONTS=system]: bin, share/tracedoc, man1
# (gzipped), bash completion; FONTS=system links share/tracedoc/fonts to Debian's
# fonts-dejavu-core (the same files, /usr/share/fonts/truetype/dejavu) instead of copying
# the bundled ones. make uninstall removes what install wrote and the directories it made.
# Packagers' flags add to the project's: make CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2
# LDFLAGS=-Wl,-z,relro (CFLAGS come last, so their -O wins).
BUILD ?= build
SAN ?= 0
PORTABLE ?= 0
FUZZ ?= 0
PREFIX ?= /usr/local
DESTDIR ?=
WERROR ?= -Werror
PKGS = cairo pangocairo pangoft2 fontconfig xlsxwriter sqlite3 liblzma libarchive \
       libzstd zlib libisal libcrypto snappy jansson
# compiled against but not linked: the graphics libraries (src/render/pdf/gfx.c), xlsxwriter,
# SQLite, libarchive, libcrypto and snappy are loaded (dlopen, src/base/dynlib.h) when
# first used, so that a run starts without them (33 -> ~6 ms of CPU for --version); the
# test programs that call them themselves (tests/unit) link them
LAZY_PKGS = cairo pangocairo pangoft2 fontconfig xlsxwriter sqlite3 libarchive libcrypto snappy
CC ?= cc
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
WARN = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
       -Wno-missing-field-initializers -Wno-format-truncation $(WERROR)
ifeq ($(FUZZ),1)
OPT = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
      -fno-sanitize-recover=undefined -DTD_FUZZ -Wno-unknown-warning-option
WERROR =
else ifeq ($(SAN),1)
# line tables only (-g1: what a sanitizer report's file:line needs, and a faster build);
# not position-independent: a PIE start relocates the descriptors ASan keeps for every
# global and string (137 K relocations, 3.8 MB written at each start; the suite starts
# this binary ~1,400 times)
OPT = -O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
      -fno-pie -no-pie
# the sanitizer runtimes linked in (gcc): a start then relocates no libasan/libubsan, and
# the leak check at exit scans one copy of their data, not two libraries' (tracedoc
# --version: 4,350 -> 2,820 page faults, a third less CPU; the suite starts it ~1,400 times)
SAN_LDFLAGS := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-static-libasan -static-libubsan)
else
OPT = -O2 -g
endif
ifeq ($(PORTABLE),1)
OPT += -DTD_PORTABLE
endif
# the project's flags, then the packager's (CPPFLAGS, CFLAGS, LDFLAGS from the command
# line or the environment: dpkg-buildflags), so neither replaces the other
TD_CPPFLAGS = -Isrc -D_FILE_OFFSET_BITS=64 -DTD_VERSION='"$(VERSION)"' -DTD_DATADIR='"$(CURDIR)"' \
          $(shell pkg-config --cflags $(PKGS))
TD_CFLAGS = $(WARN) $(OPT)
ALL_CFLAGS = $(TD_CPPFLAGS) $(CPPFLAGS) $(TD_CFLAGS) $(CFLAGS)
LDLIBS += $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS))) -lcsv -lm -lpthread -ldl
TEST_LDLIBS = $(shell pkg-config --libs sqlite3 libarchive libcrypto)

# sources in a folder per stage (src/README.md); objects mirror the folders
SRCS := $(sort $(shell find src -name '*.c'))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIBOBJS := $(filter-out $(BUILD)/obj/cli/main.o,$(OBJS))
# the unit tests and replays link the library as an archive: each takes the objects it
# uses (a link of every object with its debug information, 31 times a build, was slow)
LIBA := $(BUILD)/libtracedoc.a
AR ?= ar
# PORTABLE=1 BASE=DIR (what `make test-builds` does): the sources whose text does not
# depend on TD_PORTABLE (they include no file naming it) compile to the same code as in
# the release build DIR, so their objects are hard links to DIR's (which must be up to
# date: build DIR first); the others are compiled here. Which file includes which comes
# from DIR's dependency files, so a source DIR has not compiled yet is compiled here.
BASE ?=
ifeq ($(PORTABLE)$(if $(BASE),1,0),11)
PORTABLE_FILES := $(shell grep -rl TD_PORTABLE src)
SHARED_OBJS := $(patsubst $(BASE)/obj/%.d,$(BUILD)/obj/%.o,$(shell \
    for d in $$(find $(BASE)/obj -name '*.d' 2>/dev/null); do \
        o=$${d%.d}.o; [ -f "$$o" ] || continue; \
        grep -qF -e TD_PORTABLE $(patsubst %,-e %,$(PORTABLE_FILES)) "$$d" || echo "$$d"; \
    done))
SHARED_OBJS := $(filter $(OBJS),$(SHARED_OBJS))
$(SHARED_OBJS): $(BUILD)/obj/%.o: $(BASE)/obj/%.o
	@mkdir -p $(dir $@)
	ln -f $< $@ 2>/dev/null || cp -p $< $@
endif
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
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tracedoc: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(SAN_LDFLAGS) $(LDLIBS)

$(LIBA): $(LIBOBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c $(LIBA) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIBA) $(LDFLAGS) $(SAN_LDFLAGS) $(LDLIBS) $(TEST_LDLIBS)

$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c $(LIBA) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -MMD -MP -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(LIBA) $(LDFLAGS) $(SAN_LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBOBJS) | $(BUILD)/fuzz
	$(CC) $(ALL_CFLAGS) -MMD -MP -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(LIBOBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests $(BUILD)/fuzz:
	mkdir -p $@

# the three builds ./build.sh test runs the tests on, in one make so that -jN keeps every
# core busy: release (build), ASan/UBSan (build-asan) side by side, then the portable
# build (build-portable), which compiles only what TD_PORTABLE changes and links the
# release build's other objects
test-builds: test-build-portable test-build-asan
test-build-release:
	+@$(MAKE) --no-print-directory BUILD=build SAN=0 PORTABLE=0 BASE= all
test-build-asan:
	+@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 PORTABLE=0 BASE= all
test-build-portable: test-build-release
	+@$(MAKE) --no-print-directory BUILD=build-portable SAN=0 PORTABLE=1 BASE=build all

BINDIR = $(DESTDIR)$(PREFIX)/bin
DATADIR = $(DESTDIR)$(PREFIX)/share/tracedoc
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
FONTS ?= bundled
SYSTEM_FONTDIR ?= /usr/share/fonts/truetype/dejavu
INSTALL_DIRS = $(BINDIR) $(DATADIR)/templates $(DATADIR)/fonts $(MANDIR) $(COMPDIR)
# the directories install made (none of them existed), deepest first: what uninstall removes
DIRS_FILE = $(DATADIR)/installed-dirs

install: $(BUILD)/tracedoc
	@made=""; for d in $(INSTALL_DIRS); do \
	    while [ ! -d "$$d" ] && [ "$$d" != / ] && [ "$$d" != . ]; do made="$$made$$d\n"; d=$$(dirname "$$d"); done; \
	done; \
	install -d $(INSTALL_DIRS) && \
	printf "$$made" | awk 'NF && !seen[$$0]++ { print length($$0) "\t" $$0 }' | sort -rn | cut -f2- >>$(DIRS_FILE)
	install -m 755 $(BUILD)/tracedoc $(BINDIR)/tracedoc
	install -m 644 templates/*.tdt $(DATADIR)/templates/
ifeq ($(FONTS),system)
	for f in fonts/*.ttf; do \
	    [ -f "$(SYSTEM_FONTDIR)/$${f#fonts/}" ] || { echo "$(SYSTEM_FONTDIR)/$${f#fonts/}: missing (apt-get install fonts-dejavu-core)" >&2; exit 1; }; \
	    ln -sf "$(SYSTEM_FONTDIR)/$${f#fonts/}" "$(DATADIR)/fonts/$${f#fonts/}"; \
	done
else
	install -m 644 fonts/*.ttf fonts/LICENSE-DejaVu fonts/README.md $(DATADIR)/fonts/
endif
	gzip -9n <doc/tracedoc.1 >$(MANDIR)/tracedoc.1.gz && chmod 644 $(MANDIR)/tracedoc.1.gz
	install -m 644 doc/tracedoc.bash $(COMPDIR)/tracedoc

uninstall:
	rm -f $(BINDIR)/tracedoc $(MANDIR)/tracedoc.1.gz $(MANDIR)/tracedoc.1 $(COMPDIR)/tracedoc
	@dirs=$$(cat $(DIRS_FILE) 2>/dev/null); rm -rf $(DATADIR); \
	for d in $$dirs; do rmdir "$$d" 2>/dev/null || true; done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

.PHONY: all clean fuzz install uninstall test-builds test-build-release test-build-asan test-build-portable
