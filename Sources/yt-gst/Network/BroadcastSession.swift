// yt-gst — one broadcast: the playlist through the gapless chain to every destination, titles as files start,
// and the Icecast server's faults survived.
import AppSrcFeeder
import GstPlayer
import Streaming
import WAV

/// Runs a broadcast until the list ends (or a signal, an error, or a server lost for longer than --retry-for).
///
/// One loop decides everything, as in `play`: it reads the player's events, follows the position (to know the
/// file and the time in it, and to announce each file's title as it starts; 4 or 10 times a second), and while an Icecast server is lost
/// it tries it again with a growing pause (100 ms to 1 s), so streaming resumes within about a second of the
/// server being back. A sole destination waits for its server: resuming builds a new pipeline at the place where the
/// broadcast stopped (the same file, the same time in it). Beside other destinations, only the lost mount's branch
/// is replaced; the others go on in real time. HLS playlists are the session's (`HLSPlaylistFile`), not a
/// pipeline's: across every pipeline it builds (for a file that needs another decoder) segment numbers only
/// grow, and the break is marked as a discontinuity.
final class BroadcastSession {
    /// The pause between two tries of a lost server grows from the first to the last.
    static let firstRetryPause: Duration = .milliseconds(100)
    static let longestRetryPause: Duration = .seconds(1)

    /// A lost Icecast server: which, since when, and when to try it next.
    private struct Loss {
        var endpoint: IcecastEndpoint
        var since: ContinuousClock.Instant
        var nextTry: ContinuousClock.Instant
        var pause: Duration
    }

    private let command: BroadcastCommand
    private let plan: BroadcastPlan
    private let order: PlayOrder
    private let player: Player
    /// The playlist of each HLS destination, for the whole broadcast.
    private let playlists: [HLSPlaylistFile]
    private var chain: GaplessChain?
    private var status: StatusLine
    private var anyFailed = false
    /// The play position and the time in that file where the broadcast is (where it resumes after a loss).
    private var place: (position: Int, fileTime: ClockTime?) = (0, nil)
    /// The furthest position the current pipeline reported.
    private var furthest: ClockTime?
    /// The play position whose title was announced on the current connections.
    private var announced: Int?
    private var title = ""
    private var oggTitleWarned = false
    /// Where each Icecast sink's connection is, by sink name.
    private enum Mount {
        /// Connecting on its first buffer. `rendered`: it rendered one and no error has been read since: connected,
        /// once the bus has been read once more (a failed connect posts its error before the render counts, so it
        /// would be there). `after`: the loss this connection ends.
        case connecting(rendered: Bool, after: Loss?)
        case streaming
        case lost(Loss)
    }
    private var mounts: [String: Mount] = [:]
    /// The files with nothing to play that were warned about (once each, however often a loop passes them).
    private var warnedEmpty: Set<String> = []
    /// Whether audio ever went out: a refusal before that is a fault of the setup, said once, exit 1.
    private var everConnected = false
    /// The lost servers, by sink name.
    private var losses: [(sink: String, loss: Loss)] {
        mounts.compactMap { if case .lost(let loss) = $0.value { ($0.key, loss) } else { nil } }
            .sorted { $0.sink < $1.sink }
    }
    /// Whether the broadcast stands still until a lost server is back (a sole destination).
    private var waitingForServer: Bool { !plan.mountsReconnectAlone && !losses.isEmpty }
    private var nextDraw = ContinuousClock.now
    /// How often the loop looks at the position: for the status line 10 times a second; otherwise 4 times (a
    /// title reaches the server within a quarter second of its file's start, and the loop costs less).
    private var followEvery: Duration { status.enabled ? .milliseconds(100) : .milliseconds(250) }

    init(command: BroadcastCommand, files: [String]) {
        self.command = command
        plan = command.plan
        let passes: Int? = command.loopCount.map { $0 == 0 ? nil : $0 } ?? 1
        order = PlayOrder(files: files, shuffle: command.shuffle, passes: passes)
        let plan = command.plan
        let playlists = plan.hlsSinks.map {
            HLSPlaylistFile(
                sink: $0.name, directory: $0.directory, name: $0.playlist, targetSeconds: plan.segmentSeconds,
                length: plan.playlistLength)
        }
        self.playlists = playlists
        player = Player(launch: plan.launch) { pipeline throws(GstError) in
            try plan.configure(pipeline) { sink in playlists.first { $0.sink == sink }?.nextSegment ?? 0 }
        }
        player.errorIsContained = { error in
            plan.mountsReconnectAlone && plan.icecastSinks.contains { $0.name == error.elementName }
        }
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
    }

    /// Broadcasts the list; returns the exit code.
    func run() -> ExitCode {
        defer {
            status.clear()
            player.stop()
        }
        if let code = start() { return code }
        while true {
            if let signal = Interrupts.pending { return Interrupts.exitCode(for: signal) }
            if let code = retryIfDue() { return code }
            follow()
            while let event = player.nextEvent(timeout: .zero) {
                if let code = handle(event) { return code }
            }
            drawStatus()
            var until = ContinuousClock.now + followEvery
            if let due = losses.map(\.loss.nextTry).min(), waitingForServer || due < until { until = due }
            MainLoop.wait(for: [player.eventDescriptor], until: until)
        }
    }

