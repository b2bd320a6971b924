// yt-gst — an unbiased clock for pulsesink: PulseAudio's stream time from frequent timing snapshots, each stamped
// where it was taken, instead of libpulse's smoothed interpolation; and, for every stream, never libpulse's time
// wrapped below zero.
import Glibc
import GstPlayer
import Synchronization

/// Replaces `pa_stream_get_time` (what `pulsesink`'s clock reads, so what `OutputAligner` compares with the shared
/// clock) while a synchronised receiver's output is open, and starts its stream before its first sample (see
/// `Start`).
///
/// Why: libpulse stamps each timing snapshot at "now − transport latency", where transport latency is only the
/// request's trip to the server; the reply's trip and the server's hand-off to its I/O thread are heavy-tailed
/// (0.3–13 ms at p99 on a busy machine), so points are stamped early by a random amount, and its smoother (5 s
/// window, never backwards) turns each into seconds of error: measured, two streams on one PulseAudio wander ±0.5 to
/// 1.8 ms apart while each believes itself within 20 µs. Here: a snapshot every 20 ms; the position it gives (read
/// index − sink latency, taken together by the server) is stamped where the server sent it (its wall clock, read
/// right after the snapshot, on this process's clock; libpulse compares it with the kernel's wall clock, see
/// `pa_gettimeofday`), or, where that is not known or not within the round trip (another host's clock, or a server
/// under libfaketime), at its arrival: the request is the slow leg (it
/// waits for libpulse's main loop and the server's; 180–570 µs median in the lab), the answer is back 25–45 µs
/// after the server sent it. (Stamped halfway through the round trip, as before, each stream's points came
/// 100–250 µs early, by as much as its own round trips, and two streams on one server were held 60 µs apart.)
/// The line through them: its slope from the 30 % with the shortest round trip of the last 5 s (20 s for a stream
/// whose position steps; outliers beyond 4 × MAD dropped, fitted again), its value now from the 85th percentile of
/// the last 2 s along that slope. Why the
/// upper edge: the server reads the position in its I/O thread and stamps the answer in its main thread after it,
/// so a stamp is only ever late and a position only ever looks early (measured: residuals 40-75 µs above the line at
/// most, down to -3 ms below it), and the slope, which was the noise of a fit over 2 s, is the device's steady rate.
/// Measured offline on the multi-room lab's snapshots (two streams on one null sink, 7 runs, round trips 0.9-1.9 ms
/// median): the two streams' times std 7-11 µs apart, p99 17-40 µs, against 17-100 and 46-331 µs for the fastest 30
/// % of 2 s fitted by a line. A step in the position (a lost or skipped stretch) brings the older snapshots to the
/// new level, and after a second without snapshots the line starts afresh. Below 10 snapshots (the first 200
/// ms) a fitted slope is not to be trusted: the stream runs at its nominal rate through the median of the fastest
/// snapshots, so that its time is right from its first milliseconds, when `OutputAligner` takes its start-up gap
/// (libpulse's own was 100–200 µs off then). A server whose position moves in steps, once a graph cycle
/// (pipewire-pulse), has its value from the cycles' starts instead, which bursts of requests find (see
/// `StreamState.burst`): measured in the multi-room lab, three rooms on pipewire-pulse were held 80-100 µs apart by
/// the upper edge (steady p99 117-190 µs), 0-21 µs by the cycles' starts (steady p99 62-91 µs). Where PipeWire's
/// graph can be watched from here (`PipeWireCycles`), each cycle start a burst finds is the graph's own, exact to the
/// µs, and the line is theirs (`exactLine`): three rooms' steady p99 21-42 µs, and 21-42 µs from the first sound.
///
/// How: `pa_stream_get_time` (PulseStreamClock+Export.swift), exported by the executable (see Package.swift), forwards
/// to `streamTime`, so the `pulsesink` plugin's calls reach it first; libpulse's own is found in the already loaded library. Off
/// (`isEnabled` false) it is libpulse's, unchanged.
public enum PulseStreamClock {
    /// Whether streams in this process get the fitted time: while a synchronised receiver holds a `Use`.
    static var isEnabled: Bool { users.load(ordering: .relaxed) > 0 }
    /// How many `Use`s live.
    static let users = Atomic<Int>(0)

    /// Turns the fitted time on for every stream of the process (pulsesink's and, through libpulse, those of ALSA's
    /// `pulse` plugin) for as long as it lives. Why counted: a program that embeds several receivers must not have
    /// one that ends, or plays unsynchronised after all, turn it off under another that still plays in step (its
    /// output's clock would fall back to libpulse's time, milliseconds off).
    final class Use: Sendable {
        init() { PulseStreamClock.users.add(1, ordering: .relaxed) }
        deinit {
            guard PulseStreamClock.users.subtract(1, ordering: .relaxed).newValue == 0 else { return }
            PulseStreamClock.endCycleWatches()
        }
    }

