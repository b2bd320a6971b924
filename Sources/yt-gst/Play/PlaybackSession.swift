// yt-gst — one run of `play`: the playlist, the keyboard, the status, and one control loop over the player's events.
import AppSrcFeeder
import Glibc
import GstPlayer

/// Plays a list of files with one `Player`, handling keys, the status line / JSON, loops and signals.
///
/// Everything is decided in one loop: keys are polled from the terminal, events are read from the bus, and the
/// status is redrawn about 10 times a second. The terminal is put back as it was on every way out.
final class PlaybackSession {
    private let command: PlayCommand
    private let files: [String]
    private let player: Player
    private let keyboard: KeyboardInput?
    private var statusLine: StatusLine
    private let jsonStatus: Bool

    private var volume: Double
    private var muted: Bool
    private var rate: Double
    private var loopA: ClockTime?
    private var loopB: ClockTime?
    private var levels: [ChannelLevel] = []
    /// Text typed after `g`, while entering a time.
    private var gotoText: String?
    private var anyFailed = false

    /// How one file's playback ended.
    private enum Outcome: Equatable {
        case finished, failed, next, previous, quit
        case interrupted(Int32)
    }

    init(
        command: PlayCommand, files: [String], launch: String, properties: [ResolvedPipeline.Property],
        keyboard: KeyboardInput?, statusLine: Bool
    ) {
        self.command = command
        self.files = files
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

    /// Sets template values on a freshly parsed pipeline.
    static func apply(_ properties: [ResolvedPipeline.Property], to pipeline: Pipeline) throws(GstError) {
        for property in properties {
            try pipeline.element(named: property.element).set(property.property, fromString: property.value)
        }
    }

    func run() -> ExitCode {
        defer {
            statusLine.clear()
            keyboard?.restore()
            player.stop()
        }
        var pass = 0
        while true {
            let order = command.shuffle ? files.shuffled() : files
            var index = 0
            while index < order.count {
                switch play(order[index], index: index, count: order.count) {
                case .finished: index += command.loopFile ? 0 : 1
                case .failed:
                    anyFailed = true
                    index += 1
                case .next: index += 1
                case .previous: index = max(0, index - 1)
                case .quit: return anyFailed ? .failure : .success
                case .interrupted(let signal): return signal == SIGTERM ? .terminated : .interrupted
                }
            }
            pass += 1
            guard let loops = command.loopCount, loops == 0 || pass < loops else { break }
            guard !(anyFailed && order.allSatisfy { FileSystem.kind(of: $0) != .file }) else { break }
        }
        return anyFailed ? .failure : .success
    }

    // MARK: One file

    private func play(_ path: String, index: Int, count: Int) -> Outcome {
        if let signal = Interrupts.pending { return .interrupted(signal) }
        let feeder: WAVFeeder
        do {
            feeder = try WAVFeeder(path: path, chunkMilliseconds: command.chunkMilliseconds, buffers: command.buffers)
        } catch {
            report("yt-gst: \(path): \(error)")
            return .failed
        }
        if !command.quiet {
            for warning in feeder.file.warnings { report("yt-gst: \(path): warning: \(warning)") }
        }
        let duration = ClockTime(frames: feeder.file.frameCount, rate: feeder.file.format.sampleRate)
        let start = command.start.map { min(ClockTime(seconds: $0), duration) }
        let stop = command.end.map { min(ClockTime(seconds: $0), duration) }
        loopA = nil
        loopB = nil
        levels = []
        do {
            try player.play(feeder, from: start, to: stop)
            if command.volume != nil || muted { try applyVolume() }
            if rate != 1 { try player.seek(to: start ?? .zero, stop: stop, rate: rate) }
        } catch {
            report("yt-gst: \(path): \(describe(error))")
            return .failed
        }
        var file = FileState(path: path, index: index, count: count, duration: duration, stop: stop)
        var lastDraw = ContinuousClock.now.advanced(by: .seconds(-1))
        while true {
            if let signal = Interrupts.pending { return .interrupted(signal) }
            for key in keyboard?.keys(waiting: 40) ?? [] {
                if let outcome = handle(key, file: &file) { return outcome }
            }
            while let event = player.nextEvent(timeout: keyboard == nil ? .milliseconds(40) : .zero) {
                if let outcome = handle(event, file: file) { return outcome }
            }
            if ContinuousClock.now - lastDraw >= .milliseconds(100) {
                lastDraw = .now
                draw(file)
            }
        }
    }

    /// What the loop knows about the file that plays.
    private struct FileState {
        var path: String
        var index: Int
        var count: Int
        var duration: ClockTime
        /// --end, as a stop position.
        var stop: ClockTime?
    }

    private func handle(_ event: PlayerEvent, file: FileState) -> Outcome? {
        switch event {
        case .endOfStream:
            return .finished
        case .segmentDone:
            // The A-B loop reached B: back to A without a flush, so the loop is seamless.
            if let a = loopA, let b = loopB {
                try? player.seek(to: a, stop: b, rate: rate, options: [.segment, .accurate])
            }
        case .error(let error):
            report("yt-gst: \(file.path): \(describe(error))")
            return .failed
        case .warning(let warning):
            if !command.quiet { report("yt-gst: \(file.path): warning: \(describe(warning))") }
        case .tags(let tags):
            if statusLine.enabled {
                let shown = tags.filter { ["title", "artist", "album", "date", "comment"].contains($0.name) }
                if !shown.isEmpty { report(shown.map { "\($0.name): \($0.value)" }.joined(separator: "  "), toStderr: false) }
            }
        case .element(let structure):
            if let reading = ChannelLevel.parse(structure) { levels = reading }
        case .stateChanged, .application:
            break
        }
        return nil
    }

    // MARK: Keys

    private func handle(_ key: Key, file: inout FileState) -> Outcome? {
        if gotoText != nil { return handleGoto(key, file: file) }
        guard let action = Keys.action(for: key) else { return nil }
        let position = player.position ?? .zero
        do {
            switch action {
            case .togglePause:
                if player.state == .paused { try player.resume() } else { try player.pause() }
            case .seek(let delta):
                // Past the end (or --end) means the next file, as in other players.
                if position.seconds + delta >= (file.stop ?? file.duration).seconds && loopB == nil { return .next }
                try seek(to: position.seconds + delta, file: file)
            case .restart:
                try seek(to: command.start ?? 0, file: file)
            case .volume(let step):
                volume = max(0, min(1.5, ((volume * 100).rounded() + Double(step)) / 100))
                try applyVolume()
            case .toggleMute:
                muted.toggle()
                try applyVolume()
            case .rate(let step):
                let steps = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4]
                let current = steps.firstIndex { $0 >= rate - 0.001 } ?? 4
                rate = steps[max(0, min(steps.count - 1, current + step))]
                try seek(to: position.seconds, file: file)
            case .next: return .next
            case .previous: return .previous
            case .loopPoint:
                try setLoopPoint(at: position, file: file)
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

    private func handleGoto(_ key: Key, file: FileState) -> Outcome? {
        switch key {
        case .enter:
            if let text = gotoText, let seconds = TimeText.seconds(text) {
                do { try seek(to: seconds, file: file) } catch { report("yt-gst: \(describe(error))") }
            }
            gotoText = nil
        case .escape: gotoText = nil
        case .backspace: if gotoText?.isEmpty == false { gotoText?.removeLast() }
        case .char(let c) where c.isNumber || c == ":" || c == ".": gotoText?.append(c)
        default: break
        }
        return nil
    }

    /// Seeks within the file (or within the A-B loop while there is one), keeping the rate and the --end stop.
    private func seek(to seconds: Double, file: FileState) throws(GstError) {
        var target = ClockTime(seconds: max(0, min(seconds, file.duration.seconds)))
        if let a = loopA, let b = loopB {
            target = max(a, min(target, b))
            try player.seek(to: target, stop: b, rate: rate, options: [.flush, .accurate, .segment])
        } else {
            try player.seek(to: target, stop: file.stop, rate: rate)
        }
    }

    /// `l`: first press sets A, the second sets B and starts looping from A, the third clears the loop.
    private func setLoopPoint(at position: ClockTime, file: FileState) throws(GstError) {
        switch (loopA, loopB) {
        case (nil, _):
            loopA = position
        case (let a?, nil):
            guard position > a else {
                loopA = position
                return
            }
            loopB = position
            try player.seek(to: a, stop: position, rate: rate, options: [.flush, .accurate, .segment])
        default:
            loopA = nil
            loopB = nil
            try player.seek(to: position, stop: file.stop, rate: rate)
        }
    }

    private func applyVolume() throws(GstError) {
        try player.setVolume(volume)
        try player.setMuted(muted)
    }

    // MARK: Output

    private func draw(_ file: FileState) {
        guard statusLine.enabled || jsonStatus else { return }
        let state = player.state
        let snapshot = PlaybackSnapshot(
            state: state == .paused ? "paused" : state == .playing ? "playing" : "\(state)", file: file.path,
            index: file.index, count: file.count, position: min(player.position ?? .zero, file.duration).seconds,
            duration: file.duration.seconds, volume: volume, muted: muted, rate: rate, loopA: loopA?.seconds,
            loopB: loopB?.seconds, levels: levels)
        if jsonStatus {
            Terminal.write(StatusView.json(snapshot) + "\n")
        } else if let gotoText {
            statusLine.draw("Go to (1:23 or 83.5, Enter; Esc cancels): \(gotoText)")
        } else {
            statusLine.draw(StatusView.line(snapshot, width: Terminal.columns - 1))
        }
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
