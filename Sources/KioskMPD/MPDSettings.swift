// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskSystem

/// How the MPD server listens and what it allows: built from config.json's `mpd` section (plus
/// limits that are fixed). Thread: a value; any.
public struct MPDSettings: Sendable, Equatable {
    /// A Unix socket path, or nil.
    public var socketPath: String?
    /// A TCP address (numeric IPv4/IPv6; `localhost`; `*` for every address) and port, or nil.
    public var tcpHost: String?
    public var tcpPort: UInt16?
    /// Clients must send `password` before anything but ping/close/commands; nil = no password.
    public var password: String?
    /// Connections beyond this many are closed at once.
    public var maxClients = 8
    /// A line (command plus arguments) longer than this closes the connection, as in MPD.
    public var maxLineBytes = 8192
    /// Commands in one command list, and their total bytes (each line plus one, as MPD counts for its
    /// client_max_command_list_size, 2 MiB there); more closes the connection.
    public var maxCommandListCommands = 4096
    public var maxCommandListBytes = 1 << 20
    /// Output held for a client before the server stops producing more for it (long responses are
    /// produced as the client reads them).
    public var outputHighWater = 64 << 10
    /// The kernel's send buffer of each client socket (SO_SNDBUF).
    public var socketSendBufferBytes = 32 << 10
    /// Output held for a client beyond which it is disconnected, as MPD's max_output_buffer_size
    /// (8 MiB there; ours is smaller because responses are produced only as the client reads).
    /// One step of a command that leaves more than this unsent is refused with an ACK instead
    /// (`MPDServer.refuseIfOversized`): it must be well over `outputHighWater` plus a step's piece
    /// (about 4 KiB, `ItemProducer`), so that only an item that large is refused.
    public var maxOutputBytes = 1 << 20
    /// One client's share of a turn of the loop: lines taken, commands run or response pieces
    /// produced, and time; then the other clients and the rest of the loop go first.
    public var maxStepsPerTurn = 32
    public var maxMicrosecondsPerTurn = 1000
    /// The clients' turns after their first (work queued: list lines, pipelined commands, long
    /// responses) take at most this much of each window of the loop's time, together; the rest is
    /// for fresh commands, the buttons, the screen and the watchdog.
    public var backlogWindowMilliseconds = 25
    public var backlogMillisecondsPerWindow = 10
    /// The largest `binarylimit` honoured (albumart/readpicture chunk size).
    public var maxBinaryChunk = 256 << 10
    /// A client that neither sends a whole command line nor reads its output for this long is
    /// disconnected, as MPD's connection_timeout (60 s there too): bytes of a line that never ends do
    /// not count. A client waiting in `idle` with nothing left to read is exempt, as in MPD.
    public var idleTimeoutSeconds = 60
    /// When `maxClients` are connected, a new client takes the place of the one inactive longest (by
    /// the rule above) if that one has been inactive this long; otherwise the new one is refused.
    public var evictInactiveAfterMilliseconds = 5000
    /// Largest picture served (cover files and embedded pictures).
    public var maxPictureBytes = 16 << 20
    /// Pictures kept for the chunks that follow the first (bytes, over all entries).
    public var pictureCacheBytes = 16 << 20

    /// The longest queue clients may build, as MPD's max_playlist_length (16384 there too): an add
    /// past it is refused whole with MPD's `ACK [51@…] … Playlist is too large`, so that no client
    /// can grow the queue (and `client-queue.json`) without bound (issue 44: 600 000 entries took
    /// 1.1 GB and made `status` take 6.3 s).
    public var maxQueueLength = 16384

    /// The state directory: the clients' stored playlists (`mpd-playlists/`) and stickers
    /// (`mpd-stickers.sqlite`) live there; nil: both are disabled, as in MPD without a
    /// playlist_directory or sticker_file.
    public var stateDirectory: String?
    /// Stored playlists a client may make, and songs in one (MPD's max_playlist_length).
    public var maxStoredPlaylists = 1000
    public var maxStoredPlaylistLength = 16384
    /// Bytes of all stored playlists together, and of one (a file is written only if it can be
    /// read back: issue 44 found saves of a long queue that `load` then refused as too large).
    public var maxStoredPlaylistBytes = 64 << 20
    public var maxStoredPlaylistFileBytes = 8 << 20
    /// Stickers kept, and the longest sticker name or value, so that no client can fill the card.
    public var maxStickers = 100_000
    public var maxStickerBytes = 4096
    /// Bytes of all stickers' URIs, names and values together (SQLite's file is about three times
    /// that at most: the unique index repeats URI and name, and pages are not full).
    public var maxStickerTotalBytes = 8 << 20

    public init() {}

    /// The most bytes clients can make the player keep in the state directory with these
    /// settings: the stored playlists (and one file's temporary while it is replaced), the sticker
    /// files, and the queue file (twice while it is replaced). docs/reliability.md's budget table
    /// gives it for the defaults; the attack test checks it.
    public var clientStateBytesBound: Int {
        maxStoredPlaylistBytes + maxStoredPlaylistFileBytes
            + MPDStickers.diskBound(totalBytes: maxStickerTotalBytes, rows: maxStickers) + 2 * ClientQueueFile.maxBytes
    }

    /// The settings for `config.mpd`, nil when neither a socket nor a TCP address is configured
    /// (the default: the server is off). `"socket": "default"` means `mpd.socket` in
    /// `$RUNTIME_DIRECTORY` (else /run/kiosk-player).
    public static func from(_ config: Config.MPD, file: String = "config.json") throws(ConfigError) -> MPDSettings? {
        var settings = MPDSettings()
        if let socket = config.socket, !socket.isEmpty {
            if socket == "default" {
                let runtime =
                    Syscalls.environment("RUNTIME_DIRECTORY")?.split(separator: ":").first.map(String.init)
                    ?? "/run/kiosk-player"
                settings.socketPath = runtime + "/mpd.socket"
            } else {
                guard socket.hasPrefix("/") else {
                    throw ConfigError(
                        file: file, path: "mpd.socket",
                        message: "expected an absolute path or \"default\", got \"\(socket)\"")
                }
                settings.socketPath = socket
            }
        }
        if let listen = config.listen, !listen.isEmpty {
            guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]),
                port > 0
            else {
                throw ConfigError(
                    file: file, path: "mpd.listen",
                    message: "expected \"host:port\" with a port 1…65535, got \"\(listen)\"")
            }
            var host = String(listen[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            switch host {
            case "": host = "127.0.0.1"
            case "localhost": host = "127.0.0.1"
            case "*": host = "*"
            default:
                guard MPDSettings.isNumericAddress(host) else {
                    throw ConfigError(
                        file: file, path: "mpd.listen",
                        message:
                            "expected a numeric address (e.g. 127.0.0.1, 0.0.0.0, ::1), \"localhost\" or \"*\", got \"\(host)\""
                    )
                }
            }
            settings.tcpHost = host
            settings.tcpPort = port
        }
        guard settings.socketPath != nil || settings.tcpHost != nil else { return nil }
        if let password = config.password, !password.isEmpty { settings.password = password }
        settings.maxClients = config.maxClients
        return settings
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address (no name lookups: they could block).
    static func isNumericAddress(_ host: String) -> Bool {
        let v4 = host.split(separator: ".", omittingEmptySubsequences: false)
        if v4.count == 4, v4.allSatisfy({ UInt8($0) != nil }) { return true }
        return host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
