// yt-gst — the appsink's buffers into WAV files: the format, levels, the voice gate, splits, limits, bext.
import Glibc
import GstPlayer
import WAV

extension RecordSession {
    /// Measures one buffer and queues what is to be written (`flush()` writes it, once per turn of the loop).
    func take(_ sample: AppSink.Sample) throws(RecordingError) {
        if format == nil { try start(caps: sample.caps) }
        guard let format else { return }
        var bytes = sample.bytes
        bytes.removeLast(bytes.count % format.blockAlign)
        framesSeen += UInt64(bytes.count / format.blockAlign)
        // Measured only for what needs it: the status and voice activation.
        let peak = configuration.statusInterval != nil || gate != nil ? levels?.measure(bytes) ?? 0 : 0
        guard !paused else { return }
        guard var gate else {
            pending += bytes
            return
        }
        let decision = gate.process(bytes, peak: peak)
        self.gate = gate
        let splitsPerUtterance = configuration.split == .utterance
        if decision.opened {
            observer(.voiceGateChanged(open: true))
            if splitsPerUtterance { try startNextFile() }
        }
        pending += decision.bytes
        if decision.closed {
            observer(.voiceGateChanged(open: false))
            if splitsPerUtterance { try startNextFile() }
        }
    }

    /// Writes the queued bytes; true when a limit (duration, size) has been reached.
    func flush() throws(RecordingError) -> Bool {
        defer { pending.removeAll(keepingCapacity: true) }
        return try write(pending)
    }

    /// Writes what is queued into the current file and finishes it: the next write starts a new one.
    private func startNextFile() throws(RecordingError) {
        _ = try flush()
        if let error = finishFile() { throw error }
    }

    /// Learns the format from the first buffer's caps and sets up the meter and the gate.
    private func start(caps: Caps?) throws(RecordingError) {
        guard let caps, let rate = caps.rate, let channels = caps.channels else {
            throw .noRateAndChannels(caps: caps?.description)
        }
        let expected = configuration.rawFormat
        if caps.mediaType == "audio/x-raw", let given = caps.format, given != expected {
            throw .formatMismatch(given: given, expected: expected)
        }
        let mask = caps.channelMask.flatMap(WAVFormat.wavChannelMask(fromGStreamer:))
        let format = WAVFormat.recording(configuration.format, sampleRate: rate, channels: channels, channelMask: mask)
        self.format = format
        levels = SampleLevels(format: configuration.format, channels: channels)
        if let vox = configuration.voiceActivation {
            gate = VoiceGate(
                threshold: SampleLevels.amplitude(decibels: vox.threshold),
                preRollFrames: Int(vox.preRoll * Double(rate)), hangFrames: Int(vox.hang * Double(rate)),
                blockAlign: format.blockAlign)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        startTime = (now.tv_sec, now.tv_nsec)
    }

    /// Writes whole frames, starting files as needed and cutting at splits and limits; true when a limit is reached.
    private func write(_ bytes: [UInt8]) throws(RecordingError) -> Bool {
        guard let format, !bytes.isEmpty else { return false }
        let blockAlign = UInt64(format.blockAlign)
        var rest = bytes[...]
        while !rest.isEmpty {
            var frames = UInt64(rest.count) / blockAlign
            // Frames left before the duration or the size limit; it ends the recording only where it cuts (a split
            // that comes first only starts the next file).
            var limit = UInt64.max
            if let duration = configuration.duration {
                limit = UInt64((duration * Double(format.sampleRate)).rounded()) - framesWritten
            }
            if case .every(let seconds) = configuration.split {
                let perFile = UInt64((seconds * Double(format.sampleRate)).rounded())
                // The file is full: finished here, the next is created below (and `frames` recomputed next round).
                if framesInFile >= perFile, let error = finishFile() { throw error }
                frames = min(frames, perFile - framesInFile)
            }
            let writer = try currentWriter(format: format)
            if let maxSize = configuration.maxSize {
                limit = min(limit, maxSize > writer.fileLength ? (maxSize - writer.fileLength) / blockAlign : 0)
            }
            let limited = frames >= limit
            frames = min(frames, limit)
            let count = Int(frames * blockAlign)
            do {
                try writer.append(Array(rest.prefix(count)))
            } catch {
                let seconds = Double(writer.frames) / Double(format.sampleRate)
                throw .writeFailed(path: path ?? "-", error, secondsKept: seconds)
            }
            framesWritten += frames
            framesInFile += frames
            rest = rest.dropFirst(count)
            if limited { return true }
        }
        return false
    }

    /// The writer of the current file, creating the file (and the next name of a split) when there is none.
    private func currentWriter(format: WAVFormat) throws(RecordingError) -> WAVWriter {
        if let writer { return writer }
        let name: String
        switch configuration.output {
        case .file(let path): name = path
        case .files(let pattern, _):
            let fileStart = startTime.seconds + time_t(framesSeen / UInt64(format.sampleRate))
            name = SplitName.name(pattern, number: files.count + 1, time: fileStart)
        case .descriptor: name = "-"
        }
        var options = WAVWriter.Options()
        options.syncInterval = configuration.syncInterval
        if let threshold = configuration.rf64Threshold { options.rf64Threshold = threshold }
        options.info = configuration.info
        if configuration.broadcastChunk { options.broadcast = broadcast(format: format) }
        do {
            let file =
                if case .descriptor(let descriptor) = configuration.output {
                    FileWriter(descriptor: descriptor, path: name)
                } else {
                    try FileWriter(path: name, replacing: configuration.replacesExisting)
                }
            let writer = try WAVWriter(file: file, format: format, options: options)
            self.writer = writer
            path = name
            files.append(name)
            framesInFile = 0
            observer(.fileOpened(path: name, index: files.count))
            return writer
        } catch {
            throw .cannotCreate(path: name, error)
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
            description: configuration.info.first { $0.id == "ICMT" }?.value ?? "", originator: "yt-gst",
            originatorReference: "", originationDate: date, originationTime: clock, timeReference: reference,
            version: 1,
            codingHistory:
                "A=PCM,F=\(format.sampleRate),W=\(format.bitsPerSample),M=\(mode),T=\(configuration.software)\r\n")
    }

    /// Finishes the current file, if any (the next write starts a new one); the error, if finishing failed.
    func finishFile() -> RecordingError? {
        guard let writer else { return nil }
        self.writer = nil
        do {
            try writer.finish()
            return nil
        } catch {
            return .finishFailed(path: path ?? "-", error)
        }
    }
}
