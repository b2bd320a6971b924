// yt-gst — `yt-gst record` against a real audio server (the private PulseAudio of scripts/with-pulseaudio.sh):
// a tone played into the null sink comes back from its monitor at the right frequency, level and length; kill -9
// at random instants leaves files every reader opens; a full disk, voice activation, splitting and markers.
import AppSrcFeeder
import Foundation
import Synchronization
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct RecordTests {
    static let pulse = ProcessInfo.processInfo.environment["PULSE_SERVER"]
    static let sinkName = ProcessInfo.processInfo.environment["YT_GST_PULSE_SINK"] ?? "spk"
    static var monitor: [String] { ["--source", "monitor", "--set", "monitor=\(sinkName).monitor"] }

    /// The samples of channel 0 of a PCM recording as fractions of full scale, and the rate.
    static func channel0(_ path: String) throws -> (samples: [Double], rate: Int) {
        let (wav, reader) = try WAVFile.open(path: path)
        let data = try reader.bytes(at: wav.dataOffset, count: Int(wav.dataByteCount))
        let width = wav.format.bytesPerSample
        let scale = Double(1 << (8 * width - 1))
        let samples = stride(from: 0, to: data.count - width + 1, by: wav.format.blockAlign).map { at in
            var value = 0
            for byte in 0..<width { value |= Int(data[at + byte]) << (8 * byte) }
            if value >= 1 << (8 * width - 1) { value -= 1 << (8 * width) }
            return Double(value) / scale
        }
        return (samples, wav.format.sampleRate)
    }

    /// Where the sound is (first and last sample above `threshold`), its frequency from zero crossings and its peak
    /// level in dBFS from the RMS of its middle half.
    static func tone(
        in samples: [Double], rate: Int, threshold: Double = 0.05
    )
        -> (start: Double, end: Double, frequency: Double, peakDB: Double)?
    {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
            let last = samples.lastIndex(where: { abs($0) > threshold }), last > first + rate / 10
        else { return nil }
        let middle = samples[(first + (last - first) / 4)..<(last - (last - first) / 4)]
        var crossings: [Double] = []
        for i in middle.indices.dropFirst() where middle[i - 1] < 0 && middle[i] >= 0 {
            crossings.append(Double(i - 1) + middle[i - 1] / (middle[i - 1] - middle[i]))
        }
        let frequency = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
        let rms = (middle.reduce(0) { $0 + $1 * $1 } / Double(middle.count)).squareRoot()
        return (
            Double(first) / Double(rate), Double(last) / Double(rate), frequency, 20 * log10(rms * 2.0.squareRoot())
        )
    }

    /// A tone file to play into the null sink with paplay.
    static func toneFile(in dir: URL, seconds: Double, frequency: Double = 1_000) throws -> String {
        try SyntheticWAV.tone(frequency: frequency, frames: Int(seconds * 48_000), rate: 48_000, channels: 2)
            .write(to: dir.appendingPathComponent("tone-\(Int(seconds * 1000)).wav"))
    }

    static func play(_ path: String) throws {
        let r = try Run.run("/usr/bin/paplay", ["-d", sinkName, path], timeout: 30)
        #expect(r.status == 0, "paplay: \(r.stderr)")
    }

    @Test(
        .enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"),
        arguments: [(8_000, 1, "s16"), (48_000, 2, "s24")])
    func recordsAToneFromTheMonitor(rate: Int, channels: Int, format: String) throws {
        let dir = try Paths.makeScratch("record")
        defer { Paths.removeScratch(dir) }
        let tone = try Self.toneFile(in: dir, seconds: 1.5, frequency: 441)
        let out = dir.appendingPathComponent("rec.wav").path
        let recorder = try Run.launch(
            Paths.binary,
            ["record", out, "--rate", "\(rate)", "--channels", "\(channels)", "--format", format, "--duration", "3"]
                + Self.monitor)
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        // The file appears with the first buffer: then the recording runs (start-up takes long on a busy machine).
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: out) && Date() < deadline { usleep(10_000) }
        usleep(100_000)
        try Self.play(tone)
        let r = recorder.wait(timeout: 20)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let (samples, fileRate) = try Self.channel0(out)
        #expect(fileRate == rate)
        #expect(abs(Double(samples.count) / Double(rate) - 3) < 0.02, "--duration 3 gave \(samples.count) frames")
        let found = try #require(Self.tone(in: samples, rate: rate), "no tone in the recording")
        #expect(abs(found.frequency - 441) <= 1, "frequency \(found.frequency)")
        #expect(abs(found.peakDB - (-6.02)) <= 0.5, "level \(found.peakDB) dBFS")
        #expect(abs(found.end - found.start - 1.5) <= 0.02, "tone length \(found.end - found.start)")
        let info = try Run.ytGst(["info", out])
        #expect(info.status == 0 && !info.stdout.contains("warning"), "\(info.stdout)")
    }

    /// What one kill -9 left: the file (if the recording had started), how long it had recorded, and checks.
    struct Trial {
        var path: String
        var recorded: Double
        var exists: Bool
    }

    /// Starts a recording, waits for its file, kills it `after` seconds later with SIGKILL.
    static func killTrial(path: String, after: Double, environment: [String: String] = [:]) throws -> Trial {
        let recorder = try Run.launch(
            Paths.binary, ["record", path, "--rate", "48000", "--channels", "2"] + monitor, environment: environment)
        var created: Date?
        let deadline = Date().addingTimeInterval(10)
        while created == nil && Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { created = Date() } else { usleep(2_000) }
        }
        guard let created else {
            recorder.signal(SIGKILL)
            _ = recorder.wait(timeout: 5)
            return Trial(path: path, recorded: 0, exists: false)
        }
        usleep(useconds_t(after * 1_000_000))
        recorder.signal(SIGKILL)
        let recorded = Date().timeIntervalSince(created)
        _ = recorder.wait(timeout: 5)
        return Trial(path: path, recorded: recorded, exists: true)
    }

    /// The RIFF size a file states (from ds64 in an RF64).
    static func riffSize(_ path: String) throws -> UInt64 {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 28))
        func le(_ at: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(0) { $0 | UInt64(head[at + $1]) << (8 * UInt64($1)) }
        }
        return le(4, 4) == 0xFFFF_FFFF ? le(20, 8) : le(4, 4)
    }

    /// Runs `times` kill trials, 5 at a time, and checks every file.
    static func crashTrials(times: [Double], label: String, rf64Threshold: UInt64? = nil) throws -> Int {
        let dir = try Paths.makeScratch(label)
        defer { Paths.removeScratch(dir) }
        let environment = rf64Threshold.map { ["YT_GST_RF64_THRESHOLD": "\($0)"] } ?? [:]
        let results = Mutex<[Trial]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            for index in stride(from: worker, to: times.count, by: 5) {
                let path = dir.appendingPathComponent("kill-\(index).wav").path
                do {
                    let trial = try killTrial(path: path, after: times[index], environment: environment)
                    results.withLock { $0.append(trial) }
                } catch {
                    failures.withLock { $0.append("\(index): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let trials = results.withLock { $0 }.filter(\.exists).sorted { $0.path < $1.path }
        let readers = try IndependentReaders.check(trials.map(\.path))
        for (trial, reader) in zip(trials, readers) {
            let name = (trial.path as NSString).lastPathComponent
            let (wav, _) = try WAVFile.open(path: trial.path)
            // Killed before the first buffer was written: a valid, empty WAV, and the reader says just that.
            let empty = wav.frameCount == 0
            #expect(
                wav.warnings.isEmpty || (empty && wav.warnings == ["the data chunk holds no audio"]),
                "\(name): \(wav.warnings)")
            let declared = Int(wav.chunks.first { $0.id == "data" }?.size ?? 0)
            let frames = declared / wav.format.blockAlign
            // On disk: the data chunk's bytes, then (while recording) a JUNK chunk to the end of the file.
            let onDisk = min(Int(wav.fileSize) - Int(wav.dataOffset), declared) / wav.format.blockAlign
            #expect(declared % wav.format.blockAlign == 0, "\(name): \(declared) data bytes is not whole frames")
            #expect(frames == onDisk && frames == Int(wav.frameCount), "\(name): header \(frames), on disk \(onDisk)")
            let riff = try Self.riffSize(trial.path)
            #expect(riff + 8 == UInt64(wav.fileSize), "\(name): the RIFF size misses bytes")
            let seconds = wav.durationSeconds
            #expect(seconds >= trial.recorded - 1.1, "\(name): \(seconds) s of \(trial.recorded) s")
            if rf64Threshold == nil {
                #expect(reader.pythonWave == frames, "\(name): \(reader)")
            } else if wav.fileSize > 100_000 {
                #expect(wav.container == .rf64, "\(name): still \(wav.container)")
            }
            #expect(reader.soundfile == frames && reader.sox == frames, "\(name): \(reader)")
            if wav.container == .rf64 {
                // wavparse 1.22 ignores ds64's data size when the data chunk says 0xFFFFFFFF and plays to the end of
                // the file: here the audio, then the zeros of the JUNK tail a finished file no longer has.
                #expect((reader.wavparseBytes ?? 0) >= frames * wav.format.blockAlign, "\(name): \(reader)")
            } else {
                #expect(reader.wavparseBytes == frames * wav.format.blockAlign, "\(name): \(reader)")
            }
            let info = try Run.ytGst(["info", trial.path])
            #expect(
                info.status == 0
                    && (!info.stdout.contains("warning") || empty && info.stdout.contains("holds no audio")),
                "\(name): \(info.stdout)")
        }
        return trials.count
    }

    /// 50 kills: 10 within the first 100 ms of the file, 10 just after a second (the sync), 30 anywhere in 3 s.
    @Test(.enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func killNineAtRandomInstantsLeavesValidFiles() throws {
        var times = (0..<10).map { _ in Double.random(in: 0...0.1) }
        times += (0..<10).map { _ in Double.random(in: 1.0...1.03) }
        times += (0..<30).map { _ in Double.random(in: 0...3) }
        let checked = try Self.crashTrials(times: times, label: "kill")
        #expect(checked >= 50, "only \(checked) recordings started")
    }

    /// The same after the file became RF64 (the threshold lowered to 100 kB, about half a second).
    @Test(.enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func killNineAfterTheSwitchToRF64LeavesValidFiles() throws {
        let times = (0..<10).map { _ in Double.random(in: 0.3...2.5) }
        let checked = try Self.crashTrials(times: times, label: "kill-rf64", rf64Threshold: 100_000)
        #expect(checked == 10)
    }

    /// A full device (a 300 kB tmpfs): one line, exit 1, and a valid file holding what fit.
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskStopsWithOneLineAndAValidFile() throws {
        let dir = try Paths.makeScratch("full")
        defer { Paths.removeScratch(dir) }
        let mount = try Run.run("/bin/mount", ["-t", "tmpfs", "-o", "size=300k", "tmpfs", dir.path])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? Run.run("/bin/umount", [dir.path]) }
        let out = dir.appendingPathComponent("full.wav").path
        let r = try Run.ytGst(["record", out, "--source", "tone", "--rate", "48000", "--channels", "2"], timeout: 30)
        #expect(r.status == 1 && r.saysOneLine(containing: "No space left on device"), "\(r.stderr)")
        let (wav, _) = try WAVFile.open(path: out)
        #expect(wav.warnings.isEmpty && wav.frameCount > 48_000, "\(wav.warnings) \(wav.frameCount)")
        #expect(wav.fileSize == wav.dataOffset + wav.frameCount * 4, "the tail was cut off")
        let reader = try IndependentReaders.check(out)
        #expect(reader.soundfile == Int(wav.frameCount) && reader.pythonWave == Int(wav.frameCount), "\(reader)")
    }

    @Test func anExistingFileIsKeptWithoutForce() throws {
        let dir = try Paths.makeScratch("exists")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("keep.wav").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out))
        let r = try Run.ytGst(["record", out, "--source", "tone", "--duration", "0.2"])
        #expect(r.status == 1 && r.saysOneLine(containing: "already exists"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("precious".utf8))
        let forced = try Run.ytGst(["record", out, "--source", "tone", "--duration", "0.2", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try WAVFile.open(path: out).file.frameCount == 8_820)
    }

    /// The bytes of a recording's data chunk.
    static func data(_ path: String) throws -> [UInt8] {
        let (wav, reader) = try WAVFile.open(path: path)
        #expect(wav.warnings.isEmpty, "\(path): \(wav.warnings)")
        return try reader.bytes(at: wav.dataOffset, count: Int(wav.dataByteCount))
    }

    /// A deterministic source: a file with two tones between silences, cut into 10 ms buffers.
    static func voicePipeline(in dir: URL) throws -> String {
        let rate = 8_000
        let silence = { (seconds: Double) in [UInt8](repeating: 0, count: Int(seconds * Double(rate)) * 2) }
        let tone = { (seconds: Double) in
            SyntheticWAV.tone(frequency: 500, frames: Int(seconds * Double(rate)), rate: rate, channels: 1).samples
        }
        let samples = silence(1) + tone(1) + silence(2) + tone(0.5) + silence(1)
        let path = try SyntheticWAV(sampleRate: rate, channels: 1, bitsPerSample: 16, samples: samples)
            .write(to: dir.appendingPathComponent("voice.wav"))
        return "filesrc location=\(path) ! wavparse ! audiobuffersplit output-buffer-duration=1/100 ! "
            + "appsink name=sink sync=false"
    }

    /// --vox keeps the pre-roll before each tone and the hang time after it, and nothing of the silence beyond;
    /// --split vox cuts exactly there, so its files joined are the continuous voice-activated recording.
    @Test func voiceActivationKeepsPreRollAndHangAndSplitsPerUtterance() throws {
        let dir = try Paths.makeScratch("vox")
        defer { Paths.removeScratch(dir) }
        let pipeline = try Self.voicePipeline(in: dir)
        let whole = dir.appendingPathComponent("vox.wav").path
        let r = try Run.ytGst(["record", whole, "--pipeline", pipeline, "--vox", "-30"])
        #expect(r.status == 0, "\(r.stderr)")
        let split = try Run.ytGst(
            [
                "record", dir.appendingPathComponent("take-%03d.wav").path, "--pipeline", pipeline, "--vox", "-30",
                "--split", "vox",
            ])
        #expect(split.status == 0, "\(split.stderr)")
        let takes = try (1...2).map {
            try Self.data(dir.appendingPathComponent(String(format: "take-%03d.wav", $0)).path)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("take-003.wav").path))
        #expect(takes.flatMap { $0 } == (try Self.data(whole)), "the takes joined differ from the whole")
        for (take, toneSeconds) in zip(takes, [1.0, 0.5]) {
            let samples = ReferenceDecoders.int16(take).map { Double($0) / 32_768 }
            let found = try #require(Self.tone(in: samples, rate: 8_000, threshold: 0.01))
            #expect(abs(found.start - 0.2) <= 0.011, "pre-roll \(found.start) s")
            let after = Double(samples.count) / 8_000 - found.end
            #expect(after >= 0.5 - 0.001 && after <= 0.5 + 0.011, "hang \(after) s")
            #expect(abs(found.end - found.start - toneSeconds) <= 0.01)
        }
    }

    /// --split TIME: files of exactly TIME (the last shorter) that joined are the continuous recording.
    @Test func splitFilesJoinedAreTheContinuousRecording() throws {
        let dir = try Paths.makeScratch("split")
        defer { Paths.removeScratch(dir) }
        let pipeline =
            "audiotestsrc num-buffers=50 samplesperbuffer=441 freq=441 wave=sine ! "
            + "audio/x-raw,rate=44100,channels=1,format=S16LE ! appsink name=sink sync=false"
        let whole = dir.appendingPathComponent("whole.wav").path
        #expect(try Run.ytGst(["record", whole, "--pipeline", pipeline]).status == 0)
        let r = try Run.ytGst([
            "record", dir.appendingPathComponent("part.wav").path, "--pipeline", pipeline, "--split", "0.13",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let parts = try (1...4).map {
            try Self.data(dir.appendingPathComponent(String(format: "part-%03d.wav", $0)).path)
        }
        #expect(parts.dropLast().allSatisfy { $0.count == 5_733 * 2 }, "\(parts.map(\.count))")
        #expect(parts.flatMap { $0 } == (try Self.data(whole)))
    }

    /// `record -` writes a streaming header and the samples to a pipe.
    @Test func recordToAPipeWritesAStreamingHeader() throws {
        let dir = try Paths.makeScratch("pipe")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("piped.wav").path
        let r = try Run.run(
            "/bin/sh", ["-c", "'\(Paths.binary)' record - --source tone --duration 1 | cat > '\(out)'"], timeout: 30)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let (wav, _) = try WAVFile.open(path: out)
        #expect(wav.frameCount == 44_100)
        #expect(wav.warnings.count == 1 && wav.warnings[0].contains("0xFFFFFFFF"), "\(wav.warnings)")
        let raw = dir.appendingPathComponent("piped.raw").path
        let sox = try Run.run("/usr/bin/sox", [out, "-t", "raw", raw])
        let size = try FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int
        #expect(sox.status == 0 && size == 88_200, "\(sox.stderr)")
    }

    /// Keys on a terminal: m drops markers that `info` lists at buffer boundaries, q finishes with 0; Ctrl-C
    /// finishes the file too, with 130.
    @Test func markersFromTheKeyboardAndCleanStops() throws {
        let dir = try Paths.makeScratch("keys")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("marked.wav").path
        let pane = try TmuxPane("'\(Paths.binary)' record '\(out)' --source tone", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("REC"), "\(pane.screen)")
        usleep(500_000)
        try pane.send("m")
        #expect(pane.waitFor("marker 1 at"), "\(pane.screen)")
        usleep(400_000)
        try pane.send("m")
        #expect(pane.waitFor("marker 2 at"), "\(pane.screen)")
        // A second of pause: nothing is written meanwhile.
        let screen = pane.screen
        try pane.send("Space")
        #expect(pane.waitFor("||"), "\(pane.screen)")
        usleep(1_000_000)
        try pane.send("Space")
        usleep(300_000)
        try pane.send("q")
        #expect(pane.waitFor("EXIT=0"), "\(pane.screen)")
        let (wav, _) = try WAVFile.open(path: out)
        let cues = wav.metadata.cuePoints
        #expect(cues.map(\.label) == ["marker 1", "marker 2"])
        #expect(cues.allSatisfy { $0.position % 1_024 == 0 }, "not at a buffer boundary: \(cues.map(\.position))")
        #expect(cues.count == 2 && cues[0].position >= 22_050 && cues[1].position > cues[0].position + 8_820)
        #expect(cues.allSatisfy { Int64($0.position) <= wav.frameCount })
        // Where the screen said each marker went ("marker 1 at 0:00.5"), within a tenth and a block.
        for (index, cue) in cues.enumerated() {
            guard let line = screen.split(separator: "\n").first(where: { $0.contains("marker \(index + 1) at ") }),
                let text = line.split(separator: " ").last, let colon = text.firstIndex(of: ":"),
                let minutes = Double(text[..<colon]), let rest = Double(text[text.index(after: colon)...])
            else {
                Issue.record("no \"marker \(index + 1) at\" line: \(screen)")
                continue
            }
            let seconds = minutes * 60 + rest
            #expect(abs(Double(cue.position) / 44_100 - seconds) <= 0.1 + 1_024 / 44_100, "\(cue.position) vs \(text)")
        }
        // Recorded about 0.5 + 0.4 + 0.3 s plus start-up: well under the time the paused second would add.
        let recorded = Double(wav.frameCount) / 44_100
        let lastMarker = Double(cues[1].position) / 44_100
        #expect(recorded < lastMarker + 0.7, "the pause wrote audio: \(recorded) s, marker 2 at \(lastMarker) s")
        let info = try Run.ytGst(["info", out])
        #expect(info.stdout.contains("\"marker 2\""), "\(info.stdout)")

        let interrupted = dir.appendingPathComponent("interrupted.wav").path
        let pane2 = try TmuxPane("'\(Paths.binary)' record '\(interrupted)' --source tone", dir: dir)
        defer { pane2.close() }
        #expect(pane2.waitFor("REC"), "\(pane2.screen)")
        usleep(300_000)
        try pane2.send("C-c")
        #expect(pane2.waitFor("EXIT=130"), "\(pane2.screen)")
        let (stopped, _) = try WAVFile.open(path: interrupted)
        #expect(
            stopped.warnings.isEmpty && stopped.frameCount > 0
                && stopped.fileSize == stopped.dataOffset + stopped.frameCount * 2)
    }

    /// The slow set (YT_GST_SLOW_TESTS=1, not run by `make test`): a real recording past 4 GiB from a fast source
    /// (8 channels at 48 kHz, about 94 minutes of audio, written as fast as the disk takes it) becomes RF64.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["YT_GST_SLOW_TESTS"] == "1", "slow set"))
    func aRecordingPastFourGiBBecomesRF64() throws {
        let dir = try Paths.makeScratch("rf64")
        defer { Paths.removeScratch(dir) }
        let out = dir.appendingPathComponent("long.wav").path
        let seconds = 5_700  // 768 000 bytes a second: 4.38 GB
        let pipeline =
            "audiotestsrc wave=sine samplesperbuffer=48000 num-buffers=\(seconds) ! "
            + "audio/x-raw,format=S16LE,rate=48000,channels=8 ! appsink name=sink sync=false"
        let r = try Run.ytGst(["record", out, "--pipeline", pipeline], timeout: 3_600)
        #expect(r.status == 0, "\(r.stderr)")
        let (wav, _) = try WAVFile.open(path: out)
        #expect(wav.container == .rf64 && wav.warnings.isEmpty, "\(wav.container) \(wav.warnings)")
        #expect(wav.frameCount == Int64(seconds) * 48_000 && wav.fileSize > 1 << 32)
        let reader = try IndependentReaders.check(out)
        #expect(reader.soundfile == seconds * 48_000, "\(reader)")
    }
}
