// yt-gst — the playback session's decisions with a recording stand-in for its player (an embedded appsrc and bus,
// virtual time): what every key command asks of the player, with what value, and how each pipeline's run ends.
import Dispatch
import Foundation
import GstPlayer
import GstPlayerTesting
import TestSupport
import Testing

@testable import AppSrcFeeder

@Suite final class PlaybackLogicLoopTests {
    /// A player that plays into an `EmbeddedAppSource` (a new one, with a new bus, for each pipeline) and logs what
    /// the session asks of it. Its position is the appsrc's virtual clock; a seek is a flushing seek of the appsrc.
    final class StandInPlayer: PlaybackTarget {
        enum Operation: Equatable {
            case prepare, play(launch: String?), pause, resume, stop
            case seek(ClockTime, stop: ClockTime?, rate: Double, options: Pipeline.SeekOptions)
            case setVolume(Double), setMuted(Bool)
        }

        /// A step of the test's script (the command it sent; nil for another step), or what the session did.
        enum Entry {
            case step(PlaybackSession.Command?)
            case operation(Operation)
        }

        private(set) var log: [Entry] = []
        private(set) var appSource: EmbeddedAppSource?
        private(set) var bus = EmbeddedBus<Message>()
        private(set) var state = State.null
        /// A pipeline stays in PAUSED after `play` (prerolling) until the first `resume`.
        var prerolls = false

        func note(_ step: PlaybackSession.Command?) { log.append(.step(step)) }

        private func did(_ operation: Operation) { log.append(.operation(operation)) }

        func prepare() throws(GstError) { did(.prepare) }

        func play(
            _ feeder: some Feeder, launch: String?, from start: ClockTime?, to stop: ClockTime?
        ) throws(GstError) {
            did(.play(launch: launch))
            bus = EmbeddedBus()
            let source = EmbeddedAppSource(bus: bus)
            try feeder.attach(to: source)
            appSource = source
            state = prerolls ? .paused : .playing
        }

        func pause() throws(GstError) {
            did(.pause)
            state = .paused
        }

        func resume() throws(GstError) {
            did(.resume)
            state = .playing
        }

        func stop() {
            did(.stop)
            appSource = nil
            state = .null
        }

        func seek(to time: ClockTime, stop: ClockTime?, rate: Double, options: Pipeline.SeekOptions) throws(GstError) {
            did(.seek(time, stop: stop, rate: rate, options: options))
            guard let appSource else { throw GstError(kind: .notPlaying, message: "nothing is playing") }
            appSource.seek(to: time)
        }

        var position: ClockTime? { appSource?.now }

        func setVolume(_ volume: Double) throws(GstError) { did(.setVolume(volume)) }

        func setMuted(_ muted: Bool) throws(GstError) { did(.setMuted(muted)) }

        var eventDescriptor: Int32? { appSource == nil ? nil : bus.eventDescriptor }

        func nextEvent(timeout: Duration) -> Message? { appSource == nil ? nil : bus.nextEvent(timeout: timeout) }

        /// What each step of the script made the player do, in order.
        var effects: [Effect] {
            var effects: [Effect] = []
            for entry in log {
                switch entry {
                case .step(let command): effects.append(Effect(command, []))
                case .operation(let operation) where !effects.isEmpty:
                    effects[effects.count - 1].operations.append(operation)
                case .operation: break
                }
            }
            return effects
        }

        /// What the session did before the first step.
        var beforeTheSteps: [Operation] {
            log.prefix { if case .step = $0 { false } else { true } }.compactMap {
                if case .operation(let operation) = $0 { operation } else { nil }
            }
        }
    }

    /// A step and what the player was asked to do for it.
    struct Effect: Equatable, CustomStringConvertible {
        var command: PlaybackSession.Command?
        var operations: [StandInPlayer.Operation]
        init(_ command: PlaybackSession.Command?, _ operations: [StandInPlayer.Operation]) {
            self.command = command
            self.operations = operations
        }
        var description: String { "\(command.map { "\($0)" } ?? "(step)") -> \(operations)" }
    }

    /// What the script does, one step each time the session reports its status (so every command sees where
    /// playback is after the step before).
    enum Step {
        case send(PlaybackSession.Command)
        /// Lets virtual time pass for the sink.
        case advance(Duration)
        /// Posts on the playing pipeline's bus.
        case post(Message)
        /// Feeds and drains the appsrc to its end: the end of stream reaches the bus.
        case runToEnd
    }

