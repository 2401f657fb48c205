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
        if case .nowPlaying(let s) = state, let volume = s.volumeOverlay {
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
        self.state = state
        stateTime = now
        requestArtwork()
        refresh()
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
            surface.setAwake(true)
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
        guard case .nowPlaying(var s) = state else { return state }
        var elapsed = s.elapsedSeconds
        if s.playback == .playing && now > stateTime { elapsed += Double(now - stateTime) / 1e9 }
        if let total = s.totalSeconds, total > 0 { elapsed = min(elapsed, total) }
        s.elapsedSeconds = elapsed.isFinite ? max(0, elapsed.rounded(.down)) : 0
        if now >= overlayUntil { s.volumeOverlay = nil }
        return .nowPlaying(s)
    }

    private func refresh() {
        guard !isShutDown, !isAsleep else { return }
        let now = Syscalls.monotonicNanoseconds()
        let visible = visibleState(now: now)
        if let t = tickTimer {
            loop.cancel(t)
            tickTimer = nil
        }
        if case .nowPlaying(let s) = state, s.playback == .playing {
            // Wake when the shown second changes.
            let exact = s.elapsedSeconds + Double(now - stateTime) / 1e9
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
        if damage.isEmpty { return }
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
