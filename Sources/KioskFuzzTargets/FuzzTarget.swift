// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskConfig
import KioskCore
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskMPD
import KioskSystem

/// One parser of untrusted input, as libFuzzer drives it (`kiosk-fuzz`, `make fuzz`) and as the
/// suite replays its corpus: every input must come back (a clear error is fine), never crash, hang
/// or grow without bound. What a USB stick holds (files, names, tags, pictures, playlists), what a
/// network client sends (MPD), what the owner edits by hand (config, board profiles, event
/// scripts) and what the box wrote before a power cut (resume, bookmark and card files), and what card readers send.
///
/// Thread: `run` on one thread at a time (the MPD target keeps one server across inputs).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// MPD request lines and command lists, through a running server (real engine on the silent
    /// sink, a library of three tracks) over its Unix socket.
    case mpd
    /// MPD sessions against a server with small budgets (queue, stored playlists, stickers, one
    /// answer): after each input every total must hold (`MPDFuzzRig.runCheckingTotals`).
    case mpdTotals = "mpd-totals"
    /// The MPD tokenizer alone (fast: what `mpd` spends most inputs on).
    case mpdLine = "mpd-line"
    /// The JSON parser and reader.
    case json
    case config
    case board
    case eventScript = "event-script"
    /// resume.json, as the box reads it after a restart.
    case resume
    /// bookmarks.json, as the box reads it at start.
    case bookmarks
    /// `.m3u` / `.m3u8` playlists.
    case playlist
    /// A FLAC file's metadata (STREAMINFO, tags, pictures) through libFLAC.
    case flac
    /// Tags and headers of the other formats (ID3v2 and MPEG frames, MP4 boxes, Ogg Vorbis/Opus
    /// comments, RIFF/AIFF chunks) through TagLib and the header probes; the first byte picks
    /// the file suffix.
    case tags
    /// ID3v2.3 and v2.4 tags built from the input with compressed, unsynchronised, encrypted and
    /// grouped frames (`ID3Fuzz`), read through TagLib within the inflate budget.
    case id3
    /// Cover images: the header check and the bounded JPEG/PNG decoders, their peak heap held
    /// against the bound (`ImageFuzz`).
    case image
    /// Button edges and encoder phases in time through the gesture and quadrature decoders.
    case inputs
    /// cards.json, as the box reads it at start and after `kiosk-player cards` changed it.
    case cards
    /// What card readers send: an MFRC522's replies on MISO, a USB reader's keys.
    case cardReader = "card-reader"
    /// WAV, RF64 and AIFF/AIFC headers (chunk sizes near 2^63 included), through the header
    /// reader and the first block of the PCM decoder, as the scan reads them.
    case pcmHeader = "pcm-header"
    /// A small tree built from the input (files, folders, links, FIFOs), scanned with an index twice.
    case scan
    /// What the speech helper process sends back (greeting, PCM, failures), as the player reads it:
    /// counts checked against limits before anything is allocated.
    case speechWire = "speech-wire"
    /// Text (names of folders, playlists, cards) through `SpokenText` and a real speech helper
    /// (`SpeechFuzzRig`): the helper may die on it, the player side must not.
    case speechText = "speech-text"
    /// Stick files of every kind (FIFOs, sockets, links in and out, folders) read and written
    /// through `StickFile` (`StickFilesFuzz`).
    case stickFiles = "stick-files"
    /// HTTP requests to the phone page's server: libmicrohttpd's parser through its API, then every
    /// route, with a paired session (`WebFuzzRig`).
    case web

    /// Runs one input.
    public func run(_ data: [UInt8]) {
        switch self {
        case .mpd: MPDFuzzRig.shared.run(data)
        case .mpdTotals: MPDFuzzRig.totals.runCheckingTotals(data)
        case .mpdLine: _ = try? MPDTokenizer.split(data)
        case .json:
            _ = try? JSONValue.parse(data)
            if let reader = try? JSONReader.parse(data, file: "fuzz.json") {
                _ = try? reader.string("name")
                _ = try? reader.object("audio")
            }
        case .config: _ = try? Config.parse(data, file: "config.json")
        case .board: _ = try? BoardProfile.parse(data, file: "boards/fuzz.json")
        case .eventScript: _ = try? EventScript.parse(data, file: "events.jsonl", profile: FuzzFiles.profile)
        case .resume:
            _ = try? ResumeState.parse(data, file: "resume.json")
            _ = ResumeState.decodeRecordFile(data)
        case .bookmarks: FuzzFiles.withStateFile(BookmarkStore.fileName, data) { _ = BookmarkStore(directory: $0) }
        case .playlist: _ = PlaylistParser.parse(data, relativePath: "Lists/list.m3u8", limits: ScanLimits())
        case .flac: FuzzFiles.withFile("track.flac", data) { _ = FLACFileReader().read(path: $0) }
        case .tags:
            let suffixes = ["mp3", "m4a", "ogg", "opus", "wav", "aiff", "mp2", "m4b"]
            let suffix = suffixes[Int(data.first ?? 0) % suffixes.count]
            FuzzFiles.withFile("track." + suffix, Array(data.dropFirst())) { _ = MusicFileReader().read(path: $0) }
        case .id3: ID3Fuzz.run(data)
        case .image: ImageFuzz.run(data)
        case .inputs: InputFuzz.run(data)
        case .cards: FuzzFiles.withStateFile(CardStore.fileName, data) { _ = CardStore(directory: $0) }
        case .cardReader: CardReaderFuzz.run(data)
        case .pcmHeader:
            let names = ["track.wav", "track.aiff"]
            FuzzFiles.withFile(names[Int(data.first ?? 0) % 2], Array(data.dropFirst())) {
                _ = MusicFileReader().read(path: $0)
            }
        case .scan: ScanFuzz.run(data)
        case .speechWire: _ = SpeechWire.readHelperStream(data, maxSamples: 4096)
        case .speechText: SpeechFuzzRig.shared.run(data)
        case .stickFiles: StickFilesFuzz.run(data)
        case .web: WebFuzzRig.shared.run(data)
        }
    }
}
