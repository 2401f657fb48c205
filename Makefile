# KioskPlayer: two commands on a fresh machine do all set-up: `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
RELEASE_BIN = .build/release/kiosk-player
DEBUG_BIN = .build/debug/kiosk-player
SWIFT_SOURCES = Sources Tests Package.swift
# Another architecture for test, deb and system-test: amd64 or arm64, built with Debian trixie's
# swiftlang in cached trees (deploy/trees). Empty: this machine with the Swift on PATH.
ARCH ?=

.PHONY: all deps build release test test-unit tsan asan fuzz soak powercut demo bench format format-check system-test web-test browser-test deb image image-boot image-virt image-raspi4 update-bundle image-update-test clean

all: build

deps:
	@bash deploy/install-deps.sh

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

# Warnings are errors (Package.swift sets treatAllWarnings for every Swift target).
ifeq ($(ARCH),)
# Quiet: the build says only its errors, the suite only its failures (with the player's log lines of
# each failed test), skips and summary, last (Tests/quiet.sh; the whole output in .build/test-output.log,
# or KIOSK_TEST_VERBOSE=1).
test: deps
	$(SWIFT) build --build-tests --quiet $(BUILD_FLAGS)
	bash Tests/quiet.sh $(SWIFT) test --skip-build $(BUILD_FLAGS)
else
# The suite built for ARCH (cross) and run under qemu-user in that architecture's tree.
# TEST_ARGS: more `swift test` arguments (--filter, --skip).
test:
	bash deploy/install-deps.sh --cross
	bash deploy/trees/test-arch.sh $(ARCH) $(TEST_ARGS)
endif

# The unit suite: every test but those tagged `integration` (real time, real processes, big generated
# sticks: Tests/KioskTestSupport/Tags.swift). Neither swift-testing 6.0.3 nor 6.3.1 filters by tag from
# the command line (`swift test --skip` takes regular expressions on test IDs), so Tests/unit-skip.sh
# reads the tagged suites and tests from the sources and prints them as `--skip` arguments.
test-unit: deps
	$(SWIFT) build --build-tests --quiet $(BUILD_FLAGS)
	skips=$$(bash Tests/unit-skip.sh) && bash Tests/quiet.sh $(SWIFT) test --skip-build $(BUILD_FLAGS) $$skips

# The suite under ThreadSanitizer, and under AddressSanitizer with UndefinedBehaviorSanitizer, each
# in its own build directory (Tests/Sanitizers/run.sh). TEST_ARGS: more `swift test` arguments.
tsan: deps
	bash Tests/Sanitizers/run.sh thread $(TEST_ARGS)

asan: deps
	bash Tests/Sanitizers/run.sh address $(TEST_ARGS)

# libFuzzer on every parser of untrusted input for FUZZ_SECONDS each (Tests/Fuzz/run.sh);
# FUZZ_TARGETS picks some (kiosk-fuzz list names them).
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Tests/Fuzz/run.sh $(FUZZ_TARGETS)

# The soak run in the QEMU guest for SOAK_MINUTES (Tests/System/soak/soak.sh): storms of buttons and
# encoder turns, stick and sound-card loss, MPD clients; the player must stay up with flat memory.
SOAK_MINUTES ?= 60
soak: deps
	bash deploy/install-deps.sh --system-test
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	SOAK_MINUTES=$(SOAK_MINUTES) SYSTEST_TIMEOUT=$$(( $(SOAK_MINUTES) * 60 + 600 )) bash Tests/System/run.sh Tests/System/soak/soak.sh

# The power-cut test (Tests/System/powercut/powercut.sh): POWERCUT_CYCLES boots of the QEMU guest on one
# ext4 state disk, each cut (QEMU killed) at a random instant; every boot must find the state last
# written or being written, and open or rebuild the SQLite index.
POWERCUT_CYCLES ?= 50
powercut: deps
	bash deploy/install-deps.sh --system-test
	$(SWIFT) build $(BUILD_FLAGS)
	POWERCUT_CYCLES=$(POWERCUT_CYCLES) bash Tests/System/powercut/powercut.sh

# .build/deb/kiosk-player_<version>_<arch>.deb for Debian / Raspberry Pi OS trixie (default: arm64).
deb:
	bash deploy/install-deps.sh --cross
	bash deploy/debian/build-deb.sh $(or $(ARCH),arm64)

