// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import Synchronization

/// What an SPI panel surface has sent. Bus time is the bytes at their clock (8 bits each); the
/// gaps between transfers (driver, chip select, DC line) come on top. Thread: a value.
public struct SPIPanelStatistics: Sendable, Equatable {
    /// The cost of sending something (one frame, one init).
    public struct Cost: Sendable, Equatable {
        /// CASET/RASET/RAMWR windows.
        public var windows = 0
        public var pixelBytes = 0
        /// Command and parameter bytes.
        public var commandBytes = 0
        /// Transfers (one SPI_IOC_MESSAGE each).
        public var transfers = 0
        /// Data/command line changes.
        public var lineChanges = 0
        public var busNanoseconds: UInt64 = 0
        public var bytes: Int { pixelBytes + commandBytes }

        mutating func add(_ other: Cost) {
            windows += other.windows
            pixelBytes += other.pixelBytes
            commandBytes += other.commandBytes
            transfers += other.transfers
            lineChanges += other.lineChanges
            busNanoseconds += other.busNanoseconds
        }
    }

    /// Batches of windows sent (at most `maxFramesPerSecond` a second).
    public var frames = 0
    /// Everything, init and sleep/wake included.
    public var total = Cost()
    /// The last frame alone.
    public var lastFrame = Cost()
    /// Wall time the worker spent in the transport for frames (the real bus plus driver time).
    public var sendNanoseconds: UInt64 = 0
    public var initializations = 0
}

/// A small SPI panel (ST7789, ST7735S, ILI9341…) driven directly over spidev, for boards whose
/// screen has no kernel framebuffer (Pimoroni Pirate Audio, Waveshare 1.44" LCD HAT) or whose
/// overlay is not loaded.
///
/// `present` converts only the damaged rectangles of the canvas to RGB565 (dithered, big-endian,
/// turned by the rotation) into a panel-sized buffer and returns; a worker thread sends them as
/// CASET/RASET/RAMWR windows in transfers no larger than spidev's buffer, at most
/// `maxFramesPerSecond` times a second (changes in between are merged), so the event loop never
/// waits on the bus. The worker also runs the init sequence (reset pulse, the controller's
/// commands, MADCTL/COLMOD/INVON, sleep out, display on), turns the backlight on after the first
/// frame, puts the panel to sleep and wakes it (`setAwake`), and turns it off in `restore`.
///
/// Thread: the display's thread (the event loop); the worker is internal.
public final class SPIPanelSurface: Surface {
    public let width: Int
    public let height: Int
    public let panel: SPIPanelDescription
    /// Total clockwise rotation of the picture: the panel's plus the screen's.
    public let rotation: Int
    public let maxFramesPerSecond: Int
    private let worker: SPIPanelWorker
    private var presentedOnce = false
    private var stopped = false

    /// A surface on `transport`; starts the worker, which initialises the panel at once.
    /// - Parameters:
    ///   - extraRotation: the screen's rotation on top of the panel's (the box turned over).
    ///   - maxFramesPerSecond: frames sent at most per second (changes in between are merged).
    public init(
        panel: SPIPanelDescription, transport: any SPIPanelTransport, extraRotation: Int = 0,
        maxFramesPerSecond: Int = 20
    ) throws(SPIPanelError) {
        guard [0, 90, 180, 270].contains(extraRotation) else {
            throw SPIPanelError("rotation must be 0, 90, 180 or 270, not \(extraRotation)")
        }
        guard transport.maxTransferBytes >= 64 else {
            throw SPIPanelError("the SPI transfer limit of \(transport.maxTransferBytes) bytes is too small")
        }
        self.panel = panel
        rotation = (panel.rotation + extraRotation) % 360
        let size = panel.canvasSize(extraRotation: extraRotation)
        width = size.width
        height = size.height
        self.maxFramesPerSecond = max(1, maxFramesPerSecond)
        do {
            worker = try SPIPanelWorker(
                panel: panel, transport: transport,
                frameIntervalNanoseconds: 1_000_000_000 / UInt64(self.maxFramesPerSecond))
        } catch {
            throw SPIPanelError("cannot start the SPI panel thread: \(error)")
        }
    }

