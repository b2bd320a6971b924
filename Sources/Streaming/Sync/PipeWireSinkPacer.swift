// yt-gst — pipewiresink's samples placed on its PipeWire graph's cycles: what no output aligner can do for it.
import Glibc
import GstPlayer
import Synchronization

/// Keeps a `pipewiresink`'s output on the shared clock, sample by sample.
///
/// pipewiresink has no ring buffer and no clock: it queues each buffer on its PipeWire stream as it renders, and the
/// graph plays what is queued in order, one cycle's worth at each cycle's start. Synchronised by its own render
/// times, each room's stream started at whichever cycle came after its first buffer, and rooms sat whole 256-sample
/// cycles apart (0 or 5.3 ms, measured in the multi-room lab). But once a stream plays without a gap, frame n of it
/// plays at the graph position where it started plus n, and the graph's timing is known from a watch on the same
/// sink (`PipeWireCycles`, `.playback`: each cycle's start and position, and the delay to the device). So the sink
/// hands each buffer on as it comes (`sync` off: the jitter buffer holds each until the shared latency leaves what
/// the output needs), and the pacer edits what it hands on:
/// - the start: once the sink's stream plays (its node runs: pipewiresink drops what it renders before, unseen),
///   the first chunk goes well between two cycle starts (`placedFrom`; waiting up to a cycle for that), so the
///   graph plays it from the next cycle's start, with as much silence before it as that lies before its due time
///   (what is too late for its place is trimmed); the sink's stream has its buffers by then (`Element.pace` primes
///   it); where that silence is long enough, its first part goes ahead in buffers of its own, and when the graph
///   gives the first one back says which cycle the stream really started in (`observedStart`);
/// - then: each chunk goes once one of the stream's two buffers is free (held from the sink's pool, `PacedSink`),
///   and its first frame is heard at the stream's start + the frames handed on since (on the graph's line through
///   its cycle starts, + the delay), and when that is `trigger` samples or more off its due time, the output moves
///   (copies of the first frame, or frames dropped; up to `maxStep` at once, the whole gap beyond
///   `jumpThreshold`): the sender's clock and the device's rate differ by up to a few hundred ppm; when a buffer
///   came back says the graph lost a cycle, the stream's start moves with it (`checked`);
/// - an underrun: a cycle that began with fewer frames handed on than it plays took silence for the rest, and the
///   stream goes on from a later cycle: placed afresh once what was handed on last has surely played.
public final class PipeWireSinkPacer: OutputPacing {
    /// Where the stream is placed on the graph: the position (ticks) at which its first frame was heard, if the
    /// graph played it without a gap since, and the frames handed on since.
    private struct Placement {
        var startTicks: Double
        var handed = 0
        /// The frames of the last chunk handed on.
        var lastChunk = 0
        /// The cycles the graph was last seen off the placement (+: later), once (see `checked`).
        var seenOff = 0.0
        /// When it was placed (ns, kernel) and the frames moved since (+: later; the device plays fast), for the
        /// drift.
        var since: Int64
        var moved = 0
    }

    private struct State {
        var placement: Placement?
        /// When the sink was handed its empty first buffer (ns, kernel).
        var primedAt: Int64?
        var status = OutputAligner.Status(phase: .settling, gap: nil, drift: nil, corrections: 0)
    }

    private let clock: Clock
    private let latency: Int64
    private let watch: PipeWireCycles
    private let state = Mutex(State())

