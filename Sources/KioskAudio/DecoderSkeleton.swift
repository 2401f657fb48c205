// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What a decoder knows of the file it has open: its name, the format of the frames `decode`
/// delivers next, its exact length when the file tells, and the next frame's number.
///
/// Thread: a value; that of its decoder.
struct DecodedStream {
    var path = ""
    var format: PCMFormat?
    var totalFrames: Int64?
    var position: Int64 = 0
}

/// The open/fail/close/seek skeleton every decoder shares (MPD's decoder plugins each write theirs;
/// here it is written once): the stream's facts, closing (the library's part, then the facts),
/// failing an open (closed, but still naming the file), a seek checked against the length, and
/// handing out frames kept in a `PCMStage`. A decoder keeps only what is its library's own.
///
/// The defaults are resolved at compile time on the final decoder classes (no dynamic dispatch
/// per block, none per sample).
///
/// Thread: that of the decoder (one thread at a time).
protocol DecoderSkeleton: AudioDecoder {
    /// The open file's facts; `close` resets them.
    var stream: DecodedStream { get set }
    /// Frees what the library holds for the open file (the skeleton resets `stream` after it).
    func closeLibrary()
    /// Moves the library to `frame` (already checked against `totalFrames`); throws `.seekFailed`
    /// when it cannot (or nothing is open). `position` becomes `frame` on success.
    func seekLibrary(toFrame frame: Int64) throws(DecodeError)
}

extension DecoderSkeleton {
    public var path: String { stream.path }
    public var format: PCMFormat? { stream.format }
    public var totalFrames: Int64? { stream.totalFrames }
    public var position: Int64 { stream.position }

    public func close() {
        closeLibrary()
        stream = DecodedStream()
    }

    /// Starts opening `path`: closes what was open, opens `source` on it (a non-empty regular
    /// file) and names it.
    func beginOpen(_ path: String, source: SourceFile) throws(DecodeError) {
        close()
        try source.open(path)
        stream.path = path
    }

    /// An open that failed: closes, still naming the file for the error's report; returns `error`.
    func fail(_ error: DecodeError) -> DecodeError {
        let path = stream.path
        close()
        stream.path = path
        return error
    }

    public func seek(toFrame frame: Int64) throws(DecodeError) {
        if let total = stream.totalFrames, frame >= total { throw .seekFailed(frame: frame) }
        try seekLibrary(toFrame: frame)
        stream.position = frame
    }

    /// Hands out frames `stage` holds: first the change to their format when it differs from the
    /// current one, then as many as fit into `regions`.
    func deliver(_ stage: PCMStage, into regions: RingBuffer.Regions) -> DecodeStep {
        if stage.format != stream.format {
            stream.format = stage.format
            return .formatChange(stage.format)
        }
        let n = stage.drain(into: regions)
        stream.position += Int64(n)
        return .frames(n)
    }
}