    static let launch = "appsrc name=src ! fakesink"
    static let second = ClockTime(seconds: 1)
    static let flushing: Pipeline.SeekOptions = [.flush, .accurate]

    let dir: URL
    let files: [String]

    /// Three files of 2 s each (8 kHz mono).
    init() throws {
        Gst.initialize()
        let dir = try Paths.makeScratch("playback-logic")
        self.dir = dir
        files = try ["a", "b", "c"].enumerated().map { index, name in
            try SyntheticWAV.tone(frequency: 440 * Double(index + 1), frames: 16_000, rate: 8_000, channels: 1)
                .write(to: dir.appendingPathComponent("\(name).wav"))
        }
    }

    deinit { Paths.removeScratch(dir) }

    /// Plays `files` through a stand-in, running `steps` one per status (a stop with `.requested` after the last,
    /// unless the session ended); a stop sent after 10 s (unless it ended) keeps a broken session from hanging the suite.
    func play(
        _ files: [String], _ steps: [Step], configure: (inout PlaybackSession.Configuration) -> Void = { _ in },
        player: StandInPlayer = StandInPlayer()
    ) throws -> (ending: PlaybackSession.Ending, events: [PlaybackSession.Event], player: StandInPlayer) {
        var configuration = PlaybackSession.Configuration(files: files, launch: Self.launch)
        configuration.statusInterval = .milliseconds(1)
        configure(&configuration)
        var events: [PlaybackSession.Event] = []
        var remaining = steps[...]
        var stopSent = false
        var control: PlaybackSession.Control?
        let session = PlaybackSession(
            configuration,
            observer: { event in
                events.append(event)
                guard case .status = event, let control, let appSource = player.appSource else { return }
                guard let step = remaining.popFirst() else {
                    if !stopSent {
                        stopSent = true
                        player.note(.stop(.requested))
                        control.stop()
                    }
                    return
                }
                Self.run(step, player: player, appSource: appSource, control: control)
            }
        ) { _ in player }
        control = session.control
        // Cancelled once the session is over: a command wakes the process's main loop, whichever test runs it.
        let guardStop = DispatchWorkItem { [control = session.control] in control.stop(.interrupted(signal: SIGALRM)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10, execute: guardStop)
        defer { guardStop.cancel() }
        let ending = try session.run()
        #expect(events.last.map { if case .ended(ending) = $0 { true } else { false } } == true)
        return (ending, events, player)
    }

    /// Runs one step of a script, on the session's thread (from its observer), noting it in the player's log.
    static func run(
        _ step: Step, player: StandInPlayer, appSource: EmbeddedAppSource, control: PlaybackSession.Control
    ) {
        switch step {
        case .send(let command):
            player.note(command)
            control.send(command)
        case .advance(let duration):
            player.note(nil)
            appSource.advance(by: duration)
        case .post(let message):
            player.note(nil)
            player.bus.post(message)
        case .runToEnd:
            player.note(nil)
            #expect(appSource.runToEnd(), "the chain did not end the stream")
        }
    }

    static func started(_ events: [PlaybackSession.Event]) -> [Int] {
        events.compactMap { if case .fileStarted(let file) = $0 { file.position } else { nil } }
    }

    static func statuses(_ events: [PlaybackSession.Event]) -> [PlaybackSnapshot] {
        events.compactMap { if case .status(let status) = $0 { status } else { nil } }
    }

    static func seek(
        _ seconds: Double, stop: Double? = nil, rate: Double = 1, options: Pipeline.SeekOptions = flushing
    )
        -> StandInPlayer.Operation
    {
        .seek(ClockTime(seconds: seconds), stop: stop.map { ClockTime(seconds: $0) }, rate: rate, options: options)
    }

    // MARK: Every key

    @Test func pauseResumeAndTogglePauseReachThePlayerAndAStopBySignalEndsIt() throws {
        let (ending, events, player) = try play(
            files,
            [
                .send(.pause), .send(.resume), .send(.togglePause), .send(.togglePause),
                .send(.stop(.interrupted(signal: SIGINT))),
            ])
        #expect(player.beforeTheSteps == [.prepare, .play(launch: Self.launch)])
        #expect(
            player.effects == [
                Effect(.pause, [.pause]), Effect(.resume, [.resume]), Effect(.togglePause, [.pause]),
                Effect(.togglePause, [.resume]), Effect(.stop(.interrupted(signal: SIGINT)), [.stop]),
            ])
        let paused = events.compactMap { if case .pausedChanged(let paused) = $0 { paused } else { nil } }
        #expect(paused == [true, false, true, false])
        #expect(Self.statuses(events).contains { $0.state == .paused })
        #expect(ending == .stopped(.interrupted(signal: SIGINT), filesFailed: false))
    }

