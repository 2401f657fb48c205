// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The screen of the player: takes `ScreenState`s and decides when to draw.
///
/// - Redraws only when something visible changed: the state (elapsed time counted in whole
///   seconds), artwork that arrived, the volume overlay appearing or timing out. While playing,
///   the elapsed time is advanced from the last `show` once a second, so the progress moves
///   even if the player only calls `show` on changes.
/// - Draws the whole screen into a canvas, compares it with the previous frame and hands only
///   the changed rectangles to the surface.
/// - Artwork is loaded, decoded and scaled on a worker thread (`provideArtwork`), cached by key
///   and size (small LRU), and drawn when it arrives; until then, and when it cannot be decoded,
///   the placeholder is shown.
/// - Frame pacing (`minimumFrameNanoseconds`): changes coming faster are drawn together once the
///   interval has passed.
/// - Screen sleep (`idleOffNanoseconds`): after that long without `noteActivity()` (input), the
///   surface is turned off and nothing is drawn; the next activity wakes it and draws what changed.
/// - `.off` (exhibit mode outside its opening hours): drawn black, then the surface is turned off
///   until another state comes; input does not wake it.
///
/// Thread: the event-loop thread only.
public final class Display {
    public let surface: any Surface
    public let renderer: ScreenRenderer
    /// How long the volume overlay stays after the volume last changed.
    public var overlayNanoseconds: UInt64 = 1_500_000_000
    /// Frames handed to the surface (for tests and statistics).
    public private(set) var framesPresented = 0
    /// The state last given to `show`.
    public private(set) var state: ScreenState = .off
    /// Frames are drawn at most this often (0: as soon as something changes).
    public var minimumFrameNanoseconds: UInt64 = 0
    /// The screen sleeps after this long without `noteActivity()` (0: never).
    public var idleOffNanoseconds: UInt64 = 0 {
        didSet { restartIdleTimer() }
    }
    /// Whether the screen is asleep (surface off, nothing drawn).
    public private(set) var isAsleep = false
    /// Called with true when the screen goes to sleep, false when it wakes (the card readers poll
    /// less often while it sleeps).
    public var onSleepChange: ((Bool) -> Void)?

    private let loop: EventLoop
    private let canvas: Canvas
    private let previous: Canvas
    private var stateTime: UInt64 = 0
    private var drawn: ScreenState?
    private var hasDrawn = false
    private var artworkChanged = false
    private var tickTimer: TimerID?
    private var overlayTimer: TimerID?
    private var overlayValue: Int?
    private var overlayUntil: UInt64 = 0
    private var cache = ArtworkCache()
    private var loaders: [String: @Sendable () -> [UInt8]?] = [:]
    private var loaderOrder: [String] = []
    private var pending: Set<ArtworkCache.Key> = []
    private var worker: ArtworkWorker?
    private var lastPresentError: String?
    private var isShutDown = false
    /// The surface is off because the state is `.off` (not idle sleep).
    private var isDark = false
    private var lastPresentTime: UInt64 = 0
    private var paceTimer: TimerID?
    private var idleTimer: TimerID?
    static let maxLoaders = 512

    /// A display drawing on `surface`. Starts the artwork worker thread.
    public init(
        loop: EventLoop, surface: any Surface, fonts: FontSet, theme: Theme = .dark,
        imageLimits: ImageLimits = .default
    ) throws(Errno) {
        self.loop = loop
        self.surface = surface
        renderer = ScreenRenderer(fonts: fonts, theme: theme)
        canvas = Canvas(width: surface.width, height: surface.height)
        previous = Canvas(width: surface.width, height: surface.height)
        let mailbox = Mailbox<ArtworkResult>(loop: loop) { [weak self] result in self?.received(result) }
        worker = try ArtworkWorker(limits: imageLimits, deliver: mailbox)
    }

    deinit {
        worker?.stop()
    }

    /// The canvas as last drawn.
    public var currentFrame: Canvas { canvas }

    /// Shows `state`; draws only if what is visible changed.
    public func show(_ state: ScreenState) {
        loop.assertInLoop()
        guard !isShutDown else { return }
        let now = Syscalls.monotonicNanoseconds()
        if let volume = Self.volumeOverlay(of: state) {
            if volume != overlayValue {
                overlayValue = volume
                overlayUntil = now + overlayNanoseconds
                if let t = overlayTimer { loop.cancel(t) }
                overlayTimer = loop.schedule(afterNanoseconds: overlayNanoseconds + 1_000_000) { [weak self] in
                    self?.overlayTimer = nil
                    self?.refresh()
                }
            }
        } else {
            overlayValue = nil
            overlayUntil = 0
        }
        let darkens = state == .off && !isDark
        if isDark && state != .off { followDarkness(state) }
        self.state = state
        stateTime = now
        requestArtwork()
        refresh()
        // Dark: drawn black first (a surface that cannot turn off shows that), then turned off.
        if darkens { followDarkness(state) }
    }