    // MARK: Starting

    /// Starts a pipeline at `place`: a new chain prepared at its file, sought to its time. Returns the exit code
    /// when nothing can be broadcast. `resuming`: the loss of a server that is back.
    private func start(resuming: Loss? = nil) -> ExitCode? {
        let chain = GaplessChain(order: order, settings: GaplessChain.Settings())
        let prepared = chain.prepare(at: place.position)
        reportFailures(of: chain)
        guard prepared else {
            if chain.ending == .nothingToPlay {
                Terminal.error("yt-gst: nothing to broadcast (every file is empty)")
            }
            return .failure
        }
        self.chain = chain
        let launch =
            chain.needsDecoder
            ? Launch.insertingDecoder(afterSource: "src", in: plan.launch, decoder: chain.decoder) : plan.launch
        mounts = Dictionary(
            uniqueKeysWithValues: plan.icecastSinks.map { ($0.name, .connecting(rendered: false, after: resuming)) })
        announced = nil
        furthest = nil
        for playlist in playlists { playlist.pipelineStarts() }
        do {
            try player.play(chain, launch: launch, from: place.fileTime)
        } catch {
            report("yt-gst: \(command.describe(error))")
            return .failure
        }
        return nil
    }

    /// Files that could not be opened, and files passed over (or broadcast as nothing) for having nothing to play.
    private func reportFailures(of chain: GaplessChain) {
        for failure in chain.takeFailures() {
            anyFailed = true
            report("yt-gst: \(failure)")
        }
        let empty = chain.takeEmptyFiles()
        guard chain.ending != .nothingToPlay, !command.quiet else { return }
        for file in empty where warnedEmpty.insert(file.path).inserted { file.warningLines.forEach { report($0) } }
    }

    // MARK: Following the broadcast

    /// Where the broadcast is: the file and the time in it; announces a file's title once audio goes out.
    private func follow() {
        // With several sinks the pipeline answers with one or another's position: take the furthest seen, so the
        // broadcast never seems to step back into the file before.
        guard !waitingForServer, let chain, let reported = player.position else { return }
        let position = max(reported, furthest ?? reported)
        furthest = position
        guard let segment = chain.segment(at: position) else { return }
        let offset =
            position.nanoseconds >= segment.streamStart.nanoseconds
            ? position.nanoseconds - segment.streamStart.nanoseconds : 0
        place = (segment.position, ClockTime(nanoseconds: segment.fileStart.nanoseconds + offset))
        followConnections()
        let connecting = mounts.values.contains { if case .connecting = $0 { true } else { false } }
        if !connecting && announced != segment.position {
            announced = segment.position
            announce(BroadcastSession.title(of: segment.path))
        }
    }

    /// Moves each connecting sink on: rendered, then streaming once the bus was read in between (said when it
    /// ends a loss); a sink that starts streaming gets the title (announced again to all).
    private func followConnections() {
        for (sink, state) in mounts {
            guard case .connecting(let rendered, let after) = state else { continue }
            guard rendered else {
                if hasRendered(sink) { mounts[sink] = .connecting(rendered: true, after: after) }
                continue
            }
            mounts[sink] = .streaming
            everConnected = true
            announced = nil
            if let after {
                let seconds = (ContinuousClock.now - after.since) / .seconds(1)
                report(
                    "yt-gst: \(after.endpoint): streaming again (the server was lost for "
                        + "\(StatusView.trim((seconds * 10).rounded() / 10)) s)")
            }
        }
    }

    /// Whether the shout2send `sink` has rendered a buffer: it connects on its first, and counts it even when that
    /// failed (its error is on the bus by then).
    private func hasRendered(_ sink: String) -> Bool {
        guard let pipeline = player.pipeline else { return false }
        return ((try? pipeline.element(named: sink))?.structure(of: "stats")?.count("rendered") ?? 0) > 0
    }

