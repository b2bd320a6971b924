// yt-gst — one run of `play`: the playlist, the keyboard, the status, and one control loop over the player's events.
import AppSrcFeeder
import Glibc
import GstPlayer

/// Plays the list through one pipeline, gaplessly (`GaplessChain`), handling keys, the status line / JSON, loops
/// and signals.
///
/// Everything is decided in one loop: keys are polled from the terminal, events are read from the bus, and the
/// status is redrawn about 10 times a second. A new pipeline is built only where a file needs another decoder or
/// after an error. The terminal is put back as it was on every way out.
final class PlaybackSession {
    private let command: PlayCommand
    private let order: PlayOrder
    private let launch: String
    private let player: Player
    private let keyboard: KeyboardInput?
    private var statusLine: StatusLine
    private let jsonStatus: Bool

    private var volume: Double
    private var muted: Bool
    private var rate: Double
    /// A-B loop points, in file time.
    private var loopA: ClockTime?
    private var loopB: ClockTime?
    private var levels: [ChannelLevel] = []
    /// Text typed after `g`, while entering a time.
    private var gotoText: String?
    private var anyFailed = false
    /// The play position whose file the status shows; its start is announced once.
    private var shownPosition: Int?
    /// The chain `openFirstFile()` opened, taken by the first pipeline.
    private var firstChain: GaplessChain?
    /// The files with nothing to play that were warned about (once each, however often a loop passes them).
    private var warnedEmpty: Set<String> = []
    /// The last file passed over for having nothing to play, to name it when a loop of one file has nothing.
    private var lastEmpty: GaplessChain.EmptyFile?

    /// How one pipeline's run ended.
    private enum Outcome: Equatable {
        /// The chain ran out (or needs a pipeline with another decoder from its handoff position).
        case ended
        /// An error stopped the pipeline while this play position played.
        case failed(Int)
        case quit
        case interrupted(Int32)
    }

    init(
        command: PlayCommand, files: [String], launch: String, properties: [ResolvedPipeline.Property],
        keyboard: KeyboardInput?, statusLine: Bool
    ) {
        self.command = command
        let passes: Int? = command.loopCount.map { $0 == 0 ? nil : $0 } ?? 1
        self.order = PlayOrder(files: files, shuffle: command.shuffle, passes: passes)
        self.launch = launch
        self.keyboard = keyboard
        self.statusLine = StatusLine(enabled: statusLine)
        self.jsonStatus = command.status == .json
        self.volume = command.volume ?? 1
        self.muted = command.muted
        self.rate = command.rate
        self.player = Player(launch: launch) { pipeline throws(GstError) in
            try PlaybackSession.apply(properties, to: pipeline)
        }
    }

    /// Builds the pipeline before any file (see `Player.prepare`).
    func prepare() throws(GstError) { try player.prepare() }

    /// Sets template values on a freshly parsed pipeline.
    static func apply(_ properties: [ResolvedPipeline.Property], to pipeline: Pipeline) throws(GstError) {
        for property in properties {
            try pipeline.element(named: property.element).set(property.property, fromString: property.value)
        }
    }

    /// Opens the first playable file, reporting the files that fail on the way; false (and said why) when the list
    /// has nothing to play. Run before anything about the output is decided, so a file's own error comes first.
    func openFirstFile() -> Bool {
        let chain = makeChain()
        let prepared = chain.prepare(at: 0)
        reportFailures(of: chain)
        if prepared { firstChain = chain } else { reportNothingToPlay(chain) }
        return prepared
    }

