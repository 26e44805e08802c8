# reckon - one non-recursive Makefile (the check target re-invokes make only
# to build a second, sanitized tree).
#
# Libraries, all from Debian packages (tests/harness/deps.sh installs them):
#   libpq     PostgreSQL client            (libpq-dev)
#   xxHash    XXH3-128 row hashes          (libxxhash-dev)
#   libcsv    CSV parsing                  (libcsv-dev)
#   cmocka    unit tests                   (libcmocka-dev)
#   (INI files: src/core/ini.c, not the packaged libinih, whose build caps
#   a line at 200 bytes and lets a duplicated key pass; see src/core/ini.h)
#   jansson   summary.json / --format json: correct string escaping of
#             arbitrary UTF-8 key values without a hand-rolled writer
#             (libjansson-dev)
#   CRoaring  deletion vectors of Delta tables (libroaring-dev); zlib's
#             crc32 checks them (zlib1g-dev)
# and one that Debian does not package:
#   DuckDB    Parquet (Delta tables' data and checkpoints) through its C API;
#             a pinned build fetched by tests/harness/duckdb.sh into
#             $(DUCKDB_DIR) (see there why).  Not linked: reckon
#             dlopen()s it when a Delta side first needs it (src/io/duckapi.h),
#             found through the binary's rpath, so a PostgreSQL-only run never
#             loads it; make install puts it in $(PREFIX)/lib/reckon and
#             relinks the installed binary's rpath to point there

VERSION   := 0.1.0
PREFIX    ?= /usr/local
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR    ?= $(PREFIX)/share/doc/reckon
BUILD     ?= build

# The shared Delta tables the tests read in place (docs/testing.md):
# $RK_DELTA_TABLES, else beside this tree, else beside the tree this one
# was cloned from (a clone made elsewhere, e.g. in /tmp, finds them too).
# (expanded once: an exported variable is expanded for every command)
ifeq ($(origin RK_DELTA_TABLES),undefined)
RK_DELTA_TABLES := $(firstword $(wildcard $(CURDIR)/../shared/data/delta \
	$(dir $(abspath $(shell git -C $(CURDIR) config --get remote.origin.url 2>/dev/null)))shared/data/delta))
endif
export RK_DELTA_TABLES
SANITIZE  ?=
WERROR    ?=

DUCKDB_VERSION := 1.4.4
DUCKDB_DIR ?= .cache/duckdb-$(DUCKDB_VERSION)
DUCKDB_LIB := $(DUCKDB_DIR)/lib/libduckdb.so
DUCKDB_H   := $(DUCKDB_DIR)/include/duckdb.h
LIBDIR     ?= $(PREFIX)/lib/reckon

PG_INCLUDE := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)

# The project's own flags live in RK_*, so `make CFLAGS=-O0` adds to them
# instead of silently dropping -std=c11, the warnings or the include paths.
CC        ?= cc
CFLAGS    ?= -O2 -g
# The preprocessor flags but the version (quoted for make's shell here, for
# a nested sh -c in lint).
RK_INCFLAGS := -Isrc -I$(BUILD)/gen -I$(PG_INCLUDE) -isystem $(DUCKDB_DIR)/include -D_DEFAULT_SOURCE \
               -D_POSIX_C_SOURCE=200809L
RK_CPPFLAGS := $(RK_INCFLAGS) -DRK_VERSION='"$(VERSION)"'
RK_CFLAGS := -std=c11 -Wall -Wextra -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Wvla \
             -Wshadow -Wno-unused-parameter -pthread -MMD -MP
