// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Spoken prompts above the engine: the `speech` config, the spoken form of the screen's messages,
/// and the player's speech requests by mode (the engine's side is SpokenPromptTests).
@Suite struct SpeechTests {
    private func parse(_ text: String) throws(ConfigError) -> Config {
        try Config.parse(Array(text.utf8), file: "config.json")
    }

    @Test func theSpeechConfigIsReadWithItsDefaults() throws {
        #expect(try parse("{}").speech == SpeechConfig(mode: nil, language: "en", volume: 80))
        let c = try parse(#"{"speech": {"mode": "names", "language": "de", "volume": 60}}"#)
        #expect(c.speech == SpeechConfig(mode: .names, language: "de", volume: 60))
    }

    @Test func aTrackPausesForAPromptUnlessDuckIsOnWhichLowersIt15dBByDefault() throws {
        #expect(try parse("{}").speech.duck == false)
        let c = try parse(#"{"speech": {"duck": true}}"#)
        #expect(c.speech.duck && c.speech.duckDb == -15)
        #expect(try parse(#"{"speech": {"duck": true, "duckDb": -20}}"#).speech.duckDb == -20)
    }

    @Test(arguments: [
        (
            #"{"speech": {"mode": "loud"}}"#,
            #"config.json: speech.mode: expected one of "off", "prompts", "names", got "loud""#
        ),
        (#"{"speech": {"volume": 120}}"#, "config.json: speech.volume: expected an integer 0…100, got 120"),
        (
            #"{"speech": {"language": "en us"}}"#,
            #"config.json: speech.language: expected an espeak-ng voice name such as "en" or "de", got "en us""#
        ),
        (
            #"{"speech": {"voice": "en"}}"#,
            "config.json: speech.voice: unknown key (known keys: duck, duckDb, language, mode, volume)"
        ),
        (#"{"speech": {"duck": "yes"}}"#, #"config.json: speech.duck: expected true or false, got "yes""#),
        (#"{"speech": {"duckDb": 6}}"#, "config.json: speech.duckDb: expected a number -40…-3, got 6"),
    ])
    func aBadSpeechConfigNamesTheKey(text: String, message: String) {
        #expect(throws: ConfigError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func theDefaultModeSpeaksOnlyWithoutAScreen() throws {
        let board = try BoardProfile.load(file: TestPaths.repository + "/boards/rpi4.json")
        let resolved = ResolvedConfig(config: try parse("{}"), board: board)
        #expect(resolved.speechMode(hasScreen: false) == .prompts)
        #expect(resolved.speechMode(hasScreen: true) == .off)
        let chosen = ResolvedConfig(config: try parse(#"{"speech": {"mode": "off"}}"#), board: board)
        #expect(chosen.speechMode(hasScreen: false) == .off)
    }

    @Test(arguments: [
        (
            MessageState(title: "New card", detail: "Hold the big button to link it to 'The Gruffalo'"),
            "New card. Hold the big button to link it to The Gruffalo"
        ),
        (MessageState(title: "Insert a USB stick with music"), "Insert a USB stick with music"),
        (
            MessageState(title: "No playable music files", detail: "on the USB stick"),
            "No playable music files on the USB stick"
        ),
        (MessageState(title: "Sleep in 30 min"), "Sleep timer set to 30 minutes"),
        (MessageState(title: "Volume at most 60 %"), "Volume limit 60 percent"),
        (
            MessageState(title: "Shutting down", detail: "Safe to unplug in a moment"),
            "Shutting down. Safe to unplug in a moment"
        ),
        (MessageState(title: "Scanning…", detail: "120 tracks", kind: .progress), "Scanning"),
        (
            MessageState(title: "Cannot play Song.flac", detail: "/media/usb0/Song.flac: bad header", kind: .error),
            "Cannot play Song.flac"
        ),
        (MessageState(title: "Card unlinked", detail: "card 04A1B2C3"), "Card unlinked"),
        (MessageState(title: "Don't stop"), "Don't stop"),
    ])
    func eachMessageHasItsSpokenForm(message: MessageState, words: String) {
        #expect(SpokenForm.text(message) == words)
    }

    @Test func aLongFolderNameIsSpokenAsItsFirst80Characters() {
        let name = String(repeating: "a.", count: 100)
        let spoken = SpokenForm.text(BrowseItem(title: name))
        #expect(spoken == String(name.prefix(SpokenForm.maxNameCharacters)))
    }

    @Test func aLongAlbumInANewCardPromptIsCutAtAWord() {
        let album = String(repeating: "Gruffalo ", count: 300)
        let spoken = SpokenForm.text(MessageState(title: "New card", detail: "Hold Select to link it to \(album)"))
        #expect(spoken.count <= "New card. ".count + SpokenForm.maxNameCharacters)
        #expect(spoken.hasPrefix("New card. Hold Select to link it to Gruffalo"))
        #expect(spoken.hasSuffix("Gruffalo"))
    }

    @Test func aMessageIsSpokenOnceWhileShownAndNotAtAllWhenOff() {
        var announcer = SpeechAnnouncer(mode: .prompts)
        let message = ScreenState.message(MessageState(title: "Sleep in 15 min"))
        #expect(announcer.follow(message) == "Sleep timer set to 15 minutes")
        #expect(announcer.follow(message) == nil, "a refresh is not a new message")
        var off = SpeechAnnouncer(mode: .off)
        #expect(off.follow(message) == nil)
    }

    @Test func progressIsNotSpoken() {
        var announcer = SpeechAnnouncer(mode: .prompts)
        #expect(
            announcer.follow(.message(MessageState(title: "Scanning…", detail: "12 tracks", kind: .progress))) == nil)
        #expect(announcer.follow(.message(MessageState(title: "No music", kind: .info))) == "No music")
    }

    @Test func namesModeSaysTheCollectionNextCollectionMovesToFromNowPlaying() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        var said: [String] = []
        rig.player.speechMode = .names
        rig.player.listen(to: .speech) { if case .speak(let words) = $0 { said.append(words) } }
        try rig.playFirst()
        let before = said.count
        try rig.press(.nextCollection)
        #expect(said.count == before + 1, "said: \(said)")
        let names = rig.collections(.album).map(\.name)
        let last = said.last ?? ""
        #expect(names.contains { last.hasSuffix($0) }, "says a collection's name: \(last)")
    }

    @Test func namesModeSaysTheCollectionABrowseMoveSelects() {
        let items = ["The Gruffalo", "Room on the Broom"].map { BrowseItem(title: $0, subtitle: nil, artworkKey: nil) }
        var names = SpeechAnnouncer(mode: .names)
        var prompts = SpeechAnnouncer(mode: .prompts)
        let first = ScreenState.browse(BrowseState(categoryLabel: "Albums", items: items, selectedIndex: 0))
        let second = ScreenState.browse(BrowseState(categoryLabel: "Albums", items: items, selectedIndex: 1))
        #expect(names.follow(first) == nil, "the list appearing is not a move")
        #expect(names.follow(second) == "Room on the Broom")
        let artists = ScreenState.browse(
            BrowseState(
                categoryLabel: "Artists", items: [BrowseItem(title: "Julia Donaldson", subtitle: nil, artworkKey: nil)])
        )
        #expect(names.follow(artists) == "Artists. Julia Donaldson")
        #expect(prompts.follow(first) == nil && prompts.follow(second) == nil)
    }

    @Test(arguments: [SpeechConfig.Mode.prompts, .off])
    func thePlayersMessageBecomesASpeechRequestByMode(mode: SpeechConfig.Mode) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        var spoken: [String] = []
        rig.player.speechMode = mode
        rig.player.listen(to: .speech) { if case .speak(let words) = $0 { spoken.append(words) } }
        try rig.press(.sleep)
        #expect(spoken == (mode == .off ? [] : ["Sleep timer set to 15 minutes"]))
    }

    @Test func aVolumeUpPressAtTheCeilingSaysTheLimitIsReached() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) {
            $0.volumeLimits = VolumeLimits(0...60)
            $0.volumeAtBoot = 55
        }
        var spoken: [String] = []
        rig.player.speechMode = .prompts
        rig.player.listen(to: .speech) { if case .speak(let words) = $0 { spoken.append(words) } }
        try rig.press(.volumeUp)
        #expect(spoken.isEmpty, "55 → 60: not yet at the limit")
        try rig.press(.volumeUp)
        #expect(spoken == ["Volume limit reached"])
    }
}
