# Wrapper targets: the two commands a new user needs are `make run` and `make test`.
BUILD   ?= build
JOBS    ?= $(shell nproc)
# FT_WERROR: compiler warnings fail the build (on in CI; `make test CMAKE_FLAGS=...` to change).
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DFT_WERROR=ON
# GUI and rendering tests need an X display; use Xvfb when there is none.
XRUN := $(if $(DISPLAY),,xvfb-run -a -s "-screen 0 1920x1080x24")

.PHONY: all deps build run install test bench docs docs-images tsan asan fuzz format format-check tidy clean

all: build

deps:
	./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

run: build
	$(if $(DISPLAY),,$(error No X display: run `make run` from a desktop session, or try `xvfb-run -a make run`))
	$(BUILD)/bin/floortwin $(ARGS)

# The program and its desktop entry under PREFIX (default ~/.local, no root needed), with the
# entry as this user's handler of floortwin:// links.
PREFIX ?= $(HOME)/.local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)
	-update-desktop-database $(PREFIX)/share/applications 2>/dev/null
	-xdg-mime default floortwin.desktop x-scheme-handler/floortwin

test: build
	cd $(BUILD) && $(XRUN) ctest --output-on-failure -j$(JOBS) $(CTEST_ARGS)

# Every figure (ARGS="--filter sim." for some); a full run rewrites docs/performance.md.
bench: build
	$(XRUN) scripts/bench.sh $(BUILD) $(ARGS)

# The pictures of the guides, made by the app (docs/images/*.shots say how; GUIDES="noc-wall" for
# one guide's), and the command-line reference's generated part (test_docs checks it).
docs-images: build
	$(XRUN) scripts/docs-images.sh $(BUILD) $(GUIDES)
docs: build
	python3 scripts/reference.py $(BUILD)/bin/floortwin docs/command-line.md

# ThreadSanitizer build of the model, importers and their tests (Qt's GUI and Mesa are not
# instrumented, so the GUI tests are not part of this run); the suites labelled `threads` in
# tests/CMakeLists.txt run, the ones whose processes have more than one thread. Everything runs
# ~10x slower under TSan: QtTest's per-function watchdog gets an hour instead of five minutes.
# Only the suites labelled `threads` are built (the others would be compiled under TSan for
# nothing): the configured tree's ctest names them, and each suite's target has its test's name.
tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFT_TSAN=ON -DFT_MODEL_ONLY=ON
	cmake --build build-tsan -j$(JOBS) --target $$(cd build-tsan && ctest -N -L threads | sed -n 's/^ *Test *#[0-9]*: //p')
	cd build-tsan && QTEST_FUNCTION_TIMEOUT=3600000 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" ctest -L threads --output-on-failure -j$(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole tree with clang 16, every
# test suite run under it (GUI suites under Xvfb). Any report fails the run; leak reports are
# suppressed only inside Mesa, Qt and the system libraries they load (tests/lsan.supp says why,
# one by one). The same tree builds the fuzzers (`make fuzz`): the parsers are compiled once,
# with the sanitizers and libFuzzer's coverage, for the suites and the fuzzers alike.
FUZZ_SECONDS ?= 120
ASAN_TREE := CXX=clang++-16 CC=clang-16 cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
             -DFT_ASAN=ON -DFT_FUZZ=ON -DFT_BENCH=OFF -DFT_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
ASAN_ENV := ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1" \
            UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
            LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0" \
            QTEST_FUNCTION_TIMEOUT=1800000
asan: deps
	$(ASAN_TREE)
	cmake --build build-asan -j$(JOBS)
	cd build-asan && $(ASAN_ENV) $(XRUN) ctest --output-on-failure -j$(JOBS) $(CTEST_ARGS)

# libFuzzer (clang 16, ASan + UBSan) on the Prometheus text parser, the JSON file formats
# (floors, scenarios, tours, demos), BMS/mapping/inventory/NetBox/Redfish payloads, PromQL and
# long-format answers, Slurm's answers, the recording's chunk codec and whole damaged recordings, each
# FUZZ_SECONDS long (default 120), in the tree `make asan` builds; JOBS of them at a time (each
# fuzzer is one process on one core for a fixed time).
FUZZERS := prometheus-text json-files payloads answers sample-codec recording
fuzz: deps
	$(ASAN_TREE)
	cmake --build build-asan -j$(JOBS) --target $(addprefix fuzz_,$(subst -,_,$(FUZZERS)))
	$(MAKE) --no-print-directory -j$(JOBS) $(addprefix fuzz-run-,$(FUZZERS))
# One fuzzer's run (the fuzz target's pieces; CMake's own Makefile runs custom targets one by one).
fuzz-run-%:
	cmake --build build-asan --target fuzz-$*

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

# Fails when any tracked C++ file differs from .clang-format (run `make format` to fix).
format-check: deps
	git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror
	@echo "format-check: every file follows .clang-format"

# clang-tidy (the checks in .clang-tidy, every finding an error) on every source folder and the
# tests, JOBS files at a time over the Release build's compile database; a file whose inputs
# have not changed since a clean check is not checked again (scripts/tidy.py: the cache is
# ~/.cache/floortwin/tidy). Debian 12's clang 16 reports __cpp_concepts below C++20's value,
# which hides GCC 12's <expected>; the extra arguments tell it the truth (clang 16 implements
# what <expected> uses).
TIDY ?= clang-tidy-16
TIDY_ARGS := --extra-arg=-std=c++2b --extra-arg=-U__cpp_concepts --extra-arg=-D__cpp_concepts=202002L \
             --extra-arg=-Wno-unknown-warning-option
tidy: build
	python3 scripts/tidy.py $(BUILD) $(TIDY) $(JOBS) $(TIDY_ARGS)

clean:
	rm -rf $(BUILD) build-tsan build-asan
