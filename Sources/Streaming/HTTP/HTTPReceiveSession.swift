// yt-gst — one run of `receive http://...`: play, show the title, reconnect when the connection drops, and end
// with the stream.
import GstPlayer

/// Runs an HTTP `receive` until the stream ends (exit 0), cannot be had (exit 1), or a signal stops it.
///
/// When the connection ends or breaks after audio arrived, the source and decoder are restarted (the output keeps
/// running, its end of stream held back) every half second until audio flows again, for up to --timeout seconds
/// (a relay or a restarted server takes a mount up again within seconds). If the server still answered 404 at
/// the last try, the mount is gone: the broadcast ended, the output is finalised and the exit code is 0; if the
/// server could not be reached, that is an error. An HLS playlist's end is the
/// stream's end.
final class HTTPReceiveSession {
    /// The application message the held end of stream posts.
    static let sourceEnded = "yt-gst/source-ended"
    static let retryPause: Duration = .milliseconds(500)

    private let command: HTTPReceiveCommand
    private let pipeline: Pipeline
    private var counter: FlowCounter?
    private var status: StatusLine
    private var title: String?
    private var tags: [String: String] = [:]
    /// Since when the connection is down, when to try again, and whether the server said at the last try that
    /// the mount is gone (404).
    private var dropped: (since: ContinuousClock.Instant, nextTry: ContinuousClock.Instant?, mountGone: Bool)?
    /// The audio that had arrived when the connection dropped: more means it flows again.
    private var buffersAtDrop = 0
    /// End of stream is on its way to the output; the exit code once it is there.
    private var ending: (code: ExitCode, deadline: ContinuousClock.Instant)?
    private var lastArrival = ContinuousClock.now
    private var lastCount = 0
    private var nextDraw = ContinuousClock.now

    init(command: HTTPReceiveCommand, pipeline: Pipeline) {
        self.command = command
        self.pipeline = pipeline
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
    }

    private var url: String { command.url }
    private var audioBuffers: Int { counter?.snapshot.buffers ?? 0 }

    func run() -> ExitCode {
        defer {
            status.clear()
            _ = try? pipeline.setState(.null)
        }
        do {
            counter = try pipeline.element(named: "received").countFlow(onPad: "src")
            try pipeline.setState(.playing)
        } catch {
            Terminal.error("yt-gst: \(url): \(error.message)")
            return .failure
        }
        while true {
            if let signal = Interrupts.pending, ending == nil { finish(Interrupts.exitCode(for: signal)) }
            if let ending, ContinuousClock.now >= ending.deadline { return ending.code }
            if let code = watch() { return code }
            while let message = pipeline.nextMessage(timeout: .zero) {
                if let code = handle(message) { return code }
            }
            drawStatus()
            MainLoop.wait(
                for: [pipeline.busDescriptor],
                until: MainLoop.earliest(
                    dropped?.nextTry, ending?.deadline, .now + .milliseconds(status.enabled ? 100 : 250)))
        }
    }

    /// Audio flowing again after a drop, a retry that is due, and the time without data.
    private func watch() -> ExitCode? {
        let count = audioBuffers
        if count != lastCount {
            lastCount = count
            lastArrival = .now
        }
        if let drop = dropped {
            if count > buffersAtDrop {
                dropped = nil
                if !command.quiet {
                    report("yt-gst: \(url): reconnected after \(seconds(since: drop.since)) s")
                }
            } else if let next = drop.nextTry, ContinuousClock.now >= next {
                retry()
            }
        }
        guard ending == nil else { return nil }
        let limit = Duration.milliseconds(Int64(command.timeout * 1000))
        if let drop = dropped, ContinuousClock.now - drop.since >= limit {
            if drop.mountGone {
                if !command.quiet { report("yt-gst: \(url): the stream ended (\(received))") }
                finish(.success)
            } else {
                report(
                    "yt-gst: \(url): lost the connection and could not reconnect within \(timeoutText) (\(received))")
                finish(.failure)
            }
        } else if dropped == nil && ContinuousClock.now - lastArrival >= limit {
            report("yt-gst: no data from \(url) for \(timeoutText) (\(received))")
            if audioBuffers == 0 { return .failure }
            finish(.failure)
        }
        return nil
    }