    func run() -> ExitCode {
        defer {
            statusLine.clear()
            keyboard?.restore()
            player.stop()
        }
        var position = 0
        /// Pipelines in a row that failed: a whole list's worth means every file fails, so stop instead of cycling.
        var failuresInARow = 0
        while true {
            if let signal = Interrupts.pending { return signal == SIGTERM ? .terminated : .interrupted }
            let chain: GaplessChain
            if let first = firstChain {
                chain = first
                firstChain = nil
            } else {
                chain = makeChain()
                let prepared = chain.prepare(at: position)
                reportFailures(of: chain)
                guard prepared else {
                    reportNothingToPlay(chain)
                    break
                }
            }
            let outcome = play(chain)
            // The chain is done with: a read waiting on a quiet pipe must not hold up stopping the pipeline.
            chain.stopReading()
            reportFailures(of: chain)
            switch outcome {
            case .ended:
                if chain.ending == .nothingToPlay {
                    reportNothingToPlay(chain)
                    return .failure
                }
                guard let handoff = chain.handoff else { return anyFailed ? .failure : .success }
                position = handoff
                failuresInARow = 0
            case .failed(let failed):
                anyFailed = true
                failuresInARow += 1
                if failuresInARow >= max(order.count, 1) { return .failure }
                position = failed + 1
            case .quit:
                return anyFailed ? .failure : .success
            case .interrupted(let signal):
                return signal == SIGTERM ? .terminated : .interrupted
            }
        }
        return anyFailed ? .failure : .success
    }

    private func makeChain() -> GaplessChain {
        GaplessChain(
            order: order,
            settings: GaplessChain.Settings(
                chunkMilliseconds: command.chunkMilliseconds, buffers: command.buffers,
                start: command.start.map { ClockTime(seconds: $0) }, end: command.end.map { ClockTime(seconds: $0) },
                repeatEachFile: command.loopFile))
    }

    private func reportNothingToPlay(_ chain: GaplessChain) {
        anyFailed = true
        guard chain.ending == .nothingToPlay else { return }  // files that failed have said so already
        if order.count == 1, let empty = lastEmpty {
            report("yt-gst: \(empty.path): nothing to play (\(empty.reason))")
        } else {
            report("yt-gst: nothing to play in the list (every file is empty or cut away by --start/--end)")
        }
    }

    // MARK: One pipeline

    private func play(_ chain: GaplessChain) -> Outcome {
        player.launch =
            chain.needsDecoder
            ? Launch.insertingDecoder(afterSource: "src", in: launch, decoder: chain.decoder) : launch
        shownPosition = nil
        loopA = nil
        loopB = nil
        do {
            try player.play(chain)
            if command.volume != nil || muted { try applyVolume() }
            if rate != 1, let segment = chain.segment(at: .zero) { try seek(chain, segment, to: segment.fileStart) }
        } catch {
            let failed = chain.segment(at: .zero)
            report("yt-gst: \(failed?.path ?? chain.displayName): \(describe(error))")
            return .failed(failed?.position ?? 0)
        }
        var nextDraw = ContinuousClock.now
        while true {
            if let signal = Interrupts.pending { return .interrupted(signal) }
            reportFailures(of: chain)
            let now = current(chain)
            for key in keyboard?.keys() ?? [] {
                guard let now else { break }
                if let outcome = handle(key, chain: chain, now: now) { return outcome }
            }
            while let event = player.nextEvent(timeout: .zero) {
                if let outcome = handle(event, chain: chain, now: now) { return outcome }
            }
            // Nothing to show until the pipeline has started (a READY "position 0" would be a status of nothing).
            if showsStatus && ContinuousClock.now >= nextDraw, [.playing, .paused].contains(player.state),
                let now = current(chain)
            {
                draw(now)
            }
            if ContinuousClock.now >= nextDraw { nextDraw = .now.advanced(by: .milliseconds(100)) }
            waitForSomething(until: showsStatus ? nextDraw : nil)
        }
    }

    private var showsStatus: Bool { statusLine.enabled || jsonStatus }

    /// Sleeps until a bus message, a key or a signal arrives, or until `deadline` (the next status redraw).
    private func waitForSomething(until deadline: ContinuousClock.Instant?) {
        MainLoop.wait(for: [player.eventDescriptor, keyboard?.descriptor], until: deadline)
    }

    /// What plays now: the file's segment and the position in that file.
    private struct Now {
        var segment: GaplessChain.Segment
        var fileTime: ClockTime
        var stream: ClockTime
    }

