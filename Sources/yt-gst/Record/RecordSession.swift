// yt-gst — one run of `record`: the source pipeline, the appsink pulled in one loop, the file(s), keys and status.
import AppSrcFeeder
import Glibc
import GstPlayer
import WAV

/// Records from an appsink into crash-safe WAV files (`WAVWriter`).
///
/// One loop takes the buffers from the appsink every 50 ms (or sooner for a key or a bus message), measures it for the meter and voice
/// activation, writes what is wanted (cut to the exact frame at a split, `--duration` or `--max-size`), and between
/// buffers reads keys, signals and the bus. Files are created when their first sample arrives, because the format
/// (the source's own rate and channels, unless asked) is only known then.
final class RecordSession {
    private let command: RecordCommand
    private let keyboard: KeyboardInput?
    private var statusLine: StatusLine
    private let jsonStatus: Bool
    private let toStandardOutput: Bool

    private var format: WAVFormat?
    private var levels: SampleLevels?
    private var meter: [SampleLevels.Reading] = []
    private var gate: VoiceGate?
    private var writer: WAVWriter?
    private var path: String?
    private var files: [String] = []
    private var paused = false
    /// Bytes taken from the appsink in this turn of the loop, written together.
    private var pending: [UInt8] = []
    /// Frames written to all files, and to the current one.
    private var framesWritten: UInt64 = 0
    private var framesInFile: UInt64 = 0
    /// Frames pulled from the source (written or not): the clock of `--bext` times and of split names.
    private var framesSeen: UInt64 = 0
    /// Wall time of the first sample.
    private var startTime: (seconds: time_t, nanoseconds: Int) = (0, 0)
    private var nextStatus = ContinuousClock.now

    /// How the loop ends.
    private enum Ending: Error {
        case finished
        case quit
        case signal(Int32)
        case failed(String)
    }

    init(command: RecordCommand) {
        self.command = command
        toStandardOutput = command.output == "-"
        let terminal = toStandardOutput ? false : Terminal.stdoutIsTerminal
        keyboard = command.interactive && (terminal || toStandardOutput) ? KeyboardInput() : nil
        statusLine = StatusLine(enabled: command.status == .auto && terminal && !command.quiet)
        jsonStatus = command.status == .json
    }

    func run(launch: String, properties: [ResolvedPipeline.Property], setsFormat: Bool) -> ExitCode {
        defer {
            statusLine.clear()
            keyboard?.restore()
        }
        if toStandardOutput {
            guard !Terminal.stdoutIsTerminal else {
                Terminal.error("yt-gst: will not write audio to a terminal; redirect standard output")
                return .failure
            }
            signal(SIGPIPE, SIG_IGN)  // a reader that goes away is EPIPE: the recording ends
        } else if command.split == nil && !command.force && access(command.output, F_OK) == 0 {
            Terminal.error("yt-gst: \(command.output): already exists (add --force to replace it)")
            return .failure
        }
        let pipeline: Pipeline
        let sink: AppSink
        do {
            pipeline = try Pipeline(launch: launch)
            for property in properties {
                try pipeline.element(named: property.element).set(property.property, fromString: property.value)
            }
            if setsFormat { try pipeline.element(named: "yt-gst-format").set("caps", fromString: command.sinkCaps) }
            sink = try pipeline.appSink(named: "sink")
            // READY first: autoaudiosrc creates its real source then, and its period can still be set.
            _ = try pipeline.setState(.ready)
            Self.askForLongerPeriods(pipeline, launch: launch)
            _ = try pipeline.setState(.playing)
        } catch {
            Terminal.error("yt-gst: \(Self.describe(error, launch: launch))")
            return error.kind == .missingElement || error.kind == .stateChange || error.kind == .stream
                ? .failure : .usage
        }
        defer { _ = try? pipeline.setState(.null) }
        let ending = loop(pipeline: pipeline, sink: sink)
        let finishError = finishFile()
        statusLine.clear()
        switch ending {
        case .failed(let message):
            Terminal.error("yt-gst: \(message)")
            return .failure
        case _ where finishError != nil:
            Terminal.error("yt-gst: \(path ?? command.output): \(finishError!.message)")
            return .failure
        case .signal(let signal):
            return Interrupts.exitCode(for: signal)
        case .finished, .quit:
            if format == nil && command.vox == nil {
                Terminal.error("yt-gst: the source ended before any audio came")
                return .failure
            }
            return .success
        }
    }

