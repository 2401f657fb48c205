// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// Check 2a: whether the running kernel has the driver of the HAT's codec (boards/hats/hats.json
/// `codecModules`). Without it the HAT stays silent and nothing says why but a card that never
/// appears: Debian's arm64 kernel (the SD-card image's) has `snd-soc-pcm5102a` but no `pcm512x`,
/// so the PCM5122 HATs cannot play on the image, whatever config.txt says.
///
/// Thread: any (reads files).
public enum HatDriverCheck {
    /// The running kernel's release and the modules it has, each named as `modprobe` names it;
    /// nil when neither modules.dep nor modules.builtin can be read (a container, a stripped root).
    public static func kernelModules(_ root: SystemRoot) -> (release: String, names: Set<String>)? {
        guard let release = root.value("/proc/sys/kernel/osrelease"), !release.isEmpty, !release.contains("/")
        else { return nil }
        var names: Set<String> = []
        var read = false
        for file in ["modules.dep", "modules.builtin"] {
            guard let text = root.text("/lib/modules/\(release)/\(file)", limit: 16 << 20) else { continue }
            read = true
            for line in text.split(separator: "\n") {
                names.insert(moduleName(line.split(separator: ":", maxSplits: 1).first ?? line))
            }
        }
        return read ? (release, names) : nil
    }

    /// "kernel/sound/soc/codecs/snd-soc-pcm512x-i2c.ko.xz" → "snd-soc-pcm512x-i2c"; `_` and `-` are
    /// the same to modprobe, so both become `-`.
    static func moduleName(_ path: Substring) -> String {
        var base = path.split(separator: "/").last.map(String.init) ?? ""
        if let ko = base.firstRange(of: ".ko") { base = String(base[..<ko.lowerBound]) }
        return String(base.map { $0 == "_" ? "-" : $0 })
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        guard let hat = context.resolved.board.hat, !hat.codecModules.isEmpty else { return [] }
        let what = "HAT \(hat.name) (\(hat.codec))"
        guard let kernel = kernelModules(context.root) else {
            return [.info("sound", "\(what): whether the kernel drives it is not checked here (no modules.dep)")]
        }
        let missing = hat.codecModules.filter { !kernel.names.contains(moduleName(Substring($0))) }
        let files = "/lib/modules/\(kernel.release)/modules.dep and modules.builtin"
        guard missing.isEmpty else {
            let fix =
                BootConfigCheck.onImage(context.root)
                ? "this image's kernel cannot drive the \(hat.codec): install Raspberry Pi OS and the .deb instead "
                    + "(docs/install.md), or use a HAT whose chip it drives (a PCM5102A, e.g. hifiberry-dac)"
                : "install a kernel that has \(missing.joined(separator: ", ")) (Raspberry Pi OS's linux-image-rpi-v8 "
                    + "or -2712 has it) and reboot"
            return [
                .fail(
                    "sound",
                    "\(what) cannot play: kernel \(kernel.release) has no \(missing.joined(separator: ", ")), "
                        + "the \(hat.codec)'s driver", fix: fix, detail: files)
            ]
        }
        return [
            .pass(
                "sound", "\(what): kernel \(kernel.release) has its driver \(hat.codecModules.joined(separator: ", "))",
                detail: files)
        ]
    }
}
