// yt-gst — the need-data feeder through real pipelines: bit-exact data, chunking, timestamps, seeking, EOS, I/O faults.
import AppSrcFeeder
import Foundation
import GstPlayer
import Synchronization
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct FeederTests {
    init() { Gst.initialize() }

    /// Writes `wav` to a scratch file, feeds it into `appsrc ! appsink` and returns every sample pulled.
    func pullAll(
        _ wav: SyntheticWAV, chunkMilliseconds: Int = 200, buffers: Int = 3,
        reader: ((String) throws -> any ByteReader)? = nil
    ) throws -> (feeder: WAVFeeder, samples: [AppSink.Sample], error: GstError?) {
        let dir = try Paths.makeScratch("feeder")
        defer { Paths.removeScratch(dir) }
        let path = try wav.write(to: dir.appendingPathComponent("in.wav"))
        let feeder: WAVFeeder
        if let reader {
            let (file, _) = try WAVFile.open(path: path)
            feeder = try WAVFeeder(
                file: file, reader: try reader(path), name: path, chunkMilliseconds: chunkMilliseconds, buffers: buffers
            )
        } else {
            feeder = try WAVFeeder(path: path, chunkMilliseconds: chunkMilliseconds, buffers: buffers)
        }
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=false")
        defer { player.stop() }
        try player.play(feeder)
        let sink = try #require(player.pipeline).appSink(named: "sink")
        var samples: [AppSink.Sample] = []
        var error: GstError?
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if let sample = sink.pull(timeout: .milliseconds(20)) {
                samples.append(sample)
            } else if sink.isEndOfStream {
                break
            }
            if case .error(let e)? = player.nextEvent(timeout: .zero)?.view {
                error = e
                break
            }
        }
        return (feeder, samples, error)
    }

    @Test(arguments: [(8, 1, 8_000), (16, 2, 44_100), (24, 2, 48_000), (32, 1, 22_050), (16, 6, 48_000)])
    func deliversEveryByteInWholeFrameChunks(bits: Int, channels: Int, rate: Int) throws {
        // 1.37 s: the last 0.2 s chunk is partial.
        let wav = SyntheticWAV.tone(frames: rate * 137 / 100, rate: rate, channels: channels, bits: bits)
        let (feeder, samples, error) = try pullAll(wav)
        #expect(error == nil)
        #expect(firstDifference(samples.flatMap(\.bytes), wav.samples) == nil)
        let chunkBytes = rate / 5 * wav.blockAlign
        #expect(feeder.chunkBytes == chunkBytes)
        #expect(samples.dropLast().allSatisfy { $0.bytes.count == chunkBytes })
        #expect(samples.last.map { $0.bytes.count % wav.blockAlign == 0 && $0.bytes.count < chunkBytes } == true)
        #expect(samples.first?.caps?.rate == rate)
        #expect(samples.first?.caps?.channels == channels)
    }

    @Test func timestampsAndOffsetsComeFromTheFrameIndex() throws {
        let wav = SyntheticWAV.tone(frames: 44_100 * 3 + 17, rate: 44_100, channels: 2)
        let (_, samples, _) = try pullAll(wav, chunkMilliseconds: 30)
        var frame: Int64 = 0
        for sample in samples {
            let frames = Int64(sample.bytes.count / wav.blockAlign)
            #expect(sample.offset == frame && sample.offsetEnd == frame + frames)
            #expect(sample.pts == ClockTime(frames: frame, rate: 44_100))
            #expect(
                sample.duration?.nanoseconds
                    == ClockTime(frames: frame + frames, rate: 44_100).nanoseconds
                    - ClockTime(frames: frame, rate: 44_100).nanoseconds)
            frame += frames
        }
        #expect(frame == Int64(wav.frames))
    }

    @Test(arguments: [(1, 1), (50, 1), (200, 3), (1000, 8)])
    func chunkingIsSettable(chunkMilliseconds: Int, buffers: Int) throws {
        let wav = SyntheticWAV.tone(frames: 16_000, rate: 16_000, channels: 1)
        let (feeder, samples, _) = try pullAll(wav, chunkMilliseconds: chunkMilliseconds, buffers: buffers)
        #expect(feeder.chunkUnits == Int64(max(1, 16 * chunkMilliseconds)))
        #expect(feeder.buffers == buffers)
        #expect(firstDifference(samples.flatMap(\.bytes), wav.samples) == nil)
    }

    @Test func seekingWhilePlayingContinuesFromTheSeekFrame() throws {
        // Noise: a 1 kHz tone at 8 kHz repeats every 8 frames, so a seek 8 frames off would pass.
        let wav = SyntheticWAV.noise(frames: 8_000 * 10, rate: 8_000, channels: 1)
        let dir = try Paths.makeScratch("seek")
        defer { Paths.removeScratch(dir) }
        let path = try wav.write(to: dir.appendingPathComponent("in.wav"))
        let player = Player(launch: "appsrc name=src ! appsink name=sink sync=true")
        try player.play(try WAVFeeder(path: path))
        let sink = try #require(player.pipeline).appSink(named: "sink")
        #expect(sink.pull(timeout: .seconds(2)) != nil)
        try player.seek(to: ClockTime(seconds: 7))
        let after = try #require(sink.pull(timeout: .seconds(2)))
        #expect(after.pts == ClockTime(seconds: 7))
        let start = 7 * 8_000 * 2
        #expect(after.bytes == Array(wav.samples[start..<(start + after.bytes.count)]))
        var rest = after.bytes
        while let sample = sink.pull(timeout: .seconds(5)) { rest += sample.bytes }
        #expect(firstDifference(rest, wav.samples[start...]) == nil)
        #expect(sink.isEndOfStream)
        player.stop()
    }

    @Test func aReadErrorBecomesAPipelineErrorNamingTheFile() throws {
        let wav = SyntheticWAV.tone(frames: 44_100, rate: 44_100)
        let (_, _, error) = try pullAll(wav) { path in
            InjectedEIOReader(inner: try FileReader(path: path), failAfter: 2)
        }
        let failure = try #require(error)
        #expect(failure.message.contains("in.wav"))
        #expect(failure.domain == "gst-resource-error-quark")
    }

    @Test func shortReadsStillDeliverEveryByte() throws {
        let wav = SyntheticWAV.tone(frames: 44_100, rate: 44_100)
        let (_, samples, error) = try pullAll(wav) { path in InjectedShortReadsReader(inner: try FileReader(path: path))
        }
        #expect(error == nil)
        #expect(firstDifference(samples.flatMap(\.bytes), wav.samples) == nil)
    }

    @Test func aFileThatShrinksWhilePlayingEndsWithWhatIsThere() throws {
        let wav = SyntheticWAV.tone(frames: 44_100, rate: 44_100)
        let (_, samples, error) = try pullAll(wav) { path in
            InjectedTruncationReader(inner: try FileReader(path: path), size: 44 + 10_001)
        }
        #expect(error == nil)
        #expect(samples.flatMap(\.bytes) == Array(wav.samples[0..<10_000]))
    }
}

