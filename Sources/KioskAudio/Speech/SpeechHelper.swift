// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// The speech helper process (`kiosk-player speak`, started by the player's `Speaker`): libespeak-ng
/// turns the texts the player sends on standard input into PCM written back on standard output
/// (`SpeechWire`). espeak-ng is untrusted code fed untrusted text (folder names, playlist names,
/// tags): 1.51 aborts on 200 bytes of "a." pairs and has published memory-safety CVEs. Here a crash
/// costs one prompt, and the process can do little else:
/// - its address space is capped (`addressSpaceBytes`), it makes no core dump and holds few
///   descriptors (not `RLIMIT_FSIZE`: its stderr, the player's, may be a log file);
/// - no exec gains privileges and it dies with the player (`PR_SET_NO_NEW_PRIVS`, `PR_SET_PDEATHSIG`);
/// - once espeak-ng is loaded, Landlock leaves it reading the voice data and nothing else: no stick,
///   no state directory, no write anywhere (where the kernel has Landlock; Debian's and Raspberry Pi
///   OS's kernels build it in; where it is off the helper says so on stderr and runs with the rest);
/// - each answer is at most the samples asked for (`SpeechSynthesizer` stops the synthesis there).
///
/// Thread: the helper process's main thread (the whole process).
public enum SpeechHelper {
    /// The helper's address-space limit (`RLIMIT_AS`). Measured (debug build, x86_64, espeak-ng
    /// 1.51): VmPeak 119 MB with the voice loaded, unchanged by a 4 096-byte text, whose synthesis
    /// stops at the samples asked; resident 20-22 MB. The mapped code (the static Swift runtime,
    /// espeak-ng's ~30 libraries) is most of it; the rest is headroom for a 16 KB-page kernel (the
    /// Pi 5's). Past it an allocation in espeak-ng fails and the helper dies of it: one prompt lost.
    public static let addressSpaceBytes = 320 << 20

    /// Serves requests until standard input ends; the process's exit status.
    /// `dataPath`: espeak-ng-data's parent (nil: the installed one).
    public static func serve(dataPath: String?) -> Int32 {
        limit(RLIMIT_CORE, 0)
        limit(RLIMIT_NOFILE, 64)
        // A sanitizer's runtime reserves terabytes of shadow address space (make tsan, make asan):
        // there the cap would stop the helper before it starts.
        if dlsym(nil, "__tsan_init") == nil && dlsym(nil, "__asan_init") == nil {
            limit(RLIMIT_AS, rlim_t(addressSpaceBytes))
        }
        if kiosk_sandbox_basics(SIGKILL) != 0 {
            Log.warning("speech helper: prctl: \(Errno.current)")
        }
        let synthesizer: SpeechSynthesizer
        do throws(SpeechError) {
            synthesizer = try SpeechSynthesizer(dataPath: dataPath)
        } catch {
            send(SpeechWire.encodeFailure(error.message))
            return 1
        }
        confine(toReading: synthesizer.dataDirectory)
        send(SpeechWire.encodeHello(sampleRate: synthesizer.sampleRate))
        var source = SocketSource(fd: 0, deadline: nil)
        while true {
            let request: SpeechWire.Request
            do throws(SpeechWireError) {
                guard let next = try SpeechWire.readRequest(&source) else { return 0 }
                request = next
            } catch {
                Log.error("speech helper: \(error); stopping")
                return 2
            }
            do throws(SpeechError) {
                let made = try synthesizer.synthesize(
                    request.text, voice: request.voice, maxSamples: request.maxSamples)
                send(SpeechWire.encodeSpeech(made.samples, truncated: made.truncated))
            } catch {
                send(SpeechWire.encodeFailure(error.message))
            }
        }
    }

    private static func limit(_ resource: __rlimit_resource, _ value: rlim_t) {
        var limits = rlimit(rlim_cur: value, rlim_max: value)
        if setrlimit(__rlimit_resource_t(resource.rawValue), &limits) != 0 {
            Log.warning("speech helper: setrlimit \(resource.rawValue): \(Errno.current)")
        }
    }

    /// Landlock: from here on, only `directory` may be read.
    private static func confine(toReading directory: String) {
        guard !directory.isEmpty else {
            Log.warning("speech helper: espeak-ng did not say where its voice data is; file access not confined")
            return
        }
        let abi = directory.withCString { path -> Int32 in
            var paths: [UnsafePointer<CChar>?] = [path]
            return kiosk_sandbox_read_only_beneath(&paths, 1)
        }
        if abi < 0 {
            Log.warning("speech helper: Landlock is not available (\(Errno.current)); file access not confined")
        }
    }

    /// Writes a message to the player; a player gone is the end (`PR_SET_PDEATHSIG` ends us too).
    private static func send(_ bytes: [UInt8]) {
        do throws(Errno) {
            try Syscalls.sendAll(1, bytes)
        } catch {
            exit(3)
        }
    }
}