    /// A pipeline on its way to PLAYING is in PAUSED (on a busy machine for a while): what the user sees and what a
    /// toggle does follow what was asked, not the pipeline's state.
    @Test func aPipelineStillPrerollingShowsPlayingAndATogglePausesIt() throws {
        let prerolling = StandInPlayer()
        prerolling.prerolls = true
        let (_, events, player) = try play(
            files, [.send(.togglePause), .send(.togglePause)], player: prerolling)
        #expect(Self.statuses(events).first?.state == .playing)
        #expect(
            player.effects == [
                Effect(.togglePause, [.pause]), Effect(.togglePause, [.resume]), Effect(.stop(.requested), [.stop]),
            ])
    }

    @Test func aListLoadedWhilePausedStaysPaused() throws {
        let (_, events, player) = try play(files, [.send(.pause), .send(.load([files[1]], replace: true))])
        #expect(
            player.effects == [
                Effect(.pause, [.pause]),
                Effect(.load([files[1]], replace: true), [.play(launch: Self.launch), .pause]),
                Effect(.stop(.requested), [.stop]),
            ])
        #expect(Self.statuses(events).last?.state == .paused)
    }

    @Test func seeksGoToTheirTimeInTheFileAndPastItsEndToTheNextFile() throws {
        let (ending, events, player) = try play(
            files, [.send(.seek(1.5)), .send(.seekRelative(-0.5)), .send(.seekRelative(-5)), .send(.seekRelative(5))])
        #expect(
            player.effects == [
                Effect(.seek(1.5), [Self.seek(1.5)]), Effect(.seekRelative(-0.5), [Self.seek(1)]),
                Effect(.seekRelative(-5), [Self.seek(0)]), Effect(.seekRelative(5), [Self.seek(0)]),
                Effect(.stop(.requested), [.stop]),
            ])
        let seeked = events.compactMap { if case .seeked(let seconds) = $0 { seconds } else { nil } }
        #expect(seeked == [1.5, 1, 0], "past the end is the next file, not a seek in this one")
        #expect(Self.started(events) == [0, 1])
        #expect(ending == .stopped(.requested, filesFailed: false))
    }

    @Test func nextPreviousAndJumpMoveThroughTheListAndNextAtTheEndFinishes() throws {
        let (ending, events, player) = try play(
            files, [.send(.next), .send(.previous), .send(.jump(2)), .send(.jump(-3)), .send(.jump(7)), .send(.next)])
        #expect(
            player.effects == [
                Effect(.next, [Self.seek(0)]), Effect(.previous, [Self.seek(0)]), Effect(.jump(2), [Self.seek(0)]),
                Effect(.jump(-3), [Self.seek(0)]), Effect(.jump(7), [Self.seek(0)]), Effect(.next, [.stop]),
            ])
        #expect(Self.started(events) == [0, 1, 0, 2, 0, 2])
        #expect(ending == .finished(filesFailed: false))
    }

    @Test func volumeAndMuteKeysSetThePlayersControlWithinRange() throws {
        let (_, events, player) = try play(
            files,
            [
                .send(.setVolume(0.5)), .send(.setVolume(2)), .send(.adjustVolume(percent: -10)), .send(.setMute(true)),
                .send(.toggleMute), .send(.setVolume(-1)),
            ])
        #expect(
            player.effects == [
                Effect(.setVolume(0.5), [.setVolume(0.5), .setMuted(false)]),
                Effect(.setVolume(2), [.setVolume(1.5), .setMuted(false)]),
                Effect(.adjustVolume(percent: -10), [.setVolume(1.4), .setMuted(false)]),
                Effect(.setMute(true), [.setVolume(1.4), .setMuted(true)]),
                Effect(.toggleMute, [.setVolume(1.4), .setMuted(false)]),
                Effect(.setVolume(-1), [.setVolume(0), .setMuted(false)]),
                Effect(.stop(.requested), [.stop]),
            ])
        let last = Self.statuses(events).last
        #expect(last?.volume == 0 && last?.muted == false)
        // Each change is an event of its own, for observers without status ticks (MPRIS, the IPC socket).
        let changes = events.compactMap { event -> String? in
            guard case .controlsChanged(let volume, let muted, _) = event else { return nil }
            return "\(volume) \(muted)"
        }
        #expect(changes == ["0.5 false", "1.5 false", "1.4 false", "1.4 true", "1.4 false", "0.0 false"])
    }

    @Test func rateKeysSeekToWhereTheFileIsAtTheNewRate() throws {
        let (_, events, player) = try play(
            files,
            [
                .send(.setRate(2)), .send(.stepRate(1)), .send(.stepRate(-1)), .send(.setRate(10)),
                .send(.setRate(0.1)),
                .send(.stepRate(-1)),
            ])
        #expect(
            player.effects == [
                Effect(.setRate(2), [Self.seek(0, rate: 2)]), Effect(.stepRate(1), [Self.seek(0, rate: 3)]),
                Effect(.stepRate(-1), [Self.seek(0, rate: 2)]), Effect(.setRate(10), [Self.seek(0, rate: 4)]),
                Effect(.setRate(0.1), [Self.seek(0, rate: 0.25)]), Effect(.stepRate(-1), [Self.seek(0, rate: 0.25)]),
                Effect(.stop(.requested), [.stop]),
            ])
        #expect(Self.statuses(events).last?.rate == 0.25)
    }

    @Test func theStartValuesAreAppliedAsTheFilePlays() throws {
        let (_, _, player) = try play(files, []) { configuration in
            configuration.volume = 0.8
            configuration.muted = true
            configuration.rate = 2
        }
        #expect(
            player.beforeTheSteps == [
                .prepare, .play(launch: Self.launch), .setVolume(0.8), .setMuted(true), Self.seek(0, rate: 2),
            ])
    }

    @Test func loopPointsSetAThenBAndLoopBetweenThemThenClear() throws {
        let (_, events, player) = try play(
            files,
            [
                .advance(.milliseconds(500)), .send(.setLoopPoint), .advance(.milliseconds(500)), .send(.setLoopPoint),
                .post(.segmentDone()), .send(.setLoopPoint),
            ])
        #expect(
            player.effects == [
                Effect(nil, []), Effect(.setLoopPoint, []), Effect(nil, []),
                Effect(.setLoopPoint, [Self.seek(0.5, stop: 1, options: [.flush, .accurate, .segment])]),
                Effect(nil, [Self.seek(0.5, stop: 1, options: [.accurate, .segment])]),
                Effect(.setLoopPoint, [Self.seek(0.5)]), Effect(.stop(.requested), [.stop]),
            ])
        let loops = Self.statuses(events).map { [$0.loopA, $0.loopB] }
        #expect(loops.contains([0.5, nil]) && loops.contains([0.5, 1]) && loops.last == [nil, nil])
    }

    // MARK: How a pipeline's run ends

    @Test func theEndOfStreamAtTheEndOfTheListFinishes() throws {
        let (ending, events, player) = try play([files[0]], [.runToEnd])
        #expect(ending == .finished(filesFailed: false))
        #expect(player.effects == [Effect(nil, [.stop])])
        #expect(Self.started(events) == [0])
    }

    @Test func theEndOfStreamGoesOnWithFilesAddedWhileItPlayed() throws {
        let (ending, events, player) = try play(
            [files[0]], [.send(.load([files[1]], replace: false)), .runToEnd])
        #expect(
            player.effects == [
                Effect(.load([files[1]], replace: false), []), Effect(nil, [.play(launch: Self.launch)]),
                Effect(.stop(.requested), [.stop]),
            ])
        let paths = events.compactMap { if case .fileStarted(let file) = $0 { file.path } else { nil } }
        #expect(paths == [files[0], files[1]])
        #expect(ending == .stopped(.requested, filesFailed: false))
    }

    // MARK: Loops and shuffle changed while playing

    /// The paths started while `steps` run, then 5 s of virtual time in quarter seconds (more than two files).
    func startedPaths(
        _ files: [String], _ steps: [Step], configure: (inout PlaybackSession.Configuration) -> Void = { _ in }
    ) throws -> (paths: [String], events: [PlaybackSession.Event]) {
        let (_, events, _) = try play(
            files, steps + Array(repeating: .advance(.milliseconds(250)), count: 20), configure: configure)
        return (events.compactMap { if case .fileStarted(let file) = $0 { file.path } else { nil } }, events)
    }

    static func orderChanges(_ events: [PlaybackSession.Event]) -> [String] {
        events.compactMap {
            if case .orderChanged(let file, let passes, let shuffle) = $0 {
                "\(file) \(passes.map(String.init) ?? "inf") \(shuffle)"
            } else {
                nil
            }
        }
    }

    @Test func loopFileWhilePlayingRepeatsTheFileThatPlaysAndOffGoesOn() throws {
        let (paths, events) = try startedPaths(files, [.send(.setLoopFile(true))])
        #expect(paths == [files[0], files[0], files[0]])
        #expect(Self.orderChanges(events) == ["true 1 false"])
        let (after, _) = try startedPaths(
            files, [.send(.setLoopFile(true)), .send(.setLoopFile(false))]
        ) { $0.repeatEachFile = true }
        #expect(after == files)
    }

    @Test func loopPlaylistWhilePlayingStartsTheListAgainAfterItsLastAndOffEndsIt() throws {
        let (paths, events) = try startedPaths(Array(files[0...1]), [.send(.setLoopPlaylist(passes: nil))])
        #expect(paths == [files[0], files[1], files[0]])
        #expect(Self.orderChanges(events) == ["false inf false"])
        let (ended, _) = try startedPaths(Array(files[0...1]), [.send(.setLoopPlaylist(passes: 1))]) {
            $0.passes = nil
        }
        #expect(ended == Array(files[0...1]))
    }

    @Test func shuffleOffWhilePlayingPlaysTheRestOfThePassAsGiven() throws {
        let (paths, events) = try startedPaths(files, [.send(.setShuffle(false))]) { $0.shuffle = true }
        let first = try #require(paths.first)
        #expect(paths == [first] + files.filter { $0 != first })
        #expect(Self.orderChanges(events) == ["false 1 false"])
    }

    @Test func shuffleOnChangesTheOrderOfWhatFollowsOnly() {
        let files = (0..<40).map { "f\($0)" }
        let order = PlayOrder(files: files, passes: nil)
        let shuffled = order.changed(shuffle: true, passes: nil, after: 2)
        #expect((0...2).map { shuffled.index(at: $0) } == [0, 1, 2])
        let rest = (3..<40).compactMap { shuffled.index(at: $0) }
        #expect(rest.sorted() == Array(3..<40))
        #expect(rest != Array(3..<40))
        let last = PlayOrder(files: files, passes: nil).changed(shuffle: false, passes: 1, after: 45)
        #expect(last.index(at: 79) == 39)
        #expect(last.index(at: 80) == nil)
    }

    @Test func anErrorFailsTheFileAndTheListGoesOnWithTheNext() throws {
        let problem = GstError(kind: .stream, message: "sink broke")
        let (ending, events, player) = try play(Array(files[0...1]), [.post(.error(problem))])
        #expect(player.effects == [Effect(nil, [.play(launch: Self.launch)]), Effect(.stop(.requested), [.stop])])
        let failed = events.compactMap { event -> String? in
            guard case .fileFailed(.pipeline(let path, let error)) = event else { return nil }
            return "\(path): \(error.message)"
        }
        #expect(failed == ["\(files[0]): sink broke"])
        #expect(Self.started(events) == [0, 1])
        #expect(ending == .stopped(.requested, filesFailed: true))
    }

    @Test func anErrorInAListOfOneFails() throws {
        let (ending, events, player) = try play(
            [files[0]], [.post(.error(GstError(kind: .stream, message: "sink broke")))])
        #expect(ending == .failed)
        #expect(player.effects == [Effect(nil, [.stop])])
        #expect(events.contains { if case .fileFailed = $0 { true } else { false } })
    }
}
