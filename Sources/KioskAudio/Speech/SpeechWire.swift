// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The speech helper's messages, on one stream socket between the player's speech worker and the
/// helper process (`kiosk-player speak`). Integers are little-endian, strings UTF-8 after their
/// byte count; nothing the helper sends is trusted: every count is checked against a limit first.
///
/// - helper → player, once at start: `hello` (0, sample rate) or `failure` (1, message).
/// - player → helper: a request (voice, text, the most samples wanted).
/// - helper → player: `speech` (0, truncated flag, sample count, samples) or `failure` (1, message).
///
/// Thread: values; any. The reads and writes run on the thread that owns the socket.
public enum SpeechWire {
    /// The longest text a request carries (bytes); `SpokenText` caps prompts far below it.
    static let maxTextBytes = 4096
    /// The longest voice name or message (bytes).
    static let maxNameBytes = 4096

    struct Request: Equatable {
        var voice: String
        var text: String
        var maxSamples: Int
    }

    enum Reply: Equatable {
        /// The helper is ready; its sample rate.
        case hello(sampleRate: Int)
        case speech(samples: [Int16], truncated: Bool)
        case failure(String)
    }

    /// Reads `bytes` as a helper's stream: its greeting, then answers to requests of at most
    /// `maxSamples` samples, until they end or break the format. How many messages were whole; for
    /// the `speech-wire` fuzz target (the player's side of what an untrusted process sends).
    public static func readHelperStream(_ bytes: [UInt8], maxSamples: Int) -> Int {
        var source = ArraySource(bytes: bytes)
        var count = 0
        do throws(SpeechWireError) {
            guard case .hello = try readHello(&source) else { return 1 }
            count += 1
            while true {
                _ = try readReply(&source, maxSamples: maxSamples)
                count += 1
            }
        } catch {
            return count
        }
    }

    static func encode(_ request: Request) -> [UInt8] {
        var bytes: [UInt8] = []
        appendString(request.voice, to: &bytes)
        appendString(request.text, to: &bytes)
        appendUInt32(UInt32(clamping: request.maxSamples), to: &bytes)
        return bytes
    }

    static func encodeHello(sampleRate: Int) -> [UInt8] {
        var bytes: [UInt8] = [0]
        appendUInt32(UInt32(clamping: sampleRate), to: &bytes)
        return bytes
    }

    static func encodeSpeech(_ samples: [Int16], truncated: Bool) -> [UInt8] {
        var bytes: [UInt8] = [0, truncated ? 1 : 0]
        appendUInt32(UInt32(samples.count), to: &bytes)
        bytes.reserveCapacity(bytes.count + samples.count * 2)
        for sample in samples {
            let raw = UInt16(bitPattern: sample)
            bytes.append(UInt8(truncatingIfNeeded: raw))
            bytes.append(UInt8(truncatingIfNeeded: raw >> 8))
        }
        return bytes
    }

    static func encodeFailure(_ message: String) -> [UInt8] {
        var bytes: [UInt8] = [1]
        appendString(String(decoding: message.utf8.prefix(maxNameBytes), as: UTF8.self), to: &bytes)
        return bytes
    }

    /// Reads a request from `source`; nil at end of stream.
    static func readRequest(_ source: inout some SpeechWireSource) throws(SpeechWireError) -> Request? {
        guard let voice = try readString(&source, limit: maxNameBytes, atStart: true) else { return nil }
        guard let text = try readString(&source, limit: maxTextBytes, atStart: false) else {
            throw .malformed("the request ended after its voice")
        }
        let maxSamples = Int(try readUInt32(&source))
        return Request(voice: voice, text: text, maxSamples: maxSamples)
    }

    /// Reads the helper's greeting.
    static func readHello(_ source: inout some SpeechWireSource) throws(SpeechWireError) -> Reply {
        switch try readByte(&source) {
        case 0: return .hello(sampleRate: Int(try readUInt32(&source)))
        case 1: return .failure(try readString(&source, limit: maxNameBytes, atStart: false) ?? "")
        case let other: throw .malformed("greeting of kind \(other)")
        }
    }