    /// Poll interval, the windows (µs) of the slope's and of the value's fit, the share of snapshots (the fastest)
    /// whose line gives the slope, and the quantile that gives the value. Why a slope through 5 s: a device's rate,
    /// as its stream's position shows it, can change by tens of ppm within a second (measured in the multi-room lab:
    /// the null sink went from 150 to 200 ppm fast when a second stream joined it, and back for seconds later on), and
    /// a slope through 20 s followed such a change for 10 s, its value meanwhile 30-60 µs off at the edge of 2 s: a
    /// room that joined late, its line all at the new rate, played that far from the others for 6-13 s. Through 5 s
    /// (some 75 snapshots with the shortest round trips, the slope within a ppm) the late room was within 50 µs of
    /// the others from its first 0.5-1 s in 3 runs of 3, and rooms that started together held as before. A stream
    /// whose position moves in steps (pipewire-pulse's, once a graph cycle) keeps 20 s (`steppedWindow`): each of its
    /// positions is up to a cycle off the line, and through 5 s of them, with a lost cycle in it, the slope came out
    /// 11 ppm off and the value 88 µs (PulseStreamClockTests).
    static let pollInterval: UInt64 = 20_000
    static let window: UInt64 = 5_000_000
    static let steppedWindow: UInt64 = 20_000_000
    static let valueWindow = 2_000_000.0
    static let fastestShare = 0.3
    static let upperQuantile = 0.85
    /// The newest `stepCount` snapshots (200 ms) all `stepThreshold` (µs) or more off the line, on one side, are a
    /// step in the stream's position (see `StreamState.absorbStep`).
    static let stepCount = 10
    static let stepThreshold = 2_000.0
    /// Snapshots this long (µs) after the one before start the line afresh: the stream was corked, or the server
    /// did not answer, and where the stream is now says nothing of where it was.
    static let gapLimit = 1_000_000.0
    /// How often (µs) a burst of snapshots looks for the start of a graph cycle (see `StreamState.burst`): often
    /// until `quickBoundaries` are known, then seldom (a burst spans about one cycle: some 25 requests for 256
    /// frames, 100 for PipeWire's default 1024), and how long one may look. The cycle starts of the last
    /// `boundaryWindow` (at most `boundaryCount`) give the line's value once there are `leastBoundaries` of them:
    /// measured offline on the multi-room lab's logs, three streams' values were 47-73 µs apart at p90 with the
    /// newest 8, 39-55 with 24, 34-44 with 40. A cycle start between two answers more than `widestBracket` apart
    /// (a busy main loop) is not kept; a new position less than `leastStep` frames beyond where the stream went
    /// meanwhile is no cycle's start.
    static let quickBurstInterval = 40_000.0
    static let burstInterval = 250_000.0
    static let burstLimit = 50_000.0
    static let quickBoundaries = 8
    static let leastBoundaries = 3
    static let boundaryCount = 40
    static let boundaryWindow = 10_000_000.0
    static let widestBracket = 500.0
    static let leastStep = 16.0
    /// How long (µs) after its cycle's start a stream's new position is seen, at most (measured in the multi-room
    /// lab: 110-500 µs), how long the cycle starts placed by the graph's timing span before their slope is their own,
    /// and how near (µs) the first must lie to the answers' line (see `exactLine`).
    static let latestSeen = 2_000.0
    static let exactSpan = 100_000.0
    static let exactAgreement = 1_000.0
    /// Bursts whose first answer moved on before a stream counts as one whose position moves continuously; bursts in
    /// a row that found no cycle start end the bursts.
    static let continuousLimit = 3
    static let fruitlessLimit = 3