    private func handle(_ message: Message) -> ExitCode? {
        switch message {
        case .endOfStream:
            return ending?.code ?? .success
        case .error(let error):
            return handle(error)
        case .warning(let warning):
            if !command.quiet && ending == nil {
                report("yt-gst: \(url): warning: \(command.verbose ? warning.verboseDescription : warning.message)")
            }
        case .tags(let list):
            for tag in list where ["title", "artist"].contains(tag.name) { tags[tag.name] = tag.value }
            showTitle()
        case .application(let structure) where structure.name == HTTPReceiveSession.sourceEnded:
            if command.isHLS {
                if !command.quiet { report("yt-gst: \(url): the stream ended (\(received))") }
                finish(.success)
            } else {
                connectionDropped(mountGone: false)
            }
        default:
            break
        }
        return nil
    }

    /// An error: before any audio it ends the run (one line); afterwards the connection is taken as dropped.
    private func handle(_ error: GstError) -> ExitCode? {
        let notFound = error.resourceError == .notFound
        if audioBuffers == 0 && dropped == nil {
            status.clear()
            if notFound {
                Terminal.error("yt-gst: \(url): not found (404): no such mount or stream on the server")
            } else if let problem = command.connectionProblem() {
                Terminal.error("yt-gst: \(url): cannot connect to the server (\(problem))")
            } else {
                Terminal.error("yt-gst: \(url): \(command.verbose ? error.verboseDescription : error.message)")
            }
            return .failure
        }
        guard ending == nil else { return nil }
        if command.verbose { report("yt-gst: \(url): \(error.verboseDescription)") }
        // A try that fails posts the source's error and then a stream error: only the source's says what the
        // server did (404: the mount is gone; open or read: the server is not there).
        let gone: Bool? = notFound ? true : error.resourceError == nil ? nil : false
        connectionDropped(mountGone: gone)
        return nil
    }

    /// The source stopped (ended, broke, or a retry failed): try again in a moment, remembering whether the
    /// server said the mount is gone.
    private func connectionDropped(mountGone: Bool?) {
        guard ending == nil else { return }
        if dropped == nil {
            buffersAtDrop = audioBuffers
            if !command.quiet { report("yt-gst: \(url): the connection dropped; reconnecting") }
            dropped = (ContinuousClock.now, nil, false)
        }
        if let mountGone { dropped?.mountGone = mountGone }
        dropped?.nextTry = .now + HTTPReceiveSession.retryPause
        for name in ["net", "decode"] { (try? pipeline.element(named: name))?.stop() }
    }

    /// Starts the source and decoder again: a new request to the server.
    private func retry() {
        dropped?.nextTry = nil
        for name in ["decode", "net"] { (try? pipeline.element(named: name))?.resumeWithParent() }
    }

    /// Sends end of stream to the output (past the hold) and ends with `code` once it is there, or after 3 s.
    private func finish(_ code: ExitCode) {
        guard ending == nil else { return }
        ending = (code, .now + .seconds(3))
        dropped = nil
        for name in ["net", "decode"] { (try? pipeline.element(named: name))?.stop() }
        if audioBuffers == 0 { ending?.deadline = .now }
        (try? pipeline.element(named: "received"))?.pushEndOfStream(fromPad: "src")
    }

    /// The title from the stream's tags ("ARTIST - TITLE"; ICY titles come whole as the title), said when it
    /// changes.
    private func showTitle() {
        guard let newTitle = tags["title"] else { return }
        var text = newTitle
        if let artist = tags["artist"], !artist.isEmpty, !newTitle.hasPrefix(artist) {
            text = "\(artist) - \(newTitle)"
        }
        guard text != title else { return }
        title = text
        if !command.quiet { report("yt-gst: \(url): now playing: \(text)") }
    }

    private var received: String {
        let seconds = (counter?.snapshot.duration.seconds ?? 0)
        return "\(StatusView.trim((seconds * 10).rounded() / 10)) s received"
    }

    private var timeoutText: String { "\(StatusView.trim(command.timeout)) s" }

    private func seconds(since instant: ContinuousClock.Instant) -> String {
        StatusView.trim(((ContinuousClock.now - instant) / .seconds(1) * 10).rounded() / 10)
    }

    private func drawStatus() {
        guard status.enabled, ContinuousClock.now >= nextDraw else { return }
        nextDraw = .now + .milliseconds(100)
        let state = dropped != nil ? "… reconnecting" : audioBuffers == 0 ? "… connecting to" : "● receiving"
        status.draw("\(state) \(url)  \(counter?.snapshot.duration ?? .zero)  \(title ?? "")")
    }

    private func report(_ line: String) {
        status.clear()
        Terminal.error(line)
    }
}