    /// Opens the real panel: spidev device and control lines (see `SpidevTransport.open`).
    public static func open(
        panel: SPIPanelDescription, gpioChips: [String], extraRotation: Int = 0, maxFramesPerSecond: Int = 20
    ) throws(SPIPanelError) -> SPIPanelSurface {
        let transport = try SpidevTransport.open(panel, gpioChips: gpioChips)
        let surface = try SPIPanelSurface(
            panel: panel, transport: transport, extraRotation: extraRotation, maxFramesPerSecond: maxFramesPerSecond)
        Log.info(
            "screen: SPI panel \(panel.summary), \(transport.speedHz / 1_000_000) MHz accepted, transfers ≤ \(transport.maxTransferBytes) bytes, canvas \(surface.width)×\(surface.height), ≤ \(surface.maxFramesPerSecond) fps"
        )
        return surface
    }

    deinit {
        if !stopped { worker.stop(turnOff: false) }
    }

    // MARK: - Surface

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        guard !stopped else { return }
        let rects = presentedOnce ? damage : [canvas.bounds]
        presentedOnce = true
        let error: SPIPanelError? = worker.state.withLock { s in
            for rect in rects {
                let r = rect.intersection(canvas.bounds)
                if r.isEmpty { continue }
                convert(r, from: canvas)
                SPIPanelWorker.merge(panelRect(r), into: &s.dirty)
            }
            s.requested += 1
            return s.error
        }
        worker.wake()
        if let error { throw error }
    }

    /// Puts the panel to sleep (backlight off, DISPOFF, SLPIN) or wakes it (SLPOUT, DISPON,
    /// backlight on after the next frame). Returns at once; the worker does it.
    public func setAwake(_ awake: Bool) {
        guard !stopped else { return }
        worker.state.withLock {
            $0.wantAwake = awake
            $0.requested += 1
        }
        worker.wake()
    }

    /// Sends what is pending, turns the panel off (backlight off, display off, sleep in) and stops
    /// the worker. Blocks until the worker is done (about one frame).
    public func restore() {
        guard !stopped else { return }
        stopped = true
        worker.stop(turnOff: true)
    }

    // MARK: - for tests and benchmarks

    /// Waits until everything presented has been sent (or sending failed). Polls every
    /// millisecond; false when `timeoutNanoseconds` passed first. Not for the loop's steady state.
    @discardableResult
    public func flush(timeoutNanoseconds: UInt64 = 5_000_000_000) -> Bool {
        let deadline = Syscalls.monotonicNanoseconds() + timeoutNanoseconds
        while !worker.isSettled {
            if Syscalls.monotonicNanoseconds() >= deadline { return false }
            Syscalls.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// What was sent so far.
    public var statistics: SPIPanelStatistics { worker.state.withLock { $0.stats } }

    /// Starts counting from zero.
    public func resetStatistics() { worker.state.withLock { $0.stats = SPIPanelStatistics() } }

    /// The last error of the worker (nil after a later success).
    public var lastError: SPIPanelError? { worker.state.withLock { $0.error } }

    // MARK: - pixels

    /// Panel position of canvas pixel (x, y) as px = ax·x + bx·y + cx, py = ay·x + by·y + cy
    /// (clockwise rotation, as the framebuffer surface turns).
    private var transform: (ax: Int, bx: Int, cx: Int, ay: Int, by: Int, cy: Int) {
        switch rotation {
        case 90: (0, -1, height - 1, 1, 0, 0)
        case 180: (-1, 0, width - 1, 0, -1, height - 1)
        case 270: (0, 1, 0, -1, 0, width - 1)
        default: (1, 0, 0, 0, 1, 0)
        }
    }

    /// Where canvas rectangle `r` lands on the panel.
    func panelRect(_ r: Rect) -> Rect {
        let t = transform
        let x0 = t.ax * r.x + t.bx * r.y + t.cx
        let y0 = t.ay * r.x + t.by * r.y + t.cy
        let x1 = t.ax * (r.maxX - 1) + t.bx * (r.maxY - 1) + t.cx
        let y1 = t.ay * (r.maxX - 1) + t.by * (r.maxY - 1) + t.cy
        return Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0) + 1, height: abs(y1 - y0) + 1)
    }

    /// Converts `r` of the canvas into the worker's panel buffer (the caller holds its lock).
    private func convert(_ r: Rect, from canvas: Canvas) {
        let t = transform
        let stride = panel.width
        let pending = worker.pending
        let dither = panel.dither
        let reds = FramebufferSurface.red565
        let greens = FramebufferSurface.green565
        let blues = FramebufferSurface.blue565
        FramebufferSurface.bayer.withUnsafeBufferPointer { bayer in
            for y in r.y..<r.maxY {
                let source = canvas.pixels.baseAddress! + y * canvas.width
                var px = t.ax * r.x + t.bx * y + t.cx
                var py = t.ay * r.x + t.by * y + t.cy
                var index = py * stride + px
                let step = t.ax + t.ay * stride
                for x in r.x..<r.maxX {
                    let c = source[x]
                    let value: UInt16
                    if dither {
                        let row = Int(bayer[(py & 3) << 2 | (px & 3)]) << 8
                        value =
                            reds[row | Int(c >> 16 & 0xFF)] | greens[row | Int(c >> 8 & 0xFF)]
                            | blues[row | Int(c & 0xFF)]
                    } else {
                        value = UInt16(truncatingIfNeeded: (c >> 8 & 0xF800) | (c >> 5 & 0x07E0) | (c >> 3 & 0x001F))
                    }
                    pending[index] = value.bigEndian
                    index += step
                    px += t.ax
                    py += t.ay
                }
            }
        }
    }
}