    /// The now-playing title of a file: "ARTIST - TITLE" from its LIST/INFO (INAM, IART), else its file name.
    static func title(of path: String) -> String {
        let name = String(path.split(separator: "/").last ?? Substring(path))
        guard let info = try? WAVFile.open(path: path).file.metadata.info else { return name }
        func entry(_ id: String) -> String? {
            info.first { $0.id == id }.map(\.value.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        }
        switch (entry("IART"), entry("INAM")) {
        case (let artist?, let title?): return "\(artist) - \(title)"
        case (nil, let title?): return title
        default: return name
        }
    }

    /// Tells every Icecast server the title now playing (again after a reconnect: the server forgot it), and says
    /// it on stderr when it changed.
    private func announce(_ title: String) {
        if !command.quiet && title != self.title { report("yt-gst: now playing: \(title)") }
        self.title = title
        for (sink, endpoint) in plan.icecastSinks {
            guard case .streaming = mounts[sink] else { continue }
            guard plan.codec.takesTitleUpdates else {
                if !oggTitleWarned && !command.quiet {
                    report(
                        "yt-gst: \(endpoint): warning: Icecast 2.4 cannot change the title of an Ogg stream; "
                            + "listeners see the first file's (use --codec mp3 for a title per file)")
                }
                oggTitleWarned = true
                continue
            }
            if let problem = endpoint.announce(title: title), !command.quiet {
                report("yt-gst: \(endpoint): warning: \(problem)")
            }
        }
    }

    // MARK: Events

    private func handle(_ event: Message) -> ExitCode? {
        switch event {
        case .endOfStream:
            if let handoff = chain?.handoff {
                place = (handoff, nil)
                return start()
            }
            for playlist in playlists {
                if let problem = playlist.finish() { return failure(of: playlist, problem) }
            }
            return anyFailed ? .failure : .success
        case .element(let message):
            for playlist in playlists {
                if let problem = playlist.handle(message) { return failure(of: playlist, problem) }
            }
        case .error(let error):
            return handle(error)
        case .warning(let warning):
            if !command.quiet { report("yt-gst: warning: \(command.describe(warning))") }
        default:
            break
        }
        if let chain { reportFailures(of: chain) }
        return nil
    }

    /// A playlist that could not be written ends the broadcast, as any other failed HLS output does.
    private func failure(of playlist: HLSPlaylistFile, _ problem: String) -> ExitCode {
        report("yt-gst: hls:\(playlist.directory): \(problem)")
        return .failure
    }

    /// An error: an Icecast sink that could not connect or lost its server is retried once audio has gone out
    /// (before that, the setup is wrong: said once, exit 1); any other error ends the broadcast.
    private func handle(_ error: GstError) -> ExitCode? {
        guard let name = error.elementName, let sink = plan.icecastSinks.first(where: { $0.name == name }),
            error.resourceError == .open || error.resourceError == .write
        else {
            report("yt-gst: \(command.describe(error))")
            return .failure
        }
        guard everConnected else {
            report("yt-gst: \(sink.endpoint): \(sink.endpoint.refusal())")
            return .failure
        }
        let now = ContinuousClock.now
        switch mounts[name] {
        case .lost?:
            return nil
        case .connecting(_, let resumed?)?:
            // Back, but not ready for us yet (or gone again): keep trying from the first loss.
            mounts[name] = .lost(
                Loss(
                    endpoint: resumed.endpoint, since: resumed.since, nextTry: now + resumed.pause, pause: resumed.pause
                ))
            return nil
        default:
            break
        }
        status.clear()
        let retry = StatusView.trim(command.retrySeconds)
        report(
            "yt-gst: \(sink.endpoint): lost the server (\(command.verbose ? error.verboseDescription : error.message)); "
                + "retrying for up to \(retry) s")
        mounts[name] = .lost(
            Loss(
                endpoint: sink.endpoint, since: now, nextTry: now + BroadcastSession.firstRetryPause,
                pause: BroadcastSession.firstRetryPause))
        return nil
    }

    /// While a server is lost: when the next try is due, sees whether it accepts connections again and if so
    /// connects again (a new branch for that mount, or the whole broadcast at its place when it was the sole
    /// destination); gives up after --retry-for.
    private func retryIfDue() -> ExitCode? {
        for (sink, var loss) in losses where ContinuousClock.now >= loss.nextTry {
            if ContinuousClock.now - loss.since >= .milliseconds(Int64(command.retrySeconds * 1000)) {
                status.clear()
                report(
                    "yt-gst: \(loss.endpoint): gave up after \(StatusView.trim(command.retrySeconds)) s without the "
                        + "server")
                return .failure
            }
            loss.pause = min(loss.pause * 2, BroadcastSession.longestRetryPause)
            if loss.endpoint.connectionProblem(timeout: .milliseconds(500)) != nil {
                loss.nextTry = .now + loss.pause
                mounts[sink] = .lost(loss)
                continue
            }
            guard plan.mountsReconnectAlone, let pipeline = player.pipeline else { return start(resuming: loss) }
            do {
                try plan.addMountBranch(of: sink, to: pipeline)
                mounts[sink] = .connecting(rendered: false, after: loss)
            } catch {
                report("yt-gst: \(command.describe(error))")
                return .failure
            }
        }
        return nil
    }

    // MARK: Output

    private func drawStatus() {
        guard status.enabled, ContinuousClock.now >= nextDraw else { return }
        nextDraw = .now + .milliseconds(100)
        if let loss = losses.first?.loss {
            let seconds = Int((ContinuousClock.now - loss.since) / .seconds(1))
            status.draw("… \(loss.endpoint) lost \(seconds) s ago; retrying")
        } else {
            let time = TimeText.format(place.fileTime?.seconds ?? 0)
            status.draw("> \(time)  \(title)  → \(plan.targets.map(\.description).joined(separator: ", "))")
        }
    }

    private func report(_ line: String) {
        status.clear()
        Terminal.error(line)
    }
}
