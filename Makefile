# yt-gst — the two commands (demo, test), the fast tests (check) and the usual targets.
SWIFT ?= swift
PREFIX ?= /usr/local
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: demo check test test-asan build release deps test-deps clean lint conformance fuzz install bench bench-playback bench-multiroom bench-record bench-broadcast bench-control bench-rooms
SECONDS ?= 60

## Installs what is missing, builds in release mode and plays the bundled sample through the default output.
demo: deps release
	scripts/demo.sh .build/release/yt-gst samples/demo.wav

## The fast tests, in under a minute: the logic suites listed in scripts/fast-tests.txt (no pipeline, PulseAudio,
## network namespace or binary; scripts/fast-tests.sh fails the run if one needs them or it takes over 60 s).
check:
	scripts/quiet-build.sh $(SWIFT) build --build-tests
	scripts/fast-tests.sh run

## Installs what is missing and runs every test (a private PulseAudio with a null sink is started for them).
test: test-deps
	scripts/quiet-build.sh $(SWIFT) build -c release
	scripts/quiet-build.sh $(SWIFT) build --build-tests
	YT_GST_BINARY=$(CURDIR)/.build/release/yt-gst scripts/with-pulseaudio.sh $(SWIFT) test --skip-build --no-parallel
	$(MAKE) --no-print-directory test-asan
	scripts/fuzz.sh 60
	scripts/bench.sh --quick --binary $(CURDIR)/.build/release/yt-gst
	scripts/bench.sh --control --quick --binary $(CURDIR)/.build/release/yt-gst
	scripts/bench-rooms.sh --quick --binary $(CURDIR)/.build/release/yt-gst

## The fast tests (scripts/fast-tests.txt) and the appsrc lifetime test under
## AddressSanitizer, built apart in .build-asan (about 5 minutes from scratch on 2 busy cores; the run about 20 s).
## GLib's objects go through the sanitizer's allocator (G_SLICE), and a GLib critical (such as a push into a freed
## appsrc, which happens inside GStreamer where ASan does not look) stops the run. Linked with lld: ld.gold warns
## about every sanitizer symbol it cannot export, and the build must be quiet.
ASAN_TESTS = $(shell scripts/fast-tests.sh filter)|GaplessChainTests/stoppingWhileTheNextFileOpens
test-asan:
	scripts/quiet-build.sh $(SWIFT) build --build-tests -Xswiftc -sanitize=address -Xswiftc -use-ld=lld \
		--build-path .build-asan
	SWIFT_BACKTRACE=enable=no G_DEBUG=fatal-criticals G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 \
		timeout 600 $(SWIFT) test --skip-build --build-path .build-asan --no-parallel --filter '$(ASAN_TESTS)'

## The corpus conformance table for yt-gst and for GStreamer's filesrc ! wavparse (pasted into the README).
conformance: test-deps release
	scripts/conformance.sh $(CURDIR)/.build/release/yt-gst

## The side-by-side benchmarks (about 2½ hours, the multi-room rows 80 minutes of it; every run timed out and its output checked; the tables in the README):
## playback against gst-launch-1.0 filesrc ! wavparse and gst-play-1.0 (~31 min), multi-room sync against Snapcast
## (~80 min), recording against wavenc, sox and arecord (~10 min), broadcasting against gst-launch shout2send
## (~15 min), control (IPC and MPRIS) against mpv with mpv-mpris (~4 min), the rooms' control service against
## Snapcast 0.26 (~3 min). Builds release first; `make test` runs the playback, control and rooms ones once in quick
## mode. Each alone: make bench-playback, bench-multiroom, bench-record, bench-broadcast, bench-control, bench-rooms.
bench: bench-playback bench-multiroom bench-record bench-broadcast bench-control bench-rooms

bench-playback: test-deps release
	scripts/bench.sh --binary $(CURDIR)/.build/release/yt-gst

bench-multiroom: test-deps release
	scripts/bench.sh --multiroom --binary $(CURDIR)/.build/release/yt-gst

bench-record: test-deps release
	scripts/bench.sh --record --binary $(CURDIR)/.build/release/yt-gst

bench-broadcast: test-deps release
	scripts/bench.sh --broadcast --binary $(CURDIR)/.build/release/yt-gst

bench-control: test-deps release
	scripts/bench.sh --control --binary $(CURDIR)/.build/release/yt-gst

bench-rooms: test-deps release
	scripts/bench-rooms.sh --binary $(CURDIR)/.build/release/yt-gst

## Fuzzes the WAV reader for SECONDS seconds (libFuzzer, -sanitize=fuzzer,address; findings in fuzz/findings/).
fuzz:
	scripts/fuzz.sh $(SECONDS)

## Installs the binary, the templates, the man page and bash/zsh completions under $(DESTDIR)$(PREFIX).
install: release
	scripts/install.sh .build/release/yt-gst $(PREFIX) $(DESTDIR)

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

lint:
	$(SWIFT) format lint --strict -r Sources Tests

clean:
	rm -rf .build .build-asan
