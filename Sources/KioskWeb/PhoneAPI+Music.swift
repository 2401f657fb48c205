// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The page's music routes: what a folder holds, uploads in pieces, deletions (`MusicFolder`
/// decides them), each change logged with its session and followed by a library update, which
/// reads only the files that changed.
extension PhoneAPI {
    func musicAnswer(_ request: WebRequest, _ session: PhoneAccess.Session, who: String) throws -> WebResponse {
        guard let music else { return .error(404, "this box takes no music from the page (web.musicFolder)") }
        switch (request.method, request.path) {
        case ("GET", "/api/music"):
            return .json(200, try listing(music, request.query["folder"] ?? ""))
        case ("POST", "/api/music/upload"):
            let b = try body(request)
            guard let path = try b.string("path"), let size = try b.int("size", range: 0...Int(Int64.max >> 1)) else {
                return .error(400, #"expected {"path": …, "size": …}"#)
            }
            let upload = try music.begin(path: path, size: Int64(size), session: session.id)
            if upload.received == 0 {
                Log.notice("web: \(who): upload of \(upload.path) (\(upload.size) bytes) begins")
            } else {
                Log.notice("web: \(who): upload of \(upload.path) goes on at byte \(upload.received)")
            }
            return .json(200, uploadJSON(upload))
        case ("PUT", "/api/music/upload"):
            guard let id = request.query["id"], let path = request.query["path"],
                let offset = request.query["offset"].flatMap({ Int64($0) })
            else { return .error(400, "expected id, path and offset") }
            let upload = try music.append(
                try music.upload(id: id, path: path, session: session.id), offset: offset, bytes: request.body)
            if upload.complete {
                Log.notice("web: \(who): uploaded \(upload.path) (\(upload.size) bytes)")
                updateLibrary()
            }
            return .json(200, uploadJSON(upload))
        case ("POST", "/api/music/delete"):
            guard let path = try body(request).string("path") else { return .error(400, #"expected {"path": …}"#) }
            try music.delete(path)
            Log.notice("web: \(who): deleted \(path)")
            updateLibrary()
            let parent = path.split(separator: "/").dropLast().joined(separator: "/")
            return .json(200, try listing(music, parent))
        default:
            return .error(405, "not allowed here")
        }
    }

    /// An upload's answer; a failed one names the file and why (`MusicFolder.Problem`).
    func musicRefusal(_ problem: MusicFolder.Problem, _ request: WebRequest) -> WebResponse {
        let status: UInt32
        switch problem {
        case .badName, .failed: status = 400
        case .notTaken, .notMusic: status = 415
        case .tooLarge, .noSpace: status = 413
        case .exists: status = 409
        case .wrongOffset(let expected):
            return .json(
                409, .object([("error", .string(problem.description)), ("received", .number(Double(expected)))]))
        case .unknownUpload, .notFound: status = 404
        }
        Log.warning("web: \(request.client): \(request.method) \(request.path) refused: \(problem)")
        return .error(status, problem.description)
    }

    private func listing(_ music: MusicFolder, _ folder: String) throws -> JSONValue {
        let entries = try music.list(folder)
        return .object([
            ("folder", .string(try music.sanitized(folder, isFile: false).joined(separator: "/"))),
            (
                "entries",
                .array(
                    entries.map { e in
                        .object([
                            ("name", .string(e.name)), ("folder", .bool(e.isFolder)), ("size", .number(Double(e.size))),
                        ])
                    })
            ),
            ("free", .number(Double(max(0, music.freeBytes() - music.reserveBytes)))),
            ("maxFileBytes", .number(Double(music.maxFileBytes))),
        ])
    }

    private func uploadJSON(_ upload: MusicFolder.Upload) -> JSONValue {
        .object([
            ("id", .string(upload.id)), ("path", .string(upload.path)), ("size", .number(Double(upload.size))),
            ("received", .number(Double(upload.received))), ("complete", .bool(upload.complete)),
        ])
    }

    /// Asks the player to look at the library again: its scan is incremental, so only new, changed
    /// and removed files are read. The change stands if the player is busy; its next scan finds it.
    private func updateLibrary() {
        do {
            _ = try player().command("update")
        } catch {
            Log.warning("web: the player did not take the library update (\(error)); its next scan finds the change")
        }
    }
}
