// yt-gst — running a playback session's commands: pause, seeks, files, volume, rate, the A-B loop.
import GstPlayer

extension PlaybackSession {
    /// The volume range the session keeps to (linear; 1.5 is +3.5 dB).
    public static let volumeRange = 0.0...1.5
    /// The rate range the session keeps to, and the rates `stepRate` moves between.
    public static let rateRange = 0.25...4.0
    static let rateSteps = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4]

    /// Runs `command` on the playing pipeline; an outcome when it ends that pipeline. Commands that need a playing
    /// file are dropped before one has started (`now` is nil).
    func run(_ command: Command, chain: GaplessChain, now: Now?) -> Outcome? {
        if case .stop(let reason) = command { return .stopped(reason) }
        if case .reportStatus(let interval) = command {
            requestedStatusInterval = interval
            return nil
        }
        guard let now else { return nil }
        if now.segment.isStream && command.seeks {
            report(.seekUnavailable(path: now.segment.path))
            return nil
        }
        do {
            return try move(command, chain: chain, now: now)
        } catch {
            report(.commandFailed(error))
            return nil
        }
    }

    /// Runs a command other than stop; `.ended` when it moved past the end of the list.
    private func move(_ command: Command, chain: GaplessChain, now: Now) throws(GstError) -> Outcome? {
        let position = now.segment.position
        switch command {
        case .pause, .resume, .togglePause:
            let pause = command == .pause || (command == .togglePause && !paused)
            if pause { try player.pause() } else { try player.resume() }
            paused = pause
            report(.pausedChanged(pause))
        case .seek(let seconds): report(.seeked(try seek(chain, now.segment, to: ClockTime(seconds: seconds)).seconds))
        case .seekRelative(let delta):
            let target = now.fileTime.seconds + delta
            // Past the end (or `end`) means the next file, as in other players.
            if target >= (configuration.end ?? now.segment.duration.seconds) && loopB == nil {
                return try jump(chain, to: position + 1)
            } else {
                let time = ClockTime(seconds: max(configuration.start ?? 0, target))
                report(.seeked(try seek(chain, now.segment, to: time).seconds))
            }
        case .next: return try jump(chain, to: position + 1)
        case .previous: return try jump(chain, to: max(0, position - 1))
        case .jump(let index):
            let count = max(order.count, 1)
            return try jump(chain, to: position - position % count + min(max(index, 0), count - 1))
        case .setVolume(let value): try setVolume(value)
        case .adjustVolume(let percent): try setVolume(((volume * 100).rounded() + Double(percent)) / 100)
        case .setMute(let value): try setMute(value)
        case .toggleMute: try setMute(!muted)
        case .setRate(let value): try setRate(value, chain, now)
        case .stepRate(let step):
            let index = Self.rateSteps.firstIndex { $0 >= rate - 0.001 } ?? 4
            try setRate(Self.rateSteps[max(0, min(Self.rateSteps.count - 1, index + step))], chain, now)
        case .setLoopPoint: try setLoopPoint(chain, now)
        case .load(let files, let replace): return load(files, replace: replace)
        case .setLoopFile(let on): changeOrder(chain, loopFile: on, passes: passes, shuffle: order.shuffle)
        case .setLoopPlaylist(let passes):
            changeOrder(chain, loopFile: repeatEachFile, passes: passes, shuffle: order.shuffle)
        case .setShuffle(let on): changeOrder(chain, loopFile: repeatEachFile, passes: passes, shuffle: on)
        case .stop, .reportStatus: break
        }
        return nil
    }

    /// Moves to `fileTime` in the playing file (within the A-B loop while there is one), keeping the rate; returns
    /// where it went (`fileTime` kept within the file and the loop).
    ///
    /// Every seek reopens the file there through the chain (`jump`), so the stream time of the seek
    /// simply becomes the file's new start: stream time = file time after a seek.
    @discardableResult
    func seek(
        _ chain: GaplessChain, _ segment: GaplessChain.Segment, to fileTime: ClockTime, flush: Bool = true
    ) throws(GstError) -> ClockTime {
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
        return target
    }

    /// A new list played from its start now (`replace`), or files added to the end of this one. Chains made from
    /// here on play the new order; the chain playing goes on with the files it has, and where it runs out the
    /// files added after its last one follow (see `appended(after:)`).
    private func load(_ files: [String], replace: Bool) -> Outcome? {
        order = PlayOrder(
            files: replace ? files : order.files + files, shuffle: order.shuffle,
            passes: replace ? passes : order.passes)
        return replace ? .restart(0) : nil
    }

    /// What follows the file fed last (the one playing, or the one just after it) plays with these loops and this
    /// shuffle; the file playing plays on, and the chain plays the new order from its next file with no gap.
    private func changeOrder(_ chain: GaplessChain, loopFile: Bool, passes: Int?, shuffle: Bool) {
        order = chain.follow(repeatEachFile: loopFile) { order.changed(shuffle: shuffle, passes: passes, after: $0) }
        repeatEachFile = loopFile
        self.passes = passes
        report(.orderChanged(loopFile: loopFile, passes: passes, shuffle: shuffle))
    }

    /// Starts play position `position` (next / previous file) at once: `.ended` past the end of the list,
    /// `.restart` for a file added (`load`) after the playing chain was made (a new chain plays it), else nil.
    private func jump(_ chain: GaplessChain, to position: Int) throws(GstError) -> Outcome? {
        guard order.index(at: position) != nil else { return .ended }
        guard chain.order.index(at: position) != nil else { return .restart(position) }
        try chain.jump(to: position, fileTime: nil) { () throws(GstError) in
            try player.seek(to: .zero, stop: nil, rate: rate, options: [.flush, .accurate])
        }
        return nil
    }

    /// First call sets A, the second sets B and starts looping from A, the third clears the loop.
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

    /// A new rate takes effect with a seek to where the file is.
    private func setRate(_ value: Double, _ chain: GaplessChain, _ now: Now) throws(GstError) {
        rate = min(max(value, Self.rateRange.lowerBound), Self.rateRange.upperBound)
        try seek(chain, now.segment, to: now.fileTime)
        reportControls()
    }

    private func setVolume(_ value: Double) throws(GstError) {
        volume = min(max(value, Self.volumeRange.lowerBound), Self.volumeRange.upperBound)
        try applyVolume()
        reportControls()
    }

    private func setMute(_ value: Bool) throws(GstError) {
        muted = value
        try applyVolume()
        reportControls()
    }

    private func reportControls() { report(.controlsChanged(volume: volume, muted: muted, rate: rate)) }

    func applyVolume() throws(GstError) {
        try player.setVolume(volume)
        try player.setMuted(muted)
    }
}

extension PlaybackSession.Command {
    /// Whether the command moves within the playing file (or replays it), which a pipe cannot do: seeks, a rate
    /// change (a seek at the new rate), the A-B loop and the loops. Next, previous and jump can.
    var seeks: Bool {
        switch self {
        case .seek, .seekRelative, .setRate, .stepRate, .setLoopPoint, .setLoopFile, .setLoopPlaylist: true
        default: false
        }
    }
}