    /// libpulse's functions, found in the loaded library (never linked: only pulsesink uses PulseAudio).
    struct Library: @unchecked Sendable {
        typealias SuccessCallback = @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void
        typealias GetTime = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt64>?) -> Int32
        typealias UpdateTimingInfo =
            @convention(c) (OpaquePointer?, SuccessCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
        typealias Release = @convention(c) (OpaquePointer?) -> Void
        typealias StreamField = @convention(c) (OpaquePointer?) -> UnsafeRawPointer?
        typealias FrameSize = @convention(c) (UnsafeRawPointer?) -> Int
        typealias ConnectPlayback =
            @convention(c) (
                OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, UInt32, UnsafeRawPointer?, OpaquePointer?
            ) -> Int32
        typealias Cork =
            @convention(c) (OpaquePointer?, Int32, SuccessCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
        typealias ServerInfoCallback =
            @convention(c) (OpaquePointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Void
        typealias GetServerInfo =
            @convention(c) (OpaquePointer?, ServerInfoCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
        typealias ContextIsLocal = @convention(c) (OpaquePointer?) -> Int32
        typealias Write =
            @convention(c) (
                OpaquePointer?, UnsafeRawPointer?, Int, (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, Int64,
                Int32
            ) -> Int32
        typealias WritableSize = @convention(c) (OpaquePointer?) -> Int

        let getTime: GetTime
        let connectPlayback: ConnectPlayback
        let updateTimingInfo: UpdateTimingInfo
        let operationUnref: Release
        let timingInfo: StreamField
        let sampleSpec: StreamField
        let frameSize: FrameSize
        let streamContext: StreamField
        let cork: Cork
        let serverInfo: GetServerInfo
        let deviceName: StreamField
        let contextIsLocal: ContextIsLocal
        let write: Write
        let writableSize: WritableSize
        /// Whether this process's `pa_stream_write` is its exported one (`PulseStreamClock.write`): only then does it
        /// see the client's first write, which ends a stream's silence (see `feedSilence`).
        let clientWritesSeen: Bool

        static let shared: Library? = {
            guard let handle = dlopen("libpulse.so.0", RTLD_NOW | RTLD_NOLOAD) ?? dlopen("libpulse.so.0", RTLD_NOW)
            else { return nil }
            func symbol<T>(_ name: String) -> T? { dlsym(handle, name).map { unsafeBitCast($0, to: T.self) } }
            guard let getTime: GetTime = symbol("pa_stream_get_time"),
                let connect: ConnectPlayback = symbol("pa_stream_connect_playback"),
                let update: UpdateTimingInfo = symbol("pa_stream_update_timing_info"),
                let unref: Release = symbol("pa_operation_unref"),
                let info: StreamField = symbol("pa_stream_get_timing_info"),
                let spec: StreamField = symbol("pa_stream_get_sample_spec"),
                let frame: FrameSize = symbol("pa_frame_size"),
                let context: StreamField = symbol("pa_stream_get_context"),
                let cork: Cork = symbol("pa_stream_cork"),
                let server: GetServerInfo = symbol("pa_context_get_server_info"),
                let device: StreamField = symbol("pa_stream_get_device_name"),
                let local: ContextIsLocal = symbol("pa_context_is_local"),
                let write: Write = symbol("pa_stream_write"),
                let writable: WritableSize = symbol("pa_stream_writable_size")
            else { return nil }
            return Library(
                getTime: getTime, connectPlayback: connect, updateTimingInfo: update, operationUnref: unref,
                timingInfo: info, sampleSpec: spec, frameSize: frame, streamContext: context, cork: cork,
                serverInfo: server, deviceName: device, contextIsLocal: local, write: write, writableSize: writable,
                clientWritesSeen: dlsym(nil, "pa_stream_write") != dlsym(handle, "pa_stream_write"))
        }()
    }

    /// A position (frames) at a time (µs), and the round trip that took it (µs).
    typealias Snapshot = (time: Double, position: Double, roundTrip: Double)

    /// What is known of one stream.
    struct StreamState {
        var lastPoll: UInt64 = 0
        /// When the stream's time was last asked for (µs; see `placed(askedSince:)`).
        var lastAsked: UInt64 = 0
        /// When this process starts the stream, before its first sample (see `Start`); nil: its client starts it.
        var start: Start? = nil
        /// Whether `ReceiverSync.waitForOutputPositions` waits until the stream has a position: one started here,
        /// and one its client connected playing (ALSA's `pulse` plugin's, whose alsasink the receiver starts before
        /// its first sample: `ReceiverSync.startedBeforeFirstSample`). Not by its server: the plugin's stream is the
        /// first of its context, whose server is not known yet when it connects.
        var awaited = false
        /// When it was connected (µs; see `Start.whenPlaced`) and started (µs), the silence written into it since
        /// (frames), and whether its client wrote, which ends the silence (see `feedSilence`).
        var connectedAt: UInt64 = 0
        var startedAt: UInt64? = nil
        var silenceFrames = 0.0
        var clientWrote = false
        /// When the pending snapshot was asked for (0: none pending).
        var requestSent: UInt64 = 0
        var snapshots: [Snapshot] = []
        /// The fitted line: position (frames) at a time (µs).
        var line: Line? = nil
        var lastReturned: UInt64 = 0
        /// The stream's nominal rate (frames a second).
        var rate = 0.0
        /// Where the stream's position was seen to move on to a new graph cycle's (see `burst`): the start of that
        /// cycle where the graph is watched (`cycleStarts(of:)`), its round trip 0, or else the middle of the two
        /// answers around it (µs); the new position (frames); and the time between the two answers (µs).
        var boundaries: [Snapshot] = []
        /// The burst under way: requests sent back to back, each as the answer before it arrives, until the position
        /// moves on. Why: pipewire-pulse gives the position its stream had at the start of the last graph cycle (in
        /// steps of the quantum), and pulsesink asks for the time just after each cycle (it writes when the server
        /// asks for data), so every periodic snapshot is stamped some hundreds of µs after the position it gives, a
        /// delay of its own for each stream (measured in the multi-room lab: three streams on one sink held 50-100 µs
        /// apart, wandering ±50 µs). Two answers on either side of a step put the cycle's start between them (a
        /// burst's round trip, 100-450 µs in the lab; the middle is taken), the same for every stream. Without the
        /// server's own stamps (another host) both answers are stamped at their arrival, the reply's leg late. Holds
        /// the answer before: when it came, its position, and when the burst began.
        var burst: (time: Double, position: Double, started: Double)? = nil
        var lastBurst = -Double.infinity
        /// Whether the stream's position moves in steps (a repeated position was seen within a burst); nil: not
        /// known yet. A continuous one (PulseAudio) gets no bursts after `continuousLimit` of them.
        var positionSteps: Bool? = nil
        var continuousBursts = 0
        var fruitlessBursts = 0
        /// How far (frames) the position of a stream that moves in steps moved at the last cycle start found.
        var quantum: Double? = nil

        /// What an answer changed: whether the line is to be fitted again, and whether to ask again at once (a
        /// burst goes on).
        typealias Outcome = (refit: Bool, askAgain: Bool)

        /// The answer to the pending request came at `arrived` (µs) with `position` (frames; nil: nothing usable),
        /// which the server sent at `serverTime` (µs on this process's clock; nil: unknown): the position is
        /// stamped there when it lies within the round trip, at the arrival otherwise. Any answer lets the next
        /// request go; an answer within a burst is one step of it, not a snapshot.
        mutating func answered(
            at arrived: Double, position: Double?, serverTime: Double? = nil, cycleAt: CycleAt? = nil
        ) -> Outcome {
            guard requestSent != 0 else { return (false, false) }
            let roundTrip = arrived - Double(requestSent)
            let taken = serverTime.flatMap { (Double(requestSent)...arrived).contains($0) ? $0 : nil } ?? arrived
            requestSent = 0
            guard let position else {
                burst = nil
                return (false, false)
            }
            if let last = snapshots.last, taken - last.time > PulseStreamClock.gapLimit { startAfresh() }
            if burst != nil {
                return burstAnswered(at: taken, position: position, cycleAt: serverTime == nil ? nil : cycleAt)
            }
            snapshots.append((taken, position, roundTrip))
            let window = positionSteps == true ? PulseStreamClock.steppedWindow : PulseStreamClock.window
            snapshots.removeAll { $0.time < taken - Double(window) }
            absorbStep()
            let interval =
                boundaries.count < PulseStreamClock.quickBoundaries
                ? PulseStreamClock.quickBurstInterval : PulseStreamClock.burstInterval
            guard positionSteps != false, taken - lastBurst >= interval else { return (true, false) }
            burst = (taken, position, taken)
            lastBurst = taken
            return (true, true)
        }

        /// The line starts afresh (see `gapLimit`), and what was learnt of the stream's cycles with it.
        mutating func startAfresh() {
            snapshots.removeAll()
            boundaries.removeAll()
            burst = nil
            positionSteps = nil
            continuousBursts = 0
            fruitlessBursts = 0
            quantum = nil
        }

        /// One answer within a burst: the same position asks again; a new one ends the burst and, where the position
        /// is known to move in steps and moved by a step, is a cycle's start between the two answers. A burst that
        /// finds none within `burstLimit` ends; `fruitlessLimit` of them in a row (cycles that long) end the bursts
        /// and their cycle starts: the line is the periodic snapshots' upper edge again. An answer that came
        /// `burstLimit` after the one before (its request was given up on) ends the burst and counts for nothing.
        mutating func burstAnswered(at taken: Double, position: Double, cycleAt: CycleAt? = nil) -> Outcome {
            guard let before = burst else { return (false, false) }
            burst = nil
            let width = taken - before.time
            guard width <= PulseStreamClock.burstLimit else { return (false, false) }
            if abs(position - before.position) < 0.01 {
                positionSteps = true
                guard taken - before.started < PulseStreamClock.burstLimit else { return burstFoundNoCycle() }
                burst = (taken, position, before.started)
                return (false, true)
            }
            if positionSteps == nil && before.time == before.started {
                continuousBursts += 1
                if continuousBursts >= PulseStreamClock.continuousLimit { positionSteps = false }
            }
            let moved = position - before.position - rate * width / 1e6
            guard positionSteps == true, moved >= PulseStreamClock.leastStep else { return (false, false) }
            fruitlessBursts = 0
            guard width <= PulseStreamClock.widestBracket else { return (false, false) }
            quantum = position - before.position  // answers this close are less than a cycle apart
            // The move was seen after `before` and at most `latestSeen` after its cycle began: the one cycle start the
            // graph's watch knows in that stretch is its (none or two there: the server was slower than that, or the
            // cycles shorter; the middle of the answers is taken then, as without a watch).
            let earliest = before.time - PulseStreamClock.latestSeen
            if let cycle = cycleAt?(taken), cycle.start > earliest, cycle.start - cycle.period <= earliest {
                boundaries.removeAll { $0.roundTrip > 0 }
                boundaries.append((cycle.start, position, 0))
            } else {
                boundaries.append(((before.time + taken) / 2, position, width))
            }
            boundaries.removeAll { $0.time < taken - PulseStreamClock.boundaryWindow }
            boundaries = Array(boundaries.suffix(PulseStreamClock.boundaryCount))
            return (true, false)
        }

        /// A burst that found no cycle start: see `burstAnswered`.
        mutating func burstFoundNoCycle() -> Outcome {
            fruitlessBursts += 1
            guard fruitlessBursts >= PulseStreamClock.fruitlessLimit else { return (false, false) }
            positionSteps = false
            boundaries.removeAll()
            return (true, false)
        }

        /// Moves the snapshots (and cycle starts) from before a step in the stream's position to its level, so that
        /// the fit sees one line. A step: the server lost or skipped part of the stream (pipewire-pulse drops a whole
        /// graph cycle, 5.3 ms, when the stream's data comes late), and every position after it is that much off the
        /// line through the ones before. Unmoved, the value (the upper edge of 2 s) stayed at the old level for 1.7 s,
        /// and the slope through both levels was hundreds of ppm off (measured in the multi-room lab: a room
        /// 5.3 ms off for 1.5 s, then wandering by 300 µs). The step's size is the upper edge (the highest) of the
        /// newest snapshots less that (`upperQuantile`) of the ones before (where the line is the cycles' starts, the periodic
        /// snapshots lie some hundreds of µs below it: measured from the line, a lost cycle was taken for 375 µs more
        /// than it was), in whole cycles for a stream that moves in steps.
        /// Late stamps only ever look like a step down, and by no more than their round trip (the position was read
        /// after the request was sent): a step down must be that much further down.
        mutating func absorbStep() {
            let count = PulseStreamClock.stepCount
            guard let line, rate > 0, snapshots.count > 2 * count else { return }
            let newest = snapshots.indices.suffix(count)
            let earlier = snapshots[..<newest.startIndex].filter {
                $0.time > snapshots[newest.startIndex].time - PulseStreamClock.valueWindow
            }
            let levels = earlier.map { $0.position - line.value(at: $0.time) }.sorted()
            guard !levels.isEmpty else { return }
            let level = levels[min(Int(Double(levels.count) * PulseStreamClock.upperQuantile), levels.count - 1)]
            func residual(_ index: Int) -> Double {
                snapshots[index].position - line.value(at: snapshots[index].time) - level
            }
            let threshold = PulseStreamClock.stepThreshold * rate / 1e6
            let down = newest.allSatisfy { residual($0) + snapshots[$0].roundTrip * rate / 1e6 <= -threshold }
            guard down || newest.allSatisfy({ residual($0) >= threshold }) else { return }
            var step = newest.map(residual).max() ?? 0
            // A stream that moves in steps loses or skips whole cycles.
            if positionSteps == true, let quantum, quantum > 0 { step = (step / quantum).rounded() * quantum }
            var start = newest.startIndex
            while start > 0 && abs(residual(start - 1) - step) < abs(residual(start - 1)) { start -= 1 }
            for index in 0..<start { snapshots[index].position += step }
            // The cycle starts the bursts after the snapshots before the step found; the one after the last of them
            // may lie on either side of it.
            let stepTime = snapshots[start].time
            let lastBefore = start > 0 ? snapshots[start - 1].time : -Double.infinity
            boundaries.removeAll { $0.time > lastBefore && $0.time < stepTime }
            for index in boundaries.indices where boundaries[index].time <= lastBefore {
                boundaries[index].position += step
            }
        }
    }

    static let streams = Mutex([UInt: StreamState]())

    /// Where `streams` keeps a stream: its address.
    static func address(of stream: OpaquePointer?) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(stream)))
    }

    /// This process's monotonic clock (the pipeline's) in µs.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// pa_timing_info's fields (pulse/def.h, x86-64 and every LP64 target).
    enum TimingInfo {
        static let timestamp = 0, synchronizedClocks = 16, sinkLatency = 24, playing = 48
        static let readIndexCorrupt = 64, readIndex = 72
    }

    /// The answer to a snapshot request: one more point, and the line fitted again (outside the lock that
    /// `streamTime`, on pulsesink's threads, takes).
    static let snapshotArrived: Library.SuccessCallback = { stream, success, _ in
        guard let stream else { return }
        let arrived = monotonicMicroseconds()
        // The server's stamps are on the kernel's wall clock (see `pa_gettimeofday`), `arrived` on this process's.
        let wallClockAhead = Double(KernelClock.nanoseconds(CLOCK_REALTIME)) / 1000 - Double(arrived)
        let key = address(of: stream)
        let steps = streams.withLock { $0[key]?.positionSteps == true }
        let cycleAt = steps ? cycleStarts(of: stream) : nil
        var point: Double? = nil
        var serverTime: Double? = nil
        if success != 0, let library = Library.shared, let info = library.timingInfo(stream),
            let spec = library.sampleSpec(stream)
        {
            point = position(
                in: info, rate: Double(spec.load(fromByteOffset: 4, as: UInt32.self)),
                frameBytes: Double(library.frameSize(spec)))
            serverTime = sent(info).map { $0 - wallClockAhead }
        }
        let outcome: (refit: Bool, askAgain: Bool, state: StreamState)? = streams.withLock { all in
            guard var state = all[key] else { return nil }
            let (refit, askAgain) = state.answered(
                at: Double(arrived), position: point, serverTime: serverTime, cycleAt: cycleAt)
            if askAgain { state.requestSent = monotonicMicroseconds() }
            all[key] = state
            return (refit, askAgain, state)
        }
        guard let outcome else { return }
        // Called on PulseAudio's main loop thread, with its lock held: a request may be sent, silence written.
        feedSilence(stream)
        if outcome.askAgain {
            if let library = Library.shared,
                let operation = library.updateTimingInfo(stream, PulseStreamClock.snapshotArrived, nil)
            {
                library.operationUnref(operation)
            } else {
                streams.withLock { all in
                    all[key]?.requestSent = 0
                    all[key]?.burst = nil
                }
            }
        }
        guard outcome.refit else { return }
        let line = fit(outcome.state.snapshots, boundaries: outcome.state.boundaries, rate: outcome.state.rate)
        streams.withLock { all in all[key]?.line = line }
    }

    /// When the server sent a snapshot (µs on its wall clock), right after it took it; nil where libpulse found
    /// the server's wall clock not the kernel's here (it then puts its own guess there).
    static func sent(_ info: UnsafeRawPointer) -> Double? {
        guard info.load(fromByteOffset: TimingInfo.synchronizedClocks, as: Int32.self) != 0 else { return nil }
        let seconds = info.load(fromByteOffset: TimingInfo.timestamp, as: Int.self)
        let microseconds = info.load(fromByteOffset: TimingInfo.timestamp + 8, as: Int.self)
        return Double(seconds) * 1e6 + Double(microseconds)
    }

    /// The position (frames) a timing snapshot (`pa_timing_info`) gives: the server's read index less what its
    /// sink still holds; nil while the stream is not playing or the read index is not valid. Whatever libpulse's
    /// `synchronized_clocks`: it is false for every snapshot of a server whose clock runs at its own rate (a server
    /// under libfaketime) or is set otherwise (another host), whose positions are as good (only their stamp is not).
    static func position(in info: UnsafeRawPointer, rate: Double, frameBytes: Double) -> Double? {
        guard rate > 0, frameBytes > 0, info.load(fromByteOffset: TimingInfo.playing, as: Int32.self) != 0,
            info.load(fromByteOffset: TimingInfo.readIndexCorrupt, as: Int32.self) == 0
        else { return nil }
        let readIndex = Double(info.load(fromByteOffset: TimingInfo.readIndex, as: Int64.self))
        let sinkLatency = Double(info.load(fromByteOffset: TimingInfo.sinkLatency, as: UInt64.self))
        return readIndex / frameBytes - sinkLatency * rate / 1e6
    }

    /// The line (position in frames against time in µs): the slope of the fastest snapshots' line, fitted again
    /// without its outliers, through the median of the cycles' starts (`boundaries`) where there are enough, the
    /// `upperQuantile` of the last `valueWindow` otherwise; below 10 snapshots, the line of the nominal `rate`
    /// through that median or the median of the fastest. Nil without snapshots or a rate.
    static func fit(_ snapshots: [Snapshot], boundaries: [Snapshot] = [], rate: Double) -> Line? {
        guard let latest = snapshots.last else { return nil }
        let estimate = answersLine(snapshots, boundaries: boundaries, rate: rate)
        return exactLine(boundaries, rate: rate, origin: latest.time, near: estimate) ?? estimate
    }

    /// The line from the answers alone (see `fit`).
    static func answersLine(_ snapshots: [Snapshot], boundaries: [Snapshot], rate: Double) -> Line? {
        guard let latest = snapshots.last else { return nil }
        let byRoundTrip = snapshots.sorted { $0.roundTrip < $1.roundTrip }
        /// The median of the cycles' starts along `slope`, where there are `leastBoundaries` of them.
        func boundaryValue(slope: Double) -> Double? {
            guard boundaries.count >= leastBoundaries else { return nil }
            let values = boundaries.map { $0.position - slope * ($0.time - latest.time) }.sorted()
            return (values[(values.count - 1) / 2] + values[values.count / 2]) / 2
        }
        guard snapshots.count >= 10 else {
            guard rate > 0 else { return nil }
            let slope = rate / 1e6
            if let value = boundaryValue(slope: slope) { return Line(origin: latest.time, value: value, slope: slope) }
            let values = byRoundTrip.prefix(max(Int(Double(snapshots.count) * fastestShare), 1))
                .map { $0.position - slope * ($0.time - latest.time) }.sorted()
            return Line(origin: latest.time, value: values[values.count / 2], slope: slope)
        }
        let fastest = byRoundTrip.prefix(max(Int(Double(snapshots.count) * fastestShare), 10))
            .map { (x: $0.time, y: $0.position) }
        guard let first = Line(through: fastest, origin: latest.time) else { return nil }
        let residuals = fastest.map { abs($0.y - first.value(at: $0.x)) }
        let mad = residuals.sorted()[residuals.count / 2]
        let kept = zip(fastest, residuals).filter { $0.1 <= max(4 * mad, 0.5) }.map(\.0)
        let slope = (kept.count >= 5 ? Line(through: kept, origin: latest.time) : nil)?.slope ?? first.slope
        let values = snapshots.filter { $0.time > latest.time - valueWindow }
            .map { $0.position - slope * ($0.time - latest.time) }.sorted()
        let value =
            boundaryValue(slope: slope) ?? values[min(Int(Double(values.count) * upperQuantile), values.count - 1)]
        return Line(origin: latest.time, value: value, slope: slope)
    }
}

extension PulseStreamClock {
    /// The line through the cycles' starts that the graph's own timing placed (`PipeWireCycles`; a round trip of 0):
    /// they lie on a line to a fraction of a frame (measured in the multi-room lab: within 0.1 frame over 25 s), so
    /// it is their own, fitted again without those more than a frame off it (a cycle taken for its neighbour) while
    /// most are kept; the nominal `rate` through their median while they span less than `exactSpan` µs, once two of
    /// them agree, or the first where it lies within `exactAgreement` µs of the line from the answers alone (`near`:
    /// some hundreds of µs off, never a whole cycle, as a cycle taken for its neighbour would be). Nil before. Why
    /// the first alone: a room's start-up move is taken some 100 ms after its first sound, and with a line still
    /// from the answers then, one room in five started 60-200 µs off the others for a second. Why not the periodic snapshots' slope, as for cycle starts seen by the answers alone:
    /// on pipewire-pulse it came out 100-470 ppm off in stretches, and the line drifted up to 70 µs from the cycles'
    /// starts between them (the rooms' steady p99 up to 58 µs instead of 21-42).
    static func exactLine(_ boundaries: [Snapshot], rate: Double, origin: Double, near: Line? = nil) -> Line? {
        let exact = boundaries.filter { $0.roundTrip == 0 }.map { (x: $0.time, y: $0.position) }
        guard let first = exact.first, let last = exact.last else { return nil }
        if last.x - first.x >= exactSpan, let line = Line(through: exact, origin: origin) {
            let kept = exact.filter { abs($0.y - line.value(at: $0.x)) <= 1 }
            if kept.count * 2 > exact.count, let refitted = Line(through: kept, origin: origin) { return refitted }
        }
        guard rate > 0 else { return nil }
        let slope = rate / 1e6
        let values = exact.map { $0.y - slope * ($0.x - origin) }.sorted()
        let median = values[values.count / 2]
        let agreed =
            exact.count == 1
            ? near.map { abs($0.value(at: origin) - median) <= exactAgreement * slope } ?? false
            : values.filter({ abs($0 - median) <= 1 }).count >= 2
        return agreed ? Line(origin: origin, value: median, slope: slope) : nil
    }