    /// Reads the answer to a request that asked for at most `maxSamples` samples.
    static func readReply(_ source: inout some SpeechWireSource, maxSamples: Int) throws(SpeechWireError) -> Reply {
        switch try readByte(&source) {
        case 0:
            let truncated = try readByte(&source) != 0
            let count = Int(try readUInt32(&source))
            guard count <= maxSamples else {
                throw .malformed("\(count) samples where at most \(maxSamples) were asked")
            }
            let bytes = try source.read(count * 2)
            var samples = [Int16](repeating: 0, count: count)
            for i in 0..<count {
                samples[i] = Int16(bitPattern: UInt16(bytes[2 * i]) | UInt16(bytes[2 * i + 1]) << 8)
            }
            return .speech(samples: samples, truncated: truncated)
        case 1: return .failure(try readString(&source, limit: maxNameBytes, atStart: false) ?? "")
        case let other: throw .malformed("answer of kind \(other)")
        }
    }

    private static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        appendUInt32(UInt32(utf8.count), to: &bytes)
        bytes += utf8
    }

    private static func readByte(_ source: inout some SpeechWireSource) throws(SpeechWireError) -> UInt8 {
        try source.read(1)[0]
    }

    private static func readUInt32(_ source: inout some SpeechWireSource) throws(SpeechWireError) -> UInt32 {
        let bytes = try source.read(4)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// A string after its byte count; nil when `atStart` and the stream ended before it.
    private static func readString(_ source: inout some SpeechWireSource, limit: Int, atStart: Bool)
        throws(SpeechWireError) -> String?
    {
        let length: UInt32
        do throws(SpeechWireError) {
            length = try readUInt32(&source)
        } catch .ended where atStart {
            return nil
        }
        guard length <= limit else { throw .malformed("a string of \(length) bytes (at most \(limit))") }
        return String(decoding: try source.read(Int(length)), as: UTF8.self)
    }
}

/// Why a message could not be read.
///
/// Thread: a value; any.
enum SpeechWireError: Error, Equatable {
    /// The other side closed the stream (or died).
    case ended
    /// No answer before the deadline.
    case timedOut
    /// The reader was cancelled (`SocketSource.cancel`: the player is stopping).
    case cancelled
    /// A message that breaks the format or its limits.
    case malformed(String)
    /// The socket failed.
    case failed(Errno)
}

/// Where `SpeechWire` reads from: exactly `count` bytes, or an error.
protocol SpeechWireSource {
    mutating func read(_ count: Int) throws(SpeechWireError) -> [UInt8]
}

/// A blocking socket read until `deadline` (`Syscalls.monotonicNanoseconds`; nil: no deadline),
/// or until the eventfd `cancel` (-1: none) is signalled.
///
/// Thread: the thread that owns `fd`.
struct SocketSource: SpeechWireSource {
    let fd: Int32
    var deadline: UInt64?
    var cancel: Int32 = -1

    mutating func read(_ count: Int) throws(SpeechWireError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            if let deadline {
                let now = Syscalls.monotonicNanoseconds()
                guard now < deadline else { throw .timedOut }
                let left = max(1, Int((deadline - now) / 1_000_000))
                var pollers = [
                    pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: cancel, events: Int16(POLLIN), revents: 0),
                ]
                let ready: Int32
                do throws(Errno) {
                    ready = try Syscalls.retrying("poll") {
                        poll(&pollers, cancel >= 0 ? 2 : 1, Int32(min(left, 60_000)))
                    }
                } catch {
                    throw .failed(error)
                }
                if cancel >= 0 && pollers[1].revents != 0 { throw .cancelled }
                if ready == 0 { continue }
            }
            let n: Int
            do throws(Errno) {
                // A Result carries the typed error through Array's rethrowing (untyped in Swift 6.0) closure.
                n = try bytes.withUnsafeMutableBytes { raw in
                    Result { () throws(Errno) in
                        try Syscalls.read(fd, UnsafeMutableRawBufferPointer(rebasing: raw[filled..<count]))
                    }
                }.get()
            } catch  where error.rawValue == ECONNRESET {
                throw .ended
            } catch {
                throw .failed(error)
            }
            if n == 0 { throw .ended }
            filled += n
        }
        return bytes
    }
}

/// Bytes in memory as a `SpeechWireSource`.
///
/// Thread: a value; any.
struct ArraySource: SpeechWireSource {
    let bytes: [UInt8]
    var offset = 0

    mutating func read(_ count: Int) throws(SpeechWireError) -> [UInt8] {
        guard count <= bytes.count - offset else { throw .ended }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}
