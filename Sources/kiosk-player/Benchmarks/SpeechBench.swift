import Glibc
import KioskAudio
import KioskSystem
import Synchronization

/// `kiosk-player bench speech`: how long a spoken prompt takes from the request to its first sample
/// at the device, cold (espeak-ng loaded by the first prompt) and cached (the same prompt again),
/// and the RSS with speech loaded.
extension BenchCommand {
    /// The device's output with the time of its first write since `reset` (monotonic ns; 0: none yet).
    private final class FirstWrite: AudioOutput, @unchecked Sendable {
        let inner: any AudioOutput
        let at = Atomic<UInt64>(0)
        init(_ inner: any AudioOutput) { self.inner = inner }
        var name: String { inner.name }
        var isOpen: Bool { inner.isOpen }
        func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
            -> OutputConfiguration
        { try inner.configure(format, source: source, bufferMilliseconds: bufferMilliseconds) }
        func write(_ frames: UnsafeRawPointer, count: Int) -> Int {
            if at.load(ordering: .relaxed) == 0 { at.store(Syscalls.monotonicNanoseconds(), ordering: .relaxed) }
            return inner.write(frames, count: count)
        }
        func delay() -> Int { inner.delay() }
        func recover(_ error: Int) -> Int { inner.recover(error) }
        func pause(_ paused: Bool) -> Bool { inner.pause(paused) }
        func drain() { inner.drain() }
        func drop() { inner.drop() }
        func close() { inner.close() }
    }

    static func speech(_ parsed: ParsedArguments) throws -> Int32 {
        let text = parsed.value("--text") ?? "New card. Hold the big button to link it to The Gruffalo"
        let voice = parsed.value("--language") ?? "en"
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "null"
        let device = settings.device
        let output = FirstWrite(makeAudioOutput(device: device))
        settings.makeOutput = { _ in output }
        let loop = try EventLoop()
        var failure: String?
        var done = false
        let engine = try AudioEngine(loop: loop, settings: settings) { _ in }
        defer { engine.shutdown() }
        let rssBefore = Syscalls.residentBytes()
        var synthesizedNote = ""
        let speaker = try Speaker(loop: loop) { [unowned loop] result in
            switch result {
            case .failure(let error):
                failure = error.message
                loop.stop()
            case .success(let pcm):
                synthesizedNote = pcm.synthesized ? "synthesized" : "from the cache"
                engine.speak(pcm, volume: 80) { problem in
                    failure = problem
                    done = true
                    loop.stop()
                }
            }
        }
        defer { speaker.stop() }
        var lines: [String] = []
        for label in ["cold", "cached"] {
            done = false
            output.at.store(0, ordering: .relaxed)
            let start = Syscalls.monotonicNanoseconds()
            speaker.say(text, voice: voice)
            try loop.run()
            if let failure { throw ToolError(failure) }
            guard done else { return 130 }
            let first = output.at.load(ordering: .relaxed)
            lines.append(
                "bench speech: \(label): first prompt sample \(formatMilliseconds(first &- start)) after the request (\(synthesizedNote))"
            )
        }
        lines.forEach(printLine)
        printLine(
            "bench speech: RSS \(Syscalls.residentBytes() / 1024) KiB with speech loaded (\(rssBefore / 1024) KiB before; device \(device))"
        )
        let counts = engine.steadyStateCounts
        if counts.counting {
            printLine(
                "bench speech: output thread: \(counts.outputIterations) writes, \(counts.outputAllocations) allocations, \(counts.outputLocks) locks"
            )
        }
        return 0
    }
}
