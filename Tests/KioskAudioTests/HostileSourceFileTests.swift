// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem
import KioskTestSupport
import Testing

/// A track that became a FIFO or a link to /dev/zero on a hostile stick (issue 44): the engine's
/// open (by content, `SourceFile`) refuses it without waiting for a writer or reading endlessly.
@Suite struct HostileSourceFileTests {
    @Test(arguments: [HostileEntry.fifo, .linkToDevZero, .socket, .directory])
    func aTrackOfAHostileKindIsRefusedWithoutWaiting(entry: HostileEntry) throws {
        let dir = try TemporaryDirectory("kiosk-hostile-track")
        defer { dir.remove() }
        try entry.make(at: dir.file("01.flac"), outside: "/dev/null")
        let rescue = FIFORescue(fifos: [dir.file("01.flac")])
        var refusal: DecodeError?
        do {
            _ = try DecoderSet().open(path: dir.file("01.flac"))
        } catch {
            refusal = error
        }
        #expect(!rescue.finish(), "the open waited for a FIFO's writer")
        #expect(refusal != nil)
        if entry != .socket {
            #expect(refusal == .notARegularFile, "\(refusal.map { "\($0)" } ?? "")")
        }
    }
}