    /// A buffer is handed on at least this far (ns) after a cycle's start and this far before the next one when
    /// the stream is placed, and not before `placedFrom` of the cycle: the graph takes a stream's buffer when it
    /// processes the stream's node in a cycle, 30-400 µs after the cycle's start as a rule, but up to 1.7 ms, and
    /// 3.4 ms while other streams joined the graph (pw-profiler in the multi-room lab). Handed on 0.5 ms into a
    /// cycle whose node woke later, a first chunk played in that cycle, one early, and the stream ran dry a cycle
    /// later: rooms a cycle apart, or one that skipped 5.3 ms in its first 100 ms, in about half the lab's 60 s
    /// runs of three rooms (none in 17 runs from a cycle's 3/8 on).
    static let afterCycleStart: Int64 = 500_000
    static let beforeCycleEnd: Int64 = 1_500_000
    static let placedFrom = 3.0 / 8
    /// The most silence put before a chunk (ns): pipewiresink's stream negotiates its buffers' size with PipeWire
    /// (its first buffer is empty, see `Element.pace`), 8192 frames by default, and the first chunk comes 15-40 ms
    /// before its due time (the jitter buffer holds the rest of the latency).
    static let mostSilence: Int64 = 40_000_000
    /// The least audio handed on at once: pipewiresink's stream has two buffers, one played while the other waits,
    /// and an RTP packet's 7 ms in each left the stream 7-14 ms ahead of the graph (it ran dry within a second
    /// in the multi-room lab, when the buffer given back reached the sink late).
    public static let chunk = ClockTime(nanoseconds: 10_000_000)
    /// The longest wait for a stream that ran dry to have played what it holds (ns).
    static let graphWait: Int64 = 40_000_000
    /// The longest wait for a free buffer (ns): the first chunk's, with its silence, plays up to 60 ms.
    static let freeBufferWait: Int64 = 100_000_000
    /// The silence a start is observed with (cycles, in each of two buffers; see `observedStart`), and the most
    /// cycles a start observed off is moved by (more: not believed).
    static let leadCycles = 1.5
    /// How long before the cycle a buffer is due back in the wait for it begins (ns).
    static let lookAhead: Int64 = 500_000
    static let mostCyclesOff = 3.0
    static let trigger = 0.6
    static let maxStep = 4
    static let jumpThreshold = 2_000.0

    /// Paces a sink playing to `target` (a node.name or object serial; nil: the default sink) from its stream's
    /// node, named `node` (nil: not known), onto `clock`, the pipeline's, with the pipeline's `latency`; nil where
    /// the sink's graph cannot be watched (no libpipewire, or no PipeWire server).
    public init?(target: String?, node: String?, clock: Clock, latency: ClockTime) {
        guard let watch = PipeWireCycles(sink: target, side: .playback, following: node) else { return nil }
        self.watch = watch
        self.clock = clock
        self.latency = Int64(latency.nanoseconds)
    }

    deinit { watch.stop() }

    /// Whether the stream was placed by its graph's cycles (for the status).
    public var placed: Bool { state.withLock { $0.status.phase == .following } }

    public var status: OutputAligner.Status { state.withLock { $0.status } }

    public func flushed() {
        state.withLock { $0.placement = nil }
    }

    public func primed() {
        state.withLock { $0.primedAt = KernelClock.nanoseconds(CLOCK_MONOTONIC) }
    }