/// The sending side of an SPI panel surface: a thread that owns the transport.
///
/// Thread: `state` (and the `pending` buffer it guards) from any thread under the lock; the rest
/// on the worker thread; `wake`/`stop` from the surface's thread.
final class SPIPanelWorker: Sendable {
    struct State {
        /// Panel rectangles whose pixels in `pending` are newer than the panel's.
        var dirty: [Rect] = []
        var wantAwake = true
        var panelAwake = true
        var initialized = false
        var stopping = false
        var turnOffAtStop = false
        var busy = false
        var error: SPIPanelError?
        var stats = SPIPanelStatistics()
        /// Requests (frames, sleep/wake) made, and the latest one the worker has finished with.
        var requested: UInt64 = 1
        var handled: UInt64 = 0
    }

    let state = Locked<State>(State())
    /// The panel's window as RGB565 big-endian words, row by row; guarded by `state`'s lock.
    nonisolated(unsafe) let pending: UnsafeMutablePointer<UInt16>
    /// Pixels being sent (worker thread only).
    nonisolated(unsafe) private let sendBuffer: UnsafeMutablePointer<UInt16>
    private let wakeUp = EventCount()
    /// Wake-ups asked for so far: the worker runs once for any number of them since its last run
    /// (and after a failed frame waits for the next one, as it did when this was a semaphore).
    private let wakeRequests = Atomic<UInt64>(0)
    private let thread = Locked<KioskThread?>(nil)
    private let transport: any SPIPanelTransport
    private let panel: SPIPanelDescription
    private let frameInterval: UInt64
    /// Commands and their parameters go at most at 10 MHz, as the kernel's mipi-dbi sends them.
    private let commandSpeedHz: Int
    /// Merging two windows costs their gap in pixels but saves a window's commands and transfers.
    static let mergeSlackPixels = 512
    static let maxWindows = 16

    init(panel: SPIPanelDescription, transport: any SPIPanelTransport, frameIntervalNanoseconds: UInt64) throws(Errno) {
        self.panel = panel
        self.transport = transport
        frameInterval = frameIntervalNanoseconds
        commandSpeedHz = min(panel.speedHz, 10_000_000)
        let count = panel.width * panel.height
        pending = .allocate(capacity: count)
        pending.initialize(repeating: 0, count: count)
        sendBuffer = .allocate(capacity: count)
        sendBuffer.initialize(repeating: 0, count: count)
        let started = try KioskThread(name: "kiosk-spi-panel") { [self] in self.run() }
        thread.withLock { $0 = started }
        wake()  // initialise the panel now
    }

    deinit {
        pending.deallocate()
        sendBuffer.deallocate()
    }

    func wake() {
        wakeRequests.add(1, ordering: .releasing)
        wakeUp.signal()
    }

    /// The worker has finished with every request made so far (sent, or failed and waiting for
    /// the next change).
    var isSettled: Bool {
        state.withLock { s in !s.busy && s.handled == s.requested }
    }

    /// Sends what is pending, optionally turns the panel off, and ends the thread (joined).
    func stop(turnOff: Bool) {
        let running: KioskThread? = thread.withLock { t in
            defer { t = nil }
            return t
        }
        guard let running else { return }
        state.withLock {
            $0.stopping = true
            $0.turnOffAtStop = turnOff
        }
        wake()
        running.join()
    }