RK_LDLIBS := -lpq -lxxhash -lcsv -ljansson -lroaring -lz -ldl -lm -pthread
# Where the binaries' dlopen() finds libduckdb.so: the fetched copy for
# everything built here (reckon, the tests, the tools); make install relinks
# with $(LIBDIR).
RK_RPATH  ?= $(abspath $(DUCKDB_DIR)/lib)
RK_LDFLAGS := -Wl,-rpath,$(RK_RPATH)
ifneq ($(WERROR),)
RK_CFLAGS += -Werror
endif
# SANITIZER=address,undefined (or one of them); SANITIZE=1 means both.
ifneq ($(SANITIZE),)
SANITIZER ?= address,undefined
endif
ifneq ($(SANITIZER),)
RK_CFLAGS  += -fsanitize=$(SANITIZER) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
RK_LDFLAGS += -fsanitize=$(SANITIZER)
endif
# COVERAGE=1: gcc's line counts (make coverage).  Set here, not as CFLAGS
# on the command line, which make would hand to the extension's PGXS build
# too: a server cannot load a module that needs libgcov.
ifneq ($(COVERAGE),)
override CFLAGS := -O0 -g
RK_CFLAGS  += --coverage
RK_LDFLAGS += --coverage
endif

# src/tools holds build-time programs with a main() of their own.
SRCS      := $(shell find src -name '*.c' -not -path 'src/ext/*' -not -path 'src/tools/*' | sort)
OBJS      := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS)) $(BUILD)/obj/gen/rk_sql.o $(BUILD)/obj/gen/rk_tpl.o
LIB_OBJS  := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
SQL_FILES := $(sort $(wildcard sql/*.sql))
TPL_FILES := $(sort $(wildcard src/report/*.in))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
DOCGEN    := $(BUILD)/tools/rk-docgen
MAN_TPLS  := $(sort $(wildcard docs/man/*))
DOCS      := README.md $(sort $(wildcard docs/*.md))

.PHONY: all deps unit integration check check-one demo bench install clean lab-reports help \
        ext ext-install ext-ready ext-check bench-pushdown bench-delta bench-instr bench-job bench-repair bench-keyseg bench-peers bench-scale bench-damage bench-bigvalue fdw-demo man completion \
        deb check-deb fuzz fuzz-bins fuzz-run coverage coverage-check test-counts format format-check lint structure-check

all: $(BUILD)/reckon man completion

help:
	@echo "The inner loop (CONTRIBUTING.md):"
	@echo "make            build $(BUILD)/reckon, its manual pages and bash completion (WERROR=1: warnings are errors)"
	@echo "make unit       every cmocka unit test, no server; one alone: $(BUILD)/tests/test_NAME"
	@echo "make integration  every integration file against a private PostgreSQL;"
	@echo "                one: [RK_CASE=WORD] bash tests/integration/run.sh $(BUILD)/reckon test_FILE"
	@echo "make check-one  unit and integration on one tree (SANITIZE=1 BUILD=build/asan: under ASan+UBSan)"
	@echo "make ext-check  the extension's REGRESS tests (src/ext/sql/) on a private cluster"
	@echo "make format     apply .clang-format to src/ and tests/unit/ (make format-check: fail on a difference)"
	@echo "make lint       cppcheck and clang-tidy (.clang-tidy) over src/"
	@echo "make structure-check  the tree's rules: sql/ embeds only what src/ uses, includes point down the layers without cycles, function and file sizes"
	@echo "make test-counts  how many unit tests, integration cases, REGRESS tests and fuzz targets there are"
	@echo ""
	@echo "The whole suite and its companions:"
	@echo "make demo       private PostgreSQL cluster, sample data, reckon check (the README's first command)"
	@echo "make check      format-check, structure-check, ext-check, the suite plain and under ASan+UBSan, a short fuzz run, the Debian packages"
	@echo "make coverage   line coverage of the unit and integration suites, per directory (build/cov/)"
	@echo "make coverage-check  the same, failing below the floors (src/core, src/io, src/check: 90%; .ci/run)"
	@echo "make fuzz       every libFuzzer harness of tests/fuzz for FUZZ_SECONDS each (default $(FUZZ_SECONDS))"
	@echo "make bench      benchmarks as ratios to the physical floor, written to reports/bench/"
	@echo "make install    install the binary, manual pages, bash completion and docs into PREFIX (default /usr/local)"
	@echo "make deb        Debian packages reckon and postgresql-15-reckon, into build/deb/"
	@echo "make ext        build the PostgreSQL extension for --pushdown (build/ext/reckon.so)"
	@echo "make ext-install install it into the PostgreSQL server's directories (root)"
	@echo "make bench-pushdown  streamed against pushed-down digests, as ratios to their floors"
	@echo "make bench-delta     a Delta table against PostgreSQL beside DuckDB's floor; a 30-day table's last day; the writer: a 1M-row load, a repair of 4 hours of 5M"
	@echo "make bench-job  a job of four tables, one by one against --job and --job --parallel 2"
	@echo "make bench-keyseg  a check by key segments (no --time) of 5M rows against the time-window check of the same table"
	@echo "make bench-repair  4 changed rows of 1M repaired row by row against --replace-interval: rows written, time"
	@echo "make bench-instr     instructions per row (callgrind, needs valgrind): floor, pushdown, client"
	@echo "make bench-peers     reckon against pg_comparator (Debian postgresql-comparator), clean and damaged"
	@echo "make bench-scale     50M rows per side, clean and damaged, both modes (needs ~25 GB in /tmp)"
	@echo "make bench-damage    peak RSS and seconds per finding at 50k, 500k and 5M findings"
	@echo "make bench-bigvalue  peak RSS of check and repair over one 1 GB text value (needs ~10 GB memory)"
	@echo "make fdw-demo   --pushdown against a table sharded over two clusters with postgres_fdw"

$(BUILD)/reckon: $(OBJS) | $(DUCKDB_LIB)
	$(CC) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $^ $(RK_LDLIBS) $(LDLIBS)

# DuckDB is fetched, not built: a fresh clone's first make fetches it (the
# same as make deps does).
$(DUCKDB_LIB) $(DUCKDB_H) &:
	sh tests/harness/duckdb.sh $(DUCKDB_DIR)

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/gen/rk_sql.h $(BUILD)/gen/rk_tpl.h $(DUCKDB_H)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) -c -o $@ $<

# Every SQL statement lives in sql/ as a file that runs as-is in psql; it is
# compiled into the binary as const char rk_sql_<name>[].
$(BUILD)/gen/rk_sql.h $(BUILD)/gen/rk_sql.c &: $(SQL_FILES) tools/embed-sql.sh
	@mkdir -p $(BUILD)/gen
	sh tools/embed-sql.sh $(BUILD)/gen $(SQL_FILES)

# The report's HTML pages are templates in src/report/*.in, filled by the
# report module (report/tpl.h); compiled in as const char rk_tpl_<name>[].
$(BUILD)/gen/rk_tpl.h $(BUILD)/gen/rk_tpl.c &: $(TPL_FILES) tools/embed-tpl.sh
	@mkdir -p $(BUILD)/gen
	sh tools/embed-tpl.sh $(BUILD)/gen $(TPL_FILES)

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) -c -o $@ $<

# The test hooks: each tests/hooks/NAME.c in place of the product's
# src/io/NAME.c (io/fault.h's faults; the readers a test registers,
# rk_reader_extra_for in io/reader_impl.h), in the unit tests and in $(FAULTS_BIN), the suite's binary
# for the integration cases that break a run on purpose.  build/reckon, make
# install and the packages never hold a hook.
HOOK_OBJS := $(patsubst tests/hooks/%.c,$(BUILD)/obj/hooks/%.o,$(sort $(wildcard tests/hooks/*.c)))
TEST_OBJS := $(filter-out $(patsubst $(BUILD)/obj/hooks/%,$(BUILD)/obj/io/%,$(HOOK_OBJS)),$(LIB_OBJS)) $(HOOK_OBJS)
FAULTS_BIN := $(BUILD)/tests/reckon-faults

$(FAULTS_BIN): $(BUILD)/obj/main.o $(TEST_OBJS) | $(DUCKDB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $^ $(RK_LDLIBS) $(LDLIBS)

$(BUILD)/obj/hooks/%.o: tests/hooks/%.c | $(BUILD)/gen/rk_sql.h $(BUILD)/gen/rk_tpl.h
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) -c -o $@ $<

# The tests' checker of the Delta tables reckon writes (tests/harness/deltacheck.h):
# linked into the unit tests, and rk-deltacheck for the integration tests.
CHECK_OBJS := $(BUILD)/obj/harness/deltacheck.o
DELTACHECK := $(BUILD)/tests/rk-deltacheck

$(BUILD)/obj/harness/%.o: tests/harness/%.c | $(BUILD)/gen/rk_sql.h $(BUILD)/gen/rk_tpl.h $(DUCKDB_H)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) -c -o $@ $<

$(DELTACHECK): tests/harness/rk-deltacheck.c $(CHECK_OBJS) $(TEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) -Itests/harness $(RK_CFLAGS) $(CFLAGS) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(CHECK_OBJS) $(TEST_OBJS) $(RK_LDLIBS) $(LDLIBS)

$(BUILD)/tests/test_%: tests/unit/test_%.c $(TEST_OBJS) $(CHECK_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) -Itests/harness $(RK_CFLAGS) $(CFLAGS) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(TEST_OBJS) $(CHECK_OBJS) $(RK_LDLIBS) $(LDLIBS) -lcmocka

# Manual pages and bash completion, written from the option table by a
# program linked with the same objects as reckon (src/tools/docgen.c); the
# prose around the options is in docs/man/.  The pages are regenerated as a set,
# so a command that left the table leaves no page behind.
$(DOCGEN): src/tools/docgen.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) \
		$(RK_LDLIBS) $(LDLIBS)

man: $(BUILD)/man/.generated
$(BUILD)/man/.generated: $(DOCGEN) $(MAN_TPLS)
	@rm -rf $(BUILD)/man
	@mkdir -p $(BUILD)/man
	$(DOCGEN) man docs/man $(BUILD)/man
	@touch $@

completion: $(BUILD)/completion/reckon
$(BUILD)/completion/reckon: $(DOCGEN)
	@mkdir -p $(dir $@)
	$(DOCGEN) completion $@

deps:
	@sh tests/harness/deps.sh

unit: $(UNIT_BINS)
	@sh tests/harness/run-unit.sh $(UNIT_BINS)

# The integration tests' own Delta writer (tests/harness/deltawrite.c): DuckDB
# writes the Parquet files, it writes the log; not part of reckon.
DELTAWRITE := $(BUILD)/tests/rk-deltawrite
$(DELTAWRITE): tests/harness/deltawrite.c | $(DUCKDB_LIB) $(DUCKDB_H)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) $(RK_LDFLAGS) $(LDFLAGS) -o $@ $< \
		-ljansson -L$(DUCKDB_DIR)/lib -lduckdb $(LDLIBS)

integration: all $(FAULTS_BIN) ext-ready $(DELTAWRITE) $(DELTACHECK)
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) RECKON_FAULTS=$(abspath $(FAULTS_BIN)) \
		bash tests/integration/run.sh $(abspath $(BUILD)/reckon)

# One pass of the suite on one build tree.
check-one: all unit integration

# The README's test command: install what is missing, then the suite with
# warnings as errors and the suite under AddressSanitizer + UBSan, side by
# side (tests/harness/check-both.sh), then a short fuzz run and the packages.
check: deps
	$(MAKE) --no-print-directory format-check
	$(MAKE) --no-print-directory structure-check
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory WERROR=1 ext-ready
	$(MAKE) --no-print-directory WERROR=1 ext-check
	@bash tests/harness/check-both.sh "$(MAKE)"
	$(MAKE) --no-print-directory WERROR=1 FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) FUZZ_SEED=$(FUZZ_CHECK_SEED) fuzz
	$(MAKE) --no-print-directory check-deb

demo: deps all
	@bash tests/harness/demo.sh $(abspath $(BUILD)/reckon)

# Every benchmark, each against its floor measured in the same run.
bench: deps all ext-ready
	@bash tests/harness/bench.sh $(abspath $(BUILD)/reckon)
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-drill.sh $(abspath $(BUILD)/reckon)
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-pushdown.sh $(abspath $(BUILD)/reckon)
	@bash tests/harness/bench-job.sh $(abspath $(BUILD)/reckon)
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-repair.sh $(abspath $(BUILD)/reckon)
	@bash tests/harness/bench-keyseg.sh $(abspath $(BUILD)/reckon)

bench-keyseg: deps all
	@bash tests/harness/bench-keyseg.sh $(abspath $(BUILD)/reckon)

bench-job: deps all
	@bash tests/harness/bench-job.sh $(abspath $(BUILD)/reckon)

# Row-level repair against --replace-interval (N rows, default 1000000):
# reports/bench/repair-N.md
bench-repair: deps all ext-ready
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-repair.sh $(abspath $(BUILD)/reckon)

# A Delta table against PostgreSQL beside DuckDB's own floor, and the last
# day of a 30-day table (N rows, default 5000000): reports/bench/delta-N.md
bench-delta: deps all ext-ready $(DELTAWRITE)
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-delta.sh $(abspath $(BUILD)/reckon)
	@bash tests/harness/bench-delta-write.sh $(abspath $(BUILD)/reckon)

bench-pushdown: deps all ext-ready
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-pushdown.sh $(abspath $(BUILD)/reckon)

# reckon against a peer on the same tables (not part of make check: as root
# it installs the peer's Debian packages itself).
bench-peers: deps all ext-ready
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-peers.sh $(abspath $(BUILD)/reckon)

# 50M rows per side (not in CI): time per row against 5M, peak RSS.
bench-scale: deps all ext-ready
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-scale.sh $(abspath $(BUILD)/reckon)

# Memory and time as the findings grow (50k, 500k, 5M): reports/bench/damage.md
bench-damage: deps all
	@bash tests/harness/bench-damage.sh $(abspath $(BUILD)/reckon)

# Peak RSS over one large text value (SIZE bytes, default 1e9): reports/bench/bigvalue.md
bench-bigvalue: deps all
	@bash tests/harness/bench-bigvalue.sh $(abspath $(BUILD)/reckon) >reports/bench/bigvalue.md.tmp
	@mv reports/bench/bigvalue.md.tmp reports/bench/bigvalue.md && cat reports/bench/bigvalue.md

# Instructions per row (callgrind): the noise-free companion of the above.
bench-instr: deps all ext-ready
	@RK_EXT_DIR=$(abspath $(EXT_DIR)) bash tests/harness/bench-instr.sh $(abspath $(BUILD)/reckon)

fdw-demo: deps all ext-ready
	@bash tests/harness/fdw-demo.sh $(abspath $(BUILD)/reckon)

lab-reports: deps all
	@bash tests/harness/lab-reports.sh $(abspath $(BUILD)/reckon)

# The installed binary is linked again from the same objects, its rpath the
# installed library's directory instead of the fetched copy's (relinked on
# every install: LIBDIR may differ from the last one).
comma := ,
install: all
	@mkdir -p $(BUILD)/install
	$(CC) $(filter-out -Wl$(comma)-rpath$(comma)%,$(RK_LDFLAGS)) -Wl,-rpath,$(LIBDIR) $(LDFLAGS) \
		-o $(BUILD)/install/reckon $(OBJS) $(RK_LDLIBS) $(LDLIBS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DOCDIR)/examples/systemd $(DESTDIR)$(DOCDIR)/examples/cron $(DESTDIR)$(LIBDIR)
	install -m 0755 $(BUILD)/install/reckon $(DESTDIR)$(PREFIX)/bin/reckon
	install -m 0644 $(DUCKDB_LIB) $(DESTDIR)$(LIBDIR)/libduckdb.so
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(BUILD)/completion/reckon $(DESTDIR)$(BASHCOMPDIR)/reckon
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 0644 contrib/systemd/* $(DESTDIR)$(DOCDIR)/examples/systemd/
	install -m 0755 contrib/cron/reckon-nightly $(DESTDIR)$(DOCDIR)/examples/cron/
	install -m 0644 contrib/cron/reckon.cron $(DESTDIR)$(DOCDIR)/examples/cron/

# Debian packages (debian/), built from a copy of the tree in build/deb so
# that neither dpkg-buildpackage's clean nor its output in the parent
# directory touches the work tree.  check-deb also installs them into a
# throw-away root and runs the installed reckon.
deb: deps
	@bash tests/harness/deb.sh build

check-deb: deps
	@bash tests/harness/deb.sh check

# The PostgreSQL extension behind `reckon check --pushdown` (docs/pushdown.md).
# PGXS wants a makefile of its own (src/ext/Makefile); it builds out of tree
# in build/ext, the same for every BUILD (no sanitizer inside a server).
# ext-ready installs it into the server's directories when they are writable
# and the installed copy is not this build; otherwise the tests load
# build/ext/reckon.so by path.
EXT_DIR := build/ext

ext:
	@mkdir -p $(EXT_DIR)
	@$(MAKE) --no-print-directory -C $(EXT_DIR) -f $(abspath src/ext/Makefile) $(if $(WERROR),RK_WERROR=-Werror)

ext-install: ext
	@$(MAKE) --no-print-directory -C $(EXT_DIR) -f $(abspath src/ext/Makefile) install

ext-ready: ext
	@sh tests/harness/ext-install.sh $(EXT_DIR)

# The extension's REGRESS tests (src/ext/sql/, src/ext/expected/): PGXS's
# installcheck against a private cluster (tests/harness/ext-check.sh).
ext-check: ext
	@bash tests/harness/ext-check.sh $(EXT_DIR)

# Fuzzing (docs/testing.md).  A harness is tests/fuzz/fuzz_NAME.c, which
# defines LLVMFuzzerTestOneInput, plus its seed corpus in
# tests/fuzz/corpus/NAME/ (and optionally a dictionary tests/fuzz/NAME.dict):
# nothing here names a target.  The harnesses and the whole of src/ are built
# by clang with libFuzzer, ASan and UBSan in their own tree, without -Werror
# (the gcc builds are the warnings gate; clang's extra warnings are shown,
# not fatal); inputs the fuzzer finds go to $(FUZZ_BUILD)/corpus/NAME, which
# later runs start from, and never into the committed seeds.  `make fuzz`
# draws a new seed each run (FUZZ_SEED empty) to explore; make check's short
# run takes a fixed one, so that the gate replays the same mutations on every
# machine and a finding is a change's, not the draw's (docs/testing.md).
FUZZ_CC            ?= clang-14
FUZZ_SECONDS       ?= 60
FUZZ_SEED          ?=
FUZZ_CHECK_SECONDS ?= 15
FUZZ_CHECK_SEED    ?= 1
FUZZ_BUILD         := build/fuzz
FUZZ_NAMES         := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

fuzz: deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) WERROR=$(WERROR) \
		SANITIZER=fuzzer-no-link,address,undefined fuzz-run

fuzz-bins: $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_NAMES))

fuzz-run: fuzz-bins
	@FUZZ_SEED='$(FUZZ_SEED)' sh tests/harness/fuzz.sh $(FUZZ_SECONDS) $(BUILD) $(FUZZ_NAMES)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(RK_CPPFLAGS) $(CPPFLAGS) $(RK_CFLAGS) $(CFLAGS) $(RK_LDFLAGS) -fsanitize=fuzzer $(LDFLAGS) \
		-o $@ $< $(LIB_OBJS) $(RK_LDLIBS) $(LDLIBS)

# Line coverage (docs/testing.md): the unit and integration suites run once
# against a gcc --coverage build in $(COV_BUILD) (counts from earlier runs
# are cleared first), then gcovr reports per file and per directory
# ($(COV_BUILD)/coverage.md; COVERAGE_REPORT=reports/coverage.md also copies
# it there).  A failing suite fails the target, after the report.
# coverage-check is the same and also fails when src/core, src/io or
# src/check is below its floor (COVERAGE_FLOORS); .ci/run runs it after make
# check.
COV_BUILD := build/cov

coverage: deps
	@mkdir -p $(COV_BUILD)
	@find $(COV_BUILD) -name '*.gcda' -delete
	@sh tests/harness/coverage.sh $(COV_BUILD) stamp
	@rc=0; $(MAKE) --no-print-directory BUILD=$(COV_BUILD) COVERAGE=1 check-one || rc=$$?; \
	sh tests/harness/coverage.sh $(COV_BUILD) $(if $(COVERAGE_CHECK),check) || exit $$?; \
	$(if $(COVERAGE_REPORT),cp $(COV_BUILD)/coverage.md $(COVERAGE_REPORT);) exit $$rc

coverage-check:
	@$(MAKE) --no-print-directory COVERAGE_CHECK=1 coverage

# How many tests of each kind there are, counted from the sources.
test-counts:
	@sh tests/harness/count-tests.sh

# The code's style is .clang-format (clang-format-14); make format applies it
# and format-check (part of make check) fails on any file it would change:
# the C sources of src/ and tests/unit/.
CLANG_FORMAT ?= clang-format-14
FORMAT_SRCS  := $(sort $(shell find src tests/unit -name '*.[ch]'))

format:
	@$(CLANG_FORMAT) -i $(FORMAT_SRCS)

# The rules of the tree a compiler does not check (CONTRIBUTING.md): sql/
# embeds only what src/ uses; src/'s includes point down the layers, with no
# cycle between modules; no function over 120 lines without its reason, no
# file over 1,200 (tests/harness/structure.sh, which checks itself first;
# tests/harness/structure-exceptions lists what is still over).
structure-check:
	@bash tests/harness/structure.sh

format-check:
	@$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SRCS) || \
		{ echo "format-check: the files above differ from .clang-format: run make format" >&2; exit 1; }

# Static analysis of src/ (the extension, built against PostgreSQL's headers,
# aside): cppcheck's warnings and portability checks, and clang-tidy's checks
# of .clang-tidy; any finding fails.  LINT_JOBS clang-tidy processes at once.
CLANG_TIDY ?= clang-tidy-14
LINT_JOBS  ?= 2
LINT_SRCS  := $(sort $(shell find src -name '*.c' -not -path 'src/ext/*'))
LINT_CPPFLAGS := $(RK_INCFLAGS) -DRK_VERSION=\"$(VERSION)\"

lint: $(BUILD)/gen/rk_sql.h $(BUILD)/gen/rk_tpl.h
	cppcheck --quiet --std=c11 --enable=warning,portability --inline-suppr --error-exitcode=1 \
		-j $(LINT_JOBS) $(LINT_CPPFLAGS) $(LINT_SRCS)
	@printf '%s\n' $(LINT_SRCS) | xargs -P $(LINT_JOBS) -n 4 sh -c '$(CLANG_TIDY) --quiet "$$@" -- -std=c11 \
		$(LINT_CPPFLAGS) 2>/dev/null' clang-tidy || { echo "lint: clang-tidy found the above (.clang-tidy)" >&2; exit 1; }
	@echo "lint: cppcheck and clang-tidy found nothing"

clean:
	rm -rf build

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(DOCGEN).d $(HOOK_OBJS:.o=.d)
-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(patsubst %,$(BUILD)/fuzz/fuzz_%.d,$(FUZZ_NAMES))