    public func edit(due: Int64, frames: Int, rate: Int, sink: any PacedSink) -> PacedEdit {
        guard rate > 0 else { return .keep }
        var ticksPerFrame = watch.rate > 0 ? Double(watch.rate) / Double(rate) : 1
        var placement = state.withLock { $0.placement }
        let now = KernelClock.nanoseconds(CLOCK_MONOTONIC)
        if let known = placement, let cycle = watch.cycle(atOrBefore: now),
            ranDry(known, cycle: cycle, ticksPerFrame: ticksPerFrame)
        {
            // The stream goes on from a later cycle, after the last chunk (which may have reached it only now), so
            // it is placed afresh once that has surely played: waited for once (the placement is gone from here
            // on), since a chunk too late for its place is dropped, and waiting again for each one kept the sink
            // further behind than the chunks it dropped (every room silent for good after a 64 ms stall of the
            // graph, in the multi-room lab).
            let lastPlayed = Double(cycle.ticks + 2 * cycle.length) + Double(known.lastChunk) * ticksPerFrame
            if let drained = watch.time(ofTicks: lastPlayed) {
                let wait = Int64(drained) - KernelClock.nanoseconds(CLOCK_MONOTONIC)
                if wait > 0 { usleep(useconds_t(min(wait, Self.graphWait) / 1000)) }
            }
            placement = nil
            state.withLock { $0.placement = nil }
        }
        let dueHere = Double(due + latency - pipelineAhead())
        let placing = placement == nil
        if placing {
            let chunkEnd = Int64(dueHere) + Int64(frames) * 1_000_000_000 / Int64(rate)
            guard let cycle = cycleToPlaceIn(dueHere: dueHere, until: chunkEnd), watch.rate > 0 else {
                return .dropFirst(frames)
            }
            // The graph's rate as the watch now knows it: a new watch (an output opened again for the stream's
            // format) has seen no cycle before the wait, and a 44.1 kHz stream placed at one tick a frame started
            // 62 frames (1.4 ms) off, which the moves then took back 4 frames at a time, cutting its first sound.
            ticksPerFrame = Double(watch.rate) / Double(rate)
            placement = observedStart(
                Placement(
                    startTicks: Double(cycle.ticks + cycle.length), since: KernelClock.nanoseconds(CLOCK_MONOTONIC)),
                placedIn: cycle, dueHere: dueHere, rate: rate, ticksPerFrame: ticksPerFrame, sink: sink)
        }
        guard var next = placement else { return .keep }
        if !placing {
            sleepUntilABufferIsDue(next, ticksPerFrame: ticksPerFrame)
            if let freed = sink.holdFreeBuffer(within: Self.freeBufferWait) {
                next = checked(next, freedAt: freed, ticksPerFrame: ticksPerFrame)
            }
        }
        guard let heard = watch.time(ofTicks: next.startTicks + Double(next.handed) * ticksPerFrame) else {
            return .keep
        }
        let early = dueHere - heard - Double(watch.delay)
        let gap = early * Double(rate) / 1e9
        let move: Int
        let edit: PacedEdit
        if placing {
            // Silence up to the due time; what comes too late for its place is dropped (all of it: placed afresh
            // with the next chunk).
            move = Int(gap.rounded())
            guard move > -frames else {
                state.withLock { $0.placement = nil }
                return .dropFirst(frames)
            }
            edit = move >= 0 ? .silenceBefore(move) : .dropFirst(-move)
        } else {
            move = Self.move(forGap: gap, rate: rate)
            edit = move > 0 ? .repeatFirst(move) : move < 0 ? .dropFirst(-move) : .keep
            next.moved += move
        }
        next.lastChunk = max(frames + move, 0)
        next.handed += next.lastChunk
        let placed = next
        state.withLock { state in
            state.placement = placed
            state.status.phase = .following
            state.status.gap = (gap - Double(move)) * 1e6 / Double(rate)
            let seconds = Double(KernelClock.nanoseconds(CLOCK_MONOTONIC) - placed.since) / 1e9
            if seconds >= 1 { state.status.drift = Double(placed.moved) / Double(rate) / seconds * 1e6 }
            if move != 0 && !placing { state.status.corrections += 1 }
        }
        return edit
    }

    /// Whether the stream ran dry before this chunk: the graph, in `cycle`, is past what was handed on (a quarter
    /// cycle's slack: its line is estimated).
    private func ranDry(_ known: Placement, cycle: GraphCycles.Cycle, ticksPerFrame: Double) -> Bool {
        known.startTicks + Double(known.handed) * ticksPerFrame + Double(cycle.length) / 4
            < Double(cycle.ticks + cycle.length)
    }

