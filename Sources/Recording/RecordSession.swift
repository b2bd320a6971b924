// yt-gst — one recording: the source pipeline, the appsink pulled in one loop, the file(s), commands and status.
import Glibc
import GstPlayer
import WAV

/// Records from an appsink into crash-safe WAV files (`WAVWriter`).
///
/// One loop (`SessionLoop`) runs the commands, reads the bus, then takes the buffers the appsink holds, measures them
/// for the meter and voice activation and writes what is wanted (cut to the exact frame at a split, the duration or
/// the size limit). While audio flows it looks every 50 ms; when none comes it sleeps until a buffer, a command, a
/// bus message or the next status. Files are created when their first sample
/// arrives, because the format (the source's own rate and channels, unless asked) is only known then.
///
/// ```swift
/// var configuration = RecordSession.Configuration(output: .file("memo.wav"), source: .fragment("autoaudiosrc"))
/// configuration.duration = 10
/// let session = RecordSession(configuration) { event in print(event) }
/// let ending = try session.run()
/// ```
public final class RecordSession {
    public let configuration: Configuration
    let observer: (Event) -> Void
    private let commands = CommandQueue<Command>()

    var format: WAVFormat?
    var levels: SampleLevels?
    var gate: VoiceGate?
    var writer: WAVWriter?
    var path: String?
    var files: [String] = []
    var paused = false
    /// Bytes taken from the appsink in this turn of the loop, written together.
    var pending: [UInt8] = []
    /// Frames written to all files, and to the current one.
    var framesWritten: UInt64 = 0
    var framesInFile: UInt64 = 0
    /// Frames pulled from the source (written or not): the clock of bext times and of split names.
    var framesSeen: UInt64 = 0
    /// Wall time of the first sample.
    var startTime: (seconds: time_t, nanoseconds: Int) = (0, 0)
    private var nextStatus = ContinuousClock.now

