// yt-gst — a broadcast's answers to its pipeline's events, and to the Icecast servers it loses.
import AppSrcFeeder
import GstPlayer
import WAV

extension BroadcastSession {
    /// Answers one event of the player; returns the ending when it ends the broadcast.
    func handle(_ event: Message) throws(StreamingError) -> Ending? {
        switch event.view {
        case .endOfStream:
            if let handoff = chain?.handoff {
                place = (handoff, nil)
                try start()
                return nil
            }
            for playlist in playlists {
                if let problem = playlist.finish() { throw .playlistNotWritten(directory: playlist.directory, problem) }
            }
            return .finished(someFilesFailed: someFilesFailed)
        case .element(let message):
            for playlist in playlists {
                if let problem = playlist.handle(message) {
                    throw .playlistNotWritten(directory: playlist.directory, problem)
                }
            }
        case .error(let error):
            try handle(error)
        case .warning(let warning):
            observer(.warning(warning))
        default:
            break
        }
        if let chain { reportFiles(of: chain) }
        return nil
    }

    /// An error: an Icecast sink that could not connect or lost its server is retried once audio has gone out
    /// (before that, the setup is wrong: a refusal); any other error ends the broadcast.
    private func handle(_ error: GstError) throws(StreamingError) {
        guard let name = error.elementName, let sink = plan.icecastSinks.first(where: { $0.name == name }),
            error.resourceError == .open || error.resourceError == .write
        else { throw .pipeline(error, connected: everConnected) }
        guard everConnected else { throw .refused(sink.endpoint, sink.endpoint.refusal()) }
        let now = ContinuousClock.now
        switch mounts[name] {
        case .lost?:
            return
        case .connecting(_, let resumed?)?:
            // Back, but not ready for us yet (or gone again): keep trying from the first loss.
            var loss = resumed
            loss.nextTry = now + resumed.pause
            mounts[name] = .lost(loss)
            return
        default:
            break
        }
        observer(.serverLost(sink.endpoint, error))
        mounts[name] = .lost(
            Loss(
                endpoint: sink.endpoint, since: now, nextTry: now + BroadcastSession.firstRetryPause,
                pause: BroadcastSession.firstRetryPause))
    }

    /// While a server is lost: when the next try is due, sees whether it accepts connections again and if so
    /// connects again (a new branch for that mount, or the whole broadcast at its place when it was the sole
    /// destination); gives up after the retry time.
    func retryIfDue() throws(StreamingError) {
        let limit = configuration.retrySeconds
        for (sink, var loss) in losses where ContinuousClock.now >= loss.nextTry {
            if ContinuousClock.now - loss.since >= .milliseconds(Int64(limit * 1000)) {
                throw .gaveUp(loss.endpoint, seconds: limit)
            }
            loss.pause = min(loss.pause * 2, BroadcastSession.longestRetryPause)
            if loss.endpoint.connectionProblem(timeout: .milliseconds(500)) != nil {
                loss.nextTry = .now + loss.pause
                mounts[sink] = .lost(loss)
                continue
            }
            guard plan.mountsReconnectAlone, let pipeline = player.pipeline else { return try start(resuming: loss) }
            do {
                try plan.addMountBranch(of: sink, to: pipeline)
                mounts[sink] = .connecting(rendered: false, after: loss)
            } catch {
                throw .pipeline(error, connected: everConnected)
            }
        }
    }

    // MARK: Commands

    /// Runs one command; returns the ending when it ends the broadcast.
    func perform(_ command: Command) throws(StreamingError) -> Ending? {
        switch command {
        case .stop(let reason):
            return .stopped(reason)
        case .pause:
            guard !paused else { return nil }
            paused = true
            try silence(true)
        case .resume:
            guard paused else { return nil }
            paused = false
            try jump(to: place.position, fileTime: place.fileTime)
            try silence(false)
        case .seek, .seekRelative, .setLoop, .setShuffle, .setVolume:
            break  // what the control service asks of an RTP stream; a broadcast does not take them (yet)
        case .next, .previous:
            let position = max(0, place.position + (command.isNext ? 1 : -1))
            guard order.index(at: position) != nil else { return .finished(someFilesFailed: someFilesFailed) }
            place = (position, nil)
            // While paused the place only moves: the jump is made on resuming.
            if !paused { try jump(to: position, fileTime: nil) }
        }
        return nil
    }

    /// Mutes or unmutes what goes out (nothing to do while a sole destination's server is lost: the next
    /// pipeline starts muted when paused).
    private func silence(_ muted: Bool) throws(StreamingError) {
        guard player.pipeline != nil else { return }
        do { try player.setMuted(muted) } catch { throw .pipeline(error, connected: everConnected) }
    }

    /// Moves the broadcast to file `position` at `fileTime` (nil: its start) with a seek of the appsrc alone that
    /// does not flush, to the stream time it is at: the encoders, the HLS muxer and the Icecast connections see one
    /// continuous stream (what went downstream before plays out first). `holdingPlace`: the place stays (the silent
    /// feed of a pause). With no pipeline (a sole destination's server is lost), the place is where it starts again.
    func jump(to position: Int, fileTime: ClockTime?, holdingPlace: Bool = false) throws(StreamingError) {
        if !holdingPlace { place = (position, fileTime) }
        guard let chain, let source = try? player.pipeline?.element(named: "src") else { return }
        let now = max(player.position ?? .zero, furthest ?? .zero)
        do {
            try chain.jump(to: position, fileTime: fileTime) { () throws(GstError) in
                try source.seekWithoutFlush(to: now)
            }
        } catch {
            throw .pipeline(error, connected: everConnected)
        }
    }
}

extension BroadcastSession.Command {
    fileprivate var isNext: Bool { if case .next = self { true } else { false } }
}
