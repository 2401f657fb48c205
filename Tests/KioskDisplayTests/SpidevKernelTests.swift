// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskDisplay
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// The real spidev path against a real kernel spidev device: the VM system test
/// (Tests/System/scenarios/92-spi-panel-spidev.sh) loads spi-record.ko (Tests/SPISystem/kmod), a
/// virtual SPI controller with spidev bound that records every transfer with the level of the
/// data/command line (a gpio-sim line) at that moment.
/// The recording is decoded by the same panel simulator as the recording transport's.
/// Skipped where there is no /proc/spi-record (this machine has no SPI controller).
@Suite(.tags(.integration), .serialized) struct SpidevKernelTests {
    static let proc = "/proc/spi-record"
    static let configfs = "/sys/kernel/config/gpio-sim"

    static var unavailableReason: String? {
        if !Syscalls.exists(proc) {
            return
                "no \(proc): load Tests/SPISystem/kmod/spi-record.ko (the VM system test does; this machine has no SPI controller)"
        }
        if !Syscalls.exists(configfs) { return "no gpio-sim (\(configfs)) for the data/command line" }
        return nil
    }

    /// The spidev node of the spi-record controller (made with mknod when there is no devtmpfs/udev).
    static func spidevNode(in dir: TemporaryDirectory) throws -> String {
        let bus = try readText("/sys/module/spi_record/parameters/bus_num")
        let name = "spidev\(bus).0"
        if Syscalls.exists("/dev/\(name)") { return "/dev/\(name)" }
        let numbers = try readText("/sys/class/spidev/\(name)/dev").split(separator: ":").compactMap { UInt32($0) }
        try #require(numbers.count == 2)
        let path = dir.file(name)
        #expect(
            mknod(path, S_IFCHR | 0o600, makeDeviceNumber(major: UInt64(numbers[0]), minor: UInt64(numbers[1]))) == 0)
        return path
    }

    /// The recorded transfers as transport events: the DC level, then the bytes.
    static func recording() throws -> (events: [RecordingSPITransport.Event], modes: Set<UInt8>, bits: Set<UInt8>) {
        let bytes = try Syscalls.readFile(proc, limit: 64 << 20)
        var events: [RecordingSPITransport.Event] = []
        var modes: Set<UInt8> = []
        var bits: Set<UInt8> = []
        var i = 0
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        while i + 12 <= bytes.count {
            let length = u32(i)
            let speed = u32(i + 4)
            let dc = bytes[i + 8]
            modes.insert(bytes[i + 9])
            bits.insert(bytes[i + 10])
            try #require(dc != 0xFF, "the data/command line could not be read at transfer \(events.count / 2)")
            try #require(i + 12 + length <= bytes.count)
            events.append(.dataMode(dc == 1))
            events.append(.write(Array(bytes[(i + 12)..<(i + 12 + length)]), speedHz: speed))
            i += 12 + length
        }
        return (events, modes, bits)
    }

    @Test(.enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func pirateAudioFrameThroughTheKernelsSpidev() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let chip = try SimulatedChip(lines: 8)
        try writeText("/sys/module/spi_record/parameters/dc_label", chip.label)
        try writeText("/sys/module/spi_record/parameters/dc_offset", "2")
        try writeText(Self.proc, "clear")

        var panel = try boardPanel("pirate-audio")
        panel.device = try Self.spidevNode(in: dir)
        panel.gpioChips = [chip.label]
        panel.dc = 2
        panel.backlight = 3
        let transport = try SpidevTransport.open(panel, gpioChips: [])
        #expect(transport.speedHz == 80_000_000)
        #expect(transport.maxTransferBytes == SpidevDevice.bufferSize())
        let surface = try SPIPanelSurface(panel: panel, transport: transport)
        let canvas = noiseCanvas(width: 240, height: 240, seed: 5)
        try surface.present(canvas, damage: [canvas.bounds])
        #expect(surface.flush())
        #expect(surface.lastError == nil)
        #expect(try chip.value(3) == "1", "backlight on after the first frame")
        // A small change: one window.
        canvas.fill(Rect(x: 100, y: 100, width: 20, height: 10), Color(rgb: 0xFF8000))
        try surface.present(canvas, damage: [Rect(x: 100, y: 100, width: 20, height: 10)])
        #expect(surface.flush())
        #expect(surface.statistics.lastFrame.pixelBytes == 20 * 10 * 2)

        let (events, modes, bits) = try Self.recording()
        #expect(modes == [0], "SPI mode 0")
        #expect(bits == [8])
        var speeds: Set<Int> = []
        var largest = 0
        for case .write(let bytes, let speed) in events {
            speeds.insert(speed)
            largest = max(largest, bytes.count)
        }
        #expect(speeds == [10_000_000, 80_000_000])
        #expect(largest == min(transport.maxTransferBytes, 240 * 240 * 2))
        var simulator = PanelSimulator(
            controller: .st7789, nativelyInverted: true, maxTransferBytes: transport.maxTransferBytes)
        simulator.feed(events)
        simulator.finish()
        #expect(simulator.problems.isEmpty, "\(simulator.problems.prefix(5))")
        #expect(!simulator.asleep && simulator.displayOn)
        #expect(
            difference(
                simulator.shownWindow(x: 0, y: 0, width: 240, height: 240),
                Reference.panelImage(canvas, rotation: 270, dither: true)) == nil)

        surface.restore()
        #expect(try chip.value(3) == "0", "backlight off after restore")
    }

    /// spidev refuses a message larger than its buffer, which is why transfers are split.
    @Test(.enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func spidevRefusesMoreThanItsBuffer() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fd = try Syscalls.open(try Self.spidevNode(in: dir), O_RDWR)
        defer { Syscalls.closeIgnoringErrors(fd) }
        #expect(kiosk_spi_configure(fd, 0, 8, 1_000_000) == 0)
        var mode: UInt8 = 9
        var bits: UInt8 = 0
        var speed: UInt32 = 0
        #expect(kiosk_spi_read_configuration(fd, &mode, &bits, &speed) == 0)
        #expect(mode == 0 && bits == 8 && speed == 1_000_000)
        let size = SpidevDevice.bufferSize()
        var bytes = [UInt8](repeating: 0x55, count: size + 1)
        #expect(kiosk_spi_write(fd, &bytes, UInt32(size), 1_000_000) == Int32(size))
        errno = 0
        #expect(kiosk_spi_write(fd, &bytes, UInt32(size + 1), 1_000_000) == -1)
        #expect(errno == EMSGSIZE)
    }
}

private func writeText(_ path: String, _ text: String) throws { try writeSysfsText(path, text) }

private func readText(_ path: String) throws -> String { try readSysfsText(path) }
