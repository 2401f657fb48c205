// SPDX-License-Identifier: GPL-3.0-or-later
import KioskTestSupport
import Testing

/// Libraries that only some boxes need are opened with dlopen on first use, not linked: a player
/// that never speaks or resamples does not map (and relocate) them, nor what they bring along.
@Suite struct LibrariesLoadedOnFirstUseTests {
    /// What the dynamic loader maps when the player starts, listed (as ldd does) without running it.
    private func librariesMappedAtStart() -> String {
        var environment = currentEnvironment()
        environment["LD_TRACE_LOADED_OBJECTS"] = "1"
        let listing = run(TestPaths.playerBinary, [], environment: environment)
        #expect(listing.status == 0, "\(listing.errors)")
        #expect(listing.output.contains("libFLAC"), "the listing is the player's: \(listing.output)")
        return listing.output
    }

    @Test(arguments: [
        "libespeak-ng",  // the first spoken prompt opens it
        "libpulse",  // libespeak-ng's (through libpcaudio)
        "libsoxr",  // the first resampler opens it
        "libgomp",  // libsoxr's
    ])
    func thePlayerStartsWithout(library: String) {
        let mapped = librariesMappedAtStart()
        #expect(!mapped.contains(library), "\(mapped)")
    }
}