    /// The stream's start as its graph took it: placed from the cycle after `cycle`, it gets its silence first, in
    /// two buffers of `leadCycles` cycles each (where the chunk is to have that much before it anyway), and the
    /// first one comes free while the graph plays the frame after it, in the cycle that plays that frame: a cycle
    /// later than placed where the stream took its first buffer a cycle late, which nothing else shows (a sink's
    /// render held up on a busy machine; CI runs put rooms one or two cycles late, 5.3 or 10.7 ms, from their first
    /// sample). The frame after the first buffer lies mid-cycle, so that cycle is the one seen either way the
    /// graph hands buffers back.
    private func observedStart(
        _ placed: Placement, placedIn cycle: GraphCycles.Cycle, dueHere: Double, rate: Int, ticksPerFrame: Double,
        sink: any PacedSink
    ) -> Placement {
        let lead = Int((Double(cycle.length) * Self.leadCycles / ticksPerFrame).rounded())
        guard lead > 0, let heard = watch.time(ofTicks: placed.startTicks),
            (dueHere - heard - Double(watch.delay)) * Double(rate) / 1e9 >= Double(2 * lead)
        else { return placed }
        var observed = placed
        for _ in 0..<2 {
            _ = sink.holdFreeBuffer(within: 0)
            sink.handSilence(frames: lead)
            observed.handed += lead
        }
        let length = Double(cycle.length)
        guard let freed = sink.holdFreeBuffer(within: Self.freeBufferWait),
            let seen = watch.cycle(atOrBefore: freed), seen.length == cycle.length
        else { return observed }
        let frameAfter = placed.startTicks + Double(lead) * ticksPerFrame
        let late = ((Double(seen.ticks) + length / 2 - frameAfter) / length).rounded()
        guard late != 0, abs(late) <= Self.mostCyclesOff else { return observed }
        observed.startTicks += late * length
        return observed
    }

    /// The placement checked against a buffer the graph gave back at `freed`: it did so in the cycle that plays the
    /// first frame of the last chunk handed on (the frame after the buffer's), which lies in that cycle, or at one
    /// of its edges, where the graph is where the placement says. Where the graph lost a cycle (a client or the
    /// graph itself missed one, beside CPU hogs: the stream plays on a cycle later for good) it lies a cycle before
    /// it; seen so twice in a row, the stream's start is moved by that (the chunk's gap then moves the output back:
    /// a skip of a cycle, and the rooms are in step again).
    private func checked(_ known: Placement, freedAt freed: Int64, ticksPerFrame: Double) -> Placement {
        guard let seen = watch.cycle(atOrBefore: freed), seen.length > 0 else { return known }
        let length = Double(seen.length)
        let offset = known.startTicks + Double(known.handed - known.lastChunk) * ticksPerFrame - Double(seen.ticks)
        let slack = length / 8
        let off =
            offset < -slack
            ? ((-offset - slack) / length).rounded(.up)
            : offset > length + slack ? -((offset - length - slack) / length).rounded(.up) : 0
        var next = known
        guard off != 0, off == known.seenOff, abs(off) <= Self.mostCyclesOff else {
            next.seenOff = off
            return next
        }
        next.startTicks += off * length
        next.seenOff = 0
        return next
    }

    /// Sleeps until just before the cycle in which the graph is to give the stream's older buffer back (the one that
    /// plays the first frame of the last chunk handed on), so that the wait for it, which looks for it every 200 µs,
    /// begins there and not at once (a chunk comes up to 20 ms before its buffer).
    private func sleepUntilABufferIsDue(_ known: Placement, ticksPerFrame: Double) {
        let now = KernelClock.nanoseconds(CLOCK_MONOTONIC)
        guard let cycle = watch.cycle(atOrBefore: now), cycle.length > 0 else { return }
        let frameAfter = known.startTicks + Double(known.handed - known.lastChunk) * ticksPerFrame
        let cycles = ((frameAfter - Double(cycle.ticks)) / Double(cycle.length)).rounded(.down)
        guard let due = watch.time(ofTicks: Double(cycle.ticks) + cycles * Double(cycle.length)) else { return }
        let wait = Int64(due) - Self.lookAhead - now
        if wait > 0 { usleep(useconds_t(min(wait, Self.freeBufferWait) / 1000)) }
    }

