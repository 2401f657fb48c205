// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskSystem

/// `kiosk-bench speech`: how long a spoken prompt takes from the request to its first sample
/// at the device, cold (espeak-ng loaded by the first prompt) and cached (the same prompt again),
/// and the RSS with speech loaded.
extension BenchCommand {
    static func speech(_ parsed: ParsedArguments) throws -> Int32 {
        let text = parsed.value("--text") ?? "New card. Hold the big button to link it to The Gruffalo"
        let voice = parsed.value("--language") ?? "en"
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "null"
        let device = settings.device
        let output = FirstSampleWatch(makeAudioOutput(device: device))
        settings.makeOutput = { _ in output }
        let loop = try EventLoop()
        var failure: String?
        var done = false
        let engine = try AudioEngine(loop: loop, settings: settings) { _ in }
        defer { engine.shutdown() }
        let rssBefore = Syscalls.residentBytes()
        var synthesizedNote = ""
        let speaker = try Speaker(loop: loop, helper: .ownBinary()) { [unowned loop] result in
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
            output.arm()
            let start = Syscalls.monotonicNanoseconds()
            speaker.say(text, voice: voice)
            try loop.run()
            if let failure { throw ToolError(failure) }
            guard done else { return 130 }
            guard let first = output.seenAt else { throw ToolError("the \(label) prompt never reached the device") }
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
