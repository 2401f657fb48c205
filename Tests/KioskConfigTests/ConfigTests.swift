// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct ConfigTests {
    func parse(_ text: String) throws(ConfigError) -> Config { try Config.parse(Array(text.utf8), file: "config.json") }

    @Test func emptyObjectGivesTheDocumentedDefaults() throws {
        let c = try parse("{}")
        #expect(c.board == "auto")
        #expect(c.mediaRoots == ["/media/kiosk", "/media", "/mnt", "/run/media"])
        #expect(c.volume == 70)
        #expect(c.audio.bufferMs == 60)
        #expect(c.audio.ringSeconds == 2)
        #expect(c.inputs.longPressMs == 600)
        #expect(c.inputs.repeatDelayMs == 400)
        #expect(c.inputs.repeatMs == 150)
        #expect(c.mpd.maxClients == 8)
        #expect(c.screen.theme == "dark")
    }

    @Test func everyKeyIsRead() throws {
        let c = try parse(
            #"""
            {"board": "pirate-audio", "mediaRoots": ["/media/kiosk"], "stateDirectory": "/tmp/state", "volume": 40,
             "repeat": true,
             "audio": {"device": "hw:0", "fallbackDevices": ["default"], "mixer": "PCM", "bufferMs": 80, "ringSeconds": 1.5,
                       "realtimePriority": 0},
             "screen": {"type": "png", "pngDirectory": "/tmp/frames", "rotation": 90, "theme": "light", "idleOffSeconds": 60,
                        "maxFramesPerSecond": 10},
             "inputs": {"debounceMs": 10, "longPressMs": 800, "repeatDelayMs": 300, "repeatMs": 100, "keyboard": false,
                        "script": "/tmp/events.jsonl", "keymap": {"A": {"press": "stop"}}},
             "mpd": {"socket": "/run/kiosk/mpd.sock", "listen": "127.0.0.1:6600", "password": "pw", "maxClients": 4}}
            """#)
        #expect(c.board == "pirate-audio")
        #expect(c.repeatQueue)
        #expect(c.audio.device == .alsa(pcm: "hw:0"))
        #expect(c.audio.fallbackDevices == [.alsa(pcm: "default")])
        #expect(c.screen.type == .png)
        #expect(c.audio.realtimePriority == 0)
        #expect(c.screen.rotation == 90)
        #expect(c.inputs.script == "/tmp/events.jsonl")
        #expect(c.inputs.keymap["A"]?["press"]?.string == "stop")
        #expect(c.mpd.listen == "127.0.0.1:6600")
    }

    @Test func noneIsTheSilentDeviceAndEveryScreenTypeIsKnown() throws {
        let c = try parse(#"{"audio": {"device": "none", "fallbackDevices": ["hw:1,0", "none"]}}"#)
        #expect(c.audio.device == .silent)
        #expect(c.audio.fallbackDevices == [.alsa(pcm: "hw:1,0"), .silent])
        for type in ScreenType.allCases {
            #expect(try parse(#"{"screen": {"type": "\#(type.rawValue)"}}"#).screen.type == type)
        }
    }

    @Test func replayGainIsOffByDefaultAndTakesItsModeAndPreamps() throws {
        #expect(try parse("{}").replayGain == ReplayGainSettings(mode: .off, preampDb: 0, missingPreampDb: 0))
        let c = try parse(#"{"replayGain": "auto", "replayGainPreampDb": 3.5, "replayGainMissingPreampDb": -6}"#)
        #expect(c.replayGain == ReplayGainSettings(mode: .auto, preampDb: 3.5, missingPreampDb: -6))
    }

    /// Each kind of error, with its exact message.
    @Test(arguments: [
        (
            #"{"volumme": 3}"#,
            "config.json: volumme: unknown key (known keys: audio, audiobookGenres, battery, bedtime, bluetooth, board, boardsDirectory, bookmarks, cards, exhibit, hat, idlePowerOffMinutes, inputs, libraryDirectories, mediaRoots, mpd, repeat, replayGain, replayGainMissingPreampDb, replayGainPreampDb, resumeAtBoot, screen, shuffle, sleepAction, sleepMinutes, speech, stateDirectory, volume, volumeAtBoot, volumeMax, volumeMin, web)"
        ),
        (#"{"volumeMin": 70, "volumeMax": 60}"#, "config.json: volumeMin: expected at most volumeMax (60), got 70"),
        (#"{"volumeMax": 0}"#, "config.json: volumeMax: expected an integer 1…100, got 0"),
        (
            #"{"volumeMax": 60, "volumeAtBoot": 80}"#,
            "config.json: volumeAtBoot: expected a volume within volumeMin…volumeMax (0…60), got 80"
        ),
        (#"{"idlePowerOffMinutes": -1}"#, "config.json: idlePowerOffMinutes: expected an integer 0…1440, got -1"),
        (
            #"{"sleepMinutes": [30, 15]}"#,
            "config.json: sleepMinutes: expected minutes in rising order, e.g. [15, 30, 60]"
        ),
        (#"{"sleepMinutes": [0]}"#, "config.json: sleepMinutes[0]: expected an integer 1…720, got 0"),
        (#"{"bookmarks": "some"}"#, #"config.json: bookmarks: expected one of "audiobooks", "all", "off", got "some""#),
        (#"{"sleepAction": "halt"}"#, #"config.json: sleepAction: expected one of "stop", "poweroff", got "halt""#),
        (#"{"shuffle": "on"}"#, #"config.json: shuffle: expected one of "off", "tracks", "albums", got "on""#),
        (
            #"{"replayGain": "loud"}"#,
            #"config.json: replayGain: expected one of "off", "track", "album", "auto", got "loud""#
        ),
        (#"{"replayGainPreampDb": 20}"#, "config.json: replayGainPreampDb: expected a number -15…15, got 20"),
        (
            #"{"replayGainMissingPreampDb": "-6"}"#,
            #"config.json: replayGainMissingPreampDb: expected a number -15…15, got "-6""#
        ),
        (#"{"resumeAtBoot": 1}"#, "config.json: resumeAtBoot: expected true or false, got 1"),
        (
            #"{"libraryDirectories": ["Music"]}"#,
            #"config.json: libraryDirectories[0]: expected an absolute path of a folder other than /, got "Music""#
        ),
        (#"{"volume": "loud"}"#, #"config.json: volume: expected an integer 0…100, got "loud""#),
        (#"{"volume": 101}"#, "config.json: volume: expected an integer 0…100, got 101"),
        (#"{"audio": {"bufferMs": 5}}"#, "config.json: audio.bufferMs: expected an integer 10…500, got 5"),
        (
            #"{"audio": {"devise": "hw:0"}}"#,
            "config.json: audio.devise: unknown key (known keys: bufferMs, declickMs, device, fallbackDevices, keepOpen, mixer, realtimePriority, ringSeconds)"
        ),
        (#"{"audio": []}"#, "config.json: audio: expected an object, got an array"),
        (#"{"screen": {"rotation": 45}}"#, "config.json: screen.rotation: expected 0, 90, 180 or 270, got 45"),
        (#"{"screen": {"theme": "pink"}}"#, #"config.json: screen.theme: expected one of "dark", "light", got "pink""#),
        (#"{"mediaRoots": ["media"]}"#, #"config.json: mediaRoots[0]: expected an absolute path, got "media""#),
        (#"{"mediaRoots": "/media"}"#, #"config.json: mediaRoots: expected an array, got "/media""#),
        (
            #"{"mpd": {"listen": "6600"}}"#,
            #"config.json: mpd.listen: expected "host:port" with a port 1…65535, got "6600""#
        ),
        (#"{"inputs": {"keymap": 3}}"#, "config.json: inputs.keymap: expected an object, got 3"),
        (#"{"volume": 3,}"#, "config.json: not valid JSON: line 1, column 14: expected a quoted key"),
        ("", "config.json: not valid JSON: line 1, column 1: empty document"),
        (#"{"volume": 50.5}"#, "config.json: volume: expected an integer 0…100, got 50.5"),
        (#"{"volume": 1, "volume": 2}"#, "config.json: volume: duplicate key"),
        (#"{"board": 3}"#, "config.json: board: expected a string, got 3"),
        (#"{"repeat": "yes"}"#, #"config.json: repeat: expected true or false, got "yes""#),
        (#"{"stateDirectory": "state"}"#, #"config.json: stateDirectory: expected an absolute path, got "state""#),
        (#"{"audio": {"ringSeconds": 100}}"#, "config.json: audio.ringSeconds: expected a number 0.25…30, got 100"),
        (#"{"audio": {"device": ""}}"#, "config.json: audio.device: expected a non-empty string"),
        (
            #"{"audio": {"fallbackDevices": ["default", 3]}}"#,
            "config.json: audio.fallbackDevices[1]: expected a string, got 3"
        ),
        (
            #"{"audio": {"realtimePriority": 100}}"#,
            "config.json: audio.realtimePriority: expected an integer 0…99, got 100"
        ),
        (
            #"{"screen": {"type": "hdmi"}}"#,
            #"config.json: screen.type: expected one of "auto", "framebuffer", "spi", "none", "png", "terminal", got "hdmi""#
        ),
        (#"{"screen": {"width": 10}}"#, "config.json: screen.width: expected an integer 64…1920, got 10"),
        (#"{"inputs": {"longPressMs": 50}}"#, "config.json: inputs.longPressMs: expected an integer 100…10000, got 50"),
        (
            #"{"inputs": {"keybord": true}}"#,
            "config.json: inputs.keybord: unknown key (known keys: chordMs, debounceMs, doublePressMs, keyboard, keymap, longPressMs, repeatDelayMs, repeatMs, script, seek)"
        ),
        (
            #"{"mpd": {"listen": "127.0.0.1:70000"}}"#,
            #"config.json: mpd.listen: expected "host:port" with a port 1…65535, got "127.0.0.1:70000""#
        ),
        (#"{"mpd": {"maxClients": 0}}"#, "config.json: mpd.maxClients: expected an integer 1…64, got 0"),
        ("[]", "config.json: expected an object, got an array"),
    ])
    func errorsSayWhereAndWhat(text: String, message: String) {
        expectError(describedAs: message) { try parse(text) }
    }

    @Test func theFamilyKeysAreRead() throws {
        let c = try parse(
            #"{"volumeMin": 10, "volumeMax": 60, "volumeAtBoot": 40, "resumeAtBoot": false, "libraryDirectories": ["/home/pi/Music"], "idlePowerOffMinutes": 20}"#
        )
        #expect(c.volumeLimits == VolumeLimits(10...60))
        #expect(c.volumeAtBoot == 40)
        #expect(c.resumeAtBoot == false)
        #expect(c.libraryDirectories == ["/home/pi/Music"])
        #expect(c.idlePowerOffMinutes == 20)
    }

    @Test func withoutTheFamilyKeysNothingIsLimitedAndTheBoxResumes() throws {
        let c = try parse("{}")
        #expect(c.volumeLimits == VolumeLimits(0...100) && !c.volumeLimits.isLimited)
        #expect(c.volumeAtBoot == nil)
        #expect(c.resumeAtBoot)
        #expect(c.libraryDirectories.isEmpty)
        #expect(c.idlePowerOffMinutes == 0)
    }

    @Test func tooManyMediaRootsIsAnError() {
        let roots = (0...32).map { "\"/m\($0)\"" }.joined(separator: ", ")
        #expect(
            throws: ConfigError(file: "config.json", path: "mediaRoots", message: "at most 32 entries, got 33")
        ) { try parse(#"{"mediaRoots": [\#(roots)]}"#) }
    }

    @Test func anUnreadableFileIsAnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            _ = try Config.load(path: dir.path)
            Issue.record("read a directory as a config file")
        } catch {
            #expect(error.file == dir.path && error.message.hasPrefix("cannot read: "))
        }
    }

    @Test func aMissingDefaultFileMeansTheDefaults() throws {
        // No $CONFIGURATION_DIRECTORY and no /etc/kiosk-player/config.json on a build machine.
        guard Syscalls.environment("CONFIGURATION_DIRECTORY") == nil, !Syscalls.exists(Config.defaultPath) else {
            try skipTest("a config file is installed on this machine")
            return
        }
        let config = try Config.load(path: nil)
        #expect(config.file == "" && config.volume == 70)
    }

    @Test func missingExplicitFileIsAnError() {
        #expect(throws: ConfigError(file: "/nonexistent/config.json", path: "", message: "no such file")) {
            try Config.load(path: "/nonexistent/config.json")
        }
    }
}