    /// Turns the surface off for `.off` (the backlight or the HDMI signal, where the surface can)
    /// and on again for anything else; idle sleep and a wake from it leave a dark screen dark.
    private func followDarkness(_ state: ScreenState) {
        isDark = state == .off
        if !isAsleep && !isShutDown { surface.setAwake(!isDark) }
    }

    /// The volume overlay a state asks for (now playing and the exhibit screen have one).
    private static func volumeOverlay(of state: ScreenState) -> Int? {
        switch state {
        case .nowPlaying(let s): s.volumeOverlay
        case .exhibit(let s): s.volumeOverlay
        case .browse, .help, .message, .off: nil
        }
    }

    /// Registers how to get the encoded artwork for `key` (a cover file, or the picture embedded
    /// in the music file). `load` runs on the worker thread when the artwork is first needed.
    public func provideArtwork(key: String, load: @escaping @Sendable () -> [UInt8]?) {
        loop.assertInLoop()
        if loaders[key] == nil {
            loaderOrder.append(key)
            if loaderOrder.count > Display.maxLoaders { loaders[loaderOrder.removeFirst()] = nil }
        }
        loaders[key] = load
        requestArtwork()
    }

    /// Forgets cached artwork of `key` (its file changed); it is loaded again when next shown.
    public func forgetArtwork(key: String) {
        loop.assertInLoop()
        cache.removeAll(key: key)
        requestArtwork()
        artworkChanged = true
        refresh()
    }

    /// Input happened: wakes a sleeping screen (drawing what changed meanwhile) and restarts the
    /// idle countdown.
    public func noteActivity() {
        loop.assertInLoop()
        guard !isShutDown else { return }
        if isAsleep {
            isAsleep = false
            if !isDark { surface.setAwake(true) }
            refresh()
            onSleepChange?(false)
        }
        restartIdleTimer()
    }

    private func restartIdleTimer() {
        if let t = idleTimer { loop.cancel(t) }
        idleTimer = nil
        guard idleOffNanoseconds > 0, !isShutDown, !isAsleep else { return }
        idleTimer = loop.schedule(afterNanoseconds: idleOffNanoseconds) { [weak self] in
            guard let self else { return }
            self.idleTimer = nil
            self.sleep()
        }
    }

    private func sleep() {
        guard !isAsleep, !isShutDown else { return }
        isAsleep = true
        for t in [tickTimer, paceTimer].compactMap({ $0 }) { loop.cancel(t) }
        tickTimer = nil
        paceTimer = nil
        surface.setAwake(false)
        onSleepChange?(true)
    }

    /// Stops the worker, clears the screen to black and gives it back (console text mode).
    public func shutdown() {
        loop.assertInLoop()
        guard !isShutDown else { return }
        isShutDown = true
        for t in [tickTimer, overlayTimer, paceTimer, idleTimer].compactMap({ $0 }) { loop.cancel(t) }
        worker?.stop()
        worker = nil
        canvas.fill(Color(rgb: 0))
        let damage = canvas.changedRects(comparedTo: previous)
        if !damage.isEmpty || !hasDrawn { present(hasDrawn ? damage : [canvas.bounds]) }
        surface.restore()
    }

    // MARK: - drawing decisions

    /// The state as it looks right now: elapsed time advanced while playing and cut to whole
    /// seconds, the volume overlay only while it is due.
    func visibleState(now: UInt64) -> ScreenState {
        switch state {
        case .nowPlaying(var s):
            s.elapsedSeconds = shownElapsed(
                s.elapsedSeconds, total: s.totalSeconds, playing: s.playback == .playing, now)
            if now >= overlayUntil { s.volumeOverlay = nil }
            return .nowPlaying(s)
        case .exhibit(var s):
            s.elapsedSeconds = shownElapsed(s.elapsedSeconds, total: s.totalSeconds, playing: s.clipTitle != nil, now)
            if now >= overlayUntil { s.volumeOverlay = nil }
            return .exhibit(s)
        case .browse, .help, .message, .off:
            return state
        }
    }

