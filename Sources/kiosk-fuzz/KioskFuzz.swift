// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskFuzzTargets
import KioskSystem

/// A line on standard error.
private func complain(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

#if FUZZING
    /// The target libFuzzer drives (`KIOSK_FUZZ_TARGET`), chosen before the first input.
    nonisolated(unsafe) private var target = FuzzTarget.json

    /// The entry point SwiftPM links as `main`: picks the target, then hands over to libFuzzer.
    @_cdecl("kiosk_fuzz_main")
    public func fuzzMain(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 {
        let name = Syscalls.environment("KIOSK_FUZZ_TARGET") ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            complain("kiosk-fuzz: set KIOSK_FUZZ_TARGET to one of: \(names)")
            return 2
        }
        target = chosen
        ImageFuzz.enforcesBound = true
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
    }

    /// One input (libFuzzer's archive refers to this name too).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        target.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
#else
    /// Without libFuzzer: `kiosk-fuzz TARGET FILE|FOLDER...` runs each input once (a corpus, a crash
    /// file), `kiosk-fuzz list` names the targets. The suite and `make fuzz` use it to replay.
    @main
    struct KioskFuzz {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "list" {
                for target in FuzzTarget.allCases { printLine(target.rawValue) }
                return
            }
            if arguments.first == "seeds", arguments.count == 3 {
                do {
                    let counts = try FuzzSeeds.write(to: arguments[1], repository: arguments[2])
                    for target in FuzzTarget.allCases { printLine("\(target.rawValue): \(counts[target] ?? 0) seeds") }
                } catch {
                    complain("kiosk-fuzz: seeds: \(error)")
                    exit(1)
                }
                return
            }
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
                complain(
                    "usage: kiosk-fuzz TARGET FILE|FOLDER... (targets: \(names)) | kiosk-fuzz list | kiosk-fuzz seeds DIR REPOSITORY"
                )
                exit(2)
            }
            ImageFuzz.enforcesBound = true
            var count = 0
            for path in arguments.dropFirst() {
                for file in FuzzCorpus.files(at: path) {
                    guard let data = try? Syscalls.readFile(file, limit: 1 << 24) else {
                        complain("kiosk-fuzz: cannot read \(file)")
                        exit(1)
                    }
                    target.run(data)
                    count += 1
                }
            }
            printLine("kiosk-fuzz: \(target.rawValue): \(count) inputs ran")
        }
    }
#endif
