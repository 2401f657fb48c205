// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskHardware
import KioskSystem

/// Bluetooth headphones (`bluetooth` in config.json): the adapter BlueZ drives, bluez-alsa on the
/// bus, and the headphones paired with the box, connected or not, asked of bluetoothd over the
/// system bus as the player's `BluetoothWatch` asks it (`BlueZ`, without registering an agent).
///
/// Thread: any (blocking bus calls: the doctor's own thread).
public enum BluetoothCheck {
    /// What the bus said, for `lines(_:)`: the adapter or why there is none, bluez-alsa's bus name,
    /// and the adapter's devices.
    public struct Findings: Sendable {
        public var adapter: Result<(address: String, powered: Bool), BlueZError>
        public var blueAlsa: Result<Bool, BlueZError>
        public var devices: [BlueZ.Device]

        public init(
            adapter: Result<(address: String, powered: Bool), BlueZError>, blueAlsa: Result<Bool, BlueZError>,
            devices: [BlueZ.Device]
        ) {
            self.adapter = adapter
            self.blueAlsa = blueAlsa
            self.devices = devices
        }
    }

    /// Asks bluetoothd and the bus (the live system only).
    public static func look(_ config: BluetoothConfig) -> Findings {
        let blueAlsa = BlueZ.nameHasOwner("org.bluealsa")
        do throws(BlueZError) {
            let bluez = try BlueZ(adapter: config.adapter, agent: false)
            let adapter = try bluez.adapter()
            let devices = (try? bluez.devices()) ?? []
            return Findings(adapter: .success((adapter.address, adapter.powered)), blueAlsa: blueAlsa, devices: devices)
        } catch {
            return Findings(adapter: .failure(error), blueAlsa: blueAlsa, devices: [])
        }
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        guard let config = context.resolved.config.bluetooth else { return [] }
        guard context.root.prefix.isEmpty else {
            return [.notChecked("bluetooth", "BlueZ is asked over the system bus of the running system only")]
        }
        return lines(config, look(config))
    }

    /// The lines for what was found (tests give their own findings).
    public static func lines(_ config: BluetoothConfig, _ found: Findings) -> [DoctorLine] {
        var lines: [DoctorLine] = []
        switch found.adapter {
        case .success(let adapter):
            if adapter.powered {
                lines.append(
                    .pass("bluetooth", "adapter \(config.adapter) (\(adapter.address)), powered, through bluetoothd"))
            } else {
                lines.append(
                    .info(
                        "bluetooth", "adapter \(config.adapter) (\(adapter.address)) is off",
                        fix: "the player powers it on at start; if it stays off: rfkill list (a blocked radio)"))
            }
        case .failure(let error):
            lines.append(
                .fail(
                    "bluetooth", "\(error); the box cannot use headphones and plays on the speaker",
                    fix:
                        "apt install bluez and systemctl enable --now bluetooth; on a Pi the adapter needs no disable-bt overlay in config.txt (hciconfig -a lists adapters)"
                ))
        }
        switch found.blueAlsa {
        case .success(true):
            lines.append(.pass("bluetooth", "bluez-alsa runs (org.bluealsa on the system bus)"))
        case .success(false):
            lines.append(
                .fail(
                    "bluetooth", "bluez-alsa does not run: no sound can go to headphones",
                    fix: "apt install bluez-alsa-utils libasound2-plugin-bluez and systemctl enable --now bluealsa"))
        case .failure(let error):
            lines.append(
                .fail("bluetooth", "bluez-alsa: \(error)", fix: "check that dbus runs (systemctl status dbus)"))
        }
        if case .success = found.adapter {
            let headphones = found.devices.filter { $0.paired && $0.audioSink }
            if headphones.isEmpty {
                lines.append(
                    .info(
                        "bluetooth", "no headphones paired",
                        fix: "the bluetooth-pair action or card pairs them (docs/buttons-and-cards.md)"))
            }
            for d in headphones {
                let state =
                    d.connected && d.transport
                    ? "connected, audio link up (\(BluetoothConfig.pcm(address: d.address)))"
                    : d.connected ? "connected, no audio link yet" : "not connected"
                lines.append(
                    .pass(
                        "bluetooth",
                        "headphones \(d.name) (\(d.address)): paired\(d.trusted ? ", trusted" : ""), \(state)"))
            }
        }
        return lines
    }
}