    /// Pulls and writes until a key, a signal, the source's end, a limit or an error stops the recording.
    private func loop(pipeline: Pipeline, sink: AppSink) -> Ending {
        while true {
            if let signal = Interrupts.pending { return .signal(signal) }
            for key in keyboard?.keys() ?? [] {
                switch RecordKeys.action(for: key) {
                case .togglePause?: paused.toggle()
                case .marker?:
                    if let writer, (try? writer.addMarker()) != nil, !jsonStatus {
                        statusLine.clear()
                        Terminal.error("marker \(writer.markerPositions.count) at \(timeText(framesInFile))")
                    }
                case .quit?: return .quit
                case .showKeys?:
                    statusLine.clear()
                    Terminal.error(RecordKeys.help)
                case nil: break
                }
            }
            while let message = pipeline.nextMessage(timeout: .zero) {
                switch message {
                case .error(let error):
                    return .failed(Self.describe(error, launch: nil, verbose: command.verbose))
                case .endOfStream: return .finished
                case .warning(let warning) where command.verbose:
                    Terminal.error("yt-gst: warning: \(warning.message)")
                default: break
                }
            }
            // Everything the appsink holds, then sleep until a key, a message, a signal or the next 50 ms: waking
            // once per buffer (every 10 ms from pulsesrc) would cost more CPU than the writing itself.
            do {
                while let sample = sink.pull(timeout: .zero, includingCaps: format == nil) { try take(sample) }
                if try flush() { return .finished }
            } catch {
                return .failed(error.message)
            }
            if sink.isEndOfStream { return .finished }
            showStatus()
            MainLoop.wait(
                for: [keyboard == nil ? nil : STDIN_FILENO, pipeline.busDescriptor], until: .now + .milliseconds(50))
        }
    }

    /// Measures one buffer and queues what is to be written (`flush()` writes it, once per turn of the loop).
    private func take(_ sample: AppSink.Sample) throws(RecordError) {
        if format == nil { try start(caps: sample.caps) }
        guard let format else { return }
        var bytes = sample.bytes
        bytes.removeLast(bytes.count % format.blockAlign)
        framesSeen += UInt64(bytes.count / format.blockAlign)
        // Measured only for what needs it: the meter and voice activation.
        let peak = statusLine.enabled || jsonStatus || gate != nil ? levels?.measure(bytes) ?? 0 : 0
        guard !paused else { return }
        guard var gate else {
            pending += bytes
            return
        }
        let decision = gate.process(bytes, peak: peak)
        self.gate = gate
        if decision.opened && command.split == .utterance {
            _ = try flush()
            try finishCurrent()
        }
        pending += decision.bytes
        if decision.closed && command.split == .utterance {
            _ = try flush()
            try finishCurrent()
        }
    }

    /// Writes the queued bytes; true when a limit (--duration, --max-size) has been reached.
    private func flush() throws(RecordError) -> Bool {
        defer { pending.removeAll(keepingCapacity: true) }
        return try write(pending)
    }