    /// Adds `rect` to `list`, merged with the windows it overlaps or nearly touches.
    static func merge(_ rect: Rect, into list: inout [Rect]) {
        var r = rect
        var i = 0
        while i < list.count {
            let other = list[i]
            let union = other.union(r)
            if other.intersects(r) || union.area <= other.area + r.area + mergeSlackPixels {
                r = union
                list.remove(at: i)
                i = 0
            } else {
                i += 1
            }
        }
        list.append(r)
        if list.count > maxWindows {
            list = [list.reduce(Rect.zero) { $0.union($1) }]
        }
    }

    // MARK: - worker thread

    private func run() {
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: Link.scratchBytes)
        defer { scratch.deallocate() }
        var link = Link(
            transport: transport, commandSpeedHz: commandSpeedHz, dataSpeedHz: panel.speedHz, scratch: scratch)
        var initialized = false
        var panelAwake = true
        var backlightOn = false
        var sentFrame = false
        var nextFrameAt: UInt64 = 0
        var windows: [(rect: Rect, offset: Int)] = []
        var handledRequests: UInt64 = 0
        while true {
            wakeUp.wait(until: { wakeRequests.load(ordering: .acquiring) != handledRequests })
            handledRequests = wakeRequests.load(ordering: .acquiring)
            let hasWork = state.withLock { s in
                let work = s.stopping || !initialized || !s.dirty.isEmpty || s.wantAwake != panelAwake
                if !work { s.handled = s.requested }
                return work
            }
            if !hasWork { continue }
            // Pacing: changes arriving meanwhile are merged into the next frame.
            let now = Syscalls.monotonicNanoseconds()
            if nextFrameAt > now && !state.withLock({ $0.stopping }) {
                Syscalls.sleep(nanoseconds: nextFrameAt - now)
            }
            windows.removeAll(keepingCapacity: true)
            let (wantAwake, stopping, turnOff, generation) = state.withLock { s in
                s.busy = true
                var offset = 0
                for r in s.dirty {
                    for y in r.y..<r.maxY {
                        (sendBuffer + offset + (y - r.y) * r.width).update(
                            from: pending + y * panel.width + r.x, count: r.width)
                    }
                    windows.append((r, offset))
                    offset += r.area
                }
                s.dirty.removeAll(keepingCapacity: true)
                return (s.wantAwake, s.stopping, s.turnOffAtStop, s.requested)
            }
            link.cost = SPIPanelStatistics.Cost()
            var frameCost: SPIPanelStatistics.Cost?
            var sendTime: UInt64 = 0
            var didInitialize = false
            var failure: SPIPanelError?
            do throws(SPIPanelError) {
                if !initialized {
                    try initialize(&link)
                    initialized = true
                    didInitialize = true
                    panelAwake = true
                    backlightOn = false
                }
                if wantAwake != panelAwake {
                    if wantAwake {
                        try link.command(DCS.sleepOut)
                        transport.pause(milliseconds: 120)
                        try link.command(DCS.displayOn)
                    } else {
                        try transport.setBacklight(false)
                        backlightOn = false
                        try link.command(DCS.displayOff)
                        try link.command(DCS.sleepIn)
                        transport.pause(milliseconds: 5)
                    }
                    panelAwake = wantAwake
                }
                if !windows.isEmpty {
                    let before = link.cost
                    let start = Syscalls.monotonicNanoseconds()
                    for window in windows { try send(window.rect, offset: window.offset, &link) }
                    sendTime = Syscalls.monotonicNanoseconds() - start
                    nextFrameAt = start + frameInterval
                    var cost = link.cost
                    cost.windows -= before.windows
                    cost.pixelBytes -= before.pixelBytes
                    cost.commandBytes -= before.commandBytes
                    cost.transfers -= before.transfers
                    cost.lineChanges -= before.lineChanges
                    cost.busNanoseconds -= before.busNanoseconds
                    frameCost = cost
                    sentFrame = true
                }
                if panelAwake && sentFrame && !backlightOn {
                    try transport.setBacklight(true)
                    backlightOn = true
                }
                if stopping && turnOff && initialized {
                    try transport.setBacklight(false)
                    try link.command(DCS.displayOff)
                    try link.command(DCS.sleepIn)
                }
            } catch {
                failure = error
                initialized = false
                link.dataMode = nil
            }
            let cost = link.cost
            state.withLock { s in
                if let failure {
                    // The panel is initialised again before the next frame, and a reset may have
                    // cleared its memory: send all of it then (`pending` holds the whole picture).
                    s.dirty = [Rect(x: 0, y: 0, width: panel.width, height: panel.height)]
                    s.error = failure
                } else {
                    s.error = nil
                }
                s.initialized = initialized
                s.panelAwake = panelAwake
                s.stats.total.add(cost)
                if let frameCost {
                    s.stats.frames += 1
                    s.stats.lastFrame = frameCost
                    s.stats.sendNanoseconds += sendTime
                }
                if didInitialize { s.stats.initializations += 1 }
                s.handled = generation
                s.busy = false
            }
            if stopping { return }
        }
    }

    /// Reset pulse (when wired), the controller's sequence, then the panel's orientation, colour
    /// format, inversion, sleep out and display on.
    private func initialize(_ link: inout Link) throws(SPIPanelError) {
        link.dataMode = nil
        if transport.hasReset {
            try transport.setReset(true)
            transport.pause(milliseconds: 20)
            try transport.setReset(false)
            transport.pause(milliseconds: 120)
        }
        for command in panel.controller.initSequence {
            try link.command(command.command, command.parameters)
            transport.pause(milliseconds: command.delayMs)
        }
        try link.command(DCS.memoryAccessControl, [panel.madctlValue])
        try link.command(DCS.pixelFormat, [panel.controller.pixelFormat])
        try link.command(panel.invert ? DCS.inversionOn : DCS.inversionOff)
        try link.command(DCS.sleepOut)
        transport.pause(milliseconds: 120)
        try link.command(DCS.displayOn)
        transport.pause(milliseconds: 20)
    }

    /// One window: CASET, RASET (16-bit big-endian start and end, offsets added), RAMWR, pixels.
    private func send(_ r: Rect, offset: Int, _ link: inout Link) throws(SPIPanelError) {
        let x0 = r.x + panel.xOffset
        let x1 = r.maxX - 1 + panel.xOffset
        let y0 = r.y + panel.yOffset
        let y1 = r.maxY - 1 + panel.yOffset
        try link.command(DCS.columnAddressSet, [UInt8(x0 >> 8), UInt8(x0 & 0xFF), UInt8(x1 >> 8), UInt8(x1 & 0xFF)])
        try link.command(DCS.rowAddressSet, [UInt8(y0 >> 8), UInt8(y0 & 0xFF), UInt8(y1 >> 8), UInt8(y1 & 0xFF)])
        try link.command(DCS.memoryWrite)
        try link.pixels(UnsafeRawBufferPointer(start: sendBuffer + offset, count: r.area * 2))
        link.cost.windows += 1
    }

    /// The data/command line state and the byte counts while talking to the transport.
    struct Link {
        static let scratchBytes = 64
        let transport: any SPIPanelTransport
        let commandSpeedHz: Int
        let dataSpeedHz: Int
        /// `scratchBytes` bytes for commands and parameters (owned by the worker).
        let scratch: UnsafeMutablePointer<UInt8>
        /// The line's level as last driven (nil: unknown, drive it next time).
        var dataMode: Bool?
        var cost = SPIPanelStatistics.Cost()

        mutating func mode(_ isData: Bool) throws(SPIPanelError) {
            if dataMode == isData { return }
            try transport.setDataMode(isData)
            dataMode = isData
            cost.lineChanges += 1
        }

        mutating func transfer(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError) {
            try transport.write(bytes, speedHz: speedHz)
            cost.transfers += 1
            cost.busNanoseconds += UInt64(bytes.count) * 8_000_000_000 / UInt64(speedHz)
        }

        mutating func command(_ command: UInt8, _ parameters: [UInt8] = []) throws(SPIPanelError) {
            try mode(false)
            scratch[0] = command
            try transfer(UnsafeRawBufferPointer(start: scratch, count: 1), speedHz: commandSpeedHz)
            cost.commandBytes += 1
            if parameters.isEmpty { return }
            try mode(true)
            precondition(parameters.count <= Link.scratchBytes, "at most 64 parameter bytes")
            for (i, byte) in parameters.enumerated() { scratch[i] = byte }
            try transfer(UnsafeRawBufferPointer(start: scratch, count: parameters.count), speedHz: commandSpeedHz)
            cost.commandBytes += parameters.count
        }

        mutating func pixels(_ bytes: UnsafeRawBufferPointer) throws(SPIPanelError) {
            try mode(true)
            let limit = transport.maxTransferBytes & ~1
            var offset = 0
            while offset < bytes.count {
                let n = min(limit, bytes.count - offset)
                try transfer(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]), speedHz: dataSpeedHz)
                offset += n
            }
            cost.pixelBytes += bytes.count
        }
    }
}