    /// `PA_STREAM_NOT_MONOTONIC` (pulse/def.h): libpulse does not hold its stream time at the highest value it gave.
    static let notMonotonic: UInt32 = 0x0004
    /// `PA_ERR_NODATA` (pulse/def.h), returned negated: no time to give now (pulsesink's clock then keeps its last).
    static let noData: Int32 = 16
    /// Stream times from here up (2^62 µs, 146,000 years) are libpulse's arithmetic wrapping below zero.
    static let wrappedTime: UInt64 = 1 << 62

    /// libpulse's `pa_stream_connect_playback`, as `pulsesink` calls it, with `PA_STREAM_NOT_MONOTONIC` added (and,
    /// while `isEnabled`, a stream connected corked marked as one this process starts, see `Start`); the
    /// executable's exported `pa_stream_connect_playback` forwards here.
    ///
    /// Why: libpulse 16 stamps the resumption of an uncorked stream at "now + transport latency", and a
    /// `pa_stream_get_time` in between computes "now − resumption" without a sign: the stream time wraps to about
    /// 2^64 µs. Monotonic, libpulse then holds that value for the stream's life, and so does pulsesink's clock: the
    /// next flushing seek or resume places the audio 10^15 s ahead, and nothing is heard again (measured: 1 in 5 to
    /// 8 seeks after a pause and resume, with the clock read while resuming). Not monotonic, the wrapped value lasts
    /// until the resumption's moment, and `streamTime` refuses it; pulsesink's clock is monotonic by itself.
    public static func connectPlayback(
        _ stream: OpaquePointer?, _ device: UnsafePointer<CChar>?, _ attributes: UnsafeRawPointer?, _ flags: UInt32,
        _ volume: UnsafeRawPointer?, _ syncStream: OpaquePointer?
    ) -> Int32 {
        guard let library = Library.shared else { return -noData }
        var state: StreamState? = nil
        if isEnabled {
            let server = server(of: stream)
            let start = flags & startCorked != 0 ? Start(on: server, clientWritesSeen: library.clientWritesSeen) : nil
            state = StreamState(
                start: start, awaited: start != nil || flags & startCorked == 0, connectedAt: monotonicMicroseconds())
        }
        // A stream at the address of an earlier one starts with nothing of it.
        streams.withLock { $0[address(of: stream)] = state }
        return library.connectPlayback(stream, device, attributes, flags | notMonotonic, volume, syncStream)
    }