    private func current(_ chain: GaplessChain) -> Now? {
        let stream = player.position ?? .zero
        guard let segment = chain.segment(at: stream) else { return nil }
        let offset =
            stream.nanoseconds >= segment.streamStart.nanoseconds
            ? stream.nanoseconds - segment.streamStart.nanoseconds : 0
        let fileTime = min(ClockTime(nanoseconds: segment.fileStart.nanoseconds + offset), segment.duration)
        if shownPosition != segment.position {
            // A new file has started at the sink: its warnings once, and loop points belong to the old one.
            shownPosition = segment.position
            loopA = nil
            loopB = nil
            if !command.quiet {
                for warning in segment.warnings { report("yt-gst: \(segment.path): warning: \(warning)") }
            }
        }
        return Now(segment: segment, fileTime: fileTime, stream: stream)
    }

    private func handle(_ event: PlayerEvent, chain: GaplessChain, now: Now?) -> Outcome? {
        switch event {
        case .endOfStream:
            return .ended
        case .segmentDone:
            // The A-B loop reached B: back to A without a flush, so the loop is seamless.
            if let now, let a = loopA { try? seek(chain, now.segment, to: a, flush: false) }
        case .error(let error):
            report("yt-gst: \(now?.segment.path ?? chain.displayName): \(describe(error))")
            return .failed(now?.segment.position ?? 0)
        case .warning(let warning):
            if !command.quiet {
                report("yt-gst: \(now?.segment.path ?? chain.displayName): warning: \(describe(warning))")
            }
        case .tags(let tags):
            if statusLine.enabled {
                let shown = tags.filter { ["title", "artist", "album", "date", "comment"].contains($0.name) }
                if !shown.isEmpty {
                    report(shown.map { "\($0.name): \($0.value)" }.joined(separator: "  "), toStderr: false)
                }
            }
        case .element(let structure):
            if let reading = ChannelLevel.parse(structure) { levels = reading }
        case .stateChanged, .application:
            break
        }
        return nil
    }

    // MARK: Keys

