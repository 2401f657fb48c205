// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Check 9: the state directory writable, with the options of the mount it is on
/// (/proc/self/mountinfo), and the groups the service runs with (the unit's
/// `SupplementaryGroups=audio video input gpio spi`: systemd refuses to start it when one of them
/// does not exist) from /etc/group, as `getent group` would show them.
///
/// Thread: any (reads files; creates and removes one file in the state directory).
public enum StateCheck {
    /// The unit's user and supplementary groups (deploy/systemd/kiosk-player.service).
    public static let serviceUser = "kiosk-player"
    public static let serviceGroups = ["audio", "video", "input", "gpio", "spi"]

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        stateDirectory(context) + groups(context.root)
    }

    static func stateDirectory(_ context: DoctorContext) -> [DoctorLine] {
        let dir = context.resolved.config.stateDirectory
        let path = context.root.path(dir)
        let mount = MountTable(context.root).mount(containing: dir)
        let on = mount.map { " (on \($0.mountPoint), \($0.fileSystem) \($0.options.joined(separator: ",")))" } ?? ""
        // Mount options are for a technician: shown with --verbose.
        let mountDetail = mount.map { "on \($0.mountPoint), \($0.fileSystem) \($0.options.joined(separator: ","))" }
        let create = "sudo install -d -o \(serviceUser) -g \(serviceUser) -m 0750 \(dir)"
        guard let status = try? Syscalls.fileStatus(path), status.st_mode & S_IFMT == S_IFDIR else {
            return [
                .fail(
                    "state", "the player's folder for its saved state (\(dir)) does not exist",
                    fix: "install the kiosk-player package, which makes it; or: \(create)", detail: mountDetail)
            ]
        }
        if let mount, mount.isReadOnly {
            return [
                .fail(
                    "state", "state directory \(dir) is on a read-only mount\(on)",
                    fix:
                        "remount \(mount.mountPoint) read-write (sudo mount -o remount,rw \(mount.mountPoint)) or set \"stateDirectory\" to a writable folder"
                )
            ]
        }
        let probe = "\(path)/.kiosk-doctor-\(getpid())"
        do throws(Errno) {
            let fd = try Syscalls.open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
            Syscalls.closeIgnoringErrors(fd)
            try? Syscalls.unlink(probe)
            return [.pass("state", "state directory \(dir) is writable", detail: mountDetail)]
        } catch {
            let owner = getpwuid(status.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(status.st_uid)"
            return [
                .fail(
                    "state", "state directory \(dir) is not writable by uid \(geteuid()): \(error.message)\(on)",
                    fix: owner == serviceUser
                        ? "it belongs to \(serviceUser): run the doctor as it (sudo -u \(serviceUser) kiosk-player doctor) or as root"
                        : "sudo chown -R \(serviceUser):\(serviceUser) \(dir)")
            ]
        }
    }

    /// `name:x:gid:member,member` lines of /etc/group.
    static func groupMembers(_ root: SystemRoot) -> [String: [String]] {
        var groups: [String: [String]] = [:]
        for line in (root.text("/etc/group") ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 4 else { continue }
            groups[String(fields[0])] = fields[3].split(separator: ",").map(String.init)
        }
        return groups
    }

    static func groups(_ root: SystemRoot) -> [DoctorLine] {
        let groups = groupMembers(root)
        let users = (root.text("/etc/passwd") ?? "").split(separator: "\n").map { $0.prefix { $0 != ":" } }
        var lines: [DoctorLine] = []
        if users.contains(where: { $0 == serviceUser }) {
            lines.append(.pass("groups", "user \(serviceUser) exists"))
        } else {
            lines.append(
                .fail(
                    "groups", "the player's user \(serviceUser) does not exist",
                    fix: "install the kiosk-player package, which makes it; or: sudo systemd-sysusers",
                    detail: "no \(serviceUser) in /etc/passwd; /usr/lib/sysusers.d/kiosk-player.conf creates it"))
        }
        let missing = serviceGroups.filter { groups[$0] == nil }
        if missing.isEmpty {
            let members = serviceGroups.filter { groups[$0]?.contains(serviceUser) == true }
            lines.append(
                .pass(
                    "groups",
                    "groups \(serviceGroups.joined(separator: " ")) exist (the unit adds them); \(serviceUser) is listed in: \(members.isEmpty ? "none" : members.joined(separator: " "))"
                ))
        } else {
            lines.append(
                .fail(
                    "groups",
                    "the player cannot start: the group\(missing.count == 1 ? "" : "s") \(missing.joined(separator: " ")) it needs \(missing.count == 1 ? "is" : "are") missing",
                    fix: missing.map { "sudo groupadd --system \($0)" }.joined(separator: "; ")
                        + " (or sudo systemd-sysusers), then sudo udevadm trigger",
                    detail: "missing from /etc/group; the unit's SupplementaryGroups= names them"))
        }
        return lines
    }
}
