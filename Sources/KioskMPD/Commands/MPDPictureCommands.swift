// SPDX-License-Identifier: GPL-3.0-or-later
/// Cover art and embedded pictures, a chunk at a time (MPD's src/command/FileCommands.cxx). The
/// picture is read on `MPDArtworkLoader`'s thread; the command waits for it. Thread: loop thread.
enum MPDPictureCommands {
    /// `albumart URI OFFSET`: the cover file of the song's folder.
    static func albumArt(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try picture(s, r, kind: .cover)
    }

    /// `readpicture URI OFFSET`: the picture embedded in the song.
    static func readPicture(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try picture(s, r, kind: .embedded)
    }

    /// A chunk of the picture, at most `binarylimit` bytes: `size: N`, (`type: MIME`),
    /// `binary: n`, the bytes, a newline.
    private static func picture(_ s: MPDServer, _ r: MPDRequest, kind: MPDArtworkLoader.Kind) throws(MPDError)
        -> MPDOutcome
    {
        let offset = try MPDArgument.unsigned(r[1])
        let db = s.database
        let index: Int?
        switch db.locate(r[0]) {
        case .song(let i): index = i
        case .directory(let path): index = db.tracks(under: path).first
        default: index = nil
        }
        guard let index, let mountPoint = db.mountPoints[db.catalog.allTracks[index].volume] else {
            throw .noExist(kind == .cover ? "No file exists" : "No such song")
        }
        let track = db.catalog.allTracks[index]
        let key = MPDArtworkLoader.Key(kind: kind, path: track.path)
        let c = r.connection
        if let cached = s.artwork.cached(key) {
            try write(cached, offset: offset, kind: kind, to: c)
            return .done
        }
        let command = r.name
        s.artwork.load(kind, track: track, mountPoint: mountPoint, catalog: db.catalog) { [weak s, weak c] picture in
            guard let s, let c, !c.closed, c.waitingForArtwork else { return }
            c.waitingForArtwork = false
            do throws(MPDError) {
                try write(picture, offset: offset, kind: kind, to: c)
                s.commandFinished(c)
            } catch {
                s.commandFailed(c, error, command: command)
            }
            s.process(c)
        }
        return .wait
    }

    private static func write(
        _ picture: MPDArtworkLoader.Picture?, offset: Int, kind: MPDArtworkLoader.Kind, to c: MPDConnection
    ) throws(MPDError) {
        guard let picture else {
            if kind == .cover { throw .noExist("No file exists") }
            return
        }
        let size = picture.bytes.count
        guard offset <= size else { throw .argument(kind == .cover ? "Offset too large" : "Bad file offset") }
        let length = min(c.binaryLimit, size - offset)
        c.write("size: \(size)\n")
        if kind == .embedded { c.write("type: \(picture.mimeType)\n") }
        c.write("binary: \(length)\n")
        c.write(bytes: picture.bytes[offset..<offset + length])
        c.write("\n")
    }
}