    private func handle(_ key: Key, chain: GaplessChain, now: Now) -> Outcome? {
        if gotoText != nil {
            handleGoto(key, chain: chain, now: now)
            return nil
        }
        guard let action = Keys.action(for: key) else { return nil }
        let position = now.segment.position
        if now.segment.isStream && action.seeks {
            report("yt-gst: \(now.segment.path): seeking is unavailable on a pipe (it plays forward only)")
            return nil
        }
        do {
            switch action {
            case .togglePause:
                if player.state == .paused { try player.resume() } else { try player.pause() }
            case .seek(let delta):
                let target = now.fileTime.seconds + delta
                // Past the end (or --end) means the next file, as in other players.
                if target >= (command.end ?? now.segment.duration.seconds) && loopB == nil {
                    guard try jump(chain, to: position + 1) else { return .ended }
                } else {
                    try seek(chain, now.segment, to: ClockTime(seconds: max(command.start ?? 0, target)))
                }
            case .restart:
                try seek(chain, now.segment, to: ClockTime(seconds: command.start ?? 0))
            case .volume(let step):
                volume = max(0, min(1.5, ((volume * 100).rounded() + Double(step)) / 100))
                try applyVolume()
            case .toggleMute:
                muted.toggle()
                try applyVolume()
            case .rate(let step):
                let steps = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4]
                let index = steps.firstIndex { $0 >= rate - 0.001 } ?? 4
                rate = steps[max(0, min(steps.count - 1, index + step))]
                try seek(chain, now.segment, to: now.fileTime)
            case .next:
                guard try jump(chain, to: position + 1) else { return .ended }
            case .previous:
                _ = try jump(chain, to: max(0, position - 1))
            case .loopPoint:
                try setLoopPoint(chain, now)
            case .beginGoto:
                gotoText = ""
            case .showKeys:
                report(Keys.help, toStderr: false)
            case .quit:
                return .quit
            }
        } catch {
            report("yt-gst: \(describe(error))")
        }
        return nil
    }

    private func handleGoto(_ key: Key, chain: GaplessChain, now: Now) {
        switch key {
        case .enter:
            if let text = gotoText, let seconds = TimeText.seconds(text) {
                do { try seek(chain, now.segment, to: ClockTime(seconds: seconds)) } catch {
                    report("yt-gst: \(describe(error))")
                }
            }
            gotoText = nil
        case .escape: gotoText = nil
        case .backspace: if gotoText?.isEmpty == false { gotoText?.removeLast() }
        case .char(let c) where c.isNumber || c == ":" || c == ".": gotoText?.append(c)
        default: break
        }
    }

    /// Moves to `fileTime` in the playing file (within the A-B loop while there is one), keeping the rate.
    ///
    /// Every seek reopens the file there through the chain (`jump`), so the stream time of the seek
    /// simply becomes the file's new start: stream time = file time after a seek.
    private func seek(
        _ chain: GaplessChain, _ segment: GaplessChain.Segment, to fileTime: ClockTime, flush: Bool = true
    )
        throws(GstError)
    {
        var target = min(fileTime, segment.duration)
        var stop: ClockTime?
        if let a = loopA, let b = loopB {
            target = max(a, min(target, b))
            stop = b
        }
        let options: Pipeline.SeekOptions =
            stop == nil ? [.flush, .accurate] : flush ? [.flush, .accurate, .segment] : [.accurate, .segment]
        try chain.jump(to: segment.position, fileTime: target) { () throws(GstError) in
            try player.seek(to: target, stop: stop, rate: rate, options: options)
        }
    }

    /// Starts play position `position` (next / previous file) at once; false past the end of the list.
    private func jump(_ chain: GaplessChain, to position: Int) throws(GstError) -> Bool {
        guard order.index(at: position) != nil else { return false }
        try chain.jump(to: position, fileTime: nil) { () throws(GstError) in try player.seek(to: .zero, rate: rate) }
        return true
    }

    /// `l`: first press sets A, the second sets B and starts looping from A, the third clears the loop.
    private func setLoopPoint(_ chain: GaplessChain, _ now: Now) throws(GstError) {
        switch (loopA, loopB) {
        case (nil, _):
            loopA = now.fileTime
        case (let a?, nil):
            guard now.fileTime > a else {
                loopA = now.fileTime
                return
            }
            loopB = now.fileTime
            try seek(chain, now.segment, to: a)
        default:
            loopA = nil
            loopB = nil
            try seek(chain, now.segment, to: now.fileTime)
        }
    }

    private func applyVolume() throws(GstError) {
        try player.setVolume(volume)
        try player.setMuted(muted)
    }

    // MARK: Output

    private func draw(_ now: Now) {
        guard statusLine.enabled || jsonStatus else { return }
        let state = player.state
        let snapshot = PlaybackSnapshot(
            state: state == .paused ? "paused" : state == .playing ? "playing" : "\(state)", file: now.segment.path,
            index: now.segment.position % max(order.count, 1), count: order.count, position: now.fileTime.seconds,
            duration: now.segment.lengthIsKnown ? now.segment.duration.seconds : 0, volume: volume, muted: muted,
            rate: rate, loopA: loopA?.seconds,
            loopB: loopB?.seconds, levels: levels)
        if jsonStatus {
            Terminal.write(StatusView.json(snapshot) + "\n")
        } else if let gotoText {
            statusLine.draw("Go to (1:23 or 83.5, Enter; Esc cancels): \(gotoText)")
        } else {
            statusLine.draw(StatusView.line(snapshot, width: Terminal.columns - 1))
        }
    }

    /// Files that could not be opened (an error each), and files passed over for having nothing to play (a
    /// warning each, as other players play them: as nothing); a loop with nothing to play at all is
    /// `reportNothingToPlay`'s error instead.
    private func reportFailures(of chain: GaplessChain) {
        for failure in chain.takeFailures() {
            anyFailed = true
            report("yt-gst: \(failure)")
        }
        let empty = chain.takeEmptyFiles()
        lastEmpty = empty.last ?? lastEmpty
        guard chain.ending != .nothingToPlay, !command.quiet else { return }
        for file in empty where warnedEmpty.insert(file.path).inserted { file.warningLines.forEach { report($0) } }
    }

    /// Prints a line above the status line (which is redrawn on the next tick).
    private func report(_ text: String, toStderr: Bool = true) {
        statusLine.clear()
        if toStderr { Terminal.error(text) } else { Terminal.write(text + "\n") }
    }

    private func describe(_ error: GstError) -> String {
        command.verbose ? error.verboseDescription : error.description
    }
}