/// Throws EIO from the nth read on.
final class InjectedEIOReader: ByteReader, Sendable {
    let inner: FileReader
    let failAfter: Int
    let reads = Atomic<Int>(0)
    init(inner: FileReader, failAfter: Int) {
        self.inner = inner
        self.failAfter = failAfter
    }
    var size: Int64 { inner.size }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        if reads.add(1, ordering: .relaxed).newValue > failAfter {
            throw WAVError(.io, "Input/output error")
        }
        return try inner.read(at: offset, into: buffer)
    }
}

/// Returns at most 1000 bytes per read, as a slow device might; callers must loop.
final class InjectedShortReadsReader: ByteReader, Sendable {
    let inner: FileReader
    init(inner: FileReader) { self.inner = inner }
    var size: Int64 { inner.size }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        var done = 0
        while done < buffer.count {
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[done..<min(buffer.count, done + 1000)])
            let n = try inner.read(at: offset + Int64(done), into: slice)
            if n == 0 { break }
            done += n
        }
        return done
    }
}

/// Pretends the file ends at `size` (it was truncated after the header was read).
final class InjectedTruncationReader: ByteReader, Sendable {
    let inner: FileReader
    let limit: Int64
    init(inner: FileReader, size: Int64) {
        self.inner = inner
        self.limit = size
    }
    var size: Int64 { inner.size }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard offset < limit else { return 0 }
        let count = min(buffer.count, Int(limit - offset))
        return try inner.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
    }
}