    /// The elapsed time as shown at `now`: advanced since the last `show` while playing, in whole
    /// seconds, no further than the total.
    private func shownElapsed(_ elapsedSeconds: Double, total: Double?, playing: Bool, _ now: UInt64) -> Double {
        var elapsed = elapsedSeconds
        if playing && now > stateTime { elapsed += Double(now - stateTime) / 1e9 }
        if let total, total > 0 { elapsed = min(elapsed, total) }
        return elapsed.isFinite ? max(0, elapsed.rounded(.down)) : 0
    }

    /// The elapsed time of the last `show` when it counts up by itself (something plays), else nil.
    private var tickingElapsed: Double? {
        switch state {
        case .nowPlaying(let s) where s.playback == .playing: s.elapsedSeconds
        case .exhibit(let s) where s.clipTitle != nil: s.elapsedSeconds
        default: nil
        }
    }

    private func refresh() {
        guard !isShutDown, !isAsleep else { return }
        let now = Syscalls.monotonicNanoseconds()
        let visible = visibleState(now: now)
        if let t = tickTimer {
            loop.cancel(t)
            tickTimer = nil
        }
        if let elapsed = tickingElapsed {
            // Wake when the shown second changes.
            let exact = elapsed + Double(now - stateTime) / 1e9
            let untilNext = (exact.rounded(.down) + 1 - exact) * 1e9
            let delay = UInt64(max(1_000_000, min(1e9, untilNext.isFinite ? untilNext : 1e9))) + 1_000_000
            tickTimer = loop.schedule(afterNanoseconds: delay) { [weak self] in
                self?.tickTimer = nil
                self?.refresh()
            }
        }
        if hasDrawn && visible == drawn && !artworkChanged { return }
        if hasDrawn && minimumFrameNanoseconds > 0 && now < lastPresentTime + minimumFrameNanoseconds {
            // Too soon after the last frame: draw the latest state once the interval has passed.
            if paceTimer == nil {
                paceTimer = loop.schedule(afterNanoseconds: lastPresentTime + minimumFrameNanoseconds - now) {
                    [weak self] in
                    self?.paceTimer = nil
                    self?.refresh()
                }
            }
            return
        }
        artworkChanged = false
        drawn = visible
        renderer.render(visible, on: canvas) { [unowned self] key, size in
            if case .image(let image) = cache.get(key, size) { return image }
            return nil
        }
        let damage = hasDrawn ? canvas.changedRects(comparedTo: previous) : [canvas.bounds]
        hasDrawn = true
        let wordsChanged = (surface as? any CaptionedSurface)?.caption(visible) ?? false
        if damage.isEmpty && !wordsChanged { return }
        present(damage)
    }

    private func present(_ damage: [Rect]) {
        lastPresentTime = Syscalls.monotonicNanoseconds()
        do {
            try surface.present(canvas, damage: damage)
            framesPresented += 1
            lastPresentError = nil
        } catch {
            let text = "\(error)"
            if text != lastPresentError { Log.error("screen: \(text)") }
            lastPresentError = text
        }
        previous.copy(from: canvas)
    }

    // MARK: - artwork

    private func requestArtwork() {
        guard let worker else { return }
        for need in ScreenRenderer.artworkNeeds(state, size: canvas.size) {
            let key = ArtworkCache.Key(key: need.key, size: need.size)
            guard !cache.contains(need.key, need.size), !pending.contains(key), let load = loaders[need.key] else {
                continue
            }
            pending.insert(key)
            worker.request(ArtworkWorker.Job(key: need.key, size: need.size, load: load))
        }
    }

    private func received(_ result: ArtworkResult) {
        pending.remove(ArtworkCache.Key(key: result.key, size: result.size))
        if result.dropped { return }
        if let image = result.image {
            cache.insert(result.key, result.size, .image(image))
        } else {
            if result.nothingToShow {
                Log.debug("artwork \(result.key): none; showing the placeholder")
            } else {
                Log.warning("artwork \(result.key): \(result.problem ?? "unavailable"); showing the placeholder")
            }
            cache.insert(result.key, result.size, .failed)
        }
        let visible = ScreenRenderer.artworkNeeds(state, size: canvas.size).contains {
            $0.key == result.key && $0.size == result.size
        }
        if visible && result.image != nil {
            artworkChanged = true
            refresh()
        }
    }

    /// Number of decoded artwork entries held (for tests).
    public var cachedArtworkCount: Int { cache.count }
}
