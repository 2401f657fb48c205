// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary

/// Check 7: the USB sticks mounted under the media roots (/proc/self/mountinfo) and what a scan of
/// each finds (the library's own VolumeScanner, without an index). Optional: a box may play from
/// libraryDirectories only, so these lines are ✓ or –.
///
/// Thread: any (scans on the calling thread).
public enum USBCheck {
    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let roots = context.resolved.config.mediaRoots
        let table = MountTable(context.root)
        // Only a block device is a stick: a tmpfs or bind mount under /mnt is not.
        let sticks = table.mounts.filter { mount in
            mount.source.hasPrefix("/dev/") && roots.contains { mount.mountPoint.hasPrefix(MountTable.slashed($0)) }
        }
        guard !sticks.isEmpty else {
            return [
                .info(
                    "usb", "no USB stick mounted under \(roots.joined(separator: ", "))",
                    fix:
                        "plug a stick in; the package's udev rule mounts it read-only under /media/kiosk (`findmnt /media/kiosk`)"
                )
            ]
        }
        var lines: [DoctorLine] = []
        for stick in sticks {
            let options = ["ro", "nosuid", "nodev", "noexec"].filter { stick.options.contains($0) }
            let what = "\(stick.source) on \(stick.mountPoint) (\(stick.fileSystem), \(options.joined(separator: ",")))"
            let path = context.root.path(stick.mountPoint)
            guard context.scanSticks else {
                lines.append(.pass("usb", "\(what) (not scanned: --quick)"))
                continue
            }
            do {
                let (_, stats) = try VolumeScanner().scan(
                    volume: VolumeIdentity.identify(directory: path), mountPoint: path, indexPath: nil)
                lines.append(
                    .pass(
                        "usb",
                        "\(what): \(stats.musicFiles) music files, \(stats.tracks) tracks, \(stats.playlists) playlists, \(stats.problems) problems"
                    ))
            } catch {
                lines.append(
                    .fail(
                        "usb", "\(what): \(error)",
                        fix: "check the stick on a computer; `kiosk-player scan \(stick.mountPoint)` shows the problems"
                    ))
            }
        }
        return lines
    }
}
