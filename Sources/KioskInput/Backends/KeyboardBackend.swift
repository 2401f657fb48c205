// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskModel
import KioskSystem

/// The terminal-keyboard backend of the input router: keys read from a terminal (or any fd) in
/// raw mode, through `KeyboardDecoder` and the profile's keymap to actions. A terminal sends no
/// releases, so each key is a press.
///
/// Thread: the event-loop thread only (owned by `InputManager`).
final class KeyboardBackend {
    private unowned let router: InputManager
    /// Its own reference: `stop` runs from the router's deinit, when `router` can no longer be read.
    private let loop: EventLoop
    private var fd: Int32?
    private var source: SourceID?
    private var decoder = KeyboardDecoder()
    private var lastKey: (key: String, at: UInt64, count: Int)?

    init(router: InputManager) {
        self.router = router
        loop = router.loop
    }

    /// Reads keys from `fd`. A terminal is put in raw mode (no echo, no line editing) and restored
    /// by `stop()`, at exit and on fatal signals; ^C still interrupts.
    func start(fd: Int32) {
        guard source == nil else { return }
        if isatty(fd) == 1 && kiosk_keyboard_raw_begin(fd) != 0 {
            router.problem("keyboard: cannot set the terminal to raw mode: \(Errno.current.message)")
            return
        }
        do throws(Errno) {
            source = try loop.addSource(fd: fd, events: .readable) { [unowned self] _ in self.readable() }
            self.fd = fd
        } catch {
            _ = kiosk_keyboard_raw_end()
            router.problem("keyboard: cannot watch fd \(fd): \(error)")
        }
    }

    private func readable() {
        guard let fd else { return }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n: Int
        do throws(Errno) {
            // A Result carries the typed error through Array's rethrowing (untyped in Swift 6.0) closure.
            n = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try Syscalls.read(fd, raw) } }
                .get()
        } catch  where error == .wouldBlock {
            return
        } catch {
            n = -1
        }
        if n <= 0 {
            router.raw("keyboard: end of input")
            stop()
            return
        }
        let now = Syscalls.monotonicNanoseconds()
        for key in decoder.keys(from: buffer[0..<n]) { keyPressed(key, at: now) }
        router.eventsHandled()
    }

    /// A terminal key (from the keyboard or a script); the same key again within 250 ms
    /// (autorepeat) counts as a repeat.
    func keyPressed(_ key: String, at t: UInt64) {
        let keyboard = router.profile.keyboard
        let action = keyboard[key] ?? keyboard[key.lowercased()]
        var count = 0
        if let last = lastKey, last.key == key, t >= last.at, t - last.at < 250_000_000 { count = last.count + 1 }
        lastKey = (key, t, count)
        guard let action else {
            router.raw("keyboard \(key) (not mapped)")
            return
        }
        let event = ActionEvent(action: action, repeatCount: count, source: "keyboard \(key)", timestampNs: t)
        router.raw(event.description)
        router.emit(event)
    }

    /// Stops reading and restores the terminal. Safe to call twice.
    func stop() {
        if let source { loop.removeSource(source) }
        source = nil
        fd = nil
        _ = kiosk_keyboard_raw_end()
    }
}