    /// Learns the format from the first buffer's caps and sets up the meter and the gate.
    private func start(caps: Caps?) throws(RecordError) {
        guard let caps, let rate = caps.rate, let channels = caps.channels else {
            throw RecordError("the source gave no rate and channels (caps: \(caps?.description ?? "none"))")
        }
        if caps.mediaType == "audio/x-raw", let given = caps.format, given != command.rawFormat {
            throw RecordError("the pipeline gives \(given) samples, not \(command.rawFormat): choose --format to match")
        }
        let mask = caps.channelMask.flatMap(WAVFormat.wavChannelMask(fromGStreamer:))
        let format = WAVFormat.recording(command.format, sampleRate: rate, channels: channels, channelMask: mask)
        self.format = format
        levels = SampleLevels(format: command.format, channels: channels)
        if let vox = command.vox {
            gate = VoiceGate(
                threshold: SampleLevels.amplitude(decibels: vox), preRollFrames: Int(command.preRoll * Double(rate)),
                hangFrames: Int(command.hang * Double(rate)), blockAlign: format.blockAlign)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        startTime = (now.tv_sec, now.tv_nsec)
    }

    /// Writes whole frames, starting files as needed and cutting at splits and limits; true when a limit is reached.
    private func write(_ bytes: [UInt8]) throws(RecordError) -> Bool {
        guard let format, !bytes.isEmpty else { return false }
        let blockAlign = UInt64(format.blockAlign)
        var rest = bytes[...]
        while !rest.isEmpty {
            var frames = UInt64(rest.count) / blockAlign
            var limited = false
            if let duration = command.duration {
                let left = UInt64((duration * Double(format.sampleRate)).rounded()) - min(framesWritten, .max)
                if frames >= left { (frames, limited) = (left, true) }
            }
            if case .every(let seconds) = command.split {
                let perFile = UInt64((seconds * Double(format.sampleRate)).rounded())
                if framesInFile >= perFile { try finishCurrent() }
                frames = min(frames, perFile - framesInFile)
            }
            let writer = try currentWriter()
            if let maxSize = command.maxSize {
                let room = maxSize > writer.fileLength ? (maxSize - writer.fileLength) / blockAlign : 0
                if frames >= room { (frames, limited) = (room, true) }
            }
            let count = Int(frames * blockAlign)
            do {
                try writer.append(Array(rest.prefix(count)))
            } catch {
                let seconds = Double(writer.frames) / Double(format.sampleRate)
                throw RecordError(
                    "\(path ?? "-"): \(error.message); the file holds \(StatusView.trim((seconds * 10).rounded() / 10)) s"
                )
            }
            framesWritten += frames
            framesInFile += frames
            rest = rest.dropFirst(count)
            if limited { return true }
        }
        return false
    }

    /// The writer of the current file, creating the file (and the next name of a split) when there is none.
    private func currentWriter() throws(RecordError) -> WAVWriter {
        if let writer { return writer }
        guard let format else { throw RecordError("no format yet") }
        let fileStart = startTime.seconds + time_t(framesSeen / UInt64(format.sampleRate))
        let name =
            command.split == nil
            ? command.output
            : SplitName.name(SplitName.pattern(for: command.output), number: files.count + 1, time: fileStart)
        var options = WAVWriter.Options()
        options.syncInterval = .milliseconds(Int64(command.syncInterval * 1000))
        if let threshold = Self.rf64Threshold { options.rf64Threshold = threshold }
        options.info = command.info
        if command.bext { options.broadcast = broadcast(format: format) }
        do {
            let file =
                toStandardOutput
                ? FileWriter(descriptor: STDOUT_FILENO, path: "-")
                : try FileWriter(path: name, replacing: command.force)
            let writer = try WAVWriter(file: file, format: format, options: options)
            self.writer = writer
            path = name
            files.append(name)
            framesInFile = 0
            return writer
        } catch {
            throw RecordError("\(name): \(error.message)")
        }
    }

    /// The bext chunk of a file whose first sample is the next one: its local date and time, and the time
    /// reference (samples since midnight).
    private func broadcast(format: WAVFormat) -> WAVMetadata.Broadcast {
        let rate = UInt64(format.sampleRate)
        let offsetNanoseconds = UInt64(startTime.nanoseconds) + framesSeen % rate * 1_000_000_000 / rate
        var time = startTime.seconds + time_t(framesSeen / rate) + time_t(offsetNanoseconds / 1_000_000_000)
        var parts = tm()
        localtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        let sinceMidnight = UInt64(parts.tm_hour * 3600 + parts.tm_min * 60 + parts.tm_sec)
        let reference = sinceMidnight * rate + (offsetNanoseconds % 1_000_000_000) * rate / 1_000_000_000
        let mode = format.channels == 1 ? "mono" : format.channels == 2 ? "stereo" : "multitrack"
        return WAVMetadata.Broadcast(
            description: command.info.first { $0.id == "ICMT" }?.value ?? "", originator: "yt-gst",
            originatorReference: "", originationDate: date, originationTime: clock, timeReference: reference,
            version: 1,
            codingHistory:
                "A=PCM,F=\(format.sampleRate),W=\(format.bitsPerSample),M=\(mode),T=yt-gst \(Tool.version)\r\n")
    }

    /// Finishes the current file, if any; the next write starts a new one.
    private func finishCurrent() throws(RecordError) {
        if let error = finishFile() { throw RecordError("\(path ?? "-"): \(error.message)") }
    }

    private func finishFile() -> WAVWriteError? {
        guard let writer else { return nil }
        self.writer = nil
        do {
            try writer.finish()
            return nil
        } catch {
            return error
        }
    }

    private func timeText(_ frames: UInt64) -> String {
        guard let format else { return "0:00" }
        let seconds = Double(frames) / Double(format.sampleRate)
        return TimeText.format(seconds) + ".\(Int(seconds * 10) % 10)"
    }

    /// The status line or a JSON line, about 10 times a second.
    private func showStatus() {
        guard statusLine.enabled || jsonStatus, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + .milliseconds(100)
        if var levels {
            meter = levels.readings
            levels.reset()
            self.levels = levels
        }
        let state = paused ? "paused" : gate.map { $0.isOpen ? "recording" : "waiting" } ?? "recording"
        let seconds = format.map { Double(framesWritten) / Double($0.sampleRate) } ?? 0
        let bytes = writer?.fileLength ?? 0
        if jsonStatus {
            let levelsJSON = meter.map {
                "{\"peak\": \(StatusView.number($0.peak)), \"rms\": \(StatusView.number($0.rms)), "
                    + "\"clip\": \($0.clipped)}"
            }
            let line = JSON.object([
                ("state", JSON.string(state)), ("file", path.map(JSON.string) ?? "null"),
                ("elapsed", StatusView.number(seconds)), ("bytes", "\(bytes)"), ("files", "\(files.count)"),
                ("markers", "\(writer?.markerPositions.count ?? 0)"),
                ("levels", "[\(levelsJSON.joined(separator: ", "))]"),
            ])
            if toStandardOutput { Terminal.error(line) } else { Terminal.write(line + "\n") }
            return
        }
        let symbol = paused ? "||" : state == "waiting" ? ".." : "* REC"
        let size = StatusView.trim((Double(bytes) / 100_000).rounded() / 10) + " MB"
        let meterText = meter.map { StatusView.meterBar($0.peak) + StatusView.dB($0.rms) + ($0.clipped ? " CLIP" : "") }
        let markers = writer.map { $0.markerPositions.isEmpty ? "" : "  \($0.markerPositions.count) markers" } ?? ""
        let name = path.map { "  " + ($0.split(separator: "/").last.map(String.init) ?? $0) } ?? ""
        statusLine.draw(
            "\(symbol) \(TimeText.format(seconds))  \(size)  \(meterText.joined(separator: " "))\(markers)\(name)")
    }

    /// Audio sources (pulsesrc, alsasrc: any element with `latency-time`) are asked for 50 ms periods instead of
    /// their 10 ms default, unless the launch string sets one: a recorder needs no low latency (the meter shows 10
    /// readings a second), and five times fewer buffers through the sound server, GStreamer and the writer cost
    /// well under half the CPU.
    static func askForLongerPeriods(_ pipeline: Pipeline, launch: String) {
        guard !launch.contains("latency-time") else { return }
        for element in pipeline.allElements() where element.hasProperty("latency-time") {
            try? element.set("latency-time", fromString: "50000")
        }
    }

    /// $YT_GST_RF64_THRESHOLD: the RIFF size past which files become RF64, lowered by the crash tests so a short
    /// recording crosses it (unset: 4 GiB, the real limit).
    static let rf64Threshold: UInt64? = getenv("YT_GST_RF64_THRESHOLD").flatMap { UInt64(String(cString: $0)) }

    /// One line for a pipeline that does not build or run.
    static func describe(_ error: GstError, launch: String?, verbose: Bool = false) -> String {
        switch error.kind {
        case .missingAppElement:
            return "the pipeline must end in an element \"appsink name=sink\"" + (launch.map { ": \($0)" } ?? "")
        case .missingElement: return MissingPlugin.describe(error)
        case .notFound, .invalidValue, .parse:
            return "bad pipeline: \(error.message)" + (launch.map { ": \($0)" } ?? "")
        default:
            let from = error.elementName.map { " (from \($0))" } ?? ""
            return "cannot record: \(error.message)\(from)" + (verbose ? (error.debug.map { "; \($0)" } ?? "") : "")
        }
    }
}

/// A recording problem, one line for the user.
struct RecordError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