    /// A session that records as `configuration` asks once `run()` is called, reporting to `observer` on the
    /// thread that runs it.
    ///
    /// - Precondition: a split per utterance needs voice activation.
    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        if case .files(_, .utterance) = configuration.output {
            precondition(configuration.voiceActivation != nil, "a split per utterance needs voice activation")
        }
        self.configuration = configuration
        self.observer = observer
    }

    /// Sends commands from any thread.
    public var control: Control { Control(queue: commands) }

    /// Records on the calling thread until the source ends, a limit is reached or a `.stop` command comes; the
    /// current file is finished on every way out, errors included.
    public func run() throws(RecordingError) -> Ending {
        if case .file(let path) = configuration.output, !configuration.replacesExisting, access(path, F_OK) == 0 {
            throw .outputExists(path: path)
        }
        let (pipeline, sink) = try startPipeline()
        defer { _ = try? pipeline.setState(.null) }
        return try record(bus: pipeline, input: sink, wakeUp: sink.wakeLoopOnSample())
    }

    /// How often the loop takes the appsink's buffers while audio flows: waking once per buffer (every 10 ms from
    /// pulsesrc) would cost more CPU than the writing itself.
    static let lookEvery: Duration = .milliseconds(50)

    /// Runs the loop over `bus` and `input` (a pipeline and its appsink, or a test's), then finishes the file.
    func record(
        bus: some EventBus<Message>, input: some SampleInput, wakeUp: SampleWakeUp?
    ) throws(RecordingError)
        -> Ending
    {
        let turns = Turns(self, input: input, wakeUp: wakeUp)
        let result = Result { () throws(RecordingError) in try SessionLoop.run(turns, bus: bus, commands: commands) }
        let finishError = finishFile()
        let reason = try result.get()
        if let finishError { throw finishError }
        let ending = Ending(reason: reason, receivedAudio: format != nil, files: files)
        observer(.ended(ending))
        return ending
    }

    /// The pipeline built from the launch string, its properties set, playing.
    private func startPipeline() throws(RecordingError) -> (Pipeline, AppSink) {
        let launch = configuration.launch
        do {
            let pipeline = try Pipeline(launch: launch)
            try pipeline.apply(configuration.properties)
            if case .fragment = configuration.source {
                try pipeline.element(named: Configuration.formatFilter).set("caps", fromString: configuration.sinkCaps)
            }
            let sink = try pipeline.appSink(named: "sink")
            // READY first: autoaudiosrc creates its real source then, and its period can still be set.
            _ = try pipeline.setState(.ready)
            Self.askForLongerPeriods(pipeline, launch: launch)
            _ = try pipeline.setState(.playing)
            return (pipeline, sink)
        } catch {
            throw .pipeline(error, launch: launch)
        }
    }

    /// The turns of the recording's loop: commands, the bus, then the buffers waiting in the input and the status.
    private final class Turns<Input: SampleInput>: SessionLoopHandler {
        typealias Command = RecordSession.Command
        /// Why the loop ended (the session's `Ending` adds the files).
        typealias Ending = RecordSession.Ending.Reason
        typealias Failure = RecordingError
        private let session: RecordSession
        private let input: Input
        private let wakeUp: SampleWakeUp?
        /// When the last look found audio (then the next is due `lookEvery` later); nil while none flows.
        private var flowingSince: ContinuousClock.Instant?

        init(_ session: RecordSession, input: Input, wakeUp: SampleWakeUp?) {
            self.session = session
            self.input = input
            self.wakeUp = wakeUp
        }

        func perform(_ command: Command) -> Ending? {
            switch command {
            case .pause: session.paused = true
            case .resume: session.paused = false
            case .togglePause: session.paused.toggle()
            case .marker: session.addMarker()
            case .stop(let reason): return .stopped(reason)
            }
            return nil
        }

        /// The reason to end at end of stream; an error ends the recording.
        func handle(_ message: Message) throws(RecordingError) -> Ending? {
            switch message.view {
            case .error(let error): throw .sourceFailed(error)
            case .endOfStream: return .sourceEnded
            case .warning(let warning): session.observer(.warning(warning))
            default: break
            }
            return nil
        }

        /// Everything the input holds, written; the reason to end at a limit or the input's end.
        func finishTurn() throws(RecordingError) -> Ending? {
            wakeUp?.arm()
            var took = false
            while let sample = input.pull(timeout: .zero, includingCaps: session.format == nil) {
                try session.take(sample)
                took = true
            }
            if took { wakeUp?.disarm() }
            flowingSince = took ? .now : nil
            if try session.flush() { return .limitReached }
            if input.isEndOfStream { return .sourceEnded }
            session.reportStatus()
            return nil
        }

        func nextDue() -> ContinuousClock.Instant? {
            MainLoop.earliest(
                flowingSince.map { $0 + RecordSession.lookEvery },
                session.configuration.statusInterval == nil ? nil : session.nextStatus)
        }
    }

    /// A cue point at the current end of the current file (none before the first file, or in a full marker area).
    private func addMarker() {
        guard let writer, let format, (try? writer.addMarker()) != nil else { return }
        observer(
            .markerAdded(
                number: writer.markerPositions.count, seconds: Double(framesInFile) / Double(format.sampleRate)))
    }

    /// A `.status` event when one is due.
    private func reportStatus() {
        guard let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + interval
        var readings: [SampleLevels.Reading] = []
        if var levels {
            readings = levels.readings
            levels.reset()
            self.levels = levels
        }
        let state: Status.State = paused ? .paused : gate.map { $0.isOpen ? .recording : .waiting } ?? .recording
        observer(
            .status(
                Status(
                    state: state, file: path,
                    seconds: format.map { Double(framesWritten) / Double($0.sampleRate) } ?? 0,
                    bytes: writer?.fileLength ?? 0, files: files.count, markers: writer?.markerPositions.count ?? 0,
                    levels: readings)))
    }

    /// Audio sources (pulsesrc, alsasrc: any element with `latency-time`) are asked for 50 ms periods instead of
    /// their 10 ms default, unless the launch string sets one: a recorder needs no low latency (the meter shows 10
    /// readings a second), and five times fewer buffers through the sound server, GStreamer and the writer cost
    /// well under half the CPU.
    private static func askForLongerPeriods(_ pipeline: Pipeline, launch: String) {
        guard !launch.contains("latency-time") else { return }
        for element in pipeline.allElements() where element.hasProperty("latency-time") {
            try? element.set("latency-time", to: 50_000)
        }
    }
}

/// Where a recording's audio comes from: the pipeline's appsink, or a test's samples.
protocol SampleInput: AnyObject {
    /// The next buffer waiting, within `timeout`; nil when none (or at the end).
    func pull(timeout: Duration, includingCaps: Bool) -> AppSink.Sample?
    /// Whether the input has ended and every buffer was taken.
    var isEndOfStream: Bool { get }
}

extension AppSink: SampleInput {}