    /// The frames to move the output by for a gap (frames; positive: heard early, so moved later).
    static func move(forGap gap: Double, rate: Int) -> Int {
        guard abs(gap) >= trigger else { return 0 }
        let whole = Int(gap.rounded())
        if abs(gap) * 1e6 / Double(rate) > jumpThreshold { return whole }
        return max(min(whole, maxStep), -maxStep)
    }

    /// Waits until the sink's stream plays (its node runs), at most until `deadline` (ns, kernel): pipewiresink
    /// drops what it renders before, and says nothing. Whether it came.
    private func waitUntilTheStreamPlays(until deadline: Int64) -> Bool {
        while watch.nodeRunning == false {
            guard KernelClock.nanoseconds(CLOCK_MONOTONIC) < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    /// The cycle a stream is placed in (it plays from the next one's start), at most until `deadline` (ns, kernel):
    /// once the stream plays, well between two cycle starts, after the cycle the empty first buffer takes (it plays
    /// nothing in the first cycle after it reached the stream, and takes that turn), and with no more silence before
    /// the chunk due at `dueHere` than the stream's buffers surely hold (`mostSilence`; until then, it waits).
    private func cycleToPlaceIn(dueHere: Double, until deadline: Int64) -> GraphCycles.Cycle? {
        guard waitUntilTheStreamPlays(until: deadline) else { return nil }
        while let cycle = waitBetweenCycles(until: deadline) {
            let now = KernelClock.nanoseconds(CLOCK_MONOTONIC)
            var wait: Int64 = 0
            if let primedAt = state.withLock({ $0.primedAt }), cycle.start < primedAt {
                wait = cycle.start + cycle.period + Self.afterCycleStart - now
            } else if let heard = watch.time(ofTicks: Double(cycle.ticks + cycle.length)) {
                wait = Int64(dueHere - heard) - watch.delay - Self.mostSilence
            }
            guard wait > 0 else { return cycle }
            usleep(useconds_t(wait / 1000))
        }
        return nil
    }

    /// Waits until the time is well between two cycle starts (see `afterCycleStart`), at most until `deadline` (ns,
    /// kernel) for the graph to run (the watch sees its first cycles some ms after it connects, 30-70 ms on a busy
    /// machine): the cycle under way then; nil when the graph did not run.
    private func waitBetweenCycles(until deadline: Int64) -> GraphCycles.Cycle? {
        while true {
            let now = KernelClock.nanoseconds(CLOCK_MONOTONIC)
            guard now < deadline else { return nil }
            guard let cycle = watch.cycle(atOrBefore: now) else {
                usleep(1_000)
                continue
            }
            let into = now - cycle.start
            let latest = cycle.period - Self.beforeCycleEnd
            let earliest = min(max(Self.afterCycleStart, Int64(Double(cycle.period) * Self.placedFrom)), latest)
            if into >= earliest && into <= latest { return cycle }
            let until = into < earliest ? cycle.start + earliest : cycle.start + cycle.period + earliest
            usleep(useconds_t(max(until - now, 0) / 1000))
        }
    }

    /// How far the pipeline clock is ahead of the kernel's CLOCK_MONOTONIC (ns), from the closest of a few paired
    /// readings.
    private func pipelineAhead() -> Int64 {
        var best: (span: Int64, ahead: Int64)? = nil
        for _ in 0..<3 {
            let before = KernelClock.nanoseconds(CLOCK_MONOTONIC)
            let pipeline = Int64(clock.time.nanoseconds)
            let after = KernelClock.nanoseconds(CLOCK_MONOTONIC)
            if best == nil || after - before < best!.span {
                best = (after - before, pipeline - (before + after) / 2)
            }
        }
        return best!.ahead
    }
}
