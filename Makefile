# tracedoc - build with `./build.sh` (which installs dependencies); this Makefile is what
# it calls. Out-of-tree: make BUILD=build (release) or make BUILD=build-asan SAN=1.
BUILD ?= build
SAN ?= 0
WERROR ?= -Werror
PKGS = cairo pangocairo pangoft2 fontconfig xlsxwriter sqlite3 liblzma libarchive \
       libzstd zlib libdeflate libisal libcrypto snappy jansson
CC ?= cc
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
WARN = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
       -Wno-missing-field-initializers -Wno-format-truncation $(WERROR)
ifeq ($(SAN),1)
OPT = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
OPT = -O2 -g
endif
CFLAGS += $(WARN) $(OPT) -D_FILE_OFFSET_BITS=64 -DTD_VERSION='"$(VERSION)"' -DTD_DATADIR='"$(CURDIR)"' \
          $(shell pkg-config --cflags $(PKGS))
LDLIBS += $(shell pkg-config --libs $(PKGS)) -lcsv -lm -lpthread

SRCS := $(sort $(wildcard src/*.c))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIBOBJS := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(sort $(wildcard tests/unit/test_*.c)))

all: $(BUILD)/tracedoc $(TESTS)

$(BUILD)/obj/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)/obj
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tracedoc: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIBOBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(LIBOBJS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/obj $(BUILD)/tests:
	mkdir -p $@

clean:
	rm -rf $(BUILD)

.PHONY: all clean