# .build/image/kiosk-player_<version>_arm64.img.xz: the SD-card image for the Raspberry Pi 3, 4, 400,
# Zero 2 W and CM4 (deploy/image/build-image.sh): Debian trixie arm64 packages (mmdebstrap, cached in
# /var/cache/kiosk-image by its inputs) and the arm64 .deb, made here first (`make deb ARCH=arm64`)
# unless IMAGE_DEB names one already made. IMAGE_OPTIONS: build-image.sh's (--no-xz: the .img only, as CI).
IMAGE_DEB ?=
IMAGE_OPTIONS ?=
image:
	bash deploy/install-deps.sh --image
ifeq ($(IMAGE_DEB),)
	bash deploy/install-deps.sh --cross
	bash deploy/debian/build-deb.sh arm64
	bash deploy/image/build-image.sh $(IMAGE_OPTIONS)
else
	bash deploy/image/build-image.sh --deb $(IMAGE_DEB) $(IMAGE_OPTIONS)
endif

# The image booted on QEMU's emulated Raspberry Pi 3 B (deploy/image/boot-raspi.sh): READY from the
# read-only root, the data partition grown, the settings applied. IMAGE: another image file.
image-boot:
	bash deploy/install-deps.sh --image
	bash deploy/image/boot-raspi.sh $(IMAGE)

# The same image's root on QEMU's -M virt for what the emulated Pi lacks (deploy/image/boot-virt.sh):
# buttons through gpio-sim, sound through snd-aloop; a USB stick plugged in plays bit-exact.
image-virt:
	bash deploy/install-deps.sh --image
	bash deploy/image/boot-virt.sh $(IMAGE)

# The image on QEMU's emulated Raspberry Pi 4 B (deploy/image/boot-raspi4.sh: trixie's QEMU 10 from
# a tree of its own; bookworm's 7.2 has no raspi4b): READY from the read-only root.
image-raspi4:
	bash deploy/install-deps.sh --image
	bash deploy/image/boot-raspi4.sh $(IMAGE)

# .build/update/kiosk-player_<version>_arm64.raucb: a signed RAUC bundle of the image's root slot and
# boot files (deploy/image/update-bundle.sh; docs/updates.md). IMAGE: the image (default the newest);
# BUNDLE_OPTIONS: --version V, --out FILE. Release keys from KIOSK_UPDATE_KEY/_CERT/_KEYRING, never
# from the repository; without them the development key signs (test-only).
BUNDLE_OPTIONS ?=
update-bundle:
	bash deploy/install-deps.sh --image
	bash deploy/image/update-bundle.sh $(if $(IMAGE),--image $(IMAGE)) $(BUNDLE_OPTIONS)

# Updates end to end on QEMU -M virt (deploy/image/test-update.sh): bundles from a stick, the slot's
# one try, mark-good, refused bundles, a rollback. Not in CI (≈ 30 min of TCG; docs/reliability.md).
image-update-test:
	bash deploy/install-deps.sh --image
	bash deploy/image/test-update.sh $(IMAGE)

# The player on a generated demo library: keyboard as buttons, terminal (or PNG) as screen.
demo: build
	$(DEBUG_BIN) demo

bench: release
	bash Benchmarks/run-all.sh .build/release

# The phone page against a real kiosk-player demo and kiosk-web (Tests/Web): the attacks (≈ 35 s), and
# Debian's Chromium through Selenium at 360×740 (≈ 60-90 s; its screenshots in .build/web-test/).
web-test: deps
	$(SWIFT) build $(BUILD_FLAGS)
	python3 Tests/Web/attacks.py

browser-test: deps
	bash deploy/install-deps.sh --browser-test
	$(SWIFT) build $(BUILD_FLAGS)
	/usr/bin/python3 Tests/Web/browser.py

format:
	$(SWIFT) format format -i -r $(SWIFT_SOURCES)

format-check:
	$(SWIFT) format lint --strict -r $(SWIFT_SOURCES)

# The guest runs the debug player and, for the kernel-device scenarios (90, 92), the test bundle.
ifeq ($(ARCH),)
system-test: deps
	bash deploy/install-deps.sh --system-test
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	bash Tests/System/run.sh
else
# ARCH=arm64: Debian trixie arm64 under qemu-system-aarch64 (TCG), the player and test bundle
# cross-built with Debian's swiftlang (Tests/System/README.md). SYSTEST_ONLY picks scenarios.
system-test:
	bash deploy/install-deps.sh --system-test-arm64
	bash deploy/trees/swift-build.sh $(ARCH) --build-tests
	SYSTEST_ARCH=$(ARCH) bash Tests/System/run.sh
endif

clean:
	rm -rf .build
