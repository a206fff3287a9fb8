# Quick start: `make run` (set up, build, show the main job) and `make check` (set up, test).
# Only deps, run and check install Debian packages (scripts/deps.sh); `make` / `make build`
# never do, so a packager building as root gets nothing installed behind its back.
SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
JOBS ?= $(shell nproc)

WIN_BUILD ?= build-windows
HW_BUILD ?= build-hw
# Every build of the Makefile keeps warnings as errors and fails when an optional
# library is missing (a plain `cmake` configure, as packagers use, has both off;
# `make build STRICT=-DPMUKIT_REQUIRE_ALL=OFF` builds with what is there).
STRICT ?= -DPMUKIT_WERROR=ON -DPMUKIT_REQUIRE_ALL=ON
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(STRICT) --log-level=WARNING >/dev/null

.PHONY: all deps build run check check-asan fuzz bench clean hwtest windows windows-check \
	abi-check abi-update

all: build

deps:
	@sh scripts/deps.sh

# Configures every time (a second or so): a build dir configured by hand without the
# strict options gets them back.
build:
	@$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS)

# The main job: counts of the built-in workload, then what this host can measure. The
# build's progress lines go to $(BUILD)/build.log (shown when it fails).
run: deps
	@$(CONFIGURE)
	@echo "building $(BUILD)/ (log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) >$(BUILD)/build.log 2>&1 || { cat $(BUILD)/build.log; exit 1; }
	$(BUILD)/pmukit stat -- $(BUILD)/touch_pages 4096
	$(BUILD)/pmukit caps

check: deps
	@$(MAKE) build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The built libpmukit.so against the committed abi/libpmukit.abi (abidiff; CI runs it).
# After an intended API change (or merging one): make abi-update, and commit the file.
abi-check: build
	@sh scripts/abi.sh check $(BUILD)/libpmukit.so

abi-update: build
	@sh scripts/abi.sh update $(BUILD)/libpmukit.so

check-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPMUKIT_SANITIZE=ON $(STRICT)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		ctest --output-on-failure -j $(JOBS)

# Each fuzz target runs FUZZ_SECONDS from the seeds in tests/fuzz/seeds/<target>/.
fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPMUKIT_FUZZ=ON -DBUILD_TESTING=OFF \
		-DPMUKIT_WERROR=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@set -e; for f in $(FUZZ_BUILD)/tests/fuzz/fuzz_*; do \
		n=$$(basename $$f); mkdir -p $(FUZZ_BUILD)/corpus/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(FUZZ_BUILD)/corpus/$$n tests/fuzz/seeds/$$n 2>&1 | tail -4; \
		test $${PIPESTATUS[0]} -eq 0; \
	done

# The hardware tests in an arm64 QEMU guest with an emulated PMU (needs root the first
# time: installs qemu-system-arm and a cross compiler, downloads Debian's arm64 kernel).
hwtest: build
	HWTEST_DIR=$(CURDIR)/$(HW_BUILD) bash scripts/hwtest.sh

# The Windows cross build (mingw-w64, -Werror): pmukit.exe, pmukit.dll + import library,
# and the test programs of tests/windows. Needs root the first time (apt-get).
windows:
	@sh scripts/deps.sh windows
	cmake -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DPMUKIT_WERROR=ON
	cmake --build $(WIN_BUILD) -j $(JOBS)

# The Wine smoke tests of the Windows build (headless, a fresh prefix under $(WIN_BUILD)).
windows-check: windows
	BUILD=$(WIN_BUILD) bash tests/windows/smoke.sh

# bench_symbolize reads the SQLite amalgamation (-O2 -g) that bench/sqlite.sh builds.
bench: build
	@sh scripts/deps.sh bench
	@for b in $(BUILD)/bench/bench_*; do echo "== $$b"; \
		case $$b in *symbolize) $$b "$$(bash bench/sqlite.sh $(BUILD)/bench-sqlite)" 100000 ;; \
		*) $$b ;; esac || exit 1; done
	@for b in bench/record.sh bench/report.sh bench/exporter.sh bench/pdb.sh bench/numa.sh; do echo "== $$b"; bash $$b $(BUILD) || exit 1; done

# Every build directory the Makefile and scripts create (build-hw holds the downloaded
# arm64 kernel too).
clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(WIN_BUILD) $(HW_BUILD)