    /// libpulse's `pa_stream_get_time`, as `pulsesink` calls it (with the PulseAudio main loop locked): the fitted
    /// stream time while `isEnabled`, and before a snapshot found the stream playing no time at all (an error: the
    /// clock keeps its last), or 0 for a stream its client connected playing (ALSA's `pulse` plugin's), which has
    /// played nothing yet; libpulse's own otherwise (no time while it has wrapped, see `connectPlayback`). Why never
    /// libpulse's while enabled: it was 42 ms for a stream that had not played yet (PulseAudio), 8.8 ms behind the
    /// position of one that had (pipewire-pulse), and pulsesink calibrates its clock on the time it reads before its
    /// first sample: the rooms played that much off and skipped or repeated it later (38-48 ms some 175 ms in,
    /// measured in the multi-room lab). Why 0 for the plugin's: alsasink's clock is the samples it wrote less the
    /// delay the plugin reads from libpulse (`pa_stream_get_latency`: written less this time), and with no time the
    /// plugin gives no delay: every sample written read as played, and alsasink calibrated its clock 100-150 ms
    /// ahead (its whole buffer; lab, GStreamer's log). The exported `pa_stream_get_time` forwards here.
    public static func streamTime(_ stream: OpaquePointer?, _ time: UnsafeMutablePointer<UInt64>?) -> Int32 {
        guard let library = PulseStreamClock.Library.shared else { return -1 }
        guard PulseStreamClock.isEnabled, let stream, let time,
            let spec = library.sampleSpec(stream)
        else {
            let result = library.getTime(stream, time)
            if result == 0, let time, time.pointee >= wrappedTime { return -noData }
            return result
        }
        let now = PulseStreamClock.monotonicMicroseconds()
        let key = address(of: stream)
        let rate = Double(spec.load(fromByteOffset: 4, as: UInt32.self))
        var ask = false
        var uncork = false
        let fitted: UInt64? = PulseStreamClock.streams.withLock { all in
            var state = all[key] ?? PulseStreamClock.StreamState()
            state.rate = rate
            state.lastAsked = now
            uncork = state.startedAt == nil && state.start.map { $0.isDue(connectedAt: state.connectedAt) } == true
            if uncork { state.startedAt = now }
            if state.requestSent == 0 && now - state.lastPoll >= PulseStreamClock.pollInterval {
                state.lastPoll = now
                state.requestSent = now
                ask = true
            } else if state.requestSent != 0 && now - state.requestSent > 1_000_000 {
                state.requestSent = 0  // an answer lost: ask again next time, and not as part of a burst
                state.burst = nil
            }
            var answer: UInt64? = nil
            if let line = state.line, rate > 0 {
                let position = line.value(at: Double(now))
                let value = UInt64(max(position / rate * 1e6, 0))
                answer = max(value, state.lastReturned)
                state.lastReturned = answer!
            } else if state.awaited && state.start == nil {
                answer = 0  // nothing played yet
            }
            all[key] = state
            return answer
        }
        // pulsesink still takes its stream for corked: it uncorks it (again) when it writes, and corks it to pause.
        if uncork, let operation = library.cork(stream, 0, nil, nil) { library.operationUnref(operation) }
        feedSilence(stream)
        if ask {
            if let operation = library.updateTimingInfo(stream, PulseStreamClock.snapshotArrived, nil) {
                library.operationUnref(operation)
            } else {
                streams.withLock { $0[key]?.requestSent = 0 }  // not sent (the stream is not ready): ask again
            }
        }
        guard let fitted else { return -noData }
        time.pointee = fitted
        return 0
    }

    /// Whether every stream `awaited` whose time was read since `start` (µs, `monotonicMicroseconds`) has a position
    /// (a snapshot found it playing); nil when there is none (the output is not on libpulse, or its stream starts
    /// with its first samples).
    static func placed(askedSince start: UInt64) -> Bool? {
        streams.withLock { all in
            let asked = all.values.filter { $0.awaited && $0.lastAsked >= start }
            return asked.isEmpty ? nil : asked.allSatisfy { $0.line != nil }
        }
    }
}
